/* The collective descriptors (see desc.h): one row per collective. */
#include "coll/desc.h"

#include <stddef.h>

#define SIZE(at, cnt, p) { TC_AT_##at, TC_COUNT_##cnt, p }
#define NO_SIZE { TC_AT_NONE, TC_COUNT_S, 0 }
#define POS(index, cnt) { TC_INDEX_##index, TC_COUNT_##cnt }
#define NO_IN_PLACE { TC_AT_NONE, TC_BUF_SEND, POS(ZERO, S), NO_SIZE, NO_SIZE }

/* The details of each collective (desc.h), DESC_<UPPER> for the row UPPER
 * of the list (include/topocoll_colls.h); the row gives .coll, .name and
 * .env. */

#define DESC_ALLGATHER \
    .same_signature = 1, \
    .arg = { { SIZE(ALL, S, 0), 0 }, { SIZE(ALL, R, 1), 0 } }, \
    .in_place = { TC_AT_ALL, TC_BUF_SEND, POS(RANK, R), SIZE(ALL, R, 0), NO_SIZE }, \
    .tmp_like = TC_BUF_RECV, \
    .input = { TC_BUF_SEND, TC_AT_ALL, 0, TC_INDEX_RANK }, \
    .result = { TC_AT_ALL, 1, TC_IDS_SAME }

#define DESC_BCAST \
    .rooted = 1, .counts_bytes = 1, .one_count = 1, \
    .arg = { { NO_SIZE, 0 }, { SIZE(ALL, R, 0), 0 } }, \
    .in_place = NO_IN_PLACE, \
    .tmp_like = TC_BUF_RECV, \
    .input = { TC_BUF_RECV, TC_AT_ROOT, 0, TC_INDEX_ZERO }, \
    .result = { TC_AT_ALL, 0, TC_IDS_SAME }

#define DESC_SCATTER \
    .rooted = 1, .same_signature = 1, \
    .arg = { { SIZE(ROOT, S, 1), 0 }, { SIZE(ALL, R, 0), 0 } }, \
    .in_place = { TC_AT_ROOT, TC_BUF_RECV, POS(ROOT, S), SIZE(ALL, S, 0), NO_SIZE }, \
    .tmp_like = TC_BUF_RECV, \
    .input = { TC_BUF_SEND, TC_AT_ROOT, 1, TC_INDEX_ZERO }, \
    .result = { TC_AT_ALL, 0, TC_IDS_RANK_BLOCK }

#define DESC_GATHER \
    .rooted = 1, .same_signature = 1, \
    .arg = { { SIZE(ALL, S, 0), 0 }, { SIZE(ROOT, R, 1), 0 } }, \
    .in_place = { TC_AT_ROOT, TC_BUF_SEND, POS(ROOT, R), SIZE(ALL, R, 0), NO_SIZE }, \
    .tmp_like = TC_BUF_SEND, \
    .input = { TC_BUF_SEND, TC_AT_ALL, 0, TC_INDEX_RANK }, \
    .result = { TC_AT_ROOT, 1, TC_IDS_SAME }

#define DESC_REDUCE \
    .rooted = 1, .reduction = 1, .one_count = 1, \
    .arg = { { SIZE(ALL, S, 0), 0 }, { SIZE(ROOT, R, 0), 0 } }, \
    .in_place = { TC_AT_ROOT, TC_BUF_SEND, POS(ZERO, R), SIZE(ALL, R, 0), NO_SIZE }, \
    .tmp_like = TC_BUF_SEND, \
    .input = { TC_BUF_SEND, TC_AT_ALL, 0, TC_INDEX_ZERO }, \
    .result = { TC_AT_ROOT, 0, TC_IDS_SAME }

#define DESC_REDUCE_SCATTER_BLOCK \
    .reduction = 1, .one_count = 1, \
    .arg = { { SIZE(ALL, R, 1), 1 }, { SIZE(ALL, R, 0), 0 } }, \
    .in_place = { TC_AT_ALL, TC_BUF_SEND, POS(ZERO, R), SIZE(ALL, R, 1), SIZE(ALL, R, 1) }, \
    .tmp_like = TC_BUF_SEND, \
    .input = { TC_BUF_SEND, TC_AT_ALL, 1, TC_INDEX_ZERO }, \
    .result = { TC_AT_ALL, 0, TC_IDS_RANK_BLOCK }

