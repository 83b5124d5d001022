/*
 * Per-step link loads for the step-by-step estimate (internal to the
 * engine).  Links get a compact id the first time they carry traffic; each
 * such link keeps a column of 64-bit loads over the range of steps it is
 * used in, grown geometrically in either direction, so the memory is at
 * most (links used) x (steps), not (links) x (steps), and a link used in a
 * few steps costs a few entries.  Loads are 32-bit until one passes
 * UINT32_MAX, when every column is widened to 64 bits once (pairwise
 * exchange at 16,384 ranks: 1 GiB of columns instead of 2).  Columns are
 * link-major because a rank's schedule is scanned step after step: a rank
 * that talks to the same neighbours (ring, neighbour exchange) then walks
 * each column sequentially.  A byte budget bounds the memory: past it every
 * column is dropped (overflow) and the engine re-runs the generators over
 * windows of steps (steps_window).  Cost: O(1) amortised per add;
 * memory <= budget + 4 bytes per link + 20 per link used.
 */
#ifndef TC_SIM_STEPS_H
#define TC_SIM_STEPS_H

#include <stddef.h>
#include <stdint.h>

typedef struct sim_steps {
    int nlinks;
    int32_t *cid;        /* [nlinks] compact id of a link, -1 before use */
    int32_t *cid_link;   /* [ids_cap] link of each compact id */
    int ncid;
    void **col;          /* [ids_cap] loads of compact link c in steps
                            lo+base[c] .. lo+base[c]+cap[c]-1: uint32_t,
                            or uint64_t when wide */
    int wide;            /* a load passed UINT32_MAX: 64-bit columns */
    int32_t *base;       /* [ids_cap] */
    int32_t *cap;        /* [ids_cap] */
    int ids_cap;         /* compact ids col and cap have room for */
    size_t mem, budget;  /* bytes held by columns; the limit */
    int lo, hi;          /* steps recorded: lo <= s < hi */
    int smax;            /* steps known so far (columns never grow past it) */
    int overflow;        /* budget hit: columns dropped, steps not recorded */
    int oom;             /* no memory for a compact id: the engine fails */
} sim_steps;

int steps_init(sim_steps *st, int nlinks, size_t budget);
void steps_free(sim_steps *st);

/* Slow paths of steps_add (steps_new_cid: -1 and overflow when out of
 * memory; steps_grow: column c covers step lo + j afterwards, or -1). */
int steps_new_cid(sim_steps *st, int link);
int steps_grow(sim_steps *st, int c, int j);
int steps_widen(sim_steps *st);

/* Bytes per column entry. */
static inline size_t steps_esize(const sim_steps *st) { return st->wide ? 8 : 4; }

/* Load of column c at its index i. */
static inline uint64_t steps_get(const sim_steps *st, int c, int i)
{
    return st->wide ? ((const uint64_t *)st->col[c])[i] : ((const uint32_t *)st->col[c])[i];
}

static inline void steps_add(sim_steps *st, int step, int link, uint64_t bytes)
{
    int32_t c = st->cid[link];
    if (c < 0) c = steps_new_cid(st, link);
    if (st->overflow || c < 0 || step < st->lo || step >= st->hi) return;
    int j = step - st->lo;
    if ((unsigned)(j - st->base[c]) >= (unsigned)st->cap[c] && steps_grow(st, c, j) != 0) return;
    size_t i = (size_t)(j - st->base[c]);
    if (!st->wide) {
        uint32_t *v = st->col[c];
        uint64_t x = (uint64_t)v[i] + bytes;
        if (x <= UINT32_MAX) {
            v[i] = (uint32_t)x;
            return;
        }
        if (steps_widen(st) != 0) return;
    }
    ((uint64_t *)st->col[c])[i] += bytes;
}

/* Drops every column and records steps [lo, hi) from now on. */
void steps_window(sim_steps *st, int lo, int hi);
/* Releases every column (keeps the compact ids). */
void steps_drop(sim_steps *st);

#endif
