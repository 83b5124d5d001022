/* Verifier sweep of the allgatherv catalog (every entry with a schedule):
 * p = 1..20 and 32 on flat, unequal-node, random and cyclic mappings; per
 * case count patterns with fixed seeds: equal, random with zeros, all zero
 * but one, one very large block among small ones, all zero; in place and
 * not; send elements of two receive units.  Every rank's block r must hold
 * rank r's block.  Entries that need equal blocks must decline every
 * unequal pattern and serve the equal one; the others must serve all.  Then
 * a broken schedule (a block received at its neighbour's displacement) must
 * be rejected.  No MPI.  Ends with "N passed, M failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/catalog.h"
#include "blocks/ag_regions.h"
#include "common/harness.h"
#include "pattern/pattern.h"
#include "topo/topo.h"
#include "verify/verify.h"
#include "verify/vsweep.h"

static uint64_t rng;

static unsigned next(void) { return tc_test_rand(&rng); }

enum { K_EQUAL, K_RANDOM, K_ONE, K_HUGE, K_ZERO, NKINDS };
static const char *const kind_name[] = { "equal", "random", "one", "huge", "zero" };

/* Receive counts of kind `kind`, times scale (receive elements). */
static void make_counts(int p, int kind, int scale, int64_t *c)
{
    int big = p > 0 ? (int)(next() % (unsigned)p) : 0;
    for (int j = 0; j < p; j++) {
        unsigned x = next() % 8;
        int64_t n = 3;
        if (kind == K_RANDOM) n = x < 2 ? 0 : 1 + next() % 6;
        if (kind == K_ONE) n = j == big ? 5 : 0;
        if (kind == K_HUGE) n = j == big ? 500 + next() % 50 : next() % 3;
        if (kind == K_ZERO) n = 0;
        c[j] = n * scale;
    }
}

static int all_equal(const int64_t *c, int p)
{
    for (int j = 1; j < p; j++)
        if (c[j] != c[0]) return 0;
    return 1;
}

static void run(const tc_algo *al, const tc_topo *t, const char *spec, int kind, int in_place, int scale)
{
    int p = t->size;
    int64_t *c = malloc(2 * (size_t)p * sizeof *c), *d = c + p, at = 0, most = 0;
    tc_vcounts *v = malloc((size_t)p * sizeof *v);
    make_counts(p, kind, scale, c);
    for (int j = 0; j < p; j++) {
        d[j] = at;
        at += c[j];
        if (c[j] > most) most = c[j];
    }
    for (int r = 0; r < p; r++) v[r] = (tc_vcounts){ NULL, NULL, c, d };
    tc_args a;
    memset(&a, 0, sizeof a);
    a.coll = al->coll;
    a.size = p;
    a.rcount = most;
    a.in_place = in_place;
    a.commutative = 1;
    a.node_shm = 1;
    tc_verify_report rep;
    tc_verify_status st = tc_verify_vcounts(al, t, &a, v, scale == 2 ? 2 : 1, 1, &rep);
    int declines = (al->req & TC_REQ_EQUAL_BLOCKS) && !all_equal(c, p);
    tc_args a0 = a;
    a0.v = &v[0];
    const char *why = "";
    int domain = tc_algo_accepts(al, &a0, t, &why);
    if (declines)
        CHECK(st == TC_VERIFY_DECLINED && strstr(rep.msg, "equal receive counts"),
              "allgatherv/%s p=%d topo=%s %s in_place=%d: unequal blocks not declined (%s)", al->name, p,
              spec, kind_name[kind], in_place, rep.msg);
    else if (domain)
        CHECK(st == TC_VERIFY_OK, "allgatherv/%s p=%d topo=%s %s in_place=%d units=%d: %s", al->name, p,
              spec, kind_name[kind], in_place, scale, rep.msg);
    else
        CHECK(st == TC_VERIFY_DECLINED, "allgatherv/%s p=%d topo=%s: outside its domain (%s) but %s",
              al->name, p, spec, why, rep.msg);
    free(v);
    free(c);
}

/* Linear, but the block from r-1 lands at the displacement of r-2's. */
static int broken(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank;
    tc_sched_copy(s, ag_own(a), ag_rbuf(a, r, 1));
    for (int k = 1; k < p; k++) {
        int src = tc_wrap(r - k, p), at = k == 1 ? tc_wrap(r - 2, p) : k == 2 ? tc_wrap(r - 1, p) : src;
        tc_sched_recv(s, src, tc_reg(TC_BUF_RECV, a->v->rdispls[at], a->v->rcounts[src]));
        tc_sched_send(s, tc_wrap(r + k, p), ag_own(a));
    }
    tc_sched_round(s);
    return 0;
}

int main(void)
{
    rng = 0x9E3779B97F4A7C15ull;
    for (int p = 1; p <= 20; p++) vsweep_p(p, TOPOCOLL_ALLGATHERV, NKINDS, run);
    vsweep_p(32, TOPOCOLL_ALLGATHERV, NKINDS, run);
    /* the broken schedule, on equal counts (so sizes match) */
    tc_algo bad = { .coll = TOPOCOLL_ALLGATHERV, .name = "broken", .generate = broken };
    tc_topo *t = tc_topo_flat(5);
    int64_t c[5] = { 2, 2, 2, 2, 2 }, d[5] = { 0, 2, 4, 6, 8 };
    tc_vcounts v[5];
    for (int r = 0; r < 5; r++) v[r] = (tc_vcounts){ NULL, NULL, c, d };
    tc_args a;
    memset(&a, 0, sizeof a);
    a.coll = TOPOCOLL_ALLGATHERV;
    a.size = 5;
    a.rcount = 2;
    tc_verify_report rep;
    tc_verify_status st = t ? tc_verify_vcounts(&bad, t, &a, v, 1, 1, &rep) : TC_VERIFY_OK;
    CHECK(st == TC_VERIFY_FAIL, "a broken allgatherv schedule was not rejected");
    if (st == TC_VERIFY_FAIL) printf("rejected as expected: %s\n", rep.msg);
    tc_topo_free(t);
    return tc_test_summary();
}
