/*
 * bcast family "hierarchical:x=X,node=N" (several nodes, any root): the
 * root sends the buffer to one leader per node, then every node broadcasts
 * it from its leader.  The node-level shared-memory broadcast is the one-
 * and two-stage broadcast of Li, Hoefler, Snir, "NUMA-Aware Shared-Memory
 * Collective Communication for MPI" (2013), section 3.3 (bcast "shm").
 *
 * Steps (a node's leader: the root on the root's node, else the node's
 *   lowest rank; leaders listed in node order starting at the root's node):
 *   1. Among the leaders: x=binomial, a binomial tree from the root;
 *      x=scatter_allgather, van de Geijn's broadcast (a binomial scatter of
 *      P pieces of ceil(n/P), then a ring allgather of the pieces);
 *      x=chain_16k, chain_64k: a pipelined chain in node order, in chunks
 *      of 16k or 64k elements: in round r a leader receives chunk r from
 *      its predecessor and passes chunk r-1 on, so every node's link
 *      carries the buffer once in each direction.
 *   2. node=shm1: the leader copies the buffer into the node-shared window
 *      and raises every node rank's flag; they copy it out (one stage).
 *      node=shm2: one reader per other socket of the node copies it into its
 *      socket's slot and raises its socket's flags (two stages).  Arrival
 *      flags as bcast "shm": no rank returns before every rank of its node
 *      has started the call (src/algo/shm_rooted.h).  node=p2p: a binomial
 *      tree among the node's ranks from the leader.
 * Cost (P nodes of m ranks, s sockets per node, n bytes): leaders' phase
 *   binomial ceil(log2 P) (alpha + n beta), scatter_allgather
 *   (ceil(log2 P) + P - 1) alpha + 2 (P-1)/P n beta, chain (C + P - 2)
 *   (alpha + c beta) for C chunks of c elements; node phase shm1 one
 *   copy in, m-1 copies out (across sockets) and two flag rounds, shm2 s-1
 *   cross-socket copies and one more copy and flag on the way, p2p
 *   ceil(log2 m) (alpha + n beta).
 * Memory: node=shm1: node-shared n, shm2: s n (twice: the halves alternate
 *   between calls); no scratch.
 * Restrictions: node=shm1|shm2 need node-shared memory.  Any root, mapping,
 *   unequal nodes and sockets.
 * Source: Li, Hoefler, Snir 2013, section 3.3 (node phase); Thakur,
 *   Rabenseifner, Gropp 2005 and Barnett et al. 1994 (the leaders'
 *   binomial and scatter-allgather broadcasts); the pipelined chain is the
 *   segmented pipeline broadcast of Open MPI's coll_tuned ("pipeline",
 *   "chain"), here among the leaders only.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/cost_walk.h"
#include "algo/shm_rooted.h"
#include "blocks/subset.h"

enum { X_BINOMIAL, X_SCATTER_ALLGATHER, X_CHAIN_16K, X_CHAIN_64K };
static const int64_t chain_chunks[] = { 0, 0, 16384, 65536 };   /* elements per chunk */
enum { N_SHM1, N_SHM2, N_P2P };

/* Node nd's leader. */
static int leader_of(const tc_topo *t, int root, int nd)
{
    return nd == t->node_of[root] ? root : tc_topo_node_members(t, nd)[0];
}

/* Pieces [v, v + k) of P pieces of ceil(n/P), clipped to n. */
static tc_region pieces(int64_t n, int P, int v, int k)
{
    int64_t ps = (n + P - 1) / P, lo = (int64_t)v * ps, hi = (int64_t)(v + k) * ps;
    if (lo > n) lo = n;
    if (hi > n) hi = n;
    return tc_reg(TC_BUF_RECV, lo, hi - lo);
}

/* Step 1, x=scatter_allgather: binomial scatter from L[0], then a ring
 * allgather in list order (this rank at position v). */
static void scatter_allgather(tc_sched *s, const int *L, int P, int v, int64_t n)
{
    int kids[32];
    if (v) {
        tc_sched_recv(s, L[tc_binom_parent(v)], pieces(n, P, v, tc_binom_subtree(v, P)));
        tc_sched_round(s);
    }
    int nk = tc_binom_children(v, P, kids, 32);
    for (int i = 0; i < nk; i++) tc_sched_send(s, L[kids[i]], pieces(n, P, kids[i], tc_binom_subtree(kids[i], P)));
    tc_sched_round(s);
    for (int i = 1; i < P; i++) {
        tc_sched_send(s, L[tc_ring_right(v, P)], pieces(n, P, tc_wrap(v - i + 1, P), 1));
        tc_sched_recv(s, L[tc_ring_left(v, P)], pieces(n, P, tc_wrap(v - i, P), 1));
        tc_sched_round(s);
    }
}

