/*
 * Per-communicator state, cached on the communicator as an attribute and
 * freed by its delete callback: a private duplicate for topocoll's own
 * messages, the topology, the schedule cache and the executor's workspace.
 */
#ifndef TC_CONTEXT_H
#define TC_CONTEXT_H

#include <mpi.h>
#include <stdatomic.h>

#include "algo/catalog.h"
#include "core/thread_local.h"
#include "detect/detect.h"
#include "exec/exec_mpi.h"
#include "select/shm_model.h"
#include "topo/topo.h"

typedef struct tc_sched_key {
    const tc_algo *algo;
    int64_t scount, rcount;
    MPI_Datatype stype, rtype;
    int root, in_place;
    MPI_Op op;             /* reductions (MPI_OP_NULL otherwise) */
    int commutative;       /* a freed op's handle may come back non-commutative */
    topocoll_coll coll;
} tc_sched_key;

typedef struct tc_cached {
    tc_sched_key key;
    tc_sched sched;
    unsigned long last_use;
} tc_cached;

/* The last call of one collective on a communicator, as the full path
 * checked, normalised and chose it: a repeated call with the same scalar
 * arguments (counts, datatypes and their sizes, root, op, in-place) goes
 * straight to the executor (src/api/memo.c, the fast path). */
typedef struct tc_call_memo {
    int valid;
    int scount, rcount, root, in_place;
    MPI_Datatype stype, rtype;
    MPI_Op op;
    int commutative;
    int use[2], tsize[2];      /* significance and type sizes at this rank */
    int64_t bytes;             /* the call's bytes per rank (tc_call.bytes) */
    int watched;               /* a significant type is derived (tc_watch_type) */
    unsigned types_freed;      /* tc_types_freed() before the watch was set */
    int predefined_op;         /* the op cannot be freed, so its handle means the same */
    tc_args args;              /* normalised */
    const tc_algo *algo;
    int named;                 /* chosen by name (topocoll_run, *_algorithm): serves such calls only */
    const tc_sched *sched;     /* NULL: native */
    unsigned long epoch;       /* the cache epoch sched belongs to */
    unsigned config_gen;       /* the configuration it was chosen under */
    int typed;                 /* types, alias_off: sched's bindings (tc_run_bind_types) */
    tc_bind types[2];
    MPI_Aint alias_off;
    /* Learning (src/api/learn_call.c): the settled learner whose winner this
     * memo serves (NULL: none), and how many more calls the fast path may
     * serve before the learner must see one (UINT64_MAX without a learner);
     * learn_base: learn_left when last counted into the learner. */
    struct tc_learner *learn;
    uint64_t learn_left, learn_base;
    /* The pass-through (src/api/pass.h): pass 1 when the choice is the MPI
     * library's own and the call may go from the entry point straight to
     * it; in_place_arg[b]: buffer b was MPI_IN_PLACE; nonnull[b]: buffer b
     * must not be NULL; apart: both buffers significant, so they must
     * differ. */
    unsigned char pass, in_place_arg[2], nonnull[2], apart;
    /* A per-rank-count call (tc_memo_remember_per_peer) whose choice
     * depends on its counts (allgatherv): they are compared with the copy
     * in tc_vmemo.ag_counts, scount with the own block's count. */
    unsigned char vcopy;
    /* A per-rank-count call whose learned choice is a schedule, kept with
     * the call's record in tc_vmemo.vs (memo_vec.c). */
    unsigned char vsched;
    /* A one-count call (bcast, the reductions) whose choice, the MPI
     * library's own, holds for any count of its size class (a settled
     * learner's winner) or any count at all (forced): the pass-through
     * serves calls of other counts too (any_count; size_class -1: any),
     * and, for bcast, of any root (any_root); unit: its bytes per count. */
    unsigned char any_count, any_root;
    int size_class;
    int64_t unit;
} tc_call_memo;

/* The node and bridge communicators of the member-set rounds and of the
 * compositions (exec/subcoll.h): made on first use, once per communicator
 * (and again after a topology change), from the private duplicate. */
typedef tc_subcomms tc_node_comms;

/* The per-rank-count calls' memory beside their memos (memo.c, alltoallw.c):
 * copies of the remembered call's count arrays, which a later call's are
 * compared with (a pointer alone may point at counts changed since).
 * Allocated on first need (size ints or handles each), freed with the
 * context's other state. */
typedef struct tc_vsched tc_vsched;   /* memo_vec.c */
typedef struct tc_vmemo {
    tc_vsched *vs[TOPOCOLL_NCOLL];   /* per collective: a learned schedule kept (memo_vec.c) */
    int *ag_counts;            /* allgatherv: the receive counts of the memo's call */
    /* alltoallw (alltoallw.c): its whole memo, no tc_call_memo */
    int aw_valid;
    int *aw_counts;            /* [2 x size]: send counts, then receive counts */
    MPI_Datatype *aw_types;    /* [2 x size]: send types, then receive types */
    const tc_algo *aw_algo;
    unsigned aw_config_gen;
} tc_vmemo;

