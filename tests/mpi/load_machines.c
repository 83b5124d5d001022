/*
 * The load detection counts the ranks of one physical machine together,
 * whatever shared-memory node they are on: ranks with the same kernel boot
 * id are one machine.  TOPOCOLL_TEST_BOOT_ID (the hook for tests) makes the
 * 4 ranks of this one machine pose as two machines of 2 ranks ("a", "b"),
 * then as one ("a" everywhere), then the real boot id is read (one machine
 * again).  Each communicator (a duplicate of MPI_COMM_WORLD per case) is
 * detected once, when its context is made; every rank must see "this
 * machine: R ranks on P processing units", P the processing units this
 * process may use (the ranks run unbound), and the verdict R > P; where
 * R <= P and the MPI library yields when idle (Open MPI's
 * mpi_yield_when_idle, read here through the MPI tool interface), the MPI
 * library's verdict instead: oversubscribed.
 * TOPOCOLL_OVERSUBSCRIBED is unset here: detection decides.  Run at np 4.
 * Rank 0 prints "OK" when nothing failed and "N passed, M failed".
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topocoll.h"
#include "common/mpi_harness.h"

static int rank, size;

static int allowed_pus(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
}

/* One case: the boot id each rank poses with (NULL: the real one) and the
 * ranks per machine that follow. */
static void detect(const char *id, int per_machine)
{
    if (id) setenv("TOPOCOLL_TEST_BOOT_ID", id, 1);
    else unsetenv("TOPOCOLL_TEST_BOOT_ID");
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    int over = -2, pus = allowed_pus();
    char desc[128] = "", want[128];
    int rc = topocoll_oversubscribed(comm, &over, desc, (int)sizeof desc);
    int yields = tc_test_mpi_yields(), expect = per_machine > pus || yields;
    snprintf(want, sizeof want, "%s (this machine: %d ranks on %d processing unit%s)",
             per_machine > pus ? "oversubscribed" : "dedicated", per_machine, pus, pus == 1 ? "" : "s");
    if (per_machine <= pus && yields) snprintf(want, sizeof want, "oversubscribed (the MPI library yields when idle)");
    /* the verdict is agreed: any machine oversubscribed makes all say so */
    CHECK(rc == MPI_SUCCESS && over == expect && strcmp(desc, want) == 0,
          "rank %d, boot id %s: rc %d, %d '%s', wanted '%s'", rank, id ? id : "(real)", rc, over, desc, want);
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsetenv("TOPOCOLL_OVERSUBSCRIBED");
    CHECK(size == 4, "run at np 4 (np %d)", size);
    if (size == 4) {
        detect(rank < 2 ? "machine-a" : "machine-b", 2);
        detect("machine-a", 4);
        detect(NULL, 4);
    }
    int status = tc_test_mpi_summary(1);
    MPI_Finalize();
    return status;
}
