/*
 * Large legal calls: more than 2^31 bytes in one call, so that every byte
 * and element count on topocoll's data path must be 64-bit (a region beyond
 * MPI's int counts goes as one message of a datatype made for it, local
 * copies and reductions in pieces).  Run at np 1 and np 2; each case holds
 * at most about 6.5 GiB over all ranks, one case at a time (each on its own
 * duplicate of MPI_COMM_WORLD, freed at the end so that topocoll's scratch
 * and shared memory go with it; the test's own buffers are two slots
 * mapped once and reused, see alloc_guarded).
 *
 *   allgather, default selection, 2^28 MPI_DOUBLE (2 GiB per buffer)    np 1
 *   reduce, TOPOCOLL_REDUCE=binomial, 2^28+1 MPI_DOUBLE, MPI_SUM         np 1
 *   bcast, TOPOCOLL_BCAST=binomial, 2^28+1 MPI_DOUBLE                    np 1, 2
 *   bcast "binomial" of a non-contiguous type (7 doubles in 64 bytes):
 *     staged (packed) in pieces; at np 2 the root sends MPI_DOUBLE       np 1, 2
 *   allgather, default selection, of that type: the copy of more than
 *     2^31 bytes between two non-contiguous buffers                    np 1
 *   allgather of one element of 2^28+1 doubles (a type size beyond an
 *     int): served by the MPI library, also when TOPOCOLL_ALLGATHER
 *     forces an algorithm (it declines)                                 np 1
 *   the executor alone: one REDUCE of 2^31+1 MPI_UNSIGNED_CHAR, MPI_SUM
 *     (the local kernel) then MPI_BXOR (the MPI library, in pieces)     np 1
 *   allgather "h1_shm_rd_shm" in place on one virtual node: the shared
 *     segment holds more than INT_MAX bytes (np 1: 2^28 MPI_DOUBLE) or
 *     more than INT_MAX elements (np 2: 2^30+1 MPI_BYTE per rank)      np 1, 2
 *
 *   allreduce in place, forced "shm_tiled_naive", 2049 elements of
 *     contiguous(2^18, MPI_INT) and a user-defined commutative sum (MPI
 *     allows no predefined op on a derived type): 2^31 + 2^20 bytes per
 *     rank, through PMPI_Reduce_local                                    np 2
 *   allreduce in place, MPI_SUM, forced "ring", 2^29 + 2^18 MPI_INT
 *     (2^31 + 2^20 bytes per rank, the local kernel)                     np 2
 *     (these two only when named: <flavour>_large_allreduce_np2; every
 *     element checked against the closed-form sum; peak about 8 GiB and
 *     6 GiB over both ranks, shared-memory slots included)
 *   scan in place "recursive_doubling", reduce_scatter "pairwise" (a
 *     vector of 2^31 + 2^20 bytes of MPI_INT in two blocks), gatherv
 *     "binomial" and scatterv "linear" (the root's vector 2^31 + 2^20
 *     bytes), every element checked                                     np 2
 *     (only when named: <flavour>_large_colls_np2)
 *
 * Each case checks the return code, the algorithm that served
 * (topocoll_last_algorithm) and the data at sampled positions (the first and
 * last elements, every block boundary, a stride through the rest) plus a
 * guard past the end of every receive buffer.  Rank 0 prints
 * "N passed, M failed".  Arguments, if any, pick cases by name
 * (allgather_default, reduce_binomial, allgather_strided, executor_reduce,
 * allgather_huge_type, allgather_shm, bcast_binomial, bcast_strided,
 * allreduce_shm_tiled_naive, allreduce_ring).
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE   /* MAP_ANONYMOUS, MADV_HUGEPAGE */
#include <mpi.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "topocoll.h"
#include "core/config.h"
#include "exec/exec_mpi.h"
#include "common/mpi_harness.h"

#define GUARD 64            /* bytes past each receive buffer, checked untouched */
#define GUARD_BYTE 0x5a
#define STRIDE 1000003      /* sampled positions: every STRIDE-th element */

static int wrank, wsize;

/* ---- data ---------------------------------------------------------------- */

/* Element i of rank r's contribution: exact in a double. */
static double dval(int r, int64_t i) { return (double)i * 2.0 + (double)r; }
static unsigned char bval(int r, int64_t i)
{
    return (unsigned char)((uint64_t)i * 31u + ((uint64_t)i >> 13) + ((uint64_t)i >> 29) * 7u +
                           (unsigned)r * 101u);
}

