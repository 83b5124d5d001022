/*
 * allreduce "native": the MPI library's own MPI_Allreduce (called as
 * PMPI_Allreduce, so the interposer cannot recurse).  In the catalog so that
 * the benchmark, the tests and selection treat it like any other algorithm.
 */
#include "algo/catalog.h"

const tc_algo tc_allreduce_native = {
    .coll = TOPOCOLL_ALLREDUCE, .name = "native",
    .desc = "the MPI library's own MPI_Allreduce (PMPI_Allreduce)",
    .req = TC_REQ_NATIVE, .generate = NULL, .source = __FILE__,
};
