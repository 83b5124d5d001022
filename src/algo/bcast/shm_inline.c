/*
 * bcast "shm_inline" (one node, small messages): the root publishes its
 * buffer in node-shared memory and every other rank reads it.
 *
 * The one-stage broadcast of Li, Hoefler, Snir, "NUMA-Aware Shared-Memory
 * Collective Communication for MPI" (2013), section 3.3, with the
 * synchronisation of allreduce "shm_inline": the call's sequence number
 * travels in each 64-byte line of data (56 data bytes per line), so a
 * message of up to 56 bytes costs each reader one line transfer.
 *
 * Steps: root: (1) if a reader may still read the root's slot of this
 *   call's parity (two calls back), wait until every rank's done line says
 *   it finished that call; (2) copy the buffer (packed if its type is not
 *   contiguous) into its slot line by line, each line's sequence number
 *   stored after its data (release).  Others: wait for the root's lines of
 *   this call and copy them out (unpacked for a non-contiguous type).
 *   Everyone: store the call's number in its done line (release).
 * Reuse: with one writer, nothing in the protocol's data flow stops the root
 *   from running ahead of a slow reader, so the root checks the readers'
 *   done lines before overwriting a parity: it publishes call s only once
 *   every reader finished call s-2, so it is never more than two calls
 *   ahead; the argument, for every mix of inline calls, is in
 *   src/exec/shm_inline.c.  In a run of broadcasts the check reads lines
 *   that the readers wrote a call earlier, off the readers' critical path.
 * Cost (p ranks, n bytes): root n/56 line writes and p-1 done-line reads;
 *   each reader n/56 line reads (the first one transfer latency, the rest
 *   pipelined) and one done-line write.
 * Memory: node-shared 2 p (ceil(n/56) + 1) lines; n bytes of private scratch.
 * Restrictions: every rank on one node, node-shared memory; any datatype.
 * Source: Li, Hoefler, Snir 2013, section 3.3 (one-stage broadcast); the
 *   sequence numbers inside the data lines and the done lines are this
 *   library's.
 * Schedule: root PUBLISH of the buffer (in bytes: the MPI layer packs a
 *   non-contiguous type), the others COLLECT of the root's slot.  Steps (1)
 *   and the done lines are the PUBLISH / COLLECT semantics of sched.h
 *   (src/exec/shm_inline.c).
 */
#include "algo/catalog.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int64_t n = a->rcount;
    if (n == 0 || a->size == 1) return 0;
    tc_sched_need_inline(s, n);
    if (a->rank == a->root) tc_sched_publish(s, tc_reg(TC_BUF_RECV, 0, n), n);
    else tc_sched_collect(s, a->root, n, tc_reg(TC_BUF_RECV, 0, n));
    tc_sched_round(s);
    return 0;
}

const tc_algo tc_bcast_shm_inline = {
    .coll = TOPOCOLL_BCAST, .name = "shm_inline",
    .desc = "shared memory, the root publishes and every rank reads; sequence numbers inside the "
            "data's cache lines (small messages)",
    .req = TC_REQ_NODE_SHM | TC_REQ_ONE_NODE | TC_REQ_INLINE, .generate = generate, .source = __FILE__,
};
