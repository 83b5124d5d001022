/*
 * The fan-in tree of the one-node shared-memory reduce and allreduce
 * (src/algo/shm_rooted.h; Li, Hoefler, Snir, "NUMA-Aware Shared-Memory
 * Collective Communication for MPI" (2013), sections 3.1 and 3.2).
 */
#include "algo/shm_rooted.h"

int tc_shm_fanin_tree(tc_sched *s, const tc_args *a, int nslots, const int *L, int m, int i, int F,
                      int64_t off, tc_region acc)
{
    int64_t j = m - 1 - i, stride = 1;
    while (stride < m && j % (stride * F) == 0) {
        for (int t = 1; t < F; t++)
            if (j + t * stride < m) tc_sched_wait(s, L[m - 1 - (j + t * stride)]);
        tc_sched_round(s);
        for (int t = 1; t < F; t++)
            if (j + t * stride < m)
                tc_sched_reduce(s, ar_slot(a, nslots, L[m - 1 - (j + t * stride)], 0, off, acc.cnt), acc);
        stride *= F;
    }
    if (j == 0) return 1;
    tc_sched_signal(s, L[m - 1 - (j - j % (stride * F))]);
    return 0;
}
