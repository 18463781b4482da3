/* sim/simulate.c - the step program on modelled streams, event by event. */
#include "sim/simulate.h"
#include "sim/simulate-private.h"
#include "sim/engine.h"
#include "util/hugepage.h"

#include <math.h>
#include <string.h>

/* held SMs whose compute rate is kept (Sim.sms_rate); more are computed each time */
#define SIM_SMS_RATES 512
G_STATIC_ASSERT (PROG_STREAM_N <= 8);      /* Sim.run_mask: a bit per stream */

/* Per task, packed so that starting or finishing a task touches one cache line. */
typedef struct {
  SimTime base_ps;       /* duration before any slowdown, in picoseconds */
  union {
    SimTime slow_ps;     /* compute: its duration next to a communication kernel */
    struct {
      guint32 slot;      /* communication: its (stage, stream), stage * PROG_STREAM_N +
                          * stream, so that the event loop need not read the descriptor */
      guint16 sms;       /* a kernel: the SMs it holds while it runs (sim_cost_coll_sms,
                          * sim_cost_p2p_sms) */
      guint8  stream_bit; /* 1 << stream (Sim.run_mask) */
    };
  };
  gint32  pending;       /* dependencies not done */
  guint32 next;          /* the next task of its stream, G_MAXUINT32 none */
  guint16 stage;
  guint8  state;         /* 0 waiting, 1 running, 3 running comm kernel, 2 done */
  guint8  head;          /* first of its stream not done */
  gint8   what;          /* -1 compute, else the ProgCommKind */
  guint8  recv;          /* a pipeline RECV */
  guint8  kernel;        /* a communication task that is a kernel (base duration > 0); a
                          * compute task: issued by the host after a device synchronize
                          * (ProgTask host_sync), it starts reissue_ps after it is ready */
  guint8  fuse;          /* SIM_NO_FUSE, or: this communication task starts the moment its
                          * stream predecessor ends once `pending` is down to this (its
                          * dependencies on that predecessor), and nothing else waits for
                          * the predecessor: one completion event covers both (try_start) */
} SimHot;
#define SIM_NO_FUSE 0xff
/* on a compute task: its only successor is a collective of its stage that nothing else
 * holds back, and its stream's next task cannot start before that collective ends, so
 * where the collective is its stream's head when the compute starts, the collective's
 * start is known then and the compute's completion needs no event (try_start) */
#define SIM_FUSE_COMM 0xfe

/* A duration as the event loop takes it, computed once per block, collective or
 * transfer shape rather than once per task. */
typedef struct {
  double  s;             /* seconds, before any slowdown */
  SimTime ps;            /* the same in picoseconds, as the queue takes it */
  SimTime slow_ps;       /* s x (1 + slowdown) in picoseconds (compute next to comm) */
} SimDur;

/* A completion in the event set: ordered by time, then by the sequence number taken when
 * it was scheduled (rest = sequence << 32 | task). */
#ifdef __SIZEOF_INT128__
/* one number, time * 2^64 + rest: ordering is a single unsigned compare */
__extension__ typedef unsigned __int128 SimKey128;

static inline SimKey128 key_make (SimTime t, guint64 rest) { return ((SimKey128) t << 64) | rest; }
static inline SimTime   key_time (SimKey128 k)             { return (SimTime) (k >> 64); }
static inline guint64   key_rest (SimKey128 k)             { return (guint64) k; }
static inline gboolean  key_less (SimKey128 a, SimKey128 b) { return a < b; }
#else
typedef struct {
  SimTime time;
  guint64 rest;
} SimKey128;

static inline SimKey128 key_make (SimTime t, guint64 rest) { return (SimKey128) { t, rest }; }
static inline SimTime   key_time (SimKey128 k)             { return k.time; }
static inline guint64   key_rest (SimKey128 k)             { return k.rest; }
static inline gboolean
key_less (SimKey128 a, SimKey128 b)
{
  return (a.time < b.time) | ((a.time == b.time) & (a.rest < b.rest));
}
#endif

/* sim_time_to_s, inlined for the event loop (the same division, so the same doubles) */
static inline double
ps_to_s (SimTime t)
{
  return (double) t / (double) SIM_TIME_PS_PER_S;
}

typedef struct {
  const ProgProgram *prog;
  const SimCost     *cost;
  const SimOptions  *opts;
  const PlanLayout  *layout;
  guint              n;
  /* the event set: completions keyed (time ps, sequence, task), a 4-ary min-heap; the
   * sequence numbers schedules, so equal times complete in scheduling order, as the
   * general engine (engine.h) orders them. Its keys are narrow (one guint64: heap) while
   * they fit, else wide (SimKey128: wheap) to the end of the run (heap_push_slow) */
  guint64           *heap;
  SimKey128         *wheap;
  guint32            heap_len, heap_cap;
  gboolean           hole;         /* heap[0] is vacant: a completion is being handled */
  guint32            seq;
  guint              seq_bits;     /* a narrow key: (time - tbase) << seq_bits | sequence */
  guint64            seq_mask;     /* 2^seq_bits - 1 */
  SimTime            tbase;
  guint64            tlimit;       /* 2^(64 - seq_bits): a narrow key's times are below
                                    * tbase + tlimit; 0 once wide */
  guint32           *seq_task;     /* per sequence number: its task (narrow keys) */
  SimTime            now;
  double             now_s;        /* now in seconds */
  double            *ready_at;     /* per RECV: when it became its stream's head */
  guint64            n_fired;
  SimHot            *hot;          /* per task: what the event loop reads and writes */
  gint8             *what;         /* per task: -1 compute, else the rank (kind_rank) of
                                    * its ProgCommKind, or of SIM_KIND_OFFLOAD for a CPU
                                    * offload copy: the order the statistics sweep counts
                                    * in (stage_stats) */
  /* successors (CSR): deps reversed, plus SEND -> RECV */
  guint32           *succ_first;
  guint32           *succ;
  /* streams: per (stage, stream) the task ids in order */
  guint32           *stream_first; /* per (stage, stream): its first task, G_MAXUINT32 none;
                                    * the rest follow through SimHot.next */
  SimDur            *block_s;      /* cost of each block, s = -1: not yet */
  int               *comm_active;  /* per stage: communication tasks running */
  SimTime           *run_end;      /* per (stage, stream): when its running communication
                                    * kernel (or fused chain of them) ends */
  guint32           *run_sms;      /* ... and the SMs it holds until then (0: none) */
  guint32           *run_task;     /* ... and the task whose completion ends it (the
                                    * last of a chain) */
  SimTime            reissue_ps;   /* the host's re-issue time after a device synchronize
                                    * (SimCostOptions pp_sync_reissue_s) */
  guint8            *run_mask;     /* per stage: bit k set when stream k's run_sms is not 0
                                    * (NULL: the device's SM count is unknown) */
  double             sms_rate[SIM_SMS_RATES]; /* 1 / (1 + sim_cost_sms_slowdown (held)) by
                                    * held, 0: not yet (sms_rate) */
  SimTaskTime       *times;
  guint              n_done;
  GArray            *coll_cache;   /* CollCache */
  GArray            *p2p_cache;    /* P2pCache */
  guint              coll_last[2]; /* the cache entries that answered last (memset: 0) */
  /* the SMs a collective's kernel holds, by [EP comm][collective][axis] (program_setup;
   * memset: 0, the device's SM count unknown) */
  guint16            coll_sms[2][PLAN_COLL_N][PLAN_AXIS_N_GROUPS];
  double             copy_bytes;   /* the CPU offload copy copy_d is the time of */
  SimDur             copy_d;
  double             slowdown;
  gboolean           zero3;        /* zero3_program: ZeRO-3 layer collectives cost extra */
  gboolean           watched;      /* sim_simulate_watched: stage 0's compute tasks keep
                                    * their completion events (it pauses on them) */
  SimTime            held_at;      /* the completion of a kernel that holds SMs, just
                                    * scheduled and not yet in the heap (try_start): a
                                    * compute task that starts in the same handler and
                                    * fuses the kernel after it may absorb it; pushed when
                                    * the completion being handled is done */
  guint32            held_seq;     /* its sequence number */
  guint32            held_id;      /* its task, G_MAXUINT32: none */
  guint32            stop_id;      /* run_events pauses after this task's completion event
                                    * (G_MAXUINT32: none) */
} Sim;

typedef struct {
  guint8 coll, axis;
  guint8 z3;            /* a ZeRO-3 layer collective (zero3_task): its extra cost added */
  guint16 sms[2];       /* the SMs its kernel holds, by [EP comm] (0: no kernel, d.s 0),
                         * looked up once here rather than per task */
  double bytes;
  SimDur d;
} CollCache;

static SimDur
dur_make (const Sim *sim, double s)
{
  SimDur d = { s, sim_time_from_s (s), sim_time_from_s (s * (1.0 + sim->slowdown)) };
  return d;
}

/* A ZeRO-3 layer gather or gradient reduce-scatter issued as one collective per
 * parameter tensor (ProgProgram.zero3_calls > 1) pays the collective's latency once per
 * tensor: the sharded parameters' DP collectives of a micro-batch (mb >= 0). Issued as
 * torch.distributed.all_gather / reduce_scatter on a list of per-rank tensors
 * (plan.zero3_rank_copies), each call also copies every rank's piece out of (or into) the
 * flat buffer NCCL works on: PyTorch's ProcessGroupNCCL does one copy per list element,
 * which all_gather_into_tensor (PyTorch 1.10's _all_gather_base) was added to avoid. */
#define ZERO3_GATHER_PASSES 3.0
#define ZERO3_SCATTER_PASSES 2.0

/* What zero3_task asks of the program rather than of the task, asked once (sim_init). */
static gboolean
zero3_program (const Sim *sim)
{
  const ProgProgram *p = sim->prog;
  return (p->zero3_calls > 1 || p->plan.zero3_rank_copies > 0)
         && (p->plan.sharding == PLAN_SHARD_ZERO3 || p->plan.sharding == PLAN_SHARD_HSDP)
         && sim->cost != NULL && !sim->opts->cost.free_comm;
}

static gboolean
zero3_task (const Sim *sim, const ProgTask *t)
{
  return sim->zero3 && t->comm == PROG_COMM_DP && t->mb >= 0 && t->layer >= 0
         && (t->coll == PLAN_COLL_ALL_GATHER || t->coll == PLAN_COLL_REDUCE_SCATTER);
}

static double
zero3_extra_s (const Sim *sim, const ProgTask *t)
{
  const ProgProgram *p = sim->prog;
  const int calls = MAX (p->zero3_calls, 1);
  double s = (calls - 1) * sim_cost_latency_s (sim->cost, (PlanColl) t->coll,
                                               (PlanAxis) t->axis);
  /* per-rank list collectives: one copy kernel per rank of the group, issued by the host
   * at the stack's per-kernel cost; and the bytes those copies move. A gather writes
   * its zeroed buffer (torch.zeros in DeepSpeed's _allgather_param), and PyTorch's
   * ProcessGroupNCCL gathers into a flat buffer of its own and copies it out to the
   * list (read + write): 3 passes over the gathered bytes. A reduce-scatter copies the
   * list into PyTorch's flat input first (read + write): 2 passes. Every pass is
   * serialized with the compute, as the issue is (plan/program.c, recompute_ag). */
  if (p->plan.zero3_rank_copies > 0 && sim->layout != NULL)
    {
      s += calls * (double) sim->layout->groups[t->axis].size
           * sim->opts->cost.launch_overhead_s;
      const double passes = t->coll == PLAN_COLL_ALL_GATHER ? ZERO3_GATHER_PASSES
                                                            : ZERO3_SCATTER_PASSES;
      s += sim_cost_hbm_s (sim->cost, passes * t->bytes);
    }
  return s;
}

/* The collective's cache entry, looked up through the whole cache and added when missing
 * (coll_cost's slow path). */
G_NO_INLINE static const CollCache *
coll_cost_find (Sim *sim, const ProgTask *t, guint8 z3)
{
  sim->coll_last[1] = sim->coll_last[0];
  for (guint i = 0; i < sim->coll_cache->len; i++)
    {
      CollCache *c = &g_array_index (sim->coll_cache, CollCache, i);
      if (c->coll == t->coll && c->axis == t->axis && c->bytes == t->bytes && c->z3 == z3)
        {
          sim->coll_last[0] = i;
          return c;
        }
    }
  sim->coll_last[0] = sim->coll_cache->len;
  double s = sim_cost_coll_s (sim->cost, t->coll, t->axis, t->bytes);
  if (z3)
    s += zero3_extra_s (sim, t);
  CollCache c = { t->coll, t->axis, z3, { 0, 0 }, t->bytes, dur_make (sim, s) };
  if (c.d.s > 0)
    for (int ep = 0; ep < 2; ep++)
      c.sms[ep] = sim->coll_sms[ep][t->coll][t->axis];
  g_array_append_val (sim->coll_cache, c);
  return &g_array_index (sim->coll_cache, CollCache, sim->coll_last[0]);
}

/* A collective's cost and SMs. Inlined: the two entries that answered last are checked
 * first (a TP all-gather and reduce-scatter alternate), which answers nearly every task. */
static inline const CollCache *
coll_cost (Sim *sim, const ProgTask *t)
{
  const guint8 z3 = zero3_task (sim, t);
  for (int k = 0; k < 2; k++)
    if (sim->coll_last[k] < sim->coll_cache->len)
      {
        CollCache *c = &g_array_index (sim->coll_cache, CollCache, sim->coll_last[k]);
        if (c->coll == t->coll && c->axis == t->axis && c->bytes == t->bytes && c->z3 == z3)
          return c;
      }
  return coll_cost_find (sim, t, z3);
}

/* A block's time, computed on its first task (block_cost is the cached look-up). */
G_NO_INLINE static const SimDur *
block_cost_fill (Sim *sim, guint32 block)
{
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
  /* a host-bound MoE layer: its pass takes the host's issue time (sim/cost.h) */
  if (blk->kind == PROG_BLOCK_MOE_EXPERTS)
    s += sim_cost_moe_host_excess_s (sim->cost, p, blk->phase);
  sim->block_s[block] = dur_make (sim, s);
  return &sim->block_s[block];
}

static inline const SimDur *
block_cost (Sim *sim, guint32 block)
{
  if (G_LIKELY (sim->block_s[block].s >= 0))
    return &sim->block_s[block];
  return block_cost_fill (sim, block);
}

/* Device of the representative rank of a stage: the rank with all other coordinates 0. */
static guint64
stage_device (const PlanLayout *layout, int stage)
{
  PlanCoord c = { { 0 } };
  c.coord[PLAN_AXIS_PP] = stage;
  return (guint64) plan_layout_rank_of (layout, &c);
}

