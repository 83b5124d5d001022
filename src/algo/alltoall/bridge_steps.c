/*
 * The steps shared by the alltoall "bridge" entries (Träff, Rougier, "MPI
 * Collectives and Datatypes for Hierarchical All-to-all Communication"
 * (2014)): three member-set rounds (TC_OP_SUBCOLL, sched/sched.h), each one
 * collective call of the MPI library on the node or bridge communicator,
 * spelled out as the messages it moves:
 *   gather:   every member sends its p blocks in node-sorted order (y: the
 *             position in the topology's node_ranks) to its node's root,
 *             which places them in its layout (TMP; its own by copies);
 *   exchange: the roots send each other root its node's blocks for that
 *             node's members (the own node's by copies);
 *   scatter:  the root sends member j the blocks for it, node-sorted by
 *             source, which j receives into rank order.
 * Layouts at a root of node A (n members, blocks of rcount receive
 * elements; start_J: node J's first position, n_J its size):
 *   BUNDLES  g[n start_J + i n_J + j]: member i's block for member j of J
 *            (one region per destination root); received bundles
 *            a[n start_I + i n + j]: from member i of I to my member j;
 *   ROWS     g[i p + y]: member i's block for position y; received blocks
 *            a[j p + start_I + i] (the exchange picks single blocks);
 *   PACK     every rank first copies its blocks node-sorted into pk (p
 *            blocks); the gather moves pk whole into g[i p ..], the root
 *            copies g into bundles o[n start_J + i n_J ..] (rows of n_J
 *            blocks), exchanges bundles into g, copies them into o[j p +
 *            start_I + i], scatters o[j p, p] into each member's pk, which
 *            copies its blocks into rank order.
 * Memory: p blocks of TMP at every rank for PACK; 2 n p (PACK 2 n p + p) at
 * each root.
 */
#include "algo/alltoall/bridge_steps.h"
#include "algo/alltoall/common.h"

typedef struct bridge {
    const tc_args *a;
    const tc_topo *t;
    tc_bridge_layout how;
    int p, r, A, n, root;        /* root: my node's first member */
    int64_t pk, g, o;            /* TMP blocks: packed (PACK), gathered, exchanged */
} bridge;

static tc_region tmp(const bridge *b, int64_t blk, int64_t nblk) { return a2a_blocks(b->a, TC_BUF_TMP, blk, nblk); }
static int start(const bridge *b, int J) { return b->t->node_start[J]; }
static int size_of(const bridge *b, int J) { return tc_topo_node_size(b->t, J); }

/* Where member i's block for position y lies in the root's g. */
static int64_t gathered_at(const bridge *b, int i, int y)
{
    if (b->how != TC_BRIDGE_BUNDLES) return b->g + (int64_t)i * b->p + y;
    int J = b->t->node_of[b->t->node_ranks[y]];
    return b->g + (int64_t)b->n * start(b, J) + (int64_t)i * size_of(b, J) + (y - start(b, J));
}

/* Where the block from position y for my member j lies in the root's a (o for PACK). */
static int64_t exchanged_at(const bridge *b, int j, int y)
{
    int I = b->t->node_of[b->t->node_ranks[y]], i = y - start(b, I);
    if (b->how == TC_BRIDGE_BUNDLES) return b->o + (int64_t)b->n * start(b, I) + (int64_t)i * b->n + j;
    return b->o + (int64_t)j * b->p + start(b, I) + i;
}

/* My input block for position y (rank order), or my packed copy. */
static tc_region input(const bridge *b, int y)
{
    if (b->how == TC_BRIDGE_PACK) return tmp(b, b->pk + y, 1);
    return a2a_send(b->a, b->t->node_ranks[y], 1);
}

static void gather(tc_sched *s, const bridge *b)
{
    const int *m = tc_topo_node_members(b->t, b->A);
    tc_sched_subcoll(s, TC_SUB_NODE);
    if (b->r != b->root) {
        if (b->how == TC_BRIDGE_PACK) tc_sched_send(s, b->root, tmp(b, b->pk, b->p));
        else
            for (int y = 0; y < b->p; y++) tc_sched_send(s, b->root, input(b, y));
    } else if (b->how == TC_BRIDGE_PACK) {
        for (int i = 0; i < b->n; i++)
            if (m[i] == b->r) tc_sched_copy(s, tmp(b, b->pk, b->p), tmp(b, b->g + (int64_t)i * b->p, b->p));
            else tc_sched_recv(s, m[i], tmp(b, b->g + (int64_t)i * b->p, b->p));
    } else {
        for (int i = 0; i < b->n; i++)
            for (int y = 0; y < b->p; y++)
                if (m[i] == b->r) tc_sched_copy(s, input(b, y), tmp(b, gathered_at(b, i, y), 1));
                else tc_sched_recv(s, m[i], tmp(b, gathered_at(b, i, y), 1));
    }
    tc_sched_round(s);
}

/* The roots' exchange: what goes to node J from g (PACK: the bundles in o)
 * and comes from node I into a (PACK: into g). */
