/*
 * What the one-node shared-memory rooted collectives (reduce "shm_tree",
 * "shm_tiled"; bcast "shm") share with each other and with the allreduce
 * families of Li, Hoefler, Snir, "NUMA-Aware Shared-Memory Collective
 * Communication for MPI" (2013): the copy-in slots, groups and barrier of
 * src/algo/allreduce/shm_common.h, plus the fan-in tree and the tiles.
 *
 * Calls on one communicator alternate between two halves of the node-shared
 * window (src/exec/shm.h), so a rank that starts call c+2 writes the half
 * that call c used.  That is safe when every rank's call c ends only after
 * every rank has started call c (then a rank in call c+2 has finished c+1,
 * so every rank has finished c).  An allreduce gets this for free (every
 * result depends on every input); a rooted collective does not (a leaf of a
 * reduce, a reader of a bcast could return at once), so each of these
 * schedules adds what it takes: a release from the rank holding the result
 * (reduce tree), the barrier after the copy-in (tiled), the readers' arrival
 * flags collected by the root before its last signal (bcast).
 */
#ifndef TC_ALGO_SHM_ROOTED_H
#define TC_ALGO_SHM_ROOTED_H

#include "algo/allreduce/shm_common.h"

/* Fan-in tree over list L (m ranks; the result ends in L[m-1]'s
 * accumulator) with this rank at index i; the open round holds this rank's
 * last local op.  In L read from its end, index j's children at level k are
 * j + t F^k (t = 1..F-1); a parent waits for its children's flags and
 * combines elements [off, off + acc.cnt) of each child's slot 0 (of
 * nslots) into its accumulator acc (the same elements of its own slot 0, or
 * of any region of this rank's holding its input), nearest child first
 * ("child op own": with L increasing, the child covers the ranks just
 * below), then raises its parent's flag.  Returns 1 when this rank is the
 * list's root. */
int tc_shm_fanin_tree(tc_sched *s, const tc_args *a, int nslots, const int *L, int m, int i, int F,
                      int64_t off, tc_region acc);

/* Tiles: ar_tile of algo/allreduce/shm_common.h. */


#endif