#define DESC_ALLTOALL \
    .same_signature = 1, \
    .arg = { { SIZE(ALL, S, 1), 0 }, { SIZE(ALL, R, 1), 0 } }, \
    .in_place = { TC_AT_ALL, TC_BUF_SEND, POS(ZERO, R), SIZE(ALL, R, 1), NO_SIZE }, \
    .tmp_like = TC_BUF_RECV, \
    .input = { TC_BUF_SEND, TC_AT_ALL, 1, TC_INDEX_RANK }, \
    .result = { TC_AT_ALL, 1, TC_IDS_TRANSPOSED }

#define DESC_ALLTOALLV \
    .arg = { { SIZE(ALL, S, 1), 0 }, { SIZE(ALL, R, 1), 0 } }, \
    .in_place = { TC_AT_ALL, TC_BUF_SEND, POS(ZERO, R), SIZE(ALL, R, 1), NO_SIZE }, \
    .tmp_like = TC_BUF_RECV, \
    .input = { TC_BUF_SEND, TC_AT_ALL, 1, TC_INDEX_RANK }, \
    .result = { TC_AT_ALL, 1, TC_IDS_TRANSPOSED }, \
    .vcounts = 1

#define DESC_ALLREDUCE \
    .reduction = 1, .one_count = 1, \
    .arg = { { SIZE(ALL, S, 0), 0 }, { SIZE(ALL, R, 0), 0 } }, \
    .in_place = { TC_AT_ALL, TC_BUF_SEND, POS(ZERO, R), SIZE(ALL, R, 0), NO_SIZE }, \
    .tmp_like = TC_BUF_SEND, \
    .input = { TC_BUF_SEND, TC_AT_ALL, 0, TC_INDEX_ZERO }, \
    .result = { TC_AT_ALL, 0, TC_IDS_SAME }

#define DESC_ALLGATHERV \
    .arg = { { SIZE(ALL, S, 0), 0 }, { SIZE(ALL, R, 1), 0 } }, \
    .in_place = { TC_AT_ALL, TC_BUF_SEND, POS(RANK, R), SIZE(ALL, R, 0), NO_SIZE }, \
    .tmp_like = TC_BUF_RECV, \
    .input = { TC_BUF_SEND, TC_AT_ALL, 0, TC_INDEX_RANK }, \
    .result = { TC_AT_ALL, 1, TC_IDS_SAME }, \
    .vcounts = 1, .vblock = 1

/* No data: the schedules synchronise (desc.h, `synchronizes`). */
#define DESC_BARRIER \
    .arg = { { NO_SIZE, 0 }, { NO_SIZE, 0 } }, \
    .in_place = NO_IN_PLACE, \
    .tmp_like = TC_BUF_RECV, \
    .input = { TC_BUF_SEND, TC_AT_NONE, 0, TC_INDEX_ZERO }, \
    .result = { TC_AT_NONE, 0, TC_IDS_SAME }, \
    .synchronizes = 1

/* normalised as reduce_scatter_block (p blocks of rcount); with vectors the
 * call path sets scount to the vector, rcount to the largest block */
#define DESC_REDUCE_SCATTER \
    .reduction = 1, .one_count = 1, \
    .arg = { { SIZE(ALL, R, 1), 1 }, { SIZE(ALL, R, 0), 0 } }, \
    .in_place = { TC_AT_ALL, TC_BUF_SEND, POS(ZERO, R), SIZE(ALL, R, 1), SIZE(ALL, R, 1) }, \
    .tmp_like = TC_BUF_SEND, \
    .input = { TC_BUF_SEND, TC_AT_ALL, 1, TC_INDEX_ZERO }, \
    .result = { TC_AT_ALL, 0, TC_IDS_RANK_BLOCK }, \
    .vcounts = 1, .vsplit = 1

