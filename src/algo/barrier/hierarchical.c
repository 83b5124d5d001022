/*
 * barrier "hierarchical": node barrier on flags, leaders' dissemination
 * across the nodes, node release on flags.
 *
 * Steps: every member of a node raises its leader's flag (the node's first
 *   rank) and waits for the leader's flag; the leader waits for every
 *   member's flag (arrival), runs the dissemination barrier among the
 *   leaders with zero-byte messages (round k: to the leader of node
 *   (i + 2^k) mod N, from that of node (i - 2^k) mod N), then raises every
 *   member's flag (release).
 * Cost: n flag latencies inside a node of n ranks (the arrivals in
 *   parallel, the leader's n - 1 releases one after another) plus
 *   ceil(log2 N) alpha between nodes (N nodes), no bytes; one message per
 *   node and round leaves a node.
 * Memory: none besides the flag lines.
 * Restrictions: node-shared memory.
 * Source: Hensgen, Finkel, Manber, "Two algorithms for barrier
 *   synchronization" (1988) between the leaders; the two-level arrival /
 *   release as in the hierarchical collectives of Kandalla et al.,
 *   "Designing Multi-Leader-Based Allgather Algorithms for Multi-Core
 *   Clusters" (2009).
 */
#include "algo/cost_walk.h"
#include "algo/catalog.h"
#include "pattern/pattern.h"

static int leader_of(const tc_topo *t, int node) { return tc_topo_node_members(t, node)[0]; }

static void leader_rounds(tc_sched *s, const tc_topo *t, int node)
{
    const int *m = tc_topo_node_members(t, node);
    int n = tc_topo_node_size(t, node), N = t->nnodes;
    for (int i = 1; i < n; i++) tc_sched_wait(s, m[i]);
    tc_sched_round(s);
    for (int d = 1; d < N; d <<= 1) {
        tc_sched_send_sync(s, leader_of(t, tc_wrap(node + d, N)));
        tc_sched_recv_sync(s, leader_of(t, tc_wrap(node - d, N)));
        tc_sched_round(s);
    }
    for (int i = 1; i < n; i++) tc_sched_signal(s, m[i]);
    tc_sched_round(s);
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    int r = a->rank, node = t->node_of[r];
    if (t->node_idx[r] == 0) {
        leader_rounds(s, t, node);
        return 0;
    }
    tc_sched_signal(s, leader_of(t, node));
    tc_sched_round(s);
    tc_sched_wait(s, leader_of(t, node));
    tc_sched_round(s);
    return 0;
}

/* Cost function: the arrival flag and the leader's n - 1 release flags
 * inside the largest node, ceil(log2 N) zero-byte network steps between the
 * leaders. */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    (void)a;
    (void)n;
    int ppn = tc_cw_max_ppn(t);
    if (ppn > 1) tc_cw_path(c, tc_cw_intra_level(t), ppn, 0);
    tc_cw_path(c, TC_LVL_NET, tc_cw_ceil_log2(t->nnodes), 0);
    return 0;
}

const tc_algo tc_barrier_hierarchical = {
    .cost = cost,
    .coll = TOPOCOLL_BARRIER, .name = "hierarchical",
    .desc = "node arrival on flags, leaders' dissemination between nodes, node release on flags",
    .req = TC_REQ_NODE_SHM, .generate = generate, .source = __FILE__,
};
