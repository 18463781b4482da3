/* cli/cmd-run-report.c - `tandem run`'s measured-vs-predicted: the terms compared (step
 * time, compute, exposed communication by kind, bubble, peak memory) with the error of
 * each, one run in the results store, the --json object and the table. */
#include "cli/cmd-run-private.h"
#include "util/input.h"
#include "results/store.h"
#include "cli/cli-store.h"
#include "cli/cli-hygiene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* tp, cp, ep, pp, dp: the keys of docs/contracts.md, measured and predicted alike */
#define kinds_member sim_comm_kinds_to_json

/* The terms compared, measured and predicted; the exposed kinds in PROG_COMM_* order. */
enum { T_STEP, T_COMPUTE, T_TP, T_CP, T_PP, T_DP, T_EP, T_BUBBLE, T_MEMORY, T_N };
G_STATIC_ASSERT (T_TP + PROG_COMM_N == T_BUBBLE && T_TP + PROG_COMM_EP == T_EP);
static const char *const term_names[T_N] = {
  "step_time", "compute", "exposed_tp", "exposed_cp", "exposed_pp", "exposed_dp",
  "exposed_ep", "bubble", "peak_memory",
};

static void
terms (const ExecRunResult *m, const SimPrediction *p, const PlanMemory *mem, double *meas,
       double *pred)
{
  const SimResult *s = p->result;
  meas[T_STEP] = m->step_time_s, pred[T_STEP] = s->step_time_s;
  meas[T_COMPUTE] = m->compute_s, pred[T_COMPUTE] = s->compute_s;
  for (int k = 0; k < PROG_COMM_N; k++)
    meas[T_TP + k] = m->exposed_s[k], pred[T_TP + k] = s->exposed_comm_s[k];
  meas[T_BUBBLE] = m->bubble_s, pred[T_BUBBLE] = s->bubble_fraction * s->step_time_s;
  /* the runner's own buffers are what the memory model counts (weights, gradients,
   * optimizer state, activations, buffers); the resident set adds the process itself */
  meas[T_MEMORY] = (double) m->peak_alloc_bytes, pred[T_MEMORY] = (double) mem->peak_bytes;
}

static double
err_pct (double pred, double meas)
{
  return meas > 0 ? 100.0 * (pred - meas) / meas : NAN;
}

#define RUN_HINT "more --steps on a quiet machine"

/* The measured step's spread over the timed steps of rank 0 and the load before. */
static void
run_spread (const RunCtx *c, const ExecRunResult *m, CliSpread *sp)
{
  cli_spread_compute (m->step_times_s, m->steps, c->load_before, c->world, sp);
  /* the median the run reports (of an even count the faster of the middle two, the step
   * whose figures are given: exec/runner-measure.c), not the mean of the middle two */
  sp->median_s = m->step_time_s;
  sp->spread = sp->median_s > 0 ? (sp->max_s - sp->min_s) / sp->median_s : 0;
  /* the kernel's count of rank 0's wait over the timed steps decides, where known */
  cli_spread_set_share (sp, c->run_share);
}

static double
local_ranks (const RunCtx *c)
{
  const char *local = g_getenv ("OMPI_COMM_WORLD_LOCAL_SIZE");
  if (local == NULL)
    local = g_getenv ("MPI_LOCALNRANKS");
  const int n = local != NULL ? atoi (local) : 0;
  return n > 0 ? MIN (n, c->world) : c->world;
}

void
cli_run_cpu_host (const RunCtx *c, SimCostOptions *o)
{
  sim_cost_options_cpu_host (o, c->cluster, (double) g_get_num_processors (), local_ranks (c));
}

/* The contention model as this run's prediction used it; FALSE when it does not apply. */
static gboolean
run_contention (const RunCtx *c, SimCpuContention *out)
{
  SimCostOptions o;
  sim_cost_options_init (&o, c->cluster);
  cli_run_cpu_host (c, &o);
  return sim_cost_cpu_contention (c->cluster, &o, out);
}

