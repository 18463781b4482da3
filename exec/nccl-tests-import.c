/* exec/nccl-tests-import.c - read nccl-tests stdout tables into ExecCollRow, so that
 * existing all_reduce_perf (all_gather_perf, ...) runs calibrate the cost model.
 *
 * What nccl-tests prints (src/util.cu; conventions.md section 2.1):
 *   # nccl-tests version 2.17.6 nccl-headers=22501 nccl-library=22501
 *   # Collective test starting: all_reduce_perf          (>= 2.13; names the test)
 *   # nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) ...
 *   # Using devices
 *   #  Rank  0 Group  0 Pid  1946 on host device  0 [0000:0f:00] NVIDIA A100-SXM4-40GB
 *   ...                                                  (one line per rank)
 *   #       size   count   type   redop   root   time   algbw   busbw  #wrong   time ...
 *   #        (B) (elements)                      (us)  (GB/s)  (GB/s)          (us) ...
 *          1024     256   float     sum     -1  12.43    0.08    0.15       0  12.01 ...
 *   # Out of bounds values : 0 OK
 *   # Avg bus bandwidth    : 120.9
 * Older versions lack the "Collective test starting" line (the file name then says
 * which test it is) and the root column, and print an "error" column (a float) instead
 * of "#wrong"; such rows are read with wrong = -1 (not counted). "N/A" (nccl-tests -c 0,
 * or a time not measured) reads as -1. Lines tagged by mpirun --tag-output
 * ("[1,0]<stdout>:") are read without the tag; any other line is ignored. */
#include "exec/calibrate.h"
#include "util/input.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NCCL_TESTS_MAX_TIME_US 3.6e9
#define NCCL_TESTS_MAX_GBS     1e6

/* nccl-tests binaries, longest names first so that "reduce_scatter" is not "reduce". */
static const struct {
  const char *name;
  gboolean    modelled;   /* has a PlanColl (and a place in the cost model) */
} tests[] = {
  { "all_reduce", TRUE }, { "reduce_scatter", TRUE }, { "all_gather", TRUE },
  { "alltoall", TRUE }, { "sendrecv", TRUE }, { "broadcast", FALSE }, { "hypercube", FALSE },
  { "scatter", FALSE }, { "gather", FALSE }, { "reduce", FALSE },
};

/* Index into tests[] of the name in `s` ("all_gather_perf", a path, ...), or -1. */
static int
find_test (const char *s)
{
  for (guint pass = 0; pass < 2; pass++)
    for (guint i = 0; i < G_N_ELEMENTS (tests); i++)
      {
        /* first "NAME_perf" anywhere, then a bare NAME */
        g_autofree char *needle = pass == 0 ? g_strconcat (tests[i].name, "_perf", NULL)
                                            : g_strdup (tests[i].name);
        if (strstr (s, needle) != NULL)
          return (int) i;
      }
  return -1;
}

enum { COL_SIZE, COL_COUNT, COL_TYPE, COL_REDOP, COL_ROOT, COL_TIME, COL_ALGBW, COL_BUSBW,
       COL_WRONG, COL_IP_TIME, COL_IP_ALGBW, COL_IP_BUSBW, COL_IP_WRONG, N_COLS };

typedef struct {
  const char *source;
  int         test;          /* index into tests[], -1 unknown */
  GHashTable *rank_ids;      /* "#  Rank N" lines of the current test */
  int         nranks_line;   /* "# nranks N" (tandem's own tables); 0 none */
  int         col[N_COLS];   /* token index of each column; -1 absent */
  gboolean    error_column;  /* old versions: "error" (a float), not "#wrong" */
  gboolean    have_header;
  gboolean    bad_header;    /* the last "size count ..." header lacked the columns */
  guint       first_row;     /* rows->len when the parse began */
  guint       table_start;   /* the current table's first row in rows */
  GArray     *row_lines;     /* guint: the line of each row read, from first_row on */
} Reader;

static void
reader_new_test (Reader *rd)
{
  g_hash_table_remove_all (rd->rank_ids);
  rd->nranks_line = 0;
  rd->have_header = FALSE;
}

