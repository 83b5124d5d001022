/*
 * scatterv "linear": the root sends every rank its block directly.
 *
 * Steps: the root keeps its own block (a copy unless in place) and sends
 *   rank root+1, root+2, ... (mod p) its block straight from its send
 *   buffer; every other rank receives its block into its receive buffer.
 *   Zero-size blocks send nothing.
 * Cost: (p-1) alpha + (N - n_root) beta at the root (N: the sum of the
 *   counts).
 * Memory: none beyond the user's buffers.
 * Restrictions: none; ranks other than the root need only their own count.
 * Source: the linear scatter of Thakur, Rabenseifner, Gropp, "Optimization
 *   of Collective Communication Operations in MPICH" (2005).
 */
#include "algo/cost_walk.h"
#include "algo/rootedv.h"


int tc_scatterv_linear_generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, root = a->root;
    s->tmp_like = a->rank == root ? TC_BUF_SEND : TC_BUF_RECV;
    if (a->rank != root) {
        tc_sched_recv(s, root, rv_own(a));
        tc_sched_round(s);
        return 0;
    }
    rv_root_keep(s, a);
    for (int d = 1; d < p; d++) {
        int j = (root + d) % p;
        tc_sched_send(s, j, rv_root_block(a, j));
    }
    tc_sched_round(s);
    return 0;
}

const tc_algo tc_scatterv_linear = {
    .cost = tc_cw_cost_from_root,   /* the root's p - 1 messages, one after another */
    .coll = TOPOCOLL_SCATTERV, .name = "linear",
    .desc = "direct: the root sends every rank its block",
    .req = TC_REQ_NONE, .generate = tc_scatterv_linear_generate, .source = __FILE__,
};
