/*
 * topocoll-overhead: what the interposer adds to one small collective call.
 *
 * An ordinary MPI program (linked against MPI only): run it with
 * LD_PRELOAD=libtopocoll_pmpi.so and TOPOCOLL_<COLL>=native, and every
 * MPI_<Coll> call it makes goes through topocoll's whole per-call path
 * (argument checks, context lookup, selection) and ends in the MPI
 * library's own PMPI_<Coll>; the same program also calls PMPI_<Coll>
 * directly.  Batches of both alternate in one run, so the machine's noise
 * hits both alike; the difference of the medians is topocoll's per-call
 * cost.  Without the preload both columns are the MPI library alone (the
 * difference is then the measurement's own noise floor).
 *
 *   topocoll-overhead [-c allgather|bcast|reduce|gather|scatter|reduce_scatter_block|allreduce|alltoall|
 *                         reduce_scatter|gatherv|scatterv|allgatherv|alltoallv|alltoallw|
 *                         barrier|scan|exscan|test|bcast_varying|bcast_alternating]
 *                     [-s BYTES] [-n CALLS_PER_BATCH] [-b BATCHES] [-m blocking|nb|nbonly]
 *
 * The per-rank-count collectives (reduce_scatter ... alltoallw) pass the
 * same count to every rank, packed displacements, one array each for the
 * whole run (as an application repeating a call does).
 *
 * Prints one line per collective: median microseconds per call through
 * MPI_ (interposed), through PMPI_ (direct), their difference and ratio.
 * -c test: MPI_Test on a receive that nothing matches instead of a
 * collective (the cost of the interposer's request-completion wrappers);
 * -c bcast_varying: MPI_Bcast of 1-7 doubles from a root that changes, no
 * call like the one before (the full per-call path); -c bcast_alternating:
 * MPI_Bcast on three communicators in turn.
 *
 * With -m nb (allgather, allreduce, bcast, alltoall, barrier): the
 * nonblocking call against the blocking one and against the generalized
 * request's round trip, the least a library layered on MPI-3 adds to a
 * nonblocking call (request_cost.c).  With -m nbonly (the same
 * collectives): a program that makes nonblocking calls only, MPI_I<coll>
 * against PMPI_I<coll>, nothing else through the interposer (what serves
 * a communicator that no blocking collective has reached).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "request_cost.h"

typedef overhead_call_fn call_fn;

static int do_allgather(int direct, void *s, void *r, int n, MPI_Comm comm)
{
    return direct ? PMPI_Allgather(s, n, MPI_BYTE, r, n, MPI_BYTE, comm)
                  : MPI_Allgather(s, n, MPI_BYTE, r, n, MPI_BYTE, comm);
}

static int do_bcast(int direct, void *s, void *r, int n, MPI_Comm comm)
{
    (void)r;
    return direct ? PMPI_Bcast(s, n, MPI_BYTE, 0, comm) : MPI_Bcast(s, n, MPI_BYTE, 0, comm);
}

static int do_reduce(int direct, void *s, void *r, int n, MPI_Comm comm)
{
    int k = n / 4 ? n / 4 : 1;
    return direct ? PMPI_Reduce(s, r, k, MPI_INT, MPI_SUM, 0, comm)
                  : MPI_Reduce(s, r, k, MPI_INT, MPI_SUM, 0, comm);
}

static int do_gather(int direct, void *s, void *r, int n, MPI_Comm comm)
{
    return direct ? PMPI_Gather(s, n, MPI_BYTE, r, n, MPI_BYTE, 0, comm)
                  : MPI_Gather(s, n, MPI_BYTE, r, n, MPI_BYTE, 0, comm);
}

static int do_scatter(int direct, void *s, void *r, int n, MPI_Comm comm)
{
    return direct ? PMPI_Scatter(r, n, MPI_BYTE, s, n, MPI_BYTE, 0, comm)
                  : MPI_Scatter(r, n, MPI_BYTE, s, n, MPI_BYTE, 0, comm);
}

static int do_reduce_scatter_block(int direct, void *s, void *r, int n, MPI_Comm comm)
{
    int k = n / 4 ? n / 4 : 1;
    return direct ? PMPI_Reduce_scatter_block(r, s, k, MPI_INT, MPI_SUM, comm)
                  : MPI_Reduce_scatter_block(r, s, k, MPI_INT, MPI_SUM, comm);
}

static int do_allreduce(int direct, void *s, void *r, int n, MPI_Comm comm)
{
    int k = n / 4 ? n / 4 : 1;
    return direct ? PMPI_Allreduce(s, r, k, MPI_INT, MPI_SUM, comm) : MPI_Allreduce(s, r, k, MPI_INT, MPI_SUM, comm);
}

static int do_alltoall(int direct, void *s, void *r, int n, MPI_Comm comm)
{
    return direct ? PMPI_Alltoall(s, n, MPI_BYTE, r, n, MPI_BYTE, comm)
                  : MPI_Alltoall(s, n, MPI_BYTE, r, n, MPI_BYTE, comm);
}

/* The per-rank-count collectives' arrays (vec_setup): every part n bytes
 * (reduce_scatter: k ints), packed in rank order. */
