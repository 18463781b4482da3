/* cli/cmd-runs.c - `tandem runs`: the runs stored in the results database, newest first
 * (text, --csv or --json), and `tandem runs show N`: one stored run again (what it was,
 * its plan, the profile its cluster carried, predicted next to measured, its validation
 * rows or search candidates). Both open the store read-only: they work on a file or in a
 * directory nobody may write, and on a file of an older schema without migrating it. */
#include "cli/cli.h"
#include "util/input.h"
#include "util/output.h"
#include "cli/cli-store.h"
#include "cli/cli-table.h"
#include "results/store.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* RFC 4180, a formula kept as text (util_csv_field) */
static void
csv_field (GString *out, const char *v, gboolean last)
{
  util_csv_field (out, v);
  g_string_append (out, last ? "\r\n" : ",");
}

/* Decimals for a stored step in a table: three (milliseconds) down to 10 ms, then three
 * significant digits (a tiny model's 0.000617 s read 0.000), at most 9 */
static int
runs_decimals (double s)
{
  if (!(s > 0) || s >= 0.01)
    return 3;
  return MIN (9, 2 - (int) floor (log10 (s)));
}

static const char *
num_text (char *buf, gsize n, double v, const char *fmt)
{
  if (!isfinite (v))
    return NULL;
  g_snprintf (buf, n, fmt, v);
  return buf;
}

/* A step in seconds with its decimals (runs_decimals); NULL when not finite */
static const char *
seconds_text (char *buf, gsize n, double v)
{
  if (!isfinite (v))
    return NULL;
  g_snprintf (buf, n, "%.*f", runs_decimals (v), v);
  return buf;
}

static void
print_csv (GPtrArray *rows)
{
  static const char *const head[] = {
    "run_id", "created_at", "kind", "status", "model", "cluster", "framework", "world_size",
    "plan", "predicted_step_s", "measured_step_s", "flops_convention", "predicted_mfu",
    "measured_mfu", "predicted_hfu", "measured_hfu", "started_at", "finished_at", "error",
  };
  g_autoptr (GString) out = g_string_new (NULL);
  for (guint i = 0; i < G_N_ELEMENTS (head); i++)
    csv_field (out, head[i], i + 1 == G_N_ELEMENTS (head));
  for (guint i = 0; i < rows->len; i++)
    {
      const ResRunRow *r = g_ptr_array_index (rows, i);
      char id[32], ws[32], b[8][48];
      g_snprintf (id, sizeof id, "%" G_GINT64_FORMAT, r->run_id);
      g_snprintf (ws, sizeof ws, "%" G_GINT64_FORMAT, r->world_size);
      csv_field (out, id, FALSE);
      csv_field (out, r->created_at, FALSE);
      csv_field (out, res_run_kind_to_string (r->kind), FALSE);
      csv_field (out, res_run_status_to_string (r->status), FALSE);
      csv_field (out, r->model, FALSE);
      csv_field (out, r->cluster, FALSE);
      csv_field (out, r->framework, FALSE);
      csv_field (out, r->world_size > 0 ? ws : NULL, FALSE);
      csv_field (out, r->plan, FALSE);
      csv_field (out, num_text (b[0], 48, r->predicted_step_s, "%.17g"), FALSE);
      csv_field (out, num_text (b[1], 48, r->measured_step_s, "%.17g"), FALSE);
      csv_field (out, r->flops_convention, FALSE);
      csv_field (out, num_text (b[2], 48, r->predicted_mfu, "%.17g"), FALSE);
      csv_field (out, num_text (b[3], 48, r->measured_mfu, "%.17g"), FALSE);
      csv_field (out, num_text (b[4], 48, r->predicted_hfu, "%.17g"), FALSE);
      csv_field (out, num_text (b[5], 48, r->measured_hfu, "%.17g"), FALSE);
      csv_field (out, r->started_at, FALSE);
      csv_field (out, r->finished_at, FALSE);
      csv_field (out, r->error, TRUE);
    }
  fwrite (out->str, 1, out->len, stdout);
}

/* `name`: {"mfu": {convention: fraction}, "hfu": fraction} of one side of a listed run,
 * null where the run has no such side (nothing predicted, or nothing measured) */
static void
contract_side (JsonBuilder *b, const char *name, const char *mfu_json, double hfu,
               double step_s)
{
  json_builder_set_member_name (b, name);
  if (mfu_json == NULL && !isfinite (hfu) && !isfinite (step_s))
    {
      json_builder_add_null_value (b);
      return;
    }
  json_builder_begin_object (b);
  res_json_member_raw (b, "mfu", mfu_json);
  util_json_member_number (b, "hfu", hfu);
  json_builder_end_object (b);
}

