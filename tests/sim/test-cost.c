/* tests/sim/test-cost.c - the cost model (sim/cost.h) against hand derivations.
 *
 * Numbers from the h100-24k preset (topology/presets/h100-24k.json): level 0 server
 * busbw B0 = 370 GB/s, alpha0 = 1.9 us; rack and pod busbw 47 GB/s, alpha 4.0 us; cluster
 * busbw 47 GB/s, alpha 14 us, oversubscription 7; NVLS busbw 475 GB/s; H100 989.4 TFLOP/s
 * BF16, 1978.9 FP8, 3.35 TB/s HBM, 132 SMs, MAMF 0.803, launch 4 us. Cost defaults
 * (sim/cost.c): NCCL base 6.6 us, NVLS latency 25 us, mem_efficiency 0.90, tiles
 * 128 x 256, small_k_half 128, attention 0.60 fwd / 0.45 bwd on Hopper.
 * Each numeric assert has its derivation above it; "~" marks a rounded value checked to
 * a relative 1e-3. */
#include "sim/cost.h"
#include "cost-ops.h"
#include "../assert-rel.h"

#include <math.h>

#define GIB 1073741824.0

typedef struct {
  TopoCluster *h100;     /* h100-24k */
} Fixture;

static void
setup (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  f->h100 = topo_cluster_load_preset ("h100-24k", &error);
  g_assert_no_error (error);
  g_assert_nonnull (f->h100);
}

static void
teardown (Fixture *f, gconstpointer data)
{
  g_clear_pointer (&f->h100, topo_cluster_unref);
}

static PlanLayout *
make_layout (const TopoCluster *cluster, int tp, int dp, int pp, const char *order)
{
  g_autoptr (GError) error = NULL;
  Plan plan;
  plan_init_defaults (&plan);
  plan.tp = tp;
  plan.dp = dp;
  plan.pp = pp;
  plan.world_size = tp * dp * pp;
  if (order != NULL)
    {
      g_free (plan.rank_order);
      plan.rank_order = g_strdup (order);
    }
  PlanLayout *layout = plan_layout_new (&plan, cluster, &error);
  g_assert_no_error (error);
  plan_clear (&plan);
  return layout;
}

static SimCost *
make_cost (const TopoCluster *cluster, const PlanLayout *layout, gboolean nvls)
{
  SimCostOptions o;
  sim_cost_options_init_documented (&o, cluster);
  o.use_nvls = nvls;
  return sim_cost_new (cluster, layout, &o);
}

/* A preset cluster (topology/presets). */
static TopoCluster *
cluster_preset (const char *name)
{
  g_autoptr (GError) error = NULL;
  TopoCluster *c = topo_cluster_load_preset (name, &error);
  g_assert_no_error (error);
  return c;
}

/* A cost model with the framework stack `stack`'s options (frameworks/presets) on
 * `cluster`. */
static SimCost *
stack_cost (const TopoCluster *cluster, const char *stack)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FwStack) fw = fw_stack_load_preset (stack, &error);
  g_assert_no_error (error);
  SimCostOptions o;
  sim_cost_options_init_stack (&o, cluster, fw);
  return sim_cost_new (cluster, NULL, &o);
}

/* The SMs a collective's kernel holds (sim_cost_coll_sms): NCCL's channels by where the
 * group lies (sim/cost.c: 24 for a ring in one H100 server, 16 NVLS, 16 across servers
 * with 8 members a server, 4 with one), the stack's kernels for a TP piece it overlaps
 * (TE userbuffers: 16 for a reduce-scatter, 0 for the copy-engine all-gather). Compute
 * beside k held SMs of 132 runs k / (132 - k) longer: 24 -> 24/108 = 2/9. */
static void
test_comm_sms (Fixture *f, gconstpointer data)
{
  /* TP 8 in a server, DP 8 across servers with one member a server (tp-dp order) */
  g_autoptr (PlanLayout) l1 = make_layout (f->h100, 8, 8, 1, NULL);
  SimCostOptions o;
  sim_cost_options_init_documented (&o, f->h100);
  o.use_nvls = FALSE;
  g_autoptr (SimCost) c = sim_cost_new (f->h100, l1, &o);
  g_assert_cmpint (sim_cost_coll_sms (c, PLAN_COLL_REDUCE_SCATTER, PLAN_AXIS_TP, FALSE), ==, 24);
  g_assert_cmpint (sim_cost_coll_sms (c, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP, FALSE), ==, 24);
  g_assert_cmpint (sim_cost_coll_sms (c, PLAN_COLL_REDUCE_SCATTER, PLAN_AXIS_DP, FALSE), ==, 4);
  /* not stated by the stack (-1): a TP piece runs NCCL's kernel */
  g_assert_cmpint (sim_cost_coll_sms (c, PLAN_COLL_REDUCE_SCATTER, PLAN_AXIS_TP, TRUE), ==, 24);
  g_assert_cmpfloat_with_epsilon (sim_cost_sms_slowdown (c, 24), 2.0 / 9.0, 1e-15);
  g_assert_cmpfloat (sim_cost_sms_slowdown (c, 0), ==, 0);
  /* the compute keeps one SM at least: 200 held of 132 counts as 131 */
  g_assert_cmpfloat (sim_cost_sms_slowdown (c, 200), ==, 131.0);
  o.use_nvls = TRUE;
  o.tp_overlap_ag_sms = 0;
  o.tp_overlap_rs_sms = 16;
  g_autoptr (SimCost) cn = sim_cost_new (f->h100, l1, &o);
  g_assert_cmpint (sim_cost_coll_sms (cn, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP, FALSE), ==, 16);
  g_assert_cmpint (sim_cost_coll_sms (cn, PLAN_COLL_REDUCE_SCATTER, PLAN_AXIS_TP, TRUE), ==, 16);
  g_assert_cmpint (sim_cost_coll_sms (cn, PLAN_COLL_ALL_GATHER, PLAN_AXIS_TP, TRUE), ==, 0);
  /* DP 16 over two servers, 8 members a server (TP 1) */
  g_autoptr (PlanLayout) l2 = make_layout (f->h100, 1, 16, 1, NULL);
  g_autoptr (SimCost) c2 = sim_cost_new (f->h100, l2, &o);
  g_assert_cmpint (sim_cost_coll_sms (c2, PLAN_COLL_REDUCE_SCATTER, PLAN_AXIS_DP, FALSE), ==, 16);
  /* free communication holds nothing */
  o.free_comm = TRUE;
  g_autoptr (SimCost) cf = sim_cost_new (f->h100, l2, &o);
  g_assert_cmpint (sim_cost_coll_sms (cf, PLAN_COLL_REDUCE_SCATTER, PLAN_AXIS_DP, FALSE), ==, 0);
}

/* ---- collectives inside one server --------------------------------------------------- */

static void
test_allreduce_server (Fixture *f, gconstpointer data)
{
  g_autoptr (PlanLayout) layout = make_layout (f->h100, 8, 1, 1, NULL);
  g_autoptr (SimCost) ring = make_cost (f->h100, layout, FALSE);
  g_autoptr (SimCost) nvls = make_cost (f->h100, layout, TRUE);
  g_assert_cmpint (layout->groups[PLAN_AXIS_TP].span_level, ==, 0);

  /* ring, n = 8, S = 1 GiB, B = 370 GB/s: 2 x 7/8 x S / B = 5.0785 ms; latency 14 steps
   * x 1.9 us + 6.6 us base = 33.2 us; t = 5.1117 ms */
  assert_rel (sim_cost_busbw_Bps (ring, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP), 370e9, 1e-12);
  assert_rel (sim_cost_latency_s (ring, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP), 33.2e-6, 1e-9);
  assert_rel (sim_cost_coll_s (ring, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP, GIB),
              2.0 * 7 / 8 * GIB / 370e9 + 14 * 1.9e-6 + 6.6e-6, 1e-12);
  assert_rel (sim_cost_coll_s (ring, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP, GIB), 5.1117e-3, 1e-3);

  /* NVLS, B = 475 GB/s, flat 25 us: 1.75 x S / 475e9 + 25 us = 3.9559 + 0.025 = 3.9809 ms */
  assert_rel (sim_cost_busbw_Bps (nvls, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP), 475e9, 1e-12);
  assert_rel (sim_cost_coll_s (nvls, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP, GIB),
              2.0 * 7 / 8 * GIB / 475e9 + 25e-6, 1e-12);
  assert_rel (sim_cost_coll_s (nvls, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP, GIB), 3.9809e-3, 1e-3);
}

static void
test_gather_scatter_a2a_server (Fixture *f, gconstpointer data)
{
  g_autoptr (PlanLayout) layout = make_layout (f->h100, 8, 1, 1, NULL);
  g_autoptr (SimCost) c = make_cost (f->h100, layout, TRUE);

  /* AG and RS: 7/8 x S / 370 GB/s + 7 x 1.9 us + 6.6 us = 2.5392 + 0.0199 = 2.5592 ms;
   * NVLS applies to all-reduce only */
  const double ag = 7.0 / 8 * GIB / 370e9 + 7 * 1.9e-6 + 6.6e-6;
  assert_rel (sim_cost_coll_s (c, PLAN_COLL_ALL_GATHER, PLAN_AXIS_TP, GIB), ag, 1e-12);
  assert_rel (sim_cost_coll_s (c, PLAN_COLL_REDUCE_SCATTER, PLAN_AXIS_TP, GIB), ag, 1e-12);
  assert_rel (ag, 2.5592e-3, 1e-3);

  /* all-to-all inside the server: all traffic stays on NVLink, (m0 - 1)/n = 7/8 of the
   * buffer at 370 GB/s, so effective busbw = 370 GB/s and t = AG's */
  assert_rel (sim_cost_busbw_Bps (c, PLAN_COLL_ALL_TO_ALL, PLAN_AXIS_TP), 370e9, 1e-12);
  assert_rel (sim_cost_coll_s (c, PLAN_COLL_ALL_TO_ALL, PLAN_AXIS_TP, GIB), ag, 1e-12);

  /* a group of one rank costs nothing: the DP group of this 8-rank world */
  g_assert_cmpfloat (sim_cost_coll_s (c, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_DP, GIB), ==, 0.0);
}

/* ---- collectives across servers ------------------------------------------------------ */

static void
test_dp_one_per_server (Fixture *f, gconstpointer data)
{
  /* tp 8, dp 128: DP stride 8, one member per server, 64 racks of pod 0 -> span pod */
  g_autoptr (PlanLayout) layout = make_layout (f->h100, 8, 128, 1, NULL);
  g_autoptr (SimCost) c = make_cost (f->h100, layout, TRUE);
  g_assert_cmpint (layout->groups[PLAN_AXIS_DP].span_level, ==, 2);
  g_assert_cmpint (layout->groups[PLAN_AXIS_DP].members_per_unit[0], ==, 1);

  /* busbw = min (1 x 47 (rack), 2 x 47 (pod)) = 47 GB/s = 0.94 x 50 GB/s NIC */
  assert_rel (sim_cost_busbw_Bps (c, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_DP), 47e9, 1e-12);
  /* 2 x 127/128 x S / 47e9 = 45.334 ms; 254 steps x 4.0 us + 6.6 us = 1.0226 ms;
   * t = 46.357 ms (NCCL's tree, 128 servers of one member, depth 7: 6.8 + 2 x 7 x 8.5
   * = 125.8 us + 45.334 / 0.92 = 49.276 ms, loses to the ring at 1 GiB) */
  assert_rel (sim_cost_coll_s (c, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_DP, GIB),
              2.0 * 127 / 128 * GIB / 47e9 + 254 * 4.0e-6 + 6.6e-6, 1e-12);
  assert_rel (sim_cost_coll_s (c, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_DP, GIB), 46.357e-3, 1e-3);
}

static void
test_dp_rails (Fixture *f, gconstpointer data)
{
  /* tp 1, dp 128: 8 members per server on 16 servers: 8 rings over 8 rail NICs,
   * 8 x 47 = 376 GB/s, capped by the NVLink ring 370 GB/s ("~380 GB/s for 8 x 400G
   * nodes", hardware.md Physical limits 4); NVLS does not apply across servers */
  g_autoptr (PlanLayout) l8 = make_layout (f->h100, 1, 128, 1, NULL);
  g_autoptr (SimCost) c8 = make_cost (f->h100, l8, TRUE);
  g_assert_cmpint (l8->groups[PLAN_AXIS_DP].members_per_unit[0], ==, 8);
  assert_rel (sim_cost_busbw_Bps (c8, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_DP), 370e9, 1e-12);
  /* ring: 254 steps, 2 x (16 - 1) = 30 of them cross servers at 4 us and 224 stay on
   * NVLink at 1.9 us (NCCL's tuning model, sim/cost-comm.c ring_steps_s): 6.6 + 425.6 +
   * 120 = 552.2 us; 2 x 127/128 x S / 370e9 = 5.7586 ms; t = 6.3108 ms.
   * tree (NCCL's other all-reduce, sim/cost-comm.c): 16 servers, depth log2 16 = 4:
   * 6.8 us + 2 x 4 x 8.5 us + 2 x 7 x 1.25 us = 92.3 us, plus 5.7586 ms / 0.92 = 6.2594
   * ms: 6.3517 ms, above the ring, so at 1 GiB the ring is taken */
  assert_rel (sim_cost_latency_s (c8, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_DP),
              6.6e-6 + 224 * 1.9e-6 + 30 * 4.0e-6, 1e-12);
  assert_rel (sim_cost_coll_s (c8, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_DP, GIB),
              2.0 * 127 / 128 * GIB / 370e9 + 552.2e-6, 1e-9);
  assert_rel (sim_cost_coll_s (c8, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_DP, GIB), 6.3108e-3, 1e-3);
  /* a small all-reduce is latency-bound: 1 KiB, ring 552.2 us, tree
   * 92.3 us + 2 x 127/128 x 1024 B / (370e9 x 0.92) = 92.306 us */
  assert_rel (sim_cost_coll_s (c8, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_DP, 1024),
              92.3e-6 + 2.0 * 127 / 128 * 1024 / (370e9 * 0.92), 1e-9);

  /* tp 2, dp 128: 4 members per server: 4 x 47 = 188 GB/s < 370 */
  g_autoptr (PlanLayout) l4 = make_layout (f->h100, 2, 128, 1, NULL);
  g_autoptr (SimCost) c4 = make_cost (f->h100, l4, TRUE);
  assert_rel (sim_cost_busbw_Bps (c4, PLAN_COLL_REDUCE_SCATTER, PLAN_AXIS_DP), 188e9, 1e-12);

  /* all-to-all over 16 servers of 8 (tp 1, dp 128): 120/128 of the buffer leaves the
   * server at one NIC per rank (47 GB/s), 7/128 stays at 370 GB/s; the NIC term wins:
   * t_bw = S x 120/128 / 47e9 = 21.42 ms, effective busbw = 127/128 / (120/128 / 47e9)
   * = 49.74 GB/s, i.e. ~ S / NIC (hardware.md Physical limits 3) */
  assert_rel (sim_cost_busbw_Bps (c8, PLAN_COLL_ALL_TO_ALL, PLAN_AXIS_DP),
              127.0 / 120.0 * 47e9, 1e-12);
  assert_rel (sim_cost_coll_s (c8, PLAN_COLL_ALL_TO_ALL, PLAN_AXIS_DP, GIB),
              120.0 / 128 * GIB / 47e9 + 127 * 4.0e-6 + 6.6e-6, 1e-12);
}

/* NCCL's PAT (sim/cost-comm.c pat_s) against the ring, tp 8 dp 128 on h100-24k: the DP
 * group has one member a server (span pod, busbw 47 GB/s, ring alpha 4.0 us).
 * Ring AG / RS: 6.6 + 127 x 4.0 = 514.6 us + 127/128 x S / 47e9.
 * PAT: 8 + floor (log2 128) x 14 / 3.5 + 128 x 2.8 = 8 + 28 + 358.4 = 394.4 us
 *      + S / (0.75 x 47e9).
 * At 1 MiB: ring 514.6 + 22.136 = 536.74 us, PAT 394.4 + 29.746 = 424.15 us: PAT.
 * At 1 GiB: ring 23.187 ms, PAT 30.855 ms: the ring. They cross where 120.2 us =
 * S x (1 / 35.25e9 - 127/128 / 47e9) = S x 7.2591e-12: S = 16.56 MB.
 * The latency of one call is PAT's 394.4 us where PAT may run, the ring's 514.6 without
 * it; an all-reduce never runs PAT (the ring or tree as before); a group of 8 members a
 * server (tp 1) is not PAT's (NCCL: nNodes == nRanks only). */
