/* Verifier sweep of the gatherv and scatterv catalogs (every entry with a
 * schedule): p = 1..16, 20 and 32 on flat, unequal-node, random and cyclic
 * mappings; roots 0, p-1 and p/2; count patterns with fixed seeds (equal,
 * random with zeros, all zero but one, one very large block among small
 * ones, all zero); in place at the root and not; element sizes equal, and
 * the one-block side's elements of two vector units and of half of one.
 * Every rank's view of the root's counts is in its own elements (rootedv.h).
 * Gatherv: the root's block j must hold rank j's block; scatterv: rank j's
 * block must hold the root's block j.  Then broken schedules (a block sent
 * to the wrong rank, or landing at a neighbour's displacement) must be
 * rejected.  No MPI.  Ends with "N passed, M failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/catalog.h"
#include "algo/rootedv.h"
#include "common/harness.h"
#include "topo/topo.h"
#include "verify/verify.h"

static uint64_t rng;

static unsigned next(void) { return tc_test_rand(&rng); }

enum { K_EQUAL, K_RANDOM, K_ONE, K_HUGE, K_ZERO, NKINDS };
static const char *const kind_name[] = { "equal", "random", "one", "huge", "zero" };

/* Counts of kind `kind` (units of the vector side's elements). */
static void make_counts(int p, int kind, int64_t *c)
{
    int big = p > 0 ? (int)(next() % (unsigned)p) : 0;
    for (int j = 0; j < p; j++) {
        unsigned x = next() % 8;
        int64_t n = 3;
        if (kind == K_RANDOM) n = x < 2 ? 0 : 1 + next() % 6;
        if (kind == K_ONE) n = j == big ? 5 : 0;
        if (kind == K_HUGE) n = j == big ? 500 + next() % 50 : next() % 3;
        if (kind == K_ZERO) n = 0;
        c[j] = n;
    }
}

static void packed(const int64_t *c, int64_t *d, int p, int64_t mul)
{
    int64_t at = 0;
    for (int j = 0; j < p; j++) {
        d[j] = at;
        at += c[j] * mul;
    }
}

/* uv: units of a vector element, uo: of a one-block element (both 1 or 2). */
static tc_verify_status verify_case(const tc_algo *al, const tc_topo *t, int root, const int64_t *base,
                                    int in_place, int uv, int uo, tc_verify_report *rep)
{
    int p = t->size, g = al->coll == TOPOCOLL_GATHERV;
    /* root's vector elements: base x lcm / uv; any other rank's: base x lcm / uo */
    int lcm = uv == uo ? uv : uv * uo;
    int64_t *mem = malloc(4 * (size_t)p * sizeof *mem + 1), most = 0;
    int64_t *rc = mem, *rd = mem + p, *oc = mem + 2 * p, *od = mem + 3 * p;
    tc_vcounts *v = malloc((size_t)p * sizeof *v);
    for (int j = 0; j < p; j++) {
        rc[j] = base[j] * lcm / uv;
        oc[j] = base[j] * lcm / uo;
        if (rc[j] > most) most = rc[j];
    }
    packed(rc, rd, p, 1);
    packed(oc, od, p, 1);
    for (int r = 0; r < p; r++) {
        const int64_t *c = r == root ? rc : oc, *d = r == root ? rd : od;
        v[r] = g ? (tc_vcounts){ NULL, NULL, c, d } : (tc_vcounts){ c, d, NULL, NULL };
    }
    tc_args a;
    memset(&a, 0, sizeof a);
    a.coll = al->coll;
    a.size = p;
    a.root = root;
    if (g) a.rcount = most;
    else a.scount = most;
    a.in_place = in_place;
    a.commutative = 1;
    a.node_shm = 1;
    tc_verify_status st = tc_verify_vcounts(al, t, &a, v, g ? uo : uv, g ? uv : uo, rep);
    free(v);
    free(mem);
    return st;
}

