/* exec/calibrate.h - microbenchmarks on a backend's ops table, and the hardware profile
 * they make (`tandem calibrate`), plus nccl-tests output read into the same rows.
 *
 * Contract:
 *  - Every benchmark checks its result before timing it (nccl-tests `#wrong`): GEMMs
 *    against a double-precision reference on a sub-block (BF16 and FP8 on integer inputs
 *    whose exact products every accumulator reaches: calibrate-gemm.c), memory loops against the
 *    expected values, collectives element by element. `wrong` counts the elements off,
 *    summed over ranks; a row with wrong > 0 is kept (and printed) but never enters a
 *    profile.
 *  - Collective rows use nccl-tests' columns and definitions (conventions.md section 2):
 *    size_B is the size column (all-reduce: the buffer; reduce-scatter, all-gather,
 *    all-to-all: count x type size x ranks, count per rank; sendrecv: the message),
 *    time_us the mean time per operation averaged over the group's ranks, algbw =
 *    size_B / time (GB/s = 1e9 B/s), busbw = algbw x plan_coll_bus_factor.
 *  - Under MPI every rank of the world calls exec_calibrate_run with the same options
 *    (the benchmarks are collective: groups are created, times averaged over ranks).
 *    GEMM and memory loops run on all ranks at once, so the figures are per rank with
 *    the others busy, as in training. Rank 0's ExecCalibration holds the result.
 *  - The library never prints: progress goes to the caller's row callback (on rank 0),
 *    tables come back as text from exec_coll_rows_format.
 *  - Times come from the host's monotonic clock around whole loops (g_get_monotonic_time,
 *    microseconds), after a barrier on the group, as nccl-tests times its loops.
 *  - The attention core and the memory-bound kernels (calibrate-attn.c,
 *    calibrate-kernels.c) run the calls the runner makes through the backend's ExecKernels
 *    table (exec/layers.h) on its buffers; their rates are counted as the cost model
 *    counts the same ops (sim/cost.h), so that a profile predicts each measured row. A
 *    backend without a kernels table skips them (a line in ExecCalibration.skipped).
 *  - Compute benchmarks keep the median of three timing windows (calibrate-private.h). */
#pragma once

#include <glib.h>
#include "exec/backend.h"
#include "plan/collective.h"
#include "plan/program.h"
#include "topology/cluster.h"

G_BEGIN_DECLS

typedef struct {
  int       m, n, k;
  ExecDtype dtype;
  double    time_s;         /* per GEMM: the median window's mean (calibrate-private.h),
                               averaged over ranks */
  double    flops_per_s;    /* 2 m n k / time_s */
  int       reps;           /* timed repetitions per rank */
  gint64    wrong;          /* checked elements off the reference, summed over ranks */
  gboolean  from_plan;      /* one of the given plan's shapes */
  /* Added after the fields above. The dtype's device peak (ExecCalibrateOptions.device;
   * the profile's "gemm" rows carry the dtype as "fp32", "bf16", "fp8") and the achieved
   * fraction of it; both 0 when the peak is unknown. */
  double    peak_flops_per_s;
  double    peak_fraction;  /* flops_per_s / peak_flops_per_s */
  /* This rank's fastest and slowest timing window, per call: their distance over time_s
   * is the row's spread (measurement hygiene, issue 14). */
  double    window_min_s, window_max_s;
  /* Added after the fields above: the core share the kept (median) window ran at, mean
   * over the ranks that could read it (schedstat; 0 = unknown). On a loaded host each row
   * is timed at its own share; exec_calibration_to_profile restates flops_per_s at the
   * calibration's share (contention.compute_share). */
  double    share;
} ExecGemmRow;

