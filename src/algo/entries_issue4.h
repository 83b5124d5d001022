/*
 * Catalog entries of issue 4 (seed 004): the Table 1 baselines (MPICH's
 * conventions) and the two-tier algorithms of section 5.  Listed in the
 * NULL-terminated tables of src/algo/<coll>/entries.c; the allgather ones in
 * catalog.c's allgather table.
 */
#ifndef TC_ALGO_ENTRIES_ISSUE4_H
#define TC_ALGO_ENTRIES_ISSUE4_H

#include "algo/catalog.h"

/* scatter */
extern const tc_algo tc_scatter_binomial;
extern const tc_algo tc_scatter_twotier, tc_scatter_twotier_sockets;
/* gather */
extern const tc_algo tc_gather_binomial;
extern const tc_algo tc_gather_twotier, tc_gather_twotier_sockets;
/* bcast */
extern const tc_algo tc_bcast_binomial, tc_bcast_scatter_allgather;
extern const tc_algo tc_bcast_twotier, tc_bcast_twotier_sockets;
extern const tc_algo tc_bcast_twotier_chunked, tc_bcast_twotier_chunked_sockets;
/* allgather */
extern const tc_algo tc_allgather_twotier, tc_allgather_twotier_sockets;
/* reduce */
extern const tc_algo tc_reduce_binomial, tc_reduce_rabenseifner;
extern const tc_algo tc_reduce_twotier, tc_reduce_twotier_sockets;
/* reduce_scatter_block */
extern const tc_algo tc_reduce_scatter_block_pairwise;
extern const tc_algo tc_reduce_scatter_block_twotier, tc_reduce_scatter_block_twotier_sockets;

/* tc_algo.accepts of reductions that combine out of rank order: declines a
 * non-commutative operation (src/blocks/commutative.c). */
int tc_accepts_commutative(const tc_args *a, const tc_topo *t, const char **why);

#endif
