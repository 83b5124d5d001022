/* What the gatherv and scatterv entries share.
 *
 * The layout (desc.h, "gatherv", "scatterv").  The root's vector of counts
 * comes with packed displacements (the prefix sums of the counts in rank
 * order: the schedule's layout; a consumer whose user displacements differ
 * stages the vector buffer), so the blocks of ranks first .. first+n-1 are
 * one contiguous region of the root's vector buffer.  Every rank's tc_args.v
 * holds the root's counts in its own scratch elements: the root's in the
 * vector buffer's elements, any other rank's in its one block's (its own
 * count is then its scount / rcount).  Entries that read the vector at ranks
 * other than the root carry TC_REQ_ROOT_COUNTS: the consumer spreads the
 * root's counts first (the MPI layer: one allreduce of p + 2 counts,
 * src/api/run_rootedv.c; priced as ceil(log2 p) alpha + 8 p beta each way).
 * Without vectors (the simulator) every block holds the rank's largest
 * count.
 *
 * The scatterv generators are written once; a gatherv entry is its
 * scatterv entry's schedule run backwards (blocks/mirror.h: the vector
 * buffer RECV becomes SEND and back, sends become receives). */
#ifndef TC_ALGO_ROOTEDV_H
#define TC_ALGO_ROOTEDV_H

#include "algo/catalog.h"
#include "algo/cost_walk.h"
#include "blocks/mirror.h"
#include "coll/desc.h"

/* ---- in the scatterv view (a->coll == TOPOCOLL_SCATTERV) ---------------- */

/* Elements of block j in this rank's scratch units. */
static inline int64_t rv_cnt(const tc_args *a, int j)
{
    if (a->v && a->v->scounts) return a->v->scounts[j];
    return a->rank == a->root ? a->scount : a->rcount;
}

/* Offset of block j (0 <= j <= size: j = size is the end) in the packed
 * layout. */
static inline int64_t rv_off(const tc_args *a, int j)
{
    if (!(a->v && a->v->sdispls)) return (int64_t)j * rv_cnt(a, 0);
    if (j >= a->size) return a->v->sdispls[a->size - 1] + a->v->scounts[a->size - 1];
    return a->v->sdispls[j];
}

/* Elements of the blocks of ranks first .. first+n-1 (no wrap). */
static inline int64_t rv_span(const tc_args *a, int first, int n)
{
    return n > 0 ? rv_off(a, first + n) - rv_off(a, first) : 0;
}

/* The root's own block in its vector buffer (SEND). */
static inline tc_region rv_root_block(const tc_args *a, int j)
{
    return tc_reg(TC_BUF_SEND, rv_off(a, j), rv_cnt(a, j));
}

/* This rank's one block (RECV[0, rcount]). */
static inline tc_region rv_own(const tc_args *a)
{
    return tc_reg(TC_BUF_RECV, 0, a->rcount);
}

/* The root keeps its own block: a copy unless in place. */
static inline void rv_root_keep(tc_sched *s, const tc_args *a)
{
    if (!a->in_place) tc_sched_copy(s, rv_root_block(a, a->root), rv_own(a));
}

/* The counts' spreading before a TC_REQ_ROOT_COUNTS entry runs, on the
 * critical path of its cost (ceil(log2 p) messages of p counts of 8 bytes,
 * over the network where there are several nodes); not in the level
 * totals, which count the schedule's own messages. */
static inline void rv_counts_cost(tc_cost *c, const tc_topo *t)
{
    int lvl = t->nnodes > 1 ? TC_LVL_NET : tc_cw_intra_level(t);
    tc_cw_path(c, lvl, tc_cw_ceil_log2(t->size), 8.0 * t->size);
}

/* The scatterv generators (src/algo/scatterv/), which the gatherv entries
 * mirror. */
int tc_scatterv_linear_generate(tc_sched *s, const tc_args *a, const tc_topo *t);
int tc_scatterv_binomial_generate(tc_sched *s, const tc_args *a, const tc_topo *t);
int tc_scatterv_hierarchical_generate(tc_sched *s, const tc_args *a, const tc_topo *t);

/* ---- gatherv as scatterv backwards ------------------------------------- */

/* The gatherv schedule for a: scatterv_generate's schedule for the same
 * root, the vector RECV's as SEND's and the counts swapped, mirrored into
 * s.  Returns 0 or an error. */
static inline int rv_gatherv_by_mirror(tc_sched *s, const tc_args *a, const tc_topo *t,
                                       int (*scatterv_generate)(tc_sched *, const tc_args *, const tc_topo *))
{
    tc_vcounts v = { a->v ? a->v->rcounts : NULL, a->v ? a->v->rdispls : NULL, NULL, NULL };
    tc_args b = *a;
    b.coll = TOPOCOLL_SCATTERV;
    b.scount = a->rcount;
    b.rcount = a->scount;
    b.v = a->v ? &v : NULL;
    tc_sched m;
    tc_sched_init(&m);
    int rc = m.err ? m.err : scatterv_generate(&m, &b, t);
    if (!rc) rc = tc_sched_mirror(s, &m);
    tc_sched_free(&m);
    return rc;
}

#endif
