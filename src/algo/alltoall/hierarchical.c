/*
 * alltoall family "hierarchical:leaders=1|2|4,intra=p2p|shm" (aliases
 * "h<L>_<intra>", e.g. h1_p2p, h2_shm): the hierarchical alltoall of
 * Träff, Rougier, "MPI Collectives and Datatypes for Hierarchical
 * All-to-all Communication" (2014), section 2, as a schedule, with k
 * leaders per node (each handling a share of the destination nodes) and
 * the node-local phases over messages or node-shared memory.
 *
 * Order.  The paper's node-sorted rank order is the topology's member
 * lists: nodes in order, each node's ranks in increasing order.  Nothing
 * assumes consecutive ranks or equal nodes; a run of consecutive ranks
 * inside a node is one copy.
 *
 * Leaders.  Node A (nA ranks) has kA = min(k, nA) leaders, spread over its
 * member list (leader l is member l nA / kA).  The pair of nodes (A, B) is
 * handled by leader (A+B) mod kA of A and (A+B) mod kB of B, so leader l of
 * A sends to and receives from the nodes D_l = { B : (A+B) mod kA = l }
 * (A itself included when it falls to l: that bundle stays local).
 *
 * Steps with intra=p2p (b = one block):
 *   1. pack: every rank copies its blocks for the nodes of D_l, node-sorted,
 *      to a chunk per leader l in its scratch, then sends it to leader l in
 *      one message.  A leader's own chunk goes straight to its staging row.
 *   2. transpose: leader l reorders staging [member i][node B][rank j of B]
 *      into one bundle per node, [B][j][i] (one copy per block).
 *   3. exchange: leader l sends the bundle of B (nA nB blocks; bundles
 *      differ in size when nodes do) to B's leader for A and receives B's
 *      bundle for A, [j of A][i of B].
 *   4. distribute: for each member j, the blocks from the nodes of D_l are
 *      consecutive per node in the received bundles: one copy per (j, B) to
 *      a chunk [B][i] for member j, then one message; the leader's own
 *      blocks go straight to its receive buffer.
 *   5. hand out and unpack: in one round each leader sends its chunks and
 *      every rank receives the other leaders' chunks (handing out after
 *      taking would deadlock two leaders of a node, each waiting for the
 *      other); then every rank copies them to its receive buffer, runs of
 *      consecutive source ranks as one copy.
 * Steps with intra=shm (every block copied twice, by its own rank, and the
 * leaders only send and receive):
 *   1. pack transposed: every rank i writes its block for rank j of node B
 *      straight to its place in the outgoing bundle of B, [B][j][i], in the
 *      node-shared area of B's leader, then signals every leader.
 *   2. exchange: leader l waits for its node's ranks, then sends each
 *      bundle of D_l from the node-shared area and receives B's bundle for
 *      A, [j of A][i of B], into it.
 *   3. unpack: every leader signals its node's ranks; every rank j waits for
 *      the other leaders and copies row j of each incoming bundle (of its
 *      own node: row j of the outgoing one) to its receive buffer, runs of
 *      consecutive source ranks as one copy.
 * Cost (G nodes, n ranks per node, b bytes per block): per leader with k=1:
 *   (n-1) alpha + (n-1) p b beta intra-node, (G-1) alpha + (p-n) n b beta
 *   inter-node, n p b copied twice; members: 2 alpha + 2 p b beta.  With
 *   intra=shm a leader copies only its own p blocks in and out, and the
 *   intra-node alphas are flag writes and reads.
 *   Inter-node: G (G-1) messages in all instead of p (p - n): the paper's
 *   point for small blocks; k leaders split the bundles of a node over k
 *   ranks (and k network ports).
 * Memory: p2p: p blocks of scratch per rank, plus 3 n R_l at leader l (R_l:
 *   the ranks of its nodes D_l, about p/k); shm: 2 n p blocks node-shared
 *   (leader l's outgoing and incoming bundles, 2 n R_l, bound to its NUMA
 *   domain; calls alternate halves) and no scratch.
 * Restrictions: intra=shm needs the ranks of a node to share memory
 *   (TC_REQ_NODE_SHM).  MPI_IN_PLACE: every rank reads its whole input in
 *   step 1, before anything writes its receive buffer.
 * Source: Träff, Rougier 2014, sections 2.1-2.3; multi-leader after
 *   Kandalla, Subramoni, Santhanaraman, Koop, Panda 2009.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/alltoall/common.h"

#define MAX_LEADERS 4

enum { P_LEADERS, P_INTRA };
enum { I_P2P, I_SHM };

static const char *const leader_values[] = { "1", "2", "4", NULL };
static const int leader_count[] = { 1, 2, 4 };
static const char *const intra_values[] = { "p2p", "shm", NULL };

typedef struct hx {
    tc_sched *s;
    const tc_args *a;
    const tc_topo *t;
    int shm, k;
    int me, A, nA, ia, kA, lead;   /* lead: my leader index, -1 for none */
    const int *memA;
    int64_t *pre;                  /* [G] offset of node B inside its leader's chunk */
    int64_t R[MAX_LEADERS];        /* blocks of each leader's chunk */
    int64_t chunk[MAX_LEADERS];    /* chunk offsets in a rank's pack area */
    int64_t shm_l[MAX_LEADERS];    /* shm: leader l's node-shared area, in blocks */
} hx;

