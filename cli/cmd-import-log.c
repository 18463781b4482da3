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
             const CliSpread *sp, double logged_tflops, double err, const char *framework)
{
  /* the measured MFU and HFU are the predicted FLOPs over the logged step, as stored */
  const double scale = sp->median_s > 0 ? p->result->step_time_s / sp->median_s : NAN;
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
  /* the stack it was predicted with, as predict's JSON and the stored row name it */
  util_json_member_string (b, "framework", framework);
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
  cli_mfu_members (b, p->model, p->result->mfu, p->result->hfu, scale);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "predicted");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "step_time_s");
  json_builder_add_double_value (b, p->result->step_time_s);
  cli_mfu_members (b, p->model, p->result->mfu, p->result->hfu, 1);
  /* in the log's own count, as the text says (TorchTitan logs the palm count, Megatron its
   * own): the JSON gave Megatron's next to a TorchTitan log's palm figure, unnamed */
  const ModelFlopConvention conv = log->format == TRAINING_LOG_TORCHTITAN ? MODEL_FLOPS_PALM
                                                                          : MODEL_FLOPS_MCORE;
  json_builder_set_member_name (b, "tflops_per_gpu");
  json_builder_add_double_value (b, p->result->model_tflops_per_gpu[conv]);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "flops_convention");
  json_builder_add_string_value (b, model_flop_convention_name (conv));
  json_builder_set_member_name (b, "error_pct");
  json_builder_add_double_value (b, err);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static gint64
import_store (const CliDbArgs *dba, const SimPrediction *p, const char *framework,
              const TrainingLog *log, const double *times, guint n, guint skip,
              const CliSpread *sp, double logged_tflops, const char *note, GError **error)
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
  /* the measured TFLOP/s per GPU is the log's own where it states one (the median of the
   * same intervals, as the README says and import-log prints), else derived: the plan's
   * FLOPs over the logged step. Both kept, and which one the column holds: it held the
   * derived 564.3 where import-log printed the logged 400.9 (megatron.log) */
  const ModelFlopConvention conv = log->format == TRAINING_LOG_TORCHTITAN ? MODEL_FLOPS_PALM
                                                                          : MODEL_FLOPS_MCORE;
  const gboolean logged = isfinite (logged_tflops) && logged_tflops > 0;
  const double derived_tflops = p->result->model_tflops_per_gpu[conv] * scale;
  json_builder_set_member_name (xb, "tflops_per_gpu");
  json_builder_begin_object (xb);
  json_builder_set_member_name (xb, "measured_from");
  json_builder_add_string_value (xb, logged ? "logged" : "derived");
  json_builder_set_member_name (xb, "flops_convention");
  json_builder_add_string_value (xb, model_flop_convention_name (conv));
  json_builder_set_member_name (xb, "logged");
  if (logged)
    json_builder_add_double_value (xb, logged_tflops);
  else
    json_builder_add_null_value (xb);
  json_builder_set_member_name (xb, "derived");
  if (isfinite (derived_tflops))
    json_builder_add_double_value (xb, derived_tflops);
  else
    json_builder_add_null_value (xb);
  json_builder_end_object (xb);
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
  /* predicted and measured TFLOP/s in the log's count, as import-log prints them */
  pred.tflops_per_gpu = p->result->model_tflops_per_gpu[conv];
  res_metrics_init (&meas);
  meas.step_time_s = sp->median_s;
  meas.tokens_per_s = p->program->tokens_per_step / sp->median_s;
  meas.tflops_per_gpu = logged ? logged_tflops : derived_tflops;
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

/* The median of `v` (NaN when empty). */
static double
median_of (GArray *v)
{
  if (v->len == 0)
    return NAN;
  CliSpread sp;
  cli_spread_compute ((const double *) v->data, (int) v->len, -1, 1, &sp);
  return sp.median_s;
}

