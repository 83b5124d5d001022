/*
 * Member maps: which ranks take part in one phase of a collective, and in
 * which order.  A hierarchical algorithm is a composition of phases
 * (aggregation inside a node or socket, the leaders' exchange, the
 * distribution), each one flat generator (ring, recursive doubling, Bruck,
 * ...) run over a member map; a flat algorithm is the same generator over
 * the identity map.  Generators work in member indices 0 .. n-1 (partners,
 * folds, "lower index op higher" reduction orders) and translate to ranks
 * only to address a message.  The idea is that of the rank maps of UCC
 * (ucc_ep_map_t: full, strided, array).
 *
 * A map is a view: ranks points into storage the caller keeps alive (the
 * groups of src/blocks/groups.h, a list built by the algorithm) or is NULL
 * for the identity map (member i is rank i).
 */
#ifndef TC_BLOCKS_MEMBERS_H
#define TC_BLOCKS_MEMBERS_H

#include "blocks/groups.h"

typedef struct tc_members {
    int n;             /* how many members */
    const int *ranks;  /* [n] rank of member i, in order; NULL: identity */
    int me;            /* the calling rank's member index (-1: not a member) */
} tc_members;

static inline int tc_member_rank(const tc_members *m, int i)
{ return m->ranks ? m->ranks[i] : i; }

/* Every rank of a communicator of p ranks, in rank order. */
static inline tc_members tc_members_all(int p, int rank)
{
    tc_members m = { p, 0, rank };
    return m;
}

/* The ranks listed in ranks[0..n), in that order; me: the caller's index. */
static inline tc_members tc_members_list(const int *ranks, int n, int me)
{
    tc_members m = { n, ranks, me };
    return m;
}

/* The members of group grp of g (leader first, then by increasing rank);
 * me is the index of rank there (-1 when rank is not in the group). */
tc_members tc_members_group(const tc_groups *g, int grp, int rank);

/* The leaders of every group of g in group order; me is the index of
 * rank's group when rank leads it, -1 otherwise. */
tc_members tc_members_leaders(const tc_groups *g, int rank);

#endif
