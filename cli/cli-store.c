/* cli/cli-store.c - what `predict` and `run` both put in the results store: a
 * prediction's metrics and its per-stage phases, and the small JSON texts they carry. */
#include "cli/cli-store.h"

#include <string.h>
#include "util/input.h"

#include <math.h>
#include <stdio.h>
#include <unistd.h>
#include <errno.h>
#include <sys/stat.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "util/input.h"
#include "util/output.h"

char *
cli_json_text (JsonBuilder *b)
{
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  return util_json_to_data (root, FALSE);
}

char *
cli_conv_json (const ModelSpec *model, const double *values, double scale)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  for (int c = 0; c < MODEL_FLOPS_N_CONVENTIONS; c++)
    {
      json_builder_set_member_name (b, model_flop_convention_name (c));
      if (model != NULL && model_flop_convention_refusal (model, c) != NULL)
        json_builder_add_null_value (b);
      else
        json_builder_add_double_value (b, values[c] * scale);
    }
  json_builder_end_object (b);
  return cli_json_text (b);
}

void
cli_mfu_members (JsonBuilder *b, const ModelSpec *model, const double *mfu, double hfu,
                 double scale)
{
  json_builder_set_member_name (b, "mfu");
  json_builder_begin_object (b);
  for (int c = 0; c < MODEL_FLOPS_N_CONVENTIONS; c++)
    util_json_member_number (b, model_flop_convention_name (c),
                             model != NULL && model_flop_convention_refusal (model, c) != NULL
                             ? NAN : mfu[c] * scale);
  json_builder_end_object (b);
  util_json_member_number (b, "hfu", hfu * scale);
}

char *
cli_number_json (double v)
{
  /* a builder needs an object or array at its root: format the one number directly,
   * locale-independent, round-tripping (17 significant digits) */
  if (!isfinite (v))
    return g_strdup ("null");
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup (g_ascii_formatd (buf, sizeof buf, "%.17g", v));
}

void
cli_predicted_metrics (const SimPrediction *p, const PlanMemory *mem, const char *mfu_json,
                       const char *hfu_json, const char *memory_json, ResMetrics *m)
{
  const SimResult *r = p->result;
  res_metrics_init (m);
  m->step_time_s = r->step_time_s;
  m->tokens_per_s = r->tokens_per_s;
  m->tflops_per_gpu = r->model_tflops_per_gpu[MODEL_FLOPS_PALM];
  m->mfu_json = mfu_json;
  m->hfu_json = hfu_json;
  m->bubble_fraction = r->bubble_fraction;
  m->compute_s = r->compute_s;
  /* ProgCommKind and ResComm agree on tp, cp, pp, dp */
  for (int k = 0; k < PROG_COMM_N; k++)
    m->exposed_s[k] = r->exposed_comm_s[k];
  m->overlap_ratio = r->overlap_ratio;
  m->peak_memory_bytes = (gint64) mem->peak_bytes;
  m->fits = mem->fits ? 1 : 0;
  m->memory_json = memory_json;
  m->sim_wall_s = p->wall_s;
  /* the real columns: headline MFU in palm unless the caller names another convention */
  m->mfu = r->mfu[MODEL_FLOPS_PALM];
  m->flops_convention = model_flop_convention_name (MODEL_FLOPS_PALM);
  m->hfu = r->hfu;
}

void
cli_predicted_phases (const SimResult *r, GArray *phases)
{
  for (int s = 0; s < r->n_stages; s++)
    {
      const SimStageStats *st = &r->stages[s];
      ResPhase ph = { RES_SOURCE_PREDICTED, s, "compute", st->compute_s, NAN };
      g_array_append_val (phases, ph);
      for (int k = 0; k < PROG_COMM_N; k++)
        {
          if (k == PROG_COMM_EP && st->comm_s[k] == 0 && st->exposed_s[k] == 0)
            continue;   /* dense models: no ep row */
          ResPhase c = { RES_SOURCE_PREDICTED, s, prog_comm_name (k), st->comm_s[k],
                         st->exposed_s[k] };
          g_array_append_val (phases, c);
        }
      ResPhase bub = { RES_SOURCE_PREDICTED, s, "bubble", st->bubble_s, NAN };
      g_array_append_val (phases, bub);
    }
}

