/* tests/plan/test-layout.c - rank <-> coordinates, groups and the levels they span. */
#include "plan/layout.h"

#include <string.h>

static TopoCluster *
h100_24k (void)
{
  g_autoptr (GError) error = NULL;
  TopoCluster *c = topo_cluster_lookup ("h100-24k", &error);
  g_assert_no_error (error);
  return c;
}

static void
llama3_plan (Plan *p, const char *order)
{
  plan_init_defaults (p);
  p->world_size = 16384;
  p->tp = 8;
  p->pp = 16;
  p->dp = 128;       /* 16384 / (8 x 16) */
  p->global_batch = 2048;
  p->grad_accum = 16;
  if (order)
    {
      g_free (p->rank_order);
      p->rank_order = g_strdup (order);
    }
}

/* Megatron's default order tp-cp-ep-dp-pp: rank = tp + 8 (dp + 128 pp).
 * TP group of rank 0 = ranks 0..7: one server (level 0).
 * DP group: stride 8, 128 members: ranks 0..1016 lie in the first 1,024 GPUs, inside one
 *   pod of 3,072 (level 2).
 * PP group: stride 8 x 128 = 1024, 16 members: ranks 0..15360, across 6 pods (level 3). */
static void
test_megatron_order (void)
{
  g_autoptr (TopoCluster) c = h100_24k ();
  Plan p;
  llama3_plan (&p, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (PlanLayout) lay = plan_layout_new (&p, c, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (lay->groups[PLAN_AXIS_TP].span_level, ==, 0);
  g_assert_cmpstr (lay->groups[PLAN_AXIS_TP].span_name, ==, "server");
  g_assert_cmpuint (lay->groups[PLAN_AXIS_DP].span_level, ==, 2);
  g_assert_cmpuint (lay->groups[PLAN_AXIS_DP].stride, ==, 8);
  g_assert_cmpuint (lay->groups[PLAN_AXIS_PP].span_level, ==, 3);
  g_assert_cmpuint (lay->groups[PLAN_AXIS_PP].stride, ==, 1024);
  g_assert_cmpint (lay->groups[PLAN_AXIS_DP].n_groups, ==, 128);   /* 16384 / 128 */

  /* rank 8 x (5 + 128 x 3) + 2 = 3114 has tp 2, dp 5, pp 3 */
  PlanCoord co;
  plan_layout_coord_of (lay, 3114, &co);
  g_assert_cmpint (co.coord[PLAN_AXIS_TP], ==, 2);
  g_assert_cmpint (co.coord[PLAN_AXIS_DP], ==, 5);
  g_assert_cmpint (co.coord[PLAN_AXIS_PP], ==, 3);

  /* One DP group's members per unit: a server holds 1 of them (stride 8), a rack of 16
   * GPUs holds 2, a pod holds all 128. */
  const PlanGroupInfo *dp = &lay->groups[PLAN_AXIS_DP];
  g_assert_cmpint (dp->members_per_unit[0], ==, 1);
  g_assert_cmpint (dp->members_per_unit[1], ==, 2);
  g_assert_cmpint (dp->members_per_unit[2], ==, 128);
  plan_clear (&p);
}

/* The Llama 3 paper orders its dimensions [TP, CP, PP, DP] innermost first (section
 * 3.3.2), so DP is outermost: stride 8 x 16 = 128, 128 members over 16,384 GPUs, which
 * crosses pods (level 3), while PP (stride 8, 16 members = 128 GPUs) stays in a pod. */
static void
test_llama3_order (void)
{
  g_autoptr (TopoCluster) c = h100_24k ();
  Plan p;
  llama3_plan (&p, "tp-cp-ep-pp-dp");
  g_autoptr (GError) error = NULL;
  g_autoptr (PlanLayout) lay = plan_layout_new (&p, c, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (lay->groups[PLAN_AXIS_TP].span_level, ==, 0);
  g_assert_cmpuint (lay->groups[PLAN_AXIS_DP].span_level, ==, 3);
  g_assert_cmpstr (lay->groups[PLAN_AXIS_DP].span_name, ==, "cluster");
  g_assert_cmpuint (lay->groups[PLAN_AXIS_DP].stride, ==, 128);
  g_assert_cmpuint (lay->groups[PLAN_AXIS_PP].span_level, ==, 2);
  /* 3,072 / 128 = 24 DP members share a pod */
  g_assert_cmpint (lay->groups[PLAN_AXIS_DP].members_per_unit[2], ==, 24);
  plan_clear (&p);
}

/* Every rank maps to coordinates and back; every group colour is shared by exactly the
 * members of that group. Small plan: tp 2, cp 2, dp 4 (HSDP shard 2), pp 2 = 32 ranks. */
static void
test_roundtrip_and_colors (void)
{
  g_autoptr (TopoCluster) c = h100_24k ();
  Plan p;
  plan_init_defaults (&p);
  p.world_size = 32;
  p.tp = 2, p.cp = 2, p.dp = 4, p.pp = 2;
  p.sharding = PLAN_SHARD_HSDP;
  p.hsdp_shard_size = 2;
  g_autoptr (GError) error = NULL;
  g_autoptr (PlanLayout) lay = plan_layout_new (&p, c, &error);
  g_assert_no_error (error);
  for (int r = 0; r < 32; r++)
    {
      PlanCoord co;
      plan_layout_coord_of (lay, r, &co);
      g_assert_cmpint (plan_layout_rank_of (lay, &co), ==, r);
    }
  for (int a = 0; a < PLAN_AXIS_N_GROUPS; a++)
    {
      int size = lay->groups[a].size;
      int *members = g_new (int, size);
      for (int r = 0; r < 32; r++)
        {
          int me = plan_layout_group_members (lay, a, r, members);
          g_assert_cmpint (members[me], ==, r);
          int color = plan_layout_group_color (lay, a, r);
          int same = 0;
          for (int q = 0; q < 32; q++)
            if (plan_layout_group_color (lay, a, q) == color)
              same++;
          g_assert_cmpint (same, ==, size);
          for (int i = 0; i < size; i++)
            g_assert_cmpint (plan_layout_group_color (lay, a, members[i]), ==, color);
        }
      g_free (members);
    }
  /* HSDP: shard groups of 2 DP ranks, replica groups of 4 / 2 = 2; CP x DP = 8. */
  g_assert_cmpint (lay->groups[PLAN_AXIS_DP_SHARD].size, ==, 2);
  g_assert_cmpint (lay->groups[PLAN_AXIS_DP_REPLICA].size, ==, 2);
  g_assert_cmpint (lay->groups[PLAN_AXIS_CPDP].size, ==, 8);
  /* rank 0's shard group: dp 0 and 1 -> ranks 0 and 2 x 2 = 4 (tp 2 x cp 2 inside) */
  int m[2];
  plan_layout_group_members (lay, PLAN_AXIS_DP_SHARD, 0, m);
  g_assert_cmpint (m[0], ==, 0);
  g_assert_cmpint (m[1], ==, 4);
  /* replica group: dp 0 and 2 -> ranks 0 and 8 */
  plan_layout_group_members (lay, PLAN_AXIS_DP_REPLICA, 0, m);
  g_assert_cmpint (m[1], ==, 8);
  plan_clear (&p);
}

static void
test_bad_order (void)
{
  g_autoptr (TopoCluster) c = h100_24k ();
  Plan p;
  llama3_plan (&p, "tp-dp-pp");
  g_autoptr (GError) error = NULL;
  g_autoptr (PlanLayout) lay = plan_layout_new (&p, c, &error);
  g_assert_null (lay);
  g_assert_error (error, PLAN_ERROR, PLAN_ERROR_USAGE);
  g_assert_nonnull (strstr (error->message, "tp-cp-ep-dp-pp"));
  plan_clear (&p);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/plan/layout/megatron-order", test_megatron_order);
  g_test_add_func ("/plan/layout/llama3-order", test_llama3_order);
  g_test_add_func ("/plan/layout/roundtrip-colors", test_roundtrip_and_colors);
  g_test_add_func ("/plan/layout/bad-order", test_bad_order);
  return g_test_run ();
}
