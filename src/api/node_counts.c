/*
 * The count exchange of the hierarchical alltoallv entries (Träff,
 * Rougier, "MPI Collectives and Datatypes for Hierarchical All-to-all
 * Communication" (2014), section 2.4: the counts gathered node-locally
 * first; the family "hierarchical" and "bridge", "bridge_dt"), and the run
 * of their schedules.
 *
 * A leader lays out the parts of every rank of its node, so each rank's
 * counts are allgathered over the node communicator (tc_ctx_node_comms:
 * the ranks of my node in increasing rank order, that is member order):
 * 2p 64-bit counts per rank.  They travel in bytes: a part's byte count is
 * the same at sender and receiver (MPI's matching signatures), whatever
 * datatypes the ranks use, so the schedule is made and run in bytes.  A
 * buffer whose datatype is contiguous is bound as bytes where it lies
 * (displacement x extent); any other is staged: its parts packed one after
 * another into a byte buffer (input) and unpacked after the schedule
 * (output).  The schedule depends on every count and is not cached.
 * alltoallw's hierarchical entries pack their per-peer datatypes to bytes
 * themselves and enter at the byte level (tc_node_counts_run_bytes,
 * src/api/alltoallw_hier.c).
 *
 * Cost: one node-local MPI_Allgather of 2p counts per rank, O(n p) to read
 * them, plus the staging copies for non-contiguous datatypes.
 */
#include "api/node_counts.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One side (send or receive) in bytes: counts and displacements, and the
 * staging buffer when its datatype is not contiguous. */
typedef struct side {
    tc_bind user;           /* the user's buffer and datatype */
    char *stage;            /* NULL: bound where it lies */
    int64_t *cnt, *dsp;     /* [p] bytes */
} side;

/* Bytes per part; contiguous: displacement x extent, else packed in order. */
static int side_make(side *sd, int p, void *buf, MPI_Datatype type, const int *cnt, const int *dsp)
{
    int rc = tc_bind_type(&sd->user, buf, type);
    if (rc != MPI_SUCCESS) return rc;
    int64_t at = 0, size = sd->user.size;
    for (int j = 0; j < p; j++) {
        sd->cnt[j] = cnt[j] * size;
        sd->dsp[j] = sd->user.contiguous ? dsp[j] * (int64_t)sd->user.extent : at;
        at += sd->cnt[j];
    }
    sd->stage = NULL;
    if (sd->user.contiguous) return MPI_SUCCESS;
    return (sd->stage = malloc((size_t)at + 1)) ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

static char *side_base(const side *sd) { return sd->stage ? sd->stage : sd->user.base; }

/* Parts between the user's layout and the staging buffer (to_stage: pack). */
static int side_copy(const side *sd, int p, const int *cnt, const int *dsp, int to_stage, MPI_Comm comm)
{
    int rc = MPI_SUCCESS;
    for (int j = 0; j < p && rc == MPI_SUCCESS; j++) {
        if (cnt[j] == 0) continue;
        char *user = sd->user.base + (MPI_Aint)dsp[j] * sd->user.extent, *st = sd->stage + sd->dsp[j];
        rc = to_stage ? tc_pack_elems(user, cnt[j], &sd->user, st, comm)
                      : tc_unpack_elems(st, user, cnt[j], &sd->user, comm);
    }
    return rc;
}

/* The node's rows: [i*p + j] what member i sends j / receives from j. */
static int exchange(tc_ctx *x, const int64_t *scnt, const int64_t *rcnt, int64_t *node_sc, int64_t *node_rc)
{
    const tc_node_comms *nc;
    int rc = tc_ctx_node_comms(x, &nc), n = 0, p = x->size;
    if (rc != MPI_SUCCESS) return rc;
    if ((rc = PMPI_Comm_size(nc->local, &n)) != MPI_SUCCESS) return rc;
    int64_t *mine = malloc(2 * (size_t)p * sizeof *mine), *all = malloc(2 * (size_t)n * (size_t)p * sizeof *all);
    if (!mine || !all) rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) {
        memcpy(mine, scnt, (size_t)p * sizeof *mine);
        memcpy(mine + p, rcnt, (size_t)p * sizeof *mine);
        rc = PMPI_Allgather(mine, 2 * p, MPI_INT64_T, all, 2 * p, MPI_INT64_T, nc->local);
    }
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++) {
        memcpy(node_sc + (size_t)i * p, all + (size_t)i * 2 * p, (size_t)p * sizeof *all);
        memcpy(node_rc + (size_t)i * p, all + (size_t)i * 2 * p + p, (size_t)p * sizeof *all);
    }
    free(mine);
    free(all);
    return rc;
}

