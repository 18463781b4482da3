/* plan/memory.h - peak memory per GPU of a plan, by category and pipeline stage.
 *
 * Contract:
 *  - Bytes (guint64). Computed for one representative rank of every pipeline stage (all
 *    ranks of a stage hold the same amounts: DESIGN.md section 3, symmetry).
 *  - Pure function of (model, resolved plan, cluster): no I/O, never prints.
 *  - Activation formulas follow Korthikanti et al. 2022 ("Reducing Activation Recomputation
 *    in Large Transformer Models"), eq. for per-layer activations with TP/SP, with
 *    FlashAttention (no S x S scores stored) and the CP division of the sequence. */
#pragma once

#include <glib.h>
#include "models/model.h"
#include "topology/cluster.h"
#include "plan/plan.h"

G_BEGIN_DECLS

typedef enum {
  PLAN_MEM_PARAMS,        /* model weights held for compute (param dtype) */
  PLAN_MEM_GRADS,         /* gradient buffers (grad dtype) */
  PLAN_MEM_OPTIMIZER,     /* Adam m and v, plus fp32 master weights when asked */
  PLAN_MEM_ACTIVATIONS,   /* stored activations of all in-flight micro-batches */
  PLAN_MEM_COMM_BUFFERS,  /* FSDP-gathered layer(s), DP buckets, PP send/recv buffers */
  PLAN_MEM_RESERVE,       /* fragmentation + framework/CUDA context allowance */
  PLAN_MEM_N,
} PlanMemCategory;

const char *plan_mem_category_name (PlanMemCategory cat); /* "params", "grads", ... */

typedef struct {
  int     stage;                     /* pipeline rank */
  int     layers;                    /* layers held (all virtual chunks) */
  int     inflight_microbatches;     /* activations held at the peak (per chunk-sum) */
  guint64 bytes[PLAN_MEM_N];
  guint64 total;
  gboolean fits;                     /* total <= device HBM */
} PlanMemStage;

typedef struct {
  PlanMemStage *stages;      /* pp entries */
  int           n_stages;
  guint64       peak_bytes;  /* max over stages */
  int           peak_stage;
  guint64       capacity_bytes; /* device HBM */
  gboolean      fits;        /* every stage fits */
  /* per-layer activation bytes of one micro-batch on one rank, as computed (for reports) */
  guint64       act_bytes_per_layer;
  double        reserve_fraction;   /* fragmentation allowance used */
  guint64       reserve_fixed_bytes;/* CUDA context + framework reserve used */
} PlanMemory;

/* Computes the breakdown. `plan` must be resolved (plan_resolve). */
void plan_memory_compute (const ModelSpec *model, const Plan *plan, const TopoCluster *cluster,
                          PlanMemory *out);
void plan_memory_clear   (PlanMemory *mem);   /* frees stages; NULL-safe contents */

struct _JsonBuilder;
/* Writes the object of `tandem memory --json`: {peak_bytes, fits, capacity_bytes,
 * categories{...at the peak stage}, stages[...]} */
void plan_memory_to_json (const PlanMemory *mem, struct _JsonBuilder *builder);

G_END_DECLS
