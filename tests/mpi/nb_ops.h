/*
 * One nonblocking collective operation of the tests of the nonblocking and
 * persistent collectives (tests/mpi/test_nonblocking.c,
 * test_nonblocking_threads.c): its arguments (collective, count, element
 * type, root, in place), its buffers filled with data that depends only on
 * (rank, index, seed), the result every rank must hold afterwards computed
 * locally, the start through MPI_I<Coll>, topocoll_i<coll> or
 * topocoll_i<coll>_algorithm, and the check of the receive buffer against
 * the reference, byte for byte (gaps between blocks and inside the derived
 * type included: they must stay untouched).
 *
 * Element types: MPI_INT, MPI_DOUBLE, and a derived type (two ints at
 * offsets 0 and 8 of a 16-byte extent: a vector resized); the reductions
 * (MPI_SUM) take MPI_INT where the derived type is asked for.  Varying
 * counts: rank j's block holds count + j % 3 elements (count + (a + b) % 3
 * between a and b for the all-to-all ones), blocks one or two elements apart.
 *
 * NB_MPI_ONLY: a program linked with MPI only (the interposer preloaded or
 * not): MPI_I<Coll> only, topocoll_last_algorithm found with dlsym.
 */
#ifndef TC_TEST_NB_OPS_H
#define TC_TEST_NB_OPS_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topocoll_colls.h"
#ifdef NB_MPI_ONLY
#include <dlfcn.h>
/* The enum of topocoll.h, from the same list. */
#define NB_ENUM(UPPER, lower, Mpi, SHAPE) TOPOCOLL_##UPPER,
typedef enum { TOPOCOLL_COLLS(NB_ENUM) TOPOCOLL_NCOLLS } topocoll_coll;
#undef NB_ENUM
#else
#include "topocoll.h"
#endif

#define NB_NCOLL 17
static const char *const nb_coll_names[NB_NCOLL] = {
#define NB_NAME(UPPER, lower, Mpi, SHAPE) #lower,
    TOPOCOLL_COLLS(NB_NAME)
#undef NB_NAME
};

enum { NB_INT, NB_DOUBLE, NB_DERIVED, NB_NTYPES };
static const char *const nb_type_names[NB_NTYPES] = { "int", "double", "derived" };
static MPI_Datatype nb_derived = MPI_DATATYPE_NULL;

/* How an operation is started. */
enum { NB_VIA_MPI, NB_VIA_API, NB_VIA_ALGO };

typedef struct nb_op {
    int coll, count, tkind, root, inplace, seed;
    MPI_Comm comm;
    int p, r;
    MPI_Datatype type;             /* the element type passed */
    size_t ext;                    /* its extent in bytes */
    char *sbuf, *rbuf, *ref;
    size_t sbytes, rbytes, check_from, check_to; /* bytes of rbuf compared: [check_from, check_to) */
    int *scnt, *sdsp, *rcnt, *rdsp, *sdspb, *rdspb;
    MPI_Datatype *stypes, *rtypes;
    MPI_Request req;
    int native;                    /* served by the MPI library's own (see nb_mark_native) */
} nb_op;

static inline int nb_is_reduction(int coll)
{
    return coll == TOPOCOLL_REDUCE || coll == TOPOCOLL_REDUCE_SCATTER_BLOCK || coll == TOPOCOLL_ALLREDUCE ||
           coll == TOPOCOLL_REDUCE_SCATTER || coll == TOPOCOLL_SCAN || coll == TOPOCOLL_EXSCAN;
}

static inline void nb_types_init(void)
{
    MPI_Datatype vec;
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, 4 * (MPI_Aint)sizeof(int), &nb_derived);
    MPI_Type_commit(&nb_derived);
    MPI_Type_free(&vec);
}

static inline void nb_types_free(void) { MPI_Type_free(&nb_derived); }

