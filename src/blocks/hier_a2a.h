/*
 * The hierarchical all-to-all of Träff, Rougier, "MPI Collectives and
 * Datatypes for Hierarchical All-to-all Communication" (2014), section 2,
 * as one schedule generator for the alltoall and the alltoallv families
 * (src/algo/alltoall/hierarchical.c, src/algo/alltoallv/hierarchical.c):
 * k leaders per node, each handling a share of the destination nodes, the
 * node-local phases over messages or node-shared memory.  The steps, costs
 * and memory are in hier_a2a.c.
 *
 * Parts.  The generator sees the data only as parts: the part member i of
 * the calling rank's node sends to rank j has S(i, j) units of scratch
 * (TMP, laid out in receive-type elements), the part i receives from j
 * R(i, j) units; the calling rank reads its part for rank j from its input
 * side and writes its part from rank j to its output side (a buffer with a
 * count and displacement per peer, or equal parts one after another).  The
 * caller says where the counts come from:
 *   equal parts (alltoall; alltoallv without per-peer counts): node_sc and
 *     node_rc NULL, every part `unit` units;
 *   per-peer parts (alltoallv): node_sc / node_rc, the count rows of every
 *     member of the node ([i * size + j], tc_args.node_sc / node_rc, which
 *     the consumer gathers node-locally: TC_REQ_NODE_COUNTS).
 * Every rank of a node lays out the node-shared area from the same rows,
 * so the ranks of a node agree on its size.
 */
#ifndef TC_BLOCKS_HIER_A2A_H
#define TC_BLOCKS_HIER_A2A_H

#include "coll/coll.h"
#include "sched/sched.h"
#include "topo/topo.h"

enum { TC_A2A_HIER_MAX_LEADERS = 4 };

/* One side of the calling rank's parts: part j is buf[displs[j], counts[j]]
 * (in the buffer's elements), or without displs buf[j * count, count]. */
typedef struct tc_a2a_side {
    int buf;                        /* TC_BUF_SEND or TC_BUF_RECV */
    const int64_t *counts, *displs; /* [size], or both NULL */
    int64_t count;
} tc_a2a_side;

typedef struct tc_a2a_parts {
    const int64_t *node_sc, *node_rc;   /* [node size * size] rows, or both NULL */
    int64_t unit;                       /* every part's units without rows */
    tc_a2a_side in;                     /* my input parts (read before any output is written) */
    tc_a2a_side out;                    /* my output parts */
} tc_a2a_parts;

/* The schedule of rank a->rank with min(leaders, node size) leaders per
 * node (1 <= leaders <= TC_A2A_HIER_MAX_LEADERS), the node-local phases over
 * node-shared memory (shm) or messages.  0, or 1 without memory. */
int tc_a2a_hier_generate(tc_sched *s, const tc_args *a, const tc_topo *t, const tc_a2a_parts *parts,
                         int leaders, int shm);

#endif
