/*
 * topocoll_allgather, _bcast, _scatter, _gather, _reduce,
 * _reduce_scatter_block and their _algorithm variants: one call description, argument checks per
 * collective (only what MPI says is significant on each rank), the buffer
 * conventions of src/algo/catalog.h, selection and the executor.
 */
#include <string.h>

#include "topocoll.h"
#include "api/context.h"
#include "api/explain.h"
#include "api/error.h"

typedef struct call {
    topocoll_coll coll;
    const char *fn;
    const void *sbuf;
    int scount;             /* reduce_scatter_block: one block (make_args: p blocks) */
    MPI_Datatype stype;
    void *rbuf;
    int rcount;
    MPI_Datatype rtype;
    MPI_Op op;
    int root;
    MPI_Comm comm;
    int rank, size;
} call;

/* What is significant on this rank (MPI's rules). */
static int uses_send(const call *c)
{
    switch (c->coll) {
    case TOPOCOLL_BCAST: return 0;
    case TOPOCOLL_SCATTER: return c->rank == c->root;
    case TOPOCOLL_GATHER: case TOPOCOLL_REDUCE:
        return !(c->rank == c->root && c->sbuf == MPI_IN_PLACE);
    default: return c->sbuf != MPI_IN_PLACE;
    }
}

static int uses_recv(const call *c)
{
    switch (c->coll) {
    case TOPOCOLL_SCATTER: return !(c->rank == c->root && c->rbuf == MPI_IN_PLACE);
    case TOPOCOLL_GATHER: case TOPOCOLL_REDUCE: return c->rank == c->root;
    default: return 1;
    }
}

static int in_place(const call *c)
{
    switch (c->coll) {
    case TOPOCOLL_ALLGATHER: return c->sbuf == MPI_IN_PLACE;
    case TOPOCOLL_SCATTER: return c->rank == c->root && c->rbuf == MPI_IN_PLACE;
    case TOPOCOLL_GATHER: case TOPOCOLL_REDUCE: return c->rank == c->root && c->sbuf == MPI_IN_PLACE;
    case TOPOCOLL_REDUCE_SCATTER_BLOCK: return c->sbuf == MPI_IN_PLACE;
    default: return 0;
    }
}

static int is_reduction(const call *c)
{
    return c->coll == TOPOCOLL_REDUCE || c->coll == TOPOCOLL_REDUCE_SCATTER_BLOCK;
}

