/*
 * allreduce family "hierarchical:leaders=K,node=N,x=X,copy=C" (several
 * nodes): a
 * node-level reduction, an allreduce among the nodes' leaders, a node-level
 * broadcast; with K leaders per node each carrying 1/K of the vector across
 * the nodes (the multi-leader scheme of Kandalla, Subramoni,
 * Santhanaraman, Koop, Panda, "Designing Multi-Leader-Based Allgather
 * Algorithms for Multi-Core Clusters" (2009), applied to allreduce; the
 * node-level shared-memory phases follow Li, Hoefler, Snir, "NUMA-Aware
 * Shared-Memory Collective Communication for MPI" (2013)).
 *
 * Steps (node of m ranks M[0..m-1], increasing; the vector in K segments;
 *   segment j's leader on the node is M[j m / K], so a node of fewer than K
 *   ranks has ranks leading several segments):
 *   1. node=shm: every rank copies its vector into its slot of the node's
 *      shared buffer; a node barrier (flags); each leader reduces its
 *      segments over the node's slots in rank order into the last rank's
 *      slot; with x=rsa the part of a segment that the leader's first
 *      exchange round keeps is reduced during that round, beside its
 *      messages (a node of one rank: its vector goes to its receive buffer
 *      and it uses no shared memory).  node=p2p: every rank sends each
 *      segment to its leader, which combines them.  node=shm,copy=cma
 *      (single copy, no window): every rank raises the flag of each other
 *      leader of its node (its buffers are published before round 0); a
 *      leader waits for the node's other ranks' flags, then reduces each
 *      of its segments chunk by chunk (at most TC_SHM_CHUNK elements):
 *      acc = x_{m-1}; for i = m-2 down to 0, acc = x_i op acc, a peer's
 *      x_i read from its input (SEND; RECV in place) with process_vm_readv
 *      into a scratch chunk; acc is the leader's receive buffer, or (in
 *      place, unless the leader is M[m-1]) a scratch chunk copied there at
 *      the end.
 *   2. For each segment (in order), its leaders (one per node, node order)
 *      allreduce it where it is: node=shm in the last rank's slot, sent
 *      from and received into the shared buffer, so that the result is
 *      where the node's ranks read it; otherwise (copy=cma too) in their
 *      receive buffers.
 *      x=rd recursive doubling, x=rsa reduce-scatter + allgather
 *      (Rabenseifner), x=ring; x=ring32k the ring with its messages in
 *      pieces of at most 32 KiB, all posted in the step's round: under the
 *      TCP transport's eager limit no piece waits for the receiver's
 *      answer, which on a link loaded both ways queues behind the data.
 *   3. node=shm: a node barrier; every rank (leaders too) copies the whole
 *      result from the last rank's slot, all at once.
 *      node=p2p: each leader sends its segments to the node's other ranks.
 *      copy=cma: each leader raises the flag of every other rank of its
 *      node; every rank waits for the other leaders' flags, reads each
 *      segment it does not lead from its leader's receive buffer into its
 *      own and raises those leaders' flags; a leader returns only after the
 *      flags of the node's other ranks (its receive buffer is read until
 *      then).  A rank's input is read in step 1 only, before the flags of
 *      step 3 that it waits for before it writes its receive buffer.
 *   Each element is combined once on a node and the leaders' exchange gives
 *   every leader the same bits (src/blocks/allreduce_members.h), so all ranks hold bitwise-
 *   identical results.
 * Cost (P nodes of m ranks, n elements): node phase shm n copy + (m-1) n / K
 *   gamma per leader, p2p (m-1) messages of n/K per leader; leaders' phase
 *   that of X on P ranks with n/K elements (K leaders cross the network at
 *   once); distribution shm one copy of n per rank, in parallel (a copy of
 *   n/K out of the window and one back in per leader saved on the critical
 *   path), p2p (m-1) messages of n/K per leader;
 *   copy=cma: no copy-in or copy-out, (m-1) n / K read by process_vm_readv
 *   (one system call per peer and chunk) and (m-1) n / K gamma per leader,
 *   n (a leader (K-1) n / K) read per rank in the distribution, three
 *   flags on the critical path.
 * Memory: node=shm: node-shared m n (twice: the halves alternate between
 *   calls; none on a node of one rank); scratch n/K (x) plus, node=p2p,
 *   (m-1) n/K per led segment; copy=cma: no node-shared data (the flags
 *   and the publication lines), scratch n (x) or min(TC_SHM_CHUNK, n/K)
 *   elements (in place: twice) where that is more.
 * Restrictions: commutative operations (a node's ranks need not be
 *   consecutive); node=shm needs node-shared memory; copy=cma node-shared
 *   flags, cross-memory attach (probed when the communicator's context is
 *   made; TOPOCOLL_CMA=0 turns it off) and contiguous datatypes; node=p2p
 *   takes copy=in only.  Any mapping,
 *   unequal nodes.
 * Source: Kandalla et al. 2009 (multiple leaders); Li, Hoefler, Snir 2013
 *   (node-level shared-memory reduction and broadcast, threads reading each
 *   other's vectors); Rabenseifner 2004
 *   and Thakur, Rabenseifner, Gropp 2005 (the leaders' exchanges).
 */
