/*
 * allreduce family "shm_reduce_bcast:fanin=F,bcast=B,copy=C" (one node): the
 * reduce-broadcast algorithm of Li, Hoefler, Snir, "NUMA-Aware
 * Shared-Memory Collective Communication for MPI" (2013), section 3, with
 * processes instead of threads.  This file is copy=in (shm_common.h);
 * copy=cma, the single-copy form that reads the peers' own buffers, is
 * shm_reduce_bcast_cma.c.
 *
 * Steps: 1. every rank copies its vector into its slot of the node-shared
 *   buffer.  2. Tree reduction with fan-in F inside each socket: in the
 *   socket's member list (increasing rank) read from its end, index j's
 *   children at level k are j + t F^k (t = 1..F-1); a parent waits for its
 *   children's flags and combines each child's slot into its own, nearest
 *   child first ("child op own": the child covers the ranks just below), then
 *   raises its parent's flag; the socket's result ends in its last rank's
 *   slot.  3. The same tree across the sockets' last ranks (socket order);
 *   the result ends in the last socket's last rank R.  4. Broadcast:
 *   bcast=1stage, R raises every rank's flag and every rank copies R's slot
 *   to its receive buffer; bcast=2stage, R raises one flag per other socket
 *   (its last rank, which copies R's slot into its own slot in its socket's
 *   memory and raises its members' flags) and its own socket's members',
 *   and every rank copies from its socket's copy.
 *   A non-commutative operation (or one socket) reduces in one group of all
 *   ranks in rank order; the result is computed once: all ranks hold
 *   bitwise-identical results.
 * Cost (p ranks, s sockets, n elements): 2 n copy per rank plus the tree's
 *   ceil(log_F(p/s)) + ceil(log_F s) levels of (F-1) n gamma and one flag;
 *   the broadcast 1 flag (1stage: p-1 readers of one slot across sockets;
 *   2stage: one remote read per socket, the rest local).
 * Memory: node-shared p n (twice: the halves alternate between calls).
 * Restrictions: every rank on one node, node-shared memory.
 * Source: Li, Hoefler, Snir 2013, sections 3.1 (reduce-broadcast, fan-in)
 *   and 3.3 (one-stage / two-stage broadcast).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "algo/allreduce/shm_common.h"
#include "algo/shm_rooted.h"

#define NSLOTS 1

static const int fanins[] = { 2, 4, 8 };
enum { B_ONE, B_TWO };

/* Fan-in tree over list L (m ranks, increasing) with this rank at index i:
 * tc_shm_fanin_tree on whole slots (algo/shm_rooted.h).  Returns 1 when
 * this rank is the list's root (the last rank, holding the list's result). */
static int fanin_tree(tc_sched *s, const tc_args *a, const int *L, int m, int i, int F)
{
    return tc_shm_fanin_tree(s, a, NSLOTS, NULL, L, m, i, F, 0, ar_slot_all(a, NSLOTS, a->rank, 0));
}

