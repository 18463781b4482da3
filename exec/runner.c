/* exec/runner.c - the runner's bootstrap: what it can execute, where this rank sits, its
 * groups and streams, and the stage's parameters laid out in the program's buckets.
 *
 * Parameters of the stage live in one flat array (and the gradients in another of the
 * same layout), in the order the program reduces them: per chunk from the last to the
 * first, the head, the layers from the last to the first, the embedding. The buckets are
 * read back from the program itself: its gradient reductions (one per bucket, in bucket
 * order, tagged with the bucket's chunk and first layer) cut that order into contiguous
 * ranges, so a reduction task reduces exactly its range. With ZeRO-1/2 a bucket is
 * padded to a multiple of the group and this rank owns one piece of it (reduce-scatter,
 * AdamW on the piece, all-gather); with ZeRO-3 every layer is such a piece, gathered
 * before each use (Rajbhandari et al. 2020, sections 5.1-5.3). */
#include "exec/runner-private.h"

#include <json-glib/json-glib.h>
#include <string.h>

void
exec_run_options_init (ExecRunOptions *o)
{
  memset (o, 0, sizeof *o);
  o->steps = 3;
  o->warmup = 1;
  o->seed = 1234;
  o->adamw = (ExecAdamW) { .lr = 3e-4f, .beta1 = 0.9f, .beta2 = 0.95f, .eps = 1e-8f,
                           .weight_decay = 0.1f };
}

static gboolean
unsupported (GError **error, const char *format, ...) G_GNUC_PRINTF (2, 3);
static gboolean
unsupported (GError **error, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_autofree char *msg = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID, "tandem run cannot execute this plan: %s",
               msg);
  return FALSE;
}

