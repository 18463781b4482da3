/* cli/cmd-import-log.c - `tandem import-log FILE [plan flags] [--format F] [--skip N]`:
 * the step times of a Megatron-LM or TorchTitan training log (results/training-log.h),
 * predicted for the same plan and stored as one measured run, which `tandem report
 * validation` and `tandem runs show` then show like a run of tandem's own. */
#include "cli/cli.h"
#include "cli/cli-hygiene.h"
#include "cli/cli-store.h"
#include "results/store.h"
#include "results/training-log.h"
#include "sim/predict.h"
#include "util/output.h"

#include <math.h>
#include <stdio.h>

#define IMPORT_HINT "a longer log, or --skip past the warm-up steps"

static JsonNode *
import_json (const SimPrediction *p, const TrainingLog *log, const char *file,
             const CliSpread *sp, double logged_tflops, double err)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "log");
  json_builder_add_string_value (b, file);
  json_builder_set_member_name (b, "format");
  json_builder_add_string_value (b, training_log_format_name (log->format));
  json_builder_set_member_name (b, "model");
  json_builder_add_string_value (b, p->model->name);
  json_builder_set_member_name (b, "cluster");
  json_builder_add_string_value (b, p->cluster->name);
  json_builder_set_member_name (b, "plan");
  plan_to_json (&p->plan, b);
  json_builder_set_member_name (b, "measured");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "step_time_s");
  json_builder_add_double_value (b, sp->median_s);
  cli_spread_to_json (sp, "logged step time", IMPORT_HINT, "spread", b);
  json_builder_set_member_name (b, "logged_tflops_per_gpu");
  if (isfinite (logged_tflops))
    json_builder_add_double_value (b, logged_tflops);
  else
    json_builder_add_null_value (b);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "predicted");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "step_time_s");
  json_builder_add_double_value (b, p->result->step_time_s);
  json_builder_set_member_name (b, "tflops_per_gpu");
  json_builder_add_double_value (b, p->result->model_tflops_per_gpu[MODEL_FLOPS_MCORE]);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "error_pct");
  json_builder_add_double_value (b, err);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static gint64
