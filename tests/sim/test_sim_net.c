/*
 * Network models of the simulator against independent constructions:
 *   - malformed specs are rejected with one line naming the problem;
 *   - the paper's machine has the paper's link counts (15360 L1, 4032 L2);
 *   - for several small networks of every kind, the test builds the link set
 *     literally from the definitions (docs/simulator.md) and checks that the
 *     model's links (tier, endpoints) are exactly that set;
 *   - for every ordered node pair, the model's route equals the path a naive
 *     router finds: breadth-first search on the test's own graph, restricted
 *     to at most one inter-group link (two-tier, dragonfly) or to the spine
 *     d-mod-k picks (fat tree).  These paths are unique, so they must match.
 * No MPI.  Ends with "N passed, M failed".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/net.h"

#include "../common/harness.h"


/* ---- parse errors ------------------------------------------------------------- */

static void bad_spec(const char *spec, const char *needle)
{
    char err[512], what[600];
    tc_net *n = tc_net_parse(spec, err, sizeof err);
    snprintf(what, sizeof what, "spec '%s' rejected with '%s' (got: %s)", spec, needle, n ? "accepted" : err);
    CHECK(!n && strstr(err, needle) && strncmp(err, "network spec '", 14) == 0 && !strchr(err, '\n'), "%s", what);
    tc_net_free(n);
}

static void test_bad_specs(void)
{
    bad_spec("", "empty");
    bad_spec("torus:4x4", "unknown network kind 'torus'");
    bad_spec("twotier", "expected 'twotier:'");
    bad_spec("twotier:", "expected SNxNPSxCPN");
    bad_spec("twotier:64x16", "(3 counts), found 2");
    bad_spec("twotier:64x16x16x2", "found more");
    bad_spec("twotier:64x0x16", "nodes per supernode must be >= 1");
    bad_spec("twotier:64x-1x16", "nodes per supernode needs a positive integer, found '-1'");
    bad_spec("twotier:64x16x16 ", "unexpected ' '");
    bad_spec("twotier:99999999999x2x2", "supernode count is too large");
    bad_spec("twotier:65536x65536x1", "too many");
    bad_spec("dragonfly:g=10,a=2,h=2", "10 groups need 9 global ports per group, but a*h = 4");
    bad_spec("dragonfly:g=3,a=2", "missing parameter 'h='");
    bad_spec("dragonfly:g=3,a=2,h=1,q=4", "unknown parameter 'q' (expected g, a, h, t, c, arr)");
    bad_spec("dragonfly:g=3,a=2,h=1,g=4", "parameter 'g' given twice");
    bad_spec("dragonfly:g=3,a=2,h", "parameter 'h' needs a value");
    bad_spec("dragonfly:g=3,a=2,h=x", "'h' needs a positive integer, found 'x'");
    bad_spec("dragonfly:g=3,a=2,h=1,", "trailing ','");
    bad_spec("dragonfly:g=3,,a=2,h=1", "empty parameter");
    bad_spec("dragonfly:g=3,a=2,h=1,arr=random", "unknown value 'random' for 'arr' (expected consecutive or "
             "roundrobin)");
    bad_spec("switch:nodes=0", "'nodes' must be >= 1");
    bad_spec("switch:c=4", "missing parameter 'nodes='");
    bad_spec("fattree:leaves=2,nodes=2", "missing parameter 'spines='");
    bad_spec("fattree:leaves=2,nodes=2,spines=2 x", "unexpected ' '");
}

static void test_paper_counts(void)
{
    char err[256];
    tc_net *n = tc_net_parse("twotier:64x16x16", err, sizeof err);
    CHECK(n && n->ntiers == 2 && n->tier[0].count == 15360 && n->tier[1].count == 4032 && n->nnodes == 1024 &&
          n->cpn == 16 && !strcmp(n->tier[0].name, "L1") && !strcmp(n->tier[1].name, "L2"),
          "twotier:64x16x16 has the paper's 15360 L1 and 4032 L2 links");
    tc_net_free(n);
}

/* ---- the test's own construction of each network ------------------------------- */

typedef struct tlink { int from, to, tier, global; } tlink;

typedef struct tnet {
    int nv, nl, cap;
    tlink *l;
    int nnodes;
    int node_transit;   /* nodes route traffic (direct networks) */
    int *adj_start;     /* [nv+1] CSR of links by source vertex */
    int *adj;
} tnet;

