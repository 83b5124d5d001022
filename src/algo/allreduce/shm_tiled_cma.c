/*
 * allreduce "shm_tiled:tiles=T,tile=S,copy=cma" (one node): the tiled
 * reduction of Li, Hoefler, Snir, "NUMA-Aware Shared-Memory Collective
 * Communication for MPI" (2013), section 3.2, in its single-copy form: the
 * paper's threads read each other's vectors directly; our processes do the
 * same with Linux cross-memory attach (process_vm_readv, the RREAD op of
 * sched/sched.h), so no vector is copied into a shared window.
 *
 * Steps (p ranks, n elements; the groups of shm_common.h: tiles=hier with a
 *   commutative operation on several sockets, one group per socket, else one
 *   group of every rank in rank order):
 *   1. a barrier: every rank has published its buffers (the executor does so
 *      before round 0) and may be read from now on.
 *   2. Every rank reduces its own tiles over its group's contributions
 *      (ar_tile: naive, one contiguous tile per rank; cyclic and hier, tiles
 *      of S elements dealt round-robin over the group's members), chunk by
 *      chunk of at most CHUNK elements: acc = x_{m-1}; then for r = m-2 down
 *      to 0, acc = x_r op acc (the group's members M[0..m-1]), where a peer's
 *      x_r is read from its input buffer (SEND; RECV when it is in place)
 *      into the scratch chunk.  acc is the own receive buffer's tile, or (in
 *      place, where that tile is still the own input) a scratch chunk copied
 *      there at the end.  A barrier.
 *   3. tiles=hier with several groups: a binomial tree across the groups (as
 *      shm_tiled.c, the last group its root), one barrier per level.  At a
 *      level where group c is the child of group g, every member of g, for
 *      each of its tiles T, reads c's partial of T from the receive buffer of
 *      c's member that owns T (T mod |c|: the groups deal their tiles alike
 *      but may differ in size), chunk by chunk, and combines it into its own
 *      receive buffer's tile ("child op own").  The result then lies in the
 *      last group's members' receive buffers, tile T at member T mod |last|.
 *   4. Every rank reads every result tile it does not hold from its owner's
 *      receive buffer into its own (the last group's members; one group:
 *      every other rank); a barrier, so that no rank returns (and hands its
 *      buffers back to the caller) while a peer still reads them.
 *   Every result element is computed once, in one order (inside a group
 *   "lower op higher"; one group for a non-commutative operation): every
 *   rank gets bitwise-identical results, and a non-commutative operation is
 *   reduced in rank order.  A receive buffer is overwritten by step 4 only
 *   after the barrier that ends the last read of its partials.
 * Cost (per rank): (p-1) n / p elements read by process_vm_readv in step 2
 *   and again in step 4, (p-1) n / p gamma; no copy-in or copy-out (copy-in
 *   moves n more in and n out); three barriers of p-1 flags.  tiles=hier on
 *   s sockets of q ranks: step 2 (q-1) n / q read inside the socket and
 *   (q-1) n / q gamma, step 3 ceil(log2 s) levels of n / q read across
 *   sockets, n / q gamma and a barrier, step 4 n read (the other sockets'
 *   ranks, across sockets; the last socket's (q-1) n / q).
 * Memory: scratch of min(CHUNK, tile) elements (in place: CHUNK more for the
 *   accumulator); no node-shared data (the flags and the publication lines).
 * Restrictions: one node, node-shared flags, cross-memory attach available
 *   on every rank of the node (probed when the communicator's context is
 *   made; TOPOCOLL_CMA=0 turns it off), contiguous datatypes (the API
 *   declines derived types with holes).
 * Source: Li, Hoefler, Snir 2013, section 3.2 (tiled reduce: naive, cyclic
 *   and hierarchical tile assignment; threads reading each other's vectors).
 */
#include "algo/allreduce/shm_common.h"

/* Elements per scratch chunk: small enough that the read chunk is still in
 * cache when it is reduced. */
#define CHUNK ((int64_t)32768)

/* Step 2 for elements [lo, hi) of the own tile: one chunk. */
static void reduce_chunk(tc_sched *s, const tc_args *a, const int *M, int m, int64_t lo, int64_t len)
{
    int me = a->rank, in = a->in_place ? TC_BUF_RECV : TC_BUF_SEND;
    tc_region stage = tc_reg(TC_BUF_TMP, 0, len);
    tc_region acc = a->in_place ? tc_reg(TC_BUF_TMP, CHUNK, len) : tc_reg(TC_BUF_RECV, lo, len);
    if (M[m - 1] == me) tc_sched_copy(s, tc_reg(in, lo, len), acc);
    else tc_sched_rread(s, M[m - 1], tc_reg(TC_BUF_SEND, lo, len), acc);
    for (int r = m - 2; r >= 0; r--) {
        if (M[r] == me) {
            tc_sched_reduce(s, tc_reg(in, lo, len), acc);
            continue;
        }
        tc_sched_rread(s, M[r], tc_reg(TC_BUF_SEND, lo, len), stage);
        tc_sched_reduce(s, stage, acc);
    }
    if (a->in_place) tc_sched_copy(s, acc, tc_reg(TC_BUF_RECV, lo, len));
}

