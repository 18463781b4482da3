/* tests/sim/test-engine.c - ordering, cancel, payload and run invariants of sim/engine.h.
 *
 * Seeded tests print their seed; set TANDEM_TEST_SEED to replay another one. No test
 * reads the wall clock. setup()/teardown() create and free the fixture; record_int()
 * appends *payload to the GArray passed as target, record_fire() appends a Fire. */
#include "sim/engine.h"

#include <math.h>
#include <string.h>

static guint64 test_seed = G_GUINT64_CONSTANT (20240611);

typedef struct {
  SimEngine *engine;
  GArray    *fired;           /* int: what record_int saw */
} Fixture;

typedef struct {
  SimTime time;               /* ps */
  guint64 tag;                /* schedule counter of the test, follows the sequence */
} Fire;

static void
setup (Fixture *f, gconstpointer data)
{
  f->engine = sim_engine_new (test_seed);
  f->fired = g_array_new (FALSE, FALSE, sizeof (int));
}

static void
teardown (Fixture *f, gconstpointer data)
{
  g_clear_pointer (&f->engine, sim_engine_free);
  g_clear_pointer (&f->fired, g_array_unref);
}

static void
record_int (SimEngine *engine, void *target, const void *payload)
{
  g_array_append_vals (target, payload, 1);
}

