/* plan/program.c - build the step program from (model, plan, layout).
 *
 * Per stage, the schedule gives the order of (forward|backward, micro-batch, chunk)
 * units; each unit expands into the tasks of the layers of that chunk:
 *
 *   forward of a layer    [AG_tp] ATTN [RS_tp|AR_tp] [AG_tp] MLP [RS_tp|AR_tp]
 *                         (AG/RS with sequence parallelism, AR without; none at tp 1)
 *   with CP               ATTN = ATTN_PRE, {CP ring | K/V all-gather | Ulysses a2a},
 *                         ATTN_CORE, ATTN_POST
 *   backward of a layer   the mirror image, preceded by the recompute of the layer when
 *                         the plan recomputes it; with SP each block's input is first
 *                         gathered again from its sequence shards (ProgRole), issued one
 *                         block ahead
 *   first model chunk     EMBED before the first layer; last model chunk: HEAD after the
 *                         last layer (logits and loss), and first in the backward
 *   between chunks        SEND after the chunk's last layer, RECV before the next one
 *   data parallelism      gradient reduction per bucket (after the bucket's last
 *                         backward when --overlap-grad-reduce, else at the end), the
 *                         optimizer step, then the parameter all-gather of ZeRO-1/2
 *                         (at the start of the step when --overlap-param-gather: it
 *                         overlaps the first forwards, as in steady state); ZeRO-3 and
 *                         HSDP gather each layer's parameters before its forward and
 *                         backward (prefetched one layer ahead) and reduce-scatter its
 *                         gradients after each backward; an MoE layer's experts the
 *                         same, over the expert data-parallel group.
 *
 * FLOPs are per rank. Backward GEMMs are given as their two GEMMs (data gradient and
 * weight gradient); flash attention's backward executes 2.5x its forward FLOPs (five
 * matmuls instead of two: FlashAttention-2, Dao 2023) while model FLOPs count 2x. */
#include "plan/program.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan/program-private.h"
#include "plan/memory.h"
#include "util/hugepage.h"


const char *
prog_stream_name (ProgStream s)
{
  static const char *const names[] = { "compute", "tp", "cp", "dp", "pp_send", "pp_recv",
                                       "ep", "offload" };
  return (guint) s < G_N_ELEMENTS (names) ? names[s] : "?";
}

const char *
prog_comm_name (ProgCommKind k)
{
  static const char *const names[] = { "tp", "cp", "pp", "dp", "ep" };
  return (guint) k < G_N_ELEMENTS (names) ? names[k] : "?";
}

const char *
prog_phase_name (ProgPhase p)
{
  static const char *const names[] = { "forward", "backward", "recompute", "optimizer" };
  return (guint) p < G_N_ELEMENTS (names) ? names[p] : "?";
}

const ProgSchedOps *
prog_sched_lookup (PlanSchedule id)
{
  switch (id)
    {
    case PLAN_SCHED_GPIPE: return &prog_sched_gpipe;
    case PLAN_SCHED_1F1B: return &prog_sched_1f1b;
    case PLAN_SCHED_INTERLEAVED_1F1B: return &prog_sched_interleaved;
    case PLAN_SCHED_DUALPIPE: return &prog_sched_dualpipe;
    default: return NULL;
    }
}

/* ---- tasks --------------------------------------------------------------------------- */

/* Makes `a` `len` long; `cap` is the room it has (it grows by doubling past that). The
 * length is set directly when the room is there: g_array_set_size per task cost a
 * twentieth of a prediction. */
static inline void
array_set_len (GArray *a, guint *cap, guint len)
{
  if (G_UNLIKELY (len > *cap))
    {
      guint grown = MAX (len, *cap * 2);
      g_array_set_size (a, grown);
      *cap = grown;
    }
  a->len = len;
}

/* Appends the element at `v` (the array's element size, `size`) to `a`, whose room `cap`
 * tracks, in place: g_array_append_val is a call into GLib, and a stamped unit's RECV
 * and run cost two (main job m256: 0.46 M instructions a prediction). */
G_ALWAYS_INLINE static inline void
array_append (GArray *a, guint *cap, const void *v, gsize size)
{
  guint len = a->len;
  array_set_len (a, cap, len + 1);
  memcpy (a->data + (gsize) len * size, v, size);
}

/* Inlined into its callers: the call with its nine arguments cost a thirtieth of a
 * prediction (bench-predict, main job). */
G_ALWAYS_INLINE static inline guint32
add_task (Builder *bd, ProgTaskKind kind, ProgStream stream, ProgPhase phase, int mb, int chunk,
          int layer, const gint32 *deps, int n_deps)
{
  ProgProgram *p = bd->prog;
  /* written in place: the arrays are reserved up front (prog_program_new), and a copy
   * through g_array_append_val cost a tenth of a prediction */
  guint32 id = p->tasks->len;
  array_set_len (p->tasks, &bd->tasks_cap, id + 1);
  ProgTask *t = &g_array_index (p->tasks, ProgTask, id);
  guint32 first = p->deps->len;
  *t = (ProgTask) { .id = id, .kind = (guint8) kind, .stream = (guint8) stream,
                    .phase = (guint8) phase, .stage = (gint16) bd->stage, .mb = (gint32) mb,
                    .chunk = (gint16) chunk, .layer = (gint16) layer, .dep_first = first,
                    .peer_stage = -1, .peer_task = -1 };
  guint n_gate = bd->gate != NULL ? bd->gate->len : 0;
  /* CPU offload: the compute stream waits for a copy (program.h) */
  gint32 cgate = -1;
  if (G_UNLIKELY (bd->compute_gate >= 0) && kind == PROG_TASK_COMPUTE)
    {
      cgate = bd->compute_gate;
      bd->compute_gate = -1;
    }
  /* Megatron-Core's device synchronize after an exchange (sync_arm) */
  guint n_sync = 0;
  if (G_UNLIKELY (bd->sync_n > 0) && kind != PROG_TASK_SEND && kind != PROG_TASK_RECV
      && !(bd->sync_done & (1u << stream)))
    {
      n_sync = bd->sync_n;
      bd->sync_done |= 1u << stream;
      if (kind == PROG_TASK_COMPUTE && !bd->sync_flagged)
        {
          t->host_sync = 1;
          bd->sync_flagged = TRUE;
        }
    }
  array_set_len (p->deps, &bd->deps_cap,
                 first + (guint) MAX (n_deps, 0) + n_gate + n_sync + (cgate >= 0 ? 1 : 0));
  guint32 *out = &g_array_index (p->deps, guint32, first);
  for (int i = 0; i < n_deps; i++)
    if (deps[i] >= 0)
      out[t->n_deps++] = (guint32) deps[i];
  if (G_UNLIKELY (n_gate > 0))
    {
      for (guint i = 0; i < n_gate; i++)
        out[t->n_deps++] = (guint32) g_array_index (bd->gate, gint32, i);
      g_array_set_size (bd->gate, 0);
    }
  for (guint i = 0; i < n_sync; i++)
    out[t->n_deps++] = (guint32) bd->sync_gate[i];
  if (G_UNLIKELY (cgate >= 0))
    out[t->n_deps++] = (guint32) cgate;
  p->deps->len = first + t->n_deps;
  if (G_UNLIKELY (bd->pairing))
    g_array_append_val (bd->pair_key, bd->key_cur);
  return id;
}

/* Combined 1F1B (expand_pair): the node of Megatron-Core's TransformerLayerSchedulePlan
 * the tasks added next belong to, in the order run () issues the nodes of a forward
 * layer F and a backward layer B (megatron/core/models/common/model_chunk_schedule_plan.py;
 * docs/user-guide/features/moe_a2a_overlap.md): B.combine (the combine all-to-all's
 * backward, communication stream), F.attn (attention, pre-MLP norm, router, dispatch
 * preprocess), B.mlp (the experts' backward), F.dispatch, B.dispatch, F.mlp (the
 * experts), F.combine, B.attn; the forward's unpermute after the combine all-to-all
 * (local postprocessing of Megatron's combine node) is issued after B.attn, so that the
 * compute stream does not wait for the combine in front of B.attn. Pre (receive,
 * embedding, head backward) and tail (sends, head forward, embedding backward) come
 * before and after the layers. The key: layer pair, node, then 0 for F and 1 for B. */
enum { NODE_PRE, NODE_B_COMBINE, NODE_F_ATTN, NODE_B_MLP, NODE_F_DISPATCH, NODE_B_DISPATCH,
       NODE_F_MLP, NODE_F_COMBINE, NODE_B_ATTN, NODE_F_UNPERMUTE, NODE_TAIL };
#define PAIR_POS_TAIL 0x7fff

static inline void
pair_node (Builder *bd, int node, gboolean backward)
{
  if (bd->pairing && !bd->recomputing && !bd->pair_hold)
    bd->key_cur = ((guint32) (bd->key_pos + 1) * 16 + (guint32) node) * 2 + (backward ? 1 : 0);
}

static ProgTask *
task_mut (Builder *bd, guint32 id)
{
  return &g_array_index (bd->prog->tasks, ProgTask, id);
}

/* A pipeline send (PROG_TASK_SEND) or receive (PROG_TASK_RECV) of `bytes` to or from
 * `peer` on the PP streams; the caller records a send's key or a receive's peer task. */
G_ALWAYS_INLINE static inline guint32
pp_p2p (Builder *bd, ProgTaskKind kind, ProgPhase phase, int mb, int chunk, int layer,
        const gint32 *deps, int n_deps, double bytes, int peer)
{
  const gboolean send = kind == PROG_TASK_SEND;
  guint32 id = add_task (bd, kind, send ? PROG_STREAM_PP_SEND : PROG_STREAM_PP_RECV, phase, mb,
                         chunk, layer, deps, n_deps);
  ProgTask *t = task_mut (bd, id);
  t->comm = PROG_COMM_PP;
  t->coll = PLAN_COLL_SEND_RECV;
  t->axis = PLAN_AXIS_PP;
  t->bytes = bytes;
  t->peer_stage = (gint16) peer;
  if (!send)
    array_append (bd->recvs, &bd->recvs_cap, &id, sizeof id);
  return id;
}

/* A compute task of `block` after up to three tasks (-1: none). Inlined, as coll is, into
 * the callers that build a layer's tasks: as calls they cost a thirtieth of a prediction
 * (bench-predict, main job). */
/* A weight-gradient part held for its W slot: its block and the task it follows. */
typedef struct {
  guint32 block;
  gint32  after;
  gint32  mb;
  gint16  chunk, layer;
} WDeferred;

G_ALWAYS_INLINE static inline gint32
compute3 (Builder *bd, guint32 block, int mb, int chunk, int layer, gint32 dep0, gint32 dep1,
          gint32 dep2)
{
  guint32 w_block = G_MAXUINT32;
  if (G_UNLIKELY (bd->defer_w) && block < bd->w_split_n
      && bd->w_split[2 * block] != G_MAXUINT32)
    {
      w_block = bd->w_split[2 * block + 1];
      block = bd->w_split[2 * block];
    }
  const ProgBlock *blk = prog_block (bd->prog, block);
  gint32 deps[3] = { dep0, dep1, dep2 };
  guint32 id = add_task (bd, PROG_TASK_COMPUTE, PROG_STREAM_COMPUTE, blk->phase, mb, chunk,
                         layer, deps, 3);
  ProgTask *t = task_mut (bd, id);
  t->block = block;
  t->model_flops = blk->model_flops;
  t->hw_flops = blk->hw_flops;
  if (bd->recomputing && blk->phase == PROG_PHASE_FORWARD)
    {
      t->phase = PROG_PHASE_RECOMPUTE;
      t->model_flops = 0;
    }
  if (G_UNLIKELY (w_block != G_MAXUINT32))
    {
      WDeferred w = { .block = w_block, .after = (gint32) id, .mb = (gint32) mb,
                      .chunk = (gint16) chunk, .layer = (gint16) layer };
      g_array_append_val (bd->w_cur, w);
    }
  return (gint32) id;
}

G_ALWAYS_INLINE static inline gint32
compute (Builder *bd, guint32 block, int mb, int chunk, int layer, gint32 dep0, gint32 dep1)
{
  return compute3 (bd, block, mb, chunk, layer, dep0, dep1, -1);
}

G_ALWAYS_INLINE static inline gint32
coll (Builder *bd, ProgStream stream, ProgCommKind comm, PlanColl kind, PlanAxis axis,
      double bytes, ProgPhase phase, int mb, int chunk, int layer, gint32 dep0, gint32 dep1)
{
  if (bd->layout->groups[axis].size <= 1)
    return dep0;            /* a group of one: nothing to communicate */
  gint32 deps[2] = { dep0, dep1 };
  guint32 id = add_task (bd, PROG_TASK_COLL, stream, phase, mb, chunk, layer, deps, 2);
  ProgTask *t = task_mut (bd, id);
  t->comm = comm;
  t->coll = kind;
  t->axis = axis;
  t->bytes = bytes;
  return (gint32) id;
}

/* A CPU offload copy of one layer's stored activations on the host stream (program.h):
 * phase FORWARD device to host, BACKWARD host to device, after `dep`. */
static gint32
host_copy (Builder *bd, ProgPhase phase, int mb, int chunk, int layer, gint32 dep)
{
  guint32 id = add_task (bd, PROG_TASK_COPY, PROG_STREAM_HOST, phase, mb, chunk, layer, &dep, 1);
  task_mut (bd, id)->bytes = bd->offload_bytes;
  return (gint32) id;
}

/* After a pipeline receive `r` with scatter-gather (plan.h pp_scatter_gather): the
 * all-gather of the boundary tensor over the TP group (Megatron-LM's
 * gather_split_1d_tensor, each rank's 1/tp piece into the whole [tok, h]), which the
 * first compute waits for; without it the receive itself. */
static gint32
pp_recv_gather (Builder *bd, ProgPhase phase, int mb, int chunk, int layer, guint32 r)
{
  if (!bd->pp_gather)
    return (gint32) r;
  return coll (bd, PROG_STREAM_TP, PROG_COMM_TP, PLAN_COLL_ALL_GATHER, PLAN_AXIS_TP,
               bd->pp_bytes, phase, mb, chunk, layer, (gint32) r, -1);
}

/* TP collective around a block: with SP, all-gather before (gathers the sequence-
 * sharded activations) and reduce-scatter after; without, one all-reduce after. These
 * and regather are inlined into the layer builders, as coll is. */
G_ALWAYS_INLINE static inline gint32
tp_before (Builder *bd, ProgPhase phase, int mb, int chunk, int layer, gint32 dep)
{
  if (bd->t <= 1 || !bd->plan->sequence_parallel)
    return dep;
  return coll (bd, PROG_STREAM_TP, PROG_COMM_TP, PLAN_COLL_ALL_GATHER, PLAN_AXIS_TP,
               layer >= 0 ? bd->tp_ag_bytes : bd->act_bytes, phase, mb, chunk, layer, dep, -1);
}

G_ALWAYS_INLINE static inline gint32
tp_after (Builder *bd, ProgPhase phase, int mb, int chunk, int layer, gint32 dep)
{
  if (bd->t <= 1)
    return dep;
  return coll (bd, PROG_STREAM_TP, PROG_COMM_TP,
               bd->plan->sequence_parallel ? PLAN_COLL_REDUCE_SCATTER : PLAN_COLL_ALL_REDUCE,
               PLAN_AXIS_TP, bd->act_bytes, phase, mb, chunk, layer, dep, -1);
}

/* Sequence parallelism's re-gather of a block's input for its backward (ProgRole). It is
 * issued right after the compute of the block before, so that it runs while that block
 * computes; the TP stream being in program order, it starts after the reduce-scatter
 * of the block two back, the last reader of the same gathered buffer (which is what
 * lets the engine keep one gathered input per block kind). */
G_ALWAYS_INLINE static inline gint32
regather (Builder *bd, ProgRole role, int mb, int chunk, int layer)
{
  if (bd->t <= 1 || !bd->plan->sequence_parallel)
    return -1;
  gint32 id = coll (bd, PROG_STREAM_TP, PROG_COMM_TP, PLAN_COLL_ALL_GATHER, PLAN_AXIS_TP,
                    bd->tp_ag_bytes, PROG_PHASE_BACKWARD, mb, chunk, layer, -1, -1);
  if (id >= 0)
    task_mut (bd, (guint32) id)->role = (guint8) role;
  return id;
}

/* Whether an op of a block is one of the GEMMs PyTorch's micro-pipeline pass fuses with a
 * TP collective (torch/_inductor/fx_passes/micro_pipeline_tp.py): forward, the
 * column-parallel GEMMs that read the all-gathered input (q/k/v, the MLP's up
 * projection) and the row-parallel GEMM whose output is reduce-scattered (the attention
 * output, the MLP's down projection); backward, the row-parallel data-gradient GEMM
 * that reads the all-gathered output gradient. */
static gboolean
async_tp_fused_op (const ModelOp *op, gboolean backward)
{
  if (op->kind != MODEL_OP_GEMM || op->name == NULL)
    return FALSE;
  static const char *const fwd[] = { "qkv", "q", "kv", "attn_out", "mlp_up", "mlp_down" };
  static const char *const bwd[] = { "attn_out_dgrad", "mlp_down_dgrad" };
  const char *const *names = backward ? bwd : fwd;
  const guint n = backward ? G_N_ELEMENTS (bwd) : G_N_ELEMENTS (fwd);
  for (guint i = 0; i < n; i++)
    if (g_str_equal (op->name, names[i]))
      return TRUE;
  return FALSE;
}

/* Async TP (blk_rest): the dense attention and MLP blocks' pieces keep only the fused
 * GEMMs (async_tp_fused_op); the rest of each block, on all the tokens, becomes
 * blk_rest. Model FLOPs are shared as the executed FLOPs are: the pieces' share is
 * their GEMMs' FLOPs over the chunk block's. */
static void
async_tp_split (Builder *bd)
{
  static const int which[] = { B_ATTN_F, B_ATTN_B, B_MLP_F, B_MLP_B };
  ProgProgram *prog = bd->prog;
  g_autoptr (GArray) sel = g_array_new (FALSE, TRUE, sizeof (ModelOp));
  g_autoptr (GArray) rest = g_array_new (FALSE, TRUE, sizeof (ModelOp));
  /* torch/distributed/_symmetric_memory fused_matmul_reduce_scatter: each rank computes
   * the partial output of every destination rank's rows and pulls the tp partials of
   * its own rows into a stacked buffer (_pipelined_produce_and_all2all), then reduces
   * them with one torch.sum over the stack: it reads tp x (tokens / tp) x hidden and
   * writes (tokens / tp) x hidden, in bf16 (torchao's scaled GEMMs write bf16), where
   * NCCL's reduce-scatter sums in flight. "async_tp_reduce": elements are those bytes */
  const double rs_bytes = 2.0 * (double) bd->tok * (double) bd->m->hidden
                          * (1.0 + 1.0 / (double) bd->t);
  prog_builder_elem (rest, "async_tp_reduce", MODEL_OP_ELEMENTWISE, (guint64) rs_bytes, 0);
  bd->async_tp_reduce = prog_builder_add_block (bd, PROG_BLOCK_MLP, PROG_PHASE_FORWARD,
                                                "async_tp_reduce", rest, 0);
  for (guint w = 0; w < G_N_ELEMENTS (which); w++)
    {
      const int b = which[w];
      const ProgBlock ch = g_array_index (prog->blocks, ProgBlock, bd->blk_chunk[b]);
      const ProgBlock full = g_array_index (prog->blocks, ProgBlock, bd->blk[b]);
      const gboolean backward = ch.phase == PROG_PHASE_BACKWARD;
      g_array_set_size (sel, 0);
      g_array_set_size (rest, 0);
      for (guint32 o = ch.first_op; o < ch.first_op + ch.n_ops; o++)
        {
          const ModelOp *op = &g_array_index (prog->ops, ModelOp, o);
          if (async_tp_fused_op (op, backward))
            g_array_append_val (sel, *op);
        }
      double sel_hw = 0, full_sel_hw = 0;
      for (guint i = 0; i < sel->len; i++)
        sel_hw += g_array_index (sel, ModelOp, i).fwd_flops;
      for (guint32 o = full.first_op; o < full.first_op + full.n_ops; o++)
        {
          const ModelOp *op = &g_array_index (prog->ops, ModelOp, o);
          if (async_tp_fused_op (op, backward))
            full_sel_hw += op->fwd_flops;
          else
            g_array_append_val (rest, *op);
        }
      if (sel->len == 0 || rest->len == 0)
        continue;
      const double ch_mf = ch.hw_flops > 0 ? ch.model_flops * sel_hw / ch.hw_flops : 0;
      const double rest_mf = full.hw_flops > 0
                               ? full.model_flops * (full.hw_flops - full_sel_hw) / full.hw_flops
                               : 0;
      bd->blk_chunk[b] = prog_builder_add_block (bd, ch.kind, ch.phase, ch.name, sel, ch_mf);
      bd->blk_rest[b] = prog_builder_add_block (bd, full.kind, full.phase, full.name, rest,
                                                rest_mf);
    }
}