static int nleaders(int n, int k) { return n < k ? n : k; }
static int leader_member(int l, int n, int kn) { return (int)((int64_t)l * n / kn); }
static int owner(const hx *h, int B) { return (h->A + B) % h->kA; }

/* B's leader for the pair (A, B). */
static int peer_leader(const hx *h, int B)
{
    int nB = tc_topo_node_size(h->t, B), kB = nleaders(nB, h->k);
    return tc_topo_node_members(h->t, B)[leader_member((h->A + B) % kB, nB, kB)];
}

static int leader_rank(const hx *h, int l) { return h->memA[leader_member(l, h->nA, h->kA)]; }

/* Copies between the ranks j0..j0+len of node B (rank order in SEND/RECV)
 * and consecutive blocks of buf from `at`: to_user 0 reads SEND, 1 writes
 * RECV; one copy per run of consecutive ranks. */
static void copy_runs(const hx *h, int B, int buf, int64_t at, int to_user)
{
    const int *m = tc_topo_node_members(h->t, B);
    int n = tc_topo_node_size(h->t, B);
    for (int x = 0; x < n;) {
        int y = x + 1;
        while (y < n && m[y] == m[y - 1] + 1) y++;
        tc_region mine = a2a_blocks(h->a, buf, at + x, y - x);
        if (to_user) tc_sched_copy(h->s, mine, a2a_recv(h->a, m[x], y - x));
        else tc_sched_copy(h->s, a2a_send(h->a, m[x], y - x), mine);
        x = y;
    }
}

/* intra=p2p: leader l's areas in TMP after the pack area, in blocks.  The
 * staging rows [i][B][j] come first; the members' chunks [j][B][i] are
 * written over them in step 4, once the transposition has read them. */
static int64_t rows_at(const hx *h) { return h->a->size; }
static int64_t out_at(const hx *h, int l) { return h->a->size + h->nA * h->R[l]; }
static int64_t in_at(const hx *h, int l, int B)
{
    if (B == h->A) return out_at(h, l) + h->nA * h->pre[B];
    return out_at(h, l) + h->nA * h->R[l] + h->nA * h->pre[B];
}

