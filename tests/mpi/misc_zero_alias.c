/*
 * Empty blocks described two ways, and aliased buffers.
 *
 * 1. Zero-size blocks.  A block of count 1 of a zero-size datatype
 *    (MPI_Type_contiguous(0, MPI_INT)) and a block of count 0 of MPI_INT
 *    have the same, empty, type signature: MPI lets one rank describe a
 *    block the first way and its peer the second (MPICH's
 *    coll/alltoallw_zeros does so: even ranks count 1 of the zero-size type,
 *    odd ranks count 0 of MPI_INT).  Every algorithm of every collective
 *    with per-rank counts (alltoallv, alltoall, allgatherv, allgather,
 *    gather, scatter, bcast), by name, with and without MPI_IN_PLACE (where
 *    MPI allows it), on the detected topology and on a virtual one of 2
 *    nodes x 2 sockets: every rank must return the same class (MPI_SUCCESS,
 *    or MPI_ERR_ARG where the algorithm declines), no byte of the buffers may
 *    change, and no call may hang (a watchdog names the case).  The
 *    "native" entries too, and topocoll's selection: Open MPI 4.1's and
 *    MPICH 4.0's own MPI_Allgather, MPI_Gather and MPI_Allgatherv (MPICH's
 *    MPI_Alltoall too) hang on these very calls; topocoll hands them on
 *    with count 0.
 * 2. sendbuf == recvbuf without MPI_IN_PLACE (erroneous): MPI_ERR_BUFFER at
 *    every rank, for alltoallv and allgatherv; for allreduce and allgather
 *    also right after a valid call with the same arguments on the same
 *    communicator (the per-call fast path); a count 0 (no data at that
 *    address) is not rejected.
 *
 * 3. MPI_Exscan's recvbuf is not significant at rank 0: NULL there is
 *    valid, for every exscan algorithm by name and for the selection; the
 *    other ranks' results are checked.
 *
 * Ends with "N passed, M failed"; exits 1 on any failure.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "topocoll.h"
#include "common/harness.h"
#include "common/watchdog.h"

#define NB 64            /* ints per buffer */
#define CASE_TIMEOUT 60  /* seconds per case */

static int wrank, wsize;

static int class_of(int rc)
{
    int cls = rc;
    if (rc != MPI_SUCCESS && MPI_Error_class(rc, &cls) != MPI_SUCCESS) cls = -1;
    return cls;
}

/* One check agreed over MPI_COMM_WORLD (every rank counts it alike). */
static void record(int ok, const char *what)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (wrank == 0) CHECK(all, "np=%d %s", wsize, what);
    else if (all) tc_test_counts_global.passed++;
    else tc_test_counts_global.failed++;
}

/* ---- 1. zero-size blocks -------------------------------------------------- */

static MPI_Datatype g_zero;   /* contiguous(0, MPI_INT) */
static int g_sbuf[NB], g_rbuf[NB];
static int g_cnt[2][256], g_dsp[2][256];

/* This rank's description of an empty block: count 1 of the zero-size type
 * (even ranks) or count 0 of MPI_INT (odd ranks). */
static MPI_Datatype empty_type(void) { return wrank % 2 == 0 ? g_zero : MPI_INT; }
static int empty_count(void) { return wrank % 2 == 0 ? 1 : 0; }

