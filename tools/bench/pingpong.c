/*
 * topocoll-pingpong: the one-way latency of a zero-byte message between
 * rank 0 and the first rank on another node (MPI_COMM_TYPE_SHARED tells
 * the nodes apart; the last rank where every rank shares one node), half the
 * mean round trip of a blocking ping-pong.  It is the latency bound of the
 * collectives that move little: a barrier across nodes waits at least one
 * such latency.  Other ranks wait in a barrier.
 *
 *   topocoll-pingpong [-n ITERATIONS] [-r REPETITIONS]
 *
 * Prints one line per repetition and the median:
 *   "pingpong 0 -> R: one-way latency X us" ... "median X us".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The lowest rank not on rank 0's node (the last rank if none). */
static int partner(void)
{
    int rank, size, node_rank0 = 0, other = -1;
    MPI_Comm node;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int leader, *leaders = malloc((size_t)size * sizeof *leaders);
    MPI_Group g, wg;
    MPI_Comm_group(node, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_translate_ranks(g, 1, &node_rank0, wg, &leader);
    MPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 1; r < size && other < 0; r++)
        if (leaders[r] != leaders[0]) other = r;
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    MPI_Comm_free(&node);
    free(leaders);
    return other >= 0 ? other : size - 1;
}

int main(int argc, char **argv)
{
    int n = 2000, reps = 5, rank, size;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-n")) n = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-r")) reps = atoi(argv[i + 1]);
    }
    if (n < 1 || reps < 1 || reps > 1000) {
        fprintf(stderr, "topocoll-pingpong: -n and -r must be positive (-r at most 1000)\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        if (rank == 0) fprintf(stderr, "topocoll-pingpong: needs at least 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    int peer = partner();
    double lat[1000];
    for (int k = 0; k < reps; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime();
        for (int i = 0; i < n && (rank == 0 || rank == peer); i++) {
            if (rank == 0) {
                MPI_Send(NULL, 0, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
                MPI_Recv(NULL, 0, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(NULL, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(NULL, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
            }
        }
        lat[k] = (MPI_Wtime() - t) / n / 2 * 1e6;
        if (rank == 0) printf("pingpong 0 -> %d: one-way latency %.2f us\n", peer, lat[k]);
    }
    if (rank == 0) {
        qsort(lat, (size_t)reps, sizeof lat[0], cmp_double);
        printf("median %.2f us\n", lat[reps / 2]);
    }
    MPI_Finalize();
    return 0;
}
