/*
 * Learning during the run (docs/learning.md), under the random per-rank
 * timing noise of TOPOCOLL_LEARN_NOISE (set by the test's registration):
 *   - agreement: after every call, every rank ran the same algorithm (the
 *     names' hashes reduced MIN and MAX), and at the end every rank has
 *     the same outcomes (count, winners);
 *   - results: every call's buffer equals the MPI library's own collective
 *     on the same inputs (integer data: bit for bit), so learning on and off
 *     give identical results;
 *   - rooted collectives with a root that changes every call, MPI_IN_PLACE
 *     on every other call, alltoallv with counts that differ per rank.
 * With TOPOCOLL_LEARN=0 ("off" as the first argument) the same calls check
 * that nothing is learned and that repeated calls of a key always run the
 * same entry (the table's decision, as without learning); with learning on,
 * at np >= 2, some key must have settled.  "patient" (with
 * TOPOCOLL_LEARN_PATIENCE above the calls each key makes): learning is on
 * but every key waits, so the same checks as "off" hold: the table's entry
 * serves every call of a key, nothing explored, nothing learned, and the
 * results are right.  "payback" (with a patience below the calls and
 * TOPOCOLL_LEARN_PAYBACK unset or above 0): every key gauges the table's
 * choice after its patience (timed calls, a reduction), and none of them is
 * worth exploring (that takes at least 4 x 90 calls), so the same checks as
 * "patient" hold, with the gauges' reductions in between.
 * Rank 0 prints "N passed, M failed".
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topocoll.h"
#include "common/mpi_harness.h"
#include "api/learn_call.h"
#include "select/learn.h"

#define CALLS 150   /* per collective and size: enough to explore and settle */

