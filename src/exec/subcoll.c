/*
 * Member-set rounds (see subcoll.h): a round whose messages form one
 * gather, exchange or scatter over the node or the node roots runs on the
 * set's communicator the way the compositions of Träff, Rougier, "MPI
 * Collectives and Datatypes for Hierarchical All-to-all Communication"
 * (2014) run their collectives: every byte moved by the MPI library through
 * derived datatypes ("zero-copy"), here one message per peer and direction
 * whose struct datatype has the round's regions for that peer as blocks, in
 * op order, at their absolute addresses (from MPI_BOTTOM).  Adjacent
 * regions of one buffer merge into one block, so a rank's node-sorted view
 * of its blocks costs one block per run of consecutive ranks.  The messages
 * go as nonblocking sends and receives, not as MPI_Alltoallw: Open MPI 4.1's
 * MPI_Alltoallw (persistent requests per call) made the alltoall "bridge"
 * 1.5x slower at 64 bytes, np 4 (2 nodes of 2, oversubscribed); the
 * verifier holds the rounds to a collective's rules anyway (sched.h), so
 * either runs them.  The message between two members is the concatenation
 * of their ops, which the verifier pairs op by op inside the c-th rounds of
 * the set at both.
 * Cost per round: O(ops) to describe, a datatype made and freed per peer
 * and direction, one message each.
 */
#include "exec/subcoll.h"
#include "detect/comm_make.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include "exec/exec_mpi.h"

#define TC_SUBCOLL_TAG 11       /* the set communicators carry nothing else */
#define TC_SUBCOLL_TAG_ERR 12   /* sent after a truncation (see subcoll.h) */

int tc_subcomms_make(tc_subcomms *n, MPI_Comm comm, int rank, const int *node_of, const int *node_idx)
{
    if (n->made) return MPI_SUCCESS;
    n->local = n->bridge = MPI_COMM_NULL;
    n->node_of = node_of;
    n->node_idx = node_idx;
    int node = node_of[rank], root = node_idx[rank] == 0;
    int rc = tc_comm_split(comm, node, rank, &n->local);
    int rc2 = tc_comm_split(comm, root ? 0 : MPI_UNDEFINED, node, &n->bridge);
    n->made = 1;
    if (rc == MPI_SUCCESS) rc = rc2;
    if (rc != MPI_SUCCESS) (void)tc_subcomms_free(n);   /* rc is the error reported */
    return rc;
}

int tc_subcomms_free(tc_subcomms *n)
{
    int rc = MPI_SUCCESS, rc2 = MPI_SUCCESS;
    if (n->made && n->local != MPI_COMM_NULL) rc = PMPI_Comm_free(&n->local);
    if (n->made && n->bridge != MPI_COMM_NULL) rc2 = PMPI_Comm_free(&n->bridge);
    n->made = 0;
    n->local = n->bridge = MPI_COMM_NULL;
    return rc == MPI_SUCCESS ? rc2 : rc;
}

/* The blocks of every peer and direction: blocks [at[d*m + j], at[d*m + j]
 * + cnt[d*m + j]) of len/disp/type (d 0: send, 1: receive). */
typedef struct blocks {
    int m;
    int *at, *cnt;
    int *len;
    MPI_Aint *disp;
    MPI_Datatype *type;
} blocks;

static int member_of(const tc_exec_env *env, int set, int peer)
{
    return set == TC_SUB_NODE ? env->sub->node_idx[peer] : env->sub->node_of[peer];
}

/* Pieces of at most INT_MAX elements a region needs. */
static int64_t pieces(int64_t cnt) { return (cnt + INT_MAX - 1) / INT_MAX; }

/* Append region g of bind b to list k (merged with the last block when it
 * continues it). */
static int append(blocks *k, int list, const tc_bind *b, const tc_region *g)
{
    int64_t left = g->cnt;
    char *p = b->base + g->off * b->extent;
    while (left > 0) {
        MPI_Aint a;
        int rc = PMPI_Get_address(p, &a);
        if (rc != MPI_SUCCESS) return rc;
        int i = k->at[list] + k->cnt[list];
        int64_t take = left < INT_MAX ? left : INT_MAX;
        if (k->cnt[list] > 0 && k->type[i - 1] == b->type &&
            k->disp[i - 1] + (MPI_Aint)k->len[i - 1] * b->extent == a && (int64_t)k->len[i - 1] + take <= INT_MAX) {
            k->len[i - 1] += (int)take;
        } else {
            k->len[i] = (int)take, k->disp[i] = a, k->type[i] = b->type;
            k->cnt[list]++;
        }
        p += take * b->extent;
        left -= take;
    }
    return MPI_SUCCESS;
}

