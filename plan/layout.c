/* plan/layout.c - rank <-> coordinates <-> devices, and the levels each group spans.
 *
 * Megatron's default order "tp-cp-ep-dp-pp" lists axes innermost first: rank =
 * tp + TP x (cp + CP x (ep + EP x (dp + DP x pp))) (megatron/core/parallel_state.py,
 * RankGenerator). Rank r runs on device r, and consecutive devices share a server. */
#include "plan/layout.h"

#include <string.h>

const char *
plan_axis_name (PlanAxis axis)
{
  static const char *const names[] = { "tp", "cp", "ep", "dp", "pp", "dp_shard",
                                       "dp_replica", "cp_dp", "etp", "edp", "etp_ep",
                                       "embd" };
  return (guint) axis < G_N_ELEMENTS (names) ? names[axis] : "?";
}

static gboolean
parse_order (const char *order, PlanAxis out[PLAN_AXIS_N], GError **error)
{
  g_auto (GStrv) parts = g_strsplit (order, "-", -1);
  gboolean seen[PLAN_AXIS_N] = { FALSE };
  guint n = g_strv_length (parts);
  if (n != PLAN_AXIS_N)
    goto bad;
  for (guint i = 0; i < n; i++)
    {
      int found = -1;
      for (int a = 0; a < PLAN_AXIS_N; a++)
        if (g_ascii_strcasecmp (parts[i], plan_axis_name (a)) == 0)
          found = a;
      if (found < 0 || seen[found])
        goto bad;
      seen[found] = TRUE;
      out[i] = (PlanAxis) found;
    }
  return TRUE;
bad:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE,
               "rank order '%s' must name tp, cp, ep, dp and pp once each, innermost first "
               "(hint: tp-cp-ep-dp-pp, Megatron's default)", order);
  return FALSE;
}

void
plan_layout_coord_of (const PlanLayout *layout, int rank, PlanCoord *out)
{
  for (int a = 0; a < PLAN_AXIS_N; a++)
    out->coord[a] = (int) ((guint64) rank / layout->stride[a] % (guint64) layout->size[a]);
}

int
plan_layout_rank_of (const PlanLayout *layout, const PlanCoord *coord)
{
  guint64 r = 0;
  for (int a = 0; a < PLAN_AXIS_N; a++)
    r += (guint64) coord->coord[a] * layout->stride[a];
  return (int) r;
}

void
plan_layout_expert_coord_of (const PlanLayout *layout, int rank, int out[4])
{
  for (int a = 0; a < 4; a++)
    out[a] = (int) ((guint64) rank / layout->exp_stride[a] % (guint64) layout->exp_size[a]);
}

static gboolean
expert_axis (PlanAxis axis)
{
  return axis == PLAN_AXIS_EP || axis == PLAN_AXIS_ETP || axis == PLAN_AXIS_EDP
         || axis == PLAN_AXIS_EXPT;
}

/* The expert-side group of `rank`: members vary the etp coordinate (innermost) and/or
 * the ep coordinate, or the edp coordinate. */
static int
expert_members (const PlanLayout *layout, PlanAxis axis, int rank, int *members)
{
  int e[4];
  plan_layout_expert_coord_of (layout, rank, e);
  const guint64 *st = layout->exp_stride;
  guint64 base = (guint64) rank;
  int n = 0;
  if (axis == PLAN_AXIS_EDP)
    {
      base -= (guint64) e[PLAN_EXP_EDP] * st[PLAN_EXP_EDP];
      for (int i = 0; i < layout->exp_size[PLAN_EXP_EDP]; i++)
        members[n++] = (int) (base + (guint64) i * st[PLAN_EXP_EDP]);
      return e[PLAN_EXP_EDP];
    }
  gboolean vary_etp = axis == PLAN_AXIS_ETP || axis == PLAN_AXIS_EXPT;
  gboolean vary_ep = axis == PLAN_AXIS_EP || axis == PLAN_AXIS_EXPT;
  int n_etp = vary_etp ? layout->exp_size[PLAN_EXP_ETP] : 1;
  int n_ep = vary_ep ? layout->exp_size[PLAN_EXP_EP] : 1;
  if (vary_etp)
    base -= (guint64) e[PLAN_EXP_ETP] * st[PLAN_EXP_ETP];
  if (vary_ep)
    base -= (guint64) e[PLAN_EXP_EP] * st[PLAN_EXP_EP];
  for (int j = 0; j < n_ep; j++)
    for (int i = 0; i < n_etp; i++)
      members[n++] = (int) (base + (guint64) i * st[PLAN_EXP_ETP]
                            + (guint64) j * st[PLAN_EXP_EP]);
  return (vary_ep ? e[PLAN_EXP_EP] : 0) * n_etp + (vary_etp ? e[PLAN_EXP_ETP] : 0);
}

