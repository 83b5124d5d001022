/*
 * topocoll-bench: what the benchmark needs to know about each collective.
 *
 * Buffer sizes come from the library's descriptor (topocoll_coll_buffer_elems);
 * calls go through topocoll_run ("auto": topocoll_<coll>, the path an
 * application takes under the preload), applicability through topocoll_applicable,
 * with root 0.  Data is MPI_BYTE for the collectives that move data and
 * MPI_INT32_T with MPI_SUM for reductions (`bytes` per rank is then bytes / 4
 * elements; a size must be a multiple of 4).
 *
 * Every rank's input element e holds value(rank, e, rep); a collective's row
 * says where each result element comes from: one element of one rank's input
 * (data movement), or the sum over all ranks of one input element
 * (reductions; scan and exscan: over ranks 0..r, 0..r-1).  The receive
 * buffer is filled with values that differ from the expected result first,
 * so that bytes nobody wrote show up.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* A cheap integer hash of (rank, index, rep), so that blocks that land in the
 * wrong place, stale data of an earlier repetition and bytes nobody wrote
 * all show up. */
static inline uint64_t hash(int rank, size_t i, int rep)
{
    uint64_t x = (uint64_t)i * UINT64_C(0x9E3779B97F4A7C15);
    x ^= ((uint64_t)(unsigned)rank << 32) ^ (uint64_t)(unsigned)rep * UINT64_C(0xC2B2AE3D27D4EB4F);
    x ^= x >> 29;
    x *= UINT64_C(0xBF58476D1CE4E5B9);
    x ^= x >> 32;
    return x;
}

/* Input element e of rank `rank`: a byte, or a 15-bit integer that a sum over
 * up to 65536 ranks keeps inside int32. */
static uint32_t value(const bench_coll *bc, int rank, size_t e, int rep)
{
    uint64_t h = hash(rank, e, rep);
    return bc->esize == 1 ? (uint32_t)(h & 0xff) : (uint32_t)(h & 0x7fff);
}

/* ---- where result element i of rank r comes from ---------------------------- */

static void src_allgather(int r, size_t i, size_t count, int *q, size_t *e)
{
    (void)r;
    *q = (int)(i / count), *e = i % count;
}

static void src_root(int r, size_t i, size_t count, int *q, size_t *e)   /* bcast */
{
    (void)r, (void)count;
    *q = 0, *e = i;
}

static void src_scatter(int r, size_t i, size_t count, int *q, size_t *e)
{
    *q = 0, *e = (size_t)r * count + i;
}

static void src_same(int r, size_t i, size_t count, int *q, size_t *e)   /* reduce */
{
    (void)r, (void)count;
    *q = -1, *e = i;
}

static void src_own_block(int r, size_t i, size_t count, int *q, size_t *e)   /* reduce_scatter_block */
{
    *q = -1, *e = (size_t)r * count + i;
}

static void src_alltoall(int r, size_t i, size_t count, int *q, size_t *e)   /* block r of rank i/count */
{
    *q = (int)(i / count), *e = (size_t)r * count + i % count;
}

/* scan and exscan: the sum over ranks 0..r (q = -2) or 0..r-1 (q = -3) of
 * element i; exscan's rank 0 has no result. */
static void src_prefix(int r, size_t i, size_t count, int *q, size_t *e)
{
    (void)r, (void)count;
    *q = -2, *e = i;
}

static void src_exprefix(int r, size_t i, size_t count, int *q, size_t *e)
{
    (void)r, (void)count;
    *q = -3, *e = i;
}