/* The value of sub-element s of element i of rank r's data. */
static inline int nb_gen(int r, long i, int s, int seed)
{
    unsigned long long x = (unsigned long long)i * 0x9E3779B97F4A7C15ull + (unsigned long long)(r + 1) * 0xBF58476D1CE4E5B9ull +
                           (unsigned long long)(s + 1) * 0x94D049BB133111EBull + (unsigned long long)seed * 0x2545F4914F6CDD1Dull;
    x ^= x >> 31;
    x *= 0xD6E8FEB86659FD93ull;
    x ^= x >> 32;
    return (int)(x % 1009);   /* small: sums over ranks stay exact in int and double */
}

/* Element `at` of buf <- rank r's element i. */
static inline void nb_put(const nb_op *o, char *buf, long at, int r, long i)
{
    if (o->tkind == NB_INT) ((int *)(void *)buf)[at] = nb_gen(r, i, 0, o->seed);
    else if (o->tkind == NB_DOUBLE) ((double *)(void *)buf)[at] = nb_gen(r, i, 0, o->seed);
    else {
        ((int *)(void *)buf)[at * 4] = nb_gen(r, i, 0, o->seed);
        ((int *)(void *)buf)[at * 4 + 2] = nb_gen(r, i, 1, o->seed);
    }
}

/* Element `at` of buf <- the sum over ranks lo..hi-1 of their element i. */
static inline void nb_put_sum(const nb_op *o, char *buf, long at, int lo, int hi, long i)
{
    long s = 0;
    for (int j = lo; j < hi; j++) s += nb_gen(j, i, 0, o->seed);
    if (o->tkind == NB_DOUBLE) ((double *)(void *)buf)[at] = (double)s;
    else ((int *)(void *)buf)[at] = (int)s;
}

/* Block sizes: rank j's (varying collectives), between a and b (all-to-all). */
static inline int nb_cnt1(const nb_op *o, int j) { return o->count ? o->count + j % 3 : 0; }
static inline int nb_cnt2(const nb_op *o, int a, int b) { return o->count ? o->count + (a + b) % 3 : 0; }

/* Displacements of blocks cnt[0..p-1], `gap` elements apart; the total. */
static inline long nb_displs(int p, const int *cnt, int *dsp, int gap)
{
    long at = gap;
    for (int j = 0; j < p; j++) {
        dsp[j] = (int)at;
        at += cnt[j] + gap;
    }
    return at;
}

