/*
 * bcast "twotier_sockets": bcast "twotier" with the topology's sockets as
 * units: supernode = node, the paper's "node" = socket, core = rank, as on
 * the paper's own machine (e.g. spec 64x16x16: 64 supernodes of 16 nodes
 * of 16 cores).  Steps, costs, restrictions and readings of the paper:
 * src/algo/bcast/twotier.c.
 */
#include "algo/entries_issue4.h"
#include "blocks/twotier_plan.h"

const tc_algo tc_bcast_twotier_sockets = {
    .coll = TOPOCOLL_BCAST, .name = "twotier_sockets",
    .desc = "two-tier base broadcast (seed 004): the scatter's four steps with the whole "
             "buffer, units = sockets of a node",
    .requires = "", .req = TC_REQ_NONE, .accepts = NULL, .generate = tt_bcast_generate,
    .param = &tt_param_sockets, .family = "twotier",
};
