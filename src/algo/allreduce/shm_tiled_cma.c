/*
 * allreduce "shm_tiled:tiles=naive|cyclic,tile=S,copy=cma" (one node): the
 * tiled reduction of Li, Hoefler, Snir, "NUMA-Aware Shared-Memory Collective
 * Communication for MPI" (2013), section 3.2, in its single-copy form: the
 * paper's threads read each other's vectors directly; our processes do the
 * same with Linux cross-memory attach (process_vm_readv, the RREAD op of
 * sched/sched.h), so no vector is copied into a shared window.
 *
 * Steps (p ranks in rank order, n elements):
 *   1. a barrier: every rank has published its buffers (the executor does so
 *      before round 0) and may be read from now on.
 *   2. Every rank reduces its own tiles (ar_tile: naive, one contiguous tile
 *      per rank; cyclic, tiles of S elements dealt round-robin), chunk by
 *      chunk of at most CHUNK elements: acc = x_{p-1}; then for r = p-2 down
 *      to 0, acc = x_r op acc, where a peer's x_r is read from its input
 *      buffer (SEND; RECV when it is in place) into the scratch chunk.  acc
 *      is the own receive buffer's tile, or (in place, where that tile is
 *      still the own input) a scratch chunk copied there at the end.  A
 *      barrier.
 *   3. Every rank reads every other rank's result tiles from that rank's
 *      receive buffer into its own; a barrier, so that no rank returns (and
 *      hands its buffers back to the caller) while a peer still reads them.
 *   Every result element is computed once, in canonical rank order
 *   ("lower op higher"): every rank gets bitwise-identical results, and a
 *   non-commutative operation is reduced in rank order.
 * Cost (per rank): (p-1) n / p elements read by process_vm_readv in step 2
 *   and again in step 3, (p-1) n / p gamma; no copy-in or copy-out (copy-in
 *   moves n more in and n out); three barriers of p-1 flags.
 * Memory: scratch of min(CHUNK, tile) elements (in place: CHUNK more for the
 *   accumulator); no node-shared data (the flags and the publication lines).
 * Restrictions: one node, node-shared flags, cross-memory attach available
 *   on every rank of the node (probed when the communicator's context is
 *   made; TOPOCOLL_CMA=0 turns it off), contiguous datatypes (the API
 *   declines derived types with holes); tiles=hier has no single-copy form.
 * Source: Li, Hoefler, Snir 2013, section 3.2 (tiled reduce, threads reading
 *   each other's vectors).
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

/* Step 3: every other rank's result tiles, from its receive buffer. */
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
    /* one group of every rank, in rank order (the family requires one node) */
    const int *M = t->node_ranks + t->node_start[0];
    int m = t->node_start[1] - t->node_start[0], idx = 0;
    while (idx < m && M[idx] != a->rank) idx++;
    s->tmp_like = TC_BUF_SEND;
    int64_t most = kind == T_NAIVE ? (a->scount + m - 1) / m : S;
    if (most > CHUNK) most = CHUNK;
    tc_sched_need_tmp(s, a->in_place ? CHUNK + most : most);
    ar_barrier(s, a);                     /* 1: published */
    reduce_own(s, a, M, m, idx, kind, S);
    ar_barrier(s, a);                     /* 2: own tiles reduced */
    gather_results(s, a, M, m, kind, S);
    ar_barrier(s, a);                     /* 3: nobody reads any more */
    return 0;
}
