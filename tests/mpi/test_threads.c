/*
 * MPI_THREAD_MULTIPLE stress test: many threads, each with communicators of
 * its own, run mixed collectives through topocoll at the same time.
 *
 *   - every thread gets a communicator made before the threads start (a
 *     duplicate of MPI_COMM_WORLD, or a split with the ranks reversed), gives
 *     it a virtual topology (topocoll_set_topology: collective on it, while
 *     other threads run collectives on theirs; this also makes its context),
 *     waits for the process's other threads and makes its first call by
 *     topocoll's selection with them (the selection table is built then,
 *     while other threads look it up), and later makes another one
 *     inside the thread (MPI_Comm_dup of its own: collective on it) that it
 *     uses for a while and frees (freeing a context while others run);
 *   - each iteration picks a collective (allgather, bcast, reduce, gather,
 *     scatter, reduce_scatter_block), a count and a root from the thread's
 *     own pseudo-random sequence (the same on every rank), and either a
 *     catalog algorithm by name (topocoll_run with the name, when
 *     topocoll_applicable says it serves the call) or topocoll's selection;
 *   - every result is checked against the values the ranks sent, and
 *     topocoll_last_algorithm() against the algorithm this thread asked for
 *     (it is per thread: other threads' calls must not change it);
 *   - after that first call the threads wait for each other again and all
 *     raise the same error at once (an erroneous call: the table of error
 *     codes); now and then a thread flushes its communicator's schedule
 *     cache or makes the erroneous call again.
 * A watchdog (alarm) aborts the run with a message if it hangs.
 *
 * Options: --threads=N (8), --iters=N (40 per thread), --timeout=S (60).
 * An MPI library that does not provide MPI_THREAD_MULTIPLE makes this test
 * fail (with a message): both MPI libraries CI uses provide it.
 */
#define _POSIX_C_SOURCE 200809L   /* pthread_barrier_t */
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "topocoll.h"
#include "common/mpi_harness.h"

#define MAX_THREADS 64
#define MAX_COUNT 600

static int world_rank, world_size;
static int nthreads = 8, iters = 40, timeout_s = 60;
static atomic_long fails_shown;
static pthread_barrier_t all_ready;   /* the threads of this process */
static atomic_int count_error_code;   /* the code of bad_call's error, once seen */
/* Does MPI_Error_string return the strings of MPI_Add_error_string?  MPICH
 * 4.0's does not (it prints an error stack): messages are checked only where
 * they can be read. */
static int messages_readable = 1;

static void probe_messages(void)
{
    char s[MPI_MAX_ERROR_STRING];
    int code, len = 0;
    if (MPI_Add_error_code(MPI_ERR_ARG, &code) != MPI_SUCCESS ||
        MPI_Add_error_string(code, "test_threads probe") != MPI_SUCCESS ||
        MPI_Error_string(code, s, &len) != MPI_SUCCESS || strcmp(s, "test_threads probe") != 0)
        messages_readable = 0;
}

typedef struct worker {
    int id;
    MPI_Comm comm;           /* made before the threads start */
    long passed, failed;
    long forced, selected;   /* calls by name, by topocoll's selection */
    pthread_t thread;
} worker;

static const topocoll_coll colls[] = { TOPOCOLL_ALLGATHER, TOPOCOLL_BCAST, TOPOCOLL_REDUCE,
                                       TOPOCOLL_GATHER, TOPOCOLL_SCATTER,
                                       TOPOCOLL_REDUCE_SCATTER_BLOCK };
#define NCOLLS ((int)(sizeof colls / sizeof colls[0]))