/* Members of a derived or plain group, in group order. */
int
plan_layout_group_members (const PlanLayout *layout, PlanAxis axis, int rank, int *members)
{
  if (expert_axis (axis))
    return expert_members (layout, axis, rank, members);
  PlanCoord c;
  plan_layout_coord_of (layout, rank, &c);
  int me = 0, n = 0;
  if (axis < PLAN_AXIS_N)
    {
      PlanCoord m = c;
      for (int i = 0; i < layout->size[axis]; i++)
        {
          m.coord[axis] = i;
          members[n++] = plan_layout_rank_of (layout, &m);
        }
      return c.coord[axis];
    }
  int K = layout->hsdp_shard;
  int dp = c.coord[PLAN_AXIS_DP];
  PlanCoord m = c;
  switch (axis)
    {
    case PLAN_AXIS_DP_SHARD:   /* K consecutive DP ranks */
      for (int i = 0; i < K; i++)
        {
          m.coord[PLAN_AXIS_DP] = dp / K * K + i;
          members[n++] = plan_layout_rank_of (layout, &m);
        }
      me = dp % K;
      break;
    case PLAN_AXIS_DP_REPLICA: /* DP ranks with the same shard index */
      for (int i = 0; i < layout->size[PLAN_AXIS_DP] / K; i++)
        {
          m.coord[PLAN_AXIS_DP] = i * K + dp % K;
          members[n++] = plan_layout_rank_of (layout, &m);
        }
      me = dp / K;
      break;
    case PLAN_AXIS_CPDP:       /* CP innermost, then DP */
      for (int d = 0; d < layout->size[PLAN_AXIS_DP]; d++)
        for (int cp = 0; cp < layout->size[PLAN_AXIS_CP]; cp++)
          {
            m.coord[PLAN_AXIS_DP] = d;
            m.coord[PLAN_AXIS_CP] = cp;
            members[n++] = plan_layout_rank_of (layout, &m);
          }
      me = dp * layout->size[PLAN_AXIS_CP] + c.coord[PLAN_AXIS_CP];
      break;
    case PLAN_AXIS_EMBD:       /* pipeline stage 0, then the last (or the rank alone) */
      if (layout->groups[PLAN_AXIS_EMBD].size <= 1)
        {
          members[n++] = rank;
          break;
        }
      m.coord[PLAN_AXIS_PP] = 0;
      members[n++] = plan_layout_rank_of (layout, &m);
      m.coord[PLAN_AXIS_PP] = layout->size[PLAN_AXIS_PP] - 1;
      members[n++] = plan_layout_rank_of (layout, &m);
      me = c.coord[PLAN_AXIS_PP] == 0 ? 0 : 1;
      break;
    default:
      g_assert_not_reached ();
    }
  return me;
}

int
plan_layout_group_color (const PlanLayout *layout, PlanAxis axis, int rank)
{
  /* The smallest member rank identifies the group. */
  int size = layout->groups[axis].size;
  int *members = g_newa (int, size);
  plan_layout_group_members (layout, axis, rank, members);
  int lo = members[0];
  for (int i = 1; i < size; i++)
    lo = MIN (lo, members[i]);
  return lo;
}

/* Level units are contiguous ranges of ranks, so a group stays inside one unit of level l
 * exactly when its smallest and largest members do. With positive strides the smallest
 * member of a group has its varying coordinates at 0 and the largest at their maximum,
 * so every group's extent is O(1) from its leader (its smallest member). */
