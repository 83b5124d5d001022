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
 * Then every collective topocoll serves (allgather, bcast, scatter, gather,
 * reduce, reduce_scatter_block, alltoall, allreduce, barrier, reduce_scatter,
 * gatherv, scatterv) through one table of cases (alltoallw, with per-peer
 * datatypes, through its own: a negative count, MPI_DATATYPE_NULL with a
 * count, NULL vectors, MPI_COMM_NULL, then in place with NULL send vectors
 * and a valid call): MPI_COMM_NULL,
 * MPI_DATATYPE_NULL, uncommitted types, negative counts, invalid roots, NULL
 * buffers with a count, MPI_IN_PLACE where MPI forbids it, the same buffer
 * as sendbuf and recvbuf (MPI_ERR_BUFFER), invalid ops and
 * op/type pairs, errors at only some ranks of the first call on a
 * communicator, mismatched counts (MPI_ERR_TRUNCATE where a receive is
 * truncated; alltoallv, alltoall and allgather through their hierarchical
 * entries on virtual topologies, where every rank must return); the
 * reductions' op cases through every reduce,
 * reduce_scatter_block, allreduce and reduce_scatter algorithm (and alltoall's cases through
 * every alltoall algorithm) forced by name too, allreduce's one-node entries
 * again on one node of two sockets.  The class is asserted
 * at every rank, a watchdog turns a hang into a failure naming the case
 * (BAD_INPUT_CASE_TIMEOUT seconds, default 30), and the classes returned
 * are counted (BAD_INPUT_ONLY=text runs only the table's cases whose name
 * has the text: for debugging, never in CTest).
 *
 * Built a second time with BAD_INPUT_MPI_NAMES (test_bad_input_mpi, linked
 * with MPI only), the table runs through MPI_Allgather ... with the
 * interposer preloaded: every error must still be topocoll's.
 *
 * Ends with "N passed, M failed"; exits 1 on any failure.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef BAD_INPUT_MPI_NAMES
#include "topocoll.h"
#else
#include <dlfcn.h>
#endif
#include "../common/harness.h"
#include "../common/watchdog.h"

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
    case MPI_ERR_ROOT: return "MPI_ERR_ROOT";
    case MPI_ERR_OP: return "MPI_ERR_OP";
    case MPI_ERR_TRUNCATE: return "MPI_ERR_TRUNCATE";
    case MPI_ERR_IN_STATUS: return "MPI_ERR_IN_STATUS";
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

/* Rank 0 says which check comes next (a crash then shows where it was). */
static void announce(const char *entry, const char *what)
{
    if (wrank != 0) return;
    printf("check %s: %s\n", entry, what);
    fflush(stdout);
}