import_store (const CliDbArgs *dba, const SimPrediction *p, const char *framework,
              const TrainingLog *log, const double *times, guint n, guint skip,
              const CliSpread *sp, const char *note, GError **error)
{
  g_autoptr (ResStore) store = cli_store_open (dba, FALSE, error);
  if (store == NULL)
    return -1;
  g_autofree char *plan_str = plan_to_string (&p->plan);
  g_autoptr (JsonBuilder) pb = json_builder_new ();
  plan_to_json (&p->plan, pb);
  g_autofree char *plan_json = cli_json_text (pb);
  g_autoptr (JsonBuilder) mb = json_builder_new ();
  plan_memory_to_json (&p->memory, mb);
  g_autofree char *memory_json = cli_json_text (mb);
  g_autofree char *pred_mfu = cli_conv_json (p->model, p->result->mfu, 1);
  g_autofree char *pred_hfu = cli_number_json (p->result->hfu);
  /* measured MFU and HFU: the predicted FLOPs over the logged time (the same FLOPs ran) */
  double scale = sp->median_s > 0 ? p->result->step_time_s / sp->median_s : NAN;
  g_autofree char *meas_mfu = cli_conv_json (p->model, p->result->mfu, scale);
  g_autofree char *meas_hfu = cli_number_json (p->result->hfu * scale);
  g_autoptr (JsonBuilder) tb = json_builder_new ();
  json_builder_begin_array (tb);
  for (guint i = 0; i < n; i++)
    json_builder_add_double_value (tb, times[i]);
  json_builder_end_array (tb);
  g_autofree char *step_times = cli_json_text (tb);
  g_autoptr (JsonBuilder) xb = json_builder_new ();
  json_builder_begin_object (xb);
  json_builder_set_member_name (xb, "imported_from");
  json_builder_add_string_value (xb, log->source);
  json_builder_set_member_name (xb, "log_format");
  json_builder_add_string_value (xb, training_log_format_name (log->format));
  cli_spread_to_json (sp, "logged step time", IMPORT_HINT, "spread", xb);
  json_builder_end_object (xb);
  g_autofree char *extra = cli_json_text (xb);

  ResRunInfo info = { 0 };
  info.kind = RES_KIND_RUN;
  info.status = RES_STATUS_OK;
  info.model = p->model->name;
  info.cluster = p->cluster->name;
  info.plan = plan_str;
  info.plan_json = plan_json;
  info.model_json = p->model->config_json;
  info.cluster_json = p->cluster->json;
  info.world_size = p->plan.world_size;
  info.note = note;
  /* the stack predicted with, as --framework gave it (a name or a file, as predict stores
   * it) or the log's format chose it (torchtitan for a TorchTitan log): `report run`
   * re-simulates with the stored stack; without it, it took megatron-core's and called
   * the import's own prediction stale */
  info.framework = framework;
  ResMetrics pred, meas;
  cli_predicted_metrics (p, &p->memory, pred_mfu, pred_hfu, memory_json, &pred);
  res_metrics_init (&meas);
  meas.step_time_s = sp->median_s;
  meas.tokens_per_s = p->program->tokens_per_step / sp->median_s;
  meas.tflops_per_gpu = p->result->model_tflops_per_gpu[MODEL_FLOPS_PALM] * scale;
  meas.mfu_json = meas_mfu;
  meas.hfu_json = meas_hfu;
  meas.mfu = p->result->mfu[MODEL_FLOPS_PALM] * scale;
  meas.flops_convention = pred.flops_convention;
  meas.hfu = p->result->hfu * scale;
  meas.extra_json = extra;
  ResMeasureInfo mi = { .steps = n, .warmup = skip, .ranks = p->plan.world_size,
                        .step_times_json = step_times };
  g_autoptr (GArray) ph = g_array_new (FALSE, TRUE, sizeof (ResPhase));
  cli_predicted_phases (p->result, ph);
  return res_store_add_run (store, &info, &pred, &meas, &mi, (const ResPhase *) ph->data,
                            ph->len, error);
}

