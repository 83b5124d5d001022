/*
 * alltoall "bridge_w": the hierarchical alltoall of Träff, Rougier, "MPI
 * Collectives and Datatypes for Hierarchical All-to-all Communication"
 * (2014), section 2.3, for irregular communicators (nodes of any sizes):
 * every rank's p blocks (node-sorted) gathered consecutively at the node
 * root; MPI_Alltoallw over the bridge, to node J the n_A x n_J blocks of J's
 * members, from node I its n_I x n_A blocks placed transposed; the scatter
 * of p consecutive blocks per rank, received into rank order.  As a
 * schedule it is the layout of "bridge_a2a" (ROWS in
 * src/algo/alltoall/bridge_steps.c): the executor's datatype per peer is
 * the paper's type per node (src/exec/subcoll.c).
 * Cost: as "bridge" (2 N types per root and call in the exchange).
 * Memory: 2 p n_A blocks at each node root.
 * Restrictions: none (any mapping, unequal nodes).
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
