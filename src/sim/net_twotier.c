/*
 * The two-tier direct network of Jain, Lau, Kale, "Collectives on Two-tier
 * Direct Networks" (2012), section 3:
 * sn supernodes x nps nodes x cpn cores ("twotier:SNxNPSxCPN").
 *
 *   L1: one link for every ordered pair of nodes of a supernode;
 *       id = (s*nps + a)*(nps-1) + (b < a ? b : b-1) for node a -> b of s.
 *   L2: one link for every ordered pair of supernodes; the link S1 -> S2
 *       leaves node (S2 mod nps) of S1 and lands at node (S1 mod nps) of S2;
 *       id = L1count + S1*(sn-1) + (S2 < S1 ? S2 : S2-1).
 *   Routing (direct, through the gateway): inside a supernode one L1 hop;
 *       across, L1 to the gateway (S2 mod nps) unless the source is it, the
 *       L2 link, L1 from the landing node (S1 mod nps) unless it is the
 *       destination: 1 to 3 hops.  Traffic inside a node is not routed.
 * Cost: O(1) per route (table lookups, no division); O(nodes + sn) memory.
 * Source: Jain, Lau, Kale 2012, section 3 (round-robin L2 rule), section 2
 * (routing).
 */
#include "sim/net_impl.h"

#include <stdio.h>
#include <stdlib.h>

static inline int l1_id(const tc_net *n, int s, int a, int b)
{
    return (s * n->a + a) * (n->a - 1) + b - (b > a);
}

static int route(const tc_net *n, int src, int dst, int32_t *out)
{
    int s1 = n->group_of[src], s2 = n->group_of[dst];
    int a = n->index_of[src], b = n->index_of[dst], h = 0;
    if (s1 == s2) {
        out[0] = l1_id(n, s1, a, b);
        return 1;
    }
    int gw = n->gmod[s2], land = n->gmod[s1];
    if (a != gw) out[h++] = l1_id(n, s1, a, gw);
    out[h++] = n->tier[1].first + s1 * (n->ngroups - 1) + s2 - (s2 > s1);
    if (land != b) out[h++] = l1_id(n, s2, land, b);
    return h;
}

static void ends(const tc_net *n, int link, int *from, int *to)
{
    int nps = n->a, sn = n->ngroups;
    if (link < n->tier[1].first) {
        int per = nps * (nps - 1), s = link / per, rem = link % per;
        int a = rem / (nps - 1), j = rem % (nps - 1), b = j + (j >= a);
        *from = s * nps + a;
        *to = s * nps + b;
        return;
    }
    int k = link - n->tier[1].first, s1 = k / (sn - 1), j = k % (sn - 1), s2 = j + (j >= s1);
    *from = s1 * nps + s2 % nps;
    *to = s2 * nps + s1 % nps;
}

static void vname(const tc_net *n, int v, char *buf, size_t len)
{
    snprintf(buf, len, "s%d.n%d", v / n->a, v % n->a);
}

tc_net *net_build_twotier(const net_errctx *e, const char *params)
{
    static const char *const names[] = { "supernode count", "nodes per supernode", "cores per node" };
    int c[3];
    int64_t nodes, l1, l2, per;
    if (net_parse_counts(e, params, 3, c, names, "SNxNPSxCPN, e.g. twotier:64x16x16") != 0) return NULL;
    if (!net_mul(c[0], c[1], TC_NET_MAX_RANKS, &nodes))
        return net_fail(e, "too many nodes (limit %d)", TC_NET_MAX_RANKS);
    if (!net_mul(c[1], c[1] - 1, TC_NET_MAX_LINKS, &per) || !net_mul(c[0], per, TC_NET_MAX_LINKS, &l1) ||
        !net_mul(c[0], c[0] - 1, TC_NET_MAX_LINKS, &l2) || l1 + l2 > TC_NET_MAX_LINKS)
        return net_fail(e, "too many links (limit %d)", TC_NET_MAX_LINKS);
    tc_net *n = calloc(1, sizeof *n);
    if (!n) return net_fail(e, "out of memory");
    n->kind = TC_NET_TWOTIER;
    n->ngroups = c[0];
    n->a = c[1];
    n->cpn = c[2];
    n->route = route;
    n->ends = ends;
    n->vname = vname;
    net_add_tier(n, "L1", 0, l1);
    net_add_tier(n, "L2", l1, l2);
    n->gmod = malloc((size_t)c[0] * sizeof(int));
    if (!n->gmod || net_finish(e, n, nodes, l1 + l2, 0) != 0) {
        if (!n->gmod) net_fail(e, "out of memory");
        tc_net_free(n);
        return NULL;
    }
    n->nvertices = n->nnodes;
    for (int s = 0; s < c[0]; s++) n->gmod[s] = s % c[1];
    for (int v = 0; v < n->nnodes; v++) {
        n->group_of[v] = v / c[1];
        n->index_of[v] = v % c[1];
    }
    snprintf(n->spec, sizeof n->spec, "twotier:%dx%dx%d", c[0], c[1], c[2]);
    snprintf(n->desc, sizeof n->desc, "two-tier: %d supernodes x %d nodes x %d cores, "
             "%lld L1 + %lld L2 links", c[0], c[1], c[2], (long long)l1, (long long)l2);
    return n;
}
