/* results/store-private.h - what store.c, store-schema.c, store-write.c and
 * store-read.c share. Not installed, not for other modules. */
#pragma once

#include <sqlite3.h>

#include "results/store.h"

/* Statements prepared once per connection (on first use) and reused: reset and
 * bindings cleared after each use. */
typedef enum {
  RES_STMT_BEGIN,
  RES_STMT_BEGIN_READ,
  RES_STMT_COMMIT,
  RES_STMT_ROLLBACK,
  RES_STMT_INSERT_RUN,
  RES_STMT_HEARTBEAT,
  RES_STMT_FINISH_RUN,
  RES_STMT_RUN_STATE,
  RES_STMT_INSERT_CANDIDATE,
  RES_STMT_GET_CANDIDATES,
  RES_STMT_INSERT_PREDICTION,
  RES_STMT_INSERT_MEASUREMENT,
  RES_STMT_INSERT_PHASE,
  RES_STMT_INSERT_VALIDATION,
  RES_STMT_INSERT_PROFILE,
  RES_STMT_UPSERT_PUBLISHED,
  RES_STMT_LATEST_PROFILE,
  RES_STMT_LATEST_PROFILE_ANY_HOST,
  RES_STMT_LIST_RUNS,
  RES_STMT_GET_RUN,
  RES_STMT_GET_PREDICTION,
  RES_STMT_GET_MEASUREMENT,
  RES_STMT_GET_PHASES,
  RES_STMT_GET_VALIDATIONS,
  RES_STMT_COUNT_PUBLISHED,
  RES_STMT_N,
} ResStmt;

struct ResStore {
  sqlite3      *db;
  char         *path;                 /* as given to res_store_open */
  char         *journal_mode;         /* "wal", "delete", "memory" */
  guint         busy_timeout_ms;      /* how long a writer waits for a lock */
  sqlite3_stmt *stmts[RES_STMT_N];
};

/* store-schema.c: migration i (0-based) brings user_version from i to i + 1. */
typedef struct {
  int         version;                /* user_version after it ran */
  const char *sql;                    /* one or more statements */
} ResMigration;

extern const ResMigration res_migrations[];
extern const guint res_n_migrations;
extern const char *const res_stmt_sql[RES_STMT_N];

/* Predictions and measurements share 20 metric columns (METRIC_NAMES in
 * store-schema.c), bound from ?2 and read from column 0. */
#define RES_N_METRIC_COLUMNS 20

/* A tag in PRAGMA application_id that marks tandem's files: ASCII "TNDM", chosen here
 * (https://sqlite.org/pragma.html#pragma_application_id; the number is ours). */
#define RES_APPLICATION_ID 0x544E444D

/* store.c */
sqlite3_stmt *res_store_stmt        (ResStore *store, ResStmt id, GError **error);
void          res_store_stmt_done   (sqlite3_stmt *stmt);
gboolean      res_store_set_error   (ResStore *store, int rc, const char *what,
                                     GError **error);
gboolean      res_store_begin       (ResStore *store, GError **error);
gboolean      res_store_commit      (ResStore *store, GError **error);
void          res_store_rollback    (ResStore *store);
/* Runs a statement that returns no rows; FALSE with error set otherwise. */
gboolean      res_store_step_done   (ResStore *store, sqlite3_stmt *stmt, const char *what,
                                     GError **error);

/* Binding helpers: NaN, NULL strings and negative "unknown" integers become NULL. */
void          res_bind_double       (sqlite3_stmt *stmt, int col, double v);
void          res_bind_text         (sqlite3_stmt *stmt, int col, const char *s);
void          res_bind_int_or_null  (sqlite3_stmt *stmt, int col, gint64 v, gint64 min);
