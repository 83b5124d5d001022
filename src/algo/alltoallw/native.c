/*
 * alltoallw "native": the MPI library's own MPI_Alltoallw (called as
 * PMPI_Alltoallw).  In the catalog so that tests and selection treat it like
 * any other algorithm.
 */
#include "algo/catalog.h"

const tc_algo tc_alltoallw_native = {
    .coll = TOPOCOLL_ALLTOALLW, .name = "native",
    .desc = "the MPI library's own MPI_Alltoallw (PMPI_Alltoallw)",
    .req = TC_REQ_NATIVE, .generate = NULL, .source = __FILE__,
};
