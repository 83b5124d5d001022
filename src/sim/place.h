/*
 * Rank placement for the simulator: which network node each rank runs on,
 * and the topology object (src/topo) the schedule generators see.
 *
 * Two ways to look at a network (levels):
 *   TC_SIM_LEVELS_GROUP  (default) topology node = network group (two-tier
 *       supernode, Dragonfly group, fat-tree leaf, the whole switch),
 *       topology socket = network node: the tiers of the two-tier
 *       algorithms (Jain, Lau, Kale, "Collectives on Two-tier Direct
 *       Networks", 2012; src/blocks/twotier_plan.h); the generators are
 *       told that the ranks of a group share no memory (tc_args.node_shm = 0).
 *   TC_SIM_LEVELS_NODE   topology node = network node (its ranks share
 *       memory), sockets from the spec, else one per node: the node-level
 *       hierarchy of the hierarchical allgathers (Kandalla, Subramoni,
 *       Santhanaraman, Koop, Panda, "Designing Multi-Leader-Based Allgather
 *       Algorithms for Multi-Core Clusters", 2009).
 * Placement: in-order by default (rank r on node r / cpn, the paper's
 * mapping), or from a topocoll topology spec (docs/topology.md) read at the
 * chosen level: with GROUP, spec node g is network group g and its socket j
 * network node j of the group ("64x16x16/cyclic" on twotier:64x16x16); with
 * NODE, spec node n is network node n ("1024x16/cyclic").  A spec may use
 * fewer groups, nodes or cores than the network has, not more.
 * Cost: O(p log p) time, O(p) memory (tc_topo_from_map / _from_spec).
 */
#ifndef TC_SIM_PLACE_H
#define TC_SIM_PLACE_H

#include <stddef.h>

#include "sim/net.h"
#include "topo/topo.h"

typedef enum { TC_SIM_LEVELS_GROUP = 0, TC_SIM_LEVELS_NODE = 1 } tc_sim_levels;

typedef struct tc_sim_place {
    int p;              /* ranks */
    int *node_of;       /* [p] network node of each rank */
    int nodes_used;     /* network nodes holding at least one rank */
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
