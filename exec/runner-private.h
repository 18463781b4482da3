/* exec/runner-private.h - what the runner's files share: the stage's parameters in
 * buckets, the per-(micro-batch, chunk) activation state, per-task records.
 *
 *   runner.c          bootstrap: checks, groups, parameters and buckets, options
 *   runner-state.c    buffers, data, units (activations of one micro-batch and chunk)
 *   runner-task.c     the interpreter: dependencies, collectives, pipeline transfers
 *   runner-block.c    the compute blocks and the optimizer step
 *   runner-measure.c  steps, waits, timing, gathering to rank 0, statistics
 *   runner-moe.c      mixture-of-experts layers: expert parameters, the MoE tasks
 *
 * Memory. Every float and int array below that a kernel, GEMM or collective reads lives
 * in an ExecBuffer: device memory on the cuda backend, which the host must not touch.
 * The host reaches it only through buffer_upload (weights, tokens, positions: filled in
 * host arrays first) and buffer_download (losses and the first step's gradients, at the
 * end of the step), and changes it otherwise only through the kernel table (copy, fill,
 * add). Pointers into buffers are only offset, never dereferenced on the host;
 * tests/exec/test-run-devsim.c checks this with buffers the host cannot read. */
#pragma once

#include "exec/runner.h"
#include "exec/moe.h"

/* ---- parameters ------------------------------------------------------------------------ */

enum { SEG_EMBED, SEG_LAYER, SEG_HEAD, SEG_EXPERT };   /* SEG_EXPERT: runner-moe.c */

/* A parameter tensor group of the stage, a slice of the flat arrays. */
typedef struct {
  int    kind;              /* SEG_* */
  int    layer;             /* SEG_LAYER: global layer index */
  int    chunk;             /* virtual chunk holding it */
  gsize  off, n;            /* floats in params / grads */
  gsize  norm_off[3];       /* weights replicated over TP, relative to off: the norms */
  gsize  norm_len[3];       /* (C floats each) and an MoE layer's router at tp > 1 */
  int    n_norm;            /* 2 for a layer, 1 for the head (final norm), 0 embedding */
  int    bucket;
} RunSeg;

/* What one DP reduction (or, with ZeRO-3, one layer's shard) covers. */
typedef struct {
  gsize      off, n, n_pad;   /* range in the flat arrays; n_pad a multiple of the group */
  int        chunk, first_layer;
  int        seg0, n_segs;
  gboolean   sharded;         /* ZeRO: this rank owns piece `shard_rank` of n_pad / K */
  gboolean   gathered;        /* its ZeRO-1/2 parameter all-gather was issued this step */
  float     *gshard;          /* sharded: the reduced gradient of the owned piece */
  float     *gtmp;            /* ZeRO-3: the latest per-micro-batch reduce-scatter */
  ExecEvent *rs_done;         /* ZeRO-3: that reduce-scatter, not yet folded (or NULL) */
  ExecEvent *ag_done;         /* parameter all-gather posted this step, not waited (or NULL) */
  float     *m, *v;           /* AdamW moments of the owned piece */
  gboolean   expert;          /* routed experts' weights: reduced over EDP, not DP */
  int        ssize, srank;    /* sharded: the group it is sharded over (DP x CP, or EDP for
                               * experts) and this rank's piece */
} RunBucket;

/* ---- activations ----------------------------------------------------------------------- */

typedef struct {
  ExecBuffer  *buf;           /* x_attn; NULL when not held */
  ExecBuffer  *act_buf;       /* x_mlp and the activations; NULL when not held */
  float       *x_attn, *x_mlp;  /* inputs of the two blocks, kept for backward: (N, C), or
                                 * with SP the (N_sp, C) sequence shard (runner_sp) */
  ExecAttnActs attn;
  ExecMlpActs  mlp;
  /* an MoE layer (runner-moe.c): in act_buf after the MLP's, route sizes on the host */
  ExecMoeActs  moe;
  float       *moe_scratch;
  ExecMoeRoute route;
  int         *route_mem;     /* host; NULL when not held */
  int          moe_a2a;       /* the next all-to-all: 0 dispatch, 1 combine */
  float       *moe_out;       /* forward: the layer output the combine wrote (or NULL) */
  gboolean     moe_shared_done;   /* forward: the shared experts have run */
} RunLayerActs;

