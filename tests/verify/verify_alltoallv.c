/* Verifier sweep of the alltoallv catalog (every entry with a schedule):
 * p = 1..20 and 32 on flat, unequal-node and random mappings; per case a
 * random count matrix (fixed seeds) with zeros, very unequal pairs (one
 * part 200 times another) and all-zero rows, displacements in a shuffled
 * order with gaps between parts; in place with symmetric matrices; send
 * elements of two receive units (receive counts twice the send counts).
 * Every rank's part from rank r must hold r's part for it.  Then a broken
 * schedule (parts sent to the wrong displacement) must be rejected.  No MPI.
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

static unsigned next(void) { return tc_test_rand(&rng); }

/* counts[r*p+j]: elements rank r sends to j (in send elements). */
static void make_counts(int p, int kind, int symmetric, int64_t *c)
{
    for (int r = 0; r < p; r++)
        for (int j = 0; j < p; j++) {
            unsigned x = next() % 8;
            int64_t n = x < 2 ? 0 : x < 6 ? 1 + next() % 4 : 200 + next() % 50;   /* zeros, small, large */
            if (kind == 1 && r == p / 2) n = 0;                                    /* an all-zero row */
            c[r * p + j] = n;
        }
    for (int r = 0; symmetric && r < p; r++)
        for (int j = 0; j < r; j++) c[r * p + j] = c[j * p + r];
}

/* Displacements: the parts in a shuffled order, with gaps. */
static void make_displs(int p, const int64_t *counts, int64_t *displs)
{
    int *order = malloc((size_t)p * sizeof *order);
    for (int j = 0; j < p; j++) order[j] = j;
    for (int j = p - 1; j > 0; j--) {
        int k = (int)(next() % (unsigned)(j + 1)), t = order[j];
        order[j] = order[k], order[k] = t;
    }
    int64_t at = next() % 3;
    for (int i = 0; i < p; i++) {
        displs[order[i]] = at;
        at += counts[order[i]] + next() % 3;
    }
    free(order);
}

typedef struct vcase {
    int p;
    int64_t *sc, *sd, *rc, *rd;   /* [p*p]: row r is rank r's */
    tc_vcounts *v;                /* [p] */
} vcase;

static void vcase_make(vcase *k, int p, int kind, int in_place, int scale)
{
    size_t pp = (size_t)p * (size_t)p;
    k->p = p;
    int64_t *all = malloc(4 * pp * sizeof *all), *m = malloc(pp * sizeof *m);
    k->sc = all, k->sd = all + pp, k->rc = all + 2 * pp, k->rd = all + 3 * pp;
    k->v = malloc((size_t)p * sizeof *k->v);
    make_counts(p, kind, in_place, m);
    for (int r = 0; r < p; r++)
        for (int j = 0; j < p; j++) {
            k->sc[r * p + j] = m[r * p + j];
            k->rc[r * p + j] = m[j * p + r] * scale;   /* what j sends r, in receive elements */
        }
    for (int r = 0; r < p; r++) {
        make_displs(p, k->sc + r * p, k->sd + r * p);
        make_displs(p, k->rc + r * p, k->rd + r * p);
        if (in_place) k->v[r] = (tc_vcounts){ k->rc + r * p, k->rd + r * p, k->rc + r * p, k->rd + r * p };
        else k->v[r] = (tc_vcounts){ k->sc + r * p, k->sd + r * p, k->rc + r * p, k->rd + r * p };
    }
    free(m);
}

static void vcase_free(vcase *k)
{
    free(k->sc);
    free(k->v);
}

static void run(const tc_algo *al, const tc_topo *t, const char *spec, int kind, int in_place, int scale)
{
    vcase k;
    vcase_make(&k, t->size, kind, in_place, scale);
    tc_args a;
    memset(&a, 0, sizeof a);
    a.coll = al->coll;
    a.size = t->size;
    a.in_place = in_place;
    a.commutative = 1;
    a.node_shm = 1;
    tc_verify_report rep;
    tc_verify_status st = tc_verify_vcounts(al, t, &a, k.v, scale == 2 ? 2 : 1, 1, &rep);
    CHECK(st == TC_VERIFY_OK, "alltoallv/%s p=%d topo=%s kind=%d in_place=%d units=%d: %s", al->name,
          t->size, spec, kind, in_place, scale, rep.msg);
    vcase_free(&k);
}

/* Linear, but the part for r+1 goes where the part from r-1 belongs. */
static int broken(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank;
    tc_sched_copy(s, tc_reg(TC_BUF_SEND, a->v->sdispls[r], a->v->scounts[r]),
                  tc_reg(TC_BUF_RECV, a->v->rdispls[r], a->v->rcounts[r]));
    for (int k = 1; k < p; k++) {
        int src = tc_wrap(r - k, p), dst = tc_wrap(r + k, p), wrong = tc_wrap(r - (k % (p - 1)) - 1, p);
        tc_sched_recv(s, src, tc_reg(TC_BUF_RECV, a->v->rdispls[wrong], a->v->rcounts[src]));
        tc_sched_send(s, dst, tc_reg(TC_BUF_SEND, a->v->sdispls[dst], a->v->scounts[dst]));
    }
    tc_sched_round(s);
    return 0;
}

int main(void)
{
    rng = 0x9E3779B97F4A7C15ull;
    for (int p = 1; p <= 20; p++) vsweep_p(p, TOPOCOLL_ALLTOALLV, 2, run);
    vsweep_p(32, TOPOCOLL_ALLTOALLV, 2, run);
    /* the broken schedule, on a matrix with equal counts (so sizes match) */
    tc_algo bad = { .coll = TOPOCOLL_ALLTOALLV, .name = "broken", .generate = broken };
    tc_topo *t = tc_topo_flat(5);
    int64_t c[5] = { 2, 2, 2, 2, 2 }, d[5] = { 0, 2, 4, 6, 8 };
    tc_vcounts v[5];
    for (int r = 0; r < 5; r++) v[r] = (tc_vcounts){ c, d, c, d };
    tc_args a;
    memset(&a, 0, sizeof a);
    a.coll = TOPOCOLL_ALLTOALLV;
    a.size = 5;
    tc_verify_report rep;
    tc_verify_status st = t ? tc_verify_vcounts(&bad, t, &a, v, 1, 1, &rep) : TC_VERIFY_OK;
    CHECK(st == TC_VERIFY_FAIL, "a broken alltoallv schedule was not rejected");
    if (st == TC_VERIFY_FAIL) printf("rejected as expected: %s\n", rep.msg);
    tc_topo_free(t);
    return tc_test_summary();
}