static int check_buffer(const call *c, const void *buf, int count, MPI_Datatype type, const char *what)
{
    int size = 0;
    MPI_Aint lb = 0, ext = 0;
    if (count < 0) return tc_raise(c->comm, MPI_ERR_COUNT, "%s: negative %scount %d", c->fn, what, count);
    if (type == MPI_DATATYPE_NULL)
        return tc_raise(c->comm, MPI_ERR_TYPE, "%s: %stype is MPI_DATATYPE_NULL", c->fn, what);
    if (PMPI_Type_size(type, &size) != MPI_SUCCESS)
        return tc_raise(c->comm, MPI_ERR_TYPE, "%s: invalid %stype", c->fn, what);
    if (buf == MPI_IN_PLACE)
        return tc_raise(c->comm, MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is not allowed as %sbuf here", c->fn, what);
    if (!buf && count > 0 && size > 0 &&
        !(PMPI_Type_get_true_extent(type, &lb, &ext) == MPI_SUCCESS && lb != 0))
        return tc_raise(c->comm, MPI_ERR_BUFFER, "%s: %sbuf is NULL with %scount %d", c->fn, what, what, count);
    return MPI_SUCCESS;
}

static int check_args(call *c)
{
    int inter = 0, rc;
    if (c->comm == MPI_COMM_NULL) return tc_raise(c->comm, MPI_ERR_COMM, "%s: MPI_COMM_NULL", c->fn);
    if (PMPI_Comm_test_inter(c->comm, &inter) != MPI_SUCCESS)
        return tc_raise(MPI_COMM_NULL, MPI_ERR_COMM, "%s: invalid communicator", c->fn);
    if (inter) return tc_raise(c->comm, MPI_ERR_COMM, "%s: inter-communicators are not supported", c->fn);
    PMPI_Comm_rank(c->comm, &c->rank);
    PMPI_Comm_size(c->comm, &c->size);
    if (c->coll != TOPOCOLL_REDUCE_SCATTER_BLOCK && c->coll != TOPOCOLL_ALLGATHER &&
        (c->root < 0 || c->root >= c->size))
        return tc_raise(c->comm, MPI_ERR_ROOT, "%s: root %d outside 0..%d", c->fn, c->root, c->size - 1);
    if (is_reduction(c) && c->op == MPI_OP_NULL)
        return tc_raise(c->comm, MPI_ERR_OP, "%s: op is MPI_OP_NULL", c->fn);
    if (uses_send(c) && (rc = check_buffer(c, c->sbuf, c->scount, c->stype, "send")) != MPI_SUCCESS)
        return rc;
    if (uses_recv(c) && (rc = check_buffer(c, c->rbuf, c->rcount, c->rtype, "recv")) != MPI_SUCCESS)
        return rc;
    if (uses_send(c) && uses_recv(c) &&
        (c->coll == TOPOCOLL_SCATTER || c->coll == TOPOCOLL_GATHER || c->coll == TOPOCOLL_ALLGATHER)) {
        int ss = 0, rs = 0;
        PMPI_Type_size(c->stype, &ss);
        PMPI_Type_size(c->rtype, &rs);
        if ((long long)c->scount * ss != (long long)c->rcount * rs)
            return tc_raise(c->comm, MPI_ERR_TRUNCATE, "%s: send and receive signatures differ (%d x %d "
                            "against %d x %d bytes)", c->fn, c->scount, ss, c->rcount, rs);
    }
    return MPI_SUCCESS;
}

/* The counts the generators see (catalog.h), consistent on every rank. */
static void make_args(const call *c, tc_args *a)
{
    memset(a, 0, sizeof *a);
    a->coll = c->coll;
    a->rank = c->rank;
    a->size = c->size;
    a->root = c->root;
    a->in_place = in_place(c);
    a->scount = c->scount;
    a->rcount = c->rcount;
    if (c->coll == TOPOCOLL_ALLGATHER && a->in_place) a->scount = c->rcount;
    if (c->coll == TOPOCOLL_SCATTER && c->rank != c->root) a->scount = c->rcount;
    if (c->coll == TOPOCOLL_SCATTER && a->in_place) a->rcount = c->scount;
    if (c->coll == TOPOCOLL_GATHER && (c->rank != c->root || a->in_place))
        a->rcount = c->rank != c->root ? c->scount : c->rcount;
    if (c->coll == TOPOCOLL_GATHER && a->in_place) a->scount = c->rcount;
    if (c->coll == TOPOCOLL_REDUCE) a->scount = a->rcount = c->rcount;   /* both are count */
    if (c->coll == TOPOCOLL_REDUCE_SCATTER_BLOCK) a->scount = (int64_t)c->size * c->rcount;
    if (c->coll == TOPOCOLL_BCAST) {   /* ranks may describe the data with different */
        int size = 0;                  /* types: the schedule counts bytes            */
        PMPI_Type_size(c->rtype, &size);
        a->scount = 0;
        a->rcount = (int64_t)c->rcount * size;
    }
    int commutative = 1;
    if (is_reduction(c)) PMPI_Op_commutative(c->op, &commutative);
    a->commutative = commutative;
}

/* Bytes per rank (one block): the same on every rank by MPI's rules. */
static int64_t bytes_of(const call *c)
{
    int from_send = uses_send(c) && c->coll != TOPOCOLL_REDUCE_SCATTER_BLOCK, size = 0;
    PMPI_Type_size(from_send ? c->stype : c->rtype, &size);
    return (int64_t)(from_send ? c->scount : c->rcount) * size;
}

/* Bind SEND and RECV per catalog.h; an insignificant buffer takes the
 * other's type so that scratch is typed consistently. */
static int bind(const call *c, const tc_args *a, tc_bind b[TC_NBUF])
{
    int rc;
    int us = uses_send(c) && c->coll != TOPOCOLL_BCAST, ur = uses_recv(c);
    MPI_Datatype st = us ? c->stype : c->rtype, rt = ur ? c->rtype : c->stype;
    if (c->coll == TOPOCOLL_BCAST) st = rt = c->rtype;
    if ((rc = tc_bind_type(&b[TC_BUF_SEND], us ? (void *)c->sbuf : NULL, st)) != MPI_SUCCESS) return rc;
    if ((rc = tc_bind_type(&b[TC_BUF_RECV], ur ? c->rbuf : NULL, rt)) != MPI_SUCCESS) return rc;
    if (!a->in_place) return MPI_SUCCESS;
    switch (c->coll) {
    case TOPOCOLL_ALLGATHER: /* the rank's own block of the receive buffer */
        b[TC_BUF_SEND] = b[TC_BUF_RECV];
        b[TC_BUF_SEND].base = (char *)c->rbuf + (MPI_Aint)c->rank * c->rcount * b[TC_BUF_RECV].extent;
        break;
    case TOPOCOLL_SCATTER:   /* root's own block stays in the send buffer */
        b[TC_BUF_RECV] = b[TC_BUF_SEND];
        b[TC_BUF_RECV].base = (char *)c->sbuf + (MPI_Aint)c->root * c->scount * b[TC_BUF_SEND].extent;
        break;
    case TOPOCOLL_GATHER:    /* root's own block is already in place */
        b[TC_BUF_SEND] = b[TC_BUF_RECV];
        b[TC_BUF_SEND].base = (char *)c->rbuf + (MPI_Aint)c->root * c->rcount * b[TC_BUF_RECV].extent;
        break;
    default:                 /* reduce, reduce_scatter_block: input in rbuf */
        b[TC_BUF_SEND] = b[TC_BUF_RECV];
        break;
    }
    return MPI_SUCCESS;
}

static int run_native(const call *c)
{
    switch (c->coll) {
    case TOPOCOLL_ALLGATHER:
        return PMPI_Allgather(c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype, c->comm);
    case TOPOCOLL_BCAST: return PMPI_Bcast(c->rbuf, c->rcount, c->rtype, c->root, c->comm);
    case TOPOCOLL_SCATTER:
        return PMPI_Scatter(c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype, c->root, c->comm);
    case TOPOCOLL_GATHER:
        return PMPI_Gather(c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype, c->root, c->comm);
    case TOPOCOLL_REDUCE:
        return PMPI_Reduce(c->sbuf, c->rbuf, c->rcount, c->stype, c->op, c->root, c->comm);
    case TOPOCOLL_REDUCE_SCATTER_BLOCK:
        return PMPI_Reduce_scatter_block(c->sbuf, c->rbuf, c->rcount, c->rtype, c->op, c->comm);
    default:
        return MPI_ERR_INTERN;
    }
}

/* bcast runs on bytes: contiguous data in place, anything else packed into
 * a staging buffer at the root and unpacked on the others. */
static int run_bcast(tc_ctx *x, const tc_sched *s, const call *c, const tc_args *a)
{
    tc_bind b[TC_NBUF];
    int rc, pos = 0, packed_data = 0;
    tc_bind user;
    if ((rc = tc_bind_type(&user, c->rbuf, c->rtype)) != MPI_SUCCESS) return rc;
    char *data = c->rbuf;
    if (!user.contiguous) {
        if ((rc = tc_workspace_stage(&x->ws, (size_t)a->rcount)) != MPI_SUCCESS) return rc;
        data = x->ws.stage;
        packed_data = 1;
        if (c->rank == c->root &&
            (rc = PMPI_Pack(c->rbuf, c->rcount, c->rtype, data, (int)a->rcount, &pos, x->comm)) != MPI_SUCCESS)
            return rc;
    }
    if ((rc = tc_bind_type(&b[TC_BUF_RECV], data, MPI_BYTE)) != MPI_SUCCESS) return rc;
    b[TC_BUF_SEND] = b[TC_BUF_RECV];
    b[TC_BUF_SEND].base = NULL;
    tc_exec_env env = tc_ctx_env(x, MPI_OP_NULL);
    if ((rc = tc_exec(s, b, &env)) != MPI_SUCCESS) return rc;
    pos = 0;
    if (packed_data && c->rank != c->root)
        rc = PMPI_Unpack(data, (int)a->rcount, &pos, c->rbuf, c->rcount, c->rtype, x->comm);
    return rc;
}

static int run(tc_ctx *x, const tc_algo *al, const call *c, const tc_args *a)
{
    if (!al->generate) return run_native(c);
    int bcast = c->coll == TOPOCOLL_BCAST;
    tc_sched_key key = { al, a->scount, a->rcount, bcast ? MPI_BYTE : c->stype,
                         bcast ? MPI_BYTE : c->rtype, a->root, a->in_place,
                         is_reduction(c) ? c->op : MPI_OP_NULL, c->coll, a->commutative };
    int rc = MPI_SUCCESS;
    const tc_sched *s = tc_ctx_schedule(x, &key, a, &rc);
    if (!s) return rc;
    if (c->coll == TOPOCOLL_BCAST) return run_bcast(x, s, c, a);
    tc_bind b[TC_NBUF];
    if ((rc = bind(c, a, b)) != MPI_SUCCESS) return rc;
    tc_exec_env env = tc_ctx_env(x, is_reduction(c) ? c->op : MPI_OP_NULL);
    return tc_exec(s, b, &env);
}

/* The whole call: checks, context, choice (by_name: the named algorithm,
 * else TOPOCOLL_<COLL> or the selection table). */
static int collective(call *c, int by_name, const char *algorithm)
{
    int rc = check_args(c);
    if (rc != MPI_SUCCESS) return rc;
    tc_ctx *x;
    if ((rc = tc_ctx_get(c->comm, &x)) != MPI_SUCCESS) return tc_raise_mpi(c->comm, rc, c->fn);
    tc_args a;
    make_args(c, &a);
    a.node_shm = x->node_shm;
    int64_t bytes = bytes_of(c);
    const tc_algo *al = NULL;
    if (by_name) {
        const char *why = "";
        al = tc_catalog_find(c->coll, algorithm);
        if (!al)
            return tc_raise(c->comm, MPI_ERR_ARG, "no %s algorithm named '%s'", tc_coll_name(c->coll),
                            algorithm ? algorithm : "(null)");
        if (!tc_algo_accepts(al, &a, x->topo, &why))
            return tc_raise(c->comm, MPI_ERR_ARG, "%s algorithm '%s' declines: %s", tc_coll_name(c->coll),
                            al->name, why);
        tc_explain(x, tc_coll_name(c->coll), bytes, al->name, "requested by name");
    } else if ((rc = tc_choose(x, &a, bytes, c->comm, &al)) != MPI_SUCCESS) {
        return rc;
    }
    rc = run(x, al, c, &a);
    return rc == MPI_SUCCESS ? rc : tc_raise_mpi(c->comm, rc, c->fn);
}

/* ---- the public entry points: describe the call, then run it ---------------- */

static call make_call(topocoll_coll coll, const char *fn, const void *sbuf, int scount,
                      MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, MPI_Op op,
                      int root, MPI_Comm comm)
{
    call c;
    memset(&c, 0, sizeof c);
    c.coll = coll;
    c.fn = fn;
    c.sbuf = sbuf;
    c.scount = scount;
    c.stype = stype;
    c.rbuf = rbuf;
    c.rcount = rcount;
    c.rtype = rtype;
    c.op = op;
    c.root = root;
    c.comm = comm;
    return c;
}

#define ALLGATHER_CALL(FN) make_call(TOPOCOLL_ALLGATHER, FN, sendbuf, sendcount, sendtype, \
                                     recvbuf, recvcount, recvtype, MPI_OP_NULL, 0, comm)