static inline void *nb_alloc(size_t bytes)
{
    void *b = malloc(bytes ? bytes : 16);
    if (!b) {
        fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return b;
}

/* Allocate and fill: the send buffer, the receive buffer (in place: its
 * own data where MPI reads it), the reference. */
static inline void nb_op_fill(nb_op *o, int seed);

static inline void nb_op_setup(nb_op *o, int coll, int count, int tkind, int root, int inplace, int seed,
                               MPI_Comm comm)
{
    memset(o, 0, sizeof *o);
    o->coll = coll;
    o->count = count;
    o->tkind = nb_is_reduction(coll) && tkind == NB_DERIVED ? NB_INT : tkind;
    o->seed = seed;
    o->comm = comm;
    o->req = MPI_REQUEST_NULL;
    MPI_Comm_size(comm, &o->p);
    MPI_Comm_rank(comm, &o->r);
    o->root = root < 0 ? o->p - 1 : root;
    o->inplace = coll == TOPOCOLL_BCAST || coll == TOPOCOLL_BARRIER ? 0 : inplace;
    o->type = o->tkind == NB_INT ? MPI_INT : o->tkind == NB_DOUBLE ? MPI_DOUBLE : nb_derived;
    o->ext = o->tkind == NB_INT ? sizeof(int) : o->tkind == NB_DOUBLE ? sizeof(double) : 4 * sizeof(int);
    int p = o->p, r = o->r, n = count, ip = o->inplace;
    int isroot = r == o->root;
    o->scnt = nb_alloc(sizeof(int) * (size_t)p);
    o->sdsp = nb_alloc(sizeof(int) * (size_t)p);
    o->rcnt = nb_alloc(sizeof(int) * (size_t)p);
    o->rdsp = nb_alloc(sizeof(int) * (size_t)p);
    o->sdspb = nb_alloc(sizeof(int) * (size_t)p);
    o->rdspb = nb_alloc(sizeof(int) * (size_t)p);
    for (int j = 0; j < p; j++)   /* the collectives without vectors leave them unset */
        o->scnt[j] = o->sdsp[j] = o->rcnt[j] = o->rdsp[j] = 0;
    o->stypes = nb_alloc(sizeof(MPI_Datatype) * (size_t)p);
    o->rtypes = nb_alloc(sizeof(MPI_Datatype) * (size_t)p);
    long selems = 0, relems = 0, tot = 0;
    for (int j = 0; j < p; j++) {
        o->stypes[j] = o->rtypes[j] = o->type;
        o->scnt[j] = o->rcnt[j] = 0;
    }
    /* sizes */
    switch (coll) {
    case TOPOCOLL_ALLGATHER: selems = n; relems = (long)p * n; break;
    case TOPOCOLL_BCAST: relems = n; break;
    case TOPOCOLL_SCATTER: selems = isroot ? (long)p * n : 0; relems = n; break;
    case TOPOCOLL_GATHER: selems = n; relems = isroot ? (long)p * n : 0; break;
    case TOPOCOLL_REDUCE: selems = n; relems = isroot ? n : 0; break;
    case TOPOCOLL_REDUCE_SCATTER_BLOCK: selems = (long)p * n; relems = ip ? (long)p * n : n; break;
    case TOPOCOLL_ALLTOALL: selems = relems = (long)p * n; break;
    case TOPOCOLL_ALLTOALLV:
    case TOPOCOLL_ALLTOALLW:
        for (int j = 0; j < p; j++) o->scnt[j] = o->rcnt[j] = nb_cnt2(o, r, j);
        selems = nb_displs(p, o->scnt, o->sdsp, 1);
        relems = nb_displs(p, o->rcnt, o->rdsp, 2);
        break;
    case TOPOCOLL_ALLREDUCE:
    case TOPOCOLL_SCAN:
    case TOPOCOLL_EXSCAN: selems = relems = n; break;
    case TOPOCOLL_ALLGATHERV:
        for (int j = 0; j < p; j++) o->rcnt[j] = nb_cnt1(o, j);
        selems = nb_cnt1(o, r);
        relems = nb_displs(p, o->rcnt, o->rdsp, 2);
        break;
    case TOPOCOLL_BARRIER: break;
    case TOPOCOLL_REDUCE_SCATTER:
        /* rank 0's block the largest: MPICH 4.0's in-place reduce_scatter
         * copies rank r's block to the front with memcpy, which aborts where
         * the two overlap (a block longer than the blocks before it) */
        for (int j = 0; j < p; j++) o->rcnt[j] = n ? n + (j == 0 ? 2 : j % 2) : 0;
        for (int j = 0; j < p; j++) o->rdsp[j] = (int)tot, tot += o->rcnt[j];
        selems = tot;
        relems = ip ? tot : o->rcnt[r];
        break;
    case TOPOCOLL_GATHERV:
        for (int j = 0; j < p; j++) o->rcnt[j] = nb_cnt1(o, j);
        selems = nb_cnt1(o, r);
        relems = nb_displs(p, o->rcnt, o->rdsp, 1);
        if (!isroot) relems = 0;
        break;
    case TOPOCOLL_SCATTERV:
        for (int j = 0; j < p; j++) o->scnt[j] = nb_cnt1(o, j);
        selems = nb_displs(p, o->scnt, o->sdsp, 2);
        if (!isroot) selems = 0;
        relems = nb_cnt1(o, r);
        break;
    default: break;
    }
    for (int j = 0; j < p; j++) {
        o->sdspb[j] = o->sdsp[j] * (int)o->ext;
        o->rdspb[j] = o->rdsp[j] * (int)o->ext;
    }
    o->sbytes = (size_t)selems * o->ext;
    o->rbytes = (size_t)relems * o->ext;
    o->sbuf = nb_alloc(o->sbytes);
    o->rbuf = nb_alloc(o->rbytes);
    o->ref = nb_alloc(o->rbytes);
    nb_op_fill(o, seed);
}

/* (Re)write o's buffers, in place, for the data of `seed`: the send buffer,
 * the receive buffer (in place: its own data where MPI reads it; elsewhere
 * a filler byte), the reference. */
static inline void nb_op_fill(nb_op *o, int seed)
{
    int p = o->p, r = o->r, n = o->count, rt = o->root, ip = o->inplace, coll = o->coll;
    int isroot = r == rt;
    long selems = (long)(o->sbytes / o->ext);
    o->seed = seed;
    memset(o->sbuf, 0x3c, o->sbytes);
    memset(o->rbuf, 0x5a, o->rbytes);
    o->check_from = 0;
    o->check_to = o->rbytes;
    char *s = o->sbuf, *rb = o->rbuf;
    const long K = 100003;   /* the index of block j's element i of a send buffer: j * K + i */
    /* send data, and in place the receive buffer's own data */
    switch (coll) {
    case TOPOCOLL_ALLGATHER:
        for (long i = 0; i < n; i++) nb_put(o, ip ? rb : s, ip ? (long)r * n + i : i, r, i);
        break;
    case TOPOCOLL_BCAST:
        for (long i = 0; isroot && i < n; i++) nb_put(o, rb, i, rt, i);
        break;
    case TOPOCOLL_SCATTER:
        for (long i = 0; isroot && i < (long)p * n; i++) nb_put(o, s, i, rt, i);
        break;
    case TOPOCOLL_GATHER:
        for (long i = 0; i < n; i++) nb_put(o, ip && isroot ? rb : s, ip && isroot ? (long)r * n + i : i, r, i);
        break;
    case TOPOCOLL_REDUCE:
    case TOPOCOLL_ALLREDUCE:
    case TOPOCOLL_SCAN:
    case TOPOCOLL_EXSCAN:
        for (long i = 0; i < n; i++) nb_put(o, ip && (coll != TOPOCOLL_REDUCE || isroot) ? rb : s, i, r, i);
        break;
    case TOPOCOLL_REDUCE_SCATTER_BLOCK:
    case TOPOCOLL_REDUCE_SCATTER:
        for (long i = 0; i < selems; i++) nb_put(o, ip ? rb : s, i, r, i);
        break;
    case TOPOCOLL_ALLTOALL:
        for (long i = 0; i < (long)p * n; i++) nb_put(o, ip ? rb : s, i, r, i);
        break;
    case TOPOCOLL_ALLTOALLV:
    case TOPOCOLL_ALLTOALLW:
        for (int j = 0; j < p; j++)
            for (long i = 0; i < o->scnt[j]; i++)
                nb_put(o, ip ? rb : s, (ip ? o->rdsp[j] : o->sdsp[j]) + i, r, j * K + i);
        break;
    case TOPOCOLL_ALLGATHERV:
    case TOPOCOLL_GATHERV:
        for (long i = 0; i < nb_cnt1(o, r); i++)
            nb_put(o, ip && (coll == TOPOCOLL_ALLGATHERV || isroot) ? rb : s,
                   ip && (coll == TOPOCOLL_ALLGATHERV || isroot) ? o->rdsp[r] + i : i, r, i);
        break;
    case TOPOCOLL_SCATTERV:
        for (int j = 0; isroot && j < p; j++)
            for (long i = 0; i < o->scnt[j]; i++) nb_put(o, s, o->sdsp[j] + i, rt, j * K + i);
        break;
    default: break;
    }
    memcpy(o->ref, o->rbuf, o->rbytes);
    char *f = o->ref;
    /* the reference */
    switch (coll) {
    case TOPOCOLL_ALLGATHER:
        for (int j = 0; j < p; j++)
            for (long i = 0; i < n; i++) nb_put(o, f, (long)j * n + i, j, i);
        break;
    case TOPOCOLL_BCAST:
        for (long i = 0; i < n; i++) nb_put(o, f, i, rt, i);
        break;
    case TOPOCOLL_SCATTER:
        for (long i = 0; !(ip && isroot) && i < n; i++) nb_put(o, f, i, rt, (long)r * n + i);
        break;
    case TOPOCOLL_GATHER:
        for (int j = 0; isroot && j < p; j++)
            for (long i = 0; i < n; i++) nb_put(o, f, (long)j * n + i, j, i);
        break;
    case TOPOCOLL_REDUCE:
        for (long i = 0; isroot && i < n; i++) nb_put_sum(o, f, i, 0, p, i);
        break;
    case TOPOCOLL_ALLREDUCE:
        for (long i = 0; i < n; i++) nb_put_sum(o, f, i, 0, p, i);
        break;
    case TOPOCOLL_SCAN:
        for (long i = 0; i < n; i++) nb_put_sum(o, f, i, 0, r + 1, i);
        break;
    case TOPOCOLL_EXSCAN:
        for (long i = 0; r > 0 && i < n; i++) nb_put_sum(o, f, i, 0, r, i);
        if (r == 0) o->check_to = 0;   /* undefined on rank 0 */
        break;
    case TOPOCOLL_REDUCE_SCATTER_BLOCK:
        for (long i = 0; i < n; i++) nb_put_sum(o, f, i, 0, p, (long)r * n + i);
        if (ip) o->check_to = (size_t)n * o->ext;   /* the rest: undefined */
        break;
    case TOPOCOLL_REDUCE_SCATTER:
        for (long i = 0; i < o->rcnt[r]; i++) nb_put_sum(o, f, i, 0, p, o->rdsp[r] + i);
        if (ip) o->check_to = (size_t)o->rcnt[r] * o->ext;
        break;
    case TOPOCOLL_ALLTOALL:
        for (int j = 0; j < p; j++)
            for (long i = 0; i < n; i++) nb_put(o, f, (long)j * n + i, j, (long)r * n + i);
        break;
    case TOPOCOLL_ALLTOALLV:
    case TOPOCOLL_ALLTOALLW:
        for (int j = 0; j < p; j++)
            for (long i = 0; i < o->rcnt[j]; i++) nb_put(o, f, o->rdsp[j] + i, j, r * K + i);
        break;
    case TOPOCOLL_ALLGATHERV:
        for (int j = 0; j < p; j++)
            for (long i = 0; i < o->rcnt[j]; i++) nb_put(o, f, o->rdsp[j] + i, j, i);
        break;
    case TOPOCOLL_GATHERV:
        for (int j = 0; isroot && j < p; j++)
            for (long i = 0; i < o->rcnt[j]; i++) nb_put(o, f, o->rdsp[j] + i, j, i);
        break;
    case TOPOCOLL_SCATTERV:
        for (long i = 0; !(ip && isroot) && i < nb_cnt1(o, r); i++) nb_put(o, f, i, rt, r * K + i);
        break;
    default: break;
    }
}

static inline void nb_op_free(nb_op *o)
{
    free(o->sbuf);
    free(o->rbuf);
    free(o->ref);
    free(o->scnt);
    free(o->sdsp);
    free(o->rcnt);
    free(o->rdsp);
    free(o->sdspb);
    free(o->rdspb);
    free(o->stypes);
    free(o->rtypes);
    o->sbuf = o->rbuf = o->ref = NULL;
}

/* One line naming the case, into buf. */
static inline const char *nb_op_str(const nb_op *o, char *buf, size_t len)
{
    snprintf(buf, len, "%s count %d %s%s root %d seed %d", nb_coll_names[o->coll], o->count,
             nb_type_names[o->tkind], o->inplace ? " in place" : "", o->root, o->seed);
    return buf;
}

/* 1 when the receive buffer holds the reference; else 0 and the first
 * differing byte's offset in *at. */
static inline int nb_op_matches(const nb_op *o, size_t *at)
{
    for (size_t b = o->check_from; b < o->check_to; b++)
        if (((volatile const char *)o->rbuf)[b] != o->ref[b]) {
            if (at) *at = b;
            return 0;
        }
    return 1;
}

#define NB_SB(o) ((o)->inplace && ((o)->coll != TOPOCOLL_SCATTER && (o)->coll != TOPOCOLL_SCATTERV) && \
                  (((o)->coll != TOPOCOLL_GATHER && (o)->coll != TOPOCOLL_GATHERV && (o)->coll != TOPOCOLL_REDUCE) || \
                   (o)->r == (o)->root) ? MPI_IN_PLACE : (const void *)(o)->sbuf)
