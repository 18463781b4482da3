/* exec/calibrate-coll.c - the collective sweep of `tandem calibrate` (nccl-tests' method
 * on the ops table) and nccl-tests' table format.
 *
 * For each group size g (2, 4, 8, ... below the world size, then the world size) ranks
 * 0..g-1 form the group and the others wait (nccl-tests run on g processes; no
 * concurrent groups compete). For each collective and size: fill the inputs with small
 * rank-dependent integers, run once and count the wrong elements (exact in FP32), then
 * `warmup` untimed and `iters` timed operations, each followed by a synchronize (blocking,
 * like nccl-tests -z 1: the CPU backend lets operations on one stream overlap, which
 * would time several at once). time = loop time / iters, averaged over the group. */
#include "exec/calibrate-private.h"

#include <math.h>
#include <string.h>

static const PlanColl sweep_colls[] = {
  PLAN_COLL_ALL_REDUCE, PLAN_COLL_REDUCE_SCATTER, PLAN_COLL_ALL_GATHER,
  PLAN_COLL_ALL_TO_ALL, PLAN_COLL_SEND_RECV,
};

/* nccl-tests' name of a collective's binary: all_reduce_perf, alltoall_perf, ... */
static const char *
perf_name (PlanColl coll)
{
  return plan_coll_name (coll);
}

static ExecCollKind
exec_kind (PlanColl coll)
{
  switch (coll)
    {
    case PLAN_COLL_ALL_REDUCE:     return EXEC_COLL_ALL_REDUCE;
    case PLAN_COLL_REDUCE_SCATTER: return EXEC_COLL_REDUCE_SCATTER;
    case PLAN_COLL_ALL_GATHER:     return EXEC_COLL_ALL_GATHER;
    case PLAN_COLL_ALL_TO_ALL:     return EXEC_COLL_ALL_TO_ALL;
    default:                       return EXEC_COLL_SEND_RECV;
    }
}

/* Whether nccl-tests' size column counts count x ranks elements (conventions.md 2.2). */
static gboolean
size_is_total (PlanColl coll)
{
  return coll == PLAN_COLL_REDUCE_SCATTER || coll == PLAN_COLL_ALL_GATHER
         || coll == PLAN_COLL_ALL_TO_ALL;
}

/* Inputs and expected outputs (r = this rank's index in the group, g members, c = count):
 *   all_reduce     in[i] = r + i%7                 out[i] = g(g-1)/2 + g (i%7)
 *   reduce_scatter in[j] = r + j%7, j < g c        out[i] = g(g-1)/2 + g ((r c + i)%7)
 *   all_gather     in[i] = r + i%7                 out[q c + i] = q + i%7
 *   alltoall       in[q c + i] = (r + 2q + i)%13   out[q c + i] = (q + 2r + i)%13
 *   sendrecv       in[i] = r + i%7, to r+1         out[i] = (r-1) + i%7
 * Every value is a small integer, so FP32 sums are exact. */
static void
fill_input (PlanColl coll, int r, int g, gsize c, float *in)
{
  const gsize n = size_is_total (coll) && coll != PLAN_COLL_ALL_GATHER ? (gsize) g * c : c;
  for (gsize j = 0; j < n; j++)
    in[j] = coll == PLAN_COLL_ALL_TO_ALL ? (float) ((r + 2 * (j / c) + j % c) % 13)
                                         : (float) (r + j % 7);
}

static float
expected (PlanColl coll, int r, int g, gsize c, gsize j)
{
  const float tri = (float) g * (g - 1) / 2;
  switch (coll)
    {
    case PLAN_COLL_ALL_REDUCE:     return tri + g * (float) (j % 7);
    case PLAN_COLL_REDUCE_SCATTER: return tri + g * (float) ((r * c + j) % 7);
    case PLAN_COLL_ALL_GATHER:     return (float) (j / c + j % c % 7);
    case PLAN_COLL_ALL_TO_ALL:     return (float) ((j / c + 2 * r + j % c) % 13);
    default:                       return (float) ((r + g - 1) % g + j % 7);
    }
}

typedef struct {
  CalCtx    *ctx;
  ExecGroup *group;
  int        warmup;
  double     budget_B;     /* iterations = clamp (budget / size, min_iters, max_iters) */
  int        min_iters, max_iters;
} Sweep;

