/* exec/calibrate-kernels.c - the memory-bound kernels of `tandem calibrate`: RMSNorm,
 * rotary, SwiGLU, the residual copy, the embedding, the cross-entropy and AdamW, forward
 * and backward, the calls the runner makes (exec/layers-block.c, exec/runner-block.c)
 * through the backend's ExecKernels table (exec/layers.h) on its buffers, all ranks at
 * once.
 *
 * Why: on the CPU backend these spend their time in sqrt, sin, cos and exp rather than in
 * memory traffic (SwiGLU and the cross-entropy run at 2-4 GB/s where STREAM's triad does
 * 20), so the triad bandwidth predicted them several times too fast.
 *
 * Method (calibrate.c's): inputs uniform in [-1, 1) from a SplitMix64 stream seeded with
 * the seed and the rank; one call checked against a double-precision reference on
 * sampled outputs (cal_close_enough); a barrier, then the timed calls (cal_time_calls);
 * bytes as topo_kernel_bytes counts them for fp32 over the time less the call overhead
 * give the rate (the unit of the profile's "kernels" rows, so that the cost model
 * predicts exactly the measured time of each size); times averaged over ranks, wrong
 * outputs summed. */
#include "exec/calibrate-private.h"
#include "exec/layers.h"

#include <math.h>
#include <string.h>

/* ---- grid ------------------------------------------------------------------------------- */

/* Sizes of the memory-bound kinds (elements): 256 KiB to 4 MiB of fp32 per array in the
 * quick grid (a tiny-llama micro-batch's activations are 64 Ki to 512 Ki elements; the
 * cost model holds the rate of the largest size beyond it), 16 KiB to 64 MiB in the full
 * one, from L1-resident to DRAM. */
static const guint64 quick_sizes[] = { 1 << 16, 1 << 18, 1 << 20 };
static const guint64 full_sizes[] = { 1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 22,
                                      1 << 24 };

/* Inner dimensions of the kernels' inputs: tiny-llama's (hidden 256, 8 query and 4 KV
 * heads of 32, vocabulary 2048). */
#define K_C 256
#define K_HQ 8
#define K_HKV 4
#define K_D 32
#define K_V 2048
#define ROPE_THETA 10000.0f   /* Llama 2 config.json rope_theta, as the runner */
#define NORM_EPS 1e-5f        /* Llama 2 config.json rms_norm_eps, as the runner */

/* ---- memory-bound kernels --------------------------------------------------------------- */

typedef struct {
  ExecStream        *s;
  const ExecKernels *k;
  TopoKernel         kind;
  gsize              n;        /* elements as the program counts them */
  int                N, C, T, V;
  float             *x[6];     /* device arrays, by kind (kernel_setup) */
  int               *idx;      /* tokens, targets or positions */
  int               *tgt;
  ExecAdamW          hp;
} KRun;

