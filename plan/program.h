/* plan/program.h - the step program: the contract that pairs prediction and execution.
 *
 * Contract (DESIGN.md section 3):
 *  - Built once from (ModelSpec, resolved Plan, PlanLayout). sim/ schedules its tasks on
 *    modelled resources; exec/ runs the same tasks on real streams. Nothing in it is
 *    specific to the simulator: durations are not stored here.
 *  - One representative rank per pipeline stage (all ranks of a stage run the same
 *    program). Stage s holds tasks[stages[s].first .. + stages[s].n_tasks].
 *  - A task runs on one stream of its stage. Tasks of a stream run one at a time in the
 *    order they appear in the stage's task list (the schedule decides that order); a
 *    task starts when it is first in its stream and all its dependencies have finished.
 *  - Dependencies are global task indices; the only cross-stage dependency is a RECV on
 *    its matching SEND (`peer_task`).
 *  - Compute tasks point at a ProgBlock: a short list of ops already split for one rank
 *    (TP/CP/SP divisions applied), shared by all tasks of the same shape.
 *  - FLOPs per task are per rank: model FLOPs (forward + backward of the model, no
 *    recompute, causal attention halved) and hardware FLOPs (what the GPU executes,
 *    recompute included). Sums over a stage give MFU/HFU numerators.
 *
 * Mixture-of-experts layers (ProgProgram.moe.experts > 0; plan_moe_layer says which
 * layers): the MLP of such a layer is, per micro-batch (T = moe.tokens tokens on this
 * rank, k = moe.top_k, h = hidden, e = activation bytes):
 *   forward   MOE_ROUTE                pre-MLP norm, router GEMM [T, h] x [h, E], softmax
 *                                      and top-k, permutation of the T k routed copies
 *             COLL ALL_TO_ALL  ep/EP   dispatch: bytes = T k h e x pace (alltoall, flex);
 *                                      allgather dispatcher: ALL_GATHER over EXPT of
 *                                      T h e x |EXPT| instead
 *             COLL ALL_GATHER  ep/ETP  with etp > 1 (alltoall, flex): the received
 *                                      tokens gathered over the expert TP group,
 *                                      bytes = etp x T k h e x pace
 *             MOE_EXPERTS              the local experts' GEMMs (up/gate, activation,
 *                                      down) as grouped GEMM ops (a GEMM op with b > 1 is
 *                                      b GEMMs of m x n x k: b experts of m tokens each)
 *             COLL REDUCE_SCATTER ep/ETP  mirror of the gather (etp > 1)
 *             COLL ALL_TO_ALL  ep/EP   combine: the same bytes as the dispatch
 *                                      (allgather dispatcher: REDUCE_SCATTER over EXPT)
 *             MOE_COMBINE              unpermute, weighted sum of the k outputs, residual
 *             MOE_SHARED (+TP AG/RS)   the shared expert(s) when the model has them: after
 *                                      MOE_ROUTE, during the dispatch, with
 *                                      --moe-shared-expert-overlap; else after MOE_COMBINE
 *   backward  the mirror: MOE_COMBINE, all-to-all, [reduce-scatter ETP ... ] experts,
 *             all-to-all, MOE_ROUTE (each phase BACKWARD, the blocks' backward ops).
 * CPU activation offload (plan.cpu_offload_layers N > 0, Megatron-Core --cpu-offloading
 * through Transformer Engine's cpu_offload.py, OffloadSynchronizer with its default
 * synchronization for N of the L layers of the stage): per micro-batch, layers 0 .. N-1
 * of the chunk are offloaded, each as PROG_TASK_COPY tasks on PROG_STREAM_HOST (one
 * stream for both directions: TE's single offload_stream), of the layer's stored
 * activations (plan_memory_layer_activations total):
 *   forward   D2H of layer i after layer i's forward (fwd_step before layer i + 1 starts
 *             it); the forward of layer L - N + i waits for it (finish_offload_map: the
 *             compute stream waits for the copy, then the device copy is freed)
 *   backward  H2D of layer i issued before the backward of layer L - 1 - N + i, after the
 *             compute issued so far (start_reload_map: offload_stream.wait_stream of the
 *             current stream); the backward of layer i waits for it (bwd_step waits on
 *             finish_reload_events).
 * All MoE collectives run on PROG_STREAM_EP with comm PROG_COMM_EP; `pace` = imbalance:
 * the busiest EP rank receives that much more than the mean (over its local experts) and
 * sets the pace. Expert gradients are reduced
 * over PLAN_AXIS_EDP (DP stream, comm DP), dense ones over DP (x CP) as before. */
