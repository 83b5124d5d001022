/*
 * The MPI library's own collective for a call (see call.h), one function
 * per row of the list (include/topocoll_colls.h), made from its shape,
 * with the user's arguments as given (a count of a zero-size datatype
 * excepted, below).
 */
#include <stdlib.h>

#include "api/call.h"
#include "api/mpi_persistent.h"

typedef int (*native_fn)(const tc_call *c);

/* The MPI library's function's arguments from the record, per shape of the
 * list (include/topocoll_colls.h; the records: collectives.c's rec_<SHAPE>). */
#define NATIVE_TWO_BUFFERS c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype, c->comm
#define NATIVE_TWO_BUFFERS_ROOT c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype, c->root, c->comm
#define NATIVE_ONE_BUFFER c->rbuf, c->rcount, c->rtype, c->root, c->comm
#define NATIVE_REDUCTION c->sbuf, c->rbuf, c->rcount, c->rtype, c->op, c->comm
#define NATIVE_REDUCTION_ROOT c->sbuf, c->rbuf, c->rcount, c->rtype, c->op, c->root, c->comm
#define NATIVE_VECTORS                                                                             \
    c->sbuf, c->vcnt[0], c->vdispl[0], c->stype, c->rbuf, c->vcnt[1], c->vdispl[1], c->rtype, c->comm
#define NATIVE_RECV_VECTORS c->sbuf, c->scount, c->stype, c->rbuf, c->vcnt[1], c->vdispl[1], c->rtype, c->comm
#define NATIVE_RECV_VECTORS_ROOT                                                                   \
    c->sbuf, c->scount, c->stype, c->rbuf, c->vcnt[1], c->vdispl[1], c->rtype, c->root, c->comm
#define NATIVE_SEND_VECTORS_ROOT                                                                   \
    c->sbuf, c->vcnt[0], c->vdispl[0], c->stype, c->rbuf, c->rcount, c->rtype, c->root, c->comm
#define NATIVE_REDUCTION_COUNTS c->sbuf, c->rbuf, c->vcnt[1], c->rtype, c->op, c->comm
#define NATIVE_TYPE_VECTORS                                                                        \
    c->sbuf, c->vcnt[0], c->vdispl[0], c->vtype[0], c->rbuf, c->vcnt[1], c->vdispl[1], c->vtype[1], c->comm
#define NATIVE_NO_BUFFERS c->comm

#define NATIVE_FN(UPPER, lower, Mpi, SHAPE) \
    static int native_##lower(const tc_call *c) { return PMPI_##Mpi(NATIVE_##SHAPE); }
TOPOCOLL_COLLS(NATIVE_FN)

#define NATIVE_ROW(UPPER, lower, Mpi, SHAPE) [TOPOCOLL_##UPPER] = native_##lower,
static const native_fn natives[TOPOCOLL_NCOLL] = { TOPOCOLL_COLLS(NATIVE_ROW) };

/* On one rank, MPICH 4.0's MPI_Allgatherv writes the block at offset 0
 * whatever displs[0] says: the copy is done here instead. */
static int native_allgatherv_one_rank(const tc_call *c)
{
    MPI_Aint lb = 0, ext = 0;
    int rc = PMPI_Type_get_extent(c->rtype, &lb, &ext);
    if (rc != MPI_SUCCESS || c->in_place || c->vcnt[1][0] == 0) return rc;
    return PMPI_Sendrecv(c->sbuf, c->scount, c->stype, 0, 0, (char *)c->rbuf + (MPI_Aint)c->vdispl[1][0] * ext,
                         c->vcnt[1][0], c->rtype, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
}

/* A significant argument whose datatype has size 0 and a count that is not
 * (c->scount / rcount: the largest per-peer count where counts are per peer). */
static int zero_size_data(const tc_call *c, int b)
{
    return c->use[b] && c->tsize[b] == 0 && tc_call_count(c, b) > 0;
}

/* The MPI library's own collective with every count of a zero-size datatype
 * made 0 (the same empty signature): Open MPI 4.1 and MPICH 4.0 hang in
 * MPI_Allgather, MPI_Gather and MPI_Allgatherv (MPICH also MPI_Alltoall)
 * when one rank says count 1 of a zero-size type and its peer count 0. */
static int run_native_empty(const tc_call *c, native_fn f)
{
    tc_call e = *c;
    int *zeros = NULL, rc;
    if (c->d->vcounts && !(zeros = calloc((size_t)c->size, sizeof *zeros))) return MPI_ERR_NO_MEM;
    for (int b = TC_BUF_SEND; b <= TC_BUF_RECV; b++) {
        if (!zero_size_data(c, b)) continue;
        if (b == TC_BUF_SEND) e.scount = 0;
        else e.rcount = 0;
        if (c->d->vcounts && (b == TC_BUF_RECV || !c->d->vblock)) e.vcnt[b] = zeros;
    }
    rc = f(&e);
    free(zeros);
    return rc;
}

int tc_run_native(const tc_call *c)
{
    native_fn f = c->d->coll == TOPOCOLL_ALLGATHERV && c->size == 1 ? native_allgatherv_one_rank
                                                                      : natives[c->d->coll];
    if (!f) return MPI_ERR_INTERN;
    if (zero_size_data(c, TC_BUF_SEND) || zero_size_data(c, TC_BUF_RECV)) return run_native_empty(c, f);
    return f(c);
}

/* ---- nonblocking and persistent ------------------------------------------- */

typedef int (*native_nb_fn)(const tc_call *c, MPI_Info info, MPI_Request *req);

#if TC_HAVE_MPI_PERSISTENT
#define NATIVE_INIT(Mpi, SHAPE) TC_PMPI_INIT(Mpi)(NATIVE_##SHAPE, info, req)
#else
#define NATIVE_INIT(Mpi, SHAPE) ((void)c, MPI_ERR_UNSUPPORTED_OPERATION)
#endif

#define NATIVE_NB_FN(UPPER, lower, Mpi, SHAPE)                                                     \
    static int native_i##lower(const tc_call *c, MPI_Info info, MPI_Request *req)                  \
    {                                                                                              \
        (void)info;                                                                                \
        return PMPI_I##lower(NATIVE_##SHAPE, req);                                                 \
    }                                                                                              \
    static int native_##lower##_init(const tc_call *c, MPI_Info info, MPI_Request *req)            \
    {                                                                                              \
        (void)info;                                                                                \
        (void)req;                                                                                 \
        return NATIVE_INIT(Mpi, SHAPE);                                                            \
    }
TOPOCOLL_COLLS(NATIVE_NB_FN)

#define NATIVE_NB_ROW(UPPER, lower, Mpi, SHAPE) [TOPOCOLL_##UPPER] = native_i##lower,
#define NATIVE_INIT_ROW(UPPER, lower, Mpi, SHAPE) [TOPOCOLL_##UPPER] = native_##lower##_init,
static const native_nb_fn natives_nb[TOPOCOLL_NCOLL] = { TOPOCOLL_COLLS(NATIVE_NB_ROW) };
static const native_nb_fn natives_init[TOPOCOLL_NCOLL] = { TOPOCOLL_COLLS(NATIVE_INIT_ROW) };

int tc_run_native_nb(const tc_call *c, int persistent, MPI_Info info, MPI_Request *req)
{
    return (persistent ? natives_init : natives_nb)[c->d->coll](c, info, req);
}
