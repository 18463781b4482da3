/* tests/sim/test-search.c - the search is exact: its top K equals brute-force prediction
 * of every candidate (order included), its bound never exceeds a simulated step (nor
 * its coarse bound the full one), and
 * splitting the space (threads, MPI-style ranges) changes nothing. */
#include "sim/search.h"
#include "sim/search-private.h"

#include <glib/gstdio.h>
#include <string.h>

typedef struct {
  guint64 index;
  double  score;
  guint64 peak;
} Ref;

static int
ref_cmp (gconstpointer pa, gconstpointer pb)
{
  const Ref *a = pa, *b = pb;
  if (a->score != b->score)
    return a->score < b->score ? -1 : 1;
  if (a->peak != b->peak)
    return a->peak < b->peak ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

static int
u64_cmp (gconstpointer pa, gconstpointer pb)
{
  guint64 a = *(const guint64 *) pa, b = *(const guint64 *) pb;
  return a < b ? -1 : a > b;
}

static GArray *
ints (int n, ...)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (int));
  va_list ap;
  va_start (ap, n);
  for (int i = 0; i < n; i++)
    {
      int v = va_arg (ap, int);
      g_array_append_val (a, v);
    }
  va_end (ap);
  return a;
}

/* small-llama (8 layers, 8 heads) on 8 or 16 H100s of dgx-h100-superpod, seq 1024,
 * global batch 32: every dimension at its default except the micro-batch (1, 2, 4). */
/* A search spec of `model` on `cluster` at a sequence length and global batch, the rest at
 * search_spec_init's defaults (the caller clears it) */
static void
spec_base (SearchSpec *spec, const char *model, const char *cluster, int seq, int gbs)
{
  search_spec_init (spec);
  spec->model = model_spec_lookup (model, NULL);
  spec->cluster = topo_cluster_lookup (cluster, NULL);
  g_assert_nonnull (spec->model);
  g_assert_nonnull (spec->cluster);
  spec->base.seq_length = seq;
  spec->base.global_batch = gbs;
}

static SearchSpace *
small_space (SearchObjective obj, double headroom, int top_k)
{
  SearchSpec spec;
  spec_base (&spec, "small-llama", "dgx-h100-superpod", 1024, 32);
  sim_options_init (&spec.sim, spec.cluster);
  spec.gpus = ints (2, 8, 16);
  spec.mbs = ints (3, 1, 2, 4);
  spec.top_k = top_k;
  spec.objective = obj;
  spec.headroom_bytes = headroom;
  g_autoptr (GError) error = NULL;
  SearchSpace *s = search_space_new (&spec, &error);
  g_assert_no_error (error);
  search_spec_clear (&spec);
  return s;
}

typedef struct {
  GArray *top;               /* Ref, best first, all fits */
  guint64 invalid, oom;
  guint64 peak_median;
} Brute;

/* Predicts every candidate exactly as `tandem predict` would and ranks them. */
static void
brute_force (const SearchSpace *s, Brute *out, gboolean check_bound)
{
  const SearchSpec *spec = search_space_spec (s);
  out->top = g_array_new (FALSE, FALSE, sizeof (Ref));
  out->invalid = out->oom = 0;
  g_autoptr (GArray) peaks = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (guint64 i = 0; i < search_space_size (s); i++)
    {
      Plan p;
      search_candidate_plan (s, i, &p);
      if (!plan_resolve (&p, spec->model, spec->cluster, NULL))
        {
          out->invalid++;
          plan_clear (&p);
          continue;
        }
      PlanMemory mem;
      plan_memory_compute (spec->model, &p, spec->cluster, &mem);
      guint64 peak = mem.peak_bytes, cap = mem.capacity_bytes;
      plan_memory_clear (&mem);
      g_array_append_val (peaks, peak);
      if ((double) peak + spec->headroom_bytes > (double) cap)
        {
          out->oom++;
          plan_clear (&p);
          continue;
        }
      g_autoptr (GError) error = NULL;
      g_autoptr (SimPrediction) pred = sim_predict (spec->model, &p, spec->cluster, &spec->sim,
                                                    &error);
      if (pred == NULL)
        {
          out->invalid++;
          plan_clear (&p);
          continue;
        }
      if (check_bound)
        {
          double bound;
          g_assert_true (search_bound_s (s, &p, &bound, NULL));
          if (bound > pred->result->step_time_s * (1 + 1e-9))
            g_error ("bound %.9g > step %.9g for candidate %" G_GUINT64_FORMAT, bound,
                     pred->result->step_time_s, i);
          /* the coarse bound the screening sorts by is a bound too, and it drops terms of
           * the full one: it is no larger, but for the rounding allowance (1 ps per task
           * of its own group's first member, whose program may have fewer tasks, e.g.
           * without ZeRO-3's gathers: a few hundred ps here) */
          double coarse;
          g_assert_true (search_cand_coarse_bound (s, search_cand (s, i), &p, &coarse, NULL));
          if (coarse > pred->result->step_time_s * (1 + 1e-9))
            g_error ("coarse bound %.9g > step %.9g for candidate %" G_GUINT64_FORMAT, coarse,
                     pred->result->step_time_s, i);
          if (coarse > bound + 1e-9)
            g_error ("coarse bound %.9g > bound %.9g for candidate %" G_GUINT64_FORMAT, coarse,
                     bound, i);
        }
      Ref r = { i, search_score (s, pred->result->step_time_s, p.world_size), peak };
      g_array_append_val (out->top, r);
      plan_clear (&p);
    }
  g_array_sort (out->top, ref_cmp);
  out->peak_median = 0;
  if (peaks->len > 0)
    {
      g_array_sort (peaks, u64_cmp);
      out->peak_median = g_array_index (peaks, guint64, peaks->len / 2);
    }
}

