/* exec/dtype-convert.c - float <-> BF16, FP16, FP8 E4M3, FP8 E5M2 on the host.
 *
 * One routine serves every format, described by its exponent and mantissa widths, bias
 * and whether its all-ones exponent means infinity/NaN (IEEE 754 style: BF16, FP16, E5M2)
 * or holds normal values with only S.1111.111 as NaN (E4M3: OCP OFP8 1.0, section 5.1).
 * Rounding works on doubles: a float is exact in a double, scaling it by the format's
 * quantum (a power of two) is exact, and the quotient is rounded to an integer once, ties
 * to even, by hand, so the result does not depend on the FPU's rounding mode. BF16, the
 * one converted in bulk, also has the usual bit-level version (checked against the
 * generic one in tests/exec/test-dtype.c). */
#include "exec/dtype-convert.h"

#include <math.h>
#include <string.h>

typedef struct {
  int      ebits, mbits, bias;
  gboolean ieee;        /* the all-ones exponent is infinity (mantissa 0) or NaN */
  gboolean satfinite;   /* overflow and infinity give the largest finite value */
  guint32  nan;         /* canonical quiet NaN */
} Format;

/* OCP OFP8 1.0 table 1 (E4M3: bias 7, max 448; E5M2: bias 15, max 57344); IEEE 754
 * binary16 (bias 15); bfloat16 = the top half of binary32 (bias 127). */
static const Format FMT_BF16 = { 8, 7, 127, TRUE, FALSE, 0x7FC0 };
static const Format FMT_F16 = { 5, 10, 15, TRUE, FALSE, 0x7E00 };
static const Format FMT_E4M3 = { 4, 3, 7, FALSE, TRUE, 0x7F };
static const Format FMT_E5M2 = { 5, 2, 15, TRUE, TRUE, 0x7E };

static int
fmt_emin (const Format *f)   /* exponent of the smallest normal */
{
  return 1 - f->bias;
}

static int
fmt_emax (const Format *f)   /* exponent of the largest finite value */
{
  return (1 << f->ebits) - (f->ieee ? 2 : 1) - f->bias;
}

static double
fmt_max (const Format *f)
{
  /* IEEE: mantissa all ones; E4M3: all ones is NaN, so one step below */
  const double top = f->ieee ? 2.0 - ldexp (1.0, -f->mbits) : 2.0 - ldexp (1.0, 1 - f->mbits);
  return ldexp (top, fmt_emax (f));
}

/* A non-negative finite value already representable in `f` -> its bits (no sign). */
static guint32
fmt_encode (const Format *f, double v)
{
  const int emin = fmt_emin (f);
  if (v < ldexp (1.0, emin))   /* subnormal (or zero): exponent field 0 */
    return (guint32) ldexp (v, f->mbits - emin);
  int e2;
  frexp (v, &e2);   /* v = frac 2^e2, frac in [0.5, 1): unbiased exponent e2 - 1 */
  const int e = e2 - 1;
  const guint32 mant = (guint32) (ldexp (v, f->mbits - e) - ldexp (1.0, f->mbits));
  return ((guint32) (e + f->bias) << f->mbits) | mant;
}

static guint32
fmt_from_float (const Format *f, float x)
{
  const guint32 sign = signbit (x) ? 1u << (f->ebits + f->mbits) : 0u;
  const guint32 inf = ((1u << f->ebits) - 1) << f->mbits;
  if (isnan (x))
    return f->nan;
  const double a = fabs ((double) x), max = fmt_max (f);
  if (isinf (x))
    return sign | (f->satfinite || !f->ieee ? fmt_encode (f, max) : inf);
  if (a == 0.0)
    return sign;
  int e2;
  frexp (a, &e2);
  const int e = MAX (e2 - 1, fmt_emin (f));   /* below the normal range: subnormal quantum */
  const double t = ldexp (a, f->mbits - e);   /* exact: a in units of the quantum */
  double r = floor (t);
  const double rest = t - r;
  if (rest > 0.5 || (rest == 0.5 && fmod (r, 2.0) != 0.0))
    r += 1.0;                                 /* to nearest, ties to even */
  const double v = ldexp (r, e - f->mbits);   /* may carry into the next exponent */
  if (v > max)
    return sign | (f->satfinite || !f->ieee ? fmt_encode (f, max) : inf);
  return sign | fmt_encode (f, v);
}

static float
fmt_to_float (const Format *f, guint32 bits)
{
  const guint32 emask = (1u << f->ebits) - 1, mmask = (1u << f->mbits) - 1;
  const gboolean neg = (bits >> (f->ebits + f->mbits)) & 1u;
  const guint32 exp = (bits >> f->mbits) & emask, mant = bits & mmask;
  double v;
  if (f->ieee && exp == emask)
    v = mant ? NAN : INFINITY;
  else if (!f->ieee && exp == emask && mant == mmask)
    v = NAN;
  else if (exp == 0)
    v = ldexp ((double) mant, fmt_emin (f) - f->mbits);
  else
    v = ldexp ((double) ((1u << f->mbits) | mant), (int) exp - f->bias - f->mbits);
  return (float) (neg ? -v : v);
}

