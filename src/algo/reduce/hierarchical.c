/*
 * reduce family "hierarchical:leaders=K,node=N,inter=I" (several nodes, any
 * root): a node-level reduction to the node's leaders, a reduction among
 * the nodes' leaders towards the root (binomial, or a pipelined chain), with
 * K leaders per node each carrying 1/K of the vector across the nodes, then
 * the root's node's leaders hand their segments to the root.  The node-level shared-memory
 * reduction is the socket-aware tree of Li, Hoefler, Snir, "NUMA-Aware
 * Shared-Memory Collective Communication for MPI" (2013), section 3.1
 * (reduce "shm_tree"); the multiple leaders follow Kandalla, Subramoni,
 * Santhanaraman, Koop, Panda, "Designing Multi-Leader-Based Allgather
 * Algorithms for Multi-Core Clusters" (2009), applied to reduce.
 *
 * Steps (node of m ranks M[0..m-1], increasing, read from the root's index
 *   on the root's node and from 0 elsewhere; the vector in K segments;
 *   segment j's leader is the node's rank at position j m / K of that
 *   order, so the root leads segment 0 and a node of fewer than K ranks has
 *   ranks leading several segments):
 *   1. node=shm: every rank copies each segment of its vector into its slot
 *      of the node's shared buffer (a segment's leader into its
 *      accumulator instead: the root's receive buffer, else scratch); per
 *      segment, the shm_tree reduction (fan-in 4 inside each socket, then
 *      across the sockets' last ranks) with the segment's leader last, so
 *      its result ends in the leader's accumulator.  Release as shm_tree:
 *      every rank raises the flag of the node's segment-0 leader when it
 *      starts, that leader raises every rank's flag once all have come, and
 *      every rank waits for it before it returns (src/algo/shm_rooted.h);
 *      with several leaders before the second segment's tree instead,
 *      where that leader may be a child whose flag it waits for (flags
 *      count: the release must be consumed first).
 *      node=p2p: per segment, a binomial reduction among the node's ranks
 *      towards the segment's leader.
 *   2. Per segment, a reduction among the segment's leaders (one per node,
 *      node order starting at the root's node) towards the root's node.
 *      inter=binomial: a binomial tree; a leader receives its children's
 *      partials into scratch and combines them into its accumulator.
 *      inter=chain_4k, chain_16k: a chain from the last node to the root's
 *      node in chunks of 4k or 16k elements, pipelined: a leader receives
 *      chunk r+1 from its successor while it sends chunk r (combined with
 *      its own in the round before) on, so every node's link carries the
 *      vector once in each direction at most and the root's node receives
 *      it once (the binomial tree's root receives it ceil(log2 P) times).
 *   3. The root's node's leaders of segments 1..K-1 other than the root
 *      send their segments to the root.
 * Cost (P nodes of m ranks, n elements): node phase shm n copy-in, the
 *   tree's levels of (F-1) n/K gamma per segment and one flag, p2p
 *   ceil(log2 m) (alpha + n/K beta + n/K gamma) per segment; leaders'
 *   phase binomial ceil(log2 P) (alpha + n/K beta + n/K gamma) (K leaders
 *   cross the network at once), chain (C + P - 1) (alpha + c beta) + C c
 *   gamma for C = n/(K c) chunks of c elements; gather (K-1) (alpha + n/K beta) at the root.
 * Memory: node=shm: node-shared m n (twice: the halves alternate between
 *   calls); scratch n (accumulators) + 2 n/K (children's partials; the
 *   chain: 2 chunks).
 * Restrictions: commutative operations (the trees combine in no rank
 *   order; keeping canonical order across nodes would need the nodes to be
 *   rank ranges): others are declined.  node=shm needs node-shared memory.
 *   Any root, mapping, unequal nodes and sockets.
 * Source: Li, Hoefler, Snir 2013 (node-level shared-memory reduction);
 *   Kandalla et al. 2009 (multiple leaders); Thakur, Rabenseifner, Gropp
 *   2005 (binomial reduction); the pipelined chain is the segmented
 *   pipeline of Open MPI's coll_tuned reduce ("pipeline", "chain") applied
 *   to the leaders only.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "algo/cost_walk.h"
#include "algo/shm_rooted.h"

enum { N_SHM, N_P2P };
enum { I_BINOMIAL, I_CHAIN_4K, I_CHAIN_16K };
static const int64_t chain_chunks[] = { 0, 4096, 16384 };   /* elements per chunk */
static const int leader_counts[] = { 1, 2, 4 };
#define FANIN 4

