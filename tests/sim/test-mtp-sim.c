/* tests/sim/test-mtp-sim.c - multi-token prediction (plan.h mtp_num_layers) on the
 * simulator: on one GPU, with nothing to communicate and the optimizer free, the compute
 * stream never waits, so the step is the sum of its compute tasks and the modules add
 * exactly their own tasks' times. */
#include "sim/predict.h"

#include <string.h>

/* 8 layers of hidden 1024, 16 heads, SwiGLU 2816, vocab 64, given one MTP module in its
 * config (as DeepSeek-V3's num_nextn_predict_layers 1) */
static SimPrediction *
predict (int mtp)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ModelSpec) model = model_spec_new_custom ("uniform-8", MODEL_MLP_SWIGLU, 1024, 2816,
                                                       8, 16, 16, 64, 2048, FALSE);
  model->mtp_layers = 1;
  g_autoptr (TopoCluster) cluster = topo_cluster_lookup ("h100-24k", &error);
  g_assert_no_error (error);
  Plan plan;
  plan_init_defaults (&plan);
  plan.world_size = 1;
  plan.global_batch = 3;   /* three micro-batches of one 2048-token sequence */
  plan.seq_length = 2048;
  plan.mtp_num_layers = mtp;
  g_assert_true (plan_resolve (&plan, model, cluster, &error));
  SimOptions opts;
  sim_options_init (&opts, cluster);
  opts.cost.free_optimizer = TRUE;
  opts.keep_timeline = TRUE;
  SimPrediction *p = sim_predict (model, &plan, cluster, &opts, &error);
  g_assert_no_error (error);
  plan_clear (&plan);
  return p;
}

/* The simulated time of the first task running block `name` (every task of a block
 * costs the same on one GPU). */
static double
block_s (const SimPrediction *p, const char *name)
{
  const ProgProgram *prog = p->program;
  for (guint32 i = 0; i < prog->tasks->len; i++)
    {
      const ProgTask *t = prog_task (prog, i);
      if (t->kind == PROG_TASK_COMPUTE && g_str_equal (prog_block (prog, t->block)->name, name))
        return p->result->times[i].end_s - p->result->times[i].start_s;
    }
  g_error ("no task runs %s", name);
  return 0;
}

/* By hand: each of the 3 micro-batches runs one module more, forward the shifted
 * embedding, mtp_fwd (norms, concatenation, eh_proj), a layer's attention and MLP and
 * the head; backward the head, the MLP and attention, mtp_bwd and the embedding. So
 * step(1) - step(0) = 3 x (t_embed_fwd + t_mtp_fwd + t_attn_fwd + t_mlp_fwd +
 * t_head_fwd + t_head_bwd + t_mlp_bwd + t_attn_bwd + t_mtp_bwd + t_embed_bwd), each t
 * the time of one task of that block (the main model's own blocks: the same costs). */
static void
test_step_grows (void)
{
  g_autoptr (SimPrediction) p0 = predict (0);
  g_autoptr (SimPrediction) p1 = predict (1);
  static const char *const blocks[] = { "embed_fwd", "mtp_fwd", "attn_fwd", "mlp_fwd",
                                        "head_fwd", "head_bwd", "mlp_bwd", "attn_bwd",
                                        "mtp_bwd", "embed_bwd" };
  double module = 0;
  for (guint i = 0; i < G_N_ELEMENTS (blocks); i++)
    {
      double t = block_s (p1, blocks[i]);
      g_assert_cmpfloat (t, >, 0);
      module += t;
    }
  double grow = p1->result->step_time_s - p0->result->step_time_s;
  g_assert_cmpfloat_with_epsilon (grow, 3 * module, 1e-6 * grow);
  /* the mcore convention counts the module (model_spec_mtp_flops_per_token, its form),
   * palm does not: FLOPs per step = tflops x step, up by the module's FLOPs per token */
  const ModelSpec *m = p1->program->model;
  double per_tok0 = model_spec_flops_per_token (m, 2048, MODEL_FLOPS_MCORE);
  double per_tok1 = per_tok0 + model_spec_mtp_flops_per_token (m, 2048, FALSE);
  double mc0 = p0->result->model_tflops_per_gpu[MODEL_FLOPS_MCORE] * p0->result->step_time_s;
  double mc1 = p1->result->model_tflops_per_gpu[MODEL_FLOPS_MCORE] * p1->result->step_time_s;
  g_assert_cmpfloat_with_epsilon (mc1 / mc0, per_tok1 / per_tok0, 1e-9);
  double pa0 = p0->result->model_tflops_per_gpu[MODEL_FLOPS_PALM] * p0->result->step_time_s;
  double pa1 = p1->result->model_tflops_per_gpu[MODEL_FLOPS_PALM] * p1->result->step_time_s;
  g_assert_cmpfloat_with_epsilon (pa1 / pa0, 1.0, 1e-9);
  /* and the step is its compute: no wait on one GPU */
  g_assert_cmpfloat_with_epsilon (p1->result->step_time_s, p1->result->compute_s,
                                  1e-9 * p1->result->step_time_s);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sim/mtp/step-grows", test_step_grows);
  return g_test_run ();
}
