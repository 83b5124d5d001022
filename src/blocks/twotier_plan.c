/* The two tiers of the algorithms of Jain, Lau, Kale, "Collectives on
 * Two-tier Direct Networks" (2012), see twotier_plan.h. */
#include "blocks/twotier_plan.h"

void tt_plan_init(tt_plan *pl, const tc_topo *t, int sockets, int root)
{
    pl->t = t;
    pl->sockets = sockets;
    pl->p = t->size;
    pl->S = t->nnodes;
    if (pl->sockets) {
        pl->unit_first = t->node_sock_start;
        pl->pos_first = t->sock_start;
        pl->rank_at = t->sock_ranks;
    } else {
        pl->unit_first = t->node_start;
        pl->pos_first = NULL;
        pl->rank_at = t->node_ranks;
    }
    pl->root = root;
    pl->s0 = root >= 0 ? t->node_of[root] : -1;
    pl->ur = -1;
    if (root >= 0) pl->ur = tt_unit_of(pl, root);
}

int tt_unit_of(const tt_plan *pl, int rank)
{
    const tc_topo *t = pl->t;
    return pl->sockets ? t->sock_of[rank] : t->node_start[t->node_of[rank]] + t->node_idx[rank];
}

int tt_pos(const tt_plan *pl, int rank)
{
    const tc_topo *t = pl->t;
    if (!pl->sockets) return tt_unit_of(pl, rank);
    return t->sock_start[t->sock_of[rank]] + t->sock_idx[rank];
}

int tt_leader(const tt_plan *pl, int u)
{
    return u == pl->ur ? pl->root : pl->rank_at[tt_upos(pl, u)];
}

/* The topology knows (computed once when it was built: asking per rank
 * made the generators quadratic in the simulator). */
int tt_identity(const tt_plan *pl)
{
    return pl->sockets ? pl->t->sock_order_ident : pl->t->node_order_ident;
}

void tt_copy_runs(tc_sched *s, const tt_plan *pl, int first, int n, int to_user,
                  int pbuf, int64_t poff, int64_t pblk, int ubuf, int64_t ublk)
{
    for (int x = first; x < first + n;) {
        int y = x + 1;
        while (y < first + n && pl->rank_at[y] == pl->rank_at[y - 1] + 1) y++;
        tc_region pr = tc_reg(pbuf, poff + (int64_t)(x - first) * pblk, (int64_t)(y - x) * pblk);
        tc_region ur = tc_reg(ubuf, (int64_t)pl->rank_at[x] * ublk, (int64_t)(y - x) * ublk);
        if (to_user) tc_sched_copy(s, pr, ur);
        else tc_sched_copy(s, ur, pr);
        x = y;
    }
}
