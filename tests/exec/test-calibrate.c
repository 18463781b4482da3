/* tests/exec/test-calibrate.c - `tandem calibrate`'s library: the nccl-tests reader on
 * the files of tests/data/calibrate (values exact as printed), the table format read back, the
 * profile rows, a single-process quick calibration, and the quick calibration on 2 MPI
 * ranks: every row checked (#wrong = 0), a cluster JSON the strict loader accepts, whose
 * profile makes the cost model predict the measured GEMM and all-reduce times.
 *
 * Started by meson, the program is the launcher for the MPI part: it re-runs itself as
 * `timeout -k 5 180 mpirun --allow-run-as-root --oversubscribe --tag-output -np 2 SELF`
 * (as tests/exec/test-backend-mpi.c does) and checks that every rank reported ok.
 * Measured times are never compared with constants: only the relations between the
 * calibration's own numbers are (the cost model must reproduce what was measured). */
#include "mpi-launch.h"
#include "exec/calibrate.h"
#include "exec/calibrate-private.h"
#include "sim/cost.h"
#include "local-open.h"
#include "../assert-rel.h"

#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define N_RANKS 2

static GArray *
parse_data (const char *name)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "calibrate", name, NULL);
  GArray *rows = g_array_new (FALSE, TRUE, sizeof (ExecCollRow));
  g_assert_true (exec_nccl_tests_load_file (path, rows, &error));
  g_assert_no_error (error);
  return rows;
}

static const ExecCollRow *
row_at (GArray *rows, guint i)
{
  return &g_array_index (rows, ExecCollRow, i);
}

/* ---- the nccl-tests reader -------------------------------------------------------------- */

/* nccl-tests 2.17.6, 8 x H100, "Collective test starting" and 8 device lines; 11 rows of
 * 1 KiB .. 1 GiB by 4x with in-place columns. First and last rows as printed:
 *   1024  256  float  sum  -1  14.52  0.07  0.12  0  14.10  0.07  0.13  0
 *   1073741824  268435456  float  sum  -1  3925.40  273.54  478.69  0  3918.70  274.00  479.51  0 */
static void
test_all_reduce (void)
{
  g_autoptr (GArray) rows = parse_data ("all_reduce_perf-8xh100.txt");
  g_assert_cmpuint (rows->len, ==, 11);
  const ExecCollRow *a = row_at (rows, 0), *z = row_at (rows, 10);
  g_assert_cmpint (a->coll, ==, PLAN_COLL_ALL_REDUCE);
  g_assert_cmpint (a->ranks, ==, 8);
  g_assert_cmpuint (a->size_B, ==, 1024);
  g_assert_cmpuint (a->count, ==, 256);
  g_assert_cmpstr (a->type, ==, "float");
  g_assert_cmpstr (a->redop, ==, "sum");
  g_assert_cmpint (a->root, ==, -1);
  g_assert_cmpfloat (a->time_us, ==, 14.52);
  g_assert_cmpfloat (a->algbw_GBs, ==, 0.07);
  g_assert_cmpfloat (a->busbw_GBs, ==, 0.12);
  g_assert_cmpint (a->wrong, ==, 0);
  g_assert_cmpfloat (a->ip_time_us, ==, 14.10);
  g_assert_cmpfloat (a->ip_busbw_GBs, ==, 0.13);
  g_assert_cmpint (a->ip_wrong, ==, 0);
  g_assert_cmpuint (z->size_B, ==, 1073741824);
  g_assert_cmpuint (z->count, ==, 268435456);
  g_assert_cmpfloat (z->time_us, ==, 3925.40);
  g_assert_cmpfloat (z->algbw_GBs, ==, 273.54);
  g_assert_cmpfloat (z->busbw_GBs, ==, 478.69);
  g_assert_cmpfloat (z->ip_time_us, ==, 3918.70);
  g_assert_cmpfloat (z->ip_algbw_GBs, ==, 274.00);
  g_assert_cmpfloat (z->ip_busbw_GBs, ==, 479.51);
  /* the printed busbw is algbw x 2(n-1)/n = 273.54 x 1.75 = 478.7 (to the print's 0.01) */
  assert_rel (z->busbw_GBs, z->algbw_GBs * plan_coll_bus_factor (PLAN_COLL_ALL_REDUCE, 8), 1e-4);
}

/* An older nccl-tests: no "Collective test starting" line, so the file name says
 * all_gather; 16 device lines on two nodes; an ssh warning above the table. Last row:
 *   1073741824  16777216  float  none  -1  3060.20  350.87  328.94  0  3055.90  351.37  329.41  0 */
static void
test_all_gather_from_name (void)
{
  g_autoptr (GArray) rows = parse_data ("all_gather_perf-16ranks.txt");
  g_assert_cmpuint (rows->len, ==, 6);
  const ExecCollRow *z = row_at (rows, 5);
  g_assert_cmpint (z->coll, ==, PLAN_COLL_ALL_GATHER);
  g_assert_cmpint (z->ranks, ==, 16);
  g_assert_cmpstr (z->redop, ==, "none");
  g_assert_cmpuint (z->size_B, ==, 1073741824);
  g_assert_cmpuint (z->count, ==, 16777216);   /* per rank: 2^30 / 4 / 16 */
  g_assert_cmpfloat (z->time_us, ==, 3060.20);
  g_assert_cmpfloat (z->busbw_GBs, ==, 328.94);
  g_assert_cmpfloat (z->ip_time_us, ==, 3055.90);
  g_assert_cmpfloat (row_at (rows, 0)->time_us, ==, 62.10);
}

/* Two tests in one log (reduce_scatter, then alltoall with -c 0: "#wrong" N/A and no
 * in-place time), 8 ranks each, NCCL INFO noise. Rows 4 and 7:
 *   1048576  32768  float  none  -1  41.77  25.10  21.97  N/A  N/A ...
 *   536870912  16777216  float  none  -1  2700.60  198.80  173.95  N/A  N/A ... */
