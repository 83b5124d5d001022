/*
 * A known set of collective calls for the run summary (TOPOCOLL_STATS):
 * tests/mpi/check_stats.py runs it and checks the summary's counts.
 *
 *   MPI_Allgather        3 on MPI_COMM_WORLD (10 ints)
 *   MPI_Bcast            2 on MPI_COMM_WORLD (100 ints)
 *   MPI_Reduce           4 on each half of MPI_COMM_WORLD (5 ints, MPI_SUM)
 *   MPI_Allgather        1 on MPI_COMM_SELF per rank (1 int)
 *   MPI_Allgather        2 on an inter-communicator between the halves
 *                        (handed to the MPI library by the interposer)
 *
 * Built twice: as a plain MPI program (the interposer preloaded) and with
 * -DSTATS_TOPOCOLL_API, linked with topocoll and calling topocoll_* (no
 * interposer, no inter-communicator: the summary comes from the library's
 * own MPI_Finalize hook).  Results are checked; rank 0 prints "OK" and
 * "N passed, M failed".  Needs an even number of ranks.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common/mpi_harness.h"

#ifdef STATS_TOPOCOLL_API
#include "topocoll.h"
#define ALLGATHER topocoll_allgather
#define BCAST topocoll_bcast
#define REDUCE topocoll_reduce
#else
#define ALLGATHER MPI_Allgather
#define BCAST MPI_Bcast
#define REDUCE MPI_Reduce
#endif

static int rank, size;

static void allgathers(MPI_Comm comm, int calls, int n)
{
    int p, me;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    int *s = malloc((size_t)n * sizeof *s), *r = malloc((size_t)n * p * sizeof *r);
    if (!s || !r) abort();
    for (int c = 0; c < calls; c++) {
        for (int i = 0; i < n; i++) s[i] = me * 100 + i + c;
        int rc = ALLGATHER(s, n, MPI_INT, r, n, MPI_INT, comm), bad = 0;
        for (int q = 0; q < p; q++)
            for (int i = 0; i < n; i++) bad |= r[q * n + i] != q * 100 + i + c;
        CHECK(rc == MPI_SUCCESS && !bad, "rank %d: allgather on a communicator of %d", rank, p);
    }
    free(s);
    free(r);
}

static void bcasts(int calls, int n)
{
    int *b = malloc((size_t)n * sizeof *b), bad = 0;
    if (!b) abort();
    for (int c = 0; c < calls; c++) {
        for (int i = 0; i < n; i++) b[i] = rank == 0 ? i * 3 + c : -1;
        int rc = BCAST(b, n, MPI_INT, 0, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++) bad |= b[i] != i * 3 + c;
        CHECK(rc == MPI_SUCCESS && !bad, "rank %d: bcast", rank);
    }
    free(b);
}

static void reduces(MPI_Comm half, int calls, int n)
{
    int p, me, s[8], r[8];
    MPI_Comm_size(half, &p);
    MPI_Comm_rank(half, &me);
    for (int c = 0; c < calls; c++) {
        for (int i = 0; i < n; i++) s[i] = me + i + c, r[i] = -1;
        int rc = REDUCE(s, r, n, MPI_INT, MPI_SUM, 0, half), bad = 0;
        for (int i = 0; me == 0 && i < n; i++) bad |= r[i] != p * (p - 1) / 2 + p * (i + c);
        CHECK(rc == MPI_SUCCESS && !bad, "rank %d: reduce on a half", rank);
    }
}

#ifndef STATS_TOPOCOLL_API
/* MPI_Allgather on an inter-communicator: each side gets the other's blocks. */
static void inter_allgathers(MPI_Comm half, int calls)
{
    MPI_Comm inter;
    int remote_leader = rank % 2 == 0 ? 1 : 0, rsize = 0;
    int rc = MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, remote_leader, 7, &inter);
    CHECK(rc == MPI_SUCCESS, "rank %d: MPI_Intercomm_create", rank);
    if (rc != MPI_SUCCESS) return;
    MPI_Comm_remote_size(inter, &rsize);
    int *r = malloc((size_t)rsize * sizeof *r);
    if (!r) abort();
    for (int c = 0; c < calls; c++) {
        int s = rank + c, bad = 0;
        rc = MPI_Allgather(&s, 1, MPI_INT, r, 1, MPI_INT, inter);
        /* the remote group: the ranks of the other parity, in order */
        for (int q = 0; q < rsize; q++) bad |= r[q] != 2 * q + (rank % 2 == 0) + c;
        CHECK(rc == MPI_SUCCESS && !bad, "rank %d: allgather on an inter-communicator", rank);
    }
    free(r);
    MPI_Comm_free(&inter);
}
#endif

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    allgathers(MPI_COMM_WORLD, 3, 10);
    bcasts(2, 100);
    reduces(half, 4, 5);
    allgathers(MPI_COMM_SELF, 1, 1);
#ifndef STATS_TOPOCOLL_API
    if (size % 2 == 0) inter_allgathers(half, 2);
#endif
    MPI_Comm_free(&half);
    int status = tc_test_mpi_summary(1);
    MPI_Finalize();
    return status;
}
