/* cli/cmd-predict.c - `tandem predict`: simulate one step of a plan, print the metrics,
 * write the trace, then store the prediction (`tandem runs` is in cmd-runs.c). */
#include "results/accuracy.h"
#include "cli/cli.h"
#include "cli/cli-table.h"
#include "cli/cli-fit.h"
#include "results/store.h"
#include "sim/predict.h"
#include "sim/search.h"
#include "cli/cli-store.h"
#include "util/output.h"

#include <math.h>
#include <stdio.h>

/* Stores a prediction as one run (kind predict, status ok or oom). */
gint64
cli_store_prediction (const CliDbArgs *dba, const SimPrediction *p, ModelFlopConvention conv,
                      const char *note, const char *framework, GError **error)
{
  g_autoptr (ResStore) store = cli_store_open (dba, FALSE, error);
  if (store == NULL)
    return -1;
  const SimResult *r = p->result;
  g_autofree char *plan_str = plan_to_string (&p->plan);
  g_autoptr (JsonBuilder) pb = json_builder_new ();
  plan_to_json (&p->plan, pb);
  g_autofree char *plan_json = cli_json_text (pb);
  g_autoptr (JsonBuilder) mb = json_builder_new ();
  plan_memory_to_json (&p->memory, mb);
  g_autofree char *memory_json = cli_json_text (mb);
  g_autofree char *mfu = cli_conv_json (p->model, r->mfu, 1);
  g_autofree char *hfu = cli_number_json (r->hfu);

  ResRunInfo info = { 0 };
  info.kind = RES_KIND_PREDICT;
  info.status = p->memory.fits ? RES_STATUS_OK : RES_STATUS_OOM;
  info.model = p->model->name;
  info.cluster = p->cluster->name;
  info.plan = plan_str;
  info.plan_json = plan_json;
  info.model_json = p->model->config_json;
  info.cluster_json = p->cluster->json;
  info.world_size = p->plan.world_size;
  info.note = note;
  info.framework = framework;
  info.error = p->memory.fits ? NULL : "does not fit in device memory";

  ResMetrics m;
  cli_predicted_metrics (p, &p->memory, mfu, hfu, memory_json, &m);
  m.mfu = r->mfu[conv];
  m.flops_convention = model_flop_convention_name (conv);

  /* per-stage busy and exposed time, one phase row per (stage, kind) */
  g_autoptr (GArray) phases = g_array_new (FALSE, TRUE, sizeof (ResPhase));
  cli_predicted_phases (r, phases);
  return res_store_add_prediction (store, &info, &m, (const ResPhase *) phases->data,
                                   phases->len, error);
}

/* Decimals for a time in seconds: 3 from 0.1 s up, else enough for 3 significant digits
 * (a 6 ms step of a small plan printed as "0.006 s", a 0.4 ms one as "0.000 s") */
static int
seconds_decimals (double s)
{
  if (!(s > 0) || s >= 0.1)
    return 3;
  return MIN (3 - (int) floor (log10 (s)) - 1, 12);
}

