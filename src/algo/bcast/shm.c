/*
 * bcast family "shm:stages=1|2,chunk=C" (one node, any root): the one-stage
 * and two-stage broadcasts of Li, Hoefler, Snir, "NUMA-Aware Shared-Memory
 * Collective Communication for MPI" (2013), section 3.3, as a broadcast of
 * its own, with processes instead of threads: the root copies its buffer
 * into the node-shared window and the others copy it out.
 *
 * Steps: the buffer goes in chunks of C bytes (chunk=all: one chunk).
 *   stages=1: the root copies chunk k into its slot and raises every other
 *   rank's flag; every other rank waits for it and copies chunk k to its
 *   buffer (while the root copies chunk k+1 in).
 *   stages=2: one reader per socket of the topology object (the socket's
 *   lowest rank; the root for its own socket) has a slot in its socket's
 *   memory.  The root copies chunk k into its slot and raises the flags of
 *   the other sockets' readers and of its own socket's ranks; a reader
 *   copies chunk k from the root's slot into its own slot and its buffer,
 *   then raises its socket's ranks' flags; they copy it from there.  One
 *   socket: stages=2 is stages=1.
 *   Arrival: every rank but the root raises a flag when it starts (stages=2:
 *   to its socket's reader, which passes its socket's on to the root once
 *   all have come), and the root waits for them before the last chunk's
 *   flags, so no rank returns before every rank has started the call (the
 *   window's halves alternate between calls: src/algo/shm_rooted.h).
 * Cost (p ranks, s sockets, n bytes, K = ceil(n / C) chunks): root n copy
 *   + (K + 1) flag rounds; stages=1: p-1 readers of the root's slot (across
 *   sockets); stages=2: s-1 readers across sockets, the rest read inside
 *   their socket (one more copy and flag on the way); with K > 1 the copies
 *   out overlap the copies in (pipeline).
 * Memory: node-shared n (stages=2: s n), twice (halves alternate).
 * Restrictions: every rank on one node, node-shared memory.
 * Source: Li, Hoefler, Snir 2013, section 3.3 (one-stage and two-stage
 *   broadcast); chunking and arrival flags are this library's.
 */
#include <stdio.h>

#include "algo/catalog.h"

static const int64_t chunk_sizes[] = { 0, 65536, 524288 };

/* The broadcast's shape, for one rank. */
typedef struct bc {
    int64_t n, C;     /* bytes, chunk (n when unchunked) */
    int nchunks;
    int two;          /* stages=2 with several sockets */
    int rsock;        /* the root's socket (two) */
} bc;

static int reader_of(const tc_topo *t, const bc *b, int root, int sock)
{
    return sock == b->rsock ? root : tc_topo_sock_members(t, sock)[0];
}

/* Socket sock's slot, chunk k (stages=1: the one slot, sock 0). */
static tc_region slot(const bc *b, int sock, int k)
{
    int64_t lo = (int64_t)k * b->C, hi = lo + b->C < b->n ? lo + b->C : b->n;
    return tc_reg(TC_BUF_SHM, (int64_t)sock * b->n + lo, hi - lo);
}

static tc_region user(const bc *b, int k)
{
    int64_t lo = (int64_t)k * b->C, hi = lo + b->C < b->n ? lo + b->C : b->n;
    return tc_reg(TC_BUF_RECV, lo, hi - lo);
}

/* Those the root signals per chunk: stages=1 everyone; stages=2 the other
 * sockets' readers and its own socket's ranks. */
static int root_target(const tc_topo *t, const bc *b, int root, int q)
{
    if (q == root) return 0;
    if (!b->two) return 1;
    int sq = t->sock_of[q];
    return sq == b->rsock || reader_of(t, b, root, sq) == q;
}

static void root_part(tc_sched *s, const tc_args *a, const tc_topo *t, const bc *b)
{
    int me = a->rank, ss = b->two ? b->rsock : 0;
    for (int k = 0; k < b->nchunks; k++) {
        tc_sched_copy(s, user(b, k), slot(b, ss, k));
        if (k == b->nchunks - 1) {   /* the arrivals, before the last flags */
            for (int q = 0; q < a->size; q++)
                if (root_target(t, b, me, q)) tc_sched_wait(s, q);
            tc_sched_round(s);
        }
        for (int q = 0; q < a->size; q++)
            if (root_target(t, b, me, q)) tc_sched_signal(s, q);
        tc_sched_round(s);
    }
}

/* A socket's reader (stages=2, not the root): gathers its socket's
 * arrivals, reports them, then relays every chunk into its socket. */
