/*
 * The verifier of several nonblocking operations at once (verify.h,
 * tc_verify_nonblocking).  Each operation's schedules are generated and
 * checked on their own (verify_op.h); then all of them run together,
 * symbolically, as the nonblocking executor runs them:
 *
 *   - a rank follows a program of starts and waits: it starts operations
 *     0, 1, ..., K-1 in that order (every rank the same order) and waits
 *     for each once, after its start, in an order of its own;
 *   - starting an operation enters its first round; entering a round posts
 *     its sends and receives, then runs its local ops; a round completes
 *     when its messages have, and the operation enters its next round at
 *     once;
 *   - a rank waiting for an operation advances any of its outstanding
 *     operations, one completed round at a time, in the interleaving's
 *     order, until the awaited one is done;
 *   - messages match per channel in posting order: a channel is (operation,
 *     source, destination), its own tag; with shared_tag (a model of a
 *     broken executor) it is (source, destination);
 *   - a send completes only once its receive is posted (rendezvous);
 *   - with areas (node-shared memory of each operation's own), a round's
 *     signals are raised after its local ops and complete at once, and
 *     its waits are posted with its messages and complete the round once
 *     matched (per operation, source and destination, in order, on
 *     channels apart from the messages'); the signal orders the waiter's
 *     later rounds after the signaller's earlier ops, as a message does.
 *
 * Interleavings: round-robin (every rank in turn takes one step, its
 * operations advanced in rotation), seeded random ones (a random rank with
 * something to do takes a step; random programs and choices), and two
 * adversarial ones (every rank waits in its own permutation, odd ranks
 * starting each operation only when they come to wait for it; a waiting
 * rank advances the others before the awaited one; ranks run as far as
 * they can, in rank order and in reverse).  Each must finish every
 * program (else: deadlock, with the first rank that is stuck and on what),
 * and every operation's result must be proven (tc_vop_finish), with no
 * data of another operation in its receive buffers.
 */
#include "verify/verify.h"
#include "verify/verify_op.h"
#include "coll/coll.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NB_MAXOPS 64   /* operations in one set, at most */

enum { ORDER_ROUND_ROBIN, ORDER_RANDOM, ORDER_ADVERSARIAL, ORDER_ADVERSARIAL_DOWN };

static const char *order_name(int order)
{
    return order == ORDER_ROUND_ROBIN ? "round-robin" : order == ORDER_RANDOM ? "random"
         : order == ORDER_ADVERSARIAL ? "adversarial" : "adversarial (ranks downwards)";
}

/* One operation at one rank: round cur (-1: not started), entered, and
 * how many of the round's messages are not complete. */
typedef struct nbro { int cur, entered, pending; } nbro;

/* A posted message op waiting for its match; next: the channel's next. */
typedef struct post { int op, rank, idx, next; } post;

/* A channel's posted sends and receives not matched yet (pool indices,
 * -1: none). */
typedef struct chan { int sh, st, rh, rt; } chan;

typedef struct nbstate {
    const tc_verify_nbop *ops;
    int k, p, shared, areas;
    int nmsg;                   /* message channels; the signals' follow them */
    tc_vop **vo;                /* [k] */
    nbro *ro;                   /* [k*p] */
    unsigned char **matched;    /* [k*p]: per op of the schedule, matched yet */
    chan *ch;
    int nch;
    post *pool;
    int npool, cappool, free_head;
    int *prog, *pc;             /* [p*2k]: action a < k starts a, k + w waits for w; [p] */
    int *pref, *rot;            /* [p*k] advancing order (adversarial); [p] rotation */
    int order;
    uint64_t rng;
    tc_verify_report *rep;
} nbstate;

static unsigned nb_rand(nbstate *s)
{
    uint64_t x = s->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    s->rng = x;
    return (unsigned)(x >> 11);
}

static nbro *ro_of(nbstate *s, int k, int r) { return &s->ro[(size_t)k * (size_t)s->p + (size_t)r]; }
static const tc_sched *sched_of(nbstate *s, int k, int r) { return tc_vop_sched(s->vo[k], r); }

static int op_done(nbstate *s, int k, int r)
{
    const nbro *o = ro_of(s, k, r);
    return o->cur >= 0 && o->cur >= sched_of(s, k, r)->nrounds;
}

