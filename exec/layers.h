/* exec/layers.h - forward and backward of the llama-family blocks on one rank's shard.
 *
 * Contract:
 *  - FP32, row-major. Tokens are laid out (B, T): b-th sequence, t-th token of this
 *    rank's part of it; N = B x T. Activations are (N, C); q, the attention output and
 *    their gradients (N, n_head, head_dim); k, v (N, n_kv_head, head_dim). Linear weights
 *    are (out, in) as in torch.nn.Linear, so y = x W^T.
 *  - Tensor parallelism (Megatron-LM, Shoeybi et al. 2019): QKV, gate and up are
 *    column-parallel (this rank holds n_head = heads / tp query heads, kv_heads / tp KV
 *    heads and ffn / tp MLP rows); the out projection and down are row-parallel, so a
 *    block's output is a partial sum that the caller all-reduces (or reduce-scatters with
 *    sequence parallelism). The residual is folded into one rank's partial sum (pass
 *    add_residual on TP rank 0 only), so the reduced output is x + y. Backward is the
 *    mirror: a block's dx is a partial sum to all-reduce, the residual gradient again
 *    folded on the rank that added the residual.
 *  - Norm weights are replicated across TP ranks, but each rank's norm gradient comes from
 *    its own partial input gradient: the true gradient is their sum over the TP group.
 *  - Vocab-parallel head: this rank holds vocab rows [vocab_start, vocab_start +
 *    vocab_local), of which vocab_valid are real (the last shard may be padded). The
 *    softmax needs every shard: exec_head_forward gives per-shard log-sum-exp and target
 *    logit, the caller all-gathers / all-reduces them and calls exec_ce_combine.
 *  - Context parallelism: positions are explicit. The attention core accumulates one K/V
 *    chunk at a time with the global causal positions (online softmax, Milakov and
 *    Gimelshein 2018), so ring attention passes K/V around and calls it once per chunk.
 *  - Functions never communicate, never allocate what the caller passes, and accumulate
 *    (+=) into weight gradients, so micro-batches add up. Activations that a backward
 *    needs live in caller-owned structs bound to one block of memory.
 *  - Every computation goes through an ExecKernels table: the stream's backend's
 *    (ops->kernels) or, for a NULL stream or a backend without its own, the CPU reference
 *    exec_kernels_cpu, which works on host pointers. */
#pragma once

#include <glib.h>
#include "exec/backend.h"
#include "models/model.h"

G_BEGIN_DECLS

/* The shapes of one rank's shard of the model. */
typedef struct {
  int   B, T;            /* sequences per micro-batch; tokens per sequence on this rank */
  int   C;               /* hidden */
  int   n_head;          /* query heads on this rank (heads / tp) */
  int   n_kv_head;       /* KV heads on this rank (max (kv_heads / tp, 1)) */
  int   head_dim;
  int   ffn;             /* MLP rows on this rank (ffn / tp) */
  int   vocab_local;     /* vocab rows on this rank, padded: ceil (V / tp) */
  int   vocab_start;     /* first vocab row of this rank */
  int   vocab_valid;     /* real rows among them */
  int   tp, tp_rank;     /* where the shard sits */
  int   n_kv_head_full;  /* KV heads of the whole model */
  float eps;             /* RMSNorm epsilon */
  float rope_theta;      /* rotary base */
  gboolean unfused;      /* attention with the scores materialized (--attention-backend
                          * unfused): the activations keep probs, the backward needs a
                          * dprobs of the same size; FALSE (the default) = online softmax */
} ExecLayerShape;

/* Fills `s` from a llama-family model (SwiGLU, RMSNorm, rotary) for TP rank `tp_rank` of
 * `tp`, B sequences of T tokens. eps = 1e-5 and rope_theta = 10000 (Llama 2's config.json
 * rms_norm_eps and rope_theta); change them after for other models. Returns FALSE with
 * EXEC_ERROR_INVALID when tp does not divide the heads or ffn. */
gboolean exec_layer_shape_init (ExecLayerShape *s, const ModelSpec *m, int tp, int tp_rank,
                                int B, int T, GError **error);

