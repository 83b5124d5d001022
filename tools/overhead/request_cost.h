/* topocoll-overhead -m nb: a nonblocking call's cost beside the generalized
 * request's round trip (request_cost.c). */
#ifndef TOPOCOLL_TOOLS_REQUEST_COST_H
#define TOPOCOLL_TOOLS_REQUEST_COST_H

#include <mpi.h>

/* One blocking call of a collective over buffers s and r of n bytes per
 * block (direct: PMPI_, else MPI_ through whatever is preloaded). */
typedef int (*overhead_call_fn)(int direct, void *s, void *r, int n, MPI_Comm comm);

/* Whether -m nb measures the collective. */
int request_cost_known(const char *coll);

/* Prints, on rank 0 of MPI_COMM_WORLD, the forms' medians (blocking: the
 * collective's blocking call); nonzero if a call failed or memory ran out. */
int request_cost_measure(const char *coll, overhead_call_fn blocking, int bytes, int calls, int batches);

/* -m nbonly: a program that makes nonblocking calls only (no blocking
 * collective through the interposer): MPI_I<coll> + MPI_Wait against
 * PMPI_I<coll> + MPI_Wait in alternating batches; prints rank 0's line;
 * nonzero if a call failed or memory ran out. */
int request_cost_nbonly(const char *coll, int bytes, int calls, int batches);

#endif
