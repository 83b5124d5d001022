/*
 * The verifier (see verify.h).  Every element of every buffer of every rank
 * carries a label: the (rank, unit) it came from, or none (never written).  Schedules are
 * generated for all ranks, checked for shape and hazards, their messages
 * paired in posting order, then executed symbolically with the executor's
 * round semantics under rendezvous sends; labels move with the data.
 */
#include "verify/verify.h"
#include "verify/verify_op.h"
#include "coll/desc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What one signature unit holds: which unit of the collective's logical
 * data (elem), how many ranks' contributions were combined into it (cnt) and
 * the sum of their random keys (key: a duplicate or a missing rank shows as a
 * wrong sum); for a non-commutative operation also the rank range [lo, hi)
 * combined, which a reduction may only extend by an adjacent range in rank
 * order (a op b with a's range just below b's).  elem < 0: never written. */
typedef struct label_t { int64_t elem; int64_t cnt; uint64_t key; int32_t lo, hi; } label_t;

/* Marks n labels never written.  Only elem is set: every reader checks
 * elem first and fails on a label never written (move, rread, combine,
 * check_result), so its other fields are never read or copied; the sweeps
 * mark hundreds of megabytes per second this way. */
static void set_undef(label_t *l, int64_t n)
{
    for (int64_t i = 0; i < n; i++) l[i].elem = -1;
}

static uint64_t rank_key(int r)
{
    uint64_t z = (uint64_t)r + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

typedef struct vrank {
    tc_sched s;
    label_t *lab[TC_NBUF];   /* labels, one per signature unit */
    int64_t units[TC_NBUF];  /* size of each buffer in units */
    int64_t elems[TC_NBUF];  /* size of each buffer in elements */
    int unit[TC_NBUF];       /* units per element */
    int alias_from, alias_to;/* MPI_IN_PLACE: buffer alias_from is alias_to ... */
    int64_t alias_off;       /* ... from this unit on (alias_from -1: none) */
    int cur;                 /* current round */
    int pending;             /* comm ops of the current round not complete */
    int entered;             /* has entered round `cur` */
} vrank;

/* Reads of a rank's own buffer by a peer: units [lo, hi) of buf, by
 * reader at its clock. */
typedef struct pread_ent { int64_t lo, hi; int32_t reader, clock; int buf; } pread_ent;
struct pread { pread_ent *e; int64_t n, cap; };

typedef struct vstate {
    const tc_args *proto;
    const tc_coll_desc *d;   /* what the collective is: layout, input, result */
    const tc_topo *t;
    int p;
    vrank *rk;
    int64_t *base;           /* global id of rank r's op 0 */
    int64_t *partner;        /* global op id -> matching op's global id */
    label_t **node_shm;      /* [nnodes] shared labels of each node's SHM */
    /* Happens-before for node-shared memory (only when a schedule uses it):
     * a vector clock per rank, joins pending until the rank's next round,
     * clock snapshots of signals, and per SHM unit its last write and the
     * reads since. */
    int32_t *vc, *pend;      /* [p*p] */
    int32_t **sig_vc;        /* [ops] snapshot at a signal (NULL otherwise; the signals of
                              * one round of a rank share one, owned by snaps) */
    int32_t **snaps;         /* the snapshots, to free */
    int64_t nsnaps, capsnaps;
    int32_t **shm_w;         /* [nnodes][units*SHM_W]: writer rank, clock, then the reads
                              * since: SHM_SLOTS (node index, clock) pairs inline and
                              * their number, or SHM_SPILLED: the clocks in shm_r */
    int32_t ***shm_r;        /* [nnodes][units] NULL, or read clocks per node index */
    /* Cross-memory reads (RREAD, only when a schedule has them): per rank
     * and own buffer (SEND, RECV, TMP) the owner's clock at its last write
     * of each unit (1: the published input), and per rank the reads of its
     * buffers not yet ordered before it (dropped once they are). */
    int32_t **pw;            /* [p*3][units] */
    struct pread *pr;        /* [p] */
    uint64_t key_sum;        /* sum of every rank's key */
    int *op_rank;            /* global op id -> rank (only for comm ops) */
    const tc_vcounts *vall;  /* per-peer counts of every rank (vcounts collectives) */
    /* Inline lines (PUBLISH / COLLECT, only when a schedule has them): per
     * rank its slot's labels of this call and whether it has published
     * (with its clock then, when happens-before is tracked). */
    label_t **slot;          /* [p] */
    int *published;          /* [p] */
    int32_t **pub_vc;        /* [p] */
    int64_t vstride;         /* element ids per (rank, peer) part: more than any part */
    int u_send, u_recv;      /* units per SEND and RECV element */
    tc_verify_report *rep;
} vstate;

static tc_verify_status fail(vstate *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->rep->msg, sizeof v->rep->msg, fmt, ap);
    va_end(ap);
    return TC_VERIFY_FAIL;
}

static const char *bufname(int b)
{
    return b == TC_BUF_SEND ? "sbuf" : b == TC_BUF_RECV ? "rbuf" : b == TC_BUF_TMP ? "tmp"
         : b == TC_BUF_SHM ? "shm" : "?";
}

/* A region resolved to units of a real buffer (MPI_IN_PLACE aliasing). */
typedef struct ureg { int buf; int64_t lo, hi; } ureg;

static ureg resolve(const vstate *v, int r, tc_region g)
{
    const vrank *k = &v->rk[r];
    ureg u;
    u.buf = g.buf;
    u.lo = g.off * k->unit[g.buf];
    u.hi = u.lo + g.cnt * k->unit[g.buf];
    if (g.buf == k->alias_from) {
        u.buf = k->alias_to;
        u.lo += k->alias_off;
        u.hi += k->alias_off;
    }
    return u;
}

static int region_ok(const vstate *v, int r, tc_region g)
{
    const vrank *k = &v->rk[r];
    return g.buf >= 0 && g.buf < TC_NBUF && g.off >= 0 && g.cnt >= 0 &&
           g.off + g.cnt <= k->elems[(int)g.buf];
}

static int is_self_copy(const vstate *v, int r, const tc_op *op)
{
    ureg a = resolve(v, r, op->a), b = resolve(v, r, op->b);
    return op->kind == TC_OP_COPY && a.buf == b.buf && a.lo == b.lo && a.hi == b.hi;
}

/* ---- setup --------------------------------------------------------------- */

/* The logical data a rank starts with (the descriptor's input): where, how
 * many units, first element id. */
/* Per-peer collectives: the part of rank r for peer j, unit e, is element
 * (r p + j) x vstride + e. */
/* One block per rank (desc vblock, allgatherv): unit e of rank r's block is
 * element r x vstride + e. */
static void initial_vblock_labels(vstate *v, int r)
{
    vrank *k = &v->rk[r];
    int64_t n = v->vall[r].rcounts[r] * k->unit[TC_BUF_RECV];
    ureg g = resolve(v, r, tc_reg(TC_BUF_SEND, 0, 0));
    for (int64_t e = 0; e < n; e++)
        k->lab[g.buf][g.lo + e] = (label_t){ (int64_t)r * v->vstride + e, 1, rank_key(r), r, r + 1 };
}

/* The vector split among the ranks (desc vsplit, reduce_scatter): unit e of
 * every rank's vector is element e. */
static void initial_vsplit_labels(vstate *v, int r)
{
    vrank *k = &v->rk[r];
    const tc_vcounts *c = &v->vall[r];
    int64_t n = (c->rdispls[v->p - 1] + c->rcounts[v->p - 1]) * k->unit[TC_BUF_SEND];
    ureg g = resolve(v, r, tc_reg(TC_BUF_SEND, 0, 0));
    for (int64_t e = 0; e < n; e++)
        k->lab[g.buf][g.lo + e] = (label_t){ e, 1, rank_key(r), r, r + 1 };
}

/* One block per rank between the root and every rank (desc vroot): units
 * of rank j's block, from the root's vector (rank r's vall is in its own
 * scratch elements, the root's in its vector buffer's). */
static int64_t vroot_units(const vstate *v, int j)
{
    int root = v->proto->root;
    if (v->d->vroot == TC_VROOT_GATHER) return v->vall[root].rcounts[j] * v->u_recv;
    return v->vall[root].scounts[j] * v->u_send;
}

/* Unit e of rank j's block is element j x vstride + e: gatherv, in every
 * rank's SEND[0, ...] (in place: the root's RECV block); scatterv, in the
 * root's SEND at sdispls[j]. */
static void initial_vroot_labels(vstate *v, int r)
{
    vrank *k = &v->rk[r];
    int root = v->proto->root;
    for (int j = 0; j < v->p; j++) {
        if (v->d->vroot == TC_VROOT_GATHER ? j != r : r != root) continue;
        int64_t off = v->d->vroot == TC_VROOT_GATHER ? 0 : v->vall[root].sdispls[j];
        ureg g = resolve(v, r, tc_reg(TC_BUF_SEND, off, 0));
        int64_t n = vroot_units(v, j);
        for (int64_t e = 0; e < n; e++)
            k->lab[g.buf][g.lo + e] = (label_t){ (int64_t)j * v->vstride + e, 1, rank_key(j), j, j + 1 };
    }
}

static void initial_vlabels(vstate *v, int r)
{
    vrank *k = &v->rk[r];
    if (v->d->vblock) {
        initial_vblock_labels(v, r);
        return;
    }
    if (v->d->vsplit) {
        initial_vsplit_labels(v, r);
        return;
    }
    if (v->d->vroot) {
        initial_vroot_labels(v, r);
        return;
    }
    const tc_vcounts *c = &v->vall[r];
    int ip = v->proto->in_place, u = ip ? k->unit[TC_BUF_RECV] : k->unit[TC_BUF_SEND];
    for (int j = 0; j < v->p; j++) {
        int64_t n = (ip ? c->rcounts[j] : c->scounts[j]) * u;
        if (n <= 0) continue;
        ureg g = resolve(v, r, tc_reg(TC_BUF_SEND, ip ? c->rdispls[j] : c->sdispls[j], 0));
        for (int64_t e = 0; e < n; e++)
            k->lab[g.buf][g.lo + e] = (label_t){ ((int64_t)r * v->p + j) * v->vstride + e, 1, rank_key(r), r, r + 1 };
    }
}

static void initial_labels(vstate *v, int r)
{
    vrank *k = &v->rk[r];
    const tc_args *a = v->proto;
    if (v->vall) {
        initial_vlabels(v, r);
        return;
    }
    const tc_coll_input *in = &v->d->input;
    if (!tc_coll_at(in->at, r, a->root)) return;
    int64_t n = a->rcount * k->unit[TC_BUF_RECV] * (in->blocks_p ? a->size : 1);
    int64_t first = (in->first == TC_INDEX_RANK ? r : in->first == TC_INDEX_ROOT ? a->root : 0) * n;
    if (n == 0) return;
    ureg u = resolve(v, r, tc_reg(in->buf, 0, 0));
    for (int64_t i = 0; i < n; i++)
        k->lab[u.buf][u.lo + i] = (label_t){ first + i, 1, rank_key(r), r, r + 1 };
}