typedef struct hr {
    const tc_args *a;
    const tc_topo *t;
    int K, node_mode, inter;
    int node, m, mi;          /* this rank's node, its size, this rank's index */
    int rnode, P;             /* the root's node, the node count */
    int64_t n;
} hr;

static int64_t seg_lo(const hr *h, int j)
{
    int64_t per = h->n / h->K, extra = h->n % h->K;
    return (int64_t)j * per + (j < extra ? j : extra);
}

static int64_t seg_len(const hr *h, int j) { return seg_lo(h, j + 1) - seg_lo(h, j); }

static tc_region seg(const hr *h, int buf, int64_t base, int j)
{
    return tc_reg(buf, base + seg_lo(h, j), seg_len(h, j));
}

/* Position x of node nd's ranks in the node's leader order (the root's
 * node starts at the root). */
static int node_rank(const hr *h, int nd, int x)
{
    int m = tc_topo_node_size(h->t, nd), base = nd == h->rnode ? h->t->node_idx[h->a->root] : 0;
    return tc_topo_node_members(h->t, nd)[(base + x) % m];
}

/* Segment j's leader on node nd. */
static int leader(const hr *h, int nd, int j)
{
    return node_rank(h, nd, (int)((int64_t)j * tc_topo_node_size(h->t, nd) / h->K));
}

static int leads(const hr *h, int j) { return leader(h, h->node, j) == h->a->rank; }

static tc_region input(const hr *h, int j)
{
    int root_in_place = h->a->rank == h->a->root && h->a->in_place;
    return seg(h, root_in_place ? TC_BUF_RECV : TC_BUF_SEND, 0, j);
}

/* A leader's accumulator of segment j: the root's receive buffer, else
 * scratch [0, n). */
static tc_region leader_acc(const hr *h, int j)
{
    return seg(h, h->a->rank == h->a->root ? TC_BUF_RECV : TC_BUF_TMP, 0, j);
}

static void copy_unless_same(tc_sched *s, tc_region from, tc_region to)
{
    if (from.buf != to.buf || from.off != to.off) tc_sched_copy(s, from, to);
}

/* Binomial reduction over L[0..k) towards L[0] (commutative operation),
 * this rank at position v: receive each child's partial (nearest subtree
 * first) into scratch (two alternating buffers at tmp_off) and combine it
 * into acc, then send acc to the parent.  A leaf sends `in` as it is.
 * Closes its rounds. */
static void binom_reduce(tc_sched *s, const int *L, int k, int v, tc_region in, tc_region acc, int64_t tmp_off)
{
    int kids[32], nk = tc_binom_children(v, k, kids, 32);
    int64_t c = acc.cnt;
    if (nk == 0 && v) {
        tc_sched_send(s, L[tc_binom_parent(v)], in);
        tc_sched_round(s);
        return;
    }
    copy_unless_same(s, in, acc);
    for (int i = 0; i <= nk; i++) {
        if (i < nk) tc_sched_recv(s, L[kids[nk - 1 - i]], tc_reg(TC_BUF_TMP, tmp_off + (i % 2) * c, c));
        if (i > 0) tc_sched_reduce(s, tc_reg(TC_BUF_TMP, tmp_off + ((i - 1) % 2) * c, c), acc);
        tc_sched_round(s);
    }
    if (v) tc_sched_send(s, L[tc_binom_parent(v)], acc);
    tc_sched_round(s);
}

/* Where the successor's chunk r arrives: two alternating chunk buffers of
 * scratch at tmp_off. */
static tc_region chain_part(tc_region acc, int64_t tmp_off, int64_t ch, int r)
{
    return tc_reg(TC_BUF_TMP, tmp_off + (r % 2) * ch, tc_reg_chunk(acc, ch, r).cnt);
}