/* Areas of node-shared memory that the nonblocking calls take in turn. */
#define TC_NB_RING 4

typedef struct tc_ctx {
    int built;             /* 0: a marker only, counting calls (tc_ctx_for_call) */
    int synced;            /* a call that may synchronise the ranks reached it (a blocking
                              collective, a persistent init, topocoll_set_topology): until
                              then nothing has been timed on it, so the nonblocking calls by
                              selection are the MPI library's (alike at every rank) */
    unsigned calls;        /* the marker's calls by selection so far */
    MPI_Comm comm;         /* private duplicate */
    int rank, size;
    tc_topo *topo;
    tc_cached *cache;      /* [ncache] */
    int ncache, cache_cap;
    unsigned long clock;
    unsigned long cache_epoch; /* +1 whenever a cached schedule is freed */
    tc_call_memo memo[TOPOCOLL_NCOLL];
    tc_call_memo nb_memo[TOPOCOLL_NCOLL]; /* the nonblocking calls' (nb_call.c): the entry and
                              its cached schedule, or the MPI library's own (sched NULL) */
    tc_workspace ws;
    tc_shm shm;            /* node communicator and shared windows */
    int node_shm;          /* every node's ranks share memory (tc_args.node_shm) */
    tc_node_comms ncomms;  /* the member sets' communicators */
    tc_load_info load;     /* oversubscribed or not (tc_args.load), detected once */
    int explaining;        /* some rank of the communicator explains (TOPOCOLL_EXPLAIN): the
                              learner's timed calls start with a barrier (call.c); agreed */
    tc_shm_model *model;   /* the one-node allreduce memory model, made by the
                              context on first need (shm_calibrate.h); NULL: not yet */
    unsigned model_asked;  /* selections that reached the model before it was made */
    struct tc_nb_channel *nb; /* the nonblocking operations' communicator (nb_requests.h) */
    struct tc_nb_area *areas; /* the persistent requests' node-shared memory (nb_areas.h) */
    struct tc_nb_area *ring[TC_NB_RING]; /* the nonblocking calls' (nb_areas.h), once made */
    int ring_made;         /* 1 made, 0 not yet, -1 could not be had */
    int ring_want;         /* a nonblocking call asked for it: the next blocking call makes it */
    uint64_t ring_seq;     /* nonblocking calls served on it so far */
    size_t ring_half;      /* its areas' data half (tc_nb_ring_half) */
    unsigned nb_count[TOPOCOLL_NCOLL]; /* the nonblocking calls of the memo's key towards its
                              race (nb_race.c) */
    unsigned char nb_looked[TOPOCOLL_NCOLL]; /* 1: that key has nothing to race (its memo's
                              calls are not counted) */
    unsigned nb_since[TOPOCOLL_NCOLL]; /* the nonblocking calls of a watched key since its race */
    unsigned nb_check_at[TOPOCOLL_NCOLL]; /* ... at which its usage is next compared (nb_race.h) */
    unsigned nb_tick[TOPOCOLL_NCOLL]; /* its calls, for sampling every TC_NB_USAGE_EVERY-th */
    unsigned char nb_watch[TOPOCOLL_NCOLL]; /* 1: the key raced and may race again where the
                              application's usage changes (nb_usage.h) */
    int race_want;         /* a key's nonblocking calls asked for a race: the next blocking call runs it */
    int race_check;        /* ... only where some rank's usage changed since its last race */
    struct tc_call *race_call; /* that key's call record (its buffers not used) */
    struct tc_learn_slot **learn; /* the learners of its keys (learn_call.c) */
    int nlearn, learn_cap;
    tc_vmemo *vmemo;       /* NULL until a per-rank-count call is remembered */
} tc_ctx;

/* The context of comm, made on first use (collective over comm then). */
int tc_ctx_get(MPI_Comm comm, tc_ctx **out);
/* For a call of coll by selection on comm (size ranks, an intra-communicator):
 * *out the context, or NULL when the MPI library's own collective serves
 * the call without one.  A context costs a duplicate communicator,
 * topology and load detection and shared-memory windows, many collectives
 * over comm: more than it saves on a communicator used a few times.  So a
 * one-rank communicator gets none (every collective there is a local copy
 * or nothing), and another communicator (MPI_COMM_WORLD excepted) first gets
 * a marker that counts its calls: the first TOPOCOLL_CONTEXT_AFTER of them
 * are the MPI library's, the next one makes the context (collective: every
 * rank makes the same calls on a communicator, so all count alike and make
 * it in the same call).  A collective forced by TOPOCOLL_<COLL> makes the
 * context at once.  Local but for the making. */
