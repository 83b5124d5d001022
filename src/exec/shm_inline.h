/*
 * The inline shared-memory protocol (the catalog entries "shm_inline" of
 * allreduce, allgather, bcast and reduce: src/algo/<coll>/shm_inline.c):
 * a rank publishes n bytes into its slot of node-shared 64-byte lines, each
 * line carrying 56 bytes of data and the call's sequence number; a reader
 * collects a rank's n bytes of this call line by line as they arrive.
 *
 * Every function is one call on the node of sh (every rank of the
 * communicator on it, so node ranks are the communicator's ranks), made by
 * every rank with the same byte count; ws gives scratch.  They return an MPI
 * error code; an error of the MPI library (pack, unpack, reduction) is
 * returned after the rank has published and read what the call asks of it,
 * so that no peer is left waiting.
 */
#ifndef TC_EXEC_SHM_INLINE_H
#define TC_EXEC_SHM_INLINE_H

#include <mpi.h>

#include "exec/shm.h"
#include "exec/exec_mpi.h"

/* recv = contributions of node ranks 0..n-1 reduced in that order.  sbuf
 * MPI_IN_PLACE: the input is in rbuf. */
int tc_shm_inline_allreduce(tc_shm *sh, tc_workspace *ws, MPI_Comm comm, const void *sbuf, void *rbuf,
                            int count, MPI_Datatype type, MPI_Op op);

/* Block r of rbuf (rcount elements of rtype at r rcount extents) = rank r's
 * send buffer.  sbuf MPI_IN_PLACE: the own block is already in rbuf. */
int tc_shm_inline_allgather(tc_shm *sh, tc_workspace *ws, MPI_Comm comm, const void *sbuf, int scount,
                            MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype);

/* buf = root's buf. */
int tc_shm_inline_bcast(tc_shm *sh, tc_workspace *ws, MPI_Comm comm, void *buf, int count, MPI_Datatype type,
                        int root);

/* At the root, rbuf = contributions of ranks 0..n-1 reduced in that order;
 * rbuf is not touched elsewhere.  sbuf MPI_IN_PLACE (root only): the root's
 * input is in rbuf. */
int tc_shm_inline_reduce(tc_shm *sh, tc_workspace *ws, MPI_Comm comm, const void *sbuf, void *rbuf, int count,
                         MPI_Datatype type, MPI_Op op, int root);

#endif
