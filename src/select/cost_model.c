/*
 * The cost model (see cost_model.h): per-step costs on the call's topology,
 * formulas per catalog entry, the choice with its margin, and the memo.
 *
 * Formulas (n: the selection's bytes; p ranks; G nodes, m ranks on the
 * largest node; steps priced by step() below; "tree": a binomial tree from
 * rank 0 in which only the ranks holding data send):
 *   allgather  ring: p-1 steps to rank+1 of n; recursive_doubling and
 *   (and       recursive_halving: step k to rank^2^k of n 2^k (power-of-two
 *   allgatherv p); bruck: step k to rank-2^k of n min(2^k, p-2^k);
 *   at regular neighbor_exchange: p/2 steps of 2n to alternating neighbours;
 *   counts,    linear: p-1 sends to every distance, priced as p-1 steps (no
 *   n the      overlap assumed); gather_bcast: the binomial gather below,
 *   mean       then a tree bcast of p n;
 *   block)     hierarchical with L leaders per node (1, one per socket, 2
 *              or 4; several nodes; Kandalla et al. 2009): groups of
 *              mg = ceil(m/L) ranks, GG = G L groups; aggregation (gather:
 *              mg-1 messages of n at the leader; ring: mg-1 steps of n; rd:
 *              ceil(log mg) messages and (mg-1) n bytes; shm: one copy of n
 *              and two flags), leaders' exchange (rd / bruck: ceil(log GG)
 *              messages, ring: GG-1; (GG-1) mg n bytes into each leader over
 *              the network, times L: the node's leaders share its link),
 *              distribution (bcast: ceil(log mg) messages of p n; new: of
 *              (p-mg) n; shm: a flag), plus the final copy of p n.
 *   bcast      binomial: the tree, ceil(log p) steps of n;
 *              scatter_allgather: a tree scatter of n/p and a ring allgather
 *              of n/p blocks.
 *   gather,    binomial: the tree, step k of the subtree's n min(2^k, p-2^k).
 *   scatter
 *   reduce     binomial: the tree, n and n gamma per step; rabenseifner: 2
 *              ceil(log p) messages, 2 (p-1)/p n bytes and (p-1)/p n gamma
 *              (Jain, Lau, Kale 2012, Table 2).
 *   reduce_scatter_block (n: a rank's block)  pairwise: p-1 steps of n and
 *              (p-1) n gamma; recursive_halving (native only): step k to
 *              rank^(p/2^(k+1)) of n p/2^(k+1) and as much gamma.
 *   allreduce  recursive_doubling: log p steps of n and n gamma; ring and
 *              reduce_scatter_allgather: 2(p-1) steps of n/p (ring) or 2 log p
 *              (halving, doubling), (p-1)/p n gamma.
 *   alltoall,  pairwise: p-1 steps to rank+k of n; bruck (alltoall):
 *   alltoallv  ceil(log p) steps of n p/2 plus two local rotations of p n;
 *              linear: as pairwise (alltoallv: n the mean block).
 *   two-tier   (Jain, Lau, Kale 2012, Table 2; supernodes = nodes, sn = G;
 *              units = ranks or sockets, nps = u per node, k ranks each; N =
 *              p n for the block collectives): the table's load of the
 *              busiest L1 link times the u-1 L1 links of a unit leader (its
 *              memory serves them one after another) at the level between
 *              the leaders, its L2 load times the G-1 L2 links of a
 *              supernode (they share the node's network link), alpha per
 *              message of the entry's hops (u-1 per L1 hop, ceil((G-1)/u)
 *              per L2 hop), and k-1 messages inside a unit:
 *              allgather L1 N(1/u + 1/(G u)), L2 N/G;  scatter, gather L1
 *              N/u, L2 N/G;  bcast L1 2n, L2 n (chunked: L1 3n/u, L2 n/u
 *              from the relays plus n out of the root's node);  reduce L1
 *              n/u (landing: 2n/u + 2n/(G u)), L2 2n/G, 2 n gamma;
 *              reduce_scatter_block L1 N(1/u + 1/(G u)), L2 N/G, 2 N gamma.
 * Native: allgather and allgatherv min(recursive_doubling where p is a power
 * of two, bruck, ring, neighbor_exchange at even p); bcast min(binomial,
 * scatter_allgather); gather, scatter binomial; reduce min(binomial,
 * rabenseifner); reduce_scatter_block min(recursive_halving at power-of-two
 * p, pairwise); allreduce min(recursive_doubling, ring,
 * reduce_scatter_allgather); alltoall min(bruck, pairwise); alltoallv
 * pairwise.
 */