#pragma once

#include <glib.h>
#include "models/model.h"
#include "plan/plan.h"
#include "plan/layout.h"
#include "plan/collective.h"
#include "plan/memory.h"

G_BEGIN_DECLS

typedef enum {
  PROG_STREAM_COMPUTE,
  PROG_STREAM_TP,
  PROG_STREAM_CP,
  PROG_STREAM_DP,       /* gradient reduce-scatter / all-reduce, parameter all-gather */
  PROG_STREAM_PP_SEND,  /* point-to-point sends to neighbouring stages */
  PROG_STREAM_PP_RECV,
  PROG_STREAM_EP,       /* MoE token dispatch / combine (all-to-all, ETP gather/scatter) */
  PROG_STREAM_HOST,     /* CPU offload copies between the device and host memory */
  PROG_STREAM_N,
} ProgStream;

/* Communication kinds, as reported (exposed communication by kind). */
typedef enum {
  PROG_COMM_TP,
  PROG_COMM_CP,
  PROG_COMM_PP,
  PROG_COMM_DP,
  PROG_COMM_EP,         /* MoE dispatch and combine (same order as results' RES_COMM_*) */
  PROG_COMM_N,
} ProgCommKind;

typedef enum {
  PROG_TASK_COMPUTE,
  PROG_TASK_COLL,
  PROG_TASK_SEND,
  PROG_TASK_RECV,
  PROG_TASK_COPY,       /* a copy over the host link on a copy engine (PROG_STREAM_HOST):
                         * phase FORWARD device to host, BACKWARD host to device; `bytes` */
} ProgTaskKind;

/* What a TP all-gather in the backward gathers, where the kind alone does not say. */
typedef enum {
  PROG_ROLE_NONE,
  /* with sequence parallelism the backward re-gathers a block's input from the sequence
   * shards its forward kept (Korthikanti et al. 2022 section 4.2.2: Megatron stores the
   * shard, not the gathered tensor, and all-gathers it again for the weight gradient) */
  PROG_ROLE_REGATHER_ATTN,
  PROG_ROLE_REGATHER_MLP,
} ProgRole;

typedef enum {
  PROG_PHASE_FORWARD,
  PROG_PHASE_BACKWARD,
  PROG_PHASE_RECOMPUTE,
  PROG_PHASE_OPTIMIZER,
} ProgPhase;

/* What a compute block is, for the engine's math and for traces. */
typedef enum {
  PROG_BLOCK_EMBED,        /* token embedding lookup (first stage) */
  PROG_BLOCK_ATTN,         /* norm, QKV, rotary, attention core, out proj, residual */
  PROG_BLOCK_ATTN_PRE,     /* with CP: norm, QKV, rotary */
  PROG_BLOCK_ATTN_CORE,    /* with CP: the attention core (flash) */
  PROG_BLOCK_ATTN_POST,    /* with CP: out proj, residual */
  PROG_BLOCK_MLP,          /* norm, up/gate, activation, down, residual */
  PROG_BLOCK_HEAD,         /* final norm, logits, loss (last stage) */
  PROG_BLOCK_OPTIMIZER,    /* AdamW over the rank's parameter shard */
  PROG_BLOCK_MOE_ROUTE,    /* MoE: pre-MLP norm, router, top-k, permutation */
  PROG_BLOCK_MOE_EXPERTS,  /* MoE: the local experts' grouped GEMMs and activation */
  PROG_BLOCK_MOE_COMBINE,  /* MoE: unpermutation, weighted sum over top-k, residual */
  PROG_BLOCK_MOE_SHARED,   /* MoE: the shared expert(s), a dense MLP without norm */
  PROG_BLOCK_GRAD_ACCUM,   /* FSDP2: a layer's unsharded gradients upcast to or added
                            * into their fp32 sum after a micro-batch's backward */
} ProgBlockKind;

typedef struct {
  ProgBlockKind kind;
  ProgPhase     phase;
  guint         first_op;    /* into ProgProgram.ops */
  guint         n_ops;
  double        model_flops; /* per rank */
  double        hw_flops;    /* per rank */
  const char   *name;        /* "attn_fwd", "mlp_bwd", ... (static) */
} ProgBlock;

