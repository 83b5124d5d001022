/*
 * topocoll-tune: interleaved measurement of one point, with topocoll-bench's
 * method (docs/bench.md): per batch and entry, the buffers are filled with
 * the pattern of (rank, byte, batch), warm-up calls run, then timed
 * iterations (MPI_Barrier; t0; call; t1); the per-iteration maximum over
 * ranks goes to rank 0, whose batch time is the mean inside Tukey's fences
 * (bench_tukey_mean); every byte of the result is checked (bench_coll_check).
 * Batches are interleaved across entries, so slow drifts of the machine hit
 * every entry alike.
 */
#include <stdlib.h>
#include <string.h>

#include "tune_mpi.h"

/* topocoll-bench's adaptive counts (bench.h): the tuner measures what the
 * benchmark will show. */
static int adaptive_iters(size_t moved)
{
    size_t it = BENCH_ADAPT_BYTES / (moved ? moved : 1);
    if (it > BENCH_ITERS_MAX) it = BENCH_ITERS_MAX;
    if (it < BENCH_ITERS_MIN) it = BENCH_ITERS_MIN;
    return (int)it;
}

static int adaptive_warmup(int iters)
{
    int w = iters / 20;
    return w > BENCH_WARMUP_MAX ? BENCH_WARMUP_MAX : w < BENCH_WARMUP_MIN ? BENCH_WARMUP_MIN : w;
}

int tune_calls_per_batch(const bench_coll *bc, size_t bytes, int np)
{
    size_t sb0 = 0, rb0 = 0;
    if (bench_coll_buffers(bc, bytes, np, 0, &sb0, &rb0) != 0) return BENCH_ITERS_MAX + BENCH_WARMUP_MAX;
    int it = adaptive_iters(sb0 > rb0 ? sb0 : rb0);
    return it + adaptive_warmup(it);
}

int tune_size_open(tune_size *z, MPI_Comm comm, const bench_coll *bc, size_t bytes, int iters)
{
    size_t sb = 0, rb = 0, sb0 = 0, rb0 = 0;
    int ok = 1, gok = 0;
    memset(z, 0, sizeof *z);
    z->comm = comm;
    z->bc = bc;
    z->bytes = bytes;
    if (MPI_Comm_rank(comm, &z->rank) != MPI_SUCCESS || MPI_Comm_size(comm, &z->np) != MPI_SUCCESS) return -1;
    if (bench_coll_buffers(bc, bytes, z->np, z->rank, &sb, &rb) != 0 ||
        bench_coll_buffers(bc, bytes, z->np, 0, &sb0, &rb0) != 0)
        ok = 0;
    z->iters = iters > 0 ? iters : adaptive_iters(sb0 > rb0 ? sb0 : rb0);
    z->warmup = adaptive_warmup(z->iters);
    if (ok) {
        z->sbuf = malloc(sb ? sb : 1);
        z->rbuf = malloc(rb ? rb : 1);
        z->times = malloc((size_t)z->iters * sizeof *z->times);
        z->tmax = malloc((size_t)z->iters * sizeof *z->tmax);
        ok = z->sbuf && z->rbuf && z->times && z->tmax;
    }
    if (MPI_Allreduce(&ok, &gok, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS || !gok) {
        tune_size_close(z);
        return -1;
    }
    return 0;
}

void tune_size_close(tune_size *z)
{
    free(z->sbuf);
    free(z->rbuf);
    free(z->times);
    free(z->tmax);
    z->sbuf = z->rbuf = NULL;
    z->times = z->tmax = NULL;
}

void tune_applicable(MPI_Comm comm, const bench_coll *bc, size_t bytes, const char **names, int n,
                     int *ok)
{
    int *mine = calloc((size_t)n, sizeof *mine);
    for (int e = 0; e < n; e++) {
        const char *why = NULL;
        int a = bench_coll_applicable(bc, names[e], bytes, comm, &why);
        if (mine) mine[e] = a > 0;
        ok[e] = a > 0;
    }
    if (!mine || MPI_Allreduce(mine, ok, n, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
        for (int e = 0; e < n; e++) ok[e] = 0;
    free(mine);
}

/* One batch of one entry; rank 0 returns its time in seconds.  *bad set
 * (on every rank) when a call fails or the data is wrong. */
static double one_batch(tune_size *z, const char *name, int rep, int *bad)
{
    int err = MPI_SUCCESS, gerr = MPI_SUCCESS;
    bench_coll_fill(z->bc, z->sbuf, z->rbuf, z->bytes, z->rank, z->np, rep);
    for (int w = 0; w < z->warmup && err == MPI_SUCCESS; w++)
        err = bench_coll_call(z->bc, name, z->sbuf, z->rbuf, z->bytes, z->comm);
    if (MPI_Allreduce(&err, &gerr, 1, MPI_INT, MPI_MAX, z->comm) != MPI_SUCCESS || gerr != MPI_SUCCESS) {
        *bad = 1;
        return 0;
    }
    bench_coll_fill(z->bc, z->sbuf, z->rbuf, z->bytes, z->rank, z->np, rep);
    for (int it = 0; it < z->iters; it++) {
        if (MPI_Barrier(z->comm) != MPI_SUCCESS) err = MPI_ERR_OTHER;
        double t0 = MPI_Wtime();
        int e = bench_coll_call(z->bc, name, z->sbuf, z->rbuf, z->bytes, z->comm);
        z->times[it] = MPI_Wtime() - t0;
        if (e != MPI_SUCCESS && err == MPI_SUCCESS) err = e;
    }
    long long wrong = (long long)bench_coll_check(z->bc, z->rbuf, z->bytes, z->rank, z->np, rep), gwrong = 0;
    if (err != MPI_SUCCESS) wrong = 1;
    if (MPI_Allreduce(&wrong, &gwrong, 1, MPI_LONG_LONG, MPI_SUM, z->comm) != MPI_SUCCESS || gwrong) {
        *bad = 1;
        return 0;
    }
    if (MPI_Reduce(z->times, z->tmax, z->iters, MPI_DOUBLE, MPI_MAX, 0, z->comm) != MPI_SUCCESS) {
        *bad = 1;
        return 0;
    }
    int dropped = 0;
    return z->rank == 0 ? bench_tukey_mean(z->tmax, z->iters, &dropped) : 0;
}

void tune_run_batches(tune_size *z, const char **names, int n, int batches, int rep0, double *bt,
                      int stride, int *nb, int *bad)
{
    for (int b = 0; b < batches; b++)
        for (int e = 0; e < n; e++) {
            if (bad[e]) continue;
            double t = one_batch(z, names[e], rep0 + b, &bad[e]);
            if (!bad[e] && z->rank == 0 && nb[e] < stride) bt[(size_t)e * (size_t)stride + (size_t)nb[e]++] = t * 1e6;
        }
}
