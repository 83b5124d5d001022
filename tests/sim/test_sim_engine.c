/*
 * The simulator engine against link loads computed by hand (comments give
 * every route), the time model on 1-byte/s links, byte conservation (--check)
 * on random cases, broken schedules the checks must catch, re-runs over
 * windows of steps equal to one pass, placements and their errors.
 * No MPI.  Ends with "N passed, M failed".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"

#include "../common/harness.h"


/* ---- fixtures: schedules written for the tests ------------------------------------ */

/* The root sends scount elements to every other rank in one round. */
static int gen_scatter(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    if (a->rank == a->root) {
        for (int j = 0; j < a->size; j++)
            if (j != a->root) tc_sched_send(s, j, tc_reg(TC_BUF_SEND, (int64_t)j * a->scount, a->scount));
    } else {
        tc_sched_recv(s, a->root, tc_reg(TC_BUF_RECV, 0, a->rcount));
    }
    return 0;
}

/* Every rank sends to rank 0 (round 0); rank 0 reduces each (round 1). */
static int gen_reduce(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    if (a->rank != 0) {
        tc_sched_send(s, 0, tc_reg(TC_BUF_SEND, 0, a->scount));
        return 0;
    }
    tc_sched_need_tmp(s, (int64_t)a->size * a->scount);
    for (int j = 1; j < a->size; j++) tc_sched_recv(s, j, tc_reg(TC_BUF_TMP, (int64_t)j * a->scount, a->scount));
    tc_sched_round(s);
    for (int j = 1; j < a->size; j++)
        tc_sched_reduce(s, tc_reg(TC_BUF_TMP, (int64_t)j * a->scount, a->scount), tc_reg(TC_BUF_RECV, 0, a->scount));
    return 0;
}

/* Rank 0 sends to 1, which never receives. */
static int gen_unmatched(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    if (a->rank == 0) tc_sched_send(s, 1, tc_reg(TC_BUF_SEND, 0, a->scount));
    return 0;
}

static int gen_bad_peer(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    if (a->rank == 0) tc_sched_send(s, a->size, tc_reg(TC_BUF_SEND, 0, a->scount));
    return 0;
}

static int gen_fails(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)s;
    (void)t;
    return a->rank == 2 ? EINVAL : 0;
}

static const tc_algo fx_scatter = { .coll = TOPOCOLL_ALLGATHER, .name = "fx_scatter", .desc = "", .requires = "",
                                    .generate = gen_scatter };
static const tc_algo fx_reduce = { .coll = TOPOCOLL_ALLGATHER, .name = "fx_reduce", .desc = "", .requires = "",
                                   .generate = gen_reduce };
static const tc_algo fx_unmatched = { .coll = TOPOCOLL_ALLGATHER, .name = "fx_unmatched", .desc = "",
                                      .requires = "", .generate = gen_unmatched };
static const tc_algo fx_bad_peer = { .coll = TOPOCOLL_ALLGATHER, .name = "fx_bad_peer", .desc = "",
                                     .requires = "", .generate = gen_bad_peer };
static const tc_algo fx_fails = { .coll = TOPOCOLL_ALLGATHER, .name = "fx_fails", .desc = "", .requires = "",
                                  .generate = gen_fails };

/* ---- running ------------------------------------------------------------------------ */

typedef struct sim_case {
    tc_net *net;
    tc_sim_place *pl;
    tc_sim_params prm;
    tc_sim_result res;
} sim_case;

/* Runs al on spec with bytes per core; 1-byte/s links, gamma 0 unless
 * changed after; keeps links and steps; checks on. */
static int run(sim_case *c, const char *spec, const char *map, const tc_algo *al, int64_t bytes)
{
    char err[512];
    tc_args a;
    memset(c, 0, sizeof *c);
    c->net = tc_net_parse(spec, err, sizeof err);
    if (c->net) c->pl = tc_sim_place_new(c->net, 0, map, TC_SIM_LEVELS_NODE, err, sizeof err);
    if (!c->net || !c->pl || tc_sim_proto(&a, TOPOCOLL_ALLGATHER, c->pl->p, bytes, 1, 0, err, sizeof err)) {
        CHECK(0, "set-up of %s: %s", spec, err);
        return -1;
    }
    tc_sim_params_default(&c->prm);
    for (int t = 0; t < TC_NET_MAX_TIERS; t++) c->prm.bw[t] = 1;
    c->prm.gamma = 0;
    c->prm.keep_links = c->prm.keep_steps = c->prm.check = 1;
    tc_sim_run(al, &a, c->net, c->pl, &c->prm, &c->res);
    if (c->res.status != TC_SIM_OK) CHECK(0, "%s on %s: %s", al->name, spec, c->res.msg);
    return c->res.status == TC_SIM_OK ? 0 : -1;
}

static void done(sim_case *c)
{
    tc_sim_result_free(&c->res);
    tc_sim_place_free(c->pl);
    tc_net_free(c->net);
}

/* Load of the link named name ("L1 s0.n0->s0.n1"), or -1. */
static long long load_of(const sim_case *c, const char *name)
{
    char b[96];
    for (int l = 0; l < c->net->nlinks; l++)
        if (!strcmp(tc_net_link_name(c->net, l, b, sizeof b), name)) return (long long)c->res.link_load[l];
    return -1;
}

