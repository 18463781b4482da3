/* exec/runner-block.c - the compute tasks: embedding, attention (whole, or its CP pieces
 * with ring attention or gathered K/V), MLP, head with the vocab-parallel loss, and the
 * optimizer step; forward, recompute and backward.
 *
 * The data of a (micro-batch, chunk) flows through fixed buffers of its unit
 * (runner-private.h). Forward: a block reads its layer's full input (x_attn, x_mlp) and
 * writes its output, a partial sum over TP, to `partial`; the TP collective after it
 * (runner-task.c) reduces `partial` into the next block's input (all-reduce), or into
 * the residual shard `h` (reduce-scatter, sequence parallelism) which the all-gather
 * before the next block expands into that block's input. Without TP a block writes the
 * next input directly. Backward mirrors it with dfull (a block's output gradient),
 * dpartial (its input gradient, partial over TP) and dh (the shard) (Megatron-LM's f/g
 * operators, Shoeybi et al. 2019; sequence parallelism, Korthikanti et al. 2022).
 *
 * Ring attention (Liu et al. 2023): the ring task posts the first K/V pass; the core
 * computes the chunk it holds while the next pass travels, posting each pass as the
 * previous one lands. Backward, the K/V travel the same way and each chunk's dK/dV
 * travel one step behind, accumulating every rank's contribution, so that after cp
 * passes each rank holds the gradient of its own K/V. */
#include "exec/runner-private.h"

#include <string.h>

gboolean
runner_sp (const ExecRunner *r)
{
  return r->plan->sequence_parallel && r->tp > 1;
}

static gboolean
add_residual (const ExecRunner *r)
{
  return r->tp_rank == 0;   /* the residual is folded into one TP rank's partial sum */
}

/* Member index, in the group of `axis`, of the rank whose `axis` coordinate is `coord`
 * and whose other coordinates are this rank's. */
int
runner_member_of (ExecRunner *r, PlanAxis axis, int coord)
{
  PlanCoord c;
  plan_layout_coord_of (r->layout, r->rank, &c);
  c.coord[axis] = coord;
  int rank = plan_layout_rank_of (r->layout, &c);
  ExecGroup *g = r->groups[axis];
  for (int i = 0; i < g->size; i++)
    if (g->members[i] == rank)
      return i;
  g_assert_not_reached ();
  return -1;
}

/* The CP coordinate of member j of the CP group (whose K/V sit in slot j of a gather). */
static int
cp_coord_of_member (ExecRunner *r, int j)
{
  PlanCoord c;
  plan_layout_coord_of (r->layout, r->groups[PLAN_AXIS_CP]->members[j], &c);
  return c.coord[PLAN_AXIS_CP];
}

static void
mark_start (ExecRunner *r, RunTaskState *ts)
{
  exec_event_record (ts->start, r->compute, NULL);
}

RunBucket *
runner_bucket_of_seg (ExecRunner *r, int seg)
{
  const RunSeg *sg = &g_array_index (r->segs, RunSeg, seg);
  return &g_array_index (r->buckets, RunBucket, sg->bucket);
}

/* Parameters a block reads must have arrived from a pending all-gather (ZeRO): the
 * program orders layers after their gather; the embedding and head are checked here. */
static gboolean
params_ready (ExecRunner *r, int seg, const ProgTask *t, GError **error)
{
  if (seg < 0)
    return TRUE;
  RunBucket *bk = runner_bucket_of_seg (r, seg);
  if (bk->ag_done == NULL)
    return TRUE;
  if (!runner_wait (r, bk->ag_done, t, NULL, "the parameter all-gather", r->grad_axis,
                    error))
    return FALSE;
  bk->ag_done = NULL;
  return TRUE;
}

/* ZeRO-3: add the last reduce-scatter of a layer's gradients to its shard and clear the
 * full gradient before the layer's next backward accumulates into it. */
static gboolean
zero3_fold (ExecRunner *r, RunBucket *bk, const ProgTask *t, GError **error)
{
  if (bk->rs_done == NULL)
    return TRUE;
  if (!runner_wait (r, bk->rs_done, t, NULL, "the gradient reduce-scatter",
                    r->grad_axis, error))
    return FALSE;
  gsize lo, n;
  runner_bucket_owned (r, bk, &lo, &n);
  const ExecKernels *k = exec_kernels_for (r->compute);
  k->add (r->compute, bk->gshard, bk->gshard, bk->gtmp, n);
  k->fill (r->compute, r->grads + bk->off, 0.0f, bk->n_pad);
  bk->rs_done = NULL;
  return TRUE;
}