#ifndef BAD_INPUT_MPI_NAMES
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
    record(topocoll_variant_index(TOPOCOLL_ALLGATHER, "nosuch") == -1 &&
           topocoll_algorithm_index(TOPOCOLL_ALLGATHER, "nosuch") == -1,
           "topocoll_variant_index or topocoll_algorithm_index(\"nosuch\") is not -1");
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
    int nalgo = topocoll_variant_count(TOPOCOLL_ALLGATHER);
    record(nalgo >= 1, "topocoll_variant_count(TOPOCOLL_ALLGATHER) = %d", nalgo);
    for (int i = 0; i < nalgo; i++) {
        const char *name = topocoll_variant_name(TOPOCOLL_ALLGATHER, i), *why = NULL;
        int app;
        if (!name) {
            record(0, "topocoll_variant_name(TOPOCOLL_ALLGATHER, %d) is NULL", i);
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
    int nalgo = topocoll_variant_count(TOPOCOLL_ALLGATHER);
    if (!env_mode) bad_arguments(NULL, send, recv, 1);
    for (int i = 0; i < nalgo; i++) {
        const char *name = topocoll_variant_name(TOPOCOLL_ALLGATHER, i);
        if (name && topocoll_allgather_applicable(name, COUNT, MPI_INT, COUNT, MPI_INT,
                                                  MPI_COMM_WORLD, NULL) == 1)
            bad_arguments(name, send, recv, 1);
    }
}

#endif

/* ==== every collective topocoll serves: one table of cases ====================
 *
 * Each case starts from a valid call on a fresh communicator (the first call
 * there, when topocoll makes its context, collectively), spoils one argument
 * at some ranks and asserts the error class at EVERY rank: the spoiled ranks
 * get the class, the others MPI_SUCCESS (only where the MPI library's own
 * collective would let them finish: an error at a root that only receives,
 * or at a leaf that only receives).  A watchdog ends the run with the case's
 * name when a case hangs.  Through the API or, preloaded, the MPI_ names. */

enum { AG, BC, SC, GA, RE, RSB, AA, AR, BA, RS, SCN, EXS, GV, SV, NCOLLS };
static const char *const coll_name[NCOLLS] = { "allgather", "bcast", "scatter", "gather", "reduce",
                                               "reduce_scatter_block", "alltoall", "allreduce", "barrier",
                                               "reduce_scatter", "scan", "exscan", "gatherv", "scatterv" };

/* The spoiled arguments.  For bcast, reduce and reduce_scatter_block (one
 * count, one type) COUNT and TYPE stand for both; bcast's buffer is RBUF. */
enum mut {
    M_COMM_NULL, M_NEG_SCOUNT, M_NEG_RCOUNT, M_NULL_SBUF, M_NULL_RBUF, M_STYPE_NULL, M_RTYPE_NULL,
    M_STYPE_UNCOMMITTED, M_RTYPE_UNCOMMITTED, M_ROOT_NEG, M_ROOT_SIZE, M_INPLACE_SBUF,
    M_INPLACE_RBUF, M_OP_NULL, M_OP_MAXLOC_INT, M_OP_BXOR_FLOAT, M_OP_LXOR_FLOAT, M_DOUBLE_COUNT,
    M_ALIAS, M_NMUT
};
static const char *const mut_name[M_NMUT] = {
    "MPI_COMM_NULL", "negative send count", "negative (receive) count", "NULL sendbuf with a count",
    "NULL (receive) buffer with a count", "MPI_DATATYPE_NULL as sendtype",
    "MPI_DATATYPE_NULL as (receive) type", "uncommitted sendtype", "uncommitted (receive) type",
    "root -1", "root = size", "MPI_IN_PLACE as sendbuf where MPI forbids it",
    "MPI_IN_PLACE as (receive) buffer where MPI forbids it", "MPI_OP_NULL", "MPI_MAXLOC on MPI_INT",
    "MPI_BXOR on MPI_FLOAT", "MPI_LXOR on MPI_FLOAT", "twice the count of the others",
    "recvbuf == sendbuf (not MPI_IN_PLACE)",
};

/* Where the argument is spoiled and what the case runs on. */
enum where {
    W_ALL,      /* every rank, on a duplicate of MPI_COMM_WORLD */
    W_SELF,     /* every rank, on a duplicate of MPI_COMM_SELF (root-only arguments) */
    W_ROOT,     /* the root (0) only, on a duplicate of MPI_COMM_WORLD */
    W_LAST,     /* the last rank only (a leaf: only receives) */
    W_PAIR1,    /* mismatched counts: rank 1 of a two-rank communicator */
    W_PAIR0,    /* mismatched counts: rank 0 (the root) of a two-rank communicator */
};
static const char *const where_name[] = { "every rank", "every rank, on MPI_COMM_SELF", "the root only",
                                          "the last rank only", "rank 1 of 2", "rank 0 of 2" };

typedef struct bcase {
    int coll;
    enum mut mut;
    enum where where;
    int cls;        /* at the spoiled ranks; OP_NATIVE: whatever the MPI library's reduction says */
    int other_cls;  /* at the others (W_PAIR*: the ranks that do not see the error) */
} bcase;

#define OP_NATIVE (-1)
#define CNT 4              /* ints per block */

static const bcase cases[] = {
    /* allgather */
    { AG, M_COMM_NULL, W_ALL, MPI_ERR_COMM, 0 }, { AG, M_NEG_SCOUNT, W_ALL, MPI_ERR_COUNT, 0 },
    { AG, M_NEG_RCOUNT, W_ALL, MPI_ERR_COUNT, 0 }, { AG, M_NULL_SBUF, W_ALL, MPI_ERR_BUFFER, 0 },
    { AG, M_NULL_RBUF, W_ALL, MPI_ERR_BUFFER, 0 }, { AG, M_STYPE_NULL, W_ALL, MPI_ERR_TYPE, 0 },
    { AG, M_RTYPE_NULL, W_ALL, MPI_ERR_TYPE, 0 }, { AG, M_STYPE_UNCOMMITTED, W_ALL, MPI_ERR_TYPE, 0 },
    { AG, M_RTYPE_UNCOMMITTED, W_ALL, MPI_ERR_TYPE, 0 }, { AG, M_INPLACE_RBUF, W_ALL, MPI_ERR_BUFFER, 0 },
    { AG, M_DOUBLE_COUNT, W_PAIR1, MPI_SUCCESS, MPI_ERR_TRUNCATE }, { AG, M_ALIAS, W_ALL, MPI_ERR_BUFFER, 0 },
    /* bcast */
    { BC, M_COMM_NULL, W_ALL, MPI_ERR_COMM, 0 }, { BC, M_NEG_RCOUNT, W_ALL, MPI_ERR_COUNT, 0 },
    { BC, M_NULL_RBUF, W_ALL, MPI_ERR_BUFFER, 0 }, { BC, M_RTYPE_NULL, W_ALL, MPI_ERR_TYPE, 0 },
    { BC, M_RTYPE_UNCOMMITTED, W_ALL, MPI_ERR_TYPE, 0 }, { BC, M_ROOT_NEG, W_ALL, MPI_ERR_ROOT, 0 },
    { BC, M_ROOT_SIZE, W_ALL, MPI_ERR_ROOT, 0 }, { BC, M_INPLACE_RBUF, W_ALL, MPI_ERR_BUFFER, 0 },
    { BC, M_NULL_RBUF, W_LAST, MPI_ERR_BUFFER, MPI_SUCCESS },
    { BC, M_NEG_RCOUNT, W_LAST, MPI_ERR_COUNT, MPI_SUCCESS },
    { BC, M_RTYPE_NULL, W_LAST, MPI_ERR_TYPE, MPI_SUCCESS },
    { BC, M_DOUBLE_COUNT, W_PAIR0, MPI_SUCCESS, MPI_ERR_TRUNCATE },
    /* scatter */
    { SC, M_COMM_NULL, W_ALL, MPI_ERR_COMM, 0 }, { SC, M_NEG_RCOUNT, W_ALL, MPI_ERR_COUNT, 0 },
    { SC, M_NULL_RBUF, W_ALL, MPI_ERR_BUFFER, 0 }, { SC, M_RTYPE_NULL, W_ALL, MPI_ERR_TYPE, 0 },
    { SC, M_RTYPE_UNCOMMITTED, W_ALL, MPI_ERR_TYPE, 0 }, { SC, M_ROOT_NEG, W_ALL, MPI_ERR_ROOT, 0 },
    { SC, M_ROOT_SIZE, W_ALL, MPI_ERR_ROOT, 0 },
    { SC, M_NEG_SCOUNT, W_SELF, MPI_ERR_COUNT, 0 }, { SC, M_NULL_SBUF, W_SELF, MPI_ERR_BUFFER, 0 },
    { SC, M_STYPE_NULL, W_SELF, MPI_ERR_TYPE, 0 }, { SC, M_STYPE_UNCOMMITTED, W_SELF, MPI_ERR_TYPE, 0 },
    { SC, M_INPLACE_SBUF, W_SELF, MPI_ERR_BUFFER, 0 },
    { SC, M_INPLACE_RBUF, W_LAST, MPI_ERR_BUFFER, MPI_SUCCESS },
    { SC, M_NULL_RBUF, W_LAST, MPI_ERR_BUFFER, MPI_SUCCESS },
    { SC, M_NEG_RCOUNT, W_LAST, MPI_ERR_COUNT, MPI_SUCCESS },
    { SC, M_DOUBLE_COUNT, W_PAIR0, MPI_SUCCESS, MPI_ERR_TRUNCATE }, { SC, M_ALIAS, W_SELF, MPI_ERR_BUFFER, 0 },
    /* gather */
    { GA, M_COMM_NULL, W_ALL, MPI_ERR_COMM, 0 }, { GA, M_NEG_SCOUNT, W_ALL, MPI_ERR_COUNT, 0 },
    { GA, M_NULL_SBUF, W_ALL, MPI_ERR_BUFFER, 0 }, { GA, M_STYPE_NULL, W_ALL, MPI_ERR_TYPE, 0 },
    { GA, M_STYPE_UNCOMMITTED, W_ALL, MPI_ERR_TYPE, 0 }, { GA, M_ROOT_NEG, W_ALL, MPI_ERR_ROOT, 0 },
    { GA, M_ROOT_SIZE, W_ALL, MPI_ERR_ROOT, 0 },
    { GA, M_NEG_RCOUNT, W_SELF, MPI_ERR_COUNT, 0 }, { GA, M_NULL_RBUF, W_SELF, MPI_ERR_BUFFER, 0 },
    { GA, M_RTYPE_NULL, W_SELF, MPI_ERR_TYPE, 0 }, { GA, M_RTYPE_UNCOMMITTED, W_SELF, MPI_ERR_TYPE, 0 },
    { GA, M_INPLACE_RBUF, W_SELF, MPI_ERR_BUFFER, 0 },
    { GA, M_NULL_RBUF, W_ROOT, MPI_ERR_BUFFER, MPI_SUCCESS },
    { GA, M_NEG_RCOUNT, W_ROOT, MPI_ERR_COUNT, MPI_SUCCESS },
    { GA, M_INPLACE_RBUF, W_ROOT, MPI_ERR_BUFFER, MPI_SUCCESS },
    { GA, M_DOUBLE_COUNT, W_PAIR1, MPI_SUCCESS, MPI_ERR_TRUNCATE }, { GA, M_ALIAS, W_SELF, MPI_ERR_BUFFER, 0 },
    /* reduce */
    { RE, M_COMM_NULL, W_ALL, MPI_ERR_COMM, 0 }, { RE, M_NEG_RCOUNT, W_ALL, MPI_ERR_COUNT, 0 },
    { RE, M_NULL_SBUF, W_ALL, MPI_ERR_BUFFER, 0 }, { RE, M_RTYPE_NULL, W_ALL, MPI_ERR_TYPE, 0 },
    { RE, M_RTYPE_UNCOMMITTED, W_ALL, MPI_ERR_TYPE, 0 }, { RE, M_ROOT_NEG, W_ALL, MPI_ERR_ROOT, 0 },
    { RE, M_ROOT_SIZE, W_ALL, MPI_ERR_ROOT, 0 }, { RE, M_OP_NULL, W_ALL, MPI_ERR_OP, 0 },
    { RE, M_OP_MAXLOC_INT, W_ALL, OP_NATIVE, 0 }, { RE, M_OP_BXOR_FLOAT, W_ALL, OP_NATIVE, 0 },
    { RE, M_OP_LXOR_FLOAT, W_ALL, OP_NATIVE, 0 },
    { RE, M_NULL_RBUF, W_SELF, MPI_ERR_BUFFER, 0 },
    { RE, M_NULL_RBUF, W_ROOT, MPI_ERR_BUFFER, MPI_SUCCESS },
    { RE, M_OP_MAXLOC_INT, W_ROOT, OP_NATIVE, MPI_SUCCESS },
    { RE, M_OP_BXOR_FLOAT, W_ROOT, OP_NATIVE, MPI_SUCCESS },
    { RE, M_DOUBLE_COUNT, W_PAIR1, MPI_SUCCESS, MPI_ERR_TRUNCATE }, { RE, M_ALIAS, W_SELF, MPI_ERR_BUFFER, 0 },
    /* reduce_scatter_block */
    { RSB, M_COMM_NULL, W_ALL, MPI_ERR_COMM, 0 }, { RSB, M_NEG_RCOUNT, W_ALL, MPI_ERR_COUNT, 0 },
    { RSB, M_NULL_SBUF, W_ALL, MPI_ERR_BUFFER, 0 }, { RSB, M_NULL_RBUF, W_ALL, MPI_ERR_BUFFER, 0 },
    { RSB, M_RTYPE_NULL, W_ALL, MPI_ERR_TYPE, 0 }, { RSB, M_RTYPE_UNCOMMITTED, W_ALL, MPI_ERR_TYPE, 0 },
    { RSB, M_INPLACE_RBUF, W_ALL, MPI_ERR_BUFFER, 0 }, { RSB, M_OP_NULL, W_ALL, MPI_ERR_OP, 0 },
    { RSB, M_OP_MAXLOC_INT, W_ALL, OP_NATIVE, 0 }, { RSB, M_OP_BXOR_FLOAT, W_ALL, OP_NATIVE, 0 },
    { RSB, M_OP_LXOR_FLOAT, W_ALL, OP_NATIVE, 0 }, { RSB, M_ALIAS, W_ALL, MPI_ERR_BUFFER, 0 },
    /* alltoall */
    { AA, M_COMM_NULL, W_ALL, MPI_ERR_COMM, 0 }, { AA, M_NEG_SCOUNT, W_ALL, MPI_ERR_COUNT, 0 },
    { AA, M_NEG_RCOUNT, W_ALL, MPI_ERR_COUNT, 0 }, { AA, M_NULL_SBUF, W_ALL, MPI_ERR_BUFFER, 0 },
    { AA, M_NULL_RBUF, W_ALL, MPI_ERR_BUFFER, 0 }, { AA, M_STYPE_NULL, W_ALL, MPI_ERR_TYPE, 0 },
    { AA, M_RTYPE_NULL, W_ALL, MPI_ERR_TYPE, 0 }, { AA, M_STYPE_UNCOMMITTED, W_ALL, MPI_ERR_TYPE, 0 },
    { AA, M_RTYPE_UNCOMMITTED, W_ALL, MPI_ERR_TYPE, 0 }, { AA, M_INPLACE_RBUF, W_ALL, MPI_ERR_BUFFER, 0 },
    { AA, M_DOUBLE_COUNT, W_PAIR1, MPI_SUCCESS, MPI_ERR_TRUNCATE }, { AA, M_ALIAS, W_ALL, MPI_ERR_BUFFER, 0 },
    /* allreduce: every rank exchanges with every other, so only errors seen
     * by every rank (an error at some ranks would leave the others waiting,
     * as in the MPI library's own MPI_Allreduce) */
    { AR, M_COMM_NULL, W_ALL, MPI_ERR_COMM, 0 }, { AR, M_NEG_RCOUNT, W_ALL, MPI_ERR_COUNT, 0 },
    { AR, M_NULL_SBUF, W_ALL, MPI_ERR_BUFFER, 0 }, { AR, M_NULL_RBUF, W_ALL, MPI_ERR_BUFFER, 0 },
    { AR, M_RTYPE_NULL, W_ALL, MPI_ERR_TYPE, 0 }, { AR, M_RTYPE_UNCOMMITTED, W_ALL, MPI_ERR_TYPE, 0 },
    { AR, M_INPLACE_RBUF, W_ALL, MPI_ERR_BUFFER, 0 }, { AR, M_OP_NULL, W_ALL, MPI_ERR_OP, 0 },
    { AR, M_OP_MAXLOC_INT, W_ALL, OP_NATIVE, 0 }, { AR, M_OP_BXOR_FLOAT, W_ALL, OP_NATIVE, 0 },
    { AR, M_OP_LXOR_FLOAT, W_ALL, OP_NATIVE, 0 },
    { AR, M_NULL_SBUF, W_SELF, MPI_ERR_BUFFER, 0 }, { AR, M_OP_NULL, W_SELF, MPI_ERR_OP, 0 },
    /* gatherv (the root's vector: every count the case's receive count,
     * displacements packed; its errors at the root alone, or on
     * MPI_COMM_SELF) */
    { GV, M_COMM_NULL, W_ALL, MPI_ERR_COMM, 0 }, { GV, M_NEG_SCOUNT, W_ALL, MPI_ERR_COUNT, 0 },
    { GV, M_NULL_SBUF, W_ALL, MPI_ERR_BUFFER, 0 }, { GV, M_STYPE_NULL, W_ALL, MPI_ERR_TYPE, 0 },
    { GV, M_STYPE_UNCOMMITTED, W_ALL, MPI_ERR_TYPE, 0 }, { GV, M_ROOT_NEG, W_ALL, MPI_ERR_ROOT, 0 },
    { GV, M_ROOT_SIZE, W_ALL, MPI_ERR_ROOT, 0 },
    { GV, M_NEG_RCOUNT, W_SELF, MPI_ERR_COUNT, 0 }, { GV, M_NULL_RBUF, W_SELF, MPI_ERR_BUFFER, 0 },
    { GV, M_RTYPE_NULL, W_SELF, MPI_ERR_TYPE, 0 }, { GV, M_RTYPE_UNCOMMITTED, W_SELF, MPI_ERR_TYPE, 0 },
    { GV, M_INPLACE_RBUF, W_SELF, MPI_ERR_BUFFER, 0 }, { GV, M_ALIAS, W_SELF, MPI_ERR_BUFFER, 0 },
    { GV, M_NULL_RBUF, W_ROOT, MPI_ERR_BUFFER, MPI_SUCCESS },
    { GV, M_NEG_RCOUNT, W_ROOT, MPI_ERR_COUNT, MPI_SUCCESS },
    /* scatterv (the root's vector as gatherv's, from the send count) */
    { SV, M_COMM_NULL, W_ALL, MPI_ERR_COMM, 0 }, { SV, M_NEG_RCOUNT, W_ALL, MPI_ERR_COUNT, 0 },
    { SV, M_NULL_RBUF, W_ALL, MPI_ERR_BUFFER, 0 }, { SV, M_RTYPE_NULL, W_ALL, MPI_ERR_TYPE, 0 },
    { SV, M_RTYPE_UNCOMMITTED, W_ALL, MPI_ERR_TYPE, 0 }, { SV, M_ROOT_NEG, W_ALL, MPI_ERR_ROOT, 0 },
    { SV, M_ROOT_SIZE, W_ALL, MPI_ERR_ROOT, 0 },
    { SV, M_NEG_SCOUNT, W_SELF, MPI_ERR_COUNT, 0 }, { SV, M_NULL_SBUF, W_SELF, MPI_ERR_BUFFER, 0 },
    { SV, M_STYPE_NULL, W_SELF, MPI_ERR_TYPE, 0 }, { SV, M_STYPE_UNCOMMITTED, W_SELF, MPI_ERR_TYPE, 0 },
    { SV, M_INPLACE_SBUF, W_SELF, MPI_ERR_BUFFER, 0 }, { SV, M_ALIAS, W_SELF, MPI_ERR_BUFFER, 0 },
    { SV, M_INPLACE_RBUF, W_LAST, MPI_ERR_BUFFER, MPI_SUCCESS },
    { SV, M_NULL_RBUF, W_LAST, MPI_ERR_BUFFER, MPI_SUCCESS },
    { SV, M_NEG_RCOUNT, W_LAST, MPI_ERR_COUNT, MPI_SUCCESS },
    { AR, M_ALIAS, W_ALL, MPI_ERR_BUFFER, 0 }, { AR, M_ALIAS, W_SELF, MPI_ERR_BUFFER, 0 },
    /* barrier: its one argument */
    { BA, M_COMM_NULL, W_ALL, MPI_ERR_COMM, 0 }, { BA, M_COMM_NULL, W_SELF, MPI_ERR_COMM, 0 },
    /* reduce_scatter: recvcounts every (receive) count; the negative count is
     * every rank's own, so every rank sees it */
    { RS, M_COMM_NULL, W_ALL, MPI_ERR_COMM, 0 }, { RS, M_NEG_RCOUNT, W_ALL, MPI_ERR_COUNT, 0 },
    { RS, M_NULL_SBUF, W_ALL, MPI_ERR_BUFFER, 0 }, { RS, M_NULL_RBUF, W_ALL, MPI_ERR_BUFFER, 0 },
    { RS, M_RTYPE_NULL, W_ALL, MPI_ERR_TYPE, 0 }, { RS, M_RTYPE_UNCOMMITTED, W_ALL, MPI_ERR_TYPE, 0 },
    { RS, M_INPLACE_RBUF, W_ALL, MPI_ERR_BUFFER, 0 }, { RS, M_OP_NULL, W_ALL, MPI_ERR_OP, 0 },
    { RS, M_OP_MAXLOC_INT, W_ALL, OP_NATIVE, 0 }, { RS, M_OP_BXOR_FLOAT, W_ALL, OP_NATIVE, 0 },
    { RS, M_OP_LXOR_FLOAT, W_ALL, OP_NATIVE, 0 }, { RS, M_ALIAS, W_ALL, MPI_ERR_BUFFER, 0 },
    { RS, M_NULL_SBUF, W_SELF, MPI_ERR_BUFFER, 0 }, { RS, M_OP_NULL, W_SELF, MPI_ERR_OP, 0 },
    /* scan, exscan: allreduce's arguments */
    { SCN, M_COMM_NULL, W_ALL, MPI_ERR_COMM, 0 }, { SCN, M_NEG_RCOUNT, W_ALL, MPI_ERR_COUNT, 0 },
    { SCN, M_NULL_SBUF, W_ALL, MPI_ERR_BUFFER, 0 }, { SCN, M_NULL_RBUF, W_ALL, MPI_ERR_BUFFER, 0 },
    { SCN, M_RTYPE_NULL, W_ALL, MPI_ERR_TYPE, 0 }, { SCN, M_RTYPE_UNCOMMITTED, W_ALL, MPI_ERR_TYPE, 0 },
    { SCN, M_INPLACE_RBUF, W_ALL, MPI_ERR_BUFFER, 0 }, { SCN, M_OP_NULL, W_ALL, MPI_ERR_OP, 0 },
    { SCN, M_OP_MAXLOC_INT, W_ALL, OP_NATIVE, 0 }, { SCN, M_OP_BXOR_FLOAT, W_ALL, OP_NATIVE, 0 },
    { SCN, M_OP_LXOR_FLOAT, W_ALL, OP_NATIVE, 0 },
    { SCN, M_NULL_SBUF, W_SELF, MPI_ERR_BUFFER, 0 }, { SCN, M_OP_NULL, W_SELF, MPI_ERR_OP, 0 },
    { SCN, M_ALIAS, W_ALL, MPI_ERR_BUFFER, 0 }, { SCN, M_ALIAS, W_SELF, MPI_ERR_BUFFER, 0 },
    { EXS, M_COMM_NULL, W_ALL, MPI_ERR_COMM, 0 }, { EXS, M_NEG_RCOUNT, W_ALL, MPI_ERR_COUNT, 0 },
    /* (no NULL recvbuf case: rank 0's is not significant, so NULL there is
     * valid and rank 0 would enter the call the others leave; see
     * misc_zero_alias.c) */
    { EXS, M_NULL_SBUF, W_ALL, MPI_ERR_BUFFER, 0 },
    { EXS, M_RTYPE_NULL, W_ALL, MPI_ERR_TYPE, 0 }, { EXS, M_RTYPE_UNCOMMITTED, W_ALL, MPI_ERR_TYPE, 0 },
    { EXS, M_INPLACE_RBUF, W_ALL, MPI_ERR_BUFFER, 0 }, { EXS, M_OP_NULL, W_ALL, MPI_ERR_OP, 0 },
    { EXS, M_OP_MAXLOC_INT, W_ALL, OP_NATIVE, 0 }, { EXS, M_OP_BXOR_FLOAT, W_ALL, OP_NATIVE, 0 },
    { EXS, M_OP_LXOR_FLOAT, W_ALL, OP_NATIVE, 0 },
    { EXS, M_NULL_SBUF, W_SELF, MPI_ERR_BUFFER, 0 }, { EXS, M_OP_NULL, W_SELF, MPI_ERR_OP, 0 },
    { EXS, M_ALIAS, W_ALL, MPI_ERR_BUFFER, 0 }, { EXS, M_ALIAS, W_SELF, MPI_ERR_BUFFER, 0 },
};

typedef struct args {
    const void *sbuf;
    int scount;
    MPI_Datatype stype;
    void *rbuf;
    int rcount;
    MPI_Datatype rtype;
    MPI_Op op;
    int root;
    MPI_Comm comm;
} args;

static int *g_sbuf, *g_rbuf;             /* 2 * CNT * wsize ints each */
static int *g_rs_counts;                 /* [wsize] reduce_scatter's recvcounts */

/* reduce_scatter's recvcounts: every rank's count the call's (receive) count. */
static const int *rs_counts(const args *a);
static MPI_Datatype g_uncommitted;       /* contiguous(1, MPI_INT), never committed */
#ifndef BAD_INPUT_MPI_NAMES
static const char *g_force[NCOLLS];      /* the algorithm forced by name, or NULL */
static const char *g_topology;           /* the topology of the cases' communicators, or NULL */
#endif
static long g_classes[64];               /* classes returned, [63]: any other */
static long g_ncases;

/* ---- the watchdog ---- */
static unsigned g_case_timeout = 30;
static const char *g_only;               /* BAD_INPUT_ONLY: the cases whose name has it */

static void watchdog_init(void)
{
    const char *t = getenv("BAD_INPUT_CASE_TIMEOUT");
    if (t && atoi(t) > 0) g_case_timeout = (unsigned)atoi(t);
    g_only = getenv("BAD_INPUT_ONLY");
    tc_watchdog_init();
}

/* The root's vector of a gatherv / scatterv case: every count n,
 * displacements packed (the communicator's size, at most wsize). */
static const int *vec_counts(int n, MPI_Comm comm, const int **displs)
{
    static int *v;
    int p = wsize;
    if (comm != MPI_COMM_NULL) MPI_Comm_size(comm, &p);
    if (!v) v = malloc(2 * (size_t)wsize * sizeof *v + 1);
    for (int j = 0; j < p; j++) v[j] = n, v[wsize + j] = j * (n > 0 ? n : 0);
    *displs = v + wsize;
    return v;
}

/* ---- the entry points: topocoll's API (an algorithm forced by name where
 * g_force says so) or, preloaded, the MPI_ names ---- */
#ifdef BAD_INPUT_MPI_NAMES
#define ENTRY "MPI_"
static int run_coll(int coll, const args *a)
{
    switch (coll) {
    case AG: return MPI_Allgather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->comm);
    case BC: return MPI_Bcast(a->rbuf, a->rcount, a->rtype, a->root, a->comm);
    case SC: return MPI_Scatter(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->root, a->comm);
    case GA: return MPI_Gather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->root, a->comm);
    case RE: return MPI_Reduce(a->sbuf, a->rbuf, a->rcount, a->rtype, a->op, a->root, a->comm);
    case AA: return MPI_Alltoall(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->comm);
    case AR: return MPI_Allreduce(a->sbuf, a->rbuf, a->rcount, a->rtype, a->op, a->comm);
    case BA: return MPI_Barrier(a->comm);
    case RS: return MPI_Reduce_scatter(a->sbuf, a->rbuf, rs_counts(a), a->rtype, a->op, a->comm);
    case GV: {
        const int *d, *c = vec_counts(a->rcount, a->comm, &d);
        return MPI_Gatherv(a->sbuf, a->scount, a->stype, a->rbuf, c, d, a->rtype, a->root, a->comm);
    }
    case SV: {
        const int *d, *c = vec_counts(a->scount, a->comm, &d);
        return MPI_Scatterv(a->sbuf, c, d, a->stype, a->rbuf, a->rcount, a->rtype, a->root, a->comm);
    }
    case SCN: return MPI_Scan(a->sbuf, a->rbuf, a->rcount, a->rtype, a->op, a->comm);
    case EXS: return MPI_Exscan(a->sbuf, a->rbuf, a->rcount, a->rtype, a->op, a->comm);
    default: return MPI_Reduce_scatter_block(a->sbuf, a->rbuf, a->rcount, a->rtype, a->op, a->comm);
    }
}
#else
#define ENTRY "topocoll_"
static int run_coll(int coll, const args *a)
{
    const char *f = g_force[coll];
    switch (coll) {
    case AG:
        return f ? topocoll_allgather_algorithm(f, a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->comm)
                 : topocoll_allgather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->comm);
    case BC:
        return f ? topocoll_bcast_algorithm(f, a->rbuf, a->rcount, a->rtype, a->root, a->comm)
                 : topocoll_bcast(a->rbuf, a->rcount, a->rtype, a->root, a->comm);
    case SC:
        return f ? topocoll_scatter_algorithm(f, a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype,
                                              a->root, a->comm)
                 : topocoll_scatter(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->root, a->comm);
    case GA:
        return f ? topocoll_gather_algorithm(f, a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype,
                                             a->root, a->comm)
                 : topocoll_gather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->root, a->comm);
    case RE:
        return f ? topocoll_reduce_algorithm(f, a->sbuf, a->rbuf, a->rcount, a->rtype, a->op, a->root, a->comm)
                 : topocoll_reduce(a->sbuf, a->rbuf, a->rcount, a->rtype, a->op, a->root, a->comm);
    case AA:
        return f ? topocoll_alltoall_algorithm(f, a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->comm)
                 : topocoll_alltoall(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->comm);
    case AR:
        return f ? topocoll_allreduce_algorithm(f, a->sbuf, a->rbuf, a->rcount, a->rtype, a->op, a->comm)
                 : topocoll_allreduce(a->sbuf, a->rbuf, a->rcount, a->rtype, a->op, a->comm);
    case BA:
        return f ? topocoll_barrier_algorithm(f, a->comm) : topocoll_barrier(a->comm);
    case RS:
        return f ? topocoll_reduce_scatter_algorithm(f, a->sbuf, a->rbuf, rs_counts(a), a->rtype, a->op, a->comm)
                 : topocoll_reduce_scatter(a->sbuf, a->rbuf, rs_counts(a), a->rtype, a->op, a->comm);
    case GV: {
        const int *d, *c = vec_counts(a->rcount, a->comm, &d);
        return topocoll_gatherv_algorithm(f, a->sbuf, a->scount, a->stype, a->rbuf, c, d, a->rtype, a->root,
                                          a->comm);
    }
    case SV: {
        const int *d, *c = vec_counts(a->scount, a->comm, &d);
        return topocoll_scatterv_algorithm(f, a->sbuf, c, d, a->stype, a->rbuf, a->rcount, a->rtype, a->root,
                                           a->comm);
    }
    case SCN:
        return f ? topocoll_scan_algorithm(f, a->sbuf, a->rbuf, a->rcount, a->rtype, a->op, a->comm)
                 : topocoll_scan(a->sbuf, a->rbuf, a->rcount, a->rtype, a->op, a->comm);
    case EXS:
        return f ? topocoll_exscan_algorithm(f, a->sbuf, a->rbuf, a->rcount, a->rtype, a->op, a->comm)
                 : topocoll_exscan(a->sbuf, a->rbuf, a->rcount, a->rtype, a->op, a->comm);
    default:
        return f ? topocoll_reduce_scatter_block_algorithm(f, a->sbuf, a->rbuf, a->rcount, a->rtype, a->op, a->comm)
                 : topocoll_reduce_scatter_block(a->sbuf, a->rbuf, a->rcount, a->rtype, a->op, a->comm);
    }
}
#endif

