/*
 * allgatherv "bruck": the allgather Bruck
 * (src/algo/allgather/bruck.c), for an allgatherv whose counts are all equal.
 *
 * Steps: as the allgather entry.
 * Cost: ceil(log2 p) alpha + (p-1) n beta + a local rotation.
 * Memory: p blocks of scratch.
 * Restrictions: equal receive counts: the generator builds the rotated
 *   result in scratch by equal blocks (declines otherwise).
 * Source: Bruck, Ho, Kipnis, Upfal, Weathersby 1997.
 */
#include "algo/allgatherv/common.h"

extern const tc_algo tc_allgather_bruck;

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    return agv_generate_with(&tc_allgather_bruck, s, a, t);
}

const tc_algo tc_allgatherv_bruck = {
    .coll = TOPOCOLL_ALLGATHERV, .name = "bruck",
    .desc = "Bruck: ceil(log2 p) steps, then a local rotation (equal counts only)",
    .req = TC_REQ_EQUAL_BLOCKS, .generate = generate, .source = __FILE__,
};
