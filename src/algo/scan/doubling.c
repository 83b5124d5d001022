/* Hillis and Steele's recursive doubling over a member list (doubling.h). */
#include "algo/scan/doubling.h"

void tc_scan_doubling(tc_sched *s, const int *members, int m, int me, tc_region src, tc_region x,
                      tc_region got, tc_region acc, int exclusive)
{
    int first = 1;
    /* inclusive: x is the result; exclusive: x only feeds later sends */
    int need_x = exclusive ? me + 2 < m : 1;
    if (m <= 1) {
        if (need_x && !sc_same(src, x)) tc_sched_copy(s, src, x);
        tc_sched_round(s);
        return;
    }
    for (int d = 1; d < m; d <<= 1) {
        int from = me - d, to = me + d;
        if (to < m) tc_sched_send(s, members ? members[to] : to, d == 1 ? src : x);
        if (from >= 0) tc_sched_recv(s, members ? members[from] : from, got);
        if (d == 1 && need_x && !sc_same(src, x)) tc_sched_copy(s, src, x);
        tc_sched_round(s);
        if (from < 0) continue;
        if (exclusive) {
            sc_fold(s, got, acc, first);
            first = 0;
        }
        if (!exclusive || me + 2 * d < m) tc_sched_reduce(s, got, x);
        tc_sched_round(s);
    }
}
