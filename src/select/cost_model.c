/*
 * The cost model (see cost_model.h): per-step costs on the call's topology,
 * formulas per catalog entry, the choice with its margin, and the memo.
 *
 * Formulas (n: the selection's bytes; p ranks; steps priced by step() below):
 *   allgather  ring: p-1 steps to rank+1 of n; recursive_doubling: step k
 *              to rank^2^k of n 2^k (power-of-two p); bruck: step k to
 *              rank-2^k of n min(2^k, p-2^k); neighbor_exchange: p/2 steps
 *              of 2n to alternating neighbours; linear: p-1 sends to every
 *              distance, priced as p-1 steps (no overlap assumed);
 *              hierarchical with one leader per node, several nodes (Kandalla et al. 2009):
 *              aggregation (gather: m-1 messages of n at the leader; shm: one
 *              copy of n and a flag), leaders' exchange (rd / bruck: ceil(log
 *              G) messages, ring: G-1, (G-1) m n bytes over the network),
 *              distribution (bcast: ceil(log m) messages of p n; shm: a flag
 *              and one copy of p n), plus the final copy of p n from scratch.
 *   bcast      binomial: ceil(log p) steps of n (from root 0);
 *              scatter_allgather: binomial scatter (ceil(log p) messages,
 *              (p-1)/p n) and a ring allgather of n/p blocks.
 *   reduce     binomial: ceil(log p) steps of n plus n gamma each;
 *              rabenseifner: 2 ceil(log p) messages, 2 (p-1)/p n bytes and
 *              (p-1)/p n gamma (Jain, Lau, Kale 2012, Table 2).
 *   allreduce  recursive_doubling: log p steps of n and n gamma; ring and
 *              reduce_scatter_allgather: 2(p-1) steps of n/p (ring) or 2 log p
 *              (halving, doubling), (p-1)/p n gamma.
 *   alltoall   pairwise: p-1 steps to rank+k of n; bruck: ceil(log p) steps
 *              of n p/2 plus two local rotations of p n; linear: as pairwise.
 * Native: allgather min(recursive_doubling where p is a power of two, bruck,
 * ring, neighbor_exchange at even p); bcast min(binomial, scatter_allgather);
 * reduce min(binomial, rabenseifner); allreduce min(recursive_doubling, ring,
 * reduce_scatter_allgather); alltoall min(bruck, pairwise).
 */
#include "select/cost_model.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

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

static double hier_allgather(const tc_model_params *m, const tc_algo *al, const tc_topo *t, double n)
{
    const char *c = al->canonical ? al->canonical : al->name;
    char lb[16], ab[16], xb[16], db[16];
    const char *leaders = param_of(c, "leaders=", lb, sizeof lb), *agg = param_of(c, "agg=", ab, sizeof ab);
    const char *x = param_of(c, "x=", xb, sizeof xb), *dist = param_of(c, "dist=", db, sizeof db);
    int p = t->size, mm = max_ppn(t), g = t->nnodes, li = intra_level(t);
    /* one leader per node, several nodes (on one node the aggregation is the
     * whole algorithm, and nothing here was measured against the library's own) */
    if (strcmp(leaders, "1") != 0 || g < 2) return -1;
    double s;
    if (!strcmp(agg, "gather")) s = (mm - 1) * (m->alpha[li] + n * m->beta[li]);
    else if (!strcmp(agg, "shm")) s = 2 * m->alpha[TC_LVL_SOCKET] + n * m->beta[TC_LVL_SOCKET];
    else return -1;
    double xbytes = (double)(g - 1) * mm * n * m->beta[TC_LVL_NET];
    if (!strcmp(x, "rd") || !strcmp(x, "bruck")) s += ceil_log2(g) * m->alpha[TC_LVL_NET] + xbytes;
    else if (!strcmp(x, "ring")) s += (g - 1) * m->alpha[TC_LVL_NET] + xbytes;
    else return -1;
    if (!strcmp(dist, "bcast")) s += ceil_log2(mm) * (m->alpha[li] + p * n * m->beta[li]) + p * n * m->beta[0];
    else if (!strcmp(dist, "shm")) s += m->alpha[TC_LVL_SOCKET] + p * n * m->beta[TC_LVL_SOCKET];
    else return -1;
    return s;
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
    if (al && al->family && !strcmp(al->family, "hierarchical")) return hier_allgather(m, al, t, n);
    return -1;
}

