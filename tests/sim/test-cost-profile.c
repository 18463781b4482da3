/* tests/sim/test-cost-profile.c - the cost model with a hardware profile (measured tables
 * in the cluster JSON, topology/profile.c; sim/cost.h "Hardware profile"), and the
 * profile's loading and round trip.
 *
 * The test cluster (CLUSTER below): 4 devices on one level "host" (bw 10 GB/s, no busbw,
 * no latency), peak 0.1 TFLOP/s FP32 and 0.2 BF16, 16 GB at 20 GB/s, launch 2 us. Its
 * profile: FP32 GEMMs 256^3 at 5e10, 1024^3 at 8e10, 4096^3 at 9e10 FLOP/s; triad 10 GB/s;
 * all-reduce on 2 ranks 1 KiB 10 us, 1 MiB 200 us, 64 MiB 10 ms; on 4 ranks 1 KiB 15 us,
 * 1 MiB 300 us; sendrecv on 2 ranks 1 KiB 5 us, 1 MiB 100 us. No reduce-scatter rows. */
#include "sim/cost.h"
#include "cost-ops.h"
#include "../assert-rel.h"

#include <math.h>
#include <string.h>

#define MIB 1048576.0

#define CLUSTER_HEAD                                                                       \
  "{ \"name\": \"test-cpu\",\n"                                                            \
  "  \"device\": { \"name\": \"test-cpu\", \"peak_tflops\": { \"fp32\": 0.1, \"bf16\": 0.2 },\n" \
  "              \"hbm_GB\": 16, \"hbm_GBps\": 20, \"launch_overhead_us\": 2 },\n"         \
  "  \"levels\": [ { \"name\": \"host\", \"count\": 4, \"bw_GBps\": 10 } ]"

static const char cluster_json[] =
  CLUSTER_HEAD ",\n"
  "  \"profile\": {\n"
  "    \"source\": \"hand-written test tables\", \"backend\": \"cpu\", \"ranks\": 4,\n"
  "    \"_gemm\": \"m, n, k, dtype, FLOP/s\",\n"
  "    \"gemm\": [ [256, 256, 256, \"fp32\", 5e10], [1024, 1024, 1024, \"fp32\", 8e10],\n"
  "              [4096, 4096, 4096, \"fp32\", 9e10] ],\n"
  "    \"memory\": { \"copy_GBps\": 12, \"triad_GBps\": 10 },\n"
  "    \"collectives\": [\n"
  "      [\"all_reduce\", 2, 1048576, 200, 5.24, 5.24], [\"all_reduce\", 2, 1024, 10, 0.1, 0.1],\n"
  "      [\"all_reduce\", 2, 67108864, 10000, 6.71, 6.71],\n"
  "      [\"all_reduce\", 4, 1024, 15, 0.07, 0.1], [\"all_reduce\", 4, 1048576, 300, 3.5, 5.24],\n"
  "      [\"sendrecv\", 2, 1024, 5, 0.2, 0.2], [\"sendrecv\", 2, 1048576, 100, 10.49, 10.49] ]\n"
  "  }\n"
  "}\n";

static const char plain_json[] = CLUSTER_HEAD "\n}\n";

/* The same cluster with measured compute kernels (topology/presets/README.md): attention
 * rows (FP32, program FLOP counting) b 1, 8 heads / 4 KV, 256 tokens, head_dim 32, causal
 * at 2e9 forward and 4e9 backward FLOP/s; 8/4 heads, 1024 tokens, head_dim 64, causal at
 * 3e9 / 5e9; 8/8 heads, 256, 32 non-causal at 2.5e9 / 4.5e9. Kernels (GB/s): norm 4 at
 * 65536 elements and 8 at 1048576 (written in descending order), norm_grad 6,
 * rotary_grad 2, swiglu_grad 5, residual 100, loss 2 at 65536; adamw 6 at 1048576. */
static const char compute_json[] =
  CLUSTER_HEAD ",\n"
  "  \"profile\": {\n"
  "    \"source\": \"hand-written compute tables\",\n"
  "    \"memory\": { \"triad_GBps\": 10 },\n"
  "    \"attention\": [ [1, 8, 4, 256, 256, 32, true, \"fp32\", 2e9, 4e9],\n"
  "                     [1, 8, 4, 1024, 1024, 64, true, \"fp32\", 3e9, 5e9],\n"
  "                     [1, 8, 8, 256, 256, 32, false, \"fp32\", 2.5e9, 4.5e9] ],\n"
  "    \"kernels\": { \"norm\": [ [1048576, 8], [65536, 4] ], \"norm_grad\": [ [65536, 6] ],\n"
  "                   \"rotary_grad\": [ [65536, 2] ], \"swiglu_grad\": [ [65536, 5] ],\n"
  "                   \"residual\": [ [65536, 100] ], \"loss\": [ [65536, 2] ],\n"
  "                   \"adamw\": [ [1048576, 6] ], \"_note\": \"a comment\" }\n"
  "  }\n"
  "}\n";

/* For unfused attention: one FP32 GEMM row (256^3 at 5e10 FLOP/s), triad 10 GB/s, the
 * cross-entropy kernel at 2 GB/s and its backward at 3 GB/s. */
static const char unfused_json[] =
  CLUSTER_HEAD ",\n"
  "  \"profile\": {\n"
  "    \"source\": \"hand-written unfused tables\",\n"
  "    \"gemm\": [ [256, 256, 256, \"fp32\", 5e10] ],\n"
  "    \"memory\": { \"triad_GBps\": 10 },\n"
  "    \"kernels\": { \"loss\": [ [65536, 2] ], \"loss_grad\": [ [65536, 3] ] }\n"
  "  }\n"
  "}\n";

static TopoCluster *
load (const char *text)
{
  g_autoptr (GError) error = NULL;
  TopoCluster *c = topo_cluster_new_from_data (text, -1, "test-cpu.json", &error);
  g_assert_no_error (error);
  return c;
}

static PlanLayout *
tp_layout (const TopoCluster *cluster, int tp)
{
  g_autoptr (GError) error = NULL;
  Plan plan;
  plan_init_defaults (&plan);
  plan.tp = tp;
  plan.dp = 1;
  plan.world_size = tp;
  PlanLayout *layout = plan_layout_new (&plan, cluster, &error);
  g_assert_no_error (error);
  plan_clear (&plan);
  return layout;
}

/* ---- loading ------------------------------------------------------------------------- */

