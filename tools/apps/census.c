/*
 * libtopocoll_census.so: counts the collective calls that topocoll's
 * interposer does not serve, for an unchanged MPI program.
 *
 *   mpiexec -np 4 -x LD_PRELOAD=libtopocoll_census.so:libtopocoll_pmpi.so \
 *           -x TOPOCOLL_CENSUS=census.json ./app
 *
 * It defines, through the PMPI profiling interface, the collectives that
 * libtopocoll_pmpi.so leaves to the MPI library (the w-variant it does not
 * cover, the non-blocking
 * and neighbourhood collectives), counts each call and its size, and calls
 * the PMPI_ function.  It defines none of the collectives topocoll serves,
 * so both libraries can be preloaded together (the census first); topocoll's
 * own run summary (TOPOCOLL_STATS) reports those.
 *
 * Per collective and communicator size it keeps: the calls, the bytes of
 * each call (this rank's part: what it sends, or for a scatter what it
 * receives; for a reduction or broadcast the buffer; for an all-to-all
 * everything it sends), as a total, a minimum, a maximum and a power-of-two
 * histogram, the calls of zero bytes, and the seconds spent inside them
 * (for a non-blocking collective: in starting it).
 * At MPI_Finalize the ranks' tables are gathered on rank 0 of
 * MPI_COMM_WORLD (PMPI_Gather), which prints a table on stderr
 * (TOPOCOLL_CENSUS=1) or writes JSON (TOPOCOLL_CENSUS=path); unset or 0:
 * the census counts but reports nothing.
 *
 * Fortran: Open MPI's Fortran bindings call PMPI_ directly, so the census
 * defines only MPI_Finalize's Fortran names (to report) and does not count
 * a Fortran program's non-blocking collectives there; MPICH's Fortran
 * bindings call the C MPI_ functions, which count already.
 *
 * Cost: two clock readings and a few additions per call, one mutex (the
 * census is a measuring tool, not a fast path).  Restrictions: at most
 * CENSUS_SIZES different communicator sizes per collective (further sizes
 * are counted together, size -1); the neighbourhood collectives count the
 * bytes for one neighbour.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <jansson.h>
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CENSUS_EXPORT __attribute__((visibility("default")))

/* The collectives counted: (index name, MPI name). */
#define CENSUS_FUNCTIONS(X) \
    X(IBARRIER, "MPI_Ibarrier") X(IBCAST, "MPI_Ibcast") \
    X(IALLREDUCE, "MPI_Iallreduce") X(IREDUCE, "MPI_Ireduce") X(IALLGATHER, "MPI_Iallgather") \
    X(IALLGATHERV, "MPI_Iallgatherv") X(IALLTOALL, "MPI_Ialltoall") \
    X(IALLTOALLV, "MPI_Ialltoallv") X(IGATHER, "MPI_Igather") X(ISCATTER, "MPI_Iscatter") \
    X(IREDUCE_SCATTER_BLOCK, "MPI_Ireduce_scatter_block") X(ISCAN, "MPI_Iscan") \
    X(NEIGHBOR_ALLGATHER, "MPI_Neighbor_allgather") X(NEIGHBOR_ALLTOALL, "MPI_Neighbor_alltoall")

#define CENSUS_ENUM(e, s) CENSUS_##e,
enum { CENSUS_FUNCTIONS(CENSUS_ENUM) CENSUS_NFUNC };
#define CENSUS_NAME(e, s) s,
static const char *const census_names[CENSUS_NFUNC] = {CENSUS_FUNCTIONS(CENSUS_NAME)};

#define CENSUS_SIZES 8   /* communicator sizes kept per collective */
#define CENSUS_BINS 48   /* bin 0: 0 bytes; bin k: [2^(k-1), 2^k) bytes */

/* One (collective, communicator size) row; packed as doubles to gather. */
enum { F_SIZE, F_CALLS, F_BYTES, F_MIN, F_MAX, F_ZERO, F_SECONDS, F_HIST, F_COUNT = F_HIST + CENSUS_BINS };
typedef double census_row[F_COUNT];

