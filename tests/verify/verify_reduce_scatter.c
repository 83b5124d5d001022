/* Verifier sweep of the reduce_scatter catalog (every entry with a
 * schedule): p = 1..20 and 32 on flat, unequal-node, random and cyclic
 * mappings; per case count patterns with fixed seeds: equal, random with
 * zeros, all zero but one, one very large block among small ones, all
 * zero, growing blocks (in place, a rank's block then starts inside the
 * first count elements of the vector); in place and not; elements of two
 * units; commutative and non-commutative operations.  Rank r's result must
 * hold block r of the vector combined from every rank (in rank order for a
 * non-commutative operation).  Entries that need a commutative operation
 * must decline the others and serve the rest.  Then broken schedules (a
 * block left out, a non-commutative reduction out of rank order) must be
 * rejected.  No MPI.  Ends with "N passed, M failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/catalog.h"
#include "blocks/rs_blocks.h"
#include "common/harness.h"
#include "pattern/pattern.h"
#include "topo/topo.h"
#include "verify/verify.h"
#include "verify/vsweep.h"

static uint64_t rng;

static unsigned next(void) { return tc_test_rand(&rng); }

enum { K_EQUAL, K_RANDOM, K_ONE, K_HUGE, K_ZERO, K_GROWING, NKINDS };
static const char *const kind_name[] = { "equal", "random", "one", "huge", "zero", "growing" };

static void make_counts(int p, int kind, int64_t *c)
{
    int big = p > 0 ? (int)(next() % (unsigned)p) : 0;
    for (int j = 0; j < p; j++) {
        unsigned x = next() % 8;
        int64_t n = 3;
        if (kind == K_RANDOM) n = x < 2 ? 0 : 1 + next() % 6;
        if (kind == K_ONE) n = j == big ? 5 : 0;
        if (kind == K_HUGE) n = j == big ? 300 + next() % 50 : next() % 3;
        if (kind == K_ZERO) n = 0;
        if (kind == K_GROWING) n = 1 + 2 * j;
        c[j] = n;
    }
}

/* One case: counts c (packed displacements d) at every rank. */
static tc_verify_status verify_case(const tc_algo *al, const tc_topo *t, const int64_t *c, const int64_t *d,
                                    int in_place, int commutative, int units, tc_verify_report *rep)
{
    int p = t->size;
    int64_t most = 0;
    tc_vcounts *v = malloc((size_t)p * sizeof *v);
    for (int j = 0; j < p; j++)
        if (c[j] > most) most = c[j];
    for (int r = 0; r < p; r++) v[r] = (tc_vcounts){ NULL, NULL, c, d };
    tc_args a;
    memset(&a, 0, sizeof a);
    a.coll = al->coll;
    a.size = p;
    a.rcount = most;
    a.scount = d[p - 1] + c[p - 1];
    a.in_place = in_place;
    a.commutative = commutative;
    a.node_shm = 1;
    tc_verify_status st = tc_verify_vcounts(al, t, &a, v, units, units, rep);
    free(v);
    return st;
}

static void run(const tc_algo *al, const tc_topo *t, const char *spec, int kind, int in_place, int scale)
{
    int p = t->size;
    int64_t *c = malloc(2 * (size_t)p * sizeof *c), *d = c + p, at = 0;
    make_counts(p, kind, c);
    for (int j = 0; j < p; j++) {
        d[j] = at;
        at += c[j];
    }
    for (int commutative = 0; commutative <= 1; commutative++) {
        tc_verify_report rep;
        tc_verify_status st = verify_case(al, t, c, d, in_place, commutative, scale, &rep);
        if (!commutative && (al->req & TC_REQ_COMMUTATIVE))
            CHECK(st == TC_VERIFY_DECLINED, "reduce_scatter/%s p=%d topo=%s %s: non-commutative not declined (%s)",
                  al->name, p, spec, kind_name[kind], rep.msg);
        else
            CHECK(st == TC_VERIFY_OK, "reduce_scatter/%s p=%d topo=%s %s in_place=%d units=%d commutative=%d: %s",
                  al->name, p, spec, kind_name[kind], in_place, scale, commutative, rep.msg);
    }
    free(c);
}

/* Pairwise, but the block from rank r-1 is never received. */
static int broken_missing(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    tc_rs_blocks B = tc_rs_blocks_of(a);
    int p = a->size, r = a->rank;
    int64_t b = tc_rs_cnt(&B, r);
    tc_sched_need_tmp(s, b);
    tc_sched_copy(s, tc_rs_input(&B, r), tc_reg(TC_BUF_RECV, 0, b));
    for (int i = 2; i < p; i++) {
        tc_sched_send(s, tc_wrap(r + i, p), tc_rs_input(&B, tc_wrap(r + i, p)));
        tc_sched_recv(s, tc_wrap(r - i, p), tc_reg(TC_BUF_TMP, 0, b));
        tc_sched_round(s);
        tc_sched_reduce(s, tc_reg(TC_BUF_TMP, 0, b), tc_reg(TC_BUF_RECV, 0, b));
        tc_sched_round(s);
    }
    return 0;
}

/* Pairwise on any operation: contributions combined out of rank order. */
static int unordered(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    tc_rs_blocks B = tc_rs_blocks_of(a);
    tc_rs_pairwise(s, a, &B);
    return 0;
}

static void check_broken(void)
{
    tc_algo missing = { .coll = TOPOCOLL_REDUCE_SCATTER, .name = "missing", .generate = broken_missing };
    tc_algo order = { .coll = TOPOCOLL_REDUCE_SCATTER, .name = "unordered", .generate = unordered };
    int64_t c[5] = { 2, 0, 3, 1, 4 }, d[5] = { 0, 2, 2, 5, 6 };
    tc_topo *t = tc_topo_flat(5);
    tc_verify_report rep;
    CHECK(t && verify_case(&missing, t, c, d, 0, 1, 1, &rep) == TC_VERIFY_FAIL && strstr(rep.msg, "contributions"),
          "a block left out not rejected (%s)", rep.msg);
    CHECK(t && verify_case(&order, t, c, d, 0, 0, 1, &rep) == TC_VERIFY_FAIL,
          "a non-commutative reduction out of rank order not rejected (%s)", rep.msg);
    CHECK(t && verify_case(&order, t, c, d, 1, 1, 1, &rep) == TC_VERIFY_OK,
          "pairwise on a commutative operation in place: %s", rep.msg);
    tc_topo_free(t);
}

int main(void)
{
    rng = 0x9E3779B97F4A7C15ull;
    for (int p = 1; p <= 20; p++) vsweep_p(p, TOPOCOLL_REDUCE_SCATTER, NKINDS, run);
    vsweep_p(32, TOPOCOLL_REDUCE_SCATTER, NKINDS, run);
    check_broken();
    return tc_test_summary();
}
