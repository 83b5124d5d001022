/*
 * alltoall "shm_inline" (one node, small blocks): every rank publishes its
 * whole send buffer (its p blocks) in node-shared memory, reads every other
 * rank's publication and keeps the block addressed to it.
 *
 * The inline lines of allgather "shm_inline" (the call's sequence number in
 * each 64-byte line of data, 56 data bytes per line: no flags, one line
 * transfer per 56 bytes read) for the small all-to-alls that applications
 * make before their irregular exchanges (one count per rank: MPI_Alltoall of
 * 4 or 8 bytes a block ahead of MPI_Alltoallv).  There, the messages of the
 * point-to-point algorithms cost a matching and a transport's latency each;
 * a publication of p blocks is a few lines, read once by each peer.  The
 * copy-in/copy-out exchange through node-shared memory is that of Li,
 * Hoefler, Snir, "NUMA-Aware Shared-Memory Collective Communication for
 * MPI" (2013), applied to an all-to-all.
 *
 * Steps: (1) copy the p blocks of the input into the rank's slot line by
 *   line, each line's sequence number stored after its data (release); not
 *   in place, also copy the own block to its place in the receive buffer
 *   (in place it is there already, and the input is in the slot before any
 *   block of the receive buffer is overwritten); (2) for r = me+1, ...,
 *   me+p-1 (mod p), wait for rank r's lines of this call and copy its p
 *   blocks to scratch; (3) copy block me of each of them to block r of the
 *   receive buffer.  Nobody waits for readers: the slots alternate between
 *   two parities (src/exec/shm_inline.c).
 * Cost (p ranks, n bytes per block): p n/56 line writes; (p-1) p n/56 line
 *   reads, the first of each peer one transfer latency, the rest pipelined;
 *   (p-1) n bytes copied out of scratch.  Every rank reads p times the data
 *   it keeps: for blocks of a few bytes to a few hundred (p n within a few
 *   KiB); larger all-to-alls are the point-to-point and hierarchical
 *   entries'.
 * Memory: node-shared 2 p (ceil(p n/56) + 1) lines; (p-1) p n bytes of
 *   private scratch.
 * Restrictions: every rank on one node, node-shared memory; any datatypes.
 * Source: Li, Hoefler, Snir 2013 (shared-memory copy-in/copy-out); the
 *   sequence numbers inside the data lines and the whole-buffer
 *   publication are this library's.
 * Schedule: round 0 PUBLISH of the p input blocks (not in place, also a
 *   COPY of the own block); round 1 COLLECT of every other rank's
 *   publication into its scratch blocks, from the next rank on (readers
 *   spread over the slots); round 2 a COPY of each publication's block me.
 */
#include "algo/alltoall/common.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, me = a->rank;
    int64_t all = (int64_t)p * a->rcount;   /* a publication, in receive-type elements */
    if (a->rcount == 0) return 0;
    if (p > 1) {   /* published first: the peers wait for it, not for our own copy */
        tc_sched_need_inline(s, all);
        tc_sched_publish(s, a2a_send(a, 0, p), all);
    }
    if (!a->in_place) tc_sched_copy(s, a2a_send(a, me, 1), a2a_recv(a, me, 1));
    if (p == 1) return 0;
    tc_sched_round(s);
    tc_sched_need_tmp(s, (int64_t)(p - 1) * all);
    for (int i = 1; i < p; i++)   /* peer me+i's publication: scratch blocks [(i-1) p, i p) */
        tc_sched_collect(s, (me + i) % p, all, a2a_blocks(a, TC_BUF_TMP, (int64_t)(i - 1) * p, p));
    tc_sched_round(s);
    for (int i = 1; i < p; i++)
        tc_sched_copy(s, a2a_blocks(a, TC_BUF_TMP, (int64_t)(i - 1) * p + me, 1), a2a_recv(a, (me + i) % p, 1));
    tc_sched_round(s);
    return 0;
}

const tc_algo tc_alltoall_shm_inline = {
    .coll = TOPOCOLL_ALLTOALL, .name = "shm_inline",
    .desc = "shared memory, every rank publishes its p blocks and reads its own block from every "
            "publication; sequence numbers inside the data's cache lines (small blocks)",
    .req = TC_REQ_NODE_SHM | TC_REQ_ONE_NODE | TC_REQ_INLINE, .generate = generate, .source = __FILE__,
};