/* The cases' buffers: two slots (a case uses at most two buffers at once),
 * each mapped once, as large as the largest case, and reused by every case.
 * Fresh multi-GiB allocations per case spent most of the run in the kernel
 * faulting in and zeroing pages (each case still writes every byte it
 * checks: inputs filled, receive buffers set to 0xff, guards rewritten);
 * transparent huge pages, where the kernel offers them on request, cut the
 * faults further.  topocoll's own scratch and shared memory are still
 * allocated and freed per case, by the library. */
#define SLOT_MIN ((size_t)5 << 29)   /* 2.5 GiB: the strided cases' 2^31 + 2^28 bytes */
/* Slot 1 starts this far into its mapping: two buffers at the same offset
 * in their pages (fresh mappings are page aligned) contend for the same
 * cache sets in a loop over both, which made the executor case's fill
 * several times slower. */
#define SLOT_SKEW 2112
static struct slot { unsigned char *p; size_t cap; } slots[2];

static void *alloc_guarded(int slot, size_t bytes, const char *what)
{
    struct slot *sl = &slots[slot];
    size_t need = bytes + GUARD + (size_t)slot * SLOT_SKEW;
    if (sl->cap < need) {
        if (sl->p) munmap(sl->p, sl->cap);
        size_t cap = need > SLOT_MIN ? need : SLOT_MIN;
        void *p = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            fprintf(stderr, "rank %d: cannot map %zu bytes for %s\n", wrank, cap, what);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
#ifdef MADV_HUGEPAGE
        (void)madvise(p, cap, MADV_HUGEPAGE);   /* refused: only slower */
#endif
        sl->p = p;
        sl->cap = cap;
    }
    unsigned char *at = sl->p + slot * SLOT_SKEW;
    memset(at + bytes, GUARD_BYTE, GUARD);
    return at;
}

static void release_slots(void)
{
    for (int i = 0; i < 2; i++)
        if (slots[i].p) munmap(slots[i].p, slots[i].cap);
}

static int guard_intact(const void *buf, size_t bytes)
{
    const unsigned char *g = (const unsigned char *)buf + bytes;
    for (int i = 0; i < GUARD; i++)
        if (g[i] != GUARD_BYTE) return 0;
    return 1;
}

/* Is position i one of the sampled ones for n elements in blocks of b? */
static int64_t next_sample(int64_t i, int64_t n, int64_t b)
{
    if (i < 64 || i + 64 >= n) return i + 1;
    int64_t in_block = i % b;
    if (in_block < 4 || in_block + 4 >= b) return i + 1;          /* block edges */
    int64_t next = i + STRIDE;
    int64_t edge = i - in_block + b - 4;                          /* next block's last 4 */
    if (edge < next) next = edge;
    if (n - 64 < next) next = n - 64;
    return next > i ? next : i + 1;
}

/* Sampled check of n doubles in blocks of b: element i must be want(i). */
static long check_doubles(const double *x, int64_t n, int64_t b, double (*want)(int64_t i, int64_t b))
{
    long bad = 0;
    for (int64_t i = 0; i < n; i = next_sample(i, n, b))
        if (x[i] != want(i, b)) {
            if (bad++ < 3)
                fprintf(stderr, "rank %d: element %lld is %.17g, expected %.17g\n", wrank,
                        (long long)i, x[i], want(i, b));
        }
    return bad;
}

static long check_bytes(const unsigned char *x, int64_t n, int64_t b)
{
    long bad = 0;
    for (int64_t i = 0; i < n; i = next_sample(i, n, b)) {
        unsigned char w = bval((int)(i / b), i % b);
        if (x[i] != w) {
            if (bad++ < 3)
                fprintf(stderr, "rank %d: byte %lld is %u, expected %u\n", wrank, (long long)i,
                        x[i], w);
        }
    }
    return bad;
}

/* Block q of an allgather of rank contributions dval(q, j). */
static double want_gathered(int64_t i, int64_t b) { return dval((int)(i / b), i % b); }
/* The root's data of a bcast. */
static double want_root(int64_t i, int64_t b) { (void)b; return dval(0, i); }
/* The MPI_SUM over wsize ranks of dval(r, i). */
static double want_sum(int64_t i, int64_t b)
{
    (void)b;
    return (double)wsize * 2.0 * (double)i + (double)wsize * (wsize - 1) / 2.0;
}

/* ---- the cases ------------------------------------------------------------- */

/* A fresh duplicate of MPI_COMM_WORLD that returns errors. */
static MPI_Comm fresh_comm(void)
{
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    return c;
}