gboolean
exec_runner_supports (const ModelSpec *m, const Plan *p, GError **error)
{
  if (m->mlp != MODEL_MLP_SWIGLU || m->norm != MODEL_NORM_RMS || m->pos != MODEL_POS_ROTARY
      || m->attn_bias || m->mlp_bias || m->attn_qkv_bias || m->qk_norm)
    {
      /* name what differs, so a user sees why (Falcon-RW: GeLU, LayerNorm, ALiBi, biases),
       * and where to go: a llama-family model to run, predict to time this one */
      g_autoptr (GString) why = g_string_new (NULL);
      if (m->mlp != MODEL_MLP_SWIGLU)
        g_string_append (why, ", a non-SwiGLU MLP");
      if (m->norm != MODEL_NORM_RMS)
        g_string_append (why, ", LayerNorm");
      if (m->pos != MODEL_POS_ROTARY)
        g_string_append (why, m->pos == MODEL_POS_ALIBI ? ", ALiBi positions"
                                                         : ", non-rotary positions");
      if (m->attn_bias || m->mlp_bias || m->attn_qkv_bias)
        g_string_append (why, ", biases");
      if (m->qk_norm)
        g_string_append (why, ", q/k norms");
      return unsupported (error, "model '%s' is not llama-family (SwiGLU, RMSNorm, rotary, no "
                          "biases, no q/k norms), the only blocks the engine implements; it "
                          "has %s (hint: tandem predict times it; run executes a llama-family "
                          "model such as --model tiny-llama)", m->name, why->str + 2);
    }
  /* the rest of the llama-family block as the engine runs it: a model that differs in a
   * way the runner would not execute (a Gemma 2 config: GeGLU, four norms a block, a
   * sliding window on every other layer) was run as plain Llama and measured, its
   * --verify "ok" since it checks the engine against itself */
  {
    g_autoptr (GString) why = g_string_new (NULL);
    if (m->gelu_gate)
      g_string_append (why, ", a GeGLU MLP");
    if (m->glu_limit > 0)
      g_string_append (why, ", a clamped GLU activation");
    if (m->norms_per_block != 0 && m->norms_per_block != 2)
      g_string_append_printf (why, ", %" G_GUINT64_FORMAT " norms a block",
                              m->norms_per_block);
    if (m->parallel_block)
      g_string_append (why, ", parallel attention and MLP");
    if (m->embed_norm)
      g_string_append (why, ", an embedding norm");
    if (m->head_bias)
      g_string_append (why, ", an output-head bias");
    if (m->attn_sinks)
      g_string_append (why, ", attention sinks");
    /* a window or chunk no shorter than the sequence is full causal attention */
    if (m->sliding_window > 0 && m->n_sliding_layers > 0
        && m->sliding_window < (guint64) p->seq_length)
      g_string_append_printf (why, ", a %" G_GUINT64_FORMAT "-token sliding window shorter "
                              "than the sequence", m->sliding_window);
    if (m->attention_chunk > 0 && m->n_chunked_layers > 0
        && m->attention_chunk < (guint64) p->seq_length)
      g_string_append (why, ", chunked attention shorter than the sequence");
    if (m->attn_output_gate)
      g_string_append (why, ", a gated attention output");
    if (m->rotary_fraction > 0 && m->rotary_fraction < 1)
      g_string_append (why, ", partial rotary embeddings");
    if (m->full_attn_interval > 0 || m->layer_pattern != NULL)
      g_string_append (why, ", linear-attention or Mamba layers");
    if (m->kv_lora_rank > 0 || m->q_lora_rank > 0)
      g_string_append (why, ", latent attention (MLA)");
    if (why->len > 0)
      return unsupported (error, "model '%s' has %s, which the engine does not execute: its "
                          "blocks are llama's (SwiGLU, two RMSNorms, rotary, full causal "
                          "attention), and a run would measure that model instead (hint: "
                          "tandem predict times this one; run executes a llama-family model "
                          "such as --model tiny-llama)", m->name, why->str + 2);
  }
  if (p->tp_comm_overlap)
    return unsupported (error, "--tp-comm-overlap splits blocks into pieces whose TP "
                        "communication the runner does not overlap (hint: drop it)");
  if (p->cp > 1 && p->cp_comm == PLAN_CP_A2A)
    return unsupported (error, "Ulysses (a2a) context parallelism is not implemented (hint: "
                        "--cp-comm-type p2p or all_gather)");
  if (p->sharding == PLAN_SHARD_HSDP)
    return unsupported (error, "HSDP is not implemented (hint: --sharding zero3)");
  if (p->mtp_num_layers > 0)
    return unsupported (error, "--mtp-num-layers %d: multi-token-prediction modules are "
                        "predicted only, not executed (the runner holds no shifted-token "
                        "embedding, eh_proj or second loss) (hint: drop --mtp-num-layers)",
                        p->mtp_num_layers);
  if (p->schedule == PLAN_SCHED_DUALPIPE)
    return unsupported (error, "the DualPipe schedule is predicted only, not executed (two "
                        "stages a rank and the mirror ranks' gradient sum are not in the "
                        "runner) (hint: --schedule 1F1B)");
  PlanMoe pm;
  plan_moe (p, m, &pm);
  if (p->ep > 1 && pm.experts == 0)
    return unsupported (error, "expert parallelism needs a mixture-of-experts model");
  if (pm.experts > 0)
    {
      /* what runner-moe.c executes: routed SwiGLU experts behind a softmax router, EP by
       * all-to-all, on the dense side DP only */
      if (m->shared_expert_gate || m->router_bias
          || m->router_score != MODEL_ROUTER_SOFTMAX || m->kv_lora_rank > 0)
        return unsupported (error, "model '%s': the engine's MoE block has a softmax router, "
                            "routed experts and ungated shared experts only (no gated shared "
                            "expert, sigmoid scores, routing bias or latent attention)",
                            m->name);
      if (p->cp > 1 || p->vpp > 1 || p->etp > 1)
        return unsupported (error, "mixture-of-experts runs take data, tensor (with expert "
                            "tensor parallelism 1), expert and pipeline parallelism only "
                            "(hint: --cp 1, no --vpp, --expert-tensor-parallel-size 1, and "
                            "--ep dividing the ranks of a stage)");
      if (p->tp > 1 && !p->sequence_parallel)
        return unsupported (error, "mixture-of-experts runs with tp %d route each rank's "
                            "sequence shard (hint: add --sequence-parallel)", p->tp);
      if (p->tp > 1 && pm.shared_ffn > 0)
        return unsupported (error, "the engine keeps shared experts whole, not split over tp "
                            "%d (hint: --tp 1 for '%s')", p->tp, m->name);
      if (p->sharding > PLAN_SHARD_ZERO2 || p->recompute != PLAN_RECOMPUTE_NONE)
        return unsupported (error, "mixture-of-experts runs shard optimizer states and "
                            "gradients (ZeRO-1/2, the experts' over EDP) but not parameters, "
                            "and keep every activation (hint: --sharding zero1 or zero2, no "
                            "recompute)");
      if (p->moe_dispatcher != PLAN_MOE_ALLTOALL)
        return unsupported (error, "the engine dispatches tokens by all-to-all only (hint: "
                            "--moe-token-dispatcher-type alltoall)");
      /* a capacity drops tokens and padding fills every expert to it; the engine routes
       * dropless, so the measurement would be another plan's than the prediction's */
      if (p->moe_capacity_factor > 0 || p->moe_pad_to_capacity)
        return unsupported (error, "the engine routes every token (dropless); expert capacity "
                            "and padding to it are simulated only (hint: drop "
                            "--moe-expert-capacity-factor and "
                            "--moe-pad-expert-input-to-capacity)");
    }
  if (p->pp_scatter_gather > 0 && p->pp > 1 && p->tp > 1 && !p->sequence_parallel)
    return unsupported (error, "the engine sends each pipeline activation whole; Megatron-LM's "
                        "scatter-gather sends are simulated only (hint: drop "
                        "--scatter-gather-tensors-in-pipeline)");
  if (p->cpu_offload_layers > 0)
    return unsupported (error, "the engine keeps activations on the device; CPU offload "
                        "copies are simulated only (hint: drop --cpu-offloading)");
  /* the same for the optimizer states: measured on the device, predicted in host memory,
   * the memory term compared two plans (71.5 MiB measured against 40.9 predicted) */
  if (p->optimizer_offload)
    return unsupported (error, "the engine keeps the optimizer states on the device; their "
                        "offload to host memory is simulated only (hint: drop "
                        "--optimizer-offload)");
  if (p->recompute == PLAN_RECOMPUTE_SELECTIVE_OP)
    return unsupported (error, "the engine does not run torchtitan's op-level selective "
                        "AC; it is simulated only (hint: --recompute-granularity selective "
                        "or full)");
  if (p->recompute == PLAN_RECOMPUTE_SELECTIVE && p->cp > 1)
    return unsupported (error, "selective recompute with context parallelism would need the "
                        "K/V exchange again (hint: --recompute-granularity full)");
  if (m->tied_embeddings && p->pp > 1)
    return unsupported (error, "tied embeddings across pipeline stages need an embedding "
                        "group (hint: pp 1, or a model with tie_word_embeddings false)");
  if (m->ffn_hidden % (guint64) p->tp || m->n_heads % (guint64) p->tp
      || m->n_kv_heads % (guint64) p->tp || m->head_dim % 2)
    return unsupported (error, "tp %d does not split the heads, KV heads and ffn of '%s'",
                        p->tp, m->name);
  int T = p->seq_length / p->cp;
  if (p->sequence_parallel && p->tp > 1 && ((gint64) p->micro_batch * T) % p->tp)
    return unsupported (error, "sequence parallelism needs tp %d to divide the %d tokens of "
                        "a micro-batch on one CP rank", p->tp, p->micro_batch * T);
  for (int s = 0; s < p->pp; s++)
    for (int c = 0; c < p->vpp; c++)
      if (plan_chunk_layers (p, m, s, c) < 1)
        return unsupported (error, "stage %d chunk %d holds no layer", s, c);
  return TRUE;
}

