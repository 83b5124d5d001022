/*
 * Topology objects: normalise arbitrary per-rank (node, socket) labels into
 * the numbered, CSR-indexed form whose invariants topo.h documents; build
 * flat topologies; deep-copy and free.  O(size log size) time, O(size) memory.
 */
#include "topo/topo.h"

#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Sort key: group by (k1, k2), then by rank, so a group's first entry is its
 * lowest rank. */
typedef struct tc_key {
    int k1;
    int k2;
    int rank;
} tc_key;

static int key_cmp(const void *pa, const void *pb)
{
    const tc_key *a = pa, *b = pb;
    if (a->k1 != b->k1) return a->k1 < b->k1 ? -1 : 1;
    if (a->k2 != b->k2) return a->k2 < b->k2 ? -1 : 1;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    return 0;
}

static int *alloc_ints(size_t n)
{
    return malloc((n ? n : 1) * sizeof(int));
}

static int *dup_ints(const int *src, size_t n)
{
    int *dst;
    if (!src) return NULL;
    dst = alloc_ints(n);
    if (dst) memcpy(dst, src, n * sizeof(int));
    return dst;
}

const void *tc_topo_get_view(const tc_topo *t, int kind, void *(*make)(const tc_topo *t, int arg),
                         int arg, void (*free_fn)(void *data))
{
    tc_topo *mt = (tc_topo *)t;   /* the cache is not part of the topology's value */
    for (;;) {
        tc_topo_view *head = atomic_load_explicit(&mt->views, memory_order_acquire);
        for (tc_topo_view *v = head; v; v = v->next)
            if (v->kind == kind) return v->data;
        tc_topo_view *n = malloc(sizeof *n);
        void *data = n ? make(t, arg) : NULL;
        if (!data) {
            free(n);
            return NULL;
        }
        *n = (tc_topo_view){ head, kind, data, free_fn };
        if (atomic_compare_exchange_strong_explicit(&mt->views, &head, n, memory_order_acq_rel,
                                                    memory_order_acquire))
            return data;
        free_fn(data);   /* another thread published first: look again */
        free(n);
    }
}

static void free_views(tc_topo *t)
{
    tc_topo_view *v = atomic_load_explicit(&t->views, memory_order_acquire);
    while (v) {
        tc_topo_view *next = v->next;
        v->free_fn(v->data);
        free(v);
        v = next;
    }
}

void tc_topo_free(tc_topo *t)
{
    if (!t) return;
    free_views(t);
    free(t->node_of);
    free(t->sock_of);
    free(t->node_idx);
    free(t->sock_idx);
    free(t->node_start);
    free(t->node_ranks);
    free(t->sock_start);
    free(t->sock_ranks);
    free(t->sock_node);
    free(t->node_sock_start);
    free(t);
}

/* Sorts keys and writes, for every rank, the lowest rank of its (k1, k2)
 * group into leader[rank]. */
static void group_leaders(tc_key *keys, int size, int *leader)
{
    int i, first = 0;
    qsort(keys, (size_t)size, sizeof *keys, key_cmp);
    for (i = 0; i < size; i++) {
        if (i > 0 && (keys[i].k1 != keys[first].k1 || keys[i].k2 != keys[first].k2))
            first = i;
        leader[keys[i].rank] = keys[first].rank;
    }
}

/* Turns node_of[] from leader ranks into node ids numbered by lowest rank.
 * A leader is its own lowest rank, so every non-leader's leader has already
 * been renumbered when we reach it. */
static int number_nodes(int size, int *node_of)
{
    int r, n = 0;
    for (r = 0; r < size; r++) {
        int lead = node_of[r];
        node_of[r] = (lead == r) ? n++ : node_of[lead];
    }
    return n;
}

/* Turns sock_of[] from leader ranks into socket ids local to each node
 * (numbered by lowest rank), counting sockets per node into per_node[]. */
static void number_local_sockets(int size, const int *node_of, int *sock_of,
                                 int *per_node)
{
    int r;
    for (r = 0; r < size; r++) {
        int lead = sock_of[r];
        sock_of[r] = (lead == r) ? per_node[node_of[r]]++ : sock_of[lead];
    }
}

