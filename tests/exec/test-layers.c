/* tests/exec/test-layers.c - the CPU reference kernels of the llama blocks, one process.
 *
 * Oracles: a naive triple loop for GEMM; central finite differences for every backward
 * (tolerances in check.h); full causal attention for the CP chunks; hand arithmetic for
 * AdamW. Inputs come from GRand with fixed seeds (printed with --verbose). */
#include "check.h"
#include "local-open.h"

/* ---- GEMM ----------------------------------------------------------------------------- */

static void
naive_gemm (gboolean ta, gboolean tb, int m, int n, int k, float alpha, const float *a, int lda,
            const float *b, int ldb, float beta, float *c, int ldc)
{
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      {
        double acc = 0;
        for (int p = 0; p < k; p++)
          acc += (double) (ta ? a[p * lda + i] : a[i * lda + p])
                 * (tb ? b[j * ldb + p] : b[p * ldb + j]);
        c[i * ldc + j] = (float) (alpha * acc + beta * c[i * ldc + j]);
      }
}

/* Through the backend's ops table: every transpose pair, alpha 0.5 and beta 2, padded
 * leading dimensions, a batch of 2; equal to the triple loop within 1e-5 relative (k <= 29
 * FP32 products: rounding ~k 6e-8 = 2e-6). */
static void
test_gemm (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecBackend) b = local_backend_open (NULL);
  ExecStream *st = exec_stream_new (b, EXEC_STREAM_COMPUTE, "compute", &error);
  g_assert_no_error (error);
  g_autoptr (GRand) r = seeded (11);
  const int shapes[][3] = { { 7, 5, 3 }, { 33, 17, 29 } };
  for (guint s = 0; s < G_N_ELEMENTS (shapes); s++)
    for (int ta = 0; ta < 2; ta++)
      for (int tb = 0; tb < 2; tb++)
        {
          int m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
          int lda = (ta ? m : k) + 2, ldb = (tb ? k : n) + 1, ldc = n + 3;
          gsize sa = (gsize) lda * (ta ? k : m), sb = (gsize) ldb * (tb ? n : k);
          gsize sc = (gsize) ldc * m;
          g_autofree float *a = randv (r, 2 * sa, -1, 1), *bm = randv (r, 2 * sb, -1, 1);
          g_autofree float *c = randv (r, 2 * sc, -1, 1);
          g_autofree float *want = g_memdup2 (c, 2 * sc * sizeof (float));
          ExecGemm op = { .dtype = EXEC_DTYPE_F32, .trans_a = ta, .trans_b = tb, .m = m,
                          .n = n, .k = k, .alpha = 0.5f, .beta = 2.0f, .a = a, .lda = lda,
                          .b = bm, .ldb = ldb, .c = c, .ldc = ldc, .batch = 2,
                          .stride_a = (gint64) sa, .stride_b = (gint64) sb,
                          .stride_c = (gint64) sc };
          ExecSample t = { -1, -1 };
          g_assert_true (exec_gemm (st, &op, &t, &error));
          g_assert_no_error (error);
          g_assert_cmpfloat (t.end_s, >=, t.start_s);
          g_assert_cmpfloat (t.start_s, >=, 0);
          for (int i = 0; i < 2; i++)
            naive_gemm (ta, tb, m, n, k, 0.5f, a + i * sa, lda, bm + i * sb, ldb, 2.0f,
                        want + i * sc, ldc);
          g_assert_cmpfloat (rel_err (c, want, 2 * sc), <=, 1e-5);
        }
  /* the CPU multiplies FP32 only; a too small lda is refused before BLAS sees it */
  float x[4] = { 0 };
  ExecGemm bad = { .dtype = EXEC_DTYPE_BF16, .m = 2, .n = 2, .k = 2, .a = x, .b = x, .c = x };
  g_assert_false (exec_gemm (st, &bad, NULL, &error));
  g_assert_error (error, EXEC_ERROR, EXEC_ERROR_INVALID);
  g_clear_error (&error);
  bad.dtype = EXEC_DTYPE_F32;
  bad.lda = 1;
  g_assert_false (exec_gemm (st, &bad, NULL, &error));
  g_assert_error (error, EXEC_ERROR, EXEC_ERROR_BLAS);
  g_assert_nonnull (strstr (error->message, "lda"));
}

/* ---- RMSNorm -------------------------------------------------------------------------- */

typedef struct {
  int N, C;
  float *x, *w, *r, *out, *rstd;
} NormCtx;