/* Every link listed has its load; every other link is idle. */
static void expect_loads(const sim_case *c, const char *what, const char *const *names, const long long *loads, int n)
{
    long long listed = 0, all = 0;
    for (int i = 0; i < n; i++) {
        long long v = load_of(c, names[i]);
        CHECK(v == loads[i], "%s: %s carries %lld, expected %lld", what, names[i], v, loads[i]);
        listed += loads[i];
    }
    for (int l = 0; l < c->net->nlinks; l++) all += (long long)c->res.link_load[l];
    CHECK(all == listed, "%s: %lld bytes on links, %lld on the listed ones", what, all, listed);
}

static void expect_tier(const sim_case *c, const char *what, int t, long long used, long long mn, long long mx,
                        long long tot)
{
    const tc_sim_tier *s = &c->res.tier[t];
    CHECK(s->used == used && (long long)s->min == mn && (long long)s->max == mx && (long long)s->total == tot,
          "%s tier %s: used %lld min %llu max %llu total %llu, expected %lld %lld %lld %lld", what,
          c->net->tier[t].name, (long long)s->used, (unsigned long long)s->min, (unsigned long long)s->max,
          (unsigned long long)s->total, used, mn, mx, tot);
}

static const tc_algo *catalog(const char *name)
{
    const tc_algo *al = tc_catalog_find(TOPOCOLL_ALLGATHER, name);
    if (!al) CHECK(0, "allgather '%s' is in the catalog", name);
    return al;
}

/* ---- hand-computed cases ------------------------------------------------------------ */

/* twotier 2x2x1: nodes n0 n1 (S0), n2 n3 (S1).  L2 S0->S1 leaves s0.n1
 * (1 mod 2), lands s1.n0 (0 mod 2); L2 S1->S0 leaves s1.n0, lands s0.n1.
 * linear allgather, 1 byte: routes
 *   n0->n1 L1; n0->n2 L1 s0 0->1, L2; n0->n3 L1, L2, L1 s1 0->1;
 *   n1->n0 L1; n1->n2 L2; n1->n3 L2, L1 s1 0->1;
 *   n2->n3 L1; n2->n0 L2, L1 s0 1->0; n2->n1 L2;
 *   n3->n2 L1; n3->n0 L1 s1 1->0, L2, L1 s0 1->0; n3->n1 L1 s1 1->0, L2.
 * Each L1 link: 3 bytes; each L2 link: 4 bytes. */
static void test_twotier_2x2x1(void)
{
    static const char *const names[] = { "L1 s0.n0->s0.n1", "L1 s0.n1->s0.n0", "L1 s1.n0->s1.n1",
                                         "L1 s1.n1->s1.n0", "L2 s0.n1->s1.n0", "L2 s1.n0->s0.n1" };
    static const long long linear[] = { 3, 3, 3, 3, 4, 4 };
    static const long long ring[] = { 3, 3, 3, 3, 3, 3 };
    sim_case c;
    if (run(&c, "twotier:2x2x1", NULL, catalog("linear"), 1) == 0) {
        expect_loads(&c, "2x2x1 linear", names, linear, 6);
        expect_tier(&c, "2x2x1 linear", 0, 4, 3, 3, 12);
        expect_tier(&c, "2x2x1 linear", 1, 2, 4, 4, 8);
        CHECK(c.res.routed == 20 && c.res.messages == 12 && c.res.intra_bytes == 0 && c.res.rounds == 1,
              "2x2x1 linear: 20 routed bytes, 12 messages, 1 step");
        CHECK(c.res.t_load == 4 && c.res.t_steps == 4, "2x2x1 linear: both estimates 4 s at 1 B/s (got %g, %g)",
              c.res.t_load, c.res.t_steps);
    }
    done(&c);
    /* ring: flows n0->n1, n1->n2, n2->n3, n3->n0 in each of 3 steps, 1 byte */
    if (run(&c, "twotier:2x2x1", NULL, catalog("ring"), 1) == 0) {
        expect_loads(&c, "2x2x1 ring", names, ring, 6);
        CHECK(c.res.rounds == 3 && c.res.nsteps == 3, "2x2x1 ring: 3 steps");
        for (int s = 0; s < c.res.nsteps; s++)
            CHECK(c.res.steps[s].max[0] == 1 && c.res.steps[s].max[1] == 1 && c.res.steps[s].messages == 4 &&
                  c.res.steps[s].bytes == 4, "2x2x1 ring step %d: 4 messages, busiest L1 and L2 links 1 byte", s);
        CHECK(c.res.t_load == 3 && c.res.t_steps == 3, "2x2x1 ring: total-load 3 s, step-by-step 3 s (got %g, %g)",
              c.res.t_load, c.res.t_steps);
    }
    done(&c);
}

