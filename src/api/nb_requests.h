/*
 * The requests of topocoll's nonblocking and persistent operations, and the
 * progress that completes them.
 *
 * A request the caller gets is a generalized request (MPI_Grequest_start):
 * a real MPI_Request that MPI's wait and test calls complete like any other,
 * mixed with point-to-point and other libraries' requests.  Nothing in the
 * MPI library advances topocoll's schedules, so the interposer's MPI_Wait,
 * MPI_Test, their all/any/some forms and MPI_Request_get_status advance every
 * outstanding operation (tc_nb_progress) before and while they ask the MPI
 * library; an operation whose schedule has run to its end completes its
 * request (MPI_Grequest_complete).  TOPOCOLL_PROGRESS=thread adds a thread
 * that advances them while the application computes.
 *
 * A persistent request's handle is a generalized request too, which the MPI
 * library never sees complete while the request lives: MPI_Start, MPI_Wait,
 * MPI_Test ... recognise it and handle it here (each start runs the
 * operation again; a wait or test completes the start and leaves the request
 * inactive); MPI_Request_free completes and frees it.
 *
 * One lock serialises the registry and progress (MPI_THREAD_MULTIPLE).
 */
#ifndef TC_API_NB_REQUESTS_H
#define TC_API_NB_REQUESTS_H

#include <mpi.h>

#include <stdatomic.h>

#include "exec/exec_nb.h"

/* The communicator of a context's nonblocking operations: a duplicate of its
 * private one, made with the context (inside a blocking collective, so that
 * no nonblocking call ever waits for another rank to make it), apart from
 * the blocking schedules' messages, which match any tag; the operations
 * number their tags by start (seq), the same order at every rank. */
typedef struct tc_nb_channel {
    MPI_Comm comm;
    unsigned seq;          /* nonblocking operations started */
    unsigned pseq;         /* persistent requests made */
    int refs;              /* the context's and each operation's */
} tc_nb_channel;

/* A channel on comm (a context's private duplicate; collective); NULL when
 * it could not be made (the nonblocking calls are then the MPI library's).
 * spin: comm's ranks have a processing unit each (the waiting calls look
 * longer before they yield). */
tc_nb_channel *tc_nb_channel_open(MPI_Comm comm, int spin);
/* The context gives its channel up (operations may still hold it). */
void tc_nb_channel_release(tc_nb_channel *ch, int finalizing);

typedef struct tc_nb_op {
    struct tc_nb_op *next;      /* the outstanding operations */
    struct tc_nb_op *pnext;     /* the persistent requests */
    tc_nb_exec ex;
    tc_sched sched;             /* owned: made for the call, or once (persistent) */
    tc_bind user[2];            /* SEND and RECV as bound for the call */
    MPI_Op op;
    int me;
    tc_nb_channel *ch;
    int ch_held;                /* the operation holds ch (taken when it is launched or registered) */
    struct tc_nb_area *area;    /* its node-shared memory (nb_areas.h): a persistent request's
                                   own, or the ring's (gate: which and when; home: the ring's
                                   first area, whose done words the gate reads); NULL: none */
    tc_shm_gate gate;
    struct tc_nb_area *home;
    MPI_Comm user_comm;         /* the caller's communicator (error messages) */
    MPI_Request handle;         /* the generalized request the caller holds */
    int persistent;
    int tag;                    /* persistent: its tag, fixed at init (MPI-4 matches persistent
                                   collectives by init order, whatever the order of their starts) */
    int running;                /* its schedule runs (in the outstanding list) */
    int active;                 /* persistent: started, not yet completed by a wait or test */
    int detached;               /* MPI_Request_free while running: freed when done */
    int started;                /* persistent: started once (its executor's preparation kept) */
    int result;                 /* the last run's outcome */
    void *owned;                /* memory freed with the operation */
    /* A persistent request that the MPI library's own nonblocking collective
     * serves at each start (an MPI-3 library has no persistent one): its
     * start, and the request of the start in flight. */
    int (*native_start)(struct tc_nb_op *op, MPI_Request *inner);
    MPI_Request inner;
    /* The run summary (TOPOCOLL_STATS): each run counted when it ends, as
     * "<entry> (nonblocking)" or "(persistent)", its time from start to end. */
    const char *stats_algo;     /* NULL: not counted */
    int stats_coll, stats_size;
    int64_t stats_bytes;
    uint64_t stats_t0;
    /* How the application uses the call (nb_usage.h): the time its start
     * returned (0: no sample running), the application's test calls by
     * then, its collective + 1 (0: not sampled). */
    uint64_t usage_t0;
    unsigned usage_tests0;
    int usage_coll;
    /* (a field added here is cleared for reuse in nb_requests.c's clear_for_reuse) */
} tc_nb_op;