static double
norm_loss (gpointer data)
{
  NormCtx *c = data;
  exec_cpu_rmsnorm_forward (c->out, c->rstd, c->x, c->w, c->N, c->C, 1e-5f);
  return dotd (c->out, c->r, (gsize) c->N * c->C);
}

/* L = sum (rmsnorm (x) r): dx and dw against finite differences. */
static void
test_rmsnorm_backward (void)
{
  g_autoptr (GRand) r = seeded (21);
  NormCtx c = { .N = 3, .C = 8 };
  gsize n = 24;
  c.x = randv (r, n, -1, 1);
  c.w = randv (r, 8, 0.5, 1.5);
  c.r = randv (r, n, -1, 1);
  c.out = g_new (float, n);
  c.rstd = g_new (float, 3);
  g_autofree float *dx = g_new0 (float, n), *dw = g_new0 (float, 8);
  norm_loss (&c);
  exec_cpu_rmsnorm_backward (dx, dw, c.r, c.x, c.w, c.rstd, 3, 8);
  check_grad ("rmsnorm dx", norm_loss, &c, c.x, dx, n, n, r);
  check_grad ("rmsnorm dw", norm_loss, &c, c.w, dw, 8, 8, r);
  g_free (c.x), g_free (c.w), g_free (c.r), g_free (c.out), g_free (c.rstd);
}

/* Rotary is a rotation, so its backward is its transpose: <R x, y> = <x, R^T y>. */
static void
test_rope_adjoint (void)
{
  g_autoptr (GRand) r = seeded (23);
  int B = 2, T = 3, H = 2, D = 8, pos[3] = { 5, 0, 17 };
  gsize n = (gsize) B * T * H * D;
  g_autofree float *x = randv (r, n, -1, 1), *y = randv (r, n, -1, 1);
  g_autofree float *rx = g_memdup2 (x, n * 4), *ry = g_memdup2 (y, n * 4);
  exec_cpu_rope_forward (rx, pos, B, T, H, D, 10000.0f);
  exec_cpu_rope_backward (ry, pos, B, T, H, D, 10000.0f);
  g_assert_cmpfloat (fabs (dotd (rx, y, n) - dotd (x, ry, n)), <=, 1e-5);
  /* position 0 is the identity; norms are kept */
  g_assert_cmpfloat (fabs (rx[D * H] - x[D * H]), <=, 1e-7);
  g_assert_cmpfloat (fabs (dotd (rx, rx, n) - dotd (x, x, n)), <=, 1e-4);
}

/* ---- attention ------------------------------------------------------------------------ */

typedef struct {
  ExecAttnDims d;
  float *q, *k, *v, *r, *out, *lse;
} AttnCtx;

static double
attn_loss (gpointer data)
{
  AttnCtx *c = data;
  exec_cpu_attn_init (c->out, c->lse, &c->d);
  exec_cpu_attn_forward (c->out, c->lse, c->q, NULL, c->k, c->v, NULL, &c->d);
  return dotd (c->out, c->r, (gsize) c->d.B * c->d.Tq * c->d.n_head * c->d.head_dim);
}

/* Causal GQA attention (4 query heads over 2 KV heads): dq, dk, dv against finite
 * differences of L = sum (out r), every element. */
static void
test_attention_backward (void)
{
  g_autoptr (GRand) r = seeded (31);
  AttnCtx c = { .d = { .B = 2, .Tq = 5, .Tk = 5, .n_head = 4, .n_kv_head = 2, .head_dim = 4 } };
  gsize nq = 2 * 5 * 4 * 4, nk = 2 * 5 * 2 * 4, rows = 2 * 5 * 4;
  c.q = randv (r, nq, -1, 1);
  c.k = randv (r, nk, -1, 1);
  c.v = randv (r, nk, -1, 1);
  c.r = randv (r, nq, -1, 1);
  c.out = g_new (float, nq);
  c.lse = g_new (float, rows);
  g_autofree float *dq = g_new0 (float, nq), *dk = g_new0 (float, nk), *dv = g_new0 (float, nk);
  g_autofree float *delta = g_new (float, rows);
  attn_loss (&c);
  /* the first query sees only key 0: its output is v_0 and its lse its one score */
  for (int i = 0; i < 4; i++)
    g_assert_cmpfloat (fabs (c.out[i] - c.v[i]), <=, 1e-6);
  exec_cpu_attn_backward_prep (delta, c.out, c.r, &c.d);
  exec_cpu_attn_backward (dq, dk, dv, c.r, delta, c.lse, c.q, NULL, c.k, c.v, NULL, &c.d);
  check_grad ("attention dq", attn_loss, &c, c.q, dq, nq, nq, r);
  check_grad ("attention dk", attn_loss, &c, c.k, dk, nk, nk, r);
  check_grad ("attention dv", attn_loss, &c, c.v, dv, nk, nk, r);
  g_free (c.q), g_free (c.k), g_free (c.v), g_free (c.r), g_free (c.out), g_free (c.lse);
}

