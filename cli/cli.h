/* cli/cli.h - what the `tandem` subcommands share: the plan context (model, cluster,
 * resolved plan, layout), JSON output and number formatting.
 *
 * Only cli/ prints and exits. Exit status (docs/contracts.md): 0 ok, 1 runtime failure
 * (I/O, store, MPI), 2 usage error (bad flag, impossible plan, unknown preset): one line
 * "tandem: error: ..." with a hint, 3 does not fit (an out-of-memory prediction or memory
 * check, printed and stored first). */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "models/model.h"
#include "topology/cluster.h"
#include "plan/plan.h"
#include "plan/layout.h"
#include "util/input.h"
#include "frameworks/stack.h"
#include "cli/cli-model-flags.h"

G_BEGIN_DECLS

enum { CLI_EXIT_OK = 0, CLI_EXIT_FAILURE = 1, CLI_EXIT_USAGE = 2, CLI_EXIT_NOFIT = 3 };

typedef struct {
  ModelSpec   *model;
  TopoCluster *cluster;
  Plan         plan;
  PlanArgs     args;
  PlanLayout  *layout;
  CliModelFlags model_flags;   /* Megatron's model flags, the alternative to --model */
} CliPlanContext;

/* Defaults when --model / --cluster are absent: the Llama 3 405B run on h100-24k. */
/* Layer passes (micro-batches x layers) a --trace may hold: ~5 KB of JSON each, so ~5 GB
 * at the cap (cli/cmd-predict.c) */
#define CLI_MAX_TRACE_LAYER_PASSES (1 << 20)
#define CLI_DEFAULT_MODEL   "llama3-405b"
#define CLI_DEFAULT_CLUSTER "h100-24k"

/* The largest --timeout (seconds a peer may be silent) run, calibrate and search take:
 * 1e6 s, 11.6 days. 1e308 was cast to microseconds past 2^63 in the deadlines (undefined
 * behaviour). */
#define CLI_MAX_TIMEOUT_S 1e6

/* Parses argv with the plan option group plus `extra` entries (may be NULL) into a
 * context; on failure prints the error and returns the exit status to use (>0), else 0.
 * `what` is the command name for --help. Leftover positional arguments stay in argv. */
int  cli_plan_context_init (CliPlanContext *ctx, const char *what, const char *summary,
                            const GOptionEntry *extra, int *argc, char ***argv);
void cli_plan_context_clear (CliPlanContext *ctx);

/* A value-taking option whose value is a separate argument that is itself one of the
 * command's options (`--db --no-db`): FALSE with a G_OPTION_ERROR_BAD_VALUE naming the
 * missing value (cli-options.c). `tables` is every entry table the command parses with,
 * NULL-terminated; "--db=--no-db" stays a value. */
gboolean cli_options_check_values (const GOptionEntry *const *tables, int argc, char **argv,
                                   GError **error);
/* That check, then g_option_context_parse. */
gboolean cli_option_context_parse (GOptionContext *octx, const GOptionEntry *const *tables,
                                   int *argc, char ***argv, GError **error);

/* Prints "tandem: error: MESSAGE" to stderr and returns `status`. */
/* A word (no blank) longer than this is printed as its start and its length */
#define CLI_FAIL_MAX_WORD 512
int  cli_fail (int status, const char *format, ...) G_GNUC_PRINTF (2, 3);
/* Exit status for an error: usage errors (PLAN_ERROR_*, *_NOT_FOUND, parse errors of
 * user files) are 2, the rest 1. */
int  cli_status_for_error (const GError *error);

/* Edit distance (optimal string alignment: a swap of neighbours costs 1), and the
 * candidate close enough to `word` to be a slip of it, or NULL. */
guint       cli_edit_distance (const char *a, const char *b);
const char *cli_closest (const char *word, const char *const *candidates, guint n);
/* Prints a failed option parse as one line and returns 2: an unknown option names the
 * nearest known one ("did you mean '--tp'?"), else the hint `COMMAND --help`. */
int  cli_fail_options (GOptionContext *octx, const GError *error, const char *command);
/* The same line as text (g_free), the context's options and `more` ("--top", ...;
 * NULL-terminated, may be NULL) being the known ones. */
char *cli_options_error_text (GOptionContext *octx, const GError *error, const char *command,
                              const char *const *more);