static void
test_load (void)
{
  g_autoptr (TopoCluster) c = load (cluster_json);
  const TopoProfile *p = c->profile;
  g_assert_nonnull (p);
  g_assert_cmpstr (p->source, ==, "hand-written test tables");
  g_assert_cmpstr (p->backend, ==, "cpu");
  g_assert_null (p->host);
  g_assert_cmpuint (p->ranks, ==, 4);
  g_assert_cmpuint (p->gemm->len, ==, 3);
  const TopoProfileGemm *g = &g_array_index (p->gemm, TopoProfileGemm, 1);
  g_assert_cmpuint (g->m, ==, 1024);
  g_assert_cmpint (g->dtype, ==, TOPO_DTYPE_FP32);
  g_assert_cmpfloat (g->flops_per_s, ==, 8e10);
  /* GB/s and us in the file, SI here: 10 GB/s = 1e10 B/s, 200 us = 2e-4 s */
  g_assert_cmpfloat (p->triad_Bps, ==, 10e9);
  g_assert_cmpfloat (p->copy_Bps, ==, 12e9);
  g_assert_cmpuint (p->colls->len, ==, 7);
  const TopoProfileColl *r = &g_array_index (p->colls, TopoProfileColl, 0);
  g_assert_cmpstr (r->coll, ==, "all_reduce");
  g_assert_cmpuint (r->ranks, ==, 2);
  g_assert_cmpfloat (r->bytes, ==, 1048576);
  assert_rel (r->time_s, 200e-6, 1e-15);
  assert_rel (r->busbw_Bps, 5.24e9, 1e-15);
  /* a cluster without the key has no profile */
  g_autoptr (TopoCluster) plain = load (plain_json);
  g_assert_null (plain->profile);
}

/* The JSON writer and the loader agree: write, load, compare. */
static void
test_round_trip (void)
{
  g_autoptr (TopoCluster) c = load (cluster_json);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = topo_cluster_json_set_profile (plain_json, c->profile, &error);
  g_assert_no_error (error);
  /* table rows are written one per line */
  g_assert_nonnull (strstr (text, "[ 1024, 1024, 1024, \"fp32\", "));
  g_autoptr (TopoCluster) back = load (text);
  const TopoProfile *a = c->profile, *b = back->profile;
  g_assert_cmpstr (a->source, ==, b->source);
  g_assert_cmpuint (a->ranks, ==, b->ranks);
  g_assert_cmpuint (a->gemm->len, ==, b->gemm->len);
  for (guint i = 0; i < a->gemm->len; i++)
    {
      const TopoProfileGemm *x = &g_array_index (a->gemm, TopoProfileGemm, i);
      const TopoProfileGemm *y = &g_array_index (b->gemm, TopoProfileGemm, i);
      g_assert_cmpuint (x->m, ==, y->m);
      g_assert_cmpuint (x->n, ==, y->n);
      g_assert_cmpuint (x->k, ==, y->k);
      g_assert_cmpint (x->dtype, ==, y->dtype);
      g_assert_cmpfloat (x->flops_per_s, ==, y->flops_per_s);
    }
  assert_rel (b->triad_Bps, a->triad_Bps, 1e-15);
  g_assert_cmpuint (a->colls->len, ==, b->colls->len);
  for (guint i = 0; i < a->colls->len; i++)
    {
      const TopoProfileColl *x = &g_array_index (a->colls, TopoProfileColl, i);
      const TopoProfileColl *y = &g_array_index (b->colls, TopoProfileColl, i);
      g_assert_cmpstr (x->coll, ==, y->coll);
      g_assert_cmpuint (x->ranks, ==, y->ranks);
      g_assert_cmpfloat (x->bytes, ==, y->bytes);
      /* s -> us -> s: one rounding each way */
      assert_rel (y->time_s, x->time_s, 1e-15);
      assert_rel (y->algbw_Bps, x->algbw_Bps, 1e-15);
      assert_rel (y->busbw_Bps, x->busbw_Bps, 1e-15);
    }
  /* a row with the same (collective, ranks, size) replaces the earlier one */
  g_autoptr (TopoProfile) p = topo_profile_copy (a);
  g_assert_true (topo_profile_add_coll (p, "all_reduce", 2, 1024, 11e-6, 0, 0));
  g_assert_cmpuint (p->colls->len, ==, 7);
  g_assert_cmpfloat (g_array_index (p->colls, TopoProfileColl, 1).time_s, ==, 11e-6);
  g_assert_false (topo_profile_add_coll (p, "broadcast", 2, 1024, 1e-6, 0, 0));
  g_assert_false (topo_profile_add_coll (p, "all_reduce", 2, 0, 1e-6, 0, 0));
}

/* The strict loader refuses bad profiles with the field path in the message. */
typedef struct {
  const char *profile;       /* the "profile" member's text */
  int         code;          /* TopoError */
  const char *field;         /* in the message */
} BadCase;

static const BadCase bad_cases[] = {
  { "{ \"gemm\": [] }", TOPO_ERROR_MISSING_FIELD, "profile.source" },
  { "{ \"source\": \"x\", \"gemms\": [] }", TOPO_ERROR_INVALID_FIELD, "profile.gemms" },
  { "{ \"source\": \"x\", \"gemm\": [[1, 2, 3, \"fp32\"]] }", TOPO_ERROR_INVALID_FIELD,
    "profile.gemm[0]" },
  { "{ \"source\": \"x\", \"gemm\": [[1, 2, 0, \"fp32\", 1e9]] }", TOPO_ERROR_INVALID_FIELD,
    "profile.gemm[0]" },
  { "{ \"source\": \"x\", \"gemm\": [[1, 2, 3, \"int8\", 1e9]] }", TOPO_ERROR_INVALID_FIELD,
    "profile.gemm[0]" },
  { "{ \"source\": \"x\", \"memory\": { \"triad_GBs\": 1 } }", TOPO_ERROR_INVALID_FIELD,
    "profile.memory.triad_GBs" },
  { "{ \"source\": \"x\", \"memory\": { \"copy_GBps\": -1 } }", TOPO_ERROR_INVALID_FIELD,
    "profile.memory.copy_GBps" },
  { "{ \"source\": \"x\", \"collectives\": [[\"broadcast\", 2, 8, 1, 0, 0]] }",
    TOPO_ERROR_INVALID_FIELD, "profile.collectives[0]" },
  { "{ \"source\": \"x\", \"collectives\": [[\"all_reduce\", 2.5, 8, 1, 0, 0]] }",
    TOPO_ERROR_INVALID_FIELD, "profile.collectives[0]" },
  { "{ \"source\": \"x\", \"collectives\": [[\"all_reduce\", 2, 8, 0, 0, 0]] }",
    TOPO_ERROR_INVALID_FIELD, "profile.collectives[0]" },
  /* measured figures no hardware gives: loaded, they moved every prediction (a GEMM row at
   * 1e308 FLOP/s made the step 0.59 times the preset's) */
  { "{ \"source\": \"x\", \"gemm\": [[1, 2, 3, \"fp32\", 1e308]] }", TOPO_ERROR_INVALID_FIELD,
    "outside 1e6 to 1e18 FLOP/s" },
  { "{ \"source\": \"x\", \"memory\": { \"triad_GBps\": 1e308 } }", TOPO_ERROR_INVALID_FIELD,
    "profile.memory.triad_GBps" },
  { "{ \"source\": \"x\", \"collectives\": [[\"all_reduce\", 2, 0.5, 1, 0, 0]] }",
    TOPO_ERROR_INVALID_FIELD, "outside 1 B to 1 PiB" },
  { "{ \"source\": \"x\", \"collectives\": [[\"all_reduce\", 2, 8, 1e-308, 0, 0]] }",
    TOPO_ERROR_INVALID_FIELD, "outside 1 ns to an hour" },
  { "{ \"source\": \"x\", \"collectives\": [[\"all_reduce\", 2, 8, 1, 1e308, 0]] }",
    TOPO_ERROR_INVALID_FIELD, "profile.collectives[0]" },
  { "{ \"source\": \"x\", \"kernels\": { \"norm\": [[1024, 1e308]] } }",
    TOPO_ERROR_INVALID_FIELD, "profile.kernels" },
  { "[]", TOPO_ERROR_INVALID_FIELD, "profile" },
};

