/* Every catalog variant's cost function (tc_algo.cost) against the schedule
 * its generator builds.  MPI-free.
 *
 * For every collective, every variant with a cost function, on one-node
 * layouts of 2 to 8 ranks, several nodes (equal and unequal ranks per node,
 * several sockets per node, non-power-of-two process counts) and three
 * sizes, rank by rank the generated schedules are walked:
 *   - traffic: the bytes the SENDs carry across each level (same socket,
 *     same node, another node), all ranks together, must equal the cost
 *     function's level totals (tc_cost.total) exactly (relative 1e-9) where
 *     the function says they are exact; where it marks them as estimates
 *     (tc_cost.total_approx: the families whose traffic depends on group
 *     layouts the formula does not follow), within a factor of 2 per level,
 *     or both below 1 % of the call's total;
 *   - time: an alpha-beta replay of the schedules (each rank's rounds in
 *     order; a round posts its sends one after another at its start, ends
 *     when its sends are out and its receives are in, then reduces at gamma
 *     and copies at the socket's beta; messages leaving a node share the
 *     node's link in the order they are posted) is compared with the price
 *     of the cost (tc_model_price): their ratio must lie within [1/2, 2]
 *     for a flat entry, [1/3, 3] for a family's variant (the cost prices
 *     whole steps at their slowest pair and ignores most local copies; the
 *     replay lets ranks run ahead; the families' formulas follow the
 *     papers' bounds rather than every step).  The largest ratios seen are
 *     printed.  Entries whose consumer spreads the root's counts first
 *     (TC_REQ_ROOT_COUNTS) start their replay after that, priced
 *     as their cost functions price it (rv_counts_cost).
 * Sizes are multiples of 840 elements (every block division of these p is
 * even), so every block has the same size and the traffic is determined.
 * Variants without a cost function are listed, per collective, so that an
 * entry added without one is visible; natives have no schedule.  Ends with
 * "N passed, M failed". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/catalog.h"
#include "algo/rootedv.h"
#include "coll/desc.h"
#include "select/cost_model.h"
#include "sched/sched.h"
#include "topo/topo.h"
#include "../common/harness.h"
#include "../common/topo_spec.h"

typedef struct layout {
    const char *spec;
    int p;
} layout;

static const layout layouts[] = {
    { "1x2", 2 }, { "1x3", 3 }, { "1x4", 4 }, { "1x5", 5 }, { "1x6", 6 }, { "1x7", 7 }, { "1x8", 8 },
    { "1x2x3", 6 },   /* one node, two sockets */
    { "2x2", 4 }, { "2x3", 6 }, { "3x2", 6 }, { "2x4", 8 }, { "3,2", 5 }, { "2,3,2", 7 },
    { "2x2x2", 8 },   /* two nodes of two sockets */
};
enum { NLAYOUTS = sizeof layouts / sizeof layouts[0] };
#define APPROX 2.0        /* the traffic estimates' tolerance: a factor */
#define FLAT_TIME 2.0     /* cost / replay of a flat entry within [1/2, 2] */
#define FAMILY_TIME 3.0   /* of a family's variant within [1/3, 3] */
static const int64_t sizes[] = { 840, 8 * 840, 64 * 840 };

static double worst_ratio = 1, worst_inv = 1;
static char worst_what[160] = "", worst_inv_what[160] = "";

/* ---- the schedules ---------------------------------------------------------- */

typedef struct rank_sched {
    tc_sched s;
    int ok;
} rank_sched;

static int generate_all(const tc_algo *al, const tc_args *proto, const tc_topo *t, rank_sched *rs)
{
    for (int r = 0; r < t->size; r++) {
        tc_args a = *proto;
        a.rank = r;
        tc_sched_init(&rs[r].s);
        int rc = tc_algo_generate(al, &rs[r].s, &a, t);
        if (rc == 0) rc = tc_sched_finish(&rs[r].s);
        rs[r].ok = rc == 0 && !rs[r].s.err;
        if (!rs[r].ok) return -1;
    }
    return 0;
}

static void free_all(rank_sched *rs, int p)
{
    for (int r = 0; r < p; r++) tc_sched_free(&rs[r].s);
}

