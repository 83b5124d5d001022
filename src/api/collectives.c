/*
 * The public collectives: topocoll_<lower> and topocoll_<lower>_algorithm
 * for every row of the list (include/topocoll_colls.h), made from the row's
 * shape, the generic topocoll_run and the _applicable questions.  Each
 * describes its arguments in one argument record (tc_call, src/api/call.h)
 * and hands it to the call path (src/api/call.c); nothing else happens
 * here.
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
    c.vtype[0] = c.vtype[1] = NULL;
    c.v64 = NULL;
    c.v = (tc_vcounts){ NULL, NULL, NULL, NULL };
    c.staged = c.mismatch = 0;
    return c;
}

/* ---- the argument record of each shape -------------------------------------- */

/* rec_<SHAPE>(coll, fn, the shape's arguments: include/topocoll_shapes.h):
 * the call's record.  A one-count shape records its count and type for both
 * buffers (reduce_scatter_block: one block; the normalisation widens it);
 * a shape without a root records 0, one without an op MPI_OP_NULL; per-peer
 * shapes record their vectors (the counts 0: call_args.c finds the largest). */
#if defined(__GNUC__)
#define TC_REC static inline __attribute__((always_inline, unused)) tc_call
#else
#define TC_REC static inline tc_call
#endif

TC_REC rec_TWO_BUFFERS(topocoll_coll coll, const char *fn, TOPOCOLL_PARAMS_TWO_BUFFERS)
{
    return make_call(coll, fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, MPI_OP_NULL, 0,
                     comm);
}

TC_REC rec_TWO_BUFFERS_ROOT(topocoll_coll coll, const char *fn, TOPOCOLL_PARAMS_TWO_BUFFERS_ROOT)
{
    return make_call(coll, fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, MPI_OP_NULL, root,
                     comm);
}

TC_REC rec_ONE_BUFFER(topocoll_coll coll, const char *fn, TOPOCOLL_PARAMS_ONE_BUFFER)
{
    return make_call(coll, fn, NULL, 0, type, buf, count, type, MPI_OP_NULL, root, comm);
}

TC_REC rec_REDUCTION(topocoll_coll coll, const char *fn, TOPOCOLL_PARAMS_REDUCTION)
{
    return make_call(coll, fn, sendbuf, count, type, recvbuf, count, type, op, 0, comm);
}

TC_REC rec_REDUCTION_ROOT(topocoll_coll coll, const char *fn, TOPOCOLL_PARAMS_REDUCTION_ROOT)
{
    return make_call(coll, fn, sendbuf, count, type, recvbuf, count, type, op, root, comm);
}

TC_REC rec_VECTORS(topocoll_coll coll, const char *fn, TOPOCOLL_PARAMS_VECTORS)
{
    tc_call c = make_call(coll, fn, sendbuf, 0, sendtype, recvbuf, 0, recvtype, MPI_OP_NULL, 0, comm);
    c.vcnt[0] = sendcounts, c.vdispl[0] = sdispls;
    c.vcnt[1] = recvcounts, c.vdispl[1] = rdispls;
    return c;
}

TC_REC rec_RECV_VECTORS(topocoll_coll coll, const char *fn, TOPOCOLL_PARAMS_RECV_VECTORS)
{
    tc_call c = make_call(coll, fn, sendbuf, sendcount, sendtype, recvbuf, 0, recvtype, MPI_OP_NULL, 0, comm);
    c.vcnt[1] = recvcounts, c.vdispl[1] = displs;
    return c;
}

TC_REC rec_RECV_VECTORS_ROOT(topocoll_coll coll, const char *fn, TOPOCOLL_PARAMS_RECV_VECTORS_ROOT)
{
    tc_call c = make_call(coll, fn, sendbuf, sendcount, sendtype, recvbuf, 0, recvtype, MPI_OP_NULL, root, comm);
    c.vcnt[1] = recvcounts, c.vdispl[1] = displs;
    return c;
}

TC_REC rec_SEND_VECTORS_ROOT(topocoll_coll coll, const char *fn, TOPOCOLL_PARAMS_SEND_VECTORS_ROOT)
{
    tc_call c = make_call(coll, fn, sendbuf, 0, sendtype, recvbuf, recvcount, recvtype, MPI_OP_NULL, root, comm);
    c.vcnt[0] = sendcounts, c.vdispl[0] = displs;
    return c;
}

