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
 * Steps (b = one block):
 *   1. pack: every rank copies its blocks for the nodes of D_l, node-sorted,
 *      to a chunk per leader l (p2p: its scratch, then one message to
 *      leader l; shm: straight into leader l's row of the node-shared
 *      staging area, then a signal).  A leader's own chunk goes straight to
 *      its staging row.
 *   2. transpose: leader l reorders staging [member i][node B][rank j of B]
 *      into one bundle per node, [B][j][i] (one copy per block).
 *   3. exchange: leader l sends the bundle of B (nA nB blocks; bundles
 *      differ in size when nodes do) to B's leader for A and receives B's
 *      bundle for A, [j of A][i of B].
 *   4. distribute: for each member j, the blocks from the nodes of D_l are
 *      consecutive per node in the received bundles: one copy per (j, B) to
 *      a chunk [B][i] for member j (p2p: scratch, then one message; shm:
 *      leader l's node-shared final area, then a signal); the leader's own
 *      blocks go straight to its receive buffer.
 *   5. hand out and unpack: in one round each leader sends (signals) its
 *      chunks and every rank takes the other leaders' chunks (handing out
 *      after taking would deadlock two leaders of a node, each waiting for
 *      the other); then every rank copies them to its receive buffer, runs
 *      of consecutive source ranks as one copy.
 * Cost (G nodes, n ranks per node, b bytes per block): per leader with k=1:
 *   (n-1) alpha + (n-1) p b beta intra-node, (G-1) alpha + (p-n) n b beta
 *   inter-node, n p b copied twice; members: 2 alpha + 2 p b beta.
 *   Inter-node: G (G-1) messages in all instead of p (p - n): the paper's
 *   point for small blocks; k leaders split the bundles of a node over k
 *   ranks (and k network ports).
 * Memory: p blocks of scratch per rank, plus 3 n R_l at leader l (R_l: the
 *   ranks of its nodes D_l, about p/k); shm: 2 n p blocks node-shared (calls
 *   alternate halves), 2 n R_l scratch at leaders.
 * Restrictions: intra=shm needs the ranks of a node to share memory
 *   (TC_REQ_NODE_SHM).  MPI_IN_PLACE: every rank reads its whole input in
 *   step 1 and writes its receive buffer from step 4 on.
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
    int64_t shm_l[MAX_LEADERS];    /* node-shared staging of leader l (final follows) */
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

/* Leader l's areas, in blocks (p2p: in TMP after the pack area; shm: stage
 * and final in SHM, out and in in TMP). */
static int64_t stage_at(const hx *h, int l) { return h->shm ? h->shm_l[l] : h->a->size; }
static int64_t final_at(const hx *h, int l) { return h->shm ? h->shm_l[l] + h->nA * h->R[l] : h->a->size; }
static int64_t out_at(const hx *h, int l) { return h->shm ? 0 : h->a->size + h->nA * h->R[l]; }
static int64_t in_at(const hx *h, int l, int B)
{
    if (B == h->A) return out_at(h, l) + h->nA * h->pre[B];
    return out_at(h, l) + h->nA * h->R[l] + h->nA * h->pre[B];
}
static int area_buf(const hx *h) { return h->shm ? TC_BUF_SHM : TC_BUF_TMP; }

/* Step 1 (local): my blocks for leader l's nodes, node-sorted. */
static void pack(hx *h)
{
    for (int B = 0; B < h->t->nnodes; B++) {
        int l = owner(h, B);
        if (l == h->lead || h->shm) copy_runs(h, B, area_buf(h), stage_at(h, l) + h->ia * h->R[l] + h->pre[B], 0);
        else copy_runs(h, B, TC_BUF_TMP, h->chunk[l] + h->pre[B], 0);
    }
}

