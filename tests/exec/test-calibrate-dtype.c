/* tests/exec/test-calibrate-dtype.c - the GEMM sweep in BF16 and FP8 (exec/calibrate-gemm.c),
 * the dtype of its rows in the profile and the per-dtype peaks of the cluster JSON
 * (exec/calibrate-profile.c), all on the CPU.
 *
 * The CPU backend multiplies FP32 only, so it must measure exactly its FP32 grid and say
 * why the narrow dtypes were left out. For the narrow path itself the CPU backend's table
 * is copied with its GEMM replaced by an emulation: BF16 and FP8 E4M3 inputs are unpacked
 * to floats (exec/dtype-convert.h) and multiplied by the CPU's FP32 GEMM, with the CUDA
 * backend's FP8 layout rule (trans_a FALSE, trans_b TRUE). The calibration's check inputs
 * are small integers (calibrate-gemm.c), so the emulated products are exact: wrong must be 0.
 * A second emulation ignores trans_b for FP8 (B read as k x n instead of n x k), and the
 * check must catch it. No wall-clock value is asserted beyond being positive. */
#include "exec/calibrate.h"
#include "exec/dtype-convert.h"
#include "exec/layers.h"
#include "local-open.h"

#include <string.h>

static ExecBackendOps emu_ops;       /* exec_cpu_ops with emu_gemm */
static gboolean emu_transpose_bug;   /* FP8: B read as k x n */

static gboolean
emu_gemm (ExecBackend *b, ExecStream *s, const ExecGemm *op, ExecSample *out, GError **error)
{
  if (op->dtype == EXEC_DTYPE_F32)
    return exec_cpu_ops.gemm (b, s, op, out, error);
  const gboolean fp8 = op->dtype == EXEC_DTYPE_FP8_E4M3;
  if ((op->dtype != EXEC_DTYPE_BF16 && !fp8) || (fp8 && (op->trans_a || !op->trans_b)))
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID, "emulation: not %s in this layout",
                   exec_dtype_name (op->dtype));
      return FALSE;
    }
  /* the sweep's GEMMs: packed, one product */
  g_assert_true (op->lda == 0 && op->ldb == 0 && op->ldc == 0 && op->batch <= 1);
  const gsize na = (gsize) op->m * op->k, nb = (gsize) op->k * op->n;
  g_autofree float *fa = g_new (float, MAX (na, 1)), *fb = g_new (float, MAX (nb, 1));
  exec_dtype_unpack (op->dtype, op->a, fa, na);
  exec_dtype_unpack (op->dtype, op->b, fb, nb);
  ExecGemm f = *op;
  f.dtype = EXEC_DTYPE_F32;
  f.a = fa;
  f.b = fb;
  if (fp8 && emu_transpose_bug)
    f.trans_b = FALSE;
  return exec_cpu_ops.gemm (b, s, &f, out, error);
}

static ExecBackend *
open_cpu (gboolean emulate)
{
  ExecBackend *b = local_backend_open ("cpu");
  if (emulate)
    {
      emu_ops = exec_cpu_ops;
      emu_ops.name = "emu";
      emu_ops.gemm = emu_gemm;
      b->ops = &emu_ops;
    }
  return b;
}

static void
gemm_options (ExecCalibrateOptions *o)
{
  exec_calibrate_options_init (o);
  o->quick = TRUE;
  o->memory = o->collectives = o->attention = o->kernels = FALSE;
}

static guint
count_dtype (const ExecCalibration *cal, ExecDtype d)
{
  guint n = 0;
  for (guint i = 0; i < cal->gemm->len; i++)
    n += g_array_index (cal->gemm, ExecGemmRow, i).dtype == d;
  return n;
}

/* The CPU backend: the quick grid's 7 FP32 rows, nothing else, and two notes; with a
 * device of 1 PFLOP/s FP32, each row's fraction is its rate / 1e15. */