static void
print_json (const char *path, GPtrArray *rows)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  util_json_member_string (b, "db", path);
  json_builder_set_member_name (b, "runs");
  json_builder_begin_array (b);
  for (guint i = 0; i < rows->len; i++)
    {
      const ResRunRow *r = g_ptr_array_index (rows, i);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "run_id");
      json_builder_add_int_value (b, r->run_id);
      util_json_member_string (b, "created_at", r->created_at);
      util_json_member_string (b, "kind", res_run_kind_to_string (r->kind));
      util_json_member_string (b, "status", res_run_status_to_string (r->status));
      util_json_member_string (b, "model", r->model);
      util_json_member_string (b, "cluster", r->cluster);
      util_json_member_string (b, "framework", r->framework);
      util_json_member_string (b, "plan", r->plan);
      /* unknown (a validate run of many sizes: NULL in the store) is null, as the CSV's
       * blank; it read 0 */
      json_builder_set_member_name (b, "world_size");
      if (r->world_size > 0)
        json_builder_add_int_value (b, r->world_size);
      else
        json_builder_add_null_value (b);
      util_json_member_number (b, "predicted_step_s", r->predicted_step_s);
      util_json_member_number (b, "measured_step_s", r->measured_step_s);
      util_json_member_string (b, "flops_convention", r->flops_convention);
      util_json_member_number (b, "predicted_mfu", r->predicted_mfu);
      util_json_member_number (b, "measured_mfu", r->measured_mfu);
      util_json_member_number (b, "predicted_hfu", r->predicted_hfu);
      util_json_member_number (b, "measured_hfu", r->measured_hfu);
      /* the flat predicted_mfu ... measured_hfu above stay (scripts read them, and the
       * CSV has the same columns); beside them the contract's shape (docs/contracts.md),
       * as runs show N --json gives it: mfu as the object by convention, hfu one number */
      contract_side (b, "predicted", r->mfu_json, r->predicted_hfu, r->predicted_step_s);
      contract_side (b, "measured", r->measured_mfu_json, r->measured_hfu,
                     r->measured_step_s);
      util_json_member_string (b, "started_at", r->started_at);
      util_json_member_string (b, "heartbeat_at", r->heartbeat_at);
      util_json_member_string (b, "finished_at", r->finished_at);
      util_json_member_string (b, "error", r->error);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  cli_print_json (b);
}

/* One line of text: newlines and tabs of a stored error become spaces, other controls
 * \xNN (printable), and a long one is cut at `max` characters with "...". */
static char *
one_line (const char *s, glong max)
{
  if (s == NULL)
    return g_strdup ("-");
  g_autofree char *spaced = g_strdelimit (g_strdup (s), "\r\n\t", ' ');
  g_autofree char *flat = cli_printable (spaced, NULL);
  if (g_utf8_strlen (flat, -1) <= max)
    return g_steal_pointer (&flat);
  g_autofree char *cut = g_utf8_substring (flat, 0, max - 3);
  return g_strconcat (cut, "...", NULL);
}

static void
print_text (const char *path, GPtrArray *rows)
{
  if (rows->len == 0)
    {
      printf ("(no runs stored in %s)\n", path);
      return;
    }
  g_autoptr (CliTable) t = cli_table_new ();
  static const struct { const char *head; CliAlign align; } cols[] = {
    { "run", CLI_ALIGN_RIGHT }, { "created (UTC)", CLI_ALIGN_LEFT },
    { "kind", CLI_ALIGN_LEFT }, { "status", CLI_ALIGN_LEFT }, { "model", CLI_ALIGN_LEFT },
    { "cluster", CLI_ALIGN_LEFT }, { "GPUs", CLI_ALIGN_RIGHT },
    { "predicted s", CLI_ALIGN_RIGHT }, { "measured s", CLI_ALIGN_RIGHT },
    { "plan", CLI_ALIGN_LEFT }, { "error", CLI_ALIGN_LEFT },
  };
  for (guint c = 0; c < G_N_ELEMENTS (cols); c++)
    cli_table_add_column (t, cols[c].head, cols[c].align);
  for (guint i = 0; i < rows->len; i++)
    {
      const ResRunRow *r = g_ptr_array_index (rows, i);
      char pred[32] = "-", meas[32] = "-";
      /* finite only, as --json and --csv write them (an edited Inf printed "inf"); a
       * short step with three significant digits (a tiny model's 0.0006 s read 0.000) */
      seconds_text (pred, sizeof pred, r->predicted_step_s);
      seconds_text (meas, sizeof meas, r->measured_step_s);
      g_autofree char *err = one_line (r->error, 60);
      g_autofree char *plan = one_line (r->plan, G_MAXLONG);
      g_autofree char *model = one_line (r->model, G_MAXLONG);
      g_autofree char *cluster = one_line (r->cluster, G_MAXLONG);
      cli_table_add_row (t);
      cli_table_cell (t, "%" G_GINT64_FORMAT, r->run_id);
      cli_table_cell (t, "%.19s", r->created_at ? r->created_at : "-");
      cli_table_cell (t, "%s", res_run_kind_to_string (r->kind));
      cli_table_cell (t, "%s", res_run_status_to_string (r->status));
      cli_table_cell (t, "%s", model);
      cli_table_cell (t, "%s", cluster);
      if (r->world_size > 0)
        cli_table_cell (t, "%" G_GINT64_FORMAT, r->world_size);
      else
        cli_table_cell (t, "-");   /* validate and search runs span many sizes */
      cli_table_cell (t, "%s", pred);
      cli_table_cell (t, "%s", meas);
      cli_table_cell (t, "%s", plan);
      cli_table_cell (t, "%s", err);
    }
  cli_table_print (t, stdout, "");
}

