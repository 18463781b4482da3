/* sim/cost-comm.c - collectives and point-to-point transfers over the topology levels.
 * The model and its derivation are in the contract of sim/cost.h; everything per group
 * is precomputed here in sim_cost_comm_init so a query is O(1). */
#include "sim/cost-private.h"

/* Per-step latency when a level gives none: NCCL Ring LL128 hwLat, 1.9 us on NVLink and
 * 4.0 us on the network, V [NCCL-tuning] (the protocol the presets choose). */
#define FALLBACK_NVLINK_ALPHA_S 1.9e-6
#define FALLBACK_NET_ALPHA_S 4.0e-6

double
sim_cost_level_alpha_s (const TopoCluster *cluster, guint level)
{
  const double a = cluster->levels[level].latency_s;
  if (a > 0)
    return a;
  return level == 0 ? FALLBACK_NVLINK_ALPHA_S : FALLBACK_NET_ALPHA_S;
}

/* Achievable bus bandwidth per device of one level, uncontended. */
static double
level_Bps (const SimCost *c, guint l)
{
  const TopoLevel *lv = &c->cluster->levels[l];
  if (lv->busbw_Bps > 0)
    return lv->busbw_Bps;
  if (l == 0)
    return lv->bw_Bps * c->opts.nvlink_efficiency;
  if (lv->bw_Bps > 0)
    return lv->bw_Bps * c->opts.net_efficiency;
  /* no level figure: the device's NICs */
  return c->cluster->nic_Bps * MAX (c->cluster->nics_per_device, 1) * c->opts.net_efficiency;
}

static double
level_oversub (const SimCost *c, guint l)
{
  return MAX (c->cluster->levels[l].oversubscription, 1.0);
}

static void
group_init (SimCost *c, SimCostGroup *g, const PlanGroupInfo *info)
{
  const TopoCluster *cl = c->cluster;
  g->n = info->size;
  g->span = MIN (info->span_level, MIN (cl->n_levels, SIM_COST_MAX_LEVELS) - 1);
  g->alpha_s = sim_cost_level_alpha_s (cl, g->span);
  if (g->n <= 1)
    return;
  const double n = g->n;
  const int *m = info->members_per_unit;

  /* Ring busbw: level 0 when two members share a server, then each crossed level l
   * offers m_{l-1} x bw_l / o_l per group (sim/cost.h). */
  double ring = G_MAXDOUBLE;
  if (m[0] > 1)
    ring = level_Bps (c, 0);
  for (guint l = 1; l <= g->span; l++)
    ring = MIN (ring, MAX (m[l - 1], 1) * level_Bps (c, l) / level_oversub (c, l));
  g->ring_Bps = ring;

  /* All-to-all: the fraction of the buffer that leaves a unit of level l-1 shares the
   * per-device bw_l / o_l; the part that stays in the server uses level-0 busbw. */
  double inv = 0;   /* s per byte of buffer */
  if (m[0] > 1)
    inv = MAX (inv, (m[0] - 1) / n / level_Bps (c, 0));
  for (guint l = 1; l <= g->span; l++)
    inv = MAX (inv, (n - MAX (m[l - 1], 1)) / n / (level_Bps (c, l) / level_oversub (c, l)));
  g->a2a_Bps = inv > 0 ? (n - 1) / n / inv : ring;

  /* NVLS: in-switch all-reduce inside one server (NVLink SHARP). */
  const TopoDevice *dev = &cl->device;
  if (c->opts.use_nvls && dev->has_nvls && dev->nvls_busbw_Bps > 0 && g->span == 0)
    g->nvls_Bps = dev->nvls_busbw_Bps;
}

