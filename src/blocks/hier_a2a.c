/*
 * The hierarchical all-to-all (see hier_a2a.h) of Träff, Rougier, "MPI
 * Collectives and Datatypes for Hierarchical All-to-all Communication"
 * (2014), sections 2.1-2.4, with k leaders per node after Kandalla,
 * Subramoni, Santhanaraman, Koop, Panda, "Designing Multi-Leader-Based
 * Allgather Algorithms for Multi-Core Clusters" (2009).
 *
 * Order.  The paper's node-sorted rank order is the topology's member
 * lists: nodes in order, each node's ranks in increasing order.  Nothing
 * assumes consecutive ranks or equal nodes.  Copies of parts that lie one
 * after another on both sides (equal parts of consecutive ranks, say) are
 * made as one copy.
 *
 * Leaders.  Node A (nA ranks) has kA = min(k, nA) leaders, spread over its
 * member list (leader l is member l nA / kA).  The pair of nodes (A, B) is
 * handled by leader (A+B) mod kA of A and (A+B) mod kB of B, so leader l of
 * A sends to and receives from the nodes D_l = { B : (A+B) mod kA = l }
 * (A itself when it falls to l: that share stays in the node).
 *
 * Steps over messages (S(i,j), R(i,j): the parts of member i, hier_a2a.h):
 *   1. pack: every rank copies its parts for the nodes of D_l, node-sorted,
 *      to a chunk per leader l in its scratch (a leader's own chunk straight
 *      to its staging row), then sends each chunk to its leader; leader l
 *      receives member i's chunk as staging row i, [i][B][j].
 *   2. transpose: leader l copies the staging rows into one bundle per
 *      other node B of D_l, [j of B][i of A] (one copy per part).
 *   3. exchange: leader l sends B's bundle to B's leader for A and receives
 *      B's bundle for A, [j of A][i of B] (bundles differ in size).
 *   4. distribute: member j's parts from node B are consecutive in B's
 *      bundle: one copy per (j, B) to j's chunk [B][i]; the parts inside my
 *      node go straight from the staging rows to the chunks, min(S(i,j),
 *      R(j,i)) units each (counts that do not match inside a node stay in
 *      bounds); the leader's own parts go to its receive buffer.
 *   5. hand out and unpack: in one round each leader sends its chunks and
 *      every rank receives the other leaders' chunks (handing out after
 *      taking would deadlock two leaders of a node, each waiting for the
 *      other); then every rank copies each part to its place.
 * Steps over node-shared memory (every part copied twice, by its own
 * ranks; the leaders only send and receive):
 *   1. pack transposed: every rank i writes its part for rank j of node B
 *      straight to its place in the outgoing bundle of B, [j of B][i of A],
 *      in the node-shared area of B's leader (every rank computes the
 *      place from the node's counts), then signals every leader.
 *   2. exchange: leader l waits for its node's ranks, then sends each
 *      bundle of D_l from the node-shared area and receives B's bundle for
 *      A, [j of A][i of B], into it.
 *   3. unpack: every leader signals its node's ranks; every rank j waits for
 *      the other leaders and copies row j of each incoming bundle (of its
 *      own node: row j of the outgoing one, min(S(i,j), R(j,i)) per part) to
 *      its receive buffer.
 * Cost (G nodes, n ranks per node, k = 1, m the mean part): per leader,
 *   (n-1) alpha + n p m beta intra-node twice (shared memory: n-1 signals
 *   and waits, the members' copies in the node-shared area instead),
 *   (G-1) alpha + (p-n) n m beta inter-node; members: 2 alpha + 2 p m beta
 *   (shared memory: two copies of p m, one signal and one wait per leader).
 *   Inter-node G (G-1) messages in all instead of p (p-n): the paper's
 *   point for small parts; k leaders split the bundles of a node over k
 *   ranks (and k network ports).
 * Memory (R_l: the units of leader l's nodes D_l per member): messages: my
 *   own parts once (pack area, reused for the chunks received), leader l
 *   about 3 n R_l (staging rows, bundles in, bundles out and then chunks);
 *   shared memory: the node's outgoing and incoming bundles, about 2 n p m
 *   node-shared (leader l's share bound to its NUMA domain), no scratch.
 * Restrictions: shared memory needs the ranks of a node to share it.
 *   MPI_IN_PLACE: every rank reads its whole input in step 1, before
 *   anything writes its receive buffer.
 */
