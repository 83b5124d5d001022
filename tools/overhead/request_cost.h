/* topocoll-overhead -m nb: a nonblocking call's cost beside the generalized
 * request's round trip (request_cost.c). */
#ifndef TOPOCOLL_TOOLS_REQUEST_COST_H
#define TOPOCOLL_TOOLS_REQUEST_COST_H

/* Whether -m nb measures the collective. */
int request_cost_known(const char *coll);

/* Prints, on rank 0 of MPI_COMM_WORLD, the six forms' medians; nonzero if a
 * call failed or memory ran out. */
int request_cost_measure(const char *coll, int bytes, int calls, int batches);

#endif