/* The round's messages sorted into k (memory in k->at: free it). */
static int collect(blocks *k, const tc_sched *s, int b, int e, const tc_bind *bind, const tc_exec_env *env, int set)
{
    int m = k->m, nb = 0, rc = MPI_SUCCESS;
    for (int i = b; i < e; i++)
        if (s->ops[i].kind == TC_OP_SEND || s->ops[i].kind == TC_OP_RECV) nb += (int)pieces(s->ops[i].a.cnt);
    k->at = calloc(4 * (size_t)m + 1, sizeof *k->at);
    k->len = malloc((size_t)nb * sizeof *k->len + 1);
    k->disp = malloc((size_t)nb * sizeof *k->disp + 1);
    k->type = malloc((size_t)nb * sizeof *k->type + 1);
    if (!k->at || !k->len || !k->disp || !k->type) return MPI_ERR_NO_MEM;
    k->cnt = k->at + 2 * m;
    for (int i = b; i < e; i++) {   /* block counts (before merging) per list, then offsets */
        const tc_op *op = &s->ops[i];
        if (op->kind == TC_OP_SEND || op->kind == TC_OP_RECV)
            k->at[(op->kind == TC_OP_RECV) * m + member_of(env, set, op->peer)] += (int)pieces(op->a.cnt);
    }
    for (int j = 0, sum = 0; j < 2 * m; j++) {
        int c = k->at[j];
        k->at[j] = sum;
        sum += c;
    }
    for (int i = b; i < e && rc == MPI_SUCCESS; i++) {
        const tc_op *op = &s->ops[i];
        if (op->kind != TC_OP_SEND && op->kind != TC_OP_RECV) continue;
        const tc_bind *bd = &bind[(int)op->a.buf];
        if (bd->packed) return MPI_ERR_INTERN;   /* node-shared memory has no place in these rounds */
        rc = append(k, (op->kind == TC_OP_RECV) * m + member_of(env, set, op->peer), bd, &op->a);
    }
    return rc;
}

static void blocks_free(blocks *k)
{
    free(k->at);
    free(k->len);
    free(k->disp);
    free(k->type);
}

/* One struct type per non-empty list, committed (MPI_DATATYPE_NULL for an
 * empty one). */
static int make_types(const blocks *k, MPI_Datatype *ty)
{
    int rc = MPI_SUCCESS;
    for (int j = 0; j < 2 * k->m; j++) ty[j] = MPI_DATATYPE_NULL;
    for (int j = 0; j < 2 * k->m && rc == MPI_SUCCESS; j++) {
        if (k->cnt[j] == 0) continue;
        rc = PMPI_Type_create_struct(k->cnt[j], k->len + k->at[j], k->disp + k->at[j], k->type + k->at[j], &ty[j]);
        if (rc != MPI_SUCCESS) ty[j] = MPI_DATATYPE_NULL;
        else if ((rc = PMPI_Type_commit(&ty[j])) != MPI_SUCCESS) (void)PMPI_Type_free(&ty[j]);
    }
    return rc;
}

static int error_class(int code)
{
    int cls = MPI_ERR_OTHER;
    return PMPI_Error_class(code, &cls) == MPI_SUCCESS ? cls : MPI_ERR_OTHER;
}

/* After the wait: a truncated receive or an error-tagged message is
 * recorded in *trunc (the round goes on); another error is returned, the
 * requests left pending completed first.  rc: the wait's. */
