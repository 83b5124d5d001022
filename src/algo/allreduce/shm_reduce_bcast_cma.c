/*
 * allreduce "shm_reduce_bcast:fanin=F,bcast=B,copy=cma" (one node): the
 * reduce-broadcast algorithm of Li, Hoefler, Snir, "NUMA-Aware
 * Shared-Memory Collective Communication for MPI" (2013), sections 3.1 and
 * 3.3, in its single-copy form: where the paper's threads read each other's
 * vectors, our processes read their peers' own buffers with Linux
 * cross-memory attach (process_vm_readv, the RREAD op of sched/sched.h); no
 * vector is copied into a node-shared window.
 *
 * Steps (the tree and the groups of shm_reduce_bcast.c; a rank's partial
 *   is its input, SEND or RECV in place, while it has reduced nothing, then
 *   its receive buffer, which it accumulates into):
 *   1. A rank that will reduce (an inner node of its socket's fan-in tree, or
 *      of the tree across the sockets' last ranks) copies its input into its
 *      receive buffer (nothing in place).
 *   2. Tree reduction with fan-in F inside each socket, then across the
 *      sockets' last ranks: a parent waits for its children's flags, then,
 *      chunk by chunk of at most CHUNK elements, reads each child's partial
 *      (in place from the child's buffer) into a scratch chunk and combines
 *      it into its receive buffer, nearest child first ("child op own"); then
 *      it raises its parent's flag.  The result ends in R's receive buffer (R
 *      the last socket's last rank).
 *   3. Broadcast.  bcast=1stage: R raises every rank's flag; every rank reads
 *      R's receive buffer into its own and raises R's flag (R returns after
 *      all of them: its buffer is read until then).  bcast=2stage: R raises
 *      the flag of every other socket's last rank (its reader) and of its
 *      own socket's members; a reader reads R's result into its receive
 *      buffer, raises R's flag and its members' flags, and waits for its
 *      members' flags; members read their reader's (or R's) buffer and raise
 *      its flag.
 *   A non-commutative operation (or one socket) reduces in one group of all
 *   ranks in rank order; the result is computed once: all ranks hold
 *   bitwise-identical results.  A child's partial is read only after its
 *   flag, and it is overwritten (by the broadcast's read) only after R's
 *   flag, which follows every read of the tree.
 * Cost (p ranks, s sockets, n elements): no copy-in or copy-out; an inner
 *   node n copy (not in place); the tree's ceil(log_F(p/s)) +
 *   ceil(log_F s) levels of (F-1) n read by process_vm_readv (one system
 *   call per child and chunk), (F-1) n gamma and one flag; the broadcast n
 *   read per rank (2stage: one cross-socket read per socket) and two flags
 *   (2stage: four on the readers' path).
 * Memory: scratch of min(CHUNK, n) elements; no node-shared data (the flags
 *   and the publication lines).
 * Restrictions: one node, node-shared flags, cross-memory attach available
 *   on every rank of the node (probed when the communicator's context is
 *   made; TOPOCOLL_CMA=0 turns it off), contiguous datatypes (the API
 *   declines derived types with holes).
 * Source: Li, Hoefler, Snir 2013, sections 3.1 (reduce-broadcast, fan-in)
 *   and 3.3 (one-stage / two-stage broadcast), threads reading each other's
 *   vectors.
 */
#include <errno.h>
#include <stdlib.h>

#include "algo/allreduce/shm_common.h"

/* Elements per scratch chunk (as shm_tiled_cma.c). */
#define CHUNK ((int64_t)32768)

/* Does index i of a fan-in tree over m members reduce (an inner node)? */
static int inner(int m, int i, int F)
{
    int j = m - 1 - i;
    return j % F == 0 && j + 1 < m;
}

/* A tree over list L (m ranks, increasing): acc_before[k] (NULL: none) says
 * that L[k] already reduced (into its receive buffer) before this tree. */
typedef struct rb_list {
    const int *L;
    const int *acc_before;
    int m;
} rb_list;

/* Where member k's partial is read from. */
static tc_region partial_of(const tc_args *a, const rb_list *l, int k, int F, int64_t lo, int64_t len)
{
    int acc = inner(l->m, k, F) || (l->acc_before && l->acc_before[k]);
    return tc_reg(acc || a->in_place ? TC_BUF_RECV : TC_BUF_SEND, lo, len);
}

/* One level's children c[0..nc) (nearest first), chunk by chunk into RECV. */
static void combine_children(tc_sched *s, const tc_args *a, const rb_list *l, const int *c, int nc, int F)
{
    for (int64_t lo = 0; lo < a->scount; lo += CHUNK) {
        int64_t len = a->scount - lo < CHUNK ? a->scount - lo : CHUNK;
        for (int k = 0; k < nc; k++) {
            tc_sched_rread(s, l->L[c[k]], partial_of(a, l, c[k], F, lo, len), tc_reg(TC_BUF_TMP, 0, len));
            tc_sched_reduce(s, tc_reg(TC_BUF_TMP, 0, len), tc_reg(TC_BUF_RECV, lo, len));
        }
    }
}

