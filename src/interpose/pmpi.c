/*
 * The LD_PRELOAD interposer: the MPI_ function of every collective of the
 * list (include/topocoll_colls.h: MPI_Allgather, MPI_Bcast, ...) routes
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

/* MPI_<Mpi> for every row of the list (include/topocoll_colls.h), from its
 * shape (include/topocoll_shapes.h): the pass-through first, then
 * topocoll_<lower> where topocoll covers the communicator, else
 * PMPI_<Mpi>. */
#define TC_INTERPOSE(UPPER, lower, Mpi, SHAPE)                                                     \
    int MPI_##Mpi(TOPOCOLL_PARAMS_##SHAPE)                                                          \
    {                                                                                              \
        TC_PASS_##SHAPE(TOPOCOLL_##UPPER, Mpi);                                                    \
        if (!covered_by(TOPOCOLL_##UPPER, comm)) return PMPI_##Mpi(TOPOCOLL_ARGS_##SHAPE);         \
        return topocoll_##lower(TOPOCOLL_ARGS_##SHAPE);                                            \
    }

TOPOCOLL_COLLS(TC_INTERPOSE)

/* MPI_I<Mpi> for every row: topocoll_i<lower> where topocoll covers the
 * communicator, else PMPI_I<Mpi>. */
#define TC_INTERPOSE_NB(UPPER, lower, Mpi, SHAPE)                                                  \
    int MPI_I##lower(TOPOCOLL_PARAMS_##SHAPE, MPI_Request *request)                                 \
    {                                                                                              \
        if (!covered_by(TOPOCOLL_##UPPER, comm)) return PMPI_I##lower(TOPOCOLL_ARGS_##SHAPE, request); \
        return topocoll_i##lower(TOPOCOLL_ARGS_##SHAPE, request);                                 \
    }

TOPOCOLL_COLLS(TC_INTERPOSE_NB)

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
