/*
 * The steps shared by the alltoallv "bridge" entries (Träff, Rougier, "MPI
 * Collectives and Datatypes for Hierarchical All-to-all Communication"
 * (2014), section 2.4): three member-set rounds (TC_OP_SUBCOLL,
 * sched/sched.h), each one collective call on the node or bridge
 * communicator, spelled out part by part from the node's count rows
 * (tc_args.node_sc / node_rc: [i p + j] what member i of my node sends to,
 * receives from, rank j; TC_REQ_NODE_COUNTS):
 *   gather:   every member sends its parts in node-sorted order (the
 *             topology's node_ranks) to its node's root, which lays them
 *             out as one bundle per destination node J: g_J holds member
 *             i's parts for J's members j, i-major ([i][j of J]);
 *   exchange: the roots send each other root its bundle, one region each
 *             way; the bundle from node I arrives in a_I laid out [i of
 *             I][j of mine] with the sizes my members receive (node_rc):
 *             the sender's node_sc where the counts agree;
 *   scatter:  the root sends member j its parts node-sorted by source (my
 *             own node's out of g_A: at most what both sides count, so that
 *             counts that disagree inside a node stay in bounds), which j
 *             receives straight into its displacements.
 * Counts that disagree between nodes make a root's receive in the exchange
 * longer than posted: the executor reports MPI_ERR_TRUNCATE there and passes
 * it on with the scatter (src/exec/subcoll.c).
 * Memory (TMP, at each root only): the node's outgoing parts and its
 * incoming parts from other nodes; while generating, 2 n p offsets.
 */
#include "algo/alltoallv/bridge_steps.h"

#include <stdlib.h>

#include "algo/alltoallv/common.h"

typedef struct vbridge {
    const tc_args *a;
    const tc_topo *t;
    const int64_t *S, *R;   /* the node's rows */
    int p, r, A, n, ia, root;
    int64_t *goff, *aoff;   /* [i p + j]: where parts lie in TMP (layout) */
} vbridge;

static int64_t min64(int64_t x, int64_t y) { return x < y ? x : y; }
/* Without per-peer counts (tc_args.v NULL: the simulator, the thread test)
 * every part is rcount. */
static int64_t sent(const vbridge *b, int i, int j) { return b->S ? b->S[(size_t)i * b->p + j] : b->a->rcount; }
static int64_t received(const vbridge *b, int j, int i) { return b->R ? b->R[(size_t)j * b->p + i] : b->a->rcount; }
static tc_region tmp(int64_t off, int64_t cnt) { return tc_reg(TC_BUF_TMP, off, cnt); }

/* My input part for rank j (in place: RECV, read before the scatter writes it). */
static tc_region input(const vbridge *b, int j)
{
    const tc_args *a = b->a;
    if (a->in_place) return av_out(a, j);
    return tc_reg(TC_BUF_SEND, av_sdispl(a, j), av_scount(a, j));
}

/* Where member i's part for rank j lies in g, and where the part from rank
 * i (another node's) for my member j lies in a (set by layout). */
static int64_t gathered_at(const vbridge *b, int i, int j) { return b->goff[(size_t)i * b->p + j]; }
static int64_t exchanged_at(const vbridge *b, int j, int i) { return b->aoff[(size_t)j * b->p + i]; }

static void gather(tc_sched *s, const vbridge *b)
{
    const int *m = tc_topo_node_members(b->t, b->A);
    tc_sched_subcoll(s, TC_SUB_NODE);
    for (int y = 0; b->r != b->root && y < b->p; y++) {
        int j = b->t->node_ranks[y];
        if (sent(b, b->ia, j) > 0) tc_sched_send(s, b->root, input(b, j));
    }
    for (int i = 0; b->r == b->root && i < b->n; i++)
        for (int y = 0; y < b->p; y++) {
            int j = b->t->node_ranks[y];
            int64_t len = sent(b, i, j);
            if (len == 0) continue;
            if (m[i] == b->r) tc_sched_copy(s, input(b, j), tmp(gathered_at(b, i, j), len));
            else tc_sched_recv(s, m[i], tmp(gathered_at(b, i, j), len));
        }
    tc_sched_round(s);
}

/* Bytes of node J's bundle out (my members' parts for J's) and in (J's
 * members' parts for mine, as my members count them). */
static int64_t bundle_out(const vbridge *b, int J)
{
    const int *mJ = tc_topo_node_members(b->t, J);
    int64_t sum = 0;
    for (int i = 0; i < b->n; i++)
        for (int y = 0; y < tc_topo_node_size(b->t, J); y++) sum += sent(b, i, mJ[y]);
    return sum;
}

