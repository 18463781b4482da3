/* exec/moe.c - the mixture-of-experts block (moe.h): CPU references of the routing
 * kernels, and the block's forward and backward over the kernel table, with the expert-
 * parallel dispatch and combine as all-to-alls of the backend.
 *
 * Shapes of one forward, for rank r of ep ranks, N tokens, top-k, E_local = E / ep:
 *   xn (N, C) -> probs (N, E) -> idx, wts (N, k) -> xp (N k, C), sorted by expert
 *   counts (E) -- all-to-all --> rcounts (ep, E_local)            [host reads both]
 *   xp -- all-to-allv --> xr (rows_in, C), (source, expert) order -> regroup -> xe,
 *   (expert, source) order -> per expert SwiGLU MLP -> ye -> regroup -> yr (source, expert)
 *   -- all-to-allv --> yp (N k, C) -> out[n] = [x[n] +] sum_j wts[n, j] yp[pos[n k + j]]. */
#include "exec/moe.h"

#include <math.h>
#include <string.h>

/* ---- shape, weights, memory ------------------------------------------------------------- */

gboolean
exec_moe_shape_init (ExecMoeShape *s, int N, int C, int E, int k, int F, int ep, int ep_rank,
                     GError **error)
{
  memset (s, 0, sizeof *s);
  if (N <= 0 || C <= 0 || E <= 0 || F <= 0 || ep <= 0)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "MoE block: tokens %d, hidden %d, experts %d, expert ffn %d and ep %d "
                   "must all be positive", N, C, E, F, ep);
      return FALSE;
    }
  if (k < 1 || k > E)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "MoE block: top-k %d is not in 1 .. %d (the number of experts)", k, E);
      return FALSE;
    }
  if (E % ep != 0 || ep_rank < 0 || ep_rank >= ep)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "MoE block: expert-parallel size %d does not divide the %d experts "
                   "(or rank %d is outside it)", ep, E, ep_rank);
      return FALSE;
    }
  if ((gint64) ep * N * k * MAX (C, F) > G_MAXINT)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "MoE block: %d ranks x %d tokens x top-%d rows exceed int element counts",
                   ep, N, k);
      return FALSE;
    }
  *s = (ExecMoeShape) { .N = N, .C = C, .E = E, .k = k, .F = F, .ep = ep, .ep_rank = ep_rank,
                        .E_local = E / ep, .R_max = ep * N * k, .norm_topk = TRUE,
                        .eps = 1e-5f };
  return TRUE;
}

gboolean
exec_moe_shape_set_shared (ExecMoeShape *s, int S, GError **error)
{
  if (S < 0 || (gint64) s->N * MAX (S, s->C) > G_MAXINT)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "MoE block: shared experts' size %d is negative or %d tokens x it exceed "
                   "int element counts", S, s->N);
      return FALSE;
    }
  s->S = S;
  return TRUE;
}

gsize
exec_moe_shared_size (const ExecMoeShape *s)
{
  return 3 * (gsize) s->S * s->C;
}

gsize
exec_moe_weights_size (const ExecMoeShape *s)
{
  gsize C = s->C, F = s->F;
  return C + (gsize) s->E * C + (gsize) s->E_local * 3 * F * C + exec_moe_shared_size (s);
}

void
exec_moe_weights_bind (ExecMoeWeights *w, const ExecMoeShape *s, float *mem)
{
  gsize C = s->C, F = s->F, EL = s->E_local;
  w->norm = mem;
  w->router = w->norm + C;
  w->w_gate = w->router + (gsize) s->E * C;
  w->w_up = w->w_gate + EL * F * C;
  w->w_down = w->w_up + EL * F * C;
  gsize SC = (gsize) s->S * C;
  w->sh_gate = s->S > 0 ? w->w_down + EL * C * F : NULL;
  w->sh_up = s->S > 0 ? w->sh_gate + SC : NULL;
  w->sh_down = s->S > 0 ? w->sh_up + SC : NULL;
}

/* tensors after layers-block.c's (which end below 16) */
enum { T_ROUTER = 16, T_EGATE, T_EUP, T_EDOWN, T_SGATE, T_SUP, T_SDOWN };

