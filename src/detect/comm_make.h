/*
 * The communicators and windows topocoll makes for itself, made without
 * leaving a callback in the MPI library's progress engine.
 *
 * Why: Open MPI 4.1 agrees on a new communicator's context id with a
 * nonblocking allreduce over the parent communicator (MPI_Comm_dup,
 * MPI_Comm_split, MPI_Comm_split_type, and the duplicate the one-sided
 * component makes inside MPI_Win_allocate_shared).  Its libnbc component
 * then registers a progress function that every later MPI_Test, MPI_Wait
 * and their forms run, for as long as that parent lives: MPI_COMM_WORLD's
 * lasts to the end.  A program that makes no communicator of its own paid
 * about 10 % of a tight MPI_Testany loop for the library's communicators
 * (HPC Challenge's RandomAccess, docs/apps.md).  MPI_Comm_create_group
 * agrees with point-to-point messages instead.  So:
 *
 *   - a duplicate is MPI_Comm_create_group over the whole group;
 *   - a split, a split by type and a window of node-shared memory are made
 *     from such a duplicate (the scratch parent), freed right after: the
 *     registration goes with it (libnbc unregisters its progress function
 *     when no communicator it served is left).
 *
 * Where MPI_Comm_create_group fails (an inter-communicator; an MPI library
 * without it) the plain call is made on comm.  Collective over comm, as the
 * calls they stand for; the results are those calls' (rank order, colors,
 * MPI_COMM_NULL for MPI_UNDEFINED); the error handler is comm's.
 *
 * Attributes: Open MPI 4.1's MPI_Comm_create_group copies comm's attributes
 * as MPI_Comm_dup does (MPICH's does not).  So a context's duplicate of the
 * application's communicator carries copies as a duplicate would, and
 * everything else is made from that duplicate, never from the application's
 * communicator (the scratch parents' copies are deleted with them).
 * (In the lowest MPI layer: detection makes communicators too.)
 */
#ifndef TC_DETECT_COMM_MAKE_H
#define TC_DETECT_COMM_MAKE_H

#include <mpi.h>

int tc_comm_dup(MPI_Comm comm, MPI_Comm *out);
int tc_comm_split(MPI_Comm comm, int color, int key, MPI_Comm *out);
int tc_comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *out);
/* MPI_Win_allocate_shared over comm's ranks (baseptr as in MPI: a void **). */
int tc_win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win);

#endif