/* One layer's weights (or their gradients: same shapes). */
typedef struct {
  float *attn_norm;      /* (C) */
  float *wq;             /* (n_head x head_dim, C)     column-parallel */
  float *wk;             /* (n_kv_head x head_dim, C)  column-parallel */
  float *wv;             /* (n_kv_head x head_dim, C)  column-parallel */
  float *wo;             /* (C, n_head x head_dim)     row-parallel */
  float *mlp_norm;       /* (C) */
  float *w_gate;         /* (ffn, C) column-parallel */
  float *w_up;           /* (ffn, C) column-parallel */
  float *w_down;         /* (C, ffn) row-parallel */
} ExecLayerWeights;

/* Floats of one layer's weights, and binding `w` to consecutive slices of `mem`
 * (so a layer's parameters, gradients and Adam moments are each one flat array). */
gsize exec_layer_weights_size (const ExecLayerShape *s);
void  exec_layer_weights_bind (ExecLayerWeights *w, const ExecLayerShape *s, float *mem);

/* Deterministic initialisation that does not depend on the split: the value of element
 * (row, col) of a full matrix is a hash of (seed, layer, tensor, row, col), so each TP
 * rank fills its shard and a 1-rank run sees the same model. Linear weights are uniform
 * with standard deviation 0.02 (Megatron --init-method-std default), norm weights 1.
 * Host memory. Layer -1 is the embedding / head. */
void exec_layer_weights_fill (ExecLayerWeights *w, const ExecLayerShape *s, int layer,
                              guint64 seed);
/* Token embedding (vocab_local, C) and output head (vocab_local, C) rows of this shard;
 * padding rows are zero. */
void exec_vocab_weights_fill (float *wte, float *w_lm, float *final_norm,
                              const ExecLayerShape *s, guint64 seed);
/* Uniform value in [-a, a], a = std x sqrt(3), for a hash key (SplitMix64, Steele et al.
 * 2014). */
float exec_init_value (guint64 seed, guint64 key, float std);

/* Positions of this rank's T tokens of a sequence of S = T x cp for context parallelism.
 * load_balanced: Megatron's split of the sequence into 2 cp chunks, rank r holding chunks
 * r and 2 cp - 1 - r, so causal work is even; otherwise one contiguous chunk. */
void exec_cp_positions (int T, int cp, int cp_rank, gboolean load_balanced, int *pos);

/* ---- activations the backward needs (caller-owned) ----------------------------------- */

typedef struct {
  float *x_norm;         /* (N, C) */
  float *rstd;           /* (N) */
  float *q;              /* (N, n_head, head_dim), after rotary */
  float *k, *v;          /* (N, n_kv_head, head_dim), k after rotary */
  float *att;            /* (N, n_head, head_dim), softmax(q k^T / sqrt(d)) v */
  float *lse;            /* (B, n_head, T) log-sum-exp of each query's scores */
  float *probs;          /* unfused only: (B, n_head, T, T) softmax of the scores; NULL */
} ExecAttnActs;

typedef struct {
  float *x_norm;         /* (N, C) */
  float *rstd;           /* (N) */
  float *gate, *up;      /* (N, ffn), before the activation */
  float *h;              /* (N, ffn) silu (gate) x up */
} ExecMlpActs;

typedef struct {
  float *x_norm;         /* (N, C) after the final norm */
  float *rstd;           /* (N) */
  float *logits;         /* (N, vocab_local) */
} ExecHeadActs;

gsize exec_attn_acts_size (const ExecLayerShape *s);   /* floats */
void  exec_attn_acts_bind (ExecAttnActs *a, const ExecLayerShape *s, float *mem);
gsize exec_mlp_acts_size  (const ExecLayerShape *s);
void  exec_mlp_acts_bind  (ExecMlpActs *a, const ExecLayerShape *s, float *mem);
/* The same with the norm output x_norm (N, C) outside `mem`, which then holds the size
 * above less N C floats: blocks that recompute the norm in their backward (the runner
 * under sequence parallelism) share one x_norm. */
void  exec_attn_acts_bind_norm (ExecAttnActs *a, const ExecLayerShape *s, float *mem,
                                float *x_norm);
void  exec_mlp_acts_bind_norm  (ExecMlpActs *a, const ExecLayerShape *s, float *mem,
                                float *x_norm);
gsize exec_head_acts_size (const ExecLayerShape *s);
void  exec_head_acts_bind (ExecHeadActs *a, const ExecLayerShape *s, float *mem);
/* Scratch floats the backward of each block needs (passed as `scratch`). */
gsize exec_attn_scratch_size (const ExecLayerShape *s);
gsize exec_mlp_scratch_size  (const ExecLayerShape *s);
gsize exec_head_scratch_size (const ExecLayerShape *s);

