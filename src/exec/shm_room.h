/*
 * Room for node-shared windows in their backing store.
 *
 * Both MPI libraries back MPI_Win_allocate_shared with a file in a memory
 * file system: Open MPI 4.1's osc/sm component puts it in its
 * osc_sm_backing_directory (default /dev/shm on Linux), MPICH's (MPL's
 * shared memory) in /dev/shm.  When that file system is too small (Docker
 * gives containers 64 MiB of /dev/shm) the library's allocation fails on
 * the rank that creates the segment while the other ranks of the node wait
 * inside the allocation for it: a hang, not an error.  So the window's
 * creator asks the file system first, and the node agrees before anyone
 * allocates (src/exec/shm.c).
 */
#ifndef TC_EXEC_SHM_ROOM_H
#define TC_EXEC_SHM_ROOM_H

#include <stddef.h>
#include <stdint.h>

typedef struct tc_shm_room {
    char dir[256];     /* the backing directory asked ("" when none could be asked) */
    uint64_t avail;    /* bytes free there for an unprivileged writer */
} tc_shm_room;

/* Whether `bytes` (and a little slack: 1/64 and 64 KiB) fit in the backing
 * store of shared windows: 1 when they do or when the store cannot be
 * asked (no such directory: the MPI library then uses another place, and
 * its own allocation decides), 0 when they do not.  *r says where and how
 * much was free. */
int tc_shm_room_check(size_t bytes, tc_shm_room *r);

#endif
