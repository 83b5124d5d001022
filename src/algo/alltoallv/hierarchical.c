/*
 * alltoallv family "hierarchical:leaders=1|2|4,intra=p2p|shm" (aliases
 * "h1", "h2", "h4" for messages, "h1_shm", "h2_shm", "h4_shm" for node-
 * shared memory): the hierarchical irregular all-to-all of Träff, Rougier,
 * "MPI Collectives and Datatypes for Hierarchical All-to-all Communication"
 * (2014), section 2.4, as a schedule: the alltoall family's scheme
 * (src/algo/alltoall/hierarchical.c: node-sorted order from the topology's
 * member lists, k leaders per node, leader (A+B) mod kA of node A handling
 * node B) with a size per part, the node-local phases over messages or the
 * node-shared window.
 *
 * Counts.  Each rank knows only its own counts, but a leader must lay out
 * its node's parts.  The consumer gathers them node-locally before the
 * schedule is made (TC_REQ_NODE_COUNTS; the paper's "counts gathered node-
 * locally first"): tc_args.node_sc / node_rc are the send and receive
 * rows of every member of my node, in units of scratch (TMP, the receive
 * type).  The MPI layer exchanges them in bytes and runs the schedule on
 * byte-bound buffers (src/api/node_counts.c); the verifier fills them from
 * its count matrix.  Without per-peer counts (tc_args.v NULL: the
 * simulator) every part is rcount.  With intra=shm every rank lays out the
 * whole node's window from the same rows, so the ranks of a node agree on
 * its size and grow it together.
 *
 * Steps (S(i,j): units member i of my node sends to rank j; R(i,j): units
 * member i receives from rank j):
 *   1. pack: every rank copies its parts for the nodes of leader l, node-
 *      sorted, into its row of leader l's staging area (p2p: a chunk in its
 *      scratch, the leader's own straight into its staging row; shm: the
 *      row in the node-shared window); one copy per part.
 *   2. gather: p2p: the chunks to the leaders; shm: a signal to every
 *      leader (also with nothing for it: the signals order the window's
 *      reuse across calls).
 *   3. transpose (leaders): staging [i][B][j] into one bundle per other
 *      node B, [j of B][i of A], sizes S(i,j).
 *   4. exchange: leader l sends B's bundle to B's leader for A and receives
 *      B's bundle for A, [j of A][i of B] (bundles differ in size).
 *   5. distribute (leaders): member j's parts from node B are consecutive in
 *      B's bundle: one copy per (j, B) into j's chunk [B][i] (p2p: scratch;
 *      shm: the window); my own node's parts go straight from the staging
 *      rows, one copy per part of min(S(i,j), R(j,i)) (counts that do not
 *      match inside a node stay in bounds); the leader's own parts go to
 *      its receive buffer.
 *   6. scatter: p2p: leaders send the chunks, every rank takes the other
 *      leaders' chunks in the same round (as in the alltoall family, a
 *      leader waiting before handing out would deadlock with another); shm:
 *      a signal to every member, a wait on every other leader.  Then every
 *      rank copies each part to its displacement.
 * Cost (G nodes, n ranks per node, k = 1, m the mean part): the count
 *   exchange (one node-local allgather of 2p counts per rank) plus, per
 *   leader, (n-1) alpha + n p m beta intra-node twice (shm: n-1 signals and
 *   waits, the members' copies in the window instead of messages), (G-1)
 *   alpha + (p-n) n m beta inter-node, every part copied three times (parts
 *   inside the node twice); members: 2 alpha + 2 p m beta (shm: 2 copies
 *   of p m, one signal and one wait per leader).  Inter-node G (G-1)
 *   messages instead of p (p-n).
 * Memory: the node's counts (2 n p); p2p: the own parts twice (pack and
 *   receive areas), leader l also its share of the node's parts three
 *   times (staging, bundles out, bundles in); shm: the node's parts twice in
 *   the window (staging rows and chunks; calls alternate between two
 *   halves), leader l its share of the other nodes' parts twice in scratch.
 * Restrictions: per-peer counts need the node's count rows
 *   (TC_REQ_NODE_COUNTS: the generator fails without them); intra=shm needs
 *   the ranks of a node to share memory (TC_REQ_NODE_SHM).  MPI_IN_PLACE:
 *   every part is read in step 1, the receive buffer written from step 5 on.
 * Source: Träff, Rougier 2014, sections 2.1-2.4; multi-leader after
 *   Kandalla, Subramoni, Santhanaraman, Koop, Panda, "Designing Multi-Leader-
 *   Based Allgather Algorithms for Multi-Core Clusters" (2009).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/alltoallv/common.h"

#define MAX_LEADERS 4

enum { P_LEADERS, P_INTRA };
enum { I_P2P, I_SHM };

static const char *const leader_values[] = { "1", "2", "4", NULL };
static const int leader_count[] = { 1, 2, 4 };
static const char *const intra_values[] = { "p2p", "shm", NULL };

typedef struct hv {
    tc_sched *s;
    const tc_args *a;
    const tc_topo *t;
    int p, G, k, shm;
    int A, nA, ia, kA, lead;        /* lead: my leader index, -1 for none */
    const int *memA;
    int64_t chunk[MAX_LEADERS], csz[MAX_LEADERS];   /* p2p: my pack chunks, TMP offset and size */
    int64_t rchunk[MAX_LEADERS], rsz[MAX_LEADERS];  /* p2p: the chunks the other leaders send me */
    int64_t tmp_end;                /* TMP used so far */
    /* shm: the node's window, leader by leader: staging rows, then chunks */
    int64_t *rs, *fs;               /* [kA * nA] row and chunk sizes of (leader, member) */
    int64_t base[MAX_LEADERS + 1];  /* leader l's area; base[kA]: the window's size */
    /* leaders only (rows and chunks in TMP, or in SHM with intra=shm) */
    int64_t *row;                   /* [nA + 1] staging row of member i (row[nA]: end) */
    int64_t *seg;                   /* [nA * G] offset of B's segment in row i */
    int64_t *bout, *bin;            /* [G] bundle of B, out and in (TMP) */
    int64_t *fin;                   /* [nA + 1] final chunk of member j (fin[nA]: end) */
} hv;

