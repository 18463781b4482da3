/* topology/cluster-private.h - what cluster.c and cluster-load.c share.
 *
 * topo_cluster_alloc returns an empty cluster (ref_count 1, empty source tables) that
 * topo_cluster_unref can free at any point of its filling: the loader relies on this to
 * drop a half-read file with one call. */
#pragma once

#include "topology/cluster.h"

G_BEGIN_DECLS

TopoCluster *topo_cluster_alloc (void);

G_END_DECLS
