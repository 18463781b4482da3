/* cli/cmd-plan.c - `tandem plan show` (degrees, stages, layout) and `tandem memory`. */
#include "cli/cli.h"
#include "plan/memory.h"
#include "sim/predict.h"
#include "cli/cli-fit.h"
#include "cli/cli-table.h"
#include "util/output.h"

#include <stdio.h>

static const PlanAxis shown_axes[] = { PLAN_AXIS_TP, PLAN_AXIS_CP, PLAN_AXIS_DP, PLAN_AXIS_PP,
                                       PLAN_AXIS_DP_SHARD, PLAN_AXIS_DP_REPLICA, PLAN_AXIS_ETP,
                                       PLAN_AXIS_EP, PLAN_AXIS_EDP };

static gboolean
axis_shown (const CliPlanContext *ctx, PlanAxis a)
{
  if (a == PLAN_AXIS_DP_SHARD || a == PLAN_AXIS_DP_REPLICA)
    return ctx->plan.sharding == PLAN_SHARD_HSDP;
  if (a == PLAN_AXIS_ETP || a == PLAN_AXIS_EP || a == PLAN_AXIS_EDP)
    return ctx->plan.num_experts > 0;   /* the expert side of MoE parallel folding */
  return TRUE;
}

static void
plan_show_json (const CliPlanContext *ctx, const char *stack_name)
{
  const Plan *p = &ctx->plan;
  const PlanLayout *lay = ctx->layout;
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "model");
  json_builder_add_string_value (b, ctx->model->name);
  json_builder_set_member_name (b, "cluster");
  json_builder_add_string_value (b, ctx->cluster->name);
  json_builder_set_member_name (b, "framework");
  json_builder_add_string_value (b, stack_name);
  ModelParams mp;
  model_spec_params (ctx->model, &mp);
  json_builder_set_member_name (b, "parameters");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "total");
  json_builder_add_int_value (b, (gint64) mp.total);
  json_builder_set_member_name (b, "active");
  json_builder_add_int_value (b, (gint64) mp.active);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "plan");
  plan_to_json (p, b);

  json_builder_set_member_name (b, "stages");
  json_builder_begin_array (b);
  for (int s = 0; s < p->pp; s++)
    {
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "stage");
      json_builder_add_int_value (b, s);
      json_builder_set_member_name (b, "layers");
      json_builder_add_int_value (b, plan_stage_layers (p, ctx->model, s));
      json_builder_set_member_name (b, "chunks");
      json_builder_begin_array (b);
      /* every chunk the rank holds: vpp, or DualPipe's two */
      for (int c = 0; c < plan_rank_chunks (p); c++)
        {
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "first_layer");
          json_builder_add_int_value (b, plan_chunk_first_layer (p, ctx->model, s, c));
          json_builder_set_member_name (b, "layers");
          json_builder_add_int_value (b, plan_chunk_layers (p, ctx->model, s, c));
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "layout");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "rank_order");
  json_builder_add_string_value (b, p->rank_order);
  json_builder_set_member_name (b, "groups");
  json_builder_begin_object (b);
  for (guint i = 0; i < G_N_ELEMENTS (shown_axes); i++)
    {
      PlanAxis a = shown_axes[i];
      if (!axis_shown (ctx, a))
        continue;
      const PlanGroupInfo *g = &lay->groups[a];
      json_builder_set_member_name (b, plan_axis_name (a));
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "size");
      json_builder_add_int_value (b, g->size);
      json_builder_set_member_name (b, "n_groups");
      json_builder_add_int_value (b, g->n_groups);
      json_builder_set_member_name (b, "stride");
      json_builder_add_int_value (b, (gint64) g->stride);
      json_builder_set_member_name (b, "span_level");
      json_builder_add_int_value (b, g->span_level);
      json_builder_set_member_name (b, "span");
      json_builder_add_string_value (b, g->size > 1 ? g->span_name : "none");
      json_builder_set_member_name (b, "members_of_rank0");
      json_builder_begin_array (b);
      int *members = g_new (int, g->size);
      plan_layout_group_members (lay, a, 0, members);
      for (int m = 0; m < MIN (g->size, 64); m++)
        json_builder_add_int_value (b, members[m]);
      g_free (members);
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_object (b);
  json_builder_end_object (b);
  json_builder_end_object (b);
  cli_print_json (b);
}