static guint64
moe_key (int layer, int tensor, guint64 expert, guint64 row, guint64 col, guint64 rows,
         guint64 cols)
{
  return ((guint64) (layer + 1) << 48) ^ ((guint64) tensor << 40)
         ^ ((expert * rows + row) * cols + col);
}

static void
fill_matrix (float *dst, int layer, int tensor, int expert, int rows, int cols, guint64 seed)
{
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++)
      dst[(gsize) r * cols + c] =
        exec_init_value (seed, moe_key (layer, tensor, expert, r, c, rows, cols), 0.02f);
}

void
exec_moe_weights_fill (ExecMoeWeights *w, const ExecMoeShape *s, int layer, guint64 seed)
{
  int C = s->C, F = s->F;
  for (int i = 0; i < C; i++)
    w->norm[i] = 1.0f;
  fill_matrix (w->router, layer, T_ROUTER, 0, s->E, C, seed);
  for (int e = 0; e < s->E_local; e++)
    {
      int ge = s->ep_rank * s->E_local + e;   /* global expert: the same values on any split */
      gsize o = (gsize) e * F * C;
      fill_matrix (w->w_gate + o, layer, T_EGATE, ge, F, C, seed);
      fill_matrix (w->w_up + o, layer, T_EUP, ge, F, C, seed);
      fill_matrix (w->w_down + o, layer, T_EDOWN, ge, C, F, seed);
    }
  if (s->S > 0)
    {
      fill_matrix (w->sh_gate, layer, T_SGATE, 0, s->S, C, seed);
      fill_matrix (w->sh_up, layer, T_SUP, 0, s->S, C, seed);
      fill_matrix (w->sh_down, layer, T_SDOWN, 0, C, s->S, seed);
    }
}

gsize
exec_moe_acts_size (const ExecMoeShape *s)
{
  gsize N = s->N, C = s->C, k = s->k, R = s->R_max, F = s->F;
  return N * C + N + N * s->E + 3 * N * k + 2 * (gsize) s->E + 2 * N * k * C + R * C
         + 3 * R * F + 3 * N * (gsize) s->S;
}

void
exec_moe_acts_bind (ExecMoeActs *a, const ExecMoeShape *s, float *mem)
{
  gsize N = s->N, C = s->C, k = s->k, R = s->R_max, F = s->F;
  a->x_norm = mem;
  a->rstd = a->x_norm + N * C;
  a->probs = a->rstd + N;
  a->idx = (int *) (a->probs + N * s->E);   /* ints in float slots: both 4 bytes */
  a->wts = (float *) (a->idx + N * k);
  a->pos = (int *) (a->wts + N * k);
  a->counts = (float *) (a->pos + N * k);
  a->rcounts = a->counts + s->E;             /* adjacent: one download reads both */
  a->xp = a->rcounts + s->E;
  a->xe = a->xp + N * k * C;
  a->gate = a->xe + R * C;
  a->up = a->gate + R * F;
  a->h = a->up + R * F;
  a->yp = a->h + R * F;
  gsize NS = N * (gsize) s->S;
  a->sh_gate = s->S > 0 ? a->yp + N * k * C : NULL;
  a->sh_up = s->S > 0 ? a->sh_gate + NS : NULL;
  a->sh_h = s->S > 0 ? a->sh_up + NS : NULL;
}

G_STATIC_ASSERT (sizeof (int) == sizeof (float));

gsize
exec_moe_scratch_size (const ExecMoeShape *s)
{
  gsize N = s->N, C = s->C, k = s->k, R = s->R_max, F = s->F;
  return 2 * R * C + 3 * R * F + 2 * N * k * C + N * k + N * C + N * s->E
         + (s->S > 0 ? 3 * N * (gsize) s->S + 2 * N * C : 0);
}

gsize
exec_moe_route_size (const ExecMoeShape *s)
{
  return 4 * (gsize) s->ep + (gsize) s->ep * s->E_local + s->E_local + 4 * (gsize) s->ep
         + s->E + (gsize) s->ep * s->E_local;
}

void
exec_moe_route_bind (ExecMoeRoute *r, const ExecMoeShape *s, int *mem)
{
  int ep = s->ep;
  r->send_rows = mem;
  r->send_off = r->send_rows + ep;
  r->recv_rows = r->send_off + ep;
  r->recv_off = r->recv_rows + ep;
  r->chunk = r->recv_off + ep;
  r->expert_rows = r->chunk + ep * s->E_local;
  r->counts_el = r->expert_rows + s->E_local;
  r->host_counts = (float *) (r->counts_el + 4 * ep);
  r->rows_in = 0;
}

