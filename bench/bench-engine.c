/* bench/bench-engine.c - event rate of the discrete-event engine (sim/engine.h).
 *
 * Hold model (Jones 1986, "An empirical comparison of priority-queue and event-set
 * implementations", CACM 29(4)): the queue is filled with `pending` events, then each
 * handler schedules exactly one new event at now + U[0, 2 us), so the pending count stays
 * constant while `events` handlers fire. Every handler checks that events arrive in
 * (time, scheduling order), and the fired count is checked after the run (nccl-tests'
 * #wrong); an untimed pass at each size runs the same checks before timing.
 *
 * Each row is the best of --reps timed runs (the machine is shared; the fastest run is
 * the one least disturbed).
 *
 *   bench-engine [--json] [--events N] [--reps R] [--seed S] [--pending P]
 */
#include "sim/engine.h"

#include <json-glib/json-glib.h>
#include <stdio.h>
#include <stdlib.h>

/* Mean delay 1 us = 10^6 ps; the uniform range is twice that. The value only sets how
 * often times tie, which is rare at this spread. */
#define DELAY_RANGE_PS G_GUINT64_CONSTANT (2000000)
#define CHECK_EVENTS G_GUINT64_CONSTANT (200000)

typedef struct {
  guint64 token;              /* schedule counter: increases with the engine's sequence */
  guint64 spare;              /* makes the payload 16 bytes, a typical small record */
} HoldPayload;

typedef struct {
  guint64 remaining;          /* handlers left to fire before stopping */
  guint64 next_token;
  SimTime last_time;          /* ps */
  guint64 last_token;
  guint64 wrong;              /* events out of (time, sequence) order */
} Hold;

static void
hold_fire (SimEngine *engine, void *target, const void *payload)
{
  Hold *hold = target;
  const HoldPayload *p = payload;
  SimTime now = sim_engine_now (engine);
  HoldPayload next;

  hold->wrong += now < hold->last_time
                 || (now == hold->last_time && p->token <= hold->last_token);
  hold->last_time = now;
  hold->last_token = p->token;
  if (--hold->remaining == 0)
    sim_engine_stop (engine);
  next.token = hold->next_token++;
  next.spare = p->token;
  sim_engine_schedule (engine, sim_engine_random_u64 (engine) % DELAY_RANGE_PS, hold_fire,
                       hold, &next, sizeof next);
}

typedef struct {
  guint64 pending;
  guint64 events;             /* per timed run */
  double  seconds;            /* best timed run */
  guint64 wrong;              /* order violations and count mismatches, all runs */
} Row;

/* Fires hold->remaining events; returns the seconds it took. */
static double
hold_fire_n (SimEngine *engine, Hold *hold, guint64 n)
{
  g_autoptr (GError) error = NULL;
  guint64 fired = sim_engine_n_fired (engine);
  gint64 t0, t1;

  hold->remaining = n;
  t0 = g_get_monotonic_time ();
  if (!sim_engine_run (engine, SIM_TIME_MAX, &error))
    {
      fprintf (stderr, "bench-engine: %s\n", error->message);
      exit (1);
    }
  t1 = g_get_monotonic_time ();
  /* exactly n handlers ran, and each one (the stopping one too) scheduled one event */
  hold->wrong += sim_engine_n_fired (engine) - fired != n;
  return (double) (t1 - t0) / G_USEC_PER_SEC;
}

/* One row: fill the queue, run an untimed check pass (which also brings the queue to
 * its steady state), then `reps` timed runs on the same engine. */
static void
hold_row (guint64 seed, guint64 pending, guint64 events, gint64 reps, Row *row)
{
  g_autoptr (SimEngine) engine = sim_engine_new (seed);
  Hold hold = { .next_token = 1 };

  for (guint64 i = 0; i < pending; i++)
    {
      HoldPayload p = { hold.next_token++, 0 };
      sim_engine_schedule (engine, sim_engine_random_u64 (engine) % DELAY_RANGE_PS,
                           hold_fire, &hold, &p, sizeof p);
    }
  hold_fire_n (engine, &hold, CHECK_EVENTS);

  row->pending = pending;
  row->events = events;
  row->seconds = G_MAXDOUBLE;
  for (gint64 r = 0; r < reps; r++)
    row->seconds = MIN (row->seconds, hold_fire_n (engine, &hold, events));
  hold.wrong += sim_engine_n_pending (engine) != pending;
  row->wrong = hold.wrong;
}

