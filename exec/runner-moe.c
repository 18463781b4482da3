/* exec/runner-moe.c - mixture-of-experts layers in the runner: the step program's MoE tasks
 * (plan/program.h) run the phases of exec/moe.h.
 *
 * Parameters. An MoE layer's segment (SEG_LAYER) holds the llama layer's weights, whose
 * mlp_norm is the MoE block's pre-norm (its dense w_gate, w_up, w_down stay unused at
 * zero gradient), followed by the router (E, C) and the shared experts' gate, up and down
 * (S > 0): the dense part, reduced over DP with the other layers. The layer's routed experts on this rank (E / ep of them) are a segment of
 * their own (SEG_EXPERT), in expert buckets cut like the program's expert buckets and
 * reduced over the expert data-parallel group by the program's EDP reductions (none when
 * edp = 1: every expert lives on one rank of each EP group).
 *
 * Tasks. Forward MOE_ROUTE (norm, router, top-k, permutation), EP all-to-all (the counts'
 * all-to-all and the rows' all-to-allv: dispatch), MOE_EXPERTS, EP all-to-all (combine),
 * MOE_COMBINE (weighted sum, residual); backward the mirror. With shared experts the
 * program's MOE_SHARED task runs them on the routed block's input (after the combine, or
 * beside the dispatch with --moe-shared-expert-overlap): whichever of MOE_SHARED and
 * MOE_COMBINE comes second adds their output to the layer's. Which all-to-all a COLL task
 * is follows from the layer's last MoE compute block (moe_a2a). Without an EP group (ep 1:
 * the program has no all-to-all tasks) the compute task that follows runs the local copy
 * in their place. An all-to-all task waits for its data on the host (the counts decide the
 * sizes), so it ends when its rows have arrived.
 *
 * Tensor parallelism (tp > 1: sequence parallelism, expert TP 1): the block has no TP
 * collective of its own. Each TP rank routes the sequence shard the attention's
 * reduce-scatter left in the residual stream (u->h) and writes the layer's output back
 * there whole (its own residual included: not a partial sum); the backward reads and
 * writes the gradient shard u->dh. The router's gradient is reduced over TP with the
 * norms' (runner.c).
 *
 * Activations: each MoE layer of a unit holds its ExecMoeActs and the block's scratch in
 * the layer's activation buffer (the scratch carries the rows between the phases) and
 * its routing sizes in host memory (route_mem). */
#include "exec/runner-private.h"

#include <string.h>

gboolean
runner_moe_layer (const ExecRunner *r, int layer)
{
  return r->pmoe.experts > 0 && layer >= 0 && plan_moe_layer (&r->pmoe, layer);
}

gboolean
runner_moe_init (ExecRunner *r, GError **error)
{
  plan_moe (r->plan, r->model, &r->pmoe);
  if (r->pmoe.experts == 0)
    return TRUE;
  ExecGroup *g = r->groups[PLAN_AXIS_EP];
  int ep = g ? g->size : 1, ep_rank = g ? g->rank : 0;
  /* with sequence parallelism each TP rank routes its own sequence shard */
  if (!exec_moe_shape_init (&r->moe_shape, runner_sp (r) ? r->N_sp : r->N, r->shape.C, r->pmoe.experts, r->pmoe.top_k,
                            (int) r->pmoe.expert_ffn, ep, ep_rank, error))
    return FALSE;
  if (!exec_moe_shape_set_shared (&r->moe_shape, (int) r->pmoe.shared_ffn, error))
    return FALSE;
  r->moe_shape.norm_topk = r->model->router_norm_topk;
  r->moe_shape.eps = r->shape.eps;
  r->moe_ev = exec_event_new (r->b, error);
  return r->moe_ev != NULL;
}

gsize
runner_moe_router_size (const ExecRunner *r)
{
  return (gsize) r->moe_shape.E * r->moe_shape.C;
}

gsize
runner_moe_dense_size (const ExecRunner *r)
{
  return (gsize) r->moe_shape.E * r->moe_shape.C + exec_moe_shared_size (&r->moe_shape);
}

gsize
runner_moe_expert_size (const ExecRunner *r)
{
  return exec_moe_weights_size (&r->moe_shape) - (gsize) r->moe_shape.C
         - runner_moe_dense_size (r);
}

