/*
 * The MPI executor: runs a schedule with PMPI_ calls only.  Per round it
 * posts every receive and send (nonblocking), runs the local copies and
 * reductions, then waits for the round (semantics in sched/sched.h).
 */
#ifndef TC_EXEC_MPI_H
#define TC_EXEC_MPI_H

#include <mpi.h>
#include "sched/sched.h"

/* What a logical buffer is bound to for one call. */
typedef struct tc_bind {
    char *base;          /* address of element 0 (NULL allowed for count 0) */
    MPI_Datatype type;
    MPI_Aint extent;
    MPI_Aint true_lb, true_extent;
    int size;            /* type size in bytes */
    int contiguous;      /* elements are dense bytes: memcpy works */
} tc_bind;

/* Reusable per-communicator memory: request array, scratch, pack buffer. */
typedef struct tc_workspace {
    MPI_Request *reqs;
    int nreqs;
    char *tmp;
    size_t tmp_bytes;
    char *pack;
    size_t pack_bytes;
} tc_workspace;

/* Fill extent/size/contiguity of b->type. */
int tc_bind_type(tc_bind *b, void *base, MPI_Datatype type);

/* Run s on comm (the private communicator).  bind[TC_BUF_TMP] is filled
 * here from bind[s->tmp_like] and the workspace.  op is used by REDUCE ops
 * (MPI_OP_NULL when none).  Every count must fit an int (checked when the
 * schedule is built).  Returns an MPI error code. */
int tc_exec(const tc_sched *s, tc_bind bind[TC_NBUF], MPI_Op op, MPI_Comm comm,
            tc_workspace *ws);

void tc_workspace_free(tc_workspace *ws);

#endif