static const char *op_label(const nbstate *s, int k, char *buf, size_t len)
{
    snprintf(buf, len, "op %d (%s/%s)", k, tc_coll_name(s->ops[k].al->coll), s->ops[k].al->name);
    return buf;
}

/* rep->msg becomes prefix followed by what it said (cut to fit). */
static void prefix_msg(tc_verify_report *rep, const char *prefix)
{
    char old[sizeof rep->msg];
    size_t cap = sizeof rep->msg - 1, n = strlen(prefix), m;
    memcpy(old, rep->msg, sizeof old);
    old[cap] = 0;
    m = strlen(old);
    if (n > cap) n = cap;
    if (m > cap - n) m = cap - n;
    memmove(rep->msg, prefix, n);
    memcpy(rep->msg + n, old, m);
    rep->msg[n + m] = 0;
}

/* Prefix rep->msg with the interleaving and the operation. */
static tc_verify_status nb_fail(nbstate *s, int k, tc_verify_status st)
{
    char lab[160], pre[256];
    snprintf(pre, sizeof pre, "%s interleaving, %s: ", order_name(s->order), op_label(s, k, lab, sizeof lab));
    prefix_msg(s->rep, pre);
    return st;
}

static int is_sync(int kind) { return kind == TC_OP_SIGNAL || kind == TC_OP_WAIT; }

static int chan_of(const nbstate *s, int k, int src, int dst, int sync)
{
    int c = src * s->p + dst;
    c = s->shared ? c : k * s->p * s->p + c;
    return sync ? s->nmsg + k * s->p * s->p + src * s->p + dst : c;
}

static int pool_get(nbstate *s)
{
    if (s->free_head >= 0) {
        int n = s->free_head;
        s->free_head = s->pool[n].next;
        return n;
    }
    if (s->npool == s->cappool) {
        int cap = s->cappool ? 2 * s->cappool : 256;
        post *np = realloc(s->pool, (size_t)cap * sizeof *np);
        if (!np) return -1;
        s->pool = np;
        s->cappool = cap;
    }
    return s->npool++;
}

/* The message from (ks, rs, is) to (kr, rr, ir) completes at both ends. */
static tc_verify_status deliver(nbstate *s, int ks, int rs, int is, int kr, int rr, int ir)
{
    if (!s->shared && (ks != kr || tc_vop_partner(s->vo[ks], rs, is) != ir)) {
        snprintf(s->rep->msg, sizeof s->rep->msg, "rank %d op %d matched rank %d op %d, not its partner",
                 rs, is, rr, ir);
        return nb_fail(s, ks, TC_VERIFY_FAIL);
    }
    tc_verify_status st = tc_vop_message(s->vo[ks], rs, is, s->vo[kr], rr, ir);
    if (st) {
        if (ks != kr) {   /* name both operations */
            char lab[160], pre[256];
            snprintf(pre, sizeof pre, "a message of %s matched a receive of op %d: ", op_label(s, ks, lab, sizeof lab),
                     kr);
            prefix_msg(s->rep, pre);
        }
        return nb_fail(s, kr, st);
    }
    s->matched[(size_t)ks * s->p + rs][is] = 1;
    s->matched[(size_t)kr * s->p + rr][ir] = 1;
    if (sched_of(s, ks, rs)->ops[is].kind == TC_OP_SEND) ro_of(s, ks, rs)->pending--;   /* a signal never waits */
    ro_of(s, kr, rr)->pending--;
    return TC_VERIFY_OK;
}

/* Post op i (a SEND or RECV, a SIGNAL or WAIT) of operation k at rank r:
 * match the channel's oldest posted counterpart, or wait in the channel. */