/* A new operation: zeroed but for the executor's state, which each start
 * sets (tc_nb_exec_start); its schedule initialised. */
tc_nb_op *tc_nb_op_new(void);
/* Sample how the application uses op, a call of collective coll about to
 * be launched (nb_usage.h); the sample begins at tc_nb_op_sample_begin,
 * when the call returns to the application (its last work done: a memo
 * made after the launch is not the application's computation). */
void tc_nb_op_sample(tc_nb_op *op, int coll);
void tc_nb_op_sample_begin(tc_nb_op *op);
/* Free an operation that is not outstanding. */
void tc_nb_op_free(tc_nb_op *op);

/* Start op (non-persistent) and give the caller its request. */
int tc_nb_launch(tc_nb_op *op, MPI_Request *request);
/* Register op as a persistent request (inactive) and give its handle. */
int tc_nb_persistent(tc_nb_op *op, MPI_Request *request);

/* Is the interposer loaded (its wait and test calls advance operations)? */
extern int tc_nb_interposed;

/* Advance every outstanding operation; returns how many remain. */
int tc_nb_progress(void);
/* How many operations are running (no lock: a hint for fast paths). */
int tc_nb_running(void);
/* Running operations and persistent requests (no lock).  None: the wait
 * and test calls are the MPI library's, tested inline by the interposer's
 * entry points (MPI_Testany runs millions of times in some programs'
 * polling loops: HPC Challenge's RandomAccess makes 2 million). */
extern atomic_int tc_nb_live;
static inline int tc_nb_none_live(void)
{
    return atomic_load_explicit(&tc_nb_live, memory_order_acquire) <= 0;
}
/* Blocking point-to-point calls while operations run: made nonblocking and
 * waited for here, so that the operations advance meanwhile (a peer may
 * wait for them before it sends what this call waits for). */
int tc_nb_probe(int source, int tag, MPI_Comm comm, MPI_Status *st);

/* MPI's request functions with topocoll's operations among the requests
 * (the interposer's MPI_ functions call these). */
int tc_nb_wait(MPI_Request *r, MPI_Status *st);
int tc_nb_test(MPI_Request *r, int *flag, MPI_Status *st);
int tc_nb_waitall(int n, MPI_Request r[], MPI_Status st[]);
int tc_nb_testall(int n, MPI_Request r[], int *flag, MPI_Status st[]);
int tc_nb_waitany(int n, MPI_Request r[], int *idx, MPI_Status *st);
int tc_nb_testany(int n, MPI_Request r[], int *idx, int *flag, MPI_Status *st);
int tc_nb_waitsome(int n, MPI_Request r[], int *outcount, int idx[], MPI_Status st[]);
int tc_nb_testsome(int n, MPI_Request r[], int *outcount, int idx[], MPI_Status st[]);
int tc_nb_request_free(MPI_Request *r);
int tc_nb_cancel(MPI_Request *r);
int tc_nb_start(MPI_Request *r);
int tc_nb_startall(int n, MPI_Request r[]);
int tc_nb_get_status(MPI_Request r, int *flag, MPI_Status *st);

#endif