/* The fan-in tree of tc_shm_fanin_tree (algo/shm_rooted.h), reading the
 * children's partials in place.  Returns 1 when this rank (index i) is the
 * list's root. */
static int cma_tree(tc_sched *s, const tc_args *a, const rb_list *l, int i, int F)
{
    int m = l->m, j = m - 1 - i, c[8];
    int64_t stride = 1;
    while (stride < m && j % (stride * F) == 0) {
        int nc = 0;
        for (int t = 1; t < F; t++)
            if (j + t * stride < m) c[nc++] = m - 1 - (int)(j + t * stride);
        for (int k = 0; k < nc; k++) tc_sched_wait(s, l->L[c[k]]);
        tc_sched_round(s);
        combine_children(s, a, l, c, nc, F);
        stride *= F;
    }
    if (j == 0) return 1;
    tc_sched_signal(s, l->L[m - 1 - (int)(j - j % (stride * F))]);
    return 0;
}

static int last_of(const ar_groups *g, int i) { return ar_group_members(g, i)[ar_group_size(g, i) - 1]; }

/* Read the whole result from src's receive buffer, then raise its flag. */
static void read_result(tc_sched *s, const tc_args *a, int src)
{
    tc_sched_wait(s, src);
    tc_sched_round(s);
    tc_sched_rread(s, src, tc_reg(TC_BUF_RECV, 0, a->scount), tc_reg(TC_BUF_RECV, 0, a->scount));
    tc_sched_signal(s, src);
}

/* Step 3 (the open round holds R's last reduce, or the others' last signal). */
static void broadcast(tc_sched *s, const tc_args *a, const ar_groups *g, int grp, int groot, int two)
{
    int last = g->ng - 1, me = a->rank, R = last_of(g, last);
    const int *own = ar_group_members(g, grp);
    if (me == R) {   /* signal the readers, then wait until they have read */
        for (int pass = 0; pass < 2; pass++) {
            for (int q = 0; q < a->size; q++) {
                if (q == R) continue;
                int gq, iq;
                ar_group_find(g, q, &gq, &iq);
                if (two && gq != last && q != last_of(g, gq)) continue;   /* reads its socket's reader */
                if (pass == 0) tc_sched_signal(s, q);
                else tc_sched_wait(s, q);
            }
        }
        tc_sched_round(s);
        return;
    }
    if (two && groot && grp != last) {   /* a socket's reader */
        read_result(s, a, R);
        for (int k = 0; k < ar_group_size(g, grp); k++)
            if (own[k] != me) tc_sched_signal(s, own[k]);
        for (int k = 0; k < ar_group_size(g, grp); k++)
            if (own[k] != me) tc_sched_wait(s, own[k]);
        tc_sched_round(s);
        return;
    }
    read_result(s, a, two ? last_of(g, grp) : R);
    tc_sched_round(s);
}

int ar_reduce_bcast_cma(tc_sched *s, const tc_args *a, const tc_topo *t, int F, int two)
{
    s->tmp_like = TC_BUF_SEND;
    tc_sched_need_tmp(s, a->scount < CHUNK ? a->scount : CHUNK);
    ar_groups g = ar_groups_of(a, t);
    int grp, idx;
    ar_group_find(&g, a->rank, &grp, &idx);
    int m = ar_group_size(&g, grp);
    int *roots = malloc((size_t)g.ng * 2 * sizeof *roots);
    if (!roots) return ENOMEM;
    int *reduced = roots + g.ng;   /* a socket's last rank reduced inside its socket */
    for (int q = 0; q < g.ng; q++) {
        roots[q] = last_of(&g, q);
        reduced[q] = ar_group_size(&g, q) > 1;
    }
    int groot = idx == m - 1;
    int acc = inner(m, idx, F) || (groot && g.ng > 1 && inner(g.ng, grp, F));
    if (acc && !a->in_place) tc_sched_copy(s, tc_reg(TC_BUF_SEND, 0, a->scount), tc_reg(TC_BUF_RECV, 0, a->scount));
    rb_list in_group = { ar_group_members(&g, grp), NULL, m };
    cma_tree(s, a, &in_group, idx, F);
    if (groot && g.ng > 1) {
        rb_list across = { roots, reduced, g.ng };
        cma_tree(s, a, &across, grp, F);
    }
    free(roots);
    broadcast(s, a, &g, grp, groot, two);
    return 0;
}
