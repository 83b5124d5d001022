/* What the allgather algorithms share: the catalog's types and the
 * allgather layout's regions (src/blocks/ag_regions.h). */
#ifndef TC_ALGO_ALLGATHER_COMMON_H
#define TC_ALGO_ALLGATHER_COMMON_H

#include "algo/catalog.h"
#include "blocks/ag_regions.h"

/* The cost of ag_fold_allgather (tc_algo.cost, src/algo/catalog.h) for n
 * bytes per block: the extras' blocks in (one step), the core ranks'
 * recursive doubling on their slots (step d sends the slots of the aligned
 * group of d positions), the copy-out of p blocks, the full result out to
 * the extras (one step).  Returns 0. */
int ag_fold_cost(tc_cost *c, const tc_topo *t, double n, int bitrev_positions);

#endif
