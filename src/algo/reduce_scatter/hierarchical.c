/*
 * reduce_scatter "hierarchical": the vector summed in every node's shared
 * memory, then each rank gets its block's node sums straight from the
 * other nodes (the node-level shared-memory reduction of Li, Hoefler,
 * Snir, "NUMA-Aware Shared-Memory Collective Communication for MPI"
 * (2013), as allreduce "hierarchical" runs it; the exchange is the
 * direct one of the reduce-scatter of Jain, Lau, Kale, "Collectives on
 * Two-tier Direct Networks" (2012), with one node sum per node).
 *
 * Steps (node of m ranks M[0..m-1], increasing; the vector of n elements
 *   in m even segments):
 *   1. Every rank copies its vector into its slot of the node's shared
 *      buffer; a node barrier (flags); member i reduces segment i over the
 *      slots in rank order into the last member's slot; a node barrier.  A
 *      node of one rank skips this: its input is its node sum.
 *   2. For every rank j on another node, member (j mod m) sends j block j
 *      of the node sum (from the shared buffer); every rank receives its
 *      block from each other node (P-1 messages) into scratch, copies its
 *      own node's sum of its block beside them, reduces them in node order
 *      and copies the result to its receive buffer.
 * Cost (P nodes of m ranks, n the vector, b a block): node phase n copied
 *   in, (m-1) n / m reduced per rank, two node barriers; then P-1 messages
 *   of b received and reduced per rank, about (P-1) m / m' blocks sent
 *   (m' the sending node's ranks); each node's link carries
 *   n (P-1) / P both ways.
 * Memory: node-shared m n (twice: the halves alternate between calls; none
 *   on a node of one rank); scratch P blocks of the rank's own count.
 * Restrictions: commutative operations (a node's ranks need not be
 *   consecutive and node sums arrive in node order); node-shared memory.
 *   Any mapping, unequal nodes, one node (then only the shared-memory
 *   reduction).
 * Source: Li, Hoefler, Snir 2013 (node-level shared-memory reduction);
 *   Jain, Lau, Kale 2012 (reduce-scatter among supernodes).
 */
#include "algo/cost_walk.h"
#include "algo/shm_common.h"
#include "blocks/rs_blocks.h"

typedef struct rs_hier {
    const tc_args *a;
    const tc_topo *t;
    tc_rs_blocks B;
    int node, m, mi;
    const int *M;
    int64_t n;
} rs_hier;

/* Segment i of m: its first element. */
static int64_t seg_lo(const rs_hier *h, int i)
{
    int64_t per = h->n / h->m, extra = h->n % h->m;
    return (int64_t)i * per + (i < extra ? i : extra);
}

/* Elements [lo, lo + cnt) of member i's slot. */
static tc_region slot(const rs_hier *h, int i, int64_t lo, int64_t cnt)
{
    return tc_reg(TC_BUF_SHM, (int64_t)i * h->n + lo, cnt);
}

/* Block j of the node's sum: the last slot, or the input on a node of one rank. */
static tc_region node_sum(const rs_hier *h, int j)
{
    if (h->m == 1) return tc_rs_input(&h->B, j);
    return slot(h, h->m - 1, tc_rs_off(&h->B, j), tc_rs_cnt(&h->B, j));
}

/* Step 1. */
static void node_reduce(tc_sched *s, const rs_hier *h)
{
    if (h->m == 1) return;
    tc_sched_need_shm(s, (int64_t)h->m * h->n);
    tc_sched_shm_home(s, (int64_t)h->mi * h->n, h->n);
    tc_sched_copy(s, tc_reg(TC_BUF_SEND, 0, h->n), slot(h, h->mi, 0, h->n));
    tc_shm_node_barrier(s, h->M, h->m, h->mi);
    int64_t lo = seg_lo(h, h->mi), cnt = seg_lo(h, h->mi + 1) - lo;
    for (int i = h->m - 2; i >= 0 && cnt > 0; i--)
        tc_sched_reduce(s, slot(h, i, lo, cnt), slot(h, h->m - 1, lo, cnt));
    tc_shm_node_barrier(s, h->M, h->m, h->mi);
}

/* Step 2: scratch slot k (of the rank's block) holds node k's sum. */
static void exchange(tc_sched *s, const rs_hier *h)
{
    const tc_topo *t = h->t;
    int me = h->a->rank, P = t->nnodes;
    int64_t b = tc_rs_cnt(&h->B, me);
    tc_sched_need_tmp(s, (int64_t)P * b);
    for (int j = 0; j < h->a->size; j++)
        if (t->node_of[j] != h->node && j % h->m == h->mi) tc_sched_send(s, j, node_sum(h, j));
    for (int k = 0; k < P; k++) {
        tc_region to = tc_reg(TC_BUF_TMP, (int64_t)k * b, b);
        if (k == h->node) {
            tc_sched_copy(s, node_sum(h, me), to);
            continue;
        }
        int mk = tc_topo_node_size(t, k);
        tc_sched_recv(s, tc_topo_node_members(t, k)[me % mk], to);
    }
    tc_sched_round(s);
    for (int k = P - 2; k >= 0; k--)   /* node k op the later nodes' sum */
        tc_sched_reduce(s, tc_reg(TC_BUF_TMP, (int64_t)k * b, b), tc_reg(TC_BUF_TMP, (int64_t)(P - 1) * b, b));
    tc_sched_copy(s, tc_reg(TC_BUF_TMP, (int64_t)(P - 1) * b, b), tc_reg(TC_BUF_RECV, 0, b));
    tc_sched_round(s);
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    rs_hier h;
    h.a = a;
    h.t = t;
    h.B = tc_rs_blocks_of(a);
    h.node = t->node_of[a->rank];
    h.m = tc_topo_node_size(t, h.node);
    h.M = tc_topo_node_members(t, h.node);
    h.mi = 0;
    while (h.M[h.mi] != a->rank) h.mi++;
    h.n = tc_rs_end(&h.B, a->size);
    s->tmp_like = TC_BUF_SEND;
    node_reduce(s, &h);
    exchange(s, &h);
    return 0;
}

/* Cost function (n: one block): the node phase (the vector in, (m-1)/m of
 * it reduced, two barriers), then P-1 messages of a block per rank, the
 * ranks of a node receiving at once.  No formula on one node. */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    (void)a;
    int P = t->nnodes, m = tc_cw_max_ppn(t), il = tc_cw_intra_level(t);
    double vec = n * t->size;
    if (P < 2) return -1;   /* one node: no formula (as the other hierarchical entries) */
    if (m > 1) {
        c->mem += vec + n;
        c->reduced += (m - 1) * vec / m;
        tc_cw_path(c, il, 2, 0);
    }
    tc_cw_path(c, TC_LVL_NET, P - 1, n * m);
    c->total[TC_LVL_NET] += vec * (P - 1);   /* every rank a block from each other node */
    c->reduced += (P - 1) * n;
    c->total_approx = 1;
    return 0;
}

const tc_algo tc_reduce_scatter_hierarchical = {
    .cost = cost,
    .coll = TOPOCOLL_REDUCE_SCATTER, .name = "hierarchical",
    .desc = "node sums in shared memory, then every rank's block straight from each other node",
    .req = TC_REQ_COMMUTATIVE | TC_REQ_NODE_SHM,
    .generate = generate, .source = __FILE__,
};
