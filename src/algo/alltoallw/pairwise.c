/*
 * alltoallw "pairwise": the p-round send-receive of Träff, Rougier, "MPI
 * Collectives and Datatypes for Hierarchical All-to-all Communication"
 * (2014), section 3, each part with its own datatype.
 *
 * Units: blocks, one per peer (see linear.c).
 * Steps: round k (1 <= k < p): rank r sends its part for (r+k) mod p and
 *   receives the part of (r-k) mod p; the own part is copied in round 1.
 *   Zero parts send nothing (both sides know the size).  With MPI_IN_PLACE
 *   the receive blocks are copied to scratch first.
 * Cost: (p-1) alpha + the largest part per round, beta.
 * Memory: none; RECV's span of scratch in place.
 * Restrictions: none.
 * Source: Träff, Rougier 2014, section 3; MPICH's pairwise alltoallw.
 */
#include "algo/alltoallv/common.h"

/* The generator and cost function are alltoallv's (src/algo/alltoallv/pairwise.c). */
const tc_algo tc_alltoallw_pairwise = {
    .cost = tc_av_pairwise_cost,
    .coll = TOPOCOLL_ALLTOALLW, .name = "pairwise",
    .desc = "p-round send-receive with per-peer datatypes: round k sends to r+k, receives from r-k",
    .req = TC_REQ_NONE, .generate = tc_av_pairwise_generate, .source = __FILE__,
};
