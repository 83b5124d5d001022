/*
 * alltoall "native": the MPI library's own MPI_Alltoall (called as
 * PMPI_Alltoall, so the interposer cannot recurse).  In the catalog so that
 * the benchmark, the tests and selection treat it like any other algorithm.
 */
#include "algo/catalog.h"

const tc_algo tc_alltoall_native = {
    .coll = TOPOCOLL_ALLTOALL, .name = "native",
    .desc = "the MPI library's own MPI_Alltoall (PMPI_Alltoall)",
    .req = TC_REQ_NATIVE, .generate = NULL, .source = __FILE__,
};