static void
test_pat (Fixture *f, gconstpointer data)
{
  g_autoptr (PlanLayout) layout = make_layout (f->h100, 8, 128, 1, NULL);
  g_assert_cmpint (layout->groups[PLAN_AXIS_DP].members_per_unit[0], ==, 1);
  SimCostOptions o;
  sim_cost_options_init_documented (&o, f->h100);
  g_autoptr (SimCost) ring = sim_cost_new (f->h100, layout, &o);
  o.pat_all_gather = o.pat_reduce_scatter = TRUE;
  g_autoptr (SimCost) pat = sim_cost_new (f->h100, layout, &o);
  const double mib = 1048576.0;
  const double ring_lat = 6.6e-6 + 127 * 4.0e-6, pat_lat = 8e-6 + 7 * 4e-6 + 128 * 2.8e-6;
  assert_rel (pat_lat, 394.4e-6, 1e-12);
  for (int k = 0; k < 2; k++)
    {
      const PlanColl coll = k == 0 ? PLAN_COLL_ALL_GATHER : PLAN_COLL_REDUCE_SCATTER;
      assert_rel (sim_cost_coll_s (ring, coll, PLAN_AXIS_DP, mib),
                  ring_lat + 127.0 / 128 * mib / 47e9, 1e-12);
      assert_rel (sim_cost_coll_s (pat, coll, PLAN_AXIS_DP, mib), pat_lat + mib / (0.75 * 47e9),
                  1e-12);
      assert_rel (sim_cost_coll_s (pat, coll, PLAN_AXIS_DP, mib), 424.15e-6, 1e-4);
      assert_rel (sim_cost_coll_s (pat, coll, PLAN_AXIS_DP, GIB),
                  ring_lat + 127.0 / 128 * GIB / 47e9, 1e-12);
      assert_rel (sim_cost_latency_s (ring, coll, PLAN_AXIS_DP), ring_lat, 1e-12);
      assert_rel (sim_cost_latency_s (pat, coll, PLAN_AXIS_DP), pat_lat, 1e-12);
      /* either side of the crossing at 16.56 MB */
      g_assert_cmpfloat (sim_cost_coll_s (pat, coll, PLAN_AXIS_DP, 16.0e6), <,
                         sim_cost_coll_s (ring, coll, PLAN_AXIS_DP, 16.0e6));
      assert_rel (sim_cost_coll_s (pat, coll, PLAN_AXIS_DP, 17.0e6),
                  sim_cost_coll_s (ring, coll, PLAN_AXIS_DP, 17.0e6), 1e-12);
    }
  /* an all-reduce is never PAT's: the same with it on or off */
  assert_rel (sim_cost_coll_s (pat, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_DP, mib),
              sim_cost_coll_s (ring, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_DP, mib), 1e-12);
  /* one collective on, the other off: a stack whose reduce-scatter averages in NCCL */
  o.pat_reduce_scatter = FALSE;
  g_autoptr (SimCost) ag_only = sim_cost_new (f->h100, layout, &o);
  assert_rel (sim_cost_coll_s (ag_only, PLAN_COLL_ALL_GATHER, PLAN_AXIS_DP, mib), 424.15e-6,
              1e-4);
  assert_rel (sim_cost_coll_s (ag_only, PLAN_COLL_REDUCE_SCATTER, PLAN_AXIS_DP, mib),
              ring_lat + 127.0 / 128 * mib / 47e9, 1e-12);
  /* tp 1, dp 128: 8 members a server, not PAT's: the ring (16 servers: 15 cross-server
   * steps at 4.0 us, 112 on NVLink at 1.9 us: 6.6 + 60 + 212.8 = 279.4 us) */
  o.pat_reduce_scatter = TRUE;
  g_autoptr (PlanLayout) l8 = make_layout (f->h100, 1, 128, 1, NULL);
  g_autoptr (SimCost) c8 = sim_cost_new (f->h100, l8, &o);
  assert_rel (sim_cost_latency_s (c8, PLAN_COLL_ALL_GATHER, PLAN_AXIS_DP), 279.4e-6, 1e-9);
}

/* The stacks' NCCL (frameworks/presets "nccl"): megatron-core runs both collectives as
 * PAT where it may, torchtitan's FSDP2 only its all-gathers (its reduce-scatter averages
 * in NCCL), the 2021 and Llama 3 stacks neither. */
static void
test_pat_stacks (Fixture *f, gconstpointer data)
{
  const struct { const char *stack; gboolean ag, rs; } rows[] = {
    { "megatron-core", TRUE, TRUE }, { "nemo", TRUE, TRUE }, { "torchtitan", TRUE, FALSE },
    { "nemo-automodel", TRUE, FALSE }, { "megatron-lm-2021", FALSE, FALSE },
    { "meta-llama3", FALSE, FALSE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (FwStack) fw = fw_stack_load_preset (rows[i].stack, &error);
      g_assert_no_error (error);
      SimCostOptions o;
      sim_cost_options_init_stack (&o, f->h100, fw);
      g_assert_cmpint (o.pat_all_gather, ==, rows[i].ag);
      g_assert_cmpint (o.pat_reduce_scatter, ==, rows[i].rs);
    }
}

/* The ring latency of NCCL's tuning model at the SC'21 ZeRO-3 scale (selene preset:
 * 8 GPUs per server, NVLink alpha 1.9 us, network alpha 4.0 us, NCCL base 6.6 us):
 * tp 1, dp 384 = 48 servers of 8. An all-gather (or reduce-scatter) has 383 steps, of
 * which 48 - 1 = 47 cross a server boundary: 6.6 + 336 x 1.9 + 47 x 4.0 = 6.6 + 638.4 +
 * 188 = 833.0 us (every step at 4.0 us would give 1,538.6 us). An all-reduce has 766
 * steps, 94 across: 6.6 + 672 x 1.9 + 94 x 4.0 = 1,659.4 us. All-to-all is not a ring:
 * 383 x 4.0 + 6.6 = 1,538.6 us. */
static void
test_ring_latency_selene (Fixture *f, gconstpointer data)
{
  g_autoptr (TopoCluster) selene = cluster_preset ("selene");
  g_autoptr (PlanLayout) layout = make_layout (selene, 1, 384, 1, NULL);
  g_autoptr (SimCost) c = make_cost (selene, layout, FALSE);
  g_assert_cmpint (layout->groups[PLAN_AXIS_DP].members_per_unit[0], ==, 8);
  g_assert_cmpint (layout->groups[PLAN_AXIS_DP].span_level, >=, 1);
  assert_rel (sim_cost_latency_s (c, PLAN_COLL_ALL_GATHER, PLAN_AXIS_DP), 833.0e-6, 1e-9);
  assert_rel (sim_cost_latency_s (c, PLAN_COLL_REDUCE_SCATTER, PLAN_AXIS_DP), 833.0e-6, 1e-9);
  assert_rel (sim_cost_latency_s (c, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_DP), 1659.4e-6, 1e-9);
  assert_rel (sim_cost_latency_s (c, PLAN_COLL_ALL_TO_ALL, PLAN_AXIS_DP), 1538.6e-6, 1e-9);
}

/* An NVL72 rack's 4-GPU trays are a host boundary inside one NVLink domain
 * (gb300-nvl72-superpod: tray 4 x rack 18, both 900 GB/s, busbw 680 GB/s, alpha 1.9 us;
 * then the su at 100 GB/s, busbw 94; NVLS busbw 850 GB/s): a group of 8 on two trays is
 * costed as one inside a DGX B300 server (dgx-b300-superpod: server 8, busbw 682.2).
 * All-to-all, tp 1, dp 8, S = 1 GiB: every byte leaves the GPU through its NVLink ports,
 * so t_bw = 7/8 x S / 680e9 and the busbw is 680 GB/s. Before, the 3/8 of the buffer
 * that stays in a tray and the 4/8 that leaves it were charged to two separate 680 GB/s
 * pools, max (3/8, 4/8) / 680e9 per byte: busbw 7/8 / (4/8 / 680e9) = 1,190 GB/s, 1.75x
 * the DGX B300's 682.2 for the same 8 GPUs on the same NVLink 5. Latency: 7 steps x
 * 1.9 us + 6.6 us base = 19.9 us. NCCL's single-node treatment (NVIDIA/nccl issues
 * 1159, 1286, 1429; sim/cost-comm.c group_init): NVLS at 850 GB/s for the all-reduce
 * and NVLink p2p channels (24 SMs) for the all-to-all, as in one server.
 * Across two racks (dp 144, 72 a rack): 72/144 of the buffer leaves the rack at the
 * su's all-to-all rate, one 400 Gb/s plane of the ConnectX-8, 47 GB/s (a2a_busbw_GBps:
 * NCCL's all-to-all does not aggregate NICs), 71/144 stays at 680: busbw =
 * 143/144 / (72/144 / 47e9) = 93.35 GB/s (186.69 at the rings' 94 before). A ring over
 * the same two racks keeps both planes: all-reduce busbw min (680, 72 x 94) = 680 GB/s
 * (NVLS applies inside one domain only). */
static void
test_nvlink_domain_trays (Fixture *f, gconstpointer data)
{
  g_autoptr (TopoCluster) gb300 = cluster_preset ("gb300-nvl72-superpod");
  g_autoptr (TopoCluster) b300 = cluster_preset ("dgx-b300-superpod");
  g_assert_cmpuint (topo_cluster_scale_up_level (gb300), ==, 1);
  g_assert_cmpuint (topo_cluster_scale_up_level (b300), ==, 0);
  g_autoptr (PlanLayout) l8 = make_layout (gb300, 1, 8, 1, NULL);
  g_assert_cmpint (l8->groups[PLAN_AXIS_DP].span_level, ==, 1);
  g_assert_cmpint (l8->groups[PLAN_AXIS_DP].members_per_unit[0], ==, 4);
  g_autoptr (SimCost) c = make_cost (gb300, l8, TRUE);
  assert_rel (sim_cost_busbw_Bps (c, PLAN_COLL_ALL_TO_ALL, PLAN_AXIS_DP), 680e9, 1e-12);
  assert_rel (sim_cost_coll_s (c, PLAN_COLL_ALL_TO_ALL, PLAN_AXIS_DP, GIB),
              7.0 / 8 * GIB / 680e9 + 7 * 1.9e-6 + 6.6e-6, 1e-12);
  assert_rel (sim_cost_busbw_Bps (c, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_DP), 850e9, 1e-12);
  g_assert_cmpint (sim_cost_coll_sms (c, PLAN_COLL_ALL_TO_ALL, PLAN_AXIS_DP, FALSE), ==, 24);
  /* the DGX B300 server: the same formula at its 682.2 GB/s */
  g_autoptr (PlanLayout) lb = make_layout (b300, 1, 8, 1, NULL);
  g_autoptr (SimCost) cb = make_cost (b300, lb, TRUE);
  assert_rel (sim_cost_busbw_Bps (cb, PLAN_COLL_ALL_TO_ALL, PLAN_AXIS_DP), 682.2e9, 1e-12);
  /* two racks: the NIC term */
  g_autoptr (PlanLayout) l144 = make_layout (gb300, 1, 144, 1, NULL);
  g_autoptr (SimCost) c144 = make_cost (gb300, l144, TRUE);
  assert_rel (sim_cost_busbw_Bps (c144, PLAN_COLL_ALL_TO_ALL, PLAN_AXIS_DP),
              143.0 / 72.0 * 47e9, 1e-12);
  assert_rel (sim_cost_busbw_Bps (c144, PLAN_COLL_ALL_TO_ALL, PLAN_AXIS_DP), 93.35e9, 1e-3);
  assert_rel (sim_cost_busbw_Bps (c144, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_DP), 680e9, 1e-12);
}

/* A NIC of two planes (dgx-b300-superpod: ConnectX-8's 800 Gb/s as two 400 Gb/s planes;
 * su busbw 94 GB/s, a2a_busbw 47): an all-to-all over 8 DGX B300 (ep 64, 8 a server)
 * sends 56/64 of its buffer out of the server on one plane and 7/64 over NVLink at
 * 682.2 GB/s: t_bw per byte = max (7/64 / 682.2e9, 56/64 / 47e9) = 56/64 / 47e9, busbw
 * = 63/64 / (56/64 / 47e9) = 63/56 x 47 = 52.875 GB/s (105.75 GB/s at 94 before: the
 * model gave DGX B300's EP all-to-all half DGX B200's time, where Megatron-Bridge 26.02
 * measured gpt-oss-120b EP 64 at 9.80 s on B300 and 10.18 s on B200). Its all-reduce
 * keeps the rings' 94 GB/s a NIC: min (682.2, 8 x 94) = 682.2 GB/s. A cluster file
 * whose all-to-all rate exceeds the link's is refused. */
static void
test_a2a_one_plane (Fixture *f, gconstpointer data)
{
  g_autoptr (TopoCluster) b300 = cluster_preset ("dgx-b300-superpod");
  g_assert_cmpfloat (b300->levels[1].a2a_busbw_Bps, ==, 47e9);
  g_assert_cmpfloat (b300->levels[0].a2a_busbw_Bps, ==, 0);
  g_autoptr (PlanLayout) l64 = make_layout (b300, 1, 64, 1, NULL);
  g_autoptr (SimCost) c = make_cost (b300, l64, TRUE);
  assert_rel (sim_cost_busbw_Bps (c, PLAN_COLL_ALL_TO_ALL, PLAN_AXIS_DP), 52.875e9, 1e-12);
  assert_rel (sim_cost_busbw_Bps (c, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_DP), 682.2e9, 1e-12);
  /* DGX B200 (one 400 Gb/s ConnectX-7 a GPU, busbw 47, no a2a figure): the same 52.875 */
  g_autoptr (TopoCluster) b200 = cluster_preset ("dgx-b200-superpod");
  g_autoptr (PlanLayout) m64 = make_layout (b200, 1, 64, 1, NULL);
  g_autoptr (SimCost) cb = make_cost (b200, m64, TRUE);
  assert_rel (sim_cost_busbw_Bps (cb, PLAN_COLL_ALL_TO_ALL, PLAN_AXIS_DP), 52.875e9, 1e-12);
  g_autoptr (GError) error = NULL;
  g_autoptr (TopoCluster) bad = topo_cluster_new_from_data (
    "{\"name\": \"x\", \"device\": {\"name\": \"H100-SXM-80GB\", \"peak_tflops\": {\"bf16\": 989}, "
    "\"hbm_GB\": 80, \"hbm_GBps\": 3350}, \"levels\": [{\"name\": \"server\", \"count\": 8, "
    "\"bw_GBps\": 450}, {\"name\": \"pod\", \"count\": 4, \"bw_GBps\": 50, "
    "\"a2a_busbw_GBps\": 60}]}", -1, "inline", &error);
  g_assert_null (bad);
  g_assert_nonnull (strstr (error->message, "a2a_busbw_GBps"));
  g_assert_nonnull (strstr (error->message, "above the level's bw_GBps 50"));
}

/* A GH200 NVL4 node (gh200-nvl4-cluster): four GPUs meshed by NVLink without a switch,
 * level bw 300 GB/s per direction (two of each GPU's three 150 GB/s pairs carry the
 * rings), no measured busbw, so the documented NVLink efficiency 0.8 gives 240 GB/s; one
 * 200 Gb/s NIC per GPU across nodes, busbw 23.5 GB/s. S = 1 GiB:
 *  - TP 4 all-gather in the node: 3/4 S / 240e9 + 3 steps x 1.9 us + 6.6 us base
 *    = 3.3554 ms + 12.3 us = 3.3677 ms;
 *  - DP 2 all-reduce across two nodes: 2 x 1/2 S / 23.5e9 + 2 x 4.0 us + 6.6 us
 *    = 45.691 ms + 14.6 us = 45.706 ms (about 7.6x the NDR 400 Gb/s figure's time
 *    halved: the NIC is half an H100 SuperPOD's). No NVLS: no NVSwitch. */
static void
test_gh200_node (Fixture *f, gconstpointer data)
{
  g_autoptr (TopoCluster) gh = cluster_preset ("gh200-nvl4-cluster");
  g_assert_false (gh->device.has_nvls);
  g_autoptr (PlanLayout) l = make_layout (gh, 4, 2, 1, NULL);
  g_autoptr (SimCost) c = make_cost (gh, l, TRUE);
  assert_rel (sim_cost_busbw_Bps (c, PLAN_COLL_ALL_GATHER, PLAN_AXIS_TP), 240e9, 1e-12);
  assert_rel (sim_cost_coll_s (c, PLAN_COLL_ALL_GATHER, PLAN_AXIS_TP, GIB),
              0.75 * GIB / 240e9 + 3 * 1.9e-6 + 6.6e-6, 1e-12);
  assert_rel (sim_cost_coll_s (c, PLAN_COLL_ALL_GATHER, PLAN_AXIS_TP, GIB), 3.3677e-3, 1e-4);
  assert_rel (sim_cost_busbw_Bps (c, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_DP), 23.5e9, 1e-12);
  assert_rel (sim_cost_coll_s (c, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_DP, GIB),
              GIB / 23.5e9 + 2 * 4.0e-6 + 6.6e-6, 1e-12);
  assert_rel (sim_cost_coll_s (c, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_DP, GIB), 45.706e-3, 1e-4);
}

static void
test_dp_across_pods (Fixture *f, gconstpointer data)
{
  /* order tp-cp-ep-pp-dp with tp 8, pp 384: DP stride 3072 = one pod, 8 members, one
   * per pod: the cluster level (1:7) gives 1 x 47 / 7 = 6.714 GB/s, below 47 at the
   * rack and pod levels */
  g_autoptr (PlanLayout) layout = make_layout (f->h100, 8, 8, 384, "tp-cp-ep-pp-dp");
  g_autoptr (SimCost) c = make_cost (f->h100, layout, TRUE);
  g_assert_cmpint (layout->groups[PLAN_AXIS_DP].span_level, ==, 3);
  g_assert_cmpint (layout->groups[PLAN_AXIS_DP].members_per_unit[2], ==, 1);
  assert_rel (sim_cost_busbw_Bps (c, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_DP), 47e9 / 7, 1e-12);
  /* 2 x 7/8 x S / 6.714e9 = 279.86 ms; 14 x 14 us + 6.6 us = 0.2026 ms; t = 280.06 ms */
  assert_rel (sim_cost_coll_s (c, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_DP, GIB),
              1.75 * GIB / (47e9 / 7) + 14 * 14e-6 + 6.6e-6, 1e-12);
  assert_rel (sim_cost_coll_s (c, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_DP, GIB), 280.06e-3, 1e-3);
}

/* ---- point to point ------------------------------------------------------------------ */

static void
test_p2p (Fixture *f, gconstpointer data)
{
  g_autoptr (SimCost) c = make_cost (f->h100, NULL, TRUE);
  /* devices 0 and 1 share a server: S / 370e9 + 6.6 + 1.9 us = 2.9020 + 0.0085 ms */
  assert_rel (sim_cost_p2p_s (c, 0, 1, GIB), GIB / 370e9 + 8.5e-6, 1e-12);
  assert_rel (sim_cost_p2p_s (c, 0, 1, GIB), 2.9105e-3, 1e-3);
  /* devices 0 and 8: two servers of one rack, NIC at 47 GB/s:
   * S / 47e9 + 6.6 + 4.0 us = 22.846 + 0.0106 = 22.856 ms */
  assert_rel (sim_cost_p2p_s (c, 0, 8, GIB), GIB / 47e9 + 10.6e-6, 1e-12);
  assert_rel (sim_cost_p2p_s (c, 0, 8, GIB), 22.856e-3, 1e-3);
  /* devices 0 and 3072 are in two pods; without a layout every device is assumed to
   * cross at once: 47 / 7 GB/s, S / 6.714e9 + 6.6 + 14 us = 159.94 ms */
  assert_rel (sim_cost_p2p_s (c, 0, 3072, GIB), GIB / (47e9 / 7) + 20.6e-6, 1e-12);
  assert_rel (sim_cost_p2p_s (c, 0, 3072, GIB), 159.94e-3, 1e-3);
  /* the same device, or no bytes: 0 */
  g_assert_cmpfloat (sim_cost_p2p_s (c, 5, 5, GIB), ==, 0.0);
  g_assert_cmpfloat (sim_cost_p2p_s (c, 0, 8, 0), ==, 0.0);

  /* Llama 3 405B layout (tp 8, dp 128, pp 16 on 16,384 GPUs): a pod holds 3 stages of
   * 1024 GPUs (members_per_unit[pod] of the PP group = 3), so the stage boundary that
   * crosses pods gets min (47, 47 x 3 / 7) = 20.14 GB/s */
  g_autoptr (PlanLayout) layout = make_layout (f->h100, 8, 128, 16, NULL);
  g_autoptr (SimCost) cl = make_cost (f->h100, layout, TRUE);
  g_assert_cmpint (layout->groups[PLAN_AXIS_PP].members_per_unit[2], ==, 3);
  assert_rel (sim_cost_p2p_s (cl, 2048, 3072, GIB), GIB / (47e9 * 3 / 7) + 20.6e-6, 1e-12);
}

static void
test_free_comm (Fixture *f, gconstpointer data)
{
  g_autoptr (PlanLayout) layout = make_layout (f->h100, 8, 128, 1, NULL);
  SimCostOptions o;
  sim_cost_options_init_documented (&o, f->h100);
  o.free_comm = TRUE;
  g_autoptr (SimCost) c = sim_cost_new (f->h100, layout, &o);
  /* free_comm: every collective and p2p costs exactly 0 */
  for (int k = 0; k < PLAN_COLL_N; k++)
    {
      g_assert_cmpfloat (sim_cost_coll_s (c, k, PLAN_AXIS_TP, GIB), ==, 0.0);
      g_assert_cmpfloat (sim_cost_coll_s (c, k, PLAN_AXIS_DP, GIB), ==, 0.0);
    }
  g_assert_cmpfloat (sim_cost_p2p_s (c, 0, 8, GIB), ==, 0.0);
}

/* ---- compute ------------------------------------------------------------------------- */

static void
test_gemm_large (Fixture *f, gconstpointer data)
{
  g_autoptr (SimCost) c = make_cost (f->h100, NULL, TRUE);
  /* 8192^3 BF16 with 128 x 256 tiles: tile quantization 1 (8192 = 64 x 128 = 32 x 256);
   * 64 x 32 = 2048 tiles on 132 SMs = 15.5 waves -> 16, wave eff 2048 / (16 x 132) =
   * 0.96970; small-k 8192 / (8192 + 128) = 0.98462; eff = 0.803 x 0.96970 x 0.98462 =
   * 0.76669 (759 TFLOP/s) */
  const double eff = 0.803 * 2048.0 / (16 * 132) * 8192.0 / 8320.0;
  assert_rel (sim_cost_gemm_efficiency (c, 8192, 8192, 8192, TOPO_DTYPE_BF16), eff, 1e-12);
  assert_rel (eff, 0.76669, 1e-4);
  /* compute 2 x 8192^3 / (989.4e12 x 0.76669) = 1.44947 ms beats memory (3 x 8192^2 x
   * 2 B / 3.015e12 = 0.1335 ms); + 4 us launch = 1.45347 ms */
  ModelOp op = gemm_op (8192, 8192, 8192);
  const double t = sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE);
  assert_rel (t, 2.0 * 8192.0 * 8192.0 * 8192.0 / (989.4e12 * eff) + 4e-6, 1e-12);
  assert_rel (t, 1.45347e-3, 1e-3);

  /* FP8: peak 1978.9 x MAMF 0.70878 (1402.6 / 1978.9) with the same shape factors: the
   * compute term is (1978.9 x 0.70878) / (989.4 x 0.803) = 1402.6 / 794.5 = 1.7654x
   * shorter */
  const double t8 = sim_cost_op_s (c, &op, TOPO_DTYPE_FP8, FALSE);
  assert_rel ((t - 4e-6) / (t8 - 4e-6), 1402.6 / (989.4 * 0.803), 1e-9);
  assert_rel ((t - 4e-6) / (t8 - 4e-6), 1.7654, 1e-3);

  /* fp32 tensors multiplied on BF16 tensor cores (--fp32-matmul-precision medium): the
   * math is BF16's (same efficiency, same 1.44947 ms compute term), the operands move as
   * fp32 (3 x 8192^2 x 4 B / 3.015e12 = 0.267 ms, still below the compute term), so the
   * time is the BF16 one; in plain fp32 math the 67 TFLOP/s vector peak makes it ~15x
   * longer. */
  const double tm = sim_cost_op_math_s (c, &op, TOPO_DTYPE_FP32, TOPO_DTYPE_BF16, FALSE);
  assert_rel (tm, t, 1e-12);
  g_assert_cmpfloat (sim_cost_op_s (c, &op, TOPO_DTYPE_FP32, FALSE), >, 10 * tm);
  /* a memory-bound op keeps the storage dtype: fp32 bytes, not bf16 */
  ModelOp norm = { .kind = MODEL_OP_NORM, .elements = 1 << 24 };
  assert_rel (sim_cost_op_math_s (c, &norm, TOPO_DTYPE_FP32, TOPO_DTYPE_BF16, FALSE),
              sim_cost_op_s (c, &norm, TOPO_DTYPE_FP32, FALSE), 1e-12);
  g_assert_cmpfloat (sim_cost_op_s (c, &norm, TOPO_DTYPE_FP32, FALSE), >,
                     1.9 * (sim_cost_op_s (c, &norm, TOPO_DTYPE_BF16, FALSE) - 4e-6));
}

