/*
 * The public collectives: topocoll_allgather, _bcast, _scatter, _gather,
 * _reduce, _reduce_scatter_block, _alltoall, _alltoallv, _allreduce,
 * _allgatherv, _scan, _exscan, their _algorithm variants, the generic topocoll_run and the
 * _applicable questions.  Each describes its arguments in one argument
 * record (tc_call, src/api/call.h) and hands it to the call path
 * (src/api/call.c); nothing else happens here.
 */
#include <limits.h>
#include <stdlib.h>

#include "api/call.h"
#include "api/error.h"
#include "api/pass.h"

/* One call in the generic form of topocoll_run (one_count collectives: the
 * receive count and type stand for both; no root: 0). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline tc_call make_call(topocoll_coll coll, const char *fn, const void *sbuf, int scount,
                             MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                             MPI_Op op, int root, MPI_Comm comm)
{
    tc_call c;   /* every field set here: a zeroing of the whole struct cost
                 more than the stores on the 8-byte calls' path */
    c.d = tc_coll_desc_of(coll);
    c.fn = fn;
    c.sbuf = sbuf;
    c.scount = c.d->one_count ? rcount : scount;
    c.stype = c.d->one_count ? rtype : stype;
    c.rbuf = rbuf;
    c.rcount = rcount;
    c.rtype = rtype;
    c.op = op;
    c.root = c.d->rooted ? root : 0;
    c.comm = comm;
    c.rank = c.size = c.in_place = 0;
    c.use[0] = c.use[1] = c.tsize[0] = c.tsize[1] = 0;
    c.bytes = 0;
    c.vcnt[0] = c.vcnt[1] = c.vdispl[0] = c.vdispl[1] = NULL;
    c.v64 = NULL;
    c.v = (tc_vcounts){ NULL, NULL, NULL, NULL };
    c.staged = c.mismatch = 0;
    return c;
}

#define ALLGATHER_CALL(FN) make_call(TOPOCOLL_ALLGATHER, FN, sendbuf, sendcount, sendtype, \
                                     recvbuf, recvcount, recvtype, MPI_OP_NULL, 0, comm)
#define BCAST_CALL make_call(TOPOCOLL_BCAST, "topocoll_bcast", NULL, 0, type, buf, count, type, \
                             MPI_OP_NULL, root, comm)
#define SCATTER_CALL make_call(TOPOCOLL_SCATTER, "topocoll_scatter", sendbuf, sendcount, sendtype, \
                               recvbuf, recvcount, recvtype, MPI_OP_NULL, root, comm)
#define GATHER_CALL make_call(TOPOCOLL_GATHER, "topocoll_gather", sendbuf, sendcount, sendtype, \
                              recvbuf, recvcount, recvtype, MPI_OP_NULL, root, comm)
#define REDUCE_CALL make_call(TOPOCOLL_REDUCE, "topocoll_reduce", sendbuf, count, type, recvbuf, \
                              count, type, op, root, comm)
/* reduce_scatter_block's input is p blocks of recvcount: the call records
 * one block (what the argument checks need) and the normalisation widens it. */
#define RSB_CALL make_call(TOPOCOLL_REDUCE_SCATTER_BLOCK, "topocoll_reduce_scatter_block", sendbuf, \
                           recvcount, type, recvbuf, recvcount, type, op, 0, comm)

#define ALLREDUCE_CALL make_call(TOPOCOLL_ALLREDUCE, "topocoll_allreduce", sendbuf, count, type, \
                                 recvbuf, count, type, op, 0, comm)
#define PREFIX_CALL(COLL, FN) make_call(COLL, FN, sendbuf, count, type, recvbuf, count, type, op, 0, comm)

static int run_regular(topocoll_coll coll, const char *algorithm, const void *sendbuf, int sendcount,
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       MPI_Comm comm);