/* The runner's calls for each kind (exec/layers-block.c, exec/runner-block.c). */
static void
kernel_call (gpointer data)
{
  KRun *r = data;
  const ExecKernels *k = r->k;
  float **x = r->x;
  switch (r->kind)
    {
    case TOPO_KERNEL_NORM:            /* x, w -> out, rstd */
      k->rmsnorm_forward (r->s, x[2], x[3], x[0], x[1], r->N, r->C, NORM_EPS);
      break;
    case TOPO_KERNEL_NORM_GRAD:       /* dx += , dw += from dy, x, w, rstd */
      k->rmsnorm_backward (r->s, x[4], x[5], x[2], x[0], x[1], x[3], r->N, r->C);
      break;
    case TOPO_KERNEL_ROTARY:          /* q and k in place, as exec_attn_pre_forward */
      k->rope_forward (r->s, x[0], r->idx, 1, r->T, K_HQ, K_D, ROPE_THETA);
      k->rope_forward (r->s, x[1], r->idx, 1, r->T, K_HKV, K_D, ROPE_THETA);
      break;
    case TOPO_KERNEL_ROTARY_GRAD:
      k->rope_backward (r->s, x[0], r->idx, 1, r->T, K_HQ, K_D, ROPE_THETA);
      k->rope_backward (r->s, x[1], r->idx, 1, r->T, K_HKV, K_D, ROPE_THETA);
      break;
    case TOPO_KERNEL_SWIGLU:          /* gate, up -> h */
      k->swiglu_forward (r->s, x[2], x[0], x[1], r->n);
      break;
    case TOPO_KERNEL_SWIGLU_GRAD:     /* dh, gate, up -> dgate, dup */
      k->swiglu_backward (r->s, x[3], x[4], x[2], x[0], x[1], r->n);
      break;
    case TOPO_KERNEL_RESIDUAL:        /* the runner folds the residual with a copy */
    case TOPO_KERNEL_RESIDUAL_GRAD:
      k->copy (r->s, x[1], x[0], r->n);
      break;
    case TOPO_KERNEL_EMBEDDING:       /* wte[tokens] -> out */
      k->embed_forward (r->s, x[1], r->idx, x[0], 0, r->V, r->N, r->C);
      break;
    case TOPO_KERNEL_EMBEDDING_GRAD:  /* dwte += rows of dout */
      k->embed_backward (r->s, x[0], x[1], r->idx, 0, r->V, r->N, r->C);
      break;
    case TOPO_KERNEL_LOSS:            /* head_forward's cross-entropy and ce_combine */
      k->ce_forward (r->s, x[1], x[2], x[0], r->tgt, 0, r->V, r->V, r->N);
      k->ce_combine (r->s, x[3], x[4], x[1], 1, x[2], r->tgt, r->N);
      break;
    case TOPO_KERNEL_LOSS_GRAD:       /* logits, lse -> dlogits */
      k->ce_backward (r->s, x[1], x[0], x[2], r->tgt, 0, r->V, r->V, r->N, 1.0f / r->N);
      break;
    case TOPO_KERNEL_ADAMW:           /* the update, then the gradient cleared for the
                                       * next step, as runner_optimizer does */
    default:
      k->adamw (r->s, x[0], x[1], x[2], x[3], r->n, &r->hp, 1);
      k->fill (r->s, x[1], 0.0f, r->n);
      break;
    }
}

/* Shapes of a kind for about `target` elements; returns the elements as counted. */
static gsize
kernel_shape (KRun *r, guint64 target)
{
  r->C = K_C;
  r->V = K_V;
  switch (r->kind)
    {
    case TOPO_KERNEL_NORM:
    case TOPO_KERNEL_NORM_GRAD:
    case TOPO_KERNEL_EMBEDDING:
    case TOPO_KERNEL_EMBEDDING_GRAD:
      r->N = (int) MAX (target / K_C, 1);
      return (gsize) r->N * K_C;
    case TOPO_KERNEL_ROTARY:
    case TOPO_KERNEL_ROTARY_GRAD:
      r->T = (int) MAX (target / ((K_HQ + K_HKV) * K_D), 1);
      return (gsize) r->T * (K_HQ + K_HKV) * K_D;
    case TOPO_KERNEL_LOSS:
    case TOPO_KERNEL_LOSS_GRAD:
      r->N = (int) MAX (target / K_V, 1);
      return (gsize) r->N * K_V;
    default:
      return (gsize) target;
    }
}

