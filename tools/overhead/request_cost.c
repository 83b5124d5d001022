/*
 * topocoll-overhead -m nb: what a nonblocking call costs beyond the blocking
 * one, against the least any library layered on MPI-3 can add.
 *
 * A library above MPI (topocoll, or any PMPI tool) hands the caller a real
 * MPI_Request for its own operation only through MPI's generalized requests:
 * MPI_Grequest_start at the call, MPI_Grequest_complete when the operation
 * ends and the caller's MPI_Wait.  That round trip is the floor a layered
 * nonblocking call pays on top of its communication; the MPI library's own
 * nonblocking collectives pay their schedule's machinery instead.
 *
 * Per collective (allgather, allreduce, bcast, alltoall, barrier), six
 * forms of one call, in batches whose order rotates so that the machine's
 * noise hits all alike:
 *   blocking      MPI_<Coll> (through the preload: topocoll's blocking call)
 *   nonblocking   MPI_I<coll> + MPI_Wait (topocoll's nonblocking call)
 *   blocking+req  MPI_<Coll>, then a generalized request started, completed
 *                 and waited: the floor of a layered nonblocking call
 *   request       the generalized request's round trip alone
 *   mpi blocking  PMPI_<Coll> (the MPI library's own)
 *   mpi nonblock  PMPI_I<coll> + PMPI_Wait (the MPI library's own)
 * and, where the MPI library has persistent collectives (MPI-4's
 * MPI_<Coll>_init: MPICH 4; Open MPI 4's extension MPIX_<Coll>_init), two
 * more, each request made once before the batches:
 *   persistent    MPI_Start + MPI_Wait of MPI(X)_<Coll>_init's request
 *                 (through the preload: topocoll's persistent request)
 *   mpi persist   PMPI_Start + PMPI_Wait of PMPI(X)_<Coll>_init's request
 * Each line: the median over batches of the slowest rank's time per call,
 * and its ratio to the first form.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/mpi_persistent.h"
#include "request_cost.h"


enum {
    F_BLOCKING, F_NONBLOCKING, F_BLOCKING_REQ, F_REQUEST, F_MPI_BLOCKING, F_MPI_NONBLOCKING,
    F_PERSISTENT, F_MPI_PERSISTENT, NFORMS_ALL
};
#define NFORMS (TC_HAVE_MPI_PERSISTENT ? NFORMS_ALL : F_PERSISTENT)

static const char *const form_name[NFORMS_ALL] = {
    "blocking", "nonblocking", "blocking+req", "request", "mpi blocking", "mpi nonblock",
    "persistent", "mpi persist",
};

/* The generalized request's callbacks: an empty status, nothing to free. */
static int query_fn(void *extra, MPI_Status *st)
{
    (void)extra;
    MPI_Status_set_elements(st, MPI_BYTE, 0);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}
static int free_fn(void *extra) { (void)extra; return MPI_SUCCESS; }
static int cancel_fn(void *extra, int complete) { (void)extra; (void)complete; return MPI_SUCCESS; }

static int request_round_trip(void)
{
    MPI_Request q;
    int rc = PMPI_Grequest_start(query_fn, free_fn, cancel_fn, NULL, &q);
    if (rc == MPI_SUCCESS) rc = PMPI_Grequest_complete(q);
    if (rc == MPI_SUCCESS) rc = PMPI_Wait(&q, MPI_STATUS_IGNORE);
    return rc;
}

/* A started call (direct: the MPI library's own) and, with MPI-4, a
 * persistent request's init, over the same buffers as the blocking
 * overhead_call_fn of topocoll-overhead.c. */
typedef int (*start_fn)(int direct, void *s, void *r, int n, MPI_Comm comm, MPI_Request *q);

static int int_count(int n) { return n / 4 ? n / 4 : 1; }

