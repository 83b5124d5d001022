/*
 * Hillis and Steele's prefix by recursive doubling over a member list, the
 * steps that scan and exscan "recursive_doubling" run over every rank and
 * "hierarchical" runs over the nodes' leaders.
 *
 * Steps: for d = 1, 2, 4, ... < m, member i sends its running inclusive
 *   partial x (the operation over members max(0, i - 2d + 1) .. i after the
 *   step) to member i + d and receives member i - d's into `got`; then
 *   x = got op x, and for an exclusive scan also acc = got op acc (a copy
 *   the first time).  After ceil(log2 m) steps x is the inclusive prefix
 *   and acc the exclusive one; a partial is only updated while a later step
 *   still sends it.
 * Members: member i is rank members[i] (members NULL: rank i).
 * Regions: src holds the member's contribution (read in the first step
 *   only); x the running inclusive partial (the result of an inclusive scan;
 *   src copied into it in the first step unless they are the same region);
 *   got the received partial; acc the exclusive result (exclusive only).
 * Source: W. D. Hillis and G. L. Steele, "Data parallel algorithms" (1986).
 */
#ifndef TC_ALGO_SCAN_DOUBLING_H
#define TC_ALGO_SCAN_DOUBLING_H

#include "algo/scan/common.h"

void tc_scan_doubling(tc_sched *s, const int *members, int m, int me, tc_region src, tc_region x,
                      tc_region got, tc_region acc, int exclusive);

#endif