int topocoll_run(topocoll_coll coll, const char *algorithm, const void *sendbuf, int sendcount,
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 MPI_Op op, int root, MPI_Comm comm)
{
    if (!tc_coll_desc_of(coll))
        return tc_raise(comm, MPI_ERR_ARG, "topocoll_run: unknown collective %d", (int)coll);
    if (tc_coll_desc_of(coll)->vcounts)   /* per-peer collectives: the regular problem */
        return run_regular(coll, algorithm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    tc_call c = make_call(coll, "topocoll_run", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                       recvtype, op, root, comm);
    return tc_call_collective(&c, algorithm != NULL, algorithm);
}

/* Would the algorithm serve these arguments?  fn names the public caller. */
static int applicable(topocoll_coll coll, const char *fn, const char *algorithm, int sendcount,
                      MPI_Datatype sendtype, int recvcount, MPI_Datatype recvtype, MPI_Op op,
                      int root, MPI_Comm comm, const char **why)
{
    const tc_algo *al = tc_coll_desc_of(coll) ? tc_catalog_find(coll, algorithm) : NULL;
    if (!al) return -1;
    /* any non-NULL buffers, two of them: only the sizes matter */
    static char two[2];
    tc_call c = make_call(coll, fn, &two[0], sendcount, sendtype, &two[1], recvcount, recvtype, op,
                       root, comm);
    tc_ctx *x;
    if (tc_call_check_comm(&c) != MPI_SUCCESS) {
        if (why) *why = "invalid communicator";
        return 0;
    }
    if (tc_ctx_get(comm, &x) != MPI_SUCCESS) {
        if (why) *why = "no topology for this communicator";
        return 0;
    }
    int *equal = NULL, ok;   /* allgatherv: judged with every count recvcount, packed */
    if (c.d->vblock && (equal = malloc(2 * (size_t)c.size * sizeof *equal + 1)) != NULL) {
        for (int j = 0; j < c.size; j++) equal[j] = recvcount, equal[c.size + j] = j * recvcount;
        c.vcnt[1] = equal, c.vdispl[1] = equal + c.size;
    } else if (c.d->vcounts && (equal = malloc(4 * (size_t)c.size * sizeof *equal + 1)) != NULL) {
        /* alltoallv: judged on the regular problem, as topocoll_run runs it */
        for (int j = 0; j < c.size; j++)
            equal[j] = sendcount, equal[c.size + j] = j * sendcount, equal[2 * c.size + j] = recvcount,
            equal[3 * c.size + j] = j * recvcount;
        c.vcnt[0] = equal, c.vdispl[0] = equal + c.size;
        c.vcnt[1] = equal + 2 * c.size, c.vdispl[1] = equal + 3 * c.size;
    }
    ok = tc_bind_applicable(&c, x, al, why);
    free(equal);
    free(c.v64);
    return ok;
}

int topocoll_applicable(topocoll_coll coll, const char *algorithm, int sendcount,
                        MPI_Datatype sendtype, int recvcount, MPI_Datatype recvtype, MPI_Op op,
                        int root, MPI_Comm comm, const char **why)
{
    return applicable(coll, "topocoll_applicable", algorithm, sendcount, sendtype, recvcount,
                      recvtype, op, root, comm, why);
}

int topocoll_allgather_applicable(const char *algorithm, int sendcount, MPI_Datatype sendtype,
                                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                  const char **why)
{
    return applicable(TOPOCOLL_ALLGATHER, "topocoll_allgather_applicable", algorithm, sendcount,
                      sendtype, recvcount, recvtype, MPI_OP_NULL, 0, comm, why);
}

int topocoll_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    TC_PASS_ALLGATHER;
    tc_call c = ALLGATHER_CALL("topocoll_allgather");
    return tc_call_collective(&c, 0, NULL);
}

int topocoll_allgather_algorithm(const char *algorithm, const void *sendbuf, int sendcount,
                                 MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                 MPI_Datatype recvtype, MPI_Comm comm)
{
    tc_call c = ALLGATHER_CALL("topocoll_allgather_algorithm");
    return tc_call_collective(&c, 1, algorithm);
}

int topocoll_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    TC_PASS_BCAST;
    tc_call c = BCAST_CALL;
    return tc_call_collective(&c, 0, NULL);
}

int topocoll_bcast_algorithm(const char *algorithm, void *buf, int count, MPI_Datatype type,
                             int root, MPI_Comm comm)
{
    tc_call c = BCAST_CALL;
    return tc_call_collective(&c, 1, algorithm);
}

int topocoll_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    TC_PASS_SCATTER;
    tc_call c = SCATTER_CALL;
    return tc_call_collective(&c, 0, NULL);
}

int topocoll_scatter_algorithm(const char *algorithm, const void *sendbuf, int sendcount,
                               MPI_Datatype sendtype, void *recvbuf, int recvcount,
                               MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    tc_call c = SCATTER_CALL;
    return tc_call_collective(&c, 1, algorithm);
}

