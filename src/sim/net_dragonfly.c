/*
 * Dragonfly (Kim, Dally, Scott, Abts 2008): g groups of a routers, the
 * routers of a group all-to-all connected by local links, h global ports per
 * router, t terminals (nodes) per router, c cores per node
 * ("dragonfly:g=G,a=A,h=H[,t=T][,c=C][,arr=consecutive|roundrobin]").
 *
 *   term:   every node has an injection link (node -> its router, id = node)
 *           and an ejection link (router -> node, id = T + node), T = g*a*t.
 *   local:  one link for every ordered pair of routers of a group.
 *   global: exactly one link for every ordered pair of groups (needs
 *           g-1 <= a*h; spare ports stay unused).  Group G numbers the other
 *           groups j = 0 .. g-2 in increasing order (j = G' - (G' > G)); the
 *           link to the j-th leaves router j / h (consecutive: router 0 takes
 *           the first h groups, ...) or router j mod a (roundrobin); it lands
 *           on the router that the same rule gives the destination group for G.
 *   Routing (minimal): injection, local hop to the gateway router unless
 *           there already, the global link, local hop from the landing router
 *           unless it is the destination's, ejection.  Same router: injection
 *           and ejection only.  At most 5 hops.
 * Vertices: nodes 0 .. T-1, then router (G, r) = T + G*a + r.
 * Cost: O(1) per route (one division for the gateway); O(nodes) memory.
 * Source: Kim et al., ISCA 2008 (topology, minimal routing); the arrangement
 *   names follow Camarero et al. 2014 ("consecutive" = their absolute one).
 */
#include "sim/net_impl.h"

#include <stdio.h>
#include <stdlib.h>

/* Router (inside group G) holding G's global link towards group G2. */
static inline int gateway(const tc_net *n, int G, int G2)
{
    int j = G2 - (G2 > G);
    return n->arr == TC_DF_CONSECUTIVE ? j / n->h : j % n->a;
}

static inline int local_id(const tc_net *n, int G, int r, int r2)
{
    return n->tier[1].first + (G * n->a + r) * (n->a - 1) + r2 - (r2 > r);
}

static inline int global_id(const tc_net *n, int G1, int G2)
{
    return n->tier[2].first + G1 * (n->ngroups - 1) + G2 - (G2 > G1);
}

static int route(const tc_net *n, int src, int dst, int32_t *out)
{
    int G1 = n->group_of[src], G2 = n->group_of[dst];
    int r1 = n->router_of[src], r2 = n->router_of[dst], h = 0;
    out[h++] = src;
    if (G1 == G2) {
        if (r1 != r2) out[h++] = local_id(n, G1, r1, r2);
    } else {
        int gr = gateway(n, G1, G2), lr = gateway(n, G2, G1);
        if (r1 != gr) out[h++] = local_id(n, G1, r1, gr);
        out[h++] = global_id(n, G1, G2);
        if (lr != r2) out[h++] = local_id(n, G2, lr, r2);
    }
    out[h++] = n->nnodes + dst;
    return h;
}

static void ends(const tc_net *n, int link, int *from, int *to)
{
    int T = n->nnodes, a = n->a, g = n->ngroups;
    if (link < T) {
        *from = link;
        *to = T + link / n->t;
    } else if (link < 2 * T) {
        *from = T + (link - T) / n->t;
        *to = link - T;
    } else if (link < n->tier[2].first) {
        int k = link - n->tier[1].first, R = k / (a - 1), j = k % (a - 1);
        int r = R % a, r2 = j + (j >= r);
        *from = T + R;
        *to = T + (R - r) + r2;
    } else {
        int k = link - n->tier[2].first, G1 = k / (g - 1), j = k % (g - 1), G2 = j + (j >= G1);
        *from = T + G1 * a + gateway(n, G1, G2);
        *to = T + G2 * a + gateway(n, G2, G1);
    }
}

static void vname(const tc_net *n, int v, char *buf, size_t len)
{
    int T = n->nnodes;
    if (v < T) {
        int R = v / n->t;
        snprintf(buf, len, "g%d.r%d.t%d", R / n->a, R % n->a, v % n->t);
    } else {
        snprintf(buf, len, "g%d.r%d", (v - T) / n->a, (v - T) % n->a);
    }
}

static const char *const arr_words[] = { "consecutive", "roundrobin", NULL };

tc_net *net_build_dragonfly(const net_errctx *e, const char *params)
{
    net_key k[] = {
        { "g", 1, 0, NULL, 0, 0 }, { "a", 1, 0, NULL, 0, 0 }, { "h", 1, 0, NULL, 0, 0 },
        { "t", 0, 1, NULL, 0, 0 }, { "c", 0, 1, NULL, 0, 0 }, { "arr", 0, 0, arr_words, 0, 0 },
    };
    int64_t routers, nodes, ports, local, global, tmp;
    if (net_parse_keys(e, params, k, 6) != 0) return NULL;
    int g = k[0].val, a = k[1].val, h = k[2].val, t = k[3].val;
    if (!net_mul(g, a, TC_NET_MAX_RANKS, &routers) || !net_mul(routers, t, TC_NET_MAX_RANKS, &nodes))
        return net_fail(e, "too many nodes (limit %d)", TC_NET_MAX_RANKS);
    net_mul(a, h, INT64_MAX, &ports);
    if (g - 1 > ports)
        return net_fail(e, "%d groups need %d global ports per group, but a*h = %lld", g, g - 1,
                        (long long)ports);
    if (!net_mul(routers, a - 1, TC_NET_MAX_LINKS, &local) || !net_mul(g, g - 1, TC_NET_MAX_LINKS, &global) ||
        !net_mul(nodes, 2, TC_NET_MAX_LINKS, &tmp) || tmp + local + global > TC_NET_MAX_LINKS)
        return net_fail(e, "too many links (limit %d)", TC_NET_MAX_LINKS);
    tc_net *n = calloc(1, sizeof *n);
    if (!n) return net_fail(e, "out of memory");
    n->kind = TC_NET_DRAGONFLY;
    n->ngroups = g;
    n->a = a;
    n->h = h;
    n->t = t;
    n->cpn = k[4].val;
    n->arr = k[5].val;
    n->route = route;
    n->ends = ends;
    n->vname = vname;
    net_add_tier(n, "term", 0, 2 * nodes);
    net_add_tier(n, "local", 2 * nodes, local);
    net_add_tier(n, "global", 2 * nodes + local, global);
    if (net_finish(e, n, nodes, 2 * nodes + local + global, 1) != 0) {
        tc_net_free(n);
        return NULL;
    }
    n->nvertices = n->nnodes + (int)routers;
    for (int v = 0; v < n->nnodes; v++) {
        int R = v / t;
        n->group_of[v] = R / a;
        n->router_of[v] = R % a;
        n->index_of[v] = v - (R / a) * a * t;
    }
    snprintf(n->spec, sizeof n->spec, "dragonfly:g=%d,a=%d,h=%d,t=%d,c=%d,arr=%s", g, a, h, t, n->cpn,
             arr_words[n->arr]);
    snprintf(n->desc, sizeof n->desc, "dragonfly: %d groups x %d routers x %d nodes x %d cores, "
             "%d global ports per router (%s)", g, a, t, n->cpn, h, arr_words[n->arr]);
    return n;
}
