/*
 * gather family "twotier:units=ranks|sockets" (aliases "twotier",
 * "twotier_sockets"; twotier_family.h): the two-tier gather (section
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
 * Source: Jain, Lau, Kale, "Collectives on Two-tier Direct Networks"
 *   (2012), section 5.1.
 */
#include "algo/twotier_family.h"
#include "blocks/mirror.h"
#include "blocks/twotier_plan.h"

static int tt_gather_generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    return tc_gather_by_mirror(s, a, t, tt_scatter_generate);
}

const tc_family tc_gather_twotier = {
    .cost = tt_cost,
    .coll = TOPOCOLL_GATHER, .name = "twotier",
    .summary = "two-tier: the two-tier scatter backwards",
    .source = __FILE__, .nparams = 1, .params = tt_units_params, .rule = "",
    .describe = tt_family_describe, .req = TC_REQ_NONE, .generate = tt_gather_generate,
};