/* Chain reduction over L[0..k) towards L[0] (commutative operation), this
 * rank at position v, in chunks of ch elements of acc.  The last position
 * sends its chunks in one round.  The others receive chunk 0 from L[v+1]
 * into scratch (two alternating chunk buffers at tmp_off); then per chunk
 * r, a round that combines it into acc and a round that (but L[0]) sends
 * it to L[v-1] while chunk r+1 arrives.  A round posts its messages before
 * its local ops run, so a chunk combined in one round can leave in the
 * next one at the earliest: with the combine in a round of its own a
 * chunk spends one transfer per hop, not two.  Closes its rounds. */
static void chain_reduce(tc_sched *s, const int *L, int k, int v, tc_region acc, int64_t tmp_off, int64_t ch)
{
    int C = tc_nchunks(acc.cnt, ch);
    if (k < 2 || C == 0) return;
    if (v == k - 1) {
        for (int r = 0; r < C; r++) tc_sched_send(s, L[v - 1], tc_reg_chunk(acc, ch, r));
        tc_sched_round(s);
        return;
    }
    tc_sched_recv(s, L[v + 1], chain_part(acc, tmp_off, ch, 0));
    tc_sched_round(s);
    for (int r = 0; r < C; r++) {
        tc_sched_reduce(s, chain_part(acc, tmp_off, ch, r), tc_reg_chunk(acc, ch, r));
        tc_sched_round(s);
        if (v > 0) tc_sched_send(s, L[v - 1], tc_reg_chunk(acc, ch, r));
        if (r + 1 < C) tc_sched_recv(s, L[v + 1], chain_part(acc, tmp_off, ch, r + 1));
        tc_sched_round(s);
    }
}

/* Step 1 (shm): copy-in, then one shm_tree reduction per segment.  R (the
 * segment-0 leader, root of the first tree) raised every rank's release
 * flag before its reductions; a rank waits for it before the second tree,
 * where R may be a child whose flag it waits for (flags count: the release
 * must be consumed first), else before returning. */
static int node_shm(tc_sched *s, const hr *h, int R)
{
    const int *slot_of = h->t->node_idx;
    for (int j = 0; j < h->K; j++)
        tc_sched_copy(s, input(h, j), leads(h, j) ? leader_acc(h, j) : seg(h, TC_BUF_SHM, h->mi * h->n, j));
    for (int j = 0; j < h->K; j++) {
        if (j == 1 && h->a->rank != R) tc_sched_wait(s, R);
        tc_shm_tree g;
        int rc = tc_shm_tree_make(&g, h->t, h->node, leader(h, h->node, j), 1);
        if (!rc) {
            tc_region acc = leads(h, j) ? leader_acc(h, j) : seg(h, TC_BUF_SHM, h->mi * h->n, j);
            tc_shm_tree_reduce(s, h->a, &g, slot_of, FANIN, seg_lo(h, j), acc, &rc);
        }
        tc_shm_tree_free(&g);
        if (rc) return rc;
        tc_sched_round(s);
    }
    return 0;
}

/* Step 1 (p2p): one binomial reduction per segment towards its leader, over
 * the node's ranks in leader order from the leader. */
static int node_p2p(tc_sched *s, const hr *h)
{
    int *L = malloc((size_t)h->m * sizeof *L);
    if (!L) return ENOMEM;
    for (int j = 0; j < h->K; j++) {
        int first = (int)((int64_t)j * h->m / h->K), v = 0;
        for (int x = 0; x < h->m; x++) {
            L[x] = node_rank(h, h->node, (first + x) % h->m);
            if (L[x] == h->a->rank) v = x;
        }
        tc_region acc = leads(h, j) ? leader_acc(h, j) : seg(h, TC_BUF_TMP, 0, j);
        binom_reduce(s, L, h->m, v, input(h, j), acc, h->n);
    }
    free(L);
    return 0;
}

/* The chain's chunk: the parameter's element count, at most the first
 * segment (the scratch holds two of those). */
static int64_t chain_chunk(const hr *h)
{
    int64_t s0 = seg_len(h, 0), c = chain_chunks[h->inter];
    return s0 < c ? (s0 > 0 ? s0 : 1) : c;
}

