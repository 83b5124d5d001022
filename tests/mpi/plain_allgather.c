/*
 * An ordinary MPI program: it knows nothing of topocoll (no topocoll.h, linked
 * against MPI only).  CTest runs it once as it is and once with the topocoll
 * interposer preloaded (LD_PRELOAD=libtopocoll_pmpi.so), where topocoll must
 * serve its MPI_Allgather calls and give the same results.
 *
 * Rank 0 prints "OK" when nothing failed and "N passed, M failed" (the
 * counts of every rank); exits 1 on any failure.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common/mpi_harness.h"

#define N_INT 5
#define N_BIG 3000      /* ints per rank in the larger call */

static int rank, size;

/* One case of this rank (counted by the harness; summed over the ranks at
 * the end). */
static void check(int ok, const char *what, int rc)
{
    CHECK(ok, "rank %d: %s (rc %d)", rank, what, rc);
}

/* A failure outside a check (set-up, resources). */
static void fail(const char *what, int rc)
{
    check(0, what, rc);
}

static int ival(int r, int i) { return r * 1000 + i * 7 + 1; }

static void check_int(int n)
{
    int *s = malloc((size_t)n * sizeof(int)), *r = malloc((size_t)n * (size_t)size * sizeof(int));
    int rc, bad = 0;
    if (!s || !r) { fail("out of memory", 0); free(s); free(r); return; }
    for (int i = 0; i < n; i++) s[i] = ival(rank, i);
    for (int i = 0; i < n * size; i++) r[i] = -1;
    rc = MPI_Allgather(s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD);
    check(rc == MPI_SUCCESS, "MPI_Allgather(MPI_INT) returned an error", rc);
    for (int p = 0; p < size && !bad; p++)
        for (int i = 0; i < n; i++)
            if (r[p * n + i] != ival(p, i)) { bad = 1; break; }
    check(!bad, "MPI_Allgather(MPI_INT): wrong result", rc);
    free(s);
    free(r);
}

static void check_double(void)
{
    double s[N_INT], *r = malloc(N_INT * (size_t)size * sizeof(double));
    int rc, bad = 0;
    if (!r) { fail("out of memory", 0); return; }
    for (int i = 0; i < N_INT; i++) s[i] = rank + i * 0.5;
    rc = MPI_Allgather(s, N_INT, MPI_DOUBLE, r, N_INT, MPI_DOUBLE, MPI_COMM_WORLD);
    check(rc == MPI_SUCCESS, "MPI_Allgather(MPI_DOUBLE) returned an error", rc);
    for (int p = 0; p < size; p++)
        for (int i = 0; i < N_INT; i++)
            if (r[p * N_INT + i] != p + i * 0.5) bad = 1;
    check(!bad, "MPI_Allgather(MPI_DOUBLE): wrong result", rc);
    free(r);
}

static void check_in_place(void)
{
    int *r = malloc(N_INT * (size_t)size * sizeof(int)), rc, bad = 0;
    if (!r) { fail("out of memory", 0); return; }
    for (int i = 0; i < N_INT * size; i++) r[i] = -1;
    for (int i = 0; i < N_INT; i++) r[rank * N_INT + i] = ival(rank, i);
    rc = MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, N_INT, MPI_INT, MPI_COMM_WORLD);
    check(rc == MPI_SUCCESS, "MPI_Allgather(MPI_IN_PLACE) returned an error", rc);
    for (int p = 0; p < size; p++)
        for (int i = 0; i < N_INT; i++)
            if (r[p * N_INT + i] != ival(p, i)) bad = 1;
    check(!bad, "MPI_Allgather(MPI_IN_PLACE): wrong result", rc);
    free(r);
}

/* Even and odd ranks, in reverse order inside each. */
static void check_subcomm(void)
{
    MPI_Comm sub;
    int srank, ssize, *r, rc, bad = 0, v;
    rc = MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &sub);
    if (rc != MPI_SUCCESS) { fail("MPI_Comm_split", rc); return; }
    if (MPI_Comm_rank(sub, &srank) != MPI_SUCCESS || MPI_Comm_size(sub, &ssize) != MPI_SUCCESS) {
        fail("MPI_Comm_rank/size of the sub-communicator", 0);
        check(MPI_Comm_free(&sub) == MPI_SUCCESS, "MPI_Comm_free", 0);
        return;
    }
    r = malloc((size_t)ssize * sizeof(int));
    if (!r) {
        fail("out of memory", 0);
        check(MPI_Comm_free(&sub) == MPI_SUCCESS, "MPI_Comm_free", 0);
        return;
    }
    v = rank;
    rc = MPI_Allgather(&v, 1, MPI_INT, r, 1, MPI_INT, sub);
    check(rc == MPI_SUCCESS, "MPI_Allgather on a sub-communicator returned an error", rc);
    /* sub rank q is world rank: the q-th largest of this parity. */
    for (int q = 0; q < ssize; q++) {
        int top = (size - 1) - ((size - 1 - rank % 2) % 2);   /* largest world rank of this parity */
        if (r[q] != top - 2 * q) bad = 1;
    }
    check(!bad, "MPI_Allgather on a sub-communicator: wrong result", rc);
    free(r);
    check(MPI_Comm_free(&sub) == MPI_SUCCESS, "MPI_Comm_free", 0);
}

/* The closing lines (tests/common/mpi_harness.h), then MPI_Finalize. */
static int finish(void)
{
    int status = tc_test_mpi_summary(1);
    if (MPI_Finalize() != MPI_SUCCESS) return 1;
    return status;
}

int main(int argc, char **argv)
{
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "FAIL: MPI_Init\n");
        return 1;
    }
    if (MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) != MPI_SUCCESS ||
        MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS ||
        MPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS) {
        fprintf(stderr, "FAIL: MPI set-up\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    check_int(N_INT);
    check_int(N_BIG);
    check_double();
    check_in_place();
    check_subcomm();
    return finish();
}