static void
test_load_bad (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (bad_cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *text = g_strdup_printf (CLUSTER_HEAD ", \"profile\": %s }",
                                               bad_cases[i].profile);
      g_autoptr (TopoCluster) c = topo_cluster_new_from_data (text, -1, "bad.json", &error);
      g_assert_null (c);
      g_assert_error (error, TOPO_ERROR, bad_cases[i].code);
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, "bad.json"));
      g_assert_nonnull (strstr (error->message, bad_cases[i].field));
    }
}

/* ---- GEMM ----------------------------------------------------------------------------- */

static void
test_gemm_measured (void)
{
  g_autoptr (TopoCluster) cl = load (cluster_json);
  g_autoptr (SimCost) c = sim_cost_new (cl, NULL, NULL);
  /* a measured shape: 2 x 1024^3 / 8e10 = 26.8435456 ms, + 2 us launch = 26.8455456 ms */
  ModelOp op = gemm_op (1024, 1024, 1024);
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_FP32, FALSE),
              2.0 * 1024 * 1024 * 1024 / 8e10 + 2e-6, 1e-12);
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_FP32, FALSE), 26.8455456e-3, 1e-9);
  /* 256^3: 2 x 256^3 / 5e10 = 0.67108864 ms + 2 us */
  ModelOp small = gemm_op (256, 256, 256);
  assert_rel (sim_cost_op_s (c, &small, TOPO_DTYPE_FP32, FALSE), 0.67108864e-3 + 2e-6, 1e-12);
  /* efficiency for reports: 8e10 / 1e11 peak = 0.8 */
  assert_rel (sim_cost_gemm_efficiency (c, 1024, 1024, 1024, TOPO_DTYPE_FP32), 0.8, 1e-12);
}

static void
test_gemm_nearest (void)
{
  g_autoptr (TopoCluster) cl = load (cluster_json);
  g_autoptr (SimCost) c = sim_cost_new (cl, NULL, NULL);
  /* 1024 x 1024 x 2048: distance ln 2 = 0.69 to 1024^3; to 4096^3 sqrt(2 ln^2 4 + ln^2 2)
   * = 2.08; to 256^3 sqrt(2 ln^2 4 + ln^2 8) = 2.77: the 8e10 row, 2 x 2^31 / 8e10 =
   * 53.687 ms + 2 us */
  ModelOp a = gemm_op (1024, 1024, 2048);
  assert_rel (sim_cost_op_s (c, &a, TOPO_DTYPE_FP32, FALSE),
              2.0 * 1024 * 1024 * 2048 / 8e10 + 2e-6, 1e-12);
  /* 3000^3: ln (4096 / 3000) = 0.311 per axis beats ln (3000 / 1024) = 1.075: 9e10 */
  ModelOp b = gemm_op (3000, 3000, 3000);
  assert_rel (sim_cost_op_s (c, &b, TOPO_DTYPE_FP32, FALSE), 2.0 * 27e9 / 9e10 + 2e-6, 1e-12);
  /* a BF16 GEMM with only FP32 rows: the row's rate scaled by peak bf16 / fp32 = 0.2 / 0.1:
   * 1024^3 at 1.6e11 = 13.4217728 ms + 2 us */
  ModelOp d = gemm_op (1024, 1024, 1024);
  assert_rel (sim_cost_op_s (c, &d, TOPO_DTYPE_BF16, FALSE),
              2.0 * 1024 * 1024 * 1024 / 1.6e11 + 2e-6, 1e-12);
  /* tiny m, n, k (>= 1 in log space) still find a row: 1 x 1 x 1 -> 256^3 at 5e10 */
  ModelOp e = gemm_op (1, 1, 1);
  assert_rel (sim_cost_op_s (c, &e, TOPO_DTYPE_FP32, FALSE), 2.0 / 5e10 + 2e-6, 1e-12);
}

/* ---- attention and memory-bound kernels (compute_json) -------------------------------- */

static ModelOp
attn_op (guint64 heads, guint64 kv, guint64 s, guint64 d, gboolean causal, double factor)
{
  ModelOp op = { 0 };
  op.name = "attn_core";
  op.kind = MODEL_OP_ATTENTION;
  op.b = 1;
  op.heads = heads;
  op.kv_heads = kv;
  op.s_q = op.s_kv = s;
  op.head_dim = d;
  op.causal = causal;
  /* plan/program.c: 4 b heads s s d, halved when causal, x 2.5 for the backward */
  op.fwd_flops = factor * 4.0 * heads * s * s * d * (causal ? 0.5 : 1.0);
  return op;
}

static ModelOp
elem_op (const char *name, ModelOpKind kind, guint64 elements)
{
  ModelOp op = { 0 };
  op.name = name;
  op.kind = kind;
  op.elements = elements;
  return op;
}

