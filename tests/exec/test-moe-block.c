/* tests/exec/test-moe-block.c - the MoE block (exec/moe.h) on one rank: routing by hand, the
 * forward against a naive double-precision reference (moe-ref.h), every gradient against
 * central finite differences of that reference, and the block on the device-emulation
 * backend (buffers the host cannot read: the count download path) bit for bit against
 * host memory. */
#include "devsim-backend.h"
#include "moe-ref.h"

/* ---- routing by hand -------------------------------------------------------------------- */

/* Row 0: logits (1, 3, 3, 0), k 2: experts 1 and 2 tie, both taken, 1 first (lower index);
 * normalised weights p1 / (p1 + p2) = 1/2 each. Row 1: all equal, k 2: experts 0, 1; weights
 * 1/2 normalised, 1/4 = softmax of 4 equal logits without. */
static void
test_topk_ties (void)
{
  float logits[8] = { 1, 3, 3, 0, 2, 2, 2, 2 }, probs[8], wts[4];
  int idx[4];
  exec_cpu_moe_topk (probs, idx, wts, logits, 2, 4, 2, TRUE);
  g_assert_cmpint (idx[0], ==, 1);
  g_assert_cmpint (idx[1], ==, 2);
  g_assert_cmpint (idx[2], ==, 0);
  g_assert_cmpint (idx[3], ==, 1);
  for (int i = 0; i < 4; i++)
    g_assert_cmpfloat_with_epsilon (wts[i], 0.5, 1e-7);
  /* softmax (1, 3, 3, 0): e^3 / (e + 2 e^3 + 1) = 0.46831 */
  double e3 = exp (3.0) / (exp (1.0) + 2 * exp (3.0) + 1);
  g_assert_cmpfloat_with_epsilon (probs[1], e3, 1e-6);
  exec_cpu_moe_topk (probs, idx, wts, logits, 2, 4, 2, FALSE);
  g_assert_cmpfloat_with_epsilon (wts[0], e3, 1e-6);
  g_assert_cmpfloat_with_epsilon (wts[2], 0.25, 1e-7);
  /* in place (logits == probs), as the block calls it */
  exec_cpu_moe_topk (logits, idx, wts, logits, 2, 4, 2, TRUE);
  g_assert_cmpfloat_with_epsilon (logits[1], e3, 1e-6);
  g_assert_cmpfloat_with_epsilon (logits[4], 0.25, 1e-7);
}

/* N 3, k 2, idx ((2, 0), (0, 1), (2, 1)): counts (2, 2, 2). Expert order, token order
 * inside an expert: e0 <- a1 (n0), a2 (n1); e1 <- a3 (n1), a5 (n2); e2 <- a0 (n0), a4 (n2),
 * so pos = (4, 0, 1, 2, 5, 3) and row p of xp is token pos^-1 (p) / k. */
static void
test_permute_by_hand (void)
{
  const int idx[6] = { 2, 0, 0, 1, 2, 1 }, want_pos[6] = { 4, 0, 1, 2, 5, 3 };
  const float x[6] = { 10, 11, 20, 21, 30, 31 };   /* 3 tokens, C 2 */
  const float want_xp[12] = { 10, 11, 20, 21, 20, 21, 30, 31, 10, 11, 30, 31 };
  float xp[12], counts[3], back[6];
  int pos[6];
  exec_cpu_moe_permute (xp, pos, counts, idx, x, 3, 2, 3, 2);
  for (int e = 0; e < 3; e++)
    g_assert_cmpfloat (counts[e], ==, 2);
  g_assert_cmpmem (pos, sizeof pos, want_pos, sizeof want_pos);
  g_assert_cmpmem (xp, sizeof xp, want_xp, sizeof want_xp);
  /* unpermute with weights (0.25, 0.75) each: every token comes back as itself */
  const float w[6] = { 0.25f, 0.75f, 0.25f, 0.75f, 0.25f, 0.75f };
  exec_cpu_moe_unpermute (back, xp, pos, w, 3, 2, 2, 0.0f);
  g_assert_cmpmem (back, sizeof back, x, sizeof x);
}

/* ---- the block against the reference ------------------------------------------------- */

typedef struct {
  ExecMoeShape   s;
  float         *wmem, *gmem, *amem, *scratch, *x, *out, *dout, *dx;
  int           *rmem;
  ExecMoeWeights w, g;
  ExecMoeActs    a;
  ExecMoeRoute   route;
} Block;