/* "{0,1,2,3,4,5,...,63}": the first six members of rank `rank`'s group and the last. */
static char *
members_text (const PlanLayout *lay, PlanAxis a, int rank)
{
  int size = lay->groups[a].size;
  int *members = g_new (int, size);
  plan_layout_group_members (lay, a, rank, members);
  GString *s = g_string_new ("{");
  for (int i = 0; i < size && i < 6; i++)
    g_string_append_printf (s, "%s%d", i ? "," : "", members[i]);
  if (size > 6)
    g_string_append_printf (s, ",...,%d", members[size - 1]);
  g_string_append_c (s, '}');
  g_free (members);
  return g_string_free (s, FALSE);
}

static void
plan_show_text (const CliPlanContext *ctx, const char *stack_name)
{
  const Plan *p = &ctx->plan;
  const PlanLayout *lay = ctx->layout;
  g_autofree char *summary = plan_to_string (p);
  printf ("plan %s\n", summary);
  ModelParams mp;
  model_spec_params (ctx->model, &mp);
  g_autofree char *active = mp.active != mp.total
    ? g_strdup_printf (", %s active per token", cli_fmt_count (mp.active)) : g_strdup ("");
  printf ("  model %s (%s parameters%s) on %s: %d of %s GPUs\n", ctx->model->name,
          cli_fmt_count (mp.total), active, ctx->cluster->name, p->world_size,
          cli_fmt_count (ctx->cluster->n_devices));
  printf ("  framework %s\n", stack_name);
  printf ("  tp %d  cp %d (%s)  pp %d  vpp %d  dp %d  -> %d GPUs\n", p->tp, p->cp,
          plan_cp_comm_name (p->cp_comm), p->pp, p->vpp, p->dp, p->world_size);
  printf ("  batch: global %d sequences of %d tokens (%s tokens), micro-batch %d, "
          "%d micro-batch%s per step (gradient accumulation)\n", p->global_batch,
          p->seq_length, cli_fmt_count ((guint64) p->global_batch * p->seq_length),
          p->micro_batch, p->grad_accum, p->grad_accum == 1 ? "" : "es");
  printf ("  schedule %s, sharding %s", plan_schedule_name (p->schedule),
          plan_sharding_name (p->sharding));
  if (p->sharding == PLAN_SHARD_HSDP)
    printf (" (shard %d x replicate %d)", p->hsdp_shard_size, p->dp / p->hsdp_shard_size);
  g_autofree char *modules = plan_recompute_modules_string (p);
  printf (", recompute %s%s%s%s, sequence parallel %s\n", plan_recompute_name (p->recompute),
          *modules != '\0' ? " (modules " : "", modules, *modules != '\0' ? ")" : "",
          p->sequence_parallel ? "on" : "off");
  printf ("  precision: compute %s, params %s, grads %s, optimizer %s%s\n",
          plan_precision_name (p->compute_dtype), plan_precision_name (p->param_dtype),
          plan_precision_name (p->grad_dtype), plan_precision_name (p->optim_dtype),
          p->master_weights ? " + fp32 master weights" : "");
  if (p->num_experts > 0)
    {
      PlanMoe moe;
      plan_moe (p, ctx->model, &moe);
      g_autofree char *cap = p->moe_capacity_factor > 0
        ? g_strdup_printf ("capacity factor %g", p->moe_capacity_factor) : g_strdup ("dropless");
      printf ("  experts: %d routed, top-%d, dispatcher %s, %s, %s, imbalance %.2f "
              "(busiest / mean)%s\n", moe.experts, moe.top_k,
              plan_moe_dispatcher_name (p->moe_dispatcher), cap,
              p->moe_grouped_gemm ? "grouped GEMM" : "one GEMM per expert", moe.imbalance,
              p->moe_shared_expert_overlap ? ", shared expert overlapped" : "");
      printf ("  expert side (folded onto the same ranks): etp %d  ep %d  edp %d; experts per "
              "EP rank: %d\n", p->etp, p->ep, p->edp, moe.experts / MAX (p->ep, 1));
    }

  printf ("\npipeline stages (layers per stage");
  if (plan_rank_chunks (p) > 1)
    printf (", as chunks first:count");
  printf (")\n ");
  for (int s = 0; s < p->pp; s++)
    {
      if (plan_rank_chunks (p) > 1)
        {
          printf (" [%d:", s);
          for (int c = 0; c < plan_rank_chunks (p); c++)
            printf ("%s%d:%d", c ? " " : "", plan_chunk_first_layer (p, ctx->model, s, c),
                    plan_chunk_layers (p, ctx->model, s, c));
          printf ("]");
        }
      else
        printf (" %d", plan_stage_layers (p, ctx->model, s));
    }
  printf ("\n\nlayout (rank order %s, innermost first)\n", p->rank_order);
  g_autoptr (CliTable) t = cli_table_new ();
  cli_table_add_column (t, "group", CLI_ALIGN_LEFT);
  cli_table_add_column (t, "size", CLI_ALIGN_RIGHT);
  cli_table_add_column (t, "groups", CLI_ALIGN_RIGHT);
  cli_table_add_column (t, "stride", CLI_ALIGN_RIGHT);
  cli_table_add_column (t, "spans", CLI_ALIGN_LEFT);
  cli_table_add_column (t, "members of rank 0's group", CLI_ALIGN_LEFT);
  for (guint i = 0; i < G_N_ELEMENTS (shown_axes); i++)
    {
      PlanAxis a = shown_axes[i];
      if (!axis_shown (ctx, a))
        continue;
      const PlanGroupInfo *g = &lay->groups[a];
      g_autofree char *members = members_text (lay, a, 0);
      cli_table_add_row (t);
      cli_table_cell (t, "%s", plan_axis_name (a));
      cli_table_cell (t, "%d", g->size);
      cli_table_cell (t, "%d", g->n_groups);
      cli_table_cell (t, "%" G_GUINT64_FORMAT, g->stride);
      cli_table_cell (t, "%s", g->size > 1 ? g->span_name : "-");
      cli_table_cell (t, "%s", members);
    }
  cli_table_print (t, stdout, "  ");
}

