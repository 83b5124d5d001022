/*
 * allreduce family "shm_dissemination:copy=C" (one node): the dissemination
 * allreduce of Li, Hoefler, Snir, "NUMA-Aware Shared-Memory Collective
 * Communication for MPI" (2013), section 3.4, in ceil(log2 p) rounds,
 * reformulated so that every rank evaluates one canonical expression tree.
 * copy=in goes through the node-shared window (algo/shm_common.h); copy=cma
 * is the single-copy form: every rank reads the partner's current partial
 * from the partner's own buffers with Linux cross-memory attach
 * (process_vm_readv, the RREAD op of sched/sched.h).
 *
 * The paper's dissemination has rank i combine the partial of rank
 * i - 2^k in round k, so every rank groups the contributions differently
 * (and a non-commutative operation wraps around).  Here, instead, the
 * partial P_k(u) of rank u after k rounds is the reduction of the aligned
 * block of 2^k ranks that holds u, [u & ~(2^k - 1), + 2^k) cut at p: in
 * round k rank u reads the partial of the sibling block (the block whose
 * first rank is w = ((u >> k) XOR 1) << k; none when w >= p) and computes
 * "lower block op upper block".  Both operands are bitwise-identical on
 * every rank of their block (induction), so every rank evaluates the same
 * balanced tree over the ranks in rank order and ends with a
 * bitwise-identical result, non-commutative operations too.
 *
 * Steps: a rank's partials alternate between two places: copy=in, its two
 *   slots of the window (P_0 the copied-in input); copy=cma, P_0 is its
 *   input (SEND; RECV in place) and the c-th partial it computes lives in
 *   scratch half (c - 1) mod 2.  A block's first rank raises the flags of
 *   the sibling block's ranks when its partial is ready; in round k
 *   (sibling block w < p) u < w reads P_k(w) into the new partial, then
 *   "own op other"; u > w copies its own partial, then combines "other op
 *   own" (copy=cma: P_k(w) read chunk by chunk into a scratch chunk).  A
 *   reader raises w's flag once it has combined; w waits for these before
 *   it overwrites that place two partials later (copy=cma: and before it
 *   returns, the last round's readers).  The last round writes the result
 *   straight into the receive buffer, except (copy=cma) where the receive
 *   buffer still holds the input being read in that round (in place, the
 *   rank that combined nothing before: p = 2, and rank 2^(L-1) when
 *   p = 2^(L-1) + 1): that rank writes the result to scratch and copies it
 *   into its receive buffer after its readers' flags.
 *   copy=cma is race-free: w writes P_{k+1}(w) into another half than the
 *   one being read, and overwrites a half only after that half's readers'
 *   flags; the input is never written (in place: only by the result).
 * Cost (p ranks, n elements, L = ceil(log2 p)): L rounds of one flag, n
 *   copy (copy=cma: the upper rank of a pair) and n gamma; copy=in n
 *   copy-in, the first ranks of blocks read by up to p/2 ranks in the last
 *   round; copy=cma no copy-in, n read by process_vm_readv per round (the
 *   upper rank: one system call per chunk), one more flag for the last
 *   round's readers.
 * Memory: copy=in node-shared 2 p n (twice: the halves alternate between
 *   calls); copy=cma scratch of 2 n + min(TC_SHM_CHUNK, n) elements per
 *   rank, no node-shared data (the flags and the publication lines).
 * Restrictions: every rank on one node, node-shared memory (copy=cma: for
 *   the flags; cross-memory attach available on every rank of the node,
 *   probed when the communicator's context is made, TOPOCOLL_CMA=0 turns it
 *   off; contiguous datatypes, the API declines derived types with holes).
 * Source: Li, Hoefler, Snir 2013, section 3.4 (dissemination, threads
 *   reading each other's vectors); the canonical grouping is this library's.
 */
#include <stdio.h>

#include "algo/shm_common.h"

#define NSLOTS 2

