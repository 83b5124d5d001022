/*
 * alltoallv "bridge_dt": the hierarchical irregular all-to-all of Träff,
 * Rougier, "MPI Collectives and Datatypes for Hierarchical All-to-all
 * Communication" (2014), sections 2.3 and 2.4, as a zero-copy composition
 * of MPI collectives over the cached node and bridge communicators: the
 * node's counts allgathered node-locally, MPI_Gatherv to the node root with
 * an indexed send type that reads every rank's parts in node-sorted order
 * from its own buffer, MPI_Alltoallw over the bridge of roots with one
 * hindexed type per node each way (the parts for node B picked out of the
 * gathered rows, B's bundle placed into the members' chunks), and
 * MPI_Scatterv with an indexed receive type that writes every part to its
 * displacement in the user's buffer.  No pack or unpack copy: the MPI
 * library moves every byte (beside "bridge", which packs).
 * Cost: the count exchange, one MPI_Allreduce of one int (whether a root's
 *   buffer passes MPI's int counts: then every rank calls PMPI_Alltoallv
 *   instead), the three collectives (MPI_Alltoallw: not scalable, 2 G
 *   types per root and call), 2 + 2 G datatypes made and freed per call
 *   (the roots' types have n_A n_B blocks each: O(n_A p) per root).
 * Memory: at the roots the node's parts twice (rows and chunks), no copy
 *   of the own parts anywhere; the datatypes' block lists.
 * Restrictions: none (any mapping, unequal nodes, datatypes with gaps, in
 *   place); no schedule (TC_REQ_COMPOSED): run by src/api/node_counts_dt.c.
 * Source: Träff, Rougier 2014, sections 2.2-2.4 (derived datatypes for the
 *   node-sorted order; the all-to-all's types pick per node, as their first
 *   solution, since nodes and parts differ in size).
 */
#include "algo/catalog.h"

const tc_algo tc_alltoallv_bridge_dt = {
    .coll = TOPOCOLL_ALLTOALLV, .name = "bridge_dt",
    .desc = "counts allgathered in the node -> gatherv with an indexed send type (node-sorted) -> "
            "alltoallw over the bridge (a hindexed type per node) -> scatterv with an indexed receive "
            "type: zero-copy (MPI collectives)",
    .req = TC_REQ_COMPOSED | TC_REQ_NODE_COUNTS, .generate = NULL, .source = __FILE__,
};