#include "algo/cost_walk.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "algo/allreduce/common.h"
#include "algo/allreduce/hierarchical.h"
#include "blocks/allreduce_members.h"
#include "algo/shm_common.h"

enum { X_RD, X_RSA, X_RING, X_RING_PIECES };
static const int leader_counts[] = { 1, 2, 4 };

static int64_t slot_base(const ar_hier *h, int idx) { return (int64_t)idx * h->n; }

static void node_barrier(tc_sched *s, const ar_hier *h)
{
    for (int i = 0; i < h->m; i++)
        if (i != h->mi) tc_sched_signal(s, h->M[i]);
    for (int i = 0; i < h->m; i++)
        if (i != h->mi) tc_sched_wait(s, h->M[i]);
    tc_sched_round(s);
}

/* Where segment j's leaders combine it across the nodes: node=shm, in the
 * last slot of the window (the members copy the result from there); a
 * node of one rank and the other modes, in the receive buffer. */
static tc_region exchange_region(const ar_hier *h, int j)
{
    if (h->node_mode == AR_NODE_SHM && h->m > 1)
        return ar_hier_seg(h, TC_BUF_SHM, slot_base(h, h->m - 1), j);
    return ar_hier_seg(h, TC_BUF_RECV, 0, j);
}

/* The part of segment j (relative to it) whose node-level reduction runs
 * beside the first round of the leaders' reduce-scatter instead of before
 * it (node=shm, x=rsa; see tc_allreduce_rsa_first_kept); *cnt 0 otherwise. */
static void overlapped_part(const ar_hier *h, int j, int64_t *lo, int64_t *cnt)
{
    *lo = *cnt = 0;
    if (h->node_mode != AR_NODE_SHM || h->m == 1 || h->x != X_RSA) return;
    tc_allreduce_rsa_first_kept(h->t->nnodes, h->node, exchange_region(h, j).cnt, lo, cnt);
}

/* The node-level reduction of elements [lo, lo + cnt) of segment j, over
 * the slots in rank order into the last rank's slot. */
static void reduce_part(tc_sched *s, const ar_hier *h, int j, int64_t lo, int64_t cnt)
{
    int last = h->m - 1;
    int64_t at = ar_hier_seg_lo(h, j) + lo;
    if (cnt == 0) return;
    for (int i = last - 1; i >= 0; i--)
        tc_sched_reduce(s, tc_reg(TC_BUF_SHM, slot_base(h, i) + at, cnt),
                        tc_reg(TC_BUF_SHM, slot_base(h, last) + at, cnt));
}

/* Step 1 (shm).  A node of one rank has nothing to combine: its vector goes
 * to the receive buffer (nothing in place).  A leader leaves the part of
 * its segment that its first exchange round keeps to that round. */
