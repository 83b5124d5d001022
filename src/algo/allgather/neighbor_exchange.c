/*
 * allgather "neighbor_exchange": p/2 steps, alternating between the left
 * and the right neighbour, passing on pairs of blocks.
 *
 * Steps: ranks pair up (2i, 2i+1) and swap their own blocks; from then on
 *   each rank alternately exchanges with its other neighbour and its pair
 *   partner's side, sending the two blocks it received last and receiving
 *   the next aligned pair, p/2 - 1 more times.
 * Cost: (p/2) alpha + (p-1) n beta; half the steps of the ring with the
 *   same neighbour locality.
 * Memory: none beyond the receive buffer.
 * Restrictions: even p (TC_REQ_EVEN_P: declines odd p).
 * Source: Chen et al., "Performance evaluation of Allgather algorithms on
 *   terascale Linux cluster with fast Ethernet", 2005; MPICH's
 *   allgather_intra_neighbor_exchange.
 */
#include "algo/cost_walk.h"
#include "algo/allgather/common.h"
#include "pattern/pattern.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank, even = r % 2 == 0;
    int nb[2], from[2], step[2];
    nb[0] = even ? tc_mod(r + 1, p) : tc_mod(r - 1, p);
    nb[1] = even ? tc_mod(r - 1, p) : tc_mod(r + 1, p);
    from[0] = from[1] = even ? r : nb[0];   /* aligned pair start */
    step[0] = even ? 2 : -2;
    step[1] = even ? -2 : 2;

    tc_sched_send(s, nb[0], ag_own(a));
    tc_sched_recv(s, nb[0], ag_rbuf(a, nb[0], 1));
    tc_sched_copy(s, ag_own(a), ag_rbuf(a, r, 1));
    tc_sched_round(s);
    int send_from = from[0];
    for (int i = 1; i < p / 2; i++) {
        int par = i % 2;
        from[par] = tc_mod(from[par] + step[par], p);
        tc_sched_send(s, nb[par], ag_rbuf(a, send_from, 2));
        tc_sched_recv(s, nb[par], ag_rbuf(a, from[par], 2));
        tc_sched_round(s);
        send_from = from[par];
    }
    return 0;
}

/* Cost function: step 0 with rank^1 (one block), then p/2 - 1 steps of two
 * blocks with the other neighbour and back (even ranks go down first). */
static int ne_pair(const void *ctx, int r, int p, int k, double *blocks)
{
    (void)ctx;
    *blocks = 1;
    if (k == 0) return r ^ 1;
    int up = (r % 2 == 0) == (k % 2 == 0);
    return up ? (r + 1) % p : (r + p - 1) % p;
}

static int tc_allgather_neighbor_exchange_cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    (void)a;
    if (t->size % 2) return -1;
    tc_cw_step(c, t, ne_pair, NULL, 0, n);
    for (int k = 1; k < t->size / 2; k++) tc_cw_step(c, t, ne_pair, NULL, k, 2 * n);
    return 0;
}

const tc_algo tc_allgather_neighbor_exchange = {
    .cost = tc_allgather_neighbor_exchange_cost,
    .coll = TOPOCOLL_ALLGATHER, .name = "neighbor_exchange",
    .desc = "neighbour exchange: p/2 steps of two blocks with alternating neighbours",
    .req = TC_REQ_EVEN_P, .generate = generate, .source = __FILE__,
};
