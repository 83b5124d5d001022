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
#include <stdlib.h>

#include "topocoll.h"
#include "api/context.h"
#include "api/nb_requests.h"
#include "api/pass.h"
#include "api/stats.h"
#include "core/config.h"
#include "core/fp_env.h"
#include "api/mpi_persistent.h"
#include "detect/detect.h"

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
    int rc = PMPI_Finalize();
    tc_detect_finalize();   /* where no collective used the topology loaded ahead */
    return rc;
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

/* The persistent collectives, where the MPI library has them: MPI-4's
 * MPI_<Mpi>_init, or Open MPI 4's MPIX_<Mpi>_init (api/mpi_persistent.h). */
#if TC_HAVE_MPI_PERSISTENT
#define TC_INTERPOSE_INIT(UPPER, lower, Mpi, SHAPE)                                                \
    int TC_MPI_INIT(Mpi)(TOPOCOLL_PARAMS_##SHAPE, MPI_Info info, MPI_Request *request)             \
    {                                                                                              \
        if (!covered_by(TOPOCOLL_##UPPER, comm))                                                   \
            return TC_PMPI_INIT(Mpi)(TOPOCOLL_ARGS_##SHAPE, info, request);                        \
        return topocoll_##lower##_init(TOPOCOLL_ARGS_##SHAPE, info, request);                      \
    }
TOPOCOLL_COLLS(TC_INTERPOSE_INIT)
#endif

/* The request functions: topocoll's operations advance in every one of
 * them (src/api/nb_requests.h); with none outstanding each is the MPI
 * library's at the cost of one load and a test, made here.  The blocking
 * collectives advance them where topocoll runs the call (its waits call
 * tc_waiting_hook); a blocking collective the MPI library runs does not
 * (its own nonblocking form would not match the other ranks' blocking
 * call): there, TOPOCOLL_PROGRESS=thread. */
int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    if (tc_nb_none_live()) return PMPI_Wait(request, status);
    return tc_nb_wait(request, status);
}
int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    if (tc_nb_none_live()) return PMPI_Test(request, flag, status);
    return tc_nb_test(request, flag, status);
}
int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    if (tc_nb_none_live()) return PMPI_Waitall(count, requests, statuses);
    return tc_nb_waitall(count, requests, statuses);
}
int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    if (tc_nb_none_live()) return PMPI_Testall(count, requests, flag, statuses);
    return tc_nb_testall(count, requests, flag, statuses);
}
int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    if (tc_nb_none_live()) return PMPI_Waitany(count, requests, index, status);
    return tc_nb_waitany(count, requests, index, status);
}
int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status)
{
    if (tc_nb_none_live()) return PMPI_Testany(count, requests, index, flag, status);
    return tc_nb_testany(count, requests, index, flag, status);
}
int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[])
{
    if (tc_nb_none_live()) return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
    return tc_nb_waitsome(incount, requests, outcount, indices, statuses);
}
int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[])
{
    if (tc_nb_none_live()) return PMPI_Testsome(incount, requests, outcount, indices, statuses);
    return tc_nb_testsome(incount, requests, outcount, indices, statuses);
}
int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    if (tc_nb_none_live()) return PMPI_Request_get_status(request, flag, status);
    return tc_nb_get_status(request, flag, status);
}
int MPI_Request_free(MPI_Request *request) { return tc_nb_request_free(request); }
int MPI_Cancel(MPI_Request *request) { return tc_nb_cancel(request); }
int MPI_Start(MPI_Request *request) { return tc_nb_start(request); }
int MPI_Startall(int count, MPI_Request requests[]) { return tc_nb_startall(count, requests); }

/* Blocking point-to-point calls advance topocoll's running operations too
 * (nb_requests.h): each is then its nonblocking form and a wait. */
