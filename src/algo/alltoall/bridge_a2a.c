/*
 * alltoall "bridge_a2a": the first solution of Träff, Rougier, "MPI
 * Collectives and Datatypes for Hierarchical All-to-all Communication"
 * (2014), section 2.2: as "bridge" (src/algo/alltoall/bridge.c), but the
 * node root gathers every rank's p blocks (node-sorted) consecutively, and
 * the exchange over the bridge picks each node's blocks (the paper's vector
 * send type) and places them transposed, [destination member][source
 * position] (its receive type), so that the scatter sends p consecutive
 * blocks to each rank, received into rank order.  Member-set rounds
 * (src/algo/alltoall/bridge_steps.c, layout ROWS), run by the executor
 * with derived datatypes, one message per peer (src/exec/subcoll.c).
 * Cost, memory: as "bridge".
 * Restrictions: none.
 * Source: Träff, Rougier 2014, section 2.2, first solution.
 */
#include "algo/alltoall/bridge_steps.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    return tc_bridge_alltoall(s, a, t, TC_BRIDGE_ROWS);
}

const tc_algo tc_alltoall_bridge_a2a = {
    .coll = TOPOCOLL_ALLTOALL, .name = "bridge_a2a",
    .desc = "gather -> exchange over the bridge whose datatypes pick each node's blocks -> scatter "
            "(Träff, Rougier 2014, first solution)",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