static int start_allgather(int direct, void *s, void *r, int n, MPI_Comm comm, MPI_Request *q)
{
    return direct ? PMPI_Iallgather(s, n, MPI_BYTE, r, n, MPI_BYTE, comm, q)
                  : MPI_Iallgather(s, n, MPI_BYTE, r, n, MPI_BYTE, comm, q);
}
static int start_allreduce(int direct, void *s, void *r, int n, MPI_Comm comm, MPI_Request *q)
{
    return direct ? PMPI_Iallreduce(s, r, int_count(n), MPI_INT, MPI_SUM, comm, q)
                  : MPI_Iallreduce(s, r, int_count(n), MPI_INT, MPI_SUM, comm, q);
}
static int start_bcast(int direct, void *s, void *r, int n, MPI_Comm comm, MPI_Request *q)
{
    (void)r;
    return direct ? PMPI_Ibcast(s, n, MPI_BYTE, 0, comm, q) : MPI_Ibcast(s, n, MPI_BYTE, 0, comm, q);
}
static int start_alltoall(int direct, void *s, void *r, int n, MPI_Comm comm, MPI_Request *q)
{
    return direct ? PMPI_Ialltoall(s, n, MPI_BYTE, r, n, MPI_BYTE, comm, q)
                  : MPI_Ialltoall(s, n, MPI_BYTE, r, n, MPI_BYTE, comm, q);
}
static int start_barrier(int direct, void *s, void *r, int n, MPI_Comm comm, MPI_Request *q)
{
    (void)s, (void)r, (void)n;
    return direct ? PMPI_Ibarrier(comm, q) : MPI_Ibarrier(comm, q);
}

#if TC_HAVE_MPI_PERSISTENT
static int init_allgather(int direct, void *s, void *r, int n, MPI_Comm comm, MPI_Request *q)
{
    return direct ? TC_PMPI_INIT(Allgather)(s, n, MPI_BYTE, r, n, MPI_BYTE, comm, MPI_INFO_NULL, q)
                  : TC_MPI_INIT(Allgather)(s, n, MPI_BYTE, r, n, MPI_BYTE, comm, MPI_INFO_NULL, q);
}
static int init_allreduce(int direct, void *s, void *r, int n, MPI_Comm comm, MPI_Request *q)
{
    return direct ? TC_PMPI_INIT(Allreduce)(s, r, int_count(n), MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, q)
                  : TC_MPI_INIT(Allreduce)(s, r, int_count(n), MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, q);
}
static int init_bcast(int direct, void *s, void *r, int n, MPI_Comm comm, MPI_Request *q)
{
    (void)r;
    return direct ? TC_PMPI_INIT(Bcast)(s, n, MPI_BYTE, 0, comm, MPI_INFO_NULL, q)
                  : TC_MPI_INIT(Bcast)(s, n, MPI_BYTE, 0, comm, MPI_INFO_NULL, q);
}
static int init_alltoall(int direct, void *s, void *r, int n, MPI_Comm comm, MPI_Request *q)
{
    return direct ? TC_PMPI_INIT(Alltoall)(s, n, MPI_BYTE, r, n, MPI_BYTE, comm, MPI_INFO_NULL, q)
                  : TC_MPI_INIT(Alltoall)(s, n, MPI_BYTE, r, n, MPI_BYTE, comm, MPI_INFO_NULL, q);
}
static int init_barrier(int direct, void *s, void *r, int n, MPI_Comm comm, MPI_Request *q)
{
    (void)s, (void)r, (void)n;
    return direct ? TC_PMPI_INIT(Barrier)(comm, MPI_INFO_NULL, q) : TC_MPI_INIT(Barrier)(comm, MPI_INFO_NULL, q);
}
#define INIT(f) f
#else
#define INIT(f) NULL
#endif

/* The collectives -m nb measures. */
static const struct nb_coll { const char *name; start_fn start, init; } nb_colls[] = {
    { "allgather", start_allgather, INIT(init_allgather) },
    { "allreduce", start_allreduce, INIT(init_allreduce) },
    { "bcast", start_bcast, INIT(init_bcast) },
    { "alltoall", start_alltoall, INIT(init_alltoall) },
    { "barrier", start_barrier, INIT(init_barrier) },
};

static const struct nb_coll *nb_coll_of(const char *coll)
{
    for (size_t i = 0; i < sizeof nb_colls / sizeof nb_colls[0]; i++)
        if (!strcmp(coll, nb_colls[i].name)) return &nb_colls[i];
    return NULL;
}

