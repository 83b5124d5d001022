/*
 * alltoallv "bridge": the hierarchical irregular all-to-all of Träff,
 * Rougier, "MPI Collectives and Datatypes for Hierarchical All-to-all
 * Communication" (2014), section 2.4, as a composition of MPI collectives
 * over the cached node and bridge communicators (as the alltoall entry
 * "bridge_pack"): the node's counts allgathered node-locally, every rank's
 * parts packed node-sorted (bytes), MPI_Gatherv to the node root, which
 * reorders them into one bundle per node, MPI_Alltoallv of the bundles
 * (sizes from the node's counts) over the bridge of node roots, a reorder
 * into one chunk per member, MPI_Scatterv, and every rank copies its parts
 * to their displacements.
 * Cost: the count exchange, one MPI_Allreduce of one int (whether a root's
 *   buffer passes MPI's int counts: then every rank calls PMPI_Alltoallv
 *   instead), the three collectives, two copies of the node's data at the
 *   root, a pack and an unpack at every rank.
 * Memory: the own parts twice; at the roots the node's parts four times.
 * Restrictions: none (any mapping, unequal nodes); no schedule
 *   (TC_REQ_COMPOSED): run by src/api/node_counts.c.
 * Source: Träff, Rougier 2014, sections 2 and 2.4.
 */
#include "algo/catalog.h"

const tc_algo tc_alltoallv_bridge = {
    .coll = TOPOCOLL_ALLTOALLV, .name = "bridge",
    .desc = "counts allgathered in the node -> pack node-sorted -> gatherv -> reorder -> alltoallv "
            "over the bridge -> reorder -> scatterv -> unpack (MPI collectives)",
    .req = TC_REQ_COMPOSED | TC_REQ_NODE_COUNTS, .generate = NULL, .source = __FILE__,
};
