/* cli/cmd-calibrate.c - `tandem calibrate`: microbenchmarks of this machine (GEMM grid and
 * a plan's GEMM shapes, memory bandwidth, and under mpirun a collective sweep printed
 * with nccl-tests' columns), and nccl-tests outputs imported; the result is a hardware
 * profile stored in SQLite and a cluster JSON that `tandem predict --cluster` reads.
 *
 *   tandem calibrate --backend cpu --quick                 GEMM + memory, one process
 *   mpirun -np 4 tandem calibrate --quick                  + collectives over 2 and 4 ranks
 *   tandem calibrate --quick --model tiny-llama --tp 2     + the plan's GEMM and attention
 *                                                          shapes
 *   tandem calibrate --no-bench --cluster h100-24k \
 *       --import-nccl-tests all_reduce_perf.txt --out h100-measured.json
 *
 * Under MPI every rank runs the benchmarks; rank 0 prints, writes and stores. */
#include "cli/cli.h"
#include "cli/cli-hygiene.h"
#include "exec/calibrate.h"
#include "plan/program.h"
#include "results/store.h"
#include "cli/cli-store.h"
#include "util/input.h"
#include "util/output.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#define DEFAULT_OUT "tandem-cpu-profile.json"

typedef struct {
  gboolean   json;
  gboolean   gemm_header, coll_started, attn_header, kernel_header;
  PlanColl   last_coll;
  int        last_ranks;
} Printer;

static void
print_gemm_row (const ExecGemmRow *r, gpointer data)
{
  Printer *p = data;
  if (p->json)
    return;
  if (!p->gemm_header)
    {
      printf ("GEMM (per rank, all ranks computing; checked on a sub-block; %% of the "
              "device's peak for the dtype where --cluster names the device)\n");
      printf ("  %-11s %6s %6s %6s %12s %10s %7s %6s %7s\n", "dtype", "m", "n", "k", "time_us",
              "GFLOP/s", "%peak", "reps", "#wrong");
      p->gemm_header = TRUE;
    }
  char peak[16] = "-";
  if (r->peak_fraction > 0)
    g_snprintf (peak, sizeof peak, "%.1f", 100.0 * r->peak_fraction);
  printf ("  %-11s %6d %6d %6d %12.2f %10.2f %7s %6d %7" G_GINT64_FORMAT "%s\n",
          exec_dtype_name (r->dtype), r->m, r->n, r->k, r->time_s * 1e6, r->flops_per_s / 1e9,
          peak, r->reps, r->wrong, r->from_plan ? "  (plan)" : "");
  fflush (stdout);
}

static void
print_attn_row (const ExecAttnRow *r, gpointer data)
{
  Printer *p = data;
  if (p->json)
    return;
  if (!p->attn_header)
    {
      printf ("\nattention core (per rank, all ranks computing; checked on sampled queries)\n");
      printf ("  %4s %5s %5s %6s %6s %5s %6s %11s %11s %9s %9s %5s %7s\n", "b", "heads", "kv",
              "s_q", "s_kv", "dim", "causal", "fwd_us", "bwd_us", "fwd_GF/s", "bwd_GF/s",
              "reps", "#wrong");
      p->attn_header = TRUE;
    }
  const ExecAttnShape *a = &r->shape;
  printf ("  %4d %5d %5d %6d %6d %5d %6s %11.2f %11.2f %9.2f %9.2f %5d %7" G_GINT64_FORMAT
          "%s\n", a->b, a->heads, a->kv_heads, a->s_q, a->s_kv, a->head_dim,
          a->causal ? "yes" : "no", r->fwd_s * 1e6, r->bwd_s * 1e6, r->fwd_flops_per_s / 1e9,
          r->bwd_flops_per_s / 1e9, r->reps, r->wrong, r->from_plan ? "  (plan)" : "");
  fflush (stdout);
}

static void
print_kernel_row (const ExecKernelRow *r, gpointer data)
{
  Printer *p = data;
  if (p->json)
    return;
  if (!p->kernel_header)
    {
      printf ("\nmemory-bound kernels (per rank, all ranks computing)\n");
      printf ("  %-14s %12s %12s %10s %6s %7s\n", "kind", "elements", "time_us", "GB/s", "reps",
              "#wrong");
      p->kernel_header = TRUE;
    }
  printf ("  %-14s %12" G_GUINT64_FORMAT " %12.2f %10.2f %6d %7" G_GINT64_FORMAT "\n",
          topo_kernel_name (r->kind), r->elements, r->time_s * 1e6, r->Bps / 1e9, r->reps,
          r->wrong);
  fflush (stdout);
}

