/*
 * Reductions in a program that traps floating-point exceptions.
 *
 * Scientific programs run with invalid, division by zero and overflow
 * trapped (feenableexcept, gfortran's -ffpe-trap=invalid,zero,overflow) or
 * test the exception flags after a computation (Fortran's IEEE_GET_FLAG).
 * With those three trapped (glibc's feenableexcept), every allreduce,
 * reduce and reduce_scatter_block entry of the catalog (and the selected
 * path) reduces finite doubles and floats whose every partial result is
 * exact and finite, in any order: sums of small integers, products of +-1
 * and +-2, minima and maxima of quarters.  A trap is a SIGFPE: the rank dies
 * after printing the case.  After every call:
 *   - no exception flag is set, inexact (but see --ignore-inexact) and
 *     underflow included (the library's own arithmetic, the MPI library's
 *     set-up calls it makes, its probes and calibration must leave the
 *     caller's flags as they were, as the MPI library's own collectives do);
 *   - the traps and the rounding mode are the caller's;
 *   - the result is exact.
 * The first call of the run is a one-node allreduce on a fresh communicator
 * by the selection: it makes the context, probes the reduction kernels and
 * calibrates the one-node memory model, all inside the caller's call.
 *
 * Mappings: the detected topology (one node here: the shared-memory
 * entries), one node of two sockets (1x2x*: the socket-aware ones), 2
 * virtual nodes (2x*, cyclic at np >= 4: the hierarchical and two-tier
 * ones) and at np >= 4 2 nodes x 2 sockets; each on a fresh communicator.
 * Every entry runs every (op, type) pair on every mapping where it applies
 * (topocoll_applicable), the count (1, 13, 1500, 4099) rotating with the
 * pair, the entry and the mapping; rank 0 prints, per collective, how many
 * entries ran and the entries that applied nowhere.
 *
 * Built with FPE_MPI_NAMES: a plain MPI program (no topocoll), the same
 * cases through MPI_Allreduce, MPI_Reduce and MPI_Reduce_scatter_block on
 * fresh duplicates of MPI_COMM_WORLD, for a run with the interposer
 * preloaded (the selection, TOPOCOLL_<COLL>, TOPOCOLL_TOPOLOGY from the
 * environment); --nonblocking: through MPI_I<coll> and MPI_Wait (the
 * reductions then run in the wait's progress), --persistent (an MPI-4
 * library): through MPI_<Coll>_init, MPI_Start and MPI_Wait, twice per
 * request, then MPI_Request_free.
 *
 * Usage: test_fpe [--ignore-inexact] [--nonblocking | --persistent]
 *   --ignore-inexact  flags other than inexact only: MPICH 4.0's progress
 *                     engine, oversubscribed, now and then raises inexact
 *                     in a plain MPI program (MPI_Comm_dup, MPI_Allreduce).
 *
 * Ends with "N passed, M failed".
 */
#define _GNU_SOURCE   /* feenableexcept, fegetexcept */
#include <fenv.h>
#include <mpi.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef FPE_MPI_NAMES
#include "topocoll.h"
#endif
#include "../common/mpi_harness.h"

#define TRAPS (FE_INVALID | FE_DIVBYZERO | FE_OVERFLOW)
#define MAXCOUNT 4099
#define MAXNP 64

enum { C_ALLREDUCE, C_REDUCE, C_RSB, NCOLLS };
static const char *const coll_names[NCOLLS] = { "allreduce", "reduce", "reduce_scatter_block" };
#ifndef FPE_MPI_NAMES
static const topocoll_coll colls[NCOLLS] = { TOPOCOLL_ALLREDUCE, TOPOCOLL_REDUCE, TOPOCOLL_REDUCE_SCATTER_BLOCK };
#endif

static const MPI_Op ops[] = { MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX };
static const char *const op_names[] = { "SUM", "PROD", "MIN", "MAX" };
#define NOPS 4
#define NTYPES 2   /* 0: MPI_DOUBLE, 1: MPI_FLOAT */
static const int counts[] = { 1, 13, 1500, MAXCOUNT };
#define NCOUNTS 4

static int wrank, wsize;
static int checked = FE_ALL_EXCEPT;   /* the flags that must stay clear */

/* ---- the case running, for the SIGFPE handler -------------------------- */

static char current[256];
static size_t current_len;
static struct sigaction previous;

/* Name the case, then put back the handler found (the MPI library's, which
 * prints a backtrace, or the default) and return: the instruction traps
 * again, now into that handler. */
