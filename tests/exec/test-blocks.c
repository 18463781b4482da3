/* tests/exec/test-blocks.c - the blocks of a llama layer (attention, MLP, embedding,
 * head) on one rank and split as tensor parallelism splits them, in one process.
 *
 * Oracles: finite differences of the whole layer (tolerances in check.h), and the unsplit
 * layer for its TP shards (the partial sums that the program all-reduces must add up to
 * it). Inputs come from GRand with fixed seeds (printed with --verbose). */
#include "check.h"

/* ---- a whole layer -------------------------------------------------------------------- */

typedef struct {
  ExecLayerShape s;
  ExecLayerWeights w, g;
  float *wmem, *gmem;
  ExecAttnActs aa;
  ExecMlpActs ma;
  float *amem, *mmem, *scratch;
} Layer;

static ModelSpec *
tiny_model (void)
{
  /* hidden 16, ffn 32, 4 heads of 4 over 2 KV heads, vocab 7 */
  return model_spec_new_custom ("tiny-llama", MODEL_MLP_SWIGLU, 16, 32, 2, 4, 2, 7, 16,
                                FALSE);
}

static void
layer_init_ex (Layer *l, const ModelSpec *m, int tp, int tp_rank, int B, int T, float scale,
               gboolean unfused)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (exec_layer_shape_init (&l->s, m, tp, tp_rank, B, T, &error));
  g_assert_no_error (error);
  l->s.unfused = unfused;
  gsize nw = exec_layer_weights_size (&l->s);
  l->wmem = g_new0 (float, nw);
  l->gmem = g_new0 (float, nw);
  exec_layer_weights_bind (&l->w, &l->s, l->wmem);
  exec_layer_weights_bind (&l->g, &l->s, l->gmem);
  exec_layer_weights_fill (&l->w, &l->s, 3, 2024);
  /* scale the linear weights (norms stay 1) so the blocks matter next to the residual */
  for (gsize i = 0; i < nw; i++)
    if (l->wmem[i] != 1.0f)
      l->wmem[i] *= scale;
  l->amem = g_new0 (float, exec_attn_acts_size (&l->s));
  l->mmem = g_new0 (float, exec_mlp_acts_size (&l->s));
  exec_attn_acts_bind (&l->aa, &l->s, l->amem);
  exec_mlp_acts_bind (&l->ma, &l->s, l->mmem);
  l->scratch = g_new0 (float, MAX (exec_attn_scratch_size (&l->s),
                                   exec_mlp_scratch_size (&l->s)));
}

static void
layer_init (Layer *l, const ModelSpec *m, int tp, int tp_rank, int B, int T, float scale)
{
  layer_init_ex (l, m, tp, tp_rank, B, T, scale, FALSE);
}

static void
layer_clear (Layer *l)
{
  g_free (l->wmem), g_free (l->gmem), g_free (l->amem), g_free (l->mmem), g_free (l->scratch);
}

/* h = x + attn (x); out = h + mlp (h), with `add_residual` as for TP rank 0 */
static void
layer_forward (Layer *l, const float *x, const int *pos, gboolean res, float *h, float *out)
{
  exec_attn_forward (NULL, &l->s, &l->w, x, pos, res, &l->aa, h);
  exec_mlp_forward (NULL, &l->s, &l->w, h, res, &l->ma, out);
}

typedef struct {
  Layer *l;
  float *x, *r, *h, *out;
  gsize n;
} LayerCtx;

static double
layer_loss (gpointer data)
{
  LayerCtx *c = data;
  layer_forward (c->l, c->x, NULL, TRUE, c->h, c->out);
  return dotd (c->out, c->r, c->n);
}

/* One llama layer (attention and MLP blocks with residuals): dx and samples of every
 * weight gradient against finite differences of L = sum (out r). */
