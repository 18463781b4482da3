/* tests/exec/test-dtype.c - host conversions float <-> BF16, FP16, FP8 E4M3, FP8 E5M2
 * (exec/dtype-convert.h) on values whose bit patterns are worked out by hand, and the
 * dtype table of backend.h.
 *
 * Bit layouts: BF16 s.eeeeeeee.mmmmmmm (bias 127), FP16 s.eeeee.mmmmmmmmmm (bias 15),
 * E4M3 s.eeee.mmm (bias 7, no infinity, only s.1111.111 is NaN), E5M2 s.eeeee.mm (bias 15);
 * OCP 8-bit Floating Point Specification (OFP8) 1.0, table 1. */
#include <math.h>
#include <string.h>

#include "exec/backend.h"
#include "exec/dtype-convert.h"

static float
f_bits (guint32 u)
{
  float x;
  memcpy (&x, &u, sizeof x);
  return x;
}

/* BF16 round to nearest even. */
static void
test_bf16 (void)
{
  /* 1.0: exponent 127 = 0x7F, mantissa 0 -> 0 01111111 0000000 = 0x3F80 */
  g_assert_cmphex (exec_bf16_from_float (1.0f), ==, 0x3F80);
  /* -2.0: sign 1, exponent 128 -> 1 10000000 0000000 = 0xC000 */
  g_assert_cmphex (exec_bf16_from_float (-2.0f), ==, 0xC000);
  g_assert_cmphex (exec_bf16_from_float (0.0f), ==, 0x0000);
  g_assert_cmphex (exec_bf16_from_float (-0.0f), ==, 0x8000);
  /* 1 + 2^-8 lies halfway between 1.0 (0x3F80, mantissa even) and 1 + 2^-7 (0x3F81):
   * ties to even -> 0x3F80 */
  g_assert_cmphex (exec_bf16_from_float (1.0f + 0x1p-8f), ==, 0x3F80);
  /* 1 + 3 x 2^-8 lies halfway between 1 + 2^-7 (0x3F81, odd) and 1 + 2^-6 (0x3F82): even
   * -> 0x3F82 */
  g_assert_cmphex (exec_bf16_from_float (1.0f + 3 * 0x1p-8f), ==, 0x3F82);
  /* just above the first tie: 1 + 2^-8 + 2^-20 -> up to 0x3F81 */
  g_assert_cmphex (exec_bf16_from_float (1.0f + 0x1p-8f + 0x1p-20f), ==, 0x3F81);
  /* pi = 0x40490FDB: kept half 0x4049, dropped 0x0FDB < 0x8000 -> 0x4049 (3.140625) */
  g_assert_cmphex (exec_bf16_from_float (f_bits (0x40490FDBu)), ==, 0x4049);
  g_assert_cmpfloat (exec_bf16_to_float (0x4049), ==, 3.140625f);
  /* FLT_MAX = (2 - 2^-23) 2^127 is above BF16's max (2 - 2^-7) 2^127 by more than half a
   * step (2^-8 2^127): rounds to infinity 0x7F80 */
  g_assert_cmphex (exec_bf16_from_float (G_MAXFLOAT), ==, 0x7F80);
  g_assert_cmphex (exec_bf16_from_float (-INFINITY), ==, 0xFF80);
  g_assert_cmphex (exec_bf16_from_float (NAN), ==, 0x7FC0);
  /* smallest BF16 subnormal 2^-126 x 2^-7 = 2^-133 -> 0x0001; half of it (2^-134) is a
   * tie with 0 -> 0 (even) */
  g_assert_cmphex (exec_bf16_from_float (0x1p-133f), ==, 0x0001);
  g_assert_cmphex (exec_bf16_from_float (0x1p-134f), ==, 0x0000);
  g_assert_cmpfloat (exec_bf16_to_float (0x0001), ==, 0x1p-133f);
  g_assert_cmpfloat (exec_bf16_to_float (0x3F80), ==, 1.0f);
  g_assert_true (isnan (exec_bf16_to_float (0x7FC0)));
  g_assert_true (isinf (exec_bf16_to_float (0x7F80)));
}

