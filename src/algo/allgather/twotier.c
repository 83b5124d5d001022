/*
 * allgather family "twotier:units=ranks|sockets" (aliases "twotier",
 * "twotier_sockets"; twotier_family.h): the two-tier allgather
 * (section 5.3: "a base broadcast being done by all nodes simultaneously").
 * Tiers (supernode = topology node; unit = the paper's "node": a rank, or a
 * socket for _sockets; its leader, the lowest rank, is the paper's "core
 * 0") and the round-robin wiring (the link from s to t leaves from unit
 * t mod n_s of s, lands on unit s mod n_t of t): twotier_plan.h.
 *
 * Steps:
 *   1. Every core sends its block to its unit's leader.
 *   2. The unit leaders of every supernode exchange their units' blocks all
 *      to all (L1): every leader then holds its supernode's blocks.
 *   3. Supernodes exchange all to all in parallel (L2): the leader of unit i
 *      of supernode s swaps supernode blocks with every supernode t its
 *      link reaches (t mod n_s = i), with the leader of t's unit s mod n_t.
 *   4. Every leader passes the supernode blocks it received in 3 to every
 *      other unit leader of its supernode (L1).
 *   5. Every leader sends each core of its unit everything but the core's
 *      own block.
 *   Leaders work in plan order (supernode by supernode, unit by unit), so
 *   every message is one range: in the receive buffer under a block
 *   mapping, else in scratch, copied to rank order before step 5.
 * Cost (nps units per supernode, sn supernodes, n = p blocks, in-order):
 *   n beta (1/nps + 1/sn + 1/(sn nps)) on the busiest links (the paper's
 *   Table 2); per leader (nps - 1) + sn/nps + (nps - 1) messages and p - 1
 *   blocks in.
 * Memory: p blocks of scratch at a leader when the mapping is not a block
 *   mapping.
 * Restrictions: none: any p, mapping, unequal supernodes and units.
 * Source: Jain, Lau, Kale, "Collectives on Two-tier Direct Networks"
 *   (2012), section 5.3.
 */
#include "algo/allgather/common.h"
#include "algo/twotier_family.h"
#include "blocks/twotier_plan.h"

typedef struct actx {
    tt_plan pl;
    const tc_args *a;
    int me, ident;
    int store;     /* TC_BUF_RECV (block mapping) or TC_BUF_TMP: positions in plan order */
} actx;

static tc_region at(const actx *c, int x, int k)
{
    return tc_reg(c->store, (int64_t)x * c->a->rcount, (int64_t)k * c->a->rcount);
}

static tc_region sn_blocks(const actx *c, int t) { return at(c, tt_snpos(&c->pl, t), tt_sncount(&c->pl, t)); }
static tc_region unit_blocks(const actx *c, int u) { return at(c, tt_upos(&c->pl, u), tt_ucount(&c->pl, u)); }

static void gather_unit(tc_sched *s, const actx *c, int u)                 /* step 1 */
{
    const tt_plan *pl = &c->pl;
    if (!(c->ident && c->a->in_place)) tc_sched_copy(s, ag_own(c->a), at(c, tt_pos(pl, c->me), 1));
    for (int j = tt_upos(pl, u); j < tt_upos(pl, u + 1); j++)
        if (pl->rank_at[j] != c->me) tc_sched_recv(s, pl->rank_at[j], at(c, j, 1));
    tc_sched_round(s);
}

static void exchange(tc_sched *s, const actx *c, int u, int sn)              /* steps 2-4 */
{
    const tt_plan *pl = &c->pl;
    int n = tt_nunits(pl, sn), i = u - pl->unit_first[sn];
    for (int v = pl->unit_first[sn]; v < pl->unit_first[sn + 1]; v++)
        if (v != u) {
            tc_sched_send(s, tt_leader(pl, v), unit_blocks(c, u));
            tc_sched_recv(s, tt_leader(pl, v), unit_blocks(c, v));
        }
    tc_sched_round(s);
    for (int t = i; t < pl->S; t += n)
        if (t != sn) {
            int peer = tt_leader(pl, tt_gateway(pl, t, sn));
            tc_sched_send(s, peer, sn_blocks(c, sn));
            tc_sched_recv(s, peer, sn_blocks(c, t));
        }
    tc_sched_round(s);
    for (int j = 0; j < n; j++) {
        int peer = tt_leader(pl, pl->unit_first[sn] + j);
        if (j == i) continue;
        for (int t = i; t < pl->S; t += n)
            if (t != sn) tc_sched_send(s, peer, sn_blocks(c, t));
        for (int t = j; t < pl->S; t += n)
            if (t != sn) tc_sched_recv(s, peer, sn_blocks(c, t));
    }
    tc_sched_round(s);
}

static void distribute(tc_sched *s, const actx *c, int u)                  /* step 5 */
{
    const tt_plan *pl = &c->pl;
    const tc_args *a = c->a;
    if (!c->ident) {
        tt_copy_runs(s, pl, 0, pl->p, 1, TC_BUF_TMP, 0, a->rcount, TC_BUF_RECV, a->rcount);
        tc_sched_round(s);
    }
    for (int j = tt_upos(pl, u); j < tt_upos(pl, u + 1); j++) {
        int r = pl->rank_at[j];
        if (r == c->me) continue;
        tc_sched_send(s, r, ag_rbuf(a, 0, r));
        tc_sched_send(s, r, ag_rbuf(a, r + 1, pl->p - r - 1));
    }
    tc_sched_round(s);
}

static int tt_allgather_generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    actx c;
    tt_plan_init(&c.pl, t, tt_units_sockets(a), -1);
    c.a = a;
    c.me = a->rank;
    int u = tt_unit_of(&c.pl, c.me), leader = tt_leader(&c.pl, u);
    if (c.me != leader) {
        if (!a->in_place) tc_sched_copy(s, ag_own(a), ag_rbuf(a, c.me, 1));
        tc_sched_send(s, leader, ag_own(a));                                /* step 1 */
        tc_sched_round(s);
        tc_sched_recv(s, leader, ag_rbuf(a, 0, c.me));                       /* step 5 */
        tc_sched_recv(s, leader, ag_rbuf(a, c.me + 1, a->size - c.me - 1));
        tc_sched_round(s);
        return 0;
    }
    c.ident = tt_identity(&c.pl);
    c.store = c.ident ? TC_BUF_RECV : TC_BUF_TMP;
    if (!c.ident) tc_sched_need_tmp(s, (int64_t)a->size * a->rcount);
    gather_unit(s, &c, u);
    exchange(s, &c, u, t->node_of[c.me]);
    distribute(s, &c, u);
    return 0;
}

const tc_family tc_allgather_twotier = {
    .cost = tt_cost,
    .coll = TOPOCOLL_ALLGATHER, .name = "twotier",
    .summary = "two-tier: units, then supernodes over L2, all to all",
    .source = __FILE__, .nparams = 1, .params = tt_units_params, .rule = "",
    .describe = tt_family_describe, .req = TC_REQ_NONE, .generate = tt_allgather_generate,
};