/* Reads "#       size   count ..." into the column map; FALSE when it is not one. */
static gboolean
read_header (Reader *rd, char **tok, guint n)
{
  if (n < 3 || !g_str_equal (tok[0], "size") || !g_str_equal (tok[1], "count"))
    return FALSE;
  for (guint c = 0; c < N_COLS; c++)
    rd->col[c] = -1;
  rd->error_column = FALSE;
  int set = 0;   /* 0: out-of-place columns next, 1: in-place */
  for (guint i = 0; i < n; i++)
    {
      const char *t = tok[i];
      /* the first of a repeated name wins: a second "size" at the end of the header once
       * sent the row reader past the end of a short row */
      if (g_str_equal (t, "size"))
        rd->col[COL_SIZE] = rd->col[COL_SIZE] < 0 ? (int) i : rd->col[COL_SIZE];
      else if (g_str_equal (t, "count"))
        rd->col[COL_COUNT] = rd->col[COL_COUNT] < 0 ? (int) i : rd->col[COL_COUNT];
      else if (g_str_equal (t, "type"))
        rd->col[COL_TYPE] = rd->col[COL_TYPE] < 0 ? (int) i : rd->col[COL_TYPE];
      else if (g_str_equal (t, "redop"))
        rd->col[COL_REDOP] = rd->col[COL_REDOP] < 0 ? (int) i : rd->col[COL_REDOP];
      else if (g_str_equal (t, "root"))
        rd->col[COL_ROOT] = rd->col[COL_ROOT] < 0 ? (int) i : rd->col[COL_ROOT];
      else if ((g_str_equal (t, "time") || g_str_equal (t, "cputime")) && set < 2)
        rd->col[set == 0 ? COL_TIME : COL_IP_TIME] = (int) i, set++;
      else if (g_str_equal (t, "algbw") && set > 0)
        rd->col[set == 1 ? COL_ALGBW : COL_IP_ALGBW] = (int) i;
      else if (g_str_equal (t, "busbw") && set > 0)
        rd->col[set == 1 ? COL_BUSBW : COL_IP_BUSBW] = (int) i;
      else if ((g_str_equal (t, "#wrong") || g_str_equal (t, "error")) && set > 0)
        {
          rd->col[set == 1 ? COL_WRONG : COL_IP_WRONG] = (int) i;
          rd->error_column = g_str_equal (t, "error");
        }
    }
  rd->have_header = rd->col[COL_TIME] >= 0 && rd->col[COL_ALGBW] >= 0
                    && rd->col[COL_BUSBW] >= 0 && rd->col[COL_TYPE] >= 0;
  rd->bad_header = !rd->have_header;
  return TRUE;
}

static gboolean
parse_uint (const char *s, guint64 *out)
{
  return g_ascii_string_to_unsigned (s, 10, 0, G_MAXUINT64, out, NULL);
}

/* A number as printed, or -1 for "N/A". Times, bandwidths and error counts are finite
 * and >= 0: nan and inf were read, stored in the profile, and then refused by the
 * cluster loader that read the profile back. */
static gboolean
parse_value (const char *s, double *out)
{
  if (g_str_equal (s, "N/A"))
    {
      *out = -1;
      return TRUE;
    }
  char *end = NULL;
  *out = g_ascii_strtod (s, &end);
  return end != s && *end == '\0' && isfinite (*out) && *out >= 0;
}

static gboolean
fail_line (GError **error, const Reader *rd, guint line, const char *what)
{
  g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID, "%s:%u: %s", rd->source, line, what);
  return FALSE;
}

static gboolean
read_set (Reader *rd, char **tok, guint n, int c_time, int c_alg, int c_bus, int c_wrong,
          double *time_us, double *alg, double *bus, gint64 *wrong)
{
  *time_us = *alg = *bus = -1;
  *wrong = -1;
  if (c_time < 0 || (guint) c_time >= n)
    return TRUE;   /* this set is absent */
  double w = -1;
  if (!parse_value (tok[c_time], time_us)
      || (c_alg >= 0 && ((guint) c_alg >= n || !parse_value (tok[c_alg], alg)))
      || (c_bus >= 0 && ((guint) c_bus >= n || !parse_value (tok[c_bus], bus)))
      || (c_wrong >= 0 && ((guint) c_wrong >= n || !parse_value (tok[c_wrong], &w))))
    return FALSE;
  /* #wrong counts elements: nan or past 2^53 is no count (and no gint64; fuzz-nccl-tests) */
  if (!(w < 9007199254740992.0))
    return FALSE;
  *wrong = rd->error_column || w < 0 ? -1 : (gint64) w;
  return TRUE;
}

