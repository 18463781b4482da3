/* exec/calibrate-attn.c - the attention core of `tandem calibrate`, forward and backward:
 * the calls of exec_attn_core_forward and exec_attn_core_backward (exec/layers-block.c),
 * through the backend's ExecKernels table (exec/layers.h) on its buffers, all ranks at
 * once; and a program's attention shapes.
 *
 * Why: the cost model prices GEMMs from the measured GEMM table, but the CPU backend's
 * attention core is scalar loops (exec/layers-attn.c) running at a few GFLOP/s, so its
 * default (a fraction of the GEMM peak) was ~8x fast (the runner's author measured
 * attn_bwd at seq 512 taking 680 ms against 78 ms predicted).
 *
 * Method (calibrate.c's): inputs uniform in [-1, 1) from a SplitMix64 stream seeded with
 * the seed and the rank; one forward and one backward checked against a double-precision
 * reference (sampled queries and keys, cal_close_enough); a barrier, then the timed
 * calls (cal_time_calls), forward then backward; the time per call less the call
 * overhead gives the rate; times averaged over ranks, wrong outputs summed.
 *
 * Units: FLOPs as plan/program.c counts them (forward 4 b heads s_q s_kv head_dim,
 * halved when causal; backward 2.5 x that), so that a profile row makes the cost model
 * predict exactly the measured time of its shape (sim/cost.h). */
#include "exec/calibrate-private.h"
#include "exec/layers.h"

#include <math.h>
#include <string.h>

/* ---- grid ------------------------------------------------------------------------------- */

/* Quick: tiny-llama's attention (8 heads, 4 KV heads, head_dim 32, the project's CPU
 * model: models/presets/tiny-llama.json) at 128 and 256 tokens, its TP 2 shard, and two
 * wider heads; then small-llama's (8 / 8 heads of 64 at 512 tokens: the second CPU
 * model, models/presets/small-llama.json) and its TP 2 shard (4 / 4). The kernel
 * (exec/layers-attn.c) walks one head's K and V rows kv_heads x head_dim floats apart,
 * so the 2 / 2-head row of 64 at 512 tokens (a 512 B stride) does not stand for them
 * (2 KiB and 1 KiB): on the quiet VM small-llama's attention ran 15-18% slower than that
 * row predicts. ~1 s, then ~3 s more, on one core. Full: head_dim 32..128 and
 * 128..2048 tokens. */
static const ExecAttnShape quick_attn[] = {
  { 1, 8, 4, 128, 128, 32, TRUE }, { 1, 8, 4, 256, 256, 32, TRUE },
  { 1, 4, 2, 256, 256, 32, TRUE }, { 1, 4, 4, 256, 256, 64, TRUE },
  { 1, 2, 2, 512, 512, 64, TRUE }, { 1, 8, 8, 512, 512, 64, TRUE },
  { 1, 4, 4, 512, 512, 64, TRUE },
};
static const ExecAttnShape full_attn[] = {
  { 1, 8, 4, 128, 128, 32, TRUE },  { 1, 8, 4, 256, 256, 32, TRUE },
  { 1, 8, 4, 512, 512, 32, TRUE },  { 1, 4, 2, 256, 256, 32, TRUE },
  { 1, 8, 8, 256, 256, 64, TRUE },  { 1, 8, 8, 1024, 1024, 64, TRUE },
  { 1, 8, 2, 512, 512, 128, TRUE }, { 1, 4, 4, 2048, 2048, 128, TRUE },
  { 2, 8, 4, 256, 256, 32, TRUE },  { 1, 8, 4, 256, 256, 32, FALSE },
};

#define QUICK_MAX_ATTN_FLOPS 1073741824.0     /* 2^30 forward: ~0.3 s at 3 GFLOP/s */
#define FULL_MAX_ATTN_FLOPS 17179869184.0     /* 2^34 */
/* ---- attention ------------------------------------------------------------------------- */

typedef struct {
  ExecStream        *s;
  const ExecKernels *k;
  ExecAttnDims       d;
  float *q, *kk, *v, *out, *lse, *dout, *delta, *dq, *dk, *dv;
  int   *q_pos, *kv_pos;
  gsize  nq, nkv;                   /* elements of q (and out), of k (and v) */
} AttnRun;

