/*
 * topocoll-bench, overlap mode: the nonblocking and persistent calls of each
 * collective on the benchmark's problem (every count `bytes / esize`, root 0,
 * MPI_SUM for the reductions; colls.c), and how a request is waited for and
 * tested.
 *
 *   "native"  the MPI library's own: PMPI_I<Mpi>, PMPI_<Mpi>_init (MPI-4
 *             libraries; Open MPI 4's PMPIX_<Mpi>_init), PMPI_Start,
 *             PMPI_Wait, PMPI_Test: no topocoll
 *             code on the path, as an application without topocoll runs.
 *   "auto"    topocoll's selection: topocoll_i<lower>, topocoll_<lower>_init,
 *             topocoll_start.
 *   a name    that catalog entry: topocoll_i<lower>_algorithm(name, ...); the
 *             persistent form has no entry argument, so it is not measured.
 *
 * topocoll's requests are waited for with MPI_Wait and tested with MPI_Test:
 * the interposer's (libtopocoll_pmpi preloaded or linked), which advance
 * topocoll's operations.  Without the interposer topocoll_i<coll> hands the
 * call to the MPI library's own, and the MPI library's wait and test
 * complete it (docs/nonblocking.md).
 *
 * The vector collectives run the regular problem, as the blocking mode does:
 * every count `count`, displacements j count (alltoallw: in bytes, every type
 * the collective's).  The vectors stay unchanged from the start of a call to
 * its completion (and for a persistent request's lifetime) while the size
 * stays; they are made again when the count or the process count changes.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "api/mpi_persistent.h"

static int is_native(const char *algo) { return strcmp(algo, "native") == 0; }
static int is_auto(const char *algo) { return strcmp(algo, BENCH_AUTO) == 0; }

/* The regular problem's vectors (see the header): counts v, displacements d
 * in elements, db in bytes, types ty; 0, or MPI_ERR_NO_MEM. */
typedef struct nb_vectors {
    int *v, *d, *db;
    MPI_Datatype *ty;
} nb_vectors;

static int regular_vectors(MPI_Comm comm, int count, MPI_Datatype t, int esize, nb_vectors *out)
{
    static int *buf, vp = -1, vcount = -1;
    static MPI_Datatype *types, vt = MPI_DATATYPE_NULL;
    int p, rc = MPI_Comm_size(comm, &p);
    if (rc != MPI_SUCCESS)
        return rc;
    if (p != vp || count != vcount || t != vt) {
        int *nb = realloc(buf, 3 * (size_t)p * sizeof *buf);
        if (!nb)
            return MPI_ERR_NO_MEM;
        buf = nb;
        MPI_Datatype *nt = realloc(types, (size_t)p * sizeof *types);
        if (!nt)
            return MPI_ERR_NO_MEM;
        types = nt;
        vp = p, vcount = count, vt = t;
        for (int j = 0; j < p; j++) {
            buf[j] = count, buf[p + j] = j * count, buf[2 * p + j] = j * count * esize;
            types[j] = t;
        }
    }
    out->v = buf, out->d = buf + vp, out->db = buf + 2 * vp, out->ty = types;
    return MPI_SUCCESS;
}

/* The calls of each shape, with the request argument last (I) or the info
 * and request arguments last (P); v, d, db, ty: the regular vectors. */
