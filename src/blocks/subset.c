/*
 * Binomial broadcast over a subset (see subset.h): a binomial tree over
 * member indices rooted at member 0.
 */
#include "blocks/subset.h"
#include "pattern/pattern.h"

void tc_subset_bcast(tc_sched *s, const int *ranks, int n, int me,
                     const tc_region *regs, int nregs)
{
    int kids[32];
    if (n < 2) return;
    if (me) {
        for (int i = 0; i < nregs; i++) tc_sched_recv(s, ranks[tc_binom_parent(me)], regs[i]);
        tc_sched_round(s);
    }
    int nk = tc_binom_children(me, n, kids, 32);
    for (int k = 0; k < nk; k++)
        for (int i = 0; i < nregs; i++) tc_sched_send(s, ranks[kids[k]], regs[i]);
    tc_sched_round(s);
}