/* A compute block with its TP collectives overlapped (--tp-comm-overlap, Transformer
 * Engine's userbuffers): the block runs as tp_chunks pieces of the tokens; with sequence
 * parallelism the all-gathers of every piece are issued first, each piece computes once
 * its input has arrived, and each piece's reduce-scatter (or all-reduce) leaves as soon as
 * the piece is done, so the communication hides behind the next piece. Returns the last
 * collective, which the next block waits for. */
static gint32
tp_overlapped (Builder *bd, int which, ProgPhase phase, int mb, int chunk, int layer,
               gint32 prev, gint32 extra_dep, ProgRole regather_role)
{
  int n = bd->tp_chunks;
  double bytes = bd->act_bytes / n;
  gboolean sp = bd->plan->sequence_parallel;
  /* PyTorch's async TP (blk_rest): only the GEMMs fused with a collective are decomposed,
   * so a collective hides behind those GEMMs' pieces alone. Forward: the block's other
   * ops (norms, RoPE, the attention core, SwiGLU, residual) run whole, here first, and
   * the all-gather's pieces start after them (the gather feeds the first GEMMs);
   * backward: the output gradient's gather feeds the row-parallel data-gradient GEMM
   * alone, and the rest of the block (the weight gradients, which need the whole
   * gathered gradient, the core, the column-parallel GEMMs) runs whole after its last
   * piece, its input gradient reduce-scattered whole after it (plan.h
   * tp_grad_rs_whole: the pass cannot fuse it with a sum of GEMMs) */
  const guint32 rest = bd->blk_rest[which];
  if (rest != G_MAXUINT32 && phase != PROG_PHASE_BACKWARD)
    {
      prev = compute3 (bd, rest, mb, chunk, layer, prev, extra_dep, -1);
      extra_dep = -1;
    }
  gint32 ag[16];
  for (int i = 0; i < n; i++)
    ag[i] = sp ? coll (bd, PROG_STREAM_TP, PROG_COMM_TP, PLAN_COLL_ALL_GATHER, PLAN_AXIS_TP,
                       bd->tp_ag_bytes / n, phase, mb, chunk, layer, prev, -1)
               : prev;
  /* backward with SP: the block's input is re-gathered while the pieces compute their
   * data gradients (Transformer Engine overlaps it with the dgrad GEMM); the weight
   * gradient, in the last piece, needs all of it */
  gint32 rg = regather_role != PROG_ROLE_NONE ? regather (bd, regather_role, mb, chunk, layer)
                                              : -1;
  gint32 last = prev;
  if (rest != G_MAXUINT32 && phase == PROG_PHASE_BACKWARD)
    {
      for (int i = 0; i < n; i++)
        last = compute3 (bd, bd->blk_chunk[which], mb, chunk, layer, ag[i],
                         i == 0 ? extra_dep : -1, -1);
      last = compute3 (bd, rest, mb, chunk, layer, last, rg, -1);
      return coll (bd, PROG_STREAM_TP, PROG_COMM_TP,
                   sp ? PLAN_COLL_REDUCE_SCATTER : PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP,
                   bd->act_bytes, phase, mb, chunk, layer, last, -1);
    }
  /* PyTorch's async TP (plan.h tp_grad_rs_whole): the backward's input gradient is a sum
   * over the block's first GEMMs, which the micro-pipeline pass cannot split, so it is
   * reduce-scattered whole once every piece is done, and the next block waits for it */
  if (phase == PROG_PHASE_BACKWARD && bd->plan->tp_grad_rs_whole > 0)
    {
      for (int i = 0; i < n; i++)
        last = compute3 (bd, bd->blk_chunk[which], mb, chunk, layer, ag[i],
                         i == 0 ? extra_dep : -1, i == n - 1 ? rg : -1);
      return coll (bd, PROG_STREAM_TP, PROG_COMM_TP,
                   sp ? PLAN_COLL_REDUCE_SCATTER : PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP,
                   bd->act_bytes, phase, mb, chunk, layer, last, -1);
    }
  for (int i = 0; i < n; i++)
    {
      gint32 c = compute3 (bd, bd->blk_chunk[which], mb, chunk, layer, ag[i],
                           i == 0 ? extra_dep : -1, i == n - 1 ? rg : -1);
      last = coll (bd, PROG_STREAM_TP, PROG_COMM_TP,
                   sp ? PLAN_COLL_REDUCE_SCATTER : PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP, bytes,
                   phase, mb, chunk, layer, c, -1);
    }
  /* async TP's matmul-reduce-scatter moves the partial outputs, not their sum: the
   * rank sums the tp pieces it pulled in one kernel once the last has arrived
   * (async_tp_split) */
  if (rest != G_MAXUINT32 && sp && bd->async_tp_reduce != G_MAXUINT32)
    last = compute (bd, bd->async_tp_reduce, mb, chunk, layer, last, -1);
  return last;
}

/* A hybrid Mamba-2 model's layers are one part each (models/model.h layer_pattern): 'M'
 * and '*' a mixer (Mamba or attention) without an MLP, '-' an MLP without a mixer. Every
 * other model's layer has both. */
static inline gboolean
layer_has_mixer (const Builder *bd, int layer)
{
  return model_spec_layer_kind (bd->m, (guint64) layer) != '-';
}

static inline gboolean
layer_has_mlp (const Builder *bd, int layer)
{
  const char k = model_spec_layer_kind (bd->m, (guint64) layer);
  return k == 0 || k == '-';
}

/* The block of layer `layer`'s token mixer: its attention, or a Gated DeltaNet layer's
 * mixer (B_GDN_*); an index into blk / blk_chunk. */
static int
mixer_block (Builder *bd, int layer, gboolean backward)
{
  if (model_spec_layer_is_linear (bd->m, (guint64) layer))
    return backward ? B_GDN_B : B_GDN_F;
  return backward ? B_ATTN_B : B_ATTN_F;
}

/* PyTorch's context_parallel ring (plan.h cp_ring_merge) under torch.compile (plan.h
 * compile; torchtitan compiles each TransformerBlock with fullgraph=True, so the ring loop
 * is traced with the block): a functional collective traced is waited where it is issued
 * (torch/distributed/_functional_collectives.py _maybe_wrap_tensor: wait_tensor at once
 * when _are_we_tracing (); in eager an AsyncCollectiveTensor, waited at its first use),
 * and inductor leaves the wait there (torch/_inductor/config.py
 * reorder_for_compute_comm_overlap, off by default). So the K/V all-gather is waited
 * before the first ring step, forward and backward, and each K/V-gradient permute before
 * the next step: none of the ring's communication runs beside its compute. */
static gboolean
cp_traced_waits (const Builder *bd)
{
  return bd->plan->compile && bd->plan->cp_comm == PLAN_CP_ALLGATHER
         && bd->plan->cp_ring_merge > 0;
}

/* The attention of one layer, forward or backward (or a recomputed forward). */
G_ALWAYS_INLINE static inline gint32
attn_part (Builder *bd, gboolean backward, ProgPhase phase, int mb, int chunk, int layer,
           gint32 prev, gint32 extra_dep, gint32 input_dep)
{
  if (bd->c <= 1)
    {
      guint32 blk = bd->blk[mixer_block (bd, layer, backward)];
      return compute3 (bd, blk, mb, chunk, layer, prev, extra_dep, input_dep);
    }
  /* Context parallelism. Forward: pre (norm, qkv) -> exchange of K/V -> core -> post;
   * backward: post -> core -> gradient exchange -> pre. */
  PlanCpComm algo = bd->plan->cp_comm;
  double ring_bytes = (double) (bd->c - 1) * bd->kv_bytes * (backward ? 2 : 1);
  if (!backward)
    {
      gint32 pre = compute (bd, bd->blk[B_ATTN_PRE_F], mb, chunk, layer, prev, extra_dep);
      gint32 core, post_dep;
      if (algo == PLAN_CP_P2P)
        {
          /* ring attention: c - 1 passes of K/V run on the CP stream while the core
           * computes; the post block needs the last pass (Liu et al. 2023). */
          gint32 ring = coll (bd, PROG_STREAM_CP, PROG_COMM_CP, PLAN_COLL_SEND_RECV,
                              PLAN_AXIS_CP, ring_bytes, phase, mb, chunk, layer, pre, -1);
          core = compute (bd, bd->blk[B_ATTN_CORE_F], mb, chunk, layer, pre, -1);
          post_dep = ring;
        }
      else if (algo == PLAN_CP_ALLGATHER && bd->plan->cp_ring_merge > 0)
        {
          /* PyTorch's context_parallel: the all-gather is issued with the first ring
           * step (the rank's own K/V, block B_CP_FIRST_F) and the later steps wait for it
           * (_templated_ring_attention, _AllGatherRotater); compiled, the first step
           * waits for it too (cp_traced_waits) */
          gint32 ag = coll (bd, PROG_STREAM_CP, PROG_COMM_CP, PLAN_COLL_ALL_GATHER, PLAN_AXIS_CP,
                            bd->kv_bytes * bd->c, phase, mb, chunk, layer, pre, -1);
          gint32 first = compute (bd, bd->blk[B_CP_FIRST_F], mb, chunk, layer, pre,
                                  cp_traced_waits (bd) ? ag : -1);
          core = compute (bd, bd->blk[B_ATTN_CORE_F], mb, chunk, layer, first, ag);
          post_dep = -1;
        }
      else if (algo == PLAN_CP_ALLGATHER)
        {
          gint32 ag = coll (bd, PROG_STREAM_CP, PROG_COMM_CP, PLAN_COLL_ALL_GATHER, PLAN_AXIS_CP,
                            bd->kv_bytes * bd->c, phase, mb, chunk, layer, pre, -1);
          core = compute (bd, bd->blk[B_ATTN_CORE_F], mb, chunk, layer, ag, -1);
          post_dep = -1;
        }
      else
        {
          /* Ulysses: all-to-all of q, k, v in, of the output back (Jacobs et al. 2023) */
          guint64 a = bd->m->n_heads / bd->t, kv = MAX (bd->m->n_kv_heads / bd->t, 1);
          double qkv = (double) bd->tok * (a + 2 * kv) * bd->m->head_dim * bd->elt_bytes;
          double o = (double) bd->tok * a * bd->m->head_dim * bd->elt_bytes;
          gint32 in = coll (bd, PROG_STREAM_CP, PROG_COMM_CP, PLAN_COLL_ALL_TO_ALL, PLAN_AXIS_CP,
                            qkv, phase, mb, chunk, layer, pre, -1);
          core = compute (bd, bd->blk[B_ATTN_CORE_F], mb, chunk, layer, in, -1);
          core = coll (bd, PROG_STREAM_CP, PROG_COMM_CP, PLAN_COLL_ALL_TO_ALL, PLAN_AXIS_CP,
                       o, phase, mb, chunk, layer, core, -1);
          post_dep = -1;
        }
      return compute (bd, bd->blk[B_ATTN_POST_F], mb, chunk, layer, core, post_dep);
    }
  gint32 post = compute (bd, bd->blk[B_ATTN_POST_B], mb, chunk, layer, prev, extra_dep);
  gint32 core, pre_dep = -1;
  if (algo == PLAN_CP_P2P)
    {
      /* K/V and their gradients travel the ring during the core's backward */
      gint32 ring = coll (bd, PROG_STREAM_CP, PROG_COMM_CP, PLAN_COLL_SEND_RECV, PLAN_AXIS_CP,
                          ring_bytes, phase, mb, chunk, layer, post, -1);
      core = compute (bd, bd->blk[B_ATTN_CORE_B], mb, chunk, layer, post, -1);
      pre_dep = ring;
    }
  else if (algo == PLAN_CP_ALLGATHER && bd->plan->cp_ring_merge > 0)
    {
      /* PyTorch's ring backward: K/V all-gathered again beside the first step (block
       * B_CP_FIRST_B), which the later steps wait for, and the
       * fp32 K/V gradient sums passed on to the next rank after each of the c steps
       * (all_to_all permutes, dkv_rotater), twice the bf16 bytes: the first c - 1 while
       * the later steps compute, the last one after the last step, which the rank waits
       * for before the pre block (dkv_rotater.next_buffer () after the loop). Compiled
       * (cp_traced_waits), the first step waits for the all-gather and each later step
       * for the permute before it: the c - 1 permutes run between the steps, not beside
       * them (taken together, before the later steps: the same sum) */
      const gboolean waited = cp_traced_waits (bd);
      gint32 ag = coll (bd, PROG_STREAM_CP, PROG_COMM_CP, PLAN_COLL_ALL_GATHER, PLAN_AXIS_CP,
                        bd->kv_bytes * bd->c, phase, mb, chunk, layer, post, -1);
      gint32 first = compute (bd, bd->blk[B_CP_FIRST_B], mb, chunk, layer, post,
                              waited ? ag : -1);
      gint32 ring = coll (bd, PROG_STREAM_CP, PROG_COMM_CP, PLAN_COLL_SEND_RECV, PLAN_AXIS_CP,
                          (double) (bd->c - 1) * bd->kv_bytes * 2.0, phase, mb, chunk, layer,
                          first, ag);
      core = compute (bd, bd->blk[B_ATTN_CORE_B], mb, chunk, layer, first, waited ? ring : ag);
      pre_dep = coll (bd, PROG_STREAM_CP, PROG_COMM_CP, PLAN_COLL_SEND_RECV, PLAN_AXIS_CP,
                      bd->kv_bytes * 2.0, phase, mb, chunk, layer, core, ring);
    }
  else if (algo == PLAN_CP_ALLGATHER)
    {
      gint32 ag = coll (bd, PROG_STREAM_CP, PROG_COMM_CP, PLAN_COLL_ALL_GATHER, PLAN_AXIS_CP,
                        bd->kv_bytes * bd->c, phase, mb, chunk, layer, post, -1);
      core = compute (bd, bd->blk[B_ATTN_CORE_B], mb, chunk, layer, ag, -1);
      core = coll (bd, PROG_STREAM_CP, PROG_COMM_CP, PLAN_COLL_REDUCE_SCATTER, PLAN_AXIS_CP,
                   bd->kv_bytes * bd->c, phase, mb, chunk, layer, core, -1);
    }
  else
    {
      guint64 a = bd->m->n_heads / bd->t, kv = MAX (bd->m->n_kv_heads / bd->t, 1);
      double qkv = (double) bd->tok * (a + 2 * kv) * bd->m->head_dim * bd->elt_bytes;
      double o = (double) bd->tok * a * bd->m->head_dim * bd->elt_bytes;
      gint32 in = coll (bd, PROG_STREAM_CP, PROG_COMM_CP, PLAN_COLL_ALL_TO_ALL, PLAN_AXIS_CP,
                        o, phase, mb, chunk, layer, post, -1);
      core = compute (bd, bd->blk[B_ATTN_CORE_B], mb, chunk, layer, in, -1);
      core = coll (bd, PROG_STREAM_CP, PROG_COMM_CP, PLAN_COLL_ALL_TO_ALL, PLAN_AXIS_CP,
                   qkv, phase, mb, chunk, layer, core, -1);
    }
  return compute3 (bd, bd->blk[B_ATTN_PRE_B], mb, chunk, layer, core, pre_dep, input_dep);
}

static gboolean
layer_recomputed (Builder *bd, int layer_in_chunk)
{
  const Plan *p = bd->plan;
  if (p->recompute != PLAN_RECOMPUTE_FULL)
    return FALSE;
  /* an MTP module is recomputed under the uniform method only (Megatron-Core
   * MultiTokenPredictionLayer._checkpointed_forward: "block" warns and runs it plainly) */
  if (bd->in_mtp)
    return p->recompute_method != PLAN_RECOMPUTE_BLOCK;
  if (p->recompute_method == PLAN_RECOMPUTE_BLOCK)
    return layer_in_chunk < p->recompute_num_layers;
  return TRUE;   /* uniform: every layer is inside some checkpointed group */
}

static gboolean
zero3 (Builder *bd)
{
  return bd->plan->sharding == PLAN_SHARD_ZERO3 || bd->plan->sharding == PLAN_SHARD_HSDP;
}

/* ZeRO-2 with sharded gradients: each micro-batch's gradients are reduce-scattered to
 * their owners' shards in its backward (plan.h zero2_grad_sync), not once per step */
static gboolean
zero2_per_mb (Builder *bd)
{
  return bd->plan->sharding == PLAN_SHARD_ZERO2 && bd->plan->zero2_grad_sync > 0;
}

static PlanAxis
shard_axis (Builder *bd)
{
  if (bd->plan->sharding == PLAN_SHARD_HSDP)
    return PLAN_AXIS_DP_SHARD;
  return bd->plan->cp > 1 ? PLAN_AXIS_CPDP : PLAN_AXIS_DP;
}

/* PyTorch FSDP1's gradient pre-divide factor for a reduction over n ranks
 * (torch/distributed/algorithms/_comm_hooks/default_hooks.py,
 * DefaultState._get_gradient_predivide_factor): the power of two that doubles while it
 * divides n and stays below n / factor. 128 -> 16, 64 -> 8, 2 -> 2, 1 -> 1. */
int
prog_fsdp_predivide_factor (int n)
{
  int factor = 1;
  while (n > 0 && n % factor == 0 && n / factor > factor)
    factor *= 2;
  return factor;
}

/* Bytes read and written per parameter by FSDP1's passes over an unsharded gradient
 * before its reduce-scatter (plan.h zero2_reduce_passes), each a plain streaming pass:
 *  - the cast to the reduce dtype, where it differs from the dtype autograd produced
 *    (the parameters'): _post_backward_hook, "flat_param.grad.data =
 *    flat_param.grad.to(handle._reduce_dtype)", reads the parameter dtype and writes the
 *    gradient dtype (bf16 -> fp32: 2 + 4 B);
 *  - the pre-divide: _reduce_grad, "_div_if_needed(padded_unsharded_grad,
 *    state._gradient_predivide_factor)", an in-place div_ whenever the factor is above 1
 *    (every shard group of 2 or more), reading and writing the gradient dtype (4 + 4 B).
 * The post-divide (after the reduce-scatter, on the 1/n shard) and the sharded
 * accumulation are left out: n times smaller. FSDP1 runs both passes on its post-backward
 * stream; they are taken here on the compute stream, after the layer's backward, as
 * FSDP2's copy-in is (zero3_copy_in_out): memory-bound kernels that need the SMs to pull
 * HBM bandwidth, so beside the next layer's GEMMs they take about their own time from
 * them (D); where the compute waits on a TP collective they fill the gap, as on the
 * GPU. bf16 parameters with fp32 reduction over 128 ranks: 6 + 8 = 14 B per parameter. */
static double
reduce_passes_bytes (Builder *bd)
{
  const Plan *p = bd->plan;
  const double pb = plan_precision_bytes (p->param_dtype);
  const double gb = bd->grad_bytes_per_param;
  const int n = MAX (p->dp, 1) * (p->cp > 1 ? p->cp : 1);
  double bytes = 0;
  if (gb != pb)
    bytes += pb + gb;
  if (prog_fsdp_predivide_factor (n) > 1)
    bytes += 2 * gb;
  return bytes;
}

/* A block of one such pass (fsdp_copy: `elements` are the bytes moved). */
static guint32
reduce_pass_block (Builder *bd, double bytes)
{
  g_autoptr (GArray) ops = g_array_new (FALSE, TRUE, sizeof (ModelOp));
  prog_builder_elem (ops, "fsdp_copy", MODEL_OP_ELEMENTWISE, (guint64) (bytes + 0.5), 0);
  return prog_builder_add_block (bd, PROG_BLOCK_GRAD_ACCUM, PROG_PHASE_BACKWARD,
                                 "fsdp_reduce_passes", ops, 0);
}

/* Whether a ZeRO-3 layer gather can be prefetched: FSDP gathers the next module while
 * the current one computes; DeepSpeed prefetches at most stage3_prefetch_bucket_size
 * parameters (default 5e7, DeepSpeed's config documentation), less than one layer of a
 * large model, so such a layer's gather waits for the compute before it. */
static gboolean
gather_prefetched (Builder *bd, int layer)
{
  const double ahead = bd->plan->zero3_prefetch_params;
  return !(ahead > 0) || bd->layer_params_local[layer] <= ahead;
}

/* ZeRO-3 / FSDP parameter gather for one layer, prefetched: it may start once the
 * compute two layers back has finished (one gathered layer in flight ahead); without
 * prefetch (gather_prefetched) once the compute before it has. */
static double
layer_gather_bytes (Builder *bd, int layer)
{
  /* FSDP float8 all-gather: the linear weights travel as 1-byte fp8, the rest (norms) in
   * the parameter dtype */
  const double pb = plan_precision_bytes (bd->plan->param_dtype);
  const double f8 = bd->layer_fp8_params_local[layer];
  return (bd->layer_params_local[layer] - f8) * pb + f8 * 1.0;
}

