/*
 * bcast "twotier_chunked_sockets": bcast "twotier_chunked" with the
 * topology's sockets as units: supernode = node, the paper's "node" =
 * socket, core = rank, as on the paper's own machine (e.g. spec 64x16x16:
 * 64 supernodes of 16 nodes of 16 cores).  Steps, costs, restrictions and readings of the paper:
 * src/algo/bcast/twotier_chunked.c.
 */
#include "algo/entries_issue4.h"
#include "blocks/twotier_plan.h"

const tc_algo tc_bcast_twotier_chunked_sockets = {
    .coll = TOPOCOLL_BCAST, .name = "twotier_chunked_sockets",
    .desc = "two-tier chunked broadcast (seed 004): chunks spread over the root's supernode, "
             "relayed over L2 twice, units = sockets of a node",
    .requires = "", .req = TC_REQ_NONE, .accepts = NULL, .generate = tt_bcast_chunked_generate,
    .param = &tt_param_sockets, .family = "twotier",
};
