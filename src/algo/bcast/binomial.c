/*
 * bcast "binomial": MPICH's binomial tree (MPIR_Bcast_intra_binomial), the
 * small-message broadcast.
 *
 * Steps: with relative ranks v = (rank - root) mod p, v receives the whole
 *   buffer from its parent (v with its lowest set bit cleared), then sends it
 *   to every child v + 2^k, largest first.
 * Cost: ceil(log2 p) (alpha + n beta).
 * Memory: none.
 * Restrictions: none.
 * Source: Thakur, Rabenseifner, Gropp 2005; MPICH bcast_intra_binomial.
 */
#include "algo/cost_walk.h"
#include "algo/catalog.h"
#include "pattern/pattern.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, root = a->root, v = tc_mod(a->rank - root, p);
    tc_region all = tc_reg(TC_BUF_RECV, 0, a->rcount);
    int kids[32];
    if (v) {
        tc_sched_recv(s, (tc_binom_parent(v) + root) % p, all);
        tc_sched_round(s);
    }
    int nk = tc_binom_children(v, p, kids, 32);
    for (int i = 0; i < nk; i++) tc_sched_send(s, (kids[i] + root) % p, all);
    tc_sched_round(s);
    return 0;
}

/* Cost function: the tree from the root, one message of n per level. */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    int root = a->root >= 0 && a->root < t->size ? a->root : 0;
    for (int d = 1; d < t->size; d <<= 1) tc_cw_step(c, t, tc_cw_tree, &root, d, n);
    return 0;
}

const tc_algo tc_bcast_binomial = {
    .cost = cost,
    .coll = TOPOCOLL_BCAST, .name = "binomial",
    .desc = "binomial tree (MPICH): log p steps of the whole buffer (small messages)",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
