/*
 * gather "twotier" / "twotier_sockets": seed 004's two-tier gather (section
 * 5.1: "Gather can be performed using this algorithm in the reverse
 * order"): the mirror image of scatter "twotier" (mirror.h).  Tiers
 * (supernode = topology node; unit = a rank, or a socket for _sockets) and
 * the round-robin wiring: twotier_plan.h.
 *
 * Steps (s0 = the root's supernode):
 *   1. Every core sends its block to its unit's leader.
 *   2. Every unit leader sends its unit's blocks to the leader holding its
 *      supernode's blocks: the root in s0, elsewhere the landing unit of the
 *      L2 link from s0.
 *   3. Every landing leader sends its supernode's blocks to the unit of s0
 *      its L2 link comes from.
 *   4. Every unit leader of s0 sends the root the blocks of the supernodes
 *      its L2 links reach.
 *   The root receives in plan order (supernode by supernode, unit by unit):
 *   straight into its receive buffer under a block mapping, else into
 *   scratch, then copies to rank order.
 * Cost (nps units per supernode, sn supernodes, n = p blocks, in-order):
 *   n beta max(1/nps, 1/sn) on the busiest link (the paper's Table 2).
 * Memory: as scatter "twotier" (scratch typed like the send buffer).
 * Restrictions: none: any p, root, mapping, unequal supernodes and units.
 * Source: Jain, Lau, Kale, "Collectives on two-tier direct networks",
 *   section 5.1 (seed 004).
 */
#include "algo/entries_issue4.h"
#include "blocks/mirror.h"
#include "blocks/twotier_plan.h"

int tt_gather_generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    return tc_gather_by_mirror(s, a, t, tt_scatter_generate);
}

const tc_algo tc_gather_twotier = {
    .coll = TOPOCOLL_GATHER, .name = "twotier",
    .desc = "two-tier (seed 004): the two-tier scatter backwards, units = ranks of a node",
    .requires = "", .req = TC_REQ_NONE, .accepts = NULL, .generate = tt_gather_generate,
    .param = &tt_param_ranks, .family = "twotier",
};