#define NB_TWO_BUFFERS(F, ...) return F(__VA_ARGS__ sbuf, count, t, rbuf, count, t, comm, req);
#define NB_TWO_BUFFERS_ROOT(F, ...) return F(__VA_ARGS__ sbuf, count, t, rbuf, count, t, 0, comm, req);
#define NB_ONE_BUFFER(F, ...) return F(__VA_ARGS__ rbuf, count, t, 0, comm, req);
#define NB_REDUCTION(F, ...) return F(__VA_ARGS__ sbuf, rbuf, count, t, o, comm, req);
#define NB_REDUCTION_ROOT(F, ...) return F(__VA_ARGS__ sbuf, rbuf, count, t, o, 0, comm, req);
#define NB_NO_BUFFERS(F, ...) return F(__VA_ARGS__ comm, req);
#define NB_VECTORS(F, ...) return F(__VA_ARGS__ sbuf, x.v, x.d, t, rbuf, x.v, x.d, t, comm, req);
#define NB_RECV_VECTORS(F, ...) return F(__VA_ARGS__ sbuf, count, t, rbuf, x.v, x.d, t, comm, req);
#define NB_RECV_VECTORS_ROOT(F, ...) return F(__VA_ARGS__ sbuf, count, t, rbuf, x.v, x.d, t, 0, comm, req);
#define NB_SEND_VECTORS_ROOT(F, ...) return F(__VA_ARGS__ sbuf, x.v, x.d, t, rbuf, count, t, 0, comm, req);
#define NB_REDUCTION_COUNTS(F, ...) return F(__VA_ARGS__ sbuf, rbuf, x.v, t, o, comm, req);
#define NB_TYPE_VECTORS(F, ...) return F(__VA_ARGS__ sbuf, x.v, x.db, x.ty, rbuf, x.v, x.db, x.ty, comm, req);

#define PI_TWO_BUFFERS(F, ...) return F(__VA_ARGS__ sbuf, count, t, rbuf, count, t, comm, info, req);
#define PI_TWO_BUFFERS_ROOT(F, ...) return F(__VA_ARGS__ sbuf, count, t, rbuf, count, t, 0, comm, info, req);
#define PI_ONE_BUFFER(F, ...) return F(__VA_ARGS__ rbuf, count, t, 0, comm, info, req);
#define PI_REDUCTION(F, ...) return F(__VA_ARGS__ sbuf, rbuf, count, t, o, comm, info, req);
#define PI_REDUCTION_ROOT(F, ...) return F(__VA_ARGS__ sbuf, rbuf, count, t, o, 0, comm, info, req);
#define PI_NO_BUFFERS(F, ...) return F(__VA_ARGS__ comm, info, req);
#define PI_VECTORS(F, ...) return F(__VA_ARGS__ sbuf, x.v, x.d, t, rbuf, x.v, x.d, t, comm, info, req);
#define PI_RECV_VECTORS(F, ...) return F(__VA_ARGS__ sbuf, count, t, rbuf, x.v, x.d, t, comm, info, req);
#define PI_RECV_VECTORS_ROOT(F, ...) return F(__VA_ARGS__ sbuf, count, t, rbuf, x.v, x.d, t, 0, comm, info, req);
#define PI_SEND_VECTORS_ROOT(F, ...) return F(__VA_ARGS__ sbuf, x.v, x.d, t, rbuf, count, t, 0, comm, info, req);
#define PI_REDUCTION_COUNTS(F, ...) return F(__VA_ARGS__ sbuf, rbuf, x.v, t, o, comm, info, req);
#define PI_TYPE_VECTORS(F, ...) return F(__VA_ARGS__ sbuf, x.v, x.db, x.ty, rbuf, x.v, x.db, x.ty, comm, info, req);

#define CASE_SUPPORTED(UPPER, lower, Mpi, SHAPE) \
    case TOPOCOLL_##UPPER: return 1;
#define CASE_NATIVE_I(UPPER, lower, Mpi, SHAPE) \
    case TOPOCOLL_##UPPER: NB_##SHAPE(PMPI_I##lower, )
#define CASE_AUTO_I(UPPER, lower, Mpi, SHAPE) \
    case TOPOCOLL_##UPPER: NB_##SHAPE(topocoll_i##lower, )
#define CASE_NAMED_I(UPPER, lower, Mpi, SHAPE) \
    case TOPOCOLL_##UPPER: NB_##SHAPE(topocoll_i##lower##_algorithm, algo,)
#define CASE_AUTO_INIT(UPPER, lower, Mpi, SHAPE) \
    case TOPOCOLL_##UPPER: PI_##SHAPE(topocoll_##lower##_init, )
#define CASE_NAMED_INIT(UPPER, lower, Mpi, SHAPE) \
    case TOPOCOLL_##UPPER: PI_##SHAPE(topocoll_##lower##_init_algorithm, algo, )
