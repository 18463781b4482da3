/* sim/search-private.h - what the search's files share. */
#pragma once

#include "sim/search.h"

G_BEGIN_DECLS

/* SearchCand.first/last of a plan split with --account-for-embedding-in-pipeline-split
 * and --account-for-loss-in-pipeline-split (L + 2 slots split evenly) */
#define SEARCH_SPLIT_ACCOUNTED (-2)

/* One candidate, compactly (the space holds millions). */
typedef struct {
  gint32 gpus;
  gint16 tp, cp, pp, vpp, mbs;
  gint16 first, last;          /* uneven split, -1 = even, SEARCH_SPLIT_ACCOUNTED */
  gint16 hsdp_k;
  gint16 ep, etp;              /* expert parallel and expert TP (MoE; dense: 1 and 0) */
  guint8 cp_comm, sharding, recompute, sp, tpo, dpo, sched, order;
} SearchCand;

struct SearchSpace {
  SearchSpec  spec;            /* owned copy */
  GArray     *cands;           /* SearchCand */
  GArray     *shards;          /* SearchShard to enumerate */
  GArray     *vpp_values;      /* scratch of the enumeration */
  /* bound ingredients by compute key (SearchCand without dpo / order) */
  GHashTable *bounds;
  /* coarse bound ingredients by group (SearchCand without sharding, dpo, order) */
  GHashTable *coarse;
  /* layouts by degrees, rank order and HSDP group (layout_key): the bounds' reduced plans
   * share them (building one scans the ranks of its derived groups) */
  GHashTable *layouts;
  /* schedule slot tables by (schedule, pp, vpp, m, group, stage) (search-bound.c
   * space_slots): the bounds' reduced programs share a handful */
  GHashTable *slot_tables;
  /* the unit-kind pairs of a plan's own slot table, counted, by the same key
   * (search-bound.c space_kind_pairs): term (4) sums over them */
  GHashTable *pair_tables;
  GMutex      lock;
  /* how far the enumeration got (SearchReach) and the largest local batch (global / dp)
   * it met: what the error names when no candidate is left */
  int         reach;
  int         max_local;
  int         max_dp;     /* the largest data-parallel degree that divided the batch */
};

/* The enumeration's filters in order; SearchSpace.reach is the furthest one passed. */
typedef enum {
  SEARCH_REACH_NONE,      /* no tp x cp x pp divides a GPU count */
  SEARCH_REACH_DEGREES,   /* some do, but no data-parallel degree divides the batch */
  SEARCH_REACH_BATCH,     /* the batch divides, but no layer split and schedule is left */
  SEARCH_REACH_SPLIT,     /* a split and schedule too, but no micro-batch size */
  SEARCH_REACH_MBS,       /* a micro-batch size too, but no sharding */
  SEARCH_REACH_SHARD,     /* a sharding too, but the switches exclude the rest */
  SEARCH_REACH_SWITCHES,  /* the switches too, but no expert layout (MoE) */
} SearchReach;

/* GPUs in one NVLink domain of the cluster: the product of the innermost levels that
 * carry level 0's bandwidth (8 on DGX H100, 72 on GB200 NVL72). */
int      search_nvlink_domain (const TopoCluster *cl);
const SearchCand *search_cand (const SearchSpace *s, guint64 i);
void     search_cand_to_plan (const SearchSpace *s, const SearchCand *c, Plan *plan);
gboolean search_split_layers (int L, int chunks, int *first, int *last);
/* Lower bound of candidate c with its resolved plan (cached by compute key). */
gboolean search_cand_bound (const SearchSpace *s, const SearchCand *c, const Plan *resolved,
                            double *out, GError **error);

/* A lower bound shared by the candidates that differ from c only in sharding, DP overlap
 * and rank order (<= search_cand_bound of each; search-bound.c). */
gboolean search_cand_coarse_bound (const SearchSpace *s, const SearchCand *c,
                                   const Plan *resolved, double *out, GError **error);

/* Term (4) of the full bound of a resolved plan (search-bound.c), stage by stage: the
 * idle time between compute units charged over the plan's step; FALSE where the plan
 * builds no program. For tests. */
gboolean search_bound_unit_gaps (const SearchSpace *s, const Plan *resolved, double *per_stage,
                                 int n_stages, GError **error);

void     search_ingredients_free (gpointer ingredients);
void     search_kind_pairs_free  (gpointer pairs);
guint    search_cand_key_hash  (gconstpointer key);
gboolean search_cand_key_equal (gconstpointer a, gconstpointer b);

G_END_DECLS
