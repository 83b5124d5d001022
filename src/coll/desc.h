/*
 * One descriptor per collective (MPI-free): everything that says what a
 * collective is, written once.  The API's argument checks and buffer binding,
 * the normalisation of user counts into tc_args, the selection's message
 * size, the verifier's layout, initial data and expected result, and the
 * benchmark's buffer sizes all read this table.
 *
 * Vocabulary.  SEND and RECV are the two user buffers (TC_BUF_SEND,
 * TC_BUF_RECV).  Sizes are in elements of the buffer's own type, written as
 * "one of the normalised counts (tc_args.scount or .rcount), times 1 or p",
 * at some ranks (all, the root only, none).  p is the communicator size.
 *
 *   collective  SEND               RECV               MPI_IN_PLACE
 *   allgather   scount             p blocks of rcount all: SEND is RECV's block `rank`
 *   bcast       -                  rcount (bytes)     -
 *   scatter     root: p x scount   rcount             root: RECV is SEND's block `root`
 *   gather      scount             root: p x rcount   root: SEND is RECV's block `root`
 *   reduce      scount (= rcount)  root: rcount       root: SEND is RECV
 *   reduce_scatter_block
 *               p blocks of rcount rcount             all: SEND is RECV, which then holds
 *               (scount = p x rcount)                 p blocks (the result in block 0)
 *   alltoall    p blocks of scount p blocks of rcount all: SEND is RECV
 *               (result: block j of rank r is block r of rank j's input)
 *   alltoallv   per peer (tc_args.v) per peer           all: SEND is RECV (with
 *               (scounts, sdispls)  (rcounts, rdispls)  RECV's counts)
 *   allreduce   scount (= rcount)  rcount             all: SEND is RECV
 *   allgatherv  scount (own block) per source rank     all: SEND is RECV's block
 *                                  (rcounts, rdispls)  `rank` (rdispls[rank])
 *               (rcount: the largest receive count; tc_args.v's rdispls are the
 *               schedule's layout, packed prefix sums: see ag_regions.h)
 *   barrier     -                  -                  -
 *               (no data: the schedule's messages are zero-byte; what a
 *               barrier must prove is `synchronizes`)
 *   reduce_scatter
 *               the vector: sum of  rcounts[rank]      all: SEND is RECV, which then holds
 *               rcounts (scount)    (tc_args.v)        the vector (the result from element 0)
 *               (rcount: the largest receive count; tc_args.v's rcounts are the
 *               user's recvcounts, the same at every rank, rdispls their packed
 *               prefix sums: block j of the vector is [rdispls[j], rcounts[j]);
 *               without vectors (the simulator) every block rcount)
 *   gatherv     scount (own block) root: per source rank root: SEND is RECV's block
 *                                  (rcounts, rdispls)  `root` (rdispls[root])
 *   scatterv    root: per target   rcount (own block) root: RECV is SEND's block
 *               (scounts, sdispls)                     `root` (sdispls[root])
 *               (gatherv's rcount, scatterv's scount: the largest count.  The
 *               root's vector, as tc_args.v's rcounts/rdispls (gatherv) or
 *               scounts/sdispls (scatterv), with packed prefix sums as the
 *               schedule's layout, reaches every rank, counted in that
 *               rank's scratch elements: the root's in its vector buffer's,
 *               the others' in their own buffer's; see src/algo/rootedv.h)
 *   scan        scount (= rcount)  rcount             all: SEND is RECV
 *               (result at rank r: ranks 0..r combined in rank order)
 *   exscan      scount (= rcount)  rcount             all: SEND is RECV
 *               (result at rank r > 0: ranks 0..r-1; rank 0's RECV untouched)
 *
 * Normalisation (tc_coll_normalize): a buffer's tc_args count is the user's
 * count of that argument where it is significant (the API passes 0 for a
 * count of a zero-size datatype: no byte moves), else the other argument's
 * (a scatter non-root has scount = rcount, an in-place gather root has
 * scount = rcount), times p where the descriptor says so (reduce_scatter_
 * block's scount), in bytes where the schedule counts bytes (bcast: ranks may
 * describe the data with different types).  An argument that no rank uses
 * has count 0.
 *
 * Scratch (TMP) takes the type of tc_sched.tmp_like; the convention per
 * collective is `tmp_like` below.  REDUCE ops combine elements of one type
 * (b = a op b, a first in rank order); algorithms for reductions may decline
 * non-commutative ops.  With in-place aliasing a generator must not read SEND
 * after it wrote the aliased region: read the input first.
 *
 * Adding a collective is one more row: its row in the list
 * (include/topocoll_colls.h) gives .coll, .name and .env, its DESC_<UPPER>
 * in desc.c the rest (allreduce: SEND {all, scount},
 * RECV {all, rcount}, in place at all ranks (SEND is RECV, offset 0), a
 * reduction with result {all, one block, same ids}); alltoall would be SEND {all, p x
 * scount}, RECV {all, p x rcount}, in place SEND is RECV, result ids
 * transposed (one more tc_coll_ids value).
 */