#include "select/cost_model.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/fp_env.h"
#include "pattern/pattern.h"

const char *const tc_level_names[TC_NLEVELS] = { "socket", "node", "network" };

/* Built-in values: conservative (a fast machine's shared memory and a
 * 10 Gbit/s-class network with a few microseconds of latency), so that a
 * hierarchical algorithm is predicted to win only where the inter-node
 * traffic it saves is large.  docs/selection.md lists them. */
static const tc_model_params builtin = {
    .alpha = { 0.5e-6, 0.8e-6, 3e-6 },
    .beta = { 1.0 / 8e9, 1.0 / 5e9, 1.0 / 1.25e9 },
    .gamma = 1.0 / 2e9,
    .margin = 1.3,
    .source = "built-in",
};

const tc_model_params *tc_model_builtin(void)
{
    return &builtin;
}

/* ---- steps on the topology ------------------------------------------------- */

static int level_of(const tc_topo *t, int i, int j)
{
    if (t->sock_of[i] == t->sock_of[j]) return TC_LVL_SOCKET;
    return t->node_of[i] == t->node_of[j] ? TC_LVL_NODE : TC_LVL_NET;
}

/* Partner of rank r in a step (-1: none). */
typedef int (*partner_fn)(int r, int p, int d);

static int p_shift(int r, int p, int d) { return (r + d) % p; }
static int p_xor(int r, int p, int d) { int q = r ^ d; return q < p ? q : -1; }
/* A binomial tree rooted at 0, the step of distance d: only the ranks that
 * hold data (multiples of 2d) send, to rank + d. */
static int p_tree(int r, int p, int d) { return r % (2 * d) == 0 && r + d < p ? r + d : -1; }

/* One step: every rank r sends `bytes` to partner(r, p, d).  The cost of the
 * farthest level crossed; the network term times the largest number of
 * ranks of one node that leave it in this step. */
static double step(const tc_model_params *m, const tc_topo *t, partner_fn partner, int d, double bytes)
{
    int p = t->size, lvl = TC_LVL_SOCKET, crowd = 0;
    int *out = calloc((size_t)t->nnodes, sizeof *out);
    for (int r = 0; r < p; r++) {
        int q = partner(r, p, d);
        if (q < 0 || q == r) continue;
        int l = level_of(t, r, q);
        if (l > lvl) lvl = l;
        if (l == TC_LVL_NET && out && ++out[t->node_of[r]] > crowd) crowd = out[t->node_of[r]];
    }
    free(out);
    double c = crowd > 1 ? crowd : 1;
    return m->alpha[lvl] + bytes * m->beta[lvl] * (lvl == TC_LVL_NET ? c : 1);
}

static int ceil_log2(int p)
{
    int k = 0;
    while ((1 << k) < p) k++;
    return k;
}

/* The largest number of ranks on one node, and the level inside a node. */
static int max_ppn(const tc_topo *t)
{
    int m = 1;
    for (int i = 0; i < t->nnodes; i++)
        if (t->node_start[i + 1] - t->node_start[i] > m) m = t->node_start[i + 1] - t->node_start[i];
    return m;
}

static int intra_level(const tc_topo *t)
{
    return t->nsockets > t->nnodes ? TC_LVL_NODE : TC_LVL_SOCKET;
}

/* ---- flat formulas ---------------------------------------------------------- */

static double ring_steps(const tc_model_params *m, const tc_topo *t, int nsteps, double bytes)
{
    return nsteps * step(m, t, p_shift, 1, bytes);
}

static double rd_allgather(const tc_model_params *m, const tc_topo *t, double n)
{
    double s = 0;
    for (int d = 1; d < t->size; d <<= 1) s += step(m, t, p_xor, d, n * d);
    return s;
}

static double bruck_allgather(const tc_model_params *m, const tc_topo *t, double n)
{
    int p = t->size;
    double s = 0;
    for (int d = 1; d < p; d <<= 1) s += step(m, t, p_shift, p - d, n * (d < p - d ? d : p - d));
    return s;
}