/* A pipeline transfer's time, by (stage, peer, bytes): a stage sends to at most two
 * peers, so the cache stays short. */
typedef struct {
  gint32 stage, peer;
  double bytes;
  SimDur d;
} P2pCache;

static const SimDur *
p2p_cost (Sim *sim, const ProgTask *t)
{
  for (guint i = 0; i < sim->p2p_cache->len; i++)
    {
      P2pCache *c = &g_array_index (sim->p2p_cache, P2pCache, i);
      if (c->stage == t->stage && c->peer == t->peer_stage && c->bytes == t->bytes)
        return &c->d;
    }
  P2pCache c = { t->stage, t->peer_stage, t->bytes,
                 dur_make (sim, sim_cost_p2p_s (sim->cost, stage_device (sim->layout, t->stage),
                                                stage_device (sim->layout, t->peer_stage),
                                                t->bytes)) };
  g_array_append_val (sim->p2p_cache, c);
  return &g_array_index (sim->p2p_cache, P2pCache, sim->p2p_cache->len - 1).d;
}

/* A CPU offload copy's time, by bytes (every offloaded layer of a dense model copies the
 * same; the last shape is kept). */
static const SimDur *
copy_cost (Sim *sim, const ProgTask *t)
{
  if (sim->copy_bytes != t->bytes)
    {
      sim->copy_bytes = t->bytes;
      sim->copy_d = dur_make (sim, sim->cost != NULL ? sim_cost_host_copy_s (sim->cost, t->bytes)
                                                     : 0.0);
    }
  return &sim->copy_d;
}

/* A task's duration before any slowdown (a compute kernel running next to a
 * communication kernel takes longer: try_start). */
static const SimDur *
task_base_duration (Sim *sim, const ProgTask *t)
{
  static const SimDur none = { 0, 0, 0 };
  switch (t->kind)
    {
    case PROG_TASK_COMPUTE:
      return block_cost (sim, t->block);
    case PROG_TASK_COLL:
      return &coll_cost (sim, t)->d;
    case PROG_TASK_SEND:
      return p2p_cost (sim, t);
    case PROG_TASK_COPY:
      return copy_cost (sim, t);
    case PROG_TASK_RECV:
    default:
      return &none;
    }
}

/* The event set is a 4-ary min-heap (half the depth of a binary one). While a completion
 * is handled its key has left the root, which stays vacant (`hole`): the first
 * completion the handler schedules settles from the root, one walk down instead of a pop
 * and a push, and only if it schedules none is the hole filled with the last key. The
 * order of events is that of their keys alone, so the heap's shape changes nothing.
 * The four places after the last key hold the greatest key (HEAP_PAD, which no completion
 * has), so that every group of children is whole and the least child is always a
 * tournament, without a loop over a partial last group.
 *
 * A key is narrow while it fits: one guint64, (time - tbase) << seq_bits | sequence,
 * with the task in seq_task[sequence]. A task completes once, so the sequence numbers
 * stay below n (sim_init takes seq_bits for n + 1: the greatest narrow key has a
 * sequence number of n or more, which none reaches); the times a key holds are those of
 * pending completions, at or after now, within 2^(64 - seq_bits) ps of tbase (the main
 * job's trial of 91,278 tasks: 47 bits, 140 s), and when one is not, tbase moves up to now
 * (every key less the same, so their order stays). A completion that lies further than
 * that from now turns the heap wide: the same keys as (time, sequence << 32 | task) in an
 * unsigned __int128, to the end of the run (a program of one stage starts wide:
 * run_events). With
 * 128-bit keys throughout, a level of the walk down cost about 50 instructions (each
 * key two words to load and compare, an index scaled by 16 in another instruction) and
 * the heap about a sixth of a prediction; narrow keys: main job m256 36.46 -> 35.38 M
 * instructions a prediction (callgrind; 35.20 M with run_events' two loops).
 * sim_key_window_log2 cuts the window for tests
 * (test-program-stamp /sim/event-keys-wide: at 2^8 ps the heap turns wide at the start,
 * at 2^36 in mid-run; at 2^40 its base moves; every figure the same). */
#define HEAP_PAD 4
#define NKEY_MAX G_MAXUINT64
guint sim_key_window_log2 = 64;
static inline SimKey128 key_max (void) { return key_make (SIM_TIME_MAX, G_MAXUINT64); }

G_ALWAYS_INLINE static inline guint32
nheap_min_child (const guint64 *heap, guint32 c)
{
  /* a tournament of three compares, which compile to conditional moves */
  guint32 a = c + (heap[c + 1] < heap[c]);
  guint32 b = c + 2 + (heap[c + 3] < heap[c + 2]);
  return heap[b] < heap[a] ? b : a;
}

/* Puts k into the heap of n keys whose position 0 is vacant. Inlined into its two
 * callers: with a dozen keys pending, the call's own cost was a third of the walk. */
G_ALWAYS_INLINE static inline void
nheap_settle_root (guint64 *heap, guint32 n, guint64 k)
{
  guint32 i = 0;
  for (;;)
    {
      guint32 c = 4 * i + 1;
      if (c >= n)
        break;
      guint32 m = nheap_min_child (heap, c);
      if (heap[m] >= k)
        break;
      heap[i] = heap[m];
      i = m;
    }
  heap[i] = k;
}

/* The same for wide keys (the heap after heap_widen). */
static inline guint32
wheap_min_child (const SimKey128 *heap, guint32 c)
{
  guint32 a = c + key_less (heap[c + 1], heap[c]);
  guint32 b = c + 2 + key_less (heap[c + 3], heap[c + 2]);
  return key_less (heap[b], heap[a]) ? b : a;
}

G_ALWAYS_INLINE static inline void
wheap_settle_root (SimKey128 *heap, guint32 n, SimKey128 k)
{
  guint32 i = 0;
  for (;;)
    {
      guint32 c = 4 * i + 1;
      if (c >= n)
        break;
      guint32 m = wheap_min_child (heap, c);
      if (!key_less (heap[m], k))
        break;
      heap[i] = heap[m];
      i = m;
    }
  heap[i] = k;
}

/* Room for one key more (heap_len == heap_cap), the places after it the greatest key. */
G_NO_INLINE static void
heap_grow (Sim *sim)
{
  guint32 old = sim->heap_cap;
  sim->heap_cap = MAX (64, sim->heap_cap * 2);
  if (sim->tlimit == 0)
    {
      sim->wheap = g_renew (SimKey128, sim->wheap, sim->heap_cap + HEAP_PAD);
      for (guint32 j = old; j < sim->heap_cap + HEAP_PAD; j++)
        sim->wheap[j] = key_max ();
    }
  else
    {
      sim->heap = g_renew (guint64, sim->heap, sim->heap_cap + HEAP_PAD);
      for (guint32 j = old; j < sim->heap_cap + HEAP_PAD; j++)
        sim->heap[j] = NKEY_MAX;
    }
}

/* The narrow key k as a wide one. */
static inline SimKey128
key_widen (const Sim *sim, guint64 k)
{
  guint32 seq = (guint32) (k & sim->seq_mask);
  return key_make (sim->tbase + (k >> sim->seq_bits),
                   ((guint64) seq << 32) | sim->seq_task[seq]);
}

/* The heap's keys, wide from now on (heap_push_slow). */
static void
heap_widen (Sim *sim)
{
  sim->wheap = g_new (SimKey128, sim->heap_cap + HEAP_PAD);
  for (guint32 j = 0; j < sim->heap_cap + HEAP_PAD; j++)
    sim->wheap[j] = j < sim->heap_len && !(j == 0 && sim->hole)
                      ? key_widen (sim, sim->heap[j]) : key_max ();
  g_clear_pointer (&sim->heap, g_free);
  sim->tlimit = 0;
}

G_ALWAYS_INLINE static inline void
wheap_push_inline (Sim *sim, SimKey128 k)
{
  if (sim->hole)
    {
      sim->hole = FALSE;
      wheap_settle_root (sim->wheap, sim->heap_len, k);
      return;
    }
  if (G_UNLIKELY (sim->heap_len == sim->heap_cap))
    heap_grow (sim);
  guint32 i = sim->heap_len++;
  while (i > 0)
    {
      guint32 p = (i - 1) / 4;
      if (!key_less (k, sim->wheap[p]))
        break;
      sim->wheap[i] = sim->wheap[p];
      i = p;
    }
  sim->wheap[i] = k;
}

G_NO_INLINE static void
wheap_push (Sim *sim, SimKey128 k)
{
  wheap_push_inline (sim, k);
}

static void heap_push_slow (Sim *sim, SimTime at, guint32 seq, guint32 id);

/* Schedules the completion of task `id` at `at` with sequence number `seq`. Inlined into
 * its callers as try_start is (a call per completion scheduled), twice: `narrow` (a
 * constant there) says which kind of key the event loop's copy takes (run_events); the
 * narrow one's is right for a wide heap too, through heap_push_slow. */
G_ALWAYS_INLINE static inline void
heap_push (Sim *sim, SimTime at, guint32 seq, guint32 id, const gboolean narrow)
{
  if (!narrow)
    {
      wheap_push_inline (sim, key_make (at, ((guint64) seq << 32) | id));
      return;
    }
  const guint64 dt = at - sim->tbase;
  if (G_UNLIKELY (dt >= sim->tlimit))
    {
      heap_push_slow (sim, at, seq, id);
      return;
    }
  const guint64 k = (dt << sim->seq_bits) | seq;
  /* the heap's fields read before the store to seq_task, which may alias them */
  guint64 *const heap = sim->heap;
  const guint32 len = sim->heap_len;
  const gboolean hole = sim->hole;
  sim->seq_task[seq] = id;
  if (hole)
    {
      sim->hole = FALSE;
      nheap_settle_root (heap, len, k);
      return;
    }
  if (G_UNLIKELY (sim->heap_len == sim->heap_cap))
    heap_grow (sim);
  guint32 i = sim->heap_len++;
  while (i > 0)
    {
      guint32 p = (i - 1) / 4;
      if (k >= sim->heap[p])
        break;
      sim->heap[i] = sim->heap[p];
      i = p;
    }
  sim->heap[i] = k;
}

/* A key that is not narrow (heap_push): the keys' times taken from now, where that makes
 * it fit; else the heap turns wide. */
G_NO_INLINE static void
heap_push_slow (Sim *sim, SimTime at, guint32 seq, guint32 id)
{
  if (sim->tlimit > 0 && sim->now > sim->tbase)
    {
      /* now - tbase fits: now is a key's time, or tbase's */
      const guint64 d = (sim->now - sim->tbase) << sim->seq_bits;
      for (guint32 j = sim->hole ? 1 : 0; j < sim->heap_len; j++)
        sim->heap[j] -= d;
      sim->tbase = sim->now;
      if (at - sim->tbase < sim->tlimit)
        {
          heap_push (sim, at, seq, id, TRUE);
          return;
        }
    }
  if (sim->tlimit > 0)
    heap_widen (sim);
  wheap_push (sim, key_make (at, ((guint64) seq << 32) | id));
}

/* Fills the vacant root with the last key. */
G_ALWAYS_INLINE static inline void
heap_fill_hole (Sim *sim, const gboolean narrow)
{
  sim->hole = FALSE;
  --sim->heap_len;
  if (narrow && G_LIKELY (sim->tlimit > 0))
    {
      guint64 last = sim->heap[sim->heap_len];
      sim->heap[sim->heap_len] = NKEY_MAX;
      if (sim->heap_len > 0)
        nheap_settle_root (sim->heap, sim->heap_len, last);
    }
  else
    {
      SimKey128 last = sim->wheap[sim->heap_len];
      sim->wheap[sim->heap_len] = key_max ();
      if (sim->heap_len > 0)
        wheap_settle_root (sim->wheap, sim->heap_len, last);
    }
}

/* Whether every task that waits for task k, if any does, is `c` (the absorption in
 * try_start then counts k off c's dependencies). */
static inline gboolean
held_waiters_after (const Sim *sim, guint32 k, guint32 c)
{
  for (guint32 i = sim->succ_first[k]; i < sim->succ_first[k + 1]; i++)
    if (sim->succ[i] != c)
      return FALSE;
  return TRUE;
}

/* Pushes the held completion (try_start), if any. */
G_ALWAYS_INLINE static inline void
heap_push_held (Sim *sim, const gboolean narrow)
{
  if (sim->held_id != G_MAXUINT32)
    {
      guint32 id = sim->held_id;
      sim->held_id = G_MAXUINT32;
      heap_push (sim, sim->held_at, sim->held_seq, id, narrow);
    }
}

/* Schedules the completion of `id` after `d` seconds, as sim_engine_schedule would
 * (rounded to picoseconds, saturating). */
G_ALWAYS_INLINE static inline void
schedule_done (Sim *sim, guint32 id, SimTime delay, const gboolean narrow)
{
  SimTime at = sim->now + delay < sim->now ? SIM_TIME_MAX : sim->now + delay;
  heap_push (sim, at, sim->seq++, id, narrow);
}

/* A compute kernel of `base` picoseconds alone that starts now on `stage` while
 * communication kernels there hold SMs: it runs on the SMs they leave, at 1 / (1 +
 * sim_cost_sms_slowdown (held)) of its rate, until each ends (their ends are known when
 * they start: a communication task's duration does not depend on the stage), then
 * faster, and alone after the last. Kernels that start after it do not slow it: its CTAs
 * already hold the SMs. The rule for several kernels at once: their SMs add up (each
 * holds its own CTAs' SMs, none of which a compute CTA shares). */
static inline double
sms_rate (Sim *sim, int held)
{
  if (held >= SIM_SMS_RATES)
    return 1.0 / (1.0 + sim_cost_sms_slowdown (sim->cost, held));
  double r = sim->sms_rate[held];
  if (r == 0)
    r = sim->sms_rate[held] = 1.0 / (1.0 + sim_cost_sms_slowdown (sim->cost, held));
  return r;
}

/* llround of a non-negative x, inlined: the libm call was a quarter of this file's
 * shared-SM arithmetic. Below 2^63 the truncation and the fraction left are exact, so
 * rounding half away from zero gives llround's value; above, llround decides. */
static inline SimTime
round_ps (double x)
{
  if (G_LIKELY (x >= 0 && x < 9.2e18))
    {
      SimTime r = (SimTime) x;
      return r + (x - (double) r >= 0.5);
    }
  return (SimTime) llround (x);
}

G_NO_INLINE static SimTime sms_shared_delay_many (Sim *sim, guint stage, SimTime base);

/* Inlined into the event loop for one kernel (the usual case): the general loop
 * (sms_shared_delay_many) for n = 1, the same arithmetic. */
