/*
 * The pass-through (src/api/pass.h): a repeated call whose settled choice
 * is the MPI library's own goes straight to it from the entry point.  Its
 * count of served calls (tc_pass_served) tells which calls it took:
 *   - repeated native calls (TOPOCOLL_BCAST=native): every call after the
 *     first (or second: the context's first) is served, the data right;
 *   - forced native, a bcast whose count and root change on every call:
 *     served (its choice holds for any); a datatype changed on every call:
 *     none is served;
 *   - three communicators used in turn: each keeps its pass-through;
 *   - a derived datatype freed and another made (its handle may be reused,
 *     with another size): the first call with it is not served;
 *   - a NULL buffer after served calls: the error is still raised;
 *   - TOPOCOLL_EXPLAIN or TOPOCOLL_STATS on: none is served;
 *   - learning: while a key explores (no outcome agreed yet), none is
 *     served; settled on native (a preloaded outcome), calls are served but
 *     the re-checks, which take the full path, and the learner's call index
 *     still counts every call; every rank serves the same calls; other
 *     counts of the size class and other roots too;
 *   - patience (TOPOCOLL_LEARN_PATIENCE P): a new key's first P calls run
 *     the table's entry with the learner waiting (native: the pass-through
 *     serves all but the first), nothing learned, every call counted; the
 *     call after them starts exploring, which the pass-through leaves alone;
 *   - alltoallv (one learner key per communicator): with counts that
 *     change on every call (zeros included) the data is right on every
 *     call, and once the key settles on native the pass-through serves
 *     calls whatever their counts (none when it settles on another entry).
 * Rank 0 prints "N passed, M failed".
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topocoll.h"
#include "api/learn_call.h"
#include "api/pass.h"
#include "common/mpi_harness.h"
#include "core/config.h"
#include "select/learn.h"

#define N 8

static int rank, size;

static void configure(const char *learn, const char *bcast, const char *explain, const char *stats)
{
    setenv("TOPOCOLL_LEARN", learn, 1);
    if (bcast) setenv("TOPOCOLL_BCAST", bcast, 1);
    else unsetenv("TOPOCOLL_BCAST");
    if (explain) setenv("TOPOCOLL_EXPLAIN", explain, 1);
    else unsetenv("TOPOCOLL_EXPLAIN");
    if (stats) setenv("TOPOCOLL_STATS", stats, 1);
    else unsetenv("TOPOCOLL_STATS");
    setenv("TOPOCOLL_LEARN_PATIENCE", "0", 1);   /* learning from a key's first call (while_patient: not) */
    tc_config_reload();
}

/* One bcast of count ints from root, its data checked; the calls the
 * pass-through served for it (0 or 1). */
static unsigned long bcast_once(int count, int root, int call, const char *what)
{
    int *b = malloc((size_t)count * sizeof *b + 1);
    for (int i = 0; i < count; i++) b[i] = rank == root ? call * 1000 + i : -1;
    unsigned long before = tc_pass_served;
    int rc = topocoll_bcast(b, count, MPI_INT, root, MPI_COMM_WORLD);
    unsigned long served = tc_pass_served - before;
    int bad = rc != MPI_SUCCESS;
    for (int i = 0; i < count; i++) bad |= b[i] != call * 1000 + i;
    CHECK(!bad, "%s: bcast call %d (count %d, root %d) rc %d", what, call, count, root, rc);
    free(b);
    return served;
}

