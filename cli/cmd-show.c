/* cli/cmd-show.c - `tandem show model|cluster|framework NAME|FILE [--json]`, `tandem show conventions`. */
#include "cli/cli.h"
#include "cli/cli-table.h"
#include "sim/cost.h"

#include <stdio.h>

static const char *
op_kind_name (ModelOpKind k)
{
  static const char *const names[] = { "gemm", "attention", "norm", "elementwise",
                                       "embedding", "loss", "grouped_gemm", "gdn" };
  return (guint) k < G_N_ELEMENTS (names) ? names[k] : "?";
}

static const char *
op_part_name (ModelPart p)
{
  static const char *const names[] = { "embedding", "layer", "head", "moe_layer",
                                       "full_attn", "linear_attn" };
  return (guint) p < G_N_ELEMENTS (names) ? names[p] : "?";
}

static int
show_model (const char *name, int seq, gboolean json)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ModelSpec) m = cli_model_lookup (name, &error);
  if (m == NULL)
    {
      g_autofree char *text = cli_lookup_error_text (error, name);
      return cli_fail (cli_status_for_error (error), "%s", text);
    }
  if (seq <= 0)
    seq = (int) MIN (m->max_positions, 8192);

  ModelParams p;
  model_spec_params (m, &p);
  g_autoptr (GArray) ops = g_array_new (FALSE, TRUE, sizeof (ModelOp));
  model_spec_ops (m, 1, (guint64) seq, ops);
  const char *mlp = model_spec_is_mamba (m) ? "relu2"   /* Nemotron-H: squared ReLU, ungated */
                    : m->mlp != MODEL_MLP_SWIGLU ? "gelu" : m->gelu_gate ? "geglu" : "swiglu";
  const char *norm = m->norm == MODEL_NORM_RMS ? "rmsnorm"
                     : m->norm == MODEL_NORM_LAYER ? "layernorm" : "layernorm_nobias";
  const char *pos = m->pos == MODEL_POS_ROTARY ? "rotary"
                    : m->pos == MODEL_POS_ALIBI ? "alibi"
                    : m->pos == MODEL_POS_NONE ? "none" : "learned";

  if (json)
    {
      g_autoptr (JsonBuilder) b = json_builder_new ();
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, m->name);
      json_builder_set_member_name (b, "source");
      json_builder_add_string_value (b, m->source);
      json_builder_set_member_name (b, "model_type");
      json_builder_add_string_value (b, m->model_type);
      json_builder_set_member_name (b, "architecture");
      json_builder_begin_object (b);
#define I(k, v) G_STMT_START { json_builder_set_member_name (b, k); \
      json_builder_add_int_value (b, (gint64) (v)); } G_STMT_END
      I ("n_layers", m->n_layers);
      I ("hidden", m->hidden);
      I ("ffn_hidden", m->ffn_hidden);
      I ("n_heads", m->n_heads);
      I ("n_kv_heads", m->n_kv_heads);
      I ("head_dim", m->head_dim);
      I ("vocab", m->vocab);
      I ("max_positions", m->max_positions);
      json_builder_set_member_name (b, "mlp");
      json_builder_add_string_value (b, mlp);
      json_builder_set_member_name (b, "norm");
      json_builder_add_string_value (b, norm);
      json_builder_set_member_name (b, "positions");
      json_builder_add_string_value (b, pos);
      json_builder_set_member_name (b, "tied_embeddings");
      json_builder_add_boolean_value (b, m->tied_embeddings);
      I ("norms_per_block", m->norms_per_block > 0 ? m->norms_per_block : 2);
      json_builder_set_member_name (b, "parallel_block");
      json_builder_add_boolean_value (b, m->parallel_block);
      if (model_spec_is_moe (m))
        {
          I ("n_experts", m->n_experts);
          I ("moe_top_k", m->moe_top_k);
          I ("moe_ffn", m->moe_ffn);
          I ("n_shared_experts", m->n_shared_experts);
          I ("shared_expert_ffn", m->shared_expert_ffn);
          I ("first_dense_layers", m->first_dense_layers);
          I ("moe_layer_step", m->moe_layer_step);
          json_builder_set_member_name (b, "router");
          json_builder_add_string_value (b, m->router_score == MODEL_ROUTER_SIGMOID
                                              ? "sigmoid" : "softmax");
        }
      if (model_spec_is_mla (m))
        {
          I ("q_lora_rank", m->q_lora_rank);
          I ("kv_lora_rank", m->kv_lora_rank);
          I ("qk_rope_head_dim", m->qk_rope_head_dim);
          I ("qk_nope_head_dim", m->qk_nope_head_dim);
          I ("v_head_dim", m->v_head_dim);
        }
      if (m->mtp_layers > 0)
        I ("mtp_layers", m->mtp_layers);
      if (model_spec_is_mamba (m))
        {
          json_builder_set_member_name (b, "hybrid_override_pattern");
          json_builder_add_string_value (b, m->layer_pattern);
          I ("mamba_layers", model_spec_n_layers_of_kind (m, 'M'));
          I ("attention_layers", model_spec_n_layers_of_kind (m, '*'));
          I ("mlp_layers", model_spec_n_layers_of_kind (m, '-'));
          I ("mamba_num_heads", m->mamba_heads);
          I ("mamba_head_dim", m->mamba_head_dim);
          I ("n_groups", m->mamba_groups);
          I ("ssm_state_size", m->mamba_state);
          I ("conv_kernel", m->mamba_conv);
          I ("chunk_size", m->mamba_chunk);
        }
      if (model_spec_is_gdn (m))
        {
          I ("full_attention_interval", m->full_attn_interval);
          I ("linear_layers", model_spec_n_linear_layers (m));
          I ("linear_num_key_heads", m->gdn_k_heads);
          I ("linear_num_value_heads", m->gdn_v_heads);
          I ("linear_key_head_dim", m->gdn_k_dim);
          I ("linear_value_head_dim", m->gdn_v_dim);
          I ("linear_conv_kernel_dim", m->gdn_conv);
          I ("rotary_dim", model_spec_rotary_dim (m));
          json_builder_set_member_name (b, "attn_output_gate");
          json_builder_add_boolean_value (b, m->attn_output_gate);
        }
      if (m->n_sliding_layers > 0)
        {
          I ("sliding_window", m->sliding_window);
          I ("sliding_layers", m->n_sliding_layers);
        }
      if (m->n_chunked_layers > 0)
        {
          I ("attention_chunk", m->attention_chunk);
          I ("chunked_layers", m->n_chunked_layers);
        }
      json_builder_end_object (b);
      I ("params", p.total);
      I ("active_params", p.active);
      json_builder_set_member_name (b, "param_counts");
      json_builder_begin_object (b);
      I ("total", p.total);
      I ("embedding", p.embedding);
      I ("non_embedding", p.non_embedding);
      I ("per_layer", p.per_layer);
      I ("attention_per_layer", p.attention_per_layer);
      I ("mlp_per_layer", p.mlp_per_layer);
      I ("norms_per_layer", p.norms_per_layer);
      I ("input_embedding", p.input_embedding);
      I ("output_head", p.output_head);
      if (model_spec_is_moe (m))
        {
          I ("active", p.active);
          I ("n_dense_layers", p.n_dense_layers);
          I ("n_moe_layers", p.n_moe_layers);
          I ("per_moe_layer", p.per_moe_layer);
          I ("expert", p.expert);
          I ("experts_per_layer", p.experts_per_layer);
          I ("shared_per_layer", p.shared_per_layer);
          I ("router_per_layer", p.router_per_layer);
          I ("experts", p.experts);
        }
      if (model_spec_is_gdn (m))
        {
          I ("n_linear_layers", p.n_linear_layers);
          I ("linear_attention_per_layer", p.linear_attention_per_layer);
        }
      if (m->mtp_layers > 0)
        {
          I ("mtp", p.mtp);
          I ("mtp_active", p.mtp_active);
        }
      json_builder_end_object (b);
      I ("seq_length", seq);
      json_builder_set_member_name (b, "flops_per_token");
      json_builder_begin_object (b);
      for (int c = 0; c < MODEL_FLOPS_N_CONVENTIONS; c++)
        {
          json_builder_set_member_name (b, model_flop_convention_name (c));
          if (model_flop_convention_refusal (m, c) != NULL)
            json_builder_add_null_value (b);
          else
            json_builder_add_double_value (b, model_spec_flops_per_token (m, (guint64) seq, c));
        }
      json_builder_end_object (b);
      if (m->mtp_layers > 0)
        {
          json_builder_set_member_name (b, "mtp_flops_per_token");
          json_builder_add_double_value (b, model_spec_mtp_flops_per_token (m, (guint64) seq,
                                                                            FALSE));
        }
      json_builder_set_member_name (b, "hw_flops_per_token");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "no_recompute");
      json_builder_add_double_value (b, model_spec_hw_flops_per_token (m, (guint64) seq, 0));
      json_builder_set_member_name (b, "full_recompute");
      json_builder_add_double_value (b, model_spec_hw_flops_per_token (m, (guint64) seq, 1));
      json_builder_end_object (b);
      json_builder_set_member_name (b, "ops");
      json_builder_begin_array (b);
      for (guint i = 0; i < ops->len; i++)
        {
          const ModelOp *op = &g_array_index (ops, ModelOp, i);
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "name");
          json_builder_add_string_value (b, op->name);
          json_builder_set_member_name (b, "kind");
          json_builder_add_string_value (b, op_kind_name (op->kind));
          json_builder_set_member_name (b, "part");
          json_builder_add_string_value (b, op_part_name (op->part));
          if (op->kind == MODEL_OP_GEMM || op->kind == MODEL_OP_GROUPED_GEMM)
            {
              I ("m", op->m);
              I ("n", op->n);
              I ("k", op->k);
              if (op->kind == MODEL_OP_GROUPED_GEMM)
                {
                  I ("groups", op->groups);
                  I ("tokens", op->tokens);
                }
            }
          else if (op->kind == MODEL_OP_ATTENTION || op->kind == MODEL_OP_GDN)
            {
              I ("b", op->b);
              I ("heads", op->heads);
              I ("kv_heads", op->kv_heads);
              I ("s_q", op->s_q);
              I ("s_kv", op->s_kv);
              I ("head_dim", op->head_dim);
              if (op->head_dim_v != 0 && op->head_dim_v != op->head_dim)
                I ("head_dim_v", op->head_dim_v);
              if (op->window > 0)
                I ("window", op->window);
              if (op->chunk > 0)
                I ("chunk", op->chunk);
              json_builder_set_member_name (b, "causal");
              json_builder_add_boolean_value (b, op->causal);
            }
          else
            I ("elements", op->elements);
          json_builder_set_member_name (b, "fwd_flops");
          json_builder_add_double_value (b, op->fwd_flops);
          I ("params", op->weight_params);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