static double neighbor_exchange(const tc_model_params *m, const tc_topo *t, double n)
{
    int p = t->size;
    double s = step(m, t, p_xor, 1, n);
    for (int k = 1; k < p / 2; k++) s += step(m, t, p_shift, k % 2 ? 1 : p - 1, 2 * n);
    return s;
}

/* Every distance once (direct exchange, pairwise). */
static double all_distances(const tc_model_params *m, const tc_topo *t, double n)
{
    double s = 0;
    if (t->size > 2048) return -1;   /* O(p^2) to price: not worth it */
    for (int d = 1; d < t->size; d++) s += step(m, t, p_shift, d, n);
    return s;
}

/* Binomial gather or scatter: step k to rank + 2^k (from root 0) of the
 * subtree's n min(2^k, p - 2^k) bytes. */
static double subtree_steps(const tc_model_params *m, const tc_topo *t, double n)
{
    int p = t->size;
    double s = 0;
    for (int d = 1; d < p; d <<= 1) s += step(m, t, p_tree, d, n * (d < p - d ? d : p - d));
    return s;
}

/* A binomial tree rooted at 0 (bcast, reduce): step k from the ranks that
 * hold the data to rank + 2^k, n bytes and per_step (reduction) each. */
static double tree(const tc_model_params *m, const tc_topo *t, double n, double per_step)
{
    double s = 0;
    for (int d = 1; d < t->size; d <<= 1) s += step(m, t, p_tree, d, n) + per_step;
    return s;
}

static double binomial(const tc_model_params *m, const tc_topo *t, double n, double per_step)
{
    double s = 0;
    for (int d = 1; d < t->size; d <<= 1) s += step(m, t, p_shift, d, n) + per_step;
    return s;
}

/* ---- hierarchical allgather, one leader per node ----------------------------- */

static const char *param_of(const char *canon, const char *key, char *buf, size_t len)
{
    const char *s = strstr(canon, key);
    if (!s) return "";
    s += strlen(key);
    size_t k = strcspn(s, ",");
    if (k >= len) k = len - 1;
    memcpy(buf, s, k);
    buf[k] = '\0';
    return buf;
}

/* Leaders per node of a "leaders=" value (1, s, sp, 2, 4), 0 when unknown;
 * *grp_lvl: the level inside a group (a socket group spread over its own
 * socket: the socket; otherwise the node's). */
static int leaders_of(const char *v, const tc_topo *t, int mm, int *grp_lvl)
{
    int sockets = t->nsockets > t->nnodes ? (t->nsockets + t->nnodes - 1) / t->nnodes : 1;
    *grp_lvl = intra_level(t);
    if (!strcmp(v, "1")) return 1;
    if (!strcmp(v, "s") || !strcmp(v, "sp")) {
        if (!strcmp(v, "s")) *grp_lvl = TC_LVL_SOCKET;
        return sockets;
    }
    if (!strcmp(v, "2") || !strcmp(v, "4")) return atoi(v) < mm ? atoi(v) : mm;
    return 0;
}

/* Aggregation inside a group of mg ranks at level l (-1: unknown). */
static double hier_agg(const tc_model_params *m, const char *agg, int mg, int l, double n)
{
    if (!strcmp(agg, "gather")) return (mg - 1) * (m->alpha[l] + n * m->beta[l]);
    if (!strcmp(agg, "shm")) return 2 * m->alpha[TC_LVL_SOCKET] + n * m->beta[TC_LVL_SOCKET];
    if (!strcmp(agg, "ring")) return (mg - 1) * (m->alpha[l] + n * m->beta[l]);
    if (!strcmp(agg, "rd")) return ceil_log2(mg) * m->alpha[l] + (mg - 1) * n * m->beta[l];
    return -1;
}

/* Distribution of p n bytes (dist=new: the p - mg blocks the group lacks)
 * inside a group of mg ranks at level l, plus the final copy (-1: unknown). */
static double hier_dist(const tc_model_params *m, const char *dist, int mg, int l, int p, double n)
{
    double copy = p * n * m->beta[TC_LVL_SOCKET];
    if (!strcmp(dist, "bcast")) return ceil_log2(mg) * (m->alpha[l] + p * n * m->beta[l]) + copy;
    if (!strcmp(dist, "new")) return ceil_log2(mg) * (m->alpha[l] + (p - mg) * n * m->beta[l]) + copy;
    if (!strcmp(dist, "shm")) return m->alpha[TC_LVL_SOCKET] + copy;
    return -1;
}