static gint32
param_gather (Builder *bd, ProgPhase phase, int mb, int chunk, int layer, gint32 window_dep)
{
  return coll (bd, PROG_STREAM_DP, PROG_COMM_DP, PLAN_COLL_ALL_GATHER, shard_axis (bd),
               layer_gather_bytes (bd, layer), phase, mb, chunk, layer, window_dep, -1);
}

/* ZeRO-3 / FSDP of an MoE layer's experts: this rank's expert weights (split over ep and
 * etp) are sharded over the expert data-parallel group, so they are gathered over edp
 * before the layer's experts run (forward and backward), with the same prefetch window as
 * the layer's dense part; -1 for a dense layer. */
static gint32
expert_param_gather (Builder *bd, ProgPhase phase, int mb, int chunk, int layer,
                     gint32 window_dep)
{
  double elems = bd->layer_expert_params_local[layer];
  if (!(elems > 0))
    return -1;
  return coll (bd, PROG_STREAM_DP, PROG_COMM_DP, PLAN_COLL_ALL_GATHER, PLAN_AXIS_EDP,
               elems * plan_precision_bytes (bd->plan->param_dtype), phase, mb, chunk, layer,
               window_dep, -1);
}

/* ... and their gradients reduce-scattered over edp after every backward of the layer. */
static void
expert_grad_scatter (Builder *bd, int mb, int chunk, int layer, gint32 dep)
{
  double elems = bd->layer_expert_params_local[layer];
  if (elems > 0)
    coll (bd, PROG_STREAM_DP, PROG_COMM_DP, PLAN_COLL_REDUCE_SCATTER, PLAN_AXIS_EDP,
          elems * bd->grad_bytes_per_param, PROG_PHASE_BACKWARD, mb, chunk, layer, dep, -1);
}

typedef struct {
  gint32 last_compute;     /* last task of the unit so far (the chain) */
  gint32 done[3];          /* compute tasks of the last layers, for prefetch windows */
  gint32 regather;         /* backward with SP: the re-gather of the MLP input of layer */
  int    regather_layer;   /* regather_layer, issued one block ahead (-1 none yet) */
  gint32 ag_next, eag_next; /* ZeRO-3 backward: the gathers of ag_layer (dense part and
                            * experts), issued a layer ahead (gather_ahead) */
  int    ag_layer;         /* -1 none */
} Chain;

/* Whether the backward issues the next layer's prefetched ZeRO-3 gather before this
 * layer's gradient reduce-scatter. FSDP implementations that prefetch gather on their own
 * stream and issue the next layer's gather in the current layer's pre-backward hook, before
 * its post-backward reduce-scatter (PyTorch FSDP2: separate all-gather and reduce-scatter
 * streams; Megatron-FSDP megatron_fsdp.py: side_stream_for_param_gather apart from the
 * reduce-scatter stream, and docs/runtime_schedule.md: "AG_{i-1} needs to be prefetched
 * before DO_i and RS_i"), so the gather does not wait behind a reduce-scatter. Both
 * streams drive the same links, so the one DP stream here keeps them in that issue order
 * (the links carry the same bytes one after the other); only the order changes. */
static gboolean
gather_ahead (Builder *bd, int layer)
{
  return bd->plan->zero3_gather_ahead > 0 && gather_prefetched (bd, layer);
}


/* ---- mixture of experts (program.h: the MoE layer) ---------------------------------- */

static gboolean
moe_layer (Builder *bd, int layer)
{
  return plan_moe_layer (&bd->moe, layer);
}

/* An MoE collective on the ep stream. */
static gint32
ep_coll (Builder *bd, PlanColl kind, PlanAxis axis, double bytes, ProgPhase phase, int mb,
         int chunk, int layer, gint32 dep)
{
  return coll (bd, PROG_STREAM_EP, PROG_COMM_EP, kind, axis, bytes, phase, mb, chunk, layer,
               dep, -1);
}

/* Bytes of the dispatch (and of the combine, its mirror) per rank: the T k routed copies
 * of h elements, scaled by the pace (the busiest rank receives pace x the mean). DeepEP's
 * flex dispatcher sends a token once per remote node however many of its k experts live
 * there, and forwards it inside the node over NVLink: with N nodes in the EP group and
 * uniform routing, a token reaches N (1 - (1 - 1/N)^k) distinct nodes instead of k
 * copies, so the bytes shrink by that ratio (the remote part dominates the time).
 * DeepEP's node is a server (topology level 0). HybridEP's is an NVLink domain
 * (DeepEP hybrid-ep branch, csrc/hybrid_ep/config.cuh: NUM_OF_NODES counts NVLink
 * domains, NUM_OF_RANKS_PER_NODE the ranks in one; with USE_MNNVL the ranks per domain
 * are NUM_OF_HYBRID_EP_RANKS_PER_NVLINK_DOMAIN; U: a Megatron-Bridge performance-
 * launcher test has GB200 with EP 32 get 32 ranks a domain, NVLINK_DOMAIN_SIZE 72 and
 * USE_MNNVL 1, H100 with EP 4 get 4 ranks, domain 8, no MNNVL): its level is
 * topo_cluster_scale_up_level, so an EP group inside one NVL72 rack has one node and no
 * shrink, where a 4-GPU tray counted as a node would shrink it. */
static double
moe_a2a_bytes (Builder *bd)
{
  const ProgMoe *pm = &bd->prog->moe;
  double bytes = (double) pm->tokens * pm->top_k * (double) bd->m->hidden * bd->elt_bytes
                 * pm->pace;
  const PlanGroupInfo *g = &bd->layout->groups[PLAN_AXIS_EP];
  guint lvl = 0;
  if (pm->flex_backend == PLAN_MOE_FLEX_HYBRIDEP && bd->layout->cluster != NULL)
    lvl = MIN (topo_cluster_scale_up_level (bd->layout->cluster),
               G_N_ELEMENTS (g->members_per_unit) - 1);
  if (pm->dispatcher == PLAN_MOE_FLEX && g->size > 1 && g->members_per_unit[lvl] < g->size)
    {
      double nodes = (double) g->size / MAX (g->members_per_unit[lvl], 1);
      double distinct = nodes * (1.0 - pow (1.0 - 1.0 / nodes, pm->top_k));
      bytes *= MIN (distinct / pm->top_k, 1.0);
    }
  return bytes;
}

/* Bytes of the all-to-all toward the experts (the dispatch, and in the backward the
 * combine's gradient): moe_a2a_bytes, or, where the stack sends FP8 tokens (plan.h
 * fp8_moe_dispatch; DeepSeek-V3 report, arXiv 2412.19437, Sec. 3.3.3 "Low-Precision
 * Communication": the activation before the MoE up-projections is quantized to FP8
 * before the dispatch, and so is the activation gradient before the down-projections;
 * the forward and backward combine components stay BF16), 1 B per element plus one fp32
 * scale per 1x128 tile (4/128 B) in place of elt_bytes. */
static double
moe_dispatch_bytes (Builder *bd)
{
  const Plan *p = bd->plan;
  double bytes = moe_a2a_bytes (bd);
  if (p->fp8_moe_dispatch > 0 && p->compute_dtype == PLAN_PREC_FP8 && bd->elt_bytes > 0)
    bytes *= (1.0 + 4.0 / 128.0) / bd->elt_bytes;
  return bytes;
}

/* The shared expert as a TP block: gather the sequence shards, compute, reduce-scatter. */
static gint32
moe_shared (Builder *bd, gboolean backward, ProgPhase phase, int mb, int chunk, int layer,
            gint32 dep)
{
  gint32 x = tp_before (bd, phase, mb, chunk, layer, dep);
  x = compute (bd, bd->blk[backward ? B_MOE_SHARED_B : B_MOE_SHARED_F], mb, chunk, layer, x,
               -1);
  return tp_after (bd, phase, mb, chunk, layer, x);
}

/* Dispatch (or, backward, the combine's gradient) from `dep` to the experts' input. */
static gint32
moe_to_experts (Builder *bd, ProgPhase phase, int mb, int chunk, int layer, gint32 dep)
{
  const ProgMoe *pm = &bd->prog->moe;
  double per_copy = (double) pm->tokens * (double) bd->m->hidden * bd->elt_bytes;
  if (pm->dispatcher == PLAN_MOE_ALLGATHER)
    /* every token of the etp x ep group, gathered (nccl-tests size: the output) */
    return ep_coll (bd, PLAN_COLL_ALL_GATHER, PLAN_AXIS_EXPT,
                    per_copy * bd->layout->groups[PLAN_AXIS_EXPT].size, phase, mb, chunk,
                    layer, dep);
  gint32 x = ep_coll (bd, PLAN_COLL_ALL_TO_ALL, PLAN_AXIS_EP, moe_dispatch_bytes (bd), phase,
                      mb, chunk, layer, dep);
  /* the received copies gathered over the expert-TP group */
  return ep_coll (bd, PLAN_COLL_ALL_GATHER, PLAN_AXIS_ETP,
                  moe_dispatch_bytes (bd) * bd->layout->groups[PLAN_AXIS_ETP].size, phase, mb,
                  chunk, layer, x);
}

static gint32
moe_from_experts (Builder *bd, ProgPhase phase, int mb, int chunk, int layer, gint32 dep)
{
  const ProgMoe *pm = &bd->prog->moe;
  double per_copy = (double) pm->tokens * (double) bd->m->hidden * bd->elt_bytes;
  if (pm->dispatcher == PLAN_MOE_ALLGATHER)
    return ep_coll (bd, PLAN_COLL_REDUCE_SCATTER, PLAN_AXIS_EXPT,
                    per_copy * bd->layout->groups[PLAN_AXIS_EXPT].size, phase, mb, chunk,
                    layer, dep);
  gint32 x = ep_coll (bd, PLAN_COLL_REDUCE_SCATTER, PLAN_AXIS_ETP,
                      moe_a2a_bytes (bd) * bd->layout->groups[PLAN_AXIS_ETP].size, phase, mb,
                      chunk, layer, dep);
  return ep_coll (bd, PLAN_COLL_ALL_TO_ALL, PLAN_AXIS_EP, moe_a2a_bytes (bd), phase, mb, chunk,
                  layer, x);
}

/* The MoE MLP of one layer, forward (or recomputed): returns its last task. `ag` is the
 * overlapped ZeRO-1/2 gather of the layer's experts (-1 none). The experts wait for
 * their dispatch and the unpermute for its combine, overlapped or not: with
 * --overlap-moe-expert-parallel-comm the all-to-alls hide behind the compute of the
 * other unit of a combined 1F1B pair (expand_pair), not behind this micro-batch's. */
static gint32
moe_forward (Builder *bd, ProgPhase phase, int mb, int chunk, int layer, gint32 prev,
             gint32 ag)
{
  gboolean shared = bd->prog->moe.shared_ffn > 0;
  gboolean overlap = shared && bd->plan->moe_shared_expert_overlap;
  gboolean a2a = bd->a2a_next_layer;
  gint32 r = compute (bd, bd->blk[B_MOE_ROUTE_F], mb, chunk, layer, prev,
                      a2a ? bd->moe_a2a_pending : -1);
  pair_node (bd, NODE_F_DISPATCH, FALSE);
  gint32 d = moe_to_experts (bd, phase, mb, chunk, layer, r);
  pair_node (bd, NODE_F_MLP, FALSE);
  gint32 sh = overlap ? moe_shared (bd, FALSE, phase, mb, chunk, layer, r) : -1;
  gint32 e = compute (bd, bd->blk[B_MOE_EXPERTS_F], mb, chunk, layer, a2a ? r : d, ag);
  pair_node (bd, NODE_F_COMBINE, FALSE);
  gint32 c = moe_from_experts (bd, phase, mb, chunk, layer, e);
  pair_node (bd, NODE_F_UNPERMUTE, FALSE);
  gint32 o = compute (bd, bd->blk[B_MOE_COMBINE_F], mb, chunk, layer, a2a ? e : c, sh);
  if (a2a)
    bd->moe_a2a_pending = c;
  if (shared && !overlap)   /* Megatron: the shared expert after the routed ones */
    o = moe_shared (bd, FALSE, phase, mb, chunk, layer, o);
  return o;
}

/* --recompute-modules moe: the MoE MLP's forward (router, dispatch, experts, combine,
 * the shared expert) again before its backward, from the checkpointed input `prev`; a
 * layer recomputed whole (full recompute) has just run it. */
static gint32
moe_recompute (Builder *bd, int mb, int chunk, int layer, int layer_in_chunk, gint32 prev)
{
  if (!(bd->plan->moe_recompute & PLAN_MOE_RECOMPUTE_LAYER)
      || layer_recomputed (bd, layer_in_chunk))
    return prev;
  bd->recomputing = TRUE;
  gint32 x = moe_forward (bd, PROG_PHASE_RECOMPUTE, mb, chunk, layer, prev, -1);
  bd->recomputing = FALSE;
  return x;
}

/* The mirror image; returns the route's backward (the layer's MLP input gradient). */
static gint32
moe_backward (Builder *bd, int mb, int chunk, int layer, gint32 prev, gint32 ag, gint32 eag)
{
  const ProgPhase ph = PROG_PHASE_BACKWARD;
  gboolean shared = bd->prog->moe.shared_ffn > 0;
  gboolean overlap = shared && bd->plan->moe_shared_expert_overlap;
  gint32 x = prev;
  if (shared && !overlap)
    x = moe_shared (bd, TRUE, ph, mb, chunk, layer, x);
  gboolean a2a = bd->a2a_next_layer;
  gint32 c = compute3 (bd, bd->blk[B_MOE_COMBINE_B], mb, chunk, layer, x, ag,
                       a2a ? bd->moe_a2a_pending : -1);
  gint32 d = moe_to_experts (bd, ph, mb, chunk, layer, c);
  pair_node (bd, NODE_B_MLP, TRUE);
  gint32 sh = overlap ? moe_shared (bd, TRUE, ph, mb, chunk, layer, c) : -1;
  gint32 e = compute (bd, bd->blk[B_MOE_EXPERTS_B], mb, chunk, layer, a2a ? c : d, eag);
  pair_node (bd, NODE_B_DISPATCH, TRUE);
  gint32 r = moe_from_experts (bd, ph, mb, chunk, layer, e);
  if (a2a)
    bd->moe_a2a_pending = r;
  pair_node (bd, NODE_B_ATTN, TRUE);
  return compute (bd, bd->blk[B_MOE_ROUTE_B], mb, chunk, layer, a2a ? e : r, sh);
}

/* The first and last micro-batch a rank's chunk runs: 0 and m - 1, or under DualPipe
 * (sched-dualpipe.c) the half of the micro-batches of the chunk's direction. */
static inline int
chunk_first_mb (const Builder *bd, int chunk)
{
  return bd->plan->schedule == PLAN_SCHED_DUALPIPE && chunk == 1 ? bd->m_micro / 2 : 0;
}

static inline int
chunk_last_mb (const Builder *bd, int chunk)
{
  return bd->plan->schedule == PLAN_SCHED_DUALPIPE && chunk == 0 ? bd->m_micro / 2 - 1
                                                                 : bd->m_micro - 1;
}

static void
forward_layer (Builder *bd, ProgPhase phase, int mb, int chunk, int layer, Chain *ch)
{
  gint32 ag = -1;
  pair_node (bd, NODE_F_ATTN, FALSE);
  if (zero3 (bd) && phase == PROG_PHASE_FORWARD)
    {
      ag = param_gather (bd, phase, mb, chunk, layer,
                         gather_prefetched (bd, layer) ? ch->done[1] : ch->last_compute);
      /* FSDP2's pre-forward hook copies the gathered layer out of the all-gather buffer
       * into its parameters on the compute stream, once the gather is done */
      if (bd->copy_out_blk != NULL)
        ag = compute (bd, bd->copy_out_blk[layer], mb, chunk, layer, ag, -1);
    }
  else if (bd->param_ag_of_layer[layer] >= 0 && mb == chunk_first_mb (bd, chunk)
           && phase == PROG_PHASE_FORWARD)
    ag = bd->param_ag_of_layer[layer];
  else if (phase == PROG_PHASE_RECOMPUTE)
    ag = bd->recompute_ag;
  gint32 eag = bd->expert_ag_of_layer[layer] >= 0 && mb == chunk_first_mb (bd, chunk)
               && phase == PROG_PHASE_FORWARD
               ? bd->expert_ag_of_layer[layer] : -1;
  if (phase == PROG_PHASE_RECOMPUTE)
    eag = bd->recompute_eag;
  if (zero3 (bd) && phase == PROG_PHASE_FORWARD && moe_layer (bd, layer))
    eag = expert_param_gather (bd, phase, mb, chunk, layer,
                               gather_prefetched (bd, layer) ? ch->done[1] : ch->last_compute);
  gint32 x;
  const gboolean mixer = layer_has_mixer (bd, layer), mlp = layer_has_mlp (bd, layer);
  if (bd->tp_chunks > 1)
    {
      x = ch->last_compute;
      if (mixer)
        x = bd->c > 1 ? tp_after (bd, phase, mb, chunk, layer,
                                  attn_part (bd, FALSE, phase, mb, chunk, layer,
                                             tp_before (bd, phase, mb, chunk, layer, x), ag,
                                             -1))
                      : tp_overlapped (bd, mixer_block (bd, layer, FALSE), phase, mb, chunk,
                                       layer, x, ag, PROG_ROLE_NONE);
      if (mlp)
        x = moe_layer (bd, layer) ? moe_forward (bd, phase, mb, chunk, layer, x, eag)
                                  : tp_overlapped (bd, B_MLP_F, phase, mb, chunk, layer, x,
                                                   mixer ? -1 : ag, PROG_ROLE_NONE);
      ch->done[1] = ch->done[0];
      ch->done[0] = x;
      ch->last_compute = x;
      return;
    }
  x = ch->last_compute;
  if (mixer)
    {
      x = tp_before (bd, phase, mb, chunk, layer, x);
      x = attn_part (bd, FALSE, phase, mb, chunk, layer, x, ag, -1);
      if (!mlp)   /* a Mamba or attention layer of a hybrid: the layer ends here */
        {
          ch->done[1] = ch->done[0];
          ch->done[0] = x;
          ch->last_compute = tp_after (bd, phase, mb, chunk, layer, x);
          return;
        }
      x = tp_after (bd, phase, mb, chunk, layer, x);
    }
  if (moe_layer (bd, layer))
    {
      x = moe_forward (bd, phase, mb, chunk, layer, x, eag);
      ch->done[1] = ch->done[0];
      ch->done[0] = x;
      ch->last_compute = x;
      return;
    }
  x = tp_before (bd, phase, mb, chunk, layer, x);
  x = compute (bd, bd->blk[B_MLP_F], mb, chunk, layer, x, mixer ? -1 : ag);
  ch->done[1] = ch->done[0];
  ch->done[0] = x;
  x = tp_after (bd, phase, mb, chunk, layer, x);
  ch->last_compute = x;
}

