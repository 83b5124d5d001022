/*
 * barrier family "hierarchical:ways=1|3|7|all": node arrival on flags, the
 * leaders' n-way dissemination across the nodes, node release on flags.
 *
 * Steps: every member of a node raises its leader's flag (the node's first
 *   rank) and waits for the leader's flag; the leader waits for every
 *   member's flag (arrival), runs the n-way dissemination barrier among the
 *   N node leaders with zero-byte messages, then raises every member's flag
 *   (release).  n-way dissemination, w ways (w = N - 1 for ways=all): in
 *   round k (unit D = (w + 1)^k) the leader of node i sends to the leaders
 *   of nodes i + j D and receives from those of nodes i - j D (mod N), for
 *   j = 1 .. J, J = min(w, ceil(N / D) - 1), all posted at once.  After
 *   round k a leader has heard, directly or through others, from the
 *   (w + 1)^(k+1) - 1 nodes before it, so after ceil(log_(w+1) N) rounds
 *   from all; J stops short of D multiples that would wrap onto nodes
 *   already covered.  ways=1 is Hensgen, Finkel and Manber's dissemination;
 *   ways=all is one round in which every leader tells every other.
 * Cost: n flag latencies inside a node of n ranks (the arrivals in
 *   parallel, the leader's n - 1 releases one after another) plus
 *   ceil(log_(w+1) N) rounds between nodes, each one network latency plus
 *   the sender's overhead for its J - 1 further messages (they leave while
 *   the first is in flight); no bytes.  A round sends J messages per node
 *   (w = 1: one), so more ways trade messages for rounds: worth it where a
 *   network latency costs many message overheads.
 * Memory: none besides the flag lines.
 * Restrictions: node-shared memory.
 * Source: Hensgen, Finkel, Manber, "Two algorithms for barrier
 *   synchronization" (1988); its n-way form from Hoefler, Mehlan, Mietke,
 *   Rehm, "Fast Barrier Synchronization for InfiniBand" (2006); the
 *   two-level arrival / release as in the hierarchical collectives of
 *   Kandalla et al., "Designing Multi-Leader-Based Allgather Algorithms for
 *   Multi-Core Clusters" (2009).
 */
#include <stdint.h>
#include <stdio.h>

#include "algo/cost_walk.h"
#include "algo/catalog.h"
#include "pattern/pattern.h"

enum { P_WAYS };
static const char *const ways_values[] = { "1", "3", "7", "all", NULL };
static const int ways_count[] = { 1, 3, 7, 0 };   /* 0: N - 1 */

static int ways_of(const int *v, int nnodes)
{
    int w = ways_count[v ? v[P_WAYS] : 0];
    return w > 0 ? w : (nnodes > 1 ? nnodes - 1 : 1);
}

/* Messages per leader in the round of unit D: J = min(w, ceil(N / D) - 1). */
static int round_fanout(int w, int N, int D)
{
    int J = (N + D - 1) / D - 1;
    return J < w ? J : w;
}

/* The next round's unit, D (w + 1), or N once that covers every node (also
 * where D (w + 1) would not fit an int). */
static int next_unit(int D, int w, int N) { return (int64_t)D * (w + 1) >= N ? N : D * (w + 1); }

static int leader_of(const tc_topo *t, int node) { return tc_topo_node_members(t, node)[0]; }

static void leader_rounds(tc_sched *s, const tc_topo *t, int node, int w)
{
    const int *m = tc_topo_node_members(t, node);
    int n = tc_topo_node_size(t, node), N = t->nnodes;
    for (int i = 1; i < n; i++) tc_sched_wait(s, m[i]);
    tc_sched_round(s);
    for (int D = 1; D < N; D = next_unit(D, w, N)) {
        int J = round_fanout(w, N, D);
        for (int j = 1; j <= J; j++) {
            tc_sched_send_sync(s, leader_of(t, tc_wrap(node + j * D, N)));
            tc_sched_recv_sync(s, leader_of(t, tc_wrap(node - j * D, N)));
        }
        tc_sched_round(s);
    }
    for (int i = 1; i < n; i++) tc_sched_signal(s, m[i]);
    tc_sched_round(s);
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    int r = a->rank, node = t->node_of[r];
    if (t->node_idx[r] == 0) {
        leader_rounds(s, t, node, ways_of(a->param, t->nnodes));
        return 0;
    }
    tc_sched_signal(s, leader_of(t, node));
    tc_sched_round(s);
    tc_sched_wait(s, leader_of(t, node));
    tc_sched_round(s);
    return 0;
}

/* Cost function: the arrival flag and the leader's n - 1 release flags
 * inside the largest node; per round between the leaders one network
 * latency, and the J - 1 further messages at the cost of a message inside a
 * node each (the sender's overhead: they leave while the first is in
 * flight). */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)n;
    (void)a;
    int ppn = tc_cw_max_ppn(t), N = t->nnodes, w = ways_of(al->param, N), intra = tc_cw_intra_level(t);
    if (ppn > 1) tc_cw_path(c, intra, ppn, 0);
    for (int D = 1; D < N; D = next_unit(D, w, N)) {
        int J = round_fanout(w, N, D);
        tc_cw_path(c, TC_LVL_NET, 1, 0);
        if (J > 1) tc_cw_path(c, intra, J - 1, 0);
    }
    return 0;
}

/* ---- the family's catalog row ---------------------------------------------- */

static const tc_param_def params[] = {
    { "ways", ways_values, 0 },
};

static void describe(const tc_family *f, const int *v, tc_instance_text *out)
{
    (void)f;
    if (v[P_WAYS] == 0) {
        snprintf(out->alias, sizeof out->alias, "hierarchical");
        snprintf(out->desc, sizeof out->desc,
                 "node arrival on flags, leaders' dissemination between nodes, node release on flags");
    } else if (ways_count[v[P_WAYS]] == 0) {
        snprintf(out->alias, sizeof out->alias, "hierarchical_all");
        snprintf(out->desc, sizeof out->desc,
                 "node arrival on flags, one round in which every leader tells every other, node "
                 "release on flags");
    } else {
        snprintf(out->alias, sizeof out->alias, "hierarchical_%sway", ways_values[v[P_WAYS]]);
        snprintf(out->desc, sizeof out->desc,
                 "node arrival on flags, leaders' %s-way dissemination between nodes (%s messages a "
                 "round), node release on flags",
                 ways_values[v[P_WAYS]], ways_values[v[P_WAYS]]);
    }
}

const tc_family tc_barrier_hierarchical = {
    .coll = TOPOCOLL_BARRIER, .name = "hierarchical",
    .summary = "hierarchical: node arrival on flags, the leaders' n-way dissemination between nodes "
               "(Hoefler, Mehlan, Mietke, Rehm 2006; one way: Hensgen, Finkel, Manber 1988), node "
               "release on flags",
    .source = __FILE__, .nparams = 1, .params = params, .rule = "",
    .describe = describe, .req = TC_REQ_NODE_SHM, .generate = generate, .cost = cost,
};