/* rms_norm_eps and rope_theta from the model's config.json, when it has them. */
static void
shape_from_config (ExecLayerShape *s, const ModelSpec *m)
{
  if (m->config_json == NULL)
    return;
  g_autoptr (JsonParser) parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, m->config_json, -1, NULL))
    return;
  JsonNode *root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return;
  JsonObject *o = json_node_get_object (root);
  if (json_object_has_member (o, "rms_norm_eps"))
    s->eps = (float) json_object_get_double_member (o, "rms_norm_eps");
  if (json_object_has_member (o, "rope_theta"))
    s->rope_theta = (float) json_object_get_double_member (o, "rope_theta");
}

/* ---- parameters ------------------------------------------------------------------------ */

static void
add_seg (ExecRunner *r, int kind, int layer, int chunk)
{
  RunSeg sg = { .kind = kind, .layer = layer, .chunk = chunk, .bucket = -1 };
  const ExecLayerShape *s = &r->shape;
  gsize C = (gsize) s->C;
  if (kind == SEG_EXPERT)
    sg.n = runner_moe_expert_size (r);
  else if (kind == SEG_LAYER)
    {
      sg.n = exec_layer_weights_size (s);
      if (runner_moe_layer (r, layer))
        sg.n += runner_moe_dense_size (r);   /* after the layer's weights */
      sg.norm_len[0] = sg.norm_len[1] = C;
      /* norms sit where exec_layer_weights_bind puts them */
      sg.norm_off[0] = 0;
      sg.norm_off[1] = 2 * C + (gsize) r->qd * C * 2 + (gsize) r->kvd * C * 2 - C;
      sg.n_norm = 2;
      /* the router is replicated over TP like the norms, and with SP each TP rank's
       * gradient of it comes from its own tokens: reduced over TP with them */
      if (runner_moe_layer (r, layer) && r->tp > 1)
        {
          sg.norm_off[2] = exec_layer_weights_size (s);
          sg.norm_len[2] = runner_moe_router_size (r);
          sg.n_norm = 3;
        }
    }
  else if (kind == SEG_HEAD)
    {
      sg.n = C + (r->tied ? 0 : (gsize) s->vocab_local * C);
      sg.n_norm = 1;
      sg.norm_len[0] = C;
    }
  else
    sg.n = (gsize) s->vocab_local * C;
  g_array_append_val (r->segs, sg);
}

/* The segments of one chunk in reduction order: head, layers last to first, embedding. */
static void
chunk_segs (ExecRunner *r, int chunk, int *first_seg, int *n_segs)
{
  const Plan *p = r->plan;
  int model_chunk = chunk * p->pp + r->stage, n_model_chunks = p->pp * p->vpp;
  int first = plan_chunk_first_layer (p, r->model, r->stage, chunk);
  int n = plan_chunk_layers (p, r->model, r->stage, chunk);
  *first_seg = (int) r->segs->len;
  if (model_chunk == n_model_chunks - 1)
    add_seg (r, SEG_HEAD, -1, chunk);
  for (int l = first + n - 1; l >= first; l--)
    add_seg (r, SEG_LAYER, l, chunk);
  if (model_chunk == 0)
    add_seg (r, SEG_EMBED, -1, chunk);
  *n_segs = (int) r->segs->len - *first_seg;
}

static RunSeg *
seg_at (ExecRunner *r, int i)
{
  return &g_array_index (r->segs, RunSeg, i);
}

/* A bucket of segments seg0 .. seg0 + n_segs - 1; sharded (ZeRO) over the DP x CP group,
 * or for experts over the expert data-parallel group. */
