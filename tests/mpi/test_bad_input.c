/*
 * Bad input: with MPI_ERRORS_RETURN on MPI_COMM_WORLD (and MPI_COMM_SELF,
 * where MPI-4 sends errors without a communicator), every invalid argument
 * must come back as an error of the expected MPI error class, through
 * topocoll_allgather and through every algorithm of the catalog forced by
 * name, without crashing.  Arguments MPI says are ignored (the send arguments
 * with MPI_IN_PLACE, buffers of zero-count calls) must not be rejected.  After
 * all of it an ordinary topocoll_allgather must still give the right result.
 *
 * Run with TOPOCOLL_ALLGATHER set to an unknown name (CTest does, in a
 * second run), it checks instead that topocoll_allgather refuses to run with
 * MPI_ERR_ARG, and uses a catalog algorithm forced by name for the rest.
 *
 * Ends with "N passed, M failed"; exits 1 on any failure.
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topocoll.h"
#include "../common/harness.h"

#define COUNT 4             /* ints per rank in the valid calls */
#define MAXCLS 3

#if defined(__GNUC__) || defined(__clang__)
#define PRINTF_LIKE(a, b) __attribute__((format(printf, a, b)))
#else
#define PRINTF_LIKE(a, b)
#endif

static int wrank, wsize;

static const char *class_name(int cls)
{
    switch (cls) {
    case MPI_SUCCESS: return "MPI_SUCCESS";
    case MPI_ERR_COUNT: return "MPI_ERR_COUNT";
    case MPI_ERR_BUFFER: return "MPI_ERR_BUFFER";
    case MPI_ERR_TYPE: return "MPI_ERR_TYPE";
    case MPI_ERR_COMM: return "MPI_ERR_COMM";
    case MPI_ERR_ARG: return "MPI_ERR_ARG";
    case MPI_ERR_OTHER: return "MPI_ERR_OTHER";
    case MPI_ERR_INTERN: return "MPI_ERR_INTERN";
    default: return "another class";
    }
}

/* Counts one check, agreed over MPI_COMM_WORLD (so every rank counts the
 * same); rank 0 prints it when it failed anywhere. */
static PRINTF_LIKE(2, 3) void record(int ok, const char *fmt, ...)
{
    int all = 0;
    char msg[512];
    va_list ap;
    if (PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: PMPI_Allreduce failed\n", wrank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (wrank == 0) CHECK(all, "np=%d %s", wsize, msg);
    else if (all) tc_test_counts_global.passed++;
    else tc_test_counts_global.failed++;
}

/* rc must be an error whose class is one of cls[0..ncls). */
static void expect_error(int rc, const int *cls, int ncls, const char *entry, const char *what)
{
    int c = MPI_SUCCESS, ok = 0;
    char want[128] = "";
    if (rc != MPI_SUCCESS && MPI_Error_class(rc, &c) != MPI_SUCCESS) c = -1;
    for (int i = 0; i < ncls; i++) {
        if (rc != MPI_SUCCESS && c == cls[i]) ok = 1;
        snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s", i ? " or " : "",
                 class_name(cls[i]));
    }
    if (!ok && wrank == 0)
        fprintf(stderr, "rank 0: %s, %s: got %s (%d, code %d), want %s\n", entry, what,
                class_name(c), c, rc, want);
    record(ok, "%s, %s: returned %s (code %d), expected %s", entry, what, class_name(c), rc, want);
}

/* Rank 0 says which check comes next (a crash then shows where it was). */
static void announce(const char *entry, const char *what)
{
    if (wrank != 0) return;
    printf("check %s: %s\n", entry, what);
    fflush(stdout);
}

/* The catalog algorithm `name`, or topocoll_allgather when name is NULL. */
static int call(const char *name, const void *s, int sc, MPI_Datatype st, void *r, int rc,
                MPI_Datatype rt, MPI_Comm comm)
{
    if (name) return topocoll_allgather_algorithm(name, s, sc, st, r, rc, rt, comm);
    return topocoll_allgather(s, sc, st, r, rc, rt, comm);
}

static void fill(int *send, int *recv)
{
    for (int i = 0; i < COUNT; i++) send[i] = wrank * 100 + i;
    for (int i = 0; i < COUNT * wsize; i++) recv[i] = -1;
}

static int result_ok(const int *recv)
{
    for (int r = 0; r < wsize; r++)
        for (int i = 0; i < COUNT; i++)
            if (recv[r * COUNT + i] != r * 100 + i) return 0;
    return 1;
}

