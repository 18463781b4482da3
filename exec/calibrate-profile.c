/* exec/calibrate-profile.c - a calibration as a hardware profile (topology/profile.c)
 * and as a cluster JSON of this machine (topology/presets/README.md): one device
 * "cpu-HOST" whose peak is the best measured GEMM, one level "host" of the ranks, and
 * the measured tables under "profile", every number sourced "tandem calibrate on HOST,
 * DATE". */
#include "exec/calibrate-private.h"

#include <json-glib/json-glib.h>

#include "util/input.h"

/* ---- the profile and the cluster JSON -------------------------------------------------- */

TopoDtype
cal_topo_dtype (ExecDtype d)
{
  switch (d)
    {
    case EXEC_DTYPE_BF16:     return TOPO_DTYPE_BF16;
    case EXEC_DTYPE_F16:      return TOPO_DTYPE_FP16;
    case EXEC_DTYPE_FP8_E4M3:
    case EXEC_DTYPE_FP8_E5M2: return TOPO_DTYPE_FP8;
    case EXEC_DTYPE_F32:
    default:                  return TOPO_DTYPE_FP32;
    }
}

guint
exec_coll_rows_to_profile (const ExecCollRow *rows, guint n_rows, TopoProfile *profile)
{
  guint added = 0;
  for (guint i = 0; i < n_rows; i++)
    {
      const ExecCollRow *r = &rows[i];
      /* wrong elements in either the out-of-place or the in-place run: the collective
       * computed wrong results, no calibration (the in-place count alone was passed
       * over, and the out-of-place time imported) */
      const gboolean oop = r->time_us > 0 && r->wrong <= 0;
      const gboolean ip = r->ip_time_us > 0 && r->ip_wrong <= 0;
      if (r->wrong > 0 || r->ip_wrong > 0 || (!oop && !ip))
        continue;
      if (topo_profile_add_coll (profile, plan_coll_name (r->coll), (guint) MAX (r->ranks, 1),
                                 (double) r->size_B, (oop ? r->time_us : r->ip_time_us) * 1e-6,
                                 (oop ? r->algbw_GBs : r->ip_algbw_GBs) * 1e9,
                                 (oop ? r->busbw_GBs : r->ip_busbw_GBs) * 1e9))
        added++;
    }
  return added;
}

/* A row's rate at the calibration's core share S (contention.compute_share, the mean over
 * ranks of the kept windows' share) from its own kept window's share s (the row's mean
 * over ranks). On a shared host the rows are timed seconds or minutes apart, each at the
 * share the others' load left it; a thread that got s of a core for t seconds ran t s
 * seconds on a CPU, and at S it takes t s / S, so the rate is rate S / s. The cost model
 * scales every row by one factor S / (the run's share) (sim/cost-cpu.c term 3); restated
 * here, each row goes with its own share, not with the mean of all rows' (the d3 PP2 row
 * of the CPU-loop table: rows timed at 0.19-0.34 of a core, one share for all). The work
 * per second on a CPU is assumed the same in every row's window (schedstat does not see a
 * neighbour's cache and memory traffic). Unchanged when either share is unknown (0). */
static double
at_cal_share (double rate, double row_share, double cal_share)
{
  return row_share > 0 && row_share <= 1 && cal_share > 0 && cal_share <= 1
         ? rate * cal_share / row_share : rate;
}

