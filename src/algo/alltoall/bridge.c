/*
 * alltoall "bridge": the hierarchical alltoall of Träff, Rougier, "MPI
 * Collectives and Datatypes for Hierarchical All-to-all Communication"
 * (2014), section 2.2, second solution (the one the paper implements), as
 * three MPI collectives with derived datatypes doing all reordering
 * ("zero-copy"):
 *   1. MPI_Gather on the node communicator to the node's root: each rank
 *      sends its blocks in node-sorted order (an indexed-block send type
 *      over the node-sorted rank map); the root receives with a vector of N
 *      blocks of n blocks at a stride of n^2 blocks, resized to n blocks, so
 *      that the bundle for each node is contiguous;
 *   2. MPI_Alltoall of n^2 blocks per node on the bridge communicator of the
 *      node roots;
 *   3. MPI_Scatter back: a vector of p single blocks at a stride of n,
 *      resized to one block, as the root's send type, and the indexed-block
 *      type (node-sorted to rank order) as each rank's receive type.
 * The node and bridge communicators (MPI_Comm_split by the topology's
 * nodes, which detection derives from MPI_Comm_split_type; the bridge of
 * the node roots in node order) and the node-sorted rank map (the
 * topology's member lists) are made once per communicator and cached in its
 * context (src/api/context.c); the datatypes are made and freed inside
 * each call, as in the paper's measurements.
 * Cost: the three collectives of the MPI library (gather and scatter of
 *   p n blocks at the root, alltoall of n^2 blocks among N roots).
 * Memory: 2 p n blocks at each node root.
 * Restrictions: nodes of equal size (TC_REQ_EQUAL_NODES: the vector types
 *   tile only then); no schedule (TC_REQ_COMPOSED): run by src/api/composed.c.
 * Source: Träff, Rougier 2014, sections 2.1 and 2.2.
 */
#include "algo/alltoall/bridge_steps.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    return tc_bridge_alltoall(s, a, t, TC_BRIDGE_BUNDLES);
}

const tc_algo tc_alltoall_bridge = {
    .coll = TOPOCOLL_ALLTOALL, .name = "bridge",
    .desc = "gather (vector receive type) -> alltoall over the bridge of node roots -> scatter, "
            "derived datatypes do all reordering (Träff, Rougier 2014, second solution)",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
