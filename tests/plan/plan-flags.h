/* tests/plan/plan-flags.h - a flag line parsed into a Plan as the tandem command line
 * parses it (plan_option_group_new), for tests that state plans in the user's words. */
#pragma once

#include "plan/plan.h"

/* Parses the space-separated `flags` into `plan` and `args` (the flags that are not plan
 * fields; plan_args_clear frees them); returns the parser's result. */
static G_GNUC_UNUSED gboolean
plan_flags_parse (Plan *plan, PlanArgs *args, const char *flags, GError **error)
{
  g_autofree char *line = g_strdup_printf ("tandem %s", flags);
  g_auto (GStrv) argv = g_strsplit (line, " ", -1);
  int argc = (int) g_strv_length (argv);
  /* the parser drops what it takes from the array it is given: a copy of the pointers,
   * so that argv still owns every string */
  g_autofree char **argv_parse = g_memdup2 (argv, sizeof (char *) * (guint) (argc + 1));
  char **parse = argv_parse;
  g_autoptr (GOptionContext) ctx = g_option_context_new (NULL);
  g_option_context_set_main_group (ctx, plan_option_group_new (plan, args));
  return g_option_context_parse (ctx, &argc, &parse, error);
}
