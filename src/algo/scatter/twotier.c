/*
 * scatter family "twotier:units=ranks|sockets" (aliases "twotier",
 * "twotier_sockets"; twotier_family.h): the two-tier scatter
 * (section 5.1).  Tiers (supernode = topology node; unit = the paper's
 * "node": a rank, or a socket for _sockets; its leader is the paper's
 * "core 0") and the round-robin wiring (the link from supernode s to t
 * leaves from unit t mod n_s of s and lands on unit s mod n_t of t):
 * twotier_plan.h.  s0 = the root's supernode; the root leads its unit.
 *
 * Steps:
 *   1. The root sends every other unit leader of s0 the blocks of the
 *      supernodes that unit's L2 links reach.
 *   2. Every unit leader of s0 (the root included) sends each supernode t
 *      it is linked to t's blocks, to the leader of t's landing unit.
 *   3. The leader holding a supernode's blocks (the root in s0, the landing
 *      leader elsewhere) sends every other unit leader of its supernode the
 *      blocks of that unit.
 *   4. Every leader sends each core of its unit its block.
 *   Blocks travel in plan order (supernode by supernode, unit by unit), so
 *   every message is one contiguous range; with a mapping other than a block
 *   mapping the root first copies its send buffer into plan order.
 * Cost (nps units per supernode, sn supernodes, n = p blocks, in-order):
 *   n beta max(1/nps, 1/sn) on the busiest link (the paper's Table 2);
 *   the root sends (sn - 1) + (nps - 1) + (cores - 1) messages (steps 1-2:
 *   one per other supernode; 3; 4).
 * Memory: a gateway leader of s0 keeps its supernodes' blocks, a landing
 *   leader its supernode's, a leader of several cores its unit's (scratch);
 *   the root p blocks when it reorders.
 * Restrictions: none: any p, root, mapping, unequal supernodes and units
 *   (a unit of s0 that no L2 link leaves from only relays its own blocks).
 * Source: Jain, Lau, Kale, "Collectives on Two-tier Direct Networks"
 *   (2012), section 5.1.
 */
#include "algo/twotier_family.h"
#include "blocks/twotier_plan.h"

typedef struct sctx {
    const tc_args *a;
    tt_plan pl;
    int me;
    int64_t rb;    /* blocks of the receive type (receive buffer, scratch) */
    int ident;     /* the root reads its send buffer in place of a plan-order copy */
} sctx;

/* Positions [x, x + k) at the root. */
static tc_region src(const sctx *c, int x, int k)
{
    if (c->ident) return tc_reg(TC_BUF_SEND, (int64_t)x * c->a->scount, (int64_t)k * c->a->scount);
    return tc_reg(TC_BUF_TMP, (int64_t)x * c->rb, (int64_t)k * c->rb);
}

/* Supernode t's blocks at the root. */
static tc_region sn_src(const sctx *c, int t)
{
    return src(c, tt_snpos(&c->pl, t), tt_sncount(&c->pl, t));
}

static tc_region tmp(const sctx *c, int64_t x, int64_t k)
{
    return tc_reg(TC_BUF_TMP, x * c->rb, k * c->rb);
}

/* Step 4 at a leader whose unit's blocks start at `at` (plan position
 * upos(u) there); the own block goes to the receive buffer. */
static void distribute(tc_sched *s, const sctx *c, int u, tc_region at)
{
    const tt_plan *pl = &c->pl;
    int first = tt_upos(pl, u), n = tt_ucount(pl, u);
    for (int j = first; j < first + n; j++) {
        int64_t blk = at.cnt / n;
        tc_region b = tc_reg(at.buf, at.off + (j - first) * blk, blk);
        if (pl->rank_at[j] != c->me) tc_sched_send(s, pl->rank_at[j], b);
        else if (!(c->me == c->a->root && c->a->in_place))
            tc_sched_copy(s, b, tc_reg(TC_BUF_RECV, 0, c->rb));
    }
    tc_sched_round(s);
}

static void root(tc_sched *s, const sctx *c)
{
    const tt_plan *pl = &c->pl;
    int s0 = pl->s0, n0 = tt_nunits(pl, s0), i0 = pl->ur - pl->unit_first[s0];
    if (!c->ident) {   /* plan order; in place, the root's own block stays put */
        int pr = tt_pos(pl, pl->root), skip = c->a->in_place;
        tc_sched_need_tmp(s, (int64_t)pl->p * c->rb);
        tt_copy_runs(s, pl, 0, pr + !skip, 0, TC_BUF_TMP, 0, c->rb, TC_BUF_SEND, c->a->scount);
        tt_copy_runs(s, pl, pr + 1, pl->p - pr - 1, 0, TC_BUF_TMP, (int64_t)(pr + 1) * c->rb, c->rb,
                     TC_BUF_SEND, c->a->scount);
        tc_sched_round(s);
    }
    for (int i = 0; i < n0; i++) {                                 /* step 1 */
        if (i == i0) continue;
        int gw = tt_leader(pl, pl->unit_first[s0] + i);
        for (int t = i; t < pl->S; t += n0)
            if (t != s0) tc_sched_send(s, gw, sn_src(c, t));
    }
    tc_sched_round(s);
    for (int t = i0; t < pl->S; t += n0)                           /* step 2 */
        if (t != s0)
            tc_sched_send(s, tt_leader(pl, tt_gateway(pl, t, s0)), sn_src(c, t));
    tc_sched_round(s);
    for (int v = pl->unit_first[s0]; v < pl->unit_first[s0 + 1]; v++)   /* step 3 */
        if (v != pl->ur) tc_sched_send(s, tt_leader(pl, v), src(c, tt_upos(pl, v), tt_ucount(pl, v)));
    tc_sched_round(s);
    distribute(s, c, pl->ur, src(c, tt_upos(pl, pl->ur), tt_ucount(pl, pl->ur)));
}

