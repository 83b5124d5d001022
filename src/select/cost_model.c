/*
 * The cost model (see cost_model.h): the pricing of the entries' costs, the
 * prediction of native, the choice with its margin, the ranking, and the
 * memo.
 *
 * The formulas are not here: every catalog entry carries its cost function
 * (tc_algo.cost, a family's tc_family.cost; src/algo/catalog.h), next to
 * its algorithm, and fills a tc_cost (messages and bytes per level on the
 * critical path, reduced bytes, node-memory bytes, the traffic per level);
 * tc_model_price turns it into seconds with the parameters.  A new entry
 * with a cost function is considered by the model with no edit here;
 * tests/unit/test_cost_check.c checks every cost function against the
 * schedules its generator builds.
 *
 * Native: the best of the flat algorithms the MPI libraries choose among
 * (their own selection is assumed to be good): allgather and allgatherv
 * recursive doubling where p is a power of two, Bruck, ring, neighbor
 * exchange at even p; bcast binomial, scatter-allgather; gather, scatter
 * binomial; reduce binomial, Rabenseifner; reduce_scatter_block recursive
 * halving at power-of-two p (a cost-only row in
 * src/algo/reduce_scatter_block/native.c), pairwise; allreduce recursive
 * doubling, ring, reduce-scatter-allgather (folded at any p, as MPICH does);
 * alltoall Bruck, pairwise; alltoallv pairwise; alltoallw, gatherv, scatterv
 * linear (both libraries' default).
 */
#include "select/cost_model.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/fp_env.h"

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

/* ---- pricing ------------------------------------------------------------------ */

double tc_model_price(const tc_model_params *m, const tc_cost *c)
{
    double s = c->reduced * m->gamma + c->mem * m->beta[TC_LVL_SOCKET];
    for (int l = 0; l < TC_NLEVELS; l++) s += c->msgs[l] * m->alpha[l] + c->bytes[l] * m->beta[l];
    return s;
}

int tc_model_cost(const tc_algo *al, const tc_args *a, const tc_topo *t, int64_t bytes, tc_cost *c)
{
    memset(c, 0, sizeof *c);
    if (!al || !al->cost || t->size < 2 || t->size != a->size) return -1;
    return al->cost(al, a, t, (double)bytes, c) == 0 ? 0 : -1;
}

double tc_model_predict(const tc_model_params *m, const tc_algo *al, const tc_args *a,
                        const tc_topo *t, int64_t bytes)
{
    tc_cost c;
    if (!al || !al->generate || tc_model_cost(al, a, t, bytes, &c) != 0) return -1;
    return tc_model_price(m, &c);
}

/* What the MPI libraries choose among, per collective (NULL-terminated);
 * pow2: the libraries use it only at a power-of-two p (allgather's
 * recursive doubling: Open MPI needs it, MPICH folds only its reductions). */
typedef struct native_alg {
    const tc_algo *al;
    int pow2;
} native_alg;

extern const tc_algo tc_allgather_recursive_doubling, tc_allgather_bruck, tc_allgather_ring,
    tc_allgather_neighbor_exchange, tc_bcast_binomial, tc_bcast_scatter_allgather, tc_reduce_binomial,
    tc_reduce_rabenseifner, tc_allreduce_recursive_doubling, tc_allreduce_ring,
    tc_allreduce_reduce_scatter_allgather, tc_alltoall_bruck, tc_alltoall_pairwise, tc_scatter_binomial,
    tc_gather_binomial, tc_reduce_scatter_block_library_halving, tc_reduce_scatter_block_pairwise,
    tc_alltoallv_pairwise, tc_barrier_dissemination, tc_barrier_recursive_doubling,
    tc_scan_recursive_doubling, tc_exscan_recursive_doubling, tc_alltoallw_linear;
extern const tc_algo tc_reduce_scatter_recursive_halving, tc_reduce_scatter_pairwise;
extern const tc_algo tc_gatherv_linear, tc_scatterv_linear;