/* Posts an extra collective (one the program does not list) as interval `slot`. */
static gboolean
extra_post (ExecRunner *r, RunTaskState *ts, int slot, ProgCommKind kind, PlanAxis axis,
            const ExecColl *op, GError **error)
{
  ProgStream st = kind == PROG_COMM_DP ? PROG_STREAM_DP : PROG_STREAM_TP;
  ts->extra_kind[slot] = kind;
  return runner_post (r, st, r->groups[axis], op, &ts->extra[slot], error);
}

/* Waits, inside task t, for everything posted on `stream` so far. */
static gboolean
stream_drain (ExecRunner *r, ProgStream stream, const ProgTask *t, const char *what,
              GError **error)
{
  exec_event_record (r->xev, r->streams[stream], NULL);
  return runner_wait (r, r->xev, t, NULL, what,
                      stream == PROG_STREAM_DP ? r->grad_axis : PLAN_AXIS_TP, error);
}

static void
swap (float **a, float **b)
{
  float *x = *a;
  *a = *b;
  *b = x;
}

/* ---- forward ------------------------------------------------------------------------- */

void
runner_rc_begin (RunUnit *u, int layer)
{
  if (u->rc_layer != layer)
    {
      u->rc_layer = layer;
      u->rc_last = LAST_NONE;
    }
}

static void
set_last (RunUnit *u, gboolean rc, int kind, int layer)
{
  if (rc)
    u->rc_last = kind;
  else
    {
      u->fwd_last = kind;
      u->fwd_last_layer = layer;
    }
}

/* The full input of the block after block `kind` of `layer`. */
float *
runner_next_input (ExecRunner *r, RunUnit *u, int kind, int layer, gboolean rc,
                   GError **error)
{
  if (kind == LAST_ATTN)
    return runner_layer (u, layer)->x_mlp;
  if (rc)
    return u->rc_out;
  if (layer + 1 < u->first + u->n)
    {
      if (!runner_layer_hold (r, u, layer + 1, error))
        return NULL;
      return runner_layer (u, layer + 1)->x_attn;
    }
  return u->out;
}

static ExecAttnDims
ring_dims (const ExecRunner *r)
{
  return (ExecAttnDims) { .B = r->shape.B, .Tq = r->shape.T, .Tk = r->shape.T,
                          .n_head = r->shape.n_head, .n_kv_head = r->shape.n_kv_head,
                          .head_dim = r->shape.head_dim };
}

/* Waits for a ring pass inside the core, counting the wait as the core's idle time. */
static gboolean
pass_wait (ExecRunner *r, RunTaskState *ts, int ev, const ProgTask *t, GError **error)
{
  double t0 = runner_now (r);
  if (!runner_wait (r, r->pass_ev[ev], t, r->ring_task, "a ring attention pass",
                    PLAN_AXIS_CP, error))
    return FALSE;
  ts->wait_s += runner_now (r) - t0;
  return TRUE;
}

gboolean
runner_pass_post (ExecRunner *r, const float *send, float *recv, int tag, int ev,
                  ExecSample *sample, GError **error)
{
  int next = runner_member_of (r, PLAN_AXIS_CP, (r->cp_rank + 1) % r->cp);
  int prev = runner_member_of (r, PLAN_AXIS_CP, (r->cp_rank + r->cp - 1) % r->cp);
  ExecColl op = { .kind = EXEC_COLL_SEND_RECV, .send = send, .recv = recv,
                  .count = 2 * (gsize) r->N * r->kvd, .peer = next, .recv_peer = prev,
                  .tag = tag };
  if (!runner_post (r, PROG_STREAM_CP, r->groups[PLAN_AXIS_CP], &op, sample, error))
    return FALSE;
  exec_event_record (r->pass_ev[ev], r->streams[PROG_STREAM_CP], NULL);
  return TRUE;
}