/* ---- CPU references ----------------------------------------------------------------- */

void
exec_cpu_moe_topk (float *probs, int *idx, float *wts, const float *logits, int N, int E,
                   int k, gboolean norm)
{
  for (int n = 0; n < N; n++)
    {
      const float *l = logits + (gsize) n * E;
      float *p = probs + (gsize) n * E;
      float mx = -INFINITY;
      for (int e = 0; e < E; e++)
        mx = MAX (mx, l[e]);
      float sum = 0;
      for (int e = 0; e < E; e++)
        {
          p[e] = expf (l[e] - mx);   /* l may be p: each element read before written */
          sum += p[e];
        }
      for (int e = 0; e < E; e++)
        p[e] /= sum;
      int *id = idx + (gsize) n * k;
      float *w = wts + (gsize) n * k, wsum = 0;
      for (int j = 0; j < k; j++)
        {
          int best = -1;
          for (int e = 0; e < E; e++)
            {
              gboolean taken = FALSE;
              for (int i = 0; i < j && !taken; i++)
                taken = id[i] == e;
              /* strictly greater: of equal probabilities the lower expert wins */
              if (!taken && (best < 0 || p[e] > p[best]))
                best = e;
            }
          id[j] = best;
          w[j] = p[best];
          wsum += w[j];
        }
      if (norm)
        for (int j = 0; j < k; j++)
          w[j] /= wsum;
    }
}

/* With S = sum of the chosen probs and w_j = p_j / S (norm): dp_j = (dw_j - sum_i dw_i
 * w_i) / S; without norm dp_j = dw_j. Softmax: dl_e = p_e (dp_e - sum_e' dp_e' p_e'). */
void
exec_cpu_moe_topk_backward (float *dlogits, const float *dwts, const float *probs,
                            const int *idx, const float *wts, int N, int E, int k,
                            gboolean norm)
{
  for (int n = 0; n < N; n++)
    {
      const float *p = probs + (gsize) n * E, *dw = dwts + (gsize) n * k;
      const float *w = wts + (gsize) n * k;
      const int *id = idx + (gsize) n * k;
      float *dl = dlogits + (gsize) n * E;
      for (int e = 0; e < E; e++)
        dl[e] = 0;
      float S = 0, dot = 0;
      for (int j = 0; j < k; j++)
        {
          S += p[id[j]];
          dot += dw[j] * w[j];
        }
      /* dl holds dp on the chosen experts for now */
      for (int j = 0; j < k; j++)
        dl[id[j]] = norm ? (dw[j] - dot) / S : dw[j];
      float pdp = 0;
      for (int j = 0; j < k; j++)
        pdp += dl[id[j]] * p[id[j]];
      for (int e = 0; e < E; e++)
        dl[e] = p[e] * (dl[e] - pdp);
    }
}

void
exec_cpu_moe_permute (float *xp, int *pos, float *counts, const int *idx, const float *x,
                      int N, int k, int E, int C)
{
  g_autofree int *off = g_new0 (int, E + 1);
  for (int a = 0; a < N * k; a++)
    off[idx[a] + 1]++;
  for (int e = 0; e < E; e++)
    {
      counts[e] = (float) off[e + 1];
      off[e + 1] += off[e];
    }
  for (int a = 0; a < N * k; a++)
    {
      int p = off[idx[a]]++;
      pos[a] = p;
      memcpy (xp + (gsize) p * C, x + (gsize) (a / k) * C, (gsize) C * sizeof (float));
    }
}

void
exec_cpu_moe_unpermute (float *out, const float *xp, const int *pos, const float *wts, int N,
                        int k, int C, float beta)
{
  for (int n = 0; n < N; n++)
    {
      float *o = out + (gsize) n * C;
      for (int c = 0; c < C; c++)
        o[c] = beta == 0 ? 0 : beta * o[c];
      for (int j = 0; j < k; j++)
        {
          int a = n * k + j;
          float w = wts ? wts[a] : 1.0f;
          const float *r = xp + (gsize) pos[a] * C;
          for (int c = 0; c < C; c++)
            o[c] += w * r[c];
        }
    }
}