static const native_alg *native_set(topocoll_coll coll)
{
    static const native_alg ag[] = { { &tc_allgather_recursive_doubling, 1 }, { &tc_allgather_bruck, 0 },
                                     { &tc_allgather_ring, 0 }, { &tc_allgather_neighbor_exchange, 0 },
                                     { NULL, 0 } };
    static const native_alg bc[] = { { &tc_bcast_binomial, 0 }, { &tc_bcast_scatter_allgather, 0 }, { NULL, 0 } };
    static const native_alg rd[] = { { &tc_reduce_binomial, 0 }, { &tc_reduce_rabenseifner, 0 }, { NULL, 0 } };
    static const native_alg ar[] = { { &tc_allreduce_recursive_doubling, 0 }, { &tc_allreduce_ring, 0 },
                                     { &tc_allreduce_reduce_scatter_allgather, 0 }, { NULL, 0 } };
    static const native_alg aa[] = { { &tc_alltoall_bruck, 0 }, { &tc_alltoall_pairwise, 0 }, { NULL, 0 } };
    static const native_alg sc[] = { { &tc_scatter_binomial, 0 }, { NULL, 0 } };
    static const native_alg ga[] = { { &tc_gather_binomial, 0 }, { NULL, 0 } };
    static const native_alg rs[] = { { &tc_reduce_scatter_block_library_halving, 1 },
                                     { &tc_reduce_scatter_block_pairwise, 0 }, { NULL, 0 } };
    static const native_alg av[] = { { &tc_alltoallv_pairwise, 0 }, { NULL, 0 } };
    static const native_alg rsv[] = { { &tc_reduce_scatter_recursive_halving, 0 },
                                      { &tc_reduce_scatter_pairwise, 0 }, { NULL, 0 } };
    /* gatherv, scatterv: the libraries' linear default */
    static const native_alg gv[] = { { &tc_gatherv_linear, 0 }, { NULL, 0 } };
    static const native_alg sv[] = { { &tc_scatterv_linear, 0 }, { NULL, 0 } };
    static const native_alg ba[] = { { &tc_barrier_dissemination, 0 }, { &tc_barrier_recursive_doubling, 0 },
                                     { NULL, 0 } };
    static const native_alg scn[] = { { &tc_scan_recursive_doubling, 0 }, { NULL, 0 } };
    static const native_alg exs[] = { { &tc_exscan_recursive_doubling, 0 }, { NULL, 0 } };
    static const native_alg aw[] = { { &tc_alltoallw_linear, 0 }, { NULL, 0 } };
    switch (coll) {
    case TOPOCOLL_ALLGATHER:
    case TOPOCOLL_ALLGATHERV: return ag;
    case TOPOCOLL_SCATTER: return sc;
    case TOPOCOLL_GATHER: return ga;
    case TOPOCOLL_REDUCE_SCATTER_BLOCK: return rs;
    case TOPOCOLL_ALLTOALLV: return av;
    case TOPOCOLL_REDUCE_SCATTER: return rsv;
    case TOPOCOLL_ALLTOALLW: return aw;
    case TOPOCOLL_BCAST: return bc;
    case TOPOCOLL_REDUCE: return rd;
    case TOPOCOLL_ALLREDUCE: return ar;
    case TOPOCOLL_ALLTOALL: return aa;
    case TOPOCOLL_GATHERV: return gv;
    case TOPOCOLL_SCATTERV: return sv;
    case TOPOCOLL_BARRIER: return ba;
    case TOPOCOLL_SCAN: return scn;
    case TOPOCOLL_EXSCAN: return exs;
    default: return NULL;
    }
}

double tc_model_native(const tc_model_params *m, const tc_args *a, const tc_topo *t, int64_t bytes)
{
    const native_alg *set = native_set(a->coll);
    double best = -1;
    if (!set || t->size != a->size) return -1;
    for (int i = 0; set[i].al; i++) {
        tc_cost c;
        if (set[i].pow2 && (t->size & (t->size - 1))) continue;
        if (tc_model_cost(set[i].al, a, t, bytes, &c) != 0) continue;
        double s = tc_model_price(m, &c);
        if (best < 0 || s < best) best = s;
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
