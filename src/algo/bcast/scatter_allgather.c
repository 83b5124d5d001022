/*
 * bcast "scatter_allgather": van de Geijn's broadcast as MPICH runs it
 * (MPIR_Bcast_intra_scatter_ring_allgather), a baseline of Table 1 of Jain,
 * Lau, Kale, "Collectives on Two-tier Direct Networks" (2012): a binomial
 * scatter of the buffer, then a ring allgather of the pieces.
 *
 * Steps: the n elements are cut into p pieces of ceil(n/p) (MPICH's way:
 *   the last pieces are shorter or empty when p does not divide n); piece v
 *   belongs to relative rank v = (rank - root) mod p.
 *   1. Binomial scatter: v receives pieces [v, v + size of its subtree) from
 *      its parent, in place, and sends each child c (largest first) pieces
 *      [c, c + size of c's subtree).
 *   2. Ring allgather over the ranks (not the relative ranks): at step i
 *      (1 <= i < p) rank r sends the piece of rank r-i+1 to r+1 and receives
 *      the piece of rank r-i from r-1.
 * Cost: (ceil(log2 p) + p - 1) alpha + 2 (p-1)/p n beta.
 * Memory: none (everything moves inside the user buffer).
 * Restrictions: none.
 * Source: Barnett et al. 1994 (InterCom); Thakur, Rabenseifner, Gropp 2005;
 *   MPICH bcast_intra_scatter_ring_allgather.
 */
#include "algo/cost_walk.h"
#include "algo/catalog.h"
#include "pattern/pattern.h"

/* Elements per piece: ceil(n / p). */
static int64_t piece_size(const tc_args *a)
{
    return (a->rcount + a->size - 1) / a->size;
}

/* Pieces [v, v + k) of the buffer (ps elements each), clipped to n. */
static tc_region pieces_of(const tc_args *a, int64_t ps, int v, int k)
{
    int64_t n = a->rcount;
    int64_t lo = (int64_t)v * ps, hi = (int64_t)(v + k) * ps;
    if (lo > n) lo = n;
    if (hi > n) hi = n;
    return tc_reg(TC_BUF_RECV, lo, hi - lo);
}

static tc_region pieces(const tc_args *a, int v, int k)
{
    return pieces_of(a, piece_size(a), v, k);
}

static void scatter(tc_sched *s, const tc_args *a, int v)
{
    int p = a->size, root = a->root;
    int kids[32];
    if (v) {
        tc_sched_recv(s, (tc_binom_parent(v) + root) % p, pieces(a, v, tc_binom_subtree(v, p)));
        tc_sched_round(s);
    }
    int nk = tc_binom_children(v, p, kids, 32);
    for (int i = 0; i < nk; i++)
        tc_sched_send(s, (kids[i] + root) % p, pieces(a, kids[i], tc_binom_subtree(kids[i], p)));
    tc_sched_round(s);
}

static void ring(tc_sched *s, const tc_args *a)
{
    int p = a->size, r = a->rank, v = tc_mod(r - a->root, p);
    int right = tc_ring_right(r, p), left = tc_ring_left(r, p);
    int64_t ps = piece_size(a);   /* (no division per step: p - 1 steps per rank) */
    for (int i = 1; i < p; i++) {
        tc_sched_send(s, right, pieces_of(a, ps, tc_wrap(v - i + 1, p), 1));
        tc_sched_recv(s, left, pieces_of(a, ps, tc_wrap(v - i, p), 1));
        tc_sched_round(s);
    }
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    scatter(s, a, tc_mod(a->rank - a->root, a->size));
    ring(s, a);
    return 0;
}

/* The scatter alone: the prefix of the shift form. */
static int generate_scatter(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    scatter(s, a, tc_mod(a->rank - a->root, a->size));
    return 0;
}

/* Shift form of the ring, after each rank's scatter rounds: p-1 steps of one
 * piece to r+1, when the pieces are equal (n a multiple of p); else the
 * generator's schedule, whose clipped pieces differ from rank to rank. */
static int shift_form(const tc_args *a, const tc_topo *t, tc_shift_sink sink, void *ctx)
{
    (void)t;
    int one = 1;
    int64_t ps = piece_size(a);
    if (a->size < 2 || a->rcount <= 0 || ps * a->size != a->rcount) return TC_SHIFT_NONE;
    tc_shift_round rd = { 1, &one, &ps, 0, 0, a->size - 1, 0 };
    return sink(ctx, &rd);
}

/* Cost function: the binomial scatter of pieces of n/p (subtrees), then
 * p-1 ring steps of one piece. */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    int root = a->root >= 0 && a->root < t->size ? a->root : 0;
    int p = t->size;
    for (int d = 1; d < p; d <<= 1) tc_cw_step(c, t, tc_cw_subtree, &root, d, n / p);
    for (int k = 1; k < p; k++) tc_cw_step(c, t, tc_cw_shift, NULL, 1, n / p);
    return 0;
}

const tc_algo tc_bcast_scatter_allgather = {
    .cost = cost,
    .coll = TOPOCOLL_BCAST, .name = "scatter_allgather",
    .desc = "van de Geijn: binomial scatter of p pieces, then ring allgather (MPICH, long messages)",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
    .shift = shift_form, .shift_prefix = generate_scatter,
};
