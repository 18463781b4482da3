/* tests/exec/devsim-backend.c - the device-emulation backend (devsim-backend.h): the CPU
 * backend with buffers the host cannot dereference. */
#include "devsim-backend.h"

#include <string.h>

#define USER_SPACE_END ((guintptr) 1 << 47)   /* see devsim-backend.h */

static ExecBackendOps devsim_ops;
static ExecKernels    devsim_kernels;
static GHashTable    *live;            /* ExecBuffer * of open devsim backends */
static DevsimCounts   counts;

gboolean
devsim_is_device (const void *p)
{
  guintptr u = (guintptr) p;
  return u >= DEVSIM_OFFSET && u - DEVSIM_OFFSET < USER_SPACE_END;
}

void
devsim_counts (DevsimCounts *out)
{
  *out = counts;
}

/* The host pointer behind a device pointer; aborts on anything else but NULL. */
static void *
real (const void *p, const char *fn, const char *arg)
{
  if (p == NULL)
    return NULL;
  if (!devsim_is_device (p))
    g_error ("devsim: %s: %s = %p is not a device pointer (host memory handed to the "
             "device)", fn, arg, p);
  return (void *) ((guintptr) p - DEVSIM_OFFSET);
}

/* Host memory that the host side of an upload or download names. */
static void
host_only (const void *p, const char *fn)
{
  if (devsim_is_device (p))
    g_error ("devsim: %s: the host side %p is a device pointer", fn, p);
}

#define R(p) real ((p), G_STRFUNC, #p)

/* ---- memory --------------------------------------------------------------------------- */

static ExecBuffer *
devsim_buffer_new (ExecBackend *b, gsize bytes, GError **error)
{
  ExecBuffer *buf = exec_cpu_ops.buffer_new (b, bytes, error);
  if (!buf)
    return NULL;
  if ((guintptr) buf->data + MAX (bytes, 1) > USER_SPACE_END)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_UNAVAILABLE, "devsim: host memory at %p is "
                   "above 2^47, where device pointers could be valid", buf->data);
      exec_cpu_ops.buffer_free (b, buf);
      return NULL;
    }
  buf->data = (void *) ((guintptr) buf->data + DEVSIM_OFFSET);
  g_hash_table_add (live, buf);
  counts.buffers++;
  return buf;
}

static void
restore (ExecBuffer *buf)
{
  buf->data = R (buf->data);
  g_hash_table_remove (live, buf);
}

static void
devsim_buffer_free (ExecBackend *b, ExecBuffer *buf)
{
  if (!buf)
    return;
  restore (buf);
  exec_cpu_ops.buffer_free (b, buf);
}

static gboolean
devsim_buffer_upload (ExecBackend *b, ExecBuffer *dst, gsize offset, const void *src,
                      gsize bytes, GError **error)
{
  host_only (src, G_STRFUNC);
  ExecBuffer tmp = *dst;
  tmp.data = R (dst->data);
  counts.uploads++;
  return exec_cpu_ops.buffer_upload (b, &tmp, offset, src, bytes, error);
}

static gboolean
devsim_buffer_download (ExecBackend *b, void *dst, const ExecBuffer *src, gsize offset,
                        gsize bytes, GError **error)
{
  host_only (dst, G_STRFUNC);
  ExecBuffer tmp = *src;
  tmp.data = R (src->data);
  counts.downloads++;
  return exec_cpu_ops.buffer_download (b, dst, &tmp, offset, bytes, error);
}

/* ---- GEMM and collectives ------------------------------------------------------------- */

static gboolean
devsim_gemm (ExecBackend *b, ExecStream *stream, const ExecGemm *op, ExecSample *out,
             GError **error)
{
  ExecGemm o = *op;
  o.a = R (op->a);
  o.b = R (op->b);
  o.c = R (op->c);
  counts.gemms++;
  return exec_cpu_ops.gemm (b, stream, &o, out, error);
}

