/*
 * scan and exscan "native": the MPI library's own MPI_Scan and MPI_Exscan
 * (called as PMPI_Scan / PMPI_Exscan, so the interposer cannot recurse).  In
 * the catalog so that the benchmark, the tests and selection treat it like
 * any other algorithm.
 */
#include "algo/catalog.h"

const tc_algo tc_scan_native = {
    .coll = TOPOCOLL_SCAN, .name = "native",
    .desc = "the MPI library's own MPI_Scan (PMPI_Scan)",
    .req = TC_REQ_NATIVE, .generate = NULL, .source = __FILE__,
};

const tc_algo tc_exscan_native = {
    .coll = TOPOCOLL_EXSCAN, .name = "native",
    .desc = "the MPI library's own MPI_Exscan (PMPI_Exscan)",
    .req = TC_REQ_NATIVE, .generate = NULL, .source = __FILE__,
};