/* Loaded in SI units, kernel rows in ascending size, and written back the same; the
 * bytes per element of each kind (topology/profile.c): norm 2 accesses x 4 B = 8,
 * swiglu_grad 5 x 4 = 20, bf16 norm 2 x 2 = 4, AdamW 30 per parameter. */
static void
test_compute_load (void)
{
  g_autoptr (TopoCluster) c = load (compute_json);
  const TopoProfile *p = c->profile;
  g_assert_cmpuint (p->attention->len, ==, 3);
  const TopoProfileAttn *a = &g_array_index (p->attention, TopoProfileAttn, 1);
  g_assert_cmpuint (a->s_q, ==, 1024);
  g_assert_cmpuint (a->head_dim, ==, 64);
  g_assert_true (a->causal);
  g_assert_cmpint (a->dtype, ==, TOPO_DTYPE_FP32);
  g_assert_cmpfloat (a->fwd_flops_per_s, ==, 3e9);
  g_assert_cmpfloat (a->bwd_flops_per_s, ==, 5e9);
  g_assert_false (g_array_index (p->attention, TopoProfileAttn, 2).causal);
  const GArray *norm = p->kernels[TOPO_KERNEL_NORM];
  g_assert_cmpuint (norm->len, ==, 2);
  g_assert_cmpuint (g_array_index (norm, TopoProfileKernel, 0).elements, ==, 65536);
  g_assert_cmpfloat (g_array_index (norm, TopoProfileKernel, 0).Bps, ==, 4e9);
  g_assert_cmpfloat (g_array_index (norm, TopoProfileKernel, 1).Bps, ==, 8e9);
  g_assert_cmpuint (p->kernels[TOPO_KERNEL_ROTARY]->len, ==, 0);
  g_assert_cmpuint (p->kernels[TOPO_KERNEL_ADAMW]->len, ==, 1);
  g_assert_cmpfloat (topo_kernel_bytes (TOPO_KERNEL_NORM, 1, TOPO_DTYPE_FP32), ==, 8);
  g_assert_cmpfloat (topo_kernel_bytes (TOPO_KERNEL_SWIGLU_GRAD, 1, TOPO_DTYPE_FP32), ==, 20);
  g_assert_cmpfloat (topo_kernel_bytes (TOPO_KERNEL_NORM, 1, TOPO_DTYPE_BF16), ==, 4);
  g_assert_cmpfloat (topo_kernel_bytes (TOPO_KERNEL_ADAMW, 2, TOPO_DTYPE_BF16), ==, 60);
  TopoKernel k;
  g_assert_true (topo_kernel_parse ("loss_grad", &k));
  g_assert_cmpint (k, ==, TOPO_KERNEL_LOSS_GRAD);
  g_assert_cmpstr (topo_kernel_name (k), ==, "loss_grad");
  g_assert_false (topo_kernel_parse ("softmax", &k));

  g_autoptr (GError) error = NULL;
  g_autofree char *text = topo_cluster_json_set_profile (plain_json, p, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (text, "[ 1, 8, 4, 1024, 1024, 64, true, \"fp32\", "));
  g_autoptr (TopoCluster) back = load (text);
  const TopoProfile *b = back->profile;
  g_assert_cmpuint (b->attention->len, ==, 3);
  for (guint i = 0; i < 3; i++)
    g_assert_true (memcmp (&g_array_index (p->attention, TopoProfileAttn, i),
                           &g_array_index (b->attention, TopoProfileAttn, i),
                           sizeof (TopoProfileAttn)) == 0);
  for (int kk = 0; kk < TOPO_KERNEL_N; kk++)
    {
      g_assert_cmpuint (p->kernels[kk]->len, ==, b->kernels[kk]->len);
      for (guint i = 0; i < p->kernels[kk]->len; i++)
        {
          const TopoProfileKernel *x = &g_array_index (p->kernels[kk], TopoProfileKernel, i);
          const TopoProfileKernel *y = &g_array_index (b->kernels[kk], TopoProfileKernel, i);
          g_assert_cmpuint (x->elements, ==, y->elements);
          /* B/s -> GB/s -> B/s: one rounding each way */
          assert_rel (y->Bps, x->Bps, 1e-15);
        }
    }
  /* a copy holds the same tables; a repeated size replaces its row, a bad one is refused */
  g_autoptr (TopoProfile) cp = topo_profile_copy (p);
  g_assert_cmpuint (cp->attention->len, ==, 3);
  g_assert_true (topo_profile_add_kernel (cp, TOPO_KERNEL_NORM, 65536, 5e9));
  g_assert_cmpuint (cp->kernels[TOPO_KERNEL_NORM]->len, ==, 2);
  g_assert_cmpfloat (g_array_index (cp->kernels[TOPO_KERNEL_NORM], TopoProfileKernel, 0).Bps,
                     ==, 5e9);
  g_assert_false (topo_profile_add_kernel (cp, TOPO_KERNEL_NORM, 0, 5e9));
  g_assert_false (topo_profile_add_kernel (cp, TOPO_KERNEL_NORM, 8, 0));
}

static const BadCase bad_compute_cases[] = {
  { "{ \"source\": \"x\", \"attention\": [[1, 8, 4, 256, 256, 32, true, \"fp32\", 1e9]] }",
    TOPO_ERROR_INVALID_FIELD, "profile.attention[0]" },
  { "{ \"source\": \"x\", \"attention\": [[1, 8, 4, 256, 256, 32, 1, \"fp32\", 1e9, 1e9]] }",
    TOPO_ERROR_INVALID_FIELD, "profile.attention[0]" },
  { "{ \"source\": \"x\", \"attention\": [[1, 8, 0, 256, 256, 32, true, \"fp32\", 1e9, 1e9]] }",
    TOPO_ERROR_INVALID_FIELD, "profile.attention[0]" },
  { "{ \"source\": \"x\", \"attention\": [[1, 8, 4, 256, 256, 32, true, \"int8\", 1e9, 1e9]] }",
    TOPO_ERROR_INVALID_FIELD, "profile.attention[0]" },
  { "{ \"source\": \"x\", \"attention\": [[1, 8, 4, 256, 256, 32, true, \"fp32\", 1e9, 0]] }",
    TOPO_ERROR_INVALID_FIELD, "profile.attention[0]" },
  { "{ \"source\": \"x\", \"kernels\": [] }", TOPO_ERROR_INVALID_FIELD, "profile.kernels" },
  { "{ \"source\": \"x\", \"kernels\": { \"softmax\": [] } }", TOPO_ERROR_INVALID_FIELD,
    "profile.kernels.softmax" },
  { "{ \"source\": \"x\", \"kernels\": { \"norm\": [[8, 1, 2]] } }",
    TOPO_ERROR_INVALID_FIELD, "profile.kernels.norm[0]" },
  { "{ \"source\": \"x\", \"kernels\": { \"norm\": [[0, 1]] } }",
    TOPO_ERROR_INVALID_FIELD, "profile.kernels.norm[0]" },
  { "{ \"source\": \"x\", \"kernels\": { \"adamw\": [[8, -1]] } }",
    TOPO_ERROR_INVALID_FIELD, "profile.kernels.adamw[0]" },
  { "{ \"source\": \"x\", \"kernels\": { \"loss\": {} } }",
    TOPO_ERROR_INVALID_FIELD, "profile.kernels.loss" },
};

