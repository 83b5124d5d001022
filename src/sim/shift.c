/*
 * The simulator's fast path for schedules in shift form (tc_algo.shift,
 * algo/catalog.h): when every rank sends to (r + shift) mod p round after
 * round, the engine needs neither p generated schedules nor per-step link
 * columns.  It walks the steps once, all ranks of a step together:
 *
 *   1. a prefix (tc_algo.shift_prefix, e.g. the binomial scatter before van
 *      de Geijn's ring) runs through the ordinary generator pass, which
 *      also tells each rank's number of prefix rounds: ranks with the same
 *      number form a class whose shift rounds start at that step;
 *   2. the placement is cut into runs of consecutive ranks on one node (all
 *      ranks, for the receivers; per class, for the senders): a node of an
 *      in-order placement is one run, a cyclic placement has runs of one;
 *   3. for a send of b bytes at shift s, the ranks of a sender run [x, y) on
 *      node n reach ranks [x+s, y+s) mod p: at most two ranges, cut by the
 *      runs they cross into (destination node, ranks) pieces; bytes to n
 *      stay inside the node, the rest are summed per destination node and
 *      routed once per (run, destination node);
 *   4. a step's link loads live in a dense array with a list of the links
 *      touched; with the prefix's loads of that step (from its columns)
 *      they give the step's per-tier maxima, then join the totals.  Steps in
 *      which every class repeats an equal round are computed once (a ring's
 *      p-1 equal steps cost one).
 *
 * The results equal the generator passes' (tests/sim compares every field,
 * loads and step tables included, for every algorithm with a shift form,
 * on several networks and placements), except `flows`, the number of
 * routes computed, which counts this path's routes.  Not used with --check
 * (the checks match every send with its receive, which only the generated
 * schedules have) or --generic.
 * Cost: the prefix pass, plus O(distinct steps x sends per round x (runs +
 * routes x hops)); at 16,384 in-order ranks on twotier:64x16x16 pairwise
 * exchange routes 2 x 1,024 aggregates per step.  Memory: O(p) with a
 * prefix (each rank's round count), else O(p / run length); plus O(nodes +
 * links) and the per-step statistics (88 bytes per step).
 */
#include "sim/engine_impl.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One round of the shift form, as told (its sends copied). */
typedef struct shift_entry {
    int nsend, nreduce, repeat;
    int *shift;
    int64_t *cnt;
    int64_t reduced;
} shift_entry;

/* Runs of consecutive ranks on one node. */
typedef struct rank_runs {
    int n;
    int *start, *end, *node;
} rank_runs;

/* Ranks whose shift rounds start at step `off`. */
typedef struct shift_class {
    int off;
    int64_t nranks;
    rank_runs runs;          /* sender runs: consecutive ranks of the class on one node */
    int entry, pos;          /* where it stands: entry, repeats of it done */
} shift_class;

typedef struct shift_state {
    sim_eng *e;
    int p;
    shift_entry *ent;
    int nent, cap_ent, cont;
    int64_t total_rounds;    /* rounds of the shift form */
    rank_runs all;           /* receiver runs */
    shift_class *cls;
    int ncls;
    uint64_t *rl;            /* [nlinks] this step's shift loads */
    int32_t *touched;        /* [nlinks] links with rl != 0 */
    int nt;
    int *rounds_of;          /* [p] prefix rounds per rank (with a prefix) */
    int max_off;
} shift_state;

/* ---- the shift form, collected ------------------------------------------------- */