#define BCAST_CALL make_call(TOPOCOLL_BCAST, "topocoll_bcast", NULL, 0, type, buf, count, type, \
                             MPI_OP_NULL, root, comm)
#define SCATTER_CALL make_call(TOPOCOLL_SCATTER, "topocoll_scatter", sendbuf, sendcount, sendtype, \
                               recvbuf, recvcount, recvtype, MPI_OP_NULL, root, comm)
#define GATHER_CALL make_call(TOPOCOLL_GATHER, "topocoll_gather", sendbuf, sendcount, sendtype, \
                              recvbuf, recvcount, recvtype, MPI_OP_NULL, root, comm)
#define REDUCE_CALL make_call(TOPOCOLL_REDUCE, "topocoll_reduce", sendbuf, count, type, recvbuf, \
                              count, type, op, root, comm)
/* reduce_scatter_block's input is p blocks of recvcount: the call records
 * one block (what the argument checks need) and make_args widens it. */
#define RSB_CALL make_call(TOPOCOLL_REDUCE_SCATTER_BLOCK, "topocoll_reduce_scatter_block", sendbuf, \
                           recvcount, type, recvbuf, recvcount, type, op, 0, comm)

int topocoll_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    call c = ALLGATHER_CALL("topocoll_allgather");
    return collective(&c, 0, NULL);
}