/* Whether busbw is algbw x the collective's bus factor for n ranks, within the rounding
 * of nccl-tests' two-decimal columns (each off by up to 0.005; busbw is computed from the
 * unrounded algbw, common.cu) and 0.1% for tables written by other tools. */
static gboolean
bus_fits (PlanColl coll, int n, double alg, double bus)
{
  const double f = plan_coll_bus_factor (coll, n);
  return fabs (bus - alg * f) <= 0.005 + 0.005 * f + 1e-3 * alg * f + 1e-9;
}

/* The table's busbw / algbw is the bus factor of its collective for its rank count
 * (conventions.md 2.2: all_reduce 2(n-1)/n; all_gather, reduce_scatter, alltoall
 * (n-1)/n; sendrecv 1), so a table says its own rank count: with "#  Rank N" lines cut
 * from the file, an 8-rank all_reduce table was imported as 4 ranks. Checked when the
 * table ends, against the row of the largest algbw (the most digits of the ratio): a
 * ratio that fits another rank count names both; then every row's busbw must be its
 * algbw's times the factor. */
static gboolean
finish_table (Reader *rd, const GArray *rows, GError **error)
{
  const guint start = rd->table_start;
  rd->table_start = rows->len;
  double big_alg = -1, big_bus = -1;
  guint big_line = 0;
  const ExecCollRow *big = NULL;
  for (guint i = start; i < rows->len; i++)
    {
      const ExecCollRow *r = &g_array_index (rows, ExecCollRow, i);
      const double algs[2] = { r->algbw_GBs, r->ip_algbw_GBs };
      const double buses[2] = { r->busbw_GBs, r->ip_busbw_GBs };
      for (int k = 0; k < 2; k++)
        if (algs[k] >= 0 && buses[k] >= 0 && algs[k] > big_alg)
          {
            big = r, big_alg = algs[k], big_bus = buses[k];
            big_line = g_array_index (rd->row_lines, guint, i - rd->first_row);
          }
    }
  if (big == NULL)
    return TRUE;
  const char *const counted = rd->nranks_line > 0 ? "the '# nranks' line says"
                                                   : "the '#  Rank N' device lines name";
  if (big->coll != PLAN_COLL_SEND_RECV && big_alg > 0
      && !bus_fits (big->coll, big->ranks, big_alg, big_bus))
    {
      /* the rank count the ratio fits best (the error path alone: a scan is cheap here) */
      int best = 0;
      double best_d = G_MAXDOUBLE;
      for (int n = 1; n <= 65536; n++)
        {
          const double d = fabs (big_bus - big_alg * plan_coll_bus_factor (big->coll, n));
          if (d < best_d)
            best = n, best_d = d;
        }
      if (best != big->ranks && bus_fits (big->coll, best, big_alg, big_bus))
        {
          g_autofree char *msg = g_strdup_printf (
            "busbw %.2f / algbw %.2f GB/s is %s's %s for %d ranks, but %s %d (hint: the "
            "table's own ratio counts the ranks; were lines cut from the file? give the "
            "whole nccl-tests output)", big_bus, big_alg, plan_coll_name (big->coll),
            big->coll == PLAN_COLL_ALL_REDUCE ? "2(n-1)/n" : "(n-1)/n", best, counted,
            big->ranks);
          return fail_line (error, rd, big_line, msg);
        }
    }
  for (guint i = start; i < rows->len; i++)
    {
      const ExecCollRow *r = &g_array_index (rows, ExecCollRow, i);
      const double algs[2] = { r->algbw_GBs, r->ip_algbw_GBs };
      const double buses[2] = { r->busbw_GBs, r->ip_busbw_GBs };
      for (int k = 0; k < 2; k++)
        if (algs[k] >= 0 && buses[k] >= 0 && !bus_fits (r->coll, r->ranks, algs[k], buses[k]))
          {
            const double f = plan_coll_bus_factor (r->coll, r->ranks);
            g_autofree char *msg = g_strdup_printf (
              "a table row whose busbw %.2f GB/s is not its algbw %.2f GB/s x %s's %s = %.4f "
              "for %d ranks (%.2f GB/s), beyond the columns' rounding (hint: the row as "
              "nccl-tests printed it; are the columns the header's?)", buses[k], algs[k],
              plan_coll_name (r->coll), r->coll == PLAN_COLL_ALL_REDUCE ? "2(n-1)/n"
              : r->coll == PLAN_COLL_SEND_RECV ? "1" : "(n-1)/n", f, r->ranks, algs[k] * f);
            return fail_line (error, rd, g_array_index (rd->row_lines, guint,
                                                        i - rd->first_row), msg);
          }
    }
  return TRUE;
}

