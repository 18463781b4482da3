/* tests/results/test-training-log.c - the training-log reader (results/training-log.h) on
 * the logs jobs really leave: a last line cut short, NUL runs, several ranks printing each
 * step, a restarted job appending to the same file, CR-only line ends, malformed numbers.
 * Each log is built here from lines in the shape Megatron-LM and TorchTitan print. */
#include "results/training-log.h"

#include <math.h>
#include <string.h>

/* Megatron-LM's training_log line: every field closed by " |" */
static char *
mline (int it, const char *ms, const char *tflops, int gbs)
{
  return g_strdup_printf (" [2026-11-30 10:00:00] iteration %8d/    1000 | consumed samples: "
                          "%12d | elapsed time per iteration (ms): %s | throughput per GPU "
                          "(TFLOP/s/GPU): %s | learning rate: 3.000000E-04 | global batch "
                          "size: %5d | lm loss: 7.500000E+00 | loss scale: 1.0 |", it,
                          it * gbs, ms, tflops, gbs);
}

/* TorchTitan's metrics line, coloured */
static char *
tline (int rank, int step, const char *tps, const char *tflops, const char *mfu)
{
  return g_strdup_printf ("[rank%d]:[titan] 2026-11-30 10:00:00,000 - root - INFO - "
                          "\x1b[31mstep: %2d  \x1b[32mloss:  7.9000  \x1b[33mmemory: "
                          "45.12GiB(47.48%%)  \x1b[34mtps: %s  \x1b[36mtflops: %s  "
                          "\x1b[35mmfu: %s%%\x1b[39m", rank, step, tps, tflops, mfu);
}

static TrainingLog *
parse (const char *text, gssize len, GError **error)
{
  return training_log_parse (text, len, TRAINING_LOG_AUTO, "t.log", error);
}

static const TrainingLogEntry *
entry (const TrainingLog *log, guint i)
{
  g_assert_cmpuint (i, <, log->entries->len);
  return &g_array_index (log->entries, TrainingLogEntry, i);
}

/* The last line cut short where the file ends ("(ms): 1400.0 |" as "(ms): 14") was read
 * as a step of 0.014 s. Left out and counted now; a whole last line without a final line
 * break still counts. */