enum { LAST_NONE, LAST_ATTN, LAST_MLP };

/* The state of one (micro-batch, chunk) on this stage, from its first forward task to its
 * last backward task. */
typedef struct {
  int           mb, chunk, first, n;   /* layers first .. first + n - 1 */
  int          *tokens, *targets;      /* N each: the micro-batch's rows of r->tok */
  RunLayerActs *layers;
  ExecBuffer   *buf;
  float        *h, *h_rc;              /* (N_sp, C): residual stream shard, recompute copy */
  float        *partial;               /* (N, C): a block's output before the TP reduction */
  float        *out, *rc_out;          /* (N, C): the chunk's output (head input / send) */
  float        *dh;                    /* (N_sp, C): gradient shard */
  float        *dfull, *dpartial;      /* (N, C): block input gradient, block dx */
  float        *scratch;               /* the largest backward scratch of the blocks */
  float        *datt, *dq, *delta;     /* split attention backward (CP) */
  float        *dkv;                   /* (2 N kvd): own dK, dV after the CP exchange */
  ExecBuffer   *head_buf;
  ExecHeadActs  head;
  float        *lse_part, *tgt_part;   /* (N) each, adjacent: gathered together over TP */
  float        *gathered;              /* (tp, 2, N) */
  float        *lse_parts, *tgt_sum, *lse;   /* (tp, N), (N), (N); losses: r->loss_rec */
  int           fwd_last, fwd_last_layer;   /* LAST_*: the last forward block run */
  int           rc_last, rc_layer;          /* the same for the recompute of rc_layer */
  struct RunTaskState *retired_by;          /* the task that retired it (NULL: not yet, or
                                             * retired on an error path) */
  ExecEvent    *parked_ev;                  /* the forward's end: the work buffers (buf) go
                                             * when it has completed (NULL: not parked) */
  ExecBuffer   *bnd_buf;                    /* the forward's boundary activation (bnd),  */
  float        *bnd;                        /* copied out of the work buffers to be sent */
  ExecEvent    *bnd_ev;                     /* that send (bnd goes when it completes) */
} RunUnit;

/* ---- per-task records ------------------------------------------------------------------ */

/* Times of one task in one step, seconds from the step start; what is gathered. */
enum {
  REC_START, REC_END,
  REC_GAP0, REC_GAP1,                   /* host waits inside a compute task (-1 none) */
  REC_WAIT,                             /* waits spread through it: taken off its end */
  REC_X0S, REC_X0E, REC_X0K,            /* extra interval 0: start, end, kind (-1 none) */
  REC_X1S, REC_X1E, REC_X1K,
  REC_N,
};

typedef struct RunTaskState {
  ExecEvent *start, *end, *done;  /* done: what dependants wait for */
  ExecSample first, last;         /* communication: first and last operation */
  ExecSample extra[2];
  int        extra_kind[2];       /* ProgCommKind, -1 none */
  double     gap[2];              /* host waits on communication inside a compute task */
  double     wait_s;              /* ... and waits spread through it (ring attention) */
  gboolean   issued;
} RunTaskState;

/* ---- the runner ------------------------------------------------------------------------ */

struct ExecRunner {
  ExecBackend       *b;
  const ProgProgram *prog;
  const ModelSpec   *model;
  const Plan        *plan;
  const PlanLayout  *layout;
  ExecRunOptions     opts;
  ExecRunResult      result;

  /* where this rank sits */
  int rank, world, stage, tp, tp_rank, cp, cp_rank, dp_rank, pp;
  guint32 first_task, n_tasks;
  ExecLayerShape shape;
  int N, N_sp, qd, kvd;           /* tokens per micro-batch, per SP shard; q/kv widths */
  int *pos;                       /* (T) global positions of this CP rank's tokens */
  int **pos_of;                   /* (cp, T): of every CP rank, rows of pos_buf */
  ExecBuffer *pos_buf;            /* cp x T ints, uploaded once */
  float dloss;                    /* 1 / tokens of the global batch */

