/* Verifier sweep of every collective's catalog (every instance with a
 * schedule; see sweep.h for the sampling of large families): p = 1..64 and
 * a few p up to 512; roots 0, 1, p/2, p-1; counts 0, 1, 3 and 7p+3 (see
 * ncounts); in place and not where the collective allows it; flat, unequal
 * nodes (and sockets), cyclic, spread and random mappings; commutative
 * operations, plus non-commutative ones.  Each verdict is checked against
 * the entry's declared domain (sweep.h): an entry that requires a
 * commutative operation must decline a non-commutative one, for that
 * reason.  No MPI.  Ends with "N passed, M failed" and exits non-zero on a
 * failure.  An argument K/N checks part K of N: every N-th (topology,
 * instance) pair, the N parts together exactly a whole run's cases; CTest
 * runs two parts, verify_collectives_1of2 and _2of2, side by side. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verify/sweep.h"
#include "topo_specs.h"

static const topocoll_coll colls[] = {
    TOPOCOLL_BCAST, TOPOCOLL_SCATTER, TOPOCOLL_GATHER, TOPOCOLL_REDUCE,
    TOPOCOLL_REDUCE_SCATTER_BLOCK, TOPOCOLL_ALLGATHER, TOPOCOLL_ALLREDUCE,
};
#define NCOLLS ((int)(sizeof colls / sizeof colls[0]))

static int rooted(topocoll_coll c)
{
    return c == TOPOCOLL_BCAST || c == TOPOCOLL_SCATTER || c == TOPOCOLL_GATHER || c == TOPOCOLL_REDUCE;
}

static int reduction(topocoll_coll c)
{
    return c == TOPOCOLL_REDUCE || c == TOPOCOLL_REDUCE_SCATTER_BLOCK || c == TOPOCOLL_ALLREDUCE;
}

/* One case; elem_bytes: the receive element's bytes (0: unset; entries that
 * size messages in bytes cut them by it). */
static void run_case(const tc_algo *al, const tc_topo *t, const char *spec, int root,
                     int64_t count, int in_place, int commutative, int64_t elem_bytes)
{
    tc_args a;
    memset(&a, 0, sizeof a);
    a.scount = a.rcount = count;
    a.root = root;
    a.in_place = in_place;
    a.commutative = commutative;
    a.relem_bytes = elem_bytes;
    sweep_case(al, t, spec, a, 1, 1);
}

/* Counts: whole-buffer collectives (bcast, reduce) take 7p+3 up to p = 64
 * (2p+1 above), the per-block ones up to p = 32 (p (7p+3) elements per rank). */
static int ncounts(topocoll_coll coll, int p, int64_t *cnt)
{
    int n = 0, whole = coll == TOPOCOLL_BCAST || coll == TOPOCOLL_REDUCE || coll == TOPOCOLL_ALLREDUCE;
    cnt[n++] = 0;
    cnt[n++] = 1;
    cnt[n++] = 3;
    if (p <= 32 || (whole && p <= 64)) cnt[n++] = 7 * (int64_t)p + 3;
    else if (whole) cnt[n++] = 2 * (int64_t)p + 1;
    return n;
}

static int nroots(topocoll_coll coll, int p, int *roots)
{
    int cand[4] = { 0, 1, p / 2, p - 1 }, n = 0;
    if (!rooted(coll)) {
        roots[0] = 0;
        return 1;
    }
    for (int i = 0; i < 4; i++) {
        int dup = cand[i] >= p;
        for (int j = 0; j < n && !dup; j++) dup = roots[j] == cand[i];
        if (!dup) roots[n++] = cand[i];
    }
    return n;
}

static void sweep_algo(const tc_algo *al, const tc_topo *t, const char *spec, int large)
{
    int p = t->size, roots[4], nr = nroots(al->coll, p, roots);
    int64_t cnt[4];
    int nc = ncounts(al->coll, p, cnt);
    for (int ri = 0; ri < nr; ri++)
        for (int ci = 0; ci < nc; ci++)
            for (int ip = 0; ip < (al->coll == TOPOCOLL_BCAST ? 1 : 2); ip++) {
                if (large && (ci == 0 || ci == 2) && ri) continue;
                run_case(al, t, spec, roots[ri], cnt[ci], ip, 1, 0);
            }
    if (reduction(al->coll)) run_case(al, t, spec, roots[nr - 1], 3, 0, 0, 0);
    if (al->coll == TOPOCOLL_ALLREDUCE && p <= 32)   /* elements of 8 KiB: messages in pieces */
        for (int ip = 0; ip < 2; ip++) run_case(al, t, spec, 0, 7 * (int64_t)p + 3, ip, 1, 8192);
    tc_args a;
    memset(&a, 0, sizeof a);
    a.commutative = 1;
    domain_case(al, t, a);                /* without node-shared memory */
}