static void
block_init (Block *b, int N, int C, int E, int k, int F, int S, gboolean norm_topk,
            guint64 seed)
{
  g_autoptr (GError) error = NULL;
  memset (b, 0, sizeof *b);
  g_assert_true (exec_moe_shape_init (&b->s, N, C, E, k, F, 1, 0, &error));
  g_assert_true (exec_moe_shape_set_shared (&b->s, S, &error));
  b->s.norm_topk = norm_topk;
  gsize nw = exec_moe_weights_size (&b->s);
  b->wmem = g_new0 (float, nw);
  b->gmem = g_new0 (float, nw);
  exec_moe_weights_bind (&b->w, &b->s, b->wmem);
  exec_moe_weights_bind (&b->g, &b->s, b->gmem);
  moe_test_weights (&b->w, &b->s, seed, 25.0f);
  b->amem = g_new0 (float, exec_moe_acts_size (&b->s));
  exec_moe_acts_bind (&b->a, &b->s, b->amem);
  b->rmem = g_new0 (int, exec_moe_route_size (&b->s));
  exec_moe_route_bind (&b->route, &b->s, b->rmem);
  b->scratch = g_new0 (float, exec_moe_scratch_size (&b->s));
  gsize NC = (gsize) N * C;
  b->x = g_new (float, NC);
  b->out = g_new (float, NC);
  b->dout = g_new (float, NC);
  b->dx = g_new (float, NC);
  moe_test_tokens (b->x, 0, N, C, seed);
  for (gsize i = 0; i < NC; i++)
    b->dout[i] = exec_init_value (seed + 7, i, 1.0f);
}

static void
block_clear (Block *b)
{
  g_free (b->wmem);
  g_free (b->gmem);
  g_free (b->amem);
  g_free (b->rmem);
  g_free (b->scratch);
  g_free (b->x);
  g_free (b->out);
  g_free (b->dout);
  g_free (b->dx);
}

static void
block_run (Block *b, gboolean residual)
{
  g_autoptr (GError) error = NULL;
  ExecMoeCtx ctx = { 0 };   /* host memory, CPU kernels, no group */
  g_assert_true (exec_moe_forward (&ctx, &b->s, &b->w, b->x, residual, &b->a, &b->route,
                                   b->out, b->scratch, &error));
  g_assert_no_error (error);
  g_assert_true (exec_moe_backward (&ctx, &b->s, &b->w, &b->g, b->x, residual, &b->a,
                                    &b->route, b->dout, b->dx, b->scratch, &error));
  g_assert_no_error (error);
}

/* The smallest gap between the k-th and (k+1)-th probability over the tokens: finite
 * differences of step h move a probability by far less than this, so the choice of
 * experts is the same on both sides and the reference is differentiable there. */
static double
min_topk_gap (const Block *b)
{
  double gap = 1;
  for (int n = 0; n < b->s.N; n++)
    {
      const float *p = b->a.probs + (gsize) n * b->s.E;
      float kth = p[b->a.idx[n * b->s.k + b->s.k - 1]], next = -1;
      for (int e = 0; e < b->s.E; e++)
        {
          gboolean chosen = FALSE;
          for (int j = 0; j < b->s.k; j++)
            chosen |= b->a.idx[n * b->s.k + j] == e;
          if (!chosen)
            next = MAX (next, p[e]);
        }
      if (next >= 0)
        gap = MIN (gap, kth - next);
    }
  return gap;
}

/* |analytic - central difference| <= 1e-5 max |central difference| of the tensor + 1e-6:
 * FP32 rounding over sums of C = 32 and F = 24 terms leaves a few 1e-7 relative (measured:
 * 2e-7 of the largest entry at worst), h = 1e-4 in double leaves O(h^2) ~ 1e-8; a wrong
 * term (a missing softmax or normalisation path) is off by O(1) relative. */
static void
check_grad (const char *what, const MoeRef *m, double *param, const float *grad, gsize n,
            const double *xd, int N, gboolean residual, const double *r)
{
  const double h = 1e-4;
  g_autofree double *fd = g_new (double, n);
  double mx = 0;
  for (gsize i = 0; i < n; i++)
    {
      double keep = param[i];
      param[i] = keep + h;
      double lp = moe_ref_loss (m, xd, N, residual, r);
      param[i] = keep - h;
      double lm = moe_ref_loss (m, xd, N, residual, r);
      param[i] = keep;
      fd[i] = (lp - lm) / (2 * h);
      mx = fmax (mx, fabs (fd[i]));
    }
  double worst = 0;
  for (gsize i = 0; i < n; i++)
    worst = fmax (worst, fabs (grad[i] - fd[i]));
  g_test_message ("%s: %" G_GSIZE_FORMAT " entries, max |fd| %.4g, max |error| %.3g", what,
                  n, mx, worst);
  g_assert_cmpfloat (mx, >, 0);   /* the gradient exists: a zero one would pass anything */
  g_assert_cmpfloat (worst, <=, 1e-5 * mx + 1e-6);
}

