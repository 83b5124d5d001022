/* topocoll-tune: the parts that use MPI (comms.c, measure.c, pingpong.c). */
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

/* ---- one point under the learner (measure.c) ----------------------------------- */

#include "select/learn.h"

/* Calls between two checks of the data and of the learner's state. */
#define TUNE_BATCH 8

/* One size of one collective on one communicator, and its buffers. */
typedef struct tune_size {
    MPI_Comm comm;
    int rank, np;
    const bench_coll *bc;
    size_t bytes;
    unsigned char *sbuf, *rbuf;
} tune_size;

/* Allocates the buffers for `bytes` (collective); 0, or -1 on every rank. */
int tune_size_open(tune_size *z, MPI_Comm comm, const bench_coll *bc, size_t bytes);
void tune_size_close(tune_size *z);

typedef struct tune_point {
    int calls;                 /* calls made */
    int settled;               /* the learner settled (on every rank) */
    int out_of_time;           /* the deadline passed first */
    int known_before;          /* its size class was learned (or read) before the point */
    tc_learn_outcome outcome;  /* this process's outcome there (winner NULL: none) */
} tune_point;

/* This process's outcomes of (coll, np): how many, and in *holds the one
 * whose size class holds bytes (winner NULL when none). */
int tune_outcomes_of(topocoll_coll coll, int np, size_t bytes, tc_learn_outcome *holds);
/* Calls topocoll's selection at z's point in batches until the learner has
 * settled there, max_calls are made or the deadline (MPI_Wtime, 0: none)
 * passes, all agreed over z->comm; 0, or -1 on every rank when a call failed
 * or left wrong data. */
int tune_learn_point(tune_size *z, int max_calls, double deadline, tune_point *p);

/* ---- the cost model's parameters (pingpong.c) --------------------------------- */

/* Ping-pong per level of distance from rank 0 (collective over comm): the
 * tuning file's "_model" section on rank 0, NULL elsewhere or on failure. */
json_t *tune_fit_model(MPI_Comm comm);

#endif