static void
assert_same_top (const SearchSpace *s, const SearchResult *r, const Brute *b)
{
  guint k = MIN ((guint) search_space_spec (s)->top_k, b->top->len);
  g_assert_cmpuint (r->top->len, ==, k);
  for (guint i = 0; i < k; i++)
    {
      const SearchRow *row = &g_array_index (r->rows, SearchRow,
                                             g_array_index (r->top, guint, i));
      const Ref *ref = &g_array_index (b->top, Ref, i);
      if (row->index != ref->index)
        g_error ("place %u: search has candidate %" G_GUINT64_FORMAT " (score %.9g), brute "
                 "force %" G_GUINT64_FORMAT " (score %.9g)", i + 1, row->index, row->score,
                 ref->index, ref->score);
      g_assert_cmpfloat (row->score, ==, ref->score);
      g_assert_cmpint (row->place, ==, (int) i + 1);
    }
}

static void
assert_counts (const SearchResult *r, const Brute *b, guint64 n)
{
  g_assert_cmpuint (r->enumerated, ==, n);
  g_assert_cmpuint (r->enumerated, ==, r->invalid + r->oom + r->pruned + r->simulated);
  g_assert_cmpuint (r->invalid, ==, b->invalid);
  g_assert_cmpuint (r->oom, ==, b->oom);
  for (guint i = 0; i < r->rows->len; i++)
    {
      const SearchRow *row = &g_array_index (r->rows, SearchRow, i);
      g_assert_cmpfloat (row->bound_s, <=, row->step_time_s * (1 + 1e-9));
    }
}

/* The headline: top 10 by tokens/s over two GPU counts, with a headroom that puts about
 * half of the valid candidates out of memory, equals brute force, order included; so do
 * 2 threads and three index ranges merged as MPI ranks would be. Every fitting candidate's
 * bound is checked against its simulated step. */
static void
test_exact (void)
{
  g_autoptr (SearchSpace) probe = small_space (SEARCH_OBJ_TOKENS_PER_S, 0, 10);
  Brute b0;
  brute_force (probe, &b0, FALSE);
  g_array_unref (b0.top);
  /* the headroom that leaves the median peak just fitting */
  double cap = 80.0 * 1073741824.0;
  double headroom = cap - (double) b0.peak_median;
  g_autoptr (SearchSpace) s = small_space (SEARCH_OBJ_TOKENS_PER_S, headroom, 10);
  guint64 n = search_space_size (s);
  g_test_message ("%" G_GUINT64_FORMAT " candidates", n);
  g_assert_cmpuint (n, >=, 3000);
  Brute b;
  brute_force (s, &b, TRUE);
  g_assert_cmpuint (b.oom, >, 0);
  g_assert_cmpuint (b.top->len, >, 100);

  SearchRunOptions ro = { 0 };
  ro.threads = 2;
  g_autoptr (GError) error = NULL;
  g_autoptr (SearchResult) r = search_run (s, &ro, &error);
  g_assert_no_error (error);
  assert_counts (r, &b, n);
  assert_same_top (s, r, &b);
  g_assert_cmpuint (r->pruned, >, 0);

  ro.threads = 1;
  g_autoptr (SearchResult) r1 = search_run (s, &ro, &error);
  g_assert_no_error (error);
  assert_same_top (s, r1, &b);

  /* three ranges, as three MPI ranks, merged */
  g_autoptr (SearchResult) merged = search_result_new ();
  for (int k = 0; k < 3; k++)
    {
      ro.first = n * k / 3;
      ro.last = n * (k + 1) / 3;
      g_autoptr (SearchResult) part = search_run (s, &ro, &error);
      g_assert_no_error (error);
      search_result_merge (s, merged, part);
    }
  assert_counts (merged, &b, n);
  assert_same_top (s, merged, &b);
  g_array_unref (b.top);
}