#define DESC_GATHERV \
    .rooted = 1, \
    .arg = { { SIZE(ALL, S, 0), 0 }, { SIZE(ROOT, R, 1), 0 } }, \
    .in_place = { TC_AT_ROOT, TC_BUF_SEND, POS(ROOT, R), SIZE(ALL, R, 0), NO_SIZE }, \
    .tmp_like = TC_BUF_SEND, \
    .input = { TC_BUF_SEND, TC_AT_ALL, 0, TC_INDEX_RANK }, \
    .result = { TC_AT_ROOT, 1, TC_IDS_SAME }, \
    .vcounts = 1, .vroot = TC_VROOT_GATHER

#define DESC_SCATTERV \
    .rooted = 1, \
    .arg = { { SIZE(ROOT, S, 1), 0 }, { SIZE(ALL, R, 0), 0 } }, \
    .in_place = { TC_AT_ROOT, TC_BUF_RECV, POS(ROOT, S), SIZE(ALL, S, 0), NO_SIZE }, \
    .tmp_like = TC_BUF_RECV, \
    .input = { TC_BUF_SEND, TC_AT_ROOT, 1, TC_INDEX_ZERO }, \
    .result = { TC_AT_ALL, 0, TC_IDS_RANK_BLOCK }, \
    .vcounts = 1, .vroot = TC_VROOT_SCATTER

#define DESC_SCAN \
    .reduction = 1, .one_count = 1, \
    .arg = { { SIZE(ALL, S, 0), 0 }, { SIZE(ALL, R, 0), 0 } }, \
    .in_place = { TC_AT_ALL, TC_BUF_SEND, POS(ZERO, R), SIZE(ALL, R, 0), NO_SIZE }, \
    .tmp_like = TC_BUF_SEND, \
    .input = { TC_BUF_SEND, TC_AT_ALL, 0, TC_INDEX_ZERO }, \
    .result = { TC_AT_ALL, 0, TC_IDS_SAME }, \
    .prefix = TC_PREFIX_INCLUSIVE

/* rank 0's receive buffer is left untouched (prefix: the verifier expects
 * no result there) */
#define DESC_EXSCAN \
    .reduction = 1, .one_count = 1, \
    .arg = { { SIZE(ALL, S, 0), 0 }, { SIZE(ALL, R, 0), 0 } }, \
    .in_place = { TC_AT_ALL, TC_BUF_SEND, POS(ZERO, R), SIZE(ALL, R, 0), NO_SIZE }, \
    .tmp_like = TC_BUF_SEND, \
    .input = { TC_BUF_SEND, TC_AT_ALL, 0, TC_INDEX_ZERO }, \
    .result = { TC_AT_ALL, 0, TC_IDS_SAME }, \
    .prefix = TC_PREFIX_EXCLUSIVE

/* alltoallw: alltoallv's layout counted in blocks (one element per peer:
 * its part, of its own datatype; src/algo/alltoallw/linear.c). */
#define DESC_ALLTOALLW \
    .arg = { { SIZE(ALL, S, 1), 0 }, { SIZE(ALL, R, 1), 0 } }, \
    .in_place = { TC_AT_ALL, TC_BUF_SEND, POS(ZERO, R), SIZE(ALL, R, 1), NO_SIZE }, \
    .tmp_like = TC_BUF_RECV, \
    .input = { TC_BUF_SEND, TC_AT_ALL, 1, TC_INDEX_RANK }, \
    .result = { TC_AT_ALL, 1, TC_IDS_TRANSPOSED }, \
    .vcounts = 1

