/* MPI-free tests: a topology from a spec string, or exit 2 with the
 * parser's message (a test that cannot build its layout has nothing to
 * check). */
#ifndef TC_TEST_TOPO_SPEC_H
#define TC_TEST_TOPO_SPEC_H

#include <stdio.h>
#include <stdlib.h>

#include "topo/topo.h"

static inline tc_topo *tc_test_topo(const char *s, int size)
{
    char err[200];
    tc_topo *t = tc_topo_from_spec(s, size, err, sizeof err);
    if (!t) {
        fprintf(stderr, "spec %s: %s\n", s, err);
        exit(2);
    }
    return t;
}

#endif
