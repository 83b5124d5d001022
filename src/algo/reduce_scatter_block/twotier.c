/*
 * reduce_scatter_block family "twotier:units=ranks|sockets,landing=no|yes"
 * (aliases "twotier", "twotier_sockets", "twotier_landing",
 * "twotier_landing_sockets"; twotier_family.h).  This file: landing=no
 * (landing=yes: src/algo/reduce_scatter_block/twotier_landing.c), the
 * two-tier reduce-scatter (section 5.4): the two-tier reduce with the owners of the
 * last stage chosen so that "a supernode becomes owner of the data which its
 * cores are required to receive", and a scatter inside every supernode in
 * place of the collection at supernode 0.  Tiers (supernode = topology node;
 * unit = a rank, or a socket for _sockets) and the round-robin wiring:
 * twotier_plan.h; the stages: twotier_reduce.h.
 *
 * Steps: the data are the p blocks in plan order (supernode by supernode);
 *   segment s = the blocks of supernode s's ranks.  With a mapping other
 *   than a block mapping every rank first copies its input into plan order.
 *   1. Reduction among the cores of every unit, at its leader (_sockets).
 *   2. Reduction among the units of every supernode t, segment s left with
 *      t's gateway to s (split among units i = s, s + S, ... when S < n_t).
 *   3. Reduction among supernodes: owners send segment s to its owners in
 *      supernode s (unit s mod n_s, or split as in 2), which reduce.
 *   4. Scatter inside every supernode: every home owner sends each rank of
 *      its supernode the part of that rank's block it holds.
 * Cost (nps units per supernode, sn supernodes, n = p blocks):
 *   n beta (1/nps + 1/sn + 1/(sn nps)) on the busiest links, about 2 n gamma.
 * Memory: about 2 n scratch per leader (+ n when the input is reordered).
 * Restrictions: commutative operations (the paper assumes them); others are
 *   declined.  Any p, mapping, unequal supernodes and units.
 * Source: Jain, Lau, Kale, "Collectives on Two-tier Direct Networks"
 *   (2012), section 5.4.
 */
#include <errno.h>

#include "algo/twotier_family.h"
#include "blocks/twotier_reduce.h"

static void scatter_home(tc_sched *s, const tc_args *a, const tt_red *R)
{
    const tt_plan *pl = R->pl;
    int64_t b = a->rcount;
    int me = a->rank, t = pl->t->node_of[me];
    if (R->home)
        for (int j = tt_snpos(pl, t); j < tt_snpos(pl, t + 1); j++) {
            int64_t lo = (int64_t)j * b > R->hx ? (int64_t)j * b : R->hx;
            int64_t hi = (int64_t)(j + 1) * b < R->hy ? (int64_t)(j + 1) * b : R->hy;
            if (lo >= hi) continue;
            tc_region from = tc_reg(R->hloc.buf, R->hloc.off + lo - R->hx, hi - lo);
            tc_region to = tc_reg(TC_BUF_RECV, lo - (int64_t)j * b, hi - lo);
            if (pl->rank_at[j] == me) tc_sched_copy(s, from, to);
            else tc_sched_send(s, pl->rank_at[j], from);
        }
    int64_t bx = (int64_t)tt_pos(pl, me) * b;
    for (int k = 0; k < tt_red_homes(R, t); k++) {
        int64_t x, y;
        tt_red_home_range(R, t, k, &x, &y);
        int64_t lo = x > bx ? x : bx, hi = y < bx + b ? y : bx + b;
        int owner = tt_leader(pl, tt_red_home_unit(R, t, k));
        if (lo < hi && owner != me) tc_sched_recv(s, owner, tc_reg(TC_BUF_RECV, lo - bx, hi - lo));
    }
    tc_sched_round(s);
}

static int tt_rsb_generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    tt_plan pl;
    tt_plan_init(&pl, t, tt_units_sockets(a), -1);
    s->tmp_like = TC_BUF_SEND;
    tt_red R;
    if (tt_red_begin(s, &R, &pl, a->rank, (int64_t)pl.p * a->rcount, a->rcount) != 0) return ENOMEM;
    tt_red_run(s, &R);
    scatter_home(s, a, &R);
    tc_sched_need_tmp(s, R.tmp_top);
    tt_red_end(&R);
    return 0;
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    const int *v = a->param;
    return v[TT_P_LANDING] ? tt_rsb_landing_generate(s, a, t) : tt_rsb_generate(s, a, t);
}

static void describe(const tc_family *f, const int *v, tc_instance_text *out)
{
    (void)f;
    tt_reduce_describe(v, out, "two-tier: owner-based reduction in stages, scattered per supernode",
                       "two-tier: reduction in stages, supernode sums reduced where they land, scattered per supernode",
                       tc_rsb_twotier_landing_source);
}

const tc_family tc_reduce_scatter_block_twotier = {
    .cost = tt_cost,
    .coll = TOPOCOLL_REDUCE_SCATTER_BLOCK, .name = "twotier",
    .summary = "two-tier: owner-based reduction in stages, or (landing=yes) supernode sums reduced where they "
               "land, scattered per supernode",
    .source = __FILE__, .nparams = 2, .params = tt_reduce_params, .order = tt_reduce_order, .rule = "",
    .describe = describe, .req = TC_REQ_COMMUTATIVE, .generate = generate,
    .former = "twotier_landing", .former_params = "landing=yes",
};