#undef I
      json_builder_end_object (b);
      cli_print_json (b);
      return CLI_EXIT_OK;
    }

  g_autofree char *msrc = cli_printable (m->source, NULL);
  printf ("model %s  (%s, model_type %s)\n", m->name, msrc, m->model_type);
  printf ("  %" G_GUINT64_FORMAT " layers, hidden %" G_GUINT64_FORMAT ", ffn %" G_GUINT64_FORMAT
          " (%s), %" G_GUINT64_FORMAT " heads / %" G_GUINT64_FORMAT " KV heads, head dim %"
          G_GUINT64_FORMAT "\n", m->n_layers, m->hidden, m->ffn_hidden, mlp, m->n_heads,
          m->n_kv_heads, m->head_dim);
  printf ("  vocab %" G_GUINT64_FORMAT ", context %" G_GUINT64_FORMAT ", %s, %s positions, %s "
          "embeddings\n\n", m->vocab, m->max_positions, norm, pos,
          m->tied_embeddings ? "tied" : "untied");
  if (model_spec_is_moe (m))
    printf ("  mixture of experts: %" G_GUINT64_FORMAT " routed experts of ffn %" G_GUINT64_FORMAT
            ", top-%" G_GUINT64_FORMAT " (%s router), shared ffn %" G_GUINT64_FORMAT ", %"
            G_GUINT64_FORMAT " MoE and %" G_GUINT64_FORMAT " dense layers\n", m->n_experts,
            m->moe_ffn, m->moe_top_k,
            m->router_score == MODEL_ROUTER_SIGMOID ? "sigmoid" : "softmax",
            m->shared_expert_ffn, p.n_moe_layers, p.n_dense_layers);
  if (model_spec_is_mla (m))
    printf ("  latent attention: q_lora %" G_GUINT64_FORMAT ", kv_lora %" G_GUINT64_FORMAT
            ", head dims nope %" G_GUINT64_FORMAT " + rope %" G_GUINT64_FORMAT ", v %"
            G_GUINT64_FORMAT "\n", m->q_lora_rank, m->kv_lora_rank, m->qk_nope_head_dim,
            m->qk_rope_head_dim, m->v_head_dim);
  if (m->n_sliding_layers > 0)
    printf ("  sliding window: %" G_GUINT64_FORMAT " tokens on %" G_GUINT64_FORMAT " of %"
            G_GUINT64_FORMAT " layers (counted in the attention FLOPs)\n", m->sliding_window,
            m->n_sliding_layers, m->n_layers);
  if (m->n_chunked_layers > 0)
    printf ("  chunked attention: chunks of %" G_GUINT64_FORMAT " tokens on %" G_GUINT64_FORMAT
            " of %" G_GUINT64_FORMAT " layers (counted in the attention FLOPs)\n",
            m->attention_chunk, m->n_chunked_layers, m->n_layers);
  if (model_spec_is_gdn (m))
    printf ("  Gated DeltaNet hybrid: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " layers "
            "linear attention (full attention every %" G_GUINT64_FORMAT "th, gated, rotary %"
            G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT "); %" G_GUINT64_FORMAT " key / %"
            G_GUINT64_FORMAT " value heads of %" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT
            ", conv %" G_GUINT64_FORMAT ", chunk %" G_GUINT64_FORMAT "\n",
            model_spec_n_linear_layers (m), m->n_layers, m->full_attn_interval,
            model_spec_rotary_dim (m), m->head_dim, m->gdn_k_heads, m->gdn_v_heads,
            m->gdn_k_dim, m->gdn_v_dim, m->gdn_conv, MODEL_GDN_CHUNK);
  if (model_spec_is_mamba (m))
    printf ("  Mamba-2 hybrid: %" G_GUINT64_FORMAT " Mamba, %" G_GUINT64_FORMAT " attention and %"
            G_GUINT64_FORMAT " MLP layers (%s); %" G_GUINT64_FORMAT " heads of %"
            G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT " groups, state %" G_GUINT64_FORMAT
            ", conv %" G_GUINT64_FORMAT ", chunk %" G_GUINT64_FORMAT "\n",
            model_spec_n_layers_of_kind (m, 'M'), model_spec_n_layers_of_kind (m, '*'),
            model_spec_n_layers_of_kind (m, '-'), m->layer_pattern, m->mamba_heads,
            m->mamba_head_dim, m->mamba_groups, m->mamba_state, m->mamba_conv, m->mamba_chunk);
  if (model_spec_is_moe (m) || model_spec_is_mla (m) || m->n_sliding_layers > 0
      || m->n_chunked_layers > 0 || model_spec_is_gdn (m) || model_spec_is_mamba (m))
    printf ("\n");
  printf ("parameters\n");
  printf ("  %-16s %20s\n", "total", cli_fmt_count (p.total));
  if (model_spec_is_moe (m))
    printf ("  %-16s %20s  (per token: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
            " routed experts)\n", "active", cli_fmt_count (p.active), m->moe_top_k,
            m->n_experts);
  printf ("  %-16s %20s\n", "embedding", cli_fmt_count (p.embedding));
  printf ("  %-16s %20s\n", "non-embedding", cli_fmt_count (p.non_embedding));
  if (p.n_dense_layers > 0)
    printf ("  %-16s %20s  (attention %s, mlp %s, norms %s)\n", "per layer",
            cli_fmt_count (p.per_layer), cli_fmt_count (p.attention_per_layer),
            cli_fmt_count (p.mlp_per_layer), cli_fmt_count (p.norms_per_layer));
  if (p.n_moe_layers > 0)
    {
      printf ("  %-16s %20s  (attention %s, router %s, experts %s, shared %s, norms %s)\n",
              "per MoE layer", cli_fmt_count (p.per_moe_layer),
              cli_fmt_count (p.attention_per_layer), cli_fmt_count (p.router_per_layer),
              cli_fmt_count (p.experts_per_layer), cli_fmt_count (p.shared_per_layer),
              cli_fmt_count (p.norms_per_layer));
      printf ("  %-16s %20s\n", "one expert", cli_fmt_count (p.expert));
    }
  if (model_spec_is_gdn (m))
    printf ("  %-16s %20s  (in place of the attention in %" G_GUINT64_FORMAT " layers)\n",
            "GDN mixer", cli_fmt_count (p.linear_attention_per_layer), p.n_linear_layers);
  if (m->mtp_layers > 0)
    printf ("  %-16s %20s  (%" G_GUINT64_FORMAT " multi-token prediction module%s, apart from "
            "the total; %s active)\n", "MTP", cli_fmt_count (p.mtp), m->mtp_layers,
            m->mtp_layers == 1 ? "" : "s", cli_fmt_count (p.mtp_active));
  printf ("\n");

  printf ("layer ops for one sequence of %d tokens (whole model, before any split)\n", seq);
  /* aligned from the cells: names like attn_residual or a grouped GEMM's shape used to run
   * into the next column */
  g_autoptr (CliTable) t = cli_table_new ();
  cli_table_add_column (t, "part", CLI_ALIGN_LEFT);
  cli_table_add_column (t, "op", CLI_ALIGN_LEFT);
  cli_table_add_column (t, "kind", CLI_ALIGN_LEFT);
  cli_table_add_column (t, "shape", CLI_ALIGN_LEFT);
  cli_table_add_column (t, "fwd GFLOP", CLI_ALIGN_RIGHT);
  cli_table_add_column (t, "params", CLI_ALIGN_RIGHT);
  for (guint i = 0; i < ops->len; i++)
    {
      const ModelOp *op = &g_array_index (ops, ModelOp, i);
      char shape[64];
      if (op->kind == MODEL_OP_GEMM)
        g_snprintf (shape, sizeof shape, "[%" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT "] x [%"
                    G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT "]", op->m, op->k, op->k, op->n);
      else if (op->kind == MODEL_OP_GROUPED_GEMM)
        g_snprintf (shape, sizeof shape, "%" G_GUINT64_FORMAT " x [%" G_GUINT64_FORMAT " x %"
                    G_GUINT64_FORMAT "] x [%" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT "]",
                    op->groups, op->m, op->k, op->k, op->n);
      else if (op->kind == MODEL_OP_ATTENTION || op->kind == MODEL_OP_GDN)
        {
          char dv[24] = "";
          if (op->head_dim_v != 0 && op->head_dim_v != op->head_dim)
            g_snprintf (dv, sizeof dv, "/%" G_GUINT64_FORMAT, op->head_dim_v);
          g_snprintf (shape, sizeof shape, "b%" G_GUINT64_FORMAT " h%" G_GUINT64_FORMAT "/%"
                      G_GUINT64_FORMAT " s%" G_GUINT64_FORMAT " d%" G_GUINT64_FORMAT "%s%s",
                      op->b, op->heads, op->kv_heads, op->s_q, op->head_dim, dv,
                      op->causal ? " causal" : "");
        }
      else
        g_snprintf (shape, sizeof shape, "%s elements", cli_fmt_count (op->elements));
      cli_table_add_row (t);
      cli_table_cell (t, "%s", op_part_name (op->part));
      cli_table_cell (t, "%s", op->name);
      cli_table_cell (t, "%s", op_kind_name (op->kind));
      cli_table_cell (t, "%s", shape);
      cli_table_cell (t, "%.2f", op->fwd_flops / 1e9);
      cli_table_cell (t, "%s", cli_fmt_count (op->weight_params));
    }
  cli_table_print (t, stdout, "  ");
  printf ("\nFLOPs per token at seq %d (forward + backward)\n", seq);
  for (int c = 0; c < MODEL_FLOPS_N_CONVENTIONS; c++)
    if (model_flop_convention_refusal (m, c) != NULL)
      printf ("  %-12s %10s         refused: %s\n", model_flop_convention_name (c), "-",
              model_flop_convention_refusal (m, c));
    else
      printf ("  %-12s %10.2f GFLOP   %s\n", model_flop_convention_name (c),
              model_spec_flops_per_token (m, (guint64) seq, c) / 1e9,
              model_flop_convention_formula_for (m, c));
  printf ("  %-12s %10.2f GFLOP   executed: causal flash attention, no recompute (HFU "
          "adds the backward's score recompute)\n",
          "hardware", model_spec_hw_flops_per_token (m, (guint64) seq, 0) / 1e9);
  printf ("  %-12s %10.2f GFLOP   executed with full recompute\n", "hw+recomp",
          model_spec_hw_flops_per_token (m, (guint64) seq, 1) / 1e9);
  if (m->mtp_layers > 0)
    printf ("  %-12s %10.2f GFLOP   the multi-token-prediction module%s when trained "
            "(mcore form; not in the lines above)\n", "+mtp",
            model_spec_mtp_flops_per_token (m, (guint64) seq, FALSE) / 1e9,
            m->mtp_layers == 1 ? "" : "s");
  return CLI_EXIT_OK;
}

