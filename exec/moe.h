/* exec/moe.h - a mixture-of-experts block (router, top-k, permutation, SwiGLU experts,
 * weighted combine), forward and backward, with expert parallelism over an `ep` group.
 *
 * Contract:
 *  - FP32, row-major, the conventions of layers.h: weights (out, in), y = x W^T, the block
 *    is out = [x +] moe (rmsnorm (x)) like exec_mlp_forward, and weight gradients
 *    accumulate (+=) so micro-batches add up.
 *  - Routing (Mixtral, HF MixtralSparseMoeBlock; Qwen2-MoE with norm_topk_prob): probs =
 *    softmax (xn Wr^T) over all experts, the k largest taken in descending order, ties to
 *    the lower expert index (deterministic), their weights the probs, divided by their sum
 *    when norm_topk. Dropless (no capacity factor, no token is dropped); no auxiliary
 *    load-balancing loss: the block's loss is only what flows through `out`, so the
 *    router's gradient is exactly d out / d Wr through the routing weights (the top-k
 *    choice itself has no gradient).
 *  - Expert parallelism (Megatron-Core's all-to-all token dispatcher): rank ep_rank of the
 *    ep group holds experts [ep_rank E_local, (ep_rank + 1) E_local) and routes its own N
 *    tokens. Assignments are sorted by expert (stable: token order within an expert), the
 *    per-expert counts go round with an all-to-all (as float32, exact below 2^24: the
 *    backends communicate float32), the rows with an all-to-allv; received rows, ordered
 *    (source, local expert), are regrouped to (local expert, source) so each expert runs
 *    one GEMM over contiguous rows (a loop over the local experts: the grouped GEMM). The
 *    combine is the mirror. The router weight and the norm weight are replicated over the
 *    ep group, and each rank's gradients of them come from its own tokens: the true
 *    gradient is their sum over the data-parallel ranks (ep lies inside dp x cp x tp, MoE
 *    parallel folding), which the caller reduces. Expert weight gradients are complete on
 *    the expert's rank (its expert-data-parallel sum aside).
 *  - Shared experts (DeepSeekMoE, DeepSeek-V2/V3; arXiv 2401.06066 section 3.2): with
 *    S > 0 a dense SwiGLU MLP of inner size S (the shared experts together) runs on every
 *    token's xn and its output is added to the routed experts' combine, without a gate
 *    (Qwen2-MoE's sigmoid-gated one is not here). Its weights are replicated over ep like
 *    the router's, and reduced over the data-parallel ranks with them.
 *  - Host synchronisation: the receive counts decide the all-to-allv's sizes, so the
 *    forward and the backward each wait once for the count exchange and read the counts
 *    on the host (download on a device backend), as Megatron's dispatcher does.
 *  - Every computation goes through the stream's ExecKernels (exec_kernels_for), every
 *    communication through the backend's collectives on `comm` over `group`; the host
 *    arrays in ExecMoeRoute are the only host-side state. Never prints, never exits. */
#pragma once

#include <glib.h>
#include "exec/layers.h"

G_BEGIN_DECLS

typedef struct {
  int      N;            /* tokens on this rank */
  int      C;            /* hidden */
  int      E;            /* routed experts of the model */
  int      k;            /* experts per token (moe_top_k / num_experts_per_tok) */
  int      F;            /* each expert's MLP rows (moe_intermediate_size) */
  int      ep, ep_rank;  /* expert-parallel group size and this rank's index in it */
  int      E_local;      /* E / ep experts on this rank */
  int      R_max;        /* rows this rank's experts may receive: ep N k (dropless) */
  gboolean norm_topk;    /* weights / their sum (Mixtral: TRUE) */
  float    eps;          /* RMSNorm epsilon */
  int      S;            /* shared experts' inner size together (0: none) */
} ExecMoeShape;

/* FALSE with EXEC_ERROR_INVALID when ep does not divide E, k is not in 1 .. E, or a size
 * is not positive. eps = 1e-5; norm_topk = TRUE. */
gboolean exec_moe_shape_init (ExecMoeShape *s, int N, int C, int E, int k, int F, int ep,
                              int ep_rank, GError **error);

/* Shared experts of inner size S (0: none; FALSE with EXEC_ERROR_INVALID when negative
 * or too large for int element counts). Call before sizing anything. */
gboolean exec_moe_shape_set_shared (ExecMoeShape *s, int S, GError **error);