/* TC_REQ_NODE_COUNTS: the count rows of rank r's node, in TMP (receive)
 * units, as the MPI layer's node-local exchange gives them (member i sends
 * j what j receives from i) into a; *mem to free.  0 or ENOMEM. */
static int node_counts(const vstate *v, int r, tc_args *a, int64_t **mem)
{
    int A = v->t->node_of[r], n = tc_topo_node_size(v->t, A), p = v->p;
    const int *m = tc_topo_node_members(v->t, A);
    int64_t *sc = malloc(2 * (size_t)n * (size_t)p * sizeof *sc + 1), *rc = sc + (size_t)n * p;
    if (!(*mem = sc)) return ENOMEM;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < p; j++) {
            sc[(size_t)i * p + j] = v->vall[j].rcounts[m[i]];
            rc[(size_t)i * p + j] = v->vall[m[i]].rcounts[j];
        }
    a->node_sc = sc;
    a->node_rc = rc;
    return 0;
}

static tc_verify_status setup_rank(vstate *v, const tc_algo *al, int r, int u_send, int u_recv)
{
    vrank *k = &v->rk[r];
    tc_args a = *v->proto;
    a.rank = r;
    a.node_shm = 1;
    a.cma = 1;     /* cross-memory reads are modelled (happens-before) */
    a.v = v->vall ? &v->vall[r] : NULL;
    int64_t *node_mem = NULL;
    if (v->vall && (al->req & TC_REQ_NODE_COUNTS) && node_counts(v, r, &a, &node_mem))
        return fail(v, "out of memory");
    if (v->d->vblock && v->vall)   /* the own block, in SEND elements (in place: RECV's) */
        a.scount = a.in_place ? v->vall[r].rcounts[r]
                 : u_send ? v->vall[r].rcounts[r] * u_recv / u_send : 0;
    if (v->d->vroot && v->vall) {   /* the one block, in its buffer's elements (in place: the vector's) */
        int g = v->d->vroot == TC_VROOT_GATHER, u = g ? u_send : u_recv;
        int64_t own = (r == a.root && a.in_place) ? (g ? v->vall[r].rcounts[r] : v->vall[r].scounts[r])
                    : u ? vroot_units(v, r) / u : 0;
        if (g) a.scount = own;
        else a.rcount = own;
    }
    tc_sched_init(&k->s);
    int rc = tc_algo_generate(al, &k->s, &a, v->t);
    free(node_mem);
    a.node_sc = a.node_rc = NULL;
    if (rc == 0) rc = tc_sched_finish(&k->s);
    if (rc) return fail(v, "rank %d: generator failed (%s)", r, strerror(rc));
    tc_coll_layout l = tc_coll_layout_of(v->d, &a, r);
    k->unit[TC_BUF_SEND] = u_send;
    k->unit[TC_BUF_RECV] = u_recv;
    if (l.alias_from >= 0) k->unit[l.alias_from] = k->unit[l.alias_to];
    k->unit[TC_BUF_TMP] = k->s.tmp_like == TC_BUF_SEND ? k->unit[TC_BUF_SEND] : k->unit[TC_BUF_RECV];
    k->unit[TC_BUF_SHM] = k->unit[TC_BUF_TMP];
    k->alias_from = l.alias_from;
    k->alias_to = l.alias_to;
    k->alias_off = l.alias_off * (l.alias_to >= 0 ? k->unit[l.alias_to] : 0);
    k->elems[TC_BUF_SEND] = l.elems[TC_BUF_SEND];
    k->elems[TC_BUF_RECV] = l.elems[TC_BUF_RECV];
    k->elems[TC_BUF_TMP] = k->s.tmp_count;
    k->elems[TC_BUF_SHM] = 0;   /* node-wide: set by setup_shm */
    for (int b = 0; b < TC_NBUF; b++) {
        k->units[b] = k->elems[b] * k->unit[b];
        if (b == l.alias_from || b == TC_BUF_SHM) { k->lab[b] = NULL; continue; }
        k->lab[b] = malloc((size_t)(k->units[b] ? k->units[b] : 1) * sizeof(label_t));
        if (!k->lab[b]) return fail(v, "out of memory");
        set_undef(k->lab[b], k->units[b]);
    }
    initial_labels(v, r);
    return TC_VERIFY_OK;
}

/* Every rank of a node sees one SHM label array, as large as the largest
 * SHM any of its ranks asks for. */
static tc_verify_status setup_shm(vstate *v)
{
    const tc_topo *t = v->t;
    v->node_shm = calloc((size_t)t->nnodes, sizeof *v->node_shm);
    if (!v->node_shm) return fail(v, "out of memory");
    for (int n = 0; n < t->nnodes; n++) {
        const int *m = tc_topo_node_members(t, n);
        int64_t elems = 0;
        for (int i = 0; i < tc_topo_node_size(t, n); i++)
            if (v->rk[m[i]].s.shm_count > elems) elems = v->rk[m[i]].s.shm_count;
        int64_t units = elems * v->rk[m[0]].unit[TC_BUF_SHM];
        v->node_shm[n] = malloc((size_t)(units ? units : 1) * sizeof(label_t));
        if (!v->node_shm[n]) return fail(v, "out of memory");
        set_undef(v->node_shm[n], units);
        for (int i = 0; i < tc_topo_node_size(t, n); i++) {
            vrank *k = &v->rk[m[i]];
            k->elems[TC_BUF_SHM] = elems;
            k->units[TC_BUF_SHM] = units;
            k->lab[TC_BUF_SHM] = v->node_shm[n];
        }
    }
    return TC_VERIFY_OK;
}

static int is_comm(int kind) { return kind == TC_OP_SEND || kind == TC_OP_RECV; }
static int is_sync(int kind) { return kind == TC_OP_SIGNAL || kind == TC_OP_WAIT; }
static int is_local(int kind) { return kind == TC_OP_COPY || kind == TC_OP_REDUCE; }
/* A peer's own buffer that RREAD may name (before in-place aliasing). */
static int is_private(int buf) { return buf == TC_BUF_SEND || buf == TC_BUF_RECV || buf == TC_BUF_TMP; }

/* ---- shape and hazards --------------------------------------------------- */

typedef struct span { int64_t lo, hi; int buf; int what; int op; } span;
enum { W_RECV = 0, W_SEND = 1, W_LREAD = 2, W_LWRITE = 3 };

static int span_cmp(const void *x, const void *y)
{
    const span *a = x, *b = y;
    if (a->buf != b->buf) return a->buf - b->buf;
    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

static int conflicts(int w1, int w2)
{
    if (w1 == W_RECV || w2 == W_RECV) return 1;
    return (w1 == W_LWRITE && w2 == W_SEND) || (w1 == W_SEND && w2 == W_LWRITE);
}

/* Does the pairwise scan of check_round report anything?  One pass over the
 * spans sorted by (buf, lo): a span conflicts with an earlier span of its
 * buffer that reaches past its start (for each kind of access, the farthest
 * reach so far).  Two spans of one op never conflict (a local op reads one
 * region and writes the other), so the scan's op test changes nothing. */
static int any_hazard(const span *sp, int n)
{
    int64_t reach[4] = { 0, 0, 0, 0 };
    int buf = -1;
    for (int i = 0; i < n; i++) {
        if (sp[i].buf != buf) {
            buf = sp[i].buf;
            for (int w = 0; w < 4; w++) reach[w] = INT64_MIN;
        }
        for (int w = 0; w < 4; w++)
            if (reach[w] > sp[i].lo && conflicts(w, sp[i].what)) return 1;
        if (sp[i].hi > reach[sp[i].what]) reach[sp[i].what] = sp[i].hi;
    }
    return 0;
}

/* Stable sort of sp[0..n) by span_cmp (a merge sort; tmp holds n spans),
 * without qsort's calls through a pointer; glibc's qsort, used before, is
 * a stable merge sort too, so the hazard message names the same pair. */
static void span_sort(span *sp, span *tmp, int n)
{
    if (n < 16) {   /* insertion sort: stable */
        for (int i = 1; i < n; i++) {
            span x = sp[i];
            int j = i;
            for (; j > 0 && span_cmp(&sp[j - 1], &x) > 0; j--) sp[j] = sp[j - 1];
            sp[j] = x;
        }
        return;
    }
    int h = n / 2, i = 0, j = h, k = 0;
    span_sort(sp, tmp, h);
    span_sort(sp + h, tmp, n - h);
    if (span_cmp(&sp[h - 1], &sp[h]) <= 0) return;   /* already in order */
    while (i < h && j < n) tmp[k++] = span_cmp(&sp[j], &sp[i]) < 0 ? sp[j++] : sp[i++];
    while (i < h) tmp[k++] = sp[i++];
    memcpy(sp, tmp, (size_t)k * sizeof *sp);   /* the rest (j..n) is in place */
}

static tc_verify_status check_round(vstate *v, int r, int round, span *sp)
{
    const tc_sched *s = &v->rk[r].s;
    int n = 0;
    for (int i = tc_sched_round_begin(s, round); i < tc_sched_round_end(s, round); i++) {
        const tc_op *op = &s->ops[i];
        if (is_sync(op->kind) || op->kind == TC_OP_SUBCOLL || is_self_copy(v, r, op)) continue;
        if (op->kind == TC_OP_PUBLISH) {   /* reads a; its b is the slot */
            ureg a = resolve(v, r, op->a);
            sp[n++] = (span){ a.lo, a.hi, a.buf, W_LREAD, i };
            continue;
        }
        ureg a = resolve(v, op->kind == TC_OP_RREAD ? op->peer : r, op->a), b = resolve(v, r, op->b);
        switch (op->kind) {
        case TC_OP_SEND: sp[n++] = (span){ a.lo, a.hi, a.buf, W_SEND, i }; break;
        case TC_OP_RECV: sp[n++] = (span){ a.lo, a.hi, a.buf, W_RECV, i }; break;
        case TC_OP_RREAD: sp[n++] = (span){ b.lo, b.hi, b.buf, W_LWRITE, i }; break;
        case TC_OP_COLLECT: sp[n++] = (span){ b.lo, b.hi, b.buf, W_LWRITE, i }; break;
        default:
            sp[n++] = (span){ a.lo, a.hi, a.buf, W_LREAD, i };
            sp[n++] = (span){ b.lo, b.hi, b.buf, W_LWRITE, i };
        }
    }
    span_sort(sp, sp + n, n);
    if (!any_hazard(sp, n)) return TC_VERIFY_OK;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n && sp[j].buf == sp[i].buf && sp[j].lo < sp[i].hi; j++)
            if (sp[j].op != sp[i].op && conflicts(sp[i].what, sp[j].what))
                return fail(v, "rank %d round %d: ops %d and %d touch %s units [%lld,%lld) "
                            "and [%lld,%lld) in the same round (hazard)", r, round,
                            sp[i].op, sp[j].op, bufname(sp[i].buf), (long long)sp[i].lo,
                            (long long)sp[i].hi, (long long)sp[j].lo, (long long)sp[j].hi);
    return TC_VERIFY_OK;
}

