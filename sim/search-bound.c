/* sim/search-bound.c - a provable lower bound on a plan's simulated step time.
 *
 * What the simulator guarantees (sim/simulate.h, simulate.c): each stage runs its tasks of
 * one stream one at a time in program order; a compute task lasts its block's cost
 * (sim_cost_op_math_s over its ops, sim_cost_optimizer_s for the optimizer) or longer
 * (comm_compute_slowdown only stretches it); a collective lasts sim_cost_coll_s, a send
 * sim_cost_p2p_s, a receive nothing; a task starts after its dependencies end. Hence, per
 * stage s and stream k, the step is at least:
 *   (1) the sum of the durations of the stream's tasks;
 *   (2) for the compute stream, that sum plus each "bridge": when compute task t+1 (in
 *       stream order) waits on a communication chain that itself waits on compute task t,
 *       the compute stream is idle for at least that chain (a TP all-reduce between two
 *       GEMM blocks without TP-comm overlap, a gradient reduce before the optimizer); then
 *       the communication that waits on the stage's last compute task (the parameter
 *       all-gather after the optimizer);
 *   (3) fill and drain: when the stage's first compute unit is the forward of micro-batch
 *       0 through chunk 0, its last unit the backward of the last micro-batch through
 *       chunk 0 and the per-step work comes after it, the forward of chunk 0 on every
 *       earlier stage precedes it (RECV on SEND) and the backward-phase compute of chunk
 *       0 on every earlier stage follows it, then stage 0's per-step work:
 *         sum_{j<s} f_j + (C_s - o_s) + sum_{j<s} b_j + o_0.
 *   (4) in (2) and (3), between two compute units, a communication task that waits on the
 *       first unit's last compute task and a later one of the same stream that the second
 *       unit's first compute task waits on (see stage_gaps).
 * The schedule's slot table (at the real m) and the reduced program's order are checked
 * for (3); where they differ, (3) is left out.
 *
 * Sums come from a reduced program of the same plan with m_r = min (m, 3) micro-batches
 * (for the interleaved schedule, whose tables need a group N >= pp, min (m, max (3, pp,
 * N)) where the 3 micro-batches' order does not give (3): ingredients_new): every micro-batch
 * between the first and the last runs the same tasks, so the full program's sums are the
 * reduced one's plus (m - m_r) times those of micro-batch 1 (only bridges inside one
 * compute unit are counted per micro-batch, since neighbours across units differ with m).
 * Communication the compute does not wait on stays out: exact, not tight. The engine
 * rounds each task to whole picoseconds, so 1 ps per task comes off the bound. The search's
 * test checks bound <= simulated step for every candidate it simulates. */
#include "sim/search-private.h"

#include <string.h>

typedef struct {
  int     n_stages;
  int     m_r;                       /* micro-batches of the reduced program */
  double *cx, *cy;                   /* compute + bridges: reduced total, per micro-batch */
  double *o;                         /* per-step compute + its bridges */
  double *tail;                      /* communication after the last compute task */
  double *g;                         /* term (4) over the full program's unit boundaries */
  int     m;                         /* the micro-batches of the plan g was counted for */
  double *f, *b;                     /* chain: forward mb 0 chunk 0; backward last mb chunk 0 */
  double *sx, *sy;                   /* per stage x PROG_STREAM_N: stream sums, total and
                                      * per micro-batch */
  double  nx, ny;                    /* tasks: reduced total, per micro-batch */
  gboolean order_ok;                 /* the reduced program's order allows (3) */
  gboolean chain;                    /* ... and so does the real schedule's (at the plan's m,
                                      * which every user of these ingredients shares) */
} Ingredients;

void
search_ingredients_free (gpointer data)
{
  Ingredients *in = data;
  g_free (in->cx);
  g_free (in->cy);
  g_free (in->o);
  g_free (in->tail);
  g_free (in->g);
  g_free (in->f);
  g_free (in->b);
  g_free (in->sx);
  g_free (in->sy);
  g_free (in);
}

guint
search_cand_key_hash (gconstpointer key)
{
  const guint8 *p = key;
  guint h = 2166136261u;
  for (gsize i = 0; i < sizeof (SearchCand); i++)
    h = (h ^ p[i]) * 16777619u;
  return h;
}

gboolean
search_cand_key_equal (gconstpointer a, gconstpointer b)
{
  return memcmp (a, b, sizeof (SearchCand)) == 0;
}

static double
block_cost (const SimCost *cost, const ProgProgram *p, guint32 block)
{
  const ProgBlock *blk = prog_block (p, block);
  if (blk->kind == PROG_BLOCK_OPTIMIZER)
    {
      const ModelOp *op = &g_array_index (p->ops, ModelOp, blk->first_op);
      return sim_cost_optimizer_s (cost, (double) op->elements);
    }
  double s = 0;
  for (guint i = 0; i < blk->n_ops; i++)
    s += sim_cost_op_math_s (cost, &g_array_index (p->ops, ModelOp, blk->first_op + i),
                             p->compute_dtype, p->gemm_dtype,
                             blk->phase == PROG_PHASE_BACKWARD);
  return s;
}