static tc_verify_status post_op(nbstate *s, int k, int r, int i)
{
    const tc_op *op = &sched_of(s, k, r)->ops[i];
    int send = op->kind == TC_OP_SEND || op->kind == TC_OP_SIGNAL;
    chan *c = &s->ch[chan_of(s, k, send ? r : op->peer, send ? op->peer : r, is_sync(op->kind))];
    int *oh = send ? &c->rh : &c->sh, *ot = send ? &c->rt : &c->st;
    if (*oh >= 0) {
        int n = *oh;
        post m = s->pool[n];
        *oh = m.next;
        if (*oh < 0) *ot = -1;
        s->pool[n].next = s->free_head;
        s->free_head = n;
        return send ? deliver(s, k, r, i, m.op, m.rank, m.idx) : deliver(s, m.op, m.rank, m.idx, k, r, i);
    }
    int n = pool_get(s);
    if (n < 0) {
        snprintf(s->rep->msg, sizeof s->rep->msg, "out of memory");
        return TC_VERIFY_FAIL;
    }
    s->pool[n] = (post){ k, r, i, -1 };
    int *mh = send ? &c->sh : &c->rh, *mt = send ? &c->st : &c->rt;
    if (*mt >= 0) s->pool[*mt].next = n;
    else *mh = n;
    *mt = n;
    return TC_VERIFY_OK;
}

/* Operation k at rank r enters its round cur: post the messages and the
 * waits, run the local ops, raise the signals. */
static tc_verify_status enter(nbstate *s, int k, int r)
{
    nbro *o = ro_of(s, k, r);
    const tc_sched *sc = sched_of(s, k, r);
    int b = tc_sched_round_begin(sc, o->cur), e = tc_sched_round_end(sc, o->cur);
    o->entered = 1;
    o->pending = 0;
    tc_vop_enter(s->vo[k], r);
    for (int i = b; i < e; i++) {
        int kd = sc->ops[i].kind;
        o->pending += kd == TC_OP_SEND || kd == TC_OP_RECV || kd == TC_OP_WAIT;
    }
    for (int i = b; i < e; i++) {
        int kd = sc->ops[i].kind;
        tc_verify_status st =
            kd == TC_OP_SEND || kd == TC_OP_RECV || kd == TC_OP_WAIT ? post_op(s, k, r, i) : TC_VERIFY_OK;
        if (st) return st;
    }
    for (int i = b; i < e; i++) {
        tc_verify_status st = tc_vop_local(s->vo[k], r, i);
        if (st) return nb_fail(s, k, st);
    }
    for (int i = b; i < e; i++) {
        if (sc->ops[i].kind != TC_OP_SIGNAL) continue;
        tc_verify_status st = tc_vop_signal(s->vo[k], r, i);
        if (st) return nb_fail(s, k, st);
        if ((st = post_op(s, k, r, i)) != TC_VERIFY_OK) return st;
    }
    return TC_VERIFY_OK;
}

static int ready(nbstate *s, int k, int r)
{
    const nbro *o = ro_of(s, k, r);
    return o->cur >= 0 && o->entered && o->pending == 0 && o->cur < sched_of(s, k, r)->nrounds;
}

/* The completed round of operation k at rank r: on to the next. */
static tc_verify_status advance(nbstate *s, int k, int r)
{
    nbro *o = ro_of(s, k, r);
    o->cur++;
    o->entered = 0;
    return o->cur < sched_of(s, k, r)->nrounds ? enter(s, k, r) : TC_VERIFY_OK;
}

/* Which ready operation rank r, waiting for w, advances (-1: none). */
static int choose(nbstate *s, int r, int w)
{
    int k = s->k;
    if (s->order == ORDER_RANDOM) {
        int n = 0, pick = -1;
        for (int j = 0; j < k; j++)
            if (ready(s, j, r) && nb_rand(s) % (unsigned)++n == 0) pick = j;   /* reservoir */
        return pick;
    }
    if (s->order == ORDER_ROUND_ROBIN) {
        for (int t = 0; t < k; t++) {
            int j = (s->rot[r] + t) % k;
            if (ready(s, j, r)) {
                s->rot[r] = (j + 1) % k;
                return j;
            }
        }
        return -1;
    }
    for (int t = 0; t < k; t++) {   /* adversarial: the others first, then w */
        int j = s->pref[(size_t)r * k + t];
        if (j != w && ready(s, j, r)) return j;
    }
    return ready(s, w, r) ? w : -1;
}