/* An MoE space (Mixtral 8x7B on 16 H100s, seq 2048, global batch 32; tp 1 or 2, cp 1,
 * pp 1 or 2, micro-batch 1 or 2, no recompute; ep and expert TP searched): every fitting candidate's coarse bound, shared
 * by the candidates that differ only in sharding, DP overlap and rank order, is <= its
 * full bound <= its simulated step, and the search's top 5 is brute force's, order
 * included. The coarse group must not mix ep or etp values: the experts' compute differs
 * with them (a group keyed without them gave a coarse bound above the step). */
static void
test_exact_moe (void)
{
  SearchSpec spec;
  spec_base (&spec, "mixtral-8x7b", "dgx-h100-superpod", 2048, 32);
  sim_options_init (&spec.sim, spec.cluster);
  spec.gpus = ints (1, 16);
  spec.tp = ints (2, 1, 2);
  spec.cp = ints (1, 1);
  spec.pp = ints (2, 1, 2);
  spec.mbs = ints (2, 1, 2);
  spec.recompute_mask = 1u << PLAN_RECOMPUTE_NONE;
  spec.top_k = 5;
  g_autoptr (GError) error = NULL;
  g_autoptr (SearchSpace) s = search_space_new (&spec, &error);
  g_assert_no_error (error);
  search_spec_clear (&spec);
  guint64 n = search_space_size (s);
  g_test_message ("%" G_GUINT64_FORMAT " MoE candidates", n);
  gboolean ep_varies = FALSE;
  for (guint64 i = 0; i < n && !ep_varies; i++)
    ep_varies = search_cand (s, i)->ep > 1;
  g_assert_true (ep_varies);
  Brute b;
  brute_force (s, &b, TRUE);
  g_assert_cmpuint (b.top->len, >, 5);
  SearchRunOptions ro = { 0 };
  ro.threads = 2;
  g_autoptr (SearchResult) r = search_run (s, &ro, &error);
  g_assert_no_error (error);
  assert_counts (r, &b, n);
  assert_same_top (s, r, &b);
  g_array_unref (b.top);
}

/* Term (4) of the bound (search-bound.c stage_gaps) by hand; test_exact checks
 * bound <= step for every fitting candidate of its space, this term included (its tp 2,
 * pp 2 plans with sequence parallelism and 8 micro-batches charge it).
 * A 6-layer model (hidden 1024) on 6 H100s: tp 2, pp 3, sequence parallelism, no TP-comm
 * overlap, 1F1B, micro-batch 1 of seq 2048. Stage 1 holds 2 layers and neither embedding
 * nor head, so each of its forward units ends with the reduce-scatter (TP) that follows
 * its last block and starts with the all-gather (TP) its first block waits on, and each
 * backward unit too (the gradients' all-gather first, reduce-scatter last), all of the
 * [2048, 1024] bf16 activation, 4,194,304 bytes: every unit's TP tail is
 * RS (4194304) and its TP head AG (4194304), every boundary's gap
 * g = RS (4194304) + AG (4194304) on the TP group.
 * m = 3 (the reduced program is the whole step): stage 1 runs F0 F1 B0 F2 B1 B2 (1
 * warm-up forward), 5 boundaries: 5 g.
 * m = 4 (from the 3-micro-batch program, whose units show every kind: forward and
 * backward of the first, a middle and the last micro-batch): F0 F1 B0 F2 B1 F3 B2 B3,
 * 7 boundaries: 7 g. The bound stays <= the simulated step. */
static void
test_bound_unit_gaps (void)
{
  SearchSpec spec;
  search_spec_init (&spec);
  spec.model = model_spec_new_custom ("uniform-6", MODEL_MLP_SWIGLU, 1024, 2816, 6, 16, 16, 64,
                                      2048, FALSE);
  spec.cluster = topo_cluster_lookup ("dgx-h100-superpod", NULL);
  g_assert_nonnull (spec.cluster);
  spec.base.seq_length = 2048;
  spec.base.global_batch = 3;
  sim_options_init (&spec.sim, spec.cluster);
  spec.gpus = ints (1, 6);
  g_autoptr (GError) error = NULL;
  g_autoptr (SearchSpace) s = search_space_new (&spec, &error);
  g_assert_no_error (error);
  for (int m = 3; m <= 4; m++)
    {
      Plan p;
      plan_init_defaults (&p);
      p.world_size = 6;
      p.tp = 2;
      p.pp = 3;
      p.sequence_parallel = TRUE;
      p.tp_comm_overlap = FALSE;
      p.recompute = PLAN_RECOMPUTE_NONE;
      p.seq_length = 2048;
      p.micro_batch = 1;
      p.global_batch = m;
      p.schedule = PLAN_SCHED_1F1B;
      p.schedule_set = TRUE;
      g_assert_true (plan_resolve (&p, spec.model, spec.cluster, &error));
      g_assert_no_error (error);
      g_assert_cmpint (p.grad_accum, ==, m);
      double g[3];
      g_assert_true (search_bound_unit_gaps (s, &p, g, 3, &error));
      g_autoptr (PlanLayout) layout = plan_layout_new (&p, spec.cluster, &error);
      g_assert_no_error (error);
      g_autoptr (SimCost) cost = sim_cost_new (spec.cluster, layout, &spec.sim.cost);
      double gap = sim_cost_coll_s (cost, PLAN_COLL_REDUCE_SCATTER, PLAN_AXIS_TP, 4194304.0)
                   + sim_cost_coll_s (cost, PLAN_COLL_ALL_GATHER, PLAN_AXIS_TP, 4194304.0);
      g_test_message ("m %d: stage gaps %.9g %.9g %.9g, g %.9g", m, g[0], g[1], g[2], gap);
      g_assert_cmpfloat (gap, >, 0);
      g_assert_cmpfloat_with_epsilon (g[1], (m == 3 ? 5 : 7) * gap, 1e-12);
      double bound;
      g_assert_true (search_bound_s (s, &p, &bound, &error));
      g_autoptr (SimPrediction) pred = sim_predict (spec.model, &p, spec.cluster, &spec.sim,
                                                    &error);
      g_assert_no_error (error);
      g_assert_cmpfloat (bound, <=, pred->result->step_time_s);
      plan_clear (&p);
    }
  search_spec_clear (&spec);
}