  /* streams, groups (NULL for a group of one) */
  ExecStream *streams[PROG_STREAM_N + 1];   /* + one for the world's collectives */
  ExecStream *compute;
  ExecGroup  *groups[PLAN_AXIS_N_GROUPS];
  ExecGroup  *world_group;
  PlanAxis    grad_axis;          /* DP or CP x DP: where gradients are summed */
  int         shard_size, shard_rank;  /* of the grad group (ZeRO pieces) */

  /* parameters */
  GArray     *segs;               /* RunSeg */
  GArray     *buckets;            /* RunBucket, in program order of their reductions */
  int        *layer_seg;          /* global layer -> seg, -1 when not on this stage */
  int         embed_seg, head_seg;
  ExecBuffer *param_buf, *grad_buf, *opt_buf, *norm_buf;
  float      *norm_pack;          /* held norm-weight gradients, packed for the TP sum */
  gsize       n_norm_held;
  float      *params, *grads;
  gsize       n_params;           /* floats, padded */
  gboolean    tied;               /* head reads the embedding (pp = 1 only) */
  gboolean    zero12, zero3;

  /* sequence parallelism: the gathered inputs of the attention [0] and MLP [1] blocks
   * (the layers keep only their sequence shards; the backward re-gathers them, program.c
   * ProgRole) and the norm output the blocks recompute from them */
  ExecBuffer *sp_buf;
  float      *xg[2], *xnorm;

  /* CP exchange buffers */
  ExecBuffer *cp_buf;
  float      *kv[2], *dkv_c, *inbox[2], *sb[2], *kv_all, *dkv_all;
  ExecEvent  *pass_ev[4];         /* K/V passes [0, 1], dK/dV passes [2, 3] */
  RunTaskState *ring_ts;          /* the ring task whose passes the core posts */
  const ProgTask *ring_task;
  ExecEvent  *xev;                /* waits on extra collectives */
  ExecEvent  *cev;                /* compute before an extra collective (cuda stream order) */
  gboolean   *recomputed;         /* per global layer: fully recomputed in backward */
  guint       next_reduction;     /* bucket of the next gradient reduction task */
  guint       next_ereduction;    /* ... of the next expert (EDP) reduction task */
  guint       n_dense_buckets;    /* buckets [0, n) dense, the rest expert buckets */

  /* mixture of experts (runner-moe.c); pmoe.experts 0 for a dense model */
  PlanMoe       pmoe;
  ExecMoeShape  moe_shape;
  ExecEvent    *moe_ev;
  int          *expert_seg;       /* global layer -> SEG_EXPERT seg, -1 when none here */

  /* per step */
  RunUnit   **units;              /* grad_accum x vpp, NULL when not live */
  GPtrArray  *retired;            /* RunUnit * retired: freed when their last task is done */
  GPtrArray  *parked;             /* RunUnit * between forward and backward: their work
                                   * buffers go when the forward's last task is done */
  GPtrArray  *sending;            /* RunUnit * whose boundary send is in flight */
  RunTaskState *ts;               /* n_tasks */
  int         step;
  double      t0;                 /* step start, backend clock */
  double      loss_sum;           /* this rank's share of the step's token losses */
  double      grad_ss;            /* this rank's share of the squared gradient norm */
  ExecBuffer *tok_buf;            /* the step's data: per micro-batch N tokens, N targets */
  int        *tok;                /* grad_accum x 2 N ints, uploaded at each step's start */
  ExecBuffer *loss_buf;           /* the head's token losses of the step, in head order */
  float      *loss_rec;           /* loss_cap x N floats; NULL off the head's stage */
  int         n_loss, loss_cap;   /* rows written this step; rows held */
  gboolean    grads_kept;         /* step 0: gradients kept until the step's end (norm) */
  ExecBuffer *wg_buf;             /* world all-gathers between steps (device memory) */
  gsize       wg_doubles;
  ExecEvent  *mark;               /* a scratch event for reading the clock */

