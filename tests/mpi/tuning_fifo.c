/*
 * The first collectives of a program whose TOPOCOLL_TUNING_FILE is not a
 * regular file (tests/mpi/check_tuning_fifo.sh points it at a FIFO nobody
 * writes to): topocoll_allgather and topocoll_bcast through the default
 * selection (which loads the tuning file) must complete with the right
 * results; the wrapper checks the one-line message and that nothing blocked.
 *
 * Rank 0 prints "OK" when nothing failed and "N passed, M failed".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "topocoll.h"
#include "common/mpi_harness.h"

#define N 8

int main(int argc, char **argv)
{
    int rank, size, rc, bad = 0;
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int send[N], b[N], *recv = malloc((size_t)N * (size_t)size * sizeof *recv);
    if (!recv) MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < N; i++) send[i] = rank * 100 + i;
    rc = topocoll_allgather(send, N, MPI_INT, recv, N, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < size && rc == MPI_SUCCESS; r++)
        for (int i = 0; i < N; i++) bad |= recv[r * N + i] != r * 100 + i;
    CHECK(rc == MPI_SUCCESS && !bad, "rank %d: topocoll_allgather returned %d%s", rank, rc,
          bad ? ", wrong result" : "");
    bad = 0;
    for (int i = 0; i < N; i++) b[i] = rank == 0 ? 7 * i + 1 : -1;
    rc = topocoll_bcast(b, N, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++) bad |= b[i] != 7 * i + 1;
    CHECK(rc == MPI_SUCCESS && !bad, "rank %d: topocoll_bcast returned %d%s", rank, rc,
          bad ? ", wrong result" : "");
    free(recv);
    int status = tc_test_mpi_summary(1);
    MPI_Finalize();
    return status;
}