/* MFU over a --gpus list is a different order than tokens/s: it divides by the GPUs. */
static void
test_objective_mfu (void)
{
  g_autoptr (SearchSpace) s = small_space (SEARCH_OBJ_MFU, 0, 5);
  Brute b;
  brute_force (s, &b, FALSE);
  g_autoptr (SearchResult) r = search_run (s, NULL, NULL);
  g_assert_nonnull (r);
  assert_same_top (s, r, &b);
  /* the best MFU plan is a step time x GPUs minimum: 8 GPUs here (half the GPUs cost
   * less than twice the time on this small model) */
  Plan p;
  search_candidate_plan (s, g_array_index (b.top, Ref, 0).index, &p);
  g_assert_cmpint (p.world_size, ==, 8);
  plan_clear (&p);
  g_array_unref (b.top);
}

/* --tp 3 on 8 heads, --pp above the layers, more GPUs than the cluster: contradictions. */
static void
test_contradictions (void)
{
  struct { const char *what; int tp, pp, gpus; } cases[] = {
    { "tp 3", 3, 0, 0 }, { "pp 9", 0, 9, 0 }, { "gpus 2048", 0, 0, 2048 },
  };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      SearchSpec spec;
      spec_base (&spec, "small-llama", "dgx-h100-superpod", 1024, 32);
      spec.gpus = ints (1, cases[c].gpus ? cases[c].gpus : 8);
      if (cases[c].tp)
        spec.tp = ints (1, cases[c].tp);
      if (cases[c].pp)
        spec.pp = ints (1, cases[c].pp);
      g_autoptr (GError) error = NULL;
      g_autoptr (SearchSpace) s = search_space_new (&spec, &error);
      g_assert_null (s);
      g_assert_error (error, SEARCH_ERROR, SEARCH_ERROR_CONSTRAINT);
      search_spec_clear (&spec);
    }
}

/* The NVLink domain bounds tp. gb200-nvl72-superpod: tray 4 GPUs at 900 GB/s (busbw
 * 680), rack 18 trays at 900 GB/s (busbw 680), then the su at 50 GB/s: the domain is
 * 4 x 18 = 72. dgx-h100-superpod: server 8 at 450 GB/s, then su at 50 GB/s: 8. So on
 * GB200, llama3-8b (32 heads, 8 KV heads) with --tp 8 over 72 GPUs is a space (it used
 * to be refused as spanning a 4-GPU server), while on DGX H100 gpt3-175b (96 heads)
 * --tp 16 (divides the heads) is still refused: 16 > 8. */