#ifndef TC_COLL_DESC_H
#define TC_COLL_DESC_H

#include <stdint.h>
#include "coll/coll.h"
#include "sched/sched.h"

/* Where something holds. */
typedef enum tc_coll_ranks {
    TC_AT_NONE = 0,
    TC_AT_ALL,
    TC_AT_ROOT
} tc_coll_ranks;

/* Which normalised count a size or an offset is made of. */
typedef enum tc_coll_count { TC_COUNT_S = 0, TC_COUNT_R } tc_coll_count;

/* An element count: `count` (times p when times_p) at the ranks `at`,
 * 0 elsewhere. */
typedef struct tc_coll_size {
    tc_coll_ranks at;
    tc_coll_count count;
    int times_p;
} tc_coll_size;

/* A rank index that scales a block: none (offset 0), the rank itself, the root. */
typedef enum tc_coll_index { TC_INDEX_ZERO = 0, TC_INDEX_RANK, TC_INDEX_ROOT } tc_coll_index;

/* An element offset: index x count. */
typedef struct tc_coll_pos {
    tc_coll_index index;
    tc_coll_count count;
} tc_coll_pos;

/* One user buffer argument.  size.at is where MPI reads it (its significance
 * before MPI_IN_PLACE takes it away). */
typedef struct tc_coll_arg {
    tc_coll_size size;
    int norm_times_p;   /* its tc_args count is p times the user's count */
} tc_coll_arg;

/* MPI_IN_PLACE: allowed at the ranks `at` (TC_AT_NONE: nowhere), given as
 * the argument `arg`; that logical buffer is then the part of the other one
 * (`view` elements from `offset`, in the other's elements), and the other
 * holds `other` elements (at TC_AT_NONE: its usual size). */
typedef struct tc_coll_in_place {
    tc_coll_ranks at;
    int arg;            /* TC_BUF_SEND or TC_BUF_RECV */
    tc_coll_pos offset;
    tc_coll_size view;
    tc_coll_size other;
} tc_coll_in_place;

/* Logical data in units of one receive block (B = rcount elements): where a
 * rank's input starts (buffer, ranks, 1 or p blocks; the id of its first
 * element is index x the number of units, ids consecutive). */
typedef struct tc_coll_input {
    int buf;            /* TC_BUF_SEND or TC_BUF_RECV, from element 0 */
    tc_coll_ranks at;
    int blocks_p;
    tc_coll_index first;
} tc_coll_input;

/* The ids a result unit i of rank r must hold. */
typedef enum tc_coll_ids {
    TC_IDS_SAME = 0,    /* i */
    TC_IDS_RANK_BLOCK,  /* r x B + i: the rank's own block */
    TC_IDS_TRANSPOSED   /* alltoall: unit i = j x B + e (block j) holds
                           j x p x B + r x B + e, block r of rank j's input */
} tc_coll_ids;

/* Prefix reductions: the contributions a result unit of rank r combines. */
typedef enum tc_coll_prefix {
    TC_PREFIX_NONE = 0,     /* all p ranks (reductions) */
    TC_PREFIX_INCLUSIVE,    /* ranks 0..r (scan) */
    TC_PREFIX_EXCLUSIVE     /* ranks 0..r-1 (exscan; rank 0 has no result) */
} tc_coll_prefix;

/* The result: in RECV from element 0, at the ranks `at`, 1 or p blocks; each
 * unit combines p contributions for reductions, else 1. */
typedef struct tc_coll_result {
    tc_coll_ranks at;
    int blocks_p;
    tc_coll_ids ids;
} tc_coll_result;

