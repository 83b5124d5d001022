/*
 * Node-shared memory within its budget (src/api/shm_budget.h).
 *
 *   test_shm_budget call [count]
 *     one MPI_Allreduce of count MPI_INT (default 2^23: 32 MiB per rank),
 *     MPI_SUM, through topocoll_allreduce (the selection, or the algorithm
 *     TOPOCOLL_ALLREDUCE forces), every element checked; rank 0 prints the
 *     algorithm that served.  Run in a small /dev/shm by
 *     tests/mpi/shm_budget_tmpfs.sh.
 *   test_shm_budget fallback [count]
 *     the same, and the algorithm that served must use no node-shared
 *     memory (the window could not be had: /dev/shm too small), nor may a
 *     second call (the context's shared memory stays off).
 *   Errors return (MPI_ERRORS_RETURN on MPI_COMM_WORLD), so that a rank
 *   left waiting shows as a hang rather than an abort.
 *   test_shm_budget pieces
 *     with TOPOCOLL_SHM_BUDGET=64K set by the caller: shared-memory entries
 *     of allreduce, reduce and bcast named explicitly, on counts far beyond
 *     the budget that no piece size divides (odd counts, in place, roots
 *     0 and last; a strided type for bcast, contiguous(3, MPI_INT) with a
 *     user-defined sum for allreduce), each result checked and the
 *     named entry still the one that served (in pieces, not replaced); then
 *     an allgather whose window exceeds the budget, which cannot be pieced:
 *     served by an entry without node-shared memory, result checked.
 *
 * Exit status 0 when every check passed (rank 0 prints "N passed, M failed").
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topocoll.h"

static int rank, size, passed, failed;

static void check(int ok, const char *what)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all) passed++;
    else failed++;
    if (rank == 0 && !all) printf("FAIL: %s\n", what);
}

static int uses_shm(const char *algo)
{
    return strstr(algo, "shm") != NULL;
}

/* The value rank r contributes at element i (small: sums stay exact). */
static int val(int r, int64_t i) { return (int)((i * 7 + r * 13) % 1000); }
static int sum_at(int64_t i)
{
    int s = 0;
    for (int r = 0; r < size; r++) s += val(r, i);
    return s;
}

