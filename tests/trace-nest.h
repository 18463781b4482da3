/* tests/trace-nest.h - a trace's complete ('X') slices nest on every track: shared by the
 * tests that read traces tandem wrote (predicted and measured). */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>
#include <math.h>

typedef struct { gint64 start, end; } Slice;

static inline gint
slice_cmp (gconstpointer a, gconstpointer b)
{
  const Slice *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start ? 1
         : x->end > y->end ? -1 : x->end < y->end ? 1 : 0;
}

/* Complete ('X') slices of one track (pid, tid) nest or follow each other, never partly
 * overlap: Perfetto's JSON importer does not nest a partial overlap (its FAQ). In integer
 * nanoseconds, as the writer prints them (ts and dur with three decimals of a us): each
 * rounded on its own, a slice's end passed the next one's start by 1 ns on every track. */
static inline void
assert_tracks_nest (JsonArray *ev)
{
  g_autoptr (GHashTable) tracks = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                         (GDestroyNotify) g_array_unref);
  for (guint i = 0; i < json_array_get_length (ev); i++)
    {
      JsonObject *e = json_array_get_object_element (ev, i);
      if (!g_str_equal (json_object_get_string_member (e, "ph"), "X"))
        continue;
      gint64 *key = g_new (gint64, 1);
      *key = json_object_get_int_member (e, "pid") * 1000000 + json_object_get_int_member (e, "tid");
      GArray *a = g_hash_table_lookup (tracks, key);
      if (a == NULL)
        {
          a = g_array_new (FALSE, FALSE, sizeof (Slice));
          g_hash_table_insert (tracks, key, a);
        }
      else
        g_free (key);
      Slice sl;
      sl.start = llround (json_object_get_double_member (e, "ts") * 1000);
      sl.end = sl.start + llround (json_object_get_double_member (e, "dur") * 1000);
      g_array_append_val (a, sl);
    }
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init (&it, tracks);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      GArray *a = v;
      g_array_sort (a, slice_cmp);
      /* a stack of the open slices' ends */
      g_autoptr (GArray) open = g_array_new (FALSE, FALSE, sizeof (gint64));
      for (guint i = 0; i < a->len; i++)
        {
          Slice *sl = &g_array_index (a, Slice, i);
          while (open->len > 0 && g_array_index (open, gint64, open->len - 1) <= sl->start)
            g_array_set_size (open, open->len - 1);
          if (open->len > 0 && sl->end > g_array_index (open, gint64, open->len - 1))
            g_error ("track %" G_GINT64_FORMAT ": slice %" G_GINT64_FORMAT "..%" G_GINT64_FORMAT
                     " ns partly overlaps one ending at %" G_GINT64_FORMAT, *(gint64 *) k,
                     sl->start, sl->end, g_array_index (open, gint64, open->len - 1));
          g_array_append_val (open, sl->end);
        }
    }
}