static long point;
/* Run in parts ("K/N"): of the (topology, instance) pairs in sweep order,
 * this run checks every N-th from the K-th and walks the others dry
 * (sweep.h), so the N parts together check exactly the cases of a whole
 * run, each about 1/N of every instance's. */
static int part_k, part_n = 1;
static long pair;

static void sweep_topo(const tc_topo *t, const char *spec, int large)
{
    point++;
    for (int k = 0; k < NCOLLS; k++)
        for (int i = 0; i < tc_catalog_variant_count(colls[k]); i++) {
            const tc_algo *al = tc_catalog_variant_at(colls[k], i);
            if (!al->generate || !sweep_runs(al, point)) continue;
            sweep_dry = pair++ % part_n != part_k;
            sweep_algo(al, t, spec, large);
        }
}

/* A node list of p ranks with unequal nodes ("3,1,4,1,5,..."); sockets:
 * every node of 3 or more ranks split into unequal sockets ("2+1"). */
static void node_list(int p, int sockets, char *out, size_t len) { unequal_nodes_spec(p, sockets, out, len); }

static void sweep_spec(const char *spec, int p, int large)
{
    char err[256];
    tc_topo *t = tc_topo_from_spec(spec, p, err, sizeof err);
    if (!t) return;   /* does not fit p */
    sweep_topo(t, spec, large);
    tc_topo_free(t);
}

static void sweep_p(int p, int large)
{
    static const char *fixed[] = { "4x*", "4x*/cyclic", "3x2x*/cyclic", "5x*/random:3",
                                   "2x3x*/random:7", NULL };
    static const char *fixed_large[] = { "16x*", "8x2x*/cyclic", "32x*/random:5", NULL };
    char spec[1024];
    tc_topo *flat = tc_topo_flat(p);
    if (flat) {
        sweep_topo(flat, "flat", large);
        tc_topo_free(flat);
    }
    node_list(p, 0, spec, sizeof spec);
    sweep_spec(spec, p, large);
    node_list(p, 1, spec, sizeof spec);
    strncat(spec, "/random:11", sizeof spec - strlen(spec) - 1);
    sweep_spec(spec, p, large);
    for (const char **s = large ? fixed_large : fixed; *s; s++) sweep_spec(*s, p, large);
    /* one node of several (unequal) sockets: the single-node shared-memory entries */
    if (!large && p >= 2) {
        static const char *one_node[] = { "1x2x*", "1x3x*/cyclic", "1x4x*/random:3", NULL };
        for (const char **s = one_node; *s; s++) sweep_spec(*s, p, large);
        snprintf(spec, sizeof spec, "%d+%d/cyclic", p - p / 3, p / 3 > 0 ? p / 3 : 1);
        if (p >= 3) sweep_spec(spec, p, large);
    }
}

int main(int argc, char **argv)
{
    static const int large_p[] = { 96, 128, 200, 512 };
    if (argc > 1) {
        char extra;
        if (sscanf(argv[1], "%d/%d%c", &part_k, &part_n, &extra) != 2 || part_n < 1 || part_k < 1 ||
            part_k > part_n) {
            fprintf(stderr, "usage: %s [K/N] (part K of N, 1 <= K <= N)\n", argv[0]);
            return 2;
        }
        printf("part %d of %d: every %d-th (topology, instance) pair\n", part_k, part_n, part_n);
        part_k--;
    }
    for (int p = 1; p <= 64; p++) sweep_p(p, 0);
    for (int i = 0; i < (int)(sizeof large_p / sizeof large_p[0]); i++) sweep_p(large_p[i], 1);
    for (int k = 0; k < NCOLLS; k++) {
        int n = 0;
        for (int i = 0; i < tc_catalog_variant_count(colls[k]); i++) n += tc_catalog_variant_at(colls[k], i)->generate != NULL;
        printf("%s: %d instances with a schedule\n", tc_coll_name(colls[k]), n);
    }
    printf("%ld cases declined as their domains say\n", sweep_stat.declined);
    return tc_test_summary();
}
