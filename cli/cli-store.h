/* cli/cli-store.h - rows that `tandem predict` and `tandem run` store alike.
 *
 * Contract: strings given to cli_predicted_metrics are borrowed by the ResMetrics (keep
 * them alive until it is stored); the JSON helpers return new strings (g_free). */
#pragma once

#include <json-glib/json-glib.h>
#include "results/store.h"
#include "sim/predict.h"
#include "cli/cli.h"

G_BEGIN_DECLS

/* Compact JSON text of the builder's root. */
char *cli_json_text (JsonBuilder *builder);
/* {"megatron96": v[0] x scale, ...}: one value per FLOP convention; null for a
 * convention refused for `model` (megatron96 / megatron72 on MoE or MLA: their MFU read
 * 0.0), none refused when `model` is NULL. */
char *cli_conv_json (const ModelSpec *model, const double *values, double scale);
/* Members "mfu" (the object by convention, as cli_conv_json: values x scale, null for a
 * convention `model` refuses) and "hfu" (hfu x scale, one number) of docs/contracts.md,
 * into the object `b` is building: the same FLOPs over another time take a scale. */
void  cli_mfu_members (JsonBuilder *b, const ModelSpec *model, const double *mfu, double hfu,
                       double scale);
/* One JSON number ("null" when not finite): the hfu column, which has no convention. */
char *cli_number_json (double v);
/* The predicted metrics of `p` (memory from `mem`). */
void  cli_predicted_metrics (const SimPrediction *p, const PlanMemory *mem,
                             const char *mfu_json, const char *hfu_json,
                             const char *memory_json, ResMetrics *out);
/* One phase row per stage and kind (compute, tp, cp, pp, dp, bubble), source predicted. */
void  cli_predicted_phases (const SimResult *result, GArray *phases);

/* ---- print, then store (docs/contracts.md) ---------------------------------------- */

/* --db, --no-db and --db-timeout of a command that opens the store. */
typedef struct {
  char    *db;            /* --db FILE (NULL: tandem.db) */
  gboolean no_db;         /* --no-db */
  int      timeout_ms;    /* --db-timeout MS (busy timeout) */
} CliDbArgs;

#define CLI_DEFAULT_DB "tandem.db"

/* Option entries of a command's table: --db and --db-timeout; --no-db. */
#define CLI_DB_ENTRIES(a)                                                     \
  { "db", 0, 0, G_OPTION_ARG_FILENAME, &(a)->db,                              \
    "SQLite results store (default tandem.db)", "FILE" },                     \
  { "db-timeout", 0, 0, G_OPTION_ARG_INT, &(a)->timeout_ms,                   \
    "Wait up to MS for another process's lock on the store (default 5000)", "MS" }
#define CLI_NO_DB_ENTRY(a)                                                    \
  { "no-db", 0, 0, G_OPTION_ARG_NONE, &(a)->no_db, "Do not store the result", NULL }
void        cli_db_args_init  (CliDbArgs *a);
void        cli_db_args_clear (CliDbArgs *a);
const char *cli_db_path       (const CliDbArgs *a);
/* For a read-only command whose store is not there: "" when nothing is at `path`, else
 * why a name that is there reads as nothing: a symbolic link whose target does not exist,
 * or a loop of links (" (a symbolic link to T, which does not resolve: REASON)"); free it. */
char       *cli_db_missing_why (const char *path);
/* FALSE with a usage error when --db names no file ("" or ":memory:", where a stored row
 * would vanish at exit); NULL (no --db) passes. */
gboolean    cli_db_path_check (const char *db, GError **error);
/* FALSE with a usage error when both --db FILE and --no-db are given (the result would go
 * nowhere while --db names where it should go). */
gboolean    cli_db_choice_check (const char *db, gboolean no_db, GError **error);
/* FALSE with a usage error when --db names no file, contradicts --no-db, or --db-timeout
 * is negative. */