static void
test_two_tests_one_log (void)
{
  g_autoptr (GArray) rows = parse_data ("reduce-scatter-alltoall-a100.txt");
  g_assert_cmpuint (rows->len, ==, 8);
  for (guint i = 0; i < 4; i++)
    {
      g_assert_cmpint (row_at (rows, i)->coll, ==, PLAN_COLL_REDUCE_SCATTER);
      g_assert_cmpint (row_at (rows, i + 4)->coll, ==, PLAN_COLL_ALL_TO_ALL);
      g_assert_cmpint (row_at (rows, i)->ranks, ==, 8);
      g_assert_cmpint (row_at (rows, i + 4)->ranks, ==, 8);
    }
  g_assert_cmpfloat (row_at (rows, 3)->time_us, ==, 2045.00);
  g_assert_cmpfloat (row_at (rows, 3)->busbw_GBs, ==, 229.71);
  const ExecCollRow *a = row_at (rows, 4), *z = row_at (rows, 7);
  g_assert_cmpfloat (a->time_us, ==, 41.77);
  g_assert_cmpfloat (a->algbw_GBs, ==, 25.10);
  g_assert_cmpint (a->wrong, ==, -1);
  g_assert_cmpfloat (a->ip_time_us, ==, -1);
  g_assert_cmpint (a->ip_wrong, ==, -1);
  g_assert_cmpuint (z->size_B, ==, 536870912);
  g_assert_cmpfloat (z->time_us, ==, 2700.60);
  g_assert_cmpfloat (z->busbw_GBs, ==, 173.95);
}

/* mpirun --tag-output prefixes every line with "[1,0]<stdout>:"; 2 ranks on 2 nodes.
 * First row: 8 B, 2 elements, 9.81 us, 0.00 GB/s. Last: 134217728 B in 2845.90 us. */
static void
test_tagged_sendrecv (void)
{
  g_autoptr (GArray) rows = parse_data ("sendrecv_perf-2nodes.txt");
  g_assert_cmpuint (rows->len, ==, 5);
  const ExecCollRow *a = row_at (rows, 0), *z = row_at (rows, 4);
  g_assert_cmpint (a->coll, ==, PLAN_COLL_SEND_RECV);
  g_assert_cmpint (a->ranks, ==, 2);
  g_assert_cmpuint (a->size_B, ==, 8);
  g_assert_cmpuint (a->count, ==, 2);
  g_assert_cmpfloat (a->time_us, ==, 9.81);
  g_assert_cmpfloat (a->busbw_GBs, ==, 0.0);
  g_assert_cmpuint (z->size_B, ==, 134217728);
  g_assert_cmpfloat (z->time_us, ==, 2845.90);
  g_assert_cmpfloat (z->busbw_GBs, ==, 47.16);
}

static void
test_refused (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) rows = g_array_new (FALSE, TRUE, sizeof (ExecCollRow));
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "calibrate",
                                                 "broadcast_perf.txt", NULL);
  /* broadcast has no place in the cost model; the message names the test and the line */
  g_assert_false (exec_nccl_tests_load_file (path, rows, &error));
  g_assert_error (error, EXEC_ERROR, EXEC_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "broadcast_perf"));
  g_assert_nonnull (strstr (error->message, "broadcast_perf.txt:12:"));
  g_clear_error (&error);
  /* no table */
  g_assert_false (exec_nccl_tests_parse ("hello\n# world\n", -1, "x.txt", rows, &error));
  g_assert_error (error, EXEC_ERROR, EXEC_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "no nccl-tests table"));
  g_clear_error (&error);
  /* a table without a collective (no test line, a neutral file name) */
  static const char table[] =
    "#  Rank  0 Group  0 Pid 1 on a device 0 [0x1] GPU\n"
    "#       size    count    type   redop    root     time   algbw   busbw #wrong\n"
    "        1024      256   float     sum      -1    10.00    0.10    0.10      0\n";
  g_assert_false (exec_nccl_tests_parse (table, -1, "run.log", rows, &error));
  g_assert_error (error, EXEC_ERROR, EXEC_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "run.log:3:"));
  g_clear_error (&error);
  /* ... and without device lines: how many ranks? */
  g_assert_false (exec_nccl_tests_parse (strchr (table, '\n') + 1, -1, "all_reduce_perf.log",
                                         rows, &error));
  g_assert_error (error, EXEC_ERROR, EXEC_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "ranks"));
  g_assert_cmpuint (rows->len, ==, 0);
  g_clear_error (&error);
  /* a NUL byte on line 3 (between the header and the row): the row after it was dropped
   * and the import said it imported the rest; refused whole, at its line */
  static const char nul[] =
    "# nccl-tests all_reduce_perf\n"
    "#       size    count    type   redop    root     time   algbw   busbw #wrong\n"
    "\0\n"
    "        1024      256   float     sum      -1    10.00    0.10    0.10      0\n";
  g_assert_false (exec_nccl_tests_parse (nul, sizeof nul - 1, "all_reduce_perf.log", rows,
                                         &error));
  g_assert_error (error, EXEC_ERROR, EXEC_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "all_reduce_perf.log:3: a NUL byte"));
  g_assert_cmpuint (rows->len, ==, 0);
}

/* A #wrong cell that is no count of elements (nan, 1e300: converting either to an
 * integer is undefined behaviour, which UBSan reported under fuzz/fuzz-nccl-tests) makes
 * its row unparseable: refused with the line, like any other bad cell. */
static void
test_wrong_not_a_count (void)
{
  static const char *const cells[] = { "nan", "1e300", "-nan", "9007199254740992" };
  for (guint i = 0; i < G_N_ELEMENTS (cells); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (GArray) rows = g_array_new (FALSE, TRUE, sizeof (ExecCollRow));
      g_autofree char *text = g_strdup_printf (
        "# Collective test starting: all_reduce_perf\n"
        "# nranks 2\n"
        "#       size    count    type   redop    root     time   algbw   busbw #wrong\n"
        "        1024      256   float     sum      -1    10.00    0.10    0.10      0\n"
        "        2048      512   float     sum      -1    11.00    0.19    0.19  %s\n",
        cells[i]);
      g_assert_false (exec_nccl_tests_parse (text, -1, "wrong.txt", rows, &error));
      g_assert_error (error, EXEC_ERROR, EXEC_ERROR_INVALID);
      g_assert_nonnull (strstr (error->message, "wrong.txt:5:"));
    }
}

/* size is count elements of the type on one rank (all_reduce: 1024 B = 256 float) or on
 * all of them (all_gather's count is one rank's share: 2 ranks x 128 float = 1024 B);
 * 1000 B for 256 float, or 1024 B for 100 half, is neither: refused with its line (such
 * a row was imported as its size column said) */
