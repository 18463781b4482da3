/* exec/runner-task.c - the interpreter: one task of the step program on this rank. A task
 * first waits for its dependencies (events), then runs: a compute task its block
 * (runner-block.c); a collective is posted on the stream of its kind over the group of
 * its axis with the buffers its position in the unit implies (which input a TP
 * collective feeds follows from the last block of the unit that ran, since within a unit
 * the program alternates block and collective); a SEND or RECV moves the activations or
 * gradients of the chunk's boundary to or from the neighbouring stage. */
#include "exec/runner-private.h"
#include "exec/calibrate.h"

#include <string.h>

/* ---- collectives ---------------------------------------------------------------------- */

static gboolean
tp_op (ExecRunner *r, const ProgTask *t, ExecColl *op, GError **error)
{
  RunUnit *u = runner_unit (r, t->mb, t->chunk, error);
  if (!u)
    return FALSE;
  int l = t->layer;
  gsize NC = (gsize) r->N * r->shape.C, SC = (gsize) r->N_sp * r->shape.C;
  op->kind = t->coll == PLAN_COLL_ALL_GATHER ? EXEC_COLL_ALL_GATHER
             : t->coll == PLAN_COLL_REDUCE_SCATTER ? EXEC_COLL_REDUCE_SCATTER
             : EXEC_COLL_ALL_REDUCE;
  if (t->role != PROG_ROLE_NONE)
    {
      /* sequence parallelism: a block's input gathered again from the shards its forward
       * kept, for the block's backward */
      gboolean mlp = t->role == PROG_ROLE_REGATHER_MLP;
      RunLayerActs *L = runner_layer (u, l);
      const float *shard = mlp ? L->x_mlp : L->x_attn;
      if (shard == NULL || !runner_sp (r))
        {
          g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID, "internal: rank %d: re-gather of "
                       "the %s input of layer %d (micro-batch %d), which is not kept", r->rank,
                       mlp ? "MLP" : "attention", l, t->mb);
          return FALSE;
        }
      *op = (ExecColl) { .kind = EXEC_COLL_ALL_GATHER, .send = shard, .recv = r->xg[mlp],
                         .count = SC };
      return TRUE;
    }
  if (t->phase == PROG_PHASE_BACKWARD)
    {
      if (op->kind == EXEC_COLL_ALL_GATHER)
        *op = (ExecColl) { .kind = op->kind, .send = u->dh, .recv = u->dfull, .count = SC };
      else if (op->kind == EXEC_COLL_REDUCE_SCATTER)
        *op = (ExecColl) { .kind = op->kind, .send = u->dpartial, .recv = u->dh, .count = SC };
      else
        *op = (ExecColl) { .kind = op->kind, .send = u->dpartial, .recv = u->dfull, .count = NC };
      return TRUE;
    }
  if (l < 0)
    {
      /* forward around the embedding and the head (program.c): the embedding's partial
       * rows reduced into the first layer's input (sequence-sharded with SP), or the
       * head's input gathered from the sequence shards */
      if (op->kind == EXEC_COLL_ALL_GATHER)
        *op = (ExecColl) { .kind = op->kind, .send = u->h, .recv = u->out, .count = SC };
      else if (op->kind == EXEC_COLL_REDUCE_SCATTER)
        *op = (ExecColl) { .kind = op->kind, .send = u->partial, .recv = u->h, .count = SC };
      else
        {
          if (!runner_layer_hold (r, u, u->first, error))
            return FALSE;
          *op = (ExecColl) { .kind = op->kind, .send = u->partial,
                             .recv = runner_layer (u, u->first)->x_attn, .count = NC };
        }
      return TRUE;
    }
  gboolean rc = t->phase == PROG_PHASE_RECOMPUTE;
  if (rc)
    runner_rc_begin (u, l);
  int last = rc ? u->rc_last : u->fwd_last;
  int last_layer = rc ? u->rc_layer : u->fwd_last_layer;
  float *h = rc ? u->h_rc : u->h;
  if (op->kind == EXEC_COLL_ALL_GATHER)
    {
      if (!runner_layer_hold (r, u, l, error))
        return FALSE;
      RunLayerActs *L = runner_layer (u, l);
      /* (an all-gather before a block is sequence parallelism: into the gathered input of
       * the block kind, whose shard the block keeps) */
      gboolean to_mlp = last == LAST_ATTN && last_layer == l;
      float *target = r->xg[to_mlp];
      const float *send = h;
      if (rc && last == LAST_NONE)   /* the recompute starts from the kept input shard */
        send = L->x_attn;
      *op = (ExecColl) { .kind = op->kind, .send = send, .recv = target, .count = SC };
    }
  else if (op->kind == EXEC_COLL_REDUCE_SCATTER)
    *op = (ExecColl) { .kind = op->kind, .send = u->partial, .recv = h, .count = SC };
  else
    {
      float *target = runner_next_input (r, u, last, last_layer, rc, error);
      if (!target)
        return FALSE;
      *op = (ExecColl) { .kind = op->kind, .send = u->partial, .recv = target, .count = NC };
    }
  return TRUE;
}