static gboolean
read_row (Reader *rd, char **tok, guint n, guint line, GArray *rows, GError **error)
{
  ExecCollRow row = { 0 };
  guint64 size, count;
  /* every column the header named up to busbw must be in the row */
  const int needed[] = { rd->col[COL_SIZE], rd->col[COL_COUNT], rd->col[COL_TYPE],
                         rd->col[COL_TIME], rd->col[COL_ALGBW], rd->col[COL_BUSBW] };
  for (guint i = 0; i < G_N_ELEMENTS (needed); i++)
    if (needed[i] < 0 || (guint) needed[i] >= n)
      {
        g_autofree char *msg = g_strdup_printf ("a table row of %u fields, but the header puts "
                                                "size, count, type, time, algbw and busbw in "
                                                "the first %d (hint: a row cut short? the "
                                                "file and its header line as nccl-tests "
                                                "printed them)", n,
                                                MAX (MAX (MAX (needed[0], needed[1]),
                                                          MAX (needed[2], needed[3])),
                                                     MAX (needed[4], needed[5])) + 1);
        return fail_line (error, rd, line, msg);
      }
  if (!parse_uint (tok[rd->col[COL_SIZE]], &size) || !parse_uint (tok[rd->col[COL_COUNT]], &count))
    return fail_line (error, rd, line, "a table row whose size or count is not a whole "
                      "number >= 0 (bytes and elements, as nccl-tests prints them)");
  if (rd->test < 0)
    return fail_line (error, rd, line, "which collective is this? (no '# Collective test "
                      "starting: X_perf' line; hint: name the file after the test, e.g. "
                      "all_reduce_perf.txt)");
  if (!tests[rd->test].modelled)
    {
      g_autofree char *msg = g_strdup_printf ("%s_perf has no place in the cost model (import "
                                              "all_reduce, all_gather, reduce_scatter, alltoall "
                                              "or sendrecv)", tests[rd->test].name);
      return fail_line (error, rd, line, msg);
    }
  const guint ranks = rd->nranks_line > 0 ? (guint) rd->nranks_line
                                          : g_hash_table_size (rd->rank_ids);
  if (ranks == 0)
    return fail_line (error, rd, line, "how many ranks? (no '#  Rank N Group ...' device "
                      "lines above the table)");
  plan_coll_parse (tests[rd->test].name, &row.coll);
  row.ranks = (int) ranks;
  row.size_B = size;
  row.count = count;
  g_strlcpy (row.type, tok[rd->col[COL_TYPE]], sizeof row.type);
  /* size is count elements of the type, per rank (all_reduce, sendrecv, broadcast) or for
   * all ranks (all_gather, reduce_scatter, alltoall: count is one rank's share); a row
   * that is neither was imported as its size column said */
  {
    static const struct { const char *name; guint64 bytes; } types[] = {
      { "int8", 1 }, { "uint8", 1 }, { "f8e4m3", 1 }, { "f8e5m2", 1 },
      { "half", 2 }, { "bfloat16", 2 }, { "int32", 4 }, { "uint32", 4 }, { "float", 4 },
      { "int64", 8 }, { "uint64", 8 }, { "double", 8 },
    };
    for (guint t = 0; t < G_N_ELEMENTS (types); t++)
      if (g_str_equal (row.type, types[t].name) && count <= G_MAXUINT64 / types[t].bytes / ranks
          && size != count * types[t].bytes && size != count * types[t].bytes * ranks)
        {
          g_autofree char *msg = g_strdup_printf (
            "a table row whose size (%" G_GUINT64_FORMAT " B) is not its count (%" G_GUINT64_FORMAT
            ") of %s, %" G_GUINT64_FORMAT " B each, on one rank or on all %u (hint: were columns "
            "cut or edited?)", size, count, row.type, types[t].bytes, ranks);
          return fail_line (error, rd, line, msg);
        }
  }
  g_strlcpy (row.redop, rd->col[COL_REDOP] >= 0 && (guint) rd->col[COL_REDOP] < n
                          ? tok[rd->col[COL_REDOP]] : "none", sizeof row.redop);
  row.root = -1;
  gint64 root;
  if (rd->col[COL_ROOT] >= 0 && (guint) rd->col[COL_ROOT] < n)
    {
      /* a rank or -1 (all); atoi wrapped or zeroed anything else */
      if (!g_ascii_string_to_signed (tok[rd->col[COL_ROOT]], 10, -1, G_MAXINT, &root, NULL))
        return fail_line (error, rd, line, "a table row whose root is not a rank or -1");
      row.root = (int) root;
    }
  if (!read_set (rd, tok, n, rd->col[COL_TIME], rd->col[COL_ALGBW], rd->col[COL_BUSBW],
                 rd->col[COL_WRONG], &row.time_us, &row.algbw_GBs, &row.busbw_GBs, &row.wrong)
      || !read_set (rd, tok, n, rd->col[COL_IP_TIME], rd->col[COL_IP_ALGBW],
                    rd->col[COL_IP_BUSBW], rd->col[COL_IP_WRONG], &row.ip_time_us,
                    &row.ip_algbw_GBs, &row.ip_busbw_GBs, &row.ip_wrong))
    return fail_line (error, rd, line, "a table row with a time, bandwidth or error count "
                      "that is not a finite number >= 0 or N/A");
  if (row.time_us < 0 && row.ip_time_us < 0)
    return fail_line (error, rd, line, "a table row without a time");
  if (row.time_us == 0 || row.ip_time_us == 0)
    return fail_line (error, rd, line, "a table row with a time of 0 us (no collective "
                      "completes in no time; the bandwidth would be infinite)");
  /* what nccl-tests can print: a collective of at most an hour (1e308 us was imported and
   * the step was then "18446744 s or more"), bandwidths below 1 PB/s (1e308 GB/s became
   * inf B/s and the written profile failed to load back), and algbw = size / time as
   * nccl-tests computes it (common.cu: size / time / 1e3 GB/s), within the rounding of its
   * two-decimal columns */
  const double times[2] = { row.time_us, row.ip_time_us };
  const double algs[2] = { row.algbw_GBs, row.ip_algbw_GBs };
  const double buses[2] = { row.busbw_GBs, row.ip_busbw_GBs };
  for (int k = 0; k < 2; k++)
    {
      if (times[k] > NCCL_TESTS_MAX_TIME_US)
        return fail_line (error, rd, line, "a table row with a time over an hour (3.6e9 us): "
                          "not a collective nccl-tests timed");
      if (algs[k] > NCCL_TESTS_MAX_GBS || buses[k] > NCCL_TESTS_MAX_GBS)
        return fail_line (error, rd, line, "a table row with a bandwidth over 1e6 GB/s (1 PB/s, "
                          "above any link)");
      if (times[k] > 0 && algs[k] >= 0)
        {
          const double want = (double) size / (times[k] * 1e3);
          if (fabs (algs[k] - want) > 0.011 + 0.05 * want)
            {
              g_autofree char *msg = g_strdup_printf (
                "a table row whose algbw %.2f GB/s is not its size over its time (%" G_GUINT64_FORMAT
                " B in %g us is %.2f GB/s) (hint: are the columns the header's?)", algs[k],
                size, times[k], want);
              return fail_line (error, rd, line, msg);
            }
        }
    }
  g_array_append_val (rows, row);
  g_array_append_val (rd->row_lines, line);
  return TRUE;
}

