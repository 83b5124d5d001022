/*
 * The persistent and nonblocking forms of every catalog entry by name,
 * checked on data, beside blocking calls of the same entry.
 *
 * For each collective (all but alltoallw, or those of --only) and each of
 * its catalog entries: two persistent requests made with
 * topocoll_<coll>_init_algorithm(entry) (a small and a larger count, two
 * element types, one in place), and a third call of the same entry made
 * blocking (topocoll_<coll>_algorithm) between each start and its
 * completion, while both requests may still run: the entries on
 * node-shared memory run each request on windows of its own, apart from
 * the communicator's, which the blocking call uses.  Five starts with new
 * data each (MPI_Startall, then MPI_Waitall, a test loop in reverse or
 * MPI_Wait in turn), every result compared with its reference.
 *
 * Then the nonblocking form, the same way: two operations started with
 * topocoll_i<coll>_algorithm(entry) and the blocking call between start
 * and completion, five times.  An entry on node-shared memory serves a
 * nonblocking call from the communicator's ring of areas, which the first
 * blocking call after the first such nonblocking call makes: its first
 * start declines, the later ones must serve.
 *
 * First, a persistent request's node-shared memory reused by a larger one
 * (run_area_growth), a nonblocking call like a persistent init whose
 * node-shared memory is larger than the ring's (run_persistent_beyond_ring),
 * and one of 64 KiB per rank that the ring must hold (run_ring_fits_64k).
 *
 * An entry may decline (MPI_ERR_ARG: no persistent or nonblocking form, or
 * it does not take the call); the counts are printed per collective.  --require=
 * COLL=ENTRY[/SERVED][,...] names entries that must serve (init accepted
 * and topocoll_last_algorithm() naming them, or SERVED: a family's
 * member; not a fallback), and serve every nonblocking start but the
 * first.  --verbose:
 * rank 0 prints what served each entry.  Ends with "N passed, M failed".
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topocoll.h"
#include "mpi/nb_ops.h"
#include "../common/watchdog.h"

static int wrank, passed, failed;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (cond) {                                                                                \
            passed++;                                                                              \
        } else {                                                                                   \
            failed++;                                                                              \
            fprintf(stderr, "rank %d: FAIL: ", wrank);                                             \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

/* topocoll_<coll>_init_algorithm(entry) into *req (req non-NULL), else
 * topocoll_<coll>_algorithm(entry), the blocking call.  (The nonblocking
 * start is nb_ops.h's nb_op_start, NB_VIA_ALGO.) */
static int call_by_name(nb_op *o, const char *entry, MPI_Request *req)
{
    switch (o->coll) {
#define PE_CALL(UPPER, lower, Mpi, SHAPE)                                                          \
    case TOPOCOLL_##UPPER:                                                                         \
        return req ? topocoll_##lower##_init_algorithm(entry, NB_ARGS_##UPPER(o), MPI_INFO_NULL, req) \
                   : topocoll_##lower##_algorithm(entry, NB_ARGS_##UPPER(o));
        TOPOCOLL_COLLS(PE_CALL)
#undef PE_CALL
    default: return MPI_ERR_ARG;
    }
}

/* The three operations of an entry's runs: two requests (3 ints; 300
 * doubles in place, the last rank the root) and the blocking call (40 ints). */
static void setup_ops(nb_op ops[3], int coll, MPI_Comm comm)
{
    nb_op_setup(&ops[0], coll, 3, NB_INT, 0, 0, 1, comm);
    nb_op_setup(&ops[1], coll, 300, NB_DOUBLE, -1, 1, 2, comm);
    nb_op_setup(&ops[2], coll, 40, NB_INT, 0, 0, 3, comm);
}

/* Whether every rank's ok is 1 (checked: every rank sees the same; an entry
 * that declines a call on some ranks only would be the library's error). */
static int agreed(int ok, MPI_Comm comm, const char *what)
{
    int all = ok, any = ok;
    MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, comm);
    MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, comm);
    CHECK(all == any, "%s: declined on some ranks only", what);
    return all;
}