/* The library's tile choice. m = 512, n = k = 12288 BF16 on 132 SMs:
 *   128 x 256: 4 x 48 = 192 tiles -> 2 waves of 132: 192 / 264 = 0.72727;
 *   256 x 128: 2 x 96 = 192 tiles, the same 0.72727;
 *   128 x 128: 4 x 96 = 384 tiles -> 3 waves: 384 / 396 = 0.96970, x 0.90 = 0.87273;
 * the half tile wins: eff = 0.803 x 0.87273 x 12288 / (12288 + 128) = 0.69358. With
 * m = 2048 the large tile fills 16 x 48 = 768 tiles in 6 waves (768 / 792 = 0.96970)
 * and wins over the half tile (0.90 x 1536 / 1584 = 0.87273). */
static void
test_gemm_tile_choice (Fixture *f, gconstpointer data)
{
  g_autoptr (SimCost) c = make_cost (f->h100, NULL, TRUE);
  const double kq = 12288.0 / (12288.0 + 128.0);
  assert_rel (sim_cost_gemm_efficiency (c, 512, 12288, 12288, TOPO_DTYPE_BF16),
              0.803 * 0.90 * 384.0 / 396.0 * kq, 1e-12);
  assert_rel (sim_cost_gemm_efficiency (c, 512, 12288, 12288, TOPO_DTYPE_BF16), 0.69358, 1e-4);
  assert_rel (sim_cost_gemm_efficiency (c, 2048, 12288, 12288, TOPO_DTYPE_BF16),
              0.803 * 768.0 / 792.0 * kq, 1e-12);
}


/* The attention core of Llama 3 8B, one sequence of 8192: 32 query heads, 8 KV heads,
 * head_dim 128, causal; forward FLOPs 4 x 8192^2 x 32 x 128 / 2 (test_attention and
 * test_attention_exp derive their times from it). */
static ModelOp
llama3_8b_attn_core (void)
{
  ModelOp op = { 0 };
  op.name = "attn_core";
  op.kind = MODEL_OP_ATTENTION;
  op.b = 1;
  op.heads = 32;
  op.kv_heads = 8;
  op.s_q = op.s_kv = 8192;
  op.head_dim = 128;
  op.causal = TRUE;
  op.fwd_flops = 4.0 * 8192.0 * 8192.0 * 32 * 128 / 2;
  return op;
}

/* Blackwell takes Hopper's fitted fractions, scaled by how much of its burst matmul rate
 * each holds under sustained load (MSMF / MAMF, one protocol, all 8 GPUs of a node busy:
 * B200 1,437.5 / 1,746.7 = 0.823 in the preset; the Hopper fits' 755.5 / 852.1, H200):
 * sustained_scale = 0.823 / (755.5 / 852.1) = 0.92823, every SM-clocked rate times it, so
 * a compute-bound GEMM takes 1 / 0.92823 = 1.07732 times as long; HBM-bound work the same
 * time. A Hopper part's own fits hold its behaviour already: scale 1. */
static void
test_sustained_scale (Fixture *f, gconstpointer data)
{
  g_autoptr (TopoCluster) b200 = cluster_preset ("dgx-b200-superpod");
  g_assert_cmpfloat (b200->device.sustained_matmul_ratio, ==, 0.823);
  SimCostOptions o;
  sim_cost_options_init_stack (&o, b200, NULL);
  const double scale = 0.823 / (755.5 / 852.1);
  assert_rel (o.sustained_scale, scale, 1e-12);
  assert_rel (scale, 0.92823, 1e-4);
  g_autoptr (SimCost) c = sim_cost_new (b200, NULL, &o);
  SimCostOptions o1 = o;
  o1.sustained_scale = 1.0;            /* --cost sustained_scale=1: Hopper's behaviour */
  g_autoptr (SimCost) c1 = sim_cost_new (b200, NULL, &o1);
  ModelOp op = gemm_op (8192, 8192, 8192);
  const double launch = o.launch_overhead_s;
  assert_rel ((sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE) - launch)
              / (sim_cost_op_s (c1, &op, TOPO_DTYPE_BF16, FALSE) - launch), 1 / scale, 1e-12);
  /* FP8: the GEMM's own math by the same factor; the stack's casts of its input are
   * HBM-bound, so the whole op grows by less */
  const double r8 = (sim_cost_op_s (c, &op, TOPO_DTYPE_FP8, FALSE) - launch)
                    / (sim_cost_op_s (c1, &op, TOPO_DTYPE_FP8, FALSE) - launch);
  g_assert_cmpfloat (r8, >, 1.0);
  g_assert_cmpfloat (r8, <, 1 / scale);
  ModelOp loss = { .kind = MODEL_OP_LOSS, .name = "loss", .elements = 1 << 20 };
  assert_rel (sim_cost_op_s (c, &loss, TOPO_DTYPE_BF16, FALSE),
              sim_cost_op_s (c1, &loss, TOPO_DTYPE_BF16, FALSE), 1e-12);
  /* Hopper: its own fits, no scale, whatever its preset says */
  SimCostOptions h;
  sim_cost_options_init_stack (&h, f->h100, NULL);
  g_assert_cmpfloat (h.sustained_scale, ==, 1.0);
}

/* The H100 96 GB HBM2e parts at their 500 W cap (topology/presets/h100-sxm-96g-superpod.json,
 * power_cap_clock_ratio 0.879 = 1731 / 1969 MHz, arXiv:2604.11391 Fig. 6b): the SM-clocked
 * rates scale by it, HBM and the nameplate peak (MFU) do not. */
static void
test_power_cap_clock (Fixture *f, gconstpointer data)
{
  g_autoptr (TopoCluster) cap = cluster_preset ("h100-sxm-96g-superpod");
  g_autoptr (TopoCluster) tdp = cluster_preset ("h100-sxm-96g-superpod");
  assert_rel (cap->device.power_cap_clock_ratio, 1731.0 / 1969.0, 1e-3);
  g_assert_cmpfloat (cap->device.power_cap_clock_ratio, ==, 0.879);
  tdp->device.power_cap_clock_ratio = 0;   /* absent: the 700 W rates */
  g_autoptr (SimCost) cc = make_cost (cap, NULL, TRUE);
  g_autoptr (SimCost) ct = make_cost (tdp, NULL, TRUE);
  SimCostOptions o;
  sim_cost_options_init_documented (&o, cap);
  const double launch = o.launch_overhead_s;
  g_assert_cmpfloat (launch, ==, 4e-6);

  /* 8192^3 BF16: eff 0.803 x 2048 / (16 x 132) x 8192 / 8320 = 0.76669 as on the 80 GB
   * part (same SMs, same MAMF); compute at the cap 2 x 8192^3 / (989.4e12 x 0.879 x
   * 0.76669) = 1.64900 ms against 1.44947 ms at 700 W (ratio 1 / 0.879 = 1.13766); memory
   * 3 x 8192^2 x 2 B / (2.4e12 x mem_eff) stays under 0.21 ms, so both are compute-bound */
  const double eff = 0.803 * 2048.0 / (16 * 132) * 8192.0 / 8320.0;
  assert_rel (sim_cost_gemm_efficiency (cc, 8192, 8192, 8192, TOPO_DTYPE_BF16), eff, 1e-12);
  ModelOp op = gemm_op (8192, 8192, 8192);
  const double tc = sim_cost_op_s (cc, &op, TOPO_DTYPE_BF16, FALSE) - launch;
  const double tt = sim_cost_op_s (ct, &op, TOPO_DTYPE_BF16, FALSE) - launch;
  assert_rel (tc, 2.0 * 8192.0 * 8192.0 * 8192.0 / (989.4e12 * 0.879 * eff), 1e-12);
  assert_rel (tc, 1.64900e-3, 1e-4);
  assert_rel (tt, 1.44947e-3, 1e-4);
  assert_rel (tc / tt, 1.13766, 1e-4);
  /* FP8 the same ratio: its peak is SM-clocked too */
  assert_rel ((sim_cost_op_s (cc, &op, TOPO_DTYPE_FP8, FALSE) - launch)
              / (sim_cost_op_s (ct, &op, TOPO_DTYPE_FP8, FALSE) - launch), 1 / 0.879, 1e-12);

  /* the softmax exponentials (SFU) at 2 per clock per SM bound the attention: visible
   * scores / (132 x 1.83e9 x 0.879 x 2) at the cap, 1 / 0.879 of the 700 W time */
  cap->device.exp_per_clk_per_sm = tdp->device.exp_per_clk_per_sm = 2;
  {
    g_autoptr (SimCost) ec = make_cost (cap, NULL, TRUE);
    g_autoptr (SimCost) et = make_cost (tdp, NULL, TRUE);
    ModelOp att = llama3_8b_attn_core ();
    const double visible = 32.0 * 8192 * 8192 * 8193.0 / (2 * 8192);
    assert_rel (sim_cost_op_s (ec, &att, TOPO_DTYPE_BF16, FALSE),
                visible / (132 * 1.83e9 * 0.879 * 2), 1e-12);
    assert_rel (sim_cost_op_s (et, &att, TOPO_DTYPE_BF16, FALSE),
                visible / (132 * 1.83e9 * 2), 1e-12);
  }

  /* HBM-bound: the loss moves 38 B per logit forward at the same bandwidth either way */
  ModelOp loss = { .kind = MODEL_OP_LOSS, .name = "loss", .elements = 1 << 20 };
  assert_rel (sim_cost_op_s (cc, &loss, TOPO_DTYPE_BF16, FALSE),
              sim_cost_op_s (ct, &loss, TOPO_DTYPE_BF16, FALSE), 1e-12);
  /* MFU's peak is the device's nameplate figure, untouched */
  g_assert_cmpfloat (cap->device.peak_flops[TOPO_DTYPE_BF16], ==, 989.4e12);
}

/* The slowest GPU (sim/cost.c, perf_sigma). E[max of n standard normals] by the
 * integral against closed forms and tables: n = 1: 0; n = 2: 1/sqrt(pi) = 0.5641896;
 * n = 3: 3 / (2 sqrt(pi)) = 0.8462844; n = 4: 1.029375, n = 5: 1.162964, n = 10:
 * 1.538753, n = 100: 2.507594, n = 1000: 3.241436 (Harter 1961, "Expected values of
 * normal order statistics", Biometrika 48, the largest of n, 6 places). */
static void
test_expected_max_normal (Fixture *f, gconstpointer data)
{
  g_assert_cmpfloat (sim_cost_expected_max_normal (0), ==, 0.0);
  g_assert_cmpfloat (sim_cost_expected_max_normal (1), ==, 0.0);
  g_assert_cmpfloat_with_epsilon (sim_cost_expected_max_normal (2), 1.0 / sqrt (G_PI), 1e-7);
  g_assert_cmpfloat_with_epsilon (sim_cost_expected_max_normal (3), 1.5 / sqrt (G_PI), 1e-7);
  g_assert_cmpfloat_with_epsilon (sim_cost_expected_max_normal (4), 1.029375, 1e-6);
  g_assert_cmpfloat_with_epsilon (sim_cost_expected_max_normal (5), 1.162964, 1e-6);
  g_assert_cmpfloat_with_epsilon (sim_cost_expected_max_normal (10), 1.538753, 1e-6);
  g_assert_cmpfloat_with_epsilon (sim_cost_expected_max_normal (100), 2.507594, 1e-6);
  g_assert_cmpfloat_with_epsilon (sim_cost_expected_max_normal (1000), 3.241436, 1e-6);
  /* cached: the same value the second time */
  g_assert_cmpfloat (sim_cost_expected_max_normal (1000), ==, sim_cost_expected_max_normal (1000));
  /* the factor: 1 + sigma x E[max]; none for sigma 0 or one GPU */
  g_assert_cmpfloat (sim_cost_straggler_factor_for (0.0, 1024), ==, 1.0);
  g_assert_cmpfloat (sim_cost_straggler_factor_for (0.0148, 1), ==, 1.0);
  assert_rel (sim_cost_straggler_factor_for (0.0148, 1000), 1.0 + 0.0148 * 3.241436, 1e-6);
}

/* Every compute kernel of a plan of n GPUs runs at the slowest GPU's speed: its time x
 * (1 + perf_sigma x E[max of n]). h100-24k gives no perf_sigma (documented default 0:
 * no factor); set to 0.0148, TP 8 x DP 128 = 1,024 GPUs: E[max of 1,024] = 3.248240 (the
 * integral, just above the table's 3.241436 at 1,000), so the factor is 1 + 0.0148 x
 * 3.248240 = 1.0480740. The 8192^3 BF16 GEMM, 2 x 8192^3 / (989.4e12
 * x 0.76669) + 4 us launch = 1.45347 ms alone (test_power_cap_clock's 1.44947 ms of math),
 * is 1.45347 x 1.0480740 = 1.52334 ms; the loss (HBM-bound, 17.22 us) scales the same;
 * collectives do not (the wire does not slow with a slow part). Without a layout (n = 1)
 * or with --cost perf_sigma=0 nothing moves. */