/* A collective's or transfer's duration by shape: a program has a handful of shapes and
 * tens of thousands of tasks. */
typedef struct {
  guint8 kind, coll, axis;
  gint32 stage, peer;
  double bytes, s;
} ShapeCost;

typedef struct {
  const ProgProgram *prog;
  const SimCost     *cost;
  const PlanLayout  *layout;
  double            *dur;        /* per task, < 0 = not yet */
  double            *bc;         /* per block */
  gboolean           tp_cp_only; /* bridges through TP and CP collectives only (coarse) */
  GArray            *shapes;     /* ShapeCost */
  const SearchSpace *space;      /* its slot and kind-pair tables (stage_gaps) */
} Costs;

static guint64
stage_device (const PlanLayout *layout, int stage)
{
  PlanCoord c = { { 0 } };
  c.coord[PLAN_AXIS_PP] = stage;
  return (guint64) plan_layout_rank_of (layout, &c);
}

/* The duration the simulator gives a task (compute without the slowdown). */
static double
task_s (Costs *c, guint32 id)
{
  if (c->dur[id] >= 0)
    return c->dur[id];
  const ProgTask *t = prog_task (c->prog, id);
  double d = 0;
  switch (t->kind)
    {
    case PROG_TASK_COMPUTE:
      if (c->bc[t->block] < 0)
        c->bc[t->block] = block_cost (c->cost, c->prog, t->block);
      d = c->bc[t->block];
      break;
    case PROG_TASK_COLL:
    case PROG_TASK_SEND:
      {
        ShapeCost key = { t->kind, t->coll, t->axis, t->kind == PROG_TASK_SEND ? t->stage : 0,
                          t->kind == PROG_TASK_SEND ? t->peer_stage : 0, t->bytes, 0 };
        d = -1;
        for (guint i = 0; i < c->shapes->len && d < 0; i++)
          {
            const ShapeCost *sc = &g_array_index (c->shapes, ShapeCost, i);
            if (sc->kind == key.kind && sc->coll == key.coll && sc->axis == key.axis
                && sc->stage == key.stage && sc->peer == key.peer && sc->bytes == key.bytes)
              d = sc->s;
          }
        if (d < 0)
          {
            d = t->kind == PROG_TASK_COLL
                ? sim_cost_coll_s (c->cost, t->coll, t->axis, t->bytes)
                : sim_cost_p2p_s (c->cost, stage_device (c->layout, t->stage),
                                  stage_device (c->layout, t->peer_stage), t->bytes);
            key.s = d;
            g_array_append_val (c->shapes, key);
          }
      }
      break;
    case PROG_TASK_COPY:
      d = sim_cost_host_copy_s (c->cost, t->bytes);
      break;
    default:
      d = 0;
    }
  c->dur[id] = d;
  return d;
}

/* The longest chain of communication tasks from the end of compute task `from` to the
 * start of task `id` (which is communication), or -1 when none leads there. */
static double
comm_path (Costs *c, guint32 id, guint32 from, int depth)
{
  const ProgTask *t = prog_task (c->prog, id);
  if (t->kind == PROG_TASK_COMPUTE || t->kind == PROG_TASK_RECV || depth > 4)
    return -1;
  if (c->tp_cp_only && t->stream != PROG_STREAM_TP && t->stream != PROG_STREAM_CP)
    return -1;
  const guint32 *deps = prog_task_deps (c->prog, t);
  double best = -1;
  for (guint32 k = 0; k < t->n_deps; k++)
    {
      if (deps[k] == from)
        best = MAX (best, 0);
      else
        {
          double p = comm_path (c, deps[k], from, depth + 1);
          if (p >= 0)
            best = MAX (best, p);
        }
    }
  return best < 0 ? -1 : best + task_s (c, id);
}

/* Idle time forced on the compute stream between compute tasks `prev` and `next`. */
static double
bridge (Costs *c, guint32 prev, guint32 next)
{
  const ProgTask *t = prog_task (c->prog, next);
  const guint32 *deps = prog_task_deps (c->prog, t);
  double best = 0;
  for (guint32 k = 0; k < t->n_deps; k++)
    best = MAX (best, comm_path (c, deps[k], prev, 0));
  return best;
}

static gboolean
is_comm (const ProgTask *t)
{
  return t->kind == PROG_TASK_COLL || t->kind == PROG_TASK_SEND || t->kind == PROG_TASK_COPY;
}