/* The block's weights (or gradients) inside the flat array `base` (params or grads). */
static void
bind_weights (ExecRunner *r, int layer, float *base, ExecMoeWeights *w)
{
  const RunSeg *ls = &g_array_index (r->segs, RunSeg, r->layer_seg[layer]);
  const RunSeg *es = &g_array_index (r->segs, RunSeg, r->expert_seg[layer]);
  gsize F = (gsize) r->moe_shape.F, C = (gsize) r->moe_shape.C, EL = r->moe_shape.E_local;
  w->norm = base + ls->off + ls->norm_off[1];
  w->router = base + ls->off + exec_layer_weights_size (&r->shape);
  w->w_gate = base + es->off;
  w->w_up = w->w_gate + EL * F * C;
  w->w_down = w->w_up + EL * F * C;
  gsize SC = (gsize) r->moe_shape.S * C;
  w->sh_gate = SC > 0 ? w->router + (gsize) r->moe_shape.E * C : NULL;
  w->sh_up = SC > 0 ? w->sh_gate + SC : NULL;
  w->sh_down = SC > 0 ? w->sh_up + SC : NULL;
}

void
runner_moe_weights (ExecRunner *r, int layer, ExecMoeWeights *w, ExecMoeWeights *g)
{
  bind_weights (r, layer, r->params, w);
  bind_weights (r, layer, r->grads, g);
}

void
runner_moe_fill (ExecRunner *r, int layer, float *router, float *experts)
{
  g_autofree float *mem = g_new0 (float, exec_moe_weights_size (&r->moe_shape));
  ExecMoeWeights w;
  exec_moe_weights_bind (&w, &r->moe_shape, mem);
  exec_moe_weights_fill (&w, &r->moe_shape, layer, r->opts.seed);
  if (router)
    {
      /* the router, then the shared experts (bind_weights' order) */
      gsize ec = (gsize) r->moe_shape.E * r->moe_shape.C;
      memcpy (router, w.router, ec * sizeof (float));
      if (r->moe_shape.S > 0)
        memcpy (router + ec, w.sh_gate, exec_moe_shared_size (&r->moe_shape) * sizeof (float));
    }
  if (experts)
    memcpy (experts, w.w_gate, runner_moe_expert_size (r) * sizeof (float));
}

gsize
runner_moe_acts_size (const ExecRunner *r)
{
  return exec_moe_acts_size (&r->moe_shape) + exec_moe_scratch_size (&r->moe_shape);
}

void
runner_moe_acts_bind (ExecRunner *r, RunLayerActs *L, float *mem)
{
  exec_moe_acts_bind (&L->moe, &r->moe_shape, mem);
  L->moe_scratch = mem + exec_moe_acts_size (&r->moe_shape);
  L->route_mem = g_new0 (int, exec_moe_route_size (&r->moe_shape));
  exec_moe_route_bind (&L->route, &r->moe_shape, L->route_mem);
  L->moe_a2a = 0;
}

void
runner_moe_acts_drop (RunLayerActs *L)
{
  g_clear_pointer (&L->route_mem, g_free);
  memset (&L->moe, 0, sizeof L->moe);
  memset (&L->route, 0, sizeof L->route);
  L->moe_scratch = NULL;
}

static ExecMoeCtx
ctx_of (ExecRunner *r, RunLayerActs *L)
{
  return (ExecMoeCtx) { .compute = r->compute, .comm = r->streams[PROG_STREAM_EP],
                        .group = r->groups[PLAN_AXIS_EP], .buf = L->act_buf,
                        .ev = r->moe_ev };
}

/* The all-to-all phase `which` (0 dispatch, 1 combine) of the forward or backward. */
static gboolean
a2a (ExecRunner *r, RunLayerActs *L, gboolean bwd, int which, ExecSample *sample,
     GError **error)
{
  ExecMoeCtx ctx = ctx_of (r, L);
  const ExecMoeShape *s = &r->moe_shape;
  gboolean ok;
  if (!bwd)
    ok = which == 0 ? exec_moe_dispatch_forward (&ctx, s, &L->moe, &L->route, L->moe_scratch,
                                                 error)
                    : exec_moe_combine_a2a_forward (&ctx, s, &L->moe, &L->route,
                                                    L->moe_scratch, error);
  else
    ok = which == 0 ? exec_moe_dispatch_backward (&ctx, s, &L->route, L->moe_scratch, error)
                    : exec_moe_combine_a2a_backward (&ctx, s, &L->route, L->moe_scratch,
                                                     error);
  if (ok && sample)
    *sample = ctx.a2a[which];
  return ok;
}

static gboolean
has_ep (const ExecRunner *r)
{
  return r->groups[PLAN_AXIS_EP] != NULL;
}

