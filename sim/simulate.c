/* sim/simulate.c - the step program on modelled streams, event by event. */
#include "sim/simulate.h"
#include "sim/engine.h"

#include <math.h>
#include <string.h>

typedef struct {
  const ProgProgram *prog;
  const SimCost     *cost;
  const SimOptions  *opts;
  const PlanLayout  *layout;
  SimEngine         *engine;
  guint              n;
  /* successors (CSR): deps reversed, plus SEND -> RECV */
  guint32           *succ_first;
  guint32           *succ;
  gint32            *pending;
  guint8            *state;        /* 0 waiting, 1 running, 3 running comm kernel, 2 done */
  /* streams: per (stage, stream) the task ids in order */
  guint32           *q_first;      /* (n_stages * PROG_STREAM_N) + 1 */
  guint32           *q_tasks;
  guint32           *q_pos;
  guint32           *stream_slot;  /* task -> its (stage, stream) slot */
  double            *ready_at;     /* when the task became its stream's head */
  double            *block_s;      /* cost of each block, -1 = not yet */
  int               *comm_active;  /* per stage: communication tasks running */
  SimTaskTime       *times;
  guint              n_done;
  GArray            *coll_cache;   /* CollCache */
  double             slowdown;
} Sim;

typedef struct {
  guint8 coll, axis;
  double bytes;
  double s;
} CollCache;

static double
coll_cost (Sim *sim, const ProgTask *t)
{
  for (guint i = 0; i < sim->coll_cache->len; i++)
    {
      CollCache *c = &g_array_index (sim->coll_cache, CollCache, i);
      if (c->coll == t->coll && c->axis == t->axis && c->bytes == t->bytes)
        return c->s;
    }
  CollCache c = { t->coll, t->axis, t->bytes,
                  sim_cost_coll_s (sim->cost, t->coll, t->axis, t->bytes) };
  g_array_append_val (sim->coll_cache, c);
  return c.s;
}

static double
block_cost (Sim *sim, guint32 block)
{
  if (sim->block_s[block] >= 0)
    return sim->block_s[block];
  const ProgProgram *p = sim->prog;
  const ProgBlock *blk = prog_block (p, block);
  double s = 0;
  if (sim->opts->ideal_pipeline
      && (blk->kind == PROG_BLOCK_EMBED || blk->kind == PROG_BLOCK_HEAD))
    s = 0;
  else if (blk->kind == PROG_BLOCK_OPTIMIZER)
    {
      const ModelOp *op = &g_array_index (p->ops, ModelOp, blk->first_op);
      s = sim_cost_optimizer_s (sim->cost, (double) op->elements);
    }
  else
    for (guint i = 0; i < blk->n_ops; i++)
      s += sim_cost_op_math_s (sim->cost, &g_array_index (p->ops, ModelOp, blk->first_op + i),
                               p->compute_dtype, p->gemm_dtype,
                               blk->phase == PROG_PHASE_BACKWARD);
  sim->block_s[block] = s;
  return s;
}

/* Device of the representative rank of a stage: the rank with all other coordinates 0. */
static guint64
stage_device (const PlanLayout *layout, int stage)
{
  PlanCoord c = { { 0 } };
  c.coord[PLAN_AXIS_PP] = stage;
  return (guint64) plan_layout_rank_of (layout, &c);
}

static double
task_duration (Sim *sim, const ProgTask *t)
{
  switch (t->kind)
    {
    case PROG_TASK_COMPUTE:
      {
        double d = block_cost (sim, t->block);
        /* compute kernels slowed by communication kernels sharing the SMs and HBM */
        if (sim->comm_active[t->stage] > 0)
          d *= 1.0 + sim->slowdown;
        return d;
      }
    case PROG_TASK_COLL:
      return coll_cost (sim, t);
    case PROG_TASK_SEND:
      return sim_cost_p2p_s (sim->cost, stage_device (sim->layout, t->stage),
                             stage_device (sim->layout, t->peer_stage), t->bytes);
    case PROG_TASK_RECV:
    default:
      return 0;
    }
}

static void on_done (SimEngine *engine, void *target, const void *payload);

