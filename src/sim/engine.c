/*
 * The simulator engine (see sim.h): one pass over the ranks, generating each
 * rank's schedule into one reused tc_sched, aggregating each round's sends
 * per destination node, then per (round, destination node) over the
 * consecutive ranks of a source node, and routing each aggregate once when
 * the source node changes: its bytes go to the links (totals) and to the
 * per-step columns of its round.  When the per-step columns would pass their
 * budget, further passes re-run the generators over windows of steps.
 * Cost per pass: O(ops + routes x hops); memory: see sim.h.
 * Source: Jain, Lau, Kale, "Collectives on Two-tier Direct Networks" (2012),
 * section 3 (pattern generator + linkUsage, here fused).
 */
#include "sim/engine_impl.h"
#include "coll/desc.h"
#include "sim/memory.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int eng_fail(sim_eng *e, const char *fmt, ...)
{
    va_list ap;
    if (e->res->status == TC_SIM_ERROR) return -1;   /* keep the first message */
    va_start(ap, fmt);
    vsnprintf(e->res->msg, sizeof e->res->msg, fmt, ap);
    va_end(ap);
    e->res->status = TC_SIM_ERROR;
    return -1;
}

void tc_sim_params_default(tc_sim_params *prm)
{
    memset(prm, 0, sizeof *prm);
    for (int t = 0; t < TC_NET_MAX_TIERS; t++) prm->bw[t] = 1e10;
    prm->gamma = 0.25e-9;
    prm->esize = 1;
    prm->steps = 1;
    prm->step_mem = (size_t)4 << 30;
}

