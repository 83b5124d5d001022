/*
 * topocoll-bench: shared declarations.
 *
 *   options.c   command line (no MPI)
 *   stats.c     quantiles, Tukey's fences, medians (no MPI)
 *   colls.c     one table entry per collective: buffers, fill, call, check
 *   output.c    header, table, CSV and JSON
 *   topocoll-bench.c   the measurement loop
 */
#ifndef TOPOCOLL_BENCH_H
#define TOPOCOLL_BENCH_H

#include <stddef.h>
#include <stdio.h>
#include <mpi.h>
#include "topocoll.h"

#define BENCH_PROG "topocoll-bench"

/* Limits on option values (they keep buffers and run times sane). */
#define BENCH_MAX_ITERS 1000000
#define BENCH_MAX_WARMUP 1000000
#define BENCH_MAX_REPS 1000
#define BENCH_MAX_SLEEP_US 10000000L
#define BENCH_MAX_SIZES 4096
#define BENCH_MAX_TEST_CALLS 1000000

/* Adaptive iteration counts: at most ITERS_MAX (at least ITERS_MIN) timed
 * iterations, fewer when one call moves more than ADAPT_BYTES / ITERS_MAX. */
#define BENCH_ITERS_MAX 200
#define BENCH_ITERS_MIN 10
#define BENCH_WARMUP_MAX 10
#define BENCH_WARMUP_MIN 2
#define BENCH_ADAPT_BYTES ((size_t)64 << 20)
/* Calls of auto at each size before its first timed repetition (the
 * learner's exploration, docs/learning.md: some tens of calls per size
 * class, its agreement included, with room to spare), counted after the
 * learner's patience (the calls the table serves before a key learns). */
#define BENCH_LEARN_WARMUP 160
/* TOPOCOLL_LEARN_PATIENCE's default in the library (docs/learning.md). */
#define BENCH_LEARN_PATIENCE 64

/* ---- options (options.c) ------------------------------------------------- */

typedef struct bench_opts {
    const char *coll_name;   /* -c, default "allgather" */
    size_t *sizes;           /* -s, sorted ascending, no duplicates */
    int nsizes;
    int iters;               /* -i, 0 = adaptive */
    int warmup;              /* -w, -1 = adaptive */
    int learn_warmup;        /* --learn-warmup: calls of auto per size before its first repetition */
    long sleep_us;           /* --sleep-us */
    int back_to_back;        /* --back-to-back: the iterations timed as one loop */
    int reps;                /* -r */
    char **algos;            /* -a, NULL = default list */
    int nalgos;
    const char *topology;    /* -t, NULL = detected */
    const char *csv_path;    /* --csv */
    const char *json_path;   /* --json */
    int validate;            /* 0 with --no-validate */
    int quiet;               /* -q */
    int progress;            /* --progress: even when stderr is no terminal */
    int help;                /* -h */
    int overlap;             /* --overlap: the nonblocking overlap mode (overlap.c) */
    int test_calls;          /* --test-calls: MPI_Test calls spread in the compute */
    int no_persistent;       /* --no-persistent: the overlap mode without the persistent form */
} bench_opts;

enum { BENCH_PARSE_OK = 0, BENCH_PARSE_HELP = 1, BENCH_PARSE_ERROR = 2 };

/* Parses argv into o (which it initialises).  On BENCH_PARSE_ERROR err holds
 * one line naming the problem.  bench_opts_free releases what it allocated,
 * whatever the result. */
int bench_parse_options(int argc, char **argv, bench_opts *o, char *err, size_t errlen);
/* The run-time learner's patience in this environment: TOPOCOLL_LEARN_PATIENCE
 * (a decimal from 0 to 10^9), else the library's default. */
int bench_learn_patience(void);
/* Calls of auto at each size before its first repetition: the patience
 * plus --learn-warmup (0 when --learn-warmup is 0). */
long bench_learn_warmup_calls(const bench_opts *o);
void bench_opts_free(bench_opts *o);
void bench_usage(FILE *f);

/* Size spec parser, exposed for the self-test: "8,64,1K", "8:1M", "8:1M:x4".
 * On success *sizes is malloc'ed (sorted, unique) and 0 is returned. */
int bench_parse_sizes(const char *spec, size_t **sizes, int *nsizes,
                      char *err, size_t errlen);