typedef struct {
  guint64 bytes;            /* per array (three arrays of doubles) */
  int     reps;
  double  copy_GBps;        /* c = a: 16 B per element (STREAM counting), best rep */
  double  triad_GBps;       /* a = b + s c: 24 B per element, best rep */
  gint64  wrong;
  /* Added after the fields above: on a backend with device memory (CUDA), the arrays are
   * device buffers of floats and the loops the kernel table's copy (c = a, 8 B per
   * element) and add (a = b + c, 12 B per element, standing in for the triad); the
   * figures are then HBM bandwidths. FALSE: STREAM's loops in host memory. */
  gboolean on_device;
} ExecMemRow;

typedef struct {
  PlanColl coll;
  int      ranks;           /* group size */
  guint64  size_B;          /* nccl-tests size column */
  guint64  count;           /* elements (per rank for reduce-scatter/all-gather/all-to-all) */
  char     type[16];        /* nccl-tests type column: "float", "bfloat16", ... */
  char     redop[8];        /* "sum", "none" */
  int      root;            /* -1 */
  /* out-of-place */
  double   time_us;         /* < 0: N/A */
  double   algbw_GBs, busbw_GBs;
  gint64   wrong;           /* -1: not checked (N/A) */
  /* in-place (nccl-tests' second column set); time < 0 when absent */
  double   ip_time_us;
  double   ip_algbw_GBs, ip_busbw_GBs;
  gint64   ip_wrong;
} ExecCollRow;

/* An attention core: B sequences, s_q queries over s_kv keys per sequence. */
typedef struct {
  int      b, heads, kv_heads, s_q, s_kv, head_dim;
  gboolean causal;
} ExecAttnShape;

typedef struct {
  ExecAttnShape shape;
  double   fwd_s, bwd_s;        /* per call as GEMMs are timed: attn_init + attn_forward;
                                   attn_backward_prep, zeroing dq dk dv, attn_backward */
  /* FLOPs as the step program counts them (topology/cluster.h TopoProfileAttn): forward
   * 4 b heads s_q s_kv head_dim (x 1/2 causal), backward 2.5 x; over the time less the
   * call overhead (the cost model adds it back) */
  double   fwd_flops_per_s, bwd_flops_per_s;
  int      reps;                /* timed repetitions of each, per rank */
  gint64   wrong;               /* checked outputs off the double reference, over ranks */
  gboolean from_plan;
  /* Added after the fields above: the core share of the forward's and the backward's
   * kept window (ExecGemmRow.share) */
  double   fwd_share, bwd_share;
} ExecAttnRow;

/* One size of a memory-bound kind (forward and _grad kinds are separate rows). */
typedef struct {
  TopoKernel kind;
  guint64    elements;          /* as the program counts the op (ModelOp.elements) */
  double     time_s;            /* per call, as GEMMs are timed */
  double     Bps;               /* elements x bytes per element (the cost model's
                                   counting: topology/presets/README.md) / (time - launch) */
  int        reps;
  gint64     wrong;
  double     share;             /* added: the kept window's core share (ExecGemmRow.share) */
} ExecKernelRow;

/* What an all-reduce in flight took from a GEMM loop on every rank (calibrate-contention.c;
 * topology/cluster.h TopoProfileContention). cores 0 = not measured. */
typedef struct {
  int     cores;              /* CPUs each rank could run on (sched_getaffinity), mean */
  int     blas_threads;       /* per rank */
  int     progress_threads;   /* per rank: 1 with the CPU backend's progress thread */
  int     gemm_m;             /* the GEMM: m x m x m, FP32 */
  double  gemm_alone_s;       /* per GEMM, all ranks computing (the median pair's) */
  double  gemm_coll_s;        /* per GEMM with an all-reduce in flight all along */
  double  coll_bytes;         /* the all-reduce's size */
  double  coll_s;             /* wall time per all-reduce during that loop */
  int     reps, n_coll;       /* GEMMs per alone loop, all-reduces per loop with them */
  gint64  wrong;              /* GEMM and all-reduce elements off, summed over ranks */
  /* the fraction of a core the calibrating thread got while it wanted one during the
   * compute parts (GEMM, memory, attention, kernels: exec_sched_share), mean over ranks;
   * 0 = unknown */
  double  compute_share;
} ExecContentionRow;