static void exchange(tc_sched *s, const bridge *b)
{
    int N = b->t->nnodes, n = b->n;
    int64_t from = b->how == TC_BRIDGE_PACK ? b->o : b->g, into = b->how == TC_BRIDGE_PACK ? b->g : b->o;
    tc_sched_subcoll(s, TC_SUB_ROOTS);
    for (int J = 0; J < N; J++) {
        int peer = tc_topo_node_members(b->t, J)[0], nJ = size_of(b, J), sJ = start(b, J);
        if (b->how != TC_BRIDGE_ROWS) {   /* one bundle each way */
            tc_region out = tmp(b, from + (int64_t)n * sJ, (int64_t)n * nJ), in = tmp(b, into + (int64_t)n * sJ, (int64_t)nJ * n);
            if (J == b->A) tc_sched_copy(s, out, in);
            else tc_sched_send(s, peer, out), tc_sched_recv(s, peer, in);
            continue;
        }
        for (int i = 0; i < n; i++)   /* to J: my member i's blocks for J's members */
            for (int j = 0; j < nJ; j++)
                if (J == b->A) tc_sched_copy(s, tmp(b, b->g + (int64_t)i * b->p + sJ + j, 1), tmp(b, b->o + (int64_t)j * b->p + sJ + i, 1));
                else tc_sched_send(s, peer, tmp(b, b->g + (int64_t)i * b->p + sJ + j, 1));
        for (int i = 0; J != b->A && i < nJ; i++)   /* from J: its member i's blocks for mine */
            for (int j = 0; j < n; j++) tc_sched_recv(s, peer, tmp(b, b->o + (int64_t)j * b->p + sJ + i, 1));
    }
    tc_sched_round(s);
}

static void scatter(tc_sched *s, const bridge *b)
{
    const int *m = tc_topo_node_members(b->t, b->A);
    tc_sched_subcoll(s, TC_SUB_NODE);
    for (int j = 0; b->r == b->root && j < b->n; j++) {
        if (b->how == TC_BRIDGE_PACK) {
            tc_region part = tmp(b, b->o + (int64_t)j * b->p, b->p);
            if (m[j] == b->r) tc_sched_copy(s, part, tmp(b, b->pk, b->p));
            else tc_sched_send(s, m[j], part);
            continue;
        }
        for (int y = 0; y < b->p; y++)
            if (m[j] == b->r) tc_sched_copy(s, tmp(b, exchanged_at(b, j, y), 1), a2a_recv(b->a, b->t->node_ranks[y], 1));
            else tc_sched_send(s, m[j], tmp(b, exchanged_at(b, j, y), 1));
    }
    if (b->r != b->root && b->how == TC_BRIDGE_PACK) tc_sched_recv(s, b->root, tmp(b, b->pk, b->p));
    for (int y = 0; b->r != b->root && b->how != TC_BRIDGE_PACK && y < b->p; y++)
        tc_sched_recv(s, b->root, a2a_recv(b->a, b->t->node_ranks[y], 1));
    tc_sched_round(s);
}

/* PACK's local steps: node-sorted into pk (dir 0) or out of it (dir 1). */
static void pack(tc_sched *s, const bridge *b, int dir)
{
    for (int y = 0; y < b->p; y++) {
        int j = b->t->node_ranks[y];
        if (dir) tc_sched_copy(s, tmp(b, b->pk + y, 1), a2a_recv(b->a, j, 1));
        else tc_sched_copy(s, a2a_send(b->a, j, 1), tmp(b, b->pk + y, 1));
    }
    tc_sched_round(s);
}

/* PACK at the root: rows g[i p ..] to bundles o (dir 0), received bundles
 * g to parts o[j p ..] (dir 1). */
static void reorder(tc_sched *s, const bridge *b, int dir)
{
    for (int J = 0; J < b->t->nnodes; J++) {
        int nJ = size_of(b, J), sJ = start(b, J);
        for (int i = 0; i < (dir ? nJ : b->n); i++) {
            if (!dir) {
                tc_sched_copy(s, tmp(b, b->g + (int64_t)i * b->p + sJ, nJ), tmp(b, b->o + (int64_t)b->n * sJ + (int64_t)i * nJ, nJ));
                continue;
            }
            for (int j = 0; j < b->n; j++)
                tc_sched_copy(s, tmp(b, b->g + (int64_t)b->n * sJ + (int64_t)i * b->n + j, 1),
                              tmp(b, b->o + (int64_t)j * b->p + sJ + i, 1));
        }
    }
    tc_sched_round(s);
}

int tc_bridge_alltoall(tc_sched *s, const tc_args *a, const tc_topo *t, tc_bridge_layout how)
{
    bridge b = { a, t, how, a->size, a->rank, t->node_of[a->rank], 0, 0, 0, 0, 0 };
    b.n = size_of(&b, b.A);
    b.root = tc_topo_node_members(t, b.A)[0];
    if (a->rcount == 0) return 0;   /* nothing moves (equal signatures: at every rank) */
    int pack_blocks = how == TC_BRIDGE_PACK ? b.p : 0, at_root = b.r == b.root;
    b.pk = 0;
    b.g = pack_blocks;
    b.o = b.g + (int64_t)b.n * b.p;
    tc_sched_need_tmp(s, (pack_blocks + (at_root ? 2 * (int64_t)b.n * b.p : 0)) * a->rcount);
    if (how == TC_BRIDGE_PACK) pack(s, &b, 0);
    gather(s, &b);
    if (at_root && how == TC_BRIDGE_PACK) reorder(s, &b, 0);
    if (at_root) exchange(s, &b);
    if (at_root && how == TC_BRIDGE_PACK) reorder(s, &b, 1);
    scatter(s, &b);
    if (how == TC_BRIDGE_PACK) pack(s, &b, 1);
    return 0;
}
