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
 * and, where the MPI library defines MPI-4's persistent collectives
 * (MPICH 4; not Open MPI 4.1), two more, each request made once before the
 * batches:
 *   persistent    MPI_Start + MPI_Wait of MPI_<Coll>_init's request
 *                 (through the preload: topocoll's persistent request)
 *   mpi persist   PMPI_Start + PMPI_Wait of PMPI_<Coll>_init's request
 * Each line: the median over batches of the slowest rank's time per call,
 * and its ratio to the first form.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "request_cost.h"

#if MPI_VERSION >= 4
#define HAVE_PERSISTENT 1
#else
#define HAVE_PERSISTENT 0
#endif

enum {
    F_BLOCKING, F_NONBLOCKING, F_BLOCKING_REQ, F_REQUEST, F_MPI_BLOCKING, F_MPI_NONBLOCKING,
    F_PERSISTENT, F_MPI_PERSISTENT, NFORMS_ALL
};
#define NFORMS (HAVE_PERSISTENT ? NFORMS_ALL : F_PERSISTENT)

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

typedef struct nb_call {
    void *s, *r;
    int n;
    MPI_Comm comm;
    MPI_Request persistent[2];   /* through the preload, the MPI library's own */
} nb_call;

/* One call of the collective: blocking or started (*q), through the
 * interposer or the MPI library's own. */
static int coll_call(const char *coll, const nb_call *c, int direct, MPI_Request *q)
{
    int k = c->n / 4 ? c->n / 4 : 1;
    if (!strcmp(coll, "allgather")) {
        if (q) return direct ? PMPI_Iallgather(c->s, c->n, MPI_BYTE, c->r, c->n, MPI_BYTE, c->comm, q)
                             : MPI_Iallgather(c->s, c->n, MPI_BYTE, c->r, c->n, MPI_BYTE, c->comm, q);
        return direct ? PMPI_Allgather(c->s, c->n, MPI_BYTE, c->r, c->n, MPI_BYTE, c->comm)
                      : MPI_Allgather(c->s, c->n, MPI_BYTE, c->r, c->n, MPI_BYTE, c->comm);
    }
    if (!strcmp(coll, "allreduce")) {
        if (q) return direct ? PMPI_Iallreduce(c->s, c->r, k, MPI_INT, MPI_SUM, c->comm, q)
                             : MPI_Iallreduce(c->s, c->r, k, MPI_INT, MPI_SUM, c->comm, q);
        return direct ? PMPI_Allreduce(c->s, c->r, k, MPI_INT, MPI_SUM, c->comm)
                      : MPI_Allreduce(c->s, c->r, k, MPI_INT, MPI_SUM, c->comm);
    }
    if (!strcmp(coll, "bcast")) {
        if (q) return direct ? PMPI_Ibcast(c->s, c->n, MPI_BYTE, 0, c->comm, q)
                             : MPI_Ibcast(c->s, c->n, MPI_BYTE, 0, c->comm, q);
        return direct ? PMPI_Bcast(c->s, c->n, MPI_BYTE, 0, c->comm) : MPI_Bcast(c->s, c->n, MPI_BYTE, 0, c->comm);
    }
    if (!strcmp(coll, "alltoall")) {
        if (q) return direct ? PMPI_Ialltoall(c->s, c->n, MPI_BYTE, c->r, c->n, MPI_BYTE, c->comm, q)
                             : MPI_Ialltoall(c->s, c->n, MPI_BYTE, c->r, c->n, MPI_BYTE, c->comm, q);
        return direct ? PMPI_Alltoall(c->s, c->n, MPI_BYTE, c->r, c->n, MPI_BYTE, c->comm)
                      : MPI_Alltoall(c->s, c->n, MPI_BYTE, c->r, c->n, MPI_BYTE, c->comm);
    }
    /* barrier */
    if (q) return direct ? PMPI_Ibarrier(c->comm, q) : MPI_Ibarrier(c->comm, q);
    return direct ? PMPI_Barrier(c->comm) : MPI_Barrier(c->comm);
}

#if HAVE_PERSISTENT
/* The collective's persistent request (direct: the MPI library's own). */
static int persistent_init(const char *coll, const nb_call *c, int direct, MPI_Request *q)
{
    int k = c->n / 4 ? c->n / 4 : 1;
    MPI_Info i = MPI_INFO_NULL;
    if (!strcmp(coll, "allgather"))
        return direct ? PMPI_Allgather_init(c->s, c->n, MPI_BYTE, c->r, c->n, MPI_BYTE, c->comm, i, q)
                      : MPI_Allgather_init(c->s, c->n, MPI_BYTE, c->r, c->n, MPI_BYTE, c->comm, i, q);
    if (!strcmp(coll, "allreduce"))
        return direct ? PMPI_Allreduce_init(c->s, c->r, k, MPI_INT, MPI_SUM, c->comm, i, q)
                      : MPI_Allreduce_init(c->s, c->r, k, MPI_INT, MPI_SUM, c->comm, i, q);
    if (!strcmp(coll, "bcast"))
        return direct ? PMPI_Bcast_init(c->s, c->n, MPI_BYTE, 0, c->comm, i, q)
                      : MPI_Bcast_init(c->s, c->n, MPI_BYTE, 0, c->comm, i, q);
    if (!strcmp(coll, "alltoall"))
        return direct ? PMPI_Alltoall_init(c->s, c->n, MPI_BYTE, c->r, c->n, MPI_BYTE, c->comm, i, q)
                      : MPI_Alltoall_init(c->s, c->n, MPI_BYTE, c->r, c->n, MPI_BYTE, c->comm, i, q);
    return direct ? PMPI_Barrier_init(c->comm, i, q) : MPI_Barrier_init(c->comm, i, q);
}
#endif

/* The persistent requests of both forms, or none (MPI-3). */
static int persistent_make(const char *coll, nb_call *c)
{
    c->persistent[0] = c->persistent[1] = MPI_REQUEST_NULL;
#if HAVE_PERSISTENT
    int rc = persistent_init(coll, c, 0, &c->persistent[0]);
    return rc == MPI_SUCCESS ? persistent_init(coll, c, 1, &c->persistent[1]) : rc;
#else
    (void)coll;
    return MPI_SUCCESS;
#endif
}

static void persistent_free(nb_call *c)
{
    if (c->persistent[0] != MPI_REQUEST_NULL) MPI_Request_free(&c->persistent[0]);
    if (c->persistent[1] != MPI_REQUEST_NULL) PMPI_Request_free(&c->persistent[1]);
}

static int one_form(const char *coll, nb_call *c, int form)
{
    MPI_Request q;
    int rc;
    switch (form) {
    case F_BLOCKING: return coll_call(coll, c, 0, NULL);
    case F_MPI_BLOCKING: return coll_call(coll, c, 1, NULL);
    case F_NONBLOCKING:
        if ((rc = coll_call(coll, c, 0, &q)) != MPI_SUCCESS) return rc;
        return MPI_Wait(&q, MPI_STATUS_IGNORE);
    case F_MPI_NONBLOCKING:
        if ((rc = coll_call(coll, c, 1, &q)) != MPI_SUCCESS) return rc;
        return PMPI_Wait(&q, MPI_STATUS_IGNORE);
    case F_BLOCKING_REQ:
        if ((rc = coll_call(coll, c, 0, NULL)) != MPI_SUCCESS) return rc;
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
static double form_batch(const char *coll, nb_call *c, int form, int calls, int *err)
{
    MPI_Barrier(c->comm);
    double t0 = MPI_Wtime();
    for (int i = 0; i < calls; i++) {
        int rc = one_form(coll, c, form);
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

int request_cost_known(const char *coll)
{
    static const char *const known[] = { "allgather", "allreduce", "bcast", "alltoall", "barrier" };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!strcmp(coll, known[i])) return 1;
    return 0;
}

int request_cost_measure(const char *coll, int bytes, int calls, int batches)
{
    int rank, size, err = MPI_SUCCESS;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t big = (size_t)(bytes ? bytes : 1) * (size_t)size + 64;
    nb_call c = { calloc(big, 1), calloc(big, 1), bytes, MPI_COMM_WORLD, { MPI_REQUEST_NULL, MPI_REQUEST_NULL } };
    double *t = malloc((size_t)batches * NFORMS * sizeof *t);
    if (!c.s || !c.r || !t) {
        fprintf(stderr, "topocoll-overhead: out of memory\n");
        free(c.s); free(c.r); free(t);
        return 1;
    }
    if ((err = persistent_make(coll, &c)) != MPI_SUCCESS) {
        fprintf(stderr, "topocoll-overhead: %s: the persistent request could not be made\n", coll);
        persistent_free(&c);
        free(c.s); free(c.r); free(t);
        return 1;
    }
    for (int f = 0; f < NFORMS; f++) form_batch(coll, &c, f, calls, &err);   /* warm-up */
    for (int b = 0; b < batches; b++)
        for (int k = 0; k < NFORMS; k++) {
            int f = (k + b) % NFORMS;
            t[f * batches + b] = form_batch(coll, &c, f, calls, &err);
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