#include "blocks/hier_a2a.h"

#include <stdlib.h>
#include <string.h>

enum { MAXL = TC_A2A_HIER_MAX_LEADERS };

typedef struct hier {
    tc_sched *s;
    const tc_args *a;
    const tc_topo *t;
    const tc_a2a_parts *pt;
    int p, G, k, shm;
    int A, nA, ia, kA, lead;          /* lead: my leader index, -1 for none */
    const int *memA;
    int64_t chunk[MAXL], csz[MAXL];   /* messages: my pack chunks (TMP) */
    int64_t rchunk[MAXL], rsz[MAXL];  /* messages: the chunks the other leaders send me */
    int64_t tmp_end;                  /* TMP used so far */
    int64_t base[MAXL + 1];           /* shared memory: leader l's area; base[kA]: the size */
    int64_t *bout, *bin;              /* [G] bundles of B, out and in */
    int64_t *cur;                     /* [nA] running offsets */
    /* leaders, messages only */
    int64_t *row;                     /* [nA + 1] staging row of member i (row[nA]: end) */
    int64_t *seg;                     /* [nA * G] offset of B's segment in row i */
    int64_t *fin;                     /* [nA + 1] chunk of member j (fin[nA]: end) */
} hier;

static int nleaders(int n, int k) { return n < k ? n : k; }
static int leader_member(int l, int n, int kn) { return (int)((int64_t)l * n / kn); }
static int owner(const hier *h, int B) { return (h->A + B) % h->kA; }
static int leader_rank(const hier *h, int l) { return h->memA[leader_member(l, h->nA, h->kA)]; }
static int64_t min64(int64_t x, int64_t y) { return x < y ? x : y; }

/* B's leader for the pair (A, B). */
static int peer_leader(const hier *h, int B)
{
    int nB = tc_topo_node_size(h->t, B), kB = nleaders(nB, h->k);
    return tc_topo_node_members(h->t, B)[leader_member((h->A + B) % kB, nB, kB)];
}

/* Units member i of my node sends to / receives from rank j. */
static int64_t S(const hier *h, int i, int j)
{ return h->pt->node_sc ? h->pt->node_sc[(int64_t)i * h->p + j] : h->pt->unit; }
static int64_t R(const hier *h, int i, int j)
{ return h->pt->node_rc ? h->pt->node_rc[(int64_t)i * h->p + j] : h->pt->unit; }

/* Units member i sends to (f = S) or receives from (f = R) node B. */
static int64_t node_sum(const hier *h, int B, int i, int64_t (*f)(const hier *, int, int))
{
    const int *m = tc_topo_node_members(h->t, B);
    int n = tc_topo_node_size(h->t, B);
    if (!h->pt->node_sc) return n * h->pt->unit;
    int64_t sum = 0;
    for (int x = 0; x < n; x++) sum += f(h, i, m[x]);
    return sum;
}

/* The units of B's bundle out of A (f = S: what A's members send B) or into
 * A (f = R). */
static int64_t bundle_size(const hier *h, int B, int64_t (*f)(const hier *, int, int))
{
    int64_t n = 0;
    for (int i = 0; i < h->nA; i++) n += node_sum(h, B, i, f);
    return n;
}

static tc_region tmp(int64_t off, int64_t cnt) { return tc_reg(TC_BUF_TMP, off, cnt); }
static tc_region shm(int64_t off, int64_t cnt) { return tc_reg(TC_BUF_SHM, off, cnt); }

static int64_t side_off(const tc_a2a_side *sd, int j) { return sd->displs ? sd->displs[j] : j * sd->count; }
static int64_t side_cnt(const tc_a2a_side *sd, int j) { return sd->counts ? sd->counts[j] : sd->count; }

/* ---- copies: adjacent ones merged ------------------------------------------ */

/* Copy fc elements of buffer fb from fo to tc elements of tb at to, as one
 * copy with the previous one when both sides follow on it (the copies of
 * this generator are between areas that do not overlap). */
static inline void put(hier *h, int fb, int64_t fo, int64_t fc, int tb, int64_t to, int64_t tc)
{
    tc_sched_copy_join(h->s, tc_reg(fb, fo, fc), tc_reg(tb, to, tc));
}

/* n units within buffer buf (TMP or SHM), from `from` to `to`. */
static inline void move(hier *h, int buf, int64_t from, int64_t to, int64_t n) { put(h, buf, from, n, buf, to, n); }

