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
 *  - A mixture-of-experts plan also gets expert-side changes: ep doubled, ep as large as
 *    the experts and the ranks of a pipeline stage allow, expert tp doubled.
 *  - Every suggestion that fits is simulated (sim_predict with the caller's options, so
 *    with the stack and cost options of the prediction it answers), and the list is
 *    ordered by that simulated step time, fastest first; then the suggestions that fit
 *    but did not simulate, then those that save memory without fitting, each by peak
 *    memory after the change (lowest first). Without options nothing is simulated and the
 *    order is by peak alone. */
#pragma once

#include "cli/cli.h"
#include "plan/memory.h"
#include "sim/simulate.h"

G_BEGIN_DECLS

typedef struct {
  char    *flags;          /* the change as plan flags, e.g. "--recompute-granularity full" */
  char    *what;           /* in words: "recompute whole layers" */
  guint64  peak_bytes;     /* peak per GPU after the change */
  gint64   saved_bytes;    /* current peak - peak after (may be < 0: never listed) */
  int      peak_stage;
  gboolean fits;
  gboolean simulated;      /* fits and was simulated */
  double   step_time_s;    /* simulated, NaN when not */
  double   tokens_per_s;   /* simulated, NaN when not */
} CliFitSuggestion;

/* Suggestions for a resolved plan; an empty array when none saves memory. Free with
 * g_array_unref (the clear function frees the strings). */
GArray *cli_fit_suggestions (const ModelSpec *model, const Plan *plan,
                             const TopoCluster *cluster, const PlanMemory *mem,
                             const SimOptions *opts, const FwStack *stack);

/* Prints them as an aligned table after a heading, `indent` before every line. */
void cli_fit_print (const GArray *suggestions, const PlanMemory *mem, const char *indent);
/* Sets "fit_suggestions": [{flags, what, peak_bytes, saved_bytes, peak_stage, fits,
 * step_time_s, tokens_per_s}] on `object` (the two times null when not simulated). */
void cli_fit_to_json (const GArray *suggestions, JsonObject *object);

G_END_DECLS