/* Step 1, x=chain_*: the chain L[0] -> L[1] -> ... -> L[P-1] (this rank at
 * position v) in chunks of ch elements: the head sends them all and the
 * tail receives them all in one round; the others receive chunk r and send
 * chunk r-1 in round r (different regions: no hazard inside the round). */
static void chain(tc_sched *s, const int *L, int P, int v, int64_t n, int64_t ch)
{
    tc_region all = tc_reg(TC_BUF_RECV, 0, n);
    int C = tc_nchunks(n, ch);
    if (v == 0 || v == P - 1) {
        for (int r = 0; r < C; r++) {
            if (v == 0) tc_sched_send(s, L[1], tc_reg_chunk(all, ch, r));
            else tc_sched_recv(s, L[v - 1], tc_reg_chunk(all, ch, r));
        }
        tc_sched_round(s);
        return;
    }
    for (int r = 0; r <= C; r++) {
        if (r < C) tc_sched_recv(s, L[v - 1], tc_reg_chunk(all, ch, r));
        if (r >= 1) tc_sched_send(s, L[v + 1], tc_reg_chunk(all, ch, r - 1));
        tc_sched_round(s);
    }
}

/* Step 1. */
static int leaders(tc_sched *s, const tc_args *a, const tc_topo *t, int x)
{
    int P = t->nnodes, rnode = t->node_of[a->root], node = t->node_of[a->rank];
    if (P == 1 || leader_of(t, a->root, node) != a->rank) return 0;
    int *L = malloc((size_t)P * sizeof *L), v = tc_mod(node - rnode, P);
    if (!L) return ENOMEM;
    for (int i = 0; i < P; i++) L[i] = leader_of(t, a->root, (rnode + i) % P);
    tc_region all = tc_reg(TC_BUF_RECV, 0, a->rcount);
    if (x == X_BINOMIAL) tc_subset_bcast(s, L, P, v, &all, 1);
    else if (x == X_SCATTER_ALLGATHER) scatter_allgather(s, L, P, v, a->rcount);
    else chain(s, L, P, v, a->rcount, chain_chunks[x]);
    free(L);
    return 0;
}

/* Step 2, node=p2p: a binomial tree over the node's ranks from its leader. */
static int node_p2p(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    int node = t->node_of[a->rank], m = tc_topo_node_size(t, node);
    const int *M = tc_topo_node_members(t, node);
    int base = t->node_idx[leader_of(t, a->root, node)], v = tc_mod(t->node_idx[a->rank] - base, m);
    int *L = malloc((size_t)m * sizeof *L);
    if (!L) return ENOMEM;
    for (int i = 0; i < m; i++) L[i] = M[(base + i) % m];
    tc_region all = tc_reg(TC_BUF_RECV, 0, a->rcount);
    tc_subset_bcast(s, L, m, v, &all, 1);
    free(L);
    return 0;
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t, int x, int node_mode)
{
    if (a->size == 1 || a->rcount == 0) return 0;
    s->tmp_like = TC_BUF_RECV;
    int rc = leaders(s, a, t, x);
    if (rc) return rc;
    if (node_mode == N_P2P) return node_p2p(s, a, t);
    tc_shm_bcast_node(s, t, a->rank, leader_of(t, a->root, t->node_of[a->rank]), node_mode == N_SHM2,
                      a->rcount, 0);
    return 0;
}

/* ---- the family's catalog row ---------------------------------------------- */

enum { P_X, P_NODE };
static const char *const x_values[] = { "binomial", "scatter_allgather", "chain_16k", "chain_64k", NULL };
static const char *const x_alias[] = { "bin", "sa", "chain16k", "chain64k" };
static const char *const node_values[] = { "shm1", "shm2", "p2p", NULL };
static const tc_param_def params[] = {
    { "x", x_values, X_BINOMIAL },
    { "node", node_values, N_SHM1 },
};

static void describe(const tc_family *f, const int *v, tc_instance_text *out)
{
    (void)f;
    static const char *const nt[] = { "one-stage shared-memory", "two-stage shared-memory (a reader per socket)",
                                      "point-to-point binomial" };
    snprintf(out->alias, sizeof out->alias, "h_%s_%s", x_alias[v[P_X]], node_values[v[P_NODE]]);
    static const char *const xt[] = { "binomial tree", "scatter + ring allgather",
                                      "pipelined chain in chunks of 16k elements",
                                      "pipelined chain in chunks of 64k elements" };
    snprintf(out->desc, sizeof out->desc, "hierarchical: %s among the node leaders, node-level %s broadcast",
             xt[v[P_X]], nt[v[P_NODE]]);
}

static unsigned req_of(const int *v) { return v[P_NODE] == N_P2P ? TC_REQ_NONE : TC_REQ_NODE_SHM; }

/* ---- cost ---------------------------------------------------------------------- */

typedef struct hb_walk {
    const tc_topo *t;
    int root, x;
} hb_walk;