  /* gathered per timed step: REC_N doubles per task, plus the step end */
  double     *recs;               /* steps x (1 + n_tasks x REC_N) */
  /* per timed step, SHARE_N doubles: the share of a core this rank's compute thread got
   * while runnable (exec_sched_share of /proc/thread-self/schedstat over the step; 0
   * unknown), then over its compute tasks only (runner_task_run, not the waits for
   * their dependencies): time on a CPU, time runnable but waiting, times put on a CPU,
   * and per task i with w_i on a CPU and D_i waiting: sum D_i^2, sum D_i w_i, sum w_i^2
   * (the spread of the waits from task to task, sim/cost-cpu.c term 4) */
  double     *shares;
  double      compute_sched[6];   /* this step's compute tasks so far (the last six) */
  gboolean    compute_sched_ok;
  gsize       alloc_now, alloc_peak;
  GPtrArray  *pool;               /* ExecBuffer * released, for reuse (runner_alloc) */
};

#define SHARE_N 7

/* runner.c */
/* The piece of a bucket this rank updates: [lo, lo + n) of the flat arrays. TRUE when the
 * bucket is sharded (its reduced gradient is then bk->gshard, else grads + bk->off). */
gboolean runner_bucket_owned (const ExecRunner *r, const RunBucket *bk, gsize *lo, gsize *n);
/* Calls fn on each run of norm-weight gradients in what this rank holds after the
 * reductions (full buckets or owned pieces), in bucket order. */
typedef void (*RunNormFn) (float *g, gsize n, gpointer data);
void     runner_held_norms (ExecRunner *r, RunNormFn fn, gpointer data);
/* The same for one bucket; `held` replaces the bucket's held gradient (a host copy of
 * its [lo, lo + n) range) when non-NULL. */
void     runner_bucket_norms (ExecRunner *r, RunBucket *bk, float *held, RunNormFn fn,
                              gpointer data);
/* Where the bucket's held gradient is: its buffer and the first float. */
ExecBuffer *runner_bucket_held (ExecRunner *r, RunBucket *bk, float **held);

/* runner-state.c */
/* Host <-> buffer copies of `bytes` at `dev`, a pointer into `buf` (checked against it). */
gboolean runner_upload     (ExecRunner *r, ExecBuffer *buf, void *dev, const void *src,
                            gsize bytes, GError **error);
gboolean runner_download   (ExecRunner *r, const ExecBuffer *buf, const void *dev, void *dst,
                            gsize bytes, GError **error);
/* The step's tokens and targets into r->tok (every micro-batch of this DP rank). */
gboolean runner_data_upload (ExecRunner *r, GError **error);
float   *runner_alloc      (ExecRunner *r, gsize n_floats, ExecBuffer **handle, GError **error);
void     runner_release    (ExecRunner *r, ExecBuffer **handle);
void     runner_pool_free  (ExecRunner *r);   /* frees the pooled buffers */
RunUnit *runner_unit       (ExecRunner *r, int mb, int chunk, GError **error);
void     runner_unit_retire (ExecRunner *r, RunUnit *u, RunTaskState *by);
void     runner_unit_park   (ExecRunner *r, RunUnit *u, ExecEvent *ended);
float   *runner_unit_boundary (ExecRunner *r, RunUnit *u, gsize count, GError **error);
void     runner_unit_sending  (ExecRunner *r, RunUnit *u, ExecEvent *sent);
void     runner_units_free (ExecRunner *r);
gboolean runner_layer_hold (ExecRunner *r, RunUnit *u, int layer, GError **error);
void     runner_layer_drop (ExecRunner *r, RunUnit *u, int layer, gboolean keep_input);
RunLayerActs *runner_layer (RunUnit *u, int layer);
void     runner_weights    (ExecRunner *r, int layer, ExecLayerWeights *w, ExecLayerWeights *g);
int      runner_token      (const ExecRunner *r, int step, int sequence, int position);

/* runner-block.c */
enum { TAG_KV = 1, TAG_DKV = 2 };   /* CP ring messages; PP uses the SEND's id mod 32768 */
gboolean   runner_sp            (const ExecRunner *r);   /* sequence parallelism in force */
/* Member index, in the group of `axis`, of the rank whose `axis` coordinate is `coord`
 * and whose other coordinates are this rank's. */
int        runner_member_of     (ExecRunner *r, PlanAxis axis, int coord);
RunBucket *runner_bucket_of_seg (ExecRunner *r, int seg);
void       runner_rc_begin      (RunUnit *u, int layer);
/* The full input of the block after block `kind` (LAST_*) of `layer`. */
float     *runner_next_input    (ExecRunner *r, RunUnit *u, int kind, int layer, gboolean rc,
                                 GError **error);
