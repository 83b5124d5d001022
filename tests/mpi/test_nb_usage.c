/*
 * The nonblocking race times its candidates as the application runs its
 * calls (docs/learning.md, "How the application uses its calls"): MPI_Ibcast
 * of 8 bytes from rank 0 on a duplicate of MPI_COMM_WORLD, a blocking
 * MPI_Barrier after each call (where the race and its later comparisons
 * run), in three phases:
 *   A. PHASE_A calls, each waited for at once (the key's first race);
 *   B. PHASE_B calls with COMPUTE_US of computation between the start and
 *      the wait on every rank, or with --rank0-computes on rank 0 only
 *      (the ranks' usage differs: the comparison is agreed, so every rank
 *      races again or none does);
 *   D. PHASE_A calls of another key (4 ints), each waited for at once:
 *      it races in turn (the first key's watch gives way);
 *   C. PHASE_C calls of that key with the computation on every rank and
 *      TESTS MPI_Test calls spread in it.
 * (The root's operation ends in its start, so the root gives no samples: the
 * race lines checked are rank 0's, a receiver's.)
 * Every call's data is checked on every rank, and every call must be served
 * by the same entry on every rank (topocoll_last_algorithm()).  Under
 * TOPOCOLL_EXPLAIN=1, tests/mpi/check_nb_usage.sh reads rank 0's race lines.
 *
 * Rank 0 prints "N passed, M failed".
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "topocoll.h"
#include "common/mpi_harness.h"

#define PHASE_A 150
#define PHASE_B 400
#define PHASE_C 600
#define COMPUTE_US 30.0
#define TESTS 4

static int rank, size;

/* Busy for us microseconds, with tests MPI_Test calls on r spread in it. */
static void compute(double us, int tests, MPI_Request *r)
{
    double piece = us * 1e-6 / (tests + 1), t = MPI_Wtime();
    for (int i = 0; i <= tests; i++) {
        while (MPI_Wtime() < t + piece * (i + 1)) {
        }
        if (i < tests) {
            int flag = 0;
            MPI_Test(r, &flag, MPI_STATUS_IGNORE);
        }
    }
}

/* n calls of phase ph (count ints, 2 or 4): who computes (-1 none, -2 every rank, else that
 * rank) and with how many tests. */
static void phase(MPI_Comm comm, const char *ph, int count, int n, int who, int tests, int *disagree)
{
    int wrong = 0;
    for (int i = 0; i < n; i++) {
        int v[4] = { -1, -1, -1, -1 };
        if (rank == size - 1) v[0] = i, v[1] = 7 * i + 1, v[2] = v[3] = 5;
        MPI_Request r;
        MPI_Ibcast(v, count, MPI_INT, size - 1, comm, &r);
        const char *served = topocoll_last_algorithm();
        if (who == -2 || who == rank) compute(COMPUTE_US, tests, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        wrong += v[0] != i || v[1] != 7 * i + 1 || (count == 4 && (v[2] != 5 || v[3] != 5));
        *disagree += !tc_test_same_name_everywhere(served ? served : "");
        MPI_Barrier(comm);
    }
    CHECK(wrong == 0, "phase %s: %d of %d calls received wrong data on rank %d", ph, wrong, n, rank);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    int disagree = 0, rank0_only = argc > 1 && strcmp(argv[1], "--rank0-computes") == 0;
    phase(comm, "A (waited at once)", 2, PHASE_A, -1, 0, &disagree);
    phase(comm, "B (computation)", 2, PHASE_B, rank0_only ? 0 : -2, 0, &disagree);
    phase(comm, "D (another key, waited at once)", 4, PHASE_A, -1, 0, &disagree);
    phase(comm, "C (computation and tests)", 4, PHASE_C, -2, TESTS, &disagree);
    CHECK(disagree == 0, "%d calls were served by different entries on different ranks", disagree);
    MPI_Comm_free(&comm);
    int status = tc_test_mpi_summary(0);
    MPI_Finalize();
    return status;
}