/* ---- runs show N ------------------------------------------------------------------- */

/* A term in the units of docs/contracts.md, as `report run` gives the same term
 * (results/report-run.c): fractions (0.21, not 21), seconds, bytes. The text table shows
 * fractions as percentages and bytes as GiB (term_text). */
typedef struct {
  const char *name, *unit;
  double pred, meas;
} Term;

static guint
record_terms (const ResRunRecord *r, Term *t)
{
  const ResMetrics *p = &r->pred, *m = &r->meas;
  guint n = 0;
  /* the exposed kinds in the contract's order, tp, cp, ep, pp, dp (ResComm's own order
   * puts ep last) */
  static const struct { const char *name; ResComm k; } comm[RES_COMM_N] = {
    { "exposed tp", RES_COMM_TP }, { "exposed cp", RES_COMM_CP },
    { "exposed ep", RES_COMM_EP }, { "exposed pp", RES_COMM_PP },
    { "exposed dp", RES_COMM_DP } };
  t[n++] = (Term) { "step time", "s", p->step_time_s, m->step_time_s };
  t[n++] = (Term) { "tokens/s", "tokens/s", p->tokens_per_s, m->tokens_per_s };
  t[n++] = (Term) { "TFLOP/s per GPU", "TFLOP/s", p->tflops_per_gpu, m->tflops_per_gpu };
  t[n++] = (Term) { "MFU", "fraction", p->mfu, m->mfu };
  t[n++] = (Term) { "HFU", "fraction", p->hfu, m->hfu };
  t[n++] = (Term) { "compute", "s", p->compute_s, m->compute_s };
  for (guint k = 0; k < RES_COMM_N; k++)
    t[n++] = (Term) { comm[k].name, "s", p->exposed_s[comm[k].k], m->exposed_s[comm[k].k] };
  /* "bubble" is the idle time in seconds, as report run gives it; the fraction of the
   * step is its own term (it was "bubble" in %, the same name in another unit) */
  t[n++] = (Term) { "bubble", "s", p->bubble_fraction * p->step_time_s,
                    m->bubble_fraction * m->step_time_s };
  t[n++] = (Term) { "bubble fraction", "fraction", p->bubble_fraction, m->bubble_fraction };
  t[n++] = (Term) { "overlap", "fraction", p->overlap_ratio, m->overlap_ratio };
  t[n++] = (Term) { "peak memory", "bytes",
                    p->peak_memory_bytes >= 0 ? (double) p->peak_memory_bytes : NAN,
                    m->peak_memory_bytes >= 0 ? (double) m->peak_memory_bytes : NAN };
  return n;
}

/* A term's value as the text table shows it: fractions in %, bytes in GiB, rates bare */
static void
term_text (char *buf, gsize n, const Term *t, double v)
{
  if (g_str_equal (t->unit, "fraction"))
    g_snprintf (buf, n, "%.4g %%", 100 * v);
  else if (g_str_equal (t->unit, "bytes"))
    g_snprintf (buf, n, "%.4g GiB", v / 1073741824.0);
  else if (g_str_equal (t->unit, "s"))
    g_snprintf (buf, n, "%.4g s", v);
  else
    g_snprintf (buf, n, "%.4g", v);
}

