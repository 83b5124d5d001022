/*
 * alltoallv family "hierarchical:leaders=1|2|4" (aliases "h1", "h2", "h4"):
 * the hierarchical irregular all-to-all of Träff, Rougier, "MPI Collectives
 * and Datatypes for Hierarchical All-to-all Communication" (2014), section
 * 2.4, as a schedule: the alltoall family's scheme (src/algo/alltoall/
 * hierarchical.c: node-sorted order from the topology's member lists, k
 * leaders per node, leader (A+B) mod kA of node A handling node B) with a
 * size per part.
 *
 * Counts.  Each rank knows only its own counts, but a leader must lay out
 * its node's parts.  The consumer gathers them node-locally before the
 * schedule is made (TC_REQ_NODE_COUNTS; the paper's "counts gathered node-
 * locally first"): tc_args.node_sc / node_rc are the send and receive
 * rows of every member of my node, in units of scratch (TMP, the receive
 * type).  The MPI layer exchanges them in bytes and runs the schedule on
 * byte-bound buffers (src/api/node_counts.c); the verifier fills them from
 * its count matrix.  Without per-peer counts (tc_args.v NULL: the
 * simulator) every part is rcount.
 *
 * Steps (S(i,j): units member i of my node sends to rank j; R(i,j): units
 * member i receives from rank j):
 *   1. pack: every rank copies its parts for the nodes of leader l, node-
 *      sorted, into one chunk per leader (a leader's own chunk straight into
 *      its staging row); one copy per part (displacements are arbitrary).
 *   2. gather: chunks to the leaders (row i of leader l's staging area).
 *   3. transpose (leaders): staging [i][B][j] into one bundle per node B,
 *      [j of B][i of A], sizes S(i,j).
 *   4. exchange: leader l sends B's bundle to B's leader for A and receives
 *      B's bundle for A, [j of A][i of B] (bundles differ in size).
 *   5. distribute (leaders): member j's parts from node B are consecutive in
 *      B's bundle: one copy per (j, B) into j's chunk, [B][i]; the leader's
 *      own parts go straight to its receive buffer.
 *   6. scatter: leaders send the chunks, every rank takes the other
 *      leaders' chunks in the same round (as in the alltoall family, a
 *      leader waiting before handing out would deadlock with another), then
 *      copies each part to its displacement.
 * Cost (G nodes, n ranks per node, k = 1, m the mean part): the count
 *   exchange (one node-local allgather of 2p counts per rank) plus, per
 *   leader, (n-1) alpha + n p m beta intra-node twice, (G-1) alpha +
 *   (p-n) n m beta inter-node, every part copied three times; members:
 *   2 alpha + 2 p m beta.  Inter-node G (G-1) messages instead of p (p-n).
 * Memory: the node's counts (2 n p), the own parts twice (pack and receive
 *   areas); leader l also its share of the node's parts three times
 *   (staging, bundles out, bundles in).
 * Restrictions: per-peer counts need the node's count rows
 *   (TC_REQ_NODE_COUNTS: the generator fails without them).  MPI_IN_PLACE:
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

static const char *const leader_values[] = { "1", "2", "4", NULL };
static const int leader_count[] = { 1, 2, 4 };

typedef struct hv {
    tc_sched *s;
    const tc_args *a;
    const tc_topo *t;
    int p, G, k;
    int A, nA, ia, kA, lead;        /* lead: my leader index, -1 for none */
    const int *memA;
    int64_t chunk[MAX_LEADERS], csz[MAX_LEADERS];   /* my pack chunks: TMP offset, size */
    int64_t rchunk[MAX_LEADERS], rsz[MAX_LEADERS];  /* the chunks the other leaders send me */
    int64_t tmp_end;                /* TMP used so far */
    /* leaders only */
    int64_t *row;                   /* [nA + 1] staging row of member i (row[nA]: end) */
    int64_t *seg;                   /* [nA * G] offset of B's segment in row i */
    int64_t *bout, *bin;            /* [G] bundle of B, out and in */
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

static int64_t node_sum(const hv *h, int B, int i, int64_t (*f)(const hv *, int, int))
{
    const int *m = tc_topo_node_members(h->t, B);
    int64_t sum = 0;
    for (int x = 0; x < tc_topo_node_size(h->t, B); x++) sum += f(h, i, m[x]);
    return sum;
}