/* The attention core over every CP rank's K/V: the ring, or the gathered K/V. */
static gboolean
core_forward_cp (ExecRunner *r, const ProgTask *t, RunTaskState *ts, RunLayerActs *L,
                 GError **error)
{
  const ExecKernels *k = exec_kernels_for (r->compute);
  ExecAttnDims d = ring_dims (r);
  gsize kv = (gsize) r->N * r->kvd;
  int c = r->cp;
  ExecAttnActs *a = &L->attn;
  k->attn_init (r->compute, a->att, a->lse, &d);
  if (r->plan->cp_comm == PLAN_CP_ALLGATHER)
    {
      for (int j = 0; j < c; j++)
        {
          const float *buf = r->kv_all + (gsize) j * 2 * kv;
          k->attn_forward (r->compute, a->att, a->lse, a->q, r->pos, buf, buf + kv,
                           r->pos_of[cp_coord_of_member (r, j)], &d);
        }
      return TRUE;
    }
  RunTaskState *ring = r->ring_ts;
  g_assert (ring != NULL);
  k->attn_forward (r->compute, a->att, a->lse, a->q, r->pos, a->k, a->v, r->pos, &d);
  for (int i = 1; i < c; i++)
    {
      /* pass i - 1 brought the K/V of CP rank cp_rank - i into kv[i % 2] */
      if (!pass_wait (r, ts, (i - 1) % 2, t, error))
        return FALSE;
      float *buf = r->kv[i % 2];
      if (i < c - 1 && !runner_pass_post (r, buf, r->kv[(i + 1) % 2], TAG_KV, i % 2,
                                   i + 1 == c - 1 ? &ring->last : NULL, error))
        return FALSE;
      int j = (r->cp_rank - i + c) % c;
      k->attn_forward (r->compute, a->att, a->lse, a->q, r->pos, buf, buf + kv, r->pos_of[j],
                       &d);
    }
  exec_event_record (ring->done, r->streams[PROG_STREAM_CP], NULL);
  r->ring_ts = NULL;
  return TRUE;
}

static gboolean
core_backward_cp (ExecRunner *r, const ProgTask *t, RunTaskState *ts, RunUnit *u,
                  RunLayerActs *L, GError **error)
{
  const ExecKernels *k = exec_kernels_for (r->compute);
  ExecAttnDims d = ring_dims (r);
  gsize N = (gsize) r->N, kv = N * r->kvd;
  int c = r->cp;
  ExecAttnActs *a = &L->attn;
  k->attn_backward_prep (r->compute, u->delta, a->att, u->datt, &d);
  k->fill (r->compute, u->dq, 0.0f, N * r->qd);
  if (r->plan->cp_comm == PLAN_CP_ALLGATHER)
    {
      k->fill (r->compute, r->dkv_all, 0.0f, 2 * kv * c);
      for (int j = 0; j < c; j++)
        {
          const float *buf = r->kv_all + (gsize) j * 2 * kv;
          float *g = r->dkv_all + (gsize) j * 2 * kv;
          k->attn_backward (r->compute, u->dq, g, g + kv, u->datt, u->delta, a->lse, a->q,
                            r->pos, buf, buf + kv, r->pos_of[cp_coord_of_member (r, j)], &d);
        }
      return TRUE;
    }
  RunTaskState *ring = r->ring_ts;
  g_assert (ring != NULL);
  for (int i = 0; i < c; i++)
    {
      const float *buf = i == 0 ? a->k : r->kv[i % 2];
      if (i >= 1)
        {
          if (!pass_wait (r, ts, (i - 1) % 2, t, error))
            return FALSE;
          if (i < c - 1 && !runner_pass_post (r, buf, r->kv[(i + 1) % 2], TAG_KV, i % 2, NULL, error))
            return FALSE;
        }
      int j = (r->cp_rank - i + c) % c;
      k->fill (r->compute, r->dkv_c, 0.0f, 2 * kv);
      k->attn_backward (r->compute, u->dq, r->dkv_c, r->dkv_c + kv, u->datt, u->delta, a->lse,
                        a->q, r->pos, buf, buf + kv, r->pos_of[j], &d);
      /* add what the ranks before have accumulated for chunk j, pass it on */
      float *send = r->sb[i % 2];
      if (i == 0)
        k->copy (r->compute, send, r->dkv_c, 2 * kv);
      else
        {
          if (!pass_wait (r, ts, 2 + (i - 1) % 2, t, error))
            return FALSE;
          k->add (r->compute, send, r->dkv_c, r->inbox[i % 2], 2 * kv);
        }
      float *recv = i == c - 1 ? u->dkv : r->inbox[(i + 1) % 2];
      if (!runner_pass_post (r, send, recv, TAG_DKV, 2 + i % 2, i == c - 1 ? &ring->last : NULL,
                      error))
        return FALSE;
    }
  exec_event_record (ring->done, r->streams[PROG_STREAM_CP], NULL);
  r->ring_ts = NULL;
  return TRUE;
}

