/*
 * The pass-through: a call whose settled choice is the MPI library's own
 * collective goes from the entry point (the interposer's MPI_<Coll>, the
 * public topocoll_<coll>) straight to PMPI_<Coll>, before any argument
 * record is built.  It is the fast path (memo.c) for the native entry, cut
 * down to what that entry needs: the MPI library checks its own arguments.
 *
 * It serves a call only where the memo would serve it with the native
 * entry, checked from the memo alone:
 *   - the communicator is this thread's last one (tc_ctx_last_of: no MPI
 *     call; a communicator freed since bumped the generation);
 *   - the memo of the collective is valid, chosen by selection (not by
 *     name) under the current configuration (its generation), with none of
 *     TOPOCOLL_STATS, TOPOCOLL_EXPLAIN or TOPOCOLL_CHECK on (the full path
 *     counts, explains or agrees on each call), a predefined op (a user
 *     op's handle may come back with another commutativity, another op
 *     class to learn) and no zero-size datatype (native.c rewrites those
 *     counts): tc_memo_remember sets pass;
 *   - the same scalars as the remembered call (counts, datatypes, root,
 *     op, each buffer MPI_IN_PLACE or not), buffers the full checks would
 *     pass (not NULL where data is significant, send and receive apart),
 *     and no watched derived datatype freed since (its handle may come back
 *     as another type);
 *   - the learner lets the memo serve this call (learn_left > 0).
 *
 * The learner.  While a key explores, tc_learn_memo leaves the memo
 * invalid, so every call takes the learner's path.  Settled, the memo
 * carries how many calls the fast path may serve before the learner's next
 * re-check (learn_left); a call served here counts down the same counter as
 * the memo's fast path, and tc_learn_memo_flush adds the calls served to the
 * learner's call index when the full path next sees the key.  So the
 * learner's per-key count advances by one for every call, whichever path
 * served it, and the re-check call (learn_left 0) takes the full path on
 * every rank alike: every rank makes the same calls, and a rank that misses
 * the pass-through here (another communicator used in between, say) takes
 * the memo or the full path, which reach the same, agreed, decision.
 *
 * Cost: a thread-local compare, about a dozen loads and compares of the
 * memo, one decrement and one store (topocoll_last_algorithm).
 */
#ifndef TC_API_PASS_H
#define TC_API_PASS_H

#include "api/context.h"
#include "api/explain.h"
#include "core/config.h"

/* Calls the pass-through served on this thread (tests). */
extern TC_THREAD_LOCAL unsigned long tc_pass_served;

/* A call the pass-through serves: one of the calls the learner lets the
 * fast paths serve, recorded as the memo's entry; 1. */
static inline int pass_taken(tc_call_memo *m)
{
    m->learn_left--;
    tc_record_algorithm(m->algo->name);
    tc_pass_served++;
    return 1;
}