/* My input part for rank j to buf at `to`, n units. */
static inline void take_in(hier *h, int j, int buf, int64_t to, int64_t n)
{
    const tc_a2a_side *in = &h->pt->in;
    put(h, in->buf, side_off(in, j), side_cnt(in, j), buf, to, n);
}

/* c units of buf at `from` to my output part from rank j (c: at most its
 * count). */
static inline void give_out(hier *h, int buf, int64_t from, int j, int64_t c)
{
    const tc_a2a_side *out = &h->pt->out;
    put(h, buf, from, c, out->buf, side_off(out, j), c);
}

/* Equal parts one after another on side sd: the parts of a run of
 * consecutive ranks are one region (one test per rank, not a copy). */
static int runs_of(const hier *h, const tc_a2a_side *sd) { return !h->pt->node_sc && !sd->displs; }

/* The ranks m[x], m[x+1], ... consecutive from x: the run's end. */
static int run_end(const int *m, int x, int n)
{
    int y = x + 1;
    while (y < n && m[y] == m[y - 1] + 1) y++;
    return y;
}

/* My input parts for B's ranks, in member order, to buf from `at`, one
 * after another; returns the units written. */
static int64_t parts_in(hier *h, int B, int buf, int64_t at)
{
    const int *m = tc_topo_node_members(h->t, B);
    int n = tc_topo_node_size(h->t, B);
    const tc_a2a_side *in = &h->pt->in;
    int64_t from = at;
    for (int x = 0, y; x < n; x = y) {
        if (runs_of(h, in)) {
            y = run_end(m, x, n);
            put(h, in->buf, m[x] * in->count, (y - x) * in->count, buf, at, (y - x) * h->pt->unit);
            at += (y - x) * h->pt->unit;
            continue;
        }
        y = x + 1;
        take_in(h, m[x], buf, at, S(h, h->ia, m[x]));
        at += S(h, h->ia, m[x]);
    }
    return at - from;
}

/* buf from `at`: my parts from B's ranks, in member order, one after
 * another, to my output; returns the units read. */
static int64_t parts_out(hier *h, int B, int buf, int64_t at)
{
    const int *m = tc_topo_node_members(h->t, B);
    int n = tc_topo_node_size(h->t, B);
    const tc_a2a_side *out = &h->pt->out;
    int64_t from = at;
    for (int x = 0, y; x < n; x = y) {
        if (runs_of(h, out)) {
            y = run_end(m, x, n);
            put(h, buf, at, (y - x) * h->pt->unit, out->buf, m[x] * out->count, (y - x) * out->count);
            at += (y - x) * h->pt->unit;
            continue;
        }
        y = x + 1;
        give_out(h, buf, at, m[x], R(h, h->ia, m[x]));
        at += R(h, h->ia, m[x]);
    }
    return at - from;
}

/* ---- over messages ---------------------------------------------------------- */

/* Step 1 (local): my parts, node-sorted, to my chunk of every leader. */
static void pack(hier *h)
{
    for (int l = 0; l < h->kA; l++) h->cur[l] = l == h->lead ? h->row[h->ia] : h->chunk[l];
    for (int B = 0; B < h->G; B++) {
        int l = owner(h, B);
        h->cur[l] += parts_in(h, B, TC_BUF_TMP, h->cur[l]);
    }
    tc_sched_round(h->s);
}

/* Step 1 (messages): chunks to the leaders; leaders take their rows. */
static void gather(hier *h)
{
    for (int l = 0; l < h->kA; l++)
        if (l != h->lead) tc_sched_send(h->s, leader_rank(h, l), tmp(h->chunk[l], h->csz[l]));
    for (int i = 0; h->lead >= 0 && i < h->nA; i++)
        if (i != h->ia) tc_sched_recv(h->s, h->memA[i], tmp(h->row[i], h->row[i + 1] - h->row[i]));
    tc_sched_round(h->s);
}

/* Steps 2 and 3 (leaders): bundles of the other nodes out of the staging
 * rows, exchanged. */