static gboolean
embed_forward (ExecRunner *r, const ProgTask *t, RunTaskState *ts, GError **error)
{
  RunUnit *u = runner_unit (r, t->mb, t->chunk, error);
  if (!u || !runner_layer_hold (r, u, u->first, error) || !params_ready (r, r->embed_seg, t,
                                                                          error))
    return FALSE;
  const RunSeg *sg = &g_array_index (r->segs, RunSeg, r->embed_seg);
  float *x0 = runner_layer (u, u->first)->x_attn;
  /* vocab-parallel embedding: each TP rank has the rows of its vocab shard, summed by the
   * program's next task (a reduce-scatter with SP, else an all-reduce: runner-task.c) */
  exec_embed_forward (r->compute, &r->shape, r->params + sg->off, u->tokens,
                      r->tp > 1 ? u->partial : x0);
  u->fwd_last = LAST_NONE;
  return TRUE;
}

static gboolean
embed_backward (ExecRunner *r, const ProgTask *t, RunTaskState *ts, GError **error)
{
  RunUnit *u = runner_unit (r, t->mb, t->chunk, error);
  if (!u)
    return FALSE;
  /* with SP the program's all-gather before this task has put the gradient in dfull */
  const RunSeg *sg = &g_array_index (r->segs, RunSeg, r->embed_seg);
  exec_embed_backward (r->compute, &r->shape, r->grads + sg->off, u->tokens, u->dfull);
  runner_unit_retire (r, u, ts);
  return TRUE;
}

static void
head_weights (ExecRunner *r, const float **fnorm, const float **wlm, float **dfnorm,
              float **dwlm)
{
  const RunSeg *h = &g_array_index (r->segs, RunSeg, r->head_seg);
  gsize wl = r->tied ? g_array_index (r->segs, RunSeg, r->embed_seg).off : h->off + r->shape.C;
  *fnorm = r->params + h->off;
  *wlm = r->params + wl;
  *dfnorm = r->grads + h->off;
  *dwlm = r->grads + wl;
}

static gboolean
head_forward (ExecRunner *r, const ProgTask *t, RunTaskState *ts, GError **error)
{
  RunUnit *u = runner_unit (r, t->mb, t->chunk, error);
  if (!u || !params_ready (r, r->head_seg, t, error)
      || (r->tied && !params_ready (r, r->embed_seg, t, error)))
    return FALSE;
  gsize N = (gsize) r->N;
  /* with SP the program's all-gather before this task has gathered the head's input,
   * sequence-sharded after the last layer, into out (Megatron's ColumnParallelLinear
   * gathers its input under sequence parallelism) */
  const float *fnorm, *wlm;
  float *dfnorm, *dwlm;
  head_weights (r, &fnorm, &wlm, &dfnorm, &dwlm);
  exec_head_forward (r->compute, &r->shape, fnorm, wlm, u->out, u->targets, &u->head,
                     u->lse_part, u->tgt_part);
  const float *lse_parts = u->lse_part, *tgt = u->tgt_part;
  if (r->tp > 1)
    {
      /* vocab-parallel cross-entropy: every shard's log-sum-exp and target logit */
      ExecColl op = { .kind = EXEC_COLL_ALL_GATHER, .send = u->lse_part, .recv = u->gathered,
                      .count = 2 * N };
      ts->gap[0] = runner_now (r);
      if (!extra_post (r, ts, 1, PROG_COMM_TP, PLAN_AXIS_TP, &op, error)
          || !stream_drain (r, PROG_STREAM_TP, t, "the loss all-gather", error))
        return FALSE;
      ts->gap[1] = runner_now (r);
      /* tgt_sum = 0 + part 0 + part 1 + ...: one shard holds the target, the rest 0 */
      const ExecKernels *k = exec_kernels_for (r->compute);
      k->fill (r->compute, u->tgt_sum, 0.0f, N);
      for (int p = 0; p < r->tp; p++)
        {
          const float *part = u->gathered + (gsize) p * 2 * N;
          k->copy (r->compute, u->lse_parts + (gsize) p * N, part, N);
          k->add (r->compute, u->tgt_sum, u->tgt_sum, part + N, N);
        }
      lse_parts = u->lse_parts;
      tgt = u->tgt_sum;
    }
  /* the token losses go to the step's record, read back and summed after the step */
  if (r->n_loss >= r->loss_cap)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID, "internal: rank %d: more head "
                   "forwards in a step than its %d micro-batches", r->rank, r->loss_cap);
      return FALSE;
    }
  float *loss = r->loss_rec + (gsize) r->n_loss++ * N;
  exec_ce_combine (r->compute, (int) N, r->tp, lse_parts, tgt, u->targets, u->lse, loss);
  /* the forward ends here: until the backward only the activations and the head stay */
  runner_unit_park (r, u, ts->done);
  return TRUE;
}

