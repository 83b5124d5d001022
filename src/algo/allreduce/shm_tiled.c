/*
 * allreduce family "shm_tiled:tiles=T,tile=S,copy=C" (one node): the tiled
 * reduction of Li, Hoefler, Snir, "NUMA-Aware Shared-Memory Collective
 * Communication for MPI" (2013), section 3.2, with processes instead of
 * threads.  copy=in goes through the node-shared window (algo/shm_common.h);
 * copy=cma is the single-copy form: where the paper's threads read each
 * other's vectors, the ranks read their peers' own buffers with Linux
 * cross-memory attach (process_vm_readv, the RREAD op of sched/sched.h).
 *
 * Steps (the groups of shm_common.h: tiles=hier with a commutative
 *   operation on several sockets, one group per socket, else one group of
 *   every rank in rank order; tiles: tc_shm_tile):
 *   1. copy=in: every rank copies its vector into its slot of the
 *      node-shared buffer; copy=cma: nothing (the executor publishes the
 *      buffers before round 0).  A barrier (every rank raises every other
 *      rank's flag and waits for theirs).
 *   2. Every rank reduces its own tiles over its group's contributions:
 *      acc = x_{m-1}; then for r = m-2 down to 0, acc = x_r op acc (the
 *      group's members M[0..m-1]).  copy=in: acc is the last member's slot,
 *      which so becomes the group's result.  copy=cma: chunk by chunk of at
 *      most TC_SHM_CHUNK elements, a peer's x_r read from its input (SEND;
 *      RECV in place) into a scratch chunk; acc is the own receive buffer's
 *      tile, or (in place, where that tile is still the own input) a scratch
 *      chunk copied there at the end.  A barrier.
 *   3. tiles=hier with several groups: a binomial tree across the groups
 *      (the last group its root), one barrier per level; at a level where
 *      group c is the child of group g, every member of g combines c's
 *      partial of each of its tiles into its own ("child op own").  copy=in:
 *      slot to slot (the groups' last slots); copy=cma: tile T read from the
 *      receive buffer of c's member that owns it (T mod |c|: the groups deal
 *      their tiles alike but may differ in size), chunk by chunk.
 *   4. copy=in: every rank copies the result from the last group's last
 *      slot to its receive buffer.  copy=cma: every rank reads every result
 *      tile it does not hold from its owner's receive buffer into its own
 *      (the last group's members; one group: every other rank); a barrier,
 *      so that no rank returns (and hands its buffers back to the caller)
 *      while a peer still reads them.
 *   tiles=naive: one contiguous tile per rank, in rank order (tile size
 *   ignored); tiles=cyclic: tiles of S elements dealt round-robin over the
 *   ranks; tiles=hier: dealt round-robin inside each socket.  Every result
 *   element is computed once, in one order: all ranks hold bitwise-identical
 *   results, and a non-commutative operation is reduced in rank order.
 *   copy=cma: a receive buffer is overwritten by step 4 only after the
 *   barrier that ends the last read of its partials.
 * Cost (p ranks, n elements): (p-1) n / p gamma per rank and two barriers of
 *   p-1 flags (hier: one more per tree level across sockets); copy=in n
 *   copy-in and n copy-out, reading p-1 remote tiles per own tile; copy=cma
 *   no copy-in or copy-out, (p-1) n / p elements read by process_vm_readv in
 *   step 2 and again in step 4, and a third barrier.  tiles=hier on s
 *   sockets of q ranks, copy=cma: step 2 (q-1) n / q read inside the socket,
 *   step 3 ceil(log2 s) levels of n / q read across sockets, step 4 n read.
 * Memory: copy=in node-shared p n (twice: the halves alternate between
 *   calls); copy=cma scratch of min(TC_SHM_CHUNK, tile) elements (in place:
 *   TC_SHM_CHUNK more for the accumulator), no node-shared data (the flags
 *   and the publication lines).
 * Restrictions: every rank on one node, node-shared memory (copy=cma: for
 *   the flags; cross-memory attach available on every rank of the node,
 *   probed when the communicator's context is made, TOPOCOLL_CMA=0 turns it
 *   off; contiguous datatypes, the API declines derived types with holes).
 *   The tile size S counts elements (the schedule does not know the
 *   datatype's size).
 * Source: Li, Hoefler, Snir 2013, section 3.2 (tiled reduce: naive, cyclic
 *   and hierarchical tile assignment; threads reading each other's vectors).
 */
#include <stdio.h>

#include "algo/shm_common.h"

#define NSLOTS 1

static const int64_t tile_sizes[] = { 256, 2048, 16384, 131072 };

static int64_t min64(int64_t x, int64_t y) { return x < y ? x : y; }

/* Step 2 for elements [lo, lo + len) of an own tile (copy=in: a whole tile;
 * copy=cma: one chunk). */
