/*
 * topocoll-tune: one point (collective, size, communicator) under the
 * library's learner.
 *
 * Steps: the buffers of topocoll-bench (bench_coll_buffers), then batches of
 * TUNE_BATCH calls of topocoll's selection (bench_coll_call with "auto": the
 * learner explores, agrees and settles inside these calls, docs/learning.md),
 * each batch's data checked (bench_coll_check), and after each batch one
 * MPI_Allreduce over the communicator agreeing on three things: a call failed
 * or left wrong data, the learner has not settled here on some rank, the
 * budget is spent on some rank.  The learner has settled for the point when
 * the process-wide record of outcomes (tc_learn_outcomes) holds an outcome of
 * (collective, communicator size) that was not there before the point, or
 * one whose size class holds the point's bytes (learned at a size of the same
 * class, or warm-started from the file).
 *
 * Cost: the learner's exploration (some tens of calls per size class) plus
 * at most TUNE_BATCH - 1 calls and one small reduction per batch.
 */
#include <stdlib.h>
#include <string.h>

#include "tune_mpi.h"
#include "select/learn.h"

int tune_size_open(tune_size *z, MPI_Comm comm, const bench_coll *bc, size_t bytes)
{
    size_t sb = 0, rb = 0;
    int ok = 1, gok = 0;
    memset(z, 0, sizeof *z);
    z->comm = comm;
    z->bc = bc;
    z->bytes = bytes;
    if (MPI_Comm_rank(comm, &z->rank) != MPI_SUCCESS || MPI_Comm_size(comm, &z->np) != MPI_SUCCESS) return -1;
    if (bench_coll_buffers(bc, bytes, z->np, z->rank, &sb, &rb) != 0) ok = 0;
    if (ok) {
        z->sbuf = malloc(sb ? sb : 1);
        z->rbuf = malloc(rb ? rb : 1);
        ok = z->sbuf && z->rbuf;
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
    z->sbuf = z->rbuf = NULL;
}

/* This process's outcomes of (coll, np): how many, and into *holds the
 * latest whose size class holds bytes (calls 0 when none). */
int tune_outcomes_of(topocoll_coll coll, int np, size_t bytes, tc_learn_outcome *holds)
{
    int total = tc_learn_outcomes(NULL, 0), n = 0;
    tc_learn_outcome *all = total > 0 ? malloc((size_t)total * sizeof *all) : NULL;
    memset(holds, 0, sizeof *holds);
    int got = all ? tc_learn_outcomes(all, total) : 0;
    for (int i = 0; i < got; i++) {
        const tc_learn_outcome *o = &all[i];
        if (o->coll != coll || o->np != np) continue;
        n++;
        if ((int64_t)bytes >= o->min_bytes && (o->max_bytes == 0 || (int64_t)bytes < o->max_bytes)) *holds = *o;
    }
    free(all);
    return n;
}

int tune_learn_point(tune_size *z, int max_calls, double deadline, tune_point *p)
{
    tc_learn_outcome o;
    int before = tune_outcomes_of(z->bc->coll, z->np, z->bytes, &o);
    memset(p, 0, sizeof *p);
    p->known_before = o.winner != NULL;
    for (int rep = 0;; rep++) {
        int err = MPI_SUCCESS;
        bench_coll_fill(z->bc, z->sbuf, z->rbuf, z->bytes, z->rank, z->np, rep);
        for (int c = 0; c < TUNE_BATCH && err == MPI_SUCCESS; c++)
            err = bench_coll_call(z->bc, BENCH_AUTO, z->sbuf, z->rbuf, z->bytes, z->comm);
        p->calls += TUNE_BATCH;
        int now = tune_outcomes_of(z->bc->coll, z->np, z->bytes, &o);
        int mine[3] = { err != MPI_SUCCESS || bench_coll_check(z->bc, z->rbuf, z->bytes, z->rank, z->np, rep) != 0,
                        !(now > before || o.winner), deadline > 0 && MPI_Wtime() > deadline };
        int all[3];
        if (MPI_Allreduce(mine, all, 3, MPI_INT, MPI_MAX, z->comm) != MPI_SUCCESS) return -1;
        if (all[0]) return -1;
        p->settled = !all[1];
        p->out_of_time = all[2];
        if (p->settled || p->out_of_time || p->calls >= max_calls) break;
    }
    p->outcome = o;
    return 0;
}