/* Device arrays of each kind (sizes in floats) from the host arrays h[]. */
static gboolean
kernel_setup (KRun *r, CalBufs *bs, guint64 *rng, float **h, gsize *len, int **hidx, GError **error)
{
  const gsize n = r->n, N = (gsize) r->N, NC = N * r->C, NV = N * r->V;
  int n_arr = 0, n_idx = 0;
  gsize sizes[6] = { 0 };
  switch (r->kind)
    {
    case TOPO_KERNEL_NORM:
    case TOPO_KERNEL_NORM_GRAD:       /* x, w, dy (or out), rstd, dx, dw */
      n_arr = 6, sizes[0] = NC, sizes[1] = r->C, sizes[2] = NC, sizes[3] = N, sizes[4] = NC,
      sizes[5] = r->C;
      break;
    case TOPO_KERNEL_ROTARY:
    case TOPO_KERNEL_ROTARY_GRAD:     /* q, k; positions */
      n_arr = 2, sizes[0] = (gsize) r->T * K_HQ * K_D, sizes[1] = (gsize) r->T * K_HKV * K_D;
      n_idx = r->T;
      break;
    case TOPO_KERNEL_SWIGLU:
    case TOPO_KERNEL_SWIGLU_GRAD:     /* gate, up, h (or dh), dgate, dup */
      n_arr = 5, sizes[0] = sizes[1] = sizes[2] = sizes[3] = sizes[4] = n;
      break;
    case TOPO_KERNEL_RESIDUAL:
    case TOPO_KERNEL_RESIDUAL_GRAD:   /* src, dst */
      n_arr = 2, sizes[0] = sizes[1] = n;
      break;
    case TOPO_KERNEL_EMBEDDING:
    case TOPO_KERNEL_EMBEDDING_GRAD:  /* wte (or dwte), out (or dout); tokens */
      n_arr = 2, sizes[0] = (gsize) r->V * r->C, sizes[1] = NC, n_idx = r->N;
      break;
    case TOPO_KERNEL_LOSS:
    case TOPO_KERNEL_LOSS_GRAD:       /* logits, lse_part (or dlogits), tgt_part (or lse),
                                       * lse, loss; targets */
      n_arr = 5, sizes[0] = NV, sizes[1] = r->kind == TOPO_KERNEL_LOSS ? N : NV;
      sizes[2] = sizes[3] = sizes[4] = N, n_idx = r->N;
      break;
    default:                          /* param, grad, m, v */
      n_arr = 4, sizes[0] = sizes[1] = sizes[2] = sizes[3] = n;
      break;
    }
  for (int i = 0; i < n_arr; i++)
    {
      /* inputs uniform in [-1, 1); v of AdamW and norm weights positive, rstd from x */
      const gboolean positive = (r->kind == TOPO_KERNEL_ADAMW && i == 3)
                                || ((r->kind == TOPO_KERNEL_NORM
                                     || r->kind == TOPO_KERNEL_NORM_GRAD) && i == 1);
      h[i] = cal_host_uniform (rng, sizes[i], positive ? 0.5 : -1.0, 1.0);
      len[i] = sizes[i];
    }
  if (r->kind == TOPO_KERNEL_NORM_GRAD || r->kind == TOPO_KERNEL_NORM)
    for (gsize t = 0; t < N; t++)
      {
        double ss = 0;
        for (int c = 0; c < r->C; c++)
          ss += (double) h[0][t * r->C + c] * h[0][t * r->C + c];
        h[3][t] = (float) (1.0 / sqrt (ss / r->C + NORM_EPS));
      }
  if (r->kind == TOPO_KERNEL_NORM_GRAD || r->kind == TOPO_KERNEL_EMBEDDING_GRAD)
    memset (h[r->kind == TOPO_KERNEL_NORM_GRAD ? 4 : 0], 0,
            sizes[r->kind == TOPO_KERNEL_NORM_GRAD ? 4 : 0] * 4);
  if (r->kind == TOPO_KERNEL_NORM_GRAD)
    memset (h[5], 0, sizes[5] * 4);
  if (r->kind == TOPO_KERNEL_LOSS_GRAD)
    for (gsize t = 0; t < N; t++)
      {
        double sum = 0;
        for (int c = 0; c < r->V; c++)
          sum += exp ((double) h[0][t * r->V + c]);
        h[2][t] = (float) log (sum);
      }
  for (int i = 0; i < n_arr; i++)
    if (!(r->x[i] = cal_bufs_add (bs, sizes[i] * 4, h[i], error)))
      return FALSE;
  if (n_idx > 0)
    {
      *hidx = g_new (int, n_idx);
      for (int i = 0; i < n_idx; i++)
        {
          /* positions 0 .. T - 1; tokens from Knuth's MMIX LCG (TAOCP 3.3.4), high bits */
          *rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
          (*hidx)[i] = r->kind == TOPO_KERNEL_ROTARY || r->kind == TOPO_KERNEL_ROTARY_GRAD
                         ? i : (int) ((*rng >> 33) % (guint64) r->V);
        }
      r->idx = r->tgt = cal_bufs_add (bs, n_idx * sizeof (int), *hidx, error);
      if (r->idx == NULL)
        return FALSE;
    }
  return TRUE;
}