static void
test_stragglers (Fixture *f, gconstpointer data)
{
  SimCostOptions o;
  sim_cost_options_init_documented (&o, f->h100);
  g_assert_cmpfloat (o.perf_sigma, ==, 0.0);
  g_autoptr (PlanLayout) l = make_layout (f->h100, 8, 128, 1, NULL);
  g_autoptr (SimCost) none = sim_cost_new (f->h100, l, &o);
  g_assert_cmpfloat (sim_cost_straggler_factor (none), ==, 1.0);
  g_autoptr (GError) error = NULL;
  g_assert_true (sim_cost_options_set (&o, "perf_sigma", "0.0148", &error));
  g_assert_no_error (error);
  g_autoptr (SimCost) slow = sim_cost_new (f->h100, l, &o);
  g_autoptr (SimCost) alone = sim_cost_new (f->h100, NULL, &o);
  g_assert_cmpfloat (sim_cost_straggler_factor (alone), ==, 1.0);
  assert_rel (sim_cost_straggler_factor (slow), 1.0480740, 1e-6);
  ModelOp op = gemm_op (8192, 8192, 8192);
  const double eff = 0.803 * 2048.0 / (16 * 132) * 8192.0 / 8320.0;
  const double t0 = 2.0 * 8192.0 * 8192.0 * 8192.0 / (989.4e12 * eff) + 4e-6;
  assert_rel (sim_cost_op_s (none, &op, TOPO_DTYPE_BF16, FALSE), t0, 1e-12);
  assert_rel (sim_cost_op_s (alone, &op, TOPO_DTYPE_BF16, FALSE), t0, 1e-12);
  assert_rel (sim_cost_op_s (slow, &op, TOPO_DTYPE_BF16, FALSE), 1.52334e-3, 1e-5);
  assert_rel (sim_cost_op_s (slow, &op, TOPO_DTYPE_BF16, FALSE),
              t0 * sim_cost_straggler_factor (slow), 1e-12);
  ModelOp loss = { .kind = MODEL_OP_LOSS, .name = "loss", .elements = 1 << 20 };
  assert_rel (sim_cost_op_s (slow, &loss, TOPO_DTYPE_BF16, FALSE),
              sim_cost_op_s (none, &loss, TOPO_DTYPE_BF16, FALSE) * 1.0480740, 1e-6);
  /* a collective: the same time either way */
  assert_rel (sim_cost_coll_s (slow, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP, 64.0 * 1048576),
              sim_cost_coll_s (none, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP, 64.0 * 1048576), 1e-12);
  /* out of range: refused */
  g_assert_false (sim_cost_options_set (&o, "perf_sigma", "0.6", &error));
  g_clear_error (&error);
}

/* The cross-entropy over the logits, counted pass by pass in fp32 (sim/cost-compute.c
 * LOSS_BYTES_*): 2^20 logits move 38 B each forward and 22 B backward, whatever the
 * training dtype, at 3.35e12 x 0.90 = 3.015e12 B/s, + 4 us launch: 13.22 us + 4 us
 * forward, 7.650 us + 4 us backward. */
static void
test_loss_bytes (Fixture *f, gconstpointer data)
{
  g_autoptr (SimCost) c = make_cost (f->h100, NULL, TRUE);
  ModelOp op = { .kind = MODEL_OP_LOSS, .name = "loss", .elements = 1 << 20 };
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), 38.0 * 1048576 / 3.015e12 + 4e-6,
              1e-12);
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), 17.22e-6, 1e-3);
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_FP8, TRUE), 22.0 * 1048576 / 3.015e12 + 4e-6,
              1e-12);
}

static void
test_gemm_skinny (Fixture *f, gconstpointer data)
{
  g_autoptr (SimCost) c = make_cost (f->h100, NULL, TRUE);
  /* m = 1, n = k = 8192: bytes 2 x (8192 + 8192^2 + 8192) = 134,250,496; at 3.35e12 x
   * 0.90 = 3.015e12 B/s that is 44.53 us, + 4 us = 48.53 us. Compute: 64-row tile (1/64
   * used), 32 tiles split 4-way along k to 128 units on 132 SMs: eff = 0.803 / 64 x
   * 128/132 x 0.98462 = 0.01198, 2 x 8192^2 / (989.4e12 x 0.01198) = 11.3 us < 44.53 */
  ModelOp op = gemm_op (1, 8192, 8192);
  const double bytes = 2.0 * (8192.0 + 8192.0 * 8192.0 + 8192.0);
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), bytes / 3.015e12 + 4e-6, 1e-12);
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), 48.53e-6, 1e-3);
  assert_rel (sim_cost_gemm_efficiency (c, 1, 8192, 8192, TOPO_DTYPE_BF16),
              0.803 / 64 * 128.0 / 132 * 8192.0 / 8320.0, 1e-12);

  /* tile quantization: m = 8192 + 1 adds a 65th row of 128-row tiles that holds one
   * useful row: 8193 / (65 x 128) = 0.98474, and 65 x 32 = 2080 tiles = 15.76 waves ->
   * 16: 2080 / 2112 */
  assert_rel (sim_cost_gemm_efficiency (c, 8193, 8192, 8192, TOPO_DTYPE_BF16),
              0.803 * 8193.0 / (65 * 128) * 2080.0 / 2112 * 8192.0 / 8320.0, 1e-12);
}

static void
test_attention (Fixture *f, gconstpointer data)
{
  g_autoptr (SimCost) c = make_cost (f->h100, NULL, TRUE);
  /* Llama 3 8B core, one sequence of 8192: 32 query heads, 8 KV heads, head_dim 128.
   * Causal forward FLOPs 4 x 8192^2 x 32 x 128 / 2 = 5.4976e11; at 989.4e12 x 0.60 that
   * is 0.92608 ms; bytes Q, K, V, O = 2 B x (2 x 33.55M + 2 x 8.39M) = 167.8 MB = 55.6 us,
   * below; t = 0.92608 + 0.004 = 0.93008 ms */
  ModelOp op = llama3_8b_attn_core ();
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE),
              op.fwd_flops / (989.4e12 * 0.60) + 4e-6, 1e-12);
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), 0.93008e-3, 1e-3);
  /* backward: the program gives 2.5x the forward FLOPs (dV, dP, dQ, dK and the QK^T
   * recomputation: 5 matmuls vs 2), at 0.45: 1.3744e12 / (989.4e12 x 0.45) + 4 us =
   * 3.0909 ms */
  op.fwd_flops *= 2.5;
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, TRUE), 3.0909e-3, 1e-3);
}

/* Ring attention (context parallelism, load-balanced chunks): of the rank's FLOPs the share
 * noncausal_share runs in the kernel without the causal mask, faster per FLOP by the
 * stack's figure at the rank's query length; the documented Hopper stack takes
 * FlashAttention-3's (sim/cost.c: 638/579 at 4K, 646/602 at 8K, 648/616 at 16K). The
 * Llama 3 8B core at 16K over cp 2: s_q = 8192, s_kv = 16384, forward FLOPs 4 x 8192 x
 * 16384 x 32 x 128 / 2 = 1.09951e12, at 989.4e12 x 0.60: 1.85216 ms all causal; half
 * unmasked at 646/602: x (1/2 + 1/2 x 602/646) = x 0.965944 -> 1.78908 ms, + 4 us =
 * 1.79308 ms. The SFU's 32 x 8192 x 16384 exps take 1.1113 ms, below. At cp 8 with
 * 32768 queries (past 16K: the 16K figure held) 7/8 unmasked: x (1/8 + 7/8 x 616/648) =
 * x 0.956790. The backward (its 2.5x FLOPs at 0.45) takes FA3's backward gain, at 8K
 * the measured 553.9/531.6 (flash-attention PR #1791; sim/cost.c NONCAUSAL_GAIN_BWD_FA3).
 * Shorter blocks take the figure's points below 4K (FA3 565/423 at 1K, 625/521 at 2K). */
static void
test_attention_ring (Fixture *f, gconstpointer data)
{
  g_autoptr (SimCost) c = make_cost (f->h100, NULL, TRUE);
  ModelOp op = llama3_8b_attn_core ();
  op.s_q = 8192;
  op.s_kv = 16384;
  op.fwd_flops = 4.0 * 8192.0 * 16384.0 * 32 * 128 / 2;
  const double causal = op.fwd_flops / (989.4e12 * 0.60);
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), causal + 4e-6, 1e-12);
  op.noncausal_share = 0.5;
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE),
              causal * (0.5 + 0.5 * 602.0 / 646.0) + 4e-6, 1e-12);
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), 1.79308e-3, 1e-4);
  ModelOp bwd = op;
  bwd.fwd_flops *= 2.5;
  assert_rel (sim_cost_op_s (c, &bwd, TOPO_DTYPE_BF16, TRUE),
              bwd.fwd_flops / (989.4e12 * 0.45) * (0.5 + 0.5 * 531.6 / 553.9) + 4e-6, 1e-12);
  op.s_q = 32768;
  op.s_kv = 262144;
  op.fwd_flops = 4.0 * 32768.0 * 262144.0 * 32 * 128 / 2;
  op.noncausal_share = 7.0 / 8.0;
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE),
              op.fwd_flops / (989.4e12 * 0.60) * (0.125 + 0.875 * 616.0 / 648.0) + 4e-6, 1e-12);
  /* ring blocks shorter than 4K: the figure's 2K point, FA3 625/521, and halfway (in
   * log2) between 1K and 2K, 1448 tokens: 565/423 + 0.5 x (625/521 - 565/423) */
  op.s_q = 2048;
  op.s_kv = 16384;
  op.fwd_flops = 4.0 * 2048.0 * 16384.0 * 32 * 128 / 2;
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE),
              op.fwd_flops / (989.4e12 * 0.60) * (0.125 + 0.875 * 521.0 / 625.0) + 4e-6, 1e-12);
  op.s_q = 1448;
  const double g1448 = 565.0 / 423 + (log2 (1448.0) - 10.0) * (625.0 / 521 - 565.0 / 423);
  assert_rel (g1448, 565.0 / 423 + 0.5 * (625.0 / 521 - 565.0 / 423), 1e-4);
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE),
              op.fwd_flops / (989.4e12 * 0.60) * (0.125 + 0.875 / g1448) + 4e-6, 1e-12);
  /* an unmasked share changes nothing in a kernel that is not causal */
  op.causal = FALSE;
  op.fwd_flops = 4.0 * 32768.0 * 262144.0 * 32 * 128;
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE),
              op.fwd_flops / (989.4e12 * 0.60) + 4e-6, 1e-12);
}

/* A ring step's unmasked BACKWARD against the causal backward (sim/cost.c
 * NONCAUSAL_GAIN_BWD_*): the backward's own figure, not the forward's.
 * torchtitan (FlashAttention-2 class) on H100, the Llama 3 8B core at kernel_s 8192
 * (backward 2.5 x 5.49756e11 = 1.37439e12 FLOPs, 4 us per kernel):
 *   causal backward: 0.315 x 291.5/424.4 of 989.4e12 (the cuDNN fit x
 *     FA2_OVER_CUDNN_FIT_BWD) x 286.2/291.5 (ATTN_LEN_BWD_FA2 at 8K over 16K) = 0.315 x
 *     286.2/424.4 x 989.4e12 = 210.173 TFLOP/s -> 6.53933 ms + 4 us; the exps (32 x
 *     8192 x 8193 / 2 at 4.18e12/s, 0.257 ms) stay below;
 *   unmasked: flash-attention PR #1791 (H100, batch 2 x 8K, 16 heads, head dim 128)
 *     times the FA2 backward at 290.6 vs 287.1 and 288.9 vs 289.1 TFLOP/s without and
 *     with the mask: gain (1.01219 + 0.99931) / 2 = 1.00575, where the forward gains
 *     370/333 = 1.11111 (FA3 paper Fig. 5). All of it unmasked (noncausal_share 1):
 *     6.53933 / 1.00575 = 6.50194 ms + 4 us; 7/8 of it: x (1/8 + 7/8 / 1.00575) =
 *     x 0.994998 -> 6.50662 ms + 4 us. The forward keeps its own 370/333.
 *   The old rule (the forward's gain for the backward) gave x (1/8 + 7/8 x 333/370) =
 *     x 0.9125, 8.3% less time: 5.96714 ms + 4 us.
 * megatron-core (cuDNN class) at kernel_s 4096, fully unmasked: the backward's gain is
 * Fig. 5's forward 609/518 times the backward-over-forward gain that NVIDIA's
 * cudnn-frontend H200 Llama 3.1 run measures at 4K, (560/474) / (671/591) = 1.04057:
 * 1.17568 x 1.04057 = 1.22338; causal backward 1.37439e12 / (989.4e12 x 0.315) =
 * 4.40989 ms (the 4K anchor) -> 3.60467 ms + 1 us. */
static void
test_attention_ring_backward (Fixture *f, gconstpointer data)
{
  g_autoptr (SimCost) ct = stack_cost (f->h100, "torchtitan");
  ModelOp bwd = llama3_8b_attn_core ();
  bwd.kernel_s = 8192;
  bwd.fwd_flops *= 2.5;
  const double causal = bwd.fwd_flops / (989.4e12 * 0.315 * 286.2 / 424.4);
  assert_rel (causal, 6.53933e-3, 1e-5);
  assert_rel (sim_cost_op_s (ct, &bwd, TOPO_DTYPE_BF16, TRUE), causal + 4e-6, 1e-9);
  const double gain = (290.6 / 287.1 + 288.9 / 289.1) / 2.0;
  assert_rel (gain, 1.00575, 1e-5);
  bwd.noncausal_share = 1.0;
  assert_rel (sim_cost_op_s (ct, &bwd, TOPO_DTYPE_BF16, TRUE), causal / gain + 4e-6, 1e-9);
  assert_rel (sim_cost_op_s (ct, &bwd, TOPO_DTYPE_BF16, TRUE), 6.50594e-3, 1e-5);
  bwd.noncausal_share = 7.0 / 8.0;
  assert_rel (sim_cost_op_s (ct, &bwd, TOPO_DTYPE_BF16, TRUE),
              causal * (0.125 + 0.875 / gain) + 4e-6, 1e-9);
  assert_rel (sim_cost_op_s (ct, &bwd, TOPO_DTYPE_BF16, TRUE), 6.51062e-3, 1e-5);
  /* not the forward's ratio any more */
  g_assert_cmpfloat (sim_cost_op_s (ct, &bwd, TOPO_DTYPE_BF16, TRUE), >,
                     causal * (0.125 + 0.875 * 333.0 / 370.0) * 1.08);
  /* the forward's own: 370/333 at 8K */
  ModelOp fwd = llama3_8b_attn_core ();
  fwd.kernel_s = 8192;
  /* the forward at 8K: 0.4235 x 335/518 (FA2_OVER_CUDNN_FIT_FWD) x 333/335 (the curve) */
  const double causal_f = fwd.fwd_flops / (989.4e12 * 0.4235 * 333.0 / 518.0);
  fwd.noncausal_share = 7.0 / 8.0;
  assert_rel (sim_cost_op_s (ct, &fwd, TOPO_DTYPE_BF16, FALSE),
              causal_f * (0.125 + 0.875 * 333.0 / 370.0) + 4e-6, 1e-9);

  g_autoptr (SimCost) cm = stack_cost (f->h100, "megatron-core");
  ModelOp cb = llama3_8b_attn_core ();
  cb.kernel_s = 4096;
  cb.fwd_flops *= 2.5;
  const double causal_c = cb.fwd_flops / (989.4e12 * 0.315);
  assert_rel (causal_c, 4.40989e-3, 1e-5);
  assert_rel (sim_cost_op_s (cm, &cb, TOPO_DTYPE_BF16, TRUE), causal_c + 1e-6, 1e-9);
  cb.noncausal_share = 1.0;
  const double gain_c = 609.0 / 518 * (560.0 / 474) / (671.0 / 591);
  assert_rel (gain_c, 1.22338, 1e-5);
  assert_rel (sim_cost_op_s (cm, &cb, TOPO_DTYPE_BF16, TRUE), causal_c / gain_c + 1e-6, 1e-9);
  assert_rel (sim_cost_op_s (cm, &cb, TOPO_DTYPE_BF16, TRUE), 3.60567e-3, 1e-5);
}

/* The attention kernel's rate by length (sim/cost.c ATTN_LEN_*, FlashAttention-3 paper
 * Fig. 5-6). The megatron-core stack on H100 (cuDNN class): the fitted 0.4235 / 0.315 of
 * 989.4e12 hold at 4K; 1 us per kernel (the stack's figure). The Llama 3 8B core at 8192
 * queries, forward 5.49756e11 FLOPs: at 4K 5.49756e11 / (989.4e12 x 0.4235) = 1.31202 ms
 * + 1 us; the exps (0.278 ms) and the bytes (55.6 us) stay below in every case here.
 *   kernel_s 16384: x 539/518 (Fig. 5e, causal cuDNN 16K over 4K) -> 1.26090 ms + 1 us;
 *   kernel_s 2048: x 484/518 -> 1.40418 ms + 1 us;
 *   kernel_s 6144: log2 = 12.585, 0.585 of the way from 4K to 8K:
 *     x (1 + 0.58496 x (529/518 - 1)) = x 1.012422;
 *   kernel_s 131072 and 256: held at 16K's (539/518) and 512's (315/518).
 *   backward (2.5x the FLOPs at 0.315), kernel_s 16384: x (516 x 539/595) / (499 x 518/609)
 *     = 467.4 / 424.4 (the no-mask backward over the forward's no-mask gain):
 *     1.37439e12 / (989.4e12 x 0.315 x 1.101320) = 4.00403 ms + 1 us.
 *   ring at kernel_s 16384, 7/8 unmasked: the causal 16K rate, 7/8 of the FLOPs at the
 *     unmasked one (x 595/539): x (1/8 + 7/8 x 539/595).
 *   kernel_s 0: the kernel's s_kv (8192): x 529/518.
 * torchtitan (FlashAttention-2 class, 4 us per kernel): Fig. 5e's FA2 causal 16K over
 * cuDNN causal 4K, 335/518 of the cuDNN fit's forward at 16K and beyond (its curve is 1
 * there), x 319/335 at 4K, i.e. 319/518 = 0.616 of cuDNN's 4K rate, the figure's own
 * ratio at 4K. */