/* twotier 3x2x2 (nodes n0..n5, 2 cores each).  L2 S0->S1 leaves s0.n1,
 * lands s1.n0; S0->S2 leaves s0.n0, lands s2.n0; S1->S0 s1.n0 -> s0.n1;
 * S1->S2 s1.n0 -> s2.n1; S2->S0 s2.n0 -> s0.n0; S2->S1 s2.n1 -> s1.n0.
 * linear allgather, 8 bytes: every node pair exchanges 2 x 2 x 8 = 32 bytes.
 * An L2 link carries its 4 node pairs: 128.  An L1 link carries 5 pairs
 * (160), e.g. s0.n0->s0.n1: n0->n1, n0->n2, n0->n3 (to gateway n1),
 * n4->n1, n5->n1 (landing n0 from S2).  Inside nodes: 12 ranks x 8 bytes. */
static void test_twotier_3x2x2_linear(void)
{
    sim_case c;
    if (run(&c, "twotier:3x2x2", NULL, catalog("linear"), 8) == 0) {
        expect_tier(&c, "3x2x2 linear", 0, 6, 160, 160, 960);
        expect_tier(&c, "3x2x2 linear", 1, 6, 128, 128, 768);
        CHECK(c.res.intra_bytes == 96 && c.res.bytes == 12 * 11 * 8, "3x2x2 linear: 96 bytes inside nodes of %llu",
              (unsigned long long)c.res.bytes);
    }
    done(&c);
}

/* fx_scatter from rank 0 (node n0) on twotier 3x2x2, 1 byte: rank 1 is on
 * n0 (inside the node); 2 bytes to each other node:
 *   n1: L1 s0.n0->s0.n1;  n2: L1 s0.n0->s0.n1, L2 s0.n1->s1.n0;
 *   n3: ... and L1 s1.n0->s1.n1;  n4: L2 s0.n0->s2.n0 (n0 is S2's gateway);
 *   n5: L2 s0.n0->s2.n0, L1 s2.n0->s2.n1. */
static void test_twotier_scatter(void)
{
    static const char *const names[] = { "L1 s0.n0->s0.n1", "L2 s0.n1->s1.n0", "L1 s1.n0->s1.n1",
                                         "L2 s0.n0->s2.n0", "L1 s2.n0->s2.n1" };
    static const long long loads[] = { 6, 4, 2, 4, 2 };
    sim_case c;
    if (run(&c, "twotier:3x2x2", NULL, &fx_scatter, 1) == 0) {
        expect_loads(&c, "3x2x2 scatter", names, loads, 5);
        expect_tier(&c, "3x2x2 scatter", 0, 3, 2, 6, 10);
        expect_tier(&c, "3x2x2 scatter", 1, 2, 4, 4, 8);
        CHECK(c.res.intra_bytes == 1 && c.res.routed == 18 && c.res.flows == 5,
              "3x2x2 scatter: 1 byte inside n0, 18 routed, 5 flows (got %llu, %llu, %lld)",
              (unsigned long long)c.res.intra_bytes, (unsigned long long)c.res.routed, (long long)c.res.flows);
    }
    done(&c);
}

/* dragonfly g=3,a=2,h=1 (t=1, c=1): nodes g0.r0 g0.r1 g1.r0 g1.r1 g2.r0
 * g2.r1 (= routers).  Global ports (consecutive): G0 -> G1 on r0, G0 -> G2
 * on r1; G1 -> G0 on r0, G1 -> G2 on r1; G2 -> G0 on r0, G2 -> G1 on r1.
 * fx_scatter from node 0, 1 byte each:
 *   g0.r1: inject, local g0 r0->r1, eject
 *   g1.r0: inject, global g0.r0->g1.r0, eject
 *   g1.r1: inject, global g0.r0->g1.r0, local g1 r0->r1, eject
 *   g2.r0: inject, local g0 r0->r1, global g0.r1->g2.r0, eject
 *   g2.r1: inject, local g0 r0->r1, global g0.r1->g2.r0, local g2 r0->r1, eject */
static void test_dragonfly_scatter(void)
{
    static const char *const names[] = { "term g0.r0.t0->g0.r0", "term g0.r1->g0.r1.t0", "term g1.r0->g1.r0.t0",
                                         "term g1.r1->g1.r1.t0", "term g2.r0->g2.r0.t0", "term g2.r1->g2.r1.t0",
                                         "local g0.r0->g0.r1", "local g1.r0->g1.r1", "local g2.r0->g2.r1",
                                         "global g0.r0->g1.r0", "global g0.r1->g2.r0" };
    static const long long loads[] = { 5, 1, 1, 1, 1, 1, 3, 1, 1, 2, 2 };
    sim_case c;
    if (run(&c, "dragonfly:g=3,a=2,h=1", NULL, &fx_scatter, 1) == 0) {
        expect_loads(&c, "dragonfly scatter", names, loads, 11);
        expect_tier(&c, "dragonfly scatter", 0, 6, 1, 5, 10);
        expect_tier(&c, "dragonfly scatter", 1, 3, 1, 3, 5);
        expect_tier(&c, "dragonfly scatter", 2, 2, 2, 2, 4);
        CHECK(c.res.routed == 19 && c.res.t_load == 5 && c.res.t_load_tier == 0,
              "dragonfly scatter: 19 routed bytes, bound by the injection link (5 s)");
    }
    done(&c);
}

/* fattree leaves=2,nodes=2,spines=2: n0 n1 on leaf0, n2 n3 on leaf1.
 * fx_scatter from n0: n1 up/down; n2 via spine 2 mod 2 = 0; n3 via spine 1. */
