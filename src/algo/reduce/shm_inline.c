/*
 * reduce "shm_inline" (one node, small vectors): every rank publishes its
 * vector in node-shared memory; the root reads them all and reduces them in
 * rank order.
 *
 * The flat shared-memory reduction of Li, Hoefler, Snir, "NUMA-Aware
 * Shared-Memory Collective Communication for MPI" (2013) at its
 * latency-bound end, with the synchronisation of allreduce "shm_inline":
 * the call's sequence number travels in each 64-byte line of data (56 data
 * bytes per line), so a vector of up to 56 bytes costs the root one line
 * transfer per peer and no flags.
 *
 * Steps: every rank: (1) if a reader may still read its slot of this call's
 *   parity (two calls back), wait until every rank's done line says it
 *   finished that call; (2) copy its input (packed if its type is not
 *   contiguous) into its slot line by line, each line's sequence number
 *   stored after its data (release).  Root: (3) for r = p-1 down to 0, wait
 *   for rank r's lines of this call and fold them into the result:
 *   c_0 op (c_1 op (... op c_{p-1})), the expression allreduce "shm_inline"
 *   evaluates.  Everyone: store the call's number in its done line.
 * Reuse: the non-roots read nothing, so nothing in the data flow stops them
 *   from running ahead of the root; step (1) bounds them (a non-root
 *   publishes call s only once the root finished call s-2).  The root read
 *   every slot of the previous call and skips the check after a reduce.  The
 *   argument, for every mix of inline calls, is in src/exec/shm_inline.c.
 * Cost (p ranks, n bytes): every rank n/56 line writes (a non-root also p-1
 *   done-line reads); the root (p-1) n/56 line reads and (p-1) n gamma.
 * Memory: node-shared 2 p (ceil(n/56) + 1) lines; n bytes of private
 *   scratch (the root: plus a typed copy for non-contiguous types).
 * Restrictions: every rank on one node, node-shared memory.  Non-commutative
 *   operations keep MPI's order.
 * Source: Li, Hoefler, Snir 2013 (shared-memory reduction); the sequence
 *   numbers inside the data lines and the done lines are this library's.
 * Schedule: every rank round 0 PUBLISH of the input; the root round 1 the
 *   fold of algo/inline_fold.h (COLLECT and REDUCE ops).  Steps (1) and the
 *   done lines are the PUBLISH / COLLECT semantics of sched.h.
 */
#include "algo/catalog.h"
#include "algo/inline_fold.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int64_t n = a->scount;
    int root = a->rank == a->root, in_place = root && a->in_place;
    if (n == 0) return 0;
    if (a->size == 1) {
        if (!in_place) tc_sched_copy(s, tc_reg(TC_BUF_SEND, 0, n), tc_reg(TC_BUF_RECV, 0, n));
        return 0;
    }
    tc_inline_publish_input(s, in_place, n);
    if (root) tc_inline_fold(s, a->size, a->rank, in_place, n);
    return 0;
}

const tc_algo tc_reduce_shm_inline = {
    .coll = TOPOCOLL_REDUCE, .name = "shm_inline",
    .desc = "shared memory, every rank publishes its vector, the root reads and reduces them in rank "
            "order; sequence numbers inside the data's cache lines (small vectors)",
    .req = TC_REQ_NODE_SHM | TC_REQ_ONE_NODE | TC_REQ_INLINE, .generate = generate, .source = __FILE__,
};