gboolean    cli_db_args_check (const CliDbArgs *a, GError **error);
/* FALSE with a usage error when the output `path` of `flag` (`what` it writes: "trace")
 * is the results database the command stores in (`db`, NULL for the default; none with
 * `no_db`), or any other SQLite file: the output would replace the database and every run
 * stored in it; and when it is an existing non-empty file that is not a `what` ("trace"
 * or "profile") tandem wrote. */
gboolean    cli_output_not_db (const char *flag, const char *what, const char *path,
                               const char *db, gboolean no_db, GError **error);
/* One file: the same device and inode where both exist (a link or another spelling of the
 * path), else the same absolute path. */
gboolean    cli_same_file     (const char *a, const char *b);
/* FALSE with a usage error when the output `path` of `flag` is a file the command reads:
 * `inputs` holds pairs of an input flag and its value ("--model", "config.json", ...; a
 * value may be NULL), ended by a NULL flag. A value that is no file (a preset's name) is
 * skipped; a directory stands for the config.json in it (a model). */
gboolean    cli_output_not_input (const char *flag, const char *what, const char *path,
                                  const char *const *inputs, GError **error);
/* The store of --db, with the --db-timeout busy timeout; read-only commands pass TRUE. */
ResStore   *cli_store_open    (const CliDbArgs *a, gboolean read_only, GError **error);

/* Before the work: can an unstored result be written somewhere (the working directory,
 * else the temporary directory)? Where neither is writable, a note on stderr says so and
 * the command goes on (TRUE): the store may well take the result, and a result the store
 * refuses is still printed (fallback_file null). It refused the command outright, which
 * left a user with a writable --db and a read-only working directory no answer at all. */
gboolean    cli_fallback_check (GError **error);

/* Writes `root` (an object; its "fallback_file" is set to the path tried) as
 * tandem-unstored-KIND-YYYYmmddTHHMMSS-PID.json in the working directory, or in the
 * temporary directory when that is not writable or the write fails there (a full disk).
 * The path written (free it), or NULL with fallback_file null and `error` saying why each
 * failed. */
char       *cli_fallback_write (const char *kind, JsonNode *root, GError **error);
/* The same for a text kept as it is (no "fallback_file" member added: calibrate's cluster
 * file, which --cluster must load as written). */
char       *cli_fallback_write_text (const char *kind, const char *text, GError **error);

/* Where a result went. */
typedef struct {
  gboolean tried;         /* a store was attempted (not --no-db) */
  gint64   run_id;        /* > 0 when stored */
  char    *db;            /* the file */
  char    *what;          /* "run" (default) or "profile": the word of the text line,
                           * and the JSON member (run_id, profile_id) */
  char    *store_error;   /* why it was not stored */
  char    *fallback;      /* the file the result was written to instead */
  char    *fallback_error;/* why that failed too */
} CliStored;

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (CliDbArgs, cli_db_args_clear)

void  cli_stored_init  (CliStored *st, const CliDbArgs *a);
void  cli_stored_clear (CliStored *st);
/* Records the store's outcome: id > 0, or the error. */
void  cli_stored_set   (CliStored *st, gint64 id, const GError *error);
/* Adds run_id (a number, or null with store_error and fallback_file) to root's object;
 * when the store failed, first writes root to the fallback file
 * tandem-unstored-KIND-YYYYmmddTHHMMSS-PID.json. With --no-db: run_id null and
 * store_error "--no-db", no fallback. */
void  cli_stored_apply (CliStored *st, const char *kind, JsonNode *root);
/* The text's last line: "stored as run N in FILE" or "not stored: REASON; result written
 * to FALLBACK", after `indent`; the error also goes to stderr. Nothing with --no-db. */
void  cli_stored_print (const CliStored *st, const char *indent);
/* The stderr line alone (with --json, whose stdout is the JSON). */
void  cli_stored_print_error (const CliStored *st);
/* CLI_EXIT_FAILURE when a store was tried and failed, else CLI_EXIT_OK. */
int   cli_stored_status (const CliStored *st);

G_END_DECLS