/* This thread's time on a CPU and time runnable but waiting for one (seconds), from the
 * kernel's scheduler statistics (/proc/thread-self/schedstat); FALSE where they cannot be
 * read (not Linux, a kernel without CONFIG_SCHED_INFO). */
gboolean exec_sched_sample (double sample[2]);
/* The share of a core a thread got while runnable between two samples: on CPU / (on CPU
 * + waiting); 0 when unknown or when it never ran. Other processes' load, more threads
 * than cores, a progress thread on the same core all lower it. */
double   exec_sched_share  (const double before[2], const double after[2]);
/* exec_sched_sample and the third figure: the times the thread was put on a CPU (each
 * after a wait for one or a sleep: "# of timeslices run on this cpu"); FALSE where the
 * kernel does not give it. */
gboolean exec_sched_sample_slices (double sample[3]);

/* Called on rank 0 after each row is measured (progress). */
typedef void (*ExecCollRowFunc) (const ExecCollRow *row, gpointer user_data);
typedef void (*ExecGemmRowFunc) (const ExecGemmRow *row, gpointer user_data);
typedef void (*ExecAttnRowFunc) (const ExecAttnRow *row, gpointer user_data);
typedef void (*ExecKernelRowFunc) (const ExecKernelRow *row, gpointer user_data);

typedef struct {
  gboolean        quick;        /* a few shapes and sizes: seconds on 2 cores */
  gboolean        gemm, memory, collectives;   /* which parts run (all TRUE by default) */
  /* extra GEMM shapes (m, n, k triples, e.g. a plan's), measured after the grid; shapes
   * above max_plan_flops (2 m n k) are skipped, see ExecCalibration.skipped */
  const int     (*extra_shapes)[3];
  guint           n_extra_shapes;
  double          max_plan_flops;   /* 0 = default (quick 2^33, full 2^37) */
  guint32         seed;             /* inputs of the GEMM check */
  ExecGemmRowFunc on_gemm;
  ExecCollRowFunc on_coll;
  gpointer        user_data;
  /* Added after the fields above: the attention core and the memory-bound kernels (TRUE
   * by default), and extra attention shapes (a plan's) measured after the grid; shapes
   * above max_attn_flops forward FLOPs are skipped (ExecCalibration.skipped). */
  gboolean             attention, kernels;
  const ExecAttnShape *extra_attention;
  guint                n_extra_attention;
  double               max_attn_flops;    /* 0 = default (quick 2^30, full 2^34) */
  ExecAttnRowFunc      on_attention;
  ExecKernelRowFunc    on_kernel;
  /* Added after the fields above. gemm_narrow (TRUE by default): after the FP32 sweep,
   * the same grid and extra shapes in BF16 (the training dtype) and FP8 E4M3, each where
   * the backend multiplies it (a 16 x 16 x 16 probe; the CPU backend does FP32 only, so
   * it measures exactly what it did before; a refusal is noted in
   * ExecCalibration.gemm_dtypes_skipped). FP8 rows use the layout FP8 kernels need
   * (A m x k, B n x k, both row-major: backend.h) and skip extra shapes whose m, n or k is
   * not a multiple of 16 (a line in ExecCalibration.skipped). device (NULL = unknown): the
   * device whose peak_flops per dtype give ExecGemmRow.peak_fraction, e.g. the cluster
   * preset's (F32 rows against the FP32 vector peak: cuBLAS computes them in FP32). */
  gboolean             gemm_narrow;
  const TopoDevice    *device;
} ExecCalibrateOptions;