/* ---- blocks (layers-block.c) -------------------------------------------------------- */
/* `stream` selects the kernels (NULL = CPU reference on host memory). `pos` (T) are the
 * global positions of this rank's tokens; NULL = 0 .. T - 1. */

/* PROG_BLOCK_EMBED: out (N, C) = wte[tokens] for tokens in this shard, 0 otherwise (a
 * partial sum over the TP group). Backward: dwte += rows of dout. */
void exec_embed_forward  (ExecStream *stream, const ExecLayerShape *s, const float *wte,
                          const int *tokens, float *out);
void exec_embed_backward (ExecStream *stream, const ExecLayerShape *s, float *dwte,
                          const int *tokens, const float *dout);

/* PROG_BLOCK_ATTN = pre + core + post. out = [x +] attention (rmsnorm (x)) Wo^T. */
void exec_attn_forward  (ExecStream *stream, const ExecLayerShape *s, const ExecLayerWeights *w,
                         const float *x, const int *pos, gboolean add_residual,
                         ExecAttnActs *acts, float *out);
/* The same with `work` (NULL, or exec_attn_scratch_size floats, e.g. the backward
 * scratch, free during the forward): Q, K and V run as one GEMM into work when the
 * weights are adjacent (exec_layer_weights_bind), as the step program models them. */
void exec_attn_forward_ws (ExecStream *stream, const ExecLayerShape *s,
                           const ExecLayerWeights *w, const float *x, const int *pos,
                           gboolean add_residual, ExecAttnActs *acts, float *out, float *work);
/* dx = [dout +] d(attention)/dx (set, not accumulated); weight gradients accumulate into
 * g. scratch: exec_attn_scratch_size floats. Adjacent weights and gradients take one
 * QKV GEMM (and the MLP one gate-and-up GEMM, in its forward and backward too). */
void exec_attn_backward (ExecStream *stream, const ExecLayerShape *s, const ExecLayerWeights *w,
                         ExecLayerWeights *g, const float *x, const int *pos,
                         gboolean add_residual, const ExecAttnActs *acts, const float *dout,
                         float *dx, float *scratch);

/* PROG_BLOCK_ATTN_PRE: norm, q k v, rotary -> acts->x_norm, rstd, q, k, v. */
void exec_attn_pre_forward  (ExecStream *stream, const ExecLayerShape *s,
                             const ExecLayerWeights *w, const float *x, const int *pos,
                             ExecAttnActs *acts);
void exec_attn_pre_forward_ws (ExecStream *stream, const ExecLayerShape *s,
                               const ExecLayerWeights *w, const float *x, const int *pos,
                               ExecAttnActs *acts, float *work);
/* PROG_BLOCK_ATTN_CORE without CP: acts->att, lse from q, k, v. */
void exec_attn_core_forward (ExecStream *stream, const ExecLayerShape *s, const int *pos,
                             ExecAttnActs *acts);
/* PROG_BLOCK_ATTN_POST: out = [x +] att Wo^T. */
void exec_attn_post_forward (ExecStream *stream, const ExecLayerShape *s,
                             const ExecLayerWeights *w, const float *x, gboolean add_residual,
                             const ExecAttnActs *acts, float *out);
/* Backward pieces: post gives datt and sets dx = [dout]; core turns datt into dq, dk, dv
 * (overwritten; delta is B x n_head x T scratch); pre accumulates dx += and consumes dq
 * and dk (rotated in place). dxn is (N, C) scratch. */
void exec_attn_post_backward (ExecStream *stream, const ExecLayerShape *s,
                              const ExecLayerWeights *w, ExecLayerWeights *g,
                              gboolean add_residual, const ExecAttnActs *acts,
                              const float *dout, float *datt, float *dx);
void exec_attn_core_backward (ExecStream *stream, const ExecLayerShape *s, const int *pos,
                              const ExecAttnActs *acts, const float *datt, float *dq,
                              float *dk, float *dv, float *delta);
void exec_attn_pre_backward  (ExecStream *stream, const ExecLayerShape *s,
                              const ExecLayerWeights *w, ExecLayerWeights *g, const float *x,
                              const int *pos, const ExecAttnActs *acts, float *dq, float *dk,
                              const float *dv, float *dx, float *dxn);