TopoProfile *
exec_calibration_to_profile (const ExecCalibration *cal)
{
  g_return_val_if_fail (cal != NULL, NULL);
  TopoProfile *p = topo_profile_new ();
  p->source = g_strdup_printf ("tandem calibrate on %s, %s", cal->host, cal->date);
  p->backend = g_strdup (cal->backend);
  p->host = g_strdup (cal->host);
  p->date = g_strdup (cal->date);
  p->ranks = (guint) MAX (cal->ranks, 1);
  const ExecContentionRow *ct = &cal->contention;
  const gboolean contention = ct->cores > 0 && ct->wrong == 0 && ct->gemm_alone_s > 0
                              && ct->gemm_coll_s > 0 && ct->coll_s > 0;
  const double S = contention && ct->compute_share > 0 && ct->compute_share <= 1
                   ? ct->compute_share : 0.0;
  for (guint i = 0; i < cal->gemm->len; i++)
    {
      const ExecGemmRow *g = &g_array_index (cal->gemm, ExecGemmRow, i);
      if (g->wrong == 0 && g->flops_per_s > 0)
        topo_profile_add_gemm (p, (guint64) g->m, (guint64) g->n, (guint64) g->k,
                               cal_topo_dtype (g->dtype),
                               at_cal_share (g->flops_per_s, g->share, S));
    }
  if (cal->memory.bytes > 0 && cal->memory.wrong == 0)
    {
      p->copy_Bps = cal->memory.copy_GBps * 1e9;
      p->triad_Bps = cal->memory.triad_GBps * 1e9;
    }
  exec_coll_rows_to_profile ((const ExecCollRow *) cal->colls->data, cal->colls->len, p);
  for (guint i = 0; i < cal->attention->len; i++)
    {
      const ExecAttnRow *a = &g_array_index (cal->attention, ExecAttnRow, i);
      if (a->wrong != 0 || !(a->fwd_flops_per_s > 0) || !(a->bwd_flops_per_s > 0))
        continue;
      const ExecAttnShape *sh = &a->shape;
      /* the CPU kernels work in FP32 */
      TopoProfileAttn row = { (guint64) sh->b, (guint64) sh->heads, (guint64) sh->kv_heads,
                              (guint64) sh->s_q, (guint64) sh->s_kv, (guint64) sh->head_dim,
                              sh->causal, TOPO_DTYPE_FP32,
                              at_cal_share (a->fwd_flops_per_s, a->fwd_share, S),
                              at_cal_share (a->bwd_flops_per_s, a->bwd_share, S) };
      topo_profile_add_attention (p, &row);
    }
  for (guint i = 0; i < cal->kernels->len; i++)
    {
      const ExecKernelRow *k = &g_array_index (cal->kernels, ExecKernelRow, i);
      if (k->wrong == 0)
        topo_profile_add_kernel (p, k->kind, k->elements, at_cal_share (k->Bps, k->share, S));
    }
  if (contention)
    p->contention = (TopoProfileContention) {
      .cores = (guint) ct->cores, .blas_threads = (guint) MAX (ct->blas_threads, 1),
      .progress_threads = (guint) MAX (ct->progress_threads, 0), .gemm_m = (guint64) ct->gemm_m,
      .gemm_alone_s = ct->gemm_alone_s, .gemm_coll_s = ct->gemm_coll_s,
      .coll_bytes = ct->coll_bytes, .coll_s = ct->coll_s,
      .compute_share = S };
  return p;
}

/* The all-reduce row of the largest size over `ranks` ranks (no wrong elements). */
static const ExecCollRow *
best_all_reduce (const ExecCalibration *cal, int ranks)
{
  const ExecCollRow *best = NULL;
  for (guint i = 0; i < cal->colls->len; i++)
    {
      const ExecCollRow *r = &g_array_index (cal->colls, ExecCollRow, i);
      if (r->coll == PLAN_COLL_ALL_REDUCE && r->ranks == ranks && r->wrong == 0
          && r->time_us > 0 && (best == NULL || r->size_B > best->size_B))
        best = r;
    }
  return best;
}

static const ExecCollRow *
smallest_all_reduce (const ExecCalibration *cal, int ranks)
{
  const ExecCollRow *small = NULL;
  for (guint i = 0; i < cal->colls->len; i++)
    {
      const ExecCollRow *r = &g_array_index (cal->colls, ExecCollRow, i);
      if (r->coll == PLAN_COLL_ALL_REDUCE && r->ranks == ranks && r->wrong == 0
          && r->time_us > 0 && (small == NULL || r->size_B < small->size_B))
        small = r;
    }
  return small;
}

static void
member_double (JsonBuilder *jb, const char *key, double v)
{
  json_builder_set_member_name (jb, key);
  json_builder_add_double_value (jb, v);
}

static void
member_string (JsonBuilder *jb, const char *key, const char *v)
{
  json_builder_set_member_name (jb, key);
  json_builder_add_string_value (jb, v);
}

