/*
 * alltoallv "linear": every receive and send with per-peer counts posted at
 * once (one round), as MPICH's and Open MPI's basic linear alltoallv.
 *
 * Steps: receives from r-1, r-2, ... and sends to r+1, r+2, ... (mod p) in
 *   one round; the own part is copied in it.  Zero counts send nothing.
 *   With MPI_IN_PLACE the input is copied to scratch first.
 * Cost: alpha + the sum of the parts, beta (all in flight at once).
 * Memory: none; RECV's span of scratch in place.
 * Restrictions: none.
 * Source: Träff, Rougier, "MPI Collectives and Datatypes for Hierarchical
 *   All-to-all Communication" (2014), section 3 (the baselines).
 */
#include "algo/cost_walk.h"
#include "algo/alltoallv/common.h"

int tc_av_linear_generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank;
    if (a->in_place && p == 1) return 0;
    av_save_input(s, a);
    tc_sched_copy(s, av_in(a, r), av_out(a, r));
    for (int k = 1; k < p; k++) tc_sched_recv(s, tc_wrap(r - k, p), av_out(a, tc_wrap(r - k, p)));
    for (int k = 1; k < p; k++) tc_sched_send(s, tc_wrap(r + k, p), av_in(a, tc_wrap(r + k, p)));
    tc_sched_round(s);
    return 0;
}

/* Cost function: one part to every other rank, priced as p-1 steps. */
int tc_av_linear_cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    (void)a;
    return tc_cw_all_distances(c, t, n);
}

const tc_algo tc_alltoallv_linear = {
    .cost = tc_av_linear_cost,
    .coll = TOPOCOLL_ALLTOALLV, .name = "linear",
    .desc = "linear with per-peer counts: all p-1 receives and sends posted at once",
    .req = TC_REQ_NONE, .generate = tc_av_linear_generate, .source = __FILE__,
};