/* PROG_BLOCK_MLP. out = [x +] (silu (xn Wg^T) * xn Wu^T) Wd^T, xn = rmsnorm (x). */
void exec_mlp_forward  (ExecStream *stream, const ExecLayerShape *s, const ExecLayerWeights *w,
                        const float *x, gboolean add_residual, ExecMlpActs *acts, float *out);
void exec_mlp_backward (ExecStream *stream, const ExecLayerShape *s, const ExecLayerWeights *w,
                        ExecLayerWeights *g, const float *x, gboolean add_residual,
                        const ExecMlpActs *acts, const float *dout, float *dx, float *scratch);

/* PROG_BLOCK_HEAD. Final norm and this shard's logits; lse_part (N) is the log-sum-exp
 * of the shard's valid logits (-inf when it has none), tgt_part (N) the target's logit
 * when the target is in the shard, else 0. A target < 0 is ignored (no loss). */
void exec_head_forward  (ExecStream *stream, const ExecLayerShape *s, const float *final_norm,
                         const float *w_lm, const float *x, const int *targets,
                         ExecHeadActs *acts, float *lse_part, float *tgt_part);
/* lse (N) = log sum_p exp (lse_parts[p]) over n_parts (n_parts, N) shards; loss (N) =
 * lse - tgt_sum (0 for ignored targets). */
void exec_ce_combine    (ExecStream *stream, int N, int n_parts, const float *lse_parts,
                         const float *tgt_sum, const int *targets, float *lse, float *loss);
/* dloss scales every token's gradient (1 / tokens in the global batch for a mean loss).
 * dx (N, C) is set: a partial sum over the vocab shards. scratch: exec_head_scratch_size. */
void exec_head_backward (ExecStream *stream, const ExecLayerShape *s, const float *final_norm,
                         const float *w_lm, float *d_final_norm, float *dw_lm, const float *x,
                         const int *targets, const ExecHeadActs *acts, const float *lse,
                         float dloss, float *dx, float *scratch);

/* PROG_BLOCK_OPTIMIZER: AdamW (Loshchilov and Hutter 2019; the update of torch.optim.AdamW)
 * over n parameters; step counts from 1. */
typedef struct {
  float lr, beta1, beta2, eps, weight_decay;
} ExecAdamW;
void exec_adamw_step (ExecStream *stream, const ExecAdamW *hp, int step, float *param,
                      const float *grad, float *m, float *v, gsize n);

/* ---- kernels: what a backend provides (dav1d's DSP table) ---------------------------- */

typedef struct {
  int B;                 /* sequences */
  int Tq, Tk;            /* queries and keys per sequence in these chunks */
  int n_head, n_kv_head; /* query heads; KV heads (n_head is a multiple) */
  int head_dim;
} ExecAttnDims;