static int *vcnt, *vdsp, *vicnt;
static MPI_Datatype *vtypes;

static int vec_setup(int size, int n)
{
    vcnt = malloc((size_t)size * sizeof *vcnt), vdsp = malloc((size_t)size * sizeof *vdsp);
    vicnt = malloc((size_t)size * sizeof *vicnt), vtypes = malloc((size_t)size * sizeof *vtypes);
    if (!vcnt || !vdsp || !vicnt || !vtypes) return -1;
    for (int j = 0; j < size; j++)
        vcnt[j] = n, vdsp[j] = j * n, vicnt[j] = n / 4 ? n / 4 : 1, vtypes[j] = MPI_BYTE;
    return 0;
}

static int do_reduce_scatter(int direct, void *s, void *r, int n, MPI_Comm comm)
{
    (void)n;
    return direct ? PMPI_Reduce_scatter(r, s, vicnt, MPI_INT, MPI_SUM, comm)
                  : MPI_Reduce_scatter(r, s, vicnt, MPI_INT, MPI_SUM, comm);
}

static int do_barrier(int direct, void *s, void *r, int n, MPI_Comm comm)
{
    (void)s, (void)r, (void)n;
    return direct ? PMPI_Barrier(comm) : MPI_Barrier(comm);
}

static int do_scan(int direct, void *s, void *r, int n, MPI_Comm comm)
{
    return direct ? PMPI_Scan(s, r, n, MPI_BYTE, MPI_BXOR, comm) : MPI_Scan(s, r, n, MPI_BYTE, MPI_BXOR, comm);
}

static int do_exscan(int direct, void *s, void *r, int n, MPI_Comm comm)
{
    return direct ? PMPI_Exscan(s, r, n, MPI_BYTE, MPI_BXOR, comm) : MPI_Exscan(s, r, n, MPI_BYTE, MPI_BXOR, comm);
}

static int do_gatherv(int direct, void *s, void *r, int n, MPI_Comm comm)
{
    return direct ? PMPI_Gatherv(s, n, MPI_BYTE, r, vcnt, vdsp, MPI_BYTE, 0, comm)
                  : MPI_Gatherv(s, n, MPI_BYTE, r, vcnt, vdsp, MPI_BYTE, 0, comm);
}

static int do_scatterv(int direct, void *s, void *r, int n, MPI_Comm comm)
{
    return direct ? PMPI_Scatterv(r, vcnt, vdsp, MPI_BYTE, s, n, MPI_BYTE, 0, comm)
                  : MPI_Scatterv(r, vcnt, vdsp, MPI_BYTE, s, n, MPI_BYTE, 0, comm);
}

static int do_allgatherv(int direct, void *s, void *r, int n, MPI_Comm comm)
{
    return direct ? PMPI_Allgatherv(s, n, MPI_BYTE, r, vcnt, vdsp, MPI_BYTE, comm)
                  : MPI_Allgatherv(s, n, MPI_BYTE, r, vcnt, vdsp, MPI_BYTE, comm);
}

static int do_alltoallv(int direct, void *s, void *r, int n, MPI_Comm comm)
{
    (void)n;
    return direct ? PMPI_Alltoallv(s, vcnt, vdsp, MPI_BYTE, r, vcnt, vdsp, MPI_BYTE, comm)
                  : MPI_Alltoallv(s, vcnt, vdsp, MPI_BYTE, r, vcnt, vdsp, MPI_BYTE, comm);
}

