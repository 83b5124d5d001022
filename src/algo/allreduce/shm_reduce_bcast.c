/*
 * allreduce family "shm_reduce_bcast:fanin=F,bcast=B,copy=C" (one node): the
 * reduce-broadcast algorithm of Li, Hoefler, Snir, "NUMA-Aware
 * Shared-Memory Collective Communication for MPI" (2013), sections 3.1 and
 * 3.3, with processes instead of threads.  copy=in goes through the
 * node-shared window (algo/shm_common.h); copy=cma is the single-copy form:
 * where the paper's threads read each other's vectors, the ranks read their
 * peers' own buffers with Linux cross-memory attach (process_vm_readv, the
 * RREAD op of sched/sched.h).
 *
 * Steps: 1. copy=in: every rank copies its vector into its slot of the
 *   node-shared buffer.  copy=cma: a rank that will reduce (an inner node of
 *   a tree below) copies its input into its receive buffer (nothing in
 *   place); a rank's partial is its input (SEND; RECV in place) while it has
 *   reduced nothing, then its receive buffer.
 *   2. Tree reduction with fan-in F inside each socket: in the socket's
 *   member list (increasing rank) read from its end, index j's children at
 *   level k are j + t F^k (t = 1..F-1); a parent waits for its children's
 *   flags and combines each child's partial into its own, nearest child
 *   first ("child op own": the child covers the ranks just below), then
 *   raises its parent's flag (copy=in: slot into slot; copy=cma: chunk by
 *   chunk of at most TC_SHM_CHUNK elements, each child's partial read in
 *   place into a scratch chunk); the socket's result ends at its last rank.
 *   3. The same tree across the sockets' last ranks (socket order); the
 *   result ends at the last socket's last rank R.
 *   4. Broadcast.  bcast=1stage: R raises every rank's flag and every rank
 *   reads R's result into its receive buffer; bcast=2stage: R raises one
 *   flag per other socket (its last rank, the socket's reader, which reads
 *   R's result into its socket's memory and raises its members' flags) and
 *   its own socket's members', and every rank reads its socket's copy.
 *   copy=cma: each reader raises the flag of the rank it read from, which
 *   returns only after them (its buffer is read until then).
 *   A non-commutative operation (or one socket) reduces in one group of all
 *   ranks in rank order; the result is computed once: all ranks hold
 *   bitwise-identical results.  copy=cma: a child's partial is read only
 *   after its flag, and overwritten (by the broadcast's read) only after
 *   R's flag, which follows every read of the tree.
 * Cost (p ranks, s sockets, n elements): the tree's ceil(log_F(p/s)) +
 *   ceil(log_F s) levels of (F-1) n gamma and one flag; copy=in 2 n copy per
 *   rank, the broadcast 1 flag (1stage: p-1 readers of one slot across
 *   sockets; 2stage: one remote read per socket, the rest local); copy=cma
 *   no copy-in or copy-out, an inner node n copy (not in place), per level
 *   (F-1) n read by process_vm_readv (one system call per child and chunk),
 *   the broadcast n read per rank and two flags (2stage: four on the
 *   readers' path).
 * Memory: copy=in node-shared p n (twice: the halves alternate between
 *   calls); copy=cma scratch of min(TC_SHM_CHUNK, n) elements, no
 *   node-shared data (the flags and the publication lines).
 * Restrictions: every rank on one node, node-shared memory (copy=cma: for
 *   the flags; cross-memory attach available on every rank of the node,
 *   probed when the communicator's context is made, TOPOCOLL_CMA=0 turns it
 *   off; contiguous datatypes, the API declines derived types with holes).
 * Source: Li, Hoefler, Snir 2013, sections 3.1 (reduce-broadcast, fan-in)
 *   and 3.3 (one-stage / two-stage broadcast), threads reading each other's
 *   vectors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "algo/shm_common.h"

#define NSLOTS 1

static const int fanins[] = { 2, 4, 8 };
enum { B_ONE, B_TWO };

/* Does index i of a fan-in tree over m members reduce (an inner node)? */
static int inner(int m, int i, int F)
{
    int j = m - 1 - i;
    return j % F == 0 && j + 1 < m;
}

/* A tree over list L (m ranks, increasing): acc_before[k] (NULL: none) says
 * that L[k] already reduced (copy=cma: into its receive buffer) before this
 * tree. */
typedef struct rb_list {
    const int *L;
    const int *acc_before;
    int m;
} rb_list;

