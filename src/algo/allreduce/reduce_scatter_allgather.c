/*
 * allreduce "reduce_scatter_allgather": Rabenseifner's algorithm.
 *
 * Steps: fold a non-power-of-two p onto q = 2^floor(log2 p) ranks (common.h);
 *   the n elements are q blocks (the first n mod q one element longer).
 *   1. Reduce-scatter by recursive halving with the distance doubling
 *      (mask 1, 2, ..., q/2): new rank v exchanges half of its current block
 *      range with v XOR mask (the lower rank keeps the lower half) and
 *      combines "lower op higher" on the half it keeps.  The partners of
 *      mask cover adjacent aligned rank ranges, so every block is reduced in
 *      rank order (non-commutative operations too), once, by one rank.
 *   2. Allgather by recursive doubling of the blocks (mask q/2 .. 1) in the
 *      receive buffer; then the fold is undone.
 *   Every result element is computed once and copied: all ranks hold
 *   bitwise-identical results.
 * Cost: 2 log2 q alpha + 2 (q-1)/q n beta + (q-1)/q n gamma, plus
 *   2 (alpha + n beta) + n gamma when p is not a power of two.
 * Memory: n scratch.
 * Restrictions: none.
 * Source: Rabenseifner, "Optimization of Collective Reduction Operations"
 *   (2004); Thakur, Rabenseifner, Gropp 2005; MPICH
 *   allreduce_intra_reduce_scatter_allgather.
 */
#include "algo/allreduce/common.h"

typedef struct rsa {
    ar_fold f;
    int64_t per, extra;   /* block i: per elements, one more when i < extra */
} rsa;

static int64_t disp(const rsa *R, int i) { return (int64_t)i * R->per + (i < R->extra ? i : R->extra); }

/* First block and block count held by new rank v after the halving steps of masks 1 .. m. */
static void held(const rsa *R, int v, int m, int *lo, int *cnt)
{
    int l = 0, size = R->f.q;
    for (int mm = 1; mm <= m; mm <<= 1) {
        size /= 2;
        if (v & mm) l += size;
    }
    *lo = l;
    *cnt = size;
}

static tc_region blocks(const rsa *R, int buf, int v, int m)
{
    int lo, cnt;
    held(R, v, m, &lo, &cnt);
    return tc_reg(buf, disp(R, lo), disp(R, lo + cnt) - disp(R, lo));
}

/* Step 1; returns the buffer holding v's block. */
static int halving(tc_sched *s, const rsa *R, int v, int acc)
{
    for (int mask = 1; mask < R->f.q; mask <<= 1) {
        int pv = v ^ mask, peer = ar_real_rank(&R->f, pv), lower = v < pv, other = ar_other(acc);
        tc_sched_round(s);
        tc_sched_send(s, peer, blocks(R, acc, pv, mask));
        if (!lower && acc == TC_BUF_SEND) {   /* a writable copy of the kept half */
            tc_sched_copy(s, blocks(R, TC_BUF_SEND, v, mask), blocks(R, TC_BUF_RECV, v, mask));
            other = TC_BUF_TMP;
        }
        tc_sched_recv(s, peer, blocks(R, other, v, mask));
        tc_sched_round(s);
        if (lower) {
            tc_sched_reduce(s, blocks(R, acc, v, mask), blocks(R, other, v, mask));
            acc = other;
        } else {
            if (acc == TC_BUF_SEND) acc = TC_BUF_RECV;
            tc_sched_reduce(s, blocks(R, other, v, mask), blocks(R, acc, v, mask));
        }
    }
    return acc;
}

/* Step 2, in RECV. */
static void doubling(tc_sched *s, const rsa *R, int v)
{
    for (int mask = R->f.q / 2; mask >= 1; mask >>= 1) {
        int pv = v ^ mask, peer = ar_real_rank(&R->f, pv);
        tc_sched_send(s, peer, blocks(R, TC_BUF_RECV, v, mask));
        tc_sched_recv(s, peer, blocks(R, TC_BUF_RECV, pv, mask));
        tc_sched_round(s);
    }
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int64_t n = a->scount;
    rsa R;
    int acc;
    R.f = ar_fold_of(a->size);
    R.per = n / R.f.q;
    R.extra = n % R.f.q;
    s->tmp_like = TC_BUF_SEND;
    tc_sched_need_tmp(s, a->size > 1 ? n : 0);
    int v = ar_fold_in(s, a, &R.f, &acc);
    if (v >= 0) {
        acc = halving(s, &R, v, acc);
        if (acc != TC_BUF_RECV)
            tc_sched_copy(s, blocks(&R, acc, v, R.f.q / 2), blocks(&R, TC_BUF_RECV, v, R.f.q / 2));
        tc_sched_round(s);
        doubling(s, &R, v);
    }
    ar_fold_out(s, a, &R.f);
    return 0;
}

const tc_algo tc_allreduce_reduce_scatter_allgather = {
    .coll = TOPOCOLL_ALLREDUCE, .name = "reduce_scatter_allgather",
    .desc = "Rabenseifner: recursive-halving reduce-scatter, recursive-doubling allgather "
            "(large vectors), any operation",
    .req = TC_REQ_NONE, .generate = generate, .source = __FILE__,
};