char *
exec_calibration_to_cluster_json (const ExecCalibration *cal, const TopoProfile *profile,
                                  GError **error)
{
  g_return_val_if_fail (cal != NULL, NULL);
  /* the best checked row of each profile dtype; `top` of FP32 (else of any dtype) */
  const ExecGemmRow *best[TOPO_DTYPE_N] = { NULL }, *top = NULL;
  gboolean narrow = FALSE;
  for (guint i = 0; i < cal->gemm->len; i++)
    {
      const ExecGemmRow *g = &g_array_index (cal->gemm, ExecGemmRow, i);
      const TopoDtype d = cal_topo_dtype (g->dtype);
      if (g->wrong != 0)
        continue;
      if (best[d] == NULL || g->flops_per_s > best[d]->flops_per_s)
        best[d] = g;
      if (top == NULL || g->flops_per_s > top->flops_per_s)
        top = g;
      narrow = narrow || d != TOPO_DTYPE_FP32;
    }
  if (best[TOPO_DTYPE_FP32] != NULL)
    top = best[TOPO_DTYPE_FP32];
  if (top == NULL || cal->host_memory_bytes == 0)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "no cluster file without %s (hint: run the GEMM part)",
                   top == NULL ? "a checked GEMM measurement" : "the host's memory size");
      return NULL;
    }
  g_autoptr (TopoProfile) own = profile == NULL ? exec_calibration_to_profile (cal) : NULL;
  g_autofree char *src = g_strdup_printf ("tandem calibrate on %s, %s", cal->host, cal->date);
  g_autofree char *name = g_strdup_printf ("%s-%s", cal->backend, cal->host);
  const int ranks = MAX (cal->ranks, 1), per_host = MAX (cal->ranks_per_host, 1);
  const gboolean mem_ok = cal->memory.bytes > 0 && cal->memory.wrong == 0;
  const ExecCollRow *ar = best_all_reduce (cal, ranks), *ar0 = smallest_all_reduce (cal, ranks);

  g_autoptr (JsonBuilder) jb = json_builder_new ();
  json_builder_begin_object (jb);
  member_string (jb, "_comment", "written by tandem calibrate: a cluster of this machine's "
                 "ranks with the measured tables in \"profile\" (topology/presets/README.md)");
  member_string (jb, "name", name);
  g_autofree char *desc = g_strdup_printf ("%s backend on %s, %d rank%s, measured %s",
                                           cal->backend, cal->host, ranks, ranks > 1 ? "s" : "",
                                           cal->date);
  member_string (jb, "description", desc);
  json_builder_set_member_name (jb, "device");
  json_builder_begin_object (jb);
  member_string (jb, "name", name);
  member_string (jb, "vendor", g_strcmp0 (cal->backend, "cuda") == 0 ? "nvidia" : "cpu");
  json_builder_set_member_name (jb, "peak_tflops");
  json_builder_begin_object (jb);
  member_double (jb, "fp32", top->flops_per_s / 1e12);
  /* BF16 and FP8 where measured; a backend without BF16 (the CPU) runs BF16 plans in FP32 */
  member_double (jb, "bf16", (best[TOPO_DTYPE_BF16] ? best[TOPO_DTYPE_BF16] : top)->flops_per_s
                             / 1e12);
  if (best[TOPO_DTYPE_FP16] != NULL)
    member_double (jb, "fp16", best[TOPO_DTYPE_FP16]->flops_per_s / 1e12);
  if (best[TOPO_DTYPE_FP8] != NULL)
    member_double (jb, "fp8", best[TOPO_DTYPE_FP8]->flops_per_s / 1e12);
  json_builder_end_object (jb);
  /* device memory on an accelerator backend, else the host's shared by its ranks */
  const double mem_GB = cal->device_memory_bytes > 0 ? (double) cal->device_memory_bytes / 1e9
                        : (double) cal->host_memory_bytes / per_host / 1e9;
  member_double (jb, "hbm_GB", mem_GB);
  if (mem_ok && cal->memory.triad_GBps > 0)
    member_double (jb, "hbm_GBps", cal->memory.triad_GBps);
  member_double (jb, "gemm_efficiency", 1.0);
  if (mem_ok && cal->memory.triad_GBps > 0)
    member_double (jb, "mem_efficiency", 1.0);
  if (cal->launch_s > 0)
    member_double (jb, "launch_overhead_us", cal->launch_s * 1e6);
  json_builder_set_member_name (jb, "sources");
  json_builder_begin_object (jb);
  g_autofree char *s_peak = NULL;
  if (!narrow)
    s_peak = g_strdup_printf ("%s: best checked FP32 GEMM of the grid, %d x %d x %d, per rank "
                              "with all %d rank(s) computing; the CPU backend multiplies in "
                              "FP32, so BF16 plans run at the same rate", src, top->m, top->n,
                              top->k, ranks);
  else
    {
      GString *t = g_string_new (NULL);
      g_string_append_printf (t, "%s: best checked GEMM of the grid per dtype, per rank with "
                              "all %d rank(s) computing:", src, ranks);
      for (int d = 0; d < TOPO_DTYPE_N; d++)
        if (best[d] != NULL)
          g_string_append_printf (t, " %s %d x %d x %d (%s);", topo_dtype_name ((TopoDtype) d),
                                  best[d]->m, best[d]->n, best[d]->k,
                                  exec_dtype_name (best[d]->dtype));
      if (best[TOPO_DTYPE_BF16] == NULL)
        g_string_append (t, " bf16 = the fp32 rate (no BF16 GEMM measured);");
      g_string_truncate (t, t->len - 1);
      s_peak = g_string_free (t, FALSE);
    }
  member_string (jb, "peak_tflops", s_peak);
  g_autofree char *s_hbm = cal->device_memory_bytes > 0
    ? g_strdup_printf ("%s: the device's memory (cudaGetDeviceProperties totalGlobalMem, "
                       "%.1f GB)", src, mem_GB)
    : g_strdup_printf ("%s: physical memory of the host (%.1f GB) / %d rank(s) on it", src,
                       (double) cal->host_memory_bytes / 1e9, per_host);
  member_string (jb, "hbm_GB", s_hbm);
  g_autofree char *s_bw = cal->memory.on_device
    ? g_strdup_printf ("%s: device memory, a = b + c over float arrays of %.0f MiB through "
                       "the backend's kernels (12 B per element), best of %d calls timed with "
                       "events, per rank with all ranks running", src,
                       (double) cal->memory.bytes / 1048576.0, cal->memory.reps)
    : g_strdup_printf ("%s: STREAM-style triad (a = b + 3c, 24 B per element), best of %d, "
                       "per rank with all ranks running", src, cal->memory.reps);
  if (mem_ok && cal->memory.triad_GBps > 0)
    {
      member_string (jb, "hbm_GBps", s_bw);
      member_string (jb, "mem_efficiency", "the bandwidth above is already the achieved one");
    }
  member_string (jb, "gemm_efficiency", "the peak above is the best achieved GEMM");
  g_autofree char *s_launch = g_strdup_printf ("%s: mean time of a 1 x 1 x 1 GEMM call through "
                                               "the backend", src);
  if (cal->launch_s > 0)
    member_string (jb, "launch_overhead_us", s_launch);
  json_builder_end_object (jb);
  json_builder_end_object (jb);

  /* one level: the ranks of this run, joined by whatever MPI used (shared memory) */
  json_builder_set_member_name (jb, "levels");
  json_builder_begin_array (jb);
  json_builder_begin_object (jb);
  member_string (jb, "name", "host");
  json_builder_set_member_name (jb, "count");
  json_builder_add_int_value (jb, ranks);
  g_autofree char *s_level = NULL;
  if (ar != NULL)
    {
      /* alpha per ring step: the smallest all-reduce over its 2(n-1) steps (D) */
      const double lat_us = ar0->time_us / MAX (plan_coll_steps (PLAN_COLL_ALL_REDUCE, ranks), 1);
      member_double (jb, "bw_GBps", ar->busbw_GBs);
      member_double (jb, "busbw_GBps", ar->busbw_GBs);
      member_double (jb, "latency_us", lat_us);
      s_level = g_strdup_printf ("%s: all-reduce busbw over %d ranks at %" G_GUINT64_FORMAT
                                 " B (the largest size measured), used for bw and busbw; "
                                 "latency = the %" G_GUINT64_FORMAT " B all-reduce time / "
                                 "2(n-1) steps (D)", src, ranks, ar->size_B, ar0->size_B);
    }
  else
    {
      const double bw = mem_ok && cal->memory.copy_GBps > 0 ? cal->memory.copy_GBps
                                                            : cal->memory.triad_GBps;
      if (!(bw > 0))
        {
          g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                       "no cluster file without a measured all-reduce or memory bandwidth "
                       "(hint: run under mpirun -np N, or run the memory part)");
          json_builder_reset (jb);
          return NULL;
        }
      member_double (jb, "bw_GBps", bw);
      s_level = g_strdup_printf ("%s: no collective measured (one rank, no mpirun); the "
                                 "copy bandwidth stands in for shared-memory transfers", src);
    }
  member_string (jb, "source", s_level);
  json_builder_end_object (jb);
  json_builder_end_array (jb);

  json_builder_end_object (jb);

  g_autoptr (JsonNode) root = json_builder_get_root (jb);
  g_autofree char *base = util_json_to_data (root, FALSE);
  return topo_cluster_json_set_profile (base, profile != NULL ? profile : own, error);
}