struct ExecKernels {
  const char *name;
  /* out (N, OC) = beta out + inp (N, C) w^T, w (OC, C) */
  void (*matmul_forward)  (ExecStream *s, float *out, const float *inp, const float *w,
                           int N, int C, int OC, float beta);
  /* dinp = beta dinp + dout w; dw += dout^T inp */
  void (*matmul_backward) (ExecStream *s, float *dinp, float *dw, const float *dout,
                           const float *inp, const float *w, int N, int C, int OC, float beta);
  void (*rmsnorm_forward)  (ExecStream *s, float *out, float *rstd, const float *inp,
                            const float *w, int N, int C, float eps);
  /* dinp += ; dw += */
  void (*rmsnorm_backward) (ExecStream *s, float *dinp, float *dw, const float *dout,
                            const float *inp, const float *w, const float *rstd, int N, int C);
  /* in place on x (B, T, H, D); backward rotates by the opposite angle */
  void (*rope_forward)  (ExecStream *s, float *x, const int *pos, int B, int T, int H, int D,
                         float theta);
  void (*rope_backward) (ExecStream *s, float *dx, const int *pos, int B, int T, int H, int D,
                         float theta);
  /* out = 0, lse = -inf */
  void (*attn_init)     (ExecStream *s, float *out, float *lse, const ExecAttnDims *d);
  /* merges the attention of q (B, Tq, n_head, D) over one K/V chunk (B, Tk, n_kv_head, D)
   * into (out, lse); key j is visible to query i when kv_pos[j] <= q_pos[i] */
  void (*attn_forward)  (ExecStream *s, float *out, float *lse, const float *q,
                         const int *q_pos, const float *k, const float *v, const int *kv_pos,
                         const ExecAttnDims *d);
  /* delta (B, n_head, Tq) = rowsum (dout * out) */
  void (*attn_backward_prep) (ExecStream *s, float *delta, const float *out,
                              const float *dout, const ExecAttnDims *d);
  /* dq += ; dk, dv += for this chunk, with the final lse */
  void (*attn_backward) (ExecStream *s, float *dq, float *dk, float *dv, const float *dout,
                         const float *delta, const float *lse, const float *q,
                         const int *q_pos, const float *k, const float *v, const int *kv_pos,
                         const ExecAttnDims *d);
  /* Unfused attention (--attention-backend unfused; NULL where a backend lacks it): the
   * scores of one whole sequence go through memory. probs (B, n_head, Tq, Tk) = softmax
   * (q k^T / sqrt (d)) with key j visible to query i when kv_pos[j] <= q_pos[i], written
   * by a GEMM then normalised in place; out (B, Tq, n_head, D) = probs v by a second
   * GEMM. */
  void (*attn_unfused_forward)  (ExecStream *s, float *out, float *probs, const float *q,
                                 const int *q_pos, const float *k, const float *v,
                                 const int *kv_pos, const ExecAttnDims *d);
  /* dq, dk, dv += from the stored probs; dprobs is scratch of probs' size */
  void (*attn_unfused_backward) (ExecStream *s, float *dq, float *dk, float *dv, float *dprobs,
                                 const float *dout, const float *probs, const float *q,
                                 const float *k, const float *v, const ExecAttnDims *d);
  void (*swiglu_forward)  (ExecStream *s, float *h, const float *gate, const float *up,
                           gsize n);
  void (*swiglu_backward) (ExecStream *s, float *dgate, float *dup, const float *dh,
                           const float *gate, const float *up, gsize n);
  void (*embed_forward)   (ExecStream *s, float *out, const int *tokens, const float *wte,
                           int vocab_start, int vocab_local, int N, int C);
  void (*embed_backward)  (ExecStream *s, float *dwte, const float *dout, const int *tokens,
                           int vocab_start, int vocab_local, int N, int C);
  void (*ce_forward)  (ExecStream *s, float *lse_part, float *tgt_part, const float *logits,
                       const int *targets, int vocab_start, int vocab_valid, int vocab_local,
                       int N);
  void (*ce_combine)  (ExecStream *s, float *lse, float *loss, const float *lse_parts,
                       int n_parts, const float *tgt_sum, const int *targets, int N);
  /* dlogits = dloss (softmax - onehot), 0 in padding columns */
  void (*ce_backward) (ExecStream *s, float *dlogits, const float *logits, const float *lse,
                       const int *targets, int vocab_start, int vocab_valid, int vocab_local,
                       int N, float dloss);
  void (*adamw)  (ExecStream *s, float *param, const float *grad, float *m, float *v, gsize n,
                  const ExecAdamW *hp, int step);
  /* Mixture of experts (exec/moe.h; NULL where a backend lacks them). probs (N, E) =
   * softmax (logits) (logits == probs: in place); idx, wts (N, k) the k largest in
   * descending order, ties to the lower expert, wts / their sum when norm. */
  void (*moe_topk) (ExecStream *s, float *probs, int *idx, float *wts, const float *logits,
                    int N, int E, int k, gboolean norm);
  /* dlogits (N, E) (set) from dwts (N, k) through the top-k weights and the softmax */
  void (*moe_topk_backward) (ExecStream *s, float *dlogits, const float *dwts,
                             const float *probs, const int *idx, const float *wts, int N,
                             int E, int k, gboolean norm);
  /* counts (E) and pos (N k) set: assignment a = n k + j goes to row pos[a] in expert
   * order (stable: token order inside an expert); xp (N k, C): xp[pos[a]] = x[n] */
  void (*moe_permute) (ExecStream *s, float *xp, int *pos, float *counts, const int *idx,
                       const float *x, int N, int k, int E, int C);
  /* out[n] = beta out[n] + sum_j (wts ? wts[n k + j] : 1) xp[pos[n k + j]], j in order */
  void (*moe_unpermute) (ExecStream *s, float *out, const float *xp, const int *pos,
                         const float *wts, int N, int k, int C, float beta);
  /* dxp[pos[a]] = wts[a] dout[n] and dwts[a] = dout[n] . yp[pos[a]] (both set) */
  void (*moe_combine_backward) (ExecStream *s, float *dxp, float *dwts, const float *dout,
                                const float *yp, const int *pos, const float *wts, int N,
                                int k, int C);
  void (*copy)   (ExecStream *s, float *dst, const float *src, gsize n);
  void (*fill)   (ExecStream *s, float *dst, float value, gsize n);
  void (*add)    (ExecStream *s, float *out, const float *a, const float *b, gsize n);
};

