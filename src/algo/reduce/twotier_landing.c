/*
 * reduce family "twotier", landing=yes ("twotier:units=ranks|sockets,landing=yes",
 * aliases "twotier_landing", "twotier_landing_sockets"; the former family
 * name "twotier_landing" still names them): the two-tier reduce of
 * Jain, Lau, Kale, "Collectives on Two-tier Direct Networks" (2012),
 * section 5.4, with the reduction among supernodes done where the L2 data
 * land (the reading of the paper's Table 5 loads, see
 * docs/reproduction_twotier.md).  landing=no (twotier.c) is the same
 * schedule with that stage gathered at one owner unit per supernode.
 * Tiers (supernode = topology node; unit = a rank, or a socket for
 * _sockets) and the round-robin wiring: twotier_plan.h; the stages:
 * twotier_landing.h.
 *
 * Steps: the n elements are cut into S even segments, segment s for
 *   supernode s, and segment s into n_s even pieces, one per unit of s.
 *   1. Reduction among the cores of every unit, at its leader (_sockets).
 *   2. Reduction among the units of every supernode t, segment s left with
 *      t's gateway to s (split among units i = s, s + S, ... when S < n_t).
 *   3. Owners send segment s over L2 to the unit of s the link lands on,
 *      unit (t mod n_s) of s; each landing unit reduces what landed on it
 *      (and its own stage-2 part of s's segment).
 *   4. Every unit of s sends every unit its piece of that sum; the unit
 *      reduces them: every unit holds its piece of the result.
 *   5. "Collect the data at supernode 0": every unit leader sends its piece
 *      to the root (routed through the gateways of its supernode and of the
 *      root's: the paper's path, its forwarding merged).
 * Cost (nps units per supernode, sn supernodes, paper's bandwidth model):
 *   the busiest L1 link, into the root's unit, carries n/nps (stage 2) +
 *   n/(sn nps) (stage 4) + n/nps (stage 5: what lands in the root's
 *   supernode, forwarded) + n/(sn nps) (stage 5 inside the root's
 *   supernode); an L2 link into the root's supernode n/sn + n/sn; about
 *   2 n gamma.  The root receives one message per unit.
 * Memory: about 2 n scratch per leader (twotier_landing.h).
 * Restrictions: commutative operations (contributions are combined in the
 *   order of the wiring); others are declined.  Any p, root, mapping;
 *   unequal supernodes and units.
 * Source: Jain, Lau, Kale, "Collectives on Two-tier Direct Networks"
 *   (2012), section 5.4 and Table 5.
 */
#include <errno.h>

#include "algo/twotier_family.h"
#include "blocks/twotier_landing.h"

/* Unit u's piece: its even share of its supernode's segment. */
static void reduce_piece(const tt_red *R, int u, int64_t *x, int64_t *y)
{
    const tt_plan *pl = R->pl;
    int sn = tt_sn_of_unit(pl, u), n = tt_nunits(pl, sn), i = u - pl->unit_first[sn];
    int64_t sx = R->seg[sn], len = R->seg[sn + 1] - sx;
    *x = sx + tt_split(len, n, i);
    *y = sx + tt_split(len, n, i + 1);
}

/* Step 5: every unit leader's piece to the root. */
static void collect(tc_sched *s, const tc_args *a, const tt_red *R, int lead, int64_t px, tc_region res)
{
    const tt_plan *pl = R->pl;
    if (a->rank != a->root) {
        if (lead) tc_sched_send(s, a->root, res);
        tc_sched_round(s);
        return;
    }
    int units = pl->unit_first[pl->S];
    for (int u = 0; u < units; u++) {
        int64_t x, y;
        reduce_piece(R, u, &x, &y);
        int leader = tt_leader(pl, u);
        if (leader != a->root) tc_sched_recv(s, leader, tc_reg(TC_BUF_RECV, x, y - x));
        else tc_sched_copy(s, res, tc_reg(TC_BUF_RECV, px, res.cnt));
    }
    tc_sched_round(s);
}

int tt_reduce_landing_generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    tt_plan pl;
    tt_plan_init(&pl, t, tt_units_sockets(a), a->root);
    s->tmp_like = TC_BUF_SEND;
    int64_t px, py;
    tt_red R;
    if (tt_red_begin(s, &R, &pl, a->rank, a->scount, 0) != 0) return ENOMEM;
    tc_region res;
    int lead = tt_land_run(s, &R, reduce_piece, &px, &py, &res);
    if (lead >= 0) collect(s, a, &R, lead, px, res);
    tt_red_end(&R);
    if (lead < 0) return s->err ? s->err : ENOMEM;
    tc_sched_need_tmp(s, R.tmp_top);
    return 0;
}

const char tc_reduce_twotier_landing_source[] = __FILE__;