typedef struct {
  guint32      id;          /* index in ProgProgram.tasks */
  guint8       kind;        /* ProgTaskKind */
  guint8       stream;      /* ProgStream */
  guint8       phase;       /* ProgPhase */
  guint8       comm;        /* ProgCommKind for COLL/SEND/RECV */
  guint8       coll;        /* PlanColl for COLL */
  guint8       axis;        /* PlanAxis for COLL */
  guint8       role;        /* ProgRole for COLL */
  guint8       host_sync;   /* 1: the host issues this task after a device synchronize
                             * (plan.h pp_p2p_sync): the first compute task of a unit after
                             * a synchronized exchange; the device idles from the end of
                             * its last dependency until the host issues it */
  gint16       stage;
  gint16       chunk;       /* virtual chunk (model chunk = chunk * pp + stage) */
  gint16       layer;       /* global layer index, -1 for embedding/head/optimizer */
  gint16       peer_stage;  /* SEND/RECV (stages are at most the 4,096-layer model cap) */
  /* micro-batch, -1 for per-step tasks: 32 bits, as a step holds up to
   * PLAN_MAX_MICROBATCHES = 65,536 of them (16 bits wrapped past 32,767, and a full
   * simulation wrote outside its send table) */
  gint32       mb;
  guint32      block;       /* COMPUTE: index into blocks */
  guint32      dep_first;   /* into deps */
  guint32      n_deps;
  gint32       peer_task;   /* RECV: the matching SEND's id; SEND: the RECV's id */
  double       bytes;       /* COLL/SEND/RECV: nccl-tests size per rank */
  double       model_flops; /* per rank */
  double       hw_flops;    /* per rank */
} ProgTask;

typedef struct {
  guint32 first;            /* first task of the stage */
  guint32 n_tasks;
  /* the schedule's compute units in order: unit i's tasks start at slot_first[i] (with
   * any work issued between units, e.g. an overlapped bucket reduction, counted in the
   * unit before); slot_first[n_slots] is where the step's tail (reductions, optimizer)
   * starts. Slots are ProgSlot order: the steady-state fast path compares them. */
  guint32 n_slots;
  guint32 *slot_first;
  int     layers;
  double  model_flops;      /* per rank, whole step */
  double  hw_flops;
} ProgStage;

/* The MoE shape of a program, per rank (experts 0: dense). */
typedef struct {
  int     experts;          /* routed experts E */
  int     local_experts;    /* E / ep on this rank */
  int     top_k;
  int     ep, etp;
  PlanMoeDispatcher dispatcher;
  PlanMoeFlexBackend flex_backend;
  guint64 tokens;           /* T: tokens entering an MoE layer on this rank per micro-batch
                             * (b s / cp, / tp with sequence parallelism) */
  double  expert_tokens;    /* routed token copies reaching this rank's experts, mean:
                             * etp T k (over local_experts experts) */
  double  busiest_tokens;   /* one local expert's on the busiest rank: pace x
                             * expert_tokens / local_experts */
  double  imbalance;        /* busiest rank / mean, after the capacity factor */
  double  pace;             /* = imbalance: the busiest rank's share over the mean */
  guint64 expert_ffn;       /* one expert's inner size on this rank (/ etp) */
  guint64 shared_ffn;       /* shared experts' inner size on this rank (/ tp); 0 none */
  int     first_dense;      /* leading dense layers */
} ProgMoe;

/* A unit copied from its template (program.c, stamped units): tasks first .. first + n - 1
 * are tasks src .. src + n - 1 shifted (ids, dependencies, micro-batch, pipeline keys),
 * the same in every other field. */
typedef struct {
  guint32 first, n, src;
} ProgStampRun;

typedef struct {
  /* inputs, referenced */
  ModelSpec   *model;       /* ref held */
  Plan         plan;        /* copy */
  int          n_stages;
  ProgStage   *stages;
  GArray      *tasks;       /* ProgTask */
  GArray      *deps;        /* guint32 task ids */
  GArray      *blocks;      /* ProgBlock */
  GArray      *ops;         /* ModelOp, split for one rank */
  TopoDtype    compute_dtype;  /* tensors and non-GEMM math */
  TopoDtype    gemm_dtype;     /* the GEMMs' math: compute_dtype, or TF32 / BF16 for fp32
                                * tensors under the plan's fp32_matmul */
  ProgMoe      moe;
  int          zero3_calls;   /* collectives one ZeRO-3 layer gather or gradient
                               * reduce-scatter is issued as: the layer's parameter tensors
                               * with plan.zero3_per_tensor, else 1 */
  guint        stamped_units; /* units copied from a template (program.c) rather than
                               * expanded */
  GArray      *stamps;        /* ProgStampRun per unit copied, in task order */
  /* whole-step totals over all GPUs, for MFU/HFU */
  double       tokens_per_step;
  double       hw_flops_per_step;
} ProgProgram;