static void
check_block (gboolean norm_topk, gboolean residual, int S)
{
  /* N 12 tokens, C 32, E 6 experts, top-2, F 24: every expert gets tokens with this seed */
  Block b;
  block_init (&b, 12, 32, 6, 2, 24, S, norm_topk, 42);
  block_run (&b, residual);
  g_assert_cmpfloat (min_topk_gap (&b), >, 1e-3);
  MoeRef m;
  moe_ref_init (&m, &b.s, &b.w);
  int N = b.s.N, C = b.s.C;
  gsize NC = (gsize) N * C;
  g_autofree double *xd = g_new (double, NC), *r = g_new (double, NC);
  for (gsize i = 0; i < NC; i++)
    {
      xd[i] = b.x[i];
      r[i] = b.dout[i];   /* dL/dout = r: the block's backward gets dout = r */
    }
  /* forward: FP32 block vs double reference, |diff| <= 1e-5 (1 + |ref|) (FP32 epsilon
   * 1.2e-7 times sums of ~C + F terms) */
  double out[C], worst = 0;
  for (int n = 0; n < N; n++)
    {
      moe_ref_token (&m, xd + (gsize) n * C, residual, out);
      for (int c = 0; c < C; c++)
        {
          double d = fabs (b.out[(gsize) n * C + c] - out[c]);
          worst = fmax (worst, d);
          g_assert_cmpfloat (d, <=, 1e-5 * (1 + fabs (out[c])));
        }
    }
  g_test_message ("forward: max |block - reference| %.3g", worst);
  for (int e = 0; e < b.s.E; e++)
    g_assert_cmpfloat (b.a.counts[e], >, 0);
  /* backward: every gradient against finite differences */
  check_grad ("dx", &m, xd, b.dx, NC, xd, N, residual, r);
  check_grad ("norm", &m, m.norm, b.g.norm, C, xd, N, residual, r);
  check_grad ("router", &m, m.router, b.g.router, (gsize) b.s.E * C, xd, N, residual, r);
  gsize EFC = (gsize) b.s.E * b.s.F * C;
  check_grad ("w_gate", &m, m.gate, b.g.w_gate, EFC, xd, N, residual, r);
  check_grad ("w_up", &m, m.up, b.g.w_up, EFC, xd, N, residual, r);
  check_grad ("w_down", &m, m.down, b.g.w_down, EFC, xd, N, residual, r);
  if (S > 0)
    {
      gsize SC = (gsize) S * C;
      check_grad ("sh_gate", &m, m.sgate, b.g.sh_gate, SC, xd, N, residual, r);
      check_grad ("sh_up", &m, m.sup, b.g.sh_up, SC, xd, N, residual, r);
      check_grad ("sh_down", &m, m.sdown, b.g.sh_down, SC, xd, N, residual, r);
    }
  moe_ref_clear (&m);
  block_clear (&b);
}

static void
test_block_norm_topk (void)
{
  check_block (TRUE, TRUE, 0);
}

static void
test_block_plain_topk (void)
{
  check_block (FALSE, FALSE, 0);
}

/* DeepSeekMoE's block: the routed experts' weights not renormalised (norm_topk_prob false)
 * and a shared expert of inner size 20 on every token, added to the combine: the forward
 * against the reference and every gradient, the shared expert's included, against finite
 * differences (the input's and the norm's carry the shared path too). */
static void
test_block_shared (void)
{
  check_block (FALSE, TRUE, 20);
}

/* Weight gradients accumulate: two backward passes give twice one, to 1e-6 relative (the
 * BLAS adds the second product into the first in its own blocking, not as x + x). */
static void
test_grads_accumulate (void)
{
  Block b;
  block_init (&b, 8, 16, 4, 2, 8, 6, TRUE, 5);
  block_run (&b, TRUE);
  gsize nw = exec_moe_weights_size (&b.s);
  g_autofree float *once = g_memdup2 (b.gmem, nw * sizeof (float));
  block_run (&b, TRUE);
  for (gsize i = 0; i < nw; i++)
    g_assert_cmpfloat (fabsf (b.gmem[i] - 2 * once[i]), <=, 1e-6f * fabsf (2 * once[i]) + 1e-7f);
  block_clear (&b);
}