/* Every rank served the same number of calls. */
static int same_everywhere(unsigned long v)
{
    unsigned long lo = 0, hi = 0;
    MPI_Allreduce(&v, &lo, 1, MPI_UNSIGNED_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&v, &hi, 1, MPI_UNSIGNED_LONG, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi;
}

static void repeated_native(void)
{
    configure("0", "native", NULL, NULL);
    unsigned long served = 0;
    for (int call = 0; call < 20; call++) served += bcast_once(N, 0, call, "repeated");
    /* the first call takes the full path, and so may the second: the call
     * that made the context did not find it to remember it */
    CHECK(served >= 18 && served <= 19, "repeated native calls: %lu of 20 served by the pass-through", served);
    CHECK(strcmp(topocoll_last_algorithm(), "native") == 0, "pass-through: last algorithm '%s'",
          topocoll_last_algorithm());
}

/* One bcast of count elements of type t (MPI_INT or MPI_UNSIGNED) from
 * root on comm, its data checked; the calls the pass-through served (0 or 1). */
static unsigned long bcast_on(MPI_Comm comm, int count, MPI_Datatype t, int root, int call, const char *what)
{
    int *b = malloc((size_t)count * sizeof *b + 1);
    for (int i = 0; i < count; i++) b[i] = rank == root ? call * 1000 + i : -1;
    unsigned long before = tc_pass_served;
    int rc = topocoll_bcast(b, count, t, root, comm), bad = rc != MPI_SUCCESS;
    unsigned long served = tc_pass_served - before;
    for (int i = 0; i < count; i++) bad |= b[i] != call * 1000 + i;
    CHECK(!bad, "%s: bcast call %d (count %d, root %d) rc %d", what, call, count, root, rc);
    free(b);
    return served;
}

/* Forced native: a bcast's choice holds for any count and root, so the
 * pass-through serves calls whose count and root change (a one-count
 * call's memo: tc_memo_note_counts); a datatype changed on every call it
 * does not serve. */
static void changed_arguments(void)
{
    configure("0", "native", NULL, NULL);
    unsigned long served = 0;
    for (int call = 0; call < 10; call++) served += bcast_once(N + call % 2, 0, call, "changing count");
    for (int call = 0; call < 10; call++) served += bcast_once(N, call % size, call, "changing root");
    for (int call = 0; call < 10; call++) served += bcast_once(1 + 300 * call, call % size, call, "changing both");
    CHECK(served >= 28, "forced native, count and root changed: %lu of 30 calls served by the pass-through", served);
    served = 0;
    for (int call = 0; call < 10; call++)
        served += bcast_on(MPI_COMM_WORLD, N, call % 2 ? MPI_INT : MPI_UNSIGNED, 0, call, "changing type");
    CHECK(served == 0, "datatype changed on every call: %lu calls served by the pass-through", served);
}

/* Communicators used in turn (as ScaLAPACK's row, column and grid ones):
 * each keeps its pass-through (the thread remembers several). */
static void alternating_communicators(void)
{
    configure("0", "native", NULL, NULL);
    MPI_Comm c[3];
    for (int i = 0; i < 3; i++) MPI_Comm_dup(MPI_COMM_WORLD, &c[i]);
    unsigned long served = 0;
    for (int call = 0; call < 30; call++) served += bcast_on(c[call % 3], N, MPI_INT, 0, call, "alternating");
    CHECK(served >= 24, "three communicators in turn: %lu of 30 calls served by the pass-through", served);
    for (int i = 0; i < 3; i++) MPI_Comm_free(&c[i]);
}

/* Bcast of 2 elements of type t (each of `ints` ints); served or not. */
static unsigned long bcast_typed(MPI_Datatype t, int ints, int call)
{
    int b[16];
    for (int i = 0; i < 2 * ints; i++) b[i] = rank == 0 ? call * 100 + i : -1;
    unsigned long before = tc_pass_served;
    int rc = topocoll_bcast(b, 2, t, 0, MPI_COMM_WORLD), bad = rc != MPI_SUCCESS;
    for (int i = 0; i < 2 * ints; i++) bad |= b[i] != call * 100 + i;
    CHECK(!bad, "derived type of %d ints: call %d rc %d", ints, call, rc);
    return tc_pass_served - before;
}

static void derived_type_replaced(void)
{
    configure("0", "native", NULL, NULL);
    MPI_Datatype t;
    MPI_Type_contiguous(2, MPI_INT, &t);
    MPI_Type_commit(&t);
    unsigned long served = 0;
    for (int call = 0; call < 4; call++) served += bcast_typed(t, 2, call);
    CHECK(served == 3, "derived type: %lu of 4 calls served, expected 3", served);
    MPI_Type_free(&t);
    MPI_Type_contiguous(5, MPI_INT, &t);   /* may come back with the same handle */
    MPI_Type_commit(&t);
    CHECK(bcast_typed(t, 5, 10) == 0, "a derived type freed and another made: the first call was served");
    CHECK(bcast_typed(t, 5, 11) == 1, "the new derived type's second call was not served");
    MPI_Type_free(&t);
}

static void null_buffer(void)
{
    configure("0", "native", NULL, NULL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int call = 0; call < 3; call++) (void)bcast_once(N, 0, call, "before NULL");
    unsigned long before = tc_pass_served;
    int rc = topocoll_bcast(NULL, N, MPI_INT, 0, MPI_COMM_WORLD), cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_BUFFER && tc_pass_served == before,
          "NULL buffer after served calls: class %d (expected MPI_ERR_BUFFER), served %lu", cls,
          tc_pass_served - before);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void explain_and_stats(void)
{
    configure("0", "native", "2", NULL);
    unsigned long served = 0;
    for (int call = 0; call < 5; call++) served += bcast_once(N, 0, call, "explain");
    CHECK(served == 0, "TOPOCOLL_EXPLAIN on: %lu calls served by the pass-through", served);
    configure("0", "native", NULL, "1");
    for (int call = 0; call < 5; call++) served += bcast_once(N, 0, call, "stats");
    CHECK(served == 0, "TOPOCOLL_STATS on: %lu calls served by the pass-through", served);
}

/* The outcome agreed for bcast of `bytes` on this communicator, or NULL. */
static const tc_learn_outcome *outcome_of(int64_t bytes, tc_learn_outcome *o, int max)
{
    int n = tc_learn_outcomes(o, max);
    for (int i = 0; i < n && i < max; i++)
        if (o[i].coll == TOPOCOLL_BCAST && o[i].np == size && bytes >= o[i].min_bytes && bytes < o[i].max_bytes)
            return &o[i];
    return NULL;
}

/* The learner's call index of bcast of `bytes` on MPI_COMM_WORLD, with the
 * calls the fast paths served since it last saw one. */
static uint64_t learner_calls(int64_t bytes)
{
    tc_ctx *x = tc_ctx_lookup(MPI_COMM_WORLD);
    int cls = tc_learn_size_class(TOPOCOLL_BCAST, bytes);
    for (int i = 0; x && i < x->nlearn; i++) {
        const tc_learner *l = &x->learn[i]->l;
        if (l->coll != TOPOCOLL_BCAST || l->size_class != cls) continue;
        const tc_call_memo *m = &x->memo[TOPOCOLL_BCAST];
        return l->calls + (m->learn == l ? m->learn_base - m->learn_left : 0);
    }
    return 0;
}

/* Learning: nothing served while exploring; all ranks alike. */
static void while_exploring(void)
{
    configure("1", NULL, NULL, NULL);
    enum { COUNT = 300, CALLS = 400 };
    tc_learn_outcome o[64];
    unsigned long served = 0, exploring_served = 0;
    for (int call = 0; call < CALLS; call++) {
        int settled = outcome_of(COUNT * 4, o, 64) != NULL;
        unsigned long s = bcast_once(COUNT, 0, call, "learning");
        served += s;
        if (!settled) exploring_served += s;
    }
    CHECK(exploring_served == 0, "learning: %lu calls served by the pass-through before the key settled",
          exploring_served);
    CHECK(same_everywhere(served), "learning: the ranks' pass-through served different calls");
    CHECK(learner_calls(COUNT * 4) == CALLS, "learning: the learner counted %llu calls of %d",
          (unsigned long long)learner_calls(COUNT * 4), CALLS);
    const tc_learn_outcome *w = outcome_of(COUNT * 4, o, 64);
    if (rank == 0)
        printf("learning: settled on %s; %lu of %d calls passed through\n", w ? w->winner : "(nothing)", served,
               CALLS);
    if (w && strcmp(w->winner, "native") != 0)
        CHECK(served == 0, "learning settled on %s: %lu calls served by the pass-through", w->winner, served);
}

/* The phase of the learner of bcast of `bytes` on MPI_COMM_WORLD (-1: none). */
static int learner_phase(int64_t bytes)
{
    tc_ctx *x = tc_ctx_lookup(MPI_COMM_WORLD);
    int cls = tc_learn_size_class(TOPOCOLL_BCAST, bytes);
    for (int i = 0; x && i < x->nlearn; i++) {
        const tc_learner *l = &x->learn[i]->l;
        if (l->coll == TOPOCOLL_BCAST && l->size_class == cls) return (int)l->phase;
    }
    return -1;
}

/* Patience: the table's entry serves the key's first P calls (the fast
 * paths included), then it explores. */
static void while_patient(void)
{
    configure("1", NULL, NULL, NULL);
    setenv("TOPOCOLL_LEARN_PATIENCE", "40", 1);
    tc_config_reload();
    enum { COUNT = 700, P = 40 };
    tc_learn_outcome o[64];
    unsigned long served = 0;
    char first[64] = "";
    int changed = 0, waiting = 0;
    for (int call = 0; call < P; call++) {
        served += bcast_once(COUNT, 0, call, "patient");
        const char *algo = topocoll_last_algorithm();
        if (!call) snprintf(first, sizeof first, "%s", algo);
        changed += strcmp(first, algo) != 0;
        waiting += learner_phase(COUNT * 4) == TC_LEARN_PATIENT;
    }
    CHECK(changed == 0, "patient: %d of %d calls ran another entry than the first (%s)", changed, P, first);
    CHECK(waiting == P, "patient: the learner waited at %d of %d calls", waiting, P);
    CHECK(learner_calls(COUNT * 4) == P, "patient: the learner counted %llu calls of %d",
          (unsigned long long)learner_calls(COUNT * 4), P);
    CHECK(outcome_of(COUNT * 4, o, 64) == NULL, "patient: an outcome published while waiting");
    if (strcmp(first, "native") == 0)
        CHECK(served == P - 1, "patient on native: the pass-through served %lu of the %d calls after the first",
              served, P - 1);
    CHECK(same_everywhere(served), "patient: the ranks' pass-through served different calls");
    unsigned long after = bcast_once(COUNT, 0, P, "patient, then learning");
    int phase = learner_phase(COUNT * 4);
    CHECK(after == 0 && phase != TC_LEARN_PATIENT && phase >= 0,
          "call %d: served %lu by the pass-through, learner phase %d (learning should start)", P + 1, after, phase);
    if (rank == 0) printf("patient: %d calls of %s, %lu passed through; then phase %d\n", P, first, served, phase);
    configure("1", NULL, NULL, NULL);
}

/* Settled on native from a preloaded outcome: served but the re-checks. */
static void settled_native(void)
{
    configure("1", NULL, NULL, NULL);
    enum { COUNT = 3000, CALLS = 400 };
    int64_t bytes = COUNT * 4;
    tc_learn_outcome in = { 0 };
    in.coll = TOPOCOLL_BCAST;
    in.np = size;
    in.nnodes = 1;
    in.ppn = size;
    tc_learn_class_bounds(tc_learn_size_class(TOPOCOLL_BCAST, bytes), &in.min_bytes, &in.max_bytes);
    in.winner = "native";
    tc_learn_preload(&in, 1);
    unsigned long served = 0;
    for (int call = 0; call < CALLS; call++) served += bcast_once(COUNT, 0, call, "settled native");
    tc_learn_outcome o[64];
    const tc_learn_outcome *w = outcome_of(bytes, o, 64);
    if (!w || strcmp(w->winner, "native") != 0) {
        /* another layout than one node: the preload does not apply here */
        CHECK(served == 0 || (w && strcmp(w->winner, "native") == 0), "preloaded native: served %lu", served);
        return;
    }
    if (rank == 0) printf("settled on native: %lu of %d calls passed through\n", served, CALLS);
    CHECK(served > CALLS / 2 && served < CALLS - 2,
          "settled on native: %lu of %d calls served (the re-checks must take the full path)", served, CALLS);
    CHECK(same_everywhere(served), "settled on native: the ranks' pass-through served different calls");
    CHECK(learner_calls(bytes) == CALLS, "settled on native: the learner counted %llu calls of %d",
          (unsigned long long)learner_calls(bytes), CALLS);
    /* other counts of the size class and other roots: the settled choice
     * holds for them (served but the re-checks, counted by the same key) */
    int other = COUNT + 17;
    CHECK(tc_learn_size_class(TOPOCOLL_BCAST, (int64_t)other * 4) == tc_learn_size_class(TOPOCOLL_BCAST, bytes),
          "settled native: %d ints not in the class of %d", other, COUNT);
    unsigned long more = 0;
    for (int call = 0; call < 40; call++) more += bcast_once(other + call % 3, call % size, CALLS + call, "same class");
    CHECK(more >= 30, "settled on native, other counts of its class and other roots: %lu of 40 served", more);
    CHECK(same_everywhere(more), "settled on native, other counts: the ranks' pass-through served different calls");
    CHECK(learner_calls(bytes) == CALLS + 40, "settled on native, other counts: the learner counted %llu calls of %d",
          (unsigned long long)learner_calls(bytes), CALLS + 40);
}

/* One alltoallv whose counts change with the call (rank r sends
 * (r + j + call) % 3 ints to rank j, zeros included), its data checked;
 * the calls the pass-through served for it (0 or 1). */
static unsigned long alltoallv_once(int call)
{
    int *sc = malloc(4 * (size_t)size * sizeof *sc), *sd = sc + size, *rc = sd + size, *rd = rc + size;
    int *sbuf = malloc(3 * (size_t)size * sizeof *sbuf + 1), *rbuf = malloc(3 * (size_t)size * sizeof *rbuf + 1);
    if (!sc || !sbuf || !rbuf) MPI_Abort(MPI_COMM_WORLD, 2);
    for (int j = 0, so = 0, ro = 0; j < size; j++) {
        sc[j] = (rank + j + call) % 3, sd[j] = so, so += sc[j];
        rc[j] = (j + rank + call) % 3, rd[j] = ro, ro += rc[j];
        for (int e = 0; e < sc[j]; e++) sbuf[sd[j] + e] = 1000000 * rank + 1000 * j + e + call;
    }
    unsigned long before = tc_pass_served;
    CHECK(topocoll_alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS,
          "alltoallv call %d failed", call);
    unsigned long served = tc_pass_served - before;
    for (int j = 0; j < size; j++)
        for (int e = 0; e < rc[j]; e++)
            CHECK(rbuf[rd[j] + e] == 1000000 * j + 1000 * rank + e + call, "alltoallv call %d: wrong data from %d",
                  call, j);
    free(sc), free(sbuf), free(rbuf);
    return served;
}

/* alltoallv: served whatever the counts once settled on native. */
static void per_peer(void)
{
    configure("1", NULL, NULL, NULL);
    enum { CALLS = 300 };
    unsigned long served = 0;
    for (int call = 0; call < CALLS; call++) served += alltoallv_once(call);
    tc_learn_outcome o[64];
    int n = tc_learn_outcomes(o, 64);
    const char *winner = NULL;
    for (int i = 0; i < n && i < 64; i++)
        if (o[i].coll == TOPOCOLL_ALLTOALLV && o[i].np == size) winner = o[i].winner;
    if (!winner) winner = topocoll_last_algorithm();   /* one candidate: settled at once, no outcome recorded */
    if (rank == 0) printf("alltoallv: settled on %s; %lu of %d calls passed through\n", winner ? winner : "(nothing)",
                          served, CALLS);
    CHECK(same_everywhere(served), "alltoallv: the ranks' pass-through served different calls");
    if (winner && strcmp(winner, "native") == 0)
        CHECK(served > CALLS / 2, "alltoallv settled on native: only %lu of %d calls served", served, CALLS);
    else
        CHECK(served == 0, "alltoallv settled on %s: %lu calls served by the pass-through", winner, served);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    repeated_native();
    changed_arguments();
    alternating_communicators();
    derived_type_replaced();
    null_buffer();
    explain_and_stats();
    while_exploring();
    while_patient();
    settled_native();
    per_peer();
    int status = tc_test_mpi_summary(0);
    MPI_Finalize();
    return status;
}