static void test_indirect_scatter(void)
{
    static const char *const names[] = { "host leaf0.n0->leaf0", "host leaf0->leaf0.n1", "host leaf1->leaf1.n0",
                                         "host leaf1->leaf1.n1", "spine leaf0->spine0", "spine spine0->leaf1",
                                         "spine leaf0->spine1", "spine spine1->leaf1" };
    static const long long loads[] = { 3, 1, 1, 1, 1, 1, 1, 1 };
    sim_case c;
    if (run(&c, "fattree:leaves=2,nodes=2,spines=2", NULL, &fx_scatter, 1) == 0) {
        expect_loads(&c, "fattree scatter", names, loads, 8);
        expect_tier(&c, "fattree scatter", 0, 4, 1, 3, 6);
        expect_tier(&c, "fattree scatter", 1, 4, 1, 1, 4);
    }
    done(&c);
    if (run(&c, "switch:nodes=4,c=2", NULL, &fx_scatter, 5) == 0) {
        /* rank 1 shares node 0; 10 bytes to each of nodes 1..3 */
        expect_tier(&c, "switch scatter", 0, 4, 10, 30, 60);
        CHECK(c.res.intra_bytes == 5, "switch scatter: 5 bytes inside node 0");
    }
    done(&c);
}

/* fx_reduce on twotier 2x2x1, 4 bytes, gamma 1 s/B: flows n1->n0 (L1 s0
 * 1->0), n2->n0 (L2 s1.n0->s0.n1, L1 s0 1->0), n3->n0 (L1 s1 1->0, L2, L1 s0
 * 1->0): busiest link L1 s0.n1->s0.n0 with 12 bytes; rank 0 reduces 12
 * bytes in step 1.  total-load = 12 + 12; step-by-step = 12 + 12. */
static void test_reduce_gamma(void)
{
    char err[256];
    tc_args a;
    sim_case c;
    memset(&c, 0, sizeof c);
    c.net = tc_net_parse("twotier:2x2x1", err, sizeof err);
    c.pl = c.net ? tc_sim_place_new(c.net, 0, NULL, TC_SIM_LEVELS_NODE, err, sizeof err) : NULL;
    if (!c.pl || tc_sim_proto(&a, TOPOCOLL_ALLGATHER, 4, 4, 1, 0, err, sizeof err)) {
        CHECK(0, "reduce set-up: %s", err);
        done(&c);
        return;
    }
    tc_sim_params_default(&c.prm);
    c.prm.bw[0] = c.prm.bw[1] = 1;
    c.prm.gamma = 1;
    c.prm.keep_steps = c.prm.check = c.prm.keep_links = 1;
    CHECK(tc_sim_run(&fx_reduce, &a, c.net, c.pl, &c.prm, &c.res) == TC_SIM_OK, "reduce runs: %s", c.res.msg);
    CHECK(load_of(&c, "L1 s0.n1->s0.n0") == 12 && load_of(&c, "L2 s1.n0->s0.n1") == 8 &&
          load_of(&c, "L1 s1.n1->s1.n0") == 4, "reduce: loads 12 / 8 / 4");
    CHECK(c.res.reduced_max == 12 && c.res.reduced_rank == 0 && c.res.reduced_total == 12,
          "reduce: rank 0 reduces 12 bytes");
    CHECK(c.res.t_load == 24 && c.res.t_steps == 24, "reduce: estimates 24 s and 24 s (got %g, %g)", c.res.t_load,
          c.res.t_steps);
    CHECK(c.res.nsteps == 2 && c.res.steps[1].reduced == 12 && c.res.steps[0].max[0] == 12 &&
          c.res.steps[1].max[0] == 0, "reduce: step 0 moves 12 bytes on L1, step 1 reduces 12");
    done(&c);
}

/* ---- windows of steps ------------------------------------------------------------- */

static void test_windows(void)
{
    sim_case one, many;
    if (run(&one, "twotier:4x4x2", NULL, catalog("ring"), 3) != 0) {
        done(&one);
        return;
    }
    char err[256];
    tc_args a;
    memset(&many, 0, sizeof many);
    many.net = tc_net_parse("twotier:4x4x2", err, sizeof err);
    many.pl = tc_sim_place_new(many.net, 0, NULL, TC_SIM_LEVELS_NODE, err, sizeof err);
    tc_sim_proto(&a, TOPOCOLL_ALLGATHER, many.pl->p, 3, 1, 0, err, sizeof err);
    many.prm = one.prm;
    many.prm.step_mem = 200;  /* a few steps of 32 bytes x used links at a time */
    tc_sim_run(catalog("ring"), &a, many.net, many.pl, &many.prm, &many.res);
    CHECK(many.res.status == TC_SIM_OK, "windows: runs (%s)", many.res.msg);
    CHECK(many.res.step_passes > 2 && one.res.step_passes == 1, "windows: %d passes instead of 1",
          many.res.step_passes);
    CHECK(many.res.t_steps == one.res.t_steps && many.res.t_load == one.res.t_load,
          "windows: same estimates (%g vs %g)", many.res.t_steps, one.res.t_steps);
    int same = many.res.nsteps == one.res.nsteps;
    for (int s = 0; same && s < one.res.nsteps; s++) same = !memcmp(&one.res.steps[s], &many.res.steps[s], sizeof(tc_sim_step));
    CHECK(same, "windows: identical step tables (%d steps)", one.res.nsteps);
    done(&one);
    done(&many);
}

