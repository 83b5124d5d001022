/*
 * alltoallv "pairwise": the p-round send-receive of Träff, Rougier, "MPI
 * Collectives and Datatypes for Hierarchical All-to-all Communication"
 * (2014), section 3, with per-peer counts and displacements.
 *
 * Steps: round k (1 <= k < p): rank r sends its part for (r+k) mod p and
 *   receives the part of (r-k) mod p; the own part is copied in round 1.
 *   Zero counts send nothing (both sides know the count).  With
 *   MPI_IN_PLACE the input is copied to scratch first.
 * Cost: (p-1) alpha + the largest part per round, beta.
 * Memory: none; RECV's span of scratch in place.
 * Restrictions: none.
 * Source: Träff, Rougier 2014, section 3; MPICH's pairwise alltoallv.
 */
#include "algo/cost_walk.h"
#include "algo/alltoallv/common.h"

int tc_av_pairwise_generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank;
    if (a->in_place && p == 1) return 0;
    av_save_input(s, a);
    tc_sched_copy(s, av_in(a, r), av_out(a, r));
    for (int k = 1; k < p; k++) {
        int dst = tc_wrap(r + k, p), src = tc_wrap(r - k, p);
        tc_sched_recv(s, src, av_out(a, src));
        tc_sched_send(s, dst, av_in(a, dst));
        tc_sched_round(s);
    }
    tc_sched_round(s);
    return 0;
}

/* Cost function: p-1 steps to rank+k of one part (n: the mean part). */
int tc_av_pairwise_cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    (void)a;
    return tc_cw_all_distances(c, t, n);
}

const tc_algo tc_alltoallv_pairwise = {
    .cost = tc_av_pairwise_cost,
    .coll = TOPOCOLL_ALLTOALLV, .name = "pairwise",
    .desc = "p-round send-receive with per-peer counts: round k sends to r+k, receives from r-k",
    .req = TC_REQ_NONE, .generate = tc_av_pairwise_generate, .source = __FILE__,
};