/* exec_attn_core_forward's calls, with explicit positions (layers-block.c). */
static void
attn_fwd_call (gpointer data)
{
  AttnRun *a = data;
  a->k->attn_init (a->s, a->out, a->lse, &a->d);
  a->k->attn_forward (a->s, a->out, a->lse, a->q, a->q_pos, a->kk, a->v, a->kv_pos, &a->d);
}

/* exec_attn_core_backward's calls. */
static void
attn_bwd_call (gpointer data)
{
  AttnRun *a = data;
  a->k->attn_backward_prep (a->s, a->delta, a->out, a->dout, &a->d);
  a->k->fill (a->s, a->dq, 0.0f, a->nq);
  a->k->fill (a->s, a->dk, 0.0f, a->nkv);
  a->k->fill (a->s, a->dv, 0.0f, a->nkv);
  a->k->attn_backward (a->s, a->dq, a->dk, a->dv, a->dout, a->delta, a->lse, a->q, a->q_pos,
                       a->kk, a->v, a->kv_pos, &a->d);
}

/* Host copies of the inputs and the kernel's outputs, for the reference. */
typedef struct {
  const ExecAttnDims *d;
  const float *q, *k, *v, *out, *lse, *dout;
  const int   *q_pos, *kv_pos;
} AttnHost;

static const float *
row_q (const AttnHost *h, const float *base, int b, int i, int head)
{
  return base + (((gsize) b * h->d->Tq + i) * h->d->n_head + head) * h->d->head_dim;
}

static const float *
row_kv (const AttnHost *h, const float *base, int b, int j, int kvh)
{
  return base + (((gsize) b * h->d->Tk + j) * h->d->n_kv_head + kvh) * h->d->head_dim;
}

static double
dot_d (const float *a, const float *b, int n, double *mag)
{
  double acc = 0, m = 0;
  for (int i = 0; i < n; i++)
    {
      acc += (double) a[i] * b[i];
      m += fabs ((double) a[i] * b[i]);
    }
  if (mag)
    *mag = m;
  return acc;
}

/* Forward of query (b, head, i): lse and out against a double softmax. */
static gint64
attn_check_fwd (const AttnHost *h, int b, int head, int i)
{
  const ExecAttnDims *d = h->d;
  const int D = d->head_dim, kvh = head / (d->n_head / d->n_kv_head);
  const double scale = 1.0 / sqrt ((double) D);
  const float *qi = row_q (h, h->q, b, i, head);
  double m = -INFINITY;
  for (int j = 0; j < d->Tk; j++)
    if (h->kv_pos[j] <= h->q_pos[i])
      m = MAX (m, dot_d (qi, row_kv (h, h->k, b, j, kvh), D, NULL) * scale);
  const float lse_got = h->lse[((gsize) b * d->n_head + head) * d->Tq + i];
  if (m == -INFINITY)
    return lse_got == -INFINITY ? 0 : 1;
  double sum = 0;
  g_autofree double *o = g_new0 (double, D), *mag = g_new0 (double, D);
  for (int j = 0; j < d->Tk; j++)
    if (h->kv_pos[j] <= h->q_pos[i])
      {
        const double p = exp (dot_d (qi, row_kv (h, h->k, b, j, kvh), D, NULL) * scale - m);
        const float *vj = row_kv (h, h->v, b, j, kvh);
        sum += p;
        for (int c = 0; c < D; c++)
          o[c] += p * vj[c], mag[c] += fabs (p * vj[c]);
      }
  gint64 wrong = !cal_close_enough (lse_got, m + log (sum), fabs (m) + 1.0, D + d->Tk);
  const float *oi = row_q (h, h->out, b, i, head);
  for (int c = 0; c < D; c++)
    wrong += !cal_close_enough (oi[c], o[c] / sum, mag[c] / sum, D + d->Tk);
  return wrong;
}

/* Backward for batch 0, KV head 0: dq of query i of head 0 and dk, dv of key j, from
 * the (checked) forward's lse and out: p = exp (s - lse), delta = dout . out,
 * ds = p (dout . v - delta), dq = sum ds k scale, dk = sum ds q scale, dv = sum p dout. */
