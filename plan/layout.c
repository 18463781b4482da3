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
                                       "dp_replica", "cp_dp" };
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

/* Members of a derived or plain group, in group order. */
int
plan_layout_group_members (const PlanLayout *layout, PlanAxis axis, int rank, int *members)
{
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

static void
layout_fill_group (PlanLayout *layout, PlanAxis axis, int size)
{
  PlanGroupInfo *g = &layout->groups[axis];
  const TopoCluster *cl = layout->cluster;
  g->axis = axis;
  g->size = size;
  g->n_groups = size > 0 ? layout->world / size : 0;
  int *members = g_new (int, size);

  /* The span is the outermost level any group of this axis crosses; groups are
   * translates of one another only when the axes align with the levels, so check them
   * all (O(world) per axis). */
  guint span = 0;
  g_autofree gboolean *done = g_new0 (gboolean, layout->world);
  for (int r = 0; r < layout->world; r++)
    {
      if (done[r])
        continue;
      plan_layout_group_members (layout, axis, r, members);
      for (int i = 0; i < size; i++)
        {
          done[members[i]] = TRUE;
          span = MAX (span, topo_cluster_common_level (cl, members[0], members[i]));
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

PlanLayout *
plan_layout_new (const Plan *plan, const TopoCluster *cluster, GError **error)
{
  g_autoptr (PlanLayout) layout = g_new0 (PlanLayout, 1);
  layout->cluster = topo_cluster_ref ((TopoCluster *) cluster);
  layout->world = plan->world_size;
  layout->size[PLAN_AXIS_TP] = plan->tp;
  layout->size[PLAN_AXIS_CP] = plan->cp;
  layout->size[PLAN_AXIS_EP] = plan->ep;
  /* EP is carved out of DP in Megatron; with ep = 1 the dp axis is the whole DP. */
  layout->size[PLAN_AXIS_DP] = plan->dp / MAX (plan->ep, 1);
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

  for (int a = 0; a < PLAN_AXIS_N; a++)
    layout_fill_group (layout, (PlanAxis) a, layout->size[a]);
  layout_fill_group (layout, PLAN_AXIS_DP_SHARD, layout->hsdp_shard);
  layout_fill_group (layout, PLAN_AXIS_DP_REPLICA,
                     layout->size[PLAN_AXIS_DP] / layout->hsdp_shard);
  layout_fill_group (layout, PLAN_AXIS_CPDP,
                     layout->size[PLAN_AXIS_DP] * layout->size[PLAN_AXIS_CP]);
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