static void transpose_exchange(hier *h)
{
    for (int B = 0; B < h->G; B++) {
        if (owner(h, B) != h->lead || B == h->A) continue;
        const int *m = tc_topo_node_members(h->t, B);
        int64_t at = h->bout[B];
        for (int i = 0; i < h->nA; i++) h->cur[i] = h->seg[(int64_t)i * h->G + B];
        for (int x = 0; x < tc_topo_node_size(h->t, B); x++)
            for (int i = 0; i < h->nA; i++) {
                int64_t n = S(h, i, m[x]);
                move(h, TC_BUF_TMP, h->cur[i], at, n);
                h->cur[i] += n;
                at += n;
            }
    }
    tc_sched_round(h->s);
    for (int B = 0; B < h->G; B++) {
        if (owner(h, B) != h->lead || B == h->A) continue;
        tc_sched_recv(h->s, peer_leader(h, B), tmp(h->bin[B], bundle_size(h, B, R)));
        tc_sched_send(h->s, peer_leader(h, B), tmp(h->bout[B], bundle_size(h, B, S)));
    }
    tc_sched_round(h->s);
}

/* Step 4 for my own node: part (i -> j) straight from row i's segment of A
 * to j's chunk (mine: to my output), at most what both sides count. */
static void distribute_own(hier *h, int64_t *fcur)
{
    int n = h->nA;
    for (int i = 0; i < n; i++) h->cur[i] = h->seg[(int64_t)i * h->G + h->A];
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            int64_t c = min64(S(h, i, h->memA[j]), R(h, j, h->memA[i]));
            if (j == h->ia) give_out(h, TC_BUF_TMP, h->cur[i], h->memA[i], c);
            else move(h, TC_BUF_TMP, h->cur[i], fcur[j], c);
            if (j != h->ia) fcur[j] += R(h, j, h->memA[i]);
            h->cur[i] += S(h, i, h->memA[j]);
        }
}

/* Step 4 (leaders): member j's parts from B, one copy per (j, B); mine to
 * my output. */
static int distribute(hier *h)
{
    int64_t *fcur = malloc((size_t)h->nA * sizeof *fcur);
    if (!fcur) return 1;
    memcpy(fcur, h->fin, (size_t)h->nA * sizeof *fcur);
    for (int B = 0; B < h->G; B++) {
        if (owner(h, B) != h->lead) continue;
        if (B == h->A) {
            distribute_own(h, fcur);
            continue;
        }
        int64_t at = h->bin[B];
        for (int j = 0; j < h->nA; j++) {
            if (j != h->ia) {
                int64_t n = node_sum(h, B, j, R);
                move(h, TC_BUF_TMP, at, fcur[j], n);
                fcur[j] += n;
                at += n;
                continue;
            }
            at += parts_out(h, B, TC_BUF_TMP, at);
        }
    }
    free(fcur);
    tc_sched_round(h->s);   /* the chunks are written before they are sent */
    return 0;
}

/* Step 5: chunks out and in, one round; then my parts to my output. */
static void scatter(hier *h)
{
    for (int j = 0; h->lead >= 0 && j < h->nA; j++)
        if (j != h->ia) tc_sched_send(h->s, h->memA[j], tmp(h->fin[j], h->fin[j + 1] - h->fin[j]));
    for (int l = 0; l < h->kA; l++)
        if (l != h->lead) tc_sched_recv(h->s, leader_rank(h, l), tmp(h->rchunk[l], h->rsz[l]));
    tc_sched_round(h->s);
    for (int l = 0; l < h->kA; l++) h->cur[l] = h->rchunk[l];
    for (int B = 0; B < h->G; B++) {
        int l = owner(h, B);
        if (l == h->lead) continue;
        h->cur[l] += parts_out(h, B, TC_BUF_TMP, h->cur[l]);
    }
    tc_sched_round(h->s);
}

/* My chunks: per leader, the parts of its nodes (none for my own leader
 * index); the chunks received later reuse the pack area, whose sends have
 * completed by then. */
static void layout_mine(hier *h)
{
    for (int B = 0; B < h->G; B++) {
        h->csz[owner(h, B)] += node_sum(h, B, h->ia, S);
        h->rsz[owner(h, B)] += node_sum(h, B, h->ia, R);
    }
    int64_t out = 0, in = 0;
    for (int l = 0; l < h->kA; l++) {
        if (l == h->lead) h->csz[l] = h->rsz[l] = 0;
        h->chunk[l] = out;
        h->rchunk[l] = in;
        out += h->csz[l];
        in += h->rsz[l];
    }
    h->tmp_end = out > in ? out : in;
}

/* A leader's areas in TMP after my own: staging rows (segments per node),
 * bundles in and out (other nodes only), then the chunks per member over
 * the bundles out (written in step 4, after the exchange sent them). */
