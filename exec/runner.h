/* exec/runner.h - the execution engine's runner: this rank's part of the step program,
 * task by task, with real math, timed.
 *
 * Contract:
 *  - One runner per (program, layout) on an opened backend. Every rank of the layout's
 *    world creates its runner with the same program and layout, in the same order (the
 *    runner creates the backend groups it needs, collectively). A `local` runner
 *    (ExecRunOptions.local) has a world-of-one layout and communicates with nobody: it is
 *    the single-rank reference of --verify, run on one rank of a larger world.
 *  - The rank takes its coordinates from the layout (plan_layout_coord_of) and walks its
 *    pipeline stage's tasks in program order: COMPUTE tasks run the block (embedding,
 *    attention or its CP pieces, MLP, head with the loss, AdamW) on the (micro-batch,
 *    chunk, layer) state; COLL, SEND and RECV tasks post the collective or transfer on
 *    the stream of their kind, on the group of their axis; a task first waits (events)
 *    for its dependencies. The program lists the TP collectives around the embedding and
 *    the head (runner-task.c places their buffers), and with sequence parallelism the
 *    backward's re-gathers of block inputs (ProgRole): layers keep sequence shards of
 *    their inputs, and the norm outputs are recomputed from the re-gathered inputs.
 *    A micro-batch holds its work buffers only while its forward or backward runs, and
 *    returns them once the task ending that phase is done (runner-state.c). Collectives the math needs and the
 *    program omits (the vocab-parallel loss's all-gather of 2 floats per token, the TP
 *    sum of norm-weight gradients, and with ZeRO-3 the DP sum of the embedding and head
 *    gradients) are added inside the task that needs them and timed as extra intervals
 *    of kind tp or dp.
 *  - Any backend with a kernel table runs it (cpu, cuda). Its state lives in the backend's
 *    buffers (device memory on cuda), which the host fills and reads only through
 *    buffer_upload and buffer_download, at set points: weights at creation, each step's
 *    tokens before its clock starts, the losses and the first step's gradients after
 *    its end. Storage and communication are fp32; GEMMs are fp32 on the CPU and take the
 *    cuda kernel table's math there (tandem run asks for BF16 tensor-core products).
 *  - Weights are exec_layer_weights_fill / exec_vocab_weights_fill of `seed`: the same
 *    model whatever the split. Data: token (step, sequence, position) is a SplitMix64
 *    hash of the seed, uniform over the vocabulary; DP rank d takes sequences
 *    (d M + m) mbs .. + mbs - 1 for micro-batch m of M; the loss is the mean over every
 *    token of the global batch, so gradients are those of a single-rank run.
 *  - Times: a world barrier starts each step; every task's start and end are taken on
 *    its rank relative to that start (events for compute, ExecSample for communication).
 *    After the last step, rank 0 gathers every rank's times and computes the statistics
 *    (ExecRunResult). A RECV is counted from the later of its post and its peer SEND's
 *    start, so a receive posted early is idle time, not communication; a SEND likewise from
 *    the later of its post and its peer RECV's post (clocks aligned by the step barrier).
 *  - Failure: a wait that exceeds ExecRunOptions.timeout_s fails with EXEC_ERROR_TIMEOUT
 *    and a message "rank R: task T (what, stage S, micro-batch M) timed out after X s
 *    waiting for group 'G' (ranks ...)"; when *interrupted becomes non-zero (the caller's
 *    signal handler stores the signal's number: the user or the launcher ends the job)
 *    waits fail the same way, and so does the next task, naming the signal. After
 *    a failure the runner must not be run again; close the backend with
 *    exec_backend_abort. Never prints, never exits. */
#pragma once

#include <glib.h>
#include "exec/backend.h"
#include "exec/layers.h"
#include "plan/program.h"

G_BEGIN_DECLS

/* Called before each task of the first step with its index in the stage's task list:
 * a test hook (tandem run's TANDEM_TEST_DIE_AT_TASK ends the process there). */
typedef void (*ExecRunTaskHook) (int rank, int step, guint32 local_index,
                                 const ProgTask *task, gpointer user_data);

typedef struct {
  int             steps;        /* timed steps (default 3) */
  int             warmup;       /* untimed steps before them (default 1) */
  guint64         seed;         /* weights and data (default 1234) */
  ExecAdamW       adamw;        /* lr 3e-4, betas (0.9, 0.95), eps 1e-8, weight decay 0.1 */
  double          timeout_s;    /* give up waiting on a peer; 0 = the backend's timeout_s */
  gboolean        local;        /* world-of-one layout on a larger backend: no communication */
  volatile int   *interrupted;  /* a signal's number: the run gives up (NULL: never) */
  ExecRunTaskHook task_hook;    /* NULL: none */
  gpointer        hook_data;
} ExecRunOptions;

