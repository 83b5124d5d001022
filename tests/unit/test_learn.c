/* The learner's state machine (src/select/learn.c), no MPI: R simulated
 * ranks, each with its own learner and its own noisy timings of the same
 * candidates, make the same calls in lockstep; a reduction is the MAX over
 * the ranks of what each started it with.  Checked: every rank runs the
 * same candidate at every call and settles on the same winner (noise up to
 * +-60 %); the true fastest wins where the gaps exceed the noise; a
 * clearly slower candidate is dropped after round 1 (racing); exploring
 * ends within its bound; a candidate that declines everywhere is dropped;
 * drift (the winner slower by more than the threshold) explores again;
 * a warm start agreed by every rank settles without exploring, one that
 * differs between ranks explores; the keys' classes; the record of
 * outcomes; patience: the first N calls are the table's (fast path, no
 * timing, no reduction, nothing published), call N+1 begins exploring.
 * Ends with "N passed, M failed". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select/learn.h"
#include "../common/harness.h"

#define R 5
#define NC 6

static const tc_algo *cand[NC];
static uint64_t rng = 12345;

static double uniform(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng >> 11) / (double)(1ull << 53);
}

/* The simulated ranks: learners, true times per candidate, noise, and
 * which candidates decline. */
typedef struct sim {
    tc_learner l[R];
    double truth[NC];
    double noise;
    int declines[NC];
    double started[R][TC_LEARN_NRED];
    int disagreed;       /* calls where the ranks ran different candidates */
    uint64_t calls;
} sim;

static void sim_init(sim *s, const double *truth, double noise, const int *preload)
{
    memset(s, 0, sizeof *s);
    memcpy(s->truth, truth, sizeof s->truth);
    s->noise = noise;
    for (int r = 0; r < R; r++)
        tc_learn_init(&s->l[r], TOPOCOLL_ALLREDUCE, 10, 0, cand, NC, preload ? preload[r] : -1, NULL);
}

/* One call on every rank. */
static void sim_call(sim *s)
{
    tc_learn_plan p[R];
    for (int r = 0; r < R; r++) p[r] = tc_learn_next(&s->l[r]);
    if (p[0].finish) {
        double agreed[TC_LEARN_NRED];
        for (int k = 0; k < TC_LEARN_NRED; k++) {
            agreed[k] = s->started[0][k];
            for (int r = 1; r < R; r++) agreed[k] = fmax(agreed[k], s->started[r][k]);
        }
        for (int r = 0; r < R; r++) {
            CHECK(p[r].finish, "rank %d does not wait where rank 0 does (call %llu)", r,
                  (unsigned long long)s->calls);
            tc_learn_agreed(&s->l[r], agreed);
            p[r] = tc_learn_next(&s->l[r]);
        }
    }
    for (int r = 0; r < R; r++) {
        if (p[r].cand != p[0].cand || p[r].start != p[0].start) s->disagreed++;
        if (p[r].start) memcpy(s->started[r], s->l[r].send, sizeof s->started[r]);
        int k = p[r].cand;
        double t = k >= 0 ? s->truth[k] : s->truth[0];
        t *= 1 + s->noise * (2 * uniform() - 1);
        if (p[r].timed && k >= 0 && !s->declines[k]) tc_learn_record(&s->l[r], k, t);
        tc_learn_done(&s->l[r], p[r].exploring, t);
    }
    s->calls++;
}

/* Calls until every rank settled (at most max); returns the calls made. */
static uint64_t sim_settle(sim *s, uint64_t max)
{
    uint64_t n = 0;
    while (n < max && s->l[0].phase != TC_LEARN_SETTLED) {
        sim_call(s);
        n++;
    }
    return n;
}

static void same_winner(const sim *s, const char *what)
{
    for (int r = 1; r < R; r++)
        CHECK(s->l[r].winner == s->l[0].winner && s->l[r].phase == s->l[0].phase, "%s: rank %d winner %d, rank 0 %d",
              what, r, s->l[r].winner, s->l[0].winner);
    CHECK(s->disagreed == 0, "%s: %d calls ran different candidates on different ranks", what, s->disagreed);
}

