/* tests/sim/cost-ops.h - the ModelOps the cost-model tests build by hand, filled as the
 * step program fills them (models/model.h): a GEMM's forward FLOPs 2 m n k per batch
 * entry, an elementwise op costed by its name and element count. */
#pragma once

#include "models/model.h"

/* A GEMM `name` of b batch entries (b 0: a plain GEMM, as the program leaves it), each
 * m x n x k. */
static G_GNUC_UNUSED ModelOp
named_gemm_op (const char *name, guint64 m, guint64 n, guint64 k, guint64 b)
{
  ModelOp op = { 0 };
  op.name = name;
  op.kind = MODEL_OP_GEMM;
  op.m = m;
  op.n = n;
  op.k = k;
  op.b = b;
  op.fwd_flops = 2.0 * (double) m * (double) n * (double) k * (double) (b > 0 ? b : 1);
  return op;
}

/* A plain m x n x k GEMM with no name the cost model reads. */
static G_GNUC_UNUSED ModelOp
gemm_op (guint64 m, guint64 n, guint64 k)
{
  return named_gemm_op ("test_gemm", m, n, k, 0);
}

/* An elementwise op over `elements` elements, costed by its name (sim/cost-compute.c). */
static G_GNUC_UNUSED ModelOp
elementwise_op (const char *name, guint64 elements)
{
  ModelOp op = { 0 };
  op.name = name;
  op.kind = MODEL_OP_ELEMENTWISE;
  op.elements = elements;
  return op;
}