static void
add_bucket_over (ExecRunner *r, int chunk, int first_layer, int seg0, int n_segs,
                 gboolean sharded, gboolean expert)
{
  const ExecGroup *edp = r->groups[PLAN_AXIS_EDP];
  int ssize = expert ? (edp ? edp->size : 1) : r->shard_size;
  RunBucket bk = { .chunk = chunk, .first_layer = first_layer, .seg0 = seg0,
                   .n_segs = n_segs, .sharded = sharded && ssize > 1, .expert = expert,
                   .ssize = ssize, .srank = expert ? (edp ? edp->rank : 0) : r->shard_rank };
  for (int i = 0; i < n_segs; i++)
    {
      seg_at (r, seg0 + i)->bucket = (int) r->buckets->len;
      bk.n += seg_at (r, seg0 + i)->n;
    }
  bk.n_pad = bk.sharded ? (bk.n + ssize - 1) / ssize * ssize : bk.n;
  g_array_append_val (r->buckets, bk);
}

static void
add_bucket (ExecRunner *r, int chunk, int first_layer, int seg0, int n_segs, gboolean sharded)
{
  add_bucket_over (r, chunk, first_layer, seg0, n_segs, sharded, FALSE);
}

/* Is task t a gradient reduction of a bucket (not ZeRO-3's per-layer ones)? */
static gboolean
is_bucket_reduction (const ProgTask *t)
{
  return t->kind == PROG_TASK_COLL && t->comm == PROG_COMM_DP && t->mb < 0
         && t->phase == PROG_PHASE_BACKWARD
         && (t->coll == PLAN_COLL_ALL_REDUCE || t->coll == PLAN_COLL_REDUCE_SCATTER)
         && (t->axis == PLAN_AXIS_DP || t->axis == PLAN_AXIS_CPDP);
}

/* An expert-gradient reduction over the expert data-parallel group (runner-moe.c)? */
static gboolean
is_expert_reduction (const ProgTask *t)
{
  return t->kind == PROG_TASK_COLL && t->comm == PROG_COMM_DP && t->mb < 0
         && t->phase == PROG_PHASE_BACKWARD && t->axis == PLAN_AXIS_EDP
         && (t->coll == PLAN_COLL_ALL_REDUCE || t->coll == PLAN_COLL_REDUCE_SCATTER);
}

/* The experts of the stage's MoE layers, last layer first, in buckets cut where the
 * program's EDP reductions cut them (each reduces its layers from its first layer up);
 * one bucket when there is none (edp 1: nothing to reduce). With ZeRO-1/2 (the
 * reductions are reduce-scatters) each is sharded over EDP: Megatron-Core's distributed
 * optimizer keeps expert states over the expert data-parallel group. */
static void
expert_buckets (ExecRunner *r)
{
  r->n_dense_buckets = r->buckets->len;
  int first = plan_chunk_first_layer (r->plan, r->model, r->stage, 0);
  int n = plan_chunk_layers (r->plan, r->model, r->stage, 0);
  int seg0 = (int) r->segs->len;
  for (int l = first + n - 1; l >= first; l--)
    if (runner_moe_layer (r, l))
      add_seg (r, SEG_EXPERT, l, 0);
  int end = (int) r->segs->len, seg = seg0;
  if (end == seg0)
    return;
  for (guint32 i = 0; i < r->n_tasks && seg < end; i++)
    {
      const ProgTask *t = prog_task (r->prog, r->first_task + i);
      if (!is_expert_reduction (t))
        continue;
      int stop = seg;
      while (stop < end && seg_at (r, stop)->layer >= t->layer)
        stop++;
      if (stop > seg)
        add_bucket_over (r, 0, t->layer, seg, stop - seg,
                         t->coll == PLAN_COLL_REDUCE_SCATTER, TRUE);
      seg = stop;
    }
  if (seg < end)
    add_bucket_over (r, 0, seg_at (r, end - 1)->layer, seg, end - seg, FALSE, TRUE);
}

