/* tests/plan/test-moe.c - mixture-of-experts plans: flags, validation, MoE parallel
 * folding of the layout, and the MoE tasks of the step program, against numbers derived
 * by hand in the comments. The MoE model here is llama3-8b made MoE by --num-experts (as
 * Megatron's flag does to a dense model: every MLP becomes E experts of its size), so the
 * figures depend on nothing but h = 4096, ffn = 14336 and 32 layers. */
#include "plan/memory.h"
#include "plan-fixture.h"

#include <json-glib/json-glib.h>
#include <math.h>

/* Swaps the fixture's model for the preset `name`. */
static void
use_model (Fixture *f, const char *name)
{
  g_autoptr (GError) error = NULL;
  g_clear_pointer (&f->model, model_spec_unref);
  f->model = model_spec_lookup (name, &error);
  g_assert_no_error (error);
}

/* Flags and their plan JSON keys. */
static void
test_flags (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (resolve (f, "--gpus 64 --tp 2 --sp --num-experts 8 --moe-router-topk 2 "
                          "--expert-model-parallel-size 8 --expert-tensor-parallel-size 1 "
                          "--moe-token-dispatcher-type allgather --moe-expert-capacity-factor "
                          "1.25 --moe-grouped-gemm --moe-shared-expert-overlap "
                          "--moe-imbalance 1.5", &error));
  g_assert_no_error (error);
  Plan *p = &f->plan;
  g_assert_cmpint (p->num_experts, ==, 8);
  g_assert_cmpint (p->moe_topk, ==, 2);
  g_assert_cmpint (p->ep, ==, 8);
  g_assert_cmpint (p->etp, ==, 1);
  /* folding: tp x cp x dp = 2 x 1 x 32 = 64 ranks per stage; etp x ep = 8: edp = 8 */
  g_assert_cmpint (p->dp, ==, 32);
  g_assert_cmpint (p->edp, ==, 8);
  g_assert_cmpint (p->moe_dispatcher, ==, PLAN_MOE_ALLGATHER);
  g_assert_cmpfloat (p->moe_capacity_factor, ==, 1.25);
  g_assert_true (p->moe_grouped_gemm && p->moe_shared_expert_overlap);
  PlanMoe moe;
  plan_moe (p, f->model, &moe);
  /* the capacity factor caps the busiest expert at 1.25 x the mean: min (1.5, 1.25) */
  g_assert_cmpfloat (moe.imbalance, ==, 1.25);
  g_assert_cmpuint (moe.expert_ffn, ==, 14336);

  /* the plan JSON section "moe" reads back the same options */
  const char *json = "{\"parallelism\": {\"expert_parallel_degree\": 4, "
                     "\"expert_tensor_parallel_degree\": 2}, \"moe\": {\"num_experts\": 16, "
                     "\"router_topk\": 4, \"token_dispatcher_type\": \"flex\", "
                     "\"expert_capacity_factor\": null, \"grouped_gemm\": true, "
                     "\"imbalance\": 1.1}}";
  Plan q;
  plan_init_defaults (&q);
  g_assert_true (plan_load_json_data (&q, json, -1, "test.json", &error));
  g_assert_no_error (error);
  g_assert_cmpint (q.ep, ==, 4);
  g_assert_cmpint (q.etp, ==, 2);
  g_assert_cmpint (q.num_experts, ==, 16);
  g_assert_cmpint (q.moe_topk, ==, 4);
  g_assert_cmpint (q.moe_dispatcher, ==, PLAN_MOE_FLEX);
  g_assert_cmpfloat (q.moe_capacity_factor, ==, 0);
  g_assert_cmpfloat (q.moe_imbalance, ==, 1.1);
  plan_clear (&q);
  plan_init_defaults (&q);
  g_assert_false (plan_load_json_data (&q, "{\"moe\": {\"experts\": 8}}", -1, "t.json",
                                       &error));
  g_assert_error (error, PLAN_ERROR, PLAN_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, "unknown key moe.experts"));
  plan_clear (&q);
}

/* --recompute-modules moe_act / moe and --overlap-moe-expert-parallel-comm survive the
 * "moe" section of the plan JSON that predict stores, read back by --plan
 * (moe.recompute_modules, moe.a2a_overlap),
 * and the plan string tells such plans apart (-rcmoeact, -rcmoe, -a2aov): before, a stored
 * plan lost the recompute modules and two plans differing only there read the same. */
static void
test_json_round_trip (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (resolve (f, "--gpus 64 --num-experts 8 --expert-model-parallel-size 8 "
                          "--recompute-modules moe_act --overlap-moe-expert-parallel-comm",
                          &error));
  g_assert_no_error (error);
  g_autofree char *str = plan_to_string (&f->plan);
  g_assert_nonnull (strstr (str, "-rcmoeact-a2aov-"));
  g_autoptr (JsonBuilder) b = json_builder_new ();
  plan_to_json (&f->plan, b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  JsonObject *moe = json_object_get_object_member (json_node_get_object (root), "moe");
  g_assert_cmpstr (json_object_get_string_member (moe, "recompute_modules"), ==, "moe_act");
  /* the stored plan's "moe" section, given back as a plan file's */
  g_autoptr (JsonNode) section = json_node_new (JSON_NODE_OBJECT);
  g_autoptr (JsonObject) wrap = json_object_new ();
  json_object_set_member (wrap, "moe", json_node_copy (json_object_get_member (
                                         json_node_get_object (root), "moe")));
  json_node_set_object (section, wrap);
  g_autofree char *text = json_to_string (section, FALSE);
  Plan q;
  plan_init_defaults (&q);
  gboolean loaded = plan_load_json_data (&q, text, -1, "round-trip.json", &error);
  g_assert_no_error (error);
  g_assert_true (loaded);
  g_assert_cmpuint (q.moe_recompute, ==, PLAN_MOE_RECOMPUTE_ACT);
  g_assert_true (q.moe_a2a_overlap);
  plan_clear (&q);

  /* moe (the whole MoE MLP) reads back too; a dense name there is refused */
  plan_init_defaults (&q);
  g_assert_true (plan_load_json_data (&q, "{\"moe\": {\"recompute_modules\": \"moe\"}}",
                                      -1, "t.json", &error));
  g_assert_no_error (error);
  g_assert_cmpuint (q.moe_recompute, ==, PLAN_MOE_RECOMPUTE_LAYER);
  plan_clear (&q);
  plan_init_defaults (&q);
  g_assert_false (plan_load_json_data (&q, "{\"moe\": {\"recompute_modules\": "
                                       "\"core_attn\"}}", -1, "t.json", &error));
  g_assert_error (error, PLAN_ERROR, PLAN_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, "names 'core_attn'"));
  g_clear_error (&error);
  plan_clear (&q);

  /* every other Megatron-Core name reads back, in the table's order; an unknown one is
   * refused with the list */
  plan_init_defaults (&q);
  g_assert_true (plan_load_json_data (&q, "{\"moe\": {\"recompute_modules\": "
                                      "\"shared_experts,mlp,mla_up_proj,layernorm\"}}",
                                      -1, "t.json", &error));
  g_assert_no_error (error);
  g_assert_cmpuint (q.moe_recompute, ==, PLAN_MOE_RECOMPUTE_LAYERNORM | PLAN_MOE_RECOMPUTE_MLA_UP
                                         | PLAN_MOE_RECOMPUTE_MLP | PLAN_MOE_RECOMPUTE_SHARED);
  g_autofree char *mods = plan_recompute_modules_string (&q);
  g_assert_cmpstr (mods, ==, "layernorm,mla_up_proj,mlp,shared_experts");
  plan_clear (&q);
  plan_init_defaults (&q);
  g_assert_false (plan_load_json_data (&q, "{\"moe\": {\"recompute_modules\": "
                                       "\"layernorm,attn_norm\"}}", -1, "t.json", &error));
  g_assert_error (error, PLAN_ERROR, PLAN_ERROR_USAGE);
  g_assert_nonnull (strstr (error->message, "'attn_norm' is not a Megatron-Core recompute module"));
  plan_clear (&q);
}

