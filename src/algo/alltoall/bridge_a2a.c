/*
 * alltoall "bridge_a2a": the first solution of Träff, Rougier, "MPI
 * Collectives and Datatypes for Hierarchical All-to-all Communication"
 * (2014), section 2.2: as "bridge" (src/algo/alltoall/bridge.c), but the
 * node root gathers every rank's p blocks (node-sorted) consecutively, and
 * the alltoall over the bridge picks each node's n x n blocks with its
 * types: send type a vector of n blocks of n blocks at a stride of p,
 * resized to n blocks; receive type the transposed placement (for each
 * source rank, a vector of n single blocks at a stride of p, resized to one
 * block), so that the scatter sends p consecutive blocks to each rank,
 * whose indexed-block receive type restores rank order.
 * Cost, memory: as "bridge".
 * Restrictions: nodes of equal size (TC_REQ_EQUAL_NODES); no schedule
 *   (TC_REQ_COMPOSED): run by src/api/composed.c.
 * Source: Träff, Rougier 2014, section 2.2, first solution.
 */
#include "algo/alltoall/bridge_steps.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    return tc_bridge_alltoall(s, a, t, TC_BRIDGE_ROWS);
}

const tc_algo tc_alltoall_bridge_a2a = {
    .coll = TOPOCOLL_ALLTOALL, .name = "bridge_a2a",
    .desc = "gather -> alltoall over the bridge with vector send/receive types -> scatter "
            "(Träff, Rougier 2014, first solution)",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
