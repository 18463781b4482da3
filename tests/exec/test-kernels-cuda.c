/* tests/exec/test-kernels-cuda.c - every kernel of the cuda backend's ExecKernels table
 * against the CPU reference exec_kernels_cpu (the oracle: llm.c, dav1d checkasm), on the
 * same seeded inputs. Shapes are small and odd (C = 300 > one block of 256 threads,
 * head_dim = 40 not a multiple of 32) so the edges of every loop run. Accumulating
 * outputs start from random values, so "+=" is checked too.
 *
 * Skips without a device (check-cuda.h); tolerance TOL_F32 = 1e-5 relative (derivation in
 * check-cuda.h) unless a result is a plain copy, which must be exact. */
#include "check-cuda.h"
#include "exec/moe.h"

static float *
copyv (const float *v, gsize n)
{
  return g_memdup2 (v, n * sizeof (float));
}

/* out = beta out + inp w^T for beta 0 and 1; dinp = dinp + dout w, dw += dout^T inp */
static void
test_matmul (void)
{
  if (!have_gpu ())
    return;
  g_autoptr (GRand) r = seeded (31);
  int N = 13, C = 70, OC = 33;
  g_autofree float *inp = randv (r, (gsize) N * C, -1, 1), *w = randv (r, (gsize) OC * C, -1, 1);
  g_autofree float *out0 = randv (r, (gsize) N * OC, -1, 1);
  float *dinp_ = up (inp, (gsize) N * C * 4), *dw_ = up (w, (gsize) OC * C * 4);
  for (int beta = 0; beta < 2; beta++)
    {
      g_autofree float *want = copyv (out0, (gsize) N * OC);
      float *d = up (out0, (gsize) N * OC * 4);
      exec_cpu_matmul_forward (want, inp, w, N, C, OC, (float) beta);
      kernels ()->matmul_forward (compute, d, dinp_, dw_, N, C, OC, (float) beta);
      g_autofree float *got = down (d, (gsize) N * OC);
      assert_close ("matmul_forward", got, want, (gsize) N * OC, TOL_F32);
    }
  g_autofree float *dout = randv (r, (gsize) N * OC, -1, 1);
  g_autofree float *gi = randv (r, (gsize) N * C, -1, 1), *gw = randv (r, (gsize) OC * C, -1, 1);
  float *d_gi = up (gi, (gsize) N * C * 4), *d_gw = up (gw, (gsize) OC * C * 4);
  exec_cpu_matmul_backward (gi, gw, dout, inp, w, N, C, OC, 1.0f);
  kernels ()->matmul_backward (compute, d_gi, d_gw, up (dout, (gsize) N * OC * 4), dinp_, dw_,
                               N, C, OC, 1.0f);
  g_autofree float *got_i = down (d_gi, (gsize) N * C), *got_w = down (d_gw, (gsize) OC * C);
  assert_close ("matmul_backward dinp", got_i, gi, (gsize) N * C, TOL_F32);
  assert_close ("matmul_backward dw", got_w, gw, (gsize) OC * C, TOL_F32);
}

static void
test_rmsnorm (void)
{
  if (!have_gpu ())
    return;
  g_autoptr (GRand) r = seeded (32);
  int N = 40, C = 300;
  gsize nc = (gsize) N * C;
  g_autofree float *x = randv (r, nc, -2, 2), *w = randv (r, C, 0.5, 1.5);
  g_autofree float *out = g_new (float, nc), *rstd = g_new (float, N);
  exec_cpu_rmsnorm_forward (out, rstd, x, w, N, C, 1e-5f);
  float *dx = up (x, nc * 4), *dw = up (w, C * 4), *dout_ = up (out, nc * 4);
  float *drstd = up (rstd, N * 4);
  kernels ()->rmsnorm_forward (compute, dout_, drstd, dx, dw, N, C, 1e-5f);
  g_autofree float *got = down (dout_, nc), *got_r = down (drstd, N);
  assert_close ("rmsnorm_forward out", got, out, nc, TOL_F32);
  assert_close ("rmsnorm_forward rstd", got_r, rstd, N, TOL_F32);

  g_autofree float *dy = randv (r, nc, -1, 1), *gx = randv (r, nc, -1, 1);
  g_autofree float *gw = randv (r, C, -1, 1);
  float *d_gx = up (gx, nc * 4), *d_gw = up (gw, C * 4);
  exec_cpu_rmsnorm_backward (gx, gw, dy, x, w, rstd, N, C);
  kernels ()->rmsnorm_backward (compute, d_gx, d_gw, up (dy, nc * 4), dx, dw, drstd, N, C);
  g_autofree float *got_x = down (d_gx, nc), *got_w = down (d_gw, C);
  assert_close ("rmsnorm_backward dinp", got_x, gx, nc, TOL_F32);
  assert_close ("rmsnorm_backward dw", got_w, gw, C, TOL_F32);
}