static const bench_coll bench_colls[] = {
    /* collective, element bytes (4: MPI_INT32_T and MPI_SUM), input in recvbuf, source */
    { TOPOCOLL_ALLGATHER, 1, 0, src_allgather },
    { TOPOCOLL_BCAST, 1, 1, src_root },
    { TOPOCOLL_SCATTER, 1, 0, src_scatter },
    { TOPOCOLL_GATHER, 1, 0, src_allgather },
    { TOPOCOLL_REDUCE, 4, 0, src_same },
    { TOPOCOLL_REDUCE_SCATTER_BLOCK, 4, 0, src_own_block },
    { TOPOCOLL_ALLTOALL, 1, 0, src_alltoall },
    { TOPOCOLL_ALLTOALLV, 1, 0, src_alltoall },   /* the regular problem: every count the same */
    { TOPOCOLL_ALLREDUCE, 4, 0, src_same },
    { TOPOCOLL_ALLGATHERV, 1, 0, src_allgather },  /* the regular problem: every count the same */
    { TOPOCOLL_BARRIER, 1, 0, src_same },          /* no data: the size is ignored */
    { TOPOCOLL_REDUCE_SCATTER, 4, 0, src_own_block },   /* the regular problem: every count the same */
    { TOPOCOLL_GATHERV, 1, 0, src_allgather },     /* the regular problem (topocoll_run), root 0 */
    { TOPOCOLL_SCATTERV, 1, 0, src_scatter },      /* the regular problem (topocoll_run), root 0 */
    { TOPOCOLL_SCAN, 4, 0, src_prefix },
    { TOPOCOLL_EXSCAN, 4, 0, src_exprefix },
    { TOPOCOLL_ALLTOALLW, 1, 0, src_alltoall },   /* the regular problem: every part one type */
};

const bench_coll *bench_coll_get(topocoll_coll coll)
{
    for (size_t i = 0; i < sizeof bench_colls / sizeof bench_colls[0]; i++)
        if (bench_colls[i].coll == coll)
            return &bench_colls[i];
    return NULL;
}

static MPI_Datatype type_of(const bench_coll *bc) { return bc->esize == 1 ? MPI_BYTE : MPI_INT32_T; }
static MPI_Op op_of(const bench_coll *bc) { return bc->esize == 1 ? MPI_OP_NULL : MPI_SUM; }

MPI_Datatype bench_coll_type(const bench_coll *bc) { return type_of(bc); }
MPI_Op bench_coll_op(const bench_coll *bc) { return op_of(bc); }

/* ---- the generic operations ------------------------------------------------------ */

int bench_coll_buffers(const bench_coll *bc, size_t bytes, int np, int rank, size_t *sbytes,
                       size_t *rbytes)
{
    long long se = 0, re = 0;
    if (bytes % (size_t)bc->esize != 0)
        return BENCH_SIZE_UNALIGNED;
    size_t count = bytes / (size_t)bc->esize;
    if (np < 1 || count > (size_t)INT_MAX ||
        topocoll_coll_buffer_elems(bc->coll, np, rank, 0, (int)count, &se, &re) != 0 ||
        (unsigned long long)se > SIZE_MAX / (size_t)bc->esize ||
        (unsigned long long)re > SIZE_MAX / (size_t)bc->esize)
        return BENCH_SIZE_TOO_LARGE;
    *sbytes = (size_t)se * (size_t)bc->esize;
    *rbytes = (size_t)re * (size_t)bc->esize;
    return 0;
}

int bench_coll_applicable(const bench_coll *bc, const char *algo, size_t bytes, MPI_Comm comm,
                          const char **why)
{
    int count = (int)(bytes / (size_t)bc->esize);
    if (strcmp(algo, BENCH_AUTO) == 0 || strcmp(algo, BENCH_INTERPOSED) == 0) return 1;
    if (bc->coll == TOPOCOLL_ALLTOALLV) {   /* topocoll_applicable has no vectors; no entry declines */
        if (why) *why = "unknown algorithm";
        return topocoll_algorithm_index(bc->coll, algo) >= 0;
    }
    return topocoll_applicable(bc->coll, algo, count, type_of(bc), count, type_of(bc), op_of(bc), 0,
                               comm, why);
}

/* alltoallv's regular problem: every count `count`, displacements j count;
 * the vectors are kept between calls (made again when count or p changes). */