/* Every rank's rc, the algorithm, and the local failures of a case. */
static void verdict(const char *what, int rc, const char *want_algo, long bad, int guard_ok,
                    MPI_Comm comm)
{
    const char *algo = topocoll_last_algorithm();
    int algo_ok = want_algo ? strcmp(algo, want_algo) == 0 : algo[0] != '\0';
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (rc != MPI_SUCCESS) MPI_Error_string(rc, msg, &len);
    CHECK(rc == MPI_SUCCESS, "%s: rank %d: rc %d (%s)", what, wrank, rc, msg);
    CHECK(algo_ok, "%s: rank %d: served by '%s', expected %s", what, wrank, algo,
          want_algo ? want_algo : "a topocoll algorithm");
    CHECK(rc != MPI_SUCCESS || bad == 0, "%s: rank %d: %ld sampled elements wrong", what, wrank, bad);
    CHECK(guard_ok, "%s: rank %d: written past the end of the receive buffer", what, wrank);
    if (wrank == 0) printf("%s: served by %s\n", what, algo);
    fflush(stdout);
    MPI_Barrier(comm);
}

/* Forced through the environment, as a user would (re-read here). */
static void force(const char *var, const char *algo)
{
    if (algo) setenv(var, algo, 1);
    else unsetenv(var);
    tc_config_reload();
}

static void allgather_default(int64_t n)
{
    MPI_Comm comm = fresh_comm();
    size_t rbytes = (size_t)n * (size_t)wsize * sizeof(double);
    double *s = alloc_guarded(0, (size_t)n * sizeof(double), "send"), *r = alloc_guarded(1, rbytes, "recv");
    for (int64_t i = 0; i < n; i++) s[i] = dval(wrank, i);
    memset(r, 0xff, rbytes);
    int rc = topocoll_allgather(s, (int)n, MPI_DOUBLE, r, (int)n, MPI_DOUBLE, comm);
    long bad = rc == MPI_SUCCESS ? check_doubles(r, n * wsize, n, want_gathered) : 0;
    char what[96];
    snprintf(what, sizeof what, "allgather default %lld doubles", (long long)n);
    verdict(what, rc, NULL, bad, guard_intact(r, rbytes), comm);
    MPI_Comm_free(&comm);
}

static void reduce_forced(int64_t n)
{
    MPI_Comm comm = fresh_comm();
    size_t bytes = (size_t)n * sizeof(double);
    double *s = alloc_guarded(0, bytes, "send"), *r = wrank == 0 ? alloc_guarded(1, bytes, "recv") : NULL;
    for (int64_t i = 0; i < n; i++) s[i] = dval(wrank, i);
    if (r) memset(r, 0xff, bytes);
    force("TOPOCOLL_REDUCE", "binomial");
    int rc = topocoll_reduce(s, r, (int)n, MPI_DOUBLE, MPI_SUM, 0, comm);
    force("TOPOCOLL_REDUCE", NULL);
    long bad = r && rc == MPI_SUCCESS ? check_doubles(r, n, n, want_sum) : 0;
    char what[96];
    snprintf(what, sizeof what, "reduce TOPOCOLL_REDUCE=binomial %lld doubles", (long long)n);
    verdict(what, rc, "binomial", bad, !r || guard_intact(r, bytes), comm);
    MPI_Comm_free(&comm);
}

static void bcast_forced(int64_t n)
{
    MPI_Comm comm = fresh_comm();
    size_t bytes = (size_t)n * sizeof(double);
    double *b = alloc_guarded(0, bytes, "buffer");
    if (wrank == 0)
        for (int64_t i = 0; i < n; i++) b[i] = dval(0, i);
    else
        memset(b, 0xff, bytes);
    force("TOPOCOLL_BCAST", "binomial");
    int rc = topocoll_bcast(b, (int)n, MPI_DOUBLE, 0, comm);
    force("TOPOCOLL_BCAST", NULL);
    long bad = rc == MPI_SUCCESS ? check_doubles(b, n, n, want_root) : 0;
    char what[96];
    snprintf(what, sizeof what, "bcast TOPOCOLL_BCAST=binomial %lld doubles", (long long)n);
    verdict(what, rc, "binomial", bad, guard_intact(b, bytes), comm);
    MPI_Comm_free(&comm);
}

#define SPAN_USED 7         /* doubles of a strided element */
#define SPAN_EXTENT 8       /* its extent in doubles */

static MPI_Datatype strided_type(void)
{
    MPI_Datatype seven, strided;
    MPI_Type_contiguous(SPAN_USED, MPI_DOUBLE, &seven);
    MPI_Type_create_resized(seven, 0, SPAN_EXTENT * (MPI_Aint)sizeof(double), &strided);
    MPI_Type_commit(&strided);
    MPI_Type_free(&seven);
    return strided;
}