static void
try_start (Sim *sim, guint32 id)
{
  const ProgTask *t = prog_task (sim->prog, id);
  if (sim->state[id] != 0 || sim->pending[id] > 0)
    return;
  guint32 slot = sim->stream_slot[id];
  if (sim->q_tasks[sim->q_first[slot] + sim->q_pos[slot]] != id)
    return;                                   /* not the head of its stream */
  double now = sim_time_to_s (sim_engine_now (sim->engine));
  sim->state[id] = 1;
  double d = task_duration (sim, t);
  double start = now;
  if (t->kind == PROG_TASK_RECV)
    {
      /* the transfer was the SEND's: the receiver sees it from when it was ready */
      double send_start = sim->times[t->peer_task].start_s;
      start = MAX (sim->ready_at[id], send_start);
    }
  /* a communication kernel in flight slows the stage's compute (zero-length ones are
   * not kernels: free communication, empty groups) */
  if (t->kind != PROG_TASK_COMPUTE && t->kind != PROG_TASK_RECV && d > 0)
    {
      sim->comm_active[t->stage]++;
      sim->state[id] = 3;
    }
  sim->times[id].start_s = start;
  sim_engine_schedule (sim->engine, sim_time_from_s (d), on_done, sim, &id, sizeof id);
}

static void
on_done (SimEngine *engine, void *target, const void *payload)
{
  Sim *sim = target;
  guint32 id;
  memcpy (&id, payload, sizeof id);
  const ProgTask *t = prog_task (sim->prog, id);
  double now = sim_time_to_s (sim_engine_now (engine));
  if (sim->state[id] == 3)
    sim->comm_active[t->stage]--;
  sim->state[id] = 2;
  sim->times[id].end_s = now;
  sim->n_done++;

  /* the next task of the stream becomes its head */
  guint32 slot = sim->stream_slot[id];
  sim->q_pos[slot]++;
  guint32 len = sim->q_first[slot + 1] - sim->q_first[slot];
  if (sim->q_pos[slot] < len)
    {
      guint32 next = sim->q_tasks[sim->q_first[slot] + sim->q_pos[slot]];
      sim->ready_at[next] = now;
      try_start (sim, next);
    }
  for (guint32 i = sim->succ_first[id]; i < sim->succ_first[id + 1]; i++)
    {
      guint32 s = sim->succ[i];
      if (--sim->pending[s] == 0)
        try_start (sim, s);
    }
}

void
sim_options_init (SimOptions *opts, const TopoCluster *cluster)
{
  memset (opts, 0, sizeof *opts);
  sim_cost_options_init (&opts->cost, cluster);
}

/* Interval bookkeeping per stage: a sweep over the start and end points of every task.
 * Each stream runs its tasks one after another, so its points are already in time order;
 * a merge of the (at most PROG_STREAM_N) streams replaces a sort. */
static void
stage_stats (const ProgProgram *p, const SimTaskTime *times, const guint32 *q_first,
             const guint32 *q_tasks, int s, double step, SimStageStats *st)
{
  const ProgStage *ps = &p->stages[s];
  memset (st, 0, sizeof *st);
  st->model_flops = ps->model_flops;
  st->hw_flops = ps->hw_flops;

  guint32 pos[PROG_STREAM_N], len[PROG_STREAM_N];
  gboolean at_end[PROG_STREAM_N];   /* next point of the stream is its task's end */
  gint8 what[PROG_STREAM_N];        /* -1 compute, else the comm kind (set per task) */
  const guint32 *tasks[PROG_STREAM_N];
  for (int k = 0; k < PROG_STREAM_N; k++)
    {
      guint32 slot = (guint32) s * PROG_STREAM_N + k;
      tasks[k] = q_tasks + q_first[slot];
      len[k] = q_first[slot + 1] - q_first[slot];
      pos[k] = 0;
      at_end[k] = FALSE;
      what[k] = -1;
    }
  int compute = 0, comm[PROG_COMM_N] = { 0 };
  double last = 0;
  for (;;)
    {
      /* the earliest next point over the streams; ends before starts at equal times */
      int best = -1;
      double bt = 0;
      for (int k = 0; k < PROG_STREAM_N; k++)
        {
          if (pos[k] >= len[k])
            continue;
          const SimTaskTime *tt = &times[tasks[k][pos[k]]];
          double t = at_end[k] ? tt->end_s : tt->start_s;
          if (best < 0 || t < bt || (t == bt && at_end[k] && !at_end[best]))
            best = k, bt = t;
        }
      if (best < 0)
        break;
      guint32 id = tasks[best][pos[best]];
      const ProgTask *t = prog_task (p, id);
      const SimTaskTime *tt = &times[id];
      double dt = bt - last;
      if (dt > 0 && compute == 0)
        {
          /* idle compute is charged to the kind it waits for: TP and CP collectives sit
           * between compute blocks, then pipeline transfers, then DP (which the
           * program overlaps whenever it can) */
          int k = 0;
          while (k < PROG_COMM_N && comm[k] == 0)
            k++;
          if (k == PROG_COMM_N)
            st->bubble_s += dt;
          else
            st->exposed_s[k] += dt;
        }
      last = MAX (last, bt);
      double d = tt->end_s - tt->start_s;
      if (!at_end[best])
        {
          st->end_s = MAX (st->end_s, tt->end_s);
          if (d > 0)
            {
              what[best] = t->kind == PROG_TASK_COMPUTE ? -1 : (gint8) t->comm;
              if (what[best] < 0)
                compute++, st->compute_s += d;
              else
                comm[what[best]]++, st->comm_s[what[best]] += d;
              at_end[best] = TRUE;
            }
          else
            pos[best]++;          /* an empty task occupies no time */
        }
      else
        {
          if (what[best] < 0)
            compute--;
          else
            comm[what[best]]--;
          at_end[best] = FALSE;
          pos[best]++;
        }
    }
  /* after the stage's last task, until the step ends, the stage waits */
  if (step > last)
    st->bubble_s += step - last;
}

