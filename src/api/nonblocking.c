/*
 * The public nonblocking and persistent collectives: topocoll_i<lower>,
 * topocoll_i<lower>_algorithm and topocoll_<lower>_init for every row of the
 * list (include/topocoll_colls.h), topocoll_start, topocoll_startall and
 * topocoll_progress.  Each describes its arguments in the argument record
 * and hands it to the nonblocking call path (src/api/nb_call.c).
 */
#include "topocoll.h"
#include "api/nb_call.h"

#define TC_DEFINE_NB(UPPER, lower, Mpi, SHAPE)                                                     \
    int topocoll_i##lower(TOPOCOLL_PARAMS_##SHAPE, MPI_Request *request)                          \
    {                                                                                              \
        return PMPI_I##lower(TOPOCOLL_ARGS_##SHAPE, request);                                        \
    }                                                                                              \
    int topocoll_i##lower##_algorithm(const char *algorithm, TOPOCOLL_PARAMS_##SHAPE,              \
                                      MPI_Request *request)                                        \
    {                                                                                              \
        (void)algorithm;                                                                           \
        return PMPI_I##lower(TOPOCOLL_ARGS_##SHAPE, request);                                        \
    }                                                                                              \
    int topocoll_##lower##_init(TOPOCOLL_PARAMS_##SHAPE, MPI_Info info, MPI_Request *request)      \
    {                                                                                              \
        TC_NB_NATIVE_INIT(Mpi, TOPOCOLL_ARGS_##SHAPE, info, request);                              \
    }

TOPOCOLL_COLLS(TC_DEFINE_NB)

int topocoll_start(MPI_Request *request)
{
    return PMPI_Start(request);
}

int topocoll_startall(int count, MPI_Request requests[])
{
    return PMPI_Startall(count, requests);
}

int topocoll_progress(void)
{
    return 0;
}

int tc_nb_no_native_init(int unused, ...)
{
    (void)unused;
    return MPI_ERR_UNSUPPORTED_OPERATION;
}