/* Step 1: my parts, node-sorted, to a chunk per leader (mine: my row). */
static void pack(hv *h)
{
    int64_t cur[MAX_LEADERS];
    for (int l = 0; l < h->kA; l++)
        cur[l] = l == h->lead ? h->row[h->ia] : h->chunk[l];
    for (int B = 0; B < h->G; B++) {
        const int *m = tc_topo_node_members(h->t, B);
        int l = owner(h, B);
        for (int x = 0; x < tc_topo_node_size(h->t, B); x++) {
            int64_t n = S(h, h->ia, m[x]);
            tc_sched_copy(h->s, in_part(h->a, m[x]), tmp(cur[l], n));
            cur[l] += n;
        }
    }
    tc_sched_round(h->s);
}

/* Step 2: chunks to the leaders; leaders take their rows. */
static void gather(hv *h)
{
    for (int l = 0; l < h->kA; l++)
        if (l != h->lead) tc_sched_send(h->s, leader_rank(h, l), tmp(h->chunk[l], h->csz[l]));
    for (int i = 0; h->lead >= 0 && i < h->nA; i++)
        if (i != h->ia) tc_sched_recv(h->s, h->memA[i], tmp(h->row[i], h->row[i + 1] - h->row[i]));
    tc_sched_round(h->s);
}