/* The bit-level BF16 rounding equals the format-generic one on every 2^16-th float bit
 * pattern offset by a few dropped-half patterns (ties, just below, just above). */
static void
test_bf16_generic (void)
{
  static const guint32 low[] = { 0x0000, 0x0001, 0x7FFF, 0x8000, 0x8001, 0xFFFF };
  for (guint32 hi = 0; hi < 0x10000; hi++)
    for (guint i = 0; i < G_N_ELEMENTS (low); i++)
      {
        const float x = f_bits ((hi << 16) | low[i]);
        if (isnan (x))
          continue;
        const guint16 fast = exec_bf16_from_float (x), slow = exec_bf16_from_float_generic (x);
        if (fast != slow)
          g_error ("bf16 of 0x%08X: bits 0x%04X, generic 0x%04X", (hi << 16) | low[i], fast,
                   slow);
      }
}

/* FP16 (IEEE binary16). */
static void
test_f16 (void)
{
  /* 1.0: exponent 15 -> 0 01111 0000000000 = 0x3C00 */
  g_assert_cmphex (exec_f16_from_float (1.0f), ==, 0x3C00);
  /* max 65504 = (2 - 2^-10) 2^15 -> 0 11110 1111111111 = 0x7BFF */
  g_assert_cmphex (exec_f16_from_float (65504.0f), ==, 0x7BFF);
  /* 65520 is halfway between 65504 (mantissa odd) and 65536: ties to even goes up, and
   * 65536 overflows -> infinity 0x7C00 */
  g_assert_cmphex (exec_f16_from_float (65520.0f), ==, 0x7C00);
  /* smallest subnormal 2^-14 x 2^-10 = 2^-24 -> 0x0001 */
  g_assert_cmphex (exec_f16_from_float (0x1p-24f), ==, 0x0001);
  g_assert_cmphex (exec_f16_from_float (-0.5f), ==, 0xB800);   /* 1 01110 0 */
  g_assert_cmphex (exec_f16_from_float (NAN), ==, 0x7E00);
  g_assert_cmpfloat (exec_f16_to_float (0x7BFF), ==, 65504.0f);
}

