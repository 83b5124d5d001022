/* topocoll-tune: the parts that use MPI (comms.c, measure.c). */
#ifndef TOPOCOLL_TUNE_MPI_H
#define TOPOCOLL_TUNE_MPI_H

#include <mpi.h>
#include <jansson.h>
#include "topocoll.h"
#include "../bench/bench.h"

typedef struct tune_comm {
    const char *name;     /* "world", "pernode", "half" */
    MPI_Comm comm;        /* MPI_COMM_NULL on ranks outside it */
    int member;
    int np, nnodes, nsockets;   /* on members */
    char spec[4096];            /* its virtual topology ("" when detected) */
    int oversub;                /* topocoll_oversubscribed: 1, 0, -1 unknown (on members) */
} tune_comm;

/* Collective over MPI_COMM_WORLD; 0, or -1 on every rank. */
int tune_comm_make(const char *name, int virtual_topo, tune_comm *out);
void tune_comm_free(tune_comm *c);
/* A fresh copy of c's communicator with c's topology (collective over its
 * members), or MPI_COMM_NULL.  Every point and screen runs on its own copy,
 * freed after it: what topocoll attaches to a communicator (schedules,
 * shared-memory windows of a hundred screened entries) must not slow down
 * the entries measured after it. */
MPI_Comm tune_comm_fresh(const tune_comm *c);

/* ---- measurement (measure.c) ------------------------------------------------ */

/* One size of one collective on one communicator, and its buffers. */
typedef struct tune_size {
    MPI_Comm comm;
    int rank, np;
    const bench_coll *bc;
    size_t bytes;
    unsigned char *sbuf, *rbuf;
    double *times, *tmax;     /* per iteration; tmax on rank 0 */
    int iters, warmup;
} tune_size;

/* Allocates the buffers for `bytes` with `iters` timed iterations (0:
 * adaptive); 0, or -1 on every rank. */
int tune_size_open(tune_size *z, MPI_Comm comm, const bench_coll *bc, size_t bytes, int iters);
void tune_size_close(tune_size *z);
/* Timed and warm-up calls of one batch at `bytes` on np ranks (adaptive). */
int tune_calls_per_batch(const bench_coll *bc, size_t bytes, int np);

/* Runs `batches` batches of every entry of names[0..n), interleaved (batch
 * b runs every entry before batch b + 1 starts).  Rank 0 appends each
 * entry's batch times (microseconds) to bt[e * stride + nb[e]++].  bad[e]
 * becomes 1 on every rank when an entry fails or leaves wrong data (it is
 * not run again).  rep0 numbers the batches' data patterns. */
void tune_run_batches(tune_size *z, const char **names, int n, int batches, int rep0, double *bt,
                      int stride, int *nb, int *bad);

/* Which names serve `bytes` on every rank of comm (collective): ok[e]. */
void tune_applicable(MPI_Comm comm, const bench_coll *bc, size_t bytes, const char **names, int n,
                     int *ok);

/* ---- the cost model's parameters (pingpong.c) --------------------------------- */

/* Ping-pong per level of distance from rank 0 (collective over comm): the
 * tuning file's "_model" section on rank 0, NULL elsewhere or on failure. */
json_t *tune_fit_model(MPI_Comm comm);

#endif
