/* models/model-presets.c - shipped presets (GResource /tandem/models/NAME.json) and
 * model_spec_lookup, which accepts a file, a directory holding config.json, or a name. */
#include "models/model.h"
#include "models-resources.h"

#include <gio/gio.h>
#include <string.h>

#define PRESET_PREFIX "/tandem/models/"

/* Other spellings people use for the same preset. */
static const struct {
  const char *alias;
  const char *name;
} aliases[] = {
  { "llama3.1-8b", "llama3-8b" },
  { "llama3.1-70b", "llama3-70b" },
  { "llama3.1-405b", "llama3-405b" },
};

/* The resource object is taken from the generated file rather than from the global
 * registry: a static library drops the generated object (and its constructor) unless a
 * symbol of it is referenced. */
static GResource *
presets_resource (void)
{
  return tandem_models_get_resource ();
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

char **
model_preset_names (void)
{
  g_auto (GStrv) children = g_resource_enumerate_children (presets_resource (), PRESET_PREFIX,
                                                           G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  GPtrArray *names = g_ptr_array_new ();
  for (guint i = 0; children != NULL && children[i] != NULL; i++)
    if (g_str_has_suffix (children[i], ".json"))
      g_ptr_array_add (names, g_strndup (children[i],
                                         strlen (children[i]) - strlen (".json")));
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (names, FALSE);
}

/* `what` as the user gave it (the preset lookup folds case; a path was shown folded) */
static gboolean
set_not_found (const char *what, GError **error)
{
  if (strchr (what, '/') != NULL)
    {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_NOT_FOUND,
                   "no model config file '%s': no such file (hint: a config.json, its "
                   "folder, or a preset: tandem show models)", what);
      return FALSE;
    }
  g_auto (GStrv) names = model_preset_names ();
  g_autofree char *list = g_strjoinv (", ", names);
  g_set_error (error, MODEL_ERROR, MODEL_ERROR_NOT_FOUND,
               "no model preset or config file '%s'; presets: %s", what, list);
  return FALSE;
}

ModelSpec *
model_spec_load_preset (const char *name, GError **error)
{
  g_return_val_if_fail (name != NULL, NULL);
  /* preset names are lower case; a name is matched regardless of case (Llama3-8B is
   * llama3-8b), as published-run matching reads device and model names */
  const char *given = name;
  g_autofree char *lower = g_ascii_strdown (name, -1);
  name = lower;
  for (gsize i = 0; i < G_N_ELEMENTS (aliases); i++)
    if (strcmp (aliases[i].alias, name) == 0)
      name = aliases[i].name;

  /* A name with a slash would reach outside the preset folder of the resource. */
  if (strchr (name, '/') != NULL || *name == '\0')
    {
      set_not_found (given, error);
      return NULL;
    }
  g_autofree char *path = g_strconcat (PRESET_PREFIX, name, ".json", NULL);
  g_autoptr (GBytes) bytes = g_resource_lookup_data (presets_resource (), path,
                                                     G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  if (bytes == NULL)
    {
      set_not_found (given, error);
      return NULL;
    }
  gsize len = 0;
  const char *text = g_bytes_get_data (bytes, &len);
  g_autofree char *source = g_strconcat ("preset:", name, NULL);
  return model_spec_new_from_data (text, (gssize) len, source, error);
}

ModelSpec *
model_spec_lookup (const char *name_or_path, GError **error)
{
  g_return_val_if_fail (name_or_path != NULL, NULL);
  if (g_file_test (name_or_path, G_FILE_TEST_IS_DIR))
    {
      g_autofree char *config = g_build_filename (name_or_path, "config.json", NULL);
      if (!g_file_test (config, G_FILE_TEST_IS_REGULAR))
        {
          g_set_error (error, MODEL_ERROR, MODEL_ERROR_NOT_FOUND,
                       "%s: directory holds no config.json", name_or_path);
          return NULL;
        }
      return model_spec_load_file (config, error);
    }
  if (g_file_test (name_or_path, G_FILE_TEST_EXISTS))
    return model_spec_load_file (name_or_path, error);
  return model_spec_load_preset (name_or_path, error);
}