int tc_ctx_for_call(MPI_Comm comm, topocoll_coll coll, int size, tc_ctx **out);
/* MPI_Init's (the interposer's): MPI_COMM_WORLD's context made now, while
 * every rank is in MPI_Init, and whether every rank has it agreed (one
 * reduction), so that a program calling only nonblocking collectives gets
 * topocoll's.  Errors leave things as they were (the first blocking
 * collective makes the context). */
void tc_ctx_at_init(void);
/* Did every rank make MPI_COMM_WORLD's context in MPI_Init?  (A context
 * that no blocking collective has reached serves nonblocking calls only
 * then: made at init on some ranks alone, the ranks would choose apart.) */
int tc_ctx_made_at_init_everywhere(void);
/* Contexts alive in this process: markers and made ones (for tests). */
int tc_ctx_alive(int *made);
/* The context of comm if it has one (no MPI call when this thread used the
 * communicator among its last TC_LAST_CTX ones), else NULL: local, never
 * collective.  It may be a marker (built 0), whose memos are all invalid. */
tc_ctx *tc_ctx_lookup(MPI_Comm comm);
/* The lookup's memory (context.c): each thread's last TC_LAST_CTX
 * (communicator, context) pairs, each valid while the generation, bumped by
 * freeing any context, is the one it was taken under.  Several, because
 * libraries alternate communicators (ScaLAPACK's row, column and grid
 * ones): with one pair every call after another communicator's missed it. */
#define TC_LAST_CTX 4
typedef struct tc_last_ctx { MPI_Comm comm; tc_ctx *ctx; unsigned gen; } tc_last_ctx;
extern TC_THREAD_LOCAL tc_last_ctx tc_ctx_last[TC_LAST_CTX];
extern atomic_uint tc_ctx_generation;
/* tc_ctx_lookup's first step alone: comm's context when it is among this
 * thread's last ones, else NULL (no MPI call). */
static inline tc_ctx *tc_ctx_last_of(MPI_Comm comm)
{
    unsigned gen = atomic_load_explicit(&tc_ctx_generation, memory_order_acquire);
    for (int i = 0; i < TC_LAST_CTX; i++)
        if (tc_ctx_last[i].comm == comm && tc_ctx_last[i].gen == gen) return tc_ctx_last[i].ctx;
    return NULL;
}
/* A communicator of this process alone whose errors return (MPI_ERRORS_RETURN):
 * for asking the MPI library whether it takes an argument without running
 * any handler of the application's; MPI_COMM_NULL if it could not be made.
 * Freed at MPI_Finalize. */
MPI_Comm tc_quiet_self(void);
/* MPI_Reduce of one element of type with op on that communicator (one
 * thread at a time: it is a collective): the MPI library's word on whether
 * it takes op on type.  MPI_SUCCESS when there is no such communicator. */
int tc_quiet_reduce(const void *in, void *out, MPI_Datatype type, MPI_Op op);
/* Derived datatypes that a remembered call uses (the per-call fast path)
 * carry an attribute whose delete callback, run by MPI_Type_free, counts
 * the free: a memo taken when tc_types_freed() had another value may stand
 * for a handle MPI has since reused for another type.  tc_watch_type does
 * nothing for predefined types (never freed). */
int tc_watch_type(MPI_Datatype t);
unsigned tc_types_freed(void);
/* The context's tc_vmemo, its arrays of size entries made on first need
 * (NULL: out of memory; the calls then take the full path); freed. */
tc_vmemo *tc_vmemo_get(tc_ctx *c);
void tc_vmemo_free(tc_ctx *c);
/* Every choice it keeps forgotten (the context's schedules flushed). */
void tc_vmemo_forget(tc_ctx *c);
/* Every blocking memo of the context dropped, the vector memo too (the
 * calls their learners' fast paths served counted into the learners first:
 * memo.c): each rank's next blocking call on it takes the full path. */
void tc_memo_drop_blocking(tc_ctx *x);
/* Replace comm's topology (collective: every rank passes the same spec). */
int tc_ctx_set_topology(MPI_Comm comm, const char *spec);
/* The schedule for key on this rank: cached or built (NULL + error code). */
const tc_sched *tc_ctx_schedule(tc_ctx *c, const tc_sched_key *key, const tc_args *a, int *err);
void tc_ctx_flush(tc_ctx *c);
/* The node and bridge communicators, made on first use (collective over
 * the communicator then). */
int tc_ctx_node_comms(tc_ctx *c, const tc_node_comms **out);
/* The executor's environment for this context. */
tc_exec_env tc_ctx_env(tc_ctx *c, MPI_Op op);

#endif
