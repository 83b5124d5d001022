/* Reduction in stages, the last tier reduced where the L2 data land (see
 * twotier_landing.h). */
#include <stdlib.h>

#include "blocks/twotier_landing.h"

static tc_region sub(tc_region r, int64_t from, int64_t cnt)
{
    return tc_reg(r.buf, r.off + from, cnt);
}

static tc_region tmp(tt_red *R, int64_t cnt)
{
    tc_region r = tc_reg(TC_BUF_TMP, R->tmp_top, cnt);
    R->tmp_top += cnt;
    return r;
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* How many supernodes other than t land on local unit i of supernode t:
 * those t2 with t2 mod n_t = i. */
static int landed(const tt_plan *pl, int t, int i)
{
    int n = tt_nunits(pl, t), all = i < pl->S ? (pl->S - 1 - i) / n + 1 : 0;
    return all - (t % n == i);
}

/* What local unit i of supernode t owns of t's own segment after stage 2:
 * 1 with its range [*x, *y), else 0.  O(1): stage 4 asks for every unit of
 * the supernode on every unit (a scan of the owners made the generator
 * quadratic in the units of a supernode). */
static int own_range(const tt_red *R, int t, int i, int64_t *x, int64_t *y)
{
    int k = tt_red_owner_index(R, t, t, i);
    if (k >= 0) {
        tt_red_owner_range(R, t, t, k, x, y);
        return 1;
    }
    *x = *y = 0;
    return 0;
}

/* Local unit w of supernode t's contribution in stage 4: its landing sum,
 * the whole segment (2); else what it owns of t's segment (1); else
 * nothing (0). */
static int contrib(const tt_red *R, int t, int w, int64_t *x, int64_t *y)
{
    if (landed(R->pl, t, w)) {
        *x = R->seg[t];
        *y = R->seg[t + 1];
        return 2;
    }
    return own_range(R, t, w, x, y);
}

/* ---- stage 3: owners send foreign segments over L2 to the landing unit;
 * the landing unit reduces them with its own stage-2 part of t's segment.
 * Sets *C to the unit's contribution (contrib's range). -------------------- */

static void land(tc_sched *s, tt_red *R, int t, int i, const tc_region *loc, tc_region *C)
{
    const tt_plan *pl = R->pl;
    int n = tt_nunits(pl, t), nl = landed(pl, t, i), sg0, k0, step;
    int m = tt_red_owned(R, t, i, &sg0, &k0, &step);
    int64_t sx = R->seg[t], len = R->seg[t + 1] - sx, x, y;
    tc_region stg = tmp(R, (int64_t)nl * len), own = tc_reg(TC_BUF_TMP, 0, 0);
    for (int j = 0, sg = sg0; j < m; j++, sg += step) {
        if (sg == t) own = loc[j];
        else tc_sched_send(s, tt_leader(pl, tt_gateway(pl, sg, t)), loc[j]);
    }
    for (int t2 = i, q = 0; t2 < pl->S; t2 += n) {
        if (t2 == t) continue;
        for (int k = 0; k < tt_red_owners(R, t2, t); k++) {
            tt_red_owner_range(R, t2, t, k, &x, &y);
            tc_sched_recv(s, tt_leader(pl, tt_red_owner_unit(R, t2, t, k)),
                          sub(stg, (int64_t)q * len + x - sx, y - x));
        }
        q++;
    }
    tc_sched_round(s);
    *C = own;
    if (nl == 0) return;
    tc_region cur = sub(stg, 0, len);
    for (int q = 1; q < nl; q++) {
        tc_region next = sub(stg, (int64_t)q * len, len);
        tc_sched_reduce(s, cur, next);
        cur = next;
    }
    if (own_range(R, t, i, &x, &y)) tc_sched_reduce(s, own, sub(cur, x - sx, y - x));
    tc_sched_round(s);
    *C = cur;
}

/* ---- stage 4: reduce-scatter of segment t among the units of t ----------- */

typedef struct scat {
    int t, i, n, first, base;  /* base: the first unit with a landing sum, -1 if none */
    int64_t cx, cy, px, py;    /* the unit's contribution and its piece */
    tc_region C, res, stg;
} scat;

/* The contributions to this unit's piece: post == 1 posts the receives
 * (the base contribution, or every one when there is no base, straight
 * into res; the others into stg) and copies the unit's own base part;
 * post == 0 reduces the others into res. */
static void gather_piece(tc_sched *s, const tt_red *R, const scat *c, int post)
{
    int64_t P = c->py - c->px, x, y;
    for (int w = 0, q = 0; w < c->n; w++) {
        if (!contrib(R, c->t, w, &x, &y)) continue;
        int64_t lo = max64(x, c->px), hi = min64(y, c->py);
        if (lo >= hi) continue;
        int direct = c->base < 0 || w == c->base;
        tc_region at = sub(c->res, lo - c->px, hi - lo);
        tc_region from = w == c->i ? sub(c->C, lo - c->cx, hi - lo) : sub(c->stg, (int64_t)q++ * P + lo - c->px, hi - lo);
        if (post && w == c->i && direct) tc_sched_copy(s, from, at);
        else if (post && w != c->i) tc_sched_recv(s, tt_leader(R->pl, c->first + w), direct ? at : from);
        else if (!post && !direct) tc_sched_reduce(s, from, at);
    }
}

static void scatter_units(tc_sched *s, tt_red *R, tt_piece_fn piece, scat *c)
{
    const tt_plan *pl = R->pl;
    int64_t x, y;
    piece(R, c->first + c->i, &c->px, &c->py);
    c->res = tmp(R, c->py - c->px);
    c->stg = tmp(R, (int64_t)(c->n - 1) * (c->py - c->px));
    c->base = -1;
    for (int w = 0; w < c->n && c->base < 0; w++)
        if (landed(pl, c->t, w)) c->base = w;
    for (int v = 0; v < c->n; v++) {
        if (v == c->i) continue;
        piece(R, c->first + v, &x, &y);
        int64_t lo = max64(x, c->cx), hi = min64(y, c->cy);
        if (lo < hi) tc_sched_send(s, tt_leader(pl, c->first + v), sub(c->C, lo - c->cx, hi - lo));
    }
    gather_piece(s, R, c, 1);
    tc_sched_round(s);
    gather_piece(s, R, c, 0);
    tc_sched_round(s);
}

int tt_land_run(tc_sched *s, tt_red *R, tt_piece_fn piece, int64_t *px, int64_t *py, tc_region *res)
{
    const tt_plan *pl = R->pl;
    tc_region *loc;
    *px = *py = 0;
    *res = tc_reg(TC_BUF_TMP, 0, 0);
    if (tt_red_stages12(s, R, &loc) < 0) return s->err ? -1 : 0;
    scat c;
    c.t = pl->t->node_of[R->me];
    c.first = pl->unit_first[c.t];
    c.i = tt_unit_of(pl, R->me) - c.first;
    c.n = tt_nunits(pl, c.t);
    land(s, R, c.t, c.i, loc, &c.C);
    free(loc);
    contrib(R, c.t, c.i, &c.cx, &c.cy);
    scatter_units(s, R, piece, &c);
    *px = c.px;
    *py = c.py;
    *res = c.res;
    return s->err ? -1 : 1;
}