static void
print_text (const SimPrediction *p, ModelFlopConvention conv, const char *trace)
{
  const SimResult *r = p->result;
  const Plan *plan = &p->plan;
  g_autofree char *summary = plan_to_string (plan);
  printf ("prediction: %s on %s (%d GPUs), %s\n", p->model->name, p->cluster->name,
          plan->world_size, summary);
  if (!p->memory.fits)
    printf ("\n  *** OUT OF MEMORY: stage %d needs %s of %s HBM; the timing below assumes "
            "it ran ***\n", p->memory.peak_stage, cli_fmt_bytes ((double) p->memory.peak_bytes),
            cli_fmt_bytes ((double) p->memory.capacity_bytes));
  /* one aligned table: term, value with its unit, what it means or counts */
  g_autoptr (CliTable) kv = cli_table_new ();
  cli_table_add_column (kv, "", CLI_ALIGN_LEFT);
  cli_table_add_column (kv, "", CLI_ALIGN_RIGHT);
  cli_table_add_column (kv, "", CLI_ALIGN_LEFT);
  cli_table_add_column (kv, "", CLI_ALIGN_LEFT);
#define KV(name, unit, note, ...) G_STMT_START { cli_table_add_row (kv); \
    cli_table_cell (kv, "%s", name); cli_table_cell (kv, __VA_ARGS__); \
    cli_table_cell (kv, "%s", unit); cli_table_cell (kv, "%s", note); } G_STMT_END
  KV ("step time", "s", "", "%.*f", seconds_decimals (r->step_time_s), r->step_time_s);
  /* a whole count from 100 on; below, three significant figures (a model of a trillion
   * parameters a layer read "tokens/s 0" for 0.00155) */
  if (r->tokens_per_s >= 99.5)
    KV ("tokens/s", "", "", "%s", cli_fmt_count ((guint64) llround (r->tokens_per_s)));
  else
    KV ("tokens/s", "", "", "%.3g", r->tokens_per_s);
  g_autofree char *conv_note = g_strdup_printf ("(%s)", model_flop_convention_name (conv));
  KV ("model TFLOP/s per GPU", "", conv_note, "%.1f", r->model_tflops_per_gpu[conv]);
  g_autofree char *mfu_note = g_strdup_printf ("%s convention (tandem show conventions), peak "
                                               "%.1f TFLOP/s", model_flop_convention_name (conv),
                                               r->peak_flops / 1e12);
  KV ("MFU", "%", mfu_note, "%.1f", r->mfu[conv] * 100);
  /* HFU counts what runs: causal attention and the recomputed forward. Under a convention
   * that counts attention non-causal it can be the lower figure; say so where it is. */
  g_autofree char *hfu_note =
    r->hfu < r->mfu[conv]
    ? g_strdup_printf ("%.1f TFLOP/s executed (causal) incl. recompute; below MFU: %s counts "
                       "attention %s", r->hw_tflops_per_gpu, model_flop_convention_name (conv),
                       model_flop_convention_attention (conv))
    : g_strdup_printf ("%.1f TFLOP/s executed: causal attention, recompute included",
                       r->hw_tflops_per_gpu);
  KV ("HFU", "%", hfu_note, "%.1f", r->hfu * 100);
  KV ("pipeline bubble", "%", "", "%.1f", r->bubble_fraction * 100);
  KV ("compute per stage", "s", "", "%.*f", seconds_decimals (r->compute_s), r->compute_s);
  /* a step without communication has nothing to hide: said so, not "100.0 %" */
  {
    double comm = 0;
    for (int k = 0; k < PROG_COMM_N; k++)
      comm += r->comm_s[k];
    if (comm > 0)
      KV ("overlap", "%", "of communication hidden behind compute", "%.1f",
          r->overlap_ratio * 100);
    else
      KV ("overlap", "", "no communication in the step", "%s", "-");
  }
