/*
 * The LD_PRELOAD interposer: MPI_* entry points that route through topocoll.
 * What topocoll does not cover (inter-communicators, TOPOCOLL_DISABLE=1)
 * goes to the PMPI_ function untouched.  topocoll itself calls only PMPI_
 * functions, so nothing recurses.
 */
#include <mpi.h>

#include "topocoll.h"
#include "core/config.h"

static int covered(MPI_Comm comm)
{
    int inter = 0;
    if (tc_config_get()->disable || comm == MPI_COMM_NULL) return 0;
    return PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && !inter;
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    if (!covered(comm))
        return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return topocoll_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
