/* cli/cli-store.h - rows that `tandem predict` and `tandem run` store alike.
 *
 * Contract: strings given to cli_predicted_metrics are borrowed by the ResMetrics (keep
 * them alive until it is stored); the JSON helpers return new strings (g_free). */
#pragma once

#include <json-glib/json-glib.h>
#include "results/store.h"
#include "sim/predict.h"

G_BEGIN_DECLS

/* Compact JSON text of the builder's root. */
char *cli_json_text (JsonBuilder *builder);
/* {"megatron96": v[0] x scale, ...}: one value per FLOP convention. */
char *cli_conv_json (const double *values, double scale);
/* One JSON number ("null" when not finite): the hfu column, which has no convention. */
char *cli_number_json (double v);
/* The predicted metrics of `p` (memory from `mem`). */
void  cli_predicted_metrics (const SimPrediction *p, const PlanMemory *mem,
                             const char *mfu_json, const char *hfu_json,
                             const char *memory_json, ResMetrics *out);
/* One phase row per stage and kind (compute, tp, cp, pp, dp, bubble), source predicted. */
void  cli_predicted_phases (const SimResult *result, GArray *phases);

G_END_DECLS
