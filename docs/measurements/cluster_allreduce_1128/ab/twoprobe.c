/* Are two back-to-back Rabenseifner allreduces of n/2 slower than one of n?
 * usage: twoprobe BYTES ITERS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "topocoll.h"

static double run(int mode, double *s, double *r, int n, int iters)
{
    double worst = 0, sum = 0;
    for (int it = -2; it < iters; it++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (mode == 0) topocoll_allreduce_algorithm("reduce_scatter_allgather", s, r, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        else if (mode == 1 || mode == 2) {
            topocoll_allreduce_algorithm("reduce_scatter_allgather", s, r, n / 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            if (mode == 2) MPI_Barrier(MPI_COMM_WORLD);
            topocoll_allreduce_algorithm("reduce_scatter_allgather", s + n / 2, r + n / 2, n - n / 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        } else if (mode == 3) topocoll_allreduce_algorithm("h2_shm_rsa", s, r, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        else if (mode == 4) PMPI_Allreduce(s, r, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        else if (mode == 5) {
            PMPI_Allreduce(s, r, n / 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            PMPI_Allreduce(s + n / 2, r + n / 2, n - n / 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        }
        double t = MPI_Wtime() - t0, tmax;
        MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (it >= 0) { sum += tmax; if (tmax > worst) worst = tmax; }
    }
    return sum / iters;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int n = (int)(atol(argv[1]) / 8), iters = atoi(argv[2]);
    double *s = malloc(sizeof(double) * n), *r = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) s[i] = i % 7;
    const char *names[] = { "one rsa n", "two rsa n/2", "two rsa n/2 + barrier", "h2_shm_rsa", "native n", "two native n/2" };
    for (int rep = 0; rep < 2; rep++)
        for (int m = 0; m < 6; m++) {
            double t = run(m, s, r, n, iters);
            if (rank == 0) printf("%-24s %8.0f us\n", names[m], t * 1e6);
        }
    free(s); free(r);
    MPI_Finalize();
    return 0;
}
