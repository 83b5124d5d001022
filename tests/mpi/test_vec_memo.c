/*
 * The per-call fast paths of the per-rank-count collectives: a settled
 * learner's choice (preloaded here, so that it is known) served by the
 * pass-through (native: src/api/pass.h) or by the kept schedule
 * (src/api/memo_vec.c), and alltoallw's memo (src/api/alltoallw.c).
 * Every collective is called many times with the same count arrays (the
 * same pointers) whose contents change every few calls:
 *   - the data is right on every call;
 *   - a fast path serves calls, the same ones on every rank;
 *   - where the fast path compares the arrays' contents (a kept schedule,
 *     allgatherv's native choice, alltoallw), the first call after a change
 *     is not served;
 *   - the same with the choice forced (TOPOCOLL_<COLL>, no learner);
 *   - topocoll_run's regular problem (arrays made per call: new addresses,
 *     the same contents) is served too (gatherv, native);
 *   - a negative count put into the same array after served calls still
 *     fails (MPI_ERR_COUNT where topocoll checks it; the MPI library's own
 *     error where the native choice hands the counts to it).
 * Rank 0 prints "N passed, M failed".
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topocoll.h"
#include "api/call.h"
#include "api/pass.h"
#include "common/mpi_harness.h"
#include "core/config.h"
#include "select/learn.h"

enum { CALLS = 240, PHASE = 12, MAXC = 3 };

static int rank, size;

/* Calls served by any fast path so far (this thread). */
static unsigned long served_so_far(void) { return tc_pass_served + tc_memo_vec_served; }

/* Every rank served the same number of calls. */
static int same_everywhere(unsigned long v)
{
    unsigned long lo = 0, hi = 0;
    MPI_Allreduce(&v, &lo, 1, MPI_UNSIGNED_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&v, &hi, 1, MPI_UNSIGNED_LONG, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi;
}

/* winner preloaded as the learned choice of coll on this communicator's
 * shape (one node, every size class and op). */
static void preload(topocoll_coll coll, const char *winner)
{
    tc_learn_outcome in = { 0 };
    in.coll = coll;
    in.np = size;
    in.nnodes = 1;
    in.ppn = size;
    in.min_bytes = 0;
    in.max_bytes = INT64_MAX;
    in.winner = winner;
    tc_learn_preload(&in, 1);
}

/* The count of part j in phase ph (1..MAXC: never empty). */
static int count_of(int j, int ph) { return 1 + (j + ph) % MAXC; }

/* A communicator with a context from its first call, its own learners. */
static MPI_Comm fresh_comm(void)
{
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    return c;
}

/* What the calls of one run did. */
typedef struct run_tally {
    unsigned long served;        /* calls a fast path served */
    unsigned long served_new;    /* of them, calls just after the counts changed */
    int bad_data;
} run_tally;

static void tally(run_tally *t, unsigned long before, int call)
{
    unsigned long d = served_so_far() - before;
    t->served += d;
    if (call % PHASE == 0 && call > 0) t->served_new += d;
}

/* The checks of a run of coll whose settled choice is winner; compared:
 * the fast path compares the counts' contents. */
static void judge(const char *what, const char *winner, const run_tally *t, int compared)
{
    CHECK(!t->bad_data, "%s (%s): wrong data", what, winner);
    CHECK(same_everywhere(t->served), "%s (%s): the ranks' fast paths served different calls", what, winner);
    int chosen = strcmp(topocoll_last_algorithm(), winner) == 0;
    if (rank == 0)
        printf("%s: last choice %s (preloaded %s); %lu of %d calls served\n", what, topocoll_last_algorithm(), winner,
               t->served, CALLS);
    if (chosen) CHECK(t->served > CALLS / 2, "%s (%s): only %lu of %d calls served", what, winner, t->served, CALLS);
    if (compared)
        CHECK(t->served_new == 0, "%s (%s): %lu calls with changed counts served from the memo", what, winner,
              t->served_new);
}

/* The error of a call with a negative count in the array used before. */
static void judge_bad(const char *what, const char *winner, int rc, int topocoll_checks)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    if (topocoll_checks)
        CHECK(cls == MPI_ERR_COUNT, "%s (%s): negative count after served calls: class %d, expected MPI_ERR_COUNT",
              what, winner, cls);
    else
        CHECK(rc != MPI_SUCCESS, "%s (%s): negative count after served calls: no error", what, winner);
}

/* ---- reduce_scatter -------------------------------------------------------- */