static gboolean
head_backward (ExecRunner *r, const ProgTask *t, RunTaskState *ts, GError **error)
{
  RunUnit *u = runner_unit (r, t->mb, t->chunk, error);
  if (!u)
    return FALSE;
  const float *fnorm, *wlm;
  float *dfnorm, *dwlm;
  head_weights (r, &fnorm, &wlm, &dfnorm, &dwlm);
  exec_head_backward (r->compute, &r->shape, fnorm, wlm, dfnorm, dwlm, u->out, u->targets,
                      &u->head, u->lse, r->dloss, u->dpartial, u->scratch);
  runner_release (r, &u->head_buf);
  /* with TP the input gradient is a partial sum over the vocab shards, which the program's
   * next task reduces (runner-task.c) */
  if (r->tp == 1)
    swap (&u->dfull, &u->dpartial);
  return TRUE;
}

/* The full input of the attention (mlp FALSE) or MLP block of layer L: what the TP
 * all-gather (or re-gather) put in r->xg with sequence parallelism, else the kept input. */
static float *
block_input (const ExecRunner *r, RunLayerActs *L, gboolean mlp)
{
  if (runner_sp (r))
    return r->xg[mlp];
  return mlp ? L->x_mlp : L->x_attn;
}

/* Sequence parallelism, forward: the layer keeps this rank's shard of the block input. */
static void
keep_shard (ExecRunner *r, RunLayerActs *L, gboolean mlp)
{
  if (!runner_sp (r))
    return;
  gsize SC = (gsize) r->N_sp * r->shape.C;
  exec_kernels_for (r->compute)->copy (r->compute, mlp ? L->x_mlp : L->x_attn,
                                       r->xg[mlp] + (gsize) r->groups[PLAN_AXIS_TP]->rank * SC,
                                       SC);
}

/* Sequence parallelism, backward: the norm output the block did not keep, from the
 * re-gathered input (an elementwise pass; the program does not count it). */
static void
renorm (ExecRunner *r, const ExecLayerWeights *w, RunLayerActs *L, gboolean mlp)
{
  if (!runner_sp (r))
    return;
  exec_kernels_for (r->compute)->rmsnorm_forward (r->compute, r->xnorm,
                                                  mlp ? L->mlp.rstd : L->attn.rstd,
                                                  r->xg[mlp], mlp ? w->mlp_norm : w->attn_norm,
                                                  r->N, r->shape.C, r->shape.eps);
}

