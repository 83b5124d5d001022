/*
 * What the one-node shared-memory schedules share (header only; the
 * allreduce families shm_reduce_bcast, shm_tiled, shm_dissemination and the
 * rooted ones of algo/shm_rooted.h): the copy-in layout of the node-shared
 * buffer, the groups (sockets), a barrier of flags, the tiles, and the read
 * of a peer's data in either copy mode.
 *
 * Copy-in (copy=in): every rank owns `nslots` slots of n elements in SHM
 * (rank r's slots one after another, placed in r's NUMA domain with
 * tc_sched_shm_home, so each socket's part of the window lives on that
 * socket); it copies its input into its slot 0 and the ranks read each
 * other's slots, ordered by SIGNAL / WAIT.  The executor alternates two
 * halves of the window between calls; every rank's result depends on every
 * rank's input, so no rank starts call c+2 (the same half) before every
 * rank has finished reading in call c.
 *
 * Single copy (copy=cma): no window; a rank reads a peer's own buffers
 * (SEND, RECV, TMP) with Linux cross-memory attach (process_vm_readv, the
 * RREAD op of sched/sched.h), ordered by the same flags.  tc_shm_read emits
 * one read of a peer's data in either mode; tc_shm_reduce_read reduces the
 * members' contributions read chunk by chunk.
 *
 * Groups: with a commutative operation the ranks are grouped by socket
 * (the topology object's sockets, in the order of their lowest rank); a
 * non-commutative operation takes one group of all ranks in rank order, so
 * that every combination joins adjacent rank ranges ("lower op higher").
 */
#ifndef TC_ALGO_SHM_COMMON_H
#define TC_ALGO_SHM_COMMON_H

#include "algo/catalog.h"
#include "pattern/pattern.h"

/* Slot `slot` of rank `rank`, elements [off, off + cnt). */
static inline tc_region tc_shm_slot(const tc_args *a, int nslots, int rank, int slot, int64_t off, int64_t cnt)
{
    return tc_reg(TC_BUF_SHM, ((int64_t)rank * nslots + slot) * a->scount + off, cnt);
}

static inline tc_region tc_shm_slot_all(const tc_args *a, int nslots, int rank, int slot)
{
    return tc_shm_slot(a, nslots, rank, slot, 0, a->scount);
}

/* Ask for p x nslots slots, this rank's placed in its own NUMA domain. */
static inline void tc_shm_layout(tc_sched *s, const tc_args *a, int nslots)
{
    s->tmp_like = TC_BUF_SEND;
    tc_sched_need_shm(s, (int64_t)a->size * nslots * a->scount);
    tc_sched_shm_home(s, (int64_t)a->rank * nslots * a->scount, (int64_t)nslots * a->scount);
}

/* The groups: CSR lists of ranks (increasing), in group order. */
typedef struct tc_shm_groups {
    int ng;
    const int *start;   /* [ng + 1] */
    const int *ranks;
} tc_shm_groups;

static inline tc_shm_groups tc_shm_groups_of(const tc_args *a, const tc_topo *t)
{
    tc_shm_groups g;
    if (a->commutative && t->nsockets > 1) {
        g.ng = t->nsockets;
        g.start = t->sock_start;
        g.ranks = t->sock_ranks;
    } else {            /* one node (the families require it): every rank, in order */
        g.ng = 1;
        g.start = t->node_start;
        g.ranks = t->node_ranks;
    }
    return g;
}

static inline int tc_shm_group_size(const tc_shm_groups *g, int i) { return g->start[i + 1] - g->start[i]; }
static inline const int *tc_shm_group_members(const tc_shm_groups *g, int i) { return g->ranks + g->start[i]; }

/* The group of rank r and its index in it. */
static inline void tc_shm_group_find(const tc_shm_groups *g, int r, int *grp, int *idx)
{
    for (int i = 0; i < g->ng; i++)
        for (int k = 0; k < tc_shm_group_size(g, i); k++)
            if (tc_shm_group_members(g, i)[k] == r) {
                *grp = i;
                *idx = k;
                return;
            }
    *grp = *idx = 0;
}

/* The end of a barrier among all p ranks, in the open round (after its local
 * ops): signal every other rank, wait for every other rank; closes the round. */