static void build_adjacency(tnet *g)
{
    g->adj_start = calloc((size_t)g->nv + 1, sizeof *g->adj_start);
    g->adj = malloc((size_t)(g->nl ? g->nl : 1) * sizeof *g->adj);
    for (int i = 0; i < g->nl; i++) g->adj_start[g->l[i].from + 1]++;
    for (int v = 0; v < g->nv; v++) g->adj_start[v + 1] += g->adj_start[v];
    int *fill = calloc((size_t)g->nv, sizeof *fill);
    for (int i = 0; i < g->nl; i++) {
        int v = g->l[i].from;
        g->adj[g->adj_start[v] + fill[v]++] = i;
    }
    free(fill);
}

static void add(tnet *g, int from, int to, int tier, int global)
{
    if (g->nl == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 64;
        g->l = realloc(g->l, (size_t)g->cap * sizeof *g->l);
    }
    g->l[g->nl++] = (tlink){ from, to, tier, global };
}

/* two-tier: nodes s*nps + i; L1 all ordered pairs in a supernode; the L2
 * link S1 -> S2 from node S2 % nps of S1 to node S1 % nps of S2. */
static void build_twotier(tnet *g, int sn, int nps)
{
    g->nnodes = g->nv = sn * nps;
    g->node_transit = 1;
    for (int s = 0; s < sn; s++)
        for (int i = 0; i < nps; i++)
            for (int j = 0; j < nps; j++)
                if (i != j) add(g, s * nps + i, s * nps + j, 0, 0);
    for (int s1 = 0; s1 < sn; s1++)
        for (int s2 = 0; s2 < sn; s2++)
            if (s1 != s2) add(g, s1 * nps + s2 % nps, s2 * nps + s1 % nps, 1, 1);
}

/* dragonfly: the other groups of G in increasing order, the j-th one on
 * router j / h (consecutive) or j % a (roundrobin), found by counting. */
static int df_router(int G, int G2, int g, int a, int h, int rr)
{
    int j = 0;
    for (int x = 0; x < g; x++) {
        if (x == G) continue;
        if (x == G2) break;
        j++;
    }
    return rr ? j % a : j / h;
}

static void build_dragonfly(tnet *g, int ng, int a, int h, int t, int rr)
{
    int T = ng * a * t;
    g->nnodes = T;
    g->nv = T + ng * a;
    for (int v = 0; v < T; v++) add(g, v, T + v / t, 0, 0);
    for (int v = 0; v < T; v++) add(g, T + v / t, v, 0, 0);
    for (int G = 0; G < ng; G++)
        for (int r = 0; r < a; r++)
            for (int r2 = 0; r2 < a; r2++)
                if (r != r2) add(g, T + G * a + r, T + G * a + r2, 1, 0);
    for (int G = 0; G < ng; G++)
        for (int G2 = 0; G2 < ng; G2++)
            if (G != G2)
                add(g, T + G * a + df_router(G, G2, ng, a, h, rr), T + G2 * a + df_router(G2, G, ng, a, h, rr), 2, 1);
}

static void build_switch(tnet *g, int n)
{
    g->nnodes = n;
    g->nv = n + 1;
    for (int v = 0; v < n; v++) add(g, v, n, 0, 0);
    for (int v = 0; v < n; v++) add(g, n, v, 0, 0);
}

static void build_fattree(tnet *g, int L, int N, int S)
{
    int M = L * N;
    g->nnodes = M;
    g->nv = M + L + S;
    for (int v = 0; v < M; v++) add(g, v, M + v / N, 0, 0);
    for (int v = 0; v < M; v++) add(g, M + v / N, v, 0, 0);
    for (int l = 0; l < L; l++)
        for (int s = 0; s < S; s++) {
            add(g, M + l, M + L + s, 1, 0);
            add(g, M + L + s, M + l, 1, 0);
        }
}

/* The model's links are exactly the test's: same count, and every test link
 * (from, to, tier) is a model link. */
static void compare_links(const tc_net *n, const tnet *g, const char *spec)
{
    char what[256];
    int *hit = calloc((size_t)n->nlinks + 1, sizeof *hit), bad = 0;
    snprintf(what, sizeof what, "%s: %d links, test builds %d", spec, n->nlinks, g->nl);
    CHECK(n->nlinks == g->nl && n->nvertices == g->nv, "%s", what);
    for (int i = 0; i < g->nl && n->nlinks == g->nl; i++) {
        int found = -1;
        for (int l = 0; l < n->nlinks && found < 0; l++) {
            int f, t;
            tc_net_link_ends(n, l, &f, &t);
            if (f == g->l[i].from && t == g->l[i].to && tc_net_link_tier(n, l) == g->l[i].tier) found = l;
        }
        if (found < 0 || hit[found]++) bad++;
    }
    snprintf(what, sizeof what, "%s: every link of the definition is a model link, once (%d bad)", spec, bad);
    CHECK(bad == 0, "%s", what);
    free(hit);
}