/* Test-local splitmix64, so scripts do not depend on the engine's own stream. */
static guint64
test_rand (guint64 *state)
{
  guint64 z = (*state += G_GUINT64_CONSTANT (0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
  return z ^ (z >> 31);
}

/* Equal timestamps fire in scheduling order (engine contract). */
static void
test_tie_order (Fixture *f, gconstpointer data)
{
  for (int i = 0; i < 3; i++)
    sim_engine_schedule (f->engine, 10, record_int, f->fired, &i, sizeof i);
  g_assert_true (sim_engine_run (f->engine, SIM_TIME_MAX, NULL));
  /* three events, all at t = 10 ps, scheduled as 0, 1, 2: they fire as 0, 1, 2 */
  g_assert_cmpuint (f->fired->len, ==, 3);
  for (int i = 0; i < 3; i++)
    g_assert_cmpint (g_array_index (f->fired, int, i), ==, i);
  g_assert_cmpuint (sim_engine_now (f->engine), ==, 10);
}

static void
record_fire (SimEngine *engine, void *target, const void *payload)
{
  Fire fire = { sim_engine_now (engine), *(const guint64 *) payload };
  g_array_append_val (target, fire);
}

/* Random delays (many ties) come out sorted by (time, scheduling order). */
static void
test_time_order (Fixture *f, gconstpointer data)
{
  g_autoptr (GArray) fires = g_array_new (FALSE, FALSE, sizeof (Fire));
  guint64 state = test_seed;
  const guint64 n = 20000;

  g_test_message ("seed %" G_GUINT64_FORMAT, test_seed);
  for (guint64 i = 0; i < n; i++)
    {
      /* delays in [0, 1000) ps for 20,000 events: about 20 per distinct time */
      SimTime delay = test_rand (&state) % 1000;
      sim_engine_schedule (f->engine, delay, record_fire, fires, &i, sizeof i);
    }
  g_assert_cmpuint (sim_engine_n_pending (f->engine), ==, n);
  g_assert_true (sim_engine_run (f->engine, SIM_TIME_MAX, NULL));
  g_assert_cmpuint (fires->len, ==, n);
  g_assert_cmpuint (sim_engine_n_fired (f->engine), ==, n);
  g_assert_cmpuint (sim_engine_n_pending (f->engine), ==, 0);
  for (guint i = 1; i < fires->len; i++)
    {
      const Fire *a = &g_array_index (fires, Fire, i - 1);
      const Fire *b = &g_array_index (fires, Fire, i);
      g_assert_true (a->time < b->time || (a->time == b->time && a->tag < b->tag));
    }
}

/* Cancel is lazy and answers TRUE once, only for a pending event. */
static void
test_cancel (Fixture *f, gconstpointer data)
{
  guint64 ids[3];

  for (int i = 0; i < 3; i++)
    ids[i] = sim_engine_schedule (f->engine, 10 * (i + 1), record_int, f->fired, &i,
                                  sizeof i);
  g_assert_cmpuint (ids[0], !=, 0);
  g_assert_cmpuint (ids[0], !=, ids[1]);
  g_assert_true (sim_engine_cancel (f->engine, ids[1]));
  g_assert_false (sim_engine_cancel (f->engine, ids[1]));        /* double cancel */
  /* 3 scheduled, 1 cancelled: 2 pending */
  g_assert_cmpuint (sim_engine_n_pending (f->engine), ==, 2);

  g_assert_true (sim_engine_run (f->engine, SIM_TIME_MAX, NULL));
  /* events at 10 and 30 ps fire; the one at 20 ps was cancelled */
  g_assert_cmpuint (f->fired->len, ==, 2);
  g_assert_cmpint (g_array_index (f->fired, int, 0), ==, 0);
  g_assert_cmpint (g_array_index (f->fired, int, 1), ==, 2);
  g_assert_cmpuint (sim_engine_n_fired (f->engine), ==, 2);
  g_assert_false (sim_engine_cancel (f->engine, ids[0]));        /* after fire */
  g_assert_false (sim_engine_cancel (f->engine, ids[2]));
  g_assert_false (sim_engine_cancel (f->engine, 0));             /* never an id */
  g_assert_false (sim_engine_cancel (f->engine, ids[2] + 1));    /* never issued */
  g_assert_false (sim_engine_cancel (f->engine, G_MAXUINT64));

  /* Ids are not reused even when slots are: a new event gets a fresh id, and the old id
   * (same slot, older sequence) still answers FALSE. */
  {
    int x = 7;
    guint64 id = sim_engine_schedule (f->engine, 1, record_int, f->fired, &x, sizeof x);
    for (int i = 0; i < 3; i++)
      g_assert_cmpuint (id, !=, ids[i]);
    g_assert_false (sim_engine_cancel (f->engine, ids[2]));
    g_assert_true (sim_engine_cancel (f->engine, id));
  }
}

/* Many cancels: the tombstones are dropped (compaction) and the survivors still fire in
 * order. */
static void
test_cancel_many (Fixture *f, gconstpointer data)
{
  g_autoptr (GArray) fires = g_array_new (FALSE, FALSE, sizeof (Fire));
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint64 state = test_seed ^ 0x5555;
  guint64 n_cancelled = 0;

  g_test_message ("seed %" G_GUINT64_FORMAT, test_seed);
  for (guint64 i = 0; i < 10000; i++)
    {
      guint64 id = sim_engine_schedule (f->engine, test_rand (&state) % 100000, record_fire,
                                        fires, &i, sizeof i);
      g_array_append_val (ids, id);
    }
  /* cancel the 8,000 events with i % 5 != 0 */
  for (guint i = 0; i < ids->len; i++)
    if (i % 5 != 0)
      n_cancelled += sim_engine_cancel (f->engine, g_array_index (ids, guint64, i));
  g_assert_cmpuint (n_cancelled, ==, 8000);
  /* 10,000 - 8,000 = 2,000 pending */
  g_assert_cmpuint (sim_engine_n_pending (f->engine), ==, 2000);
  /* a second pass: only the 2,000 survivors (i % 5 == 0) answer TRUE */
  for (guint i = 0; i < ids->len; i++)
    g_assert_cmpint (sim_engine_cancel (f->engine, g_array_index (ids, guint64, i)), ==,
                     i % 5 == 0);
  g_assert_cmpuint (sim_engine_n_pending (f->engine), ==, 0);
  for (guint64 i = 0; i < 2000; i++)
    sim_engine_schedule (f->engine, test_rand (&state) % 100000, record_fire, fires, &i,
                         sizeof i);
  g_assert_true (sim_engine_run (f->engine, SIM_TIME_MAX, NULL));
  g_assert_cmpuint (fires->len, ==, 2000);
  for (guint i = 1; i < fires->len; i++)
    {
      const Fire *a = &g_array_index (fires, Fire, i - 1);
      const Fire *b = &g_array_index (fires, Fire, i);
      g_assert_true (a->time < b->time || (a->time == b->time && a->tag < b->tag));
    }
}

typedef struct {
  int  value;
  char name[12];
} Small;

typedef struct {
  guint  n_seen;
  gsize  size;
  gboolean ok;
} PayloadCheck;

static void
check_small (SimEngine *engine, void *target, const void *payload)
{
  const Small *s = payload;
  PayloadCheck *check = target;

  check->n_seen++;
  check->ok = s->value == 42 && strcmp (s->name, "original") == 0;
}

/* Byte i of a large payload is (i * 7 + 3) mod 256. */
static void
check_large (SimEngine *engine, void *target, const void *payload)
{
  const guint8 *bytes = payload;
  PayloadCheck *check = target;

  check->n_seen++;
  check->ok = ((gsize) payload % 16) == 0;
  for (gsize i = 0; i < check->size; i++)
    if (bytes[i] != (guint8) (i * 7 + 3))
      check->ok = FALSE;
}

static void
check_null (SimEngine *engine, void *target, const void *payload)
{
  PayloadCheck *check = target;

  check->n_seen++;
  check->ok = payload == NULL;
}

/* The engine copies payloads at schedule time, inline or pooled. */
static void
test_payload_copy (Fixture *f, gconstpointer data)
{
  /* Small (16 bytes) and the largest inline size (40), the first pooled class (41
   * bytes), a mid class (1000), and past the largest class (100,000 > 65,536) */
  static const gsize sizes[] = { SIM_ENGINE_INLINE_PAYLOAD, SIM_ENGINE_INLINE_PAYLOAD + 1,
                                 1000, 100000 };
  Small s = { 42, "original" };
  PayloadCheck small = { 0 }, null_check = { 0 };
  PayloadCheck large[G_N_ELEMENTS (sizes)] = { { 0 } };

  sim_engine_schedule (f->engine, 5, check_small, &small, &s, sizeof s);
  s.value = -1;
  strcpy (s.name, "mutated");
  sim_engine_schedule (f->engine, 5, check_null, &null_check, NULL, 0);

  /* a cancelled pooled payload goes back to the pool; the 1000-byte one below reuses it */
  {
    g_autofree guint8 *junk = g_malloc0 (1000);
    guint64 id = sim_engine_schedule (f->engine, 6, check_large, NULL, junk, 1000);
    g_assert_true (sim_engine_cancel (f->engine, id));
  }
  for (guint k = 0; k < G_N_ELEMENTS (sizes); k++)
    {
      g_autofree guint8 *buf = g_malloc (sizes[k]);
      for (gsize i = 0; i < sizes[k]; i++)
        buf[i] = (guint8) (i * 7 + 3);
      large[k].size = sizes[k];
      sim_engine_schedule (f->engine, 7, check_large, &large[k], buf, sizes[k]);
      memset (buf, 0xff, sizes[k]);                 /* mutate, then free, the source */
    }

  g_assert_true (sim_engine_run (f->engine, SIM_TIME_MAX, NULL));
  g_assert_cmpuint (small.n_seen, ==, 1);
  g_assert_true (small.ok);
  g_assert_cmpuint (null_check.n_seen, ==, 1);
  g_assert_true (null_check.ok);
  for (guint k = 0; k < G_N_ELEMENTS (sizes); k++)
    {
      g_assert_cmpuint (large[k].n_seen, ==, 1);
      g_assert_true (large[k].ok);
    }

  /* pending large payloads at free are released by sim_engine_free (checked by
   * valgrind/ASan builds, not here) */
  {
    g_autofree guint8 *buf = g_malloc0 (5000);
    sim_engine_schedule (f->engine, 1, check_large, NULL, buf, 5000);
  }
}

typedef struct {
  guint64 n_children;
  gboolean ok;
} Flood;

static void
count_fire (SimEngine *engine, void *target, const void *payload)
{
  ((Flood *) target)->n_children++;
}

/* Byte i of the payload is (i * 7 + 3) mod 256; the handler schedules 5,000 events
 * (new record chunks, a bigger heap) and then reads its payload again. */
static void
flood (SimEngine *engine, void *target, const void *payload)
{
  const guint8 *bytes = payload;
  Flood *f = target;

  for (guint64 i = 0; i < 5000; i++)
    sim_engine_schedule (engine, i % 7, count_fire, f, &i, sizeof i);
  f->ok = TRUE;
  for (gsize i = 0; i < SIM_ENGINE_INLINE_PAYLOAD; i++)
    if (bytes[i] != (guint8) (i * 7 + 3))
      f->ok = FALSE;
}

/* A payload stays valid while its handler schedules enough to grow the engine. */
static void
test_payload_stable (Fixture *f, gconstpointer data)
{
  guint8 buf[SIM_ENGINE_INLINE_PAYLOAD];
  Flood fl = { 0, FALSE };

  for (gsize i = 0; i < sizeof buf; i++)
    buf[i] = (guint8) (i * 7 + 3);
  sim_engine_schedule (f->engine, 1, flood, &fl, buf, sizeof buf);
  g_assert_true (sim_engine_run (f->engine, SIM_TIME_MAX, NULL));
  g_assert_true (fl.ok);
  /* 1 flood + 5,000 children */
  g_assert_cmpuint (fl.n_children, ==, 5000);
  g_assert_cmpuint (sim_engine_n_fired (f->engine), ==, 5001);
}

/* run(until) stops before the first later event, leaves it pending and sets now. */
static void
test_run_until (Fixture *f, gconstpointer data)
{
  for (int i = 0; i < 3; i++)
    sim_engine_schedule (f->engine, 10 * (i + 1), record_int, f->fired, &i, sizeof i);

  g_assert_true (sim_engine_run (f->engine, 20, NULL));
  /* events at 10, 20, 30 ps; until = 20 fires 10 and 20 (time <= until) */
  g_assert_cmpuint (f->fired->len, ==, 2);
  g_assert_cmpuint (sim_engine_now (f->engine), ==, 20);
  g_assert_cmpuint (sim_engine_n_pending (f->engine), ==, 1);

  g_assert_true (sim_engine_run (f->engine, 25, NULL));
  /* nothing in (20, 25]: now advances to until */
  g_assert_cmpuint (f->fired->len, ==, 2);
  g_assert_cmpuint (sim_engine_now (f->engine), ==, 25);

  /* an until before now fires nothing and does not move now back */
  g_assert_true (sim_engine_run (f->engine, 3, NULL));
  g_assert_cmpuint (sim_engine_now (f->engine), ==, 25);

  /* a delay counts from now: 25 + 1 = 26 fires before the event at 30 */
  {
    int x = 9;
    sim_engine_schedule (f->engine, 1, record_int, f->fired, &x, sizeof x);
  }
  g_assert_true (sim_engine_run (f->engine, SIM_TIME_MAX, NULL));
  g_assert_cmpuint (f->fired->len, ==, 4);
  g_assert_cmpint (g_array_index (f->fired, int, 2), ==, 9);
  g_assert_cmpint (g_array_index (f->fired, int, 3), ==, 2);
  /* until = SIM_TIME_MAX and the queue emptied: now stays at the last event, 30 ps */
  g_assert_cmpuint (sim_engine_now (f->engine), ==, 30);

  /* an emptied queue with a finite until: now = until */
  g_assert_true (sim_engine_run (f->engine, 1000, NULL));
  g_assert_cmpuint (sim_engine_now (f->engine), ==, 1000);
}

typedef struct {
  GArray *fired;
  int     left;
  guint64 victim;             /* an event to cancel from the handler */
} Chain;

/* Each link records its time, cancels the victim once, and schedules the next link 5 ps
 * later plus a zero-delay event that must fire after anything already queued at now. */
static void
chain_link (SimEngine *engine, void *target, const void *payload)
{
  Chain *chain = target;
  int tag = *(const int *) payload;
  int zero = 1000 + tag;

  g_array_append_val (chain->fired, tag);
  if (chain->victim != 0)
    {
      g_assert_true (sim_engine_cancel (engine, chain->victim));
      chain->victim = 0;
    }
  if (--chain->left > 0)
    {
      int next = tag + 1;
      sim_engine_schedule (engine, 5, chain_link, chain, &next, sizeof next);
    }
  sim_engine_schedule (engine, 0, record_int, chain->fired, &zero, sizeof zero);
}

/* Handlers schedule and cancel during a run. */
static void
test_schedule_from_handler (Fixture *f, gconstpointer data)
{
  Chain chain = { f->fired, 3, 0 };
  int first = 0, bystander = 500, victim = 666;

  sim_engine_schedule (f->engine, 0, chain_link, &chain, &first, sizeof first);
  sim_engine_schedule (f->engine, 0, record_int, f->fired, &bystander, sizeof bystander);
  chain.victim = sim_engine_schedule (f->engine, 7, record_int, f->fired, &victim,
                                      sizeof victim);
  g_assert_true (sim_engine_run (f->engine, SIM_TIME_MAX, NULL));

  /* t=0: link 0, bystander 500 (queued before the zero-delay 1000), 1000;
   * t=5: link 1, 1001; t=10: link 2, 1002; the victim at t=7 was cancelled */
  {
    static const int expect[] = { 0, 500, 1000, 1, 1001, 2, 1002 };
    g_assert_cmpuint (f->fired->len, ==, G_N_ELEMENTS (expect));
    for (guint i = 0; i < G_N_ELEMENTS (expect); i++)
      g_assert_cmpint (g_array_index (f->fired, int, i), ==, expect[i]);
  }
  g_assert_cmpuint (sim_engine_now (f->engine), ==, 10);
  g_assert_cmpuint (sim_engine_n_fired (f->engine), ==, 7);
}

static void
stop_here (SimEngine *engine, void *target, const void *payload)
{
  record_int (engine, target, payload);
  sim_engine_stop (engine);
}

/* stop() from a handler ends the run after that handler; the next run goes on. */
static void
test_stop (Fixture *f, gconstpointer data)
{
  for (int i = 0; i < 4; i++)
    sim_engine_schedule (f->engine, 10 * (i + 1), i == 1 ? stop_here : record_int,
                         f->fired, &i, sizeof i);
  sim_engine_stop (f->engine);                       /* outside a run: no effect */

  g_assert_true (sim_engine_run (f->engine, SIM_TIME_MAX, NULL));
  /* events at 10, 20 (stops), 30, 40 ps: two fired, now = 20, two pending */
  g_assert_cmpuint (f->fired->len, ==, 2);
  g_assert_cmpuint (sim_engine_now (f->engine), ==, 20);
  g_assert_cmpuint (sim_engine_n_pending (f->engine), ==, 2);

  g_assert_true (sim_engine_run (f->engine, SIM_TIME_MAX, NULL));
  g_assert_cmpuint (f->fired->len, ==, 4);
  g_assert_cmpuint (sim_engine_now (f->engine), ==, 40);
}

typedef struct {
  GArray *fires;
  guint64 next_tag;
  int     budget;
} Branching;

/* Fires, then schedules 0-2 children at engine-random delays (a branching process
 * driven only by the engine's PRNG). */
static void
branch (SimEngine *engine, void *target, const void *payload)
{
  Branching *b = target;
  guint64 n_children = sim_engine_random_u64 (engine) % 3;

  record_fire (engine, b->fires, payload);
  for (guint64 k = 0; k < n_children && b->budget > 0; k++, b->budget--)
    {
      guint64 tag = b->next_tag++;
      sim_engine_schedule (engine, sim_engine_random_u64 (engine) % 50, branch, b, &tag,
                           sizeof tag);
    }
}

static GArray *
branching_script (guint64 seed)
{
  g_autoptr (SimEngine) engine = sim_engine_new (seed);
  Branching b = { g_array_new (FALSE, FALSE, sizeof (Fire)), 0, 5000 };

  for (int i = 0; i < 100; i++)
    {
      guint64 tag = b.next_tag++;
      sim_engine_schedule (engine, sim_engine_random_u64 (engine) % 50, branch, &b, &tag,
                           sizeof tag);
    }
  g_assert_true (sim_engine_run (engine, SIM_TIME_MAX, NULL));
  return b.fires;
}

/* Same seed, same script: identical fire sequences; another seed: a different one. */
static void
test_determinism (void)
{
  g_autoptr (GArray) a = NULL, b = NULL, c = NULL;

  g_test_message ("seed %" G_GUINT64_FORMAT, test_seed);
  a = branching_script (test_seed);
  b = branching_script (test_seed);
  c = branching_script (test_seed + 1);
  /* 100 roots + a budget of 5,000 children: at least 100 fires */
  g_assert_cmpuint (a->len, >=, 100);
  g_assert_cmpuint (a->len, ==, b->len);
  g_assert_cmpmem (a->data, a->len * sizeof (Fire), b->data, b->len * sizeof (Fire));
  g_assert_false (a->len == c->len
                  && memcmp (a->data, c->data, a->len * sizeof (Fire)) == 0);
}

/* ---- stress: random schedule / cancel / run against a sorted-array reference ----- */

/* Each side numbers its schedules k = 0, 1, 2, ... on its own; an event's behaviour is
 * a function of its k only. If the engine fired anything out of order, the children
 * would get other numbers and the logs would part. */
typedef struct {
  SimTime time;
  guint64 k;
} RefKey;

typedef struct {
  SimEngine *engine;
  GArray    *ids;             /* engine side: guint64 id per k */
  guint64    k_eng;
  GArray    *log_eng;         /* Fire per fire, plus { G_MAXUINT64, result } per cancel */

  GArray    *queue;           /* reference: RefKey sorted by (time, k) descending */
  GArray    *state;           /* reference: guint8 per k, 1 while pending */
  guint64    k_ref;
  GArray    *log_ref;
  SimTime    ref_now;
  guint64    ref_pending;
  guint64    ref_fired;
} Stress;

static void stress_engine_fire (SimEngine *engine, void *target, const void *payload);

static void
eng_add (Stress *s, SimTime time)
{
  guint64 k = s->k_eng++;
  guint64 id = sim_engine_schedule_at (s->engine, time, stress_engine_fire, s, &k, sizeof k);

  g_assert_cmpuint (id, !=, 0);
  g_array_append_val (s->ids, id);
}

static void
ref_add (Stress *s, SimTime time)
{
  RefKey key = { time, s->k_ref++ };
  guint8 one = 1;
  guint lo = 0, hi = s->queue->len;

  g_array_append_val (s->state, one);
  /* first position whose key is below the new one (the array is descending) */
  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;
      const RefKey *m = &g_array_index (s->queue, RefKey, mid);
      if (m->time > key.time || (m->time == key.time && m->k > key.k))
        lo = mid + 1;
      else
        hi = mid;
    }
  g_array_insert_val (s->queue, lo, key);
  s->ref_pending++;
}

static gboolean
ref_cancel (Stress *s, guint64 k)
{
  guint8 *st = &g_array_index (s->state, guint8, k);

  if (*st != 1)
    return FALSE;
  *st = 0;
  s->ref_pending--;
  return TRUE;
}

/* What event k does when it fires, on either side: log (now, k); then by a hash of k,
 * schedule a child 0-499 ps later (0 ties with now), or cancel an earlier k. */
static void
stress_action (Stress *s, guint64 k, gboolean engine_side)
{
  guint64 h = k ^ G_GUINT64_CONSTANT (0xabcdef);
  SimTime now = engine_side ? sim_engine_now (s->engine) : s->ref_now;
  Fire fire = { now, k };

  h = test_rand (&h);
  g_array_append_val (engine_side ? s->log_eng : s->log_ref, fire);
  if (h % 4 == 0)
    {
      SimTime child = now + (h >> 8) % 500;
      if (engine_side)
        eng_add (s, child);
      else
        ref_add (s, child);
    }
  else if (h % 4 == 1 && k > 0)
    {
      guint64 victim = (h >> 8) % k;
      gboolean r = engine_side
                   ? sim_engine_cancel (s->engine, g_array_index (s->ids, guint64, victim))
                   : ref_cancel (s, victim);
      Fire rec = { G_MAXUINT64, (guint64) r };
      g_array_append_val (engine_side ? s->log_eng : s->log_ref, rec);
    }
}

static void
stress_engine_fire (SimEngine *engine, void *target, const void *payload)
{
  stress_action (target, *(const guint64 *) payload, TRUE);
}

static void
ref_run (Stress *s, SimTime until)
{
  if (until < s->ref_now)
    return;
  while (s->queue->len > 0)
    {
      RefKey key = g_array_index (s->queue, RefKey, s->queue->len - 1);
      guint8 *st;

      if (key.time > until)
        break;
      g_array_set_size (s->queue, s->queue->len - 1);
      st = &g_array_index (s->state, guint8, key.k);
      if (*st != 1)
        continue;                             /* cancelled */
      *st = 0;
      s->ref_now = key.time;
      s->ref_pending--;
      s->ref_fired++;
      stress_action (s, key.k, FALSE);
    }
  if (until != SIM_TIME_MAX)
    s->ref_now = until;
}

static void
stress_check (Stress *s)
{
  g_assert_cmpuint (s->k_eng, ==, s->k_ref);
  g_assert_cmpuint (sim_engine_n_pending (s->engine), ==, s->ref_pending);
  g_assert_cmpuint (sim_engine_n_fired (s->engine), ==, s->ref_fired);
  g_assert_cmpuint (sim_engine_now (s->engine), ==, s->ref_now);
  g_assert_cmpuint (s->log_eng->len, ==, s->log_ref->len);
}

/* 100,000 random operations (schedule 45%, cancel 20%, cancel of a never-issued id 5%,
 * run a random step 30% less a 0.25% share of bursts), applied to the engine and to the
 * reference. */
static void
test_stress (void)
{
  Stress s = { 0 };
  guint64 state = test_seed ^ G_GUINT64_CONSTANT (0x1234567);
  const int n_ops = 100000;

  g_test_message ("seed %" G_GUINT64_FORMAT, test_seed);
  s.engine = sim_engine_new (test_seed);
  s.ids = g_array_new (FALSE, FALSE, sizeof (guint64));
  s.log_eng = g_array_new (FALSE, FALSE, sizeof (Fire));
  s.queue = g_array_new (FALSE, FALSE, sizeof (RefKey));
  s.state = g_array_new (FALSE, FALSE, sizeof (guint8));
  s.log_ref = g_array_new (FALSE, FALSE, sizeof (Fire));

  for (int op = 0; op < n_ops; op++)
    {
      guint64 r = test_rand (&state);
      guint64 choice = r % 100;

      if (choice == 99 && (r >> 8) % 4 == 0)
        {
          /* a burst of 1,000 events 0-2 us ahead, then every second one of the last
           * 4,000 schedules cancelled: enough tombstones at once for the engine to
           * compact its heap (timeouts that are mostly cancelled look like this) */
          for (int i = 0; i < 1000; i++)
            {
              SimTime delay = test_rand (&state) % 2000000;
              ref_add (&s, s.ref_now + delay);
              eng_add (&s, s.ref_now + delay);
            }
          for (guint64 k = s.k_ref - MIN (s.k_ref, 4000); k < s.k_ref; k += 2)
            {
              gboolean a = sim_engine_cancel (s.engine, g_array_index (s.ids, guint64, k));
              g_assert_cmpint (a, ==, ref_cancel (&s, k));
            }
        }
      else if (choice < 45)
        {
          /* 90% near (0-999 ps: ties are common), 10% far (up to 1 us) */
          SimTime delay = (r >> 8) % 10 == 0 ? (r >> 16) % 1000000 : (r >> 16) % 1000;
          ref_add (&s, s.ref_now + delay);
          eng_add (&s, s.ref_now + delay);
        }
      else if (choice < 65 && s.k_ref > 0)
        {
          /* half of the victims among the last 4,000 schedules, which are often
           * still pending */
          guint64 span = (r >> 8) % 2 == 0 ? MIN (s.k_ref, 4000) : s.k_ref;
          guint64 victim = s.k_ref - 1 - (r >> 9) % span;
          gboolean a = sim_engine_cancel (s.engine, g_array_index (s.ids, guint64, victim));
          g_assert_cmpint (a, ==, ref_cancel (&s, victim));
        }
      else if (choice < 70 && s.k_eng > 0)
        {
          /* the last id plus one: the same sequence number, another slot */
          guint64 last = g_array_index (s.ids, guint64, s.k_eng - 1);
          g_assert_false (sim_engine_cancel (s.engine, last + 1));
        }
      else
        {
          SimTime until = s.ref_now + (r >> 8) % 2000;
          ref_run (&s, until);
          g_assert_true (sim_engine_run (s.engine, until, NULL));
        }
      stress_check (&s);
    }
  ref_run (&s, SIM_TIME_MAX);
  g_assert_true (sim_engine_run (s.engine, SIM_TIME_MAX, NULL));
  stress_check (&s);

  g_test_message ("%" G_GUINT64_FORMAT " schedules, %" G_GUINT64_FORMAT " fires, %u log "
                  "entries", s.k_ref, s.ref_fired, s.log_ref->len);
  /* the two logs (every fire and every in-handler cancel result) are identical */
  g_assert_cmpmem (s.log_eng->data, s.log_eng->len * sizeof (Fire), s.log_ref->data,
                   s.log_ref->len * sizeof (Fire));
  g_assert_cmpuint (sim_engine_n_pending (s.engine), ==, 0);

  sim_engine_free (s.engine);
  g_array_unref (s.ids);
  g_array_unref (s.log_eng);
  g_array_unref (s.queue);
  g_array_unref (s.state);
  g_array_unref (s.log_ref);
}

/* Seconds <-> picoseconds. */
static void
test_time_convert (void)
{
  /* 1 s = 10^12 ps */
  g_assert_cmpuint (sim_time_from_s (1.0), ==, G_GUINT64_CONSTANT (1000000000000));
  /* 2.5 ns = 2500 ps */
  g_assert_cmpuint (sim_time_from_s (2.5e-9), ==, 2500);
  /* 1.5 ps rounds to 2 (nearest, halves away from zero); 1.4 ps to 1 */
  g_assert_cmpuint (sim_time_from_s (1.5e-12), ==, 2);
  g_assert_cmpuint (sim_time_from_s (1.4e-12), ==, 1);
  g_assert_cmpuint (sim_time_from_s (0.0), ==, 0);
  g_assert_cmpuint (sim_time_from_s (-3.0), ==, 0);
  g_assert_cmpuint (sim_time_from_s (NAN), ==, 0);
  /* 10^8 s = 10^20 ps > 2^64 = 1.8e19: saturates */
  g_assert_cmpuint (sim_time_from_s (1e8), ==, SIM_TIME_MAX);
  g_assert_cmpuint (sim_time_from_s (INFINITY), ==, SIM_TIME_MAX);
  /* 10^7 s = 10^19 ps < 2^64: exact */
  g_assert_cmpuint (sim_time_from_s (1e7), ==, G_GUINT64_CONSTANT (10000000000000000000));
  g_assert_cmpfloat (sim_time_to_s (G_GUINT64_CONSTANT (1000000000000)), ==, 1.0);
  g_assert_cmpfloat (sim_time_to_s (2500), ==, 2.5e-9);
}

/* A delay past SIM_TIME_MAX saturates; scheduling into the past is refused. */
static void
test_limits (Fixture *f, gconstpointer data)
{
  int x = 1;

  sim_engine_schedule (f->engine, 10, record_int, f->fired, &x, sizeof x);
  g_assert_true (sim_engine_run (f->engine, SIM_TIME_MAX, NULL));
  sim_engine_schedule (f->engine, SIM_TIME_MAX, record_int, f->fired, &x, sizeof x);
  g_assert_true (sim_engine_run (f->engine, SIM_TIME_MAX - 1, NULL));
  /* 10 + SIM_TIME_MAX saturates to SIM_TIME_MAX, one past until */
  g_assert_cmpuint (f->fired->len, ==, 1);
  g_assert_cmpuint (sim_engine_n_pending (f->engine), ==, 1);
  g_assert_true (sim_engine_run (f->engine, SIM_TIME_MAX, NULL));
  g_assert_cmpuint (f->fired->len, ==, 2);
  g_assert_cmpuint (sim_engine_now (f->engine), ==, SIM_TIME_MAX);

  g_test_expect_message (NULL, G_LOG_LEVEL_CRITICAL, "*time >= engine->now*");
  g_assert_cmpuint (sim_engine_schedule_at (f->engine, 5, record_int, f->fired, &x,
                                            sizeof x), ==, 0);
  g_test_assert_expected_messages ();
}

/* The engine PRNG: same seed, same stream; doubles in [0, 1) with mean near 1/2. */
static void
test_random (void)
{
  g_autoptr (SimEngine) a = sim_engine_new (test_seed);
  g_autoptr (SimEngine) b = sim_engine_new (test_seed);
  g_autoptr (SimEngine) c = sim_engine_new (test_seed + 1);
  const int n = 100000;
  double sum = 0;
  gboolean differs = FALSE;

  for (int i = 0; i < 1000; i++)
    {
      guint64 x = sim_engine_random_u64 (a);
      g_assert_cmpuint (x, ==, sim_engine_random_u64 (b));
      differs |= x != sim_engine_random_u64 (c);
    }
  g_assert_true (differs);
  for (int i = 0; i < n; i++)
    {
      double u = sim_engine_random_double (a);
      g_assert_cmpfloat (u, >=, 0.0);
      g_assert_cmpfloat (u, <, 1.0);
      sum += u;
    }
  /* U[0,1): mean 1/2, sd 1/sqrt(12) = 0.2887; sd of the mean over 10^5 draws
   * 0.2887 / 316.2 = 0.000913; 6 sd = 0.0055 */
  g_assert_cmpfloat_with_epsilon (sum / n, 0.5, 0.0055);
}

int
main (int argc, char **argv)
{
  const char *seed = g_getenv ("TANDEM_TEST_SEED");

  g_test_init (&argc, &argv, NULL);
  if (seed != NULL)
    test_seed = g_ascii_strtoull (seed, NULL, 0);

  g_test_add ("/sim/engine/tie-order", Fixture, NULL, setup, test_tie_order, teardown);
  g_test_add ("/sim/engine/time-order", Fixture, NULL, setup, test_time_order, teardown);
  g_test_add ("/sim/engine/cancel", Fixture, NULL, setup, test_cancel, teardown);
  g_test_add ("/sim/engine/cancel-many", Fixture, NULL, setup, test_cancel_many, teardown);
  g_test_add ("/sim/engine/payload-copy", Fixture, NULL, setup, test_payload_copy,
              teardown);
  g_test_add ("/sim/engine/payload-stable", Fixture, NULL, setup, test_payload_stable,
              teardown);
  g_test_add ("/sim/engine/run-until", Fixture, NULL, setup, test_run_until, teardown);
  g_test_add ("/sim/engine/schedule-from-handler", Fixture, NULL, setup,
              test_schedule_from_handler, teardown);
  g_test_add ("/sim/engine/stop", Fixture, NULL, setup, test_stop, teardown);
  g_test_add ("/sim/engine/limits", Fixture, NULL, setup, test_limits, teardown);
  g_test_add_func ("/sim/engine/determinism", test_determinism);
  g_test_add_func ("/sim/engine/stress", test_stress);
  g_test_add_func ("/sim/engine/time-convert", test_time_convert);
  g_test_add_func ("/sim/engine/random", test_random);
  return g_test_run ();
}
