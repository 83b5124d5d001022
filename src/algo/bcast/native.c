/*
 * bcast "native": the MPI library's own MPI_Bcast (called as PMPI_Bcast, so the
 * interposer cannot recurse).  In the catalog so that the benchmark, the
 * tests and selection treat it like any other algorithm.
 */
#include "algo/catalog.h"

const tc_algo tc_bcast_native = {
    .coll = TOPOCOLL_BCAST, .name = "native",
    .desc = "the MPI library's own MPI_Bcast (PMPI_Bcast)",
    .req = TC_REQ_NATIVE, .generate = NULL, .source = __FILE__,
};