static void reduce_chunk(tc_sched *s, const tc_args *a, const int *M, int m, int64_t lo, int64_t len, int cma)
{
    if (!cma) {   /* the last member's slot accumulates */
        for (int r = m - 2; r >= 0; r--)
            tc_sched_reduce(s, tc_shm_slot(a, NSLOTS, M[r], 0, lo, len), tc_shm_slot(a, NSLOTS, M[m - 1], 0, lo, len));
        return;
    }
    tc_region acc = a->in_place ? tc_reg(TC_BUF_TMP, TC_SHM_CHUNK, len) : tc_reg(TC_BUF_RECV, lo, len);
    tc_shm_reduce_read(s, a, M, m, TC_BUF_SEND, lo, acc, tc_reg(TC_BUF_TMP, 0, len));
}

/* Step 2: this rank's tiles over its group's contributions; a barrier. */
static void reduce_own(tc_sched *s, const tc_args *a, const int *M, int m, int idx, int kind, int64_t S, int cma)
{
    int64_t lo, hi;
    for (int k = 0; tc_shm_tile(a, kind, S, idx, m, k, &lo, &hi); k++) {
        int64_t step = cma ? TC_SHM_CHUNK : hi - lo;
        for (int64_t c = lo; c < hi; c += step) reduce_chunk(s, a, M, m, c, min64(hi - c, step), cma);
    }
    tc_shm_barrier(s, a);
}

/* Step 3, tile [lo, hi) of child group c into this rank's partial. */
static void combine_child_tile(tc_sched *s, const tc_args *a, const tc_shm_groups *g, int grp, int c, int64_t S,
                               int64_t lo, int64_t hi, int cma)
{
    int mc = tc_shm_group_size(g, c);
    const int *C = tc_shm_group_members(g, c);
    if (!cma) {   /* the groups' last slots */
        int me_last = tc_shm_group_members(g, grp)[tc_shm_group_size(g, grp) - 1];
        tc_sched_reduce(s, tc_shm_slot(a, NSLOTS, C[mc - 1], 0, lo, hi - lo), tc_shm_slot(a, NSLOTS, me_last, 0, lo, hi - lo));
        return;
    }
    int owner = C[(lo / S) % mc];   /* the child's member holding the tile */
    for (int64_t x = lo; x < hi; x += TC_SHM_CHUNK) {
        int64_t len = min64(hi - x, TC_SHM_CHUNK);
        tc_sched_rread(s, owner, tc_reg(TC_BUF_RECV, x, len), tc_reg(TC_BUF_TMP, 0, len));
        tc_sched_reduce(s, tc_reg(TC_BUF_TMP, 0, len), tc_reg(TC_BUF_RECV, x, len));
    }
}

/* Step 3 (tiles=hier, several groups): the binomial tree across the groups'
 * partials, tile by tile, one barrier per level. */
static void reduce_across(tc_sched *s, const tc_args *a, const tc_shm_groups *g, int grp, int idx, int64_t S, int cma)
{
    int ng = g->ng, m = tc_shm_group_size(g, grp), j = ng - 1 - grp;
    for (int stride = 1; stride < ng; stride *= 2) {
        if (j % (2 * stride) == 0 && j + stride < ng) {
            int64_t lo, hi;
            for (int k = 0; tc_shm_tile(a, TC_TILE_HIER, S, idx, m, k, &lo, &hi); k++)
                combine_child_tile(s, a, g, grp, ng - 1 - (j + stride), S, lo, hi, cma);
        }
        tc_shm_barrier(s, a);
    }
}

/* Step 4, copy=cma: the result tiles this rank does not hold, from the
 * receive buffers of their owners, the members M[0..m-1] of the last group;
 * a barrier (nobody reads any more). */
static void gather_results(tc_sched *s, const tc_args *a, const int *M, int m, int kind, int64_t S)
{
    for (int j = 0; j < m; j++) {
        if (M[j] == a->rank) continue;
        int64_t lo, hi;
        for (int k = 0; tc_shm_tile(a, kind, S, j, m, k, &lo, &hi); k++)
            tc_sched_rread(s, M[j], tc_reg(TC_BUF_RECV, lo, hi - lo), tc_reg(TC_BUF_RECV, lo, hi - lo));
    }
    tc_shm_barrier(s, a);
}

/* copy=cma scratch: the stage chunk (the largest tile, at most a chunk),
 * and in place the accumulator chunk before it. */