/* Bytes of a region (every buffer has 1-byte elements here). */
static double reg_bytes(const tc_region *g) { return (double)g->cnt; }

/* SEND bytes across each level, all ranks. */
static void count_traffic(const rank_sched *rs, const tc_topo *t, double tot[TC_NLEVELS])
{
    for (int l = 0; l < TC_NLEVELS; l++) tot[l] = 0;
    for (int r = 0; r < t->size; r++)
        for (int i = 0; i < rs[r].s.nops; i++) {
            const tc_op *o = &rs[r].s.ops[i];
            if (o->kind != TC_OP_SEND) continue;
            int l = t->sock_of[r] == t->sock_of[o->peer] ? TC_LVL_SOCKET
                    : t->node_of[r] == t->node_of[o->peer] ? TC_LVL_NODE : TC_LVL_NET;
            tot[l] += reg_bytes(&o->a);
        }
}

/* ---- the replay --------------------------------------------------------------- */

/* Messages from s to d in posting order: arrival times. */
typedef struct mq {
    double *at;
    int n, cap, taken;
} mq;

static int mq_push(mq *q, double t)
{
    if (q->n == q->cap) {
        int cap = q->cap ? 2 * q->cap : 16;
        double *x = realloc(q->at, (size_t)cap * sizeof *x);
        if (!x) return -1;
        q->at = x;
        q->cap = cap;
    }
    q->at[q->n++] = t;
    return 0;
}

static int level(const tc_topo *t, int i, int j)
{
    return t->sock_of[i] == t->sock_of[j] ? TC_LVL_SOCKET : t->node_of[i] == t->node_of[j] ? TC_LVL_NODE : TC_LVL_NET;
}

/* Seconds until the last rank is done; negative when the schedules do not
 * match up (a receive without its send). */
static double replay(const tc_model_params *m, const rank_sched *rs, const tc_topo *t)
{
    int p = t->size;
    mq *q = calloc((size_t)p * p, sizeof *q);
    double *clk = calloc((size_t)p, sizeof *clk), *sent = calloc((size_t)p, sizeof *sent);
    double *link = calloc((size_t)t->nnodes, sizeof *link);
    int *round = calloc((size_t)p, sizeof *round), *posted = calloc((size_t)p, sizeof *posted);
    double end = -1;
    if (!q || !clk || !sent || !link || !round || !posted) goto out;
    for (;;) {
        int who = -1, done = 1;
        for (int r = 0; r < p; r++) {   /* the ready rank with the earliest clock */
            const tc_sched *s = &rs[r].s;
            if (round[r] >= s->nrounds) continue;
            done = 0;
            int ready = 1;
            if (posted[r]) {
                int seen[64] = { 0 };   /* receives from the same peer in one round: in order */
                for (int i = tc_sched_round_begin(s, round[r]); i < tc_sched_round_end(s, round[r]) && ready; i++) {
                    const tc_op *o = &s->ops[i];
                    if (o->kind != TC_OP_RECV && o->kind != TC_OP_WAIT) continue;
                    mq *x = &q[(size_t)o->peer * p + r];
                    int k = o->peer < 64 ? seen[o->peer]++ : 0;
                    if (x->taken + k >= x->n) ready = 0;
                }
            }
            if (ready && (who < 0 || clk[r] < clk[who])) who = r;
        }
        if (done) {
            end = 0;
            for (int r = 0; r < p; r++) end = clk[r] > end ? clk[r] : end;
            break;
        }
        if (who < 0) break;   /* nothing can go on */
        int r = who;
        const tc_sched *s = &rs[r].s;
        int b = tc_sched_round_begin(s, round[r]), e = tc_sched_round_end(s, round[r]);
        if (!posted[r]) {   /* post the round's sends, one after another */
            double tnow = clk[r];
            for (int i = b; i < e; i++) {
                const tc_op *o = &s->ops[i];
                if (o->kind != TC_OP_SEND && o->kind != TC_OP_SIGNAL) continue;
                int l = level(t, r, o->peer);
                double by = o->kind == TC_OP_SEND ? reg_bytes(&o->a) : 0, wire = by * m->beta[l];
                double start = tnow;
                if (l == TC_LVL_NET) {   /* the node's link, in posting order */
                    int nd = t->node_of[r];
                    if (link[nd] > start) start = link[nd];
                    link[nd] = start + wire;
                }
                tnow = start + m->alpha[l] + wire;   /* the sender injects one message at a time */
                if (mq_push(&q[(size_t)r * p + o->peer], start + m->alpha[l] + wire)) goto out;
            }
            sent[r] = tnow;
            posted[r] = 1;
            continue;
        }
        double tend = sent[r], work = 0;   /* receives in, then the local work */
        for (int i = b; i < e; i++) {
            const tc_op *o = &s->ops[i];
            if (o->kind == TC_OP_RECV || o->kind == TC_OP_WAIT) {
                mq *x = &q[(size_t)o->peer * p + r];
                double at = x->at[x->taken++];
                if (at > tend) tend = at;
            } else if (o->kind == TC_OP_REDUCE) {
                work += reg_bytes(&o->a) * m->gamma;
            } else if (o->kind == TC_OP_COPY || o->kind == TC_OP_RREAD || o->kind == TC_OP_PUBLISH ||
                       o->kind == TC_OP_COLLECT) {
                work += reg_bytes(&o->a) * m->beta[TC_LVL_SOCKET];
            }
        }
        clk[r] = tend + work;
        posted[r] = 0;
        round[r]++;
    }
out:
    if (q)
        for (size_t i = 0; i < (size_t)p * p; i++) free(q[i].at);
    free(q);
    free(clk);
    free(sent);
    free(link);
    free(round);
    free(posted);
    return end;
}