/* Sampled check of n strided elements: the used doubles hold
 * value(e * SPAN_USED + j), the gaps keep their 0xff bytes. */
static long check_strided(const double *b, int64_t n, int64_t span, double (*value)(int64_t i))
{
    long bad = 0;
    for (int64_t e = 0; e < n; e = next_sample(e, n, n))
        for (int j = 0; j < (int)span; j++) {
            const double *x = &b[e * span + j];
            uint64_t bits;
            memcpy(&bits, x, sizeof bits);
            if (j < SPAN_USED ? *x != value(e * SPAN_USED + j) : bits != UINT64_MAX) bad++;
        }
    return bad;
}

static double root_value(int64_t i) { return dval(0, i); }

/* Allgather at np 1 of a non-contiguous type (send to receive through MPI
 * itself: neither side is packed). */
static void allgather_strided(int64_t n)
{
    MPI_Comm comm = fresh_comm();
    MPI_Datatype strided = strided_type();
    size_t bytes = (size_t)(n * SPAN_EXTENT) * sizeof(double);
    double *s = alloc_guarded(0, bytes, "send"), *r = alloc_guarded(1, bytes, "recv");
    memset(s, 0xff, bytes);
    memset(r, 0xff, bytes);
    for (int64_t e = 0; e < n; e++)
        for (int j = 0; j < SPAN_USED; j++) s[e * SPAN_EXTENT + j] = dval(0, e * SPAN_USED + j);
    int rc = topocoll_allgather(s, (int)n, strided, r, (int)n, strided, comm);
    long bad = rc == MPI_SUCCESS ? check_strided(r, n, SPAN_EXTENT, root_value) : 0;
    char what[96];
    snprintf(what, sizeof what, "allgather default %lld strided elements", (long long)n);
    verdict(what, rc, NULL, bad, guard_intact(r, bytes), comm);
    MPI_Type_free(&strided);
    MPI_Comm_free(&comm);
}

/* Bcast of n elements of 7 doubles every 8 (non-contiguous: packed into a
 * staging buffer); the root (rank 0) of a multi-rank run describes the same
 * data as 7n contiguous doubles. */
static void bcast_strided(int64_t n)
{
    MPI_Comm comm = fresh_comm();
    MPI_Datatype strided = strided_type();
    int contiguous_root = wsize > 1 && wrank == 0;
    int64_t span = contiguous_root ? SPAN_USED : SPAN_EXTENT;
    size_t bytes = (size_t)(n * span) * sizeof(double);
    double *b = alloc_guarded(0, bytes, "buffer");
    memset(b, 0xff, bytes);
    for (int64_t e = 0; e < n && wrank == 0; e++)
        for (int j = 0; j < SPAN_USED; j++) b[e * span + j] = dval(0, e * SPAN_USED + j);
    int rc = contiguous_root
                 ? topocoll_bcast_algorithm("binomial", b, (int)(n * SPAN_USED), MPI_DOUBLE, 0, comm)
                 : topocoll_bcast_algorithm("binomial", b, (int)n, strided, 0, comm);
    long bad = rc == MPI_SUCCESS ? check_strided(b, n, span, root_value) : 0;
    char what[96];
    snprintf(what, sizeof what, "bcast binomial %lld strided elements (%s root)", (long long)n,
             wsize > 1 ? "contiguous" : "strided");
    verdict(what, rc, "binomial", bad, guard_intact(b, bytes), comm);
    MPI_Type_free(&strided);
    MPI_Comm_free(&comm);
}

/* One element of a type whose size an int cannot hold (MPI_Type_size says
 * MPI_UNDEFINED): no schedule describes it, so the MPI library serves the
 * call, with default selection and with an algorithm forced through the
 * environment (which declines, reported once on stderr). */
static void allgather_huge_type(int64_t n, const char *forced)
{
    MPI_Comm comm = fresh_comm();
    MPI_Datatype huge;
    MPI_Type_contiguous((int)n, MPI_DOUBLE, &huge);
    MPI_Type_commit(&huge);
    size_t bytes = (size_t)n * sizeof(double);
    double *s = alloc_guarded(0, bytes, "send"), *r = alloc_guarded(1, bytes, "recv");
    for (int64_t i = 0; i < n; i++) s[i] = dval(wrank, i);
    memset(r, 0xff, bytes);
    const char *why = "";
    int can = topocoll_allgather_applicable("ring", 1, huge, 1, huge, comm, &why);
    CHECK(can == 0, "topocoll_allgather_applicable(ring) of a type beyond an int: %d (%s)", can, why);
    if (forced) force("TOPOCOLL_ALLGATHER", forced);
    int rc = topocoll_allgather(s, 1, huge, r, 1, huge, comm);
    if (forced) force("TOPOCOLL_ALLGATHER", NULL);
    long bad = rc == MPI_SUCCESS ? check_doubles(r, n, n, want_gathered) : 0;
    char what[96];
    snprintf(what, sizeof what, "allgather of 1 element of %lld doubles, %s%s", (long long)n,
             forced ? "forced " : "default selection", forced ? forced : "");
    verdict(what, rc, "native", bad, guard_intact(r, bytes), comm);
    MPI_Type_free(&huge);
    MPI_Comm_free(&comm);
}

