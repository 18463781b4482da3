/* sim/simulate-private.h - what simulate.c lets its tests set. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The event set's narrow keys (simulate.c heap_push) hold times within this many bits of
 * picoseconds of their base, where it is less than their own width: a test cuts it to
 * turn the heap wide at the start or in mid-run, and compares. 64: not cut. */
extern guint sim_key_window_log2;

G_END_DECLS
