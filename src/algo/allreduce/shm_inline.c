/*
 * allreduce "shm_inline" (one node, small vectors): every rank reads every
 * rank's vector from node-shared memory and reduces them all, in rank order.
 *
 * The latency-bound end of the shared-memory allreduce of Li, Hoefler,
 * Snir, "NUMA-Aware Shared-Memory Collective Communication for MPI" (2013):
 * their dissemination and tree algorithms synchronise through flags beside
 * the data, so a reader waits for the flag's cache line and then fetches
 * the data's; here the sequence number travels in the data's own line (56
 * data bytes per 64-byte line), so a vector of up to 56 bytes costs one
 * line transfer per peer and no separate synchronisation.
 *
 * Steps: (1) copy the input into the rank's slot line by line, each line's
 *   sequence number stored after its data (release); (2) for r = p-1 down
 *   to 0, wait for rank r's lines of this call and fold them into the
 *   result: c_0 op (c_1 op (... op c_{p-1})).  There is no step 3: nobody
 *   waits for readers (the slots alternate between two parities; see
 *   src/exec/shm_inline.c for why that is safe; after a bcast or reduce
 *   "shm_inline" a rank checks the others' done lines before step 1).
 * Cost (p ranks, n bytes): n/56 line writes; (p-1) n/56 line reads, the
 *   first of each peer one transfer latency, the rest pipelined; (p-1) n
 *   gamma.  Every rank reduces the whole vector p-1 times: for small n only.
 * Memory: node-shared 2 p (ceil(n/56) + 1) lines; n bytes of private scratch.
 * Restrictions: every rank on one node, node-shared memory.  Every rank
 *   evaluates the same expression, so the results are bitwise identical and
 *   non-commutative operations keep MPI's order.
 * Schedule: round 0 PUBLISH of the input; round 1 the fold of
 *   algo/inline_fold.h (COLLECT and REDUCE ops).  The line protocol (make
 *   room, done lines) is the PUBLISH / COLLECT semantics of sched.h, run by
 *   src/exec/shm_inline.c.
 */
#include "algo/catalog.h"
#include "algo/inline_fold.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int64_t n = a->scount;
    if (n == 0) return 0;
    if (a->size == 1) {
        if (!a->in_place) tc_sched_copy(s, tc_reg(TC_BUF_SEND, 0, n), tc_reg(TC_BUF_RECV, 0, n));
        return 0;
    }
    tc_inline_publish_input(s, a->in_place, n);
    tc_inline_fold(s, a->size, a->rank, a->in_place, n);
    return 0;
}

const tc_algo tc_allreduce_shm_inline = {
    .coll = TOPOCOLL_ALLREDUCE, .name = "shm_inline",
    .desc = "shared memory, every rank reads all vectors and reduces them in rank order; sequence "
            "numbers inside the data's cache lines (small vectors)",
    .req = TC_REQ_NODE_SHM | TC_REQ_ONE_NODE | TC_REQ_INLINE, .generate = generate, .source = __FILE__,
};