/* ---- print, then store ------------------------------------------------------------ */

void
cli_db_args_init (CliDbArgs *a)
{
  memset (a, 0, sizeof *a);
  a->timeout_ms = RES_BUSY_TIMEOUT_MS;
}

void
cli_db_args_clear (CliDbArgs *a)
{
  g_clear_pointer (&a->db, g_free);
}

char *
cli_db_missing_why (const char *path)
{
  GStatBuf st;
  if (g_lstat (path, &st) != 0 || !S_ISLNK (st.st_mode))
    return g_strdup ("");
  /* the link is there; what it points at is not (g_file_test follows it and says no) */
  int err = g_stat (path, &st) == 0 ? 0 : errno;
  g_autofree char *target = g_file_read_link (path, NULL);
  return g_strdup_printf (" (a symbolic link to '%s', which does not resolve: %s)",
                          target ? target : "?", g_strerror (err != 0 ? err : ENOENT));
}

const char *
cli_db_path (const CliDbArgs *a)
{
  return a->db != NULL ? a->db : CLI_DEFAULT_DB;
}

gboolean
cli_db_path_check (const char *db, GError **error)
{
  /* SQLite opens "" as a private temporary database and ":memory:" in memory: either
   * would answer "stored as run 1" and lose the row when tandem exits */
  if (db != NULL && (*db == '\0' || strcmp (db, ":memory:") == 0))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--db '%s' names no file: SQLite would keep the results in a temporary "
                   "database that is gone when tandem exits (hint: --db tandem.db, or --no-db)",
                   db);
      return FALSE;
    }
  /* a name SQLite reads as a URI ("file:u.db?mode=memory", "file::memory:"): the writing
   * commands said "stored as run 1" and kept nothing, or wrote u.db where runs and report
   * looked for a file called "file:u.db" */
  if (db != NULL && g_ascii_strncasecmp (db, "file:", 5) == 0)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--db '%s' is an SQLite URI, which tandem does not take: the store is a "
                   "plain file path (hint: --db %s, or ./%s for a file of that very name)",
                   db, db[5] != '\0' ? db + 5 + (db[5] == '/' && db[6] == '/' ? 2 : 0)
                                      : "tandem.db", db);
      return FALSE;
    }
  return TRUE;
}

gboolean
cli_db_choice_check (const char *db, gboolean no_db, GError **error)
{
  if (no_db && db != NULL)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--db %s and --no-db contradict each other (hint: --db FILE to store the "
                   "result there, --no-db not to store it)", db);
      return FALSE;
    }
  return TRUE;
}

gboolean
cli_db_args_check (const CliDbArgs *a, GError **error)
{
  if (!cli_db_path_check (a->db, error))
    return FALSE;
  if (!cli_db_choice_check (a->db, a->no_db, error))
    return FALSE;
  if (a->timeout_ms < 0)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--db-timeout %d: expected milliseconds >= 0 (hint: --db-timeout 5000, "
                   "the default)", a->timeout_ms);
      return FALSE;
    }
  return TRUE;
}

/* One file: the same device and inode where both exist (a link or another spelling of
 * the path), else the same absolute path (neither exists yet). */
gboolean
cli_same_file (const char *a, const char *b)
{
  GStatBuf sa, sb;
  if (g_stat (a, &sa) == 0 && g_stat (b, &sb) == 0)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  g_autofree char *ca = g_canonicalize_filename (a, NULL);
  g_autofree char *cb = g_canonicalize_filename (b, NULL);
  return strcmp (ca, cb) == 0;
}

/* Up to `cap` bytes of the gzip file `path` unpacked into `head`: how many (0 where it
 * does not unpack). */
static gsize
gunzip_head (const char *path, char *head, gsize cap)
{
  g_autoptr (GFile) f = g_file_new_for_path (path);
  g_autoptr (GFileInputStream) fin = g_file_read (f, NULL, NULL);
  if (fin == NULL)
    return 0;
  g_autoptr (GZlibDecompressor) z = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr (GInputStream) in = g_converter_input_stream_new (G_INPUT_STREAM (fin),
                                                              G_CONVERTER (z));
  gsize got = 0;
  /* a damaged file unpacks as far as it goes: what came out is judged */
  g_input_stream_read_all (in, head, cap, &got, NULL, NULL);
  return got;
}