/* ---- conservation on random cases ---------------------------------------------------- */

static unsigned long long rng_state = 12345;
static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((rng_state >> 33) % n);
}

/* Link statistics equal (the step-by-step part aside). */
static int same_tiers(const tc_sim_result *x, const tc_sim_result *y)
{
    for (int t = 0; t < x->ntiers; t++)
        if (x->tier[t].used != y->tier[t].used || x->tier[t].min != y->tier[t].min ||
            x->tier[t].max != y->tier[t].max || x->tier[t].total != y->tier[t].total ||
            x->tier[t].t_load != y->tier[t].t_load)
            return 0;
    return x->ntiers == y->ntiers;
}

/* Step tables equal. */
static int same_steps(const tc_sim_result *x, const tc_sim_result *y)
{
    if (x->nsteps != y->nsteps || x->t_steps != y->t_steps) return 0;
    for (int s = 0; s < x->nsteps; s++)
        if (memcmp(&x->steps[s], &y->steps[s], sizeof(tc_sim_step))) return 0;
    return 1;
}

static const topocoll_coll colls[] = { TOPOCOLL_ALLGATHER, TOPOCOLL_BCAST, TOPOCOLL_SCATTER,
                                       TOPOCOLL_GATHER, TOPOCOLL_REDUCE, TOPOCOLL_REDUCE_SCATTER_BLOCK };
/* >= 0: the random cases take this collective (the allreduce cases, run last
 * so that the earlier cases keep their random sequence). */
static int g_only_coll = -1;

/* Everything but the routes counted (flows) and the time spent. */
static int same_result(const tc_sim_result *x, const tc_sim_result *y, int nlinks)
{
    return x->status == y->status && x->rounds == y->rounds && x->ops == y->ops && x->messages == y->messages &&
           x->net_messages == y->net_messages && x->bytes == y->bytes && x->intra_bytes == y->intra_bytes &&
           x->routed == y->routed && x->sent_max == y->sent_max && x->reduced_max == y->reduced_max &&
           x->reduced_rank == y->reduced_rank && x->reduced_total == y->reduced_total && same_tiers(x, y) &&
           x->t_load == y->t_load && x->t_load_tier == y->t_load_tier && x->t_steps == y->t_steps &&
           same_steps(x, y) && x->link_load && y->link_load &&
           !memcmp(x->link_load, y->link_load, (size_t)nlinks * sizeof *x->link_load);
}

/* The shift-form fast path against the generator passes (ref, without
 * --check: the checks count the receives among the ops), with and without
 * the step estimate. */
static void compare_shift(int i, const tc_algo *al, const tc_args *a, const tc_net *net, const tc_sim_place *pl,
                          tc_sim_params prm, const tc_sim_result *ref_checked)
{
    tc_sim_result ref, fast;
    prm.check = 0;
    prm.chunk_ops = 0;
    for (int steps = 0; steps < 2; steps++) {
        prm.steps = steps;
        prm.generic = 1;
        tc_sim_run(al, a, net, pl, &prm, &ref);
        prm.generic = 0;
        tc_sim_run(al, a, net, pl, &prm, &fast);
        CHECK(ref.status == TC_SIM_OK && same_result(&fast, &ref, net->nlinks) &&
              same_tiers(&ref, ref_checked) && ref.rounds == ref_checked->rounds,
              "case %d: %s %s in shift form (steps %d): the generators' result (%s)", i,
              tc_coll_name(al->coll), al->name, steps, fast.msg);
        tc_sim_result_free(&ref);
        tc_sim_result_free(&fast);
    }
}

/* Every algorithm with a shift form, on networks and placements where the
 * runs of ranks per node are long, short and uneven, at several sizes. */
