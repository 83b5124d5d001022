/*
 * The exports' test program: MPI_Allgather, MPI_Bcast and MPI_Reduce of
 * `count` bytes per rank through the MPI library itself (no topocoll), each
 * result checked; prints OK on rank 0 when every rank got the right data.
 *
 *   export_check COUNT
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned char val(int rank, int i) { return (unsigned char)(rank * 31 + i * 7 + 1); }

int main(int argc, char **argv)
{
    int rank, np, bad = 0, gbad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int count = argc > 1 ? atoi(argv[1]) : 64;
    if (count < 4) count = 4;
    unsigned char *a = malloc((size_t)count), *b = malloc((size_t)count * (size_t)np);
    int *x = malloc((size_t)count), *y = malloc((size_t)count);
    if (!a || !b || !x || !y) MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < count; i++) a[i] = val(rank, i);
    MPI_Allgather(a, count, MPI_BYTE, b, count, MPI_BYTE, MPI_COMM_WORLD);
    for (int q = 0; q < np; q++)
        for (int i = 0; i < count; i++) bad += b[(size_t)q * (size_t)count + (size_t)i] != val(q, i);
    for (int i = 0; i < count; i++) a[i] = rank == 0 ? val(0, i) : 0;
    MPI_Bcast(a, count, MPI_BYTE, 0, MPI_COMM_WORLD);
    for (int i = 0; i < count; i++) bad += a[i] != val(0, i);
    int n = count / (int)sizeof(int);
    for (int i = 0; i < n; i++) x[i] = rank + i;
    MPI_Reduce(x, y, n, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    for (int i = 0; rank == 0 && i < n; i++) bad += y[i] != np * (np - 1) / 2 + np * i;
    MPI_Allreduce(&bad, &gbad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("%s\n", gbad ? "WRONG" : "OK");
    free(a); free(b); free(x); free(y);
    MPI_Finalize();
    return gbad != 0;
}