#undef KV
  printf ("\n");
  cli_table_print (kv, stdout, "  ");
  /* the kinds in the JSON's order (docs/contracts.md), ep included: 0 for a dense model */
  static const char *const kinds[] = { "tp", "cp", "ep", "pp", "dp" };
  g_autoptr (CliTable) comm = cli_table_new ();
  cli_table_add_column (comm, "communication per stage", CLI_ALIGN_LEFT);
  cli_table_add_column (comm, "busy s", CLI_ALIGN_RIGHT);
  cli_table_add_column (comm, "exposed s", CLI_ALIGN_RIGHT);
  for (gsize i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      double busy = 0.0, exposed = 0.0;
      for (int k = 0; k < PROG_COMM_N; k++)
        if (g_str_equal (prog_comm_name (k), kinds[i]))
          busy = r->comm_s[k], exposed = r->exposed_comm_s[k];
      cli_table_add_row (comm);
      cli_table_cell (comm, "  %s", kinds[i]);
      cli_table_cell (comm, "%.4f", busy);
      cli_table_cell (comm, "%.4f", exposed);
    }
  /* CPU offload copies over the host link, where the plan offloads */
  if (p->program != NULL && p->program->plan.cpu_offload_layers > 0)
    {
      cli_table_add_row (comm);
      cli_table_cell (comm, "  offload (host link)");
      cli_table_cell (comm, "%.4f", r->comm_s[SIM_KIND_OFFLOAD]);
      cli_table_cell (comm, "%.4f", r->exposed_comm_s[SIM_KIND_OFFLOAD]);
    }
  printf ("\n");
  cli_table_print (comm, stdout, "  ");
  printf ("\n  MFU by convention:");
  for (int c = 0; c < MODEL_FLOPS_N_CONVENTIONS; c++)
    if (model_flop_convention_refusal (p->model, c) != NULL)
      printf ("  %s n/a", model_flop_convention_name (c));  /* e.g. ffn = 4h for MoE */
    else
      printf ("  %s %.1f%%", model_flop_convention_name (c), r->mfu[c] * 100);
  printf ("\n  memory: peak %s on stage %d of %s HBM: %s\n",
          cli_fmt_bytes ((double) p->memory.peak_bytes), p->memory.peak_stage,
          cli_fmt_bytes ((double) p->memory.capacity_bytes),
          p->memory.fits ? "fits" : "OUT OF MEMORY");
  printf ("  simulated %u tasks, %" G_GUINT64_FORMAT " events in %.2f ms", r->n_tasks,
          r->n_events, p->wall_s * 1e3);
  if (r->steady_periods > 0)
    printf (" (steady state of %.4f s extended by %d periods)", r->steady_period_s,
            r->steady_periods);
  /* the shorter steps tried that showed no period cost their whole simulation, which the
   * events of the kept one leave out */
  if (r->sim_tasks > r->n_events)
    printf (";\n  %" G_GUINT64_FORMAT " tasks simulated in all (%d shorter step%s tried)",
            r->sim_tasks, r->steady_tries, r->steady_tries == 1 ? "" : "s");
  printf ("\n");
  if (trace)
    {
      /* the path as text: an escape sequence in it was written raw */
      g_autofree char *shown = cli_printable (trace, NULL);
      printf ("  trace: %s (open in ui.perfetto.dev)\n", shown);
    }
}

/* The --json object of a prediction, with the trace path. */
static JsonNode *
prediction_json (const SimPrediction *p, ModelFlopConvention conv, const char *trace)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  sim_prediction_to_json (p, conv, b);
  JsonNode *root = json_builder_get_root (b);
  if (trace)
    json_object_set_string_member (json_node_get_object (root), "trace", trace);
  return root;
}

/* --full-simulation: every micro-batch simulated (sim_predict's steady-state path off) */
static gboolean predict_full_simulation;