/* Gathers rows at `pos` (T of them) of a (B, S, H, D) tensor into (B, T, H, D). */
static void
gather (float *dst, const float *src, const int *pos, int B, int S, int T, int HD)
{
  for (int b = 0; b < B; b++)
    for (int t = 0; t < T; t++)
      memcpy (dst + ((gsize) b * T + t) * HD, src + ((gsize) b * S + pos[t]) * HD,
              sizeof (float) * HD);
}

/* Context parallelism over 2 ranks with Megatron's load-balanced chunks (S = 8: rank 0
 * holds positions 0 1 6 7, rank 1 holds 2 3 4 5). Each rank's queries merged over both
 * K/V chunks (in either order) equal the rows of full causal attention, and the chunked
 * backward (dq summed over chunks, dk/dv of a chunk summed over ranks) equals the full
 * backward; within 1e-5 relative (only the order of FP32 sums differs). */
static void
test_attention_cp (void)
{
  g_autoptr (GRand) r = seeded (37);
  int B = 2, S = 8, cp = 2, T = 4, Hq = 4, Hkv = 2, D = 4;
  gsize nq = (gsize) B * S * Hq * D, nk = (gsize) B * S * Hkv * D;
  g_autofree float *q = randv (r, nq, -1, 1), *k = randv (r, nk, -1, 1);
  g_autofree float *v = randv (r, nk, -1, 1), *dout = randv (r, nq, -1, 1);
  ExecAttnDims full = { B, S, S, Hq, Hkv, D };
  g_autofree float *out = g_new (float, nq), *lse = g_new (float, (gsize) B * S * Hq);
  g_autofree float *delta = g_new (float, (gsize) B * S * Hq);
  g_autofree float *dq = g_new0 (float, nq), *dk = g_new0 (float, nk), *dv = g_new0 (float, nk);
  exec_cpu_attn_init (out, lse, &full);
  exec_cpu_attn_forward (out, lse, q, NULL, k, v, NULL, &full);
  exec_cpu_attn_backward_prep (delta, out, dout, &full);
  exec_cpu_attn_backward (dq, dk, dv, dout, delta, lse, q, NULL, k, v, NULL, &full);

  int pos[2][4];
  exec_cp_positions (T, cp, 0, TRUE, pos[0]);
  exec_cp_positions (T, cp, 1, TRUE, pos[1]);
  const int want0[4] = { 0, 1, 6, 7 }, want1[4] = { 2, 3, 4, 5 };
  g_assert_cmpmem (pos[0], sizeof want0, want0, sizeof want0);
  g_assert_cmpmem (pos[1], sizeof want1, want1, sizeof want1);

  gsize lq = nq / cp, lk = nk / cp;
  float *qs[2], *ks[2], *vs[2], *dos[2], *dks[2], *dvs[2];
  for (int c = 0; c < cp; c++)
    {
      qs[c] = g_new (float, lq), ks[c] = g_new (float, lk), vs[c] = g_new (float, lk);
      dos[c] = g_new (float, lq);
      dks[c] = g_new0 (float, lk), dvs[c] = g_new0 (float, lk);
      gather (qs[c], q, pos[c], B, S, T, Hq * D);
      gather (ks[c], k, pos[c], B, S, T, Hkv * D);
      gather (vs[c], v, pos[c], B, S, T, Hkv * D);
      gather (dos[c], dout, pos[c], B, S, T, Hq * D);
    }
  ExecAttnDims d = { B, T, T, Hq, Hkv, D };
  for (int rank = 0; rank < cp; rank++)
    {
      g_autofree float *o = g_new (float, lq), *l = g_new (float, (gsize) B * T * Hq);
      g_autofree float *dl = g_new (float, (gsize) B * T * Hq), *dqr = g_new0 (float, lq);
      g_autofree float *want = g_new (float, lq);
      exec_cpu_attn_init (o, l, &d);
      for (int i = 0; i < cp; i++)   /* rank 0 takes its own chunk first, rank 1 last */
        {
          int c = rank == 0 ? i : cp - 1 - i;
          exec_cpu_attn_forward (o, l, qs[rank], pos[rank], ks[c], vs[c], pos[c], &d);
        }
      gather (want, out, pos[rank], B, S, T, Hq * D);
      g_assert_cmpfloat (rel_err (o, want, lq), <=, 1e-5);
      exec_cpu_attn_backward_prep (dl, o, dos[rank], &d);
      for (int c = 0; c < cp; c++)
        exec_cpu_attn_backward (dqr, dks[c], dvs[c], dos[rank], dl, l, qs[rank], pos[rank],
                                ks[c], vs[c], pos[c], &d);
      gather (want, dq, pos[rank], B, S, T, Hq * D);
      g_assert_cmpfloat (rel_err (dqr, want, lq), <=, 1e-5);
    }
  for (int c = 0; c < cp; c++)
    {
      g_autofree float *want = g_new (float, lk);
      gather (want, dk, pos[c], B, S, T, Hkv * D);
      g_assert_cmpfloat (rel_err (dks[c], want, lk), <=, 1e-5);
      gather (want, dv, pos[c], B, S, T, Hkv * D);
      g_assert_cmpfloat (rel_err (dvs[c], want, lk), <=, 1e-5);
      g_free (qs[c]), g_free (ks[c]), g_free (vs[c]), g_free (dos[c]);
      g_free (dks[c]), g_free (dvs[c]);
    }
}