/* An existing non-empty file is replaced only when it is what the output writes: a
 * trace (tandem's Trace Event JSON, "traceEvents" in its first MiB) or a profile (a
 * cluster file, "levels"). `tandem run --trace README.md` replaced the README with a
 * trace, exit 0, as calibrate --out did any file; reports already refuse without
 * --force. */
static gboolean
output_replaceable (const char *flag, const char *what, const char *path, GError **error)
{
  const char *marker = g_str_equal (what, "trace") ? "\"traceEvents\""
                       : g_str_equal (what, "profile") ? "\"levels\"" : NULL;
  GStatBuf st;
  if (marker == NULL || g_stat (path, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size == 0)
    return TRUE;
  FILE *fp = g_fopen (path, "rb");
  if (fp == NULL)
    return TRUE;   /* unreadable: the write itself says why it fails */
  gsize cap = 1 << 20;
  g_autofree char *head = g_malloc (cap + 1);
  gsize n = fread (head, 1, cap, fp);
  fclose (fp);
  /* a gzipped trace (--trace t.json.gz writes one): its marker is in the text it holds */
  if (n >= 2 && (guchar) head[0] == 0x1f && (guchar) head[1] == 0x8b)
    n = gunzip_head (path, head, cap);
  head[n] = '\0';
  if (memchr (head, '\0', n) == NULL && strstr (head, marker) != NULL)
    return TRUE;
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
               "%s %s exists and is not a %s tandem wrote: the %s would replace what it holds "
               "(hint: another path, or remove the file first)", flag, path,
               g_str_equal (what, "trace") ? "trace" : "cluster profile", what);
  return FALSE;
}

/* A regular file that starts with SQLite's 16-byte header, "SQLite format 3\0"
 * (sqlite.org/fileformat.html, 1.3). */
static gboolean
is_sqlite_file (const char *path)
{
  char head[16] = { 0 };
  FILE *fp = g_file_test (path, G_FILE_TEST_IS_REGULAR) ? g_fopen (path, "rb") : NULL;
  gboolean sqlite = fp != NULL && fread (head, 1, sizeof head, fp) == sizeof head
                    && memcmp (head, "SQLite format 3", 16) == 0;
  if (fp != NULL)
    fclose (fp);
  return sqlite;
}

gboolean
cli_output_not_db (const char *flag, const char *what, const char *path, const char *db,
                   gboolean no_db, GError **error)
{
  const char *store = db != NULL ? db : CLI_DEFAULT_DB;
  if (path == NULL || *path == '\0')
    return TRUE;
  /* any SQLite database, not only this command's store: `--trace-best tandem.db --no-db`
   * (or another store's name) wrote the trace over it */
  gboolean sqlite = is_sqlite_file (path);
  if (sqlite && (no_db || !cli_same_file (path, store)))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "%s %s is a SQLite database (a results store?): the %s would replace it "
                   "and every run stored in it (hint: %s another-file.json)", flag, path, what,
                   flag);
      return FALSE;
    }
  /* a store's own side files: its write-ahead log, its shared-memory index and its
   * rollback journal hold committed or in-flight transactions; a trace written there was
   * thrown away by SQLite at the store's next open (and took another process's
   * committed change in the log with it), while the command said it wrote it. This
   * command's store whether or not they exist yet, and any SQLite database's beside it */
  static const char *const sides[] = { "-wal", "-shm", "-journal" };
  for (guint i = 0; i < G_N_ELEMENTS (sides); i++)
    {
      g_autofree char *side = g_strconcat (store, sides[i], NULL);
      gboolean ours = !no_db && cli_same_file (path, side);
      gboolean other = FALSE;
      g_autofree char *base = NULL;
      if (!ours && g_str_has_suffix (path, sides[i]))
        {
          base = g_strndup (path, strlen (path) - strlen (sides[i]));
          other = is_sqlite_file (base);
        }
      if (ours || other)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "%s %s is the %s of the SQLite database %s: the %s would replace the "
                       "transactions it holds, and SQLite would throw the %s away (hint: %s "
                       "another-file.json)", flag, path,
                       i == 0 ? "write-ahead log" : i == 1 ? "shared-memory index"
                              : "rollback journal",
                       ours ? store : base, what, what, flag);
          return FALSE;
        }
    }
  if (!sqlite && !output_replaceable (flag, what, path, error))
    return FALSE;
  if (no_db || !cli_same_file (path, store))
    return TRUE;
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
               "%s %s is the results database%s%s%s: the %s would replace it and every run "
               "stored in it (hint: %s another-file.json, or --no-db)", flag, path,
               db != NULL ? " (--db " : " (the default, ", db != NULL ? db : CLI_DEFAULT_DB,
               ")", what, flag);
  return FALSE;
}