static void
backward_layer (Builder *bd, int mb, int chunk, int layer, int layer_in_chunk, Chain *ch)
{
  gint32 ag = -1, eag = -1;
  pair_node (bd, moe_layer (bd, layer) ? NODE_B_COMBINE : NODE_B_ATTN, TRUE);
  if (zero3 (bd) && ch->ag_layer == layer)
    {
      ag = ch->ag_next;
      eag = ch->eag_next;
    }
  else
    {
      if (zero3 (bd))
        ag = param_gather (bd, PROG_PHASE_BACKWARD, mb, chunk, layer,
                           gather_prefetched (bd, layer) ? ch->done[1] : ch->last_compute);
      if (zero3 (bd) && moe_layer (bd, layer))
        eag = expert_param_gather (bd, PROG_PHASE_BACKWARD, mb, chunk, layer,
                                   gather_prefetched (bd, layer) ? ch->done[1]
                                                                 : ch->last_compute);
    }
  ch->ag_layer = -1;
  /* FSDP2's copy of the re-gathered layer out of the all-gather buffer, on the compute
   * stream before the layer's recompute and backward; it waits for the gather as the
   * recompute below does (the backward itself waits for `ag` in any case) */
  if (bd->copy_out_blk != NULL && ag >= 0)
    compute (bd, bd->copy_out_blk[layer], mb, chunk, layer,
             !gather_prefetched (bd, layer) || gather_ahead (bd, layer) ? ag : -1, -1);
  /* the next layer of the chunk's backward (layer - 1), gathered now, before this layer's
   * reduce-scatter; its window is the same as when issued at its own turn (the compute
   * two layers before it, done[0] here) */
  if (zero3 (bd) && layer_in_chunk > 0 && gather_ahead (bd, layer - 1))
    {
      ch->ag_next = param_gather (bd, PROG_PHASE_BACKWARD, mb, chunk, layer - 1, ch->done[0]);
      ch->eag_next = moe_layer (bd, layer - 1)
                       ? expert_param_gather (bd, PROG_PHASE_BACKWARD, mb, chunk, layer - 1,
                                              ch->done[0])
                       : -1;
      ch->ag_layer = layer - 1;
    }
  if (layer_recomputed (bd, layer_in_chunk))
    {
      /* the recomputed forward repeats the layer's TP collectives too */
      Chain rc = *ch;
      /* the recomputed forward reads the layer's parameters. A layer gathered without
       * prefetch (DeepSpeed 2021: its pre-forward hook fetches the parameters when the
       * recompute reaches the layer, each tensor's all_gather issued after a
       * torch.cuda.synchronize () in partition_parameters.py _allgather_param) waits
       * for its gather, as does everything after it. A prefetched gather (FSDP) was
       * issued a layer ahead on FSDP's own all-gather stream, which the single in-order
       * DP stream here cannot express (it would queue the gather behind the previous
       * layer's gradient reduce-scatter): there the recompute does not wait, unless the
       * gather was issued ahead of that reduce-scatter (gather_ahead), where it waits as
       * it does on the GPU. */
      const gboolean waits = !gather_prefetched (bd, layer) || gather_ahead (bd, layer);
      bd->recompute_ag = waits ? ag : -1;
      bd->recompute_eag = waits ? eag : -1;
      bd->recomputing = TRUE;
      forward_layer (bd, PROG_PHASE_RECOMPUTE, mb, chunk, layer, &rc);
      bd->recomputing = FALSE;
      bd->recompute_ag = bd->recompute_eag = -1;
      ch->last_compute = rc.last_compute;
      /* DeepSpeed releases a parameter after its use unless it is used again within
       * stage3_max_reuse_distance parameters (default 1e9, DeepSpeed's config
       * documentation); between a layer's recompute and its backward that distance is
       * the layer itself, so a larger layer is gathered a second time */
      const double reuse = bd->plan->zero3_reuse_params;
      if (ag >= 0 && reuse > 0 && bd->layer_params_local[layer] > reuse)
        ag = param_gather (bd, PROG_PHASE_BACKWARD, mb, chunk, layer, ch->last_compute);
    }
  else if (bd->plan->recompute == PLAN_RECOMPUTE_SELECTIVE
           && !model_spec_layer_is_linear (bd->m, (guint64) layer)   /* no core to redo */
           && layer_has_mixer (bd, layer))
    ch->last_compute = compute (bd, bd->blk[B_RECOMP_ATTN_CORE], mb, chunk, layer,
                                ch->last_compute, -1);
  else if (bd->plan->recompute == PLAN_RECOMPUTE_SELECTIVE_OP && bd->blk[B_RECOMP_SAC_OP] != G_MAXUINT32
           && !moe_layer (bd, layer))
    ch->last_compute = compute (bd, bd->blk[B_RECOMP_SAC_OP], mb, chunk, layer,
                                ch->last_compute, -1);
  /* SP: the inputs of the two blocks are re-gathered for the backward (regather). Without
   * the overlapped path, as tasks issued one block ahead (the MLP's of the chunk's last
   * layer here); the overlapped path issues them with the block's pieces. */
  gboolean sp = bd->t > 1 && bd->plan->sequence_parallel;
  gboolean ahead = sp && bd->tp_chunks <= 1;
  gint32 rg_mlp = -1, rg_attn = -1, rg_next = -1;
  gboolean moe = moe_layer (bd, layer);
  const gboolean mixer = layer_has_mixer (bd, layer), mlp = layer_has_mlp (bd, layer);
  if (ahead && !moe && mlp)   /* an MoE layer's router reads its sequence shard: nothing to gather */
    rg_mlp = ch->regather_layer == layer ? ch->regather
                                         : regather (bd, PROG_ROLE_REGATHER_MLP, mb, chunk, layer);
  /* (a fully recomputed layer rebuilds its MLP input in its recompute, so its re-gather
   * waits until after that, at the start of its backward) */
  ProgRole next_role = ahead && layer_in_chunk > 0 && !layer_recomputed (bd, layer_in_chunk - 1)
                       && !moe_layer (bd, layer - 1) && layer_has_mlp (bd, layer - 1)
                         ? PROG_ROLE_REGATHER_MLP : PROG_ROLE_NONE;
  gint32 x, after = -1;
  if (bd->tp_chunks > 1)
    {
      x = moe ? moe_backward (bd, mb, chunk, layer,
                              moe_recompute (bd, mb, chunk, layer, layer_in_chunk,
                                             ch->last_compute), ag, eag)
          : !mlp ? ch->last_compute
              : tp_overlapped (bd, B_MLP_B, PROG_PHASE_BACKWARD, mb, chunk, layer,
                               ch->last_compute, ag, sp ? PROG_ROLE_REGATHER_MLP : PROG_ROLE_NONE);
      if (!mixer)
        after = x;
      else if (bd->c > 1)
        {
          x = tp_before (bd, PROG_PHASE_BACKWARD, mb, chunk, layer, x);
          if (sp)   /* runs during the attention's post and core pieces */
            rg_attn = regather (bd, PROG_ROLE_REGATHER_ATTN, mb, chunk, layer);
          x = attn_part (bd, TRUE, PROG_PHASE_BACKWARD, mb, chunk, layer, x, -1, rg_attn);
          after = tp_after (bd, PROG_PHASE_BACKWARD, mb, chunk, layer, x);
        }
      else
        x = after = tp_overlapped (bd, mixer_block (bd, layer, TRUE), PROG_PHASE_BACKWARD, mb,
                                   chunk, layer, x, mlp ? -1 : ag,
                                   sp ? PROG_ROLE_REGATHER_ATTN : PROG_ROLE_NONE);
    }
  else
    {
      if (moe)
        {
          x = moe_backward (bd, mb, chunk, layer,
                            moe_recompute (bd, mb, chunk, layer, layer_in_chunk,
                                           ch->last_compute), ag, eag);
          if (ahead)
            rg_attn = regather (bd, PROG_ROLE_REGATHER_ATTN, mb, chunk, layer);
        }
      else if (mlp)
        {
          x = tp_before (bd, PROG_PHASE_BACKWARD, mb, chunk, layer, ch->last_compute);
          x = compute3 (bd, bd->blk[B_MLP_B], mb, chunk, layer, x, ag, rg_mlp);
          if (ahead && mixer)
            rg_attn = regather (bd, PROG_ROLE_REGATHER_ATTN, mb, chunk, layer);
          if (!mixer)   /* an MLP layer of a hybrid: the layer ends here */
            {
              if (next_role != PROG_ROLE_NONE)
                rg_next = regather (bd, next_role, mb, chunk, layer - 1);
              after = tp_after (bd, PROG_PHASE_BACKWARD, mb, chunk, layer, x);
            }
          else
            x = tp_after (bd, PROG_PHASE_BACKWARD, mb, chunk, layer, x);
        }
      else
        {
          x = ch->last_compute;
          if (ahead)
            rg_attn = regather (bd, PROG_ROLE_REGATHER_ATTN, mb, chunk, layer);
        }
      if (mixer)
        {
          x = tp_before (bd, PROG_PHASE_BACKWARD, mb, chunk, layer, x);
          x = attn_part (bd, TRUE, PROG_PHASE_BACKWARD, mb, chunk, layer, x, mlp ? -1 : ag,
                         rg_attn);
          if (next_role != PROG_ROLE_NONE)
            rg_next = regather (bd, next_role, mb, chunk, layer - 1);
          after = tp_after (bd, PROG_PHASE_BACKWARD, mb, chunk, layer, x);
        }
    }
  ch->regather = rg_next;
  ch->regather_layer = next_role != PROG_ROLE_NONE ? layer - 1 : -1;
  ch->done[1] = ch->done[0];
  ch->done[0] = x;
  if (zero3 (bd) || zero2_per_mb (bd))
    {
      /* gradients of a sharded layer are reduce-scattered after every micro-batch (ZeRO-3,
       * and ZeRO-2 with sharded gradients: in the gradient dtype, over the DP group) */
      double bytes = bd->layer_params_local[layer] * bd->grad_bytes_per_param;
      /* FSDP2 copies the layer's gradients into the reduce-scatter's input (cast to the
       * reduce dtype) on the compute stream, then the reduce-scatter stream waits for it */
      gint32 in = x;
      if (bd->copy_in_blk != NULL && zero3 (bd))
        in = compute (bd, bd->copy_in_blk[layer], mb, chunk, layer, after, -1);
      /* FSDP1 casts and pre-divides it first (plan.h zero2_reduce_passes; the same place
       * on the compute stream, see reduce_passes_bytes) */
      if (bd->reduce_pass_blk != NULL && zero2_per_mb (bd))
        in = compute (bd, bd->reduce_pass_blk[layer], mb, chunk, layer, after, -1);
      coll (bd, PROG_STREAM_DP, PROG_COMM_DP, PLAN_COLL_REDUCE_SCATTER, shard_axis (bd), bytes,
            PROG_PHASE_BACKWARD, mb, chunk, layer, in, -1);
      if (moe)
        expert_grad_scatter (bd, mb, chunk, layer, x);
    }
  ch->last_compute = after;
  /* FSDP2's post-backward hook, once the layer's input gradient is there: the first
   * micro-batch's gradients copied up to fp32, the later ones' added into that sum */
  if (bd->grad_accum_blk != NULL)
    ch->last_compute = compute (bd, bd->grad_accum_blk[2 * layer + (mb > chunk_first_mb (bd, chunk) ? 1 : 0)], mb,
                                chunk, layer, after, -1);
}

/* ZeRO-2 with per-micro-batch sync: the reduce-scatter of the embedding's or the head's
 * gradients (params_local of them on this rank) after `after`, behind the stack's passes
 * over them where it has any (pass_blk, G_MAXUINT32: none; plan.h zero2_reduce_passes) */
static void
zero2_mb_reduce_extra (Builder *bd, double params_local, guint32 pass_blk, int mb, int chunk,
                       gint32 after)
{
  if (!zero2_per_mb (bd) || params_local <= 0)
    return;
  gint32 in = after;
  if (pass_blk != G_MAXUINT32)
    in = compute (bd, pass_blk, mb, chunk, -1, in, -1);
  coll (bd, PROG_STREAM_DP, PROG_COMM_DP, PLAN_COLL_REDUCE_SCATTER, shard_axis (bd),
        params_local * bd->grad_bytes_per_param, PROG_PHASE_BACKWARD, mb, chunk, -1, in, -1);
}

/* ---- multi-token prediction (plan.h mtp_num_layers) --------------------------------- */

/* The MTP modules of one forward unit of the last model chunk, after its decoder layers
 * and before its own head (Megatron-Core GPTModel: the decoder, then self.mtp, then
 * process_mtp_loss and the main logits). Per module (multi_token_prediction.py): the
 * shifted tokens' embedding (vocab-parallel: its partial rows reduced over TP as the main
 * one's), enorm, hnorm and eh_proj (B_MTP_F; with SP its 2h-wide input all-gathered
 * first), eh_proj's output gathered over TP (gather_from_tensor_model_parallel_region),
 * one transformer layer of the decoder's last layer's kind (forward_layer on layer
 * n_layers - 1, its TP and EP collectives with it), then its final norm, the logits with
 * the shared output weights and the cross-entropy (B_HEAD_F). Its tasks carry the last
 * layer's index. */
static gint32
mtp_forward (Builder *bd, int mb, int chunk, gint32 prev)
{
  const int L = (int) bd->m->n_layers;
  const ProgPhase ph = PROG_PHASE_FORWARD;
  bd->pair_hold = TRUE;
  for (int k = 0; k < bd->plan->mtp_num_layers; k++)
    {
      gint32 x = compute (bd, bd->blk[B_EMBED_F], mb, chunk, -1, prev, -1);
      x = tp_after (bd, ph, mb, chunk, -1, x);
      if (bd->t > 1 && bd->plan->sequence_parallel)
        x = coll (bd, PROG_STREAM_TP, PROG_COMM_TP, PLAN_COLL_ALL_GATHER, PLAN_AXIS_TP,
                  2 * bd->act_bytes, ph, mb, chunk, -1, x, -1);
      x = compute (bd, bd->blk[B_MTP_F], mb, chunk, -1, x, -1);
      x = coll (bd, PROG_STREAM_TP, PROG_COMM_TP, PLAN_COLL_ALL_GATHER, PLAN_AXIS_TP,
                bd->act_bytes, ph, mb, chunk, -1, x, -1);
      Chain mc = { .last_compute = x, .done = { -1, -1, -1 }, .regather = -1,
                   .regather_layer = -1, .ag_next = -1, .eag_next = -1, .ag_layer = -1 };
      bd->in_mtp = TRUE;
      forward_layer (bd, ph, mb, chunk, L - 1, &mc);
      bd->in_mtp = FALSE;
      x = tp_before (bd, ph, mb, chunk, -1, mc.last_compute);
      prev = compute (bd, bd->blk[B_HEAD_F], mb, chunk, -1, x, -1);
    }
  bd->pair_hold = FALSE;
  return prev;
}

/* The mirror in the backward unit, after the main head's backward, modules in reverse:
 * the head's backward (its input gradient reduced over TP), the layer's backward (with
 * its recompute where the plan recomputes: layer_recomputed), B_MTP_B (eh_proj's input
 * gradient reduced over TP: reduce-scattered with SP, all-reduced without), then the
 * embedding's backward into the last stage's copy of the word embedding. */
static gint32
mtp_backward (Builder *bd, int mb, int chunk, gint32 prev)
{
  const int L = (int) bd->m->n_layers;
  const ProgPhase ph = PROG_PHASE_BACKWARD;
  bd->pair_hold = TRUE;
  for (int k = bd->plan->mtp_num_layers - 1; k >= 0; k--)
    {
      gint32 x = compute (bd, bd->blk[B_HEAD_B], mb, chunk, -1, prev, -1);
      x = tp_after (bd, ph, mb, chunk, -1, x);
      Chain mc = { .last_compute = x, .done = { -1, -1, -1 }, .regather = -1,
                   .regather_layer = -1, .ag_next = -1, .eag_next = -1, .ag_layer = -1 };
      bd->in_mtp = TRUE;
      backward_layer (bd, mb, chunk, L - 1, 0, &mc);
      bd->in_mtp = FALSE;
      x = compute (bd, bd->blk[B_MTP_B], mb, chunk, -1, mc.last_compute, -1);
      x = coll (bd, PROG_STREAM_TP, PROG_COMM_TP,
                bd->plan->sequence_parallel ? PLAN_COLL_REDUCE_SCATTER : PLAN_COLL_ALL_REDUCE,
                PLAN_AXIS_TP, 2 * bd->act_bytes, ph, mb, chunk, -1, x, -1);
      x = tp_before (bd, ph, mb, chunk, -1, x);
      prev = compute (bd, bd->blk[B_EMBED_B], mb, chunk, -1, x, -1);
    }
  bd->pair_hold = FALSE;
  return prev;
}

/* Index of the send for (backward, mb, model chunk). */
static int
send_key (Builder *bd, int backward, int mb, int model_chunk)
{
  return (backward * bd->m_micro + mb) * bd->n_model_chunks + model_chunk;
}

/* A W slot (ProgSlot.w 2): the weight-gradient GEMMs held back by the oldest deferred
 * backward of the stage, in the order that backward reached them, each after the task
 * it was split from (which had the output gradient it reads). */
static void
expand_w (Builder *bd, const ProgSlot *slot)
{
  GArray *ws = g_queue_pop_head (bd->w_fifo);
  g_assert (ws != NULL);
  gint32 prev = -1;
  for (guint i = 0; i < ws->len; i++)
    {
      const WDeferred *w = &g_array_index (ws, WDeferred, i);
      g_assert (w->mb == slot->mb && w->chunk == slot->chunk);
      prev = compute (bd, w->block, w->mb, w->chunk, w->layer, w->after, prev);
    }
  g_array_free (ws, TRUE);
}

static gint32 post_backward_wait (Builder *bd, GArray *bucket_done, gint32 last, int mb,
                                  int chunk);

static void
expand_slot (Builder *bd, const ProgSlot *slot, GArray *bucket_done)
{
  if (slot->backward && slot->w == 2)
    {
      expand_w (bd, slot);
      return;
    }
  if (slot->backward && slot->w == 1 && bd->w_split != NULL)
    {
      bd->defer_w = TRUE;
      bd->w_cur = g_array_new (FALSE, FALSE, sizeof (WDeferred));
    }
  const Plan *p = bd->plan;
  int stage = bd->stage, chunk = slot->chunk, mb = slot->mb;
  int model_chunk = plan_model_chunk (p, stage, chunk);
  int first = bd->chunk_first[model_chunk];
  int n = bd->chunk_first[model_chunk + 1] - first;
  gboolean first_chunk = model_chunk == 0, last_chunk = model_chunk == bd->n_model_chunks - 1;
  Chain ch = { .last_compute = -1, .done = { -1, -1, -1 }, .regather = -1, .regather_layer = -1,
               .ag_next = -1, .eag_next = -1, .ag_layer = -1 };
  bd->key_pos = -1;
  pair_node (bd, NODE_PRE, slot->backward);

  if (!slot->backward)
    {
      if (!first_chunk)
        {
          /* receive the activations of the previous model chunk */
          int prev_stage = plan_model_chunk_stage (p, model_chunk - 1, chunk);
          guint32 r = pp_p2p (bd, PROG_TASK_RECV, PROG_PHASE_FORWARD, mb, chunk, first, NULL, 0,
                              bd->pp_wire_bytes, prev_stage);
          task_mut (bd, r)->peer_task = send_key (bd, 0, mb, model_chunk - 1);   /* resolved later */
          ch.last_compute = pp_recv_gather (bd, PROG_PHASE_FORWARD, mb, chunk, first, r);
        }
      else
        {
          /* the vocab-parallel embedding's partial rows summed over TP: reduce-scattered
           * to the sequence shards with SP, all-reduced without (Megatron's
           * VocabParallelEmbedding) */
          ch.last_compute = compute (bd, bd->blk[B_EMBED_F], mb, chunk, -1, -1, -1);
          ch.last_compute = tp_after (bd, PROG_PHASE_FORWARD, mb, chunk, -1, ch.last_compute);
        }
      for (int l = first; l < first + n; l++)
        {
          /* combined 1F1B: the first pair_ov layers pair with the backward unit's, the
           * rest run after that unit's unpaired ones (model_chunk_schedule_plan.py) */
          int i = l - first;
          bd->key_pos = i < bd->pair_ov ? i : bd->pair_nb + i - bd->pair_ov;
          /* CPU offload (TE's OffloadSynchronizer): layer n - N + j starts once layer j's
           * copy to the host is done; layer i < N is copied out after its forward */
          const int off_n = MIN (bd->offload_layers, n - 1);
          if (off_n > 0 && i >= n - off_n)
            bd->compute_gate = bd->offload_copy[i - (n - off_n)];
          forward_layer (bd, PROG_PHASE_FORWARD, mb, chunk, l, &ch);
          bd->compute_gate = -1;
          if (i < off_n)
            bd->offload_copy[i] = host_copy (bd, PROG_PHASE_FORWARD, mb, chunk, l,
                                             ch.last_compute);
        }
      bd->key_pos = PAIR_POS_TAIL;
      pair_node (bd, NODE_TAIL, FALSE);
      if (last_chunk)
        {
          if (p->mtp_num_layers > 0)
            ch.last_compute = mtp_forward (bd, mb, chunk, ch.last_compute);
          /* with SP the head's input is gathered from the sequence shards first (the output
           * layer is column-parallel over the vocabulary) */
          ch.last_compute = tp_before (bd, PROG_PHASE_FORWARD, mb, chunk, -1, ch.last_compute);
          ch.last_compute = compute (bd, bd->blk[B_HEAD_F], mb, chunk, -1, ch.last_compute, -1);
        }
      else
        {
          int next_stage = plan_model_chunk_stage (p, model_chunk + 1, chunk);
          gint32 dep = ch.last_compute;
          guint32 s = pp_p2p (bd, PROG_TASK_SEND, PROG_PHASE_FORWARD, mb, chunk, first + n - 1,
                              &dep, 1, bd->pp_wire_bytes, next_stage);
          bd->send_of[send_key (bd, 0, mb, model_chunk)] = (gint32) s;
        }
      return;
    }

  /* backward */
  if (last_chunk)
    {
      /* the head's input gradient is a partial sum over the vocabulary shards */
      ch.last_compute = compute (bd, bd->blk[B_HEAD_B], mb, chunk, -1, -1, -1);
      ch.last_compute = tp_after (bd, PROG_PHASE_BACKWARD, mb, chunk, -1, ch.last_compute);
      zero2_mb_reduce_extra (bd, bd->head_params_local, bd->head_pass_blk, mb, chunk,
                             ch.last_compute);
      if (p->mtp_num_layers > 0)
        {
          ch.last_compute = mtp_backward (bd, mb, chunk, ch.last_compute);
          zero2_mb_reduce_extra (bd, bd->plan->mtp_num_layers * (bd->mtp_params_local
                                                                 - bd->layer_params_local
                                                                   [bd->m->n_layers - 1])
                                       + bd->mtp_embed_local,
                                 G_MAXUINT32, mb, chunk, ch.last_compute);
        }
      /* the key of a bucket holding only the head (and the MTP modules; a last chunk
       * without layers: --account-for-loss-in-pipeline-split) */
      if (mb == chunk_last_mb (bd, chunk) && bucket_done)
        g_array_index (bucket_done, gint32, bd->m->n_layers + 1) = ch.last_compute;
    }
  else
    {
      int next_stage = plan_model_chunk_stage (p, model_chunk + 1, chunk);
      guint32 r = pp_p2p (bd, PROG_TASK_RECV, PROG_PHASE_BACKWARD, mb, chunk, first + n - 1,
                          NULL, 0, bd->pp_wire_bytes, next_stage);
      task_mut (bd, r)->peer_task = send_key (bd, 1, mb, model_chunk + 1);
      ch.last_compute = pp_recv_gather (bd, PROG_PHASE_BACKWARD, mb, chunk, first + n - 1, r);
    }
  for (int l = first + n - 1; l >= first; l--)
    {
      bd->key_pos = first + n - 1 - l;
      /* CPU offload (TE's OffloadSynchronizer): before the backward of layer n - 1 - N + j
       * the reload of layer j starts, after the compute issued so far; the backward of
       * layer j waits for it */
      const int off_n = MIN (bd->offload_layers, n - 1), i = l - first;
      if (off_n > 0)
        {
          int j = i - (n - 1 - off_n);
          if (j >= 0 && j < off_n)
            bd->offload_copy[j] = host_copy (bd, PROG_PHASE_BACKWARD, mb, chunk, first + j,
                                             ch.last_compute);
          if (i < off_n)
            bd->compute_gate = bd->offload_copy[i];
        }
      backward_layer (bd, mb, chunk, l, l - first, &ch);
      bd->compute_gate = -1;
      if (mb == chunk_last_mb (bd, chunk) && bucket_done)
        g_array_index (bucket_done, gint32, l) = ch.done[0];
    }
  bd->key_pos = PAIR_POS_TAIL;
  pair_node (bd, NODE_TAIL, TRUE);
  if (first_chunk)
    {
      /* with SP the embedding's gradient rows are gathered from the sequence shards */
      ch.last_compute = tp_before (bd, PROG_PHASE_BACKWARD, mb, chunk, -1, ch.last_compute);
      ch.last_compute = compute (bd, bd->blk[B_EMBED_B], mb, chunk, -1, ch.last_compute, -1);
      if (mb == chunk_last_mb (bd, chunk) && bucket_done)
        g_array_index (bucket_done, gint32, bd->m->n_layers) = ch.last_compute;
      zero2_mb_reduce_extra (bd, bd->embed_params_local, bd->embed_pass_blk, mb, chunk,
                             ch.last_compute);
    }
  else
    {
      int prev_stage = plan_model_chunk_stage (p, model_chunk - 1, chunk);
      if (mb == chunk_last_mb (bd, chunk) && bucket_done && bd->rs.after_stage
          && bd->rs.overlap)
        ch.last_compute = post_backward_wait (bd, bucket_done, ch.last_compute, mb, chunk);
      gint32 dep = ch.last_compute;
      guint32 s = pp_p2p (bd, PROG_TASK_SEND, PROG_PHASE_BACKWARD, mb, chunk, first, &dep, 1,
                          bd->pp_wire_bytes, prev_stage);
      bd->send_of[send_key (bd, 1, mb, model_chunk)] = (gint32) s;
    }
  if (bd->defer_w)
    {
      g_queue_push_tail (bd->w_fifo, bd->w_cur);
      bd->w_cur = NULL;
      bd->defer_w = FALSE;
    }
}