/* One call's outputs against a double reference on sampled elements (or rows). */
static gint64
kernel_check (const KRun *r, float **h, float **got, const int *idx)
{
  const gsize n = r->n, N = (gsize) r->N;
  const int C = r->C, V = r->V;
  gint64 wrong = 0;
  const gsize rows[3] = { 0, N / 2, N > 0 ? N - 1 : 0 };
  const gsize at[4] = { 0, n / 3, n / 2, n > 0 ? n - 1 : 0 };
  switch (r->kind)
    {
    case TOPO_KERNEL_NORM:
    case TOPO_KERNEL_NORM_GRAD:
      for (int s = 0; s < 3; s++)
        {
          const float *x = h[0] + rows[s] * C, *dy = h[2] + rows[s] * C;
          double ss = 0, dot = 0;
          for (int c = 0; c < C; c++)
            ss += (double) x[c] * x[c];
          const double rs = 1.0 / sqrt (ss / C + NORM_EPS);
          if (r->kind == TOPO_KERNEL_NORM)
            {
              wrong += !cal_close_enough (got[3][rows[s]], rs, rs, C);
              for (int c = 0; c < C; c++)
                wrong += !cal_close_enough (got[2][rows[s] * C + c], x[c] * rs * h[1][c],
                                        fabs (x[c] * rs * h[1][c]), C);
              continue;
            }
          double mag = 0;
          for (int c = 0; c < C; c++)
            {
              dot += (double) dy[c] * h[1][c] * x[c] * h[3][rows[s]];
              mag += fabs ((double) dy[c] * h[1][c] * x[c] * h[3][rows[s]]);
            }
          for (int c = 0; c < C; c++)
            {
              const double xhat = x[c] * h[3][rows[s]];
              const double ref = h[3][rows[s]] * (dy[c] * h[1][c] - xhat * dot / C);
              wrong += !cal_close_enough (got[4][rows[s] * C + c], ref,
                                      fabs (h[3][rows[s]]) * (fabs (dy[c] * h[1][c])
                                                              + fabs (xhat) * mag / C), C);
            }
        }
      if (r->kind == TOPO_KERNEL_NORM_GRAD)
        for (int c = 0; c < C; c += MAX (C / 4, 1))
          {
            double ref = 0, mag = 0;
            for (gsize t = 0; t < N; t++)
              {
                const double term = (double) h[2][t * C + c] * h[0][t * C + c] * h[3][t];
                ref += term;
                mag += fabs (term);
              }
            wrong += !cal_close_enough (got[5][c], ref, mag, (double) N);
          }
      break;
    case TOPO_KERNEL_ROTARY:
    case TOPO_KERNEL_ROTARY_GRAD:
      for (int s = 0; s < 3; s++)
        {
          const int t = s == 0 ? 0 : s == 1 ? r->T / 2 : r->T - 1, half = K_D / 2;
          const float *v = h[0] + (gsize) t * K_HQ * K_D;
          const double sign = r->kind == TOPO_KERNEL_ROTARY ? 1.0 : -1.0;
          for (int i = 0; i < half; i++)
            {
              const double ang = idx[t] * pow (ROPE_THETA, -2.0 * i / K_D);
              const double c = cos (ang), sn = sign * sin (ang);
              wrong += !cal_close_enough (got[0][(gsize) t * K_HQ * K_D + i],
                                      v[i] * c - v[i + half] * sn, 2.0, 4)
                       + !cal_close_enough (got[0][(gsize) t * K_HQ * K_D + i + half],
                                        v[i + half] * c + v[i] * sn, 2.0, 4);
            }
        }
      break;
    case TOPO_KERNEL_SWIGLU:
    case TOPO_KERNEL_SWIGLU_GRAD:
      for (int s = 0; s < 4; s++)
        {
          const double g = h[0][at[s]], u = h[1][at[s]], dh = h[2][at[s]];
          const double sg = 1.0 / (1.0 + exp (-g));
          if (r->kind == TOPO_KERNEL_SWIGLU)
            wrong += !cal_close_enough (got[2][at[s]], g * sg * u, fabs (g * u), 4);
          else
            wrong += !cal_close_enough (got[4][at[s]], dh * g * sg, fabs (dh * g), 4)
                     + !cal_close_enough (got[3][at[s]], dh * u * sg * (1.0 + g * (1.0 - sg)),
                                      fabs (dh * u) * 2.0, 8);
        }
      break;
    case TOPO_KERNEL_RESIDUAL:
    case TOPO_KERNEL_RESIDUAL_GRAD:
      for (int s = 0; s < 4; s++)
        wrong += got[1][at[s]] != h[0][at[s]];
      break;
    case TOPO_KERNEL_EMBEDDING:
      for (int s = 0; s < 3; s++)
        for (int c = 0; c < C; c++)
          wrong += got[1][rows[s] * C + c] != h[0][(gsize) idx[rows[s]] * C + c];
      break;
    case TOPO_KERNEL_EMBEDDING_GRAD:
      for (int s = 0; s < 3; s++)
        {
          const int row = idx[rows[s]];
          double ref = 0, mag = 0;
          for (gsize t = 0; t < N; t++)
            if (idx[t] == row)
              ref += h[1][t * C], mag += fabs (h[1][t * C]);
          wrong += !cal_close_enough (got[0][(gsize) row * C], ref, mag, (double) N);
        }
      break;
    case TOPO_KERNEL_LOSS:
      for (int s = 0; s < 3; s++)
        {
          const float *l = h[0] + rows[s] * V;
          double m = -INFINITY, sum = 0;
          for (int c = 0; c < V; c++)
            m = MAX (m, l[c]);
          for (int c = 0; c < V; c++)
            sum += exp (l[c] - m);
          const double lse = m + log (sum);
          wrong += !cal_close_enough (got[3][rows[s]], lse, fabs (lse) + 1.0, V)
                   + !cal_close_enough (got[4][rows[s]], lse - l[idx[rows[s]]], fabs (lse) + 2.0,
                                        V);
        }
      break;
    case TOPO_KERNEL_LOSS_GRAD:
      for (int s = 0; s < 3; s++)
        for (int c = 0; c < V; c += MAX (V / 8, 1))
          {
            const gsize e = rows[s] * V + c;
            const double p = exp ((double) h[0][e] - h[2][rows[s]]);
            const double ref = (p - (c == idx[rows[s]] ? 1.0 : 0.0)) / N;
            wrong += !cal_close_enough (got[1][e], ref, (p + 1.0) / N, 4);
          }
      break;
    case TOPO_KERNEL_ADAMW:
    default:
      for (int s = 0; s < 4; s++)
        {
          /* torch.optim.AdamW, step 1: mhat = g, vhat = g^2 */
          const ExecAdamW *hp = &r->hp;
          const double p = h[0][at[s]], g = h[1][at[s]];
          const double m = hp->beta1 * h[2][at[s]] + (1 - hp->beta1) * g;
          const double v = hp->beta2 * h[3][at[s]] + (1 - hp->beta2) * g * g;
          const double mhat = m / (1 - hp->beta1), vhat = v / (1 - hp->beta2);
          const double ref = p - hp->lr * (hp->weight_decay * p + mhat / (sqrt (vhat) + hp->eps));
          wrong += !cal_close_enough (got[0][at[s]], ref, fabs (p) + hp->lr * 10, 8)
                   + (got[1][at[s]] != 0.0f);
        }
      break;
    }
  return wrong;
}