/* The cluster's "profile" member, if its JSON has one (a calibrated cluster). */
static JsonNode *
cluster_profile (const char *cluster_json)
{
  if (cluster_json == NULL)
    return NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, cluster_json, -1, NULL))
    return NULL;
  JsonNode *root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return NULL;
  JsonObject *o = json_node_get_object (root);
  return json_object_has_member (o, "profile")
         ? json_node_copy (json_object_get_member (o, "profile")) : NULL;
}

/* One line for a calibration profile (topology/profile.c's JSON): where and when it was
 * measured, on how many ranks, and how many rows each measured table holds; the tables
 * themselves are in `runs show N --json`. */
static char *
profile_summary (JsonNode *prof)
{
  if (!JSON_NODE_HOLDS_OBJECT (prof))
    return g_strdup ("(not an object)");
  JsonObject *o = json_node_get_object (prof);
  GString *s = g_string_new ("measured");
  const char *host = json_object_get_string_member_with_default (o, "host", NULL);
  const char *date = json_object_get_string_member_with_default (o, "date", NULL);
  if (host != NULL)
    g_string_append_printf (s, " on %s", host);
  if (date != NULL)
    g_string_append_printf (s, " at %s", date);
  gint64 ranks = json_object_get_int_member_with_default (o, "ranks", 0);
  if (ranks > 0)
    g_string_append_printf (s, ", %" G_GINT64_FORMAT " rank%s", ranks, ranks == 1 ? "" : "s");
  static const char *const tables[] = { "gemm", "collectives", "attention" };
  for (guint t = 0; t < G_N_ELEMENTS (tables); t++)
    {
      JsonNode *n = json_object_get_member (o, tables[t]);
      if (n != NULL && JSON_NODE_HOLDS_ARRAY (n))
        g_string_append_printf (s, ", %u %s rows", json_array_get_length (json_node_get_array (n)),
                                tables[t]);
    }
  JsonNode *c = json_object_get_member (o, "contention");
  if (c != NULL && JSON_NODE_HOLDS_OBJECT (c))
    {
      gint64 cores = json_object_get_int_member_with_default (json_node_get_object (c), "cores", 0);
      if (cores > 0)
        g_string_append_printf (s, ", contention measured on %" G_GINT64_FORMAT " core%s", cores,
                                cores == 1 ? "" : "s");
    }
  return g_string_free (s, FALSE);
}

static JsonNode *
parse_or_null (const char *text)
{
  if (text == NULL)
    return NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, text, -1, NULL))
    return NULL;
  return json_node_copy (json_parser_get_root (parser));
}