static int alltoallv_regular(const char *algo, const void *sbuf, void *rbuf, int count, MPI_Comm comm)
{
    static int *v, vp = -1, vcount = -1;
    int p, rc = MPI_Comm_size(comm, &p);
    if (rc != MPI_SUCCESS) return rc;
    if (p != vp || count != vcount) {
        int *nv = realloc(v, 2 * (size_t)p * sizeof *v);
        if (!nv) return MPI_ERR_NO_MEM;
        v = nv, vp = p, vcount = count;
        for (int j = 0; j < p; j++) v[j] = count, v[p + j] = j * count;
    }
    return topocoll_alltoallv_algorithm(strcmp(algo, BENCH_AUTO) == 0 ? NULL : algo, sbuf, v, v + p, MPI_BYTE,
                                        rbuf, v, v + p, MPI_BYTE, comm);
}

/* allgatherv's regular problem: every count `count`, displacements packed;
 * the vectors are kept between calls (made again when count or p changes). */
static int allgatherv_regular(const char *algo, const void *sbuf, void *rbuf, int count, MPI_Comm comm)
{
    static int *v, vp = -1, vcount = -1;
    int p, rc = MPI_Comm_size(comm, &p);
    if (rc != MPI_SUCCESS) return rc;
    if (p != vp || count != vcount) {
        int *nv = realloc(v, 2 * (size_t)p * sizeof *v);
        if (!nv) return MPI_ERR_NO_MEM;
        v = nv, vp = p, vcount = count;
        for (int j = 0; j < p; j++) v[j] = count, v[p + j] = j * count;
    }
    return topocoll_allgatherv_algorithm(strcmp(algo, BENCH_AUTO) == 0 ? NULL : algo, sbuf, count, MPI_BYTE,
                                         rbuf, v, v + p, MPI_BYTE, comm);
}

/* Which function a column calls: PMPI_<Coll> ("native"), MPI_<Coll>
 * ("interposed") or topocoll_<coll> ("auto"). */
typedef enum { CALL_PMPI, CALL_MPI, CALL_TOPOCOLL } call_path;

/* The per-rank-count collectives' regular problem as an application calls
 * it, through path: every count `count`, displacements j count (alltoallw:
 * in bytes, every part of type t), the arrays kept between calls (made
 * again when count or p changes). */
#define VECTOR_CALL(Mpi, lower, ...)                                                               \
    return path == CALL_PMPI  ? PMPI_##Mpi(__VA_ARGS__)                                            \
           : path == CALL_MPI ? MPI_##Mpi(__VA_ARGS__)                                             \
                              : topocoll_##lower(__VA_ARGS__)
static int vector_call(const bench_coll *bc, call_path path, const void *sbuf, void *rbuf, int count,
                       MPI_Comm comm)
{
    static int *cnt, *dsp, *bdsp, vp = -1, vcount = -1;
    static MPI_Datatype *types;
    MPI_Datatype t = type_of(bc);
    MPI_Op o = op_of(bc);
    MPI_Aint lb, ext;
    int p, rc = MPI_Comm_size(comm, &p);
    if (rc != MPI_SUCCESS) return rc;
    if (p != vp || count != vcount) {
        int *nv = realloc(cnt, 3 * (size_t)p * sizeof *nv);
        MPI_Datatype *nt = realloc(types, (size_t)p * sizeof *nt);
        if (nv) cnt = nv;
        if (nt) types = nt;
        if (!nv || !nt || MPI_Type_get_extent(t, &lb, &ext) != MPI_SUCCESS) return MPI_ERR_NO_MEM;
        dsp = cnt + p, bdsp = cnt + 2 * p, vp = p, vcount = count;
        for (int j = 0; j < p; j++)
            cnt[j] = count, dsp[j] = j * count, bdsp[j] = (int)(j * count * ext), types[j] = t;
    }
    switch (bc->coll) {
    case TOPOCOLL_ALLTOALLV: VECTOR_CALL(Alltoallv, alltoallv, sbuf, cnt, dsp, t, rbuf, cnt, dsp, t, comm);
    case TOPOCOLL_ALLGATHERV: VECTOR_CALL(Allgatherv, allgatherv, sbuf, count, t, rbuf, cnt, dsp, t, comm);
    case TOPOCOLL_REDUCE_SCATTER: VECTOR_CALL(Reduce_scatter, reduce_scatter, sbuf, rbuf, cnt, t, o, comm);
    case TOPOCOLL_GATHERV: VECTOR_CALL(Gatherv, gatherv, sbuf, count, t, rbuf, cnt, dsp, t, 0, comm);
    case TOPOCOLL_SCATTERV: VECTOR_CALL(Scatterv, scatterv, sbuf, cnt, dsp, t, rbuf, count, t, 0, comm);
    case TOPOCOLL_ALLTOALLW:
        VECTOR_CALL(Alltoallw, alltoallw, sbuf, cnt, bdsp, types, rbuf, cnt, bdsp, types, comm);
    default:
        return -1;
    }
}