/* ---- SwiGLU and loss ------------------------------------------------------------------ */

typedef struct {
  gsize n;
  float *gate, *up, *r, *h;
} GluCtx;

static double
glu_loss (gpointer data)
{
  GluCtx *c = data;
  exec_cpu_swiglu_forward (c->h, c->gate, c->up, c->n);
  return dotd (c->h, c->r, c->n);
}

static void
test_swiglu_backward (void)
{
  g_autoptr (GRand) r = seeded (41);
  GluCtx c = { .n = 32 };
  c.gate = randv (r, 32, -3, 3);
  c.up = randv (r, 32, -2, 2);
  c.r = randv (r, 32, -1, 1);
  c.h = g_new (float, 32);
  g_autofree float *dg = g_new (float, 32), *du = g_new (float, 32);
  exec_cpu_swiglu_backward (dg, du, c.r, c.gate, c.up, 32);
  check_grad ("swiglu dgate", glu_loss, &c, c.gate, dg, 32, 32, r);
  check_grad ("swiglu dup", glu_loss, &c, c.up, du, 32, 32, r);
  /* silu (0) = 0, silu (x) ~ x for large x: h (g = 0) = 0 */
  float z = 0, one = 1, h;
  exec_cpu_swiglu_forward (&h, &z, &one, 1);
  g_assert_cmpfloat (h, ==, 0.0f);
  g_free (c.gate), g_free (c.up), g_free (c.r), g_free (c.h);
}

typedef struct {
  int N, V;
  float *logits;
  const int *targets;
} LossCtx;

/* mean cross-entropy through the shard + combine path with one shard */
static double
ce_loss (gpointer data)
{
  LossCtx *c = data;
  float lse_p[8], tgt[8], lse[8], loss[8];
  exec_cpu_ce_forward (lse_p, tgt, c->logits, c->targets, 0, c->V, c->V, c->N);
  exec_cpu_ce_combine (lse, loss, lse_p, 1, tgt, c->targets, c->N);
  double s = 0;
  for (int t = 0; t < c->N; t++)
    s += loss[t];
  return s / c->N;
}

/* Mean softmax cross-entropy over 4 tokens, V = 7 (one target ignored with -1): the
 * gradient against finite differences; then split over 2 vocab shards (4 + 3 valid and
 * one padding column) the combined loss and the shard gradients equal the unsplit ones. */