/* The CPU reference (host pointers; the stream is ignored). */
extern const ExecKernels exec_kernels_cpu;
/* The kernels for work on `stream`: its backend's, else exec_kernels_cpu. */
const ExecKernels *exec_kernels_for (ExecStream *stream);

/* The reference functions behind exec_kernels_cpu, callable directly on host memory. */
void exec_cpu_sgemm (gboolean trans_a, gboolean trans_b, int m, int n, int k, float alpha,
                     const float *a, int lda, const float *b, int ldb, float beta, float *c,
                     int ldc);
void exec_cpu_matmul_forward  (float *out, const float *inp, const float *w, int N, int C,
                               int OC, float beta);
void exec_cpu_matmul_backward (float *dinp, float *dw, const float *dout, const float *inp,
                               const float *w, int N, int C, int OC, float beta);
void exec_cpu_rmsnorm_forward  (float *out, float *rstd, const float *inp, const float *w,
                                int N, int C, float eps);
void exec_cpu_rmsnorm_backward (float *dinp, float *dw, const float *dout, const float *inp,
                                const float *w, const float *rstd, int N, int C);
void exec_cpu_rope_forward  (float *x, const int *pos, int B, int T, int H, int D, float theta);
void exec_cpu_rope_backward (float *dx, const int *pos, int B, int T, int H, int D,
                             float theta);
/* A flag the quadratic CPU attention kernels poll between query rows (a heads x rows
 * loop): non-zero makes them return at once with their output incomplete. The runner
 * points it at its opts.interrupted, so a signal stops a run inside one long attention
 * task (seq 65536: SIGTERM went unanswered for minutes, checked only between tasks); the
 * runner then fails the run as interrupted and never uses that output. NULL: never. */
void exec_cpu_attn_set_cancel (volatile int *flag);

void exec_cpu_attn_init     (float *out, float *lse, const ExecAttnDims *d);
void exec_cpu_attn_forward  (float *out, float *lse, const float *q, const int *q_pos,
                             const float *k, const float *v, const int *kv_pos,
                             const ExecAttnDims *d);
void exec_cpu_attn_backward_prep (float *delta, const float *out, const float *dout,
                                  const ExecAttnDims *d);
void exec_cpu_attn_backward (float *dq, float *dk, float *dv, const float *dout,
                             const float *delta, const float *lse, const float *q,
                             const int *q_pos, const float *k, const float *v,
                             const int *kv_pos, const ExecAttnDims *d);
void exec_cpu_attn_unfused_forward  (float *out, float *probs, const float *q,
                                     const int *q_pos, const float *k, const float *v,
                                     const int *kv_pos, const ExecAttnDims *d);
void exec_cpu_attn_unfused_backward (float *dq, float *dk, float *dv, float *dprobs,
                                     const float *dout, const float *probs, const float *q,
                                     const float *k, const float *v, const ExecAttnDims *d);
void exec_cpu_swiglu_forward  (float *h, const float *gate, const float *up, gsize n);
void exec_cpu_swiglu_backward (float *dgate, float *dup, const float *dh, const float *gate,
                               const float *up, gsize n);
void exec_cpu_embed_forward  (float *out, const int *tokens, const float *wte, int vocab_start,
                              int vocab_local, int N, int C);
void exec_cpu_embed_backward (float *dwte, const float *dout, const int *tokens,
                              int vocab_start, int vocab_local, int N, int C);
void exec_cpu_ce_forward  (float *lse_part, float *tgt_part, const float *logits,
                           const int *targets, int vocab_start, int vocab_valid,
                           int vocab_local, int N);
void exec_cpu_ce_combine  (float *lse, float *loss, const float *lse_parts, int n_parts,
                           const float *tgt_sum, const int *targets, int N);
void exec_cpu_ce_backward (float *dlogits, const float *logits, const float *lse,
                           const int *targets, int vocab_start, int vocab_valid,
                           int vocab_local, int N, float dloss);
void exec_cpu_adamw (float *param, const float *grad, float *m, float *v, gsize n,
                     const ExecAdamW *hp, int step);

G_END_DECLS