/* Term (4): the idle time forced on the compute stream between two compute units (one
 * micro-batch's forward or backward through one chunk, one slot of the schedule). Unit A
 * ends with compute task a, the next unit B starts with compute task b. If a
 * communication task X depends on a, and b depends on a communication task D of the same
 * stream that comes after X in program order (a higher index), then, as the stream runs
 * its tasks one at a time in program order, D starts after X ends, X after a ends, and b
 * after D ends:
 *   start (b) - end (a) >= dur (X) + dur (D).
 * With sequence parallelism this is the reduce-scatter that ends A's last block followed
 * on the TP stream by the all-gather that begins B's first block; the in-unit bridges of
 * (2) never count it (a and b lie in different units).
 * The program builds the units in slot order, each from ProgStage.slot_first (its tasks
 * and any work issued before the next unit), so a task of A's range comes before any of
 * B's. Hence, per stream, the longest X of A's range that waits on a (tail) plus the
 * longest D of B's range before b that b waits on (head) is such a pair, whatever else
 * the program puts between them: the gap is at least the largest tail + head over the
 * streams where A has a tail and B a head. Only the TP, CP, EP and host-copy streams
 * count, whose tasks belong to a unit's blocks; the pipeline's exchanges, the host
 * synchronizes and lock-step waits around them and the DP buckets depend on the unit's
 * place in the schedule. The coarse bound keeps to TP and CP (the same in every member
 * of its group).
 * Tails and heads come from the reduced program, per kind of unit: direction, chunk, and
 * whether its micro-batch is the first, the last or one between (the premise of the sums
 * per micro-batch: the micro-batches between run the same tasks), each the least over the
 * reduced program's units of that kind; they are charged at every boundary of the plan's
 * own slot table (at its m). Where the reduced program's units do not follow its slot
 * table one after another (the combined 1F1B's paired units, per-step compute between
 * two units), nothing is charged. */
static gboolean
gap_stream (const ProgTask *t, gboolean tp_cp_only)
{
  if (!is_comm (t))
    return FALSE;
  if (tp_cp_only)
    return t->stream == PROG_STREAM_TP || t->stream == PROG_STREAM_CP;
  return t->stream == PROG_STREAM_TP || t->stream == PROG_STREAM_CP
         || t->stream == PROG_STREAM_EP || t->stream == PROG_STREAM_HOST;
}

static int
unit_kind (gboolean backward, int chunk, int mb, int m, int vpp)
{
  int place = mb == 0 ? 0 : mb == m - 1 ? 2 : 1;
  return ((backward ? 1 : 0) * vpp + chunk) * 3 + place;
}

/* A slot table's key: the schedule, its degrees, m, the group and the stage. */
static char *
slots_key (const ProgSchedOps *ops, int pp, int vpp, int m, int group, int st)
{
  return g_strdup_printf ("%d %d %d %d %d %d", (int) ops->id, pp, vpp, m, group, st);
}

/* A space's memo tables (slot tables, unit-kind pairs), shared by the search's threads:
 * the value under `key`, or NULL; and `value` kept under `key` unless another thread
 * kept one first, in which case `value` is freed and that one returned. */
static gpointer
memo_lookup (const SearchSpace *s, GHashTable *table, const char *key)
{
  SearchSpace *ms = (SearchSpace *) s;
  g_mutex_lock (&ms->lock);
  gpointer v = g_hash_table_lookup (table, key);
  g_mutex_unlock (&ms->lock);
  return v;
}

static gpointer
memo_keep (const SearchSpace *s, GHashTable *table, char **key, gpointer value,
           GDestroyNotify free_value)
{
  SearchSpace *ms = (SearchSpace *) s;
  g_mutex_lock (&ms->lock);
  gpointer had = g_hash_table_lookup (table, *key);
  if (had != NULL)
    {
      free_value (value);
      value = had;
    }
  else
    g_hash_table_insert (table, g_steal_pointer (key), value);
  g_mutex_unlock (&ms->lock);
  return value;
}

/* The stage's slot table, built once per space (ops->build walks m v units through
 * plan_vpp_unit; tens of thousands of bounds share a few hundred tables). */
static const GArray *
space_slots (const SearchSpace *s, const ProgSchedOps *ops, int pp, int vpp, int m, int group,
             int st)
{
  g_autofree char *key = slots_key (ops, pp, vpp, m, group, st);
  GArray *slots = memo_lookup (s, s->slot_tables, key);
  if (slots != NULL)
    return slots;
  slots = g_array_new (FALSE, FALSE, sizeof (ProgSlot));
  ops->build (pp, vpp, m, group, st, slots);
  return memo_keep (s, s->slot_tables, &key, slots, (GDestroyNotify) g_array_unref);
}

/* The consecutive unit-kind pairs of a slot table, each with how often it occurs, in the
 * order of first occurrence (so every thread sums them in the same order). bad: a slot
 * with a chunk outside 0..vpp - 1 (term (4) is then left out). */