static gboolean
devsim_collective (ExecBackend *b, ExecStream *stream, ExecGroup *group, const ExecColl *op,
                   ExecSample *out, GError **error)
{
  ExecColl o = *op;
  /* the pointers the kind uses must be device memory; an unused one may be anything */
  if (op->kind != EXEC_COLL_RECV)
    o.send = R (op->send);
  else if (devsim_is_device (op->send))
    o.send = R (op->send);
  if (op->kind != EXEC_COLL_SEND)
    o.recv = R (op->recv);
  else if (devsim_is_device (op->recv))
    o.recv = R (op->recv);
  counts.collectives++;
  return exec_cpu_ops.collective (b, stream, group, &o, out, error);
}

/* ---- kernels: every pointer through R, then the CPU reference ------------------------- */

#define K (&exec_kernels_cpu)

/* A kernel added to ExecKernels needs its wrapper here (a NULL entry would crash). */
G_STATIC_ASSERT (sizeof (ExecKernels) == 29 * sizeof (void *));

static void
d_matmul_forward (ExecStream *s, float *out, const float *inp, const float *w, int N, int C,
                  int OC, float beta)
{
  counts.kernels++;
  K->matmul_forward (s, R (out), R (inp), R (w), N, C, OC, beta);
}

static void
d_matmul_backward (ExecStream *s, float *dinp, float *dw, const float *dout, const float *inp,
                   const float *w, int N, int C, int OC, float beta)
{
  counts.kernels++;
  K->matmul_backward (s, R (dinp), R (dw), R (dout), R (inp), R (w), N, C, OC, beta);
}

static void
d_rmsnorm_forward (ExecStream *s, float *out, float *rstd, const float *inp, const float *w,
                   int N, int C, float eps)
{
  counts.kernels++;
  K->rmsnorm_forward (s, R (out), R (rstd), R (inp), R (w), N, C, eps);
}

static void
d_rmsnorm_backward (ExecStream *s, float *dinp, float *dw, const float *dout, const float *inp,
                    const float *w, const float *rstd, int N, int C)
{
  counts.kernels++;
  K->rmsnorm_backward (s, R (dinp), R (dw), R (dout), R (inp), R (w), R (rstd), N, C);
}

static void
d_rope_forward (ExecStream *s, float *x, const int *pos, int B, int T, int H, int D,
                float theta)
{
  counts.kernels++;
  K->rope_forward (s, R (x), R (pos), B, T, H, D, theta);
}

static void
d_rope_backward (ExecStream *s, float *dx, const int *pos, int B, int T, int H, int D,
                 float theta)
{
  counts.kernels++;
  K->rope_backward (s, R (dx), R (pos), B, T, H, D, theta);
}

static void
d_attn_init (ExecStream *s, float *out, float *lse, const ExecAttnDims *d)
{
  counts.kernels++;
  K->attn_init (s, R (out), R (lse), d);
}

static void
d_attn_forward (ExecStream *s, float *out, float *lse, const float *q, const int *q_pos,
                const float *k, const float *v, const int *kv_pos, const ExecAttnDims *d)
{
  counts.kernels++;
  K->attn_forward (s, R (out), R (lse), R (q), R (q_pos), R (k), R (v), R (kv_pos), d);
}

static void
d_attn_backward_prep (ExecStream *s, float *delta, const float *out, const float *dout,
                      const ExecAttnDims *d)
{
  counts.kernels++;
  K->attn_backward_prep (s, R (delta), R (out), R (dout), d);
}

static void
d_attn_backward (ExecStream *s, float *dq, float *dk, float *dv, const float *dout,
                 const float *delta, const float *lse, const float *q, const int *q_pos,
                 const float *k, const float *v, const int *kv_pos, const ExecAttnDims *d)
{
  counts.kernels++;
  K->attn_backward (s, R (dq), R (dk), R (dv), R (dout), R (delta), R (lse), R (q), R (q_pos),
                    R (k), R (v), R (kv_pos), d);
}

static void
d_attn_unfused_forward (ExecStream *s, float *out, float *probs, const float *q,
                        const int *q_pos, const float *k, const float *v, const int *kv_pos,
                        const ExecAttnDims *d)
{
  counts.kernels++;
  K->attn_unfused_forward (s, R (out), R (probs), R (q), R (q_pos), R (k), R (v), R (kv_pos),
                           d);
}