/* FP8 E4M3 (OCP E4M3FN), saturating. */
static void
test_e4m3 (void)
{
  /* 1.0: exponent 7 = 0111 -> 0 0111 000 = 0x38 */
  g_assert_cmphex (exec_fp8_e4m3_from_float (1.0f), ==, 0x38);
  /* 0.5: exponent 6 -> 0 0110 000 = 0x30; -2: 1 1000 000 = 0xC0 */
  g_assert_cmphex (exec_fp8_e4m3_from_float (0.5f), ==, 0x30);
  g_assert_cmphex (exec_fp8_e4m3_from_float (-2.0f), ==, 0xC0);
  /* max normal 448 = 1.75 x 2^8: exponent 15 = 1111, mantissa 110 (111 is NaN) -> 0x7E */
  g_assert_cmphex (exec_fp8_e4m3_from_float (448.0f), ==, 0x7E);
  g_assert_cmphex (exec_fp8_e4m3_from_float (-448.0f), ==, 0xFE);
  g_assert_cmpfloat (exec_fp8_e4m3_to_float (0x7E), ==, 448.0f);
  /* 240 = 1.875 x 2^7: exponent 14 = 1110, mantissa 111 -> 0 1110 111 = 0x77 */
  g_assert_cmphex (exec_fp8_e4m3_from_float (240.0f), ==, 0x77);
  /* 464 = 448 + 16 is half a step (32 at 2^8) above 448, a tie: 448's mantissa 110 is even
   * -> 448; 500 and infinity saturate to 448 */
  g_assert_cmphex (exec_fp8_e4m3_from_float (464.0f), ==, 0x7E);
  g_assert_cmphex (exec_fp8_e4m3_from_float (500.0f), ==, 0x7E);
  g_assert_cmphex (exec_fp8_e4m3_from_float (INFINITY), ==, 0x7E);
  g_assert_cmphex (exec_fp8_e4m3_from_float (-INFINITY), ==, 0xFE);
  g_assert_cmphex (exec_fp8_e4m3_from_float (NAN), ==, 0x7F);
  g_assert_true (isnan (exec_fp8_e4m3_to_float (0x7F)));
  g_assert_true (isnan (exec_fp8_e4m3_to_float (0xFF)));
  /* ties to even at 1.0 (quantum 2^-3): 1.0625 = 1 + 2^-4 between 0x38 (even) and 0x39
   * -> 0x38; 1.1875 = 1 + 3 x 2^-4 between 0x39 (odd) and 0x3A -> 0x3A */
  g_assert_cmphex (exec_fp8_e4m3_from_float (1.0625f), ==, 0x38);
  g_assert_cmphex (exec_fp8_e4m3_from_float (1.1875f), ==, 0x3A);
  g_assert_cmphex (exec_fp8_e4m3_from_float (1.07f), ==, 0x39);   /* above the tie */
  /* min normal 2^-6 -> 0 0001 000 = 0x08; min subnormal 2^-6 x 2^-3 = 2^-9 -> 0x01;
   * 2^-10 is a tie between 0 and 2^-9 -> 0; 3 x 2^-10 is 1.5 quanta -> 2 (even) = 0x02 */
  g_assert_cmphex (exec_fp8_e4m3_from_float (0x1p-6f), ==, 0x08);
  g_assert_cmphex (exec_fp8_e4m3_from_float (0x1p-9f), ==, 0x01);
  g_assert_cmphex (exec_fp8_e4m3_from_float (0x1p-10f), ==, 0x00);
  g_assert_cmphex (exec_fp8_e4m3_from_float (3 * 0x1p-10f), ==, 0x02);
  g_assert_cmpfloat (exec_fp8_e4m3_to_float (0x01), ==, 0x1p-9f);
  g_assert_cmphex (exec_fp8_e4m3_from_float (-0.0f), ==, 0x80);
  /* every code but the NaNs decodes and encodes back to itself: 254 values */
  int round_trips = 0;
  for (int c = 0; c < 256; c++)
    {
      const float x = exec_fp8_e4m3_to_float ((guint8) c);
      if (isnan (x))
        continue;
      g_assert_cmphex (exec_fp8_e4m3_from_float (x), ==, c);
      round_trips++;
    }
  g_assert_cmpint (round_trips, ==, 254);
}

/* FP8 E5M2, saturating. */
static void
test_e5m2 (void)
{
  /* 1.0: exponent 15 = 01111 -> 0 01111 00 = 0x3C */
  g_assert_cmphex (exec_fp8_e5m2_from_float (1.0f), ==, 0x3C);
  /* max 57344 = 1.75 x 2^15: exponent 30 = 11110, mantissa 11 -> 0x7B */
  g_assert_cmphex (exec_fp8_e5m2_from_float (57344.0f), ==, 0x7B);
  g_assert_cmphex (exec_fp8_e5m2_from_float (1e6f), ==, 0x7B);
  g_assert_cmphex (exec_fp8_e5m2_from_float (-INFINITY), ==, 0xFB);
  g_assert_cmphex (exec_fp8_e5m2_from_float (NAN), ==, 0x7E);
  g_assert_true (isinf (exec_fp8_e5m2_to_float (0x7C)));
  /* min subnormal 2^-14 x 2^-2 = 2^-16 -> 0x01 */
  g_assert_cmphex (exec_fp8_e5m2_from_float (0x1p-16f), ==, 0x01);
  /* 1.125 = 1 + 2^-3 is a tie between 1.0 (0x3C) and 1.25 (0x3D) -> 0x3C */
  g_assert_cmphex (exec_fp8_e5m2_from_float (1.125f), ==, 0x3C);
  int round_trips = 0;
  for (int c = 0; c < 256; c++)
    {
      const float x = exec_fp8_e5m2_to_float ((guint8) c);
      if (isnan (x) || isinf (x))
        continue;
      g_assert_cmphex (exec_fp8_e5m2_from_float (x), ==, c);
      round_trips++;
    }
  /* 256 codes less 2 infinities and 6 NaNs (exponent 11111, mantissa 01, 10, 11, two signs) */
  g_assert_cmpint (round_trips, ==, 248);
}