static void
print_coll_row (const ExecCollRow *r, gpointer data)
{
  Printer *p = data;
  if (p->json)
    return;
  if (!p->coll_started)
    printf ("\ncollectives (nccl-tests columns; blocking, out-of-place, averaged over ranks)\n");
  g_autoptr (GString) s = g_string_new (NULL);
  exec_coll_rows_format (s, r, 1, NULL);
  /* a block per (collective, ranks): its header lines only when it starts; never the
   * closing "#" (the next row may continue the block) */
  const gboolean same = p->coll_started && r->coll == p->last_coll && r->ranks == p->last_ranks;
  if (p->coll_started && !same)
    putchar ('\n');
  g_auto (GStrv) lines = g_strsplit (s->str, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const gboolean closing = lines[i + 1] == NULL || lines[i + 1][0] == '\0';
      if (lines[i][0] == '\0' || (lines[i][0] == '#' && (same || closing)))
        continue;
      printf ("%s\n", lines[i]);
    }
  p->coll_started = TRUE;
  p->last_coll = r->coll;
  p->last_ranks = r->ranks;
  fflush (stdout);
}

/* Distinct GEMM shapes (m, n, k) of the plan's program, per rank, and (into `attn`)
 * its distinct attention shapes (ExecAttnShape). */
static GArray *
plan_shapes (CliPlanContext *ctx, GArray *attn, GError **error)
{
  g_autoptr (ProgProgram) prog = prog_program_new (ctx->model, &ctx->plan, ctx->layout, error);
  if (prog == NULL)
    return NULL;
  exec_calibrate_plan_attention (prog, attn);
  GArray *shapes = g_array_new (FALSE, FALSE, 3 * sizeof (int));
  for (guint i = 0; i < prog->ops->len; i++)
    {
      const ModelOp *op = &g_array_index (prog->ops, ModelOp, i);
      if (op->kind != MODEL_OP_GEMM)
        continue;
      const int s[3] = { (int) MIN (op->m, G_MAXINT), (int) MIN (op->n, G_MAXINT),
                         (int) MIN (op->k, G_MAXINT) };
      gboolean seen = FALSE;
      for (guint j = 0; j < shapes->len && !seen; j++)
        {
          const int *t = (const int *) (void *) shapes->data + 3 * j;
          seen = t[0] == s[0] && t[1] == s[1] && t[2] == s[2];
        }
      if (!seen)
        g_array_append_vals (shapes, s, 1);
    }
  return shapes;
}