static void reduce_shm(tc_sched *s, const ar_hier *h)
{
    if (h->m == 1) {
        if (!h->a->in_place) tc_sched_copy(s, tc_reg(TC_BUF_SEND, 0, h->n), tc_reg(TC_BUF_RECV, 0, h->n));
        tc_sched_round(s);
        return;
    }
    tc_sched_copy(s, tc_reg(ar_hier_input(h), 0, h->n), tc_reg(TC_BUF_SHM, slot_base(h, h->mi), h->n));
    node_barrier(s, h);
    for (int j = 0; j < h->K; j++) {
        if (ar_hier_leader(h, h->node, j) != h->a->rank) continue;
        int64_t seg = ar_hier_seg_lo(h, j + 1) - ar_hier_seg_lo(h, j), lo, cnt;
        overlapped_part(h, j, &lo, &cnt);
        reduce_part(s, h, j, 0, lo);
        reduce_part(s, h, j, lo + cnt, seg - lo - cnt);
    }
    tc_sched_round(s);
}

/* Step 1 (p2p): the leader receives the other ranks' segment into scratch
 * (after the leaders' exchange area of n elements). */
static void reduce_p2p(tc_sched *s, const ar_hier *h)
{
    int64_t top = h->n;
    for (int j = 0; j < h->K; j++) {
        int l = ar_hier_leader(h, h->node, j);
        if (l != h->a->rank) {
            tc_sched_send(s, l, ar_hier_seg(h, ar_hier_input(h), 0, j));
            continue;
        }
        if (!h->a->in_place)
            tc_sched_copy(s, ar_hier_seg(h, TC_BUF_SEND, 0, j), ar_hier_seg(h, TC_BUF_RECV, 0, j));
        for (int i = 0; i < h->m; i++)
            if (i != h->mi) {
                tc_sched_recv(s, h->M[i], ar_hier_seg(h, TC_BUF_TMP, top - ar_hier_seg_lo(h, j), j));
                top += ar_hier_seg_lo(h, j + 1) - ar_hier_seg_lo(h, j);
            }
    }
    tc_sched_round(s);
    top = h->n;
    for (int j = 0; j < h->K; j++) {
        if (ar_hier_leader(h, h->node, j) != h->a->rank) continue;
        for (int i = 0; i < h->m; i++)
            if (i != h->mi) {
                tc_sched_reduce(s, ar_hier_seg(h, TC_BUF_TMP, top - ar_hier_seg_lo(h, j), j),
                                ar_hier_seg(h, TC_BUF_RECV, 0, j));
                top += ar_hier_seg_lo(h, j + 1) - ar_hier_seg_lo(h, j);
            }
    }
    tc_sched_need_tmp(s, top);
    tc_sched_round(s);
}

/* The scratch chunk: the largest segment, at most TC_SHM_CHUNK elements. */
static int64_t chunk_of(const ar_hier *h)
{
    int64_t most = ar_hier_seg_lo(h, 1) - ar_hier_seg_lo(h, 0);   /* the first segments are the largest */
    return most < TC_SHM_CHUNK ? most : TC_SHM_CHUNK;
}

/* node=shm,copy=cma: the scratch elements of the node phases. */
static int64_t cma_tmp(const ar_hier *h)
{
    int64_t c = chunk_of(h);
    return h->a->in_place ? 2 * c : c;
}

/* Step 1 (copy=cma) for elements [lo, lo + len) of a segment this rank leads. */
static void reduce_chunk_cma(tc_sched *s, const ar_hier *h, int64_t lo, int64_t len)
{
    int direct = !h->a->in_place || h->M[h->m - 1] == h->a->rank;   /* accumulate in the receive buffer */
    tc_region acc = direct ? tc_reg(TC_BUF_RECV, lo, len) : tc_reg(TC_BUF_TMP, chunk_of(h), len);
    tc_shm_reduce_read(s, h->a, h->M, h->m, ar_hier_input(h), lo, acc, tc_reg(TC_BUF_TMP, 0, len));
}

/* Flags to (raise) or from (wait) every other leader of the node, each once. */
static void other_leaders(tc_sched *s, const ar_hier *h, int raise)
{
    int prev = -1;
    for (int j = 0; j < h->K; j++) {
        int l = ar_hier_leader(h, h->node, j);
        if (l == prev || l == h->a->rank) continue;
        prev = l;
        if (raise) tc_sched_signal(s, l);
        else tc_sched_wait(s, l);
    }
}

