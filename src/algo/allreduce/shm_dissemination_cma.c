/*
 * allreduce "shm_dissemination_cma" (one node): the dissemination allreduce
 * of Li, Hoefler, Snir, "NUMA-Aware Shared-Memory Collective Communication
 * for MPI" (2013), section 3.4, with the canonical grouping of
 * shm_dissemination.c, in its single-copy form: every rank reads the
 * partner's current partial from the partner's own buffer with Linux
 * cross-memory attach (process_vm_readv, the RREAD op of sched/sched.h); no
 * vector is copied into a node-shared window.
 *
 * Why a single-copy form is race-free: in round k rank u reads P_k(w) (w
 * the first rank of the sibling block) while w computes P_{k+1}(w); w
 * writes it into another buffer than the one being read, because the
 * partials alternate between two scratch halves, and w overwrites a half
 * only two computed partials later, after the flags of that half's readers
 * (the copy-in form's acknowledgements).  The input is never written (in
 * place: only by the result, see below).
 *
 * Steps: a rank's partial P_k(u) is its input (SEND; RECV in place) until
 *   it has combined once, then the c-th partial it computes lives in
 *   scratch half (c - 1) mod 2.  A block's first rank raises the flags of
 *   the sibling block's ranks when its partial is ready (for P_0, in round 0:
 *   its buffers are published by then).  In round k (sibling block w < p):
 *   u < w: read P_k(w) into the new partial, then "own op other";
 *   u > w: copy its own partial, then read P_k(w) chunk by chunk into a
 *   scratch chunk and combine "other op own".  Then u raises w's flag (read
 *   done); w waits for these flags at the end of the round, before it
 *   overwrites that half (two partials later) and before it returns (the
 *   last round's readers).  The last round writes straight into the receive
 *   buffer, except where the receive buffer still holds the input being read
 *   in that round (in place, the rank that combined nothing before: p = 2,
 *   and rank 2^(L-1) when p = 2^(L-1) + 1): that rank writes the result to
 *   scratch and copies it into its receive buffer after its readers' flags.
 *   Every rank evaluates one balanced tree over the ranks in rank order:
 *   bitwise-identical results, non-commutative operations too.
 * Cost (p ranks, n elements, L = ceil(log2 p)): no copy-in; L rounds of one
 *   flag, n read by process_vm_readv (the upper rank of a pair: one system
 *   call per chunk), n gamma, and for the upper rank n copy; one more flag
 *   for the last round's readers.
 * Memory: scratch of 2 n + min(CHUNK, n) elements per rank; no node-shared
 *   data (the flags and the publication lines).
 * Restrictions: one node, node-shared flags, cross-memory attach available
 *   on every rank of the node (probed when the communicator's context is
 *   made; TOPOCOLL_CMA=0 turns it off), contiguous datatypes (the API
 *   declines derived types with holes).
 * Source: Li, Hoefler, Snir 2013, section 3.4 (dissemination), threads
 *   reading each other's vectors; the canonical grouping is this library's.
 */
#include "algo/allreduce/dissemination_blocks.h"
#include "algo/allreduce/shm_common.h"

/* Elements per scratch chunk (as shm_tiled_cma.c). */
#define CHUNK ((int64_t)32768)

/* Where P_k(u) lives (in u's own buffers). */
static tc_region partial(const tc_args *a, int u, int k)
{
    int c = diss_combined(u, k, a->size);
    if (c == 0) return tc_reg(a->in_place ? TC_BUF_RECV : TC_BUF_SEND, 0, a->scount);
    return tc_reg(TC_BUF_TMP, (int64_t)((c - 1) % 2) * a->scount, a->scount);
}

/* The scratch chunk (after the two halves). */
static tc_region stage(const tc_args *a, int64_t len) { return tc_reg(TC_BUF_TMP, 2 * a->scount, len); }

/* Does the last round need scratch for the result (its receive buffer holds
 * the input that the sibling block reads in that round)? */