typedef struct {
  char      *backend;           /* "cpu" */
  char      *host;              /* g_get_host_name () of rank 0 */
  char      *date;              /* UTC ISO-8601, when the run started */
  int        ranks;             /* world size */
  int        ranks_per_host;    /* OMPI_COMM_WORLD_LOCAL_SIZE, else ranks */
  guint64    host_memory_bytes; /* physical memory of the host */
  /* Added: the accelerator's memory (ExecBackend.device_memory_bytes); 0 on the CPU, where
   * the cluster JSON's hbm_GB is the host memory per rank */
  guint64    device_memory_bytes;
  double     launch_s;          /* per GEMM call of 1 x 1 x 1 (the ops-table overhead) */
  GArray    *gemm;              /* ExecGemmRow, grid first, then the extra shapes */
  ExecMemRow memory;            /* bytes 0 when not measured */
  GArray    *colls;             /* ExecCollRow */
  gboolean   colls_measured;    /* FALSE in a world of one (no mpirun) */
  GPtrArray *skipped;           /* char *: extra shapes left out, with the reason */
  GArray    *attention;         /* ExecAttnRow, grid first, then the extra shapes */
  GArray    *kernels;           /* ExecKernelRow, by kind, ascending size */
  /* Added after the fields above: char *, the GEMM dtypes not measured although asked
   * for (gemm_narrow), with the backend's reason ("bfloat16: the cpu backend multiplies
   * float32 only, ..."): both narrow dtypes on the CPU backend, by design. */
  GPtrArray *gemm_dtypes_skipped;
  /* Added after the fields above: the CPU contention measurement (zero when not made). */
  ExecContentionRow contention;
} ExecCalibration;

void             exec_calibrate_options_init (ExecCalibrateOptions *o);
ExecCalibration *exec_calibration_new        (const char *backend);
void             exec_calibration_free       (ExecCalibration *cal);   /* NULL-safe */

/* All parts the options ask for, on every rank (see contract). */
ExecCalibration *exec_calibrate_run         (ExecBackend *b, const ExecCalibrateOptions *o,
                                             GError **error);
/* The parts, each appending to `cal` (exec_calibrate_run calls them in this order). */
gboolean exec_calibrate_gemm        (ExecBackend *b, const ExecCalibrateOptions *o,
                                     ExecCalibration *cal, GError **error);
gboolean exec_calibrate_memory      (ExecBackend *b, const ExecCalibrateOptions *o,
                                     ExecCalibration *cal, GError **error);
/* The attention core forward and backward over the grid (quick: a few tiny-llama-sized
 * shapes; full: head_dim 32..128, sequences 128..2048) and o->extra_attention; each row
 * checked against a double-precision reference on sampled queries and keys. Needs
 * exec_calibrate_gemm's launch_s (0 when it did not run). */
gboolean exec_calibrate_attention   (ExecBackend *b, const ExecCalibrateOptions *o,
                                     ExecCalibration *cal, GError **error);
/* RMSNorm, rotary, SwiGLU, residual copy, embedding, cross-entropy and AdamW (with the
 * gradient cleared, as the runner's optimizer task does), forward and backward, at sizes
 * from cache-resident to beyond the last-level cache (quick: 2^16, 2^18, 2^20 elements). */
gboolean exec_calibrate_kernels     (ExecBackend *b, const ExecCalibrateOptions *o,
                                     ExecCalibration *cal, GError **error);
/* Group sizes 2, 4, ... and the world size; sizes 1 KiB .. 64 MiB by factors of 4
 * (quick: 1 KiB, 256 KiB, 4 MiB, 16 MiB). Does nothing (colls_measured FALSE) in a world of one. */
gboolean exec_calibrate_collectives (ExecBackend *b, const ExecCalibrateOptions *o,
                                     ExecCalibration *cal, GError **error);
/* A GEMM alone and with an all-reduce of 4 MiB kept in flight on every rank, alternated
 * 7 times (calibrate-contention.c). CPU backend in a world of two or more only;
 * otherwise nothing is measured (contention.cores stays 0). Runs with the collectives. */
gboolean exec_calibrate_contention  (ExecBackend *b, const ExecCalibrateOptions *o,
                                     ExecCalibration *cal, GError **error);

/* nccl-tests' table, one block per (collective, ranks) in the order of the rows:
 * "# Collective test starting: all_reduce_perf", "# nranks N", the two header lines and
 * the rows (with the in-place columns when a row has them). exec_nccl_tests_parse reads
 * it back. `note` (may be NULL) is added as a comment under each block's title. */
