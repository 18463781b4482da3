/* sim/engine.c - the discrete-event core: a 4-ary heap of 16-byte keys over a slab of
 * event records.
 *
 * Why this shape: a d-ary heap with d = 4 halves the depth of a binary heap, and with
 * 16-byte keys the four children of a node are one 64-byte cache line when the array is
 * offset so that child groups start on line boundaries (LaMarca & Ladner 1996, "The
 * influence of caches on the performance of heaps"). Keys hold only what ordering needs
 * (time, then id, whose high bits are the sequence number); the handler, target and
 * payload live in a slab record found through the id's low bits, so sifting moves 16
 * bytes, not 80. The slab is a list of fixed chunks that never move, so a handler's
 * payload pointer stays valid while that handler schedules more events.
 *
 * The run loop leaves the root as a hole while a handler runs: the first event the
 * handler schedules drops into the hole and sifts down once, instead of a pop (sift
 * down) plus a push (sift up). In the common "each event schedules the next" pattern
 * that is one sift per event. */
#include "sim/engine.h"

#include <math.h>
#include <stddef.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

G_DEFINE_QUARK (sim-error-quark, sim_error)

/* An id is (sequence << SLOT_BITS) | slot. 24 slot bits match SIM_ENGINE_MAX_QUEUED;
 * the remaining 40 bits allow 2^40 - 1 schedules (about 30 h at 10 M events/s). */
#define SLOT_BITS 24
#define SLOT_MASK ((G_GUINT64_CONSTANT (1) << SLOT_BITS) - 1)
#define SEQ_MAX ((G_GUINT64_CONSTANT (1) << (64 - SLOT_BITS)) - 1)
#define NO_SLOT G_MAXUINT32

/* 1024 records of 80 bytes = 80 KiB per chunk: small engines stay small. */
#define CHUNK_BITS 10
#define CHUNK_SIZE (1u << CHUNK_BITS)
#define CHUNK_MASK (CHUNK_SIZE - 1)

/* Pooled payloads: power-of-two classes from 64 B to 64 KiB; bigger ones use g_malloc. */
#define POOL_MIN_BITS 6
#define POOL_MAX_BITS 16
#define POOL_N_CLASSES (POOL_MAX_BITS - POOL_MIN_BITS + 1)

/* Cancelled keys are dropped in one pass once they are over half the heap (and at
 * least this many), so a cancel-heavy model cannot grow the heap without bound. */
#define COMPACT_MIN_TOMBSTONES 1024

/* A heap key: the event time, then its id. With 128-bit integers it is one number,
 * time * 2^64 + id, so ordering is a single unsigned compare the compiler can do without
 * branches; otherwise a struct with the same order. */
#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 SimKey;

static inline SimKey  key_make (SimTime time, guint64 id) { return ((SimKey) time << 64) | id; }
static inline SimTime key_time (SimKey k)                 { return (SimTime) (k >> 64); }
static inline guint64 key_id (SimKey k)                   { return (guint64) k; }
static inline gboolean key_less (SimKey a, SimKey b)      { return a < b; }
#else
typedef struct {
  guint64 id;
  SimTime time;               /* ps */
} SimKey;

static inline SimKey  key_make (SimTime time, guint64 id) { return (SimKey) { id, time }; }
static inline SimTime key_time (SimKey k)                 { return k.time; }
static inline guint64 key_id (SimKey k)                   { return k.id; }
static inline gboolean
key_less (SimKey a, SimKey b)
{
  return (a.time < b.time) | ((a.time == b.time) & (a.id < b.id));
}
#endif
G_STATIC_ASSERT (sizeof (SimKey) == 16);

typedef struct {
  SimHandler handler;         /* NULL: cancelled, fired or free */
  void      *target;
  guint64    id;              /* while pending; 0 once fired, cancelled or free */
  guint32    payload_size;    /* bytes; > SIM_ENGINE_INLINE_PAYLOAD: payload.large */
  guint32    next_free;       /* free-list link while the slot is free */
  union {
    guint8      bytes[SIM_ENGINE_INLINE_PAYLOAD];
    void       *large;        /* a pool block */
    max_align_t align_;
  } payload;
} SimEvent;                   /* 80 bytes */

struct SimEngine {
  SimKey    *heap;            /* heap[0] is the root; children of i are 4i+1 .. 4i+4 */
  SimKey    *heap_mem;        /* 64-byte aligned; heap = heap_mem + 3 */
  guint32    heap_len;        /* keys, the hole included */
  guint32    heap_cap;
  gboolean   hole;            /* heap[0] is vacant (a handler is running) */
  guint32    n_tombstones;    /* cancelled keys still in the heap */