static void agreement_under_noise(void)
{
    for (int trial = 0; trial < 200; trial++) {
        double truth[NC];
        for (int k = 0; k < NC; k++) truth[k] = 1e-6 * (1 + 4 * uniform());
        sim s;
        sim_init(&s, truth, 0.6, NULL);
        uint64_t n = sim_settle(&s, 200);
        CHECK(s.l[0].phase == TC_LEARN_SETTLED, "trial %d: not settled after %llu calls", trial,
              (unsigned long long)n);
        same_winner(&s, "noise 0.6");
        for (int i = 0; i < 300; i++) sim_call(&s);   /* re-checks: still agreed */
        same_winner(&s, "noise 0.6, re-checks");
    }
}

static void fastest_wins(void)
{
    double truth[NC] = { 3e-6, 2e-6, 1e-6, 5e-6, 2.5e-6, 4e-6 };
    sim s;
    sim_init(&s, truth, 0.05, NULL);
    uint64_t n = sim_settle(&s, 200);
    same_winner(&s, "fastest");
    CHECK(s.l[0].winner == 2, "the fastest (2) did not win: %d", s.l[0].winner);
    /* 6 candidates x 2 blocks of 1 + 4, lag 4, survivors x 2 blocks, lag 4: the bound */
    CHECK(n <= 6 * 10 + 4 + 6 * 10 + 4 + 1, "exploring took %llu calls", (unsigned long long)n);
    /* racing: candidates > 1.25 x the best dropped after round 1 */
    for (int k = 0; k < NC; k++)
        if (truth[k] > 1.5 * truth[2]) CHECK(s.l[0].agreed[k] < 0, "candidate %d (%.1fx) not dropped", k,
                                              truth[k] / truth[2]);
    CHECK(s.l[0].native == NC - 1 || s.l[0].native < 0, "native index %d", s.l[0].native);
    CHECK(s.l[0].explore_s > 0, "exploring cost nothing: %g", s.l[0].explore_s);
    uint64_t fast = tc_learn_fast_calls(&s.l[0]);
    CHECK(fast > 0 && fast <= 128, "fast calls after settling: %llu", (unsigned long long)fast);
}

static void declined_everywhere(void)
{
    double truth[NC] = { 3e-6, 2e-6, 1e-6, 5e-6, 2.5e-6, 4e-6 };
    sim s;
    sim_init(&s, truth, 0.05, NULL);
    s.declines[2] = 1;   /* the fastest never serves */
    sim_settle(&s, 200);
    same_winner(&s, "declines");
    CHECK(s.l[0].winner == 1, "with 2 declining, 1 should win: %d", s.l[0].winner);
    CHECK(s.l[0].agreed[2] < 0, "the declining candidate was not dropped");
}

static void drift(void)
{
    double truth[NC] = { 3e-6, 2e-6, 1e-6, 5e-6, 2.5e-6, 4e-6 };
    sim s;
    sim_init(&s, truth, 0.05, NULL);
    sim_settle(&s, 200);
    CHECK(s.l[0].winner == 2 && s.l[0].explorations == 1, "before drift: winner %d", s.l[0].winner);
    for (int i = 0; i < 2000; i++) sim_call(&s);
    CHECK(s.l[0].explorations == 1, "explored again without drift: %d", s.l[0].explorations);
    s.truth[2] = 10e-6;   /* the winner became slow */
    int explored = 0;
    for (int i = 0; i < 20000 && !explored; i++) {
        sim_call(&s);
        explored = s.l[0].explorations > 1;
    }
    CHECK(explored, "drift not detected");
    sim_settle(&s, 200);
    same_winner(&s, "drift");
    CHECK(s.l[0].winner == 1, "after drift the winner should be 1: %d", s.l[0].winner);
}

static void preload(void)
{
    double truth[NC] = { 3e-6, 2e-6, 1e-6, 5e-6, 2.5e-6, 4e-6 };
    int same[R] = { 4, 4, 4, 4, 4 }, differ[R] = { 4, 4, 3, 4, 4 };
    sim s;
    sim_init(&s, truth, 0.05, same);
    uint64_t n = sim_settle(&s, 200);
    same_winner(&s, "preload agreed");
    CHECK(s.l[0].winner == 4 && s.l[0].from_file && s.l[0].explorations == 0,
          "preload agreed: winner %d, from file %d, explorations %d", s.l[0].winner, s.l[0].from_file,
          s.l[0].explorations);
    CHECK(n <= 6, "preload agreed: %llu calls before settling", (unsigned long long)n);
    sim_init(&s, truth, 0.05, differ);
    sim_settle(&s, 200);
    same_winner(&s, "preload differs");
    CHECK(s.l[0].winner == 2 && s.l[0].explorations == 1, "preload differs: winner %d, explorations %d",
          s.l[0].winner, s.l[0].explorations);
}

