/* The steps of the alltoall "bridge" entries (bridge_steps.c): gather on
 * the node, exchange among the node roots, scatter on the node, as member-
 * set rounds (TC_OP_SUBCOLL) whose data movement the schedule spells out. */
#ifndef TC_ALGO_ALLTOALL_BRIDGE_STEPS_H
#define TC_ALGO_ALLTOALL_BRIDGE_STEPS_H

#include "algo/catalog.h"

/* How the node roots lay out the node's blocks and exchange them. */
typedef enum {
    TC_BRIDGE_BUNDLES,   /* gathered as one bundle per destination node: the exchange
                            moves one region per root pair ("bridge") */
    TC_BRIDGE_ROWS,      /* gathered as each member's p blocks: the exchange picks
                            single blocks ("bridge_a2a", "bridge_w") */
    TC_BRIDGE_PACK       /* packed node-sorted by every rank, reordered by explicit
                            copies at the roots ("bridge_pack") */
} tc_bridge_layout;

/* Rank a->rank's schedule (0, or an error). */
int tc_bridge_alltoall(tc_sched *s, const tc_args *a, const tc_topo *t, tc_bridge_layout how);

#endif
