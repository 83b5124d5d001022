/*
 * The one list of collectives (MPI-free).  Every table that names the
 * collectives one by one is made from it: the topocoll_coll enum, the
 * descriptor rows' name and environment variable (src/coll/desc.c), the
 * TOPOCOLL_<COLL> algorithm overrides (src/core/config.c), the public
 * topocoll_<coll> and topocoll_<coll>_algorithm functions (include/topocoll.h,
 * src/api/collectives.c), the interposer's MPI_<Coll> (src/interpose/pmpi.c)
 * and its Fortran names (src/interpose/fortran.c), the MPI library's own
 * collective (src/api/native.c) and the benchmark's calls (tools/bench).
 *
 * One row per collective:
 *
 *   X(UPPER, lower, Mpi, SHAPE)
 *
 *   UPPER  the enum value's suffix (TOPOCOLL_UPPER) and the environment
 *          variable TOPOCOLL_UPPER
 *   lower  the catalog's name of the collective, the public functions
 *          topocoll_lower and topocoll_lower_algorithm, the Fortran names
 *          mpi_lower_ ...
 *   Mpi    the MPI function's name after MPI_ (MPI_Mpi, PMPI_Mpi)
 *   SHAPE  the MPI function's argument list (include/topocoll_shapes.h):
 *            TWO_BUFFERS        sendbuf, sendcount, sendtype, recvbuf,
 *                               recvcount, recvtype, comm (allgather)
 *            TWO_BUFFERS_ROOT   the same and root before comm (gather)
 *            ONE_BUFFER         buf, count, type, root, comm (bcast)
 *            REDUCTION          sendbuf, recvbuf, count, type, op, comm
 *                               (allreduce, scan)
 *            REDUCTION_ROOT     the same and root before comm (reduce)
 *            VECTORS            sendbuf, sendcounts[], sdispls[], sendtype,
 *                               recvbuf, recvcounts[], rdispls[], recvtype,
 *                               comm (alltoallv)
 *            RECV_VECTORS       sendbuf, sendcount, sendtype, recvbuf,
 *                               recvcounts[], displs[], recvtype, comm
 *                               (allgatherv)
 *            RECV_VECTORS_ROOT  the same and root before comm (gatherv)
 *            SEND_VECTORS_ROOT  sendbuf, sendcounts[], displs[], sendtype,
 *                               recvbuf, recvcount, recvtype, root, comm
 *                               (scatterv)
 *            REDUCTION_COUNTS   sendbuf, recvbuf, recvcounts[], type, op,
 *                               comm (reduce_scatter)
 *            TYPE_VECTORS       sendbuf, sendcounts[], sdispls[],
 *                               sendtypes[], recvbuf, recvcounts[],
 *                               rdispls[], recvtypes[], comm (alltoallw)
 *            NO_BUFFERS         comm (barrier)
 *
 * The order is the enum's, part of the public ABI: new rows go at the end.
 */
#ifndef TOPOCOLL_COLLS_H
#define TOPOCOLL_COLLS_H

#define TOPOCOLL_COLLS(X)                                                  \
    X(ALLGATHER, allgather, Allgather, TWO_BUFFERS)                        \
    X(BCAST, bcast, Bcast, ONE_BUFFER)                                     \
    X(SCATTER, scatter, Scatter, TWO_BUFFERS_ROOT)                         \
    X(GATHER, gather, Gather, TWO_BUFFERS_ROOT)                            \
    X(REDUCE, reduce, Reduce, REDUCTION_ROOT)                              \
    X(REDUCE_SCATTER_BLOCK, reduce_scatter_block, Reduce_scatter_block, REDUCTION) \
    X(ALLTOALL, alltoall, Alltoall, TWO_BUFFERS)                           \
    X(ALLTOALLV, alltoallv, Alltoallv, VECTORS)                            \
    X(ALLREDUCE, allreduce, Allreduce, REDUCTION)                          \
    X(ALLGATHERV, allgatherv, Allgatherv, RECV_VECTORS)                    \
    X(BARRIER, barrier, Barrier, NO_BUFFERS)                               \
    X(REDUCE_SCATTER, reduce_scatter, Reduce_scatter, REDUCTION_COUNTS)    \
    X(SCAN, scan, Scan, REDUCTION)                                         \
    X(EXSCAN, exscan, Exscan, REDUCTION)                                   \
    X(GATHERV, gatherv, Gatherv, RECV_VECTORS_ROOT)                        \
    X(SCATTERV, scatterv, Scatterv, SEND_VECTORS_ROOT) \
    X(ALLTOALLW, alltoallw, Alltoallw, TYPE_VECTORS)

#endif