static int nleaders(int n, int k) { return n < k ? n : k; }
static int leader_member(int l, int n, int kn) { return (int)((int64_t)l * n / kn); }
static int owner(const hv *h, int B) { return (h->A + B) % h->kA; }
static int leader_rank(const hv *h, int l) { return h->memA[leader_member(l, h->nA, h->kA)]; }

static int peer_leader(const hv *h, int B)
{
    int nB = tc_topo_node_size(h->t, B), kB = nleaders(nB, h->k);
    return tc_topo_node_members(h->t, B)[leader_member((h->A + B) % kB, nB, kB)];
}

/* Units member i of my node sends to / receives from rank j (TMP units). */
static int64_t S(const hv *h, int i, int j)
{ return h->a->v ? h->a->node_sc[(int64_t)i * h->p + j] : h->a->rcount; }
static int64_t R(const hv *h, int i, int j)
{ return h->a->v ? h->a->node_rc[(int64_t)i * h->p + j] : h->a->rcount; }

/* My input part for rank j: SEND, or RECV in place (read in step 1 only). */
static tc_region in_part(const tc_args *a, int j)
{ return a->in_place ? av_out(a, j) : tc_reg(TC_BUF_SEND, av_sdispl(a, j), av_scount(a, j)); }

static tc_region tmp(int64_t off, int64_t cnt) { return tc_reg(TC_BUF_TMP, off, cnt); }
/* The buffer of the staging rows and chunks: the window or scratch. */
static tc_region area(const hv *h, int64_t off, int64_t cnt) { return tc_reg(h->shm ? TC_BUF_SHM : TC_BUF_TMP, off, cnt); }
static int64_t min64(int64_t x, int64_t y) { return x < y ? x : y; }

static int64_t node_sum(const hv *h, int B, int i, int64_t (*f)(const hv *, int, int))
{
    const int *m = tc_topo_node_members(h->t, B);
    int64_t sum = 0;
    for (int x = 0; x < tc_topo_node_size(h->t, B); x++) sum += f(h, i, m[x]);
    return sum;
}

/* shm: member i's staging row and member j's chunk in leader l's area. */
static int64_t shm_row(const hv *h, int l, int i)
{
    int64_t at = h->base[l];
    for (int y = 0; y < i; y++) at += h->rs[l * h->nA + y];
    return at;
}
static int64_t shm_fin(const hv *h, int l, int j)
{
    int64_t at = shm_row(h, l, h->nA);
    for (int y = 0; y < j; y++) at += h->fs[l * h->nA + y];
    return at;
}

