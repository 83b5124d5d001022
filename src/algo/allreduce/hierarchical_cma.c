/*
 * allreduce "hierarchical:leaders=K,node=cma,x=X" (several nodes): the
 * hierarchical allreduce of hierarchical.c (node-level reduction to K
 * leaders, the leaders' allreduce of their segment across the nodes,
 * node-level broadcast; the multi-leader scheme of Kandalla, Subramoni,
 * Santhanaraman, Koop, Panda, "Designing Multi-Leader-Based Allgather
 * Algorithms for Multi-Core Clusters" (2009)) with single-copy node phases:
 * where the threads of Li, Hoefler, Snir, "NUMA-Aware Shared-Memory
 * Collective Communication for MPI" (2013) read each other's vectors, the
 * ranks of a node read each other's own buffers with Linux cross-memory
 * attach (process_vm_readv, the RREAD op of sched/sched.h); no vector is
 * copied into a node-shared window.  This file holds the two node phases;
 * the family, the segments and the leaders' exchange are hierarchical.c's.
 *
 * Steps (node of m ranks M[0..m-1], increasing; segment j led by
 *   M[j m / K]; a rank's input is its send buffer, its receive buffer in
 *   place):
 *   1. Every rank raises the flag of each other leader of its node (its
 *      buffers are published before round 0, so the leaders may read them
 *      from then on); a leader waits for the flags of the node's other
 *      ranks.  Then each leader reduces each of its segments chunk by chunk
 *      (at most CHUNK elements): acc = x_{m-1}; for i = m-2 down to 0,
 *      acc = x_i op acc, a peer's x_i read from its input into a scratch
 *      chunk; acc is the leader's receive buffer, or (in place, unless the
 *      leader is M[m-1], whose input is x_{m-1}) a scratch chunk copied
 *      there at the end.
 *   2. The leaders' exchange (hierarchical.c): each segment's leaders, one
 *      per node, allreduce it in their receive buffers.
 *   3. Each leader raises the flag of every other rank of its node (its
 *      segments are final); every rank waits for the flags of the other
 *      leaders, reads each segment it does not lead from its leader's
 *      receive buffer into its own, and raises those leaders' flags; a
 *      leader returns only after the flags of the node's other ranks (its
 *      receive buffer is read until then).
 *   A rank's input is read in step 1 only, before the flags of step 3 that
 *   it waits for before it writes its receive buffer (in place: its input)
 *   or returns; each element is combined once on a node, in rank order, and
 *   the leaders' exchange gives every leader the same bits (subset.h): every
 *   rank holds bitwise-identical results.
 * Cost (P nodes of m ranks, n elements): per leader (m-1) n / K read by
 *   process_vm_readv (one system call per peer and chunk) and (m-1) n / K
 *   gamma; no copy-in or copy-out; the leaders' phase that of X on P ranks
 *   with n/K elements; the broadcast (K-1) n / K read per leader, n per
 *   other rank (one system call per segment); three flags on the critical
 *   path.
 * Memory: scratch n (the leaders' exchange), or min(CHUNK, n/K) elements
 *   (in place: twice) where that is more; no node-shared data (the flags and
 *   the publication lines).
 * Restrictions: commutative operations (the family's); node-shared flags,
 *   cross-memory attach available on every rank of each node (probed when
 *   the communicator's context is made; TOPOCOLL_CMA=0 turns it off),
 *   contiguous datatypes (the API declines derived types with holes).  Any
 *   mapping, unequal nodes.
 * Source: Kandalla et al. 2009 (multiple leaders); Li, Hoefler, Snir 2013
 *   (node-level reduction and broadcast, threads reading each other's
 *   vectors).
 */
#include "algo/allreduce/hierarchical.h"

/* Elements per scratch chunk (as shm_tiled_cma.c). */
#define CHUNK ((int64_t)32768)