void
exec_cpu_moe_combine_backward (float *dxp, float *dwts, const float *dout, const float *yp,
                               const int *pos, const float *wts, int N, int k, int C)
{
  for (int a = 0; a < N * k; a++)
    {
      const float *d = dout + (gsize) (a / k) * C, *y = yp + (gsize) pos[a] * C;
      float *g = dxp + (gsize) pos[a] * C, dot = 0;
      for (int c = 0; c < C; c++)
        {
          dot += d[c] * y[c];
          g[c] = wts[a] * d[c];
        }
      dwts[a] = dot;
    }
}

/* ---- the block ------------------------------------------------------------------------ */

static gboolean
has_group (const ExecMoeCtx *ctx)
{
  return ctx->group && ctx->group->size > 1;
}

/* Makes `comm` wait for what compute has issued (on the CPU compute is synchronous). */
static gboolean
order_comm (ExecMoeCtx *ctx, GError **error)
{
  if (!ctx->ev)
    return TRUE;
  return exec_event_record (ctx->ev, ctx->compute, error)
         && exec_event_wait (ctx->comm, ctx->ev, error);
}

/* The per-expert counts: this rank's (E) and what each source sends its experts. */
static gboolean
exchange_counts (ExecMoeCtx *ctx, const ExecMoeShape *s, const ExecMoeActs *a,
                 ExecMoeRoute *r, GError **error)
{
  const ExecKernels *K = exec_kernels_for (ctx->compute);
  if (has_group (ctx))
    {
      ExecColl op = { .kind = EXEC_COLL_ALL_TO_ALL, .dtype = EXEC_DTYPE_F32,
                      .send = a->counts, .recv = a->rcounts, .count = (gsize) s->E_local };
      if (!order_comm (ctx, error) || !exec_collective (ctx->comm, ctx->group, &op, NULL, error)
          || !exec_stream_synchronize (ctx->comm, error))
        return FALSE;
    }
  else
    K->copy (ctx->compute, a->rcounts, a->counts, (gsize) s->E);
  gsize bytes = 2 * (gsize) s->E * sizeof (float);
  if (ctx->buf)
    {
      ExecBackend *b = ctx->buf->backend;
      gsize off = (gsize) ((const char *) a->counts - (const char *) ctx->buf->data);
      if (!exec_stream_synchronize (ctx->compute, error)
          || !b->ops->buffer_download (b, r->host_counts, ctx->buf, off, bytes, error))
        return FALSE;
    }
  else
    memcpy (r->host_counts, a->counts, bytes);
  const float *cnt = r->host_counts, *rcnt = r->host_counts + s->E;
  int so = 0, ro = 0;
  for (int e = 0; e < s->E_local; e++)
    r->expert_rows[e] = 0;
  for (int p = 0; p < s->ep; p++)
    {
      int sr = 0, rr = 0;
      for (int e = 0; e < s->E_local; e++)
        {
          sr += (int) cnt[p * s->E_local + e];
          int c = (int) rcnt[p * s->E_local + e];
          r->chunk[p * s->E_local + e] = c;
          r->expert_rows[e] += c;
          rr += c;
        }
      r->send_rows[p] = sr;
      r->send_off[p] = so;
      r->recv_rows[p] = rr;
      r->recv_off[p] = ro;
      so += sr;
      ro += rr;
    }
  r->rows_in = ro;
  if (so != s->N * s->k || ro > s->R_max)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "MoE dispatch: %d rows routed (expected %d), %d received (at most %d): "
                   "the count exchange is corrupt", so, s->N * s->k, ro, s->R_max);
      return FALSE;
    }
  return TRUE;
}

/* Rows from `send` to the members (dispatch: send_rows out, recv_rows in; the combine
 * swaps them), waited for. */