static int do_alltoallw(int direct, void *s, void *r, int n, MPI_Comm comm)
{
    (void)n;
    return direct ? PMPI_Alltoallw(s, vcnt, vdsp, vtypes, r, vcnt, vdsp, vtypes, comm)
                  : MPI_Alltoallw(s, vcnt, vdsp, vtypes, r, vcnt, vdsp, vtypes, comm);
}

/* "bcast_varying": MPI_Bcast whose count (1-7 doubles) and root change from
 * call to call, as in ScaLAPACK's panel broadcasts: no call repeats the one
 * before, so the interposer's memo and pass-through never serve one and
 * each takes the full per-call path (checks, selection, the learner's key). */
static int do_bcast_varying(int direct, void *s, void *r, int n, MPI_Comm comm)
{
    static unsigned call;
    int size = 1;
    (void)r, (void)n;
    MPI_Comm_size(comm, &size);
    int count = 1 + (int)(call % 7), root = (int)((call / 7) % (unsigned)size);
    call++;
    return direct ? PMPI_Bcast(s, count, MPI_DOUBLE, root, comm) : MPI_Bcast(s, count, MPI_DOUBLE, root, comm);
}

/* "bcast_alternating": MPI_Bcast of 8 doubles from rank 0 on three
 * duplicates of the communicator in turn (made on the first call, freed at
 * the end: alternating_done), as libraries alternate their row, column and
 * grid communicators: each call's communicator is not the last one used. */
static MPI_Comm alternating[3] = { MPI_COMM_NULL, MPI_COMM_NULL, MPI_COMM_NULL };

static int do_bcast_alternating(int direct, void *s, void *r, int n, MPI_Comm comm)
{
    static unsigned call;
    (void)r, (void)n;
    for (int i = 0; i < 3; i++)
        if (alternating[i] == MPI_COMM_NULL) {
            int rc = PMPI_Comm_dup(comm, &alternating[i]);
            if (rc != MPI_SUCCESS) return rc;
        }
    MPI_Comm c = alternating[call++ % 3];
    return direct ? PMPI_Bcast(s, 8, MPI_DOUBLE, 0, c) : MPI_Bcast(s, 8, MPI_DOUBLE, 0, c);
}

static void alternating_done(void)
{
    for (int i = 0; i < 3; i++)
        if (alternating[i] != MPI_COMM_NULL) (void)MPI_Comm_free(&alternating[i]);
}

/* "test": not a collective but the request-completion call that codes
 * polling for messages make most (hpcc's MPIRandomAccess): MPI_Test on a
 * receive that no message matches, posted on the first call and cancelled
 * at the end (test_done).  Through the interposer it costs the wrapper that
 * advances topocoll's nonblocking operations; PMPI_Test is the MPI
 * library's alone. */
static MPI_Request pending = MPI_REQUEST_NULL;
static int pending_buf;

static int do_test(int direct, void *s, void *r, int n, MPI_Comm comm)
{
    (void)s, (void)r, (void)n;
    int flag = 0;
    if (pending == MPI_REQUEST_NULL) {
        int rc = PMPI_Irecv(&pending_buf, 1, MPI_INT, MPI_ANY_SOURCE, 32000, comm, &pending);
        if (rc != MPI_SUCCESS) return rc;
    }
    return direct ? PMPI_Test(&pending, &flag, MPI_STATUS_IGNORE) : MPI_Test(&pending, &flag, MPI_STATUS_IGNORE);
}

static void test_done(void)
{
    if (pending == MPI_REQUEST_NULL) return;
    (void)PMPI_Cancel(&pending);
    (void)PMPI_Wait(&pending, MPI_STATUS_IGNORE);
}

static const struct { const char *name; call_fn fn; } colls[] = {
    { "allgather", do_allgather }, { "bcast", do_bcast }, { "reduce", do_reduce },
    { "gather", do_gather }, { "scatter", do_scatter },
    { "reduce_scatter_block", do_reduce_scatter_block },
    { "allreduce", do_allreduce }, { "alltoall", do_alltoall },
    { "reduce_scatter", do_reduce_scatter }, { "gatherv", do_gatherv }, { "scatterv", do_scatterv },
    { "allgatherv", do_allgatherv }, { "alltoallv", do_alltoallv }, { "alltoallw", do_alltoallw },
    { "barrier", do_barrier }, { "scan", do_scan }, { "exscan", do_exscan }, { "test", do_test },
    { "bcast_varying", do_bcast_varying }, { "bcast_alternating", do_bcast_alternating },
};
#define NCOLLS ((int)(sizeof colls / sizeof colls[0]))