static census_row census_table[CENSUS_NFUNC][CENSUS_SIZES];
static pthread_mutex_t census_lock = PTHREAD_MUTEX_INITIALIZER;
static int census_reported;

static int bin_of(int64_t bytes)
{
    int k = 0;
    while (bytes > 0 && k < CENSUS_BINS - 1) {
        bytes >>= 1;
        k++;
    }
    return k;
}

/* The row of (f, comm size); the last slot collects sizes beyond the table. */
static double *row_of(int f, int size)
{
    for (int i = 0; i < CENSUS_SIZES; i++) {
        double *r = census_table[f][i];
        if (r[F_CALLS] > 0 && (int)r[F_SIZE] == size) return r;
        if (r[F_CALLS] == 0) {
            r[F_SIZE] = i == CENSUS_SIZES - 1 ? -1 : size;
            return r;
        }
    }
    return census_table[f][CENSUS_SIZES - 1];
}

static void census_count(int f, MPI_Comm comm, int64_t bytes, double seconds)
{
    int size = -1;
    if (comm != MPI_COMM_NULL) PMPI_Comm_size(comm, &size);
    pthread_mutex_lock(&census_lock);
    double *r = row_of(f, size);
    if (r[F_CALLS] == 0 || (double)bytes < r[F_MIN]) r[F_MIN] = (double)bytes;
    if ((double)bytes > r[F_MAX]) r[F_MAX] = (double)bytes;
    r[F_CALLS] += 1;
    r[F_BYTES] += (double)bytes;
    r[F_ZERO] += bytes == 0;
    r[F_SECONDS] += seconds;
    r[F_HIST + bin_of(bytes)] += 1;
    pthread_mutex_unlock(&census_lock);
}

/* Bytes of count elements of t; 0 for a null or invalid type. */
static int64_t type_bytes(MPI_Datatype t, int64_t count)
{
    int s = 0;
    if (t == MPI_DATATYPE_NULL || count <= 0) return 0;
    if (PMPI_Type_size(t, &s) != MPI_SUCCESS) return 0;
    return (int64_t)s * count;
}

static int comm_size(MPI_Comm comm)
{
    int n = 0;
    PMPI_Comm_size(comm, &n);
    return n;
}

static int comm_rank(MPI_Comm comm)
{
    int r = 0;
    PMPI_Comm_rank(comm, &r);
    return r;
}

static int64_t sum_counts(const int *counts, int n)
{
    int64_t s = 0;
    for (int i = 0; counts && i < n; i++) s += counts[i];
    return s;
}

/* Times the PMPI call CALL and counts it as f on comm with BYTES bytes. */
#define CENSUS_CALL(f, comm, BYTES, CALL)                 \
    do {                                                  \
        double t0_ = PMPI_Wtime();                        \
        int rc_ = (CALL);                                 \
        census_count(CENSUS_##f, comm, (BYTES), PMPI_Wtime() - t0_); \
        return rc_;                                       \
    } while (0)

/* ---- the blocking collectives topocoll does not serve -------------------- */

/* ---- non-blocking collectives (none is served) --------------------------- */

CENSUS_EXPORT int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
    CENSUS_CALL(IBARRIER, comm, 0, PMPI_Ibarrier(comm, req));
}

CENSUS_EXPORT int MPI_Ibcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm comm, MPI_Request *req)
{
    CENSUS_CALL(IBCAST, comm, type_bytes(t, n), PMPI_Ibcast(b, n, t, root, comm, req));
}

CENSUS_EXPORT int MPI_Iallreduce(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm,
                                 MPI_Request *req)
{
    CENSUS_CALL(IALLREDUCE, comm, type_bytes(t, n), PMPI_Iallreduce(sb, rb, n, t, op, comm, req));
}

CENSUS_EXPORT int MPI_Ireduce(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, int root,
                              MPI_Comm comm, MPI_Request *req)
{
    CENSUS_CALL(IREDUCE, comm, type_bytes(t, n), PMPI_Ireduce(sb, rb, n, t, op, root, comm, req));
}