/* 1: the call (the entry's arguments in the form of the argument record:
 * one count and type twice for one-count collectives, root 0 without a
 * root, MPI_OP_NULL without an op) goes to PMPI_<Coll> with the user's
 * arguments, counted as served; 0: the usual path. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int tc_pass(topocoll_coll coll, MPI_Comm comm, const void *sbuf, int scount, MPI_Datatype stype,
                          const void *rbuf, int rcount, MPI_Datatype rtype, MPI_Op op, int root)
{
    tc_ctx *x = tc_ctx_last_of(comm);
    if (!x) return 0;
    tc_call_memo *m = &x->memo[coll];
    if (!m->pass || !m->valid || m->learn_left == 0 || m->config_gen != tc_config_as_loaded->generation ||
        m->scount != scount || m->rcount != rcount || m->stype != stype || m->rtype != rtype ||
        m->root != root || m->op != op || (sbuf == MPI_IN_PLACE) != m->in_place_arg[0] ||
        (rbuf == MPI_IN_PLACE) != m->in_place_arg[1] || (m->nonnull[0] && !sbuf) ||
        (m->nonnull[1] && !rbuf) || (m->apart && sbuf == rbuf) ||
        (m->watched && m->types_freed != tc_types_freed()))
        return 0;
    return pass_taken(m);
}

/* The same for a per-peer collective whose choice does not depend on the
 * counts (alltoallv: one learner key per communicator;
 * tc_memo_remember_per_peer): the same datatypes, no MPI_IN_PLACE; the MPI
 * library checks the counts and displacements. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int tc_pass_per_peer(topocoll_coll coll, MPI_Comm comm, const void *sbuf, MPI_Datatype stype,
                                   MPI_Datatype rtype)
{
    tc_ctx *x = tc_ctx_last_of(comm);
    if (!x) return 0;
    tc_call_memo *m = &x->memo[coll];
    if (!m->pass || m->valid || m->learn_left == 0 || m->config_gen != tc_config_as_loaded->generation ||
        m->stype != stype || m->rtype != rtype || sbuf == MPI_IN_PLACE ||
        (m->watched && m->types_freed != tc_types_freed()))
        return 0;
    return pass_taken(m);
}

/* At the top of an entry point (MPI_<Coll> or topocoll_<coll>, whose
 * parameters these name): the call handed to the MPI library when the
 * pass-through serves it.  The arguments are those of the entry's argument
 * record (collectives.c's *_CALL). */
#define TC_PASS_ALLGATHER                                                                          \
    if (tc_pass(TOPOCOLL_ALLGATHER, comm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, \
                MPI_OP_NULL, 0))                                                                   \
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm)
#define TC_PASS_BCAST                                                                              \
    if (tc_pass(TOPOCOLL_BCAST, comm, NULL, count, type, buf, count, type, MPI_OP_NULL, root))     \
    return PMPI_Bcast(buf, count, type, root, comm)
#define TC_PASS_SCATTER                                                                            \
    if (tc_pass(TOPOCOLL_SCATTER, comm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, \
                MPI_OP_NULL, root))                                                                \
    return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm)
#define TC_PASS_GATHER                                                                             \
    if (tc_pass(TOPOCOLL_GATHER, comm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, \
                MPI_OP_NULL, root))                                                                \
    return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm)
#define TC_PASS_REDUCE                                                                             \
    if (tc_pass(TOPOCOLL_REDUCE, comm, sendbuf, count, type, recvbuf, count, type, op, root))      \
    return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm)
#define TC_PASS_REDUCE_SCATTER_BLOCK                                                               \
    if (tc_pass(TOPOCOLL_REDUCE_SCATTER_BLOCK, comm, sendbuf, recvcount, type, recvbuf, recvcount, \
                type, op, 0))                                                                      \
    return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm)
#define TC_PASS_ALLTOALL                                                                           \
    if (tc_pass(TOPOCOLL_ALLTOALL, comm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, \
                MPI_OP_NULL, 0))                                                                   \
    return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm)
#define TC_PASS_ALLTOALLV                                                                          \
    if (tc_pass_per_peer(TOPOCOLL_ALLTOALLV, comm, sendbuf, sendtype, recvtype))                     \
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm)
#define TC_PASS_ALLREDUCE                                                                          \
    if (tc_pass(TOPOCOLL_ALLREDUCE, comm, sendbuf, count, type, recvbuf, count, type, op, 0))      \
    return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm)
#define TC_PASS_SCAN                                                                               \
    if (tc_pass(TOPOCOLL_SCAN, comm, sendbuf, count, type, recvbuf, count, type, op, 0))           \
    return PMPI_Scan(sendbuf, recvbuf, count, type, op, comm)
#define TC_PASS_EXSCAN                                                                             \
    if (tc_pass(TOPOCOLL_EXSCAN, comm, sendbuf, count, type, recvbuf, count, type, op, 0))         \
    return PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm)

#endif
