/*
 * What the one-node shared-memory rooted collectives (reduce "shm_tree",
 * "shm_tiled"; bcast "shm") share with each other and with the allreduce
 * families of Li, Hoefler, Snir, "NUMA-Aware Shared-Memory Collective
 * Communication for MPI" (2013): the copy-in slots, groups and barrier of
 * src/algo/shm_common.h, plus the fan-in tree, its socket groups,
 * the one-node broadcast and the tiles (also the node phases of the
 * multi-node reduce and bcast "hierarchical").
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

#include "algo/shm_common.h"

/* Fan-in tree over list L (m ranks; the result ends in L[m-1]'s
 * accumulator) with this rank at index i; the open round holds this rank's
 * last local op.  In L read from its end, index j's children at level k are
 * j + t F^k (t = 1..F-1); a parent waits for its children's flags and
 * combines elements [off, off + acc.cnt) of each child's slot 0 (of
 * nslots; rank r's slot index is slot_of[r], or r when slot_of is NULL)
 * into its accumulator acc (the same elements of its own slot 0, or of any
 * region of this rank's holding its input), nearest child first ("child op
 * own": with L increasing, the child covers the ranks just below), then
 * raises its parent's flag.  Returns 1 when this rank is the list's root. */
int tc_shm_fanin_tree(tc_sched *s, const tc_args *a, int nslots, const int *slot_of, const int *L, int m, int i,
                      int F, int64_t off, tc_region acc);

/* The groups of one node's socket-aware reduce tree: CSR lists in tree
 * order.  by_socket: one group per socket of the node, the socket of `last`
 * last and `last` last in it; otherwise one group of the node's ranks in
 * rank order (`last`, when >= 0, moved to the end).  The result of the
 * tree ends at the last rank of the last group. */
typedef struct tc_shm_tree {
    int ng;
    int *start;   /* [ng + 1] */
    int *ranks;   /* [node size] */
} tc_shm_tree;

/* Returns 0 or ENOMEM (free with tc_shm_tree_free either way). */
int tc_shm_tree_make(tc_shm_tree *g, const tc_topo *t, int node, int last, int by_socket);
void tc_shm_tree_free(tc_shm_tree *g);

/* The tree reduction over g's groups (a fan-in F tree inside each group,
 * then the same tree across the groups' last ranks) of elements
 * [off, off + acc.cnt) of the slots (one slot per rank, index slot_of[r],
 * or r when slot_of is NULL) into acc; returns the rank holding the
 * result (*err: 0 or ENOMEM). */
int tc_shm_tree_reduce(tc_sched *s, const tc_args *a, const tc_shm_tree *g, const int *slot_of, int F,
                       int64_t off, tc_region acc, int *err);

/* The one-node broadcast (bcast "shm", Li, Hoefler, Snir 2013, section
 * 3.3) of the n elements of RECV among the ranks of me's node, from src
 * (a rank of that node), in chunks of C elements (0: one chunk); two: a
 * reader per socket relays into its socket (two stages).  Uses the node's
 * SHM from offset 0 (n elements, or n per socket of the node with two);
 * arrival flags as bcast "shm" (src/algo/bcast/shm.c).  Closes its rounds;
 * emits nothing for a node of one rank or n = 0. */
void tc_shm_bcast_node(tc_sched *s, const tc_topo *t, int me, int src, int two, int64_t n, int64_t C);

/* Tiles: tc_shm_tile of algo/shm_common.h. */


#endif
