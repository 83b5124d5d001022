/*
 * scatterv "native": the MPI library's own MPI_Scatterv (called as
 * PMPI_Scatterv, so the interposer cannot recurse).
 */
#include "algo/catalog.h"

const tc_algo tc_scatterv_native = {
    .coll = TOPOCOLL_SCATTERV, .name = "native",
    .desc = "the MPI library's own MPI_Scatterv (PMPI_Scatterv)",
    .req = TC_REQ_NATIVE, .generate = NULL, .source = __FILE__,
};