static int
predict_with (CliPlanContext *c, gboolean json, const CliDbArgs *dba, const char *trace,
              const char *flops, const char *note, const char *slowdown,
              const char *const *cost, const char *framework)
{
  int status = CLI_EXIT_OK;
  ModelFlopConvention conv = MODEL_FLOPS_PALM;
  if (flops && !model_flop_convention_parse (flops, &conv))
    {
      status = cli_fail (CLI_EXIT_USAGE, "unknown FLOP convention '%s' (hint: palm, megatron96, "
                         "megatron72, mcore or causal)", flops);
      return status;
    }
  /* the headline MFU in a convention that has no term for the model's experts or latent
   * attention printed 0.0% and stored it (the MFU-by-convention line said n/a) */
  const char *why = flops ? model_flop_convention_refusal (c->model, conv) : NULL;
  if (why != NULL)
    return cli_fail (CLI_EXIT_USAGE, "--flops %s does not apply to %s: %s", flops,
                     c->model->name, why);
  g_autoptr (GError) serr = NULL;
  g_autoptr (FwStack) stack = cli_stack_lookup (framework, &serr);
  if (stack == NULL)
    {
      g_autofree char *text = cli_lookup_error_text (serr, framework);
      return cli_fail (CLI_EXIT_USAGE, "--framework: %s", text);
    }
  /* its rank order, what it refuses, the overlaps it runs in every run (hai-llm's DualPipe) */
  if (!plan_adopt_stack_resolve (&c->plan, stack, c->model, c->cluster, &serr)
      || !plan_check_stack_model (&c->plan, c->model, stack, &serr))
    return cli_fail (CLI_EXIT_USAGE, "%s", serr->message);
  SimOptions opts;
  sim_options_init (&opts, c->cluster);
  sim_cost_options_init_stack (&opts.cost, c->cluster, stack);
  opts.keep_timeline = trace != NULL;
  opts.full_simulation = predict_full_simulation;
  {
    /* the flag is --cost comm_compute_slowdown=F under another name: same range check */
    g_autoptr (GError) cerr = NULL;
    if (slowdown != NULL
        && !sim_cost_options_set (&opts.cost, "comm_compute_slowdown", slowdown, &cerr))
      return cli_fail (CLI_EXIT_USAGE, "--comm-compute-slowdown: %s (hint: a fraction such as "
                       "0.1 for 10%%)", cerr->message);
    if (!sim_cost_options_apply (&opts.cost, cost, &cerr))
      return cli_fail (CLI_EXIT_USAGE, "%s", cerr->message);
    /* an efficiency over a link's rate where every level it applies to gives a measured
     * busbw (which the cost model takes, sim/cost-comm.c level_Bps): said, not silent */
    for (guint i = 0; cost != NULL && cost[i] != NULL; i++)
      {
        const gboolean nvl = g_str_has_prefix (cost[i], "nvlink_efficiency=");
        const gboolean net = g_str_has_prefix (cost[i], "net_efficiency=");
        if (!nvl && !net)
          continue;
        gboolean any = FALSE;
        for (guint l = nvl ? 0 : 1; l < (nvl ? MIN (1u, c->cluster->n_levels)
                                              : c->cluster->n_levels); l++)
          any |= c->cluster->levels[l].busbw_Bps <= 0;
        if (!any)
          fprintf (stderr, "tandem: note: --cost %s changes nothing on %s: %s gives a measured "
                   "busbw_GBps, which the cost model takes over bw x efficiency\n", cost[i],
                   c->cluster->name, nvl ? "its first level" : "every level above the first");
      }
    /* the same setting twice under its two names: the --cost one silently won */
    for (guint i = 0; slowdown != NULL && cost != NULL && cost[i] != NULL; i++)
      if (g_str_has_prefix (cost[i], "comm_compute_slowdown="))
        return cli_fail (CLI_EXIT_USAGE, "--comm-compute-slowdown %s and --cost %s set the same "
                         "figure (hint: give one of them)", slowdown, cost[i]);
  }

  g_autoptr (GError) error = NULL;
  /* every output checked before the work: the trace path, the store's timeout, a place
   * for the result should the store refuse it */
  if (!cli_db_args_check (dba, &error))
    return cli_fail (CLI_EXIT_USAGE, "%s", error->message);
  /* a trace holds every task of the step, some 5 KB of JSON a layer pass (Llama-3 405B on
   * 128 GPUs, 2,048 micro-batches: 1.43 GB, and 16 GB were on their way at 262,144
   * micro-batches of Llama-3 70B when the run was stopped): refused past ~5 GB */
  if (trace != NULL)
    {
      const gint64 passes = (gint64) c->plan.grad_accum
                            * (gint64) (c->model->n_layers + c->model->mtp_layers);
      if (passes > CLI_MAX_TRACE_LAYER_PASSES)
        return cli_fail (CLI_EXIT_USAGE, "--trace: %d micro-batches x %" G_GUINT64_FORMAT
                         " layers = %" G_GINT64_FORMAT " layer passes would make a trace of "
                         "some %.0f GB (about 5 KB of JSON each), past the %d this takes "
                         "(hint: trace the same plan with fewer micro-batches, a smaller "
                         "--gbs: the schedule's pattern shows in a few dozen; predict without "
                         "--trace for this one)", c->plan.grad_accum,
                         c->model->n_layers + c->model->mtp_layers, passes,
                         passes * 5e3 / 1e9, CLI_MAX_TRACE_LAYER_PASSES);
    }
  if (trace && !util_output_check (trace, &error))
    return cli_fail (CLI_EXIT_USAGE, "--trace: %s", error->message);
  /* `--trace config.json` wrote the trace over the model it had just read (named as such
   * before the general check that an existing file is a trace) */
  const char *const inputs[] = { "--model", c->args.model_name, "--cluster",
                                 c->args.cluster_name, "--plan", c->args.plan_file,
                                 "--framework", framework, NULL };
  if (trace && !cli_output_not_input ("--trace", "trace", trace, inputs, &error))
    return cli_fail (CLI_EXIT_USAGE, "%s", error->message);
  if (trace && !cli_output_not_db ("--trace", "trace", trace, dba->db, dba->no_db, &error))
    return cli_fail (CLI_EXIT_USAGE, "%s", error->message);
  if (!dba->no_db && !cli_fallback_check (&error))
    return cli_fail (CLI_EXIT_FAILURE, "%s", error->message);
  g_autoptr (SimPrediction) p = sim_predict (c->model, &c->plan, c->cluster, &opts, &error);
  if (p == NULL)
    {
      status = cli_fail (cli_status_for_error (error), "%s", error->message);
      return status;
    }
  gboolean trace_failed = FALSE;
  if (trace)
    {
      int *ranks = g_new (int, p->plan.pp);
      for (int s = 0; s < p->plan.pp; s++)
        {
          PlanCoord c = { { 0 } };
          c.coord[PLAN_AXIS_PP] = s;
          ranks[s] = plan_layout_rank_of (p->layout, &c);
        }
      gboolean ok = prog_trace_write_memory (p->program, p->result->times, ranks, "predicted",
                                             &p->memory, trace, &error);
      g_free (ranks);
      if (!ok)
        {
          /* the path was checked before: losing the trace must not lose the result; exit 1
           * once printed and stored, unless the plan does not fit: a lost output keeps the
           * 3 of such a plan, as a full stdout does (README "Exit status") */
          cli_fail (CLI_EXIT_FAILURE, "%s", error->message);
          g_clear_error (&error);
          trace_failed = TRUE;
          /* and the result names no trace that was not written ("trace": "/dev/full" was
           * printed and stored after "cannot write /dev/full"), as search does */
          trace = NULL;
        }
    }
  /* print, then store (docs/contracts.md); --json stores first to carry the run id */
  CliStored st;
  cli_stored_init (&st, dba);
  g_autoptr (JsonNode) root = prediction_json (p, conv, trace);
  json_object_set_string_member (json_node_get_object (root), "framework", stack->name);
  json_object_set_boolean_member (json_node_get_object (root), "extrapolated",
                                  opts.cost.extrapolated);
  /* the slowest of the plan's GPUs against the median part (sim/cost.c): every compute
   * kernel's time x factor; perf_sigma 0 (a device without the figure, or --cost
   * perf_sigma=0) gives 1 */
  const guint64 world = p->layout != NULL && p->layout->world > 1 ? (guint64) p->layout->world : 1;
  const double straggler = sim_cost_straggler_factor_for (opts.cost.perf_sigma, world);
  json_object_set_object_member (json_node_get_object (root), "stragglers",
                                 cli_stragglers_json (opts.cost.perf_sigma, world));
  /* how well runs like this one were predicted (data/accuracy.json, results/accuracy.h):
   * where the prediction is weak, it says so */
  ResAccuracy acc;
  res_accuracy_load (&acc);
  gboolean moe = model_spec_is_moe (p->model);
  {
    g_autoptr (JsonBuilder) ab = json_builder_new ();
    res_accuracy_class_json (&acc, topo_device_part (&p->cluster->device), stack->name, moe, ab);
    json_object_set_member (json_node_get_object (root), "accuracy",
                            json_builder_get_root (ab));
  }
  /* out of memory: what would fit, each change's memory computed again */
  g_autoptr (GArray) fit = NULL;
  if (!p->memory.fits)
    {
      fit = cli_fit_suggestions (p->model, &p->plan, p->cluster, &p->memory, &opts, stack);
      cli_fit_to_json (fit, json_node_get_object (root));
    }
  if (!json)
    {
      print_text (p, conv, trace);
      printf ("  framework: %s%s\n", stack->name,
              opts.cost.extrapolated ? " (extrapolated: no fitted calibration or published "
                                       "run behind this device and stack)" : "");
      g_autofree char *sentence = res_accuracy_sentence (&acc, topo_device_part (&p->cluster->device),
                                                         stack->name, moe);
      printf ("  accuracy: %s\n", sentence);
      if (straggler > 1.0)
        printf ("  stragglers: compute x%.3f, the slowest of %" G_GUINT64_FORMAT " GPUs at a "
                "part-to-part sigma of %.2f%% (%.2f sigma above the median part; "
                "--cost perf_sigma=0 for none)\n", straggler, world,
                100.0 * opts.cost.perf_sigma, sim_cost_expected_max_normal (world));
      cli_print_mtp_note (p->model, p->plan.mtp_num_layers, "  ");
      /* a sequence past the context the model was trained to (learned tables refuse it in
       * validation): timed as asked, and said */
      if (p->model->max_positions > 0 && (guint64) p->plan.seq_length > p->model->max_positions)
        printf ("  note: --seq-length %d is beyond the %" G_GUINT64_FORMAT " positions %s was "
                "trained to (max_position_embeddings): a run past its context, as context "
                "extension does\n", p->plan.seq_length, p->model->max_positions,
                p->model->name);
      /* CUDA graphs are modelled where they move the step: an MoE layer's host work (the
       * router, the dispatcher's preprocess, the grouped GEMMs' per-expert calls); a dense
       * layer's kernels are costed GPU-side with the stack's per-kernel figure, so on a
       * dense model the flag leaves the prediction as it is, which the note says rather
       * than let the flag seem to have been timed */
      if (p->plan.cuda_graph_impl != PLAN_CG_IMPL_NONE)
        {
          PlanMoe moe;
          plan_moe (&p->plan, p->model, &moe);
          if (moe.experts == 0)
            printf ("  note: --cuda-graph-impl %s: tandem models CUDA graphs where they remove "
                    "an MoE layer's host work; %s has no MoE layers, so this prediction is the "
                    "same without them\n", plan_cuda_graph_impl_name (p->plan.cuda_graph_impl),
                    p->model->name);
        }
      /* the stack's sharding is what validate fills an unstated row with; predict's plan
       * takes Megatron's flag default (none) whatever the stack, so an FSDP stack (its
       * default shards gradients or parameters) says so when the plan shards less, rather
       * than time a plan its users would not run unasked (HSDP is FSDP in groups) */
      if (framework != NULL && stack->default_sharding >= FW_SHARD_ZERO2
          && (int) p->plan.sharding < (int) stack->default_sharding)
        printf ("  note: the %s stack shards as %s where a run does not say; this plan runs "
                "%s (--sharding %s to follow the stack)\n", stack->name,
                fw_sharding_name (stack->default_sharding),
                plan_sharding_name (p->plan.sharding),
                fw_sharding_name (stack->default_sharding));
      if (fit != NULL)
        {
          printf ("\n");
          cli_fit_print (fit, &p->memory, "  ");
          printf ("\n");
        }
    }
  fflush (stdout);
  if (!dba->no_db)
    {
      gint64 id = cli_store_prediction (dba, p, conv, note, fw_stack_stored_name (stack),
                                        &error);
      cli_stored_set (&st, id, error);
      g_clear_error (&error);
    }
  cli_stored_apply (&st, "predict", root);
  if (json)
    {
      g_autofree char *text = util_json_to_data (root, TRUE);
      puts (text);
      if (cli_stored_status (&st) != CLI_EXIT_OK)
        cli_stored_print_error (&st);
    }
  else
    cli_stored_print (&st, "  ");
  if (cli_stored_status (&st) != CLI_EXIT_OK)
    status = CLI_EXIT_FAILURE;
  cli_stored_clear (&st);
  /* printed and stored, then the verdict: a plan that does not fit exits 3, also when the
   * store failed (its line is out already), as a lost trace keeps it and `tandem run`
   * does: the verdict on the plan comes first (the store's failure took the status to 1
   * and the "does not fit" line was never printed) */
  if ((status == CLI_EXIT_OK || status == CLI_EXIT_FAILURE) && !p->memory.fits)
    status = cli_fail (CLI_EXIT_NOFIT, "does not fit: stage %d needs %s of %s HBM (hint: "
                       "%s; tandem memory with the same flags shows what takes it)",
                       p->memory.peak_stage, cli_fmt_bytes ((double) p->memory.peak_bytes),
                       cli_fmt_bytes ((double) p->memory.capacity_bytes),
                       json ? "fit_suggestions lists what would fit" : "the changes listed above");
  if (status == CLI_EXIT_OK && trace_failed)
    status = CLI_EXIT_FAILURE;
  return status;
}

