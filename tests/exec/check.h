/* tests/exec/check.h - helpers shared by the exec tests: seeded random inputs, norms,
 * and the finite-difference gradient check.
 *
 * Finite differences in FP32: the step is h = 1e-2 on inputs of size ~1, so the
 * truncation error is ~h^2 |f'''| / 6 ~ 1e-5 and the rounding error of the loss (a sum of
 * ~10^2 FP32 terms, kept in double) over 2h is ~sqrt(10^2) 6e-8 / 2e-2 ~ 3e-5. A gradient
 * element passes when |analytic - fd| <= 1e-3 + 1e-2 |fd|, two orders above both. */
#pragma once

#include "exec/layers.h"

#include <math.h>
#include <string.h>

#define FD_H    1e-2f
#define FD_ATOL 1e-3
#define FD_RTOL 1e-2

static inline GRand *
seeded (guint32 seed)
{
  g_test_message ("seed %u", seed);
  return g_rand_new_with_seed (seed);
}

static inline float *
randv (GRand *r, gsize n, double lo, double hi)
{
  float *v = g_new (float, n);
  for (gsize i = 0; i < n; i++)
    v[i] = (float) g_rand_double_range (r, lo, hi);
  return v;
}

static inline double
dotd (const float *a, const float *b, gsize n)
{
  double s = 0;
  for (gsize i = 0; i < n; i++)
    s += (double) a[i] * b[i];
  return s;
}

/* ||a - b|| / ||b|| */
static inline double
rel_err (const float *a, const float *b, gsize n)
{
  double num = 0, den = 0;
  for (gsize i = 0; i < n; i++)
    {
      num += ((double) a[i] - b[i]) * ((double) a[i] - b[i]);
      den += (double) b[i] * b[i];
    }
  return den > 0 ? sqrt (num / den) : sqrt (num);
}

/* ---- finite differences --------------------------------------------------------------- */

typedef double (*Objective) (gpointer ctx);

/* Checks g against the central difference of f at up to `samples` elements of x (all
 * when n <= samples). */
static inline void
check_grad (const char *what, Objective f, gpointer ctx, float *x, const float *g, gsize n,
            gsize samples, GRand *r)
{
  double worst = 0;
  for (gsize s = 0; s < MIN (n, samples); s++)
    {
      gsize i = n <= samples ? s : (gsize) g_rand_int_range (r, 0, (gint32) n);
      float v = x[i];
      x[i] = v + FD_H;
      double hi_x = x[i], lp = f (ctx);
      x[i] = v - FD_H;
      double lo_x = x[i], lm = f (ctx);
      x[i] = v;
      double fd = (lp - lm) / (hi_x - lo_x);
      double err = fabs (g[i] - fd), tol = FD_ATOL + FD_RTOL * fabs (fd);
      worst = MAX (worst, err / tol);
      if (err > tol)
        g_error ("%s[%" G_GSIZE_FORMAT "]: analytic %g, finite difference %g", what, i,
                 g[i], fd);
    }
  g_test_message ("%s: worst error %.3f of tolerance", what, worst);
}