static int call_zero(topocoll_coll coll, const char *name, int in_place, MPI_Comm comm)
{
    MPI_Datatype t = empty_type();
    int n = empty_count();
    const void *s = in_place ? MPI_IN_PLACE : g_sbuf;
    int root = 0, rank;
    MPI_Comm_rank(comm, &rank);
    const void *gs = in_place && rank == root ? MPI_IN_PLACE : g_sbuf;   /* gather's sendbuf */
    void *sr = in_place && rank == root ? MPI_IN_PLACE : g_rbuf;         /* scatter's recvbuf */
    switch (coll) {   /* name NULL: topocoll's selection */
    case TOPOCOLL_ALLTOALLV:
        return name ? topocoll_alltoallv_algorithm(name, s, g_cnt[0], g_dsp[0], t, g_rbuf, g_cnt[1], g_dsp[1], t, comm)
                    : topocoll_alltoallv(s, g_cnt[0], g_dsp[0], t, g_rbuf, g_cnt[1], g_dsp[1], t, comm);
    case TOPOCOLL_ALLGATHERV:
        return name ? topocoll_allgatherv_algorithm(name, s, n, t, g_rbuf, g_cnt[1], g_dsp[1], t, comm)
                    : topocoll_allgatherv(s, n, t, g_rbuf, g_cnt[1], g_dsp[1], t, comm);
    case TOPOCOLL_ALLTOALL:
        return name ? topocoll_alltoall_algorithm(name, s, n, t, g_rbuf, n, t, comm)
                    : topocoll_alltoall(s, n, t, g_rbuf, n, t, comm);
    case TOPOCOLL_ALLGATHER:
        return name ? topocoll_allgather_algorithm(name, s, n, t, g_rbuf, n, t, comm)
                    : topocoll_allgather(s, n, t, g_rbuf, n, t, comm);
    case TOPOCOLL_GATHER:
        return name ? topocoll_gather_algorithm(name, gs, n, t, g_rbuf, n, t, root, comm)
                    : topocoll_gather(gs, n, t, g_rbuf, n, t, root, comm);
    case TOPOCOLL_SCATTER:
        return name ? topocoll_scatter_algorithm(name, g_sbuf, n, t, sr, n, t, root, comm)
                    : topocoll_scatter(g_sbuf, n, t, sr, n, t, root, comm);
    case TOPOCOLL_BCAST:
        return name ? topocoll_bcast_algorithm(name, g_rbuf, n, t, root, comm)
                    : topocoll_bcast(g_rbuf, n, t, root, comm);
    default:
        return MPI_ERR_INTERN;
    }
}

static int untouched(void)
{
    for (int i = 0; i < NB; i++)
        if (g_sbuf[i] != 1000 + i || g_rbuf[i] != 2000 + i) return 0;
    return 1;
}

static void zero_case(topocoll_coll coll, const char *cname, const char *name, int in_place, MPI_Comm comm,
                      const char *topo)
{
    char what[256];
    snprintf(what, sizeof what, "%s %s%s on %s: even ranks count 1 of a zero-size type, odd ranks count 0",
             cname, name ? name : "(selection)", in_place ? " MPI_IN_PLACE" : "", topo);
    for (int i = 0; i < NB; i++) g_sbuf[i] = 1000 + i, g_rbuf[i] = 2000 + i;
    tc_watch(wrank, CASE_TIMEOUT, what);
    int cls = class_of(call_zero(coll, name, in_place, comm));
    alarm(0);
    int lo = cls, hi = cls;
    MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int ok = lo == hi && (cls == MPI_SUCCESS || cls == MPI_ERR_ARG) && untouched();
    if (!ok)
        fprintf(stderr, "rank %d: %s: class %d (classes over ranks %d..%d)%s\n", wrank, what, cls, lo, hi,
                untouched() ? "" : ", a buffer changed");
    record(ok, what);
}

static void zero_blocks(MPI_Comm comm, const char *topo)
{
    static const struct { topocoll_coll coll; const char *name; int in_place; } colls[] = {
        { TOPOCOLL_ALLTOALLV, "alltoallv", 1 }, { TOPOCOLL_ALLTOALL, "alltoall", 1 },
        { TOPOCOLL_ALLGATHERV, "allgatherv", 1 }, { TOPOCOLL_ALLGATHER, "allgather", 1 },
        { TOPOCOLL_GATHER, "gather", 1 }, { TOPOCOLL_SCATTER, "scatter", 1 }, { TOPOCOLL_BCAST, "bcast", 0 },
    };
    for (int j = 0; j < wsize; j++) {
        g_cnt[0][j] = g_cnt[1][j] = empty_count();
        g_dsp[0][j] = g_dsp[1][j] = 0;
    }
    for (size_t c = 0; c < sizeof colls / sizeof colls[0]; c++) {
        int n = topocoll_variant_count(colls[c].coll);
        for (int i = -1; i < n; i++) {   /* -1: the selection's choice */
            const char *name = i < 0 ? NULL : topocoll_variant_name(colls[c].coll, i);
            for (int ip = 0; ip <= colls[c].in_place; ip++) zero_case(colls[c].coll, colls[c].name, name, ip, comm, topo);
        }
    }
}

/* ---- 2. aliased buffers ---------------------------------------------------- */

static void expect(int rc, int want, const char *what)
{
    int cls = class_of(rc), len = 0;
    char msg[MPI_MAX_ERROR_STRING] = "";
    if (rc != MPI_SUCCESS) MPI_Error_string(rc, msg, &len);
    if (cls != want) fprintf(stderr, "rank %d: %s: class %d (%s), want %d\n", wrank, what, cls, msg, want);
    record(cls == want, what);
}