static void
test_size_count_type (void)
{
  static const struct { const char *test, *row; gboolean ok; } cases[] = {
    { "all_reduce", "        1024      256   float     sum      -1    10.00    0.10    0.10      0\n", TRUE },
    { "all_gather", "        1024      128   float    none      -1    10.00    0.10    0.05      0\n", TRUE },
    { "all_reduce", "        1000      256   float     sum      -1    10.00    0.10    0.10      0\n", FALSE },
    { "all_reduce", "        1024      100    half     sum      -1    10.00    0.10    0.10      0\n", FALSE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (GArray) rows = g_array_new (FALSE, TRUE, sizeof (ExecCollRow));
      g_autofree char *text = g_strdup_printf (
        "# Collective test starting: %s_perf\n"
        "# nranks 2\n"
        "#       size    count    type   redop    root     time   algbw   busbw #wrong\n%s",
        cases[i].test, cases[i].row);
      gboolean ok = exec_nccl_tests_parse (text, -1, "sc.txt", rows, &error);
      if (cases[i].ok)
        {
          g_assert_no_error (error);
          g_assert_true (ok);
        }
      else
        {
          g_assert_false (ok);
          g_assert_nonnull (strstr (error->message, "sc.txt:4: a table row whose size"));
        }
    }
}

/* Cells that no nccl-tests run prints: a time over an hour (1e308 us was imported, and
 * every prediction then lasted "18446744 s or more"), a bandwidth over 1 PB/s (1e308 GB/s
 * became inf B/s and the written profile did not load back: exit 1 naming tandem's own
 * output), and an algbw that is not size / time (nccl-tests' own formula): 1 MiB in
 * 10 us is 1,048,576 / 1e4 = 104.86 GB/s, so 500.00 is refused and 104.86 kept. */
static void
test_implausible_rows (void)
{
  static const struct { const char *time, *alg, *bus; const char *want; } cases[] = {
    { "1e308", "0.00", "0.00", "over an hour" },
    { "10.00", "1e308", "183.50", "over 1e6 GB/s" },
    { "10.00", "104.86", "1e308", "over 1e6 GB/s" },
    { "10.00", "500.00", "875.00", "is not its size over its time" },
    { "10.00", "104.86", "183.50", NULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (GArray) rows = g_array_new (FALSE, TRUE, sizeof (ExecCollRow));
      g_autofree char *text = g_strdup_printf (
        "# Collective test starting: all_reduce_perf\n"
        "# nranks 8\n"
        "#       size    count    type   redop    root     time   algbw   busbw #wrong\n"
        "     1048576   262144   float     sum      -1   %s   %s   %s      0\n",
        cases[i].time, cases[i].alg, cases[i].bus);
      gboolean ok = exec_nccl_tests_parse (text, -1, "odd.txt", rows, &error);
      if (cases[i].want == NULL)
        {
          g_assert_no_error (error);
          g_assert_true (ok);
          g_assert_cmpuint (rows->len, ==, 1);
          continue;
        }
      g_assert_false (ok);
      g_assert_error (error, EXEC_ERROR, EXEC_ERROR_INVALID);
      g_assert_nonnull (strstr (error->message, "odd.txt:4:"));
      g_assert_nonnull (strstr (error->message, cases[i].want));
    }
}

/* A column header that is there but not in nccl-tests' order (algbw before time, as a
 * hand-edited or reformatted table has it): time and busbw are found, algbw is not (it is
 * taken only after a time), so no row reads. The message was "no nccl-tests table (a
 * '#  size  count  type ...' header followed by rows)", as for a file without any header;
 * now it names the header's line (3) and the columns it needs. */
static void
test_header_out_of_order (void)
{
  static const char text[] =
    "# Collective test starting: all_reduce_perf\n"
    "# nranks 2\n"
    "#       size    count    type   redop    root   algbw     time   busbw #wrong\n"
    "        1024      256   float     sum      -1    0.10    10.00    0.10      0\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) rows = g_array_new (FALSE, TRUE, sizeof (ExecCollRow));
  g_assert_false (exec_nccl_tests_parse (text, -1, "cols.txt", rows, &error));
  g_assert_error (error, EXEC_ERROR, EXEC_ERROR_INVALID);
  g_assert_cmpstr (error->message, ==, "cols.txt:3: a column header without nccl-tests' "
                   "columns: it needs type, then time followed by algbw and busbw "
                   "(out-of-place, then in-place), so no row was read (hint: the header line "
                   "as nccl-tests printed it)");
  g_assert_cmpuint (rows->len, ==, 0);
}

/* A row whose bandwidths are N/A (kept as -1) is written back as N/A, not -1.00, which the
 * import refuses: found by fuzz-nccl-tests (the table it printed did not read back). */
static void
test_format_na_bandwidth (void)
{
  const char *text =
    "# Collective test starting: all_gather_perf\n"
    "# nranks 8\n"
    "#       size    count    type   redop    root     time   algbw   busbw  #wrong\n"
    "    67108864  2097152   float    none      -1   380.40     N/A     N/A     N/A\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) rows = g_array_new (FALSE, TRUE, sizeof (ExecCollRow));
  g_assert_true (exec_nccl_tests_parse (text, -1, "na.txt", rows, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (rows->len, ==, 1);
  g_autoptr (GString) out = g_string_new (NULL);
  exec_coll_rows_format (out, (const ExecCollRow *) rows->data, rows->len, NULL);
  g_assert_null (strstr (out->str, "-1.00"));
  g_autoptr (GArray) back = g_array_new (FALSE, TRUE, sizeof (ExecCollRow));
  g_assert_true (exec_nccl_tests_parse (out->str, (gssize) out->len, "back.txt", back, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (back->len, ==, 1);
  g_assert_cmpfloat (row_at (back, 0)->time_us, ==, 380.40);
}

/* What exec_coll_rows_format prints, exec_nccl_tests_parse reads back unchanged (the
 * values of the data files have two decimals, as the format prints them). */
static void
test_format_round_trip (void)
{
  g_autoptr (GArray) rows = parse_data ("all_reduce_perf-8xh100.txt");
  g_autoptr (GArray) more = parse_data ("reduce-scatter-alltoall-a100.txt");
  g_array_append_vals (rows, more->data, more->len);
  g_autoptr (GString) text = g_string_new (NULL);
  exec_coll_rows_format (text, (const ExecCollRow *) rows->data, rows->len, "a note");
  g_test_message ("%s", text->str);
  g_assert_nonnull (strstr (text->str, "# Collective test starting: all_reduce_perf\n"));
  g_assert_nonnull (strstr (text->str, "# Collective test starting: alltoall_perf\n"));
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) back = g_array_new (FALSE, TRUE, sizeof (ExecCollRow));
  g_assert_true (exec_nccl_tests_parse (text->str, (gssize) text->len, NULL, back, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (back->len, ==, rows->len);
  for (guint i = 0; i < rows->len; i++)
    {
      const ExecCollRow *x = row_at (rows, i), *y = row_at (back, i);
      g_assert_cmpint (x->coll, ==, y->coll);
      g_assert_cmpint (x->ranks, ==, y->ranks);
      g_assert_cmpuint (x->size_B, ==, y->size_B);
      g_assert_cmpuint (x->count, ==, y->count);
      g_assert_cmpstr (x->type, ==, y->type);
      g_assert_cmpfloat (x->time_us, ==, y->time_us);
      g_assert_cmpfloat (x->algbw_GBs, ==, y->algbw_GBs);
      g_assert_cmpfloat (x->busbw_GBs, ==, y->busbw_GBs);
      g_assert_cmpint (x->wrong, ==, y->wrong);
      g_assert_cmpfloat (x->ip_time_us, ==, y->ip_time_us);
      g_assert_cmpint (x->ip_wrong, ==, y->ip_wrong);
    }
}

/* Rows into a profile: out-of-place time in seconds, GB/s to B/s; a row with wrong
 * elements is left out; a row with only an in-place time uses it. */
static void
test_profile_rows (void)
{
  g_autoptr (GArray) rows = parse_data ("all_reduce_perf-8xh100.txt");
  g_array_index (rows, ExecCollRow, 1).wrong = 3;
  ExecCollRow *ip_only = &g_array_index (rows, ExecCollRow, 2);
  ip_only->time_us = -1;
  g_autoptr (TopoProfile) p = topo_profile_new ();
  g_assert_cmpuint (exec_coll_rows_to_profile ((const ExecCollRow *) rows->data, rows->len, p),
                    ==, 10);
  g_assert_cmpuint (p->colls->len, ==, 10);
  const TopoProfileColl *a = &g_array_index (p->colls, TopoProfileColl, 0);
  const TopoProfileColl *b = &g_array_index (p->colls, TopoProfileColl, 1);
  g_assert_cmpstr (a->coll, ==, "all_reduce");
  g_assert_cmpuint (a->ranks, ==, 8);
  g_assert_cmpfloat (a->bytes, ==, 1024);
  assert_rel (a->time_s, 14.52e-6, 1e-15);
  assert_rel (a->busbw_Bps, 0.12e9, 1e-15);
  /* the 4 KiB row (wrong) is gone; the 16 KiB row took its in-place time, 15.02 us */
  g_assert_cmpfloat (b->bytes, ==, 16384);
  assert_rel (b->time_s, 15.02e-6, 1e-15);
  /* wrong elements in the in-place run only: the collective computed wrong results
   * there, so its out-of-place time is no calibration either (it was imported) */
  g_array_index (rows, ExecCollRow, 3).ip_wrong = 1;
  g_autoptr (TopoProfile) q = topo_profile_new ();
  g_assert_cmpuint (exec_coll_rows_to_profile ((const ExecCollRow *) rows->data, rows->len, q),
                    ==, 9);
  for (guint i = 0; i < q->colls->len; i++)
    g_assert_cmpfloat (g_array_index (q->colls, TopoProfileColl, i).bytes, !=,
                       (double) g_array_index (rows, ExecCollRow, 3).size_B);
}

/* ---- calibration -------------------------------------------------------------------------- */

/* A measured time t at the row's share s as the profile restates it at the calibration's
 * share S: the kernel time (t less the call overhead) x s / S, plus the overhead; t when
 * either share is unknown (0). */
static double
at_share (const ExecCalibration *cal, double t, double s, double S)
{
  const double kernel = cal_kernel_time (cal, t);
  return s > 0 && S > 0 ? kernel * s / S + (t - kernel) : t;
}

/* The checks every calibration must pass, on rank 0's record: every row checked and
 * right, a cluster JSON the strict loader accepts, and a cost model over it that
 * predicts each measured GEMM, attention core, memory-bound kernel and all-reduce (on the
 * measured group). */
static void
check_calibration (const ExecCalibration *cal, gboolean quick, int ranks)
{
  g_autoptr (GError) error = NULL;
  /* quick grid: 7 shapes (exec/calibrate.c) */
  g_assert_cmpuint (cal->gemm->len, ==, 7);
  for (guint i = 0; i < cal->gemm->len; i++)
    {
      const ExecGemmRow *g = &g_array_index (cal->gemm, ExecGemmRow, i);
      g_assert_cmpint (g->wrong, ==, 0);
      g_assert_cmpfloat (g->time_s, >, 0);
      g_assert_cmpfloat (g->flops_per_s, >, 0);
      g_assert_cmpint (g->reps, >=, 2);
    }
  g_assert_cmpint (cal->memory.wrong, ==, 0);
  g_assert_cmpfloat (cal->memory.triad_GBps, >, 0);
  g_assert_cmpfloat (cal->launch_s, >, 0);
  if (ranks > 1)
    {
      /* 5 collectives x 4 sizes over 2 ranks, every element right */
      g_assert_true (cal->colls_measured);
      g_assert_cmpuint (cal->colls->len, ==, 20);
      for (guint i = 0; i < cal->colls->len; i++)
        {
          const ExecCollRow *r = &g_array_index (cal->colls, ExecCollRow, i);
          g_assert_cmpint (r->wrong, ==, 0);
          g_assert_cmpint (r->ranks, ==, ranks);
          g_assert_cmpfloat (r->time_us, >, 0);
          /* algbw = S / t; busbw = algbw x factor (nccl-tests) */
          assert_rel (r->algbw_GBs, r->size_B / (r->time_us * 1e3), 1e-12);
          assert_rel (r->busbw_GBs, r->algbw_GBs * plan_coll_bus_factor (r->coll, ranks), 1e-12);
        }
    }
  else
    g_assert_false (cal->colls_measured);

  g_autofree char *text = exec_calibration_to_cluster_json (cal, NULL, &error);
  g_assert_no_error (error);
  g_autofree char *path = NULL;
  int fd = g_file_open_tmp ("tandem-calibrate-XXXXXX.json", &path, &error);
  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (path, text, -1, &error));
  g_autoptr (TopoCluster) cl = topo_cluster_load_file (path, &error);
  g_assert_no_error (error);
  g_unlink (path);
  g_assert_nonnull (cl->profile);
  g_assert_cmpuint (cl->profile->gemm->len, ==, 7);
  g_assert_cmpuint (cl->profile->colls->len, ==, ranks > 1 ? 20 : 0);
  g_assert_cmpuint (cl->n_devices, ==, (guint64) ranks);
  g_assert_cmpstr (cl->levels[0].name, ==, "host");
  g_assert_nonnull (strstr (g_hash_table_lookup (cl->device.sources, "peak_tflops"),
                            "tandem calibrate on "));

  /* the cost model over the file predicts each measured GEMM: the profile's rate takes
   * out the call overhead that the model adds back as launch_overhead_us, and where the
   * profile has the calibration's core share S (contention measured, 2 ranks), each row's
   * kernel time is restated from its own kept window's share s at S: t_kernel s / S
   * (exec/calibrate-profile.c; without S, or a row's share unknown, the measured time) */
  const double S = cl->profile->contention.compute_share;
  g_autoptr (SimCost) cost = sim_cost_new (cl, NULL, NULL);
  for (guint i = 0; i < cal->gemm->len; i++)
    {
      const ExecGemmRow *g = &g_array_index (cal->gemm, ExecGemmRow, i);
      ModelOp op = { .name = "gemm", .kind = MODEL_OP_GEMM, .m = g->m, .n = g->n, .k = g->k,
                     .fwd_flops = 2.0 * g->m * g->n * g->k };
      const double t = sim_cost_op_s (cost, &op, TOPO_DTYPE_FP32, FALSE);
      g_test_message ("%d x %d x %d: measured %.3f us at a share of %.3f, predicted %.3f us "
                      "at %.3f", g->m, g->n, g->k, g->time_s * 1e6, g->share, t * 1e6, S);
      assert_rel (t, at_share (cal, g->time_s, g->share, S), 1e-9);
    }
  /* the attention core and the memory-bound kernels: every row checked and right (quick
   * grid: 7 attention shapes; 13 kinds x 3 sizes, exec/calibrate-kernels.c), all in the
   * profile, whose rates make the cost model predict each measured time: the rate takes
   * out the call overhead that the model adds back. The last two are small-llama's
   * heads at 512 tokens (8 / 8 and its TP 2 shard 4 / 4, head_dim 64): K / V strides of
   * 8 x 64 and 4 x 64 floats that no other quick row has */
  g_assert_cmpuint (cal->attention->len, ==, 7);
  g_assert_cmpuint (cl->profile->attention->len, ==, 7);
  for (int i = 0; i < 2; i++)
    {
      const ExecAttnShape *sh = &g_array_index (cal->attention, ExecAttnRow, 5 + i).shape;
      g_assert_cmpint (sh->heads, ==, 8 >> i);
      g_assert_cmpint (sh->kv_heads, ==, 8 >> i);
      g_assert_cmpint (sh->s_q, ==, 512);
      g_assert_cmpint (sh->s_kv, ==, 512);
      g_assert_cmpint (sh->head_dim, ==, 64);
    }
  for (guint i = 0; i < cal->attention->len; i++)
    {
      const ExecAttnRow *a = &g_array_index (cal->attention, ExecAttnRow, i);
      const ExecAttnShape *sh = &a->shape;
      g_assert_cmpint (a->wrong, ==, 0);
      g_assert_cmpint (a->reps, >=, 2);
      /* FLOPs as plan/program.c counts them: 4 b heads s_q s_kv d / 2 (causal), x 2.5 */
      ModelOp op = { .name = "attn_core", .kind = MODEL_OP_ATTENTION, .b = sh->b,
                     .heads = sh->heads, .kv_heads = sh->kv_heads, .s_q = sh->s_q,
                     .s_kv = sh->s_kv, .head_dim = sh->head_dim, .causal = sh->causal };
      op.fwd_flops = 4.0 * sh->b * sh->heads * sh->s_q * sh->s_kv * sh->head_dim
                     * (sh->causal ? 0.5 : 1.0);
      const double tf = sim_cost_op_s (cost, &op, TOPO_DTYPE_FP32, FALSE);
      op.fwd_flops *= 2.5;
      const double tb = sim_cost_op_s (cost, &op, TOPO_DTYPE_FP32, TRUE);
      g_test_message ("attention %d x %d/%d x %d x %d: forward %.3f ms (%.2f GFLOP/s), "
                      "backward %.3f ms (%.2f GFLOP/s)", sh->b, sh->heads, sh->kv_heads,
                      sh->s_q, sh->head_dim, a->fwd_s * 1e3, a->fwd_flops_per_s / 1e9,
                      a->bwd_s * 1e3, a->bwd_flops_per_s / 1e9);
      assert_rel (tf, at_share (cal, a->fwd_s, a->fwd_share, S), 1e-9);
      assert_rel (tb, at_share (cal, a->bwd_s, a->bwd_share, S), 1e-9);
    }
  g_assert_cmpuint (cal->kernels->len, ==, 3 * TOPO_KERNEL_N);
  for (guint i = 0; i < cal->kernels->len; i++)
    {
      const ExecKernelRow *k = &g_array_index (cal->kernels, ExecKernelRow, i);
      g_assert_cmpint (k->wrong, ==, 0);
      g_assert_cmpint (k->reps, >=, 2);
      g_assert_cmpuint (cl->profile->kernels[k->kind]->len, ==, 3);
      /* the program's op of the kind (plan/program.c names; _grad kinds in backward) */
      static const ModelOpKind op_kind[] = { MODEL_OP_NORM, MODEL_OP_ELEMENTWISE,
                                             MODEL_OP_ELEMENTWISE, MODEL_OP_ELEMENTWISE,
                                             MODEL_OP_EMBEDDING, MODEL_OP_LOSS };
      static const char *const op_name[] = { "attn_norm", "rotary", "mlp_act",
                                             "attn_residual", "embed", "loss" };
      const gboolean bwd = k->kind % 2 == 1;
      double t;
      if (k->kind == TOPO_KERNEL_ADAMW)
        t = sim_cost_optimizer_s (cost, (double) k->elements);
      else
        {
          g_autofree char *name = g_strconcat (op_name[k->kind / 2], bwd ? "_grad" : "", NULL);
          ModelOp op = { .name = name, .kind = op_kind[k->kind / 2], .elements = k->elements };
          t = sim_cost_op_s (cost, &op, TOPO_DTYPE_FP32, bwd);
        }
      g_test_message ("%-15s %9" G_GUINT64_FORMAT " elements: %.4f ms, %.2f GB/s",
                      topo_kernel_name (k->kind), k->elements, k->time_s * 1e3, k->Bps / 1e9);
      assert_rel (t, at_share (cal, k->time_s, k->share, S), 1e-9);
    }
  if (ranks < 2)
    return;
  /* ... and each measured all-reduce over the ranks: the measured time, made
   * nondecreasing in size (sim/cost.h); a tp group of all ranks */
  Plan plan;
  plan_init_defaults (&plan);
  plan.tp = ranks;
  plan.dp = 1;
  plan.world_size = ranks;
  g_autoptr (PlanLayout) lay = plan_layout_new (&plan, cl, &error);
  g_assert_no_error (error);
  plan_clear (&plan);
  g_autoptr (SimCost) cc = sim_cost_new (cl, lay, NULL);
  double floor_s = 0;
  for (guint i = 0; i < cal->colls->len; i++)
    {
      const ExecCollRow *r = &g_array_index (cal->colls, ExecCollRow, i);
      if (r->coll != PLAN_COLL_ALL_REDUCE)
        continue;
      floor_s = MAX (floor_s, r->time_us * 1e-6);
      assert_rel (sim_cost_coll_s (cc, PLAN_COLL_ALL_REDUCE, PLAN_AXIS_TP, (double) r->size_B),
                  floor_s, 1e-9);
    }
  (void) quick;
}

/* One process, MPI off: GEMM and memory; no collectives (a world of one). */
static void
test_single_process (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecBackend) b = local_backend_open (NULL);
  ExecCalibrateOptions o;
  exec_calibrate_options_init (&o);
  o.quick = TRUE;
  /* a plan shape and one too large for quick mode (2 x 4096^3 > 2^33 FLOPs) */
  static const int extra[][3] = { { 128, 384, 64 }, { 4096, 4096, 4096 } };
  o.extra_shapes = extra;
  o.n_extra_shapes = 2;
  g_autoptr (ExecCalibration) cal = exec_calibrate_run (b, &o, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cal->skipped->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (cal->skipped, 0), "4096 x 4096 x 4096"));
  /* the plan's shape is the last row; drop it so the grid checks below apply */
  const ExecGemmRow *last = &g_array_index (cal->gemm, ExecGemmRow, cal->gemm->len - 1);
  g_assert_true (last->from_plan);
  g_assert_cmpint (last->m, ==, 128);
  g_assert_cmpint (last->wrong, ==, 0);
  g_array_set_size (cal->gemm, cal->gemm->len - 1);
  check_calibration (cal, TRUE, 1);
}

/* ---- the MPI part ------------------------------------------------------------------------- */

static ExecBackend *backend;

static void
test_mpi_quick (void)
{
  g_autoptr (GError) error = NULL;
  ExecCalibrateOptions o;
  exec_calibrate_options_init (&o);
  o.quick = TRUE;
  g_autoptr (ExecCalibration) cal = exec_calibrate_run (backend, &o, &error);
  g_assert_no_error (error);
  g_assert_cmpint (cal->ranks, ==, N_RANKS);
  if (backend->rank == 0)
    {
      g_autoptr (GString) s = g_string_new (NULL);
      exec_coll_rows_format (s, (const ExecCollRow *) cal->colls->data, cal->colls->len, NULL);
      g_test_message ("%s", s->str);
      check_calibration (cal, TRUE, N_RANKS);
    }
}

static int
run_rank (int argc, char **argv)
{
  setvbuf (stdout, NULL, _IOLBF, 0);
  g_test_init (&argc, &argv, NULL);
  backend = mpi_rank_backend_open ();
  g_test_add_func ("/exec/calibrate-mpi/quick", test_mpi_quick);
  int rc = g_test_run ();
  exec_backend_close (backend);
  return rc;
}

#define N_RANK_TESTS 1

static const char *self_path;


static void
test_launch (void)
{
  if (!mpi_test_can_launch (FALSE))
    return;
  g_autofree char *out = NULL;
  /* 180 s: the quick grid's small-llama attention rows (8 / 8 heads of 64 at 512 tokens:
   * 4x the 2 / 2 row's work) took the 2-rank run past 90 s under AddressSanitizer on the
   * loaded 2-core VM (load average 11); it takes ~40 s unsanitized there */
  if (mpi_test_run_self (self_path, N_RANKS, 180, NULL, N_RANK_TESTS, &out))
    g_test_message ("%s", out);
}

/* The core share that goes with the profile's rates is the kept (median) windows'. Three
 * rows of three windows, by hand (times in ms; schedstat seconds on CPU, waiting):
 *   row 1: windows 3, 1, 2 ms; (on, wait) per window (1.0, 2.0), (0.5, 0), (1.5, 0.5):
 *          the median 2 ms is window 3: share 1.5 / (1.5 + 0.5) = 0.75, where the whole
 *          row ran 3.0 / (3.0 + 2.5) = 0.545 (its first window waited most, and was not
 *          kept);
 *   row 2: windows 1, 1, 4 ms, the first of equal times kept: (2.0, 0): the tally is
 *          3.5 on CPU, 0.5 waiting: 0.875;
 *   row 3: its kept window's sample unreadable (-1): skipped, still 0.875.
 * Each call returns its kept window's own share: 0.75, 2.0 / (2.0 + 0) = 1, and 0 for
 * the unreadable one. After a reset the tally is empty: 0. */
static void
test_kept_share (void)
{
  cal_kept_reset ();
  g_assert_cmpfloat (cal_kept_share (), ==, 0.0);
  const double w1[3] = { 3e-3, 1e-3, 2e-3 };
  const double b1[3][2] = { { 0, 0 }, { 1.0, 2.0 }, { 1.5, 2.0 } };
  const double a1[3][2] = { { 1.0, 2.0 }, { 1.5, 2.0 }, { 3.0, 2.5 } };
  g_assert_cmpfloat (fabs (cal_windows_keep (w1, b1, a1, 3, 2e-3) - 0.75), <, 1e-12);
  g_assert_cmpfloat (fabs (cal_kept_share () - 0.75), <, 1e-12);
  const double w2[3] = { 1e-3, 1e-3, 4e-3 };
  const double b2[3][2] = { { 10.0, 1.0 }, { 12.0, 1.0 }, { 13.0, 1.0 } };
  const double a2[3][2] = { { 12.0, 1.0 }, { 13.0, 1.0 }, { 14.0, 3.0 } };
  g_assert_cmpfloat (cal_windows_keep (w2, b2, a2, 3, 1e-3), ==, 1.0);
  g_assert_cmpfloat (fabs (cal_kept_share () - 0.875), <, 1e-12);
  const double b3[3][2] = { { -1, -1 }, { 0, 0 }, { 0, 0 } };
  const double a3[3][2] = { { 5.0, 0 }, { 1.0, 1.0 }, { 1.0, 1.0 } };
  g_assert_cmpfloat (cal_windows_keep (w2, b3, a3, 3, 1e-3), ==, 0.0);
  g_assert_cmpfloat (fabs (cal_kept_share () - 0.875), <, 1e-12);
  cal_kept_reset ();
  g_assert_cmpfloat (cal_kept_share (), ==, 0.0);
}

/* Each row's rate restated at the calibration's core share (exec/calibrate-profile.c), and
 * the prediction of a run that measured its own share, by hand. A calibration of 2 ranks
 * on 2 cores whose kept windows ran, over all rows, at S = 0.5 of a core; call overhead
 * 2 us (the cost model adds it back, outside the rates):
 *   GEMM 256^3 (2^25 FLOPs) at 8e9 FLOP/s, its window at s = 0.25: kernel 2^25 / 8e9 =
 *     4.194304 ms of which 0.25 on a CPU, 1.048576 ms; at S it takes 2.097152 ms: the
 *     rate 8e9 x 0.5 / 0.25 = 1.6e10;
 *   GEMM 512^3 (2^28) at 1.6e10, s = 1: 16.777216 ms all on a CPU, at S 33.554432 ms:
 *     1.6e10 x 0.5 = 8e9;
 *   attention 1 x 2/2 heads of 64 at 512, causal: forward 3e9 at s = 0.6 -> 3e9 x 0.5 /
 *     0.6 = 2.5e9, backward 5e9 at 0.4 -> 6.25e9;
 *   kernels: norm of 65536 at 1e10 B/s, s = 0.5 = S -> 1e10; rotary of 65536 at 2e10,
 *     share unknown (0) -> 2e10 unchanged.
 * A run whose slowest rank got 0.8 of a core: compute_scale S / 0.8 = 0.625 (term 3), so
 * the 256^3 GEMM takes (2^25 / 1.6e10 + 2e-6) x 0.625 = 1.31197 ms = its 1.048576 ms on
 * a CPU / 0.8 + 1.25 us, where one share for all rows (the rate 8e9 as measured) gave
 * (4.194304 ms + 2 us) x 0.625 = 2.622690 ms, twice; the 512^3 GEMM (2^28 / 8e9 + 2e-6)
 * x 0.625 = 20.97277 ms (16.777216 / 0.8 + 1.25 us) where one share gave 10.48701 ms.
 * Without a contention object (no S) every rate stays as measured. */
static void
test_row_share (void)
{
  g_autoptr (ExecCalibration) cal = exec_calibration_new ("cpu");   /* this host, now */
  cal->ranks = cal->ranks_per_host = 2;
  cal->host_memory_bytes = G_GUINT64_CONSTANT (8) << 30;
  cal->launch_s = 2e-6;
  cal->memory = (ExecMemRow) { .bytes = 1 << 20, .reps = 1, .copy_GBps = 10, .triad_GBps = 10 };
  const ExecGemmRow g[2] = {
    { .m = 256, .n = 256, .k = 256, .dtype = EXEC_DTYPE_F32, .flops_per_s = 8e9, .reps = 3,
      .share = 0.25 },
    { .m = 512, .n = 512, .k = 512, .dtype = EXEC_DTYPE_F32, .flops_per_s = 1.6e10,
      .reps = 3, .share = 1.0 },
  };
  g_array_append_vals (cal->gemm, g, 2);
  const ExecAttnRow a = { .shape = { 1, 2, 2, 512, 512, 64, TRUE }, .fwd_flops_per_s = 3e9,
                          .bwd_flops_per_s = 5e9, .reps = 3, .fwd_share = 0.6,
                          .bwd_share = 0.4 };
  g_array_append_val (cal->attention, a);
  const ExecKernelRow k[2] = {
    { .kind = TOPO_KERNEL_NORM, .elements = 65536, .Bps = 1e10, .reps = 3, .share = 0.5 },
    { .kind = TOPO_KERNEL_ROTARY, .elements = 65536, .Bps = 2e10, .reps = 3 },
  };
  g_array_append_vals (cal->kernels, k, 2);

  /* no contention measured: no S, the rates as measured */
  {
    g_autoptr (TopoProfile) p = exec_calibration_to_profile (cal);
    g_assert_cmpfloat (g_array_index (p->gemm, TopoProfileGemm, 0).flops_per_s, ==, 8e9);
    g_assert_cmpfloat (g_array_index (p->gemm, TopoProfileGemm, 1).flops_per_s, ==, 1.6e10);
    g_assert_cmpfloat (g_array_index (p->attention, TopoProfileAttn, 0).fwd_flops_per_s, ==,
                       3e9);
  }
  cal->contention = (ExecContentionRow) { .cores = 2, .blas_threads = 1, .progress_threads = 1,
                                          .gemm_m = 256, .gemm_alone_s = 1e-3,
                                          .gemm_coll_s = 1.5e-3, .coll_bytes = 4194304,
                                          .coll_s = 5e-3, .reps = 3, .n_coll = 1,
                                          .compute_share = 0.5 };
  g_autoptr (TopoProfile) p = exec_calibration_to_profile (cal);
  g_assert_cmpfloat (p->contention.compute_share, ==, 0.5);
  assert_rel (g_array_index (p->gemm, TopoProfileGemm, 0).flops_per_s, 1.6e10, 1e-15);
  assert_rel (g_array_index (p->gemm, TopoProfileGemm, 1).flops_per_s, 8e9, 1e-15);
  assert_rel (g_array_index (p->attention, TopoProfileAttn, 0).fwd_flops_per_s, 2.5e9, 1e-15);
  assert_rel (g_array_index (p->attention, TopoProfileAttn, 0).bwd_flops_per_s, 6.25e9, 1e-15);
  assert_rel (g_array_index (p->kernels[TOPO_KERNEL_NORM], TopoProfileKernel, 0).Bps, 1e10,
              1e-15);
  g_assert_cmpfloat (g_array_index (p->kernels[TOPO_KERNEL_ROTARY], TopoProfileKernel, 0).Bps,
                     ==, 2e10);

  /* the cluster JSON of it, and the run at 0.8 of a core */
  g_autoptr (GError) error = NULL;
  g_autofree char *text = exec_calibration_to_cluster_json (cal, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (TopoCluster) cl = topo_cluster_new_from_data (text, -1, "hand.json", &error);
  g_assert_no_error (error);
  SimCostOptions o;
  sim_cost_options_init (&o, cl);
  o.cpu_share = 0.8;
  g_autoptr (SimCost) cost = sim_cost_new (cl, NULL, &o);
  ModelOp op = { .name = "gemm", .kind = MODEL_OP_GEMM, .m = 256, .n = 256, .k = 256,
                 .fwd_flops = 33554432.0 };
  assert_rel (sim_cost_op_s (cost, &op, TOPO_DTYPE_FP32, FALSE), 1.31197e-3, 1e-12);
  op.m = op.n = op.k = 512;
  op.fwd_flops = 268435456.0;
  assert_rel (sim_cost_op_s (cost, &op, TOPO_DTYPE_FP32, FALSE), 20.97277e-3, 1e-12);
}

/* The text of a tests/data/calibrate file. */
static char *
read_data_text (const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "calibrate", name, NULL);
  char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

/* The rank count is what the table's busbw / algbw says, checked against the device
 * lines: with "#  Rank 4" .. "#  Rank 7" cut from all_reduce_perf-8xh100.txt, the table
 * was imported as 4 ranks. Its largest algbw (the last row's in-place 274.00 GB/s, busbw
 * 479.51) gives 479.51 / 274.00 = 1.75004 = 2 (n - 1) / n for n = 8; 2 x 3 / 4 = 1.5 is
 * 411.00, off by 68.5. The row is line 28 - 4 = 24 once 4 lines are gone. */
static void
test_ranks_from_ratio (void)
{
  g_autofree char *text = read_data_text ("all_reduce_perf-8xh100.txt");
  GString *cut = g_string_new (NULL);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (!(strstr (lines[i], "#  Rank  4") || strstr (lines[i], "#  Rank  5")
          || strstr (lines[i], "#  Rank  6") || strstr (lines[i], "#  Rank  7")))
      g_string_append_printf (cut, "%s%s", lines[i], lines[i + 1] != NULL ? "\n" : "");
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) rows = g_array_new (FALSE, TRUE, sizeof (ExecCollRow));
  g_assert_false (exec_nccl_tests_parse (cut->str, (gssize) cut->len, "all_reduce_perf.txt",
                                         rows, &error));
  g_string_free (cut, TRUE);
  g_assert_error (error, EXEC_ERROR, EXEC_ERROR_INVALID);
  g_assert_cmpstr (error->message, ==, "all_reduce_perf.txt:24: busbw 479.51 / algbw 274.00 "
                   "GB/s is all_reduce's 2(n-1)/n for 8 ranks, but the '#  Rank N' device "
                   "lines name 4 (hint: the table's own ratio counts the ranks; were lines "
                   "cut from the file? give the whole nccl-tests output)");
}

/* A row whose busbw is not its algbw times the factor, beyond the two-decimal rounding:
 * the last row's busbw 478.69 printed as 47.87, where 273.54 x 2 x 7 / 8 = 478.695 (the
 * rounding allows 0.005 + 0.005 x 1.75 + 0.1% = 0.49 GB/s). Line 28. The shipped tables
 * (8 and 16 ranks, reduce-scatter and all-to-all on 8 A100s, sendrecv) all fit. */
static void
test_busbw_off (void)
{
  g_autofree char *text = read_data_text ("all_reduce_perf-8xh100.txt");
  const char *at = strstr (text, "273.54  478.69");
  g_assert_nonnull (at);
  g_autofree char *bad = g_strdup_printf ("%.*s273.54   47.87%s", (int) (at - text), text,
                                          at + strlen ("273.54  478.69"));
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) rows = g_array_new (FALSE, TRUE, sizeof (ExecCollRow));
  g_assert_false (exec_nccl_tests_parse (bad, -1, "all_reduce_perf.txt", rows, &error));
  g_assert_nonnull (strstr (error->message, "all_reduce_perf.txt:28: a table row whose busbw "
                                            "47.87 GB/s is not its algbw 273.54 GB/s x "
                                            "all_reduce's 2(n-1)/n = 1.7500 for 8 ranks "
                                            "(478.70 GB/s)"));
  const char *const shipped[] = { "all_reduce_perf-8xh100.txt", "all_gather_perf-16ranks.txt",
                                  "reduce-scatter-alltoall-a100.txt",
                                  "sendrecv_perf-2nodes.txt" };
  for (guint i = 0; i < G_N_ELEMENTS (shipped); i++)
    g_array_unref (parse_data (shipped[i]));
}

/* Rows repeated for one (collective, ranks, size) -- -d all, -o all, runs appended --
 * were reduced to the last one read by the profile. Now one row each, the median time:
 * the 1 GiB row at 3925.40, 7850.80 and 5000.00 us keeps 5000.00 (the middle); with only
 * the first two, the faster of the middle two, 3925.40 (the last, 7850.80, had won). */
static void
test_merge_repeats (void)
{
  g_autoptr (GArray) rows = parse_data ("all_reduce_perf-8xh100.txt");
  g_assert_cmpuint (rows->len, ==, 11);
  ExecCollRow slow = *row_at (rows, 10), mid = *row_at (rows, 10);
  slow.time_us = 7850.80;
  mid.time_us = 5000.00;
  g_array_append_val (rows, slow);
  g_assert_cmpuint (exec_coll_rows_merge_repeats (rows), ==, 1);
  g_assert_cmpuint (rows->len, ==, 11);
  g_assert_cmpfloat (row_at (rows, 10)->time_us, ==, 3925.40);
  g_array_append_val (rows, slow);
  g_array_append_val (rows, mid);
  g_assert_cmpuint (exec_coll_rows_merge_repeats (rows), ==, 2);
  g_assert_cmpuint (rows->len, ==, 11);
  g_assert_cmpfloat (row_at (rows, 10)->time_us, ==, 5000.00);
  /* the order of the first of each kept, and nothing merged where nothing repeats */
  g_assert_cmpuint (row_at (rows, 0)->size_B, ==, 1024);
  g_assert_cmpuint (exec_coll_rows_merge_repeats (rows), ==, 0);
}

int
main (int argc, char **argv)
{
  if (g_getenv ("OMPI_COMM_WORLD_SIZE"))
    return run_rank (argc, argv);
  g_test_init (&argc, &argv, NULL);
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  self_path = exe ? exe : argv[0];
  g_test_add_func ("/exec/nccl-tests/all-reduce", test_all_reduce);
  g_test_add_func ("/exec/calibrate/size-count-type", test_size_count_type);
  g_test_add_func ("/exec/nccl-tests/all-gather-from-file-name", test_all_gather_from_name);
  g_test_add_func ("/exec/nccl-tests/two-tests-one-log", test_two_tests_one_log);
  g_test_add_func ("/exec/nccl-tests/tagged-sendrecv", test_tagged_sendrecv);
  g_test_add_func ("/exec/nccl-tests/refused", test_refused);
  g_test_add_func ("/exec/nccl-tests/wrong-not-a-count", test_wrong_not_a_count);

  g_test_add_func ("/exec/nccl-tests/implausible-rows", test_implausible_rows);
  g_test_add_func ("/exec/nccl-tests/header-out-of-order", test_header_out_of_order);
  g_test_add_func ("/exec/nccl-tests/format-round-trip", test_format_round_trip);
  g_test_add_func ("/exec/nccl-tests/format-na-bandwidth", test_format_na_bandwidth);
  g_test_add_func ("/exec/nccl-tests/ranks-from-ratio", test_ranks_from_ratio);
  g_test_add_func ("/exec/nccl-tests/busbw-off", test_busbw_off);
  g_test_add_func ("/exec/nccl-tests/merge-repeats", test_merge_repeats);
  g_test_add_func ("/exec/calibrate/profile-rows", test_profile_rows);
  g_test_add_func ("/exec/calibrate/kept-share", test_kept_share);
  g_test_add_func ("/exec/calibrate/row-share", test_row_share);
  g_test_add_func ("/exec/calibrate/single-process", test_single_process);
  g_test_add_func ("/exec/calibrate/mpi-2-ranks", test_launch);
  return g_test_run ();
}
