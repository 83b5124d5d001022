/* Public catalog queries (topocoll.h) over the internal catalog. */
#include "topocoll.h"
#include "algo/catalog.h"

const char *topocoll_coll_name(topocoll_coll coll) { return tc_coll_name(coll); }
int topocoll_coll_from_name(const char *name) { return tc_coll_from_name(name); }
int topocoll_algorithm_count(topocoll_coll coll) { return tc_catalog_count(coll); }

const char *topocoll_algorithm_name(topocoll_coll coll, int i)
{
    const tc_algo *al = tc_catalog_at(coll, i);
    return al ? al->name : NULL;
}

const char *topocoll_algorithm_description(topocoll_coll coll, int i)
{
    const tc_algo *al = tc_catalog_at(coll, i);
    return al ? al->desc : NULL;
}

const char *topocoll_algorithm_requirements(topocoll_coll coll, int i)
{
    const tc_algo *al = tc_catalog_at(coll, i);
    return al ? al->requires : NULL;
}

const char *topocoll_algorithm_family(topocoll_coll coll, int i)
{
    const tc_algo *al = tc_catalog_at(coll, i);
    return al ? tc_algo_family(al) : NULL;
}

int topocoll_algorithm_index(topocoll_coll coll, const char *name)
{
    int n = tc_catalog_count(coll);
    const tc_algo *al = tc_catalog_find(coll, name);
    for (int i = 0; al && i < n; i++)
        if (tc_catalog_at(coll, i) == al) return i;
    return -1;
}