  SimEvent **chunks;          /* slot s is chunks[s >> CHUNK_BITS][s & CHUNK_MASK] */
  guint32    n_chunks;
  guint32    free_slot;       /* head of the free list, NO_SLOT when empty */
  void      *pool[POOL_N_CLASSES]; /* free blocks, linked through their first word */

  SimTime    now;             /* ps */
  guint64    seq;             /* last sequence number handed out */
  guint64    n_pending;
  guint64    n_fired;
  gboolean   running;
  gboolean   stop;
  GError    *error;           /* a failed schedule, reported by the next run */
  guint64    rng[4];          /* xoshiro256** state */
};

/* ---- time ---------------------------------------------------------------------- */

SimTime
sim_time_from_s (double seconds)
{
  double ps = round (seconds * (double) SIM_TIME_PS_PER_S);

  if (!(ps > 0.0))                          /* negative, zero, NaN */
    return 0;
  if (ps >= 18446744073709551616.0)         /* 2^64 */
    return SIM_TIME_MAX;
  return (SimTime) ps;
}

double
sim_time_to_s (SimTime time)
{
  return (double) time / (double) SIM_TIME_PS_PER_S;
}

/* ---- PRNG: xoshiro256** seeded by splitmix64 (Blackman & Vigna 2018, "Scrambled
 * linear pseudorandom number generators"; constants from that paper and from Steele,
 * Lea & Flood 2014 for splitmix64). ---------------------------------------------- */