static void reader_part(tc_sched *s, const tc_args *a, const tc_topo *t, const bc *b)
{
    int me = a->rank, sk = t->sock_of[me], m = tc_topo_sock_size(t, sk);
    const int *M = tc_topo_sock_members(t, sk);
    for (int i = 0; i < m; i++)
        if (M[i] != me) tc_sched_wait(s, M[i]);
    tc_sched_round(s);
    tc_sched_signal(s, a->root);
    for (int k = 0; k <= b->nchunks; k++) {
        if (k > 0) {
            tc_sched_copy(s, slot(b, b->rsock, k - 1), slot(b, sk, k - 1));
            tc_sched_copy(s, slot(b, sk, k - 1), user(b, k - 1));
            for (int i = 0; i < m; i++)
                if (M[i] != me) tc_sched_signal(s, M[i]);
        }
        if (k < b->nchunks) tc_sched_wait(s, a->root);
        tc_sched_round(s);
    }
}

/* Everyone else: arrive at src, then copy each chunk from src's slot. */
static void leaf_part(tc_sched *s, const bc *b, int src, int ssock)
{
    tc_sched_signal(s, src);
    for (int k = 0; k <= b->nchunks; k++) {
        if (k > 0) tc_sched_copy(s, slot(b, ssock, k - 1), user(b, k - 1));
        if (k < b->nchunks) tc_sched_wait(s, src);
        tc_sched_round(s);
    }
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t, int two, int64_t C)
{
    if (a->size == 1 || a->rcount == 0) return 0;
    bc b;
    b.n = a->rcount;
    b.C = C > 0 && C < b.n ? C : b.n;
    b.nchunks = (int)((b.n + b.C - 1) / b.C);
    b.two = two && t->nsockets > 1;
    b.rsock = t->sock_of[a->root];
    int me = a->rank, nslots = b.two ? t->nsockets : 1;
    s->tmp_like = TC_BUF_RECV;
    tc_sched_need_shm(s, (int64_t)nslots * b.n);
    if (me == a->root) {
        tc_sched_shm_home(s, (b.two ? b.rsock : 0) * b.n, b.n);
        root_part(s, a, t, &b);
        return 0;
    }
    int sk = t->sock_of[me];
    if (b.two && sk != b.rsock && reader_of(t, &b, a->root, sk) == me) {
        tc_sched_shm_home(s, (int64_t)sk * b.n, b.n);
        reader_part(s, a, t, &b);
    } else if (b.two) {
        leaf_part(s, &b, reader_of(t, &b, a->root, sk), sk);
    } else {
        leaf_part(s, &b, a->root, 0);
    }
    return 0;
}

/* ---- the family's catalog row ---------------------------------------------- */

enum { P_STAGES, P_CHUNK };
static const char *const stages_values[] = { "1", "2", NULL };
static const char *const chunk_values[] = { "all", "64k", "512k", NULL };
static const char *const chunk_text[] = { "", ", pipelined in chunks of 64 KiB", ", pipelined in chunks of 512 KiB" };
static const tc_param_def params[] = {
    { "stages", stages_values, 0 },
    { "chunk", chunk_values, 0 },
};

static void describe(const tc_family *f, const int *v, tc_instance_text *out)
{
    (void)f;
    if (v[P_CHUNK] == 0) snprintf(out->alias, sizeof out->alias, "shm_%sstage", stages_values[v[P_STAGES]]);
    else
        snprintf(out->alias, sizeof out->alias, "shm_%sstage_%s", stages_values[v[P_STAGES]],
                 chunk_values[v[P_CHUNK]]);
    snprintf(out->desc, sizeof out->desc, "shared memory: the root copies in, %s%s",
             v[P_STAGES] == 0 ? "every rank copies out (one stage)"
                              : "one reader per socket relays into its socket (two stages)",
             chunk_text[v[P_CHUNK]]);
}

static int family_generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    const int *v = a->param;
    return generate(s, a, t, v[P_STAGES] == 1, chunk_sizes[v[P_CHUNK]]);
}

const tc_family tc_bcast_shm = {
    .coll = TOPOCOLL_BCAST, .name = "shm",
    .summary = "node-shared memory: the root copies in, one-stage or two-stage (a reader per socket) "
               "copy-out, optionally pipelined in chunks (Li, Hoefler, Snir 2013)",
    .source = __FILE__, .nparams = 2, .params = params, .rule = "",
    .describe = describe, .req = TC_REQ_NODE_SHM | TC_REQ_ONE_NODE, .generate = family_generate,
};