/* Step 1: my parts, node-sorted, to my row of every leader. */
static void pack(hv *h)
{
    int64_t cur[MAX_LEADERS];
    for (int l = 0; l < h->kA; l++)
        cur[l] = h->shm ? shm_row(h, l, h->ia) : l == h->lead ? h->row[h->ia] : h->chunk[l];
    for (int B = 0; B < h->G; B++) {
        const int *m = tc_topo_node_members(h->t, B);
        int l = owner(h, B);
        int own = h->shm || l == h->lead;
        for (int x = 0; x < tc_topo_node_size(h->t, B); x++) {
            int64_t n = S(h, h->ia, m[x]);
            tc_sched_copy(h->s, in_part(h->a, m[x]), own ? area(h, cur[l], n) : tmp(cur[l], n));
            cur[l] += n;
        }
    }
    if (!h->shm) tc_sched_round(h->s);   /* shm: the signals below release the copies */
}

/* Step 2: chunks (signals) to the leaders; leaders take their rows. */
static void gather(hv *h)
{
    for (int l = 0; l < h->kA; l++) {
        if (l == h->lead) continue;
        if (h->shm) tc_sched_signal(h->s, leader_rank(h, l));
        else tc_sched_send(h->s, leader_rank(h, l), tmp(h->chunk[l], h->csz[l]));
    }
    for (int i = 0; h->lead >= 0 && i < h->nA; i++) {
        if (i == h->ia) continue;
        if (h->shm) tc_sched_wait(h->s, h->memA[i]);
        else tc_sched_recv(h->s, h->memA[i], tmp(h->row[i], h->row[i + 1] - h->row[i]));
    }
    tc_sched_round(h->s);
}

/* Steps 3 and 4 (leaders): bundles of the other nodes out of the staging
 * rows, exchanged. */
static void transpose_exchange(hv *h)
{
    for (int B = 0; B < h->G; B++) {
        if (owner(h, B) != h->lead || B == h->A) continue;
        const int *m = tc_topo_node_members(h->t, B);
        int64_t at = h->bout[B], *in_row = malloc((size_t)h->nA * sizeof *in_row);
        if (!in_row) { h->s->err = 1; return; }
        for (int i = 0; i < h->nA; i++) in_row[i] = h->seg[(int64_t)i * h->G + B];
        for (int x = 0; x < tc_topo_node_size(h->t, B); x++)
            for (int i = 0; i < h->nA; i++) {
                int64_t n = S(h, i, m[x]);
                tc_sched_copy(h->s, area(h, in_row[i], n), tmp(at, n));
                in_row[i] += n;
                at += n;
            }
        free(in_row);
    }
    tc_sched_round(h->s);
    for (int B = 0; B < h->G; B++) {
        if (owner(h, B) != h->lead || B == h->A) continue;
        int64_t nin = 0, nout = 0;
        for (int i = 0; i < h->nA; i++) nin += node_sum(h, B, i, R), nout += node_sum(h, B, i, S);
        tc_sched_recv(h->s, peer_leader(h, B), tmp(h->bin[B], nin));
        tc_sched_send(h->s, peer_leader(h, B), tmp(h->bout[B], nout));
    }
    tc_sched_round(h->s);
}

/* Step 5 for my own node (leader of A): part (i -> j) straight from row
 * i's segment of A to j's chunk (mine: to RECV); at most what both sides
 * count, so that counts that do not match inside a node stay in bounds. */
static void distribute_own(hv *h, int64_t *fcur)
{
    int n = h->nA;
    int64_t *in_row = malloc((size_t)n * sizeof *in_row);
    if (!in_row) { h->s->err = 1; return; }
    for (int i = 0; i < n; i++) in_row[i] = h->seg[(int64_t)i * h->G + h->A];
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            int64_t c = min64(S(h, i, h->memA[j]), R(h, j, h->memA[i]));
            tc_region from = area(h, in_row[i], c);
            if (j == h->ia) tc_sched_copy(h->s, from, tc_reg(TC_BUF_RECV, av_rdispl(h->a, h->memA[i]), c));
            else tc_sched_copy(h->s, from, area(h, fcur[j], c));
            if (j != h->ia) fcur[j] += R(h, j, h->memA[i]);
            in_row[i] += S(h, i, h->memA[j]);
        }
    free(in_row);
}

/* Step 5 (leaders): member j's parts from B, one copy per (j, B); mine to RECV. */
static void distribute(hv *h)
{
    int64_t *fcur = malloc((size_t)h->nA * sizeof *fcur);
    if (!fcur) { h->s->err = 1; return; }
    memcpy(fcur, h->fin, (size_t)h->nA * sizeof *fcur);
    for (int B = 0; B < h->G; B++) {
        if (owner(h, B) != h->lead) continue;
        if (B == h->A) { distribute_own(h, fcur); continue; }
        const int *m = tc_topo_node_members(h->t, B);
        int64_t at = h->bin[B];
        for (int j = 0; j < h->nA; j++) {
            int64_t n = node_sum(h, B, j, R);
            if (j != h->ia) {
                tc_sched_copy(h->s, tmp(at, n), area(h, fcur[j], n));
                fcur[j] += n;
                at += n;
                continue;
            }
            for (int x = 0; x < tc_topo_node_size(h->t, B); x++) {
                int64_t c = R(h, j, m[x]);
                tc_sched_copy(h->s, tmp(at, c), av_out(h->a, m[x]));
                at += c;
            }
        }
    }
    free(fcur);
    if (!h->shm) tc_sched_round(h->s);   /* shm: the scatter's signals release the copies */
}