G_ALWAYS_INLINE static inline SimTime
sms_shared_delay (Sim *sim, guint stage, SimTime base)
{
  const guint held_mask = sim->run_mask[stage];
  if (held_mask != 0 && (held_mask & (held_mask - 1)) == 0)
    {
      const guint32 slot = (guint32) stage * PROG_STREAM_N + (guint32) __builtin_ctz (held_mask);
      if (sim->run_end[slot] > sim->now)
        {
          const double rate = sms_rate (sim, (int) sim->run_sms[slot]);
          const SimTime span = sim->run_end[slot] - sim->now;
          double work = (double) base;
          if (work <= (double) span * rate)
            return round_ps (work / rate);
          work -= (double) span * rate;
          return span + round_ps (work);
        }
    }
  return sms_shared_delay_many (sim, stage, base);
}

static SimTime
sms_shared_delay_many (Sim *sim, guint stage, SimTime base)
{
  const guint32 slot0 = (guint32) stage * PROG_STREAM_N;
  const guint held_mask = sim->run_mask[stage];
  SimTime end[PROG_STREAM_N];
  int sms[PROG_STREAM_N], n = 0, held = 0;
  for (guint mask = held_mask; mask != 0; mask &= mask - 1)
    {
      guint32 slot = slot0 + (guint32) __builtin_ctz (mask);
      if (sim->run_end[slot] <= sim->now)
        continue;
      /* insertion by end time (a handful of streams) */
      int i = n++;
      for (; i > 0 && end[i - 1] > sim->run_end[slot]; i--)
        end[i] = end[i - 1], sms[i] = sms[i - 1];
      end[i] = sim->run_end[slot];
      sms[i] = (int) sim->run_sms[slot];
      held += sms[i];
    }
  /* in picoseconds from now, so that the same state later gives the same duration to
   * the picosecond (the steady state compares periods exactly) */
  double work = (double) base;    /* picoseconds of it at the full rate still to run */
  SimTime at = 0;                 /* whole picoseconds from now, at the last kernel end */
  for (int i = 0; i < n && work > 0; i++)
    {
      const double rate = sms_rate (sim, held);
      const SimTime span = end[i] - sim->now - at;
      if (work <= (double) span * rate)
        return at + round_ps (work / rate);
      work -= (double) span * rate;
      at += span;
      held -= sms[i];
    }
  return at + round_ps (work);
}

/* Inlined into its callers (on_done's two, the set-up's): as a call it took a sixteenth
 * of the event loop's time (bench-predict, main job). */
G_ALWAYS_INLINE static inline void
try_start (Sim *sim, guint32 id, const gboolean narrow)
{
  SimHot *h = &sim->hot[id];
  if (h->state != 0 || h->pending > 0 || !h->head)
    return;
  h->state = 1;
  SimTime delay = h->base_ps;
  double start = sim->now_s;
  SimTime sim_now = sim->now;     /* when a communication task starts (a later time where
                                   * it follows a compute task: SIM_FUSE_COMM) */
  if (h->what < 0)
    {
      /* compute kernels slowed by communication kernels sharing the SMs and HBM */
      if (sim->comm_active[h->stage] > 0)
        delay = h->slow_ps;
      /* and by the SMs those kernels hold: the compute runs on the rest until they end */
      if (sim->run_mask != NULL && sim->run_mask[h->stage] != 0)
        delay = MAX (delay, sms_shared_delay (sim, h->stage, h->base_ps));
      /* the first kernel after a device synchronize: the device idles until the host has
       * issued it (plan/program.c sync_*) */
      if (G_UNLIKELY (h->kernel))
        {
          delay += sim->reissue_ps;
          start += ps_to_s (sim->reissue_ps);
        }
    }
  else if (h->recv)
    {
      /* the transfer was the SEND's: the receiver sees it from when it was ready */
      double send_start = sim->times[prog_task (sim->prog, id)->peer_task].start_s;
      start = MAX (sim->ready_at[id], send_start);
    }
  /* a communication kernel in flight slows the stage's compute (zero-length ones are
   * not kernels: free communication, empty groups) */
  else if (h->kernel)
    {
      sim->comm_active[h->stage]++;
      h->state = 3;
    }
  sim->times[id].start_s = start;
  if (h->fuse == SIM_FUSE_COMM)
    {
      /* the compute's one successor, a communication kernel, starts the moment the
       * compute ends if it waits for nothing else and is its stream's head by then: now,
       * or when the kernel before it on its stream ends, if that one runs now and ends
       * earlier (its end is known: run_end). What the compute's completion event would
       * do (its stream's next task becomes the head but still waits for the kernel; the
       * kernel starts) is done now, with the times it would give; the kernel's SMs are
       * booked now too (only compute reads them, and none starts on the stage before
       * then), and the kernel before it leaves them booked when it ends (run_task). */
      guint32 x = sim->succ[sim->succ_first[id]];
      SimHot *xh = &sim->hot[x];
      SimTime end = sim->now + delay < sim->now ? SIM_TIME_MAX : sim->now + delay;
      if (xh->pending == 1 && xh->state == 0
          && (xh->head
              || (sim->run_mask != NULL && sim->run_sms[xh->slot] > 0
                  && sim->hot[sim->run_task[xh->slot]].next == x
                  && sim->run_end[xh->slot] < end)))
        {
          if (!xh->head && sim->run_task[xh->slot] == sim->held_id
              && held_waiters_after (sim, sim->held_id, h->next))
            {
              /* the kernel before x, whose completion is held, ends before x starts, and
               * only the stage's next compute task waits for it, which starts after x
               * ends (SIM_FUSE_COMM): what its completion event would do is done now,
               * and the event is dropped. Its kernel count is read by that compute
               * start alone; its SMs stay booked for x (run_task); x becomes its
               * stream's head, already running; the next compute task's dependency on
               * it is counted off, leaving the one on x's stream; the times are those
               * the event would give. The other events keep their keys, so they fire in
               * the same order. */
              guint32 k = sim->held_id;
              SimHot *kh = &sim->hot[k];
              sim->held_id = G_MAXUINT32;
              sim->comm_active[kh->stage]--;
              kh->state = 2;
              sim->times[k].end_s = ps_to_s (sim->run_end[xh->slot]);
              sim->n_done++;
              xh->head = 1;
              for (guint32 i = sim->succ_first[k]; i < sim->succ_first[k + 1]; i++)
                sim->hot[sim->succ[i]].pending--;
            }
          double t = ps_to_s (end);
          sim->times[id].end_s = t;
          h->state = 2;
          sim->n_done++;
          sim->hot[h->next].head = 1;
          xh->pending = 0;
          sim->comm_active[xh->stage]++;
          xh->state = 3;
          sim->times[x].start_s = t;
          id = x;
          h = xh;
          delay = xh->base_ps;
          sim_now = end;
        }
    }
  if (h->what >= 0 && !h->recv)
    {
      /* Communication tasks that follow one another on a stream with nothing else between
       * them (a TP reduce-scatter and the next block's all-gather): the follower starts
       * when this one ends, whatever else happens meanwhile (a communication task's
       * duration does not depend on the stage's state, and the kernel count stays the
       * same: one kernel ends as the other starts), so the chain's end is known now and
       * takes one event. The times written are those the separate events would give. */
      SimTime end = sim_now + delay < sim_now ? SIM_TIME_MAX : sim_now + delay;
      while (h->next != G_MAXUINT32 && sim->hot[h->next].fuse == sim->hot[h->next].pending)
        {
          guint32 x = h->next;
          SimHot *xh = &sim->hot[x];
          double t = ps_to_s (end);
          sim->times[id].end_s = t;
          h->state = 2;
          sim->n_done++;
          xh->head = 1;
          xh->pending = 0;
          xh->state = h->kernel ? 3 : 1;
          sim->times[x].start_s = t;
          end = end + xh->base_ps < end ? SIM_TIME_MAX : end + xh->base_ps;
          id = x;
          h = xh;
        }
      const guint32 seq = sim->seq++;
      if (h->state == 3 && h->sms > 0)
        {
          /* the kernel (and the chain after it, which holds the same SMs) ends then */
          sim->run_end[h->slot] = end;
          sim->run_sms[h->slot] = h->sms;
          sim->run_task[h->slot] = id;
          sim->run_mask[h->stage] |= h->stream_bit;
          /* its completion is held until the completion being handled is done, so
           * that a compute task that starts with it and fuses the next kernel of its
           * stream (SIM_FUSE_COMM) can absorb it (the regather of a backward block's
           * input beside the block's compute) */
          heap_push_held (sim, narrow);
          sim->held_at = end;
          sim->held_seq = seq;
          sim->held_id = id;
          return;
        }
      heap_push (sim, end, seq, id, narrow);
      return;
    }
  schedule_done (sim, id, delay, narrow);
}

G_ALWAYS_INLINE static inline void
on_done (Sim *sim, guint32 id, const gboolean narrow)
{
  double now = sim->now_s;
  SimHot *h = &sim->hot[id];
  if (h->state == 3)
    {
      sim->comm_active[h->stage]--;
      if (sim->run_mask != NULL && h->sms > 0 && sim->run_task[h->slot] == id)
        {
          sim->run_sms[h->slot] = 0;
          sim->run_mask[h->stage] &= (guint8) ~h->stream_bit;
        }
    }
  h->state = 2;
  sim->times[id].end_s = now;
  sim->n_done++;

  /* the next task of the stream becomes its head */
  if (h->next != G_MAXUINT32)
    {
      SimHot *nh = &sim->hot[h->next];
      nh->head = 1;
      if (nh->recv)
        sim->ready_at[h->next] = now;
      try_start (sim, h->next, narrow);
    }
  for (guint32 i = sim->succ_first[id]; i < sim->succ_first[id + 1]; i++)
    {
      guint32 s = sim->succ[i];
      if (--sim->hot[s].pending == 0)
        try_start (sim, s, narrow);
    }
}

/* Fires completions in (time, sequence) order until none is left, or until the heap turns
 * wide (returns TRUE) where `narrow`. The loop is compiled twice, for narrow and for wide
 * keys (a constant here), so that neither tests the kind of key at each push and pop. A
 * program of one stage, whose heap holds a key or two, starts wide (sim_init): there the
 * narrow keys' decoding (a shift, a mask, and the task's look-up, a load the next ones
 * wait for) costs more than the walks it saves (bench-predict llama3-8b TP1 DP64: 509.9 ->
 * 517.6 K instructions a prediction with narrow keys and one loop testing the kind, 3-5%
 * more time; 512.1 K so). Main job m256: 35.38 -> 35.20 M with the two loops. */
G_ALWAYS_INLINE static inline gboolean
events_loop (Sim *sim, const gboolean narrow)
{
  while (sim->heap_len > 0)
    {
      guint32 id;
      if (narrow)
        {
          if (G_UNLIKELY (sim->tlimit == 0))
            return TRUE;
          const guint64 k = sim->heap[0];
          sim->now = sim->tbase + (k >> sim->seq_bits);
          id = sim->seq_task[k & sim->seq_mask];
        }
      else
        {
          const SimKey128 k = sim->wheap[0];
          sim->now = key_time (k);
          id = (guint32) key_rest (k);
        }
      sim->hole = TRUE;
      sim->now_s = ps_to_s (sim->now);
      sim->n_fired++;
      on_done (sim, id, narrow);
      /* heap_push_held, its push inlined here (once a completion: as a call, to a copy
       * of the push outlined by the compiler, 29,000 a prediction cost a sixth of its
       * settle in saving and reloading; main job m256: 42.05 -> 41.50 M instructions a
       * prediction) */
      if (sim->held_id != G_MAXUINT32)
        {
          guint32 held = sim->held_id;
          sim->held_id = G_MAXUINT32;
          heap_push (sim, sim->held_at, sim->held_seq, held, narrow);
        }
      if (sim->hole)
        heap_fill_hole (sim, narrow);
      if (G_UNLIKELY (id == sim->stop_id))
        break;                   /* a pause (sim_simulate_watched); the loop resumes */
    }
  return FALSE;
}

