/*
 * The nonblocking call path: a collective started without waiting, its
 * operation advanced by MPI's wait and test calls (src/api/nb_requests.c).
 */
#ifndef TC_API_NB_CALL_H
#define TC_API_NB_CALL_H

#include <mpi.h>

/* The MPI library's own persistent collective (MPI-4), else
 * MPI_ERR_UNSUPPORTED_OPERATION. */
#if MPI_VERSION >= 4
#define TC_NB_NATIVE_INIT(Mpi, ...) return PMPI_##Mpi##_init(__VA_ARGS__)
#else
#define TC_NB_NATIVE_INIT(Mpi, ...) return tc_nb_no_native_init(0, __VA_ARGS__)
/* MPI_ERR_UNSUPPORTED_OPERATION, whatever the arguments. */
int tc_nb_no_native_init(int unused, ...);
#endif

#endif