#if TC_HAVE_MPI_PERSISTENT
#define CASE_NATIVE_INIT(UPPER, lower, Mpi, SHAPE) \
    case TOPOCOLL_##UPPER: PI_##SHAPE(TC_PMPI_INIT(Mpi), )
#endif

int bench_nb_supported(const bench_coll *bc)
{
    switch (bc->coll) {
        TOPOCOLL_COLLS(CASE_SUPPORTED)
    default: break;
    }
    return 0;
}

int bench_nb_start(const bench_coll *bc, const char *algo, const void *sbuf, void *rbuf,
                   size_t bytes, MPI_Comm comm, MPI_Request *req)
{
    int count = (int)(bytes / (size_t)bc->esize);
    MPI_Datatype t = bench_coll_type(bc);
    MPI_Op o = bench_coll_op(bc);
    nb_vectors x;
    int vrc = regular_vectors(comm, count, t, bc->esize, &x);
    (void)sbuf, (void)rbuf, (void)count, (void)t, (void)o;
    *req = MPI_REQUEST_NULL;
    if (vrc != MPI_SUCCESS)
        return vrc;
    if (is_native(algo)) {
        switch (bc->coll) {
            TOPOCOLL_COLLS(CASE_NATIVE_I)
        default: break;
        }
    } else if (is_auto(algo)) {
        switch (bc->coll) {
            TOPOCOLL_COLLS(CASE_AUTO_I)
        default: break;
        }
    } else {
        switch (bc->coll) {
            TOPOCOLL_COLLS(CASE_NAMED_I)
        default: break;
        }
    }
    return MPI_ERR_UNSUPPORTED_OPERATION;
}

int bench_nb_init(const bench_coll *bc, const char *algo, const void *sbuf, void *rbuf,
                  size_t bytes, MPI_Comm comm, MPI_Request *req, const char **why)
{
    int count = (int)(bytes / (size_t)bc->esize);
    MPI_Datatype t = bench_coll_type(bc);
    MPI_Op o = bench_coll_op(bc);
    MPI_Info info = MPI_INFO_NULL;
    nb_vectors x;
    int vrc = regular_vectors(comm, count, t, bc->esize, &x);
    (void)sbuf, (void)rbuf, (void)count, (void)t, (void)o, (void)info, (void)x;
    *req = MPI_REQUEST_NULL;
    *why = NULL;
    if (vrc != MPI_SUCCESS)
        return vrc;
    if (is_native(algo)) {
#if TC_HAVE_MPI_PERSISTENT
        switch (bc->coll) {
            TOPOCOLL_COLLS(CASE_NATIVE_INIT)
        default: break;
        }
#else
        *why = "the MPI library has no persistent collectives (MPI-3 without Open MPI's MPIX_ extension)";
        return BENCH_NB_NOT_MEASURED;
#endif
    } else if (is_auto(algo)) {
        switch (bc->coll) {
            TOPOCOLL_COLLS(CASE_AUTO_INIT)
        default: break;
        }
    } else {
        switch (bc->coll) {
            TOPOCOLL_COLLS(CASE_NAMED_INIT)
        default: break;
        }
    }
    *why = "no persistent call for this collective";
    return BENCH_NB_NOT_MEASURED;
}

int bench_nb_pstart(const char *algo, MPI_Request *req)
{
    return is_native(algo) ? PMPI_Start(req) : topocoll_start(req);
}

int bench_nb_test(const char *algo, MPI_Request *req, int *done)
{
    if (is_native(algo))
        return PMPI_Test(req, done, MPI_STATUS_IGNORE);
    return MPI_Test(req, done, MPI_STATUS_IGNORE);
}

int bench_nb_wait(const char *algo, MPI_Request *req)
{
    if (is_native(algo))
        return PMPI_Wait(req, MPI_STATUS_IGNORE);
    return MPI_Wait(req, MPI_STATUS_IGNORE);
}

int bench_nb_free(const char *algo, MPI_Request *req)
{
    if (*req == MPI_REQUEST_NULL)
        return MPI_SUCCESS;
    return is_native(algo) ? PMPI_Request_free(req) : MPI_Request_free(req);
}