/* `tandem show conventions`: what each FLOP convention counts, and where it comes from;
 * the derivation behind the MFU line of predict. */
static int
show_conventions (gboolean json)
{
  if (json)
    {
      g_autoptr (JsonBuilder) b = json_builder_new ();
      json_builder_begin_array (b);
      for (int c = 0; c < MODEL_FLOPS_N_CONVENTIONS; c++)
        {
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "name");
          json_builder_add_string_value (b, model_flop_convention_name (c));
          json_builder_set_member_name (b, "formula");
          json_builder_add_string_value (b, model_flop_convention_formula (c));
          json_builder_set_member_name (b, "attention");
          json_builder_add_string_value (b, model_flop_convention_attention (c));
          json_builder_set_member_name (b, "source");
          json_builder_add_string_value (b, model_flop_convention_source (c));
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      cli_print_json (b);
      return CLI_EXIT_OK;
    }
  printf ("FLOP conventions (MFU = model FLOPs per step / (step time x GPUs x peak)):\n");
  for (int c = 0; c < MODEL_FLOPS_N_CONVENTIONS; c++)
    printf ("\n  %s\n    formula:   %s\n    attention: %s\n    source:    %s\n",
            model_flop_convention_name (c), model_flop_convention_formula (c),
            model_flop_convention_attention (c), model_flop_convention_source (c));
  printf ("\n  HFU (no convention): the FLOPs the GPUs execute, causal attention as FlashAttention "
          "runs it,\n    recompute included, / (step time x GPUs x peak). It is below a "
          "non-causal MFU when\n    the skipped half of the s x s attention outweighs the "
          "recomputed forward work.\n"
          "  B batch (sequences), s sequence length, L layers, h hidden, V vocabulary, H query "
          "heads,\n  G KV heads, d_head head size, q = H*d_head, ffn MLP inner size, N "
          "parameters.\n");
  return CLI_EXIT_OK;
}