static void on_fpe(int sig)
{
    static const char head[] = "test_fpe: SIGFPE in ";
    (void)sig;
    (void)!write(STDERR_FILENO, head, sizeof head - 1);
    (void)!write(STDERR_FILENO, current, current_len);
    (void)!write(STDERR_FILENO, "\n", 1);
    (void)sigaction(SIGFPE, &previous, NULL);
}

static void set_current(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void set_current(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(current, sizeof current, fmt, ap);
    va_end(ap);
    current_len = n < 0 ? 0 : (size_t)n < sizeof current ? (size_t)n : sizeof current - 1;
}

/* ---- data: exact and finite in any combination order ------------------- */

/* Element i of rank r's buffer for op o. */
static double value(int o, int r, long i)
{
    switch (o) {
    case 0: return (double)((i * 7 + r * 3) % 11 - 5);                       /* SUM: |sum| <= 5 p */
    case 1: return ((i + r) % 3 == 0 ? 2.0 : 1.0) * ((i * 5 + r) % 2 ? -1.0 : 1.0); /* PROD: |prod| <= 2^p */
    default: return (double)((i * 37 + r * 101) % 1009 - 504) * 0.25;       /* MIN, MAX: quarters */
    }
}

/* The reduction of element i over ranks 0..p-1. */
static double expected(int o, int p, long i)
{
    double acc = value(o, 0, i);
    for (int r = 1; r < p; r++) {
        double v = value(o, r, i);
        if (o == 0) acc += v;
        else if (o == 1) acc *= v;
        else if (o == 2) acc = v < acc ? v : acc;
        else acc = v > acc ? v : acc;
    }
    return acc;
}

static void fill(int o, int t, long n, long first, void *buf)
{
    for (long i = 0; i < n; i++) {
        double v = value(o, wrank, first + i);
        if (t == 0) ((double *)buf)[i] = v;
        else ((float *)buf)[i] = (float)v;
    }
}

/* The first wrong element of buf (elements first.. of the reduction), or -1. */
static long wrong(int o, int t, int p, long n, long first, const void *buf)
{
    for (long i = 0; i < n; i++) {
        double e = expected(o, p, first + i);
        double g = t == 0 ? ((const double *)buf)[i] : (double)((const float *)buf)[i];
        if (g != e) return i;
    }
    return -1;
}

/* ---- one call ------------------------------------------------------------ */

static void *sbuf, *rbuf;

#ifdef FPE_MPI_NAMES
enum { FORM_BLOCKING, FORM_NONBLOCKING, FORM_PERSISTENT };
static int form = FORM_BLOCKING;

/* The request's operation (started or not), waited for; persistent: two
 * starts, then freed.  An MPI error code. */
static int finish(MPI_Request *r, int rc)
{
    if (rc != MPI_SUCCESS) return rc;
    if (form == FORM_NONBLOCKING) return MPI_Wait(r, MPI_STATUS_IGNORE);
    for (int k = 0; k < 2 && rc == MPI_SUCCESS; k++)
        if ((rc = MPI_Start(r)) == MPI_SUCCESS) rc = MPI_Wait(r, MPI_STATUS_IGNORE);
    int rc2 = MPI_Request_free(r);
    return rc != MPI_SUCCESS ? rc : rc2;
}

static int call_request(int c, int o, MPI_Datatype type, int count, int root, MPI_Comm comm)
{
    MPI_Request r = MPI_REQUEST_NULL;
    if (form == FORM_NONBLOCKING) {
        if (c == C_ALLREDUCE) return finish(&r, MPI_Iallreduce(sbuf, rbuf, count, type, ops[o], comm, &r));
        if (c == C_REDUCE) return finish(&r, MPI_Ireduce(sbuf, rbuf, count, type, ops[o], root, comm, &r));
        return finish(&r, MPI_Ireduce_scatter_block(sbuf, rbuf, count, type, ops[o], comm, &r));
    }
#if MPI_VERSION >= 4
    if (c == C_ALLREDUCE)
        return finish(&r, MPI_Allreduce_init(sbuf, rbuf, count, type, ops[o], comm, MPI_INFO_NULL, &r));
    if (c == C_REDUCE)
        return finish(&r, MPI_Reduce_init(sbuf, rbuf, count, type, ops[o], root, comm, MPI_INFO_NULL, &r));
    return finish(&r, MPI_Reduce_scatter_block_init(sbuf, rbuf, count, type, ops[o], comm, MPI_INFO_NULL, &r));
#else
    (void)root;
    return MPI_ERR_OTHER;   /* (refused by main) */
#endif
}
#endif

/* Run collective c by algorithm (NULL: the selection) on comm; 0 when the
 * call returned MPI_SUCCESS. */
static int call(int c, const char *algorithm, int o, int t, int count, int root, MPI_Comm comm)
{
    MPI_Datatype type = t == 0 ? MPI_DOUBLE : MPI_FLOAT;
#ifdef FPE_MPI_NAMES
    (void)algorithm;
    if (form != FORM_BLOCKING) return call_request(c, o, type, count, root, comm);
    if (c == C_ALLREDUCE) return MPI_Allreduce(sbuf, rbuf, count, type, ops[o], comm);
    if (c == C_REDUCE) return MPI_Reduce(sbuf, rbuf, count, type, ops[o], root, comm);
    return MPI_Reduce_scatter_block(sbuf, rbuf, count, type, ops[o], comm);
#else
    return topocoll_run(colls[c], algorithm, sbuf, count, type, rbuf, count, type, ops[o], root, comm);
#endif
}

/* One case on every rank of comm (p ranks, this one `rank`): 1 passed,
 * 0 failed (agreed over comm). */
static int one(const char *mapping, int c, const char *algorithm, int o, int t, int count, MPI_Comm comm)
{
    int p, rank, root = 0;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &rank);
    if (c == C_REDUCE) root = (o + count) % 2 ? p - 1 : 0;
    long send_n = c == C_RSB ? (long)count * p : count, recv_n = count;
    size_t es = t == 0 ? sizeof(double) : sizeof(float);
    const char *name = algorithm ? algorithm : "the selection";
    set_current("%s %s, %s, %s on %s, count %d", mapping, coll_names[c], name, op_names[o],
                t == 0 ? "MPI_DOUBLE" : "MPI_FLOAT", count);
    fill(o, t, send_n, 0, sbuf);
    memset(rbuf, 0, (size_t)send_n * es);
    feclearexcept(FE_ALL_EXCEPT);
    int rc = call(c, algorithm, o, t, count, root, comm);
    int flags = fetestexcept(checked), traps = fegetexcept(), round = fegetround();
    feclearexcept(FE_ALL_EXCEPT);
    long bad = -1;
    if (rc == MPI_SUCCESS && (c != C_REDUCE || rank == root))
        bad = wrong(o, t, p, recv_n, c == C_RSB ? (long)rank * count : 0, rbuf);
    int ok = rc == MPI_SUCCESS && flags == 0 && traps == TRAPS && round == FE_TONEAREST && bad < 0;
    if (!ok)
        printf("rank %d: %s: rc %d, flags left 0x%x (invalid 0x%x, divbyzero 0x%x, overflow 0x%x, "
               "underflow 0x%x, inexact 0x%x), traps 0x%x (want 0x%x), rounding 0x%x, first wrong element %ld\n",
               wrank, current, rc, flags, FE_INVALID, FE_DIVBYZERO, FE_OVERFLOW, FE_UNDERFLOW, FE_INEXACT,
               traps, TRAPS, round, bad);
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    feclearexcept(FE_ALL_EXCEPT);
    return all;
}

