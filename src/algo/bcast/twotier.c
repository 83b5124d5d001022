/*
 * bcast family "twotier:units=ranks|sockets,chunked=no|yes" (aliases
 * "twotier", "twotier_sockets", "twotier_chunked", "twotier_chunked_sockets";
 * twotier_family.h).  This file: chunked=no, the base broadcast (section
 * 5.2: "Broadcast can be performed using the approach used for Scatter if
 * the entire data, without personalization, is sent in the four steps").
 * Tiers (supernode = topology node; unit = the paper's "node": a rank, or a
 * socket for _sockets) and the round-robin wiring: twotier_plan.h.
 * s0 = the root's supernode; the root leads its unit.
 *
 * Steps:
 *   1. The root sends the buffer to every other unit leader of s0.  (This is
 *      also the scatter's step 3 for s0: with the whole buffer in every
 *      message, a unit of s0 needs nothing more.)
 *   2. Every unit leader of s0 (the root included) sends the buffer over
 *      each of its L2 links, to the leader of the landing unit of every
 *      supernode it is linked to.
 *   3. Every landing leader sends the buffer to every other unit leader of
 *      its supernode.
 *   4. Every leader sends the buffer to each core of its unit.
 * Cost (nps units per supernode, sn supernodes): 3 hops of n beta
 *   (L1, L2, L1) + one intra-unit hop; the root sends nps - 1 + sn/nps
 *   messages of n.
 * Memory: none.
 * Restrictions: none: any p, root, mapping, unequal supernodes and units.
 * Source: Jain, Lau, Kale, "Collectives on Two-tier Direct Networks"
 *   (2012), section 5.2.  chunked=yes: src/algo/bcast/twotier_chunked.c.
 */
#include "algo/twotier_family.h"

#include <stdio.h>

#include "blocks/twotier_plan.h"

static void to_cores(tc_sched *s, const tt_plan *pl, int me, int u, tc_region all)
{
    for (int j = tt_upos(pl, u); j < tt_upos(pl, u + 1); j++)
        if (pl->rank_at[j] != me) tc_sched_send(s, pl->rank_at[j], all);
    tc_sched_round(s);
}

static int tt_bcast_generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    tt_plan pl;
    tt_plan_init(&pl, t, tt_units_sockets(a), a->root);
    tc_region all = tc_reg(TC_BUF_RECV, 0, a->rcount);
    int me = a->rank, u = tt_unit_of(&pl, me), sn = t->node_of[me], s0 = pl.s0;
    if (me != tt_leader(&pl, u)) {
        tc_sched_recv(s, tt_leader(&pl, u), all);                           /* step 4 */
        tc_sched_round(s);
        return 0;
    }
    if (sn == s0) {
        int n0 = tt_nunits(&pl, s0), i = u - pl.unit_first[s0];
        if (me == a->root) {                                                /* step 1 */
            for (int v = pl.unit_first[s0]; v < pl.unit_first[s0 + 1]; v++)
                if (v != u) tc_sched_send(s, tt_leader(&pl, v), all);
        } else {
            tc_sched_recv(s, a->root, all);
        }
        tc_sched_round(s);
        for (int t2 = i; t2 < pl.S; t2 += n0)                               /* step 2 */
            if (t2 != s0) tc_sched_send(s, tt_leader(&pl, tt_gateway(&pl, t2, s0)), all);
        tc_sched_round(s);
    } else {
        int land = tt_gateway(&pl, sn, s0);
        if (u == land) {
            tc_sched_recv(s, tt_leader(&pl, tt_gateway(&pl, s0, sn)), all);  /* step 2 */
            tc_sched_round(s);
            for (int v = pl.unit_first[sn]; v < pl.unit_first[sn + 1]; v++) /* step 3 */
                if (v != u) tc_sched_send(s, tt_leader(&pl, v), all);
        } else {
            tc_sched_recv(s, tt_leader(&pl, land), all);
        }
        tc_sched_round(s);
    }
    to_cores(s, &pl, me, u, all);                                           /* step 4 */
    return 0;
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    const int *v = a->param;
    return v[TT_P_CHUNKED] ? tt_bcast_chunked_generate(s, a, t) : tt_bcast_generate(s, a, t);
}

static void describe(const tc_family *f, const int *v, tc_instance_text *out)
{
    (void)f;
    int sockets = v[TT_P_UNITS], chunked = v[TT_P_CHUNKED];
    const char *units = sockets ? "sockets" : "ranks";
    snprintf(out->alias, sizeof out->alias, "twotier%s%s", chunked ? "_chunked" : "",
             sockets ? "_sockets" : "");
    if (chunked) {
        snprintf(out->desc, sizeof out->desc, "two-tier chunked broadcast: chunks spread over the "
                 "root's supernode, relayed over L2 twice, units = %s of a node", units);
        out->source = tc_bcast_twotier_chunked_source;
    } else {
        snprintf(out->desc, sizeof out->desc, "two-tier base broadcast: the scatter's four steps "
                 "with the whole buffer, units = %s of a node", units);
    }
}

const tc_family tc_bcast_twotier = {
    .cost = tt_cost,
    .coll = TOPOCOLL_BCAST, .name = "twotier",
    .summary = "two-tier broadcast: the whole buffer in the scatter's four steps, or "
               "(chunked=yes) in chunks relayed over L2 twice",
    .source = __FILE__, .nparams = 2, .params = tt_bcast_params, .rule = "",
    .describe = describe, .req = TC_REQ_NONE, .generate = generate,
};