static int sink(void *ctx, const tc_shift_round *rd)
{
    shift_state *S = ctx;
    sim_eng *e = S->e;
    if (rd->repeat < 1 || (rd->cont && rd->repeat != 1) || (rd->nsend && (!rd->shift || !rd->cnt)))
        return eng_fail(e, "%s: the shift form has a bad round", e->al->name);
    for (int i = 0; i < rd->nsend; i++) {
        tc_u128 b = (tc_u128)(uint64_t)rd->cnt[i] * (uint64_t)e->prm->esize;
        if (rd->shift[i] <= 0 || rd->shift[i] >= S->p || rd->cnt[i] <= 0 || b > TC_SIM_BYTES_MAX)
            return eng_fail(e, "%s: the shift form sends to a bad shift or a bad count", e->al->name);
    }
    if (!S->cont) {   /* a new entry */
        if (S->nent == S->cap_ent) {
            int cap = S->cap_ent ? 2 * S->cap_ent : 64;
            shift_entry *v = realloc(S->ent, (size_t)cap * sizeof *v);
            if (!v) return eng_fail(e, "out of memory (shift form)");
            S->ent = v;
            S->cap_ent = cap;
        }
        memset(&S->ent[S->nent++], 0, sizeof *S->ent);
        S->total_rounds += rd->repeat;
    }
    shift_entry *en = &S->ent[S->nent - 1];
    if (S->total_rounds > INT_MAX / 2) return eng_fail(e, "%s: the shift form passes 2^30 steps", e->al->name);
    int *sh = realloc(en->shift, (size_t)(en->nsend + rd->nsend + 1) * sizeof *sh);
    if (sh) en->shift = sh;
    int64_t *ct = realloc(en->cnt, (size_t)(en->nsend + rd->nsend + 1) * sizeof *ct);
    if (ct) en->cnt = ct;
    if (!sh || !ct) return eng_fail(e, "out of memory (shift form)");
    memcpy(en->shift + en->nsend, rd->shift, (size_t)rd->nsend * sizeof *sh);
    memcpy(en->cnt + en->nsend, rd->cnt, (size_t)rd->nsend * sizeof *ct);
    en->nsend += rd->nsend;
    en->nreduce += rd->nreduce;
    en->reduced += rd->reduced;
    en->repeat = rd->repeat;
    S->cont = rd->cont;
    return 0;
}

/* ---- runs and classes ------------------------------------------------------------ */

static int runs_add(rank_runs *R, int *cap, int x, int y, int node)
{
    if (R->n == *cap) {
        int c = *cap ? 2 * *cap : 16;
        int *a = realloc(R->start, (size_t)c * sizeof *a);
        if (a) R->start = a;
        int *b = realloc(R->end, (size_t)c * sizeof *b);
        if (b) R->end = b;
        int *d = realloc(R->node, (size_t)c * sizeof *d);
        if (d) R->node = d;
        if (!a || !b || !d) return -1;
        *cap = c;
    }
    R->start[R->n] = x;
    R->end[R->n] = y;
    R->node[R->n++] = node;
    return 0;
}

static void runs_free(rank_runs *R)
{
    free(R->start);
    free(R->end);
    free(R->node);
}

/* Runs of the ranks with rounds_of[r] == off (every rank when !filter or
 * there is no prefix). */
static int build_runs(shift_state *S, rank_runs *R, int filter, int off, int64_t *nranks)
{
    const int *node_of = S->e->pl->node_of;
    int cap = 0, open = -1;
    *nranks = 0;
    for (int r = 0; r <= S->p; r++) {
        int in = r < S->p && (!filter || !S->rounds_of || S->rounds_of[r] == off);
        if (open >= 0 && (!in || node_of[r] != node_of[open])) {
            if (runs_add(R, &cap, open, r, node_of[open]) != 0)
                return eng_fail(S->e, "out of memory (runs of ranks)");
            open = -1;
        }
        if (in && open < 0) open = r;
        *nranks += in;
    }
    return 0;
}

static int cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

/* One class per distinct prefix round count. */
static int build_classes(shift_state *S)
{
    int64_t n;
    if (build_runs(S, &S->all, 0, 0, &n) != 0) return -1;
    int *offs = NULL, noff = 1;
    if (S->rounds_of) {
        offs = malloc((size_t)S->p * sizeof *offs);
        if (!offs) return eng_fail(S->e, "out of memory (classes)");
        memcpy(offs, S->rounds_of, (size_t)S->p * sizeof *offs);
        qsort(offs, (size_t)S->p, sizeof *offs, cmp_int);
        noff = 0;
        for (int i = 0; i < S->p; i++)
            if (!i || offs[i] != offs[i - 1]) offs[noff++] = offs[i];
    }
    S->cls = calloc((size_t)noff, sizeof *S->cls);
    int rc = S->cls ? 0 : eng_fail(S->e, "out of memory (classes)");
    for (int c = 0; rc == 0 && c < noff; c++) {
        S->cls[c].off = offs ? offs[c] : 0;
        S->ncls = c + 1;
        rc = build_runs(S, &S->cls[c].runs, 1, S->cls[c].off, &S->cls[c].nranks);
        if (S->cls[c].off > S->max_off) S->max_off = S->cls[c].off;
    }
    free(offs);
    return rc;
}

