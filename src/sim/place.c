/*
 * Rank placement (see place.h): in-order or from a topology spec, checked
 * against the network's nodes and cores, and the generator topology built
 * from it.  O(p log p) time, O(p) memory.
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

/* The spec's nodes must exist on the network and fit its cores. */
static int check_spec_fits(const tc_net *net, const tc_topo *t, const char *map, char *msg, size_t len)
{
    if (t->nnodes > net->nnodes) {
        snprintf(msg, len, "map '%s': %d nodes but the network has %d", map, t->nnodes, net->nnodes);
        return -1;
    }
    for (int v = 0; v < t->nnodes; v++)
        if (tc_topo_node_size(t, v) > net->cpn) {
            snprintf(msg, len, "map '%s': node %d holds %d ranks but network nodes have %d cores", map, v,
                     tc_topo_node_size(t, v), net->cpn);
            return -1;
        }
    return 0;
}

static tc_topo *generator_topo(const tc_net *net, tc_sim_place *pl, tc_topo *spec_topo)
{
    int p = pl->p;
    if (pl->levels == TC_SIM_LEVELS_NODE && spec_topo) return spec_topo;
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
    tc_topo_free(spec_topo);
    if (t && pl->levels == TC_SIM_LEVELS_GROUP) t->no_shm = 1;
    return t;
}

tc_sim_place *tc_sim_place_new(const tc_net *net, int ranks, const char *map, int levels,
                               char *err, size_t errlen)
{
    char msg[320];
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
    tc_topo *spec = NULL;
    if (map && map[0]) {
        spec = tc_topo_from_spec(map, pl->p, msg, sizeof msg);
        if (!spec) return place_fail(pl, err, errlen, msg);
        if (check_spec_fits(net, spec, map, msg, sizeof msg) != 0) {
            tc_topo_free(spec);
            return place_fail(pl, err, errlen, msg);
        }
        memcpy(pl->node_of, spec->node_of, (size_t)pl->p * sizeof *pl->node_of);
        snprintf(pl->desc, sizeof pl->desc, "map %s", map);
    } else {
        for (int r = 0; r < pl->p; r++) pl->node_of[r] = r / net->cpn;
        snprintf(pl->desc, sizeof pl->desc, "in-order");
    }
    pl->topo = generator_topo(net, pl, spec);
    if (!pl->topo) return place_fail(pl, err, errlen, "out of memory building the topology");
    return pl;
}

void tc_sim_place_free(tc_sim_place *pl)
{
    if (!pl) return;
    free(pl->node_of);
    tc_topo_free(pl->topo);
    free(pl);
}