/* Every (op, type) pair of collective c by algorithm on comm, the count
 * rotating with `turn`; returns how many ran. */
static long pairs(const char *mapping, int c, const char *algorithm, unsigned turn, MPI_Comm comm)
{
    long ran = 0;
    for (int o = 0; o < NOPS; o++)
        for (int t = 0; t < NTYPES; t++) {
            int count = counts[(turn + (unsigned)(o * NTYPES + t)) % NCOUNTS];
#ifndef FPE_MPI_NAMES
            MPI_Datatype type = t == 0 ? MPI_DOUBLE : MPI_FLOAT;
            if (algorithm && topocoll_applicable(colls[c], algorithm, count, type, count, type, ops[o], 0,
                                                 comm, NULL) != 1)
                continue;
#endif
            int r = one(mapping, c, algorithm, o, t, count, comm);
            CHECK(r == 1, "%s %s %s %s %s count %d: a flag left, the environment changed, a wrong result "
                  "or an error (see the rank lines)", mapping, coll_names[c], algorithm ? algorithm : "(selection)",
                  op_names[o], t == 0 ? "MPI_DOUBLE" : "MPI_FLOAT", count);
            ran++;
        }
    return ran;
}

/* A fresh duplicate of MPI_COMM_WORLD with the mapping (NULL: detected). */
static MPI_Comm fresh(const char *spec)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
#ifndef FPE_MPI_NAMES
    if (spec && topocoll_set_topology(comm, spec) != MPI_SUCCESS) {
        CHECK(0, "topocoll_set_topology(%s) failed", spec);
        MPI_Comm_free(&comm);
        return MPI_COMM_NULL;
    }
