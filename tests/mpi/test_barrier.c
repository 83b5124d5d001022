/*
 * MPI_Barrier through topocoll: every barrier catalog entry (read from the
 * catalog) and the selected path (topocoll_barrier, and MPI_Barrier itself
 * where the interposer is linked in) x rank mappings (detected; virtual
 * topologies: block, cyclic, random).  The check is on data, not on time:
 * every iteration each rank, after a delay that differs by rank and
 * iteration, stores the iteration's token into its slot of a node-shared
 * window (MPI_Win_allocate_shared; MPI_Win_sync around the barrier), enters
 * the barrier, then reads every slot: all must hold this iteration's token.
 * (Shared memory rather than passive-target RMA: a put to a rank that waits
 * on node-shared flags, making no MPI call, would wait for that rank's MPI
 * progress under MPICH.  Ranks on several machines: the barriers run, the
 * slots are not checked.)  A second barrier before the next iteration's stores makes a rank
 * that leaves it early overwrite a slot another rank has not read yet, so
 * both barriers are checked.  An entry outside its domain must decline
 * (MPI_ERR_ARG).  Then bad input: MPI_COMM_NULL (MPI_ERR_COMM) and an
 * unknown algorithm name (MPI_ERR_ARG), on a communicator that returns
 * errors.  Ends with "N passed, M failed" on rank 0.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "topocoll.h"
#include "../common/mpi_harness.h"

#define ITERS 12

static int wrank, wsize;

static void pause_us(long us)
{
    struct timespec ts = { 0, us * 1000 };
    nanosleep(&ts, NULL);
}

/* One barrier: by name (NULL: selection; "MPI_Barrier": the MPI function). */
static int barrier(const char *algo, MPI_Comm comm)
{
    if (!algo) return topocoll_barrier(comm);
    if (!strcmp(algo, "MPI_Barrier")) return MPI_Barrier(comm);
    return topocoll_barrier_algorithm(algo, comm);
}

/* The slots: one int per rank of MPI_COMM_WORLD in node-shared memory
 * (NULL when the ranks are on several machines), and its window. */
static volatile int *slots;
static MPI_Win win = MPI_WIN_NULL;

static void run_entry(const char *algo, const char *where, MPI_Comm comm)
{
    int bad = 0, rc = MPI_SUCCESS;
    for (int it = 1; it <= ITERS && rc == MPI_SUCCESS; it++) {
        pause_us(((wrank * 7 + it * 3) % 5) * 300L);
        if (slots) slots[wrank] = it;
        if (slots) MPI_Win_sync(win);
        if ((rc = barrier(algo, comm)) != MPI_SUCCESS) break;
        if (slots) MPI_Win_sync(win);
        for (int j = 0; slots && j < wsize; j++) {
            int v = slots[j];
            if (v != it && bad++ == 0)
                CHECK(0, "%s, %s, rank %d, iteration %d: rank %d's slot holds %d (left the barrier early)",
                      algo ? algo : "selected", where, wrank, it, j, v);
        }
        if ((rc = barrier(algo, comm)) != MPI_SUCCESS) break;
    }
    CHECK(rc == MPI_SUCCESS, "%s, %s, rank %d: error %d", algo ? algo : "selected", where, wrank, rc);
    CHECK(!bad, "%s, %s, rank %d: %d wrong slots", algo ? algo : "selected", where, wrank, bad);
}

static void bad_input(MPI_Comm comm)
{
    int cls = 0, rc = topocoll_barrier_algorithm("no_such_barrier", comm);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG, "unknown algorithm name: class %d, expected MPI_ERR_ARG", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = topocoll_barrier(MPI_COMM_NULL);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COMM, "MPI_COMM_NULL: class %d, expected MPI_ERR_COMM", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);   /* declines are answers here */
    MPI_Comm node;
    int nsize = 0, nrank = 0, *mem = NULL, du = 0;
    MPI_Aint sz = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nsize);
    MPI_Comm_rank(node, &nrank);
    MPI_Win_allocate_shared((MPI_Aint)(nrank == 0 ? wsize : 0) * (MPI_Aint)sizeof(int), sizeof(int), MPI_INFO_NULL,
                            node, &mem, &win);
    MPI_Win_shared_query(win, 0, &sz, &du, &mem);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    if (nsize == wsize) {
        slots = mem;
        for (int j = 0; nrank == 0 && j < wsize; j++) slots[j] = 0;
        MPI_Win_sync(win);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    const char *specs[] = { NULL, "2x*", "2x*/cyclic", "3x*/random:7" };
    int n = topocoll_variant_count(TOPOCOLL_BARRIER);
    for (size_t sp = 0; sp < sizeof specs / sizeof specs[0]; sp++) {
        char where[64];
        if (specs[sp] && topocoll_set_topology(comm, specs[sp]) != MPI_SUCCESS) continue;
        snprintf(where, sizeof where, "topology %s", specs[sp] ? specs[sp] : "detected");
        for (int a = -2; a < n; a++) {
            const char *name = a == -2 ? "MPI_Barrier" : a == -1 ? NULL : topocoll_variant_name(TOPOCOLL_BARRIER, a);
            if (name && a >= 0) {
                const char *why = "";
                if (!topocoll_applicable(TOPOCOLL_BARRIER, name, 0, MPI_BYTE, 0, MPI_BYTE, MPI_OP_NULL, 0, comm,
                                         &why)) {
                    int cls = 0, rc = topocoll_barrier_algorithm(name, comm);
                    MPI_Error_class(rc, &cls);
                    CHECK(cls == MPI_ERR_ARG, "%s, %s: declined (%s) but the call gave class %d", name, where,
                          why, cls);
                    continue;
                }
            }
            run_entry(name, where, comm);
        }
    }
    bad_input(comm);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
    MPI_Comm_free(&comm);
    int status = tc_test_mpi_summary(0);
    MPI_Finalize();
    return status;
}
