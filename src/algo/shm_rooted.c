/*
 * The steps the shared-memory rooted collectives share
 * (src/algo/shm_rooted.h; Li, Hoefler, Snir, "NUMA-Aware Shared-Memory
 * Collective Communication for MPI" (2013), sections 3.1 to 3.3): the fan-in
 * tree, its socket groups over one node, and the one-node broadcast.
 */
#include <errno.h>
#include <stdlib.h>

#include "algo/shm_rooted.h"

static tc_region child_slot(const tc_args *a, int nslots, const int *slot_of, int r, int64_t off, int64_t cnt)
{
    return tc_shm_slot(a, nslots, slot_of ? slot_of[r] : r, 0, off, cnt);
}

int tc_shm_fanin_tree(tc_sched *s, const tc_args *a, int nslots, const int *slot_of, const int *L, int m, int i,
                      int F, int64_t off, tc_region acc)
{
    int64_t j = m - 1 - i, stride = 1;
    while (stride < m && j % (stride * F) == 0) {
        for (int t = 1; t < F; t++)
            if (j + t * stride < m) tc_sched_wait(s, L[m - 1 - (j + t * stride)]);
        tc_sched_round(s);
        for (int t = 1; t < F; t++)
            if (j + t * stride < m)
                tc_sched_reduce(s, child_slot(a, nslots, slot_of, L[m - 1 - (j + t * stride)], off, acc.cnt), acc);
        stride *= F;
    }
    if (j == 0) return 1;
    tc_sched_signal(s, L[m - 1 - (j - j % (stride * F))]);
    return 0;
}

/* ---- the socket groups of one node's tree ------------------------------------ */

/* Local socket k of the node in tree order: with `ls` (the last rank's
 * socket) >= 0, ls moves to the end. */
static int tree_socket(int k, int socks, int ls)
{
    if (socks == 1) return -1;
    if (ls < 0 || k < ls) return k;
    return k < socks - 1 ? k + 1 : ls;
}

int tc_shm_tree_make(tc_shm_tree *g, const tc_topo *t, int node, int last, int by_socket)
{
    const int *M = tc_topo_node_members(t, node);
    int m = tc_topo_node_size(t, node), s0 = t->node_sock_start[node];
    int socks = by_socket ? t->node_sock_start[node + 1] - s0 : 1;
    int ls = last >= 0 ? t->sock_of[last] - s0 : -1, at = 0;
    g->ng = socks;
    g->start = malloc((size_t)(socks + 1) * sizeof *g->start);
    g->ranks = malloc((size_t)m * sizeof *g->ranks);
    if (!g->start || !g->ranks) return ENOMEM;
    for (int k = 0; k < socks; k++) {
        int sk = tree_socket(k, socks, ls);
        g->start[k] = at;
        for (int i = 0; i < m; i++)
            if ((sk < 0 || t->sock_of[M[i]] - s0 == sk) && M[i] != last) g->ranks[at++] = M[i];
        if (last >= 0 && (sk < 0 || sk == ls)) g->ranks[at++] = last;
    }
    g->start[socks] = at;
    return 0;
}

void tc_shm_tree_free(tc_shm_tree *g)
{
    free(g->start);
    free(g->ranks);
    g->start = g->ranks = NULL;
}

int tc_shm_tree_reduce(tc_sched *s, const tc_args *a, const tc_shm_tree *g, const int *slot_of, int F,
                       int64_t off, tc_region acc, int *err)
{
    int grp = 0, idx = 0;
    for (int k = 0; k < g->ng; k++)
        for (int i = g->start[k]; i < g->start[k + 1]; i++)
            if (g->ranks[i] == a->rank) {
                grp = k;
                idx = i - g->start[k];
            }
    int groot = tc_shm_fanin_tree(s, a, 1, slot_of, g->ranks + g->start[grp], g->start[grp + 1] - g->start[grp],
                                  idx, F, off, acc);
    *err = 0;
    if (groot && g->ng > 1) {
        int *roots = malloc((size_t)g->ng * sizeof *roots);
        if (!roots) {
            *err = ENOMEM;
            return 0;
        }
        for (int q = 0; q < g->ng; q++) roots[q] = g->ranks[g->start[q + 1] - 1];
        tc_shm_fanin_tree(s, a, 1, slot_of, roots, g->ng, grp, F, off, acc);
        free(roots);
    }
    return g->ranks[g->start[g->ng] - 1];
}

/* ---- the one-node broadcast ------------------------------------------------------ */

/* The broadcast's shape on one node. */
typedef struct bc {
    const tc_topo *t;
    int node, src;    /* the node, the rank holding the data */
    int s0;           /* the node's first global socket */
    int64_t n, C;     /* elements, chunk (n when unchunked) */
    int nchunks;
    int two;          /* stages=2 with several sockets */
    int rsock;        /* src's socket (global) */
} bc;