/* What the reader left out or merged, one note each on stderr (never silently). */
static void
import_notes (const TrainingLog *log, const char *file)
{
  if (log->nul_bytes > 0)
    fprintf (stderr, "tandem: note: %s: %" G_GUINT64_FORMAT " NUL byte%s skipped (as left by "
             "logrotate copytruncate or a crashed node); each run of them read as a line "
             "break\n", file, log->nul_bytes, log->nul_bytes == 1 ? "" : "s");
  if (log->incomplete > 0)
    fprintf (stderr, "tandem: note: %s:%d: a step line cut short (no line break after it, "
             "and a field missing or unfinished) left out; %u such line%s in all\n", file,
             log->incomplete_line, log->incomplete, log->incomplete == 1 ? "" : "s");
  if (log->no_tps > 0)
    fprintf (stderr, "tandem: note: %s:%d: a TorchTitan step line without 'tps:' (its "
             "throughput, which the step time comes from) left out; %u such line%s in all\n",
             file, log->no_tps_line, log->no_tps, log->no_tps == 1 ? "" : "s");
  if (log->run_on > 0)
    fprintf (stderr, "tandem: note: %s:%d: a Megatron step line whose '%s' number runs on "
             "into other text (as in '6700x |': edited or corrupted) left out; %u such "
             "line%s in all\n", file, log->run_on_line, log->run_on_field, log->run_on,
             log->run_on == 1 ? "" : "s");
  if (log->duplicates > 0)
    fprintf (stderr, "tandem: note: %s: %u step line%s repeated a logged step with the same "
             "figures (several ranks printing it) and counted once\n", file, log->duplicates,
             log->duplicates == 1 ? "" : "s");
  if (log->merged > 0)
    fprintf (stderr, "tandem: note: %s: %u step line%s repeated the step before with other "
             "figures (each rank timing itself): one step each, the slowest line kept\n",
             file, log->merged, log->merged == 1 ? "" : "s");
}

/* Megatron's header names the job's world and parallel sizes: a plan of other sizes is
 * not the job that wrote the log. */
static gboolean
import_check_header (const TrainingLog *log, const Plan *plan, const char *file,
                     GError **error)
{
  if (log->header_line == 0)
    return TRUE;
  const struct { const char *log_name, *flag; int logged, planned; } sizes[] = {
    { "world size", "--gpus", log->header_world, plan->world_size },
    { "tensor-model-parallel size", "--tp", log->header_tp, plan->tp },
    { "pipeline-model-parallel size", "--pp", log->header_pp, plan->pp },
    { "context-parallel size", "--cp", log->header_cp, plan->cp },
  };
  g_autoptr (GString) said = g_string_new (NULL), planned = g_string_new (NULL),
                      hint = g_string_new (NULL);
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    if (sizes[i].logged > 0 && sizes[i].planned > 0 && sizes[i].logged != sizes[i].planned)
      {
        g_string_append_printf (said, "%s%s %d", said->len ? ", " : "", sizes[i].log_name,
                                sizes[i].logged);
        g_string_append_printf (planned, "%s%s %d", planned->len ? ", " : "", sizes[i].flag,
                                sizes[i].planned);
        g_string_append_printf (hint, "%s%s %d", hint->len ? " " : "", sizes[i].flag,
                                sizes[i].logged);
      }
  if (said->len == 0)
    return TRUE;
  g_set_error (error, TRAINING_LOG_ERROR, TRAINING_LOG_ERROR_PARSE,
               "%s:%d: the job that wrote the log ran with %s, the plan has %s: not the same "
               "job (hint: %s)", file, log->header_line, said->str, planned->str, hint->str);
  return FALSE;
}

/* How far the log's own throughput may lie from the plan's FLOPs over the logged step:
 * the FLOP conventions a framework may count in differ by up to 4/3 (Megatron's "96"
 * formula counts a recompute forward, tandem show conventions) times up to 2 (the s x s
 * attention term causal or not; it dominates at long sequences): 2.7, below 3. A log of
 * another model is further apart (Llama 3 70B against 8B: 8.7x). */
#define IMPORT_FLOPS_TOLERANCE 3.0

/* The log's throughput against the plan's: where the log states its TFLOP/s per GPU (or,
 * without it, its MFU), the plan's model FLOPs per step over the logged median step must
 * make about as much, and never more than the device's peak. A log of an 8B model
 * imported as a 70B one was stored at 2465 TFLOP/s per GPU and an MFU of 249%. */