static gboolean
measure (Sweep *sw, PlanColl coll, guint64 target_B, ExecCollRow *row, GError **error)
{
  ExecBackend *b = sw->ctx->b;
  ExecStream *s = sw->ctx->stream;
  const int g = sw->group->size, r = sw->group->rank;
  const gsize c = size_is_total (coll) ? target_B / 4 / g : target_B / 4;
  const gsize n_in = coll == PLAN_COLL_REDUCE_SCATTER || coll == PLAN_COLL_ALL_TO_ALL ? g * c : c;
  const gsize n_out = coll == PLAN_COLL_ALL_GATHER || coll == PLAN_COLL_ALL_TO_ALL ? g * c : c;
  memset (row, 0, sizeof *row);
  row->coll = coll;
  row->ranks = g;
  row->count = c;
  row->size_B = (guint64) c * 4 * (size_is_total (coll) ? g : 1);
  g_strlcpy (row->type, "float", sizeof row->type);
  g_strlcpy (row->redop, coll == PLAN_COLL_ALL_REDUCE || coll == PLAN_COLL_REDUCE_SCATTER
                           ? "sum" : "none", sizeof row->redop);
  row->root = -1;
  row->ip_time_us = -1;
  row->ip_wrong = -1;

  g_autofree float *host_in = g_new (float, n_in), *host_out = g_new0 (float, n_out);
  fill_input (coll, r, g, c, host_in);
  ExecBuffer *in = exec_buffer_new (b, n_in * 4, error);
  ExecBuffer *out = in ? exec_buffer_new (b, n_out * 4, error) : NULL;
  ExecColl op = { .kind = exec_kind (coll), .dtype = EXEC_DTYPE_F32,
                  .send = in ? in->data : NULL, .recv = out ? out->data : NULL, .count = c,
                  .peer = (r + 1) % g, .recv_peer = (r + g - 1) % g };
  gboolean ok = out != NULL && b->ops->buffer_upload (b, in, 0, host_in, n_in * 4, error)
                && exec_collective (s, sw->group, &op, NULL, error)
                && exec_stream_synchronize (s, error)
                && b->ops->buffer_download (b, host_out, out, 0, n_out * 4, error);
  gint64 wrong = 0;
  for (gsize j = 0; ok && j < n_out; j++)
    wrong += host_out[j] != expected (coll, r, g, c, j);

  const int iters = (int) CLAMP (sw->budget_B / MAX (row->size_B, 1), sw->min_iters,
                                 sw->max_iters);
  for (int i = 0; ok && i < sw->warmup; i++)
    ok = exec_collective (s, sw->group, &op, NULL, error) && exec_stream_synchronize (s, error);
  ok = ok && cal_barrier (sw->ctx, sw->group, error);
  const double t0 = cal_now_s ();
  for (int i = 0; ok && i < iters; i++)
    ok = exec_collective (s, sw->group, &op, NULL, error) && exec_stream_synchronize (s, error);
  double v[2] = { (cal_now_s () - t0) / iters * 1e6, (double) wrong };
  ok = ok && cal_group_sum (sw->ctx, sw->group, v, 2, error);
  exec_buffer_free (out);
  exec_buffer_free (in);
  if (!ok)
    return FALSE;
  /* algbw = S / t, busbw = algbw x factor (nccl-tests *GetBw; GB/s = 1e9 B/s) */
  row->time_us = v[0] / g;
  row->wrong = (gint64) llround (v[1]);
  row->algbw_GBs = (double) row->size_B / (row->time_us * 1e3);
  row->busbw_GBs = row->algbw_GBs * plan_coll_bus_factor (coll, g);
  return TRUE;
}

gboolean
exec_calibrate_collectives (ExecBackend *b, const ExecCalibrateOptions *o,
                            ExecCalibration *cal, GError **error)
{
  const int world = b->world;
  if (world < 2)
    {
      cal->colls_measured = FALSE;
      return TRUE;
    }
  /* quick: the latency; 256 KiB, a tiny-llama activation (its TP collectives and PP
   * sends); 4 MiB; and 16 MiB, its DP gradient all-reduce (15.8 MB): beyond the
   * last-level cache shared-memory transfers slow down (4 MiB at ~3 GB/s busbw, 16 MiB at
   * ~2 GB/s on the 2-core development VM), so the largest size must be measured, not
   * held from a cache-resident one */
  static const guint64 quick_sizes[] = { 1024, 262144, 4194304, 16777216 };
  GArray *sizes = g_array_new (FALSE, FALSE, sizeof (guint64));
  if (o->quick)
    g_array_append_vals (sizes, quick_sizes, G_N_ELEMENTS (quick_sizes));
  else
    for (guint64 s = 1024; s <= (guint64) 64 << 20; s *= 4)   /* 1 KiB .. 64 MiB */
      g_array_append_val (sizes, s);

  CalCtx *ctx = cal_ctx_new (b, error);
  gboolean ok = ctx != NULL;
  for (int g = 2; ok && g <= world; g = g * 2 > world && g < world ? world : g * 2)
    {
      /* ranks 0..g-1 measure; the others form the rest group (every rank must create a
       * group in the same order: MPI_Comm_split is collective) */
      const gboolean member = b->rank < g;
      const int first = member ? 0 : g, n = member ? g : world - g;
      g_autofree int *members = g_new (int, MAX (n, 1));
      for (int i = 0; i < n; i++)
        members[i] = first + i;
      g_autofree char *name = g_strdup_printf ("calibrate-%d", g);
      ExecGroup *group = exec_group_new (b, name, members, n, error);
      ok = group != NULL;
      Sweep sw = { ctx, group, o->quick ? 2 : 5, o->quick ? 16.0 * (1 << 20) : 256.0 * (1 << 20),
                   o->quick ? 3 : 5, o->quick ? 50 : 200 };
      for (guint ci = 0; ok && member && ci < G_N_ELEMENTS (sweep_colls); ci++)
        for (guint si = 0; ok && si < sizes->len; si++)
          {
            ExecCollRow row;
            const PlanColl coll = sweep_colls[ci];
            const guint64 target = g_array_index (sizes, guint64, si);
            if (size_is_total (coll) && target / 4 / g == 0)
              continue;
            ok = measure (&sw, coll, target, &row, error);
            if (ok)
              {
                g_array_append_val (cal->colls, row);
                if (b->rank == 0 && o->on_coll)
                  o->on_coll (&row, o->user_data);
              }
          }
      ok = ok && cal_barrier (ctx, ctx->world, error);
      exec_group_free (group);
      if (g == world)
        break;
    }
  cal_ctx_free (ctx);
  g_array_unref (sizes);
  cal->colls_measured = ok;
  return ok;
}