/* Combined 1F1B (--overlap-moe-expert-parallel-comm, Megatron-Core's
 * combined_1f1b_schedule_for_{no,interleaved}_pipelining): the forward unit f and the
 * backward unit b after it (of another micro-batch or model chunk) run as one node,
 * layer by layer, f's first layers with b's last (TransformerModelChunkSchedulePlan.run):
 * each is built as on its own (the same tasks and dependencies), then the two units'
 * tasks are put in the order Megatron issues them (pair_node): on each stream the tasks
 * run in that order, so a unit's all-to-all runs on the EP stream while the other unit
 * computes, and each unit still waits for its own all-to-alls (Megatron's per-node CUDA
 * event). The dependencies of each unit point backward in the merged order too (its keys
 * never decrease as it is built), and ids held for later (sends, the buckets' last
 * backward) are renumbered. The slot boundary between f and b is the first task of b.
 * The order is (key, index); as each unit's keys never decrease, it is the merge of f's
 * tasks with b's (f first on equal keys, as its indices are lower), found in one pass;
 * were a unit's keys ever to decrease, the sort below gives the same order. */
static int
pair_key_cmp (const void *a, const void *b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return x < y ? -1 : x > y;
}

/* order[k] = the index (from the pair's first task) of the task at place k: by (key,
 * index), where [0, mid) are f's tasks and [mid, n) b's. */
static void
pair_order (const guint32 *key, guint32 mid, guint32 n, guint32 *order)
{
  gboolean runs = TRUE;
  for (guint32 k = 1; k < n && runs; k++)
    runs = k == mid || key[k] >= key[k - 1];
  if (runs)
    {
      guint32 i = 0, j = mid, k = 0;
      while (i < mid && j < n)
        order[k++] = key[j] < key[i] ? j++ : i++;
      while (i < mid)
        order[k++] = i++;
      while (j < n)
        order[k++] = j++;
      return;
    }
  g_autofree guint64 *packed = g_new (guint64, n);
  for (guint32 k = 0; k < n; k++)
    packed[k] = (guint64) key[k] << 32 | k;
  qsort (packed, n, sizeof *packed, pair_key_cmp);
  for (guint32 k = 0; k < n; k++)
    order[k] = (guint32) packed[k];
}

static void
expand_pair (Builder *bd, const ProgSlot *f, const ProgSlot *b, GArray *bucket_done,
             guint32 *b_first)
{
  const Plan *p = bd->plan;
  int mcf = plan_model_chunk (p, bd->stage, f->chunk);
  int mcb = plan_model_chunk (p, bd->stage, b->chunk);
  int nf = bd->chunk_first[mcf + 1] - bd->chunk_first[mcf];
  int nb = bd->chunk_first[mcb + 1] - bd->chunk_first[mcb];
  bd->pair_ov = MIN (nf, nb);
  bd->pair_nb = nb;
  GArray *tasks = bd->prog->tasks;
  guint32 start = tasks->len;
  g_array_set_size (bd->pair_key, 0);
  bd->pairing = TRUE;
  expand_slot (bd, f, bucket_done);
  guint32 mid = tasks->len - start;
  expand_slot (bd, b, bucket_done);
  bd->pairing = FALSE;
  bd->pair_ov = bd->pair_nb = 0;
  guint32 n = tasks->len - start;
  g_assert (bd->pair_key->len == n);
  /* by (key, index): the order within a key is the order built. The scratch arrays are
   * the builder's, grown as needed (one pair per forward/backward slot) */
  const guint32 *key = (const guint32 *) bd->pair_key->data;
  if (bd->pair_cap < n)
    {
      bd->pair_cap = MAX (n, 2 * bd->pair_cap);
      bd->pair_order = g_renew (guint32, bd->pair_order, bd->pair_cap);
      bd->pair_newpos = g_renew (guint32, bd->pair_newpos, bd->pair_cap);
      bd->pair_old = g_renew (ProgTask, bd->pair_old, bd->pair_cap);
    }
  guint32 *order = bd->pair_order, *newpos = bd->pair_newpos;
  ProgTask *old = bd->pair_old;
  pair_order (key, mid, n, order);
  memcpy (old, &g_array_index (tasks, ProgTask, start), n * sizeof (ProgTask));
  *b_first = tasks->len;
  for (guint32 k = 0; k < n; k++)
    {
      guint32 from = order[k];
      newpos[from] = k;
      if ((key[from] & 1) && *b_first == tasks->len)
        *b_first = start + k;
    }
  for (guint32 k = 0; k < n; k++)
    {
      ProgTask *t = &g_array_index (tasks, ProgTask, start + k);
      *t = old[order[k]];
      t->id = start + k;
      guint32 *deps = &g_array_index (bd->prog->deps, guint32, t->dep_first);
      for (guint32 d = 0; d < t->n_deps; d++)
        if (deps[d] >= start)
          deps[d] = start + newpos[deps[d] - start];
    }
  /* the receives among the pair's tasks, the last ones added */
  for (guint r = bd->recvs->len; r > 0 && g_array_index (bd->recvs, guint32, r - 1) >= start; r--)
    g_array_index (bd->recvs, guint32, r - 1)
      = start + newpos[g_array_index (bd->recvs, guint32, r - 1) - start];
  gint32 keys[2] = { send_key (bd, 0, f->mb, mcf), send_key (bd, 1, b->mb, mcb) };
  for (int i = 0; i < 2; i++)
    if (bd->send_of[keys[i]] >= (gint32) start)
      bd->send_of[keys[i]] = (gint32) (start + newpos[bd->send_of[keys[i]] - start]);
  /* the buckets' last backward tasks are recorded by the last micro-batch's backward
   * alone (expand_slot): other pairs hold none of them */
  if (b->mb != chunk_last_mb (bd, b->chunk))
    return;
  for (guint i = 0; bucket_done != NULL && i < bucket_done->len; i++)
    {
      gint32 *x = &g_array_index (bucket_done, gint32, i);
      if (*x >= (gint32) start)
        *x = (gint32) (start + newpos[*x - start]);
    }
}

/* Megatron-Core's combined 1F1B moves one more forward unit into the warm-up
 * (get_pp_rank_microbatches: "we schedule one extra micro-batch forward step before the
 * 1f1b stages ... to ensure the forward and backward computations are independent in all
 * 1f1b steps"; with PP 1 the first forward runs alone): the forward units keep their
 * order, and so do the backward units; unit F(w + 1 + k) pairs with B(k). */
static void
slots_one_more_warmup (GArray *slots)
{
  guint n = slots->len, nf = 0, lead = 0;
  for (guint i = 0; i < n; i++)
    nf += !g_array_index (slots, ProgSlot, i).backward;
  while (lead < n && !g_array_index (slots, ProgSlot, lead).backward)
    lead++;
  if (lead >= nf)
    return;   /* all forwards are warm-up (GPipe, or too few micro-batches) */
  g_autofree ProgSlot *fw = g_new (ProgSlot, nf);
  g_autofree ProgSlot *bw = g_new (ProgSlot, n - nf);
  guint a = 0, c = 0;
  for (guint i = 0; i < n; i++)
    {
      ProgSlot s = g_array_index (slots, ProgSlot, i);
      if (s.backward)
        bw[c++] = s;
      else
        fw[a++] = s;
    }
  guint k = 0, fi = 0, bi = 0;
  for (; fi < lead; fi++)
    g_array_index (slots, ProgSlot, k++) = fw[fi];
  for (; fi < nf; fi++)
    {
      g_array_index (slots, ProgSlot, k++) = fw[fi];
      g_array_index (slots, ProgSlot, k++) = bw[bi++];
    }
  for (; bi < n - nf; bi++)
    g_array_index (slots, ProgSlot, k++) = bw[bi];
}

/* The compute units of `stage` for the step: plan.h pp_schedules schedules of m / k
 * micro-batches each, one after another, their micro-batches numbered on through the
 * step (schedule j holds j m/k .. (j + 1) m/k - 1). Torch's PipelineSchedule.step() runs
 * one local batch; NeMo AutoModel's _run_train_optim_step calls it once per local batch
 * of the step and accumulates the gradients (nemo_automodel/recipes/llm/train_ft.py,
 * _forward_backward_step: self.pp.info.schedule.step (input_ids, ...)). Nothing ties a
 * schedule's first unit to the previous schedule's last but the stage's own order and the
 * point-to-point dependencies, so every schedule fills and drains the pipeline. The
 * gradients reduce once, after the step's last backward (m - 1), as for one schedule:
 * AutoModel's MoE models run FSDP's post-backward only on the last backward of the
 * optimizer step (nemo_automodel/components/moe/fsdp_mixin.py
 * patched_backward_maybe_with_nosync: `if last_backward and get_is_optim_step()`), and
 * with reshard_after_backward false until then the parameters stay gathered across
 * schedules. */
static void
step_slots (const Builder *bd, const ProgSchedOps *sched, int stage, GArray *slots)
{
  const Plan *p = bd->plan;
  int k = plan_pp_schedules (p);
  if (bd->m_micro % k != 0)
    k = 1;
  int per = bd->m_micro / k;
  for (int j = 0; j < k; j++)
    {
      guint first = slots->len;
      sched->build (p->pp, p->vpp, per, plan_vpp_group (p), stage, slots);
      for (guint i = first; i < slots->len; i++)
        g_array_index (slots, ProgSlot, i).mb += (gint32) (j * per);
    }
}

/* ---- torch.distributed.pipelining's lock step (plan.h pp_lockstep) -------------------
 *
 * torch's ScheduleInterleaved1F1B (the torch of torchtitan's docs/performance.md, Dec
 * 2024) gives every rank the same table of time steps (pipeline_order, built by
 * _get_1f1b_rank_ops): rank r has r empty steps, its W = min ((V - 1) pp + 2 (pp - 1 - r),
 * m V) warm-up forwards, then (V pp + 2 (pp - 1 - r)) - (W + r) empty steps, the
 * (forward, backward) pairs, and (empty, backward) pairs in the cool-down. Its units come
 * in Megatron's order (micro-batches in rounds of pp per chunk, the same warm-up count),
 * so the slots of sched-interleaved.c are the table without its empty steps.
 * PipelineScheduleMulti._step_microbatches runs the table: at each step the rank computes
 * its unit, then batches its sends with the receives of what its neighbours compute in
 * the same step and waits for all of them before the next step. A send completes when the
 * receiver has posted the receive, i.e. after the receiver's own compute of that step:
 * each rank moves in lock step with the neighbours it exchanges with, idle steps
 * included. Here that wait is a pair of empty messages per neighbour and step: each side
 * sends one after its compute of the step (after its previous waits when the step is
 * empty), and its next unit waits to receive the other's. */

static gboolean
lockstep_applies (const Builder *bd)
{
  const Plan *p = bd->plan;
  /* the table above; torch's rounds of pp micro-batches are Megatron's groups of pp only
   * when m divides by pp (other counts keep the dataflow schedule); one schedule a step
   * (plan.h pp_schedules: several keep the dataflow order) */
  return p->pp_lockstep > 0 && p->pp > 1 && p->vpp > 1
         && p->schedule == PLAN_SCHED_INTERLEAVED_1F1B && plan_vpp_group (p) == p->pp
         && bd->m_micro % p->pp == 0 && plan_pp_schedules (p) == 1;
}

/* The table's time step of each of rank r's 2 m V units, in slot order; returns the
 * table's length for r. */
static int
lockstep_steps (int pp, int v, int m, int r, int *step)
{
  int total = m * v;
  int w = MIN ((v - 1) * pp + 2 * (pp - 1 - r), total);
  int post = v * pp + 2 * (pp - 1 - r) - (w + r);
  int i = 0, t = r;
  for (int k = 0; k < w; k++)
    step[i++] = t++;
  t += post;
  for (int k = 0; k < 2 * (total - w); k++)
    step[i++] = t++;
  for (int k = 0; k < w; k++)
    {
      t++;   /* the cool-down's empty step */
      step[i++] = t++;
    }
  return t;
}

/* The rank a unit of rank x sends to (-1: none: the last model chunk's forward, the
 * first's backward). */
static int
lockstep_dest (const Plan *p, int x, const ProgSlot *s)
{
  int mc = s->chunk * p->pp + x, n_chunks = p->pp * p->vpp;
  if (!s->backward)
    return mc < n_chunks - 1 ? (mc + 1) % p->pp : -1;
  return mc > 0 ? (mc - 1) % p->pp : -1;
}

/* One rank's table: per step the slot it runs (-1 empty). */
typedef struct {
  GArray *slots;
  int    *act;
  int     n_steps;
} LockRank;

static void
lockstep_rank (const Builder *bd, const ProgSchedOps *sched, int x, LockRank *lr)
{
  const Plan *p = bd->plan;
  lr->slots = g_array_new (FALSE, FALSE, sizeof (ProgSlot));
  sched->build (p->pp, p->vpp, bd->m_micro, plan_vpp_group (p), x, lr->slots);
  g_autofree int *step = g_new (int, lr->slots->len + 1);
  lr->n_steps = lockstep_steps (p->pp, p->vpp, bd->m_micro, x, step);
  lr->act = g_new (int, bd->lock_steps + 1);
  for (int t = 0; t <= bd->lock_steps; t++)
    lr->act[t] = -1;
  for (guint i = 0; i < lr->slots->len; i++)
    lr->act[step[i]] = (int) i;
}

static void
lockstep_rank_clear (LockRank *lr)
{
  g_array_free (lr->slots, TRUE);
  g_free (lr->act);
}

/* Whether ranks x and y exchange anything at step t. */
static gboolean
lockstep_exchange (const Plan *p, const LockRank *rx, int x, const LockRank *ry, int y, int t)
{
  int a = rx->act[t], b = ry->act[t];
  return (a >= 0 && lockstep_dest (p, x, &g_array_index (rx->slots, ProgSlot, a)) == y)
         || (b >= 0 && lockstep_dest (p, y, &g_array_index (ry->slots, ProgSlot, b)) == x);
}

/* Key of the empty message from rank `from` to its neighbour `to` at step t. */
static int
lockstep_key (Builder *bd, int from, int to, int t)
{
  int dir = to == (from + 1) % bd->plan->pp ? 0 : 1;
  return 2 * bd->m_micro * bd->n_model_chunks + (from * 2 + dir) * bd->lock_steps + t;
}

/* Step t of this stage's table: for each neighbour it exchanges with, an empty message
 * to it after `after` (the step's compute, or the waits before an empty step) and one
 * from it, which the stage's next unit waits for (gate). */
static void
lockstep_step (Builder *bd, const LockRank *me, const LockRank *nb, const int *nb_rank,
               int n_nb, int t, const gint32 *after, int n_after, GArray *gate)
{
  const Plan *p = bd->plan;
  int r = bd->stage;
  for (int k = 0; k < n_nb; k++)
    {
      if (!lockstep_exchange (p, me, r, &nb[k], nb_rank[k], t))
        continue;
      guint32 s = pp_p2p (bd, PROG_TASK_SEND, PROG_PHASE_FORWARD, -1, -1, -1, after, n_after, 0,
                          nb_rank[k]);
      bd->send_of[lockstep_key (bd, r, nb_rank[k], t)] = (gint32) s;
      guint32 rv = pp_p2p (bd, PROG_TASK_RECV, PROG_PHASE_FORWARD, -1, -1, -1, NULL, 0, 0,
                           nb_rank[k]);
      task_mut (bd, rv)->peer_task = lockstep_key (bd, nb_rank[k], r, t);
      gint32 g = (gint32) rv;
      g_array_append_val (gate, g);
    }
}

/* ---- Megatron-Core's device synchronize after each exchange (plan.h pp_p2p_sync) -------
 *
 * forward_backward_pipelining_without_interleaving (megatron/core/pipeline_parallel/
 * schedules.py) moves activations and gradients through p2p_communication.py's
 * _communicate: with batch_p2p_comm (the default without a virtual pipeline,
 * megatron/training/arguments.py) it posts the exchange's sends and receives as one
 * batch_isend_irecv, waits for them, and with batch_p2p_sync (default True,
 * model_parallel_config.py) calls torch.cuda.synchronize (): the host waits until every
 * stream of the device has drained, the exchange's transfers included, before it issues
 * the next unit's first kernel. The first stage makes no call where it would receive
 * from the stage before it (its forward input, recv_forward and send_backward_recv_
 * forward return None) and the last none where it would send after it, so between two
 * units there is a synchronize where the first sends or the second receives, and after
 * the last unit where it sends (send_backward, before the gradients are finalized).
 * Here the next unit's first task of each stream waits for the last task of every stream
 * of the stage so far, and its first compute task is marked host_sync (the simulator
 * adds the host's re-issue time, sim/cost.h pp_sync_reissue_s). The receive itself is
 * not gated: it is posted with the send, in the same batch. */