static gboolean
layout_params (ExecRunner *r, GError **error)
{
  const Plan *p = r->plan;
  r->segs = g_array_new (FALSE, TRUE, sizeof (RunSeg));
  r->buckets = g_array_new (FALSE, TRUE, sizeof (RunBucket));
  int L = (int) r->model->n_layers;

  if (r->zero3)
    {
      /* every layer its own sharded piece; embedding and head replicated */
      for (int c = p->vpp - 1; c >= 0; c--)
        {
          int s0, ns;
          chunk_segs (r, c, &s0, &ns);
          for (int i = s0; i < s0 + ns; i++)
            add_bucket (r, c, seg_at (r, i)->layer, i, 1, seg_at (r, i)->kind == SEG_LAYER);
        }
    }
  else
    {
      /* the program's reductions, in bucket order */
      g_autoptr (GArray) red = g_array_new (FALSE, FALSE, sizeof (guint32));
      for (guint32 i = 0; i < r->n_tasks; i++)
        if (is_bucket_reduction (prog_task (r->prog, r->first_task + i)))
          g_array_append_val (red, i);
      if (red->len == 0)
        {
          int s0 = -1, total = 0;
          for (int c = p->vpp - 1; c >= 0; c--)
            {
              int a, n;
              chunk_segs (r, c, &a, &n);
              if (s0 < 0)
                s0 = a;
              total += n;
            }
          add_bucket (r, 0, 0, s0, total, FALSE);
        }
      else
        {
          int chunk = -1, seg = 0, chunk_end = 0;
          for (guint i = 0; i < red->len; i++)
            {
              const ProgTask *t = prog_task (r->prog,
                                             r->first_task + g_array_index (red, guint32, i));
              if (t->chunk != chunk)
                {
                  int a, n;
                  chunk = t->chunk;
                  chunk_segs (r, chunk, &a, &n);
                  seg = a;
                  chunk_end = a + n;
                }
              /* the bucket runs from `seg` down to its first layer; the chunk's last
               * bucket also takes what is left (the embedding) */
              gboolean last_of_chunk = i + 1 == red->len
                || prog_task (r->prog, r->first_task
                              + g_array_index (red, guint32, i + 1))->chunk != chunk;
              int end = seg;
              if (last_of_chunk)
                end = chunk_end;
              else
                while (end < chunk_end && (seg_at (r, end)->kind == SEG_HEAD
                                           || (seg_at (r, end)->kind == SEG_LAYER
                                               && seg_at (r, end)->layer >= t->layer)))
                  end++;
              if (end == seg && !last_of_chunk)
                return unsupported (error, "internal: gradient bucket (chunk %d, layer %d) of "
                                    "stage %d matches no parameters", t->chunk, t->layer,
                                    r->stage);
              add_bucket (r, chunk, t->layer, seg, end - seg,
                          t->coll == PLAN_COLL_REDUCE_SCATTER);
              seg = end;
            }
        }
    }

  expert_buckets (r);

  /* offsets, and which segment holds what */
  gsize off = 0;
  for (guint b = 0; b < r->buckets->len; b++)
    {
      RunBucket *bk = &g_array_index (r->buckets, RunBucket, b);
      bk->off = off;
      gsize o = off;
      for (int i = bk->seg0; i < bk->seg0 + bk->n_segs; i++)
        {
          seg_at (r, i)->off = o;
          o += seg_at (r, i)->n;
        }
      off += bk->n_pad;
    }
  r->n_params = off;
  r->layer_seg = g_new (int, MAX (L, 1));
  r->expert_seg = g_new (int, MAX (L, 1));
  for (int l = 0; l < L; l++)
    r->layer_seg[l] = r->expert_seg[l] = -1;
  r->embed_seg = r->head_seg = -1;
  for (guint i = 0; i < r->segs->len; i++)
    {
      RunSeg *sg = seg_at (r, (int) i);
      if (sg->bucket < 0)
        return unsupported (error, "internal: parameters of stage %d outside every bucket",
                            r->stage);
      if (sg->kind == SEG_LAYER)
        r->layer_seg[sg->layer] = (int) i;
      else if (sg->kind == SEG_EXPERT)
        r->expert_seg[sg->layer] = (int) i;
      else if (sg->kind == SEG_EMBED)
        r->embed_seg = (int) i;
      else
        r->head_seg = (int) i;
    }
  if (r->tied && r->head_seg >= 0 && r->embed_seg < 0)
    return unsupported (error, "tied embeddings: the head's stage holds no embedding");
  return TRUE;
}

static void
count_norms (float *g, gsize n, gpointer data)
{
  *(gsize *) data += n;
}

gboolean
runner_bucket_owned (const ExecRunner *r, const RunBucket *bk, gsize *lo, gsize *n)
{
  if (bk->sharded)
    {
      gsize piece = bk->n_pad / (gsize) bk->ssize;
      *lo = bk->off + (gsize) bk->srank * piece;
      *n = piece;
      return TRUE;
    }
  *lo = bk->off;
  *n = bk->n;
  return FALSE;
}

/* The weights of `seed` (exec_layer_weights_fill, exec_vocab_weights_fill), made in host
 * memory segment by segment and uploaded; padding stays as buffer_new zeroed it. */