/* Positions from host memory (staged by the backend), from device memory, and NULL. */
static void
test_rope (void)
{
  if (!have_gpu ())
    return;
  g_autoptr (GRand) r = seeded (33);
  int B = 2, T = 5, H = 3, D = 16;
  gsize n = (gsize) B * T * H * D;
  int pos[5] = { 3, 9, 0, 17, 4 };
  const int *dpos = up (pos, sizeof pos);
  g_autofree float *x = randv (r, n, -1, 1);
  for (int variant = 0; variant < 3; variant++)
    {
      const int *hp = variant == 2 ? NULL : pos, *gp = variant == 0 ? pos : variant == 1 ? dpos : NULL;
      g_autofree float *want = copyv (x, n);
      float *d = up (x, n * 4);
      exec_cpu_rope_forward (want, hp, B, T, H, D, 10000.0f);
      kernels ()->rope_forward (compute, d, gp, B, T, H, D, 10000.0f);
      g_autofree float *got = down (d, n);
      assert_close ("rope_forward", got, want, n, TOL_F32);
      exec_cpu_rope_backward (want, hp, B, T, H, D, 10000.0f);
      kernels ()->rope_backward (compute, d, gp, B, T, H, D, 10000.0f);
      g_autofree float *back = down (d, n);
      assert_close ("rope_backward", back, want, n, TOL_F32);
    }
}

/* Two K/V chunks merged into one result, GQA 4:2, head_dim 40, positions as for context
 * parallelism: queries 5..7 see none of the second chunk (keys 8..15), so that path is
 * taken; then the backward over both chunks (dq accumulates across them). */