/* RREAD: a region of a peer's own buffer on this node into a local one. */
static tc_verify_status check_rread(vstate *v, int r, int i, const tc_op *op)
{
    if (v->t->node_of[op->peer] != v->t->node_of[r])
        return fail(v, "rank %d op %d: cross-memory read from rank %d on another node", r, i, op->peer);
    if (!is_private(op->a.buf) || !region_ok(v, op->peer, op->a) || !region_ok(v, r, op->b))
        return fail(v, "rank %d op %d: cross-memory read outside its buffers (rank %d's %s off %lld "
                    "cnt %lld)", r, i, op->peer, bufname(op->a.buf), (long long)op->a.off,
                    (long long)op->a.cnt);
    ureg a = resolve(v, op->peer, op->a), b = resolve(v, r, op->b);
    if (a.hi - a.lo != b.hi - b.lo)
        return fail(v, "rank %d op %d: cross-memory read of %lld units into %lld", r, i,
                    (long long)(a.hi - a.lo), (long long)(b.hi - b.lo));
    return TC_VERIFY_OK;
}

/* ---- inline lines: shape ----------------------------------------------------
 * A slot region starts at 0 within the slot (packed tmp_like elements, SHM's
 * units); a rank publishes once, collects from a peer of its node (itself
 * included) once, and never publishes and collects in one round: the
 * executor's count of the peers collected from (make room, shm_inline.c)
 * and the verifier's order of a round's ops rest on that. */
static int slot_ok(const vstate *v, int r, tc_region g)
{
    return g.off == 0 && g.cnt >= 0 && g.cnt <= v->rk[r].s.inline_count;
}

static tc_verify_status check_inline(vstate *v, int r, int i, const tc_op *op, unsigned char *seen)
{
    const vrank *k = &v->rk[r];
    int pub = op->kind == TC_OP_PUBLISH, owner = pub ? r : op->peer;
    tc_region local = pub ? op->a : op->b, slot = pub ? op->b : op->a;
    if (!pub && (op->peer < 0 || op->peer >= v->p || v->t->node_of[op->peer] != v->t->node_of[r]))
        return fail(v, "rank %d op %d: collect from rank %d, not on its node", r, i, op->peer);
    if (!region_ok(v, r, local) || local.buf == TC_BUF_SHM || !slot_ok(v, owner, slot))
        return fail(v, "rank %d op %d: %s outside its buffers or slot (%s off %lld cnt %lld, slot %lld)", r, i,
                    pub ? "publish" : "collect", bufname(local.buf), (long long)local.off, (long long)local.cnt,
                    (long long)slot.cnt);
    ureg u = resolve(v, r, local);
    if (u.hi - u.lo != slot.cnt * k->unit[TC_BUF_SHM])
        return fail(v, "rank %d op %d: %s of %lld units into %lld", r, i, pub ? "publish" : "collect",
                    (long long)(u.hi - u.lo), (long long)(slot.cnt * k->unit[TC_BUF_SHM]));
    unsigned char *mark = &seen[pub ? v->p : op->peer];
    if (*mark)
        return fail(v, "rank %d op %d: %s twice in one call", r, i, pub ? "publishes" : "collects from a rank");
    *mark = 1;
    return TC_VERIFY_OK;
}

/* The rounds that publish do not collect. */
static tc_verify_status check_inline_rounds(vstate *v, int r)
{
    const tc_sched *s = &v->rk[r].s;
    for (int k = 0; k < s->nrounds; k++) {
        int pub = 0, col = 0;
        for (int i = tc_sched_round_begin(s, k); i < tc_sched_round_end(s, k); i++) {
            pub |= s->ops[i].kind == TC_OP_PUBLISH;
            col |= s->ops[i].kind == TC_OP_COLLECT;
        }
        if (pub && col) return fail(v, "rank %d round %d: publishes and collects in one round", r, k);
    }
    return TC_VERIFY_OK;
}

/* Each op on its own; seen: the inline ops so far (peers collected from,
 * then the publication). */
static tc_verify_status check_ops(vstate *v, int r, unsigned char *seen)
{
    const tc_sched *s = &v->rk[r].s;
    for (int i = 0; i < s->nops; i++) {
        const tc_op *op = &s->ops[i];
        int local = is_local(op->kind);
        if (op->kind > TC_OP_SUBCOLL) return fail(v, "rank %d op %d: bad kind", r, i);
        if (op->kind == TC_OP_SUBCOLL) continue;   /* check_subcoll */
        if (op->kind == TC_OP_PUBLISH || op->kind == TC_OP_COLLECT) {
            tc_verify_status st = check_inline(v, r, i, op, seen);
            if (st) return st;
            continue;
        }
        if (!local && (op->peer < 0 || op->peer >= v->p || op->peer == r))
            return fail(v, "rank %d op %d: peer %d out of range or itself", r, i, op->peer);
        if (is_sync(op->kind)) {
            if (v->t->node_of[op->peer] != v->t->node_of[r])
                return fail(v, "rank %d op %d: %s with rank %d on another node", r, i,
                            op->kind == TC_OP_SIGNAL ? "signal" : "wait", op->peer);
            continue;
        }
        if (op->kind == TC_OP_RREAD) {
            tc_verify_status st = check_rread(v, r, i, op);
            if (st) return st;
            continue;
        }
        if (!region_ok(v, r, op->a) || (local && !region_ok(v, r, op->b)))
            return fail(v, "rank %d op %d: region outside its buffer (%s off %lld cnt %lld)",
                        r, i, bufname(op->a.buf), (long long)op->a.off, (long long)op->a.cnt);
        if (local) {
            ureg a = resolve(v, r, op->a), b = resolve(v, r, op->b);
            if (a.hi - a.lo != b.hi - b.lo)
                return fail(v, "rank %d op %d: copy of %lld units into %lld", r, i,
                            (long long)(a.hi - a.lo), (long long)(b.hi - b.lo));
        }
    }
    return TC_VERIFY_OK;
}

static tc_verify_status check_shape(vstate *v, int r)
{
    const tc_sched *s = &v->rk[r].s;
    unsigned char *seen = s->uses_inline ? calloc((size_t)v->p + 1, 1) : NULL;
    if (s->uses_inline && !seen) return fail(v, "out of memory");
    tc_verify_status st0 = check_ops(v, r, seen);
    free(seen);
    if (!st0 && s->uses_inline) st0 = check_inline_rounds(v, r);
    if (st0) return st0;
    int maxops = 0;
    for (int k = 0; k < s->nrounds; k++) {
        int n = tc_sched_round_end(s, k) - tc_sched_round_begin(s, k);
        if (n > maxops) maxops = n;
    }
    span *sp = malloc((size_t)(4 * maxops + 1) * sizeof *sp);   /* spans, then span_sort's room */
    if (!sp) return fail(v, "out of memory");
    tc_verify_status st = TC_VERIFY_OK;
    for (int k = 0; k < s->nrounds && st == TC_VERIFY_OK; k++) st = check_round(v, r, k, sp);
    free(sp);
    return st;
}

/* ---- matching ------------------------------------------------------------ */

typedef struct msg { int chan, src, dst; int64_t id; } msg;