int topocoll_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    TC_PASS_GATHER;
    tc_call c = GATHER_CALL;
    return tc_call_collective(&c, 0, NULL);
}

int topocoll_gather_algorithm(const char *algorithm, const void *sendbuf, int sendcount,
                              MPI_Datatype sendtype, void *recvbuf, int recvcount,
                              MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    tc_call c = GATHER_CALL;
    return tc_call_collective(&c, 1, algorithm);
}

int topocoll_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                    int root, MPI_Comm comm)
{
    TC_PASS_REDUCE;
    tc_call c = REDUCE_CALL;
    return tc_call_collective(&c, 0, NULL);
}

int topocoll_reduce_algorithm(const char *algorithm, const void *sendbuf, void *recvbuf, int count,
                              MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm)
{
    tc_call c = REDUCE_CALL;
    return tc_call_collective(&c, 1, algorithm);
}

int topocoll_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                  MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    TC_PASS_REDUCE_SCATTER_BLOCK;
    tc_call c = RSB_CALL;
    return tc_call_collective(&c, 0, NULL);
}

int topocoll_reduce_scatter_block_algorithm(const char *algorithm, const void *sendbuf,
                                            void *recvbuf, int recvcount, MPI_Datatype type,
                                            MPI_Op op, MPI_Comm comm)
{
    tc_call c = RSB_CALL;
    return tc_call_collective(&c, 1, algorithm);
}

/* ---- alltoall ----------------------------------------------------------------- */

#define ALLTOALL_CALL make_call(TOPOCOLL_ALLTOALL, "topocoll_alltoall", sendbuf, sendcount, sendtype, \
                                recvbuf, recvcount, recvtype, MPI_OP_NULL, 0, comm)

int topocoll_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    TC_PASS_ALLTOALL;
    tc_call c = ALLTOALL_CALL;
    return tc_call_collective(&c, 0, NULL);
}

int topocoll_alltoall_algorithm(const char *algorithm, const void *sendbuf, int sendcount,
                                MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                MPI_Datatype recvtype, MPI_Comm comm)
{
    tc_call c = ALLTOALL_CALL;
    return tc_call_collective(&c, 1, algorithm);
}

/* ---- alltoallv ----------------------------------------------------------------- */

static int alltoallv(const char *fn, const char *algorithm, const void *sendbuf, const int *sendcounts,
                     const int *sdispls, MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                     const int *rdispls, MPI_Datatype recvtype, MPI_Comm comm)
{
    tc_call c = make_call(TOPOCOLL_ALLTOALLV, fn, sendbuf, 0, sendtype, recvbuf, 0, recvtype, MPI_OP_NULL,
                       0, comm);
    c.vcnt[0] = sendcounts, c.vdispl[0] = sdispls;
    c.vcnt[1] = recvcounts, c.vdispl[1] = rdispls;
    int rc = tc_call_collective(&c, algorithm != NULL, algorithm);
    free(c.v64);
    return rc;
}

int topocoll_alltoallv(const void *sendbuf, const int *sendcounts, const int *sdispls,
                       MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                       const int *rdispls, MPI_Datatype recvtype, MPI_Comm comm)
{
    TC_PASS_ALLTOALLV;
    return alltoallv("topocoll_alltoallv", NULL, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                     recvcounts, rdispls, recvtype, comm);
}

int topocoll_alltoallv_algorithm(const char *algorithm, const void *sendbuf, const int *sendcounts,
                                 const int *sdispls, MPI_Datatype sendtype, void *recvbuf,
                                 const int *recvcounts, const int *rdispls, MPI_Datatype recvtype,
                                 MPI_Comm comm)
{
    if (!algorithm) return topocoll_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                              rdispls, recvtype, comm);
    return alltoallv("topocoll_alltoallv_algorithm", algorithm, sendbuf, sendcounts, sdispls, sendtype,
                     recvbuf, recvcounts, rdispls, recvtype, comm);
}

/* ---- allgatherv ----------------------------------------------------------------- */

static int allgatherv(const char *fn, const char *algorithm, const void *sendbuf, int sendcount,
                      MPI_Datatype sendtype, void *recvbuf, const int *recvcounts, const int *displs,
                      MPI_Datatype recvtype, MPI_Comm comm)
{
    tc_call c = make_call(TOPOCOLL_ALLGATHERV, fn, sendbuf, sendcount, sendtype, recvbuf, 0, recvtype,
                       MPI_OP_NULL, 0, comm);
    c.vcnt[1] = recvcounts, c.vdispl[1] = displs;
    int rc = tc_call_collective(&c, algorithm != NULL, algorithm);
    free(c.v64);
    return rc;
}