/* The import proper, once the plan context is up. */
static int
import_run (CliPlanContext *ctx, int argc, char **argv, const char *format, int skip,
            const char *framework, gboolean json, const CliDbArgs *dba, const char *note)
{
  if (argc != 2)
    {
      return cli_fail (CLI_EXIT_USAGE, "expected one training log (hint: tandem import-log "
                         "train.log --model llama3-8b --gpus 8 --gbs 64 --seq-length 8192)");
    }
  TrainingLogFormat fmt = TRAINING_LOG_AUTO;
  if (format != NULL && !training_log_format_parse (format, &fmt))
    {
      return cli_fail (CLI_EXIT_USAGE, "--format %s (hint: megatron, torchtitan or auto)",
                         format);
    }
  if (skip < 0)
    {
      return cli_fail (CLI_EXIT_USAGE, "--skip %d: must be >= 0 (hint: --skip 1)", skip);
    }
  g_autoptr (GError) error = NULL;
  /* the outputs checked before the work (docs/contracts.md) */
  if (!cli_db_args_check (dba, &error))
    return cli_fail (CLI_EXIT_USAGE, "%s", error->message);
  if (!dba->no_db && !cli_fallback_check (&error))
    return cli_fail (CLI_EXIT_FAILURE, "%s", error->message);
  g_autoptr (TrainingLog) log = training_log_load (argv[1], fmt, &error);
  if (log == NULL)
    {
      return cli_fail (CLI_EXIT_USAGE, "%s", error->message);
    }
  /* Megatron logs the global batch: the last line's must be the plan's, and every line
   * that is averaged with it too (a batch-size ramp logs smaller batches first: --skip
   * past them; only the last line was checked, so a ramp's lines were averaged in) */
  const TrainingLogEntry *last = &g_array_index (log->entries, TrainingLogEntry,
                                                 log->entries->len - 1);
  if (last->global_batch > 0 && last->global_batch != ctx->plan.global_batch)
    {
      return cli_fail (CLI_EXIT_USAGE, "%s logs a global batch of %" G_GINT64_FORMAT
                         " sequences, the plan has %d (hint: --gbs %" G_GINT64_FORMAT ")",
                         argv[1], last->global_batch, ctx->plan.global_batch,
                         last->global_batch);
    }
  for (guint i = (guint) MAX (skip, 0); i < log->entries->len; i++)
    {
      const TrainingLogEntry *e = &g_array_index (log->entries, TrainingLogEntry, i);
      if (e->global_batch > 0 && e->global_batch != ctx->plan.global_batch)
        return cli_fail (CLI_EXIT_USAGE, "%s:%d logs a global batch of %" G_GINT64_FORMAT
                         " sequences where the last line and the plan have %d (a batch-size "
                         "ramp?) (hint: --skip %u to start after it)", argv[1], e->line,
                         e->global_batch, ctx->plan.global_batch, i + 1);
    }
  double tokens = (double) ctx->plan.global_batch * ctx->plan.seq_length;
  g_autofree double *times = NULL;
  guint n = training_log_step_times (log, (guint) skip, tokens, ctx->plan.world_size, &times,
                                     &error);
  if (n == 0)
    {
      return cli_fail (CLI_EXIT_USAGE, "%s", error->message);
    }
  CliSpread sp;
  cli_spread_compute (times, (int) n, -1, ctx->plan.world_size, &sp);
  /* the logged TFLOP/s as the step time is taken: the median over the same intervals (a
   * mean let one slow warm-up interval at --skip 0 pull it away from the median step) */
  g_autoptr (GArray) tf = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint i = (guint) skip; i < log->entries->len; i++)
    {
      double t = g_array_index (log->entries, TrainingLogEntry, i).tflops_per_gpu;
      if (isfinite (t))
        g_array_append_val (tf, t);
    }
  double logged_tflops = NAN;
  if (tf->len > 0)
    {
      CliSpread tsp;
      cli_spread_compute ((const double *) tf->data, (int) tf->len, -1, 1, &tsp);
      logged_tflops = tsp.median_s;
    }

  const char *stack_name = framework ? framework
                           : log->format == TRAINING_LOG_TORCHTITAN ? "torchtitan"
                           : "megatron-core";
  g_autoptr (FwStack) stack = cli_stack_lookup (stack_name, &error);
  if (stack == NULL)
    {
      g_autofree char *text = cli_lookup_error_text (error, stack_name);
      return cli_fail (CLI_EXIT_USAGE, "--framework: %s", text);
    }
  cli_warn_untimed (&ctx->plan);
  cli_warn_unknown_part (ctx->cluster);
  plan_apply_stack_rank_order (&ctx->plan, stack);
  if (!plan_check_stack (&ctx->plan, stack, &error))
    return cli_fail (CLI_EXIT_USAGE, "%s", error->message);
  SimOptions opts;
  sim_options_init (&opts, ctx->cluster);
  sim_cost_options_init_stack (&opts.cost, ctx->cluster, stack);
  g_autoptr (SimPrediction) p = sim_predict (ctx->model, &ctx->plan, ctx->cluster, &opts, &error);
  if (p == NULL)
    {
      return cli_fail (cli_status_for_error (error), "%s", error->message);
    }
  double err = 100.0 * (p->result->step_time_s - sp.median_s) / sp.median_s;

  /* print, then store (docs/contracts.md); --json stores first to carry the run id */
  CliStored st;
  cli_stored_init (&st, dba);
  g_autoptr (JsonNode) root = import_json (p, log, argv[1], &sp, logged_tflops, err);
  if (!json)
    {
      g_autofree char *plan_str = plan_to_string (&p->plan);
      printf ("imported: %s (%s log), %u of %u logged intervals (--skip %d)\n", argv[1],
              training_log_format_name (log->format), n, log->entries->len, skip);
      printf ("  %s on %s (%d GPUs), %s, stack %s\n", p->model->name, p->cluster->name,
              p->plan.world_size, plan_str, stack->name);
      printf ("  logged step time: min %.4f / median %.4f / max %.4f s, spread %.1f%%%s\n",
              sp.min_s, sp.median_s, sp.max_s, 100 * sp.spread,
              log->format == TRAINING_LOG_TORCHTITAN ? " (from tps: global batch x seq / "
                                                       "(tps x GPUs))" : "");
      printf ("  predicted step time: %.4f s (%+.1f%% against the logged median)\n",
              p->result->step_time_s, err);
      if (isfinite (logged_tflops))
        printf ("  TFLOP/s per GPU: logged %.1f, predicted %.1f (mcore count, as Megatron "
                "logs it) / %.1f (palm)\n", logged_tflops,
                p->result->model_tflops_per_gpu[MODEL_FLOPS_MCORE],
                p->result->model_tflops_per_gpu[MODEL_FLOPS_PALM]);
      if (!p->memory.fits)
        printf ("  memory: the prediction puts stage %d at %s of %s (the job ran: the memory "
                "model is pessimistic here)\n", p->memory.peak_stage,
                cli_fmt_bytes ((double) p->memory.peak_bytes),
                cli_fmt_bytes ((double) p->memory.capacity_bytes));
    }
  fflush (stdout);
  if (!dba->no_db)
    {
      gint64 id = import_store (dba, p, stack_name, log, times, n, (guint) skip, &sp, note,
                                 &error);
      cli_stored_set (&st, id, error);
      g_clear_error (&error);
    }
  cli_stored_apply (&st, "run", root);
  if (json)
    {
      g_autofree char *text = util_json_to_data (root, TRUE);
      puts (text);
      cli_stored_print_error (&st);
    }
  else
    cli_stored_print (&st, "  ");
  g_autoptr (GPtrArray) w = cli_spread_warnings (&sp, "logged step time", IMPORT_HINT);
  for (guint i = 0; i < w->len; i++)
    fprintf (stderr, "tandem: warning: %s\n", (const char *) g_ptr_array_index (w, i));
  int status = cli_stored_status (&st);
  cli_stored_clear (&st);
  return status;
}