static gboolean
all_to_allv (ExecMoeCtx *ctx, const ExecMoeShape *s, const ExecMoeRoute *r, gboolean back,
             const float *send, float *recv, ExecSample *sample, GError **error)
{
  int ep = s->ep, C = s->C;
  const int *sr = back ? r->recv_rows : r->send_rows, *so = back ? r->recv_off : r->send_off;
  const int *rr = back ? r->send_rows : r->recv_rows, *ro = back ? r->send_off : r->recv_off;
  if (!has_group (ctx))
    {
      exec_kernels_for (ctx->compute)->copy (ctx->compute, recv, send, (gsize) sr[0] * C);
      return TRUE;
    }
  int *el = r->counts_el;   /* host: valid until the synchronize below */
  for (int p = 0; p < ep; p++)
    {
      el[p] = sr[p] * C;
      el[ep + p] = so[p] * C;
      el[2 * ep + p] = rr[p] * C;
      el[3 * ep + p] = ro[p] * C;
    }
  ExecColl op = { .kind = EXEC_COLL_ALL_TO_ALLV, .dtype = EXEC_DTYPE_F32, .send = send,
                  .recv = recv, .send_counts = el, .send_displs = el + ep,
                  .recv_counts = el + 2 * ep, .recv_displs = el + 3 * ep };
  return order_comm (ctx, error) && exec_collective (ctx->comm, ctx->group, &op, sample, error)
         && exec_stream_synchronize (ctx->comm, error);
}

/* (source, expert) <-> (expert, source) order of the received rows. */
static void
regroup (ExecMoeCtx *ctx, const ExecMoeShape *s, const ExecMoeRoute *r, gboolean to_expert,
         const float *src, float *dst)
{
  const ExecKernels *K = exec_kernels_for (ctx->compute);
  gsize C = s->C;
  int eo = 0;
  for (int e = 0; e < s->E_local; e++)
    {
      int xo = eo;
      for (int p = 0; p < s->ep; p++)
        {
          int so = r->recv_off[p];
          for (int f = 0; f < e; f++)
            so += r->chunk[p * s->E_local + f];
          int n = r->chunk[p * s->E_local + e];
          if (n > 0)
            {
              if (to_expert)
                K->copy (ctx->compute, dst + (gsize) xo * C, src + (gsize) so * C, n * C);
              else
                K->copy (ctx->compute, dst + (gsize) so * C, src + (gsize) xo * C, n * C);
            }
          xo += n;
        }
      eo += r->expert_rows[e];
    }
}

static gboolean
check_kernels (const ExecKernels *K, GError **error)
{
  if (K->moe_topk && K->moe_topk_backward && K->moe_permute && K->moe_unpermute
      && K->moe_combine_backward)
    return TRUE;
  g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
               "the %s kernel table has no mixture-of-experts kernels", K->name);
  return FALSE;
}

/* The phases, as the step program's MoE tasks split the block (plan/program.h): forward
 * MOE_ROUTE, dispatch all-to-all, MOE_EXPERTS, combine all-to-all, MOE_COMBINE; backward
 * the mirror. Scratch layout (exec_moe_scratch_size): bufA, bufB (R_max, C) each; dh,
 * dgate, dup (R_max, F) each; dyp, dxp (N k, C) each; dwts (N, k); dxn (N, C); dlogits
 * (N, E); with shared experts sh_dh, sh_dgate, sh_dup (N, S) each, sh_y (N, C: their
 * output) and sh_dxn (N, C: their input gradient). The forward uses bufA (received rows,
 * then expert outputs) and bufB (outputs to send back); the scratch must stay with the
 * block from its first phase to its last. */
typedef struct {
  float *bufA, *bufB, *dh, *dgate, *dup, *dyp, *dxp, *dwts, *dxn, *dlogits;
  float *sh_dh, *sh_dgate, *sh_dup, *sh_y, *sh_dxn;
} Scratch;

static Scratch
scratch_of (const ExecMoeShape *s, float *mem)
{
  gsize RC = (gsize) s->R_max * s->C, RF = (gsize) s->R_max * s->F;
  gsize NkC = (gsize) s->N * s->k * s->C;
  Scratch x;
  x.bufA = mem;
  x.bufB = x.bufA + RC;
  x.dh = x.bufB + RC;
  x.dgate = x.dh + RF;
  x.dup = x.dgate + RF;
  x.dyp = x.dup + RF;
  x.dxp = x.dyp + NkC;
  x.dwts = x.dxp + NkC;
  x.dxn = x.dwts + (gsize) s->N * s->k;
  x.dlogits = x.dxn + (gsize) s->N * s->C;
  gsize NS = (gsize) s->N * s->S;
  x.sh_dh = x.dlogits + (gsize) s->N * s->E;
  x.sh_dgate = x.sh_dh + NS;
  x.sh_dup = x.sh_dgate + NS;
  x.sh_y = x.sh_dup + NS;
  x.sh_dxn = x.sh_y + (gsize) s->N * s->C;
  return x;
}

