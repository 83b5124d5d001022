/* Communicators and windows without a progress callback left behind (see
 * comm_make.h). */
#include "detect/comm_make.h"

/* The tag of topocoll's MPI_Comm_create_group calls: MPI keeps it apart
 * from point-to-point tags; concurrent calls on one communicator cannot
 * happen (each is inside a collective call on it). */
#define TC_CREATE_GROUP_TAG 0x7c01

/* A duplicate of comm by MPI_Comm_create_group, with comm's error handler;
 * MPI_COMM_NULL where it cannot be made (then the caller uses comm). */
static MPI_Comm scratch_of(MPI_Comm comm)
{
    int inter = 0;
    MPI_Group group;
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Errhandler eh;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) return MPI_COMM_NULL;
    if (PMPI_Comm_group(comm, &group) != MPI_SUCCESS) return MPI_COMM_NULL;
    int rc = PMPI_Comm_create_group(comm, group, TC_CREATE_GROUP_TAG, &dup);
    (void)PMPI_Group_free(&group);
    if (rc != MPI_SUCCESS) return MPI_COMM_NULL;
    if (PMPI_Comm_get_errhandler(comm, &eh) == MPI_SUCCESS) {
        (void)PMPI_Comm_set_errhandler(dup, eh);
        (void)PMPI_Errhandler_free(&eh);
    }
    return dup;
}

int tc_comm_dup(MPI_Comm comm, MPI_Comm *out)
{
    *out = scratch_of(comm);
    return *out != MPI_COMM_NULL ? MPI_SUCCESS : PMPI_Comm_dup(comm, out);
}

int tc_comm_split(MPI_Comm comm, int color, int key, MPI_Comm *out)
{
    MPI_Comm parent = scratch_of(comm);
    int rc = PMPI_Comm_split(parent != MPI_COMM_NULL ? parent : comm, color, key, out);
    if (parent != MPI_COMM_NULL) (void)PMPI_Comm_free(&parent);
    return rc;
}

int tc_comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *out)
{
    MPI_Comm parent = scratch_of(comm);
    int rc = PMPI_Comm_split_type(parent != MPI_COMM_NULL ? parent : comm, type, key, info, out);
    if (parent != MPI_COMM_NULL) (void)PMPI_Comm_free(&parent);
    return rc;
}

int tc_win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    MPI_Comm parent = scratch_of(comm);
    int rc = PMPI_Win_allocate_shared(size, disp_unit, info, parent != MPI_COMM_NULL ? parent : comm, baseptr, win);
    if (parent != MPI_COMM_NULL) (void)PMPI_Comm_free(&parent);
    return rc;
}
