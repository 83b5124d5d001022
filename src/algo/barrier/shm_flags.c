/*
 * barrier "shm_flags" (one node): a dissemination barrier over the
 * node-shared flags (SIGNAL / WAIT of sched/sched.h), no MPI message.
 *
 * Steps: in round k = 0 .. ceil(log2 p) - 1 (distance d = 2^k) rank r
 *   raises the flag of (r + d) mod p and waits for the flag of
 *   (r - d) mod p.  The flags are counters (src/exec/shm.h: the n-th wait
 *   on a peer waits for its n-th signal), so consecutive barriers need no
 *   sense reversal and no reset.
 * Cost: ceil(log2 p) flag latencies (a release store and an acquire load of
 *   one cache line), no bytes.
 * Memory: none besides the flag lines every node-shared schedule has.
 * Restrictions: every rank on one node, node-shared memory.
 * Source: Hensgen, Finkel, Manber, "Two algorithms for barrier
 *   synchronization" (1988), over flags in shared memory as in Li, Hoefler,
 *   Snir, "NUMA-Aware Shared-Memory Collective Communication for MPI" (2013).
 */
#include "algo/cost_walk.h"
#include "algo/catalog.h"
#include "pattern/pattern.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank;
    for (int d = 1; d < p; d <<= 1) {
        tc_sched_signal(s, tc_wrap(r + d, p));
        tc_sched_wait(s, tc_wrap(r - d, p));
        tc_sched_round(s);
    }
    return 0;
}

/* Cost function: ceil(log2 p) flags inside the node. */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    (void)a;
    (void)n;
    tc_cw_path(c, tc_cw_intra_level(t), tc_cw_ceil_log2(t->size), 0);
    return 0;
}

const tc_algo tc_barrier_shm_flags = {
    .cost = cost,
    .coll = TOPOCOLL_BARRIER, .name = "shm_flags",
    .desc = "dissemination over node-shared flags (one node): ceil(log2 p) rounds, no message",
    .req = TC_REQ_NODE_SHM | TC_REQ_ONE_NODE, .generate = generate, .source = __FILE__,
};