gboolean
runner_moe_block (ExecRunner *r, const ProgTask *t, const ProgBlock *blk, RunUnit *u,
                  RunLayerActs *L, gboolean add_residual, float **out, GError **error)
{
  int l = t->layer;
  gboolean bwd = t->phase == PROG_PHASE_BACKWARD;
  ExecMoeWeights w, g;
  runner_moe_weights (r, l, &w, &g);
  ExecMoeCtx ctx = ctx_of (r, L);
  const ExecMoeShape *s = &r->moe_shape;
  const ExecKernels *K = exec_kernels_for (r->compute);
  gboolean sp = runner_sp (r);
  /* the block's output gradient: the shard with SP, else the full one */
  float *dout = sp ? u->dh : u->dfull;
  if (sp)
    add_residual = TRUE;   /* each rank's output is whole for its tokens */
  *out = NULL;
  switch (blk->kind)
    {
    case PROG_BLOCK_MOE_ROUTE:
      if (!bwd)
        {
          L->moe_a2a = 0;
          L->moe_out = NULL;
          L->moe_shared_done = FALSE;
          if (sp)   /* the input shard, kept for the backward */
            K->copy (r->compute, L->x_mlp, u->h, (gsize) s->N * s->C);
          return exec_moe_route_forward (&ctx, s, &w, L->x_mlp, &L->moe, error);
        }
      if (!has_ep (r) && !a2a (r, L, TRUE, 1, NULL, error))
        return FALSE;
      exec_moe_route_backward (&ctx, s, &w, &g, L->x_mlp, add_residual, &L->moe, dout,
                               u->dpartial, L->moe_scratch);
      if (sp)   /* the layer input's gradient shard, where the attention's gather reads it */
        K->copy (r->compute, u->dh, u->dpartial, (gsize) s->N * s->C);
      return TRUE;
    case PROG_BLOCK_MOE_EXPERTS:
      if (!has_ep (r) && !a2a (r, L, bwd, 0, NULL, error))
        return FALSE;
      L->moe_a2a = 1;
      return bwd ? exec_moe_experts_backward (&ctx, s, &w, &g, &L->moe, &L->route,
                                              L->moe_scratch, error)
                 : exec_moe_experts_forward (&ctx, s, &w, &L->moe, &L->route, L->moe_scratch,
                                             error);
    case PROG_BLOCK_MOE_COMBINE:
      if (bwd)
        {
          L->moe_a2a = 0;
          return exec_moe_combine_backward (&ctx, s, &L->moe, dout, L->moe_scratch, error);
        }
      if (!has_ep (r) && !a2a (r, L, FALSE, 1, NULL, error))
        return FALSE;
      if (sp)
        *out = u->h;   /* the next layer gathers its input from this shard */
      else if (!(*out = runner_next_input (r, u, LAST_MLP, l, FALSE, error)))
        return FALSE;
      exec_moe_combine_forward (&ctx, s, L->x_mlp, add_residual, &L->moe, *out);
      if (L->moe_shared_done)   /* the shared experts ran first (overlapped) */
        exec_moe_shared_add (&ctx, s, L->moe_scratch, *out);
      L->moe_out = *out;
      return TRUE;
    case PROG_BLOCK_MOE_SHARED:
      if (bwd)
        {
          exec_moe_shared_backward (&ctx, s, &w, &g, &L->moe, dout, L->moe_scratch);
          return TRUE;
        }
      exec_moe_shared_forward (&ctx, s, &w, &L->moe, L->moe_scratch);
      if (L->moe_out)   /* after the combine: add to the layer's output now */
        exec_moe_shared_add (&ctx, s, L->moe_scratch, L->moe_out);
      L->moe_shared_done = TRUE;
      return TRUE;
    default:
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID, "internal: rank %d: block %s in "
                   "MoE layer %d", r->rank, blk->name, l);
      return FALSE;
    }
}

gboolean
runner_moe_coll (ExecRunner *r, const ProgTask *t, RunTaskState *ts, GError **error)
{
  RunUnit *u = runner_unit (r, t->mb, t->chunk, error);
  if (!u)
    return FALSE;
  if (t->coll != PLAN_COLL_ALL_TO_ALL || t->axis != PLAN_AXIS_EP || !runner_moe_layer (r, t->layer))
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID, "tandem run cannot execute %s over "
                   "%s in the MoE layers (hint: --moe-token-dispatcher-type alltoall and "
                   "--expert-tensor-parallel-size 1)", plan_coll_name (t->coll),
                   plan_axis_name (t->axis));
      return FALSE;
    }
  RunLayerActs *L = runner_layer (u, t->layer);
  if (L->x_mlp == NULL || L->route_mem == NULL)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID, "internal: rank %d: all-to-all of "
                   "MoE layer %d (micro-batch %d) without its activations", r->rank, t->layer,
                   t->mb);
      return FALSE;
    }
  if (!a2a (r, L, t->phase == PROG_PHASE_BACKWARD, L->moe_a2a, &ts->first, error))
    return FALSE;
  ts->last = ts->first;
  return exec_event_record (ts->done, r->streams[t->stream], error);
}