static void layout_leader(hier *h)
{
    int nA = h->nA, G = h->G;
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
    for (int B = 0; B < G; B++)      /* bundles in: [j of A][i of B] */
        if (owner(h, B) == h->lead && B != h->A) h->bin[B] = at, at += bundle_size(h, B, R);
    int64_t out_at = at;
    for (int B = 0; B < G; B++)      /* bundles out: [j of B][i of A] */
        if (owner(h, B) == h->lead && B != h->A) h->bout[B] = at, at += bundle_size(h, B, S);
    int64_t out_end = at;
    at = out_at;                     /* the chunks over the bundles out, sent by then */
    for (int j = 0; j < nA; j++) {   /* chunks: [B][i] of member j */
        h->fin[j] = at;
        if (j == h->ia) continue;
        for (int B = 0; B < G; B++)
            if (owner(h, B) == h->lead) at += node_sum(h, B, j, R);
    }
    h->fin[nA] = at;
    h->tmp_end = at > out_end ? at : out_end;
}

static int generate_p2p(hier *h)
{
    if (h->lead >= 0) {
        h->row = malloc((size_t)(h->nA + 1) * sizeof *h->row);
        h->fin = malloc((size_t)(h->nA + 1) * sizeof *h->fin);
        h->seg = malloc((size_t)h->nA * (size_t)h->G * sizeof *h->seg);
        if (!h->row || !h->fin || !h->seg) return 1;
    }
    layout_mine(h);
    if (h->lead >= 0) layout_leader(h);
    tc_sched_need_tmp(h->s, h->tmp_end);
    pack(h);
    gather(h);
    if (h->lead >= 0) {
        transpose_exchange(h);
        if (distribute(h)) return 1;
    }
    scatter(h);
    return 0;
}

/* ---- over node-shared memory ------------------------------------------------ */

/* Leader l's area: the outgoing bundles of its nodes, [j of B][i of A], then
 * the incoming ones of the other nodes, [j of A][i of B]. */
static void layout_shm(hier *h)
{
    int64_t at = 0;
    for (int l = 0; l < h->kA; l++) {
        h->base[l] = at;
        for (int B = 0; B < h->G; B++)
            if (owner(h, B) == l) h->bout[B] = at, at += bundle_size(h, B, S);
        for (int B = 0; B < h->G; B++)
            if (owner(h, B) == l && B != h->A) h->bin[B] = at, at += bundle_size(h, B, R);
    }
    h->base[h->kA] = at;
}

/* What the members before member i send rank j (*before), and all of them
 * (the return value). */
static int64_t column(const hier *h, int j, int i, int64_t *before)
{
    if (!h->pt->node_sc) {
        *before = i * h->pt->unit;
        return h->nA * h->pt->unit;
    }
    int64_t col = 0;
    for (int y = 0; y < h->nA; y++) {
        if (y == i) *before = col;
        col += S(h, y, j);
    }
    return col;
}

/* Step 1, one round: each of my parts to its place in an outgoing bundle
 * (the transposition happens here, spread over the node's ranks); then
 * every leader hears that my parts are there (a round raises its signals
 * after its copies), and leaders wait for all. */
static void pack_transposed(hier *h)
{
    for (int B = 0; B < h->G; B++) {
        if (h->nA == 1) {   /* a bundle from a node of one rank is in B's member order */
            parts_in(h, B, TC_BUF_SHM, h->bout[B]);
            continue;
        }
        const int *m = tc_topo_node_members(h->t, B);
        int64_t at = h->bout[B];
        const tc_a2a_side *in = &h->pt->in;
        if (runs_of(h, in)) {   /* equal parts: block ia of every column of nA */
            int64_t u = h->pt->unit;
            for (int x = 0; x < tc_topo_node_size(h->t, B); x++, at += h->nA * u)
                tc_sched_copy(h->s, tc_reg(in->buf, m[x] * in->count, in->count), shm(at + h->ia * u, u));
            continue;
        }
        for (int x = 0; x < tc_topo_node_size(h->t, B); x++) {
            int64_t before = 0, col = column(h, m[x], h->ia, &before);
            take_in(h, m[x], TC_BUF_SHM, at + before, S(h, h->ia, m[x]));
            at += col;
        }
    }
    for (int l = 0; l < h->kA; l++)
        if (l != h->lead) tc_sched_signal(h->s, leader_rank(h, l));
    for (int i = 0; h->lead >= 0 && i < h->nA; i++)
        if (i != h->ia) tc_sched_wait(h->s, h->memA[i]);
    tc_sched_round(h->s);
}