static void reduce_own(tc_sched *s, const tc_args *a, const int *M, int m, int idx, int kind, int64_t S)
{
    int64_t lo, hi;
    for (int k = 0; ar_tile(a, kind, S, idx, m, k, &lo, &hi); k++)
        for (int64_t c = lo; c < hi; c += CHUNK)
            reduce_chunk(s, a, M, m, c, hi - c < CHUNK ? hi - c : CHUNK);
}

/* Step 3 (tiles=hier, several groups): the binomial tree across the groups'
 * partials, one barrier per level.  The partial of tile T of group c lies in
 * the receive buffer of c's member T mod |c|. */
static void reduce_across(tc_sched *s, const tc_args *a, const ar_groups *g, int grp, int idx, int64_t S)
{
    int ng = g->ng, m = ar_group_size(g, grp), j = ng - 1 - grp;
    for (int stride = 1; stride < ng; stride *= 2) {
        if (j % (2 * stride) == 0 && j + stride < ng) {
            int c = ng - 1 - (j + stride), mc = ar_group_size(g, c);
            const int *C = ar_group_members(g, c);
            int64_t lo, hi;
            for (int k = 0; ar_tile(a, T_HIER, S, idx, m, k, &lo, &hi); k++) {
                int owner = C[(lo / S) % mc];
                for (int64_t x = lo; x < hi; x += CHUNK) {
                    int64_t len = hi - x < CHUNK ? hi - x : CHUNK;
                    tc_sched_rread(s, owner, tc_reg(TC_BUF_RECV, x, len), tc_reg(TC_BUF_TMP, 0, len));
                    tc_sched_reduce(s, tc_reg(TC_BUF_TMP, 0, len), tc_reg(TC_BUF_RECV, x, len));
                }
            }
        }
        ar_barrier(s, a);
    }
}

/* Step 4: the result tiles this rank does not hold, from the receive
 * buffers of their owners, the members M[0..m-1] of the last group. */
static void gather_results(tc_sched *s, const tc_args *a, const int *M, int m, int kind, int64_t S)
{
    for (int j = 0; j < m; j++) {
        if (M[j] == a->rank) continue;
        int64_t lo, hi;
        for (int k = 0; ar_tile(a, kind, S, j, m, k, &lo, &hi); k++)
            tc_sched_rread(s, M[j], tc_reg(TC_BUF_RECV, lo, hi - lo), tc_reg(TC_BUF_RECV, lo, hi - lo));
    }
}

int ar_tiled_cma(tc_sched *s, const tc_args *a, const tc_topo *t, int kind, int64_t S)
{
    if (a->size == 1) {
        if (!a->in_place) tc_sched_copy(s, tc_reg(TC_BUF_SEND, 0, a->scount), tc_reg(TC_BUF_RECV, 0, a->scount));
        tc_sched_round(s);
        return 0;
    }
    ar_groups g;
    if (kind == T_HIER) {
        g = ar_groups_of(a, t);
    } else {   /* one group of every rank, in rank order (the family requires one node) */
        g.ng = 1;
        g.start = t->node_start;
        g.ranks = t->node_ranks;
    }
    int grp, idx;
    ar_group_find(&g, a->rank, &grp, &idx);
    const int *M = ar_group_members(&g, grp);
    int m = ar_group_size(&g, grp), last = g.ng - 1;
    s->tmp_like = TC_BUF_SEND;
    int64_t most = kind == T_NAIVE ? (a->scount + m - 1) / m : S;
    if (most > CHUNK) most = CHUNK;
    tc_sched_need_tmp(s, a->in_place ? CHUNK + most : most);
    ar_barrier(s, a);                     /* 1: published */
    reduce_own(s, a, M, m, idx, kind, S);
    ar_barrier(s, a);                     /* 2: own tiles reduced (in the group) */
    if (g.ng > 1) reduce_across(s, a, &g, grp, idx, S);   /* 3: a barrier per level */
    gather_results(s, a, ar_group_members(&g, last), ar_group_size(&g, last), kind, S);
    ar_barrier(s, a);                     /* 4: nobody reads any more */
    return 0;
}
