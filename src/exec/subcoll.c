/*
 * Member-set rounds (see subcoll.h): a round whose messages form one
 * collective call over the node or the node roots runs as one
 * MPI_Alltoallw on the set's communicator, the way the compositions of
 * Träff, Rougier, "MPI Collectives and Datatypes for Hierarchical
 * All-to-all Communication" (2014) run their gathers, exchanges and
 * scatters: every byte moved by the MPI library through derived datatypes
 * ("zero-copy"), here one struct type per peer and direction whose blocks
 * are the round's regions for that peer, in op order, at their absolute
 * addresses (from MPI_BOTTOM).  Adjacent regions of one buffer merge into
 * one block, so a rank's node-sorted view of its blocks costs one block per
 * run of consecutive ranks.  The messages between two members are the
 * concatenation of their ops, matched op by op by the verifier.
 * Cost per round: O(ops) to describe, 2 m datatypes made and freed (m: the
 * set's size), one MPI_Alltoallw.
 */
#include "exec/subcoll.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include "exec/exec_mpi.h"

int tc_subcomms_make(tc_subcomms *n, MPI_Comm comm, int rank, const int *node_of, const int *node_idx)
{
    if (n->made) return MPI_SUCCESS;
    n->local = n->bridge = MPI_COMM_NULL;
    n->node_of = node_of;
    n->node_idx = node_idx;
    int node = node_of[rank], root = node_idx[rank] == 0;
    int rc = PMPI_Comm_split(comm, node, rank, &n->local);
    int rc2 = PMPI_Comm_split(comm, root ? 0 : MPI_UNDEFINED, node, &n->bridge);
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

/* One struct type per list (MPI_BYTE with count 0 for an empty one), and
 * the call. */
static int alltoallw(const blocks *k, MPI_Comm comm)
{
    int m = k->m, rc = MPI_SUCCESS;
    MPI_Datatype *ty = malloc(2 * (size_t)m * sizeof *ty + 1);
    int *cnt = malloc(3 * (size_t)m * sizeof *cnt + 1);   /* send, receive counts; zero displacements */
    if (!ty || !cnt) rc = MPI_ERR_NO_MEM;
    for (int j = 0; ty && j < 2 * m; j++) ty[j] = MPI_BYTE;
    for (int j = 0; rc == MPI_SUCCESS && j < 2 * m; j++) {
        cnt[j] = k->cnt[j] > 0;
        cnt[2 * m + j % m] = 0;
        if (!cnt[j]) continue;
        rc = PMPI_Type_create_struct(k->cnt[j], k->len + k->at[j], k->disp + k->at[j], k->type + k->at[j], &ty[j]);
        if (rc != MPI_SUCCESS) ty[j] = MPI_BYTE;
        else if ((rc = PMPI_Type_commit(&ty[j])) != MPI_SUCCESS) (void)PMPI_Type_free(&ty[j]), ty[j] = MPI_BYTE;
    }
    if (rc == MPI_SUCCESS)
        rc = PMPI_Alltoallw(MPI_BOTTOM, cnt, cnt + 2 * m, ty, MPI_BOTTOM, cnt + m, cnt + 2 * m, ty + m, comm);
    for (int j = 0; ty && j < 2 * m; j++)
        if (ty[j] != MPI_BYTE) (void)PMPI_Type_free(&ty[j]);
    free(ty);
    free(cnt);
    return rc;
}

int tc_exec_subcoll(const tc_sched *s, int b, int e, const tc_bind *bind, const tc_exec_env *env,
                    int (*copy)(const tc_bind *bind, const tc_op *op, const tc_exec_env *env))
{
    int set = s->ops[b].peer, rc = MPI_SUCCESS;
    MPI_Comm comm = set == TC_SUB_NODE ? env->sub->local : env->sub->bridge;
    if (!env->sub->made || comm == MPI_COMM_NULL) return MPI_ERR_INTERN;   /* made before the first round */
    for (int i = b + 1; i < e && rc == MPI_SUCCESS; i++)
        if (s->ops[i].kind == TC_OP_COPY) rc = copy(bind, &s->ops[i], env);
    blocks k = { 0 };
    if (rc == MPI_SUCCESS) rc = PMPI_Comm_size(comm, &k.m);
    if (rc == MPI_SUCCESS) rc = collect(&k, s, b, e, bind, env, set);
    if (rc == MPI_SUCCESS) rc = alltoallw(&k, comm);
    blocks_free(&k);
    return rc;
}