/* One type for both buffers, the receive counts per rank (no displacements:
 * the blocks lie packed in rank order). */
TC_REC rec_REDUCTION_COUNTS(topocoll_coll coll, const char *fn, TOPOCOLL_PARAMS_REDUCTION_COUNTS)
{
    tc_call c = make_call(coll, fn, sendbuf, 0, type, recvbuf, 0, type, op, 0, comm);
    c.vcnt[1] = recvcounts;
    return c;
}

/* Displacements in bytes, a datatype per peer (vtype). */
TC_REC rec_TYPE_VECTORS(topocoll_coll coll, const char *fn, TOPOCOLL_PARAMS_TYPE_VECTORS)
{
    tc_call c = make_call(coll, fn, sendbuf, 0, MPI_DATATYPE_NULL, recvbuf, 0, MPI_DATATYPE_NULL, MPI_OP_NULL,
                          0, comm);
    c.vcnt[0] = sendcounts, c.vdispl[0] = sdispls, c.vtype[0] = sendtypes;
    c.vcnt[1] = recvcounts, c.vdispl[1] = rdispls, c.vtype[1] = recvtypes;
    return c;
}

/* No data (barrier): no buffer, count 0 of MPI_BYTE for both arguments (a
 * valid type: the call path asks the types' sizes and extents). */
TC_REC rec_NO_BUFFERS(topocoll_coll coll, const char *fn, TOPOCOLL_PARAMS_NO_BUFFERS)
{
    return make_call(coll, fn, NULL, 0, MPI_BYTE, NULL, 0, MPI_BYTE, MPI_OP_NULL, 0, comm);
}

/* Does topocoll_<lower>_algorithm(NULL, ...) mean the selection, as
 * topocoll_<lower> (the per-peer shapes), or the named path with no name
 * (the others)? */
#define TC_NULL_IS_SELECTION_TWO_BUFFERS 0
#define TC_NULL_IS_SELECTION_TWO_BUFFERS_ROOT 0
#define TC_NULL_IS_SELECTION_ONE_BUFFER 0
#define TC_NULL_IS_SELECTION_REDUCTION 0
#define TC_NULL_IS_SELECTION_REDUCTION_ROOT 0
#define TC_NULL_IS_SELECTION_NO_BUFFERS 0
#define TC_NULL_IS_SELECTION_VECTORS 1
#define TC_NULL_IS_SELECTION_RECV_VECTORS 1
#define TC_NULL_IS_SELECTION_RECV_VECTORS_ROOT 1
#define TC_NULL_IS_SELECTION_SEND_VECTORS_ROOT 1
#define TC_NULL_IS_SELECTION_REDUCTION_COUNTS 1
#define TC_NULL_IS_SELECTION_TYPE_VECTORS 1

/* The call path, then the record's 64-bit vectors (per-peer shapes) freed. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int run_call(tc_call *c, int by_name, const char *algorithm)
{
    int rc = tc_call_collective(c, by_name, algorithm);
    if (c->v64) free(c->v64);
    return rc;
}

static int run_regular_types(topocoll_coll coll, const char *algorithm, const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm);
static int run_regular(topocoll_coll coll, const char *algorithm, const void *sendbuf, int sendcount,
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       MPI_Op op, int root, MPI_Comm comm);

int topocoll_run(topocoll_coll coll, const char *algorithm, const void *sendbuf, int sendcount,
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 MPI_Op op, int root, MPI_Comm comm)
{
    if (!tc_coll_desc_of(coll))
        return tc_raise(comm, MPI_ERR_ARG, "topocoll_run: unknown collective %d", (int)coll);
    if (tc_coll_desc_of(coll)->vcounts)   /* per-peer collectives: the regular problem */
        return run_regular(coll, algorithm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, op, root,
                           comm);
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

/* ---- topocoll_<lower> and topocoll_<lower>_algorithm, per row ------------------ */

