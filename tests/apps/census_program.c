/*
 * A plain MPI program with known collective calls, for the census library
 * (tools/apps/census.c; tests/apps/check_census.py checks its report):
 * 1 MPI_Ibarrier, on MPI_COMM_WORLD, and 3 MPI_Barrier, 1 MPI_Scan of one
 * double, 2 MPI_Gatherv of rank+1 ints to rank 0 and 1 MPI_Allreduce
 * (collectives topocoll serves: the census must not count them).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, np = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    for (int i = 0; i < 3; i++) MPI_Barrier(MPI_COMM_WORLD);

    int *counts = malloc(sizeof(int) * (size_t)np), *displs = malloc(sizeof(int) * (size_t)np);
    int total = 0;
    for (int r = 0; r < np; r++) {
        counts[r] = r + 1;
        displs[r] = total;
        total += r + 1;
    }
    int *recv = malloc(sizeof(int) * (size_t)total), send[64];
    for (int i = 0; i < rank + 1 && i < 64; i++) send[i] = rank;
    for (int i = 0; i < 2; i++)
        MPI_Gatherv(send, rank + 1, MPI_INT, recv, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);

    double x = 1.0, prefix = 0.0, sum = 0.0;
    MPI_Scan(&x, &prefix, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Request req;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

    int ok = prefix == (double)(rank + 1) && sum == (double)np;
    if (rank == 0)
        for (int r = 0; r < np; r++)
            for (int i = 0; i < counts[r]; i++) ok = ok && recv[displs[r] + i] == r;
    free(counts);
    free(displs);
    free(recv);
    if (rank == 0) printf(ok ? "OK\n" : "WRONG\n");
    MPI_Finalize();
    return ok ? 0 : 1;
}
