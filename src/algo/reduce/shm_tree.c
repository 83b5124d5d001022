/*
 * reduce family "shm_tree:fanin=F" (one node, any root): the socket-aware
 * tree reduction of Li, Hoefler, Snir, "NUMA-Aware Shared-Memory Collective
 * Communication for MPI" (2013), section 3.1, as a rooted reduce, with
 * processes instead of threads (copy-in: src/algo/allreduce/shm_common.h).
 *
 * Steps: 1. every rank copies its vector into its slot of the node-shared
 *   buffer.  2. Tree reduction with fan-in F inside each socket (the
 *   allreduce "shm_reduce_bcast" tree, src/algo/shm_rooted.h): a parent
 *   waits for its children's flags and combines their slots into its own,
 *   nearest child first; the socket's result ends in its last rank's slot.
 *   3. The same tree across the sockets' last ranks; the result ends in the
 *   last socket's last rank R.  4. R raises every other rank's flag (the
 *   release: no rank returns before every rank has joined, see
 *   shm_rooted.h); the root copies R's slot to its receive buffer.
 *   A non-commutative operation (or one socket) reduces in one group of all
 *   ranks in rank order.
 * Cost (p ranks, s sockets, n elements): n copy-in per rank, the tree's
 *   ceil(log_F(p/s)) + ceil(log_F s) levels of (F-1) n gamma and one flag,
 *   one flag (release) and n copy-out at the root.
 * Memory: node-shared p n (twice: the halves alternate between calls).
 * Restrictions: every rank on one node, node-shared memory.
 * Source: Li, Hoefler, Snir 2013, section 3.1 (reduce tree with fan-in).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "algo/shm_rooted.h"

#define NSLOTS 1

static const int fanins[] = { 2, 4, 8 };

/* Step 3: the tree across the groups' last ranks (this rank is group grp's). */
static int across_groups(tc_sched *s, const tc_args *a, const ar_groups *g, int grp, int F)
{
    int *roots = malloc((size_t)g->ng * sizeof *roots);
    if (!roots) return ENOMEM;
    for (int q = 0; q < g->ng; q++) roots[q] = ar_group_members(g, q)[ar_group_size(g, q) - 1];
    tc_shm_fanin_tree(s, a, NSLOTS, roots, g->ng, grp, F);
    free(roots);
    return 0;
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t, int F)
{
    tc_region out = tc_reg(TC_BUF_RECV, 0, a->scount);
    if (a->size == 1 || a->scount == 0) {
        if (a->rank == a->root && !a->in_place) tc_sched_copy(s, tc_reg(TC_BUF_SEND, 0, a->scount), out);
        tc_sched_round(s);
        return 0;
    }
    ar_shm_layout(s, a, NSLOTS);
    ar_groups g = ar_groups_of(a, t);
    int grp, idx, rc;
    ar_group_find(&g, a->rank, &grp, &idx);
    int in = a->in_place && a->rank == a->root ? TC_BUF_RECV : TC_BUF_SEND;   /* in place: the root's */
    tc_sched_copy(s, tc_reg(in, 0, a->scount), ar_slot_all(a, NSLOTS, a->rank, 0));
    int groot = tc_shm_fanin_tree(s, a, NSLOTS, ar_group_members(&g, grp), ar_group_size(&g, grp), idx, F);
    if (groot && g.ng > 1 && (rc = across_groups(s, a, &g, grp, F)) != 0) return rc;
    int last = g.ng - 1, R = ar_group_members(&g, last)[ar_group_size(&g, last) - 1];
    if (a->rank == R) {   /* the open round holds R's last reduce: release everyone */
        for (int q = 0; q < a->size; q++)
            if (q != R) tc_sched_signal(s, q);
    } else {
        tc_sched_wait(s, R);
    }
    tc_sched_round(s);
    if (a->rank == a->root) tc_sched_copy(s, ar_slot_all(a, NSLOTS, R, 0), out);
    tc_sched_round(s);
    return 0;
}

/* ---- the family's catalog row ---------------------------------------------- */

static const char *const fanin_values[] = { "2", "4", "8", NULL };
static const tc_param_def params[] = {
    { "fanin", fanin_values, 1 },
};

static void describe(const tc_family *f, const int *v, tc_instance_text *out)
{
    (void)f;
    snprintf(out->alias, sizeof out->alias, "shm_tree%s", fanin_values[v[0]]);
    snprintf(out->desc, sizeof out->desc,
             "shared memory (copy-in), socket-aware reduce tree of fan-in %s, the root copies out",
             fanin_values[v[0]]);
}

static int family_generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    const int *v = a->param;
    return generate(s, a, t, fanins[v[0]]);
}

const tc_family tc_reduce_shm_tree = {
    .coll = TOPOCOLL_REDUCE, .name = "shm_tree",
    .summary = "node-shared memory (copy-in): socket-aware fan-in reduce tree, any root "
               "(Li, Hoefler, Snir 2013)",
    .source = __FILE__, .nparams = 1, .params = params, .rule = "",
    .describe = describe, .req = TC_REQ_NODE_SHM | TC_REQ_ONE_NODE, .generate = family_generate,
};
