/* Collective names (see coll.h). */
#include "coll/coll.h"

#include <string.h>

static const char *const coll_names[TOPOCOLL_NCOLL] = {
    "allgather", "bcast", "scatter", "gather", "reduce", "reduce_scatter_block",
};

const char *tc_coll_name(topocoll_coll coll)
{
    return (int)coll >= 0 && coll < TOPOCOLL_NCOLL ? coll_names[coll] : NULL;
}

int tc_coll_from_name(const char *name)
{
    for (int i = 0; name && i < TOPOCOLL_NCOLL; i++)
        if (strcmp(coll_names[i], name) == 0) return i;
    return -1;
}
