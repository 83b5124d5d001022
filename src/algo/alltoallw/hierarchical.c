/*
 * alltoallw family "hierarchical:leaders=1|2|4,intra=p2p|shm" (aliases
 * "h1", "h2", "h4" for messages, "h1_shm", "h2_shm", "h4_shm" for node-
 * shared memory): the hierarchical irregular all-to-all of Träff, Rougier,
 * "MPI Collectives and Datatypes for Hierarchical All-to-all Communication"
 * (2014), section 2.4, generalised to per-peer datatypes by packing: every
 * part becomes bytes, and the alltoallv family's schedule (the generator of
 * src/blocks/hier_a2a.c through src/algo/alltoallv/hierarchical.c, the same
 * parameters in the same order) runs on those bytes.
 *
 * Why bytes.  The other alltoallw entries count in blocks, one per peer,
 * each posted with its own datatype (src/api/alltoallw.c).  A hierarchical
 * schedule cannot: a leader moves bundles of many ranks' parts as one
 * message and copies parts between staging rows and bundles, so its
 * regions span several parts of unrelated datatypes.  What every datatype
 * has in common is its signature's bytes, which both ends of a pair agree
 * on (MPI's matching signatures), so the parts are packed, their byte
 * counts are the alltoallv counts, and the node's count rows are exchanged
 * in bytes as for alltoallv (src/api/node_counts.c).
 *
 * Steps (the MPI layer, src/api/alltoallw_hier.c, then the schedule):
 *   0. bytes per part (count x type size; a zero count or a zero-size
 *      datatype is an empty part); a side whose parts with bytes are each
 *      one run of bytes (contiguous where they lie, any lower bound) is
 *      bound as bytes in the user's buffer, any other side is packed: its
 *      parts one after another in a staging buffer (MPI_Pack of count j of
 *      type j at byte displacement j).  In place the input is the receive
 *      side, packed (or bound) before anything is written.
 *   1. the node's count rows in bytes: one node-local allgather of 2p
 *      counts per rank;
 *   2.-5. the hierarchical alltoallv schedule in bytes (node-local gather to
 *      the leaders, one bundle per pair of nodes among the leaders,
 *      node-local scatter; see src/algo/alltoallv/hierarchical.c);
 *   6. a staged receive side unpacked: part j into (recvbuf + rdispls[j],
 *      recvcounts[j], recvtypes[j]).
 * Cost: the alltoallv family's (G (G-1) inter-node messages instead of
 *   p (p-n), the count exchange), plus one pack of the send parts and one
 *   unpack of the receive parts, p m bytes each, for a side with a
 *   non-contiguous part (none for contiguous sides).
 * Memory: the alltoallv family's, plus a staging buffer of the side's bytes
 *   for each packed side (in place: one for both).
 * Restrictions: blocking only (the count exchange is a blocking step, and
 *   alltoallw's nonblocking calls are the MPI library's); intra=shm needs
 *   the ranks of a node to share memory (TC_REQ_NODE_SHM).
 * Verification: the verifier reads alltoallw schedules as alltoallv's with
 *   blocks of 0 or 1 elements, and this generator verifies in that form
 *   (tests/verify/verify_alltoallw.c sweeps it); what runs is the byte form,
 *   the alltoallv schedule on byte counts, which the alltoallv sweep covers
 *   with parts of any size (tests/verify/verify_alltoallv.c).
 * Source: Träff, Rougier 2014, sections 2.1-2.4 (the hierarchical
 *   irregular all-to-all; datatypes for the parts); multi-leader after
 *   Kandalla, Subramoni, Santhanaraman, Koop, Panda, "Designing Multi-Leader-
 *   Based Allgather Algorithms for Multi-Core Clusters" (2009).
 */
#include <stdio.h>

#include "algo/alltoallv/common.h"

static void describe(const tc_family *f, const int *v, tc_instance_text *out)
{
    (void)f;
    tc_av_hier_describe(v, " with per-peer datatypes packed to bytes", out);
}

/* The generator is alltoallv's (src/algo/alltoallv/hierarchical.c); the MPI
 * layer runs it in bytes (TC_REQ_NODE_COUNTS: src/api/alltoallw_hier.c). */
const tc_family tc_alltoallw_hierarchical = {
    .coll = TOPOCOLL_ALLTOALLW, .name = "hierarchical",
    .summary = "hierarchical alltoallw (Träff, Rougier 2014, section 2.4) where the datatypes allow packing: "
               "every part packed to bytes (contiguous sides in place), then the hierarchical alltoallv in "
               "bytes with k leaders per node (node counts first; messages or node-shared memory)",
    .source = __FILE__, .nparams = TC_AV_HIER_NPARAMS, .params = tc_av_hier_params, .rule = "",
    .describe = describe, .req = TC_REQ_NODE_COUNTS, .req_of = tc_av_hier_req_of,
    .generate = tc_av_hier_generate,
};
