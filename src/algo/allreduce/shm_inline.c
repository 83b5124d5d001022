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
 * No schedule: the protocol (sequence numbers inside the data lines) is not
 *   one of the schedule model's operations, so the MPI layer runs it
 *   directly (src/exec/shm_inline.c); the verifier and the simulator do not
 *   see it, the MPI tests run it like every other entry.
 */
#include "algo/catalog.h"

const tc_algo tc_allreduce_shm_inline = {
    .coll = TOPOCOLL_ALLREDUCE, .name = "shm_inline",
    .desc = "shared memory, every rank reads all vectors and reduces them in rank order; sequence "
            "numbers inside the data's cache lines (small vectors)",
    .req = TC_REQ_NODE_SHM | TC_REQ_ONE_NODE | TC_REQ_DIRECT, .generate = NULL, .source = __FILE__,
};
