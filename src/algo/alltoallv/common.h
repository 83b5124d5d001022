/* What the alltoallv algorithms share: the parts of the per-peer layout
 * (tc_args.v, coll/coll.h).  Rank j's part of the input is SEND[sdispls[j],
 * scounts[j]], its part of the output RECV[rdispls[j], rcounts[j]].  With
 * MPI_IN_PLACE, SEND is RECV and the normalised counts are RECV's: the input
 * is first copied to scratch at the same offsets (av_save_input) and read
 * there (av_in), since parts are overwritten before all are sent. */
#ifndef TC_ALGO_ALLTOALLV_COMMON_H
#define TC_ALGO_ALLTOALLV_COMMON_H

#include "algo/catalog.h"
#include "pattern/pattern.h"

/* Rank j's part: per-peer counts, or without them (tc_args.v NULL: the
 * simulator, the thread test) every part scount / rcount, consecutive. */
static inline int64_t av_rcount(const tc_args *a, int j) { return a->v ? a->v->rcounts[j] : a->rcount; }
static inline int64_t av_rdispl(const tc_args *a, int j) { return a->v ? a->v->rdispls[j] : j * a->rcount; }
static inline int64_t av_scount(const tc_args *a, int j) { return a->v ? a->v->scounts[j] : a->scount; }
static inline int64_t av_sdispl(const tc_args *a, int j) { return a->v ? a->v->sdispls[j] : j * a->scount; }

/* RECV's extent in elements: the furthest part's end. */
static inline int64_t av_recv_span(const tc_args *a)
{
    int64_t end = 0;
    for (int j = 0; j < a->size; j++)
        if (av_rcount(a, j) > 0 && av_rdispl(a, j) + av_rcount(a, j) > end)
            end = av_rdispl(a, j) + av_rcount(a, j);
    return end;
}

static inline tc_region av_out(const tc_args *a, int j)
{ return tc_reg(TC_BUF_RECV, av_rdispl(a, j), av_rcount(a, j)); }

/* The input part for rank j: SEND, or its copy in TMP (in place). */
static inline tc_region av_in(const tc_args *a, int j)
{
    if (a->in_place) return tc_reg(TC_BUF_TMP, av_rdispl(a, j), av_rcount(a, j));
    return tc_reg(TC_BUF_SEND, av_sdispl(a, j), av_scount(a, j));
}

/* In place: every part of RECV to TMP (same offsets; the gaps between
 * parts are not the collective's), in a round of its own. */
static inline void av_save_input(tc_sched *s, const tc_args *a)
{
    if (!a->in_place) return;
    tc_sched_need_tmp(s, av_recv_span(a));
    for (int j = 0; j < a->size; j++)
        tc_sched_copy(s, av_out(a, j), tc_reg(TC_BUF_TMP, av_rdispl(a, j), av_rcount(a, j)));
    tc_sched_round(s);
}

/* The linear and pairwise generators and cost functions, shared with
 * alltoallw (its parts are blocks of one element each: its own datatype). */
int tc_av_linear_generate(tc_sched *s, const tc_args *a, const tc_topo *t);
int tc_av_linear_cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c);
int tc_av_pairwise_generate(tc_sched *s, const tc_args *a, const tc_topo *t);
int tc_av_pairwise_cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c);
/* The hierarchical family's generator (parameters leaders=1|2|4,
 * intra=p2p|shm as value indices, in that order), shared with alltoallw's
 * family, which runs it in bytes (src/algo/alltoallw/hierarchical.c). */
int tc_av_hier_generate(tc_sched *s, const tc_args *a, const tc_topo *t);
/* The hierarchical family's parameters (leaders=1|2|4, intra=p2p|shm), its
 * alias and description (what: words after "hierarchical") and its
 * requirement, shared with alltoallw's family of the same generator. */
enum { TC_AV_HIER_NPARAMS = 2 };
extern const tc_param_def tc_av_hier_params[TC_AV_HIER_NPARAMS];
void tc_av_hier_describe(const int *v, const char *what, tc_instance_text *out);
unsigned tc_av_hier_req_of(const int *v);

#endif
