/* tests/exec/moe-ref.h - what the MoE tests share: split-independent weights and data, and
 * a naive reference of the MoE block in double precision (one token at a time, every
 * expert's MLP written out as loops), independent of exec/moe.c's permutation, dispatch
 * and GEMMs. */
#pragma once

#include <math.h>
#include <string.h>
#include "exec/moe.h"

/* Weights of the block as exec_moe_weights_fill makes them, linear ones times `scale`
 * (0.02 x 25 = 0.5 std: the experts' output is then not lost beside the residual). */
static inline void
moe_test_weights (ExecMoeWeights *w, const ExecMoeShape *s, guint64 seed, float scale)
{
  exec_moe_weights_fill (w, s, 0, seed);
  gsize n = exec_moe_weights_size (s) - (gsize) s->C;
  for (gsize i = 0; i < n; i++)
    w->router[i] *= scale;   /* router, w_gate, w_up, w_down are contiguous after norm */
  for (int c = 0; c < s->C; c++)   /* a norm weight that is not all ones */
    w->norm[c] = 1.0f + exec_init_value (seed, 900000 + (guint64) c, 0.2f);
}

/* Token t (global index) of the data: uniform, std 1. */
static inline void
moe_test_tokens (float *x, int first, int n, int C, guint64 seed)
{
  for (int t = 0; t < n; t++)
    for (int c = 0; c < C; c++)
      x[(gsize) t * C + c] =
        exec_init_value (seed ^ 0x5eed, (guint64) (first + t) * C + c + 1, 1.0f);
}

/* The whole model in double: norm (C), router (E, C), gate, up (E, F, C), down (E, C, F),
 * and the shared experts (S > 0) sgate, sup (S, C), sdown (C, S). */
typedef struct {
  int C, E, k, F, S;
  gboolean norm_topk;
  double eps;
  double *norm, *router, *gate, *up, *down, *sgate, *sup, *sdown;
  double *mem;
} MoeRef;

static inline gsize
moe_ref_n (const MoeRef *m)
{
  return (gsize) m->C + (gsize) m->E * m->C + 3 * (gsize) m->E * m->F * m->C
         + 3 * (gsize) m->S * m->C;
}

static inline void
moe_ref_init (MoeRef *m, const ExecMoeShape *s, const ExecMoeWeights *w)
{
  g_assert_cmpint (s->ep, ==, 1);
  *m = (MoeRef) { .C = s->C, .E = s->E, .k = s->k, .F = s->F, .S = s->S,
                  .norm_topk = s->norm_topk, .eps = s->eps };
  gsize n = moe_ref_n (m);
  m->mem = g_new (double, n);
  for (gsize i = 0; i < n; i++)   /* the same flat order as exec_moe_weights_bind */
    m->mem[i] = w->norm[i];
  m->norm = m->mem;
  m->router = m->norm + m->C;
  m->gate = m->router + (gsize) m->E * m->C;
  m->up = m->gate + (gsize) m->E * m->F * m->C;
  m->down = m->up + (gsize) m->E * m->F * m->C;
  m->sgate = m->down + (gsize) m->E * m->C * m->F;
  m->sup = m->sgate + (gsize) m->S * m->C;
  m->sdown = m->sup + (gsize) m->S * m->C;
}

static inline void
moe_ref_clear (MoeRef *m)
{
  g_clear_pointer (&m->mem, g_free);
}

/* out (C) = [x +] sum over the k chosen experts of w_e SwiGLU_e (rmsnorm (x)); chosen:
 * the k largest probabilities, ties to the lower index (a selection sort). */
static inline void
moe_ref_token (const MoeRef *m, const double *x, gboolean residual, double *out)
{
  int C = m->C, E = m->E, F = m->F;
  double xn[C], p[E], ss = 0;
  for (int c = 0; c < C; c++)
    ss += x[c] * x[c];
  double rstd = 1.0 / sqrt (ss / C + m->eps);
  for (int c = 0; c < C; c++)
    xn[c] = x[c] * rstd * m->norm[c];
  double mx = -INFINITY, sum = 0;
  for (int e = 0; e < E; e++)
    {
      p[e] = 0;
      for (int c = 0; c < C; c++)
        p[e] += m->router[(gsize) e * C + c] * xn[c];
      mx = fmax (mx, p[e]);
    }
  for (int e = 0; e < E; e++)
    sum += (p[e] = exp (p[e] - mx));
  for (int e = 0; e < E; e++)
    p[e] /= sum;
  int order[E];
  for (int e = 0; e < E; e++)
    order[e] = e;
  for (int i = 0; i < E; i++)
    for (int j = i + 1; j < E; j++)
      if (p[order[j]] > p[order[i]] || (p[order[j]] == p[order[i]] && order[j] < order[i]))
        {
          int t = order[i];
          order[i] = order[j];
          order[j] = t;
        }
  double wsum = 0;
  for (int j = 0; j < m->k; j++)
    wsum += p[order[j]];
  for (int c = 0; c < C; c++)
    out[c] = residual ? x[c] : 0;
  for (int j = 0; j < m->k; j++)
    {
      int e = order[j];
      double wt = m->norm_topk ? p[e] / wsum : p[e], h[F];
      for (int f = 0; f < F; f++)
        {
          double g = 0, u = 0;
          for (int c = 0; c < C; c++)
            {
              g += m->gate[((gsize) e * F + f) * C + c] * xn[c];
              u += m->up[((gsize) e * F + f) * C + c] * xn[c];
            }
          h[f] = g / (1 + exp (-g)) * u;
        }
      for (int c = 0; c < C; c++)
        {
          double y = 0;
          for (int f = 0; f < F; f++)
            y += m->down[((gsize) e * C + c) * F + f] * h[f];
          out[c] += wt * y;
        }
    }
  /* the shared experts: every token, weight 1 */
  if (m->S > 0)
    {
      double h[m->S];
      for (int f = 0; f < m->S; f++)
        {
          double g = 0, u = 0;
          for (int c = 0; c < C; c++)
            {
              g += m->sgate[(gsize) f * C + c] * xn[c];
              u += m->sup[(gsize) f * C + c] * xn[c];
            }
          h[f] = g / (1 + exp (-g)) * u;
        }
      for (int c = 0; c < C; c++)
        {
          double y = 0;
          for (int f = 0; f < m->S; f++)
            y += m->sdown[(gsize) c * m->S + f] * h[f];
          out[c] += y;
        }
    }
}

/* L = sum over tokens and channels of out * r (a fixed random projection). */
static inline double
moe_ref_loss (const MoeRef *m, const double *x, int N, gboolean residual, const double *r)
{
  double L = 0, out[m->C];
  for (int n = 0; n < N; n++)
    {
      moe_ref_token (m, x + (gsize) n * m->C, residual, out);
      for (int c = 0; c < m->C; c++)
        L += out[c] * r[(gsize) n * m->C + c];
    }
  return L;
}