static void aliased(MPI_Comm comm)
{
    int *buf = g_rbuf, cnt[256], dsp[256];
    for (int j = 0; j < wsize; j++) cnt[j] = 1, dsp[j] = j;
    for (int i = 0; i < NB; i++) buf[i] = i;
    expect(topocoll_alltoallv(buf, cnt, dsp, MPI_INT, buf, cnt, dsp, MPI_INT, comm), MPI_ERR_BUFFER,
           "alltoallv with sendbuf == recvbuf");
    expect(topocoll_allgatherv(buf, 1, MPI_INT, buf, cnt, dsp, MPI_INT, comm), MPI_ERR_BUFFER,
           "allgatherv with sendbuf == recvbuf");
    /* a valid call, then the same arguments but one buffer (the fast path) */
    int in[4] = { 1, 2, 3, 4 }, out[4];
    expect(topocoll_allreduce(in, out, 4, MPI_INT, MPI_SUM, comm), MPI_SUCCESS, "allreduce, valid");
    expect(topocoll_allreduce(out, out, 4, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER,
           "allreduce with sendbuf == recvbuf after a valid call");
    int nalgo = topocoll_variant_count(TOPOCOLL_ALLREDUCE);
    for (int i = 0; i < nalgo; i++) {
        const char *name = topocoll_variant_name(TOPOCOLL_ALLREDUCE, i);
        char what[160];
        snprintf(what, sizeof what, "allreduce %s with sendbuf == recvbuf", name);
        expect(topocoll_allreduce_algorithm(name, out, out, 4, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER, what);
    }
    expect(topocoll_allgather(in, 1, MPI_INT, buf, 1, MPI_INT, comm), MPI_SUCCESS, "allgather, valid");
    expect(topocoll_allgather(buf, 1, MPI_INT, buf, 1, MPI_INT, comm), MPI_ERR_BUFFER,
           "allgather with sendbuf == recvbuf after a valid call");
    /* no data at the shared address: not an overlap */
    expect(topocoll_allreduce(out, out, 0, MPI_INT, MPI_SUM, comm), MPI_SUCCESS,
           "allreduce of count 0 with sendbuf == recvbuf");
}

/* 3: exscan with recvbuf NULL at rank 0 (not significant there). */
static void exscan_null_at_zero(MPI_Comm comm)
{
    int n = topocoll_algorithm_count(TOPOCOLL_EXSCAN);
    for (int i = -1; i < n; i++) {
        const char *name = i < 0 ? NULL : topocoll_algorithm_name(TOPOCOLL_EXSCAN, i);
        int in[4], out[4] = { -7, -7, -7, -7 }, ok = 1;
        for (int k = 0; k < 4; k++) in[k] = wrank + k;
        int *rbuf = wrank == 0 ? NULL : out;
        int rc = name ? topocoll_exscan_algorithm(name, in, rbuf, 4, MPI_INT, MPI_SUM, comm)
                      : topocoll_exscan(in, rbuf, 4, MPI_INT, MPI_SUM, comm);
        if (rc == MPI_SUCCESS && wrank > 0)
            for (int k = 0; k < 4; k++) ok &= out[k] == wrank * (wrank - 1) / 2 + wrank * k;
        int cls = class_of(rc), all_ok = ok && (cls == MPI_SUCCESS || cls == MPI_ERR_ARG), every;
        MPI_Allreduce(&all_ok, &every, 1, MPI_INT, MPI_MIN, comm);
        char what[96];
        snprintf(what, sizeof what, "exscan %s: recvbuf NULL at rank 0", name ? name : "(selection)");
        record(every, what);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wsize > 256) MPI_Abort(MPI_COMM_WORLD, 2);
    tc_watchdog_init();
    MPI_Type_contiguous(0, MPI_INT, &g_zero);
    MPI_Type_commit(&g_zero);

    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    zero_blocks(comm, "the detected topology");
    MPI_Comm_free(&comm);
    if (wsize >= 2) {
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        if (topocoll_set_topology(comm, "2x2x*") != MPI_SUCCESS) record(0, "topocoll_set_topology(2x2x*)");
        zero_blocks(comm, "2 nodes x 2 sockets");
        MPI_Comm_free(&comm);
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    aliased(comm);
    exscan_null_at_zero(comm);
    MPI_Comm_free(&comm);

    MPI_Type_free(&g_zero);
    int rc = wrank == 0 ? tc_test_summary() : 0;
    MPI_Finalize();
    return rc;
}