/* The scratch chunk: the largest segment, at most CHUNK elements. */
static int64_t chunk_of(const ar_hier *h)
{
    int64_t most = ar_hier_seg_lo(h, 1) - ar_hier_seg_lo(h, 0);   /* the first segments are the largest */
    return most < CHUNK ? most : CHUNK;
}

int64_t ar_hier_cma_tmp(const ar_hier *h)
{
    int64_t c = chunk_of(h);
    return h->a->in_place ? 2 * c : c;
}

/* Step 1 for elements [lo, lo + len) of a segment this rank leads. */
static void reduce_chunk(tc_sched *s, const ar_hier *h, int64_t lo, int64_t len)
{
    int me = h->a->rank, in = ar_hier_input(h), m = h->m;
    int direct = !h->a->in_place || h->M[m - 1] == me;   /* accumulate in the receive buffer */
    tc_region stage = tc_reg(TC_BUF_TMP, 0, len);
    tc_region acc = direct ? tc_reg(TC_BUF_RECV, lo, len) : tc_reg(TC_BUF_TMP, chunk_of(h), len);
    if (h->M[m - 1] != me) tc_sched_rread(s, h->M[m - 1], tc_reg(in, lo, len), acc);
    else if (!h->a->in_place) tc_sched_copy(s, tc_reg(in, lo, len), acc);
    for (int i = m - 2; i >= 0; i--) {
        if (h->M[i] == me) {
            tc_sched_reduce(s, tc_reg(in, lo, len), acc);
            continue;
        }
        tc_sched_rread(s, h->M[i], tc_reg(in, lo, len), stage);
        tc_sched_reduce(s, stage, acc);
    }
    if (!direct) tc_sched_copy(s, acc, tc_reg(TC_BUF_RECV, lo, len));
}

/* Flags to (raise) or from (wait) every other leader of the node, each once. */
static void other_leaders(tc_sched *s, const ar_hier *h, int raise)
{
    int prev = -1;
    for (int j = 0; j < h->K; j++) {
        int l = ar_hier_leader(h, h->node, j);
        if (l == prev || l == h->a->rank) continue;
        prev = l;
        if (raise) tc_sched_signal(s, l);
        else tc_sched_wait(s, l);
    }
}

/* Flags to (raise) or from (wait) every other rank of the node. */
static void other_ranks(tc_sched *s, const ar_hier *h, int raise)
{
    for (int i = 0; i < h->m; i++) {
        if (i == h->mi) continue;
        if (raise) tc_sched_signal(s, h->M[i]);
        else tc_sched_wait(s, h->M[i]);
    }
}

void ar_hier_reduce_cma(tc_sched *s, const ar_hier *h)
{
    int lead = ar_hier_leads(h, h->mi);
    other_leaders(s, h, 1);                 /* published: the leaders may read */
    if (lead) other_ranks(s, h, 0);
    tc_sched_round(s);
    for (int j = 0; j < h->K; j++) {
        if (ar_hier_leader(h, h->node, j) != h->a->rank) continue;
        int64_t lo = ar_hier_seg_lo(h, j), hi = ar_hier_seg_lo(h, j + 1);
        for (int64_t c = lo; c < hi; c += CHUNK) reduce_chunk(s, h, c, hi - c < CHUNK ? hi - c : CHUNK);
    }
    tc_sched_round(s);
}

void ar_hier_distribute_cma(tc_sched *s, const ar_hier *h)
{
    int lead = ar_hier_leads(h, h->mi);
    if (lead) other_ranks(s, h, 1);         /* the led segments are final */
    other_leaders(s, h, 0);
    tc_sched_round(s);
    for (int j = 0; j < h->K; j++) {
        int l = ar_hier_leader(h, h->node, j);
        if (l != h->a->rank) tc_sched_rread(s, l, ar_hier_seg(h, TC_BUF_RECV, 0, j), ar_hier_seg(h, TC_BUF_RECV, 0, j));
    }
    other_leaders(s, h, 1);                 /* read: the leaders may return */
    if (lead) other_ranks(s, h, 0);
    tc_sched_round(s);
}