/* Steps 3 and 4 (leaders): bundles out of the staging rows, exchanged. */
static void transpose_exchange(hv *h)
{
    for (int B = 0; B < h->G; B++) {
        if (owner(h, B) != h->lead) continue;
        const int *m = tc_topo_node_members(h->t, B);
        int64_t at = h->bout[B], *in_row = malloc((size_t)h->nA * sizeof *in_row);
        if (!in_row) { h->s->err = 1; return; }
        for (int i = 0; i < h->nA; i++) in_row[i] = h->seg[(int64_t)i * h->G + B];
        for (int x = 0; x < tc_topo_node_size(h->t, B); x++)
            for (int i = 0; i < h->nA; i++) {
                int64_t n = S(h, i, m[x]);
                tc_sched_copy(h->s, tmp(in_row[i], n), tmp(at, n));
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

/* Step 5 (leaders): member j's parts from B, one copy per (j, B); mine to RECV. */
static void distribute(hv *h)
{
    int64_t *fcur = malloc((size_t)h->nA * sizeof *fcur);
    if (!fcur) { h->s->err = 1; return; }
    memcpy(fcur, h->fin, (size_t)h->nA * sizeof *fcur);
    for (int B = 0; B < h->G; B++) {
        if (owner(h, B) != h->lead) continue;
        const int *m = tc_topo_node_members(h->t, B);
        int64_t at = h->bin[B];
        for (int j = 0; j < h->nA; j++) {
            int64_t n = node_sum(h, B, j, R);
            if (j != h->ia) {
                tc_sched_copy(h->s, tmp(at, n), tmp(fcur[j], n));
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
    tc_sched_round(h->s);
}

/* Step 6: chunks out and in (one round), then my parts to RECV. */
static void scatter(hv *h)
{
    for (int j = 0; h->lead >= 0 && j < h->nA; j++)
        if (j != h->ia) tc_sched_send(h->s, h->memA[j], tmp(h->fin[j], h->fin[j + 1] - h->fin[j]));
    for (int l = 0; l < h->kA; l++)
        if (l != h->lead) tc_sched_recv(h->s, leader_rank(h, l), tmp(h->rchunk[l], h->rsz[l]));
    tc_sched_round(h->s);
    int64_t cur[MAX_LEADERS];
    memcpy(cur, h->rchunk, sizeof cur);
    for (int B = 0; B < h->G; B++) {
        int l = owner(h, B);
        if (l == h->lead) continue;
        const int *m = tc_topo_node_members(h->t, B);
        for (int x = 0; x < tc_topo_node_size(h->t, B); x++) {
            int64_t c = R(h, h->ia, m[x]);
            tc_sched_copy(h->s, tmp(cur[l], c), av_out(h->a, m[x]));
            cur[l] += c;
        }
    }
    tc_sched_round(h->s);
}

/* My chunks: per leader, the parts of its nodes; the pack area, then the
 * receive area (none for my own leader index). */
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

/* A leader's areas after mine: staging rows (segments per node), bundles
 * out (same size), bundles in, final chunks.  0, or 1 without memory. */
static int layout_leader(hv *h)
{
    int nA = h->nA, G = h->G;
    h->row = malloc((size_t)(nA + 1) * sizeof *h->row);
    h->fin = malloc((size_t)(nA + 1) * sizeof *h->fin);
    h->seg = malloc((size_t)nA * (size_t)G * sizeof *h->seg);
    h->bout = malloc((size_t)G * sizeof *h->bout);
    h->bin = malloc((size_t)G * sizeof *h->bin);
    if (!h->row || !h->fin || !h->seg || !h->bout || !h->bin) return 1;
    int64_t at = h->tmp_end;
    for (int i = 0; i < nA; i++) {   /* staging: row i = member i's chunk */
        h->row[i] = at;
        for (int B = 0; B < G; B++) {
            if (owner(h, B) != h->lead) continue;
            h->seg[(int64_t)i * G + B] = at;
            at += node_sum(h, B, i, S);
        }
    }
    h->row[nA] = at;
    for (int B = 0; B < G; B++) {    /* bundles out: [j of B][i of A] */
        if (owner(h, B) != h->lead) continue;
        h->bout[B] = at;
        for (int i = 0; i < nA; i++) at += node_sum(h, B, i, S);
    }
    for (int B = 0; B < G; B++) {    /* bundles in: [j of A][i of B]; mine is out */
        if (owner(h, B) != h->lead) continue;
        if (B == h->A) { h->bin[B] = h->bout[B]; continue; }
        h->bin[B] = at;
        for (int j = 0; j < nA; j++) at += node_sum(h, B, j, R);
    }
    for (int j = 0; j < nA; j++) {   /* final chunks: [B][i] of member j */
        h->fin[j] = at;
        if (j == h->ia) continue;
        for (int B = 0; B < G; B++)
            if (owner(h, B) == h->lead) at += node_sum(h, B, j, R);
    }
    h->fin[nA] = at;
    h->tmp_end = at;
    return 0;
}

static void hv_free(hv *h)
{
    free(h->row);
    free(h->fin);
    free(h->seg);
    free(h->bout);
    free(h->bin);
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
    h.k = leader_count[v ? v[0] : 0];
    h.A = t->node_of[a->rank];
    h.nA = tc_topo_node_size(t, h.A);
    h.ia = t->node_idx[a->rank];
    h.memA = tc_topo_node_members(t, h.A);
    h.kA = nleaders(h.nA, h.k);
    h.lead = -1;
    for (int l = 0; l < h.kA; l++)
        if (leader_member(l, h.nA, h.kA) == h.ia) h.lead = l;
    layout_mine(&h);
    if (h.lead >= 0 && layout_leader(&h)) {
        hv_free(&h);
        return 1;
    }
    tc_sched_need_tmp(s, h.tmp_end);
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
};

static void describe(const tc_family *f, const int *v, tc_instance_text *out)
{
    (void)f;
    snprintf(out->alias, sizeof out->alias, "h%s", leader_values[v[0]]);
    snprintf(out->desc, sizeof out->desc,
             "hierarchical, %s leader%s per node: counts gathered node-locally, node-local gather, "
             "leaders exchange node bundles of unequal sizes, node-local scatter", leader_values[v[0]],
             v[0] ? "s" : "");
}

const tc_family tc_alltoallv_hierarchical = {
    .coll = TOPOCOLL_ALLTOALLV, .name = "hierarchical",
    .summary = "hierarchical alltoallv (Träff, Rougier 2014, section 2.4) with k leaders per node: "
               "the node's counts gathered first, then node-local gather, exchange of node bundles "
               "among leaders, node-local scatter",
    .source = __FILE__, .nparams = 1, .params = params, .rule = "",
    .describe = describe, .req = TC_REQ_NODE_COUNTS, .req_of = NULL, .generate = generate,
};
