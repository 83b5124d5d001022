/*
 * reduce_scatter_block family "twotier", landing=yes
 * ("twotier:units=ranks|sockets,landing=yes", aliases "twotier_landing",
 * "twotier_landing_sockets"; the former family name "twotier_landing"
 * still names them): the two-tier reduce-scatter
 * of Jain, Lau, Kale, "Collectives on Two-tier Direct Networks" (2012),
 * section 5.4, with the reduction among supernodes done where the L2 data
 * land, which is what the paper's Table 5 loads (65 MB on every L1 link)
 * imply.  landing=no (twotier.c) is the same schedule with that stage
 * gathered at one owner unit per supernode.  Tiers (supernode = topology
 * node; unit = a rank, or a socket for _sockets) and the round-robin
 * wiring: twotier_plan.h; the stages: twotier_landing.h.
 *
 * Steps: the data are the p blocks in plan order (supernode by supernode);
 *   segment s = the blocks of supernode s's ranks, unit v's piece = the
 *   blocks of v's ranks.  With a mapping other than a block mapping every
 *   rank first copies its input into plan order.
 *   1. Reduction among the cores of every unit, at its leader (_sockets).
 *   2. Reduction among the units of every supernode t, segment s left with
 *      t's gateway to s (split among units i = s, s + S, ... when S < n_t).
 *   3. Owners send segment s over L2 to the unit of s the link lands on,
 *      unit (t mod n_s) of s; each landing unit reduces what landed on it
 *      (and its own stage-2 part of s's segment).
 *   4. Every unit of s sends every unit the part of its sum that unit's
 *      ranks receive; the unit reduces them.
 *   5. Every unit leader hands each of its cores its block.
 * Cost (nps units per supernode, sn supernodes, n = p blocks): on the
 *   busiest L1 link n/nps (stage 2) + n/(sn nps) (stage 4), on an L2 link
 *   n/sn: n beta (1/nps + 1/sn + 1/(sn nps)); the busiest leader reduces
 *   about n (stages 1-2) + n/nps (stage 3) + n/sn (stage 4) elements.
 * Memory: about 2 n scratch per leader (+ n when the input is reordered).
 * Restrictions: commutative operations (contributions are combined in the
 *   order of the wiring); others are declined.  Any p, mapping, unequal
 *   supernodes and units.
 * Source: Jain, Lau, Kale, "Collectives on Two-tier Direct Networks"
 *   (2012), section 5.4 and Table 5.
 */
#include <errno.h>

#include "algo/twotier_family.h"
#include "blocks/twotier_landing.h"

/* Unit u's piece: the blocks of its ranks (plan positions are contiguous
 * per unit). */
static void rsb_piece(const tt_red *R, int u, int64_t *x, int64_t *y)
{
    int64_t b = R->N / R->pl->p;
    *x = (int64_t)tt_upos(R->pl, u) * b;
    *y = (int64_t)tt_upos(R->pl, u + 1) * b;
}

/* Step 5: the leader hands every rank of its unit its block. */
static void scatter_unit(tc_sched *s, const tc_args *a, const tt_plan *pl, int lead, int64_t px, tc_region res)
{
    int64_t b = a->rcount;
    int u = tt_unit_of(pl, a->rank), leader = tt_leader(pl, u);
    if (!lead) {
        tc_sched_recv(s, leader, tc_reg(TC_BUF_RECV, 0, b));
        tc_sched_round(s);
        return;
    }
    for (int j = tt_upos(pl, u); j < tt_upos(pl, u + 1); j++) {
        tc_region from = tc_reg(res.buf, res.off + (int64_t)j * b - px, b);
        if (pl->rank_at[j] == a->rank) tc_sched_copy(s, from, tc_reg(TC_BUF_RECV, 0, b));
        else tc_sched_send(s, pl->rank_at[j], from);
    }
    tc_sched_round(s);
}

int tt_rsb_landing_generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    tt_plan pl;
    tt_plan_init(&pl, t, tt_units_sockets(a), -1);
    s->tmp_like = TC_BUF_SEND;
    int64_t px, py;
    tt_red R;
    if (tt_red_begin(s, &R, &pl, a->rank, (int64_t)pl.p * a->rcount, a->rcount) != 0) return ENOMEM;
    tc_region res;
    int lead = tt_land_run(s, &R, rsb_piece, &px, &py, &res);
    tt_red_end(&R);
    if (lead < 0) return s->err ? s->err : ENOMEM;
    scatter_unit(s, a, &pl, lead, px, res);
    tc_sched_need_tmp(s, R.tmp_top);
    return 0;
}

const char tc_rsb_twotier_landing_source[] = __FILE__;
