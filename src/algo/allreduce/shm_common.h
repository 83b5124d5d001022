/*
 * What the single-node shared-memory allreduce families share (header
 * only): the copy-in layout of the node-shared buffer, the groups
 * (sockets), and a barrier of flags.
 *
 * Copy-in: every rank owns `nslots` slots of n elements in SHM (rank r's
 * slots one after another, placed in r's NUMA domain with
 * tc_sched_shm_home, so each socket's part of the window lives on that
 * socket); it copies its input into its slot 0 and the ranks read each
 * other's slots, ordered by SIGNAL / WAIT.  The executor alternates two
 * halves of the window between calls; every rank's result depends on every
 * rank's input, so no rank starts call c+2 (the same half) before every
 * rank has finished reading in call c.
 *
 * Groups: with a commutative operation the ranks are grouped by socket
 * (the topology object's sockets, in the order of their lowest rank); a
 * non-commutative operation takes one group of all ranks in rank order, so
 * that every combination joins adjacent rank ranges ("lower op higher").
 */
#ifndef TC_ALGO_ALLREDUCE_SHM_COMMON_H
#define TC_ALGO_ALLREDUCE_SHM_COMMON_H

#include "algo/catalog.h"
#include "pattern/pattern.h"

/* Slot `slot` of rank `rank`, elements [off, off + cnt). */
static inline tc_region ar_slot(const tc_args *a, int nslots, int rank, int slot, int64_t off, int64_t cnt)
{
    return tc_reg(TC_BUF_SHM, ((int64_t)rank * nslots + slot) * a->scount + off, cnt);
}

static inline tc_region ar_slot_all(const tc_args *a, int nslots, int rank, int slot)
{
    return ar_slot(a, nslots, rank, slot, 0, a->scount);
}

/* Ask for p x nslots slots, this rank's placed in its own NUMA domain. */
static inline void ar_shm_layout(tc_sched *s, const tc_args *a, int nslots)
{
    s->tmp_like = TC_BUF_SEND;
    tc_sched_need_shm(s, (int64_t)a->size * nslots * a->scount);
    tc_sched_shm_home(s, (int64_t)a->rank * nslots * a->scount, (int64_t)nslots * a->scount);
}

/* The groups: CSR lists of ranks (increasing), in group order. */
typedef struct ar_groups {
    int ng;
    const int *start;   /* [ng + 1] */
    const int *ranks;
} ar_groups;

static inline ar_groups ar_groups_of(const tc_args *a, const tc_topo *t)
{
    ar_groups g;
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

static inline int ar_group_size(const ar_groups *g, int i) { return g->start[i + 1] - g->start[i]; }
static inline const int *ar_group_members(const ar_groups *g, int i) { return g->ranks + g->start[i]; }

/* The group of rank r and its index in it. */
static inline void ar_group_find(const ar_groups *g, int r, int *grp, int *idx)
{
    for (int i = 0; i < g->ng; i++)
        for (int k = 0; k < ar_group_size(g, i); k++)
            if (ar_group_members(g, i)[k] == r) {
                *grp = i;
                *idx = k;
                return;
            }
    *grp = *idx = 0;
}

/* The end of a barrier among all p ranks, in the open round (after its local
 * ops): signal every other rank, wait for every other rank; closes the round. */
static inline void ar_barrier(tc_sched *s, const tc_args *a)
{
    for (int q = 0; q < a->size; q++)
        if (q != a->rank) tc_sched_signal(s, q);
    for (int q = 0; q < a->size; q++)
        if (q != a->rank) tc_sched_wait(s, q);
    tc_sched_round(s);
}

/* The tiled family's tile assignment (shm_tiled.c, shm_tiled_cma.c). */
enum { T_NAIVE, T_CYCLIC, T_HIER };

/* Tile k of member idx (of m) in a group: [*lo, *hi); 0 when none is left.
 * naive: one contiguous tile per member; otherwise tiles of S elements
 * dealt round-robin. */
static inline int ar_tile(const tc_args *a, int kind, int64_t S, int idx, int m, int k, int64_t *lo,
                          int64_t *hi)
{
    int64_t n = a->scount;
    if (kind == T_NAIVE) {
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

/* The single-copy form of the tiled family (shm_tiled_cma.c). */
int ar_tiled_cma(tc_sched *s, const tc_args *a, const tc_topo *t, int kind, int64_t S);

/* The single-copy form of the reduce-broadcast family, fan-in F, two-stage
 * broadcast when two (shm_reduce_bcast_cma.c; p > 1). */
int ar_reduce_bcast_cma(tc_sched *s, const tc_args *a, const tc_topo *t, int F, int two);

/* Copy the input into this rank's slot 0 (in the open round). */
static inline void ar_copy_in(tc_sched *s, const tc_args *a, int nslots)
{
    int in = a->in_place ? TC_BUF_RECV : TC_BUF_SEND;
    tc_sched_copy(s, tc_reg(in, 0, a->scount), ar_slot_all(a, nslots, a->rank, 0));
}

#endif
