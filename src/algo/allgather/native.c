/*
 * allgather "native": the MPI library's own MPI_Allgather (called as
 * PMPI_Allgather, so the interposer cannot recurse).  Listed in the catalog
 * so that the benchmark, the tests and selection treat it like any other
 * algorithm; the executor is bypassed.
 */
#include "algo/catalog.h"

const tc_algo tc_allgather_native = {
    .coll = TOPOCOLL_ALLGATHER, .name = "native",
    .desc = "the MPI library's own MPI_Allgather (PMPI_Allgather)",
    .req = TC_REQ_NATIVE, .generate = NULL, .source = __FILE__,
};