static void reduce_scatter(const char *winner)
{
    MPI_Comm comm = fresh_comm();
    preload(TOPOCOLL_REDUCE_SCATTER, winner);
    int *cnt = malloc((size_t)size * sizeof *cnt);
    int *sbuf = malloc((size_t)size * MAXC * sizeof *sbuf), *rbuf = malloc(MAXC * sizeof *rbuf);
    if (!cnt || !sbuf || !rbuf) MPI_Abort(MPI_COMM_WORLD, 2);
    run_tally t = { 0, 0, 0 };
    for (int call = 0; call < CALLS; call++) {
        int total = 0, mine = 0;
        for (int j = 0; j < size; j++) {
            cnt[j] = count_of(j, call / PHASE);
            if (j < rank) mine += cnt[j];
            total += cnt[j];
        }
        for (int i = 0; i < total; i++) sbuf[i] = 1000 * rank + i + call;
        unsigned long before = served_so_far();
        int rc = topocoll_reduce_scatter(sbuf, rbuf, cnt, MPI_INT, MPI_SUM, comm);
        tally(&t, before, call);
        t.bad_data |= rc != MPI_SUCCESS;
        for (int e = 0; e < cnt[rank] && rc == MPI_SUCCESS; e++)
            t.bad_data |= rbuf[e] != 1000 * size * (size - 1) / 2 + size * (mine + e + call);
    }
    judge("reduce_scatter", winner, &t, strcmp(winner, "native") != 0);
    cnt[0] = -1;
    judge_bad("reduce_scatter", winner, topocoll_reduce_scatter(sbuf, rbuf, cnt, MPI_INT, MPI_SUM, comm),
              strcmp(winner, "native") != 0);
    free(cnt), free(sbuf), free(rbuf);
    MPI_Comm_free(&comm);
}

/* ---- allgatherv ------------------------------------------------------------ */

static void allgatherv(const char *winner)
{
    MPI_Comm comm = fresh_comm();
    preload(TOPOCOLL_ALLGATHERV, winner);
    int *cnt = malloc(2 * (size_t)size * sizeof *cnt), *dsp = cnt + size;
    int *sbuf = malloc(MAXC * sizeof *sbuf), *rbuf = malloc((size_t)size * MAXC * sizeof *rbuf);
    if (!cnt || !sbuf || !rbuf) MPI_Abort(MPI_COMM_WORLD, 2);
    run_tally t = { 0, 0, 0 };
    for (int call = 0; call < CALLS; call++) {
        for (int j = 0, at = 0; j < size; j++) {
            cnt[j] = count_of(j, call / PHASE);
            dsp[j] = at, at += cnt[j];
        }
        for (int e = 0; e < cnt[rank]; e++) sbuf[e] = 1000 * rank + e + call;
        unsigned long before = served_so_far();
        int rc = topocoll_allgatherv(sbuf, cnt[rank], MPI_INT, rbuf, cnt, dsp, MPI_INT, comm);
        tally(&t, before, call);
        t.bad_data |= rc != MPI_SUCCESS;
        for (int j = 0; j < size && rc == MPI_SUCCESS; j++)
            for (int e = 0; e < cnt[j]; e++) t.bad_data |= rbuf[dsp[j] + e] != 1000 * j + e + call;
    }
    judge("allgatherv", winner, &t, 1);
    cnt[0] = -1;
    judge_bad("allgatherv", winner, topocoll_allgatherv(sbuf, cnt[rank], MPI_INT, rbuf, cnt, dsp, MPI_INT, comm), 1);
    free(cnt), free(sbuf), free(rbuf);
    MPI_Comm_free(&comm);
}

/* ---- alltoallv and alltoallw ------------------------------------------------ */

/* The arrays of one all-to-all call in phase ph: rank r sends count_of(r + j)
 * ints to rank j (receives count_of(j + r) from j), packed; the send data. */
static void a2a_layout(int ph, int *sc, int *sd, int *rc, int *rd, int *sbuf, int call)
{
    for (int j = 0, so = 0, ro = 0; j < size; j++) {
        sc[j] = count_of(rank + j, ph), sd[j] = so, so += sc[j];
        rc[j] = count_of(j + rank, ph), rd[j] = ro, ro += rc[j];
        for (int e = 0; e < sc[j]; e++) sbuf[sd[j] + e] = 1000000 * rank + 1000 * j + e + call;
    }
}

static int a2a_wrong(const int *rc, const int *rd, const int *rbuf, int call)
{
    int bad = 0;
    for (int j = 0; j < size; j++)
        for (int e = 0; e < rc[j]; e++) bad |= rbuf[rd[j] + e] != 1000000 * j + 1000 * rank + e + call;
    return bad;
}

static void alltoallv(const char *winner)
{
    MPI_Comm comm = fresh_comm();
    preload(TOPOCOLL_ALLTOALLV, winner);
    int *v = malloc(4 * (size_t)size * sizeof *v), *sc = v, *sd = v + size, *rc = v + 2 * size, *rd = v + 3 * size;
    int *sbuf = malloc((size_t)size * MAXC * sizeof *sbuf), *rbuf = malloc((size_t)size * MAXC * sizeof *rbuf);
    if (!v || !sbuf || !rbuf) MPI_Abort(MPI_COMM_WORLD, 2);
    run_tally t = { 0, 0, 0 };
    for (int call = 0; call < CALLS; call++) {
        a2a_layout(call / PHASE, sc, sd, rc, rd, sbuf, call);
        unsigned long before = served_so_far();
        int r = topocoll_alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, comm);
        tally(&t, before, call);
        t.bad_data |= r != MPI_SUCCESS || a2a_wrong(rc, rd, rbuf, call);
    }
    judge("alltoallv", winner, &t, strcmp(winner, "native") != 0);
    sc[0] = rc[0] = -1;
    judge_bad("alltoallv", winner, topocoll_alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, comm),
              strcmp(winner, "native") != 0);
    free(v), free(sbuf), free(rbuf);
    MPI_Comm_free(&comm);
}