static void
test_nvlink_domain (void)
{
  g_autoptr (TopoCluster) gb = topo_cluster_lookup ("gb200-nvl72-superpod", NULL);
  g_autoptr (TopoCluster) h100 = topo_cluster_lookup ("dgx-h100-superpod", NULL);
  g_assert_nonnull (gb);
  g_assert_nonnull (h100);
  g_assert_cmpint (search_nvlink_domain (gb), ==, 72);
  g_assert_cmpint (search_nvlink_domain (h100), ==, 8);

  SearchSpec spec;
  spec_base (&spec, "llama3-8b", "gb200-nvl72-superpod", 8192, 576);
  sim_options_init (&spec.sim, spec.cluster);
  spec.gpus = ints (1, 72);
  spec.tp = ints (1, 8);
  spec.pp = ints (1, 1);
  spec.mbs = ints (1, 1);
  g_autoptr (GError) error = NULL;
  g_autoptr (SearchSpace) s = search_space_new (&spec, &error);
  g_assert_no_error (error);
  g_assert_nonnull (s);
  search_spec_clear (&spec);
  /* the default tp list on GB200 reaches 8 (llama3-8b's KV heads bound it, not the tray) */
  spec_base (&spec, "llama3-8b", "gb200-nvl72-superpod", 8192, 576);
  spec.gpus = ints (1, 72);
  g_assert_true (search_spec_fast (&spec, FALSE));
  g_assert_cmpuint (spec.tp->len, ==, 4);      /* 1, 2, 4, 8 */
  g_assert_cmpint (g_array_index (spec.tp, int, 3), ==, 8);
  search_spec_clear (&spec);

  /* DGX H100: gpt3-175b's 96 heads allow tp 16, the 8-GPU domain does not */
  spec_base (&spec, "gpt3-175b", "dgx-h100-superpod", 2048, 32);
  spec.gpus = ints (1, 16);
  spec.tp = ints (1, 16);
  g_clear_error (&error);
  g_autoptr (SearchSpace) r = search_space_new (&spec, &error);
  g_assert_null (r);
  g_assert_error (error, SEARCH_ERROR, SEARCH_ERROR_CONSTRAINT);
  g_assert_nonnull (strstr (error->message, "NVLink domain of 8 GPUs"));
  search_spec_clear (&spec);
}

/* The refusal names the count tp fails: llama3-8b has 32 attention heads and 8 KV heads;
 * 16 divides 32 but not 8, so the KV heads are the reason; 3 divides neither, so the
 * attention heads (the first requirement) are named. */
static void
test_tp_heads_message (void)
{
  struct { int tp; const char *says; } cases[] = {
    { 16, "--tp 16 does not divide the 8 KV heads of llama3-8b" },
    { 3, "--tp 3 does not divide the 32 attention heads of llama3-8b (nor its 8 KV heads) "
         "(hint: --tp a divisor of 8, which divides both the 32 attention and 8 KV heads)" },
  };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      SearchSpec spec;
      spec_base (&spec, "llama3-8b", "gb200-nvl72-superpod", 8192, 576);
      spec.gpus = ints (1, 48);
      spec.tp = ints (1, cases[c].tp);
      g_autoptr (GError) error = NULL;
      g_autoptr (SearchSpace) s = search_space_new (&spec, &error);
      g_assert_null (s);
      g_assert_error (error, SEARCH_ERROR, SEARCH_ERROR_CONSTRAINT);
      if (strstr (error->message, cases[c].says) == NULL)
        g_error ("expected '%s' in: %s", cases[c].says, error->message);
      search_spec_clear (&spec);
    }
}

/* A space of two candidates: small-llama on 8 H100s, tp 2 (dp 4), cp 1, pp 1 (1F1B
 * alone: GPipe is the same plan with one stage), mbs 1, no sharding, no recompute, SP on,
 * DP overlap off, Megatron's order (the only one with pp 1): TP-comm overlap off (index
 * 0) and on (index 1). */
static SearchSpace *
stack_space (FwStack *stack, gboolean compile)
{
  SearchSpec spec;
  spec_base (&spec, "small-llama", "dgx-h100-superpod", 1024, 32);
  spec.base.compile = compile;
  sim_options_init (&spec.sim, spec.cluster);
  spec.stack = fw_stack_ref (stack);
  spec.gpus = ints (1, 8);
  spec.tp = ints (1, 2);
  spec.cp = ints (1, 1);
  spec.pp = ints (1, 1);
  spec.mbs = ints (1, 1);
  spec.sharding = g_array_new (FALSE, FALSE, sizeof (SearchShard));
  SearchShard none = { PLAN_SHARD_NONE, 0 };
  g_array_append_val (spec.sharding, none);
  spec.recompute_mask = 1u << PLAN_RECOMPUTE_NONE;
  spec.sp_mask = 2;
  spec.dp_overlap_mask = 1;
  g_autoptr (GError) error = NULL;
  SearchSpace *s = search_space_new (&spec, &error);
  g_assert_no_error (error);
  search_spec_clear (&spec);
  g_assert_cmpuint (search_space_size (s), ==, 2);
  return s;
}

