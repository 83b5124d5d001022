/* Room for node-shared windows in their backing store (see shm_room.h). */
#define _POSIX_C_SOURCE 200809L
#include "exec/shm_room.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

/* Open MPI's osc/sm reads its MCA parameter from the environment as
 * OMPI_MCA_osc_sm_backing_directory (mpirun --mca sets it so); every other
 * case, MPICH's included, is /dev/shm. */
static const char *backing_dir(void)
{
    const char *d = getenv("OMPI_MCA_osc_sm_backing_directory");
    return d && *d ? d : "/dev/shm";
}

int tc_shm_room_check(size_t bytes, tc_shm_room *r)
{
    struct statvfs st;
    const char *dir = backing_dir();
    snprintf(r->dir, sizeof r->dir, "%s", dir);
    r->avail = UINT64_MAX;
    if (statvfs(dir, &st) != 0) {
        r->dir[0] = '\0';
        return 1;
    }
    r->avail = (uint64_t)st.f_bavail * (uint64_t)(st.f_frsize ? st.f_frsize : st.f_bsize);
    /* the library's segment is a little larger (Open MPI adds a header
     * of a few KiB), and its other segments share the store */
    uint64_t slack = (uint64_t)bytes / 64 + ((uint64_t)1 << 16);
    return (uint64_t)bytes + slack <= r->avail;
}
