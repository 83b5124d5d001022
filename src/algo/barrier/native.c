/*
 * barrier "native": the MPI library's own MPI_Barrier (called as
 * PMPI_Barrier, so the interposer cannot recurse).  In the catalog so that
 * the benchmark, the tests and selection treat it like any other algorithm.
 */
#include "algo/catalog.h"

const tc_algo tc_barrier_native = {
    .coll = TOPOCOLL_BARRIER, .name = "native",
    .desc = "the MPI library's own MPI_Barrier (PMPI_Barrier)",
    .req = TC_REQ_NATIVE, .generate = NULL, .source = __FILE__,
};