SimResult *
sim_simulate (const ProgProgram *prog, const TopoCluster *cluster, const PlanLayout *layout,
              const SimOptions *opts, GError **error)
{
  gint64 t0 = g_get_monotonic_time ();
  SimOptions defaults;
  if (opts == NULL)
    {
      sim_options_init (&defaults, cluster);
      opts = &defaults;
    }
  g_autoptr (SimResult) res = g_new0 (SimResult, 1);
  SimCost *cost = sim_cost_new (cluster, layout, &opts->cost);
  Sim sim = { 0 };
  sim.prog = prog;
  sim.cost = cost;
  sim.opts = opts;
  sim.layout = layout;
  sim.n = prog->tasks->len;
  sim.slowdown = opts->cost.comm_compute_slowdown;
  guint n = sim.n;
  int n_slots = prog->n_stages * PROG_STREAM_N;

  /* successors */
  sim.succ_first = g_new0 (guint32, n + 1);
  sim.pending = g_new0 (gint32, n);
  for (guint32 i = 0; i < n; i++)
    {
      const ProgTask *t = prog_task (prog, i);
      const guint32 *deps = prog_task_deps (prog, t);
      for (guint32 k = 0; k < t->n_deps; k++)
        sim.succ_first[deps[k] + 1]++;
      sim.pending[i] = (gint32) t->n_deps;
      if (t->kind == PROG_TASK_RECV)
        {
          sim.succ_first[t->peer_task + 1]++;
          sim.pending[i]++;
        }
    }
  for (guint32 i = 0; i < n; i++)
    sim.succ_first[i + 1] += sim.succ_first[i];
  sim.succ = g_new (guint32, sim.succ_first[n] + 1);
  g_autofree guint32 *fill = g_memdup2 (sim.succ_first, sizeof (guint32) * (n + 1));
  for (guint32 i = 0; i < n; i++)
    {
      const ProgTask *t = prog_task (prog, i);
      const guint32 *deps = prog_task_deps (prog, t);
      for (guint32 k = 0; k < t->n_deps; k++)
        sim.succ[fill[deps[k]]++] = i;
      if (t->kind == PROG_TASK_RECV)
        sim.succ[fill[t->peer_task]++] = i;
    }

  /* stream queues, in program order */
  sim.q_first = g_new0 (guint32, n_slots + 1);
  sim.stream_slot = g_new (guint32, n);
  for (guint32 i = 0; i < n; i++)
    {
      const ProgTask *t = prog_task (prog, i);
      guint32 slot = (guint32) t->stage * PROG_STREAM_N + t->stream;
      sim.stream_slot[i] = slot;
      sim.q_first[slot + 1]++;
    }
  for (int i = 0; i < n_slots; i++)
    sim.q_first[i + 1] += sim.q_first[i];
  sim.q_tasks = g_new (guint32, n + 1);
  g_autofree guint32 *qfill = g_memdup2 (sim.q_first, sizeof (guint32) * (n_slots + 1));
  for (guint32 i = 0; i < n; i++)
    sim.q_tasks[qfill[sim.stream_slot[i]]++] = i;
  sim.q_pos = g_new0 (guint32, n_slots);
  sim.state = g_new0 (guint8, n);
  sim.ready_at = g_new0 (double, n);
  sim.block_s = g_new (double, prog->blocks->len);
  for (guint i = 0; i < prog->blocks->len; i++)
    sim.block_s[i] = -1;
  sim.comm_active = g_new0 (int, prog->n_stages);
  sim.times = g_new0 (SimTaskTime, n);
  sim.coll_cache = g_array_new (FALSE, FALSE, sizeof (CollCache));
  sim.engine = sim_engine_new (0);

  /* every stream head with no dependency starts at time 0 */
  for (int slot = 0; slot < n_slots; slot++)
    if (sim.q_first[slot + 1] > sim.q_first[slot])
      try_start (&sim, sim.q_tasks[sim.q_first[slot]]);
  gboolean ok = sim_engine_run (sim.engine, SIM_TIME_MAX, error);
  res->n_events = sim_engine_n_fired (sim.engine);
  if (ok && sim.n_done != n)
    {
      /* name a stuck task to help whoever wrote the schedule */
      guint32 stuck = 0;
      for (guint32 i = 0; i < n; i++)
        if (sim.state[i] != 2)
          {
            stuck = i;
            break;
          }
      const ProgTask *t = prog_task (prog, stuck);
      g_set_error (error, SIM_ERROR, SIM_ERROR_FAILED,
                   "the step program deadlocked: %u of %u tasks finished; task %u (stage %d, "
                   "stream %s, micro-batch %d, %s) never started",
                   sim.n_done, n, stuck, t->stage, prog_stream_name (t->stream), t->mb,
                   prog_phase_name (t->phase));
      ok = FALSE;
    }

  if (ok)
    {
      double step = 0;
      for (guint32 i = 0; i < n; i++)
        step = MAX (step, sim.times[i].end_s);
      res->step_time_s = step;
      res->n_stages = prog->n_stages;
      res->n_tasks = n;
      res->stages = g_new0 (SimStageStats, prog->n_stages);
      double comm_total = 0, exposed_total = 0;
      for (int s = 0; s < prog->n_stages; s++)
        {
          SimStageStats *st = &res->stages[s];
          stage_stats (prog, sim.times, sim.q_first, sim.q_tasks, s, step, st);
          if (st->end_s >= res->stages[res->critical_stage].end_s)
            res->critical_stage = s;
          res->compute_s += st->compute_s / prog->n_stages;
          res->bubble_fraction += st->bubble_s / step / prog->n_stages;
          for (int k = 0; k < PROG_COMM_N; k++)
            {
              res->comm_s[k] += st->comm_s[k] / prog->n_stages;
              res->exposed_comm_s[k] += st->exposed_s[k] / prog->n_stages;
              comm_total += st->comm_s[k];
              exposed_total += st->exposed_s[k];
            }
        }
      res->overlap_ratio = comm_total > 0 ? 1.0 - exposed_total / comm_total : 1.0;

      const Plan *plan = &prog->plan;
      double gpus = (double) plan->world_size;
      res->tokens_per_s = step > 0 ? prog->tokens_per_step / step : 0;
      res->peak_flops = cluster->device.peak_flops[prog->gemm_dtype];
      for (int c = 0; c < MODEL_FLOPS_N_CONVENTIONS; c++)
        {
          double f = model_spec_flops_per_token (prog->model, (guint64) plan->seq_length, c)
                     * prog->tokens_per_step;
          res->model_tflops_per_gpu[c] = step > 0 ? f / step / gpus / 1e12 : 0;
          res->mfu[c] = res->peak_flops > 0 ? res->model_tflops_per_gpu[c] * 1e12
                                              / res->peak_flops : 0;
        }
      res->hw_tflops_per_gpu = step > 0 ? prog->hw_flops_per_step / step / gpus / 1e12 : 0;
      res->hfu = res->peak_flops > 0 ? res->hw_tflops_per_gpu * 1e12 / res->peak_flops : 0;
      if (opts->keep_timeline)
        res->times = g_steal_pointer (&sim.times);
    }

  sim_engine_free (sim.engine);
  g_array_free (sim.coll_cache, TRUE);
  g_free (sim.succ_first);
  g_free (sim.succ);
  g_free (sim.pending);
  g_free (sim.state);
  g_free (sim.q_first);
  g_free (sim.q_tasks);
  g_free (sim.q_pos);
  g_free (sim.stream_slot);
  g_free (sim.ready_at);
  g_free (sim.block_s);
  g_free (sim.comm_active);
  g_free (sim.times);
  sim_cost_free (cost);
  if (!ok)
    return NULL;
  res->sim_wall_s = (double) (g_get_monotonic_time () - t0) / 1e6;
  return g_steal_pointer (&res);
}

void
sim_result_free (SimResult *result)
{
  if (result == NULL)
    return;
  g_free (result->stages);
  g_free (result->times);
  g_free (result);
}
