/* Verifier sweep of the one-node shared-memory entries of the rooted
 * collectives (every reduce and bcast catalog entry that requires one node)
 * at counts that span several chunks and tiles, which the general sweep
 * (verify_collectives, counts up to 7p+3) does not reach: p = 2..9 on one
 * node of equal, cyclic and unequal sockets, every root of {0, 1, p/2, p-1},
 * in place and not, commutative and not (above p = 5 a large family runs
 * one instance per p, rotating).  No MPI.  Ends with "N passed,
 * M failed" and exits non-zero on a failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verify/sweep.h"

/* bcast counts bytes (chunks of 64 KiB and 512 KiB); reduce counts
 * elements (tiles of 2k, 16k and 128k elements). */
static const int64_t counts[] = { 5, 2 * 2048 + 1, 3 * 65536 + 7, 530000 };
#define NCOUNTS ((int)(sizeof counts / sizeof counts[0]))

static void run_entry(const tc_algo *al, const tc_topo *t, const char *spec)
{
    int p = t->size, cand[4] = { 0, 1, p / 2, p - 1 };
    for (int ri = 0; ri < 4; ri++) {
        if (ri > 0 && cand[ri] == cand[ri - 1]) continue;
        for (int ci = 0; ci < NCOUNTS; ci++)
            for (int ip = 0; ip < (al->coll == TOPOCOLL_BCAST ? 1 : 2); ip++)
                for (int cm = al->coll == TOPOCOLL_BCAST; cm < 2; cm++) {
                    if (counts[ci] > 4100 && (p > 4 || ri > 1 || ip || (cm && al->coll != TOPOCOLL_BCAST))) continue;
                    tc_args a;
                    memset(&a, 0, sizeof a);
                    a.scount = a.rcount = counts[ci];
                    a.root = cand[ri];
                    a.in_place = ip;
                    a.commutative = cm;
                    sweep_case(al, t, spec, a, 1, 1);
                }
    }
}

static void run_topo(const char *spec, int p)
{
    static const topocoll_coll colls[] = { TOPOCOLL_REDUCE, TOPOCOLL_BCAST };
    char err[256];
    tc_topo *t = tc_topo_from_spec(spec, p, err, sizeof err);
    CHECK(t != NULL, "topology %s at p=%d: %s", spec, p, err);
    if (!t) return;
    CHECK(t->nnodes == 1, "topology %s at p=%d: %d nodes, expected one", spec, p, t->nnodes);
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < tc_catalog_variant_count(colls[c]); i++) {
            const tc_algo *al = tc_catalog_variant_at(colls[c], i);
            if (!al->generate || !(al->req & TC_REQ_ONE_NODE)) continue;
            /* p > 5: a row of more than SWEEP_FULL_ROW instances runs one per p */
            if (p <= 5 || sweep_runs(al, p)) run_entry(al, t, spec);
            tc_args a;
            memset(&a, 0, sizeof a);
            a.commutative = 1;
            domain_case(al, t, a);   /* without node-shared memory: declines */
        }
    tc_topo_free(t);
}

int main(void)
{
    int entries = 0;
    for (int c = 0; c < 2; c++) {
        topocoll_coll coll = c ? TOPOCOLL_BCAST : TOPOCOLL_REDUCE;
        for (int i = 0; i < tc_catalog_variant_count(coll); i++)
            entries += (tc_catalog_variant_at(coll, i)->req & TC_REQ_ONE_NODE) != 0;
    }
    CHECK(entries >= 2, "only %d one-node reduce/bcast entries in the catalog", entries);
    for (int p = 2; p <= 9; p++) {
        char spec[64];
        run_topo("1x2x*", p);
        run_topo("1x3x*/cyclic", p);
        snprintf(spec, sizeof spec, "%d+%d/cyclic", p - p / 3, p / 3 > 0 ? p / 3 : 1);
        if (p >= 3) run_topo(spec, p);
    }
    return tc_test_summary();
}
