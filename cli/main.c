/* cli/main.c - the `tandem` program: thin subcommands over the modules. */
#include "config.h"
#include "cli/cli.h"
#include "util/output.h"

#include <errno.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  const char *name;
  int (*run) (int argc, char **argv);
  const char *about;
} CliCommand;

static const CliCommand commands[] = {
  { "show",   cli_cmd_show,   "show model|cluster|framework NAME|FILE, show models|clusters|frameworks, show conventions|glossary: parameters, FLOPs; levels; stack; the presets; MFU's FLOP counts; terms" },
  { "plan",   cli_cmd_plan,   "plan show [plan flags]: degrees, pipeline stages, rank layout" },
  { "memory", cli_cmd_memory, "memory [plan flags]: peak memory per GPU by category and stage" },
  { "predict", cli_cmd_predict, "predict [plan flags] [--trace F] [--db F]: simulate one step" },
  { "search", cli_cmd_search, "search --gbs B [--gpus N,..] [--tp 2,4,8 ...] [--top K]: the best plans, exhaustively" },
  { "runs",   cli_cmd_runs,   "runs [show N] [--db F] [--csv|--json]: list stored runs, or show one" },
  { "validate", cli_cmd_validate, "validate FILE.csv [--json] [--db F]: predict published runs, report errors" },
  { "calibrate", cli_cmd_calibrate, "calibrate [--quick] [--out F] [--import-nccl-tests F]: measure this machine (mpirun for collectives)" },
  { "report", cli_cmd_report, "report scaling|validation|run ...: HTML/Markdown/CSV reports with plots" },
  { "run",    cli_cmd_run,    "run [plan flags] [--verify] [--steps K] [--db F]: execute under mpirun, measured vs predicted" },
  { "import-log", cli_cmd_import_log, "import-log LOG [plan flags] [--skip N]: a Megatron-LM or TorchTitan log as a measured run" },
};

static void
usage (FILE *out)
{
  fprintf (out, "tandem %s - predict and measure distributed LLM training\n\n"
           "usage: tandem COMMAND [options]    (tandem COMMAND --help for its options)\n\n",
           TANDEM_VERSION);
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-10s %s\n", commands[i].name, commands[i].about);
  fprintf (out, "\nPresets: tandem show model|cluster|framework NAME accepts (as do --model, "
           "--cluster and --framework):\n  models:");
  g_auto (GStrv) models = model_preset_names ();
  for (guint i = 0; models && models[i]; i++)
    fprintf (out, " %s", models[i]);
  fprintf (out, "\n  clusters:");
  g_auto (GStrv) clusters = topo_preset_names ();
  for (guint i = 0; clusters && clusters[i]; i++)
    fprintf (out, " %s", clusters[i]);
  fprintf (out, "\n  frameworks:");
  g_auto (GStrv) stacks = fw_stack_preset_names ();
  for (guint i = 0; stacks && stacks[i]; i++)
    fprintf (out, " %s", stacks[i]);
  fprintf (out, "\n\nExit status (every command):\n"
           "  0  done\n"
           "  1  failure at run time: I/O, the store, MPI, a rank that died\n"
           "  2  bad input: a flag, a file, an impossible plan, contradictory constraints\n"
           "  3  does not fit: an out-of-memory prediction, memory check or search (printed "
           "first; a prediction or run is stored too)\n"
           "\nTerms and units of the outputs (MFU, HFU, bubble, exposed, in-flight, reserve, "
           "busbw, ...):\n  tandem show glossary\n");
}

/* The output reached its reader, or the reader left on purpose: `tandem search | head -1`
 * closes the pipe after one line, which is no failure (the result was computed and is
 * stored, SIGPIPE being ignored); a full disk (> /dev/full) or an I/O error lost it, which
 * is (status 1, one line; before, exit 0 with nothing written). */
static gboolean stdout_finished;

static int
finish_stdout (int status)
{
  stdout_finished = TRUE;
  errno = 0;
  gboolean failed = fflush (stdout) != 0;
  int err = errno;
  failed = failed || ferror (stdout);
  if (!failed)
    return status;
  if (err == 0)
    {
      /* the failed write emptied the buffer and errno is long gone: one more byte on an
       * output already cut short says why (ENOSPC, EIO, EPIPE) */
      clearerr (stdout);
      errno = 0;
      if (fputc ('\n', stdout) == EOF || fflush (stdout) != 0)
        err = errno;
    }
  struct pollfd p = { .fd = STDOUT_FILENO, .events = 0 };
  if (err == EPIPE || (poll (&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP))))
    return status;
  fprintf (stderr, "tandem: error: cannot write the output to standard output: %s "
           "(hint: free space where it goes, or redirect it elsewhere)\n",
           err != 0 ? g_strerror (err) : "a write failed");
  return status == CLI_EXIT_OK ? CLI_EXIT_FAILURE : status;
}

/* GOption prints a command's built-in help (--help, -h, --help-all, --help-GROUP) and
 * calls exit (0) itself, past main's finish_stdout: `tandem predict --help > /dev/full`
 * lost the help with status 0 and no word. The only exit () that skips main's return is
 * that one, so an unchecked stdout here is help output, and its failure is status 1 with
 * the same line as any other output's. */
static void
finish_stdout_at_exit (void)
{
  if (stdout_finished)
    return;
  int status = finish_stdout (CLI_EXIT_OK);
  if (status != CLI_EXIT_OK)
    _exit (status);
}

static int run_command (int argc, char **argv);