gboolean
exec_moe_route_forward (ExecMoeCtx *ctx, const ExecMoeShape *s, const ExecMoeWeights *w,
                        const float *x, ExecMoeActs *a, GError **error)
{
  ExecStream *st = ctx->compute;
  const ExecKernels *K = exec_kernels_for (st);
  if (!check_kernels (K, error))
    return FALSE;
  int N = s->N, C = s->C;
  K->rmsnorm_forward (st, a->x_norm, a->rstd, x, w->norm, N, C, s->eps);
  K->matmul_forward (st, a->probs, a->x_norm, w->router, N, C, s->E, 0.0f);   /* logits */
  K->moe_topk (st, a->probs, a->idx, a->wts, a->probs, N, s->E, s->k, s->norm_topk);
  K->moe_permute (st, a->xp, a->pos, a->counts, a->idx, a->x_norm, N, s->k, s->E, C);
  return TRUE;
}

gboolean
exec_moe_dispatch_forward (ExecMoeCtx *ctx, const ExecMoeShape *s, ExecMoeActs *a,
                           ExecMoeRoute *route, float *scratch, GError **error)
{
  Scratch x = scratch_of (s, scratch);
  if (!exchange_counts (ctx, s, a, route, error)
      || !all_to_allv (ctx, s, route, FALSE, a->xp, x.bufA, &ctx->a2a[0], error))
    return FALSE;
  regroup (ctx, s, route, TRUE, x.bufA, a->xe);
  return TRUE;
}

gboolean
exec_moe_experts_forward (ExecMoeCtx *ctx, const ExecMoeShape *s, const ExecMoeWeights *w,
                          ExecMoeActs *a, const ExecMoeRoute *route, float *scratch,
                          GError **error)
{
  ExecStream *st = ctx->compute;
  const ExecKernels *K = exec_kernels_for (st);
  Scratch x = scratch_of (s, scratch);
  int C = s->C, F = s->F;
  float *ye = x.bufA;   /* the received rows are spent once regrouped */
  gsize o = 0;
  for (int e = 0; e < s->E_local; e++)
    {
      int M = route->expert_rows[e];
      if (M == 0)
        continue;
      gsize wo = (gsize) e * F * C;
      K->matmul_forward (st, a->gate + o * F, a->xe + o * C, w->w_gate + wo, M, C, F, 0.0f);
      K->matmul_forward (st, a->up + o * F, a->xe + o * C, w->w_up + wo, M, C, F, 0.0f);
      K->swiglu_forward (st, a->h + o * F, a->gate + o * F, a->up + o * F, (gsize) M * F);
      K->matmul_forward (st, ye + o * C, a->h + o * F, w->w_down + wo, M, F, C, 0.0f);
      o += M;
    }
  regroup (ctx, s, route, FALSE, ye, x.bufB);
  return TRUE;
}

gboolean
exec_moe_combine_a2a_forward (ExecMoeCtx *ctx, const ExecMoeShape *s, ExecMoeActs *a,
                              const ExecMoeRoute *route, float *scratch, GError **error)
{
  Scratch x = scratch_of (s, scratch);
  return all_to_allv (ctx, s, route, TRUE, x.bufB, a->yp, &ctx->a2a[1], error);
}

void
exec_moe_combine_forward (ExecMoeCtx *ctx, const ExecMoeShape *s, const float *x,
                          gboolean add_residual, const ExecMoeActs *a, float *out)
{
  ExecStream *st = ctx->compute;
  const ExecKernels *K = exec_kernels_for (st);
  if (add_residual)
    K->copy (st, out, x, (gsize) s->N * s->C);
  K->moe_unpermute (st, out, a->yp, a->pos, a->wts, s->N, s->k, s->C,
                    add_residual ? 1.0f : 0.0f);
}