/* "8", "1K", "64K", "1M", "1000": the shortest exact spelling of bytes. */
void bench_format_size(size_t bytes, char *buf, size_t len);

/* ---- statistics (stats.c) ------------------------------------------------ */

/* Quantile q in [0,1] of n >= 1 sorted values (linear interpolation). */
double bench_quantile_sorted(const double *x, int n, double q);
/* Sorts x (n >= 1) in place, drops the values outside Tukey's fences
 * [Q1 - 1.5 IQR, Q3 + 1.5 IQR] and returns the mean of the rest;
 * *dropped gets the number of values dropped. */
double bench_tukey_mean(double *x, int n, int *dropped);
/* Median of n >= 1 values; sorts x in place. */
double bench_median(double *x, int n);
/* order[0..n-1]: the columns' order in repetition rep of size index s, a
 * permutation of 0..n-1 from a Williams design (the same on every rank).  A
 * column's time at small sizes depends on its place in the repetition and
 * on the column before it (0.1-0.5 us at 8 B on 2 cores); over n
 * repetitions (2n for odd n) every column takes every place and follows
 * every other column equally often. */
void bench_column_order(int n, int s, int rep, int *order);

/* ---- collectives (colls.c) ----------------------------------------------- */

/* A collective as the benchmark runs it (root 0): element size (1: MPI_BYTE;
 * 4: MPI_INT32_T with MPI_SUM, the reductions), where the root's input is,
 * and where result element i of rank r comes from: element *e of rank *q's
 * input, or (*q < 0) the sum of element *e over all ranks (-2: ranks 0..r,
 * -3: ranks 0..r-1, scan and exscan).  count is the
 * number of elements per rank (bytes / esize). */
typedef struct bench_coll {
    topocoll_coll coll;
    int esize;
    int input_in_recv;   /* bcast: the root's receive buffer holds the data */
    void (*source)(int r, size_t i, size_t count, int *q, size_t *e);
} bench_coll;

enum { BENCH_SIZE_TOO_LARGE = -1, BENCH_SIZE_UNALIGNED = -2 };

/* Bytes of rank `rank`'s send and receive buffers for `bytes` per rank on np
 * ranks; 0, or BENCH_SIZE_TOO_LARGE (they do not fit in size_t / an int
 * count), or BENCH_SIZE_UNALIGNED (bytes is no multiple of esize). */
int bench_coll_buffers(const bench_coll *bc, size_t bytes, int np, int rank, size_t *sbytes,
                       size_t *rbytes);
/* 1: the algorithm serves these arguments (BENCH_AUTO always); 0: it
 * declines (*why set); negative: unknown name.  May be collective over comm. */
int bench_coll_applicable(const bench_coll *bc, const char *algo, size_t bytes, MPI_Comm comm,
                          const char **why);
/* Fills the input with the pattern of (rank, index, rep) and the rest of the
 * receive buffer with values that differ from the expected result. */
void bench_coll_fill(const bench_coll *bc, unsigned char *sbuf, unsigned char *rbuf, size_t bytes,
                     int rank, int np, int rep);
/* One call (BENCH_AUTO: topocoll's selection); returns an MPI error code. */
int bench_coll_call(const bench_coll *bc, const char *algo, const void *sbuf, void *rbuf,
                    size_t bytes, MPI_Comm comm);
/* Number of wrong bytes in this rank's receive buffer. */
size_t bench_coll_check(const bench_coll *bc, const unsigned char *rbuf, size_t bytes, int rank,
                        int np, int rep);

/* The benchmark's entry for a collective, or NULL for an unknown one. */
const bench_coll *bench_coll_get(topocoll_coll coll);
/* Its datatype (MPI_BYTE or MPI_INT32_T) and op (MPI_OP_NULL or MPI_SUM). */
MPI_Datatype bench_coll_type(const bench_coll *bc);
MPI_Op bench_coll_op(const bench_coll *bc);

/* ---- results ------------------------------------------------------------- */

typedef enum bench_status {
    BENCH_OK = 0,
    BENCH_DECLINED,   /* the algorithm declined the arguments */
    BENCH_ERROR,      /* a call (or the buffers) failed */
    BENCH_INVALID     /* wrong data in a receive buffer */
} bench_status;