typedef struct {
  gboolean bad;
  gboolean order_ok;  /* the table starts with the forward of (0, chunk 0) and ends with
                       * the backward of (m - 1, chunk 0) (schedule_order_ok) */
  GArray  *pairs;     /* KindPair */
} KindPairs;

typedef struct {
  int    ka, kb;
  double count;
} KindPair;

void
search_kind_pairs_free (gpointer data)
{
  KindPairs *kp = data;
  g_array_unref (kp->pairs);
  g_free (kp);
}

static int unit_kind (gboolean backward, int chunk, int mb, int m, int vpp);

static const KindPairs *
space_kind_pairs (const SearchSpace *s, const ProgSchedOps *ops, int pp, int vpp, int m,
                  int group, int st)
{
  g_autofree char *key = slots_key (ops, pp, vpp, m, group, st);
  KindPairs *kp = memo_lookup (s, s->pair_tables, key);
  if (kp != NULL)
    return kp;
  g_autoptr (GArray) slots = g_array_new (FALSE, FALSE, sizeof (ProgSlot));
  ops->build (pp, vpp, m, group, st, slots);
  const int v = MAX (vpp, 1), n_kinds = 2 * v * 3;
  kp = g_new0 (KindPairs, 1);
  kp->pairs = g_array_new (FALSE, FALSE, sizeof (KindPair));
  if (slots->len > 0)
    {
      const ProgSlot *a = &g_array_index (slots, ProgSlot, 0);
      const ProgSlot *z = &g_array_index (slots, ProgSlot, slots->len - 1);
      kp->order_ok = !a->backward && a->mb == 0 && a->chunk == 0 && z->backward
                     && z->mb == m - 1 && z->chunk == 0;
    }
  /* the index of each pair seen in kp->pairs, + 1 (0: not yet) */
  g_autoptr (GHashTable) at = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint u = 1; u < slots->len && !kp->bad; u++)
    {
      const ProgSlot *sa = &g_array_index (slots, ProgSlot, u - 1);
      const ProgSlot *sb = &g_array_index (slots, ProgSlot, u);
      if (sa->chunk < 0 || sa->chunk >= v || sb->chunk < 0 || sb->chunk >= v)
        {
          kp->bad = TRUE;
          break;
        }
      int ka = unit_kind (sa->backward, sa->chunk, sa->mb, m, v);
      int kb = unit_kind (sb->backward, sb->chunk, sb->mb, m, v);
      gpointer code = GINT_TO_POINTER (ka * n_kinds + kb + 1);
      guint idx = GPOINTER_TO_UINT (g_hash_table_lookup (at, code));
      if (idx == 0)
        {
          KindPair pr = { ka, kb, 1.0 };
          g_array_append_val (kp->pairs, pr);
          g_hash_table_insert (at, code, GUINT_TO_POINTER (kp->pairs->len));
        }
      else
        g_array_index (kp->pairs, KindPair, idx - 1).count += 1.0;
    }
  return memo_keep (s, s->pair_tables, &key, kp, search_kind_pairs_free);
}

