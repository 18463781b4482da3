/* tests/plan/plan-fixture.h - the fixture of the plan tests (test-plan, test-moe,
 * test-mtp): a plan with its parsed arguments, a model and h100-24k (8 GPUs per server).
 * The model is the test's data, else PLAN_FIXTURE_MODEL (define it before including this
 * header; llama3-8b when not defined). */
#pragma once

#include "plan/layout.h"
#include "plan/program.h"
#include "plan-flags.h"

#include <string.h>

#ifndef PLAN_FIXTURE_MODEL
#define PLAN_FIXTURE_MODEL "llama3-8b"
#endif

typedef struct {
  Plan         plan;
  PlanArgs     args;
  ModelSpec   *model;
  TopoCluster *cluster;
} Fixture;

static G_GNUC_UNUSED void
setup (Fixture *f, gconstpointer data)
{
  plan_init_defaults (&f->plan);
  memset (&f->args, 0, sizeof f->args);
  g_autoptr (GError) error = NULL;
  f->model = model_spec_lookup (data ? data : PLAN_FIXTURE_MODEL, &error);
  g_assert_no_error (error);
  f->cluster = topo_cluster_lookup ("h100-24k", &error);
  g_assert_no_error (error);
}

static G_GNUC_UNUSED void
teardown (Fixture *f, gconstpointer data)
{
  plan_clear (&f->plan);
  plan_args_clear (&f->args);
  g_clear_pointer (&f->model, model_spec_unref);
  g_clear_pointer (&f->cluster, topo_cluster_unref);
}

/* The plan of `flags` alone (the fixture's plan started afresh), resolved on the
 * fixture's model and cluster. */
static G_GNUC_UNUSED gboolean
resolve (Fixture *f, const char *flags, GError **error)
{
  plan_clear (&f->plan);
  plan_init_defaults (&f->plan);
  return plan_flags_parse (&f->plan, &f->args, flags, error)
         && plan_resolve (&f->plan, f->model, f->cluster, error);
}

/* The step program of the fixture's plan as it stands (resolved). */
static G_GNUC_UNUSED ProgProgram *
fixture_program (Fixture *f)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PlanLayout) lay = plan_layout_new (&f->plan, f->cluster, &error);
  g_assert_no_error (error);
  ProgProgram *p = prog_program_new (f->model, &f->plan, lay, &error);
  g_assert_no_error (error);
  return p;
}

/* The step program of `flags` (resolve; a plan that does not resolve fails the test). */
static G_GNUC_UNUSED ProgProgram *
program_of (Fixture *f, const char *flags)
{
  g_autoptr (GError) error = NULL;
  if (!resolve (f, flags, &error))
    g_error ("%s: %s", flags, error->message);
  return fixture_program (f);
}