static int64_t bundle_in(const vbridge *b, int J)
{
    const int *mJ = tc_topo_node_members(b->t, J);
    int64_t sum = 0;
    for (int x = 0; x < tc_topo_node_size(b->t, J); x++)
        for (int j = 0; j < b->n; j++) sum += received(b, j, mJ[x]);
    return sum;
}

/* The roots' exchange: g_J to node J's root, its bundle into a_J. */
static void exchange(tc_sched *s, const vbridge *b)
{
    tc_sched_subcoll(s, TC_SUB_ROOTS);
    for (int J = 0; J < b->t->nnodes; J++) {
        if (J == b->A) continue;
        int peer = tc_topo_node_members(b->t, J)[0];
        int64_t out = bundle_out(b, J), in = bundle_in(b, J);
        const int *mJ = tc_topo_node_members(b->t, J);
        if (out > 0) tc_sched_send(s, peer, tmp(gathered_at(b, 0, mJ[0]), out));   /* g_J starts with member 0's */
        if (in > 0) tc_sched_recv(s, peer, tmp(exchanged_at(b, 0, mJ[0]), in));   /* a_J with J's first member's */
    }
    tc_sched_round(s);
}

/* The parts' offsets in TMP, bundle by bundle: g_J [i][j of J] by the sizes
 * sent, then a_I [i of I][j] by the sizes received; returns TMP's size. */
static int64_t layout(vbridge *b)
{
    int64_t at = 0;
    for (int J = 0; J < b->t->nnodes; J++) {
        const int *mJ = tc_topo_node_members(b->t, J);
        for (int i = 0; i < b->n; i++)
            for (int y = 0; y < tc_topo_node_size(b->t, J); y++)
                b->goff[(size_t)i * b->p + mJ[y]] = at, at += sent(b, i, mJ[y]);
    }
    for (int I = 0; I < b->t->nnodes; I++) {
        const int *mI = tc_topo_node_members(b->t, I);
        for (int x = 0; I != b->A && x < tc_topo_node_size(b->t, I); x++)
            for (int j = 0; j < b->n; j++) b->aoff[(size_t)j * b->p + mI[x]] = at, at += received(b, j, mI[x]);
    }
    return at;
}

/* Where member j's part from rank i lies at the root, and its length. */
static tc_region part_at_root(const vbridge *b, int j, int i)
{
    if (b->t->node_of[i] != b->A) return tmp(exchanged_at(b, j, i), received(b, j, i));
    int ii = b->t->node_idx[i];
    return tmp(gathered_at(b, ii, tc_topo_node_members(b->t, b->A)[j]),
               min64(sent(b, ii, tc_topo_node_members(b->t, b->A)[j]), received(b, j, i)));
}

static void scatter(tc_sched *s, const vbridge *b)
{
    const int *m = tc_topo_node_members(b->t, b->A);
    tc_sched_subcoll(s, TC_SUB_NODE);
    for (int j = 0; b->r == b->root && j < b->n; j++)
        for (int y = 0; y < b->p; y++) {
            int i = b->t->node_ranks[y];
            tc_region part = part_at_root(b, j, i);
            if (part.cnt == 0) continue;
            if (m[j] != b->r) {
                tc_sched_send(s, m[j], part);
                continue;
            }
            tc_region out = av_out(b->a, i);
            out.cnt = part.cnt;
            tc_sched_copy(s, part, out);
        }
    for (int y = 0; b->r != b->root && y < b->p; y++) {
        int i = b->t->node_ranks[y];
        tc_region part = part_at_root(b, b->ia, i);   /* its length as the root sends it */
        tc_region out = av_out(b->a, i);
        out.cnt = part.cnt;
        if (out.cnt > 0) tc_sched_recv(s, b->root, out);
    }
    tc_sched_round(s);
}

int tc_bridge_alltoallv(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    if (a->v && (!a->node_sc || !a->node_rc)) return 1;   /* TC_REQ_NODE_COUNTS not met */
    vbridge b = { a, t, a->v ? a->node_sc : NULL, a->v ? a->node_rc : NULL, a->size, a->rank, t->node_of[a->rank], 0, t->node_idx[a->rank], 0,
                  NULL, NULL };
    b.n = tc_topo_node_size(t, b.A);
    b.root = tc_topo_node_members(t, b.A)[0];
    int64_t *mem = malloc(2 * (size_t)b.n * (size_t)b.p * sizeof *mem + 1);
    if (!mem) return 1;
    b.goff = mem;
    b.aoff = mem + (size_t)b.n * b.p;
    int64_t need = layout(&b);
    if (b.r == b.root) tc_sched_need_tmp(s, need);
    gather(s, &b);
    if (b.r == b.root) exchange(s, &b);
    scatter(s, &b);
    free(mem);
    return 0;
}