static gint64
attn_check_bwd (const AttnHost *h, const float *dq, const float *dk, const float *dv, int i,
                int j)
{
  const ExecAttnDims *d = h->d;
  const int D = d->head_dim, group = d->n_head / d->n_kv_head;
  const double scale = 1.0 / sqrt ((double) D);
  g_autofree double *rq = g_new0 (double, D), *mq = g_new0 (double, D);
  g_autofree double *rk = g_new0 (double, D), *mk = g_new0 (double, D);
  g_autofree double *rv = g_new0 (double, D), *mv = g_new0 (double, D);
  /* terms of (query ii of head hh, key jj) */
#define TERM(hh, ii, jj, body) G_STMT_START {                                             \
    const float *qi_ = row_q (h, h->q, 0, ii, hh), *doi_ = row_q (h, h->dout, 0, ii, hh);  \
    const float *kj_ = row_kv (h, h->k, 0, jj, 0), *vj_ = row_kv (h, h->v, 0, jj, 0);     \
    const double li_ = h->lse[((gsize) hh) * d->Tq + ii];                                  \
    const double delta_ = dot_d (doi_, row_q (h, h->out, 0, ii, hh), D, NULL);             \
    const double p = exp (dot_d (qi_, kj_, D, NULL) * scale - li_);                         \
    const double ds = p * (dot_d (doi_, vj_, D, NULL) - delta_) * scale;                    \
    body;                                                                                 \
  } G_STMT_END
  if (h->lse[i] != -INFINITY)
    for (int jj = 0; jj < d->Tk; jj++)
      if (h->kv_pos[jj] <= h->q_pos[i])
        TERM (0, i, jj, for (int c = 0; c < D; c++) {
          rq[c] += ds * kj_[c];
          mq[c] += fabs (ds * kj_[c]);
        });
  for (int hh = 0; hh < group; hh++)
    for (int ii = 0; ii < d->Tq; ii++)
      if (h->kv_pos[j] <= h->q_pos[ii] && h->lse[(gsize) hh * d->Tq + ii] != -INFINITY)
        TERM (hh, ii, j, for (int c = 0; c < D; c++) {
          rk[c] += ds * qi_[c];
          mk[c] += fabs (ds * qi_[c]);
          rv[c] += p * doi_[c];
          mv[c] += fabs (p * doi_[c]);
        });
#undef TERM
  gint64 wrong = 0;
  const double n = (double) d->Tk * group + 3.0 * D;
  const float *gq = dq + (gsize) i * d->n_head * D;
  const float *gk = dk + (gsize) j * d->n_kv_head * D, *gv = dv + (gsize) j * d->n_kv_head * D;
  for (int c = 0; c < D; c++)
    wrong += !cal_close_enough (gq[c], rq[c], mq[c] + 1e-3, n)
             + !cal_close_enough (gk[c], rk[c], mk[c] + 1e-3, n)
             + !cal_close_enough (gv[c], rv[c], mv[c] + 1e-3, n);
  return wrong;
}