static void
show_json (const char *path, const ResRunRecord *r)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  util_json_member_string (b, "db", path);
  json_builder_set_member_name (b, "run_id");
  json_builder_add_int_value (b, r->run_id);
  util_json_member_string (b, "kind", res_run_kind_to_string (r->info.kind));
  util_json_member_string (b, "status", res_run_status_to_string (r->info.status));
  util_json_member_string (b, "created_at", r->created_at);
  util_json_member_string (b, "started_at", r->started_at);
  util_json_member_string (b, "heartbeat_at", r->heartbeat_at);
  util_json_member_string (b, "finished_at", r->finished_at);
  util_json_member_string (b, "tool_version", r->tool_version);
  util_json_member_string (b, "host", r->info.host);
  util_json_member_string (b, "model", r->info.model);
  util_json_member_string (b, "cluster", r->info.cluster);
  util_json_member_string (b, "framework", r->info.framework);
  util_json_member_string (b, "plan", r->info.plan);
  util_json_member_string (b, "note", r->info.note);
  util_json_member_string (b, "error", r->info.error);
  json_builder_set_member_name (b, "plan_json");
  JsonNode *plan = parse_or_null (r->info.plan_json);
  if (plan != NULL)
    json_builder_add_value (b, plan);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "profile");
  JsonNode *prof = cluster_profile (r->info.cluster_json);
  if (prof != NULL)
    json_builder_add_value (b, prof);
  else
    json_builder_add_null_value (b);
  Term t[32];
  guint n = record_terms (r, t);
  json_builder_set_member_name (b, "terms");
  json_builder_begin_array (b);
  for (guint i = 0; i < n; i++)
    {
      json_builder_begin_object (b);
      util_json_member_string (b, "term", t[i].name);
      util_json_member_string (b, "unit", t[i].unit);
      util_json_member_number (b, "predicted", r->has_prediction ? t[i].pred : NAN);
      util_json_member_number (b, "measured", r->has_measurement ? t[i].meas : NAN);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  /* MFU and HFU as a prediction's JSON has them (docs/contracts.md): the object by FLOP
   * convention and the one number, predicted and measured; the terms' MFU is the one
   * flops_convention names */
  util_json_member_string (b, "flops_convention",
                           r->has_prediction && r->pred.flops_convention != NULL
                           ? r->pred.flops_convention
                           : r->has_measurement ? r->meas.flops_convention : NULL);
  res_metrics_member (b, "predicted", r->has_prediction ? &r->pred : NULL);
  res_metrics_member (b, "measured", r->has_measurement ? &r->meas : NULL);
  json_builder_set_member_name (b, "validations");
  json_builder_begin_array (b);
  for (guint i = 0; i < r->validations->len; i++)
    {
      const ResValidationRow *v = &g_array_index (r->validations, ResValidationRow, i);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "row_id");
      json_builder_add_int_value (b, v->row_id);
      util_json_member_number (b, "predicted_step_s", v->predicted_step_s);
      util_json_member_number (b, "measured_step_s", v->measured_step_s);
      util_json_member_number (b, "err_pct", v->err_pct);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "candidates");
  json_builder_begin_array (b);
  for (guint i = 0; i < r->candidates->len; i++)
    {
      const ResSearchCandidate *k = &g_array_index (r->candidates, ResSearchCandidate, i);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "place");
      if (k->place > 0)
        json_builder_add_int_value (b, k->place);
      else
        json_builder_add_null_value (b);
      util_json_member_string (b, "plan", k->plan);
      /* the compact row as search_candidates holds it (issue 11: plan, degrees, step
       * time, tokens/s, MFU, peak memory, fits, place); unknown reads null */
      const struct { const char *name; gint64 v; } deg[] = {
        { "tp", k->tp }, { "cp", k->cp }, { "pp", k->pp }, { "vpp", k->vpp },
        { "dp", k->dp }, { "ep", k->ep }, { "mbs", k->mbs } };
      for (guint d = 0; d < G_N_ELEMENTS (deg); d++)
        {
          json_builder_set_member_name (b, deg[d].name);
          if (deg[d].v > 0)
            json_builder_add_int_value (b, deg[d].v);
          else
            json_builder_add_null_value (b);
        }
      util_json_member_string (b, "sharding", k->sharding);
      util_json_member_string (b, "recompute", k->recompute);
      util_json_member_string (b, "schedule", k->schedule);
      util_json_member_number (b, "step_time_s", k->step_time_s);
      util_json_member_number (b, "tokens_per_s", k->tokens_per_s);
      util_json_member_number (b, "mfu", k->mfu);
      util_json_member_number (b, "hfu", k->hfu);
      json_builder_set_member_name (b, "peak_memory_bytes");
      if (k->peak_memory_bytes >= 0)
        json_builder_add_int_value (b, k->peak_memory_bytes);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "fits");
      if (k->fits >= 0)
        json_builder_add_boolean_value (b, k->fits == 1);
      else
        json_builder_add_null_value (b);
      util_json_member_string (b, "flags", k->flags);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  cli_print_json (b);
}

/* Where an imported run's measured TFLOP/s per GPU came from (import-log's extra_json
 * "tflops_per_gpu"): the log's own figure or the plan's FLOPs over the logged step, and
 * the other one beside it; NULL for a run without it. */
static char *
tflops_source (const char *extra_json)
{
  if (extra_json == NULL)
    return NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, extra_json, -1, NULL))
    return NULL;
  JsonNode *root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return NULL;
  JsonObject *o = json_node_get_object (root);
  JsonNode *t = json_object_get_member (o, "tflops_per_gpu");
  if (t == NULL || !JSON_NODE_HOLDS_OBJECT (t))
    return NULL;
  JsonObject *to = json_node_get_object (t);
  const char *from = json_object_get_string_member_with_default (to, "measured_from", NULL);
  const char *conv = json_object_get_string_member_with_default (to, "flops_convention",
                                                                 "?");
  JsonNode *d = json_object_get_member (to, "derived");
  const double derived = d != NULL && JSON_NODE_HOLDS_VALUE (d)
                         ? json_node_get_double (d) : NAN;
  JsonNode *lg = json_object_get_member (to, "logged");
  const double logged = lg != NULL && JSON_NODE_HOLDS_VALUE (lg) ? json_node_get_double (lg)
                                                                 : NAN;
  /* the measured MFU and HFU are the plan's FLOPs over the logged step, as the step is:
   * where the log's own figure is far from that, said (the sample log's 400.9 against
   * 564.3 read as three errors that disagreed: TFLOP/s -18%, MFU -42%, step +72%) */
  if (g_strcmp0 (from, "logged") == 0 && isfinite (derived) && isfinite (logged)
      && logged > 0 && fabs (derived / logged - 1) > 0.05)
    return g_strdup_printf ("logged by the job (the median of the same intervals, %s "
                            "count); the plan's FLOPs over the logged step make %.1f, %+.0f%% "
                            "from it, and the measured MFU and HFU are those: the log counts "
                            "other FLOPs, or ran another model or plan than the flags say",
                            conv, derived, 100 * (derived / logged - 1));
  if (g_strcmp0 (from, "logged") == 0)
    return isfinite (derived)
           ? g_strdup_printf ("logged by the job (the median of the same intervals, %s "
                              "count); the plan's FLOPs over the logged step make %.1f, as "
                              "the measured MFU and HFU count", conv, derived)
           : g_strdup_printf ("logged by the job (the median of the same intervals, %s "
                              "count)", conv);
  if (g_strcmp0 (from, "derived") == 0)
    return g_strdup_printf ("derived: the plan's FLOPs (%s count) over the logged step "
                            "(the log states none)", conv);
  return NULL;
}