int
cli_cmd_import_log (int argc, char **argv)
{
  gboolean json = FALSE;
  int skip = 1;
  g_autofree char *format = NULL, *note = NULL, *framework = NULL;
  CliDbArgs dba;
  cli_db_args_init (&dba);
  const GOptionEntry extra[] = {
    { "format", 0, 0, G_OPTION_ARG_STRING, &format,
      "megatron, torchtitan or auto (default: whichever the lines are)", "F" },
    { "skip", 0, 0, G_OPTION_ARG_INT, &skip,
      "Logged intervals to leave out first: compilation and warm-up (default 1)", "N" },
    { "framework", 0, 0, G_OPTION_ARG_STRING, &framework,
      "Software stack of the prediction (default: megatron-core for a Megatron log, "
      "torchtitan for a TorchTitan one)", "NAME|FILE" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Machine-readable output", NULL },
    CLI_DB_ENTRIES (&dba),
    CLI_NO_DB_ENTRY (&dba),
    { "note", 0, 0, G_OPTION_ARG_STRING, &note, "Free text stored with the run", "TEXT" },
    { NULL },
  };
  CliPlanContext ctx;
  int status = cli_plan_context_init (&ctx, "LOG", "Import the step times of a Megatron-LM "
                                      "or TorchTitan training log as a measured run of the "
                                      "plan given by the flags (the plan the job ran), next "
                                      "to tandem's prediction of it.", extra, &argc, &argv);
  if (status != 0)
    goto out;
  status = import_run (&ctx, argc, argv, format, skip, framework, json, &dba, note);
out:
  cli_plan_context_clear (&ctx);
  cli_db_args_clear (&dba);
  return status;
}