/* The executor itself (white box): one REDUCE of n > INT_MAX elements of
 * MPI_UNSIGNED_CHAR, which no catalog entry emits today (their reductions
 * work on blocks of one user count) but the executor must serve: MPI_SUM
 * (the local kernel, one pass), then MPI_BXOR on the result (no kernel: the
 * MPI library in pieces of at most INT_MAX elements). */
static unsigned char exec_sum(int64_t i) { return (unsigned char)((bval(0, i) & 0x7f) + (bval(1, i) & 0x7f)); }

static long exec_check(const unsigned char *b, int64_t n, int bxor)
{
    long bad = 0;
    const int64_t edges[] = { INT_MAX - 1, INT_MAX, (int64_t)INT_MAX + 1, n - 1 };
    for (int64_t i = 0; i < n; i = next_sample(i, n, n))
        bad += b[i] != (unsigned char)(bxor ? exec_sum(i) ^ (bval(0, i) & 0x7f) : exec_sum(i));
    for (int k = 0; k < 4; k++)
        bad += b[edges[k]] != (unsigned char)(bxor ? exec_sum(edges[k]) ^ (bval(0, edges[k]) & 0x7f)
                                                   : exec_sum(edges[k]));
    return bad;
}

static void executor_reduce(int64_t n)
{
    MPI_Comm comm = fresh_comm();
    unsigned char *a = alloc_guarded(0, (size_t)n, "a"), *b = alloc_guarded(1, (size_t)n, "b");
    for (int64_t i = 0; i < n; i++) {
        a[i] = bval(0, i) & 0x7f;
        b[i] = bval(1, i) & 0x7f;
    }
    tc_sched s;
    tc_sched_init(&s);
    tc_sched_reduce(&s, tc_reg(TC_BUF_SEND, 0, n), tc_reg(TC_BUF_RECV, 0, n));
    int rc = tc_sched_finish(&s) ? MPI_ERR_NO_MEM : MPI_SUCCESS;
    s.tmp_like = TC_BUF_RECV;
    tc_bind bind[TC_NBUF];
    tc_workspace ws;
    memset(&ws, 0, sizeof ws);
    if (rc == MPI_SUCCESS) rc = tc_bind_type(&bind[TC_BUF_SEND], a, MPI_UNSIGNED_CHAR);
    if (rc == MPI_SUCCESS) rc = tc_bind_type(&bind[TC_BUF_RECV], b, MPI_UNSIGNED_CHAR);
    for (int bxor = 0; bxor < 2; bxor++) {
        tc_exec_env env = { comm, &ws, NULL, NULL, NULL, bxor ? MPI_BXOR : MPI_SUM, NULL };
        int rc2 = rc == MPI_SUCCESS ? tc_exec(&s, bind, &env) : rc;
        long bad = rc2 == MPI_SUCCESS ? exec_check(b, n, bxor) : 0;
        char what[96];
        snprintf(what, sizeof what, "executor: one reduce (%s) of %lld unsigned chars", bxor ? "MPI_BXOR" : "MPI_SUM",
                 (long long)n);
        CHECK(rc2 == MPI_SUCCESS, "%s: rc %d", what, rc2);
        CHECK(rc2 != MPI_SUCCESS || bad == 0, "%s: %ld sampled elements wrong", what, bad);
        CHECK(guard_intact(b, (size_t)n), "%s: written past the end", what);
        if (wrank == 0) printf("%s: rc %d\n", what, rc2);
    }
    tc_sched_free(&s);
    tc_workspace_free(&ws);
    MPI_Comm_free(&comm);
}

