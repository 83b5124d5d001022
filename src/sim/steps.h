/*
 * Per-step link loads for the step-by-step estimate (internal to the
 * engine).  Links get a compact id the first time they carry traffic; step
 * s keeps a row of 64-bit loads over compact ids, grown on demand, so the
 * memory is (steps) x (links used), not (steps) x (links).  A byte budget
 * bounds it: past the budget every row is dropped (overflow) and the engine
 * re-runs the generators over windows of steps with full-width rows
 * (steps_window).  Cost: O(1) amortised per add; memory <= budget.
 */
#ifndef TC_SIM_STEPS_H
#define TC_SIM_STEPS_H

#include <stddef.h>
#include <stdint.h>

typedef struct sim_steps {
    int nlinks;
    int32_t *cid;        /* [nlinks] compact id of a link, -1 before use */
    int32_t *cid_link;   /* [nlinks] link of each compact id */
    int ncid;
    uint64_t **row;      /* [nrows] loads of step s over compact ids, or NULL */
    int32_t *cap;        /* [nrows] width of each row */
    int nrows, rows_cap;
    size_t mem, budget;  /* bytes held by rows; the limit */
    int lo, hi;          /* steps recorded: lo <= s < hi */
    int overflow;        /* budget hit: rows dropped, steps not recorded */
} sim_steps;

int steps_init(sim_steps *st, int nlinks, size_t budget);
void steps_free(sim_steps *st);

/* Slow paths of steps_add. */
int steps_new_cid(sim_steps *st, int link);
int steps_grow(sim_steps *st, int step, int c);

static inline void steps_add(sim_steps *st, int step, int link, uint64_t bytes)
{
    int32_t c = st->cid[link];
    if (c < 0) c = steps_new_cid(st, link);
    if (st->overflow || step < st->lo || step >= st->hi) return;
    if (step >= st->nrows || c >= st->cap[step]) {
        if (steps_grow(st, step, c) != 0) return;
    }
    st->row[step][c] += bytes;
}

/* Drops every row and records steps [lo, hi) from now on, with rows of the
 * full compact width allocated at once.  Returns 0 or ENOMEM. */
int steps_window(sim_steps *st, int nsteps, int lo, int hi);
/* Releases every row (keeps the compact ids). */
void steps_drop_rows(sim_steps *st);

#endif