CENSUS_EXPORT int MPI_Iallgather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                                 MPI_Comm comm, MPI_Request *req)
{
    int64_t b = sb == MPI_IN_PLACE ? type_bytes(rt, rc) : type_bytes(st, sc);
    CENSUS_CALL(IALLGATHER, comm, b, PMPI_Iallgather(sb, sc, st, rb, rc, rt, comm, req));
}

CENSUS_EXPORT int MPI_Iallgatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int rc[],
                                  const int rd[], MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{
    int64_t b = sb == MPI_IN_PLACE ? type_bytes(rt, rc ? rc[comm_rank(comm)] : 0) : type_bytes(st, sc);
    CENSUS_CALL(IALLGATHERV, comm, b, PMPI_Iallgatherv(sb, sc, st, rb, rc, rd, rt, comm, req));
}

CENSUS_EXPORT int MPI_Ialltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                                MPI_Comm comm, MPI_Request *req)
{
    int64_t b = (sb == MPI_IN_PLACE ? type_bytes(rt, rc) : type_bytes(st, sc)) * comm_size(comm);
    CENSUS_CALL(IALLTOALL, comm, b, PMPI_Ialltoall(sb, sc, st, rb, rc, rt, comm, req));
}

CENSUS_EXPORT int MPI_Ialltoallv(const void *sb, const int sc[], const int sd[], MPI_Datatype st, void *rb,
                                 const int rc[], const int rd[], MPI_Datatype rt, MPI_Comm comm,
                                 MPI_Request *req)
{
    int n = comm_size(comm);
    int64_t b = sb == MPI_IN_PLACE ? type_bytes(rt, sum_counts(rc, n)) : type_bytes(st, sum_counts(sc, n));
    CENSUS_CALL(IALLTOALLV, comm, b, PMPI_Ialltoallv(sb, sc, sd, st, rb, rc, rd, rt, comm, req));
}

CENSUS_EXPORT int MPI_Igather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                              int root, MPI_Comm comm, MPI_Request *req)
{
    int64_t b = sb == MPI_IN_PLACE ? type_bytes(rt, rc) : type_bytes(st, sc);
    CENSUS_CALL(IGATHER, comm, b, PMPI_Igather(sb, sc, st, rb, rc, rt, root, comm, req));
}

CENSUS_EXPORT int MPI_Iscatter(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                               int root, MPI_Comm comm, MPI_Request *req)
{
    int64_t b = rb == MPI_IN_PLACE ? type_bytes(st, sc) : type_bytes(rt, rc);
    CENSUS_CALL(ISCATTER, comm, b, PMPI_Iscatter(sb, sc, st, rb, rc, rt, root, comm, req));
}

CENSUS_EXPORT int MPI_Ireduce_scatter_block(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op,
                                            MPI_Comm comm, MPI_Request *req)
{
    int64_t b = type_bytes(t, (int64_t)n * comm_size(comm));
    CENSUS_CALL(IREDUCE_SCATTER_BLOCK, comm, b, PMPI_Ireduce_scatter_block(sb, rb, n, t, op, comm, req));
}

CENSUS_EXPORT int MPI_Iscan(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm,
                            MPI_Request *req)
{
    CENSUS_CALL(ISCAN, comm, type_bytes(t, n), PMPI_Iscan(sb, rb, n, t, op, comm, req));
}

/* ---- neighbourhood collectives (bytes: for one neighbour) ----------------- */

CENSUS_EXPORT int MPI_Neighbor_allgather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc,
                                         MPI_Datatype rt, MPI_Comm comm)
{
    CENSUS_CALL(NEIGHBOR_ALLGATHER, comm, type_bytes(st, sc),
                PMPI_Neighbor_allgather(sb, sc, st, rb, rc, rt, comm));
}

CENSUS_EXPORT int MPI_Neighbor_alltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc,
                                        MPI_Datatype rt, MPI_Comm comm)
{
    CENSUS_CALL(NEIGHBOR_ALLTOALL, comm, type_bytes(st, sc),
                PMPI_Neighbor_alltoall(sb, sc, st, rb, rc, rt, comm));
}

/* ---- the report at MPI_Finalize ------------------------------------------ */

