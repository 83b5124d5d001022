/* Leader groups (see groups.h).  O(p log p) time, O(p) memory. */
#include "blocks/groups.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void tc_groups_free(tc_groups *g)
{
    free(g->group_of);
    free(g->pos);
    free(g->start);
    free(g->members);
    free(g->leaders);
    free(g->node_first);
    memset(g, 0, sizeof *g);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The node's ranks in socket-major order into list; returns the count. */
static int socket_major(const tc_topo *t, int node, int *list)
{
    int n = 0;
    for (int s = t->node_sock_start[node]; s < t->node_sock_start[node + 1]; s++) {
        const int *m = tc_topo_sock_members(t, s);
        for (int i = 0; i < tc_topo_sock_size(t, s); i++) list[n++] = m[i];
    }
    return n;
}

/* Chunk boundaries of the node's list: chunk c = [cut[c], cut[c+1]). */
static int chunks(const tc_topo *t, int node, int mode, int k, int m, int *cut)
{
    int nc = 0;
    if (mode == TC_GROUPS_SOCKET) {
        int at = 0;
        for (int s = t->node_sock_start[node]; s < t->node_sock_start[node + 1]; s++) {
            if (tc_topo_sock_size(t, s) == 0) continue;
            cut[nc++] = at;
            at += tc_topo_sock_size(t, s);
        }
        cut[nc] = m;
        return nc;
    }
    nc = mode == TC_GROUPS_K ? (k < m ? k : m) : 1;
    if (nc < 1) nc = 1;
    for (int c = 0, at = 0; c <= nc; c++) {
        cut[c] = at;
        at += m / nc + (c < m % nc);
    }
    return nc;
}

/* Lay out one node's groups at position *at, group ids from *gid. */
static void node_groups(tc_groups *g, const tc_topo *t, int node, int mode, int k, int packed,
                        int *list, int *cut, int *gid, int *at)
{
    int m = socket_major(t, node, list);
    int nc = chunks(t, node, mode, k, m, cut);
    for (int c = 0; c < nc; c++) {
        int grp = *gid + c;
        for (int i = cut[c]; i < cut[c + 1]; i++) g->group_of[list[i]] = grp;
        g->leaders[grp] = list[cut[c]];
    }
    if (packed)
        for (int c = 0; c < nc; c++) {     /* leader c is the c-th rank of the node */
            g->leaders[*gid + c] = list[c];
            g->group_of[list[c]] = *gid + c;
        }
    for (int c = 0; c < nc; c++) {
        int grp = *gid + c, n = 0;
        g->start[grp] = *at;
        g->members[(*at)++] = g->leaders[grp];
        int *rest = g->members + *at;
        for (int i = 0; i < m; i++)
            if (g->group_of[list[i]] == grp && list[i] != g->leaders[grp]) rest[n++] = list[i];
        qsort(rest, (size_t)n, sizeof *rest, cmp_int);
        *at += n;
    }
    *gid += nc;
}

int tc_groups_build(tc_groups *g, const tc_topo *t, int mode, int k, int packed)
{
    int p = t->size, maxn = 0;
    memset(g, 0, sizeof *g);
    for (int n = 0; n < t->nnodes; n++)
        if (tc_topo_node_size(t, n) > maxn) maxn = tc_topo_node_size(t, n);
    g->p = p;
    g->group_of = malloc((size_t)p * sizeof(int));
    g->pos = malloc((size_t)p * sizeof(int));
    g->start = malloc((size_t)(p + 1) * sizeof(int));
    g->members = malloc((size_t)p * sizeof(int));
    g->leaders = malloc((size_t)p * sizeof(int));
    g->node_first = malloc((size_t)(t->nnodes + 1) * sizeof(int));
    int *list = malloc((size_t)(maxn + 1) * sizeof(int));
    int *cut = malloc((size_t)(maxn + 2) * sizeof(int));
    if (!g->group_of || !g->pos || !g->start || !g->members || !g->leaders || !g->node_first ||
        !list || !cut) {
        free(list);
        free(cut);
        tc_groups_free(g);
        return ENOMEM;
    }
    int gid = 0, at = 0;
    for (int n = 0; n < t->nnodes; n++) {
        g->node_first[n] = gid;
        node_groups(g, t, n, mode, k, packed, list, cut, &gid, &at);
    }
    g->node_first[t->nnodes] = gid;
    g->ngroups = gid;
    g->start[gid] = at;
    for (int x = 0; x < p; x++) g->pos[g->members[x]] = x;
    free(list);
    free(cut);
    return 0;
}

/* ---- cached on the topology ------------------------------------------------ */

enum { GROUPS_VIEW_BASE = 0x67720000 };   /* "gr": this file's view kinds */

static void *make_groups(const tc_topo *t, int key)
{
    tc_groups *g = malloc(sizeof *g);
    if (!g) return NULL;
    int mode = (key >> 12) & 0xf, k = (key >> 1) & 0x7ff, packed = key & 1;
    if (tc_groups_build(g, t, mode, k, packed) != 0) {
        free(g);
        return NULL;
    }
    return g;
}

static void free_groups(void *data)
{
    tc_groups_free(data);
    free(data);
}

const tc_groups *tc_groups_of(const tc_topo *t, int mode, int k, int packed)
{
    if (mode < 0 || mode > 0xf || k < 0 || k > 0x7ff) return NULL;
    int key = (mode << 12) | (k << 1) | (packed != 0);
    return tc_topo_get_view(t, GROUPS_VIEW_BASE | key, make_groups, key, free_groups);
}
