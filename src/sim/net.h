/*
 * Network models of the simulator (docs/simulator.md): a network is data --
 * its kind, its parameters, per-node lookup tables and a table of link tiers
 * -- plus an O(1) router that turns (source node, destination node) into the
 * ids of the links the traffic crosses.  Link ids are dense (0 .. nlinks-1)
 * and grouped by tier, so loads live in plain arrays indexed by link id.
 *
 *   twotier:SNxNPSxCPN                    the two-tier direct network of
 *       Jain, Lau, Kale, "Collectives on Two-tier Direct Networks" (2012),
 *       section 3: L1 clique inside a supernode,
 *       one L2 link per ordered supernode pair, round-robin gateways,
 *       direct routing.  No MPI, no allocation per route.
 *   dragonfly:g=G,a=A,h=H[,t=T][,c=C][,arr=consecutive|roundrobin]
 *   switch:nodes=N[,c=C]
 *   fattree:leaves=L,nodes=N,spines=S[,c=C]
 *
 * Vertices (link endpoints): nodes are 0 .. nnodes-1; switches and routers
 * follow (per kind, see tc_net_vertex_name).  Cost: parsing O(nodes) time
 * and memory (per-node tables); routing O(1); nothing else allocates.
 */
#ifndef TC_SIM_NET_H
#define TC_SIM_NET_H

#include <stddef.h>
#include <stdint.h>

#define TC_NET_MAX_HOPS 6      /* longest route of any model (dragonfly: 5) */
#define TC_NET_MAX_TIERS 4
#define TC_NET_MAX_RANKS (1 << 28)
#define TC_NET_MAX_LINKS (1 << 30)

typedef enum {
    TC_NET_TWOTIER = 0,
    TC_NET_DRAGONFLY = 1,
    TC_NET_SWITCH = 2,
    TC_NET_FATTREE = 3
} tc_net_kind;

/* Dragonfly global-link arrangements (docs/simulator.md). */
enum { TC_DF_CONSECUTIVE = 0, TC_DF_ROUNDROBIN = 1 };

typedef struct tc_net_tier {
    char name[8];         /* "L1", "L2", "term", "local", "global", "host", "spine" */
    int first;            /* first link id of the tier */
    int count;            /* links of the tier: ids first .. first+count-1 */
} tc_net_tier;

typedef struct tc_net {
    tc_net_kind kind;
    char spec[96];        /* canonical spec, e.g. "twotier:64x16x16" */
    char desc[160];       /* one line for humans */
    int nnodes;           /* nodes (endpoints that hold cores) */
    int cpn;              /* cores (ranks) per node */
    int ngroups;          /* supernodes / dragonfly groups / leaves; 1 for a switch;
                             group g holds nodes g*(nnodes/ngroups) .. (g+1)*(nnodes/ngroups)-1 */
    int nvertices;        /* nodes + routers / switches */
    int nlinks;
    int ntiers;
    tc_net_tier tier[TC_NET_MAX_TIERS];
    /* parameters; meaning per kind (twotier: a = nodes per supernode;
     * dragonfly: a routers per group, h global ports per router, t terminals
     * per router, arr arrangement; fattree: a nodes per leaf, h spines) */
    int a, h, t, arr;
    /* per-node tables [nnodes] */
    int *group_of;        /* supernode / group / leaf of each node */
    int *index_of;        /* index of the node inside its group */
    int *router_of;       /* dragonfly: router index inside the group */
    int *gmod;            /* twotier: [ngroups] s mod nps (gateway rule) */
    /* the model's functions (set by the parser) */
    int (*route)(const struct tc_net *n, int src, int dst, int32_t *links);
    void (*ends)(const struct tc_net *n, int link, int *from, int *to);
    void (*vname)(const struct tc_net *n, int v, char *buf, size_t len);
} tc_net;

/* Parse a network spec.  On error returns NULL and writes one line naming
 * the problem into err ("network spec 'X': ..."). */
tc_net *tc_net_parse(const char *spec, char *err, size_t errlen);
void tc_net_free(tc_net *n);

/* Route from node src to node dst: writes the link ids in path order into
 * links[TC_NET_MAX_HOPS] and returns their number (0 when src == dst). */
static inline int tc_net_route(const tc_net *n, int src, int dst, int32_t *links)
{ return src == dst ? 0 : n->route(n, src, dst, links); }

/* Tier of a link (index into n->tier), by range. */
static inline int tc_net_link_tier(const tc_net *n, int link)
{
    int t = 0;
    while (t + 1 < n->ntiers && link >= n->tier[t + 1].first) t++;
    return t;
}

/* Endpoints (vertex ids) of a link. */
void tc_net_link_ends(const tc_net *n, int link, int *from, int *to);
/* Human names: "s3.n5" (twotier), "g2.r1.t0" / "g2.r1" (dragonfly), "n7",
 * "sw" (switch), "leaf3" / "spine1" (fattree).  Returns buf. */
const char *tc_net_vertex_name(const tc_net *n, int v, char *buf, size_t len);
/* "L2 s0.n1->s1.n0".  Returns buf. */
const char *tc_net_link_name(const tc_net *n, int link, char *buf, size_t len);
/* Tier index by name, -1 when the network has no such tier. */
int tc_net_tier_find(const tc_net *n, const char *name);

#endif