/* Whether argv names any part of a plan: every option but those that pick the model, the
 * cluster, the stack or the output. */
static gboolean
plan_given (int argc, char **argv)
{
  static const char *const not_plan[] = {
    "model", "cluster", "framework", "cost", "json", "trace", "db", "db-timeout", "no-db",
    "flops", "comm-compute-slowdown", "note", "full-simulation", "seq-length", "help",
    "num-layers", "hidden-size", "num-attention-heads", "num-query-groups",
    "group-query-attention", "ffn-hidden-size", "vocab-size", "make-vocab-size-divisible-by",
    "max-position-embeddings", "swiglu", "untie-embeddings-and-output-weights",
    "normalization", "position-embedding-type",
  };
  for (int i = 1; i < argc; i++)
    {
      /* "--" ends the options and names none (a trailing one read as a plan given, and
       * the whole cluster in data parallelism was predicted) */
      if (!g_str_has_prefix (argv[i], "--") || argv[i][2] == '\0')
        continue;
      g_autofree char *name = g_strndup (argv[i] + 2, strcspn (argv[i] + 2, "="));
      gboolean other = FALSE;
      for (gsize k = 0; k < G_N_ELEMENTS (not_plan); k++)
        other |= g_str_equal (name, not_plan[k]);
      if (!other)
        return TRUE;
    }
  return FALSE;
}