/* The results of ops[k] where check[k]. */
static void check_results(nb_op ops[3], const int check[3], const char *what)
{
    char buf[160];
    for (int k = 0; k < 3; k++) {
        size_t at = 0;
        if (!check[k]) continue;
        nb_op_str(&ops[k], buf, sizeof buf);
        CHECK(nb_op_matches(&ops[k], &at), "%s: %s%s: wrong result at byte %zu", what, k == 2 ? "blocking " : "",
              buf, at);
    }
}

/* Completes both requests: Waitall, a test loop in reverse, or Wait each. */
static int complete(int how, MPI_Request reqs[2])
{
    int rc = MPI_SUCCESS, flag = 0;
    MPI_Status st[2];
    if (how == 0) return MPI_Waitall(2, reqs, st);
    for (int k = 1; k >= 0 && rc == MPI_SUCCESS; k--) {
        if (how == 2) {
            rc = MPI_Wait(&reqs[k], MPI_STATUS_IGNORE);
            continue;
        }
        do rc = MPI_Test(&reqs[k], &flag, MPI_STATUS_IGNORE);
        while (rc == MPI_SUCCESS && !flag);
    }
    return rc;
}

/* One entry: 1 served (both requests made; *by what served the first: the
 * entry, a family's member, or native), 0 declined. */