/* The predicted step within rank 0's measured range of step times (min <= p <= max). */
static gboolean
within_spread (const CliSpread *sp, double pred)
{
  return sp->n > 1 && pred >= sp->min_s && pred <= sp->max_s;
}

/* Which profile the prediction used, in words: "profile 3 stored 2026-...Z, measured on
 * 2 ranks (tandem calibrate on HOST, DATE)". NULL when uncalibrated. */
static char *
profile_words (const RunCtx *c)
{
  if (!c->calibrated)
    return NULL;
  const TopoProfile *pr = c->cluster->profile;
  GString *w = g_string_new (NULL);
  if (c->profile_id > 0)
    g_string_append_printf (w, "profile %" G_GINT64_FORMAT " stored %s", c->profile_id,
                            c->profile_stored_at ? c->profile_stored_at : "?");
  else
    g_string_append_printf (w, "the profile in %s", c->cluster->source);
  if (pr != NULL && pr->ranks > 0)
    g_string_append_printf (w, ", measured on %u rank%s", pr->ranks, pr->ranks == 1 ? "" : "s");
  if (pr != NULL && pr->source != NULL)
    g_string_append_printf (w, " (%s)", pr->source);
  return g_string_free (w, FALSE);
}

/* "profile": {id, stored_at, ranks, date, source} (null fields where unknown) */
static void
profile_json (const RunCtx *c, JsonBuilder *b)
{
  json_builder_set_member_name (b, "profile");
  if (!c->calibrated)
    {
      json_builder_add_null_value (b);
      return;
    }
  const TopoProfile *pr = c->cluster->profile;
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "id");
  if (c->profile_id > 0)
    json_builder_add_int_value (b, c->profile_id);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "stored_at");
  if (c->profile_stored_at)
    json_builder_add_string_value (b, c->profile_stored_at);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "file");
  json_builder_add_string_value (b, c->cluster->source);
  json_builder_set_member_name (b, "ranks");
  json_builder_add_int_value (b, pr ? pr->ranks : 0);
  json_builder_set_member_name (b, "date");
  if (pr && pr->date)
    json_builder_add_string_value (b, pr->date);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "source");
  if (pr && pr->source)
    json_builder_add_string_value (b, pr->source);
  else
    json_builder_add_null_value (b);
  json_builder_end_object (b);
}

void
cli_run_warn_hygiene (RunCtx *c, const ExecRunResult *m)
{
  CliSpread sp;
  run_spread (c, m, &sp);
  g_autoptr (GPtrArray) w = cli_spread_warnings (&sp, "measured step time", RUN_HINT);
  for (guint i = 0; i < w->len; i++)
    fprintf (stderr, "tandem: warning: %s\n", (const char *) g_ptr_array_index (w, i));
}