/* Attention, MLP and the CP pieces; forward, recompute and backward. */
static gboolean
layer_block (ExecRunner *r, const ProgTask *t, const ProgBlock *blk, RunTaskState *ts,
             GError **error)
{
  int l = t->layer;
  gboolean rc = t->phase == PROG_PHASE_RECOMPUTE, bwd = t->phase == PROG_PHASE_BACKWARD;
  RunUnit *u = runner_unit (r, t->mb, t->chunk, error);
  if (!u)
    return FALSE;
  if (!bwd && !runner_layer_hold (r, u, l, error))
    return FALSE;
  if (!params_ready (r, r->layer_seg[l], t, error))
    return FALSE;
  RunLayerActs *L = runner_layer (u, l);
  ExecLayerWeights w, g;
  runner_weights (r, l, &w, &g);
  ExecStream *s = r->compute;
  const ExecLayerShape *sh = &r->shape;
  gboolean res = add_residual (r);
  if (rc)
    runner_rc_begin (u, l);

  if (blk->kind == PROG_BLOCK_MOE_ROUTE || blk->kind == PROG_BLOCK_MOE_EXPERTS
      || blk->kind == PROG_BLOCK_MOE_COMBINE || blk->kind == PROG_BLOCK_MOE_SHARED)
    {
      float *out = NULL;
      if (bwd && L->x_mlp == NULL)
        {
          g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID, "internal: rank %d: backward of "
                       "MoE layer %d (micro-batch %d) without its activations", r->rank, l,
                       t->mb);
          return FALSE;
        }
      /* ZeRO-1/2: the experts' updated weights, all-gathered over EDP */
      if (blk->kind == PROG_BLOCK_MOE_EXPERTS && !params_ready (r, r->expert_seg[l], t, error))
        return FALSE;
      if (!runner_moe_block (r, t, blk, u, L, res, &out, error))
        return FALSE;
      if (out)
        set_last (u, rc, LAST_MLP, l);
      if (bwd && blk->kind == PROG_BLOCK_MOE_ROUTE && r->tp == 1)
        swap (&u->dfull, &u->dpartial);   /* tp 1: dx is the layer input's gradient */
      return TRUE;
    }
  if (!bwd)
    {
      float *out = u->partial;
      switch (blk->kind)
        {
        case PROG_BLOCK_ATTN:
        case PROG_BLOCK_ATTN_POST:
          if (r->tp == 1 && !(out = runner_next_input (r, u, LAST_ATTN, l, rc, error)))
            return FALSE;
          if (blk->kind == PROG_BLOCK_ATTN)
            {
              keep_shard (r, L, FALSE);
              /* u->scratch (the backward's) is free during a forward: the fused QKV */
              exec_attn_forward_ws (s, sh, &w, block_input (r, L, FALSE), r->pos, res,
                                    &L->attn, out, u->scratch);
            }
          else
            exec_attn_post_forward (s, sh, &w, block_input (r, L, FALSE), res, &L->attn, out);
          set_last (u, rc, LAST_ATTN, l);
          return TRUE;
        case PROG_BLOCK_ATTN_PRE:
          keep_shard (r, L, FALSE);
          exec_attn_pre_forward_ws (s, sh, &w, block_input (r, L, FALSE), r->pos, &L->attn,
                                    u->scratch);
          return TRUE;
        case PROG_BLOCK_ATTN_CORE:
          if (r->cp == 1)   /* selective recompute */
            {
              exec_attn_core_forward (s, sh, r->pos, &L->attn);
              return TRUE;
            }
          return core_forward_cp (r, t, ts, L, error);
        case PROG_BLOCK_MLP:
          if (r->tp == 1 && !(out = runner_next_input (r, u, LAST_MLP, l, rc, error)))
            return FALSE;
          keep_shard (r, L, TRUE);
          exec_mlp_forward (s, sh, &w, block_input (r, L, TRUE), res, &L->mlp, out);
          set_last (u, rc, LAST_MLP, l);
          /* a recomputed layer keeps only its input until the backward */
          if (!rc && r->recomputed[l])
            runner_layer_drop (r, u, l, TRUE);
          return TRUE;
        default:
          break;
        }
    }
  else
    {
      if (L->x_mlp == NULL)
        {
          g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID, "internal: rank %d: backward of "
                       "layer %d (micro-batch %d) without its activations", r->rank, l, t->mb);
          return FALSE;
        }
      switch (blk->kind)
        {
        case PROG_BLOCK_MLP:
          if (r->zero3 && !zero3_fold (r, runner_bucket_of_seg (r, r->layer_seg[l]), t, error))
            return FALSE;
          renorm (r, &w, L, TRUE);
          exec_mlp_backward (s, sh, &w, &g, block_input (r, L, TRUE), res, &L->mlp, u->dfull,
                             u->dpartial, u->scratch);
          break;
        case PROG_BLOCK_ATTN:
          renorm (r, &w, L, FALSE);
          exec_attn_backward (s, sh, &w, &g, block_input (r, L, FALSE), r->pos, res, &L->attn,
                              u->dfull, u->dpartial, u->scratch);
          runner_layer_drop (r, u, l, FALSE);
          break;
        case PROG_BLOCK_ATTN_POST:
          exec_attn_post_backward (s, sh, &w, &g, res, &L->attn, u->dfull, u->datt,
                                   u->dpartial);
          return TRUE;
        case PROG_BLOCK_ATTN_CORE:
          return core_backward_cp (r, t, ts, u, L, error);
        case PROG_BLOCK_ATTN_PRE:
          renorm (r, &w, L, FALSE);
          exec_attn_pre_backward (s, sh, &w, &g, block_input (r, L, FALSE), r->pos, &L->attn,
                                  u->dq, u->dkv,
                                  u->dkv + (gsize) r->N * r->kvd, u->dpartial, u->scratch);
          runner_layer_drop (r, u, l, FALSE);
          break;
        default:
          g_assert_not_reached ();
        }
      if (r->tp == 1)
        swap (&u->dfull, &u->dpartial);
      return TRUE;
    }
  g_assert_not_reached ();
  return FALSE;
}