/* Rank 0's merge of every rank's rows: per (f, size), calls and seconds as
 * the largest of any rank (one rank's view of the collective operations),
 * bytes summed over ranks, min/max over ranks, histograms summed. */
typedef struct {
    int f, size, ranks;
    double calls, bytes, min, max, zero, seconds, hist[CENSUS_BINS];
} census_merged;

static int merge_rows(const double *all, int nranks, census_merged *out, int max)
{
    int n = 0;
    for (int p = 0; p < nranks; p++)
        for (int f = 0; f < CENSUS_NFUNC; f++)
            for (int i = 0; i < CENSUS_SIZES; i++) {
                const double *r = all + (((size_t)p * CENSUS_NFUNC + f) * CENSUS_SIZES + i) * F_COUNT;
                if (r[F_CALLS] == 0) continue;
                census_merged *m = NULL;
                for (int k = 0; k < n && !m; k++)
                    if (out[k].f == f && out[k].size == (int)r[F_SIZE]) m = &out[k];
                if (!m) {
                    if (n == max) continue;
                    m = &out[n++];
                    memset(m, 0, sizeof *m);
                    m->f = f;
                    m->size = (int)r[F_SIZE];
                    m->min = r[F_MIN];
                }
                m->ranks++;
                if (r[F_CALLS] > m->calls) m->calls = r[F_CALLS];
                if (r[F_SECONDS] > m->seconds) m->seconds = r[F_SECONDS];
                m->bytes += r[F_BYTES];
                m->zero += r[F_ZERO];
                if (r[F_MIN] < m->min) m->min = r[F_MIN];
                if (r[F_MAX] > m->max) m->max = r[F_MAX];
                for (int b = 0; b < CENSUS_BINS; b++) m->hist[b] += r[F_HIST + b];
            }
    return n;
}

/* The bin holding the median call (by the histogram): its lower bound. */
static double median_bytes(const census_merged *m)
{
    double total = 0, seen = 0;
    for (int b = 0; b < CENSUS_BINS; b++) total += m->hist[b];
    for (int b = 0; b < CENSUS_BINS; b++) {
        seen += m->hist[b];
        if (seen * 2 >= total) return b == 0 ? 0 : (double)((int64_t)1 << (b - 1));
    }
    return 0;
}

static void print_table(const census_merged *rows, int n, int nranks)
{
    fprintf(stderr, "topocoll census: %d ranks; collectives topocoll does not serve, per communicator size: "
                    "calls (largest count of any rank), bytes per rank and call (min / median bin / max), "
                    "calls of zero bytes (all ranks), seconds inside them (largest of any rank)\n", nranks);
    fprintf(stderr, "  %-28s %5s %10s %12s %12s %12s %10s %10s\n", "collective", "np", "calls", "min B",
            "median B", "max B", "zero", "seconds");
    for (int k = 0; k < n; k++)
        fprintf(stderr, "  %-28s %5d %10.0f %12.0f %12.0f %12.0f %10.0f %10.4f\n", census_names[rows[k].f],
                rows[k].size, rows[k].calls, rows[k].min, median_bytes(&rows[k]), rows[k].max, rows[k].zero,
                rows[k].seconds);
    if (n == 0) fprintf(stderr, "  (none: every collective call was one topocoll serves)\n");
}