static guint64
invalid_of (SearchSpace *s)
{
  SearchRunOptions ro = { 0 };
  ro.no_prune = TRUE;
  g_autoptr (GError) error = NULL;
  g_autoptr (SearchResult) r = search_run (s, &ro, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (r->enumerated, ==, 2);
  return r->invalid;
}

/* The search explores only what the stack offers: a candidate plan_check_stack refuses
 * (as predict does) is invalid. (1) megatron-core has no compiled mode: with --compile
 * both candidates are refused, 2 invalid. (2) A torchtitan whose only TP overlap is
 * async TP (tp_comm_overlap "no", async_tp "optional", the stack's own note: 'offered
 * only as async TP'): candidate 1 runs the overlap as async TP, which TorchTitan refuses
 * without a compiled model: 1 invalid; with --compile none, and candidate 1's flags say
 * --async-tp (which predict reads as async TP + TP-comm overlap: the same plan). */
static void
test_stack_check (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FwStack) mc = fw_stack_lookup ("megatron-core", &error);
  g_assert_no_error (error);
  g_autoptr (SearchSpace) a = stack_space (mc, TRUE);
  g_assert_cmpuint (invalid_of (a), ==, 2);
  g_autoptr (SearchSpace) a0 = stack_space (mc, FALSE);
  g_assert_cmpuint (invalid_of (a0), ==, 0);

  /* the flags in Megatron's spelling where Megatron has the flag (issue 11 item 1), by
   * hand from stack_space's candidate 1: 8 GPUs (tandem's --gpus: Megatron takes the
   * world from the launcher), tp 2, pp 1, 1F1B (tandem's --schedule: Megatron infers
   * it), mbs 1, gbs 32, seq 1024, no sharding (no flag), SP, TP-comm overlap */
  g_autofree char *m1 = search_candidate_flags (a0, 1, NULL);
  g_assert_cmpstr (m1, ==, "--model small-llama --cluster dgx-h100-superpod --gpus 8 "
                   "--tensor-model-parallel-size 2 --pipeline-model-parallel-size 1 "
                   "--schedule 1F1B --micro-batch-size 1 --global-batch-size 32 "
                   "--seq-length 1024 --sequence-parallel --tp-comm-overlap");

  g_autoptr (FwStack) tt = fw_stack_load_preset ("torchtitan", &error);
  g_assert_no_error (error);
  tt->tp_comm_overlap = FW_OPT_NO;
  tt->async_tp = FW_OPT_OPTIONAL;
  g_autoptr (SearchSpace) b = stack_space (tt, FALSE);
  g_assert_cmpuint (invalid_of (b), ==, 1);
  g_autoptr (SearchSpace) c = stack_space (tt, TRUE);
  g_assert_cmpuint (invalid_of (c), ==, 0);
  g_autofree char *f0 = search_candidate_flags (c, 0, NULL);
  g_autofree char *f1 = search_candidate_flags (c, 1, NULL);
  g_assert_null (strstr (f0, "--async-tp"));
  g_assert_nonnull (strstr (f1, "--async-tp"));
  g_assert_null (strstr (f1, "--tp-comm-overlap"));
}

/* --fast narrows what the user left open, never what the user gave: a constraint the
 * stack does not offer is refused as in the exact search (before, --fast dropped it and
 * answered with plans that contradict it: --cp 2 on megatron-lm-2021 gave cp 1 plans,
 * --schedule GPipe on megatron-core interleaved ones). The lists --fast fills itself
 * (sharding none..zero3, ring CP) are trimmed to what the stack offers, not refused. */