static void
run_events (Sim *sim)
{
  if (sim->tlimit > 0 && !events_loop (sim, TRUE))
    return;
  events_loop (sim, FALSE);
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
/* The kind idle compute is charged to: the first active one in the order tp, cp, pp,
 * offload, dp, ep (simulate.h); none: the bubble. The sweep counts and sums by rank in
 * that order (kind_rank; Sim.what holds a task's rank), so the first active kind is the
 * first nonzero count, which is usually the first one looked at (TP). */
static const int charge_order[SIM_KINDS] = { PROG_COMM_TP, PROG_COMM_CP, PROG_COMM_PP,
                                             SIM_KIND_OFFLOAD, PROG_COMM_DP, PROG_COMM_EP };
static const gint8 kind_rank[SIM_KINDS] = {
  [PROG_COMM_TP] = 0, [PROG_COMM_CP] = 1, [PROG_COMM_PP] = 2,
  [SIM_KIND_OFFLOAD] = 3, [PROG_COMM_DP] = 4, [PROG_COMM_EP] = 5,
};
G_STATIC_ASSERT (SIM_KINDS == 6);

static inline int
charged_rank (const int *comm)
{
  int r = 0;
  while (r < SIM_KINDS && comm[r] == 0)
    r++;
  return r;
}

/* A stream as the sweep walks it. */
typedef struct {
  guint32  cur;        /* its current task, G_MAXUINT32 when done */
  gboolean at_end;     /* its next point is that task's end */
  gint8    what;       /* -1 compute, else the rank of the kind of the task whose end is
                        * next */
  double   next;       /* its next point; G_MAXDOUBLE when done */
} SweepStream;

static inline SweepStream
sweep_stream (const SimTaskTime *times, guint32 first)
{
  SweepStream ss = { first, FALSE, -1, first != G_MAXUINT32 ? times[first].start_s
                                                            : G_MAXDOUBLE };
  return ss;
}

/* What the points add up, by rank (kind_rank): running tasks and busy time. */
typedef struct {
  const SimTaskTime *times;
  const gint8       *rank;     /* per task: -1 compute, else its kind's rank (Sim.what) */
  const SimHot      *hot;
  int               *comm;     /* [SIM_KINDS] running communication tasks */
  double            *busy;     /* [SIM_KINDS] */
  int                compute;  /* running compute tasks */
  double             compute_s;
} Sweep;

/* Takes the point of stream `ss` at time bt (its next; the caller has charged the time
 * before it), then, where `chain` says so, the points of the same stream at the same time
 * after it: the next task of compute or TP often starts where the last one ends (a chain
 * of TP collectives: 40,000 of 66,000 TP tasks of the main job at m256), and taking its
 * start here rather than through the merge gives the same sums (no time to charge, no
 * snapshot due: the caller took this time's). Inlined with `ss` a local of the caller's
 * for compute and TP (their state stays in registers) and an element of its array for
 * the other streams. */
G_ALWAYS_INLINE static inline void
sweep_point (Sweep *w, SweepStream *ss, double bt, gboolean chain)
{
  guint32 id = ss->cur;
  for (;;)
    {
      if (!ss->at_end)
        {
          const SimTaskTime *tt = &w->times[id];
          double d = tt->end_s - tt->start_s;
          if (d > 0)
            {
              gint8 r = w->rank[id];
              ss->what = r;
              if (r < 0)
                w->compute++, w->compute_s += d;
              else
                w->comm[r]++, w->busy[r] += d;
              ss->at_end = TRUE;
              ss->next = tt->end_s;
              return;
            }
          /* an empty task occupies no time */
        }
      else
        {
          if (ss->what < 0)
            w->compute--;
          else
            w->comm[ss->what]--;
          ss->at_end = FALSE;
        }
      id = ss->cur = w->hot[id].next;
      ss->next = id != G_MAXUINT32 ? w->times[id].start_s : G_MAXDOUBLE;
      if (!chain || ss->next != bt)
        return;
    }
}

static double
stage_stats (const ProgProgram *p, const SimTaskTime *times, const gint8 *task_rank,
             const SimHot *hot, const guint32 *stream_first, int s, double step,
             SimStageStats *st, const double snap_t[2], double snap[2][SIM_KINDS + 1])
{
  int n_snap = snap_t ? 2 : 0, snap_i = 0;
  const ProgStage *ps = &p->stages[s];
  memset (st, 0, sizeof *st);
  st->model_flops = ps->model_flops;
  st->hw_flops = ps->hw_flops;

  /* compute and TP, which hold most points, apart (sweep_point), the others in `other`;
   * a stream without tasks never comes first (its next point is G_MAXDOUBLE). With the
   * two in registers rather than in arrays indexed by the stream picked, and the kind's
   * rank read once a task (Sim.what): bench-predict main job m256, this sweep 9.53 ->
   * 8.12 M instructions (callgrind) */
  G_STATIC_ASSERT (PROG_STREAM_COMPUTE == 0 && PROG_STREAM_TP == 1);
  const guint32 *first = &stream_first[(guint32) s * PROG_STREAM_N];
  SweepStream s0 = sweep_stream (times, first[0]), s1 = sweep_stream (times, first[1]);
  SweepStream other[PROG_STREAM_N - 2];
  for (int k = 0; k < PROG_STREAM_N - 2; k++)
    other[k] = sweep_stream (times, first[k + 2]);
  /* The earliest next point is the least (time, stream) over the streams. The least of
   * the other streams (`rest`) is kept and found again only when one of them moves on,
   * so a point compares three. Among points of one time the order changes no figure:
   * time is charged only over a gap (dt > 0), with the state after every earlier point,
   * whatever their order; and the sums that points add (busy and compute time, at
   * starts) take their starts in stream order either way (a stream's points at one time
   * are its task's end, then starts: a start with a duration ends later), so the old tie
   * rule (ends before starts) is not needed. */
  /* (one integer key per stream, the time's bits shifted up with the start flag below, took
   * a twentieth fewer instructions here but made a prediction 14% slower: measured, not
   * traced) */
  int others[PROG_STREAM_N], n_others = 0;
  for (int k = 0; k < PROG_STREAM_N - 2; k++)
    if (other[k].cur != G_MAXUINT32)
      others[n_others++] = k;
  int rest = n_others > 0 ? others[0] : 0;
  for (int i = 1; i < n_others; i++)
    if (other[others[i]].next < other[rest].next)
      rest = others[i];
  /* by rank (kind_rank): running tasks, busy and exposed time */
  int comm[SIM_KINDS] = { 0 };
  double busy[SIM_KINDS] = { 0 }, exposed[SIM_KINDS] = { 0 };
  Sweep w = { times, task_rank, hot, comm, busy, 0, 0 };
  double last = 0, bubble = 0;
  /* the next snapshot time (+inf when none is left), and the least point that needs
   * more than the usual step: that, or the end (G_MAXDOUBLE: every stream done), so
   * that a point compares once for both */
  double snap_next = n_snap > 0 ? snap_t[0] : INFINITY;
  double stop = MIN (snap_next, G_MAXDOUBLE);
  for (;;)
    {
      /* branches, not conditional moves (an empty statement the compiler cannot move
       * keeps each a branch): which stream comes next follows a pattern the branch
       * predictor learns, while a conditional move chains the choice to the loads before
       * it (measured: 16% slower a prediction) */
      int best = 0;
      double bt = s0.next;
      if (s1.next < bt)
        {
          best = 1, bt = s1.next;
          __asm__ volatile ("");
        }
      if (other[rest].next < bt)
        {
          best = 2, bt = other[rest].next;
          __asm__ volatile ("");
        }
      if (G_UNLIKELY (bt >= stop))
        {
          if (bt == G_MAXDOUBLE)
            break;
          /* the steady-state extension's snapshots: bubble and exposure so far at
           * snap_t[i] */
          for (; snap_i < n_snap && snap_t[snap_i] <= bt; snap_i++)
            {
              double part = MAX (snap_t[snap_i] - last, 0.0);
              int k = charged_rank (comm);
              for (int j = 0; j < SIM_KINDS; j++)
                snap[snap_i][charge_order[j]] = exposed[j]
                                                + (w.compute == 0 && k == j ? part : 0);
              snap[snap_i][SIM_KINDS] = bubble + (w.compute == 0 && k == SIM_KINDS ? part : 0);
            }
          snap_next = snap_i < n_snap ? snap_t[snap_i] : INFINITY;
          stop = MIN (snap_next, G_MAXDOUBLE);
        }
      double dt = bt - last;
      if (dt > 0 && w.compute == 0)
        {
          /* idle compute is charged to the kind it waits for: TP and CP collectives sit
           * between compute blocks, then pipeline transfers, then DP (which the
           * program overlaps whenever it can) */
          int k = charged_rank (comm);
          if (k == SIM_KINDS)
            bubble += dt;
          else
            exposed[k] += dt;
        }
      last = MAX (last, bt);
      if (best == 0)
        {
          sweep_point (&w, &s0, bt, TRUE);
          /* TP's point at the same time, which the loop would pick next (stream 0 wins
           * every tie, so it is not later than TP's, and the others come after both)
           * with no time to charge: a compute kernel ends where the TP collective after
           * it starts, or starts where the one before it ends (main job m256: this
           * sweep 8.12 -> 7.32 M instructions) */
          if (s1.next == bt)
            sweep_point (&w, &s1, bt, TRUE);
        }
      else if (best == 1)
        sweep_point (&w, &s1, bt, TRUE);
      else
        {
          sweep_point (&w, &other[rest], bt, FALSE);
          rest = others[0];
          for (int i = 1; i < n_others; i++)
            if (other[others[i]].next < other[rest].next)
              rest = others[i];
        }
    }
  /* the stage's last end is its last point: every task has its start as a point and its
   * end too where it lasts (else its end is its start) */
  st->end_s = last;
  st->compute_s = w.compute_s;
  st->bubble_s = bubble;
  for (int j = 0; j < SIM_KINDS; j++)
    {
      st->comm_s[charge_order[j]] = busy[j];
      st->exposed_s[charge_order[j]] = exposed[j];
    }
  for (; snap_i < n_snap; snap_i++)
    {
      for (int j = 0; j < SIM_KINDS; j++)
        snap[snap_i][j] = st->exposed_s[j];
      snap[snap_i][SIM_KINDS] = st->bubble_s;
    }
  /* after the stage's last task, until the step ends, the stage waits (step < 0: the
   * caller adds it, from the time returned: its last point) */
  if (step > last)
    st->bubble_s += step - last;
  return last;
}

static void aggregate (SimResult *res, const ProgProgram *prog, const TopoCluster *cluster,
                       double tokens_per_step, double hw_flops_per_step);
static SimResult *plain_result (Sim *sim, const TopoCluster *cluster);

/* The compute task c before compute task i on i's stage (G_MAXUINT32 none): whether its
 * completion can go without an event (SIM_FUSE_COMM, program_setup says when), set once
 * i's successors are being filled in (c's are). */
static inline void
fuse_comm_test (Sim *sim, const guint32 *fill, const ProgTask *t, const guint32 *deps,
                guint32 c, guint32 i)
{
  if (c != G_MAXUINT32 && sim->hot[c].next == i && (t->stage > 0 || !sim->watched)
      && sim->succ_first[c + 1] - sim->succ_first[c] == 1
      && fill[c] == sim->succ_first[c + 1])
    {
      guint32 x = sim->succ[sim->succ_first[c]];
      const SimHot *xh = &sim->hot[x];
      if (xh->what >= 0 && !xh->recv && xh->kernel && xh->base_ps > 0
          && xh->stage == t->stage)
        for (guint32 k = 0; k < t->n_deps; k++)
          {
            const SimHot *dh = &sim->hot[deps[k]];
            if (deps[k] >= x && dh->what >= 0 && !dh->recv && dh->slot == xh->slot)
              {
                sim->hot[c].fuse = SIM_FUSE_COMM;
                break;
              }
          }
    }
}

/* A communication task `h` right after `ph` on its stream, both kernels of the same kind
 * holding as many SMs, neither a pipeline RECV, fuses with it: its fuse count is its
 * dependencies on `prev` (one completion event for both; a count that reads as
 * SIM_FUSE_COMM or more: no chain). Anything else: SIM_NO_FUSE. */
static inline guint8
stream_fuse (const SimHot *ph, const SimHot *h, const guint32 *deps, guint32 n_deps,
             guint32 prev)
{
  if (h->what < 0 || h->recv || ph->what < 0 || ph->recv || ph->kernel != h->kernel
      || ph->sms != h->sms)
    return SIM_NO_FUSE;
  guint32 on_prev = 0;
  for (guint32 k = 0; k < n_deps; k++)
    on_prev += deps[k] == prev;
  return (guint8) (on_prev < SIM_FUSE_COMM ? on_prev : SIM_NO_FUSE);
}

/* What the set-up of a stamped unit's copies (plan/program.c) takes from its template,
 * found on its first copy and kept in a hash table (the template's first task -> it); the
 * last four templates asked for are looked at first (a stage's copies cycle through its
 * templates, a forward and a backward one per chunk: four in the main job, whose 2,880
 * look-ups a prediction took 0.28 M instructions in the hash table). Positions are
 * relative to the unit's first task. */
typedef struct {
  guint32 *count;        /* [n] the successors its own dependencies give each task (the
                          * same for every copy: its dependencies are the template's
                          * shifted, all within the unit) */
  guint32 *dep;          /* [n_deps] those dependencies in task order, */
  guint32 *dep_of;       /* [n_deps] and the task each is one of */
  guint32  n_deps;
  guint32 *recv;         /* [n_recv] its pipeline RECVs */
  guint32  n_recv;
  gboolean heads;        /* a task of the template heads its stream */
  guint32  n_streams;
  guint8   stream[PROG_STREAM_N];     /* the streams it has tasks on, */
  guint32  first[PROG_STREAM_N];      /* its first task on each */
  guint32  last[PROG_STREAM_N];       /* and its last */
  guint32  last_compute;              /* its last compute task (G_MAXUINT32 none) */
} StampInfo;

static void
stamp_info_free (gpointer data)
{
  StampInfo *si = data;
  g_free (si->count);
  g_free (si);
}

/* The StampInfo of run r, from its template's SimHot (set up: it precedes its copies)
 * and the copy's dependencies. */
static StampInfo *
stamp_info_new (const Sim *sim, const ProgStampRun *r)
{
  const ProgProgram *prog = sim->prog;
  StampInfo *si = g_new0 (StampInfo, 1);
  guint32 n_recv = 0, n_deps = 0;
  for (guint32 j = 0; j < r->n; j++)
    {
      n_recv += sim->hot[r->src + j].recv;
      n_deps += prog_task (prog, r->first + j)->n_deps;
    }
  si->count = g_new0 (guint32, r->n + n_recv + 2 * n_deps);
  si->recv = si->count + r->n;
  si->dep = si->recv + n_recv;
  si->dep_of = si->dep + n_deps;
  for (guint32 i = r->first; i < r->first + r->n; i++)
    {
      const ProgTask *t = prog_task (prog, i);
      const guint32 *deps = prog_task_deps (prog, t);
      for (guint32 k = 0; k < t->n_deps; k++)
        {
          g_assert (deps[k] >= r->first && deps[k] < r->first + r->n);
          si->count[deps[k] - r->first]++;
          si->dep[si->n_deps] = deps[k] - r->first;
          si->dep_of[si->n_deps++] = i - r->first;
        }
    }
  gint32 on[PROG_STREAM_N];
  for (int k = 0; k < PROG_STREAM_N; k++)
    on[k] = -1;
  si->last_compute = G_MAXUINT32;
  const SimHot *h0 = &sim->hot[r->src];
  for (guint32 j = 0; j < r->n; j++)
    {
      const SimHot *h = &h0[j];
      /* a compute task runs on its stage's compute stream (plan/program.c), the others
       * carry their (stage, stream); a unit is one stage's */
      g_assert (h->stage == h0->stage);
      guint32 stream = h->what < 0 ? PROG_STREAM_COMPUTE
                                   : h->slot - (guint32) h->stage * PROG_STREAM_N;
      if (on[stream] < 0)
        {
          on[stream] = (gint32) si->n_streams++;
          si->stream[on[stream]] = (guint8) stream;
          si->first[on[stream]] = j;
        }
      si->last[on[stream]] = j;
      if (h->what < 0)
        si->last_compute = j;
      if (h->recv)
        si->recv[si->n_recv++] = j;
      si->heads |= h->head;
    }
  return si;
}

#define STAMP_RECENT 4
typedef struct {
  GHashTable      *all;
  guint32          src[STAMP_RECENT];     /* G_MAXUINT32: empty */
  const StampInfo *info[STAMP_RECENT];
  guint            next;                  /* the entry replaced next */
} StampInfos;

static const StampInfo *
stamp_info (const Sim *sim, StampInfos *sc, const ProgStampRun *r)
{
  for (guint j = 0; j < STAMP_RECENT; j++)
    if (sc->src[j] == r->src)
      return sc->info[j];
  StampInfo *si = g_hash_table_lookup (sc->all, GUINT_TO_POINTER (r->src));
  if (si == NULL)
    {
      si = stamp_info_new (sim, r);
      g_hash_table_insert (sc->all, GUINT_TO_POINTER (r->src), si);
    }
  sc->src[sc->next] = r->src;
  sc->info[sc->next] = si;
  sc->next = (sc->next + 1) % STAMP_RECENT;
  return si;
}

/* dst[i] += src[i], i < n: four at a time where the compiler has vector types (-O2 does
 * not vectorize the loop) */
static inline void
add_u32 (guint32 *dst, const guint32 *src, guint32 n)
{
  guint32 i = 0;
#if defined(__GNUC__)
  typedef guint32 V4 __attribute__ ((vector_size (16)));
  for (; i + 4 <= n; i += 4)
    {
      V4 a, b;
      memcpy (&a, &dst[i], sizeof a);
      memcpy (&b, &src[i], sizeof b);
      a += b;
      memcpy (&dst[i], &a, sizeof a);
    }
#endif
  for (; i < n; i++)
    dst[i] += src[i];
}

/* program_setup's first loop over the tasks of a stamped unit `r` (plan/program.c), a
 * copy of its template's: each task's SimHot is its template task's (copied whole) but for
 * its stream links, which are the template's shifted within the unit, and the first task
 * of each stream, linked to the stream's last task before the unit and fused with it as
 * any task (program_setup); its dependencies are counted in their tasks' successors as
 * the template's are (StampInfo count: a sequential add in place of one scattered per
 * dependency). Done task by task, a loop over the unit that set each field and branched
 * on each task's stream and RECV cost 39 instructions a task; with setup_copies_succ's
 * loops over the template's lists rather than the tasks, program_setup went 10.1 -> 6.9 M
 * instructions a prediction (main job m256, callgrind). Returns the task after the
 * unit. */
static guint32
setup_copies (Sim *sim, const ProgStampRun *r, const StampInfo *si, guint32 *stream_last)
{
  const ProgProgram *prog = sim->prog;
  /* the arrays in locals: a byte stored through a SimHot (a char type, which may alias
   * anything) would make the compiler load them from *sim again for every task */
  SimHot *const hot = sim->hot;
  const guint32 first = r->first, n = r->n, src = r->src, shift = first - src;
  memcpy (&sim->what[first], &sim->what[src], n);
  /* the template's SimHot as set up (state 0: nothing has run yet) */
  memcpy (&hot[first], &hot[src], sizeof (SimHot) * n);
  add_u32 (&sim->succ_first[first + 1], si->count, n);
  /* a stream link within the template, shifted (four at a time: -O2 does not unroll);
   * the one out of it of each stream's last task (to a task after it, or none yet) is not
   * the copy's: none until a later task is linked to it. A template precedes its copies
   * on their stage's streams, so no copy heads a stream. */
  SimHot *const h = &hot[first];
  guint32 j = 0;
  for (; j + 4 <= n; j += 4)
    {
      h[j].next += shift;
      h[j + 1].next += shift;
      h[j + 2].next += shift;
      h[j + 3].next += shift;
    }
  for (; j < n; j++)
    h[j].next += shift;
  for (guint32 k = 0; k < si->n_streams; k++)
    h[si->last[k]].next = G_MAXUINT32;
  if (G_UNLIKELY (si->heads))
    for (j = 0; j < n; j++)
      h[j].head = 0;
  for (guint32 k = 0; k < si->n_recv; k++)
    {
      guint32 i = first + si->recv[k];
      sim->succ_first[prog_task (prog, i)->peer_task + 1]++;
      sim->ready_at[i] = 0;
    }
  const guint32 slot0 = (guint32) hot[first].stage * PROG_STREAM_N;
  for (guint32 k = 0; k < si->n_streams; k++)
    {
      const guint32 slot = slot0 + si->stream[k], i = first + si->first[k];
      const guint32 prev = stream_last[slot];
      const ProgTask *t = prog_task (prog, i);
      hot[prev].next = i;
      hot[i].fuse = stream_fuse (&hot[prev], &hot[i], prog_task_deps (prog, t), t->n_deps,
                                 prev);
      stream_last[slot] = first + si->last[k];
    }
  return first + n;
}

/* program_setup's second loop over the tasks of a stamped unit `r`: the successors are
 * filled in as for any task. The fusion decisions are the template's, which are final by
 * now (its tasks and their followers in it were reached), but for the two that reach out
 * of the unit: a communication stream's first task in the unit, fused with its
 * predecessor before it (setup_copies; and undone, where needed, when that predecessor
 * was reached), and the unit's last compute task, whose fusion with its successor
 * (SIM_FUSE_COMM) is decided where the stage's next compute task is reached. A compute
 * task's is the template's where that next task is in the unit too (the test reads the two
 * tasks, the first one's successor and the second one's dependencies, all in the unit,
 * and those of the template shifted); a communication task's follower in the unit keeps
 * the template's (its count and the task's successors are the template's). The unit's
 * first compute task decides for the stage's compute task before it, and each stream's
 * last task of the unit for its follower, as any task does (program_setup). Returns the
 * task after the unit. */
static guint32
setup_copies_succ (Sim *sim, const ProgStampRun *r, const StampInfo *si, guint32 *fill,
                   guint32 *last_compute)
{
  const ProgProgram *prog = sim->prog;
  SimHot *const hot = sim->hot;                /* in locals, as in setup_copies */
  guint32 *const succ = sim->succ;
  const guint32 *const succ_first = sim->succ_first;
  const guint32 first = r->first, n = r->n, end = first + n, src = r->src;
  /* the template's dependencies in task order, as the loop over tasks takes them (a
   * dependency at a time rather than a task and its descriptor's list) */
  guint32 *const fill_u = &fill[first];
  for (guint32 k = 0; k < si->n_deps; k++)
    succ[fill_u[si->dep[k]]++] = first + si->dep_of[k];
  for (guint32 k = 0; k < si->n_recv; k++)
    {
      guint32 i = first + si->recv[k];
      succ[fill[prog_task (prog, i)->peer_task]++] = i;
    }
  /* the template's decisions, but those of each communication stream's first task and
   * of the last compute task, kept */
  guint8 kept[PROG_STREAM_N + 1];
  for (guint32 k = 0; k < si->n_streams; k++)
    kept[k] = hot[first + si->first[k]].fuse;
  if (si->last_compute != G_MAXUINT32)
    kept[PROG_STREAM_N] = hot[first + si->last_compute].fuse;
  SimHot *const h = &hot[first];
  const SimHot *const from = &hot[src];
  guint32 j = 0;
  for (; j + 4 <= n; j += 4)
    {
      h[j].fuse = from[j].fuse;
      h[j + 1].fuse = from[j + 1].fuse;
      h[j + 2].fuse = from[j + 2].fuse;
      h[j + 3].fuse = from[j + 3].fuse;
    }
  for (; j < n; j++)
    h[j].fuse = from[j].fuse;
  for (guint32 k = 0; k < si->n_streams; k++)
    if (si->stream[k] != PROG_STREAM_COMPUTE)
      hot[first + si->first[k]].fuse = kept[k];
  if (si->last_compute != G_MAXUINT32)
    hot[first + si->last_compute].fuse = kept[PROG_STREAM_N];
  const guint32 slot0 = (guint32) hot[first].stage * PROG_STREAM_N;
  for (guint32 k = 0; k < si->n_streams; k++)
    {
      if (si->stream[k] == PROG_STREAM_COMPUTE)
        {
          /* the stage's compute task before the unit, decided where the unit's first is
           * reached (its successors are before the unit: none of the unit's tasks
           * depends on a task out of it) */
          const guint32 i = first + si->first[k];
          const ProgTask *t = prog_task (prog, i);
          const guint32 stage = slot0 / PROG_STREAM_N;
          fuse_comm_test (sim, fill, t, prog_task_deps (prog, t), last_compute[stage], i);
          last_compute[stage] = first + si->last_compute;
          continue;
        }
      /* the stream's follower after the unit (program_setup) */
      const guint32 i = first + si->last[k], x = hot[i].next;
      if (x != G_MAXUINT32 && hot[x].fuse != SIM_NO_FUSE
          && succ_first[i + 1] - succ_first[i] != hot[x].fuse)
        hot[x].fuse = SIM_NO_FUSE;
    }
  return end;
}

/* Sets up the whole program and starts what starts at time 0 (program_finish runs it). */
static void
program_setup (Sim *sim)
{
  const ProgProgram *prog = sim->prog;
  guint n = sim->n;
  int n_slots = prog->n_stages * PROG_STREAM_N;
  /* per task: successors (CSR: deps reversed, plus SEND -> RECV), stream order, cost */
  sim->succ_first = g_new0 (guint32, n + 1);
  /* hot and ready_at are filled below, field by field (zeroing them first cost a
   * twentieth of a prediction); times are written as tasks start and end */
  sim->hot = g_new (SimHot, n);
  sim->ready_at = g_new (double, n);
  util_advise_hugepages (sim->succ_first, sizeof (guint32) * (n + 1));
  util_advise_hugepages (sim->hot, sizeof (SimHot) * n);
  util_advise_hugepages (sim->ready_at, sizeof (double) * n);
  sim->what = g_new (gint8, n);
  sim->stream_first = g_new (guint32, n_slots);
  sim->block_s = g_new (SimDur, prog->blocks->len);
  for (guint i = 0; i < prog->blocks->len; i++)
    sim->block_s[i].s = -1;
  sim->coll_cache = g_array_new (FALSE, FALSE, sizeof (CollCache));
  sim->p2p_cache = g_array_new (FALSE, FALSE, sizeof (P2pCache));
  /* the SMs a collective's kernel holds, by [EP comm][collective][axis]: NCCL's channels
   * (sim_cost_coll_sms); the TP collectives the plan overlaps with their GEMMs run the
   * stack's kernels; the flex dispatcher's (DeepEP's normal kernels) keep ep_comm_sms.
   * A pipeline send holds none here, though NCCL runs it on its p2p channels (2 CTAs to a
   * peer over the network, 1.5% of an H100): the slowdown it gives depends on where the
   * sends fall in the compute, which in a pipeline with uneven stages shifts a little
   * every period, so the timeline never repeats exactly and the steady state
   * (sim/predict.c) cannot extend it (Llama-3 405B 7 + 14 x 8 + 7: 469,262 events in
   * place of 86,374); kept as the task's field takes it */
  const gboolean sms_known = sim->cost != NULL && sim_cost_sms_slowdown (sim->cost, 1) > 0;
  if (sms_known)
    {
      const gboolean flex = prog->moe.experts > 0 && prog->moe.dispatcher == PLAN_MOE_FLEX;
      for (int k = 0; k < PLAN_COLL_N; k++)
        for (int a = 0; a < PLAN_AXIS_N_GROUPS; a++)
          {
            int sms = sim_cost_coll_sms (sim->cost, (PlanColl) k, (PlanAxis) a,
                                         prog->plan.tp_comm_overlap);
            sim->coll_sms[0][k][a] = (guint16) MIN (sms, G_MAXUINT16);
            if (flex)
              sms = sim_cost_ep_sms (sim->cost);
            sim->coll_sms[1][k][a] = (guint16) MIN (sms, G_MAXUINT16);
          }
    }
  g_autofree guint32 *stream_last = g_new (guint32, n_slots);
  g_autoptr (GHashTable) stamp_all = g_hash_table_new_full (NULL, NULL, NULL,
                                                            stamp_info_free);
  StampInfos stamp_infos = { stamp_all, { 0 }, { NULL }, 0 };
  for (guint j = 0; j < STAMP_RECENT; j++)
    stamp_infos.src[j] = G_MAXUINT32;
  for (int i = 0; i < n_slots; i++)
    stream_last[i] = sim->stream_first[i] = G_MAXUINT32;
  /* the program's stamped units (plan/program.c): a copy's task i is its template's task
   * i - shift in everything set here but its stream links, so its costs and its fusion
   * with a stream predecessor within the unit are the template task's (its predecessor
   * before the unit is looked at as any task's): copied, not looked up again (the
   * look-ups and the fusion test were a third of this loop: bench-predict main job m16
   * 18.2 -> 17.2 M instructions; setup_copies); the run ahead, and where it begins */
  const ProgStampRun *runs = prog->stamps != NULL ? (const ProgStampRun *) (void *) prog->stamps->data
                                                  : NULL;
  const guint n_runs = prog->stamps != NULL ? prog->stamps->len : 0;
  guint run = 0;
  guint32 run_first = n_runs > 0 ? runs[0].first : G_MAXUINT32;
  /* each run's StampInfo, for the second loop */
  g_autofree const StampInfo **run_info = g_new (const StampInfo *, n_runs + 1);
  for (guint32 i = 0; i < n; i++)
    {
      if (G_UNLIKELY (i == run_first))
        {
          run_info[run] = stamp_info (sim, &stamp_infos, &runs[run]);
          i = setup_copies (sim, &runs[run], run_info[run], stream_last) - 1;
          run++;
          run_first = run < n_runs ? runs[run].first : G_MAXUINT32;
          continue;
        }
      const ProgTask *t = prog_task (prog, i);
      const guint32 *deps = prog_task_deps (prog, t);
      SimHot *h = &sim->hot[i];
      for (guint32 k = 0; k < t->n_deps; k++)
        sim->succ_first[deps[k] + 1]++;
      h->pending = (gint32) t->n_deps;
      h->state = 0;
      h->head = 0;
      h->recv = 0;
      if (t->kind == PROG_TASK_RECV)
        {
          sim->succ_first[t->peer_task + 1]++;
          h->pending++;
          h->recv = 1;
          sim->ready_at[i] = 0;
        }
      guint32 slot = (guint32) t->stage * PROG_STREAM_N + t->stream;
      h->next = G_MAXUINT32;
      h->stage = (guint16) t->stage;
      if (t->kind == PROG_TASK_COMPUTE)
        {
          const SimDur *d = block_cost (sim, t->block);
          h->what = -1;
          h->base_ps = d->ps;
          h->slow_ps = d->slow_ps;
          h->kernel = t->host_sync && sim->reissue_ps > 0;
        }
      else if (t->kind == PROG_TASK_COLL)
        {
          /* the collective's cost and SMs, one look-up */
          const CollCache *c = coll_cost (sim, t);
          h->base_ps = c->d.ps;
          h->slot = slot;
          h->stream_bit = (guint8) (1u << t->stream);
          h->what = (gint8) t->comm;
          h->kernel = c->d.s > 0;
          h->sms = c->sms[t->comm == PROG_COMM_EP];
        }
      else
        {
          const SimDur *d = task_base_duration (sim, t);
          h->base_ps = d->ps;
          h->slot = slot;
          h->stream_bit = (guint8) (1u << t->stream);
          h->sms = 0;
          if (t->kind == PROG_TASK_COPY)
            {
              /* a CPU offload copy runs on a copy engine: no SMs, not a kernel next to
               * which compute slows (its host-link rate is a few percent of HBM's) */
              h->what = (gint8) SIM_KIND_OFFLOAD;
              h->kernel = FALSE;
            }
          else
            {
              h->what = (gint8) t->comm;
              h->kernel = d->s > 0;
              /* a CPU host's pipeline send is its progress thread's copy, as a
               * collective's (sim_cost_coll_sms) */
              if (t->kind == PROG_TASK_SEND && h->kernel && sim->cost != NULL
                  && sim_cost_cpu_coll_slowdown (sim->cost) > 0)
                h->sms = 1;
            }
        }
      sim->what[i] = h->what < 0 ? -1 : kind_rank[h->what];
      /* a fusable chain (try_start): a communication task (not a RECV, whose start is the
       * SEND's) after one of the same kernel-ness; `fuse` holds its dependencies on that
       * one until the loop below checks that nothing else waits for it */
      h->fuse = SIM_NO_FUSE;
      guint32 prev = stream_last[slot];
      if (prev == G_MAXUINT32)
        {
          h->head = 1;
          sim->stream_first[slot] = i;
        }
      else
        {
          SimHot *ph = &sim->hot[prev];
          ph->next = i;
          h->fuse = stream_fuse (ph, h, deps, t->n_deps, prev);
        }
      stream_last[slot] = i;
    }
  for (guint32 i = 0; i < n; i++)
    sim->succ_first[i + 1] += sim->succ_first[i];
  sim->succ = g_new (guint32, sim->succ_first[n] + 1);
  util_advise_hugepages (sim->succ, sizeof (guint32) * (sim->succ_first[n] + 1));
  g_autofree guint32 *fill = g_memdup2 (sim->succ_first, sizeof (guint32) * (n + 1));
  /* per stage: its last compute task so far (G_MAXUINT32 none) */
  g_autofree guint32 *last_compute = g_new (guint32, prog->n_stages);
  for (int s = 0; s < prog->n_stages; s++)
    last_compute[s] = G_MAXUINT32;
  run = 0;
  run_first = n_runs > 0 ? runs[0].first : G_MAXUINT32;
  for (guint32 i = 0; i < n; i++)
    {
      if (G_UNLIKELY (i == run_first))
        {
          i = setup_copies_succ (sim, &runs[run], run_info[run], fill, last_compute) - 1;
          run++;
          run_first = run < n_runs ? runs[run].first : G_MAXUINT32;
          continue;
        }
      const ProgTask *t = prog_task (prog, i);
      const guint32 *deps = prog_task_deps (prog, t);
      for (guint32 k = 0; k < t->n_deps; k++)
        sim->succ[fill[deps[k]]++] = i;
      /* a compute task c whose completion can go without an event (SIM_FUSE_COMM): its
       * one successor x is a communication kernel of the same stage (not a RECV, whose
       * start is not the moment it is ready; that x waits for c alone try_start asks:
       * one dependency pending), and the next compute task of the stream (this one)
       * depends on a task of x's stream at or after x, so it cannot start before x ends
       * (x lasts > 0). Only compute tasks read the stage's state, and none starts there
       * between c's start and x's (every compute task runs on its stage's compute
       * stream: plan/program.c). Stage 0 keeps its events where sim_simulate_watched
       * pauses on them. Here x < i: c's successors are all filled in. */
      if (sim->hot[i].what < 0)
        {
          guint32 c = last_compute[t->stage];
          last_compute[t->stage] = i;
          fuse_comm_test (sim, fill, t, deps, c, i);
        }
      else
        {
          if (t->kind == PROG_TASK_RECV)
            sim->succ[fill[t->peer_task]++] = i;
          /* fusable only when the follower is this task's only successor (a compute
           * task's follower never chains: it follows communication only) */
          guint32 x = sim->hot[i].next;
          if (x != G_MAXUINT32 && sim->hot[x].fuse != SIM_NO_FUSE
              && sim->succ_first[i + 1] - sim->succ_first[i] != sim->hot[x].fuse)
            sim->hot[x].fuse = SIM_NO_FUSE;
        }
    }
  sim->comm_active = g_new0 (int, prog->n_stages);
  if (sms_known)
    {
      sim->run_end = g_new0 (SimTime, n_slots);
      sim->run_sms = g_new0 (guint32, n_slots);
      sim->run_task = g_new0 (guint32, n_slots);
      sim->run_mask = g_new0 (guint8, prog->n_stages);
    }
  sim->times = g_new (SimTaskTime, n);
  util_advise_hugepages (sim->times, sizeof (SimTaskTime) * n);

  /* every stream head with no dependency starts at time 0 */
  for (int slot = 0; slot < n_slots; slot++)
    if (sim->stream_first[slot] != G_MAXUINT32)
      {
        try_start (sim, sim->stream_first[slot], TRUE);
        heap_push_held (sim, TRUE);
      }
}

/* Runs the events to the end (from a pause too); FALSE with `error` when the program
 * deadlocks. */
static gboolean
program_finish (Sim *sim, GError **error)
{
  const ProgProgram *prog = sim->prog;
  guint n = sim->n;
  sim->stop_id = G_MAXUINT32;
  run_events (sim);
  if (sim->n_done == n)
    return TRUE;
  /* name a stuck task to help whoever wrote the schedule */
  guint32 stuck = 0;
  for (guint32 i = 0; i < n; i++)
    if (sim->hot[i].state != 2)
      {
        stuck = i;
        break;
      }
  const ProgTask *t = prog_task (prog, stuck);
  g_set_error (error, SIM_ERROR, SIM_ERROR_FAILED,
               "the step program deadlocked: %u of %u tasks finished; task %u (stage %d, "
               "stream %s, micro-batch %d, %s) never started",
               sim->n_done, n, stuck, t->stage, prog_stream_name (t->stream), t->mb,
               prog_phase_name (t->phase));
  return FALSE;
}

/* Sets up and runs the whole program; FALSE with `error` when it deadlocks. */
static gboolean
run_program (Sim *sim, GError **error)
{
  program_setup (sim);
  return program_finish (sim, error);
}

static void
sim_clear (Sim *sim)
{
  g_free (sim->heap);
  g_free (sim->wheap);
  g_free (sim->seq_task);
  g_free (sim->what);
  g_free (sim->hot);
  g_free (sim->ready_at);
  if (sim->coll_cache)
    g_array_free (sim->coll_cache, TRUE);
  if (sim->p2p_cache)
    g_array_free (sim->p2p_cache, TRUE);
  g_free (sim->succ_first);
  g_free (sim->succ);
  g_free (sim->stream_first);
  g_free (sim->block_s);
  g_free (sim->comm_active);
  g_free (sim->run_end);
  g_free (sim->run_sms);
  g_free (sim->run_task);
  g_free (sim->run_mask);
  g_free (sim->times);
}

/* Means over stages, overlap, throughput and MFU/HFU from the stages' figures. */
static void
aggregate (SimResult *res, const ProgProgram *prog, const TopoCluster *cluster,
           double tokens_per_step, double hw_flops_per_step)
{
  double step = res->step_time_s;
  double comm_total = 0, exposed_total = 0;
  for (int s = 0; s < prog->n_stages; s++)
    {
      SimStageStats *st = &res->stages[s];
      if (st->end_s >= res->stages[res->critical_stage].end_s)
        res->critical_stage = s;
      res->compute_s += st->compute_s / prog->n_stages;
      res->bubble_fraction += st->bubble_s / step / prog->n_stages;
      for (int k = 0; k < SIM_KINDS; k++)
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
  res->tokens_per_s = step > 0 ? tokens_per_step / step : 0;
  res->peak_flops = cluster->device.peak_flops[prog->gemm_dtype];
  for (int c = 0; c < MODEL_FLOPS_N_CONVENTIONS; c++)
    {
      double f = model_spec_flops_per_token (prog->model, (guint64) plan->seq_length, c);
      /* the MTP modules the plan trains, in the conventions whose form they have (Megatron's
       * num_floating_point_operations; the Megatron-Bridge table's DeepSeek-V3 rows count
       * about 260 GFLOP per token with one module, 249.7 without, data/published-runs.csv
       * rows 711 and 701) */
      if ((c == MODEL_FLOPS_MCORE || c == MODEL_FLOPS_CAUSAL) && plan->mtp_num_layers > 0
          && prog->model->mtp_layers > 0)
        f += model_spec_mtp_flops_per_token (prog->model, (guint64) plan->seq_length,
                                             c == MODEL_FLOPS_CAUSAL)
             * plan->mtp_num_layers / (double) prog->model->mtp_layers;
      f *= tokens_per_step;
      res->model_tflops_per_gpu[c] = step > 0 ? f / step / gpus / 1e12 : 0;
      res->mfu[c] = res->peak_flops > 0 ? res->model_tflops_per_gpu[c] * 1e12
                                          / res->peak_flops : 0;
    }
  res->hw_tflops_per_gpu = step > 0 ? hw_flops_per_step / step / gpus / 1e12 : 0;
  res->hfu = res->peak_flops > 0 ? res->hw_tflops_per_gpu * 1e12 / res->peak_flops : 0;
}

static void
sim_init (Sim *sim, const ProgProgram *prog, SimCost *cost, const PlanLayout *layout,
          const SimOptions *opts)
{
  memset (sim, 0, sizeof *sim);
  sim->prog = prog;
  sim->cost = cost;
  sim->opts = opts;
  sim->layout = layout;
  sim->n = prog->tasks->len;
  /* a CPU host applies it for the collective's span instead (sim_cost_cpu_coll_slowdown,
   * through the SMs' rule below) */
  sim->slowdown = cost != NULL && sim_cost_cpu_coll_slowdown (cost) > 0
                    ? 0.0 : opts->cost.comm_compute_slowdown;
  sim->reissue_ps = cost != NULL && opts->cost.pp_sync_reissue_s > 0
                      ? sim_time_from_s (opts->cost.pp_sync_reissue_s) : 0;
  sim->zero3 = zero3_program (sim);
  sim->held_id = G_MAXUINT32;
  sim->stop_id = G_MAXUINT32;
  /* narrow keys (heap_push): the fewest bits that hold the sequence numbers 0..n (a
   * task completes once) */
  sim->seq_bits = 1;
  while (sim->seq_bits < 32 && (G_GUINT64_CONSTANT (1) << sim->seq_bits) <= sim->n)
    sim->seq_bits++;
  sim->seq_mask = (G_GUINT64_CONSTANT (1) << sim->seq_bits) - 1;
  /* (wide from the start for a program of one stage: run_events) */
  sim->tlimit = sim->seq_mask >= sim->n && prog->n_stages > 1
                  ? G_GUINT64_CONSTANT (1) << (64 - sim->seq_bits) : 0;
  if (sim_key_window_log2 < 64)
    sim->tlimit = MIN (sim->tlimit, G_GUINT64_CONSTANT (1) << sim_key_window_log2);
  sim->seq_task = g_new (guint32, sim->n + 1);
}

/* Every simulation's set-up: the options (the cluster's defaults for NULL, kept in
 * `defaults`), the cost model built from them, the simulator state; returns the options
 * used. sim_close undoes it. */
static const SimOptions *
sim_open (Sim *sim, SimOptions *defaults, const ProgProgram *prog, const TopoCluster *cluster,
          const PlanLayout *layout, const SimOptions *opts)
{
  if (opts == NULL)
    {
      sim_options_init (defaults, cluster);
      opts = defaults;
    }
  sim_init (sim, prog, sim_cost_new (cluster, layout, &opts->cost), layout, opts);
  return opts;
}

static void
sim_close (Sim *sim)
{
  SimCost *cost = (SimCost *) sim->cost;
  sim_clear (sim);
  sim_cost_free (cost);
}

SimResult *
sim_simulate (const ProgProgram *prog, const TopoCluster *cluster, const PlanLayout *layout,
              const SimOptions *opts, GError **error)
{
  gint64 t0 = g_get_monotonic_time ();
  SimOptions defaults;
  Sim sim;
  opts = sim_open (&sim, &defaults, prog, cluster, layout, opts);
  gboolean ok = run_program (&sim, error);
  SimResult *res = NULL;
  if (ok)
    {
      res = plain_result (&sim, cluster);
      if (opts->keep_timeline)
        res->times = g_steal_pointer (&sim.times);
      res->sim_wall_s = (double) (g_get_monotonic_time () - t0) / 1e6;
    }
  sim_close (&sim);
  return res;
}

/* ---- the steady state -------------------------------------------------------------
 *
 * In the 1F1B part of a schedule each stage alternates forward and backward units, and
 * one period (q micro-batches: 1 for 1F1B, the group size N for the interleaved
 * schedule, whose units go through the chunks a group at a time) repeats the same tasks
 * in the same order with micro-batch indices raised by q: P = 2 q v units (slots). Once
 * the timeline of every stage repeats too, shifted by a constant T, it repeats for ever:
 * the simulation is a deterministic function of the state, and a state that is the
 * earlier one shifted in time and in micro-batch evolves into the earlier evolution
 * shifted (the periodic regime of a max-plus system). So a step of m = m' + d q
 * micro-batches is the step of m' with d more periods of length T at a time tau in that
 * regime: every time after tau moves by d T; compute and communication add d times a
 * period's; bubble and exposed communication add d times what accrues over [tau - T, tau).
 *
 * Found here, not assumed: on every stage each slot j from the first backward on is
 * compared with slot j + P task by task (kind, stream, block, collective, bytes, chunk,
 * layer, dependencies, micro-batch + q, duration, start + T). A run of matching slots
 * [j0, j1) admits tau where every task before slot j0 has ended by tau - T and every task
 * before j0 + P by tau, and no task from slot j1 on starts before tau - T nor from
 * j1 + P on before tau. Then the tasks running at tau - T are of the run and those at
 * tau are their copies, at the same times plus T, and so are the dependencies and the
 * kernels in flight of every task that starts from tau on: the step with one period more
 * runs as this one up to tau, and from tau as this one from tau - T, T later. Its tasks
 * are this step's that start before tau and those that start from tau - T on: one
 * period's work is what starts in [tau - T, tau). The run may start at any slot (the
 * pipeline settles a few units after the first backward) and need not span a period:
 * about one period and the few units that overlap in time, seen on every stage at once.
 * (Whole periods aligned on the first backward, compared before, needed about three.)
 *
 * The timeline's period may be several of the schedule's: a 1F1B pipeline whose middle
 * stages are the slowest settles into a period of c micro-batches (the cyclicity of its
 * critical circuits: 2 for 4 8 8 4 layers, 11 for Llama-3 405B's 7 + 14 x 8 + 7), its
 * units alternating between two or more timings. So c = 1, 2, ... schedule periods are
 * tried, each with the same check (P = 2 q c v slots, micro-batches raised by q c), and
 * the first that recurs and divides the micro-batches to add extends the step. */

typedef struct {
  guint32 j0, j1;          /* slots j0..j1 - 1 equal slots j0 + P..j1 + P - 1, shifted */
  double  tau_lo, tau_hi;  /* where tau may lie for this stage */
} SteadyRun;

/* Task x0 + i against y0 + i: the same duration, started `period` later, to the
 * picosecond. Times are whole picoseconds, and the delays and durations the simulator
 * computes in floating point are rounded to one (engine.c for costs, round_ps for the
 * delay of a kernel beside a collective that holds SMs), so a unit and its copy a period
 * later can start one picosecond apart, and the period, read from one pair of slots, can
 * carry that picosecond. One picosecond either way is rounding, two are not; the
 * tolerance sits between, clear of the error of the times' conversion to seconds (2e-14 s
 * at 100 s). With 1e-12 exactly, a difference of one
 * picosecond passed or failed by that conversion error: the main job's plan at V = 2
 * (Megatron's rank order, 256 micro-batches) failed on the step of 48 by 65 such unit
 * pairs and extended from the step of 64 (226,974 tasks simulated in all); it now extends
 * from the step of 48 (97,295), every figure equal to the full simulation's to 2e-13
 * (test-schedules /sim/schedules/main-job-v2-stack). */
static inline gboolean
time_shifted (const SimTaskTime *tx, const SimTaskTime *ty, double period)
{
  const double tol = 1.5e-12;
  return fabs ((ty->end_s - ty->start_s) - (tx->end_s - tx->start_s)) <= tol
         && fabs ((ty->start_s - tx->start_s) - period) <= tol;
}

static gboolean
tasks_shifted (const Sim *sim, guint32 x0, guint32 y0, guint32 len, int q, double period)
{
  const ProgProgram *p = sim->prog;
  /* the times first: a stretch that has not settled differs there, mostly at once, and
   * they are 16 bytes a task against the descriptors' 72 */
  for (guint32 i = 0; i < len; i++)
    if (!time_shifted (&sim->times[x0 + i], &sim->times[y0 + i], period))
      return FALSE;
  for (guint32 i = 0; i < len; i++)
    {
      const ProgTask *x = prog_task (p, x0 + i), *y = prog_task (p, y0 + i);
      if (x->kind != y->kind || x->stream != y->stream || x->phase != y->phase
          || x->chunk != y->chunk || x->layer != y->layer || x->block != y->block
          || x->coll != y->coll || x->axis != y->axis || x->n_deps != y->n_deps
          || x->peer_stage != y->peer_stage || x->bytes != y->bytes || x->role != y->role)
        return FALSE;
      if (x->mb >= 0 ? y->mb != x->mb + q : y->mb != x->mb)
        return FALSE;
    }
  return TRUE;
}

/* Slot j of stage st equals slot j + P (`slots`) shifted by q micro-batches and `period`
 * seconds; j + P + 1 <= n_slots. The first and last task's times are looked at first:
 * most slots that differ differ there. */
static gboolean
slot_shifted (const Sim *sim, const ProgStage *st, guint32 j, guint32 slots, int q,
              double period)
{
  guint32 x = st->slot_first[j], x1 = st->slot_first[j + 1];
  guint32 y = st->slot_first[j + slots], y1 = st->slot_first[j + slots + 1];
  if (x1 - x != y1 - y)
    return FALSE;
  if (x1 > x && (!time_shifted (&sim->times[x], &sim->times[y], period)
                 || !time_shifted (&sim->times[x1 - 1], &sim->times[y1 - 1], period)))
    return FALSE;
  return tasks_shifted (sim, x, y, x1 - x, q, period);
}

static guint32
first_backward_slot (const ProgProgram *p, const ProgStage *st)
{
  for (guint32 i = 0; i < st->n_slots; i++)
    if (prog_task (p, st->slot_first[i])->phase == PROG_PHASE_BACKWARD)
      return i;
  return st->n_slots;
}

/* The period T: the start of the latest slot of stage 0 that, with the slots before it,
 * `need` in all, equals its copy a period later, minus its own; -1 none. */
static double
period_from (const Sim *sim, int q, guint32 slots, guint32 need)
{
  const ProgProgram *p = sim->prog;
  const ProgStage *st = &p->stages[0];
  guint32 a = first_backward_slot (p, st);
  if (a >= st->n_slots || st->n_slots - a < slots + need)
    return -1;
  for (guint32 j = st->n_slots - slots - 1; j >= a + need - 1; j--)
    {
      double c = sim->times[st->slot_first[j + slots]].start_s
                 - sim->times[st->slot_first[j]].start_s;
      guint32 k = 0;
      while (c > 0 && k < need && slot_shifted (sim, st, j - k, slots, q, c))
        k++;
      if (k == need)
        return c;
    }
  return -1;
}

/* The period T, from a whole period of stage 0 (P slots, at most 8) that equals its copy
 * a period later. T is a candidate only: find_tau proves it (or not) on every stage.
 * Where P is at most 4 (1F1B's periods of one and two micro-batches) and no whole period
 * shows, P - 1 slots: on the shortest step tried (a 1F1B step of w0 + 3 micro-batches,
 * predict.c) the first stage's steady phase holds just a period and a slot, and the last
 * of those is not steady when the cool-down's first backward starts its communication
 * (the sequence-parallel re-gather of the input) beside that slot's last compute kernel,
 * which then runs on the SMs the gather leaves (Llama-3 70B TP8 PP4 m16: the embedding's
 * backward 51.1 -> 62.4 us). A period shown by fewer slots is rarer to be the timeline's;
 * find_tau rules out a wrong one. */
static double
find_period (const Sim *sim, int q, guint32 slots)
{
  guint32 need = MIN (slots, 8);
  double period = period_from (sim, q, slots, need);
  if (period < 0 && slots <= 4)
    period = period_from (sim, q, slots, slots - 1);
  return period;
}

/* Per stage, at each slot boundary j (0..n_slots): the latest end of the tasks before
 * slot j (eb) and the earliest start of the tasks from slot j on (sb; G_MAXDOUBLE when
 * none), which say where tau may lie for a run of shifted slots. */
typedef struct {
  double *eb, *sb;
  double  end;        /* the latest end of any task of the stage (0 for none) */
} SlotBounds;

static void
slot_bounds (const Sim *sim, const ProgStage *st, SlotBounds *b)
{
  guint32 ns = st->n_slots, end_task = st->first + st->n_tasks;
  b->eb = g_new (double, 2 * (ns + 1));
  b->sb = b->eb + ns + 1;
  /* one pass over the tasks for the latest end and the earliest start of each part (the
   * tasks before the first slot, each slot's, those after the last), then a prefix of the
   * ends and a suffix of the starts over the parts: a maximum or minimum picks one of
   * its operands, so taken by parts it is the one the running one over the tasks picks
   * (two passes over the tasks, a compare and a branch a task each, took 0.83 M
   * instructions a prediction of the main job at m256; one, with a maxsd and a minsd a
   * task, 0.47 M) */
  g_autofree double *part = g_new (double, 2 * (ns + 2));
  double *part_end = part, *part_start = part + ns + 2;
  guint32 i = st->first;
  for (guint32 j = 0; j <= ns + 1; j++)
    {
      guint32 until = j <= ns ? st->slot_first[j] : end_task;
      double e = 0, s = G_MAXDOUBLE;
      for (; i < until; i++)
        {
          e = MAX (e, sim->times[i].end_s);
          s = MIN (s, sim->times[i].start_s);
        }
      part_end[j] = e;
      part_start[j] = s;
    }
  double m = 0;
  for (guint32 j = 0; j <= ns; j++)
    {
      m = MAX (m, part_end[j]);
      b->eb[j] = m;
    }
  b->end = MAX (m, part_end[ns + 1]);
  m = G_MAXDOUBLE;
  for (guint32 j = ns + 1; j > 0; j--)
    {
      m = MIN (m, part_start[j]);
      b->sb[j - 1] = m;
    }
}

/* Where tau may lie for slots j0..j1 - 1 of a stage equal to their copies P (`slots`)
 * later (simulate.c's comment above): every task before slot j0 has ended by tau - T and
 * every task before j0 + P by tau; no task from slot j1 on starts before tau - T nor from
 * j1 + P on before tau. Both bounds grow with j0 and j1. */
static inline double
run_tau_lo (const SlotBounds *b, guint32 j0, guint32 slots, double period)
{
  return MAX (b->eb[j0] + period, b->eb[j0 + slots]);
}

static inline double
run_tau_hi (const SlotBounds *b, guint32 j1, guint32 slots, double period)
{
  return MIN (b->sb[j1] + period, b->sb[j1 + slots]);
}

/* The runs of shifted slots of stage s and where tau may lie for each. */
static GArray *
stage_runs (const Sim *sim, int s, int q, guint32 slots, double period, const SlotBounds *b)
{
  const ProgProgram *p = sim->prog;
  const ProgStage *st = &p->stages[s];
  GArray *runs = g_array_new (FALSE, FALSE, sizeof (SteadyRun));
  guint32 a = first_backward_slot (p, st);
  if (a >= st->n_slots || st->n_slots - a <= slots)
    return runs;
  guint32 nj = st->n_slots - slots;       /* slots a..nj - 1 have a copy */
  for (guint32 j0 = a; j0 < nj; )
    {
      if (!slot_shifted (sim, st, j0, slots, q, period))
        {
          j0++;
          continue;
        }
      guint32 j1 = j0 + 1;
      while (j1 < nj && slot_shifted (sim, st, j1, slots, q, period))
        j1++;
      /* slots j0..j1 - 1 equal their copies */
      SteadyRun run = { j0, j1, run_tau_lo (b, j0, slots, period),
                        run_tau_hi (b, j1, slots, period) };
      if (run.tau_lo <= run.tau_hi)
        g_array_append_val (runs, run);
      j0 = j1;
    }
  return runs;
}

/* TRUE when one of `runs` admits tau = cand. */
static gboolean
runs_admit (const GArray *runs, double cand)
{
  for (guint r = 0; r < runs->len; r++)
    {
      const SteadyRun *run = &g_array_index (runs, SteadyRun, r);
      if (run->tau_lo <= cand && cand <= run->tau_hi)
        return TRUE;
    }
  return FALSE;
}

/* TRUE when stage s surely admits tau = cand, from the few slots around cand - T alone
 * rather than every slot's copy (stage_runs): j0, the last slot whose lower bound allows
 * cand, and j1, the first whose upper bound does (at least j0 + 1). When the slots
 * j0..j1 - 1 all equal their copies, the maximal run that holds them has a lower bound no
 * later and an upper bound no earlier (both grow with the slot), so it admits cand.
 * FALSE says only "not shown": the caller then asks stage_runs. */
static gboolean
window_admits (const Sim *sim, int s, int q, guint32 slots, double period,
               const SlotBounds *b, double cand)
{
  const ProgProgram *p = sim->prog;
  const ProgStage *st = &p->stages[s];
  guint32 a = first_backward_slot (p, st);
  if (a >= st->n_slots || st->n_slots - a <= slots)
    return FALSE;
  guint32 nj = st->n_slots - slots;
  if (run_tau_lo (b, a, slots, period) > cand)
    return FALSE;
  /* the last j0 in a..nj - 1 with run_tau_lo <= cand, by bisection */
  guint32 lo = a, hi = nj;                 /* lo satisfies, hi does not (or is nj) */
  while (hi - lo > 1)
    {
      guint32 mid = lo + (hi - lo) / 2;
      if (run_tau_lo (b, mid, slots, period) <= cand)
        lo = mid;
      else
        hi = mid;
    }
  guint32 j0 = lo, j1 = j0 + 1;
  while (j1 < nj && run_tau_hi (b, j1, slots, period) < cand)
    j1++;
  if (run_tau_hi (b, j1, slots, period) < cand)
    return FALSE;
  for (guint32 j = j0; j < j1; j++)
    if (!slot_shifted (sim, st, j, slots, q, period))
      return FALSE;
  return TRUE;
}

/* The result of the simulated step itself, as sim_simulate gives it. */
static SimResult *
plain_result (Sim *sim, const TopoCluster *cluster)
{
  const ProgProgram *prog = sim->prog;
  SimResult *res = g_new0 (SimResult, 1);
  res->n_events = sim->n_done;
  res->n_fired = sim->n_fired;
  res->n_stages = prog->n_stages;
  res->n_tasks = sim->n;
  res->stages = g_new0 (SimStageStats, prog->n_stages);
  /* the step ends with the last task, the latest of the stages' ends (every task is on a
   * stage's stream): known after the sweeps, which leave the wait until then to here */
  double step = 0;
  g_autofree double *last = g_new (double, prog->n_stages);
  for (int s = 0; s < prog->n_stages; s++)
    {
      last[s] = stage_stats (prog, sim->times, sim->what, sim->hot, sim->stream_first, s, -1,
                             &res->stages[s], NULL, NULL);
      step = MAX (step, res->stages[s].end_s);
    }
  res->step_time_s = step;
  for (int s = 0; s < prog->n_stages; s++)
    if (step > last[s])
      res->stages[s].bubble_s += step - last[s];
  aggregate (res, prog, cluster, prog->tokens_per_step, prog->hw_flops_per_step);
  return res;
}

/* tau for the period of `q` micro-batches (`slots` units per stage, T = `period`): the
 * latest candidate (the lower bound of a run) of the first stage that has one every stage
 * admits; -1 none. The candidates' stage has every run found; another stage is first asked
 * about the few slots around the candidate (window_admits), and only where that does not
 * show it, about all its runs: the same tau as from every stage's runs, at a fraction of
 * the comparisons. */
static double
find_tau (const Sim *sim, int q, guint32 slots, double period, const SlotBounds *bounds)
{
  int n_st = sim->prog->n_stages;
  GArray **runs = g_new0 (GArray *, n_st);
  double tau = -1;
  for (int s0 = 0; s0 < n_st && tau < 0; s0++)
    {
      if (runs[s0] == NULL)
        runs[s0] = stage_runs (sim, s0, q, slots, period, &bounds[s0]);
      for (guint r0 = runs[s0]->len; r0 > 0 && tau < 0; r0--)
        {
          double cand = g_array_index (runs[s0], SteadyRun, r0 - 1).tau_lo;
          gboolean all = TRUE;
          for (int s = 0; s < n_st && all; s++)
            {
              if (runs[s] == NULL
                  && window_admits (sim, s, q, slots, period, &bounds[s], cand))
                continue;
              if (runs[s] == NULL)
                runs[s] = stage_runs (sim, s, q, slots, period, &bounds[s]);
              all = runs_admit (runs[s], cand);
            }
          if (all)
            tau = cand;
        }
    }
  for (int s = 0; s < n_st; s++)
    if (runs[s])
      g_array_free (runs[s], TRUE);
  g_free (runs);
  return tau;
}

/* How early the window of one period, [tau - T, tau), is taken on a stage (its tasks
 * i_lo..i_hi - 1 that start near it): half a picosecond, where no task starts within a
 * few picoseconds of either end; else the first
 * of a few larger shifts that leaves both ends in a gap. Periodic tasks repeat within the
 * picosecond of rounding the check allows (time_shifted), so a task beside a boundary
 * may start a picosecond before tau - T while its copy starts at tau: counted in neither
 * window. A ZeRO-3 all-gather on the first stage of GPT-3 175B at pp 16 (256 micro-batches)
 * did so, 4.8 ms a period short: that stage's DP busy time read 28.655 s, the full
 * simulation 29.665 s (audit of 6 Dec). */
#define WINDOW_SHIFT_MAX_S 2e-6   /* beyond the largest shift and its jitter */

static double
window_shift (const Sim *sim, guint32 i_lo, guint32 i_hi, double tau, double period)
{
  const double ps = 1.0 / (double) SIM_TIME_PS_PER_S;
  static const double shifts_ps[] = { 0.5, 100.5, 1000.5, 10000.5, 100000.5, 1000000.5 };
  const double jitter = 8 * ps;
  for (guint k = 0; k < G_N_ELEMENTS (shifts_ps); k++)
    {
      const double e = shifts_ps[k] * ps;
      const double b0 = tau - period - e, b1 = tau - e;
      gboolean clear = TRUE;
      for (guint32 i = i_lo; i < i_hi && clear; i++)
        {
          const double t = sim->times[i].start_s;
          clear = fabs (t - b0) > jitter && fabs (t - b1) > jitter;
        }
      if (clear)
        return e;
    }
  return 0.5 * ps;
}

/* The step of m' micro-batches that `sim` ran, with d periods of T more, inserted at tau
 * (the comment above). */
static SimResult *
extended_result (Sim *sim, const SlotBounds *bounds, int extra_periods, double period,
                 double tau, double tokens_per_step, const TopoCluster *cluster)
{
  const ProgProgram *prog = sim->prog;
  int n_st = prog->n_stages;
  double d = extra_periods, step = 0;
  for (int s = 0; s < n_st; s++)
    step = MAX (step, bounds[s].end);
  SimResult *res = g_new0 (SimResult, 1);
  res->n_events = sim->n_done;
  res->n_fired = sim->n_fired;
  res->n_stages = n_st;
  res->stages = g_new0 (SimStageStats, n_st);
  res->step_time_s = step + d * period;
  res->n_tasks = sim->n;
  res->steady_periods = extra_periods;
  res->steady_period_s = period;
  double hw_step = 0;
  for (int s = 0; s < n_st; s++)
    {
      const ProgStage *st = &prog->stages[s];
      SimStageStats *ss = &res->stages[s];
      double snap_t[2] = { tau - period, tau };
      double snap[2][SIM_KINDS + 1];
      stage_stats (prog, sim->times, sim->what, sim->hot, sim->stream_first, s, step, ss,
                   snap_t, snap);
      /* one period's work: the stage's tasks that start in [tau - T, tau); times are
       * whole picoseconds, and tasks often start at tau itself: compared a little early
       * (window_shift) */
      double compute = 0, comm[SIM_KINDS] = { 0 }, mf = 0, hf = 0;
      guint32 per_period = 0;
      /* only the slots whose tasks may start in that range or beside its ends (the
       * widest window window_shift may take): from the last slot before which every task
       * ended before it (the stage's first task when there is none: tasks come before the
       * first slot), to the first from which every task starts after it */
      const double wide_from = tau - period - WINDOW_SHIFT_MAX_S;
      const double wide_until = tau + WINDOW_SHIFT_MAX_S;
      const SlotBounds *b = &bounds[s];
      guint32 jlo = 0, jhi = st->n_slots + 1;
      while (jlo + 1 <= st->n_slots && b->eb[jlo + 1] < wide_from)
        jlo++;
      while (jhi > jlo + 1 && b->sb[jhi - 1] >= wide_until)
        jhi--;
      guint32 i_lo = b->eb[jlo] < wide_from ? st->slot_first[jlo] : st->first;
      guint32 i_hi = jhi <= st->n_slots ? st->slot_first[jhi] : st->first + st->n_tasks;
      const double early = window_shift (sim, i_lo, i_hi, tau, period);
      const double from = tau - period - early, until = tau - early;
      for (guint32 i = i_lo; i < i_hi; i++)
        {
          const SimTaskTime *tt = &sim->times[i];
          if (tt->start_s < from || tt->start_s >= until)
            continue;
          double dur = tt->end_s - tt->start_s;
          const ProgTask *t = prog_task (prog, i);
          if (dur > 0)
            {
              if (sim->what[i] < 0)
                compute += dur;
              else
                comm[charge_order[sim->what[i]]] += dur;
            }
          mf += t->model_flops;
          hf += t->hw_flops;
          per_period++;
        }
      ss->end_s += d * period;
      ss->compute_s += d * compute;
      for (int k = 0; k < SIM_KINDS; k++)
        {
          ss->comm_s[k] += d * comm[k];
          ss->exposed_s[k] += d * (snap[1][k] - snap[0][k]);
        }
      ss->bubble_s += d * (snap[1][SIM_KINDS] - snap[0][SIM_KINDS]);
      ss->model_flops += d * mf;
      ss->hw_flops += d * hf;
      hw_step += ss->hw_flops;
      res->n_tasks += (guint) extra_periods * per_period;
    }
  const Plan *plan = &prog->plan;
  aggregate (res, prog, cluster, tokens_per_step,
             hw_step * plan->tp * plan->cp * plan->dp);
  return res;
}

SimResult *
sim_simulate_extended (const ProgProgram *prog, int extra_mb, int period_mb, int max_multiple,
                       int *cyclicity, double tokens_per_step, const TopoCluster *cluster,
                       const PlanLayout *layout, const SimOptions *opts, GError **error)
{
  gint64 t0 = g_get_monotonic_time ();
  g_return_val_if_fail (extra_mb > 0 && period_mb > 0 && max_multiple > 0, NULL);
  if (cyclicity)
    *cyclicity = 0;
  SimOptions defaults;
  Sim sim;
  opts = sim_open (&sim, &defaults, prog, cluster, layout, opts);
  SimResult *res = NULL;
  int n_st = prog->n_stages;
  SlotBounds *bounds = NULL;
  if (!run_program (&sim, error))
    goto out;

  /* periods of c schedule periods, c = 1, 2, ...: the first that recurs on every stage
   * and divides the micro-batches to add extends the step. Those c are tried first: a c
   * that does not divide cannot extend, and asking whether it recurs costs every stage's
   * runs (find_tau) where it does not (a 1F1B pipeline with a period of 11 shows one of
   * c = 1..10 on stage 0 alone: 10 x 16 stages' runs). Only where none extends are the
   * others asked, for the smallest c that recurs (the timeline's cyclicity), in the same
   * order, so `cyclicity` is the one a single pass over every c would give. */
  for (int pass = 0; pass < 2 && res == NULL; pass++)
    for (int c = 1; c <= max_multiple && res == NULL; c++)
      {
        int qc = period_mb * c;
        gboolean divides = extra_mb % qc == 0;
        if (pass == 0 ? !divides
                      : divides || cyclicity == NULL || *cyclicity != 0)
          continue;
        guint32 slots = 2u * (guint32) qc * (guint32) MAX (prog->plan.vpp, 1);
        /* the period, from the latest period of stage 0 that repeats */
        double period = find_period (&sim, qc, slots);
        if (period <= 0)
          continue;
        if (bounds == NULL)
          {
            bounds = g_new0 (SlotBounds, n_st);
            for (int s = 0; s < n_st; s++)
              slot_bounds (&sim, &prog->stages[s], &bounds[s]);
          }
        double tau = find_tau (&sim, qc, slots, period, bounds);
        if (tau < 0)
          continue;
        if (cyclicity && (*cyclicity == 0 || c < *cyclicity))
          *cyclicity = c;
        if (!divides)
          break;                   /* pass 1: the smallest that recurs */
        res = extended_result (&sim, bounds, extra_mb / qc, period, tau, tokens_per_step,
                               cluster);
        res->sim_wall_s = (double) (g_get_monotonic_time () - t0) / 1e6;
      }

out:
  if (bounds)
    for (int s = 0; s < n_st; s++)
      g_free (bounds[s].eb);
  g_free (bounds);
  sim_close (&sim);
  return res;
}

/* ---- watching the whole step for a period ------------------------------------------
 *
 * Where the shorter steps that predict.c tries first show no period (a pipeline that
 * settles late), the whole step is simulated, and looked at on the way: when the first
 * stage has finished 1/16, 2/16, ... 6/16 of its units, the finished part of the timeline is
 * checked for a period of c = 1, 2, ... micro-batches on every stage (its last P + 4
 * finished units equal their copies P units earlier, shifted by one T). Where one shows,
 * `probe` (the caller's) tries the steady-state path on a step of m'' micro-batches,
 * m'' = m (mod c), long enough to hold the settled stretch; that try is exact on its own
 * (sim_simulate_extended checks everything again), and where it extends, the whole step's
 * simulation stops there. Else the whole step runs on: the look costs a few comparisons,
 * not a simulation. */

/* The finished prefix of stage st's units: the first unit, from `from` on, with a task not
 * done. A task fused into a communication chain is marked done (with its final times)
 * when the chain starts, and a kernel whose completion a compute task absorbs when that
 * compute starts (try_start). */
static guint32
done_slots (const Sim *sim, const ProgStage *st, guint32 from)
{
  for (guint32 j = from; j < st->n_slots; j++)
    for (guint32 x = st->slot_first[j]; x < st->slot_first[j + 1]; x++)
      if (sim->hot[x].state != 2)
        return j;
  return st->n_slots;
}

/* The smallest c <= max_multiple for which the last P + 4 finished units of every stage
 * (P = 2 c units: 1F1B) equal their copies P units earlier shifted by c micro-batches and
 * one period T (stage 0's); 0 none. *need_mb: the micro-batches a step needs for every
 * stage's steady phase to hold its settled stretch (from the first unit that equals its
 * copy, back from the end) and two periods more, with eight units to spare. */
static int
watch_cyclicity (const Sim *sim, const guint32 *done, int max_multiple, int *need_mb)
{
  const ProgProgram *p = sim->prog;
  int n_st = p->n_stages;
  for (int c = 1; c <= max_multiple; c++)
    {
      guint32 P = 2u * (guint32) c, L = P + 4;
      const ProgStage *st0 = &p->stages[0];
      guint32 a0 = first_backward_slot (p, st0);
      if (done[0] < a0 + P + L + 1)
        continue;
      double T = sim->times[st0->slot_first[done[0] - 1]].start_s
                 - sim->times[st0->slot_first[done[0] - 1 - P]].start_s;
      if (!(T > 0))
        continue;
      gboolean ok = TRUE;
      int need = 0;
      for (int s = 0; s < n_st && ok; s++)
        {
          const ProgStage *st = &p->stages[s];
          guint32 a = first_backward_slot (p, st), js = done[s];
          if (js < a + P + L)
            {
              ok = FALSE;
              break;
            }
          for (guint32 j = js - P - L; j < js - P && ok; j++)
            ok = slot_shifted (sim, st, j, P, c, T);
          if (!ok)
            break;
          guint32 from = js - P - L;
          while (from > a && slot_shifted (sim, st, from - 1, P, c, T))
            from--;
          /* stage s's steady phase in a step of m'' ends where its cool-down's
           * pp - 1 - s backward units begin: 2 m'' - (pp - 1 - s) */
          int units = (int) from + 2 * (int) P + 8 + (n_st - 1 - s);
          need = MAX (need, (units + 1) / 2);
        }
      if (ok)
        {
          *need_mb = need;
          return c;
        }
    }
  return 0;
}

SimResult *
sim_simulate_watched (const ProgProgram *prog, int max_multiple, SimSteadyProbe probe,
                      gpointer data, const TopoCluster *cluster, const PlanLayout *layout,
                      const SimOptions *opts, GError **error)
{
  gint64 t0 = g_get_monotonic_time ();
  SimOptions defaults;
  Sim sim;
  opts = sim_open (&sim, &defaults, prog, cluster, layout, opts);
  sim.watched = TRUE;
  program_setup (&sim);
  int n_st = prog->n_stages, m = prog->plan.grad_accum, tries = 0;
  guint32 *done = g_new0 (guint32, n_st);
  const ProgStage *st0 = &prog->stages[0];
  SimResult *res = NULL;
  gboolean failed = FALSE;
  for (int sixteenth = 1; sixteenth <= 6 && probe != NULL && tries < 2; sixteenth++)
    {
      guint32 J = (guint32) (2 * (gint64) m * sixteenth / 16);
      if (J < 1 || J >= st0->n_slots)
        break;
      /* pause after the last compute task of stage 0's unit J - 1 (a compute task has
       * its own completion event) */
      guint32 stop = G_MAXUINT32;
      for (guint32 x = st0->slot_first[J]; x > st0->slot_first[J - 1]; x--)
        if (prog_task (prog, x - 1)->kind == PROG_TASK_COMPUTE)
          {
            stop = x - 1;
            break;
          }
      if (stop == G_MAXUINT32 || sim.hot[stop].state == 2)
        continue;
      sim.stop_id = stop;
      run_events (&sim);
      if (sim.hot[stop].state != 2)
        break;                                  /* stuck: program_finish says so */
      for (int s = 0; s < n_st; s++)
        done[s] = done_slots (&sim, &prog->stages[s], done[s]);
      int need = 0;
      int c = watch_cyclicity (&sim, done, max_multiple, &need);
      if (c == 0)
        continue;
      tries++;
      res = probe (c, need, sixteenth / 16.0, data, error);
      if (res != NULL)
        {
          /* what was simulated: the shorter step and the whole step up to here */
          res->n_events += sim.n_done;
          res->n_fired += sim.n_fired;
          res->sim_wall_s = (double) (g_get_monotonic_time () - t0) / 1e6;
          break;
        }
      if (error && *error)
        {
          failed = TRUE;
          break;
        }
    }
  if (res == NULL && !failed)
    {
      if (program_finish (&sim, error))
        {
          res = plain_result (&sim, cluster);
          res->sim_wall_s = (double) (g_get_monotonic_time () - t0) / 1e6;
        }
    }
  g_free (done);
  sim_close (&sim);
  return res;
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
