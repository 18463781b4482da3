/* results/store.c - opening the results store: path checks, pragmas, journal mode,
 * schema migrations, error mapping and the statement cache. */
#include "results/store-private.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#ifdef __linux__
#include <sys/vfs.h>
#endif

G_DEFINE_QUARK (res-error-quark, res_error)

static const char *const kind_names[RES_KIND_N] = {
  [RES_KIND_PREDICT] = "predict",
  [RES_KIND_RUN] = "run",
  [RES_KIND_VALIDATE] = "validate",
  [RES_KIND_SEARCH] = "search",
  [RES_KIND_CALIBRATE] = "calibrate",
};

static const char *const status_names[RES_STATUS_N] = {
  [RES_STATUS_OK] = "ok",
  [RES_STATUS_FAILED] = "failed",
  [RES_STATUS_OOM] = "oom",
  [RES_STATUS_RUNNING] = "running",
  [RES_STATUS_DIED] = "died",
};

static const char *const source_names[RES_SOURCE_N] = {
  [RES_SOURCE_PREDICTED] = "predicted",
  [RES_SOURCE_MEASURED] = "measured",
};

const char *
res_run_kind_to_string (ResRunKind kind)
{
  g_return_val_if_fail ((guint) kind < RES_KIND_N, NULL);
  return kind_names[kind];
}

gboolean
res_run_kind_from_string (const char *s, ResRunKind *out)
{
  for (guint i = 0; s != NULL && i < RES_KIND_N; i++)
    if (strcmp (s, kind_names[i]) == 0)
      {
        *out = (ResRunKind) i;
        return TRUE;
      }
  return FALSE;
}

const char *
res_run_status_to_string (ResRunStatus status)
{
  g_return_val_if_fail ((guint) status < RES_STATUS_N, NULL);
  return status_names[status];
}

gboolean
res_run_status_from_string (const char *s, ResRunStatus *out)
{
  for (guint i = 0; s != NULL && i < RES_STATUS_N; i++)
    if (strcmp (s, status_names[i]) == 0)
      {
        *out = (ResRunStatus) i;
        return TRUE;
      }
  return FALSE;
}

const char *
res_source_to_string (ResSource source)
{
  g_return_val_if_fail ((guint) source < RES_SOURCE_N, NULL);
  return source_names[source];
}

void
res_metrics_init (ResMetrics *m)
{
  g_return_if_fail (m != NULL);
  memset (m, 0, sizeof *m);
  m->step_time_s = NAN;
  m->tokens_per_s = NAN;
  m->tflops_per_gpu = NAN;
  m->bubble_fraction = NAN;
  m->compute_s = NAN;
  for (guint i = 0; i < RES_COMM_N; i++)
    m->exposed_s[i] = NAN;
  m->overlap_ratio = NAN;
  m->peak_memory_bytes = -1;
  m->fits = -1;
  m->sim_wall_s = NAN;
  m->mfu = NAN;
  m->hfu = NAN;
}

/* ---- errors ---------------------------------------------------------------------- */

/* Turns a SQLite result code into a RES_ERROR. `what` reads as the start of a sentence
 * that the path completes ("cannot insert a prediction into"). Always returns FALSE. */