/* The calls of each shape of the list (include/topocoll_colls.h) on the
 * benchmark's problem: every count `count` of type t, root 0, op o.  The
 * per-peer shapes have none here: their regular problem below. */
#define BENCH_TWO_BUFFERS(F) return F(sbuf, count, t, rbuf, count, t, comm);
#define BENCH_TWO_BUFFERS_ROOT(F) return F(sbuf, count, t, rbuf, count, t, 0, comm);
#define BENCH_ONE_BUFFER(F) return F(rbuf, count, t, 0, comm);
#define BENCH_REDUCTION(F) return F(sbuf, rbuf, count, t, o, comm);
#define BENCH_REDUCTION_ROOT(F) return F(sbuf, rbuf, count, t, o, 0, comm);
#define BENCH_NO_BUFFERS(F) return F(comm);
#define BENCH_VECTORS(F) break;
#define BENCH_RECV_VECTORS(F) break;
#define BENCH_RECV_VECTORS_ROOT(F) break;
#define BENCH_SEND_VECTORS_ROOT(F) break;
#define BENCH_REDUCTION_COUNTS(F) break;
#define BENCH_TYPE_VECTORS(F) break;

#define BENCH_NATIVE_CASE(UPPER, lower, Mpi, SHAPE) \
    case TOPOCOLL_##UPPER: BENCH_##SHAPE(PMPI_##Mpi)
#define BENCH_AUTO_CASE(UPPER, lower, Mpi, SHAPE) \
    case TOPOCOLL_##UPPER: BENCH_##SHAPE(topocoll_##lower)
#define BENCH_MPI_CASE(UPPER, lower, Mpi, SHAPE) \
    case TOPOCOLL_##UPPER: BENCH_##SHAPE(MPI_##Mpi)

/* One call of the benchmark's problem through path: "native" calls the MPI
 * library's own collective as an application without topocoll calls it
 * (PMPI, no topocoll code on the path), so that ratios to native compare
 * against what the library alone costs; "auto" the public topocoll_<coll>,
 * the path an application's MPI_<Coll> takes under the preload (its
 * pass-through included); "interposed" MPI_<Coll>, whatever is preloaded.
 * The columns by name pass topocoll's argument checks and catalog look-up
 * on every call (topocoll_run).  -1: a collective the benchmark lacks. */
static int path_call(const bench_coll *bc, call_path path, const void *sbuf, void *rbuf, int count,
                     MPI_Comm comm)
{
    MPI_Datatype t = type_of(bc);
    MPI_Op o = op_of(bc);
    (void)sbuf, (void)rbuf, (void)count, (void)t, (void)o;
    switch (path) {
    case CALL_PMPI:
        switch (bc->coll) { TOPOCOLL_COLLS(BENCH_NATIVE_CASE) default: break; }
        break;
    case CALL_MPI:
        switch (bc->coll) { TOPOCOLL_COLLS(BENCH_MPI_CASE) default: break; }
        break;
    case CALL_TOPOCOLL:
        switch (bc->coll) { TOPOCOLL_COLLS(BENCH_AUTO_CASE) default: break; }
        break;
    }
    return vector_call(bc, path, sbuf, rbuf, count, comm);   /* the v-collectives: their regular problem */
}

