/* The cost of the folded recursive doubling and halving allgathers
 * (ag_fold_allgather, src/blocks/fold.h): see ag_fold_cost in
 * src/algo/allgather/common.h. */
#include "algo/allgather/common.h"
#include "algo/cost_walk.h"
#include "pattern/pattern.h"


typedef struct fold_shape {
    int q, extras, bits, bitrev;
} fold_shape;

static int pos_rank(const fold_shape *f, int j) { return f->bitrev ? tc_bitrev(j, f->bits) : j; }

static int fold_in_pair(const void *ctx, int r, int p, int d, double *blocks)
{
    const fold_shape *f = ctx;
    (void)p;
    (void)d;
    *blocks = 1;
    return r >= f->q ? r - f->q : -1;
}

static int fold_out_pair(const void *ctx, int r, int p, int d, double *blocks)
{
    const fold_shape *f = ctx;
    (void)d;
    *blocks = p;
    return r < f->extras ? r + f->q : -1;
}

/* Core step of position distance d: the slots of r's aligned group of d
 * positions to the core rank at position j ^ d. */
static int core_pair(const void *ctx, int r, int p, int d, double *blocks)
{
    const fold_shape *f = ctx;
    (void)p;
    if (r >= f->q) return -1;
    int j = pos_rank(f, r), lo = j & ~(d - 1);
    double b = 0;
    for (int g = lo; g < lo + d; g++) b += 1 + (pos_rank(f, g) < f->extras);
    *blocks = b;
    return pos_rank(f, j ^ d);
}

int ag_fold_cost(tc_cost *c, const tc_topo *t, double n, int bitrev_positions)
{
    fold_shape f = { tc_pow2_floor(t->size), 0, 0, bitrev_positions };
    f.extras = t->size - f.q;
    f.bits = tc_log2_ceil(f.q);
    if (f.extras) tc_cw_step(c, t, fold_in_pair, &f, 0, n);
    for (int d = 1; d < f.q; d <<= 1) tc_cw_step(c, t, core_pair, &f, d, n);
    if (f.extras || bitrev_positions) c->mem += t->size * n;   /* slots to the receive buffer */
    if (f.extras) tc_cw_step(c, t, fold_out_pair, &f, 0, n);
    return 0;
}
