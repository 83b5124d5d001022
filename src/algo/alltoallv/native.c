/*
 * alltoallv "native": the MPI library's own MPI_Alltoallv (called as
 * PMPI_Alltoallv).  In the catalog so that tests and selection treat it like
 * any other algorithm.
 */
#include "algo/catalog.h"

const tc_algo tc_alltoallv_native = {
    .coll = TOPOCOLL_ALLTOALLV, .name = "native",
    .desc = "the MPI library's own MPI_Alltoallv (PMPI_Alltoallv)",
    .req = TC_REQ_NATIVE, .generate = NULL, .source = __FILE__,
};
