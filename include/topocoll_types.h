/* topocoll types that need no MPI header (shared with the MPI-free parts:
 * schedule generators, verifier, simulator). */
#ifndef TOPOCOLL_TYPES_H
#define TOPOCOLL_TYPES_H

#include "topocoll_colls.h"

/* Collectives known to the catalog: one value per row of the list
 * (topocoll_colls.h), in its order, from 0. */
#define TOPOCOLL_ENUM_ROW(UPPER, lower, Mpi, SHAPE) TOPOCOLL_##UPPER,
typedef enum topocoll_coll {
    TOPOCOLL_COLLS(TOPOCOLL_ENUM_ROW)
    TOPOCOLL_NCOLL
} topocoll_coll;
#undef TOPOCOLL_ENUM_ROW

#endif