/* The hierarchical allgather (and allgatherv at regular counts) with L
 * leaders per node (Kandalla et al. 2009): groups of mg = ceil(m/L) ranks,
 * GG = G L groups in all; the exchange moves (GG-1) mg n bytes into every
 * leader over the network, and the L leaders of a node share its link. */
static double hier_allgather(const tc_model_params *m, const tc_algo *al, const tc_topo *t, double n)
{
    const char *c = al->canonical ? al->canonical : al->name;
    char lb[16], ab[16], xb[16], db[16];
    const char *leaders = param_of(c, "leaders=", lb, sizeof lb), *agg = param_of(c, "agg=", ab, sizeof ab);
    const char *x = param_of(c, "x=", xb, sizeof xb), *dist = param_of(c, "dist=", db, sizeof db);
    int p = t->size, mm = max_ppn(t), g = t->nnodes, gl = TC_LVL_SOCKET;
    int nl = leaders_of(leaders, t, mm, &gl);
    /* several nodes only (on one node the aggregation is the whole algorithm,
     * and nothing here was measured against the library's own) */
    if (nl < 1 || g < 2) return -1;
    int mg = (mm + nl - 1) / nl, gg = g * nl;
    double s = hier_agg(m, agg, mg, gl, n), d = hier_dist(m, dist, mg, gl, p, n);
    if (s < 0 || d < 0) return -1;
    double xbytes = (double)(gg - 1) * mg * n * m->beta[TC_LVL_NET] * nl;
    if (!strcmp(x, "rd") || !strcmp(x, "bruck")) s += ceil_log2(gg) * m->alpha[TC_LVL_NET] + xbytes;
    else if (!strcmp(x, "ring")) s += (gg - 1) * m->alpha[TC_LVL_NET] + xbytes;
    else return -1;
    return s + d;
}

/* ---- two-tier entries (Jain, Lau, Kale 2012) ------------------------------------ */

/* The tiers on the call's topology: supernodes = nodes (G), units = ranks
 * or sockets of a node (u per node, k ranks each); levels inside a unit,
 * between the unit leaders of a node, and L2 (the network). */
typedef struct tt_shape {
    int g, u, k;
    double a_unit, b_unit, a_l1, b_l1, a_l2, b_l2;
} tt_shape;

static int tt_shape_of(const tc_model_params *m, const tc_algo *al, const tc_topo *t, tt_shape *sh)
{
    const char *c = al->canonical ? al->canonical : al->name;
    char ub[16];
    const char *units = param_of(c, "units=", ub, sizeof ub);
    int mm = max_ppn(t), sockets = t->nsockets > t->nnodes ? (t->nsockets + t->nnodes - 1) / t->nnodes : 1;
    int l1 = intra_level(t);
    if (t->nnodes < 2) return 0;   /* one supernode: nothing of the paper's network */
    sh->g = t->nnodes;
    if (!strcmp(units, "ranks")) sh->u = mm;
    else if (!strcmp(units, "sockets")) { sh->u = sockets < mm ? sockets : mm; l1 = TC_LVL_NODE; }
    else return 0;
    sh->k = (mm + sh->u - 1) / sh->u;
    if (sh->u < 2) l1 = TC_LVL_SOCKET;
    sh->a_unit = m->alpha[TC_LVL_SOCKET];
    sh->b_unit = m->beta[TC_LVL_SOCKET];
    sh->a_l1 = m->alpha[l1];
    sh->b_l1 = m->beta[l1];
    sh->a_l2 = m->alpha[TC_LVL_NET];
    sh->b_l2 = m->beta[TC_LVL_NET];
    return 1;
}

/* L2 messages of one unit leader: its share of the supernode's G - 1 links. */
static double tt_l2_msgs(const tt_shape *sh) { return (double)((sh->g - 2) / sh->u + 1); }

/* Table 2 gives the load of the busiest link of each tier.  A unit leader's
 * u - 1 L1 links are its own memory (one message after another), and a
 * supernode's G - 1 L2 links share the node's one network link (the
 * model's crowd rule): the per-link load times the links that share. */