/* Writes the CSR offsets of counts[0..n-1] into start[0..n] (start must not
 * alias counts). */
static void prefix_sum(const int *counts, int n, int *start)
{
    int i, acc = 0;
    for (i = 0; i < n; i++) {
        int c = counts[i];
        start[i] = acc;
        acc += c;
    }
    start[n] = acc;
}

/* Fills a CSR member list: ranks in increasing order inside each group, and
 * each rank's index inside its group.  start[] must hold group sizes'
 * offsets; cursor is scratch of ngroups ints. */
static void fill_members(int size, const int *group_of, const int *start,
                         int *cursor, int ngroups, int *members, int *idx)
{
    int r;
    memcpy(cursor, start, (size_t)ngroups * sizeof(int));
    for (r = 0; r < size; r++) {
        int g = group_of[r];
        int pos = cursor[g]++;
        members[pos] = r;
        idx[r] = pos - start[g];
    }
}

static int labels_valid(int size, const int *node_label, const int *sock_label)
{
    int r;
    if (size < 1 || !node_label || !sock_label) return 0;
    for (r = 0; r < size; r++)
        if (node_label[r] < 0 || sock_label[r] < 0) return 0;
    return 1;
}

/* Per-rank arrays, allocated before the group counts are known. */
static int alloc_rank_arrays(tc_topo *t)
{
    size_t n = (size_t)t->size;
    t->node_of = alloc_ints(n);
    t->sock_of = alloc_ints(n);
    t->node_idx = alloc_ints(n);
    t->sock_idx = alloc_ints(n);
    t->node_ranks = alloc_ints(n);
    t->sock_ranks = alloc_ints(n);
    return t->node_of && t->sock_of && t->node_idx && t->sock_idx &&
           t->node_ranks && t->sock_ranks;
}

/* Turns counts[0..n-1] (n + 1 entries allocated) into offsets, in place. */
static int offsets_in_place(int *counts, int n)
{
    int i, acc = 0;
    for (i = 0; i < n; i++) {
        int c = counts[i];
        counts[i] = acc;
        acc += c;
    }
    counts[n] = acc;
    return acc;
}

/* Steps 1-2: node ids, then sockets (local ids, per-node counts, global
 * ids).  keys is scratch of size entries. */
static int assign_groups(tc_topo *t, const int *node_label, const int *sock_label,
                         tc_key *keys)
{
    int r, size = t->size;

    for (r = 0; r < size; r++) {
        keys[r].k1 = node_label[r];
        keys[r].k2 = 0;
        keys[r].rank = r;
    }
    group_leaders(keys, size, t->node_of);
    t->nnodes = number_nodes(size, t->node_of);

    t->node_sock_start = calloc((size_t)t->nnodes + 1, sizeof(int));
    if (!t->node_sock_start) return -1;
    for (r = 0; r < size; r++) {
        keys[r].k1 = t->node_of[r];
        keys[r].k2 = sock_label[r];
        keys[r].rank = r;
    }
    group_leaders(keys, size, t->sock_of);
    number_local_sockets(size, t->node_of, t->sock_of, t->node_sock_start);
    t->nsockets = offsets_in_place(t->node_sock_start, t->nnodes);
    for (r = 0; r < size; r++)
        t->sock_of[r] += t->node_sock_start[t->node_of[r]];
    return 0;
}

