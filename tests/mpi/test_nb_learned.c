/*
 * A nonblocking call after the blocking learner has settled its key
 * (docs/nonblocking.md, "Which algorithm serves a nonblocking call"):
 * where the learned choice has no nonblocking form (node-shared memory),
 * the fastest entry with one among those the learner timed serves.  The
 * timings are agreed, so every rank must start the same entry, even under
 * TOPOCOLL_LEARN_NOISE (set by the registration: each rank's own timings
 * differ at random).
 *
 * For allreduce at 8 B, 64 KiB and 1 MiB per rank: CALLS blocking calls
 * (learning from the first call: the program sets TOPOCOLL_LEARN_PATIENCE
 * and TOPOCOLL_LEARN_PAYBACK to 0 unless the environment does), then NB
 * MPI_Iallreduce starts, each waited for and its result checked against
 * the sum computed locally; every start's entry (topocoll_last_algorithm())
 * must be the same on every rank and must not be the MPI library's own
 * (topocoll serves allreduce nonblocking with an entry of its own wherever
 * one accepts the call).
 *
 * Rank 0 prints "N passed, M failed".
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topocoll.h"
#include "common/mpi_harness.h"

#define CALLS 300   /* enough to explore (about 90 calls) and settle */
#define NB 20

static int rank, size;

static void fill(int *v, int n, int call)
{
    for (int i = 0; i < n; i++) v[i] = (rank + 1) * (i % 97 + 1) + call;
}

/* Rank r's fill summed over the ranks. */
static int expected(int i, int call)
{
    return (size * (size + 1) / 2) * (i % 97 + 1) + size * call;
}

static void one_size(int count)
{
    int *in = malloc((size_t)count * sizeof *in), *out = malloc((size_t)count * sizeof *out);
    if (!in || !out) MPI_Abort(MPI_COMM_WORLD, 2);
    for (int c = 0; c < CALLS; c++) {
        fill(in, count, c);
        MPI_Allreduce(in, out, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    int wrong = 0, native = 0, disagree = 0;
    char first[64] = "";
    for (int c = 0; c < NB; c++) {
        fill(in, count, c);
        MPI_Request r;
        MPI_Iallreduce(in, out, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
        const char *name = topocoll_last_algorithm();
        if (c == 0) snprintf(first, sizeof first, "%s", name);
        native += strcmp(name, "native") == 0;
        disagree += !tc_test_same_name_everywhere(name);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        for (int i = 0; i < count; i++) wrong += out[i] != expected(i, c);
    }
    CHECK(wrong == 0, "allreduce %d ints: %d wrong elements in the nonblocking results", count, wrong);
    CHECK(disagree == 0, "allreduce %d ints: %d of %d starts ran different entries on different ranks", count,
          disagree, NB);
    CHECK(native == 0, "allreduce %d ints: %d of %d starts went to the MPI library (first: %s)", count, native, NB,
          first);
    if (rank == 0) printf("allreduce %d ints: nonblocking starts served by %s\n", count, first);
    free(in);
    free(out);
}

int main(int argc, char **argv)
{
    setenv("TOPOCOLL_LEARN_PATIENCE", "0", 0);
    setenv("TOPOCOLL_LEARN_PAYBACK", "0", 0);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static const int counts[] = { 2, 16384, 262144 };
    for (int k = 0; k < 3; k++) one_size(counts[k]);
    int status = tc_test_mpi_summary(0);
    MPI_Finalize();
    return status;
}