static void keys(void)
{
    CHECK(tc_learn_size_class(TOPOCOLL_ALLREDUCE, 0) == 0, "class of 0");
    CHECK(tc_learn_size_class(TOPOCOLL_ALLREDUCE, 1) == 1, "class of 1");
    CHECK(tc_learn_size_class(TOPOCOLL_ALLREDUCE, 1024) == 11, "class of 1024");
    CHECK(tc_learn_size_class(TOPOCOLL_ALLREDUCE, 2047) == 11, "class of 2047");
    CHECK(tc_learn_size_class(TOPOCOLL_ALLTOALLV, 2047) == -1, "alltoallv: one class");
    int64_t lo, hi;
    tc_learn_class_bounds(11, &lo, &hi);
    CHECK(lo == 1024 && hi == 2048, "bounds of class 11: %lld-%lld", (long long)lo, (long long)hi);
    CHECK(tc_learn_op_class(0, 1, 1, 8) == 0, "op class without reduction");
    CHECK(tc_learn_op_class(1, 1, 1, 8) != tc_learn_op_class(1, 0, 1, 8), "user op vs predefined");
    CHECK(tc_learn_op_class(1, 1, 1, 8) != tc_learn_op_class(1, 1, 1, 4), "element sizes");
    CHECK(tc_learn_op_class(1, 0, 1, 8) != tc_learn_op_class(1, 0, 0, 8), "commutativity");
}

static void record(void)
{
    double truth[NC] = { 3e-6, 2e-6, 1e-6, 5e-6, 2.5e-6, 4e-6 };
    sim s;
    sim_init(&s, truth, 0.05, NULL);
    sim_settle(&s, 200);
    tc_learn_outcome o, got[4];
    tc_learn_outcome_of(&s.l[0], 4, 1, 4, &o);
    CHECK(o.winner && strcmp(o.winner, cand[2]->name) == 0 && o.ntried == NC && o.min_bytes == 512 &&
              o.max_bytes == 1024 && o.native_s > o.winner_s,
          "outcome: %s %d [%lld, %lld) native %g winner %g", o.winner ? o.winner : "-", o.ntried,
          (long long)o.min_bytes, (long long)o.max_bytes, o.native_s, o.winner_s);
    tc_learn_reset();
    tc_learn_publish(&o);
    tc_learn_publish(&o);   /* the same key: replaced */
    CHECK(tc_learn_outcomes(got, 4) == 1 && strcmp(got[0].winner, o.winner) == 0, "record: %d outcomes",
          tc_learn_outcomes(NULL, 0));
    char name[64];
    snprintf(name, sizeof name, "%s", cand[4]->name);   /* a copy: the record keeps the catalog's */
    tc_learn_outcome in = o;
    in.winner = name;
    tc_learn_preload(&in, 1);
    const tc_learn_outcome *p = tc_learn_preloaded(TOPOCOLL_ALLREDUCE, 4, 1, 4, 700, 0);
    CHECK(p && p->winner == cand[4]->name && p->from_file, "preloaded outcome not found by its class");
    CHECK(!tc_learn_preloaded(TOPOCOLL_ALLREDUCE, 4, 1, 4, 1024, 0), "preloaded outside its class");
    CHECK(!tc_learn_preloaded(TOPOCOLL_ALLREDUCE, 8, 1, 8, 700, 0), "preloaded for another shape");
    in.winner = "no-such-algorithm";
    tc_learn_reset();
    tc_learn_preload(&in, 1);
    CHECK(!tc_learn_preloaded(TOPOCOLL_ALLREDUCE, 4, 1, 4, 700, 0), "an unknown winner was preloaded");
    tc_learn_reset();
}

/* Patience: calls 1..N plan the table's choice on the fast path (no
 * candidate, untimed, no reduction, not exploring), the fast path may serve
 * all of them at once, nothing is published; call N+1 begins, and after
 * tc_learn_begin the learner explores from that call on. */