/* copy=cma: where member k's partial is read from. */
static tc_region partial_of(const tc_args *a, const rb_list *l, int k, int F, int64_t lo, int64_t len)
{
    int acc = inner(l->m, k, F) || (l->acc_before && l->acc_before[k]);
    return tc_reg(acc || a->in_place ? TC_BUF_RECV : TC_BUF_SEND, lo, len);
}

/* One level's children c[0..nc) (indices in l, nearest first) into this
 * rank's partial: copy=in, slot into slot; copy=cma, chunk by chunk into
 * RECV. */
static void combine_children(tc_sched *s, const tc_args *a, const rb_list *l, const int *c, int nc, int F, int cma)
{
    if (!cma) {
        for (int k = 0; k < nc; k++)
            tc_sched_reduce(s, tc_shm_slot_all(a, NSLOTS, l->L[c[k]], 0), tc_shm_slot_all(a, NSLOTS, a->rank, 0));
        return;
    }
    for (int64_t lo = 0; lo < a->scount; lo += TC_SHM_CHUNK) {
        int64_t len = a->scount - lo < TC_SHM_CHUNK ? a->scount - lo : TC_SHM_CHUNK;
        for (int k = 0; k < nc; k++) {
            tc_sched_rread(s, l->L[c[k]], partial_of(a, l, c[k], F, lo, len), tc_reg(TC_BUF_TMP, 0, len));
            tc_sched_reduce(s, tc_reg(TC_BUF_TMP, 0, len), tc_reg(TC_BUF_RECV, lo, len));
        }
    }
}

/* The fan-in tree over l with this rank at index i (the tree of
 * tc_shm_fanin_tree, algo/shm_rooted.h).  Returns 1 when this rank is the
 * list's root (its last rank, holding the list's result). */
static int fanin_tree(tc_sched *s, const tc_args *a, const rb_list *l, int i, int F, int cma)
{
    int m = l->m, j = m - 1 - i, c[8];
    int64_t stride = 1;
    while (stride < m && j % (stride * F) == 0) {
        int nc = 0;
        for (int t = 1; t < F; t++)
            if (j + t * stride < m) c[nc++] = m - 1 - (int)(j + t * stride);
        for (int k = 0; k < nc; k++) tc_sched_wait(s, l->L[c[k]]);
        tc_sched_round(s);
        combine_children(s, a, l, c, nc, F, cma);
        stride *= F;
    }
    if (j == 0) return 1;
    tc_sched_signal(s, l->L[m - 1 - (int)(j - j % (stride * F))]);
    return 0;
}

static int last_of(const tc_shm_groups *g, int i) { return tc_shm_group_members(g, i)[tc_shm_group_size(g, i) - 1]; }

/* Step 4 at R: raise the readers' flags (copy=in: every other rank, or
 * per socket its reader and R's own socket's members, and take the result
 * from R's slot; copy=cma: the same readers in rank order, then wait for
 * their flags: R's receive buffer is read until then). */
static void release(tc_sched *s, const tc_args *a, const tc_shm_groups *g, int two, int cma)
{
    int last = g->ng - 1, R = last_of(g, last);
    if (!cma) {
        if (!two) {
            for (int q = 0; q < a->size; q++)
                if (q != R) tc_sched_signal(s, q);
        } else {
            for (int h = 0; h < last; h++) tc_sched_signal(s, last_of(g, h));
            for (int k = 0; k < tc_shm_group_size(g, last) - 1; k++) tc_sched_signal(s, tc_shm_group_members(g, last)[k]);
        }
        tc_sched_copy(s, tc_shm_slot_all(a, NSLOTS, R, 0), tc_reg(TC_BUF_RECV, 0, a->scount));
        tc_sched_round(s);
        return;
    }
    for (int pass = 0; pass < 2; pass++)
        for (int q = 0; q < a->size; q++) {
            if (q == R) continue;
            int gq, iq;
            tc_shm_group_find(g, q, &gq, &iq);
            if (two && gq != last && q != last_of(g, gq)) continue;   /* reads its socket's reader */
            if (pass == 0) tc_sched_signal(s, q);
            else tc_sched_wait(s, q);
        }
    tc_sched_round(s);
}

/* Wait for src's flag, then take its result into this rank's receive
 * buffer (copy=in: from src's slot, through this rank's own slot when
 * `relay`, for its socket's members; copy=cma: read src's receive buffer,
 * then raise src's flag). */