/* A "#" line: test name, device lines, rank count, or the column header. */
static void
read_comment (Reader *rd, const char *body)
{
  static const char starting[] = "Collective test starting:";
  const char *s = body;
  while (*s == ' ' || *s == '\t')
    s++;
  if (g_str_has_prefix (s, starting))
    {
      reader_new_test (rd);
      rd->test = find_test (s + strlen (starting));
      return;
    }
  if (g_str_has_prefix (s, "nThread "))
    {
      g_hash_table_remove_all (rd->rank_ids);   /* a new run (older versions) */
      rd->have_header = FALSE;
      return;
    }
  g_auto (GStrv) tok = g_strsplit_set (s, " \t", -1);
  /* drop the empty strings that runs of blanks leave */
  guint n = 0;
  for (guint i = 0; tok[i] != NULL; i++)
    if (tok[i][0] != '\0')
      tok[n++] = tok[i];
    else
      g_free (tok[i]);
  tok[n] = NULL;
  guint64 v;
  if (n >= 2 && g_str_equal (tok[0], "Rank") && parse_uint (tok[1], &v))
    g_hash_table_add (rd->rank_ids, GUINT_TO_POINTER ((guint) v + 1));
  else if (n >= 2 && g_str_equal (tok[0], "nranks") && parse_uint (tok[1], &v) && v > 0)
    rd->nranks_line = (int) MIN (v, G_MAXINT);
  else
    read_header (rd, tok, n);
}