/* The measured call: its collective resolved once, its buffers, and the
 * persistent requests (through the preload, the MPI library's own). */
typedef struct nb_call {
    overhead_call_fn blocking;
    start_fn start;
    void *s, *r;
    int n;
    MPI_Comm comm;
    MPI_Request persistent[2];
} nb_call;

static int call_blocking(const nb_call *c, int direct) { return c->blocking(direct, c->s, c->r, c->n, c->comm); }

/* The persistent requests of both forms, or none (MPI-3: init NULL). */
static int persistent_make(const struct nb_coll *k, nb_call *c)
{
    c->persistent[0] = c->persistent[1] = MPI_REQUEST_NULL;
    if (!k->init) return MPI_SUCCESS;
    int rc = k->init(0, c->s, c->r, c->n, c->comm, &c->persistent[0]);
    return rc == MPI_SUCCESS ? k->init(1, c->s, c->r, c->n, c->comm, &c->persistent[1]) : rc;
}

static void persistent_free(nb_call *c)
{
    if (c->persistent[0] != MPI_REQUEST_NULL) MPI_Request_free(&c->persistent[0]);
    if (c->persistent[1] != MPI_REQUEST_NULL) PMPI_Request_free(&c->persistent[1]);
}

static int one_form(nb_call *c, int form)
{
    MPI_Request q;
    int rc;
    switch (form) {
    case F_BLOCKING: return call_blocking(c, 0);
    case F_MPI_BLOCKING: return call_blocking(c, 1);
    case F_NONBLOCKING:
        if ((rc = c->start(0, c->s, c->r, c->n, c->comm, &q)) != MPI_SUCCESS) return rc;
        return MPI_Wait(&q, MPI_STATUS_IGNORE);
    case F_MPI_NONBLOCKING:
        if ((rc = c->start(1, c->s, c->r, c->n, c->comm, &q)) != MPI_SUCCESS) return rc;
        return PMPI_Wait(&q, MPI_STATUS_IGNORE);
    case F_BLOCKING_REQ:
        if ((rc = call_blocking(c, 0)) != MPI_SUCCESS) return rc;
        return request_round_trip();
    case F_PERSISTENT:
        if ((rc = MPI_Start(&c->persistent[0])) != MPI_SUCCESS) return rc;
        return MPI_Wait(&c->persistent[0], MPI_STATUS_IGNORE);
    case F_MPI_PERSISTENT:
        if ((rc = PMPI_Start(&c->persistent[1])) != MPI_SUCCESS) return rc;
        return PMPI_Wait(&c->persistent[1], MPI_STATUS_IGNORE);
    default: return request_round_trip();
    }
}

/* One batch of one form; the slowest rank's time per call (us). */
static double form_batch(nb_call *c, int form, int calls, int *err)
{
    MPI_Barrier(c->comm);
    double t0 = MPI_Wtime();
    for (int i = 0; i < calls; i++) {
        int rc = one_form(c, form);
        if (rc != MPI_SUCCESS) *err = rc;
    }
    double t = (MPI_Wtime() - t0) / calls * 1e6, worst = t;
    MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, c->comm);
    return worst;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int request_cost_known(const char *coll) { return nb_coll_of(coll) != NULL; }

/* The measured call of coll on MPI_COMM_WORLD with its buffers, and room
 * for `times` timings in *t; 1 where coll is unknown or memory ran out. */
static int call_open(const char *coll, overhead_call_fn blocking, int bytes, size_t times, nb_call *c, double **t,
                     int *rank, int *size)
{
    const struct nb_coll *k = nb_coll_of(coll);
    if (!k) return 1;
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    size_t big = (size_t)(bytes ? bytes : 1) * (size_t)*size + 64;
    *c = (nb_call){ blocking, k->start, calloc(big, 1), calloc(big, 1), bytes, MPI_COMM_WORLD,
                    { MPI_REQUEST_NULL, MPI_REQUEST_NULL } };
    *t = malloc(times * sizeof **t);
    if (c->s && c->r && *t) return 0;
    fprintf(stderr, "topocoll-overhead: out of memory\n");
    free(c->s); free(c->r); free(*t);
    return 1;
}

