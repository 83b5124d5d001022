/*
 * The zero-copy composition of the hierarchical alltoallv (alltoallv
 * "bridge_dt", src/algo/alltoallv/bridge_dt.c): Träff, Rougier, "MPI
 * Collectives and Datatypes for Hierarchical All-to-all Communication"
 * (2014), sections 2.3 and 2.4, with derived datatypes instead of pack and
 * unpack copies.  After the node's counts (node_counts.c):
 *   1. MPI_Gatherv to the node root: every rank sends its parts in
 *      node-sorted order straight from its buffer (an indexed type of its
 *      send type: one block per peer, counts and displacements its own);
 *      the root stores the rows consecutively, [i][B][j] (bytes);
 *   2. MPI_Alltoallw over the bridge of roots: to node B one hindexed type
 *      over the rows that picks the parts for B's ranks in the order
 *      [j of B][i of A] (the paper's first solution: the all-to-all's types
 *      pick, as they must for nodes of different sizes), from node B one
 *      that places the bundle [j of A][i of B] into the members' chunks
 *      [j][B][i];
 *   3. MPI_Scatterv of the chunks: every rank receives straight into its
 *      buffer (an indexed type of its receive type in node-sorted order).
 * No copy by topocoll; 2 + 2 G datatypes made and freed per call.  The
 * root's buffers hold bytes (the paper: "strictly incorrect", since MPI has
 * no typed signature buffer; every MPI the project runs on is homogeneous).
 * In place: the gather reads the receive buffer before the scatter writes.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include "api/node_counts.h"

static void free_type(MPI_Datatype *t)
{
    if (*t != MPI_DATATYPE_NULL) (void)PMPI_Type_free(t);
    *t = MPI_DATATYPE_NULL;
}

/* My parts (cnt, dsp: the user's, in elements of type) in node-sorted
 * order as one indexed type over the user's buffer. */
static int sorted_parts(const tc_nc_comp *k, const int *cnt, const int *dsp, MPI_Datatype type, MPI_Datatype *out)
{
    int *len = malloc(2 * (size_t)k->p * sizeof *len + 1), rc;
    if (!len) return MPI_ERR_NO_MEM;
    int *at = len + k->p;
    for (int y = 0; y < k->p; y++) {
        int j = k->x->topo->node_ranks[y];
        len[y] = cnt[j];
        at[y] = cnt[j] ? dsp[j] : 0;
    }
    rc = PMPI_Type_indexed(k->p, len, at, type, out);
    free(len);
    return rc == MPI_SUCCESS ? PMPI_Type_commit(out) : rc;
}

/* Root: node B's type.  dir 0 (send): the parts for B's ranks out of the
 * rows, [j of B][i of A] (cur: where B's segment starts in each row i);
 * dir 1 (receive): B's bundle [j of A][i of B] into the chunks (cur: where
 * B's part starts in each chunk j).  The cursors end past B. */
static int node_type(const tc_nc_comp *k, int B, int64_t *cur, int dir, MPI_Datatype *out)
{
    const int *m = tc_topo_node_members(k->x->topo, B);
    int n = k->n, nB = tc_topo_node_size(k->x->topo, B), cells = n * nB, c = 0, rc = MPI_ERR_NO_MEM;
    int *len = malloc((size_t)cells * sizeof *len + 1);
    MPI_Aint *at = malloc((size_t)cells * sizeof *at + 1);
    for (int y = 0; len && at && y < (dir ? n : nB); y++)
        for (int z = 0; z < (dir ? nB : n); z++, c++) {
            int i = dir ? y : z;   /* the member of my node: whose row (0) or chunk (1) */
            int64_t part = dir ? k->R[(size_t)i * k->p + m[z]] : k->S[(size_t)i * k->p + m[y]];
            len[c] = (int)part;
            at[c] = (MPI_Aint)cur[i];
            cur[i] += part;
        }
    if (len && at) {
        rc = PMPI_Type_create_hindexed(cells, len, at, MPI_BYTE, out);
        if (rc == MPI_SUCCESS) rc = PMPI_Type_commit(out);
    }
    free(len);
    free(at);
    return rc;
}

/* Root: the bridge exchange with a type per node, both ways. */
static int root_exchange(const tc_nc_comp *k, char *g, char *o, const int *gd, const int *fd)
{
    int G = k->G, rc = MPI_SUCCESS;
    MPI_Datatype *ty = malloc(2 * (size_t)G * sizeof *ty + 1);
    int *cnt = malloc(3 * (size_t)G * sizeof *cnt + 1);   /* send counts, receive counts, zeros */
    int64_t *cur = malloc(2 * (size_t)k->n * sizeof *cur + 1);   /* rows, then chunks */
    if (!ty || !cnt || !cur) rc = MPI_ERR_NO_MEM;
    for (int B = 0; ty && B < 2 * G; B++) ty[B] = MPI_DATATYPE_NULL;
    for (int i = 0; rc == MPI_SUCCESS && i < k->n; i++) cur[i] = gd[i], cur[k->n + i] = fd[i];
    for (int B = 0; rc == MPI_SUCCESS && B < G; B++) {
        int64_t out = 0, in = 0;
        for (int i = 0; i < k->n; i++) out += tc_nc_row_sum(k, k->S, i, B), in += tc_nc_row_sum(k, k->R, i, B);
        cnt[B] = out > 0, cnt[G + B] = in > 0, cnt[2 * G + B] = 0;   /* empty: count 0 (see compose) */
        rc = node_type(k, B, cur, 0, &ty[B]);
        if (rc == MPI_SUCCESS) rc = node_type(k, B, cur + k->n, 1, &ty[G + B]);
    }
    if (rc == MPI_SUCCESS)
        rc = PMPI_Alltoallw(g, cnt, cnt + 2 * G, ty, o, cnt + G, cnt + 2 * G, ty + G, k->nc->bridge);
    for (int B = 0; ty && B < 2 * G; B++) free_type(&ty[B]);
    free(ty);
    free(cnt);
    free(cur);
    return rc;
}

