/* sim/cost-private.h - what cost.c, cost-compute.c and cost-comm.c share. */
#pragma once

#include "sim/cost.h"

G_BEGIN_DECLS

#define SIM_COST_MAX_LEVELS 8    /* = G_N_ELEMENTS (PlanGroupInfo.members_per_unit) */

/* One (collective, ranks) of the cluster's measured profile, by message size: what
 * sim_cost_coll_s interpolates (cost-comm.c). */
typedef struct {
  PlanColl coll;
  int      ranks;       /* group size it was measured on (>= 2) */
  guint    span;        /* level that `ranks` consecutive devices span */
  guint    n;           /* sizes */
  double  *log_bytes;   /* ln size, strictly ascending */
  double  *log_busbw;   /* ln busbw (B/s) from the time, times made nondecreasing */
  double   latency_s;   /* the smallest size's time: the floor of every message */
} SimCostCurve;

typedef struct {
  int     n;            /* members; <= 1 means no collective */
  guint   span;         /* outermost level crossed */
  double  alpha_s;      /* per ring step: latency of level `span` */
  int     per_server;   /* members in one server (members_per_unit[0]) */
  double  ring_Bps;     /* all-reduce / reduce-scatter / all-gather / ring step busbw */
  double  a2a_Bps;      /* all-to-all effective busbw */
  double  nvls_Bps;     /* NVLS all-reduce busbw, 0 when NVLS does not apply */
  const SimCostCurve *curve[PLAN_COLL_N];   /* measured, nearest group size; NULL = none */
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
  double   exp_per_s;                            /* SFU exponentials per second (sms x
                                                    clock x exp_per_clk_per_sm), 0 =
                                                    unknown: no exp term in attention */
  /* communication */
  gboolean     has_layout;
  SimCostGroup groups[PLAN_AXIS_N_GROUPS];
  double       p2p_Bps[SIM_COST_MAX_LEVELS];     /* by the level joining two devices */
  double       p2p_alpha_s[SIM_COST_MAX_LEVELS];
  /* hardware profile (cluster->profile); empty without one */
  GArray             *prof_gemm_log;            /* double: ln m, ln n, ln k per GEMM row */
  GArray             *prof_attn_log;            /* double: ln of b, heads, kv_heads, s_q,
                                                   s_kv, head_dim per attention row */
  GArray             *prof_kernel_log[TOPO_KERNEL_N];   /* double pairs: ln elements,
                                                   ln Bps, ascending; NULL = no rows */
  GPtrArray          *curves;                   /* SimCostCurve *, owned */
  const SimCostCurve *p2p_curve[SIM_COST_MAX_LEVELS];   /* sendrecv by joining level */
  /* Added after the fields above: every compute op's time x this (sim/cost-cpu.c); 1
   * except on a CPU host whose ranks time-share their cores unlike the calibration's */
  double              cpu_time_scale;
  /* On a CPU host whose threads outnumber its cores: the measured slowdown of compute
   * while a collective's progress thread runs beside it (comm_compute_slowdown there),
   * applied by the simulator for the collective's span only, as a unit it holds
   * (sim_cost_coll_sms, sim_cost_sms_slowdown); 0 elsewhere. */
  double              cpu_coll_slowdown;
  double              host_link_Bps;           /* sim_cost_host_link_Bps, per GPU */
  /* every GPU compute kernel's time x this: the slowest of the plan's GPUs against the
   * median part (sim_cost_straggler_factor); 1 without a layout or perf_sigma */
  double              straggler_scale;
};

/* cost-compute.c */
void   sim_cost_compute_init (SimCost *c);
/* cost-cpu.c: c->cpu_time_scale */
void   sim_cost_cpu_init (SimCost *c);
/* cost.c: the host link by the device's row (architecture, Grace), where the preset
 * gives none; *source its derivation */
double sim_cost_default_host_link (const TopoCluster *cluster, const char **source);
/* cost-comm.c */
void   sim_cost_comm_init    (SimCost *c, const PlanLayout *layout);
void   sim_cost_curve_free   (gpointer curve);
double sim_cost_level_alpha_s (const TopoCluster *cluster, guint level);

G_END_DECLS
