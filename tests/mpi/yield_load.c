/*
 * The load verdict is the machine's, not the communicator's, and waits that
 * last yield and then sleep without losing a result.
 *
 * Verdict.  The job's ranks are split into communicators of two (ranks 2k,
 * 2k+1; the last alone at odd np).  The first such communicator's context is
 * made before MPI_COMM_WORLD's (detection from the launcher's count of the
 * job's ranks on the node), then MPI_COMM_WORLD's, then a second split's
 * (detection from the world's measure).  Each must say what the test
 * expects from its own reading of the node: oversubscribed when the job's
 * ranks on this node (MPI_Comm_split_type on MPI_COMM_WORLD) outnumber the
 * processing units they may use (the union of their sched_getaffinity
 * sets), or when the MPI library yields while idle (Open MPI's
 * mpi_yield_when_idle, read here through the MPI tool interface), else
 * dedicated; and the description must name the reason: the job's count
 * where the pair alone fits ("N ranks of the job on P processing units"),
 * else the MPI library's.  TOPOCOLL_OVERSUBSCRIBED is unset here.
 *
 * Waits.  On every communicator, allreduce, allgather, bcast and reduce by
 * "shm_inline" and allreduce by a node-shared schedule (shm_rb2_1s, its
 * waits on SIGNAL flags)
 * with one rank pausing 1-3 ms before some calls, so that the others wait
 * past the yield phase into the sleeps; every result is checked.
 *
 * Rank 0 prints "OK" when nothing failed and "N passed, M failed".
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "topocoll.h"
#include "common/mpi_harness.h"

static int rank, size;

/* The job's ranks on this node and the processing units they may use. */
static void node_load(int *ranks, int *pus)
{
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, ranks);
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) CPU_ZERO(&set);
    MPI_Allreduce(MPI_IN_PLACE, &set, (int)sizeof set, MPI_BYTE, MPI_BOR, node);
    *pus = CPU_COUNT(&set);
    MPI_Comm_free(&node);
}

static int expected_over, job_ranks, job_pus, yields;

static void check_verdict(MPI_Comm comm, const char *what)
{
    int over = -2, n;
    char desc[128] = "", want[128];
    MPI_Comm_size(comm, &n);
    int rc = topocoll_oversubscribed(comm, &over, desc, (int)sizeof desc);
    if (job_ranks > job_pus && n <= job_pus)   /* the pair fits: only the job's count can tell */
        snprintf(want, sizeof want, "oversubscribed (this machine: %d ranks of the job on %d processing unit%s)",
                 job_ranks, job_pus, job_pus == 1 ? "" : "s");
    else if (job_ranks > job_pus)   /* the communicator's own count tells */
        snprintf(want, sizeof want, "oversubscribed (this machine: %d ranks on %d processing unit%s)", n, job_pus,
                 job_pus == 1 ? "" : "s");
    else if (yields)
        snprintf(want, sizeof want, "oversubscribed (the MPI library yields when idle)");
    else
        snprintf(want, sizeof want, "dedicated (this machine: %d rank%s on %d processing unit%s)", n,
                 n == 1 ? "" : "s", job_pus, job_pus == 1 ? "" : "s");
    CHECK(rc == MPI_SUCCESS && over == expected_over && strcmp(desc, want) == 0,
          "rank %d, %s (%d ranks; the job: %d ranks on %d PUs, MPI yields %d): rc %d, %d '%s', wanted %d '%s'", rank,
          what, n, job_ranks, job_pus, yields, rc, over, desc, expected_over, want);
}

static void pause_ms(int ms)
{
    struct timespec d = { 0, (long)ms * 1000000L };
    nanosleep(&d, NULL);
}

/* Calls with long waits: the last rank of comm pauses before every third
 * call, so the others wait for it past the yield phase. */
static void long_waits(MPI_Comm comm, int calls)
{
    int me, n, wrong = 0, rc_bad = 0;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    int in[8], out[8 * 64], root;
    for (int k = 0; k < calls; k++) {
        if (me == n - 1 && k % 3 == 0) pause_ms(1 + k % 3 + (k / 3) % 3);
        for (int i = 0; i < 8; i++) in[i] = k * 1000 + me * 10 + i;
        int rc = topocoll_allreduce_algorithm("shm_inline", in, out, 8, MPI_INT, MPI_SUM, comm);
        for (int i = 0; i < 8; i++) wrong |= out[i] != n * (k * 1000 + i) + 10 * n * (n - 1) / 2;
        rc_bad |= rc != MPI_SUCCESS;
        rc = topocoll_allgather_algorithm("shm_inline", in, 8, MPI_INT, out, 8, MPI_INT, comm);
        for (int r = 0; r < n; r++)
            for (int i = 0; i < 8; i++) wrong |= out[r * 8 + i] != k * 1000 + r * 10 + i;
        rc_bad |= rc != MPI_SUCCESS;
        root = k % n;
        for (int i = 0; i < 8; i++) out[i] = me == root ? in[i] : -1;
        rc = topocoll_bcast_algorithm("shm_inline", out, 8, MPI_INT, root, comm);
        for (int i = 0; i < 8; i++) wrong |= out[i] != k * 1000 + root * 10 + i;
        rc_bad |= rc != MPI_SUCCESS;
        rc = topocoll_reduce_algorithm("shm_inline", in, out, 8, MPI_INT, MPI_SUM, root, comm);
        if (me == root)
            for (int i = 0; i < 8; i++) wrong |= out[i] != n * (k * 1000 + i) + 10 * n * (n - 1) / 2;
        rc_bad |= rc != MPI_SUCCESS;
        if (topocoll_applicable(TOPOCOLL_ALLREDUCE, "shm_rb2_1s", 512, MPI_INT, 512, MPI_INT, MPI_SUM, 0, comm,
                                NULL) == 1) {
            int big[512], res[512];
            for (int i = 0; i < 512; i++) big[i] = k + me * i;
            rc = topocoll_allreduce_algorithm("shm_rb2_1s", big, res, 512, MPI_INT, MPI_SUM, comm);
            for (int i = 0; i < 512; i++) wrong |= res[i] != n * k + i * n * (n - 1) / 2;
            rc_bad |= rc != MPI_SUCCESS;
        }
    }
    CHECK(!wrong && !rc_bad, "rank %d: %d calls with long waits: %s%s", rank, calls, wrong ? "wrong results " : "",
          rc_bad ? "a call failed" : "");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsetenv("TOPOCOLL_OVERSUBSCRIBED");
    node_load(&job_ranks, &job_pus);
    yields = tc_test_mpi_yields();
    expected_over = job_ranks > job_pus || yields;
    MPI_Comm pair, pair2;
    MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &pair);
    check_verdict(pair, "a pair before the world");
    check_verdict(MPI_COMM_WORLD, "the world");
    MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &pair2);
    check_verdict(pair2, "a pair after the world");
    long_waits(pair, 30);
    long_waits(MPI_COMM_WORLD, 30);
    MPI_Comm_free(&pair);
    MPI_Comm_free(&pair2);
    int status = tc_test_mpi_summary(1);
    MPI_Finalize();
    return status;
}
