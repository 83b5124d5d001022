/*
 * allreduce family "shm_tiled:tiles=T,tile=S,copy=C" (one node): the tiled
 * reduction of Li, Hoefler, Snir, "NUMA-Aware Shared-Memory Collective
 * Communication for MPI" (2013), section 3.2, with processes instead of
 * threads.  This file is copy=in (shm_common.h); copy=cma, the single-copy
 * form that reads the peers' own buffers (every tile assignment), is
 * shm_tiled_cma.c.
 *
 * Steps: 1. every rank copies its vector into its slot of the node-shared
 *   buffer; a barrier (every rank raises every other rank's flag and waits
 *   for theirs).  2. Every rank reduces its own tiles across all
 *   contributions, in rank order ("x_r op acc" from the last rank down), into
 *   the last rank's slot, which so becomes the result; a barrier.  3. Every
 *   rank copies the result to its receive buffer.
 *   tiles=naive: one contiguous tile per rank, in rank order (tile size
 *     ignored); tiles=cyclic: tiles of S elements dealt round-robin over the
 *     ranks; tiles=hier: tiles of S elements dealt round-robin inside each
 *     socket, whose ranks reduce their socket's contributions into the
 *     socket's last slot (memory of that socket), then a binomial tree
 *     across the sockets (a barrier per level) combines the sockets'
 *     partials tile by tile into the last socket's last slot.
 *   A non-commutative operation (or one socket) makes hier one group of all
 *   ranks in rank order.  Every result element is computed once: all ranks
 *   hold bitwise-identical results.
 * Cost (p ranks, n elements): n copy-in, (p-1) n / p gamma per rank
 *   (reading p-1 remote tiles per own tile), n copy-out, two barriers of
 *   p-1 flags (hier: one more per tree level across sockets).
 * Memory: node-shared p n (twice: the halves alternate between calls).
 * Restrictions: every rank on one node, node-shared memory.  The tile size
 *   S counts elements (the schedule does not know the datatype's size).
 * Source: Li, Hoefler, Snir 2013, section 3.2 (tiled reduce: naive, cyclic
 *   and hierarchical tile assignment).
 */
#include <stdio.h>

#include "algo/allreduce/shm_common.h"

#define NSLOTS 1

static const int64_t tile_sizes[] = { 256, 2048, 16384, 131072 };

/* Step 2 in group grp: this rank's tiles over the group's contributions. */
static void reduce_group(tc_sched *s, const tc_args *a, const ar_groups *g, int grp, int idx, int kind, int64_t S)
{
    int m = ar_group_size(g, grp);
    const int *M = ar_group_members(g, grp);
    int64_t lo, hi;
    for (int k = 0; ar_tile(a, kind, S, idx, m, k, &lo, &hi); k++)
        for (int r = m - 2; r >= 0; r--)
            tc_sched_reduce(s, ar_slot(a, NSLOTS, M[r], 0, lo, hi - lo), ar_slot(a, NSLOTS, M[m - 1], 0, lo, hi - lo));
    ar_barrier(s, a);
}

