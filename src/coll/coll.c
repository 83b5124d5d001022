/* Collective names (see coll.h), from the descriptors. */
#include "coll/coll.h"
#include "coll/desc.h"

#include <string.h>

const char *tc_coll_name(topocoll_coll coll)
{
    const tc_coll_desc *d = tc_coll_desc_of(coll);
    return d ? d->name : NULL;
}

int tc_coll_from_name(const char *name)
{
    for (int i = 0; name && i < TOPOCOLL_NCOLL; i++)
        if (strcmp(tc_coll_desc_of((topocoll_coll)i)->name, name) == 0) return i;
    return -1;
}