/* ---- the check ------------------------------------------------------------------ */

static int has_subcoll(const rank_sched *rs, int p)
{
    for (int r = 0; r < p; r++)
        for (int i = 0; i < rs[r].s.nops; i++)
            if (rs[r].s.ops[i].kind == TC_OP_SUBCOLL) return 1;
    return 0;
}

/* The arguments of rank 0 for coll at n bytes (1-byte elements), regular
 * counts for the v collectives. */
static void args_of(tc_args *a, topocoll_coll coll, int p, int64_t n, tc_vcounts *v, int64_t *cnt, int64_t *disp)
{
    memset(a, 0, sizeof *a);
    a->coll = coll;
    a->size = p;
    a->scount = a->rcount = n;
    a->relem_bytes = 1;
    const tc_coll_desc *d = tc_coll_desc_of(coll);
    if (d && d->arg[TC_BUF_SEND].norm_times_p) a->scount *= p;
    a->commutative = 1;
    a->node_shm = 1;
    a->cma = 1;
    if (d && d->vcounts) {
        for (int j = 0; j < p; j++) {
            cnt[j] = n;
            disp[j] = (int64_t)j * n;
        }
        v->rcounts = cnt;
        v->rdispls = disp;
        v->scounts = d->vblock ? NULL : cnt;
        v->sdispls = d->vblock ? NULL : disp;
        a->v = v;
    }
}

static int close_rel(double x, double y, double rel)
{
    return fabs(x - y) <= rel * fmax(fabs(x), fabs(y)) + 1e-9;
}