static int run_entry(int coll, const char *entry, MPI_Comm comm, char *by, size_t bylen)
{
    nb_op ops[3];
    MPI_Request reqs[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    char what[256], buf[160];
    int served = 1;
    const int all3[3] = { 1, 1, 1 };
    setup_ops(ops, coll, comm);
    for (int k = 0; k < 2; k++) {
        int rc = call_by_name(&ops[k], entry, &reqs[k]), cls = MPI_SUCCESS;
        if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
        nb_op_str(&ops[k], buf, sizeof buf);
        CHECK(rc == MPI_SUCCESS || cls == MPI_ERR_ARG, "%s %s init: returned %d", entry, buf, rc);
        if (rc != MPI_SUCCESS) served = 0;
        else if (k == 0) snprintf(by, bylen, "%s", topocoll_last_algorithm());
    }
    snprintf(what, sizeof what, "%s %s init", nb_coll_names[coll], entry);
    int all = agreed(served, comm, what);
    for (int s = 0; s < 5 && all; s++) {
        snprintf(what, sizeof what, "%s %s, start %d", nb_coll_names[coll], entry, s + 1);
        for (int k = 0; k < 3; k++) nb_op_fill(&ops[k], 10 * s + k);
        CHECK(MPI_Startall(2, reqs) == MPI_SUCCESS, "%s: MPI_Startall", what);
        int rc = call_by_name(&ops[2], entry, NULL);
        CHECK(rc == MPI_SUCCESS, "%s: the blocking call between start and wait returned %d", what, rc);
        CHECK(complete(s % 3, reqs) == MPI_SUCCESS, "%s: completion", what);
        check_results(ops, all3, what);
    }
    for (int k = 0; k < 2; k++)
        if (reqs[k] != MPI_REQUEST_NULL) MPI_Request_free(&reqs[k]);
    for (int k = 0; k < 3; k++) nb_op_free(&ops[k]);
    return all;
}

/* The nonblocking form of one entry: how many of its five double starts
 * it served (both operations by it or a member; declined ones skipped). */
static int run_entry_nb(int coll, const char *entry, MPI_Comm comm)
{
    nb_op ops[3];
    char what[256];
    int served = 0;
    setup_ops(ops, coll, comm);
    for (int s = 0; s < 5; s++) {
        int ok = 1;
        snprintf(what, sizeof what, "%s %s, nonblocking start %d", nb_coll_names[coll], entry, s + 1);
        for (int k = 0; k < 3; k++) nb_op_fill(&ops[k], 10 * s + k);
        for (int k = 0; k < 2; k++) {
            int rc = nb_op_start(&ops[k], NB_VIA_ALGO, entry), cls = MPI_SUCCESS;
            if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
            CHECK(rc == MPI_SUCCESS || cls == MPI_ERR_ARG, "%s: returned %d", what, rc);
            if (rc != MPI_SUCCESS) ok = 0;
        }
        int all = agreed(ok, comm, what);
        int rc = call_by_name(&ops[2], entry, NULL), bcls = MPI_SUCCESS;
        if (rc != MPI_SUCCESS) MPI_Error_class(rc, &bcls);
        CHECK(rc == MPI_SUCCESS || bcls == MPI_ERR_ARG,   /* the entry may not take this call's counts */
              "%s: the blocking call between start and wait returned %d", what, rc);
        MPI_Request reqs[2] = { ops[0].req, ops[1].req };
        CHECK(complete(s % 3, reqs) == MPI_SUCCESS, "%s: completion", what);
        const int check[3] = { ok, ok, rc == MPI_SUCCESS };
        check_results(ops, check, what);
        served += all;
    }
    for (int k = 0; k < 3; k++) nb_op_free(&ops[k]);
    return served;
}

/* A persistent request's node-shared memory reused and grown: bcast by
 * shm_inline with 3 elements, five starts, freed; then with 600 elements,
 * which needs larger inline slots, on the same area (every rank let it go),
 * five starts.  The slots' growth must carry their call numbers on (a
 * writer waited for ever for a done line reset to 0). */
static void run_area_growth(MPI_Comm comm)
{
    const int counts[2] = { 3, 600 };
    for (int k = 0; k < 2; k++) {
        nb_op o;
        MPI_Request req = MPI_REQUEST_NULL;
        char what[96];
        snprintf(what, sizeof what, "area reuse with growth: bcast shm_inline, %d ints", counts[k]);
        tc_watch(wrank, 60, what);
        nb_op_setup(&o, TOPOCOLL_BCAST, counts[k], NB_INT, 0, 0, 7, comm);
        int rc = call_by_name(&o, "shm_inline", &req), cls = MPI_SUCCESS;
        if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
        CHECK(rc == MPI_SUCCESS || cls == MPI_ERR_ARG, "%s: init returned %d", what, rc);
        for (int s = 0; s < 5 && rc == MPI_SUCCESS; s++) {
            size_t at = 0;
            nb_op_fill(&o, 100 + s);
            CHECK(MPI_Start(&req) == MPI_SUCCESS && MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS,
                  "%s: start %d", what, s + 1);
            CHECK(nb_op_matches(&o, &at), "%s: start %d: wrong result at byte %zu", what, s + 1, at);
        }
        if (req != MPI_REQUEST_NULL) MPI_Request_free(&req);
        nb_op_free(&o);
        MPI_Barrier(comm);   /* every rank has let the area go before the next init */
    }
}

/* A nonblocking call like a persistent init before it, whose node-shared
 * memory of its own is larger than the ring's areas: allreduce by
 * shm_tiled, on a communicator of its own.  A blocking call makes the
 * context, a small nonblocking call asks for the ring and a blocking one
 * makes it; then a persistent request of
 * 256 KiB (its own area), and nonblocking calls with the same arguments
 * and the member that served it,
 * which must not run the persistent request's schedule on a ring area too
 * small for it (it failed with MPI_ERR_INTERN): it is served without
 * node-shared memory or declines (MPI_ERR_ARG), and any result is right. */
static void run_persistent_beyond_ring(MPI_Comm world)
{
    const char *what = "nonblocking after a persistent init larger than the ring: allreduce shm_tiled";
    MPI_Comm comm;
    MPI_Comm_dup(world, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    tc_watch(wrank, 60, what);
    nb_op small, big;
    nb_op_setup(&small, TOPOCOLL_ALLREDUCE, 4, NB_INT, 0, 0, 11, comm);
    nb_op_setup(&big, TOPOCOLL_ALLREDUCE, 64 << 10, NB_INT, 0, 0, 12, comm);
    int rc = call_by_name(&small, "shm_tiled", NULL), cls = MPI_SUCCESS;   /* the context */
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    CHECK(rc == MPI_SUCCESS || cls == MPI_ERR_ARG, "%s: blocking call returned %d", what, rc);
    if (rc != MPI_SUCCESS) {   /* one node's entry, several nodes here: the runs on one node cover it */
        if (wrank == 0) printf("%s: not taken on this communicator\n", what);
        nb_op_free(&small);
        nb_op_free(&big);
        MPI_Comm_free(&comm);
        return;
    }
    rc = nb_op_start(&small, NB_VIA_ALGO, "shm_tiled");   /* asks for the ring, or declines */
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&small.req, MPI_STATUS_IGNORE);
    CHECK(call_by_name(&small, "shm_tiled", NULL) == MPI_SUCCESS, "%s: blocking call", what);   /* the ring */
    MPI_Request req = MPI_REQUEST_NULL;
    if ((rc = call_by_name(&big, "shm_tiled", &req)) == MPI_SUCCESS) {
        size_t at = 0;
        char member[64];   /* the family's member that serves: its name finds the memo */
        snprintf(member, sizeof member, "%s", nb_last_algorithm() ? nb_last_algorithm() : "shm_tiled");
        nb_op_fill(&big, 13);
        CHECK(MPI_Start(&req) == MPI_SUCCESS && MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS,
              "%s: persistent start", what);
        CHECK(nb_op_matches(&big, &at), "%s: persistent: wrong result at byte %zu", what, at);
        for (int k = 0; k < 2; k++) {
            nb_op_fill(&big, 14 + k);
            int cls = MPI_SUCCESS;
            rc = nb_op_start(&big, NB_VIA_ALGO, member);
            if (rc == MPI_SUCCESS) rc = MPI_Wait(&big.req, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
            CHECK(rc == MPI_SUCCESS || cls == MPI_ERR_ARG, "%s: nonblocking call %d returned %d", what, k + 1, rc);
            CHECK(rc != MPI_SUCCESS || nb_op_matches(&big, &at), "%s: nonblocking call %d: wrong result at byte %zu",
                  what, k + 1, at);
        }
        MPI_Request_free(&req);
    } else {
        int cls;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_ARG, "%s: persistent init returned %d", what, rc);
    }
    nb_op_free(&small);
    nb_op_free(&big);
    MPI_Comm_free(&comm);
}

/* An allreduce of 64 KiB per rank by shm_tiled (copy-in: p x 64 KiB of
 * node-shared memory) on one node of at most 16 ranks: once a blocking call
 * made the ring, every nonblocking call must run on it (its areas' halves
 * are 64 KiB per rank of the largest node; named, an entry that does not
 * fit would be refused with MPI_ERR_ARG), right, five times.  On several
 * nodes (shm_tiled declines) or more ranks a node, nothing is asserted. */
static void run_ring_fits_64k(MPI_Comm world)
{
    const char *what = "nonblocking allreduce of 64 KiB per rank by shm_tiled on the ring";
    MPI_Comm comm, node;
    int n, nn;
    MPI_Comm_dup(world, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_size(comm, &n);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nn);
    MPI_Comm_free(&node);
    tc_watch(wrank, 60, what);
    nb_op op;
    nb_op_setup(&op, TOPOCOLL_ALLREDUCE, 16 << 10, NB_INT, 0, 0, 21, comm);
    int rc = call_by_name(&op, "shm_tiled", NULL);   /* the context */
    if (rc != MPI_SUCCESS || nn != n || n > 16 || getenv("TOPOCOLL_TOPOLOGY")) {
        if (wrank == 0) printf("%s: not asserted on this communicator\n", what);
        nb_op_free(&op);
        MPI_Comm_free(&comm);
        return;
    }
    rc = nb_op_start(&op, NB_VIA_ALGO, "shm_tiled");   /* asks for the ring: served without, or declines */
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&op.req, MPI_STATUS_IGNORE);
    CHECK(call_by_name(&op, "shm_tiled", NULL) == MPI_SUCCESS, "%s: blocking call", what);   /* makes the ring */
    for (int k = 0; k < 5; k++) {
        size_t at = 0;
        nb_op_fill(&op, 22 + k);
        rc = nb_op_start(&op, NB_VIA_ALGO, "shm_tiled");
        if (rc == MPI_SUCCESS) rc = MPI_Wait(&op.req, MPI_STATUS_IGNORE);
        CHECK(rc == MPI_SUCCESS, "%s: call %d returned %d (not on the ring)", what, k + 1, rc);
        CHECK(rc != MPI_SUCCESS || nb_op_matches(&op, &at), "%s: call %d: wrong result at byte %zu", what, k + 1,
              at);
    }
    nb_op_free(&op);
    MPI_Comm_free(&comm);
}