gboolean
res_store_set_error (ResStore *store, int rc, const char *what, GError **error)
{
  const char *path = store->path;
  const char *msg = store->db != NULL ? sqlite3_errmsg (store->db) : sqlite3_errstr (rc);
  int sys = store->db != NULL ? sqlite3_system_errno (store->db) : 0;

  switch (rc & 0xff)
    {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      g_set_error (error, RES_ERROR, RES_ERROR_BUSY,
                   "%s %s: the database is locked by another process (waited %u ms); "
                   "retry when that process has finished, or pass another --db",
                   what, path, store->busy_timeout_ms);
      break;
    case SQLITE_CONSTRAINT:
      g_set_error (error, RES_ERROR, RES_ERROR_CONSTRAINT, "%s %s: %s", what, path, msg);
      break;
    case SQLITE_NOTADB:
      g_set_error (error, RES_ERROR, RES_ERROR_NOT_A_DATABASE,
                   "%s is not a SQLite database (%s): pass another path with --db, "
                   "or move the file away", path, msg);
      break;
    case SQLITE_CORRUPT:
      g_set_error (error, RES_ERROR, RES_ERROR_CORRUPT,
                   "%s is corrupt (%s): move it away so that tandem starts a new one "
                   "(`sqlite3 %s .recover` may save its rows)", path, msg, path);
      break;
    case SQLITE_READONLY:
      g_set_error (error, RES_ERROR, RES_ERROR_READ_ONLY,
                   "%s %s: the database is read-only (%s); check the permissions of "
                   "the file and its directory, or pass another --db", what, path, msg);
      break;
    case SQLITE_CANTOPEN:
      g_set_error (error, RES_ERROR, RES_ERROR_OPEN,
                   "%s %s: %s%s%s; check that its directory exists and is writable, "
                   "or pass another --db", what, path, msg,
                   sys != 0 ? ": " : "", sys != 0 ? g_strerror (sys) : "");
      break;
    case SQLITE_FULL:
      g_set_error (error, RES_ERROR, RES_ERROR_FAILED,
                   "%s %s: the disk is full (%s)", what, path, msg);
      break;
    case SQLITE_IOERR:
      /* SQLite says "disk I/O error" for every failed read, write or mmap of the file,
       * its journal or its -shm; the system's reason tells a full disk (the -shm grows
       * by mmap: ENOSPC comes as an I/O error, not SQLITE_FULL) from a failing one */
      if (sys == ENOSPC || sys == EDQUOT)
        g_set_error (error, RES_ERROR, RES_ERROR_FAILED,
                     "%s %s: the disk is full (%s: %s); free some space or pass another --db",
                     what, path, msg, g_strerror (sys));
      else
        g_set_error (error, RES_ERROR, RES_ERROR_FAILED, "%s %s: %s%s%s", what, path, msg,
                     sys != 0 ? ": " : "", sys != 0 ? g_strerror (sys) : "");
      break;
    default:
      g_set_error (error, RES_ERROR, RES_ERROR_FAILED, "%s %s: %s", what, path, msg);
      break;
    }
  return FALSE;
}

/* ---- statements ------------------------------------------------------------------ */

sqlite3_stmt *
res_store_stmt (ResStore *store, ResStmt id, GError **error)
{
  g_assert ((guint) id < RES_STMT_N);
  if (store->stmts[id] == NULL)
    {
      int rc = sqlite3_prepare_v3 (store->db, res_stmt_sql[id], -1,
                                   SQLITE_PREPARE_PERSISTENT, &store->stmts[id], NULL);
      if (rc != SQLITE_OK)
        {
          res_store_set_error (store, rc, "cannot prepare a statement for", error);
          return NULL;
        }
    }
  return store->stmts[id];
}

void
res_store_stmt_done (sqlite3_stmt *stmt)
{
  sqlite3_reset (stmt);
  sqlite3_clear_bindings (stmt);
}

gboolean
res_store_step_done (ResStore *store, sqlite3_stmt *stmt, const char *what, GError **error)
{
  int rc = sqlite3_step (stmt);
  gboolean ok = rc == SQLITE_DONE || rc == SQLITE_ROW;
  if (!ok)
    res_store_set_error (store, rc, what, error);  /* before reset, which keeps the code */
  res_store_stmt_done (stmt);
  return ok;
}

gboolean
res_store_begin (ResStore *store, GError **error)
{
  /* IMMEDIATE takes the write lock now (waiting up to the busy timeout), so a
   * transaction never has to upgrade a read lock later, which fails at once in WAL
   * mode (SQLITE_BUSY_SNAPSHOT, https://sqlite.org/lang_transaction.html). */
  sqlite3_stmt *stmt = res_store_stmt (store, RES_STMT_BEGIN, error);
  return stmt != NULL && res_store_step_done (store, stmt, "cannot start a transaction on",
                                              error);
}

