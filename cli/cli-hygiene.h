/* cli/cli-hygiene.h - whether a measurement can be trusted: the spread of repeated
 * measurements of one figure and the machine's load when they were taken.
 *
 * Contract:
 *  - The spread is (max - min) / median over the repetitions (a robust width: one slow
 *    repetition widens it, a noisy mean cannot hide it).
 *  - The load is the kernel's 1-minute load average (/proc/loadavg, field 1; the file named
 *    by TANDEM_LOADAVG_FILE instead, which tests use), with the cores this process may
 *    run on (g_get_num_processors).
 *  - A figure is flagged when the spread exceeds CLI_SPREAD_WARN or when others took
 *    more than half a core from the measurement's own processes. Where the kernel's count
 *    of the measurement's own wait is known (cli_spread_set_share: the share of a core
 *    its compute thread got while runnable, /proc/thread-self/schedstat over the
 *    measurement itself), that decides: e others' runnable threads beyond the free
 *    cores (cores - procs) share the procs busy ones, so each measuring thread gets
 *    procs / (procs + e) of a core, and e > 1/2 is share < procs / (procs + 1/2).
 *    Otherwise the load before it does: more than half a core of others' load beyond
 *    cores - procs. The 1-minute load average decays with a 60 s time constant, so
 *    the previous run's own processes hold it up for a minute or more (2 ranks: 2.0 ->
 *    0.5 takes 60 ln 4 = 83 s) though nothing runs: it names the load, the share decides.
 *    Never prints. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* 10%: the README's CPU run measured -3% against its prediction on a quiet machine and
 * +18% / +30% on a loaded one (issue 14); a spread above a tenth of the figure is as large
 * as the errors the validation reports for the best-fitting rows. */
#define CLI_SPREAD_WARN 0.10

typedef struct {
  int      n;
  double   min_s, median_s, max_s;
  double   spread;          /* (max - min) / median; 0 for one repetition */
  double   load1;           /* 1-minute load average before the measurement; < 0 unknown */
  int      cores;
  int      procs;           /* processes the measurement itself ran (ranks) */
  gboolean spread_high;     /* spread > CLI_SPREAD_WARN */
  gboolean loaded;          /* others competed for the cores the measurement's processes
                             * needed: share < procs / (procs + 0.5) where the share is
                             * known, else load1 > cores - procs + 0.5 */
  double   share;           /* share of a core the measuring thread got while runnable
                             * (cli_spread_set_share); 0 unknown */
} CliSpread;

/* The 1-minute load average, or -1 when it cannot be read. */
double cli_load_average (void);
/* Fills *out from n >= 1 repetitions (v is not modified) and the load measured before. */
void   cli_spread_compute (const double *v, int n, double load1, int procs, CliSpread *out);
/* The share of a core the measurement's compute thread got while runnable, over the
 * measurement (exec_sched_share); where it is in (0, 1] it decides `loaded` in place of
 * the load average (the contract above). Out of range: left unknown. */
void   cli_spread_set_share (CliSpread *s, double share);
/* share < procs / (procs + 1/2): more than half a core of others' threads competed. */
gboolean cli_share_loaded (double share, int procs);
/* One line per reason not to trust the figure (empty when there is none): the caller
 * prints each as "tandem: warning: LINE". `what` names the figure ("step time"); `hint`
 * says how to get a better one. */
GPtrArray *cli_spread_warnings (const CliSpread *s, const char *what, const char *hint);
/* {"repetitions", "min_s", "median_s", "max_s", "spread", "load_avg_1m", "cores",
 *  "trustworthy", "warnings": [...]} as a member `name` of the object being built. */
void   cli_spread_to_json (const CliSpread *s, const char *what, const char *hint,
                           const char *name, JsonBuilder *b);

G_END_DECLS
