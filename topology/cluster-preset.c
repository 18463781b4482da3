/* topology/cluster-preset.c - the presets compiled in as GResources, and lookup by name
 * or path.
 *
 * The presets are topology/presets/NAME.json, listed in topology.gresource.xml and stored
 * under /tandem/topology/. They are read through the generated
 * tandem_topology_get_resource () rather than the global resource registry, so that a
 * static link always keeps them (nothing else references the generated object file). */
#include "topology/cluster-private.h"

#include <string.h>

#include "topology-resources.h"

#define PRESET_DIR "/tandem/topology/"

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(char *const *) a, *(char *const *) b);
}

char **
topo_preset_names (void)
{
  g_auto (GStrv) children = g_resource_enumerate_children (tandem_topology_get_resource (),
                                                           PRESET_DIR,
                                                           G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  GPtrArray *names = g_ptr_array_new ();

  for (guint i = 0; children != NULL && children[i] != NULL; i++)
    if (g_str_has_suffix (children[i], ".json"))
      g_ptr_array_add (names, g_strndup (children[i], strlen (children[i]) - strlen (".json")));
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (names, FALSE);
}

static void
set_not_found (GError **error, const char *what)
{
  g_auto (GStrv) names = topo_preset_names ();
  g_autofree char *list = g_strjoinv (", ", names);

  g_set_error (error, TOPO_ERROR, TOPO_ERROR_NOT_FOUND, "%s (presets: %s)", what, list);
}

TopoCluster *
topo_cluster_load_preset (const char *name, GError **error)
{
  g_autofree char *stem = NULL;
  g_autofree char *path = NULL;
  g_autofree char *source = NULL;
  g_autoptr (GBytes) bytes = NULL;
  gsize size = 0;
  const char *data;

  g_return_val_if_fail (name != NULL, NULL);

  /* preset names are lower case; a name is matched regardless of case (H100-24K) */
  stem = g_str_has_suffix (name, ".json") ? g_ascii_strdown (name, strlen (name) - strlen (".json"))
                                          : g_ascii_strdown (name, -1);
  if (stem[0] != '\0' && strchr (stem, '/') == NULL)
    {
      path = g_strconcat (PRESET_DIR, stem, ".json", NULL);
      bytes = g_resource_lookup_data (tandem_topology_get_resource (), path,
                                      G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
    }
  if (bytes == NULL)
    {
      g_autofree char *what = g_strdup_printf ("no cluster preset named '%s'", name);

      set_not_found (error, what);
      return NULL;
    }
  data = g_bytes_get_data (bytes, &size);
  source = g_strconcat ("preset:", stem, NULL);
  return topo_cluster_new_from_data (data, (gssize) size, source, error);
}

TopoCluster *
topo_cluster_lookup (const char *name_or_path, GError **error)
{
  g_autoptr (GError) local = NULL;
  TopoCluster *cluster;

  g_return_val_if_fail (name_or_path != NULL, NULL);

  /* any file that exists, as a model is looked up: a process substitution (--cluster
   * <(...), a pipe) was "neither a cluster file nor a cluster preset", and a directory
   * was named as neither too */
  if (g_file_test (name_or_path, G_FILE_TEST_IS_DIR))
    {
      g_autofree char *what = g_strdup_printf ("'%s' is a directory, not a cluster file",
                                               name_or_path);
      set_not_found (error, what);
      return NULL;
    }
  if (g_file_test (name_or_path, G_FILE_TEST_EXISTS))
    return topo_cluster_load_file (name_or_path, error);
  cluster = topo_cluster_load_preset (name_or_path, &local);
  if (cluster == NULL)
    {
      if (g_error_matches (local, TOPO_ERROR, TOPO_ERROR_NOT_FOUND))
        {
          g_autofree char *what =
            g_strdup_printf ("'%s' is neither a cluster file nor a cluster preset", name_or_path);

          set_not_found (error, what);
        }
      else
        g_propagate_error (error, g_steal_pointer (&local));
    }
  return cluster;
}