static void
test_attention_length (Fixture *f, gconstpointer data)
{
  g_autoptr (SimCost) c = stack_cost (f->h100, "megatron-core");
  ModelOp op = llama3_8b_attn_core ();
  const double base = op.fwd_flops / (989.4e12 * 0.4235);
  op.kernel_s = 4096;
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), base + 1e-6, 1e-9);
  assert_rel (base, 1.31202e-3, 1e-4);
  op.kernel_s = 16384;
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), base * 518.0 / 539.0 + 1e-6, 1e-9);
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), 1.26190e-3, 1e-4);
  op.kernel_s = 2048;
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), 1.40518e-3, 1e-4);
  op.kernel_s = 6144;
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), base / 1.012422 + 1e-6, 1e-6);
  op.kernel_s = 131072;
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), base * 518.0 / 539.0 + 1e-6, 1e-9);
  op.kernel_s = 256;
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), base * 518.0 / 315.0 + 1e-6, 1e-9);
  op.kernel_s = 0;
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), base * 518.0 / 529.0 + 1e-6, 1e-9);

  ModelOp bwd = op;
  bwd.kernel_s = 16384;
  bwd.fwd_flops *= 2.5;
  assert_rel (sim_cost_op_s (c, &bwd, TOPO_DTYPE_BF16, TRUE),
              bwd.fwd_flops / (989.4e12 * 0.315) * 424.4 / 467.4 + 1e-6, 1e-9);
  assert_rel (sim_cost_op_s (c, &bwd, TOPO_DTYPE_BF16, TRUE), 4.00503e-3, 1e-4);

  op.kernel_s = 16384;
  op.noncausal_share = 7.0 / 8.0;
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE),
              base * 518.0 / 539.0 * (0.125 + 0.875 * 539.0 / 595.0) + 1e-6, 1e-9);

  g_autoptr (SimCost) ct = stack_cost (f->h100, "torchtitan");
  ModelOp fa2 = llama3_8b_attn_core ();
  const double base2 = fa2.fwd_flops / (989.4e12 * 0.4235 * 335.0 / 518.0);
  fa2.kernel_s = 16384;
  assert_rel (sim_cost_op_s (ct, &fa2, TOPO_DTYPE_BF16, FALSE), base2 + 4e-6, 1e-9);
  fa2.kernel_s = 131072;
  assert_rel (sim_cost_op_s (ct, &fa2, TOPO_DTYPE_BF16, FALSE), base2 + 4e-6, 1e-9);
  fa2.kernel_s = 4096;
  assert_rel (sim_cost_op_s (ct, &fa2, TOPO_DTYPE_BF16, FALSE), base2 * 335.0 / 319.0 + 4e-6, 1e-9);
  assert_rel (sim_cost_op_s (ct, &fa2, TOPO_DTYPE_BF16, FALSE),
              fa2.fwd_flops / (989.4e12 * 0.4235 * 319.0 / 518.0) + 4e-6, 1e-9);
}

/* The kernel's rate by head dim (sim/cost.c ATTN_HD64_*, FlashAttention-3 paper Fig. 5d
 * and 6a against 5e and 6b). The Llama 3 8B core with 64-wide heads (forward FLOPs
 * 4 x 8192^2 x 32 x 64 / 2 = 2.74878e11) on H100, megatron-core (cuDNN class, 1 us per
 * kernel), kernel_s 4096 (where the length curve is 1):
 *   forward: 0.4235 x 989.4e12 x 363/518 (Fig. 5d 4K over 5e 4K) = 293.63 TFLOP/s ->
 *     0.936141 ms + 1 us; the exps (8192 x 8193 / 2 x 32 = 1.0739e9 at 132 x 1.98e9 x
 *     16 = 4.18e12/s: 0.257 ms) and the bytes stay below;
 *   head dim 96: log2 96 = 6.58496, 0.41504 of the way from 128 down to 64:
 *     x (1 - 0.41504 x (1 - 363/518)) = x 0.875810;
 *   head dim 128 and 256: x 1; head dim 32: held at 64's;
 *   backward (2.5x the FLOPs at 0.315): x (417 x 363/408) / (499 x 518/609) =
 *     371.007 / 424.437 = 0.874116 (Fig. 6a over 6b, each over its forward's no-mask
 *     gain).
 * torchtitan (FlashAttention-2 class, 335/518 of the cuDNN fit at 16K) at kernel_s 16384:
 * x 299/335 (Fig. 5d / 5e). */
static void
test_attention_head_dim (Fixture *f, gconstpointer data)
{
  g_autoptr (SimCost) c = stack_cost (f->h100, "megatron-core");
  ModelOp op = llama3_8b_attn_core ();
  op.head_dim = op.head_dim_v = 64;
  op.fwd_flops = 4.0 * 8192.0 * 8192.0 * 32 * 64 / 2;
  op.kernel_s = 4096;
  const double base = op.fwd_flops / (989.4e12 * 0.4235);
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), base * 518.0 / 363.0 + 1e-6, 1e-9);
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), 0.937141e-3, 1e-5);
  op.head_dim = op.head_dim_v = 96;
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), base / 0.875810 + 1e-6, 1e-6);
  op.head_dim = op.head_dim_v = 128;
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), base + 1e-6, 1e-9);
  op.head_dim = op.head_dim_v = 256;
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), base + 1e-6, 1e-9);
  op.head_dim = op.head_dim_v = 32;
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), base * 518.0 / 363.0 + 1e-6, 1e-9);

  ModelOp bwd = op;
  bwd.head_dim = bwd.head_dim_v = 64;
  bwd.fwd_flops *= 2.5;
  assert_rel (sim_cost_op_s (c, &bwd, TOPO_DTYPE_BF16, TRUE),
              bwd.fwd_flops / (989.4e12 * 0.315 * 0.874116) + 1e-6, 1e-6);

  g_autoptr (SimCost) ct = stack_cost (f->h100, "torchtitan");
  ModelOp fa2 = op;
  fa2.head_dim = fa2.head_dim_v = 64;
  fa2.kernel_s = 16384;
  assert_rel (sim_cost_op_s (ct, &fa2, TOPO_DTYPE_BF16, FALSE),
              fa2.fwd_flops / (989.4e12 * 0.4235 * 335.0 / 518.0) * 335.0 / 299.0 + 4e-6, 1e-9);
}

/* Sliding-window layers (ModelOp window, window_share; sim/cost-compute.c attention_s):
 * gpt-oss-120b's core, one sequence of 8192, 64 query heads of 64, 8 KV heads, a window
 * of 128 tokens on half the layers, on H100 with megatron-core (cuDNN class, 1 us per
 * kernel). A full layer: 4 x 8192^2 x 64 x 64 / 2 = 5.49756e11 FLOPs; a windowed one r =
 * (2 x 128 - 128^2 / 8192) / 8192 = 254 / 8192 of it; the op's FLOPs are the average,
 * x (0.5 + 0.5 r) = 2.83401e11 (the figure `tandem show model gpt-oss-120b` prints).
 *   full half: 0.4235 x 989.4e12 x 529/518 (8K) x 379/529 (head dim 64 at 8K) = 306.575
 *     TFLOP/s -> 1.79322 ms + 1 us (exps 8192 x 8193 / 2 x 64 = 2.148e9 at 3.86e12/s:
 *     0.556 ms, below);
 *   windowed half: a causal kernel of 2 x 128 = 256 tokens, held at the 512 figures:
 *     0.4235 x 989.4e12 x 315/518 x 225/315 = 182.003 TFLOP/s on 1.70457e10 FLOPs ->
 *     93.656 us + 1 us (its bytes, Q K V O 2 x (33.55M + 4.19M) x 2 B = 151 MB at
 *     3.015e12 B/s = 50.1 us, and its exps, 17 us, below);
 *   the op: 0.5 x 1.79422 + 0.5 x 0.094656 = 0.944438 ms, against 1.79422 ms for the
 *     whole FLOPs of full layers (the cost before windows were costed).
 * A window as long as the sequence changes nothing. */
static void
test_attention_window (Fixture *f, gconstpointer data)
{
  g_autoptr (SimCost) c = stack_cost (f->h100, "megatron-core");
  ModelOp op = llama3_8b_attn_core ();
  op.heads = 64;
  op.head_dim = op.head_dim_v = 64;
  op.kernel_s = 8192;
  const double full = 4.0 * 8192.0 * 8192.0 * 64 * 64 / 2;
  const double r = 254.0 / 8192.0;
  op.fwd_flops = full * (0.5 + 0.5 * r);
  assert_rel (op.fwd_flops, 2.83401e11, 1e-5);
  op.window = 128;
  op.window_share = 0.5;
  const double t_full = full / (989.4e12 * 0.4235 * 379.0 / 518.0) + 1e-6;
  const double t_win = full * r / (989.4e12 * 0.4235 * 225.0 / 518.0) + 1e-6;
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), 0.5 * t_full + 0.5 * t_win, 1e-9);
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), 0.944438e-3, 1e-5);
  /* all layers full: the whole FLOPs at the 8K rate */
  op.window = 0;
  op.window_share = 0.0;
  op.fwd_flops = full;
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), t_full, 1e-9);
  op.window = 8192;
  op.window_share = 0.5;
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), t_full, 1e-9);
}

/* A sliding window under all-gather CP (ModelOp s_q = s/c of s_kv = s keys, kernel_s =
 * s/2c; plan/program-blocks.c attention): a Gemma-2-like core, half the layers windowed
 * at W = 512, 32 heads of 128, one sequence of 8192 over cp 2, on H100 with megatron-core
 * (cuDNN curve by length, 1 us a kernel). A rank runs 4096 queries against 8192 keys:
 * full = 4 x 4096 x 8192 x 32 x 128 / 2 = 2.74878e11 FLOPs a full layer; the busiest
 * rank of a windowed layer holds two chunks of L = 2048 both past the window, 2 x 2048 x
 * 512 of L s = 2048 x 8192 pairs: r = 1/8 (model_window_pairs_ratio_cp); the op's FLOPs
 * x (0.5 + 0.5 r) = 1.54619e11.
 *   full half at its chunk's 2048 tokens: 0.4235 x 989.4e12 x 484/518 = 391.509 TFLOP/s
 *     -> 0.702098 ms + 1 us (exps 32 x 4096 x 8192 / 2 = 5.4e8, 0.14 ms, below);
 *   windowed half, a causal kernel of 2W = 1024 tokens: 0.4235 x 989.4e12 x 410/518 =
 *     331.649 TFLOP/s on 3.43597e10 -> 0.103603 ms + 1 us (bytes Q K V O 2 x (16.8M +
 *     8.4M) x 2 B = 101 MB, 33 us, below);
 *   the op: 0.5 x 0.703098 + 0.5 x 0.104603 = 0.403851 ms. Before, the window was
 * costed for whole sequences only: the average FLOPs at the 2048 rate, 0.395930 ms. */
static void
test_attention_window_allgather (Fixture *f, gconstpointer data)
{
  g_autoptr (SimCost) c = stack_cost (f->h100, "megatron-core");
  ModelOp op = llama3_8b_attn_core ();
  op.s_q = 4096;
  op.s_kv = 8192;
  op.kernel_s = 2048;
  const double full = 4.0 * 4096.0 * 8192.0 * 32 * 128 / 2;
  const double r = model_window_pairs_ratio_cp (8192, 512, 2);
  g_assert_cmpfloat (r, ==, 0.125);
  op.fwd_flops = full * (0.5 + 0.5 * r);
  assert_rel (op.fwd_flops, 1.54619e11, 1e-5);
  op.window = 512;
  op.window_share = 0.5;
  const double t_full = full / (989.4e12 * 0.4235 * 484.0 / 518.0) + 1e-6;
  const double t_win = full * r / (989.4e12 * 0.4235 * 410.0 / 518.0) + 1e-6;
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), 0.5 * t_full + 0.5 * t_win, 1e-9);
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), 0.403851e-3, 1e-5);
  /* the ratio at other shapes: the window covering a whole chunk pair's reach (W >= s:
   * none), and one rank (cp 1: the whole-sequence 2W - W^2/s of s) */
  g_assert_cmpfloat (model_window_pairs_ratio_cp (8192, 8192, 2), ==, 1.0);
  assert_rel (model_window_pairs_ratio_cp (8192, 128, 1), 254.0 / 8192.0, 1e-12);
}

/* The experts' down-projection bias added after the grouped GEMM (gpt-oss under
 * Megatron-Core, sim/cost-compute.c "expert_bias"): 8192 tokens x top-4 = 32768 rows of
 * h 2880 = 94,371,840 elements over 2 local experts, on H100 (HBM 3.35e12 x 0.90 =
 * 3.015e12 B/s) with megatron-core (1 us per kernel): 12 B each way = 1,132,462,080 B ->
 * 375.610 us; forward 2 x 2 + 1 = 5 kernels (+ 5 us), backward 4 x 2 = 8 (+ 8 us). */
static void
test_expert_bias (Fixture *f, gconstpointer data)
{
  g_autoptr (SimCost) c = stack_cost (f->h100, "megatron-core");
  ModelOp op = elementwise_op ("expert_bias", 8192 * 4 * 2880);
  op.b = 2;
  const double t = 94371840.0 * 12 / 3.015e12;
  assert_rel (t, 375.610e-6, 1e-5);
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), t + 5e-6, 1e-9);
  op.name = "expert_bias_grad";
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, TRUE), t + 8e-6, 1e-9);
}

/* gpt-oss's clamped quick-GEGLU as Megatron-Core runs it (sim/cost-compute.c
 * "expert_act_*"): 8192 tokens x top-4 = 32768 rows, f 2880 -> 94,371,840 output
 * elements, bf16 (2 B), on H100 (HBM 3.015e12 B/s) with megatron-core (1 us per kernel,
 * a 5 us launch-plus-sync round trip, 15 us per eager op):
 *  - clamp: the two clamps (2 accesses each) and the cat (4): 8 x 2 B = 16 B ->
 *    1,509,949,440 B = 500.812 us + 3 kernels;
 *  - geglu: read 2, write 1: 6 B -> 566,231,040 B = 187.805 us + 1 kernel;
 *  - geglu_grad: read 1 + 2, write 2: 10 B -> 943,718,400 B = 313.008 us + 1 kernel;
 *  - clamp_grad: 11 x 2 B + 8 B of masks = 30 B -> 2,831,155,200 B = 939.023 us + 9;
 *  - sync: 5 + 15 = 20 us, and nothing under a stack without the dispatcher's sync
 *    (torchtitan). The recompute ops cost the forward's in the backward block.
 *  - a geglu shorter than the host's way to the next GEMM after the sync: 2048 tokens,
 *    23,592,960 elements x 6 B = 141,557,760 B = 46.951 us + 1 us, against the
 *    GroupedLinear call 115 - 20 = 95 us and one expert GEMM call as a training step issues
 *    it, (2187 - 2 x 95 - 2 x 15) / 32 = 61.46875 us (sim/cost.c TE_GEMM_CALL_TRAIN_HOST_S):
 *    156.46875 us; without the sync (torchtitan, 4 us per kernel) its own 50.951 us. */
static void
test_expert_act_clamped (Fixture *f, gconstpointer data)
{
  g_autoptr (SimCost) c = stack_cost (f->h100, "megatron-core");
  ModelOp op = { 0 };
  op.kind = MODEL_OP_ELEMENTWISE;
  op.elements = 8192 * 4 * 2880;
  const double n = 94371840.0, B = 3.015e12;
  op.name = "expert_act_clamp";
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), 500.812e-6 + 3e-6, 1e-5);
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), n * 16 / B + 3e-6, 1e-9);
  op.name = "expert_act_clamp_recompute";
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, TRUE), n * 16 / B + 3e-6, 1e-9);
  op.name = "expert_act_geglu";
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), 187.805e-6 + 1e-6, 1e-5);
  op.name = "expert_act_geglu_recompute";
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, TRUE), n * 6 / B + 1e-6, 1e-9);
  op.name = "expert_act_geglu_grad";
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, TRUE), 313.008e-6 + 1e-6, 1e-5);
  op.name = "expert_act_clamp_grad";
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, TRUE), 939.023e-6 + 9e-6, 1e-5);
  op.name = "expert_act_sync";
  op.elements = 0;
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), 20e-6, 1e-9);
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, TRUE), 20e-6, 1e-9);
  g_autoptr (SimCost) ct = stack_cost (f->h100, "torchtitan");
  g_assert_cmpfloat (sim_cost_op_s (ct, &op, TOPO_DTYPE_BF16, FALSE), ==, 0.0);
  op.name = "expert_act_geglu";
  op.elements = 2048 * 4 * 2880;
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), 156.46875e-6, 1e-9);
  op.name = "expert_act_geglu_recompute";
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, TRUE), 156.46875e-6, 1e-9);
  op.name = "expert_act_geglu";
  assert_rel (sim_cost_op_s (ct, &op, TOPO_DTYPE_BF16, FALSE), 46.951e-6 + 4e-6, 1e-4);
}

/* RoPE as unfused PyTorch ops (plan --no-rope-fusion, sim/cost-compute.c
 * "rotary_unfused"): gpt-oss-120b's Q and K over 8192 tokens, (64 + 8) heads x 64 =
 * 37,748,736 elements, on H100 (3.015e12 B/s) with megatron-core (1 us per kernel):
 * forward 12 accesses x 2 B = 905,969,664 B -> 300.488 us + 23 us (24 kernels);
 * backward 13 x 2 B = 981,467,136 B -> 325.528 us + 13 us (14 kernels). */
static void
test_rotary_unfused (Fixture *f, gconstpointer data)
{
  g_autoptr (SimCost) c = stack_cost (f->h100, "megatron-core");
  ModelOp op = elementwise_op ("rotary_unfused", 8192 * 72 * 64);
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), 300.488e-6 + 24e-6, 1e-5);
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE),
              37748736.0 * 24 / 3.015e12 + 24e-6, 1e-9);
  op.name = "rotary_unfused_grad";
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, TRUE),
              37748736.0 * 26 / 3.015e12 + 14e-6, 1e-9);
}

/* Transformer Engine's Triton cross entropy (plan --cross-entropy-fusion-impl te,
 * sim/cost-compute.c "loss_te") against Megatron-Core's native fused one: Llama 3 8B's
 * loss over 8192 tokens, 8192 x 128256 = 1,050,673,152 logits, on H100 (3.015e12 B/s)
 * with megatron-core (1 us per kernel), 5 FLOPs per logit far below the vector rate.
 * TE forward: the logits read once, 2 B each = 2,101,346,304 B -> 696.964 us + 2 us
 * (2 kernels); backward: read and overwritten, 4 B = 1393.929 us + 1 us. Native:
 * forward 38 B = 13,242.32 us + 1 us, backward 22 B = 7666.60 us + 1 us. */
static void
test_loss_te (Fixture *f, gconstpointer data)
{
  g_autoptr (SimCost) c = stack_cost (f->h100, "megatron-core");
  ModelOp op = { 0 };
  op.kind = MODEL_OP_LOSS;
  op.elements = 8192ULL * 128256;
  op.fwd_flops = 5.0 * (double) op.elements;
  op.name = "loss_te";
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), 696.964e-6 + 2e-6, 1e-5);
  op.name = "loss_te_grad";
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, TRUE), 1393.929e-6 + 1e-6, 1e-5);
  op.name = "loss";
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), 13242.32e-6 + 1e-6, 1e-5);
  op.name = "loss_grad";
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, TRUE), 7666.60e-6 + 1e-6, 1e-5);
}