static void
test_compute_load_bad (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (bad_compute_cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *text = g_strdup_printf (CLUSTER_HEAD ", \"profile\": %s }",
                                               bad_compute_cases[i].profile);
      g_autoptr (TopoCluster) c = topo_cluster_new_from_data (text, -1, "bad.json", &error);
      g_assert_null (c);
      g_assert_error (error, TOPO_ERROR, bad_compute_cases[i].code);
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, "bad.json"));
      g_assert_nonnull (strstr (error->message, bad_compute_cases[i].field));
    }
}

static void
test_attention_measured (void)
{
  g_autoptr (TopoCluster) cl = load (compute_json);
  g_autoptr (SimCost) c = sim_cost_new (cl, NULL, NULL);
  /* the measured shape, forward: 4 x 8 x 256^2 x 32 / 2 = 33554432 FLOPs / 2e9 =
   * 16.777216 ms, + 2 us launch */
  ModelOp f = attn_op (8, 4, 256, 32, TRUE, 1.0);
  assert_rel (sim_cost_op_s (c, &f, TOPO_DTYPE_FP32, FALSE), 16.777216e-3 + 2e-6, 1e-12);
  /* backward: 2.5 x 33554432 = 83886080 FLOPs / 4e9 = 20.97152 ms + 2 us */
  ModelOp bw = attn_op (8, 4, 256, 32, TRUE, 2.5);
  assert_rel (sim_cost_op_s (c, &bw, TOPO_DTYPE_FP32, TRUE), 20.97152e-3 + 2e-6, 1e-12);
  /* 512 tokens, head_dim 32: ln 2 off in s_q and s_kv from the first row (distance
   * 0.98), also ln 2 in head_dim from the second (1.20): 4 x 8 x 512^2 x 32 / 2 =
   * 134217728 / 2e9 = 67.108864 ms + 2 us */
  ModelOp n = attn_op (8, 4, 512, 32, TRUE, 1.0);
  assert_rel (sim_cost_op_s (c, &n, TOPO_DTYPE_FP32, FALSE), 67.108864e-3 + 2e-6, 1e-12);
  /* non-causal ops take the non-causal row: 4 x 8 x 256^2 x 32 = 67108864 / 2.5e9 =
   * 26.8435456 ms + 2 us; a causal one of the same heads takes the first row (ln 2 off in
   * kv_heads): 33554432 / 2e9 */
  ModelOp full = attn_op (8, 8, 256, 32, FALSE, 1.0);
  assert_rel (sim_cost_op_s (c, &full, TOPO_DTYPE_FP32, FALSE), 26.8435456e-3 + 2e-6, 1e-12);
  ModelOp causal8 = attn_op (8, 8, 256, 32, TRUE, 1.0);
  assert_rel (sim_cost_op_s (c, &causal8, TOPO_DTYPE_FP32, FALSE), 16.777216e-3 + 2e-6, 1e-12);
  /* BF16 with FP32 rows only: the rate x peak bf16 / fp32 = 2: 33554432 / 4e9 = 8.388608 ms */
  assert_rel (sim_cost_op_s (c, &f, TOPO_DTYPE_BF16, FALSE), 8.388608e-3 + 2e-6, 1e-12);
}

static void
test_kernels_measured (void)
{
  g_autoptr (TopoCluster) cl = load (compute_json);
  g_autoptr (SimCost) c = sim_cost_new (cl, NULL, NULL);
  /* norm at a measured size: 65536 x 8 B = 524288 B / 4e9 = 131.072 us + 2 us; at
   * 1048576: 8388608 B / 8e9 = 1.048576 ms + 2 us */
  ModelOp norm = elem_op ("attn_norm", MODEL_OP_NORM, 65536);
  assert_rel (sim_cost_op_s (c, &norm, TOPO_DTYPE_FP32, FALSE), 131.072e-6 + 2e-6, 1e-12);
  norm.elements = 1048576;
  assert_rel (sim_cost_op_s (c, &norm, TOPO_DTYPE_FP32, FALSE), 1.048576e-3 + 2e-6, 1e-12);
  /* 262144 sits half-way in ln elements: ln B half-way, B = sqrt (4e9 x 8e9) = 5.65685e9;
   * 2097152 B / 5.65685e9 = 370.727 us + 2 us */
  norm.elements = 262144;
  assert_rel (sim_cost_op_s (c, &norm, TOPO_DTYPE_FP32, FALSE),
              2097152.0 / sqrt (4e9 * 8e9) + 2e-6, 1e-12);
  /* held beyond the ends: 1000 at 4e9 (8000 B: 2 us + 2 us), 4194304 at 8e9 (4.194304 ms) */
  norm.elements = 1000;
  assert_rel (sim_cost_op_s (c, &norm, TOPO_DTYPE_FP32, FALSE), 2e-6 + 2e-6, 1e-12);
  norm.elements = 4194304;
  assert_rel (sim_cost_op_s (c, &norm, TOPO_DTYPE_FP32, FALSE), 4.194304e-3 + 2e-6, 1e-12);
  /* BF16 activations: 2 B an access, 65536 x 4 B = 262144 B / 4e9 = 65.536 us + 2 us */
  norm.elements = 65536;
  assert_rel (sim_cost_op_s (c, &norm, TOPO_DTYPE_BF16, FALSE), 65.536e-6 + 2e-6, 1e-12);
  /* a backward block's norm is norm_grad: 65536 x 12 B = 786432 / 6e9 = 131.072 us */
  ModelOp ng = elem_op ("attn_norm_grad", MODEL_OP_NORM, 65536);
  assert_rel (sim_cost_op_s (c, &ng, TOPO_DTYPE_FP32, TRUE), 131.072e-6 + 2e-6, 1e-12);
  /* rotary_grad: 65536 x 8 B / 2e9 = 262.144 us; mlp_act_grad is swiglu_grad:
   * 65536 x 20 B / 5e9 = 262.144 us; the residual: 65536 x 12 B / 1e11 = 7.86432 us;
   * the loss: 65536 x 12 B / 2e9 = 393.216 us */
  ModelOp rg = elem_op ("rotary_grad", MODEL_OP_ELEMENTWISE, 65536);
  assert_rel (sim_cost_op_s (c, &rg, TOPO_DTYPE_FP32, TRUE), 262.144e-6 + 2e-6, 1e-12);
  ModelOp ag = elem_op ("mlp_act_grad", MODEL_OP_ELEMENTWISE, 65536);
  assert_rel (sim_cost_op_s (c, &ag, TOPO_DTYPE_FP32, TRUE), 262.144e-6 + 2e-6, 1e-12);
  ModelOp res = elem_op ("attn_residual", MODEL_OP_ELEMENTWISE, 65536);
  assert_rel (sim_cost_op_s (c, &res, TOPO_DTYPE_FP32, FALSE), 7.86432e-6 + 2e-6, 1e-12);
  ModelOp loss = elem_op ("loss", MODEL_OP_LOSS, 65536);
  assert_rel (sim_cost_op_s (c, &loss, TOPO_DTYPE_FP32, FALSE), 393.216e-6 + 2e-6, 1e-12);
  /* kinds without rows keep the triad path: forward rotary 65536 x 2 x 4 B / 1e10 =
   * 52.4288 us, the embedding the same */
  ModelOp rot = elem_op ("rotary", MODEL_OP_ELEMENTWISE, 65536);
  assert_rel (sim_cost_op_s (c, &rot, TOPO_DTYPE_FP32, FALSE), 52.4288e-6 + 2e-6, 1e-12);
  ModelOp emb = elem_op ("embed", MODEL_OP_EMBEDDING, 65536);
  assert_rel (sim_cost_op_s (c, &emb, TOPO_DTYPE_FP32, FALSE), 52.4288e-6 + 2e-6, 1e-12);
  /* AdamW: 1e6 x 30 B = 3e7 B / 6e9 = 5 ms + 2 us (the one size is held) */
  assert_rel (sim_cost_optimizer_s (c, 1e6), 5e-3 + 2e-6, 1e-12);
}

