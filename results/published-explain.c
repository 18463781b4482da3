/* results/published-explain.c - `tandem validate --explain ROW` (how each column of one
 * row was read) and `--ranking` (does the model order plans as measured). */
#include "results/published.h"

#include <math.h>
#include <string.h>

#include "plan/memory.h"
#include "sim/cost.h"
#include "sim/predict.h"

static const char *
cell_or (const ResCsv *csv, guint row, const char *column)
{
  const char *v = res_csv_get (csv, row, column);
  return *v != '\0' ? v : "(empty)";
}

static const char *
prec_name (PlanPrecision p)
{
  switch (p)
    {
    case PLAN_PREC_FP32: return "fp32";
    case PLAN_PREC_BF16: return "bf16";
    case PLAN_PREC_FP16: return "fp16";
    case PLAN_PREC_FP8: return "fp8";
    case PLAN_PREC_FP4: return "fp4";
    default: return "?";
    }
}

/* Whether a gpu_type cell says its parts ran below their rated power ("power limited",
 * "power-capped", "power cap 500 W"), not a cell that only names a power ("700 W") */
static gboolean
says_power_limited (const char *cell)
{
  static const char *const words[] = { "power limit", "power-limit", "power cap", "power-cap",
                                       "powercap", "power capped", "power-capped", NULL };
  g_autofree char *low = g_ascii_strdown (cell != NULL ? cell : "", -1);
  for (guint i = 0; words[i] != NULL; i++)
    if (strstr (low, words[i]) != NULL)
      return TRUE;
  return FALSE;
}

char *
res_published_explain (const ResCsv *csv, guint row, const ResPublishedCase *c)
{
  g_return_val_if_fail (csv != NULL && c != NULL, NULL);
  GString *s = g_string_new (NULL);
#define LINE(col, fmt, ...) g_string_append_printf (s, "  %-20s %-44.44s -> " fmt "\n", col, \
                                                    cell_or (csv, row, col), __VA_ARGS__)
  /* a column the mapping had not reached when it skipped the row: said so, not the
   * plan's default in its place (a row skipped at its micro_batch printed "precision ->
   * bf16" and every overlap off for an MXFP8 row with its overlaps on: audit of 7 Dec) */