static const int *rs_counts(const args *a)
{
    for (int j = 0; j < wsize; j++) g_rs_counts[j] = a->rcount;
    return g_rs_counts;
}

/* A valid call of coll on comm (root 0, MPI_INT, MPI_SUM, CNT per block). */
/* ---- alltoallw (per-peer datatypes): its own cases, every rank alike ---- */
#ifdef BAD_INPUT_MPI_NAMES
#define AW_CALL MPI_Alltoallw
#else
#define AW_CALL topocoll_alltoallw
#endif

static void aw_expect(int rc, int cls, const char *what)
{
    int c = MPI_SUCCESS;
    if (rc != MPI_SUCCESS && MPI_Error_class(rc, &c) != MPI_SUCCESS) c = -1;
    record(rc != MPI_SUCCESS && c == cls, "%salltoallw, %s: returned %s (code %d), expected %s", ENTRY, what,
           class_name(c), rc, class_name(cls));
}

/* A negative count, MPI_DATATYPE_NULL with a count, NULL vectors,
 * MPI_COMM_NULL; then MPI_IN_PLACE with NULL send vectors (not read) and a
 * valid call must succeed with the right result. */
static void alltoallw_cases(void)
{
    int p = wsize, *v = malloc(4 * (size_t)p * sizeof *v), *sb = malloc((size_t)p * sizeof *sb);
    int *rb = malloc((size_t)p * sizeof *rb), ok = 1;
    MPI_Datatype *t = malloc(2 * (size_t)p * sizeof *t);
    int *sc = v, *sd = v + p, *rc = v + 2 * p, *rd = v + 3 * p;
    for (int j = 0; j < p; j++) {
        sc[j] = rc[j] = 1, sd[j] = rd[j] = j * (int)sizeof(int), t[j] = t[p + j] = MPI_INT;
        sb[j] = wrank * 100 + j, rb[j] = -1;
    }
    announce(ENTRY "alltoallw", "bad vectors and types");
    sc[p - 1] = -1;
    aw_expect(AW_CALL(sb, sc, sd, t, rb, rc, rd, t + p, MPI_COMM_WORLD), MPI_ERR_COUNT, "a negative sendcount");
    sc[p - 1] = 1, t[p + p - 1] = MPI_DATATYPE_NULL;
    aw_expect(AW_CALL(sb, sc, sd, t, rb, rc, rd, t + p, MPI_COMM_WORLD), MPI_ERR_TYPE,
              "MPI_DATATYPE_NULL with a count");
    t[p + p - 1] = MPI_INT;
    aw_expect(AW_CALL(sb, sc, sd, NULL, rb, rc, rd, t + p, MPI_COMM_WORLD), MPI_ERR_ARG, "NULL sendtypes");
    aw_expect(AW_CALL(sb, sc, sd, t, rb, NULL, rd, t + p, MPI_COMM_WORLD), MPI_ERR_ARG, "NULL recvcounts");
    aw_expect(AW_CALL(sb, sc, sd, t, rb, rc, rd, t + p, MPI_COMM_NULL), MPI_ERR_COMM, "MPI_COMM_NULL");
    for (int j = 0; j < p; j++) rb[j] = wrank * 100 + j;
    int r = AW_CALL(MPI_IN_PLACE, NULL, NULL, NULL, rb, rc, rd, t + p, MPI_COMM_WORLD);
    for (int j = 0; j < p; j++) ok &= rb[j] == j * 100 + wrank;
    record(r == MPI_SUCCESS && ok, "%salltoallw in place with NULL send vectors: code %d, result %s", ENTRY, r,
           ok ? "right" : "wrong");
    r = AW_CALL(sb, sc, sd, t, rb, rc, rd, t + p, MPI_COMM_WORLD);
    for (int j = 0; j < p; j++) ok &= rb[j] == j * 100 + wrank;
    record(r == MPI_SUCCESS && ok, "%salltoallw after the bad calls: code %d, result %s", ENTRY, r,
           ok ? "right" : "wrong");
    free(v), free(sb), free(rb), free(t);
}