static gboolean
cp_op (ExecRunner *r, const ProgTask *t, RunTaskState *ts, ExecColl *op, gboolean *record,
       GError **error)
{
  RunUnit *u = runner_unit (r, t->mb, t->chunk, error);
  if (!u)
    return FALSE;
  RunLayerActs *L = runner_layer (u, t->layer);
  gsize kv2 = 2 * (gsize) r->N * r->kvd;
  switch (t->coll)
    {
    case PLAN_COLL_SEND_RECV:
      /* the first ring pass; the core posts the rest and records the ring's end */
      r->ring_ts = ts;
      r->ring_task = t;
      *record = FALSE;
      return runner_pass_post (r, L->attn.k, r->kv[1], TAG_KV, 0, &ts->first, error);
    case PLAN_COLL_ALL_GATHER:   /* K and V are adjacent in the activations */
      *op = (ExecColl) { .kind = EXEC_COLL_ALL_GATHER, .send = L->attn.k, .recv = r->kv_all,
                         .count = kv2 };
      return TRUE;
    case PLAN_COLL_REDUCE_SCATTER:
      *op = (ExecColl) { .kind = EXEC_COLL_REDUCE_SCATTER, .send = r->dkv_all,
                         .recv = u->dkv, .count = kv2 };
      return TRUE;
    default:
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID, "%s over cp is not implemented",
                   plan_coll_name (t->coll));
      return FALSE;
    }
}