gboolean
exec_nccl_tests_parse (const char *text, gssize length, const char *source, GArray *rows,
                       GError **error)
{
  g_return_val_if_fail (text != NULL && rows != NULL, FALSE);
  Reader rd = { .source = source != NULL ? source : "<nccl-tests>" };
  /* a NUL byte: the copy below (a C string) ended there, and every row after it was
   * dropped while the import said "imported" with what came before */
  const guint nul_line = length > 0 ? util_text_nul_line (text, (gsize) length) : 0;
  if (nul_line > 0)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "%s:%u: a NUL byte in nccl-tests output (binary data, or a log cut and "
                   "padded by a crash); nothing imported (hint: tr -d '\\000' < FILE > "
                   "CLEAN, then check the rows around line %u)", rd.source, nul_line,
                   nul_line);
      return FALSE;
    }
  rd.test = source != NULL ? find_test (source) : -1;
  rd.rank_ids = g_hash_table_new (g_direct_hash, g_direct_equal);
  rd.first_row = rd.table_start = rows->len;
  g_autoptr (GArray) row_lines = g_array_new (FALSE, FALSE, sizeof (guint));
  rd.row_lines = row_lines;
  g_autofree char *copy = length < 0 ? g_strdup (text) : g_strndup (text, (gsize) length);
  g_auto (GStrv) lines = g_strsplit (copy, "\n", -1);
  const guint before = rows->len;
  guint bad_header_line = 0;   /* a header whose columns were not nccl-tests' */
  gboolean ok = TRUE;
  for (guint i = 0; ok && lines[i] != NULL; i++)
    {
      char *l = lines[i];
      /* mpirun --tag-output: "[1,0]<stdout>:..." */
      char *tag = l[0] == '[' ? strstr (l, "]<stdout>:") : NULL;
      if (tag != NULL)
        l = tag + strlen ("]<stdout>:");
      g_strstrip (l);
      if (l[0] == '#')
        {
          /* a table's rows end at the next comment line; checked with its rank state */
          if (!(ok = finish_table (&rd, rows, error)))
            break;
          rd.bad_header = FALSE;
          read_comment (&rd, l + 1);
          if (rd.bad_header)
            bad_header_line = i + 1;
          continue;
        }
      /* a row starts with its size: digits, or a sign before them (a negative size is a
       * row that does not parse, refused below; it was passed over as not a row) */
      if (!rd.have_header
          || !(g_ascii_isdigit (l[0])
               || ((l[0] == '-' || l[0] == '+') && g_ascii_isdigit (l[1]))))
        continue;
      g_auto (GStrv) tok = g_strsplit_set (l, " \t", -1);
      guint n = 0;
      for (guint j = 0; tok[j] != NULL; j++)
        if (tok[j][0] != '\0')
          tok[n++] = tok[j];
        else
          g_free (tok[j]);
      tok[n] = NULL;
      /* one too short to hold a time is a row cut short (a truncated file, a lost
       * column), refused by read_row naming the line: it was passed over without a word */
      ok = read_row (&rd, tok, n, i + 1, rows, error);
    }
  ok = ok && finish_table (&rd, rows, error);
  g_hash_table_unref (rd.rank_ids);
  /* a header was there but not one the rows could be read by: "no table" hid it (a
   * header with algbw before time read as none) */
  if (ok && rows->len == before && bad_header_line > 0)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "%s:%u: a column header without nccl-tests' columns: it needs type, then "
                   "time followed by algbw and busbw (out-of-place, then in-place), so no row "
                   "was read (hint: the header line as nccl-tests printed it)", rd.source,
                   bad_header_line);
      return FALSE;
    }
  if (ok && rows->len == before)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "%s: no nccl-tests table (a '#  size  count  type ...' header followed by "
                   "rows)", rd.source);
      return FALSE;
    }
  return ok;
}