static void
d_attn_unfused_backward (ExecStream *s, float *dq, float *dk, float *dv, float *dprobs,
                         const float *dout, const float *probs, const float *q, const float *k,
                         const float *v, const ExecAttnDims *d)
{
  counts.kernels++;
  K->attn_unfused_backward (s, R (dq), R (dk), R (dv), R (dprobs), R (dout), R (probs), R (q),
                            R (k), R (v), d);
}

static void
d_swiglu_forward (ExecStream *s, float *h, const float *gate, const float *up, gsize n)
{
  counts.kernels++;
  K->swiglu_forward (s, R (h), R (gate), R (up), n);
}

static void
d_swiglu_backward (ExecStream *s, float *dgate, float *dup, const float *dh, const float *gate,
                   const float *up, gsize n)
{
  counts.kernels++;
  K->swiglu_backward (s, R (dgate), R (dup), R (dh), R (gate), R (up), n);
}

static void
d_embed_forward (ExecStream *s, float *out, const int *tokens, const float *wte,
                 int vocab_start, int vocab_local, int N, int C)
{
  counts.kernels++;
  K->embed_forward (s, R (out), R (tokens), R (wte), vocab_start, vocab_local, N, C);
}

static void
d_embed_backward (ExecStream *s, float *dwte, const float *dout, const int *tokens,
                  int vocab_start, int vocab_local, int N, int C)
{
  counts.kernels++;
  K->embed_backward (s, R (dwte), R (dout), R (tokens), vocab_start, vocab_local, N, C);
}

static void
d_ce_forward (ExecStream *s, float *lse_part, float *tgt_part, const float *logits,
              const int *targets, int vocab_start, int vocab_valid, int vocab_local, int N)
{
  counts.kernels++;
  K->ce_forward (s, R (lse_part), R (tgt_part), R (logits), R (targets), vocab_start,
                 vocab_valid, vocab_local, N);
}

static void
d_ce_combine (ExecStream *s, float *lse, float *loss, const float *lse_parts, int n_parts,
              const float *tgt_sum, const int *targets, int N)
{
  counts.kernels++;
  K->ce_combine (s, R (lse), R (loss), R (lse_parts), n_parts, R (tgt_sum), R (targets), N);
}

static void
d_ce_backward (ExecStream *s, float *dlogits, const float *logits, const float *lse,
               const int *targets, int vocab_start, int vocab_valid, int vocab_local, int N,
               float dloss)
{
  counts.kernels++;
  K->ce_backward (s, R (dlogits), R (logits), R (lse), R (targets), vocab_start, vocab_valid,
                  vocab_local, N, dloss);
}

static void
d_adamw (ExecStream *s, float *param, const float *grad, float *m, float *v, gsize n,
         const ExecAdamW *hp, int step)
{
  counts.kernels++;
  K->adamw (s, R (param), R (grad), R (m), R (v), n, hp, step);
}

static void
d_copy (ExecStream *s, float *dst, const float *src, gsize n)
{
  counts.kernels++;
  K->copy (s, R (dst), R (src), n);
}

static void
d_fill (ExecStream *s, float *dst, float value, gsize n)
{
  counts.kernels++;
  K->fill (s, R (dst), value, n);
}

static void
d_add (ExecStream *s, float *out, const float *a, const float *b, gsize n)
{
  counts.kernels++;
  K->add (s, R (out), R (a), R (b), n);
}

static void
d_moe_topk (ExecStream *s, float *probs, int *idx, float *wts, const float *logits, int N,
            int E, int k, gboolean norm)
{
  counts.kernels++;
  K->moe_topk (s, R (probs), R (idx), R (wts), R (logits), N, E, k, norm);
}

static void
d_moe_topk_backward (ExecStream *s, float *dlogits, const float *dwts, const float *probs,
                     const int *idx, const float *wts, int N, int E, int k, gboolean norm)
{
  counts.kernels++;
  K->moe_topk_backward (s, R (dlogits), R (dwts), R (probs), R (idx), R (wts), N, E, k, norm);
}

