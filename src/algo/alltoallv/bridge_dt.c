/*
 * alltoallv "bridge_dt": the zero-copy hierarchical irregular all-to-all of
 * Träff, Rougier, "MPI Collectives and Datatypes for Hierarchical All-to-all
 * Communication" (2014), sections 2.3 and 2.4: derived datatypes instead of
 * pack and unpack copies, every rank's parts read in node-sorted order from
 * its own buffer and written to their displacements by the MPI library.
 * As a schedule it is the schedule of "bridge" (src/algo/alltoallv/
 * bridge_steps.c): the executor's member-set rounds already move every part
 * through a struct datatype per peer (src/exec/subcoll.c), the paper's
 * indexed and hindexed types.  The name stays for tuning files and
 * environment settings.
 * Cost, memory: as "bridge" (buffers whose datatypes are not contiguous are
 *   staged in bytes by src/api/node_counts.c, as for every per-peer-count
 *   schedule).
 * Restrictions: as "bridge".
 * Source: Träff, Rougier 2014, sections 2.2-2.4.
 */
#include "algo/alltoallv/bridge_steps.h"

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t) { return tc_bridge_alltoallv(s, a, t); }

const tc_algo tc_alltoallv_bridge_dt = {
    .coll = TOPOCOLL_ALLTOALLV, .name = "bridge_dt",
    .desc = "the schedule of \"bridge\" (gather -> exchange over the bridge -> scatter): its member-set "
            "rounds already move every part through derived datatypes, zero-copy (Träff, Rougier 2014)",
    .req = TC_REQ_NODE_COUNTS, .generate = generate, .source = __FILE__,
};
