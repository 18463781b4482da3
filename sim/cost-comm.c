/* sim/cost-comm.c - collectives and point-to-point transfers over the topology levels.
 * The model and its derivation are in the contract of sim/cost.h; everything per group
 * is precomputed here in sim_cost_comm_init so a query is O(1). */
#include "sim/cost-private.h"

#include <math.h>
#include <string.h>

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

/* ... and what an all-to-all reaches there: the level's a2a_busbw where it is below
 * (a NIC of several planes, of which NCCL's all-to-all uses one) */
static double
level_a2a_Bps (const SimCost *c, guint l)
{
  const double bw = level_Bps (c, l);
  const double a2a = c->cluster->levels[l].a2a_busbw_Bps;
  return a2a > 0 ? MIN (a2a, bw) : bw;
}

/* ---- measured curves (cluster->profile; sim/cost.h) ------------------------------------ */

void
sim_cost_curve_free (gpointer data)
{
  SimCostCurve *cv = data;
  g_free (cv->log_bytes);
  g_free (cv->log_busbw);
  g_free (cv);
}

static int
cmp_coll_bytes (gconstpointer a, gconstpointer b)
{
  const TopoProfileColl *x = *(const TopoProfileColl *const *) a;
  const TopoProfileColl *y = *(const TopoProfileColl *const *) b;
  return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

/* One curve per (collective, ranks >= 2) of the profile. */
static void
curves_init (SimCost *c)
{
  const TopoProfile *prof = c->cluster->profile;
  c->curves = g_ptr_array_new_with_free_func (sim_cost_curve_free);
  if (prof == NULL)
    return;
  for (guint i = 0; i < prof->colls->len; i++)
    {
      const TopoProfileColl *r = &g_array_index (prof->colls, TopoProfileColl, i);
      PlanColl coll;
      if (r->ranks < 2 || !plan_coll_parse (r->coll, &coll))
        continue;
      gboolean seen = FALSE;
      for (guint j = 0; j < c->curves->len && !seen; j++)
        {
          const SimCostCurve *cv = g_ptr_array_index (c->curves, j);
          seen = cv->coll == coll && cv->ranks == (int) r->ranks;
        }
      if (seen)
        continue;
      /* the rows of this curve, by size (the profile keeps sizes distinct) */
      g_autoptr (GPtrArray) pts = g_ptr_array_new ();
      for (guint j = i; j < prof->colls->len; j++)
        {
          const TopoProfileColl *q = &g_array_index (prof->colls, TopoProfileColl, j);
          if (q->ranks == r->ranks && g_str_equal (q->coll, r->coll))
            g_ptr_array_add (pts, (gpointer) q);
        }
      g_ptr_array_sort (pts, cmp_coll_bytes);
      SimCostCurve *cv = g_new0 (SimCostCurve, 1);
      cv->coll = coll;
      cv->ranks = (int) r->ranks;
      /* nccl-tests under mpirun fills servers in rank order: r ranks span the first
       * level that holds r devices */
      const TopoCluster *cl = c->cluster;
      while (cv->span + 1 < MIN (cl->n_levels, SIM_COST_MAX_LEVELS)
             && topo_cluster_level_size (cl, cv->span) < r->ranks)
        cv->span++;
      cv->log_bytes = g_new (double, pts->len);
      cv->log_busbw = g_new (double, pts->len);
      const double f = plan_coll_bus_factor (coll, cv->ranks);
      double t_prev = 0;
      for (guint j = 0; j < pts->len; j++)
        {
          const TopoProfileColl *q = g_ptr_array_index (pts, j);
          if (cv->n > 0 && log (q->bytes) <= cv->log_bytes[cv->n - 1])
            continue;
          /* more bytes never cost less time (sim/cost.h contract) */
          const double t = MAX (q->time_s, t_prev);
          t_prev = t;
          if (cv->n == 0)
            cv->latency_s = t;
          cv->log_bytes[cv->n] = log (q->bytes);
          cv->log_busbw[cv->n] = log (q->bytes * f / t);
          cv->n++;
        }
      g_ptr_array_add (c->curves, cv);
    }
}

/* The curve of `coll` measured over the same levels (`span`) on the group size nearest
 * n (in ln n; the larger on ties), or NULL. */
static const SimCostCurve *
nearest_curve (const SimCost *c, PlanColl coll, int n, guint span)
{
  const SimCostCurve *best = NULL;
  double best_d = G_MAXDOUBLE;
  for (guint i = 0; i < c->curves->len; i++)
    {
      const SimCostCurve *cv = g_ptr_array_index (c->curves, i);
      if (cv->coll != coll || cv->span != span)
        continue;
      const double d = fabs (log ((double) cv->ranks) - log ((double) MAX (n, 1)));
      if (d < best_d - 1e-12 || (fabs (d - best_d) <= 1e-12 && cv->ranks > best->ranks))
        {
          best = cv;
          best_d = d;
        }
    }
  return best;
}

/* busbw at `bytes`: ln busbw linear in ln bytes between sizes, held outside. */
static double
curve_busbw (const SimCostCurve *cv, double bytes)
{
  const double x = log (bytes);
  if (x <= cv->log_bytes[0])
    return exp (cv->log_busbw[0]);
  if (x >= cv->log_bytes[cv->n - 1])
    return exp (cv->log_busbw[cv->n - 1]);
  guint lo = 0, hi = cv->n - 1;   /* log_bytes[lo] <= x < log_bytes[hi] */
  while (hi - lo > 1)
    {
      const guint mid = (lo + hi) / 2;
      if (cv->log_bytes[mid] <= x)
        lo = mid;
      else
        hi = mid;
    }
  const double w = (x - cv->log_bytes[lo]) / (cv->log_bytes[hi] - cv->log_bytes[lo]);
  return exp (cv->log_busbw[lo] + w * (cv->log_busbw[hi] - cv->log_busbw[lo]));
}

/* t = max (latency, S x bus_factor(n) / busbw(S)) */
static double
curve_time (const SimCostCurve *cv, PlanColl coll, int n, double bytes)
{
  const double f = plan_coll_bus_factor (coll, n);
  return MAX (cv->latency_s, bytes * f / curve_busbw (cv, bytes));
}

/* ---- the level model -------------------------------------------------------------------- */

static double
level_oversub (const SimCost *c, guint l)
{
  return MAX (c->cluster->levels[l].oversubscription, 1.0);
}

/* A group inside one NVLink domain that spans several of its units (an NVL72 rack's
 * 4-GPU trays) is costed as a group inside one server: every byte between two of its
 * members leaves the GPU through the same NVLink ports and NVSwitches whichever tray it
 * goes to (levels 1..dom carry level 0's bandwidth, topo_cluster_scale_up_level), and
 * NCCL runs it as it runs one node: MNNVL goes through the P2P transport "like
 * multi-GPU single node systems" (NVIDIA/nccl issue 1159, maintainer, 2024-01), with
 * the channel count of a single node ("each GPU is still connected to an NVSwitch so
 * there is no difference in the number of channels used", issue 1429) and NVLink SHARP
 * available to every GPU of the domain (issue 1286). So the tray boundary neither adds
 * an all-to-all bandwidth pool of its own (the per-level terms below would give the
 * bytes that stay in a tray level 0's bandwidth and those that leave it level 1's, as
 * if they were two links) nor turns the group into a network one (tree, NVLS, SMs). */
static void
group_init (SimCost *c, SimCostGroup *g, const PlanGroupInfo *info)
{
  const TopoCluster *cl = c->cluster;
  const guint span = MIN (info->span_level, MIN (cl->n_levels, SIM_COST_MAX_LEVELS) - 1);
  const guint dom = MIN (topo_cluster_scale_up_level (cl), span);
  g->n = info->size;
  g->span = span > dom ? span : 0;
  g->alpha_s = sim_cost_level_alpha_s (cl, g->span);
  g->per_server = MAX (info->members_per_unit[dom], 1);
  /* measured curves take precedence (sim/cost.h, hardware profile): by the levels the
   * group spans, as nccl-tests placed the measured ranks */
  for (int k = 0; k < PLAN_COLL_N; k++)
    g->curve[k] = g->n > 1 ? nearest_curve (c, (PlanColl) k, g->n, span) : NULL;
  if (g->n <= 1)
    return;
  const double n = g->n;
  const int *m = info->members_per_unit;
  const int m0 = g->per_server;   /* members in one unit of the NVLink domain */

  /* Ring busbw: level 0 when two members share a server (domain), then each crossed
   * level l offers m_{l-1} x bw_l / o_l per group (sim/cost.h). */
  double ring = G_MAXDOUBLE;
  if (m0 > 1)
    ring = level_Bps (c, 0);
  for (guint l = dom + 1; l <= span; l++)
    ring = MIN (ring, MAX (m[l - 1], 1) * level_Bps (c, l) / level_oversub (c, l));
  g->ring_Bps = ring;

  /* All-to-all: the fraction of the buffer that leaves a unit of level l-1 shares the
   * per-device bw_l / o_l; the part that stays in the server (domain) uses level-0
   * busbw. */
  double inv = 0;   /* s per byte of buffer */
  if (m0 > 1)
    inv = MAX (inv, (m0 - 1) / n / level_Bps (c, 0));
  for (guint l = dom + 1; l <= span; l++)
    inv = MAX (inv, (n - MAX (m[l - 1], 1)) / n / (level_a2a_Bps (c, l) / level_oversub (c, l)));
  g->a2a_Bps = inv > 0 ? (n - 1) / n / inv : ring;

  /* NVLS: in-switch all-reduce inside one server or NVLink domain (NVLink SHARP). */
  const TopoDevice *dev = &cl->device;
  if (c->opts.use_nvls && dev->has_nvls && dev->nvls_busbw_Bps > 0 && g->span == 0)
    g->nvls_Bps = dev->nvls_busbw_Bps;
}

void
sim_cost_comm_init (SimCost *c, const PlanLayout *layout)
{
  const TopoCluster *cl = c->cluster;
  const guint n_levels = MIN (cl->n_levels, SIM_COST_MAX_LEVELS);
  curves_init (c);
  for (guint l = 0; l < n_levels; l++)
    c->p2p_curve[l] = nearest_curve (c, PLAN_COLL_SEND_RECV, 2, l);
  c->host_link_Bps = sim_cost_host_link_Bps (cl, NULL);   /* once, not per copy */
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
  if (g->curve[coll] != NULL)   /* measured: the largest size's busbw */
    {
      const SimCostCurve *cv = g->curve[coll];
      return exp (cv->log_busbw[cv->n - 1]);
    }
  if (uses_nvls (g, coll))
    return g->nvls_Bps;
  return coll == PLAN_COLL_ALL_TO_ALL ? g->a2a_Bps : g->ring_Bps;
}

/* The per-step part of a ring collective's latency. A ring over several servers visits
 * the members of one server in a row over NVLink and crosses the network once per
 * server: NCCL's tuning model (src/graph/tuning.cc, the ring case since NCCL 2.5, so in
 * the 2.8-2.10 of 2021 too) charges nInterSteps = 2 (nNodes - 1) steps of an all-reduce,
 * nNodes - 1 of an all-gather or reduce-scatter, at the network latency and the
 * remaining nsteps - nInterSteps at the intra-node (NVLink) latency. A group inside one
 * server, or with one member per server, keeps one latency for every step; all-to-all
 * (NCCL's grouped send/receive, not a ring) keeps it too. */
static double
ring_steps_s (const SimCost *c, const SimCostGroup *g, PlanColl coll)
{
  const int steps = plan_coll_steps (coll, g->n);
  const gboolean ring = coll == PLAN_COLL_ALL_REDUCE || coll == PLAN_COLL_ALL_GATHER
                        || coll == PLAN_COLL_REDUCE_SCATTER;
  if (!ring || g->span < 1 || g->per_server <= 1)
    return steps * g->alpha_s;
  const int servers = (g->n + g->per_server - 1) / g->per_server;
  int inter = coll == PLAN_COLL_ALL_REDUCE ? 2 * (servers - 1) : servers - 1;
  inter = MIN (inter, steps);
  return (steps - inter) * sim_cost_level_alpha_s (c->cluster, 0) + inter * g->alpha_s;
}

/* NCCL's PAT (Parallel Aggregated Trees): an all-gather and reduce-scatter algorithm with
 * a logarithmic number of network steps for small sizes at scale, in NCCL from 2.23.4
 * (release notes: "Add PAT algorithm for AllGather and ReduceScatter ... only supported
 * for one GPU per node"; the NVIDIA blog "New Scaling Algorithm and Initialization with
 * NCCL 2.23", Sept 2024; S. Jeaugey, "PAT: a new algorithm for all-gather and
 * reduce-scatter operations at scale", arXiv 2506.20252). NCCL's tuner
 * (src/graph/tuning.cc, ncclTopoTuneModel and ncclPatEnable, the same figures from 2.23
 * to 2.31) costs it for the Simple protocol only and only where nNodes == nRanks, a
 * group of one rank a server; its bus bandwidth is 0.75 of the network graph's and, not
 * being a ring, is not scaled by n / (n - 1): t_bw = bytes / (0.75 x busbw); its latency
 * is 8 us + log2i(nNodes) x interLat / 3.5 + nRanks x 2.8 us ("still a linear part"),
 * interLat the network Simple latency of a one-rank-a-node group (hwLatencies NET
 * Tree/PAT Simple, 14 us; the graph's latencyInter is 0 on InfiniBand and RoCE).
 * NCCL runs whichever of ring and PAT its model says is faster; so does this, where the
 * stack's NCCL has PAT for the collective (pat_all_gather, pat_reduce_scatter: a
 * reduce-scatter that averages inside NCCL, ncclAvg, is never run as PAT). The ring's
 * own figures stay as they are. Its SMs are the one-rank-a-server ring's
 * (nccl_ctas_net_1ppn). */
#define PAT_BASE_S 8.0e-6
#define PAT_LOG_STEP_S (14.0e-6 / 3.5)
#define PAT_PER_RANK_S 2.8e-6
#define PAT_BW_FRACTION 0.75

static gboolean
uses_pat (const SimCost *c, const SimCostGroup *g, PlanColl coll)
{
  const gboolean on = (coll == PLAN_COLL_ALL_GATHER && c->opts.pat_all_gather)
                      || (coll == PLAN_COLL_REDUCE_SCATTER && c->opts.pat_reduce_scatter);
  return on && g->span >= 1 && g->per_server == 1 && g->n >= 2;
}

static double
pat_latency_s (const SimCostGroup *g)
{
  /* log2i: NCCL's integer log2, floor (log2 n) */
  return PAT_BASE_S + floor (log2 ((double) g->n)) * PAT_LOG_STEP_S + g->n * PAT_PER_RANK_S;
}

static double
pat_s (const SimCost *c, const SimCostGroup *g, PlanColl coll, double bytes)
{
  if (!uses_pat (c, g, coll))
    return G_MAXDOUBLE;
  return pat_latency_s (g) + bytes / (PAT_BW_FRACTION * g->ring_Bps);
}

/* The ring's latency (or NVLS's flat one) of one collective of the group, without PAT */
static double
ring_latency_s (const SimCost *c, const SimCostGroup *g, PlanColl coll)
{
  if (uses_nvls (g, coll))
    return c->opts.nvls_latency_s;
  return c->opts.coll_base_latency_s + ring_steps_s (c, g, coll);
}

/* The latency of one collective of the group: the ring's (or NVLS's); where PAT may run
 * it, the lower of the ring's and PAT's, the algorithm a message small enough for
 * latency to count takes (an extra per-tensor call of ZeRO-3, sim/simulate.c). */
double
sim_cost_latency_s (const SimCost *c, PlanColl coll, PlanAxis axis)
{
  g_return_val_if_fail (c != NULL && (guint) coll < PLAN_COLL_N, 0.0);
  const SimCostGroup *g = group_of (c, axis);
  if (g == NULL || g->n <= 1)
    return 0.0;
  if (g->curve[coll] != NULL)
    return g->curve[coll]->latency_s * c->cpu_time_scale;   /* 1 but on CPU hosts */
  const double ring = ring_latency_s (c, g, coll);
  return uses_pat (c, g, coll) ? MIN (ring, pat_latency_s (g)) : ring;
}

/* NCCL's tree all-reduce (double binary tree across servers, a chain inside each): its
 * latency grows with log2 of the servers instead of the ring's 2 (n - 1) steps, so NCCL's
 * tuner picks it for small and medium all-reduces across many servers (NCCL
 * src/graph/tuning.cc computes both and takes the faster, which is what this does).
 * Figures from [NCCL-tuning] (hardware.md A4): base latency Tree LL 6.8 us (the ring
 * uses Ring LL's 6.6); per step Tree LL128 8.5 us on the network and 1.25 us on NVLink
 * (the presets' ring steps are LL128 too); the tree's bus bandwidth is NCCL's ring
 * figure x 0.92 (tuning.cc's tree correction, U: recollection of the source). */
#define TREE_BASE_S 6.8e-6
#define TREE_NET_STEP_S 8.5e-6
#define TREE_NVLINK_STEP_S 1.25e-6
#define TREE_BW_FRACTION 0.92

static double
tree_allreduce_s (const SimCost *c, const SimCostGroup *g, double bytes)
{
  const int servers = (g->n + g->per_server - 1) / g->per_server;
  if (servers < 2)
    return G_MAXDOUBLE;
  const double depth = ceil (log2 ((double) servers));
  const double lat = TREE_BASE_S + 2.0 * depth * TREE_NET_STEP_S
                     + 2.0 * (g->per_server - 1) * TREE_NVLINK_STEP_S;
  return lat + bytes * plan_coll_bus_factor (PLAN_COLL_ALL_REDUCE, g->n)
               / (g->ring_Bps * TREE_BW_FRACTION);
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
  if (g->curve[coll] != NULL)   /* a CPU host's collectives time-share too (cost-cpu.c) */
    return curve_time (g->curve[coll], coll, g->n, bytes) * c->cpu_time_scale;
  const double busbw = sim_cost_busbw_Bps (c, coll, axis);
  const double ring = ring_latency_s (c, g, coll)
                      + bytes * plan_coll_bus_factor (coll, g->n) / busbw;
  if (coll == PLAN_COLL_ALL_REDUCE && !uses_nvls (g, coll) && g->span >= 1)
    return MIN (ring, tree_allreduce_s (c, g, bytes));
  return MIN (ring, pat_s (c, g, coll, bytes));
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
  if (c->p2p_curve[l] != NULL)
    return curve_time (c->p2p_curve[l], PLAN_COLL_SEND_RECV, 2, bytes) * c->cpu_time_scale;
  return c->opts.coll_base_latency_s + c->p2p_alpha_s[l] + bytes / c->p2p_Bps[l];
}

/* ---- the host link (CPU offload copies) ---------------------------------------------- */

double
sim_cost_host_link_Bps (const TopoCluster *cluster, const char **source)
{
  const TopoDevice *d = cluster != NULL ? &cluster->device : NULL;
  if (d == NULL || !(d->host_link_Bps > 0))
    return sim_cost_default_host_link (cluster, source);   /* by device row (cost.c) */
  if (source != NULL)
    {
      *source = d->sources != NULL ? g_hash_table_lookup (d->sources, "host_link_GBps") : NULL;
      if (*source == NULL)
        *source = "the cluster's device.host_link_GBps / host_link_devices";
    }
  return d->host_link_Bps / MAX (d->host_link_devices, 1u);
}

double
sim_cost_host_copy_s (const SimCost *c, double bytes)
{
  g_return_val_if_fail (c != NULL, 0.0);
  if (c->opts.free_comm || !(bytes > 0))
    return 0.0;
  return bytes / c->host_link_Bps;
}

/* ---- SMs held by communication kernels ------------------------------------------------ */

static int
sms_round (const SimCost *c, double ctas)
{
  if (c->sms == 0 || c->opts.free_comm || !(ctas > 0))
    return 0;
  return (int) MIN (lround (ctas), (long) c->sms - 1);
}

int
sim_cost_coll_sms (const SimCost *c, PlanColl coll, PlanAxis axis, gboolean tp_overlap)
{
  g_return_val_if_fail (c != NULL && (guint) coll < PLAN_COLL_N, 0);
  const SimCostGroup *g = group_of (c, axis);
  if (g == NULL || g->n <= 1)
    return 0;
  /* a CPU host: the collective's progress thread, one unit (sim_cost_sms_slowdown) */
  if (c->sms == 0)
    return sim_cost_cpu_coll_slowdown (c) > 0 ? 1 : 0;
  const SimCostOptions *o = &c->opts;
  /* a TP chunk the stack overlaps with its GEMM runs the stack's own kernels
   * (userbuffers), not NCCL's, where the stack says so (>= 0) */
  const double tpo = coll == PLAN_COLL_REDUCE_SCATTER ? o->tp_overlap_rs_sms
                                                      : o->tp_overlap_ag_sms;
  if (tp_overlap && axis == PLAN_AXIS_TP && tpo >= 0)
    return sms_round (c, tpo);
  if (uses_nvls (g, coll))
    return sms_round (c, o->nccl_ctas_nvls);
  /* an all-to-all and the CP ring pass are grouped sends and receives: NCCL's p2p
   * channels */
  const gboolean p2p = coll == PLAN_COLL_ALL_TO_ALL || coll == PLAN_COLL_SEND_RECV;
  if (g->span == 0)
    return sms_round (c, p2p ? o->nccl_p2p_ctas_nvlink : o->nccl_ctas_nvlink);
  if (p2p)
    return sms_round (c, o->nccl_p2p_ctas_net);
  return sms_round (c, g->per_server > 1 ? o->nccl_ctas_net : o->nccl_ctas_net_1ppn);
}

double
sim_cost_sms_slowdown (const SimCost *c, int held)
{
  g_return_val_if_fail (c != NULL, 0.0);
  if (held <= 0)
    return 0.0;
  /* a CPU host: one progress thread per rank, busy while any of its collectives runs */
  if (c->sms == 0)
    return sim_cost_cpu_coll_slowdown (c);
  const double h = MIN ((double) held, (double) c->sms - 1);
  return h / ((double) c->sms - h);
}

int
sim_cost_ep_sms (const SimCost *c)
{
  g_return_val_if_fail (c != NULL, 0);
  return sms_round (c, c->opts.ep_comm_sms);
}