static void test_shift_forms(void)
{
    static const char *const specs[] = { "twotier:4x3x2", "twotier:3x2x5", "dragonfly:g=5,a=2,h=2,t=2,c=3",
                                         "switch:nodes=7,c=1", "fattree:leaves=3,nodes=2,spines=2,c=4" };
    static const char *const maps[] = { "", "cyclic", "" };   /* 2: in order, one rank short */
    int n = 0;
    for (int c = 0; c < TOPOCOLL_NCOLL; c++)
        for (int k = 0; k < tc_catalog_variant_count((topocoll_coll)c); k++) {
            const tc_algo *al = tc_catalog_variant_at((topocoll_coll)c, k);
            if (!al->shift) continue;
            for (int sp = 0; sp < 5; sp++)
                for (int m = 0; m < 3; m++) {
                    char err[512], map[64] = "";
                    tc_net *net = tc_net_parse(specs[sp], err, sizeof err);
                    if (m) snprintf(map, sizeof map, "%dx%d/%s", net->nnodes, net->cpn, maps[m]);
                    tc_sim_place *pl = tc_sim_place_new(net, m == 2 ? net->nnodes * net->cpn - 1 : 0,
                                                        m == 2 ? "" : map, TC_SIM_LEVELS_NODE, err, sizeof err);
                    tc_args a;
                    tc_sim_params prm;
                    tc_sim_result ref;
                    tc_sim_params_default(&prm);
                    prm.esize = 1 + sp;
                    prm.keep_links = prm.keep_steps = 1;
                    prm.check = 1;
                    /* a broadcast's pieces and a ring allreduce's blocks are equal (their
                     * shift forms) when p divides the count */
                    int by_p = (c == TOPOCOLL_BCAST || c == TOPOCOLL_ALLREDUCE) && m != 1 && pl;
                    int64_t count = (1 + 97 * m) * (by_p ? pl->p : 1);
                    if (!pl || tc_sim_proto(&a, (topocoll_coll)c, pl->p, (int64_t)prm.esize * count, prm.esize, sp % pl->p,
                                            err, sizeof err)) {
                        CHECK(0, "shift set-up %s: %s", specs[sp], err);
                    } else {
                        a.commutative = 1;
                        tc_sim_run(al, &a, net, pl, &prm, &ref);
                        if (ref.status == TC_SIM_OK) {
                            compare_shift(1000 + n, al, &a, net, pl, prm, &ref);
                            n++;
                        }
                        tc_sim_result_free(&ref);
                    }
                    tc_sim_place_free(pl);
                    tc_net_free(net);
                }
        }
    CHECK(n >= 6 * 15, "shift forms: %d cases compared (allgather ring and linear, reduce-scatter and alltoall "
          "pairwise, scatter_allgather, allreduce ring: 6 x 15 expected)", n);
}

/* Runs a variant of a case and compares it with the reference res:
 * total-only (aggregates over rounds and ranks of a node: same loads), and
 * streamed through a 2-op buffer without the checks (the generators drop
 * receives and copies, every op drains: same loads and step table). */
static void compare_variants(int i, const tc_algo *al, const tc_args *a, const tc_net *net,
                             const tc_sim_place *pl, tc_sim_params prm, const tc_sim_result *res)
{
    tc_sim_result tot, chunk;
    prm.steps = 0;
    tc_sim_run(al, a, net, pl, &prm, &tot);
    CHECK(tot.status == TC_SIM_OK && tot.link_load &&
          !memcmp(tot.link_load, res->link_load, (size_t)net->nlinks * sizeof *tot.link_load) &&
          same_tiers(&tot, res) && tot.t_load == res->t_load && tot.t_steps < 0 && tot.flows <= res->flows &&
          tot.bytes == res->bytes && tot.reduced_max == res->reduced_max,
          "random case %d: total-only run has the same loads (%s)", i, tot.msg);
    prm.steps = 1;
    prm.check = 0;
    prm.chunk_ops = 2;
    prm.generic = 1;
    tc_sim_run(al, a, net, pl, &prm, &chunk);
    CHECK(chunk.status == TC_SIM_OK && chunk.link_load &&
          !memcmp(chunk.link_load, res->link_load, (size_t)net->nlinks * sizeof *chunk.link_load) &&
          same_tiers(&chunk, res) && same_steps(&chunk, res) && chunk.rounds == res->rounds &&
          chunk.messages == res->messages && chunk.bytes == res->bytes && chunk.flows == res->flows &&
          chunk.reduced_max == res->reduced_max && chunk.reduced_rank == res->reduced_rank &&
          chunk.sent_max == res->sent_max,
          "random case %d: streamed in 2-op chunks without receives: same result (%s)", i, chunk.msg);
    tc_sim_result_free(&tot);
    tc_sim_result_free(&chunk);
    if (al->shift) compare_shift(i, al, a, net, pl, prm, res);
}

static void random_case(int i)
{
    static const char *const specs[] = { "twotier:3x2x2", "twotier:4x3x2", "twotier:2x4x3", "twotier:5x2x1",
                                         "dragonfly:g=4,a=2,h=2,t=2,c=2", "dragonfly:g=5,a=2,h=2,t=1,c=3,arr=roundrobin",
                                         "switch:nodes=6,c=2", "fattree:leaves=3,nodes=2,spines=2,c=2" };
    char err[512], map[64] = "";
    const char *spec = specs[rnd(8)];
    tc_net *net = tc_net_parse(spec, err, sizeof err);
    topocoll_coll coll = g_only_coll >= 0 ? (topocoll_coll)g_only_coll : colls[rnd(6)];
    int ncat = tc_catalog_variant_count(coll);
    const tc_algo *al = tc_catalog_variant_at(coll, (int)rnd((unsigned)ncat));
    int mapping = (int)rnd(3), levels = (int)rnd(2), esize = 1 << rnd(4);
    if (!net || !al) {
        CHECK(0, "random case %d: %s", i, err);
        tc_net_free(net);
        return;
    }
    if (mapping && levels == TC_SIM_LEVELS_NODE)
        snprintf(map, sizeof map, "%dx%d/%s", net->nnodes, net->cpn, mapping == 1 ? "cyclic" : "random:7");
    else if (mapping)
        snprintf(map, sizeof map, "%dx%dx%d/%s", net->ngroups, net->nnodes / net->ngroups, net->cpn,
                 mapping == 1 ? "cyclic" : "random:7");
    tc_sim_place *pl = tc_sim_place_new(net, 0, map, levels, err, sizeof err);
    tc_args a;
    tc_sim_params prm;
    tc_sim_result res;
    memset(&res, 0, sizeof res);
    if (!pl || tc_sim_proto(&a, coll, pl->p, (int64_t)esize * (1 + rnd(3000)), esize, (int)rnd(pl ? (unsigned)pl->p : 1),
                            err, sizeof err)) {
        CHECK(0, "random case %d set-up: %s", i, err);
    } else {
        tc_sim_params_default(&prm);
        prm.esize = esize;
        prm.check = 1;
        prm.step_mem = rnd(2) ? (size_t)1 << 20 : 256;
        prm.keep_links = prm.keep_steps = 1;
        tc_sim_status st = tc_sim_run(al, &a, net, pl, &prm, &res);
        CHECK(st != TC_SIM_ERROR && (st == TC_SIM_DECLINED || (res.checked && res.check_items > 0)),
              "random case %d: %s %s on %s map '%s' levels %d: %s", i, tc_coll_name(coll), al->name, spec, map,
              levels, res.msg);
        if (st == TC_SIM_OK) compare_variants(i, al, &a, net, pl, prm, &res);
    }
    tc_sim_result_free(&res);
    tc_sim_place_free(pl);
    tc_net_free(net);
}