static gboolean
dp_op (ExecRunner *r, const ProgTask *t, RunTaskState *ts, ExecColl *op, GError **error)
{
  RunBucket *bk = NULL;
  gsize piece = 0;
  if (t->mb < 0 && t->phase == PROG_PHASE_BACKWARD)
    {
      /* a bucket's gradients, after its last backward (an expert bucket's over EDP) */
      guint b = t->axis == PLAN_AXIS_EDP ? r->n_dense_buckets + r->next_ereduction++
                                         : r->next_reduction++;
      if (b >= (t->axis == PLAN_AXIS_EDP ? r->buckets->len : r->n_dense_buckets))
        goto bad;
      bk = &g_array_index (r->buckets, RunBucket, b);
      if (t->coll == PLAN_COLL_ALL_REDUCE)
        *op = (ExecColl) { .kind = EXEC_COLL_ALL_REDUCE, .send = r->grads + bk->off,
                           .recv = r->grads + bk->off, .count = bk->n };
      else if (t->coll == PLAN_COLL_REDUCE_SCATTER && bk->sharded)
        *op = (ExecColl) { .kind = EXEC_COLL_REDUCE_SCATTER, .send = r->grads + bk->off,
                           .recv = bk->gshard, .count = bk->n_pad / bk->ssize };
      else
        goto bad;
      return TRUE;
    }
  if (t->coll == PLAN_COLL_ALL_GATHER && t->mb < 0)
    {
      /* ZeRO-1/2: the updated parameters of a bucket */
      for (guint b = 0; b < r->buckets->len && !bk; b++)
        {
          RunBucket *x = &g_array_index (r->buckets, RunBucket, b);
          if (x->chunk == t->chunk && x->first_layer == t->layer && !x->gathered && x->sharded
              && x->expert == (t->axis == PLAN_AXIS_EDP))
            bk = x;
        }
      if (!bk)
        goto bad;
      bk->gathered = TRUE;
    }
  else if (t->mb >= 0 && t->layer >= 0 && r->zero3 && r->layer_seg[t->layer] >= 0)
    bk = runner_bucket_of_seg (r, r->layer_seg[t->layer]);
  else
    goto bad;
  piece = bk->n_pad / bk->ssize;
  if (t->coll == PLAN_COLL_ALL_GATHER)
    {
      /* in place: this rank's piece is its slot of the bucket */
      float *base = r->params + bk->off;
      *op = (ExecColl) { .kind = EXEC_COLL_ALL_GATHER, .send = base + bk->srank * piece,
                         .recv = base, .count = piece };
      bk->ag_done = ts->done;
      return TRUE;
    }
  if (t->coll == PLAN_COLL_REDUCE_SCATTER)
    {
      *op = (ExecColl) { .kind = EXEC_COLL_REDUCE_SCATTER, .send = r->grads + bk->off,
                         .recv = bk->gtmp, .count = piece };
      bk->rs_done = ts->done;
      return TRUE;
    }
bad:
  g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID, "internal: rank %d cannot place DP task "
               "%u (%s over %s, chunk %d, layer %d)", r->rank, t->id, plan_coll_name (t->coll),
               plan_axis_name (t->axis), t->chunk, t->layer);
  return FALSE;
}

static gboolean
task_coll (ExecRunner *r, const ProgTask *t, RunTaskState *ts, GError **error)
{
  ExecColl op = { 0 };
  gboolean record = TRUE, ok;
  if (r->groups[t->axis] == NULL)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID, "internal: task %u needs group '%s' "
                   "which has one member", t->id, plan_axis_name (t->axis));
      return FALSE;
    }
  switch (t->comm)
    {
    case PROG_COMM_TP:
      ok = tp_op (r, t, &op, error);
      break;
    case PROG_COMM_CP:
      ok = cp_op (r, t, ts, &op, &record, error);
      if (ok && !record)
        return TRUE;
      break;
    case PROG_COMM_DP:
      ok = dp_op (r, t, ts, &op, error);
      break;
    case PROG_COMM_EP:
      return runner_moe_coll (r, t, ts, error);   /* waited for: the counts size the rows */
    default:
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID, "internal: collective of kind %s",
                   prog_comm_name (t->comm));
      ok = FALSE;
    }
  if (!ok || !runner_post (r, t->stream, r->groups[t->axis], &op, &ts->first, error))
    return FALSE;
  exec_event_record (ts->done, r->streams[t->stream], NULL);
  return TRUE;
}

/* Pipeline transfers: the activations (forward) or gradients (backward) of the chunk's
 * boundary, sequence-sharded under sequence parallelism. */