static guint64
splitmix64_next (guint64 *state)
{
  guint64 z = (*state += G_GUINT64_CONSTANT (0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
  return z ^ (z >> 31);
}

static inline guint64
rotl64 (guint64 x, int k)
{
  return (x << k) | (x >> (64 - k));
}

guint64
sim_engine_random_u64 (SimEngine *engine)
{
  guint64 *s = engine->rng;
  guint64 result = rotl64 (s[1] * 5, 7) * 9;
  guint64 t = s[1] << 17;

  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl64 (s[3], 45);
  return result;
}

double
sim_engine_random_double (SimEngine *engine)
{
  /* The top 53 bits scaled by 2^-53: every double in [0, 1) on that grid, equally likely. */
  return (double) (sim_engine_random_u64 (engine) >> 11) * 0x1.0p-53;
}

/* ---- heap ---------------------------------------------------------------------- */

/* The smallest of the four children c .. c + 3, as a tournament of three compares that
 * compile to conditional moves. */
static inline guint32
heap_min4 (const SimKey *heap, guint32 c)
{
  guint32 a = c + key_less (heap[c + 1], heap[c]);
  guint32 b = c + 2 + key_less (heap[c + 3], heap[c + 2]);

  return key_less (heap[b], heap[a]) ? b : a;
}

/* Puts k into the subtree whose root position `top` is vacant. The hole first walks down
 * to a leaf along the smaller children, with no compare against k, and k then rises from
 * there (Wegener 1993, "BOTTOM-UP-HEAPSORT"): a new event usually lies later than most
 * pending ones, so it belongs near the bottom and the rise is short, while the walk down
 * has no hard-to-predict exit branch. */
static inline void
heap_settle (SimKey *heap, guint32 len, guint32 top, SimKey k)
{
  guint32 i = top;

  for (;;)
    {
      guint32 c = 4 * i + 1;
      guint32 m;

      if (G_LIKELY (c + 3 < len))
        {
          /* The grandchildren are 16 keys in four consecutive lines; fetching them
           * while the children are compared keeps a big heap's walk from waiting on
           * memory once per level. */
          if (4 * c + 1 < len)
            {
              const char *g = (const char *) &heap[4 * c + 1];
              __builtin_prefetch (g);
              __builtin_prefetch (g + 64);
              __builtin_prefetch (g + 128);
              __builtin_prefetch (g + 192);
            }
          m = heap_min4 (heap, c);
        }
      else if (c < len)
        {
          /* A last, partial group: its members have no children. */
          m = c;
          for (guint32 j = c + 1; j < len; j++)
            if (key_less (heap[j], heap[m]))
              m = j;
          heap[i] = heap[m];
          i = m;
          break;
        }
      else
        break;
      heap[i] = heap[m];
      i = m;
    }
  while (i > top)
    {
      guint32 p = (i - 1) / 4;
      if (!key_less (k, heap[p]))
        break;
      heap[i] = heap[p];
      i = p;
    }
  heap[i] = k;
}

/* Large arrays ask for 2 MiB pages where the kernel offers them (Linux THP in madvise
 * mode): a 1 M-event heap spans 16 MiB, and with 4 KiB pages nearly every deep access
 * also misses the TLB. */
#define HUGE_PAGE_BYTES ((gsize) 2 << 20)

static void *
big_alloc (gsize n_blocks, gsize block_bytes)
{
  gsize bytes = n_blocks * block_bytes;
  void *mem;

  if (bytes < HUGE_PAGE_BYTES)
    return g_aligned_alloc (n_blocks, block_bytes, 64);
  mem = g_aligned_alloc (n_blocks, block_bytes, HUGE_PAGE_BYTES);
#ifdef MADV_HUGEPAGE
  madvise (mem, bytes, MADV_HUGEPAGE);                 /* advice only: errors ignored */
#endif
  return mem;
}

static void
heap_grow (SimEngine *engine)
{
  guint32 cap = engine->heap_cap ? engine->heap_cap * 2 : 256;
  SimKey *mem = big_alloc (cap + 3, sizeof (SimKey));

  if (engine->heap_len > 0)
    memcpy (mem + 3, engine->heap, engine->heap_len * sizeof (SimKey));
  g_aligned_free (engine->heap_mem);
  engine->heap_mem = mem;
  engine->heap = mem + 3;
  engine->heap_cap = cap;
}

static inline void
heap_push (SimEngine *engine, SimKey k)
{
  SimKey *heap;
  guint32 i;

  if (engine->hole)
    {
      engine->hole = FALSE;
      heap_settle (engine->heap, engine->heap_len, 0, k);
      return;
    }
  if (G_UNLIKELY (engine->heap_len == engine->heap_cap))
    heap_grow (engine);
  heap = engine->heap;
  i = engine->heap_len++;
  while (i > 0)
    {
      guint32 p = (i - 1) / 4;
      if (!key_less (k, heap[p]))
        break;
      heap[i] = heap[p];
      i = p;
    }
  heap[i] = k;
}

/* Fills the vacant root with the last key. */
static inline void
heap_fill_hole (SimEngine *engine)
{
  SimKey last = engine->heap[--engine->heap_len];

  engine->hole = FALSE;
  if (engine->heap_len > 0)
    heap_settle (engine->heap, engine->heap_len, 0, last);
}

/* ---- slab and payload pool ----------------------------------------------------- */

static inline SimEvent *
slot_get (const SimEngine *engine, guint32 slot)
{
  return &engine->chunks[slot >> CHUNK_BITS][slot & CHUNK_MASK];
}

static guint32
slot_alloc (SimEngine *engine)
{
  guint32 slot = engine->free_slot;

  if (G_UNLIKELY (slot == NO_SLOT))
    {
      guint32 base = engine->n_chunks * CHUNK_SIZE;
      SimEvent *chunk;

      if (base >= SIM_ENGINE_MAX_QUEUED)
        return NO_SLOT;
      chunk = g_aligned_alloc0 (CHUNK_SIZE, sizeof (SimEvent), 64);
      for (guint32 i = 0; i < CHUNK_SIZE; i++)
        chunk[i].next_free = i + 1 < CHUNK_SIZE ? base + i + 1 : NO_SLOT;
      engine->chunks = g_renew (SimEvent *, engine->chunks, engine->n_chunks + 1);
      engine->chunks[engine->n_chunks++] = chunk;
      slot = base;
    }
  engine->free_slot = slot_get (engine, slot)->next_free;
  return slot;
}

static inline guint
pool_class (gsize size)
{
  /* size in (SIM_ENGINE_INLINE_PAYLOAD, 2^POOL_MAX_BITS]: the class of ceil(log2 size). */
  return g_bit_storage (size - 1) - POOL_MIN_BITS;
}

static void *
pool_alloc (SimEngine *engine, gsize size)
{
  guint c;
  void *block;

  if (size > (1u << POOL_MAX_BITS))
    return g_malloc (size);
  c = pool_class (size);
  block = engine->pool[c];
  if (block == NULL)
    return g_malloc ((gsize) 1 << (c + POOL_MIN_BITS));
  engine->pool[c] = *(void **) block;
  return block;
}

static void
pool_free (SimEngine *engine, void *block, gsize size)
{
  guint c;

  if (size > (1u << POOL_MAX_BITS))
    {
      g_free (block);
      return;
    }
  c = pool_class (size);
  *(void **) block = engine->pool[c];
  engine->pool[c] = block;
}

static inline void
event_drop_payload (SimEngine *engine, SimEvent *event)
{
  if (G_UNLIKELY (event->payload_size > SIM_ENGINE_INLINE_PAYLOAD))
    pool_free (engine, event->payload.large, event->payload_size);
  event->payload_size = 0;
}

static inline void
slot_release (SimEngine *engine, guint32 slot, SimEvent *event)
{
  event_drop_payload (engine, event);
  event->handler = NULL;
  event->next_free = engine->free_slot;
  engine->free_slot = slot;
}

/* Drops every cancelled key and rebuilds the heap bottom-up (Floyd 1964), O(n). */
static void
heap_compact (SimEngine *engine)
{
  SimKey *heap = engine->heap;
  guint32 n = 0;

  g_assert (!engine->hole);
  for (guint32 i = 0; i < engine->heap_len; i++)
    {
      guint32 slot = (guint32) (key_id (heap[i]) & SLOT_MASK);
      SimEvent *event = slot_get (engine, slot);

      if (event->handler == NULL)
        slot_release (engine, slot, event);
      else
        heap[n++] = heap[i];
    }
  engine->heap_len = n;
  engine->n_tombstones = 0;
  if (n > 1)
    for (guint32 i = (n - 2) / 4 + 1; i-- > 0;)
      heap_settle (heap, n, i, heap[i]);
}

static inline void
maybe_compact (SimEngine *engine)
{
  if (G_UNLIKELY (engine->n_tombstones >= COMPACT_MIN_TOMBSTONES
                  && engine->n_tombstones > engine->heap_len / 2)
      && !engine->hole)
    heap_compact (engine);
}

/* ---- public API ---------------------------------------------------------------- */

SimEngine *
sim_engine_new (guint64 seed)
{
  SimEngine *engine = g_new0 (SimEngine, 1);
  guint64 sm = seed;

  engine->free_slot = NO_SLOT;
  for (int i = 0; i < 4; i++)
    engine->rng[i] = splitmix64_next (&sm);
  heap_grow (engine);
  return engine;
}

void
sim_engine_free (SimEngine *engine)
{
  if (engine == NULL)
    return;
  g_return_if_fail (!engine->running);

  for (guint32 c = 0; c < engine->n_chunks; c++)
    {
      for (guint32 i = 0; i < CHUNK_SIZE; i++)
        event_drop_payload (engine, &engine->chunks[c][i]);
      g_aligned_free (engine->chunks[c]);
    }
  g_free (engine->chunks);
  for (guint c = 0; c < POOL_N_CLASSES; c++)
    while (engine->pool[c] != NULL)
      {
        void *block = engine->pool[c];
        engine->pool[c] = *(void **) block;
        g_free (block);
      }
  g_aligned_free (engine->heap_mem);
  g_clear_error (&engine->error);
  g_free (engine);
}

SimTime
sim_engine_now (const SimEngine *engine)
{
  g_return_val_if_fail (engine != NULL, 0);
  return engine->now;
}

static guint64
schedule_fail (SimEngine *engine, const char *what)
{
  if (engine->error == NULL)
    g_set_error (&engine->error, SIM_ERROR, SIM_ERROR_CAPACITY,
                 "Cannot schedule at t = %" G_GUINT64_FORMAT " ps: %s", engine->now, what);
  if (engine->running)
    engine->stop = TRUE;
  return 0;
}

guint64
sim_engine_schedule_at (SimEngine *engine, SimTime time, SimHandler handler, void *target,
                        const void *payload, gsize payload_size)
{
  SimEvent *event;
  guint32 slot;
  guint64 id;

  g_return_val_if_fail (engine != NULL, 0);
  g_return_val_if_fail (handler != NULL, 0);
  g_return_val_if_fail (time >= engine->now, 0);
  g_return_val_if_fail (payload != NULL || payload_size == 0, 0);
  g_return_val_if_fail (payload_size <= G_MAXUINT32, 0);

  if (G_UNLIKELY (engine->seq == SEQ_MAX))
    return schedule_fail (engine, "event ids exhausted (2^40 - 1 schedules)");
  slot = slot_alloc (engine);
  if (G_UNLIKELY (slot == NO_SLOT))
    return schedule_fail (engine, "more than 2^24 events queued");

  id = (++engine->seq << SLOT_BITS) | slot;
  event = slot_get (engine, slot);
  event->handler = handler;
  event->target = target;
  event->id = id;
  event->payload_size = (guint32) payload_size;
  if (payload_size <= SIM_ENGINE_INLINE_PAYLOAD)
    {
      if (payload_size > 0)
        memcpy (event->payload.bytes, payload, payload_size);
    }
  else
    {
      event->payload.large = pool_alloc (engine, payload_size);
      memcpy (event->payload.large, payload, payload_size);
    }
  heap_push (engine, key_make (time, id));
  engine->n_pending++;
  return id;
}

guint64
sim_engine_schedule (SimEngine *engine, SimTime delay, SimHandler handler, void *target,
                     const void *payload, gsize payload_size)
{
  SimTime time;

  g_return_val_if_fail (engine != NULL, 0);
  time = delay > SIM_TIME_MAX - engine->now ? SIM_TIME_MAX : engine->now + delay;
  return sim_engine_schedule_at (engine, time, handler, target, payload, payload_size);
}

gboolean
sim_engine_cancel (SimEngine *engine, guint64 event_id)
{
  guint32 slot = (guint32) (event_id & SLOT_MASK);
  SimEvent *event;

  g_return_val_if_fail (engine != NULL, FALSE);

  if (event_id == 0 || (slot >> CHUNK_BITS) >= engine->n_chunks)
    return FALSE;
  event = slot_get (engine, slot);
  if (event->id != event_id)            /* fired, cancelled, or the slot was reused */
    return FALSE;
  /* The key stays in the heap; the NULL handler marks it as a tombstone. */
  event->id = 0;
  event->handler = NULL;
  event_drop_payload (engine, event);
  engine->n_pending--;
  engine->n_tombstones++;
  maybe_compact (engine);
  return TRUE;
}

static gboolean
run_finish (SimEngine *engine, GError **error)
{
  engine->running = FALSE;
  engine->stop = FALSE;
  if (engine->error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&engine->error));
      return FALSE;
    }
  return TRUE;
}