gboolean
runner_task_compute (ExecRunner *r, const ProgTask *t, RunTaskState *ts, GError **error)
{
  const ProgBlock *blk = prog_block (r->prog, t->block);
  gboolean fwd = t->phase != PROG_PHASE_BACKWARD;
  gboolean ok;
  mark_start (r, ts);
  switch (blk->kind)
    {
    case PROG_BLOCK_EMBED:
      ok = fwd ? embed_forward (r, t, ts, error) : embed_backward (r, t, ts, error);
      break;
    case PROG_BLOCK_HEAD:
      ok = fwd ? head_forward (r, t, ts, error) : head_backward (r, t, ts, error);
      break;
    case PROG_BLOCK_OPTIMIZER:
      ok = runner_optimizer (r, t, ts, error);
      break;
    default:
      ok = layer_block (r, t, blk, ts, error);
      break;
    }
  if (!ok)
    return FALSE;
  exec_event_record (ts->end, r->compute, NULL);
  exec_event_record (ts->done, r->streams[PROG_STREAM_COMPUTE], NULL);
  return TRUE;
}

/* ---- the optimizer step --------------------------------------------------------------- */

typedef struct {
  ExecStream *s;
  float      *buf;
  gsize       at;
  gboolean    unpack;
  double      ss;
} NormWalk;

static void
norm_pack (float *g, gsize n, gpointer data)
{
  NormWalk *w = data;
  const ExecKernels *k = exec_kernels_for (w->s);
  if (w->unpack)
    k->copy (w->s, g, w->buf + w->at, n);
  else
    k->copy (w->s, w->buf + w->at, g, n);
  w->at += n;
}

static void
norm_ss (float *g, gsize n, gpointer data)
{
  NormWalk *w = data;
  for (gsize i = 0; i < n; i++)
    w->ss += (double) g[i] * g[i];
}

/* Gradients to zero for the next step (and ZeRO-3's owned pieces, which its folds sum). */
static void
clear_grads (ExecRunner *r)
{
  const ExecKernels *k = exec_kernels_for (r->compute);
  if (r->zero3)
    for (guint b = 0; b < r->buckets->len; b++)
      {
        RunBucket *bk = &g_array_index (r->buckets, RunBucket, b);
        gsize lo, n;
        if (runner_bucket_owned (r, bk, &lo, &n))
          k->fill (r->compute, bk->gshard, 0.0f, n);
      }
  k->fill (r->compute, r->grads, 0.0f, r->n_params);
}