static gboolean
attn_measure (CalCtx *ctx, ExecStream *s, guint64 *rng, const CalTiming *tm, ExecAttnRow *row,
              GError **error)
{
  const ExecAttnShape *sh = &row->shape;
  AttnRun a = { .s = s, .k = exec_kernels_for (s),
                .d = { .B = sh->b, .Tq = sh->s_q, .Tk = sh->s_kv, .n_head = sh->heads,
                       .n_kv_head = sh->kv_heads, .head_dim = sh->head_dim } };
  a.nq = (gsize) sh->b * sh->s_q * sh->heads * sh->head_dim;
  a.nkv = (gsize) sh->b * sh->s_kv * sh->kv_heads * sh->head_dim;
  const gsize nrow = (gsize) sh->b * sh->heads * sh->s_q;
  g_autofree float *hq = cal_host_uniform (rng, a.nq, -1, 1);
  g_autofree float *hk = cal_host_uniform (rng, a.nkv, -1, 1);
  g_autofree float *hv = cal_host_uniform (rng, a.nkv, -1, 1);
  g_autofree float *hdo = cal_host_uniform (rng, a.nq, -1, 1);
  g_autofree int *qp = g_new (int, sh->s_q), *kp = g_new (int, sh->s_kv);
  /* keys at 0 .. s_kv - 1; causal queries spread evenly over them (s_q = s_kv: the
   * runner's self-attention; fewer queries see half the keys on average, as a CP
   * rank's load-balanced chunks do), non-causal queries see every key */
  for (int j = 0; j < sh->s_kv; j++)
    kp[j] = j;
  for (int i = 0; i < sh->s_q; i++)
    qp[i] = sh->causal ? (int) (((gint64) 2 * i + 1) * sh->s_kv / (2 * sh->s_q)) : sh->s_kv;
  CalBufs bs = { .b = ctx->b };
  gboolean ok = (a.q = cal_bufs_add (&bs, a.nq * 4, hq, error))
                && (a.kk = cal_bufs_add (&bs, a.nkv * 4, hk, error))
                && (a.v = cal_bufs_add (&bs, a.nkv * 4, hv, error))
                && (a.dout = cal_bufs_add (&bs, a.nq * 4, hdo, error))
                && (a.out = cal_bufs_add (&bs, a.nq * 4, NULL, error))
                && (a.lse = cal_bufs_add (&bs, nrow * 4, NULL, error))
                && (a.delta = cal_bufs_add (&bs, nrow * 4, NULL, error))
                && (a.dq = cal_bufs_add (&bs, a.nq * 4, NULL, error))
                && (a.dk = cal_bufs_add (&bs, a.nkv * 4, NULL, error))
                && (a.dv = cal_bufs_add (&bs, a.nkv * 4, NULL, error))
                && (a.q_pos = cal_bufs_add (&bs, sh->s_q * sizeof (int), qp, error))
                && (a.kv_pos = cal_bufs_add (&bs, sh->s_kv * sizeof (int), kp, error));
  if (ok)
    {
      /* one forward and one backward, checked */
      attn_fwd_call (&a);
      attn_bwd_call (&a);
      g_autofree float *ho = g_new (float, a.nq), *hl = g_new (float, nrow);
      g_autofree float *gq = g_new (float, a.nq), *gk = g_new (float, a.nkv);
      g_autofree float *gv = g_new (float, a.nkv);
      ok = exec_stream_synchronize (s, error) && cal_bufs_get (&bs, ho, a.out, a.nq * 4, error)
           && cal_bufs_get (&bs, hl, a.lse, nrow * 4, error)
           && cal_bufs_get (&bs, gq, a.dq, a.nq * 4, error)
           && cal_bufs_get (&bs, gk, a.dk, a.nkv * 4, error)
           && cal_bufs_get (&bs, gv, a.dv, a.nkv * 4, error);
      if (ok)
        {
          AttnHost h = { &a.d, hq, hk, hv, ho, hl, hdo, qp, kp };
          const int qs[3] = { 0, sh->s_q / 2, sh->s_q - 1 }, ks[2] = { 0, sh->s_kv - 1 };
          for (int t = 0; t < 3; t++)
            row->wrong += attn_check_fwd (&h, sh->b - 1, (t * 5) % sh->heads, qs[t]);
          for (int t = 0; t < 2; t++)
            row->wrong += attn_check_bwd (&h, gq, gk, gv, qs[2 * t], ks[t]);
        }
    }
  /* every rank times at once (a rank still checking would not compete for the cores) */
  ok = ok && cal_barrier (ctx, ctx->world, error)
       && cal_time_calls (s, tm, attn_fwd_call, &a, &row->fwd_s, &row->reps, &row->fwd_share,
                          error)
       && cal_barrier (ctx, ctx->world, error)
       && cal_time_calls (s, tm, attn_bwd_call, &a, &row->bwd_s, &row->reps, &row->bwd_share,
                          error);
  cal_bufs_clear (&bs);
  return ok;
}

/* Forward FLOPs of the shape as plan/program.c counts them. */
static double
attn_flops (const ExecAttnShape *sh)
{
  return 4.0 * sh->b * sh->heads * (double) sh->s_q * sh->s_kv * sh->head_dim
         * (sh->causal ? 0.5 : 1.0);
}

/* Flash attention's backward executes 2.5x the forward's FLOPs (plan/program.c). */
#define ATTN_BWD_FACTOR 2.5

static gboolean
attn_fits (const ExecAttnShape *sh, double max_flops, char **why)
{
  if (sh->b < 1 || sh->heads < 1 || sh->kv_heads < 1 || sh->s_q < 1 || sh->s_kv < 1
      || sh->head_dim < 1 || sh->heads % sh->kv_heads)
    *why = g_strdup_printf ("attention b %d heads %d/%d s %d x %d d %d: not a shape the "
                            "kernels take", sh->b, sh->heads, sh->kv_heads, sh->s_q, sh->s_kv,
                            sh->head_dim);
  else if (attn_flops (sh) > max_flops)
    *why = g_strdup_printf ("attention b %d heads %d/%d s %d x %d d %d: %.3g GFLOP forward "
                            "is above the %.3g GFLOP limit", sh->b, sh->heads, sh->kv_heads,
                            sh->s_q, sh->s_kv, sh->head_dim, attn_flops (sh) / 1e9,
                            max_flops / 1e9);
  else
    return TRUE;
  return FALSE;
}