#define NB_RB(o) ((o)->inplace && ((o)->coll == TOPOCOLL_SCATTER || (o)->coll == TOPOCOLL_SCATTERV) && \
                  (o)->r == (o)->root ? MPI_IN_PLACE : (void *)(o)->rbuf)

/* The argument lists of each shape, from an nb_op. */
#define NB_ARGS_ALLGATHER(o) NB_SB(o), (o)->count, (o)->type, NB_RB(o), (o)->count, (o)->type, (o)->comm
#define NB_ARGS_BCAST(o) (o)->rbuf, (o)->count, (o)->type, (o)->root, (o)->comm
#define NB_ARGS_SCATTER(o) NB_SB(o), (o)->count, (o)->type, NB_RB(o), (o)->count, (o)->type, (o)->root, (o)->comm
#define NB_ARGS_GATHER(o) NB_ARGS_SCATTER(o)
#define NB_ARGS_REDUCE(o) NB_SB(o), NB_RB(o), (o)->count, (o)->type, MPI_SUM, (o)->root, (o)->comm
#define NB_ARGS_REDUCE_SCATTER_BLOCK(o) NB_SB(o), NB_RB(o), (o)->count, (o)->type, MPI_SUM, (o)->comm
#define NB_ARGS_ALLTOALL(o) NB_ARGS_ALLGATHER(o)
#define NB_ARGS_ALLTOALLV(o) NB_SB(o), (o)->scnt, (o)->sdsp, (o)->type, NB_RB(o), (o)->rcnt, (o)->rdsp, (o)->type, (o)->comm
#define NB_ARGS_ALLREDUCE(o) NB_ARGS_REDUCE_SCATTER_BLOCK(o)
#define NB_ARGS_ALLGATHERV(o) NB_SB(o), nb_cnt1(o, (o)->r), (o)->type, NB_RB(o), (o)->rcnt, (o)->rdsp, (o)->type, (o)->comm
#define NB_ARGS_BARRIER(o) (o)->comm
#define NB_ARGS_REDUCE_SCATTER(o) NB_SB(o), NB_RB(o), (o)->rcnt, (o)->type, MPI_SUM, (o)->comm
#define NB_ARGS_SCAN(o) NB_ARGS_REDUCE_SCATTER_BLOCK(o)
#define NB_ARGS_EXSCAN(o) NB_ARGS_REDUCE_SCATTER_BLOCK(o)
#define NB_ARGS_GATHERV(o) NB_SB(o), nb_cnt1(o, (o)->r), (o)->type, NB_RB(o), (o)->rcnt, (o)->rdsp, (o)->type, (o)->root, (o)->comm
#define NB_ARGS_SCATTERV(o) NB_SB(o), (o)->scnt, (o)->sdsp, (o)->type, NB_RB(o), nb_cnt1(o, (o)->r), (o)->type, (o)->root, (o)->comm
#define NB_ARGS_ALLTOALLW(o) NB_SB(o), (o)->scnt, (o)->sdspb, (o)->stypes, NB_RB(o), (o)->rcnt, (o)->rdspb, (o)->rtypes, (o)->comm

