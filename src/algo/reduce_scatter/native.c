/*
 * reduce_scatter "native": the MPI library's own MPI_Reduce_scatter (called
 * as PMPI_Reduce_scatter, so the interposer cannot recurse).  In the
 * catalog so that the benchmark, the tests and selection treat it like any
 * other algorithm.
 */
#include "algo/catalog.h"

const tc_algo tc_reduce_scatter_native = {
    .coll = TOPOCOLL_REDUCE_SCATTER, .name = "native",
    .desc = "the MPI library's own MPI_Reduce_scatter (PMPI_Reduce_scatter)",
    .req = TC_REQ_NATIVE, .generate = NULL, .source = __FILE__,
};
