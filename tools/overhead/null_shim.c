/*
 * libtopocoll_null_shim.so: an interposer that does nothing.  Its MPI_<Coll>
 * for every collective of the list (include/topocoll_colls.h) calls
 * PMPI_<Coll> with the same arguments and returns its result.
 *
 * Preloaded (LD_PRELOAD), it costs a call what any PMPI layer costs one: the
 * program's call reaches the shim through the dynamic linker's table, and
 * the shim's reaches the MPI library the same way.  topocoll-bench's
 * "interposed" column (MPI_<Coll>) then measures that floor beside "native"
 * (PMPI_<Coll>) and "auto" (topocoll's selection, whose pass-through hands a
 * settled native choice to PMPI_<Coll>): the least a library in front of
 * MPI adds to a call of a few hundred nanoseconds.
 */
#include <mpi.h>

#include "topocoll_colls.h"
#include "topocoll_shapes.h"

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#define NULL_SHIM(UPPER, lower, Mpi, SHAPE)                                                        \
    int MPI_##Mpi(TOPOCOLL_PARAMS_##SHAPE) { return PMPI_##Mpi(TOPOCOLL_ARGS_##SHAPE); }

TOPOCOLL_COLLS(NULL_SHIM)

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