/* A plain `predict --model M` on a cluster of several servers would be the whole cluster
 * in data parallelism alone, which no one trains with (the 405B on 24,576 GPUs: 7.5 TiB
 * per GPU). Say how to find a plan instead, with a size computed from the model: the
 * smallest power-of-two GPU count, at least a server, over which the 16 bytes per
 * parameter of mixed-precision Adam (Rajbhandari et al. 2020, K = 12 + 2 + 2) take at
 * most half of a GPU's memory, fully sharded, and 8 sequences per GPU. */
static int
predict_needs_plan (const CliPlanContext *ctx)
{
  ModelParams mp;
  model_spec_params (ctx->model, &mp);
  double hbm = (double) ctx->cluster->device.hbm_bytes;
  guint64 server = topo_cluster_level_size (ctx->cluster, 0);
  guint64 n = MAX (server, 1);
  while ((double) mp.total * 16.0 / (double) n > 0.5 * hbm && n * 2 <= ctx->cluster->n_devices)
    n *= 2;
  g_autofree char *model = search_spec_arg (ctx->model->name, ctx->model->source);
  g_autofree char *cluster = search_spec_arg (ctx->cluster->name, ctx->cluster->source);
  /* the example plan is one that fits (its memory computed, as tandem memory would):
   * TP over a server, sequence parallel, ZeRO-3, then the fewest pipeline stages and
   * recompute only where nothing else fits; "--gpus 256 --tp 8" alone, given for the
   * 405B, needed 214 GiB a GPU */
  const int tp = (int) MIN (server, 8);
  static const int pps[] = { 1, 2, 4, 8, 16 };
  g_autofree char *example = NULL;
  for (int full = 0; full < 2 && example == NULL; full++)
    for (guint k = 0; k < G_N_ELEMENTS (pps) && example == NULL; k++)
      {
        Plan p;
        plan_init_defaults (&p);
        p.world_size = (int) n;
        p.tp = tp;
        p.pp = pps[k];
        p.sequence_parallel = tp > 1;
        p.sharding = PLAN_SHARD_ZERO3;
        p.recompute = full ? PLAN_RECOMPUTE_FULL : PLAN_RECOMPUTE_NONE;
        p.micro_batch = 1;
        p.global_batch = (int) (8 * n);
        p.seq_length = ctx->plan.seq_length;
        PlanMemory mem = { 0 };
        if (plan_resolve (&p, ctx->model, ctx->cluster, NULL))
          {
            plan_memory_compute (ctx->model, &p, ctx->cluster, &mem);
            if (mem.fits)
              {
                g_autofree char *pp = p.pp > 1 ? g_strdup_printf (" --pp %d", p.pp)
                                               : g_strdup ("");
                example = g_strdup_printf ("--gpus %" G_GUINT64_FORMAT " --tp %d%s%s "
                                           "--sharding zero3%s --gbs %" G_GUINT64_FORMAT, n,
                                           tp, pp, tp > 1 ? " --sp" : "",
                                           full ? " --recompute-granularity full" : "",
                                           8 * n);
              }
            plan_memory_clear (&mem);
          }
        plan_clear (&p);
      }
  return cli_fail (CLI_EXIT_USAGE, "predict needs a plan: without one, %s would run on all "
                   "%s GPUs of %s in data parallelism alone (hint: tandem search --model %s "
                   "--cluster %s --gpus %" G_GUINT64_FORMAT " --gbs %" G_GUINT64_FORMAT
                   " ranks the plans that fit%s%s%s)", ctx->model->name,
                   cli_fmt_count (ctx->cluster->n_devices), ctx->cluster->name,
                   model, cluster, n, 8 * n, example != NULL ? "; or give one, e.g. " : "",
                   example != NULL ? example : "", "");
}

