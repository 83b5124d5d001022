/*
 * gather "twotier_sockets": gather "twotier" with the topology's sockets as
 * units: supernode = node, the paper's "node" = socket, core = rank, as on
 * the paper's own machine (e.g. spec 64x16x16: 64 supernodes of 16 nodes
 * of 16 cores).  Steps, costs, restrictions and readings of the paper:
 * src/algo/gather/twotier.c.
 */
#include "algo/entries_issue4.h"
#include "blocks/twotier_plan.h"

const tc_algo tc_gather_twotier_sockets = {
    .coll = TOPOCOLL_GATHER, .name = "twotier_sockets",
    .desc = "two-tier (seed 004): the two-tier scatter backwards, units = sockets of a node",
    .requires = "", .req = TC_REQ_NONE, .accepts = NULL, .generate = tt_gather_generate,
    .param = &tt_param_sockets, .family = "twotier",
};
