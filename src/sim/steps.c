/*
 * Per-step link loads (see steps.h): compact link ids, link-major columns
 * over the range of steps a link is used in, doubled towards a new step
 * (O(log steps) reallocations per link), 32-bit loads widened to 64 bits
 * on the first overflow, a byte budget with a
 * drop-everything overflow, and windows of steps for the re-runs.
 * Memory: at most the budget, plus 4 bytes per link and 20 per link used.
 */
#include "sim/steps.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

int steps_init(sim_steps *st, int nlinks, size_t budget)
{
    memset(st, 0, sizeof *st);
    st->nlinks = nlinks;
    st->budget = budget;
    st->hi = INT_MAX;
    size_t n = (size_t)(nlinks ? nlinks : 1);
    st->cid = malloc(n * sizeof *st->cid);
    if (!st->cid) {
        steps_free(st);
        return ENOMEM;
    }
    memset(st->cid, 0xff, n * sizeof *st->cid);   /* -1 */
    return 0;
}

void steps_drop(sim_steps *st)
{
    for (int c = 0; c < st->ncid; c++) {
        free(st->col[c]);
        st->col[c] = NULL;
        st->cap[c] = st->base[c] = 0;
    }
    st->mem = 0;
}

void steps_free(sim_steps *st)
{
    if (st->col) steps_drop(st);
    free(st->cid);
    free(st->cid_link);
    free(st->col);
    free(st->base);
    free(st->cap);
    memset(st, 0, sizeof *st);
}

/* Room for one more compact id in col and cap. */
static int grow_ids(sim_steps *st)
{
    int n = st->ids_cap ? 2 * st->ids_cap : 1024;
    if (n > st->nlinks) n = st->nlinks;
    void **col = realloc(st->col, (size_t)n * sizeof *col);
    if (col) st->col = col;
    int32_t *cap = realloc(st->cap, (size_t)n * sizeof *cap);
    if (cap) st->cap = cap;
    int32_t *base = realloc(st->base, (size_t)n * sizeof *base);
    if (base) st->base = base;
    int32_t *link = realloc(st->cid_link, (size_t)n * sizeof *link);
    if (link) st->cid_link = link;
    if (!col || !cap || !base || !link) return ENOMEM;
    for (int c = st->ids_cap; c < n; c++) {
        st->col[c] = NULL;
        st->cap[c] = st->base[c] = 0;
    }
    st->ids_cap = n;
    return 0;
}

int steps_new_cid(sim_steps *st, int link)
{
    if (st->ncid == st->ids_cap && grow_ids(st) != 0) {
        steps_drop(st);
        st->overflow = st->oom = 1;
        return -1;
    }
    int c = st->ncid++;
    st->cid[link] = c;
    st->cid_link[c] = link;
    return c;
}

/* Steps a column may span: the steps known so far (the most rounds of the
 * ranks generated so far), within the window. */
static int64_t span_limit(const sim_steps *st)
{
    int64_t limit = (int64_t)st->smax - st->lo;
    if (st->hi != INT_MAX && limit > (int64_t)st->hi - st->lo) limit = (int64_t)st->hi - st->lo;
    return limit;
}

/* The new range [*a, *b) of column c so that it holds step j: twice the
 * old span, extended towards j, clamped to [0, limit). */
static void new_range(const sim_steps *st, int c, int j, int64_t *a, int64_t *b)
{
    int64_t lo = st->base[c], hi = lo + st->cap[c], limit = span_limit(st), want;
    if (st->cap[c] == 0) {
        lo = hi = j;
        want = 4;
    } else {
        want = 2 * (hi - lo);
    }
    if (j < lo) lo = j;
    if (j + 1 > hi) hi = j + 1;
    if (hi - lo < want) {
        if (j < st->base[c]) lo = hi - want;
        else hi = lo + want;
    }
    if (lo < 0) lo = 0;
    if (hi > limit && limit > j) hi = limit;   /* limit <= j: the rank count of steps is not known yet */
    if (hi < j + 1) hi = j + 1;
    *a = lo;
    *b = hi;
}

int steps_grow(sim_steps *st, int c, int j)
{
    int64_t a, b, old = st->cap[c];
    size_t es = steps_esize(st);
    new_range(st, c, j, &a, &b);
    size_t add = (size_t)(b - a - old) * es;
    char *v = st->mem + add <= st->budget ? calloc((size_t)(b - a), es) : NULL;
    if (!v) {
        steps_drop(st);
        st->overflow = 1;
        return -1;
    }
    if (old) memcpy(v + (size_t)(st->base[c] - a) * es, st->col[c], (size_t)old * es);
    free(st->col[c]);
    st->col[c] = v;
    st->base[c] = (int32_t)a;
    st->cap[c] = (int32_t)(b - a);
    st->mem += add;
    return 0;
}

int steps_widen(sim_steps *st)
{
    st->wide = 1;   /* from now on, even after an overflow and in later windows */
    if (2 * st->mem > st->budget) {
        steps_drop(st);
        st->overflow = 1;
        return -1;
    }
    for (int c = 0; c < st->ncid; c++) {
        if (!st->col[c]) continue;
        uint64_t *v = malloc((size_t)st->cap[c] * sizeof *v);
        if (!v) {
            steps_drop(st);
            st->overflow = 1;
            return -1;
        }
        const uint32_t *n = st->col[c];
        for (int i = 0; i < st->cap[c]; i++) v[i] = n[i];
        free(st->col[c]);
        st->col[c] = v;
    }
    st->mem *= 2;
    return 0;
}

void steps_window(sim_steps *st, int lo, int hi)
{
    steps_drop(st);
    st->overflow = 0;
    st->lo = lo;
    st->hi = hi;
}
