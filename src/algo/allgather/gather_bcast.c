/*
 * allgather "gather_bcast": binomial gather to rank 0, then binomial
 * broadcast of the whole result (algorithm 2 of Pappalardo, Rossi, Parisi,
 * Cosenza, Salimi Beni, "MPI_Allgather Optimization with P2P
 * Implementations").
 *
 * Steps: (1) each rank v receives the subtrees of its binomial children
 *   directly into their final place in its receive buffer, then sends its
 *   whole subtree [v, v + subtree(v)) to its parent; (2) rank 0 holds every
 *   block; each rank receives the full buffer from its parent and forwards it
 *   to its children, largest subtree first.
 * Cost: gather ceil(log p) alpha + (p-1)/p N beta, broadcast ceil(log p)
 *   (alpha + N beta), N = p n: the broadcast makes it the most expensive
 *   choice for large n; rank 0 is a hot spot.
 * Memory: none beyond the receive buffer (root 0 keeps blocks in place).
 * Restrictions: none.
 * Source: Pappalardo et al., algorithm 2 (MPI_Gather + MPI_Bcast); trees as
 *   in MPICH's binomial gather and broadcast.
 */
#include "algo/cost_walk.h"
#include "algo/allgather/common.h"
#include "pattern/pattern.h"

#define MAX_CHILDREN 32

static void gather(tc_sched *s, const tc_args *a)
{
    int p = a->size, v = a->rank;
    int kids[MAX_CHILDREN];
    int nk = tc_binom_children(v, p, kids, MAX_CHILDREN);
    /* smallest subtree first: its data is ready first */
    for (int i = nk - 1; i >= 0; i--)
        tc_sched_recv(s, kids[i], ag_rbuf(a, kids[i], tc_binom_subtree(kids[i], p)));
    if (v == 0) {
        tc_sched_copy(s, ag_own(a), ag_rbuf(a, 0, 1));
        tc_sched_round(s);
        return;
    }
    if (nk == 0) {              /* leaf: send straight from the user buffer */
        tc_sched_send(s, tc_binom_parent(v), ag_own(a));
        tc_sched_copy(s, ag_own(a), ag_rbuf(a, v, 1));
        tc_sched_round(s);
        return;
    }
    tc_sched_copy(s, ag_own(a), ag_rbuf(a, v, 1));
    tc_sched_round(s);
    tc_sched_send(s, tc_binom_parent(v), ag_rbuf(a, v, tc_binom_subtree(v, p)));
    tc_sched_round(s);
}

static void bcast(tc_sched *s, const tc_args *a)
{
    int p = a->size, v = a->rank;
    int kids[MAX_CHILDREN];
    int nk = tc_binom_children(v, p, kids, MAX_CHILDREN);
    if (v != 0) {
        tc_sched_recv(s, tc_binom_parent(v), ag_rbuf(a, 0, p));
        tc_sched_round(s);
    }
    for (int i = 0; i < nk; i++)
        tc_sched_send(s, kids[i], ag_rbuf(a, 0, p));
    tc_sched_round(s);
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    gather(s, a);
    bcast(s, a);
    return 0;
}

/* Cost function: a binomial gather to rank 0 (rank r sends its subtree of
 * min(d, p-r) blocks to r-d at d = 1, 2, ..), then a binomial broadcast of
 * the p blocks. */
static int tc_allgather_gather_bcast_cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    (void)a;
    int p = t->size;
    for (int d = 1; d < p; d <<= 1) tc_cw_step(c, t, tc_cw_subtree_up, NULL, d, n);
    for (int d = 1; d < p; d <<= 1) tc_cw_step(c, t, tc_cw_tree, NULL, d, p * n);
    return 0;
}

const tc_algo tc_allgather_gather_bcast = {
    .cost = tc_allgather_gather_bcast_cost,
    .coll = TOPOCOLL_ALLGATHER, .name = "gather_bcast",
    .desc = "binomial gather to rank 0, then binomial broadcast of the result",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
