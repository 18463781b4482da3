/* tests/results/shipped-csv.h - the repository's data/published-runs.csv for the tests that
 * read the shipped rows. */
#pragma once

#include "results/published.h"

/* data/published-runs.csv, found from the source root (TANDEM_SOURCE_ROOT, set by
 * tests/meson.build); it is part of the tree, so a missing file fails the test with the
 * loader's message rather than skipping it. */
static G_GNUC_UNUSED ResCsv *
shipped_csv (void)
{
  const char *root = g_getenv ("TANDEM_SOURCE_ROOT");
  g_assert_nonnull (root);
  g_autofree char *path = g_build_filename (root, "data", "published-runs.csv", NULL);
  g_autoptr (GError) error = NULL;
  ResCsv *csv = res_csv_load (path, &error);
  g_assert_no_error (error);
  return csv;
}