gint64
cli_run_store (RunCtx *c, const ExecRunResult *m, const SimPrediction *p, const PlanMemory *mem,
           const Verify *v, GError **error)
{
  g_autoptr (ResStore) store = cli_store_open (&c->dba, FALSE, error);
  if (store == NULL)
    return -1;
  const SimResult *s = p->result;
  g_autofree char *plan_str = plan_to_string (&c->plan);
  g_autoptr (JsonBuilder) pb = json_builder_new ();
  plan_to_json (&c->plan, pb);
  g_autofree char *plan_json = cli_json_text (pb);
  g_autoptr (JsonBuilder) memb = json_builder_new ();
  plan_memory_to_json (mem, memb);
  g_autofree char *pred_mem = cli_json_text (memb);
  /* the same FLOPs in the measured time */
  double scale = m->step_time_s > 0 ? s->step_time_s / m->step_time_s : 0;
  g_autofree char *pred_mfu = cli_conv_json (p->model, s->mfu, 1), *pred_hfu = cli_number_json (s->hfu);
  g_autofree char *meas_mfu = cli_conv_json (p->model, s->mfu, scale), *meas_hfu = cli_number_json (s->hfu * scale);

  g_autoptr (JsonBuilder) mm = json_builder_new ();
  json_builder_begin_object (mm);
  json_builder_set_member_name (mm, "peak_rss_bytes");
  json_builder_add_int_value (mm, m->peak_rss_bytes);
  json_builder_set_member_name (mm, "runner_peak_bytes");
  json_builder_add_int_value (mm, m->peak_alloc_bytes);
  json_builder_end_object (mm);
  g_autofree char *meas_mem = cli_json_text (mm);
  g_autoptr (JsonBuilder) xb = json_builder_new ();
  json_builder_begin_object (xb);
  util_json_member_number (xb, "loss", m->loss);
  util_json_member_number (xb, "grad_norm", m->grad_norm);
  kinds_member (xb, "comm_s", m->comm_s);
  util_json_member_number (xb, "bubble_s", m->bubble_s);
  json_builder_set_member_name (xb, "calibrated");
  json_builder_add_boolean_value (xb, c->calibrated);
  profile_json (c, xb);
  {
    CliSpread sp;
    run_spread (c, m, &sp);
    cli_spread_to_json (&sp, "measured step time", RUN_HINT, "spread", xb);
  }
  if (v)
    {
      json_builder_set_member_name (xb, "verify_ok");
      json_builder_add_boolean_value (xb, v->ok);
    }
  json_builder_end_object (xb);
  g_autofree char *extra = cli_json_text (xb);
  g_autoptr (JsonBuilder) tb = json_builder_new ();
  json_builder_begin_array (tb);
  for (int k = 0; k < m->steps; k++)
    json_builder_add_double_value (tb, m->step_times_s[k]);
  json_builder_end_array (tb);
  g_autofree char *step_times = cli_json_text (tb);

  ResRunInfo info = { 0 };
  info.kind = RES_KIND_RUN;
  info.status = RES_STATUS_OK;
  info.model = c->model->name;
  info.cluster = c->cluster->name;
  info.plan = plan_str;
  info.plan_json = plan_json;
  info.model_json = c->model->config_json;
  info.cluster_json = c->cluster->json;
  info.world_size = c->world;
  info.note = c->a.note;
  info.framework = CLI_RUN_STACK;   /* NULL left the row's framework NULL */

  ResMetrics pred, meas;
  cli_predicted_metrics (p, mem, pred_mfu, pred_hfu, pred_mem, &pred);
  res_metrics_init (&meas);
  meas.step_time_s = m->step_time_s;
  meas.tokens_per_s = m->step_time_s > 0 ? p->program->tokens_per_step / m->step_time_s : NAN;
  meas.tflops_per_gpu = s->model_tflops_per_gpu[MODEL_FLOPS_PALM] * scale;
  meas.mfu_json = meas_mfu;
  meas.hfu_json = meas_hfu;
  meas.mfu = s->mfu[MODEL_FLOPS_PALM] * scale;
  meas.flops_convention = pred.flops_convention;
  meas.hfu = s->hfu * scale;
  meas.bubble_fraction = m->bubble_fraction;
  meas.compute_s = m->compute_s;
  for (int k = 0; k < PROG_COMM_N; k++)
    meas.exposed_s[k] = m->exposed_s[k];
  meas.overlap_ratio = m->overlap_ratio;
  meas.peak_memory_bytes = m->peak_alloc_bytes;
  meas.fits = 1;
  meas.memory_json = meas_mem;
  meas.extra_json = extra;
  ResMeasureInfo mi = { .steps = m->steps, .warmup = m->warmup, .ranks = m->world,
                        .step_times_json = step_times };

  g_autoptr (GArray) ph = g_array_new (FALSE, TRUE, sizeof (ResPhase));
  cli_predicted_phases (s, ph);
  for (int q = 0; q < m->world; q++)
    {
      const ExecRankStats *x = &m->ranks[q];
      ResPhase a = { RES_SOURCE_MEASURED, q, "compute", x->compute_s, NAN };
      g_array_append_val (ph, a);
      for (int k = 0; k < PROG_COMM_N; k++)
        {
          if (k == PROG_COMM_EP && x->comm_s[k] == 0 && x->exposed_s[k] == 0)
            continue;   /* dense models: no ep row */
          ResPhase e = { RES_SOURCE_MEASURED, q, prog_comm_name (k), x->comm_s[k],
                         x->exposed_s[k] };
          g_array_append_val (ph, e);
        }
      ResPhase bub = { RES_SOURCE_MEASURED, q, "bubble", x->bubble_s, NAN };
      g_array_append_val (ph, bub);
    }
  /* the row written at the start is closed with the results; without one (the store
   * was not reachable then), the whole run goes in now */
  if (c->run_id > 0)
    {
      ResRunStatus status = v != NULL && !v->ok ? RES_STATUS_FAILED : RES_STATUS_OK;
      if (!res_store_finish_run (store, c->run_id, status,
                                 status == RES_STATUS_FAILED
                                 ? "--verify: differs from the single-rank run" : NULL,
                                 &pred, &meas, &mi, (const ResPhase *) ph->data, ph->len,
                                 error))
        return -1;
      return c->run_id;
    }
  if (v != NULL && !v->ok)
    {
      info.status = RES_STATUS_FAILED;
      info.error = "--verify: differs from the single-rank run";
    }
  return res_store_add_run (store, &info, &pred, &meas, &mi, (const ResPhase *) ph->data,
                            ph->len, error);
}