/* Flags to (raise) or from (wait) every other rank of the node. */
static void other_ranks(tc_sched *s, const ar_hier *h, int raise)
{
    for (int i = 0; i < h->m; i++) {
        if (i == h->mi) continue;
        if (raise) tc_sched_signal(s, h->M[i]);
        else tc_sched_wait(s, h->M[i]);
    }
}

/* Step 1 (copy=cma). */
static void reduce_cma(tc_sched *s, const ar_hier *h)
{
    int lead = ar_hier_leads(h, h->mi);
    other_leaders(s, h, 1);                 /* published: the leaders may read */
    if (lead) other_ranks(s, h, 0);
    tc_sched_round(s);
    for (int j = 0; j < h->K; j++) {
        if (ar_hier_leader(h, h->node, j) != h->a->rank) continue;
        int64_t lo = ar_hier_seg_lo(h, j), hi = ar_hier_seg_lo(h, j + 1);
        for (int64_t c = lo; c < hi; c += TC_SHM_CHUNK) reduce_chunk_cma(s, h, c, hi - c < TC_SHM_CHUNK ? hi - c : TC_SHM_CHUNK);
    }
    tc_sched_round(s);
}

/* Step 3 (copy=cma). */
static void distribute_cma(tc_sched *s, const ar_hier *h)
{
    int lead = ar_hier_leads(h, h->mi);
    if (lead) other_ranks(s, h, 1);         /* the led segments are final */
    other_leaders(s, h, 0);
    tc_sched_round(s);
    for (int j = 0; j < h->K; j++) {
        int l = ar_hier_leader(h, h->node, j);
        if (l != h->a->rank) tc_sched_rread(s, l, ar_hier_seg(h, TC_BUF_RECV, 0, j), ar_hier_seg(h, TC_BUF_RECV, 0, j));
    }
    other_leaders(s, h, 1);                 /* read: the leaders may return */
    if (lead) other_ranks(s, h, 0);
    tc_sched_round(s);
}

/* Step 2. */
static int exchange(tc_sched *s, const ar_hier *h)
{
    int P = h->t->nnodes;
    int *L = malloc((size_t)P * sizeof *L);
    if (!L) return ENOMEM;
    for (int j = 0; j < h->K; j++) {
        if (ar_hier_leader(h, h->node, j) != h->a->rank) continue;
        for (int nd = 0; nd < P; nd++) L[nd] = ar_hier_leader(h, nd, j);
        tc_members lead = tc_members_list(L, P, h->node);
        tc_region reg = exchange_region(h, j);
        tc_ar_regions x = { reg, reg, tc_reg(TC_BUF_TMP, 0, reg.cnt), 0 };
        if (h->x == X_RING_PIECES) x.piece = tc_args_piece_elems(h->a);
        int64_t lo, cnt;
        overlapped_part(h, j, &lo, &cnt);
        reduce_part(s, h, j, lo, cnt);   /* joins the exchange's first round */
        if (h->x == X_RD) tc_allreduce_rd_over(s, &lead, &x);
        else if (h->x == X_RSA) tc_allreduce_rsa_over(s, &lead, &x);
        else tc_allreduce_ring_over(s, &lead, &x);
    }
    free(L);
    return 0;
}

