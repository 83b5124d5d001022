/*
 * alltoall "bridge_pack": the hierarchical scheme of Träff, Rougier, "MPI
 * Collectives and Datatypes for Hierarchical All-to-all Communication"
 * (2014) with explicit packing instead of derived datatypes, to compare
 * against their zero-copy versions ("bridge", "bridge_a2a", "bridge_w"):
 * every rank packs its blocks in node-sorted order (MPI_Pack with the
 * indexed-block type), MPI_Gather of the packed bytes to the node root,
 * which reorders them into one bundle per node with memcpy, MPI_Alltoallv
 * of the bundles (bytes) over the bridge, a memcpy reorder into one part per
 * rank, MPI_Scatter of the parts, and MPI_Unpack into rank order.
 * Cost: the three collectives plus two copies of p n blocks at the root and
 *   a pack and an unpack of p blocks at every rank.
 * Memory: p blocks packed at every rank, 2 p n_A at the roots.
 * Restrictions: none (any mapping, unequal nodes); no schedule
 *   (TC_REQ_COMPOSED): run by src/api/composed.c.
 * Source: Träff, Rougier 2014, section 2 (the scheme of Figure 1).
 */
#include "algo/alltoall/bridge_steps.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    return tc_bridge_alltoall(s, a, t, TC_BRIDGE_PACK);
}

const tc_algo tc_alltoall_bridge_pack = {
    .coll = TOPOCOLL_ALLTOALL, .name = "bridge_pack",
    .desc = "pack node-sorted -> gather -> reorder -> alltoallv over the bridge -> reorder -> "
            "scatter -> unpack (explicit copies instead of datatypes)",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