static gboolean
import_check_throughput (const SimPrediction *p, const TrainingLog *log, const char *file,
                         double median_s, double logged_tflops, double logged_mfu_pct,
                         GError **error)
{
  const SimResult *r = p->result;
  const double scale = r->step_time_s / median_s;   /* the same FLOPs in the logged time */
  /* the count the framework logs: Megatron-Core's num_floating_point_operations, or
   * TorchTitan's 6N + 12 L H d s (PaLM) */
  const ModelFlopConvention conv = log->format == TRAINING_LOG_TORCHTITAN ? MODEL_FLOPS_PALM
                                                                           : MODEL_FLOPS_MCORE;
  const double implied_tflops = r->model_tflops_per_gpu[conv] * scale;
  const double implied_mfu_pct = 100.0 * r->mfu[conv] * scale;
  const gboolean by_tflops = isfinite (logged_tflops) && logged_tflops > 0;
  const double logged = by_tflops ? logged_tflops : logged_mfu_pct;
  const double implied = by_tflops ? implied_tflops : implied_mfu_pct;
  if (isfinite (logged) && logged > 0 && implied > 0
      && MAX (logged / implied, implied / logged) > IMPORT_FLOPS_TOLERANCE)
    {
      g_set_error (error, TRAINING_LOG_ERROR, TRAINING_LOG_ERROR_PARSE,
                   "%s logs %.1f%s, but %s's FLOPs per step (%s count) over the logged median "
                   "step of %.4f s make %.1f%s: %.1fx apart, more than the %.0fx that FLOP "
                   "conventions explain (hint: is the log a run of %s, with --gbs %d and "
                   "--seq-length %d? give the --model, --gbs and --seq-length the job ran)",
                   file, logged, by_tflops ? " TFLOP/s per GPU" : "% MFU", p->model->name,
                   model_flop_convention_name (conv), median_s, implied,
                   by_tflops ? " TFLOP/s per GPU" : "% MFU",
                   MAX (logged / implied, implied / logged), IMPORT_FLOPS_TOLERANCE,
                   p->model->name, p->plan.global_batch, p->plan.seq_length);
      return FALSE;
    }
  /* whatever the log says: model FLOPs faster than the device can run are not a
   * measurement. The smallest count of them decides (a convention that counts attention
   * non-causal, or Megatron's "96" with its recompute forward, can pass the peak at long
   * context in a real run; the causal count cannot) */
  int c_min = -1;
  for (int c = 0; c < MODEL_FLOPS_N_CONVENTIONS; c++)
    if (model_flop_convention_refusal (p->model, c) == NULL && isfinite (r->mfu[c])
        && r->mfu[c] > 0 && (c_min < 0 || r->mfu[c] < r->mfu[c_min]))
      c_min = c;
  if (c_min >= 0 && r->mfu[c_min] * scale > 1.0)
    {
      g_set_error (error, TRAINING_LOG_ERROR, TRAINING_LOG_ERROR_PARSE,
                   "%s: %s's FLOPs per step (%s count, the smallest) over the logged median "
                   "step of %.4f s are %.0f%% of the device's peak (%.1f TFLOP/s): more than "
                   "it can run, so not this plan's step (hint: give the --model, --gbs, "
                   "--seq-length and --gpus the job ran, not --gbs %d --seq-length %d "
                   "--gpus %d)", file, p->model->name, model_flop_convention_name (c_min),
                   median_s, 100 * r->mfu[c_min] * scale, r->peak_flops / 1e12,
                   p->plan.global_batch, p->plan.seq_length, p->plan.world_size);
      return FALSE;
    }
  return TRUE;
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
  /* the path as a terminal may print it (an escape sequence in a file name was written
   * raw in the notes and the summary); the JSON and the store keep it as given */
  g_autofree char *shown = cli_printable (argv[1], NULL);
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
                         shown, last->global_batch, ctx->plan.global_batch,
                         last->global_batch);
    }
  /* the first line of a ramp is named, and the hint skips past its last one (it named
   * each line in turn, one step further each time) */
  guint first_bad = 0, last_bad = 0;
  for (guint i = (guint) MAX (skip, 0); i < log->entries->len; i++)
    {
      const TrainingLogEntry *e = &g_array_index (log->entries, TrainingLogEntry, i);
      if (e->global_batch > 0 && e->global_batch != ctx->plan.global_batch)
        {
          if (last_bad == 0)
            first_bad = i + 1;
          last_bad = i + 1;
        }
    }
  if (last_bad > 0)
    {
      const TrainingLogEntry *e = &g_array_index (log->entries, TrainingLogEntry,
                                                  first_bad - 1);
      const TrainingLogEntry *l = &g_array_index (log->entries, TrainingLogEntry,
                                                  last_bad - 1);
      return cli_fail (CLI_EXIT_USAGE, "%s:%d logs a global batch of %" G_GINT64_FORMAT
                       " sequences where the last line and the plan have %d (a batch-size "
                       "ramp? its last such line is %d) (hint: --skip %u to start after it)",
                       shown, e->line, e->global_batch, ctx->plan.global_batch, l->line,
                       last_bad);
    }
  if (!import_check_header (log, &ctx->plan, shown, &error))
    return cli_fail (CLI_EXIT_USAGE, "%s", error->message);
  import_notes (log, shown);
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
  double logged_tflops = median_of (tf);
  g_array_set_size (tf, 0);
  for (guint i = (guint) skip; i < log->entries->len; i++)
    {
      double m = g_array_index (log->entries, TrainingLogEntry, i).mfu_pct;
      if (isfinite (m))
        g_array_append_val (tf, m);
    }
  double logged_mfu_pct = median_of (tf);

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
  if (!plan_adopt_stack_resolve (&ctx->plan, stack, ctx->model, ctx->cluster, &error)
      || !plan_check_stack_model (&ctx->plan, ctx->model, stack, &error))
    return cli_fail (CLI_EXIT_USAGE, "%s", error->message);
  SimOptions opts;
  sim_options_init (&opts, ctx->cluster);
  sim_cost_options_init_stack (&opts.cost, ctx->cluster, stack);
  g_autoptr (SimPrediction) p = sim_predict (ctx->model, &ctx->plan, ctx->cluster, &opts, &error);
  if (p == NULL)
    {
      return cli_fail (cli_status_for_error (error), "%s", error->message);
    }
  if (!import_check_throughput (p, log, shown, sp.median_s, logged_tflops, logged_mfu_pct,
                                &error))
    return cli_fail (CLI_EXIT_USAGE, "%s", error->message);
  double err = 100.0 * (p->result->step_time_s - sp.median_s) / sp.median_s;

  /* print, then store (docs/contracts.md); --json stores first to carry the run id */
  CliStored st;
  cli_stored_init (&st, dba);
  g_autoptr (JsonNode) root = import_json (p, log, argv[1], &sp, logged_tflops, err,
                                            fw_stack_stored_name (stack));
  if (!json)
    {
      g_autofree char *plan_str = plan_to_string (&p->plan);
      printf ("imported: %s (%s log), %u of %u logged intervals (--skip %d)\n", shown,
              training_log_format_name (log->format), n, log->entries->len, skip);
      printf ("  %s on %s (%d GPUs), %s, stack %s\n", p->model->name, p->cluster->name,
              p->plan.world_size, plan_str, stack->name);
      printf ("  logged step time: min %.4f / median %.4f / max %.4f s, spread %.1f%%%s\n",
              sp.min_s, sp.median_s, sp.max_s, 100 * sp.spread,
              log->format == TRAINING_LOG_TORCHTITAN ? " (from tps: global batch x seq / "
                                                       "(tps x GPUs))" : "");
      printf ("  predicted step time: %.4f s (%+.1f%% against the logged median)\n",
              p->result->step_time_s, err);
      /* each log's own count first: Megatron's num_floating_point_operations (mcore);
       * TorchTitan's get_num_flop_per_token, 6 N + 12 L H d s (palm) */
      if (isfinite (logged_tflops) && log->format == TRAINING_LOG_TORCHTITAN)
        printf ("  TFLOP/s per GPU: logged %.1f, predicted %.1f (palm count, as TorchTitan "
                "logs it) / %.1f (mcore)\n", logged_tflops,
                p->result->model_tflops_per_gpu[MODEL_FLOPS_PALM],
                p->result->model_tflops_per_gpu[MODEL_FLOPS_MCORE]);
      else if (isfinite (logged_tflops))
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
      gint64 id = import_store (dba, p, fw_stack_stored_name (stack), log, times, n,
                                (guint) skip, &sp, logged_tflops, note, &error);
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