/* First rank of the sibling block of u at level k (>= p: none). */
static int sibling(int u, int k) { return ((u >> k) ^ 1) << k; }

/* Partials rank u computed in rounds 0..k-1 (rounds whose sibling block
 * exists). */
static int combined(int u, int k, int p)
{
    int c = 0;
    for (int j = 0; j < k; j++)
        if (sibling(u, j) < p) c++;
    return c;
}

/* Where P_k(u) lives: copy=in, u's slot (the slots alternate with every
 * partial computed); copy=cma, u's input until it has combined, then its
 * scratch halves in turn. */
static tc_region partial(const tc_args *a, int u, int k, int cma)
{
    int c = combined(u, k, a->size);
    if (!cma) return tc_shm_slot_all(a, NSLOTS, u, c % 2);
    if (c == 0) return tc_reg(a->in_place ? TC_BUF_RECV : TC_BUF_SEND, 0, a->scount);
    return tc_reg(TC_BUF_TMP, (int64_t)((c - 1) % 2) * a->scount, a->scount);
}

/* Does the last round need scratch for the result (copy=cma: its receive
 * buffer holds the input that the sibling block reads in that round)? */
static int result_staged(const tc_args *a, int L, int cma)
{
    return cma && a->in_place && combined(a->rank, L - 1, a->size) == 0;
}

/* Where round k writes P_{k+1}(u). */
static tc_region next_partial(const tc_args *a, int k, int L, int cma)
{
    if (k == L - 1)
        return result_staged(a, L, cma) ? tc_reg(TC_BUF_TMP, 0, a->scount) : tc_reg(TC_BUF_RECV, 0, a->scount);
    return partial(a, a->rank, k + 1, cma);
}

/* Rank u's flags after computing P_{k+1} (or, k = -1, at the start): the
 * ranks of the sibling block at level k+1 when u is its block's first rank. */
static void ready(tc_sched *s, int u, int k, int p, int L)
{
    int lv = k + 1;
    if (lv >= L || u % (1 << lv) != 0) return;
    int w = u ^ (1 << lv);
    for (int q = w; q < w + (1 << lv) && q < p; q++) tc_sched_signal(s, q);
}

/* Rank u waits, at the end of the round that computes P_{k+1}, for what
 * round k+1 needs: the sibling's partial, and the acknowledgements of the
 * readers of its own P_k (before P_{k+2} overwrites it; copy=cma also in
 * the last round, before it returns). */
static void waits(tc_sched *s, int u, int k, int p, int L, int cma)
{
    if (k >= 0 && (cma || k < L - 1) && u % (1 << k) == 0) {
        int w = u ^ (1 << k);
        for (int q = w; q < w + (1 << k) && q < p; q++) tc_sched_wait(s, q);
    }
    if (k + 1 < L && sibling(u, k + 1) < p) tc_sched_wait(s, sibling(u, k + 1));
}

/* out = other op out, other in w's region: copy=in, from the window;
 * copy=cma, read chunk by chunk into the scratch chunk after the halves. */
static void reduce_from(tc_sched *s, const tc_args *a, int w, tc_region other, tc_region out, int cma)
{
    if (!cma) {
        tc_sched_reduce(s, other, out);
        return;
    }
    for (int64_t lo = 0; lo < a->scount; lo += TC_SHM_CHUNK) {
        int64_t len = a->scount - lo < TC_SHM_CHUNK ? a->scount - lo : TC_SHM_CHUNK;
        tc_region stage = tc_reg(TC_BUF_TMP, 2 * a->scount, len);
        tc_sched_rread(s, w, tc_reg(other.buf, other.off + lo, len), stage);
        tc_sched_reduce(s, stage, tc_reg(out.buf, out.off + lo, len));
    }
}