/* In-place allgather through a node-shared segment of every block. */
static void allgather_shm(int64_t n, MPI_Datatype type)
{
    MPI_Comm comm = fresh_comm();
    char spec[32];
    snprintf(spec, sizeof spec, "1x%d", wsize);
    int rc = topocoll_set_topology(comm, spec);
    CHECK(rc == MPI_SUCCESS, "topocoll_set_topology(%s): rc %d", spec, rc);
    int tsize;
    MPI_Type_size(type, &tsize);
    size_t rbytes = (size_t)n * (size_t)wsize * (size_t)tsize;
    void *r = alloc_guarded(0, rbytes, "recv");
    memset(r, 0xff, rbytes);
    for (int64_t i = 0; i < n; i++) {
        if (type == MPI_DOUBLE) ((double *)r)[n * wrank + i] = dval(wrank, i);
        else ((unsigned char *)r)[n * wrank + i] = bval(wrank, i);
    }
    /* a segment beyond INT_MAX bytes: a budget that holds it (a window
     * over the budget would send this allgather elsewhere: it has no pieces) */
    setenv("TOPOCOLL_SHM_BUDGET", "8G", 1);
    rc = topocoll_allgather_algorithm("h1_shm_rd_shm", MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, (int)n,
                                      type, comm);
    unsetenv("TOPOCOLL_SHM_BUDGET");
    long bad = 0;
    if (rc == MPI_SUCCESS)
        bad = type == MPI_DOUBLE ? check_doubles(r, n * wsize, n, want_gathered)
                                 : check_bytes(r, n * wsize, n);
    char what[96];
    snprintf(what, sizeof what, "allgather h1_shm_rd_shm in place %lld %s per rank", (long long)n,
             type == MPI_DOUBLE ? "doubles" : "bytes");
    verdict(what, rc, "h1_shm_rd_shm", bad, guard_intact(r, rbytes), comm);
    MPI_Comm_free(&comm);
}

/* Allreduce in place of more than 2^31 bytes per rank through a forced
 * entry, a sum of ints: per_elem ints per element (1: MPI_INT and MPI_SUM,
 * the local kernel; more: a contiguous datatype and a user-defined
 * commutative sum, which MPI allows on derived types and the MPI library
 * applies), and the closed-form sum checked at every element. */
/* Int j of rank r: (j mod IVAL_PERIOD) - 500000 + 3 r, written and checked
 * a period at a time (no division per int: the loops vectorise). */
#define IVAL_PERIOD 1000003

static void fill_ints(int *b, int64_t nints, int r)
{
    for (int64_t base = 0; base < nints; base += IVAL_PERIOD) {
        int len = nints - base < IVAL_PERIOD ? (int)(nints - base) : IVAL_PERIOD;
        int *x = b + base;
        for (int m = 0; m < len; m++) x[m] = m - 500000 + 3 * r;
    }
}

static void int_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int size = 0;
    MPI_Type_size(*dt, &size);
    int64_t n = (int64_t)*len * (size / (int)sizeof(int));
    for (int64_t i = 0; i < n; i++) ((int *)inout)[i] += ((const int *)in)[i];
}

static long check_allreduce_sum(const int *b, int64_t nints)
{
    long bad = 0;
    const int c = 3 * wsize * (wsize - 1) / 2;
    for (int64_t base = 0; base < nints; base += IVAL_PERIOD) {
        int len = nints - base < IVAL_PERIOD ? (int)(nints - base) : IVAL_PERIOD;
        const int *x = b + base;
        long run = 0;
        for (int m = 0; m < len; m++) run += x[m] != wsize * (m - 500000) + c;
        for (int m = 0; run && m < len && bad < 3; m++)   /* name the first three */
            if (x[m] != wsize * (m - 500000) + c)
                fprintf(stderr, "rank %d: int %lld is %d, expected %d\n", wrank, (long long)(base + m), x[m],
                        wsize * (m - 500000) + c);
        bad += run;
    }
    return bad;
}

static void allreduce_forced(const char *algo, int64_t nints, int per_elem)
{
    MPI_Comm comm = fresh_comm();
    MPI_Datatype type = MPI_INT;
    MPI_Op op = MPI_SUM;
    if (per_elem > 1) {
        MPI_Type_contiguous(per_elem, MPI_INT, &type);
        MPI_Type_commit(&type);
        MPI_Op_create(int_sum, 1, &op);
    }
    size_t bytes = (size_t)nints * sizeof(int);
    int *b = alloc_guarded(0, bytes, "buffer");
    fill_ints(b, nints, wrank);
    int rc = topocoll_allreduce_algorithm(algo, MPI_IN_PLACE, b, (int)(nints / per_elem), type, op, comm);
    long bad = rc == MPI_SUCCESS ? check_allreduce_sum(b, nints) : 0;
    char what[128];
    snprintf(what, sizeof what, "allreduce %s in place, %s, %lld elements of %d ints (%lld bytes per rank)", algo,
             per_elem > 1 ? "user sum" : "MPI_SUM", (long long)(nints / per_elem), per_elem, (long long)bytes);
    verdict(what, rc, algo, bad, guard_intact(b, bytes), comm);
    if (per_elem > 1) {
        MPI_Type_free(&type);
        MPI_Op_free(&op);
    }
    MPI_Comm_free(&comm);
}

