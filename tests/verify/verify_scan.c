/* Verifier sweep of the scan and exscan catalogs (every entry with a
 * schedule): p = 1..40 and a few p up to 200; counts 0, 1, 3 and 5p+2; in
 * place and not; commutative and non-commutative operations; flat, unequal
 * nodes (and sockets), block, cyclic and random mappings.  The verifier
 * checks that rank r's result combines exactly ranks 0..r (exscan: 0..r-1,
 * rank 0's receive buffer never written) in rank order; each verdict is
 * checked against the entry's declared domain (sweep.h): "hierarchical"
 * must decline a mapping whose nodes are not blocks of consecutive ranks,
 * for that reason.  No MPI. */
#include <stdio.h>
#include <string.h>

#include "verify/sweep.h"
#include "topo_specs.h"

static const topocoll_coll colls[] = { TOPOCOLL_SCAN, TOPOCOLL_EXSCAN };
#define NCOLLS ((int)(sizeof colls / sizeof colls[0]))

static void run_case(const tc_algo *al, const tc_topo *t, const char *spec, int64_t count, int in_place,
                     int commutative)
{
    tc_args a;
    memset(&a, 0, sizeof a);
    a.scount = a.rcount = count;
    a.in_place = in_place;
    a.commutative = commutative;
    sweep_case(al, t, spec, a, 1, 1);
}

static long point;

static void sweep_topo(const tc_topo *t, const char *spec)
{
    int p = t->size;
    point++;
    int64_t counts[] = { 0, 1, 3, 5 * (int64_t)p + 2 };
    for (int k = 0; k < NCOLLS; k++)
        for (int i = 0; i < tc_catalog_variant_count(colls[k]); i++) {
            const tc_algo *al = tc_catalog_variant_at(colls[k], i);
            if (!al->generate || !sweep_runs(al, point)) continue;
            for (int c = 0; c < 4; c++)
                for (int ip = 0; ip < 2; ip++)
                    for (int comm = 0; comm < 2; comm++) run_case(al, t, spec, counts[c], ip, comm);
            tc_args a;
            memset(&a, 0, sizeof a);
            a.commutative = 1;
            domain_case(al, t, a);   /* without node-shared memory */
        }
}

static void sweep_spec(const char *spec, int p) { visit_spec(spec, p, sweep_topo); }

/* Unequal nodes of consecutive ranks ("3,1,4,1,5,..."), optionally with
 * unequal sockets ("2+1"). */
static void node_list(int p, int sockets, char *out, size_t len) { unequal_nodes_spec(p, sockets, out, len); }

static void sweep_p(int p)
{
    static const char *fixed[] = { "4x*", "4x*/cyclic", "3x2x*/cyclic", "5x*/random:3", "2x3x*/random:7",
                                   "1x2x*", "1x3x*/cyclic", NULL };
    char spec[1024];
    tc_topo *flat = tc_topo_flat(p);
    if (flat) {
        sweep_topo(flat, "flat");
        tc_topo_free(flat);
    }
    node_list(p, 0, spec, sizeof spec);
    sweep_spec(spec, p);
    node_list(p, 1, spec, sizeof spec);
    sweep_spec(spec, p);
    strncat(spec, "/random:11", sizeof spec - strlen(spec) - 1);
    sweep_spec(spec, p);
    for (const char **s = fixed; *s; s++) sweep_spec(*s, p);
}

int main(void)
{
    static const int large_p[] = { 64, 100, 128, 200 };
    for (int p = 1; p <= 40; p++) sweep_p(p);
    for (int i = 0; i < (int)(sizeof large_p / sizeof large_p[0]); i++) sweep_p(large_p[i]);
    for (int k = 0; k < NCOLLS; k++) {
        int n = 0;
        for (int i = 0; i < tc_catalog_variant_count(colls[k]); i++)
            n += tc_catalog_variant_at(colls[k], i)->generate != NULL;
        printf("%s: %d entries with a schedule\n", tc_coll_name(colls[k]), n);
    }
    printf("%ld cases declined as their domains say\n", sweep_stat.declined);
    return tc_test_summary();
}