void
cli_run_predicted_members (JsonBuilder *b, const SimPrediction *p, double bubble_s,
                           guint64 peak_bytes)
{
  const SimResult *s = p->result;
  util_json_member_number (b, "step_time_s", s->step_time_s);
  util_json_member_number (b, "tokens_per_s", s->tokens_per_s);
  util_json_member_number (b, "compute_s", s->compute_s);
  kinds_member (b, "comm_s", s->comm_s);
  kinds_member (b, "exposed_comm_s", s->exposed_comm_s);
  if (bubble_s >= 0)
    util_json_member_number (b, "bubble_s", bubble_s);
  util_json_member_number (b, "bubble_fraction", s->bubble_fraction);
  util_json_member_number (b, "overlap_ratio", s->overlap_ratio);
  /* MFU by convention and the one HFU, as predict's JSON gives them (docs/contracts.md) */
  cli_mfu_members (b, p->model, s->mfu, s->hfu, 1);
  json_builder_set_member_name (b, "peak_memory_bytes");
  json_builder_add_int_value (b, (gint64) peak_bytes);
}

JsonNode *
cli_run_json (RunCtx *c, const ExecRunResult *m, const SimPrediction *p, const PlanMemory *mem,
              const Verify *v)
{
  double meas[T_N], pred[T_N];
  terms (m, p, mem, meas, pred);
  const SimResult *s = p->result;
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "model");
  json_builder_add_string_value (b, c->model->name);
  json_builder_set_member_name (b, "cluster");
  json_builder_add_string_value (b, c->cluster->name);
  json_builder_set_member_name (b, "calibrated");
  json_builder_add_boolean_value (b, c->calibrated);
  profile_json (c, b);
  /* the plan object of predict's JSON (its "summary" is the string this member was) and
   * the stack beside it, as the stored row has them (docs/contracts.md) */
  json_builder_set_member_name (b, "plan");
  plan_to_json (&c->plan, b);
  util_json_member_string (b, "framework", CLI_RUN_STACK);
  json_builder_set_member_name (b, "world_size");
  json_builder_add_int_value (b, c->world);
  /* the count the stored MFU headline is in; mfu below gives every count */
  util_json_member_string (b, "flops_convention", model_flop_convention_name (MODEL_FLOPS_PALM));
  {
    /* the step time's error against the measured spread (min <= predicted <= max) */
    CliSpread sp;
    run_spread (c, m, &sp);
    json_builder_set_member_name (b, "step_within_spread");
    json_builder_add_boolean_value (b, within_spread (&sp, p->result->step_time_s));
    SimCpuContention ct;
    json_builder_set_member_name (b, "contention");
    if (run_contention (c, &ct))
      {
        json_builder_begin_object (b);
        util_json_member_number (b, "cores", ct.cores);
        util_json_member_number (b, "ranks", ct.ranks);
        util_json_member_number (b, "calibrated_cores", ct.cal_cores);
        util_json_member_number (b, "calibrated_ranks", ct.cal_ranks);
        util_json_member_number (b, "threads_per_rank", ct.threads_per_rank);
        util_json_member_number (b, "compute_scale", ct.compute_scale);
        json_builder_set_member_name (b, "oversubscribed");
        json_builder_add_boolean_value (b, ct.oversubscribed);
        util_json_member_number (b, "measured_slowdown", ct.measured_slowdown);
        util_json_member_number (b, "comm_compute_slowdown", ct.slowdown);
        json_builder_end_object (b);
      }
    else
      json_builder_add_null_value (b);
    /* the prediction with the core share the run measured (sim/cost-cpu.c term 3) */
    json_builder_set_member_name (b, "predicted_with_run_share");
    if (c->step_with_share_s > 0 && run_contention (c, &ct))
      {
        json_builder_begin_object (b);
        util_json_member_number (b, "cpu_share", c->step_share);
        /* whose share it is: the median step's slowest rank, or null for rank 0's over
         * the run (no rank measured its steps) */
        json_builder_set_member_name (b, "share_rank");
        if (c->step_share_rank >= 0)
          json_builder_add_int_value (b, c->step_share_rank);
        else
          json_builder_add_null_value (b);
        json_builder_set_member_name (b, "rank_shares");
        json_builder_begin_array (b);
        for (int q = 0; m->ranks != NULL && q < m->world; q++)
          json_builder_add_double_value (b, m->ranks[q].core_share);
        json_builder_end_array (b);
        util_json_member_number (b, "rank0_run_share", c->run_share);
        /* each rank's compute over the median step: on a CPU, waiting, times put on one */
        json_builder_set_member_name (b, "rank_compute_sched");
        json_builder_begin_array (b);
        for (int q = 0; m->ranks != NULL && q < m->world; q++)
          {
            json_builder_begin_array (b);
            json_builder_add_double_value (b, m->ranks[q].compute_oncpu_s);
            json_builder_add_double_value (b, m->ranks[q].compute_waiting_s);
            json_builder_add_double_value (b, m->ranks[q].compute_slices);
            json_builder_end_array (b);
          }
        json_builder_end_array (b);
        /* term 4: the ranks' drift between collectives, added to step_time_s */
        json_builder_set_member_name (b, "skew_s");
        if (c->skew_s >= 0)
          json_builder_add_double_value (b, c->skew_s);
        else
          json_builder_add_null_value (b);
        json_builder_set_member_name (b, "skew_segments");
        json_builder_add_int_value (b, c->skew_segments);
        json_builder_set_member_name (b, "skew_poisson_s");
        if (c->skew_s >= 0)
          json_builder_add_double_value (b, c->skew_poisson_s);
        else
          json_builder_add_null_value (b);
        json_builder_set_member_name (b, "rank_wait_var_s");
        json_builder_begin_array (b);
        for (int q = 0; m->ranks != NULL && q < m->world; q++)
          json_builder_add_double_value (b, m->ranks[q].compute_wait_var_s);
        json_builder_end_array (b);
        if (c->skew_s >= 0)
          {
            const double t = c->step_with_share_s + c->skew_s;
            util_json_member_number (b, "step_time_with_skew_s", t);
            util_json_member_number (b, "error_with_skew_pct", err_pct (t, m->step_time_s));
            json_builder_set_member_name (b, "within_spread_with_skew");
            json_builder_add_boolean_value (b, within_spread (&sp, t));
          }
        util_json_member_number (b, "calibrated_share", ct.cal_share);
        util_json_member_number (b, "step_time_s", c->step_with_share_s);
        util_json_member_number (b, "error_pct", err_pct (c->step_with_share_s, m->step_time_s));
        json_builder_set_member_name (b, "within_spread");
        json_builder_add_boolean_value (b, within_spread (&sp, c->step_with_share_s));
        json_builder_end_object (b);
      }
    else
      json_builder_add_null_value (b);
  }

  json_builder_set_member_name (b, "measured");
  json_builder_begin_object (b);
  util_json_member_number (b, "step_time_s", m->step_time_s);
  json_builder_set_member_name (b, "step_times_s");
  json_builder_begin_array (b);
  for (int k = 0; k < m->steps; k++)
    json_builder_add_double_value (b, m->step_times_s[k]);
  json_builder_end_array (b);
  {
    CliSpread sp;
    run_spread (c, m, &sp);
    cli_spread_to_json (&sp, "measured step time", RUN_HINT, "spread", b);
  }
  json_builder_set_member_name (b, "steps");
  json_builder_add_int_value (b, m->steps);
  json_builder_set_member_name (b, "warmup");
  json_builder_add_int_value (b, m->warmup);
  util_json_member_number (b, "tokens_per_s", m->step_time_s > 0 ? p->program->tokens_per_step / m->step_time_s
                                             : NAN);
  util_json_member_number (b, "compute_s", m->compute_s);
  kinds_member (b, "comm_s", m->comm_s);
  kinds_member (b, "exposed_comm_s", m->exposed_s);
  util_json_member_number (b, "bubble_s", m->bubble_s);
  util_json_member_number (b, "bubble_fraction", m->bubble_fraction);
  util_json_member_number (b, "overlap_ratio", m->overlap_ratio);
  /* the predicted FLOPs over the measured step, as the store holds them */
  cli_mfu_members (b, p->model, s->mfu, s->hfu,
                   m->step_time_s > 0 ? s->step_time_s / m->step_time_s : NAN);
  json_builder_set_member_name (b, "peak_memory_bytes");
  json_builder_add_int_value (b, m->peak_alloc_bytes);
  json_builder_set_member_name (b, "peak_rss_bytes");
  json_builder_add_int_value (b, m->peak_rss_bytes);
  util_json_member_number (b, "loss", m->loss);
  util_json_member_number (b, "grad_norm", m->grad_norm);
  json_builder_set_member_name (b, "losses");
  json_builder_begin_array (b);
  for (int k = 0; k < m->warmup + m->steps; k++)
    json_builder_add_double_value (b, m->losses[k]);
  json_builder_end_array (b);
  json_builder_end_object (b);

  json_builder_set_member_name (b, "predicted");
  json_builder_begin_object (b);
  cli_run_predicted_members (b, p, pred[T_BUBBLE], mem->peak_bytes);
  json_builder_end_object (b);

  json_builder_set_member_name (b, "error_pct");
  json_builder_begin_object (b);
  for (int k = 0; k < T_N; k++)
    util_json_member_number (b, term_names[k], err_pct (pred[k], meas[k]));
  json_builder_end_object (b);

  if (v)
    {
      json_builder_set_member_name (b, "verify");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "ok");
      json_builder_add_boolean_value (b, v->ok);
      util_json_member_number (b, "loss", v->loss);
      util_json_member_number (b, "reference_loss", v->ref_loss);
      util_json_member_number (b, "loss_rel_err", v->loss_err);
      util_json_member_number (b, "loss_tolerance", v->loss_tol);
      util_json_member_number (b, "grad_norm", v->gnorm);
      util_json_member_number (b, "reference_grad_norm", v->ref_gnorm);
      util_json_member_number (b, "grad_norm_rel_err", v->gnorm_err);
      util_json_member_number (b, "grad_norm_tolerance", v->gnorm_tol);
      json_builder_end_object (b);
    }
  if (c->a.trace)
    {
      json_builder_set_member_name (b, "trace");
      json_builder_add_string_value (b, c->a.trace);
    }
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static void
fmt_term (char *buf, gsize len, int k, double v)
{
  if (!isfinite (v))
    g_strlcpy (buf, "-", len);
  else if (k == T_MEMORY)
    g_strlcpy (buf, cli_fmt_bytes (v), len);
  else
    g_snprintf (buf, len, "%.4f s", v);
}

