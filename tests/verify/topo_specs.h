/*
 * The topologies the verifier sweeps build from specs (docs/topology.md):
 * unequal nodes of consecutive ranks, and a spec made and visited if it
 * fits p ranks.
 */
#ifndef TC_VERIFY_TOPO_SPECS_H
#define TC_VERIFY_TOPO_SPECS_H

#include <stdio.h>

#include "topo/topo.h"

/* Unequal nodes "3,1,4,1,5,9,..." cut to p ranks; sockets: nodes of 3 or
 * more ranks get two unequal sockets ("2+1"). */
static inline void unequal_nodes_spec(int p, int sockets, char *out, size_t len)
{
    static const int digits[] = { 3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9 };
    size_t at = 0;
    out[0] = 0;
    for (int left = p, i = 0; left > 0; i++) {
        int n = digits[i % 15] < left ? digits[i % 15] : left;
        left -= n;
        const char *sep = at ? "," : "";
        if (sockets && n >= 3) at += (size_t)snprintf(out + at, len - at, "%s%d+%d", sep, n - n / 3, n / 3);
        else at += (size_t)snprintf(out + at, len - at, "%s%d", sep, n);
    }
}

/* visit(the topology of spec at p ranks, spec); nothing where spec does
 * not fit p. */
static inline void visit_spec(const char *spec, int p, void (*visit)(const tc_topo *t, const char *spec))
{
    char err[256];
    tc_topo *t = tc_topo_from_spec(spec, p, err, sizeof err);
    if (!t) return;
    visit(t, spec);
    tc_topo_free(t);
}

#endif