/* One step of rank r; *moved 0 when it can do nothing now. */
static tc_verify_status step(nbstate *s, int r, int *moved)
{
    int k = s->k;
    *moved = 0;
    if (s->pc[r] >= 2 * k) return TC_VERIFY_OK;
    int a = s->prog[(size_t)r * 2 * k + s->pc[r]];
    if (a < k) {   /* start */
        nbro *o = ro_of(s, a, r);
        *moved = 1;
        s->pc[r]++;
        o->cur = 0;
        o->entered = 0;
        return sched_of(s, a, r)->nrounds > 0 ? enter(s, a, r) : TC_VERIFY_OK;
    }
    if (op_done(s, a - k, r)) {
        *moved = 1;
        s->pc[r]++;
        return TC_VERIFY_OK;
    }
    int j = choose(s, r, a - k);
    if (j < 0) return TC_VERIFY_OK;
    *moved = 1;
    return advance(s, j, r);
}

/* Rank r's program and advancing order for the interleaving. */
static void make_program(nbstate *s, int r)
{
    int k = s->k, *prog = s->prog + (size_t)r * 2 * k, *pref = s->pref + (size_t)r * k;
    int n = 0;
    if (s->order == ORDER_ROUND_ROBIN) {
        for (int j = 0; j < k; j++) prog[n++] = j;
        for (int j = 0; j < k; j++) prog[n++] = k + j;
        return;
    }
    if (s->order == ORDER_RANDOM) {
        int started = 0, open = 0, list[NB_MAXOPS];
        while (n < 2 * k) {
            if (started < k && (open == 0 || nb_rand(s) % 2)) {
                list[open++] = started;
                prog[n++] = started++;
                continue;
            }
            int x = (int)(nb_rand(s) % (unsigned)open);
            prog[n++] = k + list[x];
            list[x] = list[--open];
        }
        return;
    }
    /* adversarial: rank r waits in the rotation of 0..k-1 by r, reversed
     * on every other block of k ranks; odd ranks start lazily */
    int perm[NB_MAXOPS];
    for (int j = 0; j < k; j++) perm[j] = (j + r) % k;
    if ((r / k) % 2)
        for (int j = 0; j < k / 2; j++) {
            int x = perm[j];
            perm[j] = perm[k - 1 - j];
            perm[k - 1 - j] = x;
        }
    for (int j = 0; j < k; j++) pref[j] = perm[k - 1 - j];   /* the last awaited first */
    int started = 0;
    if (r % 2 == 0)
        while (started < k) prog[n++] = started++;
    for (int j = 0; j < k; j++) {
        while (started <= perm[j]) prog[n++] = started++;
        prog[n++] = k + perm[j];
    }
}

/* Why rank r cannot step: the first unmatched message of the round of an
 * outstanding operation, preferring the awaited one. */
static tc_verify_status deadlock(nbstate *s, int r)
{
    int k = s->k, a = s->prog[(size_t)r * 2 * k + s->pc[r]];
    for (int t = -1; t < k; t++) {
        int j = t < 0 ? (a >= k ? a - k : a) : t;
        const nbro *o = ro_of(s, j, r);
        if (o->cur < 0 || op_done(s, j, r)) continue;
        const tc_sched *sc = sched_of(s, j, r);
        for (int i = tc_sched_round_begin(sc, o->cur); i < tc_sched_round_end(sc, o->cur); i++) {
            const tc_op *op = &sc->ops[i];
            if ((op->kind != TC_OP_SEND && op->kind != TC_OP_RECV && op->kind != TC_OP_WAIT) ||
                s->matched[(size_t)j * s->p + r][i])
                continue;
            snprintf(s->rep->msg, sizeof s->rep->msg,
                     "deadlock: rank %d waits for op %d; round %d of op %d waits on its %s rank %d", r,
                     a >= k ? a - k : a, o->cur, j,
                     op->kind == TC_OP_SEND ? "send to" : op->kind == TC_OP_RECV ? "receive from" : "signal from",
                     op->peer);
            return nb_fail(s, j, TC_VERIFY_FAIL);
        }
    }
    snprintf(s->rep->msg, sizeof s->rep->msg, "deadlock: rank %d stuck", r);
    return nb_fail(s, a >= k ? a - k : a, TC_VERIFY_FAIL);
}

