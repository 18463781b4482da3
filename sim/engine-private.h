/* sim/engine-private.h - what engine.c (API, run loop) and engine-queue.c (heap, slab,
 * payload pool) share. Nothing outside sim/engine*.c includes this.
 *
 * The event set is a 4-ary min-heap of 16-byte keys over a slab of 64-byte records:
 *  - a key is (time, id), ordered by time, then id; an id is (sequence << SIM_SLOT_BITS)
 *    | slot, so ties fall back to scheduling order and the key also finds the record;
 *  - a record holds the handler, target and payload; records live in fixed chunks that
 *    never move, so a handler's payload pointer survives the handler scheduling more;
 *  - while a handler runs, the root is a hole (the fired key has been taken out): the
 *    first event the handler schedules settles from the root, and only if it schedules
 *    none is the hole filled with the last key. */
#pragma once

#include "sim/engine.h"

/* 24 slot bits give SIM_ENGINE_MAX_QUEUED records; the other 40 bits of an id number
 * 2^40 - 1 schedules (30 h of events at 10 M/s). Payload sizes share the 24 low bits of
 * SimEvent.meta, hence payloads below 16 MiB. */
#define SIM_SLOT_BITS 24
#define SIM_SLOT_MASK ((G_GUINT64_CONSTANT (1) << SIM_SLOT_BITS) - 1)
#define SIM_SEQ_MAX ((G_GUINT64_CONSTANT (1) << (64 - SIM_SLOT_BITS)) - 1)
#define SIM_NO_SLOT G_MAXUINT32
G_STATIC_ASSERT (SIM_ENGINE_MAX_QUEUED == (1u << SIM_SLOT_BITS));

/* 1024 records of 64 bytes = 64 KiB per chunk: small engines stay small. */
#define SIM_CHUNK_BITS 10
#define SIM_CHUNK_SIZE (1u << SIM_CHUNK_BITS)
#define SIM_CHUNK_MASK (SIM_CHUNK_SIZE - 1)

/* Pooled payloads: power-of-two classes from 64 B to 64 KiB; bigger ones use g_malloc. */
#define SIM_POOL_MIN_BITS 6
#define SIM_POOL_MAX_BITS 16
#define SIM_POOL_N_CLASSES (SIM_POOL_MAX_BITS - SIM_POOL_MIN_BITS + 1)

/* Cancelled keys are dropped in one pass once they are over half the heap (and at
 * least this many), so a cancel-heavy model cannot grow the heap without bound. */
#define SIM_COMPACT_MIN_TOMBSTONES 1024

/* A heap key. With 128-bit integers it is one number, time * 2^64 + id, so ordering is
 * a single unsigned compare that compiles without branches; otherwise a struct with the
 * same order. */
#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 SimKey;

static inline SimKey   sim_key_make (SimTime t, guint64 id) { return ((SimKey) t << 64) | id; }
static inline SimTime  sim_key_time (SimKey k)              { return (SimTime) (k >> 64); }
static inline guint64  sim_key_id   (SimKey k)              { return (guint64) k; }
static inline gboolean sim_key_less (SimKey a, SimKey b)    { return a < b; }
#else
typedef struct {
  guint64 id;
  SimTime time;               /* ps */
} SimKey;

static inline SimKey   sim_key_make (SimTime t, guint64 id) { return (SimKey) { id, t }; }
static inline SimTime  sim_key_time (SimKey k)              { return k.time; }
static inline guint64  sim_key_id   (SimKey k)              { return k.id; }
static inline gboolean
sim_key_less (SimKey a, SimKey b)
{
  return (a.time < b.time) | ((a.time == b.time) & (a.id < b.id));
}
#endif
G_STATIC_ASSERT (sizeof (SimKey) == 16);

/* The payload comes first: records are 64 bytes in 64-byte aligned chunks, so an inline
 * payload starts a cache line and is aligned for any type. */
typedef struct {
  union {
    guint8    bytes[SIM_ENGINE_INLINE_PAYLOAD];
    void     *large;          /* a pool block, when the size is over the inline limit */
    guint32   next_free;      /* free-list link while the slot is free */
  } payload;
  SimHandler handler;         /* NULL: cancelled (a tombstone while its key is queued) */
  void      *target;
  guint64    meta;            /* (sequence << SIM_SLOT_BITS) | payload bytes; sequence
                               * part 0 once fired or cancelled, all 0 when free */
} SimEvent;                   /* 64 bytes: one cache line */
G_STATIC_ASSERT (sizeof (SimEvent) == 64);
#define SIM_META_SIZE(m) ((guint32) ((m) & SIM_SLOT_MASK))

