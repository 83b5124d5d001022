/*
 * reduce "native": the MPI library's own MPI_Reduce (called as PMPI_Reduce, so the
 * interposer cannot recurse).  In the catalog so that the benchmark, the
 * tests and selection treat it like any other algorithm.
 */
#include "algo/catalog.h"

const tc_algo tc_reduce_native = {
    .coll = TOPOCOLL_REDUCE, .name = "native",
    .desc = "the MPI library's own MPI_Reduce (PMPI_Reduce)",
    .req = TC_REQ_NATIVE, .generate = NULL, .source = __FILE__,
};