static void
test_attention_chunks (void)
{
  if (!have_gpu ())
    return;
  g_autoptr (GRand) r = seeded (34);
  ExecAttnDims d = { .B = 2, .Tq = 6, .Tk = 5, .n_head = 4, .n_kv_head = 2, .head_dim = 40 };
  gsize nq = (gsize) d.B * d.Tq * d.n_head * d.head_dim;
  gsize nk = (gsize) d.B * d.Tk * d.n_kv_head * d.head_dim, rows = (gsize) d.B * d.n_head * d.Tq;
  int q_pos[6] = { 5, 6, 7, 12, 13, 14 }, pa[5] = { 0, 1, 2, 3, 4 }, pb[5] = { 8, 9, 10, 11, 15 };
  g_autofree float *q = randv (r, nq, -1, 1), *ka = randv (r, nk, -1, 1), *va = randv (r, nk, -1, 1);
  g_autofree float *kb = randv (r, nk, -1, 1), *vb = randv (r, nk, -1, 1);
  g_autofree float *out = g_new (float, nq), *lse = g_new (float, rows);
  exec_cpu_attn_init (out, lse, &d);
  exec_cpu_attn_forward (out, lse, q, q_pos, ka, va, pa, &d);
  exec_cpu_attn_forward (out, lse, q, q_pos, kb, vb, pb, &d);

  float *dq_ = up (q, nq * 4), *dka = up (ka, nk * 4), *dva = up (va, nk * 4);
  float *dkb = up (kb, nk * 4), *dvb = up (vb, nk * 4);
  float *dout_ = up (out, nq * 4), *dlse = up (lse, rows * 4);
  const int *dq_pos = up (q_pos, sizeof q_pos), *dpb = up (pb, sizeof pb);
  const ExecKernels *k = kernels ();
  k->attn_init (compute, dout_, dlse, &d);
  k->attn_forward (compute, dout_, dlse, dq_, q_pos, dka, dva, pa, &d);   /* host positions */
  k->attn_forward (compute, dout_, dlse, dq_, dq_pos, dkb, dvb, dpb, &d); /* device positions */
  g_autofree float *got = down (dout_, nq), *got_lse = down (dlse, rows);
  assert_close ("attn_forward out", got, out, nq, TOL_F32);
  assert_close ("attn_forward lse", got_lse, lse, rows, TOL_F32);

  g_autofree float *dy = randv (r, nq, -1, 1), *delta = g_new0 (float, rows);
  g_autofree float *gq = g_new0 (float, nq), *gka = g_new0 (float, nk), *gva = g_new0 (float, nk);
  g_autofree float *gkb = g_new0 (float, nk), *gvb = g_new0 (float, nk);
  float *d_dy = up (dy, nq * 4), *d_delta = up (delta, rows * 4), *d_gq = up (gq, nq * 4);
  float *d_gka = up (gka, nk * 4), *d_gva = up (gva, nk * 4), *d_gkb = up (gkb, nk * 4);
  float *d_gvb = up (gvb, nk * 4);
  exec_cpu_attn_backward_prep (delta, out, dy, &d);
  exec_cpu_attn_backward (gq, gka, gva, dy, delta, lse, q, q_pos, ka, va, pa, &d);
  exec_cpu_attn_backward (gq, gkb, gvb, dy, delta, lse, q, q_pos, kb, vb, pb, &d);
  k->attn_backward_prep (compute, d_delta, dout_, d_dy, &d);
  k->attn_backward (compute, d_gq, d_gka, d_gva, d_dy, d_delta, dlse, dq_, dq_pos, dka, dva,
                    pa, &d);
  k->attn_backward (compute, d_gq, d_gkb, d_gvb, d_dy, d_delta, dlse, dq_, q_pos, dkb, dvb,
                    dpb, &d);
  g_autofree float *g_delta = down (d_delta, rows), *g_q = down (d_gq, nq);
  g_autofree float *g_ka = down (d_gka, nk), *g_va = down (d_gva, nk);
  g_autofree float *g_kb = down (d_gkb, nk), *g_vb = down (d_gvb, nk);
  assert_close ("attn_backward_prep delta", g_delta, delta, rows, TOL_F32);
  assert_close ("attn_backward dq", g_q, gq, nq, TOL_F32);
  assert_close ("attn_backward dk (chunk a)", g_ka, gka, nk, TOL_F32);
  assert_close ("attn_backward dv (chunk a)", g_va, gva, nk, TOL_F32);
  assert_close ("attn_backward dk (chunk b)", g_kb, gkb, nk, TOL_F32);
  assert_close ("attn_backward dv (chunk b)", g_vb, gvb, nk, TOL_F32);
}

/* Self-attention as a llama layer runs it: head_dim 128, GQA 8:1, 33 tokens, no
 * positions (0 .. T - 1). Sums of <= 33 terms of 128-long dot products. */
