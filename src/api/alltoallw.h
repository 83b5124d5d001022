/* MPI_Alltoallw's call path (per-peer datatypes): see alltoallw.c. */
#ifndef TC_API_ALLTOALLW_H
#define TC_API_ALLTOALLW_H

#include "api/call.h"

/* The whole call of a record with per-peer datatypes (tc_call.vtype):
 * MPI_SUCCESS or the error raised on c->comm. */
int tc_alltoallw_call(tc_call *c, int by_name, const char *algorithm);

#endif