int topocoll_allgather_algorithm(const char *algorithm, const void *sendbuf, int sendcount,
                                 MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                 MPI_Datatype recvtype, MPI_Comm comm)
{
    call c = ALLGATHER_CALL("topocoll_allgather_algorithm");
    return collective(&c, 1, algorithm);
}

int topocoll_allgather_applicable(const char *algorithm, int sendcount, MPI_Datatype sendtype,
                                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                  const char **why)
{
    const tc_algo *al = tc_catalog_find(TOPOCOLL_ALLGATHER, algorithm);
    if (!al) return -1;
    /* any non-NULL buffers: only the sizes matter */
    const void *sendbuf = "";
    void *recvbuf = "";
    call c = ALLGATHER_CALL("topocoll_allgather_applicable");
    tc_ctx *x;
    if (check_args(&c) != MPI_SUCCESS) {
        if (why) *why = "invalid arguments";
        return 0;
    }
    if (tc_ctx_get(comm, &x) != MPI_SUCCESS) {
        if (why) *why = "no topology for this communicator";
        return 0;
    }
    tc_args a;
    make_args(&c, &a);
    a.node_shm = x->node_shm;
    return tc_algo_accepts(al, &a, x->topo, why);
}

int topocoll_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    call c = BCAST_CALL;
    return collective(&c, 0, NULL);
}