static void
test_attention_self (void)
{
  if (!have_gpu ())
    return;
  g_autoptr (GRand) r = seeded (35);
  ExecAttnDims d = { .B = 1, .Tq = 33, .Tk = 33, .n_head = 8, .n_kv_head = 1, .head_dim = 128 };
  gsize nq = (gsize) d.B * d.Tq * d.n_head * d.head_dim;
  gsize nk = (gsize) d.B * d.Tk * d.n_kv_head * d.head_dim, rows = (gsize) d.B * d.n_head * d.Tq;
  g_autofree float *q = randv (r, nq, -1, 1), *kk = randv (r, nk, -1, 1), *v = randv (r, nk, -1, 1);
  g_autofree float *dy = randv (r, nq, -1, 1);
  g_autofree float *out = g_new (float, nq), *lse = g_new (float, rows), *delta = g_new (float, rows);
  g_autofree float *gq = g_new0 (float, nq), *gk = g_new0 (float, nk), *gv = g_new0 (float, nk);
  /* the gradients go up while still zero: both sides accumulate from 0 */
  float *d_q = up (q, nq * 4), *d_k = up (kk, nk * 4), *d_v = up (v, nk * 4);
  float *d_dy = up (dy, nq * 4), *d_gq = up (gq, nq * 4), *d_gk = up (gk, nk * 4);
  float *d_gv = up (gv, nk * 4);
  exec_cpu_attn_init (out, lse, &d);
  exec_cpu_attn_forward (out, lse, q, NULL, kk, v, NULL, &d);
  exec_cpu_attn_backward_prep (delta, out, dy, &d);
  exec_cpu_attn_backward (gq, gk, gv, dy, delta, lse, q, NULL, kk, v, NULL, &d);
  float *d_out = up (out, nq * 4), *d_lse = up (lse, rows * 4), *d_delta = up (delta, rows * 4);
  const ExecKernels *k = kernels ();
  k->attn_init (compute, d_out, d_lse, &d);
  k->attn_forward (compute, d_out, d_lse, d_q, NULL, d_k, d_v, NULL, &d);
  k->attn_backward_prep (compute, d_delta, d_out, d_dy, &d);
  k->attn_backward (compute, d_gq, d_gk, d_gv, d_dy, d_delta, d_lse, d_q, NULL, d_k, d_v, NULL,
                    &d);
  g_autofree float *g_out = down (d_out, nq), *g_q = down (d_gq, nq);
  g_autofree float *g_k = down (d_gk, nk), *g_v = down (d_gv, nk);
  assert_close ("self attention out", g_out, out, nq, TOL_F32);
  assert_close ("self attention dq", g_q, gq, nq, TOL_F32);
  assert_close ("self attention dk", g_k, gk, nk, TOL_F32);
  assert_close ("self attention dv", g_v, gv, nk, TOL_F32);
}

static void
test_swiglu (void)
{
  if (!have_gpu ())
    return;
  g_autoptr (GRand) r = seeded (36);
  gsize n = 1000;
  g_autofree float *gate = randv (r, n, -4, 4), *upv = randv (r, n, -2, 2);
  g_autofree float *dh = randv (r, n, -1, 1);
  g_autofree float *h = g_new (float, n), *dg = g_new (float, n), *du = g_new (float, n);
  exec_cpu_swiglu_forward (h, gate, upv, n);
  exec_cpu_swiglu_backward (dg, du, dh, gate, upv, n);
  float *d_gate = up (gate, n * 4), *d_up = up (upv, n * 4), *d_h = up (h, n * 4);
  float *d_dg = up (dg, n * 4), *d_du = up (du, n * 4);
  kernels ()->swiglu_forward (compute, d_h, d_gate, d_up, n);
  kernels ()->swiglu_backward (compute, d_dg, d_du, up (dh, n * 4), d_gate, d_up, n);
  g_autofree float *g_h = down (d_h, n), *g_g = down (d_dg, n), *g_u = down (d_du, n);
  assert_close ("swiglu_forward", g_h, h, n, TOL_F32);
  assert_close ("swiglu_backward dgate", g_g, dg, n, TOL_F32);
  assert_close ("swiglu_backward dup", g_u, du, n, TOL_F32);
}

/* This shard holds vocab rows 10..17; tokens 3, 9, 18, 25 are elsewhere (rows of zeros)
 * and 10, 12, 17 repeat (their gradients add up). The forward is a copy: exact. */
static void
test_embedding (void)
{
  if (!have_gpu ())
    return;
  g_autoptr (GRand) r = seeded (37);
  int start = 10, local = 8, N = 12, C = 37;
  int tokens[12] = { 10, 17, 3, 25, 12, 12, 17, 10, 11, 18, 9, 16 };
  g_autofree float *wte = randv (r, (gsize) local * C, -1, 1);
  g_autofree float *dout = randv (r, (gsize) N * C, -1, 1);
  g_autofree float *dwte = randv (r, (gsize) local * C, -1, 1);
  g_autofree float *out = g_new (float, (gsize) N * C);
  exec_cpu_embed_forward (out, tokens, wte, start, local, N, C);
  float *d_out = up (out, (gsize) N * C * 4), *d_dwte = up (dwte, (gsize) local * C * 4);
  const int *d_tok = up (tokens, sizeof tokens);
  kernels ()->fill (compute, d_out, -1.0f, (gsize) N * C);
  kernels ()->embed_forward (compute, d_out, d_tok, up (wte, (gsize) local * C * 4), start,
                             local, N, C);
  g_autofree float *got = down (d_out, (gsize) N * C);
  g_assert_cmpmem (got, (gsize) N * C * 4, out, (gsize) N * C * 4);
  exec_cpu_embed_backward (dwte, dout, tokens, start, local, N, C);
  kernels ()->embed_backward (compute, d_dwte, up (dout, (gsize) N * C * 4), tokens, start,
                              local, N, C);   /* host tokens: staged */
  g_autofree float *g_dwte = down (d_dwte, (gsize) local * C);
  assert_close ("embed_backward", g_dwte, dwte, (gsize) local * C, TOL_F32);
}