/* Step 2. */
static int leaders(tc_sched *s, const hr *h)
{
    int *L = malloc((size_t)h->P * sizeof *L), v = tc_mod(h->node - h->rnode, h->P);
    if (!L) return ENOMEM;
    for (int j = 0; j < h->K; j++) {
        if (!leads(h, j)) continue;
        for (int x = 0; x < h->P; x++) L[x] = leader(h, (h->rnode + x) % h->P, j);
        if (h->inter != I_BINOMIAL)
            chain_reduce(s, L, h->P, v, leader_acc(h, j), h->n, chain_chunk(h));
        else
            binom_reduce(s, L, h->P, v, leader_acc(h, j), leader_acc(h, j), h->n);
    }
    free(L);
    return 0;
}

/* Step 3. */
static void gather_root(tc_sched *s, const hr *h)
{
    if (h->node != h->rnode) return;
    for (int j = 1; j < h->K; j++) {
        int l = leader(h, h->node, j);
        if (l == h->a->root) continue;
        if (h->a->rank == l) tc_sched_send(s, h->a->root, leader_acc(h, j));
        else if (h->a->rank == h->a->root) tc_sched_recv(s, l, seg(h, TC_BUF_RECV, 0, j));
    }
    tc_sched_round(s);
}

/* The release of the node's window (node=shm): R is the node's segment-0
 * leader.  begin: before the copy-in; end: before returning (with one
 * leader; with several, node_shm waits for it). */
static void release_begin(tc_sched *s, const hr *h, int R)
{
    const int *M = tc_topo_node_members(h->t, h->node);
    if (h->a->rank != R) {
        tc_sched_signal(s, R);
        tc_sched_round(s);
        return;
    }
    for (int i = 0; i < h->m; i++)
        if (M[i] != R) tc_sched_wait(s, M[i]);
    tc_sched_round(s);
    for (int i = 0; i < h->m; i++)
        if (M[i] != R) tc_sched_signal(s, M[i]);
    tc_sched_round(s);
}

static void release_end(tc_sched *s, const hr *h, int R)
{
    if (h->a->rank != R && h->K == 1) tc_sched_wait(s, R);
    tc_sched_round(s);
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t, int K, int node_mode, int inter)
{
    hr h = { a, t, K, node_mode, inter, 0, 0, 0, 0, t->nnodes, a->scount };
    h.node = t->node_of[a->rank];
    h.m = tc_topo_node_size(t, h.node);
    h.mi = t->node_idx[a->rank];
    h.rnode = t->node_of[a->root];
    s->tmp_like = TC_BUF_SEND;
    if (a->size == 1 || h.n == 0) {
        if (a->rank == a->root && !a->in_place) tc_sched_copy(s, tc_reg(TC_BUF_SEND, 0, h.n), tc_reg(TC_BUF_RECV, 0, h.n));
        tc_sched_round(s);
        return 0;
    }
    tc_sched_need_tmp(s, h.n + 2 * seg_len(&h, 0));
    int shm = node_mode == N_SHM && h.m > 1, R = leader(&h, h.node, 0), rc;
    if (shm) {
        tc_sched_need_shm(s, (int64_t)h.m * h.n);
        tc_sched_shm_home(s, (int64_t)h.mi * h.n, h.n);
        release_begin(s, &h, R);
        rc = node_shm(s, &h, R);
    } else {
        rc = node_p2p(s, &h);
    }
    if (!rc) rc = leaders(s, &h);
    if (rc) return rc;
    gather_root(s, &h);
    if (shm) release_end(s, &h, R);
    return 0;
}

/* ---- the family's catalog row ---------------------------------------------- */

enum { P_LEADERS, P_NODE, P_INTER };
static const char *const leaders_values[] = { "1", "2", "4", NULL };
static const char *const node_values[] = { "shm", "p2p", NULL };
static const char *const inter_values[] = { "binomial", "chain_4k", "chain_16k", NULL };
static const tc_param_def params[] = {
    { "leaders", leaders_values, 0 },
    { "node", node_values, N_SHM },
    { "inter", inter_values, I_BINOMIAL },
};

