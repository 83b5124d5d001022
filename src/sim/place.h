/*
 * Rank placement for the simulator: which network node each rank runs on,
 * and the topology object (src/topo) the schedule generators see.
 *
 * Placement: in-order by default (rank r on node r / cpn, the paper's
 * mapping), or from a topocoll topology spec (docs/topology.md, e.g.
 * "1024x16/cyclic"): the spec's node n is network node n; a node may hold at
 * most the network's cores per node.
 *
 * What generators see (levels):
 *   TC_SIM_LEVELS_NODE   topology node = network node (ranks of a node share
 *                        memory); sockets from the spec, else one per node.
 *   TC_SIM_LEVELS_GROUP  topology node = network group (supernode, dragonfly
 *                        group, leaf), topology socket = network node: the
 *                        two tiers of a two-tier algorithm; no_shm is set,
 *                        since a group's ranks do not share memory.
 * Cost: O(p log p) time, O(p) memory (tc_topo_from_map).
 */
#ifndef TC_SIM_PLACE_H
#define TC_SIM_PLACE_H

#include <stddef.h>

#include "sim/net.h"
#include "topo/topo.h"

typedef enum { TC_SIM_LEVELS_NODE = 0, TC_SIM_LEVELS_GROUP = 1 } tc_sim_levels;

typedef struct tc_sim_place {
    int p;              /* ranks */
    int *node_of;       /* [p] network node of each rank */
    tc_topo *topo;      /* what the generators see */
    int levels;         /* tc_sim_levels */
    char desc[200];
} tc_sim_place;

/* ranks <= 0: every core of the network.  map NULL or "": in-order.
 * On error returns NULL and writes one line naming the problem. */
tc_sim_place *tc_sim_place_new(const tc_net *net, int ranks, const char *map, int levels,
                               char *err, size_t errlen);
void tc_sim_place_free(tc_sim_place *pl);

#endif