int
main (int argc, char **argv)
{
  setlocale (LC_ALL, "C");
  /* Text is UTF-8 whatever the user's locale: GOption converts each string option from
   * the locale's charset to UTF-8, which in the C locale is ASCII, so --model ./josé.json
   * or --note café failed with GLib's "Invalid byte sequence in conversion input". Only
   * the character type moves (numbers stay C's); where C.UTF-8 is missing, C stays. */
  setlocale (LC_CTYPE, "C.UTF-8");
  /* a reader that goes away makes writes fail with EPIPE instead of killing the process
   * half-way: what was computed is still stored (finish_stdout) */
  signal (SIGPIPE, SIG_IGN);
  atexit (finish_stdout_at_exit);
  /* test hook: TANDEM_TEST_WRITE_FAIL_AFTER=N makes the output files (report, traces,
   * --out) fill the disk after N bytes in all (ENOSPC), as tests cannot fill a real one */
  const char *fail_after = g_getenv ("TANDEM_TEST_WRITE_FAIL_AFTER");
  if (fail_after != NULL)
    util_output_test_fail_after (g_ascii_strtoll (fail_after, NULL, 10));
  return finish_stdout (run_command (argc, argv));
}

/* The numeric options GLib reads (G_OPTION_ARG_INT, INT64, DOUBLE), each command's: GLib
 * takes integers with base 0, so "010" was 8 and "0x10" 16, and doubles hexadecimal too,
 * and " 16" passed, where the plan flags take decimal only (show model --seq-length 010
 * counted FLOPs at 8 tokens, predict at 10; validate --explain 010 explained row 8). A
 * leading zero is read as decimal, as the plan flags read it (the zeros are dropped
 * before GLib sees the value); anything else but decimal digits is refused. */
static gboolean
numeric_options_decimal (const char *command, int argc, char **argv)
{
  static const struct { const char *command, *flag; gboolean real; } opts[] = {
    { NULL, "--db-timeout", FALSE }, { "show", "--seq-length", FALSE },
    { "show", "--seq", FALSE }, { "run", "--steps", FALSE }, { "run", "--warmup", FALSE },
    { "run", "--seed", FALSE }, { "run", "--timeout", TRUE }, { "runs", "--limit", FALSE },
    { "calibrate", "--blas-threads", FALSE }, { "import-log", "--skip", FALSE },
    { "validate", "--explain", FALSE },
  };
  for (int i = 1; i < argc; i++)
    for (guint k = 0; k < G_N_ELEMENTS (opts); k++)
      {
        if (opts[k].command != NULL && !g_str_equal (opts[k].command, command))
          continue;
        const gsize n = strlen (opts[k].flag);
        char *v = NULL;
        if (g_str_equal (argv[i], opts[k].flag) && i + 1 < argc)
          v = argv[i + 1];
        else if (strncmp (argv[i], opts[k].flag, n) == 0 && argv[i][n] == '=')
          v = argv[i] + n + 1;
        /* the next flag taken for the value (--steps --db x): the command's own check
         * names the missing value (cli_options_check_values) */
        if (v == NULL || (g_str_has_prefix (v, "--") && g_ascii_isalpha (v[2])))
          continue;
        char *d = v + (*v == '+' || *v == '-');
        gboolean ok;
        if (opts[k].real)
          {
            /* no hexadecimal, no leading blank (inf and nan are the option's own
             * range check's, which says more) */
            ok = !g_ascii_isspace (*v) && strpbrk (v, "xX") == NULL;
          }
        else
          {
            ok = *d != '\0' && strspn (d, "0123456789") == strlen (d);
            /* 010 is ten, as --seq-length 010 is to predict: the zeros dropped */
            if (ok)
              {
                gsize z = strspn (d, "0");
                if (z > 0 && d[z] != '\0')
                  memmove (d, d + z, strlen (d + z) + 1);
              }
          }
        if (ok)
          continue;
        /* under mpirun every rank reads the same line: rank 0 says it */
        const char *rank = g_getenv ("OMPI_COMM_WORLD_RANK");
        if (rank == NULL)
          rank = g_getenv ("PMIX_RANK");
        if (rank == NULL || g_str_equal (rank, "0"))
          cli_fail (CLI_EXIT_USAGE, "%s expects a decimal %s, got '%s' (hint: digits only, "
                    "e.g. %s %s)", opts[k].flag, opts[k].real ? "number" : "integer", v,
                    opts[k].flag, opts[k].real ? "30" : "16");
        return FALSE;
      }
  return TRUE;
}

static int
run_command (int argc, char **argv)
{
  if (argc < 2)
    {
      usage (stderr);
      return CLI_EXIT_USAGE;
    }
  if (g_str_equal (argv[1], "--help") || g_str_equal (argv[1], "-h")
      || g_str_equal (argv[1], "help"))
    {
      usage (stdout);
      return CLI_EXIT_OK;
    }
  if (g_str_equal (argv[1], "--version"))
    {
      printf ("tandem %s\n", TANDEM_VERSION);
      return CLI_EXIT_OK;
    }
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (g_str_equal (argv[1], commands[i].name))
      {
        /* The subcommand sees argv[0] = "tandem COMMAND" for its --help. */
        if (!numeric_options_decimal (commands[i].name, argc - 1, argv + 1))
          return CLI_EXIT_USAGE;
        g_autofree char *prog = g_strdup_printf ("tandem %s", commands[i].name);
        g_set_prgname (prog);
        argv[1] = prog;
        return commands[i].run (argc - 1, argv + 1);
      }
  const char *names[G_N_ELEMENTS (commands)];
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    names[i] = commands[i].name;
  const char *near = cli_closest (argv[1], names, G_N_ELEMENTS (names));
  if (near != NULL)
    return cli_fail (CLI_EXIT_USAGE, "unknown command '%s' (did you mean '%s'?)", argv[1], near);
  return cli_fail (CLI_EXIT_USAGE, "unknown command '%s' (hint: tandem --help)", argv[1]);
}
