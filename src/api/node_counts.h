/* Per-peer-count entries whose schedule needs the count rows of the whole
 * node (TC_REQ_NODE_COUNTS: the hierarchical alltoallv): the counts are
 * exchanged node-locally first, then the schedule runs on the buffers as
 * bytes.  Run here, in the MPI layer. */
#ifndef TC_API_NODE_COUNTS_H
#define TC_API_NODE_COUNTS_H

#include <mpi.h>
#include "api/context.h"

/* One alltoallv call: the user's arguments (in place: the input is in rbuf,
 * described by rcounts and rdispls; scounts and sdispls are not read). */
typedef struct tc_node_call {
    const void *sbuf;
    const int *scounts, *sdispls;
    MPI_Datatype stype;
    void *rbuf;
    const int *rcounts, *rdispls;
    MPI_Datatype rtype;
    int in_place;
} tc_node_call;

/* Runs al (TC_REQ_NODE_COUNTS) for the call on x's communicator: a (the
 * normalised arguments) with every count in bytes and the node's rows;
 * returns an MPI error code. */
int tc_node_counts_run(tc_ctx *x, const tc_algo *al, const tc_args *a, const tc_node_call *c);

/* ---- shared by the compositions (node_counts.c, node_counts_dt.c) ---- */

/* What a composition needs: my node, the node's rows (bytes), the call. */
typedef struct tc_nc_comp {
    tc_ctx *x;
    const tc_node_comms *nc;
    const int64_t *S, *R;          /* node rows: [i*p + j] */
    int p, G, A, n, ia;
} tc_nc_comp;

/* k for the call (the cached node and bridge communicators). */
int tc_nc_comp_init(tc_nc_comp *k, tc_ctx *x, const int64_t *S, const int64_t *R);
/* Bytes member i of my node sends to (rows S) or receives from (rows R)
 * the ranks of node B. */
int64_t tc_nc_row_sum(const tc_nc_comp *k, const int64_t *rows, int i, int B);
/* Whether every node root's buffers pass MPI's int counts, agreed over the
 * communicator (one MPI_Allreduce); *all 0: call the library's own. */
int tc_nc_roots_fit(const tc_nc_comp *k, int *all);
/* The library's own MPI_Alltoallv for the call. */
int tc_nc_native(const tc_nc_comp *k, const tc_node_call *c);
/* The root's gathered rows (g, gd) and scattered chunks (f, fd), [n] each,
 * in bytes. */
void tc_nc_root_rows(const tc_nc_comp *k, int *g, int *gd, int *f, int *fd);
/* n + 1 bytes x of the context's staging workspace, 64-byte aligned, for
 * the root's two buffers (one byte to spare for the error path). */
int tc_nc_root_buffers(const tc_nc_comp *k, size_t pre, size_t bytes, char **pk, char **g, char **o);

/* The zero-copy composition "bridge_dt" (node_counts_dt.c): bc, bytes per
 * peer of my input and output (node_call's vectors in bytes). */
int tc_node_counts_dt(tc_nc_comp *k, const tc_node_call *c);

#endif