static void
json_coll_rows (JsonBuilder *b, const ExecCollRow *rows, guint n)
{
  json_builder_begin_array (b);
  for (guint i = 0; i < n; i++)
    {
      const ExecCollRow *r = &rows[i];
      json_builder_begin_object (b);
#define M_STR(k, v) (json_builder_set_member_name (b, k), json_builder_add_string_value (b, v))
#define M_INT(k, v) (json_builder_set_member_name (b, k), json_builder_add_int_value (b, v))
#define M_DBL(k, v) (json_builder_set_member_name (b, k), json_builder_add_double_value (b, v))
      M_STR ("coll", plan_coll_name (r->coll));
      M_INT ("ranks", r->ranks);
      M_INT ("size_B", (gint64) r->size_B);
      M_INT ("count", (gint64) r->count);
      M_STR ("dtype", r->type);
      M_DBL ("time_us", r->time_us);
      M_DBL ("algbw_GBs", r->algbw_GBs);
      M_DBL ("busbw_GBs", r->busbw_GBs);
      M_INT ("wrong", r->wrong);
      if (r->ip_time_us >= 0)
        {
          M_DBL ("ip_time_us", r->ip_time_us);
          M_DBL ("ip_algbw_GBs", r->ip_algbw_GBs);
          M_DBL ("ip_busbw_GBs", r->ip_busbw_GBs);
          M_INT ("ip_wrong", r->ip_wrong);
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

#define CAL_HINT "calibrate again on a quiet machine: the profile keeps each row's median window"

/* Measurement hygiene: the GEMM row whose timing windows lay furthest apart on this
 * rank, as a spread of its windows (min, median = the row's time, max), with the load
 * average taken before the benchmarks; *what names the row. */
static void
gemm_spread (const ExecCalibration *cal, double load1, CliSpread *sp, char *what, gsize len)
{
  const ExecGemmRow *widest = NULL;
  double best = -1;
  for (guint i = 0; i < cal->gemm->len; i++)
    {
      const ExecGemmRow *g = &g_array_index (cal->gemm, ExecGemmRow, i);
      double w = g->time_s > 0 ? (g->window_max_s - g->window_min_s) / g->time_s : 0;
      if (w > best)
        best = w, widest = g;
    }
  double v[3] = { 0, 0, 0 };
  int n = 1;
  g_strlcpy (what, "GEMM time", len);
  if (widest != NULL)
    {
      v[0] = widest->window_min_s, v[1] = widest->time_s, v[2] = widest->window_max_s;
      n = 3;
      g_snprintf (what, len, "GEMM time of %s %d x %d x %d", exec_dtype_name (widest->dtype),
                  widest->m, widest->n, widest->k);
    }
  cli_spread_compute (v, n, load1, MAX (cal->ranks, 1), sp);
  /* the ranks' share of a core over the compute benchmarks decides, where known */
  cli_spread_set_share (sp, cal->contention.compute_share);
}

static void
print_json (const ExecCalibration *cal, gboolean quick, const GArray *imported,
            const char *out, const char *out_error, const char *kept_file, CliStored *st,
            double load1)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  if (cal != NULL)
    {
      M_STR ("backend", cal->backend);
      M_STR ("host", cal->host);
      M_STR ("date", cal->date);
      M_INT ("ranks", cal->ranks);
      json_builder_set_member_name (b, "quick");
      json_builder_add_boolean_value (b, quick);
      M_DBL ("launch_us", cal->launch_s * 1e6);
      json_builder_set_member_name (b, "gemm");
      json_builder_begin_array (b);
      for (guint i = 0; i < cal->gemm->len; i++)
        {
          const ExecGemmRow *g = &g_array_index (cal->gemm, ExecGemmRow, i);
          json_builder_begin_object (b);
          M_INT ("m", g->m);
          M_INT ("n", g->n);
          M_INT ("k", g->k);
          M_STR ("dtype", exec_dtype_name (g->dtype));
          M_DBL ("time_us", g->time_s * 1e6);
          M_DBL ("gflops", g->flops_per_s / 1e9);
          if (g->peak_flops_per_s > 0)
            {
              M_DBL ("peak_gflops", g->peak_flops_per_s / 1e9);
              M_DBL ("peak_fraction", g->peak_fraction);
            }
          M_INT ("reps", g->reps);
          M_DBL ("window_min_us", g->window_min_s * 1e6);
          M_DBL ("window_max_us", g->window_max_s * 1e6);
          if (g->share > 0)   /* the kept window's core share (the profile's rate restated) */
            M_DBL ("share", g->share);
          M_INT ("wrong", g->wrong);
          json_builder_set_member_name (b, "from_plan");
          json_builder_add_boolean_value (b, g->from_plan);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      {
        CliSpread sp;
        char what[96];
        gemm_spread (cal, load1, &sp, what, sizeof what);
        cli_spread_to_json (&sp, what, CAL_HINT, "spread", b);
      }
      json_builder_set_member_name (b, "skipped_shapes");
      json_builder_begin_array (b);
      for (guint i = 0; i < cal->skipped->len; i++)
        json_builder_add_string_value (b, g_ptr_array_index (cal->skipped, i));
      json_builder_end_array (b);
      json_builder_set_member_name (b, "gemm_dtypes_skipped");
      json_builder_begin_array (b);
      for (guint i = 0; i < cal->gemm_dtypes_skipped->len; i++)
        json_builder_add_string_value (b, g_ptr_array_index (cal->gemm_dtypes_skipped, i));
      json_builder_end_array (b);
      if (cal->memory.bytes > 0)
        {
          json_builder_set_member_name (b, "memory");
          json_builder_begin_object (b);
          M_INT ("array_bytes", (gint64) cal->memory.bytes);
          M_DBL ("copy_GBps", cal->memory.copy_GBps);
          M_DBL ("triad_GBps", cal->memory.triad_GBps);
          M_INT ("wrong", cal->memory.wrong);
          json_builder_set_member_name (b, "on_device");
          json_builder_add_boolean_value (b, cal->memory.on_device);
          json_builder_end_object (b);
        }
      if (cal->contention.cores > 0)
        {
          const ExecContentionRow *ct = &cal->contention;
          json_builder_set_member_name (b, "contention");
          json_builder_begin_object (b);
          M_INT ("cores", ct->cores);
          M_INT ("blas_threads", ct->blas_threads);
          M_INT ("progress_threads", ct->progress_threads);
          M_INT ("gemm_m", ct->gemm_m);
          M_DBL ("gemm_alone_s", ct->gemm_alone_s);
          M_DBL ("gemm_with_allreduce_s", ct->gemm_coll_s);
          M_DBL ("allreduce_bytes", ct->coll_bytes);
          M_DBL ("allreduce_s", ct->coll_s);
          M_INT ("reps", ct->reps);
          M_INT ("allreduces", ct->n_coll);
          M_INT ("wrong", ct->wrong);
          M_DBL ("compute_share", ct->compute_share);
          json_builder_end_object (b);
        }
      json_builder_set_member_name (b, "attention");
      json_builder_begin_array (b);
      for (guint i = 0; cal->attention != NULL && i < cal->attention->len; i++)
        {
          const ExecAttnRow *r = &g_array_index (cal->attention, ExecAttnRow, i);
          json_builder_begin_object (b);
          M_INT ("b", r->shape.b);
          M_INT ("heads", r->shape.heads);
          M_INT ("kv_heads", r->shape.kv_heads);
          M_INT ("s_q", r->shape.s_q);
          M_INT ("s_kv", r->shape.s_kv);
          M_INT ("head_dim", r->shape.head_dim);
          json_builder_set_member_name (b, "causal");
          json_builder_add_boolean_value (b, r->shape.causal);
          M_DBL ("fwd_us", r->fwd_s * 1e6);
          M_DBL ("bwd_us", r->bwd_s * 1e6);
          M_DBL ("fwd_gflops", r->fwd_flops_per_s / 1e9);
          M_DBL ("bwd_gflops", r->bwd_flops_per_s / 1e9);
          if (r->fwd_share > 0 && r->bwd_share > 0)
            {
              M_DBL ("fwd_share", r->fwd_share);
              M_DBL ("bwd_share", r->bwd_share);
            }
          M_INT ("reps", r->reps);
          M_INT ("wrong", r->wrong);
          json_builder_set_member_name (b, "from_plan");
          json_builder_add_boolean_value (b, r->from_plan);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_set_member_name (b, "kernels");
      json_builder_begin_array (b);
      for (guint i = 0; cal->kernels != NULL && i < cal->kernels->len; i++)
        {
          const ExecKernelRow *r = &g_array_index (cal->kernels, ExecKernelRow, i);
          json_builder_begin_object (b);
          M_STR ("kind", topo_kernel_name (r->kind));
          M_INT ("elements", (gint64) r->elements);
          M_DBL ("time_us", r->time_s * 1e6);
          M_DBL ("GBps", r->Bps / 1e9);
          if (r->share > 0)
            M_DBL ("share", r->share);
          M_INT ("reps", r->reps);
          M_INT ("wrong", r->wrong);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_set_member_name (b, "collectives_measured");
      json_builder_add_boolean_value (b, cal->colls_measured);
      json_builder_set_member_name (b, "collectives");
      json_coll_rows (b, (const ExecCollRow *) cal->colls->data, cal->colls->len);
    }
  json_builder_set_member_name (b, "imported");
  json_coll_rows (b, (const ExecCollRow *) imported->data, imported->len);
  /* a --out that could not be written: null, with why and where the profile went */
  json_builder_set_member_name (b, "cluster_file");
  if (out_error == NULL)
    json_builder_add_string_value (b, out);
  else
    {
      json_builder_add_null_value (b);
      M_STR ("cluster_file_error", out_error);
      json_builder_set_member_name (b, "kept_file");
      if (kept_file != NULL)
        json_builder_add_string_value (b, kept_file);
      else
        json_builder_add_null_value (b);
    }
  if (st->tried)
    M_STR ("db", st->db);
  json_builder_end_object (b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  cli_stored_apply (st, "calibrate", root);
  g_autofree char *text = util_json_to_data (root, TRUE);
  puts (text);
  cli_stored_print_error (st);
}
#undef M_STR
#undef M_INT
#undef M_DBL

/* The profile of an import-only run: nccl-tests rows on top of the given cluster. */
static char *
import_only_json (const CliPlanContext *ctx, const GArray *imported, char **files,
                  GError **error)
{
  g_autoptr (TopoProfile) prof = topo_profile_new ();
  g_autoptr (GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *date = g_date_time_format (now, "%Y-%m-%dT%H:%M:%SZ");
  g_autofree char *list = g_strjoinv (", ", files);
  prof->source = g_strdup_printf ("nccl-tests output (%s), imported by tandem calibrate on %s, "
                                  "%s", list, g_get_host_name (), date);
  prof->backend = g_strdup ("nccl-tests");
  prof->date = g_strdup (date);
  if (ctx->cluster->profile != NULL)   /* keep what the cluster already had */
    {
      topo_profile_free (prof);
      prof = topo_profile_copy (ctx->cluster->profile);
      g_free (prof->source);
      prof->source = g_strdup_printf ("%s; nccl-tests output (%s) imported on %s",
                                      ctx->cluster->profile->source, list, date);
    }
  exec_coll_rows_to_profile ((const ExecCollRow *) imported->data, imported->len, prof);
  return topo_cluster_json_set_profile (ctx->cluster->json, prof, error);
}

static gboolean
load_imports (char **imports, GArray *imported, GError **error)
{
  for (guint i = 0; imports != NULL && imports[i] != NULL; i++)
    if (!exec_nccl_tests_load_file (imports[i], imported, error))
      return FALSE;
  const guint before = imported->len;
  const guint merged = exec_coll_rows_merge_repeats (imported);
  if (merged > 0)
    fprintf (stderr, "tandem: note: --import-nccl-tests: %u of %u rows repeated a (collective, "
             "ranks, size) already read (nccl-tests -d all or -o all, or runs appended): each "
             "such size is taken at its median time (%u rows left)\n", merged, before,
             imported->len);
  return TRUE;
}

static gpointer
stop_later (gpointer rank)
{
  g_usleep (1500000);
  fprintf (stderr, "tandem: rank %d: TANDEM_TEST_CALIBRATE_STOP_RANK: SIGSTOP\n",
           GPOINTER_TO_INT (rank));
  fflush (stderr);
  kill (getpid (), SIGSTOP);
  return NULL;
}

static int
calibrate (CliPlanContext *ctx, const char *backend_name, gboolean quick, gboolean no_bench,
           gboolean json, const CliDbArgs *dba, const char *out_arg, char **imports,
           int blas_threads, double timeout_s)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *out_error = NULL;   /* --out failed at write time (below) */
  g_autofree char *kept = NULL, *kept_file = NULL;   /* ... and where the profile went */
  const char *out = out_arg ? out_arg : DEFAULT_OUT;
  /* the outputs checked before any measurement */
  if (!cli_db_args_check (dba, &error))
    return cli_fail (CLI_EXIT_USAGE, "%s", error->message);
  if (!util_output_check (out, &error))
    return cli_fail (CLI_EXIT_USAGE, "--out: %s", error->message);
  /* `--out tandem.db` wrote the cluster JSON over the results store, and `--out
   * config.json` over the model it measures (--cluster's file is left out: --no-bench
   * extends it, and writing the result back in its place loses nothing) */
  const char *const inputs[] = { "--model", ctx->args.model_name, "--plan",
                                 ctx->args.plan_file, NULL };
  /* "-" is no stdout here: a file named "-" was written */
  if (g_str_equal (out, "-"))
    return cli_fail (CLI_EXIT_USAGE, "--out -: the profile is a cluster file to read back "
                     "with --cluster, not a stream (hint: --out host.json)");
  if (!cli_output_not_input ("--out", "profile", out, inputs, &error)
      || !cli_output_not_db ("--out", "profile", out, dba->db, dba->no_db, &error))
    return cli_fail (CLI_EXIT_USAGE, "%s", error->message);
  /* a file named as a preset takes the preset's place wherever --cluster NAME is read
   * in this directory (a file comes first): `--out h200-node` made every later
   * `--cluster h200-node` here this host, 900 times slower, without a word */
  {
    g_autoptr (GError) perr = NULL;
    g_autoptr (TopoCluster) preset = strchr (out, '/') == NULL
                                     ? topo_cluster_load_preset (out, &perr) : NULL;
    if (preset != NULL)
      return cli_fail (CLI_EXIT_USAGE, "--out %s is the name of the cluster preset %s: the "
                       "file would take the preset's place in every --cluster %s read in "
                       "this directory (hint: --out %s.json, or another name)", out,
                       preset->name, out, out);
  }
  if (!dba->no_db && !cli_fallback_check (&error))
    return cli_fail (CLI_EXIT_FAILURE, "%s", error->message);
  g_autoptr (GArray) imported = g_array_new (FALSE, TRUE, sizeof (ExecCollRow));
  g_autoptr (GArray) shapes = NULL;
  g_autoptr (GArray) attn = g_array_new (FALSE, TRUE, sizeof (ExecAttnShape));
  if (ctx->args.model_name != NULL && !no_bench)
    {
      shapes = plan_shapes (ctx, attn, &error);
      if (shapes == NULL)
        return cli_fail (CLI_EXIT_USAGE, "%s", error->message);
    }

  g_autoptr (ExecCalibration) cal = NULL;
  g_autofree char *text = NULL;
  g_autoptr (TopoCluster) check = NULL;
  ExecBackend *b = NULL;
  int rank = 0;
  double load1 = -1;
  Printer printer = { .json = json };
  if (!no_bench)
    {
      ExecConfig cfg;
      exec_config_init (&cfg);
      cfg.backend = backend_name;
      cfg.blas_threads = blas_threads;
      /* a peer that takes no part (stopped, hung) ends the wait: after --timeout, else the
       * backend's 300 s, which was the only bound (a stopped rank held the job 5 min) */
      cfg.timeout_s = timeout_s;
      /* an unknown name is bad input (2); a known backend that does not load (module,
       * driver or libraries missing) fails at run time (1), as tandem run has it */
      if (exec_backend_lookup (backend_name, &error) == NULL)
        return g_strcmp0 (backend_name, "cuda") == 0
                 ? cli_fail (CLI_EXIT_FAILURE, "%s", error->message)
                 : cli_fail (CLI_EXIT_USAGE, "%s (hint: --backend cpu|cuda)", error->message);
      b = exec_backend_open (&cfg, &error);
      if (b == NULL)
        return cli_fail (CLI_EXIT_FAILURE, "%s", error->message);
      rank = b->rank;
      /* test hook: rank R stops (SIGSTOP) 1.5 s into the benchmarks, its groups made
       * (tests/exec/test-run-faults.c) */
      const char *stop = g_getenv ("TANDEM_TEST_CALIBRATE_STOP_RANK");
      if (stop != NULL && b->world > 1 && atoi (stop) == rank)
        g_thread_unref (g_thread_new ("tandem-test-stop", stop_later, GINT_TO_POINTER (rank)));
      /* the nccl-tests files read now, before minutes of measurement (rank 0, as ever):
       * a wrong path or a file that is not nccl-tests output ended the command only after
       * the benchmarks */
      if (rank == 0 && !load_imports (imports, imported, &error))
        {
          int status = cli_fail (CLI_EXIT_USAGE, "%s", error->message);
          if (b->world > 1)
            exec_backend_abort (b, status);
          exec_backend_close (b);
          return status;
        }
      ExecCalibrateOptions o;
      exec_calibrate_options_init (&o);
      o.quick = quick;
      /* the named cluster's device gives the peaks the GEMM rows are compared with */
      if (ctx->args.cluster_name != NULL)
        o.device = &ctx->cluster->device;
      o.on_gemm = print_gemm_row;
      o.on_coll = print_coll_row;
      o.on_attention = print_attn_row;
      o.on_kernel = print_kernel_row;
      o.user_data = &printer;
      if (shapes != NULL)
        {
          o.extra_shapes = (const int (*)[3]) (void *) shapes->data;
          o.n_extra_shapes = shapes->len;
        }
      if (attn->len > 0)
        {
          o.extra_attention = (const ExecAttnShape *) (void *) attn->data;
          o.n_extra_attention = attn->len;
        }
      if (rank == 0 && !json)
        {
          printf ("tandem calibrate: %s backend on %s, %d rank%s%s\n\n", b->ops->name,
                  g_get_host_name (), b->world, b->world > 1 ? "s" : "",
                  quick ? " (quick)" : "");
          fflush (stdout);
        }
      /* the load before the benchmarks: others' processes, not this run's ranks */
      load1 = rank == 0 ? cli_load_average () : -1;
      cal = exec_calibrate_run (b, &o, &error);
      if (cal == NULL)
        {
          int status = cli_fail (CLI_EXIT_FAILURE, "rank %d: %s%s", rank, error->message,
                                 g_error_matches (error, EXEC_ERROR, EXEC_ERROR_TIMEOUT)
                                   ? " (hint: a stopped, hung or dead rank; --timeout S waits "
                                     "longer for a slow one)" : "");
          exec_backend_close (b);
          return status;
        }
    }
  /* from here on, rank 0 alone: the other ranks are done */
  int status = CLI_EXIT_OK;
  if (rank != 0)
    goto done;
  if (no_bench && !load_imports (imports, imported, &error))
    {
      status = cli_fail (CLI_EXIT_USAGE, "%s", error->message);
      goto done;
    }
  if (!json && cal != NULL)
    {
      printf ("  call overhead (1 x 1 x 1 GEMM): %.3f us\n", cal->launch_s * 1e6);
      CliSpread sp;
      char what[96];
      gemm_spread (cal, load1, &sp, what, sizeof what);
      printf ("  timing windows (rank 0): widest spread %.1f%%, %s: min %.2f / median %.2f / "
              "max %.2f us", 100 * sp.spread, what, sp.min_s * 1e6, sp.median_s * 1e6,
              sp.max_s * 1e6);
      if (sp.load1 >= 0)
        printf ("; load average %.2f on %d cores before", sp.load1, sp.cores);
      if (sp.share > 0)
        printf ("; core share %.2f", sp.share);
      printf ("%s\n", sp.spread_high || sp.loaded ? ": NOT TRUSTWORTHY (see the warnings)" : "");
      for (guint i = 0; i < cal->skipped->len; i++)
        printf ("  plan shape skipped: %s\n", (const char *) g_ptr_array_index (cal->skipped, i));
      for (guint i = 0; i < cal->gemm_dtypes_skipped->len; i++)
        printf ("  GEMM dtype not measured: %s\n",
                (const char *) g_ptr_array_index (cal->gemm_dtypes_skipped, i));
      if (cal->memory.bytes > 0 && cal->memory.on_device)
        printf ("\ndevice memory (per rank, all ranks running; 3 float arrays of %s, best of %d "
                "calls)\n  copy   %8.2f GB/s   (c = a, 8 B per element)\n"
                "  add    %8.2f GB/s   (a = b + c, 12 B per element)   #wrong %" G_GINT64_FORMAT
                "\n", cli_fmt_bytes ((double) cal->memory.bytes), cal->memory.reps,
                cal->memory.copy_GBps, cal->memory.triad_GBps, cal->memory.wrong);
      else if (cal->memory.bytes > 0)
        printf ("\nmemory (per rank, all ranks running; 3 arrays of %s, best of %d)\n"
                "  copy   %8.2f GB/s\n  triad  %8.2f GB/s   #wrong %" G_GINT64_FORMAT "\n",
                cli_fmt_bytes ((double) cal->memory.bytes), cal->memory.reps,
                cal->memory.copy_GBps, cal->memory.triad_GBps, cal->memory.wrong);
      const ExecContentionRow *ct = &cal->contention;
      if (ct->cores > 0)
        printf ("\ncontention (per rank, all ranks running; %d rank%s, %d core%s, %d BLAS + "
                "%d progress thread%s per rank)\n"
                "  GEMM %d^3 alone %10.1f us, with an all-reduce of %s in flight %10.1f us: "
                "compute slowed %.1f%%   #wrong %" G_GINT64_FORMAT "\n"
                "  all-reduce meanwhile %.1f us (%.2f GB/s algbw); share of a core while "
                "runnable over the compute benchmarks' kept windows %.2f\n",
                cal->ranks, cal->ranks == 1 ? "" : "s", ct->cores, ct->cores == 1 ? "" : "s",
                ct->blas_threads, ct->progress_threads, ct->progress_threads == 1 ? "" : "s",
                ct->gemm_m, ct->gemm_alone_s * 1e6, cli_fmt_bytes (ct->coll_bytes),
                ct->gemm_coll_s * 1e6, 100.0 * (ct->gemm_coll_s / ct->gemm_alone_s - 1.0),
                ct->wrong, ct->coll_s * 1e6, ct->coll_bytes / ct->coll_s / 1e9,
                ct->compute_share);
      if (!cal->colls_measured)
        printf ("\ncollectives: not measured in a single process; the sweep needs ranks "
                "(e.g. mpirun -np 2 tandem calibrate%s)\n", quick ? " --quick" : "");
    }
  if (!json && imported->len > 0)
    {
      g_autoptr (GString) s = g_string_new (NULL);
      exec_coll_rows_format (s, (const ExecCollRow *) imported->data, imported->len,
                             "imported from nccl-tests output");
      printf ("\nimported collectives (%u rows)\n%s", imported->len, s->str);
      /* exec_coll_rows_to_profile leaves them out: say so, they were dropped in silence */
      guint wrong = 0;
      for (guint i = 0; i < imported->len; i++)
        {
          const ExecCollRow *r = &g_array_index (imported, ExecCollRow, i);
          wrong += r->wrong > 0 || r->ip_wrong > 0;
        }
      if (wrong > 0)
        printf ("note: %u imported row%s with wrong elements (#wrong > 0, out of place or in "
                "place) left out of the profile: a collective that computes wrong results is "
                "no calibration\n", wrong, wrong == 1 ? "" : "s");
    }

  /* an import whose every row is wrong leaves the profile nothing: refused as a file with
   * no table is (it wrote and stored a profile of 0 collective rows, exit 0) */
  if (no_bench && imported->len > 0)
    {
      guint wrong = 0;
      for (guint i = 0; i < imported->len; i++)
        {
          const ExecCollRow *r = &g_array_index (imported, ExecCollRow, i);
          wrong += r->wrong > 0 || r->ip_wrong > 0;
        }
      if (wrong == imported->len)
        {
          status = cli_fail (CLI_EXIT_USAGE, "--import-nccl-tests: every one of the %u rows "
                             "has wrong elements (#wrong > 0): a collective that computes "
                             "wrong results is no calibration, so nothing is left to import "
                             "(hint: find why the collective is wrong (fabric, NCCL or driver set-up) and rerun nccl-tests until #wrong is 0)",
                             imported->len);
          goto done;
        }
    }
  if (no_bench)
    text = import_only_json (ctx, imported, imports, &error);
  else
    {
      g_autoptr (TopoProfile) prof = exec_calibration_to_profile (cal);
      exec_coll_rows_to_profile ((const ExecCollRow *) imported->data, imported->len, prof);
      text = exec_calibration_to_cluster_json (cal, prof, &error);
    }
  /* the file must load back with the strict loader before anything is written */
  check = text ? topo_cluster_new_from_data (text, -1, out, &error) : NULL;
  if (check == NULL)
    {
      status = cli_fail (CLI_EXIT_FAILURE, "%s", error->message);
      goto done;
    }
  /* a --out that cannot be written (a full disk) does not lose the measurement: the
   * profile is still stored (or kept in a fallback file), and the failure is the exit
   * status (it ended here, with nothing stored, minutes of calibration gone) */
  if (!util_output_write (out, text, strlen (text), &error))
    {
      /* the writer's message carries its own hint ("... or write it elsewhere"): one hint */
      out_error = g_strdup_printf ("%s%s", error->message, strstr (error->message, "(hint:")
                                   ? "" : " (hint: --out FILE elsewhere)");
      g_clear_error (&error);
    }
  /* print, then store (docs/contracts.md); --json stores first to carry the id */
  CliStored st;
  cli_stored_init (&st, dba);
  st.what = g_strdup ("profile");
  if (!json)
    {
      const TopoProfile *p = check->profile;
      printf ("\nprofile: %u GEMM shape%s, memory %s, %u collective row%s\n", p->gemm->len,
              p->gemm->len == 1 ? "" : "s", p->triad_Bps > 0 ? "measured" : "not measured",
              p->colls->len, p->colls->len == 1 ? "" : "s");
      if (out_error == NULL)
        printf ("cluster: %s (tandem predict --cluster %s ...)\n", out, out);
      else
        printf ("cluster: not written to %s (below)\n", out);
      fflush (stdout);
    }
  if (st.tried)
    {
      gint64 profile_id = -1;
      g_autoptr (ResStore) store = cli_store_open (dba, FALSE, &error);
      if (store != NULL)
        profile_id = res_store_add_profile (store, no_bench ? "nccl-tests" : cal->backend, NULL,
                                            check->name, text, &error);
      cli_stored_set (&st, profile_id, error);
      g_clear_error (&error);
    }
  /* kept somewhere when --out failed: the store's profile, else a file of its own */
  if (out_error != NULL)
    {
      if (st.tried && st.run_id > 0)
        {
          g_autofree char *db = cli_printable (st.db, NULL);
          kept = g_strdup_printf ("stored as profile %" G_GINT64_FORMAT " in %s", st.run_id,
                                  db);
        }
      else
        {
          /* the cluster file as --out would have held it (loadable with --cluster) */
          kept_file = cli_fallback_write_text ("calibrate", text, NULL);
          kept = kept_file != NULL ? g_strdup_printf ("kept in %s", kept_file)
                                   : g_strdup ("not kept: nothing else could be written");
        }
    }
  if (json)
    print_json (cal, quick, imported, out, out_error, kept_file, &st, load1);
  else
    {
      /* the fallback holds the cluster JSON that was written to --out */
      g_autoptr (JsonParser) parser = json_parser_new ();
      if (st.tried && st.run_id <= 0 && json_parser_load_from_data (parser, text, -1, NULL))
        cli_stored_apply (&st, "calibrate", json_parser_get_root (parser));
      cli_stored_print (&st, "");
    }
  status = cli_stored_status (&st);
  if (out_error != NULL)
    status = cli_fail (CLI_EXIT_FAILURE, "--out %s: %s; the profile was %s", out, out_error,
                       kept);
  cli_stored_clear (&st);
  if (cal != NULL)
    {
      CliSpread sp;
      char what[96];
      gemm_spread (cal, load1, &sp, what, sizeof what);
      g_autoptr (GPtrArray) w = cli_spread_warnings (&sp, what, CAL_HINT);
      for (guint i = 0; i < w->len; i++)
        fprintf (stderr, "tandem: warning: %s\n", (const char *) g_ptr_array_index (w, i));
    }
done:
  exec_backend_close (b);
  return status;
}

static gboolean
parse_seconds (const char *s, double *out)
{
  char *end = NULL;
  double v = g_ascii_strtod (s, &end);
  if (end == s || *end != '\0' || !isfinite (v) || v <= 0 || v > CLI_MAX_TIMEOUT_S)
    return FALSE;
  *out = v;
  return TRUE;
}

int
cli_cmd_calibrate (int argc, char **argv)
{
  gboolean quick = FALSE, json = FALSE, no_bench = FALSE;
  g_autofree char *backend = NULL, *out = NULL;
  g_auto (CliDbArgs) dba;
  cli_db_args_init (&dba);
  g_auto (GStrv) imports = NULL;
  int blas_threads = 1;
  g_autofree char *timeout_arg = NULL;
  double timeout_s = 0;   /* 0: the backend's default */
  const GOptionEntry extra[] = {
    { "backend", 0, 0, G_OPTION_ARG_STRING, &backend, "Execution backend (default cpu)", "NAME" },
    { "quick", 0, 0, G_OPTION_ARG_NONE, &quick,
      "A few GEMM and attention shapes, 3 kernel sizes and 4 message sizes (seconds)", NULL },
    { "out", 0, 0, G_OPTION_ARG_FILENAME, &out,
      "Cluster JSON to write (default " DEFAULT_OUT ")", "FILE" },
    CLI_DB_ENTRIES (&dba),
    CLI_NO_DB_ENTRY (&dba),
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Machine-readable output", NULL },
    { "import-nccl-tests", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &imports,
      "Add the collectives of an nccl-tests output (repeatable)", "FILE" },
    { "no-bench", 0, 0, G_OPTION_ARG_NONE, &no_bench,
      "Measure nothing: add the imported rows to --cluster's file", NULL },
    { "blas-threads", 0, 0, G_OPTION_ARG_INT, &blas_threads,
      "BLAS threads per rank (default 1: one rank per core, as tandem run)", "N" },
    { "timeout", 0, 0, G_OPTION_ARG_STRING, &timeout_arg,
      "Seconds to wait for a peer under mpirun before giving up (default 300)", "S" },
    { NULL },
  };
  CliPlanContext ctx;
  int status = cli_plan_context_init (&ctx, "", "Measure this machine (GEMM, memory bandwidth, "
                                      "and under mpirun collectives) or import nccl-tests "
                                      "output: a hardware profile for the cost model, stored "
                                      "and written as a cluster JSON. With --model and plan "
                                      "flags, the plan's GEMM and attention shapes are measured too.",
                                      extra, &argc, &argv);
  if (status != 0)
    goto out;
  if (argc > 1)
    status = cli_fail (CLI_EXIT_USAGE, "unexpected argument '%s' (hint: tandem calibrate --help)",
                       argv[1]);
  else if (no_bench && (imports == NULL || imports[0] == NULL))
    status = cli_fail (CLI_EXIT_USAGE, "--no-bench measures nothing: give "
                       "--import-nccl-tests FILE (and --cluster NAME|FILE to extend)");
  else if (blas_threads < 1)
    status = cli_fail (CLI_EXIT_USAGE, "--blas-threads %d: BLAS threads per rank, an "
                       "integer >= 1 (hint: --blas-threads 1, the default)", blas_threads);
  else if (timeout_arg != NULL
           && (!parse_seconds (timeout_arg, &timeout_s)))
    status = cli_fail (CLI_EXIT_USAGE, "--timeout %s: seconds to wait for a peer, a number "
                       "above 0 and at most %.0f (hint: --timeout 60)", timeout_arg,
                       CLI_MAX_TIMEOUT_S);
  else
    status = calibrate (&ctx, backend ? backend : "cpu", quick, no_bench, json, &dba, out,
                        imports, blas_threads, timeout_s);
out:
  cli_plan_context_clear (&ctx);
  return status;
}
