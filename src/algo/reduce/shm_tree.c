/*
 * reduce family "shm_tree:fanin=F,chunk=C" (one node, any root): the socket-aware
 * tree reduction of Li, Hoefler, Snir, "NUMA-Aware Shared-Memory Collective
 * Communication for MPI" (2013), section 3.1, as a rooted reduce, with
 * processes instead of threads (copy-in: src/algo/shm_common.h).
 *
 * Steps: 1. every rank copies its vector into its slot of the node-shared
 *   buffer (the root, when it ends with the result, into its receive
 *   buffer: nothing to copy in place).  2. Tree reduction with fan-in F
 *   inside each socket (the allreduce "shm_reduce_bcast" tree,
 *   src/algo/shm_rooted.h): a parent waits for its children's flags and
 *   combines their slots into its accumulator, nearest child first; the
 *   socket's result ends at its last rank.  3. The same tree across the
 *   sockets' last ranks; the result ends at the last socket's last rank R.
 *   4. a root other than R waits for R's flag and copies R's slot to its
 *   receive buffer.  Release: every rank raises R's flag when it starts, R
 *   raises every rank's flag once all have come (before its reductions),
 *   and every rank waits for that before it returns (no rank returns before
 *   every rank has joined, see shm_rooted.h; the leaves need not wait for
 *   R's reductions).
 *   Commutative operation: the sockets of the topology object, the root's
 *   socket last and the root last in it, so R is the root.  Otherwise one
 *   group of all ranks in rank order (R = p-1).
 *   chunk=16k: steps 1-3 run chunk by chunk (16k elements), each chunk
 *   with its own flags, so a rank copies chunk k+1 in while its parent
 *   reduces chunk k (pipeline).
 * Cost (p ranks, s sockets, n elements): n copy-in per rank, the tree's
 *   ceil(log_F(p/s)) + ceil(log_F s) levels of (F-1) n gamma and one flag,
 *   p-1 flags each way at R (release); a root other than R copies n out.
 *   Chunked: the same work, one flag per chunk and tree edge, the levels
 *   overlapping.
 * Memory: node-shared p n (twice: the halves alternate between calls).
 * Restrictions: every rank on one node, node-shared memory.
 * Source: Li, Hoefler, Snir 2013, section 3.1 (reduce tree with fan-in).
 */
#include <stdio.h>

#include "algo/shm_rooted.h"

#define NSLOTS 1

static const int fanins[] = { 2, 4, 8 };

/* Steps 1-3 chunk by chunk (C elements; the whole vector when C is 0). */
static int chunks(tc_sched *s, const tc_args *a, const tc_shm_tree *g, int F, int64_t C, tc_region in,
                  tc_region acc, int *R)
{
    int64_t n = a->scount, step = C > 0 && C < n ? C : n;
    int rc = 0;
    for (int64_t lo = 0; lo < n && !rc; lo += step) {
        int64_t cnt = lo + step < n ? step : n - lo;
        tc_region ci = tc_reg(in.buf, in.off + lo, cnt), ca = tc_reg(acc.buf, acc.off + lo, cnt);
        if (ci.buf != ca.buf || ci.off != ca.off) tc_sched_copy(s, ci, ca);
        *R = tc_shm_tree_reduce(s, a, g, NULL, F, lo, ca, &rc);
        if (lo + step < n) tc_sched_round(s);   /* raise this chunk's flag before the next copy */
    }
    return rc;
}

/* The early release: every rank raises R's flag when it starts; R waits for
 * them all and raises every rank's flag at once (before reducing), and each
 * rank waits for that flag before it returns.  So no rank returns before
 * every rank has started (shm_rooted.h), and the ranks that finish early do
 * not wait for R's reductions. */
static void release(tc_sched *s, const tc_args *a, int R)
{
    for (int q = 0; q < a->size; q++)
        if (q != R) tc_sched_wait(s, q);
    tc_sched_round(s);
    for (int q = 0; q < a->size; q++)
        if (q != R) tc_sched_signal(s, q);
    tc_sched_round(s);
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t, int F, int64_t C)
{
    int me = a->rank, root = a->root, R = 0;
    tc_region out = tc_reg(TC_BUF_RECV, 0, a->scount), in = tc_reg(TC_BUF_SEND, 0, a->scount);
    if (me == root && a->in_place) in = out;
    if (a->size == 1 || a->scount == 0) {
        if (me == root && !a->in_place) tc_sched_copy(s, in, out);
        tc_sched_round(s);
        return 0;
    }
    tc_shm_layout(s, a, NSLOTS);
    /* Commutative: the sockets, the root's socket last and the root last in
     * it, so the result ends at the root; otherwise one group of all ranks
     * in rank order (the result ends at rank p-1). */
    tc_shm_tree g;
    int rc = tc_shm_tree_make(&g, t, 0, a->commutative ? root : -1, a->commutative);
    if (!rc) {
        R = g.ranks[a->size - 1];
        if (me == R) release(s, a, R);
        else {
            tc_sched_signal(s, R);   /* arrival */
            tc_sched_round(s);
        }
        /* The accumulator: the root's own receive buffer when it ends with
         * the result, else this rank's slot. */
        tc_region acc = me == root && R == root ? out : tc_shm_slot_all(a, NSLOTS, me, 0);
        rc = chunks(s, a, &g, F, C, in, acc, &R);
    }
    tc_shm_tree_free(&g);
    if (rc) return rc;
    if (me == R && root != R) tc_sched_signal(s, root);   /* the result is ready */
    if (me != R) tc_sched_wait(s, R);                       /* the release */
    if (me == root && R != root) tc_sched_wait(s, R);
    tc_sched_round(s);
    if (me == root && R != root) tc_sched_copy(s, tc_shm_slot_all(a, NSLOTS, R, 0), out);
    tc_sched_round(s);
    return 0;
}

/* ---- the family's catalog row ---------------------------------------------- */

enum { P_FANIN, P_CHUNK };
static const char *const fanin_values[] = { "2", "4", "8", NULL };
static const char *const chunk_values[] = { "all", "16k", NULL };
static const int64_t chunk_sizes[] = { 0, 16384 };
static const tc_param_def params[] = {
    { "fanin", fanin_values, 1 },
    { "chunk", chunk_values, 0 },
};

static void describe(const tc_family *f, const int *v, tc_instance_text *out)
{
    (void)f;
    snprintf(out->alias, sizeof out->alias, "shm_tree%s%s%s", fanin_values[v[P_FANIN]], v[P_CHUNK] ? "_" : "",
             v[P_CHUNK] ? chunk_values[v[P_CHUNK]] : "");
    snprintf(out->desc, sizeof out->desc,
             "shared memory (copy-in), socket-aware reduce tree of fan-in %s%s", fanin_values[v[P_FANIN]],
             v[P_CHUNK] ? ", pipelined in chunks of 16k elements" : "");
}

static int family_generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    const int *v = a->param;
    return generate(s, a, t, fanins[v[P_FANIN]], chunk_sizes[v[P_CHUNK]]);
}

const tc_family tc_reduce_shm_tree = {
    .coll = TOPOCOLL_REDUCE, .name = "shm_tree",
    .summary = "node-shared memory (copy-in): socket-aware fan-in reduce tree, any root, optionally "
               "pipelined in chunks (Li, Hoefler, Snir 2013)",
    .source = __FILE__, .nparams = 2, .params = params, .rule = "",
    .describe = describe, .req = TC_REQ_NODE_SHM | TC_REQ_ONE_NODE, .generate = family_generate,
};