static void
test_loss_backward (void)
{
  g_autoptr (GRand) r = seeded (43);
  int N = 4, V = 7, targets[4] = { 3, 6, -1, 0 };
  LossCtx c = { N, V, randv (r, (gsize) N * V, -2, 2), targets };
  float lse_p[4], tgt[4], lse[4], loss[4];
  g_autofree float *dl = g_new (float, (gsize) N * V);
  exec_cpu_ce_forward (lse_p, tgt, c.logits, targets, 0, V, V, N);
  exec_cpu_ce_combine (lse, loss, lse_p, 1, tgt, targets, N);
  g_assert_cmpfloat (loss[2], ==, 0.0f);
  /* loss = lse - logit of the target, by definition */
  g_assert_cmpfloat (fabs (loss[0] - (lse[0] - c.logits[3])), <=, 1e-6);
  exec_cpu_ce_backward (dl, c.logits, lse, targets, 0, V, V, N, 1.0f / N);
  check_grad ("cross-entropy dlogits", ce_loss, &c, c.logits, dl, (gsize) N * V, 64, r);

  /* two vocab shards of 4 columns: [0, 4) and [4, 8) with column 7 padding */
  int local = 4;
  g_autofree float *sh = g_new0 (float, (gsize) 2 * N * local);
  for (int t = 0; t < N; t++)
    for (int i = 0; i < V; i++)
      sh[(gsize) (i / local) * N * local + t * local + i % local] = c.logits[t * V + i];
  float parts[8], tgt_p[8], tsum[4], lse2[4], loss2[4];
  for (int p = 0; p < 2; p++)
    exec_cpu_ce_forward (parts + p * N, tgt_p + p * N, sh + (gsize) p * N * local, targets,
                         p * local, p ? V - local : local, local, N);
  for (int t = 0; t < N; t++)
    tsum[t] = tgt_p[t] + tgt_p[N + t];   /* what the TP all-reduce would give */
  exec_cpu_ce_combine (lse2, loss2, parts, 2, tsum, targets, N);
  g_assert_cmpfloat (rel_err (loss2, loss, 4), <=, 1e-6);
  g_autofree float *dsh = g_new (float, (gsize) 2 * N * local);
  for (int p = 0; p < 2; p++)
    exec_cpu_ce_backward (dsh + (gsize) p * N * local, sh + (gsize) p * N * local, lse2,
                          targets, p * local, p ? V - local : local, local, N, 1.0f / N);
  for (int t = 0; t < N; t++)
    {
      g_assert_cmpfloat (dsh[(gsize) N * local + t * local + 3], ==, 0.0f);   /* padding */
      for (int i = 0; i < V; i++)
        g_assert_cmpfloat (fabs (dsh[(gsize) (i / local) * N * local + t * local + i % local]
                                 - dl[t * V + i]), <=, 1e-6);
    }
  g_free (c.logits);
}

/* ---- optimizer ------------------------------------------------------------------------ */

/* AdamW, lr 0.1, betas (0.9, 0.999), eps 1e-8, weight decay 0.01, p = 1, g = 0.5 twice.
 * Step 1: m = 0.05, v = 0.00025, m^ = 0.05 / 0.1 = 0.5, v^ = 0.00025 / 0.001 = 0.25,
 *   p = 1 - 0.1 x 0.01 x 1 - 0.1 x 0.5 / (0.5 + 1e-8) = 0.899.
 * Step 2: m = 0.095, v = 0.00049975, m^ = 0.095 / 0.19 = 0.5, v^ = 0.00049975 / 0.001999
 *   = 0.25, p = 0.899 - 0.1 x 0.01 x 0.899 - 0.1 = 0.798101.
 * Moments after step 2: m = 0.095, and v = 0.00049975 in exact arithmetic; in FP32
 * 1 - 0.999f = 0.000999987 (0.999f = 0.99900001), so v = 0.999f x 0.000999987 x 0.25 +
 * 0.000999987 x 0.25 = 0.00049974. (The bias corrections cancel the same factor, so p
 * keeps its exact value to 1e-6.) */
static void
test_adamw (void)
{
  ExecAdamW hp = { .lr = 0.1f, .beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-8f,
                   .weight_decay = 0.01f };
  float p = 1, g = 0.5f, m = 0, v = 0;
  exec_adamw_step (NULL, &hp, 1, &p, &g, &m, &v, 1);
  g_assert_cmpfloat_with_epsilon (p, 0.899, 1e-6);
  exec_adamw_step (NULL, &hp, 2, &p, &g, &m, &v, 1);
  g_assert_cmpfloat_with_epsilon (p, 0.798101, 1e-6);
  g_assert_cmpfloat_with_epsilon (m, 0.095, 1e-7);
  g_assert_cmpfloat_with_epsilon (v, 0.00049974, 1e-8);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/exec/gemm/naive", test_gemm);
  g_test_add_func ("/exec/rmsnorm/backward", test_rmsnorm_backward);
  g_test_add_func ("/exec/rope/adjoint", test_rope_adjoint);
  g_test_add_func ("/exec/attention/backward", test_attention_backward);
  g_test_add_func ("/exec/attention/cp-chunks", test_attention_cp);
  g_test_add_func ("/exec/swiglu/backward", test_swiglu_backward);
  g_test_add_func ("/exec/loss/backward", test_loss_backward);
  g_test_add_func ("/exec/adamw/step", test_adamw);
  return g_test_run ();
}
