/*
 * Per-step link loads (see steps.h): compact link ids, rows grown by a
 * quarter of the ids known so far (O(log) reallocations per row), a byte
 * budget with a drop-everything overflow, and windows of full-width rows
 * for the re-runs.  Memory: at most the budget plus 8 bytes per link.
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
    st->cid_link = malloc(n * sizeof *st->cid_link);
    if (!st->cid || !st->cid_link) {
        steps_free(st);
        return ENOMEM;
    }
    memset(st->cid, 0xff, n * sizeof *st->cid);   /* -1 */
    return 0;
}

void steps_drop_rows(sim_steps *st)
{
    for (int s = 0; s < st->nrows; s++) free(st->row[s]);
    free(st->row);
    free(st->cap);
    st->row = NULL;
    st->cap = NULL;
    st->nrows = st->rows_cap = 0;
    st->mem = 0;
}

void steps_free(sim_steps *st)
{
    steps_drop_rows(st);
    free(st->cid);
    free(st->cid_link);
    st->cid = st->cid_link = NULL;
}

int steps_new_cid(sim_steps *st, int link)
{
    int c = st->ncid++;
    st->cid[link] = c;
    st->cid_link[c] = link;
    return c;
}

/* Makes row pointers exist up to step. */
static int grow_rows(sim_steps *st, int step)
{
    if (step < st->rows_cap) {
        if (step >= st->nrows) st->nrows = step + 1;
        return 0;
    }
    int cap = st->rows_cap ? st->rows_cap : 64;
    while (cap <= step) cap = cap > INT_MAX / 2 ? INT_MAX : 2 * cap;
    uint64_t **r = realloc(st->row, (size_t)cap * sizeof *r);
    if (!r) return ENOMEM;
    st->row = r;
    int32_t *c = realloc(st->cap, (size_t)cap * sizeof *c);
    if (!c) return ENOMEM;
    st->cap = c;
    for (int s = st->rows_cap; s < cap; s++) {
        st->row[s] = NULL;
        st->cap[s] = 0;
    }
    st->rows_cap = cap;
    st->nrows = step + 1;
    return 0;
}

static int overflow(sim_steps *st)
{
    steps_drop_rows(st);
    st->overflow = 1;
    return -1;
}

int steps_grow(sim_steps *st, int step, int c)
{
    if (grow_rows(st, step) != 0) return overflow(st);
    int old = st->cap[step];
    if (c < old) return 0;
    int64_t want = (int64_t)st->ncid + st->ncid / 4 + 16;
    if (want > st->nlinks) want = st->nlinks;
    if (want < c + 1) want = c + 1;
    size_t add = (size_t)(want - old) * sizeof(uint64_t);
    if (st->mem + add > st->budget) return overflow(st);
    uint64_t *r = realloc(st->row[step], (size_t)want * sizeof *r);
    if (!r) return overflow(st);
    memset(r + old, 0, add);
    st->row[step] = r;
    st->cap[step] = (int32_t)want;
    st->mem += add;
    return 0;
}

int steps_window(sim_steps *st, int nsteps, int lo, int hi)
{
    steps_drop_rows(st);
    st->overflow = 0;
    st->lo = lo;
    st->hi = hi;
    if (nsteps < 1) return 0;
    if (grow_rows(st, nsteps - 1) != 0) return ENOMEM;
    for (int s = lo; s < hi && s < nsteps; s++) {
        st->row[s] = calloc((size_t)(st->ncid ? st->ncid : 1), sizeof(uint64_t));
        if (!st->row[s]) return ENOMEM;
        st->cap[s] = st->ncid;
        st->mem += (size_t)st->ncid * sizeof(uint64_t);
    }
    return 0;
}