/* Start o: via MPI_I<Coll> (NB_VIA_MPI), topocoll_i<coll> (NB_VIA_API) or
 * topocoll_i<coll>_algorithm(algo) (NB_VIA_ALGO).  Returns the call's code. */
static inline int nb_op_start(nb_op *o, int via, const char *algo)
{
    o->req = MPI_REQUEST_NULL;
    switch (o->coll) {
#ifdef NB_MPI_ONLY
#define NB_START(UPPER, lower, Mpi, SHAPE)                                                       \
    case TOPOCOLL_##UPPER:                                                                       \
        (void)via, (void)algo;                                                                   \
        return MPI_I##lower(NB_ARGS_##UPPER(o), &o->req);
#else
#define NB_START(UPPER, lower, Mpi, SHAPE)                                                       \
    case TOPOCOLL_##UPPER:                                                                       \
        if (via == NB_VIA_ALGO) return topocoll_i##lower##_algorithm(algo, NB_ARGS_##UPPER(o), &o->req); \
        if (via == NB_VIA_API) return topocoll_i##lower(NB_ARGS_##UPPER(o), &o->req);           \
        return MPI_I##lower(NB_ARGS_##UPPER(o), &o->req);
#endif
        TOPOCOLL_COLLS(NB_START)
#undef NB_START
    default: return MPI_ERR_ARG;
    }
}