/* ---- memory-bound ---------------------------------------------------------------------- */

static void
test_memory_bound (void)
{
  g_autoptr (TopoCluster) cl = load (cluster_json);
  SimCostOptions o;
  sim_cost_options_init (&o, cl);
  /* the triad figure is already achieved: mem_efficiency defaults to 1 */
  g_assert_cmpfloat (o.mem_efficiency, ==, 1.0);
  g_autoptr (SimCost) c = sim_cost_new (cl, NULL, &o);
  /* RMSNorm forward in FP32 over 1e6 elements: read + write = 2 x 4 B x 1e6 = 8e6 B at the
   * triad 10 GB/s (not the nominal 20) = 0.8 ms, + 2 us */
  ModelOp norm = { 0 };
  norm.name = "norm";
  norm.kind = MODEL_OP_NORM;
  norm.elements = 1000000;
  assert_rel (sim_cost_op_s (c, &norm, TOPO_DTYPE_FP32, FALSE), 8e6 / 10e9 + 2e-6, 1e-12);
  /* AdamW: 30 B per parameter, 1e6 parameters = 3e7 B / 1e10 = 3 ms + 2 us */
  assert_rel (sim_cost_optimizer_s (c, 1e6), 3e-3 + 2e-6, 1e-12);
}

/* ---- collectives ----------------------------------------------------------------------- */

static void
test_all_reduce_measured (void)
{
  g_autoptr (TopoCluster) cl = load (cluster_json);
  g_autoptr (PlanLayout) lay = tp_layout (cl, 2);
  g_autoptr (SimCost) c = sim_cost_new (cl, lay, NULL);
  /* the measured sizes on the measured group size take the measured times */
  assert_rel (sim_cost_coll_s (c, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP, 1024), 10e-6, 1e-12);
  assert_rel (sim_cost_coll_s (c, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP, MIB), 200e-6, 1e-12);
  assert_rel (sim_cost_coll_s (c, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP, 64 * MIB), 10e-3, 1e-12);
  /* below the smallest size: the smallest message's time is the latency floor */
  assert_rel (sim_cost_coll_s (c, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP, 8), 10e-6, 1e-12);
  assert_rel (sim_cost_latency_s (c, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP), 10e-6, 1e-12);
  /* above the largest: busbw held at 64 MiB x 2(2-1)/2 / 10 ms = 6.7108864 GB/s, so 128 MiB
   * takes 20 ms */
  assert_rel (sim_cost_busbw_Bps (c, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP), 6.7108864e9, 1e-12);
  assert_rel (sim_cost_coll_s (c, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP, 128 * MIB), 20e-3, 1e-12);
  /* point-to-point from the sendrecv rows: 1 MiB in 100 us */
  assert_rel (sim_cost_p2p_s (c, 0, 1, MIB), 100e-6, 1e-12);
}

static void
test_interpolation (void)
{
  g_autoptr (TopoCluster) cl = load (cluster_json);
  g_autoptr (PlanLayout) lay = tp_layout (cl, 2);
  g_autoptr (SimCost) c = sim_cost_new (cl, lay, NULL);
  /* ln t is linear in ln S between two sizes (ln busbw is, and t = S f / busbw), so at
   * the geometric middle of 1 KiB and 1 MiB (32 KiB) t = sqrt (10 x 200) us = 44.7214 us */
  assert_rel (sim_cost_coll_s (c, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP, 32768),
              sqrt (10e-6 * 200e-6), 1e-12);
  assert_rel (sim_cost_coll_s (c, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP, 32768), 44.7214e-6, 1e-5);
  /* monotone from 1 B to 1 GiB in steps of 1.1x, and inside [10 us, 200 us] between the
   * first two sizes */
  double prev = 0;
  for (double s = 1; s < 1073741824.0; s *= 1.1)
    {
      const double t = sim_cost_coll_s (c, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP, s);
      g_assert_cmpfloat (t, >=, prev);
      if (s >= 1024 && s <= MIB)
        {
          g_assert_cmpfloat (t, >=, 10e-6 * (1 - 1e-12));
          g_assert_cmpfloat (t, <=, 200e-6 * (1 + 1e-12));
        }
      prev = t;
    }
}