static void patience(void)
{
    enum { N = 40 };
    tc_learn_reset();
    tc_learn_params prm = tc_learn_default_params();
    prm.patience = N;
    tc_learner l;
    tc_learn_init_patient(&l, TOPOCOLL_ALLREDUCE, 10, 0, &prm);
    CHECK(l.phase == TC_LEARN_PATIENT && l.ncand == 0, "patient learner: phase %d, %d candidates", (int)l.phase,
          l.ncand);
    CHECK(tc_learn_fast_calls(&l) == N && tc_learn_quiet(&l), "patient: fast calls %llu",
          (unsigned long long)tc_learn_fast_calls(&l));
    int bad = 0;
    for (int i = 0; i < N; i++) {
        tc_learn_plan p = tc_learn_next(&l);
        bad += p.cand != -1 || p.timed || p.start || p.finish || p.exploring || p.begin || !p.fast;
        bad += tc_learn_fast_calls(&l) != (uint64_t)(N - i);
        tc_learn_done(&l, p.exploring, 0);
    }
    CHECK(bad == 0, "calls 1..%d: %d plans other than the table's on the fast path", N, bad);
    CHECK(tc_learn_outcomes(NULL, 0) == 0, "a patient key published an outcome");
    tc_learn_plan p = tc_learn_next(&l);
    CHECK(p.begin && !p.fast && !p.start && tc_learn_fast_calls(&l) == 0 && !tc_learn_quiet(&l),
          "call %d: begin %d fast %d", N + 1, p.begin, p.fast);
    tc_learn_begin(&l, cand, NC, -1);
    CHECK(l.phase == TC_LEARN_ROUND1 && l.ncand == NC && l.calls == N && l.phase_start == N,
          "after begin: phase %d, %d candidates, call %llu, round from %llu", (int)l.phase, l.ncand,
          (unsigned long long)l.calls, (unsigned long long)l.phase_start);
    p = tc_learn_next(&l);
    CHECK(p.exploring && p.cand == l.order[0] && !p.fast && !p.begin, "call %d: exploring %d, candidate %d", N + 1,
          p.exploring, p.cand);
    /* the rest of the schedule as without patience: it settles */
    for (uint64_t i = 0; i < 1000 && l.phase != TC_LEARN_SETTLED; i++) {
        p = tc_learn_next(&l);
        if (p.finish) {
            double agreed[TC_LEARN_NRED];
            for (int k = 0; k < TC_LEARN_NRED; k++) agreed[k] = l.send[k];
            tc_learn_agreed(&l, agreed);
            p = tc_learn_next(&l);
        }
        if (p.timed && p.cand >= 0) tc_learn_record(&l, p.cand, 1e-6 * (1 + p.cand));
        tc_learn_done(&l, p.exploring, 1e-6);
    }
    CHECK(l.phase == TC_LEARN_SETTLED && l.winner == 0 && l.explorations == 1,
          "after patience: phase %d, winner %d, explorations %d", (int)l.phase, l.winner, l.explorations);
    /* patience 0 through tc_learn_init: exploring from the first call */
    tc_learn_init(&l, TOPOCOLL_ALLREDUCE, 10, 0, cand, NC, -1, &prm);
    p = tc_learn_next(&l);
    CHECK(l.phase == TC_LEARN_ROUND1 && p.exploring && !p.begin, "tc_learn_init: phase %d", (int)l.phase);
    /* a preloaded winner after the patience: agreed from that call */
    tc_learn_init_patient(&l, TOPOCOLL_ALLREDUCE, 10, 0, &prm);
    for (int i = 0; i < N; i++) tc_learn_done(&l, 0, 0);
    tc_learn_begin(&l, cand, NC, 3);
    p = tc_learn_next(&l);
    CHECK(l.phase == TC_LEARN_PRELOAD && p.start && l.preload == 3, "preload after patience: phase %d start %d",
          (int)l.phase, p.start);
    tc_learn_reset();
}

/* Drive a patient learner through n calls the way the MPI layer does
 * (reductions agreed on this rank's values; each timed call of the table's
 * choice takes t seconds); returns the calls that began learning (p.begin). */