/* Step 1 (local): my blocks for leader l's nodes, node-sorted. */
static void pack(hx *h)
{
    for (int B = 0; B < h->t->nnodes; B++) {
        int l = owner(h, B);
        if (l == h->lead) copy_runs(h, B, TC_BUF_TMP, rows_at(h) + h->ia * h->R[l] + h->pre[B], 0);
        else copy_runs(h, B, TC_BUF_TMP, h->chunk[l] + h->pre[B], 0);
    }
    tc_sched_round(h->s);
}

/* Step 1 (communication): chunks to the leaders; leaders take their rows. */
static void gather(hx *h)
{
    tc_sched *s = h->s;
    for (int l = 0; l < h->kA; l++)
        if (l != h->lead)
            tc_sched_send(s, leader_rank(h, l), a2a_blocks(h->a, TC_BUF_TMP, h->chunk[l], h->R[l]));
    for (int i = 0; h->lead >= 0 && i < h->nA; i++)
        if (i != h->ia)
            tc_sched_recv(s, h->memA[i], a2a_blocks(h->a, TC_BUF_TMP, rows_at(h) + i * h->R[h->lead], h->R[h->lead]));
    tc_sched_round(s);
}

/* Steps 2 and 3 (leaders): transpose into bundles, exchange them. */
static void transpose_exchange(hx *h)
{
    int l = h->lead, G = h->t->nnodes;
    for (int B = 0; B < G; B++) {
        if (owner(h, B) != l) continue;
        int nB = tc_topo_node_size(h->t, B);
        for (int i = 0; i < h->nA; i++)
            for (int j = 0; j < nB; j++)
                tc_sched_copy(h->s, a2a_blocks(h->a, TC_BUF_TMP, rows_at(h) + i * h->R[l] + h->pre[B] + j, 1),
                              a2a_blocks(h->a, TC_BUF_TMP, out_at(h, l) + h->nA * h->pre[B] + (int64_t)j * h->nA + i, 1));
    }
    tc_sched_round(h->s);
    for (int B = 0; B < G; B++) {
        if (owner(h, B) != l || B == h->A) continue;
        int64_t n = (int64_t)h->nA * tc_topo_node_size(h->t, B);
        tc_sched_recv(h->s, peer_leader(h, B), a2a_blocks(h->a, TC_BUF_TMP, in_at(h, l, B), n));
        tc_sched_send(h->s, peer_leader(h, B),
                      a2a_blocks(h->a, TC_BUF_TMP, out_at(h, l) + h->nA * h->pre[B], n));
    }
    tc_sched_round(h->s);
}

/* Step 4 (leaders): a chunk per member, my own blocks to RECV. */
static void distribute(hx *h)
{
    int l = h->lead;
    for (int B = 0; B < h->t->nnodes; B++) {
        if (owner(h, B) != l) continue;
        int nB = tc_topo_node_size(h->t, B);
        for (int j = 0; j < h->nA; j++) {
            int64_t from = in_at(h, l, B) + (int64_t)j * nB;
            if (j == h->ia) copy_runs(h, B, TC_BUF_TMP, from, 1);
            else tc_sched_copy(h->s, a2a_blocks(h->a, TC_BUF_TMP, from, nB),
                               a2a_blocks(h->a, TC_BUF_TMP, rows_at(h) + j * h->R[l] + h->pre[B], nB));
        }
    }
    tc_sched_round(h->s);   /* the chunks are written before they are sent */
}

/* Step 5: leaders hand out the chunks; every rank takes every other
 * leader's chunk (in one round: a leader that waited for another leader's
 * chunk before handing out its own would deadlock with it), then copies
 * them to RECV. */
static void scatter(hx *h)
{
    for (int j = 0; h->lead >= 0 && j < h->nA; j++)
        if (j != h->ia)
            tc_sched_send(h->s, h->memA[j], a2a_blocks(h->a, TC_BUF_TMP, rows_at(h) + j * h->R[h->lead],
                                                       h->R[h->lead]));
    for (int l = 0; l < h->kA; l++)
        if (l != h->lead) tc_sched_recv(h->s, leader_rank(h, l), a2a_blocks(h->a, TC_BUF_TMP, h->chunk[l], h->R[l]));
    tc_sched_round(h->s);
    for (int B = 0; B < h->t->nnodes; B++) {
        int l = owner(h, B);
        if (l != h->lead) copy_runs(h, B, TC_BUF_TMP, h->chunk[l] + h->pre[B], 1);
    }
    tc_sched_round(h->s);
}