static void
test_shape_errors (void)
{
  ExecMoeShape s;
  GError *error = NULL;
  g_assert_false (exec_moe_shape_init (&s, 4, 8, 6, 2, 8, 4, 0, &error));   /* 4 !| 6 */
  g_assert_error (error, EXEC_ERROR, EXEC_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "does not divide"));
  g_clear_error (&error);
  g_assert_false (exec_moe_shape_init (&s, 4, 8, 4, 5, 8, 1, 0, &error));   /* k > E */
  g_assert_error (error, EXEC_ERROR, EXEC_ERROR_INVALID);
  g_clear_error (&error);
}

/* ---- device emulation: the same block through backend buffers ----------------------- */

/* The block on devsim (its buffers fault if the host touches them) against host memory:
 * the same kernels in the same order, so the outputs and gradients are equal bit for bit,
 * and the host learns the counts only through a download. */
static void
test_block_devsim (void)
{
  g_autoptr (GError) error = NULL;
  ExecConfig cfg;
  exec_config_init (&cfg);
  cfg.mpi = EXEC_MPI_OFF;
  ExecBackend *dev = devsim_backend_open (&cfg, &error);
  if (!dev)
    {
      g_test_skip (error->message);
      return;
    }
  Block b;
  block_init (&b, 10, 16, 4, 2, 12, 8, TRUE, 11);   /* with a shared expert */
  block_run (&b, TRUE);
  const ExecMoeShape *s = &b.s;
  gsize nw = exec_moe_weights_size (s), NC = (gsize) s->N * s->C;
  gsize na = exec_moe_acts_size (s), ns = exec_moe_scratch_size (s);
  /* one buffer: weights, grads, x, out, dout, dx, acts, scratch */
  gsize total = 2 * nw + 4 * NC + na + ns;
  ExecBuffer *buf = exec_buffer_new (dev, total * sizeof (float), &error);
  g_assert_no_error (error);
  float *d = buf->data;
  float *dw = d, *dg = dw + nw, *dxin = dg + nw, *dout_ = dxin + NC, *ddout = dout_ + NC;
  float *ddx = ddout + NC, *dacts = ddx + NC, *dscr = dacts + na;
  g_assert_true (dev->ops->buffer_upload (dev, buf, 0, b.wmem, nw * sizeof (float), &error));
  g_assert_true (dev->ops->buffer_upload (dev, buf, (gsize) (dxin - d) * sizeof (float), b.x,
                                          NC * sizeof (float), &error));
  g_assert_true (dev->ops->buffer_upload (dev, buf, (gsize) (ddout - d) * sizeof (float),
                                          b.dout, NC * sizeof (float), &error));
  ExecMoeWeights w, g;
  ExecMoeActs a;
  exec_moe_weights_bind (&w, s, dw);
  exec_moe_weights_bind (&g, s, dg);
  exec_moe_acts_bind (&a, s, dacts);
  g_autofree int *rmem = g_new0 (int, exec_moe_route_size (s));
  ExecMoeRoute route;
  exec_moe_route_bind (&route, s, rmem);
  ExecStream *st = exec_stream_new (dev, EXEC_STREAM_COMPUTE, "compute", &error);
  ExecMoeCtx ctx = { .compute = st, .buf = buf };
  g_assert_true (exec_moe_forward (&ctx, s, &w, dxin, TRUE, &a, &route, dout_, dscr, &error));
  g_assert_no_error (error);
  g_assert_true (exec_moe_backward (&ctx, s, &w, &g, dxin, TRUE, &a, &route, ddout, ddx, dscr,
                                    &error));
  g_assert_no_error (error);
  g_autofree float *out = g_new (float, NC), *dx = g_new (float, NC), *gr = g_new (float, nw);
  g_assert_true (dev->ops->buffer_download (dev, out, buf, (gsize) (dout_ - d) * sizeof (float),
                                            NC * sizeof (float), &error));
  g_assert_true (dev->ops->buffer_download (dev, dx, buf, (gsize) (ddx - d) * sizeof (float),
                                            NC * sizeof (float), &error));
  g_assert_true (dev->ops->buffer_download (dev, gr, buf, nw * sizeof (float),
                                            nw * sizeof (float), &error));
  g_assert_no_error (error);
  g_assert_cmpmem (out, NC * sizeof (float), b.out, NC * sizeof (float));
  g_assert_cmpmem (dx, NC * sizeof (float), b.dx, NC * sizeof (float));
  g_assert_cmpmem (gr, nw * sizeof (float), b.gmem, nw * sizeof (float));
  DevsimCounts n;
  devsim_counts (&n);
  g_assert_cmpuint (n.downloads, >=, 1);   /* the counts, read through the backend */
  block_clear (&b);
  exec_backend_close (dev);
}

