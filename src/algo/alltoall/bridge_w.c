/*
 * alltoall "bridge_w": the hierarchical alltoall of Träff, Rougier, "MPI
 * Collectives and Datatypes for Hierarchical All-to-all Communication"
 * (2014), section 2.3, for irregular communicators (nodes of any sizes):
 * MPI_Gather of every rank's p blocks (node-sorted, indexed-block send
 * type) consecutively at the node root; MPI_Alltoallw over the bridge with
 * one send type per destination node J (a vector of n_A blocks of n_J
 * blocks at a stride of p, displaced to J's first rank) and one receive type
 * per source node I (n_I columns of a vector of n_A single blocks at a
 * stride of p); MPI_Scatter of p consecutive blocks per rank, received with
 * the indexed-block type into rank order.  Types made and freed per call.
 * Cost: as "bridge", with MPI_Alltoallw (not scalable: 2N types per root
 *   and call) instead of MPI_Alltoall.
 * Memory: 2 p n_A blocks at each node root.
 * Restrictions: none (any mapping, unequal nodes); no schedule
 *   (TC_REQ_COMPOSED): run by src/api/composed.c.
 * Source: Träff, Rougier 2014, section 2.3 (the solution they implement).
 */
#include "algo/alltoall/bridge_steps.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    return tc_bridge_alltoall(s, a, t, TC_BRIDGE_ROWS);
}

const tc_algo tc_alltoall_bridge_w = {
    .coll = TOPOCOLL_ALLTOALL, .name = "bridge_w",
    .desc = "gather -> MPI_Alltoallw over the bridge (a type per node) -> scatter: "
            "any node sizes (Träff, Rougier 2014, section 2.3)",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