/* The chunked gated delta rule of one Qwen3-Next GDN layer, one sequence of 4096: 32
 * value heads (16 key heads), d_k = d_v = 128, chunks of 64. FLOPs forward 4096 x
 * model_spec_gdn_core_flops = 4096 x 32 x (6 x 128^2 + 2 x 64 x 640 + 64^2 / 3) =
 * 23.80e9; at the Triton-class efficiency (the documented H100 attention 0.60 x the FA2
 * ratio 0.58 = 0.348 of 989.4e12) 69.13 us. Bytes: per token and head q, k, v, g, beta,
 * W, U written and read, o: 2 x 128 + 128 + 2 + 2 x 256 + 128 = 1026 elements, x 4096 x
 * 32 = 134,479,872; per chunk and head the 128 x 128 state written and read: 64 x 32 x
 * 2 x 16384 = 67,108,864; x 2 B = 403.18 MB at 3.015e12 B/s = 133.72 us: memory-bound,
 * + 4 us launch. Backward: twice the bytes (267.45 us) against 2 x 23.80e9 + 4 x 4096 x 32
 * x 128^2 = 56.19e9 FLOPs at 0.45 x 0.65 = 0.2925 (194.2 us): 271.45 us. */
static void
test_gdn (Fixture *f, gconstpointer data)
{
  g_autoptr (SimCost) c = make_cost (f->h100, NULL, TRUE);
  ModelOp op = { 0 };
  op.name = "gdn_core";
  op.kind = MODEL_OP_GDN;
  op.b = 1;
  op.heads = 32;
  op.kv_heads = 16;
  op.s_q = op.s_kv = 4096;
  op.head_dim = op.head_dim_v = 128;
  op.chunk = 64;
  op.fwd_flops = 4096.0 * model_spec_gdn_core_flops (32, 128, 128, 64);
  assert_rel (op.fwd_flops, 4096.0 * 32 * (98304.0 + 81920.0 + 4096.0 / 3), 1e-12);
  const double bytes = 2.0 * (4096.0 * 32 * 1026 + 64.0 * 32 * 2 * 16384);
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), bytes / 3.015e12 + 4e-6, 1e-9);
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), 137.72e-6, 1e-3);
  g_assert_cmpfloat (op.fwd_flops / (989.4e12 * 0.60 * 0.58), <, bytes / 3.015e12);
  op.fwd_flops = 2.0 * op.fwd_flops + 4.0 * 4096 * 32 * 128 * 128;
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, TRUE), 2.0 * bytes / 3.015e12 + 4e-6,
              1e-9);
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, TRUE), 271.45e-6, 1e-3);
  /* fp8 recipes keep it in bf16: the same time */
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_FP8, TRUE), 271.45e-6, 1e-3);
  /* a compute-bound shape (16 sequences' worth of FLOPs on the same bytes): the
   * Triton-class rate, 0.348 of peak */
  op.fwd_flops = 16.0 * 4096.0 * model_spec_gdn_core_flops (32, 128, 128, 64);
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE),
              op.fwd_flops / (989.4e12 * 0.60 * 0.58) + 4e-6, 1e-9);
}

/* The softmax's exponentials on the SFU (sim/cost-compute.c attention_exp_s): one exp per
 * visible score, forward and again backward, at sms x clock x exp_per_clk_per_sm; the
 * attention op takes the longer of that and its tensor-core part. The Llama 3 8B core of
 * test_attention: visible scores 32 x 8192^2 x (8192 + 1) / (2 x 8192) = 1,073,872,896.
 * h100-24k: 132 SMs x 1.83 GHz x 16 = 3.86496e12 exp/s -> 0.27785 ms, below the forward's
 * tensor part 0.93008 ms: unchanged. An SFU of 2 per clock (4.8312e11/s): 2.22279 ms,
 * above the forward (0.93008 ms), below the backward (3.0909 ms); at 1 per clock 4.44559
 * ms, above both. The presets carry 16 (H100, B200, GB200) and 32 (GB300: Blackwell
 * Ultra's doubled MUFU.EX2). */
static void
test_attention_exp (Fixture *f, gconstpointer data)
{
  ModelOp op = llama3_8b_attn_core ();
  const double visible = 32.0 * 8192 * 8192 * 8193.0 / (2 * 8192);
  g_assert_cmpfloat (f->h100->device.exp_per_clk_per_sm, ==, 16);
  {
    g_autoptr (SimCost) c = make_cost (f->h100, NULL, TRUE);
    assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE),
                op.fwd_flops / (989.4e12 * 0.60) + 4e-6, 1e-12);
    g_assert_cmpfloat (visible / (132 * 1.83e9 * 16), <, 0.2779e-3);
  }
  f->h100->device.exp_per_clk_per_sm = 2;
  {
    g_autoptr (SimCost) c = make_cost (f->h100, NULL, TRUE);
    assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), visible / (132 * 1.83e9 * 2),
                1e-12);
    assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), 2.22279e-3, 1e-4);
    ModelOp bwd = op;
    bwd.fwd_flops *= 2.5;
    assert_rel (sim_cost_op_s (c, &bwd, TOPO_DTYPE_BF16, TRUE), 3.0909e-3, 1e-3);
  }
  f->h100->device.exp_per_clk_per_sm = 1;
  {
    g_autoptr (SimCost) c = make_cost (f->h100, NULL, TRUE);
    ModelOp bwd = op;
    bwd.fwd_flops *= 2.5;
    assert_rel (sim_cost_op_s (c, &bwd, TOPO_DTYPE_BF16, TRUE), 4.44559e-3, 1e-4);
    /* A context-parallel rank (CP 2, or a TP-overlap chunk of 4,096 queries: s_q = 4,096
     * against s_kv = 8,192 keys, load-balanced) sees half its 4,096 x 8,192 scores, as its
     * FLOPs (half the full count) say: 32 x 4,096 x 8,192 / 2 = 536,870,912 exponentials
     * / (132 x 1.83e9 x 1 per clock) = 2.22261 ms, above its tensor part (half of the
     * whole forward's 0.93008 ms). Counting all 4,096 x 8,192 would give 4.44522 ms. */
    ModelOp cp = op;
    cp.s_q = 4096;
    cp.fwd_flops = 4.0 * 4096.0 * 8192.0 * 32 * 128 / 2;
    assert_rel (sim_cost_op_s (c, &cp, TOPO_DTYPE_BF16, FALSE),
                32.0 * 4096 * 8192 / 2 / (132 * 1.83e9), 1e-12);
    assert_rel (sim_cost_op_s (c, &cp, TOPO_DTYPE_BF16, FALSE), 2.22261e-3, 1e-4);
    /* The ring steps after the first under PyTorch's context_parallel, CP 4 of the same
     * 8,192 tokens, built as one op (plan/program-blocks.c cp_step_share): s / c = 2,048
     * queries against (c - 1) s / 2c = 3,072 keys, all unmasked (noncausal_share 1),
     * 3 / 4 of the rank's FLOPs: 4 x 2,048 x 3,072 x 32 x 128 = 1.03079e11. Every score
     * of that shape is computed: 32 x 2,048 x 3,072 = 201,326,592 exponentials / (132 x
     * 1.83e9 x 1) = 0.83346 ms, above the tensor part (1.03079e11 / (989.4e12 x 0.60)
     * + 4 us = 0.17764 ms, no curves in this cost). Read as causal (s_q < s_kv: half
     * the scores visible) it would be half, 0.41673 ms. */
    ModelOp later = op;
    later.s_q = 2048;
    later.s_kv = 3072;
    later.noncausal_share = 1.0;
    later.fwd_flops = 4.0 * 2048.0 * 3072.0 * 32 * 128;
    assert_rel (sim_cost_op_s (c, &later, TOPO_DTYPE_BF16, FALSE),
                32.0 * 2048 * 3072 / (132 * 1.83e9), 1e-12);
    assert_rel (sim_cost_op_s (c, &later, TOPO_DTYPE_BF16, FALSE), 0.83346e-3, 1e-4);
  }
  const struct { const char *preset; double exp; } want[] = {
    { "dgx-b200-superpod", 16 }, { "gb200-nvl72-superpod", 16 }, { "gb300-nvl72-superpod", 32 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      g_autoptr (TopoCluster) k = cluster_preset (want[i].preset);
      g_assert_cmpfloat (k->device.exp_per_clk_per_sm, ==, want[i].exp);
      g_assert_cmpuint (k->device.sms, >, 0);
      g_assert_cmpfloat (k->device.clock_hz, >, 0);
    }
}

/* Blackwell borrows Hopper's attention fractions, whose time holds the exponentials at
 * Hopper's balance of 4,096 BF16 FLOP per clock per SM to 16 MUFU.EX2 per clock:
 * 989.4e12 / (132 x 1.83e9) / 16 = 255.99 FLOP per exponential (sim/cost.c
 * HOPPER_FLOP_PER_EXP). A GB200 runs 2,500e12 BF16 on 148 x 2.06e9 x 16 = 4.87808e12
 * exp/s, 512.5 FLOP per exponential: the exponentials beyond Hopper's share run serially
 * with the products (NVIDIA, 'Making Softmax More Efficient with NVIDIA Blackwell Ultra':
 * on GB200 the Tensor Cores idle while the SFU normalizes). The Llama 3 8B core of
 * test_attention, forward at 0.4 of peak: 5.49756e11 FLOP / 1,000e12 = 0.549756 ms + 4 us
 * launch; visible scores 1,073,872,896 take 0.220143 ms on GB200's SFU, of which the fit
 * holds 1,073,872,896 x 255.99 / 2,500e12 = 0.109961 ms: + 0.110182 ms. GB300 (160 x
 * 1.91e9 x 32 = 9.7792e12 exp/s, 255.64 FLOP per exponential) is at Hopper's balance: no
 * extra time. Hopper and Ampere carry their own fits: no reference (0). */
static void
test_attention_exp_serial (Fixture *f, gconstpointer data)
{
  g_autoptr (TopoCluster) gb2 = cluster_preset ("gb200-nvl72-superpod");
  g_autoptr (TopoCluster) gb3 = cluster_preset ("gb300-nvl72-superpod");
  ModelOp op = llama3_8b_attn_core ();
  const double visible = 32.0 * 8192 * 8192 * 8193.0 / (2 * 8192);
  const double ref = 989.4e12 / (132 * 1.83e9) / 16.0;
  assert_rel (ref, 255.99, 1e-4);
  SimCostOptions o;
  /* the stacks' options: Blackwell takes Hopper's balance, Hopper none */
  sim_cost_options_init_stack (&o, gb2, NULL);
  assert_rel (o.attn_fit_flop_per_exp, ref, 1e-12);
  sim_cost_options_init_stack (&o, f->h100, NULL);
  g_assert_cmpfloat (o.attn_fit_flop_per_exp, ==, 0.0);
  /* by hand on the documented options (flat curves, 4 us launches) */
  const double mma = op.fwd_flops / (2500e12 * 0.4) + 4e-6;
  assert_rel (mma, 0.553756e-3, 1e-5);
  for (int with = 0; with <= 1; with++)
    {
      sim_cost_options_init_documented (&o, gb2);
      o.attn_fwd_efficiency = 0.4;
      o.attn_fit_flop_per_exp = with ? ref : 0.0;
      g_autoptr (SimCost) c = sim_cost_new (gb2, NULL, &o);
      const double extra = visible / (148 * 2.06e9 * 16) - visible * ref / 2500e12;
      assert_rel (extra, 0.110182e-3, 1e-4);
      assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), mma + (with ? extra : 0.0),
                  1e-9);
    }
  sim_cost_options_init_documented (&o, gb3);
  o.attn_fwd_efficiency = 0.4;
  o.attn_fit_flop_per_exp = ref;
  g_autoptr (SimCost) c3 = sim_cost_new (gb3, NULL, &o);
  assert_rel (sim_cost_op_s (c3, &op, TOPO_DTYPE_BF16, FALSE), mma, 1e-9);
}

/* GB300's GEMMs at its rated 1,400 W: cuBLAS up to 2,174 of the 2,500 dense BF16 peak
 * (facebookexperimental/triton PR 2023), against GB200's 1,822 at 1,200 W
 * (hardware.md A4 [MAMF]): preset gemm_efficiency 2,174 / 2,500 = 0.870. FP8 keeps
 * GB200's FP8-to-BF16 MAMF ratio, (3,615.6 / 5,000) / (1,822 / 2,500) = 0.99216: 0.8632
 * of the FP8 peak. With the stack's fitted fractions (Blackwell takes Hopper's, the same
 * factor on both parts), GB300 runs the GEMMs 2,174 / 1,822 = 1.1932x GB200, BF16 and
 * FP8 alike: the 1.19x the Megatron-Bridge 25.11 table measures between the two for
 * Llama 3 8B (37,556 against 31,508 tokens/s/GPU, same plan). */
static void
test_gb300_gemm_power (Fixture *f, gconstpointer data)
{
  g_autoptr (TopoCluster) gb2 = cluster_preset ("gb200-nvl72-superpod");
  g_autoptr (TopoCluster) gb3 = cluster_preset ("gb300-nvl72-superpod");
  assert_rel (gb3->device.gemm_efficiency, 0.870, 1e-12);
  g_assert_cmpfloat (gb3->device.peak_flops[TOPO_DTYPE_BF16], ==,
                     gb2->device.peak_flops[TOPO_DTYPE_BF16]);
  SimCostOptions o2, o3;
  sim_cost_options_init_documented (&o3, gb3);
  assert_rel (o3.gemm_fp8_efficiency, 0.870 * (3615.6 / 5000.0) / (1822.0 / 2500.0), 1e-3);
  assert_rel (o3.gemm_fp8_efficiency, 0.8632, 1e-3);
  sim_cost_options_init_stack (&o2, gb2, NULL);
  sim_cost_options_init_stack (&o3, gb3, NULL);
  assert_rel (o3.gemm_efficiency / o2.gemm_efficiency, 1.1932, 1e-3);
  assert_rel (o3.gemm_fp8_efficiency / o2.gemm_fp8_efficiency, 1.1932, 1e-3);
}

/* Unfused attention (scores materialized), GPT-3 175B at tp 8: 12 heads (and 12 KV
 * heads) of 128, one sequence of 2048, attention dropout on. Scores 12 x 2048^2 =
 * 50,331,648; Q = K = V = O = 2048 x 12 x 128 = 3,145,728 elements; bf16 (e = 2).
 * Documented defaults: GEMMs at 989.4e12 x 0.803 = 794.49e12 FLOP/s, memory 3.35e12 x
 * 0.90 = 3.015e12 B/s, 4 us per kernel. */
static void
test_attention_unfused (Fixture *f, gconstpointer data)
{
  g_autoptr (SimCost) c = make_cost (f->h100, NULL, TRUE);
  ModelOp op = { 0 };
  op.name = "attn_core";
  op.kind = MODEL_OP_ATTENTION;
  op.b = 1;
  op.heads = op.kv_heads = 12;
  op.s_q = op.s_kv = 2048;
  op.head_dim = 128;
  op.causal = TRUE;
  op.materialized = TRUE;
  op.dropout = TRUE;
  const double scores = 12.0 * 2048 * 2048, qkv = 2048.0 * 12 * 128;
  /* forward, full (non-causal) QK^T and AV: 4 x scores x 128 = 2.577e10 FLOPs = 32.4 us,
   * below the GEMMs' bytes: Q, K, V, O 4 x 3,145,728 x 2 B + S written and P' read
   * 2 x 2 B x scores = 226,492,416 B = 75.12 us; + 2 launches = 83.12 us.
   * Softmax (read S, write P: 4 B) and dropout (read P, write P' and the mask: 5 B):
   * 9 B x scores = 452,984,832 B = 150.24 us; + 2 launches = 158.24 us. Sum 241.37 us. */
  op.fwd_flops = 4.0 * scores * 128;
  const double fwd = (4 * qkv * 2 + 2 * 2 * scores) / 3.015e12 + 2 * 4e-6
                     + 9 * scores / 3.015e12 + 2 * 4e-6;
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), fwd, 1e-12);
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), 241.37e-6, 1e-3);
  /* backward: four GEMMs, 2 x the forward FLOPs = 5.154e10 = 64.9 us, below their bytes:
   * Q, K, V, O, dO, dQ, dK, dV 8 x 3,145,728 x 2 B + P' read, dP' written, dS read twice
   * 4 x 2 B x scores = 452,984,832 B = 150.24 us; + 4 launches = 166.24 us. Dropout
   * backward (read dP' and the mask, write dP: 5 B) and softmax backward (read P and dP,
   * write dS: 6 B): 11 B x scores = 183.63 us; + 2 launches = 191.63 us. Sum 357.87 us. */
  op.fwd_flops *= 2.0;
  const double bwd = (8 * qkv * 2 + 4 * 2 * scores) / 3.015e12 + 4 * 4e-6
                     + 11 * scores / 3.015e12 + 2 * 4e-6;
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, TRUE), bwd, 1e-12);
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, TRUE), 357.87e-6, 1e-3);
  /* without dropout the forward loses the 5 B pass and its launch: 241.37 - 83.46 - 4 */
  op.fwd_flops /= 2.0;
  op.dropout = FALSE;
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE),
              fwd - 5 * scores / 3.015e12 - 4e-6, 1e-12);
  /* and it costs more than FlashAttention on the same shape: causal 1.289e10 FLOPs at
   * 989.4e12 x 0.60 = 21.7 us + 4 us */
  ModelOp flash = op;
  flash.materialized = FALSE;
  flash.fwd_flops = 2.0 * scores * 128;
  g_assert_cmpfloat (sim_cost_op_s (c, &flash, TOPO_DTYPE_BF16, FALSE), <,
                     sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE) / 5);
}