/* Every rank steps until no rank can; then every program must be done. */
static tc_verify_status run_all(nbstate *s)
{
    int p = s->p, moved = 1;
    tc_verify_status st = TC_VERIFY_OK;
    while (!st && moved) {
        moved = 0;
        if (s->order == ORDER_RANDOM) {   /* a random rank that can step */
            int first = (int)(nb_rand(s) % (unsigned)p);
            for (int t = 0; t < p && !st && !moved; t++) st = step(s, (first + t) % p, &moved);
            continue;
        }
        for (int t = 0; t < p && !st; t++) {
            int r = s->order == ORDER_ADVERSARIAL_DOWN ? p - 1 - t : t, m = 1;
            if (s->order == ORDER_ROUND_ROBIN) {
                st = step(s, r, &m);
                moved |= m;
                continue;
            }
            while (!st && m) {   /* adversarial: as far as it goes */
                st = step(s, r, &m);
                moved |= m;
            }
        }
    }
    for (int r = 0; r < p && !st; r++)
        if (s->pc[r] < 2 * s->k) st = deadlock(s, r);
    for (int j = 0; j < s->k && !st; j++) {
        st = tc_vop_finish(s->vo[j]);
        if (st) st = nb_fail(s, j, st);
    }
    return st;
}

static tc_verify_status run_one(nbstate *s, int order, uint64_t seed)
{
    int k = s->k, p = s->p;
    s->order = order;
    s->rng = seed ? seed : 0x9E3779B97F4A7C15ull;
    for (int j = 0; j < k; j++) {
        tc_vop_reset(s->vo[j]);
        for (int r = 0; r < p; r++) {
            *ro_of(s, j, r) = (nbro){ -1, 0, 0 };
            memset(s->matched[(size_t)j * p + r], 0, (size_t)sched_of(s, j, r)->nops + 1);
        }
    }
    for (int c = 0; c < s->nch; c++) s->ch[c] = (chan){ -1, -1, -1, -1 };
    s->npool = 0;
    s->free_head = -1;
    for (int r = 0; r < p; r++) {
        s->pc[r] = 0;
        s->rot[r] = r % k;
        make_program(s, r);
    }
    tc_verify_status st = run_all(s);
    s->rep->interleavings++;
    return st;
}

static void nb_release(nbstate *s)
{
    for (int j = 0; s->vo && j < s->k; j++) tc_vop_close(s->vo[j]);
    for (size_t i = 0; s->matched && i < (size_t)s->k * (size_t)s->p; i++) free(s->matched[i]);
    free(s->vo);
    free(s->ro);
    free(s->matched);
    free(s->ch);
    free(s->pool);
    free(s->prog);
    free(s->pc);
    free(s->pref);
    free(s->rot);
}

/* Why the schedule cannot run here (NULL: it can). */
static const char *area_why(const tc_sched *sc, int areas)
{
    if (!areas) return tc_sched_nonblocking_why(sc);
    if (sc->uses_inline) return "the inline lines: their data is not moved by this verifier";
    return tc_sched_area_why(sc);
}

/* Open operation j: its schedules checked on their own, and able to run
 * nonblocking at every rank. */
static tc_verify_status open_op(nbstate *s, const tc_topo *t, int j)
{
    const tc_verify_nbop *o = &s->ops[j];
    tc_args a = o->proto;
    a.coll = o->al->coll;
    a.size = t->size;
    tc_verify_status st = tc_vop_open(o->al, t, &a, o->vall, o->u_send, o->u_recv, (int64_t)j * TC_VOP_SPAN,
                                      s->rep, &s->vo[j]);
    if (st) {
        char lab[160], pre[192];
        snprintf(pre, sizeof pre, "%s: ", op_label(s, j, lab, sizeof lab));
        prefix_msg(s->rep, pre);
        return st;
    }
    for (int r = 0; r < t->size; r++) {
        const char *why = area_why(tc_vop_sched(s->vo[j], r), s->areas);
        if (why) {
            char lab[160];
            snprintf(s->rep->msg, sizeof s->rep->msg, "%s: no nonblocking form at rank %d: %s",
                     op_label(s, j, lab, sizeof lab), r, why);
            return TC_VERIFY_DECLINED;
        }
    }
    return TC_VERIFY_OK;
}

