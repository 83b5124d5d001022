/*
 * Running the catalog entry that serves a call (see call.h): a schedule
 * from the context's cache, or built for the call where it depends on
 * every per-peer count; an entry without a schedule: the MPI library's own
 * collective (native.c); the per-node counts' entries (node_counts.c: the
 * count rows the hierarchical and bridge alltoallv schedules read).  Each kind one function below.
 */
#include <stdlib.h>

#include "api/call.h"
#include "api/node_counts.h"

/* ---- entries without a schedule ------------------------------------------ */

int tc_run_unscheduled(tc_ctx *x, const tc_algo *al, const tc_call *c)
{
    (void)x;
    (void)al;
    return tc_run_native(c);
}

/* ---- schedules ------------------------------------------------------------ */

/* Bind SEND and RECV's types (bases NULL); an insignificant buffer takes
 * the other's type so that scratch is typed consistently; in place, the
 * descriptor's alias (*alias_off: its bytes from the other's base). */
int tc_run_bind_types(const tc_call *c, const tc_args *a, tc_bind b[2], MPI_Aint *alias_off)
{
    int rc, us = c->use[TC_BUF_SEND], ur = c->use[TC_BUF_RECV];
    MPI_Datatype st = us ? c->stype : c->rtype, rt = ur ? c->rtype : c->stype;
    *alias_off = 0;
    if ((rc = tc_bind_type(&b[TC_BUF_SEND], NULL, st)) != MPI_SUCCESS) return rc;
    if ((rc = tc_bind_type(&b[TC_BUF_RECV], NULL, rt)) != MPI_SUCCESS) return rc;
    if (!a->in_place) return MPI_SUCCESS;
    int from = c->d->in_place.arg, to = 1 - from;
    *alias_off = (MPI_Aint)tc_coll_pos_elems(c->d->in_place.offset, a, c->rank) * b[to].extent;
    b[from] = b[to];
    return MPI_SUCCESS;
}

void tc_run_bind_bases(const tc_call *c, const tc_args *a, tc_bind *b, MPI_Aint alias_off)
{
    b[TC_BUF_SEND].base = c->use[TC_BUF_SEND] ? (char *)c->sbuf : NULL;
    b[TC_BUF_RECV].base = c->use[TC_BUF_RECV] ? (char *)c->rbuf : NULL;
    if (!a->in_place) return;
    int from = c->d->in_place.arg, to = 1 - from;
    b[from].base = b[to].base + alias_off;
}

int tc_run_bind_buffers(const tc_call *c, const tc_args *a, tc_bind *b)
{
    MPI_Aint alias_off;
    int rc = tc_run_bind_types(c, a, b, &alias_off);
    if (rc == MPI_SUCCESS) tc_run_bind_bases(c, a, b, alias_off);
    return rc;
}

/* Schedules that count bytes (bcast) run on the receive buffer: contiguous
 * data in place, anything else packed into a staging buffer at the root and
 * unpacked on the others. */
static int run_bytes(tc_ctx *x, const tc_sched *s, const tc_call *c, const tc_args *a)
{
    tc_bind b[TC_NBUF];
    int rc, packed_data = 0;
    tc_bind user;
    if ((rc = tc_bind_type(&user, c->rbuf, c->rtype)) != MPI_SUCCESS) return rc;
    char *data = c->rbuf;
    if (!user.contiguous) {   /* a->rcount bytes: may exceed an int */
        if ((rc = tc_workspace_stage(&x->ws, (size_t)a->rcount)) != MPI_SUCCESS) return rc;
        data = x->ws.stage;
        packed_data = 1;
        if (c->rank == c->root &&
            (rc = tc_pack_elems(c->rbuf, c->rcount, &user, data, x->comm)) != MPI_SUCCESS)
            return rc;
    }
    if ((rc = tc_bind_type(&b[TC_BUF_RECV], data, MPI_BYTE)) != MPI_SUCCESS) return rc;
    b[TC_BUF_SEND] = b[TC_BUF_RECV];
    b[TC_BUF_SEND].base = NULL;
    tc_exec_env env = tc_ctx_env(x, MPI_OP_NULL);
    if ((rc = tc_exec(s, b, &env)) != MPI_SUCCESS) return rc;
    if (packed_data && c->rank != c->root)
        rc = tc_unpack_elems(data, c->rbuf, c->rcount, &user, x->comm);
    return rc;
}

/* One block per rank (allgatherv): RECV is the user's buffer when the
 * user's displacements are the packed layout, else a staging buffer in the
 * receive type whose blocks are copied to their displacements after the
 * schedule; in place, SEND is the own block (RECV's, or the user's at
 * displs[rank] when staged: the schedule was then made without in place). */
static int stage_out(const tc_call *c, const tc_bind *st, const tc_bind *user)
{
    int rc = MPI_SUCCESS;
    for (int j = 0; j < c->size && rc == MPI_SUCCESS; j++) {
        int n = c->vcnt[1][j];
        if (n <= 0 || (c->in_place && j == c->rank)) continue;
        rc = PMPI_Sendrecv(st->base + c->v.rdispls[j] * st->extent, n, c->rtype, 0, 0,
                           user->base + (MPI_Aint)c->vdispl[1][j] * user->extent, n, c->rtype, 0, 0,
                           MPI_COMM_SELF, MPI_STATUS_IGNORE);
    }
    return rc;
}

