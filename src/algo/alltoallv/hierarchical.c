/*
 * alltoallv family "hierarchical:leaders=1|2|4,intra=p2p|shm" (aliases
 * "h1", "h2", "h4" for messages, "h1_shm", "h2_shm", "h4_shm" for node-
 * shared memory): the hierarchical irregular all-to-all of Träff, Rougier,
 * "MPI Collectives and Datatypes for Hierarchical All-to-all Communication"
 * (2014), section 2.4, as a schedule: the hierarchical all-to-all generator
 * (src/blocks/hier_a2a.c, which holds the steps; the alltoall family runs
 * it on equal blocks) on parts of a size each.
 *
 * Counts.  Each rank knows only its own counts, but a leader must lay out
 * its node's parts.  The consumer gathers them node-locally before the
 * schedule is made (TC_REQ_NODE_COUNTS; the paper's "counts gathered node-
 * locally first"): tc_args.node_sc / node_rc are the send and receive
 * rows of every member of my node, in units of scratch (TMP, the receive
 * type).  The MPI layer exchanges them in bytes and runs the schedule on
 * byte-bound buffers (src/api/node_counts.c); the verifier fills them from
 * its count matrix.  Without per-peer counts (tc_args.v NULL: the
 * simulator) every part is rcount.  With intra=shm every rank lays out the
 * whole node's shared area from the same rows, so the ranks of a node agree
 * on its size and grow it together.
 *
 * Steps: node-local gather of every rank's parts to the leaders, one bundle
 *   per pair of nodes (of unequal sizes) exchanged among the leaders,
 *   node-local scatter; parts inside a node are copied at most what both
 *   sides count (counts that do not match inside a node stay in bounds).
 * Cost (G nodes, n ranks per node, k = 1, m the mean part): the count
 *   exchange (one node-local allgather of 2p counts per rank) plus, per
 *   leader, (n-1) alpha + n p m beta intra-node twice (shm: n-1 signals and
 *   waits, the members' copies in node-shared memory instead), (G-1) alpha +
 *   (p-n) n m beta inter-node; members: 2 alpha + 2 p m beta (shm: 2 copies
 *   of p m, one signal and one wait per leader).  Inter-node G (G-1)
 *   messages instead of p (p-n).
 * Memory: the node's counts (2 n p); p2p: the own parts once, leader l also
 *   its share of the node's parts three times (staging, bundles in, bundles
 *   out and then chunks); shm: the node's outgoing and incoming bundles node-shared,
 *   no scratch.
 * Restrictions: per-peer counts need the node's count rows
 *   (TC_REQ_NODE_COUNTS: the generator fails without them); intra=shm needs
 *   the ranks of a node to share memory (TC_REQ_NODE_SHM).  MPI_IN_PLACE:
 *   every part is read first, before anything writes the receive buffer.
 * Source: Träff, Rougier 2014, sections 2.1-2.4; multi-leader after
 *   Kandalla, Subramoni, Santhanaraman, Koop, Panda, "Designing Multi-Leader-
 *   Based Allgather Algorithms for Multi-Core Clusters" (2009).
 */
#include <stdio.h>

#include "algo/alltoallv/common.h"
#include "blocks/hier_a2a.h"

enum { P_LEADERS, P_INTRA };
enum { I_P2P, I_SHM };

static const char *const leader_values[] = { "1", "2", "4", NULL };
static const int leader_count[] = { 1, 2, 4 };
static const char *const intra_values[] = { "p2p", "shm", NULL };

/* Shared with alltoallw's family of the same parameters, in the same order
 * (src/algo/alltoallw/hierarchical.c). */
int tc_av_hier_generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    const int *v = a->param;
    const tc_vcounts *c = a->v;
    if (c && (!a->node_sc || !a->node_rc)) return 1;   /* TC_REQ_NODE_COUNTS not met */
    /* without per-peer counts (the simulator) every part is rcount (scount) */
    tc_a2a_side recv = { TC_BUF_RECV, c ? c->rcounts : NULL, c ? c->rdispls : NULL, a->rcount };
    tc_a2a_side send = { TC_BUF_SEND, c ? c->scounts : NULL, c ? c->sdispls : NULL, a->scount };
    /* in place: the input is RECV, read before anything writes it */
    tc_a2a_parts parts = { c ? a->node_sc : NULL, c ? a->node_rc : NULL, a->rcount, a->in_place ? recv : send, recv };
    return tc_a2a_hier_generate(s, a, t, &parts, leader_count[v ? v[P_LEADERS] : 0], v && v[P_INTRA] == I_SHM);
}

/* ---- the family's catalog row ---------------------------------------------- */

/* The parameters, names and requirements alltoallw's family shares. */
const tc_param_def tc_av_hier_params[TC_AV_HIER_NPARAMS] = {
    { "leaders", leader_values, 0 },
    { "intra", intra_values, I_P2P },
};

void tc_av_hier_describe(const int *v, const char *what, tc_instance_text *out)
{
    snprintf(out->alias, sizeof out->alias, "h%s%s", leader_values[v[P_LEADERS]],
             v[P_INTRA] == I_SHM ? "_shm" : "");
    snprintf(out->desc, sizeof out->desc,
             "hierarchical%s, %s leader%s per node: counts gathered node-locally, node-local gather, "
             "leaders exchange node bundles of unequal sizes, node-local scatter (%s)",
             what, leader_values[v[P_LEADERS]], v[P_LEADERS] ? "s" : "",
             v[P_INTRA] == I_SHM ? "node-shared memory" : "messages");
}

unsigned tc_av_hier_req_of(const int *v) { return v[P_INTRA] == I_SHM ? TC_REQ_NODE_SHM : TC_REQ_NONE; }

static void describe(const tc_family *f, const int *v, tc_instance_text *out)
{
    (void)f;
    tc_av_hier_describe(v, "", out);
}

const tc_family tc_alltoallv_hierarchical = {
    .coll = TOPOCOLL_ALLTOALLV, .name = "hierarchical",
    .summary = "hierarchical alltoallv (Träff, Rougier 2014, section 2.4) with k leaders per node: "
               "the node's counts gathered first, then node-local gather, exchange of node bundles "
               "among leaders, node-local scatter (messages or node-shared memory)",
    .source = __FILE__, .nparams = TC_AV_HIER_NPARAMS, .params = tc_av_hier_params, .rule = "",
    .describe = describe, .req = TC_REQ_NODE_COUNTS, .req_of = tc_av_hier_req_of,
    .generate = tc_av_hier_generate,
};
