/* sim/engine.h - sequential discrete-event engine.
 *
 * Contract:
 *  - SimTime is guint64 picoseconds. Cost models work in double seconds and convert once
 *    (sim_time_from_s); 2^64 ps is about 213 days of simulated time.
 *  - Events fire in (time, sequence) order, where the sequence is a per-engine counter
 *    taken at schedule time, so equal times fire in scheduling order and a run is a pure
 *    function of its inputs and seed (ns-3 EventKey, SST queue_order).
 *  - Payloads (below 16 MiB) are copied into engine-owned storage at schedule time and
 *    are valid only while the handler runs (ROSS). Up to SIM_ENGINE_INLINE_PAYLOAD bytes
 *    live inside the 64-byte event record; larger ones come from a pool of size classes.
 *    Either way the copy is aligned for any C type.
 *  - Cancel is lazy: the event becomes a tombstone that is skipped when it reaches the
 *    front (ns-3, Redis); once tombstones are over half the queue they are swept out in
 *    one pass. Event ids are never 0, never reused within an engine, and cancel of a
 *    fired, cancelled or unknown id returns FALSE.
 *  - Handlers may schedule, cancel and stop. They must not run or free the engine.
 *  - One engine per thread; nothing is global. The engine knows nothing about LLMs.
 *  - Limits: at most SIM_ENGINE_MAX_QUEUED events queued at once (tombstones count until
 *    swept or popped) and 2^40 - 1 schedules per engine. Going past either is
 *    a runtime failure: schedule returns 0 and the next run fails with SIM_ERROR_CAPACITY.
 *  - The engine never prints. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef guint64 SimTime;                                    /* picoseconds */
#define SIM_TIME_MAX G_MAXUINT64
#define SIM_TIME_PS_PER_S G_GUINT64_CONSTANT (1000000000000) /* 1 s = 10^12 ps (SI) */

#define SIM_ENGINE_INLINE_PAYLOAD 40                        /* bytes kept in the record */
#define SIM_ENGINE_MAX_QUEUED (1u << 24)                    /* 16,777,216 events */

#define SIM_ERROR (sim_error_quark ())
GQuark sim_error_quark (void);

typedef enum {
  SIM_ERROR_FAILED,           /* generic failure */
  SIM_ERROR_CAPACITY,         /* too many queued events, or event ids exhausted */
} SimError;

typedef struct SimEngine SimEngine;                         /* opaque */

/* `payload` points to the engine's copy (NULL when scheduled with size 0); it is valid
 * until the handler returns. */
typedef void (*SimHandler) (SimEngine *engine, void *target, const void *payload);

/* Seconds -> picoseconds, rounded to nearest (halves away from zero); negative and NaN
 * give 0, values past SIM_TIME_MAX give SIM_TIME_MAX. */
SimTime    sim_time_from_s          (double seconds);
double     sim_time_to_s            (SimTime time);

/* `seed` fixes the engine's PRNG stream (xoshiro256**, seeded through splitmix64). */
SimEngine *sim_engine_new           (guint64 seed);
void       sim_engine_free          (SimEngine *engine);    /* NULL-safe */
SimTime    sim_engine_now           (const SimEngine *engine);

/* Schedules `handler (engine, target, copy of payload)` at now + delay (saturating at
 * SIM_TIME_MAX). Returns the event id, or 0 on failure. */
guint64    sim_engine_schedule      (SimEngine *engine, SimTime delay, SimHandler handler,
                                     void *target, const void *payload, gsize payload_size);
/* The same at an absolute time; a time before now is a programming error. */
guint64    sim_engine_schedule_at   (SimEngine *engine, SimTime time, SimHandler handler,
                                     void *target, const void *payload, gsize payload_size);
/* TRUE when the event was pending and now will not fire. */
gboolean   sim_engine_cancel        (SimEngine *engine, guint64 event_id);

/* Fires events in order while their time is <= until. Returns TRUE when the queue
 * empties, the next event lies past `until` (it stays pending), or a handler called
 * sim_engine_stop. On return now is: the time of the event whose handler stopped the
 * run; else `until` (unless until is SIM_TIME_MAX, when now stays at the last event
 * fired). An `until` before now fires nothing and leaves now alone. Returns FALSE with
 * SIM_ERROR_CAPACITY when a schedule failed since the last run. */
gboolean   sim_engine_run           (SimEngine *engine, SimTime until, GError **error);
/* From a handler: end the current run once this handler returns. */
void       sim_engine_stop          (SimEngine *engine);

guint64    sim_engine_n_pending     (const SimEngine *engine);  /* scheduled, not cancelled */
guint64    sim_engine_n_fired       (const SimEngine *engine);  /* handlers called so far */

/* The engine's seeded PRNG: uniform 64-bit integers, and doubles uniform in [0, 1). */
guint64    sim_engine_random_u64    (SimEngine *engine);
double     sim_engine_random_double (SimEngine *engine);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimEngine, sim_engine_free)

G_END_DECLS