/* A shard of 11 columns (rows 20..30) of which 9 are real; targets in the shard (20, 28),
 * in its padding (29: no logit), in another shard (5) and ignored (-1). */
static void
test_cross_entropy (void)
{
  if (!have_gpu ())
    return;
  g_autoptr (GRand) r = seeded (38);
  int N = 5, start = 20, valid = 9, local = 11, n_parts = 3;
  int targets[5] = { 20, 28, 29, 5, -1 };
  gsize nl = (gsize) N * local;
  g_autofree float *logits = randv (r, nl, -3, 3);
  g_autofree float *lse_part = g_new (float, N), *tgt_part = g_new (float, N);
  exec_cpu_ce_forward (lse_part, tgt_part, logits, targets, start, valid, local, N);
  float *d_logits = up (logits, nl * 4), *d_lp = up (lse_part, N * 4), *d_tp = up (tgt_part, N * 4);
  const int *d_tg = up (targets, sizeof targets);
  kernels ()->ce_forward (compute, d_lp, d_tp, d_logits, d_tg, start, valid, local, N);
  g_autofree float *g_lp = down (d_lp, N), *g_tp = down (d_tp, N);
  assert_close ("ce_forward lse_part", g_lp, lse_part, N, TOL_F32);
  assert_close ("ce_forward tgt_part", g_tp, tgt_part, N, TOL_F32);

  /* three shards' parts, one of them empty (-inf) for token 2 */
  g_autofree float *parts = randv (r, (gsize) n_parts * N, -1, 4), *tgt_sum = randv (r, N, -2, 2);
  parts[1 * N + 2] = -INFINITY;
  g_autofree float *lse = g_new (float, N), *loss = g_new (float, N);
  exec_cpu_ce_combine (lse, loss, parts, n_parts, tgt_sum, targets, N);
  float *d_lse = up (lse, N * 4), *d_loss = up (loss, N * 4);
  kernels ()->ce_combine (compute, d_lse, d_loss, up (parts, (gsize) n_parts * N * 4), n_parts,
                          up (tgt_sum, N * 4), targets, N);
  g_autofree float *g_lse = down (d_lse, N), *g_loss = down (d_loss, N);
  assert_close ("ce_combine lse", g_lse, lse, N, TOL_F32);
  assert_close ("ce_combine loss", g_loss, loss, N, TOL_F32);

  /* the gradient with this shard's own lse as the full one */
  g_autofree float *dl = g_new (float, nl);
  exec_cpu_ce_backward (dl, logits, lse_part, targets, start, valid, local, N, 0.125f);
  float *d_dl = up (dl, nl * 4);
  kernels ()->fill (compute, d_dl, 7.0f, nl);
  kernels ()->ce_backward (compute, d_dl, d_logits, d_lp, d_tg, start, valid, local, N, 0.125f);
  g_autofree float *g_dl = down (d_dl, nl);
  assert_close ("ce_backward", g_dl, dl, nl, TOL_F32);
}