typedef struct bench_result {
    bench_status status;
    char msg[MPI_MAX_ERROR_STRING + 32]; /* "declined: ...", "error: ..." */
    double median_us, min_us, max_us; /* over repetitions */
    int outliers;                     /* dropped by Tukey, all repetitions */
    double ratio;                     /* to native, < 0 when unknown */
    int fastest;                      /* fastest valid cell of its row */
} bench_result;

/* What the output needs to know about the run. */
typedef struct bench_run {
    const bench_opts *opts;
    const char *coll_name;
    const char *datatype;      /* "MPI_BYTE", or "MPI_INT32_T" for reductions */
    int np, nnodes, nsockets;
    char topo_desc[512];
    char mpi_version[MPI_MAX_LIBRARY_VERSION_STRING];
    double wtick;
    const int *iters;          /* timed iterations per size */
    const int *warmup;         /* warm-up iterations per size */
    int adaptive_iters, adaptive_warmup;
    const char **algos;        /* columns */
    int nalgos;
    int native_col;            /* column of "native", -1 when not measured */
    const char **skipped;      /* default-list algorithms declining every size */
    const char **skipped_why;
    int nskipped;
    bench_result *res;         /* res[size * nalgos + algo] */
} bench_run;

/* output.c: everything here runs on rank 0 only. */
void bench_print_header(const bench_run *r);
void bench_print_table_head(const bench_run *r);
void bench_print_row(const bench_run *r, int size_index);
void bench_print_notes(const bench_run *r);
/* Fills ratio and fastest of row size_index. */
void bench_rank_row(bench_run *r, int size_index);
int bench_csv_begin(FILE *f);
/* One CSV field, quoted when it holds a comma, a quote or a line break. */
int bench_csv_field(FILE *f, const char *s);
int bench_csv_row(FILE *f, const bench_run *r, int size_index);
int bench_write_json(FILE *f, const bench_run *r);

/* The column that measures topocoll's own selection (topocoll_<coll>). */
#define BENCH_AUTO "auto"
/* The column that calls MPI_<Coll> as a program does: the MPI library's own
 * where nothing is preloaded, else whatever the preload puts in front of it
 * (the interposer, or tools/overhead's null shim: the least a PMPI layer
 * adds to a call). */
#define BENCH_INTERPOSED "interposed"

/* ---- overlap mode (overlap.c, overlap_calls.c) ---------------------------- */

/* bench_nb_init: this implementation has no persistent form here (*why says
 * why); not an MPI error code. */
#define BENCH_NB_NOT_MEASURED (-1)

/* 1 when the collective has nonblocking calls here (every one of the list). */
int bench_nb_supported(const bench_coll *bc);
/* Starts one nonblocking call of implementation algo ("native": the MPI
 * library's PMPI_I<coll>; "auto": topocoll_i<coll>; else the entry by name);
 * an MPI error code. */
int bench_nb_start(const bench_coll *bc, const char *algo, const void *sbuf, void *rbuf,
                   size_t bytes, MPI_Comm comm, MPI_Request *req);
/* Makes the persistent request of algo (native: MPI-4's PMPI_<Coll>_init;
 * auto: topocoll_<coll>_init); an MPI error code, or BENCH_NB_NOT_MEASURED. */
int bench_nb_init(const bench_coll *bc, const char *algo, const void *sbuf, void *rbuf,
                  size_t bytes, MPI_Comm comm, MPI_Request *req, const char **why);
/* Start, test, wait for and free a request of algo (overlap_calls.c says how). */
int bench_nb_pstart(const char *algo, MPI_Request *req);
int bench_nb_test(const char *algo, MPI_Request *req, int *done);
int bench_nb_wait(const char *algo, MPI_Request *req);
int bench_nb_free(const char *algo, MPI_Request *req);

/* What the overlap mode needs from the set-up in topocoll-bench.c. */
typedef struct bench_overlap_args {
    MPI_Comm comm;
    int rank, np;
    const bench_opts *opts;
    const bench_coll *bc;
    const char *coll_name, *datatype, *topo_desc, *mpi_version;
    double wtick;
    const int *iters, *warmup;   /* per size */
    FILE *csv;                   /* rank 0, header written; NULL: none */
} bench_overlap_args;

int bench_overlap_csv_begin(FILE *f);
/* The whole overlap run; returns the exit status, the same on every rank
 * (0, or 1 when a result is INVALID or a call failed). */
int bench_overlap_run(const bench_overlap_args *a);

#endif