gboolean
cli_output_not_input (const char *flag, const char *what, const char *path,
                      const char *const *inputs, GError **error)
{
  if (path == NULL || *path == '\0')
    return TRUE;
  for (guint i = 0; inputs[i] != NULL; i += 2)
    {
      const char *input = inputs[i + 1];
      if (input == NULL)
        continue;
      /* a model directory is read through its config.json */
      g_autofree char *file = g_file_test (input, G_FILE_TEST_IS_DIR)
                                ? g_build_filename (input, "config.json", NULL)
                                : g_strdup (input);
      /* a preset's name is no file, and an input that is not there cannot be lost */
      if (!g_file_test (file, G_FILE_TEST_IS_REGULAR) || !cli_same_file (path, file))
        continue;
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "%s %s is the file %s %s reads: the %s would replace it (hint: %s "
                   "another-file.json)", flag, path, inputs[i], input, what, flag);
      return FALSE;
    }
  return TRUE;
}

ResStore *
cli_store_open (const CliDbArgs *a, gboolean read_only, GError **error)
{
  return res_store_open_full (cli_db_path (a), read_only ? RES_OPEN_READ_ONLY : RES_OPEN_DEFAULT,
                              (guint) MAX (a->timeout_ms, 0), error);
}

static gboolean
dir_writable (const char *dir)
{
  return g_file_test (dir, G_FILE_TEST_IS_DIR) && g_access (dir, W_OK | X_OK) == 0;
}

gboolean
cli_fallback_check (GError **error)
{
  if (dir_writable (".") || dir_writable (g_get_tmp_dir ()))
    return TRUE;
  fprintf (stderr, "tandem: note: neither the working directory nor %s is writable: a "
           "result the store refused would only be printed, not kept in a file (hint: cd to "
           "a writable directory, or set TMPDIR)\n", g_get_tmp_dir ());
  (void) error;
  return TRUE;
}

void
cli_stored_init (CliStored *st, const CliDbArgs *a)
{
  memset (st, 0, sizeof *st);
  st->tried = !a->no_db;
  st->run_id = -1;
  st->db = g_strdup (cli_db_path (a));
}

void
cli_stored_clear (CliStored *st)
{
  g_free (st->db);
  g_free (st->what);
  g_free (st->store_error);
  g_free (st->fallback);
  g_free (st->fallback_error);
  memset (st, 0, sizeof *st);
}

void
cli_stored_set (CliStored *st, gint64 id, const GError *error)
{
  st->tried = TRUE;
  st->run_id = id;
  g_clear_pointer (&st->store_error, g_free);
  if (id <= 0)
    st->store_error = g_strdup (error != NULL ? error->message : "unknown error");
}

