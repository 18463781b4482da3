/* tests/cli/test-validate-input.c - issue 13 items 5-6 as a user meets them: validate's
 * input refused with a reason (a CSV without a column every row needs), --ranking in the
 * JSON as in the text.
 * TANDEM_EXE (set by tests/cli/meson.build) is the binary under test; "{DATA}" in the
 * arguments is tests/data, "{SRC}" the source root and "{TMP}" a temporary directory. */
#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>

#include "cli-run.h"

static JsonNode *
parse (const char *text)
{
  g_autoptr (JsonParser) p = json_parser_new ();
  g_autoptr (GError) error = NULL;
  if (!json_parser_load_from_data (p, text, -1, &error) || json_parser_get_root (p) == NULL)
    g_error ("not JSON (%s): %s", error ? error->message : "empty", text);
  return json_node_copy (json_parser_get_root (p));
}

/* --ranking --json carries what --ranking prints: the same five counts as the text's
 * line "N groups, P pairs, O ordered as measured (...); measured more than 5% apart: W
 * pairs, V ordered", and one entry per "out of order" line. Before, --json dropped the
 * ranking silently. */
static void
test_ranking_json (void)
{
  RunResult t = { 0 }, j = { 0 };
  run_tandem ("validate {SRC}/data/published-runs.csv --no-db --ranking", &t);
  g_assert_cmpint (t.status, ==, 0);
  run_tandem ("validate {SRC}/data/published-runs.csv --no-db --ranking --json", &j);
  g_assert_cmpint (j.status, ==, 0);
  const char *line = strstr (t.out, "\nranking (");
  g_assert_nonnull (line);
  line = strchr (line + 1, '\n') + 1;
  guint groups, pairs, ordered, wide, wide_ordered;
  g_assert_cmpint (sscanf (line, " %u groups, %u pairs, %u ordered as measured (%*[^)]); "
                           "measured more than 5%% apart: %u pairs, %u ordered", &groups,
                           &pairs, &ordered, &wide, &wide_ordered), ==, 5);
  guint out_of_order = 0;
  for (const char *p = strstr (line, "  out of order: "); p != NULL;
       p = strstr (p + 1, "  out of order: "))
    out_of_order++;

  g_autoptr (JsonNode) root = parse (j.out);
  JsonObject *o = json_node_get_object (root);
  g_assert_true (json_object_has_member (o, "ranking"));
  JsonObject *rk = json_object_get_object_member (o, "ranking");
  g_assert_cmpint (json_object_get_int_member (rk, "groups"), ==, groups);
  g_assert_cmpint (json_object_get_int_member (rk, "pairs"), ==, pairs);
  g_assert_cmpint (json_object_get_int_member (rk, "ordered"), ==, ordered);
  g_assert_cmpint (json_object_get_int_member (rk, "pairs_apart_5pct"), ==, wide);
  g_assert_cmpint (json_object_get_int_member (rk, "ordered_apart_5pct"), ==, wide_ordered);
  g_assert_cmpint (json_array_get_length (json_object_get_array_member (rk, "out_of_order")),
                   ==, out_of_order);
  g_assert_cmpuint (groups, >, 0);
  run_result_clear (&t);
  run_result_clear (&j);

  /* without --ranking the JSON has none (the text has none either) */
  run_tandem ("validate {SRC}/data/published-runs.csv --no-db --json --only 2", &j);
  g_autoptr (JsonNode) plain = parse (j.out);
  g_assert_false (json_object_has_member (json_node_get_object (plain), "ranking"));
  run_result_clear (&j);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/validate-input/ranking-json", test_ranking_json);
  return g_test_run ();
}
