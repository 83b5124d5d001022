/*
 * alltoallw "linear": every receive and send posted at once (one round), as
 * MPICH's and Open MPI's basic linear alltoallw, each part with its own
 * datatype.
 *
 * Units: an alltoallw schedule counts in BLOCKS: element j of SEND is the
 *   part for rank j (sendcounts[j] elements of sendtypes[j] at byte sdispls[j]),
 *   element j of RECV the part from rank j; a part of zero bytes is a block
 *   of zero elements (src/api/alltoallw.c maps blocks to (address, count,
 *   datatype) and runs the schedule; the verifier reads it as alltoallv's).
 * Steps: receives from r-1, r-2, ... and sends to r+1, r+2, ... (mod p) in
 *   one round; the own part is copied in it.  Zero parts send nothing.
 *   With MPI_IN_PLACE the receive blocks are copied to scratch first.
 * Cost: alpha + the sum of the parts, beta (all in flight at once).
 * Memory: none; RECV's span of scratch in place.
 * Restrictions: none.
 * Source: Träff, Rougier, "MPI Collectives and Datatypes for Hierarchical
 *   All-to-all Communication" (2014), section 3 (the baselines).
 */
#include "algo/alltoallv/common.h"

/* The generator and cost function are alltoallv's (src/algo/alltoallv/linear.c). */
const tc_algo tc_alltoallw_linear = {
    .cost = tc_av_linear_cost,
    .coll = TOPOCOLL_ALLTOALLW, .name = "linear",
    .desc = "linear with per-peer datatypes: all p-1 receives and sends posted at once",
    .req = TC_REQ_NONE, .generate = tc_av_linear_generate, .source = __FILE__,
};