/* ---- nccl-tests' table ----------------------------------------------------------------- */

/* nccl-tests' getFloatStr: a 7-wide field with 2, 1 or 0 decimals as the value grows. */
static void
append_time (GString *out, double v)
{
  if (v < 0)
    {
      g_string_append_printf (out, "  %7s", "N/A");
      return;
    }
  int digits = 0;
  for (double p = 1; v >= p && digits < 20; p *= 10)
    digits++;
  g_string_append_printf (out, "  %7.*f", digits < 5 ? 2 : digits < 6 ? 1 : 0, v);
}

static void
append_set (GString *out, double time_us, double algbw, double busbw, gint64 wrong)
{
  append_time (out, time_us);
  /* an unknown bandwidth (an imported "N/A", stored as -1) is written back as N/A, so the
   * table reads back: the import refuses negative numbers */
  double bw[2] = { algbw, busbw };
  for (int i = 0; i < 2; i++)
    if (time_us < 0 || bw[i] < 0)
      g_string_append_printf (out, "  %6s", "N/A");
    else
      g_string_append_printf (out, "  %6.2f", bw[i]);
  if (wrong < 0)
    g_string_append_printf (out, "  %6s", "N/A");
  else
    g_string_append_printf (out, "  %6" G_GINT64_FORMAT, wrong);
}

static void
append_header (GString *out, PlanColl coll, int ranks, gboolean in_place, const char *note)
{
  g_string_append_printf (out, "# Collective test starting: %s_perf\n", perf_name (coll));
  g_string_append_printf (out, "# nranks %d\n", ranks);
  if (note != NULL)
    g_string_append_printf (out, "# %s\n", note);
  g_string_append (out, "#\n");
  g_string_append_printf (out, "# %10s  %12s  %8s  %6s  %6s           out-of-place%s\n", "",
                          "", "", "", "", in_place ? "                       in-place" : "");
  g_string_append_printf (out, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s", "size",
                          "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong");
  if (in_place)
    g_string_append_printf (out, "  %7s  %6s  %6s  %6s", "time", "algbw", "busbw", "#wrong");
  g_string_append_printf (out, "\n# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s", "(B)",
                          "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "");
  if (in_place)
    g_string_append_printf (out, "  %7s  %6s  %6s  %6s", "(us)", "(GB/s)", "(GB/s)", "");
  g_string_append_c (out, '\n');
}

void
exec_coll_rows_format (GString *out, const ExecCollRow *rows, guint n_rows, const char *note)
{
  for (guint i = 0; i < n_rows;)
    {
      /* one block per run of rows with the same (collective, ranks) */
      guint end = i;
      gboolean in_place = FALSE;
      while (end < n_rows && rows[end].coll == rows[i].coll && rows[end].ranks == rows[i].ranks)
        in_place |= rows[end++].ip_time_us >= 0;
      append_header (out, rows[i].coll, rows[i].ranks, in_place, note);
      for (; i < end; i++)
        {
          const ExecCollRow *r = &rows[i];
          g_string_append_printf (out, "  %10" G_GUINT64_FORMAT "  %12" G_GUINT64_FORMAT
                                  "  %8s  %6s  %6d", r->size_B, r->count, r->type, r->redop,
                                  r->root);
          append_set (out, r->time_us, r->algbw_GBs, r->busbw_GBs, r->wrong);
          if (in_place)
            append_set (out, r->ip_time_us, r->ip_algbw_GBs, r->ip_busbw_GBs, r->ip_wrong);
          g_string_append_c (out, '\n');
        }
      g_string_append (out, "#\n");
    }
}