int topocoll_bcast_algorithm(const char *algorithm, void *buf, int count, MPI_Datatype type,
                             int root, MPI_Comm comm)
{
    call c = BCAST_CALL;
    return collective(&c, 1, algorithm);
}

int topocoll_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    call c = SCATTER_CALL;
    return collective(&c, 0, NULL);
}

int topocoll_scatter_algorithm(const char *algorithm, const void *sendbuf, int sendcount,
                               MPI_Datatype sendtype, void *recvbuf, int recvcount,
                               MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    call c = SCATTER_CALL;
    return collective(&c, 1, algorithm);
}

int topocoll_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    call c = GATHER_CALL;
    return collective(&c, 0, NULL);
}

int topocoll_gather_algorithm(const char *algorithm, const void *sendbuf, int sendcount,
                              MPI_Datatype sendtype, void *recvbuf, int recvcount,
                              MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    call c = GATHER_CALL;
    return collective(&c, 1, algorithm);
}

int topocoll_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                    int root, MPI_Comm comm)
{
    call c = REDUCE_CALL;
    return collective(&c, 0, NULL);
}

int topocoll_reduce_algorithm(const char *algorithm, const void *sendbuf, void *recvbuf, int count,
                              MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm)
{
    call c = REDUCE_CALL;
    return collective(&c, 1, algorithm);
}

int topocoll_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                  MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    call c = RSB_CALL;
    return collective(&c, 0, NULL);
}

int topocoll_reduce_scatter_block_algorithm(const char *algorithm, const void *sendbuf,
                                            void *recvbuf, int recvcount, MPI_Datatype type,
                                            MPI_Op op, MPI_Comm comm)
{
    call c = RSB_CALL;
    return collective(&c, 1, algorithm);
}