static void generate_p2p(hx *h)
{
    tc_sched_need_tmp(h->s, (h->a->size + 3 * h->nA * (h->lead >= 0 ? h->R[h->lead] : 0)) * h->a->rcount);
    pack(h);
    gather(h);
    if (h->lead >= 0) {
        transpose_exchange(h);
        distribute(h);
    }
    scatter(h);
}

/* intra=shm: the node-shared area of B's leader holds the outgoing bundle
 * of B, [j of B][i of A], and after the outgoing bundles of all its nodes
 * the incoming one, [j of A][i of B]; both nA nB blocks. */
static int64_t bundle_out_at(const hx *h, int B) { return h->shm_l[owner(h, B)] + h->nA * h->pre[B]; }
static int64_t bundle_in_at(const hx *h, int B)
{
    int l = owner(h, B);
    return h->shm_l[l] + h->nA * (h->R[l] + h->pre[B]);
}

/* Step 1, one round: each of my blocks to its place in an outgoing bundle
 * (one copy per block: the transposition happens here, spread over the
 * node's ranks); then every leader hears that my blocks are there (a round
 * raises its signals after its copies), and leaders wait for all. */
static void pack_transposed(hx *h)
{
    for (int B = 0; B < h->t->nnodes; B++) {
        if (h->nA == 1) {   /* a bundle from a node of one rank is in B's rank order */
            copy_runs(h, B, TC_BUF_SHM, bundle_out_at(h, B), 0);
            continue;
        }
        const int *m = tc_topo_node_members(h->t, B);
        for (int j = 0; j < tc_topo_node_size(h->t, B); j++)
            tc_sched_copy(h->s, a2a_send(h->a, m[j], 1),
                          a2a_blocks(h->a, TC_BUF_SHM, bundle_out_at(h, B) + (int64_t)j * h->nA + h->ia, 1));
    }
    for (int l = 0; l < h->kA; l++)
        if (l != h->lead) tc_sched_signal(h->s, leader_rank(h, l));
    for (int i = 0; h->lead >= 0 && i < h->nA; i++)
        if (i != h->ia) tc_sched_wait(h->s, h->memA[i]);
    tc_sched_round(h->s);
}

/* Step 2 (leaders): the bundles of my nodes, from and to the node-shared
 * area. */
static void exchange_bundles(hx *h)
{
    for (int B = 0; B < h->t->nnodes; B++) {
        if (owner(h, B) != h->lead || B == h->A) continue;
        int64_t n = (int64_t)h->nA * tc_topo_node_size(h->t, B);
        tc_sched_recv(h->s, peer_leader(h, B), a2a_blocks(h->a, TC_BUF_SHM, bundle_in_at(h, B), n));
        tc_sched_send(h->s, peer_leader(h, B), a2a_blocks(h->a, TC_BUF_SHM, bundle_out_at(h, B), n));
    }
    tc_sched_round(h->s);
}

/* Step 3: leaders tell their node's ranks that their bundles are in (one
 * round, as in scatter); every rank copies its row of every bundle. */
static void unpack_rows(hx *h)
{
    for (int j = 0; h->lead >= 0 && j < h->nA; j++)
        if (j != h->ia) tc_sched_signal(h->s, h->memA[j]);
    for (int l = 0; l < h->kA; l++)
        if (l != h->lead) tc_sched_wait(h->s, leader_rank(h, l));
    tc_sched_round(h->s);
    for (int B = 0; B < h->t->nnodes; B++) {
        int64_t row = B == h->A ? bundle_out_at(h, B) + (int64_t)h->ia * h->nA
                                : bundle_in_at(h, B) + (int64_t)h->ia * tc_topo_node_size(h->t, B);
        copy_runs(h, B, TC_BUF_SHM, row, 1);
    }
    tc_sched_round(h->s);
}

