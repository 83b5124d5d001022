/* Public catalog queries (topocoll.h) over the internal catalog. */
#include "topocoll.h"
#include "algo/catalog.h"
#include "coll/desc.h"

#include <string.h>

const char *topocoll_coll_name(topocoll_coll coll) { return tc_coll_name(coll); }
int topocoll_coll_from_name(const char *name) { return tc_coll_from_name(name); }
/* ---- entries ---- */

int topocoll_algorithm_count(topocoll_coll coll) { return tc_catalog_entry_count(coll); }

const char *topocoll_algorithm_name(topocoll_coll coll, int i)
{
    const tc_entry *e = tc_catalog_entry_at(coll, i);
    return e ? e->name : NULL;
}

const char *topocoll_algorithm_description(topocoll_coll coll, int i)
{
    const tc_entry *e = tc_catalog_entry_at(coll, i);
    return e ? e->desc : NULL;
}

const char *topocoll_algorithm_requirements(topocoll_coll coll, int i)
{
    const tc_entry *e = tc_catalog_entry_at(coll, i);
    return e ? e->def->requires : NULL;
}

const char *topocoll_algorithm_family(topocoll_coll coll, int i)
{
    const tc_entry *e = tc_catalog_entry_at(coll, i);
    return e ? tc_algo_family(e->def) : NULL;
}

const char *topocoll_algorithm_parameters(topocoll_coll coll, int i)
{
    const tc_entry *e = tc_catalog_entry_at(coll, i);
    return e ? e->tunables : NULL;
}

int topocoll_algorithm_index(topocoll_coll coll, const char *name)
{
    const tc_entry *e = tc_catalog_entry_of(name ? tc_catalog_find(coll, name) : NULL);
    for (int i = 0; e && i < tc_catalog_entry_count(coll); i++)
        if (tc_catalog_entry_at(coll, i) == e) return i;
    return -1;
}

/* ---- variants ---- */

int topocoll_variant_count(topocoll_coll coll) { return tc_catalog_variant_count(coll); }

const char *topocoll_variant_name(topocoll_coll coll, int i)
{
    const tc_algo *al = tc_catalog_variant_at(coll, i);
    return al ? al->name : NULL;
}

const char *topocoll_variant_canonical_name(topocoll_coll coll, int i)
{
    const tc_algo *al = tc_catalog_variant_at(coll, i);
    return al ? al->canonical : NULL;
}

const char *topocoll_variant_description(topocoll_coll coll, int i)
{
    const tc_algo *al = tc_catalog_variant_at(coll, i);
    return al ? al->desc : NULL;
}

const char *topocoll_variant_requirements(topocoll_coll coll, int i)
{
    const tc_algo *al = tc_catalog_variant_at(coll, i);
    return al ? al->requires : NULL;
}

const char *topocoll_variant_family(topocoll_coll coll, int i)
{
    const tc_algo *al = tc_catalog_variant_at(coll, i);
    return al ? tc_algo_family(al) : NULL;
}

int topocoll_variant_index(topocoll_coll coll, const char *name)
{
    return tc_catalog_variant_index(name ? tc_catalog_find(coll, name) : NULL);
}

int topocoll_coll_buffer_elems(topocoll_coll coll, int size, int rank, int root, int count,
                               long long *send_elems, long long *recv_elems)
{
    const tc_coll_desc *d = tc_coll_desc_of(coll);
    if (!d || size < 1 || rank < 0 || rank >= size || count < 0 || !send_elems || !recv_elems ||
        (d->rooted && (root < 0 || root >= size)))
        return -1;
    tc_args a;
    memset(&a, 0, sizeof a);
    a.coll = coll;
    a.rank = rank;
    a.size = size;
    a.root = d->rooted ? root : 0;
    tc_coll_normalize(d, &a, count, count, 1);
    tc_coll_layout l = tc_coll_layout_of(d, &a, rank);
    *send_elems = l.elems[TC_BUF_SEND];
    *recv_elems = l.elems[TC_BUF_RECV];
    return 0;
}

size_t topocoll_algorithm_list_item(const char *list) { return list ? tc_catalog_list_item(list) : 0; }