static void
test_cpu_f32_only (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecBackend) b = open_cpu (FALSE);
  TopoDevice dev;
  memset (&dev, 0, sizeof dev);
  dev.peak_flops[TOPO_DTYPE_FP32] = 1e15;
  ExecCalibrateOptions o;
  gemm_options (&o);
  o.device = &dev;
  g_autoptr (ExecCalibration) cal = exec_calibrate_run (b, &o, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cal->gemm->len, ==, 7);
  g_assert_cmpuint (count_dtype (cal, EXEC_DTYPE_F32), ==, 7);
  for (guint i = 0; i < cal->gemm->len; i++)
    {
      const ExecGemmRow *g = &g_array_index (cal->gemm, ExecGemmRow, i);
      g_assert_cmpint (g->wrong, ==, 0);
      g_assert_cmpfloat (g->peak_flops_per_s, ==, 1e15);
      g_assert_cmpfloat_with_epsilon (g->peak_fraction, g->flops_per_s / 1e15, 1e-15);
    }
  g_assert_cmpuint (cal->skipped->len, ==, 0);
  g_assert_cmpuint (cal->gemm_dtypes_skipped->len, ==, 2);
  const char *bf = g_ptr_array_index (cal->gemm_dtypes_skipped, 0);
  const char *f8 = g_ptr_array_index (cal->gemm_dtypes_skipped, 1);
  g_assert_true (g_str_has_prefix (bf, "bfloat16: "));
  g_assert_nonnull (strstr (bf, "multiplies float32 only"));
  g_assert_true (g_str_has_prefix (f8, "float8_e4m3: "));

  /* gemm_narrow FALSE: no probe, no note */
  o.gemm_narrow = FALSE;
  g_autoptr (ExecCalibration) plain = exec_calibrate_run (b, &o, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (plain->gemm->len, ==, 7);
  g_assert_cmpuint (plain->gemm_dtypes_skipped->len, ==, 0);
}

/* Extra shapes: 32 x 48 x 64 (multiples of 16) and 24 x 40 x 56 (not: FP8 skips it). */
static const int extra[][3] = { { 32, 48, 64 }, { 24, 40, 56 } };

/* The emulated backend: FP32, BF16 and FP8 rows of the grid and the extra shapes, all
 * exact; the profile keeps the dtypes as "fp32", "bf16", "fp8"; the cluster JSON's peaks
 * are the best row of each dtype. */
