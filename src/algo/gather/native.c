/*
 * gather "native": the MPI library's own MPI_Gather (called as PMPI_Gather, so the
 * interposer cannot recurse).  In the catalog so that the benchmark, the
 * tests and selection treat it like any other algorithm.
 */
#include "algo/catalog.h"

const tc_algo tc_gather_native = {
    .coll = TOPOCOLL_GATHER, .name = "native",
    .desc = "the MPI library's own MPI_Gather (PMPI_Gather)",
    .req = TC_REQ_NATIVE, .generate = NULL, .source = __FILE__,
};
