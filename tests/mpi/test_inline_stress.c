/*
 * Back-to-back inline shared-memory calls (allgather, bcast, reduce and
 * allreduce "shm_inline", src/exec/shm_inline.c): many calls with no barrier
 * between them, values that change with every call, every rank pausing at
 * random points (a yield now and then, a short sleep more rarely), every
 * result checked.  The slots alternate between two parities; a writer that
 * ran two calls ahead of a reader would overwrite data the reader still
 * copies, and a reader would take the newer call's data for its own: both
 * show as wrong values.  Phases: bcasts with a fixed root (the root has
 * nothing to wait for but the readers' done lines), then rotating roots;
 * reduces with a fixed root (the non-roots wait only on done lines), then
 * rotating roots; allgathers; a random mix of the four collectives (the
 * same sequence on every rank).  Counts change between calls (1 to 6 lines)
 * and once per phase beyond the slots' capacity (the slots grow mid-run).
 *
 * Arguments: --iters=N (calls per phase, default 20000), --oversubscribed=0|1
 * (sets TOPOCOLL_OVERSUBSCRIBED before MPI_Init: 0 spins in waits, 1
 * yields; checked through topocoll_oversubscribed).  One check per rank and
 * phase (the first failure is printed), one that every call was served by
 * shm_inline; ends with "N passed, M failed".
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "topocoll.h"
#include "common/mpi_harness.h"

#define MAXCOUNT 1000   /* ints: 4000 bytes, beyond the slots' first capacity */

static const int counts[] = { 1, 2, 14, 15, 28, 80 };   /* 4..320 bytes: 1..6 lines */
#define NCOUNTS ((int)(sizeof counts / sizeof counts[0]))

enum { BCAST, REDUCE, ALLGATHER, ALLREDUCE, NKINDS };
static const char *const kind_name[NKINDS] = { "bcast", "reduce", "allgather", "allreduce" };

typedef struct stress {
    MPI_Comm comm;
    int rank, p;
    uint64_t lag_state;     /* this rank's pauses */
    int *in, *out;
    long wrong, calls, not_inline;
    char first[256];        /* the first failure */
} stress;

static uint64_t next(uint64_t *s)   /* xorshift64 */
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static int value(long k, int r, int i) { return (int)((k * 131 + r * 1009 + i * 7) % 1000003); }

/* Pause at random: a yield about every 16th call, a sleep of up to 100 us
 * about every 512th. */
static void lag(stress *s)
{
    uint64_t x = next(&s->lag_state);
    if ((x & 511) == 0) {
        struct timespec ts = { 0, (long)((x >> 20) % 100000) };
        nanosleep(&ts, NULL);
    } else if ((x & 15) == 0) {
        sched_yield();
    }
}

static void failed(stress *s, long k, int kind, int n, int root, const char *what, int rc)
{
    if (!s->wrong++)
        snprintf(s->first, sizeof s->first, "%s call %ld count %d root %d rank %d: %s (rc %d)", kind_name[kind],
                 k, n, root, s->rank, what, rc);
}

/* Whether out[0..n) holds what rank-set `kind` should produce at this rank. */
static int result_ok(const stress *s, long k, int kind, int n, int root)
{
    for (int i = 0; i < n; i++) {
        if (kind == BCAST && s->out[i] != value(k, root, i)) return 0;
        if (kind == REDUCE || kind == ALLREDUCE) {
            if (kind == REDUCE && s->rank != root) return s->out[0] == -1;   /* untouched */
            int want = 0;
            for (int r = 0; r < s->p; r++) want += value(k, r, i);
            if (s->out[i] != want) return 0;
        }
        if (kind == ALLGATHER)
            for (int r = 0; r < s->p; r++)
                if (s->out[r * n + i] != value(k, r, i)) return 0;
    }
    return 1;
}

static int call(stress *s, long k, int kind, int n, int root)
{
    for (int i = 0; i < n; i++) s->in[i] = value(k, s->rank, i);
    int total = kind == ALLGATHER ? n * s->p : n;
    for (int i = 0; i < total; i++) s->out[i] = -1;
    if (kind == BCAST && s->rank == root) memcpy(s->out, s->in, (size_t)n * sizeof(int));
    switch (kind) {
    case BCAST: return topocoll_bcast_algorithm("shm_inline", s->out, n, MPI_INT, root, s->comm);
    case REDUCE:
        return topocoll_reduce_algorithm("shm_inline", s->in, s->out, n, MPI_INT, MPI_SUM, root, s->comm);
    case ALLGATHER:
        return topocoll_allgather_algorithm("shm_inline", s->in, n, MPI_INT, s->out, n, MPI_INT, s->comm);
    default: return topocoll_allreduce_algorithm("shm_inline", s->in, s->out, n, MPI_INT, MPI_SUM, s->comm);
    }
}

