/* tests/plan/test-mtp.c - multi-token prediction (plan.h mtp_num_layers): the flag and its
 * validation, the plan JSON key, the MTP tasks of the last stage's step program and the
 * last stage's memory, against numbers derived by hand in the comments. The model is
 * llama3-8b (h 4096, 8 KV heads of 128, SwiGLU 14336, vocab 128,256, untied) given one
 * MTP module in its config where a test needs one (as DeepSeek-V3's
 * num_nextn_predict_layers 1), so the figures depend on nothing else. */
#include "plan/memory.h"
#include "plan-fixture.h"

#include <json-glib/json-glib.h>

/* 2 GPUs, pp 2, 4 micro-batches of one 1024-token sequence: no TP, DP or EP group, so
 * the program's only communication is the pipeline's */
#define PP2 "--gpus 2 --pp 2 --mbs 1 --gbs 4 --seq-length 1024"

/* compute tasks of a stage outside the optimizer, and those running block `name` */
static void
count_compute (const ProgProgram *p, int stage, const char *name, guint *all, guint *named)
{
  const ProgStage *st = &p->stages[stage];
  *all = *named = 0;
  for (guint32 i = st->first; i < st->first + st->n_tasks; i++)
    {
      const ProgTask *t = prog_task (p, i);
      if (t->kind != PROG_TASK_COMPUTE || t->phase == PROG_PHASE_OPTIMIZER)
        continue;
      (*all)++;
      if (g_str_equal (prog_block (p, t->block)->name, name))
        (*named)++;
    }
}

/* A model whose config declares no MTP modules is refused, with the flag and a hint; the
 * default (0) trains none. */
static void
test_invalid (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_assert_false (resolve (f, PP2 " --mtp-num-layers 1", &error));
  g_assert_error (error, PLAN_ERROR, PLAN_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "--mtp-num-layers 1: llama3-8b has no "
                                            "multi-token-prediction modules"));
  g_assert_nonnull (strstr (error->message, "hint:"));
  g_clear_error (&error);
  g_assert_true (resolve (f, PP2, &error));
  g_assert_cmpint (f->plan.mtp_num_layers, ==, 0);
}