/* A "sources" table (field -> text) in key order: a JSON object, or "  key: text" lines. */
static GList *
sorted_keys (GHashTable *sources)
{
  return sources != NULL ? g_list_sort (g_hash_table_get_keys (sources),
                                        (GCompareFunc) g_strcmp0) : NULL;
}

static void
sources_json (JsonBuilder *b, GHashTable *sources)
{
  json_builder_set_member_name (b, "sources");
  json_builder_begin_object (b);
  g_autoptr (GList) keys = sorted_keys (sources);
  for (GList *l = keys; l != NULL; l = l->next)
    {
      json_builder_set_member_name (b, l->data);
      json_builder_add_string_value (b, g_hash_table_lookup (sources, l->data));
    }
  json_builder_end_object (b);
}

static void
sources_print (GHashTable *sources)
{
  g_autoptr (GList) keys = sorted_keys (sources);
  for (GList *l = keys; l != NULL; l = l->next)
    printf ("  %s: %s\n", (const char *) l->data,
            (const char *) g_hash_table_lookup (sources, l->data));
}

static int
show_cluster (const char *name, gboolean json)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (TopoCluster) c = topo_cluster_lookup (name, &error);
  if (c == NULL)
    {
      g_autofree char *text = cli_lookup_error_text (error, name);
      return cli_fail (cli_status_for_error (error), "%s", text);
    }
  TopoAggregate agg;
  topo_cluster_aggregate (c, &agg);
  const TopoDevice *d = &c->device;

  if (json)
    {
      g_autoptr (JsonBuilder) b = json_builder_new ();
      json_builder_begin_object (b);
#define I(k, v) G_STMT_START { json_builder_set_member_name (b, k); \
      json_builder_add_int_value (b, (gint64) (v)); } G_STMT_END
