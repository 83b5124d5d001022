/* An installed-topocoll consumer: one topocoll_allgather, checked. */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>
#include <topocoll.h>

int main(int argc, char **argv)
{
    int rank, size, rc, bad = 0, all = 0, v[2], *r;
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
    if (MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS ||
        MPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS ||
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) != MPI_SUCCESS) {
        MPI_Abort(MPI_COMM_WORLD, 1);
        return 1;
    }
    r = malloc(2 * (size_t)size * sizeof(int));
    if (!r) {
        MPI_Abort(MPI_COMM_WORLD, 1);
        return 1;
    }
    v[0] = rank;
    v[1] = 10 * rank + 1;
    rc = topocoll_allgather(v, 2, MPI_INT, r, 2, MPI_INT, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) bad = 1;
    for (int p = 0; p < size && !bad; p++)
        if (r[2 * p] != p || r[2 * p + 1] != 10 * p + 1) bad = 1;
    if (MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS) all = 1;
    if (rank == 0)
        printf("consumer %s (topocoll %d.%d.%d, np %d, algorithm %s)\n", all ? "FAILED" : "OK",
               TOPOCOLL_VERSION_MAJOR, TOPOCOLL_VERSION_MINOR, TOPOCOLL_VERSION_PATCH, size,
               topocoll_last_algorithm());
    free(r);
    if (MPI_Finalize() != MPI_SUCCESS) return 1;
    return all ? 1 : 0;
}