static int write_json(const char *path, const census_merged *rows, int n, int nranks)
{
    json_t *root = json_object(), *list = json_array();
    json_object_set_new(root, "ranks", json_integer(nranks));
    for (int k = 0; k < n; k++) {
        const census_merged *m = &rows[k];
        json_t *o = json_object(), *hist = json_object();
        json_object_set_new(o, "collective", json_string(census_names[m->f]));
        json_object_set_new(o, "comm_size", json_integer(m->size));
        json_object_set_new(o, "ranks", json_integer(m->ranks));
        json_object_set_new(o, "calls", json_integer((json_int_t)m->calls));
        json_object_set_new(o, "bytes", json_integer((json_int_t)m->bytes));
        json_object_set_new(o, "min_bytes", json_integer((json_int_t)m->min));
        json_object_set_new(o, "median_bytes_bin", json_integer((json_int_t)median_bytes(m)));
        json_object_set_new(o, "max_bytes", json_integer((json_int_t)m->max));
        json_object_set_new(o, "zero_byte_calls", json_integer((json_int_t)m->zero));
        json_object_set_new(o, "seconds", json_real(m->seconds));
        for (int b = 0; b < CENSUS_BINS; b++) {
            if (m->hist[b] == 0) continue;
            char key[32];
            snprintf(key, sizeof key, "%lld", b == 0 ? 0LL : 1LL << (b - 1));
            json_object_set_new(hist, key, json_integer((json_int_t)m->hist[b]));
        }
        json_object_set_new(o, "calls_by_size_from", hist);
        json_array_append_new(list, o);
    }
    json_object_set_new(root, "collectives", list);
    int rc = json_dump_file(root, path, JSON_INDENT(2) | JSON_SORT_KEYS);
    json_decref(root);
    if (rc != 0) fprintf(stderr, "topocoll census: cannot write %s\n", path);
    return rc;
}

static void census_report(void)
{
    const char *where = getenv("TOPOCOLL_CENSUS");
    int initialized = 0, finalized = 0;
    if (census_reported || !where || !*where || strcmp(where, "0") == 0) return;
    PMPI_Initialized(&initialized);
    PMPI_Finalized(&finalized);
    if (!initialized || finalized) return;
    census_reported = 1;
    int rank = 0, nranks = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &nranks);
    const int per_rank = CENSUS_NFUNC * CENSUS_SIZES * F_COUNT;
    double *all = rank == 0 ? malloc(sizeof(double) * (size_t)per_rank * (size_t)nranks) : NULL;
    census_merged *rows = rank == 0 ? malloc(sizeof *rows * CENSUS_NFUNC * CENSUS_SIZES) : NULL;
    int ok = rank != 0 || (all && rows);
    PMPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok) {
        fprintf(stderr, "topocoll census: out of memory gathering %d ranks' tables\n", nranks);
    } else {
        PMPI_Gather(census_table, per_rank, MPI_DOUBLE, all, per_rank, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            int n = merge_rows(all, nranks, rows, CENSUS_NFUNC * CENSUS_SIZES);
            if (strcmp(where, "1") == 0)
                print_table(rows, n, nranks);
            else
                (void)write_json(where, rows, n, nranks);
        }
    }
    free(all);
    free(rows);
}

/* The next MPI_Finalize: topocoll's interposer when it is preloaded after the
 * census (its run summary is gathered there), else the MPI library's. */
CENSUS_EXPORT int MPI_Finalize(void)
{
    census_report();
    int (*next)(void) = (int (*)(void))dlsym(RTLD_NEXT, "MPI_Finalize");
    return next ? next() : PMPI_Finalize();
}

/* ---- Open MPI's Fortran entry points -------------------------------------- */
#if defined(OPEN_MPI) && OPEN_MPI

static void f_set(MPI_Fint *ierror, int rc)
{
    if (ierror) *ierror = (MPI_Fint)rc;
}

/* The names Fortran calls F by (mpif.h, use mpi, use mpi_f08). */
#define CENSUS_F_NAMES(l, U, F)                                                        \
    CENSUS_EXPORT __attribute__((alias(#F))) extern __typeof__(F) mpi_##l;             \
    CENSUS_EXPORT __attribute__((alias(#F))) extern __typeof__(F) mpi_##l##_;          \
    CENSUS_EXPORT __attribute__((alias(#F))) extern __typeof__(F) mpi_##l##__;         \
    CENSUS_EXPORT __attribute__((alias(#F))) extern __typeof__(F) MPI_##U;             \
    CENSUS_EXPORT __attribute__((alias(#F))) extern __typeof__(F) mpi_##l##_f08_;

/* Fortran.  MPI_Finalize reports (above), then the next MPI_Finalize. */
void census_f_finalize(MPI_Fint *ierror);
void census_f_finalize(MPI_Fint *ierror) { f_set(ierror, MPI_Finalize()); }
CENSUS_F_NAMES(finalize, FINALIZE, census_f_finalize)

#endif