int tc_sim_proto(tc_args *a, topocoll_coll coll, int p, int64_t bytes, int esize, int root,
                 char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    if (esize < 1) {
        snprintf(err, errlen, "element size %d must be >= 1", esize);
        return -1;
    }
    if (bytes < 0 || bytes % esize) {
        snprintf(err, errlen, "%lld bytes per core is not a multiple of the element size %d",
                 (long long)bytes, esize);
        return -1;
    }
    if (p < 1 || root < 0 || root >= p) {
        snprintf(err, errlen, "root %d is not a rank of %d", root, p);
        return -1;
    }
    /* a collective with a buffer of p blocks (its descriptor's sizes):
     * offsets the generators compute in 64-bit signed integers */
    const tc_coll_desc *dp = tc_coll_desc_of(coll);
    int p_blocks = dp && (dp->arg[TC_BUF_SEND].size.times_p || dp->arg[TC_BUF_RECV].size.times_p ||
                          dp->arg[TC_BUF_SEND].norm_times_p);
    if (p_blocks && bytes > INT64_MAX / p) {
        snprintf(err, errlen, "%d ranks x %lld bytes per core: a buffer of p blocks would pass 2^63-1 = %lld "
                 "bytes, the largest extent a schedule addresses; lower --bytes (at most %lld here)", p,
                 (long long)bytes, (long long)INT64_MAX, (long long)(INT64_MAX / p));
        return -1;
    }
    a->coll = coll;
    a->size = p;
    a->scount = a->rcount = bytes / esize;
    a->relem_bytes = esize;
    const tc_coll_desc *d = tc_coll_desc_of(coll);   /* its widening: reduce_scatter_block's */
    if (d && d->arg[TC_BUF_SEND].norm_times_p) a->scount *= p;   /* SEND holds p blocks */
    a->root = root;
    a->commutative = 1;   /* the paper's reductions are sums */
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Bytes the per-round arrays take for cap rounds. */
static uint64_t round_bytes(int cap)
{
    return (uint64_t)cap * TC_SIM_MEM_PER_STEP;
}

/* The step estimate would need more than the limit: refused with the numbers. */
static int rounds_over_limit(sim_eng *e, int n, int cap)
{
    char a[32], b[32], c[32];
    return eng_fail(e, "the step-by-step estimate needs per-step statistics for at least %d steps (%s) on "
                    "top of %s, above the memory limit of %s (--mem-limit); --total-only needs none",
                    n, tc_sim_mem_str(round_bytes(cap), a, sizeof a),
                    tc_sim_mem_str(e->mem_fixed, b, sizeof b), tc_sim_mem_str(e->prm->mem_limit, c, sizeof c));
}

/* Per-round arrays (step estimate only) cover rounds 0 .. n-1. */
int eng_grow_rounds(sim_eng *e, int n)
{
    if (n <= e->st_cap) return 0;
    int cap = e->st_cap ? e->st_cap : 64;
    while (cap < n) cap = cap > INT_MAX / 2 ? INT_MAX : 2 * cap;
    if (e->prm->mem_limit && e->mem_fixed + round_bytes(cap) > e->prm->mem_limit) {
        cap = n;   /* the exact need, before refusing */
        if (e->mem_fixed + round_bytes(cap) > e->prm->mem_limit) return rounds_over_limit(e, n, cap);
    }
    int64_t *m = realloc(e->st_msgs, (size_t)cap * sizeof *m);
    if (m) e->st_msgs = m;
    uint64_t *b = realloc(e->st_bytes, (size_t)cap * sizeof *b);
    if (b) e->st_bytes = b;
    uint64_t *r = realloc(e->st_red, (size_t)cap * sizeof *r);
    if (r) e->st_red = r;
    sim_flow *f = realloc(e->rb, (size_t)cap * 2 * sizeof *f);
    if (f) e->rb = f;
    if (!m || !b || !r || !f) return eng_fail(e, "out of memory (per-step arrays, %d steps)", n);
    for (int i = e->st_cap; i < cap; i++) {
        e->st_msgs[i] = 0;
        e->st_bytes[i] = e->st_red[i] = 0;
        e->rb[2 * i].bytes = e->rb[2 * i + 1].bytes = 0;
    }
    e->st_cap = cap;
    return 0;
}

/* ---- one rank ------------------------------------------------------------------- */

/* Routes one aggregate: b bytes from node src to node dst in round. */
static inline void route_flow(sim_eng *e, int src, int round, int dst, uint64_t b)
{
    int32_t links[TC_NET_MAX_HOPS];
    int nh = tc_net_route(e->net, src, dst, links);
    if (e->pass == 0) {
        for (int h = 0; h < nh; h++) e->load[links[h]] += b;
        if (e->prm->check) check_path(e, src, dst, links, nh, b);
        e->res->flows++;
    }
    if (e->prm->steps)
        for (int h = 0; h < nh; h++) steps_add(&e->sl, round, links[h], b);
}

/* ---- aggregates per (round, destination node) of one source node ------------------ */

static inline uint32_t flow_slot(const sim_eng *e, int round, int dst)
{
    uint64_t x = ((uint64_t)(uint32_t)round << 32 | (uint32_t)dst) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(x >> 32) & (e->fcap - 1);
}

/* Doubles the table (rehashing the occupied slots). */
static int flow_grow(sim_eng *e)
{
    uint32_t cap = e->fcap ? 2 * e->fcap : 4096;
    sim_flow *tab = calloc(cap, sizeof *tab), *old = e->ftab;
    int32_t *used = malloc((size_t)cap * sizeof *used);
    if (!tab || !used) {
        free(tab);
        free(used);
        return eng_fail(e, "out of memory (%u aggregates of one node)", e->fn);
    }
    e->ftab = tab;
    e->fcap = cap;
    for (uint32_t i = 0; i < e->fn; i++) {
        sim_flow f = old[e->fused[i]];
        uint32_t h = flow_slot(e, f.round, f.dst);
        while (tab[h].bytes) h = (h + 1) & (cap - 1);
        tab[h] = f;
        used[i] = (int32_t)h;
    }
    free(old);
    free(e->fused);
    e->fused = used;
    return 0;
}

static int flow_add_table(sim_eng *e, int round, int dst, uint64_t b)
{
    if (2 * (e->fn + 1) > e->fcap && flow_grow(e) != 0) return -1;
    uint32_t h = flow_slot(e, round, dst);
    while (e->ftab[h].bytes && (e->ftab[h].round != round || e->ftab[h].dst != dst)) h = (h + 1) & (e->fcap - 1);
    if (!e->ftab[h].bytes) {
        e->ftab[h].round = round;
        e->ftab[h].dst = dst;
        e->fused[e->fn++] = (int32_t)h;
    }
    e->ftab[h].bytes += b;
    return 0;
}

/* Adds b bytes to (round, dst): the round's two slots first (a node's ranks
 * walk the rounds in order, so these stay in cache), then the table. */
static inline int flow_add(sim_eng *e, int round, int dst, uint64_t b)
{
    sim_flow *f = &e->rb[2 * round];
    if (round < e->rb_lo) e->rb_lo = round;
    if (round >= e->rb_hi) e->rb_hi = round + 1;
    for (int j = 0; j < 2; j++) {
        if (!f[j].bytes) {
            f[j].round = round;
            f[j].dst = dst;
        }
        if (f[j].dst == dst) {
            f[j].bytes += b;
            return 0;
        }
    }
    return flow_add_table(e, round, dst, b);
}

/* Routes everything aggregated for the current source node. */
static void flush_pending(sim_eng *e)
{
    int src = e->agg_src;
    for (int k = e->rb_lo; k < e->rb_hi; k++)
        for (int j = 0; j < 2 && e->rb[2 * k + j].bytes; j++) {
            sim_flow *f = &e->rb[2 * k + j];
            route_flow(e, src, k, f->dst, f->bytes);
            f->bytes = 0;
        }
    e->rb_lo = INT_MAX;
    e->rb_hi = 0;
    for (uint32_t i = 0; i < e->fn; i++) {
        sim_flow *f = &e->ftab[e->fused[i]];
        route_flow(e, src, f->round, f->dst, f->bytes);
        f->bytes = 0;
    }
    e->fn = 0;
    for (int j = 0; j < e->ntouched; j++) {   /* total-only: per destination node */
        int dn = e->touched[j];
        route_flow(e, src, 0, dn, e->agg[dn]);
        e->agg[dn] = 0;
    }
    e->ntouched = 0;
}

/* End of a round with the step estimate: the round's per-node bytes join
 * the source node's (round, destination) aggregates. */
static int end_round(sim_eng *e, int round, int nt)
{
    for (int j = 0; j < nt; j++) {
        int dn = e->touched[j];
        if (flow_add(e, round, dn, e->agg[dn]) != 0) return -1;
        e->agg[dn] = 0;
    }
    return 0;
}

static int bad_peer(sim_eng *e, int k, const tc_op *op)
{
    return eng_fail(e, "rank %d round %d: %s with peer %d (ranks are 0..%d) or a negative count",
                    e->cur_rank, k, op->kind == TC_OP_SEND ? "send" : "receive", op->peer,
                    e->pl->p - 1);
}

/* Receives only matter to the checks. */
static int scan_recv(sim_eng *e, int k, const tc_op *op)
{
    int r = e->cur_rank;
    if (op->peer < 0 || op->peer >= e->pl->p || op->peer == r || op->a.cnt < 0) return bad_peer(e, k, op);
    check_pair(e, op->peer, r, (uint64_t)op->a.cnt * (uint64_t)e->prm->esize, 0);
    return 0;
}

/* Per-round counters of the first pass. */
static inline void round_counters(sim_eng *e, int k, int64_t msgs, uint64_t bytes, uint64_t rd)
{
    if (msgs) {
        e->st_msgs[k] += msgs;
        e->st_bytes[k] += bytes;
    }
    if (rd > e->st_red[k]) e->st_red[k] = rd;
}

#if defined(__GNUC__) || defined(__clang__)
#define SIM_INLINE static inline __attribute__((always_inline))
#else
#define SIM_INLINE static inline
#endif

/* What the scan of one drain reads, in locals (registers) rather than
 * through e, which the stores to agg and touched might alias. */
typedef struct scan_state {
    const tc_op *ops;
    const int *node_of;
    uint64_t *agg;
    int *touched;
    int nt;                 /* entries of touched */
    int d0;                 /* the round's first destination node (-1: none yet), */
    uint64_t b0;            /* its bytes: most rounds send to one node, kept out of agg */
    int p, r, src, check;
    uint64_t esz;
} scan_state;

/* Scans ops[i .. end) of round k (global index) of the current rank: sends
 * are aggregated per destination node (agg, touched), receives only feed
 * the checks, reductions count reduced bytes.  Inline: ring and pairwise
 * exchange have 2-3 ops per round and 268 million rounds at 16,384 ranks. */
SIM_INLINE int scan_ops(sim_eng *e, scan_state *st, int k, int i, int end, round_sums *rs)
{
    for (; i < end; i++) {
        const tc_op *op = &st->ops[i];
        if (op->kind == TC_OP_SEND) {
            int peer = op->peer;
            if (peer < 0 || peer >= st->p || peer == st->r || op->a.cnt < 0) return bad_peer(e, k, op);
            tc_u128 bx = (tc_u128)(uint64_t)op->a.cnt * st->esz;
            uint64_t b = (uint64_t)bx;   /* exact while the run stays under TC_SIM_BYTES_MAX */
            int dn = st->node_of[peer];
            rs->msgs++;
            rs->bytes += bx;
            if (dn == st->src) {
                rs->intra += b;
            } else {
                rs->netm++;   /* a zero-byte (synchronisation) message: latency only, no link load */
                if (!b) {
                } else if (dn == st->d0) {
                    st->b0 += b;
                } else if (st->d0 < 0) {
                    st->d0 = dn;
                    st->b0 = b;
                } else {
                    if (!st->agg[dn]) st->touched[st->nt++] = dn;
                    st->agg[dn] += b;
                }
            }
            if (st->check) check_pair(e, st->r, peer, b, 1);
        } else if (op->kind == TC_OP_REDUCE) {
            rs->rd += (uint64_t)op->a.cnt * st->esz;
        } else if (op->kind == TC_OP_RECV && st->check && scan_recv(e, k, op) != 0) {
            return -1;
        } else if (op->kind == TC_OP_COLLECT && op->peer != st->r) {   /* a peer's inline lines */
            uint64_t b = (uint64_t)op->a.cnt * st->esz;
            rs->msgs++;
            rs->bytes += b;
            rs->intra += b;   /* node memory: no network */
        }
        /* COPY, PUBLISH, SIGNAL, WAIT (and any later local kind): no network traffic */
    }
    return 0;
}

/* Round k of the current rank is complete (rs: its sums, including the
 * part consumed by earlier drains).  With the step estimate, its per-node
 * bytes join the source node's (round, destination) aggregates; without it
 * they keep growing over all rounds.  Either way they are routed when the
 * source node changes (do_rank, run_pass): the ranks of a node that talk to
 * the same node in the same round cost one route. */
SIM_INLINE void spill_d0(scan_state *st)
{
    if (st->d0 < 0) return;
    if (!st->agg[st->d0]) st->touched[st->nt++] = st->d0;
    st->agg[st->d0] += st->b0;
    st->d0 = -1;
}

SIM_INLINE int close_round(sim_eng *e, scan_state *st, int k, const round_sums *rs, rank_sums *sum)
{
    if (st->d0 >= 0 && !st->nt && e->prm->steps) {   /* one destination node */
        if (flow_add(e, k, st->d0, st->b0) != 0) return -1;
        st->d0 = -1;
    }
    spill_d0(st);
    if (st->nt && e->prm->steps) {
        if (end_round(e, k, st->nt) != 0) return -1;
        st->nt = 0;
    }
    if (e->pass == 0 && e->prm->steps) round_counters(e, k, rs->msgs, (uint64_t)rs->bytes, rs->rd);
    sum->msgs += rs->msgs;
    sum->netm += rs->netm;
    sum->bytes += rs->bytes;
    sum->intra += rs->intra;
    sum->red += rs->rd;
    return 0;
}

static inline int in_window(const sim_eng *e, int k)
{
    return e->pass == 0 || (k >= e->sl.lo && k < e->sl.hi);
}

/* Consumes what the schedule holds: every closed round and, unless final,
 * the open round's ops but its last (tc_sched_drained keeps that one),
 * whose sums wait in e->open for the round's end. */
static int consume(sim_eng *e, int final)
{
    const tc_sched *s = &e->s;
    const int base = s->round_base, n = s->nrounds;
    const int *start = s->round_start;
    if (e->pass == 0 && e->prm->steps && eng_grow_rounds(e, base + n + 1) != 0) return -1;
    scan_state st = {
        .ops = s->ops, .node_of = e->pl->node_of, .agg = e->agg, .touched = e->touched,
        .nt = e->ntouched, .d0 = e->open_d0, .b0 = e->open_b0, .p = e->pl->p, .r = e->cur_rank, .src = e->agg_src,
        .check = e->prm->check && e->pass == 0, .esz = (uint64_t)e->prm->esize,
    };
    round_sums rs = e->open;
    rank_sums sum = e->cur_sum;
    int rc = 0;
    for (int k = 0; k < n && rc == 0; k++) {
        if (in_window(e, base + k))
            rc = scan_ops(e, &st, base + k, start[k], start[k + 1], &rs) != 0 ||
                 close_round(e, &st, base + k, &rs, &sum) != 0;
        memset(&rs, 0, sizeof rs);
    }
    int open = start[n], upto = final ? s->nops : s->nops - 1;
    if (rc == 0 && open < upto && in_window(e, base + n)) rc = scan_ops(e, &st, base + n, open, upto, &rs) != 0;
    if (final) spill_d0(&st);   /* (a final consume closes every round) */
    e->ntouched = st.nt;
    e->open_d0 = st.d0;
    e->open_b0 = st.b0;
    e->open = rs;
    e->cur_sum = sum;
    if (e->pass == 0) e->res->ops += upto > 0 ? upto : 0;
    return rc ? -1 : 0;
}

/* ---- progress ------------------------------------------------------------------ */

/* A line at most once a second, once the run has taken a second; the time
 * left assumes the ranks of a pass cost alike and, in the re-runs, that every
 * window costs what the first pass did. */
static void progress(sim_eng *e)
{
    e->drains = 0;
    if (!e->prm->progress) return;
    double t = now_s(), el = t - e->t0;
    if (el < 1 || t - e->t_report < 1) return;
    e->t_report = t;
    tc_sim_progress pg;
    memset(&pg, 0, sizeof pg);
    pg.algo = e->al->name;
    pg.pass = e->pass + 1;
    pg.npass = e->pass == 0 ? 1 : 1 + e->npass_left;
    pg.rank = e->cur_rank;
    pg.p = e->pl->p;
    pg.elapsed_s = el;
    double frac = ((double)e->pass + (double)e->cur_rank / pg.p) / pg.npass;
    pg.left_s = frac > 0 ? el / frac - el : -1;
    e->prm->progress(e->prm->progress_ctx, &pg);
}

/* The schedule's drain hook: the op or round array is full. */
static void on_drain(tc_sched *s, void *ctx)
{
    sim_eng *e = ctx;
    if (++e->drains >= 4096) progress(e);
    if (consume(e, 0) != 0) {
        s->err = ECANCELED;
        return;
    }
    tc_sched_drained(s);
}

/* Generates rank r's schedule, consumed as it is built (on_drain).  The last
 * round is closed with tc_sched_round, not tc_sched_finish: finish only adds
 * max_comm and uses_shm, which the simulator does not read. */
static int generate(sim_eng *e, int r)
{
    tc_sched_reset(&e->s);   /* keeps the buffers and the drain hook */
    e->args.rank = r;
    int rc = tc_algo_generate(e->al, &e->s, &e->args, e->pl->topo);
    if (rc == 0) {
        tc_sched_round(&e->s);
        rc = e->s.err;
    }
    if (rc == ECANCELED && e->res->status == TC_SIM_ERROR) return -1;   /* the drain failed */
    if (rc) return eng_fail(e, "rank %d: the generator failed (%s)", r, strerror(rc));
    return consume(e, 1);
}

static void rank_totals(sim_eng *e, int r, const rank_sums *sum)
{
    tc_sim_result *res = e->res;
    res->messages += sum->msgs;
    res->net_messages += sum->netm;
    e->sent_all += sum->bytes;
    res->bytes += (uint64_t)sum->bytes;
    res->intra_bytes += sum->intra;
    res->reduced_total += sum->red;
    if (sum->red > res->reduced_max || (sum->red && res->reduced_rank < 0)) {
        res->reduced_max = sum->red;
        res->reduced_rank = r;
    }
    if (sum->bytes > res->sent_max) res->sent_max = (uint64_t)sum->bytes;
}

static int do_rank(sim_eng *e, int r)
{
    int src = e->pl->node_of[r];
    if ((e->ntouched || e->rb_hi) && e->agg_src != src) flush_pending(e);
    e->agg_src = src;
    e->cur_rank = r;
    memset(&e->cur_sum, 0, sizeof e->cur_sum);
    memset(&e->open, 0, sizeof e->open);
    e->open_d0 = -1;
    if (generate(e, r) != 0) return -1;
    if (e->pass == 0) {
        int rounds = e->s.round_base + e->s.nrounds;
        if (rounds > e->res->rounds) e->res->rounds = rounds;
        if (rounds > e->sl.smax) e->sl.smax = rounds;
        if (e->rank_rounds) e->rank_rounds[r] = rounds;
        rank_totals(e, r, &e->cur_sum);
    }
    return 0;
}

int eng_run_pass(sim_eng *e)
{
    for (int r = 0; r < e->pl->p; r++) {
        if ((r & 255) == 255) progress(e);
        if (do_rank(e, r) != 0) return -1;
    }
    flush_pending(e);
    return 0;
}

/* ---- passes over windows of steps ---------------------------------------------- */

static int run_windows(sim_eng *e, uint64_t *colsum)
{
    int S = e->res->rounds;
    size_t row = (size_t)(e->sl.ncid ? e->sl.ncid : 1) * steps_esize(&e->sl);
    uint64_t used = e->mem_fixed + round_bytes(e->st_cap);
    if (e->prm->mem_limit && used < e->prm->mem_limit && e->prm->mem_limit - used < e->sl.budget)
        e->sl.budget = (size_t)(e->prm->mem_limit - used);
    size_t w = e->sl.budget / row;
    int W = w < 1 ? 1 : w > (size_t)S ? S : (int)w;
    e->npass_left = (S + W - 1) / W;
    if ((size_t)W * row > e->sl.budget) e->sl.budget = (size_t)W * row;   /* at least one step */
    for (int lo = 0; lo < S; lo += W) {
        int hi = lo + W < S ? lo + W : S;
        steps_window(&e->sl, lo, hi);
        e->pass++;
        if (eng_run_pass(e) != 0) return -1;
        if (e->sl.overflow) return eng_fail(e, "out of memory (per-step loads of steps %d..%d)", lo, hi - 1);
        model_step_max(e, lo, hi, colsum);
        e->res->step_passes++;
    }
    steps_drop(&e->sl);
    return 0;
}

static int step_loads(sim_eng *e)
{
    uint64_t *colsum = NULL;
    if (e->prm->check && !(colsum = calloc((size_t)(e->sl.ncid ? e->sl.ncid : 1), sizeof *colsum)))
        return eng_fail(e, "out of memory");
    int rc = 0;
    if (!e->sl.overflow) {
        model_step_max(e, 0, e->res->rounds, colsum);
        e->res->step_passes = 1;
        steps_drop(&e->sl);
    } else {
        e->res->step_passes = 1;
        rc = run_windows(e, colsum);
    }
    if (rc == 0 && colsum) check_step_sums(e, colsum);
    free(colsum);
    return rc;
}

/* ---- set-up and result ---------------------------------------------------------- */

/* The estimate of what the run needs besides per-step data; refused past
 * the limit before anything is allocated. */
static int admit_memory(sim_eng *e)
{
    char msg[360];
    if (!tc_sim_mem_over(e->net, e->pl->p, e->prm->steps, e->prm->check, e->prm->mem_limit, &e->mem_fixed, msg,
                         sizeof msg))
        return 0;
    return eng_fail(e, "%s", msg);
}

/* The per-step loads' budget: --step-mem, lowered to what the limit leaves
 * (at least 1 MiB: past the budget the generators re-run over windows). */
static size_t step_budget(const sim_eng *e)
{
    size_t b = e->prm->step_mem, least = (size_t)1 << 20;
    uint64_t lim = e->prm->mem_limit;
    if (lim && lim - (lim > e->mem_fixed ? e->mem_fixed : lim) < b) {
        uint64_t left = lim > e->mem_fixed ? lim - e->mem_fixed : 0;
        b = left < least ? (b < least ? b : least) : (size_t)left;
    }
    return b;
}

static int eng_init(sim_eng *e)
{
    const tc_net *n = e->net;
    if (admit_memory(e) != 0) return -1;
    tc_sched_init(&e->s);
    if (e->s.err) return eng_fail(e, "out of memory");
    e->s.drain = on_drain;   /* schedules stream through a small buffer */
    e->s.drain_ctx = e;
    /* copies never matter to the simulator, receives only to the checks */
    e->s.skip_kinds = (1u << TC_OP_COPY) | (e->prm->check ? 0u : 1u << TC_OP_RECV);
    int chunk = e->prm->chunk_ops >= 2 ? e->prm->chunk_ops : SIM_CHUNK_OPS;
    e->s.ops = malloc((size_t)chunk * sizeof *e->s.ops);
    int *rs = realloc(e->s.round_start, (size_t)(chunk + 1) * sizeof *rs);
    if (rs) e->s.round_start = rs;
    if (!e->s.ops || !rs) return eng_fail(e, "out of memory");
    e->s.ops_cap = e->s.rounds_cap = chunk;
    e->load = calloc((size_t)(n->nlinks ? n->nlinks : 1), sizeof *e->load);
    e->agg = calloc((size_t)n->nnodes, sizeof *e->agg);
    e->touched = malloc((size_t)n->nnodes * sizeof *e->touched);
    if (!e->load || !e->agg || !e->touched) return eng_fail(e, "out of memory (%d links)", n->nlinks);
    if (steps_init(&e->sl, n->nlinks, step_budget(e)) != 0) return eng_fail(e, "out of memory");
    if (e->prm->check && check_init(e) != 0) return eng_fail(e, "out of memory (checks)");
    return 0;
}

static void eng_free(sim_eng *e)
{
    tc_sched_free(&e->s);
    free(e->load);
    free(e->agg);
    free(e->touched);
    free(e->rb);
    free(e->ftab);
    free(e->fused);
    free(e->st_msgs);
    free(e->st_bytes);
    free(e->st_red);
    free(e->st_max);
    steps_free(&e->sl);
    check_free(e);
}

static void keep_results(sim_eng *e)
{
    tc_sim_result *res = e->res;
    if (e->prm->keep_links) {
        res->link_load = e->load;
        e->load = NULL;
    }
    if (e->prm->keep_steps && e->prm->steps && res->rounds > 0) {
        res->steps = calloc((size_t)res->rounds, sizeof *res->steps);
        if (!res->steps) return;
        res->nsteps = res->rounds;
        model_fill_steps(e);
    }
}

/* Accept / decline before any work, as the verifier does. */
static int admit(const tc_algo *al, const tc_args *proto, const tc_sim_place *pl, tc_sim_result *res)
{
    const char *why = "";
    tc_args a0 = *proto;
    a0.rank = 0;
    a0.node_shm = pl->levels == TC_SIM_LEVELS_NODE;
    a0.cma = a0.node_shm;
    if (proto->size != pl->p) {
        snprintf(res->msg, sizeof res->msg, "the arguments are for %d ranks, the placement has %d",
                 proto->size, pl->p);
        res->status = TC_SIM_ERROR;
        return 0;
    }
    if (!al->generate) {
        snprintf(res->msg, sizeof res->msg, "no schedule (%s calls the MPI library's collective)", al->name);
        res->status = TC_SIM_DECLINED;
        return 0;
    }
    if (!tc_algo_accepts(al, &a0, pl->topo, &why)) {
        snprintf(res->msg, sizeof res->msg, "declined: %s", why);
        res->status = TC_SIM_DECLINED;
        return 0;
    }
    return 1;
}

/* Link loads, step loads and per-rank sums are kept in 64 bits; each is at
 * most the bytes sent by all ranks, so a run past that limit is refused
 * rather than reported with wrapped numbers. */
static int too_many_bytes(sim_eng *e)
{
    char b[48];
    return eng_fail(e, "the ranks send %s bytes in all, above the simulator's limit of 2^64-1 = %llu bytes "
                    "(16 EiB; link loads are counted in 64 bits): lower --bytes",
                    tc_sim_u128_str(e->sent_all, b, sizeof b), (unsigned long long)TC_SIM_BYTES_MAX);
}

tc_sim_status tc_sim_run(const tc_algo *al, const tc_args *proto, const tc_net *net,
                         const tc_sim_place *pl, const tc_sim_params *prm, tc_sim_result *res)
{
    double t0 = now_s();
    clock_t c0 = clock();
    memset(res, 0, sizeof *res);
    res->p = pl->p;
    res->ntiers = net->ntiers;
    res->reduced_rank = -1;
    res->t_steps = -1;
    if (!admit(al, proto, pl, res)) return res->status;
    sim_eng e;
    memset(&e, 0, sizeof e);
    e.al = al;
    e.args = *proto;
    e.args.node_shm = pl->levels == TC_SIM_LEVELS_NODE;   /* a group's ranks share no memory */
    e.args.cma = e.args.node_shm;
    e.net = net;
    e.pl = pl;
    e.prm = prm;
    e.res = res;
    e.rb_lo = INT_MAX;
    e.t0 = t0;
    int rc = eng_init(&e), fast = 0;
    if (rc == 0 && (fast = shift_run(&e)) < 0) rc = -1;
    if (rc == 0 && !fast) rc = eng_run_pass(&e);
    if (rc == 0 && e.sl.oom) rc = eng_fail(&e, "out of memory (per-step link ids)");
    if (rc == 0 && e.sent_all > TC_SIM_BYTES_MAX) rc = too_many_bytes(&e);
    if (rc == 0) {
        model_tiers(&e);
        if (prm->steps && !fast) rc = step_loads(&e);
    }
    if (rc == 0) {
        model_estimates(&e);
        if (prm->check) check_finish(&e);
        keep_results(&e);
    }
    eng_free(&e);
    res->wall_s = now_s() - t0;
    res->cpu_s = (double)(clock() - c0) / CLOCKS_PER_SEC;
    return res->status;
}

void tc_sim_result_free(tc_sim_result *res)
{
    free(res->steps);
    free(res->link_load);
    res->steps = NULL;
    res->link_load = NULL;
    res->nsteps = 0;
}
