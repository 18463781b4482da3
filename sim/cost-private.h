/* sim/cost-private.h - what cost.c, cost-compute.c and cost-comm.c share. */
#pragma once

#include "sim/cost.h"

G_BEGIN_DECLS

#define SIM_COST_MAX_LEVELS 8    /* = G_N_ELEMENTS (PlanGroupInfo.members_per_unit) */

typedef struct {
  int     n;            /* members; <= 1 means no collective */
  guint   span;         /* outermost level crossed */
  double  alpha_s;      /* per ring step: latency of level `span` */
  double  ring_Bps;     /* all-reduce / reduce-scatter / all-gather / ring step busbw */
  double  a2a_Bps;      /* all-to-all effective busbw */
  double  nvls_Bps;     /* NVLS all-reduce busbw, 0 when NVLS does not apply */
} SimCostGroup;

struct SimCost {
  SimCostOptions opts;
  TopoCluster   *cluster;                        /* ref held */
  /* compute */
  double   peak_flops[TOPO_DTYPE_N];             /* used per dtype (bf16 when 0) */
  double   gemm_eff[TOPO_DTYPE_N];
  double   attn_scale[TOPO_DTYPE_N];             /* fp8 attention: fp8 / bf16 GEMM eff */
  double   mem_Bps;                              /* hbm_Bps x mem_efficiency */
  double   vector_flops;                         /* fp32 non-tensor peak, 0 = unknown */
  guint    sms;
  /* communication */
  gboolean     has_layout;
  SimCostGroup groups[PLAN_AXIS_N_GROUPS];
  double       p2p_Bps[SIM_COST_MAX_LEVELS];     /* by the level joining two devices */
  double       p2p_alpha_s[SIM_COST_MAX_LEVELS];
};

/* cost-compute.c */
void   sim_cost_compute_init (SimCost *c);
/* cost-comm.c */
void   sim_cost_comm_init    (SimCost *c, const PlanLayout *layout);
double sim_cost_level_alpha_s (const TopoCluster *cluster, guint level);

G_END_DECLS
