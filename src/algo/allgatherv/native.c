/*
 * allgatherv "native": the MPI library's own MPI_Allgatherv.
 */
#include "algo/catalog.h"

const tc_algo tc_allgatherv_native = {
    .coll = TOPOCOLL_ALLGATHERV, .name = "native",
    .desc = "the MPI library's own MPI_Allgatherv (PMPI_Allgatherv)",
    .req = TC_REQ_NATIVE, .generate = NULL, .source = __FILE__,
};