static args valid_args(int coll, MPI_Comm comm)
{
    args a = { g_sbuf, CNT, MPI_INT, g_rbuf, CNT, MPI_INT, MPI_SUM, 0, comm };
    if (coll == RE || coll == RSB || coll == AR || coll == RS || coll == SCN || coll == EXS) a.scount = a.rcount;
    for (int i = 0; i < 2 * CNT * wsize; i++) g_sbuf[i] = wrank + i, g_rbuf[i] = -1;
    return a;
}

static void spoil(args *a, enum mut m, int size)
{
    switch (m) {
    case M_COMM_NULL: a->comm = MPI_COMM_NULL; break;
    case M_NEG_SCOUNT: a->scount = -1; break;
    case M_NEG_RCOUNT: a->rcount = -1; break;
    case M_NULL_SBUF: a->sbuf = NULL; break;
    case M_NULL_RBUF: a->rbuf = NULL; break;
    case M_STYPE_NULL: a->stype = MPI_DATATYPE_NULL; break;
    case M_RTYPE_NULL: a->rtype = MPI_DATATYPE_NULL; break;
    case M_STYPE_UNCOMMITTED: a->stype = g_uncommitted; break;
    case M_RTYPE_UNCOMMITTED: a->rtype = g_uncommitted; break;
    case M_ROOT_NEG: a->root = -1; break;
    case M_ROOT_SIZE: a->root = size; break;
    case M_INPLACE_SBUF: a->sbuf = MPI_IN_PLACE; break;
    case M_INPLACE_RBUF: a->rbuf = MPI_IN_PLACE; break;
    case M_OP_NULL: a->op = MPI_OP_NULL; break;
    case M_OP_MAXLOC_INT: a->op = MPI_MAXLOC; a->rtype = a->stype = MPI_INT; break;
    case M_OP_BXOR_FLOAT: a->op = MPI_BXOR; a->rtype = a->stype = MPI_FLOAT; break;
    case M_OP_LXOR_FLOAT: a->op = MPI_LXOR; a->rtype = a->stype = MPI_FLOAT; break;
    case M_DOUBLE_COUNT: a->scount *= 2; a->rcount *= 2; break;
    case M_ALIAS: a->rbuf = (void *)a->sbuf; break;
    default: break;
    }
}