/* The exchange's error as the call reports it: Open MPI 4.1's
 * MPI_Alltoallw reports a truncated receive (counts that do not match
 * between nodes: the user's error) as MPI_ERR_IN_STATUS or MPI_ERR_OTHER,
 * as its MPI_Alltoallv does at times; with valid local arguments, that is
 * what those classes mean here, and they are reported as MPI_ERR_TRUNCATE,
 * the class the library's own MPI_Alltoallv gives at the receiver. */
static int exchange_error(int rc)
{
    int cls = MPI_ERR_OTHER;
    if (rc == MPI_SUCCESS || PMPI_Error_class(rc, &cls) != MPI_SUCCESS) return rc;
    return cls == MPI_ERR_IN_STATUS || cls == MPI_ERR_OTHER ? MPI_ERR_TRUNCATE : rc;
}

/* Gatherv, the roots' exchange, Scatterv; L: the root's rows and chunks
 * (NULL elsewhere); in_t, out_t: my node-sorted types. */
static int compose(const tc_nc_comp *k, const tc_node_call *c, int *L, char *g, char *o, MPI_Datatype in_t,
                   MPI_Datatype out_t)
{
    int n = k->n, root = L != NULL;
    const void *in = c->in_place ? c->rbuf : c->sbuf;
    int64_t mine = 0, theirs = 0;   /* an empty type goes as count 0: MPIs match counts, not sizes */
    for (int B = 0; B < k->G; B++)
        mine += tc_nc_row_sum(k, k->S, k->ia, B), theirs += tc_nc_row_sum(k, k->R, k->ia, B);
    int rc = PMPI_Gatherv(in, mine > 0, in_t, g, L, root ? L + n : NULL, MPI_BYTE, 0, k->nc->local);
    if (rc != MPI_SUCCESS) return rc;
    /* as the packing composition (node_counts.c): a failed exchange still
     * scatters, one byte more to the other ranks of the node, so that they
     * report the truncation too */
    int xrc = root ? exchange_error(root_exchange(k, g, o, L + n, L + 3 * n)) : MPI_SUCCESS;
    for (int i = 1; xrc != MPI_SUCCESS && i < n; i++)
        if (L[2 * n + i] > 0 && L[2 * n + i] < INT_MAX) L[2 * n + i]++;   /* none where nothing is expected */
    rc = PMPI_Scatterv(o, root ? L + 2 * n : NULL, root ? L + 3 * n : NULL, MPI_BYTE, c->rbuf, theirs > 0, out_t, 0,
                       k->nc->local);
    return xrc != MPI_SUCCESS ? xrc : rc;
}

int tc_node_counts_dt(tc_nc_comp *k, const tc_node_call *c)
{
    int all = 0, rc = tc_nc_roots_fit(k, &all), n = k->n;
    if (rc != MPI_SUCCESS) return rc;
    if (!all) return tc_nc_native(k, c);   /* some root's buffer passes MPI's int counts */
    MPI_Datatype in_t = MPI_DATATYPE_NULL, out_t = MPI_DATATYPE_NULL;
    int *L = k->ia == 0 ? malloc(4 * (size_t)n * sizeof *L) : NULL;
    char *pk = NULL, *g = NULL, *o = NULL;
    if (k->ia == 0 && !L) return MPI_ERR_NO_MEM;
    int64_t out = 0, in = 0;
    if (L) tc_nc_root_rows(k, L, L + n, L + 2 * n, L + 3 * n);
    for (int i = 0; L && i < n; i++) out += L[i], in += L[2 * n + i];
    rc = tc_nc_root_buffers(k, 0, (size_t)(out > in ? out : in), &pk, &g, &o);
    if (rc == MPI_SUCCESS)
        rc = c->in_place ? sorted_parts(k, c->rcounts, c->rdispls, c->rtype, &in_t)
                         : sorted_parts(k, c->scounts, c->sdispls, c->stype, &in_t);
    if (rc == MPI_SUCCESS) rc = sorted_parts(k, c->rcounts, c->rdispls, c->rtype, &out_t);
    if (rc == MPI_SUCCESS) rc = compose(k, c, L, g, o, in_t, out_t);
    free_type(&in_t);
    free_type(&out_t);
    free(L);
    return rc;
}