typedef struct tc_coll_desc {
    topocoll_coll coll;
    const char *name;         /* "allgather" */
    const char *env;          /* "TOPOCOLL_ALLGATHER": the algorithm override */
    int rooted;               /* takes a root (checked against 0..p-1) */
    int reduction;            /* takes an op (not MPI_OP_NULL; commutativity asked) */
    int counts_bytes;         /* the schedule counts bytes (bcast) */
    int one_count;            /* the MPI signature has one count and one type,
                                 used for both arguments */
    int same_signature;       /* SEND's and RECV's blocks must have equal type
                                 signatures where both are significant */
    tc_coll_arg arg[2];       /* [TC_BUF_SEND], [TC_BUF_RECV] */
    tc_coll_in_place in_place;
    int tmp_like;             /* TC_BUF_SEND or TC_BUF_RECV */
    tc_coll_input input;
    tc_coll_result result;
    int vcounts;              /* counts and displacements per peer (tc_args.v):
                                 buffer sizes reach the furthest displacement +
                                 count; input and result per peer (verifier) */
    int vblock;               /* with vcounts: RECV's counts and displacements only
                                 (tc_vcounts.rcounts/rdispls; scounts/sdispls NULL);
                                 rank r contributes one block, SEND[0, scount]
                                 (in place: RECV[rdispls[r], rcounts[r]]), that
                                 every rank receives at rdispls[r] (allgatherv) */
    int vsplit;               /* with vcounts: one count per rank (rcounts, equal at
                                 every rank; rdispls their packed prefix sums;
                                 scounts/sdispls NULL); every rank's input is the
                                 whole vector SEND[0, scount) (in place: RECV's),
                                 rank r's result RECV[0, rcounts[r]) is the
                                 reduction of block r of the vector, elements
                                 [rdispls[r], rdispls[r] + rcounts[r])
                                 (reduce_scatter) */
    int vroot;                /* with vcounts: one block per rank between the root and
                                 every rank (TC_VROOT_*): RECV's vector at the root
                                 (gatherv) or SEND's (scatterv) */
    int synchronizes;         /* moves no data; no rank may leave before every
                                 rank has entered (barrier): the verifier proves
                                 it over the schedule's messages and flag waits */
    tc_coll_prefix prefix;    /* a reduction over a prefix of the ranks (scan, exscan) */
} tc_coll_desc;

/* tc_coll_desc.vroot: which side of a rooted per-rank collective holds the
 * vector (the other side is one block, SEND[0, scount] / RECV[0, rcount]). */
enum { TC_VROOT_NONE = 0, TC_VROOT_GATHER = 1, TC_VROOT_SCATTER = 2 };

/* The descriptor of a collective; NULL when unknown. */
const tc_coll_desc *tc_coll_desc_of(topocoll_coll coll);

/* Does `at` hold at rank `rank` (root: the root)? */
int tc_coll_at(tc_coll_ranks at, int rank, int root);
/* May this rank pass MPI_IN_PLACE (in the argument d->in_place.arg)? */
int tc_coll_in_place_allowed(const tc_coll_desc *d, int rank, int root);
/* Is argument buf (TC_BUF_SEND / TC_BUF_RECV) significant at this rank,
 * given whether it passed MPI_IN_PLACE where allowed (in_place)? */
int tc_coll_significant(const tc_coll_desc *d, int buf, int rank, int root, int in_place);
/* Must SEND and RECV be separate buffers at this rank?  MPI forbids their
 * overlap wherever both are significant (the one way to share them is
 * MPI_IN_PLACE, which takes one away): 1 there, else 0.  The API rejects
 * identical addresses of non-empty buffers (MPI_ERR_BUFFER), the check
 * MPICH makes too. */
int tc_coll_separate_buffers(const tc_coll_desc *d, int rank, int root, int in_place);

/* Is the collective element-wise (one count, every rank's data one block,
 * result unit i made of input units i only: bcast, reduce, allreduce)?  Then
 * a call is the same call on consecutive element ranges, one after another. */
int tc_coll_elementwise(const tc_coll_desc *d);

/* The ranks [*lo, *hi) a reduction's result unit combines at rank r (the
 * prefix ones: [0, r + 1) or [0, r); the others: [0, p)). */
void tc_coll_contributors(const tc_coll_desc *d, int rank, int size, int *lo, int *hi);

/* Element count of a size / offset for a->rank's view of the arguments a. */
int64_t tc_coll_size_elems(tc_coll_size s, const tc_args *a, int rank);
int64_t tc_coll_pos_elems(tc_coll_pos o, const tc_args *a, int rank);

/* Normalisation: a->coll, rank, size, root and in_place are set (in_place
 * only where allowed); the user's counts of SEND and RECV (one_count: the
 * same count twice) and the byte size of one RECV element (used where the
 * schedule counts bytes) give a->scount and a->rcount. */
void tc_coll_normalize(const tc_coll_desc *d, tc_args *a, int64_t user_scount,
                       int64_t user_rcount, int64_t recv_elem_bytes);

/* Buffers of rank `rank` for the normalised a: elements of SEND and RECV and,
 * where this rank is in place, which buffer is a view of which from what
 * element (alias_from -1: none). */
typedef struct tc_coll_layout {
    int64_t elems[2];
    int alias_from, alias_to;
    int64_t alias_off;
} tc_coll_layout;

tc_coll_layout tc_coll_layout_of(const tc_coll_desc *d, const tc_args *a, int rank);

#endif