gboolean
exec_calibrate_attention (ExecBackend *b, const ExecCalibrateOptions *o, ExecCalibration *cal,
                          GError **error)
{
  guint64 rng = o->seed * 1000003ull + 7919u + (guint64) b->rank;
  CalCtx *ctx = cal_ctx_new (b, error);
  if (ctx == NULL)
    return FALSE;
  ExecStream *s = exec_stream_new (b, EXEC_STREAM_COMPUTE, "calibrate-attention", error);
  const CalTiming tm = o->quick ? (CalTiming) { 0.03, 3, 1000 } : (CalTiming) { 0.2, 3, 10000 };
  const double max_flops = o->max_attn_flops > 0 ? o->max_attn_flops
                           : o->quick ? QUICK_MAX_ATTN_FLOPS : FULL_MAX_ATTN_FLOPS;
  const ExecAttnShape *grid = o->quick ? quick_attn : full_attn;
  const guint n_grid = o->quick ? G_N_ELEMENTS (quick_attn) : G_N_ELEMENTS (full_attn);
  gboolean ok = s != NULL;
  for (guint i = 0; ok && i < n_grid + o->n_extra_attention; i++)
    {
      const ExecAttnShape *sh = i < n_grid ? &grid[i] : &o->extra_attention[i - n_grid];
      gboolean seen = FALSE;
      for (guint j = 0; j < cal->attention->len && !seen; j++)
        seen = memcmp (&g_array_index (cal->attention, ExecAttnRow, j).shape, sh,
                       sizeof *sh) == 0;
      char *why = NULL;
      if (seen)
        continue;
      if (!attn_fits (sh, i < n_grid ? G_MAXDOUBLE : max_flops, &why))
        {
          g_ptr_array_add (cal->skipped, why);
          continue;
        }
      ExecAttnRow row = { .shape = *sh, .from_plan = i >= n_grid };
      ok = cal_barrier (ctx, ctx->world, error)
           && attn_measure (ctx, s, &rng, &tm, &row, error);
      double v[7] = { row.fwd_s, row.bwd_s, (double) row.wrong, 0, 0, 0, 0 };
      cal_share_sum (row.fwd_share, &v[3], &v[4]);
      cal_share_sum (row.bwd_share, &v[5], &v[6]);
      ok = ok && cal_group_sum (ctx, ctx->world, v, 7, error);
      if (!ok)
        break;
      row.fwd_s = v[0] / b->world;
      row.bwd_s = v[1] / b->world;
      row.wrong = (gint64) llround (v[2]);
      row.fwd_share = cal_share_mean (v[3], v[4]);
      row.bwd_share = cal_share_mean (v[5], v[6]);
      row.fwd_flops_per_s = attn_flops (sh) / cal_kernel_time (cal, row.fwd_s);
      row.bwd_flops_per_s = ATTN_BWD_FACTOR * attn_flops (sh) / cal_kernel_time (cal, row.bwd_s);
      g_array_append_val (cal->attention, row);
      if (b->rank == 0 && o->on_attention)
        o->on_attention (&row, o->user_data);
    }
  exec_stream_free (s);
  cal_ctx_free (ctx);
  return ok;
}

void
exec_calibrate_plan_attention (const ProgProgram *prog, GArray *shapes)
{
  g_return_if_fail (prog != NULL && shapes != NULL);
  for (guint i = 0; i < prog->ops->len; i++)
    {
      const ModelOp *op = &g_array_index (prog->ops, ModelOp, i);
      if (op->kind != MODEL_OP_ATTENTION)
        continue;
      ExecAttnShape sh = { (int) MIN (op->b, G_MAXINT), (int) MIN (op->heads, G_MAXINT),
                           (int) MIN (MAX (op->kv_heads, 1), G_MAXINT),
                           (int) MIN (op->s_q, G_MAXINT), (int) MIN (op->s_kv, G_MAXINT),
                           (int) MIN (op->head_dim, G_MAXINT), op->causal };
      gboolean seen = FALSE;
      for (guint j = 0; j < shapes->len && !seen; j++)
        seen = memcmp (&g_array_index (shapes, ExecAttnShape, j), &sh, sizeof sh) == 0;
      if (!seen)
        g_array_append_val (shapes, sh);
    }
}