gboolean
res_store_commit (ResStore *store, GError **error)
{
  sqlite3_stmt *stmt = res_store_stmt (store, RES_STMT_COMMIT, error);
  return stmt != NULL && res_store_step_done (store, stmt, "cannot commit to", error);
}

void
res_store_rollback (ResStore *store)
{
  /* Some errors (SQLITE_FULL, SQLITE_IOERR, ...) have rolled back already. */
  if (sqlite3_get_autocommit (store->db))
    return;
  sqlite3_stmt *stmt = res_store_stmt (store, RES_STMT_ROLLBACK, NULL);
  if (stmt != NULL)
    res_store_step_done (store, stmt, "cannot roll back", NULL);
  else
    sqlite3_exec (store->db, "ROLLBACK", NULL, NULL, NULL);
}

void
res_bind_double (sqlite3_stmt *stmt, int col, double v)
{
  if (isnan (v))
    sqlite3_bind_null (stmt, col);
  else
    sqlite3_bind_double (stmt, col, v);
}

void
res_bind_text (sqlite3_stmt *stmt, int col, const char *s)
{
  if (s == NULL)
    sqlite3_bind_null (stmt, col);
  else
    sqlite3_bind_text (stmt, col, s, -1, SQLITE_TRANSIENT);
}

void
res_bind_int_or_null (sqlite3_stmt *stmt, int col, gint64 v, gint64 min)
{
  if (v < min)
    sqlite3_bind_null (stmt, col);
  else
    sqlite3_bind_int64 (stmt, col, v);
}

/* ---- open ------------------------------------------------------------------------ */

static gboolean
path_is_memory (const char *path)
{
  /* ":memory:" and "" (a private temporary database) have no file to check. */
  return path[0] == '\0' || strcmp (path, ":memory:") == 0;
}