static void
show_text (const char *path, const ResRunRecord *r)
{
  const ResRunInfo *i = &r->info;
  g_autofree char *shown = cli_printable (path, NULL);
  printf ("run %" G_GINT64_FORMAT " in %s: %s, %s\n", r->run_id, shown,
          res_run_kind_to_string (i->kind), res_run_status_to_string (i->status));
  printf ("  %-12s %s (started %s, finished %s, last heartbeat %s)\n", "created",
          r->created_at, r->started_at ? r->started_at : "-",
          r->finished_at ? r->finished_at : "-", r->heartbeat_at ? r->heartbeat_at : "-");
  /* every stored string through printable: a user's text, never a terminal's command */
  const char *cont = "\n               ";   /* a note's or error's next line, indented */
  g_autofree char *host = cli_printable (i->host ? i->host : "-", NULL);
  g_autofree char *model = cli_printable (i->model ? i->model : "-", NULL);
  g_autofree char *cluster = cli_printable (i->cluster ? i->cluster : "-", NULL);
  g_autofree char *framework = i->framework ? cli_printable (i->framework, NULL) : NULL;
  g_autofree char *plan = cli_printable (i->plan ? i->plan : "-", NULL);
  g_autofree char *note = i->note ? cli_printable (i->note, cont) : NULL;
  g_autofree char *error = i->error ? cli_printable (i->error, cont) : NULL;
  printf ("  %-12s %s, tandem %s\n", "host", host, r->tool_version);
  g_autofree char *gpus = i->world_size > 0
                          ? g_strdup_printf (" (%" G_GINT64_FORMAT " GPUs)", i->world_size)
                          : g_strdup ("");
  printf ("  %-12s %s on %s%s%s%s\n", "model", model, cluster, gpus,
          framework ? ", stack " : "", framework ? framework : "");
  printf ("  %-12s %s\n", "plan", plan);
  if (note)
    printf ("  %-12s %s\n", "note", note);
  if (error)
    printf ("  %-12s %s\n", "error", error);
  g_autoptr (JsonNode) prof = cluster_profile (i->cluster_json);
  if (prof != NULL)
    {
      g_autofree char *text = profile_summary (prof);
      printf ("  %-12s %s (all of it: tandem runs show %" G_GINT64_FORMAT " --json)\n",
              "profile", text, r->run_id);
    }
  else
    printf ("  %-12s none (the cluster's preset figures)\n", "profile");

  if (r->has_prediction || r->has_measurement)
    {
      Term t[32];
      guint n = record_terms (r, t);
      g_autoptr (CliTable) tt = cli_table_new ();
      cli_table_add_column (tt, "term", CLI_ALIGN_LEFT);
      cli_table_add_column (tt, "predicted", CLI_ALIGN_RIGHT);
      cli_table_add_column (tt, "measured", CLI_ALIGN_RIGHT);
      cli_table_add_column (tt, "error", CLI_ALIGN_RIGHT);
      for (guint k = 0; k < n; k++)
        {
          double p = r->has_prediction ? t[k].pred : NAN;
          double m = r->has_measurement ? t[k].meas : NAN;
          if (isnan (p) && isnan (m))
            continue;
          char ps[32] = "-", ms[32] = "-", es[32] = "-";
          if (isfinite (p))
            term_text (ps, sizeof ps, &t[k], p);
          if (isfinite (m))
            term_text (ms, sizeof ms, &t[k], m);
          if (isfinite (p) && isfinite (m) && m != 0)
            g_snprintf (es, sizeof es, "%+.1f%%", 100 * (p - m) / m);
          cli_table_add_row (tt);
          cli_table_cell (tt, "%s", t[k].name);
          cli_table_cell (tt, "%s", g_strchomp (ps));
          cli_table_cell (tt, "%s", g_strchomp (ms));
          cli_table_cell (tt, "%s", es);
        }
      printf ("\n");
      cli_table_print (tt, stdout, "  ");
      if (r->has_prediction && r->pred.flops_convention)
        printf ("  (MFU in the %s convention)\n", r->pred.flops_convention);
      g_autofree char *tf = r->has_measurement ? tflops_source (r->meas.extra_json) : NULL;
      if (tf != NULL)
        printf ("  (measured TFLOP/s per GPU %s)\n", tf);
    }
  if (r->validations->len > 0)
    {
      g_autoptr (CliTable) vt = cli_table_new ();
      cli_table_add_column (vt, "row", CLI_ALIGN_RIGHT);
      cli_table_add_column (vt, "predicted s", CLI_ALIGN_RIGHT);
      cli_table_add_column (vt, "measured s", CLI_ALIGN_RIGHT);
      cli_table_add_column (vt, "err %", CLI_ALIGN_RIGHT);
      for (guint k = 0; k < r->validations->len; k++)
        {
          const ResValidationRow *v = &g_array_index (r->validations, ResValidationRow, k);
          char ps[32] = "-", ms[32] = "-", es[32] = "-";
          seconds_text (ps, sizeof ps, v->predicted_step_s);
          seconds_text (ms, sizeof ms, v->measured_step_s);
          num_text (es, sizeof es, v->err_pct, "%+.1f");
          cli_table_add_row (vt);
          cli_table_cell (vt, "%" G_GINT64_FORMAT, v->row_id);
          cli_table_cell (vt, "%s", ps);
          cli_table_cell (vt, "%s", ms);
          cli_table_cell (vt, "%s", es);
        }
      printf ("\n");
      cli_table_print (vt, stdout, "  ");
    }
  if (r->candidates->len > 0)
    {
      g_autoptr (CliTable) ct = cli_table_new ();
      cli_table_add_column (ct, "place", CLI_ALIGN_RIGHT);
      cli_table_add_column (ct, "plan", CLI_ALIGN_LEFT);
      cli_table_add_column (ct, "step s", CLI_ALIGN_RIGHT);
      cli_table_add_column (ct, "tokens/s", CLI_ALIGN_RIGHT);
      cli_table_add_column (ct, "MFU %", CLI_ALIGN_RIGHT);
      cli_table_add_column (ct, "peak GiB", CLI_ALIGN_RIGHT);
      cli_table_add_column (ct, "fits", CLI_ALIGN_LEFT);
      cli_table_add_column (ct, "flags", CLI_ALIGN_LEFT);
      for (guint k = 0; k < r->candidates->len; k++)
        {
          const ResSearchCandidate *c = &g_array_index (r->candidates, ResSearchCandidate, k);
          char place[16] = "-", step[32] = "-", mfu[32] = "-", tps[32] = "-", peak[32] = "-";
          if (c->place > 0)
            g_snprintf (place, sizeof place, "%" G_GINT64_FORMAT, c->place);
          seconds_text (step, sizeof step, c->step_time_s);
          if (isfinite (c->tokens_per_s) && c->tokens_per_s >= 0)
            g_strlcpy (tps, cli_fmt_count ((guint64) llround (c->tokens_per_s)), sizeof tps);
          num_text (mfu, sizeof mfu, c->mfu * 100, "%.1f");
          if (c->peak_memory_bytes >= 0)
            g_snprintf (peak, sizeof peak, "%.1f", (double) c->peak_memory_bytes / 1073741824.0);
          g_autofree char *plan = one_line (c->plan, G_MAXLONG);
          g_autofree char *flags = one_line (c->flags ? c->flags : "", G_MAXLONG);
          cli_table_add_row (ct);
          cli_table_cell (ct, "%s", place);
          cli_table_cell (ct, "%s", plan);
          cli_table_cell (ct, "%s", step);
          cli_table_cell (ct, "%s", tps);
          cli_table_cell (ct, "%s", mfu);
          cli_table_cell (ct, "%s", peak);
          cli_table_cell (ct, "%s", c->fits < 0 ? "-" : c->fits ? "yes" : "no");
          cli_table_cell (ct, "%s", flags);
        }
      printf ("\n");
      cli_table_print (ct, stdout, "  ");
    }
}