void
exec_moe_shared_forward (ExecMoeCtx *ctx, const ExecMoeShape *s, const ExecMoeWeights *w,
                         ExecMoeActs *a, float *scratch)
{
  if (s->S <= 0)
    return;
  ExecStream *st = ctx->compute;
  const ExecKernels *K = exec_kernels_for (st);
  Scratch x = scratch_of (s, scratch);
  int N = s->N, C = s->C, S = s->S;
  K->matmul_forward (st, a->sh_gate, a->x_norm, w->sh_gate, N, C, S, 0.0f);
  K->matmul_forward (st, a->sh_up, a->x_norm, w->sh_up, N, C, S, 0.0f);
  K->swiglu_forward (st, a->sh_h, a->sh_gate, a->sh_up, (gsize) N * S);
  K->matmul_forward (st, x.sh_y, a->sh_h, w->sh_down, N, S, C, 0.0f);
}

void
exec_moe_shared_add (ExecMoeCtx *ctx, const ExecMoeShape *s, const float *scratch, float *out)
{
  if (s->S <= 0)
    return;
  Scratch x = scratch_of (s, (float *) scratch);
  exec_kernels_for (ctx->compute)->add (ctx->compute, out, out, x.sh_y,
                                        (gsize) s->N * s->C);
}

void
exec_moe_shared_backward (ExecMoeCtx *ctx, const ExecMoeShape *s, const ExecMoeWeights *w,
                          ExecMoeWeights *g, const ExecMoeActs *a, const float *dout,
                          float *scratch)
{
  if (s->S <= 0)
    return;
  ExecStream *st = ctx->compute;
  const ExecKernels *K = exec_kernels_for (st);
  Scratch x = scratch_of (s, scratch);
  int N = s->N, C = s->C, S = s->S;
  /* their output is added to the block's: its gradient is dout itself */
  K->matmul_backward (st, x.sh_dh, g->sh_down, dout, a->sh_h, w->sh_down, N, S, C, 0.0f);
  K->swiglu_backward (st, x.sh_dgate, x.sh_dup, x.sh_dh, a->sh_gate, a->sh_up, (gsize) N * S);
  K->matmul_backward (st, x.sh_dxn, g->sh_gate, x.sh_dgate, a->x_norm, w->sh_gate, N, C, S,
                      0.0f);
  K->matmul_backward (st, x.sh_dxn, g->sh_up, x.sh_dup, a->x_norm, w->sh_up, N, C, S, 1.0f);
}

gboolean
exec_moe_forward (ExecMoeCtx *ctx, const ExecMoeShape *s, const ExecMoeWeights *w,
                  const float *x, gboolean add_residual, ExecMoeActs *a, ExecMoeRoute *route,
                  float *out, float *scratch, GError **error)
{
  if (!exec_moe_route_forward (ctx, s, w, x, a, error)
      || !exec_moe_dispatch_forward (ctx, s, a, route, scratch, error)
      || !exec_moe_experts_forward (ctx, s, w, a, route, scratch, error)
      || !exec_moe_combine_a2a_forward (ctx, s, a, route, scratch, error))
    return FALSE;
  exec_moe_combine_forward (ctx, s, x, add_residual, a, out);
  exec_moe_shared_forward (ctx, s, w, a, scratch);
  exec_moe_shared_add (ctx, s, scratch, out);
  return TRUE;
}

gboolean
exec_moe_combine_backward (ExecMoeCtx *ctx, const ExecMoeShape *s, const ExecMoeActs *a,
                           const float *dout, float *scratch, GError **error)
{
  const ExecKernels *K = exec_kernels_for (ctx->compute);
  if (!check_kernels (K, error))
    return FALSE;
  Scratch x = scratch_of (s, scratch);
  K->moe_combine_backward (ctx->compute, x.dyp, x.dwts, dout, a->yp, a->pos, a->wts, s->N,
                           s->k, s->C);
  return TRUE;
}

gboolean
exec_moe_dispatch_backward (ExecMoeCtx *ctx, const ExecMoeShape *s, const ExecMoeRoute *route,
                            float *scratch, GError **error)
{
  Scratch x = scratch_of (s, scratch);
  if (!all_to_allv (ctx, s, route, FALSE, x.dyp, x.bufA, &ctx->a2a[0], error))
    return FALSE;
  regroup (ctx, s, route, TRUE, x.bufA, x.bufB);
  return TRUE;
}

