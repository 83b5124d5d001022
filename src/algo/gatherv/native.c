/*
 * gatherv "native": the MPI library's own MPI_Gatherv (called as
 * PMPI_Gatherv, so the interposer cannot recurse).
 */
#include "algo/catalog.h"

const tc_algo tc_gatherv_native = {
    .coll = TOPOCOLL_GATHERV, .name = "native",
    .desc = "the MPI library's own MPI_Gatherv (PMPI_Gatherv)",
    .req = TC_REQ_NATIVE, .generate = NULL, .source = __FILE__,
};