/* " (did you mean 'X'?)" when `word` is a slip of one of `names` (NULL-terminated), else
 * "" (g_free). */
char *cli_did_you_mean (const char *word, const char *const *names);
/* The message of a failed model, cluster or framework lookup of `name` (g_free): where
 * `name` is no file and a slip of a preset's name, "unknown model 'llama3-450b' (did you
 * mean 'llama3-405b'?)" instead of the list of presets; else the error's message. */
char *cli_lookup_error_text (const GError *error, const char *name);
/* A refused plan's message where --plan FILE set it (`plan_file` NULL: the message as it
 * is), g_free: the message, then for each flag its hint names that a plan file key sets,
 * the key ("--tp after --plan replaces its parallelism.tensor_parallel_degree"), so a
 * user of a TorchTitan file knows which key to edit or which flag overrides it. */
char *cli_plan_file_message (const char *message, const char *plan_file);
/* model_spec_lookup, and on stderr "tandem: warning: ..." when the config has a field
 * that is a slip of one its family reads (ModelSpec.config_warning). */
ModelSpec *cli_model_lookup (const char *name, GError **error);
/* fw_stack_lookup for a --framework value: NULL (flag absent) is the default stack, a
 * blank value is refused (G_OPTION_ERROR) instead of standing for the default. */
FwStack *cli_stack_lookup (const char *name, GError **error);

/* On stderr, when micro-batches per step < pp: the bubble it implies and the global
 * batch that gives 4 x pp micro-batches. */
void cli_warn_pipeline_bubble (const Plan *plan);
/* On stderr, when the plan asks for what the step program does not simulate (optimizer
 * offload: its memory is modelled, its time is not), that the step time leaves it out. */
void cli_warn_untimed (const Plan *plan);
/* On stderr, for a cluster file (not a preset) whose device the cost model knows by no
 * part (sim_cost_device_known): that its figures are extrapolated and how to name the
 * part ("part" in the device). */
void cli_warn_unknown_part (const TopoCluster *cluster);

/* A run id as the commands read one: digits only, 1 to 2^63 - 1 (no sign, no spaces). */
gboolean cli_run_id (const char *text, gint64 *id);

/* Prints the builder's root as pretty JSON on stdout, with a newline. */
void cli_print_json (JsonBuilder *builder);

/* Formatting: "405,853,388,800"; "75.3 GiB"; "24.3 EFLOP/s"; returned strings are
 * static ring buffers valid for a few calls. */
const char *cli_fmt_count (guint64 v);
/* predict's and memory's note on a model that declares multi-token-prediction modules
 * (DeepSeek-V3, GLM-4.5: num_nextn_predict_layers): they are in neither figure. Nothing
 * for a model without them. */
void cli_print_mtp_note (const ModelSpec *m, int trained, const char *indent);
const char *cli_fmt_bytes (double bytes);
const char *cli_fmt_si (double v, const char *unit);
/* Decimals for seconds in a table: 3 for a second or more, and enough for four significant
 * digits below (0.5123 -> 4, 0.002345 -> 6), at most 9. */
int cli_seconds_decimals (double s);

/* `tandem show glossary [TERM]` (cmd-glossary.c). */
int cli_show_glossary (const char *term, gboolean json);

/* Subcommands. */
int cli_cmd_show   (int argc, char **argv);
int cli_cmd_plan   (int argc, char **argv);
int cli_cmd_memory (int argc, char **argv);
int cli_cmd_predict (int argc, char **argv);
int cli_cmd_runs   (int argc, char **argv);
int cli_cmd_validate (int argc, char **argv);
int cli_cmd_calibrate (int argc, char **argv);
int cli_cmd_run (int argc, char **argv);
int cli_cmd_report (int argc, char **argv);
int cli_cmd_search (int argc, char **argv);
int cli_cmd_import_log (int argc, char **argv);

/* Text from users' flags and files as a terminal may print it: invalid UTF-8 as U+FFFD,
 * C0, DEL and C1 controls as \xNN, a newline as `newline` (NULL: \x0a). */
char *cli_printable (const char *s, const char *newline);

/* predict --json's "stragglers" object (sim/cost.c): the part-to-part spread sigma, the
 * plan's GPUs, E[max of n normals] and the compute factor 1 + sigma E[max]; search's
 * plans carry the same keys. */
JsonObject *cli_stragglers_json (double perf_sigma, guint64 gpus);

G_END_DECLS