/* One MoE block's weights on this rank (or their gradients), in this flat order. */
typedef struct {
  float *norm;           /* (C) pre-MoE RMSNorm */
  float *router;         /* (E, C) replicated over ep */
  float *w_gate;         /* (E_local, F, C) */
  float *w_up;           /* (E_local, F, C) */
  float *w_down;         /* (E_local, C, F) */
  float *sh_gate;        /* (S, C) shared experts, replicated over ep; NULL when S = 0 */
  float *sh_up;          /* (S, C) */
  float *sh_down;        /* (C, S) */
} ExecMoeWeights;

gsize exec_moe_weights_size (const ExecMoeShape *s);             /* floats */
gsize exec_moe_shared_size  (const ExecMoeShape *s);             /* 3 S C of them */
void  exec_moe_weights_bind (ExecMoeWeights *w, const ExecMoeShape *s, float *mem);
/* Split-independent values (exec_init_value of a key of (layer, tensor, global expert,
 * row, col)): linear weights std 0.02, the norm 1. Host memory. */
void  exec_moe_weights_fill (ExecMoeWeights *w, const ExecMoeShape *s, int layer,
                             guint64 seed);

/* What the backward needs (caller-owned device memory, exec_moe_acts_size floats). */
typedef struct {
  float *x_norm;         /* (N, C) */
  float *rstd;           /* (N) */
  float *probs;          /* (N, E) router softmax */
  int   *idx;            /* (N, k) chosen experts, descending probability */
  float *wts;            /* (N, k) their combine weights */
  int   *pos;            /* (N k) row of assignment n k + j in expert order */
  float *counts;         /* (E) assignments per expert (exact small integers) */
  float *rcounts;        /* (ep, E_local) rows each source sends each local expert */
  float *xp;             /* (N k, C) permuted rows, the dispatch's send buffer */
  float *xe;             /* (R_max, C) expert inputs, (local expert, source) order */
  float *gate, *up, *h;  /* (R_max, F) */
  float *yp;             /* (N k, C) expert outputs back home, permuted order */
  float *sh_gate, *sh_up, *sh_h;   /* (N, S) the shared experts' (S > 0) */
} ExecMoeActs;

gsize exec_moe_acts_size  (const ExecMoeShape *s);
void  exec_moe_acts_bind  (ExecMoeActs *a, const ExecMoeShape *s, float *mem);
/* Backward scratch (floats); the forward uses the first 2 R_max C of it as well. */
gsize exec_moe_scratch_size (const ExecMoeShape *s);

/* Host-side routing of one forward (sizes of the all-to-allv, in rows). */
typedef struct {
  int *send_rows, *send_off;   /* (ep) rows to / offset in xp of each member */
  int *recv_rows, *recv_off;   /* (ep) rows from / offset of each member */
  int *chunk;                  /* (ep, E_local) rows from source s for local expert e */
  int *expert_rows;            /* (E_local) */
  int *counts_el;              /* 4 x ep: element counts and displacements (x C) */
  float *host_counts;          /* (E + ep E_local) downloaded counts */
  int  rows_in;                /* sum of recv_rows */
} ExecMoeRoute;

gsize exec_moe_route_size (const ExecMoeShape *s);                /* ints (host) */
void  exec_moe_route_bind (ExecMoeRoute *r, const ExecMoeShape *s, int *mem);

/* Where the block runs. `buf` is the backend buffer that holds the acts and scratch
 * (NULL: host memory, read directly); `comm` and `group` carry the ep all-to-alls (group
 * NULL or of size 1: no communication). */
typedef struct {
  ExecStream *compute, *comm;
  ExecGroup  *group;
  ExecBuffer *buf;
  ExecEvent  *ev;        /* scratch event for compute -> comm ordering (NULL on host) */
  ExecSample  a2a[2];    /* the last dispatch and combine all-to-allv (timing) */
} ExecMoeCtx;

/* out = [x +] moe (rmsnorm (x)). */
gboolean exec_moe_forward  (ExecMoeCtx *ctx, const ExecMoeShape *s, const ExecMoeWeights *w,
                            const float *x, gboolean add_residual, ExecMoeActs *a,
                            ExecMoeRoute *route, float *out, float *scratch, GError **error);
/* dx = [dout +] d moe / dx (set); weight gradients accumulate into g. The route is the
 * forward's. */
gboolean exec_moe_backward (ExecMoeCtx *ctx, const ExecMoeShape *s, const ExecMoeWeights *w,
                            ExecMoeWeights *g, const float *x, gboolean add_residual,
                            const ExecMoeActs *a, const ExecMoeRoute *route,
                            const float *dout, float *dx, float *scratch, GError **error);