int
cli_cmd_plan (int argc, char **argv)
{
  gboolean json = FALSE;
  g_autofree char *framework = NULL;
  const GOptionEntry extra[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Machine-readable output", NULL },
    { "framework", 0, 0, G_OPTION_ARG_STRING, &framework,
      "Software stack (default megatron-core), as in tandem predict: its rank order, what it "
      "refuses and the plan fields it sets", "NAME|FILE" },
    { NULL },
  };
  CliPlanContext ctx;
  int status = cli_plan_context_init (&ctx, "show", "Resolve a parallel plan and show its "
                                      "degrees, stages and rank layout.", extra, &argc, &argv);
  if (status == 0 && (argc < 2 || !g_str_equal (argv[1], "show")))
    /* the hint runs as written on the default model (Llama 3 405B's 126 layers take
     * Meta's 7 + 14 x 8 + 7 on 16 stages; "--tp 8 --pp 16 --gpus 16384" alone was
     * refused, the layers not dividing) */
    status = cli_fail (CLI_EXIT_USAGE, "unknown plan subcommand%s%s (hint: tandem plan show "
                       "--tp 8 --pp 16 --gpus 16384 --decoder-first-pipeline-num-layers 7 "
                       "--decoder-last-pipeline-num-layers 7)", argc >= 2 ? " " : "",
                       argc >= 2 ? argv[1] : "");
  /* a word after show was dropped without a word (plan show extra printed the default
   * plan); predict, memory and search refuse theirs */
  if (status == 0 && argc > 2)
    status = cli_fail (CLI_EXIT_USAGE, "plan show: unexpected argument '%s' (hint: tandem "
                       "plan show --help)", argv[2]);
  /* the stack as predict and memory take it (plan show refused --framework, so a plan
   * under another stack's rank order could not be shown): its rank order, its refusals,
   * its plan fields; the layout is built again on the stack's rank order */
  g_autoptr (FwStack) stack = NULL;
  if (status == 0)
    {
      g_autoptr (GError) serr = NULL;
      stack = cli_stack_lookup (framework, &serr);
      if (stack == NULL)
        {
          g_autofree char *text = cli_lookup_error_text (serr, framework);
          status = cli_fail (CLI_EXIT_USAGE, "--framework: %s", text);
        }
      else if (!plan_adopt_stack_resolve (&ctx.plan, stack, ctx.model, ctx.cluster, &serr)
               || !plan_check_stack_model (&ctx.plan, ctx.model, stack, &serr))
        status = cli_fail (CLI_EXIT_USAGE, "%s", serr->message);
      else
        {
          SimOptions sopts;
          sim_options_init (&sopts, ctx.cluster);
          sim_cost_options_init_stack (&sopts.cost, ctx.cluster, stack);
          sim_plan_apply_stack (&ctx.plan, &sopts.cost);
          PlanLayout *lay = plan_layout_new (&ctx.plan, ctx.cluster, &serr);
          if (lay == NULL)
            status = cli_fail (CLI_EXIT_USAGE, "%s", serr->message);
          else
            {
              g_clear_pointer (&ctx.layout, plan_layout_free);
              ctx.layout = lay;
            }
        }
    }
  if (status == 0)
    {
      if (json)
        plan_show_json (&ctx, stack->name);
      else
        plan_show_text (&ctx, stack->name);
    }
  cli_plan_context_clear (&ctx);
  return status;
}