static int
runs_main (const CliDbArgs *dba, gint64 show, gboolean json, gboolean csv, int limit)
{
  g_autoptr (GError) error = NULL;
  if (!cli_db_args_check (dba, &error))
    return cli_fail (CLI_EXIT_USAGE, "%s", error->message);
  const char *path = cli_db_path (dba);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_autofree char *why = cli_db_missing_why (path);
      return cli_fail (CLI_EXIT_USAGE, "no results database at %s%s (hint: tandem predict "
                       "stores there, or pass --db FILE)", path, why);
    }
  g_autoptr (ResStore) store = cli_store_open (dba, TRUE, &error);
  if (store == NULL)
    return cli_fail (CLI_EXIT_FAILURE, "%s", error->message);
  if (show > 0)
    {
      g_autoptr (ResRunRecord) r = res_store_get_run (store, show, &error);
      if (r == NULL)
        return cli_fail (g_error_matches (error, RES_ERROR, RES_ERROR_NOT_FOUND)
                         ? CLI_EXIT_USAGE : CLI_EXIT_FAILURE,
                         "%s (hint: tandem runs lists the ids)", error->message);
      if (json)
        show_json (path, r);
      else
        show_text (path, r);
      return CLI_EXIT_OK;
    }
  g_autoptr (GPtrArray) rows = res_store_list_runs (store, (guint) limit, &error);
  if (rows == NULL)
    return cli_fail (CLI_EXIT_FAILURE, "%s", error->message);
  if (json)
    print_json (path, rows);
  else if (csv)
    print_csv (rows);
  else
    print_text (path, rows);
  return CLI_EXIT_OK;
}