static gboolean
fill_params (ExecRunner *r, GError **error)
{
  gsize most = 0;
  for (guint i = 0; i < r->segs->len; i++)
    most = MAX (most, seg_at (r, (int) i)->n);
  g_autofree float *host = runner_host_try_alloc (MAX (most, 1) * sizeof (float),
                                                  "the weights' initial values", error);
  if (host == NULL)
    return FALSE;
  memset (host, 0, MAX (most, 1) * sizeof (float));
  for (guint i = 0; i < r->segs->len; i++)
    {
      RunSeg *sg = seg_at (r, (int) i);
      if (sg->kind == SEG_LAYER)
        {
          ExecLayerWeights w;
          exec_layer_weights_bind (&w, &r->shape, host);
          exec_layer_weights_fill (&w, &r->shape, sg->layer, r->opts.seed);
          g_assert ((gsize) (w.mlp_norm - host) == sg->norm_off[1]);
          if (runner_moe_layer (r, sg->layer))
            runner_moe_fill (r, sg->layer, host + exec_layer_weights_size (&r->shape), NULL);
        }
      else if (sg->kind == SEG_EXPERT)
        runner_moe_fill (r, sg->layer, NULL, host);
      else if (sg->kind == SEG_EMBED)
        exec_vocab_weights_fill (host, NULL, NULL, &r->shape, r->opts.seed);
      else
        exec_vocab_weights_fill (NULL, r->tied ? NULL : host + r->shape.C, host, &r->shape,
                                 r->opts.seed);
      if (!runner_upload (r, r->param_buf, r->params + sg->off, host, sg->n * sizeof (float),
                          error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
alloc_params (ExecRunner *r, GError **error)
{
  r->params = runner_alloc (r, r->n_params, &r->param_buf, error);
  if (!r->params)
    return FALSE;
  r->grads = runner_alloc (r, r->n_params, &r->grad_buf, error);
  if (!r->grads || !fill_params (r, error))
    return FALSE;
  /* AdamW moments and gradient pieces of what this rank updates */
  gsize total = 0;
  for (guint b = 0; b < r->buckets->len; b++)
    {
      RunBucket *bk = &g_array_index (r->buckets, RunBucket, b);
      gsize lo, n;
      gboolean sh = runner_bucket_owned (r, bk, &lo, &n);
      total += 2 * n + (sh ? n : 0) + (sh && r->zero3 ? n : 0);
    }
  float *mem = runner_alloc (r, MAX (total, 1), &r->opt_buf, error);
  if (!mem)
    return FALSE;
  for (guint b = 0; b < r->buckets->len; b++)
    {
      RunBucket *bk = &g_array_index (r->buckets, RunBucket, b);
      gsize lo, n;
      gboolean sh = runner_bucket_owned (r, bk, &lo, &n);
      bk->m = mem, mem += n;
      bk->v = mem, mem += n;
      if (sh)
        bk->gshard = mem, mem += n;
      if (sh && r->zero3)
        bk->gtmp = mem, mem += n;
    }
  r->n_norm_held = 0;
  runner_held_norms (r, count_norms, &r->n_norm_held);
  if (r->tp > 1 && r->n_norm_held > 0)
    {
      r->norm_pack = runner_alloc (r, r->n_norm_held, &r->norm_buf, error);
      if (!r->norm_pack)
        return FALSE;
    }
  return TRUE;
}

ExecBuffer *
runner_bucket_held (ExecRunner *r, RunBucket *bk, float **held)
{
  gsize lo, n;
  if (runner_bucket_owned (r, bk, &lo, &n))
    {
      *held = bk->gshard;
      return r->opt_buf;
    }
  *held = r->grads + bk->off;
  return r->grad_buf;
}

void
runner_bucket_norms (ExecRunner *r, RunBucket *bk, float *held, RunNormFn fn, gpointer data)
{
  gsize lo, n;
  runner_bucket_owned (r, bk, &lo, &n);
  if (held == NULL)
    runner_bucket_held (r, bk, &held);
  for (int i = bk->seg0; i < bk->seg0 + bk->n_segs; i++)
    {
      const RunSeg *sg = seg_at (r, i);
      for (int j = 0; j < sg->n_norm; j++)
        {
          gsize a = MAX (sg->off + sg->norm_off[j], lo);
          gsize z = MIN (sg->off + sg->norm_off[j] + sg->norm_len[j], lo + n);
          if (a < z)
            fn (held + (a - lo), z - a, data);
        }
    }
}

void
runner_held_norms (ExecRunner *r, RunNormFn fn, gpointer data)
{
  for (guint b = 0; b < r->buckets->len; b++)
    runner_bucket_norms (r, &g_array_index (r->buckets, RunBucket, b), NULL, fn, data);
}

/* ---- groups and streams ---------------------------------------------------------------- */

static gboolean
make_groups (ExecRunner *r, GError **error)
{
  static const PlanAxis axes[] = { PLAN_AXIS_TP, PLAN_AXIS_CP, PLAN_AXIS_DP, PLAN_AXIS_PP,
                                   PLAN_AXIS_CPDP, PLAN_AXIS_EP, PLAN_AXIS_EDP };
  if (r->opts.local)
    return TRUE;
  /* every rank creates the same groups in the same order (MPI_Comm_split is collective) */
  g_autofree int *all = g_new (int, r->world);
  for (int i = 0; i < r->world; i++)
    all[i] = i;
  r->world_group = exec_group_new (r->b, "world", all, r->world, error);
  if (!r->world_group)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (axes); i++)
    {
      PlanAxis a = axes[i];
      if (r->layout->groups[a].size <= 1
          || ((a == PLAN_AXIS_EP || a == PLAN_AXIS_EDP) && r->pmoe.experts == 0))
        continue;
      r->groups[a] = exec_group_new_from_layout (r->b, r->layout, a, error);
      if (!r->groups[a])
        return FALSE;
    }
  return TRUE;
}

/* ---- new / free ------------------------------------------------------------------------ */

ExecRunner *
exec_runner_new (ExecBackend *b, const ProgProgram *prog, const PlanLayout *layout,
                 const ExecRunOptions *opts, GError **error)
{
  const Plan *p = &prog->plan;
  if (!exec_runner_supports (prog->model, p, error))
    return NULL;
  /* Buffers may be device memory: the runner reaches them only through the ops table
   * and the kernels (runner-private.h), so any backend with a kernel table runs it. */
  if (b->ops->kernels == NULL && b->ops != &exec_cpu_ops)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID, "backend '%s' has no kernel table: "
                   "the runner needs its element-wise, attention and optimizer kernels",
                   b->ops->name);
      return NULL;
    }
  const ExecKernels *kt = b->ops->kernels != NULL ? b->ops->kernels : &exec_kernels_cpu;
  if (p->attention_backend == PLAN_ATTN_UNFUSED
      && (kt->attn_unfused_forward == NULL || kt->attn_unfused_backward == NULL))
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID, "backend '%s' has no unfused "
                   "attention kernels (hint: run --attention-backend unfused on the cpu "
                   "backend, or drop the flag)", b->ops->name);
      return NULL;
    }
  if (p->param_dtype != PLAN_PREC_FP32 || p->grad_dtype != PLAN_PREC_FP32
      || p->optim_dtype != PLAN_PREC_FP32 || p->master_weights
      || (p->compute_dtype != PLAN_PREC_FP32 && p->compute_dtype != PLAN_PREC_BF16))
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID, "the runner keeps parameters, "
                   "gradients and optimizer state in fp32 and multiplies in fp32 (or, on "
                   "cuda, with bf16 tensor-core products over fp32 storage), not %s compute "
                   "with %s parameters, %s gradients and %s optimizer state",
                   plan_precision_name (p->compute_dtype), plan_precision_name (p->param_dtype),
                   plan_precision_name (p->grad_dtype), plan_precision_name (p->optim_dtype));
      return NULL;
    }
  int world = opts && opts->local ? 1 : b->world;
  if (layout->world != world)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID, "the layout has %d ranks but %s %d "
                   "(hint: --gpus must equal the launcher's world size)", layout->world,
                   opts && opts->local ? "a local run has" : "the launcher started", world);
      return NULL;
    }
  g_autoptr (ExecRunner) r = g_new0 (ExecRunner, 1);
  r->pool = g_ptr_array_new ();
  r->b = b;
  r->prog = prog;
  r->model = prog->model;
  r->plan = p;
  r->layout = layout;
  if (opts)
    r->opts = *opts;
  else
    exec_run_options_init (&r->opts);
  if (r->opts.timeout_s <= 0)
    r->opts.timeout_s = b->timeout_s;
  /* a signal stops a long attention kernel too, not only the next task */
  exec_cpu_attn_set_cancel ((volatile int *) r->opts.interrupted);
  r->world = world;
  r->rank = r->opts.local ? 0 : b->rank;

  PlanCoord c;
  plan_layout_coord_of (layout, r->rank, &c);
  r->stage = c.coord[PLAN_AXIS_PP];
  r->tp_rank = c.coord[PLAN_AXIS_TP];
  r->cp_rank = c.coord[PLAN_AXIS_CP];
  r->dp_rank = c.coord[PLAN_AXIS_DP];
  r->tp = p->tp;
  r->cp = p->cp;
  r->pp = p->pp;
  r->first_task = prog->stages[r->stage].first;
  r->n_tasks = prog->stages[r->stage].n_tasks;
  r->tied = prog->model->tied_embeddings;
  r->zero12 = p->sharding == PLAN_SHARD_ZERO1 || p->sharding == PLAN_SHARD_ZERO2;
  r->zero3 = p->sharding == PLAN_SHARD_ZERO3;

  int T = p->seq_length / p->cp;
  if (!exec_layer_shape_init (&r->shape, prog->model, p->tp, r->tp_rank, p->micro_batch, T,
                              error))
    return NULL;
  shape_from_config (&r->shape, prog->model);
  r->shape.unfused = p->attention_backend == PLAN_ATTN_UNFUSED;
  r->N = p->micro_batch * T;
  r->N_sp = p->sequence_parallel && p->tp > 1 ? r->N / p->tp : r->N;
  r->qd = r->shape.n_head * r->shape.head_dim;
  r->kvd = r->shape.n_kv_head * r->shape.head_dim;
  r->dloss = (float) (1.0 / ((double) p->global_batch * p->seq_length));
  /* positions, which the rotary and attention kernels read: device memory */
  {
    g_autofree int *host = g_new (int, (gsize) p->cp * T);
    for (int j = 0; j < p->cp; j++)
      exec_cp_positions (T, p->cp, j, TRUE, host + (gsize) j * T);
    r->pos_buf = exec_buffer_new (b, (gsize) p->cp * T * sizeof (int), error);
    if (!r->pos_buf || !b->ops->buffer_upload (b, r->pos_buf, 0, host,
                                              (gsize) p->cp * T * sizeof (int), error))
      return NULL;
    r->pos_of = g_new0 (int *, p->cp);
    for (int j = 0; j < p->cp; j++)
      r->pos_of[j] = (int *) r->pos_buf->data + (gsize) j * T;
    r->pos = r->pos_of[r->cp_rank];
  }

  r->grad_axis = p->cp > 1 ? PLAN_AXIS_CPDP : PLAN_AXIS_DP;
  r->shard_size = r->opts.local ? 1 : layout->groups[r->grad_axis].size;
  r->shard_rank = 0;
  if (r->shard_size > 1)
    {
      g_autofree int *members = g_new (int, r->shard_size);
      r->shard_rank = plan_layout_group_members (layout, r->grad_axis, r->rank, members);
    }

  for (int k = 0; k <= PROG_STREAM_N; k++)
    {
      r->streams[k] = exec_stream_new (b, k == PROG_STREAM_COMPUTE ? EXEC_STREAM_COMPUTE
                                                                  : EXEC_STREAM_COMM,
                                       k < PROG_STREAM_N ? prog_stream_name (k) : "world",
                                       error);
      if (!r->streams[k])
        return NULL;
    }
  r->compute = r->streams[PROG_STREAM_COMPUTE];
  plan_moe (p, prog->model, &r->pmoe);
  if (!make_groups (r, error) || !runner_moe_init (r, error) || !layout_params (r, error)
      || !alloc_params (r, error))
    return NULL;
  /* the step's data; on the head's stage, a row of token losses per micro-batch */
  r->tok = (int *) runner_alloc (r, 2 * (gsize) r->N * p->grad_accum, &r->tok_buf, error);
  if (!r->tok)
    return NULL;
  if (r->head_seg >= 0)
    {
      r->loss_cap = p->grad_accum;
      r->loss_rec = runner_alloc (r, (gsize) r->loss_cap * r->N, &r->loss_buf, error);
      if (!r->loss_rec)
        return NULL;
    }

  if (runner_sp (r))
    {
      gsize NC = (gsize) r->N * r->shape.C;
      float *m = runner_alloc (r, 3 * NC, &r->sp_buf, error);
      if (!m)
        return NULL;
      r->xg[0] = m, m += NC;
      r->xg[1] = m, m += NC;
      r->xnorm = m;
    }
  if (p->cp > 1)
    {
      gsize kv = 2 * (gsize) r->N * r->kvd;
      float *m = runner_alloc (r, kv * (7 + 2 * (gsize) p->cp), &r->cp_buf, error);
      if (!m)
        return NULL;
      r->kv[0] = m, m += kv;
      r->kv[1] = m, m += kv;
      r->dkv_c = m, m += kv;
      r->inbox[0] = m, m += kv;
      r->inbox[1] = m, m += kv;
      r->sb[0] = m, m += kv;
      r->sb[1] = m, m += kv;
      r->kv_all = m, m += kv * p->cp;
      r->dkv_all = m;
    }
  for (int i = 0; i < 4; i++)
    if (!(r->pass_ev[i] = exec_event_new (b, error)))
      return NULL;
  if (!(r->mark = exec_event_new (b, error)) || !(r->xev = exec_event_new (b, error))
      || !(r->cev = exec_event_new (b, error)))
    return NULL;
  r->recomputed = g_new0 (gboolean, MAX (prog->model->n_layers, 1));
  for (guint32 i = 0; i < r->n_tasks; i++)
    {
      const ProgTask *t = prog_task (prog, r->first_task + i);
      if (t->kind == PROG_TASK_COMPUTE && t->phase == PROG_PHASE_RECOMPUTE && t->layer >= 0
          && prog_block (prog, t->block)->kind == PROG_BLOCK_MLP)
        r->recomputed[t->layer] = TRUE;
    }
  r->ts = g_new0 (RunTaskState, r->n_tasks);
  for (guint32 i = 0; i < r->n_tasks; i++)
    {
      RunTaskState *ts = &r->ts[i];
      if (!(ts->start = exec_event_new (b, error)) || !(ts->end = exec_event_new (b, error))
          || !(ts->done = exec_event_new (b, error)))
        return NULL;
    }
  r->units = g_new0 (RunUnit *, (gsize) p->grad_accum * p->vpp);
  r->retired = g_ptr_array_new ();
  r->parked = g_ptr_array_new ();
  r->sending = g_ptr_array_new ();
  return g_steal_pointer (&r);
}