static int rank, size, learning = 1;

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* Every rank ran the same algorithm in its last call. */
static int same_everywhere(const char *name)
{
    long long h = (long long)(hash_name(name) >> 1), lo = 0, hi = 0;
    MPI_Allreduce(&h, &lo, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&h, &hi, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi;
}

/* The algorithms of one key's calls: the first, and whether another ran. */
typedef struct seen {
    const char *first;
    int changed;
} seen;

static void note(seen *s, const char *algo)
{
    if (!s->first) s->first = algo;
    else if (strcmp(s->first, algo) != 0) s->changed = 1;
}

static int any_changed;

static void finish_key(const seen *s, const char *what, int n)
{
    if (!learning) CHECK(!s->changed, "%s n=%d: the entry changed without learning (off or patient)", what, n);
    any_changed |= s->changed;
}

static int fill(int r, int i, int call) { return (r + 1) * 131 + i * 7 + call; }

static void check_call(int rc, const void *got, const void *want, size_t bytes, const char *what, int n, int call,
                       seen *s)
{
    const char *algo = topocoll_last_algorithm();
    int ok = rc == MPI_SUCCESS && memcmp(got, want, bytes) == 0;
    CHECK(ok, "%s n=%d call %d (%s): rc %d, result differs from the MPI library's", what, n, call, algo, rc);
    CHECK(same_everywhere(algo), "%s n=%d call %d: ranks ran different algorithms (here %s)", what, n, call,
          algo);
    note(s, algo);
}

static void bcast(int n)
{
    int *b = malloc(sizeof(int) * (size_t)n), *w = malloc(sizeof(int) * (size_t)n);
    seen s = { 0 };
    for (int call = 0; call < CALLS; call++) {
        int root = call % size;
        for (int i = 0; i < n; i++) b[i] = w[i] = rank == root ? fill(root, i, call) : -1;
        PMPI_Bcast(w, n, MPI_INT, root, MPI_COMM_WORLD);
        int rc = topocoll_bcast(b, n, MPI_INT, root, MPI_COMM_WORLD);
        check_call(rc, b, w, sizeof(int) * (size_t)n, "bcast", n, call, &s);
    }
    finish_key(&s, "bcast", n);
    free(b);
    free(w);
}

static void allreduce(int n)
{
    int *in = malloc(sizeof(int) * (size_t)n), *out = malloc(sizeof(int) * (size_t)n),
        *w = malloc(sizeof(int) * (size_t)n);
    seen s = { 0 };
    for (int call = 0; call < CALLS; call++) {
        int in_place = call % 2;
        for (int i = 0; i < n; i++) in[i] = out[i] = fill(rank, i, call);
        PMPI_Allreduce(in, w, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        int rc = topocoll_allreduce(in_place ? MPI_IN_PLACE : in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        check_call(rc, out, w, sizeof(int) * (size_t)n, "allreduce", n, call, &s);
    }
    finish_key(&s, "allreduce", n);
    free(in);
    free(out);
    free(w);
}

/* MPICH before 4.2 crashes in MPI_Reduce with MPI_IN_PLACE at a root other
 * than 0 above 2048 bytes (pmodels/mpich#6540), which "native" calls: in
 * place only where it does not. */
static int mpich_in_place_bug(int root, int n)
{
#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40200000
    return root != 0 && (size_t)n * sizeof(int) > 2048;
#else
    (void)root;
    (void)n;
    return 0;
#endif
}

/* Reduce to a root that changes every call, in place at the root on every
 * other call (only the root's buffer is compared). */
static void reduce(int n)
{
    int *in = malloc(sizeof(int) * (size_t)n), *out = malloc(sizeof(int) * (size_t)n),
        *w = malloc(sizeof(int) * (size_t)n);
    seen s = { 0 };
    for (int call = 0; call < CALLS; call++) {
        int root = (call * 3) % size, in_place = call % 2 && rank == root && !mpich_in_place_bug(root, n);
        for (int i = 0; i < n; i++) {
            in[i] = fill(rank, i, call);
            out[i] = in_place ? in[i] : -1;
            w[i] = -1;
        }
        PMPI_Reduce(in, w, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
        int rc = topocoll_reduce(in_place ? MPI_IN_PLACE : in, out, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
        if (rank != root) memcpy(out, w, sizeof(int) * (size_t)n);
        check_call(rc, out, w, sizeof(int) * (size_t)n, "reduce", n, call, &s);
    }
    finish_key(&s, "reduce", n);
    free(in);
    free(out);
    free(w);
}

static void allgather(int n)
{
    size_t all = (size_t)n * (size_t)size;
    int *in = malloc(sizeof(int) * (size_t)n), *out = malloc(sizeof(int) * all), *w = malloc(sizeof(int) * all);
    seen s = { 0 };
    for (int call = 0; call < CALLS; call++) {
        int in_place = call % 2;
        for (int i = 0; i < n; i++) in[i] = fill(rank, i, call);
        for (size_t i = 0; i < all; i++) out[i] = -1;
        if (in_place) memcpy(out + (size_t)rank * (size_t)n, in, sizeof(int) * (size_t)n);
        PMPI_Allgather(in, n, MPI_INT, w, n, MPI_INT, MPI_COMM_WORLD);
        int rc = topocoll_allgather(in_place ? MPI_IN_PLACE : in, n, MPI_INT, out, n, MPI_INT, MPI_COMM_WORLD);
        check_call(rc, out, w, sizeof(int) * all, "allgather", n, call, &s);
    }
    finish_key(&s, "allgather", n);
    free(in);
    free(out);
    free(w);
}

/* Alltoallv with counts that differ per rank and peer (sum over peers
 * differs per rank: the size class must still be agreed). */
static void alltoallv(int n)
{
    int *sc = malloc(sizeof(int) * (size_t)size), *sd = malloc(sizeof(int) * (size_t)size),
        *rc_ = malloc(sizeof(int) * (size_t)size), *rd = malloc(sizeof(int) * (size_t)size);
    int st = 0, rt = 0;
    for (int j = 0; j < size; j++) {
        sc[j] = n + rank + 2 * j;   /* to j: what j expects from me */
        rc_[j] = n + j + 2 * rank;
        sd[j] = st, rd[j] = rt;
        st += sc[j], rt += rc_[j];
    }
    int *in = malloc(sizeof(int) * (size_t)st), *out = malloc(sizeof(int) * (size_t)rt),
        *w = malloc(sizeof(int) * (size_t)rt);
    seen s = { 0 };
    for (int call = 0; call < CALLS; call++) {
        for (int i = 0; i < st; i++) in[i] = fill(rank, i, call);
        for (int i = 0; i < rt; i++) out[i] = w[i] = -1;
        PMPI_Alltoallv(in, sc, sd, MPI_INT, w, rc_, rd, MPI_INT, MPI_COMM_WORLD);
        int rc = topocoll_alltoallv(in, sc, sd, MPI_INT, out, rc_, rd, MPI_INT, MPI_COMM_WORLD);
        check_call(rc, out, w, sizeof(int) * (size_t)rt, "alltoallv", n, call, &s);
    }
    finish_key(&s, "alltoallv", n);
    free(in);
    free(out);
    free(w);
    free(sc);
    free(sd);
    free(rc_);
    free(rd);
}

/* Every rank has the same outcomes: their count and winners. */
static void outcomes_agree(void)
{
    tc_learn_outcome o[64];
    int n = tc_learn_outcomes(o, 64);
    uint64_t h = (uint64_t)n;
    for (int i = 0; i < n; i++)
        h = h * 31 + hash_name(o[i].winner ? o[i].winner : "") + (uint64_t)o[i].coll * 7 + (uint64_t)o[i].min_bytes;
    long long mine = (long long)(h >> 1), lo, hi;
    MPI_Allreduce(&mine, &lo, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &hi, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    CHECK(lo == hi, "the ranks' outcomes differ (%d here)", n);
    if (!learning) CHECK(n == 0, "learning off or patient, yet %d outcomes", n);
    else if (size > 1) CHECK(n > 0 && any_changed, "learning on: %d outcomes, candidates tried: %d", n, any_changed);
    for (int i = 0; i < n && rank == 0; i++)
        CHECK(o[i].winner && o[i].ntried >= 1 && o[i].winner_s >= 0, "outcome %d incomplete", i);
}

/* Patient: every key waits, with every call counted (the run summary's
 * "patient, k of N calls"): 4 collectives x 3 sizes of CALLS calls, and
 * alltoallv's one key of 3 x CALLS. */
static void all_waiting(void)
{
    tc_learn_wait w[64];
    int n = tc_learn_waiting(w, 64), bad = 0;
    for (int i = 0; i < n; i++)
        bad += w[i].calls != (uint64_t)(w[i].coll == TOPOCOLL_ALLTOALLV ? 3 * CALLS : CALLS);
    CHECK(n == 13 && bad == 0, "patient: %d keys waiting (13 expected), %d with a wrong count of calls", n, bad);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *env = getenv("TOPOCOLL_LEARN");
    const char *patience = getenv("TOPOCOLL_LEARN_PATIENCE");
    int gauging = argc > 1 && strcmp(argv[1], "payback") == 0;
    const char *payback = getenv("TOPOCOLL_LEARN_PAYBACK");
    int patient = (argc > 1 && strcmp(argv[1], "patient") == 0) || gauging;
    learning = !(argc > 1 && strcmp(argv[1], "off") == 0) && !patient;
    CHECK(learning || patient || (env && strcmp(env, "0") == 0), "'off' needs TOPOCOLL_LEARN=0 in the environment");
    CHECK(!patient || gauging || (patience && atoll(patience) > CALLS && !(env && strcmp(env, "0") == 0)),
          "'patient' needs learning on and TOPOCOLL_LEARN_PATIENCE above %d", CALLS);
    CHECK(!gauging || (patience && atoll(patience) > 0 && atoll(patience) < CALLS / 2 &&
                       !(payback && atoll(payback) == 0) && !(env && strcmp(env, "0") == 0)),
          "'payback' needs learning on, TOPOCOLL_LEARN_PATIENCE in 1..%d and TOPOCOLL_LEARN_PAYBACK not 0",
          CALLS / 2 - 1);
    static const int sizes[] = { 3, 1000, 40000 };
    for (int k = 0; k < 3; k++) {
        bcast(sizes[k]);
        allreduce(sizes[k]);
        reduce(sizes[k]);
        allgather(sizes[k] / 4 + 1);
        alltoallv(sizes[k] / (4 * size) + 1);
    }
    outcomes_agree();
    if (patient) all_waiting();
    int status = tc_test_mpi_summary(0);
    MPI_Finalize();
    return status;
}