static tc_verify_status nb_alloc(nbstate *s)
{
    size_t kp = (size_t)s->k * (size_t)s->p;
    s->nmsg = s->shared ? s->p * s->p : s->k * s->p * s->p;
    s->nch = s->nmsg + (s->areas ? s->k * s->p * s->p : 0);
    s->ro = malloc(kp * sizeof *s->ro);
    s->matched = calloc(kp, sizeof *s->matched);
    s->ch = malloc((size_t)s->nch * sizeof *s->ch);
    s->prog = malloc(2 * kp * sizeof *s->prog);
    s->pc = malloc((size_t)s->p * sizeof *s->pc);
    s->pref = malloc(kp * sizeof *s->pref);
    s->rot = malloc((size_t)s->p * sizeof *s->rot);
    if (!s->ro || !s->matched || !s->ch || !s->prog || !s->pc || !s->pref || !s->rot) goto oom;
    for (int j = 0; j < s->k; j++)
        for (int r = 0; r < s->p; r++)
            if (!(s->matched[(size_t)j * s->p + r] = malloc((size_t)sched_of(s, j, r)->nops + 1))) goto oom;
    return TC_VERIFY_OK;
oom:
    snprintf(s->rep->msg, sizeof s->rep->msg, "out of memory");
    return TC_VERIFY_FAIL;
}

tc_verify_status tc_verify_nonblocking(const tc_verify_nbop *ops, int k, const tc_topo *t,
                                       const tc_verify_nbopts *opts, tc_verify_report *rep)
{
    static const tc_verify_nbopts none;
    memset(rep, 0, sizeof *rep);
    if (!opts) opts = &none;
    if (k < 1 || k > NB_MAXOPS) {
        snprintf(rep->msg, sizeof rep->msg, "%d operations (1 to %d)", k, NB_MAXOPS);
        return TC_VERIFY_FAIL;
    }
    nbstate s;
    memset(&s, 0, sizeof s);
    s.ops = ops;
    s.k = k;
    s.p = t->size;
    s.shared = opts->shared_tag;
    s.areas = opts->areas;
    s.rep = rep;
    s.vo = calloc((size_t)k, sizeof *s.vo);
    tc_verify_status st = s.vo ? TC_VERIFY_OK : TC_VERIFY_FAIL;
    if (st) snprintf(rep->msg, sizeof rep->msg, "out of memory");
    for (int j = 0; j < k && !st; j++) st = open_op(&s, t, j);
    if (!st && opts->shared_tmp && (st = tc_vop_share_tmp(s.vo, k)) != TC_VERIFY_OK)
        prefix_msg(rep, "shared scratch: ");
    if (!st) st = nb_alloc(&s);
    if (!st) st = run_one(&s, ORDER_ROUND_ROBIN, 0);
    if (!st) st = run_one(&s, ORDER_ADVERSARIAL, 0);
    if (!st) st = run_one(&s, ORDER_ADVERSARIAL_DOWN, 0);
    for (int i = 0; i < opts->nrandom && !st; i++)
        st = run_one(&s, ORDER_RANDOM, opts->seed * 0x9E3779B97F4A7C15ull + (uint64_t)i + 1);
    nb_release(&s);
    return st;
}

const char *tc_verify_nonblocking_why(const tc_algo *al, const tc_topo *t, const tc_args *proto,
                                      const tc_vcounts *vall, int u_send, int u_recv, int areas,
                                      tc_verify_report *rep)
{
    tc_args a = *proto;
    a.coll = al->coll;
    a.size = t->size;
    tc_vop *o = NULL;
    memset(rep, 0, sizeof *rep);
    tc_verify_status st = tc_vop_open(al, t, &a, vall, u_send, u_recv, 0, rep, &o);
    const char *why = NULL;
    if (st == TC_VERIFY_DECLINED) why = rep->msg;
    else if (st) {   /* not a nonblocking question: the blocking verifier's failure */
        prefix_msg(rep, "fails on its own: ");
        why = rep->msg;
    }
    for (int r = 0; r < t->size && !why; r++) {
        const char *w = area_why(tc_vop_sched(o, r), areas);
        if (w) {
            snprintf(rep->msg, sizeof rep->msg, "%.400s", w);
            why = rep->msg;
        }
    }
    tc_vop_close(o);
    return why;
}
