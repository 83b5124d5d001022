/*
 * The argument lists of the MPI collectives, one per shape of the list
 * (topocoll_colls.h): TOPOCOLL_PARAMS_<SHAPE> is the parameter list of
 * MPI_<Mpi> (as mpi.h declares it), TOPOCOLL_ARGS_<SHAPE> the same names as
 * arguments.  topocoll_<lower> has the parameters of its shape,
 * topocoll_<lower>_algorithm the algorithm's name before them.
 */
#ifndef TOPOCOLL_SHAPES_H
#define TOPOCOLL_SHAPES_H

#include <mpi.h>

#define TOPOCOLL_PARAMS_TWO_BUFFERS                                                               \
    const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,      \
        MPI_Datatype recvtype, MPI_Comm comm
#define TOPOCOLL_ARGS_TWO_BUFFERS sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm

#define TOPOCOLL_PARAMS_TWO_BUFFERS_ROOT                                                          \
    const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,      \
        MPI_Datatype recvtype, int root, MPI_Comm comm
#define TOPOCOLL_ARGS_TWO_BUFFERS_ROOT                                                            \
    sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm

#define TOPOCOLL_PARAMS_ONE_BUFFER void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm
#define TOPOCOLL_ARGS_ONE_BUFFER buf, count, type, root, comm

#define TOPOCOLL_PARAMS_REDUCTION                                                                 \
    const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm
#define TOPOCOLL_ARGS_REDUCTION sendbuf, recvbuf, count, type, op, comm

#define TOPOCOLL_PARAMS_REDUCTION_ROOT                                                            \
    const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,        \
        MPI_Comm comm
#define TOPOCOLL_ARGS_REDUCTION_ROOT sendbuf, recvbuf, count, type, op, root, comm

#define TOPOCOLL_PARAMS_VECTORS                                                                   \
    const void *sendbuf, const int *sendcounts, const int *sdispls, MPI_Datatype sendtype,        \
        void *recvbuf, const int *recvcounts, const int *rdispls, MPI_Datatype recvtype,          \
        MPI_Comm comm
#define TOPOCOLL_ARGS_VECTORS                                                                     \
    sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm

#define TOPOCOLL_PARAMS_RECV_VECTORS                                                              \
    const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,                     \
        const int *recvcounts, const int *displs, MPI_Datatype recvtype, MPI_Comm comm
#define TOPOCOLL_ARGS_RECV_VECTORS                                                                \
    sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm

#define TOPOCOLL_PARAMS_RECV_VECTORS_ROOT                                                         \
    const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,                     \
        const int *recvcounts, const int *displs, MPI_Datatype recvtype, int root, MPI_Comm comm
#define TOPOCOLL_ARGS_RECV_VECTORS_ROOT                                                           \
    sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm

#define TOPOCOLL_PARAMS_SEND_VECTORS_ROOT                                                         \
    const void *sendbuf, const int *sendcounts, const int *displs, MPI_Datatype sendtype,         \
        void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm
#define TOPOCOLL_ARGS_SEND_VECTORS_ROOT                                                           \
    sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm

#define TOPOCOLL_PARAMS_REDUCTION_COUNTS                                                          \
    const void *sendbuf, void *recvbuf, const int *recvcounts, MPI_Datatype type, MPI_Op op,      \
        MPI_Comm comm
#define TOPOCOLL_ARGS_REDUCTION_COUNTS sendbuf, recvbuf, recvcounts, type, op, comm

#define TOPOCOLL_PARAMS_TYPE_VECTORS                                                              \
    const void *sendbuf, const int *sendcounts, const int *sdispls,                               \
        const MPI_Datatype *sendtypes, void *recvbuf, const int *recvcounts, const int *rdispls,  \
        const MPI_Datatype *recvtypes, MPI_Comm comm
#define TOPOCOLL_ARGS_TYPE_VECTORS                                                                \
    sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm

#define TOPOCOLL_PARAMS_NO_BUFFERS MPI_Comm comm
#define TOPOCOLL_ARGS_NO_BUFFERS comm

#endif