gboolean
exec_moe_experts_backward (ExecMoeCtx *ctx, const ExecMoeShape *s, const ExecMoeWeights *w,
                           ExecMoeWeights *g, const ExecMoeActs *a, const ExecMoeRoute *route,
                           float *scratch, GError **error)
{
  ExecStream *st = ctx->compute;
  const ExecKernels *K = exec_kernels_for (st);
  Scratch x = scratch_of (s, scratch);
  int C = s->C, F = s->F;
  float *dye = x.bufB, *dxe = x.bufA;
  gsize o = 0;
  for (int e = 0; e < s->E_local; e++)
    {
      int M = route->expert_rows[e];
      if (M == 0)
        continue;
      gsize wo = (gsize) e * F * C;
      K->matmul_backward (st, x.dh + o * F, g->w_down + wo, dye + o * C, a->h + o * F,
                          w->w_down + wo, M, F, C, 0.0f);
      K->swiglu_backward (st, x.dgate + o * F, x.dup + o * F, x.dh + o * F, a->gate + o * F,
                          a->up + o * F, (gsize) M * F);
      K->matmul_backward (st, dxe + o * C, g->w_gate + wo, x.dgate + o * F, a->xe + o * C,
                          w->w_gate + wo, M, C, F, 0.0f);
      K->matmul_backward (st, dxe + o * C, g->w_up + wo, x.dup + o * F, a->xe + o * C,
                          w->w_up + wo, M, C, F, 1.0f);
      o += M;
    }
  regroup (ctx, s, route, FALSE, dxe, x.bufB);   /* dye is spent */
  return TRUE;
}

gboolean
exec_moe_combine_a2a_backward (ExecMoeCtx *ctx, const ExecMoeShape *s,
                               const ExecMoeRoute *route, float *scratch, GError **error)
{
  Scratch x = scratch_of (s, scratch);
  return all_to_allv (ctx, s, route, TRUE, x.bufB, x.dxp, &ctx->a2a[1], error);
}

void
exec_moe_route_backward (ExecMoeCtx *ctx, const ExecMoeShape *s, const ExecMoeWeights *w,
                         ExecMoeWeights *g, const float *x, gboolean add_residual,
                         const ExecMoeActs *a, const float *dout, float *dx, float *scratch)
{
  ExecStream *st = ctx->compute;
  const ExecKernels *K = exec_kernels_for (st);
  Scratch z = scratch_of (s, scratch);
  int N = s->N, C = s->C;
  /* the token's input gradient: its k copies summed, plus the router's path (and the
   * shared experts', computed by their backward) */
  if (s->S > 0)
    K->copy (st, z.dxn, z.sh_dxn, (gsize) N * C);
  K->moe_unpermute (st, z.dxn, z.dxp, a->pos, NULL, N, s->k, C, s->S > 0 ? 1.0f : 0.0f);
  K->moe_topk_backward (st, z.dlogits, z.dwts, a->probs, a->idx, a->wts, N, s->E, s->k,
                        s->norm_topk);
  K->matmul_backward (st, z.dxn, g->router, z.dlogits, a->x_norm, w->router, N, C, s->E, 1.0f);
  if (add_residual)
    K->copy (st, dx, dout, (gsize) N * C);
  else
    K->fill (st, dx, 0.0f, (gsize) N * C);
  K->rmsnorm_backward (st, dx, g->norm, z.dxn, x, w->norm, a->rstd, N, C);
}

gboolean
exec_moe_backward (ExecMoeCtx *ctx, const ExecMoeShape *s, const ExecMoeWeights *w,
                   ExecMoeWeights *g, const float *x, gboolean add_residual,
                   const ExecMoeActs *a, const ExecMoeRoute *route, const float *dout,
                   float *dx, float *scratch, GError **error)
{
  exec_moe_shared_backward (ctx, s, w, g, a, dout, scratch);
  if (!exec_moe_combine_backward (ctx, s, a, dout, scratch, error)
      || !exec_moe_dispatch_backward (ctx, s, route, scratch, error)
      || !exec_moe_experts_backward (ctx, s, w, g, a, route, scratch, error)
      || !exec_moe_combine_a2a_backward (ctx, s, route, scratch, error))
    return FALSE;
  exec_moe_route_backward (ctx, s, w, g, x, add_residual, a, dout, dx, scratch);
  return TRUE;
}