/* Step 2 (leaders): the bundles of my nodes, from and to the node-shared
 * area. */
static void exchange_bundles(hier *h)
{
    for (int B = 0; B < h->G; B++) {
        if (owner(h, B) != h->lead || B == h->A) continue;
        tc_sched_recv(h->s, peer_leader(h, B), shm(h->bin[B], bundle_size(h, B, R)));
        tc_sched_send(h->s, peer_leader(h, B), shm(h->bout[B], bundle_size(h, B, S)));
    }
    tc_sched_round(h->s);
}

/* Step 3 for my own node: row ia of A's outgoing bundle. */
static void unpack_own(hier *h)
{
    int me = h->memA[h->ia];
    int64_t at = h->bout[h->A], before = 0;
    for (int x = 0; x < h->ia; x++) at += column(h, h->memA[x], 0, &before);
    if (!h->pt->node_sc) {   /* equal parts: the row is in A's member order */
        parts_out(h, h->A, TC_BUF_SHM, at);
        return;
    }
    for (int i = 0; i < h->nA; i++) {
        int64_t c = min64(S(h, i, me), R(h, h->ia, h->memA[i]));
        give_out(h, TC_BUF_SHM, at, h->memA[i], c);
        at += S(h, i, me);
    }
}

/* Step 3: leaders tell their node's ranks that their bundles are in (one
 * round, as in scatter); every rank copies its row of every bundle. */
static void unpack_rows(hier *h)
{
    for (int j = 0; h->lead >= 0 && j < h->nA; j++)
        if (j != h->ia) tc_sched_signal(h->s, h->memA[j]);
    for (int l = 0; l < h->kA; l++)
        if (l != h->lead) tc_sched_wait(h->s, leader_rank(h, l));
    tc_sched_round(h->s);
    for (int B = 0; B < h->G; B++) {
        if (B == h->A) {
            unpack_own(h);
            continue;
        }
        int64_t at = h->bin[B];
        for (int j = 0; j < h->ia; j++) at += node_sum(h, B, j, R);
        parts_out(h, B, TC_BUF_SHM, at);
    }
    tc_sched_round(h->s);
}

static void generate_shm(hier *h)
{
    layout_shm(h);
    tc_sched_need_shm(h->s, h->base[h->kA]);
    if (h->lead >= 0) tc_sched_shm_home(h->s, h->base[h->lead], h->base[h->lead + 1] - h->base[h->lead]);
    pack_transposed(h);
    if (h->lead >= 0) exchange_bundles(h);
    unpack_rows(h);
}

/* ---- the generator ---------------------------------------------------------- */

static void hier_free(hier *h)
{
    free(h->bout);
    free(h->cur);
    free(h->row);
    free(h->fin);
    free(h->seg);
}

int tc_a2a_hier_generate(tc_sched *s, const tc_args *a, const tc_topo *t, const tc_a2a_parts *parts,
                         int leaders, int shm_intra)
{
    if (a->in_place && a->size == 1) return 0;
    hier h;
    memset(&h, 0, sizeof h);
    h.s = s, h.a = a, h.t = t, h.pt = parts;
    h.p = a->size, h.G = t->nnodes;
    h.k = leaders < 1 ? 1 : leaders > MAXL ? MAXL : leaders;
    h.shm = shm_intra;
    h.A = t->node_of[a->rank];
    h.nA = tc_topo_node_size(t, h.A);
    h.ia = t->node_idx[a->rank];
    h.memA = tc_topo_node_members(t, h.A);
    h.kA = nleaders(h.nA, h.k);
    h.lead = -1;
    for (int l = 0; l < h.kA; l++)
        if (leader_member(l, h.nA, h.kA) == h.ia) h.lead = l;
    h.bout = malloc(2 * (size_t)h.G * sizeof *h.bout);
    h.cur = malloc((size_t)(h.nA > MAXL ? h.nA : MAXL) * sizeof *h.cur);
    int bad = !h.bout || !h.cur;
    if (!bad) {
        h.bin = h.bout + h.G;
        if (h.shm) generate_shm(&h);
        else bad = generate_p2p(&h);
    }
    hier_free(&h);
    return bad;
}
