/*
 * Mirror image of a schedule: the gather algorithms are their scatter's
 * run backwards (Jain, Lau, Kale, "Collectives on Two-tier Direct Networks"
 * (2012), section 5.1: "Gather can be performed using this
 * algorithm in the reverse order"; MPICH's binomial gather is the reverse of
 * its binomial scatter).
 *
 * Rounds come in reverse order; in each round SEND becomes RECV and back
 * (same peer, same order, so k-th messages still pair), COPY a -> b becomes
 * b -> a (local operations in reverse order), and the buffers SEND and RECV
 * trade names (TMP stays TMP; tmp_like trades too).  A scatter schedule for
 * the arguments (scount, rcount) = (gather's rcount, gather's scount)
 * therefore mirrors into the gather schedule.
 *
 * Valid when, in every round of the source, the sent regions are disjoint
 * from each other and from the regions local operations read (true of
 * scatters: every block goes one way); REDUCE, SIGNAL and WAIT are refused.
 */
#ifndef TC_ALGO_MIRROR_H
#define TC_ALGO_MIRROR_H

#include "coll/coll.h"
#include "sched/sched.h"
#include "topo/topo.h"

/* Appends the mirror image of src (closed here) to dst.  Returns 0, EINVAL
 * for an operation that has no mirror, or src's allocation error. */
int tc_sched_mirror(tc_sched *dst, tc_sched *src);

/* The gather schedule for a: scatter_generate's schedule for the same root
 * with scount and rcount swapped, mirrored into s.  Returns 0 or an error. */
int tc_gather_by_mirror(tc_sched *s, const tc_args *a, const tc_topo *t,
                        int (*scatter_generate)(tc_sched *, const tc_args *, const tc_topo *));

#endif