/* Is COLL=ENTRY[/SERVED] in the comma-separated list?  1 and the name
 * that must serve in served (SERVED, else ENTRY), or 0. */
static int listed(const char *list, const char *coll, const char *entry, char *served, size_t len)
{
    char want[160];
    snprintf(want, sizeof want, "%s=%s", coll, entry);
    size_t n = strlen(want);
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        size_t item = end ? (size_t)(end - p) : strlen(p);
        if (item >= n && !strncmp(p, want, n) && (item == n || p[n] == '/')) {
            if (item == n) snprintf(served, len, "%s", entry);
            else snprintf(served, len, "%.*s", (int)(item - n - 1), p + n + 1);
            return 1;
        }
        p = end ? end + 1 : NULL;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *only = NULL, *require = "";
    int verbose = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--only=", 7)) only = argv[i] + 7;
        else if (!strncmp(argv[i], "--require=", 10)) require = argv[i] + 10;
        else if (!strcmp(argv[i], "--verbose")) verbose = 1;
    }
    tc_watchdog_init();
    nb_types_init();
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    run_area_growth(comm);
    run_persistent_beyond_ring(comm);
    run_ring_fits_64k(comm);
    for (int coll = 0; coll < NB_NCOLL; coll++) {
        const char *cname = nb_coll_names[coll];
        if (coll == TOPOCOLL_ALLTOALLW) continue;   /* its own path: the MPI library's nonblocking */
        if (only) {
            char want[64];
            snprintf(want, sizeof want, ",%s,", cname);
            char padded[512];
            snprintf(padded, sizeof padded, ",%s,", only);
            if (!strstr(padded, want)) continue;
        }
        int n = topocoll_algorithm_count((topocoll_coll)coll), served = 0, declined = 0, nb_starts = 0;
        for (int e = 0; e < n; e++) {
            const char *entry = topocoll_algorithm_name((topocoll_coll)coll, e);
            char label[192];
            snprintf(label, sizeof label, "persistent %s %s", cname, entry);
            tc_watch(wrank, 120, label);
            char by[64] = "";
            int ok = run_entry(coll, entry, comm, by, sizeof by);
            served += ok;
            declined += !ok;
            int nb = run_entry_nb(coll, entry, comm);
            nb_starts += nb;
            if (verbose && wrank == 0)
                printf("  %s %s: %s, nonblocking %d of 5\n", cname, entry, ok ? by : "declined", nb);
            char must[64];
            if (listed(require, cname, entry, must, sizeof must)) {
                CHECK(ok && !strcmp(by, must), "%s: required to be served by %s, %s", label, must,
                      ok ? by : "declined");
                CHECK(nb >= 4, "nonblocking %s %s: served %d of 5 starts, expected 4 or 5", cname, entry, nb);
            }
        }
        if (wrank == 0)
            printf("%s: persistent: %d entries served, %d declined; nonblocking: %d of %d starts served\n", cname,
                   served, declined, nb_starts, 5 * n);
    }
    tc_watch(wrank, 120, "the end");
    MPI_Comm_free(&comm);
    nb_types_free();
    int counts[2] = { passed, failed };
    MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0) printf("%d passed, %d failed\n", counts[0], counts[1]);
    MPI_Finalize();
    return counts[1] ? 1 : 0;
}