gboolean
sim_engine_run (SimEngine *engine, SimTime until, GError **error)
{
  g_return_val_if_fail (engine != NULL, FALSE);
  g_return_val_if_fail (!engine->running, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  engine->running = TRUE;
  if (engine->error != NULL || until < engine->now)
    return run_finish (engine, error);

  while (engine->heap_len > 0)
    {
      SimKey key = engine->heap[0];
      guint32 slot = (guint32) (key_id (key) & SLOT_MASK);
      SimEvent *event;
      const void *payload;

      if (key_time (key) > until)
        break;
      /* The next event is one of the root's children (or one this handler schedules,
       * whose record is already in cache): start fetching their records now, so that
       * this handler and the next sift hide the memory latency. */
      if (G_LIKELY (engine->heap_len > 4))
        for (int c = 1; c <= 4; c++)
          {
            const char *r = (const char *) slot_get (engine, (guint32) (key_id (engine->heap[c])
                                                                       & SLOT_MASK));
            __builtin_prefetch (r);
            __builtin_prefetch (r + sizeof (SimEvent) - 1);
          }
      event = slot_get (engine, slot);
      engine->hole = TRUE;
      if (G_UNLIKELY (event->handler == NULL))
        {
          engine->n_tombstones--;
          heap_fill_hole (engine);
          slot_release (engine, slot, event);
          continue;
        }

      engine->now = key_time (key);
      event->id = 0;                    /* fired: cancel now returns FALSE */
      engine->n_pending--;
      engine->n_fired++;
      if (event->payload_size == 0)
        payload = NULL;
      else if (event->payload_size <= SIM_ENGINE_INLINE_PAYLOAD)
        payload = event->payload.bytes;
      else
        payload = event->payload.large;
      event->handler (engine, event->target, payload);

      if (engine->hole)
        heap_fill_hole (engine);
      slot_release (engine, slot, event);
      if (G_UNLIKELY (engine->stop))
        return run_finish (engine, error);
      maybe_compact (engine);
    }

  if (until != SIM_TIME_MAX)
    engine->now = until;
  return run_finish (engine, error);
}

void
sim_engine_stop (SimEngine *engine)
{
  g_return_if_fail (engine != NULL);
  if (engine->running)
    engine->stop = TRUE;
}

guint64
sim_engine_n_pending (const SimEngine *engine)
{
  g_return_val_if_fail (engine != NULL, 0);
  return engine->n_pending;
}

guint64
sim_engine_n_fired (const SimEngine *engine)
{
  g_return_val_if_fail (engine != NULL, 0);
  return engine->n_fired;
}