/* Step 6: chunks (signals) out and in, one round; then my parts to RECV. */
static void scatter(hv *h)
{
    for (int j = 0; h->lead >= 0 && j < h->nA; j++) {
        if (j == h->ia) continue;
        if (h->shm) tc_sched_signal(h->s, h->memA[j]);
        else tc_sched_send(h->s, h->memA[j], tmp(h->fin[j], h->fin[j + 1] - h->fin[j]));
    }
    for (int l = 0; l < h->kA; l++) {
        if (l == h->lead) continue;
        if (h->shm) tc_sched_wait(h->s, leader_rank(h, l));
        else tc_sched_recv(h->s, leader_rank(h, l), tmp(h->rchunk[l], h->rsz[l]));
    }
    tc_sched_round(h->s);
    int64_t cur[MAX_LEADERS];
    for (int l = 0; l < h->kA; l++) cur[l] = h->shm ? shm_fin(h, l, h->ia) : h->rchunk[l];
    for (int B = 0; B < h->G; B++) {
        int l = owner(h, B);
        if (l == h->lead) continue;
        const int *m = tc_topo_node_members(h->t, B);
        for (int x = 0; x < tc_topo_node_size(h->t, B); x++) {
            int64_t c = R(h, h->ia, m[x]);
            tc_sched_copy(h->s, area(h, cur[l], c), av_out(h->a, m[x]));
            cur[l] += c;
        }
    }
    tc_sched_round(h->s);
}

/* p2p: my chunks: per leader, the parts of its nodes; the pack area, then
 * the receive area (none for my own leader index). */
static void layout_mine(hv *h)
{
    for (int B = 0; B < h->G; B++) {
        h->csz[owner(h, B)] += node_sum(h, B, h->ia, S);
        h->rsz[owner(h, B)] += node_sum(h, B, h->ia, R);
    }
    int64_t at = 0;
    for (int l = 0; l < h->kA; l++) {
        if (l == h->lead) h->csz[l] = h->rsz[l] = 0;
        h->chunk[l] = at;
        at += h->csz[l];
    }
    for (int l = 0; l < h->kA; l++) {
        h->rchunk[l] = at;
        at += h->rsz[l];
    }
    h->tmp_end = at;
}

/* shm: the node's window from the node's rows (the same at every member):
 * per leader l, every member's staging row, then every member's chunk (none
 * for the leader itself).  0, or 1 without memory. */
static int layout_shm(hv *h)
{
    size_t cells = (size_t)h->kA * (size_t)h->nA;
    h->rs = calloc(2 * cells + 1, sizeof *h->rs);
    if (!h->rs) return 1;
    h->fs = h->rs + cells;
    for (int B = 0; B < h->G; B++) {
        int l = owner(h, B);
        for (int i = 0; i < h->nA; i++) {
            h->rs[l * h->nA + i] += node_sum(h, B, i, S);
            if (i != leader_member(l, h->nA, h->kA)) h->fs[l * h->nA + i] += node_sum(h, B, i, R);
        }
    }
    h->base[0] = 0;
    for (int l = 0; l < h->kA; l++) {
        int64_t sz = 0;
        for (int i = 0; i < h->nA; i++) sz += h->rs[l * h->nA + i] + h->fs[l * h->nA + i];
        h->base[l + 1] = h->base[l] + sz;
    }
    h->tmp_end = 0;
    return 0;
}

/* A leader's areas: staging rows (segments per node) and final chunks
 * (after my own areas in TMP, or in the window), bundles out and in (TMP).
 * 0, or 1 without memory. */
