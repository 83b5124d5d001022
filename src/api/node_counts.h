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

/* The same at the byte level: both sides already bytes (SEND's part j is
 * sbase[sdsp[j], scnt[j]], RECV's rbase[rdsp[j], rcnt[j]]; in place, with
 * a->in_place, SEND is RECV: the same base, counts and displacements).
 * The node's rows exchanged, the schedule run, MPI_ERR_TRUNCATE for counts
 * that do not match inside my node. */
typedef struct tc_node_bytes {
    char *sbase, *rbase;
    const int64_t *scnt, *sdsp, *rcnt, *rdsp;   /* [p] bytes */
} tc_node_bytes;
int tc_node_counts_run_bytes(tc_ctx *x, const tc_algo *al, const tc_args *a, const tc_node_bytes *nb);

#endif