#define READ(stage) (c->skip_reason == NULL || c->plan_read >= (stage))
#define UNREAD(col) LINE (col, "%s", "not read: the row was skipped at this column or before it (below)")
  g_string_append_printf (s, "row %" G_GINT64_FORMAT ": %s (%s)\n", c->row_id, c->model_label,
                          cell_or (csv, row, "source"));
  LINE ("gpu_type", "%s %s, family %s", c->cluster_given ? "cluster (--cluster)" : "cluster preset",
        c->cluster_name ? c->cluster_name : "none", res_pub_family_name (c->family));
  /* the GPUs as read ("1,536", "16x8", "2 nodes x 8 GPUs"; empty: tp x pp x cp x dp):
   * no line said how the cell was read */
  if (c->n_gpus > 0)
    LINE ("n_gpus", "%" G_GINT64_FORMAT " GPUs%s", c->n_gpus,
          /* "~64", "about 64": about 64, as written */
          res_published_cell_approximate (res_csv_get (csv, row, "n_gpus"))
            ? " (approximate as written)" : "");
  if (c->scaled_from > 0 && c->cluster != NULL)
    g_string_append_printf (s, "  %-20s %-44s    the run's %" G_GINT64_FORMAT " GPUs exceed the "
                            "preset's %" G_GUINT64_FORMAT ": its outermost level '%s' repeated "
                            "to %" G_GUINT64_FORMAT " devices\n", "", "", c->n_gpus, c->scaled_from,
                            c->cluster->levels[c->cluster->n_levels - 1].name,
                            c->cluster->n_devices);
  /* the scale-up domain the preset gives the row (its scale-up levels: NVLink on NVIDIA
   * parts, named by its level elsewhere), and the scale-out bandwidth beyond it: where a
   * row leaves part of its network unstated (DGX Cloud's GB200 rows run "4 GPUs per node"
   * and do not state the rack size), what tandem assumed shows here rather than only in
   * the data notes. CPU hosts have no such domain. */
  if (c->cluster != NULL && c->cluster->n_levels > 0
      && g_strcmp0 (c->cluster->device.vendor, "cpu") != 0)
    {
      const guint up = topo_cluster_scale_up_level (c->cluster);
      const guint64 domain = topo_cluster_level_size (c->cluster, up);
      /* NVLink where the part has it across its server: not the PCIe cards (their
       * servers join them over PCIe; the NVL card bridges pairs only), not the L40S */
      const char *dn = c->cluster->device.name != NULL ? c->cluster->device.name : "";
      const gboolean nvlink = g_strcmp0 (c->cluster->device.vendor, "nvidia") == 0
                              && strstr (dn, "PCIe") == NULL && strstr (dn, "NVL-") == NULL
                              && strstr (dn, "L40") == NULL;
      const char *net = res_csv_get (csv, row, "network");
      const char *assumed = strstr (net, "not stated") != NULL
                              ? "; the row's network leaves part unstated: the preset's" : "";
      g_autofree char *what = nvlink ? g_strdup ("NVLink domain")
                              : g_strdup_printf ("scale-up domain ('%s')",
                                                 c->cluster->levels[up].name);
      const double in_bw = c->cluster->levels[up].bw_Bps / 1e9;
      if (up + 1 < c->cluster->n_levels && c->cluster->levels[up + 1].bw_Bps < c->cluster->levels[up].bw_Bps)
        g_string_append_printf (s, "  %-20s %-44s    %s %" G_GUINT64_FORMAT " devices (%g GB/s "
                                "per device), beyond it %g GB/s per device (%s)%s\n", "", "",
                                what, domain, in_bw,
                                c->cluster->levels[up + 1].bw_Bps / 1e9,
                                c->cluster->levels[up + 1].name, assumed);
      else
        g_string_append_printf (s, "  %-20s %-44s    %s %" G_GUINT64_FORMAT " devices (%g GB/s "
                                "per device)%s\n", "", "", what, domain, in_bw, assumed);
    }
  if (c->network_note != NULL)
    LINE ("network", "%s", c->network_note);
  if (c->cluster != NULL)
    {
      SimCostOptions o;
      sim_cost_options_init_stack (&o, c->cluster, c->stack);
      /* an FP8 fraction only where the device has FP8 tensor cores (A100, V100: none) */
      g_autofree char *fp8 = c->cluster->device.peak_flops[TOPO_DTYPE_FP8] > 0
                               ? g_strdup_printf ("%.3f", o.gemm_fp8_efficiency)
                               : g_strdup ("- (no FP8)");
      g_string_append_printf (s, "  %-20s %-44s    device %s: gemm %.3f, fp8 gemm %s, "
                              "attention %.3f / %.3f of peak%s\n", "", "", c->cluster->device.name,
                              o.gemm_efficiency, fp8, o.attn_fwd_efficiency,
                              o.attn_bwd_efficiency, o.extrapolated ? " (extrapolated)" : "");
      /* a part the gpu_type says ran power limited ("8x power limited B200 GPUs", torchao's
       * MX README): the clock the preset holds at a cap, or, where it holds none, that the
       * rated power was predicted, so the run was slower than this by about the clock drop
       * on its SM-bound part (the limit is seldom stated; audit of 7 Dec: it was dropped
       * without a word) */
      if (says_power_limited (res_csv_get (csv, row, "gpu_type")))
        {
          const double r = c->cluster->device.power_cap_clock_ratio;
          if (r > 0 && r < 1)
            g_string_append_printf (s, "  %-20s %-44s    said power limited: the preset's clock "
                                    "at its cap, %.3f of the rated one\n", "", "", r);
          else
            g_string_append_printf (s, "  %-20s %-44s    said power limited, and the preset holds "
                                    "no clock below its rated power: predicted at the rated "
                                    "power, faster than the run by up to the clock drop\n",
                                    "", "");
        }
      g_auto (GStrv) bound = sim_cost_knobs_at_bound (c->cluster);
      for (guint i = 0; bound != NULL && bound[i] != NULL; i++)
        g_string_append_printf (s, "  %-20s %-44s    fitted knob at its bound: %s\n", "", "",
                                bound[i]);
    }
  /* a compiled run no cell names: why (compile_why: async TP needs it) */
  if (c->stack != NULL)
    LINE ("framework", "stack %s (attention %s, fusion %s, %g us per kernel)%s%s%s%s%s",
          c->stack->name, fw_attn_kernel_name (c->stack->attention),
          fw_fusion_name (c->stack->fusion), c->stack->kernel_overhead_s * 1e6,
          c->stack_why != NULL ? "; " : "", c->stack_why != NULL ? c->stack_why : "",
          c->compile_why != NULL ? "; compiled: " : "",
          c->compile_why != NULL ? c->compile_why : "",
          /* the stack's fusion is its eager default; a compiled run says so (the line
           * said "fusion eager" beside a torch.compile the row named and the plan ran) */
          c->compile_why == NULL && c->plan_valid && c->plan.compile
            ? "; compiled (torch.compile named)" : "");
  if (c->model != NULL)
    {
      /* a hybrid Mamba-2 model named with its preset's shape: the preset is the model */
      if (c->model_preset != NULL && model_spec_is_mamba (c->model))
        LINE ("model", "the %s preset: hybrid Mamba-2, %" G_GUINT64_FORMAT " Mamba, %"
              G_GUINT64_FORMAT " attention and %" G_GUINT64_FORMAT " MLP layers",
              c->model_preset, model_spec_n_layers_of_kind (c->model, 'M'),
              model_spec_n_layers_of_kind (c->model, '*'),
              model_spec_n_layers_of_kind (c->model, '-'));
      LINE ("n_layers", "%" G_GUINT64_FORMAT, c->model->n_layers);
      LINE ("hidden", "%" G_GUINT64_FORMAT, c->model->hidden);
      LINE ("n_heads", "%" G_GUINT64_FORMAT, c->model->n_heads);
      LINE ("n_kv_heads", "%" G_GUINT64_FORMAT, c->model->n_kv_heads);
      LINE ("ffn_hidden", "%" G_GUINT64_FORMAT " (%s MLP)", c->model->ffn_hidden,
            c->model->mlp == MODEL_MLP_SWIGLU ? "SwiGLU"
            : model_spec_is_mamba (c->model) ? "squared-ReLU" : "GeLU");
      LINE ("vocab", "%" G_GUINT64_FORMAT "%s%s%s", c->model->vocab,
            c->vocab_preset != NULL ? " (the cell is empty: the " : "",
            c->vocab_preset != NULL ? c->vocab_preset : "",
            c->vocab_preset != NULL ? " preset's)" : "");
      LINE ("seq_len", "%" G_GUINT64_FORMAT, c->model->max_positions);
    }
  if (c->moe.present)
    {
      g_autofree char *moe = res_pub_moe_describe (&c->moe);
      if (c->moe.preset != NULL)
        LINE ("moe", "%s (no moe cell: the %s preset the model cell names)", moe,
              c->moe.preset);
      else if (c->moe.arch_from != NULL)
        LINE ("moe", "%s (no moe cell: the shape %s states)", moe, c->moe.arch_from);
      else
        LINE ("moe", "%s", moe);
      /* the expert layout the plan ran: ep from the row's ep column, etp from the moe cell,
       * else the ep cell or the notes (res_pub_moe_read_row), else Megatron-Core's
       * default (the TP degree); an etp elsewhere in the row that the cell's overrode */
      if (c->plan_valid)
        {
          g_autofree char *other = c->moe.etp_other > 0
            ? g_strdup_printf ("; %s gives %" G_GUINT64_FORMAT ", the moe cell's wins",
                               c->moe.etp_other_from, c->moe.etp_other)
            : g_strdup ("");
          g_autofree char *from = c->moe.etp_from != NULL
            ? g_strdup_printf (" (etp from %s)", c->moe.etp_from) : NULL;
          g_string_append_printf (s, "  %-20s %-44.44s -> %d%s; expert tp %d%s%s\n", "ep",
                                  cell_or (csv, row, "ep"), c->plan.ep,
                                  c->moe.ep_from != NULL ? " (from the notes)"
                                  : res_csv_get (csv, row, "ep")[0] == '\0' ? " (not stated)"
                                                                            : "",
                                  c->plan.etp > 0 ? c->plan.etp : c->plan.tp,
                                  from != NULL ? from
                                  : c->moe.etp > 0 ? " (the moe cell's etp)"
                                  : " (etp not stated: Megatron-Core's default, the TP degree)",
                                  other);
        }
    }
  if (c->plan_valid)
    {
      const Plan *p = &c->plan;
      const char *one = " (not stated: the stack's default, no model parallelism)";
      /* (a tp left empty where pp x cp (x dp) fill the GPUs: tp_left_one says so) */
      LINE ("tp", "%d%s%s%s%s", p->tp, (c->degrees_defaulted & 1) ? one : "",
            c->tp_why != NULL ? " (" : "", c->tp_why != NULL ? c->tp_why : "",
            c->tp_why != NULL ? ")" : "");
      LINE ("pp", "%d%s", p->pp, (c->degrees_defaulted & 2) ? one : "");
      LINE ("cp", "%d (%s)", p->cp, plan_cp_comm_name (p->cp_comm));
      LINE ("dp", "%d", p->dp > 0 ? p->dp : p->dp_given);
      LINE ("virtual_pipeline", "vpp %d%s%s%s, %s%s", p->vpp,
            c->vpp_why != NULL ? " (" : "", c->vpp_why != NULL ? c->vpp_why : "",
            c->vpp_why != NULL ? ")" : "", plan_schedule_name (p->schedule),
            p->account_embedding && p->account_loss
              ? ", embedding and loss take a layer slot each (one layer fewer on the first "
                "and last stage)" : "");
      if (!READ (RES_PUB_READ_SP))
        UNREAD ("sequence_parallel");
      else
        LINE ("sequence_parallel", "%s%s%s%s", p->sequence_parallel ? "on" : "off",
              c->sp_why != NULL ? " (" : "", c->sp_why != NULL ? c->sp_why : "",
              c->sp_why != NULL ? ")" : "");
      /* how the row's MTP was read (res_pub_moe_plan): the moe cell's mtp_layers */
      if (!READ (RES_PUB_READ_ALL))
        ;
      else if (p->mtp_num_layers > 0)
        g_string_append_printf (s, "  %-20s %-44s -> %d module%s trained on the last stage (the "
                                "moe cell's mtp_layers=%d: --mtp-num-layers %d)\n", "mtp", "",
                                p->mtp_num_layers, p->mtp_num_layers == 1 ? "" : "s",
                                p->mtp_num_layers, p->mtp_num_layers);
      else if (c->moe.present && (c->moe.preset != NULL || c->moe.arch_from != NULL))
        g_string_append_printf (s, "  %-20s %-44s -> none trained (no moe cell: Megatron's "
                                "default, no --mtp-num-layers)\n", "mtp", "");
      else if (c->moe.present)
        g_string_append_printf (s, "  %-20s %-44s -> none trained (the moe cell's mtp_layers is "
                                "0 or absent: Megatron's default, no --mtp-num-layers)\n",
                                "mtp", "");
      /* the derived counts only where the plan has them: a row skipped before its group
       * or its micro-batches were derived printed "hsdp, shard group 0" and "191 (0
       * micro-batches per step)", the skip line below saying why there is none */
      if (!READ (RES_PUB_READ_SHARDING))
        UNREAD ("zero_stage_or_fsdp");
      else if (p->sharding == PLAN_SHARD_HSDP && p->hsdp_shard_size > 0)
        LINE ("zero_stage_or_fsdp", "hsdp, shard group %d", p->hsdp_shard_size);
      else if (p->sharding == PLAN_SHARD_HSDP)
        LINE ("zero_stage_or_fsdp", "hsdp, no shard group%s",
              c->skip_reason != NULL ? " (skipped: below)" : "");
      else
        LINE ("zero_stage_or_fsdp", "%s%s%s%s", plan_sharding_name (p->sharding),
              c->sharding_why != NULL ? " (" : "", c->sharding_why != NULL ? c->sharding_why : "",
              c->sharding_why != NULL ? ")" : "");
      /* a micro-batch read after a label, in the notes, or from a local batch
       * (published.c micro_batch_stated) says how */
      if (!READ (RES_PUB_READ_BATCH))
        {
          UNREAD ("micro_batch");
          UNREAD ("global_batch");
        }
      else
        LINE ("micro_batch", "%d%s%s%s", p->micro_batch, c->micro_batch_why != NULL ? " (" : "",
              c->micro_batch_why != NULL ? c->micro_batch_why : "",
              c->micro_batch_why != NULL ? ")" : "");
      /* a batch per GPU or per node says how it became the global one (batch_why) */
      if (!READ (RES_PUB_READ_BATCH))
        ;
      else if (p->grad_accum > 0)
        LINE ("global_batch", "%d (%d micro-batch%s per step%s%s)", p->global_batch,
              p->grad_accum, p->grad_accum == 1 ? "" : "es", c->batch_why != NULL ? "; " : "",
              c->batch_why != NULL ? c->batch_why : "");
      else
        LINE ("global_batch", "%d (micro-batches per step not derived%s%s%s)",
              p->global_batch, c->skip_reason != NULL ? ": skipped, below" : "",
              c->batch_why != NULL ? "; " : "", c->batch_why != NULL ? c->batch_why : "");
      /* --recompute-modules other than core_attn (plan.h): named next to the granularity,
       * so "selective (modules: layernorm, moe_act)" does not read as no recompute */
      g_autofree char *modules = plan_recompute_modules_string (p);
      g_autofree char *rc_modules = modules != NULL && modules[0] != '\0'
                                      ? g_strdup_printf ("; modules recomputed: %s", modules)
                                      : g_strdup ("");
      /* full recompute of part of each chunk (torchtitan's layer-level AC, "selective
       * (layer)": floor(L / 2) of a chunk's L blocks, as Megatron's block method; every
       * N-th layer): how many, so the line does not read as every layer recomputed */
      g_autofree char *rc_part = NULL;
      if (p->recompute == PLAN_RECOMPUTE_FULL && p->recompute_every > 1)
        rc_part = g_strdup_printf (" (every %d-th layer of each chunk)", p->recompute_every);
      else if (p->recompute == PLAN_RECOMPUTE_FULL && p->recompute_method == PLAN_RECOMPUTE_BLOCK
               && p->recompute_num_layers > 0)
        rc_part = g_strdup_printf (" (%d layer%s of each chunk, block method; the others keep "
                                   "their activations)", p->recompute_num_layers,
                                   p->recompute_num_layers == 1 ? "" : "s");
      else if (p->recompute == PLAN_RECOMPUTE_FULL && p->recompute_method == PLAN_RECOMPUTE_UNIFORM
               && p->recompute_num_layers > 1)
        rc_part = g_strdup_printf (" (uniform, %d layers a unit)", p->recompute_num_layers);
      else if (p->recompute == PLAN_RECOMPUTE_FULL)
        rc_part = g_strdup (" (every layer)");
      else
        rc_part = g_strdup ("");
      /* where an empty cell's recompute came from: the FLOP convention that says so */
      const char *rc_cell = res_csv_get (csv, row, "recompute");
      const char *rc_from = rc_cell[0] == '\0' && p->recompute != PLAN_RECOMPUTE_NONE
                              ? "; the cell is empty: from the notes or the flops_convention cell "
                                "(they say the runs recomputed)" : "";
      if (!READ (RES_PUB_READ_RECOMPUTE))
        UNREAD ("recompute");
      else if (p->cpu_offload_layers > 0)
        LINE ("recompute", "%s%s%s; activations of %d layers in host memory (CPU offloading)",
              plan_recompute_name (p->recompute), rc_part, rc_modules, p->cpu_offload_layers);
      else
        LINE ("recompute", "%s%s%s%s%s%s", plan_recompute_name (p->recompute), rc_part,
              rc_modules, rc_from, c->recompute_why != NULL ? "; " : "",
              c->recompute_why != NULL ? c->recompute_why : "");
      /* the FP8 recipe: the row's where it names one, else the stack's */
      g_autofree char *recipe = NULL;
      if (p->compute_dtype == PLAN_PREC_FP8)
        recipe = p->fp8_recipe >= 0
                   ? g_strdup_printf (" (%s recipe%s%s)", plan_fp8_recipe_name (p->fp8_recipe),
                                      c->fp8_recipe_why != NULL ? ": " : "",
                                      c->fp8_recipe_why != NULL ? c->fp8_recipe_why : "")
                   : g_strdup_printf (" (the stack's %s recipe)",
                                      fw_scaling_name (c->stack->fp8_scaling));
      /* FSDP's weight all-gather where a cell said float8 or bf16 (fsdp_ag_why) */
      g_autofree char *gather = c->fsdp_ag_why != NULL && p->compute_dtype == PLAN_PREC_FP8
                                  ? g_strdup_printf ("; FSDP all-gather in %s (%s)",
                                                     p->fsdp_float8_all_gather ? "float8"
                                                                               : "bf16",
                                                     c->fsdp_ag_why)
                                  : g_strdup ("");
      /* the linear weights in fp8 (Megatron --fp8-param-gather): said by a cell, or the
       * stack's default as sim_plan_apply_stack fills it */
      Plan filled = *p;
      plan_fill_fp8_param_gather (&filled, c->stack->fp8_param_gather,
                                  (int) c->stack->fp8_scaling);
      const char *wfp8 = plan_fp8_params (&filled) ? "; linear weights held and gathered in fp8"
                         : p->fp8_param_gather == 0 && c->fp8_param_why != NULL
                         ? "; weights held and gathered in bf16" : "";
      g_autofree char *wfp8_why
        = g_strdup_printf ("%s%s%s%s", wfp8, *wfp8 != '\0' ? " (" : "",
                           *wfp8 == '\0' ? ""
                           : c->fp8_param_why != NULL ? c->fp8_param_why
                           : "the stack's fp8_param_gather",
                           *wfp8 != '\0' ? ")" : "");
      if (!READ (RES_PUB_READ_ALL))
        UNREAD ("precision");
      else
        LINE ("precision", "%s%s%s%s%s%s%s", prec_name (p->compute_dtype),
              p->compute_dtype == PLAN_PREC_FP8
                ? (c->fp8_attention ? " GEMMs and attention" : " GEMMs, attention bf16")
                : p->compute_dtype == PLAN_PREC_FP4
                ? " (NVFP4 recipe: layer linears in FP4; output layer, router, attention bf16)"
                : "",
              recipe != NULL ? recipe : "", c->precision_why != NULL ? "; " : "",
              c->precision_why != NULL ? c->precision_why : "", gather, wfp8_why);
      if (!READ (RES_PUB_READ_ALL))
        UNREAD ("notes");
      else
        LINE ("notes", "attention %s%s%s%s; overlaps: grad %s, param %s, tp %s; grads %s%s%s%s",
              plan_attn_backend_name (p->attention_backend), c->attn_why != NULL ? " (" : "",
              c->attn_why != NULL ? c->attn_why : "", c->attn_why != NULL ? ")" : "",
              p->overlap_grad_reduce ? "on" : "off",
              p->overlap_param_gather ? "on" : "off", p->tp_comm_overlap ? "on" : "off",
              prec_name (p->grad_dtype), c->grad_dtype_why != NULL ? " (" : "",
              c->grad_dtype_why != NULL ? c->grad_dtype_why : "",
              c->grad_dtype_why != NULL ? ")" : "");
    }
  if (c->measured_source != NULL)
    {
      /* the cell the step time came from, as written ("1.5 h", "31.5K tokens/s"): the
       * line gave the result alone */
      g_autofree char *col = g_strndup (c->measured_source, strcspn (c->measured_source, " "));
      g_string_append_printf (s, "  %-20s %-44.44s    measured %.4g s from %s\n", "measured",
                              cell_or (csv, row, col), c->measured_step_s, c->measured_source);
    }
  /* CPU offload copies, where the plan has them: exposed of busy */
  g_autofree char *offload = c->predicted && c->predicted_offload_s > 0
    ? g_strdup_printf (" / offload %.3g of %.3g s copying", c->predicted_exposed_offload_s,
                       c->predicted_offload_s)
    : g_strdup ("");
  if (c->predicted)
    g_string_append_printf (s, "  prediction: %.4g s (%+.1f%%); compute %.4g s, bubble %.4g s, "
                            "exposed tp %.3g / cp %.3g / ep %.3g / pp %.3g / dp %.3g s%s%s\n",
                            c->predicted_step_s, c->err_pct, c->predicted_compute_s,
                            c->predicted_bubble_s, c->predicted_exposed_s[PROG_COMM_TP],
                            c->predicted_exposed_s[PROG_COMM_CP],
                            c->predicted_exposed_s[PROG_COMM_EP],
                            c->predicted_exposed_s[PROG_COMM_PP],
                            c->predicted_exposed_s[PROG_COMM_DP], offload,
                            c->fits ? "" : " (OOM predicted)");
  else if (c->skip_reason != NULL)
    g_string_append_printf (s, "  skipped: %s\n", c->skip_reason);
  if (c->predicted)
    {
      /* the memory verdict by category at the peak stage (plan/memory.h), so an "OOM
       * predicted" row shows what fills the device */
      PlanMemory mem;
      /* on the plan as the prediction ran it: the stack fills what the row leaves to it
       * (sim_plan_apply_stack; e.g. ZeRO-2 reduced once per step keeps its gradients
       * unsharded) */
      Plan ran;
      plan_copy (&ran, &c->plan);
      if (c->cluster != NULL)
        {
          SimCostOptions so;
          sim_cost_options_init_stack (&so, c->cluster, c->stack);
          sim_plan_apply_stack (&ran, &so);
        }
      plan_memory_compute (c->model, &ran, c->cluster, &mem);
      plan_clear (&ran);
      const PlanMemStage *st = &mem.stages[mem.peak_stage];
      /* GiB, as tandem memory and predict print the same plan's memory */
      const double gib = 1073741824.0;
      g_string_append_printf (s, "  memory: peak %.1f GiB of %.1f GiB on stage %d (%d layers, "
                              "%d micro-batch%s in flight):", (double) mem.peak_bytes / gib,
                              (double) mem.capacity_bytes / gib, mem.peak_stage, st->layers,
                              st->inflight_microbatches,
                              st->inflight_microbatches == 1 ? "" : "es");
      for (int k = 0; k < PLAN_MEM_N; k++)
        g_string_append_printf (s, "%s %s %.1f", k == 0 ? "" : ",",
                                plan_mem_category_name ((PlanMemCategory) k),
                                (double) st->bytes[k] / gib);
      g_string_append (s, " GiB\n");
      plan_memory_clear (&mem);
    }
