/*
 * scatterv "hierarchical": through node leaders.  A node's leader is the
 * root on the root's node, else the node's lowest rank.
 *
 * Steps:
 *   1. The root sends every other node's leader the blocks of that node's
 *      ranks in one message: straight from its send buffer where the node's
 *      ranks are consecutive (their blocks are one region of the packed
 *      layout), else packed into scratch first (one copy per rank).  It
 *      sends the ranks of its own node their blocks directly.
 *   2. Every other leader receives its node's blocks into scratch (its own
 *      block straight into its receive buffer when it is alone), keeps its
 *      own and sends each node member its block.
 *   Zero-size blocks (and nodes) send nothing.
 * Counts: a leader must know its members' counts: the root's vector reaches
 *   every rank first (TC_REQ_ROOT_COUNTS: one allreduce of p + 2 counts,
 *   ceil(log2 p) alpha + 8 p beta, before the data).
 * Cost (m nodes, q ranks per node, n a block): (m-1) network messages of
 *   q n at the root, then q-1 node messages of n at each leader: the root's
 *   network link carries m-1 messages instead of p-q.
 * Memory: a leader keeps its node's blocks in scratch; the root, the blocks
 *   of the nodes whose ranks are not consecutive.
 * Restrictions: none: any mapping, unequal nodes, zero counts.
 * Source: the two-level scatter of Karonis, de Supinski, Foster, Gropp,
 *   Lusk, Bresnahan, "Exploiting Hierarchy in Parallel Computer Networks to
 *   Optimize Collective Operation Performance" (2000), with counts per
 *   block.
 */
#include "algo/cost_walk.h"
#include "algo/rootedv.h"


static int leader_of(const tc_topo *t, int node, int root)
{
    return t->node_of[root] == node ? root : tc_topo_node_members(t, node)[0];
}

/* Are the node's ranks consecutive (their blocks one region)? */
static int consecutive(const tc_topo *t, int node)
{
    const int *m = tc_topo_node_members(t, node);
    int n = tc_topo_node_size(t, node);
    return m[n - 1] - m[0] == n - 1;
}

/* Elements of a node's blocks (this rank's units). */
static int64_t node_span(const tc_args *a, const tc_topo *t, int node)
{
    const int *m = tc_topo_node_members(t, node);
    int64_t n = 0;
    for (int i = 0; i < tc_topo_node_size(t, node); i++) n += rv_cnt(a, m[i]);
    return n;
}

static void root_part(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    int home = t->node_of[a->root];
    int64_t at = 0;
    for (int b = 0; b < t->nnodes; b++) {   /* pack the nodes whose ranks are not consecutive */
        if (b == home || consecutive(t, b)) continue;
        const int *m = tc_topo_node_members(t, b);
        for (int i = 0; i < tc_topo_node_size(t, b); i++) {
            tc_sched_copy_join(s, rv_root_block(a, m[i]), tc_reg(TC_BUF_TMP, at, rv_cnt(a, m[i])));
            at += rv_cnt(a, m[i]);
        }
    }
    tc_sched_need_tmp(s, at);
    tc_sched_round(s);
    at = 0;
    for (int b = 0; b < t->nnodes; b++) {
        if (b == home) continue;
        int first = tc_topo_node_members(t, b)[0];
        int64_t n = node_span(a, t, b);
        if (consecutive(t, b)) {
            tc_sched_send(s, first, tc_reg(TC_BUF_SEND, rv_off(a, first), n));
        } else {
            tc_sched_send(s, first, tc_reg(TC_BUF_TMP, at, n));
            at += n;
        }
    }
    const int *m = tc_topo_node_members(t, home);
    for (int i = 0; i < tc_topo_node_size(t, home); i++)
        if (m[i] != a->root) tc_sched_send(s, m[i], rv_root_block(a, m[i]));
    rv_root_keep(s, a);
    tc_sched_round(s);
}

static void leader_part(tc_sched *s, const tc_args *a, const tc_topo *t, int node)
{
    const int *m = tc_topo_node_members(t, node);
    int n = tc_topo_node_size(t, node);
    if (n == 1) {
        tc_sched_recv(s, a->root, rv_own(a));
        tc_sched_round(s);
        return;
    }
    tc_sched_need_tmp(s, node_span(a, t, node));
    tc_sched_recv(s, a->root, tc_reg(TC_BUF_TMP, 0, node_span(a, t, node)));
    tc_sched_round(s);
    int64_t at = rv_cnt(a, m[0]);
    for (int i = 1; i < n; i++) {
        tc_sched_send(s, m[i], tc_reg(TC_BUF_TMP, at, rv_cnt(a, m[i])));
        at += rv_cnt(a, m[i]);
    }
    tc_sched_copy(s, tc_reg(TC_BUF_TMP, 0, a->rcount), rv_own(a));
    tc_sched_round(s);
}

int tc_scatterv_hierarchical_generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    int node = t->node_of[a->rank], leader = leader_of(t, node, a->root);
    s->tmp_like = a->rank == a->root ? TC_BUF_SEND : TC_BUF_RECV;
    if (a->rank == a->root) root_part(s, a, t);
    else if (a->rank == leader) leader_part(s, a, t, node);
    else {
        tc_sched_recv(s, leader, rv_own(a));
        tc_sched_round(s);
    }
    return 0;
}

/* Cost function: the counts' spreading, the root's network messages (one per other node, its
 * node's blocks) and node messages (its own node's ranks), then the largest
 * node's leader's messages; totals exact (every block crosses once from the
 * root, or twice through a leader). */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    int root = a->root >= 0 && a->root < t->size ? a->root : 0, home = t->node_of[root];
    int most = 1;
    for (int b = 0; b < t->nnodes; b++) {
        const int *m = tc_topo_node_members(t, b);
        int q = tc_topo_node_size(t, b), lead = leader_of(t, b, root);
        if (b != home) {
            tc_cw_path(c, TC_LVL_NET, 1, q * n);
            c->total[TC_LVL_NET] += q * n;
            if (q > most) most = q;
        }
        for (int i = 0; i < q; i++)
            if (m[i] != lead) c->total[tc_cw_level(t, lead, m[i])] += n;
    }
    int lvl = tc_cw_intra_level(t);
    rv_counts_cost(c, t);
    tc_cw_path(c, lvl, tc_topo_node_size(t, home) - 1, n);
    if (t->nnodes > 1) tc_cw_path(c, lvl, most - 1, n);
    return 0;
}

const tc_algo tc_scatterv_hierarchical = {
    .cost = cost,
    .coll = TOPOCOLL_SCATTERV, .name = "hierarchical",
    .desc = "through node leaders: one message per node from the root, then the leaders scatter",
    .req = TC_REQ_ROOT_COUNTS, .generate = tc_scatterv_hierarchical_generate, .source = __FILE__,
};
