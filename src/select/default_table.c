/*
 * The built-in selection table.  Thresholds come from topocoll-bench runs on
 * the development machines (2 cores, Open MPI 4.1.4, np 2..8 oversubscribed;
 * see docs/selection.md for the measurements): recursive doubling for small
 * messages at power-of-two p, Bruck for small messages at other p, ring for
 * large messages (seed 000 section 3.1, seed 001).
 */
#include "select/select.h"

static const tc_rule rules[] = {
    { TOPOCOLL_ALLGATHER, 1, 1, 0, 0, 0, { "ring", NULL },
      "one rank: a local copy" },
    { TOPOCOLL_ALLGATHER, 2, 0, 1, 0, 4096, { "recursive_doubling", "bruck", NULL },
      "small messages, power-of-two p: log p steps" },
    { TOPOCOLL_ALLGATHER, 2, 0, 0, 0, 4096, { "bruck", "recursive_doubling", NULL },
      "small messages, any p: ceil(log p) steps without a fold" },
    { TOPOCOLL_ALLGATHER, 2, 0, 0, 4096, 0, { "ring", "neighbor_exchange", NULL },
      "large messages: nearest-neighbour pipeline" },
};

static const tc_table table = { rules, (int)(sizeof rules / sizeof rules[0]), "built-in" };

const tc_table *tc_default_table(void)
{
    return &table;
}