#define TC_DEFINE_COLL(UPPER, lower, Mpi, SHAPE)                                                   \
    int topocoll_##lower(TOPOCOLL_PARAMS_##SHAPE)                                                  \
    {                                                                                              \
        TC_PASS_##SHAPE(TOPOCOLL_##UPPER, Mpi);                                                    \
        tc_call c = rec_##SHAPE(TOPOCOLL_##UPPER, "topocoll_" #lower, TOPOCOLL_ARGS_##SHAPE);      \
        return run_call(&c, 0, NULL);                                                              \
    }                                                                                              \
    int topocoll_##lower##_algorithm(const char *algorithm, TOPOCOLL_PARAMS_##SHAPE)               \
    {                                                                                              \
        if (TC_NULL_IS_SELECTION_##SHAPE && !algorithm) return topocoll_##lower(TOPOCOLL_ARGS_##SHAPE); \
        tc_call c = rec_##SHAPE(TOPOCOLL_##UPPER, "topocoll_" #lower "_algorithm", TOPOCOLL_ARGS_##SHAPE); \
        return run_call(&c, 1, algorithm);                                                         \
    }

TOPOCOLL_COLLS(TC_DEFINE_COLL)

/* ---- topocoll_run for the per-peer collectives ------------------------------ */

/* The regular problem: every count sendcount (send) and recvcount (receive),
 * displacements j x count, as the benchmark's; then the collective's own
 * entry, which checks everything else (an invalid communicator too: the
 * vectors are then not made and its check comes first). */
#define REGULAR_TWO_BUFFERS(U)
#define REGULAR_TWO_BUFFERS_ROOT(U)
#define REGULAR_ONE_BUFFER(U)
#define REGULAR_REDUCTION(U)
#define REGULAR_REDUCTION_ROOT(U)
#define REGULAR_NO_BUFFERS(U)
#define REGULAR_TYPE_VECTORS(U)                                                                     \
    case TOPOCOLL_##U:                                                                             \
        free(v);                                                                                   \
        return run_regular_types(TOPOCOLL_##U, algorithm, sendbuf, sendcount, sendtype, recvbuf, recvcount, \
                                 recvtype, comm);
#define REGULAR_VECTORS(U)                                                                          \
    case TOPOCOLL_##U:                                                                             \
        c = rec_VECTORS(TOPOCOLL_##U, "topocoll_run", sendbuf, sc, sd, sendtype, recvbuf, rcn, rd, recvtype, comm); \
        break;
#define REGULAR_RECV_VECTORS(U)                                                                     \
    case TOPOCOLL_##U:                                                                             \
        c = rec_RECV_VECTORS(TOPOCOLL_##U, "topocoll_run", sendbuf, sendcount, sendtype, recvbuf, rcn, rd, \
                             recvtype, comm);                                                      \
        break;
#define REGULAR_RECV_VECTORS_ROOT(U)                                                                \
    case TOPOCOLL_##U:                                                                             \
        c = rec_RECV_VECTORS_ROOT(TOPOCOLL_##U, "topocoll_run", sendbuf, sendcount, sendtype, recvbuf, rcn, \
                                  rd, recvtype, root, comm);                                       \
        break;
#define REGULAR_SEND_VECTORS_ROOT(U)                                                                \
    case TOPOCOLL_##U:                                                                             \
        c = rec_SEND_VECTORS_ROOT(TOPOCOLL_##U, "topocoll_run", sendbuf, sc, sd, sendtype, recvbuf, recvcount, \
                                  recvtype, root, comm);                                           \
        break;
#define REGULAR_REDUCTION_COUNTS(U)                                                                 \
    case TOPOCOLL_##U:                                                                             \
        c = rec_REDUCTION_COUNTS(TOPOCOLL_##U, "topocoll_run", sendbuf, recvbuf, rcn, recvtype, op, comm); \
        break;
#define REGULAR_CASE(UPPER, lower, Mpi, SHAPE) REGULAR_##SHAPE(UPPER)

/* TYPE_VECTORS: every part count elements of the one type given, at byte
 * displacements j x count x extent. */
static int run_regular_types(topocoll_coll coll, const char *algorithm, const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm)
{
    int p = 0, rc;
    MPI_Aint lb, sext = 0, rext = 0;
    if (comm == MPI_COMM_NULL || PMPI_Comm_size(comm, &p) != MPI_SUCCESS || p < 1)
        return tc_raise(comm, MPI_ERR_COMM, "topocoll_run: invalid communicator");
    if (sendbuf != MPI_IN_PLACE && sendtype != MPI_DATATYPE_NULL) PMPI_Type_get_extent(sendtype, &lb, &sext);
    if (recvtype != MPI_DATATYPE_NULL) PMPI_Type_get_extent(recvtype, &lb, &rext);
    if ((int64_t)(p - 1) * sendcount * sext > INT_MAX || (int64_t)(p - 1) * recvcount * rext > INT_MAX)
        return tc_raise(comm, MPI_ERR_COUNT, "topocoll_run: byte displacements exceed an int");
    int *v = malloc(4 * (size_t)p * sizeof *v);
    MPI_Datatype *t = malloc(2 * (size_t)p * sizeof *t);
    if (!v || !t) {
        free(v), free(t);
        return tc_raise(comm, MPI_ERR_NO_MEM, "topocoll_run");
    }
    for (int j = 0; j < p; j++) {
        v[j] = sendcount, v[p + j] = (int)(j * sendcount * sext), t[j] = sendtype;
        v[2 * p + j] = recvcount, v[3 * p + j] = (int)(j * recvcount * rext), t[p + j] = recvtype;
    }
    tc_call c = rec_TYPE_VECTORS(coll, "topocoll_run", sendbuf, v, v + p, t, recvbuf, v + 2 * p, v + 3 * p, t + p,
                                 comm);
    rc = run_call(&c, algorithm != NULL, algorithm);
    free(v), free(t);
    return rc;
}

static int run_regular(topocoll_coll coll, const char *algorithm, const void *sendbuf, int sendcount,
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       MPI_Op op, int root, MPI_Comm comm)
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
    tc_call c;
    switch (coll) {
        TOPOCOLL_COLLS(REGULAR_CASE)
    default:
        free(v);
        return tc_raise(comm, MPI_ERR_ARG, "topocoll_run: %s has no regular problem", tc_coll_desc_of(coll)->name);
    }
    (void)sc, (void)sd, (void)rcn, (void)rd, (void)op, (void)root;
    rc = run_call(&c, algorithm != NULL, algorithm);
    free(v);
    return rc;
}

/* ---- nonblocking and persistent: topocoll_i<lower>, _algorithm, <lower>_init --- */

static int run_nb(tc_call *c, int by_name, const char *algorithm, int persistent, MPI_Info info,
                  MPI_Request *request)
{
    int rc = tc_nb_call(c, by_name, algorithm, persistent, info, request);
    free(c->v64);
    return rc;
}

#define TC_DEFINE_NB(UPPER, lower, Mpi, SHAPE)                                                     \
    int topocoll_i##lower(TOPOCOLL_PARAMS_##SHAPE, MPI_Request *request)                          \
    {                                                                                              \
        tc_call c = rec_##SHAPE(TOPOCOLL_##UPPER, "topocoll_i" #lower, TOPOCOLL_ARGS_##SHAPE);     \
        return run_nb(&c, 0, NULL, 0, MPI_INFO_NULL, request);                                     \
    }                                                                                              \
    int topocoll_i##lower##_algorithm(const char *algorithm, TOPOCOLL_PARAMS_##SHAPE,              \
                                      MPI_Request *request)                                        \
    {                                                                                              \
        tc_call c = rec_##SHAPE(TOPOCOLL_##UPPER, "topocoll_i" #lower "_algorithm", TOPOCOLL_ARGS_##SHAPE); \
        return run_nb(&c, algorithm != NULL, algorithm, 0, MPI_INFO_NULL, request);                \
    }                                                                                              \
    int topocoll_##lower##_init(TOPOCOLL_PARAMS_##SHAPE, MPI_Info info, MPI_Request *request)      \
    {                                                                                              \
        tc_call c = rec_##SHAPE(TOPOCOLL_##UPPER, "topocoll_" #lower "_init", TOPOCOLL_ARGS_##SHAPE); \
        return run_nb(&c, 0, NULL, 1, info, request);                                              \
    }                                                                                              \
    int topocoll_##lower##_init_algorithm(const char *algorithm, TOPOCOLL_PARAMS_##SHAPE, MPI_Info info, \
                                          MPI_Request *request)                                    \
    {                                                                                              \
        tc_call c = rec_##SHAPE(TOPOCOLL_##UPPER, "topocoll_" #lower "_init_algorithm", TOPOCOLL_ARGS_##SHAPE); \
        return run_nb(&c, algorithm != NULL, algorithm, 1, info, request);                         \
    }

TOPOCOLL_COLLS(TC_DEFINE_NB)