int topocoll_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int *recvcounts, const int *displs, MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgatherv("topocoll_allgatherv", NULL, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                      displs, recvtype, comm);
}

int topocoll_allgatherv_algorithm(const char *algorithm, const void *sendbuf, int sendcount,
                                  MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                                  const int *displs, MPI_Datatype recvtype, MPI_Comm comm)
{
    if (!algorithm) return topocoll_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                               recvtype, comm);
    return allgatherv("topocoll_allgatherv_algorithm", algorithm, sendbuf, sendcount, sendtype, recvbuf,
                      recvcounts, displs, recvtype, comm);
}

/* ---- allreduce ------------------------------------------------------------------ */

int topocoll_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm)
{
    TC_PASS_ALLREDUCE;
    tc_call c = ALLREDUCE_CALL;
    return tc_call_collective(&c, 0, NULL);
}

int topocoll_allreduce_algorithm(const char *algorithm, const void *sendbuf, void *recvbuf, int count,
                                 MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    tc_call c = ALLREDUCE_CALL;
    return tc_call_collective(&c, 1, algorithm);
}

/* ---- topocoll_run for the per-peer collectives ------------------------------ */

/* The regular problem: every count sendcount (send) and recvcount (receive),
 * displacements j x count, as the benchmark's; then the collective's own
 * entry, which checks everything else (an invalid communicator too: the
 * vectors are then not made and its check comes first). */
static int run_regular(topocoll_coll coll, const char *algorithm, const void *sendbuf, int sendcount,
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       MPI_Comm comm)
{
    int p = 0, *v = NULL, rc;
    if (comm != MPI_COMM_NULL && PMPI_Comm_size(comm, &p) == MPI_SUCCESS && p > 0) {
        if ((int64_t)(p - 1) * (sendcount > recvcount ? sendcount : recvcount) > INT_MAX)
            return tc_raise(comm, MPI_ERR_COUNT, "topocoll_run: displacements of %d x count exceed an int", p);
        if (!(v = malloc(4 * (size_t)p * sizeof *v))) return tc_raise(comm, MPI_ERR_NO_MEM, "topocoll_run");
        for (int j = 0; j < p; j++)
            v[j] = sendcount, v[p + j] = j * sendcount, v[2 * p + j] = recvcount, v[3 * p + j] = j * recvcount;
    }
    const int *sc = v, *sd = v ? v + p : NULL, *rcn = v ? v + 2 * p : NULL, *rd = v ? v + 3 * p : NULL;
    if (coll == TOPOCOLL_ALLTOALLV)
        rc = alltoallv("topocoll_run", algorithm, sendbuf, sc, sd, sendtype, recvbuf, rcn, rd, recvtype, comm);
    else
        rc = allgatherv("topocoll_run", algorithm, sendbuf, sendcount, sendtype, recvbuf, rcn, rd, recvtype, comm);
    free(v);
    return rc;
}

/* ---- scan, exscan --------------------------------------------------------------- */

int topocoll_scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    TC_PASS_SCAN;
    tc_call c = PREFIX_CALL(TOPOCOLL_SCAN, "topocoll_scan");
    return tc_call_collective(&c, 0, NULL);
}

int topocoll_scan_algorithm(const char *algorithm, const void *sendbuf, void *recvbuf, int count,
                            MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    tc_call c = PREFIX_CALL(TOPOCOLL_SCAN, "topocoll_scan_algorithm");
    return tc_call_collective(&c, algorithm != NULL, algorithm);
}

int topocoll_exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                    MPI_Comm comm)
{
    TC_PASS_EXSCAN;
    tc_call c = PREFIX_CALL(TOPOCOLL_EXSCAN, "topocoll_exscan");
    return tc_call_collective(&c, 0, NULL);
}

int topocoll_exscan_algorithm(const char *algorithm, const void *sendbuf, void *recvbuf, int count,
                              MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    tc_call c = PREFIX_CALL(TOPOCOLL_EXSCAN, "topocoll_exscan_algorithm");
    return tc_call_collective(&c, algorithm != NULL, algorithm);
}