/* What the MPI library's own reduction says of op on type (on a duplicate of
 * MPI_COMM_SELF whose errors return): the class topocoll must give. */
static int native_op_class(enum mut m)
{
    args a = { 0 };
    float in[2] = { 0 }, out[2] = { 0 };
    MPI_Comm self;
    int rc, cls = MPI_SUCCESS;
    spoil(&a, m, 1);
    if (PMPI_Comm_dup(MPI_COMM_SELF, &self) != MPI_SUCCESS) return -1;
    PMPI_Comm_set_errhandler(self, MPI_ERRORS_RETURN);
    rc = PMPI_Reduce(in, out, 1, a.rtype, a.op, 0, self);
    if (rc != MPI_SUCCESS && PMPI_Error_class(rc, &cls) != MPI_SUCCESS) cls = -1;
    PMPI_Comm_free(&self);
    return cls;
}

static int is_op_case(enum mut m)
{
    return m == M_OP_MAXLOC_INT || m == M_OP_BXOR_FLOAT || m == M_OP_LXOR_FLOAT;
}

/* The communicator a case runs on (MPI_COMM_NULL: this rank takes no part). */
static MPI_Comm case_comm(enum where w)
{
    MPI_Comm c = MPI_COMM_NULL;
    if (w == W_SELF) MPI_Comm_dup(MPI_COMM_SELF, &c);
    else if (w == W_PAIR0 || w == W_PAIR1) MPI_Comm_split(MPI_COMM_WORLD, wrank < 2 ? 0 : MPI_UNDEFINED, wrank, &c);
    else MPI_Comm_dup(MPI_COMM_WORLD, &c);
    if (c != MPI_COMM_NULL) MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
#ifndef BAD_INPUT_MPI_NAMES
    if (c != MPI_COMM_NULL && g_topology && topocoll_set_topology(c, g_topology) != MPI_SUCCESS)
        fprintf(stderr, "rank %d: topocoll_set_topology(\"%s\") failed\n", wrank, g_topology);
#endif
    return c;
}

