/*
 * The LD_PRELOAD interposer: MPI_Allgather, MPI_Bcast, MPI_Scatter,
 * MPI_Gather, MPI_Reduce, MPI_Reduce_scatter_block, MPI_Alltoall,
 * MPI_Alltoallv, MPI_Allreduce, MPI_Allgatherv, MPI_Scan and MPI_Exscan route
 * through topocoll.
 * What topocoll does not cover (inter-communicators, TOPOCOLL_DISABLE=1)
 * goes to the PMPI_ function untouched (and is counted as such in the run
 * summary, TOPOCOLL_STATS); MPI_COMM_NULL is an error topocoll reports.
 * MPI_Finalize gathers the run summary first.  topocoll itself calls only
 * PMPI_ functions, so nothing recurses.  The Fortran entry points are in
 * fortran.c.  A call whose settled choice is the MPI library's own goes
 * to it first thing (the pass-through, src/api/pass.h).
 */
#include <mpi.h>

#include "topocoll.h"
#include "api/context.h"
#include "api/pass.h"
#include "api/stats.h"
#include "core/config.h"
#include "core/fp_env.h"

/* Exported (the library is built with hidden visibility): the MPI_ functions. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* topocoll serves intra-communicators; one it already has a context for is
 * one (contexts are made only for those), which spares the per-call MPI
 * query on the communicators an application uses again and again.
 * MPI_COMM_NULL goes to topocoll too, which raises MPI_ERR_COMM (on
 * MPI_COMM_WORLD's handler) where some MPI libraries crash. */
static int covered(MPI_Comm comm)
{
    int inter = 0;
    if (tc_config_get()->disable) return 0;
    if (comm == MPI_COMM_NULL) return 1;
    if (tc_ctx_last_of(comm) || tc_ctx_lookup(comm)) return 1;
    return PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && !inter;
}

/* covered(), and a call of coll it hands to the MPI library counted as such
 * in the run summary (TOPOCOLL_STATS). */
static int covered_by(topocoll_coll coll, MPI_Comm comm)
{
    if (covered(comm)) return 1;
    tc_stats_handed(coll, comm, tc_config_get()->disable ? TC_HANDED_DISABLED : TC_HANDED_INTER);
    return 0;
}

/* The run summary is gathered here, on every rank, before the MPI library
 * tears down (Fortran's MPI_Finalize too: src/interpose/fortran.c). */
int MPI_Finalize(void)
{
    tc_fp_saved env;   /* the summary's arithmetic: not in the caller's environment */
    tc_fp_hold(&env);
    (void)tc_stats_report();
    tc_fp_restore(&env);
    return PMPI_Finalize();
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    TC_PASS_ALLGATHER;
    if (!covered_by(TOPOCOLL_ALLGATHER, comm))
        return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return topocoll_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    TC_PASS_BCAST;
    if (!covered_by(TOPOCOLL_BCAST, comm)) return PMPI_Bcast(buf, count, type, root, comm);
    return topocoll_bcast(buf, count, type, root, comm);
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    TC_PASS_SCATTER;
    if (!covered_by(TOPOCOLL_SCATTER, comm))
        return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    return topocoll_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    TC_PASS_GATHER;
    if (!covered_by(TOPOCOLL_GATHER, comm))
        return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    return topocoll_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm)
{
    TC_PASS_REDUCE;
    if (!covered_by(TOPOCOLL_REDUCE, comm))
        return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
    return topocoll_reduce(sendbuf, recvbuf, count, type, op, root, comm);
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    TC_PASS_REDUCE_SCATTER_BLOCK;
    if (!covered_by(TOPOCOLL_REDUCE_SCATTER_BLOCK, comm))
        return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm);
    return topocoll_reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm);
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    TC_PASS_ALLTOALL;
    if (!covered_by(TOPOCOLL_ALLTOALL, comm))
        return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return topocoll_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Alltoallv(const void *sendbuf, const int *sendcounts, const int *sdispls, MPI_Datatype sendtype,
                  void *recvbuf, const int *recvcounts, const int *rdispls, MPI_Datatype recvtype,
                  MPI_Comm comm)
{
    TC_PASS_ALLTOALLV;
    if (!covered_by(TOPOCOLL_ALLTOALLV, comm))
        return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                              recvtype, comm);
    return topocoll_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                              recvtype, comm);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    TC_PASS_ALLREDUCE;
    if (!covered_by(TOPOCOLL_ALLREDUCE, comm)) return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
    return topocoll_allreduce(sendbuf, recvbuf, count, type, op, comm);
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    TC_PASS_SCAN;
    if (!covered_by(TOPOCOLL_SCAN, comm)) return PMPI_Scan(sendbuf, recvbuf, count, type, op, comm);
    return topocoll_scan(sendbuf, recvbuf, count, type, op, comm);
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    TC_PASS_EXSCAN;
    if (!covered_by(TOPOCOLL_EXSCAN, comm)) return PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm);
    return topocoll_exscan(sendbuf, recvbuf, count, type, op, comm);
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int *recvcounts, const int *displs, MPI_Datatype recvtype, MPI_Comm comm)
{
    if (!covered_by(TOPOCOLL_ALLGATHERV, comm))
        return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
    return topocoll_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
}

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
