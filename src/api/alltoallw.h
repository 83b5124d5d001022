/* MPI_Alltoallw's call path (per-peer datatypes): see alltoallw.c. */
#ifndef TC_API_ALLTOALLW_H
#define TC_API_ALLTOALLW_H

#include "api/call.h"

/* The whole call of a record with per-peer datatypes (tc_call.vtype):
 * MPI_SUCCESS or the error raised on c->comm. */
int tc_alltoallw_call(tc_call *c, int by_name, const char *algorithm);
/* The memo's pass-through (pass.h's TC_PASS_TYPE_VECTORS): 1 when the
 * call repeats the communicator's last alltoallw by selection whose choice
 * was the MPI library's own (the same counts and datatypes, compared by
 * content), which the caller then hands to PMPI_Alltoallw; else 0. */
int tc_alltoallw_pass(MPI_Comm comm, const void *sbuf, const int *scounts, const MPI_Datatype *stypes,
                      const void *rbuf, const int *rcounts, const MPI_Datatype *rtypes);
/* A hierarchical entry (TC_REQ_NODE_COUNTS, src/algo/alltoallw/
 * hierarchical.c) for the checked call on x: the parts packed to bytes
 * (contiguous sides bound where they lie), the hierarchical alltoallv
 * schedule in bytes, the receive parts unpacked (alltoallw_hier.c).  a: the
 * call's block arguments (in place, node_shm).  An MPI error code. */
int tc_alltoallw_hier_run(tc_ctx *x, const tc_call *c, const tc_algo *al, const tc_args *a);

#endif