static void
test_fast_keeps_constraints (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FwStack) m21 = fw_stack_load_preset ("megatron-lm-2021", &error);
  g_autoptr (FwStack) mc = fw_stack_load_preset ("megatron-core", &error);
  g_autoptr (FwStack) tt = fw_stack_load_preset ("torchtitan", &error);
  g_assert_no_error (error);
  struct { FwStack *stack; const char *want; } cases[] = {
    { m21, "--cp 2: the megatron-lm-2021 stack has no context parallelism" },
    { mc, "--schedule GPipe: the megatron-core stack does not offer it" },
    { tt, "--sharding zero1: the torchtitan stack does not offer it" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      SearchSpec spec;
      spec_base (&spec, "small-llama", "dgx-h100-superpod", 1024, 32);
      spec.gpus = ints (1, 16);
      if (i == 0)
        spec.cp = ints (1, 2);
      else if (i == 1)
        {
          spec.pp = ints (1, 2);
          spec.schedule_mask = 1u << PLAN_SCHED_GPIPE;
        }
      else
        {
          spec.sharding = g_array_new (FALSE, FALSE, sizeof (SearchShard));
          SearchShard z1 = { PLAN_SHARD_ZERO1, 0 };
          g_array_append_val (spec.sharding, z1);
        }
      search_spec_fast (&spec, FALSE);
      g_clear_error (&error);
      g_assert_false (search_spec_set_stack (&spec, cases[i].stack, &error));
      g_assert_error (error, SEARCH_ERROR, SEARCH_ERROR_CONSTRAINT);
      if (strstr (error->message, cases[i].want) == NULL)
        g_error ("case %u: '%s' lacks '%s'", i, error->message, cases[i].want);
      search_spec_clear (&spec);
    }
  /* left open, --fast's own sharding list on torchtitan (no ZeRO-1) is trimmed: none,
   * zero2, zero3 remain and the stack is accepted */
  SearchSpec spec;
  spec_base (&spec, "small-llama", "dgx-h100-superpod", 1024, 32);
  spec.gpus = ints (1, 16);
  search_spec_fast (&spec, FALSE);
  g_clear_error (&error);
  g_assert_true (search_spec_set_stack (&spec, tt, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (spec.sharding->len, ==, 3);
  for (guint i = 0; i < spec.sharding->len; i++)
    g_assert_cmpint (g_array_index (spec.sharding, SearchShard, i).kind, !=, PLAN_SHARD_ZERO1);
  search_spec_clear (&spec);
}

/* A plan's flags load the same model again (QA of the Hugging Face families): a model
 * read from a file is named by its path, since --model looks a bare name up among the
 * presets and "--model falcon-40b" (the file's basename, the spec's name) fails as an
 * unknown preset. search's closest-miss line and its "as tandem predict flags" list print
 * these flags. A preset keeps its name (test_stack_check: "--model small-llama"), and
 * a path holding a space is quoted for the shell: 'a b/falcon-40b.json'. */
static void
test_flags_model_path (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "models",
                                                 "falcon-40b.json", NULL);
  SearchSpec spec;
  spec_base (&spec, path, "dgx-h100-superpod", 2048, 64);
  sim_options_init (&spec.sim, spec.cluster);
  spec.gpus = ints (1, 64);
  g_autoptr (GError) error = NULL;
  g_autoptr (SearchSpace) s = search_space_new (&spec, &error);
  g_assert_no_error (error);
  search_spec_clear (&spec);
  g_assert_cmpuint (search_space_size (s), >, 0);
  g_autofree char *f = search_candidate_flags (s, 0, NULL);
  g_autofree char *want = g_strdup_printf ("--model %s --cluster dgx-h100-superpod ", path);
  g_assert_true (g_str_has_prefix (f, want));

  g_autofree char *preset = search_spec_arg ("llama3-8b", "preset:llama3-8b");
  g_assert_cmpstr (preset, ==, "llama3-8b");
  g_autofree char *dir = g_dir_make_tmp ("tandem a b-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *spaced = g_build_filename (dir, "falcon-40b.json", NULL);
  g_assert_true (g_file_set_contents (spaced, "{}", -1, NULL));
  g_autofree char *quoted = search_spec_arg ("falcon-40b", spaced);
  g_autofree char *expect = g_shell_quote (spaced);
  g_assert_cmpstr (quoted, ==, expect);
  g_assert_true (quoted[0] == '\'');
  g_remove (spaced);
  g_rmdir (dir);
}

/* Uneven pipelines: Llama 3 405B's 126 layers over 16 stages: middle stages
 * ceil(126/16) = 8, first and last share 126 - 14 x 8 = 14: 7 and 7. 96 layers over 40
 * chunks: q = 3 leaves 96 - 38 x 3 < 0, q would have to drop, so no balanced split. */
/* --fast is heuristic: its space is a subset of the exact one (so its best can only be
 * as good or worse) and far smaller. X, the allowed gap between the two bests, is
 * measured: on the README's spaces (GPT-3 175B on 1,024 H100, Llama 3 405B on 16,384)
 * and on Llama 3 8B / 64 GPUs, Llama 3 70B / 256 GPUs and this small space, --fast
 * found the exact best (gap 0.0%); rules tried and dropped cost 2.2% (TP-comm overlap
 * forced on, Megatron's rank order only) and 14.5% (cp 1 below 16K tokens) on Llama 3
 * 405B. So X = 0 here, with the space at least 10 times smaller. */
static void
test_fast (void)
{
  g_autoptr (SearchSpace) exact = small_space (SEARCH_OBJ_TOKENS_PER_S, 0, 3);
  SearchSpec spec;
  spec_base (&spec, "small-llama", "dgx-h100-superpod", 1024, 32);
  sim_options_init (&spec.sim, spec.cluster);
  spec.gpus = ints (2, 8, 16);
  spec.top_k = 3;
  g_assert_true (search_spec_fast (&spec, FALSE));
  g_autoptr (GError) error = NULL;
  g_autoptr (SearchSpace) fast = search_space_new (&spec, &error);
  g_assert_no_error (error);
  search_spec_clear (&spec);
  g_assert_true (search_space_spec (fast)->fast);
  g_assert_cmpuint (search_space_size (fast) * 10, <, search_space_size (exact));
  /* every fast candidate is in the exact space: same plan string somewhere there */
  g_autoptr (GHashTable) plans = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint64 i = 0; i < search_space_size (exact); i++)
    g_hash_table_add (plans, search_candidate_flags (exact, i, NULL));
  for (guint64 i = 0; i < search_space_size (fast); i++)
    {
      g_autofree char *f = search_candidate_flags (fast, i, NULL);
      if (!g_hash_table_contains (plans, f))
        g_error ("fast candidate not in the exact space: %s", f);
    }
  SearchRunOptions ro = { 0 };
  g_autoptr (SearchResult) a = search_run (exact, &ro, &error);
  g_assert_no_error (error);
  g_autoptr (SearchResult) b = search_run (fast, &ro, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (a->top->len, >, 0);
  g_assert_cmpuint (b->top->len, >, 0);
  const SearchRow *ra = &g_array_index (a->rows, SearchRow, g_array_index (a->top, guint, 0));
  const SearchRow *rb = &g_array_index (b->rows, SearchRow, g_array_index (b->top, guint, 0));
  g_test_message ("exact best %.9g s of %" G_GUINT64_FORMAT " candidates, fast %.9g s of %"
                  G_GUINT64_FORMAT, ra->step_time_s, search_space_size (exact),
                  rb->step_time_s, search_space_size (fast));
  g_assert_cmpfloat (rb->score, >=, ra->score);
  const double x = 0.0;      /* measured gap (above) */
  g_assert_cmpfloat (rb->score, <=, ra->score * (1 + x));
}

static void
test_split (void)
{
  int first, last;
  g_assert_true (search_split_layers (126, 16, &first, &last));
  g_assert_cmpint (first, ==, 7);
  g_assert_cmpint (last, ==, 7);
  g_assert_true (search_split_layers (96, 8, &first, &last));
  g_assert_cmpint (first, ==, -1);
  g_assert_false (search_split_layers (96, 40, &first, &last));
  g_assert_true (search_split_layers (9, 2, &first, &last));
  g_assert_cmpint (first + last, ==, 9);
}

/* Pipeline schedules a step (plan.h pp_schedules) are no search dimension: a base plan
 * that sets 4 (an AutoModel run's) leaves every candidate at one schedule a step (4 would
 * not divide, e.g., the 32 / (8 x 4) = 1 micro-batch of dp 8 at mbs 4). */
static void
test_pp_schedules_not_searched (void)
{
  SearchSpec spec;
  spec_base (&spec, "small-llama", "dgx-h100-superpod", 1024, 32);
  sim_options_init (&spec.sim, spec.cluster);
  spec.gpus = ints (2, 8, 16);
  spec.mbs = ints (3, 1, 2, 4);
  spec.base.pp_schedules = 4;
  g_autoptr (GError) error = NULL;
  g_autoptr (SearchSpace) s = search_space_new (&spec, &error);
  g_assert_no_error (error);
  search_spec_clear (&spec);
  g_assert_cmpuint (search_space_size (s), >, 0);
  for (guint64 i = 0; i < search_space_size (s); i++)
    {
      Plan p;
      search_candidate_plan (s, i, &p);
      g_assert_cmpint (plan_pp_schedules (&p), ==, 1);
      plan_clear (&p);
    }
}

/* The objective's spellings: README's names, hyphens for underscores, and issue 11's
 * short ones (tokens, step); anything else is refused */
static void
test_objective_names (void)
{
  SearchObjective o;
  g_assert_true (search_objective_parse ("tokens", &o));
  g_assert_cmpint (o, ==, SEARCH_OBJ_TOKENS_PER_S);
  g_assert_true (search_objective_parse ("step", &o));
  g_assert_cmpint (o, ==, SEARCH_OBJ_STEP_TIME);
  g_assert_true (search_objective_parse ("step-time", &o));
  g_assert_cmpint (o, ==, SEARCH_OBJ_STEP_TIME);
  g_assert_true (search_objective_parse ("tokens-per-gpu-hour", &o));
  g_assert_cmpint (o, ==, SEARCH_OBJ_TOKENS_PER_GPU_HOUR);
  g_assert_true (search_objective_parse ("MFU", &o));
  g_assert_cmpint (o, ==, SEARCH_OBJ_MFU);
  g_assert_false (search_objective_parse ("steps", &o));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sim/search/exact", test_exact);
  g_test_add_func ("/sim/search/pp-schedules-not-searched", test_pp_schedules_not_searched);
  g_test_add_func ("/sim/search/exact-moe", test_exact_moe);
  g_test_add_func ("/sim/search/objective-mfu", test_objective_mfu);
  g_test_add_func ("/sim/search/objective-names", test_objective_names);
  g_test_add_func ("/sim/search/contradictions", test_contradictions);
  g_test_add_func ("/sim/search/split", test_split);
  g_test_add_func ("/sim/search/nvlink-domain", test_nvlink_domain);
  g_test_add_func ("/sim/search/tp-heads-message", test_tp_heads_message);
  g_test_add_func ("/sim/search/stack-check", test_stack_check);
  g_test_add_func ("/sim/search/fast", test_fast);
  g_test_add_func ("/sim/search/fast-keeps-constraints", test_fast_keeps_constraints);
  g_test_add_func ("/sim/search/flags-model-path", test_flags_model_path);
  g_test_add_func ("/sim/search/bound-unit-gaps", test_bound_unit_gaps);
  return g_test_run ();
}