static char *
fallback_write (const char *kind, JsonNode *root, const char *fixed_text, GError **error)
{
  JsonObject *o = root != NULL ? json_node_get_object (root) : NULL;
  g_autoptr (GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *stamp = g_date_time_format (now, "%Y%m%dT%H%M%S");
  g_autofree char *name = g_strdup_printf ("tandem-unstored-%s-%s-%d.json", kind, stamp,
                                           (int) getpid ());
  /* the working directory first; the temporary directory when that is not writable or
   * the write fails there (a full disk): the result is kept where it fits */
  const char *dirs[] = { ".", g_get_tmp_dir () };
  GString *why = g_string_new (NULL);
  for (guint i = 0; i < G_N_ELEMENTS (dirs); i++)
    {
      if (!dir_writable (dirs[i]))
        {
          g_string_append_printf (why, "%s%s is not writable", why->len ? "; " : "",
                                  dirs[i]);
          continue;
        }
      char *path = i == 0 ? g_strdup (name) : g_build_filename (dirs[i], name, NULL);
      if (o != NULL)
        json_object_set_string_member (o, "fallback_file", path);
      g_autofree char *text = o != NULL ? util_json_to_data (root, TRUE) : g_strdup (fixed_text);
      g_autoptr (GError) local = NULL;
      /* a new name: O_EXCL semantics are not needed, the pid and second make it ours */
      if (util_output_write (path, text, strlen (text), &local))
        {
          g_string_free (why, TRUE);
          return path;
        }
      g_string_append_printf (why, "%s%s", why->len ? "; " : "", local->message);
      g_free (path);
    }
  if (o != NULL)
    json_object_set_null_member (o, "fallback_file");
  g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, why->str);
  g_string_free (why, TRUE);
  return NULL;
}

char *
cli_fallback_write (const char *kind, JsonNode *root, GError **error)
{
  g_return_val_if_fail (root != NULL && JSON_NODE_HOLDS_OBJECT (root), NULL);
  return fallback_write (kind, root, NULL, error);
}

char *
cli_fallback_write_text (const char *kind, const char *text, GError **error)
{
  g_return_val_if_fail (text != NULL, NULL);
  return fallback_write (kind, NULL, text, error);
}

void
cli_stored_apply (CliStored *st, const char *kind, JsonNode *root)
{
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return;
  JsonObject *o = json_node_get_object (root);
  g_autofree char *id_member = g_strconcat (st->what != NULL ? st->what : "run", "_id", NULL);
  /* --no-db: nothing was stored, by request; said the same way by every command (predict
   * and run left the key out, validate printed null without a reason, search "--no-db") */
  if (!st->tried)
    {
      json_object_set_null_member (o, id_member);
      json_object_set_string_member (o, "store_error", "--no-db");
      return;
    }
  if (st->run_id > 0)
    {
      json_object_set_int_member (o, id_member, st->run_id);
      return;
    }
  json_object_set_null_member (o, id_member);
  json_object_set_string_member (o, "store_error", st->store_error);
  if (st->fallback == NULL && st->fallback_error == NULL)
    {
      GError *error = NULL;
      st->fallback = cli_fallback_write (kind, root, &error);
      if (st->fallback == NULL)
        {
          st->fallback_error = g_strdup (error->message);
          g_error_free (error);
        }
    }
  if (st->fallback != NULL)
    json_object_set_string_member (o, "fallback_file", st->fallback);
  else
    json_object_set_null_member (o, "fallback_file");
}

void
cli_stored_print (const CliStored *st, const char *indent)
{
  if (!st->tried)
    return;
  if (st->run_id > 0)
    {
      /* a path printed as text: its controls shown, not acted on by the terminal */
      g_autofree char *db = cli_printable (st->db, NULL);
      printf ("%sstored as %s %" G_GINT64_FORMAT " in %s\n", indent,
              st->what != NULL ? st->what : "run", st->run_id, db);
      return;
    }
  if (st->fallback != NULL)
    printf ("%snot stored: %s; result written to %s\n", indent, st->store_error,
            st->fallback);
  else
    printf ("%snot stored: %s; the result could not be written elsewhere either: %s\n",
            indent, st->store_error, st->fallback_error ? st->fallback_error : "?");
  fflush (stdout);
  cli_stored_print_error (st);
}

void
cli_stored_print_error (const CliStored *st)
{
  if (!st->tried || st->run_id > 0)
    return;
  fprintf (stderr, "tandem: error: the result was not stored (%s was kept instead): %s\n",
           st->fallback != NULL ? st->fallback : "nothing", st->store_error);
}

int
cli_stored_status (const CliStored *st)
{
  return st->tried && st->run_id <= 0 ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}