/* ---- public ------------------------------------------------------------------------------ */

/* Round to nearest even on the bits: adding 0x7FFF plus the lowest kept bit carries into
 * the kept half exactly when the dropped half is above the midpoint, or at it with an odd
 * kept half; a carry out of the mantissa steps the exponent, up to infinity. */
guint16
exec_bf16_from_float (float x)
{
  if (isnan (x))
    return (guint16) FMT_BF16.nan;
  guint32 u;
  memcpy (&u, &x, sizeof u);
  return (guint16) ((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

float
exec_bf16_to_float (guint16 bits)
{
  const guint32 u = (guint32) bits << 16;
  float x;
  memcpy (&x, &u, sizeof x);
  return x;
}

guint16
exec_f16_from_float (float x)
{
  return (guint16) fmt_from_float (&FMT_F16, x);
}

float
exec_f16_to_float (guint16 bits)
{
  return fmt_to_float (&FMT_F16, bits);
}

guint8
exec_fp8_e4m3_from_float (float x)
{
  return (guint8) fmt_from_float (&FMT_E4M3, x);
}

float
exec_fp8_e4m3_to_float (guint8 bits)
{
  return fmt_to_float (&FMT_E4M3, bits);
}

guint8
exec_fp8_e5m2_from_float (float x)
{
  return (guint8) fmt_from_float (&FMT_E5M2, x);
}

float
exec_fp8_e5m2_to_float (guint8 bits)
{
  return fmt_to_float (&FMT_E5M2, bits);
}

float
exec_dtype_round (ExecDtype dtype, float x)
{
  switch (dtype)
    {
    case EXEC_DTYPE_F32:      return x;
    case EXEC_DTYPE_BF16:     return exec_bf16_to_float (exec_bf16_from_float (x));
    case EXEC_DTYPE_F16:      return exec_f16_to_float (exec_f16_from_float (x));
    case EXEC_DTYPE_FP8_E4M3: return exec_fp8_e4m3_to_float (exec_fp8_e4m3_from_float (x));
    case EXEC_DTYPE_FP8_E5M2: return exec_fp8_e5m2_to_float (exec_fp8_e5m2_from_float (x));
    }
  g_return_val_if_reached (x);
}

void
exec_dtype_pack (ExecDtype dtype, const float *src, void *dst, gsize n)
{
  guint16 *d16 = dst;
  guint8 *d8 = dst;
  switch (dtype)
    {
    case EXEC_DTYPE_F32:
      memcpy (dst, src, n * sizeof (float));
      return;
    case EXEC_DTYPE_BF16:
      for (gsize i = 0; i < n; i++)
        d16[i] = exec_bf16_from_float (src[i]);
      return;
    case EXEC_DTYPE_F16:
      for (gsize i = 0; i < n; i++)
        d16[i] = exec_f16_from_float (src[i]);
      return;
    case EXEC_DTYPE_FP8_E4M3:
      for (gsize i = 0; i < n; i++)
        d8[i] = exec_fp8_e4m3_from_float (src[i]);
      return;
    case EXEC_DTYPE_FP8_E5M2:
      for (gsize i = 0; i < n; i++)
        d8[i] = exec_fp8_e5m2_from_float (src[i]);
      return;
    }
  g_return_if_reached ();
}

void
exec_dtype_unpack (ExecDtype dtype, const void *src, float *dst, gsize n)
{
  const guint16 *s16 = src;
  const guint8 *s8 = src;
  switch (dtype)
    {
    case EXEC_DTYPE_F32:
      memcpy (dst, src, n * sizeof (float));
      return;
    case EXEC_DTYPE_BF16:
      for (gsize i = 0; i < n; i++)
        dst[i] = exec_bf16_to_float (s16[i]);
      return;
    case EXEC_DTYPE_F16:
      for (gsize i = 0; i < n; i++)
        dst[i] = exec_f16_to_float (s16[i]);
      return;
    case EXEC_DTYPE_FP8_E4M3:
      for (gsize i = 0; i < n; i++)
        dst[i] = exec_fp8_e4m3_to_float (s8[i]);
      return;
    case EXEC_DTYPE_FP8_E5M2:
      for (gsize i = 0; i < n; i++)
        dst[i] = exec_fp8_e5m2_to_float (s8[i]);
      return;
    }
  g_return_if_reached ();
}

guint16
exec_bf16_from_float_generic (float x)
{
  return (guint16) fmt_from_float (&FMT_BF16, x);
}
