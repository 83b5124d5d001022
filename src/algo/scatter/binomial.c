/*
 * scatter "binomial": MPICH's binomial tree (MPIR_Scatter_intra_binomial),
 * a baseline of Table 1 of Jain, Lau, Kale, "Collectives on Two-tier Direct
 * Networks" (2012).
 *
 * Steps: with relative ranks v = (rank - root) mod p, the subtree of v is
 *   [v, v + size) (pattern.h); v receives its subtree's blocks from its
 *   parent (v with its lowest set bit cleared), keeps its own and sends every
 *   child c = v + 2^k, largest first, the blocks of c's subtree.  The root
 *   sends straight from its send buffer: a subtree whose ranks wrap past p-1
 *   is two messages (MPICH copies to scratch instead).  A leaf receives into
 *   its receive buffer, an inner rank into scratch.
 * Cost: ceil(log2 p) alpha + (p-1)/p n beta (n = p blocks) at the root.
 * Memory: an inner rank keeps its subtree's blocks in scratch (at most p/2).
 * Restrictions: none.
 * Source: Thakur, Rabenseifner, Gropp 2005; MPICH scatter_intra_binomial.
 */
#include "algo/cost_walk.h"
#include "algo/catalog.h"
#include "pattern/pattern.h"

/* The subtree [v, v + k) in the root's send buffer: its first `head`
 * blocks are ranks root+v .. p-1, the rest ranks 0 ..; both ends of a
 * message from the root split it there. */
static int head_of(const tc_args *a, int v, int k)
{
    int first = (a->root + v) % a->size;
    return k < a->size - first ? k : a->size - first;
}

static void root_send(tc_sched *s, const tc_args *a, int peer, int v, int k)
{
    int p = a->size, first = (a->root + v) % p, head = head_of(a, v, k);
    tc_sched_send(s, peer, tc_reg(TC_BUF_SEND, (int64_t)first * a->scount, (int64_t)head * a->scount));
    tc_sched_send(s, peer, tc_reg(TC_BUF_SEND, 0, (int64_t)(k - head) * a->scount));
}

static void recv_subtree(tc_sched *s, const tc_args *a, int parent, int v, int k, int from_root)
{
    int64_t b = a->rcount;
    if (k == 1) {
        tc_sched_recv(s, parent, tc_reg(TC_BUF_RECV, 0, b));
        return;
    }
    tc_sched_need_tmp(s, (int64_t)k * b);
    int head = from_root ? head_of(a, v, k) : k;
    tc_sched_recv(s, parent, tc_reg(TC_BUF_TMP, 0, (int64_t)head * b));
    tc_sched_recv(s, parent, tc_reg(TC_BUF_TMP, (int64_t)head * b, (int64_t)(k - head) * b));
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, root = a->root, v = tc_mod(a->rank - root, p);
    int kids[32];
    int nk = tc_binom_children(v, p, kids, 32);
    if (v == 0) {
        if (!a->in_place)
            tc_sched_copy(s, tc_reg(TC_BUF_SEND, (int64_t)root * a->scount, a->scount),
                          tc_reg(TC_BUF_RECV, 0, a->rcount));
        for (int i = 0; i < nk; i++)
            root_send(s, a, (kids[i] + root) % p, kids[i], tc_binom_subtree(kids[i], p));
        tc_sched_round(s);
        return 0;
    }
    int parent = tc_binom_parent(v), k = tc_binom_subtree(v, p);
    recv_subtree(s, a, (parent + root) % p, v, k, parent == 0);
    tc_sched_round(s);
    if (k == 1) return 0;
    for (int i = 0; i < nk; i++) {
        int c = kids[i];
        tc_sched_send(s, (c + root) % p,
                      tc_reg(TC_BUF_TMP, (int64_t)(c - v) * a->rcount,
                             (int64_t)tc_binom_subtree(c, p) * a->rcount));
    }
    tc_sched_copy(s, tc_reg(TC_BUF_TMP, 0, a->rcount), tc_reg(TC_BUF_RECV, 0, a->rcount));
    tc_sched_round(s);
    return 0;
}

/* Cost function: down the tree, a child's subtree of blocks of n. */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    int root = a->root >= 0 && a->root < t->size ? a->root : 0;
    for (int d = 1; d < t->size; d <<= 1) tc_cw_step(c, t, tc_cw_subtree, &root, d, n);
    return 0;
}

const tc_algo tc_scatter_binomial = {
    .cost = cost,
    .coll = TOPOCOLL_SCATTER, .name = "binomial",
    .desc = "binomial tree (MPICH): log p steps, each rank forwards its children's subtrees",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
