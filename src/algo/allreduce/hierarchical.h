/*
 * The hierarchical allreduce (hierarchical.c: the family, its node phases
 * and the leaders' exchange): the call as seen from this rank's node, the
 * K segments of the vector and their leaders.  Segment j is elements [ar_hier_seg_lo(j), ar_hier_seg_lo(j+1));
 * its leader on node nd is the rank at position j m / K of the node's ranks
 * (m of them, increasing), so a node of fewer than K ranks has ranks leading
 * several segments, and the leaders of one node are in segment order.
 */
#ifndef TC_ALGO_ALLREDUCE_HIERARCHICAL_H
#define TC_ALGO_ALLREDUCE_HIERARCHICAL_H

#include "algo/catalog.h"

/* The node phases: node=shm (copy=in), node=p2p, node=shm,copy=cma. */
enum { AR_NODE_SHM, AR_NODE_P2P, AR_NODE_CMA };

typedef struct ar_hier {
    const tc_args *a;
    const tc_topo *t;
    int K, node_mode, x;
    int node, m, mi;          /* this rank's node, its size, this rank's index */
    const int *M;             /* the node's ranks */
    int64_t n;
} ar_hier;

static inline int64_t ar_hier_seg_lo(const ar_hier *h, int j)
{
    int64_t per = h->n / h->K, extra = h->n % h->K;
    return (int64_t)j * per + (j < extra ? j : extra);
}

/* Segment j of buffer buf, from element base on. */
static inline tc_region ar_hier_seg(const ar_hier *h, int buf, int64_t base, int j)
{
    return tc_reg(buf, base + ar_hier_seg_lo(h, j), ar_hier_seg_lo(h, j + 1) - ar_hier_seg_lo(h, j));
}

/* Segment j's leader on node nd. */
static inline int ar_hier_leader(const ar_hier *h, int nd, int j)
{
    int m = tc_topo_node_size(h->t, nd);
    return h->t->node_ranks[h->t->node_start[nd] + (int)((int64_t)j * m / h->K)];
}

/* Does this node's rank at index i lead a segment? */
static inline int ar_hier_leads(const ar_hier *h, int i)
{
    for (int j = 0; j < h->K; j++)
        if ((int)((int64_t)j * h->m / h->K) == i) return 1;
    return 0;
}

static inline int ar_hier_input(const ar_hier *h) { return h->a->in_place ? TC_BUF_RECV : TC_BUF_SEND; }

#endif