#define DESC_ROW(UPPER, lower, Mpi, SHAPE) \
    [TOPOCOLL_##UPPER] = { .coll = TOPOCOLL_##UPPER, .name = #lower, .env = "TOPOCOLL_" #UPPER, DESC_##UPPER },

static const tc_coll_desc descs[TOPOCOLL_NCOLL] = { TOPOCOLL_COLLS(DESC_ROW) };

const tc_coll_desc *tc_coll_desc_of(topocoll_coll coll)
{
    return (int)coll >= 0 && coll < TOPOCOLL_NCOLL ? &descs[coll] : NULL;
}

int tc_coll_at(tc_coll_ranks at, int rank, int root)
{
    return at == TC_AT_ALL || (at == TC_AT_ROOT && rank == root);
}

int tc_coll_in_place_allowed(const tc_coll_desc *d, int rank, int root)
{
    return tc_coll_at(d->in_place.at, rank, root);
}

int tc_coll_significant(const tc_coll_desc *d, int buf, int rank, int root, int in_place)
{
    if (!tc_coll_at(d->arg[buf].size.at, rank, root)) return 0;
    return !(in_place && buf == d->in_place.arg && tc_coll_in_place_allowed(d, rank, root));
}

void tc_coll_contributors(const tc_coll_desc *d, int rank, int size, int *lo, int *hi)
{
    *lo = 0;
    *hi = d->prefix == TC_PREFIX_INCLUSIVE ? rank + 1 : d->prefix == TC_PREFIX_EXCLUSIVE ? rank : size;
}

int tc_coll_elementwise(const tc_coll_desc *d)
{
    return d->one_count && !d->vcounts && !d->input.blocks_p && !d->result.blocks_p &&
           d->result.ids == TC_IDS_SAME;
}

int tc_coll_separate_buffers(const tc_coll_desc *d, int rank, int root, int in_place)
{
    return tc_coll_significant(d, TC_BUF_SEND, rank, root, in_place) &&
           tc_coll_significant(d, TC_BUF_RECV, rank, root, in_place);
}

static int64_t count_of(tc_coll_count c, const tc_args *a)
{
    return c == TC_COUNT_S ? a->scount : a->rcount;
}

int64_t tc_coll_size_elems(tc_coll_size s, const tc_args *a, int rank)
{
    if (!tc_coll_at(s.at, rank, a->root)) return 0;
    return count_of(s.count, a) * (s.times_p ? a->size : 1);
}

int64_t tc_coll_pos_elems(tc_coll_pos o, const tc_args *a, int rank)
{
    int64_t index = o.index == TC_INDEX_RANK ? rank : o.index == TC_INDEX_ROOT ? a->root : 0;
    return index * count_of(o.count, a);
}

void tc_coll_normalize(const tc_coll_desc *d, tc_args *a, int64_t user_scount,
                       int64_t user_rcount, int64_t recv_elem_bytes)
{
    int64_t user[2] = { user_scount, user_rcount }, *out[2] = { &a->scount, &a->rcount };
    for (int b = TC_BUF_SEND; b <= TC_BUF_RECV; b++) {
        const tc_coll_arg *g = &d->arg[b];
        int64_t n = 0;
        if (g->size.at != TC_AT_NONE) {
            n = tc_coll_significant(d, b, a->rank, a->root, a->in_place) ? user[b] : user[1 - b];
            if (g->norm_times_p) n *= a->size;
            if (d->counts_bytes) n *= recv_elem_bytes;
        }
        *out[b] = n;
    }
}

/* Elements a buffer described per peer must hold: the furthest part's end. */
static int64_t vspan(const int64_t *counts, const int64_t *displs, int p)
{
    int64_t end = 0;
    for (int j = 0; counts && j < p; j++)
        if (counts[j] > 0 && displs[j] + counts[j] > end) end = displs[j] + counts[j];
    return end;
}

/* One block per rank (allgatherv): SEND is the own block (in place: RECV's
 * block `rank`); without vectors (the simulator) every block rcount. */
static tc_coll_layout vblock_layout(const tc_args *a, int rank)
{
    tc_coll_layout l;
    const tc_vcounts *v = a->v;
    l.elems[TC_BUF_RECV] = v ? vspan(v->rcounts, v->rdispls, a->size) : a->rcount * a->size;
    l.elems[TC_BUF_SEND] = a->in_place ? (v ? v->rcounts[rank] : a->rcount) : a->scount;
    l.alias_from = a->in_place ? TC_BUF_SEND : -1;
    l.alias_to = a->in_place ? TC_BUF_RECV : -1;
    l.alias_off = a->in_place ? (v ? v->rdispls[rank] : (int64_t)rank * a->rcount) : 0;
    return l;
}

/* One block per rank between the root and every rank (desc vroot): the
 * root's vector side spans its furthest part (without vectors, the
 * simulator: p blocks of the largest count), every rank's other side is its
 * own block; in place, the root's own block is the vector's block `root`. */
static tc_coll_layout vroot_layout(const tc_coll_desc *d, const tc_args *a, int rank)
{
    tc_coll_layout l;
    const tc_vcounts *v = a->v;
    int vec = d->vroot == TC_VROOT_GATHER ? TC_BUF_RECV : TC_BUF_SEND, own = 1 - vec;
    const int64_t *cnt = !v ? NULL : vec == TC_BUF_RECV ? v->rcounts : v->scounts;
    const int64_t *dsp = !v ? NULL : vec == TC_BUF_RECV ? v->rdispls : v->sdispls;
    int64_t most = vec == TC_BUF_RECV ? a->rcount : a->scount;
    int at_root = rank == a->root, ip = at_root && a->in_place;
    l.elems[vec] = !at_root ? 0 : cnt ? vspan(cnt, dsp, a->size) : most * a->size;
    l.elems[own] = ip ? (cnt ? cnt[rank] : most) : own == TC_BUF_SEND ? a->scount : a->rcount;
    l.alias_from = ip ? own : -1;
    l.alias_to = ip ? vec : -1;
    l.alias_off = ip ? (dsp ? dsp[rank] : (int64_t)rank * most) : 0;
    return l;
}

static tc_coll_layout vlayout(const tc_args *a)
{
    tc_coll_layout l;
    const tc_vcounts *v = a->v;
    int in_place = a->in_place;
    /* without per-peer counts (the simulator): every part scount / rcount */
    l.elems[TC_BUF_RECV] = v ? vspan(v->rcounts, v->rdispls, a->size) : a->rcount * a->size;
    l.elems[TC_BUF_SEND] = in_place ? l.elems[TC_BUF_RECV]
                         : v ? vspan(v->scounts, v->sdispls, a->size) : a->scount * a->size;
    l.alias_from = in_place ? TC_BUF_SEND : -1;
    l.alias_to = in_place ? TC_BUF_RECV : -1;
    l.alias_off = 0;
    return l;
}

/* The vector split among the ranks (reduce_scatter): SEND the whole vector
 * (in place: RECV holds it, the result from element 0), RECV the own block. */
static tc_coll_layout vsplit_layout(const tc_args *a, int rank)
{
    tc_coll_layout l;
    const tc_vcounts *v = a->v;
    int64_t total = v ? v->rdispls[a->size - 1] + v->rcounts[a->size - 1] : a->rcount * a->size;
    l.elems[TC_BUF_SEND] = total;
    l.elems[TC_BUF_RECV] = a->in_place ? total : v ? v->rcounts[rank] : a->rcount;
    l.alias_from = a->in_place ? TC_BUF_SEND : -1;
    l.alias_to = a->in_place ? TC_BUF_RECV : -1;
    l.alias_off = 0;
    return l;
}

tc_coll_layout tc_coll_layout_of(const tc_coll_desc *d, const tc_args *a, int rank)
{
    tc_coll_layout l;
    const tc_coll_in_place *ip = &d->in_place;
    if (d->vblock) return vblock_layout(a, rank);
    if (d->vsplit) return vsplit_layout(a, rank);
    if (d->vroot) return vroot_layout(d, a, rank);
    if (d->vcounts) return vlayout(a);
    l.elems[TC_BUF_SEND] = tc_coll_size_elems(d->arg[TC_BUF_SEND].size, a, rank);
    l.elems[TC_BUF_RECV] = tc_coll_size_elems(d->arg[TC_BUF_RECV].size, a, rank);
    l.alias_from = l.alias_to = -1;
    l.alias_off = 0;
    if (!a->in_place || !tc_coll_in_place_allowed(d, rank, a->root)) return l;
    l.alias_from = ip->arg;
    l.alias_to = 1 - ip->arg;
    l.alias_off = tc_coll_pos_elems(ip->offset, a, rank);
    l.elems[l.alias_from] = tc_coll_size_elems(ip->view, a, rank);
    if (ip->other.at != TC_AT_NONE) l.elems[l.alias_to] = tc_coll_size_elems(ip->other, a, rank);
    return l;
}