static int spoiled_here(enum where w, int rank, int size)
{
    switch (w) {
    case W_ALL: case W_SELF: return 1;
    case W_ROOT: case W_PAIR0: return rank == 0;
    case W_LAST: return rank == size - 1;
    default: return rank == 1;
    }
}

/* Where some ranks failed, the others' messages to them may still wait,
 * unmatched, on the communicator (as they would natively): it is kept until
 * the end, so that no later communicator reuses its context and receives
 * them. */
#define MAX_KEPT 1024
static MPI_Comm g_kept[MAX_KEPT];
static int g_nkept;

static void keep_or_free(enum where w, MPI_Comm *comm)
{
    if (w != W_ALL && w != W_SELF && g_nkept < MAX_KEPT) g_kept[g_nkept++] = *comm;
    else MPI_Comm_free(comm);
}

static void count_class(int cls)
{
    g_classes[cls >= 0 && cls < 63 ? cls : 63]++;
}

/* One case at every rank: ok when this rank got its class. */
static int one_case(const bcase *k, const char *what)
{
    MPI_Comm comm = case_comm(k->where);
    int rank = 0, size = 1, rc, cls = MPI_SUCCESS, want, ok;
    char msg[MPI_MAX_ERROR_STRING] = "";
    if (comm == MPI_COMM_NULL) return 1;              /* not in the pair */
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int spoiled = spoiled_here(k->where, rank, size);
    args a = valid_args(k->coll, comm);
    if (is_op_case(k->mut)) {   /* every rank: the case's type; the others MPI_SUM on it */
        spoil(&a, k->mut, size);
        a.op = MPI_SUM;
    }
    if (spoiled) spoil(&a, k->mut, size);
    want = spoiled ? k->cls : k->other_cls;
    if (want == OP_NATIVE) want = native_op_class(k->mut);
    tc_watch(wrank, g_case_timeout, what);
    rc = run_coll(k->coll, &a);
    alarm(0);
    if (rc != MPI_SUCCESS) {
        int len = 0;
        if (MPI_Error_class(rc, &cls) != MPI_SUCCESS) cls = -1;
        MPI_Error_string(rc, msg, &len);
    }
    count_class(cls);
    ok = cls == want;
    if (!ok)
        fprintf(stderr, "rank %d: %s: got class %d (%s) \"%s\", want class %d (%s)\n", wrank, what, cls,
                class_name(cls), msg, want, class_name(want));
    keep_or_free(k->where, &comm);
    return ok;
}

/* The case's name, as the output shows it. */
static const char *what_of(const bcase *k, const char *label)
{
    static char what[320];
    snprintf(what, sizeof what, "%s%s%s%s: %s at %s", ENTRY, coll_name[k->coll], label ? " " : "",
             label ? label : "", mut_name[k->mut], where_name[k->where]);
    return what;
}

/* Every case of the table through the entry points (those of collective
 * `only` when only >= 0; with all_only the ones spoiled at every rank of
 * MPI_COMM_WORLD, which any algorithm must report), each agreed over
 * MPI_COMM_WORLD. */
static void every_case(int only, const char *label, int all_only)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const bcase *k = &cases[i];
        char what[320];
        if (only >= 0 && k->coll != only) continue;
        if (k->where != W_ALL && k->where != W_SELF && wsize < 2) continue;   /* needs peers */
        if (all_only && k->where != W_ALL) continue;
        if (g_only && !strstr(what_of(k, label), g_only)) continue;
        snprintf(what, sizeof what, "%s", what_of(k, label));
        announce(what, "");
        int ok = one_case(k, what);
        g_ncases++;
        record(ok, "%s", what);
    }
}

