/*
 * The per-peer-count verifier sweeps (alltoallv, allgatherv): every entry of
 * a collective with a schedule, on a flat topology and three irregular ones
 * (unequal nodes, random and cyclic mappings), for every count pattern, as
 * is, in place, and with 2-unit send elements.  The caller's run() makes one
 * case's counts and verifies it.
 */
#ifndef TC_TESTS_VSWEEP_H
#define TC_TESTS_VSWEEP_H

#include "algo/catalog.h"
#include "topo/topo.h"
#include "verify/heap.h"

typedef void (*vsweep_run_fn)(const tc_algo *al, const tc_topo *t, const char *spec, int kind, int in_place,
                              int scale);

static void vsweep_topo(topocoll_coll coll, int nkinds, vsweep_run_fn run, const tc_topo *t, const char *spec)
{
    for (int i = 0; i < tc_catalog_variant_count(coll); i++) {
        const tc_algo *al = tc_catalog_variant_at(coll, i);
        if (!al->generate) continue;
        for (int kind = 0; kind < nkinds; kind++) {
            run(al, t, spec, kind, 0, 1);
            run(al, t, spec, kind, 1, 1);
            run(al, t, spec, kind, 0, 2);
        }
    }
}

static void vsweep_p(int p, topocoll_coll coll, int nkinds, vsweep_run_fn run)
{
    static const char *specs[] = { "3,1,4,1,5,9,2,6", "2x*/random:5", "3x*/cyclic", NULL };
    tc_topo *flat = tc_topo_flat(p);
    if (flat) {
        vsweep_topo(coll, nkinds, run, flat, "flat");
        tc_topo_free(flat);
    }
    for (const char **s = specs; *s; s++) {
        char err[128];
        tc_topo *t = tc_topo_from_spec(*s, p, err, sizeof err);
        if (!t) continue;
        vsweep_topo(coll, nkinds, run, t, *s);
        tc_topo_free(t);
    }
}

#endif
