/*
 * Nonblocking collectives in a program that no blocking collective has
 * reached (docs/nonblocking.md, "Communicators without a blocking
 * collective"): MPI_COMM_WORLD's context is made in MPI_Init, so its forced
 * (TOPOCOLL_<COLL>) and named calls run their entry from the first call;
 * its calls by selection are the MPI library's own until a blocking
 * collective reaches it (nothing has been timed); a derived communicator
 * gets its context from its first blocking collective.
 *
 *   1. A nonblocking call never waits for the other ranks: the last rank
 *      starts a named MPI_Iallgather on MPI_COMM_WORLD and then sends rank 0
 *      a token that rank 0 receives before starting its own.
 *   2. Five named operations at once on MPI_COMM_WORLD and one by
 *      selection, completed by one MPI_Waitall.
 *   3. CALLS calls of allgather, allreduce and bcast by selection on
 *      MPI_COMM_WORLD and on a communicator split in reverse rank order:
 *      results right, served alike on every rank; on MPI_COMM_WORLD by the
 *      forced entries with --forced (the test's environment forces
 *      allgather ring, allreduce recursive_doubling, bcast binomial), else
 *      by "native"; on the new communicator by "native" either way.
 *   4. A blocking collective on that communicator makes its context; calls
 *      after it right and alike on every rank, the forced entries with
 *      --forced.
 *   5. MPI_Comm_free of that communicator with an operation in flight.
 * Nothing here calls a blocking collective through topocoll before step 4
 * (the checks reduce through PMPI).
 *
 * Rank 0 prints "N passed, M failed".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topocoll.h"
#include "common/mpi_harness.h"

#define CALLS 40
#define COUNT 6

static int rank, size;

/* Does every rank of MPI_COMM_WORLD hold flag (through PMPI)? */
static int everywhere(int flag)
{
    int all = 0;
    PMPI_Allreduce(&flag, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

/* 1: the last rank's start must return before rank 0 starts. */
static void start_never_waits(void)
{
    int mine[2] = { rank, 3 * rank }, got[2 * 64] = { 0 }, token = 0, wrong = 0;
    MPI_Request r;
    if (rank == 0 && size > 1) MPI_Recv(&token, 1, MPI_INT, size - 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int rc = topocoll_iallgather_algorithm("ring", mine, 2, MPI_INT, got, 2, MPI_INT, MPI_COMM_WORLD, &r);
    if (rank == size - 1 && size > 1) MPI_Send(&token, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
    for (int j = 0; j < size; j++) wrong += got[2 * j] != j || got[2 * j + 1] != 3 * j;
    CHECK(everywhere(rc == MPI_SUCCESS && wrong == 0), "a named Iallgather started before a peer's: rc %d, %d wrong",
          rc, wrong);
}

/* 2: five named operations at once on MPI_COMM_WORLD, and one by
 * selection (the MPI library's own). */
static void many_at_once(void)
{
    MPI_Comm c = MPI_COMM_WORLD;
    int me, n, sum[COUNT], mine[COUNT], root[COUNT], ag[64], a2a_s[64], a2a_r[64], a2a_n[64], wrong = 0;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &n);
    for (int i = 0; i < COUNT; i++) mine[i] = me + i, root[i] = me == 0 ? 100 + i : -1;
    for (int j = 0; j < n; j++) a2a_s[j] = 1000 * me + j;
    MPI_Request r[6];
    int rc = topocoll_iallreduce_algorithm("recursive_doubling", mine, sum, COUNT, MPI_INT, MPI_SUM, c, &r[0]);
    if (rc == MPI_SUCCESS) rc = topocoll_ibcast_algorithm("binomial", root, COUNT, MPI_INT, 0, c, &r[1]);
    if (rc == MPI_SUCCESS) rc = topocoll_ialltoall_algorithm("pairwise", a2a_s, 1, MPI_INT, a2a_r, 1, MPI_INT, c, &r[2]);
    if (rc == MPI_SUCCESS) rc = topocoll_ibarrier_algorithm("dissemination", c, &r[3]);
    if (rc == MPI_SUCCESS) rc = topocoll_iallgather_algorithm("linear", &me, 1, MPI_INT, ag, 1, MPI_INT, c, &r[4]);
    /* by selection: the MPI library's own */
    if (rc == MPI_SUCCESS) rc = MPI_Ialltoall(a2a_s, 1, MPI_INT, a2a_n, 1, MPI_INT, c, &r[5]);
    MPI_Status st[6];
    if (rc == MPI_SUCCESS) rc = MPI_Waitall(6, r, st);
    for (int i = 0; rc == MPI_SUCCESS && i < COUNT; i++)
        wrong += sum[i] != n * (n - 1) / 2 + n * i || root[i] != 100 + i;
    for (int j = 0; rc == MPI_SUCCESS && j < n; j++)
        wrong += a2a_r[j] != 1000 * j + me || a2a_n[j] != 1000 * j + me || ag[j] != j;
    CHECK(everywhere(rc == MPI_SUCCESS && wrong == 0), "six operations at once: rc %d, %d wrong", rc, wrong);
}

/* One call of collective k on c, waited for; wrong results counted, the
 * entry that served it in *served. */
static int one_call(MPI_Comm c, int k, int i, const char **served)
{
    int me, n, wrong = 0, v[COUNT], w[COUNT * 64];
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &n);
    MPI_Request r;
    for (int e = 0; e < COUNT; e++) v[e] = k == 2 ? (me == 0 ? i + e : -1) : me + i + e;
    if (k == 0) MPI_Iallgather(v, COUNT, MPI_INT, w, COUNT, MPI_INT, c, &r);
    else if (k == 1) MPI_Iallreduce(v, w, COUNT, MPI_INT, MPI_SUM, c, &r);
    else MPI_Ibcast(v, COUNT, MPI_INT, 0, c, &r);
    *served = topocoll_last_algorithm();
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    for (int e = 0; e < COUNT; e++) {
        if (k == 0)
            for (int j = 0; j < n; j++) wrong += w[j * COUNT + e] != j + i + e;
        else if (k == 1) wrong += w[e] != n * (n - 1) / 2 + n * (i + e);
        else wrong += v[e] != i + e;
    }
    return wrong;
}

/* 3 (and 4): CALLS calls of each collective on c by selection. */
static void by_selection(MPI_Comm c, const char *where, const char *const expect[3])
{
    static const char *const names[3] = { "allgather", "allreduce", "bcast" };
    for (int k = 0; k < 3; k++) {
        int wrong = 0, unexpected = 0, differ = 0;
        const char *served = "";
        for (int i = 0; i < CALLS; i++) {
            wrong += one_call(c, k, i, &served);
            if (i >= CALLS - 4 && expect && strcmp(served, expect[k]) != 0) unexpected++;
            differ += !tc_test_same_name_everywhere(served);
        }
        CHECK(everywhere(wrong == 0), "%s %s: %d wrong elements", where, names[k], wrong);
        CHECK(differ == 0, "%s %s: served by different entries on different ranks in %d calls", where, names[k],
              differ);
        CHECK(everywhere(unexpected == 0), "%s %s: served by '%s', expected '%s'", where, names[k], served,
              expect ? expect[k] : "");
    }
}

/* 5: c freed with an operation in flight (c has its context). */
static void freed_in_flight(MPI_Comm c)
{
    int mine = rank + 1, sum = 0;
    MPI_Request r;
    int rc = topocoll_iallreduce_algorithm("recursive_doubling", &mine, &sum, 1, MPI_INT, MPI_SUM, c, &r);
    MPI_Comm_free(&c);
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(everywhere(rc == MPI_SUCCESS && sum == size * (size + 1) / 2), "freed in flight: rc %d, sum %d", rc, sum);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int forced = argc > 1 && strcmp(argv[1], "--forced") == 0;
    static const char *const forced_names[3] = { "ring", "recursive_doubling", "binomial" };
    static const char *const native_names[3] = { "native", "native", "native" };
    const char *const *expect = forced ? forced_names : native_names;
    if (size == 1) expect = NULL;   /* one rank: no context, whatever is forced */

    start_never_waits();
    many_at_once();
    by_selection(MPI_COMM_WORLD, "MPI_COMM_WORLD", expect);
    MPI_Comm c;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &c);
    by_selection(c, "a new communicator", size > 1 ? native_names : NULL);
    topocoll_barrier_algorithm("dissemination", c);   /* 4: by name, its context made at once */
    by_selection(c, "after a blocking collective", forced ? expect : NULL);
    freed_in_flight(c);

    int status = tc_test_mpi_summary(0);
    MPI_Finalize();
    return status;
}