gboolean
runner_optimizer (ExecRunner *r, const ProgTask *t, RunTaskState *ts, GError **error)
{
  guint nb = r->buckets->len;
  /* ZeRO-3: the last micro-batch's reduce-scatters, which nothing in the program waits for */
  if (r->zero3)
    for (guint b = 0; b < nb; b++)
      if (!zero3_fold (r, &g_array_index (r->buckets, RunBucket, b), t, error))
        return FALSE;
  gboolean dp_extra = r->zero3 && r->shard_size > 1, tp_extra = r->tp > 1 && r->n_norm_held;
  if (dp_extra || tp_extra)
    ts->gap[0] = runner_now (r);
  if (dp_extra)
    {
      /* ZeRO-3 shards the layers only (as the program's per-layer gathers do): the
       * replicated embedding and head gradients are summed here */
      ExecSample first = { -1, -1 };
      int posted = 0;
      for (guint b = 0; b < nb; b++)
        {
          RunBucket *bk = &g_array_index (r->buckets, RunBucket, b);
          if (bk->sharded)
            continue;
          ExecColl op = { .kind = EXEC_COLL_ALL_REDUCE, .send = r->grads + bk->off,
                          .recv = r->grads + bk->off, .count = bk->n };
          if (!extra_post (r, ts, 1, PROG_COMM_DP, r->grad_axis, &op, error))
            return FALSE;
          if (posted++ == 0)
            first = ts->extra[1];
        }
      if (!stream_drain (r, PROG_STREAM_DP, t, "the embedding and head gradient all-reduce",
                         error))
        return FALSE;
      if (posted)
        ts->extra[1].start_s = first.start_s;
    }
  if (tp_extra)
    {
      /* norm weights are replicated over TP but each rank's gradient is partial */
      NormWalk w = { .s = r->compute, .buf = r->norm_pack };
      runner_held_norms (r, norm_pack, &w);
      ExecColl op = { .kind = EXEC_COLL_ALL_REDUCE, .send = r->norm_pack, .recv = r->norm_pack,
                      .count = r->n_norm_held };
      if (!extra_post (r, ts, 0, PROG_COMM_TP, PLAN_AXIS_TP, &op, error)
          || !stream_drain (r, PROG_STREAM_TP, t, "the norm-gradient all-reduce", error))
        return FALSE;
      w.at = 0;
      w.unpack = TRUE;
      runner_held_norms (r, norm_pack, &w);
    }
  if (dp_extra || tp_extra)
    ts->gap[1] = runner_now (r);

  for (guint b = 0; b < nb; b++)
    {
      RunBucket *bk = &g_array_index (r->buckets, RunBucket, b);
      gsize lo, n;
      gboolean sh = runner_bucket_owned (r, bk, &lo, &n);
      exec_adamw_step (r->compute, &r->opts.adamw, r->step + 1, r->params + lo,
                       sh ? bk->gshard : r->grads + bk->off, bk->m, bk->v, n);
    }
  /* The first step's gradient norm is read after the step (runner_grad_norm): the host
   * reads device memory only once nothing is in flight, so the gradients stay until then
   * and are cleared there instead of here. */
  r->grads_kept = r->step == 0;
  if (!r->grads_kept)
    clear_grads (r);
  return TRUE;
}

gboolean
runner_grad_norm (ExecRunner *r, GError **error)
{
  if (!r->grads_kept)
    return TRUE;
  r->grads_kept = FALSE;
  /* what this rank holds uniquely: a replicated bucket counts on one member of the
   * gradient group, a norm weight on TP rank 0 */
  for (guint b = 0; b < r->buckets->len; b++)
    {
      RunBucket *bk = &g_array_index (r->buckets, RunBucket, b);
      gsize lo, n;
      gboolean sh = runner_bucket_owned (r, bk, &lo, &n);
      /* experts are replicated over EDP only (each EP rank holds its own) */
      int replica = bk->expert ? (r->groups[PLAN_AXIS_EDP] ? r->groups[PLAN_AXIS_EDP]->rank : 0)
                               : r->shard_rank;
      if (!sh && replica != 0)
        continue;
      float *dev;
      ExecBuffer *buf = runner_bucket_held (r, bk, &dev);
      g_autofree float *g = runner_host_try_alloc (MAX (n, 1) * sizeof (float),
                                                   "a gradient bucket's norm", error);
      if (g == NULL || !runner_download (r, buf, dev, g, n * sizeof (float), error))
        return FALSE;
      double ss = 0;
      for (gsize i = 0; i < n; i++)
        ss += (double) g[i] * g[i];
      if (r->tp_rank != 0)
        {
          NormWalk w = { 0 };
          runner_bucket_norms (r, bk, g, norm_ss, &w);
          ss -= w.ss;
        }
      r->grad_ss += ss;
    }
  clear_grads (r);
  return TRUE;
}
