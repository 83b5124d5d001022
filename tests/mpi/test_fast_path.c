/*
 * The per-call fast path: a call that repeats the scalar arguments of the
 * previous call of its collective on a communicator reuses that call's
 * checks, choice and schedule.  Everything that may differ between two such
 * calls must still be honoured:
 *   - the data and the buffers (results checked on every call);
 *   - MPI_IN_PLACE switched on and off with the same counts;
 *   - a NULL buffer after a good call (the error must still be raised);
 *   - a derived datatype freed and another made (its handle may be reused,
 *     with another size);
 *   - a new topology (topocoll_set_topology) and a flushed cache;
 *   - a schedule evicted from the cache (TOPOCOLL_SCHED_CACHE is not set
 *     here; the flush covers the same invalidation).
 * Every rank checks its own results; rank 0 prints "N passed, M failed".
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topocoll.h"
#include "common/mpi_harness.h"

#define N 13
#define REPEAT 5

static int rank, size;

static int value(int r, int i, int call) { return r * 1000 + i * 7 + call * 100000 + 1; }

/* Allgather of N ints, selection path, `repeat` calls with fresh data. */
static void allgather_repeated(MPI_Comm comm, int in_place, const char *what)
{
    int *s = malloc(N * sizeof(int)), *r = malloc((size_t)N * (size_t)size * sizeof(int));
    for (int call = 0; call < REPEAT; call++) {
        for (int i = 0; i < N; i++) s[i] = value(rank, i, call);
        for (int i = 0; i < N * size; i++) r[i] = -1;
        if (in_place) memcpy(r + (size_t)rank * N, s, N * sizeof(int));
        int rc = topocoll_allgather(in_place ? MPI_IN_PLACE : s, N, MPI_INT, r, N, MPI_INT, comm);
        int bad = rc != MPI_SUCCESS;
        for (int q = 0; q < size && !bad; q++)
            for (int i = 0; i < N; i++) bad |= r[q * N + i] != value(q, i, call);
        CHECK(!bad, "%s: allgather call %d (in place %d) rc %d", what, call, in_place, rc);
    }
    free(s);
    free(r);
}

/* A NULL receive buffer after good calls with the same counts: still an error. */
static void null_buffer_after_good_calls(void)
{
    int s[N] = { 0 }, *r = calloc((size_t)N * (size_t)size, sizeof(int));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    topocoll_allgather(s, N, MPI_INT, r, N, MPI_INT, MPI_COMM_WORLD);
    topocoll_allgather(s, N, MPI_INT, r, N, MPI_INT, MPI_COMM_WORLD);
    int rc = topocoll_allgather(s, N, MPI_INT, NULL, N, MPI_INT, MPI_COMM_WORLD), cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_BUFFER, "NULL recvbuf after good calls: class %d, expected MPI_ERR_BUFFER", cls);
    /* the next good call still works (every rank made the same failing call) */
    rc = topocoll_allgather(s, N, MPI_INT, r, N, MPI_INT, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "good call after the error: rc %d", rc);
    free(r);
}

/* Bcast through a derived type, freed and made again with another size
 * between calls with the same count and (possibly) the same handle. */
static void bcast_with_type(MPI_Datatype t, int ints_per_elem, int call)
{
    int count = 3, n = count * ints_per_elem;
    int *b = malloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++) b[i] = rank == 0 ? value(0, i, call) : -1;
    int rc = topocoll_bcast(b, count, t, 0, MPI_COMM_WORLD), bad = rc != MPI_SUCCESS;
    for (int i = 0; i < n; i++) bad |= b[i] != value(0, i, call);
    CHECK(!bad, "bcast of %d x %d ints (call %d): rc %d", count, ints_per_elem, call, rc);
    free(b);
}

static void reused_type_handles(void)
{
    for (int call = 0; call < 6; call++) {
        int ints = call % 2 ? 5 : 2;
        MPI_Datatype t;
        MPI_Type_contiguous(ints, MPI_INT, &t);
        MPI_Type_commit(&t);
        bcast_with_type(t, ints, call);
        bcast_with_type(t, ints, call + 100);
        MPI_Type_free(&t);
    }
}

/* Reductions: a user op freed and remade, commutative or not. */
static void sum_fn(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    for (int i = 0; i < *len; i++) ((int *)inout)[i] += ((int *)in)[i];
}

static void reused_ops(void)
{
    for (int call = 0; call < 4; call++) {
        MPI_Op op;
        MPI_Op_create(sum_fn, call % 2, &op);
        int s[N], r[N];
        for (int i = 0; i < N; i++) s[i] = value(rank, i, call);
        int rc = topocoll_reduce(s, r, N, MPI_INT, op, 0, MPI_COMM_WORLD), bad = rc != MPI_SUCCESS;
        for (int i = 0; rank == 0 && i < N; i++) {
            long want = 0;
            for (int q = 0; q < size; q++) want += value(q, i, call);
            bad |= r[i] != (int)want;
        }
        CHECK(!bad, "reduce with user op (commutative %d), call %d: rc %d", call % 2, call, rc);
        MPI_Op_free(&op);
    }
}

/* allreduce with ring forced (it declines non-commutative ops): a user op
 * that is commutative, freed, then a non-commutative one ("first": a op b
 * = a, so the rank-order result is rank 0's data), which often gets the
 * freed handle; the memo must not let ring serve it. */