int request_cost_measure(const char *coll, overhead_call_fn blocking, int bytes, int calls, int batches)
{
    int rank, size, err = MPI_SUCCESS;
    const struct nb_coll *k = nb_coll_of(coll);
    nb_call c;
    double *t;
    if (!k || call_open(coll, blocking, bytes, (size_t)batches * NFORMS, &c, &t, &rank, &size)) return 1;
    if ((err = persistent_make(k, &c)) != MPI_SUCCESS) {
        fprintf(stderr, "topocoll-overhead: %s: the persistent request could not be made\n", coll);
        persistent_free(&c);
        free(c.s); free(c.r); free(t);
        return 1;
    }
    for (int f = 0; f < NFORMS; f++) form_batch(&c, f, calls, &err);   /* warm-up */
    for (int b = 0; b < batches; b++)
        for (int j = 0; j < NFORMS; j++) {
            int f = (j + b) % NFORMS;
            t[f * batches + b] = form_batch(&c, f, calls, &err);
        }
    if (rank == 0) {
        double med[NFORMS];
        for (int f = 0; f < NFORMS; f++) {
            double *v = t + (size_t)f * batches;
            qsort(v, (size_t)batches, sizeof *v, cmp_double);
            med[f] = v[batches / 2];
        }
        printf("%s np=%d bytes=%d, %d batches of %d calls: median us per call (q25-q75), / blocking%s\n", coll, size,
               bytes, batches, calls, err != MPI_SUCCESS ? "  (calls returned errors)" : "");
        for (int f = 0; f < NFORMS; f++) {
            const double *v = t + (size_t)f * batches;
            printf("  %-13s %8.4f (%.4f-%.4f)  %.2f\n", form_name[f], med[f], v[batches / 4],
                   v[(3 * batches) / 4], med[F_BLOCKING] > 0 ? med[f] / med[F_BLOCKING] : 0.0);
        }
    }
    persistent_free(&c);
    free(c.s); free(c.r); free(t);
    return err != MPI_SUCCESS;
}

/* -m nbonly: one batch of the nonblocking call alone (direct: the MPI
 * library's own), started and waited for back to back; the batches are
 * separated and their times gathered through PMPI, so that no blocking
 * collective reaches topocoll.  The slowest rank's time per call (us). */
static double nbonly_batch(const nb_call *c, int direct, int calls, int *err)
{
    PMPI_Barrier(c->comm);
    double t0 = MPI_Wtime();
    for (int i = 0; i < calls; i++) {
        MPI_Request q;
        int rc = c->start(direct, c->s, c->r, c->n, c->comm, &q);
        if (rc == MPI_SUCCESS) rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) *err = rc;
    }
    double t = (MPI_Wtime() - t0) / calls * 1e6, worst = t;
    PMPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, c->comm);
    return worst;
}

int request_cost_nbonly(const char *coll, int bytes, int calls, int batches)
{
    int rank, size, err = MPI_SUCCESS;
    nb_call c;
    double *t;
    if (call_open(coll, NULL, bytes, 2 * (size_t)batches, &c, &t, &rank, &size)) return 1;
    for (int d = 0; d < 2; d++) nbonly_batch(&c, d, calls, &err);   /* warm-up */
    for (int b = 0; b < batches; b++)
        for (int j = 0; j < 2; j++) {
            int d = (j + b) % 2;
            t[d * batches + b] = nbonly_batch(&c, d, calls, &err);
        }
    if (rank == 0) {
        double med[2];
        for (int d = 0; d < 2; d++) {
            qsort(t + (size_t)d * batches, (size_t)batches, sizeof *t, cmp_double);
            med[d] = t[(size_t)d * batches + batches / 2];
        }
        printf("%-10s np=%d bytes=%-6d MPI_I %8.4f us  PMPI_I %8.4f us  ratio %.2f%s\n", coll, size, bytes, med[0],
               med[1], med[1] > 0 ? med[0] / med[1] : 0.0, err != MPI_SUCCESS ? "  (calls returned errors)" : "");
    }
    free(c.s); free(c.r); free(t);
    return err != MPI_SUCCESS;
}
