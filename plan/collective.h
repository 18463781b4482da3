/* plan/collective.h - collective semantics, defined once for sim/ and exec/.
 *
 * Sizes follow nccl-tests (doc/PERFORMANCE.md): `bytes` is the per-rank buffer size of
 * the operation as nccl-tests prints in its "size" column: for all-reduce the buffer
 * reduced; for all-gather the gathered (output) buffer; for reduce-scatter the input
 * buffer; for all-to-all the send buffer; for send/recv the message.
 * algbw = bytes / time; busbw = algbw x bus_factor(n). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  PLAN_COLL_ALL_REDUCE,
  PLAN_COLL_REDUCE_SCATTER,
  PLAN_COLL_ALL_GATHER,
  PLAN_COLL_ALL_TO_ALL,
  PLAN_COLL_SEND_RECV,     /* point-to-point (PP send/recv, CP ring pass) */
  PLAN_COLL_N,
} PlanColl;

typedef struct {
  PlanColl    kind;
  const char *name;        /* "all_reduce", ... (nccl-tests binary names without _perf) */
  /* busbw / algbw for n ranks (nccl-tests PERFORMANCE.md):
   * all-reduce 2(n-1)/n; all-gather, reduce-scatter, all-to-all (n-1)/n; send/recv 1 */
  double    (*bus_factor) (int n);
  /* ring steps of the algorithm: all-reduce 2(n-1), AG/RS (n-1), A2A (n-1), p2p 1 */
  int       (*steps)      (int n);
} PlanCollInfo;

const PlanCollInfo *plan_coll_info (PlanColl kind);
const char         *plan_coll_name (PlanColl kind);
gboolean            plan_coll_parse (const char *name, PlanColl *out);
double              plan_coll_bus_factor (PlanColl kind, int n);
int                 plan_coll_steps (PlanColl kind, int n);

G_END_DECLS