/* The shared experts (S > 0), the step program's MOE_SHARED task: forward computes their
 * output into the scratch (a region of its own, kept until the backward's route) and
 * exec_moe_shared_add adds it to the block's output, before or after the combine;
 * backward accumulates their weight gradients and keeps their input gradient in the
 * scratch, which exec_moe_route_backward adds. */
void exec_moe_shared_forward  (ExecMoeCtx *ctx, const ExecMoeShape *s, const ExecMoeWeights *w,
                               ExecMoeActs *a, float *scratch);
void exec_moe_shared_add      (ExecMoeCtx *ctx, const ExecMoeShape *s, const float *scratch,
                               float *out);
void exec_moe_shared_backward (ExecMoeCtx *ctx, const ExecMoeShape *s, const ExecMoeWeights *w,
                               ExecMoeWeights *g, const ExecMoeActs *a, const float *dout,
                               float *scratch);

/* The same in the step program's phases (plan/program.h MoE tasks), called in this order
 * with the same scratch: forward route (MOE_ROUTE), dispatch (the counts' all-to-all and
 * the rows' all-to-allv), experts (MOE_EXPERTS), combine a2a, combine (MOE_COMBINE);
 * backward combine (MOE_COMBINE), dispatch, experts, combine a2a, route (MOE_ROUTE). */
gboolean exec_moe_route_forward       (ExecMoeCtx *ctx, const ExecMoeShape *s,
                                       const ExecMoeWeights *w, const float *x,
                                       ExecMoeActs *a, GError **error);
gboolean exec_moe_dispatch_forward    (ExecMoeCtx *ctx, const ExecMoeShape *s, ExecMoeActs *a,
                                       ExecMoeRoute *route, float *scratch, GError **error);
gboolean exec_moe_experts_forward     (ExecMoeCtx *ctx, const ExecMoeShape *s,
                                       const ExecMoeWeights *w, ExecMoeActs *a,
                                       const ExecMoeRoute *route, float *scratch,
                                       GError **error);
gboolean exec_moe_combine_a2a_forward (ExecMoeCtx *ctx, const ExecMoeShape *s, ExecMoeActs *a,
                                       const ExecMoeRoute *route, float *scratch,
                                       GError **error);
void     exec_moe_combine_forward     (ExecMoeCtx *ctx, const ExecMoeShape *s, const float *x,
                                       gboolean add_residual, const ExecMoeActs *a,
                                       float *out);
gboolean exec_moe_combine_backward    (ExecMoeCtx *ctx, const ExecMoeShape *s,
                                       const ExecMoeActs *a, const float *dout,
                                       float *scratch, GError **error);
gboolean exec_moe_dispatch_backward   (ExecMoeCtx *ctx, const ExecMoeShape *s,
                                       const ExecMoeRoute *route, float *scratch,
                                       GError **error);
gboolean exec_moe_experts_backward    (ExecMoeCtx *ctx, const ExecMoeShape *s,
                                       const ExecMoeWeights *w, ExecMoeWeights *g,
                                       const ExecMoeActs *a, const ExecMoeRoute *route,
                                       float *scratch, GError **error);
gboolean exec_moe_combine_a2a_backward (ExecMoeCtx *ctx, const ExecMoeShape *s,
                                        const ExecMoeRoute *route, float *scratch,
                                        GError **error);
void     exec_moe_route_backward      (ExecMoeCtx *ctx, const ExecMoeShape *s,
                                       const ExecMoeWeights *w, ExecMoeWeights *g,
                                       const float *x, gboolean add_residual,
                                       const ExecMoeActs *a, const float *dout, float *dx,
                                       float *scratch);

/* ---- the CPU references of the kernel-table entries (layers.h ExecKernels.moe_*) ------- */

void exec_cpu_moe_topk (float *probs, int *idx, float *wts, const float *logits, int N, int E,
                        int k, gboolean norm);
void exec_cpu_moe_topk_backward (float *dlogits, const float *dwts, const float *probs,
                                 const int *idx, const float *wts, int N, int E, int k,
                                 gboolean norm);
void exec_cpu_moe_permute (float *xp, int *pos, float *counts, const int *idx,
                           const float *x, int N, int k, int E, int C);
void exec_cpu_moe_unpermute (float *out, const float *xp, const int *pos, const float *wts,
                             int N, int k, int C, float beta);
void exec_cpu_moe_combine_backward (float *dxp, float *dwts, const float *dout,
                                    const float *yp, const int *pos, const float *wts, int N,
                                    int k, int C);

G_END_DECLS
