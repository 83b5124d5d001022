/*
 * Allgather through topocoll's selection at the main job's two rule sizes
 * (64 B: the direct exchange's rule, 64 KiB: the shared-memory hierarchical
 * rule on 2 x 2), three calls each, results checked on every rank.  Run by
 * check_select_load.sh with TOPOCOLL_EXPLAIN=1 and TOPOCOLL_OVERSUBSCRIBED
 * set or not, which reads the explain lines to see which rules served, and
 * the line "load: FLAG DESCRIPTION" (topocoll_oversubscribed) of rank 0.
 * Rank 0 prints "OK" when nothing failed and "N passed, M failed".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "topocoll.h"
#include "common/mpi_harness.h"

static int rank, size;

static void allgather_of(int count)
{
    int *s = malloc((size_t)count * sizeof(int)), *r = malloc((size_t)count * (size_t)size * sizeof(int));
    if (!s || !r) {
        CHECK(0, "rank %d: out of memory", rank);
        free(s);
        free(r);
        return;
    }
    for (int call = 0; call < 3; call++) {
        for (int i = 0; i < count; i++) s[i] = rank * 100003 + i * 7 + call;
        for (long i = 0; i < (long)count * size; i++) r[i] = -1;
        int rc = topocoll_allgather(s, count, MPI_INT, r, count, MPI_INT, MPI_COMM_WORLD);
        int bad = 0;
        for (int p = 0; p < size && !bad; p++)
            for (int i = 0; i < count && !bad; i++) bad = r[(long)p * count + i] != p * 100003 + i * 7 + call;
        CHECK(rc == MPI_SUCCESS && !bad, "rank %d: allgather of %d ints, call %d: rc %d, %s", rank, count, call, rc,
              bad ? "wrong result" : "result right");
    }
    free(s);
    free(r);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int over = -2;
    char desc[128] = "";
    int rc = topocoll_oversubscribed(MPI_COMM_WORLD, &over, desc, (int)sizeof desc);
    CHECK(rc == MPI_SUCCESS && over >= -1 && over <= 1 && desc[0], "rank %d: topocoll_oversubscribed: rc %d, %d",
          rank, rc, over);
    if (rank == 0) printf("load: %d %s\n", over, desc);
    allgather_of(16);      /* 64 B per rank */
    allgather_of(16384);   /* 64 KiB per rank */
    int status = tc_test_mpi_summary(1);
    MPI_Finalize();
    return status;
}