void
cli_run_print_text (RunCtx *c, const ExecRunResult *m, const SimPrediction *p, const PlanMemory *mem,
            const Verify *v)
{
  static const char *const labels[T_N] = {
    "step time", "compute", "exposed tp", "exposed cp", "exposed pp", "exposed dp",
    "exposed ep", "bubble", "peak memory",
  };
  double meas[T_N], pred[T_N];
  terms (m, p, mem, meas, pred);
  g_autofree char *plan_str = plan_to_string (&c->plan);
  /* the names as every terminal line gives them (control and bidirectional characters
   * escaped: a model file named with U+202E reordered the line) */
  g_autofree char *model_name = cli_printable (c->model->name, NULL);
  g_autofree char *cluster_name = cli_printable (c->cluster->name, NULL);
  printf ("run: %s, %s on %d rank%s (%s backend)\n", model_name, plan_str, c->world,
          c->world == 1 ? "" : "s", c->b->ops->name);
  g_autofree char *prof = profile_words (c);
  printf ("  prediction for cluster %s: %s\n", cluster_name,
          prof ? prof : "uncalibrated defaults (run tandem calibrate for a measured profile)");
  printf ("  %d warm-up + %d timed steps; step times", m->warmup, m->steps);
  for (int k = 0; k < m->steps; k++)
    printf (" %.4f", m->step_times_s[k]);
  printf (" s (median %.4f s)\n", m->step_time_s);
  CliSpread sp;
  run_spread (c, m, &sp);
  printf ("  rank 0: min %.4f / median %.4f / max %.4f s, spread %.1f%%", sp.min_s,
          sp.median_s, sp.max_s, 100 * sp.spread);
  if (sp.load1 >= 0)
    printf ("; load average %.2f on %d cores before the run", sp.load1, sp.cores);
  if (sp.share > 0)
    printf ("; core share %.2f during it", sp.share);
  printf ("%s\n", sp.spread_high || sp.loaded ? ": NOT TRUSTWORTHY (see the warnings)" : "");
  printf ("  loss %.6f (first step)", m->loss);
  if (m->warmup + m->steps > 1)
    printf (" -> %.6f (last)", m->losses[m->warmup + m->steps - 1]);
  printf (", gradient norm %.6g\n\n", m->grad_norm);
  printf ("  %-14s %14s %14s %10s\n", "term", "measured", "predicted", "error");
  for (int k = 0; k < T_N; k++)
    {
      char a[32], b[32], e[32] = "-";
      fmt_term (a, sizeof a, k, meas[k]);
      fmt_term (b, sizeof b, k, pred[k]);
      double pct = err_pct (pred[k], meas[k]);
      if (isfinite (pct))
        g_snprintf (e, sizeof e, "%+.1f%%", pct);
      printf ("  %-14s %14s %14s %10s\n", labels[k], a, b, e);
    }
  printf ("  (measured: means over ranks of the median step; peak memory: the runner's "
          "buffers on the fullest rank, resident set %s)\n",
          cli_fmt_bytes ((double) m->peak_rss_bytes));
  if (sp.n > 1 && sp.median_s > 0)
    printf ("  step time: predicted %.4f s, measured min %.4f / median %.4f / max %.4f s: "
            "error %+.1f%%, %s the measured spread (%+.1f%% .. %+.1f%%)\n",
            pred[T_STEP], sp.min_s, sp.median_s, sp.max_s, err_pct (pred[T_STEP], meas[T_STEP]),
            within_spread (&sp, pred[T_STEP]) ? "within" : "outside",
            err_pct (sp.min_s, sp.median_s), err_pct (sp.max_s, sp.median_s));
  SimCpuContention ct;
  if (run_contention (c, &ct))
    printf ("  contention: %g rank%s x %g threads (BLAS + MPI progress) on %g core%s now, "
            "calibrated as %g on %g: compute x %.2f; %s %.1f%%%s\n",
            ct.ranks, ct.ranks == 1 ? "" : "s", ct.threads_per_rank, ct.cores,
            ct.cores == 1 ? "" : "s", ct.cal_ranks, ct.cal_cores, ct.compute_scale,
            ct.oversubscribed ? "more threads than cores: compute next to a collective in "
                                "flight slowed by"
                              : "a core for every thread: no slowdown next to collectives ("
                                "measured when oversubscribed:",
            100 * ct.measured_slowdown,
            ct.oversubscribed ? " while the collective runs (measured at calibration)" : ")");
  if (c->step_with_share_s > 0 && run_contention (c, &ct) && sp.median_s > 0)
    {
      if (c->step_share_rank >= 0)
        {
          g_autoptr (GString) each = g_string_new (NULL);
          for (int q = 0; m->ranks != NULL && q < m->world; q++)
            g_string_append_printf (each, "%s%.2f", q ? " " : "", m->ranks[q].core_share);
          printf ("  core share: over the median step the slowest rank (%d) ran %.2f of the "
                  "time it was runnable (ranks: %s; rank 0 over the run %.2f; calibration's "
                  "compute benchmarks' kept windows: %.2f); the ranks wait for it at every "
                  "collective\n",
                  c->step_share_rank, c->step_share, each->str, c->run_share, ct.cal_share);
        }
      else
        printf ("  core share: rank 0's compute thread ran %.2f of the time it was runnable "
                "(calibration's compute benchmarks' kept windows: %.2f)\n", c->step_share,
                ct.cal_share);
      printf ("  predicted with that share %.4f s: error %+.1f%%, %s the measured spread\n",
              c->step_with_share_s, err_pct (c->step_with_share_s, meas[T_STEP]),
              within_spread (&sp, c->step_with_share_s) ? "within" : "outside");
      if (c->skew_s >= 0 && m->ranks != NULL)
        {
          g_autoptr (GString) each = g_string_new (NULL);
          for (int q = 0; q < m->world; q++)
            {
              const ExecRankStats *st = &m->ranks[q];
              g_string_append_printf (each, "%s%.1f / %.1f ms (task to task %.1f ms^2 per s)",
                                      q ? ", " : "",
                                      1e3 * st->compute_oncpu_s / st->compute_slices,
                                      1e3 * st->compute_waiting_s / st->compute_slices,
                                      1e6 * st->compute_wait_var_s);
            }
          const double t = c->step_with_share_s + c->skew_s;
          printf ("  drift between collectives: %d segments; runs / waits for a core in the "
                  "median step's compute, per rank: %s; the ranks' drift adds %.4f s "
                  "(%.4f s from the waits' counts alone): predicted %.4f s, error %+.1f%%, "
                  "%s the measured spread\n",
                  c->skew_segments, each->str, c->skew_s, c->skew_poisson_s, t,
                  err_pct (t, meas[T_STEP]),
                  within_spread (&sp, t) ? "within" : "outside");
        }
    }
  if (v)
    printf ("\n  verify: %s: loss %.7g vs single-rank %.7g (relative error %.2g, tolerance "
            "%g); gradient norm %.7g vs %.7g (%.2g, tolerance %g)\n", v->ok ? "ok" : "FAILED",
            v->loss, v->ref_loss, v->loss_err, v->loss_tol, v->gnorm, v->ref_gnorm,
            v->gnorm_err, v->gnorm_tol);
  if (c->a.trace)
    printf ("  measured trace: %s (one process per pipeline stage, its tp=cp=dp=0 rank)\n",
            c->a.trace);
  if (c->a.pred_trace)
    printf ("  predicted trace: %s\n", c->a.pred_trace);
  if (c->a.merged_trace)
    printf ("  measured and predicted trace: %s\n", c->a.merged_trace);
}

/* Rank 0, after a successful run: verify, predict, store, print. */
