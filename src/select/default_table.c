/*
 * The built-in selection table.  Rules are tried in order; see select.h.
 *
 * np <= 8 rows: measured with topocoll-bench on the development machines
 * (2 cores, one node, Open MPI 4.1.4, np 2, 3, 4, 8, 8 B .. 2 MiB; tables in
 * docs/measurements/ and docs/selection.md).  Inside one shared-memory node
 * the direct exchange wins small messages (0.44-0.85x of native at np 3-8,
 * up to 8 KiB), recursive doubling wins medium ones at power-of-two p
 * (0.84-0.98x at np 4 and 8), the direct exchange keeps winning at np 3.
 * np > 8 rows: not measurable on 2 cores; they follow the published
 * crossovers (Thakur, Rabenseifner, Gropp 2005; seed 000 section 3.1):
 * logarithmic algorithms for small messages, ring for large ones.
 */
#include "select/select.h"

#define KiB 1024
#define MiB (1024 * 1024)

static const tc_rule rules[] = {
    { TOPOCOLL_ALLGATHER, 1, 1, 0, 0, 0, { "ring", NULL },
      "one rank: a local copy" },
    { TOPOCOLL_ALLGATHER, 2, 8, 0, 0, 8 * KiB, { "linear", NULL },
      "np <= 8, < 8 KiB: direct exchange measured fastest (0.44-0.85x native)" },
    { TOPOCOLL_ALLGATHER, 2, 8, 1, 0, 1 * MiB, { "recursive_doubling", NULL },
      "np <= 8 power of two, 8 KiB - 1 MiB: recursive doubling measured fastest (0.84-0.98x)" },
    { TOPOCOLL_ALLGATHER, 2, 8, 0, 0, 1 * MiB, { "linear", NULL },
      "np <= 8 other p, 8 KiB - 1 MiB: direct exchange measured fastest (0.62-0.73x at np 3)" },
    { TOPOCOLL_ALLGATHER, 2, 8, 0, 1 * MiB, 0, { "ring", "linear", NULL },
      "np <= 8, >= 1 MiB: ring (0.49-1.0x at np 2-4)" },
    { TOPOCOLL_ALLGATHER, 9, 0, 1, 0, 64 * KiB, { "recursive_doubling", NULL },
      "np > 8 power of two, small/medium: log p steps (literature crossover)" },
    { TOPOCOLL_ALLGATHER, 9, 0, 0, 0, 8 * KiB, { "bruck", NULL },
      "np > 8 other p, small: ceil(log p) steps without a fold (literature crossover)" },
    { TOPOCOLL_ALLGATHER, 9, 0, 0, 8 * KiB, 0, { "ring", "neighbor_exchange", NULL },
      "np > 8, large: nearest-neighbour pipeline (literature crossover)" },
};

static const tc_table table = { rules, (int)(sizeof rules / sizeof rules[0]), "built-in" };

const tc_table *tc_default_table(void)
{
    return &table;
}
