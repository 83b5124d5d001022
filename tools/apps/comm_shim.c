/*
 * A preload for one question: does creating communicators, as any library
 * that keeps its own does, change an unchanged MPI program's point-to-point
 * speed?  At MPI_Init it makes what its environment asks for and nothing
 * else, then the program runs untouched:
 *
 *   TC_SHIM_DUPS=n     n duplicates of MPI_COMM_WORLD (kept to the end)
 *   TC_SHIM_WINDOW=1   the node communicator and a 1 MiB window of
 *                      node-shared memory on it (MPI_Win_allocate_shared)
 *   TC_SHIM_IALLREDUCE=1  one MPI_Iallreduce on MPI_COMM_WORLD, waited
 *                      for (no communicator made)
 *
 * Open MPI 4.1 makes a new communicator's context id with a nonblocking
 * allreduce on the parent (its libnbc component), and libnbc's first
 * operation on a communicator registers its progress function with the
 * progress engine for as long as that communicator lives: every later
 * MPI_Test, MPI_Testany, ... calls it.  The third form shows that this
 * registration alone is what the others cost.
 *
 * Used by randomaccess_trace.sh (docs/apps.md, "Where a short run's time
 * goes").  Build: mpicc -shared -fPIC comm_shim.c -o libcomm_shim.so
 */
#include <mpi.h>
#include <stdlib.h>

static void make_objects(void)
{
    const char *dups = getenv("TC_SHIM_DUPS"), *window = getenv("TC_SHIM_WINDOW"),
               *iallreduce = getenv("TC_SHIM_IALLREDUCE");
    for (int i = 0, n = dups ? atoi(dups) : 0; i < n; i++) {
        MPI_Comm dup;
        PMPI_Comm_dup(MPI_COMM_WORLD, &dup);
    }
    if (window && atoi(window) > 0) {
        MPI_Comm node;
        MPI_Win win;
        void *base;
        PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        PMPI_Win_allocate_shared(1 << 20, 1, MPI_INFO_NULL, node, &base, &win);
    }
    if (iallreduce && atoi(iallreduce) > 0) {
        int one = 1, sum = 0;
        MPI_Request req;
        PMPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
        PMPI_Wait(&req, MPI_STATUS_IGNORE);
    }
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) make_objects();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) make_objects();
    return rc;
}