static void generate_shm(hx *h)
{
    int64_t rc = h->a->rcount;
    tc_sched_need_shm(h->s, 2 * h->nA * h->a->size * rc);
    if (h->lead >= 0) tc_sched_shm_home(h->s, h->shm_l[h->lead] * rc, 2 * h->nA * h->R[h->lead] * rc);
    pack_transposed(h);
    if (h->lead >= 0) exchange_bundles(h);
    unpack_rows(h);
}

/* The node's chunk layout: per leader its nodes' offsets and sizes. */
static void layout(hx *h)
{
    for (int B = 0; B < h->t->nnodes; B++) {
        int l = owner(h, B);
        h->pre[B] = h->R[l];
        h->R[l] += tc_topo_node_size(h->t, B);
    }
    for (int l = 0; l < h->kA; l++) {
        h->chunk[l] = l ? h->chunk[l - 1] + h->R[l - 1] : 0;
        h->shm_l[l] = l ? h->shm_l[l - 1] + 2 * (int64_t)h->nA * h->R[l - 1] : 0;
    }
    for (int l = 0; l < h->kA; l++)
        if (leader_member(l, h->nA, h->kA) == h->ia) h->lead = l;
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    const int *v = a->param;
    hx h;
    memset(&h, 0, sizeof h);
    h.s = s, h.a = a, h.t = t;
    h.k = leader_count[v ? v[P_LEADERS] : 0];
    h.shm = v && v[P_INTRA] == I_SHM;
    h.me = a->rank;
    h.A = t->node_of[h.me];
    h.nA = tc_topo_node_size(t, h.A);
    h.ia = t->node_idx[h.me];
    h.memA = tc_topo_node_members(t, h.A);
    h.kA = nleaders(h.nA, h.k);
    h.lead = -1;
    if (a->in_place && a->size == 1) return 0;
    h.pre = malloc((size_t)t->nnodes * sizeof *h.pre);
    if (!h.pre) return 1;
    layout(&h);
    if (h.shm) generate_shm(&h);
    else generate_p2p(&h);
    free(h.pre);
    return 0;
}

/* ---- the family's catalog row ---------------------------------------------- */

static const tc_param_def params[] = {
    { "leaders", leader_values, 0 },
    { "intra", intra_values, I_P2P },
};

static void describe(const tc_family *f, const int *v, tc_instance_text *out)
{
    (void)f;
    snprintf(out->alias, sizeof out->alias, "h%s_%s", leader_values[v[P_LEADERS]], intra_values[v[P_INTRA]]);
    snprintf(out->desc, sizeof out->desc,
             "hierarchical, %s leader%s per node: node-local gather, leaders exchange node "
             "bundles, node-local scatter (%s)", leader_values[v[P_LEADERS]],
             v[P_LEADERS] ? "s" : "", v[P_INTRA] == I_SHM ? "node-shared memory" : "messages");
}

static unsigned req_of(const int *v) { return v[P_INTRA] == I_SHM ? TC_REQ_NODE_SHM : TC_REQ_NONE; }

const tc_family tc_alltoall_hierarchical = {
    .coll = TOPOCOLL_ALLTOALL, .name = "hierarchical",
    .summary = "hierarchical alltoall (Träff, Rougier 2014) with k leaders per node: "
               "node-local gather, exchange of node bundles among leaders, node-local scatter",
    .source = __FILE__, .nparams = 2, .params = params, .rule = "",
    .describe = describe, .req = TC_REQ_NONE, .req_of = req_of, .generate = generate,
};