/* Step 4 (the open round holds R's last reduce, or the others' last signal). */
static void broadcast(tc_sched *s, const tc_args *a, const ar_groups *g, int grp, int groot, int two)
{
    int last = g->ng - 1, me = a->rank;
    int R = ar_group_members(g, last)[ar_group_size(g, last) - 1];
    tc_region out = tc_reg(TC_BUF_RECV, 0, a->scount);
    if (me == R) {
        if (!two) {
            for (int q = 0; q < a->size; q++)
                if (q != R) tc_sched_signal(s, q);
        } else {   /* one reader per other socket, and R's own socket's members */
            for (int h = 0; h < last; h++) tc_sched_signal(s, ar_group_members(g, h)[ar_group_size(g, h) - 1]);
            for (int k = 0; k < ar_group_size(g, last) - 1; k++) tc_sched_signal(s, ar_group_members(g, last)[k]);
        }
        tc_sched_copy(s, ar_slot_all(a, NSLOTS, R, 0), out);
        tc_sched_round(s);
        return;
    }
    if (two && groot && grp != last) {   /* a socket's reader */
        tc_sched_wait(s, R);
        tc_sched_round(s);
        tc_sched_copy(s, ar_slot_all(a, NSLOTS, R, 0), ar_slot_all(a, NSLOTS, me, 0));
        tc_sched_copy(s, ar_slot_all(a, NSLOTS, me, 0), out);
        for (int k = 0; k < ar_group_size(g, grp); k++)
            if (ar_group_members(g, grp)[k] != me) tc_sched_signal(s, ar_group_members(g, grp)[k]);
        tc_sched_round(s);
        return;
    }
    int src = two ? ar_group_members(g, grp)[ar_group_size(g, grp) - 1] : R;
    tc_sched_wait(s, src);
    tc_sched_round(s);
    tc_sched_copy(s, ar_slot_all(a, NSLOTS, src, 0), out);
    tc_sched_round(s);
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t, int F, int two)
{
    if (a->size == 1) {
        if (!a->in_place) tc_sched_copy(s, tc_reg(TC_BUF_SEND, 0, a->scount), tc_reg(TC_BUF_RECV, 0, a->scount));
        tc_sched_round(s);
        return 0;
    }
    ar_shm_layout(s, a, NSLOTS);
    ar_groups g = ar_groups_of(a, t);
    int grp, idx;
    ar_group_find(&g, a->rank, &grp, &idx);
    ar_copy_in(s, a, NSLOTS);
    int groot = fanin_tree(s, a, ar_group_members(&g, grp), ar_group_size(&g, grp), idx, F);
    if (groot && g.ng > 1) {
        int *roots = malloc((size_t)g.ng * sizeof *roots);
        if (!roots) return ENOMEM;
        for (int q = 0; q < g.ng; q++) roots[q] = ar_group_members(&g, q)[ar_group_size(&g, q) - 1];
        fanin_tree(s, a, roots, g.ng, grp, F);
        free(roots);
    }
    broadcast(s, a, &g, grp, groot, two);
    return 0;
}

/* ---- the family's catalog row ---------------------------------------------- */

enum { P_FANIN, P_BCAST, P_COPY };
enum { COPY_IN, COPY_CMA };
static const char *const fanin_values[] = { "2", "4", "8", NULL };
static const char *const bcast_values[] = { "1stage", "2stage", NULL };
static const char *const copy_values[] = { "in", "cma", NULL };
static const tc_param_def params[] = {
    { "fanin", fanin_values, 1 },
    { "bcast", bcast_values, B_TWO },
    { "copy", copy_values, COPY_IN },
};
/* copy outermost: the copy-in instances first, in their old order */
static const int order[] = { P_COPY, P_FANIN, P_BCAST };

static void describe(const tc_family *f, const int *v, tc_instance_text *out)
{
    (void)f;
    int cma = v[P_COPY] == COPY_CMA;
    if (cma) out->source = "src/algo/allreduce/shm_reduce_bcast_cma.c";
    snprintf(out->alias, sizeof out->alias, "shm_rb%s_%s%s", fanin_values[v[P_FANIN]],
             v[P_BCAST] == B_ONE ? "1s" : "2s", cma ? "_cma" : "");
    snprintf(out->desc, sizeof out->desc, "%s, socket-aware reduce tree of fan-in %s, %s broadcast",
             cma ? "single copy (process_vm_readv)" : "shared memory (copy-in)", fanin_values[v[P_FANIN]],
             v[P_BCAST] == B_ONE ? "one-stage" : "two-stage (a reader per socket)");
}

static int family_generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    const int *v = a->param;
    if (v[P_COPY] == COPY_CMA && a->size > 1)
        return ar_reduce_bcast_cma(s, a, t, fanins[v[P_FANIN]], v[P_BCAST] == B_TWO);
    return generate(s, a, t, fanins[v[P_FANIN]], v[P_BCAST] == B_TWO);
}

static unsigned req_of(const int *v)
{
    return v[P_COPY] == COPY_CMA ? TC_REQ_CMA : 0;
}

const tc_family tc_allreduce_shm_reduce_bcast = {
    .coll = TOPOCOLL_ALLREDUCE, .name = "shm_reduce_bcast",
    .summary = "node-shared memory (copy-in) or single copy (copy=cma: process_vm_readv of the "
               "peers' buffers): socket-aware fan-in reduce tree, one- or two-stage broadcast "
               "(Li, Hoefler, Snir 2013)",
    .source = __FILE__, .nparams = 3, .params = params, .order = order, .rule = "",
    .describe = describe, .req = TC_REQ_NODE_SHM | TC_REQ_ONE_NODE, .req_of = req_of,
    .generate = family_generate,
};
