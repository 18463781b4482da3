/* tests/cli/test-hygiene.c - cli/cli-hygiene.c: the spread of repeated measurements and
 * the load check behind the warnings of tandem run and tandem calibrate. */
#include "cli/cli-hygiene.h"

#include <glib/gstdio.h>

/* {1.0, 1.2, 1.1, 0.9}: sorted 0.9 1.0 1.1 1.2, median (1.0 + 1.1) / 2 = 1.05, spread
 * (1.2 - 0.9) / 1.05 = 0.2857 > 0.10: flagged. {2.0, 2.1, 1.95}: median 2.0, spread
 * 0.15 / 2.0 = 0.075: not flagged. One repetition: spread 0. */
static void
test_spread (void)
{
  const double a[] = { 1.0, 1.2, 1.1, 0.9 };
  CliSpread s;
  cli_spread_compute (a, 4, -1, 1, &s);
  g_assert_cmpfloat_with_epsilon (s.min_s, 0.9, 1e-12);
  g_assert_cmpfloat_with_epsilon (s.max_s, 1.2, 1e-12);
  g_assert_cmpfloat_with_epsilon (s.median_s, 1.05, 1e-12);
  g_assert_cmpfloat_with_epsilon (s.spread, 0.3 / 1.05, 1e-12);
  g_assert_true (s.spread_high);
  g_assert_false (s.loaded);                 /* load unknown: no load verdict */
  g_assert_cmpfloat (a[0], ==, 1.0);         /* the input is not sorted in place */
  g_autoptr (GPtrArray) w = cli_spread_warnings (&s, "step time", "more steps");
  g_assert_cmpuint (w->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (w, 0), "step time varied by 29% over 4 "
                            "repetitions (min 0.9, median 1.05, max 1.2 s)"));

  const double b[] = { 2.0, 2.1, 1.95 };
  cli_spread_compute (b, 3, -1, 1, &s);
  g_assert_cmpfloat_with_epsilon (s.median_s, 2.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (s.spread, 0.075, 1e-12);
  g_assert_false (s.spread_high);

  const double c[] = { 3.0 };
  cli_spread_compute (c, 1, -1, 1, &s);
  g_assert_cmpfloat (s.spread, ==, 0.0);
  g_assert_cmpfloat (s.median_s, ==, 3.0);
}

/* The load average is field 1 of /proc/loadavg (here a file named by TANDEM_LOADAVG_FILE);
 * an unreadable or malformed file is "unknown" (-1). Loaded: load > cores - procs + 0.5,
 * so an idle machine (load 0) never is, and a load of cores + 1 always is. */
static void
test_load (void)
{
  g_autofree char *dir = g_dir_make_tmp ("tandem-hygiene-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "loadavg", NULL);
  g_setenv ("TANDEM_LOADAVG_FILE", path, TRUE);
  g_assert_cmpfloat (cli_load_average (), ==, -1);   /* no file yet */
  g_assert_true (g_file_set_contents (path, "garbage\n", -1, NULL));
  g_assert_cmpfloat (cli_load_average (), ==, -1);
  g_assert_true (g_file_set_contents (path, "3.50 2.00 1.00 4/321 9876\n", -1, NULL));
  g_assert_cmpfloat (cli_load_average (), ==, 3.5);

  int cores = (int) g_get_num_processors ();
  const double v[] = { 1.0, 1.0 };
  CliSpread s;
  cli_spread_compute (v, 2, 0.0, 1, &s);
  g_assert_cmpint (s.cores, ==, cores);
  g_assert_false (s.loaded);
  cli_spread_compute (v, 2, cores + 1.0, 1, &s);
  g_assert_true (s.loaded);
  g_autoptr (GPtrArray) w = cli_spread_warnings (&s, "step time", "rerun");
  g_assert_cmpuint (w->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (w, 0), "the machine was loaded"));
  /* the JSON says whether to trust it, and why not */
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  cli_spread_to_json (&s, "step time", "rerun", "spread", b);
  json_builder_end_object (b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  JsonObject *o = json_object_get_object_member (json_node_get_object (root), "spread");
  g_assert_false (json_object_get_boolean_member (o, "trustworthy"));
  g_assert_cmpfloat (json_object_get_double_member (o, "load_avg_1m"), ==, cores + 1.0);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (o, "warnings")), ==, 1);
  g_unlink (path);
  g_rmdir (dir);
  g_unsetenv ("TANDEM_LOADAVG_FILE");
}

/* The kernel's count of the measurement's own wait decides where it is known. The
 * decaying load average left by the previous run (1.83 on these 2 ranks' 2 cores, with
 * nothing else running: over cores - procs + 0.5 = 0.5) flags the figure alone, but the
 * compute thread's share of 0.97 (the quiet host's) says no one else took its cores:
 * not loaded. The bound for 2 processes: others' e threads beyond the free cores share
 * the 2 busy ones, each measuring thread gets 2 / (2 + e), and e = 1/2 gives
 * 2 / 2.5 = 0.8; a share of 0.79 is loaded, 0.81 is not. For 1 process: 1 / 1.5 = 2/3.
 * A share out of (0, 1] is unknown: the load average still decides. */
static void
test_share (void)
{
  const double v[] = { 1.0, 1.0 };
  CliSpread s;
  const double load_left = g_get_num_processors () + 0.5 - 2 + 1.33;   /* above the bound */
  cli_spread_compute (v, 2, load_left, 2, &s);
  g_assert_true (s.loaded);
  cli_spread_set_share (&s, 0.97);
  g_assert_false (s.loaded);
  g_assert_cmpfloat (s.share, ==, 0.97);
  g_autoptr (GPtrArray) none = cli_spread_warnings (&s, "step time", "rerun");
  g_assert_cmpuint (none->len, ==, 0);
  cli_spread_set_share (&s, 0.79);
  g_assert_true (s.loaded);
  g_autoptr (GPtrArray) w = cli_spread_warnings (&s, "step time", "rerun");
  g_assert_cmpuint (w->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (w, 0), "ran 0.79 of the time it was runnable, "
                                                      "below 2 / (2 + 0.5) = 0.80"));
  cli_spread_set_share (&s, 0.81);
  g_assert_false (s.loaded);
  /* a quiet load average with a starved thread: loaded all the same */
  cli_spread_compute (v, 2, 0.0, 2, &s);
  g_assert_false (s.loaded);
  cli_spread_set_share (&s, 0.5);
  g_assert_true (s.loaded);
  /* unknown shares leave the load average's verdict */
  cli_spread_compute (v, 2, load_left, 2, &s);
  cli_spread_set_share (&s, 0.0);
  cli_spread_set_share (&s, 1.5);
  g_assert_true (s.loaded);
  g_assert_cmpfloat (s.share, ==, 0.0);
  g_assert_true (cli_share_loaded (0.66, 1));
  g_assert_false (cli_share_loaded (0.67, 1));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/hygiene/spread", test_spread);
  g_test_add_func ("/cli/hygiene/load", test_load);
  g_test_add_func ("/cli/hygiene/share", test_share);
  return g_test_run ();
}
