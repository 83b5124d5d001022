/* Verifier sweep of the hierarchical allgather family: every entry on many
 * virtual topologies (unequal nodes and sockets, block / cyclic / random
 * mappings), in place and not, with equal and different send/receive types;
 * a sample of entries up to 1024 ranks.  No MPI.  Ends with
 * "N passed, M failed". */
#include <stdio.h>
#include <string.h>

#include "algo/catalog.h"
#include "verify/verify.h"
#include "topo/topo.h"

typedef struct counts { long pass, fail, declined; } counts;

static void run_case(const tc_algo *al, const tc_topo *t, const char *spec, int in_place,
                     int64_t scount, int u_send, int64_t rcount, counts *c)
{
    tc_args a;
    memset(&a, 0, sizeof a);
    a.coll = TOPOCOLL_ALLGATHER;
    a.size = t->size;
    a.scount = scount;
    a.rcount = rcount;
    a.in_place = in_place;
    tc_verify_report rep;
    tc_verify_status st = tc_verify(al, t, &a, u_send, 1, &rep);
    if (st == TC_VERIFY_OK) c->pass++;
    else if (st == TC_VERIFY_DECLINED) c->declined++;
    else {
        c->fail++;
        if (c->fail <= 20)
            printf("FAIL %s p=%d topo=%s in_place=%d: %s\n", al->name, t->size, spec, in_place, rep.msg);
    }
}

/* Small and medium topologies: every hierarchical entry. */
static const char *small_specs[] = {
    "1", "1,1", "3,1,4", "3,1,4/cyclic", "2+1,1", "2+1,1,3+1/random:5", "1+3,2+2/cyclic",
    "2x2x2", "2x2x2/cyclic", "2x2x2/random:9", "3x2x3/cyclic", "4x2x*/random:1",
    "5,1,2,7,3/random:4", "2x4x3", "3x1x5/cyclic", "7+1,2,1+1+1/random:2", NULL
};
/* Large: a sample of entries. */
static const char *large_specs[] = { "16x2x*/cyclic", "33x2x*/random:3", "64x2x8", NULL };
static const int large_p[] = { 256, 512, 1024 };

static int is_family(const tc_algo *al) { return al->name[0] == 'h' && strchr(al->name, '_'); }

int main(void)
{
    counts c = { 0, 0, 0 };
    int n = tc_catalog_count(TOPOCOLL_ALLGATHER), nfam = 0;
    for (int s = 0; small_specs[s]; s++) {
        /* a spec with '*' spreads 13 ranks; the others fix their size */
        char err[256];
        int p = strchr(small_specs[s], '*') ? 13 : 0;
        for (int try = 1; try <= 64 && !p; try++) {
            tc_topo *t = tc_topo_from_spec(small_specs[s], try, err, sizeof err);
            if (t) { p = try; tc_topo_free(t); }
        }
        tc_topo *t = tc_topo_from_spec(small_specs[s], p, err, sizeof err);
        if (!t) { printf("FAIL spec %s: %s\n", small_specs[s], err); c.fail++; continue; }
        for (int i = 0; i < n; i++) {
            const tc_algo *al = tc_catalog_at(TOPOCOLL_ALLGATHER, i);
            if (!is_family(al)) continue;
            nfam += s == 0;
            for (int ip = 0; ip < 2; ip++) run_case(al, t, small_specs[s], ip, 2, 1, 2, &c);
            run_case(al, t, small_specs[s], 0, 1, 3, 3, &c);
        }
        tc_topo_free(t);
    }
    for (int s = 0; large_specs[s]; s++) {
        char err[256];
        tc_topo *t = tc_topo_from_spec(large_specs[s], large_p[s], err, sizeof err);
        if (!t) { printf("FAIL spec %s: %s\n", large_specs[s], err); c.fail++; continue; }
        for (int i = 0, k = 0; i < n; i++) {
            const tc_algo *al = tc_catalog_at(TOPOCOLL_ALLGATHER, i);
            if (!is_family(al) || k++ % 7 != s % 7) continue;  /* a rotating sample */
            run_case(al, t, large_specs[s], s == 1, 1, 1, 1, &c);
        }
        tc_topo_free(t);
    }
    printf("hierarchical verifier: %d entries, %ld declined\n", nfam, c.declined);
    printf("%ld passed, %ld failed\n", c.pass, c.fail);
    return c.fail ? 1 : 0;
}