/* The memory table: one row per pipeline stage; a long pipeline shows the first two, the
 * peak and the last two stages unless `all_stages`. */
static void
memory_print_text (const CliPlanContext *ctx, const PlanMemory *mem, gboolean all_stages)
{
  g_autofree char *summary = plan_to_string (&ctx->plan);
  printf ("memory per GPU: %s on %s, %s\n", ctx->model->name, ctx->cluster->name, summary);
  g_autoptr (CliTable) t = cli_table_new ();
  cli_table_add_column (t, "stage", CLI_ALIGN_RIGHT);
  cli_table_add_column (t, "layers", CLI_ALIGN_RIGHT);
  cli_table_add_column (t, "in-flight", CLI_ALIGN_RIGHT);
  for (int c = 0; c < PLAN_MEM_N; c++)
    cli_table_add_column (t, plan_mem_category_name (c), CLI_ALIGN_RIGHT);
  cli_table_add_column (t, "total", CLI_ALIGN_RIGHT);
  cli_table_add_column (t, "verdict", CLI_ALIGN_LEFT);
  int left_out = 0;
  for (int s = 0; s < mem->n_stages; s++)
    {
      const PlanMemStage *st = &mem->stages[s];
      if (!all_stages && mem->n_stages > 6 && s > 1 && s < mem->n_stages - 2
          && s != mem->peak_stage)
        {
          left_out++;
          continue;
        }
      if (left_out > 0)
        {
          g_autofree char *note = g_strdup_printf ("  ... %d stage%s (--all-stages shows "
                                                   "them)", left_out, left_out == 1 ? "" : "s");
          cli_table_add_note (t, note);
          left_out = 0;
        }
      cli_table_add_row (t);
      cli_table_cell (t, "%d", st->stage);
      cli_table_cell (t, "%d", st->layers);
      cli_table_cell (t, "%d", st->inflight_microbatches);
      for (int c = 0; c < PLAN_MEM_N; c++)
        cli_table_cell (t, "%s", cli_fmt_bytes ((double) st->bytes[c]));
      cli_table_cell (t, "%s", cli_fmt_bytes ((double) st->total));
      cli_table_cell (t, "%s", st->fits ? "fits" : "OOM");
    }
  cli_table_print (t, stdout, "  ");
  printf ("\npeak %s on stage %d of %s HBM: %s\n", cli_fmt_bytes ((double) mem->peak_bytes),
          mem->peak_stage, cli_fmt_bytes ((double) mem->capacity_bytes),
          mem->fits ? "fits" : "OUT OF MEMORY");
  /* an MoE model's MoE layer stores its experts' copies, not the dense MLP's tensors:
   * the dense layer's figure alone read as the MoE layer's */
  g_autofree char *per_layer =
    mem->act_bytes_per_moe_layer == 0 ? g_strdup (cli_fmt_bytes ((double) mem->act_bytes_per_layer))
    : mem->moe_layers_only
    ? g_strdup_printf ("%s (an MoE layer)", cli_fmt_bytes ((double) mem->act_bytes_per_moe_layer))
    : g_strdup_printf ("%s a dense layer, %s an MoE layer",
                       cli_fmt_bytes ((double) mem->act_bytes_per_layer),
                       cli_fmt_bytes ((double) mem->act_bytes_per_moe_layer));
  printf ("  activations per layer per micro-batch: %s; reserve: %.0f%% fragmentation + "
          "%s fixed (terms: tandem show glossary)\n", per_layer, mem->reserve_fraction * 100,
          cli_fmt_bytes ((double) mem->reserve_fixed_bytes));
}