/* Every invalid argument through one entry point (in_place_recv: only
 * MPI_IN_PLACE as the receive buffer, which runs last because a library that
 * does not check it crashes).  Each check is announced on rank 0 first, so a
 * crash shows which one it was. */
static void bad_arguments(const char *name, int *send, int *recv, int in_place_recv)
{
    const char *entry = name ? name : "topocoll_allgather";
    struct bad {
        const char *what;
        const void *sbuf;
        int scount;
        MPI_Datatype stype;
        void *rbuf;
        int rcount;
        MPI_Datatype rtype;
        MPI_Comm comm;
        int cls[MAXCLS];
        int ncls;
    };
    const struct bad bad[] = {
        { "negative sendcount", send, -1, MPI_INT, recv, COUNT, MPI_INT, MPI_COMM_WORLD,
          { MPI_ERR_COUNT }, 1 },
        { "negative recvcount", send, COUNT, MPI_INT, recv, -1, MPI_INT, MPI_COMM_WORLD,
          { MPI_ERR_COUNT }, 1 },
        { "negative recvcount with MPI_IN_PLACE", MPI_IN_PLACE, 0, MPI_INT, recv, -COUNT, MPI_INT,
          MPI_COMM_WORLD, { MPI_ERR_COUNT }, 1 },
        { "NULL sendbuf with a positive count", NULL, COUNT, MPI_INT, recv, COUNT, MPI_INT,
          MPI_COMM_WORLD, { MPI_ERR_BUFFER }, 1 },
        { "NULL recvbuf with a positive count", send, COUNT, MPI_INT, NULL, COUNT, MPI_INT,
          MPI_COMM_WORLD, { MPI_ERR_BUFFER }, 1 },
        { "MPI_DATATYPE_NULL as sendtype", send, COUNT, MPI_DATATYPE_NULL, recv, COUNT, MPI_INT,
          MPI_COMM_WORLD, { MPI_ERR_TYPE }, 1 },
        { "MPI_DATATYPE_NULL as recvtype", send, COUNT, MPI_INT, recv, COUNT, MPI_DATATYPE_NULL,
          MPI_COMM_WORLD, { MPI_ERR_TYPE }, 1 },
        { "MPI_COMM_NULL", send, COUNT, MPI_INT, recv, COUNT, MPI_INT, MPI_COMM_NULL,
          { MPI_ERR_COMM }, 1 },
        { "MPI_IN_PLACE as recvbuf", send, COUNT, MPI_INT, MPI_IN_PLACE, COUNT, MPI_INT,
          MPI_COMM_WORLD, { MPI_ERR_ARG, MPI_ERR_BUFFER }, 2 },
    };
    const size_t n = sizeof bad / sizeof bad[0];

    for (size_t i = in_place_recv ? n - 1 : 0; i < (in_place_recv ? n : n - 1); i++) {
        const struct bad *b = &bad[i];
        announce(entry, b->what);
        fill(send, recv);
        expect_error(call(name, b->sbuf, b->scount, b->stype, b->rbuf, b->rcount, b->rtype, b->comm),
                     b->cls, b->ncls, entry, b->what);
    }
}

/* Arguments MPI ignores must not be rejected. */
static void ignored_arguments(const char *name, int *send, int *recv)
{
    const char *entry = name ? name : "topocoll_allgather";
    int rc, ok;

    announce(entry, "zero counts with NULL buffers");
    rc = call(name, NULL, 0, MPI_INT, NULL, 0, MPI_INT, MPI_COMM_WORLD);
    record(rc == MPI_SUCCESS, "%s, zero counts with NULL buffers: returned %d, expected MPI_SUCCESS",
           entry, rc);

    announce(entry, "MPI_IN_PLACE with sendcount -7 and MPI_DATATYPE_NULL");
    fill(send, recv);
    for (int i = 0; i < COUNT; i++) recv[wrank * COUNT + i] = send[i];
    rc = call(name, MPI_IN_PLACE, -7, MPI_DATATYPE_NULL, recv, COUNT, MPI_INT, MPI_COMM_WORLD);
    ok = rc == MPI_SUCCESS && result_ok(recv);
    record(ok, "%s, MPI_IN_PLACE with sendcount -7 and MPI_DATATYPE_NULL (ignored by MPI): "
           "returned %d%s", entry, rc, rc == MPI_SUCCESS ? ", wrong result" : "");
}

