/*
 * topocoll_allgather and friends: argument checks, selection, the schedule
 * (cached per communicator), binding the user's buffers, the executor.
 */
#include <stdio.h>
#include <string.h>

#include "topocoll.h"
#include "api/context.h"
#include "api/explain.h"
#include "core/config.h"
#include "core/error.h"
#include "select/select.h"

typedef struct ag_call {
    const void *sbuf;
    int scount;
    MPI_Datatype stype;
    void *rbuf;
    int rcount;
    MPI_Datatype rtype;
    MPI_Comm comm;
    const char *fn;
} ag_call;

static int type_size(MPI_Datatype t, int *size)
{
    return PMPI_Type_size(t, size);
}

/* A NULL buffer is legal for types that carry absolute addresses
 * (MPI_BOTTOM); those have a non-zero true lower bound. */
static int null_buffer_ok(MPI_Datatype t)
{
    MPI_Aint lb = 0, extent = 0;
    return PMPI_Type_get_true_extent(t, &lb, &extent) == MPI_SUCCESS && lb != 0;
}

static int check_args(const ag_call *c)
{
    int inter = 0, ss = 0, rs = 0;
    if (c->comm == MPI_COMM_NULL) return tc_raise(c->comm, MPI_ERR_COMM, "%s: MPI_COMM_NULL", c->fn);
    if (PMPI_Comm_test_inter(c->comm, &inter) != MPI_SUCCESS)
        return tc_raise(MPI_COMM_NULL, MPI_ERR_COMM, "%s: invalid communicator", c->fn);
    if (inter) return tc_raise(c->comm, MPI_ERR_COMM, "%s: inter-communicators are not supported", c->fn);
    int in_place = c->sbuf == MPI_IN_PLACE;
    if (c->rbuf == MPI_IN_PLACE)
        return tc_raise(c->comm, MPI_ERR_ARG, "%s: recvbuf cannot be MPI_IN_PLACE", c->fn);
    if (c->rcount < 0) return tc_raise(c->comm, MPI_ERR_COUNT, "%s: negative recvcount %d", c->fn, c->rcount);
    if (!in_place && c->scount < 0)
        return tc_raise(c->comm, MPI_ERR_COUNT, "%s: negative sendcount %d", c->fn, c->scount);
    if (c->rtype == MPI_DATATYPE_NULL) return tc_raise(c->comm, MPI_ERR_TYPE, "%s: recvtype is MPI_DATATYPE_NULL", c->fn);
    if (!in_place && c->stype == MPI_DATATYPE_NULL)
        return tc_raise(c->comm, MPI_ERR_TYPE, "%s: sendtype is MPI_DATATYPE_NULL", c->fn);
    if (type_size(c->rtype, &rs) != MPI_SUCCESS)
        return tc_raise(c->comm, MPI_ERR_TYPE, "%s: invalid recvtype", c->fn);
    if (!in_place && type_size(c->stype, &ss) != MPI_SUCCESS)
        return tc_raise(c->comm, MPI_ERR_TYPE, "%s: invalid sendtype", c->fn);
    if (c->rbuf == NULL && c->rcount > 0 && rs > 0 && !null_buffer_ok(c->rtype))
        return tc_raise(c->comm, MPI_ERR_BUFFER, "%s: recvbuf is NULL with recvcount %d", c->fn, c->rcount);
    if (!in_place && c->sbuf == NULL && c->scount > 0 && ss > 0 && !null_buffer_ok(c->stype))
        return tc_raise(c->comm, MPI_ERR_BUFFER, "%s: sendbuf is NULL with sendcount %d", c->fn, c->scount);
    if (!in_place && (long long)c->scount * ss != (long long)c->rcount * rs)
        return tc_raise(c->comm, MPI_ERR_TRUNCATE,
                        "%s: send signature (%d x %d bytes) differs from receive signature (%d x %d bytes)",
                        c->fn, c->scount, ss, c->rcount, rs);
    return MPI_SUCCESS;
}

static void make_args(const ag_call *c, const tc_ctx *x, tc_args *a)
{
    memset(a, 0, sizeof *a);
    a->coll = TOPOCOLL_ALLGATHER;
    a->rank = x->rank;
    a->size = x->size;
    a->in_place = c->sbuf == MPI_IN_PLACE;
    a->rcount = c->rcount;
    a->scount = a->in_place ? c->rcount : c->scount;
}

