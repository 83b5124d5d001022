/*
 * Allgather generators over a member map (members.h) and a bundle layout:
 * the one ring, recursive doubling and Bruck of the library, used by the
 * flat allgather and allgatherv entries (identity map, blocks of the receive
 * buffer or of scratch) and by the phases of the hierarchical algorithms
 * (group members, leaders; group bundles of unequal size).
 *
 * Layout: member i's data ("bundle" i) sit in slot (i - rot) mod n of
 * buffer buf; slot j is elements [base + off(j), base + off(j+1)) with
 * off(j) = off[j] * unit (off: [n+1], non-decreasing), or j * unit when off
 * is NULL.  rot = 0 keeps bundles in member order; rot = me is Bruck's
 * rotated scratch (the caller's own bundle first).  A run of bundles that
 * wraps past the last slot is sent as two messages.
 *
 * Own data: with own NULL the caller's bundle is in its slot when the
 * generator starts; otherwise own is where the caller's data are (the user's
 * send buffer): the generator copies it to the slot in its first round and
 * sends it from own in its first step, so no round is spent on the copy.
 *
 * Each function starts in the caller's open round (its first messages join
 * any local ops the caller left there) and closes every round it opens.
 */
#ifndef TC_BLOCKS_ALLGATHER_MEMBERS_H
#define TC_BLOCKS_ALLGATHER_MEMBERS_H

#include "blocks/members.h"
#include "sched/sched.h"

typedef struct tc_bundles {
    int buf;             /* TC_BUF_* holding the slots */
    int64_t base;        /* element offset of slot 0 */
    const int64_t *off;  /* [n+1] slot boundaries in units; NULL: slot j at j */
    int64_t unit;        /* elements per unit of off */
    int rot;             /* bundle i is in slot (i - rot) mod n */
} tc_bundles;

/* Bundles in member order at buf[base + off[i]] (elements). */
static inline tc_bundles tc_bundles_at(int buf, int64_t base, const int64_t *off)
{
    tc_bundles b = { buf, base, off, 1, 0 };
    return b;
}

/* Slots [first, first + count) as one region (no wrap-around). */
tc_region tc_bundles_slots(const tc_bundles *b, int first, int count);

/* ring: n-1 steps; step i sends bundle me-i+1 to member me+1 and receives
 *   bundle me-i from member me-1.
 * rd: recursive doubling; step d = 1, 2, .. exchanges the aligned group of
 *   d bundles with member me XOR d.  For n not a power of two the n-q extra
 *   members (q = largest power of two <= n) hand their bundle to member
 *   i - q first and get all bundles back last; a core member then holds two
 *   runs of bundles, sent as two messages.
 * bruck: ceil(log2 n) steps: at distance d, bundles me .. me+c-1 (mod n)
 *   go to member me-d and bundles me+d .. me+d+c-1 come from member me+d,
 *   c = min(d, n-d). */
void tc_allgather_ring_over(tc_sched *s, const tc_members *m, const tc_bundles *b, const tc_region *own);
void tc_allgather_rd_over(tc_sched *s, const tc_members *m, const tc_bundles *b, const tc_region *own);
void tc_allgather_bruck_over(tc_sched *s, const tc_members *m, const tc_bundles *b, const tc_region *own);

#endif