static const int arg_cls[] = { MPI_ERR_ARG };
static const int comm_cls[] = { MPI_ERR_COMM };

/* Unknown algorithm names (and, in env_mode, the unknown name in the
 * environment). */
static void unknown_names(int *send, int *recv, int env_mode)
{
    int rc;
    fill(send, recv);
    expect_error(topocoll_allgather_algorithm("nosuch", send, COUNT, MPI_INT, recv, COUNT,
                                              MPI_INT, MPI_COMM_WORLD),
                 arg_cls, 1, "topocoll_allgather_algorithm", "unknown algorithm \"nosuch\"");
    expect_error(topocoll_allgather_algorithm(NULL, send, COUNT, MPI_INT, recv, COUNT,
                                              MPI_INT, MPI_COMM_WORLD),
                 arg_cls, 1, "topocoll_allgather_algorithm", "NULL algorithm name");
    expect_error(topocoll_allgather_algorithm("", send, COUNT, MPI_INT, recv, COUNT,
                                              MPI_INT, MPI_COMM_WORLD),
                 arg_cls, 1, "topocoll_allgather_algorithm", "empty algorithm name");
    rc = topocoll_allgather_applicable("nosuch", COUNT, MPI_INT, COUNT, MPI_INT, MPI_COMM_WORLD, NULL);
    record(rc < 0, "topocoll_allgather_applicable(\"nosuch\") returned %d, expected < 0", rc);
    record(topocoll_algorithm_index(TOPOCOLL_ALLGATHER, "nosuch") == -1,
           "topocoll_algorithm_index(\"nosuch\") is not -1");
    if (env_mode) {
        fill(send, recv);
        expect_error(topocoll_allgather(send, COUNT, MPI_INT, recv, COUNT, MPI_INT, MPI_COMM_WORLD),
                     arg_cls, 1, "topocoll_allgather", "unknown algorithm in TOPOCOLL_ALLGATHER");
    }
}

/* Invalid and ignored arguments through every algorithm that would serve the
 * valid version of the call.  Returns the first such algorithm (or NULL). */
static const char *every_algorithm(int *send, int *recv)
{
    const char *fallback = NULL;
    int nalgo = topocoll_algorithm_count(TOPOCOLL_ALLGATHER);
    record(nalgo >= 1, "topocoll_algorithm_count(TOPOCOLL_ALLGATHER) = %d", nalgo);
    for (int i = 0; i < nalgo; i++) {
        const char *name = topocoll_algorithm_name(TOPOCOLL_ALLGATHER, i), *why = NULL;
        int app;
        if (!name) {
            record(0, "topocoll_algorithm_name(TOPOCOLL_ALLGATHER, %d) is NULL", i);
            continue;
        }
        app = topocoll_allgather_applicable(name, COUNT, MPI_INT, COUNT, MPI_INT, MPI_COMM_WORLD, &why);
        if (app != 1) {
            if (wrank == 0)
                printf("%s declines the valid call at np=%d (%s): not checked\n", name, wsize,
                       why ? why : "no reason");
            record(app == 0, "topocoll_allgather_applicable(\"%s\") returned %d", name, app);
            continue;
        }
        if (!fallback) fallback = name;
        bad_arguments(name, send, recv, 0);
        ignored_arguments(name, send, recv);
    }
    return fallback;
}

/* Malformed topology specs, then a good one. */
static void topology_specs(void)
{
    static const char *const bad_specs[] = {
        "", "x", "0x2", "2x0", "2xx2", "2x*x2", "*", "2x2x2x2", "1,0,1", "3,,1", "2x*/nosuch",
        "2x*/block:3", "2x*/random:", "2x*/", "2x* trailing", "-1", "99999999999999999999",
        "1+*", "2x2,1",
    };
    char spec[64];
    int rc;
    for (size_t i = 0; i < sizeof bad_specs / sizeof bad_specs[0]; i++) {
        char what[96];
        snprintf(what, sizeof what, "invalid spec \"%s\"", bad_specs[i]);
        expect_error(topocoll_set_topology(MPI_COMM_WORLD, bad_specs[i]), arg_cls, 1,
                     "topocoll_set_topology", what);
    }
    snprintf(spec, sizeof spec, "%d,1", wsize);     /* one rank too many */
    expect_error(topocoll_set_topology(MPI_COMM_WORLD, spec), arg_cls, 1,
                 "topocoll_set_topology", "node list with one rank too many");
    snprintf(spec, sizeof spec, "%dx1", wsize + 1);
    expect_error(topocoll_set_topology(MPI_COMM_WORLD, spec), arg_cls, 1,
                 "topocoll_set_topology", "NxC with one rank too many");
    expect_error(topocoll_set_topology(MPI_COMM_NULL, "1"), comm_cls, 1,
                 "topocoll_set_topology", "MPI_COMM_NULL");
    rc = topocoll_set_topology(MPI_COMM_WORLD, "2x*/cyclic");
    record(rc == MPI_SUCCESS, "topocoll_set_topology(\"2x*/cyclic\") after the bad specs returned %d", rc);
}

