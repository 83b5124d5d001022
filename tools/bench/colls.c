/*
 * topocoll-bench: what the benchmark needs to know about each collective.
 *
 * A collective is one table entry: the sizes of its buffers, the applicability
 * check, how to fill the buffers, how to call it and how to check the result.
 * Data is always MPI_BYTE; `bytes` is the message size per rank.  To add a
 * collective, write its five functions and list it in bench_colls[].
 */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "bench.h"

/* The byte that rank `rank` contributes at index i in repetition rep.  A
 * cheap integer hash, so that blocks that land in the wrong place, stale
 * data of an earlier repetition and bytes nobody wrote all show up. */
static inline unsigned char pattern(int rank, size_t i, int rep)
{
    uint64_t x = (uint64_t)i * UINT64_C(0x9E3779B97F4A7C15);
    x ^= ((uint64_t)(unsigned)rank << 32) ^ (uint64_t)(unsigned)rep * UINT64_C(0xC2B2AE3D27D4EB4F);
    x ^= x >> 29;
    x *= UINT64_C(0xBF58476D1CE4E5B9);
    x ^= x >> 32;
    return (unsigned char)x;
}

/* ---- allgather ---------------------------------------------------------- */

static int allgather_buffers(size_t bytes, int np, size_t *sbytes, size_t *rbytes)
{
    if (np < 1 || bytes > (size_t)INT_MAX || bytes > SIZE_MAX / (size_t)np)
        return -1;
    *sbytes = bytes;
    *rbytes = bytes * (size_t)np;
    return 0;
}

static int allgather_applicable(const char *algo, size_t bytes, MPI_Comm comm,
                                const char **why)
{
    if (strcmp(algo, BENCH_AUTO) == 0) return 1;
    return topocoll_allgather_applicable(algo, (int)bytes, MPI_BYTE, (int)bytes,
                                         MPI_BYTE, comm, why);
}

static void allgather_fill(unsigned char *sbuf, unsigned char *rbuf, size_t bytes,
                           int rank, int np, int rep)
{
    for (size_t i = 0; i < bytes; i++)
        sbuf[i] = pattern(rank, i, rep);
    for (int r = 0; r < np; r++) {
        unsigned char *b = rbuf + (size_t)r * bytes;
        for (size_t i = 0; i < bytes; i++)
            b[i] = (unsigned char)~pattern(r, i, rep);
    }
}

static int allgather_call(const char *algo, const void *sbuf, void *rbuf, size_t bytes,
                          MPI_Comm comm)
{
    if (strcmp(algo, BENCH_AUTO) == 0)
        return topocoll_allgather(sbuf, (int)bytes, MPI_BYTE, rbuf, (int)bytes, MPI_BYTE, comm);
    return topocoll_allgather_algorithm(algo, sbuf, (int)bytes, MPI_BYTE, rbuf,
                                        (int)bytes, MPI_BYTE, comm);
}

static size_t allgather_check(const unsigned char *rbuf, size_t bytes, int rank, int np,
                              int rep)
{
    size_t bad = 0;
    (void)rank;
    for (int r = 0; r < np; r++) {
        const unsigned char *b = rbuf + (size_t)r * bytes;
        for (size_t i = 0; i < bytes; i++)
            bad += b[i] != pattern(r, i, rep);
    }
    return bad;
}

/* ---- the table ------------------------------------------------------------ */

static const bench_coll bench_colls[] = {
    { TOPOCOLL_ALLGATHER, allgather_buffers, allgather_applicable, allgather_fill,
      allgather_call, allgather_check },
};

const bench_coll *bench_coll_get(topocoll_coll coll)
{
    for (size_t i = 0; i < sizeof bench_colls / sizeof bench_colls[0]; i++)
        if (bench_colls[i].coll == coll)
            return &bench_colls[i];
    return NULL;
}