static double
stage_gaps (Costs *c, int st, const Plan *reduced, const Plan *resolved, gboolean tp_cp_only)
{
  const ProgProgram *prog = c->prog;
  const ProgStage *stage = &prog->stages[st];
  const ProgSchedOps *ops = prog_sched_lookup (resolved->schedule);
  const int vpp = MAX (reduced->vpp, 1), m_r = reduced->grad_accum;
  if (ops == NULL || stage->n_slots < 2 || stage->slot_first == NULL)
    return 0;
  const GArray *slots = space_slots (c->space, ops, reduced->pp, reduced->vpp, m_r,
                                     plan_vpp_group (reduced), st);
  if (slots->len != stage->n_slots)
    return 0;
  /* per kind and stream: the least tail and head (-1: a unit of the kind has none) */
  const int n_kinds = 2 * vpp * 3, ns = PROG_STREAM_N;
  g_autofree double *tail = g_new (double, n_kinds * ns);
  g_autofree double *head = g_new (double, n_kinds * ns);
  g_autofree gboolean *seen = g_new0 (gboolean, n_kinds);
  for (guint u = 0; u < slots->len; u++)
    {
      const ProgSlot *sl = &g_array_index (slots, ProgSlot, u);
      if (sl->chunk < 0 || sl->chunk >= vpp || sl->mb < 0 || sl->mb >= m_r)
        return 0;
      guint32 lo = stage->slot_first[u], hi = stage->slot_first[u + 1];
      gint64 a = -1, b = -1;
      for (guint32 i = lo; i < hi; i++)
        {
          const ProgTask *t = prog_task (prog, i);
          if (t->kind != PROG_TASK_COMPUTE)
            continue;
          if (t->mb != sl->mb || t->chunk != sl->chunk
              || (t->phase != PROG_PHASE_FORWARD) != (sl->backward != 0))
            return 0;   /* another unit's compute or per-step work inside the range */
          if (b < 0)
            b = i;
          a = i;
        }
      if (b < 0)
        return 0;
      double tl[PROG_STREAM_N], hd[PROG_STREAM_N];
      for (int k = 0; k < ns; k++)
        tl[k] = hd[k] = -1;
      for (guint32 x = (guint32) a + 1; x < hi; x++)
        {
          const ProgTask *tx = prog_task (prog, x);
          if (!gap_stream (tx, tp_cp_only))
            continue;
          const guint32 *deps = prog_task_deps (prog, tx);
          for (guint32 k = 0; k < tx->n_deps; k++)
            if (deps[k] == (guint32) a)
              {
                tl[tx->stream] = MAX (tl[tx->stream], task_s (c, x));
                break;
              }
        }
      const ProgTask *tb = prog_task (prog, (guint32) b);
      const guint32 *bdeps = prog_task_deps (prog, tb);
      for (guint32 k = 0; k < tb->n_deps; k++)
        {
          if (bdeps[k] < lo)
            continue;
          const ProgTask *td = prog_task (prog, bdeps[k]);
          if (gap_stream (td, tp_cp_only))
            hd[td->stream] = MAX (hd[td->stream], task_s (c, bdeps[k]));
        }
      int kind = unit_kind (sl->backward, sl->chunk, sl->mb, m_r, vpp);
      for (int k = 0; k < ns; k++)
        {
          double *T = &tail[kind * ns + k], *H = &head[kind * ns + k];
          *T = !seen[kind] ? tl[k] : (*T < 0 || tl[k] < 0) ? -1 : MIN (*T, tl[k]);
          *H = !seen[kind] ? hd[k] : (*H < 0 || hd[k] < 0) ? -1 : MIN (*H, hd[k]);
        }
      seen[kind] = TRUE;
    }
  /* the plan's own table, as the pairs of unit kinds its boundaries join, each counted
   * (the table at the plan's m holds 2 m v slots; its pairs are a few dozen kinds) */
  const int m = resolved->grad_accum;
  const KindPairs *kp = space_kind_pairs (c->space, ops, resolved->pp, resolved->vpp, m,
                                          plan_vpp_group (resolved), st);
  if (kp->bad)
    return 0;
  double sum = 0;
  for (guint i = 0; i < kp->pairs->len; i++)
    {
      const KindPair *pr = &g_array_index (kp->pairs, KindPair, i);
      const int ka = pr->ka, kb = pr->kb;
      if (!seen[ka] || !seen[kb])
        continue;
      double best = 0;
      for (int k = 0; k < ns; k++)
        if (tail[ka * ns + k] >= 0 && head[kb * ns + k] >= 0)
          best = MAX (best, tail[ka * ns + k] + head[kb * ns + k]);
      sum += pr->count * best;
    }
  return sum;
}

static gboolean
same_unit (const ProgTask *a, const ProgTask *b)
{
  gboolean ab = a->phase != PROG_PHASE_FORWARD, bb = b->phase != PROG_PHASE_FORWARD;
  return a->mb == b->mb && a->chunk == b->chunk && ab == bb && a->mb >= 0;
}

static gboolean schedule_order_ok (const SearchSpace *s, const Plan *plan);

/* The layout of a plan, shared through the space (a layout depends on the degrees, the
 * rank order, the HSDP group and the expert folding (ep, etp) only; it is not changed once built). */
static const PlanLayout *
space_layout (const SearchSpace *s, const Plan *plan, GError **error)
{
  /* every plan field plan_layout_new reads (MoE folding included: ep, etp) */
  g_autofree char *key = g_strdup_printf ("%d %d %d %d %d %d %d %s %d", plan->world_size,
                                          plan->tp, plan->cp, plan->ep, plan->etp, plan->dp,
                                          plan->pp, plan->rank_order ? plan->rank_order : "",
                                          plan->sharding == PLAN_SHARD_HSDP
                                          ? plan->hsdp_shard_size : 0);
  SearchSpace *ms = (SearchSpace *) s;
  g_mutex_lock (&ms->lock);
  PlanLayout *layout = g_hash_table_lookup (s->layouts, key);
  g_mutex_unlock (&ms->lock);
  if (layout != NULL)
    return layout;
  layout = plan_layout_new (plan, s->spec.cluster, error);
  if (layout == NULL)
    return NULL;
  g_mutex_lock (&ms->lock);
  PlanLayout *had = g_hash_table_lookup (s->layouts, key);
  if (had != NULL)
    {
      plan_layout_free (layout);
      layout = had;
    }
  else
    g_hash_table_insert (s->layouts, g_steal_pointer (&key), layout);
  g_mutex_unlock (&ms->lock);
  return layout;
}

/* compute_only: the ingredients of the coarse bound (search_cand_coarse_bound): the
 * micro-batches' compute tasks, the TP and CP streams and the bridges through them; no
 * pipeline or DP communication, no per-step work. */
