/*
 * One operation's verifier state, for the verifier of several operations
 * outstanding at once (verify_nb.c): the schedules of every rank, checked
 * for shape, hazards and matching, with the input's labels in place; the
 * caller moves the labels (messages, local ops) in the order it chooses and
 * checks the result at the end.  Internal to src/verify.
 *
 * Every operation's element ids are offset by its own base, so that data
 * of one operation that reaches another (a message matched across
 * operations) shows as foreign data in the result.
 */
#ifndef TC_VERIFY_OP_H
#define TC_VERIFY_OP_H

#include "verify/verify.h"
#include "sched/sched.h"

typedef struct tc_vop tc_vop;

/* Element ids of operation k start at k * TC_VOP_SPAN. */
#define TC_VOP_SPAN ((int64_t)1 << 40)

/* Generates and checks every rank's schedule (as tc_verify does before it
 * executes them) and sets up the labels.  *out is set whatever the status
 * (NULL only when out of memory); close it.  Messages go to rep->msg; the
 * message counts of rep add up over the operations opened with it. */
tc_verify_status tc_vop_open(const tc_algo *al, const tc_topo *t, const tc_args *proto,
                             const tc_vcounts *vall, int u_send, int u_recv, int64_t elem_base,
                             tc_verify_report *rep, tc_vop **out);
void tc_vop_close(tc_vop *o);

/* Back to the input's labels (and no happens-before), for another run. */
void tc_vop_reset(tc_vop *o);

const tc_sched *tc_vop_sched(const tc_vop *o, int r);
/* Signature units of region g of rank r's buffers. */
int64_t tc_vop_units(const tc_vop *o, int r, tc_region g);
/* The op (its index in the peer's schedule) that matches op i of rank r
 * when the operation's messages match among themselves. */
int tc_vop_partner(const tc_vop *o, int r, int i);

/* Rank r enters a round of this operation (happens-before: what its
 * earlier rounds received is known from now on). */
void tc_vop_enter(tc_vop *o, int r);
/* The message from op si of rank sr (operation so) lands in op ri of rank
 * rr (operation ro): the sender's labels move; with so == ro the receiver's
 * next round is ordered after the send. */
tc_verify_status tc_vop_message(tc_vop *so, int sr, int si, tc_vop *ro, int rr, int ri);
/* Op i of rank r, a SIGNAL, is raised: what rank r did so far happens
 * before the matching WAIT's later rounds (a snapshot of its clock now; the
 * signal may be delivered later, when the waiter posts its WAIT). */
tc_verify_status tc_vop_signal(tc_vop *o, int r, int i);
/* Op i of rank r, a COPY or REDUCE, runs. */
tc_verify_status tc_vop_local(tc_vop *o, int r, int i);
/* A model of a broken executor, for tests: at every rank the k operations
 * use one scratch buffer (ops[0]'s TMP labels, grown to the largest). */
tc_verify_status tc_vop_share_tmp(tc_vop *const *ops, int k);

/* After every rank's last round: no foreign data in any result buffer,
 * the result (and for a barrier, its synchronisation) as tc_verify checks. */
tc_verify_status tc_vop_finish(tc_vop *o);

#endif
