/*
 * Indirect networks for comparison with the direct ones:
 *
 *   switch:nodes=N[,c=C]      one crossbar; every node has an injection link
 *       (node -> switch, id = node) and an ejection link (switch -> node,
 *       id = N + node), tier "host".  Route: injection, ejection.
 *   fattree:leaves=L,nodes=N,spines=S[,c=C]   a two-level leaf/spine fat
 *       tree (folded Clos): N nodes per leaf switch, every leaf linked to
 *       every spine.  Tier "host": up node -> leaf (id = node), down leaf ->
 *       node (id = M + node), M = L*N.  Tier "spine": up leaf l -> spine s
 *       (id = 2M + l*S + s), down spine s -> leaf l (id = 2M + L*S + s*L + l).
 *       Route: same leaf: up, down; otherwise up, leaf -> spine, spine ->
 *       leaf, down, through spine (destination node mod S) -- destination-
 *       based "d-mod-k" routing, deterministic like InfiniBand's tables.
 * Vertices: nodes first; then the switch (switch) or the leaves, then the
 *   spines (fattree).  Groups: the whole switch / one leaf.
 * Cost: O(1) per route (one modulo); O(nodes) memory.
 * Source: Leiserson 1985 (fat trees); Zahavi et al. 2009 (d-mod-k routing).
 */
#include "sim/net_impl.h"

#include <stdio.h>
#include <stdlib.h>

static int route_switch(const tc_net *n, int src, int dst, int32_t *out)
{
    out[0] = src;
    out[1] = n->nnodes + dst;
    return 2;
}

static void ends_switch(const tc_net *n, int link, int *from, int *to)
{
    int N = n->nnodes;
    *from = link < N ? link : N;
    *to = link < N ? N : link - N;
}

static void vname_switch(const tc_net *n, int v, char *buf, size_t len)
{
    if (v < n->nnodes) snprintf(buf, len, "n%d", v);
    else snprintf(buf, len, "sw");
}

tc_net *net_build_switch(const net_errctx *e, const char *params)
{
    net_key k[] = { { "nodes", 1, 0, NULL, 0, 0 }, { "c", 0, 1, NULL, 0, 0 } };
    int64_t links;
    if (net_parse_keys(e, params, k, 2) != 0) return NULL;
    if (!net_mul(k[0].val, 2, TC_NET_MAX_LINKS, &links))
        return net_fail(e, "too many links (limit %d)", TC_NET_MAX_LINKS);
    tc_net *n = calloc(1, sizeof *n);
    if (!n) return net_fail(e, "out of memory");
    n->kind = TC_NET_SWITCH;
    n->ngroups = 1;
    n->cpn = k[1].val;
    n->route = route_switch;
    n->ends = ends_switch;
    n->vname = vname_switch;
    net_add_tier(n, "host", 0, links);
    if (net_finish(e, n, k[0].val, links, 0) != 0) {
        tc_net_free(n);
        return NULL;
    }
    n->nvertices = n->nnodes + 1;
    for (int v = 0; v < n->nnodes; v++) {
        n->group_of[v] = 0;
        n->index_of[v] = v;
    }
    snprintf(n->spec, sizeof n->spec, "switch:nodes=%d,c=%d", n->nnodes, n->cpn);
    snprintf(n->desc, sizeof n->desc, "single switch: %d nodes x %d cores", n->nnodes, n->cpn);
    return n;
}

/* fattree: n->a = nodes per leaf, n->h = spines, n->ngroups = leaves. */
static int route_fattree(const tc_net *n, int src, int dst, int32_t *out)
{
    int M = n->nnodes, L = n->ngroups, S = n->h;
    int l1 = n->group_of[src], l2 = n->group_of[dst];
    if (l1 == l2) {
        out[0] = src;
        out[1] = M + dst;
        return 2;
    }
    int sp = dst % S;
    out[0] = src;
    out[1] = 2 * M + l1 * S + sp;
    out[2] = 2 * M + L * S + sp * L + l2;
    out[3] = M + dst;
    return 4;
}

static void ends_fattree(const tc_net *n, int link, int *from, int *to)
{
    int M = n->nnodes, L = n->ngroups, S = n->h;
    if (link < M) {
        *from = link;
        *to = M + n->group_of[link];
    } else if (link < 2 * M) {
        *from = M + n->group_of[link - M];
        *to = link - M;
    } else if (link < 2 * M + L * S) {
        int k = link - 2 * M;
        *from = M + k / S;
        *to = M + L + k % S;
    } else {
        int k = link - 2 * M - L * S;
        *from = M + L + k / L;
        *to = M + k % L;
    }
}

static void vname_fattree(const tc_net *n, int v, char *buf, size_t len)
{
    if (v < n->nnodes) snprintf(buf, len, "leaf%d.n%d", v / n->a, v % n->a);
    else if (v < n->nnodes + n->ngroups) snprintf(buf, len, "leaf%d", v - n->nnodes);
    else snprintf(buf, len, "spine%d", v - n->nnodes - n->ngroups);
}

tc_net *net_build_fattree(const net_errctx *e, const char *params)
{
    net_key k[] = { { "leaves", 1, 0, NULL, 0, 0 }, { "nodes", 1, 0, NULL, 0, 0 },
                    { "spines", 1, 0, NULL, 0, 0 }, { "c", 0, 1, NULL, 0, 0 } };
    int64_t nodes, host, up;
    if (net_parse_keys(e, params, k, 4) != 0) return NULL;
    if (!net_mul(k[0].val, k[1].val, TC_NET_MAX_RANKS, &nodes))
        return net_fail(e, "too many nodes (limit %d)", TC_NET_MAX_RANKS);
    if (!net_mul(nodes, 2, TC_NET_MAX_LINKS, &host) || !net_mul(k[0].val, k[2].val, TC_NET_MAX_LINKS, &up) ||
        host + 2 * up > TC_NET_MAX_LINKS)
        return net_fail(e, "too many links (limit %d)", TC_NET_MAX_LINKS);
    tc_net *n = calloc(1, sizeof *n);
    if (!n) return net_fail(e, "out of memory");
    n->kind = TC_NET_FATTREE;
    n->ngroups = k[0].val;
    n->a = k[1].val;
    n->h = k[2].val;
    n->cpn = k[3].val;
    n->route = route_fattree;
    n->ends = ends_fattree;
    n->vname = vname_fattree;
    net_add_tier(n, "host", 0, host);
    net_add_tier(n, "spine", host, 2 * up);
    if (net_finish(e, n, nodes, host + 2 * up, 0) != 0) {
        tc_net_free(n);
        return NULL;
    }
    n->nvertices = n->nnodes + n->ngroups + n->h;
    for (int v = 0; v < n->nnodes; v++) {
        n->group_of[v] = v / n->a;
        n->index_of[v] = v % n->a;
    }
    snprintf(n->spec, sizeof n->spec, "fattree:leaves=%d,nodes=%d,spines=%d,c=%d", n->ngroups, n->a, n->h,
             n->cpn);
    snprintf(n->desc, sizeof n->desc, "leaf/spine fat tree: %d leaves x %d nodes x %d cores, %d spines",
             n->ngroups, n->a, n->cpn, n->h);
    return n;
}