static void run(const tc_algo *al, const tc_topo *t, const char *spec)
{
    static const int units[][2] = { { 1, 1 }, { 1, 2 }, { 2, 1 } };
    int p = t->size, roots[3] = { 0, p - 1, p / 2 };
    int64_t *base = malloc((size_t)p * sizeof *base);
    for (int ri = 0; ri < 3; ri++) {
        if (ri > 0 && (roots[ri] == roots[0] || roots[ri] == roots[ri - 1])) continue;
        for (int kind = 0; kind < NKINDS; kind++) {
            make_counts(p, kind, base);
            for (int ip = 0; ip < 2; ip++)
                for (int u = 0; u < 3; u++) {
                    if (ip && u) continue;   /* in place: the root's one type */
                    tc_verify_report rep;
                    tc_verify_status st = verify_case(al, t, roots[ri], base, ip, units[u][0], units[u][1], &rep);
                    CHECK(st == TC_VERIFY_OK, "%s/%s p=%d topo=%s root=%d %s in_place=%d units=%d/%d: %s",
                          tc_coll_name(al->coll), al->name, p, spec, roots[ri], kind_name[kind], ip,
                          units[u][0], units[u][1], rep.msg);
                }
        }
    }
    free(base);
}

static void sweep_p(int p)
{
    static const char *specs[] = { "3,1,4,1,5,9,2,6", "2x*/random:5", "3x*/cyclic", "4x*", NULL };
    static const topocoll_coll colls[] = { TOPOCOLL_GATHERV, TOPOCOLL_SCATTERV };
    for (int s = -1; s < 0 || specs[s]; s++) {
        char err[128];
        tc_topo *t = s < 0 ? tc_topo_flat(p) : tc_topo_from_spec(specs[s], p, err, sizeof err);
        if (!t) continue;
        for (int c = 0; c < 2; c++)
            for (int i = 0; i < tc_catalog_variant_count(colls[c]); i++) {
                const tc_algo *al = tc_catalog_variant_at(colls[c], i);
                if (al->generate) run(al, t, s < 0 ? "flat" : specs[s]);
            }
        tc_topo_free(t);
    }
}

/* scatterv linear, but the root sends rank j the block of rank j+1. */
static int broken_scatterv(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size;
    if (a->rank != a->root) {
        tc_sched_recv(s, a->root, rv_own(a));
    } else {
        rv_root_keep(s, a);
        for (int j = 0; j < p; j++)
            if (j != a->root) tc_sched_send(s, j, rv_root_block(a, (j + 1) % p == a->root ? j : (j + 1) % p));
    }
    tc_sched_round(s);
    return 0;
}

/* gatherv linear, but the root receives rank 1's block at rank 2's
 * displacement. */
static int broken_gatherv(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    if (a->rank != a->root) {
        tc_sched_send(s, a->root, tc_reg(TC_BUF_SEND, 0, a->scount));
    } else {
        tc_sched_copy(s, tc_reg(TC_BUF_SEND, 0, a->scount), tc_reg(TC_BUF_RECV, a->v->rdispls[a->root], a->scount));
        for (int j = 0; j < a->size; j++)
            if (j != a->root)
                tc_sched_recv(s, j, tc_reg(TC_BUF_RECV, a->v->rdispls[j == 1 ? 2 : j == 2 ? 1 : j], a->v->rcounts[j]));
    }
    tc_sched_round(s);
    return 0;
}

static void check_broken(topocoll_coll coll, tc_generate_fn gen)
{
    tc_algo bad = { .coll = coll, .name = "broken", .generate = gen };
    tc_topo *t = tc_topo_flat(5);
    int64_t base[5] = { 2, 2, 2, 2, 2 };
    tc_verify_report rep;
    tc_verify_status st = t ? verify_case(&bad, t, 0, base, 0, 1, 1, &rep) : TC_VERIFY_OK;
    CHECK(st == TC_VERIFY_FAIL, "a broken %s schedule was not rejected", tc_coll_name(coll));
    if (st == TC_VERIFY_FAIL) printf("rejected as expected: %s\n", rep.msg);
    tc_topo_free(t);
}

int main(void)
{
    rng = 0x9E3779B97F4A7C15ull;
    for (int p = 1; p <= 16; p++) sweep_p(p);
    sweep_p(20);
    sweep_p(32);
    check_broken(TOPOCOLL_SCATTERV, broken_scatterv);
    check_broken(TOPOCOLL_GATHERV, broken_gatherv);
    return tc_test_summary();
}