void exec_coll_rows_format (GString *out, const ExecCollRow *rows, guint n_rows,
                            const char *note);

/* ---- nccl-tests-import.c ----------------------------------------------------------------
 * Reads the stdout of nccl-tests binaries (all_reduce_perf, all_gather_perf,
 * reduce_scatter_perf, alltoall_perf, sendrecv_perf; several may follow each other in one
 * file). The collective comes from "# Collective test starting: X_perf" (nccl-tests
 * >= 2.13), else from the file name (`source`, e.g. "all_gather_perf-16.txt"); the number
 * of ranks from the "#  Rank N Group ..." device lines (distinct N), else from a
 * "# nranks N" line, checked against the table's own busbw / algbw (the collective's bus
 * factor for n ranks: a table whose ratio fits another n is refused naming both, and a
 * row whose busbw is not algbw x the factor beyond the columns' rounding is refused).
 * Columns are found from the header line that names them (size,
 * count, type, redop, root, time or cputime, algbw, busbw, #wrong, in that order, twice),
 * so per-iteration and bitwise columns are skipped. Values are kept exactly as printed.
 * Errors (EXEC_ERROR_INVALID) name `source` and the line: no table, unknown collective
 * (broadcast, reduce, ... have no place in the cost model), unknown rank count, or a row
 * that does not parse. Rows are appended to `rows` (ExecCollRow). */
gboolean exec_nccl_tests_parse     (const char *text, gssize length, const char *source,
                                    GArray *rows, GError **error);
gboolean exec_nccl_tests_load_file (const char *path, GArray *rows, GError **error);
/* Rows repeated for one (collective, ranks, size) (nccl-tests -d all or -o all, two runs
 * appended, or the same test in two files) made one, in the place of the first: the row
 * of the median time (out-of-place, else in-place; of an even count the faster of the
 * middle two), kept whole as nccl-tests printed it. The profile holds one row per
 * (collective, ranks, size), and the last one read silently won: the median is what one
 * disturbed run or one slower dtype does not move. Returns the rows merged away. */
guint    exec_coll_rows_merge_repeats (GArray *rows);

/* ---- the hardware profile ---------------------------------------------------------------
 * Adds the rows with wrong == 0 to a profile's collective table (out-of-place time,
 * else in-place; rows without either are skipped). Returns the number added. */
guint        exec_coll_rows_to_profile   (const ExecCollRow *rows, guint n_rows,
                                          TopoProfile *profile);
/* The distinct attention shapes of a program's compute ops, per rank (an ExecAttnShape
 * array to pass as extra_attention; `tandem calibrate --model ...`). */
void         exec_calibrate_plan_attention (const ProgProgram *prog, GArray *shapes);
/* The profile of a calibration (GEMM rows in FLOP/s with their dtype: EXEC_DTYPE_F32 ->
 * "fp32", BF16 -> "bf16", F16 -> "fp16", FP8_E4M3 and FP8_E5M2 -> "fp8"; memory,
 * collectives, attention in FLOP/s, kernels in bytes/s). */
TopoProfile *exec_calibration_to_profile (const ExecCalibration *cal);
/* A cluster JSON for this machine (topology/presets/README.md): device "BACKEND-HOST"
 * ("cpu-HOST") with the best measured GEMM of each dtype as its peak (FP32; BF16, else the
 * FP32 one; FP8 when measured), the host memory per rank, the triad
 * bandwidth; one level "host" of `ranks` devices with the measured all-reduce busbw;
 * every number sourced "tandem calibrate on HOST, DATE"; and `profile` (NULL: the
 * calibration's). topo_cluster_new_from_data accepts the text. */
char        *exec_calibration_to_cluster_json (const ExecCalibration *cal,
                                               const TopoProfile *profile, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ExecCalibration, exec_calibration_free)

G_END_DECLS
