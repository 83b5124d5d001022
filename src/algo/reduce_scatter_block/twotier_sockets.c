/*
 * reduce_scatter_block "twotier_sockets": reduce_scatter_block "twotier" with the topology's sockets as
 * units: supernode = node, the paper's "node" = socket, core = rank, as on
 * the paper's own machine (e.g. spec 64x16x16: 64 supernodes of 16 nodes
 * of 16 cores).  Steps, costs, restrictions and readings of the paper:
 * src/algo/reduce_scatter_block/twotier.c.
 */
#include "algo/entries_issue4.h"
#include "blocks/twotier_plan.h"

const tc_algo tc_reduce_scatter_block_twotier_sockets = {
    .coll = TOPOCOLL_REDUCE_SCATTER_BLOCK, .name = "twotier_sockets",
    .desc = "two-tier (seed 004): owner-based reduction in stages, scattered per supernode, "
             "units = sockets of a node",
    .requires = "commutative operation", .req = TC_REQ_NONE,
    .accepts = tc_accepts_commutative, .generate = tt_rsb_generate, .param = &tt_param_sockets,
    .family = "twotier",
};