static void take_result(tc_sched *s, const tc_args *a, int src, int relay, int cma)
{
    tc_region out = tc_reg(TC_BUF_RECV, 0, a->scount);
    tc_sched_wait(s, src);
    tc_sched_round(s);
    if (cma) {
        tc_sched_rread(s, src, out, out);
        tc_sched_signal(s, src);
    } else if (relay) {
        tc_sched_copy(s, tc_shm_slot_all(a, NSLOTS, src, 0), tc_shm_slot_all(a, NSLOTS, a->rank, 0));
        tc_sched_copy(s, tc_shm_slot_all(a, NSLOTS, a->rank, 0), out);
    } else {
        tc_sched_copy(s, tc_shm_slot_all(a, NSLOTS, src, 0), out);
    }
}

/* Step 4 (the open round holds R's last reduce, or the others' last
 * signal). */
static void broadcast(tc_sched *s, const tc_args *a, const tc_shm_groups *g, int grp, int groot, int two, int cma)
{
    int last = g->ng - 1, me = a->rank, R = last_of(g, last), m = tc_shm_group_size(g, grp);
    const int *own = tc_shm_group_members(g, grp);
    if (me == R) {
        release(s, a, g, two, cma);
        return;
    }
    if (two && groot && grp != last) {   /* a socket's reader: then its members' */
        take_result(s, a, R, 1, cma);
        for (int k = 0; k < m; k++)
            if (own[k] != me) tc_sched_signal(s, own[k]);
        for (int k = 0; cma && k < m; k++)
            if (own[k] != me) tc_sched_wait(s, own[k]);
        tc_sched_round(s);
        return;
    }
    take_result(s, a, two ? last_of(g, grp) : R, 0, cma);
    tc_sched_round(s);
}

/* Step 1. */
static void start(tc_sched *s, const tc_args *a, int accumulates, int cma)
{
    if (!cma) {
        tc_shm_layout(s, a, NSLOTS);
        tc_shm_copy_in(s, a, NSLOTS);
        return;
    }
    s->tmp_like = TC_BUF_SEND;
    tc_sched_need_tmp(s, a->scount < TC_SHM_CHUNK ? a->scount : TC_SHM_CHUNK);
    if (accumulates && !a->in_place)
        tc_sched_copy(s, tc_reg(TC_BUF_SEND, 0, a->scount), tc_reg(TC_BUF_RECV, 0, a->scount));
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t, int F, int two, int cma)
{
    if (a->size == 1) {
        if (!a->in_place) tc_sched_copy(s, tc_reg(TC_BUF_SEND, 0, a->scount), tc_reg(TC_BUF_RECV, 0, a->scount));
        tc_sched_round(s);
        return 0;
    }
    tc_shm_groups g = tc_shm_groups_of(a, t);
    int grp, idx;
    tc_shm_group_find(&g, a->rank, &grp, &idx);
    int m = tc_shm_group_size(&g, grp), groot = idx == m - 1, across = groot && g.ng > 1;
    int *roots = malloc((size_t)g.ng * 2 * sizeof *roots);
    if (!roots) return ENOMEM;
    int *reduced = roots + g.ng;   /* a socket's last rank reduced inside its socket */
    for (int q = 0; q < g.ng; q++) {
        roots[q] = last_of(&g, q);
        reduced[q] = tc_shm_group_size(&g, q) > 1;
    }
    start(s, a, inner(m, idx, F) || (across && inner(g.ng, grp, F)), cma);
    rb_list in_group = { tc_shm_group_members(&g, grp), NULL, m };
    fanin_tree(s, a, &in_group, idx, F, cma);
    if (across) {
        rb_list sockets = { roots, reduced, g.ng };
        fanin_tree(s, a, &sockets, grp, F, cma);
    }
    free(roots);
    broadcast(s, a, &g, grp, groot, two, cma);
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
    snprintf(out->alias, sizeof out->alias, "shm_rb%s_%s%s", fanin_values[v[P_FANIN]],
             v[P_BCAST] == B_ONE ? "1s" : "2s", cma ? "_cma" : "");
    snprintf(out->desc, sizeof out->desc, "%s, socket-aware reduce tree of fan-in %s, %s broadcast",
             cma ? "single copy (process_vm_readv)" : "shared memory (copy-in)", fanin_values[v[P_FANIN]],
             v[P_BCAST] == B_ONE ? "one-stage" : "two-stage (a reader per socket)");
}

static int family_generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    const int *v = a->param;
    return generate(s, a, t, fanins[v[P_FANIN]], v[P_BCAST] == B_TWO, v[P_COPY] == COPY_CMA);
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