static void check_variant(const tc_model_params *m, const tc_algo *al, const layout *ly, tc_topo *t, int64_t n)
{
    tc_args a;
    tc_vcounts v;
    int64_t cnt[16], disp[16];
    args_of(&a, al->coll, ly->p, n, &v, cnt, disp);
    const char *why;
    tc_cost c;
    if (!tc_algo_accepts(al, &a, t, &why) || tc_model_cost(al, &a, t, n, &c) != 0) return;
    rank_sched *rs = calloc((size_t)ly->p, sizeof *rs);
    if (!rs) return;
    char what[160];
    snprintf(what, sizeof what, "%s %s on %s (p %d), n %lld", tc_coll_name(al->coll), al->name, ly->spec, ly->p,
             (long long)n);
    if (generate_all(al, &a, t, rs) != 0) {
        CHECK(0, "%s: the generator failed", what);
        free_all(rs, ly->p);
        free(rs);
        return;
    }
    if (has_subcoll(rs, ly->p)) {   /* member-set rounds: peers are member indices */
        CHECK(0, "%s: has a cost function but member-set rounds the check cannot count", what);
        free_all(rs, ly->p);
        free(rs);
        return;
    }
    double tot[TC_NLEVELS], all = 0;
    count_traffic(rs, t, tot);
    for (int l = 0; l < TC_NLEVELS; l++) all += tot[l];
    if (!c.total_approx) {
        for (int l = 0; l < TC_NLEVELS; l++)
            CHECK(close_rel(c.total[l], tot[l], 1e-9), "%s: %s bytes: cost %.0f, schedule %.0f", what,
                  tc_level_names[l], c.total[l], tot[l]);
    } else {   /* inside the nodes (both levels together) and over the network */
        double cx[2] = { c.total[TC_LVL_SOCKET] + c.total[TC_LVL_NODE], c.total[TC_LVL_NET] };
        double sx[2] = { tot[TC_LVL_SOCKET] + tot[TC_LVL_NODE], tot[TC_LVL_NET] };
        for (int k = 0; k < 2; k++)
            CHECK((cx[k] <= 0.01 * all && sx[k] <= 0.01 * all) || (cx[k] <= APPROX * sx[k] && sx[k] <= APPROX * cx[k]),
                  "%s: %s bytes (estimate): cost %.0f, schedule %.0f", what, k ? "network" : "intra-node", cx[k],
                  sx[k]);
    }
    double rt = replay(m, rs, t), pr = tc_model_price(m, &c);
    if (rt > 0 && (al->req & TC_REQ_ROOT_COUNTS)) {   /* the counts' spreading before the schedule */
        tc_cost pre;
        memset(&pre, 0, sizeof pre);
        rv_counts_cost(&pre, t);
        rt += tc_model_price(m, &pre);
    }
    CHECK(rt > 0, "%s: the replay found unmatched receives", what);
    if (rt > 0 && pr > 0) {
        double ratio = pr / rt;
        double tol = al->family ? FAMILY_TIME : FLAT_TIME;
        CHECK(ratio <= tol && ratio >= 1 / tol, "%s: cost %.3g s, replay %.3g s", what, pr, rt);
        if (ratio > worst_ratio) {
            worst_ratio = ratio;
            snprintf(worst_what, sizeof worst_what, "%s", what);
        }
        if (1 / ratio > worst_inv) {
            worst_inv = 1 / ratio;
            snprintf(worst_inv_what, sizeof worst_inv_what, "%s", what);
        }
    }
    free_all(rs, ly->p);
    free(rs);
}

int main(void)
{
    const tc_model_params *m = tc_model_builtin();
    tc_topo *topo[NLAYOUTS];
    if (getenv("TC_TEST_SHOW_ALL")) tc_test_counts_global.show_max = 1000000;
    for (int k = 0; k < NLAYOUTS; k++) topo[k] = tc_test_topo(layouts[k].spec, layouts[k].p);
    for (int c = 0; c < TOPOCOLL_NCOLL; c++) {
        int with = 0, nv = tc_catalog_variant_count((topocoll_coll)c);
        printf("%s without a cost function:", tc_coll_name((topocoll_coll)c));
        for (int i = 0; i < nv; i++) {
            const tc_algo *al = tc_catalog_variant_at((topocoll_coll)c, i);
            if (!al->cost) printf(" %s%s", al->name, al->generate ? "" : " (no schedule)");
            else with++;
        }
        printf("\n  (%d of %d variants with one)\n", with, nv);
        fflush(stdout);
        for (int i = 0; i < nv; i++) {
            const tc_algo *al = tc_catalog_variant_at((topocoll_coll)c, i);
            for (int k = 0; al->cost && k < NLAYOUTS; k++)
                for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
                    check_variant(m, al, &layouts[k], topo[k], sizes[s]);
        }
    }
    printf("largest cost/replay %.2f (%s); largest replay/cost %.2f (%s)\n", worst_ratio, worst_what, worst_inv,
           worst_inv_what);
    for (int k = 0; k < NLAYOUTS; k++) tc_topo_free(topo[k]);
    return tc_test_summary();
}