#define D(k, v) G_STMT_START { json_builder_set_member_name (b, k); \
      json_builder_add_double_value (b, (double) (v)); } G_STMT_END
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, c->name);
      json_builder_set_member_name (b, "description");
      json_builder_add_string_value (b, c->description ? c->description : "");
      I ("gpus", agg.gpus);
      I ("hbm_bytes", agg.hbm_bytes);
      I ("fp32_cores", agg.fp32_cores);
      I ("tensor_cores", agg.tensor_cores);
      json_builder_set_member_name (b, "peak_flops");
      json_builder_begin_object (b);
      for (int t = 0; t < TOPO_DTYPE_N; t++)
        if (agg.peak_flops[t] > 0)
          D (topo_dtype_name (t), agg.peak_flops[t]);
      json_builder_end_object (b);
      json_builder_set_member_name (b, "device");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, d->name);
      if (d->part != NULL)
        {
          json_builder_set_member_name (b, "part");
          json_builder_add_string_value (b, d->part);
        }
      json_builder_set_member_name (b, "peak_flops");
      json_builder_begin_object (b);
      for (int t = 0; t < TOPO_DTYPE_N; t++)
        if (d->peak_flops[t] > 0)
          D (topo_dtype_name (t), d->peak_flops[t]);
      json_builder_end_object (b);
      I ("hbm_bytes", d->hbm_bytes);
      D ("hbm_Bps", d->hbm_Bps);
      I ("sms", d->sms);
      I ("fp32_cores_per_sm", d->fp32_cores_per_sm);
      I ("tensor_cores_per_sm", d->tensor_cores_per_sm);
      D ("clock_hz", d->clock_hz);
      D ("exp_per_clk_per_sm", d->exp_per_clk_per_sm);
      D ("gemm_efficiency", d->gemm_efficiency);
      D ("power_cap_clock_ratio", d->power_cap_clock_ratio);
      D ("sustained_matmul_ratio", d->sustained_matmul_ratio);
      D ("perf_sigma", d->perf_sigma);
      json_builder_set_member_name (b, "fp8_any_layout");
      json_builder_add_boolean_value (b, d->fp8_any_layout);
      json_builder_set_member_name (b, "mxfp8");
      json_builder_add_boolean_value (b, d->mxfp8);
      D ("mxfp8_gemm_ratio", d->mxfp8_gemm_ratio);
      I ("nics_per_device", c->nics_per_device);
      D ("nic_Bps", c->nic_Bps);
      /* the SMs communication kernels hold beside compute (sim/cost.c: sources) */
      SimCostOptions co;
      sim_cost_options_init (&co, c);
      json_builder_set_member_name (b, "comm_kernel_sms");
      json_builder_begin_object (b);
      D ("nccl_nvlink", co.nccl_ctas_nvlink);
      D ("nccl_nvls", co.nccl_ctas_nvls);
      D ("nccl_net", co.nccl_ctas_net);
      D ("nccl_net_1ppn", co.nccl_ctas_net_1ppn);
      D ("nccl_p2p_nvlink", co.nccl_p2p_ctas_nvlink);
      D ("nccl_p2p_net", co.nccl_p2p_ctas_net);
      D ("deepep", co.ep_comm_sms);
      json_builder_end_object (b);
      sources_json (b, d->sources);
      json_builder_end_object (b);
      sources_json (b, c->sources);
      json_builder_set_member_name (b, "levels");
      json_builder_begin_array (b);
      for (guint l = 0; l < c->n_levels; l++)
        {
          const TopoLevel *lv = &c->levels[l];
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "name");
          json_builder_add_string_value (b, lv->name);
          I ("count", lv->count);
          I ("devices", topo_cluster_level_size (c, l));
          D ("bw_Bps", lv->bw_Bps);
          D ("busbw_Bps", lv->busbw_Bps);
          D ("a2a_busbw_Bps", lv->a2a_busbw_Bps);
          D ("latency_s", lv->latency_s);
          D ("oversubscription", lv->oversubscription);
          json_builder_set_member_name (b, "source");
          json_builder_add_string_value (b, lv->source ? lv->source : "");
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
#undef I
#undef D
      json_builder_end_object (b);
      cli_print_json (b);
      return CLI_EXIT_OK;
    }

  g_autofree char *csrc = cli_printable (c->source, NULL);
  printf ("cluster %s  (%s)\n", c->name, csrc);
  if (c->description)
    printf ("  %s\n", c->description);
  /* a device without BF16 (V100) shows its FP16 rate */
  const gboolean no_bf16 = !(d->peak_flops[TOPO_DTYPE_BF16] > 0);
  /* "sms" and the NICs are optional in a cluster file (topology/cluster-load.c): 0 is
   * not given, printed as such rather than as a device of 0 SMs */
  g_autofree char *sms = d->sms > 0 ? g_strdup_printf ("%u SM%s", d->sms, d->sms == 1 ? "" : "s")
                                    : g_strdup ("SMs not given");
  g_autofree char *nics = c->nics_per_device > 0 && c->nic_Bps > 0
                          ? g_strdup_printf ("%d x %s NIC", c->nics_per_device,
                                             cli_fmt_si (c->nic_Bps * 8, "b/s"))
                          : g_strdup ("no scale-out NIC given");
  g_autofree char *part = d->part != NULL ? g_strdup_printf (" (part %s)", d->part)
                                           : g_strdup ("");
  printf ("\ndevice %s%s: %s %s dense, %s HBM at %s, %s, %s\n", d->name, part,
          cli_fmt_si (d->peak_flops[no_bf16 ? TOPO_DTYPE_FP16 : TOPO_DTYPE_BF16], "FLOP/s"),
          no_bf16 ? "FP16 (no BF16)" : "BF16", cli_fmt_bytes (d->hbm_bytes),
          cli_fmt_si (d->hbm_Bps, "B/s"), sms, nics);
  SimCostOptions co;
  sim_cost_options_init (&co, c);
  if (co.nccl_ctas_nvlink > 0)
    printf ("comm kernels hold SMs beside compute (NCCL CTAs): %g in a server's ring, %g "
            "NVLS, %g across servers (%g with one GPU a server), %g / %g all-to-all in / "
            "across servers, %g DeepEP\n", co.nccl_ctas_nvlink, co.nccl_ctas_nvls,
            co.nccl_ctas_net, co.nccl_ctas_net_1ppn, co.nccl_p2p_ctas_nvlink,
            co.nccl_p2p_ctas_net, co.ep_comm_sms);
  else
    printf ("compute beside comm kernels: +%g%% (comm_compute_slowdown; no SM counts "
            "sourced for this device)\n", co.comm_compute_slowdown * 100);
  /* cli-table: a level name from a user's cluster file may be of any length */
  g_autoptr (CliTable) lt = cli_table_new ();
  cli_table_add_column (lt, "level", CLI_ALIGN_LEFT);
  cli_table_add_column (lt, "count", CLI_ALIGN_RIGHT);
  cli_table_add_column (lt, "devices", CLI_ALIGN_RIGHT);
  cli_table_add_column (lt, "bw/dir/device", CLI_ALIGN_RIGHT);
  cli_table_add_column (lt, "busbw", CLI_ALIGN_RIGHT);
  cli_table_add_column (lt, "latency", CLI_ALIGN_RIGHT);
  cli_table_add_column (lt, "oversub", CLI_ALIGN_RIGHT);
  for (guint l = 0; l < c->n_levels; l++)
    {
      const TopoLevel *lv = &c->levels[l];
      cli_table_add_row (lt);
      cli_table_cell (lt, "%s", lv->name);
      cli_table_cell (lt, "%" G_GUINT64_FORMAT, lv->count);
      cli_table_cell (lt, "%s", cli_fmt_count (topo_cluster_level_size (c, l)));
      cli_table_cell (lt, "%s", cli_fmt_si (lv->bw_Bps, "B/s"));
      if (lv->a2a_busbw_Bps > 0)   /* (cli_fmt_si returns a slot of a ring: two at once) */
        cli_table_cell (lt, "%s (all-to-all %s)",
                        lv->busbw_Bps > 0 ? cli_fmt_si (lv->busbw_Bps, "B/s") : "-",
                        cli_fmt_si (lv->a2a_busbw_Bps, "B/s"));
      else
        cli_table_cell (lt, "%s", lv->busbw_Bps > 0 ? cli_fmt_si (lv->busbw_Bps, "B/s") : "-");
      cli_table_cell (lt, "%.2f us", lv->latency_s * 1e6);
      cli_table_cell (lt, "1:%g", lv->oversubscription);
    }
  printf ("\n");
  cli_table_print (lt, stdout, "  ");
  const TopoProfile *pr = c->profile;
  if (pr != NULL)
    {
      printf ("\nmeasured profile (%s): %u GEMM shapes, %u collective rows",
              pr->source ? pr->source : "no source", pr->gemm ? pr->gemm->len : 0,
              pr->colls ? pr->colls->len : 0);
      if (pr->triad_Bps > 0)
        printf (", memory triad %s per rank", cli_fmt_si (pr->triad_Bps, "B/s"));
      printf ("\n");
      for (guint i = 0; pr->gemm && i < pr->gemm->len; i++)
        {
          const TopoProfileGemm *g = &g_array_index (pr->gemm, TopoProfileGemm, i);
          printf ("  gemm %6" G_GUINT64_FORMAT " x %6" G_GUINT64_FORMAT " x %6" G_GUINT64_FORMAT
                  " %-5s %s\n", g->m, g->n, g->k, topo_dtype_name (g->dtype),
                  cli_fmt_si (g->flops_per_s, "FLOP/s"));
        }
      if (pr->colls && pr->colls->len > 0)
        {
          g_autoptr (CliTable) ct = cli_table_new ();
          static const char *const heads[] = { "collective", "ranks", "size (B)", "time (us)",
                                               "algbw GB/s", "busbw GB/s" };
          for (guint k = 0; k < G_N_ELEMENTS (heads); k++)
            cli_table_add_column (ct, heads[k], k == 0 ? CLI_ALIGN_LEFT : CLI_ALIGN_RIGHT);
          for (guint i = 0; i < pr->colls->len; i++)
            {
              const TopoProfileColl *r = &g_array_index (pr->colls, TopoProfileColl, i);
              cli_table_add_row (ct);
              cli_table_cell (ct, "%s", r->coll);
              cli_table_cell (ct, "%u", r->ranks);
              cli_table_cell (ct, "%.0f", r->bytes);
              cli_table_cell (ct, "%.2f", r->time_s * 1e6);
              cli_table_cell (ct, "%.3f", r->algbw_Bps / 1e9);
              cli_table_cell (ct, "%.3f", r->busbw_Bps / 1e9);
            }
          cli_table_print (ct, stdout, "  ");
        }
    }
  printf ("\ntotals\n");
  printf ("  %-22s %s\n", "GPUs", cli_fmt_count (agg.gpus));
  printf ("  %-22s %s (%s bytes)\n", "HBM", cli_fmt_bytes ((double) agg.hbm_bytes),
          cli_fmt_count (agg.hbm_bytes));
  if (agg.fp32_cores)
    printf ("  %-22s %s\n", "FP32 cores", cli_fmt_count (agg.fp32_cores));
  if (agg.tensor_cores)
    printf ("  %-22s %s\n", "tensor cores", cli_fmt_count (agg.tensor_cores));
  for (int t = 0; t < TOPO_DTYPE_N; t++)
    if (agg.peak_flops[t] > 0)
      {
        char label[32];
        g_snprintf (label, sizeof label, "peak %s (dense)", topo_dtype_name (t));
        printf ("  %-22s %s\n", label, cli_fmt_si (agg.peak_flops[t], "FLOP/s"));
      }
  /* each figure with its source, as show framework prints a stack's */
  printf ("\nsources (where each figure of the device and the network comes from)\n");
  sources_print (d->sources);
  sources_print (c->sources);
  for (guint l = 0; l < c->n_levels; l++)
    if (c->levels[l].source != NULL && *c->levels[l].source != '\0')
      printf ("  level %s: %s\n", c->levels[l].name, c->levels[l].source);
  return CLI_EXIT_OK;
}