/* The classes returned, summed over the ranks (rank 0 prints them). */
static void print_classes(void)
{
    long all[64] = { 0 };
    MPI_Reduce(g_classes, all, 64, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (wrank != 0) return;
    printf("collective cases: %ld (x %d ranks); classes returned:", g_ncases, wsize);
    for (int c = 0; c < 64; c++)
        if (all[c]) printf(" %s=%ld", c == 63 ? "other" : class_name(c), all[c]);
    printf("; hangs: 0, crashes: 0 (the run completed)\n");
    fflush(stdout);
}

static int colls_setup(void)
{
    g_sbuf = malloc((size_t)(2 * CNT * wsize) * sizeof *g_sbuf);
    g_rbuf = malloc((size_t)(2 * CNT * wsize) * sizeof *g_rbuf);
    g_rs_counts = malloc((size_t)wsize * sizeof *g_rs_counts);
    if (!g_sbuf || !g_rbuf || !g_rs_counts) return 0;
    if (MPI_Type_contiguous(1, MPI_INT, &g_uncommitted) != MPI_SUCCESS) return 0;
    watchdog_init();
    return 1;
}

static void colls_teardown(void)
{
    for (int i = 0; i < g_nkept; i++) MPI_Comm_free(&g_kept[i]);
    MPI_Type_free(&g_uncommitted);
    free(g_sbuf);
    free(g_rbuf);
    free(g_rs_counts);
}
/* ==== end of the collective cases ==== */

#ifndef BAD_INPUT_MPI_NAMES
/* allreduce's cases through each one-node entry (its declared domain says
 * "one node") on one node of two sockets, where the socket-aware schedules
 * (shm_tiled_hier, the shm_rb trees, single copy or copy-in) have two
 * groups: np >= 2. */
static void forced_allreduce_sockets(void)
{
    if (wsize < 2) return;
    MPI_Comm probe;
    MPI_Comm_dup(MPI_COMM_WORLD, &probe);
    g_topology = "1x2x*/cyclic";
    topocoll_set_topology(probe, g_topology);
    for (int i = 0; i < topocoll_variant_count(TOPOCOLL_ALLREDUCE); i++) {
        const char *name = topocoll_variant_name(TOPOCOLL_ALLREDUCE, i), *why = NULL;
        const char *req = topocoll_variant_requirements(TOPOCOLL_ALLREDUCE, i);
        char label[160];
        if (!name || !req || !strstr(req, "one node")) continue;
        if (topocoll_applicable(TOPOCOLL_ALLREDUCE, name, CNT, MPI_FLOAT, CNT, MPI_FLOAT, MPI_SUM, 0, probe,
                                &why) != 1) {
            if (wrank == 0)
                printf("allreduce %s declines the valid call on \"%s\" at np=%d (%s): not checked\n", name,
                       g_topology, wsize, why ? why : "no reason");
            continue;
        }
        snprintf(label, sizeof label, "(algorithm %s, one node of two sockets)", name);
        g_force[AR] = name;
        every_case(AR, label, 1);
        g_force[AR] = NULL;
    }
    g_topology = NULL;
    MPI_Comm_free(&probe);
}

/* The reductions' cases at every rank through each algorithm forced by name
 * (binomial, rabenseifner, the two-tier ones...): none may leave a rank
 * without the error another rank gets. */
static void forced_reductions(void)
{
    const struct { int coll; topocoll_coll tc; } colls[] = { { RE, TOPOCOLL_REDUCE },
                                                             { RSB, TOPOCOLL_REDUCE_SCATTER_BLOCK },
                                                             { AR, TOPOCOLL_ALLREDUCE },
                                                             { RS, TOPOCOLL_REDUCE_SCATTER },
                                                             { SCN, TOPOCOLL_SCAN },
                                                             { EXS, TOPOCOLL_EXSCAN } };
    MPI_Comm probe;
    MPI_Comm_dup(MPI_COMM_WORLD, &probe);
    /* two nodes where there are ranks enough, so that the two-tier ones serve */
    g_topology = wsize >= 4 ? "2x*/cyclic" : NULL;
    if (g_topology) topocoll_set_topology(probe, g_topology);
    for (size_t c = 0; c < sizeof colls / sizeof colls[0]; c++) {
        int n = topocoll_variant_count(colls[c].tc);
        for (int i = 0; i < n; i++) {
            const char *name = topocoll_variant_name(colls[c].tc, i), *why = NULL;
            char label[128];
            if (!name) continue;
            if (topocoll_applicable(colls[c].tc, name, CNT, MPI_FLOAT, CNT, MPI_FLOAT, MPI_SUM, 0,
                                    probe, &why) != 1) {
                if (wrank == 0)
                    printf("%s %s declines the valid call at np=%d (%s): not checked\n",
                           coll_name[colls[c].coll], name, wsize, why ? why : "no reason");
                continue;
            }
            snprintf(label, sizeof label, "(algorithm %s)", name);
            g_force[colls[c].coll] = name;
            every_case(colls[c].coll, label, 1);
            g_force[colls[c].coll] = NULL;
        }
    }
    g_topology = NULL;
    MPI_Comm_free(&probe);
    forced_allreduce_sockets();
}

/* The barrier's cases through each of its algorithms forced by name. */
static void forced_barrier(void)
{
    for (int i = 0; i < topocoll_variant_count(TOPOCOLL_BARRIER); i++) {
        const char *name = topocoll_variant_name(TOPOCOLL_BARRIER, i);
        char label[128];
        if (!name) continue;
        snprintf(label, sizeof label, "(algorithm %s)", name);
        g_force[BA] = name;
        every_case(BA, label, 0);
        g_force[BA] = NULL;
    }
}

/* alltoall's cases at every rank through each of its algorithms forced by
 * name, on two nodes where there are ranks enough (the hierarchical ones
 * then exchange between leaders). */
static void forced_alltoall(void)
{
    g_topology = wsize >= 4 ? "2x*/cyclic" : NULL;
    for (int i = 0; i < topocoll_variant_count(TOPOCOLL_ALLTOALL); i++) {
        const char *name = topocoll_variant_name(TOPOCOLL_ALLTOALL, i);
        char label[128];
        if (!name) continue;
        snprintf(label, sizeof label, "(algorithm %s)", name);
        g_force[AA] = name;
        every_case(AA, label, 1);
        g_force[AA] = NULL;
    }
    g_topology = NULL;
}
#endif

#ifndef BAD_INPUT_MPI_NAMES
/* ==== mismatched counts through the hierarchical schedules ====
 *
 * Rank src of a small communicator with a virtual topology sends rank dst
 * (on another node) one element more or one less than dst expects through
 * alltoallv; alltoall and allgather: dst's recvcount is one less than its
 * sendcount.  Every rank must return (the watchdog turns a hang into a
 * failure); dst, where the MPI library's own collective reports the error,
 * must get MPI_ERR_TRUNCATE when its receive is truncated (MPI_SUCCESS
 * where it only falls short), and some rank must report it; the other
 * ranks MPI_SUCCESS or, where the truncated data may have reached them,
 * MPI_ERR_TRUNCATE (counted and printed).  alltoallv through the MPI
 * library's own ("native") too, held to the same rule. */
typedef struct mm_layout {
    const char *topology;
    int q, src, dst;   /* ranks of the communicator; the mismatched pair */
} mm_layout;

static const mm_layout mm_layouts[] = {
    { "2x2", 4, 3, 1 },   /* nodes {0,1} {2,3}: dst 1 is not its node's first rank */
    { "2,1", 3, 2, 1 },   /* unequal nodes {0,1} {2} */
    { "1,1", 2, 1, 0 },   /* two nodes of one rank: every rank leads */
    { "2x2", 4, 3, 0 },   /* dst 0 leads its node (and holds its node-shared memory) */
};
static const char *const mm_alltoallv[] = { "native", "pairwise", "linear", "h1", "h2", "h4", "h1_shm", "h2_shm",
                                            "h4_shm", "bridge", "bridge_dt" };
/* not "native": Open MPI 4.1's own MPI_Alltoall hangs in this case (the
 * rank whose receive truncates returns, the others wait for it) */
static const char *const mm_alltoall[] = { "pairwise", "linear", "bruck", "h1_p2p", "h2_p2p", "h4_p2p",
                                           "h1_shm", "h2_shm", "h4_shm", "bridge", "bridge_a2a",
                                           "bridge_w", "bridge_pack" };
enum { MM_MORE, MM_LESS, MM_RECV_SHORT };
static const char *const mm_kind_name[] = { "src sends dst one element more than dst expects",
                                            "src sends dst one element less than dst expects",
                                            "dst's recvcount one less than its sendcount" };
static long g_mm_other[2];   /* the other ranks' classes: [0] MPI_SUCCESS, [1] MPI_ERR_TRUNCATE */

/* The case's communicator: the layout's first q ranks (MPI_COMM_NULL for the
 * others), errors returned, the virtual topology set. */
static MPI_Comm mm_comm(const mm_layout *l)
{
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, wrank < l->q ? 0 : MPI_UNDEFINED, wrank, &c);
    if (c == MPI_COMM_NULL) return c;
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    if (topocoll_set_topology(c, l->topology) != MPI_SUCCESS)
        fprintf(stderr, "rank %d: topocoll_set_topology(\"%s\") failed\n", wrank, l->topology);
    return c;
}

/* alltoallv: CNT elements from every rank to every rank, but src's count
 * for dst is CNT +- 1 (room for CNT + 1 per pair on both sides). */
static int mm_run_alltoallv(const char *name, const mm_layout *l, int kind, int rank, MPI_Comm c)
{
    int sc[8], sd[8], rcn[8], rd[8];
    for (int j = 0; j < l->q; j++) {
        sc[j] = rcn[j] = CNT;
        sd[j] = rd[j] = j * (CNT + 1);
    }
    if (rank == l->src) sc[l->dst] = kind == MM_MORE ? CNT + 1 : CNT - 1;
    for (int i = 0; i < l->q * (CNT + 1); i++) g_sbuf[i] = rank * 100 + i, g_rbuf[i] = -1;
    return topocoll_alltoallv_algorithm(name, g_sbuf, sc, sd, MPI_INT, g_rbuf, rcn, rd, MPI_INT, c);
}

/* alltoall: dst's recvcount CNT - 1 (its sendcount CNT). */
static int mm_run_alltoall(const char *name, const mm_layout *l, int rank, MPI_Comm c)
{
    for (int i = 0; i < l->q * CNT; i++) g_sbuf[i] = rank * 100 + i, g_rbuf[i] = -1;
    return topocoll_alltoall_algorithm(name, g_sbuf, CNT, MPI_INT, g_rbuf, rank == l->dst ? CNT - 1 : CNT,
                                       MPI_INT, c);
}

/* allgather: dst's recvcount CNT - 1 (its sendcount CNT). */
static int mm_run_allgather(const char *name, const mm_layout *l, int rank, MPI_Comm c)
{
    for (int i = 0; i < l->q * CNT; i++) g_sbuf[i] = rank * 100 + i, g_rbuf[i] = -1;
    return topocoll_allgather_algorithm(name, g_sbuf, CNT, MPI_INT, g_rbuf, rank == l->dst ? CNT - 1 : CNT,
                                        MPI_INT, c);
}