/* Where a leader receives its unit's blocks in step 3. */
static tc_region unit_dst(tc_sched *s, const sctx *c, int u, int64_t at)
{
    int n = tt_ucount(&c->pl, u);
    if (n == 1) return tc_reg(TC_BUF_RECV, 0, c->rb);
    tc_sched_need_tmp(s, (at + n) * c->rb);
    return tmp(c, at, n);
}

static void s0_leader(tc_sched *s, const sctx *c, int u)
{
    const tt_plan *pl = &c->pl;
    int s0 = pl->s0, n0 = tt_nunits(pl, s0), i = u - pl->unit_first[s0];
    int64_t off = 0;
    for (int t = i; t < pl->S; t += n0)                            /* step 1 */
        if (t != s0) {
            tc_sched_recv(s, pl->root, tmp(c, off, tt_sncount(pl, t)));
            off += tt_sncount(pl, t);
        }
    tc_sched_need_tmp(s, off * c->rb);
    tc_sched_round(s);
    off = 0;
    for (int t = i; t < pl->S; t += n0)                            /* step 2 */
        if (t != s0) {
            tc_sched_send(s, tt_leader(pl, tt_gateway(pl, t, s0)), tmp(c, off, tt_sncount(pl, t)));
            off += tt_sncount(pl, t);
        }
    tc_sched_round(s);
    tc_region mine = unit_dst(s, c, u, off);                       /* step 3 */
    tc_sched_recv(s, pl->root, mine);
    tc_sched_round(s);
    if (tt_ucount(pl, u) > 1) distribute(s, c, u, mine);
}

static void landing_leader(tc_sched *s, const sctx *c, int u, int t)
{
    const tt_plan *pl = &c->pl;
    int base = tt_snpos(pl, t);
    tc_sched_need_tmp(s, (int64_t)tt_sncount(pl, t) * c->rb);
    tc_sched_recv(s, tt_leader(pl, tt_gateway(pl, pl->s0, t)), tmp(c, 0, tt_sncount(pl, t)));  /* 2 */
    tc_sched_round(s);
    for (int v = pl->unit_first[t]; v < pl->unit_first[t + 1]; v++)                      /* 3 */
        if (v != u) tc_sched_send(s, tt_leader(pl, v), tmp(c, tt_upos(pl, v) - base, tt_ucount(pl, v)));
    tc_sched_round(s);
    distribute(s, c, u, tmp(c, tt_upos(pl, u) - base, tt_ucount(pl, u)));
}

static void other_leader(tc_sched *s, const sctx *c, int u, int t)
{
    const tt_plan *pl = &c->pl;
    tc_region mine = unit_dst(s, c, u, 0);
    tc_sched_recv(s, tt_leader(pl, tt_gateway(pl, t, pl->s0)), mine);   /* step 3 */
    tc_sched_round(s);
    if (tt_ucount(pl, u) > 1) distribute(s, c, u, mine);
}

int tt_scatter_generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    sctx c;
    c.a = a;
    c.me = a->rank;
    tt_plan_init(&c.pl, t, tt_units_sockets(a), a->root);
    c.rb = a->rank == a->root && a->in_place ? a->scount : a->rcount;
    c.ident = a->rank == a->root && tt_identity(&c.pl);
    int u = tt_unit_of(&c.pl, c.me), sn = t->node_of[c.me];
    if (c.me == a->root) root(s, &c);
    else if (c.me != tt_leader(&c.pl, u)) {
        tc_sched_recv(s, tt_leader(&c.pl, u), tc_reg(TC_BUF_RECV, 0, c.rb));   /* step 4 */
        tc_sched_round(s);
    } else if (sn == c.pl.s0) s0_leader(s, &c, u);
    else if (u == tt_gateway(&c.pl, sn, c.pl.s0)) landing_leader(s, &c, u, sn);
    else other_leader(s, &c, u, sn);
    return 0;
}

const tc_family tc_scatter_twotier = {
    .cost = tt_cost,
    .coll = TOPOCOLL_SCATTER, .name = "twotier",
    .summary = "two-tier: root -> its supernode -> L2 gateways -> supernodes -> units",
    .source = __FILE__, .nparams = 1, .params = tt_units_params, .rule = "",
    .describe = tt_family_describe, .req = TC_REQ_NONE, .generate = tt_scatter_generate,
};
