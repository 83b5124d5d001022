/*
 * alltoall "bridge": the hierarchical alltoall of Träff, Rougier, "MPI
 * Collectives and Datatypes for Hierarchical All-to-all Communication"
 * (2014), section 2.2, second solution (the one the paper implements):
 * gather on the node, alltoall over the bridge of node roots, scatter, the
 * MPI library moving every byte with derived datatypes ("zero-copy"):
 *   1. gather to the node's root: every rank sends its blocks in node-sorted
 *      order; the root lays them out as one bundle per destination node
 *      (member i's blocks for node J's members contiguous, then member i+1's);
 *   2. the roots exchange the bundles, one region per pair of roots;
 *   3. scatter back: member j gets, node-sorted by source, the j-th block of
 *      every received row, into rank order.
 * Each step is a member-set round (TC_OP_SUBCOLL: src/algo/alltoall/
 * bridge_steps.c lists its messages block by block, which the verifier
 * checks and the simulator routes); the MPI executor runs each round on
 * the cached node or bridge communicator as one message per peer whose
 * struct datatype covers the regions for that peer (src/exec/subcoll.c),
 * made and freed inside each call, as in the paper's measurements.
 * Cost: a gather and a scatter of p n blocks at the root (n - 1 messages
 *   each), n_A n_J blocks between roots A and J (one message each way).
 * Memory: 2 p n blocks at each node root.
 * Restrictions: none (the bundles are laid out for any node sizes).
 * Source: Träff, Rougier 2014, sections 2.1 and 2.2.
 */
#include "algo/alltoall/bridge_steps.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    return tc_bridge_alltoall(s, a, t, TC_BRIDGE_BUNDLES);
}

const tc_algo tc_alltoall_bridge = {
    .coll = TOPOCOLL_ALLTOALL, .name = "bridge",
    .desc = "gather (one bundle per node) -> exchange over the bridge of node roots -> scatter, "
            "derived datatypes do all reordering (Träff, Rougier 2014, second solution)",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