static void
test_truncated_last_line (void)
{
  g_autofree char *a = mline (10, "1000.0", "400.0", 64), *b = mline (20, "1100.0", "400.0", 64);
  g_autofree char *c = mline (30, "1400.0", "400.0", 64);
  const char *cut = strstr (c, "(ms): 1400.0") + strlen ("(ms): 14");
  g_autofree char *text = g_strdup_printf ("%s\n%s\n%.*s", a, b, (int) (cut - c), c);
  g_autoptr (GError) error = NULL;
  g_autoptr (TrainingLog) log = parse (text, -1, &error);
  g_assert_no_error (error);
  /* lines 1 and 2 (1.0 s, 1.1 s); line 3 left out */
  g_assert_cmpuint (log->entries->len, ==, 2);
  g_assert_cmpfloat (entry (log, 1)->elapsed_s, ==, 1.1);
  g_assert_cmpuint (log->incomplete, ==, 1);
  g_assert_cmpint (log->incomplete_line, ==, 3);
  training_log_free (g_steal_pointer (&log));

  /* cut after the time's " |" but before the throughput every other line has */
  cut = strstr (c, "| throughput") + 1;
  g_free (text);
  text = g_strdup_printf ("%s\n%s\n%.*s", a, b, (int) (cut - c), c);
  log = parse (text, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (log->entries->len, ==, 2);
  g_assert_cmpuint (log->incomplete, ==, 1);
  training_log_free (g_steal_pointer (&log));

  /* the whole line, only the final line break missing: 3 steps, the last 1.4 s */
  g_free (text);
  text = g_strdup_printf ("%s\n%s\n%s", a, b, c);
  log = parse (text, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (log->entries->len, ==, 3);
  g_assert_cmpfloat (entry (log, 2)->elapsed_s, ==, 1.4);
  g_assert_cmpuint (log->incomplete, ==, 0);
  training_log_free (g_steal_pointer (&log));

  /* TorchTitan: "mfu: 31.8" without its '%', and "tps: 5,1" of "tps: 5,121" */
  g_autofree char *t1 = tline (0, 10, "5,000", "300.0", "30.0");
  g_autofree char *t2 = tline (0, 20, "5,121", "314.94", "31.83");
  /* ... and cut before its tps ("loss:" and no more: no step line to either parser, and it
   * went without the note) */
  const char *cuts[] = { "mfu: 31.8", "tps: 5,1", "loss: " };
  for (guint i = 0; i < G_N_ELEMENTS (cuts); i++)
    {
      const char *at = strstr (t2, cuts[i]) + strlen (cuts[i]);
      g_free (text);
      text = g_strdup_printf ("%s\n%.*s", t1, (int) (at - t2), t2);
      log = parse (text, -1, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (log->entries->len, ==, 1);
      g_assert_cmpuint (log->incomplete, ==, 1);
      training_log_free (g_steal_pointer (&log));
    }
}

/* A Megatron log whose last line is cut before its elapsed time ("iteration 50/ 1000 |
 * consumed samples: 3200 | elaps", no line break): no step line to the parser, and it
 * vanished without the note TorchTitan's cut lines get. Counted now, at its line 3; the
 * two whole lines read (1.0 and 1.1 s). A last line naming an iteration in a message
 * ("saved checkpoint from iteration 50 to ...": no '/' after the number) is no cut step. */
static void
test_megatron_cut_before_elapsed (void)
{
  g_autofree char *a = mline (10, "1000.0", "400.0", 64), *b = mline (20, "1100.0", "400.0", 64);
  const char *tails[] = { " [2026-11-30 10:04:00] iteration       50/    1000 | consumed "
                          "samples:         3200 | elaps",
                          "  successfully saved checkpoint from iteration      50 to /ckpt" };
  const guint want[] = { 1, 0 };
  for (guint i = 0; i < G_N_ELEMENTS (tails); i++)
    {
      g_autofree char *text = g_strdup_printf ("%s\n%s\n%s", a, b, tails[i]);
      g_autoptr (GError) error = NULL;
      g_autoptr (TrainingLog) log = parse (text, -1, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (log->entries->len, ==, 2);
      g_assert_cmpfloat (entry (log, 1)->elapsed_s, ==, 1.1);
      g_assert_cmpuint (log->incomplete, ==, want[i]);
      if (want[i] > 0)
        g_assert_cmpint (log->incomplete_line, ==, 3);
    }
}

/* Numbers no log holds: a global batch past 2^53 read as "not logged" (so any --gbs
 * passed), refused now naming the line; an elapsed time with text run on ("6700x |") read
 * as 6700 ms, its line left out now and counted, with its line and key. Left: lines 1
 * and 3 (1.0 and 1.2 s). */
static void
test_impossible_numbers (void)
{
  g_autofree char *a = mline (10, "1000.0", "400.0", 64), *c = mline (30, "1200.0", "400.0", 64);
  g_autofree char *b = mline (20, "1100.0", "400.0", 64);
  g_autoptr (GString) huge = g_string_new (b);
  g_string_replace (huge, "size:    64 |", "size: 99999999999999999999 |", 1);
  g_autofree char *text = g_strdup_printf ("%s\n%s\n%s\n", a, huge->str, c);
  g_autoptr (GError) error = NULL;
  g_autoptr (TrainingLog) log = parse (text, -1, &error);
  g_assert_null (log);
  g_assert_nonnull (strstr (error->message, "t.log:2: 'global batch size:' is followed by "
                                            "1e+20, more than the 2147483647 sequences a "
                                            "plan's global batch can be: not a batch a job "
                                            "ran"));
  g_clear_error (&error);
  /* 2^31, one past --gbs's range (under 2^53 it was a batch, and hinted "--gbs
   * 2147483648", which --gbs refuses) */
  g_autoptr (GString) big = g_string_new (b);
  g_string_replace (big, "size:    64 |", "size: 2147483648 |", 1);
  g_autofree char *text2 = g_strdup_printf ("%s\n%s\n%s\n", a, big->str, c);
  g_autoptr (TrainingLog) log2 = parse (text2, -1, &error);
  g_assert_null (log2);
  g_assert_nonnull (strstr (error->message, "followed by 2147483648, more than the "
                                            "2147483647 sequences"));
  g_clear_error (&error);

  g_autoptr (GString) junk = g_string_new (b);
  g_string_replace (junk, "(ms): 1100.0 |", "(ms): 1100.0x |", 1);
  g_free (text);
  text = g_strdup_printf ("%s\n%s\n%s\n", a, junk->str, c);
  log = parse (text, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (log->entries->len, ==, 2);
  g_assert_cmpfloat (entry (log, 1)->elapsed_s, ==, 1.2);
  g_assert_cmpuint (log->run_on, ==, 1);
  g_assert_cmpint (log->run_on_line, ==, 2);
  g_assert_cmpstr (log->run_on_field, ==, "elapsed time per iteration (ms):");
  training_log_free (g_steal_pointer (&log));

  /* the same for the throughput and the batch ("64x" read as 64) */
  const char *runs[][2] = { { "(TFLOP/s/GPU): 400.0 |", "(TFLOP/s/GPU): 400.0x |" },
                            { "size:    64 |", "size:    64x |" } };
  for (guint i = 0; i < G_N_ELEMENTS (runs); i++)
    {
      g_autoptr (GString) j = g_string_new (b);
      g_assert_cmpuint (g_string_replace (j, runs[i][0], runs[i][1], 1), ==, 1);
      g_free (text);
      text = g_strdup_printf ("%s\n%s\n%s\n", a, j->str, c);
      log = parse (text, -1, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (log->entries->len, ==, 2);
      g_assert_cmpuint (log->run_on, ==, 1);
      training_log_free (g_steal_pointer (&log));
    }
}

/* A last line without its line break that only names a step ("Saving checkpoint at step:
 * 40", a validation line): no metrics line cut short, and no note (the check for the cut
 * TorchTitan line took any "step:") */
static void
test_titan_last_line_not_metrics (void)
{
  g_autofree char *t1 = tline (0, 10, "5,000", "300.0", "30.0");
  g_autofree char *t2 = tline (0, 20, "5,121", "314.94", "31.83");
  const char *tails[] = { "[rank0]:[titan] INFO - Saving checkpoint at step: 40",
                          "[rank0]:[titan] INFO - validate step: 40  loss:  2.31" };
  for (guint i = 0; i < G_N_ELEMENTS (tails); i++)
    {
      g_autofree char *text = g_strdup_printf ("%s\n%s\n%s", t1, t2, tails[i]);
      g_autoptr (GError) error = NULL;
      g_autoptr (TrainingLog) log = parse (text, -1, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (log->entries->len, ==, 2);
      g_assert_cmpuint (log->incomplete, ==, 0);
    }
}

/* A negative Megatron iteration number ("iteration -50/"): left out without a word, the
 * interval across it counted as one; refused at its line */
static void
test_negative_iteration (void)
{
  g_autofree char *a = mline (10, "1000.0", "400.0", 64), *b = mline (20, "1100.0", "400.0", 64);
  char *at = strstr (b, "20/");
  g_assert_nonnull (at);
  g_autofree char *bad = g_strdup_printf ("%.*s-5%s", (int) (at - b), b, at + 1);
  g_autofree char *text = g_strdup_printf ("%s\n%s\n", a, bad);
  g_autoptr (GError) error = NULL;
  g_autoptr (TrainingLog) log = parse (text, -1, &error);
  g_assert_null (log);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "t.log:2: the iteration number -50 is negative"));
}

/* A ',' groups exactly three digits: "5,0" was read as 50 tokens/s. */
static void
test_thousands_grouping (void)
{
  static const struct { const char *tps; double want; } ok[] = {
    { "5,000", 5000 }, { "12,345,678", 12345678 }, { "999", 999 },
  };
  static const char *const bad[] = { "5,0", "1234,567", "5,0000", "1,23,456" };
  for (guint i = 0; i < G_N_ELEMENTS (ok); i++)
    {
      g_autofree char *l = tline (0, 10, ok[i].tps, "300.0", "30.0");
      g_autofree char *text = g_strconcat (l, "\n", NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (TrainingLog) log = parse (text, -1, &error);
      g_assert_no_error (error);
      g_assert_cmpfloat (entry (log, 0)->tps, ==, ok[i].want);
    }
  /* grouped with a fraction: TorchTitan's tflops ({tflops:,.2f}; tps is a whole number) */
  {
    g_autofree char *l = tline (0, 10, "5,000", "1,234.56", "30.0");
    g_autofree char *text = g_strconcat (l, "\n", NULL);
    g_autoptr (GError) error = NULL;
    g_autoptr (TrainingLog) log = parse (text, -1, &error);
    g_assert_no_error (error);
    g_assert_cmpfloat (entry (log, 0)->tflops_per_gpu, ==, 1234.56);
  }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *l = tline (0, 10, bad[i], "300.0", "30.0");
      g_autofree char *text = g_strconcat (l, "\n", NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (TrainingLog) log = parse (text, -1, &error);
      g_assert_null (log);
      g_assert_error (error, TRAINING_LOG_ERROR, TRAINING_LOG_ERROR_PARSE);
      g_assert_nonnull (strstr (error->message, "t.log:1: the number after 'tps:' groups its "
                                                "thousands wrongly"));
    }
}

/* NUL bytes cut the log where the first one stood (g_strndup). A run of them is a line
 * break now, counted; line numbers stay those of the file's line breaks (grep -an). */
static void
test_nul_runs (void)
{
  g_autofree char *a = mline (10, "1000.0", "400.0", 64), *b = mline (20, "1100.0", "400.0", 64);
  g_autofree char *c = mline (30, "1200.0", "400.0", 64);
  /* line 1 a, line 2 three NULs, line 3 b, line 4 "garbage" + 2 NULs + c */
  GString *s = g_string_new (a);
  g_string_append_c (s, '\n');
  g_string_append_len (s, "\0\0\0\n", 4);
  g_string_append (s, b);
  g_string_append_c (s, '\n');
  g_string_append_len (s, "garbage\0\0", 9);
  g_string_append (s, c);
  g_string_append_c (s, '\n');
  g_autoptr (GError) error = NULL;
  g_autoptr (TrainingLog) log = parse (s->str, (gssize) s->len, &error);
  g_string_free (s, TRUE);
  g_assert_no_error (error);
  g_assert_cmpuint (log->entries->len, ==, 3);
  g_assert_cmpuint (log->nul_bytes, ==, 5);
  g_assert_cmpint (entry (log, 1)->line, ==, 3);
  g_assert_cmpint (entry (log, 2)->line, ==, 4);
  g_assert_cmpfloat (entry (log, 2)->elapsed_s, ==, 1.2);

  /* a crashed node: the last line cut by the NULs its unwritten pages read as */
  g_autofree char *cut = g_strndup (c, (gsize) (strstr (c, "(ms): 1200.0") - c) + 8);
  s = g_string_new (a);
  g_string_append_c (s, '\n');
  g_string_append (s, cut);
  g_string_append_len (s, "\0\0\0\0", 4);
  training_log_free (g_steal_pointer (&log));
  log = parse (s->str, (gssize) s->len, &error);
  g_string_free (s, TRUE);
  g_assert_no_error (error);
  g_assert_cmpuint (log->entries->len, ==, 1);
  g_assert_cmpuint (log->incomplete, ==, 1);
  g_assert_cmpuint (log->nul_bytes, ==, 4);
}

/* Several ranks print each step: one step each. The same figures are a duplicate; other
 * figures (each rank timing itself) one step, the slowest kept. --skip counts steps. */
static void
test_ranks (void)
{
  GString *s = g_string_new (NULL);
  /* steps 10, 20, 30 by ranks 0 and 1; step 30's rank 1 slower (4,000 tokens/s) */
  const char *tps[2][3] = { { "1,000", "5,000", "5,000" }, { "1,000", "5,000", "4,000" } };
  for (int step = 0; step < 3; step++)
    for (int rank = 0; rank < 2; rank++)
      {
        g_autofree char *l = tline (rank, 10 * (step + 1), tps[rank][step], "300.0", "30.0");
        g_string_append_printf (s, "%s\n", l);
      }
  g_autoptr (GError) error = NULL;
  g_autoptr (TrainingLog) log = parse (s->str, -1, &error);
  g_string_free (s, TRUE);
  g_assert_no_error (error);
  g_assert_cmpuint (log->entries->len, ==, 3);
  g_assert_cmpuint (log->duplicates, ==, 2);
  g_assert_cmpuint (log->merged, ==, 1);
  /* step 30: the slower rank's 4,000 tokens/s, at the first line's number (5) */
  g_assert_cmpfloat (entry (log, 2)->tps, ==, 4000);
  g_assert_cmpint (entry (log, 2)->line, ==, 5);
  /* --skip 1 leaves steps 20 and 30: 8 sequences x 1024 tokens on 2 GPUs, 8192 / (tps x 2)
   * = 8192 / 10,000 = 0.8192 s and 8192 / 8,000 = 1.024 s */
  g_autofree double *t = NULL;
  g_assert_cmpuint (training_log_step_times (log, 1, 8192, 2, &t, &error), ==, 2);
  g_assert_cmpfloat_with_epsilon (t[0], 0.8192, 1e-12);
  g_assert_cmpfloat_with_epsilon (t[1], 1.024, 1e-12);
}

/* A restarted job appending to the same file: the step numbers go back, refused naming
 * the line (they were averaged in as more steps). */
static void
test_restart (void)
{
  g_autofree char *a = mline (10, "1000.0", "400.0", 64), *b = mline (20, "1100.0", "400.0", 64);
  g_autofree char *r = mline (10, "1300.0", "400.0", 64);
  g_autofree char *text = g_strdup_printf ("%s\n%s\nusing world size: 8\n%s\n", a, b, r);
  g_autoptr (GError) error = NULL;
  g_autoptr (TrainingLog) log = parse (text, -1, &error);
  g_assert_null (log);
  g_assert_error (error, TRAINING_LOG_ERROR, TRAINING_LOG_ERROR_PARSE);
  g_assert_cmpstr (error->message, ==, "t.log:4: step 10 after step 20 (line 2): the step "
                   "numbers go back, as when a restarted job appends to the same log (hint: "
                   "import each run alone: cut the log before line 4, e.g. tail -n +4 LOG "
                   "for the run after the restart)");
}

/* Two jobs of other sizes in one file (a second "using world size" header with other
 * sizes): refused naming both headers; their steps were merged and the median taken
 * over both, then checked against the first header. The same job's header again (a
 * restart with the same sizes) goes on. */
static void
test_second_job (void)
{
  const char *h1 = "using world size: 8, data-parallel size: 8, context-parallel size: 1, "
                   "tensor-model-parallel size: 1, pipeline-model-parallel size: 1";
  const char *h2 = "using world size: 16, data-parallel size: 8, context-parallel size: 1, "
                   "tensor-model-parallel size: 2, pipeline-model-parallel size: 1";
  g_autofree char *a = mline (10, "1000.0", "400.0", 64), *b = mline (60, "1100.0", "400.0", 64);
  g_autofree char *text = g_strdup_printf ("%s\n%s\n%s\n%s\n", h1, a, h2, b);
  g_autoptr (GError) error = NULL;
  g_autoptr (TrainingLog) log = parse (text, -1, &error);
  g_assert_null (log);
  g_assert_error (error, TRAINING_LOG_ERROR, TRAINING_LOG_ERROR_PARSE);
  g_assert_cmpstr (error->message, ==, "t.log:3: a second job's header (world size 16, tp 2, "
                   "pp 1, cp 1) after line 1's (world size 8, tp 1, pp 1, cp 1): one job's "
                   "log at a time (hint: split the file at line 3)");
  g_autofree char *same = g_strdup_printf ("%s\n%s\n%s\n%s\n", h1, a, h1, b);
  g_clear_error (&error);
  g_autoptr (TrainingLog) ok = parse (same, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ok->entries->len, ==, 2);
}

/* A time of 0 is refused as not positive (the message said "non-negative", which 0 is). */
static void
test_zero_not_positive (void)
{
  g_autofree char *m = mline (10, "0.0", "400.0", 64);
  g_autofree char *t = tline (0, 10, "0", "300.0", "30.0");
  const char *lines[] = { m, t };
  const char *want[] = { "t.log:1: 'elapsed time per iteration (ms):' is not followed by a "
                         "finite, positive number",
                         "t.log:1: 'tps:' is not followed by a finite, positive number" };
  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *text = g_strconcat (lines[i], "\n", NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (TrainingLog) log = parse (text, -1, &error);
      g_assert_null (log);
      g_assert_nonnull (strstr (error->message, want[i]));
    }
}

/* Step numbers a log cannot hold: a Megatron iteration past 2^63 (strtoll saturated it and
 * the next line's "step numbers go back" blamed a restart), a TorchTitan step past 2^53 or
 * below 0 (left out without a word): each refused naming its line. */
static void
test_step_out_of_range (void)
{
  g_autofree char *a = mline (10, "1000.0", "400.0", 64), *c = mline (30, "1000.0", "400.0", 64);
  g_autofree char *big = g_strdup (a);
  char *at = strstr (big, "      10/");
  g_assert_nonnull (at);
  g_autofree char *huge = g_strdup_printf ("%.*s 99999999999999999999999/%s",
                                           (int) (at - big), big, at + strlen ("      10/"));
  g_autofree char *t1 = tline (0, 10, "6,543", "300.0", "30.0");
  g_autofree char *t2 = tline (0, 20, "6,543", "300.0", "30.0");
  g_autofree char *t3 = tline (0, 20, "5.121", "300.0", "30.0");
  g_autofree char *neg = g_strdup (t2);
  memcpy (strstr (neg, "step: 20"), "step:-20", 8);
  const struct { const char *text; const char *want; } cases[] = {
    { g_strdup_printf ("%s\n%s\n", huge, c), "t.log:1: the iteration number is out of range" },
    { g_strdup_printf ("%s\n%s\n", t1, neg), "t.log:2: 'step:' is not followed by a step "
      "number from 0 to 2^53" },
    /* tps grouped with '.' as another locale would: 5.121, a fraction TorchTitan never
     * prints (it read as 5 tokens a second) */
    { g_strdup_printf ("%s\n%s\n", t1, t3), "t.log:2: 'tps:' is followed by 5.121, a "
      "fraction" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (TrainingLog) log = parse (cases[i].text, -1, &error);
      g_assert_null (log);
      if (strstr (error->message, cases[i].want) == NULL)
        g_error ("case %u: '%s' lacks '%s'", i, error->message, cases[i].want);
      g_free ((char *) cases[i].text);
    }
}

/* A TorchTitan metrics line without its tps (cut or edited) is left out and counted, with
 * its line, for import-log's note; the steps around it read. */
static void
test_titan_no_tps (void)
{
  g_autofree char *t1 = tline (0, 10, "6,543", "300.0", "30.0");
  g_autofree char *t2 = tline (0, 20, "6,543", "300.0", "30.0");
  g_autofree char *t3 = tline (0, 30, "6,543", "300.0", "30.0");
  char *tps = strstr (t2, "tps:");
  memcpy (tps, "tpz:", 4);
  g_autofree char *text = g_strdup_printf ("%s\n%s\n%s\n", t1, t2, t3);
  g_autoptr (GError) error = NULL;
  g_autoptr (TrainingLog) log = parse (text, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (log->entries->len, ==, 2);
  g_assert_cmpuint (log->no_tps, ==, 1);
  g_assert_cmpint (log->no_tps_line, ==, 2);
  g_assert_cmpint (entry (log, 1)->step, ==, 30);
}

/* CR-only line ends (old Mac, some terminals' captures) are lines: the whole file was one
 * line, and only its first step read. */
static void
test_cr_only (void)
{
  g_autofree char *a = mline (10, "1000.0", "400.0", 64), *b = mline (20, "1100.0", "400.0", 64);
  g_autofree char *c = mline (30, "1200.0", "400.0", 64);
  g_autofree char *text = g_strdup_printf ("%s\r%s\r%s\r", a, b, c);
  g_autoptr (GError) error = NULL;
  g_autoptr (TrainingLog) log = parse (text, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (log->entries->len, ==, 3);
  g_assert_cmpint (entry (log, 2)->line, ==, 3);
  g_assert_cmpfloat (entry (log, 2)->elapsed_s, ==, 1.2);
  /* CR LF is one line break, not two */
  g_free (text);
  text = g_strdup_printf ("%s\r\n%s\r\n%s\r\n", a, b, c);
  training_log_free (g_steal_pointer (&log));
  log = parse (text, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (entry (log, 2)->line, ==, 3);
}

/* Megatron's header, as arguments.py prints it (encoder sizes after the decoder's). */
static void
test_megatron_header (void)
{
  g_autofree char *a = mline (10, "1000.0", "400.0", 64);
  g_autofree char *text = g_strdup_printf (
    "> initializing\nusing world size: 16, data-parallel size: 1, context-parallel size: 2, "
    "hierarchical context-parallel sizes: None, tensor-model-parallel size: 4, "
    "encoder-tensor-model-parallel size: 0, pipeline-model-parallel size: 2, "
    "encoder-pipeline-model-parallel size: 0\n%s\n", a);
  g_autoptr (GError) error = NULL;
  g_autoptr (TrainingLog) log = parse (text, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (log->header_line, ==, 2);
  g_assert_cmpint (log->header_world, ==, 16);
  g_assert_cmpint (log->header_tp, ==, 4);
  g_assert_cmpint (log->header_pp, ==, 2);
  g_assert_cmpint (log->header_cp, ==, 2);
}

/* A log saved as UTF-16 (PowerShell's `>`): "it" as 69 00 74 00 after the FF FE mark, or
 * without the mark; the error names the encoding, not "no step line". A UTF-8 log whose
 * first bytes are fine and that has no step line keeps the step-line error. */
static void
test_utf16_log (void)
{
  const char le[] = "\xff\xfei\0t\0e\0r\0\n\0";
  g_autoptr (GError) error = NULL;
  g_autoptr (TrainingLog) log = parse (le, sizeof le - 1, &error);
  g_assert_null (log);
  g_assert_nonnull (strstr (error->message, "UTF-16 byte-order mark (FF FE, little-endian)"));
  g_clear_error (&error);
  const char bare[] = "i\0t\0e\0r\0\n\0";
  log = parse (bare, sizeof bare - 1, &error);
  g_assert_null (log);
  g_assert_nonnull (strstr (error->message, "not UTF-8 text: it holds NUL bytes (the first at "
                                            "byte 1)"));
  g_clear_error (&error);
  log = parse ("hello\n", -1, &error);
  g_assert_null (log);
  g_assert_nonnull (strstr (error->message, "no Megatron-LM or TorchTitan step line"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/results/training-log/truncated-last-line", test_truncated_last_line);
  g_test_add_func ("/results/training-log/utf16", test_utf16_log);
  g_test_add_func ("/results/training-log/megatron-cut-before-elapsed",
                   test_megatron_cut_before_elapsed);
  g_test_add_func ("/results/training-log/impossible-numbers", test_impossible_numbers);
  g_test_add_func ("/results/training-log/thousands-grouping", test_thousands_grouping);
  g_test_add_func ("/results/training-log/negative-iteration", test_negative_iteration);
  g_test_add_func ("/results/training-log/titan-last-line-not-metrics",
                   test_titan_last_line_not_metrics);
  g_test_add_func ("/results/training-log/nul-runs", test_nul_runs);
  g_test_add_func ("/results/training-log/ranks", test_ranks);
  g_test_add_func ("/results/training-log/restart", test_restart);
  g_test_add_func ("/results/training-log/second-job", test_second_job);
  g_test_add_func ("/results/training-log/zero-not-positive", test_zero_not_positive);
  g_test_add_func ("/results/training-log/cr-only", test_cr_only);
  g_test_add_func ("/results/training-log/step-out-of-range", test_step_out_of_range);
  g_test_add_func ("/results/training-log/titan-no-tps", test_titan_no_tps);
  g_test_add_func ("/results/training-log/megatron-header", test_megatron_header);
  return g_test_run ();
}