static void
layer_backward_check (gboolean unfused)
{
  g_autoptr (ModelSpec) m = tiny_model ();
  g_autoptr (GRand) r = seeded (51);
  Layer l;
  layer_init_ex (&l, m, 1, 0, 2, 6, 15.0f, unfused);   /* std 0.3 */
  gsize n = (gsize) 2 * 6 * 16;
  LayerCtx c = { &l, randv (r, n, -1, 1), randv (r, n, -1, 1), g_new (float, n),
                 g_new (float, n), n };
  g_autofree float *dh = g_new (float, n), *dx = g_new (float, n);
  layer_loss (&c);
  exec_mlp_backward (NULL, &l.s, &l.w, &l.g, c.h, TRUE, &l.ma, c.r, dh, l.scratch);
  exec_attn_backward (NULL, &l.s, &l.w, &l.g, c.x, NULL, TRUE, &l.aa, dh, dx, l.scratch);
  check_grad ("layer dx", layer_loss, &c, c.x, dx, n, n, r);
  struct { const char *name; float *w, *g; gsize n; } t[] = {
    { "attn_norm", l.w.attn_norm, l.g.attn_norm, 16 }, { "wq", l.w.wq, l.g.wq, 16 * 16 },
    { "wk", l.w.wk, l.g.wk, 8 * 16 }, { "wv", l.w.wv, l.g.wv, 8 * 16 },
    { "wo", l.w.wo, l.g.wo, 16 * 16 }, { "mlp_norm", l.w.mlp_norm, l.g.mlp_norm, 16 },
    { "w_gate", l.w.w_gate, l.g.w_gate, 32 * 16 }, { "w_up", l.w.w_up, l.g.w_up, 32 * 16 },
    { "w_down", l.w.w_down, l.g.w_down, 16 * 32 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (t); i++)
    check_grad (t[i].name, layer_loss, &c, t[i].w, t[i].g, t[i].n, 12, r);
  g_free (c.x), g_free (c.r), g_free (c.h), g_free (c.out);
  layer_clear (&l);
}

static void
test_layer_backward (void)
{
  layer_backward_check (FALSE);
}

/* The same finite-difference check with the scores materialized (unfused attention). */
static void
test_layer_backward_unfused (void)
{
  layer_backward_check (TRUE);
}

/* Unfused attention computes the same function as the online softmax, in another order:
 * the layer's output, its input gradient and every weight gradient agree within 1e-5
 * relative (FP32 sums regrouped), for 2 sequences of 7 tokens with GQA (4 heads over 2
 * KV heads). The stored probabilities are a distribution over the visible keys: each
 * row sums to 1 and is 0 in the future (row i of a sequence has i + 1 nonzero keys). */
static void
test_layer_unfused (void)
{
  g_autoptr (ModelSpec) m = tiny_model ();
  g_autoptr (GRand) r = seeded (77);
  const int B = 2, T = 7, C = 16;
  gsize n = (gsize) B * T * C;
  g_autofree float *x = randv (r, n, -1, 1), *dout = randv (r, n, -1, 1);
  Layer L[2];
  float *out[2], *h[2], *dh[2], *dx[2];
  for (int u = 0; u < 2; u++)
    {
      layer_init_ex (&L[u], m, 1, 0, B, T, 15.0f, u == 1);
      out[u] = g_new (float, n), h[u] = g_new (float, n);
      dh[u] = g_new (float, n), dx[u] = g_new (float, n);
      layer_forward (&L[u], x, NULL, TRUE, h[u], out[u]);
      exec_mlp_backward (NULL, &L[u].s, &L[u].w, &L[u].g, h[u], TRUE, &L[u].ma, dout, dh[u],
                         L[u].scratch);
      exec_attn_backward (NULL, &L[u].s, &L[u].w, &L[u].g, x, NULL, TRUE, &L[u].aa, dh[u],
                          dx[u], L[u].scratch);
    }
  g_assert_null (L[0].aa.probs);
  g_assert_nonnull (L[1].aa.probs);
  g_assert_cmpuint (exec_attn_acts_size (&L[1].s) - exec_attn_acts_size (&L[0].s), ==,
                    (gsize) B * 4 * T * T);
  g_assert_cmpfloat (rel_err (out[1], out[0], n), <, 1e-5);
  g_assert_cmpfloat (rel_err (dx[1], dx[0], n), <, 1e-5);
  gsize nw = exec_layer_weights_size (&L[0].s);
  g_assert_cmpfloat (rel_err (L[1].gmem, L[0].gmem, nw), <, 1e-5);
  for (int b = 0; b < B; b++)
    for (int hh = 0; hh < 4; hh++)
      for (int i = 0; i < T; i++)
        {
          const float *row = L[1].aa.probs + (((gsize) b * 4 + hh) * T + i) * T;
          double sum = 0;
          for (int j = 0; j < T; j++)
            {
              if (j > i)
                g_assert_cmpfloat (row[j], ==, 0.0f);
              sum += row[j];
            }
          g_assert_cmpfloat (fabs (sum - 1.0), <, 1e-6);
        }
  for (int u = 0; u < 2; u++)
    {
      g_free (out[u]), g_free (h[u]), g_free (dh[u]), g_free (dx[u]);
      layer_clear (&L[u]);
    }
}

/* rows [r0, r0 + rows) of a (?, cols) matrix, columns [c0, c0 + cols) of (rows, full) */
static float *
rows_of (const float *m, int r0, int rows, int cols)
{
  return g_memdup2 (m + (gsize) r0 * cols, sizeof (float) * rows * cols);
}

static float *
cols_of (const float *m, int rows, int c0, int cols, int full)
{
  float *o = g_new (float, (gsize) rows * cols);
  for (int r = 0; r < rows; r++)
    memcpy (o + (gsize) r * cols, m + (gsize) r * full + c0, sizeof (float) * cols);
  return o;
}

/* Compares a shard tensor with its slice of the full one (within `tol` relative). */
static void
check_slice (const char *what, const float *shard, float *slice, gsize n, double tol)
{
  double e = rel_err (shard, slice, n);
  g_test_message ("%s: relative error %.2e", what, e);
  if (e > tol)
    g_error ("%s: shard differs from the unsplit tensor by %.2e relative", what, e);
  g_free (slice);
}

/* Tensor parallelism is exact: the layer on 2 shards (2 of 4 heads, 1 of 2 KV heads,
 * 16 of 32 MLP rows each), with the partial outputs summed where the program all-reduces,
 * equals the unsplit layer; so do the summed input gradients, the norm gradients summed
 * over the shards, and each shard's weights and weight gradients equal the slices of the
 * unsplit ones. Within 1e-5 relative: the split only regroups the FP32 sums. */
static void
test_layer_tp_split (void)
{
  g_autoptr (ModelSpec) m = tiny_model ();
  g_autoptr (GRand) r = seeded (53);
  int B = 2, T = 6, C = 16, D = 4;
  gsize n = (gsize) B * T * C;
  Layer full, sh[2];
  layer_init (&full, m, 1, 0, B, T, 15.0f);
  layer_init (&sh[0], m, 2, 0, B, T, 15.0f);
  layer_init (&sh[1], m, 2, 1, B, T, 15.0f);
  g_assert_cmpint (sh[1].s.n_head, ==, 2);
  g_assert_cmpint (sh[1].s.n_kv_head, ==, 1);
  g_assert_cmpint (sh[1].s.ffn, ==, 16);
  g_autofree float *x = randv (r, n, -1, 1), *dout = randv (r, n, -1, 1);
  g_autofree float *h = g_new (float, n), *out = g_new (float, n);
  g_autofree float *dh = g_new (float, n), *dx = g_new (float, n);
  layer_forward (&full, x, NULL, TRUE, h, out);
  exec_mlp_backward (NULL, &full.s, &full.w, &full.g, h, TRUE, &full.ma, dout, dh, full.scratch);
  exec_attn_backward (NULL, &full.s, &full.w, &full.g, x, NULL, TRUE, &full.aa, dh, dx,
                      full.scratch);

  /* forward: the all-reduce after each block is a sum of the two partials */
  g_autofree float *p0 = g_new (float, n), *p1 = g_new (float, n);
  g_autofree float *hs = g_new (float, n), *outs = g_new (float, n);
  exec_attn_forward (NULL, &sh[0].s, &sh[0].w, x, NULL, TRUE, &sh[0].aa, p0);
  exec_attn_forward (NULL, &sh[1].s, &sh[1].w, x, NULL, FALSE, &sh[1].aa, p1);
  exec_kernels_cpu.add (NULL, hs, p0, p1, n);
  g_assert_cmpfloat (rel_err (hs, h, n), <=, 1e-5);
  exec_mlp_forward (NULL, &sh[0].s, &sh[0].w, hs, TRUE, &sh[0].ma, p0);
  exec_mlp_forward (NULL, &sh[1].s, &sh[1].w, hs, FALSE, &sh[1].ma, p1);
  exec_kernels_cpu.add (NULL, outs, p0, p1, n);
  g_assert_cmpfloat (rel_err (outs, out, n), <=, 1e-5);

  /* backward: dout reaches both shards whole; the dx partials are all-reduced */
  g_autofree float *dhs = g_new (float, n), *dxs = g_new (float, n);
  for (int i = 0; i < 2; i++)
    exec_mlp_backward (NULL, &sh[i].s, &sh[i].w, &sh[i].g, hs, i == 0, &sh[i].ma, dout,
                       i ? p1 : p0, sh[i].scratch);
  exec_kernels_cpu.add (NULL, dhs, p0, p1, n);
  g_assert_cmpfloat (rel_err (dhs, dh, n), <=, 1e-5);
  for (int i = 0; i < 2; i++)
    exec_attn_backward (NULL, &sh[i].s, &sh[i].w, &sh[i].g, x, NULL, i == 0, &sh[i].aa, dhs,
                        i ? p1 : p0, sh[i].scratch);
  exec_kernels_cpu.add (NULL, dxs, p0, p1, n);
  g_assert_cmpfloat (rel_err (dxs, dx, n), <=, 1e-5);

  /* norm gradients are partial per shard: their sum is the unsplit gradient */
  float nsum[16];
  exec_kernels_cpu.add (NULL, nsum, sh[0].g.attn_norm, sh[1].g.attn_norm, 16);
  check_slice ("attn_norm grad", nsum, rows_of (full.g.attn_norm, 0, 1, 16), 16, 1e-5);
  exec_kernels_cpu.add (NULL, nsum, sh[0].g.mlp_norm, sh[1].g.mlp_norm, 16);
  check_slice ("mlp_norm grad", nsum, rows_of (full.g.mlp_norm, 0, 1, 16), 16, 1e-5);

  /* weights and their gradients: rows of column-parallel, columns of row-parallel */
  for (int i = 0; i < 2; i++)
    {
      Layer *s = &sh[i];
      int q0 = i * 2 * D, kv0 = i * D, f0 = i * 16;
      check_slice ("wq", s->w.wq, rows_of (full.w.wq, q0, 2 * D, C), 2 * D * C, 0);
      check_slice ("wk", s->w.wk, rows_of (full.w.wk, kv0, D, C), D * C, 0);
      check_slice ("wo", s->w.wo, cols_of (full.w.wo, C, q0, 2 * D, 4 * D), C * 2 * D, 0);
      check_slice ("w_down", s->w.w_down, cols_of (full.w.w_down, C, f0, 16, 32), C * 16, 0);
      check_slice ("wq grad", s->g.wq, rows_of (full.g.wq, q0, 2 * D, C), 2 * D * C, 1e-5);
      check_slice ("wk grad", s->g.wk, rows_of (full.g.wk, kv0, D, C), D * C, 1e-5);
      check_slice ("wv grad", s->g.wv, rows_of (full.g.wv, kv0, D, C), D * C, 1e-5);
      check_slice ("wo grad", s->g.wo, cols_of (full.g.wo, C, q0, 2 * D, 4 * D), C * 2 * D,
                   1e-5);
      check_slice ("w_gate grad", s->g.w_gate, rows_of (full.g.w_gate, f0, 16, C), 16 * C,
                   1e-5);
      check_slice ("w_up grad", s->g.w_up, rows_of (full.g.w_up, f0, 16, C), 16 * C, 1e-5);
      check_slice ("w_down grad", s->g.w_down, cols_of (full.g.w_down, C, f0, 16, 32),
                   C * 16, 1e-5);
    }
  layer_clear (&full), layer_clear (&sh[0]), layer_clear (&sh[1]);
}

/* ---- embedding and head ---------------------------------------------------------------- */

/* Vocab-parallel embedding and head on 2 shards (vocab 7 = 4 + 3, one padding row): the
 * embedding partials sum to the lookup, the head's combined loss and summed dx equal the
 * unsplit head's, and each shard's dW rows are the unsplit rows (1e-5 relative). */
static void
test_vocab_split (void)
{
  g_autoptr (ModelSpec) m = tiny_model ();
  g_autoptr (GRand) r = seeded (61);
  ExecLayerShape full, sh[2];
  g_assert_true (exec_layer_shape_init (&full, m, 1, 0, 1, 5, NULL));
  g_assert_true (exec_layer_shape_init (&sh[0], m, 2, 0, 1, 5, NULL));
  g_assert_true (exec_layer_shape_init (&sh[1], m, 2, 1, 1, 5, NULL));
  g_assert_cmpint (sh[1].vocab_start, ==, 4);
  g_assert_cmpint (sh[1].vocab_valid, ==, 3);
  int N = 5, C = 16, V = 7, tokens[5] = { 6, 0, 3, 4, 6 }, targets[5] = { 0, 3, 4, 6, -1 };
  gsize n = (gsize) N * C;
  g_autofree float *wte = g_new (float, (gsize) V * C), *wlm = g_new (float, (gsize) V * C);
  float fnorm[16];
  exec_vocab_weights_fill (wte, wlm, fnorm, &full, 7);
  float *wte_s[2], *wlm_s[2], fn_s[16];
  for (int i = 0; i < 2; i++)
    {
      wte_s[i] = g_new (float, (gsize) 4 * C);
      wlm_s[i] = g_new (float, (gsize) 4 * C);
      exec_vocab_weights_fill (wte_s[i], wlm_s[i], fn_s, &sh[i], 7);
    }
  g_assert_cmpfloat (wte_s[1][3 * C], ==, 0.0f);   /* padding row */
  g_assert_cmpmem (wte_s[1], sizeof (float) * 3 * C, wte + 4 * C, sizeof (float) * 3 * C);

  /* embedding */
  g_autofree float *e = g_new (float, n), *e0 = g_new (float, n), *e1 = g_new (float, n);
  exec_embed_forward (NULL, &full, wte, tokens, e);
  exec_embed_forward (NULL, &sh[0], wte_s[0], tokens, e0);
  exec_embed_forward (NULL, &sh[1], wte_s[1], tokens, e1);
  exec_kernels_cpu.add (NULL, e0, e0, e1, n);
  g_assert_cmpmem (e0, n * 4, e, n * 4);
  g_autofree float *dwte = g_new0 (float, (gsize) V * C);
  exec_embed_backward (NULL, &full, dwte, tokens, e);
  /* token 6 appears twice: its gradient row is twice its embedding row */
  g_assert_cmpfloat (fabs (dwte[6 * C + 2] - 2 * wte[6 * C + 2]), <=, 1e-7);
  g_assert_cmpfloat (dwte[C], ==, 0.0f);   /* token 1 unused */

  /* head: scale up the table so the softmax is not uniform */
  for (gsize i = 0; i < (gsize) V * C; i++)
    wlm[i] *= 50;
  for (int s = 0; s < 2; s++)
    for (gsize i = 0; i < (gsize) 4 * C; i++)
      wlm_s[s][i] *= 50;
  g_autofree float *x = randv (r, n, -1, 1);
  g_autofree float *amem = g_new (float, exec_head_acts_size (&full));
  g_autofree float *scr = g_new (float, exec_head_scratch_size (&full));
  ExecHeadActs a;
  exec_head_acts_bind (&a, &full, amem);
  float lp[5], tp[5], lse[5], loss[5];
  exec_head_forward (NULL, &full, fnorm, wlm, x, targets, &a, lp, tp);
  exec_ce_combine (NULL, N, 1, lp, tp, targets, lse, loss);
  g_autofree float *dx = g_new (float, n), *dwlm = g_new0 (float, (gsize) V * C);
  float dfn[16] = { 0 };
  exec_head_backward (NULL, &full, fnorm, wlm, dfn, dwlm, x, targets, &a, lse, 1.0f / 4, dx,
                      scr);

  float parts[10], tgt[10], tsum[5], lse2[5], loss2[5];
  float *amem_s[2], *scr_s[2];
  ExecHeadActs as[2];
  for (int s = 0; s < 2; s++)
    {
      amem_s[s] = g_new (float, exec_head_acts_size (&sh[s]));
      scr_s[s] = g_new (float, exec_head_scratch_size (&sh[s]));
      exec_head_acts_bind (&as[s], &sh[s], amem_s[s]);
      exec_head_forward (NULL, &sh[s], fnorm, wlm_s[s], x, targets, &as[s], parts + s * N,
                         tgt + s * N);
    }
  exec_kernels_cpu.add (NULL, tsum, tgt, tgt + N, 5);
  exec_ce_combine (NULL, N, 2, parts, tsum, targets, lse2, loss2);
  g_assert_cmpfloat (rel_err (loss2, loss, 5), <=, 1e-5);
  g_assert_cmpfloat (loss[4], ==, 0.0f);
  g_autofree float *dxs = g_new (float, n), *dx1 = g_new (float, n);
  float dfn_s[16] = { 0 };
  for (int s = 0; s < 2; s++)
    {
      g_autofree float *dw = g_new0 (float, (gsize) 4 * C);
      exec_head_backward (NULL, &sh[s], fnorm, wlm_s[s], dfn_s, dw, x, targets, &as[s], lse2,
                          1.0f / 4, s ? dx1 : dxs, scr_s[s]);
      check_slice ("w_lm grad", dw, rows_of (dwlm, 4 * s, s ? 3 : 4, C), (gsize) (s ? 3 : 4) * C,
                   1e-5);
      g_free (amem_s[s]), g_free (scr_s[s]), g_free (wte_s[s]), g_free (wlm_s[s]);
    }
  exec_kernels_cpu.add (NULL, dxs, dxs, dx1, n);
  g_assert_cmpfloat (rel_err (dxs, dx, n), <=, 1e-5);
  g_assert_cmpfloat (rel_err (dfn_s, dfn, 16), <=, 1e-5);
}

/* exec_layer_shape_init refuses what it cannot split, and non-llama models. */
static void
test_shape_errors (void)
{
  g_autoptr (ModelSpec) m = tiny_model ();
  g_autoptr (GError) error = NULL;
  ExecLayerShape s;
  g_assert_false (exec_layer_shape_init (&s, m, 3, 0, 1, 4, &error));   /* 4 heads / 3 */
  g_assert_error (error, EXEC_ERROR, EXEC_ERROR_INVALID);
  g_clear_error (&error);
  /* tp 4 > 2 KV heads: each KV head is replicated over 2 ranks */
  g_assert_true (exec_layer_shape_init (&s, m, 4, 3, 1, 4, &error));
  g_assert_cmpint (s.n_kv_head, ==, 1);
  g_autoptr (ModelSpec) gpt = model_spec_new_custom ("gpt", MODEL_MLP_GELU, 16, 0, 2, 4, 0,
                                                     7, 16, TRUE);
  g_assert_false (exec_layer_shape_init (&s, gpt, 1, 0, 1, 4, &error));
  g_assert_error (error, EXEC_ERROR, EXEC_ERROR_INVALID);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/exec/layer/backward", test_layer_backward);
  g_test_add_func ("/exec/layer/backward-unfused", test_layer_backward_unfused);
  g_test_add_func ("/exec/layer/unfused", test_layer_unfused);
  g_test_add_func ("/exec/layer/tp-split", test_layer_tp_split);
  g_test_add_func ("/exec/layer/vocab-split", test_vocab_split);
  g_test_add_func ("/exec/layer/shape-errors", test_shape_errors);
  return g_test_run ();
}