/* ---- what must fail ----------------------------------------------------------------- */

static void expect_error(const char *spec, const tc_algo *al, const char *needle)
{
    sim_case c;
    char err[256];
    tc_args a;
    memset(&c, 0, sizeof c);
    c.net = tc_net_parse(spec, err, sizeof err);
    c.pl = tc_sim_place_new(c.net, 0, NULL, TC_SIM_LEVELS_NODE, err, sizeof err);
    tc_sim_proto(&a, TOPOCOLL_ALLGATHER, c.pl->p, 8, 1, 0, err, sizeof err);
    tc_sim_params_default(&c.prm);
    c.prm.check = 1;
    tc_sim_status st = tc_sim_run(al, &a, c.net, c.pl, &c.prm, &c.res);
    CHECK(st == TC_SIM_ERROR && strstr(c.res.msg, needle), "%s must fail with '%s' (got %d: %s)", al->name, needle,
          (int)st, c.res.msg);
    done(&c);
}

static void test_failures(void)
{
    expect_error("twotier:2x2x1", &fx_unmatched, "check failed: rank 0 sends 8 bytes but the others receive 0 from it");
    expect_error("twotier:2x2x1", &fx_bad_peer, "send with peer 4");
    expect_error("twotier:2x2x1", &fx_fails, "rank 2: the generator failed");
    sim_case c;
    char err[256];
    tc_args a;
    memset(&c, 0, sizeof c);
    c.net = tc_net_parse("twotier:3x1x1", err, sizeof err);
    c.pl = tc_sim_place_new(c.net, 0, NULL, TC_SIM_LEVELS_NODE, err, sizeof err);
    tc_sim_proto(&a, TOPOCOLL_ALLGATHER, 3, 8, 1, 0, err, sizeof err);
    tc_sim_params_default(&c.prm);
    CHECK(tc_sim_run(catalog("neighbor_exchange"), &a, c.net, c.pl, &c.prm, &c.res) == TC_SIM_DECLINED &&
          strstr(c.res.msg, "even"), "neighbor_exchange declines 3 ranks: %s", c.res.msg);
    CHECK(tc_sim_run(catalog("native"), &a, c.net, c.pl, &c.prm, &c.res) == TC_SIM_DECLINED,
          "native has no schedule: %s", c.res.msg);
    a.size = 4;
    CHECK(tc_sim_run(catalog("ring"), &a, c.net, c.pl, &c.prm, &c.res) == TC_SIM_ERROR,
          "arguments for another rank count are refused: %s", c.res.msg);
    CHECK(tc_sim_proto(&a, TOPOCOLL_ALLGATHER, 3, 10, 4, 0, err, sizeof err) != 0 && strstr(err, "not a multiple"),
          "10 bytes of 4-byte elements refused: %s", err);
    CHECK(tc_sim_proto(&a, TOPOCOLL_ALLGATHER, 3, 8, 1, 3, err, sizeof err) != 0 && strstr(err, "root 3"),
          "root 3 of 3 ranks refused: %s", err);
    done(&c);
}

/* ---- placements -------------------------------------------------------------------- */