static void describe(const tc_family *f, const int *v, tc_instance_text *out)
{
    (void)f;
    snprintf(out->alias, sizeof out->alias, "h%s_%s%s", leaders_values[v[P_LEADERS]], node_values[v[P_NODE]],
             v[P_INTER] == I_CHAIN_4K ? "_chain4k" : v[P_INTER] == I_CHAIN_16K ? "_chain16k" : "");
    snprintf(out->desc, sizeof out->desc,
             "hierarchical, %s leader%s per node (1/%s of the vector each): node-level %s reduction, "
             "leaders' %s towards the root", leaders_values[v[P_LEADERS]],
             v[P_LEADERS] ? "s" : "", leaders_values[v[P_LEADERS]],
             v[P_NODE] == N_SHM ? "shared-memory tree" : "point-to-point binomial",
             v[P_INTER] == I_CHAIN_4K    ? "pipelined chain reduction in chunks of 4k elements"
             : v[P_INTER] == I_CHAIN_16K ? "pipelined chain reduction in chunks of 16k elements"
                                         : "binomial reduction");
}

static unsigned req_of(const int *v) { return v[P_NODE] == N_SHM ? TC_REQ_NODE_SHM : TC_REQ_NONE; }

/* Cost function (several nodes; K leaders per node, at most m ranks on a
 * node, P nodes, n bytes, segments of n/K):
 *   node phase: shm a copy of n into the node's window (node memory) and
 *   the fan-in-4 tree's levels, (F-1) n/K reduced and a flag each; p2p per
 *   segment a binomial reduction over the node's ranks: ceil(log2 m)
 *   messages of n/K and n/K reduced, K segments one after another;
 *   leaders' phase: binomial ceil(log2 P) steps of n/K with the K leaders
 *   of a node on its link at once, n/K reduced each; chain: C + P - 1
 *   chunks of c in a row (C = n / (K c)), C c reduced;
 *   the root's node's other leaders: K-1 messages of n/K to the root.
 * Level totals are estimates: inside the nodes (m_i - 1) n per node (p2p)
 * and (K-1) n/K to the root; over the network (P-1) n. */
static int family_cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    const int *v = al->param;
    int P = t->nnodes, m = tc_cw_max_ppn(t), il = tc_cw_intra_level(t);
    if (P < 2 || a->scount <= 0) return -1;
    double K = leader_counts[v[P_LEADERS]] < m ? leader_counts[v[P_LEADERS]] : m, seg = n / K;
    double levels = tc_cw_ceil_log2(m);
    if (v[P_NODE] == N_SHM) {
        int l4 = 0;
        for (int k = 1; k < m; k *= 4) l4++;
        c->mem += n;
        c->reduced += l4 * 3 * seg;
        tc_cw_path(c, il, l4, 0);
    } else {
        tc_cw_path(c, il, K * levels, seg);
        c->reduced += K * levels * seg;
        for (int i = 0; i < P; i++) c->total[il] += (t->node_start[i + 1] - t->node_start[i] - 1) * n;
    }
    if (v[P_INTER] == I_BINOMIAL) {
        double steps = tc_cw_ceil_log2(P);
        tc_cw_path(c, TC_LVL_NET, steps, seg * K);
        c->reduced += steps * seg;
    } else {
        double ch = (double)chain_chunks[v[P_INTER]] * (n / (double)a->scount);
        if (ch > seg) ch = seg;
        double chunks = ceil(seg / ch), hops = chunks + P - 1;
        c->msgs[TC_LVL_NET] += hops;
        c->bytes[TC_LVL_NET] += hops * ch * K;
        c->reduced += chunks * ch;
    }
    c->total[TC_LVL_NET] += (P - 1) * n;
    tc_cw_path(c, il, K - 1, seg);
    c->total[il] += (K - 1) * seg;
    c->total_approx = 1;
    return 0;
}

static int family_generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    const int *v = a->param;
    return generate(s, a, t, leader_counts[v[P_LEADERS]], v[P_NODE], v[P_INTER]);
}

const tc_family tc_reduce_hierarchical = {
    .coll = TOPOCOLL_REDUCE, .name = "hierarchical",
    .summary = "node-level reduction (shared-memory tree or point-to-point), leaders' binomial or pipelined "
               "chain reduction towards the root (1, 2 or 4 leaders per node, each carrying its share of the "
               "vector)",
    .source = __FILE__, .nparams = 3, .params = params, .rule = "",
    .describe = describe, .req = TC_REQ_COMMUTATIVE, .req_of = req_of, .generate = family_generate,
    .cost = family_cost,
};
