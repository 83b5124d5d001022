/*
 * The MPI library's own persistent collectives, where it has them:
 * MPI-4's MPI_<Coll>_init (MPICH 4), or Open MPI 4's extension
 * MPIX_<Coll>_init (its "pcollreq" extension, declared in mpi-ext.h).
 *
 *   TC_HAVE_MPI_PERSISTENT   1 where one of them exists
 *   TC_HAVE_MPIX_PERSISTENT  1 where it is Open MPI's extension
 *   TC_MPI_INIT(Mpi)         the init for MPI_<Mpi> an application calls
 *                            (MPI_<Mpi>_init or MPIX_<Mpi>_init: topocoll's
 *                            through the interposer)
 *   TC_PMPI_INIT(Mpi)        the library's own init for MPI_<Mpi>
 *                            (PMPI_<Mpi>_init or PMPIX_<Mpi>_init)
 *   TC_MPI_INIT_NAME         "MPI_<Coll>_init" or "MPIX_<Coll>_init"
 * Tools and tests include it too.
 */
#ifndef TC_API_MPI_PERSISTENT_H
#define TC_API_MPI_PERSISTENT_H

#include <mpi.h>

#if MPI_VERSION >= 4
#define TC_HAVE_MPI_PERSISTENT 1
#define TC_HAVE_MPIX_PERSISTENT 0
#define TC_MPI_INIT(Mpi) MPI_##Mpi##_init
#define TC_PMPI_INIT(Mpi) PMPI_##Mpi##_init
#define TC_MPI_INIT_NAME "MPI_<Coll>_init"
#elif defined(OPEN_MPI)
#include <mpi-ext.h>
#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define TC_HAVE_MPI_PERSISTENT 1
#define TC_HAVE_MPIX_PERSISTENT 1
#define TC_MPI_INIT(Mpi) MPIX_##Mpi##_init
#define TC_PMPI_INIT(Mpi) PMPIX_##Mpi##_init
#define TC_MPI_INIT_NAME "MPIX_<Coll>_init"
#endif
#endif

#ifndef TC_HAVE_MPI_PERSISTENT
#define TC_HAVE_MPI_PERSISTENT 0
#define TC_HAVE_MPIX_PERSISTENT 0
#define TC_MPI_INIT_NAME "MPI_<Coll>_init"
#endif

#endif