/* Megatron-LM before Megatron-Core (megatron/p2p_communication.py and schedules.py of
 * 2020-2022; plan.h pp_p2p_sync 2, the megatron-lm-2021 stack's "every_exchange") ran
 * the interleaved schedule through the same _communicate, which calls
 * torch.cuda.synchronize () after its batch_isend_irecv whether or not it moved anything
 * (send_forward_recv_forward, send_backward_recv_backward and send_forward_backward_
 * recv_forward_backward have no first- or last-stage test). forward_backward_pipelining_
 * with_interleaving calls one after each warm-up forward, one after each steady-state
 * (forward, backward) pair (none between the two), and one after each cool-down backward,
 * the last included. So on every stage the next unit waits for everything before it,
 * except the backward of a steady-state pair; when all the forwards come first (the
 * warm-up covers them all) the first backward waits too (its recv_backward). */
static gboolean
sync_every_interleaved (const Builder *bd)
{
  const Plan *p = bd->plan;
  return p->pp_p2p_sync > 1 && p->pp > 1 && p->vpp > 1
         && p->schedule == PLAN_SCHED_INTERLEAVED_1F1B;
}

static gboolean
sync_applies (const Builder *bd)
{
  const Plan *p = bd->plan;
  return (p->pp_p2p_sync > 0 && p->pp > 1 && p->vpp == 1 && p->schedule == PLAN_SCHED_1F1B)
         || sync_every_interleaved (bd);
}

/* Whether a unit of this stage sends to a neighbour at its end, or receives before it. */
static gboolean
sync_unit_sends (const Builder *bd, const ProgSlot *s)
{
  int mc = s->chunk * bd->plan->pp + bd->stage;
  return s->backward ? mc > 0 : mc < bd->n_model_chunks - 1;
}

static gboolean
sync_unit_receives (const Builder *bd, const ProgSlot *s)
{
  int mc = s->chunk * bd->plan->pp + bd->stage;
  return s->backward ? mc < bd->n_model_chunks - 1 : mc > 0;
}

/* Brings last_of (per stream, the stage's last task; -1 none) up to the tasks added since
 * *scan. */
static void
sync_scan (const Builder *bd, guint32 *scan, gint32 *last_of)
{
  const ProgProgram *prog = bd->prog;
  for (guint32 x = *scan; x < prog->tasks->len; x++)
    last_of[prog_task (prog, x)->stream] = (gint32) x;
  *scan = prog->tasks->len;
}

/* The tasks added next wait for the stage's streams' last tasks (add_task). */
static void
sync_arm (Builder *bd, const gint32 *last_of)
{
  bd->sync_n = 0;
  for (int s = 0; s < PROG_STREAM_N; s++)
    if (last_of[s] >= 0)
      bd->sync_gate[bd->sync_n++] = last_of[s];
  bd->sync_done = 0;
  bd->sync_flagged = FALSE;
}

static void
sync_disarm (Builder *bd)
{
  bd->sync_n = 0;
}

/* ---- data parallelism: buckets, optimizer, parameter gather --------------------------- */

typedef struct {
  int    first_layer, n_layers;   /* model layers in the bucket (may include embedding) */
  double params;                  /* local parameters */
  double fp8_params;              /* of them, held in fp8 (plan_fp8_params) */
  int    chunk;
} Bucket;

/* Bytes of a bucket's parameters as the distributed optimizer gathers them: the fp8
 * weights (Megatron --fp8-param-gather) 1 B each, the rest in the parameter dtype */
static double
bucket_gather_bytes (const Bucket *bk, const Plan *p)
{
  return (bk->params - bk->fp8_params) * plan_precision_bytes (p->param_dtype)
         + bk->fp8_params;
}

/* Buckets in backward order (last layer first) per chunk, each at least bucket_bytes of
 * gradients (Megatron DDP: --ddp-bucket-size, default 40M elements). */
static GArray *
make_buckets (Builder *bd, const double *per_layer, gboolean dense)
{
  const Plan *p = bd->plan;
  GArray *buckets = g_array_new (FALSE, TRUE, sizeof (Bucket));
  double limit = plan_bucket_bytes (p) / bd->grad_bytes_per_param;
  for (int chunk = plan_rank_chunks (p) - 1; chunk >= 0; chunk--)
    {
      int first = plan_chunk_first_layer (p, bd->m, bd->stage, chunk);
      int n = plan_chunk_layers (p, bd->m, bd->stage, chunk);
      Bucket cur = { .first_layer = first + n, .n_layers = 0, .params = 0, .chunk = chunk };
      int model_chunk = plan_model_chunk (p, bd->stage, chunk);
      if (dense && model_chunk == bd->n_model_chunks - 1)
        cur.params += bd->head_params_local;
      /* the MTP modules' gradients (plan.h mtp_num_layers) go with the head's: their
       * backward runs right after it, and the last stage's copy of the word embedding
       * where the stage holds no embedding of its own */
      if (model_chunk == bd->n_model_chunks - 1 && p->mtp_num_layers > 0)
        {
          gboolean holds_first = FALSE;
          for (int c = 0; c < plan_rank_chunks (p); c++)
            holds_first |= plan_model_chunk (p, bd->stage, c) == 0;
          cur.params += p->mtp_num_layers * (dense ? bd->mtp_params_local
                                                   : bd->mtp_expert_params_local)
                        + (dense && !holds_first ? bd->mtp_embed_local : 0);
        }
      for (int l = first + n - 1; l >= first; l--)
        {
          cur.first_layer = l;
          cur.n_layers++;
          cur.params += per_layer[l];
          if (dense)
            cur.fp8_params += bd->layer_fp8_params_local[l];
          if (cur.params >= limit)
            {
              g_array_append_val (buckets, cur);
              cur.params = 0;
              cur.fp8_params = 0;
              cur.n_layers = 0;
            }
        }
      if (dense && model_chunk == 0)
        cur.params += bd->embed_params_local;
      if (cur.params > 0)
        g_array_append_val (buckets, cur);
    }
  return buckets;
}

/* The stage's dense gradient buckets that are ready, in order: a bucket goes as soon as
 * its layers' last backward is done (bd->rs, set up by build_stage). */
static void
issue_reductions (Builder *bd, GArray *bucket_done)
{
  const Plan *p = bd->plan;
  int stage = bd->stage, L = (int) bd->m->n_layers;
  GArray *buckets = bd->rs.buckets;
  gboolean after_stage = bd->rs.after_stage;
  while (bd->rs.overlap && bd->rs.next < buckets->len)
    {
      Bucket *bk = &g_array_index (buckets, Bucket, bd->rs.next);
      int key = bk->first_layer;
      int model_chunk = plan_model_chunk (p, stage, bk->chunk);
      if (model_chunk == 0 && key == bd->chunk_first[model_chunk]
          && bk->params > 0 && bd->rs.next == buckets->len - 1)
        key = L;   /* the bucket holding the embedding waits for its backward */
      else if (model_chunk == bd->n_model_chunks - 1 && bk->n_layers == 0)
        key = L + 1;   /* a bucket holding only the head waits for the head's */
      /* torch.distributed.pipelining (plan.h pp_grad_after_stage): the chunk's
       * reductions start after its whole last backward, its first layer's (and on
       * model chunk 0 the embedding's) */
      if (after_stage && model_chunk == 0)
        key = L;
      else if (after_stage
               && bd->chunk_first[model_chunk + 1] > bd->chunk_first[model_chunk])
        key = bd->chunk_first[model_chunk];
      gint32 done = g_array_index (bucket_done, gint32, key);
      if (done < 0)
        break;
      gint32 r = coll (bd, PROG_STREAM_DP, PROG_COMM_DP,
                       bd->rs.dist_opt ? PLAN_COLL_REDUCE_SCATTER : PLAN_COLL_ALL_REDUCE,
                       (PlanAxis) bd->rs.axis,
                       bk->params * bd->grad_bytes_per_param, PROG_PHASE_BACKWARD, -1,
                       bk->chunk, bk->first_layer, done, -1);
      g_array_append_val (bd->rs.reductions, r);
      bd->rs.next++;
    }
}

/* torch.distributed.pipelining under FSDP2 (plan.h pp_grad_after_stage): at a stage's
 * last backward of the step, _PipelineStageBase.backward_maybe_with_nosync runs
 * run_post_backward, which calls FSDPParamGroup.post_backward for every parameter group
 * of the model chunk in turn; each post_backward, before it issues its group's
 * reduce-scatter, makes the current (compute) stream wait for the event recorded after the
 * previous group's reduce-scatter (comm_ctx.reduce_scatter_state.event, torch
 * _fsdp_param_group.py, torch 2.4 to 2.6: it bounds the reduce-scatter inputs alive to
 * one). So the compute stream passes run_post_backward only once all the chunk's
 * reduce-scatters but the last are done, and the schedule's send of that backward's input
 * gradient (batch_isend_irecv, whose NCCL stream waits for the compute stream) and its
 * next compute come after: the previous stage's last backward waits for it. Issues the
 * chunk's reductions here, before that send, and returns the compute stream's wait (an
 * empty compute task after `last` and the reduction before the chunk's last), or `last`
 * when the chunk has fewer than two. */
static gint32
post_backward_wait (Builder *bd, GArray *bucket_done, gint32 last, int mb, int chunk)
{
  guint before = bd->rs.reductions->len;
  issue_reductions (bd, bucket_done);
  guint n = bd->rs.reductions->len - before;
  if (n < 2 || bd->rs_wait_blk == G_MAXUINT32)
    return last;
  gint32 r = g_array_index (bd->rs.reductions, gint32, bd->rs.reductions->len - 2);
  return compute (bd, bd->rs_wait_blk, mb, chunk, -1, last, r);
}

/* ---- stamped units -------------------------------------------------------------------
 *
 * A unit of the steady middle (neither the chunk's first micro-batch, whose forward reads
 * the overlapped parameter gathers, nor its last, whose backward closes the gradient
 * buckets) expands into the same tasks for every micro-batch: the same kinds, blocks,
 * bytes and FLOPs, dependencies within the unit alone (its chain starts afresh,
 * expand_slot), only the ids, the micro-batch and the pipeline keys differ. So the first
 * such unit of each (direction, chunk) of a stage is expanded and kept as a template, and
 * the later ones are copies of it, shifted: ids and dependencies by the distance between
 * the two units, the receive's send key and the send's entry in send_of by the distance
 * between the micro-batches. Where anything reaches across units (the pairing of combined
 * 1F1B, torch's lock step, Megatron's synchronize after an exchange, DualPipe's deferred
 * weight gradients, CPU offload's copies, an all-to-all left to the next MoE layer) every
 * unit is expanded; a template whose tasks depend on one outside it is not used. Expanding
 * the layers was three quarters of building a program (3.7 of 5.0 M instructions), and
 * building a quarter of a prediction (bench-predict, main job m16: 20.8 M); stamped, the
 * prediction takes 18.2 M. tests/plan/test-program-stamp.c compares stamped programs
 * with expanded ones task by task. */
gboolean prog_stamp_units = TRUE;

typedef struct {
  guint32 first, n;        /* the template's tasks */
  guint32 dep_first, n_deps;
  gint32  send;            /* its SEND, relative to first (-1 none) */
  gint32  recv;            /* its RECV, relative to first (-1 none, -2 several) */
  gint32  mb;
  gint8   state;           /* 0 none yet, 1 usable, -1 not usable */
} UnitStamp;

/* Whether stage units may be stamped at all (the builder state nothing crosses units). */
static gboolean
stamp_applies (const Builder *bd, gboolean pair, gboolean lock, gboolean psync)
{
  return prog_stamp_units && !pair && !lock && !psync && bd->w_split == NULL
         && bd->offload_layers == 0 && !bd->a2a_next_layer && !bd->pairing
         && bd->plan->schedule != PLAN_SCHED_DUALPIPE;
}

/* Whether `slot` is a unit of the steady middle (see above). */
static inline gboolean
stamp_slot (const Builder *bd, const ProgSlot *slot)
{
  return slot->w == 0 && slot->mb > chunk_first_mb (bd, slot->chunk)
         && slot->mb < chunk_last_mb (bd, slot->chunk) && bd->gate->len == 0
         && bd->compute_gate < 0 && bd->sync_n == 0 && !bd->defer_w;
}

/* Keeps the unit just expanded (tasks from `first`, dependencies from `dep_first`) as
 * its (direction, chunk)'s template, where it depends on nothing outside itself. */
static void
stamp_keep (Builder *bd, UnitStamp *u, const ProgSlot *slot, guint32 first, guint32 dep_first)
{
  ProgProgram *prog = bd->prog;
  u->first = first;
  u->n = prog->tasks->len - first;
  u->dep_first = dep_first;
  u->n_deps = prog->deps->len - dep_first;
  u->mb = slot->mb;
  u->send = -1;
  u->recv = -1;
  u->state = 1;
  for (guint32 i = 0; i < u->n_deps; i++)
    if (g_array_index (prog->deps, guint32, dep_first + i) < first)
      u->state = -1;
  for (guint32 i = 0; i < u->n && u->state == 1; i++)
    {
      const ProgTask *t = prog_task (prog, first + i);
      if (t->kind == PROG_TASK_SEND)
        {
          if (u->send >= 0)
            u->state = -1;      /* one send a unit (expand_slot) */
          u->send = (gint32) i;
        }
      if (t->kind == PROG_TASK_RECV)
        u->recv = u->recv == -1 ? (gint32) i : -2;
      if (t->mb != slot->mb || t->host_sync || t->dep_first < dep_first
          || t->dep_first + t->n_deps > dep_first + u->n_deps)
        u->state = -1;
    }
}

/* The unit `slot` as a copy of its template `u`. */
static void
stamp_copy (Builder *bd, const UnitStamp *u, const ProgSlot *slot)
{
  ProgProgram *prog = bd->prog;
  guint32 first = prog->tasks->len, dep_first = prog->deps->len;
  guint32 shift = first - u->first, dshift = dep_first - u->dep_first;
  array_set_len (prog->tasks, &bd->tasks_cap, first + u->n);
  array_set_len (prog->deps, &bd->deps_cap, dep_first + u->n_deps);
  const guint32 *from_deps = &g_array_index (prog->deps, guint32, u->dep_first);
  guint32 *to_deps = &g_array_index (prog->deps, guint32, dep_first);
  guint32 i = 0;
#if defined(__GNUC__)
  /* four at a time (-O2 does not vectorize the loop; main job m256: 0.76 -> 0.2 M
   * instructions a prediction) */
  typedef guint32 V4 __attribute__ ((vector_size (16)));
  for (; i + 4 <= u->n_deps; i += 4)
    {
      V4 d;
      memcpy (&d, &from_deps[i], sizeof d);
      d += shift;
      memcpy (&to_deps[i], &d, sizeof d);
    }
#endif
  for (; i < u->n_deps; i++)
    to_deps[i] = from_deps[i] + shift;
  const ProgTask *from = &g_array_index (prog->tasks, ProgTask, u->first);
  ProgTask *to = &g_array_index (prog->tasks, ProgTask, first);
  memcpy (to, from, sizeof (ProgTask) * u->n);
  const gint32 mb = slot->mb;
  for (ProgTask *t = to, *e = to + u->n; t < e; t++)
    {
      t->id += shift;
      t->mb = mb;
      t->dep_first += dshift;
    }
  /* the copy's receives: their send keys (send_key) shifted, as the two micro-batches'
   * differ, and their ids kept for prog_program_new to resolve (bd->recvs) */
  const gint32 key_shift = (slot->mb - u->mb) * bd->n_model_chunks;
  if (u->recv >= 0)
    {
      guint32 r = first + (guint32) u->recv;
      to[u->recv].peer_task += key_shift;
      array_append (bd->recvs, &bd->recvs_cap, &r, sizeof r);
    }
  else if (u->recv == -2)
    for (i = 0; i < u->n; i++)
      if (to[i].kind == PROG_TASK_RECV)
        {
          to[i].peer_task += key_shift;
          array_append (bd->recvs, &bd->recvs_cap, &to[i].id, sizeof to[i].id);
        }
  prog->stamped_units++;
  ProgStampRun run = { first, u->n, u->first };
  array_append (prog->stamps, &bd->stamps_cap, &run, sizeof run);
  if (u->send >= 0)
    {
      int model_chunk = plan_model_chunk (bd->plan, bd->stage, slot->chunk);
      bd->send_of[send_key (bd, slot->backward, slot->mb, model_chunk)]
        = (gint32) (first + (guint32) u->send);
    }
}