static int reader_of(const bc *b, int sock)
{
    return sock == b->rsock ? b->src : tc_topo_sock_members(b->t, sock)[0];
}

/* Socket sock's slot (global socket id), chunk k (stages=1: the one slot). */
static tc_region slot(const bc *b, int sock, int k)
{
    int64_t lo = (int64_t)k * b->C, hi = lo + b->C < b->n ? lo + b->C : b->n;
    int64_t idx = b->two ? sock - b->s0 : 0;
    return tc_reg(TC_BUF_SHM, idx * b->n + lo, hi - lo);
}

static tc_region user(const bc *b, int k)
{
    int64_t lo = (int64_t)k * b->C, hi = lo + b->C < b->n ? lo + b->C : b->n;
    return tc_reg(TC_BUF_RECV, lo, hi - lo);
}

/* Those src signals per chunk: stages=1 every rank of the node; stages=2
 * the other sockets' readers and its own socket's ranks. */
static int src_target(const bc *b, int q)
{
    if (q == b->src) return 0;
    if (!b->two) return 1;
    int sq = b->t->sock_of[q];
    return sq == b->rsock || reader_of(b, sq) == q;
}

static void src_part(tc_sched *s, const bc *b)
{
    const int *M = tc_topo_node_members(b->t, b->node);
    int m = tc_topo_node_size(b->t, b->node);
    for (int k = 0; k < b->nchunks; k++) {
        tc_sched_copy(s, user(b, k), slot(b, b->rsock, k));
        if (k == b->nchunks - 1) {   /* the arrivals, before the last flags */
            for (int i = 0; i < m; i++)
                if (src_target(b, M[i])) tc_sched_wait(s, M[i]);
            tc_sched_round(s);
        }
        for (int i = 0; i < m; i++)
            if (src_target(b, M[i])) tc_sched_signal(s, M[i]);
        tc_sched_round(s);
    }
}

/* A socket's reader (stages=2, not src): gathers its socket's arrivals,
 * reports them, then relays every chunk into its socket. */
static void reader_part(tc_sched *s, const bc *b, int me)
{
    int sk = b->t->sock_of[me], m = tc_topo_sock_size(b->t, sk);
    const int *M = tc_topo_sock_members(b->t, sk);
    for (int i = 0; i < m; i++)
        if (M[i] != me) tc_sched_wait(s, M[i]);
    tc_sched_round(s);
    tc_sched_signal(s, b->src);
    for (int k = 0; k <= b->nchunks; k++) {
        if (k > 0) {
            tc_sched_copy(s, slot(b, b->rsock, k - 1), slot(b, sk, k - 1));
            tc_sched_copy(s, slot(b, sk, k - 1), user(b, k - 1));
            for (int i = 0; i < m; i++)
                if (M[i] != me) tc_sched_signal(s, M[i]);
        }
        if (k < b->nchunks) tc_sched_wait(s, b->src);
        tc_sched_round(s);
    }
}

/* Everyone else: arrive at from, then copy each chunk from sock's slot. */
static void leaf_part(tc_sched *s, const bc *b, int from, int sock)
{
    tc_sched_signal(s, from);
    for (int k = 0; k <= b->nchunks; k++) {
        if (k > 0) tc_sched_copy(s, slot(b, sock, k - 1), user(b, k - 1));
        if (k < b->nchunks) tc_sched_wait(s, from);
        tc_sched_round(s);
    }
}

void tc_shm_bcast_node(tc_sched *s, const tc_topo *t, int me, int src, int two, int64_t n, int64_t C)
{
    bc b;
    b.t = t;
    b.node = t->node_of[me];
    b.src = src;
    b.s0 = t->node_sock_start[b.node];
    int socks = t->node_sock_start[b.node + 1] - b.s0;
    if (tc_topo_node_size(t, b.node) == 1 || n == 0) return;
    b.n = n;
    b.C = C > 0 && C < n ? C : n;
    b.nchunks = (int)((n + b.C - 1) / b.C);
    b.two = two && socks > 1;
    b.rsock = t->sock_of[src];
    s->tmp_like = TC_BUF_RECV;
    tc_sched_need_shm(s, (int64_t)(b.two ? socks : 1) * n);
    int sk = t->sock_of[me];
    if (me == src) {
        tc_sched_shm_home(s, b.two ? (b.rsock - b.s0) * n : 0, n);
        src_part(s, &b);
    } else if (b.two && sk != b.rsock && reader_of(&b, sk) == me) {
        tc_sched_shm_home(s, (int64_t)(sk - b.s0) * n, n);
        reader_part(s, &b, me);
    } else if (b.two) {
        leaf_part(s, &b, reader_of(&b, sk), sk);
    } else {
        leaf_part(s, &b, src, b.rsock);
    }
}