static Ingredients *
ingredients_at (const SearchSpace *s, const Plan *resolved, gboolean compute_only,
                gboolean short_table, GError **error)
{
  Plan reduced;
  plan_copy (&reduced, resolved);
  /* the stack-dependent fields the plan leaves unset, as sim_predict fills them in for
   * the plan it simulates */
  sim_plan_apply_stack (&reduced, &s->spec.sim.cost);
  /* 3 micro-batches (first, middle, last); the interleaved tables need a whole group,
   * except for the coarse bound, which uses only what every micro-batch repeats (its
   * compute, TP and CP tasks, the bridges inside a unit) and the forward of the first and
   * the backward of the last through chunk 0: the same in any table */
  int m_r = 3, m_group = m_r;
  if (resolved->schedule == PLAN_SCHED_INTERLEAVED_1F1B)
    m_group = MAX (m_r, MAX (resolved->pp, plan_vpp_group (resolved)));
  if (!compute_only && !short_table)
    m_r = m_group;
  m_r = MIN (m_r, resolved->grad_accum);
  reduced.grad_accum = m_r;
  reduced.global_batch = reduced.micro_batch * reduced.dp * m_r;
  Ingredients *in = NULL;
  const PlanLayout *layout = space_layout (s, &reduced, error);
  g_autoptr (ProgProgram) prog = layout ? prog_program_new (s->spec.model, &reduced, layout,
                                                            error) : NULL;
  if (prog == NULL && layout != NULL && m_r < MIN (m_group, resolved->grad_accum))
    {
      /* a table that refuses the shorter step: the whole group, as the full bound */
      g_clear_error (error);
      m_r = MIN (m_group, resolved->grad_accum);
      reduced.grad_accum = m_r;
      reduced.global_batch = reduced.micro_batch * reduced.dp * m_r;
      prog = prog_program_new (s->spec.model, &reduced, layout, error);
    }
  if (prog != NULL)
    {
      g_autoptr (SimCost) cost = sim_cost_new (s->spec.cluster, layout, &s->spec.sim.cost);
      int n = prog->n_stages;
      in = g_new0 (Ingredients, 1);
      in->n_stages = n;
      in->m_r = m_r;
      in->cx = g_new0 (double, n);
      in->cy = g_new0 (double, n);
      in->o = g_new0 (double, n);
      in->tail = g_new0 (double, n);
      in->f = g_new0 (double, n);
      in->b = g_new0 (double, n);
      in->sx = g_new0 (double, n * PROG_STREAM_N);
      in->sy = g_new0 (double, n * PROG_STREAM_N);
      in->order_ok = TRUE;
      Costs c = { prog, cost, layout, NULL, NULL, compute_only,
                  g_array_new (FALSE, FALSE, sizeof (ShapeCost)), s };
      c.dur = g_new (double, prog->tasks->len);
      for (guint k = 0; k < prog->tasks->len; k++)
        c.dur[k] = -1;
      c.bc = g_new (double, prog->blocks->len);
      for (guint k = 0; k < prog->blocks->len; k++)
        c.bc[k] = -1;
      int last_mb = m_r - 1, mid_mb = m_r >= 3 ? 1 : -2;
      in->g = g_new0 (double, n);
      in->m = resolved->grad_accum;
      for (int st = 0; st < n; st++)
        {
          const ProgStage *stage = &prog->stages[st];
          gboolean first_seen = FALSE, per_step_seen = FALSE;
          gint64 prev = -1, last_compute = -1;
          for (guint32 i = stage->first; i < stage->first + stage->n_tasks; i++)
            {
              const ProgTask *t = prog_task (prog, i);
              in->nx += 1;
              if (t->mb == mid_mb)
                in->ny += 1;
              if (compute_only && t->kind != PROG_TASK_COMPUTE && t->stream != PROG_STREAM_TP
                  && t->stream != PROG_STREAM_CP)
                continue;
              /* coarse: per-step compute (the optimizer: its shard) counts for nothing */
              double d = compute_only && t->mb < 0 ? 0 : task_s (&c, i);
              in->sx[st * PROG_STREAM_N + t->stream] += d;
              if (t->mb == mid_mb)
                in->sy[st * PROG_STREAM_N + t->stream] += d;
              if (t->kind != PROG_TASK_COMPUTE)
                continue;
              last_compute = i;
              if (!first_seen)
                {
                  first_seen = TRUE;
                  if (t->mb != 0 || t->chunk != 0 || t->phase != PROG_PHASE_FORWARD)
                    in->order_ok = FALSE;
                }
              /* bridges: inside a unit (valid at any m) or into per-step work */
              double br = 0;
              if (prev >= 0 && !(compute_only && t->mb < 0))
                {
                  const ProgTask *pt = prog_task (prog, (guint32) prev);
                  if (t->mb < 0 || same_unit (pt, t))
                    br = bridge (&c, (guint32) prev, i);
                }
              prev = i;
              in->cx[st] += d + br;
              if (t->mb < 0)
                {
                  in->o[st] += d + br;
                  per_step_seen = TRUE;
                  continue;
                }
              if (per_step_seen)
                in->order_ok = FALSE;   /* per-step compute before a micro-batch's */
              if (t->mb == mid_mb)
                in->cy[st] += d + br;
              if (t->mb == 0 && t->chunk == 0 && t->phase == PROG_PHASE_FORWARD)
                in->f[st] += d;
              if (t->mb == last_mb && t->chunk == 0 && t->phase == PROG_PHASE_BACKWARD)
                in->b[st] += d;
            }
          /* (4) between two compute units: tails and heads per kind of unit, at the plan's m */
          in->g[st] = stage_gaps (&c, st, &reduced, resolved, compute_only);
          /* the last micro-batch task of the stage must be chunk 0's backward */
          for (guint32 i = stage->first + stage->n_tasks; i-- > stage->first;)
            {
              const ProgTask *t = prog_task (prog, i);
              if (t->kind != PROG_TASK_COMPUTE || t->mb < 0)
                continue;
              if (t->mb != last_mb || t->chunk != 0 || t->phase != PROG_PHASE_BACKWARD)
                in->order_ok = FALSE;
              break;
            }
          /* communication waiting on the last compute task, per stream in sequence */
          if (last_compute >= 0 && !compute_only)
            {
              double per_stream[PROG_STREAM_N] = { 0 };
              for (guint32 i = (guint32) last_compute + 1; i < stage->first + stage->n_tasks; i++)
                {
                  const ProgTask *t = prog_task (prog, i);
                  if (t->kind == PROG_TASK_COMPUTE || t->kind == PROG_TASK_RECV)
                    continue;
                  const guint32 *deps = prog_task_deps (prog, t);
                  for (guint32 k = 0; k < t->n_deps; k++)
                    if (deps[k] == (guint32) last_compute)
                      {
                        per_stream[t->stream] += task_s (&c, i);
                        break;
                      }
                }
              for (int k = 0; k < PROG_STREAM_N; k++)
                in->tail[st] = MAX (in->tail[st], per_stream[k]);
            }
        }
      g_free (c.dur);
      g_free (c.bc);
      g_array_unref (c.shapes);
      /* the slot tables of every stage at the real m: once per ingredients, not per use */
      in->chain = in->order_ok && schedule_order_ok (s, resolved);
    }
  plan_clear (&reduced);
  return in;
}

