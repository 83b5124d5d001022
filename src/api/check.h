/*
 * TOPOCOLL_CHECK=1: before a call runs, one small reduction over the
 * communicator's private duplicate verifies that every rank chose the same
 * algorithm and passed matching arguments (root, op, the reduction's
 * datatype, the bytes of a block, per-peer counts against the peers'), and
 * a disagreement becomes an MPI error on every rank, raised through the
 * communicator's error handler, whose message names it and two ranks that
 * differ, instead of a hang.  docs/design.md, "Agreement".
 *
 * Per-peer counts (alltoallv) are checked pairwise: an alltoall of the
 * bytes each rank sends to each peer, compared by the receiver with what it
 * expects, before the reduction.  A debugging mode: the full path serves
 * every call while it is on (no per-call memo).
 */
#ifndef TC_API_CHECK_H
#define TC_API_CHECK_H

#include <mpi.h>

#include "api/context.h"
#include "coll/desc.h"

/* What the check compares, as the call's argument checks left it. */
typedef struct tc_check_call {
    const char *fn;           /* the public caller, for the message */
    const tc_coll_desc *d;
    const tc_algo *algo;      /* the choice about to run */
    int root;                 /* 0 where the collective has none */
    MPI_Op op;                /* reductions */
    MPI_Datatype type;        /* the reduction's datatype */
    int count[2];             /* [TC_BUF_SEND], [TC_BUF_RECV] (per-peer: unused) */
    int tsize[2];             /* their datatypes' sizes */
    int use[2];               /* significant at this rank */
    const int *vcnt[2];       /* per-peer counts, NULL where none */
    int in_place;
} tc_check_call;

/* The check of one call on x's communicator comm (the user's, for the
 * error handler): MPI_SUCCESS when every rank agrees, else the error code
 * raised (the same class and message on every rank).  A malformed
 * TOPOCOLL_CHECK is an MPI_ERR_ARG error on every call, before any message. */
int tc_check(tc_ctx *x, MPI_Comm comm, const tc_check_call *k);

/* The same from a rank whose own argument checks failed (own_rc, raised
 * already): it takes its part in the others' check, so that they fail too
 * instead of waiting for it, and returns own_rc.  Not for allreduce and
 * alltoallv, whose ranks may communicate before their check: there it
 * returns own_rc at once, as without the check. */
int tc_check_failed(tc_ctx *x, MPI_Comm comm, const char *fn, const tc_coll_desc *d, int own_rc);

#endif