/* Ints b[0..n) that must hold, at global index off + i, the MPI_SUM of
 * fill_ints' values over ranks lo..hi-1. */
static long check_sum_range(const int *b, int64_t n, int64_t off, int lo, int hi)
{
    long bad = 0;
    int k = hi - lo, c = 3 * (hi * (hi - 1) / 2 - lo * (lo - 1) / 2);
    for (int64_t i = 0; i < n; i++) {
        int m = (int)((off + i) % IVAL_PERIOD), want = k * (m - 500000) + c;
        if (b[i] != want && bad++ < 3)
            fprintf(stderr, "rank %d: int %lld is %d, expected %d\n", wrank, (long long)i, b[i], want);
    }
    return bad;
}

/* scan in place, forced: rank r holds the sum over ranks 0..r. */
static void scan_forced(const char *algo, int64_t nints)
{
    MPI_Comm comm = fresh_comm();
    size_t bytes = (size_t)nints * sizeof(int);
    int *b = alloc_guarded(0, bytes, "buffer");
    fill_ints(b, nints, wrank);
    int rc = topocoll_scan_algorithm(algo, MPI_IN_PLACE, b, (int)nints, MPI_INT, MPI_SUM, comm);
    long bad = rc == MPI_SUCCESS ? check_sum_range(b, nints, 0, 0, wrank + 1) : 0;
    char what[128];
    snprintf(what, sizeof what, "scan %s in place, %lld ints (%lld bytes per rank)", algo, (long long)nints,
             (long long)bytes);
    verdict(what, rc, algo, bad, guard_intact(b, bytes), comm);
    MPI_Comm_free(&comm);
}

/* reduce_scatter, forced: a vector of nints ints in wsize unequal blocks
 * (the last one larger); rank r gets its block summed over every rank. */
static void reduce_scatter_forced(const char *algo, int64_t nints)
{
    MPI_Comm comm = fresh_comm();
    int counts[2], base = (int)(nints / wsize);
    for (int r = 0; r < wsize; r++) counts[r] = r == wsize - 1 ? (int)(nints - (int64_t)base * (wsize - 1)) : base;
    int64_t off = (int64_t)base * wrank;
    size_t sbytes = (size_t)nints * sizeof(int), rbytes = (size_t)counts[wrank] * sizeof(int);
    int *s = alloc_guarded(0, sbytes, "send"), *r = alloc_guarded(1, rbytes, "recv");
    fill_ints(s, nints, wrank);
    memset(r, 0xff, rbytes);
    int rc = topocoll_reduce_scatter_algorithm(algo, s, r, counts, MPI_INT, MPI_SUM, comm);
    long bad = rc == MPI_SUCCESS ? check_sum_range(r, counts[wrank], off, 0, wsize) : 0;
    char what[128];
    snprintf(what, sizeof what, "reduce_scatter %s, a vector of %lld ints (%lld bytes)", algo, (long long)nints,
             (long long)sbytes);
    verdict(what, rc, algo, bad, guard_intact(r, rbytes), comm);
    MPI_Comm_free(&comm);
}

/* Ints b[0..n) that must be fill_ints' values of rank r from index 0. */
static long check_fill(const int *b, int64_t n, int r)
{
    long bad = 0;
    for (int64_t i = 0; i < n; i++) {
        int want = (int)(i % IVAL_PERIOD) - 500000 + 3 * r;
        if (b[i] != want && bad++ < 3)
            fprintf(stderr, "rank %d: int %lld is %d, expected %d\n", wrank, (long long)i, b[i], want);
    }
    return bad;
}

/* gatherv (scatterv), forced, root 0: every rank's block of n ints, the
 * root's vector beyond 2^31 bytes, displacements packed. */
