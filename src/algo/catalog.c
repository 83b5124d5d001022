/* The catalog: every algorithm of every collective, in one table per
 * collective.  Order matters only for listing (benchmark columns, docs). */
#include "algo/catalog.h"
#include "pattern/pattern.h"

#include <string.h>

static const tc_algo *const allgather_entries[] = {
    &tc_allgather_linear,
    &tc_allgather_gather_bcast,
    &tc_allgather_ring,
    &tc_allgather_recursive_doubling,
    &tc_allgather_recursive_halving,
    &tc_allgather_bruck,
    &tc_allgather_neighbor_exchange,
    &tc_allgather_twotier,
    &tc_allgather_twotier_sockets,
    &tc_allgather_native,
};

#define NELEM(x) ((int)(sizeof(x) / sizeof((x)[0])))

static int null_terminated_count(const tc_algo *const *list)
{
    int n = 0;
    while (list[n]) n++;
    return n;
}

static const tc_algo *const *entries(topocoll_coll coll, int *count)
{
    const tc_algo *const *list;
    switch (coll) {
    case TOPOCOLL_ALLGATHER:
        *count = NELEM(allgather_entries);
        return allgather_entries;
    case TOPOCOLL_BCAST: list = tc_bcast_entries; break;
    case TOPOCOLL_SCATTER: list = tc_scatter_entries; break;
    case TOPOCOLL_GATHER: list = tc_gather_entries; break;
    case TOPOCOLL_REDUCE: list = tc_reduce_entries; break;
    case TOPOCOLL_REDUCE_SCATTER_BLOCK: list = tc_reduce_scatter_block_entries; break;
    default:
        *count = 0;
        return NULL;
    }
    *count = null_terminated_count(list);
    return list;
}

/* Families generated from parameters come after the fixed entries. */
static int family_count(topocoll_coll coll)
{
    return coll == TOPOCOLL_ALLGATHER ? tc_allgather_hier_count() : 0;
}

static const tc_algo *family_at(topocoll_coll coll, int i)
{
    return coll == TOPOCOLL_ALLGATHER ? tc_allgather_hier_at(i) : NULL;
}

int tc_catalog_count(topocoll_coll coll)
{
    int n;
    entries(coll, &n);
    return n + family_count(coll);
}

const tc_algo *tc_catalog_at(topocoll_coll coll, int i)
{
    int n;
    const tc_algo *const *e = entries(coll, &n);
    if (!e || i < 0) return NULL;
    if (i < n) return e[i];
    return i - n < family_count(coll) ? family_at(coll, i - n) : NULL;
}

const tc_algo *tc_catalog_find(topocoll_coll coll, const char *name)
{
    if (!name) return NULL;
    int n = tc_catalog_count(coll);
    for (int i = 0; i < n; i++) {
        const tc_algo *al = tc_catalog_at(coll, i);
        if (strcmp(al->name, name) == 0) return al;
    }
    return NULL;
}

const char *tc_algo_family(const tc_algo *al)
{
    if (al->req & TC_REQ_NATIVE) return "native";
    return al->family ? al->family : "flat";
}

int tc_algo_generate(const tc_algo *al, tc_sched *s, const tc_args *a, const tc_topo *t)
{
    tc_args own = *a;
    own.param = al->param;
    return al->generate(s, &own, t);
}

int tc_algo_accepts(const tc_algo *al, const tc_args *a, const tc_topo *t,
                    const char **why)
{
    const char *dummy;
    if (!why) why = &dummy;
    *why = "";
    if ((al->req & TC_REQ_EVEN_P) && a->size % 2) {
        *why = "needs an even process count";
        return 0;
    }
    if ((al->req & TC_REQ_POW2_P) && !tc_is_pow2(a->size)) {
        *why = "needs a power-of-two process count";
        return 0;
    }
    if (!al->accepts) return 1;
    tc_args own = *a;
    own.param = al->param;
    return al->accepts(&own, t, why);
}