static void
d_moe_permute (ExecStream *s, float *xp, int *pos, float *cnt, const int *idx, const float *x,
               int N, int k, int E, int C)
{
  counts.kernels++;
  K->moe_permute (s, R (xp), R (pos), R (cnt), R (idx), R (x), N, k, E, C);
}

static void
d_moe_unpermute (ExecStream *s, float *out, const float *xp, const int *pos, const float *wts,
                 int N, int k, int C, float beta)
{
  counts.kernels++;
  K->moe_unpermute (s, R (out), R (xp), R (pos), R (wts), N, k, C, beta);
}

static void
d_moe_combine_backward (ExecStream *s, float *dxp, float *dwts, const float *dout,
                        const float *yp, const int *pos, const float *wts, int N, int k, int C)
{
  counts.kernels++;
  K->moe_combine_backward (s, R (dxp), R (dwts), R (dout), R (yp), R (pos), R (wts), N, k, C);
}

/* ---- open and close ------------------------------------------------------------------- */

static void
devsim_close (ExecBackend *b)
{
  if (!b)
    return;
  /* the CPU backend frees its buffers' real pointers */
  GHashTableIter it;
  gpointer key;
  g_autoptr (GPtrArray) mine = g_ptr_array_new ();
  g_hash_table_iter_init (&it, live);
  while (g_hash_table_iter_next (&it, &key, NULL))
    if (((ExecBuffer *) key)->backend == b)
      g_ptr_array_add (mine, key);
  for (guint i = 0; i < mine->len; i++)
    restore (g_ptr_array_index (mine, i));
  exec_cpu_ops.close (b);
}

static void
devsim_init (void)
{
  if (live)
    return;
  live = g_hash_table_new (NULL, NULL);
  devsim_kernels = (ExecKernels) {
    .name = "devsim",
    .matmul_forward = d_matmul_forward,
    .matmul_backward = d_matmul_backward,
    .rmsnorm_forward = d_rmsnorm_forward,
    .rmsnorm_backward = d_rmsnorm_backward,
    .rope_forward = d_rope_forward,
    .rope_backward = d_rope_backward,
    .attn_init = d_attn_init,
    .attn_forward = d_attn_forward,
    .attn_backward_prep = d_attn_backward_prep,
    .attn_backward = d_attn_backward,
    .attn_unfused_forward = d_attn_unfused_forward,
    .attn_unfused_backward = d_attn_unfused_backward,
    .swiglu_forward = d_swiglu_forward,
    .swiglu_backward = d_swiglu_backward,
    .embed_forward = d_embed_forward,
    .embed_backward = d_embed_backward,
    .ce_forward = d_ce_forward,
    .ce_combine = d_ce_combine,
    .ce_backward = d_ce_backward,
    .adamw = d_adamw,
    .copy = d_copy,
    .fill = d_fill,
    .add = d_add,
    .moe_topk = d_moe_topk,
    .moe_topk_backward = d_moe_topk_backward,
    .moe_permute = d_moe_permute,
    .moe_unpermute = d_moe_unpermute,
    .moe_combine_backward = d_moe_combine_backward,
  };
  devsim_ops = exec_cpu_ops;
  devsim_ops.name = "devsim";
  devsim_ops.close = devsim_close;
  devsim_ops.buffer_new = devsim_buffer_new;
  devsim_ops.buffer_free = devsim_buffer_free;
  devsim_ops.buffer_upload = devsim_buffer_upload;
  devsim_ops.buffer_download = devsim_buffer_download;
  devsim_ops.gemm = devsim_gemm;
  devsim_ops.collective = devsim_collective;
  devsim_ops.kernels = &devsim_kernels;
}

ExecBackend *
devsim_backend_open (const ExecConfig *config, GError **error)
{
  devsim_init ();
  ExecBackend *b = exec_cpu_ops.open (config, error);
  if (!b)
    return NULL;
  b->ops = &devsim_ops;
  /* an accelerator's memory, as the cuda backend reports it (cudaGetDeviceProperties):
   * code that measures or sizes device memory takes its device path here */
  b->device_memory_bytes = DEVSIM_MEMORY_BYTES;
  memset (&counts, 0, sizeof counts);
  return b;
}
