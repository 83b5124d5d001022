/*
 * allgather "shm_inline" (one node, small blocks): every rank publishes its
 * block in node-shared memory and reads every other rank's block into its
 * place in the receive buffer.
 *
 * The one-copy-in, everyone-copies-out shared-memory exchange (the
 * intra-node step of Kandalla, Subramoni, Santhanaraman, Koop, Panda,
 * "Designing Multi-Leader-Based Allgather Algorithms for Multi-Core
 * Clusters" (2009), and the shared-memory collectives of Li, Hoefler, Snir,
 * "NUMA-Aware Shared-Memory Collective Communication for MPI" (2013)) with
 * the synchronisation of allreduce "shm_inline": the call's sequence number
 * travels in each 64-byte line of data (56 data bytes per line), so a block
 * of up to 56 bytes costs one line transfer per peer and no flags.
 *
 * Steps: (1) copy the own block (packed if its type is not contiguous) into
 *   the rank's slot line by line, each line's sequence number stored after
 *   its data (release); not in place, also copy it to its place in the
 *   receive buffer (from the send buffer); (2) for r = me+1, ...,
 *   me+p-1 (mod p), wait for rank r's lines of this call and copy them to
 *   block r (unpacked for a non-contiguous receive type).  Nobody waits for
 *   readers: the slots alternate between two parities, and a rank that read
 *   every slot of the previous call knows that nobody still reads the slot it
 *   is about to overwrite (src/exec/shm_inline.c).
 * Cost (p ranks, n bytes per block): n/56 line writes; (p-1) n/56 line
 *   reads, the first of each peer one transfer latency, the rest pipelined.
 * Memory: node-shared 2 p (ceil(n/56) + 1) lines; n bytes of private scratch.
 * Restrictions: every rank on one node, node-shared memory; any datatypes.
 * Source: Kandalla et al. 2009 and Li, Hoefler, Snir 2013 (shared-memory
 *   copy-in/copy-out); the sequence numbers inside the data lines are this
 *   library's.
 * Schedule: round 0 PUBLISH of the own block (not in place, also a COPY to
 *   its place); round 1 COLLECT of every other rank's block, from the next
 *   rank on (readers spread over the slots).  The line protocol is the
 *   PUBLISH / COLLECT semantics of sched.h (src/exec/shm_inline.c).
 */
#include "algo/catalog.h"
#include "blocks/ag_regions.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, me = a->rank;
    if (a->rcount == 0) return 0;
    if (p > 1) {   /* published first: the peers wait for it, not for our own copy */
        tc_sched_need_inline(s, a->rcount);
        tc_sched_publish(s, ag_own(a), a->rcount);
    }
    if (!a->in_place) tc_sched_copy(s, ag_own(a), ag_rbuf(a, me, 1));
    if (p == 1) return 0;
    tc_sched_round(s);
    for (int i = 1; i < p; i++) {
        int r = (me + i) % p;
        tc_sched_collect(s, r, a->rcount, ag_rbuf(a, r, 1));
    }
    tc_sched_round(s);
    return 0;
}

const tc_algo tc_allgather_shm_inline = {
    .coll = TOPOCOLL_ALLGATHER, .name = "shm_inline",
    .desc = "shared memory, every rank reads every block; sequence numbers inside the data's cache "
            "lines (small blocks)",
    .req = TC_REQ_NODE_SHM | TC_REQ_ONE_NODE | TC_REQ_INLINE, .generate = generate, .source = __FILE__,
};
