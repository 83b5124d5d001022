/*
 * An ordinary MPI program (linked against MPI only) for the environment
 * checks of tests/mpi/check_misc_env.sh, run with the topocoll interposer
 * preloaded: exactly 7 MPI_Allreduce calls (MPI_DOUBLE, MPI_SUM, counts 1 to
 * 7) and 3 MPI_Allgather calls (2 ints per rank) on MPI_COMM_WORLD, each
 * result checked, errors returned (MPI_ERRORS_RETURN) and printed, one line
 * each: "rank R: MPI_Allgather: class C: message".  Rank 0 prints
 * " No Errors" when every call of every rank succeeded with the right
 * result, else " Errors" (MPICH's test convention); exits 0 either way.
 */
#include <mpi.h>
#include <stdio.h>

#define N_ALLREDUCE 7
#define N_ALLGATHER 3

static int rank, size;

static int failed(int rc, const char *fn)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0, cls = -1;
    if (rc == MPI_SUCCESS) return 0;
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, msg, &len);
    printf("rank %d: %s: class %d%s: %s\n", rank, fn, cls, cls == MPI_ERR_ARG ? " (MPI_ERR_ARG)" : "", msg);
    fflush(stdout);
    return 1;
}

int main(int argc, char **argv)
{
    int bad = 0, allbad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int n = 1; n <= N_ALLREDUCE; n++) {
        double in[N_ALLREDUCE], out[N_ALLREDUCE];
        for (int i = 0; i < n; i++) in[i] = rank + i, out[i] = -1;
        if (failed(MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce")) {
            bad = 1;
            continue;
        }
        for (int i = 0; i < n; i++)
            if (out[i] != size * (size - 1) / 2.0 + (double)size * i) bad = 1;
    }
    for (int k = 0; k < N_ALLGATHER; k++) {
        int in[2] = { rank, k }, out[2 * 64];
        if (size > 64) break;
        if (failed(MPI_Allgather(in, 2, MPI_INT, out, 2, MPI_INT, MPI_COMM_WORLD), "MPI_Allgather")) {
            bad = 1;
            continue;
        }
        for (int j = 0; j < size; j++)
            if (out[2 * j] != j || out[2 * j + 1] != k) bad = 1;
    }
    PMPI_Allreduce(&bad, &allbad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) printf(allbad ? " Errors\n" : " No Errors\n");
    MPI_Finalize();
    return 0;
}