static int wait_errors(int rc, int nr, int nrecv, MPI_Request *rq, MPI_Status *st, int *trunc)
{
    int cls = rc == MPI_SUCCESS ? MPI_SUCCESS : error_class(rc);
    if (cls == MPI_ERR_TRUNCATE && nr == 1) {   /* an MPI that names the class itself */
        if (*trunc == MPI_SUCCESS) *trunc = rc;
        return MPI_SUCCESS;
    }
    if (cls != MPI_SUCCESS && cls != MPI_ERR_IN_STATUS) return rc;
    int first = MPI_SUCCESS;
    for (int i = 0; cls == MPI_ERR_IN_STATUS && i < nr; i++) {
        int e = st[i].MPI_ERROR;
        if (e == MPI_ERR_PENDING) e = PMPI_Wait(&rq[i], &st[i]);   /* none left behind */
        if (e == MPI_SUCCESS) continue;
        if (error_class(e) != MPI_ERR_TRUNCATE) {
            if (first == MPI_SUCCESS) first = e;
        } else if (*trunc == MPI_SUCCESS) {
            *trunc = e;
        }
    }
    for (int i = 0; i < nrecv; i++)
        if (st[i].MPI_TAG == TC_SUBCOLL_TAG_ERR && *trunc == MPI_SUCCESS) *trunc = MPI_ERR_TRUNCATE;
    return first;
}

/* One message per peer and direction: receives (either tag), then sends
 * (the error tag after a truncation), then the wait; on an error the posted
 * requests are cancelled and completed. */
static int exchange(const blocks *k, MPI_Comm comm, int *trunc)
{
    int m = k->m, nr = 0, nrecv = 0, rc, tag = *trunc == MPI_SUCCESS ? TC_SUBCOLL_TAG : TC_SUBCOLL_TAG_ERR;
    MPI_Datatype *ty = malloc(2 * (size_t)m * sizeof *ty + 1);
    MPI_Request *rq = malloc(2 * (size_t)m * sizeof *rq + 1);
    MPI_Status *st = malloc(2 * (size_t)m * sizeof *st + 1);   /* MPICH's headers: no MPI_STATUSES_IGNORE */
    if (!ty || !rq || !st) {
        free(ty);
        free(rq);
        free(st);
        return MPI_ERR_NO_MEM;
    }
    rc = make_types(k, ty);
    for (int d = 1; d >= 0 && rc == MPI_SUCCESS; d--)
        for (int j = 0; j < m && rc == MPI_SUCCESS; j++) {
            if (ty[d * m + j] == MPI_DATATYPE_NULL) continue;
            rc = d ? PMPI_Irecv(MPI_BOTTOM, 1, ty[d * m + j], j, MPI_ANY_TAG, comm, &rq[nr])
                   : PMPI_Isend(MPI_BOTTOM, 1, ty[d * m + j], j, tag, comm, &rq[nr]);
            if (rc == MPI_SUCCESS) nr++, nrecv += d;
        }
    if (rc == MPI_SUCCESS) {
        for (int i = 0; i < nr; i++) st[i].MPI_TAG = TC_SUBCOLL_TAG, st[i].MPI_ERROR = MPI_SUCCESS;
        rc = wait_errors(PMPI_Waitall(nr, rq, st), nr, nrecv, rq, st, trunc);
    } else {
        for (int i = 0; i < nr; i++) (void)PMPI_Cancel(&rq[i]), (void)PMPI_Wait(&rq[i], MPI_STATUS_IGNORE);
    }
    for (int j = 0; j < 2 * m; j++)
        if (ty[j] != MPI_DATATYPE_NULL) (void)PMPI_Type_free(&ty[j]);   /* the requests keep what they need */
    free(ty);
    free(rq);
    free(st);
    return rc;
}

int tc_exec_subcoll(const tc_sched *s, int b, int e, const tc_bind *bind, const tc_exec_env *env,
                    int (*copy)(const tc_bind *bind, const tc_op *op, const tc_exec_env *env), int *trunc)
{
    int set = s->ops[b].peer, rc = MPI_SUCCESS;
    MPI_Comm comm = set == TC_SUB_NODE ? env->sub->local : env->sub->bridge;
    if (!env->sub->made || comm == MPI_COMM_NULL) return MPI_ERR_INTERN;   /* made before the first round */
    for (int i = b + 1; i < e && rc == MPI_SUCCESS; i++)
        if (s->ops[i].kind == TC_OP_COPY) rc = copy(bind, &s->ops[i], env);
    blocks k = { 0 };
    if (rc == MPI_SUCCESS) rc = PMPI_Comm_size(comm, &k.m);
    if (rc == MPI_SUCCESS) rc = collect(&k, s, b, e, bind, env, set);
    if (rc == MPI_SUCCESS) rc = exchange(&k, comm, trunc);
    blocks_free(&k);
    return rc;
}