gboolean
exec_runner_run (ExecRunner *r, GError **error)
{
  g_return_val_if_fail (r != NULL, FALSE);
  return runner_steps (r, error);
}

const ExecRunResult *
exec_runner_result (const ExecRunner *r)
{
  return &r->result;
}

void
exec_runner_free (ExecRunner *r)
{
  if (r == NULL)
    return;
  exec_cpu_attn_set_cancel (NULL);
  runner_units_free (r);
  g_clear_pointer (&r->retired, g_ptr_array_unref);
  g_clear_pointer (&r->parked, g_ptr_array_unref);
  g_clear_pointer (&r->sending, g_ptr_array_unref);
  g_free (r->units);
  /* buffers, events, streams and groups belong to the backend; give back what we can */
  if (r->ts)
    for (guint32 i = 0; i < r->n_tasks; i++)
      {
        exec_event_free (r->ts[i].start);
        exec_event_free (r->ts[i].end);
        exec_event_free (r->ts[i].done);
      }
  g_free (r->ts);
  for (int i = 0; i < 4; i++)
    exec_event_free (r->pass_ev[i]);
  exec_event_free (r->mark);
  exec_event_free (r->xev);
  exec_event_free (r->cev);
  exec_event_free (r->moe_ev);
  g_free (r->recomputed);
  runner_release (r, &r->cp_buf);
  runner_release (r, &r->sp_buf);
  runner_release (r, &r->param_buf);
  runner_release (r, &r->grad_buf);
  runner_release (r, &r->opt_buf);
  runner_release (r, &r->norm_buf);
  runner_release (r, &r->tok_buf);
  runner_release (r, &r->loss_buf);
  runner_pool_free (r);
  exec_buffer_free (r->pos_buf);
  exec_buffer_free (r->wg_buf);
  g_clear_pointer (&r->pool, g_ptr_array_unref);
  for (int k = 0; k < PROG_STREAM_N + 1; k++)
    exec_stream_free (r->streams[k]);
  g_free (r->pos_of);   /* rows of pos_buf */
  g_free (r->layer_seg);
  g_free (r->expert_seg);
  if (r->segs)
    g_array_free (r->segs, TRUE);
  if (r->buckets)
    g_array_free (r->buckets, TRUE);
  g_free (r->recs);
  g_free (r->shares);
  ExecRunResult *res = &r->result;
  g_free (res->step_times_s);
  g_free (res->ranks);
  g_free (res->times);
  g_free (res->stage_rank);
  g_free (res->losses);
  g_free (r);
}