/* training.mtp_num_layers: written by plan_to_json, read back by plan_load_json_data. */
static void
test_json_round_trip (Fixture *f, gconstpointer data)
{
  f->model->mtp_layers = 1;
  g_autoptr (GError) error = NULL;
  g_assert_true (resolve (f, PP2 " --mtp-num-layers 1", &error));
  g_assert_cmpint (f->plan.mtp_num_layers, ==, 1);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  plan_to_json (&f->plan, b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  JsonObject *tr = json_object_get_object_member (json_node_get_object (root), "training");
  g_assert_cmpint (json_object_get_int_member (tr, "mtp_num_layers"), ==, 1);
  g_autofree char *str = plan_to_string (&f->plan);
  g_assert_nonnull (strstr (str, "-mtp1-"));
  /* the stored plan's "training" section, given back as a plan file's (its derived
   * gradient_accumulation_steps left out, as a plan file has none) */
  json_object_remove_member (tr, "gradient_accumulation_steps");
  g_autoptr (JsonNode) section = json_node_new (JSON_NODE_OBJECT);
  g_autoptr (JsonObject) wrap = json_object_new ();
  json_object_set_member (wrap, "training", json_node_copy (json_object_get_member (
                                              json_node_get_object (root), "training")));
  json_node_set_object (section, wrap);
  g_autofree char *text = json_to_string (section, FALSE);
  Plan back;
  plan_init_defaults (&back);
  g_assert_true (plan_load_json_data (&back, text, -1, "round trip", &error));
  g_assert_no_error (error);
  g_assert_cmpint (back.mtp_num_layers, ==, 1);
  plan_clear (&back);
}

/* The last stage runs, per micro-batch and module, 5 compute tasks forward (the shifted
 * embedding, mtp_fwd, the layer's attention and MLP, the head) and 5 backward (the head,
 * the MLP and attention, mtp_bwd, the embedding): 10 x 4 micro-batches = 40 more, 4 of
 * them mtp_fwd; the first stage is unchanged. mtp_fwd's model FLOPs are eh_proj's,
 * 2 T h 2h = 2 x 1024 x 4096 x 8192 = 68,719,476,736, and the last stage's model FLOPs
 * grow by 4 micro-batches x 3 (forward + backward) x (mtp_fwd + the layer's forward +
 * the head's forward). */
static void
test_program (Fixture *f, gconstpointer data)
{
  f->model->mtp_layers = 1;
  g_autoptr (ProgProgram) p0 = program_of (f, PP2);
  g_autoptr (ProgProgram) p1 = program_of (f, PP2 " --mtp-num-layers 1");
  guint a0, n0, a1, n1;
  count_compute (p0, 1, "mtp_fwd", &a0, &n0);
  count_compute (p1, 1, "mtp_fwd", &a1, &n1);
  g_assert_cmpuint (n0, ==, 0);
  g_assert_cmpuint (n1, ==, 4);
  g_assert_cmpuint (a1 - a0, ==, 40);
  count_compute (p0, 0, "mtp_fwd", &a0, &n0);
  count_compute (p1, 0, "mtp_fwd", &a1, &n1);
  g_assert_cmpuint (a1, ==, a0);
  g_assert_cmpuint (n1, ==, 0);

  double mtp_f = -1, layer_f = 0, head_f = -1;
  for (guint i = 0; i < p1->blocks->len; i++)
    {
      const ProgBlock *bk = prog_block (p1, i);
      if (g_str_equal (bk->name, "mtp_fwd"))
        mtp_f = bk->model_flops;
      else if (g_str_equal (bk->name, "attn_fwd") || g_str_equal (bk->name, "mlp_fwd"))
        layer_f += bk->model_flops;
      else if (g_str_equal (bk->name, "head_fwd"))
        head_f = bk->model_flops;
    }
  g_assert_cmpfloat (mtp_f, ==, 68719476736.0);
  double grow = p1->stages[1].model_flops - p0->stages[1].model_flops;
  g_assert_cmpfloat_with_epsilon (grow, 4 * 3 * (mtp_f + layer_f + head_f), 1e-6 * grow);
  g_assert_cmpfloat (p1->stages[0].model_flops, ==, p0->stages[0].model_flops);

  /* finalize_model_grads' all-reduce of the word embedding's gradient over the embedding
   * group (stage 0's rank and the last stage's: ranks 0 and 1 here), once a step on each
   * of the two stages: 128,256 x 4096 = 525,336,576 fp32 gradients, 2,101,346,304 B;
   * none without MTP */
  for (int s = 0; s < 2; s++)
    {
      guint n0 = 0, n1 = 0;
      double bytes = 0;
      for (guint32 i = p0->stages[s].first; i < p0->stages[s].first + p0->stages[s].n_tasks; i++)
        n0 += prog_task (p0, i)->kind == PROG_TASK_COLL && prog_task (p0, i)->axis == PLAN_AXIS_EMBD;
      for (guint32 i = p1->stages[s].first; i < p1->stages[s].first + p1->stages[s].n_tasks; i++)
        {
          const ProgTask *t = prog_task (p1, i);
          if (t->kind == PROG_TASK_COLL && t->axis == PLAN_AXIS_EMBD)
            {
              n1++;
              bytes = t->bytes;
              g_assert_cmpint (t->coll, ==, PLAN_COLL_ALL_REDUCE);
            }
        }
      g_assert_cmpuint (n0, ==, 0);
      g_assert_cmpuint (n1, ==, 1);
      g_assert_cmpfloat (bytes, ==, 2101346304.0);
    }
}

/* The last stage's parameters grow by one module and the word-embedding copy it looks the
 * shifted tokens up in, in bf16 (2 bytes; no sharding at dp 1). The module: its layer
 * (attention 2 x 4096^2 + 2 x 4096 x 1024 = 41,943,040, MLP 3 x 4096 x 14336 =
 * 176,160,768, two norms 8,192: 218,112,000) + enorm, hnorm, final norm (3 x 4096 =
 * 12,288) + eh_proj 2 x 4096^2 = 33,554,432: 251,678,720; the embedding 128,256 x 4096 =
 * 525,336,576; together 777,015,296 x 2 B = 1,554,030,592 B. The first stage's do not. */
static void
test_memory (Fixture *f, gconstpointer data)
{
  f->model->mtp_layers = 1;
  g_autoptr (GError) error = NULL;
  PlanMemory m0, m1;
  g_assert_true (resolve (f, PP2, &error));
  plan_memory_compute (f->model, &f->plan, f->cluster, &m0);
  g_assert_true (resolve (f, PP2 " --mtp-num-layers 1", &error));
  plan_memory_compute (f->model, &f->plan, f->cluster, &m1);
  g_assert_cmpuint (m1.stages[1].bytes[PLAN_MEM_PARAMS] - m0.stages[1].bytes[PLAN_MEM_PARAMS],
                    ==, 1554030592);
  g_assert_cmpuint (m1.stages[0].bytes[PLAN_MEM_PARAMS], ==, m0.stages[0].bytes[PLAN_MEM_PARAMS]);
  g_assert_cmpuint (m1.stages[1].bytes[PLAN_MEM_ACTIVATIONS], >, m0.stages[1].bytes[PLAN_MEM_ACTIVATIONS]);
  plan_memory_clear (&m0);
  plan_memory_clear (&m1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/plan/mtp/invalid", Fixture, NULL, setup, test_invalid, teardown);
  g_test_add ("/plan/mtp/json-round-trip", Fixture, NULL, setup, test_json_round_trip, teardown);
  g_test_add ("/plan/mtp/program", Fixture, NULL, setup, test_program, teardown);
  g_test_add ("/plan/mtp/memory", Fixture, NULL, setup, test_memory, teardown);
  return g_test_run ();
}