static void one(stress *s, long k, int kind, int n, int root)
{
    lag(s);
    int rc = call(s, k, kind, n, root);
    s->calls++;
    if (strcmp(topocoll_last_algorithm(), "shm_inline") != 0) s->not_inline++;
    if (rc != MPI_SUCCESS) failed(s, k, kind, n, root, "error return", rc);
    else if (!result_ok(s, k, kind, n, root)) failed(s, k, kind, n, root, "wrong values", rc);
}

/* Phase: iters calls of one kind (kind < 0: a random mix, the same on every
 * rank), root fixed at fixed_root or (>= 0) rotating every 64 calls (-1). */
static void phase(stress *s, const char *name, long iters, int kind, int fixed_root, uint64_t seed)
{
    s->wrong = 0;
    s->first[0] = 0;
    uint64_t mix = seed;
    for (long k = 0; k < iters; k++) {
        uint64_t x = next(&mix);   /* identical on every rank */
        int kd = kind >= 0 ? kind : (int)(x % NKINDS);
        int n = k == iters / 2 ? MAXCOUNT / (kd == ALLGATHER ? s->p : 1) : counts[(x >> 8) % NCOUNTS];
        int root = fixed_root >= 0 ? fixed_root : (int)((k / 64) % s->p);
        one(s, k, kd, n, root);
    }
    CHECK(s->wrong == 0, "%s, %ld calls, rank %d: %ld wrong; first: %s", name, iters, s->rank, s->wrong, s->first);
}

static long parse_args(int argc, char **argv, const char **oversub)
{
    long iters = 20000;
    *oversub = NULL;
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--iters=", 8) == 0) iters = atol(argv[i] + 8);
        else if (strncmp(argv[i], "--oversubscribed=", 17) == 0) *oversub = argv[i] + 17;
    }
    return iters > 0 ? iters : 20000;
}

static void check_load(stress *s, const char *oversub)
{
    int o = -1;
    int rc = topocoll_oversubscribed(s->comm, &o, NULL, 0);
    if (oversub) CHECK(rc == MPI_SUCCESS && o == atoi(oversub), "rank %d: oversubscribed %d, asked %s (rc %d)", s->rank,
                       o, oversub, rc);
}

int main(int argc, char **argv)
{
    const char *oversub;
    long iters = parse_args(argc, argv, &oversub);
    if (oversub) setenv("TOPOCOLL_OVERSUBSCRIBED", oversub, 1);
    MPI_Init(&argc, &argv);
    stress s = { 0 };
    MPI_Comm_dup(MPI_COMM_WORLD, &s.comm);
    MPI_Comm_set_errhandler(s.comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(s.comm, &s.rank);
    MPI_Comm_size(s.comm, &s.p);
    s.lag_state = 0x9e3779b97f4a7c15ull ^ ((uint64_t)s.rank * 0x2545f4914f6cdd1dull);
    s.in = malloc(MAXCOUNT * sizeof *s.in);
    s.out = malloc(MAXCOUNT * (size_t)s.p * sizeof *s.out);
    if (!s.in || !s.out) MPI_Abort(MPI_COMM_WORLD, 1);
    check_load(&s, oversub);
    phase(&s, "bcast, root 0", iters, BCAST, 0, 1);
    phase(&s, "bcast, last rank root", iters / 2, BCAST, s.p - 1, 2);
    phase(&s, "bcast, rotating roots", iters / 2, BCAST, -1, 3);
    phase(&s, "reduce, root 0", iters, REDUCE, 0, 4);
    phase(&s, "reduce, rotating roots", iters / 2, REDUCE, -1, 5);
    phase(&s, "allgather", iters, ALLGATHER, 0, 6);
    phase(&s, "mixed", iters, -1, -1, 7);
    CHECK(s.not_inline == 0, "rank %d: %ld of %ld calls not served by shm_inline", s.rank, s.not_inline, s.calls);
    free(s.in);
    free(s.out);
    MPI_Comm_free(&s.comm);
    int status = tc_test_mpi_summary(0);
    MPI_Finalize();
    return status;
}