/* Round k: P_{k+1}(u) from P_k(u) and the sibling's P_k. */
static void combine(tc_sched *s, const tc_args *a, int k, int L, int cma)
{
    int u = a->rank, p = a->size, w = sibling(u, k);
    tc_region own = partial(a, u, k, cma), out = next_partial(a, k, L, cma);
    if (w >= p) {   /* no sibling: the partial stays (the last round copies it out) */
        if (k == L - 1 && (own.buf != out.buf || own.off != out.off)) tc_sched_copy(s, own, out);
        return;
    }
    tc_region other = partial(a, w, k, cma);
    if (u < w) {    /* own op other */
        tc_shm_read(s, cma, w, other, out);
        tc_sched_reduce(s, own, out);
    } else {        /* other op own */
        tc_sched_copy(s, own, out);
        reduce_from(s, a, w, other, out, cma);
    }
    if (cma || k < L - 1) tc_sched_signal(s, w);   /* read: w may reuse the place, or return */
}

static int generate(tc_sched *s, const tc_args *a, int cma)
{
    int p = a->size, u = a->rank, L = tc_log2_ceil(p);
    if (p == 1) {
        if (!a->in_place) tc_sched_copy(s, tc_reg(TC_BUF_SEND, 0, a->scount), tc_reg(TC_BUF_RECV, 0, a->scount));
        tc_sched_round(s);
        return 0;
    }
    if (cma) {
        s->tmp_like = TC_BUF_SEND;
        tc_sched_need_tmp(s, 2 * a->scount + (a->scount < TC_SHM_CHUNK ? a->scount : TC_SHM_CHUNK));
    } else {
        tc_shm_layout(s, a, NSLOTS);
        tc_shm_copy_in(s, a, NSLOTS);
    }
    ready(s, u, -1, p, L);
    waits(s, u, -1, p, L, cma);
    tc_sched_round(s);
    for (int k = 0; k < L; k++) {
        combine(s, a, k, L, cma);
        ready(s, u, k, p, L);
        waits(s, u, k, p, L, cma);
        tc_sched_round(s);
    }
    if (result_staged(a, L, cma)) {   /* the readers of the input are done */
        tc_sched_copy(s, tc_reg(TC_BUF_TMP, 0, a->scount), tc_reg(TC_BUF_RECV, 0, a->scount));
        tc_sched_round(s);
    }
    return 0;
}

/* ---- the family's catalog row ---------------------------------------------- */

enum { P_COPY };
enum { COPY_IN, COPY_CMA };
static const char *const copy_values[] = { "in", "cma", NULL };
static const tc_param_def params[] = {
    { "copy", copy_values, COPY_IN },
};

static void describe(const tc_family *f, const int *v, tc_instance_text *out)
{
    (void)f;
    int cma = v[P_COPY] == COPY_CMA;
    snprintf(out->alias, sizeof out->alias, "shm_dissemination%s", cma ? "_cma" : "");
    snprintf(out->desc, sizeof out->desc, "%s, ceil(log2 p) rounds, each rank %s "
             "(one canonical tree: identical results on every rank)",
             cma ? "single copy (process_vm_readv)" : "shared memory (copy-in)",
             cma ? "reading the sibling block's partial from its buffers" : "combining aligned rank blocks");
}

static unsigned req_of(const int *v)
{
    return v[P_COPY] == COPY_CMA ? TC_REQ_CMA : 0;
}

static int family_generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    const int *v = a->param;
    return generate(s, a, v[P_COPY] == COPY_CMA);
}

const tc_family tc_allreduce_shm_dissemination = {
    .coll = TOPOCOLL_ALLREDUCE, .name = "shm_dissemination",
    .summary = "node-shared memory (copy-in) or single copy (copy=cma: process_vm_readv of the "
               "peers' buffers): ceil(log2 p) rounds, each rank combining aligned rank blocks, one "
               "canonical tree (Li, Hoefler, Snir 2013)",
    .source = __FILE__, .nparams = 1, .params = params, .rule = "",
    .describe = describe, .req = TC_REQ_NODE_SHM | TC_REQ_ONE_NODE, .req_of = req_of,
    .generate = family_generate,
};