static int call_allreduce(int count, int expect_no_shm)
{
    int *in = calloc((size_t)count + 1, sizeof *in), *out = malloc((size_t)count * sizeof *out), bad = 0;
    if (!in || !out) return 0;
    for (int i = 0; i < count; i++) in[i] = val(rank, i), out[i] = -1;
    int rc = topocoll_allreduce(in, out, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    const char *algo = topocoll_last_algorithm();
    for (int i = 0; i < count && !bad; i++) bad = out[i] != sum_at(i);
    if (rank == 0) printf("allreduce %d MPI_INT: rc %d, served by %s, %s\n", count, rc, algo, bad ? "WRONG" : "correct");
    int ok = rc == MPI_SUCCESS && !bad && !(expect_no_shm && uses_shm(algo));
    free(in);
    free(out);
    return ok;
}

/* ---- pieces: named shared-memory entries far beyond the budget ---------- */

/* A strided type: every other int (extent 2 ints, resized to 2 ints). */
static MPI_Datatype strided(void)
{
    MPI_Datatype v, t;
    MPI_Type_vector(1, 1, 2, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, 2 * (MPI_Aint)sizeof(int), &t);
    MPI_Type_free(&v);
    MPI_Type_commit(&t);
    return t;
}

/* A user-defined sum on triples of ints (MPI allows no predefined op on a
 * derived type): len elements of contiguous(3, MPI_INT). */
static void sum3(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    const int *a = in;
    int *b = inout;
    for (int64_t i = 0; i < (int64_t)*len * 3; i++) b[i] += a[i];
}

/* count elements of MPI_INT (MPI_SUM) or, triple, of contiguous(3, MPI_INT)
 * with a user-defined sum. */
static void allreduce_case(const char *algo, int count, int triple, int in_place)
{
    MPI_Datatype t = MPI_INT;
    MPI_Op op = MPI_SUM;
    if (triple) {
        MPI_Type_contiguous(3, MPI_INT, &t);
        MPI_Type_commit(&t);
        MPI_Op_create(sum3, 1, &op);
    }
    size_t n = (size_t)count * (triple ? 3 : 1);
    int *in = calloc(n + 1, sizeof *in), *out = malloc(n * sizeof *out + 1), bad = 0;
    for (size_t i = 0; i < n; i++) in[i] = val(rank, (int64_t)i), out[i] = in_place ? val(rank, (int64_t)i) : -5;
    int rc = topocoll_allreduce_algorithm(algo, in_place ? MPI_IN_PLACE : in, out, count, t, op, MPI_COMM_WORLD);
    for (size_t i = 0; i < n && !bad; i++) bad = out[i] != sum_at((int64_t)i);
    char what[160];
    snprintf(what, sizeof what, "allreduce %s count %d%s%s (served by %s)", algo, count,
             triple ? " of contiguous(3, MPI_INT), a user op" : "", in_place ? " in place" : "",
             topocoll_last_algorithm());
    check(rc == MPI_SUCCESS && !bad && strcmp(topocoll_last_algorithm(), algo) == 0, what);
    free(in);
    free(out);
    if (triple) {
        MPI_Type_free(&t);
        MPI_Op_free(&op);
    }
}

static void reduce_case(const char *algo, int count, int root, int in_place)
{
    int *in = calloc((size_t)count + 1, sizeof *in), *out = malloc((size_t)count * sizeof *out + 1), bad = 0;
    for (int i = 0; i < count; i++) in[i] = val(rank, i), out[i] = rank == root && in_place ? val(rank, i) : -5;
    const void *send = rank == root && in_place ? MPI_IN_PLACE : (const void *)in;
    int rc = topocoll_reduce_algorithm(algo, send, out, count, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
    if (rank == root)
        for (int i = 0; i < count && !bad; i++) bad = out[i] != sum_at(i);
    char what[160];
    snprintf(what, sizeof what, "reduce %s count %d root %d%s (served by %s)", algo, count, root,
             in_place ? " in place" : "", topocoll_last_algorithm());
    check(rc == MPI_SUCCESS && !bad && strcmp(topocoll_last_algorithm(), algo) == 0, what);
    free(in);
    free(out);
}

static void bcast_case(const char *algo, int count, int stride, int root)
{
    MPI_Datatype t = stride == 1 ? MPI_INT : strided();
    size_t n = (size_t)count * (size_t)stride;
    int *buf = malloc(n * sizeof *buf), bad = 0;
    for (size_t i = 0; i < n; i++) buf[i] = rank == root ? val(root, (int64_t)i) : -5;
    int rc = topocoll_bcast_algorithm(algo, buf, count, t, root, MPI_COMM_WORLD);
    for (size_t i = 0; i < n && !bad; i++)
        bad = buf[i] != (i % (size_t)stride == 0 || rank == root ? val(root, (int64_t)i) : -5);
    char what[160];
    snprintf(what, sizeof what, "bcast %s count %d stride %d root %d (served by %s)", algo, count, stride, root,
             topocoll_last_algorithm());
    check(rc == MPI_SUCCESS && !bad && strcmp(topocoll_last_algorithm(), algo) == 0, what);
    free(buf);
    if (stride != 1) MPI_Type_free(&t);
}

/* Not separable: an allgather named with node-shared phases whose window
 * exceeds the budget is served without node-shared memory. */
static void allgather_case(const char *algo, int count)
{
    int *in = malloc((size_t)count * sizeof *in), *out = malloc((size_t)count * (size_t)size * sizeof *out), bad = 0;
    for (int i = 0; i < count; i++) in[i] = val(rank, i);
    int rc = topocoll_allgather_algorithm(algo, in, count, MPI_INT, out, count, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < size && !bad; r++)
        for (int i = 0; i < count && !bad; i++) bad = out[(size_t)r * (size_t)count + (size_t)i] != val(r, i);
    char what[160];
    snprintf(what, sizeof what, "allgather %s count %d (served by %s)", algo, count, topocoll_last_algorithm());
    check(rc == MPI_SUCCESS && !bad && !uses_shm(topocoll_last_algorithm()), what);
    free(in);
    free(out);
}

static void pieces(void)
{
    const int odd = 150001;   /* 600 KB of MPI_INT: many pieces of a 64K budget, none dividing it */
    const char *ar[] = { "shm_tiled_naive", "shm_rb2_2s", "shm_tiled_cyclic_128k", "shm_dissemination" };
    for (size_t k = 0; k < sizeof ar / sizeof ar[0]; k++) {
        allreduce_case(ar[k], odd, 1, 0);
        allreduce_case(ar[k], odd, 1, 1);
        allreduce_case(ar[k], odd / 3, 1, 0);
    }
    const char *rd[] = { "shm_tree2", "shm_tiled_naive" };
    for (size_t k = 0; k < sizeof rd / sizeof rd[0]; k++) {
        reduce_case(rd[k], odd, 0, 0);
        reduce_case(rd[k], odd, size - 1, 1);
    }
    const char *bc[] = { "shm_2stage", "shm_1stage_64k" };
    for (size_t k = 0; k < sizeof bc / sizeof bc[0]; k++) {
        bcast_case(bc[k], odd, 1, 0);
        bcast_case(bc[k], odd / 2, 2, size - 1);
    }
    allgather_case("h1_shm_rd_shm", 65537);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "call";
    int count = argc > 2 ? atoi(argv[2]) : 1 << 23;
    /* errors return, as in an application that checks them: a failure on
     * some ranks only then leaves the others waiting (a hang the time limit
     * of shm_budget_tmpfs.sh fails), where the default handler aborts */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (strcmp(mode, "pieces") == 0) {
        pieces();
    } else if (strcmp(mode, "fallback") == 0) {
        check(call_allreduce(count, 1), "allreduce falls back without node-shared memory");
        check(call_allreduce(count, 1), "a second allreduce stays without node-shared memory");
    } else {
        check(call_allreduce(count, 0), "allreduce completes with correct results");
    }
    if (rank == 0) printf("%d passed, %d failed\n", passed, failed);
    MPI_Finalize();
    return failed ? 1 : 0;
}