static void check(worker *w, int ok, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void check(worker *w, int ok, const char *fmt, ...)
{
    if (ok) {
        w->passed++;
        return;
    }
    w->failed++;
    if (atomic_fetch_add(&fails_shown, 1) >= 20) return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    printf("FAIL rank %d thread %d: %s\n", world_rank, w->id, msg);
    fflush(stdout);
}

/* The thread's pseudo-random sequence: the same on every rank. */
static uint32_t next(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

/* The value rank r contributes at element i of call k of thread t. */
static int value(int t, int k, int r, int i)
{
    return (int)((t * 7919 + k * 104729 + r * 1000003 + i * 31) % 1000000) - 500000;
}

typedef struct call {
    topocoll_coll coll;
    int count, root, k;      /* k: the call's number in the thread */
    const char *algo;        /* NULL: topocoll's selection */
} call;

/* The expected element i of the result at rank `rank` of comm (size p). */
static int expected(const worker *w, const call *c, int rank, int p, int i)
{
    long sum = 0;
    switch (c->coll) {
    case TOPOCOLL_ALLGATHER:
    case TOPOCOLL_GATHER:
        return value(w->id, c->k, i / c->count, i % c->count);
    case TOPOCOLL_BCAST:
    case TOPOCOLL_SCATTER:
        return value(w->id, c->k, c->root, c->coll == TOPOCOLL_SCATTER ? rank * c->count + i : i);
    case TOPOCOLL_REDUCE:
        for (int r = 0; r < p; r++) sum += value(w->id, c->k, r, i);
        return (int)sum;
    case TOPOCOLL_REDUCE_SCATTER_BLOCK:
        for (int r = 0; r < p; r++) sum += value(w->id, c->k, r, rank * c->count + i);
        return (int)sum;
    default:
        return 0;
    }
}

/* Runs one call on comm and checks its result and the recorded algorithm. */
static void run_call(worker *w, MPI_Comm comm, const call *c, int *sbuf, int *rbuf)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    int n = c->count, send_n = n, recv_n = n, check_n = n;
    switch (c->coll) {
    case TOPOCOLL_ALLGATHER: recv_n = check_n = n * p; break;
    case TOPOCOLL_GATHER: recv_n = n * p; check_n = rank == c->root ? n * p : 0; break;
    case TOPOCOLL_SCATTER: send_n = n * p; break;
    case TOPOCOLL_REDUCE: check_n = rank == c->root ? n : 0; break;
    case TOPOCOLL_REDUCE_SCATTER_BLOCK: send_n = n * p; break;
    default: break;
    }
    /* bcast and scatter send the root's data (only the root's buffer is read) */
    int src = c->coll == TOPOCOLL_BCAST || c->coll == TOPOCOLL_SCATTER ? c->root : rank;
    for (int i = 0; i < send_n; i++) sbuf[i] = value(w->id, c->k, src, i);
    for (int i = 0; i < recv_n; i++) rbuf[i] = -1;
    /* bcast: the buffer is recvbuf, the root's holds the data */
    if (c->coll == TOPOCOLL_BCAST && rank == c->root) memcpy(rbuf, sbuf, (size_t)n * sizeof *rbuf);
    int rc = topocoll_run(c->coll, c->algo, sbuf, n, MPI_INT, rbuf, n, MPI_INT, MPI_SUM, c->root,
                          comm);
    const char *name = c->algo ? c->algo : "(selection)";
    const char *cname = topocoll_coll_name(c->coll);
    check(w, rc == MPI_SUCCESS, "%s %s count %d root %d call %d: rc %d", cname, name, n, c->root,
          c->k, rc);
    int bad = -1;
    for (int i = 0; i < check_n && bad < 0; i++)
        if (rbuf[i] != expected(w, c, rank, p, i)) bad = i;
    check(w, bad < 0, "%s %s count %d root %d call %d: element %d is %d, expected %d", cname,
          name, n, c->root, c->k, bad, bad < 0 ? 0 : rbuf[bad],
          bad < 0 ? 0 : expected(w, c, rank, p, bad));
    const char *last = topocoll_last_algorithm();
    if (c->algo)
        check(w, strcmp(last, c->algo) == 0, "%s call %d: topocoll_last_algorithm() is '%s', "
              "this thread ran '%s'", cname, c->k, last, c->algo);
    else
        check(w, topocoll_variant_index(c->coll, last) >= 0,
              "%s call %d by selection: topocoll_last_algorithm() is '%s', not a %s algorithm",
              cname, c->k, last, cname);
}

/* Chooses the call's algorithm: a catalog entry that serves it (about two
 * calls in three), or topocoll's selection. */
static const char *pick_algorithm(uint64_t *rng, const call *c, MPI_Comm comm)
{
    uint32_t r = next(rng);
    if (r % 3 == 0) return NULL;
    int n = topocoll_variant_count(c->coll);
    for (int tries = 0; tries < 4 && n > 0; tries++) {
        const char *name = topocoll_variant_name(c->coll, (int)(next(rng) % (uint32_t)n));
        if (name && topocoll_applicable(c->coll, name, c->count, MPI_INT, c->count, MPI_INT,
                                        MPI_SUM, c->root, comm, NULL) == 1)
            return name;
    }
    return NULL;
}

static const int counts[] = { 1, 2, 7, 33, 250, MAX_COUNT };

/* An erroneous call (a negative count) on every rank: each gets
 * MPI_ERR_COUNT with topocoll's message, made into an error code once per
 * message however many threads raise it at once. */
static void bad_call(worker *w, MPI_Comm comm, int *sbuf, int *rbuf)
{
    int rc = topocoll_allgather(sbuf, -1, MPI_INT, rbuf, -1, MPI_INT, comm), cls = MPI_SUCCESS;
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (rc != MPI_SUCCESS) {
        MPI_Error_class(rc, &cls);
        MPI_Error_string(rc, msg, &len);
    }
    check(w, cls == MPI_ERR_COUNT, "allgather with count -1: class %d, expected MPI_ERR_COUNT", cls);
    check(w, !messages_readable || strncmp(msg, "topocoll", 8) == 0,
          "allgather with count -1: message '%s', expected topocoll's", msg);
    /* one code for the message, whichever thread made it */
    int expected = 0;
    if (!atomic_compare_exchange_strong(&count_error_code, &expected, rc))
        check(w, expected == rc, "allgather with count -1: error code %d, another thread got %d",
              rc, expected);
}

/* by_selection: topocoll's selection whatever the sequence says */
static void run_iteration(worker *w, MPI_Comm comm, uint64_t *rng, int k, int by_selection,
                          int *sbuf, int *rbuf)
{
    int p;
    MPI_Comm_size(comm, &p);
    call c;
    c.coll = colls[next(rng) % NCOLLS];
    c.count = counts[next(rng) % (sizeof counts / sizeof counts[0])];
    c.root = (int)(next(rng) % (uint32_t)p);
    c.k = k;
    c.algo = pick_algorithm(rng, &c, comm);
    if (by_selection) c.algo = NULL;
    if (c.algo) w->forced++;
    else w->selected++;
    run_call(w, comm, &c, sbuf, rbuf);
}

static const char *const specs[] = { "2x*/cyclic", "2x2x*", NULL, "1x2x*/cyclic" };

static void *work(void *arg)
{
    worker *w = arg;
    uint64_t rng = 0x9e3779b97f4a7c15ull * (uint64_t)(w->id + 1);
    int p;
    MPI_Comm_size(w->comm, &p);
    int *sbuf = malloc((size_t)MAX_COUNT * (size_t)p * sizeof *sbuf);
    int *rbuf = malloc((size_t)MAX_COUNT * (size_t)p * sizeof *rbuf);
    if (!sbuf || !rbuf) {
        check(w, 0, "out of memory");
        free(sbuf);
        free(rbuf);
        return NULL;
    }
    /* the context (collective) with a virtual topology, then every thread
     * of the process makes its first call by selection at the same moment:
     * the selection table is built while the others look at it */
    const char *spec = specs[w->id % 4];
    check(w, topocoll_set_topology(w->comm, spec) == MPI_SUCCESS, "set_topology %s",
          spec ? spec : "(detected)");
    (void)pthread_barrier_wait(&all_ready);
    run_iteration(w, w->comm, &rng, 0, 1, sbuf, rbuf);
    /* and all raise the same error at once (the table of error codes) */
    (void)pthread_barrier_wait(&all_ready);
    bad_call(w, w->comm, sbuf, rbuf);
    MPI_Comm inner = MPI_COMM_NULL;
    for (int k = 1; k < iters; k++) {
        if (k == iters / 3)
            check(w, MPI_Comm_dup(w->comm, &inner) == MPI_SUCCESS, "MPI_Comm_dup in the thread");
        if (k == 2 * iters / 3 && inner != MPI_COMM_NULL)
            check(w, MPI_Comm_free(&inner) == MPI_SUCCESS, "MPI_Comm_free in the thread");
        if (k % 11 == 0) check(w, topocoll_flush_cache(w->comm) == MPI_SUCCESS, "flush_cache");
        if (k % 13 == 5) bad_call(w, w->comm, sbuf, rbuf);
        run_iteration(w, inner != MPI_COMM_NULL ? inner : w->comm, &rng, k, 0, sbuf, rbuf);
    }
    if (inner != MPI_COMM_NULL) MPI_Comm_free(&inner);
    free(sbuf);
    free(rbuf);
    return NULL;
}

static void watchdog(int sig)
{
    (void)sig;
    static const char msg[] = "FAIL test_threads: watchdog: the run did not finish in time "
                              "(a hang in concurrent collectives); aborting\n";
    ssize_t n = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)n;
    abort();
}