/* Step 3 of AdamW (bias corrections 1 - 0.9^3, 1 - 0.95^3) with weight decay 0.1. */
static void
test_adamw (void)
{
  if (!have_gpu ())
    return;
  g_autoptr (GRand) r = seeded (39);
  gsize n = 1000;
  ExecAdamW hp = { .lr = 1e-3f, .beta1 = 0.9f, .beta2 = 0.95f, .eps = 1e-8f,
                   .weight_decay = 0.1f };
  g_autofree float *p = randv (r, n, -1, 1), *g = randv (r, n, -1, 1);
  g_autofree float *m = randv (r, n, -0.1, 0.1), *v = randv (r, n, 0, 0.01);
  float *d_p = up (p, n * 4), *d_m = up (m, n * 4), *d_v = up (v, n * 4);
  exec_cpu_adamw (p, g, m, v, n, &hp, 3);
  kernels ()->adamw (compute, d_p, up (g, n * 4), d_m, d_v, n, &hp, 3);
  g_autofree float *g_p = down (d_p, n), *g_m = down (d_m, n), *g_v = down (d_v, n);
  assert_close ("adamw param", g_p, p, n, TOL_F32);
  assert_close ("adamw m", g_m, m, n, TOL_F32);
  assert_close ("adamw v", g_v, v, n, TOL_F32);
}

/* copy, fill and add are exact: one correctly rounded FP32 operation per element */
static void
test_copy_fill_add (void)
{
  if (!have_gpu ())
    return;
  g_autoptr (GRand) r = seeded (40);
  gsize n = 777;
  g_autofree float *a = randv (r, n, -1, 1), *b = randv (r, n, -1, 1);
  g_autofree float *sum = g_new (float, n), *ones = g_new (float, n), *zeros = g_new0 (float, n);
  for (gsize i = 0; i < n; i++)
    {
      sum[i] = a[i] + b[i];
      ones[i] = 1.5f;
    }
  float *d_a = up (a, n * 4), *d_b = up (b, n * 4), *d_c = up (b, n * 4), *d_s = up (b, n * 4);
  const ExecKernels *k = kernels ();
  k->copy (compute, d_c, d_a, n);
  k->add (compute, d_s, d_a, d_b, n);
  g_autofree float *g_c = down (d_c, n), *g_s = down (d_s, n);
  g_assert_cmpmem (g_c, n * 4, a, n * 4);
  g_assert_cmpmem (g_s, n * 4, sum, n * 4);
  k->fill (compute, d_c, 1.5f, n);
  g_autofree float *g_f = down (d_c, n);
  g_assert_cmpmem (g_f, n * 4, ones, n * 4);
  k->fill (compute, d_c, 0.0f, n);
  g_autofree float *g_z = down (d_c, n);
  g_assert_cmpmem (g_z, n * 4, zeros, n * 4);
}

/* The MoE routing kernels: N 37 tokens, E 10 experts, top-3, C 300; some logits tie (rows
 * with equal values: the lower expert first), so idx and pos must be equal exactly; probs,
 * weights and the combine within TOL_F32 (device expf). */