int
cli_cmd_predict (int argc, char **argv)
{
  /* an interrupt while --trace is written ends the command after the file's rename,
   * never with its NAME.XXXXXX (hundreds of MB) left behind */
  util_output_guard_signals ();
  gboolean has_plan = plan_given (argc, argv);
  gboolean json = FALSE;
  g_autofree char *trace = NULL, *flops = NULL, *note = NULL;
  CliDbArgs dba;
  cli_db_args_init (&dba);
  g_autofree char *slowdown = NULL;
  g_auto (GStrv) cost = NULL;
  g_autofree char *framework = NULL;
  const GOptionEntry extra[] = {
    { "framework", 0, 0, G_OPTION_ARG_STRING, &framework,
      "Software stack: a preset (megatron-core, megatron-lm-2021, nemo, nemo-automodel, "
      "torchtitan, llm-foundry, maxtext, deepspeed, pytorch-fsdp, hai-llm, meta-llama3) or a "
      "stack "
      "JSON file; default "
      "megatron-core", "NAME|FILE" },
    { "cost", 0, 0, G_OPTION_ARG_STRING_ARRAY, &cost,
      "Override a cost-model default, e.g. gemm_efficiency=0.7 (repeatable)", "KEY=VALUE" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Machine-readable output", NULL },
    { "trace", 0, 0, G_OPTION_ARG_FILENAME, &trace, "Write a Chrome/Perfetto trace", "FILE" },
    CLI_DB_ENTRIES (&dba),
    CLI_NO_DB_ENTRY (&dba),
    { "flops", 0, 0, G_OPTION_ARG_STRING, &flops,
      "FLOP convention of the headline MFU: palm (default), megatron96, megatron72, mcore, causal",
      "CONV" },
    { "comm-compute-slowdown", 0, 0, G_OPTION_ARG_STRING, &slowdown,
      "Compute slowdown while communication kernels run (fraction; default per device)", "F" },
    { "note", 0, 0, G_OPTION_ARG_STRING, &note, "Free text stored with the run", "TEXT" },
    { "full-simulation", 0, 0, G_OPTION_ARG_NONE, &predict_full_simulation,
      "Simulate every micro-batch, not the steady state extended (--trace implies it)", NULL },
    { NULL },
  };
  CliPlanContext ctx;
  int status = cli_plan_context_init (&ctx, "", "Predict one training step of a plan: step "
                                      "time, MFU/HFU, bubbles, exposed communication, memory.",
                                      extra, &argc, &argv);
  if (status != 0)
    goto out;
  if (argc > 1)
    {
      status = cli_fail (CLI_EXIT_USAGE, "unexpected argument '%s' (hint: tandem predict --help)",
                         argv[1]);
      goto out;
    }
  if (!has_plan && topo_cluster_level_size (ctx.cluster, 0) < ctx.cluster->n_devices)
    {
      status = predict_needs_plan (&ctx);
      goto out;
    }
  cli_warn_pipeline_bubble (&ctx.plan);
  cli_warn_untimed (&ctx.plan);
  cli_warn_unknown_part (ctx.cluster);
  status = predict_with (&ctx, json, &dba, trace, flops, note, slowdown,
                         (const char *const *) cost, framework);
out:
  cli_plan_context_clear (&ctx);
  cli_db_args_clear (&dba);
  return status;
}