/* Sizes, names, pack and unpack. */
static void
test_table (void)
{
  g_assert_cmpuint (exec_dtype_size (EXEC_DTYPE_F32), ==, 4);
  g_assert_cmpuint (exec_dtype_size (EXEC_DTYPE_BF16), ==, 2);
  g_assert_cmpuint (exec_dtype_size (EXEC_DTYPE_F16), ==, 2);
  g_assert_cmpuint (exec_dtype_size (EXEC_DTYPE_FP8_E4M3), ==, 1);
  g_assert_cmpuint (exec_dtype_size (EXEC_DTYPE_FP8_E5M2), ==, 1);
  g_assert_cmpstr (exec_dtype_name (EXEC_DTYPE_FP8_E4M3), ==, "float8_e4m3");
  g_assert_cmpstr (exec_dtype_name (EXEC_DTYPE_FP8_E5M2), ==, "float8_e5m2");
  g_assert_cmpstr (exec_dtype_name (EXEC_DTYPE_BF16), ==, "bfloat16");

  /* 1, -2, 448, 0.3 in E4M3: 0x38, 0xC0, 0x7E, and 0.3 = 1.2 x 2^-2 at quantum 2^-5:
   * 0.3 / 2^-5 = 9.6 -> 10 -> 0.3125 = 1.25 x 2^-2 -> 0 0101 010 = 0x2A */
  const float in[4] = { 1.0f, -2.0f, 448.0f, 0.3f };
  guint8 e4[4];
  exec_dtype_pack (EXEC_DTYPE_FP8_E4M3, in, e4, 4);
  g_assert_cmphex (e4[0], ==, 0x38);
  g_assert_cmphex (e4[1], ==, 0xC0);
  g_assert_cmphex (e4[2], ==, 0x7E);
  g_assert_cmphex (e4[3], ==, 0x2A);
  float back[4];
  exec_dtype_unpack (EXEC_DTYPE_FP8_E4M3, e4, back, 4);
  g_assert_cmpfloat (back[3], ==, 0.3125f);
  g_assert_cmpfloat (exec_dtype_round (EXEC_DTYPE_FP8_E4M3, 0.3f), ==, 0.3125f);
  guint16 b16[4];
  exec_dtype_pack (EXEC_DTYPE_BF16, in, b16, 4);
  g_assert_cmphex (b16[0], ==, 0x3F80);
  g_assert_cmphex (b16[1], ==, 0xC000);
  /* 448 = 1.75 x 2^8: exponent 135 = 0x87 -> 0 10000111 1100000 = 0x43E0 */
  g_assert_cmphex (b16[2], ==, 0x43E0);
  exec_dtype_unpack (EXEC_DTYPE_BF16, b16, back, 4);
  g_assert_cmpfloat (back[2], ==, 448.0f);
  /* 0.3 = 0x3E99999A: kept 0x3E99, dropped 0x999A > 0x8000 -> 0x3E9A */
  g_assert_cmphex (b16[3], ==, 0x3E9A);
  float f[4];
  exec_dtype_pack (EXEC_DTYPE_F32, in, f, 4);
  g_assert_cmpmem (f, sizeof f, in, sizeof in);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/exec/dtype/bf16", test_bf16);
  g_test_add_func ("/exec/dtype/bf16-generic", test_bf16_generic);
  g_test_add_func ("/exec/dtype/f16", test_f16);
  g_test_add_func ("/exec/dtype/fp8-e4m3", test_e4m3);
  g_test_add_func ("/exec/dtype/fp8-e5m2", test_e5m2);
  g_test_add_func ("/exec/dtype/table", test_table);
  return g_test_run ();
}
