/* cli/cli-options.c - an option's value that is another option of the command.
 *
 * GOption gives an option that takes a value the next argument, whatever it is: `predict
 * --db --no-db` stored into a file named "--no-db", `--trace --json` wrote a trace named
 * "--json", and `report scaling --gpus --strong` said "say --strong or --weak", the flag
 * being --gpus's value. A value has to be typed with = to start like one of the command's
 * own options ("--db=--no-db"), so the forgotten value is named instead. */
#include "cli/cli.h"

#include <string.h>

/* The entry of `name` (without its dashes) in the tables, or NULL. */
static const GOptionEntry *
find_long (const GOptionEntry *const *tables, const char *name, gsize len)
{
  for (guint t = 0; tables[t] != NULL; t++)
    for (const GOptionEntry *e = tables[t]; e->long_name != NULL; e++)
      if (strlen (e->long_name) == len && strncmp (e->long_name, name, len) == 0)
        return e;
  return NULL;
}

static const GOptionEntry *
find_short (const GOptionEntry *const *tables, char c)
{
  for (guint t = 0; tables[t] != NULL; t++)
    for (const GOptionEntry *e = tables[t]; e->long_name != NULL; e++)
      if (e->short_name != '\0' && e->short_name == c)
        return e;
  return NULL;
}

/* GOption's rule (goption.c, parse_long_option): a callback takes the next argument
 * unless it has NO_ARG, and OPTIONAL_ARG takes one only after = */
static gboolean
takes_value (const GOptionEntry *e)
{
  if (e->arg == G_OPTION_ARG_NONE)
    return FALSE;
  if (e->arg == G_OPTION_ARG_CALLBACK)
    return (e->flags & (G_OPTION_FLAG_NO_ARG | G_OPTION_FLAG_OPTIONAL_ARG)) == 0;
  return TRUE;
}

/* Whether `word` reads as one of the command's options: a long name of the tables
 * (hidden aliases too) with or without "=VALUE", one of GOption's help options, or
 * "-X" for a short one. "-5" and "-" are values. */
static gboolean
is_option (const GOptionEntry *const *tables, const char *word)
{
  if (g_str_has_prefix (word, "--"))
    {
      const char *name = word + 2;
      gsize len = strcspn (name, "=");
      if (len == 0)
        return FALSE;
      if (find_long (tables, name, len) != NULL)
        return TRUE;
      static const char *const help[] = { "help", "help-all", "help-plan", "help-model" };
      for (guint i = 0; i < G_N_ELEMENTS (help); i++)
        if (strlen (help[i]) == len && strncmp (help[i], name, len) == 0)
          return TRUE;
      return FALSE;
    }
  if (word[0] == '-' && word[1] != '\0' && word[2] == '\0')
    return word[1] == 'h' || word[1] == '?' || find_short (tables, word[1]) != NULL;
  return FALSE;
}

gboolean
cli_options_check_values (const GOptionEntry *const *tables, int argc, char **argv,
                          GError **error)
{
  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i];
      if (g_str_equal (a, "--"))
        break;                  /* GOption's end of options */
      const GOptionEntry *e = NULL;
      if (g_str_has_prefix (a, "--") && strchr (a, '=') == NULL)
        e = find_long (tables, a + 2, strlen (a + 2));
      else if (a[0] == '-' && a[1] != '-' && a[1] != '\0' && a[2] == '\0')
        e = find_short (tables, a[1]);
      if (e == NULL || !takes_value (e) || i + 1 >= argc)
        continue;
      const char *v = argv[++i];
      if (!is_option (tables, v))
        continue;
      /* a file, a name or free text may start with dashes, given with =; a number, a
       * list or a choice may not */
      const char *what = e->arg_description != NULL ? e->arg_description : "VALUE";
      const gboolean file = e->arg == G_OPTION_ARG_FILENAME
                            || e->arg == G_OPTION_ARG_FILENAME_ARRAY
                            || strstr (what, "FILE") != NULL || strstr (what, "DIR") != NULL;
      const gboolean text = file || ((e->arg == G_OPTION_ARG_STRING
                                      || e->arg == G_OPTION_ARG_STRING_ARRAY)
                                     && (strstr (what, "TEXT") != NULL
                                         || strstr (what, "NAME") != NULL));
      g_autofree char *eq = text ? g_strdup_printf (", or %s=%s for %s", a, v,
                                                    file ? "a file of that name"
                                                         : "that very text")
                                 : g_strdup ("");
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "missing value for %s (the next argument, %s, is an option; hint: %s %s%s)",
                   a, v, a, what, eq);
      return FALSE;
    }
  return TRUE;
}

gboolean
cli_option_context_parse (GOptionContext *octx, const GOptionEntry *const *tables,
                          int *argc, char ***argv, GError **error)
{
  if (!cli_options_check_values (tables, *argc, *argv, error))
    return FALSE;
  return g_option_context_parse (octx, argc, argv, error);
}