/* The bad inputs of issue 16, one line each. */
static void
test_invalid (Fixture *f, gconstpointer data)
{
  static const struct { const char *flags, *message; } cases[] = {
    /* llama3-8b is dense */
    { "--gpus 64 --ep 8", "expert parallelism needs a mixture-of-experts model" },
    /* 8 experts on 3 EP ranks */
    { "--gpus 48 --num-experts 8 --ep 3", "ep = 3 does not divide the 8 experts" },
    /* each token picks 9 distinct experts of 8 */
    { "--gpus 8 --num-experts 8 --moe-router-topk 9", "larger than the 8 experts" },
    /* tp 2 x cp 1 x dp 4 = 8 ranks per stage; etp 2 x ep 8 = 16 does not divide 8 */
    { "--gpus 8 --tp 2 --sp --num-experts 8 --ep 8", "does not fold onto the ranks" },
    /* order tp-cp-pp-ep-dp with cp 2: the dense side puts pp at stride tp x cp = 2,
     * the expert side (cp dropped) at stride etp = 1: rank 1 is stage 0 on the dense
     * side and stage 1 on the expert side */
    { "--gpus 16 --cp 2 --pp 2 --num-experts 8 --ep 2 --rank-order tp-cp-pp-ep-dp",
      "does not fold onto the ranks: with rank order tp-cp-pp-ep-dp, rank 1" },
    /* Megatron requires SP with EP and TP */
    { "--gpus 16 --tp 2 --num-experts 8 --ep 8", "needs sequence parallelism" },
    /* and Megatron-Core's MoELayer refuses TP without SP in training at ep 1 too (it was
     * timed with the replicated tokens gathered again: tp times the experts' work) */
    { "--gpus 8 --tp 8 --num-experts 8", "a mixture-of-experts layer with tensor parallelism "
      "(tp 8) needs sequence parallelism" },
    /* 14336 / 3 is not whole */
    { "--gpus 24 --tp 1 --num-experts 8 --ep 8 --etp 3", "does not divide the expert FFN" },
    /* 16 EP ranks for 8 experts with an imbalance given: the experts first (it said "at
     * most 0 times the mean (hint: --moe-imbalance from 1 to 0)") */
    { "--gpus 16 --num-experts 8 --ep 16 --moe-imbalance 1", "ep = 16 does not divide the 8 "
      "experts" },
    /* top-8 of 8 experts on 8 ranks: every rank gets every token, at most 1 times the mean
     * (8 x min(8, 1) / 8); a typed 1.3, the default's value, is checked as 1.2 is (it ran
     * at 1 where 1.2 was refused) */
    { "--gpus 8 --num-experts 8 --ep 8 --moe-router-topk 8 --moe-imbalance 1.3",
      "--moe-imbalance 1.3 is more than routing can give: the busiest of ep = 8 ranks "
      "receives at most 1 times the mean" },
    /* the value as typed, not rounded to %g's six figures (it read "1.3 is more") */
    { "--gpus 8 --num-experts 8 --ep 8 --moe-router-topk 8 --moe-imbalance 1.3000001",
      "--moe-imbalance 1.3000001 is more" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_assert_false (resolve (f, cases[i].flags, &error));
      g_assert_nonnull (error);
      if (strstr (error->message, cases[i].message) == NULL)
        g_error ("%s: expected '%s' in '%s'", cases[i].flags, cases[i].message, error->message);
      g_assert_null (strchr (error->message, '\n'));
    }
}

/* The fold error's hint is itself a layout that folds (QA of the Hugging Face MoE
 * families). DBRX (16 experts of FFN 10752 = 2^9 x 21), 64 GPUs, tp 8, ep 8, etp 3:
 * tp x cp x dp = 64 ranks a stage, 3 x 8 = 24 does not divide 64, and no ep can mend it
 * (64 / 3 is not whole; the hint was --ep 7, from 64 / 3 = 21): the hint names an expert
 * TP dividing gcd(64, 10752) = 64, at most 3: 2 (2 x 8 = 16 divides 64). GLM-4.5 (160
 * experts), 512 GPUs, tp 8, ep 160: 8 x 160 = 1280 does not divide 512; 512 / 8 = 64
 * ranks for ep, and the hint was --ep 64, which 160 experts refuse (160 / 64 not whole):
 * now the largest divisor of gcd(64, 160) = 32 at most 160, 32. Both hints resolve. */
static void
test_fold_hints (Fixture *f, gconstpointer data)
{
  g_autofree char *dbrx = g_test_build_filename (G_TEST_DIST, "data", "models",
                                                 "dbrx-instruct.json", NULL);
  g_autofree char *glm = g_test_build_filename (G_TEST_DIST, "data", "models",
                                                "glm-4.5.json", NULL);
  use_model (f, dbrx);
  g_autoptr (GError) e1 = NULL;
  g_assert_false (resolve (f, "--gpus 64 --tp 8 --sp --ep 8 --etp 3", &e1));
  g_assert_nonnull (strstr (e1->message, "(hint: --expert-tensor-parallel-size 2)"));
  g_autoptr (GError) e2 = NULL;
  g_assert_true (resolve (f, "--gpus 64 --tp 8 --sp --ep 8 --etp 2", &e2));
  g_assert_no_error (e2);

  use_model (f, glm);
  g_autoptr (GError) e3 = NULL;
  g_assert_false (resolve (f, "--gpus 512 --tp 8 --sp --ep 160", &e3));
  g_assert_nonnull (strstr (e3->message, "(hint: --ep 32)"));
  g_autoptr (GError) e4 = NULL;
  g_assert_true (resolve (f, "--gpus 512 --tp 8 --sp --ep 32", &e4));
  g_assert_no_error (e4);
}

/* MoE parallel folding on h100-24k (8 GPUs per server), 64 GPUs, tp 2, etp 1, ep 8:
 * dense rank = tp + 2 dp (dp 32); expert rank = ep + 8 edp (etp 1, edp 8).
 *   EP group of rank 0: ranks 0..7, stride 1, one server.
 *   EDP group of rank 0: 0, 8, ..., 56: one member per server.
 *   dense DP group: stride 2, 32 members, 2 per server.
 * With etp 2 (tp 2): expert rank = etp + 2 (ep + 8 edp), edp = 64 / 16 = 4:
 *   ETP group {0, 1}; EP group 0, 2, ..., 14 (two servers, 4 members each);
 *   EDP group 0, 16, 32, 48; the etp x ep group 0..15. */
static void
test_folding (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (resolve (f, "--gpus 64 --tp 2 --sp --num-experts 8 --ep 8 --etp 1", &error));
  g_assert_no_error (error);
  g_autoptr (PlanLayout) lay = plan_layout_new (&f->plan, f->cluster, &error);
  g_assert_no_error (error);
  int m[64];
  g_assert_cmpint (lay->groups[PLAN_AXIS_EP].size, ==, 8);
  g_assert_cmpint (plan_layout_group_members (lay, PLAN_AXIS_EP, 5, m), ==, 5);
  for (int i = 0; i < 8; i++)
    g_assert_cmpint (m[i], ==, i);
  g_assert_cmpuint (lay->groups[PLAN_AXIS_EP].span_level, ==, 0);
  g_assert_cmpint (lay->groups[PLAN_AXIS_EP].members_per_unit[0], ==, 8);
  g_assert_cmpint (lay->groups[PLAN_AXIS_EDP].size, ==, 8);
  g_assert_cmpint (plan_layout_group_members (lay, PLAN_AXIS_EDP, 17, m), ==, 2);
  for (int i = 0; i < 8; i++)
    g_assert_cmpint (m[i], ==, 1 + 8 * i);
  g_assert_cmpint (lay->groups[PLAN_AXIS_EDP].members_per_unit[0], ==, 1);
  g_assert_cmpint (lay->groups[PLAN_AXIS_DP].size, ==, 32);
  g_assert_cmpint (lay->groups[PLAN_AXIS_DP].members_per_unit[0], ==, 4);
  /* colours: equal for exactly one group's members */
  g_assert_cmpint (plan_layout_group_color (lay, PLAN_AXIS_EP, 13), ==, 8);
  g_assert_cmpint (plan_layout_group_color (lay, PLAN_AXIS_EDP, 13), ==, 5);

  g_assert_true (resolve (f, "--gpus 64 --tp 2 --sp --num-experts 8 --ep 8", &error));
  g_assert_cmpint (f->plan.etp, ==, 2);
  g_assert_cmpint (f->plan.edp, ==, 4);
  g_autoptr (PlanLayout) l2 = plan_layout_new (&f->plan, f->cluster, &error);
  g_assert_no_error (error);
  plan_layout_group_members (l2, PLAN_AXIS_ETP, 0, m);
  g_assert_cmpint (m[0], ==, 0);
  g_assert_cmpint (m[1], ==, 1);
  g_assert_cmpint (plan_layout_group_members (l2, PLAN_AXIS_EP, 6, m), ==, 3);
  for (int i = 0; i < 8; i++)
    g_assert_cmpint (m[i], ==, 2 * i);
  g_assert_cmpint (l2->groups[PLAN_AXIS_EP].members_per_unit[0], ==, 4);
  g_assert_cmpuint (l2->groups[PLAN_AXIS_EP].span_level, >, 0);
  plan_layout_group_members (l2, PLAN_AXIS_EDP, 0, m);
  for (int i = 0; i < 4; i++)
    g_assert_cmpint (m[i], ==, 16 * i);
  g_assert_cmpint (l2->groups[PLAN_AXIS_EXPT].size, ==, 16);
  int e[4];
  plan_layout_expert_coord_of (l2, 37, e);   /* 37 = 1 + 2 (2 + 8 x 2) */
  g_assert_cmpint (e[PLAN_EXP_ETP], ==, 1);
  g_assert_cmpint (e[PLAN_EXP_EP], ==, 2);
  g_assert_cmpint (e[PLAN_EXP_EDP], ==, 2);
}

/* llama3-8b made 8 experts, all on one server (ep 8), grouped GEMMs, 8192 tokens: a
 * model with none of gpt-oss's expert ops */
#define LLAMA_MOE_EP8 "--gpus 8 --num-experts 8 --ep 8 --moe-grouped-gemm --seq-length 8192"
/* gpt-oss-120b on one server, ep 8, one micro-batch of 8192 tokens per rank */
#define GPT_OSS_EP8 "--gpus 8 --ep 8 --seq-length 8192 --micro-batch-size 1 " \
                    "--global-batch-size 8"

/* torchtitan's op-level selective AC (--recompute-granularity selective-op) on Llama 3 8B
 * (h 4096, 8 KV heads of 128: k width 1024, SwiGLU 14336), tp 1, 8192 tokens a
 * micro-batch: before each layer's backward the even matmuls run again, k, o and w3:
 *   2 T h (1024 + 4096 + 14336) = 2 x 8192 x 4096 x 19456 = 1,305,670,057,984 FLOP,
 * one recompute task per layer and micro-batch (32 in micro-batch 0), none of it model
 * FLOPs. An MoE plan is refused (dense layers only). */
static void
test_selective_op (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  ProgProgram *p = program_of (f, "--gpus 8 --seq-length 8192 --micro-batch-size 1 "
                               "--global-batch-size 8 --recompute-granularity selective-op");
  double gemm = 0;
  int blocks = 0;
  for (guint i = 0; i < p->blocks->len; i++)
    {
      const ProgBlock *b = &g_array_index (p->blocks, ProgBlock, i);
      if (g_strcmp0 (b->name, "sac_op_recompute") != 0)
        continue;
      blocks++;
      g_assert_cmpfloat (b->model_flops, ==, 0);
      for (guint k = b->first_op; k < b->first_op + b->n_ops; k++)
        {
          const ModelOp *op = &g_array_index (p->ops, ModelOp, k);
          if (op->kind == MODEL_OP_GEMM)
            gemm += op->fwd_flops;
        }
    }
  g_assert_cmpint (blocks, ==, 1);
  g_assert_cmpfloat (gemm, ==, 1305670057984.0);
  int n_rc = 0;
  for (guint i = 0; i < p->tasks->len; i++)
    {
      const ProgTask *t = prog_task (p, i);
      n_rc += t->kind == PROG_TASK_COMPUTE && t->phase == PROG_PHASE_RECOMPUTE && t->mb == 0;
    }
  g_assert_cmpint (n_rc, ==, 32);
  prog_program_free (p);

  g_assert_false (resolve (f, "--gpus 8 --num-experts 8 --moe-router-topk 2 "
                           "--expert-model-parallel-size 8 --recompute-granularity selective-op",
                           &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "selective-op"));
}

/* Sums the bytes of the collectives of (kind, axis) on the ep stream in micro-batch 0,
 * layer 0, forward; counts them in *n. */
static double
ep_bytes (const ProgProgram *p, PlanColl kind, PlanAxis axis, int *n)
{
  double bytes = 0;
  *n = 0;
  for (guint i = 0; i < p->tasks->len; i++)
    {
      const ProgTask *t = prog_task (p, i);
      if (t->kind != PROG_TASK_COLL || t->stream != PROG_STREAM_EP || t->mb != 0
          || t->layer != 0 || t->phase != PROG_PHASE_FORWARD)
        continue;
      g_assert_cmpint (t->comm, ==, PROG_COMM_EP);
      if (t->coll == kind && t->axis == axis)
        {
          bytes = t->bytes;
          (*n)++;
        }
    }
  return bytes;
}

/* The dispatch all-to-all per rank: T k h e x pace. seq 8192, mbs 1, tp 1: T = 8192
 * tokens; k = 2; h = 4096; bf16 e = 2: 8192 x 2 x 4096 x 2 = 134,217,728 bytes, with
 * one local expert (ep 8 of 8) and imbalance 1 the pace is 1. The combine is the same:
 * two all-to-alls per layer forward. With --moe-imbalance 1.5 (the busiest EP rank's tokens
 * over the mean) the busiest rank receives 1.5x: 201,326,592, whether it holds one local
 * expert (ep 8) or 4 (ep 2): the ratio is the rank's, not one expert's. tp 2 with SP and etp 2: T = 4096 per rank, the
 * all-to-all 4096 x 2 x 4096 x 2 = 67,108,864, then an all-gather over the 2 expert-TP
 * ranks of 2 x that = 134,217,728 (nccl-tests size: the output). */
static void
test_a2a_bytes (Fixture *f, gconstpointer data)
{
  int n;
  g_autoptr (ProgProgram) p = program_of (f, "--gpus 8 --num-experts 8 --ep 8 "
                                          "--seq-length 8192 --moe-imbalance 1");
  g_assert_cmpfloat (ep_bytes (p, PLAN_COLL_ALL_TO_ALL, PLAN_AXIS_EP, &n), ==, 134217728.0);
  g_assert_cmpint (n, ==, 2);
  g_assert_cmpint (p->moe.local_experts, ==, 1);
  g_assert_cmpuint (p->moe.tokens, ==, 8192);

  g_autoptr (ProgProgram) q = program_of (f, "--gpus 8 --num-experts 8 --ep 8 "
                                          "--seq-length 8192 --moe-imbalance 1.5");
  g_assert_cmpfloat (ep_bytes (q, PLAN_COLL_ALL_TO_ALL, PLAN_AXIS_EP, &n), ==, 201326592.0);
  g_autoptr (ProgProgram) r = program_of (f, "--gpus 8 --num-experts 8 --ep 2 "
                                          "--seq-length 8192 --moe-imbalance 1.5");
  g_assert_cmpfloat (ep_bytes (r, PLAN_COLL_ALL_TO_ALL, PLAN_AXIS_EP, &n), ==, 201326592.0);
  g_assert_cmpfloat (r->moe.pace, ==, 1.5);
  g_autoptr (ProgProgram) s = program_of (f, "--gpus 16 --tp 2 --sp --num-experts 8 --ep 8 "
                                          "--seq-length 8192 --moe-imbalance 1");
  g_assert_cmpfloat (ep_bytes (s, PLAN_COLL_ALL_TO_ALL, PLAN_AXIS_EP, &n), ==, 67108864.0);
  g_assert_cmpfloat (ep_bytes (s, PLAN_COLL_ALL_GATHER, PLAN_AXIS_ETP, &n), ==, 134217728.0);
  g_assert_cmpint (n, ==, 1);
  /* the all-gather dispatcher: every token of the 8 EP ranks gathered, 8 x 8192 x 4096
   * x 2 = 536,870,912, and no all-to-all */
  g_autoptr (ProgProgram) ag = program_of (f, "--gpus 8 --num-experts 8 --ep 8 "
                                           "--seq-length 8192 --moe-token-dispatcher-type "
                                           "allgather");
  g_assert_cmpfloat (ep_bytes (ag, PLAN_COLL_ALL_GATHER, PLAN_AXIS_EXPT, &n), ==, 536870912.0);
  ep_bytes (ag, PLAN_COLL_ALL_TO_ALL, PLAN_AXIS_EP, &n);
  g_assert_cmpint (n, ==, 0);
}

static const ProgBlock *
block_named (const ProgProgram *p, const char *name)
{
  for (guint i = 0; i < p->blocks->len; i++)
    if (g_str_equal (prog_block (p, i)->name, name))
      return prog_block (p, i);
  g_error ("no block %s", name);
  return NULL;
}

/* The experts' FLOPs. ep 8 of 8 experts, top-2, T = 8192: this rank's one expert takes
 * T k = 16,384 token copies on average; SwiGLU up/gate [16384, 4096] x [4096, 2 x 14336]
 * and down [16384, 14336] x [14336, 4096]: 2 x 16384 x 4096 x (28672 + 14336) =
 * 5,772,436,045,824 model FLOPs forward, twice that backward.
 * ep 2 (4 local experts) with --moe-grouped-gemm and the default imbalance 1.3 (busiest
 * rank / mean): the mean expert takes 16384 / 4 = 4096 tokens, each of the busiest rank's
 * 4 ceil (1.3 x 4096) = ceil (5324.8) = 5325; the up projection is one op of 4 GEMMs
 * [5325, 4096] x [4096, 28672] (2 x 5325 x 28672 x 4096 x 4 = 5,002,965,811,200 executed
 * FLOPs); the model FLOPs stay the mean's; without grouped GEMM, 4 single ops. */
static void
test_expert_gemms (Fixture *f, gconstpointer data)
{
  g_autoptr (ProgProgram) p = program_of (f, "--gpus 8 --num-experts 8 --ep 8 "
                                          "--seq-length 8192");
  const ProgBlock *fw = block_named (p, "moe_experts_fwd");
  g_assert_cmpfloat (fw->model_flops, ==, 5772436045824.0);
  g_assert_cmpfloat (block_named (p, "moe_experts_bwd")->model_flops, ==, 2 * 5772436045824.0);

  g_autoptr (ProgProgram) q = program_of (f, "--gpus 8 --num-experts 8 --ep 2 "
                                          "--seq-length 8192 --moe-grouped-gemm");
  fw = block_named (q, "moe_experts_fwd");
  /* the same T k copies per rank, now over 4 experts: the same FLOPs */
  g_assert_cmpfloat (fw->model_flops, ==, 5772436045824.0);
  /* after the all-to-all dispatcher's sort of the received chunks (4 local experts) */
  g_assert_cmpstr (g_array_index (q->ops, ModelOp, fw->first_op).name, ==, "moe_sort_chunks");
  const ModelOp *up = &g_array_index (q->ops, ModelOp, fw->first_op + 1);
  g_assert_cmpstr (up->name, ==, "expert_up");
  g_assert_cmpuint (up->b, ==, 4);
  g_assert_cmpuint (up->m, ==, 5325);
  g_assert_cmpuint (up->n, ==, 28672);
  g_assert_cmpuint (up->k, ==, 4096);
  g_assert_cmpfloat (up->fwd_flops, ==, 5002965811200.0);
  g_assert_cmpstr ((up + 1)->name, !=, "expert_up");   /* one grouped op for the 4 */

  g_autoptr (ProgProgram) r = program_of (f, "--gpus 8 --num-experts 8 --ep 2 "
                                          "--seq-length 8192");
  fw = block_named (r, "moe_experts_fwd");
  int gemms = 0;
  for (guint i = 0; i < fw->n_ops; i++)
    {
      const ModelOp *op = &g_array_index (r->ops, ModelOp, fw->first_op + i);
      if (op->kind == MODEL_OP_GEMM)
        {
          g_assert_cmpuint (op->b, ==, 1);
          gemms++;
        }
    }
  g_assert_cmpint (gemms, ==, 8);   /* up and down of 4 experts, one GEMM each */
}

/* Expert gradients are reduced over the expert data-parallel group: 64 GPUs, ep 8, etp 1
 * (edp 8), one local expert of 3 x 4096 x 14336 = 176,160,768 parameters per layer, fp32
 * gradients; the reductions on PLAN_AXIS_EDP carry 32 layers x 176,160,768 x 4 bytes =
 * 22,548,578,304 bytes in total. */
static void
test_expert_grads (Fixture *f, gconstpointer data)
{
  g_autoptr (ProgProgram) p = program_of (f, "--gpus 64 --num-experts 8 --ep 8 "
                                          "--seq-length 8192 --sharding zero1 "
                                          "--overlap-grad-reduce");
  double edp = 0;
  for (guint i = 0; i < p->tasks->len; i++)
    {
      const ProgTask *t = prog_task (p, i);
      if (t->kind == PROG_TASK_COLL && t->axis == PLAN_AXIS_EDP
          && t->coll == PLAN_COLL_REDUCE_SCATTER)
        {
          g_assert_cmpint (t->stream, ==, PROG_STREAM_DP);
          edp += t->bytes;
        }
    }
  g_assert_cmpfloat (edp, ==, 22548578304.0);
}

/* The plan of test_memory and test_zero3_memory (Mixtral 8x7B on 64 H100, pp 4, ep 8:
 * edp 2) under `sharding`, its memory in `mem`: stage 1, with its 8 layers. */
static const PlanMemStage *
mixtral_stage1 (Fixture *f, const char *sharding, PlanMemory *mem)
{
  g_autoptr (GError) error = NULL;
  use_model (f, "mixtral-8x7b");
  g_autofree char *flags = g_strdup_printf ("--gpus 64 --pp 4 --ep 8 --gbs 256 "
                                            "--seq-length 4096 --sharding %s", sharding);
  g_assert_true (resolve (f, flags, &error));
  g_assert_no_error (error);
  g_assert_cmpint (f->plan.edp, ==, 2);
  plan_memory_compute (f->model, &f->plan, f->cluster, mem);
  const PlanMemStage *st = &mem->stages[1];
  g_assert_cmpint (st->layers, ==, 8);
  return st;
}

/* Memory per GPU of Mixtral 8x7B (h 4096, 32 layers, 8 experts of ffn 14336, 32 heads,
 * 8 KV heads, vocab 32000, untied) on 64 H100 with pp 4, ep 8, etp 1, zero1: dp 16,
 * edp = 64 / 4 / 8 = 2. A middle stage (1) holds 8 layers and neither embedding nor head:
 *   dense per layer: q 4096^2 + k, v 2 x 4096 x 1024 + o 4096^2 = 41,943,040, norms
 *     2 x 4096, router 8 x 4096 = 32,768: 41,984,000; x 8 = 335,872,000
 *   experts: one per EP rank (8 / 8), 3 x 4096 x 14336 = 176,160,768; x 8 = 1,409,286,144
 *   params bf16: (335,872,000 + 1,409,286,144) x 2 = 3,490,316,288 bytes
 *   grads fp32: x 4 = 6,980,632,576
 *   optimizer (Adam m, v and fp32 master, 12 bytes), distributed over DP for the dense part
 *     and over EDP for the experts: 335,872,000 x 12 / 16 + 1,409,286,144 x 12 / 2 =
 *     251,904,000 + 8,455,716,864 = 8,707,620,864. */
static void
test_memory (Fixture *f, gconstpointer data)
{
  PlanMemory mem;
  const PlanMemStage *st = mixtral_stage1 (f, "zero1", &mem);
  g_assert_cmpuint (st->bytes[PLAN_MEM_PARAMS], ==, G_GUINT64_CONSTANT (3490316288));
  g_assert_cmpuint (st->bytes[PLAN_MEM_GRADS], ==, G_GUINT64_CONSTANT (6980632576));
  g_assert_cmpuint (st->bytes[PLAN_MEM_OPTIMIZER], ==, G_GUINT64_CONSTANT (8707620864));
  plan_memory_clear (&mem);
}

/* ZeRO-3 of an MoE model: llama3-8b with 8 experts on 64 GPUs, ep 8, seq 8192, gbs 128:
 * dp 64 (pp 1, tp 1, cp 1), edp = 64 / 8 = 8, 128 / 64 = 2 micro-batches, no recompute.
 * Each of the 32 layers gathers its parameters before its forward and its backward of
 * every micro-batch (2 x 2 = 4 gathers per layer) and reduce-scatters its gradients after
 * every backward (2 per layer):
 *   dense part over dp (64 ranks): attention 2 x 4096^2 + 2 x 4096 x 1024 = 41,943,040,
 *     norms 2 x 4096, router 8 x 4096: 41,984,000 elements, bf16 83,968,000 bytes:
 *     all-gathers 32 x 4 x 83,968,000 = 10,747,904,000 bytes
 *   experts over edp (8 ranks): one local expert, 3 x 4096 x 14336 = 176,160,768
 *     elements, bf16 352,321,536 bytes: all-gathers 32 x 4 x 352,321,536 =
 *     45,097,156,608 bytes; fp32 gradients 704,643,072 bytes: reduce-scatters
 *     32 x 2 x 704,643,072 = 45,097,156,608 bytes
 * and no bucketed reduction or post-optimizer gather on either group. */
static void
test_zero3_gathers (Fixture *f, gconstpointer data)
{
  g_autoptr (ProgProgram) p = program_of (f, "--gpus 64 --num-experts 8 --ep 8 "
                                          "--seq-length 8192 --gbs 128 --sharding zero3");
  double dp_ag = 0, edp_ag = 0, edp_rs = 0;
  int n_edp_ag = 0, n_edp_rs = 0;
  for (guint i = 0; i < p->tasks->len; i++)
    {
      const ProgTask *t = prog_task (p, i);
      if (t->kind != PROG_TASK_COLL || t->stream != PROG_STREAM_DP)
        continue;
      g_assert_cmpint (t->phase, !=, PROG_PHASE_OPTIMIZER);
      if (t->axis == PLAN_AXIS_DP && t->coll == PLAN_COLL_ALL_GATHER)
        dp_ag += t->bytes;
      if (t->axis == PLAN_AXIS_EDP && t->coll == PLAN_COLL_ALL_GATHER)
        {
          g_assert_cmpfloat (t->bytes, ==, 352321536.0);
          edp_ag += t->bytes;
          n_edp_ag++;
        }
      if (t->axis == PLAN_AXIS_EDP && t->coll == PLAN_COLL_REDUCE_SCATTER)
        {
          g_assert_cmpfloat (t->bytes, ==, 704643072.0);
          edp_rs += t->bytes;
          n_edp_rs++;
        }
      g_assert_cmpint (t->coll, !=, PLAN_COLL_ALL_REDUCE);
    }
  g_assert_cmpint (n_edp_ag, ==, 32 * 4);
  g_assert_cmpint (n_edp_rs, ==, 32 * 2);
  g_assert_cmpfloat (dp_ag, ==, 10747904000.0);
  g_assert_cmpfloat (edp_ag, ==, 45097156608.0);
  g_assert_cmpfloat (edp_rs, ==, 45097156608.0);
  /* every forward and backward of the experts waits for its layer's expert gather */
  for (guint i = 0; i < p->tasks->len; i++)
    {
      const ProgTask *t = prog_task (p, i);
      if (t->kind != PROG_TASK_COMPUTE || t->layer < 0)
        continue;
      const char *name = prog_block (p, t->block)->name;
      if (strcmp (name, "moe_experts_fwd") != 0 && strcmp (name, "moe_experts_bwd") != 0)
        continue;
      gboolean waits = FALSE;
      for (guint32 d = 0; d < t->n_deps; d++)
        {
          const ProgTask *dt = prog_task (p, prog_task_deps (p, t)[d]);
          waits |= dt->kind == PROG_TASK_COLL && dt->axis == PLAN_AXIS_EDP
                   && dt->coll == PLAN_COLL_ALL_GATHER && dt->layer == t->layer;
        }
      g_assert_true (waits);
    }
}

/* Memory of Mixtral 8x7B under ZeRO-3, the plan of test_memory (64 H100, pp 4, ep 8, dp 16,
 * edp 2, stage 1: 8 layers, no embedding or head), gbs 256, seq 4096, mbs 1, no SP:
 *   params bf16: the dense part over dp x cp = 16, the experts over edp = 2:
 *     335,872,000 x 2 / 16 + 1,409,286,144 x 2 / 2 = 41,984,000 + 1,409,286,144 =
 *     1,451,270,144
 *   grads fp32, the same groups: 335,872,000 x 4 / 16 + 1,409,286,144 x 4 / 2 =
 *     83,968,000 + 2,818,572,288 = 2,902,540,288
 *   optimizer: as under zero1, 8,707,620,864
 *   comm buffers: two gathered layers (the one running and the prefetched one), each its
 *     dense part and its expert, (41,984,000 + 176,160,768) x 2 bytes x 2 = 872,579,072;
 *     one gradient bucket before its reduce-scatter, 40M elements x 4 = 160,000,000; the
 *     pipeline's send and receive buffers 2 x 2 x 4096 x 4096 = 67,108,864:
 *     1,099,687,936.
 * Before this plan was refused ("zero3 sharding of a mixture-of-experts model is not
 * modelled"); HSDP still is, with the rule. */
static void
test_zero3_memory (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  PlanMemory mem;
  const PlanMemStage *st = mixtral_stage1 (f, "zero3", &mem);
  g_assert_cmpuint (st->bytes[PLAN_MEM_PARAMS], ==, G_GUINT64_CONSTANT (1451270144));
  g_assert_cmpuint (st->bytes[PLAN_MEM_GRADS], ==, G_GUINT64_CONSTANT (2902540288));
  g_assert_cmpuint (st->bytes[PLAN_MEM_OPTIMIZER], ==, G_GUINT64_CONSTANT (8707620864));
  g_assert_cmpuint (st->bytes[PLAN_MEM_COMM_BUFFERS], ==, G_GUINT64_CONSTANT (1099687936));
  plan_memory_clear (&mem);

  g_assert_false (resolve (f, "--gpus 64 --pp 4 --ep 8 --gbs 256 --seq-length 4096 "
                           "--sharding hsdp:8", &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "hsdp sharding of a mixture-of-experts model "
                                            "does not fold"));
  g_assert_null (strchr (error->message, '\n'));
}

/* The MoE activations are the busiest EP rank's (plan/memory.c moe_layer_acts: X = R etp T
 * k routed copies, R = --moe-imbalance): llama3-8b made 8 experts top-2, 8 GPUs, seq 8192,
 * mbs 1, pp 1 (one micro-batch in flight), bf16 (a = g = 2 bytes): the same R gives the same
 * bytes with one local expert (ep 8) or four (ep 2), the ratio being the rank's. R 1.5 over
 * 1.0 adds 0.5 x T k = 8,192 copies per layer of g h + a 2 f + g f = 2 x 4096 + 2 x 2 x
 * 14336 + 2 x 14336 = 94,208 bytes: 771,751,936 a layer, x 32 layers = 24,696,061,952. */
static void
test_imbalance_memory (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  guint64 act[3];
  const char *flags[3] = {
    "--gpus 8 --num-experts 8 --ep 8 --seq-length 8192 --moe-imbalance 1.5",
    "--gpus 8 --num-experts 8 --ep 2 --seq-length 8192 --moe-imbalance 1.5",
    "--gpus 8 --num-experts 8 --ep 2 --seq-length 8192 --moe-imbalance 1",
  };
  for (int i = 0; i < 3; i++)
    {
      g_assert_true (resolve (f, flags[i], &error));
      g_assert_no_error (error);
      PlanMemory mem;
      plan_memory_compute (f->model, &f->plan, f->cluster, &mem);
      act[i] = mem.stages[0].bytes[PLAN_MEM_ACTIVATIONS];
      plan_memory_clear (&mem);
    }
  g_assert_cmpuint (act[0], ==, act[1]);
  g_assert_cmpuint (act[1] - act[2], ==, G_GUINT64_CONSTANT (24696061952));
}

/* DeepSeek-V3's low-precision storage and communication (report Sec. 3.3.3; the hai-llm
 * stack's fp8 keys, plan.h fp8_moe_act_input, fp8_attn_out_e5m6, fp8_moe_dispatch) on
 * llama3-8b made 8 experts top-2, 8 GPUs, ep 8, seq 8192, mbs 1, balanced, FP8 GEMMs:
 * T = 8192, X = T k = 16,384 routed copies, f = 14336, h = hq = 4096, 32 layers, one
 * micro-batch in flight (pp 1).
 *  - SwiGLU input (the experts' fc1 output, 2 f per copy) in FP8 with 1x128 scales:
 *    1 + 4/128 = 1.03125 B per element instead of 2: X 2 f = 469,762,048 elements, saving
 *    0.96875 x that = 455,081,984 B a layer, 14,562,623,488 over 32 layers.
 *  - the out-projection input (T hq = 33,554,432 elements) in E5M6 with 1x128 scales,
 *    one copy that the attention's backward reads too: 1.5 B + 1/32 B = 50,331,648 +
 *    1,048,576 = 51,380,224, instead of the out-projection's FP8 copy 33,554,432 +
 *    1,048,576 = 34,603,008 plus the bf16 output the core keeps for its own backward
 *    2 x 33,554,432 = 67,108,864 (101,711,872): 50,331,648 less a layer, 1,610,612,736
 *    over 32.
 *  - the dispatch all-to-all in FP8: T k h = 67,108,864 elements x 1.03125 = 69,206,016 B
 *    instead of x 2 = 134,217,728; the combine stays 134,217,728. */
static void
test_fp8_deepseek_storage (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  const char *flags = "--gpus 8 --num-experts 8 --ep 8 --seq-length 8192 --moe-imbalance 1 "
                      "--precision fp8 --recompute-modules moe_act";
  guint64 act[3];
  for (int i = 0; i < 3; i++)
    {
      g_assert_true (resolve (f, flags, &error));
      g_assert_no_error (error);
      f->plan.fp8_moe_act_input = i == 1;
      f->plan.fp8_attn_out_e5m6 = i == 2;
      PlanMemory mem;
      plan_memory_compute (f->model, &f->plan, f->cluster, &mem);
      act[i] = mem.stages[0].bytes[PLAN_MEM_ACTIVATIONS];
      plan_memory_clear (&mem);
    }
  g_assert_cmpuint (act[0] - act[1], ==, G_GUINT64_CONSTANT (14562623488));
  g_assert_cmpuint (act[0] - act[2], ==, G_GUINT64_CONSTANT (1610612736));

  int n;
  g_autoptr (ProgProgram) p = program_of (f, flags);
  g_assert_cmpfloat (ep_bytes (p, PLAN_COLL_ALL_TO_ALL, PLAN_AXIS_EP, &n), ==, 134217728.0);
  g_assert_true (resolve (f, flags, &error));
  f->plan.fp8_moe_dispatch = 1;
  g_autoptr (ProgProgram) q = fixture_program (f);
  /* layer 0's forward: the dispatch first, then the combine */
  double first = -1, second = -1;
  for (guint i = 0; i < q->tasks->len; i++)
    {
      const ProgTask *t = prog_task (q, i);
      if (t->kind != PROG_TASK_COLL || t->stream != PROG_STREAM_EP || t->mb != 0
          || t->layer != 0 || t->phase != PROG_PHASE_FORWARD
          || t->coll != PLAN_COLL_ALL_TO_ALL)
        continue;
      if (first < 0)
        first = t->bytes;
      else
        second = t->bytes;
    }
  g_assert_cmpfloat (first, ==, 69206016.0);
  g_assert_cmpfloat (second, ==, 134217728.0);
  /* a bf16 plan ignores the FP8 keys */
  g_assert_true (resolve (f, "--gpus 8 --num-experts 8 --ep 8 --seq-length 8192 "
                             "--moe-imbalance 1", &error));
  f->plan.fp8_moe_dispatch = 1;
  g_autoptr (PlanLayout) lay2 = plan_layout_new (&f->plan, f->cluster, &error);
  g_autoptr (ProgProgram) r = prog_program_new (f->model, &f->plan, lay2, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (ep_bytes (r, PLAN_COLL_ALL_TO_ALL, PLAN_AXIS_EP, &n), ==, 134217728.0);
}

/* Multi-head latent attention in the step program: DeepSeek-V3 (h 7168, 128 heads,
 * q_lora 1536, kv_lora 512, rope 64, nope 128, v 128), tp 1, seq 4096, mbs 1: T = 4096.
 * The forward projections of one layer, h x q_lora (11,010,048) + q_lora x 128 x 192
 * (37,748,736) + h x (512 + 64) (4,128,768) + 512 x 128 x 256 (16,777,216) + 128 x 128 x h
 * (117,440,512) = 187,105,280 weights, which is the model's attention_per_layer less the two
 * latent RMSNorms (1536 + 512): 2 T x 187,105,280 = 1,532,766,453,760 FLOPs. The
 * attention core, QK^T over 192 and AV over 128 per head, causal: 2 x 4096^2 x 128 x
 * (192 + 128) / 2 = 687,194,767,360. The block: 2,219,961,221,120. */
static void
test_mla (Fixture *f, gconstpointer data)
{
  use_model (f, "deepseek-v3");
  g_autoptr (ProgProgram) p = program_of (f, "--gpus 8 --ep 8 --seq-length 4096");
  const ProgBlock *attn = block_named (p, "attn_fwd");
  double gemm_weights = 0;
  for (guint i = 0; i < attn->n_ops; i++)
    {
      const ModelOp *op = &g_array_index (p->ops, ModelOp, attn->first_op + i);
      if (op->kind == MODEL_OP_GEMM)
        gemm_weights += (double) op->n * (double) op->k;
    }
  ModelParams mp;
  model_spec_params (f->model, &mp);
  g_assert_cmpfloat (gemm_weights, ==, 187105280.0);
  g_assert_cmpfloat (gemm_weights, ==, (double) mp.attention_per_layer - 1536 - 512);
  g_assert_cmpfloat (attn->model_flops, ==, 2219961221120.0);
  /* 256 experts on 8 EP ranks: 32 local; 3 leading dense layers */
  g_assert_cmpint (p->moe.local_experts, ==, 32);
  g_assert_cmpint (p->moe.first_dense, ==, 3);
}

/* A linear-attention mixer block split by TP: the in projection `in_n` wide, the out
 * projection `out_k` deep, the core's heads and key (or group) heads; each op present. */
static void
assert_mixer_split (const ProgProgram *p, const ProgBlock *blk, const char *in_proj,
                    guint64 in_n, const char *out, guint64 out_k, guint64 heads,
                    guint64 kv_heads)
{
  gboolean seen_in = FALSE, seen_out = FALSE, seen_core = FALSE;
  for (guint i = 0; i < blk->n_ops; i++)
    {
      const ModelOp *op = &g_array_index (p->ops, ModelOp, blk->first_op + i);
      if (g_str_equal (op->name, in_proj))
        {
          seen_in = TRUE;
          g_assert_cmpuint (op->n, ==, in_n);
        }
      if (g_str_equal (op->name, out))
        {
          seen_out = TRUE;
          g_assert_cmpuint (op->k, ==, out_k);
        }
      if (op->kind == MODEL_OP_GDN)
        {
          seen_core = TRUE;
          g_assert_cmpuint (op->heads, ==, heads);
          g_assert_cmpuint (op->kv_heads, ==, kv_heads);
        }
    }
  g_assert_true (seen_in && seen_out && seen_core);
}

/* Nemotron-H 8B on 8 GPUs (dp 8, one sequence of 8192 per micro-batch): each layer of
 * its pattern runs one block, its Mamba layers the mamba blocks, its attention layers the
 * attention, its MLP layers the MLP.
 *   mamba_fwd GEMM weights: in_proj 4096 x (2 x 8192 + 2 x 8 x 128 + 128) = 76,021,760 +
 *     out_proj 8192 x 4096 = 33,554,432 = 109,576,192 (the mixer's 109,635,968 less the
 *     conv 51,200, dt_bias + A_log + D 384, gated norm 8192); model FLOPs 2 x 8192 x
 *     109,576,192 + 8192 x 6,569,984 (the SSD scan, model_spec_mamba_scan_flops);
 *     backward 2x;
 *   tasks per micro-batch: 24 mamba_fwd, 4 attn_fwd, 24 mlp_fwd computes, each on a
 *     layer of its kind;
 *   tp 2: 64 heads and 4 groups per rank, in_proj 2 x 4096 + 2 x 512 + 64 = 9280 wide,
 *     out_proj 4096 x 4096, the FLOPs halve;
 *   --cp 2 is refused (Megatron's Mamba CP is all-to-all, not modelled). */
static void
test_mamba (Fixture *f, gconstpointer data)
{
  use_model (f, "nemotron-h-8b");
  g_autoptr (ProgProgram) p = program_of (f, "--gpus 8 --seq-length 8192 "
                                          "--global-batch-size 8");
  const ProgBlock *mb = block_named (p, "mamba_fwd");
  double gemm_weights = 0;
  gboolean scan = FALSE;
  for (guint i = 0; i < mb->n_ops; i++)
    {
      const ModelOp *op = &g_array_index (p->ops, ModelOp, mb->first_op + i);
      if (op->kind == MODEL_OP_GEMM)
        gemm_weights += (double) op->n * (double) op->k;
      if (op->kind == MODEL_OP_GDN)
        {
          scan = TRUE;
          g_assert_cmpstr (op->name, ==, "mamba_scan");
          g_assert_cmpuint (op->heads, ==, 128);
          g_assert_cmpuint (op->kv_heads, ==, 8);
          g_assert_cmpuint (op->head_dim, ==, 128);
          g_assert_cmpuint (op->head_dim_v, ==, 64);
          g_assert_cmpuint (op->chunk, ==, 128);
        }
    }
  g_assert_true (scan);
  g_assert_cmpfloat (gemm_weights, ==, 109576192.0);
  const double mf = 2.0 * 8192 * 109576192.0 + 8192.0 * 6569984.0;
  g_assert_cmpfloat (fabs (mb->model_flops / mf - 1.0), <, 1e-12);
  g_assert_cmpfloat (fabs (block_named (p, "mamba_bwd")->model_flops / (2 * mf) - 1.0), <,
                     1e-12);
  int n_mamba = 0, n_attn = 0, n_mlp = 0;
  for (guint i = 0; i < p->tasks->len; i++)
    {
      const ProgTask *t = &g_array_index (p->tasks, ProgTask, i);
      if (t->kind != PROG_TASK_COMPUTE || t->phase != PROG_PHASE_FORWARD)
        continue;
      const char *name = prog_block (p, t->block)->name;
      const char kind = model_spec_layer_kind (f->model, (guint64) t->layer);
      if (g_str_equal (name, "mamba_fwd"))
        {
          n_mamba++;
          g_assert_cmpint (kind, ==, 'M');
        }
      else if (g_str_equal (name, "attn_fwd"))
        {
          n_attn++;
          g_assert_cmpint (kind, ==, '*');
        }
      else if (g_str_equal (name, "mlp_fwd"))
        {
          n_mlp++;
          g_assert_cmpint (kind, ==, '-');
        }
    }
  g_assert_cmpint (n_mamba, ==, 24);
  g_assert_cmpint (n_attn, ==, 4);
  g_assert_cmpint (n_mlp, ==, 24);

  g_autoptr (ProgProgram) t2 = program_of (f, "--gpus 8 --tp 2 --sequence-parallel "
                                           "--seq-length 8192 --global-batch-size 4");
  const ProgBlock *m2 = block_named (t2, "mamba_fwd");
  assert_mixer_split (t2, m2, "mamba_in_proj", 9280, "mamba_out", 4096, 64, 4);
  g_assert_cmpfloat (fabs (m2->model_flops / (mf / 2) - 1.0), <, 1e-12);

  g_autoptr (GError) e = NULL;
  g_assert_false (resolve (f, "--gpus 8 --cp 2 --seq-length 8192", &e));
  g_assert_nonnull (strstr (e->message, "Mamba-2"));
}

/* Qwen3-Next-80B-A3B on 8 GPUs (ep 8, pp 1, one sequence of 4096 per micro-batch): its
 * GDN layers run the gdn blocks, its every-4th layers the gated attention.
 *   gdn_fwd GEMM weights: in projection 2048 x (2 x 2048 + 2 x 4096 + 64) = 25,296,896 +
 *     out projection 4096 x 2048 = 8,388,608 = 33,685,504 (the mixer's 33,718,464 less
 *     the conv 32,768, dt_bias + A_log 64, norm 128); model FLOPs 2 x 4096 x 33,685,504 +
 *     4096 x 32 x (6 x 128^2 + 2 x 64 x 640 + 64^2 / 3) (the delta rule); backward 2x;
 *   attn_fwd qkv: n = (16 + 2 x 2) x 256 + the gate's 16 x 256 = 9216;
 *   tasks: per micro-batch 36 gdn_fwd and 12 attn_fwd computes;
 *   tp 2: every width and the FLOPs halve (heads split, tokens whole);
 *   --cp 2 is refused (the GDN state runs along the sequence). */
static void
test_gdn (Fixture *f, gconstpointer data)
{
  use_model (f, "qwen3-next-80b-a3b");
  g_autoptr (ProgProgram) p = program_of (f, "--gpus 8 --ep 8 --seq-length 4096 "
                                          "--global-batch-size 8");
  const ProgBlock *gdn = block_named (p, "gdn_fwd");
  double gemm_weights = 0;
  gboolean core = FALSE;
  for (guint i = 0; i < gdn->n_ops; i++)
    {
      const ModelOp *op = &g_array_index (p->ops, ModelOp, gdn->first_op + i);
      if (op->kind == MODEL_OP_GEMM)
        gemm_weights += (double) op->n * (double) op->k;
      if (op->kind == MODEL_OP_GDN)
        {
          core = TRUE;
          g_assert_cmpuint (op->heads, ==, 32);
          g_assert_cmpuint (op->kv_heads, ==, 16);
          g_assert_cmpuint (op->s_q, ==, 4096);
          g_assert_cmpuint (op->chunk, ==, 64);
        }
    }
  g_assert_true (core);
  g_assert_cmpfloat (gemm_weights, ==, 33685504.0);
  const double mf = 2.0 * 4096 * 33685504.0 + 4096.0 * 32 * (98304.0 + 81920.0 + 4096.0 / 3);
  g_assert_cmpfloat (fabs (gdn->model_flops / mf - 1.0), <, 1e-12);
  g_assert_cmpfloat (fabs (block_named (p, "gdn_bwd")->model_flops / (2 * mf) - 1.0), <, 1e-12);
  const ProgBlock *attn = block_named (p, "attn_fwd");
  const ModelOp *qkv = &g_array_index (p->ops, ModelOp, attn->first_op + 1);
  g_assert_cmpstr (qkv->name, ==, "qkv");
  g_assert_cmpuint (qkv->n, ==, 9216);
  int n_gdn = 0, n_attn = 0;
  for (guint i = 0; i < p->tasks->len; i++)
    {
      const ProgTask *t = &g_array_index (p->tasks, ProgTask, i);
      if (t->kind != PROG_TASK_COMPUTE || t->phase != PROG_PHASE_FORWARD)
        continue;
      const char *name = prog_block (p, t->block)->name;
      n_gdn += g_str_equal (name, "gdn_fwd");
      n_attn += g_str_equal (name, "attn_fwd");
      if (g_str_equal (name, "gdn_fwd"))
        g_assert_true (model_spec_layer_is_linear (f->model, (guint64) t->layer));
    }
  g_assert_cmpint (n_gdn, ==, 36);
  g_assert_cmpint (n_attn, ==, 12);

  /* tp 2 with SP splits the heads: 16 value and 8 key heads per rank, in projection
   * 2 x 1024 + 2 x 2048 + 2 x 16 = 6176 wide, out projection 2048 x 2048 */
  g_autoptr (ProgProgram) t2 = program_of (f, "--gpus 8 --tp 2 --sequence-parallel --ep 4 "
                                           "--seq-length 4096 --global-batch-size 4");
  const ProgBlock *g2 = block_named (t2, "gdn_fwd");
  assert_mixer_split (t2, g2, "gdn_in_proj", 6176, "gdn_out", 2048, 16, 8);
  g_assert_cmpfloat (fabs (g2->model_flops / (mf / 2) - 1.0), <, 1e-12);

  g_autoptr (GError) e = NULL;
  g_assert_false (resolve (f, "--gpus 8 --ep 8 --cp 2 --seq-length 4096", &e));
  g_assert_nonnull (strstr (e->message, "Gated DeltaNet"));
}

/* --cuda-graph-impl / --cuda-graph-scope (Megatron-Core's names): the scope list reads
 * into bits; the MoE layer counts as captured with scope moe, full_iteration, or no scope
 * (Megatron's default: the whole layer), not with attn / moe_router / moe_preprocess,
 * which leave the experts eager; the plan string marks a captured MoE layer (-cgmoe), the
 * plan JSON's "moe" section keeps both options and reads them back, and a scope without
 * an implementation, full_iteration outside the local implementation, or an unknown name
 * are refused with one line. */
static void
test_cuda_graphs (Fixture *f, gconstpointer data)
{
  const char *moe = "--gpus 8 --num-experts 8 --ep 8 ";
  g_autoptr (GError) error = NULL;
  g_autofree char *partial = g_strconcat (moe, "--cuda-graph-impl transformer_engine "
                                          "--cuda-graph-scope attn,moe_router,moe_preprocess",
                                          NULL);
  g_assert_true (resolve (f, partial, &error));
  g_assert_no_error (error);
  g_assert_cmpint (f->plan.cuda_graph_impl, ==, PLAN_CG_IMPL_TRANSFORMER_ENGINE);
  g_assert_cmpuint (f->plan.cuda_graph_scope, ==,
                    PLAN_CG_ATTN | PLAN_CG_MOE_ROUTER | PLAN_CG_MOE_PREPROCESS);
  g_assert_false (plan_cuda_graph_moe (&f->plan));
  g_autofree char *s1 = plan_to_string (&f->plan);
  g_assert_null (strstr (s1, "-cgmoe"));

  static const char *const captured[] = {
    "--cuda-graph-impl transformer_engine --cuda-graph-scope moe",
    "--cuda-graph-impl local --cuda-graph-scope full_iteration",
    "--cuda-graph-impl local" };
  for (guint i = 0; i < G_N_ELEMENTS (captured); i++)
    {
      g_autofree char *flags = g_strconcat (moe, captured[i], NULL);
      g_assert_true (resolve (f, flags, &error));
      g_assert_no_error (error);
      g_assert_true (plan_cuda_graph_moe (&f->plan));
      g_autofree char *s = plan_to_string (&f->plan);
      g_assert_nonnull (strstr (s, "-cgmoe"));
    }

  /* the stored plan's "training" section reads back (a dense plan's CUDA graphs went
   * nowhere when they were kept under "moe") */
  g_autofree char *flags = g_strconcat (moe, "--cuda-graph-impl transformer_engine "
                                        "--cuda-graph-scope attn,moe", NULL);
  g_assert_true (resolve (f, flags, &error));
  g_autoptr (JsonBuilder) b = json_builder_new ();
  plan_to_json (&f->plan, b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  JsonObject *sec = json_object_get_object_member (json_node_get_object (root), "training");
  g_assert_cmpstr (json_object_get_string_member (sec, "cuda_graph_impl"), ==,
                   "transformer_engine");
  g_assert_cmpstr (json_object_get_string_member (sec, "cuda_graph_scope"), ==, "attn,moe");
  g_autoptr (JsonNode) wrapn = json_node_new (JSON_NODE_OBJECT);
  g_autoptr (JsonObject) wrap = json_object_new ();
  json_object_set_member (wrap, "training", json_node_copy (json_object_get_member (
                                              json_node_get_object (root), "training")));
  json_node_set_object (wrapn, wrap);
  g_autofree char *text = json_to_string (wrapn, FALSE);
  Plan q;
  plan_init_defaults (&q);
  g_assert_true (plan_load_json_data (&q, text, -1, "round-trip.json", &error));
  g_assert_no_error (error);
  g_assert_cmpint (q.cuda_graph_impl, ==, PLAN_CG_IMPL_TRANSFORMER_ENGINE);
  g_assert_cmpuint (q.cuda_graph_scope, ==, PLAN_CG_ATTN | PLAN_CG_MOE);
  plan_clear (&q);

  static const struct { const char *flags, *message; } bad[] = {
    { "--cuda-graph-scope moe", "--cuda-graph-scope needs CUDA graphs" },
    { "--cuda-graph-impl transformer_engine --cuda-graph-scope full_iteration",
      "full_iteration is captured by the local implementation only" },
    { "--cuda-graph-impl local --cuda-graph-scope mamba", "unknown --cuda-graph-scope 'mamba'" },
    { "--cuda-graph-impl tensorrt", "unknown --cuda-graph-impl 'tensorrt'" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) e = NULL;
      g_autofree char *bf = g_strconcat (moe, bad[i].flags, NULL);
      g_assert_false (resolve (f, bf, &e));
      g_assert_nonnull (e);
      if (strstr (e->message, bad[i].message) == NULL)
        g_error ("%s: expected '%s' in '%s'", bad[i].flags, bad[i].message, e->message);
      g_assert_null (strchr (e->message, '\n'));
    }
}

/* The length one attention kernel call runs at (ModelOp kernel_s), which sets its
 * efficiency (sim/cost.c ATTN_LEN_*): Llama 3 8B, 32768 tokens over cp 4: a ring step's
 * block s/c = 8192 (p2p), an all-gathered chunk's s/2c = 4096 queries (two load-balanced
 * chunks per rank), Ulysses' whole sequence 32768; without CP the sequence. */
static guint64
attn_kernel_s (Fixture *f, const char *flags)
{
  g_autoptr (ProgProgram) p = program_of (f, flags);
  for (guint i = 0; i < p->ops->len; i++)
    {
      const ModelOp *op = &g_array_index (p->ops, ModelOp, i);
      if (op->kind == MODEL_OP_ATTENTION)
        return op->kernel_s;
    }
  g_assert_not_reached ();
  return 0;
}

static void
test_attention_kernel_length (Fixture *f, gconstpointer data)
{
  const char *base = "--gpus 8 --seq-length 32768 --micro-batch-size 1 --global-batch-size 8";
  g_autofree char *p2p = g_strdup_printf ("%s --context-parallel-size 4 --cp-comm-type p2p", base);
  g_autofree char *ag = g_strdup_printf ("%s --context-parallel-size 4 --cp-comm-type all_gather",
                                         base);
  g_autofree char *a2a = g_strdup_printf ("%s --context-parallel-size 4 --cp-comm-type a2a", base);
  g_assert_cmpuint (attn_kernel_s (f, p2p), ==, 8192);
  g_assert_cmpuint (attn_kernel_s (f, ag), ==, 4096);
  g_assert_cmpuint (attn_kernel_s (f, a2a), ==, 32768);
  g_assert_cmpuint (attn_kernel_s (f, base), ==, 32768);
}

/* PyTorch's context_parallel (plan.h cp_ring_merge; torchtitan): Llama 3 8B (32 heads, 8
 * KV heads of 128), 32768 tokens over cp 4 with all-gathered K/V, tp 1: each rank holds
 * 8192 tokens. The ring loop runs as p2p's: kernel length s/c = 8192 and (c - 1)/c = 3/4
 * of the FLOPs unmasked (against 4096 and none for TE's chunked all-gather); its first
 * step, which does not wait for the all-gather, is a block of its own (1/4 of the FLOPs,
 * causal), the other three steps the core (3/4, unmasked). Merges
 * (cp_merge_ops), Eq = 8192 x 32 x 128 = 33,554,432 query elements:
 *   forward (c - 1) x 10 Eq = 3 x 335,544,320 = 1,006,632,960 B (the recomputed forward
 *     the same);
 *   backward c (10 Eq + 20 Ekv): K/V repeated to the 32 heads (Ekv = Eq) 4 x 30 x
 *     33,554,432 = 4,026,531,840 B; at the 8 KV heads Ekv = 8,388,608, 4 x (335,544,320 +
 *     167,772,160) = 2,013,265,920 B.
 * The backward's K/V-gradient ring moves the fp32 sums c times, 2 x kv_bytes each, kv_bytes
 * = 2 (K, V) x 8192 x 32 x 128 x 2 B = 33,554,432 x 4 = 134,217,728 (repeated): the first
 * c - 1 beside the core, 3 x 2 x 134,217,728 = 805,306,368 B, the last after it,
 * 268,435,456 B (at the 8 KV heads a quarter: 201,326,592 and 67,108,864); the all-gather
 * c x kv_bytes = 536,870,912 B (134,217,728), which the core no longer waits for. */
static ProgProgram *
cp_program (Fixture *f, int merge, int repeated)
{
  g_autoptr (GError) error = NULL;
  if (!resolve (f, "--gpus 8 --seq-length 32768 --micro-batch-size 1 --global-batch-size 8 "
                "--context-parallel-size 4 --cp-comm-type all_gather "
                "--recompute-granularity full", &error))
    g_error ("%s", error->message);
  f->plan.cp_ring_merge = merge;
  f->plan.cp_kv_repeated = repeated;
  return fixture_program (f);
}

static void
test_cp_ring_merge (Fixture *f, gconstpointer data)
{
  for (int repeated = 0; repeated <= 1; repeated++)
    {
      g_autoptr (ProgProgram) p = cp_program (f, 1, repeated);
      int attn = 0, merge = 0, merge_grad = 0, first = 0, rest = 0;
      for (guint k = 0; k < p->blocks->len; k++)
        {
          const ProgBlock *blk = &g_array_index (p->blocks, ProgBlock, k);
          for (guint i = blk->first_op; i < blk->first_op + blk->n_ops; i++)
            {
              const ModelOp *op = &g_array_index (p->ops, ModelOp, i);
              if (op->kind != MODEL_OP_ATTENTION || blk->phase != PROG_PHASE_FORWARD)
                continue;
              /* the forward's 2 x 32 x 8192 x 32768 x 256 / 2 = 2,199,023,255,552 causal FLOPs:
               * a quarter in the first step, causal; three quarters unmasked after it */
              if (g_str_equal (blk->name, "attn_core_first_fwd"))
                {
                  g_assert_cmpfloat (op->noncausal_share, ==, 0.0);
                  g_assert_cmpfloat (fabs (op->fwd_flops - 2199023255552.0 / 4), <, 1e3);
                  first++;
                }
              else if (g_str_equal (blk->name, "attn_core_fwd"))
                {
                  g_assert_cmpfloat (op->noncausal_share, ==, 1.0);
                  g_assert_cmpfloat (fabs (op->fwd_flops - 2199023255552.0 * 3 / 4), <, 1e3);
                  rest++;
                }
            }
        }
      g_assert_cmpint (first, ==, 1);
      g_assert_cmpint (rest, ==, 1);
      for (guint i = 0; i < p->ops->len; i++)
        {
          const ModelOp *op = &g_array_index (p->ops, ModelOp, i);
          if (op->kind == MODEL_OP_ATTENTION)
            {
              g_assert_cmpuint (op->kernel_s, ==, 8192);
              g_assert_true (op->noncausal_share == 0.75 || op->noncausal_share == 0.0
                             || op->noncausal_share == 1.0);
              attn++;
            }
          else if (op->name != NULL && g_str_equal (op->name, "cp_merge"))
            {
              g_assert_cmpuint (op->elements, ==, 1006632960);
              merge++;
            }
          else if (op->name != NULL && g_str_equal (op->name, "cp_merge_grad"))
            {
              g_assert_cmpuint (op->elements, ==, repeated ? 4026531840u : 2013265920u);
              merge_grad++;
            }
        }
      g_assert_cmpint (attn, >, 0);
      /* the core's forward, its selective-recompute copy, the core's backward */
      g_assert_cmpint (merge, ==, 2);
      g_assert_cmpint (merge_grad, ==, 1);
      gboolean ag_seen = FALSE;
      int n_beside = 0, n_after = 0;
      for (guint i = 0; i < p->tasks->len; i++)
        {
          const ProgTask *t = &g_array_index (p->tasks, ProgTask, i);
          if (t->kind != PROG_TASK_COLL || t->stream != PROG_STREAM_CP)
            continue;
          if (t->coll == PLAN_COLL_SEND_RECV)
            {
              const double r = repeated ? 4.0 : 1.0;
              if (t->bytes == r * 201326592.0)
                n_beside++;
              else if (t->bytes == r * 67108864.0)
                n_after++;
              else
                g_error ("unexpected K/V-gradient ring of %g B", t->bytes);
            }
          else if (t->coll == PLAN_COLL_ALL_GATHER)
            {
              g_assert_cmpfloat (t->bytes, ==, repeated ? 536870912.0 : 134217728.0);
              ag_seen = TRUE;
            }
          else
            g_assert_not_reached ();   /* no reduce-scatter of dK/dV as TE's */
        }
      /* one of each per layer backward */
      g_assert_cmpint (n_beside, >, 0);
      g_assert_cmpint (n_beside, ==, n_after);
      g_assert_true (ag_seen);
    }
  /* off (TE's chunked all-gather): no merges, chunks of s/2c = 4096, all causal */
  g_autoptr (ProgProgram) p = cp_program (f, 0, 0);
  for (guint i = 0; i < p->ops->len; i++)
    {
      const ModelOp *op = &g_array_index (p->ops, ModelOp, i);
      g_assert_false (op->name != NULL && g_str_has_prefix (op->name, "cp_merge"));
      if (op->kind == MODEL_OP_ATTENTION)
        {
          g_assert_cmpuint (op->kernel_s, ==, 4096);
          g_assert_cmpfloat (op->noncausal_share, ==, 0.0);
        }
    }
}

/* The ring's waits under torch.compile (plan/program.c cp_traced_waits): traced, a
 * functional collective is waited where it is issued (torch/distributed/
 * _functional_collectives.py _maybe_wrap_tensor), so in the compiled ring the first step
 * waits for the K/V all-gather, forward (and its recomputed copy) and backward, and the
 * later steps' backward for the K/V-gradient permutes; eager, the first step runs beside
 * the all-gather and the later steps' backward beside the permutes. The cp_program above
 * (32 layers, full recompute; global batch 8 over dp 8 / 4 = 2, so 4 micro-batches of 1):
 * per layer and micro-batch 1 forward + 1 recomputed forward + 1 backward first step, so
 * 3 x 32 x 4 = 384 first-step tasks, each with the all-gather issued for it among its
 * dependencies only when compiled; 32 x 4 = 128 later-step backward cores,
 * each depending on the c - 1 = 3 permutes (805,306,368 B with the repeated heads, as
 * above) only when compiled, on the all-gather otherwise. */
static void
test_cp_traced_waits (Fixture *f, gconstpointer data)
{
  for (int compiled = 0; compiled <= 1; compiled++)
    {
      g_autoptr (GError) error = NULL;
      if (!resolve (f, "--gpus 8 --seq-length 32768 --micro-batch-size 1 "
                    "--global-batch-size 8 --context-parallel-size 4 "
                    "--cp-comm-type all_gather --recompute-granularity full", &error))
        g_error ("%s", error->message);
      f->plan.cp_ring_merge = 1;
      f->plan.cp_kv_repeated = 1;
      f->plan.compile = compiled;
      g_autoptr (ProgProgram) p = fixture_program (f);
      int first = 0, first_waits = 0, core_b = 0, core_b_waits_ring = 0, core_b_waits_ag = 0;
      for (guint i = 0; i < p->tasks->len; i++)
        {
          const ProgTask *t = &g_array_index (p->tasks, ProgTask, i);
          if (t->kind != PROG_TASK_COMPUTE)
            continue;
          const ProgBlock *blk = prog_block (p, t->block);
          const gboolean is_first = g_str_equal (blk->name, "attn_core_first_fwd")
                                    || g_str_equal (blk->name, "attn_core_first_bwd");
          const gboolean is_core_b = g_str_equal (blk->name, "attn_core_bwd");
          if (!is_first && !is_core_b)
            continue;
          gboolean on_ag = FALSE, on_ring = FALSE;
          const guint32 *deps = prog_task_deps (p, t);
          for (guint d = 0; d < t->n_deps; d++)
            {
              const ProgTask *u = prog_task (p, deps[d]);
              if (u->kind != PROG_TASK_COLL || u->stream != PROG_STREAM_CP)
                continue;
              on_ag |= u->coll == PLAN_COLL_ALL_GATHER;
              on_ring |= u->coll == PLAN_COLL_SEND_RECV && u->bytes == 805306368.0;
            }
          if (is_first)
            {
              first++;
              first_waits += on_ag;
            }
          else
            {
              core_b++;
              core_b_waits_ring += on_ring;
              core_b_waits_ag += on_ag;
            }
        }
      g_assert_cmpint (first, ==, 384);
      g_assert_cmpint (first_waits, ==, compiled ? 384 : 0);
      g_assert_cmpint (core_b, ==, 128);
      g_assert_cmpint (core_b_waits_ring, ==, compiled ? 128 : 0);
      g_assert_cmpint (core_b_waits_ag, ==, compiled ? 0 : 128);
    }
}

/* Sliding windows in the step program (plan/program-blocks.c attention): gpt-oss-120b
 * (128-token windows on 18 of 36 layers, 64 heads of 64) at 8192 tokens, 1 sequence a
 * micro-batch, tp 1: the block's attention op stands for every layer, so it carries
 * window 128, share 18/36 = 0.5 and the average FLOPs 4 x 8192^2 x 64 x 64 / 2 x (0.5 +
 * 0.5 x 254/8192) = 5.49756e11 x 0.515503 = 2.83401e11 (a windowed layer's keys per
 * query 2 x 128 - 128^2/8192 = 254 of 8192); the backward 2.5 x that. A CP ring (p2p
 * over 2) is refused: Transformer Engine asserts a sliding window out of p2p CP
 * (attn_forward_func_with_cp), so the plan no real run has is not predicted. Ulysses
 * (a2a over 2) gives each rank whole sequences of 64 / 2 = 32 heads: its attention core
 * applies the window, the FLOPs half of the tp 1 figure, 2.83401e11 / 2. */
static void
test_attention_window (Fixture *f, gconstpointer data)
{
  use_model (f, "gpt-oss-120b");
  g_autoptr (ProgProgram) p = program_of (f, "--gpus 8 --ep 8 --seq-length 8192 "
                                          "--micro-batch-size 1 --global-batch-size 8");
  const double full = 4.0 * 8192.0 * 8192.0 * 64 * 64 / 2;
  int n = 0;
  for (guint i = 0; i < p->ops->len; i++)
    {
      const ModelOp *op = &g_array_index (p->ops, ModelOp, i);
      if (op->kind != MODEL_OP_ATTENTION)
        continue;
      n++;
      g_assert_cmpuint (op->window, ==, 128);
      g_assert_cmpfloat_with_epsilon (op->window_share, 0.5, 1e-12);
      const double want = (g_str_has_suffix (op->name, "_grad") ? 2.5 : 1.0) * full
                          * (0.5 + 0.5 * 254.0 / 8192.0);
      g_assert_cmpfloat_with_epsilon (op->fwd_flops / want, 1.0, 1e-12);
    }
  g_assert_cmpint (n, >, 0);
  g_autoptr (GError) e = NULL;
  g_assert_false (resolve (f, "--gpus 8 --ep 4 --seq-length 8192 --micro-batch-size 1 "
                           "--global-batch-size 4 --context-parallel-size 2 "
                           "--cp-comm-type p2p", &e));
  g_assert_nonnull (strstr (e->message, "128-token sliding window"));
  g_autoptr (ProgProgram) q = program_of (f, "--gpus 8 --ep 4 --seq-length 8192 "
                                          "--micro-batch-size 1 --global-batch-size 4 "
                                          "--context-parallel-size 2 --cp-comm-type a2a");
  int nq = 0;
  for (guint i = 0; i < q->ops->len; i++)
    {
      const ModelOp *op = &g_array_index (q->ops, ModelOp, i);
      /* the Ulysses core (32 heads over whole sequences); the fused attn_fwd block
       * beside it keeps the rank's 64 heads over s/c queries */
      if (op->kind != MODEL_OP_ATTENTION || g_str_has_suffix (op->name, "_grad")
          || op->heads != 32)
        continue;
      nq++;
      g_assert_cmpuint (op->window, ==, 128);
      g_assert_cmpfloat_with_epsilon (op->fwd_flops / (full / 2 * (0.5 + 0.5 * 254.0 / 8192.0)),
                                      1.0, 1e-12);
    }
  g_assert_cmpint (nq, >, 0);
}

/* The CP all-gather bytes of a program (the K/V gathers on the cp stream). */
static double
cp_gather_bytes (const ProgProgram *p)
{
  double bytes = 0;
  for (guint i = 0; i < p->tasks->len; i++)
    {
      const ProgTask *t = prog_task (p, i);
      if (t->kind == PROG_TASK_COLL && t->axis == PLAN_AXIS_CP)
        bytes += t->bytes;
    }
  return bytes;
}

/* A sliding window under all-gather context parallelism (--cp-comm-type all_gather;
 * Transformer Engine's AttnFuncWithCPAndKVAllGather slices the gathered K/V to each query
 * chunk's window, get_kv_seq_info_after_all_gather). Mistral 7B (32 heads of 128, 8 KV
 * heads, every layer windowed) with its window set to 1024, 8192 tokens, cp 2, 1 sequence
 * a micro-batch. The sequence is 2 cp = 4 chunks of L = 2048; rank 0 holds chunks 0 and 3,
 * rank 1 chunks 1 and 2. A query at p attends to min (p, 1024) keys (continuous counts,
 * as model_spec_attention_keys):
 *   chunk 0: 1024^2/2 + (2048 - 1024) x 1024 = 524,288 + 1,048,576 = 1,572,864 pairs
 *   chunks 1, 2, 3: 2048 x 1024 = 2,097,152 each
 *   rank 0: 1,572,864 + 2,097,152 = 3,670,016; rank 1: 4,194,304, the busiest;
 * without the window a rank's pairs are L s = 2048 x 8192 = 16,777,216, so the busiest
 * rank does 4,194,304 / 16,777,216 = 1/4 of them. A rank's attention forward without a
 * window: 2 x 32 x 4096 x 8192 x (128 + 128) / 2 = 274,877,906,944 FLOPs; with it
 * 68,719,476,736; backward 2.5 x. Before, all-gather CP ignored the window (only whole
 * sequences, no CP or Ulysses, applied it): 274,877,906,944. The all-gather still moves
 * the whole sequence's K/V: the CP collective bytes are those of the model without a
 * window. */
static void
test_attention_window_allgather (Fixture *f, gconstpointer data)
{
  use_model (f, "mistral-7b");
  ModelSpec *m = model_spec_copy (f->model);
  model_spec_unref (f->model);
  f->model = m;
  g_assert_cmpuint (m->n_sliding_layers, ==, m->n_layers);
  m->sliding_window = 1024;
  const char *flags = "--gpus 8 --seq-length 8192 --micro-batch-size 1 "
                      "--global-batch-size 4 --context-parallel-size 2 "
                      "--cp-comm-type all_gather";
  g_autoptr (ProgProgram) p = program_of (f, flags);
  const double whole = 2.0 * 32 * 4096 * 8192 * (128 + 128) / 2;
  g_assert_cmpfloat (whole, ==, 274877906944.0);
  int n = 0;
  for (guint i = 0; i < p->ops->len; i++)
    {
      const ModelOp *op = &g_array_index (p->ops, ModelOp, i);
      if (op->kind != MODEL_OP_ATTENTION)
        continue;
      n++;
      g_assert_cmpuint (op->s_q, ==, 4096);
      g_assert_cmpuint (op->s_kv, ==, 8192);
      g_assert_cmpuint (op->window, ==, 1024);
      const double want = (g_str_has_suffix (op->name, "_grad") ? 2.5 : 1.0) * 68719476736.0;
      g_assert_cmpfloat_with_epsilon (op->fwd_flops / want, 1.0, 1e-12);
    }
  g_assert_cmpint (n, >, 0);
  double bytes = cp_gather_bytes (p);
  g_assert_cmpfloat (bytes, >, 0);
  m->sliding_window = 0;
  m->n_sliding_layers = 0;
  g_autoptr (ProgProgram) q = program_of (f, flags);
  g_assert_cmpfloat (cp_gather_bytes (q), ==, bytes);
}

/* Expert biases (plan/program-blocks.c "expert_bias", Megatron-Core's TEGroupedMLP adding
 * the down projection's bias after the grouped GEMM): gpt-oss-120b at 8192 tokens, ep 8
 * (16 local experts), balanced routing, grouped GEMMs: one forward op over the 8192 x 4
 * = 32768 routed rows x h 2880 = 94,371,840 elements with b = 16, one backward op alike.
 * Without grouped GEMMs (SequentialMLP, a TE Linear per expert with its bias in the GEMM)
 * and for a model without expert biases (llama3-8b as 8 experts) there is none. */
static guint
count_ops_named (const ProgProgram *p, const char *name, guint64 elements, guint64 b)
{
  guint n = 0;
  for (guint i = 0; i < p->ops->len; i++)
    {
      const ModelOp *op = &g_array_index (p->ops, ModelOp, i);
      if (op->name != NULL && g_str_equal (op->name, name))
        {
          g_assert_cmpuint (op->elements, ==, elements);
          g_assert_cmpuint (op->b, ==, b);
          n++;
        }
    }
  return n;
}

static void
test_expert_bias (Fixture *f, gconstpointer data)
{
  g_autoptr (ProgProgram) dense = program_of (f, LLAMA_MOE_EP8);
  g_assert_cmpuint (count_ops_named (dense, "expert_bias", 0, 0), ==, 0);
  use_model (f, "gpt-oss-120b");
  const char *flags = GPT_OSS_EP8 " --moe-imbalance 1";
  g_autofree char *gg = g_strdup_printf ("%s --moe-grouped-gemm", flags);
  g_autoptr (ProgProgram) p = program_of (f, gg);
  g_assert_cmpuint (count_ops_named (p, "expert_bias", 94371840, 16), ==, 1);
  g_assert_cmpuint (count_ops_named (p, "expert_bias_grad", 94371840, 16), ==, 1);
  g_autoptr (ProgProgram) q = program_of (f, flags);
  g_assert_cmpuint (count_ops_named (q, "expert_bias", 0, 0), ==, 0);
}

/* The all-to-all dispatcher's chunk sorts (plan/program-blocks.c "moe_sort_chunks*",
 * Megatron-Core sort_chunks_by_idxs): llama3-8b as 8 experts, top-2, 8192 tokens, ep 2
 * (4 local experts), balanced: each rank receives T k = 8192 x 2 = 16384 token copies,
 * x h 4096 = 67,108,864 elements, copied into local-expert order after the dispatch and
 * back before the combine, and each copy's inverse in the backward: one op of each of the
 * four. With ep 8 (one local expert) the all-to-all output is already in expert order,
 * and the flex (DeepEP) and all-gather dispatchers have no such copy: none. Under
 * --moe-imbalance 1.5 the busiest rank's 1.5 x 16384 = 24576 copies x 4096 =
 * 100,663,296. */
static void
test_sort_chunks (Fixture *f, gconstpointer data)
{
  static const char *names[] = { "moe_sort_chunks", "moe_sort_chunks_restore",
                                 "moe_sort_chunks_restore_grad", "moe_sort_chunks_grad" };
  const char *base = "--gpus 8 --num-experts 8 --moe-router-topk 2 --seq-length 8192 "
                     "--micro-batch-size 1 --global-batch-size 8 --moe-grouped-gemm";
  g_autofree char *a2a = g_strdup_printf ("%s --ep 2 --moe-imbalance 1", base);
  g_autoptr (ProgProgram) p = program_of (f, a2a);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    g_assert_cmpuint (count_ops_named (p, names[i], 67108864, 0), ==, 1);
  /* in the experts' blocks: the sort first in the forward, its restore last; the
   * restore's gradient first in the backward, the sort's last */
  const ProgBlock *fw = block_named (p, "moe_experts_fwd");
  const ProgBlock *bw = block_named (p, "moe_experts_bwd");
  g_assert_cmpstr (g_array_index (p->ops, ModelOp, fw->first_op).name, ==, "moe_sort_chunks");
  g_assert_cmpstr (g_array_index (p->ops, ModelOp, fw->first_op + fw->n_ops - 1).name, ==,
                   "moe_sort_chunks_restore");
  g_assert_cmpstr (g_array_index (p->ops, ModelOp, bw->first_op).name, ==,
                   "moe_sort_chunks_restore_grad");
  g_assert_cmpstr (g_array_index (p->ops, ModelOp, bw->first_op + bw->n_ops - 1).name, ==,
                   "moe_sort_chunks_grad");
  g_autofree char *skew = g_strdup_printf ("%s --ep 2 --moe-imbalance 1.5", base);
  g_autoptr (ProgProgram) q = program_of (f, skew);
  g_assert_cmpuint (count_ops_named (q, "moe_sort_chunks", 100663296, 0), ==, 1);
  g_autofree char *one = g_strdup_printf ("%s --ep 8 --moe-imbalance 1", base);
  g_autofree char *flex = g_strdup_printf ("%s --ep 2 --moe-imbalance 1 "
                                           "--moe-token-dispatcher-type flex", base);
  g_autofree char *ag = g_strdup_printf ("%s --ep 2 --moe-imbalance 1 "
                                         "--moe-token-dispatcher-type allgather", base);
  const char *none[] = { one, flex, ag };
  for (guint j = 0; j < G_N_ELEMENTS (none); j++)
    {
      g_autoptr (ProgProgram) r = program_of (f, none[j]);
      for (guint i = 0; i < G_N_ELEMENTS (names); i++)
        g_assert_cmpuint (count_ops_named (r, names[i], 0, 0), ==, 0);
    }
}

/* gpt-oss's clamped quick-GEGLU (plan/program-blocks.c "expert_act_*"): gpt-oss-120b
 * (swiglu_limit 7) at 8192 tokens, ep 8, balanced, grouped GEMMs: the activation's
 * 32768 routed rows x f 2880 = 94,371,840 output elements in the clamp, the geglu and
 * their gradients, one sync in the forward; under --recompute-modules moe_act the clamp
 * and geglu again in the backward block with a second sync. Without grouped GEMMs
 * (SequentialMLP, another activation path) and for a model without the clamp (llama3-8b
 * as 8 experts) the plain "expert_act". */
static void
test_expert_act_clamped (Fixture *f, gconstpointer data)
{
  g_autoptr (ProgProgram) dense = program_of (f, LLAMA_MOE_EP8);
  g_assert_cmpuint (count_ops_named (dense, "expert_act_clamp", 0, 0), ==, 0);
  g_assert_cmpuint (count_ops_named (dense, "expert_act_sync", 0, 0), ==, 0);
  use_model (f, "gpt-oss-120b");
  const char *flags = GPT_OSS_EP8 " --moe-imbalance 1";
  g_autofree char *gg = g_strdup_printf ("%s --moe-grouped-gemm", flags);
  g_autoptr (ProgProgram) p = program_of (f, gg);
  g_assert_cmpuint (count_ops_named (p, "expert_act_clamp", 94371840, 0), ==, 1);
  g_assert_cmpuint (count_ops_named (p, "expert_act_geglu", 94371840, 0), ==, 1);
  g_assert_cmpuint (count_ops_named (p, "expert_act_sync", 0, 0), ==, 1);
  g_assert_cmpuint (count_ops_named (p, "expert_act_geglu_grad", 94371840, 0), ==, 1);
  g_assert_cmpuint (count_ops_named (p, "expert_act_clamp_grad", 94371840, 0), ==, 1);
  g_assert_cmpuint (count_ops_named (p, "expert_act", 0, 0), ==, 0);
  g_assert_cmpuint (count_ops_named (p, "expert_act_clamp_recompute", 0, 0), ==, 0);
  g_autofree char *rc = g_strdup_printf ("%s --moe-grouped-gemm --recompute-modules moe_act",
                                         flags);
  g_autoptr (ProgProgram) r = program_of (f, rc);
  g_assert_cmpuint (count_ops_named (r, "expert_act_clamp_recompute", 94371840, 0), ==, 1);
  g_assert_cmpuint (count_ops_named (r, "expert_act_geglu_recompute", 94371840, 0), ==, 1);
  g_assert_cmpuint (count_ops_named (r, "expert_act_sync", 0, 0), ==, 2);
  g_assert_cmpuint (count_ops_named (r, "expert_act_recompute", 0, 0), ==, 0);
  g_autoptr (ProgProgram) q = program_of (f, flags);
  g_assert_cmpuint (count_ops_named (q, "expert_act_clamp", 0, 0), ==, 0);
  g_assert_cmpuint (count_ops_named (q, "expert_act", 94371840, 0), ==, 1);
}

/* --no-rope-fusion: the attention block's RoPE ops are the unfused ones
 * ("rotary_unfused", "rotary_unfused_grad"), over the same 8192 x (64 + 8) x 64 =
 * 37,748,736 elements of Q and K (gpt-oss-120b, tp 1); without it, "rotary". */
static void
test_rope_unfused (Fixture *f, gconstpointer data)
{
  use_model (f, "gpt-oss-120b");
  const char *flags = GPT_OSS_EP8;
  g_autofree char *nf = g_strdup_printf ("%s --no-rope-fusion", flags);
  g_autoptr (ProgProgram) p = program_of (f, nf);
  g_assert_true (f->plan.no_rope_fusion);
  g_assert_cmpuint (count_ops_named (p, "rotary_unfused", 37748736, 0), >, 0);
  g_assert_cmpuint (count_ops_named (p, "rotary_unfused_grad", 37748736, 0), >, 0);
  g_assert_cmpuint (count_ops_named (p, "rotary", 0, 0), ==, 0);
  g_autoptr (ProgProgram) q = program_of (f, flags);
  g_assert_cmpuint (count_ops_named (q, "rotary", 37748736, 0), >, 0);
  g_assert_cmpuint (count_ops_named (q, "rotary_unfused", 0, 0), ==, 0);
}

/* --cross-entropy-fusion-impl te: the head's loss ops are Transformer Engine's
 * ("loss_te", "loss_te_grad"), over the same 8192 x 201,088 = 1,647,312,896 logits
 * (gpt-oss-120b, tp 1); native (the default) keeps "loss" / "loss_grad"; another value
 * is refused by name. */
static void
test_loss_te (Fixture *f, gconstpointer data)
{
  use_model (f, "gpt-oss-120b");
  const char *flags = GPT_OSS_EP8;
  g_autofree char *te = g_strdup_printf ("%s --cross-entropy-fusion-impl te", flags);
  g_autoptr (ProgProgram) p = program_of (f, te);
  g_assert_true (f->plan.te_cross_entropy);
  g_assert_cmpuint (count_ops_named (p, "loss_te", 1647312896, 0), ==, 1);
  g_assert_cmpuint (count_ops_named (p, "loss_te_grad", 1647312896, 0), ==, 1);
  g_assert_cmpuint (count_ops_named (p, "loss", 0, 0), ==, 0);
  g_autofree char *native = g_strdup_printf ("%s --cross-entropy-fusion-impl native", flags);
  g_autoptr (ProgProgram) q = program_of (f, native);
  g_assert_false (f->plan.te_cross_entropy);
  g_assert_cmpuint (count_ops_named (q, "loss", 1647312896, 0), ==, 1);
  g_assert_cmpuint (count_ops_named (q, "loss_te", 0, 0), ==, 0);
  g_autoptr (GError) error = NULL;
  g_assert_false (resolve (f, "--gpus 8 --cross-entropy-fusion-impl fast", &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "unknown --cross-entropy-fusion-impl 'fast'"));
}

/* --moe-pad-expert-input-to-capacity (Megatron-Core's moe_pad_expert_input_to_capacity,
 * the alltoall dispatcher's drop_and_pad): with a capacity factor cf every local expert
 * runs exactly its capacity, cf x the mean tokens, so the busiest rank's ratio is cf
 * whatever the routing (here 1.25, where routing at --moe-imbalance 1.1 would give 1.1 and
 * dropping without padding min (1.1, 1.25) = 1.1). It needs the capacity factor (Megatron's
 * dispatcher asserts it) and is an option of Megatron-Core's alltoall dispatcher: refused
 * with the flex dispatcher and on torchtitan (no Megatron dispatcher, no host sync). The
 * plan string tells the padded plan apart (-pad1.25) and the plan JSON reads it back. */
static void
test_pad_to_capacity (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  const char *base = "--gpus 64 --num-experts 8 --expert-model-parallel-size 8 "
                     "--moe-imbalance 1.1 --moe-expert-capacity-factor 1.25";
  g_assert_true (resolve (f, base, &error));
  g_assert_no_error (error);
  PlanMoe moe;
  plan_moe (&f->plan, f->model, &moe);
  g_assert_cmpfloat (moe.imbalance, ==, 1.1);
  g_assert_false (f->plan.moe_pad_to_capacity);
  g_autofree char *plain = plan_to_string (&f->plan);
  g_assert_null (strstr (plain, "-pad"));

  g_autofree char *flags = g_strdup_printf ("%s --moe-pad-expert-input-to-capacity", base);
  g_assert_true (resolve (f, flags, &error));
  g_assert_no_error (error);
  g_assert_true (f->plan.moe_pad_to_capacity);
  plan_moe (&f->plan, f->model, &moe);
  g_assert_cmpfloat (moe.imbalance, ==, 1.25);
  g_autofree char *str = plan_to_string (&f->plan);
  g_assert_nonnull (strstr (str, "-pad1.25"));

  g_autoptr (FwStack) mc = fw_stack_load_preset ("megatron-core", &error);
  g_assert_no_error (error);
  g_autoptr (FwStack) tt = fw_stack_load_preset ("torchtitan", &error);
  g_assert_no_error (error);
  g_assert_true (plan_check_stack (&f->plan, mc, &error));
  g_assert_no_error (error);
  g_assert_false (plan_check_stack (&f->plan, tt, &error));
  g_assert_error (error, PLAN_ERROR, PLAN_ERROR_USAGE);
  g_assert_nonnull (strstr (error->message, "alltoall token dispatcher"));
  g_clear_error (&error);
  f->plan.moe_dispatcher = PLAN_MOE_FLEX;
  g_assert_false (plan_check_stack (&f->plan, mc, &error));
  g_assert_nonnull (strstr (error->message, "alltoall token dispatcher"));
  g_clear_error (&error);
  f->plan.moe_dispatcher = PLAN_MOE_ALLTOALL;
  f->plan.moe_capacity_factor = 0;   /* dropless: nothing to pad to */
  g_assert_false (plan_check_stack (&f->plan, mc, &error));
  g_assert_nonnull (strstr (error->message, "--moe-expert-capacity-factor"));
  g_clear_error (&error);

  Plan q;
  plan_init_defaults (&q);
  g_assert_true (plan_load_json_data (&q, "{\"moe\": {\"expert_capacity_factor\": 1, "
                                      "\"pad_expert_input_to_capacity\": true}}", -1,
                                      "t.json", &error));
  g_assert_no_error (error);
  g_assert_true (q.moe_pad_to_capacity);
  g_assert_cmpfloat (q.moe_capacity_factor, ==, 1.0);
  plan_clear (&q);
}

/* The flex dispatcher's node (plan/program.c moe_a2a_bytes): llama3-8b as 8 experts,
 * top-2, T = 8192 tokens a rank, h 4096, bf16: k T h 2 = 2 x 8192 x 4096 x 2 =
 * 134,217,728 B of routed copies. A token reaching N nodes of which its k = 2 experts
 * pick uniformly crosses to N (1 - (1 - 1/N)^2) distinct ones.
 * GB300 NVL72 (4 GPUs a tray, 18 trays a rack), ep 8 in one rack: DeepEP's node is the
 * tray, N = 2: 2 (1 - 1/4) = 1.5 nodes for k = 2 copies, x 0.75 = 100,663,296 B.
 * HybridEP's node is the NVLink domain (topo_cluster_scale_up_level 1, the rack): all 8
 * ranks in one, N = 1, no shrink: 134,217,728 B.
 * H100 (8 GPUs a server, scale-up level 0), ep 16: both count N = 2 servers, 100,663,296.
 * The flag sets the plan, and the plan JSON carries it and reads it back. */
static void
test_flex_hybridep_node (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  int n;
  const char *base = "--gpus 8 --num-experts 8 --ep 8 --seq-length 8192 --moe-imbalance 1 "
                     "--moe-token-dispatcher-type flex";
  g_clear_pointer (&f->cluster, topo_cluster_unref);
  f->cluster = topo_cluster_lookup ("gb300-nvl72-superpod", &error);
  g_assert_no_error (error);
  g_autoptr (ProgProgram) deepep = program_of (f, base);
  g_assert_cmpint (f->plan.moe_flex_backend, ==, PLAN_MOE_FLEX_DEEPEP);
  g_assert_cmpfloat (ep_bytes (deepep, PLAN_COLL_ALL_TO_ALL, PLAN_AXIS_EP, &n), ==,
                     100663296.0);
  g_autofree char *hy = g_strdup_printf ("%s --moe-flex-dispatcher-backend hybridep", base);
  g_autoptr (ProgProgram) hybrid = program_of (f, hy);
  g_assert_cmpint (f->plan.moe_flex_backend, ==, PLAN_MOE_FLEX_HYBRIDEP);
  g_assert_cmpfloat (ep_bytes (hybrid, PLAN_COLL_ALL_TO_ALL, PLAN_AXIS_EP, &n), ==,
                     134217728.0);

  g_autoptr (JsonBuilder) b = json_builder_new ();
  plan_to_json (&f->plan, b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  JsonObject *moe = json_object_get_object_member (json_node_get_object (root), "moe");
  g_assert_cmpstr (json_object_get_string_member (moe, "flex_dispatcher_backend"), ==,
                   "hybridep");
  Plan q;
  plan_init_defaults (&q);
  g_assert_true (plan_load_json_data (&q, "{\"moe\": {\"token_dispatcher_type\": \"flex\", "
                                      "\"flex_dispatcher_backend\": \"hybridep\"}}", -1,
                                      "t.json", &error));
  g_assert_no_error (error);
  g_assert_cmpint (q.moe_flex_backend, ==, PLAN_MOE_FLEX_HYBRIDEP);
  plan_clear (&q);

  /* the backend without the flex dispatcher would change nothing: refused, exit 2's error */
  g_autoptr (FwStack) mc = fw_stack_load_preset ("megatron-core", &error);
  g_assert_no_error (error);
  g_assert_true (plan_check_stack (&f->plan, mc, &error));
  g_assert_no_error (error);
  f->plan.moe_dispatcher = PLAN_MOE_ALLTOALL;
  g_assert_false (plan_check_stack (&f->plan, mc, &error));
  g_assert_error (error, PLAN_ERROR, PLAN_ERROR_USAGE);
  g_assert_nonnull (strstr (error->message, "--moe-token-dispatcher-type flex"));
  g_clear_error (&error);
  f->plan.moe_flex_backend = PLAN_MOE_FLEX_DEEPEP;   /* the default passes with any dispatcher */
  g_assert_true (plan_check_stack (&f->plan, mc, &error));

  g_clear_pointer (&f->cluster, topo_cluster_unref);
  f->cluster = topo_cluster_lookup ("h100-24k", &error);
  g_assert_no_error (error);
  const char *h100 = "--gpus 16 --num-experts 16 --ep 16 --seq-length 8192 "
                     "--moe-imbalance 1 --moe-token-dispatcher-type flex";
  g_autoptr (ProgProgram) d16 = program_of (f, h100);
  g_assert_cmpfloat (ep_bytes (d16, PLAN_COLL_ALL_TO_ALL, PLAN_AXIS_EP, &n), ==, 100663296.0);
  g_autofree char *h16 = g_strdup_printf ("%s --moe-flex-dispatcher-backend hybridep", h100);
  g_autoptr (ProgProgram) y16 = program_of (f, h16);
  g_assert_cmpfloat (ep_bytes (y16, PLAN_COLL_ALL_TO_ALL, PLAN_AXIS_EP, &n), ==, 100663296.0);
}

/* --moe-imbalance is the busiest EP rank's routed tokens over the mean, so routing bounds
 * it: a token sends at most min(k, E / ep) of its k copies to one rank, and the busiest
 * rank holds at most T min(k, E / ep) against the mean's T k / ep. llama3-8b made 8
 * experts, top-2: ep 8 -> 8 x min(2, 1) / 2 = 4; ep 2 -> 2 x min(2, 4) / 2 = 2; ep 1 -> 1.
 * A larger value was taken (1e6 at ep 4 "needed 3.51 TiB"), and at ep 1 the default 1.3
 * charged the one rank 1.3 times its own tokens; now the default is capped and an
 * explicit excess is bad input. */
static void
test_imbalance_bound (Fixture *f, gconstpointer data)
{
  g_assert_cmpfloat (plan_moe_imbalance_max (8, 8, 2), ==, 4.0);
  g_assert_cmpfloat (plan_moe_imbalance_max (2, 8, 2), ==, 2.0);
  g_assert_cmpfloat (plan_moe_imbalance_max (1, 8, 2), ==, 1.0);
  /* 64 experts top-8 over ep 64: one each, 64 x 1 / 8 = 8 */
  g_assert_cmpfloat (plan_moe_imbalance_max (64, 64, 8), ==, 8.0);

  g_autoptr (GError) error = NULL;
  g_assert_false (resolve (f, "--gpus 8 --num-experts 8 --ep 2 --moe-imbalance 2.5", &error));
  g_assert_error (error, PLAN_ERROR, PLAN_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "--moe-imbalance from 1 to 2"));
  g_clear_error (&error);
  g_assert_true (resolve (f, "--gpus 8 --num-experts 8 --ep 2 --moe-imbalance 2", &error));
  g_assert_no_error (error);
  PlanMoe moe;
  plan_moe (&f->plan, f->model, &moe);
  g_assert_cmpfloat (moe.imbalance, ==, 2.0);
  /* the default at ep 1 is 1 (the one rank is the mean), at ep 8 the default 1.3 */
  g_assert_true (resolve (f, "--gpus 8 --num-experts 8 --ep 1", &error));
  plan_moe (&f->plan, f->model, &moe);
  g_assert_cmpfloat (moe.imbalance, ==, 1.0);
  g_assert_true (resolve (f, "--gpus 8 --num-experts 8 --ep 8", &error));
  plan_moe (&f->plan, f->model, &moe);
  g_assert_cmpfloat (moe.imbalance, ==, PLAN_MOE_IMBALANCE_DEFAULT);
  /* the default written out: plan_to_json writes 1.3 for a plan that set none, and a
   * stored ep 1 run read back must resolve (report run re-simulates it from its plan
   * JSON), capped to 1 */
  plan_clear (&f->plan);
  plan_init_defaults (&f->plan);
  g_assert_true (plan_flags_parse (&f->plan, &f->args, "--gpus 8 --num-experts 8 --ep 1",
                                   &error));
  g_assert_true (plan_load_json_data (&f->plan, "{\"moe\": {\"imbalance\": 1.3}}", -1,
                                      "stored.json", &error));
  g_assert_true (plan_resolve (&f->plan, f->model, f->cluster, &error));
  g_assert_no_error (error);
  plan_moe (&f->plan, f->model, &moe);
  g_assert_cmpfloat (moe.imbalance, ==, 1.0);
  /* ... where the same value typed is checked: 1 rank is the mean, as 1.5 is refused */
  g_assert_false (resolve (f, "--gpus 8 --num-experts 8 --ep 1 --moe-imbalance 1.3", &error));
  g_assert_nonnull (strstr (error->message, "--moe-imbalance from 1 to 1"));
  g_clear_error (&error);
  /* padded to a capacity factor, every expert runs cf x the mean whatever routing does */
  g_assert_true (resolve (f, "--gpus 8 --num-experts 8 --ep 8 --moe-expert-capacity-factor 5 "
                          "--moe-pad-expert-input-to-capacity", &error));
  g_assert_no_error (error);
  plan_moe (&f->plan, f->model, &moe);
  g_assert_cmpfloat (moe.imbalance, ==, 5.0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#define ADD(path, fn) g_test_add ("/moe/" path, Fixture, NULL, setup, fn, teardown)
  ADD ("json-round-trip", test_json_round_trip);
  ADD ("flags", test_flags);
  ADD ("pad-to-capacity", test_pad_to_capacity);
  ADD ("invalid", test_invalid);
  ADD ("folding", test_folding);
  ADD ("mamba", test_mamba);
  ADD ("a2a-bytes", test_a2a_bytes);
  ADD ("flex-hybridep-node", test_flex_hybridep_node);
  ADD ("expert-gemms", test_expert_gemms);
  ADD ("imbalance-memory", test_imbalance_memory);
  ADD ("imbalance-bound", test_imbalance_bound);
  ADD ("fp8-deepseek-storage", test_fp8_deepseek_storage);
  ADD ("expert-grads", test_expert_grads);
  ADD ("memory", test_memory);
  ADD ("zero3-gathers", test_zero3_gathers);
  ADD ("zero3-memory", test_zero3_memory);
  ADD ("mla", test_mla);
  ADD ("gdn", test_gdn);
  ADD ("cuda-graphs", test_cuda_graphs);
  ADD ("selective-op", test_selective_op);
  ADD ("attention-kernel-length", test_attention_kernel_length);
  ADD ("fold-hints", test_fold_hints);
  ADD ("attention-window", test_attention_window);
  ADD ("attention-window-allgather", test_attention_window_allgather);
  ADD ("expert-bias", test_expert_bias);
  ADD ("sort-chunks", test_sort_chunks);
  ADD ("rope-unfused", test_rope_unfused);
  ADD ("loss-te", test_loss_te);
  ADD ("expert-act-clamped", test_expert_act_clamped);
  ADD ("cp-ring-merge", test_cp_ring_merge);
  ADD ("cp-traced-waits", test_cp_traced_waits);
  return g_test_run ();
}
