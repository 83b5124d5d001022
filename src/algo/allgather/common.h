/* What the allgather algorithms share: the catalog's types and the
 * allgather layout's regions (src/blocks/ag_regions.h). */
#ifndef TC_ALGO_ALLGATHER_COMMON_H
#define TC_ALGO_ALLGATHER_COMMON_H

#include "algo/catalog.h"
#include "blocks/ag_regions.h"

#endif
