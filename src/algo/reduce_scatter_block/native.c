/*
 * reduce_scatter_block "native": the MPI library's own MPI_Reduce_scatter_block (called as PMPI_Reduce_scatter_block, so the
 * interposer cannot recurse).  In the catalog so that the benchmark, the
 * tests and selection treat it like any other algorithm.
 */
#include "algo/catalog.h"

const tc_algo tc_reduce_scatter_block_native = {
    .coll = TOPOCOLL_REDUCE_SCATTER_BLOCK, .name = "native",
    .desc = "the MPI library's own MPI_Reduce_scatter_block (PMPI_Reduce_scatter_block)",
    .req = TC_REQ_NATIVE, .generate = NULL, .source = __FILE__,
};
