/* tc_algo.accepts of the reductions that combine contributions out of rank
 * order (declared in entries_issue4.h). */
#include "algo/entries_issue4.h"

int tc_accepts_commutative(const tc_args *a, const tc_topo *t, const char **why)
{
    (void)t;
    if (!a->commutative) {
        *why = "needs a commutative operation";
        return 0;
    }
    return 1;
}