static int run_vblock(tc_ctx *x, const tc_sched *s, const tc_call *c)
{
    tc_bind b[TC_NBUF], user;
    int rc;
    int64_t total = c->v.rdispls[c->size - 1] + c->v.rcounts[c->size - 1];
    char *mem = NULL;
    if ((rc = tc_bind_type(&user, c->rbuf, c->rtype)) != MPI_SUCCESS) return rc;
    b[TC_BUF_RECV] = user;
    if (c->staged) {
        if (user.extent <= 0) return tc_run_native(c);   /* no staging layout for it */
        /* from element 0's first byte (true_lb) to the last element's end */
        size_t bytes = (size_t)((total - 1) * user.extent + user.true_extent);
        if (!(mem = malloc(bytes + 1))) return MPI_ERR_NO_MEM;
        b[TC_BUF_RECV].base = mem - user.true_lb;
    }
    if (c->in_place) {   /* the own block where the user left it (staged) or packed */
        int64_t own = c->staged ? c->vdispl[1][c->rank] : c->v.rdispls[c->rank];
        b[TC_BUF_SEND] = user;
        b[TC_BUF_SEND].base = user.base + (MPI_Aint)own * user.extent;
    } else if ((rc = tc_bind_type(&b[TC_BUF_SEND], (void *)c->sbuf, c->stype)) != MPI_SUCCESS) {
        free(mem);
        return rc;
    }
    tc_exec_env env = tc_ctx_env(x, MPI_OP_NULL);
    rc = tc_exec(s, b, &env);
    if (rc == MPI_SUCCESS && c->staged) rc = stage_out(c, &b[TC_BUF_RECV], &user);
    free(mem);
    return rc;
}

int tc_run_schedule(tc_ctx *x, const tc_sched *s, const tc_call *c, const tc_args *a)
{
    int rc;
    if (c->d->vblock) return run_vblock(x, s, c);
    if (c->d->counts_bytes) return run_bytes(x, s, c, a);
    tc_bind b[TC_NBUF];
    if ((rc = tc_run_bind_buffers(c, a, b)) != MPI_SUCCESS) return rc;
    tc_exec_env env = tc_ctx_env(x, c->d->reduction ? c->op : MPI_OP_NULL);
    return tc_exec(s, b, &env);
}

int tc_run_schedule_typed(tc_ctx *x, const tc_sched *s, const tc_call *c, const tc_args *a,
                          const tc_bind types[2], MPI_Aint alias_off)
{
    tc_bind b[TC_NBUF];
    b[TC_BUF_SEND] = types[TC_BUF_SEND];
    b[TC_BUF_RECV] = types[TC_BUF_RECV];
    tc_run_bind_bases(c, a, b, alias_off);
    tc_exec_env env = tc_ctx_env(x, c->d->reduction ? c->op : MPI_OP_NULL);
    return tc_exec(s, b, &env);
}

/* ---- per-peer counts: not cached ------------------------------------------ */

/* The per-node counts' entries (TC_REQ_NODE_COUNTS): the node's counts
 * first, then in bytes (src/api/node_counts.c). */
static int run_node_counts(tc_ctx *x, const tc_algo *al, const tc_call *c, const tc_args *a)
{
    tc_node_call nc = { c->sbuf, c->vcnt[0], c->vdispl[0], c->stype, c->rbuf, c->vcnt[1], c->vdispl[1],
                        c->rtype, c->in_place };
    return tc_node_counts_run(x, al, a, &nc);
}

/* The schedule depends on every count, so it is built for the call (O(p)
 * for the flat algorithms) and not cached. */
static int run_uncached(tc_ctx *x, const tc_algo *al, const tc_call *c, const tc_args *a)
{
    tc_sched s;
    tc_sched_init(&s);
    int rc = tc_algo_generate(al, &s, a, x->topo);
    if (rc == 0) rc = tc_sched_finish(&s);
    rc = rc ? MPI_ERR_NO_MEM : tc_run_schedule(x, &s, c, a);
    tc_sched_free(&s);
    return rc;
}

/* ---- any entry ------------------------------------------------------------ */

tc_sched_key tc_run_key(const tc_algo *al, const tc_call *c, const tc_args *a)
{
    const tc_coll_desc *d = c->d;
    MPI_Op op = d->reduction ? c->op : MPI_OP_NULL;
    tc_sched_key key = { al, a->scount, a->rcount, d->counts_bytes ? MPI_BYTE : c->stype,
                         d->counts_bytes ? MPI_BYTE : c->rtype, a->root, a->in_place, op, d->coll,
                         a->commutative };
    return key;
}

int tc_run(tc_ctx *x, const tc_algo *al, const tc_call *c, const tc_args *a, const tc_sched **used)
{
    *used = NULL;
    if (al->req & TC_REQ_NODE_COUNTS) return run_node_counts(x, al, c, a);   /* the node's count rows first */
    /* topocoll's own reductions check the op on every rank before anything
     * moves (a direct reduce reduces at the root only); the library's own
     * collective checks it itself */
    int rc = MPI_SUCCESS;
    if (c->d->reduction && !(al->req & TC_REQ_NATIVE) && (rc = tc_call_check_op(c)) != MPI_SUCCESS) return rc;
    if (!al->generate) return tc_run_unscheduled(x, al, c);
    if (c->d->vroot) return tc_run_rootedv(x, al, c, a);
    if (c->d->vcounts) return run_uncached(x, al, c, a);
    tc_sched_key key = tc_run_key(al, c, a);
    const tc_sched *s = tc_ctx_schedule(x, &key, a, &rc);
    if (!s) return rc;
    *used = s;
    return tc_run_schedule(x, s, c, a);
}