static int msg_cmp(const void *x, const void *y)
{
    const msg *a = x, *b = y;
    if (a->chan != b->chan) return a->chan - b->chan;
    if (a->src != b->src) return a->src - b->src;
    if (a->dst != b->dst) return a->dst - b->dst;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* One stable counting pass: out gets in ordered by key (0 .. nkeys-1). */
static void msg_pass(const msg *in, msg *out, int64_t n, int64_t *cnt, int nkeys, int p, int by_src)
{
    memset(cnt, 0, (size_t)(nkeys + 1) * sizeof *cnt);
    for (int64_t i = 0; i < n; i++) cnt[(by_src ? in[i].chan * p + in[i].src : in[i].dst) + 1]++;
    for (int k = 0; k < nkeys; k++) cnt[k + 1] += cnt[k];
    for (int64_t i = 0; i < n; i++) out[cnt[by_src ? in[i].chan * p + in[i].src : in[i].dst]++] = in[i];
}

/* Sorts m (listed in op id order) as msg_cmp does, in linear time: stable
 * by dst, then stable by (chan, src); ids are unique, so the order is the
 * same total order.  Peers are in range (check_shape).  0 or ENOMEM. */
static int msg_sort(msg *m, int64_t n, int p)
{
    msg *tmp = malloc((size_t)(n + 1) * sizeof *tmp);
    int64_t *cnt = malloc((size_t)(2 * p + 1) * sizeof *cnt);
    if (!tmp || !cnt) {
        free(tmp);
        free(cnt);
        return ENOMEM;
    }
    msg_pass(m, tmp, n, cnt, p, p, 0);
    msg_pass(tmp, m, n, cnt, 2 * p, p, 1);
    free(tmp);
    free(cnt);
    return 0;
}

static int64_t units_of(const vstate *v, int r, tc_region g)
{
    return g.cnt * v->rk[r].unit[(int)g.buf];
}

static tc_verify_status match(vstate *v)
{
    int64_t ns = 0, nr = 0;
    for (int r = 0; r < v->p; r++)
        for (int i = 0; i < v->rk[r].s.nops; i++) {
            int kd = v->rk[r].s.ops[i].kind;
            ns += kd == TC_OP_SEND || kd == TC_OP_SIGNAL;
            nr += kd == TC_OP_RECV || kd == TC_OP_WAIT;
        }
    msg *S = malloc((size_t)(ns + 1) * sizeof *S), *R = malloc((size_t)(nr + 1) * sizeof *R);
    if (!S || !R) { free(S); free(R); return fail(v, "out of memory"); }
    ns = nr = 0;
    for (int r = 0; r < v->p; r++)
        for (int i = 0; i < v->rk[r].s.nops; i++) {
            const tc_op *op = &v->rk[r].s.ops[i];
            int64_t id = v->base[r] + i;
            v->op_rank[id] = r;
            int chan = is_sync(op->kind);
            if (op->kind == TC_OP_SEND || op->kind == TC_OP_SIGNAL) S[ns++] = (msg){ chan, r, op->peer, id };
            if (op->kind == TC_OP_RECV || op->kind == TC_OP_WAIT) R[nr++] = (msg){ chan, op->peer, r, id };
        }
    if (msg_sort(S, ns, v->p) || msg_sort(R, nr, v->p)) {
        free(S);
        free(R);
        return fail(v, "out of memory");
    }
    int64_t *node_out = calloc((size_t)v->t->nnodes * 3, sizeof *node_out);
    if (!node_out) { free(S); free(R); return fail(v, "out of memory"); }
    int64_t *node_out_bytes = node_out + v->t->nnodes, *node_in_bytes = node_out + 2 * v->t->nnodes;
    tc_verify_status st = TC_VERIFY_OK;
    int64_t i = 0, j = 0;
    while (st == TC_VERIFY_OK && (i < ns || j < nr)) {
        if (i < ns && j < nr && S[i].chan == R[j].chan && S[i].src == R[j].src &&
            S[i].dst == R[j].dst) {
            const tc_op *so = &v->rk[S[i].src].s.ops[S[i].id - v->base[S[i].src]];
            const tc_op *ro = &v->rk[R[j].dst].s.ops[R[j].id - v->base[R[j].dst]];
            if (S[i].chan) {   /* signal / wait: no data */
                v->partner[S[i].id] = R[j].id;
                v->partner[R[j].id] = S[i].id;
                i++, j++;
                continue;
            }
            int64_t su = units_of(v, S[i].src, so->a), ru = units_of(v, R[j].dst, ro->a);
            if (su != ru)
                st = fail(v, "message %d -> %d: sent %lld units, receive expects %lld",
                          S[i].src, S[i].dst, (long long)su, (long long)ru);
            v->partner[S[i].id] = R[j].id;
            v->partner[R[j].id] = S[i].id;
            v->rep->messages++;
            v->rep->bytes += su;
            int sn = v->t->node_of[S[i].src], dn = v->t->node_of[S[i].dst];
            if (sn != dn) {
                v->rep->inter_node_messages++;
                v->rep->inter_node_bytes += su;
                node_out[sn]++;
                node_out_bytes[sn] += su;
                node_in_bytes[dn] += su;
            }
            i++, j++;
        } else {
            int send_first = j >= nr || (i < ns && msg_cmp(&S[i], &R[j]) < 0);
            const msg *m = send_first ? &S[i] : &R[j];
            st = fail(v, "unmatched %s between %d -> %d (no matching %s)",
                      m->chan ? (send_first ? "signal" : "wait") : (send_first ? "send" : "receive"),
                      m->src, m->dst,
                      m->chan ? (send_first ? "wait" : "signal") : (send_first ? "receive" : "send"));
        }
    }
    for (int n = 0; n < v->t->nnodes; n++) {
        if (node_out[n] > v->rep->node_max_out_messages) v->rep->node_max_out_messages = node_out[n];
        if (node_out_bytes[n] > v->rep->node_max_out_bytes) v->rep->node_max_out_bytes = node_out_bytes[n];
        if (node_in_bytes[n] > v->rep->node_max_in_bytes) v->rep->node_max_in_bytes = node_in_bytes[n];
    }
    free(node_out);
    free(S);
    free(R);
    return st;
}

/* ---- member-set rounds (TC_OP_SUBCOLL) -------------------------------------- */

/* Rank r's rounds: set[id] for op id, 2 c + s in the c-th round of member
 * set s (-1: a plain round), count[2 r + s] how many rounds of each set r
 * has; the rules of sched.h on what such a round holds. */
static tc_verify_status subcoll_shape(vstate *v, int r, int64_t *set, int64_t *count)
{
    const tc_sched *s = &v->rk[r].s;
    const tc_topo *t = v->t;
    for (int k = 0; k < s->nrounds; k++) {
        int b = tc_sched_round_begin(s, k), e = tc_sched_round_end(s, k);
        int sub = s->ops[b].kind == TC_OP_SUBCOLL ? s->ops[b].peer : -1;
        if (sub > TC_SUB_ROOTS || (sub == TC_SUB_ROOTS && t->node_idx[r] != 0))
            return fail(v, "rank %d round %d: member set %d is not one of this rank's", r, k, sub);
        int64_t mark = sub >= 0 ? 2 * count[2 * r + sub] + sub : -1;
        if (sub >= 0) count[2 * r + sub]++;
        for (int i = b; i < e; i++) {
            const tc_op *op = &s->ops[i];
            set[v->base[r] + i] = mark;
            if (i > b && op->kind == TC_OP_SUBCOLL)
                return fail(v, "rank %d op %d: a member-set mark not first in its round", r, i);
            if (sub < 0 || i == b) continue;
            if (!is_comm(op->kind) && op->kind != TC_OP_COPY)
                return fail(v, "rank %d op %d: a member-set round holds sends, receives and copies only", r, i);
            if (is_comm(op->kind) &&
                (sub == TC_SUB_NODE ? t->node_of[op->peer] != t->node_of[r] : t->node_idx[op->peer] != 0))
                return fail(v, "rank %d op %d: message with rank %d outside the round's member set", r, i, op->peer);
        }
    }
    return TC_VERIFY_OK;
}

/* Member-set rounds run as one collective call each: every rank has them
 * if any has, every member of a set as many of that set, and every message
 * pairs ops of the c-th rounds of one set at both ends (or of two plain
 * rounds), so that a round's messages to one peer may go as one. */
static tc_verify_status check_subcoll(vstate *v)
{
    int any = 0;
    for (int r = 0; r < v->p; r++) any |= v->rk[r].s.uses_subcoll;
    if (!any) return TC_VERIFY_OK;
    int64_t *set = malloc(((size_t)v->base[v->p] + 1) * sizeof *set);
    int64_t *count = calloc(2 * (size_t)v->p, sizeof *count);
    tc_verify_status st = !set || !count ? fail(v, "out of memory") : TC_VERIFY_OK;
    for (int r = 0; r < v->p && !st; r++)
        st = v->rk[r].s.uses_subcoll ? subcoll_shape(v, r, set, count)
                                     : fail(v, "rank %d has no member-set round where others have", r);
    for (int r = 0; r < v->p && !st; r++) {
        const tc_sched *s = &v->rk[r].s;
        int first = tc_topo_node_members(v->t, v->t->node_of[r])[0];
        for (int i = 0; i < s->nops && !st; i++)
            if (is_comm(s->ops[i].kind) && set[v->base[r] + i] != set[v->partner[v->base[r] + i]])
                st = fail(v, "rank %d op %d: message with rank %d pairs ops of different collective calls",
                          r, i, s->ops[i].peer);
        if (!st && count[2 * r] != count[2 * first])
            st = fail(v, "rank %d: %lld collective calls on its node, rank %d %lld", r, (long long)count[2 * r],
                      first, (long long)count[2 * first]);
        if (!st && v->t->node_idx[r] == 0 && count[2 * r + 1] != count[1])   /* rank 0 is a root */
            st = fail(v, "rank %d: %lld collective calls among the roots, rank 0 %lld", r,
                      (long long)count[2 * r + 1], (long long)count[1]);
    }
    free(set);
    free(count);
    return st;
}

/* ---- symbolic execution ---------------------------------------------------- */

static label_t *labels_at(vstate *v, int r, tc_region g, int64_t *n)
{
    ureg u = resolve(v, r, g);
    *n = u.hi - u.lo;
    return v->rk[r].lab[u.buf] + u.lo;
}

/* ---- happens-before on node-shared memory -------------------------------- */

static int32_t *vc_of(const vstate *v, int r) { return v->vc + (size_t)r * (size_t)v->p; }

/* into = max(into, from) entry by entry; in blocks of 8 that the compiler
 * turns into vector instructions (the sweeps spend much time here). */
static void vc_join(int32_t *restrict into, const int32_t *restrict from, int p)
{
    int i = 0;
    for (; i + 8 <= p; i += 8)
        for (int j = 0; j < 8; j++) into[i + j] = from[i + j] > into[i + j] ? from[i + j] : into[i + j];
    for (; i < p; i++)
        if (from[i] > into[i]) into[i] = from[i];
}

/* A unit's read record (shm_w): most units are read by few ranks between
 * writes, so the first SHM_SLOTS readers are kept inline; more spill into a
 * clock per node index (shm_r, allocated on first need, kept for reuse). */
enum { SHM_SLOTS = 2, SHM_SPILLED = SHM_SLOTS + 1, SHM_W = 3 + 2 * SHM_SLOTS };

/* Node index me reads unit u (record w) at clock. */
static tc_verify_status shm_read(vstate *v, int node, int n, int64_t u, int32_t *w, int me, int32_t clock)
{
    int32_t **spill = &v->shm_r[node][u];
    if (w[2] < SHM_SPILLED) {
        for (int s = 0; s < w[2]; s++)
            if (w[3 + 2 * s] == me) {
                w[4 + 2 * s] = clock;
                return TC_VERIFY_OK;
            }
        if (w[2] < SHM_SLOTS) {
            w[3 + 2 * w[2]] = me;
            w[4 + 2 * w[2]] = clock;
            w[2]++;
            return TC_VERIFY_OK;
        }
        if (!*spill && !(*spill = calloc((size_t)n, sizeof(int32_t)))) return fail(v, "out of memory");
        for (int s = 0; s < SHM_SLOTS; s++) (*spill)[w[3 + 2 * s]] = w[4 + 2 * s];
        w[2] = SHM_SPILLED;
    }
    (*spill)[me] = clock;
    return TC_VERIFY_OK;
}

/* The node index of the first reader of unit u (record w) since its last
 * write, other than me, that clock mine does not order (-1: none); then
 * the record is cleared. */
static int shm_unordered_reader(vstate *v, int node, int n, int64_t u, int32_t *w, int me,
                                const int32_t *mine)
{
    const int *members = tc_topo_node_members(v->t, node);
    int first = -1;
    if (w[2] == SHM_SPILLED) {
        int32_t *rd = v->shm_r[node][u];
        for (int q = 0; q < n && first < 0; q++)
            if (q != me && rd[q] > 0 && mine[members[q]] < rd[q]) first = q;
        memset(rd, 0, (size_t)n * sizeof *rd);
    } else {
        for (int s = 0; s < w[2]; s++) {
            int q = w[3 + 2 * s];
            if (q != me && w[4 + 2 * s] > 0 && mine[members[q]] < w[4 + 2 * s] && (first < 0 || q < first))
                first = q;
        }
    }
    w[2] = 0;
    return first;
}

/* An access by rank r to SHM units [lo, hi) of its node: a write must come
 * after the last write and every read since; a read after the last write. */
static tc_verify_status shm_access(vstate *v, int r, int64_t lo, int64_t hi, int write)
{
    int node = v->t->node_of[r], n = tc_topo_node_size(v->t, node), me = v->t->node_idx[r];
    const int32_t *mine = vc_of(v, r);
    int32_t clock = mine[r];
    for (int64_t u = lo; u < hi; u++) {
        int32_t *w = v->shm_w[node] + SHM_W * u;
        if (w[0] >= 0 && w[0] != r && mine[w[0]] < w[1])
            return fail(v, "race on node-shared memory: rank %d %s shm unit %lld written by rank %d "
                        "without ordering (signal/wait missing)", r, write ? "writes" : "reads",
                        (long long)u, w[0]);
        if (!write) {
            tc_verify_status st = shm_read(v, node, n, u, w, me, clock);
            if (st) return st;
            continue;
        }
        int q = w[2] ? shm_unordered_reader(v, node, n, u, w, me, mine) : -1;
        if (q >= 0)
            return fail(v, "race on node-shared memory: rank %d overwrites shm unit %lld that "
                        "rank %d reads without ordering", r, (long long)u,
                        tc_topo_node_members(v->t, node)[q]);
        w[0] = r;
        w[1] = clock;
    }
    return TC_VERIFY_OK;
}

/* Drop rank o's recorded reads that its clock mine orders before; if a
 * read it does not order overlaps buf [lo, hi) (lo < 0: any), that one
 * (the list is then left as it is: the verification fails). */
static const pread_ent *priv_unordered(vstate *v, int o, const int32_t *mine, int buf, int64_t lo,
                                       int64_t hi)
{
    struct pread *L = &v->pr[o];
    int64_t k = 0;
    for (int64_t i = 0; i < L->n; i++) {
        const pread_ent *x = &L->e[i];
        if (mine[x->reader] >= x->clock) continue;   /* ordered: drop */
        if (lo < 0 || (x->buf == buf && x->lo < hi && lo < x->hi)) return x;   /* (we fail) */
        L->e[k++] = *x;
    }
    L->n = k;
    return NULL;
}

/* Rank r writes units [lo, hi) of its own buffer buf: after every
 * cross-memory read of them. */
static tc_verify_status priv_write(vstate *v, int r, int buf, int64_t lo, int64_t hi)
{
    const int32_t *mine = vc_of(v, r);
    const pread_ent *x = v->pr[r].n ? priv_unordered(v, r, mine, buf, lo, hi) : NULL;
    if (x)
        return fail(v, "race on a cross-memory read: rank %d overwrites its %s units [%lld,%lld) that "
                    "rank %d reads without ordering", r, bufname(buf), (long long)x->lo,
                    (long long)x->hi, x->reader);
    int32_t *w = v->pw[r * 3 + buf];
    for (int64_t u = lo; u < hi; u++) w[u] = mine[r];
    return TC_VERIFY_OK;
}

/* Rank r reads units [lo, hi) of rank o's own buffer buf: after o published
 * it (its round 0) and after o's last write of them. */
static tc_verify_status priv_read(vstate *v, int r, int o, int buf, int64_t lo, int64_t hi)
{
    const int32_t *mine = vc_of(v, r), *w = v->pw[o * 3 + buf];
    for (int64_t u = lo; u < hi; u++)
        if (mine[o] < w[u])
            return fail(v, "race on a cross-memory read: rank %d reads rank %d's %s unit %lld "
                        "without ordering after its %s (signal/wait missing)", r, o, bufname(buf),
                        (long long)u, w[u] == 1 ? "publication or write" : "write");
    struct pread *L = &v->pr[o];
    if (L->n == L->cap) {
        int64_t cap = L->cap ? 2 * L->cap : 16;
        pread_ent *e = realloc(L->e, (size_t)cap * sizeof *e);
        if (!e) return fail(v, "out of memory");
        L->e = e;
        L->cap = cap;
    }
    L->e[L->n++] = (pread_ent){ lo, hi, r, mine[r], buf };
    return TC_VERIFY_OK;
}

/* A message lands in rank r's own buffer at the end of its round, after
 * the round's signals: a peer may read it only after a later signal. */
static void priv_landed(vstate *v, int r, tc_region g)
{
    ureg u = resolve(v, r, g);
    if (!v->pw || u.buf > TC_BUF_TMP) return;
    int32_t *w = v->pw[r * 3 + u.buf], late = vc_of(v, r)[r] + 1;
    for (int64_t i = u.lo; i < u.hi; i++) w[i] = late;
}

static tc_verify_status track(vstate *v, int r, tc_region g, int write)
{
    if (!v->vc) return TC_VERIFY_OK;
    ureg u = resolve(v, r, g);
    if (u.buf == TC_BUF_SHM) return shm_access(v, r, u.lo, u.hi, write);
    return v->pw && write ? priv_write(v, r, u.buf, u.lo, u.hi) : TC_VERIFY_OK;
}

/* At the end of its schedule rank r hands its buffers back (the caller may
 * overwrite them, the next call reuses its scratch): every cross-memory
 * read of them must be ordered before (a signal after the read). */
static tc_verify_status priv_final(vstate *v, int r)
{
    int32_t *mine = vc_of(v, r);
    vc_join(mine, v->pend + (size_t)r * (size_t)v->p, v->p);
    const pread_ent *x = v->pr[r].n ? priv_unordered(v, r, mine, 0, -1, 0) : NULL;
    if (x)
        return fail(v, "race on a cross-memory read: rank %d returns while rank %d may still read its "
                    "%s units [%lld,%lld) (no signal after the read)", r, x->reader, bufname(x->buf),
                    (long long)x->lo, (long long)x->hi);
    return TC_VERIFY_OK;
}

static tc_verify_status rread(vstate *v, int r, const tc_op *op)
{
    int64_t ns, nd;
    ureg u = resolve(v, op->peer, op->a);
    tc_verify_status st = v->pw ? priv_read(v, r, op->peer, u.buf, u.lo, u.hi) : TC_VERIFY_OK;
    if (!st) st = track(v, r, op->b, 1);
    if (st) return st;
    const label_t *a = labels_at(v, op->peer, op->a, &ns);
    label_t *b = labels_at(v, r, op->b, &nd);
    for (int64_t i = 0; i < ns; i++)
        if (a[i].elem < 0)
            return fail(v, "rank %d reads uninitialised %s data of rank %d (units %lld..)", r,
                        bufname(op->a.buf), op->peer, (long long)(u.lo + i));
    memmove(b, a, (size_t)ns * sizeof *a);
    return TC_VERIFY_OK;
}

/* Per-rank write and read clocks of the own buffers (schedules with RREAD). */
static tc_verify_status setup_priv(vstate *v)
{
    v->pw = calloc((size_t)v->p * 3, sizeof *v->pw);
    v->pr = calloc((size_t)v->p, sizeof *v->pr);
    if (!v->pw || !v->pr) return fail(v, "out of memory");
    for (int r = 0; r < v->p; r++)
        for (int b = 0; b < 3; b++) {
            int64_t units = v->rk[r].units[b];
            v->pw[r * 3 + b] = malloc((size_t)(units + 1) * sizeof(int32_t));
            if (!v->pw[r * 3 + b]) return fail(v, "out of memory");
            for (int64_t u = 0; u < units; u++) v->pw[r * 3 + b][u] = 1;   /* published input */
        }
    return TC_VERIFY_OK;
}

static tc_verify_status setup_hb(vstate *v)
{
    int any = v->d->synchronizes;   /* a barrier's proof is happens-before */
    for (int r = 0; r < v->p && !any; r++) any = v->rk[r].s.uses_shm;
    if (!any) return TC_VERIFY_OK;
    size_t pp = (size_t)v->p * (size_t)v->p;
    v->vc = calloc(pp, sizeof *v->vc);
    v->pend = calloc(pp, sizeof *v->pend);
    v->sig_vc = calloc((size_t)v->base[v->p] + 1, sizeof *v->sig_vc);
    v->shm_w = calloc((size_t)v->t->nnodes, sizeof *v->shm_w);
    v->shm_r = calloc((size_t)v->t->nnodes, sizeof *v->shm_r);
    if (!v->vc || !v->pend || !v->sig_vc || !v->shm_w || !v->shm_r) return fail(v, "out of memory");
    for (int n = 0; n < v->t->nnodes; n++) {
        int64_t units = v->rk[tc_topo_node_members(v->t, n)[0]].units[TC_BUF_SHM];
        v->shm_w[n] = malloc((size_t)(SHM_W * units + 1) * sizeof(int32_t));
        v->shm_r[n] = calloc((size_t)(units + 1), sizeof(int32_t *));
        if (!v->shm_w[n] || !v->shm_r[n]) return fail(v, "out of memory");
        for (int64_t u = 0; u < units; u++) {
            v->shm_w[n][SHM_W * u] = v->shm_w[n][SHM_W * u + 1] = -1;
            v->shm_w[n][SHM_W * u + 2] = 0;   /* no read since the last write */
        }
    }
    for (int r = 0; r < v->p; r++)
        if (v->rk[r].s.uses_rread) return setup_priv(v);
    return TC_VERIFY_OK;
}

static void release_hb(vstate *v)
{
    for (int64_t i = 0; i < v->nsnaps; i++) free(v->snaps[i]);
    free(v->snaps);
    for (int n = 0; v->shm_w && n < v->t->nnodes; n++) free(v->shm_w[n]);
    for (int n = 0; v->shm_r && n < v->t->nnodes; n++) {
        int64_t units = v->shm_r[n] ? v->rk[tc_topo_node_members(v->t, n)[0]].units[TC_BUF_SHM] : 0;
        for (int64_t u = 0; u < units; u++) free(v->shm_r[n][u]);
        free(v->shm_r[n]);
    }
    free(v->vc);
    free(v->pend);
    free(v->sig_vc);
    free(v->shm_w);
    free(v->shm_r);
    for (int i = 0; v->pw && i < 3 * v->p; i++) free(v->pw[i]);
    for (int i = 0; v->pr && i < v->p; i++) free(v->pr[i].e);
    free(v->pw);
    free(v->pr);
}

static tc_verify_status move(vstate *v, int sr, tc_region src, int dr, tc_region dst,
                             const char *what)
{
    int64_t ns, nd;
    tc_verify_status st = track(v, sr, src, 0);
    if (!st) st = track(v, dr, dst, 1);
    if (st) return st;
    label_t *a = labels_at(v, sr, src, &ns), *b = labels_at(v, dr, dst, &nd);
    for (int64_t i = 0; i < ns; i++)
        if (a[i].elem < 0)
            return fail(v, "rank %d %s uninitialised %s data (units %lld..)", sr, what,
                        bufname(src.buf), (long long)(src.off * v->rk[sr].unit[(int)src.buf]));
    memmove(b, a, (size_t)ns * sizeof *a);
    return TC_VERIFY_OK;
}

/* b = a op b, unit by unit: same logical element, contributions add up. */
static tc_verify_status combine(vstate *v, int r, tc_region src, tc_region dst)
{
    int64_t ns, nd;
    tc_verify_status st = track(v, r, src, 0);
    if (!st) st = track(v, r, dst, 1);
    if (st) return st;
    label_t *a = labels_at(v, r, src, &ns), *b = labels_at(v, r, dst, &nd);
    if (ns != nd) return fail(v, "rank %d: reduce of %lld units into %lld", r, (long long)ns, (long long)nd);
    for (int64_t i = 0; i < ns; i++) {
        if (a[i].elem < 0 || b[i].elem < 0)
            return fail(v, "rank %d reduces uninitialised %s data", r,
                        bufname(a[i].elem < 0 ? src.buf : dst.buf));
        if (a[i].elem != b[i].elem)
            return fail(v, "rank %d reduces element %lld into element %lld", r,
                        (long long)a[i].elem, (long long)b[i].elem);
        if (!v->proto->commutative && a[i].hi != b[i].lo)
            return fail(v, "rank %d combines ranks [%d,%d) op [%d,%d) of element %lld: not in rank "
                        "order (non-commutative operation)", r, a[i].lo, a[i].hi, b[i].lo, b[i].hi,
                        (long long)b[i].elem);
        b[i].cnt += a[i].cnt;
        b[i].key += a[i].key;
        b[i].lo = a[i].lo;
        if (b[i].cnt > v->p)
            return fail(v, "rank %d: element %lld combines more than %d contributions", r,
                        (long long)b[i].elem, v->p);
    }
    return TC_VERIFY_OK;
}

static int posted(const vstate *v, int64_t id)
{
    int r = v->op_rank[id];
    const vrank *k = &v->rk[r];
    int64_t i = id - v->base[r];
    return k->entered && k->cur < k->s.nrounds &&
           i >= tc_sched_round_begin(&k->s, k->cur) && i < tc_sched_round_end(&k->s, k->cur);
}

/* A signal stays raised once its rank has entered the signal's round. */
static int raised(const vstate *v, int64_t id)
{
    int r = v->op_rank[id];
    const vrank *k = &v->rk[r];
    int64_t i = id - v->base[r];
    if (k->cur >= k->s.nrounds) return 1;
    if (i < tc_sched_round_begin(&k->s, k->cur)) return 1;
    return k->entered && i < tc_sched_round_end(&k->s, k->cur);
}

/* A copy of rank r's clock, owned by v->snaps (NULL: out of memory). */
static int32_t *snapshot(vstate *v, int r)
{
    if (v->nsnaps == v->capsnaps) {
        int64_t cap = v->capsnaps ? 2 * v->capsnaps : 64;
        int32_t **sn = realloc(v->snaps, (size_t)cap * sizeof *sn);
        if (!sn) return NULL;
        v->snaps = sn;
        v->capsnaps = cap;
    }
    int32_t *c = malloc((size_t)v->p * sizeof *c);
    if (!c) return NULL;
    memcpy(c, vc_of(v, r), (size_t)v->p * sizeof *c);
    return v->snaps[v->nsnaps++] = c;
}

/* ---- inline lines: data and order ----------------------------------------
 * A slot's labels start undefined in every call, so a COLLECT reads only
 * what its peer published in the same call (anything else shows as
 * uninitialised data).  A round with COLLECTs is entered only once every
 * peer it collects from has published (the executor's acquire wait); the
 * reader's next round is ordered after the publication.  Reuse across calls
 * (parity, done lines) is PUBLISH's own rule (sched.h); what it rests on,
 * one publication and one collect per peer per call, check_inline checks. */
static tc_verify_status setup_inline(vstate *v)
{
    v->slot = calloc((size_t)v->p, sizeof *v->slot);
    v->published = calloc((size_t)v->p, sizeof *v->published);
    v->pub_vc = calloc((size_t)v->p, sizeof *v->pub_vc);
    if (!v->slot || !v->published || !v->pub_vc) return fail(v, "out of memory");
    for (int r = 0; r < v->p; r++) {
        const vrank *k = &v->rk[r];
        const int *m = tc_topo_node_members(v->t, v->t->node_of[r]);
        if (k->s.inline_count != v->rk[m[0]].s.inline_count)
            return fail(v, "rank %d: inline slots of %lld elements, rank %d's of %lld", r,
                        (long long)k->s.inline_count, m[0], (long long)v->rk[m[0]].s.inline_count);
        int64_t units = k->s.inline_count * k->unit[TC_BUF_SHM];
        if (!(v->slot[r] = malloc((size_t)(units ? units : 1) * sizeof(label_t)))) return fail(v, "out of memory");
        set_undef(v->slot[r], units);
    }
    return TC_VERIFY_OK;
}

static void release_inline(vstate *v)
{
    for (int r = 0; v->slot && r < v->p; r++) free(v->slot[r]);
    free(v->slot);
    free(v->published);
    free(v->pub_vc);
}

static tc_verify_status publish_op(vstate *v, int r, const tc_op *op)
{
    int64_t n;
    const label_t *a = labels_at(v, r, op->a, &n);
    for (int64_t i = 0; i < n; i++)
        if (a[i].elem < 0)
            return fail(v, "rank %d publishes uninitialised %s data (units %lld..)", r, bufname(op->a.buf),
                        (long long)(resolve(v, r, op->a).lo + i));
    memcpy(v->slot[r], a, (size_t)n * sizeof *a);
    v->published[r] = 1;
    if (v->vc && !(v->pub_vc[r] = snapshot(v, r))) return fail(v, "out of memory");
    return TC_VERIFY_OK;
}

static tc_verify_status collect_op(vstate *v, int r, const tc_op *op)
{
    int64_t n;
    tc_verify_status st = track(v, r, op->b, 1);
    if (st) return st;
    label_t *b = labels_at(v, r, op->b, &n);
    const label_t *a = v->slot[op->peer];
    for (int64_t i = 0; i < n; i++)
        if (a[i].elem < 0)
            return fail(v, "rank %d collects slot unit %lld that rank %d did not publish in this call", r,
                        (long long)i, op->peer);
    memmove(b, a, (size_t)n * sizeof *a);
    if (v->vc && v->pub_vc[op->peer])
        vc_join(v->pend + (size_t)r * (size_t)v->p, v->pub_vc[op->peer], v->p);
    return TC_VERIFY_OK;
}

/* The peer that round k of rank r collects from and that has not published
 * yet (-1: none). */
static int unpublished_peer(const vstate *v, const vrank *k, int round)
{
    if (!k->s.uses_inline) return -1;
    for (int i = tc_sched_round_begin(&k->s, round); i < tc_sched_round_end(&k->s, round); i++)
        if (k->s.ops[i].kind == TC_OP_COLLECT && !v->published[k->s.ops[i].peer]) return k->s.ops[i].peer;
    return -1;
}

static void complete_partner(vstate *v, int64_t pid, int *queue, int *qn)
{
    int pr = v->op_rank[pid];
    if (--v->rk[pr].pending == 0) queue[(*qn)++] = pr;
}

/* Enter rounds of rank r while they complete at once; queue partners whose
 * round completes because of us. */
static tc_verify_status run_rank(vstate *v, int r, int *queue, int *qn)
{
    vrank *k = &v->rk[r];
    while (k->cur < k->s.nrounds) {
        if (!k->entered) {
            if (unpublished_peer(v, k, k->cur) >= 0) return TC_VERIFY_OK;   /* blocked: retried */
            k->entered = 1;
            k->pending = 0;
            if (v->vc) {   /* what completed in earlier rounds happened before */
                vc_join(vc_of(v, r), v->pend + (size_t)r * (size_t)v->p, v->p);
                vc_of(v, r)[r]++;
            }
            for (int i = tc_sched_round_begin(&k->s, k->cur); i < tc_sched_round_end(&k->s, k->cur); i++) {
                const tc_op *op = &k->s.ops[i];
                int64_t id = v->base[r] + i, pid;
                if (op->kind == TC_OP_WAIT) {
                    if (!raised(v, v->partner[id])) k->pending++;
                    else if (v->vc && v->sig_vc[v->partner[id]])
                        vc_join(v->pend + (size_t)r * (size_t)v->p, v->sig_vc[v->partner[id]], v->p);
                    continue;
                }
                if (!is_comm(op->kind)) continue;
                pid = v->partner[id];
                if (!posted(v, pid)) { k->pending++; continue; }
                int pr = v->op_rank[pid];
                const tc_op *pop = &v->rk[pr].s.ops[pid - v->base[pr]];
                tc_verify_status st = op->kind == TC_OP_SEND
                    ? move(v, r, op->a, pr, pop->a, "sends")
                    : move(v, pr, pop->a, r, op->a, "sends");
                if (st) return st;
                if (v->vc) {   /* the receiver's next round comes after the send */
                    int snd = op->kind == TC_OP_SEND ? r : pr, rcv = op->kind == TC_OP_SEND ? pr : r;
                    vc_join(v->pend + (size_t)rcv * (size_t)v->p, vc_of(v, snd), v->p);
                    priv_landed(v, rcv, op->kind == TC_OP_SEND ? pop->a : op->a);
                }
                complete_partner(v, pid, queue, qn);
            }
            for (int i = tc_sched_round_begin(&k->s, k->cur); i < tc_sched_round_end(&k->s, k->cur); i++) {
                const tc_op *op = &k->s.ops[i];
                tc_verify_status st = TC_VERIFY_OK;
                if (op->kind == TC_OP_COPY && !is_self_copy(v, r, op))
                    st = move(v, r, op->a, r, op->b, "copies");
                else if (op->kind == TC_OP_REDUCE)
                    st = combine(v, r, op->a, op->b);
                else if (op->kind == TC_OP_RREAD)
                    st = rread(v, r, op);
                else if (op->kind == TC_OP_PUBLISH)
                    st = publish_op(v, r, op);
                else if (op->kind == TC_OP_COLLECT)
                    st = collect_op(v, r, op);
                if (st) return st;
            }
            /* signals go up after the round's local ops */
            int32_t *snap = NULL;
            for (int i = tc_sched_round_begin(&k->s, k->cur); i < tc_sched_round_end(&k->s, k->cur); i++) {
                if (k->s.ops[i].kind != TC_OP_SIGNAL) continue;
                int64_t id = v->base[r] + i, pid = v->partner[id];
                if (v->vc) {   /* one snapshot for the round: its clock does not move here */
                    if (!snap && !(snap = snapshot(v, r))) return fail(v, "out of memory");
                    v->sig_vc[id] = snap;
                }
                if (posted(v, pid)) {
                    if (v->vc) vc_join(v->pend + (size_t)v->op_rank[pid] * (size_t)v->p, v->sig_vc[id], v->p);
                    complete_partner(v, pid, queue, qn);
                }
            }
        }
        if (k->pending) return TC_VERIFY_OK;
        k->cur++;
        k->entered = 0;
    }
    return TC_VERIFY_OK;
}

static tc_verify_status simulate(vstate *v)
{
    int *queue = malloc((size_t)(v->p + 1) * sizeof *queue);
    int *queue2 = malloc((size_t)(v->p + 1) * sizeof *queue2);
    if (!queue || !queue2) { free(queue); free(queue2); return fail(v, "out of memory"); }
    int qn = 0, moved = 1;
    tc_verify_status st = TC_VERIFY_OK;
    for (int r = 0; r < v->p && !st; r++) st = run_rank(v, r, queue, &qn);
    while (!st && moved) {
        while (!st && qn) {
            int n2 = 0;
            for (int i = 0; i < qn && !st; i++) {
                int r = queue[i];
                if (v->rk[r].pending == 0) st = run_rank(v, r, queue2, &n2);
            }
            int *tq = queue; queue = queue2; queue2 = tq;
            qn = n2;
        }
        moved = 0;   /* rounds waiting for a publication: once more */
        for (int r = 0; r < v->p && !st && v->slot; r++) {
            vrank *k = &v->rk[r];
            if (k->entered || k->cur >= k->s.nrounds) continue;
            int was = k->cur;
            st = run_rank(v, r, queue, &qn);
            moved |= k->entered || k->cur != was;
        }
    }
    free(queue);
    free(queue2);
    if (st) return st;
    for (int r = 0; r < v->p; r++)
        if (v->rk[r].cur < v->rk[r].s.nrounds) {
            const vrank *k = &v->rk[r];
            int q = k->entered ? -1 : unpublished_peer(v, k, k->cur);
            if (q >= 0)
                return fail(v, "deadlock: rank %d round %d collects from rank %d, which never publishes "
                            "before it", r, k->cur, q);
            for (int i = tc_sched_round_begin(&k->s, k->cur); i < tc_sched_round_end(&k->s, k->cur); i++) {
                const tc_op *op = &k->s.ops[i];
                if (op->kind == TC_OP_WAIT && !raised(v, v->partner[v->base[r] + i]))
                    return fail(v, "deadlock: rank %d round %d waits on a signal from rank %d",
                                r, k->cur, op->peer);
                if ((op->kind == TC_OP_SEND || op->kind == TC_OP_RECV) &&
                    !posted(v, v->partner[v->base[r] + i]))
                    return fail(v, "deadlock: rank %d round %d waits on its %s rank %d",
                                r, k->cur, op->kind == TC_OP_SEND ? "send to" : "receive from",
                                op->peer);
            }
            return fail(v, "deadlock: rank %d stuck in round %d", r, k->cur);
        }
    for (int r = 0; r < v->p && v->pw; r++)
        if ((st = priv_final(v, r)) != TC_VERIFY_OK) return st;
    return TC_VERIFY_OK;
}

/* ---- result ---------------------------------------------------------------- */

/* Expected final label of unit i of rank r's receive buffer (the
 * descriptor's result): element id; *cnt the number of contributions. */
static int64_t expected(const vstate *v, int r, int64_t i, int64_t *cnt)
{
    int64_t B = v->proto->rcount * v->rk[r].unit[TC_BUF_RECV];
    int lo, hi;
    tc_coll_contributors(v->d, r, v->p, &lo, &hi);
    *cnt = v->d->reduction ? hi - lo : 1;
    if (v->d->result.ids == TC_IDS_TRANSPOSED && B > 0)   /* block j of r: block r of j */
        return (i / B) * v->p * B + (int64_t)r * B + i % B;
    return v->d->result.ids == TC_IDS_RANK_BLOCK ? (int64_t)r * B + i : i;
}

/* Units of rank r's result (0: it has none). */
static int64_t result_units(const vstate *v, int r)
{
    const tc_coll_result *res = &v->d->result;
    if (!tc_coll_at(res->at, r, v->proto->root)) return 0;
    if (v->d->prefix == TC_PREFIX_EXCLUSIVE && r == 0) return 0;   /* exscan: rank 0 has none */
    return v->proto->rcount * v->rk[r].unit[TC_BUF_RECV] * (res->blocks_p ? v->p : 1);
}

/* Per-peer collectives: rank j's part from rank r holds r's part for j. */
/* One block per rank between the root and every rank: gatherv, the root's
 * block j (at rdispls[j]) holds rank j's; scatterv, rank j's RECV[0, ...]
 * holds the root's block j. */
static tc_verify_status check_vroot_result(vstate *v)
{
    int root = v->proto->root, g = v->d->vroot == TC_VROOT_GATHER;
    for (int j = 0; j < v->p; j++) {
        int at = g ? root : j;
        int64_t n = vroot_units(v, j), got, u = v->rk[at].unit[TC_BUF_RECV];
        if (n <= 0) continue;
        tc_region reg = tc_reg(TC_BUF_RECV, g ? v->vall[root].rdispls[j] : 0, u ? n / u : 0);
        const label_t *l = labels_at(v, at, reg, &got);
        for (int64_t e = 0; e < n; e++)
            if (l[e].elem != (int64_t)j * v->vstride + e)
                return fail(v, "rank %d: unit %lld of the block %s rank %d holds element %lld, expected %lld",
                            at, (long long)e, g ? "from" : "for", j, (long long)l[e].elem,
                            (long long)((int64_t)j * v->vstride + e));
    }
    return TC_VERIFY_OK;
}

static tc_verify_status check_vresult(vstate *v)
{
    if (v->d->vroot) return check_vroot_result(v);
    for (int j = 0; j < v->p; j++) {
        const tc_vcounts *c = &v->vall[j];
        int u = v->rk[j].unit[TC_BUF_RECV];
        for (int r = 0; r < v->p; r++) {
            int64_t n = c->rcounts[r] * u, got;
            if (n <= 0) continue;
            const label_t *l = labels_at(v, j, tc_reg(TC_BUF_RECV, c->rdispls[r], c->rcounts[r]), &got);
            for (int64_t e = 0; e < n; e++) {
                int64_t want = v->d->vblock ? (int64_t)r * v->vstride + e
                                            : ((int64_t)r * v->p + j) * v->vstride + e;
                if (l[e].elem != want)
                    return fail(v, "rank %d: unit %lld of the part from rank %d holds element %lld, "
                                "expected %lld", j, (long long)e, r, (long long)l[e].elem, (long long)want);
            }
        }
    }
    return TC_VERIFY_OK;
}

/* The vector split among the ranks: rank r's RECV[0, rcounts[r]) holds
 * elements rdispls[r].. combined from every rank. */
static tc_verify_status check_vsplit_result(vstate *v)
{
    for (int r = 0; r < v->p; r++) {
        const tc_vcounts *c = &v->vall[r];
        int u = v->rk[r].unit[TC_BUF_RECV];
        int64_t n = c->rcounts[r] * u, got, first = c->rdispls[r] * u;
        if (n <= 0) continue;
        const label_t *l = labels_at(v, r, tc_reg(TC_BUF_RECV, 0, c->rcounts[r]), &got);
        for (int64_t i = 0; i < n; i++) {
            if (l[i].elem < 0) return fail(v, "rank %d: result unit %lld never written", r, (long long)i);
            if (l[i].elem != first + i)
                return fail(v, "rank %d: result unit %lld holds element %lld, expected %lld", r,
                            (long long)i, (long long)l[i].elem, (long long)(first + i));
            if (l[i].cnt != v->p || l[i].key != v->key_sum)
                return fail(v, "rank %d: result unit %lld combines %lld contributions, expected %d",
                            r, (long long)i, (long long)l[i].cnt, v->p);
        }
    }
    return TC_VERIFY_OK;
}

/* The key sum of the contributions a reduction's result unit of rank r
 * combines (every rank's for the plain reductions, a prefix for scans). */
static uint64_t expected_key(const vstate *v, int r)
{
    int lo, hi;
    uint64_t k = 0;
    if (!v->d->prefix) return v->key_sum;
    tc_coll_contributors(v->d, r, v->p, &lo, &hi);
    for (int q = lo; q < hi; q++) k += rank_key(q);
    return k;
}

static tc_verify_status check_result(vstate *v)
{
    if (v->vall && v->d->vsplit) return check_vsplit_result(v);
    if (v->vall) return check_vresult(v);
    for (int r = 0; r < v->p; r++) {
        int64_t n = result_units(v, r);
        uint64_t key = v->d->reduction ? expected_key(v, r) : 0;
        tc_region all = tc_reg(TC_BUF_RECV, 0, n / (v->rk[r].unit[TC_BUF_RECV] ? v->rk[r].unit[TC_BUF_RECV] : 1));
        int64_t got;
        const label_t *l = n ? labels_at(v, r, all, &got) : NULL;
        for (int64_t i = 0; i < n; i++) {
            int64_t cnt, e = expected(v, r, i, &cnt);
            if (l[i].elem < 0)
                return fail(v, "rank %d: result unit %lld never written", r, (long long)i);
            if (l[i].elem != e)
                return fail(v, "rank %d: result unit %lld holds element %lld, expected %lld", r,
                            (long long)i, (long long)l[i].elem, (long long)e);
            if (l[i].cnt != cnt || (v->d->reduction && l[i].key != key))
                return fail(v, "rank %d: result unit %lld combines %lld contributions%s, expected %lld",
                            r, (long long)i, (long long)l[i].cnt,
                            l[i].cnt == cnt ? " (a rank twice, another missing)" : "", (long long)cnt);
        }
    }
    return TC_VERIFY_OK;
}

/* A barrier (desc synchronizes): every rank, at the end of its schedule,
 * must know (its vector clock, joined with what its last round received)
 * that every other rank entered its first round: a chain of messages and
 * flag waits leads from each rank's entry to each rank's exit. */
static tc_verify_status check_barrier(vstate *v)
{
    for (int r = 0; r < v->p; r++) {
        int32_t *mine = vc_of(v, r);
        vc_join(mine, v->pend + (size_t)r * (size_t)v->p, v->p);
        for (int o = 0; o < v->p; o++)
            if (o != r && mine[o] < 1)
                return fail(v, "not a barrier: rank %d may leave before rank %d has entered "
                            "(no chain of messages or flags from %d's entry to %d's exit)", r, o, o, r);
    }
    return TC_VERIFY_OK;
}

static void release(vstate *v)
{
    release_hb(v);
    release_inline(v);
    if (v->rk)
        for (int r = 0; r < v->p; r++) {
            tc_sched_free(&v->rk[r].s);
            for (int b = 0; b < TC_NBUF; b++)
                if (b != TC_BUF_SHM) free(v->rk[r].lab[b]);
        }
    if (v->node_shm)
        for (int n = 0; n < v->t->nnodes; n++) free(v->node_shm[n]);
    free(v->node_shm);
    free(v->rk);
    free(v->base);
    free(v->partner);
    free(v->op_rank);
}

static tc_verify_status verify(const tc_algo *al, const tc_topo *t, const tc_args *proto,
                               const tc_vcounts *vall, int u_send, int u_recv, tc_verify_report *rep);

tc_verify_status tc_verify(const tc_algo *al, const tc_topo *t, const tc_args *proto,
                           int u_send, int u_recv, tc_verify_report *rep)
{
    return verify(al, t, proto, NULL, u_send, u_recv, rep);
}

/* Ids per part: more than the units of any part of any rank. */
static int64_t vstride_of(const tc_vcounts *vall, int p, int u_send, int u_recv)
{
    int64_t most = 0;
    for (int r = 0; r < p; r++)
        for (int j = 0; j < p; j++) {
            if (vall[r].scounts && vall[r].scounts[j] * u_send > most) most = vall[r].scounts[j] * u_send;
            if (vall[r].rcounts && vall[r].rcounts[j] * u_recv > most) most = vall[r].rcounts[j] * u_recv;
        }
    return most + 1;
}

tc_verify_status tc_verify_vcounts(const tc_algo *al, const tc_topo *t, const tc_args *proto,
                                   const tc_vcounts *vall, int u_send, int u_recv,
                                   tc_verify_report *rep)
{
    return verify(al, t, proto, vall, u_send, u_recv, rep);
}

/* Everything before the symbolic execution: the schedules of every rank,
 * their shape, hazards and matching, and the labels of the input.  On
 * return v holds what release frees, whatever the status. */
static tc_verify_status verify_open(vstate *v, const tc_algo *al, const tc_topo *t, const tc_args *proto,
                                    const tc_vcounts *vall, int u_send, int u_recv, tc_verify_report *rep)
{
    memset(v, 0, sizeof *v);
    v->vall = vall;
    v->u_send = u_send;
    v->u_recv = u_recv;
    v->proto = proto;
    v->t = t;
    v->p = t->size;
    v->rep = rep;
    v->d = tc_coll_desc_of(proto->coll);
    if (!v->d) return fail(v, "unknown collective");
    if (proto->size != t->size) return fail(v, "args size %d != topology size %d", proto->size, t->size);
    if (!al->generate) { snprintf(rep->msg, sizeof rep->msg, "no schedule (native)"); return TC_VERIFY_DECLINED; }
    if (v->d->vcounts != (vall != NULL))
        return fail(v, "%s", vall ? "per-peer counts for a collective without them"
                                  : "a per-peer collective needs tc_verify_vcounts");
    if (vall) v->vstride = vstride_of(vall, t->size, u_send, u_recv);
    if (!proto->in_place && v->d->same_signature && proto->scount * u_send != proto->rcount * u_recv)
        return fail(v, "send and receive signatures differ");
    if (v->d->reduction && u_send != u_recv)
        return fail(v, "a reduction combines elements of one type (%d and %d units)", u_send, u_recv);
    for (int r = 0; r < v->p; r++) v->key_sum += rank_key(r);
    const char *why = "";
    tc_args a0 = *proto;
    a0.rank = 0;
    a0.node_shm = 1;   /* node-shared memory is modelled (happens-before) */
    a0.cma = 1;        /* and so are cross-memory reads */
    a0.v = vall ? &vall[0] : NULL;   /* domains may look at the counts (equal blocks) */
    if (!tc_algo_accepts(al, &a0, t, &why)) {
        snprintf(rep->msg, sizeof rep->msg, "declined: %s", why);
        return TC_VERIFY_DECLINED;
    }
    v->rk = calloc((size_t)v->p, sizeof *v->rk);
    v->base = malloc((size_t)(v->p + 1) * sizeof *v->base);
    tc_verify_status st = (!v->rk || !v->base) ? fail(v, "out of memory") : TC_VERIFY_OK;
    for (int r = 0; r < v->p && !st; r++) st = setup_rank(v, al, r, u_send, u_recv);
    if (!st) st = setup_shm(v);
    if (!st) {
        v->base[0] = 0;
        for (int r = 0; r < v->p; r++) {
            v->base[r + 1] = v->base[r] + v->rk[r].s.nops;
            if (v->rk[r].s.nrounds > rep->max_rounds) rep->max_rounds = v->rk[r].s.nrounds;
        }
        v->partner = malloc((size_t)(v->base[v->p] + 1) * sizeof *v->partner);
        v->op_rank = malloc((size_t)(v->base[v->p] + 1) * sizeof *v->op_rank);
        if (!v->partner || !v->op_rank) st = fail(v, "out of memory");
    }
    for (int r = 0; r < v->p && !st; r++) st = check_shape(v, r);
    if (!st) st = match(v);
    if (!st) st = check_subcoll(v);
    if (!st) st = setup_hb(v);
    for (int r = 0; r < v->p && !st && !v->slot; r++)
        if (v->rk[r].s.uses_inline) st = setup_inline(v);
    return st;
}

static tc_verify_status verify(const tc_algo *al, const tc_topo *t, const tc_args *proto,
                               const tc_vcounts *vall, int u_send, int u_recv, tc_verify_report *rep)
{
    memset(rep, 0, sizeof *rep);
    vstate v;
    tc_verify_status st = verify_open(&v, al, t, proto, vall, u_send, u_recv, rep);
    if (!st) st = simulate(&v);
    if (!st && v.d->synchronizes) st = check_barrier(&v);
    if (!st) st = check_result(&v);
    release(&v);
    return st;
}

/* ---- one operation among several (verify_op.h) ------------------------------ */

struct tc_vop {
    vstate v;
    tc_args proto;         /* v.proto points here */
    int64_t elem_base;
    int tmp_borrowed;      /* TMP's labels are another operation's (tc_vop_share_tmp) */
};

/* The input's labels of rank r, offset by the operation's base. */
static void input_labels(tc_vop *o, int r)
{
    vrank *k = &o->v.rk[r];
    initial_labels(&o->v, r);
    for (int b = 0; b < TC_NBUF; b++) {
        if (!k->lab[b] || b == TC_BUF_SHM) continue;
        for (int64_t u = 0; u < k->units[b]; u++)
            if (k->lab[b][u].elem >= 0) k->lab[b][u].elem += o->elem_base;
    }
}

tc_verify_status tc_vop_open(const tc_algo *al, const tc_topo *t, const tc_args *proto,
                             const tc_vcounts *vall, int u_send, int u_recv, int64_t elem_base,
                             tc_verify_report *rep, tc_vop **out)
{
    tc_vop *o = calloc(1, sizeof *o);
    *out = o;
    if (!o) {
        snprintf(rep->msg, sizeof rep->msg, "out of memory");
        return TC_VERIFY_FAIL;
    }
    o->proto = *proto;
    o->elem_base = elem_base;
    tc_verify_status st = verify_open(&o->v, al, t, &o->proto, vall, u_send, u_recv, rep);
    if (!st) tc_vop_reset(o);
    return st;
}

/* No access to node-shared memory recorded yet (another run of the same
 * schedules: the clocks start again at 0). */
static void reset_shm_records(vstate *v)
{
    for (int n = 0; v->shm_w && n < v->t->nnodes; n++) {
        int64_t units = v->rk[tc_topo_node_members(v->t, n)[0]].units[TC_BUF_SHM];
        int size = tc_topo_node_size(v->t, n);
        for (int64_t u = 0; u < units; u++) {
            int32_t *w = v->shm_w[n] + SHM_W * u;
            w[0] = w[1] = -1;
            w[2] = 0;
            if (v->shm_r[n][u]) memset(v->shm_r[n][u], 0, (size_t)size * sizeof(int32_t));
        }
    }
}

void tc_vop_close(tc_vop *o)
{
    if (!o) return;
    for (int r = 0; o->tmp_borrowed && r < o->v.p; r++) o->v.rk[r].lab[TC_BUF_TMP] = NULL;
    release(&o->v);
    free(o);
}

void tc_vop_reset(tc_vop *o)
{
    vstate *v = &o->v;
    for (int r = 0; r < v->p; r++) {
        vrank *k = &v->rk[r];
        for (int b = 0; b < TC_NBUF; b++)
            if (k->lab[b] && b != TC_BUF_SHM) set_undef(k->lab[b], k->units[b]);
        input_labels(o, r);
    }
    size_t pp = (size_t)v->p * (size_t)v->p;
    if (v->vc) memset(v->vc, 0, pp * sizeof *v->vc);
    if (v->pend) memset(v->pend, 0, pp * sizeof *v->pend);
    reset_shm_records(v);
    if (v->sig_vc) memset(v->sig_vc, 0, (size_t)(v->base[v->p] + 1) * sizeof *v->sig_vc);
}

const tc_sched *tc_vop_sched(const tc_vop *o, int r) { return &o->v.rk[r].s; }

int64_t tc_vop_units(const tc_vop *o, int r, tc_region g) { return units_of(&o->v, r, g); }

int tc_vop_partner(const tc_vop *o, int r, int i)
{
    int64_t pid = o->v.partner[o->v.base[r] + i];
    return (int)(pid - o->v.base[o->v.op_rank[pid]]);
}

void tc_vop_enter(tc_vop *o, int r)
{
    vstate *v = &o->v;
    if (!v->vc) return;
    vc_join(vc_of(v, r), v->pend + (size_t)r * (size_t)v->p, v->p);
    vc_of(v, r)[r]++;
}

tc_verify_status tc_vop_message(tc_vop *so, int sr, int si, tc_vop *ro, int rr, int ri)
{
    const tc_op *sop = &so->v.rk[sr].s.ops[si], *rop = &ro->v.rk[rr].s.ops[ri];
    int64_t ns, nd;
    const label_t *a = labels_at(&so->v, sr, sop->a, &ns);
    label_t *b = labels_at(&ro->v, rr, rop->a, &nd);
    if (ns != nd)
        return fail(&ro->v, "message %d -> %d: sent %lld units, receive expects %lld", sr, rr,
                    (long long)ns, (long long)nd);
    for (int64_t i = 0; i < ns; i++)
        if (a[i].elem < 0)
            return fail(&so->v, "rank %d sends uninitialised %s data (units %lld..)", sr, bufname(sop->a.buf),
                        (long long)(sop->a.off * so->v.rk[sr].unit[(int)sop->a.buf]));
    memmove(b, a, (size_t)ns * sizeof *a);
    if (so == ro && so->v.vc) {   /* the receiver's next round comes after the send (a signal: its raising) */
        const int32_t *at = sop->kind == TC_OP_SIGNAL && so->v.sig_vc[so->v.base[sr] + si]
                                ? so->v.sig_vc[so->v.base[sr] + si] : vc_of(&so->v, sr);
        vc_join(so->v.pend + (size_t)rr * (size_t)so->v.p, at, so->v.p);
    }
    return TC_VERIFY_OK;
}

tc_verify_status tc_vop_signal(tc_vop *o, int r, int i)
{
    vstate *v = &o->v;
    if (!v->vc) return TC_VERIFY_OK;
    int32_t *snap = snapshot(v, r);
    if (!snap) return fail(v, "out of memory");
    v->sig_vc[v->base[r] + i] = snap;
    return TC_VERIFY_OK;
}

tc_verify_status tc_vop_local(tc_vop *o, int r, int i)
{
    const tc_op *op = &o->v.rk[r].s.ops[i];
    if (op->kind == TC_OP_COPY && !is_self_copy(&o->v, r, op)) return move(&o->v, r, op->a, r, op->b, "copies");
    if (op->kind == TC_OP_REDUCE) return combine(&o->v, r, op->a, op->b);
    return TC_VERIFY_OK;
}

/* The labels of every rank's receive buffer back to the operation's own
 * ids; a label of another operation's data fails. */
static tc_verify_status strip_base(tc_vop *o)
{
    vstate *v = &o->v;
    for (int r = 0; r < v->p; r++) {
        vrank *k = &v->rk[r];
        label_t *l = k->lab[TC_BUF_RECV];
        for (int64_t u = 0; l && u < k->units[TC_BUF_RECV]; u++) {
            if (l[u].elem < 0) continue;
            if (l[u].elem < o->elem_base || l[u].elem >= o->elem_base + TC_VOP_SPAN)
                return fail(v, "rank %d: rbuf unit %lld holds element %lld of operation %lld (another "
                            "operation's data)", r, (long long)u,
                            (long long)(l[u].elem % TC_VOP_SPAN), (long long)(l[u].elem / TC_VOP_SPAN));
            l[u].elem -= o->elem_base;
        }
    }
    return TC_VERIFY_OK;
}

tc_verify_status tc_vop_finish(tc_vop *o)
{
    tc_verify_status st = strip_base(o);
    if (!st && o->v.d->synchronizes) st = check_barrier(&o->v);
    if (!st) st = check_result(&o->v);
    return st;
}

tc_verify_status tc_vop_share_tmp(tc_vop *const *ops, int k)
{
    vstate *v0 = &ops[0]->v;
    for (int r = 0; r < v0->p; r++) {
        int64_t most = 0;
        for (int j = 0; j < k; j++)
            if (ops[j]->v.rk[r].units[TC_BUF_TMP] > most) most = ops[j]->v.rk[r].units[TC_BUF_TMP];
        label_t *l = realloc(v0->rk[r].lab[TC_BUF_TMP], (size_t)(most ? most : 1) * sizeof *l);
        if (!l) return fail(v0, "out of memory");
        set_undef(l, most);
        v0->rk[r].lab[TC_BUF_TMP] = l;
        for (int j = 0; j < k; j++) {   /* a reset marks the whole of it unwritten */
            vrank *kr = &ops[j]->v.rk[r];
            if (j && !ops[j]->tmp_borrowed) free(kr->lab[TC_BUF_TMP]);
            kr->lab[TC_BUF_TMP] = l;
            kr->units[TC_BUF_TMP] = most;
        }
    }
    for (int j = 1; j < k; j++) ops[j]->tmp_borrowed = 1;
    return TC_VERIFY_OK;
}