static gboolean
kernel_measure (CalCtx *ctx, ExecStream *s, guint64 *rng, const CalTiming *tm, ExecKernelRow *row,
                GError **error)
{
  KRun r = { .s = s, .k = exec_kernels_for (s), .kind = row->kind,
             /* Megatron-LM / Llama 2 AdamW (exec_run_options_init) */
             .hp = { .lr = 3e-4f, .beta1 = 0.9f, .beta2 = 0.95f, .eps = 1e-8f,
                     .weight_decay = 0.1f } };
  r.n = kernel_shape (&r, row->elements);
  row->elements = r.n;
  CalBufs bs = { .b = ctx->b };
  float *h[6] = { NULL }, *got[6] = { NULL };
  gsize len[6] = { 0 };
  int *hidx = NULL;
  gboolean ok = kernel_setup (&r, &bs, rng, h, len, &hidx, error);
  if (ok)
    {
      kernel_call (&r);
      ok = exec_stream_synchronize (s, error);
      for (int i = 0; ok && i < 6 && len[i] > 0; i++)
        {
          got[i] = g_new (float, len[i]);
          ok = cal_bufs_get (&bs, got[i], r.x[i], len[i] * 4, error);
        }
      if (ok)
        row->wrong = kernel_check (&r, h, got, hidx);
    }
  ok = ok && cal_barrier (ctx, ctx->world, error)
       && cal_time_calls (s, tm, kernel_call, &r, &row->time_s, &row->reps, &row->share,
                          error);
  for (int i = 0; i < 6; i++)
    {
      g_free (h[i]);
      g_free (got[i]);
    }
  g_free (hidx);
  cal_bufs_clear (&bs);
  return ok;
}