static void
test_memory_bound (Fixture *f, gconstpointer data)
{
  g_autoptr (SimCost) c = make_cost (f->h100, NULL, TRUE);
  /* residual add over 8192 tokens x 4096: read two, write one, 2 B each = 201,326,592 B;
   * / (3.35e12 x 0.90) = 66.77 us, + 4 us = 70.77 us (its 33.5M FLOPs take 0.5 us at
   * 66.9 TFLOP/s) */
  ModelOp op = elementwise_op ("attn_residual", 8192 * 4096);
  op.fwd_flops = (double) op.elements;
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE),
              8192.0 * 4096 * 3 * 2 / (3.35e12 * 0.90) + 4e-6, 1e-12);
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE), 70.77e-6, 1e-3);
  /* RMSNorm over the same elements: 2 accesses forward, 3 backward */
  op.kind = MODEL_OP_NORM;
  op.name = "attn_norm";
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE),
              8192.0 * 4096 * 2 * 2 / 3.015e12 + 4e-6, 1e-12);
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, TRUE),
              8192.0 * 4096 * 3 * 2 / 3.015e12 + 4e-6, 1e-12);

  /* AdamW over 1e9 parameters: 30 B each / 3.015e12 = 9.950 ms + 4 us = 9.954 ms */
  assert_rel (sim_cost_optimizer_s (c, 1e9), 30e9 / 3.015e12 + 4e-6, 1e-12);
  assert_rel (sim_cost_optimizer_s (c, 1e9), 9.954e-3, 1e-3);
  /* FSDP2's unsharded gradient accumulation over 1e9 gradients, streamed at the same
   * 3.015e12 B/s: the first micro-batch's upcast reads bf16 2 B and writes fp32 4 B = 6e9 B
   * -> 1.990 ms + 4 us; a later one's add reads 4 + 2 B and writes 4 B = 1e10 B -> 3.317 ms
   * + 4 us (no element-wise traffic factor, no eager passes: one kernel per tensor) */
  ModelOp acc = { 0 };
  acc.name = "fsdp_grad_upcast";
  acc.kind = MODEL_OP_ELEMENTWISE;
  acc.elements = 1000000000;
  assert_rel (sim_cost_op_s (c, &acc, TOPO_DTYPE_BF16, TRUE), 6e9 / 3.015e12 + 4e-6, 1e-12);
  acc.name = "fsdp_grad_accum";
  assert_rel (sim_cost_op_s (c, &acc, TOPO_DTYPE_BF16, TRUE), 1e10 / 3.015e12 + 4e-6, 1e-12);
  assert_rel (sim_cost_op_s (c, &acc, TOPO_DTYPE_BF16, TRUE), 3.321e-3, 1e-3);
  /* FSDP2's copies: `elements` are the bytes moved, 1e9 -> 0.3317 ms + 4 us */
  acc.name = "fsdp_copy";
  assert_rel (sim_cost_op_s (c, &acc, TOPO_DTYPE_BF16, FALSE), 1e9 / 3.015e12 + 4e-6, 1e-12);
  /* context_parallel's merges and fp32 gradient sums (cp_merge_ops): `elements` are the
   * bytes as well, one streaming pass, forward and backward alike: 1e9 -> 0.3317 ms + 4 us */
  acc.name = "cp_merge";
  assert_rel (sim_cost_op_s (c, &acc, TOPO_DTYPE_BF16, FALSE), 1e9 / 3.015e12 + 4e-6, 1e-12);
  acc.name = "cp_merge_grad";
  assert_rel (sim_cost_op_s (c, &acc, TOPO_DTYPE_BF16, TRUE), 1e9 / 3.015e12 + 4e-6, 1e-12);
  /* the all-to-all dispatcher's chunk sorts (plan/program-blocks.c "moe_sort_chunks*"):
   * `elements` are the received tokens x h, each read and written once in bf16: 2 x 2 B
   * per element, one streaming pass without the element-wise traffic factor; 8192 x 8
   * copies x h 2048 = 134,217,728 elements -> 536,870,912 B / 3.015e12 B/s = 178.07 us
   * + 4 us = 182.07 us, forward and backward alike; fp32 activations 4 B: twice the bytes */
  ModelOp sort = { 0 };
  sort.name = "moe_sort_chunks";
  sort.kind = MODEL_OP_ELEMENTWISE;
  sort.elements = 8192ull * 8 * 2048;
  assert_rel (sim_cost_op_s (c, &sort, TOPO_DTYPE_BF16, FALSE), 536870912.0 / 3.015e12 + 4e-6,
              1e-12);
  assert_rel (sim_cost_op_s (c, &sort, TOPO_DTYPE_BF16, FALSE), 182.07e-6, 1e-4);
  sort.name = "moe_sort_chunks_restore_grad";
  assert_rel (sim_cost_op_s (c, &sort, TOPO_DTYPE_BF16, TRUE), 536870912.0 / 3.015e12 + 4e-6,
              1e-12);
  assert_rel (sim_cost_op_s (c, &sort, TOPO_DTYPE_FP32, FALSE), 2 * 536870912.0 / 3.015e12
              + 4e-6, 1e-12);
  SimCostOptions o = *sim_cost_options (c);
  o.free_optimizer = TRUE;
  g_autoptr (SimCost) free_opt = sim_cost_new (f->h100, NULL, &o);
  g_assert_cmpfloat (sim_cost_optimizer_s (free_opt, 1e9), ==, 0.0);
  /* a stack's own AdamW bytes (torchtitan's foreach step, 80 B per parameter): 80e9 B /
   * 3.015e12 = 26.53 ms + 4 us */
  o = *sim_cost_options (c);
  o.optimizer_bytes_per_param = 80;
  g_autoptr (SimCost) foreach_opt = sim_cost_new (f->h100, NULL, &o);
  assert_rel (sim_cost_optimizer_s (foreach_opt, 1e9), 80e9 / 3.015e12 + 4e-6, 1e-12);
  assert_rel (sim_cost_optimizer_s (foreach_opt, 1e9), 26.538e-3, 1e-3);
}

static void
test_defaults_a100 (Fixture *f, gconstpointer data)
{
  g_autoptr (TopoCluster) selene = cluster_preset ("selene");
  SimCostOptions o;
  sim_cost_options_init_documented (&o, selene);
  /* A100: MAMF 271.2 / 312 = 0.869 from the preset; FlashAttention-2 0.60 / 0.45 */
  assert_rel (o.gemm_efficiency, 0.869, 1e-12);
  assert_rel (o.attn_fwd_efficiency, 0.60, 1e-12);
  /* no FP8 on A100: an fp8 GEMM runs as bf16, same time */
  g_autoptr (SimCost) c = sim_cost_new (selene, NULL, &o);
  ModelOp op = gemm_op (4096, 4096, 4096);
  g_assert_cmpfloat (sim_cost_op_s (c, &op, TOPO_DTYPE_FP8, FALSE), ==,
                     sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE));
  /* 4096^3 on 108 SMs: 32 x 16 = 512 tiles = 4.74 waves -> 5: 512 / 540; small-k
   * 4096 / 4224: eff = 0.869 x 0.94815 x 0.96970 = 0.79898 */
  assert_rel (sim_cost_gemm_efficiency (c, 4096, 4096, 4096, TOPO_DTYPE_BF16), 0.79898, 1e-4);

  /* Calibrated (sim_cost_options_init): on Hopper compute beside communication kernels
   * runs on the SMs they leave (NCCL's CTAs, sourced on H100: sim/cost.c), and the knob
   * for the rest is 0; Ampere holds no SMs here and keeps the documented 0.10 in both
   * inits; no Ampere knob ends on a bound. */
  SimCostOptions cal;
  sim_cost_options_init (&cal, selene);
  assert_rel (o.comm_compute_slowdown, 0.10, 1e-12);
  assert_rel (cal.comm_compute_slowdown, 0.10, 1e-12);
  g_assert_cmpfloat (cal.nccl_ctas_nvlink, ==, 0);
  g_assert_null (sim_cost_knobs_at_bound (selene));
  g_autoptr (TopoCluster) h100 = cluster_preset ("h100-24k");
  sim_cost_options_init (&cal, h100);
  g_assert_cmpfloat (cal.comm_compute_slowdown, ==, 0.0);
  g_assert_cmpfloat (cal.nccl_ctas_nvlink, ==, 24);
  /* an H20 preset states no SM count: no SMs held, and the Hopper knob's 0 */
  g_autoptr (TopoCluster) h20 = cluster_preset ("hgx-h20-cluster");
  sim_cost_options_init (&cal, h20);
  g_assert_cmpfloat (cal.comm_compute_slowdown, ==, 0.0);
  g_assert_cmpfloat (cal.nccl_ctas_nvlink, ==, 0);
  g_auto (GStrv) at = sim_cost_knobs_at_bound (h100);
  g_assert_nonnull (at);
  /* mem_traffic_factor 3, small_k_half 32 */
  g_assert_cmpuint (g_strv_length (at), ==, 2);
  g_assert_cmpstr (at[1], ==, "small_k_half=32 (bound 32)");
  /* another vendor's library is not NCCL: no CTAs, the documented 0.10 (U) stays */
  g_autoptr (TopoCluster) mi300 = cluster_preset ("mi300x-cluster");
  sim_cost_options_init (&cal, mi300);
  g_assert_cmpfloat (cal.nccl_ctas_nvlink, ==, 0);
  assert_rel (cal.comm_compute_slowdown, 0.10, 1e-12);
}

/* ---- monotonic sanity ---------------------------------------------------------------- */

static void
test_monotonic_bytes (Fixture *f, gconstpointer data)
{
  g_autoptr (PlanLayout) layout = make_layout (f->h100, 2, 128, 1, NULL);
  g_autoptr (SimCost) c = make_cost (f->h100, layout, TRUE);
  /* more bytes never cost less, for every collective, axis and p2p, 0 B to 16 GiB */
  for (int k = 0; k < PLAN_COLL_N; k++)
    for (int a = 0; a < PLAN_AXIS_N_GROUPS; a++)
      {
        double prev = 0;
        for (double b = 0; b <= 16 * GIB; b = b > 0 ? b * 2 : 1)
          {
            double t = sim_cost_coll_s (c, k, a, b);
            g_assert_cmpfloat (t, >=, prev);
            prev = t;
          }
      }
  double prev = 0;
  for (double b = 0; b <= 16 * GIB; b = b > 0 ? b * 2 : 1)
    {
      double t = sim_cost_p2p_s (c, 0, 3072, b);
      g_assert_cmpfloat (t, >=, prev);
      prev = t;
    }
}

static void
test_monotonic_group (Fixture *f, gconstpointer data)
{
  /* larger groups never faster per byte: DP over 2..128 ranks with 1 (tp 8) or 8 (tp 1)
   * members per server, NVLS on and off, at 1 B, 1 MiB and 1 GiB */
  const double sizes[] = { 1, 1048576, GIB };
  for (int tp = 1; tp <= 8; tp *= 8)
    for (int nvls = 0; nvls <= 1; nvls++)
      for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
        for (int k = 0; k < PLAN_COLL_SEND_RECV; k++)
          {
            double prev = 0;
            for (int dp = 2; dp <= 128; dp *= 2)
              {
                g_autoptr (PlanLayout) layout = make_layout (f->h100, tp, dp, 1, NULL);
                g_autoptr (SimCost) c = make_cost (f->h100, layout, nvls);
                double t = sim_cost_coll_s (c, k, PLAN_AXIS_DP, sizes[s]);
                if (t < prev)
                  g_error ("%s tp %d dp %d nvls %d size %g: %g s < %g s",
                           plan_coll_name (k), tp, dp, nvls, sizes[s], t, prev);
                prev = t;
              }
          }
}

/* NVFP4 on a DGX B200 (dgx-b200-superpod: 4,500 FP8 and 9,000 FP4 dense TFLOP/s): an FP4
 * GEMM runs at 1.810x the FP8 GEMM rate (TE's GEMM profiling guide, B300 kernels alone:
 * 6.812 / 3.764 ms per layer), i.e. at FP8's fraction of its own peak times
 * 1.810 x 4,500 / 9,000 = 0.905, with the same shape factors, so a large compute-bound
 * GEMM's compute term is 1.810x shorter than in FP8 (8192^3: 2 x 8192^3 /
 * (9e15 x 0.905 x eff) ~ 0.2 ms against operand traffic of (2 x 0.5625 + 2) x 8192^2 B /
 * 7.2e12 B/s ~ 0.03 ms); on GB300 (5,000 / 15,000) the same 1.810x; the attention core
 * stays bf16, as NVFP4 recipes keep it, and so do the output layer ("logits") and the
 * MoE router in FP4 plans (Megatron's output layer is no TE module; TE's autocast never
 * reaches it): their time in FP4 is bf16's (in FP8 the stack says, fp8.output_layer:
 * the documented set of options used here has no stack and keeps them at the FP8 rate,
 * faster than bf16; tests/frameworks/test-compile.c checks megatron-core's bf16). */
static void
test_gemm_fp4 (Fixture *f, gconstpointer data)
{
  g_autoptr (TopoCluster) b200 = cluster_preset ("dgx-b200-superpod");
  g_assert_cmpfloat (b200->device.peak_flops[TOPO_DTYPE_FP4], ==,
                     2 * b200->device.peak_flops[TOPO_DTYPE_FP8]);
  g_autoptr (SimCost) c = make_cost (b200, NULL, TRUE);
  SimCostOptions o;
  sim_cost_options_init_documented (&o, b200);
  const double launch = o.launch_overhead_s;
  g_assert_cmpfloat (o.fp8_cast_passes, ==, 0);   /* no cast term in the documented set */
  assert_rel (sim_cost_gemm_efficiency (c, 8192, 8192, 8192, TOPO_DTYPE_FP4),
              0.905 * sim_cost_gemm_efficiency (c, 8192, 8192, 8192, TOPO_DTYPE_FP8), 1e-3);
  ModelOp op = gemm_op (8192, 8192, 8192);
  const double t8 = sim_cost_op_s (c, &op, TOPO_DTYPE_FP8, FALSE) - launch;
  const double t4 = sim_cost_op_s (c, &op, TOPO_DTYPE_FP4, FALSE) - launch;
  assert_rel (t8 / t4, 6.812 / 3.764, 1e-9);
  g_autoptr (TopoCluster) gb3 = cluster_preset ("gb300-nvl72-superpod");
  g_autoptr (SimCost) c3 = make_cost (gb3, NULL, TRUE);
  assert_rel ((sim_cost_op_s (c3, &op, TOPO_DTYPE_FP8, FALSE) - launch)
              / (sim_cost_op_s (c3, &op, TOPO_DTYPE_FP4, FALSE) - launch), 6.812 / 3.764, 1e-9);
  const char *const bf16_gemms[] = { "logits", "logits_dgrad", "logits_wgrad", "router",
                                      "router_dgrad", "router_wgrad" };
  for (guint i = 0; i < G_N_ELEMENTS (bf16_gemms); i++)
    {
      ModelOp head = gemm_op (8192, 128256, 4096);
      head.name = bf16_gemms[i];
      const double tb = sim_cost_op_s (c, &head, TOPO_DTYPE_BF16, FALSE);
      assert_rel (sim_cost_op_s (c, &head, TOPO_DTYPE_FP4, FALSE), tb, 1e-12);
      g_assert_cmpfloat (sim_cost_op_s (c, &head, TOPO_DTYPE_FP8, FALSE), <, tb);
    }
  ModelOp att = { 0 };
  att.name = "attn_core";
  att.kind = MODEL_OP_ATTENTION;
  att.b = 1;
  att.heads = att.kv_heads = 32;
  att.s_q = att.s_kv = 4096;
  att.head_dim = 128;
  att.causal = TRUE;
  att.fwd_flops = 4.0 * 4096.0 * 4096.0 * 32 * 128 / 2;
  assert_rel (sim_cost_op_s (c, &att, TOPO_DTYPE_FP4, FALSE),
              sim_cost_op_s (c, &att, TOPO_DTYPE_BF16, FALSE), 1e-12);
}

/* FP8 recipes as Transformer Engine runs them (sim_cost_fp8_quant_bytes): HBM bytes per
 * element of one bf16 -> FP8 quantization. Delayed: read 2 + FP8 write 1, plus a
 * transposed FP8 copy (1) where FP8 GEMMs take only TN (H100): 4 on H100, 3 on GB200
 * (fp8_any_layout); current (tensorwise): 2 more for the amax read: 6 / 5; MXFP8: read 2
 * + rowwise and columnwise copies of 1 + 1/32 each: 4.0625 on both; blockwise (1x128
 * blocks, an FP32 scale each): read 2 + two copies of 1 + 4/128: 4.0625 on both (MXFP8
 * emulation on Blackwell moves the same); rowwise (torchao): two quantizations along
 * different axes, each amax read 2 + read 2 + write 1: 10 on both.
 * A plan recipe other than the stack's rescales the stack's cast figures by the ratio
 * (nemo: delayed, 1 pass): tensorwise on GB200 5 / 3, MXFP8 4.0625 / 3 = 1.3541667,
 * tensorwise on H100 6 / 4 = 1.5, blockwise on H100 4.0625 / 4 = 1.015625, rowwise on
 * H100 10 / 4 = 2.5; the stack's own recipe changes nothing.
 * MXFP8 GEMMs run at gb200-nvl72's mxfp8_gemm_ratio 0.951 of the per-tensor FP8 rate:
 * an 8192^3 FP8 GEMM is compute-bound (2 x 8192^3 / (5e15 x 0.723) ~ 0.30 ms against
 * (1 + 1 + 2) x 8192^2 B / 7.2e12 B/s ~ 0.04 ms of operands), so without casts
 * (documented set: 0 passes) its time less the launch is 1 / 0.951 of tensorwise's. */
