/*
 * reduce family "twotier:units=ranks|sockets,landing=no|yes" (aliases
 * "twotier", "twotier_sockets", "twotier_landing", "twotier_landing_sockets";
 * twotier_family.h).  This file: landing=no, the two-tier reduce (section
 * 5.4), owner-based reduction in stages; landing=yes:
 * src/algo/reduce/twotier_landing.c.  Tiers (supernode = topology node;
 * unit = a rank, or a socket for _sockets) and the round-robin wiring:
 * twotier_plan.h; the stages: twotier_reduce.h.
 *
 * Steps: the n elements are cut into S even segments, segment s for
 *   supernode s.
 *   1. Reduction among the cores of every unit, collected at its leader
 *      (_sockets only; a unit of one rank skips it).
 *   2. Reduction among the units of every supernode t, leaving segment s
 *      with t's gateway to s (the paper: "owners among nodes are decided
 *      such that instead of collecting data at node 0, the data can be left
 *      with the owner nodes and directly exchanged in the next step").
 *   3. Reduction among supernodes: owners send segment s to its owners in
 *      supernode s, which reduce.
 *   4. "Collect the data at supernode 0": every owner of a reduced piece
 *      sends it to the root (routed through the gateways of supernode s and
 *      of the root's supernode: the paper's path, its forwarding merged).
 * Cost (nps units per supernode, sn supernodes, paper's bandwidth model):
 *   n beta (1/nps + 2/sn) on the busiest links, about 2 n gamma;
 *   (nps - 1) + (sn - 1) + 1 messages per owner, sn x (owners) at the root.
 * Memory: about 2 n scratch per leader (twotier_reduce.h).
 * Restrictions: commutative operations (the paper assumes them; owners
 *   reduce in no rank order); others are declined.  Any p, root, mapping;
 *   unequal supernodes and units.
 * Reading of the paper: with fewer supernodes than units the segments are
 *   split further among the units (twotier_reduce.h), so no unit idles;
 *   segment s's own owners in supernode s follow the same rule (unit
 *   s mod n_s).
 * Source: Jain, Lau, Kale, "Collectives on Two-tier Direct Networks"
 *   (2012), section 5.4.
 */
#include <errno.h>

#include "algo/twotier_family.h"
#include "blocks/twotier_reduce.h"

static void collect(tc_sched *s, const tc_args *a, const tt_red *R)
{
    const tt_plan *pl = R->pl;
    if (a->rank != a->root) {
        if (R->home) tc_sched_send(s, a->root, R->hloc);
        tc_sched_round(s);
        return;
    }
    for (int sg = 0; sg < pl->S; sg++)
        for (int k = 0; k < tt_red_homes(R, sg); k++) {
            int64_t x, y;
            tt_red_home_range(R, sg, k, &x, &y);
            int leader = tt_leader(pl, tt_red_home_unit(R, sg, k));
            tc_region dst = tc_reg(TC_BUF_RECV, x, y - x);
            if (leader != a->root) tc_sched_recv(s, leader, dst);
            else if (R->hloc.buf != TC_BUF_SEND || !a->in_place) tc_sched_copy(s, R->hloc, dst);
        }
    tc_sched_round(s);
}

static int tt_reduce_generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    tt_plan pl;
    tt_plan_init(&pl, t, tt_units_sockets(a), a->root);
    s->tmp_like = TC_BUF_SEND;
    tt_red R;
    if (tt_red_begin(s, &R, &pl, a->rank, a->scount, 0) != 0) return ENOMEM;
    tt_red_run(s, &R);
    collect(s, a, &R);
    tc_sched_need_tmp(s, R.tmp_top);
    tt_red_end(&R);
    return 0;
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    const int *v = a->param;
    return v[TT_P_LANDING] ? tt_reduce_landing_generate(s, a, t) : tt_reduce_generate(s, a, t);
}

static void describe(const tc_family *f, const int *v, tc_instance_text *out)
{
    (void)f;
    tt_reduce_describe(v, out, "two-tier: owner-based reduction in stages",
                       "two-tier: reduction in stages, supernode sums reduced where they land",
                       tc_reduce_twotier_landing_source);
}

const tc_family tc_reduce_twotier = {
    .cost = tt_cost,
    .coll = TOPOCOLL_REDUCE, .name = "twotier",
    .summary = "two-tier: owner-based reduction in stages, or (landing=yes) supernode sums reduced where they land",
    .source = __FILE__, .nparams = 2, .params = tt_reduce_params, .order = tt_reduce_order, .rule = "",
    .describe = describe, .req = TC_REQ_COMMUTATIVE, .generate = generate,
    .former = "twotier_landing", .former_params = "landing=yes",
};