int
cli_cmd_memory (int argc, char **argv)
{
  gboolean json = FALSE, all_stages = FALSE;
  g_autofree char *framework = NULL;
  const GOptionEntry extra[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Machine-readable output", NULL },
    { "all-stages", 0, 0, G_OPTION_ARG_NONE, &all_stages,
      "Show every pipeline stage (a long pipeline otherwise shows the first two, the peak "
      "and the last two)", NULL },
    { "framework", 0, 0, G_OPTION_ARG_STRING, &framework,
      "Software stack (default megatron-core), as in tandem predict: its plan fields (FSDP "
      "semantics, gradient buffers) change the memory", "NAME|FILE" },
    { NULL },
  };
  CliPlanContext ctx;
  int status = cli_plan_context_init (&ctx, "", "Peak memory per GPU of a plan, by category "
                                      "and pipeline stage, with the OOM verdict and, when it "
                                      "does not fit, what would.", extra, &argc, &argv);
  if (status != 0)
    {
      cli_plan_context_clear (&ctx);
      return status;
    }
  if (argc > 1)
    {
      cli_plan_context_clear (&ctx);
      return cli_fail (CLI_EXIT_USAGE, "unexpected argument '%s' (hint: tandem memory "
                       "--help)", argv[1]);
    }
  /* the stack, as tandem predict reads it: predict's out-of-memory hint sends the user
   * here "with the same flags", --framework included */
  g_autoptr (GError) serr = NULL;
  g_autoptr (FwStack) stack = cli_stack_lookup (framework, &serr);
  if (stack == NULL)
    {
      g_autofree char *text = cli_lookup_error_text (serr, framework);
      cli_plan_context_clear (&ctx);
      return cli_fail (CLI_EXIT_USAGE, "--framework: %s", text);
    }
  if (!plan_adopt_stack_resolve (&ctx.plan, stack, ctx.model, ctx.cluster, &serr)
      || !plan_check_stack_model (&ctx.plan, ctx.model, stack, &serr))
    {
      cli_plan_context_clear (&ctx);
      return cli_fail (CLI_EXIT_USAGE, "%s", serr->message);
    }
  SimOptions sopts;
  sim_options_init (&sopts, ctx.cluster);
  sim_cost_options_init_stack (&sopts.cost, ctx.cluster, stack);
  sim_plan_apply_stack (&ctx.plan, &sopts.cost);
  PlanMemory mem;
  plan_memory_compute (ctx.model, &ctx.plan, ctx.cluster, &mem);
  g_autoptr (GArray) fit = NULL;
  /* the suggestions are simulated as predict would, on the same stack */
  if (!mem.fits)
    fit = cli_fit_suggestions (ctx.model, &ctx.plan, ctx.cluster, &mem, &sopts, stack);
  if (json)
    {
      g_autoptr (JsonBuilder) b = json_builder_new ();
      plan_memory_to_json (&mem, b);
      g_autoptr (JsonNode) root = json_builder_get_root (b);
      if (fit != NULL)
        cli_fit_to_json (fit, json_node_get_object (root));
      g_autofree char *text = util_json_to_data (root, TRUE);
      puts (text);
    }
  else
    {
      memory_print_text (&ctx, &mem, all_stages);
      cli_print_mtp_note (ctx.model, ctx.plan.mtp_num_layers, "  ");
      if (fit != NULL)
        {
          printf ("\n");
          cli_fit_print (fit, &mem, "");
        }
    }
  status = CLI_EXIT_OK;
  if (!mem.fits)
    status = cli_fail (CLI_EXIT_NOFIT, "does not fit: stage %d needs %s of %s HBM (hint: "
                       "%s, or tandem search)",
                       mem.peak_stage, cli_fmt_bytes ((double) mem.peak_bytes),
                       cli_fmt_bytes ((double) mem.capacity_bytes),
                       json ? "fit_suggestions lists what would fit" : "the changes listed above");
  plan_memory_clear (&mem);
  cli_plan_context_clear (&ctx);
  return status;
}