/* A stack prints as its JSON (the same fields as a stack file, sources included) or as
 * one line per field. */
static int
show_framework (const char *name, gboolean json)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FwStack) s = cli_stack_lookup (name, &error);
  if (s == NULL)
    {
      g_autofree char *text = cli_lookup_error_text (error, name);
      return cli_fail (CLI_EXIT_USAGE, "%s", text);
    }
  if (json)
    {
      g_autoptr (JsonBuilder) b = json_builder_new ();
      fw_stack_to_json (s, b);
      cli_print_json (b);
      return CLI_EXIT_OK;
    }
  printf ("framework %s: %s\n", s->name, s->description ? s->description : "");
#define ROW(k, v) printf ("  %-28s %-10s %s\n", k, v, \
                          (const char *) (g_hash_table_lookup (s->sources, k) \
                                          ? g_hash_table_lookup (s->sources, k) : ""))
  ROW ("attention", fw_attn_kernel_name (s->attention));
  ROW ("fusion", fw_fusion_name (s->fusion));
  ROW ("compile", fw_avail_name (s->compile));
  g_autofree char *us = g_strdup_printf ("%g us", s->kernel_overhead_s * 1e6);
  ROW ("kernel_overhead_us", us);
  ROW ("tp_comm_overlap", fw_avail_name (s->tp_comm_overlap));
  ROW ("async_tp", fw_avail_name (s->async_tp));
  g_autofree char *tpsms = s->tp_overlap_ag_sms >= 0 || s->tp_overlap_rs_sms >= 0
                             ? g_strdup_printf ("AG %g RS %g", MAX (s->tp_overlap_ag_sms, 0),
                                                MAX (s->tp_overlap_rs_sms, 0))
                             : g_strdup ("nccl");
  ROW ("tp_overlap_sms", tpsms);
  ROW ("tp_grad_reduce_scatter", s->tp_grad_rs_after_block ? "after_block" : "overlapped");
  ROW ("tp_seq_dim_copies", s->tp_seq_copies ? "yes" : "no");
  ROW ("pp_schedule_runtime", s->pp_lockstep ? "lockstep" : "dataflow");
  ROW ("pp_p2p_sync", s->pp_p2p_sync == FW_P2P_SYNC_EVERY ? "every_exchange"
                      : s->pp_p2p_sync ? "device" : "none");
  ROW ("pp_scatter_gather", s->pp_scatter_gather ? "on" : "off");
  ROW ("pp_stage_input", s->pp_free_stage_input ? "freed" : "kept");
  ROW ("pp_stage_output", s->pp_keep_stage_output ? "kept" : "freed");
  ROW ("dp_overlap", s->dp_overlap_always ? "always" : "optional");
  ROW ("swiglu_saves", s->swiglu_eager_saves ? "eager" : "fused");
  ROW ("grad_reduce_dtype", s->grad_reduce_bf16 ? "bf16" : "fp32");
  ROW ("cross_entropy", s->loss_eager ? "eager" : "fused");
  ROW ("tflops_convention", s->tflops_convention ? s->tflops_convention : "none");
  ROW ("remat", s->remat_named ? "named" : "modules");
  g_autofree char *opt_b = s->optimizer_bytes_per_param > 0
                             ? g_strdup_printf ("%g B", s->optimizer_bytes_per_param)
                             : g_strdup ("fused");
  ROW ("optimizer_bytes_per_param", opt_b);
  ROW ("moe_shared_expert_overlap", fw_avail_name (s->moe_shared_expert_overlap));
  ROW ("moe.dispatch_host_sync", s->moe_dispatch_host_sync ? "yes" : "no");
  ROW ("moe.grouped_gemm_launches", s->moe_grouped_gemm_per_expert ? "per_expert" : "one");
  ROW ("moe.expert_eager_op", s->moe_expert_eager_op ? "yes" : "no");
  ROW ("moe.a2a_overlap", fw_avail_name (s->moe_a2a_overlap));
  /* host ops per MoE layer and pass, then per local expert (FwMoeHostOps) */
  const FwMoeHostOps *h = &s->moe_host_ops;
  g_autofree char *hops = g_strdup_printf ("layer %g(%g after sync)/%g,expert %g+%g/%g+%g,"
                                           "fp8 %g+%g,te %g+%g,graphed router %g+%g",
                                           h->layer_fwd, h->layer_fwd_after_sync, h->layer_bwd,
                                           h->expert_launch_fwd,
                                           h->expert_eager_fwd, h->expert_launch_bwd,
                                           h->expert_eager_bwd, h->expert_fp8_launch,
                                           h->expert_fp8_eager_fwd, h->te_linear_fwd,
                                           h->te_grouped_fwd, h->router_fwd,
                                           h->preprocess_fwd_graphed);
  ROW ("moe.host_ops", hops);
  g_autofree char *ahead = s->fsdp_prefetch_params > 0
                            ? g_strdup_printf ("%g", s->fsdp_prefetch_params)
                            : g_strdup ("layer");
  g_autofree char *reuse = s->fsdp_max_reuse_params > 0
                             ? g_strdup_printf ("%g", s->fsdp_max_reuse_params)
                             : g_strdup ("kept");
  g_autofree char *fsdp = g_strdup_printf ("%s%s%s,%s-gather%s,prefetch %s%s,reuse %s",
                                           s->fsdp_reshard_after_forward ? "reshard" : "keep",
                                           s->fsdp_reshard_under_pp ? "" : ",keep-under-pp",
                                           s->hsdp ? ",hsdp" : "",
                                           s->fsdp_gather_per_tensor ? "per-tensor" : "flat",
                                           s->fsdp_rank_copies ? ",rank-copies" : "",
                                           ahead,
                                           s->fsdp_gather_before_reduce ? " before reduce" : "",
                                           reuse);
  ROW ("fsdp", fsdp);
  ROW ("fsdp.zero2_grad_sync", s->zero2_grad_per_microbatch ? "per_microbatch" : "per_step");
  ROW ("fsdp.pp_grad_reduce", s->fsdp_pp_grad_after_stage ? "after_stage" : "per_bucket");
  ROW ("fsdp.grad_accumulation", s->fsdp_grad_accum_upcast ? "upcast_add" : "fused");
  ROW ("fsdp.copy_in_out", s->fsdp_copy_in_out ? "yes" : "no");
  ROW ("fsdp.reduce_passes", s->fsdp_reduce_passes ? "yes" : "no");
  ROW ("fsdp.fp32_shards", s->fsdp_fp32_shards ? "yes" : "no");
  ROW ("cp.merge", s->cp_ring_merge ? "fp32_per_step" : "none");
  ROW ("cp.kv_heads", s->cp_kv_repeated ? "repeated" : "grouped");
  ROW ("cp.a2a_kv_heads", s->cp_a2a_kv_divide ? "divide" : "replicate");
  /* the collectives PAT may run, all of them ("all_gather, reduce_scatter") */
  g_autoptr (GString) pat = g_string_new (NULL);
  for (int i = 0; fw_nccl_pat_names[i] != NULL; i++)
    if ((s->nccl_pat >> i) & 1)
      g_string_append_printf (pat, "%s%s", pat->len > 0 ? ", " : "", fw_nccl_pat_names[i]);
  if (pat->len == 0)
    g_string_append (pat, "none");
  ROW ("nccl.pat", pat->str);
  g_autofree char *wcast = s->fp8_weight_cast_bytes > 0
                            ? g_strdup_printf (",weight-cast%gB", s->fp8_weight_cast_bytes)
                            : g_strdup ("");
  g_autofree char *fp8 = g_strdup_printf ("%s/%s/cast%g,compiled%g%s%s%s%s%s%s%s%s%s%s%s%s",
                                          fw_fp8_ops_name (s->fp8_ops),
                                          fw_scaling_name (s->fp8_scaling), s->fp8_cast_passes,
                                          s->fp8_cast_passes_compiled,
                                          s->mxfp8 ? ",mxfp8" : "", s->nvfp4 ? ",nvfp4" : "",
                                          s->blockwise ? ",blockwise" : "",
                                          s->rowwise ? ",rowwise" : "",
                                          s->fp8_kernel_rate ? ",kernel-rate" : "",
                                          s->fp8_cast_per_operand ? ",per-operand" : "",
                                          wcast, s->fp8_output_bf16 ? ",output-bf16" : "",
                                          s->fp8_moe_act_input ? ",moe-act-input-fp8" : "",
                                          s->fp8_attn_out_e5m6 ? ",attn-out-e5m6" : "",
                                          s->fp8_moe_dispatch ? ",moe-dispatch-fp8" : "",
                                          s->fp8_param_gather ? ",fp8-weights" : "");
  ROW ("fp8", fp8);
  if (s->fp8_param_gather)
    ROW ("fp8.param_gather", "fp8");
  g_autofree char *chunk = s->default_pp_chunk_slots > 0
                           ? g_strdup_printf (",%d-layer-chunks", s->default_pp_chunk_slots)
                           : g_strdup ("");
  g_autofree char *def = g_strdup_printf ("%s%s%s%s%s%s", fw_sharding_name (s->default_sharding),
                                          s->default_sequence_parallel ? ",sp" : "",
                                          s->default_overlap_grad_reduce ? ",grad-overlap" : "",
                                          s->default_overlap_param_gather ? ",param-overlap" : "",
                                          chunk, s->default_degrees_one ? ",tp1-pp1" : "");
  ROW ("defaults", def);
  /* the accumulation steps where the stack documents them, with their own source (the
   * global batch validate derives for a row that states neither it nor grad_accum) */
  if (s->default_grad_accum > 0)
    {
      g_autofree char *accum = g_strdup_printf ("%d", s->default_grad_accum);
      ROW ("defaults.grad_accum", accum);
    }
  {
    /* what a run of this stack may ask for (predict refuses the rest, search leaves it
     * out): "none" where the stack has no pipeline or context parallelism */
    static const char *const sched_names[] = { "GPipe", "1F1B", "Interleaved1F1B", "DualPipe",
                                               NULL };
    g_autofree char *sh = fw_offer_list_text (s->offers_sharding, fw_offer_sharding_names);
    g_autofree char *shp = s->offers_sharding_pp != s->offers_sharding
                           ? fw_offer_list_text (s->offers_sharding_pp, fw_offer_sharding_names)
                           : NULL;
    g_autofree char *sharding = shp ? g_strdup_printf ("%s (with pp > 1: %s)", sh, shp)
                                    : g_strdup (sh);
    g_autofree char *sched = fw_offer_list_text (s->offers_schedules, sched_names);
    g_autofree char *cpc = fw_offer_list_text (s->offers_cp_comm, fw_offer_cp_names);
    g_autofree char *orders = s->offers_rank_orders ? g_strjoinv (" or ", s->offers_rank_orders)
                                                    : g_strdup ("any");
    g_autofree char *offers = g_strdup_printf ("sharding %s; pipeline %s; cp %s; ep %s; "
                                               "rank order %s", sharding, sched, cpc,
                                               s->offers_ep ? "any" : "none", orders);
    ROW ("offers", offers);
  }
