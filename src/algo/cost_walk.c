/* The cost functions' shared steps (see cost_walk.h). */
#include "algo/cost_walk.h"

#include <stdlib.h>
#include <string.h>

int tc_cw_level(const tc_topo *t, int i, int j)
{
    if (t->sock_of[i] == t->sock_of[j]) return TC_LVL_SOCKET;
    return t->node_of[i] == t->node_of[j] ? TC_LVL_NODE : TC_LVL_NET;
}

int tc_cw_intra_level(const tc_topo *t)
{
    return t->nsockets > t->nnodes ? TC_LVL_NODE : TC_LVL_SOCKET;
}

int tc_cw_max_ppn(const tc_topo *t)
{
    int m = 1;
    for (int i = 0; i < t->nnodes; i++)
        if (t->node_start[i + 1] - t->node_start[i] > m) m = t->node_start[i + 1] - t->node_start[i];
    return m;
}

int tc_cw_sockets_per_node(const tc_topo *t)
{
    return t->nsockets > t->nnodes ? (t->nsockets + t->nnodes - 1) / t->nnodes : 1;
}

int tc_cw_ceil_log2(int p)
{
    int k = 0;
    while ((1 << k) < p) k++;
    return k;
}

void tc_cw_step(tc_cost *c, const tc_topo *t, tc_cw_pair pair, const void *ctx, int d, double n)
{
    int p = t->size, lvl = -1, crowd = 0;
    double most = 0;
    int *out = calloc((size_t)t->nnodes, sizeof *out);
    for (int r = 0; r < p; r++) {
        double b = 1;
        int q = pair(ctx, r, p, d, &b);
        if (q < 0 || q == r || b <= 0) continue;
        int l = tc_cw_level(t, r, q);
        c->total[l] += b * n;
        if (l > lvl) lvl = l;
        if (b > most) most = b;
        if (l == TC_LVL_NET && out && ++out[t->node_of[r]] > crowd) crowd = out[t->node_of[r]];
    }
    free(out);
    if (lvl < 0) return;
    c->msgs[lvl] += 1;
    c->bytes[lvl] += most * n * (lvl == TC_LVL_NET && crowd > 1 ? crowd : 1);
}

const char *tc_cw_param(const tc_algo *al, const char *key)
{
    const tc_entry *e = tc_catalog_entry_of(al);
    const int *v = al->param;
    if (!e || !e->family || !v) return "";
    for (int k = 0; k < e->family->nparams; k++)
        if (!strcmp(e->family->params[k].key, key)) return e->family->params[k].values[v[k]];
    return "";
}

int tc_cw_shift(const void *ctx, int r, int p, int d, double *blocks)
{
    (void)ctx;
    *blocks = 1;
    return (r + d) % p;
}

int tc_cw_xor(const void *ctx, int r, int p, int d, double *blocks)
{
    (void)ctx;
    *blocks = 1;
    return (r ^ d) < p ? r ^ d : -1;
}

/* Relative rank of r to the root *ctx (0 when ctx is NULL) and back. */
static int rel(const void *ctx, int r, int p) { return ctx ? (r - *(const int *)ctx + p) % p : r; }
static int abs_of(const void *ctx, int v, int p) { return ctx ? (v + *(const int *)ctx) % p : v; }

int tc_cw_tree(const void *ctx, int r, int p, int d, double *blocks)
{
    int v = rel(ctx, r, p);
    *blocks = 1;
    return v % (2 * d) == 0 && v + d < p ? abs_of(ctx, v + d, p) : -1;
}

int tc_cw_up(const void *ctx, int r, int p, int d, double *blocks)
{
    int v = rel(ctx, r, p);
    *blocks = 1;
    return v % (2 * d) == d ? abs_of(ctx, v - d, p) : -1;
}

int tc_cw_subtree(const void *ctx, int r, int p, int d, double *blocks)
{
    int v = rel(ctx, r, p);
    if (v % (2 * d) != 0 || v + d >= p) return -1;
    *blocks = d < p - v - d ? d : p - v - d;
    return abs_of(ctx, v + d, p);
}

int tc_cw_subtree_up(const void *ctx, int r, int p, int d, double *blocks)
{
    int v = rel(ctx, r, p);
    if (v % (2 * d) != d) return -1;
    *blocks = d < p - v ? d : p - v;
    return abs_of(ctx, v - d, p);
}

int tc_cw_fold_new(int p, int r)
{
    int rem = p - tc_cw_pow2_floor(p);
    if (r < 2 * rem) return r % 2 ? -1 : r / 2;
    return r - rem;
}

int tc_cw_fold_old(int p, int v)
{
    int rem = p - tc_cw_pow2_floor(p);
    return v < rem ? 2 * v : v + rem;
}

int tc_cw_pow2_floor(int p)
{
    int q = 1;
    while (2 * q <= p) q *= 2;
    return q;
}

/* The root's send of step d (ctx: the root). */
static int from_root(const void *ctx, int r, int p, int d, double *blocks)
{
    int root = *(const int *)ctx;
    if (r != root) return -1;
    *blocks = 1;
    return (root + d) % p;
}

int tc_cw_cost_from_root(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    int root = a->root >= 0 && a->root < t->size ? a->root : 0;
    for (int d = 1; d < t->size; d++) tc_cw_step(c, t, from_root, &root, d, n);
    return 0;
}

int tc_cw_all_distances(tc_cost *c, const tc_topo *t, double n)
{
    if (t->size > 2048) return -1;
    for (int d = 1; d < t->size; d++) tc_cw_step(c, t, tc_cw_shift, NULL, d, n);
    return 0;
}

int tc_cw_fold_halving(tc_cost *c, const tc_topo *t, double n)
{
    int p = t->size, q = tc_cw_pow2_floor(p);
    if (q < p) {
        tc_cw_step(c, t, tc_cw_fold_in, NULL, 0, n);
        c->reduced += n;
    }
    for (int d = 1; d < q; d <<= 1) {
        tc_cw_step(c, t, tc_cw_fold_xor, NULL, d, n / (2 * d));
        c->reduced += n / (2 * d);
    }
    return q;
}

int tc_cw_fold_xor(const void *ctx, int r, int p, int d, double *blocks)
{
    (void)ctx;
    int v = tc_cw_fold_new(p, r);
    if (v < 0) return -1;
    *blocks = 1;
    return tc_cw_fold_old(p, v ^ d);
}

int tc_cw_fold_in(const void *ctx, int r, int p, int d, double *blocks)
{
    (void)ctx;
    (void)d;
    int rem = p - tc_cw_pow2_floor(p);
    *blocks = 1;
    return r < 2 * rem && r % 2 ? r - 1 : -1;
}

int tc_cw_fold_out(const void *ctx, int r, int p, int d, double *blocks)
{
    (void)ctx;
    (void)d;
    int rem = p - tc_cw_pow2_floor(p);
    *blocks = 1;
    return r < 2 * rem && r % 2 == 0 ? r + 1 : -1;
}
