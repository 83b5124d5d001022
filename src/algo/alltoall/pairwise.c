/*
 * alltoall "pairwise": the p-round send-receive of Träff, Rougier, "MPI
 * Collectives and Datatypes for Hierarchical All-to-all Communication"
 * (2014), section 3 (MPICH's pairwise exchange for long messages).
 *
 * Steps: round k (1 <= k < p): rank r sends its block for (r+k) mod p to
 *   that rank and receives the block of (r-k) mod p from it; the own block
 *   is copied during round 1.  With MPI_IN_PLACE the input is first copied
 *   to scratch (it is overwritten while blocks not yet sent are still in it).
 * Cost: (p-1) (alpha + n beta) for n bytes per block; one message in and
 *   one out per round.
 * Memory: none; p blocks of scratch in place.
 * Restrictions: none: any p, any mapping.
 * Source: Träff, Rougier 2014, section 3 ("p-round send-receive").
 */
#include "algo/cost_walk.h"
#include "algo/alltoall/common.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank;
    if (a->in_place && p == 1) return 0;
    if (a->in_place) tc_sched_need_tmp(s, (int64_t)p * a->rcount);
    a2a_save_input(s, a, 0);
    tc_sched_copy(s, a2a_in(a, 0, r), a2a_recv(a, r, 1));
    for (int k = 1; k < p; k++) {
        int dst = tc_wrap(r + k, p), src = tc_wrap(r - k, p);
        tc_sched_recv(s, src, a2a_recv(a, src, 1));
        tc_sched_send(s, dst, a2a_in(a, 0, dst));
        tc_sched_round(s);
    }
    tc_sched_round(s);
    return 0;
}

/* Shift form: round k-1 sends one block to r+k (in place, a first round
 * saves the input: the generator's schedule). */
static int shift_form(const tc_args *a, const tc_topo *t, tc_shift_sink sink, void *ctx)
{
    (void)t;
    int rc = 0;
    if (a->size < 2 || a->scount <= 0 || a->in_place) return TC_SHIFT_NONE;
    for (int k = 1; k < a->size && rc == 0; k++) {
        tc_shift_round rd = { 1, &k, &a->scount, 0, 0, 1, 0 };
        rc = sink(ctx, &rd);
    }
    return rc;
}

/* Cost function: p-1 steps to rank+k of one block. */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    (void)a;
    return tc_cw_all_distances(c, t, n);
}

const tc_algo tc_alltoall_pairwise = {
    .cost = cost,
    .coll = TOPOCOLL_ALLTOALL, .name = "pairwise",
    .desc = "p-round send-receive: round k sends to r+k and receives from r-k",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__, .shift = shift_form,
};