static int layout_leader(hv *h)
{
    int nA = h->nA, G = h->G;
    h->row = malloc((size_t)(nA + 1) * sizeof *h->row);
    h->fin = malloc((size_t)(nA + 1) * sizeof *h->fin);
    h->seg = malloc((size_t)nA * (size_t)G * sizeof *h->seg);
    h->bout = malloc((size_t)G * sizeof *h->bout);
    h->bin = malloc((size_t)G * sizeof *h->bin);
    if (!h->row || !h->fin || !h->seg || !h->bout || !h->bin) return 1;
    int64_t at = h->shm ? shm_row(h, h->lead, 0) : h->tmp_end;
    for (int i = 0; i < nA; i++) {   /* staging: row i = member i's chunk */
        h->row[i] = at;
        for (int B = 0; B < G; B++) {
            if (owner(h, B) != h->lead) continue;
            h->seg[(int64_t)i * G + B] = at;
            at += node_sum(h, B, i, S);
        }
    }
    h->row[nA] = at;
    int64_t t = h->shm ? h->tmp_end : at;
    for (int B = 0; B < G; B++) {    /* bundles out: [j of B][i of A]; none for A */
        if (owner(h, B) != h->lead || B == h->A) continue;
        h->bout[B] = t;
        for (int i = 0; i < nA; i++) t += node_sum(h, B, i, S);
    }
    for (int B = 0; B < G; B++) {    /* bundles in: [j of A][i of B] */
        if (owner(h, B) != h->lead || B == h->A) continue;
        h->bin[B] = t;
        for (int j = 0; j < nA; j++) t += node_sum(h, B, j, R);
    }
    if (!h->shm) at = t;
    for (int j = 0; j < nA; j++) {   /* final chunks: [B][i] of member j */
        h->fin[j] = at;
        if (j == h->ia) continue;
        for (int B = 0; B < G; B++)
            if (owner(h, B) == h->lead) at += node_sum(h, B, j, R);
    }
    h->fin[nA] = at;
    h->tmp_end = h->shm ? t : at;
    return 0;
}

static void hv_free(hv *h)
{
    free(h->row);
    free(h->fin);
    free(h->seg);
    free(h->bout);
    free(h->bin);
    free(h->rs);
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    const int *v = a->param;
    hv h;
    memset(&h, 0, sizeof h);
    if (a->v && (!a->node_sc || !a->node_rc)) return 1;   /* TC_REQ_NODE_COUNTS not met */
    if (a->in_place && a->size == 1) return 0;
    h.s = s, h.a = a, h.t = t;
    h.p = a->size, h.G = t->nnodes;
    h.k = leader_count[v ? v[P_LEADERS] : 0];
    h.shm = v && v[P_INTRA] == I_SHM;
    h.A = t->node_of[a->rank];
    h.nA = tc_topo_node_size(t, h.A);
    h.ia = t->node_idx[a->rank];
    h.memA = tc_topo_node_members(t, h.A);
    h.kA = nleaders(h.nA, h.k);
    h.lead = -1;
    for (int l = 0; l < h.kA; l++)
        if (leader_member(l, h.nA, h.kA) == h.ia) h.lead = l;
    int bad = h.shm ? layout_shm(&h) : (layout_mine(&h), 0);
    if (bad || (h.lead >= 0 && layout_leader(&h))) {
        hv_free(&h);
        return 1;
    }
    tc_sched_need_tmp(s, h.tmp_end);
    if (h.shm) {
        tc_sched_need_shm(s, h.base[h.kA]);
        if (h.lead >= 0) tc_sched_shm_home(s, h.base[h.lead], h.base[h.lead + 1] - h.base[h.lead]);
    }
    pack(&h);
    gather(&h);
    if (h.lead >= 0) {
        transpose_exchange(&h);
        distribute(&h);
    }
    scatter(&h);
    hv_free(&h);
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
    snprintf(out->alias, sizeof out->alias, "h%s%s", leader_values[v[P_LEADERS]],
             v[P_INTRA] == I_SHM ? "_shm" : "");
    snprintf(out->desc, sizeof out->desc,
             "hierarchical, %s leader%s per node: counts gathered node-locally, node-local gather, "
             "leaders exchange node bundles of unequal sizes, node-local scatter (%s)",
             leader_values[v[P_LEADERS]], v[P_LEADERS] ? "s" : "",
             v[P_INTRA] == I_SHM ? "node-shared memory" : "messages");
}

static unsigned req_of(const int *v) { return v[P_INTRA] == I_SHM ? TC_REQ_NODE_SHM : TC_REQ_NONE; }

const tc_family tc_alltoallv_hierarchical = {
    .coll = TOPOCOLL_ALLTOALLV, .name = "hierarchical",
    .summary = "hierarchical alltoallv (Träff, Rougier 2014, section 2.4) with k leaders per node: "
               "the node's counts gathered first, then node-local gather, exchange of node bundles "
               "among leaders, node-local scatter (messages or node-shared memory)",
    .source = __FILE__, .nparams = 2, .params = params, .rule = "",
    .describe = describe, .req = TC_REQ_NODE_COUNTS, .req_of = req_of, .generate = generate,
};
