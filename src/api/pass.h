/*
 * The pass-through: a call whose settled choice is the MPI library's own
 * collective goes from the entry point (the interposer's MPI_<Coll>, the
 * public topocoll_<coll>) straight to PMPI_<Coll>, before any argument
 * record is built.  It is the fast path (memo.c) for the native entry, cut
 * down to what that entry needs: the MPI library checks its own arguments.
 *
 * It serves a call only where the memo would serve it with the native
 * entry, checked from the memo alone:
 *   - the communicator is among this thread's last ones (tc_ctx_last_of: no
 *     MPI call; a communicator freed since bumped the generation);
 *   - the memo of the collective is valid, chosen by selection (not by
 *     name) under the current configuration (its generation), with none of
 *     TOPOCOLL_STATS, TOPOCOLL_EXPLAIN or TOPOCOLL_CHECK on (the full path
 *     counts, explains or agrees on each call), a predefined op (a user
 *     op's handle may come back with another commutativity, another op
 *     class to learn) and no zero-size datatype (native.c rewrites those
 *     counts): tc_memo_remember sets pass;
 *   - the same scalars as the remembered call (counts, datatypes, root,
 *     op, each buffer MPI_IN_PLACE or not; a one-count call whose choice
 *     holds for its size class or is forced, other counts of that class,
 *     and for bcast other roots: tc_memo_note_counts), buffers the full checks would
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

#include "api/alltoallw.h"
#include "api/context.h"
#include "api/explain.h"
#include "core/config.h"
#include "select/learn.h"

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

/* The call's counts and root are the remembered call's, or a one-count
 * call's memo holds for them (tc_memo_note_counts): another count of its
 * size class (of any size with size_class -1), and for bcast another root. */
static inline int pass_same_counts_root(const tc_call_memo *m, topocoll_coll coll, int scount, int rcount,
                                        int root)
{
    if (m->scount == scount && m->rcount == rcount && m->root == root) return 1;
    if (!m->any_count || scount != rcount || scount <= 0 || (m->root != root && !m->any_root)) return 0;
    return m->size_class < 0 || tc_learn_size_class(coll, (int64_t)scount * m->unit) == m->size_class;
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
        m->stype != stype || m->rtype != rtype || m->op != op ||
        !pass_same_counts_root(m, coll, scount, rcount, root) || (sbuf == MPI_IN_PLACE) != m->in_place_arg[0] ||
        (rbuf == MPI_IN_PLACE) != m->in_place_arg[1] || (m->nonnull[0] && !sbuf) ||
        (m->nonnull[1] && !rbuf) || (m->apart && sbuf == rbuf) ||
        (m->watched && m->types_freed != tc_types_freed()))
        return 0;
    return pass_taken(m);
}

/* The same for a per-peer collective whose learned or forced choice is the
 * MPI library's own (tc_memo_remember_per_peer): the same datatypes, root and
 * op, neither buffer MPI_IN_PLACE; where the choice does not depend on the
 * counts (one learner key per communicator: alltoallv, reduce_scatter,
 * gatherv, scatterv) the MPI library checks the counts and displacements;
 * where it does (allgatherv, vcopy), the receive counts must equal the
 * remembered call's (a copy: the same array may hold other counts now) and
 * the send count too. */
static inline int pass_same_counts(const tc_ctx *x, const tc_call_memo *m, int scount, const int *counts)
{
    if (m->scount != scount || !counts || !x->vmemo) return 0;
    const int *kept = x->vmemo->ag_counts;
    for (int j = 0; j < x->size; j++)
        if (kept[j] != counts[j]) return 0;
    return 1;
}

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int tc_pass_per_peer(topocoll_coll coll, MPI_Comm comm, const void *sbuf, MPI_Datatype stype,
                                   const void *rbuf, MPI_Datatype rtype, MPI_Op op, int root, int scount,
                                   const int *rcounts)
{
    tc_ctx *x = tc_ctx_last_of(comm);
    if (!x) return 0;
    tc_call_memo *m = &x->memo[coll];
    if (!m->pass || m->valid || m->learn_left == 0 || m->config_gen != tc_config_as_loaded->generation ||
        m->stype != stype || m->rtype != rtype || m->root != root || m->op != op || sbuf == MPI_IN_PLACE ||
        rbuf == MPI_IN_PLACE || (m->watched && m->types_freed != tc_types_freed()) ||
        (m->vcopy && !pass_same_counts(x, m, scount, rcounts)))
        return 0;
    return pass_taken(m);
}