/* Step 3. */
static void distribute(tc_sched *s, const ar_hier *h)
{
    int last = h->m - 1;
    if (h->node_mode == AR_NODE_CMA) {
        distribute_cma(s, h);
        return;
    }
    if (h->node_mode == AR_NODE_P2P) {
        for (int j = 0; j < h->K; j++) {
            int l = ar_hier_leader(h, h->node, j);
            if (l != h->a->rank) tc_sched_recv(s, l, ar_hier_seg(h, TC_BUF_RECV, 0, j));
            else
                for (int i = 0; i < h->m; i++)
                    if (i != h->mi) tc_sched_send(s, h->M[i], ar_hier_seg(h, TC_BUF_RECV, 0, j));
        }
        tc_sched_round(s);
        return;
    }
    if (h->m == 1) return;   /* the exchange ran in the receive buffer */
    node_barrier(s, h);
    tc_sched_copy(s, tc_reg(TC_BUF_SHM, slot_base(h, last), h->n), tc_reg(TC_BUF_RECV, 0, h->n));
    tc_sched_round(s);
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t, int K, int node_mode, int x)
{
    ar_hier h = { a, t, K, node_mode, x, 0, 0, 0, NULL, a->scount };
    h.node = t->node_of[a->rank];
    h.m = tc_topo_node_size(t, h.node);
    h.mi = t->node_idx[a->rank];
    h.M = t->node_ranks + t->node_start[h.node];
    s->tmp_like = TC_BUF_SEND;
    tc_sched_need_tmp(s, h.n);
    if (node_mode == AR_NODE_SHM) {
        if (h.m > 1) {
            tc_sched_need_shm(s, (int64_t)h.m * h.n);
            tc_sched_shm_home(s, slot_base(&h, h.mi), h.n);
        }
        reduce_shm(s, &h);
    } else if (node_mode == AR_NODE_CMA) {
        tc_sched_need_tmp(s, cma_tmp(&h));
        reduce_cma(s, &h);
    } else {
        reduce_p2p(s, &h);
    }
    int rc = exchange(s, &h);
    if (rc) return rc;
    distribute(s, &h);
    return 0;
}

/* ---- the family's catalog row ---------------------------------------------- */

enum { P_LEADERS, P_NODE, P_X, P_COPY };
enum { COPY_IN, COPY_CMA };
static const char *const leaders_values[] = { "1", "2", "4", NULL };
static const char *const node_values[] = { "shm", "p2p", NULL };
static const char *const x_values[] = { "rd", "rsa", "ring", "ring32k", NULL };
static const char *const copy_values[] = { "in", "cma", NULL };
static const tc_param_def params[] = {
    { "leaders", leaders_values, 0 },
    { "node", node_values, AR_NODE_SHM },
    { "x", x_values, X_RD },
    { "copy", copy_values, COPY_IN },
};
/* per leader count: node=shm, node=p2p, then the single-copy node phases */
static const int order[] = { P_LEADERS, P_COPY, P_NODE, P_X };
/* single copy was once a node mode of its own */
static const tc_legacy_value legacy[] = { { "node", "cma", "node=shm,copy=cma" }, { NULL, NULL, NULL } };

static const char *invalid(const int *v)
{
    return v[P_NODE] == AR_NODE_P2P && v[P_COPY] == COPY_CMA ? "node=p2p moves no data by copy (copy=in)" : NULL;
}

/* The node phases: AR_NODE_SHM, AR_NODE_P2P, or AR_NODE_CMA (node=shm,copy=cma). */
static int node_mode_of(const int *v)
{
    return v[P_COPY] == COPY_CMA ? AR_NODE_CMA : v[P_NODE];
}

static void describe(const tc_family *f, const int *v, tc_instance_text *out)
{
    (void)f;
    static const char *const xt[] = { "recursive doubling", "reduce-scatter + allgather", "ring",
                                      "ring in messages of at most 32 KiB" };
    static const char *const nt[] = { "shared-memory", "point-to-point", "single-copy (process_vm_readv)" };
    static const char *const mode_names[] = { "shm", "p2p", "cma" };
    int mode = node_mode_of(v);
    snprintf(out->alias, sizeof out->alias, "h%s_%s_%s", leaders_values[v[P_LEADERS]], mode_names[mode],
             x_values[v[P_X]]);
    snprintf(out->desc, sizeof out->desc,
             "hierarchical, %s leader%s per node (1/%s of the vector each): node-level %s reduction, "
             "leaders' %s, node-level %s broadcast", leaders_values[v[P_LEADERS]],
             v[P_LEADERS] ? "s" : "", leaders_values[v[P_LEADERS]],
             nt[mode], xt[v[P_X]], mode == AR_NODE_CMA ? "single-copy" : nt[mode]);
}

static unsigned req_of(const int *v)
{
    if (node_mode_of(v) == AR_NODE_CMA) return TC_REQ_NODE_SHM | TC_REQ_CMA;
    return v[P_NODE] == AR_NODE_SHM ? TC_REQ_NODE_SHM : TC_REQ_NONE;
}