static void
build_stage (Builder *bd, const ProgSchedOps *sched)
{
  const Plan *p = bd->plan;
  ProgProgram *prog = bd->prog;
  int stage = bd->stage;
  guint32 first_task = prog->tasks->len;
  int L = (int) bd->m->n_layers;
  gboolean sharded_params = zero3 (bd);
  gboolean dist_opt = p->sharding == PLAN_SHARD_ZERO1 || p->sharding == PLAN_SHARD_ZERO2;
  PlanAxis grad_axis = p->cp > 1 ? PLAN_AXIS_CPDP : PLAN_AXIS_DP;

  for (int l = 0; l < L; l++)
    bd->param_ag_of_layer[l] = bd->expert_ag_of_layer[l] = -1;
  g_autoptr (GArray) buckets = make_buckets (bd, bd->layer_params_local, TRUE);
  /* MoE: the experts' gradients go in buckets of their own, reduced over the expert
   * data-parallel group (Megatron-Core keeps expert parameters in a separate buffer) */
  g_autoptr (GArray) ebuckets = bd->moe.experts > 0
                                  ? make_buckets (bd, bd->layer_expert_params_local, FALSE)
                                  : g_array_new (FALSE, TRUE, sizeof (Bucket));

  /* With --overlap-param-gather, ZeRO-1/2's gather of the updated parameters runs at the
   * start of the next step, each bucket before its first forward (steady state). */
  if (dist_opt && p->overlap_param_gather)
    for (int i = (int) buckets->len - 1; i >= 0; i--)
      {
        Bucket *bk = &g_array_index (buckets, Bucket, i);
        gint32 ag = coll (bd, PROG_STREAM_DP, PROG_COMM_DP, PLAN_COLL_ALL_GATHER, grad_axis,
                          bucket_gather_bytes (bk, p),
                          PROG_PHASE_OPTIMIZER, -1, bk->chunk, bk->first_layer, -1, -1);
        for (int l = bk->first_layer; l < bk->first_layer + bk->n_layers && l < L; l++)
          bd->param_ag_of_layer[l] = ag;
      }
  if (dist_opt && p->overlap_param_gather)
    for (int i = (int) ebuckets->len - 1; i >= 0; i--)
      {
        Bucket *bk = &g_array_index (ebuckets, Bucket, i);
        gint32 ag = coll (bd, PROG_STREAM_DP, PROG_COMM_DP, PLAN_COLL_ALL_GATHER, PLAN_AXIS_EDP,
                          bk->params * plan_precision_bytes (p->param_dtype),
                          PROG_PHASE_OPTIMIZER, -1, bk->chunk, bk->first_layer, -1, -1);
        for (int l = bk->first_layer; l < bk->first_layer + bk->n_layers && l < L; l++)
          bd->expert_ag_of_layer[l] = ag;
      }

  /* the compute units of the schedule */
  g_autoptr (GArray) slots = g_array_new (FALSE, FALSE, sizeof (ProgSlot));
  step_slots (bd, sched, stage, slots);
  /* combined 1F1B where Megatron-Core runs it (plan_moe_a2a_combined_schedule); a 1F1B or
   * GPipe plan with PP > 1 runs its units as they are, its all-to-alls exposed (but on a
   * stack whose schedule hands them to the next layer: a2a_next_layer). Not below 2 pp - 1
   * micro-batches (plan_moe_a2a_pairs): there the first stage's warm-up, one forward
   * longer, would exceed its whole step (2 (pp - 1) + (v - 1) m + 1 > v m with one group
   * of m), Megatron-Core caps it (all its units in warm-up) and pairs only the later
   * stages' few 1F1B steps; tandem's pairing of those steps against a capped first stage
   * deadlocked (pp 2 at m 2, pp 4 at m 4-6, pp 8 at m 8-14), so such steps run unpaired,
   * their all-to-alls exposed: an over-estimate of at most those few steps' all-to-alls. */
  gboolean pair = bd->moe.experts > 0 && plan_moe_a2a_pairs (p, bd->m_micro)
                  && plan_pp_schedules (p) == 1;
  if (pair)
    slots_one_more_warmup (slots);
  bd->a2a_next_layer = p->moe_a2a_overlap && !plan_moe_a2a_combined_schedule (p);
  bd->moe_a2a_pending = -1;
  g_autoptr (GArray) bucket_done = g_array_new (FALSE, TRUE, sizeof (gint32));
  g_array_set_size (bucket_done, L + 2);   /* layers, then the embedding, then the head */
  for (int l = 0; l <= L + 1; l++)
    g_array_index (bucket_done, gint32, l) = -1;

  /* gradients already reduce-scattered in every micro-batch's backward (ZeRO-3, ZeRO-2
   * with sharded gradients) leave no bucket to reduce at the end */
  gboolean grads_reduced = sharded_params || zero2_per_mb (bd);
  /* DualPipe: the data-parallel reductions start once the two copies' gradients are
   * summed, after the last backward (below) */
  gboolean overlap = p->overlap_grad_reduce && !grads_reduced
                     && p->schedule != PLAN_SCHED_DUALPIPE;
  gboolean after_stage = p->pp > 1 && p->pp_grad_after_stage > 0;
  guint next_ebucket = 0;
  GArray *reductions = g_array_new (FALSE, FALSE, sizeof (gint32));
  bd->rs.buckets = buckets;
  bd->rs.reductions = reductions;
  bd->rs.next = 0;
  bd->rs.overlap = overlap;
  bd->rs.after_stage = after_stage;
  bd->rs.dist_opt = dist_opt;
  bd->rs.axis = grad_axis;
  ProgStage *st = &prog->stages[stage];
  st->n_slots = slots->len;
  st->slot_first = g_new (guint32, slots->len + 1);
  /* torch's lock step: this rank's table and its neighbours' */
  /* (not with the combined 1F1B's paired units: a Megatron schedule) */
  gboolean lock = lockstep_applies (bd) && !pair;
  LockRank lr_me = { 0 }, lr_nb[2] = { { 0 } };
  int nb_rank[2] = { (stage + p->pp - 1) % p->pp, (stage + 1) % p->pp };
  int n_nb = nb_rank[0] == nb_rank[1] ? 1 : 2;
  g_autoptr (GArray) waits = g_array_new (FALSE, FALSE, sizeof (gint32));
  int next_step = 0;
  /* Megatron-Core's synchronize after each exchange (sync_*): per stream the stage's last
   * task so far, and whether the unit before sent */
  gboolean psync = sync_applies (bd) && !lock && !pair;
  gint32 last_of[PROG_STREAM_N];
  for (int s = 0; s < PROG_STREAM_N; s++)
    last_of[s] = -1;
  guint32 scan = first_task;
  gboolean sent = FALSE;
  g_autofree UnitStamp *stamps = stamp_applies (bd, pair, lock, psync)
                                   ? g_new0 (UnitStamp, 2 * MAX (p->vpp, 1)) : NULL;
  /* Megatron-LM's interleaved schedule (sync_every_interleaved): a backward right after a
   * forward is a steady-state pair's, with no exchange between them, unless all the
   * forwards come first */
  gboolean every = psync && sync_every_interleaved (bd), all_warm = FALSE;
  if (every)
    {
      guint lead_fwd = 0;
      while (lead_fwd < slots->len && !g_array_index (slots, ProgSlot, lead_fwd).backward)
        lead_fwd++;
      all_warm = lead_fwd == (guint) (bd->m_micro * p->vpp);
    }
  if (lock)
    {
      lockstep_rank (bd, sched, stage, &lr_me);
      for (int k = 0; k < n_nb; k++)
        lockstep_rank (bd, sched, nb_rank[k], &lr_nb[k]);
    }
  for (guint i = 0; i < slots->len; i++)
    {
      const ProgSlot *slot = &g_array_index (slots, ProgSlot, i);
      int my_step = -1;
      if (lock)
        {
          /* the empty steps before this unit: their messages go after the waits so far */
          while (lr_me.act[next_step] != (int) i)
            {
              g_autoptr (GArray) before = g_array_copy (waits);
              lockstep_step (bd, &lr_me, lr_nb, nb_rank, n_nb, next_step,
                             (const gint32 *) (void *) before->data, (int) before->len, waits);
              next_step++;
            }
          my_step = next_step++;
          /* the unit waits for everything of the steps before */
          g_array_append_vals (bd->gate, waits->data, waits->len);
          g_array_set_size (waits, 0);
        }
      if (psync)
        {
          sync_scan (bd, &scan, last_of);
          if (every)
            {
              if (i > 0 && !(slot->backward && !g_array_index (slots, ProgSlot, i - 1).backward
                             && !all_warm))
                sync_arm (bd, last_of);
              sent = TRUE;   /* the last backward's exchange synchronizes too */
            }
          else
            {
              if (i > 0 && (sent || sync_unit_receives (bd, slot)))
                sync_arm (bd, last_of);
              sent = sync_unit_sends (bd, slot);
            }
        }
      st->slot_first[i] = prog->tasks->len;
      const ProgSlot *next = i + 1 < slots->len ? &g_array_index (slots, ProgSlot, i + 1)
                                                : NULL;
      if (pair && !slot->backward && next != NULL && next->backward)
        {
          expand_pair (bd, slot, next, bucket_done, &st->slot_first[i + 1]);
          i++;
        }
      else if (stamps != NULL && stamp_slot (bd, slot))
        {
          UnitStamp *u = &stamps[2 * slot->chunk + slot->backward];
          if (u->state == 1)
            stamp_copy (bd, u, slot);
          else
            {
              guint32 dep_first = prog->deps->len;
              expand_slot (bd, slot, bucket_done);
              if (u->state == 0)
                stamp_keep (bd, u, slot, st->slot_first[i], dep_first);
            }
        }
      else
        expand_slot (bd, slot, bucket_done);
      sync_disarm (bd);
      if (lock)
        {
          /* the neighbours' messages of the step, sent after its compute. (torch also
           * waits for the step's own sends, which complete once the receiver has posted
           * its receive: the receiver's message says when. The transfer itself is not
           * waited for here: the receive is posted where the unit that reads it begins,
           * and a rendezvous send waited for before that would deadlock the runner.) */
          gint32 last_c = -1;
          for (guint32 x = st->slot_first[i]; x < prog->tasks->len; x++)
            if (prog_task (prog, x)->stream == PROG_STREAM_COMPUTE)
              last_c = (gint32) x;
          lockstep_step (bd, &lr_me, lr_nb, nb_rank, n_nb, my_step, &last_c, 1, waits);
        }
      /* overlapped gradient reduction: a bucket goes as soon as its layers' last
       * backward is done */
      issue_reductions (bd, bucket_done);
      while (overlap && next_ebucket < ebuckets->len)
        {
          Bucket *bk = &g_array_index (ebuckets, Bucket, next_ebucket);
          /* a bucket of the MTP modules' experts alone waits for the head's key, as a
           * head-only dense bucket does (issue_reductions) */
          int ekey = bk->n_layers == 0
                       && plan_model_chunk (p, stage, bk->chunk) == bd->n_model_chunks - 1
                       ? L + 1 : bk->first_layer;
          gint32 done = g_array_index (bucket_done, gint32, ekey);
          if (done < 0)
            break;
          gint32 r = coll (bd, PROG_STREAM_DP, PROG_COMM_DP,
                           dist_opt ? PLAN_COLL_REDUCE_SCATTER : PLAN_COLL_ALL_REDUCE,
                           PLAN_AXIS_EDP, bk->params * bd->grad_bytes_per_param,
                           PROG_PHASE_BACKWARD, -1, bk->chunk, bk->first_layer, done, -1);
          g_array_append_val (reductions, r);
          next_ebucket++;
        }
    }

  if (lock)
    {
      lockstep_rank_clear (&lr_me);
      for (int k = 0; k < n_nb; k++)
        lockstep_rank_clear (&lr_nb[k]);
      g_array_set_size (bd->gate, 0);
    }
  st->slot_first[slots->len] = prog->tasks->len;
  /* the last unit's send is synchronized before the gradients are finalized */
  if (psync && sent)
    {
      sync_scan (bd, &scan, last_of);
      sync_arm (bd, last_of);
    }
  /* the stage's last compute task: everything after it waits for the backward */
  gint32 last = -1;
  for (guint32 i = prog->tasks->len; i > first_task; i--)
    if (g_array_index (prog->tasks, ProgTask, i - 1).stream == PROG_STREAM_COMPUTE)
      {
        last = (gint32) (i - 1);
        break;
      }
  /* DualPipe keeps each stage's weights on two ranks, r (chunk 0) and pp - 1 - r (chunk
   * 1), whose gradients must be summed before the optimizer: deepseek-ai/DualPipe's
   * example adds to each chunk's gradient the mirror rank's gradient of the same stage
   * (examples/example_dualpipe.py, "Check grads"). Here each rank sends its gradients (both
   * chunks') to its mirror and adds the mirror's into its own once received, after its
   * last backward; the data-parallel reductions and the optimizer wait for that sum. */
  if (p->schedule == PLAN_SCHED_DUALPIPE && p->pp > 1)
    {
      double params = 0;
      for (guint i = 0; i < buckets->len; i++)
        params += g_array_index (buckets, Bucket, i).params;
      for (guint i = 0; i < ebuckets->len; i++)
        params += g_array_index (ebuckets, Bucket, i).params;
      int mirror = p->pp - 1 - stage;
      double bytes = params * bd->grad_bytes_per_param;
      guint32 s = pp_p2p (bd, PROG_TASK_SEND, PROG_PHASE_BACKWARD, -1, 0, -1, &last, 1, bytes,
                          mirror);
      bd->send_of[bd->grad_pair_key + stage] = (gint32) s;
      guint32 r = pp_p2p (bd, PROG_TASK_RECV, PROG_PHASE_BACKWARD, -1, 0, -1, NULL, 0, bytes,
                          mirror);
      task_mut (bd, r)->peer_task = bd->grad_pair_key + mirror;
      g_autoptr (GArray) ops = g_array_new (FALSE, TRUE, sizeof (ModelOp));
      prog_builder_elem (ops, "dualpipe_grad_sum", MODEL_OP_ELEMENTWISE, (guint64) params, 1);
      guint32 blk = prog_builder_add_block (bd, PROG_BLOCK_GRAD_ACCUM, PROG_PHASE_BACKWARD,
                                            "dualpipe_grad_sum", ops, 0);
      gint32 deps[2] = { last, (gint32) r };
      guint32 sum = add_task (bd, PROG_TASK_COMPUTE, PROG_STREAM_COMPUTE, PROG_PHASE_BACKWARD,
                              -1, 0, -1, deps, 2);
      task_mut (bd, sum)->block = blk;
      task_mut (bd, sum)->hw_flops = prog_block (prog, blk)->hw_flops;
      last = (gint32) sum;
    }
  /* ZeRO-2 with sharded gradients: the optimizer waits for the last micro-batch's
   * reduce-scatters */
  if (zero2_per_mb (bd))
    for (guint32 i = first_task; i < prog->tasks->len; i++)
      {
        const ProgTask *t = prog_task (prog, i);
        if (t->stream == PROG_STREAM_DP && t->phase == PROG_PHASE_BACKWARD
            && t->mb == chunk_last_mb (bd, t->chunk))
          {
            gint32 r = (gint32) i;
            g_array_append_val (reductions, r);
          }
      }
  /* non-overlapped reduction of the remaining buckets */
  if (!grads_reduced)
    for (; bd->rs.next < buckets->len; bd->rs.next++)
      {
        Bucket *bk = &g_array_index (buckets, Bucket, bd->rs.next);
        gint32 r = coll (bd, PROG_STREAM_DP, PROG_COMM_DP,
                         dist_opt ? PLAN_COLL_REDUCE_SCATTER : PLAN_COLL_ALL_REDUCE, grad_axis,
                         bk->params * bd->grad_bytes_per_param, PROG_PHASE_BACKWARD, -1,
                         bk->chunk, bk->first_layer, last, -1);
        g_array_append_val (reductions, r);
      }
  if (!grads_reduced)
    for (; next_ebucket < ebuckets->len; next_ebucket++)
      {
        Bucket *bk = &g_array_index (ebuckets, Bucket, next_ebucket);
        gint32 r = coll (bd, PROG_STREAM_DP, PROG_COMM_DP,
                         dist_opt ? PLAN_COLL_REDUCE_SCATTER : PLAN_COLL_ALL_REDUCE,
                         PLAN_AXIS_EDP, bk->params * bd->grad_bytes_per_param,
                         PROG_PHASE_BACKWARD, -1, bk->chunk, bk->first_layer, last, -1);
        g_array_append_val (reductions, r);
      }
  /* Megatron-Core's finalize_model_grads, once the data-parallel sync is done: under MTP
   * the word embedding's gradient, held by the first stage and by the last for the MTP
   * modules' lookups, is all-reduced over the embedding group of the two
   * (_allreduce_word_embedding_grads: "share_embeddings_and_output_weights or
   * mtp_num_layers"), whole (its V/t x h main_grad, in the gradient dtype), before the
   * optimizer step. A group of one (no MTP, pp 1, DualPipe) adds nothing. */
  if (bd->mtp_embed_local > 0)
    {
      gboolean ends = FALSE;
      for (int c = 0; c < plan_rank_chunks (p); c++)
        {
          int mc = plan_model_chunk (p, stage, c);
          ends |= mc == 0 || mc == bd->n_model_chunks - 1;
        }
      if (ends)
        {
          gint32 after = reductions->len > 0
                           ? g_array_index (reductions, gint32, reductions->len - 1) : -1;
          gint32 r = coll (bd, PROG_STREAM_DP, PROG_COMM_DP, PLAN_COLL_ALL_REDUCE,
                           PLAN_AXIS_EMBD, bd->mtp_embed_local * bd->grad_bytes_per_param,
                           PROG_PHASE_BACKWARD, -1, 0, -1, last, after);
          if (r != last)
            g_array_append_val (reductions, r);
        }
    }
  if (p->sharding == PLAN_SHARD_HSDP)
    {
      /* HSDP: the shard groups' reduced gradients are all-reduced across replicas */
      double params = 0;
      for (guint i = 0; i < buckets->len; i++)
        params += g_array_index (buckets, Bucket, i).params;
      gint32 r = coll (bd, PROG_STREAM_DP, PROG_COMM_DP, PLAN_COLL_ALL_REDUCE,
                       PLAN_AXIS_DP_REPLICA,
                       params / MAX (p->hsdp_shard_size, 1) * bd->grad_bytes_per_param,
                       PROG_PHASE_BACKWARD, -1, 0, -1, last, -1);
      g_array_append_val (reductions, r);
    }

  /* optimizer step: waits for the last backward and every reduction */
  double stage_params = 0;
  for (guint i = 0; i < buckets->len; i++)
    stage_params += g_array_index (buckets, Bucket, i).params;
  double opt_params = stage_params / plan_optim_shards (p) * (sharded_params ? 1 : 1);
  {
    /* expert states shard over the expert data-parallel group (distributed optimizer) */
    double expert_params = 0;
    for (guint i = 0; i < ebuckets->len; i++)
      expert_params += g_array_index (ebuckets, Bucket, i).params;
    opt_params += expert_params / (p->sharding >= PLAN_SHARD_ZERO1 ? MAX (p->edp, 1) : 1);
  }
  {
    g_autoptr (GArray) ops = g_array_new (FALSE, TRUE, sizeof (ModelOp));
    prog_builder_elem (ops, "adamw", MODEL_OP_ELEMENTWISE, (guint64) opt_params, 12);
    guint32 blk = prog_builder_add_block (bd, PROG_BLOCK_OPTIMIZER, PROG_PHASE_OPTIMIZER, "optimizer", ops, 0);
    g_autofree gint32 *deps = g_new (gint32, reductions->len + 1);
    deps[0] = last;
    for (guint i = 0; i < reductions->len; i++)
      deps[i + 1] = g_array_index (reductions, gint32, i);
    guint32 opt = add_task (bd, PROG_TASK_COMPUTE, PROG_STREAM_COMPUTE, PROG_PHASE_OPTIMIZER, -1,
                            0, -1, deps, (int) reductions->len + 1);
    task_mut (bd, opt)->block = blk;
    task_mut (bd, opt)->hw_flops = prog_block (prog, blk)->hw_flops;
    last = (gint32) opt;
  }
  /* ZeRO-1/2 without overlap: gather the updated parameters now */
  if (dist_opt && !p->overlap_param_gather)
    for (guint i = 0; i < buckets->len; i++)
      {
        Bucket *bk = &g_array_index (buckets, Bucket, i);
        coll (bd, PROG_STREAM_DP, PROG_COMM_DP, PLAN_COLL_ALL_GATHER, grad_axis,
              bucket_gather_bytes (bk, p), PROG_PHASE_OPTIMIZER, -1,
              bk->chunk, bk->first_layer, last, -1);
      }
  if (dist_opt && !p->overlap_param_gather)
    for (guint i = 0; i < ebuckets->len; i++)
      {
        Bucket *bk = &g_array_index (ebuckets, Bucket, i);
        coll (bd, PROG_STREAM_DP, PROG_COMM_DP, PLAN_COLL_ALL_GATHER, PLAN_AXIS_EDP,
              bk->params * plan_precision_bytes (p->param_dtype), PROG_PHASE_OPTIMIZER, -1,
              bk->chunk, bk->first_layer, last, -1);
      }
  memset (&bd->rs, 0, sizeof bd->rs);
  g_array_free (reductions, TRUE);
  sync_disarm (bd);

  st->first = first_task;
  st->n_tasks = prog->tasks->len - first_task;
  st->layers = plan_stage_layers (p, bd->m, stage);
  for (guint32 i = first_task; i < prog->tasks->len; i++)
    {
      const ProgTask *t = prog_task (prog, i);
      st->model_flops += t->model_flops;
      st->hw_flops += t->hw_flops;
    }
}