/* topocoll_last_algorithm(), or NULL where topocoll is not loaded. */
static inline const char *nb_last_algorithm(void)
{
#ifdef NB_MPI_ONLY
    static const char *(*fn)(void);
    static int looked;
    if (!looked) {
        void *sym = dlsym(RTLD_DEFAULT, "topocoll_last_algorithm");
        memcpy(&fn, &sym, sizeof fn);
        looked = 1;
    }
    return fn ? fn() : NULL;
#else
    return topocoll_last_algorithm();
#endif
}

/* topocoll_progress() where topocoll is loaded (advances operations that
 * nothing waits for: a freed one), else nothing. */
static inline void nb_progress(void)
{
#ifdef NB_MPI_ONLY
    static int (*fn)(void);
    static int looked;
    if (!looked) {
        void *sym = dlsym(RTLD_DEFAULT, "topocoll_progress");
        memcpy(&fn, &sym, sizeof fn);
        looked = 1;
    }
    if (fn) fn();
#else
    topocoll_progress();
#endif
}

/* Make topocoll_last_algorithm() read "native" (a barrier on comm through
 * the MPI library's own), so that a later start that leaves it so was
 * served by the MPI library's own.  Nothing where topocoll is not loaded. */
static inline void nb_mark_native(MPI_Comm comm)
{
#ifdef NB_MPI_ONLY
    static int (*fn)(const char *, MPI_Comm);
    static int looked;
    if (!looked) {
        void *sym = dlsym(RTLD_DEFAULT, "topocoll_barrier_algorithm");
        memcpy(&fn, &sym, sizeof fn);
        looked = 1;
    }
    if (fn) fn("native", comm);
#else
    topocoll_barrier_algorithm("native", comm);
#endif
}

/* Whether the operation started last was served by the MPI library's own
 * (after nb_mark_native): topocoll_last_algorithm() "native", or no
 * topocoll at all. */
static inline int nb_served_natively(void)
{
    const char *name = nb_last_algorithm();
    return !name || !strcmp(name, "native");
}

#endif
