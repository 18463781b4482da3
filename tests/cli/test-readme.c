/* tests/cli/test-readme.c - README.md's deterministic transcripts, run as written.
 *
 * The README shows commands as `$ tandem ...` followed by their output, and a newcomer who
 * runs one on a fresh checkout must see what it shows. The transcripts that carry no
 * timing, no store row and no published-runs accuracy figure (and no pipe or redirection)
 * are listed here; each is looked up in README.md itself (the README is the golden output,
 * so there is no second copy to keep in step), run from the source root with the same
 * words, and its stdout followed by its stderr must equal the lines under the command,
 * byte for byte, where a "..." line stands for lines the README leaves out, with the exit
 * status README "Exit status" gives. A change that moves one of these figures fails here
 * until the README shows the new output. */
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
  /* "..." lines in a transcript stand for the lines the README leaves out */
  { "show-model-deepseek-v3", "show model deepseek-v3 --seq-length 4096", 0 },
  { "show-conventions", "show conventions", 0 },
  { "show-cluster-h100-24k", "show cluster h100-24k", 0 },
  { "show-glossary-in-flight", "show glossary in-flight", 0 },
  { "plan-show-llama3-405b",
    "plan show --model llama3-405b --gpus 16384 --tp 8 --pp 16 --sp --gbs 2048 "
    "--decoder-first-pipeline-num-layers 7 --decoder-last-pipeline-num-layers 7 "
    "--rank-order tp-cp-ep-pp-dp", 0 },
  { "memory-llama3-405b-zero2",
    "memory --model llama3-405b --gpus 16384 --tp 8 --pp 16 --sp --gbs 2048 "
    "--decoder-first-pipeline-num-layers 7 --decoder-last-pipeline-num-layers 7 "
    "--sharding zero2", 0 },
  { "plan-show-titan-toml",
    "plan show --model llama3-8b --gpus 64 --plan tests/data/plan/llama3-8b-titan.toml", 0 },
  { "plan-show-megatron-flags-moe",
    "plan show --num-layers 32 --hidden-size 4096 --num-attention-heads 32 --group-query-attention --num-query-groups 8 "
    "--ffn-hidden-size 14336 --swiglu --untie-embeddings-and-output-weights --vocab-size 32000 "
    "--num-experts 8 --moe-router-topk 2 --gpus 16 --tp 2 --sequence-parallel "
    "--expert-model-parallel-size 8", 0 },
  { "memory-gb300-offload",
    "memory --model llama3-70b --cluster gb300-nvl72-superpod --gpus 64 --mbs 2 --gbs 256 "
    "--seq 8192 --sharding zero3 --precision fp8 --cpu-offloading-num-layers 20", 0 },
  /* does not fit: the table on stdout, then the error line on stderr, status 3 */
  { "memory-llama3-405b-no-sp-oom",
    "memory --model llama3-405b --gpus 16384 --tp 8 --pp 16 --gbs 2048 "
    "--decoder-first-pipeline-num-layers 7 --decoder-last-pipeline-num-layers 7", 3 },
  { "memory-mixtral-8x7b-oom",
    "memory --model mixtral-8x7b --gpus 16 --tp 2 --sequence-parallel "
    "--use-distributed-optimizer --gbs 16 --seq-length 4096", 3 },
  { "memory-megatron-flags",
    "memory --num-layers 32 --hidden-size 4096 --num-attention-heads 32 --group-query-attention --num-query-groups 8 "
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

/* A README line that is "..." (indented or not) stands for the lines it leaves out. */
static gboolean
is_elision (const char *line)
{
  while (*line == ' ')
    line++;
  return strcmp (line, "...") == 0;
}

/* NULL when the output `got` reads as the README's lines `want`: line for line, an elision
 * standing for any number of lines up to the first one equal to the README's next line
 * (the first match is enough for the README's blocks, whose lines after an elision are
 * distinct); otherwise which line differs. */
static char *
transcript_mismatch (const char *got, const char *want)
{
  g_auto (GStrv) g = g_strsplit (got, "\n", -1);
  g_auto (GStrv) w = g_strsplit (want, "\n", -1);
  guint j = 0;
  for (guint i = 0; w[i] != NULL; i++)
    {
      if (is_elision (w[i]))
        {
          /* trailing elision: the rest of the output, whatever it is */
          if (w[i + 1] == NULL || (w[i + 1][0] == '\0' && w[i + 2] == NULL))
            return NULL;
          guint k = j;
          while (g[k] != NULL && strcmp (g[k], w[i + 1]) != 0)
            k++;
          if (g[k] == NULL)
            return g_strdup_printf ("the line \"%s\" after \"...\" is not in the output "
                                    "from its line %u on", w[i + 1], j + 1);
          j = k;
          continue;
        }
      if (g[j] == NULL || strcmp (g[j], w[i]) != 0)
        return g_strdup_printf ("output line %u is \"%s\" where the README shows \"%s\"",
                                j + 1, g[j] != NULL ? g[j] : "(end)", w[i]);
      j++;
    }
  if (g[j] != NULL)
    return g_strdup_printf ("output line %u, \"%s\", is past the README's end", j + 1, g[j]);
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
  g_autofree char *why = transcript_mismatch (got, want);
  if (why != NULL)
    g_test_fail_printf ("README.md line %u, `tandem %s`: %s; if the new output is right, "
                        "put it in the README (and the prose that quotes it)",
                        line, t->command, why);
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