/* BFS from src to dst over states (vertex, global hops used); spine >= 0
 * restricts intermediate switch vertices >= first_spine to that one.
 * Writes the vertex path; returns its number of links, -1 when none. */
static int naive_route(const tnet *g, int src, int dst, int spine, int first_spine, int *path)
{
    int ns = 2 * g->nv, *prev = malloc((size_t)ns * sizeof *prev), *q = malloc((size_t)ns * sizeof *q);
    for (int i = 0; i < ns; i++) prev[i] = -2;
    int qh = 0, qt = 0, found = -1;
    prev[src * 2] = -1;
    q[qt++] = src * 2;
    while (qh < qt && found < 0) {
        int st = q[qh++], v = st / 2, used = st % 2;
        for (int k = g->adj_start[v]; k < g->adj_start[v + 1]; k++) {
            const tlink *l = &g->l[g->adj[k]];
            int u = used + l->global, w = l->to;
            if (u > 1) continue;
            if (!g->node_transit && w < g->nnodes && w != dst) continue;  /* terminals do not forward */
            if (spine >= 0 && w >= first_spine && w != first_spine + spine) continue;
            int ws = w * 2 + u;
            if (prev[ws] != -2) continue;
            prev[ws] = st;
            if (w == dst) {
                found = ws;
                break;
            }
            q[qt++] = ws;
        }
    }
    int len = -1;
    if (found >= 0) {
        int tmp[64], k = 0;
        for (int st = found; st >= 0; st = prev[st]) tmp[k++] = st / 2;
        for (int i = 0; i < k; i++) path[i] = tmp[k - 1 - i];
        len = k - 1;
    }
    free(prev);
    free(q);
    return len;
}

/* Every ordered node pair: the model's route is the naive path. */
static void compare_routes(const tc_net *n, const tnet *g, const char *spec, int fattree_spines)
{
    int bad = 0, pairs = 0;
    char what[512] = "";
    for (int s = 0; s < g->nnodes; s++)
        for (int d = 0; d < g->nnodes; d++) {
            int32_t links[TC_NET_MAX_HOPS];
            int path[64];
            int nh = tc_net_route(n, s, d, links), len;
            pairs++;
            if (s == d) {
                bad += nh != 0;
                continue;
            }
            len = naive_route(g, s, d, fattree_spines ? d % fattree_spines : -1,
                              g->nnodes + (fattree_spines ? g->nv - g->nnodes - fattree_spines : 0), path);
            int same = len == nh;
            for (int h = 0; same && h < nh; h++) {
                int f, t;
                tc_net_link_ends(n, links[h], &f, &t);
                same = f == path[h] && t == path[h + 1];
            }
            if (!same && !bad++)
                snprintf(what, sizeof what, " (first: %d -> %d, model %d hops, naive %d)", s, d, nh, len);
        }
    char msg[700];
    snprintf(msg, sizeof msg, "%s: all %d routes equal the naive router's%s", spec, pairs, what);
    CHECK(bad == 0, "%s", msg);
}

static void check_network(const char *spec, int kind, const int *p)
{
    char err[256];
    tnet g;
    memset(&g, 0, sizeof g);
    tc_net *n = tc_net_parse(spec, err, sizeof err);
    if (!n) {
        CHECK(0, "%s", err);
        return;
    }
    switch (kind) {
    case TC_NET_TWOTIER: build_twotier(&g, p[0], p[1]); break;
    case TC_NET_DRAGONFLY: build_dragonfly(&g, p[0], p[1], p[2], p[3], p[4]); break;
    case TC_NET_SWITCH: build_switch(&g, p[0]); break;
    default: build_fattree(&g, p[0], p[1], p[2]); break;
    }
    build_adjacency(&g);
    compare_links(n, &g, spec);
    if (n->nlinks == g.nl) compare_routes(n, &g, spec, kind == TC_NET_FATTREE ? p[2] : 0);
    free(g.l);
    free(g.adj);
    free(g.adj_start);
    tc_net_free(n);
}