static int result_staged(const tc_args *a, int L)
{
    return a->in_place && diss_combined(a->rank, L - 1, a->size) == 0;
}

/* At the end of round k: the flags of the readers of u's P_k (every round,
 * the last one too), and the sibling's partial for round k+1. */
static void waits(tc_sched *s, int u, int k, int p, int L)
{
    if (k >= 0 && u % (1 << k) == 0) {
        int w = u ^ (1 << k);
        for (int q = w; q < w + (1 << k) && q < p; q++) tc_sched_wait(s, q);
    }
    if (k + 1 < L && diss_sibling(u, k + 1) < p) tc_sched_wait(s, diss_sibling(u, k + 1));
}

/* out = other op out, other read from w chunk by chunk. */
static void read_reduce(tc_sched *s, const tc_args *a, int w, tc_region other, tc_region out)
{
    for (int64_t lo = 0; lo < a->scount; lo += CHUNK) {
        int64_t len = a->scount - lo < CHUNK ? a->scount - lo : CHUNK;
        tc_sched_rread(s, w, tc_reg(other.buf, other.off + lo, len), stage(a, len));
        tc_sched_reduce(s, stage(a, len), tc_reg(out.buf, out.off + lo, len));
    }
}

/* Round k: P_{k+1}(u) from P_k(u) and the sibling's P_k. */
static void combine(tc_sched *s, const tc_args *a, int k, int L)
{
    int u = a->rank, p = a->size, w = diss_sibling(u, k);
    tc_region own = partial(a, u, k), out;
    if (k < L - 1) out = tc_reg(TC_BUF_TMP, (int64_t)(diss_combined(u, k, p) % 2) * a->scount, a->scount);
    else out = result_staged(a, L) ? tc_reg(TC_BUF_TMP, 0, a->scount) : tc_reg(TC_BUF_RECV, 0, a->scount);
    if (w >= p) {   /* no sibling: the partial stays (the last round copies it out) */
        if (k == L - 1 && (own.buf != out.buf || own.off != out.off)) tc_sched_copy(s, own, out);
        return;
    }
    tc_region other = partial(a, w, k);
    if (u < w) {    /* own op other */
        tc_sched_rread(s, w, other, out);
        tc_sched_reduce(s, own, out);
    } else {        /* other op own */
        tc_sched_copy(s, own, out);
        read_reduce(s, a, w, other, out);
    }
    tc_sched_signal(s, w);   /* read: w may reuse the half, or return */
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, u = a->rank, L = tc_log2_ceil(p);
    if (p == 1) {
        if (!a->in_place) tc_sched_copy(s, tc_reg(TC_BUF_SEND, 0, a->scount), tc_reg(TC_BUF_RECV, 0, a->scount));
        tc_sched_round(s);
        return 0;
    }
    s->tmp_like = TC_BUF_SEND;
    tc_sched_need_tmp(s, 2 * a->scount + (a->scount < CHUNK ? a->scount : CHUNK));
    diss_ready(s, u, -1, p, L);
    waits(s, u, -1, p, L);
    tc_sched_round(s);
    for (int k = 0; k < L; k++) {
        combine(s, a, k, L);
        diss_ready(s, u, k, p, L);
        waits(s, u, k, p, L);
        tc_sched_round(s);
    }
    if (result_staged(a, L)) {   /* the readers of the input are done */
        tc_sched_copy(s, tc_reg(TC_BUF_TMP, 0, a->scount), tc_reg(TC_BUF_RECV, 0, a->scount));
        tc_sched_round(s);
    }
    return 0;
}

const tc_algo tc_allreduce_shm_dissemination_cma = {
    .coll = TOPOCOLL_ALLREDUCE, .name = "shm_dissemination_cma",
    .desc = "single copy (process_vm_readv), ceil(log2 p) rounds, each rank reading the sibling "
            "block's partial from its buffers (one canonical tree: identical results on every rank)",
    .req = TC_REQ_NODE_SHM | TC_REQ_ONE_NODE | TC_REQ_CMA, .generate = generate, .source = __FILE__,
};