static inline void tc_shm_barrier(tc_sched *s, const tc_args *a)
{
    for (int q = 0; q < a->size; q++)
        if (q != a->rank) tc_sched_signal(s, q);
    for (int q = 0; q < a->size; q++)
        if (q != a->rank) tc_sched_wait(s, q);
    tc_sched_round(s);
}

/* A barrier among the m ranks M[] of one node (this rank is M[mi]), in the
 * open round (after its local ops); closes the round. */
static inline void tc_shm_node_barrier(tc_sched *s, const int *M, int m, int mi)
{
    for (int i = 0; i < m; i++)
        if (i != mi) tc_sched_signal(s, M[i]);
    for (int i = 0; i < m; i++)
        if (i != mi) tc_sched_wait(s, M[i]);
    tc_sched_round(s);
}

/* The tiled schedules' tile assignment (allreduce and reduce shm_tiled). */
enum { TC_TILE_NAIVE, TC_TILE_CYCLIC, TC_TILE_HIER };

/* Tile k of member idx (of m) in a group: [*lo, *hi); 0 when none is left.
 * naive: one contiguous tile per member; otherwise tiles of S elements
 * dealt round-robin. */
static inline int tc_shm_tile(const tc_args *a, int kind, int64_t S, int idx, int m, int k, int64_t *lo,
                          int64_t *hi)
{
    int64_t n = a->scount;
    if (kind == TC_TILE_NAIVE) {
        if (k > 0) return 0;
        int64_t per = n / m, extra = n % m;
        *lo = idx * per + (idx < extra ? idx : extra);
        *hi = *lo + per + (idx < extra ? 1 : 0);
        return *hi > *lo;
    }
    int64_t T = (int64_t)k * m + idx;
    if (T * S >= n) return 0;
    *lo = T * S;
    *hi = (T + 1) * S < n ? (T + 1) * S : n;
    return 1;
}

/* Copy the input into this rank's slot 0 (in the open round). */
static inline void tc_shm_copy_in(tc_sched *s, const tc_args *a, int nslots)
{
    int in = a->in_place ? TC_BUF_RECV : TC_BUF_SEND;
    tc_sched_copy(s, tc_reg(in, 0, a->scount), tc_shm_slot_all(a, nslots, a->rank, 0));
}

/* Elements per scratch chunk of a single-copy read: small enough that the
 * chunk read is still in cache when it is reduced. */
#define TC_SHM_CHUNK ((int64_t)32768)

/* Read peer's region src into dst (this rank's): a cross-memory read
 * (cma; src in the peer's own buffers) or a copy (src in the node-shared
 * window). */
static inline void tc_shm_read(tc_sched *s, int cma, int peer, tc_region src, tc_region dst)
{
    if (cma) tc_sched_rread(s, peer, src, dst);
    else tc_sched_copy(s, src, dst);
}

/* Single copy: acc = x_{M[0]} op (x_{M[1]} op ... x_{M[m-1]}) over elements
 * [lo, lo + acc.cnt), for the members M[0..m-1] (increasing; this rank may
 * be one): a peer's x read from its buffer peer_buf into stage (as many
 * elements), this rank's own from its input.  acc is this rank's receive
 * buffer's elements or scratch, copied there at the end. */
static inline void tc_shm_reduce_read(tc_sched *s, const tc_args *a, const int *M, int m, int peer_buf, int64_t lo,
                                      tc_region acc, tc_region stage)
{
    int64_t len = acc.cnt;
    tc_region mine = tc_reg(a->in_place ? TC_BUF_RECV : TC_BUF_SEND, lo, len);
    tc_region home = tc_reg(TC_BUF_RECV, lo, len);
    if (M[m - 1] != a->rank) tc_sched_rread(s, M[m - 1], tc_reg(peer_buf, lo, len), acc);
    else if (mine.buf != acc.buf || mine.off != acc.off) tc_sched_copy(s, mine, acc);
    for (int r = m - 2; r >= 0; r--) {
        if (M[r] == a->rank) {
            tc_sched_reduce(s, mine, acc);
            continue;
        }
        tc_sched_rread(s, M[r], tc_reg(peer_buf, lo, len), stage);
        tc_sched_reduce(s, stage, acc);
    }
    if (acc.buf != home.buf || acc.off != home.off) tc_sched_copy(s, acc, home);
}

#endif