static gboolean
task_p2p (ExecRunner *r, const ProgTask *t, RunTaskState *ts, GError **error)
{
  if (t->bytes == 0)
    {
      /* torch's lock step (plan/program.c lockstep_*): an empty message between pipeline
       * neighbours, which the stage's next unit waits to receive */
      static float none;
      gboolean snd = t->kind == PROG_TASK_SEND;
      ExecColl op = { .kind = snd ? EXEC_COLL_SEND : EXEC_COLL_RECV, .send = &none,
                      .recv = &none, .count = 0,
                      .peer = runner_member_of (r, PLAN_AXIS_PP, t->peer_stage),
                      .tag = (int) ((snd ? t->id : (guint32) t->peer_task) % 32768) };
      if (!runner_post (r, t->stream, r->groups[PLAN_AXIS_PP], &op, &ts->first, error))
        return FALSE;
      exec_event_record (ts->done, r->streams[t->stream], NULL);
      return TRUE;
    }
  RunUnit *u = runner_unit (r, t->mb, t->chunk, error);
  if (!u)
    return FALSE;
  gboolean fwd = t->phase == PROG_PHASE_FORWARD, send = t->kind == PROG_TASK_SEND;
  gsize count = (gsize) r->N_sp * r->shape.C;
  float *buf;
  if (fwd && send)
    {
      /* the boundary activation leaves from a buffer of its own, so that the work
       * buffers can go before the next stage receives it (runner-state.c) */
      const float *src = runner_sp (r) ? u->h : u->out;
      if (!(buf = runner_unit_boundary (r, u, count, error)))
        return FALSE;
      exec_kernels_for (r->compute)->copy (r->compute, buf, src, count);
      exec_event_record (ts->end, r->compute, NULL);
    }
  else if (fwd)
    {
      if (!runner_layer_hold (r, u, u->first, error))
        return FALSE;
      buf = runner_sp (r) ? u->h : runner_layer (u, u->first)->x_attn;
      u->fwd_last = LAST_NONE;
    }
  else
    buf = runner_sp (r) ? u->dh : u->dfull;
  ExecColl op = { .kind = send ? EXEC_COLL_SEND : EXEC_COLL_RECV, .send = buf, .recv = buf,
                  .count = count, .peer = runner_member_of (r, PLAN_AXIS_PP, t->peer_stage),
                  .tag = (int) ((send ? t->id : (guint32) t->peer_task) % 32768) };
  if (!runner_post (r, t->stream, r->groups[PLAN_AXIS_PP], &op, &ts->first, error))
    return FALSE;
  exec_event_record (ts->done, r->streams[t->stream], NULL);
  if (send && !fwd)
    runner_unit_retire (r, u, ts);
  else if (send)
    {
      runner_unit_park (r, u, ts->end);   /* the forward's last work: the copy */
      runner_unit_sending (r, u, ts->done);
    }
  return TRUE;
}

gboolean
runner_task_run (ExecRunner *r, guint32 local, GError **error)
{
  guint32 id = r->first_task + local;
  const ProgTask *t = prog_task (r->prog, id);
  RunTaskState *ts = &r->ts[local];
  runner_progress_note (r, t);
  /* a signal stops the run between two tasks, not only in a wait for a peer: one rank
   * (or ranks that are computing) would otherwise run every step to the end */
  if (runner_interrupted (r, t, error))
    return FALSE;
  if (r->opts.task_hook && r->step == 0)
    r->opts.task_hook (r->rank, r->step, local, t, r->opts.hook_data);
  const guint32 *deps = prog_task_deps (r->prog, t);
  for (guint32 i = 0; i < t->n_deps; i++)
    {
      guint32 d = deps[i];
      if (d < r->first_task || d >= r->first_task + r->n_tasks)
        continue;   /* another stage's task: MPI matches the transfer */
      RunTaskState *ds = &r->ts[d - r->first_task];
      g_assert (ds->issued);
      if (!runner_wait (r, ds->done, t, prog_task (r->prog, d), NULL, -1, error))
        return FALSE;
    }
  gboolean ok;
  switch (t->kind)
    {
    case PROG_TASK_COMPUTE:
      {
        /* the scheduler's view of the compute alone (the CPU computes synchronously):
         * the waits for a core inside it, without the naps of a wait for a peer */
        double s0[3], s1[3];
        const gboolean sched = r->compute_sched_ok && exec_sched_sample_slices (s0);
        ok = runner_task_compute (r, t, ts, error);
        if (sched && exec_sched_sample_slices (s1))
          {
            const double w = s1[0] - s0[0], d = s1[1] - s0[1];
            for (int k = 0; k < 3; k++)
              r->compute_sched[k] += s1[k] - s0[k];
            r->compute_sched[3] += d * d;
            r->compute_sched[4] += d * w;
            r->compute_sched[5] += w * w;
          }
        else
          r->compute_sched_ok = FALSE;
      }
      break;
    case PROG_TASK_COLL:
      ok = task_coll (r, t, ts, error);
      break;
    default:
      ok = task_p2p (r, t, ts, error);
      break;
    }
  ts->issued = TRUE;
  return ok;
}