typedef struct opts { const char *coll; int bytes, per_batch, batches, nb; } opts;

static int parse(int argc, char **argv, opts *o)
{
    *o = (opts){ NULL, 8, 1000, 200, 0 };
    if (argc % 2 == 0) return -1;   /* options come in pairs */
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *v = argv[i + 1];
        if (!strcmp(argv[i], "-c")) o->coll = v;
        else if (!strcmp(argv[i], "-s")) o->bytes = atoi(v);
        else if (!strcmp(argv[i], "-n")) o->per_batch = atoi(v);
        else if (!strcmp(argv[i], "-b")) o->batches = atoi(v);
        else if (!strcmp(argv[i], "-m") && !strcmp(v, "blocking")) o->nb = 0;
        else if (!strcmp(argv[i], "-m") && !strcmp(v, "nb")) o->nb = 1;
        else if (!strcmp(argv[i], "-m") && !strcmp(v, "nbonly")) o->nb = 2;
        else return -1;
    }
    return o->bytes >= 0 && o->per_batch > 0 && o->batches > 1 ? 0 : -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* One batch of `calls` calls; the slowest rank's time per call (us). */
static double batch(call_fn fn, int direct, void *s, void *r, const opts *o, int *err)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < o->per_batch; i++) {
        int rc = fn(direct, s, r, o->bytes, MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS) *err = rc;
    }
    double t = (MPI_Wtime() - t0) / o->per_batch * 1e6, worst = t;
    MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

static int measure(call_fn fn, const char *name, const opts *o, int rank, int size)
{
    size_t big = (size_t)(o->bytes ? o->bytes : 1) * (size_t)size + 64;
    char *s = calloc(big, 1), *r = calloc(big, 1);
    double *via = malloc((size_t)o->batches * sizeof *via), *direct = malloc((size_t)o->batches * sizeof *direct);
    int err = MPI_SUCCESS;
    if (!s || !r || !via || !direct) {
        fprintf(stderr, "topocoll-overhead: out of memory\n");
        return 1;
    }
    batch(fn, 0, s, r, o, &err);   /* warm-up: contexts, schedules, connections */
    batch(fn, 1, s, r, o, &err);
    for (int b = 0; b < o->batches; b++) {   /* alternate which goes first */
        int first = b % 2;
        double t1 = batch(fn, first, s, r, o, &err), t2 = batch(fn, !first, s, r, o, &err);
        via[b] = first ? t2 : t1;
        direct[b] = first ? t1 : t2;
    }
    double mv = median(via, o->batches), md = median(direct, o->batches);
    if (rank == 0)
        printf("%-22s np=%d bytes=%d  MPI_ %.4f us  PMPI_ %.4f us  added %+.4f us  ratio %.3f%s\n",
               name, size, o->bytes, mv, md, mv - md, md > 0 ? mv / md : 0.0,
               err != MPI_SUCCESS ? "  (calls returned errors)" : "");
    free(s); free(r); free(via); free(direct);
    return err != MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    opts o;
    if (parse(argc, argv, &o) != 0) {
        if (rank == 0)
            fprintf(stderr, "usage: topocoll-overhead [-c COLL] [-s BYTES] [-n CALLS] [-b BATCHES] "
                            "[-m blocking|nb|nbonly]\n");
        MPI_Finalize();
        return 2;
    }
    int found = 0;
    if (vec_setup(size, o.bytes) != 0) {
        fprintf(stderr, "topocoll-overhead: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < NCOLLS; i++) {
        if (o.coll && strcmp(o.coll, colls[i].name)) continue;
        if (o.nb && !request_cost_known(colls[i].name)) continue;
        found = 1;
        if (o.nb == 2) bad |= request_cost_nbonly(colls[i].name, o.bytes, o.per_batch, o.batches);
        else if (o.nb) bad |= request_cost_measure(colls[i].name, colls[i].fn, o.bytes, o.per_batch, o.batches);
        else bad |= measure(colls[i].fn, colls[i].name, &o, rank, size);
    }
    if (!found && rank == 0) fprintf(stderr, "topocoll-overhead: unknown collective '%s'\n", o.coll);
    test_done();
    alternating_done();
    MPI_Finalize();
    return !found ? 2 : bad;
}