void
sim_cost_comm_init (SimCost *c, const PlanLayout *layout)
{
  const TopoCluster *cl = c->cluster;
  const guint n_levels = MIN (cl->n_levels, SIM_COST_MAX_LEVELS);
  c->has_layout = layout != NULL;
  if (layout != NULL)
    for (int a = 0; a < PLAN_AXIS_N_GROUPS; a++)
      group_init (c, &c->groups[a], &layout->groups[a]);

  /* Point-to-point by joining level: PP boundaries of all pipelines cross at once. */
  const int *pp_m = layout != NULL ? layout->groups[PLAN_AXIS_PP].members_per_unit : NULL;
  double bw = level_Bps (c, 0);
  c->p2p_Bps[0] = bw;
  c->p2p_alpha_s[0] = sim_cost_level_alpha_s (cl, 0);
  bw = G_MAXDOUBLE;
  for (guint l = 1; l < n_levels; l++)
    {
      const double m = pp_m != NULL ? MAX (pp_m[l - 1], 1) : 1.0;
      bw = MIN (bw, level_Bps (c, l) * MIN (1.0, m / level_oversub (c, l)));
      c->p2p_Bps[l] = bw;
      c->p2p_alpha_s[l] = sim_cost_level_alpha_s (cl, l);
    }
}

static const SimCostGroup *
group_of (const SimCost *c, PlanAxis axis)
{
  g_return_val_if_fail (c->has_layout, NULL);
  g_return_val_if_fail ((guint) axis < PLAN_AXIS_N_GROUPS, NULL);
  return &c->groups[axis];
}

static gboolean
uses_nvls (const SimCostGroup *g, PlanColl coll)
{
  return coll == PLAN_COLL_ALL_REDUCE && g->nvls_Bps > 0;
}

double
sim_cost_busbw_Bps (const SimCost *c, PlanColl coll, PlanAxis axis)
{
  g_return_val_if_fail (c != NULL && (guint) coll < PLAN_COLL_N, 0.0);
  const SimCostGroup *g = group_of (c, axis);
  if (g == NULL || g->n <= 1)
    return 0.0;
  if (uses_nvls (g, coll))
    return g->nvls_Bps;
  return coll == PLAN_COLL_ALL_TO_ALL ? g->a2a_Bps : g->ring_Bps;
}

double
sim_cost_latency_s (const SimCost *c, PlanColl coll, PlanAxis axis)
{
  g_return_val_if_fail (c != NULL && (guint) coll < PLAN_COLL_N, 0.0);
  const SimCostGroup *g = group_of (c, axis);
  if (g == NULL || g->n <= 1)
    return 0.0;
  if (uses_nvls (g, coll))
    return c->opts.nvls_latency_s;
  return c->opts.coll_base_latency_s + plan_coll_steps (coll, g->n) * g->alpha_s;
}

double
sim_cost_coll_s (const SimCost *c, PlanColl coll, PlanAxis axis, double bytes)
{
  g_return_val_if_fail (c != NULL && (guint) coll < PLAN_COLL_N, 0.0);
  if (c->opts.free_comm || bytes <= 0)
    return 0.0;
  const SimCostGroup *g = group_of (c, axis);
  if (g == NULL || g->n <= 1)
    return 0.0;
  const double busbw = sim_cost_busbw_Bps (c, coll, axis);
  return sim_cost_latency_s (c, coll, axis)
         + bytes * plan_coll_bus_factor (coll, g->n) / busbw;
}

double
sim_cost_p2p_s (const SimCost *c, guint64 dev_a, guint64 dev_b, double bytes)
{
  g_return_val_if_fail (c != NULL, 0.0);
  if (c->opts.free_comm || bytes <= 0 || dev_a == dev_b)
    return 0.0;
  g_return_val_if_fail (dev_a < c->cluster->n_devices && dev_b < c->cluster->n_devices, 0.0);
  guint l = topo_cluster_common_level (c->cluster, dev_a, dev_b);
  l = MIN (l, SIM_COST_MAX_LEVELS - 1);
  return c->opts.coll_base_latency_s + c->p2p_alpha_s[l] + bytes / c->p2p_Bps[l];
}