static void parse_args(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (sscanf(argv[i], "--threads=%d", &nthreads) == 1) continue;
        if (sscanf(argv[i], "--iters=%d", &iters) == 1) continue;
        if (sscanf(argv[i], "--timeout=%d", &timeout_s) == 1) continue;
        fprintf(stderr, "test_threads: unknown option %s\n", argv[i]);
        exit(2);
    }
    if (nthreads < 1 || nthreads > MAX_THREADS || iters < 3 || timeout_s < 1) {
        fprintf(stderr, "test_threads: --threads 1..%d, --iters >= 3, --timeout >= 1\n", MAX_THREADS);
        exit(2);
    }
}

int main(int argc, char **argv)
{
    parse_args(argc, argv);
    signal(SIGALRM, watchdog);
    alarm((unsigned)timeout_s);
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (world_rank == 0)
            printf("SKIP test_threads: the MPI library provides thread level %d, not "
                   "MPI_THREAD_MULTIPLE (%d): counted as a failure\n", provided, MPI_THREAD_MULTIPLE);
        SKIP();
        tc_test_counts_global.failed++;
        int status = tc_test_mpi_summary(0);
        MPI_Finalize();
        return status;
    }
    probe_messages();
    static worker w[MAX_THREADS];
    for (int t = 0; t < nthreads; t++) {
        w[t].id = t;
        if (t % 2 == 0) MPI_Comm_dup(MPI_COMM_WORLD, &w[t].comm);
        else MPI_Comm_split(MPI_COMM_WORLD, 0, world_size - 1 - world_rank, &w[t].comm);
        MPI_Comm_set_errhandler(w[t].comm, MPI_ERRORS_RETURN);   /* for bad_call */
    }
    if (pthread_barrier_init(&all_ready, NULL, (unsigned)nthreads) != 0) {
        fprintf(stderr, "FAIL rank %d: pthread_barrier_init\n", world_rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double start = MPI_Wtime();
    int started = 0;
    for (int t = 0; t < nthreads; t++, started++)
        if (pthread_create(&w[t].thread, NULL, work, &w[t]) != 0) {
            fprintf(stderr, "FAIL rank %d: pthread_create\n", world_rank);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    long forced = 0, selected = 0;
    for (int t = 0; t < started; t++) {
        pthread_join(w[t].thread, NULL);
        tc_test_counts_global.passed += w[t].passed;
        tc_test_counts_global.failed += w[t].failed;
        forced += w[t].forced;
        selected += w[t].selected;
        MPI_Comm_free(&w[t].comm);
    }
    pthread_barrier_destroy(&all_ready);
    /* the run must have used both paths, or it proves less than it says */
    CHECK(forced > 0 && selected > 0, "calls by name %ld, by selection %ld", forced, selected);
    if (world_rank == 0)
        printf("test_threads: %d ranks x %d threads x %d calls (rank 0: %ld by name, %ld by "
               "selection) in %.2f s\n", world_size, nthreads, iters, forced, selected,
               MPI_Wtime() - start);
    int status = tc_test_mpi_summary(0);
    alarm(0);
    MPI_Finalize();
    return status;
}