/* The full bound of an interleaved plan from the short table first (3 micro-batches, as
 * the coarse bound), kept when its order gives the fill-and-drain chain (3): then its
 * first and last compute units are those of the real schedule, so the per-step bridges
 * and the tail (what waits on the last unit) are too, and the sums per micro-batch do
 * not depend on the table. Otherwise the whole group, as before. Checked: over the
 * 14,976 interleaved full bounds that issue 11 item 5(b) computes, the short and the
 * long program gave the same bound to the last bit. */
static Ingredients *
ingredients_new (const SearchSpace *s, const Plan *resolved, gboolean compute_only,
                 GError **error)
{
  if (!compute_only && resolved->schedule == PLAN_SCHED_INTERLEAVED_1F1B)
    {
      Ingredients *in = ingredients_at (s, resolved, FALSE, TRUE, NULL);
      /* m_r other than 3: the table refused the short step (or the step has no more),
       * and the program is the long one */
      if (in != NULL && (in->chain || in->m_r != 3 || resolved->grad_accum <= 3))
        return in;
      if (in != NULL)
        search_ingredients_free (in);
    }
  return ingredients_at (s, resolved, compute_only, FALSE, error);
}

/* The real schedule starts every stage with the forward of (0, chunk 0) and ends it with
 * the backward of (m - 1, chunk 0). */
static gboolean
schedule_order_ok (const SearchSpace *s, const Plan *plan)
{
  const ProgSchedOps *ops = prog_sched_lookup (plan->schedule);
  if (ops == NULL)
    return FALSE;
  for (int st = 0; st < plan->pp; st++)
    if (!space_kind_pairs (s, ops, plan->pp, plan->vpp, plan->grad_accum,
                           plan_vpp_group (plan), st)->order_ok)
      return FALSE;
  return TRUE;
}