static gboolean
group_leader_extent (const PlanLayout *lay, PlanAxis axis, const PlanCoord *c, int rank,
                     guint64 *hi)
{
  const guint64 *st = lay->stride;
  const int *sz = lay->size;
  int K = lay->hsdp_shard;
  if (expert_axis (axis))
    {
      int e[4];
      plan_layout_expert_coord_of (lay, rank, e);
      const guint64 *es = lay->exp_stride;
      const int *ez = lay->exp_size;
      gboolean vary_etp = axis == PLAN_AXIS_ETP || axis == PLAN_AXIS_EXPT;
      gboolean vary_ep = axis == PLAN_AXIS_EP || axis == PLAN_AXIS_EXPT;
      gboolean vary_edp = axis == PLAN_AXIS_EDP;
      if ((vary_etp && e[PLAN_EXP_ETP] != 0) || (vary_ep && e[PLAN_EXP_EP] != 0)
          || (vary_edp && e[PLAN_EXP_EDP] != 0))
        return FALSE;
      *hi = (guint64) rank
            + (vary_etp ? (guint64) (ez[PLAN_EXP_ETP] - 1) * es[PLAN_EXP_ETP] : 0)
            + (vary_ep ? (guint64) (ez[PLAN_EXP_EP] - 1) * es[PLAN_EXP_EP] : 0)
            + (vary_edp ? (guint64) (ez[PLAN_EXP_EDP] - 1) * es[PLAN_EXP_EDP] : 0);
      return TRUE;
    }
  switch (axis)
    {
    case PLAN_AXIS_DP_SHARD:
      if (c->coord[PLAN_AXIS_DP] % K != 0)
        return FALSE;
      *hi = (guint64) rank + (guint64) (K - 1) * st[PLAN_AXIS_DP];
      return TRUE;
    case PLAN_AXIS_DP_REPLICA:
      if (c->coord[PLAN_AXIS_DP] >= K)
        return FALSE;
      *hi = (guint64) rank + (guint64) (sz[PLAN_AXIS_DP] / K - 1) * K * st[PLAN_AXIS_DP];
      return TRUE;
    case PLAN_AXIS_EMBD:
      if (c->coord[PLAN_AXIS_PP] != 0)
        return FALSE;
      *hi = (guint64) rank + (guint64) (sz[PLAN_AXIS_PP] - 1) * st[PLAN_AXIS_PP];
      return TRUE;
    case PLAN_AXIS_CPDP:
      if (c->coord[PLAN_AXIS_DP] != 0 || c->coord[PLAN_AXIS_CP] != 0)
        return FALSE;
      *hi = (guint64) rank + (guint64) (sz[PLAN_AXIS_CP] - 1) * st[PLAN_AXIS_CP]
            + (guint64) (sz[PLAN_AXIS_DP] - 1) * st[PLAN_AXIS_DP];
      return TRUE;
    default:
      if (c->coord[axis] != 0)
        return FALSE;
      *hi = (guint64) rank + (guint64) (sz[axis] - 1) * st[axis];
      return TRUE;
    }
}

static void
layout_fill_group (PlanLayout *layout, PlanAxis axis, int size)
{
  PlanGroupInfo *g = &layout->groups[axis];
  const TopoCluster *cl = layout->cluster;
  g->axis = axis;
  g->size = size;
  g->n_groups = size > 0 ? layout->world / size : 0;
  int *members = g_new (int, MAX (size, 1));

  /* The span is the outermost level any group of this axis crosses (groups are not all
   * translates of one another when the axes do not align with the levels). */
  guint span = 0;
  if (size > 1 && axis < PLAN_AXIS_N && axis != PLAN_AXIS_EP)
    {
      /* a plain axis: its leaders (coordinate 0) fill blocks [k S n, k S n + S) of the
       * ranks, S its stride and n its size */
      guint64 stride = layout->stride[axis], block = stride * (guint64) size;
      for (guint64 base = 0; base < (guint64) layout->world && span + 1 < cl->n_levels;
           base += block)
        for (guint64 r = base; r < base + stride && span + 1 < cl->n_levels; r++)
          span = MAX (span, topo_cluster_common_level (cl, r, r + (guint64) (size - 1) * stride));
    }
  else if (size > 1)
    {
      PlanCoord c;
      for (int r = 0; r < layout->world && span + 1 < cl->n_levels; r++)
        {
          guint64 hi;
          plan_layout_coord_of (layout, r, &c);
          if (group_leader_extent (layout, axis, &c, r, &hi))
            span = MAX (span, topo_cluster_common_level (cl, (guint64) r, hi));
        }
    }
  g->span_level = span;
  g->span_name = cl->levels[span].name;

  /* Members of rank 0's group that share each level's unit with member 0. */
  plan_layout_group_members (layout, axis, 0, members);
  for (guint l = 0; l < G_N_ELEMENTS (g->members_per_unit); l++)
    {
      int count = 0;
      for (int i = 0; i < size; i++)
        if (l >= cl->n_levels || topo_cluster_common_level (cl, members[0], members[i]) <= l)
          count++;
      g->members_per_unit[l] = count;
    }
  g->stride = size > 1 ? (guint64) ABS (members[1] - members[0]) : 0;
  g_free (members);
}

