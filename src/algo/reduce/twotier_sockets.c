/*
 * reduce "twotier_sockets": reduce "twotier" with the topology's sockets as
 * units: supernode = node, the paper's "node" = socket, core = rank, as on
 * the paper's own machine (e.g. spec 64x16x16: 64 supernodes of 16 nodes
 * of 16 cores).  Steps, costs, restrictions and readings of the paper:
 * src/algo/reduce/twotier.c.
 */
#include "algo/entries_issue4.h"
#include "blocks/twotier_plan.h"

const tc_algo tc_reduce_twotier_sockets = {
    .coll = TOPOCOLL_REDUCE, .name = "twotier_sockets",
    .desc = "two-tier (seed 004): owner-based reduction in stages, units = sockets of a node",
    .requires = "commutative operation", .req = TC_REQ_NONE,
    .accepts = tc_accepts_commutative, .generate = tt_reduce_generate, .param = &tt_param_sockets,
    .family = "twotier",
};
