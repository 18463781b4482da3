/* plan/layout.h - rank <-> (tp, cp, ep, dp, pp) coordinates <-> device, and which
 * topology levels each parallel group spans.
 *
 * Contract:
 *  - Rank order is a list of axes innermost first (Megatron default "tp-cp-ep-dp-pp":
 *    TP ranks are adjacent, so they share a server). Rank r runs on device r.
 *  - The same function gives the simulator its group spans and the execution engine its
 *    MPI/NCCL sub-communicators (members), so simulated and real groups cannot diverge.
 *  - A PlanLayout borrows nothing: it copies what it needs from plan and cluster.
 *  - MoE parallel folding (Megatron-Core): the coordinates above are the dense side
 *    (tp x cp x dp x pp; the ep coordinate is always 0 there). The expert side decomposes
 *    the same ranks as etp x ep x edp x pp in the same rank order (cp dropped, tp read as
 *    etp, dp as edp), so expert groups cut across the dense ones: PLAN_AXIS_EP is the
 *    expert-parallel group (the all-to-all), PLAN_AXIS_ETP the expert tensor-parallel
 *    group, PLAN_AXIS_EDP the expert data-parallel group (expert gradients),
 *    PLAN_AXIS_EXPT the etp x ep group (the all-gather dispatcher). plan_resolve checked
 *    that both sides give every rank the same pipeline stage. */
#pragma once

#include <glib.h>
#include "plan/plan.h"

G_BEGIN_DECLS

typedef enum {
  PLAN_AXIS_TP,
  PLAN_AXIS_CP,
  PLAN_AXIS_EP,
  PLAN_AXIS_DP,
  PLAN_AXIS_PP,
  PLAN_AXIS_N,
  /* derived groups (not coordinates): */
  PLAN_AXIS_DP_SHARD = PLAN_AXIS_N,   /* HSDP shard group: K consecutive DP ranks */
  PLAN_AXIS_DP_REPLICA,               /* HSDP replica group: DP ranks with equal shard index */
  PLAN_AXIS_CPDP,                     /* CP x DP: where gradients are reduced when cp > 1 */
  PLAN_AXIS_ETP,                      /* expert tensor parallel (expert side) */
  PLAN_AXIS_EDP,                      /* expert data parallel: expert gradients reduced */
  PLAN_AXIS_EXPT,                     /* ETP x EP: one expert layer's model-parallel ranks */
  PLAN_AXIS_EMBD,                     /* Megatron's embedding group: the first and the last
                                       * pipeline stage's ranks of one pipeline, which hold
                                       * the word embedding twice under MTP (size 1 unless
                                       * the plan trains MTP with pp > 1) */
  PLAN_AXIS_N_GROUPS,
} PlanAxis;

const char *plan_axis_name (PlanAxis axis);   /* "tp", "cp", "ep", "dp", "pp", ... */

typedef struct {
  int coord[PLAN_AXIS_N];
} PlanCoord;

typedef struct {
  PlanAxis axis;
  int      size;           /* members per group */
  int      n_groups;       /* groups of this axis in the world */
  guint    span_level;     /* outermost topology level crossed (0 = inside a server) */
  const char *span_name;   /* name of that level ("server", "pod", ...) */
  /* For the cost model: how many members of one group share one unit of each level. The
   * members of a group in one unit of level l are members_per_unit[l]; a group with
   * members_per_unit[0] == size stays inside a server. */
  int      members_per_unit[8];
  guint64  stride;         /* rank distance between consecutive members */
  /* groups of this axis that cross one unit of span_level concurrently, per device;
   * used to share oversubscribed bandwidth */
} PlanGroupInfo;

typedef struct {
  int          world;
  int          size[PLAN_AXIS_N];     /* tp, cp, ep, dp, pp */
  PlanAxis     order[PLAN_AXIS_N];    /* innermost first */
  guint64      stride[PLAN_AXIS_N];   /* rank stride of each axis */
  int          hsdp_shard;            /* K (1 when not HSDP) */
  /* the expert side: sizes and rank strides of etp, ep, edp, pp (PLAN_EXP_*) */
  int          exp_size[4];
  guint64      exp_stride[4];
  PlanGroupInfo groups[PLAN_AXIS_N_GROUPS];
  TopoCluster *cluster;               /* ref held */
} PlanLayout;

enum { PLAN_EXP_ETP, PLAN_EXP_EP, PLAN_EXP_EDP, PLAN_EXP_PP };
/* The expert-side coordinates of `rank`: out[PLAN_EXP_ETP .. PLAN_EXP_PP]. */
void plan_layout_expert_coord_of (const PlanLayout *layout, int rank, int out[4]);

/* `order` may be NULL for the Megatron default. Fails with PLAN_ERROR_USAGE on a bad
 * order string. */
PlanLayout *plan_layout_new  (const Plan *plan, const TopoCluster *cluster, GError **error);
void        plan_layout_free (PlanLayout *layout);                    /* NULL-safe */

void  plan_layout_coord_of (const PlanLayout *layout, int rank, PlanCoord *out);
int   plan_layout_rank_of  (const PlanLayout *layout, const PlanCoord *coord);
/* Members of the group of `axis` that contains `rank`, in group order; fills `members`
 * (size groups[axis].size) and returns this rank's index within the group. */
int   plan_layout_group_members (const PlanLayout *layout, PlanAxis axis, int rank,
                                 int *members);
/* A colour that is equal for exactly the members of one group (for MPI_Comm_split). */
int   plan_layout_group_color (const PlanLayout *layout, PlanAxis axis, int rank);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlanLayout, plan_layout_free)

G_END_DECLS
