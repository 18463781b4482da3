/* exec/calibrate-private.h - what the calibrate*.c files share: a stream, a
 * world group and a small buffer for barriers and sums over ranks. */
#pragma once

#include "exec/calibrate.h"

G_BEGIN_DECLS

#define CAL_SCRATCH_FLOATS 8

typedef struct {
  ExecBackend *b;
  ExecStream  *stream;     /* comm stream for barriers, sums and the sweep */
  ExecGroup   *world;      /* every rank */
  ExecBuffer  *scratch;    /* CAL_SCRATCH_FLOATS floats */
} CalCtx;

/* Collective over the world: every rank calls it. */
CalCtx  *cal_ctx_new   (ExecBackend *b, GError **error);
void     cal_ctx_free  (CalCtx *ctx);                                   /* NULL-safe */
/* v[i] = sum over the group's members of v[i] (n <= CAL_SCRATCH_FLOATS; FP32 transport:
 * about 7 significant digits, exact for integers below 2^24). */
gboolean cal_group_sum (CalCtx *ctx, ExecGroup *group, double *v, int n, GError **error);
gboolean cal_barrier   (CalCtx *ctx, ExecGroup *group, GError **error);
double   cal_now_s     (void);                                          /* monotonic */

/* Compute benchmarks (GEMM, attention, kernels) time their calls in CAL_WINDOWS windows
 * of equal length and keep the median window's mean per call: one window caught by a
 * burst of other work on a shared machine (a VM's neighbours, a build) moves the
 * median of three little, the mean of the whole loop a lot. */
#define CAL_WINDOWS 3
double   cal_median    (double *v, int n);           /* sorts v in place; n >= 1 */
/* The core share the kept windows ran at. A rate that the profile keeps is the median
 * window's, and on a shared host the windows differ by how much of a core the thread got
 * (a burst of others' work lands on one window): the share that goes with the rates is
 * the kept windows', not the whole benchmark's. cal_window_sched samples the calling
 * thread's schedstat (on CPU, waiting; -1 -1 when unreadable); cal_windows_keep adds the
 * window of times w[] (n, unsorted) whose time is `median` to the tally, from
 * before[i] to after[i], and returns that window's own share (0 when unreadable: each
 * row keeps it, so that the profile restates the row's rate at the calibration's share,
 * calibrate-profile.c); cal_kept_share reads the tally (0 when empty) and
 * cal_kept_reset clears it. One calibration at a time per process. */
void     cal_window_sched (double sample[2]);
double   cal_windows_keep (const double *w, const double (*before)[2],
                           const double (*after)[2], int n, double median);
/* A row's share over the ranks: each rank adds its share (skipped when 0, unreadable, or
 * above 1) and a count of 1 to the row's group sum; the mean is sum / count (0 when no
 * rank could read its own). */
void     cal_share_sum    (double share, double *sum, double *count);
double   cal_share_mean   (double sum, double count);
double   cal_kept_share   (void);
void     cal_kept_reset   (void);

/* ---- calibrate-attn.c and calibrate-kernels.c (helpers in calibrate.c) ---------------- */

typedef struct {
  double min_time_s;       /* the loop runs at least this long ... */
  int    min_reps, max_reps;   /* ... within these counts */
} CalTiming;

#define CAL_MAX_BUFS 12

/* Device buffers of one row, freed together by cal_bufs_clear. */
typedef struct {
  ExecBackend *b;
  ExecBuffer  *buf[CAL_MAX_BUFS];
  int          n;
} CalBufs;

void     cal_bufs_clear (CalBufs *bs);
/* A new buffer of `bytes` filled from `host` (NULL: zeroed); its device pointer. */
void    *cal_bufs_add   (CalBufs *bs, gsize bytes, const void *host, GError **error);
/* Downloads the buffer whose device pointer is `dev`. */
gboolean cal_bufs_get   (CalBufs *bs, void *host, const void *dev, gsize bytes,
                         GError **error);
/* n floats uniform in [lo, hi) from a SplitMix64 stream (g_free). */
float   *cal_host_uniform (guint64 *state, gsize n, double lo, double hi);

typedef void (*CalCallFunc) (gpointer data);
/* A timed warm-up call sizes the loop, then CAL_WINDOWS windows of calls with one
 * synchronize each: *mean_s is the median window's time per call, *share_out (NULL: not
 * wanted) the core share that window ran at (cal_windows_keep). */
gboolean cal_time_calls (ExecStream *s, const CalTiming *tm, CalCallFunc call, gpointer data,
                         double *mean_s, int *reps_out, double *share_out, GError **error);
/* t less the call overhead (cal->launch_s), which the cost model adds back. */
double   cal_kernel_time  (const ExecCalibration *cal, double t);
/* |got - ref| <= 2 gamma_n mag + 1e-5 |ref| + 1e-6 (gamma_n = n u / (1 - n u), u = 2^-24:
 * Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., eq. 3.5; the relative
 * term covers exp, log, sin and cos); FALSE for a non-finite `got`. */
gboolean cal_close_enough (double got, double ref, double mag, double n_terms);

/* ---- calibrate-profile.c ---------------------------------------------------------------- */

/* The profile's dtype of an ExecDtype: F32 -> FP32 (FP32 compute: the vector peak), BF16,
 * F16 -> FP16, both FP8 formats -> FP8. */
TopoDtype cal_topo_dtype (ExecDtype dtype);

G_END_DECLS
