/*
 * scan and exscan "hierarchical": a node-local prefix in node-shared memory,
 * an exclusive scan among the nodes' leaders, and a fix-up on every node.
 *
 * Steps (every node's ranks consecutive in rank order, k on the node, the
 *   node's last rank its leader, n elements):
 *   1. every rank but the leader copies its input into its slot of the
 *      node's shared buffer and raises the flags of the ranks above it on
 *      its node; every rank waits for the flags of the ranks below it;
 *   2. member i combines the slots below it, from i - 1 down to 0, into its
 *      own value: "slot j op partial" keeps rank order (scan: slots 0..i
 *      with its input; exscan: slots 0..i-1).  The leader's inclusive
 *      partial is its node's total;
 *   3. the leaders run an exclusive recursive-doubling scan of the node
 *      totals (doubling.h), the node's prefix landing in the shared
 *      buffer's last slot, and raise their members' flags;
 *   4. every rank of a node but the first combines "node prefix op own
 *      partial" (exscan's first rank of a node copies the node prefix; the
 *      first node has none).
 *   The members wait for the leader's flag on the first node too: a rank's
 *   slot is read by the ranks above it, and a rank begins the call that
 *   reuses this half of the shared buffer only after the leader's flag of
 *   the call between, which the leader raises after every member has
 *   finished this call (flags of step 1).
 * Cost: one copy-in and k - 1 flags on a node, up to k - 1 reductions of n
 *   (a node's last rank), then ceil(log2 N) steps of alpha + n beta + n gamma
 *   among N leaders and one flag: on one node a scan is one flag and i
 *   reductions at rank i.
 * Memory: node-shared (k + 1) n; the leaders 2 n scratch.
 * Restrictions: node-shared memory; every node's ranks consecutive in rank
 *   order (a block mapping), for any operation: the prefix of rank r must be
 *   exactly the ranks up to r, which a node's members up to r and the nodes
 *   before it are only when the nodes are blocks of consecutive ranks.
 * Source: the node / leaders / node composition is this library's, as for
 *   its other hierarchical collectives; the leaders' scan is W. D. Hillis and
 *   G. L. Steele, "Data parallel algorithms" (1986).
 */
#include <errno.h>
#include <stdlib.h>

#include "algo/cost_walk.h"
#include "algo/scan/doubling.h"

/* Node-shared slot j of the node's buffer (the last, k, the node prefix). */
static tc_region slot(const tc_args *a, int j) { return tc_reg(TC_BUF_SHM, (int64_t)j * a->scount, a->scount); }

/* The node's leaders in node order (view: built once per topology). */
static void *make_leaders(const tc_topo *t, int arg)
{
    (void)arg;
    int *l = malloc((size_t)t->nnodes * sizeof *l);
    for (int m = 0; l && m < t->nnodes; m++) l[m] = t->node_ranks[t->node_start[m + 1] - 1];
    return l;
}

enum { LEADERS_VIEW = 0x5ca0 };

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    int r = a->rank, ex = sc_exclusive(a), node = t->node_of[r];
    int base = t->node_start[node], k = t->node_start[node + 1] - base, i = t->node_idx[r];
    int leader = i == k - 1, nn = t->nnodes;
    tc_region in = sc_input(a), res = sc_result(a), x = sc_tmp(a, 0), got = sc_tmp(a, 1);
    const int *leaders = nn > 1 ? tc_topo_get_view(t, LEADERS_VIEW, make_leaders, 0, free) : NULL;
    if (nn > 1 && !leaders) return ENOMEM;
    s->tmp_like = TC_BUF_SEND;
    tc_sched_need_shm(s, (int64_t)(k + 1) * a->scount);
    tc_sched_shm_home(s, (int64_t)i * a->scount, a->scount);
    tc_sched_need_tmp(s, leader && (nn > 1 || ex) ? 2 * a->scount : 0);
    /* 1: copy-in and flags; the exscan leader keeps its input for its total */
    if (!leader) tc_sched_copy(s, in, slot(a, i));
    if (!ex && !a->in_place) tc_sched_copy(s, in, res);
    if (ex && leader) tc_sched_copy(s, in, x);
    for (int j = i + 1; j < k; j++) tc_sched_signal(s, base + j);
    for (int j = 0; j < i; j++) tc_sched_wait(s, base + j);
    tc_sched_round(s);
    /* 2: the node-local partial, right to left (scan: into RECV, which holds
     * the input; exscan: slots below into RECV, the leader's total in x) */
    if (ex && i >= 1) tc_sched_copy(s, slot(a, i - 1), res);
    for (int j = ex ? i - 2 : i - 1; j >= 0; j--) tc_sched_reduce(s, slot(a, j), res);
    if (ex && leader)
        for (int j = i - 1; j >= 0; j--) tc_sched_reduce(s, slot(a, j), x);
    if (!leader) tc_sched_wait(s, base + k - 1);
    tc_sched_round(s);
    /* 3: the leaders' exclusive scan of the node totals into the last slot */
    if (leader) {
        if (nn > 1)
            tc_scan_doubling(s, leaders, nn, node, ex ? x : res, x, got, slot(a, k), 1);
        for (int j = 0; j < k - 1; j++) tc_sched_signal(s, base + j);
        tc_sched_round(s);
    }
    /* 4: the fix-up */
    if (node > 0) sc_fold(s, slot(a, k), res, ex && i == 0);
    tc_sched_round(s);
    return 0;
}

static int leader_pair(const void *ctx, int r, int p, int d, double *blocks)
{
    const tc_topo *t = ctx;
    (void)p;
    int m = t->node_of[r];
    if (t->node_ranks[t->node_start[m + 1] - 1] != r || m + d >= t->nnodes) return -1;
    *blocks = 1;
    return t->node_ranks[t->node_start[m + d + 1] - 1];
}

/* Cost function (several nodes): the copy-in and the node's reductions (its
 * last rank's k - 1 and the fix-up) as memory traffic, the leaders' steps
 * (each reduced twice: the running and the exclusive partial). */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    (void)a;
    if (t->nnodes < 2) return -1;   /* one node: flags only, no formula (as the shared-memory entries) */
    int k = tc_cw_max_ppn(t);
    c->mem += 2 * n;
    c->reduced += (k - 1) * n;
    for (int d = 1; d < t->nnodes; d <<= 1) {
        tc_cw_step(c, t, leader_pair, t, d, n);
        c->reduced += 2 * n;
    }
    if (t->nnodes > 1) c->reduced += n;
    return 0;
}

const tc_algo tc_scan_hierarchical = {
    .cost = cost,
    .coll = TOPOCOLL_SCAN, .name = "hierarchical",
    .desc = "node-local prefix in node-shared memory, leaders' exclusive scan, node fix-up",
    .req = TC_REQ_NODE_SHM | TC_REQ_BLOCK_NODES, .generate = generate, .source = __FILE__,
};

const tc_algo tc_exscan_hierarchical = {
    .cost = cost,
    .coll = TOPOCOLL_EXSCAN, .name = "hierarchical",
    .desc = "node-local exclusive prefix in node-shared memory, leaders' exclusive scan, node fix-up",
    .req = TC_REQ_NODE_SHM | TC_REQ_BLOCK_NODES, .generate = generate, .source = __FILE__,
};