static int drive_patient(tc_learner *l, uint64_t n, double t, int *timed, int *reductions)
{
    int begins = 0;
    for (uint64_t i = 0; i < n; i++) {
        tc_learn_plan p = tc_learn_next(l);
        if (p.finish) {
            double agreed[TC_LEARN_NRED];
            for (int k = 0; k < TC_LEARN_NRED; k++) agreed[k] = l->send[k];
            tc_learn_agreed(l, agreed);
            p = tc_learn_next(l);
        }
        if (p.begin) {
            begins++;
            break;
        }
        *reductions += p.start;
        if (p.timed) {
            (*timed)++;
            tc_learn_record(l, p.cand, t);
        }
        if (p.cand != -1 || p.exploring) (*timed) += 1000;   /* (counted as a failure below) */
        tc_learn_done(l, p.exploring, t);
    }
    return begins;
}

/* Worth it: after the patience a key gauges the table's choice (block
 * timed calls, one reduction), and begins learning only where calls so far
 * x the agreed time reaches payback x (setup + explore_calls x time); a key
 * of short calls waits, patient, up to the count where it would be worth it
 * and gauges again there; a key of long calls begins after one gauge. */
static void payback(void)
{
    enum { N = 64 };
    tc_learn_params prm = tc_learn_default_params();
    prm.patience = N;
    prm.payback = 4;
    /* short calls: 0.5 us -> worth it from 4 x (1 ms / 0.5 us + 90) = 8360 calls */
    double need = tc_learn_worth_calls(&prm, 0.5e-6);
    CHECK(need > 8359 && need < 8361, "worth calls at 0.5 us: %g", need);
    tc_learner l;
    tc_learn_init_patient(&l, TOPOCOLL_ALLREDUCE, 3, 0, &prm);
    int timed = 0, reductions = 0;
    int begins = drive_patient(&l, 2000, 0.5e-6, &timed, &reductions);
    CHECK(begins == 0 && l.phase == TC_LEARN_PATIENT && l.ncand == 0,
          "short calls: began %d, phase %d after 2000 calls", begins, (int)l.phase);
    CHECK(timed == prm.block && reductions == 1, "short calls: %d timed calls, %d reductions (one gauge)", timed,
          reductions);
    int pat = l.prm.patience;   /* ceil(8360 +- rounding) */
    CHECK(l.gauged_s == 0.5e-6 && pat >= 8360 && pat <= 8361 && tc_learn_fast_calls(&l) == (uint64_t)pat - l.calls,
          "short calls: gauged %g s, patience now %d, fast calls %llu", l.gauged_s, l.prm.patience,
          (unsigned long long)tc_learn_fast_calls(&l));
    /* there it gauges again and, the calls the same, begins */
    begins = drive_patient(&l, 10000, 0.5e-6, &timed, &reductions);
    CHECK(begins == 1 && reductions == 2 && l.calls == (uint64_t)pat + (uint64_t)prm.block + (uint64_t)prm.lag,
          "short calls: began %d after %d gauges at call %llu", begins, reductions, (unsigned long long)l.calls);
    tc_learn_begin(&l, cand, NC, -1);
    CHECK(l.phase == TC_LEARN_ROUND1, "after the second gauge: phase %d", (int)l.phase);
    /* long calls: 200 us -> 4 x (5 + 90) = 380 calls: the first gauge at 64
     * waits to 380, the second begins */
    tc_learn_init_patient(&l, TOPOCOLL_ALLREDUCE, 20, 0, &prm);
    timed = reductions = 0;
    begins = drive_patient(&l, 10000, 200e-6, &timed, &reductions);
    CHECK(begins == 1 && reductions == 2 && l.calls >= 380 + (uint64_t)prm.block + (uint64_t)prm.lag &&
              l.calls <= 381 + (uint64_t)prm.block + (uint64_t)prm.lag,
          "200 us calls: began %d after %d gauges at call %llu", begins, reductions, (unsigned long long)l.calls);
    /* very long calls: the 90 slower calls dominate the cost (4 x 90 = 360
     * calls at least); with a cost of 10 calls they are worth it at the
     * first gauge */
    CHECK(tc_learn_worth_calls(&prm, 50e-3) > 360, "worth calls at 50 ms: %g", tc_learn_worth_calls(&prm, 50e-3));
    prm.explore_calls = 10;
    tc_learn_init_patient(&l, TOPOCOLL_ALLREDUCE, 24, 0, &prm);
    timed = reductions = 0;
    begins = drive_patient(&l, 10000, 50e-3, &timed, &reductions);
    CHECK(begins == 1 && reductions == 1 && l.calls == N + (uint64_t)prm.block + (uint64_t)prm.lag,
          "50 ms calls: began %d after %d gauges at call %llu", begins, reductions, (unsigned long long)l.calls);
    /* the agreed time is the slowest rank's: one rank's long timing decides */
    tc_learn_init_patient(&l, TOPOCOLL_ALLREDUCE, 3, 0, &prm);
    for (int i = 0; i < N; i++) tc_learn_done(&l, 0, 0);
    int starts = 0;
    for (int i = 0; i < 100 && !starts; i++) {
        tc_learn_plan p = tc_learn_next(&l);
        if (p.timed) tc_learn_record(&l, -1, 0.5e-6);
        starts = p.start;
        tc_learn_done(&l, 0, 0);
    }
    double agreed[TC_LEARN_NRED] = { 1.0 };   /* another rank: 1 s per call (worth from 40 calls) */
    tc_learn_agreed(&l, agreed);
    tc_learn_plan p = tc_learn_next(&l);
    CHECK(starts && p.begin && l.gauged_s == 1.0, "the agreed (slowest) time decides: begin %d", p.begin);
    /* payback 0: the patience's end begins, no gauge */
    prm.payback = 0;
    tc_learn_init_patient(&l, TOPOCOLL_ALLREDUCE, 3, 0, &prm);
    timed = reductions = 0;
    begins = drive_patient(&l, 1000, 0.5e-6, &timed, &reductions);
    CHECK(begins == 1 && timed == 0 && reductions == 0 && l.calls == N, "payback 0: began %d at call %llu", begins,
          (unsigned long long)l.calls);
}