/* Steps among the leaders, in positions from the root's node: the binomial
 * tree (one block), the scatter's subtrees (pieces), the ring (one piece,
 * d unused), the chain (the whole buffer to the next leader). */
static int hb_leader_pair(const void *ctx, int r, int p, int d, double *blocks)
{
    const hb_walk *w = ctx;
    const tc_topo *t = w->t;
    int P = t->nnodes, rnode = t->node_of[w->root], nd = t->node_of[r];
    (void)p;
    if (leader_of(t, w->root, nd) != r) return -1;
    int v = tc_mod(nd - rnode, P), to;
    *blocks = 1;
    if (w->x == X_BINOMIAL || w->x == -1) {   /* -1: the scatter's subtrees */
        if (v % (2 * d) || v + d >= P) return -1;
        if (w->x == -1) *blocks = d < P - v - d ? d : P - v - d;
        to = v + d;
    } else if (w->x == X_SCATTER_ALLGATHER) {
        to = (v + 1) % P;
    } else {
        if (v == P - 1) return -1;
        to = v + 1;
    }
    return leader_of(t, w->root, (rnode + to) % P);
}

/* The binomial tree over a node's ranks from its leader (node=p2p). */
static int hb_node_pair(const void *ctx, int r, int p, int d, double *blocks)
{
    const hb_walk *w = ctx;
    const tc_topo *t = w->t;
    int nd = t->node_of[r], m = tc_topo_node_size(t, nd);
    const int *M = tc_topo_node_members(t, nd);
    int base = t->node_idx[leader_of(t, w->root, nd)], v = tc_mod(t->node_idx[r] - base, m);
    (void)p;
    *blocks = 1;
    if (v % (2 * d) || v + d >= m) return -1;
    return M[(base + v + d) % m];
}

/* Cost function (several nodes): the leaders' phase walked over the leaders
 * (binomial: ceil(log2 P) steps of n; scatter_allgather: the scatter's
 * subtrees of pieces of n/P, P-1 ring steps of a piece; chain: C + P - 2
 * chunks in a row on the critical path, n over every leader's link), then
 * the node phase: shm1 a copy in and a copy out of n and two flag rounds,
 * shm2 one more copy and flag (several sockets), p2p the binomial tree over
 * every node's ranks, walked.  The level totals are exact. */
static int family_cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    const int *v = al->param;
    int P = t->nnodes, root = a->root >= 0 && a->root < t->size ? a->root : 0;
    if (P < 2 || a->rcount <= 0) return -1;
    hb_walk w = { t, root, v[P_X] };
    if (v[P_X] == X_BINOMIAL) {
        for (int d = 1; d < P; d <<= 1) tc_cw_step(c, t, hb_leader_pair, &w, d, n);
    } else if (v[P_X] == X_SCATTER_ALLGATHER) {
        double piece = ceil(n / P);
        hb_walk sc = { t, root, -1 };
        for (int d = 1; d < P; d <<= 1) tc_cw_step(c, t, hb_leader_pair, &sc, d, piece);
        for (int k = 1; k < P; k++) tc_cw_step(c, t, hb_leader_pair, &w, 0, piece);
    } else {   /* the chain: totals of one pass of n, the pipeline on the critical path */
        tc_cost pass;
        memset(&pass, 0, sizeof pass);
        tc_cw_step(&pass, t, hb_leader_pair, &w, 0, n);
        double chunk = (double)chain_chunks[v[P_X]] * (n / (double)a->rcount);
        double chunks = ceil(n / chunk), hops = chunks + P - 2;
        if (chunk > n) chunk = n;
        for (int l = 0; l < TC_NLEVELS; l++) {
            c->total[l] += pass.total[l];
            if (pass.msgs[l] > 0) tc_cw_path(c, l, hops, chunk);
        }
    }
    int il = tc_cw_intra_level(t), m = tc_cw_max_ppn(t);
    if (v[P_NODE] == N_P2P) {
        for (int d = 1; d < m; d <<= 1) tc_cw_step(c, t, hb_node_pair, &w, d, n);
    } else {
        int two = v[P_NODE] == N_SHM2 && t->nsockets > t->nnodes;
        c->mem += (two ? 3 : 2) * n;
        tc_cw_path(c, il, two ? 3 : 2, 0);
    }
    return 0;
}

static int family_generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    const int *v = a->param;
    return generate(s, a, t, v[P_X], v[P_NODE]);
}

const tc_family tc_bcast_hierarchical = {
    .coll = TOPOCOLL_BCAST, .name = "hierarchical",
    .summary = "root to the node leaders (binomial, scatter + allgather or pipelined chain), then node-level broadcast "
               "(one- or two-stage shared memory, or point-to-point)",
    .source = __FILE__, .nparams = 2, .params = params, .rule = "",
    .describe = describe, .req = TC_REQ_NONE, .req_of = req_of, .generate = family_generate,
    .cost = family_cost,
};
