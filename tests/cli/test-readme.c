/* tests/cli/test-readme.c - README.md's deterministic transcripts, run as written.
 *
 * The README shows commands as `$ tandem ...` followed by their output, and a newcomer who
 * runs one on a fresh checkout must see what it shows. Most of the transcripts that carry
 * no timing, no store row and no published-runs accuracy figure are listed here; each is
 * looked up in README.md itself (the README is the golden output, so there is no second
 * copy to keep in step), run from the source root with the same words, and its stdout
 * followed by its stderr must equal the lines under the command, byte for byte, with the
 * exit status README "Exit status" gives. A change that moves one of these figures fails
 * here until the README shows the new output. */
#include "cli-run.h"

#include <glib.h>
#include <string.h>

typedef struct {
  const char *path;      /* GTest path under /cli/readme/ */
  const char *command;   /* as after "$ tandem " in README.md, words separated by one space */
  int         status;    /* the exit status the README states for it */
} Transcript;

static const Transcript transcripts[] = {
  { "show-model-llama3-8b", "show model llama3-8b", 0 },
  { "show-conventions", "show conventions", 0 },
  { "show-glossary-in-flight", "show glossary in-flight", 0 },
  { "plan-show-llama3-405b",
    "plan show --model llama3-405b --gpus 16384 --tp 8 --pp 16 --sp --gbs 2048 "
    "--decoder-first-pipeline-num-layers 7 --decoder-last-pipeline-num-layers 7 "
    "--rank-order tp-cp-ep-pp-dp", 0 },
  { "memory-llama3-405b-zero2",
    "memory --model llama3-405b --gpus 16384 --tp 8 --pp 16 --sp --gbs 2048 "
    "--decoder-first-pipeline-num-layers 7 --decoder-last-pipeline-num-layers 7 "
    "--sharding zero2", 0 },
  /* does not fit: the table on stdout, then the error line on stderr, status 3 */
  { "memory-mixtral-8x7b-oom",
    "memory --model mixtral-8x7b --gpus 16 --tp 2 --sequence-parallel "
    "--use-distributed-optimizer --gbs 16 --seq-length 4096", 3 },
  { "memory-megatron-flags",
    "memory --num-layers 32 --hidden-size 4096 --num-attention-heads 32 --num-query-groups 8 "
    "--ffn-hidden-size 14336 --swiglu --untie-embeddings-and-output-weights --vocab-size 128256 "
    "--gpus 8 --tp 8 --gbs 8 --seq-length 8192", 0 },
  /* bad input: one line on stderr, status 2 */
  { "predict-needs-plan", "predict --model llama3-405b", 2 },
  { "bad-world-size", "memory --tp 8 --pp 16 --gpus 100", 2 },
  { "bad-layer-split", "memory --tp 8 --pp 4 --gpus 32", 2 },
  { "bad-model-file", "show model tests/data/models/llama3-bad.json", 2 },
  { "unknown-command", "predcit", 2 },
  { "unknown-option", "predict --tensor-model-paralel-size 8", 2 },
  { "bad-toml", "predict --model llama3-8b --gpus 64 --plan "
    "fuzz/corpus/plan-toml/bad-array-of-tables.toml", 2 },
};

/* The output README.md shows under `$ tandem COMMAND` inside a ``` block: the lines up to
 * the next `$ ` line or the closing fence, each ended by a newline. NULL when the README
 * no longer shows that command; *line_out is the README line of the command (1-based). */
static char *
readme_transcript (const char *readme, const char *command, guint *line_out)
{
  g_auto (GStrv) lines = g_strsplit (readme, "\n", -1);
  g_autofree char *want = g_strconcat ("$ tandem ", command, NULL);
  gboolean in_fence = FALSE;
  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (g_str_has_prefix (lines[i], "```"))
        {
          in_fence = !in_fence;
          continue;
        }
      if (!in_fence || strcmp (lines[i], want) != 0)
        continue;
      *line_out = i + 1;
      GString *out = g_string_new (NULL);
      for (guint k = i + 1; lines[k] != NULL && !g_str_has_prefix (lines[k], "```")
                            && !g_str_has_prefix (lines[k], "$ "); k++)
        g_string_append_printf (out, "%s\n", lines[k]);
      return g_string_free (out, FALSE);
    }
  return NULL;
}

static void
test_transcript (gconstpointer data)
{
  const Transcript *t = data;
  const char *root = g_getenv ("TANDEM_SOURCE_ROOT");
  g_assert_nonnull (root);
  g_autofree char *path = g_build_filename (root, "README.md", NULL);
  g_autofree char *readme = NULL;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_file_get_contents (path, &readme, NULL, &error));
  g_assert_no_error (error);

  guint line = 0;
  g_autofree char *want = readme_transcript (readme, t->command, &line);
  if (want == NULL)
    g_error ("README.md no longer shows `$ tandem %s` in a ``` block: update the list in "
             "tests/cli/test-readme.c", t->command);

  /* from the source root, as a newcomer runs it (the relative paths are the checkout's) */
  RunResult r = { 0 };
  run_tandem_words (t->command, NULL, root, &r);
  g_autofree char *got = g_strconcat (r.out, r.err, NULL);
  if (strcmp (got, want) != 0)
    {
      g_auto (GStrv) g = g_strsplit (got, "\n", -1);
      g_auto (GStrv) w = g_strsplit (want, "\n", -1);
      guint k = 0;
      while (g[k] != NULL && w[k] != NULL && strcmp (g[k], w[k]) == 0)
        k++;
      g_test_fail_printf ("README.md line %u, `tandem %s`: output line %u is \"%s\" where "
                          "the README shows \"%s\"; if the new output is right, put it in "
                          "the README (and the prose that quotes it)",
                          line, t->command, k + 1, g[k] != NULL ? g[k] : "(end)",
                          w[k] != NULL ? w[k] : "(end)");
    }
  g_assert_cmpint (r.status, ==, t->status);
  run_result_clear (&r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (transcripts); i++)
    {
      g_autofree char *p = g_strconcat ("/cli/readme/", transcripts[i].path, NULL);
      g_test_add_data_func (p, &transcripts[i], test_transcript);
    }
  return g_test_run ();
}