static void
test_fp8_recipes (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (TopoCluster) gb = cluster_preset ("gb200-nvl72");
  g_assert_true (gb->device.fp8_any_layout && gb->device.mxfp8);
  g_assert_false (f->h100->device.fp8_any_layout || f->h100->device.mxfp8);
  g_assert_cmpfloat (sim_cost_fp8_quant_bytes (FW_SCALING_DELAYED, FALSE), ==, 4.0);
  g_assert_cmpfloat (sim_cost_fp8_quant_bytes (FW_SCALING_DELAYED, TRUE), ==, 3.0);
  g_assert_cmpfloat (sim_cost_fp8_quant_bytes (FW_SCALING_CURRENT, FALSE), ==, 6.0);
  g_assert_cmpfloat (sim_cost_fp8_quant_bytes (FW_SCALING_CURRENT, TRUE), ==, 5.0);
  g_assert_cmpfloat (sim_cost_fp8_quant_bytes (FW_SCALING_BLOCK, TRUE), ==, 4.0625);
  g_assert_cmpfloat (sim_cost_fp8_quant_bytes (FW_SCALING_BLOCK, FALSE), ==, 4.0625);
  g_assert_cmpfloat (sim_cost_fp8_quant_bytes (FW_SCALING_BLOCKWISE, FALSE), ==, 4.0625);
  g_assert_cmpfloat (sim_cost_fp8_quant_bytes (FW_SCALING_BLOCKWISE, TRUE), ==, 4.0625);
  g_assert_cmpfloat (sim_cost_fp8_quant_bytes (FW_SCALING_ROWWISE, FALSE), ==, 10.0);
  g_assert_cmpfloat (sim_cost_fp8_quant_bytes (FW_SCALING_ROWWISE, TRUE), ==, 10.0);

  g_autoptr (FwStack) nemo = fw_stack_load_preset ("nemo", &error);
  g_assert_no_error (error);
  Plan plan;
  plan_init_defaults (&plan);
  plan.compute_dtype = PLAN_PREC_FP8;
  const struct { TopoCluster *cl; int recipe; double passes; } cases[] = {
    { gb, FW_SCALING_CURRENT, 5.0 / 3.0 },
    { gb, FW_SCALING_BLOCK, 4.0625 / 3.0 },
    { gb, FW_SCALING_DELAYED, 1.0 },
    { gb, -1, 1.0 },
    { f->h100, FW_SCALING_CURRENT, 1.5 },
    { f->h100, FW_SCALING_BLOCKWISE, 1.015625 },
    { f->h100, FW_SCALING_ROWWISE, 2.5 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      SimCostOptions o;
      sim_cost_options_init_stack (&o, cases[i].cl, nemo);
      g_assert_cmpfloat (o.fp8_cast_passes, ==, 1.0);
      g_assert_cmpint (o.fp8_scaling, ==, FW_SCALING_DELAYED);
      plan.fp8_recipe = cases[i].recipe;
      sim_cost_options_apply_plan (&o, &plan);
      assert_rel (o.fp8_cast_passes, cases[i].passes, 1e-12);
      assert_rel (o.fp8_cast_passes_compiled, cases[i].passes, 1e-12);
      g_assert_cmpint (o.fp8_scaling, ==, cases[i].recipe >= 0 ? cases[i].recipe
                                                               : FW_SCALING_DELAYED);
    }
  plan_clear (&plan);

  SimCostOptions ts, mx;
  sim_cost_options_init_documented (&ts, gb);
  g_assert_cmpfloat (ts.fp8_cast_passes, ==, 0);
  ts.fp8_scaling = FW_SCALING_CURRENT;
  mx = ts;
  mx.fp8_scaling = FW_SCALING_BLOCK;
  g_autoptr (SimCost) cts = sim_cost_new (gb, NULL, &ts);
  g_autoptr (SimCost) cmx = sim_cost_new (gb, NULL, &mx);
  ModelOp op = gemm_op (8192, 8192, 8192);
  const double t_ts = sim_cost_op_s (cts, &op, TOPO_DTYPE_FP8, FALSE) - ts.launch_overhead_s;
  const double t_mx = sim_cost_op_s (cmx, &op, TOPO_DTYPE_FP8, FALSE) - ts.launch_overhead_s;
  assert_rel (t_mx, t_ts / 0.951, 1e-9);
  assert_rel (sim_cost_gemm_efficiency (cmx, 8192, 8192, 8192, TOPO_DTYPE_FP8),
              0.951 * sim_cost_gemm_efficiency (cts, 8192, 8192, 8192, TOPO_DTYPE_FP8), 1e-12);
  /* blockwise on Blackwell is TE's MXFP8 emulation: the MXFP8 rate, 0.951 */
  SimCostOptions bw = ts;
  bw.fp8_scaling = FW_SCALING_BLOCKWISE;
  g_autoptr (SimCost) cbw = sim_cost_new (gb, NULL, &bw);
  assert_rel (sim_cost_op_s (cbw, &op, TOPO_DTYPE_FP8, FALSE) - ts.launch_overhead_s,
              t_ts / 0.951, 1e-9);
}

/* NVFP4's quantization (sim_cost_nvfp4_quant_bytes): TE's B300 guide, 2.689 ms per layer
 * of NVFP4 quantization against tensorwise's 2.335 ms for 5 B: 2.689 / (2.335 / 5) =
 * 5.758 B-equivalent per element (5.125 B moved: amax read 2, read 2, rowwise and
 * Hadamard-transformed columnwise copies of 0.5 + 1/16 each). A plan in NVFP4 rescales
 * the stack's cast passes (nemo: delayed, 1 pass of 3 B on B200) to 5.758 / 3 = 1.9193;
 * each pass counts 3 B of the GEMM's input, so an 8192 x 8192 input costs
 * 5.758 x 8192^2 B of HBM time more than with no cast. */
static void
test_nvfp4_quantization (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  assert_rel (sim_cost_nvfp4_quant_bytes (), 5.758, 1e-3);
  g_autoptr (TopoCluster) b200 = cluster_preset ("dgx-b200-superpod");
  g_autoptr (FwStack) nemo = fw_stack_load_preset ("nemo", &error);
  g_assert_no_error (error);
  Plan plan;
  plan_init_defaults (&plan);
  plan.compute_dtype = PLAN_PREC_FP4;
  SimCostOptions o;
  sim_cost_options_init_stack (&o, b200, nemo);
  sim_cost_options_apply_plan (&o, &plan);
  plan_clear (&plan);
  assert_rel (o.fp8_cast_passes, 2.689 / (2.335 / 5.0) / 3.0, 1e-12);
  assert_rel (o.fp8_cast_passes_compiled, 2.689 / (2.335 / 5.0) / 3.0, 1e-12);
  SimCostOptions none = o;
  none.fp8_cast_passes = 0;
  g_autoptr (SimCost) cq = sim_cost_new (b200, NULL, &o);
  g_autoptr (SimCost) cn = sim_cost_new (b200, NULL, &none);
  ModelOp op = gemm_op (8192, 8192, 8192);
  assert_rel (sim_cost_op_s (cq, &op, TOPO_DTYPE_FP4, FALSE)
              - sim_cost_op_s (cn, &op, TOPO_DTYPE_FP4, FALSE),
              sim_cost_hbm_s (cq, 2.689 / (2.335 / 5.0) * 8192.0 * 8192.0), 1e-9);
}

/* The FP8 recipes' GEMM rates on H100 (sim/cost-compute.c): blockwise runs Hopper's
 * block-scaled GEMM at 0.818 of the per-tensor rate (TE GEMM Profiling Tutorial, H200:
 * (20.285 - 16.785) x 4.0625 / 6 = 2.370 ms of quantization, 16.785 / (22.882 - 2.370)
 * = 0.818), rowwise torchao's at 0.80 (derived from torchao's and torchtitan's
 * end-to-end pairs). An 8192^3 FP8 GEMM on H100 is compute-bound (2 x 8192^3 /
 * (1,979e12 x 0.709) ~ 0.78 ms against 4 x 8192^2 B / 3.35e12 B/s ~ 0.08 ms), so with
 * no casts (documented set) its time less the launch is tensorwise's / 0.818 and / 0.80;
 * delayed scaling shares tensorwise's kernel (ratio 1). */
static void
test_fp8_recipe_gemm_rates (Fixture *f, gconstpointer data)
{
  SimCostOptions ts;
  sim_cost_options_init_documented (&ts, f->h100);
  g_assert_cmpfloat (ts.fp8_cast_passes, ==, 0);
  ts.fp8_scaling = FW_SCALING_CURRENT;
  const struct { int recipe; double ratio; } cases[] = {
    { FW_SCALING_BLOCKWISE, 0.818 }, { FW_SCALING_ROWWISE, 0.80 }, { FW_SCALING_DELAYED, 1.0 },
  };
  g_autoptr (SimCost) cts = sim_cost_new (f->h100, NULL, &ts);
  ModelOp op = gemm_op (8192, 8192, 8192);
  const double t_ts = sim_cost_op_s (cts, &op, TOPO_DTYPE_FP8, FALSE) - ts.launch_overhead_s;
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      SimCostOptions o = ts;
      o.fp8_scaling = cases[i].recipe;
      g_autoptr (SimCost) c = sim_cost_new (f->h100, NULL, &o);
      assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_FP8, FALSE) - ts.launch_overhead_s,
                  t_ts / cases[i].ratio, 1e-9);
    }
}

/* Current scaling's amax taken in the norm kernel (fp8_norm_amax_fused, TE PR #2013):
 * a norm-fed GEMM's input cast skips the amax read. On H100 (TN-only FP8 GEMMs) a
 * current-scaling quantization moves 6 B per element (amax read 2 + read 2 + FP8 write
 * 1 + transposed write 1), of which the amax read is 2 / 6; nemo's 1 delayed pass at the
 * tensorwise recipe is 6 / 4 = 1.5 passes of the cast term's 3 B (sim_cost_fp8_quant_bytes
 * ratios, test_fp8_recipes). The QKV GEMM of Llama 3 8B over 8192 tokens, A = 8192 x 4096
 * = 33,554,432 elements: without the fusion 1.5 x 3 x 33,554,432 = 150,994,944 B; with
 * it (6 - 2) / 6 of that, 100,663,296 B: 1.5 x 33,554,432 = 50,331,648 B less, at the
 * documented 0.90 x 3.35 TB/s = 3.015e12 B/s ~ 16.69 us (sim_cost_hbm_s of those bytes).
 * The MLP's up projection (8192 x 28672 x 4096, the same A) saves the same; the down
 * projection (its input the SwiGLU output, Megatron-Core's own kernel), the backward
 * GEMMs, delayed scaling and a stack without the fusion save nothing. nemo and
 * megatron-core set it (TE), torchtitan (torchao) does not. */
static void
test_fp8_norm_amax (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  SimCostOptions off;
  sim_cost_options_init_documented (&off, f->h100);
  off.fp8_cast_passes = 1.5;
  off.fp8_cast_per_operand = TRUE;
  off.fp8_scaling = FW_SCALING_CURRENT;
  off.fp8_norm_amax_fused = FALSE;
  SimCostOptions on = off;
  on.fp8_norm_amax_fused = TRUE;
  SimCostOptions delayed = on;
  delayed.fp8_scaling = FW_SCALING_DELAYED;
  delayed.fp8_cast_passes = 1.0;
  SimCostOptions delayed_off = delayed;
  delayed_off.fp8_norm_amax_fused = FALSE;
  g_autoptr (SimCost) c_off = sim_cost_new (f->h100, NULL, &off);
  g_autoptr (SimCost) c_on = sim_cost_new (f->h100, NULL, &on);
  g_autoptr (SimCost) c_d = sim_cost_new (f->h100, NULL, &delayed);
  g_autoptr (SimCost) c_doff = sim_cost_new (f->h100, NULL, &delayed_off);
  const double saved = sim_cost_hbm_s (c_on, 1.5 * 8192 * 4096);
  assert_rel (saved, 16.69e-6, 1e-3);
  const struct { const char *name; guint64 m, n, k; gboolean fused; } cases[] = {
    { "qkv", 8192, 6144, 4096, TRUE },
    { "mlp_up", 8192, 28672, 4096, TRUE },
    { "mlp_down", 8192, 4096, 14336, FALSE },
    { "attn_out", 8192, 4096, 4096, FALSE },
    { "qkv_dgrad", 8192, 4096, 6144, FALSE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      ModelOp op = named_gemm_op (cases[i].name, cases[i].m, cases[i].n, cases[i].k, 0);
      const double t_off = sim_cost_op_s (c_off, &op, TOPO_DTYPE_FP8, FALSE);
      const double t_on = sim_cost_op_s (c_on, &op, TOPO_DTYPE_FP8, FALSE);
      if (cases[i].fused)
        assert_rel (t_off - t_on, saved, 1e-9);
      else
        g_assert_cmpfloat (t_on, ==, t_off);
      g_assert_cmpfloat (sim_cost_op_s (c_d, &op, TOPO_DTYPE_FP8, FALSE), ==,
                         sim_cost_op_s (c_doff, &op, TOPO_DTYPE_FP8, FALSE));
    }
  const char *const te[] = { "nemo", "megatron-core" };
  for (guint i = 0; i < G_N_ELEMENTS (te); i++)
    {
      g_autoptr (FwStack) fw = fw_stack_load_preset (te[i], &error);
      g_assert_no_error (error);
      g_assert_true (fw->fp8_norm_amax_fused);
    }
  g_autoptr (FwStack) tt = fw_stack_load_preset ("torchtitan", &error);
  g_assert_no_error (error);
  g_assert_false (tt->fp8_norm_amax_fused);
}

/* A device known by its "part" (topology/cluster-load.c) is the part to the cost model:
 * dgx-h100-superpod with its device renamed "our-gpu" matches no row of sim/cost.c's
 * device table (no FP8 ceiling of its own, no architecture: no fitted knob, extrapolated),
 * and with "part": "H100" it takes the H100 row again, every knob as the preset's. And
 * every part the loader accepts is one the cost model knows. */
static void
test_device_part (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (TopoCluster) h100 = cluster_preset ("dgx-h100-superpod");
  g_assert_nonnull (strstr (h100->json, "\"name\": \"H100-SXM5-80GB\""));
  g_autoptr (GString) renamed = g_string_new (h100->json);
  g_string_replace (renamed, "\"name\": \"H100-SXM5-80GB\"", "\"name\": \"our-gpu\"", 1);
  g_autoptr (GString) parted = g_string_new (h100->json);
  g_string_replace (parted, "\"name\": \"H100-SXM5-80GB\"",
                    "\"name\": \"our-gpu\", \"part\": \"H100\"", 1);
  g_autoptr (TopoCluster) r = topo_cluster_new_from_data (renamed->str, -1, "r.json", &error);
  g_assert_no_error (error);
  g_autoptr (TopoCluster) p = topo_cluster_new_from_data (parted->str, -1, "p.json", &error);
  g_assert_no_error (error);

  g_assert_true (sim_cost_device_known (h100));
  g_assert_false (sim_cost_device_known (r));
  g_assert_true (sim_cost_device_known (p));

  SimCostOptions oh, or_, op;
  sim_cost_options_init (&oh, h100);
  sim_cost_options_init (&or_, r);
  sim_cost_options_init (&op, p);
  g_assert_false (oh.extrapolated);
  g_assert_true (or_.extrapolated);
  /* the renamed device lost Hopper's fitted GEMM fraction (0.7847 / 0.803 of MAMF) */
  g_assert_cmpfloat (or_.gemm_efficiency, !=, oh.gemm_efficiency);
  g_assert_false (op.extrapolated);
  g_assert_cmpfloat (op.gemm_efficiency, ==, oh.gemm_efficiency);
  g_assert_cmpfloat (op.gemm_fp8_efficiency, ==, oh.gemm_fp8_efficiency);
  g_assert_cmpfloat (op.mem_traffic_factor, ==, oh.mem_traffic_factor);
  g_assert_cmpfloat (op.small_k_half, ==, oh.small_k_half);

  for (const char *const *k = topo_known_parts (); *k != NULL; k++)
    g_assert_true (sim_cost_part_known (*k));
  g_assert_false (sim_cost_part_known ("our-gpu"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#define ADD(path, fn) g_test_add (path, Fixture, NULL, setup, fn, teardown)
  ADD ("/sim/cost/allreduce-server", test_allreduce_server);
  ADD ("/sim/cost/device-part", test_device_part);
  ADD ("/sim/cost/comm-sms", test_comm_sms);
  ADD ("/sim/cost/gather-scatter-a2a-server", test_gather_scatter_a2a_server);
  ADD ("/sim/cost/dp-one-per-server", test_dp_one_per_server);
  ADD ("/sim/cost/dp-rails", test_dp_rails);
  ADD ("/sim/cost/pat", test_pat);
  ADD ("/sim/cost/pat-stacks", test_pat_stacks);
  ADD ("/sim/cost/ring-latency-selene", test_ring_latency_selene);
  ADD ("/sim/cost/nvlink-domain-trays", test_nvlink_domain_trays);
  ADD ("/sim/cost/a2a-one-plane", test_a2a_one_plane);
  ADD ("/sim/cost/gh200-node", test_gh200_node);
  ADD ("/sim/cost/dp-across-pods", test_dp_across_pods);
  ADD ("/sim/cost/p2p", test_p2p);
  ADD ("/sim/cost/free-comm", test_free_comm);
  ADD ("/sim/cost/gemm-large", test_gemm_large);
  ADD ("/sim/cost/gemm-fp4", test_gemm_fp4);
  ADD ("/sim/cost/power-cap-clock", test_power_cap_clock);
  ADD ("/sim/cost/sustained-scale", test_sustained_scale);
  ADD ("/sim/cost/expected-max-normal", test_expected_max_normal);
  ADD ("/sim/cost/stragglers", test_stragglers);
  ADD ("/sim/cost/fp8-recipes", test_fp8_recipes);
  ADD ("/sim/cost/fp8-recipe-gemm-rates", test_fp8_recipe_gemm_rates);
  ADD ("/sim/cost/fp8-norm-amax", test_fp8_norm_amax);
  ADD ("/sim/cost/nvfp4-quantization", test_nvfp4_quantization);
  ADD ("/sim/cost/gemm-skinny", test_gemm_skinny);
  ADD ("/sim/cost/gemm-tile-choice", test_gemm_tile_choice);
  ADD ("/sim/cost/loss-bytes", test_loss_bytes);
  ADD ("/sim/cost/attention", test_attention);
  ADD ("/sim/cost/gdn", test_gdn);
  ADD ("/sim/cost/attention-unfused", test_attention_unfused);
  ADD ("/sim/cost/attention-exp", test_attention_exp);
  ADD ("/sim/cost/attention-exp-serial", test_attention_exp_serial);
  ADD ("/sim/cost/gb300-gemm-power", test_gb300_gemm_power);
  ADD ("/sim/cost/attention-ring", test_attention_ring);
  ADD ("/sim/cost/attention-ring-backward", test_attention_ring_backward);
  ADD ("/sim/cost/attention-length", test_attention_length);
  ADD ("/sim/cost/attention-head-dim", test_attention_head_dim);
  ADD ("/sim/cost/attention-window", test_attention_window);
  ADD ("/sim/cost/attention-window-allgather", test_attention_window_allgather);
  ADD ("/sim/cost/expert-bias", test_expert_bias);
  ADD ("/sim/cost/expert-act-clamped", test_expert_act_clamped);
  ADD ("/sim/cost/rotary-unfused", test_rotary_unfused);
  ADD ("/sim/cost/loss-te", test_loss_te);
  ADD ("/sim/cost/memory-bound", test_memory_bound);
  ADD ("/sim/cost/defaults-a100", test_defaults_a100);
  ADD ("/sim/cost/monotonic-bytes", test_monotonic_bytes);
  ADD ("/sim/cost/monotonic-group", test_monotonic_group);
#undef ADD
  return g_test_run ();
}