static double tt_l1(const tt_shape *sh, double per_link) { return per_link * (sh->u - 1) * sh->b_l1; }
static double tt_l2(const tt_shape *sh, double per_link) { return per_link * (sh->g - 1) * sh->b_l2; }

/* Table 2's bandwidth terms (N: the collective's total bytes) with the
 * entry's messages (alpha per hop) and its hops inside a unit (k - 1 cores). */
static double twotier_cost(const tc_model_params *m, topocoll_coll coll, const tc_algo *al, const tc_topo *t,
                           double n)
{
    tt_shape sh;
    if (!tt_shape_of(m, al, t, &sh)) return -1;
    double u = sh.u, g = sh.g, k1 = sh.k - 1, l1 = (sh.u - 1) * sh.a_l1, l2 = tt_l2_msgs(&sh) * sh.a_l2;
    double big = (double)t->size * n;   /* N for the block collectives */
    char cb[16];
    const char *c = al->canonical ? al->canonical : al->name;
    char lb[8];
    int landing = !strcmp(param_of(c, "landing=", lb, sizeof lb), "yes");
    int chunked = !strcmp(param_of(c, "chunked=", cb, sizeof cb), "yes");
    switch (coll) {
    case TOPOCOLL_ALLGATHER:   /* N beta (1/nps + 1/sn + 1/(sn nps)) */
        return 2 * l1 + l2 + tt_l1(&sh, big / u + big / (g * u)) + tt_l2(&sh, big / g) +
               k1 * (2 * sh.a_unit + (n + big) * sh.b_unit);
    case TOPOCOLL_SCATTER:
    case TOPOCOLL_GATHER:      /* N beta max(1/nps, 1/sn): the tiers one after the other */
        return 2 * l1 + l2 + tt_l1(&sh, big / u) + tt_l2(&sh, big / g) + k1 * (sh.a_unit + n * sh.b_unit);
    case TOPOCOLL_BCAST:
        if (chunked)           /* n beta 3/nps: three L1 hops of chunks; L2 twice */
            return 3 * l1 + 2 * l2 + tt_l1(&sh, 3 * n / u) + n * sh.b_l2 + tt_l2(&sh, n / u) +
                   k1 * (sh.a_unit + n * sh.b_unit);
        return 2 * l1 + l2 + tt_l1(&sh, 2 * n) + tt_l2(&sh, n) + k1 * (sh.a_unit + n * sh.b_unit);
    case TOPOCOLL_REDUCE:      /* n beta (1/nps + 2/sn) + 2 n gamma */
        return (landing ? 3 : 2) * l1 + 2 * l2 + tt_l1(&sh, landing ? 2 * n / u + 2 * n / (g * u) : n / u) +
               2 * tt_l2(&sh, n / g) + 2 * n * m->gamma + k1 * (sh.a_unit + n * sh.b_unit + n * m->gamma);
    case TOPOCOLL_REDUCE_SCATTER_BLOCK:   /* N beta (1/nps + 1/sn + 1/(sn nps)) + 2 N gamma */
        return (landing ? 3 : 2) * l1 + l2 + tt_l1(&sh, big / u + big / (g * u)) + tt_l2(&sh, big / g) +
               2 * big * m->gamma + k1 * (2 * sh.a_unit + (big + n) * sh.b_unit + big * m->gamma);
    default: return -1;
    }
}

/* ---- per collective ----------------------------------------------------------- */

static double allgather_cost(const tc_model_params *m, const char *name, const tc_algo *al,
                             const tc_topo *t, double n)
{
    int p = t->size;
    if (!strcmp(name, "ring")) return ring_steps(m, t, p - 1, n);
    if (!strcmp(name, "recursive_doubling")) return tc_is_pow2(p) ? rd_allgather(m, t, n) : -1;
    if (!strcmp(name, "bruck")) return bruck_allgather(m, t, n);
    if (!strcmp(name, "neighbor_exchange")) return p % 2 == 0 ? neighbor_exchange(m, t, n) : -1;
    if (!strcmp(name, "linear")) return all_distances(m, t, n);
    if (!strcmp(name, "recursive_halving")) return tc_is_pow2(p) ? rd_allgather(m, t, n) : -1;
    if (!strcmp(name, "gather_bcast")) return subtree_steps(m, t, n) + tree(m, t, p * n, 0);
    if (al && al->family && !strcmp(al->family, "hierarchical")) return hier_allgather(m, al, t, n);
    return -1;
}

