/*
 * The verifier: runs an algorithm's generator for every rank of a topology in
 * one process, without MPI, and proves the schedules
 *   - well formed: regions inside their buffers, no hazard inside a round;
 *   - matched: the k-th send from A to B and the k-th receive at B from A
 *     carry the same number of bytes (in type-signature units);
 *   - deadlock-free under the executor's semantics, assuming rendezvous
 *     (a send completes only once its receive is posted);
 *   - correct: tracking which rank's element every buffer element holds,
 *     every rank ends with every block in place, and no uninitialised
 *     element is ever sent or copied into a result; with a non-commutative
 *     operation (proto->commutative 0) every reduction combines adjacent
 *     rank ranges in rank order; a prefix reduction's result (scan,
 *     exscan: the descriptor's prefix) combines exactly ranks 0..r (0..r-1);
 *   - a barrier (a collective whose descriptor says `synchronizes`): by
 *     vector clocks over the messages (zero-byte ones included) and the flag
 *     waits, no rank leaves before every rank has entered.
 */
#ifndef TC_VERIFY_H
#define TC_VERIFY_H

#include <stdint.h>
#include "algo/catalog.h"

typedef enum { TC_VERIFY_OK = 0, TC_VERIFY_DECLINED = 1, TC_VERIFY_FAIL = 2 } tc_verify_status;

typedef struct tc_verify_report {
    int64_t messages;      /* sends over all ranks */
    int64_t bytes;         /* signature units sent over all ranks */
    int64_t inter_node_messages;
    int64_t inter_node_bytes;
    int64_t node_max_out_messages;  /* max over nodes: messages leaving the node */
    int64_t node_max_out_bytes;     /* max over nodes: units leaving the node */
    int64_t node_max_in_bytes;      /* max over nodes: units entering the node */
    int max_rounds;        /* most rounds of any rank */
    char msg[512];         /* why it failed or declined */
    int interleavings;     /* tc_verify_nonblocking: executions checked */
} tc_verify_report;

/* proto gives coll, size (must equal t->size), counts, root, in_place; rank
 * is ignored.  Units: a SEND element is worth u_send signature units, a RECV
 * element u_recv (scount*u_send must equal rcount*u_recv for allgather). */
tc_verify_status tc_verify(const tc_algo *al, const tc_topo *t, const tc_args *proto,
                           int u_send, int u_recv, tc_verify_report *rep);

/* The same for a collective with per-peer counts (alltoallv): vall[r] is
 * rank r's counts and displacements (proto->v is ignored); the result is
 * checked part by part (rank j's part from r holds r's part for j); units
 * outside every part are not looked at. */
tc_verify_status tc_verify_vcounts(const tc_algo *al, const tc_topo *t, const tc_args *proto,
                                   const tc_vcounts *vall, int u_send, int u_recv,
                                   tc_verify_report *rep);

/* ---- several nonblocking operations at once --------------------------------
 *
 * tc_verify_nonblocking proves K operations outstanding together at every
 * rank, as the nonblocking executor runs them: each operation's schedule
 * round by round (post the round's messages, run its local ops, the round
 * completes when its messages have), each on its own tag (its messages
 * match only its own, in posting order); every rank starts them in the
 * same order, and a rank waiting for one operation advances all its
 * outstanding ones.  Sends complete only once matched (rendezvous).  Every
 * operation has its own buffers (SEND, RECV, TMP).  The operations run
 * under several interleavings: round-robin, seeded random ones, and
 * adversarial wait orders (each rank waits for its operations in another
 * permutation, some ranks waiting for each as soon as they start it, and
 * advances the others first).  Proven in each: no deadlock, every
 * operation's result as tc_verify proves it, no data of one operation in
 * another's buffers.  An operation whose entry declines its arguments, or
 * whose schedule at some rank cannot run nonblocking
 * (tc_sched_nonblocking_why), makes the whole set TC_VERIFY_DECLINED, the
 * reason in msg.
 */
typedef struct tc_verify_nbop {
    const tc_algo *al;
    tc_args proto;             /* as for tc_verify (coll is al's) */
    const tc_vcounts *vall;    /* per-peer collectives: every rank's counts, else NULL */
    int u_send, u_recv;
} tc_verify_nbop;

typedef struct tc_verify_nbopts {
    uint64_t seed;             /* of the random interleavings */
    int nrandom;               /* how many random interleavings (besides the others) */
    /* A model of a broken executor, for tests: every operation's messages
     * on one tag, so that messages of different operations between two
     * ranks match in posting order (MPI's rule) across operations. */
    int shared_tag;
    /* Another: every rank's operations share one scratch buffer (TMP), so
     * that one operation's scratch data is overwritten by another's. */
    int shared_tmp;
    /* Each operation has node-shared memory of its own (persistent
     * requests, the nonblocking calls' ring: src/api/nb_areas.h), so the
     * schedules with node-shared buffers and signals run too: a signal is
     * raised after its round's local ops and never waits, a wait completes
     * its round when the signal has come (tc_sched_area_why; the inline
     * lines, whose data this verifier does not move, decline). */
    int areas;
} tc_verify_nbopts;

tc_verify_status tc_verify_nonblocking(const tc_verify_nbop *ops, int k, const tc_topo *t,
                                       const tc_verify_nbopts *opts, tc_verify_report *rep);

/* Can al's schedules for these arguments run nonblocking at every rank
 * (areas: with node-shared memory of their own, as tc_verify_nbopts.areas)?
 * NULL when they can; else why not (tc_sched_nonblocking_why's or
 * tc_sched_area_why's reason, or "declined: ..." when the entry declines
 * the arguments). */
const char *tc_verify_nonblocking_why(const tc_algo *al, const tc_topo *t, const tc_args *proto,
                                      const tc_vcounts *vall, int u_send, int u_recv, int areas,
                                      tc_verify_report *rep);

#endif