/* Step 1 (communication): chunks to the leaders; leaders take their rows. */
static void gather(hx *h)
{
    tc_sched *s = h->s;
    for (int l = 0; l < h->kA; l++) {
        if (l == h->lead) continue;
        if (h->shm) tc_sched_signal(s, leader_rank(h, l));
        else tc_sched_send(s, leader_rank(h, l), a2a_blocks(h->a, TC_BUF_TMP, h->chunk[l], h->R[l]));
    }
    if (h->lead >= 0)
        for (int i = 0; i < h->nA; i++) {
            if (i == h->ia) continue;
            if (h->shm) tc_sched_wait(s, h->memA[i]);
            else tc_sched_recv(s, h->memA[i], a2a_blocks(h->a, TC_BUF_TMP,
                                                         stage_at(h, h->lead) + i * h->R[h->lead], h->R[h->lead]));
        }
    tc_sched_round(s);
}

/* Steps 2 and 3 (leaders): transpose into bundles, exchange them. */
static void transpose_exchange(hx *h)
{
    int l = h->lead, G = h->t->nnodes, buf = area_buf(h);
    for (int B = 0; B < G; B++) {
        if (owner(h, B) != l) continue;
        int nB = tc_topo_node_size(h->t, B);
        for (int i = 0; i < h->nA; i++)
            for (int j = 0; j < nB; j++)
                tc_sched_copy(h->s, a2a_blocks(h->a, buf, stage_at(h, l) + i * h->R[l] + h->pre[B] + j, 1),
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
    int l = h->lead, buf = area_buf(h);
    for (int B = 0; B < h->t->nnodes; B++) {
        if (owner(h, B) != l) continue;
        int nB = tc_topo_node_size(h->t, B);
        for (int j = 0; j < h->nA; j++) {
            int64_t from = in_at(h, l, B) + (int64_t)j * nB;
            if (j == h->ia) copy_runs(h, B, TC_BUF_TMP, from, 1);
            else tc_sched_copy(h->s, a2a_blocks(h->a, TC_BUF_TMP, from, nB),
                               a2a_blocks(h->a, buf, final_at(h, l) + j * h->R[l] + h->pre[B], nB));
        }
    }
    if (!h->shm) tc_sched_round(h->s);   /* the chunks are written before they are sent */
}

/* Step 5: leaders hand out the chunks; every rank takes every other
 * leader's chunk (in one round: a leader that waited for another leader's
 * chunk before handing out its own would deadlock with it), then copies
 * them to RECV. */
static void scatter(hx *h)
{
    for (int j = 0; h->lead >= 0 && j < h->nA; j++) {
        if (j == h->ia) continue;
        if (h->shm) tc_sched_signal(h->s, h->memA[j]);
        else tc_sched_send(h->s, h->memA[j], a2a_blocks(h->a, TC_BUF_TMP, final_at(h, h->lead) + j * h->R[h->lead],
                                                        h->R[h->lead]));
    }
    for (int l = 0; l < h->kA; l++) {
        if (l == h->lead) continue;
        if (h->shm) tc_sched_wait(h->s, leader_rank(h, l));
        else tc_sched_recv(h->s, leader_rank(h, l), a2a_blocks(h->a, TC_BUF_TMP, h->chunk[l], h->R[l]));
    }
    tc_sched_round(h->s);
    for (int B = 0; B < h->t->nnodes; B++) {
        int l = owner(h, B);
        if (l == h->lead) continue;
        if (h->shm) copy_runs(h, B, TC_BUF_SHM, final_at(h, l) + h->ia * h->R[l] + h->pre[B], 1);
        else copy_runs(h, B, TC_BUF_TMP, h->chunk[l] + h->pre[B], 1);
    }
    tc_sched_round(h->s);
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
    int64_t p = a->size, mine = h.lead >= 0 ? h.R[h.lead] : 0;
    tc_sched_need_tmp(s, ((h.shm ? 0 : p) + (h.shm ? 2 : 3) * h.nA * mine) * a->rcount);
    if (h.shm) {
        tc_sched_need_shm(s, 2 * h.nA * p * a->rcount);
        if (h.lead >= 0) tc_sched_shm_home(s, h.shm_l[h.lead] * a->rcount, 2 * h.nA * mine * a->rcount);
    }
    pack(&h);
    if (!h.shm) tc_sched_round(s);
    gather(&h);
    if (h.lead >= 0) {
        transpose_exchange(&h);
        distribute(&h);
    }
    scatter(&h);
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