int
cli_cmd_runs (int argc, char **argv)
{
  gboolean json = FALSE, csv = FALSE;
  int limit = 20;
  CliDbArgs dba;
  cli_db_args_init (&dba);
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Machine-readable output", NULL },
    { "csv", 0, 0, G_OPTION_ARG_NONE, &csv, "Comma-separated values (RFC 4180), one run a line",
      NULL },
    CLI_DB_ENTRIES (&dba),
    { "limit", 0, 0, G_OPTION_ARG_INT, &limit, "Newest N runs (0 = all; default 20)", "N" },
    { NULL },
  };
  g_autoptr (GOptionContext) octx = g_option_context_new ("[show N]");
  g_option_context_set_summary (octx, "List the runs stored in the results database, newest "
                                "first, or show one of them again (tandem runs show N). "
                                "Reads only: the database is opened read-only. A run whose "
                                "process stopped sending heartbeats reads as 'died'.");
  g_option_context_add_main_entries (octx, entries, NULL);
  g_autoptr (GError) error = NULL;
  int status = CLI_EXIT_OK;
  if (!cli_option_context_parse (octx, (const GOptionEntry *const[]) { entries, NULL }, &argc,
                                 &argv, &error))
    {
      status = cli_fail_options (octx, error, "tandem runs");
      goto out;
    }
  gint64 show = -1;
  if (argc >= 2 && g_str_equal (argv[1], "show"))
    {
      /* as report run reads N: digits only (' 2' and '+2' were taken), 1 to 2^63 - 1 (an
       * id past it saturated and was reported as "no run 9223372036854775807") */
      if (argc == 3 && !cli_run_id (argv[2], &show))
        {
          status = cli_fail (CLI_EXIT_USAGE, "runs show: '%s' is not a run id (a number from 1 "
                             "up) (hint: tandem runs lists the run ids)", argv[2]);
          goto out;
        }
      if (argc != 3)
        {
          status = cli_fail (CLI_EXIT_USAGE, "usage: tandem runs show N [--db FILE] [--json] "
                             "(N: a run id from tandem runs)");
          goto out;
        }
      /* the CSV is the list's (one run a line); dropping it printed the text page */
      if (csv)
        {
          status = cli_fail (CLI_EXIT_USAGE, "--csv lists the runs; runs show N prints one as "
                             "text or --json (hint: tandem runs --csv, or tandem runs show %"
                             G_GINT64_FORMAT " --json)", show);
          goto out;
        }
    }
  else if (limit < 0)
    {
      status = cli_fail (CLI_EXIT_USAGE, "--limit %d: the newest N runs, N >= 0 (0 = all) "
                         "(hint: tandem runs --limit 20)", limit);
      goto out;
    }
  else if (argc > 1 || limit < 0 || (json && csv))
    {
      status = cli_fail (CLI_EXIT_USAGE, "usage: tandem runs [show N] [--db FILE] [--limit N] "
                         "[--json | --csv]");
      goto out;
    }
  status = runs_main (&dba, show, json, csv, limit);
out:
  cli_db_args_clear (&dba);
  return status;
}