#undef LINE
#undef READ
#undef UNREAD
  return g_string_free (s, FALSE);
}

/* ---- ranking -------------------------------------------------------------------------- */

/* one model, GPU type, size and batch: the GPU type is the device the row's gpu_type
 * mapped to (an A100 40 GB and an A100 80 GB are one family but not one GPU type), the
 * family where no cluster was found */
static char *
group_key (const ResPublishedCase *c)
{
  return g_strdup_printf ("%s|%s|%" G_GINT64_FORMAT "|%d|%d", c->model_label,
                          c->cluster != NULL ? c->cluster->device.name
                                             : res_pub_family_name (c->family),
                          c->n_gpus, c->plan.global_batch, c->plan.seq_length);
}

void
res_published_ranking (const ResPublishedReport *r, ResPublishedRanking *out)
{
  g_return_if_fail (r != NULL && out != NULL);
  memset (out, 0, sizeof *out);
  out->misordered = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GHashTable) groups = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                         (GDestroyNotify) g_ptr_array_unref);
  for (guint i = 0; i < r->cases->len; i++)
    {
      ResPublishedCase *c = r->cases->pdata[i];
      if (!c->predicted)
        continue;
      char *key = group_key (c);
      GPtrArray *g = g_hash_table_lookup (groups, key);
      if (g == NULL)
        {
          g = g_ptr_array_new ();
          g_hash_table_insert (groups, key, g);
        }
      else
        g_free (key);
      g_ptr_array_add (g, c);
    }
  /* walk the groups in CSV order of their first row, so the output is stable */
  for (guint i = 0; i < r->cases->len; i++)
    {
      ResPublishedCase *first = r->cases->pdata[i];
      if (!first->predicted)
        continue;
      g_autofree char *key = group_key (first);
      GPtrArray *g = g_hash_table_lookup (groups, key);
      if (g == NULL || g->pdata[0] != first || g->len < 2)
        continue;
      out->n_groups++;
      for (guint a = 0; a < g->len; a++)
        for (guint b = a + 1; b < g->len; b++)
          {
            const ResPublishedCase *x = g->pdata[a], *y = g->pdata[b];
            g_autofree char *px = res_published_case_plan_string (x);
            g_autofree char *py = res_published_case_plan_string (y);
            /* the same plan measured twice is no ranking question: the same plan as
             * tandem reads it (plan_to_string: the FP8 recipe, torch.compile, the MoE
             * options, CUDA graphs too) on the same stack. The short plan string leaves
             * those out, and rows that differ there (FP8-CS against MXFP8, eager against
             * compiled) were dropped as repeats; rows that differ only in what tandem
             * does not model (a container version) stay out */
            g_autofree char *sx = plan_to_string (&x->plan), *sy = plan_to_string (&y->plan);
            if (g_strcmp0 (sx, sy) == 0
                && g_strcmp0 (x->stack != NULL ? x->stack->name : NULL,
                              y->stack != NULL ? y->stack->name : NULL) == 0)
              continue;
            if (g_strcmp0 (px, py) == 0)
              {
                g_free (px), g_free (py);
                px = g_strdup (sx), py = g_strdup (sy);
              }
            const double dm = y->measured_step_s - x->measured_step_s;
            const double dp = y->predicted_step_s - x->predicted_step_s;
            const gboolean ordered = (dm > 0) == (dp > 0) || dm == 0;
            const gboolean wide = fabs (dm) > 0.05 * MIN (x->measured_step_s, y->measured_step_s);
            out->n_pairs++;
            out->n_ordered += ordered;
            if (wide)
              {
                out->n_pairs_wide++;
                out->n_ordered_wide += ordered;
              }
            if (!ordered)
              g_ptr_array_add (out->misordered, g_strdup_printf (
                "rows %" G_GINT64_FORMAT " (%s) and %" G_GINT64_FORMAT " (%s): measured %.3g "
                "vs %.3g s, predicted %.3g vs %.3g s%s", x->row_id, px, y->row_id, py,
                x->measured_step_s, y->measured_step_s, x->predicted_step_s,
                y->predicted_step_s, wide ? " (measured apart by more than 5%)" : ""));
          }
    }
}

void
res_published_ranking_clear (ResPublishedRanking *r)
{
  if (r != NULL)
    g_clear_pointer (&r->misordered, g_ptr_array_unref);
}