extern const tc_algo tc_allreduce_recursive_doubling, tc_allreduce_reduce_scatter_allgather, tc_allreduce_ring;

/* Cost function (several nodes; K leaders per node, at most m ranks on a
 * node, P nodes, n bytes, segments of n/K): the node reduction (shm: a copy
 * of n into the window and (m-1) n/K reduced by each leader; p2p: (m-1)
 * messages of n/K into each leader and as much reduced; cma: (m-1) n/K read
 * from the peers and reduced, three flags), the leaders' allreduce of n/K:
 * the flat entry's own cost (recursive doubling, reduce-scatter-allgather or
 * ring, pieces of 32 KiB a message each) on P ranks of one node each, its
 * network bytes times K (a node's K leaders on its link at once), then the
 * distribution (shm, cma: a copy of n per rank; p2p: (m-1) messages of n/K
 * from each leader).  Level totals are estimates: inside the nodes
 * (m_i - 1) n per node each way (p2p), over the network K times the
 * leaders' allreduce's. */
static int family_cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    const int *v = al->param;
    int P = t->nnodes, m = tc_cw_max_ppn(t), il = tc_cw_intra_level(t), mode = node_mode_of(v);
    if (P < 2) return -1;
    double K = leader_counts[v[P_LEADERS]] < m ? leader_counts[v[P_LEADERS]] : m, seg = n / K;
    if (mode == AR_NODE_SHM) {
        c->mem += 2 * n;   /* in, and the result out */
        c->reduced += (m - 1) * seg;
        tc_cw_path(c, il, 2, 0);
    } else if (mode == AR_NODE_CMA) {
        c->mem += (m - 1) * seg + n;
        c->reduced += (m - 1) * seg;
        tc_cw_path(c, il, 3, 0);
    } else {
        tc_cw_path(c, il, 2 * (m - 1), seg);
        c->reduced += (m - 1) * seg;
        for (int i = 0; i < P; i++) c->total[il] += 2.0 * (t->node_start[i + 1] - t->node_start[i] - 1) * n;
    }
    char spec[32];
    snprintf(spec, sizeof spec, "%dx1", P);
    tc_topo *lt = tc_topo_from_spec(spec, P, NULL, 0);
    if (!lt) return -1;
    const tc_algo *x = v[P_X] == X_RD ? &tc_allreduce_recursive_doubling
                       : v[P_X] == X_RSA ? &tc_allreduce_reduce_scatter_allgather
                                         : &tc_allreduce_ring;
    tc_args la = *a;
    la.size = P;
    tc_cost sub;
    memset(&sub, 0, sizeof sub);
    int rc = x->cost(x, &la, lt, seg, &sub);
    tc_topo_free(lt);
    if (rc) return -1;
    if (v[P_X] == X_RING_PIECES && seg / P > TC_PIECE_BYTES) sub.msgs[TC_LVL_NET] *= ceil(seg / P / TC_PIECE_BYTES);
    c->msgs[TC_LVL_NET] += sub.msgs[TC_LVL_NET];
    c->bytes[TC_LVL_NET] += sub.bytes[TC_LVL_NET] * K;
    c->reduced += sub.reduced;
    c->total[TC_LVL_NET] += sub.total[TC_LVL_NET] * K;
    c->total_approx = 1;
    return 0;
}

static int family_generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    const int *v = a->param;
    return generate(s, a, t, leader_counts[v[P_LEADERS]], node_mode_of(v), v[P_X]);
}

const tc_family tc_allreduce_hierarchical = {
    .coll = TOPOCOLL_ALLREDUCE, .name = "hierarchical",
    .summary = "node-level reduction, leaders' allreduce (1, 2 or 4 leaders per node, each carrying its "
               "share of the vector), node-level broadcast; node phases through the node-shared window, "
               "single copy (copy=cma: process_vm_readv of the peers' buffers) or point-to-point",
    .source = __FILE__, .nparams = 4, .params = params, .order = order, .invalid = invalid,
    .rule = "node=p2p takes no copy=cma", .legacy = legacy,
    .describe = describe, .req = TC_REQ_COMMUTATIVE, .req_of = req_of, .generate = family_generate,
    .cost = family_cost,
};