/* Group `axis` has the members of group `from` (already filled). */
static void
layout_copy_group (PlanLayout *layout, PlanAxis axis, PlanAxis from)
{
  layout->groups[axis] = layout->groups[from];
  layout->groups[axis].axis = axis;
}

PlanLayout *
plan_layout_new (const Plan *plan, const TopoCluster *cluster, GError **error)
{
  g_autoptr (PlanLayout) layout = g_new0 (PlanLayout, 1);
  layout->cluster = topo_cluster_ref ((TopoCluster *) cluster);
  layout->world = plan->world_size;
  layout->size[PLAN_AXIS_TP] = plan->tp;
  layout->size[PLAN_AXIS_CP] = plan->cp;
  /* MoE parallel folding: the dense side has no ep axis (ep 1, dp the whole DP); the
   * expert side below decomposes the same ranks again. */
  layout->size[PLAN_AXIS_EP] = 1;
  layout->size[PLAN_AXIS_DP] = plan->dp;
  layout->size[PLAN_AXIS_PP] = plan->pp;
  layout->hsdp_shard = plan->sharding == PLAN_SHARD_HSDP ? MAX (plan->hsdp_shard_size, 1)
                                                         : layout->size[PLAN_AXIS_DP];
  if (!parse_order (plan->rank_order ? plan->rank_order : "tp-cp-ep-dp-pp", layout->order,
                    error))
    return NULL;

  guint64 stride = 1;
  for (int i = 0; i < PLAN_AXIS_N; i++)
    {
      layout->stride[layout->order[i]] = stride;
      stride *= (guint64) layout->size[layout->order[i]];
    }
  if (stride != (guint64) layout->world)
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID,
                   "tp x cp x ep x dp x pp = %" G_GUINT64_FORMAT " != world size %d "
                   "(hint: resolve the plan first)", stride, layout->world);
      return NULL;
    }
  if ((guint64) layout->world > cluster->n_devices)
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID,
                   "world size %d exceeds the %" G_GUINT64_FORMAT " devices of %s",
                   layout->world, cluster->n_devices, cluster->name);
      return NULL;
    }

  /* the expert side, in the same order: tp -> etp, ep -> ep, dp -> edp, cp dropped */
  {
    int ep = MAX (plan->ep, 1), etp = plan->etp > 0 ? plan->etp : plan->tp;
    gint64 stage_ranks = (gint64) plan->tp * plan->cp * plan->dp;
    if (stage_ranks % ((gint64) etp * ep) != 0)
      {
        g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID,
                     "expert tp x ep = %d x %d does not divide the %" G_GINT64_FORMAT
                     " ranks of a pipeline stage (hint: resolve the plan first)", etp, ep,
                     stage_ranks);
        return NULL;
      }
    layout->exp_size[PLAN_EXP_ETP] = etp;
    layout->exp_size[PLAN_EXP_EP] = ep;
    layout->exp_size[PLAN_EXP_EDP] = (int) (stage_ranks / ((gint64) etp * ep));
    layout->exp_size[PLAN_EXP_PP] = plan->pp;
    guint64 es = 1;
    for (int i = 0; i < PLAN_AXIS_N; i++)
      {
        int e = layout->order[i] == PLAN_AXIS_TP ? PLAN_EXP_ETP
                : layout->order[i] == PLAN_AXIS_EP ? PLAN_EXP_EP
                : layout->order[i] == PLAN_AXIS_DP ? PLAN_EXP_EDP
                : layout->order[i] == PLAN_AXIS_PP ? PLAN_EXP_PP : -1;
        if (e < 0)
          continue;
        layout->exp_stride[e] = es;
        es *= (guint64) layout->exp_size[e];
      }
  }

  for (int a = 0; a < PLAN_AXIS_N; a++)
    layout_fill_group (layout, (PlanAxis) a,
                       a == PLAN_AXIS_EP ? layout->exp_size[PLAN_EXP_EP] : layout->size[a]);
  /* Expert groups whose members are those of a plain group (a dense model: etp = tp,
   * ep 1, cp 1) are copied rather than found by a scan of every rank (a fifth of a
   * 16,384-GPU prediction): the same stride and size give each rank the same members. */
  if (layout->exp_stride[PLAN_EXP_ETP] == layout->stride[PLAN_AXIS_TP]
      && layout->exp_size[PLAN_EXP_ETP] == layout->size[PLAN_AXIS_TP])
    layout_copy_group (layout, PLAN_AXIS_ETP, PLAN_AXIS_TP);
  else
    layout_fill_group (layout, PLAN_AXIS_ETP, layout->exp_size[PLAN_EXP_ETP]);
  if (layout->exp_stride[PLAN_EXP_EDP] == layout->stride[PLAN_AXIS_DP]
      && layout->exp_size[PLAN_EXP_EDP] == layout->size[PLAN_AXIS_DP])
    layout_copy_group (layout, PLAN_AXIS_EDP, PLAN_AXIS_DP);
  else
    layout_fill_group (layout, PLAN_AXIS_EDP, layout->exp_size[PLAN_EXP_EDP]);
  if (layout->exp_size[PLAN_EXP_EP] == 1)   /* etp x 1: the expert TP group itself */
    layout_copy_group (layout, PLAN_AXIS_EXPT, PLAN_AXIS_ETP);
  else
    layout_fill_group (layout, PLAN_AXIS_EXPT,
                       layout->exp_size[PLAN_EXP_ETP] * layout->exp_size[PLAN_EXP_EP]);
  /* Derived groups. Without HSDP the shard group is the DP group and replicas are
   * single ranks; without CP the CP x DP group is the DP group: copy instead of
   * scanning the ranks again. */
  if (plan->sharding == PLAN_SHARD_HSDP)
    {
      layout_fill_group (layout, PLAN_AXIS_DP_SHARD, layout->hsdp_shard);
      layout_fill_group (layout, PLAN_AXIS_DP_REPLICA,
                         layout->size[PLAN_AXIS_DP] / layout->hsdp_shard);
    }
  else
    {
      layout->groups[PLAN_AXIS_DP_SHARD] = layout->groups[PLAN_AXIS_DP];
      layout->groups[PLAN_AXIS_DP_SHARD].axis = PLAN_AXIS_DP_SHARD;
      layout_fill_group (layout, PLAN_AXIS_DP_REPLICA, 1);
    }
  if (layout->size[PLAN_AXIS_CP] > 1)
    layout_fill_group (layout, PLAN_AXIS_CPDP,
                       layout->size[PLAN_AXIS_DP] * layout->size[PLAN_AXIS_CP]);
  else
    {
      layout->groups[PLAN_AXIS_CPDP] = layout->groups[PLAN_AXIS_DP];
      layout->groups[PLAN_AXIS_CPDP].axis = PLAN_AXIS_CPDP;
    }
  /* Megatron-Core's embedding group (parallel_state.py: the first and last rank of each
   * pipeline), over which finalize_model_grads all-reduces the word embedding's gradient
   * when MTP keeps a copy of it on the last stage (program.c); one group per pipeline.
   * DualPipe holds both ends on ranks 0 and pp - 1 alike: no group. */
  if (plan->mtp_num_layers > 0 && plan->pp > 1 && plan->schedule != PLAN_SCHED_DUALPIPE)
    {
      layout_fill_group (layout, PLAN_AXIS_EMBD, 2);
      layout->groups[PLAN_AXIS_EMBD].n_groups = layout->world / plan->pp;
    }
  else
    layout_fill_group (layout, PLAN_AXIS_EMBD, 1);
  return g_steal_pointer (&layout);
}

void
plan_layout_free (PlanLayout *layout)
{
  if (layout == NULL)
    return;
  topo_cluster_unref (layout->cluster);
  g_free (layout);
}
