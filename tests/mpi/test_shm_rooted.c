/*
 * Back-to-back one-node shared-memory reduce and bcast: calls with no
 * barrier between them, changing roots and counts (so the node-shared
 * window's layout changes from call to call), one rank lagging now and
 * then, interleaved with another shared-memory collective (allreduce
 * shm_tiled_naive, or h1_shm_rd on several nodes): bcasts alone, reduces
 * alone, then both.  The node-shared window alternates two halves between
 * calls, so a rank that ran ahead two calls would overwrite data a slower
 * rank still reads unless every call ends only after every rank has started
 * it (src/algo/shm_rooted.h); every result is checked.  Each shared-memory
 * entry (reduce shm_tree*, shm_tiled*, bcast shm_*) runs the sequence on a
 * virtual node of two sockets and on the detected topology; the
 * multi-node families' shared-memory instances (reduce "hierarchical"
 * h1_shm, h2_shm, h4_shm; bcast h_bin_shm1, h_sa_shm2, h_bin_shm2) run it on
 * two virtual nodes of two sockets, block and cyclic (each node's window
 * alternates its halves the same way).  Ends with "N passed, M failed".
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "topocoll.h"
#include "common/mpi_harness.h"

#define ITERS 60
static const int counts[] = { 1, 1000, 70001 };   /* ints: 70001 spans 64 KiB chunks */
#define MAXCOUNT 70001

static const char *const reduces[] = { "shm_tree2", "shm_tree4", "shm_tree8", "shm_tree4_16k", "shm_tiled_naive",
                                       "shm_tiled_cyclic_2k", NULL };
static const char *const bcasts[] = { "shm_1stage", "shm_1stage_64k", "shm_2stage", "shm_2stage_64k",
                                      NULL };

static const char *const hier_reduces[] = { "h1_shm", "h2_shm", "h4_shm", NULL };
static const char *const hier_bcasts[] = { "h_bin_shm1", "h_sa_shm2", "h_bin_shm2", NULL };

static int value(int k, int r, int i) { return (int)((k * 131 + r * 17 + i * 7) % 1000); }

static void lag(int k, int rank, int p)
{
    if (k % 5 == 0 && rank == (k / 5) % p) {
        struct timespec ts = { 0, 300000 };   /* 0.3 ms */
        nanosleep(&ts, NULL);
    }
}

static int do_bcast(const char *algo, int *buf, int k, int n, int root, int rank, MPI_Comm comm)
{
    for (int i = 0; i < n; i++) buf[i] = rank == root ? value(k, root, i) : -1;
    int rc = topocoll_bcast_algorithm(algo, buf, n, MPI_INT, root, comm), bad = 0;
    for (int i = 0; i < n && !bad; i++) bad = buf[i] != value(k, root, i);
    CHECK(rc == MPI_SUCCESS && !bad, "bcast %s iteration %d count %d root %d rank %d: rc %d, %s", algo, k, n,
          root, rank, rc, bad ? "wrong data" : "ok");
    return rc;
}

static int do_reduce(const char *algo, int *in, int *out, int k, int n, int root, int rank, int p,
                     MPI_Comm comm)
{
    for (int i = 0; i < n; i++) {
        in[i] = value(k, rank, i);
        out[i] = -1;
    }
    int rc = topocoll_reduce_algorithm(algo, in, out, n, MPI_INT, MPI_SUM, root, comm), bad = 0;
    if (rank == root)
        for (int i = 0; i < n && !bad; i++) {
            int want = 0;
            for (int r = 0; r < p; r++) want += value(k, r, i);
            bad = out[i] != want;
        }
    CHECK(rc == MPI_SUCCESS && !bad, "reduce %s iteration %d count %d root %d rank %d: rc %d, %s", algo, k, n,
          root, rank, rc, bad ? "wrong result" : "ok");
    return rc;
}

/* One entry's sequence (the other collective's entry fixed), in three
 * modes: bcasts only, reduces only, both with an allreduce now and then;
 * stops at the first error return (a declined call). */
static void sequence(const char *reduce, const char *bcast, int mode, int *a, int *b, MPI_Comm comm)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    for (int k = 0; k < ITERS; k++) {
        int n = counts[k % 3], root = (k * 3) % p;
        lag(k, rank, p);
        if (mode != 1 && do_bcast(bcast, a, k, n, root, rank, comm) != MPI_SUCCESS) return;
        if (mode != 0 && do_reduce(reduce, a, b, k, counts[(k + 1) % 3], (root + 1) % p, rank, p, comm) != MPI_SUCCESS)
            return;
        if (mode == 2 && k % 4 == 3) {   /* another shared-memory layout in between */
            int rc = topocoll_allreduce_algorithm(bcast[0] == 'h' ? "h1_shm_rd" : "shm_tiled_naive", a, b, 3,
                                                  MPI_INT, MPI_MAX, comm);
            CHECK(rc == MPI_SUCCESS, "allreduce between, iteration %d rank %d: rc %d", k, rank, rc);
        }
    }
}

static void run_on(const char *spec, const char *const *rl, const char *const *bl, int *a, int *b)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int rc = topocoll_set_topology(comm, spec);
    CHECK(rc == MPI_SUCCESS, "topocoll_set_topology(%s): %d", spec ? spec : "detected", rc);
    for (int i = 0; rl[i]; i++) sequence(rl[i], bl[0], 1, a, b, comm);
    for (int i = 0; bl[i]; i++) sequence(rl[0], bl[i], 0, a, b, comm);
    for (int i = 0; rl[i] || bl[i]; i++) sequence(rl[i] ? rl[i] : rl[0], bl[i] ? bl[i] : bl[0], 2, a, b, comm);
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int *a = malloc(MAXCOUNT * sizeof *a), *b = malloc(MAXCOUNT * sizeof *b);
    if (!a || !b) MPI_Abort(MPI_COMM_WORLD, 1);
    run_on("1x2x*", reduces, bcasts, a, b);
    run_on(NULL, reduces, bcasts, a, b);
    run_on("2x2x*", hier_reduces, hier_bcasts, a, b);
    run_on("2x2x*/cyclic", hier_reduces, hier_bcasts, a, b);
    free(a);
    free(b);
    int status = tc_test_mpi_summary(0);
    MPI_Finalize();
    return status;
}