struct SimEngine {
  SimKey    *heap;            /* heap[0] is the root; children of i are 4i+1 .. 4i+4 */
  SimKey    *heap_mem;        /* 64-byte aligned; heap = heap_mem + 3 puts each group of
                               * four children on one cache line */
  guint32    heap_len;        /* keys, the hole included */
  guint32    heap_cap;
  gboolean   hole;            /* heap[0] is vacant (a handler is running) */
  guint32    n_tombstones;    /* cancelled keys still in the heap */

  SimEvent **chunks;          /* slot s is chunks[s >> SIM_CHUNK_BITS][s & SIM_CHUNK_MASK] */
  guint32    n_chunks;
  guint32    free_slot;       /* head of the free list, SIM_NO_SLOT when empty */
  void      *pool[SIM_POOL_N_CLASSES]; /* free blocks, linked through their first word */

  SimTime    now;             /* ps */
  guint64    seq;             /* last sequence number handed out */
  guint64    n_pending;
  guint64    n_fired;
  gboolean   running;
  gboolean   stop;
  GError    *error;           /* a failed schedule, reported by the next run */
  guint64    rng[4];          /* xoshiro256** state */
};

/* engine-queue.c */
void     sim_heap_settle     (SimKey *heap, guint32 len, guint32 top, SimKey k);
void     sim_heap_grow       (SimEngine *engine);
void     sim_heap_compact    (SimEngine *engine);
guint32  sim_slot_new_chunk  (SimEngine *engine);
void    *sim_pool_alloc      (SimEngine *engine, gsize size);
void     sim_pool_free       (SimEngine *engine, void *block, gsize size);
void     sim_queue_clear     (SimEngine *engine);

static inline SimEvent *
sim_slot_get (const SimEngine *engine, guint32 slot)
{
  return &engine->chunks[slot >> SIM_CHUNK_BITS][slot & SIM_CHUNK_MASK];
}

/* A free slot, or SIM_NO_SLOT when SIM_ENGINE_MAX_QUEUED are in use. */
static inline guint32
sim_slot_alloc (SimEngine *engine)
{
  guint32 slot = engine->free_slot;

  if (G_UNLIKELY (slot == SIM_NO_SLOT))
    {
      slot = sim_slot_new_chunk (engine);
      if (slot == SIM_NO_SLOT)
        return SIM_NO_SLOT;
    }
  engine->free_slot = sim_slot_get (engine, slot)->payload.next_free;
  return slot;
}

static inline void
sim_event_drop_payload (SimEngine *engine, SimEvent *event)
{
  if (G_UNLIKELY (SIM_META_SIZE (event->meta) > SIM_ENGINE_INLINE_PAYLOAD))
    sim_pool_free (engine, event->payload.large, SIM_META_SIZE (event->meta));
  event->meta = 0;
}

static inline void
sim_slot_release (SimEngine *engine, guint32 slot, SimEvent *event)
{
  sim_event_drop_payload (engine, event);
  event->handler = NULL;
  event->payload.next_free = engine->free_slot;
  engine->free_slot = slot;
}

static inline void
sim_heap_push (SimEngine *engine, SimKey k)
{
  SimKey *heap;
  guint32 i;

  if (engine->hole)
    {
      engine->hole = FALSE;
      sim_heap_settle (engine->heap, engine->heap_len, 0, k);
      return;
    }
  if (G_UNLIKELY (engine->heap_len == engine->heap_cap))
    sim_heap_grow (engine);
  heap = engine->heap;
  i = engine->heap_len++;
  while (i > 0)
    {
      guint32 p = (i - 1) / 4;
      if (!sim_key_less (k, heap[p]))
        break;
      heap[i] = heap[p];
      i = p;
    }
  heap[i] = k;
}

/* Fills the vacant root with the last key. */
static inline void
sim_heap_fill_hole (SimEngine *engine)
{
  SimKey last = engine->heap[--engine->heap_len];

  engine->hole = FALSE;
  if (engine->heap_len > 0)
    sim_heap_settle (engine->heap, engine->heap_len, 0, last);
}

static inline void
sim_heap_maybe_compact (SimEngine *engine)
{
  if (G_UNLIKELY (engine->n_tombstones >= SIM_COMPACT_MIN_TOMBSTONES
                  && engine->n_tombstones > engine->heap_len / 2)
      && !engine->hole)
    sim_heap_compact (engine);
}