static void
test_narrow (void)
{
  g_autoptr (GError) error = NULL;
  emu_transpose_bug = FALSE;
  g_autoptr (ExecBackend) b = open_cpu (TRUE);
  TopoDevice dev;
  memset (&dev, 0, sizeof dev);
  dev.peak_flops[TOPO_DTYPE_BF16] = 2e15;
  dev.peak_flops[TOPO_DTYPE_FP8] = 4e15;
  ExecCalibrateOptions o;
  gemm_options (&o);
  o.device = &dev;
  o.extra_shapes = extra;
  o.n_extra_shapes = G_N_ELEMENTS (extra);
  g_autoptr (ExecCalibration) cal = exec_calibrate_run (b, &o, &error);
  g_assert_no_error (error);
  /* 7 grid + 2 extra in FP32 and BF16; 7 + 1 in FP8: 9 + 9 + 8 = 26, in that order */
  g_assert_cmpuint (cal->gemm->len, ==, 26);
  g_assert_cmpuint (count_dtype (cal, EXEC_DTYPE_F32), ==, 9);
  g_assert_cmpuint (count_dtype (cal, EXEC_DTYPE_BF16), ==, 9);
  g_assert_cmpuint (count_dtype (cal, EXEC_DTYPE_FP8_E4M3), ==, 8);
  g_assert_cmpint (g_array_index (cal->gemm, ExecGemmRow, 0).dtype, ==, EXEC_DTYPE_F32);
  g_assert_cmpint (g_array_index (cal->gemm, ExecGemmRow, 9).dtype, ==, EXEC_DTYPE_BF16);
  g_assert_cmpint (g_array_index (cal->gemm, ExecGemmRow, 18).dtype, ==, EXEC_DTYPE_FP8_E4M3);
  for (guint i = 0; i < cal->gemm->len; i++)
    {
      const ExecGemmRow *g = &g_array_index (cal->gemm, ExecGemmRow, i);
      g_assert_cmpint (g->wrong, ==, 0);
      g_assert_cmpfloat (g->flops_per_s, >, 0);
      /* no FP32 peak given: 0; BF16 2e15, FP8 4e15 */
      const double peak = g->dtype == EXEC_DTYPE_BF16 ? 2e15
                          : g->dtype == EXEC_DTYPE_FP8_E4M3 ? 4e15 : 0.0;
      g_assert_cmpfloat (g->peak_flops_per_s, ==, peak);
      if (peak > 0)
        g_assert_cmpfloat_with_epsilon (g->peak_fraction, g->flops_per_s / peak, 1e-15);
      else
        g_assert_cmpfloat (g->peak_fraction, ==, 0);
    }
  g_assert_cmpuint (cal->gemm_dtypes_skipped->len, ==, 0);
  g_assert_cmpuint (cal->skipped->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (cal->skipped, 0), ==,
                   "24 x 40 x 56 in float8_e4m3: FP8 kernels need m, n and k multiples of 16");

  /* the profile: one gemm row per checked row, dtypes mapped */
  g_autoptr (TopoProfile) prof = exec_calibration_to_profile (cal);
  g_assert_cmpuint (prof->gemm->len, ==, 26);
  guint per[TOPO_DTYPE_N] = { 0 };
  double best[TOPO_DTYPE_N] = { 0 };
  for (guint i = 0; i < prof->gemm->len; i++)
    {
      const TopoProfileGemm *g = &g_array_index (prof->gemm, TopoProfileGemm, i);
      per[g->dtype]++;
      best[g->dtype] = MAX (best[g->dtype], g->flops_per_s);
    }
  g_assert_cmpuint (per[TOPO_DTYPE_FP32], ==, 9);
  g_assert_cmpuint (per[TOPO_DTYPE_BF16], ==, 9);
  g_assert_cmpuint (per[TOPO_DTYPE_FP8], ==, 8);

  /* the cluster JSON: peaks per dtype = the best rows; the profile's rows come back */
  cal->memory = (ExecMemRow) { .bytes = 1 << 20, .reps = 1, .copy_GBps = 10, .triad_GBps = 10 };
  g_autofree char *text = exec_calibration_to_cluster_json (cal, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (TopoCluster) cl = topo_cluster_new_from_data (text, -1, "emu.json", &error);
  g_assert_no_error (error);
  const TopoDevice *d = &cl->device;
  g_autofree char *name = g_strdup_printf ("emu-%s", cal->host);
  g_assert_cmpstr (d->name, ==, name);
  /* TFLOP/s in the JSON (printed by json-glib with 17 digits): back within 1e-12 */
  g_assert_cmpfloat_with_epsilon (d->peak_flops[TOPO_DTYPE_FP32] / best[TOPO_DTYPE_FP32], 1.0,
                                  1e-12);
  g_assert_cmpfloat_with_epsilon (d->peak_flops[TOPO_DTYPE_BF16] / best[TOPO_DTYPE_BF16], 1.0,
                                  1e-12);
  g_assert_cmpfloat_with_epsilon (d->peak_flops[TOPO_DTYPE_FP8] / best[TOPO_DTYPE_FP8], 1.0,
                                  1e-12);
  g_assert_nonnull (cl->profile);
  g_assert_cmpuint (cl->profile->gemm->len, ==, 26);
  g_assert_nonnull (strstr (text, "\"fp8\""));
}

/* FP8 with B read in the wrong layout: every FP8 row has wrong elements, and none of them
 * enters the profile (7 + 1 shapes; the 16 x 16 x 16 zero probe cannot tell). */
static void
test_catches_layout (void)
{
  g_autoptr (GError) error = NULL;
  emu_transpose_bug = TRUE;
  g_autoptr (ExecBackend) b = open_cpu (TRUE);
  ExecCalibrateOptions o;
  gemm_options (&o);
  o.extra_shapes = extra;
  o.n_extra_shapes = 1;
  g_autoptr (ExecCalibration) cal = exec_calibrate_run (b, &o, &error);
  emu_transpose_bug = FALSE;
  g_assert_no_error (error);
  g_assert_cmpuint (count_dtype (cal, EXEC_DTYPE_FP8_E4M3), ==, 8);
  for (guint i = 0; i < cal->gemm->len; i++)
    {
      const ExecGemmRow *g = &g_array_index (cal->gemm, ExecGemmRow, i);
      if (g->dtype == EXEC_DTYPE_FP8_E4M3)
        g_assert_cmpint (g->wrong, >, 0);
      else
        g_assert_cmpint (g->wrong, ==, 0);
    }
  g_autoptr (TopoProfile) prof = exec_calibration_to_profile (cal);
  for (guint i = 0; i < prof->gemm->len; i++)
    g_assert_cmpint (g_array_index (prof->gemm, TopoProfileGemm, i).dtype, !=, TOPO_DTYPE_FP8);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/exec/calibrate/dtype/cpu-f32-only", test_cpu_f32_only);
  g_test_add_func ("/exec/calibrate/dtype/narrow", test_narrow);
  g_test_add_func ("/exec/calibrate/dtype/catches-layout", test_catches_layout);
  return g_test_run ();
}