/* At the top of an entry point (MPI_<Mpi> or topocoll_<lower>, whose
 * parameters these name: include/topocoll_shapes.h), per shape of the list
 * (include/topocoll_colls.h): the call handed to PMPI_<Mpi> when the
 * pass-through serves it.  The arguments are those of the entry's argument
 * record (collectives.c's rec_<SHAPE>).  TYPE_VECTORS (alltoallw) has its
 * own memo (alltoallw.c). */
#define TC_PASS_TWO_BUFFERS(COLL, Mpi)                                                             \
    if (tc_pass(COLL, comm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, MPI_OP_NULL, 0)) \
    return PMPI_##Mpi(TOPOCOLL_ARGS_TWO_BUFFERS)
#define TC_PASS_TWO_BUFFERS_ROOT(COLL, Mpi)                                                        \
    if (tc_pass(COLL, comm, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, MPI_OP_NULL, root)) \
    return PMPI_##Mpi(TOPOCOLL_ARGS_TWO_BUFFERS_ROOT)
#define TC_PASS_ONE_BUFFER(COLL, Mpi)                                                              \
    if (tc_pass(COLL, comm, NULL, count, type, buf, count, type, MPI_OP_NULL, root))               \
    return PMPI_##Mpi(TOPOCOLL_ARGS_ONE_BUFFER)
#define TC_PASS_REDUCTION(COLL, Mpi)                                                               \
    if (tc_pass(COLL, comm, sendbuf, count, type, recvbuf, count, type, op, 0))                    \
    return PMPI_##Mpi(TOPOCOLL_ARGS_REDUCTION)
#define TC_PASS_REDUCTION_ROOT(COLL, Mpi)                                                          \
    if (tc_pass(COLL, comm, sendbuf, count, type, recvbuf, count, type, op, root))                 \
    return PMPI_##Mpi(TOPOCOLL_ARGS_REDUCTION_ROOT)
#define TC_PASS_VECTORS(COLL, Mpi)                                                                 \
    if (tc_pass_per_peer(COLL, comm, sendbuf, sendtype, recvbuf, recvtype, MPI_OP_NULL, 0, 0, NULL))   \
    return PMPI_##Mpi(TOPOCOLL_ARGS_VECTORS)
#define TC_PASS_RECV_VECTORS(COLL, Mpi)                                                            \
    if (tc_pass_per_peer(COLL, comm, sendbuf, sendtype, recvbuf, recvtype, MPI_OP_NULL, 0, sendcount, \
                         recvcounts))                                                              \
    return PMPI_##Mpi(TOPOCOLL_ARGS_RECV_VECTORS)
#define TC_PASS_RECV_VECTORS_ROOT(COLL, Mpi)                                                       \
    if (tc_pass_per_peer(COLL, comm, sendbuf, sendtype, recvbuf, recvtype, MPI_OP_NULL, root, sendcount, \
                         recvcounts))                                                              \
    return PMPI_##Mpi(TOPOCOLL_ARGS_RECV_VECTORS_ROOT)
#define TC_PASS_SEND_VECTORS_ROOT(COLL, Mpi)                                                       \
    if (tc_pass_per_peer(COLL, comm, sendbuf, sendtype, recvbuf, recvtype, MPI_OP_NULL, root, 0, NULL)) \
    return PMPI_##Mpi(TOPOCOLL_ARGS_SEND_VECTORS_ROOT)
#define TC_PASS_REDUCTION_COUNTS(COLL, Mpi)                                                        \
    if (tc_pass_per_peer(COLL, comm, sendbuf, type, recvbuf, type, op, 0, 0, NULL))                \
    return PMPI_##Mpi(TOPOCOLL_ARGS_REDUCTION_COUNTS)
#define TC_PASS_TYPE_VECTORS(COLL, Mpi)                                                            \
    if (tc_alltoallw_pass(comm, sendbuf, sendcounts, sendtypes, recvbuf, recvcounts, recvtypes))   \
    return PMPI_##Mpi(TOPOCOLL_ARGS_TYPE_VECTORS)
#define TC_PASS_NO_BUFFERS(COLL, Mpi)                                                              \
    if (tc_pass(COLL, comm, NULL, 0, MPI_BYTE, NULL, 0, MPI_BYTE, MPI_OP_NULL, 0))                 \
    return PMPI_##Mpi(TOPOCOLL_ARGS_NO_BUFFERS)

#endif