ProgProgram *
prog_program_new (const ModelSpec *model, const Plan *plan, const PlanLayout *layout,
                  GError **error)
{
  const ProgSchedOps *sched = prog_sched_lookup (plan->schedule);
  if (sched == NULL || plan->dp <= 0 || plan->grad_accum <= 0)
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID,
                   "the plan is not resolved (hint: call plan_resolve first)");
      return NULL;
    }
  g_autoptr (ProgProgram) prog = g_new0 (ProgProgram, 1);
  prog->model = model_spec_ref ((ModelSpec *) model);
  plan_copy (&prog->plan, plan);
  prog->n_stages = plan->pp;
  prog->stages = g_new0 (ProgStage, plan->pp);
  /* Reserve what the program will need (about 14 tasks per layer and micro-batch with
   * TP and SP, two dependencies each; with TP-comm overlap each block is 4 pieces with a
   * collective on either side, up to about 70 with full recompute and ZeRO-3's gathers;
   * CP adds its exchanges) so the arrays do not grow by copying: a realloc of a big array
   * copied it whole, a quarter of a search's screening. Pages not written cost nothing. */
  guint64 per_layer_mb = plan->tp_comm_overlap && plan->tp > 1 ? 80 : 24;
  /* async TP: tp pieces (up to 16) with a collective each, per block and pass */
  if (plan->tp_comm_overlap && plan->tp_grad_rs_whole > 0 && plan->tp > 4)
    per_layer_mb = 20 * (guint64) MIN (plan->tp, 16);
  if (plan->cp > 1)
    per_layer_mb += 8;
  guint est = (guint) MIN ((guint64) plan->grad_accum * model->n_layers * per_layer_mb + 4096,
                           1u << 26);
  prog->tasks = g_array_sized_new (FALSE, FALSE, sizeof (ProgTask), est);
  prog->deps = g_array_sized_new (FALSE, FALSE, sizeof (guint32), 2 * est);
  util_advise_hugepages (prog->tasks->data, sizeof (ProgTask) * (gsize) est);
  util_advise_hugepages (prog->deps->data, sizeof (guint32) * 2 * (gsize) est);
  prog->stamps = g_array_new (FALSE, FALSE, sizeof (ProgStampRun));
  prog->blocks = g_array_new (FALSE, FALSE, sizeof (ProgBlock));
  prog->ops = g_array_new (FALSE, FALSE, sizeof (ModelOp));
  prog->compute_dtype = plan->compute_dtype == PLAN_PREC_FP4 ? TOPO_DTYPE_FP4
                        : plan->compute_dtype == PLAN_PREC_FP8 ? TOPO_DTYPE_FP8
                        : plan->compute_dtype == PLAN_PREC_FP32 ? TOPO_DTYPE_FP32
                        : plan->compute_dtype == PLAN_PREC_FP16 ? TOPO_DTYPE_FP16
                        : TOPO_DTYPE_BF16;
  prog->gemm_dtype = plan_gemm_dtype (plan);

  Builder bd = { 0 };
  bd.prog = prog;
  bd.tasks_cap = est;
  bd.deps_cap = 2 * est;
  bd.m = model;
  bd.plan = &prog->plan;
  bd.layout = layout;
  bd.b = (guint64) plan->micro_batch;
  bd.attn_dropout = plan_dropout (model, plan);
  bd.s = (guint64) plan->seq_length;
  bd.t = (guint64) plan->tp;
  bd.c = (guint64) plan->cp;
  bd.tok = bd.b * bd.s / bd.c;
  bd.tok_sp = plan->sequence_parallel ? bd.tok / bd.t : bd.tok;
  /* Activations travel in bf16 (also in FP8 training: Transformer Engine keeps bf16
   * between GEMMs); an fp32 plan (the CPU engine) sends fp32. */
  bd.elt_bytes = plan->compute_dtype == PLAN_PREC_FP32 ? 4.0 : 2.0;
  bd.act_bytes = (double) bd.tok * model->hidden * bd.elt_bytes;
  /* torchao's Float8 tensor parallelism (torchao/float8/float8_tensor_parallel.py, which
   * torchtitan's apply_tp uses for tensorwise float8): PrepareFloat8ModuleInput and
   * Float8ColwiseParallel cast a layer's sequence-sharded input to float8 before the
   * all-gather, and Float8RowwiseParallel's output gradient is cast to float8 (e5m2)
   * before its backward all-gather, so every all-gather of a layer moves 1 byte per
   * element; the reduce-scatters carry the bf16 GEMM outputs and input gradients. The
   * output layer stays bf16 (torchtitan leaves it out of the float8 conversion).
   * Transformer Engine does the same (megatron-core and nemo stacks since round 32): its
   * LayerNormLinear writes the norm output in FP8 and gathers the uint8 tensor, re-gathers
   * it for the weight gradient, and casts a row-parallel layer's output gradient to FP8
   * before gathering it (frameworks/presets megatron-core.json "fp8.tp_all_gather"). */
  bd.tp_ag_bytes = bd.act_bytes;
  if (prog->compute_dtype == TOPO_DTYPE_FP8 && plan->tp_all_gather_fp8 > 0)
    bd.tp_ag_bytes = (double) bd.tok * model->hidden * 1.0;
  bd.pp_bytes = (double) bd.tok_sp * model->hidden * bd.elt_bytes;
  /* Megatron-LM's scatter-gather pipeline sends (plan.h pp_scatter_gather;
   * p2p_communication.py _communicate: split_tensor_into_1d_equal_chunks before the send,
   * gather_split_1d_tensor after the receive), only without SP (the 2022 code's
   * `scatter_gather_tensors_in_pipeline and not sequence_parallel`) and where tp divides
   * the elements (the 2021 code's override otherwise) */
  bd.pp_gather = plan->pp_scatter_gather > 0 && !plan->sequence_parallel && bd.t > 1
                 && ((guint64) bd.tok_sp * model->hidden) % bd.t == 0;
  bd.pp_wire_bytes = bd.pp_gather ? bd.pp_bytes / (double) bd.t : bd.pp_bytes;
  /* K and V as CP exchanges them: at the query heads where the model repeats them
   * before SDPA (plan.h cp_kv_repeated: torchtitan) */
  bd.kv_bytes = 2.0 * bd.tok
                * MAX ((plan->cp_kv_repeated > 0 ? model->n_heads : model->n_kv_heads) / bd.t, 1)
                * model->head_dim * bd.elt_bytes;
  bd.grad_bytes_per_param = plan_precision_bytes (plan->grad_dtype);
  bd.m_micro = plan->grad_accum;
  bd.n_model_chunks = plan->pp * plan->vpp;
  bd.pair_key = g_array_new (FALSE, FALSE, sizeof (guint32));
  /* with torch's lock step, the empty messages' keys follow the transfers' */
  int n_keys = 2 * bd.m_micro * bd.n_model_chunks;
  bd.gate = g_array_new (FALSE, FALSE, sizeof (gint32));
  bd.recvs = g_array_new (FALSE, FALSE, sizeof (guint32));
  if (lockstep_applies (&bd))
    {
      g_autofree int *step = g_new (int, 2 * bd.m_micro * plan->vpp + 1);
      for (int r = 0; r < plan->pp; r++)
        bd.lock_steps = MAX (bd.lock_steps, lockstep_steps (plan->pp, plan->vpp, bd.m_micro,
                                                            r, step));
      n_keys += 2 * plan->pp * bd.lock_steps;
    }
  bd.grad_pair_key = n_keys;
  if (plan->schedule == PLAN_SCHED_DUALPIPE)
    n_keys += plan->pp;
  bd.send_of = g_new (gint32, n_keys);
  for (int i = 0; i < n_keys; i++)
    bd.send_of[i] = -1;
  bd.chunk_first = g_new (int, bd.n_model_chunks + 1);
  bd.chunk_first[0] = 0;
  for (int c = 0; c < bd.n_model_chunks; c++)
    bd.chunk_first[c + 1] = bd.chunk_first[c]
                            + plan_chunk_layers (plan, model, c % plan->pp, c / plan->pp);
  /* CPU activation offload (Megatron-Core --cpu-offloading, no recompute: as the memory
   * model, plan/memory.c): each copy moves one layer's stored activations of a
   * micro-batch on this rank */
  bd.compute_gate = -1;
  bd.offload_layers = plan->recompute == PLAN_RECOMPUTE_NONE ? MAX (plan->cpu_offload_layers, 0)
                                                             : 0;
  bd.offload_copy = g_new (gint32, MAX (model->n_layers, 1));
  if (bd.offload_layers > 0)
    {
      PlanMemLayerActs acts;
      plan_memory_layer_activations (model, plan, NULL, &acts);
      bd.offload_bytes = (double) acts.total;
    }
  bd.param_ag_of_layer = g_new (gint32, model->n_layers);
  bd.recompute_ag = bd.recompute_eag = -1;
  bd.expert_ag_of_layer = g_new (gint32, model->n_layers);
  bd.layer_params_local = g_new (double, model->n_layers);
  bd.layer_expert_params_local = g_new0 (double, model->n_layers);
  bd.layer_fp8_params_local = g_new0 (double, model->n_layers);

  ModelParams mp;
  model_spec_params (model, &mp);
  prog_builder_moe_shape (&bd);
  for (guint64 l = 0; l < model->n_layers; l++)
    if (bd.moe.experts > 0)
      plan_layer_params_local (plan, model, &bd.moe, (int) l, &bd.layer_params_local[l],
                               &bd.layer_expert_params_local[l]);
    else
      {
        /* a hybrid Mamba-2 model's layer holds its MLP only if it is an MLP layer */
        const gboolean has_mlp = !model_spec_is_mamba (model)
                                 || model_spec_layer_kind (model, l) == '-';
        const double linear = plan_layer_mixer_params (model, (int) l)
                              + (has_mlp ? (double) mp.mlp_per_layer : 0.0);
        bd.layer_params_local[l] = linear / bd.t + (double) mp.norms_per_layer;
        /* torchao's enable_fsdp_float8_all_gather (torchtitan docs/float8.md: "cast
         * Float8Linear.weight from high precision to float8 before FSDP all-gather"): a
         * dense layer's linear weights (with their biases, where a model has them) */
        if ((plan->fsdp_float8_all_gather && prog->compute_dtype == TOPO_DTYPE_FP8)
            || plan_fp8_params (plan))
          bd.layer_fp8_params_local[l] = linear / bd.t;
      }
  bd.embed_params_local = (double) mp.input_embedding / bd.t;
  /* A layer's parameter tensors as Megatron's modules hold them (linear_qkv, linear_proj,
   * linear_fc1 with gate and up fused, linear_fc2; their biases; two norms, with a bias
   * for LayerNorm): 12 for GPT-3, 6 for Llama. */
  prog->zero3_calls = 1;
  if (plan->zero3_per_tensor > 0)
    prog->zero3_calls = 4 + (model->attn_bias ? 2 : 0) + (model->mlp_bias ? 2 : 0)
                        + 2 * (model->norm == MODEL_NORM_LAYER ? 2 : 1);
  bd.head_params_local = (double) (mp.output_head ? mp.output_head : 0) / bd.t
                         + (double) mp.final_norm;
  if (plan->mtp_num_layers > 0)
    {
      plan_mtp_params_local (plan, model, &bd.moe, &bd.mtp_params_local,
                             &bd.mtp_expert_params_local);
      /* untied: the last stage's own copy of the word embedding (a tied model's head is
       * that copy already) */
      bd.mtp_embed_local = mp.output_head > 0 ? (double) (model->vocab * model->hidden) / bd.t
                                              : 0;
    }

  bd.q_div = 1;
  prog_builder_build_blocks (&bd);
  prog_builder_build_moe_blocks (&bd);
  /* FSDP2's post_backward wait under torch.distributed.pipelining (post_backward_wait) */
  bd.rs_wait_blk = G_MAXUINT32;
  if (plan->pp > 1 && plan->pp_grad_after_stage > 0)
    {
      g_autoptr (GArray) ops = g_array_new (FALSE, TRUE, sizeof (ModelOp));
      bd.rs_wait_blk = prog_builder_add_block (&bd, PROG_BLOCK_GRAD_ACCUM, PROG_PHASE_BACKWARD,
                                               "fsdp_rs_wait", ops, 0);
    }
  /* FSDP2's unsharded gradient accumulation (plan.h grad_accum_upcast): per layer, the
   * first micro-batch's upcast to fp32 and the later ones' fp32 add, one op each over the
   * layer's gradients on this rank (a layer of equal size reuses the blocks before it) */
  bd.grad_accum_blk = NULL;
  if (plan->grad_accum_upcast > 0 && plan->sharding == PLAN_SHARD_ZERO2
      && plan->zero2_grad_sync == 0 && bd.m_micro > 1)
    {
      bd.grad_accum_blk = g_new (guint32, 2 * model->n_layers);
      double prev = -1;
      for (guint64 l = 0; l < model->n_layers; l++)
        {
          double params = bd.layer_params_local[l] + bd.layer_expert_params_local[l];
          if (params != prev)
            {
              g_autoptr (GArray) ops = g_array_new (FALSE, TRUE, sizeof (ModelOp));
              prog_builder_elem (ops, "fsdp_grad_upcast", MODEL_OP_ELEMENTWISE,
                                 (guint64) params, 0);
              bd.grad_accum_blk[2 * l] = prog_builder_add_block (
                &bd, PROG_BLOCK_GRAD_ACCUM, PROG_PHASE_BACKWARD, "grad_upcast", ops, 0);
              prog_builder_elem (ops, "fsdp_grad_accum", MODEL_OP_ELEMENTWISE,
                                 (guint64) params, 0);
              bd.grad_accum_blk[2 * l + 1] = prog_builder_add_block (
                &bd, PROG_BLOCK_GRAD_ACCUM, PROG_PHASE_BACKWARD, "grad_accum", ops, 0);
              prev = params;
            }
          else
            {
              bd.grad_accum_blk[2 * l] = bd.grad_accum_blk[2 * l - 2];
              bd.grad_accum_blk[2 * l + 1] = bd.grad_accum_blk[2 * l - 1];
            }
        }
    }
  /* FSDP2's copies (plan.h zero3_copy_in_out), in bytes read plus written: out of the
   * all-gather buffer, the gathered bytes twice; into the reduce-scatter buffer, the bf16
   * gradient read and written in the reduce dtype */
  bd.copy_out_blk = bd.copy_in_blk = NULL;
  if ((plan->zero3_copy_in_out > 0 || plan->zero3_grad_copy_in > 0)
      && (plan->sharding == PLAN_SHARD_ZERO3 || plan->sharding == PLAN_SHARD_HSDP))
    {
      /* (plan.h zero3_grad_copy_in alone: the copy-in blocks, no copy-out) */
      const gboolean out = plan->zero3_copy_in_out > 0;
      bd.copy_out_blk = out ? g_new (guint32, model->n_layers) : NULL;
      bd.copy_in_blk = g_new (guint32, model->n_layers);
      double prev = -1;
      for (guint64 l = 0; l < model->n_layers; l++)
        {
          double gathered = layer_gather_bytes (&bd, (int) l);
          double params = bd.layer_params_local[l];
          if (gathered != prev || l == 0 || params != bd.layer_params_local[l - 1])
            {
              g_autoptr (GArray) ops = g_array_new (FALSE, TRUE, sizeof (ModelOp));
              if (out)
                {
                  prog_builder_elem (ops, "fsdp_copy", MODEL_OP_ELEMENTWISE,
                                     (guint64) (2 * gathered), 0);
                  bd.copy_out_blk[l] = prog_builder_add_block (
                    &bd, PROG_BLOCK_GRAD_ACCUM, PROG_PHASE_FORWARD, "fsdp_copy_out", ops, 0);
                }
              prog_builder_elem (ops, "fsdp_copy", MODEL_OP_ELEMENTWISE,
                                 (guint64) (params * (2 + bd.grad_bytes_per_param)), 0);
              bd.copy_in_blk[l] = prog_builder_add_block (
                &bd, PROG_BLOCK_GRAD_ACCUM, PROG_PHASE_BACKWARD, "fsdp_copy_in", ops, 0);
              prev = gathered;
            }
          else
            {
              if (out)
                bd.copy_out_blk[l] = bd.copy_out_blk[l - 1];
              bd.copy_in_blk[l] = bd.copy_in_blk[l - 1];
            }
        }
    }
  /* FSDP1's passes before each per-micro-batch reduce-scatter (plan.h zero2_reduce_passes;
   * reduce_passes_bytes), one block per layer of a new size, and the embedding's and
   * the head's */
  bd.reduce_pass_blk = NULL;
  bd.embed_pass_blk = bd.head_pass_blk = G_MAXUINT32;
  if (plan->zero2_reduce_passes > 0 && plan->sharding == PLAN_SHARD_ZERO2
      && plan->zero2_grad_sync > 0 && reduce_passes_bytes (&bd) > 0)
    {
      const double per_param = reduce_passes_bytes (&bd);
      bd.reduce_pass_blk = g_new (guint32, model->n_layers);
      for (guint64 l = 0; l < model->n_layers; l++)
        if (l > 0 && bd.layer_params_local[l] == bd.layer_params_local[l - 1])
          bd.reduce_pass_blk[l] = bd.reduce_pass_blk[l - 1];
        else
          bd.reduce_pass_blk[l] = reduce_pass_block (&bd, bd.layer_params_local[l] * per_param);
      if (bd.embed_params_local > 0)
        bd.embed_pass_blk = reduce_pass_block (&bd, bd.embed_params_local * per_param);
      if (bd.head_params_local > 0)
        bd.head_pass_blk = reduce_pass_block (&bd, bd.head_params_local * per_param);
    }
  /* Transformer Engine overlaps TP communication with the GEMMs in pieces; 4 pieces per
   * block (U: TE's userbuffers split ring exchanges per TP rank; we keep the count small
   * and fixed so the program stays compact). */
  bd.tp_chunks = plan->tp_comm_overlap && bd.t > 1 ? 4 : 1;
  /* PyTorch's async TP decomposes a fused GEMM into one GEMM per TP rank's shard
   * (torch/distributed/_symmetric_memory: fused_all_gather_matmul runs the matmul on
   * each gathered shard as it arrives, fused_matmul_reduce_scatter one matmul per
   * destination rank): tp pieces, each on tokens / tp. The stack's TP-comm overlap is
   * PyTorch's async TP where it leaves the backward's input gradient whole (plan.h
   * tp_grad_rs_whole: torchtitan, whose only TP overlap it is), --async-tp or not */
  const gboolean pytorch_async = plan->tp_comm_overlap && plan->tp_grad_rs_whole > 0;
  if (pytorch_async && bd.t > 1)
    bd.tp_chunks = (int) MIN (bd.t, 16);
  for (int b = 0; b < 32; b++)
    bd.blk_rest[b] = G_MAXUINT32;
  bd.async_tp_reduce = G_MAXUINT32;
  if (bd.tp_chunks > 1)
    {
      guint32 full[32];
      memcpy (full, bd.blk, sizeof full);
      guint64 tok = bd.tok, tok_sp = bd.tok_sp, s_tokens = bd.s;
      bd.tok /= (guint64) bd.tp_chunks;
      bd.tok_sp = MAX (bd.tok_sp / (guint64) bd.tp_chunks, 1);
      bd.q_div = (guint64) bd.tp_chunks;
      prog_builder_build_blocks (&bd);
      bd.q_div = 1;
      memcpy (bd.blk_chunk, bd.blk, sizeof full);
      memcpy (bd.blk, full, sizeof full);
      bd.tok = tok, bd.tok_sp = tok_sp, bd.s = s_tokens;
      if (pytorch_async)
        async_tp_split (&bd);
    }
  /* DualPipe's zero-bubble split (sched-dualpipe.c): every backward block with weight-
   * gradient GEMMs (the *_wgrad of gemm_bwd and the experts') in two, the rest and those;
   * model FLOPs shared as the executed FLOPs are */
  bd.w_fifo = g_queue_new ();
  if (plan->schedule == PLAN_SCHED_DUALPIPE)
    {
      guint n = prog->blocks->len;
      bd.w_split = g_new (guint32, 2 * n);
      bd.w_split_n = n;
      g_autoptr (GArray) b_ops = g_array_new (FALSE, TRUE, sizeof (ModelOp));
      g_autoptr (GArray) w_ops = g_array_new (FALSE, TRUE, sizeof (ModelOp));
      for (guint b = 0; b < n; b++)
        {
          bd.w_split[2 * b] = bd.w_split[2 * b + 1] = G_MAXUINT32;
          ProgBlock blk = g_array_index (prog->blocks, ProgBlock, b);
          if (blk.phase != PROG_PHASE_BACKWARD)
            continue;
          g_array_set_size (b_ops, 0);
          g_array_set_size (w_ops, 0);
          for (guint32 o = blk.first_op; o < blk.first_op + blk.n_ops; o++)
            {
              const ModelOp *op = &g_array_index (prog->ops, ModelOp, o);
              g_array_append_val (op->name && strstr (op->name, "wgrad") ? w_ops : b_ops, *op);
            }
          if (w_ops->len == 0 || b_ops->len == 0)
            continue;
          double w_hw = 0;
          for (guint i = 0; i < w_ops->len; i++)
            w_hw += g_array_index (w_ops, ModelOp, i).fwd_flops;
          double w_mf = blk.hw_flops > 0 ? blk.model_flops * w_hw / blk.hw_flops : 0;
          bd.w_split[2 * b] = prog_builder_add_block (&bd, blk.kind, PROG_PHASE_BACKWARD,
                                                      blk.name, b_ops, blk.model_flops - w_mf);
          bd.w_split[2 * b + 1] = prog_builder_add_block (&bd, blk.kind, PROG_PHASE_BACKWARD,
                                                          "weight_grad", w_ops, w_mf);
        }
    }
  for (int s = 0; s < plan->pp; s++)
    {
      bd.stage = s;
      build_stage (&bd, sched);
      g_assert (g_queue_is_empty (bd.w_fifo));
    }
  g_queue_free (bd.w_fifo);
  g_free (bd.w_split);
  /* resolve pipeline peers: a RECV's peer_task held the key of its SEND */
  gboolean ok = TRUE;
  for (guint r = 0; r < bd.recvs->len; r++)
    {
      guint32 i = g_array_index (bd.recvs, guint32, r);
      ProgTask *t = &g_array_index (prog->tasks, ProgTask, i);
      g_assert (t->kind == PROG_TASK_RECV);
      gint32 send = bd.send_of[t->peer_task];
      if (send < 0)
        {
          ok = FALSE;
          break;
        }
      t->peer_task = send;
      g_array_index (prog->tasks, ProgTask, send).peer_task = (gint32) i;
    }
  g_free (bd.send_of);
  g_array_free (bd.recvs, TRUE);
  g_array_free (bd.pair_key, TRUE);
  g_free (bd.pair_order);
  g_free (bd.pair_newpos);
  g_free (bd.pair_old);
  g_array_free (bd.gate, TRUE);
  g_free (bd.chunk_first);
  g_free (bd.param_ag_of_layer);
  g_free (bd.offload_copy);
  g_free (bd.expert_ag_of_layer);
  g_free (bd.layer_params_local);
  g_free (bd.layer_expert_params_local);
  g_free (bd.layer_fp8_params_local);
  g_free (bd.grad_accum_blk);
  g_free (bd.copy_out_blk);
  g_free (bd.copy_in_blk);
  g_free (bd.reduce_pass_blk);
  if (!ok)
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID,
                   "internal: a pipeline receive has no matching send");
      return NULL;
    }

  prog->tokens_per_step = (double) plan->global_batch * plan->seq_length;
  double hw = 0;
  for (int s = 0; s < plan->pp; s++)
    hw += prog->stages[s].hw_flops;
  /* every stage is replicated over tp x cp x dp ranks */
  prog->hw_flops_per_step = hw * plan->tp * plan->cp * plan->dp;
  return g_steal_pointer (&prog);
}

void
prog_program_free (ProgProgram *prog)
{
  if (prog == NULL)
    return;
  model_spec_unref (prog->model);
  plan_clear (&prog->plan);
  for (int s = 0; prog->stages && s < prog->n_stages; s++)
    g_free (prog->stages[s].slot_first);
  g_free (prog->stages);
  if (prog->tasks)
    g_array_free (prog->tasks, TRUE);
  if (prog->deps)
    g_array_free (prog->deps, TRUE);
  if (prog->blocks)
    g_array_free (prog->blocks, TRUE);
  if (prog->stamps)
    g_array_free (prog->stamps, TRUE);
  if (prog->ops)
    g_array_free (prog->ops, TRUE);
  g_free (prog);
}
