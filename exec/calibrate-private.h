/* exec/calibrate-private.h - what calibrate.c and calibrate-coll.c share: a stream, a
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

G_END_DECLS