gboolean
exec_nccl_tests_load_file (const char *path, GArray *rows, GError **error)
{
  g_autofree char *text = NULL;
  gsize length = 0;
  g_autoptr (GError) local = NULL;
  if (!util_input_read_file (path, 0, &text, &length, &local))
    {
      /* the reader's message names the path and why ("PATH: cannot read: cannot read
       * 'PATH': ..." said it twice) */
      g_set_error_literal (error, EXEC_ERROR, EXEC_ERROR_INVALID, local->message);
      return FALSE;
    }
  return exec_nccl_tests_parse (text, (gssize) length, path, rows, error);
}

/* The time a repeat is ranked by: out-of-place, else in-place; rows with wrong elements
 * or no time rank last (they never reach the profile). */
static double
repeat_time (const ExecCollRow *r)
{
  if (r->wrong > 0 || r->ip_wrong > 0)
    return G_MAXDOUBLE;
  return r->time_us > 0 ? r->time_us : r->ip_time_us > 0 ? r->ip_time_us : G_MAXDOUBLE;
}

static int
cmp_repeat (gconstpointer a, gconstpointer b)
{
  const double x = repeat_time (*(const ExecCollRow *const *) a);
  const double y = repeat_time (*(const ExecCollRow *const *) b);
  return x < y ? -1 : x > y;
}

guint
exec_coll_rows_merge_repeats (GArray *rows)
{
  g_return_val_if_fail (rows != NULL, 0);
  const guint n = rows->len;
  g_autoptr (GArray) out = g_array_sized_new (FALSE, TRUE, sizeof (ExecCollRow), n);
  g_autofree gboolean *done = g_new0 (gboolean, MAX (n, 1));
  g_autoptr (GPtrArray) group = g_ptr_array_new ();
  for (guint i = 0; i < n; i++)
    {
      if (done[i])
        continue;
      const ExecCollRow *a = &g_array_index (rows, ExecCollRow, i);
      g_ptr_array_set_size (group, 0);
      for (guint j = i; j < n; j++)
        {
          const ExecCollRow *b = &g_array_index (rows, ExecCollRow, j);
          if (!done[j] && b->coll == a->coll && b->ranks == a->ranks && b->size_B == a->size_B)
            {
              g_ptr_array_add (group, (gpointer) b);
              done[j] = TRUE;
            }
        }
      g_ptr_array_sort (group, cmp_repeat);
      /* the median row, of an even count the faster of the middle two */
      const ExecCollRow *keep = g_ptr_array_index (group, (group->len - 1) / 2);
      g_array_append_val (out, *keep);
    }
  const guint merged = n - out->len;
  g_array_set_size (rows, 0);
  g_array_append_vals (rows, out->data, out->len);
  return merged;
}