/* One schedule fills, for one stage, the order of its compute units. */
typedef struct {
  guint8  backward;   /* 0 forward, 1 backward */
  guint8  w;          /* zero-bubble weight-gradient split (DualPipe, sched-dualpipe.c): 0 a
                       * whole unit; 1 a backward computing input gradients only, its
                       * weight gradients deferred; 2 (with backward 1) the deferred weight
                       * gradients of the oldest such backward of the stage (a FIFO) */
  gint16  chunk;
  gint32  mb;         /* up to PLAN_MAX_MICROBATCHES - 1: more than 16 bits hold */
} ProgSlot;

typedef struct {
  const char  *name;        /* PyTorch's spelling */
  PlanSchedule id;
  const char  *about;
  /* Appends the slots of `stage` (0..pp-1) for m micro-batches and v chunks; the
   * interleaved schedule takes `group` micro-batches through a chunk at a time. */
  void (*build) (int pp, int v, int m, int group, int stage, GArray *slots);
} ProgSchedOps;

extern const ProgSchedOps prog_sched_gpipe;
extern const ProgSchedOps prog_sched_1f1b;
extern const ProgSchedOps prog_sched_interleaved;
extern const ProgSchedOps prog_sched_dualpipe;
const ProgSchedOps *prog_sched_lookup (PlanSchedule id);

ProgProgram *prog_program_new  (const ModelSpec *model, const Plan *plan,
                                const PlanLayout *layout, GError **error);
void         prog_program_free (ProgProgram *prog);
/* PyTorch FSDP1's gradient pre-divide factor for a reduction over n ranks (plan.h
 * zero2_reduce_passes) */
int          prog_fsdp_predivide_factor (int n);

static inline const ProgTask *
prog_task (const ProgProgram *p, guint32 id)
{
  return &g_array_index (p->tasks, ProgTask, id);
}
static inline const guint32 *
prog_task_deps (const ProgProgram *p, const ProgTask *t)
{
  return &g_array_index (p->deps, guint32, t->dep_first);
}
static inline const ProgBlock *
prog_block (const ProgProgram *p, guint32 id)
{
  return &g_array_index (p->blocks, ProgBlock, id);
}

/* When a task ran (predicted or measured), seconds from the start of the step. */
typedef struct {
  double start_s, end_s;
} ProgTaskTime;

/* Chrome Trace Event JSON (object form) of a timeline, which ui.perfetto.dev opens: one
 * process per rank (`stage_rank[s]` is the rank shown for stage s, NULL = stage index),
 * one named thread per stream, flow arrows from each pipeline SEND to its RECV. Written to
 * a temporary file and renamed, so a reader never sees half a trace. `label` names the
 * timeline ("predicted", "measured"). */
gboolean prog_trace_write (const ProgProgram *p, const ProgTaskTime *times,
                           const int *stage_rank, const char *label, const char *path,
                           GError **error);

/* The same, with a counter track per stage of its memory over the step ("memory GiB":
 * "activations" and "total"), from `mem` (plan_memory_compute of the program's plan;
 * NULL = no counters). */
gboolean prog_trace_write_memory (const ProgProgram *p, const ProgTaskTime *times,
                                  const int *stage_rank, const char *label,
                                  const PlanMemory *mem, const char *path, GError **error);

/* The text prog_trace_write writes (no memory counters), for a caller that writes it
 * with other files (a report's timeline.json); `len` (may be NULL) gets its length. */
char    *prog_trace_to_data (const ProgProgram *p, const ProgTaskTime *times,
                             const int *stage_rank, const char *label, gsize *len);

/* One trace of two timelines of the same plan, measured and predicted, to overlay them:
 * two processes per rank, "rank r measured" (pid 2r) and "rank r predicted" (pid 2r + 1),
 * side by side; flow arrows stay within their timeline. */
gboolean prog_trace_write_merged (const ProgProgram *measured,
                                  const ProgTaskTime *measured_times,
                                  const ProgProgram *predicted,
                                  const ProgTaskTime *predicted_times,
                                  const int *stage_rank, const char *path, GError **error);

const char *prog_stream_name (ProgStream s);   /* "compute", "tp", ... */
const char *prog_comm_name   (ProgCommKind k); /* "tp", "cp", "pp", "dp", "ep" */
const char *prog_phase_name  (ProgPhase p);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProgProgram, prog_program_free)

G_END_DECLS
