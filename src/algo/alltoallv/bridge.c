/*
 * alltoallv "bridge": the hierarchical irregular all-to-all of Träff,
 * Rougier, "MPI Collectives and Datatypes for Hierarchical All-to-all
 * Communication" (2014), section 2.4, gather on the node, exchange over the
 * bridge of node roots, scatter:
 *   0. the node's counts gathered node-locally (TC_REQ_NODE_COUNTS: the MPI
 *      layer's node-local allgather, src/api/node_counts.c);
 *   1. gather to the node root: every rank sends its parts in node-sorted
 *      order; the root lays them out as one bundle per destination node;
 *   2. the roots exchange the bundles, one region per pair of roots;
 *   3. scatter: member j gets its parts node-sorted by source, straight into
 *      its displacements.
 * Each step is a member-set round (TC_OP_SUBCOLL; the parts listed one by
 * one in src/algo/alltoallv/bridge_steps.c, which the verifier checks); the
 * MPI executor runs each round on the cached node or bridge communicator as
 * one message per peer whose struct datatype covers that peer's parts
 * (src/exec/subcoll.c): no pack or unpack copy by topocoll where the
 * buffers' datatypes are contiguous (others are staged in bytes by
 * src/api/node_counts.c).
 * Cost: the count exchange (one node-local MPI_Allgather of 2p counts per
 *   rank), a gather and a scatter of the node's parts at the root (n - 1
 *   messages each), one bundle each way between two roots.
 * Memory: at the roots the node's outgoing and incoming parts (TMP).
 * Restrictions: per-peer counts need the node's count rows
 *   (TC_REQ_NODE_COUNTS: the generator fails without them); any mapping,
 *   unequal nodes, in place.
 * Source: Träff, Rougier 2014, sections 2 and 2.4.
 */
#include "algo/alltoallv/bridge_steps.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t) { return tc_bridge_alltoallv(s, a, t); }

const tc_algo tc_alltoallv_bridge = {
    .coll = TOPOCOLL_ALLTOALLV, .name = "bridge",
    .desc = "counts allgathered in the node -> gather (one bundle per node) -> exchange over the "
            "bridge of node roots -> scatter, derived datatypes place every part (Träff, Rougier 2014)",
    .req = TC_REQ_NODE_COUNTS, .generate = generate, .source = __FILE__,
};