/* gather and scatter: binomial, ceil(log p) steps of the subtrees' blocks. */
static double rooted_cost(const tc_model_params *m, const char *name, const tc_topo *t, double n)
{
    return !strcmp(name, "binomial") ? subtree_steps(m, t, n) : -1;
}

static double reduce_scatter_block_cost(const tc_model_params *m, const char *name, const tc_topo *t, double n)
{
    int p = t->size;
    if (!strcmp(name, "pairwise")) return all_distances(m, t, n) < 0 ? -1 : all_distances(m, t, n) + (p - 1) * n * m->gamma;
    if (!strcmp(name, "recursive_halving")) {   /* the libraries' power-of-two choice */
        if (!tc_is_pow2(p)) return -1;
        double s = 0;
        for (int d = p / 2; d >= 1; d >>= 1) s += step(m, t, p_xor, d, n * d) + n * d * m->gamma;
        return s;
    }
    return -1;
}

static double bcast_cost(const tc_model_params *m, const char *name, const tc_topo *t, double n)
{
    int p = t->size;
    if (!strcmp(name, "binomial")) return tree(m, t, n, 0);
    if (!strcmp(name, "scatter_allgather"))
        return tree(m, t, n / p, 0) + (double)(p - 1) / p * n * m->beta[TC_LVL_NET] / 2 +
               ring_steps(m, t, p - 1, n / p);
    return -1;
}

static double reduce_cost(const tc_model_params *m, const char *name, const tc_topo *t, double n)
{
    int p = t->size;
    double f = (double)(p - 1) / p;
    if (!strcmp(name, "binomial")) return tree(m, t, n, n * m->gamma);
    if (!strcmp(name, "rabenseifner"))
        return binomial(m, t, f * n, 0) + binomial(m, t, f * n, 0) + f * n * m->gamma;
    return -1;
}

static double allreduce_cost(const tc_model_params *m, const char *name, const tc_topo *t, double n)
{
    int p = t->size;
    double f = (double)(p - 1) / p;
    if (!strcmp(name, "recursive_doubling"))
        return tc_is_pow2(p) ? binomial(m, t, n, n * m->gamma) : -1;
    if (!strcmp(name, "ring")) return ring_steps(m, t, 2 * (p - 1), n / p) + f * n * m->gamma;
    if (!strcmp(name, "reduce_scatter_allgather"))
        return tc_is_pow2(p) ? 2 * binomial(m, t, f * n / 2, 0) + f * n * m->gamma : -1;
    return -1;
}

static double alltoall_cost(const tc_model_params *m, const char *name, const tc_topo *t, double n)
{
    int p = t->size;
    if (!strcmp(name, "pairwise") || !strcmp(name, "linear")) return all_distances(m, t, n);
    if (!strcmp(name, "bruck")) return binomial(m, t, n * p / 2, 0) + 2 * p * n * m->beta[TC_LVL_SOCKET];
    return -1;
}

static double cost_by_name(const tc_model_params *m, topocoll_coll coll, const char *name,
                           const tc_algo *al, const tc_topo *t, double n)
{
    if (t->size < 2) return -1;
    if (al && !strcmp(tc_algo_family(al), "twotier"))
        return twotier_cost(m, coll, al, t, n);
    switch (coll) {
    case TOPOCOLL_ALLGATHER:
    case TOPOCOLL_ALLGATHERV: return allgather_cost(m, name, al, t, n);   /* regular counts */
    case TOPOCOLL_BCAST: return bcast_cost(m, name, t, n);
    case TOPOCOLL_SCATTER:
    case TOPOCOLL_GATHER: return rooted_cost(m, name, t, n);
    case TOPOCOLL_REDUCE: return reduce_cost(m, name, t, n);
    case TOPOCOLL_REDUCE_SCATTER_BLOCK: return reduce_scatter_block_cost(m, name, t, n);
    case TOPOCOLL_ALLREDUCE: return allreduce_cost(m, name, t, n);
    case TOPOCOLL_ALLTOALL: return alltoall_cost(m, name, t, n);
    case TOPOCOLL_ALLTOALLV: return !strcmp(name, "pairwise") || !strcmp(name, "linear") ? all_distances(m, t, n) : -1;
    default: return -1;
    }
}