static void need_scratch(tc_sched *s, const tc_args *a, int m, int kind, int64_t S)
{
    int64_t most = min64(kind == TC_TILE_NAIVE ? (a->scount + m - 1) / m : S, TC_SHM_CHUNK);
    s->tmp_like = TC_BUF_SEND;
    tc_sched_need_tmp(s, a->in_place ? TC_SHM_CHUNK + most : most);
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t, int kind, int64_t S, int cma)
{
    if (a->size == 1) {
        if (!a->in_place) tc_sched_copy(s, tc_reg(TC_BUF_SEND, 0, a->scount), tc_reg(TC_BUF_RECV, 0, a->scount));
        tc_sched_round(s);
        return 0;
    }
    tc_shm_groups g;
    if (kind == TC_TILE_HIER) {
        g = tc_shm_groups_of(a, t);
    } else {   /* one group of every rank, in rank order (the family requires one node) */
        g.ng = 1;
        g.start = t->node_start;
        g.ranks = t->node_ranks;
    }
    int grp, idx;
    tc_shm_group_find(&g, a->rank, &grp, &idx);
    const int *M = tc_shm_group_members(&g, grp);
    int m = tc_shm_group_size(&g, grp), last = g.ng - 1;
    if (cma) {
        need_scratch(s, a, m, kind, S);
    } else {
        tc_shm_layout(s, a, NSLOTS);
        tc_shm_copy_in(s, a, NSLOTS);
    }
    tc_shm_barrier(s, a);                         /* 1: copied in, or published */
    reduce_own(s, a, M, m, idx, kind, S, cma);    /* 2: own tiles reduced (in the group) */
    if (g.ng > 1) reduce_across(s, a, &g, grp, idx, S, cma);   /* 3: a barrier per level */
    const int *L = tc_shm_group_members(&g, last);
    int mlast = tc_shm_group_size(&g, last);
    if (cma) {
        gather_results(s, a, L, mlast, kind, S);  /* 4 */
        return 0;
    }
    tc_sched_copy(s, tc_shm_slot_all(a, NSLOTS, L[mlast - 1], 0), tc_reg(TC_BUF_RECV, 0, a->scount));
    tc_sched_round(s);
    return 0;
}

/* ---- the family's catalog row ---------------------------------------------- */

enum { P_TILES, P_TILE, P_COPY };
enum { COPY_IN, COPY_CMA };
static const char *const tiles_values[] = { "naive", "cyclic", "hier", NULL };
static const char *const tile_values[] = { "256", "2k", "16k", "128k", NULL };
static const char *const copy_values[] = { "in", "cma", NULL };
static const tc_param_def params[] = {
    { "tiles", tiles_values, TC_TILE_CYCLIC },
    { "tile", tile_values, 1 },
    { "copy", copy_values, COPY_IN },
};
/* copy outermost: the copy-in instances first, in their old order */
static const int order[] = { P_COPY, P_TILES, P_TILE };

static const char *invalid(const int *v)
{
    return v[P_TILES] == TC_TILE_NAIVE && v[P_TILE] != 1 ? "tiles=naive has one tile per rank (no tile size)" : NULL;
}

static void describe(const tc_family *f, const int *v, tc_instance_text *out)
{
    (void)f;
    int cma = v[P_COPY] == COPY_CMA;
    const char *how = cma ? "single copy (process_vm_readv)" : "shared memory (copy-in)";
    if (v[P_TILES] == TC_TILE_NAIVE) {
        snprintf(out->alias, sizeof out->alias, "shm_tiled_naive%s", cma ? "_cma" : "");
        snprintf(out->desc, sizeof out->desc, "%s, tiled reduce: one contiguous tile per rank", how);
        return;
    }
    snprintf(out->alias, sizeof out->alias, "shm_tiled_%s_%s%s", tiles_values[v[P_TILES]], tile_values[v[P_TILE]],
             cma ? "_cma" : "");
    snprintf(out->desc, sizeof out->desc, "%s, tiled reduce: tiles of %s elements dealt %s", how,
             tile_values[v[P_TILE]],
             v[P_TILES] == TC_TILE_CYCLIC ? "round-robin over the ranks"
                                          : "round-robin inside each socket, binomial tree across sockets");
}

static int family_generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    const int *v = a->param;
    return generate(s, a, t, v[P_TILES], tile_sizes[v[P_TILE]], v[P_COPY] == COPY_CMA);
}

static unsigned req_of(const int *v)
{
    return v[P_COPY] == COPY_CMA ? TC_REQ_CMA : 0;
}

const tc_family tc_allreduce_shm_tiled = {
    .coll = TOPOCOLL_ALLREDUCE, .name = "shm_tiled",
    .summary = "node-shared memory (copy-in) or single copy (copy=cma: process_vm_readv of the "
               "peers' buffers): every rank reduces its tiles across all contributions "
               "(naive, cyclic, hierarchical; Li, Hoefler, Snir 2013)",
    .source = __FILE__, .nparams = 3, .params = params, .order = order, .invalid = invalid,
    .rule = "tiles=naive takes no tile size (tile=2k)",
    .describe = describe, .req = TC_REQ_NODE_SHM | TC_REQ_ONE_NODE, .req_of = req_of,
    .generate = family_generate,
};
