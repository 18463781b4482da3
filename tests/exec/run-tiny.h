/* tests/exec/run-tiny.h - the runner tests' common path: a tiny-llama plan in fp32 on
 * cpu-host, resolved, laid out, turned into a step program and run on a backend (the
 * path of tandem run and of its --verify reference). The callers set what their cases
 * vary on the plan between tiny_plan_init and tiny_run. */
#pragma once

#include "exec/runner.h"

#include <string.h>

typedef struct {
  ModelSpec           *model;
  TopoCluster         *cluster;
  PlanLayout          *layout;
  ProgProgram         *prog;
  ExecRunner          *runner;   /* keeps the result; needs layout and prog alive */
  const ExecRunResult *res;
} TinyRun;

/* A world of `world` ranks, 4 sequences of `seq` tokens per step, every dtype fp32. */
static G_GNUC_UNUSED void
tiny_plan_init (Plan *p, int world, int seq)
{
  plan_init_defaults (p);
  p->world_size = world;
  p->seq_length = seq;
  p->global_batch = 4;
  p->compute_dtype = p->param_dtype = p->grad_dtype = p->optim_dtype = PLAN_PREC_FP32;
}

/* Runs `steps` timed steps (no warm-up) of plan p on b, within timeout_s (0: the runner's
 * default); asserts that every stage succeeds. */
static G_GNUC_UNUSED void
tiny_run (TinyRun *t, ExecBackend *b, Plan *p, int steps, double timeout_s)
{
  g_autoptr (GError) error = NULL;
  memset (t, 0, sizeof *t);
  t->model = model_spec_lookup ("tiny-llama", &error);
  g_assert_no_error (error);
  t->cluster = topo_cluster_lookup ("cpu-host", &error);
  g_assert_no_error (error);
  g_assert_true (plan_resolve (p, t->model, t->cluster, &error));
  g_assert_no_error (error);
  t->layout = plan_layout_new (p, t->cluster, &error);
  g_assert_no_error (error);
  t->prog = prog_program_new (t->model, p, t->layout, &error);
  g_assert_no_error (error);
  ExecRunOptions o;
  exec_run_options_init (&o);
  o.steps = steps;
  o.warmup = 0;
  if (timeout_s > 0)
    o.timeout_s = timeout_s;
  t->runner = exec_runner_new (b, t->prog, t->layout, &o, &error);
  g_assert_no_error (error);
  g_assert_true (exec_runner_run (t->runner, &error));
  g_assert_no_error (error);
  t->res = exec_runner_result (t->runner);
}

static G_GNUC_UNUSED void
tiny_run_clear (TinyRun *t)
{
  g_clear_pointer (&t->runner, exec_runner_free);
  g_clear_pointer (&t->prog, prog_program_free);
  g_clear_pointer (&t->layout, plan_layout_free);
  g_clear_pointer (&t->cluster, topo_cluster_unref);
  g_clear_pointer (&t->model, model_spec_unref);
  t->res = NULL;
}