/* The race of forms: the learner's order within a tenth, then the fewest
 * rounds within a tenth of the winner (the MPI library's own: rounds
 * unknown, never preferred for them, and a winner that keeps its place). */
static void race_pick(void)
{
    const uint64_t U = TC_RACE_ROUNDS_UNKNOWN, X = TC_RACE_UNTIMED, F = UINT64_MAX;
    struct {
        const char *what;
        uint64_t ns[4], rounds[4];
        int n, want;
    } cases[] = {
        { "the first within a tenth", { 100, 95, 105, 99 }, { 3, 3, 3, U }, 4, 0 },
        { "a later one more than a tenth faster", { 100, 89, 95, 120 }, { 3, 3, 3, U }, 4, 1 },
        { "fewest rounds within a tenth of the winner", { 100, 105, 109, 99 }, { 7, 2, 1, U }, 4, 2 },
        { "rounds outside the tenth do not count", { 100, 111, 130, 99 }, { 7, 1, 1, U }, 4, 0 },
        { "the tenth is of the winner, not of the first", { 100, 80, 87, 99 }, { 7, 3, 1, U }, 4, 2 },
        { "equal rounds keep the winner", { 100, 105, 108, 120 }, { 2, 2, 2, U }, 4, 0 },
        { "the MPI library's own winning keeps its place", { 100, 104, 104, 80 }, { 7, 1, 1, U }, 4, 3 },
        { "the MPI library's own is not fewer rounds", { 100, 104, 104, 99 }, { 7, 3, 3, U }, 4, 1 },
        { "untimed and failed are skipped", { X, F, 50, 52 }, { 1, 1, 4, 2 }, 4, 3 },
        { "none timed", { X, F, X, F }, { 1, 1, 1, 1 }, 4, -1 },
        { "one candidate", { 7 }, { U }, 1, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int got = tc_learn_race_pick(cases[i].ns, cases[i].rounds, cases[i].n);
        CHECK(got == cases[i].want, "race pick, %s: %d, want %d", cases[i].what, got, cases[i].want);
    }
}

int main(void)
{
    int n = 0;
    for (int i = 0; i < tc_catalog_variant_count(TOPOCOLL_ALLREDUCE) && n < NC - 1; i++) {
        const tc_algo *al = tc_catalog_variant_at(TOPOCOLL_ALLREDUCE, i);
        if (!(al->req & TC_REQ_NATIVE)) cand[n++] = al;
    }
    cand[n++] = tc_catalog_find(TOPOCOLL_ALLREDUCE, "native");
    CHECK(n == NC && cand[NC - 1], "candidates from the catalog: %d", n);
    keys();
    agreement_under_noise();
    fastest_wins();
    declined_everywhere();
    drift();
    preload();
    record();
    patience();
    payback();
    race_pick();
    return tc_test_summary();
}