static void first_fn(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    for (int i = 0; i < *len; i++) ((int *)inout)[i] = ((int *)in)[i];
}

static void allreduce_reused_ops(void)
{
    for (int call = 0; call < 4; call++) {
        MPI_Op op;
        int commute = call % 2 == 0;
        MPI_Op_create(commute ? sum_fn : first_fn, commute, &op);
        int s[N], r[N], bad;
        for (int rep = 0; rep < 2; rep++) {
            for (int i = 0; i < N; i++) s[i] = value(rank, i, call), r[i] = -1;
            int rc = topocoll_allreduce(s, r, N, MPI_INT, op, MPI_COMM_WORLD);
            bad = rc != MPI_SUCCESS;
            for (int i = 0; i < N; i++) {
                long want = 0;
                for (int q = 0; q < size; q++) want += value(q, i, call);
                bad |= r[i] != (commute ? (int)want : value(0, i, call));
            }
            CHECK(!bad, "allreduce with user op (commutative %d), call %d.%d: rc %d", commute, call, rep, rc);
        }
        MPI_Op_free(&op);
    }
}

/* A new topology and a flushed cache between repeated calls. */
static void topology_and_flush(void)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    allgather_repeated(comm, 0, "dup");
    const char *spec = size % 2 == 0 ? "2x*/cyclic" : "1x*";
    int rc = topocoll_set_topology(comm, spec);
    CHECK(rc == MPI_SUCCESS, "set_topology %s: rc %d", spec, rc);
    allgather_repeated(comm, 0, "after set_topology");
    CHECK(topocoll_flush_cache(comm) == MPI_SUCCESS, "flush");
    allgather_repeated(comm, 1, "after flush");
    MPI_Comm_free(&comm);
    /* a new communicator may reuse the freed one's handle */
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    allgather_repeated(comm, 0, "new communicator");
    MPI_Comm_free(&comm);
}

/* Alltoall of N ints per block, `REPEAT` calls with fresh data through the
 * selection path (TOPOCOLL_ALLTOALL, set in main, forces a schedule), in
 * place or not; and a bridge entry by name (member-set rounds over the
 * node and bridge communicators), repeated on a communicator of two virtual
 * nodes. */
static void alltoall_repeated(MPI_Comm comm, int in_place, const char *what)
{
    size_t n = (size_t)N * (size_t)size;
    int *s = malloc(n * sizeof(int)), *r = malloc(n * sizeof(int));
    for (int call = 0; call < REPEAT; call++) {
        for (size_t i = 0; i < n; i++) s[i] = value(rank, (int)i, call);
        for (size_t i = 0; i < n; i++) r[i] = -1;
        if (in_place) memcpy(r, s, n * sizeof(int));
        int rc = topocoll_alltoall(in_place ? MPI_IN_PLACE : s, N, MPI_INT, r, N, MPI_INT, comm), bad = 0;
        for (int q = 0; q < size; q++)
            for (int i = 0; i < N; i++) bad += r[(size_t)q * N + (size_t)i] != value(q, rank * N + i, call);
        CHECK(rc == MPI_SUCCESS && !bad, "alltoall %s in_place=%d call %d: rc %d, %d wrong", what, in_place,
              call, rc, bad);
    }
    free(s);
    free(r);
}

static void alltoall_fast_path(void)
{
    MPI_Comm comm;
    alltoall_repeated(MPI_COMM_WORLD, 0, "world");
    alltoall_repeated(MPI_COMM_WORLD, 1, "world");
    alltoall_repeated(MPI_COMM_WORLD, 0, "world again");
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    topocoll_set_topology(comm, size % 2 == 0 ? "2x*/cyclic" : "1x*");
    int *s = malloc((size_t)N * (size_t)size * sizeof(int)), *r = malloc((size_t)N * (size_t)size * sizeof(int));
    for (int call = 0; call < REPEAT; call++) {
        for (int i = 0; i < N * size; i++) s[i] = value(rank, i, call), r[i] = -1;
        int rc = topocoll_alltoall_algorithm("bridge_w", s, N, MPI_INT, r, N, MPI_INT, comm), bad = 0;
        for (int q = 0; q < size; q++)
            for (int i = 0; i < N; i++) bad += r[q * N + i] != value(q, rank * N + i, call);
        CHECK(rc == MPI_SUCCESS && !bad, "alltoall bridge_w call %d: rc %d, %d wrong", call, rc, bad);
    }
    free(s);
    free(r);
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    /* schedules, not the MPI library's own: a remembered schedule is what a
     * reused datatype handle could mislead (read at the first topocoll call) */
    setenv("TOPOCOLL_BCAST", "binomial", 0);
    setenv("TOPOCOLL_REDUCE", "binomial", 0);
    setenv("TOPOCOLL_ALLTOALL", "h2_p2p", 0);
    setenv("TOPOCOLL_ALLREDUCE", "ring", 0);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    allgather_repeated(MPI_COMM_WORLD, 0, "world");
    allgather_repeated(MPI_COMM_WORLD, 1, "world");
    allgather_repeated(MPI_COMM_WORLD, 0, "world again");
    null_buffer_after_good_calls();
    reused_type_handles();
    reused_ops();
    allreduce_reused_ops();
    topology_and_flush();
    alltoall_fast_path();
    int rc = tc_test_mpi_summary(0);
    MPI_Finalize();
    return rc;
}
