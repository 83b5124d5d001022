/*
 * reduce family "shm_tiled:tiles=T,tile=S" (one node, any root): the tiled
 * reduction of Li, Hoefler, Snir, "NUMA-Aware Shared-Memory Collective
 * Communication for MPI" (2013), section 3.2, as a rooted reduce, with
 * processes instead of threads (copy-in: src/algo/shm_common.h).
 *
 * Steps: 1. every rank copies its vector into its slot of the node-shared
 *   buffer; a barrier (every rank raises every other rank's flag and waits
 *   for theirs).  2. Every rank reduces its own tiles across all
 *   contributions, in rank order ("x_r op acc" from the last rank down),
 *   into the last rank's slot, which so becomes the result, and raises the
 *   root's flag.  3. The root waits for every other rank's flag and copies
 *   the result to its receive buffer.
 *   tiles=naive: one contiguous tile per rank, in rank order (no tile size);
 *   tiles=cyclic: tiles of S elements dealt round-robin over the ranks.
 *   Rank order holds for every operation (non-commutative ones too).
 * Cost (p ranks, n elements): n copy-in, (p-1) n / p gamma per rank
 *   (reading p-1 remote tiles per own tile), one barrier of p-1 flags, p-1
 *   flags into the root and n copy-out at the root.
 * Memory: node-shared p n (twice: the halves alternate between calls).
 * Restrictions: every rank on one node, node-shared memory.  The tile size
 *   S counts elements (the schedule does not know the datatype's size).
 * Source: Li, Hoefler, Snir 2013, section 3.2 (tiled reduce: naive and
 *   cyclic tile assignment).
 */
#include <stdio.h>

#include "algo/shm_rooted.h"

#define NSLOTS 1

/* TC_TILE_NAIVE, TC_TILE_CYCLIC: the tile kinds of algo/shm_common.h (via shm_rooted.h). */
static const int64_t tile_sizes[] = { 2048, 16384, 131072 };

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t, int64_t S)
{
    (void)t;
    int p = a->size, me = a->rank;
    tc_region out = tc_reg(TC_BUF_RECV, 0, a->scount);
    if (p == 1 || a->scount == 0) {
        if (me == a->root && !a->in_place) tc_sched_copy(s, tc_reg(TC_BUF_SEND, 0, a->scount), out);
        tc_sched_round(s);
        return 0;
    }
    tc_shm_layout(s, a, NSLOTS);
    int in = a->in_place && me == a->root ? TC_BUF_RECV : TC_BUF_SEND;   /* in place: the root's */
    tc_sched_copy(s, tc_reg(in, 0, a->scount), tc_shm_slot_all(a, NSLOTS, me, 0));
    tc_shm_barrier(s, a);
    int64_t lo, hi;
    for (int k = 0; tc_shm_tile(a, S > 0 ? TC_TILE_CYCLIC : TC_TILE_NAIVE, S, me, p, k, &lo, &hi); k++)
        for (int r = p - 2; r >= 0; r--)
            tc_sched_reduce(s, tc_shm_slot(a, NSLOTS, r, 0, lo, hi - lo), tc_shm_slot(a, NSLOTS, p - 1, 0, lo, hi - lo));
    if (me != a->root) {
        tc_sched_signal(s, a->root);
        tc_sched_round(s);
        return 0;
    }
    for (int q = 0; q < p; q++)
        if (q != me) tc_sched_wait(s, q);
    tc_sched_round(s);
    tc_sched_copy(s, tc_shm_slot_all(a, NSLOTS, p - 1, 0), out);
    tc_sched_round(s);
    return 0;
}

/* ---- the family's catalog row ---------------------------------------------- */

enum { P_TILES, P_TILE };
static const char *const tiles_values[] = { "naive", "cyclic", NULL };
static const char *const tile_values[] = { "2k", "16k", "128k", NULL };
static const tc_param_def params[] = {
    { "tiles", tiles_values, TC_TILE_NAIVE },
    { "tile", tile_values, 1 },
};

static const char *invalid(const int *v)
{
    return v[P_TILES] == TC_TILE_NAIVE && v[P_TILE] != 1 ? "tiles=naive has one tile per rank (no tile size)" : NULL;
}

static void describe(const tc_family *f, const int *v, tc_instance_text *out)
{
    (void)f;
    if (v[P_TILES] == TC_TILE_NAIVE) {
        snprintf(out->alias, sizeof out->alias, "shm_tiled_naive");
        snprintf(out->desc, sizeof out->desc,
                 "shared memory (copy-in), tiled reduce (one contiguous tile per rank), the root copies out");
        return;
    }
    snprintf(out->alias, sizeof out->alias, "shm_tiled_cyclic_%s", tile_values[v[P_TILE]]);
    snprintf(out->desc, sizeof out->desc,
             "shared memory (copy-in), tiled reduce (tiles of %s elements dealt round-robin), the root copies out",
             tile_values[v[P_TILE]]);
}

static int family_generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    const int *v = a->param;
    return generate(s, a, t, v[P_TILES] == TC_TILE_NAIVE ? 0 : tile_sizes[v[P_TILE]]);
}

const tc_family tc_reduce_shm_tiled = {
    .coll = TOPOCOLL_REDUCE, .name = "shm_tiled",
    .summary = "node-shared memory (copy-in): every rank reduces its tiles across all contributions, "
               "the root copies the result (naive, cyclic; Li, Hoefler, Snir 2013)",
    .source = __FILE__, .nparams = 2, .params = params, .invalid = invalid,
    .rule = "tiles=naive takes no tile size (tile=16k)",
    .describe = describe, .req = TC_REQ_NODE_SHM | TC_REQ_ONE_NODE, .generate = family_generate,
};