/* hier: the binomial tree across the groups' last slots, tile by tile. */
static void reduce_across(tc_sched *s, const tc_args *a, const ar_groups *g, int grp, int idx, int64_t S)
{
    int ng = g->ng, m = ar_group_size(g, grp), j = ng - 1 - grp;
    int me_last = ar_group_members(g, grp)[m - 1];
    for (int stride = 1; stride < ng; stride *= 2) {
        if (j % (2 * stride) == 0 && j + stride < ng) {
            int c = ng - 1 - (j + stride);
            int child_last = ar_group_members(g, c)[ar_group_size(g, c) - 1];
            int64_t lo, hi;
            for (int k = 0; ar_tile(a, T_CYCLIC, S, idx, m, k, &lo, &hi); k++)
                tc_sched_reduce(s, ar_slot(a, NSLOTS, child_last, 0, lo, hi - lo),
                                ar_slot(a, NSLOTS, me_last, 0, lo, hi - lo));
        }
        ar_barrier(s, a);
    }
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t, int kind, int64_t S)
{
    if (a->size == 1) {
        if (!a->in_place) tc_sched_copy(s, tc_reg(TC_BUF_SEND, 0, a->scount), tc_reg(TC_BUF_RECV, 0, a->scount));
        tc_sched_round(s);
        return 0;
    }
    ar_shm_layout(s, a, NSLOTS);
    ar_groups g;
    if (kind == T_HIER) {
        g = ar_groups_of(a, t);
    } else {
        g.ng = 1;
        g.start = t->node_start;
        g.ranks = t->node_ranks;
    }
    int grp, idx;
    ar_group_find(&g, a->rank, &grp, &idx);
    ar_copy_in(s, a, NSLOTS);
    ar_barrier(s, a);
    reduce_group(s, a, &g, grp, idx, kind, S);
    if (g.ng > 1) reduce_across(s, a, &g, grp, idx, S);
    int last = g.ng - 1, R = ar_group_members(&g, last)[ar_group_size(&g, last) - 1];
    tc_sched_copy(s, ar_slot_all(a, NSLOTS, R, 0), tc_reg(TC_BUF_RECV, 0, a->scount));
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
    { "tiles", tiles_values, T_CYCLIC },
    { "tile", tile_values, 1 },
    { "copy", copy_values, COPY_IN },
};
/* copy outermost: the copy-in instances first, in their old order */
static const int order[] = { P_COPY, P_TILES, P_TILE };

static const char *invalid(const int *v)
{
    return v[P_TILES] == T_NAIVE && v[P_TILE] != 1 ? "tiles=naive has one tile per rank (no tile size)" : NULL;
}

static void describe_cma(const int *v, tc_instance_text *out)
{
    out->source = "src/algo/allreduce/shm_tiled_cma.c";
    if (v[P_TILES] == T_NAIVE) {
        snprintf(out->alias, sizeof out->alias, "shm_tiled_naive_cma");
        snprintf(out->desc, sizeof out->desc,
                 "single copy (process_vm_readv), tiled reduce: one contiguous tile per rank");
        return;
    }
    snprintf(out->alias, sizeof out->alias, "shm_tiled_%s_%s_cma", tiles_values[v[P_TILES]], tile_values[v[P_TILE]]);
    snprintf(out->desc, sizeof out->desc, "single copy (process_vm_readv), tiled reduce: tiles of %s elements dealt %s",
             tile_values[v[P_TILE]],
             v[P_TILES] == T_CYCLIC ? "round-robin over the ranks"
                                    : "round-robin inside each socket, binomial tree across sockets");
}

static void describe(const tc_family *f, const int *v, tc_instance_text *out)
{
    (void)f;
    if (v[P_COPY] == COPY_CMA) {
        describe_cma(v, out);
        return;
    }
    if (v[P_TILES] == T_NAIVE) {
        snprintf(out->alias, sizeof out->alias, "shm_tiled_naive");
        snprintf(out->desc, sizeof out->desc,
                 "shared memory (copy-in), tiled reduce: one contiguous tile per rank");
        return;
    }
    snprintf(out->alias, sizeof out->alias, "shm_tiled_%s_%s", tiles_values[v[P_TILES]], tile_values[v[P_TILE]]);
    snprintf(out->desc, sizeof out->desc,
             "shared memory (copy-in), tiled reduce: tiles of %s elements dealt %s",
             tile_values[v[P_TILE]],
             v[P_TILES] == T_CYCLIC ? "round-robin over the ranks"
                                    : "round-robin inside each socket, binomial tree across sockets");
}

static int family_generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    const int *v = a->param;
    if (v[P_COPY] == COPY_CMA) return ar_tiled_cma(s, a, t, v[P_TILES], tile_sizes[v[P_TILE]]);
    return generate(s, a, t, v[P_TILES], tile_sizes[v[P_TILE]]);
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