double tc_model_predict(const tc_model_params *m, const tc_algo *al, const tc_args *a,
                        const tc_topo *t, int64_t bytes)
{
    if (!al || !al->generate || t->size != a->size) return -1;
    return cost_by_name(m, a->coll, al->name, al, t, (double)bytes);
}

/* What the MPI libraries choose among, per collective (NULL-terminated). */
static const char *const *native_set(topocoll_coll coll)
{
    static const char *const ag[] = { "recursive_doubling", "bruck", "ring", "neighbor_exchange", NULL };
    static const char *const bc[] = { "binomial", "scatter_allgather", NULL };
    static const char *const rd[] = { "binomial", "rabenseifner", NULL };
    static const char *const ar[] = { "recursive_doubling", "ring", "reduce_scatter_allgather", NULL };
    static const char *const aa[] = { "bruck", "pairwise", NULL };
    static const char *const rooted[] = { "binomial", NULL };
    static const char *const rs[] = { "recursive_halving", "pairwise", NULL };
    static const char *const av[] = { "pairwise", NULL };
    switch (coll) {
    case TOPOCOLL_ALLGATHER:
    case TOPOCOLL_ALLGATHERV: return ag;
    case TOPOCOLL_SCATTER:
    case TOPOCOLL_GATHER: return rooted;
    case TOPOCOLL_REDUCE_SCATTER_BLOCK: return rs;
    case TOPOCOLL_ALLTOALLV: return av;
    case TOPOCOLL_BCAST: return bc;
    case TOPOCOLL_REDUCE: return rd;
    case TOPOCOLL_ALLREDUCE: return ar;
    case TOPOCOLL_ALLTOALL: return aa;
    default: return NULL;
    }
}

double tc_model_native(const tc_model_params *m, const tc_args *a, const tc_topo *t, int64_t bytes)
{
    const char *const *set = native_set(a->coll);
    double best = -1;
    if (!set || t->size != a->size) return -1;
    for (int i = 0; set[i]; i++) {
        double c = cost_by_name(m, a->coll, set[i], NULL, t, (double)bytes);
        if (c >= 0 && (best < 0 || c < best)) best = c;
    }
    return best;
}

tc_model_pick tc_model_choose(const tc_model_params *m, const tc_args *a, const tc_topo *t, int64_t bytes)
{
    tc_model_pick pk = { NULL, tc_model_native(m, a, t, bytes), -1, "" };
    if (pk.native_s <= 0) return pk;
    const tc_algo *best = NULL;
    for (int i = 0; i < tc_catalog_variant_count(a->coll); i++) {
        const tc_algo *al = tc_catalog_variant_at(a->coll, i);
        const char *why;
        double c = tc_model_predict(m, al, a, t, bytes);
        if (c <= 0 || !tc_algo_accepts(al, a, t, &why)) continue;
        if (pk.algo_s < 0 || c < pk.algo_s) {
            pk.algo_s = c;
            best = al;
        }
    }
    if (!best) return pk;
    pk.best = best->name;
    if (pk.native_s > m->margin * pk.algo_s) pk.algo = best;
    return pk;
}

int tc_model_rank(const tc_model_params *m, const tc_args *a, const tc_topo *t, int64_t bytes,
                  const tc_algo **out, double *pred_s, int max)
{
    int n = 0;
    if (!m || !a || !t || !out || max <= 0) return 0;
    double *ps = pred_s ? pred_s : malloc((size_t)max * sizeof *ps);
    if (!ps) return 0;
    tc_fp_saved env;
    tc_fp_hold(&env);
    for (int i = 0; i < tc_catalog_variant_count(a->coll); i++) {
        const tc_algo *al = tc_catalog_variant_at(a->coll, i);
        const char *why;
        double c = tc_model_predict(m, al, a, t, bytes);
        if (!(c > 0) || !tc_algo_accepts(al, a, t, &why)) continue;
        int k = n;   /* after every equal or faster one: ties keep catalog order */
        while (k > 0 && c < ps[k - 1]) k--;
        if (k >= max) continue;
        if (n < max) n++;
        for (int j = n - 1; j > k; j--) {
            out[j] = out[j - 1];
            ps[j] = ps[j - 1];
        }
        out[k] = al;
        ps[k] = c;
    }
    tc_fp_restore(&env);
    if (ps != pred_s) free(ps);
    return n;
}