gboolean
exec_calibrate_kernels (ExecBackend *b, const ExecCalibrateOptions *o, ExecCalibration *cal,
                        GError **error)
{
  guint64 rng = o->seed * 1000003ull + 104729u + (guint64) b->rank;
  CalCtx *ctx = cal_ctx_new (b, error);
  if (ctx == NULL)
    return FALSE;
  ExecStream *s = exec_stream_new (b, EXEC_STREAM_COMPUTE, "calibrate-kernels", error);
  const CalTiming tm = o->quick ? (CalTiming) { 0.015, 3, 2000 } : (CalTiming) { 0.1, 3, 20000 };
  const guint64 *sizes = o->quick ? quick_sizes : full_sizes;
  const guint n_sizes = o->quick ? G_N_ELEMENTS (quick_sizes) : G_N_ELEMENTS (full_sizes);
  gboolean ok = s != NULL;
  for (int kind = 0; ok && kind < TOPO_KERNEL_N; kind++)
    for (guint i = 0; ok && i < n_sizes; i++)
      {
        ExecKernelRow row = { .kind = (TopoKernel) kind, .elements = sizes[i] };
        ok = cal_barrier (ctx, ctx->world, error)
             && kernel_measure (ctx, s, &rng, &tm, &row, error);
        double v[4] = { row.time_s, (double) row.wrong, 0, 0 };
        cal_share_sum (row.share, &v[2], &v[3]);
        ok = ok && cal_group_sum (ctx, ctx->world, v, 4, error);
        if (!ok)
          break;
        row.time_s = v[0] / b->world;
        row.wrong = (gint64) llround (v[1]);
        row.share = cal_share_mean (v[2], v[3]);
        row.Bps = topo_kernel_bytes (row.kind, (double) row.elements, TOPO_DTYPE_FP32)
                  / cal_kernel_time (cal, row.time_s);
        g_array_append_val (cal->kernels, row);
        if (b->rank == 0 && o->on_kernel)
          o->on_kernel (&row, o->user_data);
      }
  exec_stream_free (s);
  cal_ctx_free (ctx);
  return ok;
}
