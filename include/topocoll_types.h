/* topocoll types that need no MPI header (shared with the MPI-free parts:
 * schedule generators, verifier, simulator). */
#ifndef TOPOCOLL_TYPES_H
#define TOPOCOLL_TYPES_H

/* Collectives known to the catalog. */
typedef enum topocoll_coll {
    TOPOCOLL_ALLGATHER = 0,
    TOPOCOLL_BCAST,
    TOPOCOLL_SCATTER,
    TOPOCOLL_GATHER,
    TOPOCOLL_REDUCE,
    TOPOCOLL_REDUCE_SCATTER_BLOCK,
    TOPOCOLL_ALLTOALL,
    TOPOCOLL_ALLTOALLV,
    TOPOCOLL_ALLREDUCE,
    TOPOCOLL_ALLGATHERV,
    TOPOCOLL_SCAN,
    TOPOCOLL_EXSCAN,
    TOPOCOLL_NCOLL
} topocoll_coll;

#endif