#else
    (void)spec;
#endif
    int flags = fetestexcept(checked);
    CHECK(flags == 0, "rank %d: flags 0x%x left by MPI_Comm_dup%s", wrank, flags,
          spec ? " and topocoll_set_topology" : "");
    feclearexcept(FE_ALL_EXCEPT);
    return comm;
}

/* The first call of the run: a one-node allreduce by the selection on a
 * fresh communicator (context, kernel probe, calibration). */
static void first_call(void)
{
    MPI_Comm comm = fresh(NULL);
    int r = one("detected (first call)", C_ALLREDUCE, NULL, 0, 0, 1, comm);
    CHECK(r == 1, "the first call (context, kernel probe, calibration): see the rank lines");
    MPI_Comm_free(&comm);
}

#ifdef FPE_MPI_NAMES
/* The plain program: every collective by the selection in force. */
static void run_all(void)
{
    for (int c = 0; c < NCOLLS; c++) {
        MPI_Comm comm = fresh(NULL);
        for (unsigned turn = 0; turn < NCOUNTS; turn++) pairs("MPI", c, NULL, turn, comm);
        MPI_Comm_free(&comm);
    }
}
#else
static unsigned char *applied[NCOLLS];   /* [entry]: ran on some mapping */

static void run_mapping(const char *spec, unsigned m)
{
    const char *mapping = spec ? spec : "detected";
    for (int c = 0; c < NCOLLS; c++) {
        MPI_Comm comm = fresh(spec);
        if (comm == MPI_COMM_NULL) return;
        long ran = pairs(mapping, c, NULL, m, comm);   /* the selection first: a fresh context */
        int n = topocoll_variant_count(colls[c]);
        for (int a = 0; a < n; a++) {
            long k = pairs(mapping, c, topocoll_variant_name(colls[c], a), m + (unsigned)a, comm);
            if (k) applied[c][a] = 1;
            ran += k;
        }
        CHECK(ran > 0, "%s %s: nothing ran", mapping, coll_names[c]);
        MPI_Comm_free(&comm);
    }
}

/* Rank 0: per collective, the entries that ran and those that applied on
 * no mapping. */
static void report(void)
{
    if (wrank != 0) return;
    for (int c = 0; c < NCOLLS; c++) {
        int n = topocoll_variant_count(colls[c]), ran = 0;
        for (int a = 0; a < n; a++) ran += applied[c][a];
        printf("%s: %d of %d entries ran", coll_names[c], ran, n);
        const char *sep = "; applied nowhere: ";
        for (int a = 0; a < n; a++)
            if (!applied[c][a]) {
                printf("%s%s", sep, topocoll_variant_name(colls[c], a));
                sep = ", ";
            }
        printf("\n");
    }
}

static void run_all(void)
{
    for (int c = 0; c < NCOLLS; c++) applied[c] = calloc((size_t)topocoll_variant_count(colls[c]), 1);
    run_mapping(NULL, 0);
    if (wsize >= 2) run_mapping("1x2x*", 1);
    if (wsize >= 2) run_mapping(wsize >= 4 ? "2x*/cyclic" : "2x*", 2);
    if (wsize >= 4) run_mapping("2x2x*/random:5", 3);
    report();
    for (int c = 0; c < NCOLLS; c++) free(applied[c]);
}
#endif

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--ignore-inexact") == 0) {
            checked &= ~FE_INEXACT;
#ifdef FPE_MPI_NAMES
        } else if (strcmp(argv[i], "--nonblocking") == 0) {
            form = FORM_NONBLOCKING;
        } else if (strcmp(argv[i], "--persistent") == 0 && MPI_VERSION >= 4) {
            form = FORM_PERSISTENT;
#endif
        } else {
            if (wrank == 0) printf("unknown argument %s\n", argv[i]);
            MPI_Finalize();
            return 2;
        }
    }
    if (wsize > MAXNP) {
        if (wrank == 0) printf("at most %d ranks\n", MAXNP);
        MPI_Finalize();
        return 1;
    }
    sbuf = malloc((size_t)MAXCOUNT * (size_t)wsize * sizeof(double));
    rbuf = malloc((size_t)MAXCOUNT * (size_t)wsize * sizeof(double));
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fpe;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGFPE, &sa, &previous);
    feclearexcept(FE_ALL_EXCEPT);
    feenableexcept(TRAPS);
    first_call();
    run_all();
    fedisableexcept(TRAPS);
    free(sbuf);
    free(rbuf);
    int status = tc_test_mpi_summary(0);
    MPI_Finalize();
    return status;
}
