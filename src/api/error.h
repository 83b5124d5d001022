/*
 * Errors: an MPI error class plus a message.  The message becomes an MPI
 * error code of that class (MPI_Add_error_code / MPI_Add_error_string), so
 * MPI_Error_string tells the user what was wrong, and the code is raised
 * through the communicator's error handler.
 */
#ifndef TC_ERROR_H
#define TC_ERROR_H

#include <mpi.h>

/* Raise an error on comm (MPI_COMM_WORLD when comm is MPI_COMM_NULL) and
 * return the code to give back to the caller. */
int tc_raise(MPI_Comm comm, int err_class, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Raise an error returned by an MPI call inside topocoll. */
int tc_raise_mpi(MPI_Comm comm, int mpi_err, const char *where);

#endif
