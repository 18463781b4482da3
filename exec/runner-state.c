/* exec/runner-state.c - the runner's buffers and the state of one (micro-batch, chunk):
 * its tokens, the inputs and activations of each layer kept from forward to backward,
 * and the gradients flowing back.
 *
 * A unit is created by its first forward task and retired by its last backward task; a
 * layer's activations live from its forward to its backward (with full recompute only
 * the layer's input survives the forward, and the recompute brings the rest back), so
 * what is held at any time follows the schedule: 1F1B keeps at most pp - stage
 * micro-batches in flight, GPipe all of them. A retired unit's buffers go back to the
 * pool once the task that retired it has completed (every task that touches the unit's
 * buffers is among its dependencies), checked when the next unit is created; whatever is
 * left is freed at the end of the step. */
#include "exec/runner-private.h"

#include <string.h>

/* Buffers are pooled: a released buffer waits in r->pool for the next request of its
 * exact size (the runner asks for a handful of sizes: units, layer activations, heads),
 * so a step reuses the previous step's memory instead of allocating and zeroing it again
 * (about 3% of a tiny-llama step on 2 CPU ranks). A reused buffer is not cleared: every
 * holder writes what it reads (tokens, activations, gradients are set, not accumulated).
 * alloc_now and alloc_peak count the buffers in use, not the pool. */
float *
runner_alloc (ExecRunner *r, gsize n_floats, ExecBuffer **handle, GError **error)
{
  gsize bytes = MAX (n_floats, 1) * sizeof (float);
  ExecBuffer *buf = NULL;
  for (guint i = r->pool->len; i-- > 0;)
    {
      ExecBuffer *p = g_ptr_array_index (r->pool, i);
      if (p->bytes == bytes)
        {
          buf = g_ptr_array_steal_index_fast (r->pool, i);
          break;
        }
    }
  if (buf == NULL && (buf = exec_buffer_new (r->b, bytes, error)) == NULL)
    return NULL;
  r->alloc_now += buf->bytes;
  r->alloc_peak = MAX (r->alloc_peak, r->alloc_now);
  *handle = buf;
  return buf->data;
}

static gboolean
byte_offset (const ExecBuffer *buf, const void *dev, gsize bytes, gsize *off, GError **error)
{
  /* pointer arithmetic only: dev may be device memory */
  guintptr base = (guintptr) buf->data, p = (guintptr) dev;
  if (p < base || p - base > buf->bytes || bytes > buf->bytes - (p - base))
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID, "internal: a copy of %" G_GSIZE_FORMAT
                   " bytes outside its buffer of %" G_GSIZE_FORMAT, bytes, buf->bytes);
      return FALSE;
    }
  *off = p - base;
  return TRUE;
}

gboolean
runner_upload (ExecRunner *r, ExecBuffer *buf, void *dev, const void *src, gsize bytes,
               GError **error)
{
  gsize off;
  return byte_offset (buf, dev, bytes, &off, error)
         && r->b->ops->buffer_upload (r->b, buf, off, src, bytes, error);
}

gboolean
runner_download (ExecRunner *r, const ExecBuffer *buf, const void *dev, void *dst, gsize bytes,
                 GError **error)
{
  gsize off;
  return byte_offset (buf, dev, bytes, &off, error)
         && r->b->ops->buffer_download (r->b, dst, buf, off, bytes, error);
}

void
runner_release (ExecRunner *r, ExecBuffer **handle)
{
  if (*handle == NULL)
    return;
  r->alloc_now -= (*handle)->bytes;
  g_ptr_array_add (r->pool, *handle);
  *handle = NULL;
}

void
runner_pool_free (ExecRunner *r)
{
  if (r->pool == NULL)
    return;
  for (guint i = 0; i < r->pool->len; i++)
    exec_buffer_free (g_ptr_array_index (r->pool, i));
  g_ptr_array_set_size (r->pool, 0);
}