/* Alltoallw: no learner; the selection's choice (native where no rule
 * serves it), byte displacements, one datatype for every part. */
static void alltoallw(void)
{
    MPI_Comm comm = fresh_comm();
    int *v = malloc(4 * (size_t)size * sizeof *v), *sc = v, *sd = v + size, *rc = v + 2 * size, *rd = v + 3 * size;
    int *bsd = malloc(2 * (size_t)size * sizeof *bsd), *brd = bsd + size;
    MPI_Datatype *ty = malloc((size_t)size * sizeof *ty);
    int *sbuf = malloc((size_t)size * MAXC * sizeof *sbuf), *rbuf = malloc((size_t)size * MAXC * sizeof *rbuf);
    if (!v || !bsd || !ty || !sbuf || !rbuf) MPI_Abort(MPI_COMM_WORLD, 2);
    for (int j = 0; j < size; j++) ty[j] = MPI_INT;
    run_tally t = { 0, 0, 0 };
    for (int call = 0; call < CALLS; call++) {
        a2a_layout(call / PHASE, sc, sd, rc, rd, sbuf, call);
        for (int j = 0; j < size; j++) bsd[j] = sd[j] * (int)sizeof(int), brd[j] = rd[j] * (int)sizeof(int);
        unsigned long before = served_so_far();
        int r = topocoll_alltoallw(sbuf, sc, bsd, ty, rbuf, rc, brd, ty, comm);
        tally(&t, before, call);
        t.bad_data |= r != MPI_SUCCESS || a2a_wrong(rc, rd, rbuf, call);
    }
    judge("alltoallw", topocoll_last_algorithm(), &t, 1);
    if (strcmp(topocoll_last_algorithm(), "native") == 0)
        CHECK(t.served > CALLS / 2, "alltoallw (native): only %lu of %d calls served", t.served, CALLS);
    sc[0] = rc[0] = -1;
    judge_bad("alltoallw", "selection", topocoll_alltoallw(sbuf, sc, bsd, ty, rbuf, rc, brd, ty, comm), 1);
    free(v), free(bsd), free(ty), free(sbuf), free(rbuf);
    MPI_Comm_free(&comm);
}

/* ---- topocoll_run's regular problem ----------------------------------------- */

static void regular_gatherv(void)
{
    MPI_Comm comm = fresh_comm();
    preload(TOPOCOLL_GATHERV, "native");
    int *sbuf = malloc(MAXC * sizeof *sbuf), *rbuf = malloc((size_t)size * MAXC * sizeof *rbuf);
    if (!sbuf || !rbuf) MPI_Abort(MPI_COMM_WORLD, 2);
    run_tally t = { 0, 0, 0 };
    for (int call = 0; call < CALLS; call++) {
        for (int e = 0; e < MAXC; e++) sbuf[e] = 1000 * rank + e + call;
        unsigned long before = served_so_far();
        int rc = topocoll_run(TOPOCOLL_GATHERV, NULL, sbuf, MAXC, MPI_INT, rbuf, MAXC, MPI_INT, MPI_OP_NULL, 0, comm);
        tally(&t, before, call);
        t.bad_data |= rc != MPI_SUCCESS;
        for (int j = 0; j < size && rank == 0 && rc == MPI_SUCCESS; j++)
            for (int e = 0; e < MAXC; e++) t.bad_data |= rbuf[MAXC * j + e] != 1000 * j + e + call;
    }
    judge("topocoll_run gatherv", "native", &t, 0);
    free(sbuf), free(rbuf);
    MPI_Comm_free(&comm);
}

/* The runs above with the entry forced by TOPOCOLL_<COLL> (no learner). */
static void forced(const char *var, const char *entry, void (*run)(const char *))
{
    setenv(var, entry, 1);
    tc_config_reload();
    run(entry);
    unsetenv(var);
    tc_config_reload();
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    setenv("TOPOCOLL_LEARN", "1", 1);
    setenv("TOPOCOLL_LEARN_PATIENCE", "0", 1);   /* the preloaded choice from a key's first call */
    setenv("TOPOCOLL_CONTEXT_AFTER", "0", 1);    /* a duplicate's context at its first call */
    tc_config_reload();
    reduce_scatter("native");
    reduce_scatter("ring");
    allgatherv("native");
    allgatherv("linear");
    alltoallv("native");
    alltoallv("pairwise");
    alltoallw();
    regular_gatherv();
    forced("TOPOCOLL_REDUCE_SCATTER", "native", reduce_scatter);
    forced("TOPOCOLL_REDUCE_SCATTER", "ring", reduce_scatter);
    forced("TOPOCOLL_ALLGATHERV", "native", allgatherv);
    forced("TOPOCOLL_ALLTOALLV", "pairwise", alltoallv);
    int status = tc_test_mpi_summary(0);
    MPI_Finalize();
    return status;
}
