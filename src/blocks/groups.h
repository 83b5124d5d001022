/*
 * Leader groups for hierarchical algorithms: the ranks of every node split
 * into groups, each with a leader, from the topology alone.
 *
 *   TC_GROUPS_NODE    one group per node (single leader);
 *   TC_GROUPS_SOCKET  one group per socket / NUMA domain of the node;
 *   TC_GROUPS_K       min(k, node size) groups per node, contiguous chunks
 *                     of the node's ranks in socket-major order, sizes as
 *                     even as possible.
 * Placement: spread (the leader is the first rank of its group, so leaders
 * sit on different sockets when groups follow sockets) or packed (group i's
 * leader is the i-th rank of the node in socket-major order, so all leaders
 * crowd onto the first socket: the counter-case of Figure 7 of Kandalla,
 * Subramoni, Santhanaraman, Koop, Panda, "Designing Multi-Leader-Based
 * Allgather Algorithms for Multi-Core Clusters" (2009)).
 *
 * Groups are numbered node by node; inside a group the leader comes first,
 * then the other members by increasing rank.  members[] in group order is
 * the "group-major" layout: position x holds rank members[x].
 * Works for any mapping and unequal nodes and sockets.
 */
#ifndef TC_ALGO_GROUPS_H
#define TC_ALGO_GROUPS_H

#include "topo/topo.h"

enum { TC_GROUPS_NODE = 0, TC_GROUPS_SOCKET = 1, TC_GROUPS_K = 2 };

typedef struct tc_groups {
    int p, ngroups;
    int *group_of;   /* [p] group of each rank */
    int *pos;        /* [p] position of each rank in the group-major layout */
    int *start;      /* [ngroups+1] first position of each group */
    int *members;    /* [p] rank at each position */
    int *leaders;    /* [ngroups] */
    int *node_first; /* [nnodes+1] groups of node n: node_first[n] .. node_first[n+1]-1 */
} tc_groups;

/* Returns 0, or ENOMEM. */
int tc_groups_build(tc_groups *g, const tc_topo *t, int mode, int k, int packed);
void tc_groups_free(tc_groups *g);

/* The groups of (mode, k, packed) for t, built once and cached on the
 * topology (tc_topo_get_view): generators of every rank share them.  NULL when
 * memory ran out. */
const tc_groups *tc_groups_of(const tc_topo *t, int mode, int k, int packed);

static inline int tc_groups_size(const tc_groups *g, int grp)
{ return g->start[grp + 1] - g->start[grp]; }

#endif
