/*
 * scatter "native": the MPI library's own MPI_Scatter (called as PMPI_Scatter, so the
 * interposer cannot recurse).  In the catalog so that the benchmark, the
 * tests and selection treat it like any other algorithm.
 */
#include "algo/catalog.h"

const tc_algo tc_scatter_native = {
    .coll = TOPOCOLL_SCATTER, .name = "native",
    .desc = "the MPI library's own MPI_Scatter (PMPI_Scatter)",
    .req = TC_REQ_NATIVE, .generate = NULL, .source = __FILE__,
};
