/*
 * Rank placement (see place.h): in-order or from a topology spec read at the
 * group or the node level, checked against the network's groups, nodes and
 * cores, and the generator topology built from it.  O(p log p) time, O(p)
 * memory.
 */
#include "sim/place.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static tc_sim_place *place_fail(tc_sim_place *pl, char *err, size_t errlen, const char *msg)
{
    if (err && errlen) snprintf(err, errlen, "%s", msg);
    tc_sim_place_free(pl);
    return NULL;
}

/* NODE level: spec node n is network node n. */
static int map_nodes(const tc_net *net, const tc_topo *t, const char *map, int *node_of, char *msg, size_t len)
{
    if (t->nnodes > net->nnodes) {
        snprintf(msg, len, "map '%s': %d nodes but the network has %d (with --levels node a spec node is a "
                 "network node)", map, t->nnodes, net->nnodes);
        return -1;
    }
    for (int v = 0; v < t->nnodes; v++)
        if (tc_topo_node_size(t, v) > net->cpn) {
            snprintf(msg, len, "map '%s': node %d holds %d ranks but network nodes have %d core%s", map, v,
                     tc_topo_node_size(t, v), net->cpn, net->cpn == 1 ? "" : "s");
            return -1;
        }
    memcpy(node_of, t->node_of, (size_t)t->size * sizeof *node_of);
    return 0;
}

/* GROUP level: spec node g is network group g, its socket j network node j
 * of the group. */
static int map_groups(const tc_net *net, const tc_topo *t, const char *map, int *node_of, char *msg, size_t len)
{
    int npg = net->nnodes / net->ngroups;
    if (t->nnodes > net->ngroups) {
        snprintf(msg, len, "map '%s': %d nodes but the network has %d groups (with --levels group a spec "
                 "node is a network group and its sockets are the group's nodes)", map, t->nnodes, net->ngroups);
        return -1;
    }
    for (int g = 0; g < t->nnodes; g++)
        if (t->node_sock_start[g + 1] - t->node_sock_start[g] > npg) {
            snprintf(msg, len, "map '%s': node %d has %d sockets but network groups have %d nodes", map, g,
                     t->node_sock_start[g + 1] - t->node_sock_start[g], npg);
            return -1;
        }
    for (int k = 0; k < t->nsockets; k++)
        if (tc_topo_sock_size(t, k) > net->cpn) {
            snprintf(msg, len, "map '%s': socket %d holds %d ranks but network nodes have %d core%s", map, k,
                     tc_topo_sock_size(t, k), net->cpn, net->cpn == 1 ? "" : "s");
            return -1;
        }
    for (int r = 0; r < t->size; r++) {
        int g = t->node_of[r];
        node_of[r] = g * npg + (t->sock_of[r] - t->node_sock_start[g]);
    }
    return 0;
}

/* The generators' topology when no spec gives it. */
static tc_topo *built_topo(const tc_net *net, const tc_sim_place *pl)
{
    int p = pl->p;
    int *a = malloc((size_t)p * sizeof *a), *b = malloc((size_t)p * sizeof *b);
    tc_topo *t = NULL;
    if (a && b) {
        for (int r = 0; r < p; r++) {
            int v = pl->node_of[r];
            a[r] = pl->levels == TC_SIM_LEVELS_GROUP ? net->group_of[v] : v;
            b[r] = pl->levels == TC_SIM_LEVELS_GROUP ? net->index_of[v] : 0;
        }
        t = tc_topo_from_map(p, a, b);
    }
    free(a);
    free(b);
    return t;
}

static int count_nodes(const tc_net *net, tc_sim_place *pl)
{
    char *seen = calloc((size_t)net->nnodes, 1);
    if (!seen) return -1;
    pl->nodes_used = 0;
    for (int r = 0; r < pl->p; r++)
        if (!seen[pl->node_of[r]]) {
            seen[pl->node_of[r]] = 1;
            pl->nodes_used++;
        }
    free(seen);
    return 0;
}

static int place_spec(const tc_net *net, tc_sim_place *pl, const char *map, char *msg, size_t len)
{
    tc_topo *t = tc_topo_from_spec(map, pl->p, msg, len);
    if (!t) return -1;
    int rc = pl->levels == TC_SIM_LEVELS_GROUP ? map_groups(net, t, map, pl->node_of, msg, len)
                                               : map_nodes(net, t, map, pl->node_of, msg, len);
    if (rc != 0) {
        tc_topo_free(t);
        return -1;
    }
    pl->topo = t;
    snprintf(pl->desc, sizeof pl->desc, "map %s", map);
    return 0;
}

tc_sim_place *tc_sim_place_new(const tc_net *net, int ranks, const char *map, int levels,
                               char *err, size_t errlen)
{
    char msg[400];
    int64_t cores = (int64_t)net->nnodes * net->cpn;
    tc_sim_place *pl = calloc(1, sizeof *pl);
    if (!pl) return place_fail(pl, err, errlen, "out of memory");
    if (levels != TC_SIM_LEVELS_NODE && levels != TC_SIM_LEVELS_GROUP)
        return place_fail(pl, err, errlen, "unknown topology levels");
    if (ranks > cores) {
        snprintf(msg, sizeof msg, "%d ranks do not fit the network's %lld cores", ranks, (long long)cores);
        return place_fail(pl, err, errlen, msg);
    }
    pl->p = ranks > 0 ? ranks : (int)cores;
    pl->levels = levels;
    pl->node_of = malloc((size_t)pl->p * sizeof *pl->node_of);
    if (!pl->node_of) return place_fail(pl, err, errlen, "out of memory");
    if (map && map[0]) {
        if (place_spec(net, pl, map, msg, sizeof msg) != 0) return place_fail(pl, err, errlen, msg);
    } else {
        for (int r = 0; r < pl->p; r++) pl->node_of[r] = r / net->cpn;
        snprintf(pl->desc, sizeof pl->desc, "in-order");
        pl->topo = built_topo(net, pl);
        if (!pl->topo) return place_fail(pl, err, errlen, "out of memory building the topology");
    }
    if (count_nodes(net, pl) != 0) return place_fail(pl, err, errlen, "out of memory");
    return pl;
}

void tc_sim_place_free(tc_sim_place *pl)
{
    if (!pl) return;
    free(pl->node_of);
    tc_topo_free(pl->topo);
    free(pl);
}
