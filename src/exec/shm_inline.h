/*
 * The inline shared-memory allreduce protocol (the catalog entry
 * "shm_inline", src/algo/allreduce/shm_inline.c): every rank writes its
 * vector into its slot of node-shared 64-byte lines, each line carrying
 * 56 bytes of data and the call's sequence number, then reads every rank's
 * slot and reduces all contributions in rank order.
 */
#ifndef TC_EXEC_SHM_INLINE_H
#define TC_EXEC_SHM_INLINE_H

#include <mpi.h>

#include "exec/shm.h"
#include "exec/exec_mpi.h"

/* One call on the node of sh (every rank of the communicator on it):
 * recv = contributions of node ranks 0..n-1 reduced in that order.  sbuf
 * MPI_IN_PLACE: the input is in rbuf.  ws gives scratch.  Returns an MPI
 * error code; errors of the MPI library's reduction are returned after the
 * rank has read every slot, so that no peer is left waiting. */
int tc_shm_inline_allreduce(tc_shm *sh, tc_workspace *ws, MPI_Comm comm, const void *sbuf, void *rbuf,
                            int count, MPI_Datatype type, MPI_Op op);

#endif