static void
test_moe (void)
{
  if (!have_gpu ())
    return;
  g_autoptr (GRand) r = seeded (39);
  int N = 37, E = 10, k = 3, C = 300, Nk = N * k;
  g_autofree float *logits = randv (r, (gsize) N * E, -3, 3);
  for (int e = 0; e < E; e++)
    logits[e] = 1.0f;   /* token 0: all tied */
  g_autofree float *x = randv (r, (gsize) N * C, -1, 1), *dout = randv (r, (gsize) N * C, -1, 1);
  g_autofree float *dwts_in = randv (r, (gsize) Nk, -1, 1);
  for (int norm = 0; norm < 2; norm++)
    {
      g_autofree float *probs = g_new (float, (gsize) N * E), *wts = g_new (float, Nk);
      g_autofree int *idx = g_new (int, Nk), *pos = g_new (int, Nk);
      g_autofree float *xp = g_new (float, (gsize) Nk * C), *cnt = g_new (float, E);
      g_autofree float *out = randv (r, (gsize) N * C, -1, 1), *dl = g_new (float, (gsize) N * E);
      g_autofree float *dxp = g_new (float, (gsize) Nk * C), *dw = g_new (float, Nk);
      float *d_probs = up (probs, (gsize) N * E * 4), *d_wts = up (wts, Nk * 4);
      int *d_idx = up (idx, Nk * 4), *d_pos = up (pos, Nk * 4);
      float *d_xp = up (xp, (gsize) Nk * C * 4), *d_cnt = up (cnt, E * 4);
      float *d_out = up (out, (gsize) N * C * 4), *d_dl = up (dl, (gsize) N * E * 4);
      float *d_dxp = up (dxp, (gsize) Nk * C * 4), *d_dw = up (dw, Nk * 4);
      float *d_x = up (x, (gsize) N * C * 4), *d_dout = up (dout, (gsize) N * C * 4);
      exec_cpu_moe_topk (probs, idx, wts, logits, N, E, k, norm);
      kernels ()->moe_topk (compute, d_probs, d_idx, d_wts, up (logits, (gsize) N * E * 4), N,
                            E, k, norm);
      exec_cpu_moe_permute (xp, pos, cnt, idx, x, N, k, E, C);
      kernels ()->moe_permute (compute, d_xp, d_pos, d_cnt, d_idx, d_x, N, k, E, C);
      exec_cpu_moe_unpermute (out, xp, pos, wts, N, k, C, 1.0f);
      kernels ()->moe_unpermute (compute, d_out, d_xp, d_pos, d_wts, N, k, C, 1.0f);
      exec_cpu_moe_combine_backward (dxp, dw, dout, xp, pos, wts, N, k, C);
      kernels ()->moe_combine_backward (compute, d_dxp, d_dw, d_dout, d_xp, d_pos, d_wts, N, k,
                                        C);
      exec_cpu_moe_topk_backward (dl, dwts_in, probs, idx, wts, N, E, k, norm);
      kernels ()->moe_topk_backward (compute, d_dl, up (dwts_in, Nk * 4), d_probs, d_idx, d_wts,
                                     N, E, k, norm);
      g_autofree int *g_idx = (int *) down ((float *) d_idx, Nk);
      g_autofree int *g_pos = (int *) down ((float *) d_pos, Nk);
      g_assert_cmpmem (g_idx, Nk * 4, idx, Nk * 4);
      g_assert_cmpmem (g_pos, Nk * 4, pos, Nk * 4);
      g_autofree float *g_cnt = down (d_cnt, E), *g_xp = down (d_xp, (gsize) Nk * C);
      g_assert_cmpmem (g_cnt, E * 4, cnt, E * 4);
      g_assert_cmpmem (g_xp, (gsize) Nk * C * 4, xp, (gsize) Nk * C * 4);   /* copies */
      g_autofree float *g_probs = down (d_probs, (gsize) N * E), *g_wts = down (d_wts, Nk);
      g_autofree float *g_out = down (d_out, (gsize) N * C), *g_dl = down (d_dl, (gsize) N * E);
      g_autofree float *g_dxp = down (d_dxp, (gsize) Nk * C), *g_dw = down (d_dw, Nk);
      assert_close ("moe_topk probs", g_probs, probs, (gsize) N * E, TOL_F32);
      assert_close ("moe_topk wts", g_wts, wts, Nk, TOL_F32);
      assert_close ("moe_unpermute", g_out, out, (gsize) N * C, TOL_F32);
      assert_close ("moe_combine_backward dxp", g_dxp, dxp, (gsize) Nk * C, TOL_F32);
      assert_close ("moe_combine_backward dwts", g_dw, dw, Nk, TOL_F32);
      assert_close ("moe_topk_backward", g_dl, dl, (gsize) N * E, TOL_F32);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  cuda_fixture_open ();
  g_test_add_func ("/exec/cuda/kernels/matmul", test_matmul);
  g_test_add_func ("/exec/cuda/kernels/rmsnorm", test_rmsnorm);
  g_test_add_func ("/exec/cuda/kernels/rope", test_rope);
  g_test_add_func ("/exec/cuda/kernels/attention-chunks", test_attention_chunks);
  g_test_add_func ("/exec/cuda/kernels/attention-self", test_attention_self);
  g_test_add_func ("/exec/cuda/kernels/swiglu", test_swiglu);
  g_test_add_func ("/exec/cuda/kernels/embedding", test_embedding);
  g_test_add_func ("/exec/cuda/kernels/cross-entropy", test_cross_entropy);
  g_test_add_func ("/exec/cuda/kernels/adamw", test_adamw);
  g_test_add_func ("/exec/cuda/kernels/copy-fill-add", test_copy_fill_add);
  g_test_add_func ("/exec/cuda/kernels/moe", test_moe);
  int rc = g_test_run ();
  cuda_fixture_close ();
  return rc;
}