static int run(tc_ctx *x, const tc_algo *al, const ag_call *c, const tc_args *a)
{
    if (!al->generate)
        return PMPI_Allgather(c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype, c->comm);
    tc_sched_key key = { al, a->scount, a->rcount, a->in_place ? MPI_DATATYPE_NULL : c->stype,
                         c->rtype, 0, a->in_place, MPI_OP_NULL, TOPOCOLL_ALLGATHER, 1 };
    int rc = MPI_SUCCESS;
    const tc_sched *s = tc_ctx_schedule(x, &key, a, &rc);
    if (!s) return rc;
    tc_bind bind[TC_NBUF];
    if ((rc = tc_bind_type(&bind[TC_BUF_RECV], c->rbuf, c->rtype)) != MPI_SUCCESS) return rc;
    if (a->in_place) {
        bind[TC_BUF_SEND] = bind[TC_BUF_RECV];
        bind[TC_BUF_SEND].base = (char *)c->rbuf + (MPI_Aint)x->rank * c->rcount * bind[TC_BUF_RECV].extent;
    } else if ((rc = tc_bind_type(&bind[TC_BUF_SEND], (void *)c->sbuf, c->stype)) != MPI_SUCCESS) {
        return rc;
    }
    tc_exec_env env = tc_ctx_env(x, MPI_OP_NULL);
    return tc_exec(s, bind, &env);
}

static int finish(const ag_call *c, int rc)
{
    return rc == MPI_SUCCESS ? rc : tc_raise_mpi(c->comm, rc, c->fn);
}

static int nothing_to_move(const ag_call *c)
{
    int rs = 0;
    return c->rcount == 0 || (type_size(c->rtype, &rs) == MPI_SUCCESS && rs == 0);
}

static int64_t bytes_per_rank(const ag_call *c)
{
    int rs = 0;
    type_size(c->rtype, &rs);
    return (int64_t)c->rcount * rs;
}

int topocoll_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    ag_call c = { sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, "topocoll_allgather" };
    int rc = check_args(&c);
    if (rc != MPI_SUCCESS) return rc;
    tc_ctx *x;
    if ((rc = tc_ctx_get(comm, &x)) != MPI_SUCCESS) return finish(&c, rc);
    tc_args a;
    make_args(&c, x, &a);
    int64_t bytes = bytes_per_rank(&c);
    const tc_algo *al = NULL;
    if ((rc = tc_choose(x, &a, bytes, comm, &al)) != MPI_SUCCESS) return rc;
    if (nothing_to_move(&c)) return MPI_SUCCESS;
    return finish(&c, run(x, al, &c, &a));
}

int topocoll_allgather_algorithm(const char *algorithm, const void *sendbuf, int sendcount,
                                 MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                 MPI_Datatype recvtype, MPI_Comm comm)
{
    ag_call c = { sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                  "topocoll_allgather_algorithm" };
    int rc = check_args(&c);
    if (rc != MPI_SUCCESS) return rc;
    const tc_algo *al = tc_catalog_find(TOPOCOLL_ALLGATHER, algorithm);
    if (!al)
        return tc_raise(comm, MPI_ERR_ARG, "no allgather algorithm named '%s'", algorithm ? algorithm : "(null)");
    tc_ctx *x;
    if ((rc = tc_ctx_get(comm, &x)) != MPI_SUCCESS) return finish(&c, rc);
    tc_args a;
    make_args(&c, x, &a);
    const char *reason = "";
    if (!tc_algo_accepts(al, &a, x->topo, &reason))
        return tc_raise(comm, MPI_ERR_ARG, "allgather algorithm '%s' declines: %s", al->name, reason);
    tc_explain(x, "allgather", bytes_per_rank(&c), al->name, "requested by name");
    if (nothing_to_move(&c)) return MPI_SUCCESS;
    return finish(&c, run(x, al, &c, &a));
}

int topocoll_allgather_applicable(const char *algorithm, int sendcount, MPI_Datatype sendtype,
                                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                  const char **why)
{
    const tc_algo *al = tc_catalog_find(TOPOCOLL_ALLGATHER, algorithm);
    if (!al) return -1;
    ag_call c = { "", sendcount, sendtype, "", recvcount, recvtype, comm,
                  "topocoll_allgather_applicable" };
    if (check_args(&c) != MPI_SUCCESS) {
        if (why) *why = "invalid arguments";
        return 0;
    }
    tc_ctx *x;
    if (tc_ctx_get(comm, &x) != MPI_SUCCESS) {
        if (why) *why = "no topology for this communicator";
        return 0;
    }
    tc_args a;
    make_args(&c, x, &a);
    return tc_algo_accepts(al, &a, x->topo, why);
}
