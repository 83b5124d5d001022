/*
 * bcast "linear": the root sends the whole buffer to every other rank, in
 * one round.
 *
 * Steps: the root posts p - 1 sends of the buffer at once (to root + 1,
 *   root + 2, ... in turn); every other rank receives once from the root.
 * Cost: (p - 1) (alpha + n beta) at the root, whose sends leave one after
 *   another (as the cost model prices a rank's messages in one round); one
 *   message on every other rank's path.
 * Memory: none; p - 1 requests at the root.
 * Restrictions: none; worth it where p is small or the messages are: a
 *   nonblocking form of one round has nothing left for the receivers' wait
 *   once the root's (eager) sends are out, where a tree's inner ranks pass
 *   the data on only in a progress call.  The MPI library's nonblocking
 *   broadcast takes it at p <= 4 for that reason (Open MPI's libnbc).
 * Source: the basic linear broadcast of MPI implementations (Open MPI's
 *   coll_base "basic linear", libnbc's ibcast at small p).
 */
#include "algo/cost_walk.h"
#include "algo/catalog.h"
#include "pattern/pattern.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, root = a->root;
    tc_region all = tc_reg(TC_BUF_RECV, 0, a->rcount);
    if (a->rank == root)
        for (int d = 1; d < p; d++) tc_sched_send(s, (root + d) % p, all);
    else
        tc_sched_recv(s, root, all);
    tc_sched_round(s);
    return 0;
}

const tc_algo tc_bcast_linear = {
    .cost = tc_cw_cost_from_root,   /* the root's p - 1 messages, one after another */
    .coll = TOPOCOLL_BCAST, .name = "linear",
    .desc = "the root sends to every rank in one round (small p or small messages; nothing left for a "
            "nonblocking wait)",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