static void rootedv_forced(const char *algo, int scatter, int64_t n)
{
    MPI_Comm comm = fresh_comm();
    int counts[2], displs[2];
    for (int r = 0; r < wsize; r++) counts[r] = (int)n + r, displs[r] = r ? displs[r - 1] + counts[r - 1] : 0;
    int64_t total = (int64_t)displs[wsize - 1] + counts[wsize - 1];
    size_t vbytes = (size_t)total * sizeof(int), bbytes = (size_t)counts[wrank] * sizeof(int);
    int *vec = wrank == 0 ? alloc_guarded(0, vbytes, "vector") : NULL, *blk = alloc_guarded(1, bbytes, "block");
    long bad = 0;
    int rc;
    if (scatter) {
        if (vec)
            for (int r = 0; r < wsize; r++) fill_ints(vec + displs[r], counts[r], r);
        memset(blk, 0xff, bbytes);
        rc = topocoll_scatterv_algorithm(algo, vec, counts, displs, MPI_INT, blk, counts[wrank], MPI_INT, 0, comm);
        if (rc == MPI_SUCCESS) bad = check_fill(blk, counts[wrank], wrank);
    } else {
        fill_ints(blk, counts[wrank], wrank);
        if (vec) memset(vec, 0xff, vbytes);
        rc = topocoll_gatherv_algorithm(algo, blk, counts[wrank], MPI_INT, vec, counts, displs, MPI_INT, 0, comm);
        for (int r = 0; vec && rc == MPI_SUCCESS && r < wsize; r++) bad += check_fill(vec + displs[r], counts[r], r);
    }
    char what[128];
    snprintf(what, sizeof what, "%s %s, root's vector %lld ints (%lld bytes)", scatter ? "scatterv" : "gatherv", algo,
             (long long)total, (long long)vbytes);
    verdict(what, rc, algo, bad, scatter ? guard_intact(blk, bbytes) : !vec || guard_intact(vec, vbytes), comm);
    MPI_Comm_free(&comm);
}

/* One case by name (a command-line argument picks some: reproducers). */
static int named(int argc, char **argv, const char *name)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], name) == 0) return 1;
    return 0;
}

static int wanted(int argc, char **argv, const char *name)
{
    if (argc < 2) return 1;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], name) == 0) return 1;
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    const int64_t two28 = (int64_t)1 << 28;
    /* strided elements of 56 bytes: just past 2^31 bytes of data */
    const int64_t strided_n = ((int64_t)1 << 31) / (SPAN_USED * 8) + 1;
    if (wsize > 2) {
        if (wrank == 0) fprintf(stderr, "test_large runs at np 1 or 2 (memory)\n");
        MPI_Finalize();
        return 1;
    }
    if (wsize == 1 && wanted(argc, argv, "allgather_default")) allgather_default(two28);
    if (wsize == 1 && wanted(argc, argv, "reduce_binomial")) reduce_forced(two28 + 1);
    if (wsize == 1 && wanted(argc, argv, "allgather_strided")) allgather_strided(strided_n);
    if (wsize == 1 && wanted(argc, argv, "executor_reduce")) executor_reduce((int64_t)INT_MAX + 2);
    if (wsize == 1 && wanted(argc, argv, "allgather_huge_type")) {
        allgather_huge_type(two28 + 1, "ring");
        allgather_huge_type(two28 + 1, NULL);
    }
    if (wanted(argc, argv, "allgather_shm")) {
        if (wsize == 1) allgather_shm(two28, MPI_DOUBLE);
        else allgather_shm(((int64_t)1 << 30) + 1, MPI_BYTE);
    }
    if (wanted(argc, argv, "bcast_binomial")) bcast_forced(two28 + 1);
    if (wanted(argc, argv, "bcast_strided")) bcast_strided(strided_n);
    /* run only when named (a test of their own: <flavour>_large_allreduce_np2) */
    if (wsize == 2 && named(argc, argv, "allreduce_shm_tiled_naive"))
        allreduce_forced("shm_tiled_naive", (int64_t)2049 << 18, 1 << 18);
    if (wsize == 2 && named(argc, argv, "allreduce_ring"))
        allreduce_forced("ring", ((int64_t)1 << 29) + ((int64_t)1 << 18), 1);
    /* the newer collectives beyond 2^31 bytes (named: <flavour>_large_colls_np2) */
    const int64_t big_ints = ((int64_t)1 << 29) + ((int64_t)1 << 18);
    if (wsize == 2 && named(argc, argv, "scan_recursive_doubling")) scan_forced("recursive_doubling", big_ints);
    if (wsize == 2 && named(argc, argv, "reduce_scatter_pairwise")) reduce_scatter_forced("pairwise", big_ints);
    if (wsize == 2 && named(argc, argv, "gatherv_binomial")) rootedv_forced("binomial", 0, big_ints / 2);
    if (wsize == 2 && named(argc, argv, "scatterv_linear")) rootedv_forced("linear", 1, big_ints / 2);
    release_slots();
    int status = tc_test_mpi_summary(0);
    MPI_Finalize();
    return status;
}
