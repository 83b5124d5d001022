/* Verifier sweep of the alltoallw catalog (every entry with a schedule):
 * p = 1..16 and 24 on flat, unequal-node and random mappings.  An alltoallw
 * schedule counts in blocks (one element per peer: its part, whatever its
 * datatype; src/algo/alltoallw/linear.c), so a case is a matrix of parts
 * present (1) or empty (0: a zero count or a zero-size datatype), both sides
 * agreeing, with an all-empty row in one kind; in place with a symmetric
 * matrix.  Every rank's block from rank r must hold r's block for it.  Then
 * a schedule that mixes up blocks must be rejected.  No MPI.
 * Ends with "N passed, M failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/catalog.h"
#include "common/harness.h"
#include "pattern/pattern.h"
#include "topo/topo.h"
#include "verify/verify.h"
#include "verify/vsweep.h"

static uint64_t rng;

static void run(const tc_algo *al, const tc_topo *t, const char *spec, int kind, int in_place, int scale)
{
    int p = t->size;
    size_t pp = (size_t)p * (size_t)p;
    int64_t *m = malloc(pp * sizeof *m), *rc = malloc(pp * sizeof *rc), *d = malloc((size_t)p * sizeof *d);
    tc_vcounts *v = malloc((size_t)p * sizeof *v);
    (void)scale;
    for (int r = 0; r < p; r++)
        for (int j = 0; j < p; j++) m[r * p + j] = (kind == 1 && r == p / 2) ? 0 : tc_test_rand(&rng) % 4 != 0;
    for (int r = 0; in_place && r < p; r++)
        for (int j = 0; j < r; j++) m[r * p + j] = m[j * p + r];
    for (int r = 0; r < p; r++)
        for (int j = 0; j < p; j++) rc[r * p + j] = m[j * p + r];
    for (int j = 0; j < p; j++) d[j] = j;
    for (int r = 0; r < p; r++)
        v[r] = in_place ? (tc_vcounts){ rc + r * p, d, rc + r * p, d } : (tc_vcounts){ m + r * p, d, rc + r * p, d };
    tc_args a;
    memset(&a, 0, sizeof a);
    a.coll = al->coll;
    a.size = p;
    a.scount = a.rcount = 1;
    a.in_place = in_place;
    a.commutative = 1;
    tc_verify_report rep;
    tc_verify_status st = tc_verify_vcounts(al, t, &a, v, 1, 1, &rep);
    CHECK(st == TC_VERIFY_OK, "alltoallw/%s p=%d topo=%s kind=%d in_place=%d: %s", al->name, p, spec, kind,
          in_place, rep.msg);
    free(m), free(rc), free(d), free(v);
}

/* Linear, but the block from r-1 lands where the block from r-2 belongs. */
static int broken(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank;
    tc_sched_copy(s, tc_reg(TC_BUF_SEND, r, 1), tc_reg(TC_BUF_RECV, r, 1));
    for (int k = 1; k < p; k++) {
        int src = tc_wrap(r - k, p), dst = tc_wrap(r + k, p);
        tc_sched_recv(s, src, tc_reg(TC_BUF_RECV, tc_wrap(src - 1 == r ? src : src - 1, p), 1));
        tc_sched_send(s, dst, tc_reg(TC_BUF_SEND, dst, 1));
    }
    tc_sched_round(s);
    return 0;
}

int main(void)
{
    rng = 0x2545F4914F6CDD1Dull;
    for (int p = 1; p <= 16; p++) vsweep_p(p, TOPOCOLL_ALLTOALLW, 2, run);
    vsweep_p(24, TOPOCOLL_ALLTOALLW, 2, run);
    tc_algo bad = { .coll = TOPOCOLL_ALLTOALLW, .name = "broken", .generate = broken };
    tc_topo *t = tc_topo_flat(5);
    int64_t c[5] = { 1, 1, 1, 1, 1 }, d[5] = { 0, 1, 2, 3, 4 };
    tc_vcounts v[5];
    for (int r = 0; r < 5; r++) v[r] = (tc_vcounts){ c, d, c, d };
    tc_args a;
    memset(&a, 0, sizeof a);
    a.coll = TOPOCOLL_ALLTOALLW;
    a.size = 5;
    a.scount = a.rcount = 1;
    tc_verify_report rep;
    tc_verify_status st = t ? tc_verify_vcounts(&bad, t, &a, v, 1, 1, &rep) : TC_VERIFY_OK;
    CHECK(st == TC_VERIFY_FAIL, "a broken alltoallw schedule was not rejected");
    if (st == TC_VERIFY_FAIL) printf("rejected as expected: %s\n", rep.msg);
    tc_topo_free(t);
    return tc_test_summary();
}