static double bcast_cost(const tc_model_params *m, const char *name, const tc_topo *t, double n)
{
    int p = t->size;
    if (!strcmp(name, "binomial")) return binomial(m, t, n, 0);
    if (!strcmp(name, "scatter_allgather"))
        return binomial(m, t, n / p, 0) + (double)(p - 1) / p * n * m->beta[TC_LVL_NET] / 2 +
               ring_steps(m, t, p - 1, n / p);
    return -1;
}

static double reduce_cost(const tc_model_params *m, const char *name, const tc_topo *t, double n)
{
    int p = t->size;
    double f = (double)(p - 1) / p;
    if (!strcmp(name, "binomial")) return binomial(m, t, n, n * m->gamma);
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
    switch (coll) {
    case TOPOCOLL_ALLGATHER: return allgather_cost(m, name, al, t, n);
    case TOPOCOLL_BCAST: return bcast_cost(m, name, t, n);
    case TOPOCOLL_REDUCE: return reduce_cost(m, name, t, n);
    case TOPOCOLL_ALLREDUCE: return allreduce_cost(m, name, t, n);
    case TOPOCOLL_ALLTOALL: return alltoall_cost(m, name, t, n);
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
    switch (coll) {
    case TOPOCOLL_ALLGATHER: return ag;
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
    for (int i = 0; i < tc_catalog_count(a->coll); i++) {
        const tc_algo *al = tc_catalog_at(a->coll, i);
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

/* ---- memo ---------------------------------------------------------------------- */

typedef struct memo_key {
    const tc_model_params *m;
    int coll, size, nnodes, nsockets, ppn, ident, node_shm, cls;
} memo_key;

typedef struct memo_entry {
    int used;
    memo_key k;
    tc_model_pick pk;
} memo_entry;

#define MEMO_SLOTS 256
static memo_entry memo[MEMO_SLOTS];
static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned key_hash(const memo_key *k)
{
    unsigned h = (unsigned)k->coll * 31u + (unsigned)k->size;
    h = h * 131u + (unsigned)k->nnodes * 7u + (unsigned)k->nsockets;
    h = h * 131u + (unsigned)k->ppn + (unsigned)k->ident * 3u + (unsigned)k->node_shm;
    return (h * 131u + (unsigned)k->cls) % MEMO_SLOTS;
}

static int key_eq(const memo_key *x, const memo_key *y)
{
    return x->m == y->m && x->coll == y->coll && x->size == y->size && x->nnodes == y->nnodes &&
           x->nsockets == y->nsockets && x->ppn == y->ppn && x->ident == y->ident &&
           x->node_shm == y->node_shm && x->cls == y->cls;
}

tc_model_pick tc_model_choose_memo(const tc_model_params *m, const tc_args *a, const tc_topo *t,
                                   int64_t bytes)
{
    int cls = 0;
    while (cls < 62 && ((int64_t)1 << cls) < bytes) cls++;
    memo_key k = { m, (int)a->coll, a->size, t->nnodes, t->nsockets, max_ppn(t),
                   t->node_order_ident * 2 + t->sock_order_ident, a->node_shm != 0, cls };
    memo_entry *e = &memo[key_hash(&k)];
    tc_model_pick pk;
    int hit = 0;
    if (pthread_mutex_lock(&memo_lock) == 0) {
        if (e->used && key_eq(&e->k, &k)) {
            pk = e->pk;
            hit = 1;
        }
        (void)pthread_mutex_unlock(&memo_lock);
    }
    if (!hit) {
        pk = tc_model_choose(m, a, t, (int64_t)1 << cls);
        if (pthread_mutex_lock(&memo_lock) == 0) {
            e->used = 1;
            e->k = k;
            e->pk = pk;
            (void)pthread_mutex_unlock(&memo_lock);
        }
    }
    const char *why;
    if (pk.algo && !tc_algo_accepts(pk.algo, a, t, &why)) pk.algo = NULL;
    return pk;
}

void tc_model_memo_clear(void)
{
    if (pthread_mutex_lock(&memo_lock) != 0) return;
    memset(memo, 0, sizeof memo);
    (void)pthread_mutex_unlock(&memo_lock);
}