static void
test_nearest_group (void)
{
  g_autoptr (TopoCluster) cl = load (cluster_json);
  /* 4 ranks: the 4-rank rows, 1 MiB in 300 us */
  g_autoptr (PlanLayout) l4 = tp_layout (cl, 4);
  g_autoptr (SimCost) c4 = sim_cost_new (cl, l4, NULL);
  assert_rel (sim_cost_coll_s (c4, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP, MIB), 300e-6, 1e-12);
  assert_rel (sim_cost_latency_s (c4, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP), 15e-6, 1e-12);
  /* 3 ranks: |ln 4 - ln 3| = 0.288 < |ln 3 - ln 2| = 0.405, the 4-rank rows; busbw is
   * per rank, so t = S f(3) / busbw_4 = 300 us x f(3) / f(4) = 300 x (4/3) / (3/2) =
   * 266.667 us */
  g_autoptr (PlanLayout) l3 = tp_layout (cl, 3);
  g_autoptr (SimCost) c3 = sim_cost_new (cl, l3, NULL);
  assert_rel (sim_cost_coll_s (c3, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP, MIB),
              300e-6 * (4.0 / 3) / 1.5, 1e-12);
  assert_rel (sim_cost_coll_s (c3, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP, MIB), 266.667e-6, 1e-5);
}

/* Curves apply to groups over the same levels. Two servers of 4: all-reduce rows on 4
 * ranks (one server, level 0) and on 8 (both, level 1), 1 KiB in 10 and 20 us, 1 MiB in
 * 100 and 400 us. */
/* Unfused attention on a profile: b 1, 8 heads over 4 KV heads, 256 tokens, head_dim
 * 32, causal, FP32 (e = 4), no dropout; scores 8 x 256^2 = 524,288; launch 2 us.
 * Forward: QK^T and AV per head, 2 x 256 x 256 x 32 = 4,194,304 FLOPs each, 16 of them at
 * the only GEMM row's 5e10 = 1.342177 ms, + 2 launches = 1.346177 ms. Softmax: in memory
 * 2e x scores = 4,194,304 B at 10 GB/s = 0.419430 ms + 2 us; measured as the
 * cross-entropy kernel over the visible keys, (1 + 1/256) / 2 x scores = 263,168
 * elements x 3 accesses x 4 B = 3,158,016 B at 2 GB/s = 1.579008 ms, the slower: the pass
 * takes 1.579008 + 0.002 ms. Total 2.927185 ms.
 * Backward: four products of 4,194,304 FLOPs per head, 32 at 5e10 = 2.684355 ms, + 4
 * launches = 2.692355 ms. Softmax backward: 3e x scores = 6,291,456 B = 0.629146 ms
 * + 2 us in memory; measured 263,168 x 2 x 4 B = 2,105,344 B at 3 GB/s = 0.701781 ms,
 * slower: 0.703781 ms. Total 3.396136 ms. */
static void
test_attention_unfused (void)
{
  g_autoptr (TopoCluster) cl = load (unfused_json);
  g_autoptr (SimCost) c = sim_cost_new (cl, NULL, NULL);
  ModelOp op = { 0 };
  op.name = "attn_core";
  op.kind = MODEL_OP_ATTENTION;
  op.b = 1;
  op.heads = 8;
  op.kv_heads = 4;
  op.s_q = op.s_kv = 256;
  op.head_dim = 32;
  op.causal = TRUE;
  op.materialized = TRUE;
  const double scores = 8.0 * 256 * 256, prod = 2.0 * 256 * 256 * 32;
  const double visible = 0.5 * (1 + 1.0 / 256) * scores;
  op.fwd_flops = 2 * 8 * prod;
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_FP32, FALSE),
              16 * prod / 5e10 + 2 * 2e-6 + visible * 3 * 4 / 2e9 + 2e-6, 1e-12);
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_FP32, FALSE), 2.927185e-3, 1e-6);
  op.fwd_flops = 4 * 8 * prod;
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_FP32, TRUE),
              32 * prod / 5e10 + 4 * 2e-6 + visible * 2 * 4 / 3e9 + 2e-6, 1e-12);
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_FP32, TRUE), 3.396136e-3, 1e-6);
  /* without kernel rows (CLUSTER: the same 256^3 row is the nearest, triad 10 GB/s) the
   * softmax is the memory pass: 1.346177 + 0.419430 + 0.002 = 1.767607 ms */
  g_autoptr (TopoCluster) plain = load (cluster_json);
  g_autoptr (SimCost) c2 = sim_cost_new (plain, NULL, NULL);
  op.fwd_flops = 2 * 8 * prod;
  assert_rel (sim_cost_op_s (c2, &op, TOPO_DTYPE_FP32, FALSE),
              16 * prod / 5e10 + 2 * 2e-6 + 2 * 4 * scores / 1e10 + 2e-6, 1e-12);
  assert_rel (sim_cost_op_s (c2, &op, TOPO_DTYPE_FP32, FALSE), 1.767607e-3, 1e-6);
}

static void
test_span (void)
{
  static const char two_level[] =
    "{ \"device\": { \"name\": \"t\", \"peak_tflops\": { \"bf16\": 1 }, \"hbm_GB\": 1, \"hbm_GBps\": 1000 },\n"
    "  \"levels\": [ { \"name\": \"server\", \"count\": 4, \"bw_GBps\": 100 },\n"
    "               { \"name\": \"pod\", \"count\": 2, \"bw_GBps\": 10 } ],\n"
    "  \"profile\": { \"source\": \"test\", \"collectives\": [\n"
    "    [\"all_reduce\", 4, 1024, 10, 0.1, 0.15], [\"all_reduce\", 4, 1048576, 100, 10.5, 15.7],\n"
    "    [\"all_reduce\", 8, 1024, 20, 0.05, 0.09], [\"all_reduce\", 8, 1048576, 400, 2.6, 4.6] ] } }";
  g_autoptr (TopoCluster) cl = load (two_level);
  g_autoptr (GError) error = NULL;
  Plan plan;
  plan_init_defaults (&plan);
  plan.tp = 2;
  plan.dp = 4;
  plan.world_size = 8;
  g_autoptr (PlanLayout) lay = plan_layout_new (&plan, cl, &error);
  g_assert_no_error (error);
  plan_clear (&plan);
  g_assert_cmpint (lay->groups[PLAN_AXIS_TP].span_level, ==, 0);
  g_assert_cmpint (lay->groups[PLAN_AXIS_DP].span_level, ==, 1);
  g_autoptr (SimCost) c = sim_cost_new (cl, lay, NULL);
  /* TP {0, 1} inside a server: the 4-rank (level 0) rows, 100 us x f(2) / f(4) = 100 x 1 /
   * 1.5 = 66.667 us */
  assert_rel (sim_cost_coll_s (c, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP, MIB), 100e-6 / 1.5, 1e-12);
  /* DP {0, 2, 4, 6} across both servers: the 8-rank (level 1) rows although 4 ranks were
   * measured too, 400 us x f(4) / f(8) = 400 x 1.5 / 1.75 = 342.857 us */
  assert_rel (sim_cost_coll_s (c, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_DP, MIB), 400e-6 * 1.5 / 1.75,
              1e-12);
  assert_rel (sim_cost_coll_s (c, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_DP, MIB), 342.857e-6, 1e-5);
}

