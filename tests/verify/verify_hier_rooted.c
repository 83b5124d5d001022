/* Verifier sweep of the multi-node rooted families: every instance of the
 * reduce and bcast family "hierarchical" (node phase through the
 * node-shared window or point-to-point, 1, 2 or 4 leaders per node, the
 * leaders' binomial or scatter-allgather exchange) on p = 1..17 and a few
 * larger (there one instance per layout, rotating), under block, cyclic, random and unequal node layouts (with
 * unequal sockets), every root of {0, 1, p/2, p-1} and one more, counts 0,
 * 1, 3, 7p+3 and one that leaves unequal segments and pieces, in place and
 * not.  Non-commutative operations must be declined (the family requires
 * commutative ones: sweep.h checks the verdict against the declared
 * domain).  No MPI.  Ends with "N passed, M failed" and exits non-zero on
 * a failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verify/sweep.h"

static int family_entry(const tc_algo *al)
{
    return al->generate && al->family && strcmp(al->family, "hierarchical") == 0;
}

static void run_entry(const tc_algo *al, const tc_topo *t, const char *spec)
{
    int p = t->size, cand[5] = { 0, 1, p / 2, p - 1, (p * 7 + 3) % p };
    /* the pipelined chains (chunks of 4k, 16k or 64k elements) get counts of
     * several chunks and a partial last one, at p 4 and 7 (the chunk size
     * is the entry's: 3 chunks of 4k, 2 of 16k, 2 of 64k elements) */
    int64_t counts[6] = { 0, 1, 3, 7 * (int64_t)p + 3, 1001, 0 };
    int ncounts = 5;
    if ((p == 4 || p == 7) && strstr(al->name, "chain")) {
        counts[5] = strstr(al->name, "chain4k") ? 3 * 4096 + 5 : strstr(al->name, "chain16k") ? 2 * 16384 + 7
                                                                                            : 2 * 65536 + 9;
        ncounts = 6;
    }
    for (int ri = 0; ri < 5; ri++) {
        int dup = 0;
        for (int k = 0; k < ri; k++) dup |= cand[k] == cand[ri];
        if (dup || cand[ri] >= p) continue;
        for (int ci = 0; ci < ncounts; ci++)
            for (int ip = 0; ip < (al->coll == TOPOCOLL_BCAST ? 1 : 2); ip++) {
                tc_args a;
                memset(&a, 0, sizeof a);
                a.scount = a.rcount = counts[ci];
                a.root = cand[ri];
                a.in_place = ip;
                a.commutative = 1;
                sweep_case(al, t, spec, a, 1, 1);
            }
    }
    if (al->coll == TOPOCOLL_REDUCE) {   /* declined: non-commutative */
        tc_args a;
        memset(&a, 0, sizeof a);
        a.scount = a.rcount = 3;
        a.root = p - 1;
        sweep_case(al, t, spec, a, 1, 1);
    }
    tc_args a;
    memset(&a, 0, sizeof a);
    a.commutative = 1;
    domain_case(al, t, a);   /* without node-shared memory: the shm instances decline */
}

static long point;

/* Above p = 17 a family runs one instance per layout, rotating (sweep.h). */
static int run_topo(const char *spec, int p)
{
    static const topocoll_coll colls[] = { TOPOCOLL_REDUCE, TOPOCOLL_BCAST };
    char err[256];
    int entries = 0;
    tc_topo *t = tc_topo_from_spec(spec, p, err, sizeof err);
    if (!t) return 0;   /* the layout does not fit p */
    point++;
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < tc_catalog_variant_count(colls[c]); i++) {
            const tc_algo *al = tc_catalog_variant_at(colls[c], i);
            if (!family_entry(al) || (p > 17 && !sweep_runs(al, point))) continue;
            run_entry(al, t, spec);
            entries++;
        }
    tc_topo_free(t);
    return entries;
}

/* Unequal nodes of p ranks ("3+1,1,4+2,..."): sockets split unequally. */
static void unequal(int p, char *out, size_t len)
{
    static const int sizes[] = { 4, 1, 5, 2, 6, 3, 1 };
    size_t at = 0;
    out[0] = 0;
    for (int left = p, i = 0; left > 0; i++) {
        int n = sizes[i % 7] < left ? sizes[i % 7] : left;
        left -= n;
        const char *sep = at ? "," : "";
        if (n >= 3) at += (size_t)snprintf(out + at, len - at, "%s%d+%d", sep, n - n / 3, n / 3);
        else at += (size_t)snprintf(out + at, len - at, "%s%d", sep, n);
    }
    strncat(out, "/random:5", len - strlen(out) - 1);
}

int main(void)
{
    static const char *fixed[] = { "2x*", "3x*", "2x2x*", "2x2x*/cyclic", "3x2x*/cyclic", "4x*/cyclic",
                                   "3x*/random:7", "2x3x*/random:3", "1x2x*", NULL };
    static const int ps[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16, 17, 24, 31, 33 };
    int entries = 0;
    char spec[512];
    for (int i = 0; i < (int)(sizeof ps / sizeof ps[0]); i++) {
        int p = ps[i];
        for (const char **s = fixed; *s; s++) entries += run_topo(*s, p);
        unequal(p, spec, sizeof spec);
        entries += run_topo(spec, p);
        snprintf(spec, sizeof spec, "%dx*", p);   /* every node of one rank */
        entries += run_topo(spec, p);
    }
    CHECK(entries >= 12 * 20, "only %d (entry, layout) pairs: the reduce and bcast families are missing", entries);
    printf("%ld cases declined as their domains say\n", sweep_stat.declined);
    return tc_test_summary();
}