/* ---- one step's loads --------------------------------------------------------- */

/* The receiver run holding rank r (binary search). */
static int run_of(const rank_runs *R, int r)
{
    int lo = 0, hi = R->n - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (R->start[mid] <= r) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

static void add_route(shift_state *S, int src, int dst, uint64_t b)
{
    int32_t links[TC_NET_MAX_HOPS];
    int nh = tc_net_route(S->e->net, src, dst, links);
    for (int h = 0; h < nh; h++) {
        if (!S->rl[links[h]]) S->touched[S->nt++] = links[h];
        S->rl[links[h]] += b;
    }
    S->e->res->flows++;
}

/* What one step adds up to (shift part). */
typedef struct step_sums {
    int64_t msgs, netm, ops;
    tc_u128 bytes, intra;
    uint64_t red;            /* the busiest rank's reduced bytes */
} step_sums;

/* Ranks [x, y) receive b bytes each from node src. */
static void add_range(shift_state *S, step_sums *ss, int src, int x, int y, uint64_t b)
{
    sim_eng *e = S->e;
    for (int j = run_of(&S->all, x); x < y; j++) {
        int end = S->all.end[j] < y ? S->all.end[j] : y, dn = S->all.node[j];
        uint64_t k = (uint64_t)(end - x);
        if (dn == src) {
            ss->intra += (tc_u128)k * b;
        } else {
            ss->netm += (int64_t)k;
            if (!e->agg[dn]) e->touched[e->ntouched++] = dn;
            e->agg[dn] += k * b;
        }
        x = end;
    }
}

/* One send of every rank of class c: shift s, b bytes. */
static void add_send(shift_state *S, step_sums *ss, const shift_class *c, int s, uint64_t b)
{
    sim_eng *e = S->e;
    int p = S->p;
    for (int j = 0; j < c->runs.n; j++) {
        int src = c->runs.node[j], x = c->runs.start[j] + s, y = c->runs.end[j] + s;
        if (x >= p) {
            x -= p;
            y -= p;
        }
        if (y <= p) {
            add_range(S, ss, src, x, y, b);
        } else {
            add_range(S, ss, src, x, p, b);
            add_range(S, ss, src, 0, y - p, b);
        }
        for (int i = 0; i < e->ntouched; i++) {
            int dn = e->touched[i];
            add_route(S, src, dn, e->agg[dn]);
            e->agg[dn] = 0;
        }
        e->ntouched = 0;
    }
    ss->msgs += c->nranks;
    ss->bytes += (tc_u128)c->nranks * b;
}

/* The shift rounds every active class is in at this step. */
static void step_loads(shift_state *S, int K, step_sums *ss)
{
    uint64_t esz = (uint64_t)S->e->prm->esize;
    for (int k = 0; k < S->ncls; k++) {
        shift_class *c = &S->cls[k];
        if (K < c->off || c->entry >= S->nent) continue;
        const shift_entry *en = &S->ent[c->entry];
        for (int i = 0; i < en->nsend; i++) add_send(S, ss, c, en->shift[i], (uint64_t)en->cnt[i] * esz);
        ss->ops += (en->nsend + en->nreduce) * c->nranks;
        if ((uint64_t)en->reduced * esz > ss->red) ss->red = (uint64_t)en->reduced * esz;
    }
}

/* How many steps from K on repeat this one: 1 while prefixes run or
 * classes have yet to start, else up to the first class's entry end. */
static int step_run(const shift_state *S, int K, int Kend)
{
    if (K < S->max_off) return 1;
    int L = Kend - K;
    for (int k = 0; k < S->ncls; k++) {
        const shift_class *c = &S->cls[k];
        if (c->entry < S->nent && S->ent[c->entry].repeat - c->pos < L) L = S->ent[c->entry].repeat - c->pos;
    }
    return L < 1 ? 1 : L;
}

static void advance(shift_state *S, int K, int L)
{
    for (int k = 0; k < S->ncls; k++) {
        shift_class *c = &S->cls[k];
        if (K < c->off || c->entry >= S->nent) continue;
        c->pos += L;
        if (c->pos == S->ent[c->entry].repeat) {
            c->entry++;
            c->pos = 0;
        }
    }
}

/* Adds the prefix's loads of step K (its columns) to rl. */
static void add_prefix_step(shift_state *S, int K)
{
    const sim_steps *st = &S->e->sl;
    for (int c = 0; c < st->ncid; c++) {
        int i = K - st->base[c];
        if (!st->col[c] || i < 0 || i >= st->cap[c]) continue;
        uint64_t v = steps_get(st, c, i);
        int l = st->cid_link[c];
        if (!v) continue;
        if (!S->rl[l]) S->touched[S->nt++] = l;
        S->rl[l] += v;
    }
}

static int grow_steps(sim_eng *e, int n)
{
    int old = e->st_cap;
    if (eng_grow_rounds(e, n) != 0) return -1;
    if (e->st_max && old == e->st_cap) return 0;
    uint64_t *mx = realloc(e->st_max, (size_t)e->st_cap * TC_NET_MAX_TIERS * sizeof *mx);
    if (!mx) return eng_fail(e, "out of memory (per-step maxima, %d steps)", n);
    int from = e->st_max ? old : 0;
    memset(mx + (size_t)from * TC_NET_MAX_TIERS, 0, (size_t)(e->st_cap - from) * TC_NET_MAX_TIERS * sizeof *mx);
    e->st_max = mx;
    return 0;
}

/* Steps K .. K+L-1 are complete: their shift loads join the totals L times;
 * with the prefix's loads (K < max_off, L = 1) they give the step maxima. */
static int close_steps(shift_state *S, int K, int L, const step_sums *ss)
{
    sim_eng *e = S->e;
    tc_sim_result *res = e->res;
    int prefix = K < S->max_off && e->rounds_prefix;
    for (int i = 0; i < S->nt; i++) e->load[S->touched[i]] += S->rl[S->touched[i]] * (uint64_t)L;
    if (prefix && e->prm->steps) add_prefix_step(S, K);
    uint64_t mx[TC_NET_MAX_TIERS] = { 0 };
    for (int i = 0; i < S->nt; i++) {
        int l = S->touched[i], t = tc_net_link_tier(e->net, l);
        if (S->rl[l] > mx[t]) mx[t] = S->rl[l];
        S->rl[l] = 0;
    }
    S->nt = 0;
    if (e->prm->steps) {
        if (grow_steps(e, K + L) != 0) return -1;
        for (int s = K; s < K + L; s++) {
            int keep = prefix && s < e->rounds_prefix;   /* the prefix pass filled these */
            e->st_msgs[s] = (keep ? e->st_msgs[s] : 0) + ss->msgs;
            e->st_bytes[s] = (keep ? e->st_bytes[s] : 0) + (uint64_t)ss->bytes;
            e->st_red[s] = keep && e->st_red[s] > ss->red ? e->st_red[s] : ss->red;
            memcpy(e->st_max + (size_t)s * TC_NET_MAX_TIERS, mx, sizeof mx);
        }
    }
    res->messages += ss->msgs * L;
    res->net_messages += ss->netm * L;
    e->sent_all += ss->bytes * (tc_u128)L;
    res->intra_bytes += (uint64_t)(ss->intra * (tc_u128)L);
    res->ops += ss->ops * L;
    return 0;
}

/* Every rank's shift rounds add the same bytes sent and reduced. */
static void finish(shift_state *S, int Kend)
{
    sim_eng *e = S->e;
    tc_sim_result *res = e->res;
    tc_u128 sent = 0, red = 0;
    uint64_t esz = (uint64_t)e->prm->esize;
    for (int i = 0; i < S->nent; i++) {
        const shift_entry *en = &S->ent[i];
        for (int j = 0; j < en->nsend; j++) sent += (tc_u128)(uint64_t)en->cnt[j] * esz * (uint64_t)en->repeat;
        red += (tc_u128)(uint64_t)en->reduced * esz * (uint64_t)en->repeat;
    }
    if (Kend > res->rounds) res->rounds = Kend;
    res->bytes = (uint64_t)e->sent_all;
    res->sent_max += (uint64_t)sent;
    res->reduced_max += (uint64_t)red;
    res->reduced_total += (uint64_t)(red * (tc_u128)S->p);
    if (res->reduced_rank < 0 && red) res->reduced_rank = 0;   /* every rank alike: the first */
    res->step_passes = 1;
}

static int walk_steps(shift_state *S)
{
    int Kend = 0;
    for (int k = 0; k < S->ncls; k++)
        if (S->cls[k].off + S->total_rounds > Kend) Kend = (int)(S->cls[k].off + S->total_rounds);
    for (int K = 0; K < Kend;) {
        step_sums ss;
        memset(&ss, 0, sizeof ss);
        int L = step_run(S, K, Kend);
        step_loads(S, K, &ss);
        if (close_steps(S, K, L, &ss) != 0) return -1;
        advance(S, K, L);
        K += L;
    }
    finish(S, Kend);
    return 0;
}

/* ---- the prefix ------------------------------------------------------------------ */

/* The generator pass over the prefix rounds, recording each rank's count. */
static int run_prefix(shift_state *S)
{
    sim_eng *e = S->e;
    tc_algo pre = *e->al;
    const tc_algo *al = e->al;
    S->rounds_of = malloc((size_t)S->p * sizeof *S->rounds_of);
    if (!S->rounds_of) return eng_fail(e, "out of memory (%d ranks' round counts)", S->p);
    pre.generate = al->shift_prefix;
    e->al = &pre;
    e->rank_rounds = S->rounds_of;
    size_t budget = e->sl.budget;
    e->sl.budget = SIZE_MAX;   /* a prefix is a few rounds: its columns stay */
    int rc = eng_run_pass(e);
    e->sl.budget = budget;
    e->rank_rounds = NULL;
    e->al = al;
    if (rc == 0 && (e->sl.overflow || e->sl.oom)) rc = eng_fail(e, "out of memory (per-step loads of the prefix)");
    e->rounds_prefix = e->res->rounds;
    return rc;
}

static void state_free(shift_state *S)
{
    for (int i = 0; i < S->nent; i++) {
        free(S->ent[i].shift);
        free(S->ent[i].cnt);
    }
    free(S->ent);
    runs_free(&S->all);
    for (int k = 0; k < S->ncls; k++) runs_free(&S->cls[k].runs);
    free(S->cls);
    free(S->rl);
    free(S->touched);
    free(S->rounds_of);
}

int shift_run(sim_eng *e)
{
    if (!e->al->shift || e->prm->check || e->prm->generic) return 0;
    shift_state S;
    memset(&S, 0, sizeof S);
    S.e = e;
    S.p = e->pl->p;
    tc_args a = e->args;
    a.rank = 0;
    int told = e->al->shift(&a, e->pl->topo, sink, &S);
    int rc = told == 0 && S.cont ? eng_fail(e, "%s: the shift form ends inside a round", e->al->name) : 0;
    size_t nl = (size_t)(e->net->nlinks ? e->net->nlinks : 1);
    if (told == 0 && rc == 0) {
        S.rl = calloc(nl, sizeof *S.rl);
        S.touched = malloc(nl * sizeof *S.touched);
        if (!S.rl || !S.touched) rc = eng_fail(e, "out of memory (%d links)", e->net->nlinks);
        if (rc == 0 && e->al->shift_prefix) rc = run_prefix(&S);
        if (rc == 0) rc = build_classes(&S);
        if (rc == 0) rc = walk_steps(&S);
    }
    state_free(&S);
    if (told == TC_SHIFT_NONE && e->res->status != TC_SIM_ERROR) return 0;
    if (told != 0 && e->res->status != TC_SIM_ERROR) return eng_fail(e, "%s: the shift form failed", e->al->name);
    return rc != 0 || e->res->status == TC_SIM_ERROR ? -1 : 1;
}
