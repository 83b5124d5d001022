/* What the entries' cost functions (tc_algo.cost, src/algo/catalog.h) share:
 * a step walked on the call's topology, and the family parameters by name.
 *
 * A step: every rank r sends blocks(r) x n bytes to pair(r) (or nothing).
 * On the critical path it counts one message at the farthest level any of
 * its pairs crosses, of the largest size sent, and a network step's bytes
 * count once per rank of the busiest node that sends out of it in the step
 * (the ranks of a node share its link); every rank's bytes count in the
 * step's level totals.  The cost functions sit next to their algorithms
 * (the algorithm's own file, or its family's), so that a new entry brings
 * its cost with it and selection needs no edit to consider it. */
#ifndef TC_ALGO_COST_WALK_H
#define TC_ALGO_COST_WALK_H

#include "algo/catalog.h"

/* The rank r sends to in the step of distance d (-1: none); *blocks: its
 * message in units of n (set only when a rank is returned). */
typedef int (*tc_cw_pair)(const void *ctx, int r, int p, int d, double *blocks);

/* Walks one step (see above). */
void tc_cw_step(tc_cost *c, const tc_topo *t, tc_cw_pair pair, const void *ctx, int d, double n);

/* The level between ranks i and j, and the level inside a node (the node's
 * when it has several sockets). */
int tc_cw_level(const tc_topo *t, int i, int j);
int tc_cw_intra_level(const tc_topo *t);
/* The largest number of ranks on one node; sockets per node (at least 1). */
int tc_cw_max_ppn(const tc_topo *t);
int tc_cw_sockets_per_node(const tc_topo *t);
int tc_cw_ceil_log2(int p);

/* msgs messages of bytes each on the critical path at level l. */
static inline void tc_cw_path(tc_cost *c, int l, double msgs, double bytes)
{
    c->msgs[l] += msgs;
    c->bytes[l] += msgs * bytes;
}

/* The value name of family parameter key of variant al ("" when al has no
 * such parameter). */
const char *tc_cw_param(const tc_algo *al, const char *key);

/* Pairs: r + d (mod p); r ^ d (when < p) (ctx unused).  Binomial trees
 * from the root *ctx (rank 0 when ctx is NULL), in relative ranks v: down
 * the tree the ranks holding data (multiples of 2d) send to v + d one block
 * (tc_cw_tree) or the subtree of v + d (tc_cw_subtree: min(d, p - v - d)
 * blocks); up the tree v (v mod 2d = d) sends to v - d one block (tc_cw_up)
 * or its subtree (tc_cw_subtree_up: min(d, p - v) blocks). */
int tc_cw_shift(const void *ctx, int r, int p, int d, double *blocks);
int tc_cw_xor(const void *ctx, int r, int p, int d, double *blocks);
int tc_cw_tree(const void *ctx, int r, int p, int d, double *blocks);
int tc_cw_up(const void *ctx, int r, int p, int d, double *blocks);
int tc_cw_subtree_up(const void *ctx, int r, int p, int d, double *blocks);
int tc_cw_subtree(const void *ctx, int r, int p, int d, double *blocks);

/* The fold of recursive exchanges over a non-power-of-two p as the
 * reduction entries do it (src/blocks/allreduce_members.c): q the largest
 * power of two <= p, rem = p - q; among ranks < 2 rem the odd ones hand
 * their data to the even one below and drop out; survivor v (new rank) is
 * old rank v < rem ? 2v : v + rem.  tc_cw_fold_xor: the survivors' step
 * with new rank XOR d (one block); tc_cw_fold_in / _out: odd to even /
 * even to odd among ranks < 2 rem (one block). */
int tc_cw_fold_xor(const void *ctx, int r, int p, int d, double *blocks);
int tc_cw_fold_in(const void *ctx, int r, int p, int d, double *blocks);
int tc_cw_fold_out(const void *ctx, int r, int p, int d, double *blocks);
int tc_cw_pow2_floor(int p);
/* The fold's new rank of old rank r (-1: dropped out), and the old rank of
 * new rank v. */
int tc_cw_fold_new(int p, int r);
int tc_cw_fold_old(int p, int v);
/* The reduce-scatter half of Rabenseifner's algorithm as the reduction
 * entries run it: the fold in (n, reduced) where p is not a power of two,
 * then recursive halving among the q survivors (mask d: n/2d sent and
 * reduced).  Returns q. */
int tc_cw_fold_halving(tc_cost *c, const tc_topo *t, double n);
/* A cost function (tc_algo.cost): p-1 steps from the root to root+d of n
 * bytes each (d = 1..p-1), a linear bcast's or scatter's sends one after
 * another (a root out of range: rank 0). */
int tc_cw_cost_from_root(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c);
/* p-1 steps to rank+d of n bytes each (d = 1..p-1): the pairwise and linear
 * exchanges of all-to-all; -1 past 2048 ranks (O(p^2) to price), else 0. */
int tc_cw_all_distances(tc_cost *c, const tc_topo *t, double n);

#endif
