/*
 * scan and exscan "shm_inline" (one node, small vectors): every rank
 * publishes its vector on the node's inline lines and folds the vectors of
 * the ranks below it, in rank order.
 *
 * The inline lines of allreduce "shm_inline" (Li, Hoefler, Snir,
 * "NUMA-Aware Shared-Memory Collective Communication for MPI", 2013, with
 * the sequence number in the data's own cache line): a vector of up to 56
 * bytes costs one line transfer per rank below, and no flag of its own.
 *
 * Steps: (1) copy the input into the rank's slot (sequence numbers after
 *   the data, release); (2) rank r folds ranks r, r-1, ..., 0 (exscan:
 *   r-1, ..., 0), each peer's lines waited for and collected, into
 *   c_0 op (c_1 op (... op c_r)) (algo/inline_fold.h over the first r + 1
 *   ranks).  Rank 0 of a scan only copies its input; nobody reads the last
 *   rank's publication.  The line protocol (slot parities, done lines, make
 *   room) is src/exec/shm_inline.c's.
 * Cost (n bytes): n/56 line writes; rank r reads r n/56 lines, the first of
 *   each peer one transfer latency, the rest pipelined, and reduces r n
 *   (the last rank the most: (p-1) n gamma).  For small n only.
 * Memory: node-shared 2 p (ceil(n/56) + 1) lines; n bytes of private scratch.
 * Restrictions: every rank on one node, node-shared memory; any operation
 *   (rank order kept).
 * Source: Li, Hoefler, Snir 2013 (inline synchronisation); the prefix fold
 *   is this library's.
 */
#include "algo/inline_fold.h"
#include "algo/scan/common.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int64_t n = a->scount;
    int ex = sc_exclusive(a), r = a->rank;
    s->tmp_like = TC_BUF_SEND;
    if (n == 0) return 0;
    if (a->size == 1) {
        if (!ex && !a->in_place) tc_sched_copy(s, sc_input(a), sc_result(a));
        return 0;
    }
    tc_inline_publish_input(s, a->in_place, n);
    tc_inline_fold(s, ex ? r : r + 1, r, a->in_place, n);
    return 0;
}

const tc_algo tc_scan_shm_inline = {
    .coll = TOPOCOLL_SCAN, .name = "shm_inline",
    .desc = "shared memory, every rank reads the vectors of the ranks below it and folds them in rank "
            "order; sequence numbers inside the data's cache lines (small vectors)",
    .req = TC_REQ_NODE_SHM | TC_REQ_ONE_NODE | TC_REQ_INLINE, .generate = generate, .source = __FILE__,
};

const tc_algo tc_exscan_shm_inline = {
    .coll = TOPOCOLL_EXSCAN, .name = "shm_inline",
    .desc = "shared memory, every rank reads the vectors of the ranks below it and folds them in rank "
            "order; sequence numbers inside the data's cache lines (small vectors)",
    .req = TC_REQ_NODE_SHM | TC_REQ_ONE_NODE | TC_REQ_INLINE, .generate = generate, .source = __FILE__,
};