/* A collective without rows keeps the level model: reduce-scatter over 2 ranks, level 0
 * busbw = bw 10 GB/s x nvlink_efficiency 0.8 = 8 GB/s; latency = base 6.6 us + 1 step x
 * 1.9 us (no latency in the level: NCCL's LL128 default); 1 MiB x 1/2 / 8e9 = 65.536 us;
 * t = 74.036 us */
static void
test_fallback (void)
{
  g_autoptr (TopoCluster) cl = load (cluster_json);
  g_autoptr (PlanLayout) lay = tp_layout (cl, 2);
  g_autoptr (SimCost) c = sim_cost_new (cl, lay, NULL);
  assert_rel (sim_cost_coll_s (c, PLAN_COLL_REDUCE_SCATTER, PLAN_AXIS_TP, MIB),
              6.6e-6 + 1.9e-6 + MIB * 0.5 / 8e9, 1e-12);
  assert_rel (sim_cost_coll_s (c, PLAN_COLL_REDUCE_SCATTER, PLAN_AXIS_TP, MIB), 74.036e-6, 1e-5);
}

/* Without a profile nothing changes. The same cluster without "profile": all-reduce over 2
 * ranks = 6.6 + 2 x 1.9 us + 1 MiB x 1 / 8e9 = 141.472 us; GEMM 1024^3 FP32 by the default
 * curve (no SMs: no wave term; tile 1024 / 128 and 1024 / 256 whole; small-k 1024 / 1152)
 * = 2 x 1024^3 / (1e11 x 0.75 x 1024 / 1152) + 2 us; memory at 20 GB/s x 0.90. And the
 * h100-24k numbers of tests/sim/test-cost.c (documented options): ring all-reduce of
 * 1 GiB over a server = 5.1117 ms, GEMM 8192^3 BF16 = 1.45347 ms. */
static void
test_no_profile_unchanged (void)
{
  g_autoptr (TopoCluster) cl = load (plain_json);
  g_autoptr (PlanLayout) lay = tp_layout (cl, 2);
  g_autoptr (SimCost) c = sim_cost_new (cl, lay, NULL);
  assert_rel (sim_cost_coll_s (c, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP, MIB),
              6.6e-6 + 2 * 1.9e-6 + MIB / 8e9, 1e-12);
  assert_rel (sim_cost_coll_s (c, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP, MIB), 141.472e-6, 1e-5);
  ModelOp op = gemm_op (1024, 1024, 1024);
  assert_rel (sim_cost_op_s (c, &op, TOPO_DTYPE_FP32, FALSE),
              2.0 * 1024 * 1024 * 1024 / (1e11 * 0.75 * 1024 / 1152) + 2e-6, 1e-12);
  g_assert_cmpfloat (sim_cost_options (c)->mem_efficiency, ==, 0.90);
  ModelOp norm = { 0 };
  norm.name = "norm";
  norm.kind = MODEL_OP_NORM;
  norm.elements = 1000000;
  assert_rel (sim_cost_op_s (c, &norm, TOPO_DTYPE_FP32, FALSE), 8e6 / 18e9 + 2e-6, 1e-12);

  g_autoptr (GError) error = NULL;
  g_autoptr (TopoCluster) h100 = topo_cluster_load_preset ("h100-24k", &error);
  g_assert_no_error (error);
  g_assert_null (h100->profile);
  Plan plan;
  plan_init_defaults (&plan);
  plan.tp = 8;
  plan.dp = 1;
  plan.world_size = 8;
  g_autoptr (PlanLayout) l8 = plan_layout_new (&plan, h100, &error);
  g_assert_no_error (error);
  plan_clear (&plan);
  /* test-cost.c's documented options (sim_cost_options_init_documented) */
  SimCostOptions o;
  sim_cost_options_init_documented (&o, h100);
  o.use_nvls = FALSE;
  g_autoptr (SimCost) hc = sim_cost_new (h100, l8, &o);
  assert_rel (sim_cost_coll_s (hc, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP, 1073741824.0),
              5.1117e-3, 1e-3);
  g_autoptr (SimCost) hn = sim_cost_new (h100, NULL, &o);
  ModelOp big = gemm_op (8192, 8192, 8192);
  assert_rel (sim_cost_op_s (hn, &big, TOPO_DTYPE_BF16, FALSE), 1.45347e-3, 1e-3);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sim/cost-profile/load", test_load);
  g_test_add_func ("/sim/cost-profile/round-trip", test_round_trip);
  g_test_add_func ("/sim/cost-profile/load-bad", test_load_bad);
  g_test_add_func ("/sim/cost-profile/gemm-measured", test_gemm_measured);
  g_test_add_func ("/sim/cost-profile/gemm-nearest", test_gemm_nearest);
  g_test_add_func ("/sim/cost-profile/memory-bound", test_memory_bound);
  g_test_add_func ("/sim/cost-profile/compute-load", test_compute_load);
  g_test_add_func ("/sim/cost-profile/compute-load-bad", test_compute_load_bad);
  g_test_add_func ("/sim/cost-profile/attention-measured", test_attention_measured);
  g_test_add_func ("/sim/cost-profile/kernels-measured", test_kernels_measured);
  g_test_add_func ("/sim/cost-profile/all-reduce-measured", test_all_reduce_measured);
  g_test_add_func ("/sim/cost-profile/interpolation", test_interpolation);
  g_test_add_func ("/sim/cost-profile/nearest-group", test_nearest_group);
  g_test_add_func ("/sim/cost-profile/span", test_span);
  g_test_add_func ("/sim/cost-profile/attention-unfused", test_attention_unfused);
  g_test_add_func ("/sim/cost-profile/fallback", test_fallback);
  g_test_add_func ("/sim/cost-profile/no-profile-unchanged", test_no_profile_unchanged);
  return g_test_run ();
}