/* Does the entry serve the valid call on the layout (alltoall: asked; the
 * alltoallv entries serve any layout)? */
static int mm_serves(int coll, const char *name, const mm_layout *l)
{
    char what[160];
    snprintf(what, sizeof what, "is %s %s applicable on \"%s\"?", coll == AA ? "alltoall" : "allgather", name,
             l->topology);
    tc_watch(wrank, g_case_timeout, what);
    MPI_Comm c = mm_comm(l);
    int app = 1;
    const char *why = NULL;
    if (c != MPI_COMM_NULL && coll >= 0)
        app = topocoll_applicable(coll == AA ? TOPOCOLL_ALLTOALL : TOPOCOLL_ALLGATHER, name, CNT, MPI_INT, CNT,
                                  MPI_INT, MPI_OP_NULL, 0, c, &why);
    if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
    int all = 0;
    MPI_Allreduce(&app, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    alarm(0);
    if (all != 1 && wrank == 0)
        printf("%s %s declines the valid call on \"%s\" (%s): not checked\n", coll == AA ? "alltoall" : "allgather",
               name, l->topology, why ? why : "no reason");
    return all == 1;
}

/* One case at every rank: ok when this rank got a class the rule allows;
 * *err: whether it got an error.  dst may get the MPI library's own class
 * for a truncation from "native" (Open MPI 4.1's MPI_Alltoallv says
 * MPI_ERR_OTHER at times). */
static int mm_case(int coll, const char *name, const mm_layout *l, int kind, const char *what, int *err)
{
    MPI_Comm c = mm_comm(l);
    int rank, rc, cls = MPI_SUCCESS, ok;
    *err = 0;
    if (c == MPI_COMM_NULL) return 1;   /* not in the case's communicator */
    MPI_Comm_rank(c, &rank);
    tc_watch(wrank, g_case_timeout, what);
    rc = coll == AA   ? mm_run_alltoall(name, l, rank, c)
         : coll == AG ? mm_run_allgather(name, l, rank, c)
                      : mm_run_alltoallv(name, l, kind, rank, c);
    alarm(0);
    if (rc != MPI_SUCCESS && MPI_Error_class(rc, &cls) != MPI_SUCCESS) cls = -1;
    count_class(cls);
    *err = cls != MPI_SUCCESS;
    if (rank == l->dst) {
        int want = kind == MM_LESS ? MPI_SUCCESS : MPI_ERR_TRUNCATE;
        ok = cls == want;
        if (want == MPI_ERR_TRUNCATE && !strcmp(name, "native")) ok = ok || cls == MPI_ERR_OTHER;
    } else {
        ok = cls == MPI_SUCCESS || cls == MPI_ERR_TRUNCATE;
        if (ok) g_mm_other[cls != MPI_SUCCESS]++;
    }
    if (!ok)
        fprintf(stderr, "rank %d (%d of %d): %s: got class %d (%s)\n", wrank, rank, l->q, what, cls,
                class_name(cls));
    if (g_nkept < MAX_KEPT) g_kept[g_nkept++] = c;   /* unmatched messages may remain: kept */
    else MPI_Comm_free(&c);   /* a later case may then fail: counted in mismatched_counts */
    return ok;
}

/* One case (kind) through one entry, agreed over MPI_COMM_WORLD. */
static void mm_one(int coll, const char *name, const mm_layout *l, int kind)
{
    char what[320];
    snprintf(what, sizeof what, "%s%s (algorithm %s) on \"%s\", src %d, dst %d: %s", ENTRY,
             coll == AA ? "alltoall" : coll == AG ? "allgather" : "alltoallv", name, l->topology, l->src,
             l->dst, mm_kind_name[kind]);
    if (g_only && !strstr(what, g_only)) return;
    announce(what, "");
    int err = 0, any = 0;
    int ok = mm_case(coll, name, l, kind, what, &err);
    tc_watch(wrank, g_case_timeout, what);   /* the ranks outside the case's communicator wait here */
    MPI_Allreduce(&err, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    alarm(0);
    g_ncases++;
    record(ok, "%s", what);
    record(kind == MM_LESS || any, "%s: no rank reported an error", what);
}

/* Every layout that fits, every kind, every algorithm named above; then, on
 * the first layout, allgather's dst with a recvcount one less than its
 * sendcount through every allgather algorithm but the MPI library's own
 * (Open MPI 4.1's hangs as its MPI_Alltoall does).  Each case's
 * communicator is kept to the end (MAX_KEPT). */
static void mismatched_counts(void)
{
    for (size_t li = 0; li < sizeof mm_layouts / sizeof mm_layouts[0]; li++) {
        const mm_layout *l = &mm_layouts[li];
        if (l->q > wsize) continue;
        for (size_t a = 0; a < sizeof mm_alltoallv / sizeof *mm_alltoallv; a++) {
            record(topocoll_variant_index(TOPOCOLL_ALLTOALLV, mm_alltoallv[a]) >= 0,
                   "alltoallv has no algorithm \"%s\"", mm_alltoallv[a]);
            mm_one(-1, mm_alltoallv[a], l, MM_MORE);
            mm_one(-1, mm_alltoallv[a], l, MM_LESS);
        }
        for (size_t a = 0; a < sizeof mm_alltoall / sizeof *mm_alltoall; a++) {
            record(topocoll_variant_index(TOPOCOLL_ALLTOALL, mm_alltoall[a]) >= 0,
                   "alltoall has no algorithm \"%s\"", mm_alltoall[a]);
            if (mm_serves(AA, mm_alltoall[a], l)) mm_one(AA, mm_alltoall[a], l, MM_RECV_SHORT);
        }
        for (int i = 0; li == 0 && i < topocoll_variant_count(TOPOCOLL_ALLGATHER); i++) {
            const char *name = topocoll_variant_name(TOPOCOLL_ALLGATHER, i);
            if (!name || !strcmp(name, "native")) continue;
            if (mm_serves(AG, name, l)) mm_one(AG, name, l, MM_RECV_SHORT);
        }
    }
    record(g_nkept < MAX_KEPT, "more than %d communicators to keep: raise MAX_KEPT", MAX_KEPT);
    long all[2] = { 0, 0 };
    MPI_Reduce(g_mm_other, all, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (wrank == 0)
        printf("mismatched counts: the other ranks returned MPI_SUCCESS %ld times, MPI_ERR_TRUNCATE %ld times; "
               "%d communicators kept\n", all[0], all[1], g_nkept);
}
#endif

int main(int argc, char **argv)
{
    const char *env = getenv("TOPOCOLL_ALLGATHER"), *fallback = NULL;
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
#ifndef BAD_INPUT_MPI_NAMES
    env_mode = env && *env && topocoll_variant_index(TOPOCOLL_ALLGATHER, env) < 0;
#else
    env_mode = 0;
    (void)env;
#endif
    send = malloc(COUNT * sizeof(int));
    recv = malloc((size_t)COUNT * (size_t)wsize * sizeof(int));
    if (!send || !recv || !colls_setup()) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
        return 1;
    }
    if (wrank == 0) {
        printf("bad input: np=%d%s%s\n", wsize, env_mode ? ", TOPOCOLL_ALLGATHER=" : "",
               env_mode ? env : "");
        fflush(stdout);
    }

#ifndef BAD_INPUT_MPI_NAMES
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
    if (!env_mode) forced_reductions();
    if (!env_mode) forced_alltoall();
    if (!env_mode) forced_barrier();
    if (!env_mode) mismatched_counts();
#else
    (void)fallback;
    /* the MPI_ names must reach topocoll: the interposer is preloaded */
    void *self = dlopen(NULL, RTLD_LAZY);
    record(self && dlsym(self, "topocoll_allgather") != NULL,
           "the interposer is not loaded (run with LD_PRELOAD=libtopocoll_pmpi.so)");
    if (self) dlclose(self);
#endif
    if (!env_mode) every_case(-1, NULL, 0);
    if (!env_mode) alltoallw_cases();
    print_classes();
    colls_teardown();

    if (wrank == 0) status = tc_test_summary();
    else status = tc_test_counts_global.failed || tc_test_counts_global.passed == 0;
    free(send);
    free(recv);
    if (MPI_Finalize() != MPI_SUCCESS) return 1;
    return status;
}
