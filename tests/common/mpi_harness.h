/*
 * The harness's closing line for MPI test programs: every rank's counts
 * summed, rank 0 prints "N passed, M failed" (and "OK" first when asked and
 * nothing failed: tests/mpi/check_interposer.sh looks for it), every rank
 * gets the same exit status.  Collective over MPI_COMM_WORLD.
 */
#ifndef TC_TEST_MPI_HARNESS_H
#define TC_TEST_MPI_HARNESS_H

#include <mpi.h>
#include <stdio.h>

#include "harness.h"

static inline int tc_test_mpi_summary(int print_ok)
{
    long mine[2] = { tc_test_counts_global.passed, tc_test_counts_global.failed }, all[2] = { 0, 1 };
    tc_test_counts total = { 0, 0, 0, 0, 0 };
    int rank = 0, status = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (MPI_Allreduce(mine, all, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS)
        fprintf(stderr, "FAIL rank %d: MPI_Allreduce of the test counts\n", rank);
    total.passed = all[0];
    total.failed = all[1];
    if (rank == 0) {
        if (print_ok && !all[1]) printf("OK\n");
        status = tc_test_summary_of(&total);
    }
    if (MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS) status = 1;
    fflush(stdout);
    return status;
}

/* Does every rank of MPI_COMM_WORLD name the same entry (a hash of name
 * compared with two reductions through PMPI: no topocoll call)? */
static inline int tc_test_same_name_everywhere(const char *name)
{
    unsigned long long h = 1469598103934665603ull, lo = 0, hi = 0;
    for (const char *s = name; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    PMPI_Allreduce(&h, &lo, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    PMPI_Allreduce(&h, &hi, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi;
}

/* The MPI library's own mpi_yield_when_idle, read through the tool
 * interface (0 where it has none: MPICH), independently of the library's
 * reading of it. */
static inline int tc_test_mpi_yields(void)
{
    int provided, index, count, yes = 0;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return 0;
    MPI_T_cvar_handle h;
    if (MPI_T_cvar_get_index("mpi_yield_when_idle", &index) == MPI_SUCCESS &&
        MPI_T_cvar_handle_alloc(index, NULL, &h, &count) == MPI_SUCCESS) {
        unsigned char buf[64] = { 0 };
        if (count == 1 && MPI_T_cvar_read(h, buf) == MPI_SUCCESS)
            for (size_t i = 0; i < sizeof buf; i++) yes |= buf[i] != 0;
        MPI_T_cvar_handle_free(&h);
    }
    MPI_T_finalize();
    return yes;
}

#endif