#undef ROW
  /* what predict takes from the stack and what its plan flags keep: the gradient dtype and
   * TP-comm overlap above are what validate fills a published row's unstated cells with,
   * while predict kept Megatron's fp32 reduction and no TP overlap under nemo, which this
   * page did not say */
  printf ("\n  predict and memory take from this stack its kernels (attention unless "
          "--attention-backend), fusion, overheads, FP8 recipe, rank order, what it refuses and "
          "its always-on overlaps; the plan's own choices (sharding, gradient dtype, TP-comm "
          "and DP overlap) keep Megatron's defaults unless flags set them, and search tries "
          "them within what the stack offers. validate fills a published row's unstated "
          "choices from the defaults above.\n");
  return CLI_EXIT_OK;
}

/* `show models|clusters|frameworks`: the presets of a kind, one a row, with what tells
 * them apart (the plural a user types first; `show model` without a name only named them
 * in an error line). */
static int
show_presets (const char *kind, gboolean json)
{
  const gboolean models = g_str_equal (kind, "models"), clusters = g_str_equal (kind, "clusters");
  g_auto (GStrv) names = models ? model_preset_names () : clusters ? topo_preset_names ()
                                                                  : fw_stack_preset_names ();
  g_autoptr (CliTable) t = cli_table_new ();
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_array (b);
  if (models)
    {
      cli_table_add_column (t, "model", CLI_ALIGN_LEFT);
      cli_table_add_column (t, "model_type", CLI_ALIGN_LEFT);
      cli_table_add_column (t, "layers", CLI_ALIGN_RIGHT);
      cli_table_add_column (t, "parameters", CLI_ALIGN_RIGHT);
      cli_table_add_column (t, "active", CLI_ALIGN_RIGHT);
    }
  else if (clusters)
    {
      cli_table_add_column (t, "cluster", CLI_ALIGN_LEFT);
      cli_table_add_column (t, "GPUs", CLI_ALIGN_RIGHT);
      cli_table_add_column (t, "device", CLI_ALIGN_LEFT);
      cli_table_add_column (t, "HBM", CLI_ALIGN_RIGHT);
    }
  else
    {
      cli_table_add_column (t, "framework", CLI_ALIGN_LEFT);
      cli_table_add_column (t, "description", CLI_ALIGN_LEFT);
    }
  for (char **n = names; *n != NULL; n++)
    {
      g_autoptr (GError) error = NULL;
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, *n);
      cli_table_add_row (t);
      cli_table_cell (t, "%s", *n);
      if (models)
        {
          g_autoptr (ModelSpec) m = model_spec_load_preset (*n, &error);
          if (m == NULL)
            return cli_fail (CLI_EXIT_FAILURE, "preset %s: %s", *n, error->message);
          ModelParams p;
          model_spec_params (m, &p);
          cli_table_cell (t, "%s", m->model_type);
          cli_table_cell (t, "%" G_GUINT64_FORMAT, m->n_layers);
          cli_table_cell (t, "%s", cli_fmt_count (p.total));
          cli_table_cell (t, "%s", p.active != p.total ? cli_fmt_count (p.active) : "-");
          json_builder_set_member_name (b, "model_type");
          json_builder_add_string_value (b, m->model_type);
          json_builder_set_member_name (b, "n_layers");
          json_builder_add_int_value (b, (gint64) m->n_layers);
          json_builder_set_member_name (b, "params");
          json_builder_add_int_value (b, (gint64) p.total);
          json_builder_set_member_name (b, "active_params");
          json_builder_add_int_value (b, (gint64) p.active);
        }
      else if (clusters)
        {
          g_autoptr (TopoCluster) c = topo_cluster_load_preset (*n, &error);
          if (c == NULL)
            return cli_fail (CLI_EXIT_FAILURE, "preset %s: %s", *n, error->message);
          cli_table_cell (t, "%s", cli_fmt_count (c->n_devices));
          cli_table_cell (t, "%s", c->device.name);
          cli_table_cell (t, "%s", cli_fmt_bytes ((double) c->device.hbm_bytes));
          json_builder_set_member_name (b, "gpus");
          json_builder_add_int_value (b, (gint64) c->n_devices);
          json_builder_set_member_name (b, "device");
          json_builder_add_string_value (b, c->device.name);
          json_builder_set_member_name (b, "hbm_bytes");
          json_builder_add_int_value (b, (gint64) c->device.hbm_bytes);
        }
      else
        {
          g_autoptr (FwStack) f = fw_stack_load_preset (*n, &error);
          if (f == NULL)
            return cli_fail (CLI_EXIT_FAILURE, "preset %s: %s", *n, error->message);
          cli_table_cell (t, "%s", f->description ? f->description : "-");
          json_builder_set_member_name (b, "description");
          json_builder_add_string_value (b, f->description);
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  if (json)
    {
      cli_print_json (b);
      return CLI_EXIT_OK;
    }
  cli_table_print (t, stdout, "");
  printf ("\n(tandem show %s NAME for one; --%s NAME takes a preset or a file)\n",
          models ? "model" : clusters ? "cluster" : "framework",
          models ? "model" : clusters ? "cluster" : "framework");
  return CLI_EXIT_OK;
}

int
cli_cmd_show (int argc, char **argv)
{
  gboolean json = FALSE;
  int seq = G_MININT;   /* not given: show_model's default; a given 0 is refused */
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Machine-readable output", NULL },
    { "seq-length", 0, 0, G_OPTION_ARG_INT, &seq, "Sequence length for FLOPs (model)", "S" },
    { "seq", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_INT, &seq, NULL, "S" },
    { NULL },
  };
  g_autoptr (GOptionContext) octx = g_option_context_new ("model|cluster|framework NAME|FILE | conventions | glossary [TERM]");
  g_option_context_set_summary (octx, "Show a model (parameters, layer shapes, FLOPs per "
                                "token), a cluster (levels, counts, aggregates) the FLOP conventions "
                                "behind MFU, or the glossary of the terms the outputs use.");
  g_option_context_add_main_entries (octx, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!cli_option_context_parse (octx, (const GOptionEntry *const[]) { entries, NULL }, &argc,
                                 &argv, &error))
    return cli_fail_options (octx, error, "tandem show");
  static const char *const kinds[] = { "model", "cluster", "framework", "conventions",
                                       "glossary", "models", "clusters", "frameworks", NULL };
  if (argc >= 2 && !g_strv_contains (kinds, argv[1]))
    {
      g_autofree char *near = cli_did_you_mean (argv[1], kinds);
      return cli_fail (CLI_EXIT_USAGE, "cannot show '%s'%s (hint: model, cluster, framework, "
                       "conventions or glossary; models, clusters or frameworks lists the "
                       "presets)", argv[1], near);
    }
  /* a word too many is named (conventions and the lists take none, the others one) */
  const char *what = argc >= 2 ? argv[1] : "";
  const gboolean listing = g_str_equal (what, "models") || g_str_equal (what, "clusters")
                           || g_str_equal (what, "frameworks");
  const int words = g_str_equal (what, "conventions") || listing ? 2 : 3;
  /* a plural with a name is the singular slipped: `show frameworks torchtitan` */
  if (listing && argc == 3)
    {
      g_autofree char *one = g_strndup (what, strlen (what) - 1);
      return cli_fail (CLI_EXIT_USAGE, "show %s lists the presets and takes no name (did you "
                       "mean '%s'?) (hint: tandem show %s %s)", what, one, one, argv[2]);
    }
  if (argc > words)
    return cli_fail (CLI_EXIT_USAGE, "show %s: unexpected argument '%s' (hint: tandem show %s%s; "
                     "quote a file name with spaces)", argv[1], argv[words], argv[1],
                     words == 2 ? "" : g_str_equal (argv[1], "glossary") ? " [TERM]"
                                                                          : " NAME|FILE");
  if (argc == 2 && g_str_equal (argv[1], "conventions"))
    return show_conventions (json);
  if (argc == 2 && listing)
    return show_presets (argv[1], json);
  if ((argc == 2 || argc == 3) && g_str_equal (argv[1], "glossary"))
    return cli_show_glossary (argc == 3 ? argv[2] : NULL, json);
  if (argc == 2 && (g_str_equal (argv[1], "model") || g_str_equal (argv[1], "cluster")
                    || g_str_equal (argv[1], "framework")))
    {
      /* the kind is known: name its presets, the list a user is looking for */
      g_auto (GStrv) names = g_str_equal (argv[1], "model") ? model_preset_names ()
                             : g_str_equal (argv[1], "cluster") ? topo_preset_names ()
                             : fw_stack_preset_names ();
      g_autofree char *list = g_strjoinv (", ", names);
      return cli_fail (CLI_EXIT_USAGE, "show %s needs a name or a file (hint: one of %s)",
                       argv[1], list);
    }
  if (argc != 3)
    return cli_fail (CLI_EXIT_USAGE, "show needs what and a name (hint: tandem show model "
                     "llama3-8b, tandem show cluster h100-24k)");
  if (seq != G_MININT && (seq < 1 || seq > PLAN_MAX_SEQ))
    return cli_fail (CLI_EXIT_USAGE, "--seq-length %d: must be in 1 .. %d tokens (the "
                     "sequence cap: 16M, far beyond any training context) (hint: "
                     "--seq-length 8192)", seq, PLAN_MAX_SEQ);
  if (g_str_equal (argv[1], "model"))
    return show_model (argv[2], seq == G_MININT ? 0 : seq, json);
  if (g_str_equal (argv[1], "cluster"))
    return show_cluster (argv[2], json);
  if (g_str_equal (argv[1], "framework"))
    return show_framework (argv[2], json);
  return cli_fail (CLI_EXIT_USAGE, "cannot show '%s' (hint: model, cluster, framework, "
                   "conventions or glossary)", argv[1]);
}