/* Generate and run the byte schedule. */
static int run_bytes(tc_ctx *x, const tc_algo *al, const tc_args *a, char *sbase, char *rbase)
{
    tc_sched sc;
    tc_bind b[TC_NBUF];
    tc_sched_init(&sc);
    int rc = tc_algo_generate(al, &sc, a, x->topo);
    if (rc == 0) rc = tc_sched_finish(&sc);
    rc = rc ? MPI_ERR_NO_MEM : tc_bind_type(&b[TC_BUF_SEND], sbase, MPI_BYTE);
    if (rc == MPI_SUCCESS) rc = tc_bind_type(&b[TC_BUF_RECV], rbase, MPI_BYTE);
    if (rc == MPI_SUCCESS) {
        tc_exec_env env = tc_ctx_env(x, MPI_OP_NULL);
        rc = tc_exec(&sc, b, &env);
    }
    tc_sched_free(&sc);
    return rc;
}

/* Counts that do not match inside my node (the user's error) are in the
 * node's rows: where my receive from a member is shorter than its send,
 * I report MPI_ERR_TRUNCATE, as the library's own MPI_Alltoallv would (the
 * schedules copy inside the node at most what both sides count). */
static int own_node_truncated(tc_ctx *x, const int64_t *S, const int64_t *R)
{
    int p = x->size, A = x->topo->node_of[x->rank], ia = x->topo->node_idx[x->rank];
    const int *m = tc_topo_node_members(x->topo, A);
    for (int i = 0; i < tc_topo_node_size(x->topo, A); i++)
        if (S[(size_t)i * p + x->rank] > R[(size_t)ia * p + m[i]]) return 1;
    return 0;
}

int tc_node_counts_run_bytes(tc_ctx *x, const tc_algo *al, const tc_args *a, const tc_node_bytes *nb)
{
    int p = x->size, n = tc_topo_node_size(x->topo, x->topo->node_of[x->rank]);
    int64_t *node_sc = malloc(2 * (size_t)n * (size_t)p * sizeof *node_sc + 1);
    if (!node_sc) return MPI_ERR_NO_MEM;
    int64_t *node_rc = node_sc + (size_t)n * p;
    int rc = exchange(x, nb->scnt, nb->rcnt, node_sc, node_rc);
    if (rc == MPI_SUCCESS) {
        tc_vcounts v = { nb->scnt, nb->sdsp, nb->rcnt, nb->rdsp };
        tc_args b = *a;
        b.v = &v;
        b.node_sc = node_sc;
        b.node_rc = node_rc;
        rc = run_bytes(x, al, &b, nb->sbase, nb->rbase);
    }
    if (rc == MPI_SUCCESS && own_node_truncated(x, node_sc, node_rc)) rc = MPI_ERR_TRUNCATE;
    free(node_sc);
    return rc;
}

int tc_node_counts_run(tc_ctx *x, const tc_algo *al, const tc_args *a, const tc_node_call *c)
{
    int p = x->size;
    int64_t *mem = malloc(4 * (size_t)p * sizeof *mem + 1);
    if (!mem) return MPI_ERR_NO_MEM;
    side s = { .cnt = mem, .dsp = mem + p }, r = { .cnt = mem + 2 * p, .dsp = mem + 3 * p };
    const int *scnt = c->in_place ? c->rcounts : c->scounts, *sdsp = c->in_place ? c->rdispls : c->sdispls;
    int rc = side_make(&r, p, c->rbuf, c->rtype, c->rcounts, c->rdispls);
    if (rc == MPI_SUCCESS) {
        if (c->in_place) s = r;   /* SEND is RECV (the schedule reads RECV) */
        else rc = side_make(&s, p, (void *)c->sbuf, c->stype, scnt, sdsp);
    }
    if (rc == MPI_SUCCESS && s.stage && !c->in_place) rc = side_copy(&s, p, scnt, sdsp, 1, x->comm);
    if (rc == MPI_SUCCESS && c->in_place && r.stage) rc = side_copy(&r, p, c->rcounts, c->rdispls, 1, x->comm);
    if (rc == MPI_SUCCESS) {
        tc_node_bytes nb = { side_base(&s), side_base(&r), s.cnt, s.dsp, r.cnt, r.dsp };
        rc = tc_node_counts_run_bytes(x, al, a, &nb);
    }
    if (rc == MPI_SUCCESS && r.stage) rc = side_copy(&r, p, c->rcounts, c->rdispls, 0, x->comm);
    if (!c->in_place) free(s.stage);
    free(r.stage);
    free(mem);
    return rc;
}