/* The shipped tiny-mixtral preset (what tandem run's MoE verify runs) loads through the
 * Mixtral loader with the block's shape. By hand: h 64, 4 heads of 16, 2 KV heads, E 4,
 * top-2, expert ffn 128, V 512, 2 layers, untied. Per layer: attention 64 x (64 + 2 x 32 +
 * 64) = 12,288, norms 128, router 4 x 64 = 256, experts 4 x 3 x 128 x 64 = 98,304: 110,976;
 * total 2 x 110,976 + 2 x 512 x 64 + 64 (final norm) = 287,552; active (2 of 4 experts)
 * 2 x (110,976 - 49,152) + 65,600 = 189,248. */
static void
test_tiny_mixtral_preset (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ModelSpec) m = model_spec_load_preset ("tiny-mixtral", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (m->n_experts, ==, 4);
  g_assert_cmpuint (m->moe_top_k, ==, 2);
  g_assert_cmpuint (m->moe_ffn, ==, 128);
  g_assert_cmpuint (m->hidden, ==, 64);
  g_assert_true (m->router_norm_topk);
  ModelParams p;
  model_spec_params (m, &p);
  g_assert_cmpuint (p.total, ==, 287552);
  g_assert_cmpuint (p.active, ==, 189248);
}

/* The shipped tiny-deepseek-moe preset (DeepSeekMoE's config.json format, no MLA) by hand:
 * h 64, 4 heads of 16 (MHA), V 512, 3 layers, untied.
 *   attention 4 x 64 x 64 = 16,384 and norms 128 per layer
 *   layer 0 dense: MLP 3 x 64 x 192 = 36,864: 53,376
 *   layers 1, 2 MoE: router 8 x 64 = 512, routed experts 8 x 3 x 32 x 64 = 49,152, shared
 *     experts 2 x 3 x 32 x 64 = 12,288: 78,464 each
 *   total 53,376 + 2 x 78,464 + 2 x 512 x 64 + 64 (final norm) = 275,904
 *   active (2 of 8 routed experts, 6 x 6,144 = 36,864 less per MoE layer):
 *     275,904 - 2 x 36,864 = 202,176. */
static void
test_tiny_deepseek_moe_preset (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ModelSpec) m = model_spec_load_preset ("tiny-deepseek-moe", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (m->n_experts, ==, 8);
  g_assert_cmpuint (m->moe_top_k, ==, 2);
  g_assert_cmpuint (m->moe_ffn, ==, 32);
  g_assert_cmpuint (m->shared_expert_ffn, ==, 64);
  g_assert_cmpuint (m->first_dense_layers, ==, 1);
  g_assert_cmpuint (m->kv_lora_rank, ==, 0);   /* DeepSeekMoE: no MLA */
  g_assert_false (m->router_norm_topk);
  g_assert_false (m->shared_expert_gate);
  ModelParams p;
  model_spec_params (m, &p);
  g_assert_cmpuint (p.total, ==, 275904);
  g_assert_cmpuint (p.active, ==, 202176);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/exec/moe/topk-ties", test_topk_ties);
  g_test_add_func ("/exec/moe/permute-by-hand", test_permute_by_hand);
  g_test_add_func ("/exec/moe/block-norm-topk", test_block_norm_topk);
  g_test_add_func ("/exec/moe/block-plain-topk", test_block_plain_topk);
  g_test_add_func ("/exec/moe/block-shared", test_block_shared);
  g_test_add_func ("/exec/moe/grads-accumulate", test_grads_accumulate);
  g_test_add_func ("/exec/moe/shape-errors", test_shape_errors);
  g_test_add_func ("/exec/moe/devsim", test_block_devsim);
  g_test_add_func ("/exec/moe/tiny-mixtral-preset", test_tiny_mixtral_preset);
  g_test_add_func ("/exec/moe/tiny-deepseek-moe-preset", test_tiny_deepseek_moe_preset);
  return g_test_run ();
}
