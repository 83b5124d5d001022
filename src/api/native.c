/*
 * The MPI library's own collective for a call (see call.h), one function
 * per descriptor row, with the user's arguments as given (a count of a
 * zero-size datatype excepted, below).
 */
#include <stdlib.h>

#include "api/call.h"

typedef int (*native_fn)(const tc_call *c);

static int native_allgather(const tc_call *c)
{
    return PMPI_Allgather(c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype, c->comm);
}

static int native_bcast(const tc_call *c) { return PMPI_Bcast(c->rbuf, c->rcount, c->rtype, c->root, c->comm); }

static int native_scatter(const tc_call *c)
{
    return PMPI_Scatter(c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype, c->root, c->comm);
}

static int native_gather(const tc_call *c)
{
    return PMPI_Gather(c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype, c->root, c->comm);
}

static int native_reduce(const tc_call *c)
{
    return PMPI_Reduce(c->sbuf, c->rbuf, c->rcount, c->stype, c->op, c->root, c->comm);
}

static int native_reduce_scatter_block(const tc_call *c)
{
    return PMPI_Reduce_scatter_block(c->sbuf, c->rbuf, c->rcount, c->rtype, c->op, c->comm);
}

static int native_alltoallv(const tc_call *c)
{
    return PMPI_Alltoallv(c->sbuf, c->vcnt[0], c->vdispl[0], c->stype, c->rbuf, c->vcnt[1], c->vdispl[1],
                          c->rtype, c->comm);
}

static int native_alltoall(const tc_call *c)
{
    return PMPI_Alltoall(c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype, c->comm);
}

/* On one rank, MPICH 4.0's MPI_Allgatherv writes the block at offset 0
 * whatever displs[0] says: the copy is done here instead. */
static int native_allgatherv(const tc_call *c)
{
    if (c->size == 1) {
        MPI_Aint lb = 0, ext = 0;
        int rc = PMPI_Type_get_extent(c->rtype, &lb, &ext);
        if (rc != MPI_SUCCESS || c->in_place || c->vcnt[1][0] == 0) return rc;
        return PMPI_Sendrecv(c->sbuf, c->scount, c->stype, 0, 0, (char *)c->rbuf + (MPI_Aint)c->vdispl[1][0] * ext,
                             c->vcnt[1][0], c->rtype, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    }
    return PMPI_Allgatherv(c->sbuf, c->scount, c->stype, c->rbuf, c->vcnt[1], c->vdispl[1], c->rtype,
                           c->comm);
}

static int native_allreduce(const tc_call *c)
{
    return PMPI_Allreduce(c->sbuf, c->rbuf, c->rcount, c->rtype, c->op, c->comm);
}

static int native_scan(const tc_call *c)
{
    return PMPI_Scan(c->sbuf, c->rbuf, c->rcount, c->rtype, c->op, c->comm);
}

static int native_exscan(const tc_call *c)
{
    return PMPI_Exscan(c->sbuf, c->rbuf, c->rcount, c->rtype, c->op, c->comm);
}

static const native_fn natives[TOPOCOLL_NCOLL] = {
    [TOPOCOLL_ALLGATHER] = native_allgather,
    [TOPOCOLL_BCAST] = native_bcast,
    [TOPOCOLL_SCATTER] = native_scatter,
    [TOPOCOLL_GATHER] = native_gather,
    [TOPOCOLL_REDUCE] = native_reduce,
    [TOPOCOLL_REDUCE_SCATTER_BLOCK] = native_reduce_scatter_block,
    [TOPOCOLL_ALLTOALL] = native_alltoall,
    [TOPOCOLL_ALLTOALLV] = native_alltoallv,
    [TOPOCOLL_ALLREDUCE] = native_allreduce,
    [TOPOCOLL_ALLGATHERV] = native_allgatherv,
    [TOPOCOLL_SCAN] = native_scan,
    [TOPOCOLL_EXSCAN] = native_exscan,
};

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
    native_fn f = natives[c->d->coll];
    if (!f) return MPI_ERR_INTERN;
    if (zero_size_data(c, TC_BUF_SEND) || zero_size_data(c, TC_BUF_RECV)) return run_native_empty(c, f);
    return f(c);
}