/* Megatron-LM / Llama 2 defaults (lr 3e-4 of the Llama 2 7B schedule, betas 0.9 and 0.95,
 * eps 1e-8, weight decay 0.1: Touvron et al. 2023, section 2.2). */
void exec_run_options_init (ExecRunOptions *opts);

/* One rank's measured step (the median step), seconds. */
typedef struct {
  int    rank, stage;
  double end_s;                     /* its last task ends (from the step start) */
  double compute_s;                 /* compute busy */
  double comm_s[PROG_COMM_N];       /* communication busy (union of intervals), by kind */
  double exposed_s[PROG_COMM_N];    /* ... while compute was idle, charged tp, cp, pp, dp */
  double bubble_s;                  /* compute idle, nothing communicating, to step end */
  gint64 peak_rss_bytes;            /* VmHWM (getrusage ru_maxrss where /proc is absent) */
  gint64 peak_alloc_bytes;          /* the runner's own buffers at their peak */
  double core_share;                /* its compute thread's share of a core while runnable
                                     * over the step (exec_sched_share); 0 unknown */
  /* the same thread over the step's compute tasks only: time on a CPU, time runnable but
   * waiting for one, times put on one (schedstat's third figure); 0 0 0 unknown. Their
   * ratios are the mean run between two waits and the mean wait (sim/cost-cpu.c term 4) */
  double compute_oncpu_s, compute_waiting_s, compute_slices;
  /* the variance of a compute task's wait about the rank's mean rate, per second on a CPU:
   * sum over tasks (D_i - m w_i)^2 / sum w_i, m = waiting / on CPU; 0 unknown */
  double compute_wait_var_s;
} ExecRankStats;

typedef struct {
  int     world, n_stages, steps, warmup;
  double *step_times_s;             /* steps: max over ranks of each timed step */
  double  step_time_s;              /* their median */
  int     median_step;              /* which timed step the figures below describe */
  /* means over ranks, of the median step (the simulator reports means over stages) */
  double  compute_s, comm_s[PROG_COMM_N], exposed_s[PROG_COMM_N];
  double  bubble_s, bubble_fraction, overlap_ratio;
  gint64  peak_rss_bytes;           /* max over ranks */
  gint64  peak_alloc_bytes;         /* max over ranks */
  ExecRankStats *ranks;             /* world entries (rank 0 only; NULL elsewhere) */
  /* the median step of each stage's representative rank (tp = cp = dp = 0), one entry
   * per program task: what prog_trace_write takes (rank 0 only) */
  ProgTaskTime *times;
  int    *stage_rank;               /* n_stages */
  /* every rank */
  double *losses;                   /* warmup + steps: mean loss over the global batch */
  double  loss;                     /* of the first step (before any update) */
  double  grad_norm;                /* global L2 norm of the first step's gradients */
} ExecRunResult;

typedef struct ExecRunner ExecRunner;

/* Materialises this rank's stage: its layers' TP shard, embedding and head where the
 * stage holds them, optimizer state for its shard, groups. Fails with EXEC_ERROR_INVALID
 * for what the runner does not execute (Ulysses CP, HSDP, --tp-comm-overlap, selective
 * recompute with CP, tied embeddings across stages, models other than llama-family,
 * mixture-of-experts plans with tp, cp or pp > 1, sharding, recompute, shared experts or
 * a dispatcher other than all-to-all,
 * parameters, gradients or optimizer state other than fp32, GEMMs other than fp32 or
 * bf16, a backend without kernels). */
ExecRunner          *exec_runner_new    (ExecBackend *backend, const ProgProgram *prog,
                                         const PlanLayout *layout, const ExecRunOptions *opts,
                                         GError **error);
/* Runs warmup + steps steps. All ranks call it; rank 0 ends with the full result. */
gboolean             exec_runner_run    (ExecRunner *runner, GError **error);
const ExecRunResult *exec_runner_result (const ExecRunner *runner);
void                 exec_runner_free   (ExecRunner *runner);                /* NULL-safe */

/* The plans the runner can execute; FALSE with EXEC_ERROR_INVALID and the reason. */
gboolean exec_runner_supports (const ModelSpec *model, const Plan *plan, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ExecRunner, exec_runner_free)

G_END_DECLS