static void test_placement(void)
{
    sim_case c;
    /* ring on 2x2x2 (8 ranks, 2 per node): in-order, r -> r+1 stays inside the
     * node for even r: 4 of 8 messages per step, 7 steps of 1 byte */
    if (run(&c, "twotier:2x2x2", NULL, catalog("ring"), 1) == 0)
        CHECK(c.res.intra_bytes == 28, "ring in-order: 28 bytes inside nodes (got %llu)",
              (unsigned long long)c.res.intra_bytes);
    done(&c);
    if (run(&c, "twotier:2x2x2", "4x2/cyclic", catalog("ring"), 1) == 0)
        CHECK(c.res.intra_bytes == 0 && c.pl->node_of[5] == 1, "ring cyclic: nothing inside nodes, rank 5 on node 1");
    done(&c);
    char err[512];
    tc_net *n = tc_net_parse("twotier:2x2x2", err, sizeof err);
    tc_sim_place *pl = tc_sim_place_new(n, 0, "8x1", TC_SIM_LEVELS_NODE, err, sizeof err);
    CHECK(!pl && strstr(err, "map '8x1': 8 nodes but the network has 4"), "too many nodes: %s", err);
    pl = tc_sim_place_new(n, 0, "2x4", TC_SIM_LEVELS_NODE, err, sizeof err);
    CHECK(!pl && strstr(err, "node 0 holds 4 ranks but network nodes have 2 cores"), "too many ranks per node: %s", err);
    pl = tc_sim_place_new(n, 0, "2x2x2x2", TC_SIM_LEVELS_NODE, err, sizeof err);
    CHECK(!pl && strstr(err, "topology spec '2x2x2x2'"), "bad map spec: %s", err);
    pl = tc_sim_place_new(n, 9, NULL, TC_SIM_LEVELS_NODE, err, sizeof err);
    CHECK(!pl && strstr(err, "9 ranks do not fit"), "9 ranks on 8 cores: %s", err);
    /* group level: spec node = supernode, spec socket = its network node.
     * 2x2x2/cyclic deals ranks over the 2 supernodes, then over each one's
     * 2 nodes: supernode 0 gets 0 2 4 6 (nodes 0 1 0 1), 1 gets 1 3 5 7. */
    pl = tc_sim_place_new(n, 0, "2x2x2/cyclic", TC_SIM_LEVELS_GROUP, err, sizeof err);
    static const int want[8] = { 0, 2, 1, 3, 0, 2, 1, 3 };
    CHECK(pl && !memcmp(pl->node_of, want, sizeof want) && pl->levels == TC_SIM_LEVELS_GROUP,
          "levels group, 2x2x2/cyclic: nodes 0 2 1 3 0 2 1 3 (%s)", pl ? pl->desc : err);
    tc_sim_place_free(pl);
    pl = tc_sim_place_new(n, 0, "4x2x1", TC_SIM_LEVELS_GROUP, err, sizeof err);
    CHECK(!pl && strstr(err, "4 nodes but the network has 2 groups"), "group level, too many groups: %s", err);
    pl = tc_sim_place_new(n, 0, "2x4x1", TC_SIM_LEVELS_GROUP, err, sizeof err);
    CHECK(!pl && strstr(err, "node 0 has 4 sockets but network groups have 2 nodes"), "group level, too many sockets: %s",
          err);
    pl = tc_sim_place_new(n, 0, "2x1x4", TC_SIM_LEVELS_GROUP, err, sizeof err);
    CHECK(!pl && strstr(err, "socket 0 holds 4 ranks but network nodes have 2 cores"), "group level, too many ranks: %s",
          err);
    pl = tc_sim_place_new(n, 6, NULL, TC_SIM_LEVELS_GROUP, err, sizeof err);
    CHECK(pl && pl->p == 6 && pl->topo->nnodes == 2 && pl->topo->nsockets == 3 && pl->levels == TC_SIM_LEVELS_GROUP,
          "levels group: 6 ranks see 2 nodes (supernodes) of network-node sockets");
    tc_sim_place_free(pl);
    pl = tc_sim_place_new(n, 0, "4x1x2/cyclic", TC_SIM_LEVELS_NODE, err, sizeof err);
    CHECK(pl && pl->topo->nnodes == 4 && pl->node_of[1] == 1 && pl->node_of[4] == 0,
          "levels node with a spec: the spec's topology (%s)", pl ? pl->desc : err);
    tc_sim_place_free(pl);
    tc_net_free(n);
}

/* ---- the paper's machine, one fast case --------------------------------------------- */

/* recursive doubling, 64 KiB per core on 64x16x16: the cross-supernode steps
 * use 6 L2 links per supernode (384); the lightest is step 8's: 256 ranks x
 * 16 MiB = 4 GiB; the lightest L1 link carries one 16 MiB message. */
static void test_paper_rd(void)
{
    sim_case c;
    if (run(&c, "twotier:64x16x16", NULL, catalog("recursive_doubling"), 65536) == 0) {
        CHECK(c.res.tier[1].used == 384 && c.res.tier[1].min == (uint64_t)1 << 32 && c.res.tier[0].min == (uint64_t)1 << 24,
              "64x16x16 recursive doubling: 384 L2 links, min 4 GiB; L1 min 16 MiB");
        CHECK(c.res.rounds == 14 && c.res.step_passes == 1, "64x16x16 recursive doubling: 14 steps");
    }
    done(&c);
}

int main(void)
{
    test_twotier_2x2x1();
    test_twotier_3x2x2_linear();
    test_twotier_scatter();
    test_dragonfly_scatter();
    test_indirect_scatter();
    test_reduce_gamma();
    test_windows();
    test_shift_forms();
    for (int i = 0; i < 200; i++) random_case(i);
    test_failures();
    test_placement();
    test_paper_rd();
    g_only_coll = TOPOCOLL_ALLREDUCE;
    for (int i = 200; i < 300; i++) random_case(i);
    return tc_test_summary();
}