/* Checks what SQLite would only report as "unable to open database file". */
static gboolean
check_path (const char *path, GError **error)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, RES_ERROR, RES_ERROR_OPEN,
                   "cannot open results database %s: it is a directory; pass a file "
                   "path with --db (e.g. %s/tandem.db)", path, path);
      return FALSE;
    }
  g_autofree char *dir = g_path_get_dirname (path);
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, RES_ERROR, RES_ERROR_OPEN,
                   "cannot create results database %s: directory %s does not exist; "
                   "create it or pass another --db", path, dir);
      return FALSE;
    }
  /* SQLite writes its journal (-journal, or -wal and -shm) next to the file. */
  if (g_access (dir, W_OK) != 0)
    {
      int saved = errno;
      g_set_error (error, RES_ERROR, RES_ERROR_READ_ONLY,
                   "cannot write results database %s: directory %s is not writable (%s); "
                   "SQLite needs to create its journal there; pass another --db",
                   path, dir, g_strerror (saved));
      return FALSE;
    }
  if (g_file_test (path, G_FILE_TEST_EXISTS) && g_access (path, W_OK) != 0)
    {
      int saved = errno;
      g_set_error (error, RES_ERROR, RES_ERROR_READ_ONLY,
                   "cannot write results database %s: %s; check its permissions or pass "
                   "another --db", path, g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

/* WAL needs shared memory that every process sees, which network file systems do not
 * give (https://sqlite.org/wal.html, "WAL does not work over a network filesystem").
 * The f_type values are the ones GNU coreutils' stat(1) marks "remote" (src/stat.c),
 * also in statfs(2) and <linux/magic.h>. */
static gboolean
on_network_fs (const char *path)
{
#ifdef __linux__
  g_autofree char *dir = g_path_get_dirname (path);
  struct statfs st;
  if (statfs (dir, &st) != 0)
    return FALSE;
  switch ((guint32) st.f_type)
    {
    case 0x6969:      /* NFS_SUPER_MAGIC */
    case 0x517B:      /* SMB_SUPER_MAGIC */
    case 0xFF534D42:  /* CIFS_MAGIC_NUMBER */
    case 0xFE534D42:  /* SMB2_MAGIC_NUMBER */
    case 0x0BD00BD0:  /* Lustre (LL_SUPER_MAGIC) */
    case 0x47504653:  /* IBM GPFS / Storage Scale */
    case 0x19830326:  /* BeeGFS (FhGFS) */
    case 0x00C36400:  /* CEPH_SUPER_MAGIC */
    case 0x01021997:  /* V9FS_MAGIC (9p) */
    case 0x5346414F:  /* AFS_SUPER_MAGIC */
    case 0x6B414653:  /* kAFS */
      return TRUE;
    default:
      return FALSE;
    }
#else
  return FALSE;
#endif
}

/* Runs a one-row, one-column query made in this file (pragmas take no bound values). */
static gboolean
query_value (ResStore *store, const char *sql, gint64 *int_out, char **text_out,
             const char *what, GError **error)
{
  sqlite3_stmt *stmt = NULL;
  int rc = sqlite3_prepare_v2 (store->db, sql, -1, &stmt, NULL);
  if (rc == SQLITE_OK)
    {
      rc = sqlite3_step (stmt);
      if (rc == SQLITE_ROW)
        {
          if (int_out != NULL)
            *int_out = sqlite3_column_int64 (stmt, 0);
          if (text_out != NULL)
            *text_out = g_strdup ((const char *) sqlite3_column_text (stmt, 0));
          rc = SQLITE_OK;
        }
      else if (rc == SQLITE_DONE)
        {
          if (int_out != NULL)
            *int_out = 0;
          if (text_out != NULL)
            *text_out = NULL;
          rc = SQLITE_OK;
        }
    }
  if (rc != SQLITE_OK)
    res_store_set_error (store, rc, what, error);
  sqlite3_finalize (stmt);
  return rc == SQLITE_OK;
}

static gboolean
exec_sql (ResStore *store, const char *sql, const char *what, GError **error)
{
  int rc = sqlite3_exec (store->db, sql, NULL, NULL, NULL);
  return rc == SQLITE_OK || res_store_set_error (store, rc, what, error);
}

/* Is this a tandem file we may use? The first read of the file, so it is also where a
 * text file (SQLITE_NOTADB) or a damaged header or schema (SQLITE_CORRUPT) shows. */
static gboolean
check_identity (ResStore *store, GError **error)
{
  /* One statement, so one snapshot: read separately, the three could straddle another
   * process's migration commit. */
  static const char sql[] =
    "SELECT (SELECT application_id FROM pragma_application_id),"
    " (SELECT user_version FROM pragma_user_version),"
    " (SELECT count(*) FROM sqlite_schema),"
    /* tandem creates each of its tables STRICT, so a number column never holds text;
     * a table rebuilt without it (by hand) could, and a reader took such text for 0 */
    " (SELECT group_concat(name, ', ') FROM pragma_table_list"
    "   WHERE schema = 'main' AND type = 'table' AND strict = 0 AND name IN"
    "   ('runs', 'runs_v2', 'predictions', 'measurements', 'phases', 'profiles',"
    "    'published', 'validations', 'search_candidates'))";
  gint64 app_id = 0, version = 0, n_objects = 0;
  g_autofree char *loose = NULL;
  sqlite3_stmt *stmt = NULL;
  int rc = sqlite3_prepare_v2 (store->db, sql, -1, &stmt, NULL);
  if (rc == SQLITE_OK && (rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      app_id = sqlite3_column_int64 (stmt, 0);
      version = sqlite3_column_int64 (stmt, 1);
      n_objects = sqlite3_column_int64 (stmt, 2);
      if (sqlite3_column_type (stmt, 3) == SQLITE_TEXT)
        loose = g_strdup ((const char *) sqlite3_column_text (stmt, 3));
      rc = SQLITE_OK;
    }
  if (rc != SQLITE_OK)
    res_store_set_error (store, rc, "cannot read", error);
  sqlite3_finalize (stmt);
  if (rc != SQLITE_OK)
    return FALSE;

  gboolean empty = app_id == 0 && version == 0 && n_objects == 0;
  if (!empty && app_id != RES_APPLICATION_ID)
    {
      g_set_error (error, RES_ERROR, RES_ERROR_NOT_A_DATABASE,
                   "%s is a SQLite database of another program (application_id %#x, "
                   "%" G_GINT64_FORMAT " tables and indexes), not a tandem results "
                   "database: pass another path with --db", store->path,
                   (guint) app_id, n_objects);
      return FALSE;
    }
  /* tandem stamps its application_id and version 1 in the same transaction that creates
   * the first tables: a tandem file below 1 that holds tables (or below 0 at all) was
   * edited or damaged, and migration 1 would only fail on "table runs already exists" */
  if (app_id == RES_APPLICATION_ID && (version < 0 || (version == 0 && n_objects > 0)))
    {
      g_set_error (error, RES_ERROR, RES_ERROR_CORRUPT,
                   "%s has schema version %" G_GINT64_FORMAT " with %" G_GINT64_FORMAT
                   " tables and indexes, which no tandem writes (its user_version was "
                   "changed by hand or damaged): move it away so that tandem starts a new "
                   "one, or set `PRAGMA user_version` back to the version that wrote it "
                   "(1 to %d)", store->path, version, n_objects, RES_SCHEMA_VERSION);
      return FALSE;
    }
  if (version > RES_SCHEMA_VERSION)
    {
      g_set_error (error, RES_ERROR, RES_ERROR_TOO_NEW,
                   "%s has schema version %" G_GINT64_FORMAT ", this tandem knows up to "
                   "%d: upgrade tandem", store->path, version, RES_SCHEMA_VERSION);
      return FALSE;
    }
  if (app_id == RES_APPLICATION_ID && loose != NULL)
    {
      g_set_error (error, RES_ERROR, RES_ERROR_CORRUPT,
                   "%s: %s %s %s rebuilt without STRICT, which tandem gives every "
                   "table it creates (edited by hand), so a number column may hold text "
                   "that would read as 0: move the file away so that tandem starts a new "
                   "one, or copy its rows into a store that tandem created",
                   store->path, strchr (loose, ',') ? "tables" : "table", loose,
                   strchr (loose, ',') ? "were" : "was");
      return FALSE;
    }
  return TRUE;
}

static gboolean
set_journal_mode (ResStore *store, gboolean memory, GError **error)
{
  char *mode = NULL;
  GError *local = NULL;

  if (!memory && !on_network_fs (store->path))
    {
      /* Switching a rollback-journal file to WAL needs an exclusive lock, and SQLite
       * answers SQLITE_BUSY at once, without the busy handler, when another connection
       * is reading (it could deadlock otherwise). Several ranks opening a new file meet
       * this, so retry with backoff up to the busy timeout. */
      gint64 deadline = g_get_monotonic_time () + (gint64) store->busy_timeout_ms * 1000;
      gulong delay_us = 1000;
      gboolean ok;
      while (!(ok = query_value (store, "PRAGMA journal_mode = WAL", NULL, &mode,
                                 "cannot set WAL on", &local))
             && g_error_matches (local, RES_ERROR, RES_ERROR_BUSY)
             && g_get_monotonic_time () < deadline)
        {
          g_clear_error (&local);
          g_usleep (delay_us);
          delay_us = MIN (delay_us * 2, 100000);  /* 1 ms doubling to 100 ms: ours */
        }
      if (ok && g_strcmp0 (mode, "wal") == 0)
        goto done;
      g_clear_pointer (&mode, g_free);
      if (local != NULL && g_error_matches (local, RES_ERROR, RES_ERROR_BUSY))
        {
          g_propagate_error (error, local);
          return FALSE;
        }
      g_clear_error (&local);
    }
  /* A network file system, a VFS without shared memory, or ":memory:" (which stays
   * "memory" whatever is asked). */
  if (!memory && !query_value (store, "PRAGMA journal_mode = DELETE", NULL, &mode,
                               "cannot set the journal mode of", NULL))
    g_clear_pointer (&mode, g_free);
  if (mode == NULL && !query_value (store, "PRAGMA journal_mode", NULL, &mode,
                                    "cannot read the journal mode of", error))
    return FALSE;

done:
  store->journal_mode = g_ascii_strdown (mode != NULL ? mode : "unknown", -1);
  g_free (mode);
  return TRUE;
}

/* Applies each migration newer than the file in its own BEGIN IMMEDIATE ... COMMIT.
 * The version is read again under the write lock: another process may have migrated
 * the file while this one waited. */
static gboolean
migrate (ResStore *store, GError **error)
{
  for (guint i = 0; i < res_n_migrations; i++)
    {
      const ResMigration *mig = &res_migrations[i];
      gint64 version = 0;

      if (!query_value (store, "PRAGMA user_version", &version, NULL, "cannot read", error))
        return FALSE;
      if (version >= mig->version)
        continue;
      if (!res_store_begin (store, error))
        return FALSE;
      if (!query_value (store, "PRAGMA user_version", &version, NULL, "cannot read", error))
        goto fail;
      if (version < mig->version)
        {
          /* PRAGMA takes no bound parameters; the numbers are this file's constants. */
          g_autofree char *set_version =
            g_strdup_printf ("PRAGMA application_id = %d; PRAGMA user_version = %d;",
                             RES_APPLICATION_ID, mig->version);
          g_autofree char *what =
            g_strdup_printf ("cannot apply schema migration %d to", mig->version);
          if (!exec_sql (store, mig->sql, what, error)
              || !exec_sql (store, set_version, what, error))
            {
              /* a file whose user_version was set back by hand holds the tables of a later
               * version, on which a migration fails ("no such table: main.runs" while runs
               * exists): said, with what to do; the transaction leaves the file as it was */
              if (error != NULL && *error != NULL && version >= 1)
                {
                  g_autofree char *text = g_strdup_printf (
                    "%s (hint: the file says schema version %" G_GINT64_FORMAT ", but its "
                    "tables may be a later version's, its user_version changed by hand; "
                    "nothing was changed: move it away, or set `PRAGMA user_version` back "
                    "to the version that wrote it, 1 to %d)", (*error)->message, version,
                    RES_SCHEMA_VERSION);
                  g_free ((*error)->message);
                  (*error)->message = g_steal_pointer (&text);
                }
              goto fail;
            }
          /* A rebuilt table must leave every child row with its parent. */
          g_autofree char *orphan = NULL;
          if (!query_value (store, "PRAGMA foreign_key_check", NULL, &orphan, what, error))
            goto fail;
          if (orphan != NULL)
            {
              g_set_error (error, RES_ERROR, RES_ERROR_CONSTRAINT,
                           "%s %s: rows of table %s lost their run; the file is left as "
                           "it was", what, store->path, orphan);
              goto fail;
            }
        }
      if (!res_store_commit (store, error))
        goto fail;
    }
  return TRUE;

fail:
  res_store_rollback (store);
  return FALSE;
}

/* An older file opened read-only: copied into a private in-memory database (the
 * backup API, https://sqlite.org/backup.html) and migrated there, so that readers see
 * the newest schema and the file is not touched. */
static gboolean
migrate_in_memory (ResStore *store, GError **error)
{
  sqlite3 *mem = NULL;
  int rc = sqlite3_open_v2 (":memory:", &mem, SQLITE_OPEN_READWRITE, NULL);
  if (rc == SQLITE_OK)
    {
      sqlite3_backup *bk = sqlite3_backup_init (mem, "main", store->db, "main");
      if (bk == NULL)
        rc = sqlite3_errcode (mem);
      else
        {
          rc = sqlite3_backup_step (bk, -1);
          int rc2 = sqlite3_backup_finish (bk);
          rc = rc == SQLITE_DONE ? rc2 : rc;
        }
    }
  if (rc != SQLITE_OK)
    {
      res_store_set_error (store, rc, "cannot read", error);
      sqlite3_close (mem);
      return FALSE;
    }
  sqlite3_close_v2 (store->db);
  store->db = mem;
  sqlite3_extended_result_codes (store->db, 1);
  return migrate (store, error);
}

ResStore *
res_store_open_full (const char *path, ResOpenFlags flags, guint busy_timeout_ms,
                     GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  gboolean memory = path_is_memory (path);
  gboolean read_only = (flags & RES_OPEN_READ_ONLY) != 0;
  /* /dev/null, a FIFO, a socket: SQLite opens them and fails later with "disk I/O
   * error" (writers) or read-only opens said "no such file"; neither says what is wrong */
  if (!memory && g_file_test (path, G_FILE_TEST_EXISTS)
      && !g_file_test (path, G_FILE_TEST_IS_REGULAR) && !g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, RES_ERROR, RES_ERROR_OPEN,
                   "cannot open results database %s: it is not a regular file (a device, "
                   "FIFO or socket); pass a file path with --db", path);
      return NULL;
    }
  if (!memory && read_only && !g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, RES_ERROR, RES_ERROR_OPEN,
                   "cannot read results database %s: %s; pass another --db", path,
                   g_file_test (path, G_FILE_TEST_IS_DIR) ? "it is a directory"
                                                        : "no such file");
      return NULL;
    }
  if (!memory && !read_only && !check_path (path, error))
    return NULL;

  g_autoptr (ResStore) store = g_new0 (ResStore, 1);
  store->path = g_strdup (path);
  store->busy_timeout_ms = busy_timeout_ms;

  int rc;
  gboolean wal_unreadable = FALSE;   /* a -wal SQLite may fail to read here */
  if (read_only && !memory)
    {
      g_autofree char *dir = g_path_get_dirname (path);
      g_autofree char *wal = g_strconcat (path, "-wal", NULL);
      g_autofree char *shm = g_strconcat (path, "-shm", NULL);
      GStatBuf st;
      gboolean has_wal = g_stat (wal, &st) == 0 && st.st_size > 0;
      gboolean has_shm = g_file_test (shm, G_FILE_TEST_EXISTS);
      gboolean dir_ro = g_access (dir, W_OK) != 0;
      gboolean file_ro = g_access (path, W_OK) != 0;
      wal_unreadable = dir_ro && has_wal;
      g_autofree char *uri_path = g_uri_escape_string (path, "/", FALSE);
      /* How a reader opens the file, so that reading leaves the directory and the file
       * as they were:
       * - a file this user may write, with no commits waiting in a -wal: read-write
       *   (never created), PRAGMA query_only below refusing every write. A read-only
       *   connection to a WAL file creates its -wal and -shm and, not being allowed to
       *   checkpoint, leaves both behind when it closes (`tandem runs` left two files
       *   beside a database that had none); a read-write one that is the last to close
       *   checkpoints an empty -wal (nothing written) and removes both, as writers do.
       * - commits waiting in a -wal (a writer killed before its checkpoint, or a copy of
       *   the three files): read-only, so that reading does not fold them into the file
       *   (its bytes would change under a command that says it only reads); the -wal was
       *   there already.
       * - a file this user may not write, in a directory they may (a shared database in
       *   a group or sticky directory): with neither -wal nor -shm there, immutable, since
       *   a -wal and -shm created by this user would belong to them, and the owner's next
       *   write then fails on them ("attempt to write a readonly database"); with a -shm
       *   there (the owner's connection is open), read-only through it.
       * - a directory nobody can write: nobody can be writing the file either; immutable
       *   unless a -wal holds commits (immutable ignores the -wal, so those runs would be
       *   missing without a word). SQLite reads it read-only when the -shm is there and
       *   readable (https://sqlite.org/wal.html#readonly); without one it cannot, and
       *   says so below. */
      gboolean read_write = !dir_ro && !file_ro && !has_wal;
      gboolean immutable = dir_ro ? !has_wal : file_ro && !has_wal && !has_shm;
      g_autofree char *uri = g_strdup_printf ("file:%s%s", uri_path,
                                              read_write ? ""
                                              : immutable ? "?mode=ro&immutable=1"
                                              : "?mode=ro");
      rc = sqlite3_open_v2 (uri, &store->db,
                            (read_write ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY)
                            | SQLITE_OPEN_URI, NULL);
    }
  else
    rc = sqlite3_open_v2 (path, &store->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                          NULL);
  if (rc != SQLITE_OK)
    {
      res_store_set_error (store, rc, "cannot open results database", error);
      return NULL;
    }
  sqlite3_extended_result_codes (store->db, 1);
  sqlite3_busy_timeout (store->db, (int) MIN (busy_timeout_ms, (guint) G_MAXINT));

  GError *local = NULL;
  if (!check_identity (store, &local))
    {
      if (wal_unreadable && g_error_matches (local, RES_ERROR, RES_ERROR_OPEN))
        {
          g_clear_error (&local);
          g_set_error (&local, RES_ERROR, RES_ERROR_OPEN,
                       "cannot read results database %s: its latest runs are in %s-wal, "
                       "which SQLite can read only beside a readable %s-shm or in a "
                       "writable directory (hint: copy %s and its -wal to a writable "
                       "directory and pass --db there, or have the owner run `sqlite3 %s "
                       "'PRAGMA wal_checkpoint(TRUNCATE)'`)", path, path, path, path, path);
        }
      g_propagate_error (error, local);
      return NULL;
    }
  if (read_only)
    {
      store->journal_mode = g_strdup ("read-only");
      gint64 version = 0;
      if (!query_value (store, "PRAGMA user_version", &version, NULL, "cannot read", error))
        return NULL;
      /* query_only: the in-memory copy refuses writes like the file would */
      if ((version < RES_SCHEMA_VERSION && !migrate_in_memory (store, error))
          || !exec_sql (store, "PRAGMA query_only = ON;", "cannot configure", error))
        return NULL;
      return g_steal_pointer (&store);
    }
  if (sqlite3_db_readonly (store->db, "main") == 1)
    {
      g_set_error (error, RES_ERROR, RES_ERROR_READ_ONLY,
                   "cannot write results database %s: SQLite opened it read-only; check "
                   "the permissions of the file and its directory, or pass another --db",
                   path);
      return NULL;
    }
  /* Foreign keys stay off while migrating: migration 2 rebuilds the parent table runs
   * (PRAGMA foreign_keys is a no-op inside a transaction, so it is set around it). */
  if (!set_journal_mode (store, memory, error)
      || !exec_sql (store, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = OFF;",
                    "cannot configure", error)
      || !migrate (store, error)
      || !exec_sql (store, "PRAGMA foreign_keys = ON;", "cannot configure", error))
    return NULL;

  return g_steal_pointer (&store);
}

ResStore *
res_store_open (const char *path, GError **error)
{
  return res_store_open_full (path, RES_OPEN_DEFAULT, RES_BUSY_TIMEOUT_MS, error);
}

void
res_store_close (ResStore *store)
{
  if (store == NULL)
    return;
  for (guint i = 0; i < RES_STMT_N; i++)
    sqlite3_finalize (store->stmts[i]);
  sqlite3_close_v2 (store->db);
  g_free (store->journal_mode);
  g_free (store->path);
  g_free (store);
}

const char *
res_store_get_path (const ResStore *store)
{
  g_return_val_if_fail (store != NULL, NULL);
  return store->path;
}

const char *
res_store_get_journal_mode (const ResStore *store)
{
  g_return_val_if_fail (store != NULL, NULL);
  return store->journal_mode;
}

int
res_store_get_schema_version (ResStore *store, GError **error)
{
  g_return_val_if_fail (store != NULL, -1);
  gint64 version = 0;
  if (!query_value (store, "PRAGMA user_version", &version, NULL, "cannot read", error))
    return -1;
  return (int) version;
}

void
res_store_set_busy_timeout (ResStore *store, guint timeout_ms)
{
  g_return_if_fail (store != NULL);
  store->busy_timeout_ms = timeout_ms;
  sqlite3_busy_timeout (store->db, (int) MIN (timeout_ms, (guint) G_MAXINT));
}