/* Step 3: CSR member lists, indices and sock_node. */
static int build_csr(tc_topo *t)
{
    int r, g, size = t->size;
    int ng = t->nnodes > t->nsockets ? t->nnodes : t->nsockets;
    int *counts = calloc((size_t)ng, sizeof(int));

    t->node_start = alloc_ints((size_t)t->nnodes + 1);
    t->sock_start = alloc_ints((size_t)t->nsockets + 1);
    t->sock_node = alloc_ints((size_t)t->nsockets);
    if (!counts || !t->node_start || !t->sock_start || !t->sock_node) {
        free(counts);
        return -1;
    }
    for (r = 0; r < size; r++) counts[t->node_of[r]]++;
    prefix_sum(counts, t->nnodes, t->node_start);
    fill_members(size, t->node_of, t->node_start, counts, t->nnodes,
                 t->node_ranks, t->node_idx);

    memset(counts, 0, (size_t)t->nsockets * sizeof(int));
    for (r = 0; r < size; r++) counts[t->sock_of[r]]++;
    prefix_sum(counts, t->nsockets, t->sock_start);
    fill_members(size, t->sock_of, t->sock_start, counts, t->nsockets,
                 t->sock_ranks, t->sock_idx);

    for (g = 0; g < t->nsockets; g++)
        t->sock_node[g] = t->node_of[t->sock_ranks[t->sock_start[g]]];
    t->node_order_ident = t->sock_order_ident = 1;
    for (r = 0; r < size; r++) {
        if (t->node_ranks[r] != r) t->node_order_ident = 0;
        if (t->sock_ranks[r] != r) t->sock_order_ident = 0;
    }
    free(counts);
    return 0;
}

tc_topo *tc_topo_from_map(int size, const int *node_label, const int *sock_label)
{
    tc_topo *t;
    tc_key *keys;

    if (!labels_valid(size, node_label, sock_label)) return NULL;
    t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->size = size;
    keys = malloc((size_t)size * sizeof *keys);
    if (!keys || !alloc_rank_arrays(t) ||
        assign_groups(t, node_label, sock_label, keys) != 0 ||
        build_csr(t) != 0) {
        free(keys);
        tc_topo_free(t);
        return NULL;
    }
    free(keys);
    snprintf(t->desc, sizeof t->desc, "map: %d node%s, %d socket%s",
             t->nnodes, t->nnodes == 1 ? "" : "s",
             t->nsockets, t->nsockets == 1 ? "" : "s");
    return t;
}

tc_topo *tc_topo_flat(int size)
{
    int *zeros;
    tc_topo *t;

    if (size < 1) return NULL;
    zeros = calloc((size_t)size, sizeof(int));
    if (!zeros) return NULL;
    t = tc_topo_from_map(size, zeros, zeros);
    free(zeros);
    if (t) snprintf(t->desc, sizeof t->desc, "flat: 1 node, 1 socket");
    return t;
}

tc_topo *tc_topo_dup(const tc_topo *t)
{
    tc_topo *d;
    size_t n, nn, ns;

    if (!t || t->size < 1 || t->nnodes < 1 || t->nsockets < 1) return NULL;
    d = calloc(1, sizeof *d);
    if (!d) return NULL;
    n = (size_t)t->size;
    nn = (size_t)t->nnodes;
    ns = (size_t)t->nsockets;
    d->size = t->size;
    d->nnodes = t->nnodes;
    d->nsockets = t->nsockets;
    memcpy(d->desc, t->desc, sizeof d->desc);
    d->desc[sizeof d->desc - 1] = '\0';
    d->node_order_ident = t->node_order_ident;
    d->virtual_nodes = t->virtual_nodes;
    d->sock_order_ident = t->sock_order_ident;
    d->node_of = dup_ints(t->node_of, n);
    d->sock_of = dup_ints(t->sock_of, n);
    d->node_idx = dup_ints(t->node_idx, n);
    d->sock_idx = dup_ints(t->sock_idx, n);
    d->node_start = dup_ints(t->node_start, nn + 1);
    d->node_ranks = dup_ints(t->node_ranks, n);
    d->sock_start = dup_ints(t->sock_start, ns + 1);
    d->sock_ranks = dup_ints(t->sock_ranks, n);
    d->sock_node = dup_ints(t->sock_node, ns);
    d->node_sock_start = dup_ints(t->node_sock_start, nn + 1);
    if (!d->node_of || !d->sock_of || !d->node_idx || !d->sock_idx ||
        !d->node_start || !d->node_ranks || !d->sock_start ||
        !d->sock_ranks || !d->sock_node || !d->node_sock_start) {
        tc_topo_free(d);
        return NULL;
    }
    return d;
}
