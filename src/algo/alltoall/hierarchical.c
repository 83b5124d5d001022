/*
 * alltoall family "hierarchical:leaders=1|2|4,intra=p2p|shm" (aliases
 * "h<L>_<intra>", e.g. h1_p2p, h2_shm): the hierarchical alltoall of
 * Träff, Rougier, "MPI Collectives and Datatypes for Hierarchical
 * All-to-all Communication" (2014), section 2, as a schedule, with k
 * leaders per node (each handling a share of the destination nodes) and
 * the node-local phases over messages or node-shared memory: the
 * hierarchical all-to-all generator (src/blocks/hier_a2a.c, which holds the
 * steps) on equal parts of one receive block each.
 *
 * Steps: node-local gather of every rank's blocks to the leaders, one
 *   bundle per pair of nodes exchanged among the leaders, node-local
 *   scatter (intra=shm: every rank writes its blocks straight into the
 *   bundles in node-shared memory and reads its row of them back).
 * Cost (G nodes, n ranks per node, b bytes per block): per leader with k=1:
 *   (n-1) alpha + (n-1) p b beta intra-node, (G-1) alpha + (p-n) n b beta
 *   inter-node, n p b copied twice; members: 2 alpha + 2 p b beta.  With
 *   intra=shm a leader copies only its own p blocks in and out, and the
 *   intra-node alphas are flag writes and reads.  Inter-node: G (G-1)
 *   messages in all instead of p (p - n).
 * Memory: p2p: p blocks of scratch per rank, plus about 3 n R_l at leader l
 *   (R_l: the ranks of its nodes, about p/k); shm: about 2 n p blocks
 *   node-shared and no scratch.
 * Restrictions: intra=shm needs the ranks of a node to share memory
 *   (TC_REQ_NODE_SHM).  MPI_IN_PLACE: every rank reads its whole input
 *   first, before anything writes its receive buffer.
 * Source: Träff, Rougier 2014, sections 2.1-2.3; multi-leader after
 *   Kandalla, Subramoni, Santhanaraman, Koop, Panda 2009.
 */
#include <math.h>
#include <stdio.h>

#include "algo/cost_walk.h"

#include "algo/alltoall/common.h"
#include "blocks/hier_a2a.h"

enum { P_LEADERS, P_INTRA };
enum { I_P2P, I_SHM };

static const char *const leader_values[] = { "1", "2", "4", NULL };
static const int leader_count[] = { 1, 2, 4 };
static const char *const intra_values[] = { "p2p", "shm", NULL };

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    const int *v = a->param;
    tc_a2a_parts parts = { .unit = a->rcount,
                           .in = { TC_BUF_SEND, NULL, NULL, a->scount },
                           .out = { TC_BUF_RECV, NULL, NULL, a->rcount } };
    return tc_a2a_hier_generate(s, a, t, &parts, leader_count[v ? v[P_LEADERS] : 0], v && v[P_INTRA] == I_SHM);
}

/* ---- cost ---------------------------------------------------------------------- */

/* Cost function (several nodes; G nodes of at most m ranks, k leaders per
 * node, b bytes per block, p ranks; Träff, Rougier 2014): intra=p2p the
 * gather of a rank's p blocks to the leaders and the scatter back, m-1
 * messages of p b / k each way at a leader, copied in and out (node
 * memory); intra=shm a copy of the own p blocks in and of the row out, two
 * flags; the leaders' exchange: ceil((G-1)/k) bundles per leader, the
 * node's (G-1) m m b bytes out over its one link.  Level totals: over the network
 * exact (every block between two nodes crosses once); inside the nodes
 * (p2p) an estimate, 2 (m_i - 1) p b per node. */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double b, tc_cost *c)
{
    (void)a;
    const int *v = al->param;
    int G = t->nnodes, m = tc_cw_max_ppn(t), p = t->size, il = tc_cw_intra_level(t);
    if (G < 2) return -1;
    double k = leader_count[v[P_LEADERS]] < m ? leader_count[v[P_LEADERS]] : m;
    if (v[P_INTRA] == I_P2P) {
        tc_cw_path(c, il, 2 * (m - 1), p * b / k);
        c->mem += 2.0 * m * p * b / k;
        for (int i = 0; i < G; i++) c->total[il] += 2.0 * (t->node_start[i + 1] - t->node_start[i] - 1) * p * b;
    } else {
        c->mem += 2.0 * p * b;
        tc_cw_path(c, il, 2, 0);
    }
    double per = ceil((G - 1) / k);
    c->msgs[TC_LVL_NET] += per;
    c->bytes[TC_LVL_NET] += (G - 1.0) * m * m * b;   /* what leaves a node, on its one link */
    double sq = 0;
    for (int i = 0; i < G; i++) {
        double mi = t->node_start[i + 1] - t->node_start[i];
        sq += mi * mi;
    }
    c->total[TC_LVL_NET] += ((double)p * p - sq) * b;
    c->total_approx = 1;
    return 0;
}

/* ---- the family's catalog row ---------------------------------------------- */

static const tc_param_def params[] = {
    { "leaders", leader_values, 0 },
    { "intra", intra_values, I_P2P },
};

static void describe(const tc_family *f, const int *v, tc_instance_text *out)
{
    (void)f;
    snprintf(out->alias, sizeof out->alias, "h%s_%s", leader_values[v[P_LEADERS]], intra_values[v[P_INTRA]]);
    snprintf(out->desc, sizeof out->desc,
             "hierarchical, %s leader%s per node: node-local gather, leaders exchange node "
             "bundles, node-local scatter (%s)", leader_values[v[P_LEADERS]],
             v[P_LEADERS] ? "s" : "", v[P_INTRA] == I_SHM ? "node-shared memory" : "messages");
}

static unsigned req_of(const int *v) { return v[P_INTRA] == I_SHM ? TC_REQ_NODE_SHM : TC_REQ_NONE; }

const tc_family tc_alltoall_hierarchical = {
    .coll = TOPOCOLL_ALLTOALL, .name = "hierarchical",
    .summary = "hierarchical alltoall (Träff, Rougier 2014) with k leaders per node: "
               "node-local gather, exchange of node bundles among leaders, node-local scatter",
    .source = __FILE__, .nparams = 2, .params = params, .rule = "",
    .describe = describe, .req = TC_REQ_NONE, .req_of = req_of, .generate = generate,
    .cost = cost,
};
