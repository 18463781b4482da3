/* exec/dtype-convert.h - host conversions between float and the narrow element types of
 * ExecDtype (BF16, FP16, FP8 E4M3, FP8 E5M2), to fill GEMM inputs and read them back.
 *
 * Contract:
 *  - float -> narrow rounds to nearest, ties to even (IEEE 754 roundTiesToEven), with
 *    subnormals kept (no flush to zero), as CUDA's __float2bfloat16_rn, __float2half_rn
 *    and __nv_cvt_float_to_fp8 do.
 *  - Overflow: BF16 and FP16 round to +-infinity (IEEE). The FP8 types saturate to their
 *    largest finite value (+-448 for E4M3, +-57344 for E5M2), infinities included, as
 *    __nv_cvt_float_to_fp8 (..., __NV_SATFINITE, ...) does; E4M3 has no infinity at all
 *    (OCP 8-bit Floating Point Specification (OFP8) 1.0, section 5.1).
 *  - NaN becomes the type's canonical quiet NaN: 0x7FC0 (BF16), 0x7E00 (FP16), 0x7F (E4M3,
 *    S.1111.111 is its only NaN), 0x7E (E5M2).
 *  - narrow -> float is exact (every value of these types is a float).
 *  - Pure functions of their arguments: no state, no errors, safe from any thread. */
#pragma once

#include <glib.h>
#include "exec/backend.h"

G_BEGIN_DECLS

guint16 exec_bf16_from_float     (float x);
float   exec_bf16_to_float       (guint16 bits);
guint16 exec_f16_from_float      (float x);
float   exec_f16_to_float        (guint16 bits);
guint8  exec_fp8_e4m3_from_float (float x);
float   exec_fp8_e4m3_to_float   (guint8 bits);
guint8  exec_fp8_e5m2_from_float (float x);
float   exec_fp8_e5m2_to_float   (guint8 bits);

/* The format-generic routine applied to BF16: tests/exec/test-dtype.c checks that it
 * agrees with the bit-level exec_bf16_from_float. */
guint16 exec_bf16_from_float_generic (float x);

/* x rounded to `dtype` and back (x itself for EXEC_DTYPE_F32). */
float   exec_dtype_round         (ExecDtype dtype, float x);

/* n floats -> n elements of `dtype` (exec_dtype_size (dtype) bytes each) at dst, and
 * back. F32 is a copy. */
void    exec_dtype_pack          (ExecDtype dtype, const float *src, void *dst, gsize n);
void    exec_dtype_unpack        (ExecDtype dtype, const void *src, float *dst, gsize n);

G_END_DECLS