static double
bound_of (const Ingredients *in, const Plan *resolved)
{
  double extra = (double) resolved->grad_accum - in->m_r;
  gboolean chain = in->chain;
  double best = 0, fsum = 0, bsum = 0;
  for (int st = 0; st < in->n_stages; st++)
    {
      /* term (4) was counted at the plan's m; any other m goes without it */
      double comp = in->cx[st] + extra * in->cy[st]
                    + (resolved->grad_accum == in->m ? in->g[st] : 0.0);
      best = MAX (best, comp + in->tail[st]);
      for (int k = 0; k < PROG_STREAM_N; k++)
        best = MAX (best, in->sx[st * PROG_STREAM_N + k] + extra * in->sy[st * PROG_STREAM_N + k]);
      if (chain)
        best = MAX (best, fsum + (comp - in->o[st]) + bsum + in->o[0]);
      fsum += in->f[st];
      bsum += in->b[st];
    }
  /* the engine rounds each task to whole picoseconds (sim_time_from_s): allow 1 ps per
   * task of the full program */
  double slack = (in->nx + extra * in->ny) * 1e-12;
  return MAX (0.0, best - slack);
}

gboolean
search_cand_bound (const SearchSpace *s, const SearchCand *c, const Plan *resolved,
                   double *out, GError **error)
{
  SearchCand key;
  /* the whole candidate: communication (overlap, rank order) is in the bound too */
  memcpy (&key, c, sizeof key);
  SearchSpace *ms = (SearchSpace *) s;
  g_mutex_lock (&ms->lock);
  Ingredients *in = g_hash_table_lookup (s->bounds, &key);
  g_mutex_unlock (&ms->lock);
  if (in == NULL)
    {
      in = ingredients_new (s, resolved, FALSE, error);
      if (in == NULL)
        return FALSE;
      g_mutex_lock (&ms->lock);
      Ingredients *had = g_hash_table_lookup (s->bounds, &key);
      if (had != NULL)
        {
          search_ingredients_free (in);
          in = had;
        }
      else
        g_hash_table_insert (s->bounds, g_memdup2 (&key, sizeof key), in);
      g_mutex_unlock (&ms->lock);
    }
  *out = bound_of (in, resolved);
  return TRUE;
}

gboolean
search_bound_s (const SearchSpace *s, const Plan *resolved, double *out, GError **error)
{
  /* any plan, not only a candidate of the space: no cache */
  Ingredients *in = ingredients_new (s, resolved, FALSE, error);
  if (in == NULL)
    return FALSE;
  *out = bound_of (in, resolved);
  search_ingredients_free (in);
  return TRUE;
}

gboolean
search_bound_unit_gaps (const SearchSpace *s, const Plan *resolved, double *per_stage,
                        int n_stages, GError **error)
{
  Ingredients *in = ingredients_new (s, resolved, FALSE, error);
  if (in == NULL)
    return FALSE;
  for (int st = 0; st < n_stages; st++)
    per_stage[st] = st < in->n_stages ? in->g[st] : 0.0;
  search_ingredients_free (in);
  return TRUE;
}

/* The coarse bound: what every candidate of a group that differs only in sharding, DP
 * overlap and rank order shares. Those change only the DP stream (gradient and parameter
 * collectives, ZeRO-3's gathers), the per-step work (the optimizer's shard) and where
 * the stages sit (pipeline transfers): the micro-batches' compute tasks, their blocks,
 * the TP and CP collectives (both rank orders put tp, then cp, innermost, so their
 * groups are the same) and the pipeline's RECV-on-SEND chain are the same. So terms (1)
 * for the compute, TP and CP streams, (2) with the bridges through TP and CP collectives
 * only and (3) without per-step work bound every member; each drops non-negative terms of
 * the full bound, so coarse <= full. Built once per group (about one candidate in 20-40
 * of the default space) from the first member met. */
gboolean
search_cand_coarse_bound (const SearchSpace *s, const SearchCand *c, const Plan *resolved,
                          double *out, GError **error)
{
  SearchCand key;
  memset (&key, 0, sizeof key);   /* padding included: the key is hashed bytewise */
  key.gpus = c->gpus;
  key.tp = c->tp, key.cp = c->cp, key.pp = c->pp, key.vpp = c->vpp, key.mbs = c->mbs;
  key.first = c->first, key.last = c->last;
  key.ep = c->ep, key.etp = c->etp;   /* MoE: the experts' compute differs with them */
  key.cp_comm = c->cp_comm, key.recompute = c->recompute, key.sp = c->sp, key.tpo = c->tpo;
  key.sched = c->sched;
  SearchSpace *ms = (SearchSpace *) s;
  g_mutex_lock (&ms->lock);
  Ingredients *in = g_hash_table_lookup (s->coarse, &key);
  g_mutex_unlock (&ms->lock);
  if (in == NULL)
    {
      in = ingredients_new (s, resolved, TRUE, error);
      if (in == NULL)
        return FALSE;
      g_mutex_lock (&ms->lock);
      Ingredients *had = g_hash_table_lookup (s->coarse, &key);
      if (had != NULL)
        {
          search_ingredients_free (in);
          in = had;
        }
      else
        g_hash_table_insert (s->coarse, g_memdup2 (&key, sizeof key), in);
      g_mutex_unlock (&ms->lock);
    }
  *out = bound_of (in, resolved);
  return TRUE;
}