/* The call path of a column's name; -1: a catalog entry by name. */
static int column_path(const char *algo)
{
    if (strcmp(algo, "native") == 0) return CALL_PMPI;
    if (strcmp(algo, BENCH_AUTO) == 0) return CALL_TOPOCOLL;
    if (strcmp(algo, BENCH_INTERPOSED) == 0) return CALL_MPI;
    return -1;
}

int bench_coll_call(const bench_coll *bc, const char *algo, const void *sbuf, void *rbuf,
                    size_t bytes, MPI_Comm comm)
{
    int count = (int)(bytes / (size_t)bc->esize), path = column_path(algo);
    if (path >= 0) {
        int rc = path_call(bc, (call_path)path, sbuf, rbuf, count, comm);
        if (rc != -1) return rc;
    }
    if (bc->coll == TOPOCOLL_ALLTOALLV) return alltoallv_regular(algo, sbuf, rbuf, count, comm);
    if (bc->coll == TOPOCOLL_ALLGATHERV) return allgatherv_regular(algo, sbuf, rbuf, count, comm);
    return topocoll_run(bc->coll, strcmp(algo, BENCH_AUTO) == 0 ? NULL : algo, sbuf, count,
                        type_of(bc), rbuf, count, type_of(bc), op_of(bc), 0, comm);
}

/* The expected value of result element i of rank r. */
static uint32_t expected(const bench_coll *bc, size_t i, size_t count, int r, int np, int rep)
{
    int q;
    size_t e;
    bc->source(r, i, count, &q, &e);
    if (q >= 0) return value(bc, q, e, rep);
    uint32_t sum = 0;
    int upto = q == -2 ? r + 1 : q == -3 ? r : np;   /* scan, exscan: a prefix of the ranks */
    for (int k = 0; k < upto; k++) sum += value(bc, k, e, rep);
    return sum;
}

static void store(const bench_coll *bc, unsigned char *buf, size_t i, uint32_t v)
{
    if (bc->esize == 1) {
        buf[i] = (unsigned char)v;
    } else {
        int32_t x = (int32_t)v;
        memcpy(buf + i * sizeof x, &x, sizeof x);
    }
}

void bench_coll_fill(const bench_coll *bc, unsigned char *sbuf, unsigned char *rbuf, size_t bytes,
                     int rank, int np, int rep)
{
    size_t sb = 0, rb = 0, count = bytes / (size_t)bc->esize, es = (size_t)bc->esize;
    if (bench_coll_buffers(bc, bytes, np, rank, &sb, &rb) != 0) return;
    for (size_t i = 0; i < rb / es; i++)
        store(bc, rbuf, i, ~expected(bc, i, count, rank, np, rep));
    unsigned char *in = bc->input_in_recv ? rbuf : sbuf;
    size_t n = bc->input_in_recv ? (rank == 0 ? rb / es : 0) : sb / es;
    for (size_t e = 0; e < n; e++)
        store(bc, in, e, value(bc, rank, e, rep));
}

size_t bench_coll_check(const bench_coll *bc, const unsigned char *rbuf, size_t bytes, int rank,
                        int np, int rep)
{
    size_t sb = 0, rb = 0, bad = 0, count = bytes / (size_t)bc->esize, es = (size_t)bc->esize;
    unsigned char want[4];
    if (bench_coll_buffers(bc, bytes, np, rank, &sb, &rb) != 0) return bytes;
    if (bc->coll == TOPOCOLL_EXSCAN && rank == 0) return 0;   /* no result there */
    for (size_t i = 0; i < rb / es; i++) {
        store(bc, want, 0, expected(bc, i, count, rank, np, rep));
        for (size_t k = 0; k < es; k++)
            bad += rbuf[i * es + k] != want[k];
    }
    return bad;
}