/* ---- memo ---------------------------------------------------------------------- */

/* The memo lives with the topology it was computed on (a view of it,
 * tc_topo_get_view): one topology describes one communicator, the same on
 * all of its ranks, so a choice made for one communicator is never served
 * to another whose shape looks alike but whose ranks sit elsewhere (a key
 * of counts only did that, and ranks of one communicator then chose
 * differently: docs/design.md, "Agreement").  The key inside it holds the
 * rest of what the choice reads: the parameters, the collective, the
 * arguments' requirement inputs and the size class. */
typedef struct memo_key {
    const tc_model_params *m;
    int coll, size, node_shm, commutative, cma, cls;
    unsigned gen;          /* tc_model_memo_clear's generation */
} memo_key;

typedef struct memo_entry {
    int used;
    memo_key k;
    tc_model_pick pk;
} memo_entry;

#define MEMO_SLOTS 64
typedef struct memo_table {
    pthread_mutex_t lock;
    memo_entry e[MEMO_SLOTS];
} memo_table;

enum { MEMO_VIEW = 0x6d6d0000 };   /* "mm": this file's view kind */
static atomic_uint memo_gen = 1;

static void *memo_make(const tc_topo *t, int arg)
{
    (void)t;
    (void)arg;
    memo_table *mt = calloc(1, sizeof *mt);
    if (mt && pthread_mutex_init(&mt->lock, NULL) != 0) {
        free(mt);
        return NULL;
    }
    return mt;
}

static void memo_free(void *data)
{
    memo_table *mt = data;
    (void)pthread_mutex_destroy(&mt->lock);
    free(mt);
}

static unsigned key_hash(const memo_key *k)
{
    unsigned h = (unsigned)k->coll * 31u + (unsigned)k->size;
    h = h * 131u + (unsigned)k->node_shm * 7u + (unsigned)k->commutative * 3u + (unsigned)k->cma;
    return (h * 131u + (unsigned)k->cls) % MEMO_SLOTS;
}

static int key_eq(const memo_key *x, const memo_key *y)
{
    return x->m == y->m && x->coll == y->coll && x->size == y->size && x->node_shm == y->node_shm &&
           x->commutative == y->commutative && x->cma == y->cma && x->cls == y->cls && x->gen == y->gen;
}

tc_model_pick tc_model_choose_memo(const tc_model_params *m, const tc_args *a, const tc_topo *t,
                                   int64_t bytes)
{
    int cls = 0;
    while (cls < 62 && ((int64_t)1 << cls) < bytes) cls++;
    memo_key k = { m, (int)a->coll, a->size, a->node_shm != 0, a->commutative != 0, a->cma != 0, cls,
                   atomic_load_explicit(&memo_gen, memory_order_acquire) };
    memo_table *mt = (memo_table *)tc_topo_get_view(t, MEMO_VIEW, memo_make, 0, memo_free);
    memo_entry *e = mt ? &mt->e[key_hash(&k)] : NULL;
    tc_model_pick pk;
    int hit = 0;
    if (e && pthread_mutex_lock(&mt->lock) == 0) {
        if (e->used && key_eq(&e->k, &k)) {
            pk = e->pk;
            hit = 1;
        }
        (void)pthread_mutex_unlock(&mt->lock);
    }
    if (!hit) {   /* the formulas, in a caller's call: under tc_fp_hold (core/fp_env.h) */
        tc_fp_saved env;
        tc_fp_hold(&env);
        pk = tc_model_choose(m, a, t, (int64_t)1 << cls);
        tc_fp_restore(&env);
        if (e && pthread_mutex_lock(&mt->lock) == 0) {
            e->used = 1;
            e->k = k;
            e->pk = pk;
            (void)pthread_mutex_unlock(&mt->lock);
        }
    }
    const char *why;
    if (pk.algo && !tc_algo_accepts(pk.algo, a, t, &why)) pk.algo = NULL;
    return pk;
}

void tc_model_memo_clear(void)
{
    atomic_fetch_add_explicit(&memo_gen, 1, memory_order_acq_rel);
}