int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    if (!tc_nb_running()) return PMPI_Send(buf, count, type, dest, tag, comm);
    MPI_Request r;
    int rc = PMPI_Isend(buf, count, type, dest, tag, comm, &r);
    return rc == MPI_SUCCESS ? tc_nb_wait(&r, MPI_STATUS_IGNORE) : rc;
}
int MPI_Ssend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    if (!tc_nb_running()) return PMPI_Ssend(buf, count, type, dest, tag, comm);
    MPI_Request r;
    int rc = PMPI_Issend(buf, count, type, dest, tag, comm, &r);
    return rc == MPI_SUCCESS ? tc_nb_wait(&r, MPI_STATUS_IGNORE) : rc;
}
int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    if (!tc_nb_running()) return PMPI_Recv(buf, count, type, source, tag, comm, status);
    MPI_Request r;
    int rc = PMPI_Irecv(buf, count, type, source, tag, comm, &r);
    return rc == MPI_SUCCESS ? tc_nb_wait(&r, status) : rc;
}
int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                 MPI_Status *status)
{
    if (!tc_nb_running())
        return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                             recvtag, comm, status);
    MPI_Request r[2];
    MPI_Status st[2];
    int rc = PMPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &r[0]);
    if (rc != MPI_SUCCESS) return rc;
    if ((rc = PMPI_Isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &r[1])) != MPI_SUCCESS) {
        (void)PMPI_Cancel(&r[0]);
        (void)PMPI_Wait(&r[0], MPI_STATUS_IGNORE);
        return rc;
    }
    rc = tc_nb_waitall(2, r, st);
    if (status != MPI_STATUS_IGNORE) *status = st[0];
    if (rc == MPI_ERR_IN_STATUS) rc = st[0].MPI_ERROR != MPI_SUCCESS ? st[0].MPI_ERROR : st[1].MPI_ERROR;
    return rc;
}
int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    if (!tc_nb_running()) return PMPI_Probe(source, tag, comm, status);
    return tc_nb_probe(source, tag, comm, status);
}

/* The machine's topology loads in a thread of its own from now on
 * (detect.h), unless topocoll is switched off. */
static void load_topology_ahead(void)
{
    if (!tc_config_get()->disable) tc_detect_prefetch();
}

/* MPI_COMM_WORLD's context, made while every rank is in MPI_Init: a
 * nonblocking call may not make one (that waits for the other ranks), so a
 * program that calls only nonblocking collectives would otherwise never get
 * topocoll's (context.h, tc_ctx_at_init). */
static int world_context(int rc)
{
    if (rc == MPI_SUCCESS && !tc_config_get()->disable) tc_ctx_at_init();
    return rc;
}

/* MPI's start-up: the topology loads alongside, where the constructor below
 * did not start it. */
int MPI_Init(int *argc, char ***argv)
{
    load_topology_ahead();
    return world_context(PMPI_Init(argc, argv));
}
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    load_topology_ahead();
    return world_context(PMPI_Init_thread(argc, argv, required, provided));
}

/* Loaded: MPI's wait and test calls advance topocoll's operations, which
 * may then be served nonblocking. */
__attribute__((constructor)) static void interposer_loaded(void)
{
    tc_nb_interposed = 1;
    /* started by an MPI launcher (its environment says so: Open MPI's,
     * MPICH's Hydra, PMIx), the machine's topology loads from now on, also
     * for programs whose MPI_Init is Fortran's, which the C wrappers above
     * do not see */
    if (!getenv("OMPI_COMM_WORLD_RANK") && !getenv("PMI_RANK") && !getenv("PMIX_RANK")) return;
    /* TOPOCOLL_DISABLE read here alone: the configuration loads at the
     * first call that needs it, after the program's main has started (a
     * program may set topocoll's variables before MPI_Init) */
    const char *off = getenv("TOPOCOLL_DISABLE");
    int disabled = 0;
    if (!off || tc_parse_bool(off, &disabled) != 0 || !disabled) tc_detect_prefetch();
}

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