int
main (int argc, char **argv)
{
  static const guint64 default_sizes[] = { 1000, 10000, 100000, 1000000 };
  const guint64 *sizes = default_sizes;
  guint n_rows = G_N_ELEMENTS (default_sizes);
  guint64 only_size;
  gboolean json = FALSE;
  gint64 events = 1000000;
  gint64 reps = 3;
  gint64 seed = 1;
  gint64 only = 0;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print rows as JSON", NULL },
    { "events", 0, 0, G_OPTION_ARG_INT64, &events, "Events per timed run (1000000)", "N" },
    { "reps", 0, 0, G_OPTION_ARG_INT64, &reps, "Timed runs per row, best kept (3)", "R" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "Engine seed (1)", "S" },
    { "pending", 0, 0, G_OPTION_ARG_INT64, &only, "Only this pending count", "P" },
    { NULL },
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("- discrete-event engine rate");
  g_autoptr (GError) error = NULL;
  Row rows[G_N_ELEMENTS (default_sizes)];
  guint64 total_wrong = 0;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "bench-engine: %s\n", error->message);
      return 2;
    }
  if (events < 1 || reps < 1 || only < 0 || only >= SIM_ENGINE_MAX_QUEUED)
    {
      fprintf (stderr, "bench-engine: --events and --reps must be at least 1, --pending "
               "below %u\n", SIM_ENGINE_MAX_QUEUED);
      return 2;
    }
  if (only > 0)
    {
      only_size = (guint64) only;
      sizes = &only_size;
      n_rows = 1;
    }

  if (!json)
    {
      printf ("# engine, hold model: each event schedules one at now + U[0, 2 us), "
              "16-byte payload, seed %" G_GINT64_FORMAT ", best of %" G_GINT64_FORMAT
              "\n", seed, reps);
      printf ("# %9s %10s %9s %10s %7s\n", "pending", "events", "seconds", "Mevents/s",
              "#wrong");
    }
  for (guint i = 0; i < n_rows; i++)
    {
      Row *row = &rows[i];

      hold_row ((guint64) seed, sizes[i], (guint64) events, reps, row);
      total_wrong += row->wrong;
      if (!json)
        printf ("  %9" G_GUINT64_FORMAT " %10" G_GUINT64_FORMAT " %9.3f %10.2f %7"
                G_GUINT64_FORMAT "\n", row->pending, row->events, row->seconds,
                row->events / row->seconds / 1e6, row->wrong);
    }

  if (json)
    {
      g_autoptr (JsonBuilder) b = json_builder_new ();
      g_autoptr (JsonGenerator) gen = json_generator_new ();
      g_autoptr (JsonNode) root = NULL;
      g_autofree char *text = NULL;

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "benchmark");
      json_builder_add_string_value (b, "engine-hold");
      json_builder_set_member_name (b, "seed");
      json_builder_add_int_value (b, seed);
      json_builder_set_member_name (b, "reps");
      json_builder_add_int_value (b, reps);
      json_builder_set_member_name (b, "rows");
      json_builder_begin_array (b);
      for (guint i = 0; i < n_rows; i++)
        {
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "pending");
          json_builder_add_int_value (b, (gint64) rows[i].pending);
          json_builder_set_member_name (b, "events");
          json_builder_add_int_value (b, (gint64) rows[i].events);
          json_builder_set_member_name (b, "seconds");
          json_builder_add_double_value (b, rows[i].seconds);
          json_builder_set_member_name (b, "mevents_per_s");
          json_builder_add_double_value (b, rows[i].events / rows[i].seconds / 1e6);
          json_builder_set_member_name (b, "wrong");
          json_builder_add_int_value (b, (gint64) rows[i].wrong);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
      root = json_builder_get_root (b);
      json_generator_set_root (gen, root);
      json_generator_set_pretty (gen, TRUE);
      text = json_generator_to_data (gen, NULL);
      printf ("%s\n", text);
    }
  return total_wrong == 0 ? 0 : 1;
}