/* Posts one CP ring pass (send to the next CP rank, receive from the previous) and
 * records pass_ev[ev] after it. */
gboolean   runner_pass_post     (ExecRunner *r, const float *send, float *recv, int tag, int ev,
                                 ExecSample *sample, GError **error);
gboolean   runner_task_compute  (ExecRunner *r, const ProgTask *t, RunTaskState *ts,
                                 GError **error);
gboolean   runner_optimizer     (ExecRunner *r, const ProgTask *t, RunTaskState *ts,
                                 GError **error);
/* After the step: the first step's gradient norm from the kept gradients (host copies),
 * then the gradients cleared for the next step. */
gboolean   runner_grad_norm     (ExecRunner *r, GError **error);

/* runner-task.c */
gboolean runner_task_run   (ExecRunner *r, guint32 local, GError **error);

/* runner-moe.c */
gboolean runner_moe_layer       (const ExecRunner *r, int layer);
gboolean runner_moe_init        (ExecRunner *r, GError **error);   /* after the groups */
gsize    runner_moe_dense_size  (const ExecRunner *r);   /* router + shared experts */
gsize    runner_moe_router_size (const ExecRunner *r);
gsize    runner_moe_expert_size (const ExecRunner *r);
void     runner_moe_weights     (ExecRunner *r, int layer, ExecMoeWeights *w,
                                 ExecMoeWeights *g);
/* host copies of the router (E, C) and this rank's experts of `layer` (either NULL) */
void     runner_moe_fill        (ExecRunner *r, int layer, float *router, float *experts);
gsize    runner_moe_acts_size   (const ExecRunner *r);
void     runner_moe_acts_bind   (ExecRunner *r, RunLayerActs *L, float *mem);
void     runner_moe_acts_drop   (RunLayerActs *L);
/* MOE_ROUTE, MOE_EXPERTS, MOE_COMBINE; *out: the block output of a forward combine */
gboolean runner_moe_block       (ExecRunner *r, const ProgTask *t, const ProgBlock *blk,
                                 RunUnit *u, RunLayerActs *L, gboolean add_residual,
                                 float **out, GError **error);
/* an EP all-to-all task */
gboolean runner_moe_coll        (ExecRunner *r, const ProgTask *t, RunTaskState *ts,
                                 GError **error);

/* runner-measure.c */
double   runner_now        (ExecRunner *r);
/* Waits for `ev` on behalf of task `t` (NULL: the end of the step): the done event of
 * task `on`, or (on NULL) what `what` names, communicated over `axis` (-1: unknown).
 * Gives up after opts.timeout_s or when *opts.interrupted is set (EXEC_ERROR_TIMEOUT). */
gboolean runner_wait       (ExecRunner *r, ExecEvent *ev, const ProgTask *t,
                            const ProgTask *on, const char *what, int axis, GError **error);
/* Publishes that this rank starts task t (exec_progress_note). */
void     runner_progress_note (ExecRunner *r, const ProgTask *t);
/* `bytes` of host memory for a transient the step needs (a bucket's gradients read back,
 * the recorded losses), or NULL with EXEC_ERROR_MEMORY ("does not fit", exit 3): g_new
 * aborted under a memory limit (ulimit -v, a cgroup) with SIGTRAP, and the run was left
 * to be found dead. */
void *runner_host_try_alloc (gsize bytes, const char *what, GError **error);

/* "SIGINT", "SIGTERM", "SIGHUP" or "a signal": the value *opts.interrupted holds. */
const char *runner_signal_name (int sig);
/* TRUE, with "rank R: interrupted by SIGTERM before task T (...), in step S" in *error,
 * when *opts.interrupted is set: checked before each task. */
gboolean runner_interrupted (ExecRunner *r, const ProgTask *t, GError **error);
gboolean runner_post       (ExecRunner *r, ProgStream stream, ExecGroup *g, const ExecColl *op,
                            ExecSample *sample, GError **error);
/* all[world x n] = every rank's `mine` (n doubles), in rank order. */
gboolean runner_world_gather (ExecRunner *r, const double *mine, gsize n, double *all,
                              GError **error);
gboolean runner_steps      (ExecRunner *r, GError **error);
