/*
 * Member-set rounds (TC_OP_SUBCOLL, sched/sched.h): the communicators of
 * the member sets and the run of one such round as one collective call.
 */
#ifndef TC_EXEC_SUBCOLL_H
#define TC_EXEC_SUBCOLL_H

#include <mpi.h>
#include "sched/sched.h"

struct tc_bind;
struct tc_exec_env;

/* The node and bridge communicators of a communicator: made on first use,
 * once (collective over the communicator), freed with it. */
typedef struct tc_subcomms {
    int made;
    MPI_Comm local;        /* the ranks of my node, in increasing rank order */
    MPI_Comm bridge;       /* node roots (node index 0), rank = node id; MPI_COMM_NULL elsewhere */
    const int *node_of;    /* rank -> node (the topology's, while made) */
    const int *node_idx;   /* rank -> index in its node (= rank in local) */
} tc_subcomms;

/* Make n's communicators from comm (collective over comm) unless made. */
int tc_subcomms_make(tc_subcomms *n, MPI_Comm comm, int rank, const int *node_of, const int *node_idx);
/* Free them (made again on the next use); the first MPI error. */
int tc_subcomms_free(tc_subcomms *n);

/* Run ops [b, e) of s, a round opened by TC_OP_SUBCOLL: its COPYs, then its
 * SENDs and RECVs as one message per peer and direction on the set's
 * communicator (a struct datatype over the regions, in op order, from
 * MPI_BOTTOM; adjacent regions merged).  Returns an MPI error code.
 * *trunc: the run's first truncation (MPI_SUCCESS: none yet), as the
 * executor keeps it (exec_mpi.c, "erroneous calls"): a truncated receive is
 * recorded there, not returned, and the round completes; once one is
 * recorded, this rank's messages carry the error tag, and a message so
 * tagged records MPI_ERR_TRUNCATE at its receiver, so that the ranks a
 * truncated part may have reached report it too and none waits. */
int tc_exec_subcoll(const tc_sched *s, int b, int e, const struct tc_bind *bind, const struct tc_exec_env *env,
                    int (*copy)(const struct tc_bind *bind, const tc_op *op, const struct tc_exec_env *env),
                    int *trunc);

#endif