static void test_networks(void)
{
    static const struct { const char *spec; int kind; int p[5]; } nets[] = {
        { "twotier:2x2x1", TC_NET_TWOTIER, { 2, 2 } },
        { "twotier:3x2x2", TC_NET_TWOTIER, { 3, 2 } },
        { "twotier:5x3x1", TC_NET_TWOTIER, { 5, 3 } },
        { "twotier:4x4x3", TC_NET_TWOTIER, { 4, 4 } },
        { "twotier:3x5x1", TC_NET_TWOTIER, { 3, 5 } },
        { "twotier:9x4x1", TC_NET_TWOTIER, { 9, 4 } },
        { "twotier:1x4x2", TC_NET_TWOTIER, { 1, 4 } },
        { "twotier:4x1x2", TC_NET_TWOTIER, { 4, 1 } },
        { "dragonfly:g=3,a=2,h=1", TC_NET_DRAGONFLY, { 3, 2, 1, 1, 0 } },
        { "dragonfly:g=5,a=2,h=2,t=2", TC_NET_DRAGONFLY, { 5, 2, 2, 2, 0 } },
        { "dragonfly:g=5,a=2,h=2,t=2,arr=roundrobin", TC_NET_DRAGONFLY, { 5, 2, 2, 2, 1 } },
        { "dragonfly:g=7,a=4,h=2,t=1,c=3", TC_NET_DRAGONFLY, { 7, 4, 2, 1, 0 } },
        { "dragonfly:g=7,a=4,h=2,t=1,arr=roundrobin", TC_NET_DRAGONFLY, { 7, 4, 2, 1, 1 } },
        { "dragonfly:g=9,a=4,h=2,t=2", TC_NET_DRAGONFLY, { 9, 4, 2, 2, 0 } },
        { "dragonfly:g=1,a=3,h=1,t=2", TC_NET_DRAGONFLY, { 1, 3, 1, 2, 0 } },
        { "dragonfly:g=4,a=1,h=3,t=2", TC_NET_DRAGONFLY, { 4, 1, 3, 2, 0 } },
        { "switch:nodes=5,c=2", TC_NET_SWITCH, { 5 } },
        { "switch:nodes=1", TC_NET_SWITCH, { 1 } },
        { "fattree:leaves=3,nodes=2,spines=2", TC_NET_FATTREE, { 3, 2, 2 } },
        { "fattree:leaves=4,nodes=3,spines=5,c=2", TC_NET_FATTREE, { 4, 3, 5 } },
        { "fattree:leaves=1,nodes=4,spines=1", TC_NET_FATTREE, { 1, 4, 1 } },
    };
    for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++) check_network(nets[i].spec, nets[i].kind, nets[i].p);
}

/* Names and a few routes spelled out (the paper's rule by hand). */
static void test_names(void)
{
    char err[256], b[96];
    int32_t l[TC_NET_MAX_HOPS];
    tc_net *n = tc_net_parse("twotier:3x2x2", err, sizeof err);
    if (!n) {
        CHECK(0, "%s", err);
        return;
    }
    /* S1 -> S2 leaves node 2 % 2 = 0 of S1 (node 2), lands at node 1 % 2 = 1 of S2 (node 5) */
    int h = tc_net_route(n, 3, 4, l);
    CHECK(h == 3, "twotier 3x2x2: s1.n1 -> s2.n0 takes 3 hops");
    CHECK(h == 3 && !strcmp(tc_net_link_name(n, l[0], b, sizeof b), "L1 s1.n1->s1.n0"), "hop 1 is L1 s1.n1->s1.n0");
    CHECK(h == 3 && !strcmp(tc_net_link_name(n, l[1], b, sizeof b), "L2 s1.n0->s2.n1"), "hop 2 is L2 s1.n0->s2.n1");
    CHECK(h == 3 && !strcmp(tc_net_link_name(n, l[2], b, sizeof b), "L1 s2.n1->s2.n0"), "hop 3 is L1 s2.n1->s2.n0");
    CHECK(!strcmp(n->spec, "twotier:3x2x2"), "canonical spec");
    tc_net_free(n);
    n = tc_net_parse("dragonfly:g=3,a=2,h=1", err, sizeof err);
    CHECK(n && !strcmp(n->spec, "dragonfly:g=3,a=2,h=1,t=1,c=1,arr=consecutive"), "dragonfly defaults t=1 c=1");
    CHECK(n && tc_net_route(n, 0, 5, l) == 5 && !strcmp(tc_net_link_name(n, l[2], b, sizeof b), "global g0.r1->g2.r0"),
          "dragonfly g0.r0 -> g2.r1: 5 hops through global g0.r1->g2.r0");
    tc_net_free(n);
}

int main(void)
{
    test_bad_specs();
    test_paper_counts();
    test_networks();
    test_names();
    return tc_test_summary();
}
