/* The steps of the alltoallv "bridge" entries (bridge_steps.c): the node's
 * parts gathered at its root, exchanged among the roots as one bundle per
 * pair of nodes, scattered, as member-set rounds (TC_OP_SUBCOLL) laid out
 * from the node's count rows. */
#ifndef TC_ALGO_ALLTOALLV_BRIDGE_STEPS_H
#define TC_ALGO_ALLTOALLV_BRIDGE_STEPS_H

#include "algo/catalog.h"

/* Rank a->rank's schedule: 0, or 1 without the node's count rows
 * (TC_REQ_NODE_COUNTS not met). */
int tc_bridge_alltoallv(tc_sched *s, const tc_args *a, const tc_topo *t);

#endif