/* SplitMix64's finaliser (Steele, Lea and Flood 2014). */
static guint64
mix64 (guint64 x)
{
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

int
runner_token (const ExecRunner *r, int step, int sequence, int position)
{
  guint64 key = ((guint64) step << 42) ^ ((guint64) sequence << 21) ^ (guint64) position;
  return (int) (mix64 (mix64 (r->opts.seed ^ 0x7A6E6D2Dull) ^ key) % r->model->vocab);
}

void
runner_weights (ExecRunner *r, int layer, ExecLayerWeights *w, ExecLayerWeights *g)
{
  const RunSeg *sg = &g_array_index (r->segs, RunSeg, r->layer_seg[layer]);
  exec_layer_weights_bind (w, &r->shape, r->params + sg->off);
  exec_layer_weights_bind (g, &r->shape, r->grads + sg->off);
}

/* The backward scratch of a unit's blocks; the head's (the logits' gradient, N x vocab/tp,
 * by far the largest on real vocabularies) only in the unit of the last model chunk. */
static gsize
backward_scratch (const ExecRunner *r, gboolean head)
{
  gsize s = MAX (exec_attn_scratch_size (&r->shape), exec_mlp_scratch_size (&r->shape));
  return head ? MAX (s, exec_head_scratch_size (&r->shape)) : s;
}

static void units_reclaim (ExecRunner *r);

/* Takes a parked unit off the parked list: its work buffers stay. */
static void
unit_unpark (ExecRunner *r, RunUnit *u)
{
  if (u->parked_ev == NULL)
    return;
  g_ptr_array_remove_fast (r->parked, u);
  u->parked_ev = NULL;
}

/* The work buffers of a unit (the residual shard, block outputs before their TP
 * reduction, gradients, backward scratch): needed while its forward or its backward runs,
 * not in between, when the layers' activations are all it holds. The output of the last
 * model chunk, which the head's backward reads again, lives with the head instead. */
static gboolean
unit_work_hold (ExecRunner *r, RunUnit *u, GError **error)
{
  unit_unpark (r, u);   /* its backward may start before the forward's buffers went */
  if (u->buf != NULL)
    return TRUE;
  gsize N = (gsize) r->N, C = (gsize) r->shape.C, Nsp = (gsize) r->N_sp;
  gsize kv = 2 * N * r->kvd;
  gboolean own_out = u->head_buf == NULL;
  gsize total = 3 * Nsp * C + (own_out ? 5 : 4) * N * C
                + backward_scratch (r, !own_out) + 2 * N * r->qd
                + N * r->shape.n_head + kv;
  float *m = runner_alloc (r, total, &u->buf, error);
  if (!m)
    return FALSE;
  u->h = m, m += Nsp * C;
  u->h_rc = m, m += Nsp * C;
  u->dh = m, m += Nsp * C;
  u->partial = m, m += N * C;
  if (own_out)
    u->out = m, m += N * C;
  u->rc_out = m, m += N * C;
  u->dfull = m, m += N * C;
  u->dpartial = m, m += N * C;
  u->scratch = m, m += backward_scratch (r, !own_out);
  u->datt = m, m += N * r->qd;
  u->dq = m, m += N * r->qd;
  u->delta = m, m += N * r->shape.n_head;
  u->dkv = m;
  return TRUE;
}

static void
unit_work_release (ExecRunner *r, RunUnit *u)
{
  runner_release (r, &u->buf);
  u->h = u->h_rc = u->dh = u->partial = u->rc_out = u->dfull = u->dpartial = NULL;
  u->scratch = u->datt = u->dq = u->delta = u->dkv = NULL;
  if (u->head_buf == NULL)
    u->out = NULL;
}

RunUnit *
runner_unit (ExecRunner *r, int mb, int chunk, GError **error)
{
  RunUnit **slot = &r->units[(gsize) mb * r->plan->vpp + chunk];
  if (*slot)
    return unit_work_hold (r, *slot, error) ? *slot : NULL;
  units_reclaim (r);
  const Plan *p = r->plan;
  RunUnit *u = g_new0 (RunUnit, 1);
  u->mb = mb;
  u->chunk = chunk;
  u->first = plan_chunk_first_layer (p, r->model, r->stage, chunk);
  u->n = plan_chunk_layers (p, r->model, r->stage, chunk);
  u->layers = g_new0 (RunLayerActs, u->n);
  u->fwd_last = u->rc_last = LAST_NONE;
  u->rc_layer = -1;

  gsize N = (gsize) r->N, C = (gsize) r->shape.C;
  u->tokens = r->tok + (gsize) mb * 2 * N;
  u->targets = u->tokens + N;

  int model_chunk = chunk * p->pp + r->stage;
  if (model_chunk == p->pp * p->vpp - 1)
    {
      gsize n_head = exec_head_acts_size (&r->shape);
      gsize tp = (gsize) r->tp;
      float *h = runner_alloc (r, N * C + n_head + 4 * N + 3 * N * tp, &u->head_buf, error);
      if (!h)
        {
          runner_unit_retire (r, u, NULL);
          return NULL;
        }
      u->out = h, h += N * C;
      exec_head_acts_bind (&u->head, &r->shape, h);
      h += n_head;
      u->lse_part = h, h += N;
      u->tgt_part = h, h += N;
      u->tgt_sum = h, h += N;
      u->lse = h, h += N;
      u->gathered = h, h += 2 * N * tp;
      u->lse_parts = h;
    }
  if (!unit_work_hold (r, u, error))
    {
      runner_unit_retire (r, u, NULL);
      return NULL;
    }
  *slot = u;
  return u;
}

/* The unit's forward has issued its last work (`ended`, an event recorded by the time
 * anything looks): its work buffers go once that has completed, unless its backward
 * claims them first. */
void
runner_unit_park (ExecRunner *r, RunUnit *u, ExecEvent *ended)
{
  if (u->parked_ev == NULL)
    g_ptr_array_add (r->parked, u);
  u->parked_ev = ended;
}

/* The buffer the forward's send goes from: the boundary activation is copied there so
 * that the work buffers need not wait for the next stage to receive it. */
float *
runner_unit_boundary (ExecRunner *r, RunUnit *u, gsize count, GError **error)
{
  if (u->bnd == NULL)
    u->bnd = runner_alloc (r, count, &u->bnd_buf, error);
  return u->bnd;
}

/* The boundary send is posted; `sent` completes with it. */
void
runner_unit_sending (ExecRunner *r, RunUnit *u, ExecEvent *sent)
{
  if (u->bnd_ev == NULL)
    g_ptr_array_add (r->sending, u);
  u->bnd_ev = sent;
}

static void
unit_boundary_release (ExecRunner *r, RunUnit *u)
{
  if (u->bnd_ev != NULL)
    g_ptr_array_remove_fast (r->sending, u);
  u->bnd_ev = NULL;
  runner_release (r, &u->bnd_buf);
  u->bnd = NULL;
}

/* DP rank d takes sequences (d M + mb) B .. + B - 1 of the global batch for micro-batch
 * mb of M; this CP rank the positions pos of each; the target of a token is the next
 * one. Made on the host, uploaded once per step (before its clock starts). */
gboolean
runner_data_upload (ExecRunner *r, GError **error)
{
  const Plan *p = r->plan;
  int B = p->micro_batch, T = r->N / B;
  gsize N = (gsize) r->N;
  g_autofree int *host = g_new (int, 2 * N * p->grad_accum);
  g_autofree int *pos = g_new (int, T);
  exec_cp_positions (T, p->cp, r->cp_rank, TRUE, pos);
  for (int mb = 0; mb < p->grad_accum; mb++)
    {
      int *tokens = host + (gsize) mb * 2 * N, *targets = tokens + N;
      for (int b = 0; b < B; b++)
        {
          int seq = (r->dp_rank * p->grad_accum + mb) * B + b;
          for (int t = 0; t < T; t++)
            {
              tokens[b * T + t] = runner_token (r, r->step, seq, pos[t]);
              targets[b * T + t] = runner_token (r, r->step, seq, pos[t] + 1);
            }
        }
    }
  return runner_upload (r, r->tok_buf, r->tok, host, 2 * N * p->grad_accum * sizeof (int),
                        error);
}

RunLayerActs *
runner_layer (RunUnit *u, int layer)
{
  g_assert (layer >= u->first && layer < u->first + u->n);
  return &u->layers[layer - u->first];
}

/* Two buffers per layer: its input x_attn (the checkpoint of full recompute) and the
 * rest, so that recompute can drop the rest after the forward. With sequence parallelism
 * the block inputs are kept as sequence shards and the norm outputs not at all: the
 * backward re-gathers the inputs into r->xg and recomputes the norm into r->xnorm. */
gboolean
runner_layer_hold (ExecRunner *r, RunUnit *u, int layer, GError **error)
{
  RunLayerActs *a = runner_layer (u, layer);
  gboolean sp = runner_sp (r);
  gsize NC = (gsize) r->N * r->shape.C;
  gsize XC = sp ? (gsize) r->N_sp * r->shape.C : NC;   /* a kept block input */
  if (a->buf == NULL || a->x_mlp == NULL)
    units_reclaim (r);   /* what finished goes back to the pool before more is taken */
  if (a->buf == NULL)
    {
      /* [0]: x_attn; the activation part is a second buffer in a->buf[1] */
      ExecBuffer *in = NULL;
      float *x = runner_alloc (r, XC, &in, error);
      if (!x)
        return FALSE;
      a->buf = in;
      a->x_attn = x;
    }
  if (a->x_mlp == NULL)
    {
      gsize na = exec_attn_acts_size (&r->shape), nm = exec_mlp_acts_size (&r->shape);
      gboolean moe = runner_moe_layer (r, layer);
      if (sp)
        na -= NC, nm -= NC;
      ExecBuffer *ab = NULL;
      float *m = runner_alloc (r, XC + na + nm + (moe ? runner_moe_acts_size (r) : 0), &ab,
                               error);
      if (!m)
        return FALSE;
      a->act_buf = ab;
      a->x_mlp = m;
      if (sp)
        {
          exec_attn_acts_bind_norm (&a->attn, &r->shape, m + XC, r->xnorm);
          exec_mlp_acts_bind_norm (&a->mlp, &r->shape, m + XC + na, r->xnorm);
        }
      else
        {
          exec_attn_acts_bind (&a->attn, &r->shape, m + XC);
          exec_mlp_acts_bind (&a->mlp, &r->shape, m + XC + na);
        }
      if (moe)
        runner_moe_acts_bind (r, a, m + XC + na + nm);
    }
  return TRUE;
}

/* Frees the activations; with `keep_input` the layer's input stays (full recompute). */
void
runner_layer_drop (ExecRunner *r, RunUnit *u, int layer, gboolean keep_input)
{
  RunLayerActs *a = runner_layer (u, layer);
  runner_release (r, &a->act_buf);
  a->x_mlp = NULL;
  memset (&a->attn, 0, sizeof a->attn);
  memset (&a->mlp, 0, sizeof a->mlp);
  runner_moe_acts_drop (a);
  if (!keep_input)
    {
      runner_release (r, &a->buf);
      a->x_attn = NULL;
    }
}

/* The unit's last task has been issued: forget it now; its buffers are reclaimed once
 * that task (`by`, whose done event is recorded by the time anything looks) is done. */
void
runner_unit_retire (ExecRunner *r, RunUnit *u, RunTaskState *by)
{
  RunUnit **slot = &r->units[(gsize) u->mb * r->plan->vpp + u->chunk];
  if (*slot == u)
    *slot = NULL;
  runner_release (r, &u->head_buf);
  unit_unpark (r, u);
  u->retired_by = by;
  g_ptr_array_add (r->retired, u);
}

static void
unit_free (ExecRunner *r, RunUnit *u)
{
  for (int i = 0; i < u->n; i++)
    runner_layer_drop (r, u, u->first + i, FALSE);
  runner_release (r, &u->head_buf);
  runner_release (r, &u->buf);
  unit_boundary_release (r, u);
  g_free (u->layers);
  g_free (u);
}

static gboolean
completed (ExecEvent *ev)
{
  gboolean done = FALSE;
  return ev != NULL && exec_event_query (ev, &done, NULL) && done;
}

/* Returns what has finished to the pool (queries, no wait): the work buffers of parked
 * units whose forward has ended, the boundary buffers whose send has completed, and the
 * retired units whose last task has. */
static void
units_reclaim (ExecRunner *r)
{
  for (guint i = r->parked->len; i-- > 0;)
    {
      RunUnit *u = g_ptr_array_index (r->parked, i);
      if (!completed (u->parked_ev))
        continue;
      unit_work_release (r, u);
      u->parked_ev = NULL;
      g_ptr_array_remove_index_fast (r->parked, i);
    }
  for (guint i = r->sending->len; i-- > 0;)
    {
      RunUnit *u = g_ptr_array_index (r->sending, i);
      if (completed (u->bnd_ev))
        unit_boundary_release (r, u);
    }
  for (guint i = r->retired->len; i-- > 0;)
    {
      RunUnit *u = g_ptr_array_index (r->retired, i);
      if (u->retired_by == NULL || !completed (u->retired_by->done))
        continue;
      unit_free (r, u);
      g_ptr_array_remove_index_fast (r->retired, i);
    }
}

void
runner_units_free (ExecRunner *r)
{
  if (r->units)
    for (gsize i = 0; i < (gsize) r->plan->grad_accum * r->plan->vpp; i++)
      if (r->units[i])
        {
          unit_free (r, r->units[i]);
          r->units[i] = NULL;
        }
  if (r->parked)
    g_ptr_array_set_size (r->parked, 0);   /* the units themselves are in r->units */
  if (r->retired)
    {
      for (guint i = 0; i < r->retired->len; i++)
        unit_free (r, g_ptr_array_index (r->retired, i));
      g_ptr_array_set_size (r->retired, 0);
    }
}
