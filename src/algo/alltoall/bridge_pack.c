/*
 * alltoall "bridge_pack": the hierarchical scheme of Träff, Rougier, "MPI
 * Collectives and Datatypes for Hierarchical All-to-all Communication"
 * (2014) with explicit copies instead of derived datatypes, to compare
 * against their zero-copy versions ("bridge", "bridge_a2a", "bridge_w"):
 * every rank copies its blocks node-sorted into scratch, gather of the
 * packed blocks to the node root, which copies them into one bundle per
 * node, exchange of the bundles over the bridge, a copy into one part per
 * member, scatter of the parts, and every rank copies its part into rank
 * order.  Local rounds and member-set rounds (layout PACK in
 * src/algo/alltoall/bridge_steps.c; executor: src/exec/subcoll.c).
 * Cost: the three collectives plus two copies of p n blocks at the root and
 *   two of p blocks at every rank.
 * Memory: p blocks at every rank, 2 p n_A more at the roots.
 * Restrictions: none (any mapping, unequal nodes).
 * Source: Träff, Rougier 2014, section 2 (the scheme of Figure 1).
 */
#include "algo/alltoall/bridge_steps.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    return tc_bridge_alltoall(s, a, t, TC_BRIDGE_PACK);
}

const tc_algo tc_alltoall_bridge_pack = {
    .coll = TOPOCOLL_ALLTOALL, .name = "bridge_pack",
    .desc = "pack node-sorted -> gather -> reorder -> exchange over the bridge -> reorder -> "
            "scatter -> unpack (explicit copies instead of datatypes)",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
