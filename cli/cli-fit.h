/* cli/cli-fit.h - what would make a plan that does not fit in device memory fit.
 *
 * Contract:
 *  - Each suggestion is the plan with one change (or, when no single change fits, the
 *    greedy combination of the changes that save most), resolved again with plan_resolve
 *    and its memory computed again with plan_memory_compute: the memory saved is computed,
 *    never guessed. Changes that the plan's constraints refuse (tp not dividing the heads,
 *    layers not dividing pp, ...) are left out.
 *  - The global batch and world size stay as resolved: dp and micro-batches per step
 *    follow from the changed degrees, as plan_resolve derives them.
 *  - Sorted by the peak memory after the change (lowest first). */
#pragma once

#include "cli/cli.h"
#include "plan/memory.h"

G_BEGIN_DECLS

typedef struct {
  char    *flags;          /* the change as plan flags, e.g. "--recompute-granularity full" */
  char    *what;           /* in words: "recompute whole layers" */
  guint64  peak_bytes;     /* peak per GPU after the change */
  gint64   saved_bytes;    /* current peak - peak after (may be < 0: never listed) */
  int      peak_stage;
  gboolean fits;
} CliFitSuggestion;

/* Suggestions for a resolved plan; an empty array when none saves memory. Free with
 * g_array_unref (the clear function frees the strings). */
GArray *cli_fit_suggestions (const ModelSpec *model, const Plan *plan,
                             const TopoCluster *cluster, const PlanMemory *mem);

/* Prints them as an aligned table after a heading, `indent` before every line. */
void cli_fit_print (const GArray *suggestions, const PlanMemory *mem, const char *indent);
/* Sets "fit_suggestions": [{flags, what, peak_bytes, saved_bytes, peak_stage, fits}] on
 * `object`. */
void cli_fit_to_json (const GArray *suggestions, JsonObject *object);

G_END_DECLS