/* After all of it a valid call must still give the right result (in
 * env_mode through the fallback algorithm, forced by name). */
static void still_works(int *send, int *recv, int env_mode, const char *fallback)
{
    int rc, ok;
    fill(send, recv);
    if (!env_mode) {
        rc = topocoll_allgather(send, COUNT, MPI_INT, recv, COUNT, MPI_INT, MPI_COMM_WORLD);
        ok = rc == MPI_SUCCESS && result_ok(recv);
        record(ok, "topocoll_allgather after the bad calls: returned %d%s", rc,
               rc == MPI_SUCCESS ? ", wrong result" : "");
        return;
    }
    rc = fallback ? topocoll_allgather_algorithm(fallback, send, COUNT, MPI_INT, recv, COUNT,
                                                 MPI_INT, MPI_COMM_WORLD)
                  : MPI_ERR_OTHER;
    ok = rc == MPI_SUCCESS && result_ok(recv);
    record(ok, "topocoll_allgather_algorithm(\"%s\") after the bad calls: returned %d%s",
           fallback ? fallback : "(none applicable)", rc, rc == MPI_SUCCESS ? ", wrong result" : "");
}

/* Last: MPI_IN_PLACE as recvbuf, through every entry point. */
static void in_place_recv_everywhere(int *send, int *recv, int env_mode)
{
    int nalgo = topocoll_algorithm_count(TOPOCOLL_ALLGATHER);
    if (!env_mode) bad_arguments(NULL, send, recv, 1);
    for (int i = 0; i < nalgo; i++) {
        const char *name = topocoll_algorithm_name(TOPOCOLL_ALLGATHER, i);
        if (name && topocoll_allgather_applicable(name, COUNT, MPI_INT, COUNT, MPI_INT,
                                                  MPI_COMM_WORLD, NULL) == 1)
            bad_arguments(name, send, recv, 1);
    }
}

int main(int argc, char **argv)
{
    const char *env = getenv("TOPOCOLL_ALLGATHER"), *fallback;
    int env_mode, *send, *recv, status = 0;

    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "MPI_Init failed\n");
        return 1;
    }
    if (MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) != MPI_SUCCESS ||
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN) != MPI_SUCCESS ||
        MPI_Comm_rank(MPI_COMM_WORLD, &wrank) != MPI_SUCCESS ||
        MPI_Comm_size(MPI_COMM_WORLD, &wsize) != MPI_SUCCESS) {
        fprintf(stderr, "MPI set-up failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    env_mode = env && *env && topocoll_algorithm_index(TOPOCOLL_ALLGATHER, env) < 0;
    send = malloc(COUNT * sizeof(int));
    recv = malloc((size_t)COUNT * (size_t)wsize * sizeof(int));
    if (!send || !recv) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
        return 1;
    }
    if (wrank == 0) {
        printf("bad input: np=%d%s%s\n", wsize, env_mode ? ", TOPOCOLL_ALLGATHER=" : "",
               env_mode ? env : "");
        fflush(stdout);
    }

    unknown_names(send, recv, env_mode);
    /* Invalid arguments through the selected path (not when the environment
     * forces an unknown name: that error may come first). */
    if (!env_mode) {
        bad_arguments(NULL, send, recv, 0);
        ignored_arguments(NULL, send, recv);
    }
    fallback = every_algorithm(send, recv);
    topology_specs();
    still_works(send, recv, env_mode, fallback);
    in_place_recv_everywhere(send, recv, env_mode);

    if (wrank == 0) status = tc_test_summary();
    else status = tc_test_counts_global.failed || tc_test_counts_global.passed == 0;
    free(send);
    free(recv);
    if (MPI_Finalize() != MPI_SUCCESS) return 1;
    return status;
}
