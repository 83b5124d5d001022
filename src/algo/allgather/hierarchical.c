/*
 * allgather family "hierarchical:leaders=L,agg=A,x=X,dist=D" (short alias
 * "h<L>_<A>_<X>_<D>", e.g. h1_shm_rd_shm): the multi-leader allgathers of
 * Kandalla, Subramoni, Santhanaraman, Koop, Panda, "Designing Multi-Leader-
 * Based Allgather Algorithms for Multi-Core Clusters" (2009).  One catalog
 * row, one instance per valid parameter set (defaults: leaders=1,
 * agg=gather, x=rd, dist=bcast, the paper's single-leader algorithm).
 *
 *   leaders  per node: 1 (single leader), s (one per socket, spread),
 *         sp (one per socket, all packed on the first socket: the
 *         counter-case of Kandalla et al. 2009, Figure 7), 2 or 4 (k leaders, groups of the node's ranks in
 *         socket-major order).  Groups: src/blocks/groups.h.
 *   agg      aggregation inside a group: gather (members send to the leader),
 *         ring or rd (allgather among the members: everyone holds the
 *         group's blocks), shm (members write into the group's part of a
 *         node-shared buffer and signal the leader).
 *   x        exchange of group bundles among all leaders (blocks of unequal
 *         size when groups differ): rd, ring, bruck.
 *   dist     distribution: bcast (binomial broadcast of everything), new (only
 *         the blocks the group did not already hold; after ring/rd), shm
 *         (the leader fills the group's shared part and signals; members
 *         read it).  With agg=shm the leader's exchange runs in the shared
 *         part itself and dist=shm streams: after each exchange round that
 *         received bundles, the leader signals and everyone copies those
 *         blocks out while the next ones travel (only the last round's
 *         blocks are copied after the exchange).
 *
 * Steps: data move in the group-major layout (groups one after another,
 * leader first): scratch (TMP) for point-to-point phases, the group's part
 * of the node-shared buffer (SHM) for shared-memory phases; a final copy
 * puts blocks in rank order in the receive buffer (runs of consecutive
 * ranks are one copy, so a block mapping costs one copy per group).
 * Cost (G groups in all, m ranks per group, n bytes per rank, p ranks):
 *   gather: (m-1) alpha + (m-1) n beta at the leader; ring/rd: as the flat
 *   algorithms on m ranks; shm: one copy of n, m-1 flags;
 *   exchange: rd log G alpha + (p-m) n beta, ring (G-1) alpha + (p-m) n beta,
 *   bruck ceil(log G) alpha + (p-m) n beta;
 *   distribution: bcast log m (alpha + p n beta), new log m (alpha +
 *   (p-m) n beta), shm m-1 flags + one copy of p n per member (streamed
 *   after agg=shm: one flag per exchange round, and only the last round's
 *   blocks copied after the exchange).
 *   Inter-node traffic: only leaders cross nodes; each node's groups
 *   receive p - (group size) blocks each.
 * Memory: p n scratch per rank (none for members with agg=shm and
 *   dist=shm); node-shared: groups on the node × p n, twice (calls
 *   alternate halves, so no extra handshake is needed between calls).
 * Restrictions: agg=shm or dist=shm needs the ranks of a node to share
 *   memory (TC_REQ_NODE_SHM); dist=new needs agg=ring or agg=rd (the only
 *   aggregations after which every member holds its group's blocks).  Any p,
 *   any mapping, unequal nodes/sockets.
 * Allgatherv (the family tc_allgatherv_hierarchical below): the same
 *   schedule with every position as large as its rank's receive count; the
 *   bundles of the exchange and the runs of the final copy are then of
 *   unequal size, which they already are between unequal groups.
 * Source: Kandalla et al. 2009, sections 3.2 and 4; Table 1 for selection.
 */
#include "algo/cost_walk.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/allgather/common.h"
#include "blocks/groups.h"
#include "blocks/allgather_members.h"
#include "blocks/subset.h"

enum { AGG_GATHER, AGG_RING, AGG_RD, AGG_SHM, N_AGG };
enum { X_RD, X_RING, X_BRUCK, N_X };
enum { D_BCAST, D_NEW, D_SHM, N_D };

typedef struct hier_param {
    int mode, k, packed;     /* groups.h */
    int agg, x, dist;
} hier_param;

/* The leaders values (same order as leader_tags below). */
typedef struct leader_cfg { int mode, k, packed; const char *text; } leader_cfg;
static const leader_cfg leader_cfgs[] = {
    { TC_GROUPS_NODE, 1, 0, "1 leader per node" },
    { TC_GROUPS_SOCKET, 0, 0, "1 leader per socket (spread)" },
    { TC_GROUPS_SOCKET, 0, 1, "1 leader per socket, leaders packed on the first socket" },
    { TC_GROUPS_K, 2, 0, "2 leaders per node" },
    { TC_GROUPS_K, 4, 0, "4 leaders per node" },
};

/* ---- one rank's schedule ---------------------------------------------------- */

typedef struct hctx {
    const tc_args *a;
    const hier_param *hp;
    tc_groups g;
    int me, grp, mi, m;       /* rank, its group, index in group, group size */
    const int *gm;            /* group members */
    int64_t *block_off;       /* [p+1] offsets of positions (elements; blocks of
                                 unequal size for allgatherv: tc_args.v) */
    int64_t *group_off;       /* [G+1] offsets of group bundles (elements) */
    int64_t shm_base;         /* this group's part of SHM (elements) */
} hctx;

static tc_region tmp_pos(const hctx *h, int pos, int n)
{ return tc_reg(TC_BUF_TMP, h->block_off[pos], h->block_off[pos + n] - h->block_off[pos]); }

static tc_region shm_pos(const hctx *h, int pos, int n)
{
    return tc_reg(TC_BUF_SHM, h->shm_base + h->block_off[pos], h->block_off[pos + n] - h->block_off[pos]);
}

/* Where the leader assembles the group's and then everyone's blocks. */
static int leader_work_buf(const hctx *h) { return h->hp->agg == AGG_SHM ? TC_BUF_SHM : TC_BUF_TMP; }

static tc_region work_pos(const hctx *h, int buf, int pos, int n)
{ return buf == TC_BUF_SHM ? shm_pos(h, pos, n) : tmp_pos(h, pos, n); }

static void aggregate(tc_sched *s, hctx *h)
{
    const tc_args *a = h->a;
    int own = h->g.pos[h->me], leader = h->gm[0];
    switch (h->hp->agg) {
    case AGG_GATHER:
        if (h->mi) {
            tc_sched_send(s, leader, ag_own(a));
        } else {
            for (int i = 1; i < h->m; i++) tc_sched_recv(s, h->gm[i], tmp_pos(h, h->g.pos[h->gm[i]], 1));
            tc_sched_copy(s, ag_own(a), tmp_pos(h, own, 1));
        }
        tc_sched_round(s);
        break;
    case AGG_RING:
    case AGG_RD: {   /* the group's members, own block copied in the first step */
        tc_members grp = tc_members_group(&h->g, h->grp, h->me);
        tc_bundles b = tc_bundles_at(TC_BUF_TMP, 0, h->block_off + h->g.start[h->grp]);
        tc_region from = ag_own(a);
        if (h->hp->agg == AGG_RING) tc_allgather_ring_over(s, &grp, &b, &from);
        else tc_allgather_rd_over(s, &grp, &b, &from);
        break;
    }
    case AGG_SHM:
        tc_sched_copy(s, ag_own(a), shm_pos(h, own, 1));
        if (h->mi) tc_sched_signal(s, leader);
        else for (int i = 1; i < h->m; i++) tc_sched_wait(s, h->gm[i]);
        tc_sched_round(s);
        break;
    }
}

/* The exchange of group bundles among the leaders, in buf from base (as
 * group grp's leader: every rank of the group generates it for agg=shm). */
static void leaders_over(tc_sched *s, const hctx *h, int buf, int64_t base)
{
    tc_members lead = tc_members_list(h->g.leaders, h->g.ngroups, h->grp);
    tc_bundles b = tc_bundles_at(buf, base, h->group_off);
    if (h->hp->x == X_RD) tc_allgather_rd_over(s, &lead, &b, NULL);
    else if (h->hp->x == X_RING) tc_allgather_ring_over(s, &lead, &b, NULL);
    else tc_allgather_bruck_over(s, &lead, &b, NULL);
}

static void exchange(tc_sched *s, hctx *h)
{
    if (h->mi || h->g.ngroups == 1) return;
    int buf = leader_work_buf(h);
    int64_t base = buf == TC_BUF_SHM ? h->shm_base : 0;
    leaders_over(s, h, buf, base);
}

/* Returns the buffer the rank's final copy reads from. */
static int distribute(tc_sched *s, hctx *h)
{
    int p = h->a->size, first = h->g.start[h->grp], last = h->g.start[h->grp + 1];
    int buf = h->mi ? TC_BUF_TMP : leader_work_buf(h);
    if (h->hp->dist == D_SHM) {
        if (h->mi) {
            tc_sched_wait(s, h->gm[0]);
        } else {
            if (buf == TC_BUF_TMP) tc_sched_copy(s, tmp_pos(h, 0, p), shm_pos(h, 0, p));
            for (int i = 1; i < h->m; i++) tc_sched_signal(s, h->gm[i]);
        }
        tc_sched_round(s);
        return TC_BUF_SHM;
    }
    tc_region regs[2];
    int nregs = 0;
    if (h->hp->dist == D_BCAST) {
        regs[nregs++] = work_pos(h, buf, 0, p);
    } else {                       /* only what the group did not hold */
        if (first > 0) regs[nregs++] = work_pos(h, buf, 0, first);
        if (last < p) regs[nregs++] = work_pos(h, buf, last, p - last);
    }
    tc_subset_bcast(s, h->gm, h->m, h->mi, regs, nregs);
    return buf;
}

/* Group-major positions [lo, hi) to rank order, one copy per run of
 * consecutive ranks; the round stays open. */
static void copy_positions(tc_sched *s, const hctx *h, int buf, int lo, int hi)
{
    for (int x = lo; x < hi;) {
        int y = x + 1;
        while (y < hi && h->g.members[y] == h->g.members[y - 1] + 1) y++;
        tc_sched_copy(s, work_pos(h, buf, x, y - x), ag_rbuf(h->a, h->g.members[x], y - x));
        x = y;
    }
}

static void copy_out(tc_sched *s, const hctx *h, int buf)
{
    copy_positions(s, h, buf, 0, h->a->size);
    tc_sched_round(s);
}

/* ---- dist=shm after agg=shm: the distribution streams with the exchange ----
 *
 * The leader's exchange runs in the node-shared buffer, so a bundle is
 * readable by the group as soon as the round that received it has ended.
 * The exchange is generated into a scratch schedule and replayed round by
 * round; into each replayed round (whose messages are posted before its
 * local operations run) go the leader's copies, to its receive buffer, of
 * the blocks the previous round received, and a signal to each member.
 * The members, after the same number of waits, copy the same blocks out of
 * the shared buffer while the next bundles travel.  The first such step is
 * the group's own blocks (complete once the leader has seen every member's
 * signal).  Members compute the steps from the leader's exchange, generated
 * the same way, so waits and signals match one for one. */

typedef struct span { int lo, hi, step; } span;   /* positions [lo, hi) landing at step */

typedef struct landing {
    span *sp;
    int n, cap, steps;
} landing;

static int landing_add(landing *l, int lo, int hi, int step)
{
    if (lo >= hi) return 0;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        span *sp = realloc(l->sp, (size_t)cap * sizeof *sp);
        if (!sp) return 1;
        l->sp = sp;
        l->cap = cap;
    }
    l->sp[l->n++] = (span){ lo, hi, step };
    return 0;
}

/* The first position whose block starts at or after element e (group-major). */
static int position_at(const hctx *h, int64_t e)
{
    int lo = 0, hi = h->a->size;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (h->block_off[mid] < e) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* A received SHM region as positions, from its first non-empty block (the
 * empty blocks before it start where it does: allgatherv's zero counts). */
static void region_positions(const hctx *h, tc_region r, int *lo, int *hi)
{
    *lo = position_at(h, r.off - h->shm_base);
    *hi = position_at(h, r.off - h->shm_base + r.cnt);
    while (*lo < *hi && h->block_off[*lo + 1] == h->block_off[*lo]) ++*lo;
}

/* The leader's exchange into x (every rank of the group generates it). */
static void leader_exchange(tc_sched *x, const hctx *h)
{
    leaders_over(x, h, TC_BUF_SHM, h->shm_base);
}

/* Copies and signals (leader) or copies (member) of one step's spans. */
static void land_step(tc_sched *s, const hctx *h, const landing *l, int step)
{
    for (int k = 0; k < l->n; k++)
        if (l->sp[k].step == step) copy_positions(s, h, TC_BUF_SHM, l->sp[k].lo, l->sp[k].hi);
    if (h->mi == 0)
        for (int i = 1; i < h->m; i++) tc_sched_signal(s, h->gm[i]);
}

/* The steps of exchange x as position spans: one step per round of x that
 * received bundles (1, 2, ...), and step 0 the group's own blocks, unless
 * a receive lands on them: a leader that folds onto another (recursive
 * doubling for a number of leaders that is not a power of two) receives
 * every bundle back, its own too, and its group reads them after that. */
static int landing_of(landing *l, const hctx *h, const tc_sched *x)
{
    int own_lo = h->g.start[h->grp], own_hi = h->g.start[h->grp + 1], lo, hi, on_own = 0, rc = 0;
    l->steps = 1;
    for (int r = 0; r < x->nrounds && !rc; r++) {
        int got = 0;
        for (int o = tc_sched_round_begin(x, r); o < tc_sched_round_end(x, r) && !rc; o++)
            if (x->ops[o].kind == TC_OP_RECV) {
                got = 1;
                region_positions(h, x->ops[o].a, &lo, &hi);
                on_own |= lo < own_hi && hi > own_lo;
                rc = landing_add(l, lo, hi, l->steps);
            }
        l->steps += got;
    }
    if (rc || on_own) return rc;
    return landing_add(l, own_lo, own_hi, 0);
}

/* One op of the scratch schedule into s, through the builders (s's
 * consumer may drop some kinds). */
static void replay_op(tc_sched *s, const tc_op *op)
{
    switch (op->kind) {
    case TC_OP_SEND: tc_sched_send(s, op->peer, op->a); break;
    case TC_OP_RECV: tc_sched_recv(s, op->peer, op->a); break;
    case TC_OP_COPY: tc_sched_copy(s, op->a, op->b); break;
    case TC_OP_REDUCE: tc_sched_reduce(s, op->a, op->b); break;
    case TC_OP_SIGNAL: tc_sched_signal(s, op->peer); break;
    case TC_OP_WAIT: tc_sched_wait(s, op->peer); break;
    default: tc_sched_rread(s, op->peer, op->a, op->b); break;
    }
}

/* Leader: the exchange's rounds again, each landing the step that became
 * ready before it (at most one is pending at a time), then the last. */
static void stream_leader(tc_sched *s, const hctx *h, const tc_sched *x, const landing *l)
{
    int ready = 1, landed = 0;
    for (int r = 0; r < x->nrounds; r++) {
        int got = 0;
        for (int o = tc_sched_round_begin(x, r); o < tc_sched_round_end(x, r); o++) {
            const tc_op *op = &x->ops[o];
            got |= op->kind == TC_OP_RECV;
            replay_op(s, op);
        }
        if (landed < ready) land_step(s, h, l, landed++);
        tc_sched_round(s);
        ready += got;
    }
    if (landed < ready) {
        land_step(s, h, l, landed);
        tc_sched_round(s);
    }
}

/* Member: wait for each step's signal, copy its blocks in the next round
 * (together with the next wait). */
static void stream_member(tc_sched *s, const hctx *h, const landing *l)
{
    int leader = h->gm[0];
    tc_sched_wait(s, leader);
    tc_sched_round(s);
    for (int k = 0; k < l->steps; k++) {
        land_step(s, h, l, k);
        if (k + 1 < l->steps) tc_sched_wait(s, leader);
        tc_sched_round(s);
    }
}

static int stream(tc_sched *s, const hctx *h)
{
    tc_sched x;
    landing l = { NULL, 0, 0, 0 };
    tc_sched_init(&x);
    if (h->g.ngroups > 1) leader_exchange(&x, h);
    int rc = x.err || landing_of(&l, h, &x);
    if (!rc) {
        if (h->mi == 0) stream_leader(s, h, &x, &l);
        else stream_member(s, h, &l);
    }
    tc_sched_free(&x);
    free(l.sp);
    return rc;
}

static int offsets(hctx *h)
{
    int p = h->a->size, G = h->g.ngroups;
    h->block_off = malloc((size_t)(p + 1) * sizeof *h->block_off);
    h->group_off = malloc((size_t)(G + 1) * sizeof *h->group_off);
    if (!h->block_off || !h->group_off) return 1;
    h->block_off[0] = 0;   /* position x holds rank members[x]'s block */
    for (int x = 0; x < p; x++) {
        int r = h->g.members[x];
        h->block_off[x + 1] = h->block_off[x] + (h->a->v ? h->a->v->rcounts[r] : h->a->rcount);
    }
    for (int q = 0; q <= G; q++) h->group_off[q] = h->block_off[h->g.start[q]];
    return 0;
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t, const hier_param *hp)
{
    hctx h;
    memset(&h, 0, sizeof h);
    h.a = a;
    h.hp = hp;
    const tc_groups *g = tc_groups_of(t, hp->mode, hp->k, hp->packed);
    if (!g) return 1;
    h.g = *g;   /* shared, cached on the topology: not freed here */
    int rc = offsets(&h);
    if (!rc) {
        int p = a->size, node = t->node_of[a->rank];
        int groups_here = h.g.node_first[node + 1] - h.g.node_first[node];
        h.me = a->rank;
        h.grp = h.g.group_of[h.me];
        h.gm = h.g.members + h.g.start[h.grp];
        h.m = tc_groups_size(&h.g, h.grp);
        h.mi = h.g.pos[h.me] - h.g.start[h.grp];
        int64_t all = h.block_off[p];   /* every block, in elements */
        h.shm_base = (int64_t)(h.grp - h.g.node_first[node]) * all;
        tc_sched_need_tmp(s, all);
        if (hp->agg == AGG_SHM || hp->dist == D_SHM) {
            tc_sched_need_shm(s, (int64_t)groups_here * all);
            if (h.mi == 0) tc_sched_shm_home(s, h.shm_base, all);
        }
        aggregate(s, &h);
        if (hp->agg == AGG_SHM && hp->dist == D_SHM) {
            rc = stream(s, &h);
        } else {
            exchange(s, &h);
            copy_out(s, &h, distribute(s, &h));
        }
    }
    free(h.block_off);
    free(h.group_off);
    return rc;
}

/* ---- the family's catalog row ---------------------------------------------- */

enum { P_LEADERS, P_AGG, P_X, P_DIST };

static const char *const leader_tags[] = { "1", "s", "sp", "2", "4", NULL };
static const char *const agg_values[] = { "gather", "ring", "rd", "shm", NULL };
static const char *const x_values[] = { "rd", "ring", "bruck", NULL };
static const char *const dist_values[] = { "bcast", "new", "shm", NULL };

static const tc_param_def params[] = {
    { "leaders", leader_tags, 0 },
    { "agg", agg_values, AGG_GATHER },
    { "x", x_values, X_RD },
    { "dist", dist_values, D_BCAST },
};

/* Listing order: leaders, agg, dist, then x innermost. */
static const int order[] = { P_LEADERS, P_AGG, P_DIST, P_X };

static const char *invalid(const int *v)
{
    if (v[P_DIST] == D_NEW && v[P_AGG] != AGG_RING && v[P_AGG] != AGG_RD)
        return "dist=new needs agg=ring or agg=rd";
    return NULL;
}

static void describe(const tc_family *f, const int *v, tc_instance_text *out)
{
    (void)f;
    snprintf(out->alias, sizeof out->alias, "h%s_%s_%s_%s", leader_tags[v[P_LEADERS]],
             agg_values[v[P_AGG]], x_values[v[P_X]], dist_values[v[P_DIST]]);
    snprintf(out->desc, sizeof out->desc,
             "hierarchical, %s: aggregation %s, leader exchange %s, distribution %s",
             leader_cfgs[v[P_LEADERS]].text, agg_values[v[P_AGG]], x_values[v[P_X]],
             dist_values[v[P_DIST]]);
}

static unsigned req_of(const int *v)
{
    return v[P_AGG] == AGG_SHM || v[P_DIST] == D_SHM ? TC_REQ_NODE_SHM : TC_REQ_NONE;
}

/* ---- cost ---------------------------------------------------------------------- */

/* The leaders' exchange as steps over the ranks: leader of group i (groups
 * numbered node by node) sends bundles (a group's blocks) to another leader. */
typedef struct xstep {
    const tc_groups *g;
    int x, k;             /* X_*, ring step k (1 ..) */
} xstep;

static double bundle(const tc_groups *g, int first, int count)
{
    double b = 0;
    for (int j = 0; j < count; j++) b += tc_groups_size(g, (first + j) % g->ngroups);
    return b;
}

static int x_pair(const void *ctx, int r, int p, int d, double *blocks)
{
    const xstep *xs = ctx;
    const tc_groups *g = xs->g;
    int i = g->group_of[r], gg = g->ngroups;
    (void)p;
    if (g->leaders[i] != r) return -1;
    if (xs->x == X_RING) {   /* step k forwards the bundle of group i - k + 1 */
        *blocks = tc_groups_size(g, ((i - xs->k + 1) % gg + gg) % gg);
        return g->leaders[(i + 1) % gg];
    }
    if (xs->x == X_BRUCK) {
        *blocks = bundle(g, i, d < gg - d ? d : gg - d);
        return g->leaders[(i - d % gg + gg) % gg];
    }
    if ((i ^ d) >= gg) return -1;   /* a non-power-of-two count of leaders: folded, not followed */
    *blocks = bundle(g, i & ~(d - 1), d);
    return g->leaders[i ^ d];
}

/* Cost function (several nodes; Kandalla et al. 2009): with L leaders per
 * node, groups of at most mg ranks:
 *   aggregation in a group: gather and ring mg-1 messages of n, rd ceil(log
 *   mg) messages and (mg-1) n bytes, shm two flags and a copy of n;
 *   the leaders' exchange, walked over the groups (tc_groups_of): ring
 *   steps forward one bundle to the next leader, rd steps swap the aligned
 *   bundles with leader XOR d, bruck steps send min(d, GG-d) bundles to
 *   leader - d; a step's network bytes count once per leader of the busiest
 *   node that sends out of it;
 *   the distribution: bcast ceil(log mg) messages of p n, new of (p-mg) n,
 *   shm a flag; and the final copy of p n.
 * Level totals: the exchange's are the walk's; inside the groups, the
 * aggregation and distribution move (size-1) n (gather), size (size-1) n
 * (ring, rd), (size-1) p n (bcast) or (size-1) (p-size) n (new) per group
 * at the group's level: an estimate (rd inside a group of another size
 * than a power of two folds, and the levels of the pairs are not followed). */
static int family_cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)a;
    const int *v = al->param;
    const leader_cfg *lc = &leader_cfgs[v[P_LEADERS]];
    int p = t->size, gl = v[P_LEADERS] == 1 ? TC_LVL_SOCKET : tc_cw_intra_level(t);
    if (t->nnodes < 2) return -1;   /* one node: the aggregation is the whole algorithm, not modelled */
    const tc_groups *g = tc_groups_of(t, lc->mode, lc->k, lc->packed);
    if (!g) return -1;
    int mg = 1, gg = g->ngroups;
    double intra = 0;
    for (int i = 0; i < gg; i++) {
        double sz = tc_groups_size(g, i);
        if (sz > mg) mg = (int)sz;
        if (v[P_AGG] == AGG_GATHER) intra += (sz - 1) * n;
        else if (v[P_AGG] != AGG_SHM) intra += sz * (sz - 1) * n;
        if (v[P_DIST] == D_BCAST) intra += (sz - 1) * p * n;
        else if (v[P_DIST] == D_NEW) intra += (sz - 1) * (p - sz) * n;
    }
    switch (v[P_AGG]) {
    case AGG_GATHER:
    case AGG_RING: tc_cw_path(c, gl, mg - 1, n); break;
    case AGG_RD:
        c->msgs[gl] += tc_cw_ceil_log2(mg);
        c->bytes[gl] += (mg - 1) * n;
        break;
    default:
        tc_cw_path(c, TC_LVL_SOCKET, 2, 0);
        c->mem += n;
        break;
    }
    xstep xs = { g, v[P_X], 0 };
    if (v[P_X] == X_RING)
        for (xs.k = 1; xs.k < gg; xs.k++) tc_cw_step(c, t, x_pair, &xs, 0, n);
    else
        for (int d = 1; d < gg; d <<= 1) tc_cw_step(c, t, x_pair, &xs, d, n);
    switch (v[P_DIST]) {
    case D_BCAST: tc_cw_path(c, gl, tc_cw_ceil_log2(mg), p * n); break;
    case D_NEW: tc_cw_path(c, gl, tc_cw_ceil_log2(mg), (p - mg) * n); break;
    default: tc_cw_path(c, TC_LVL_SOCKET, 1, 0); break;
    }
    c->total[gl] += intra;
    c->mem += p * n;
    c->total_approx = 1;
    return 0;
}

static int family_generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    const int *v = a->param;
    const leader_cfg *lc = &leader_cfgs[v[P_LEADERS]];
    hier_param hp = { lc->mode, lc->k, lc->packed, v[P_AGG], v[P_X], v[P_DIST] };
    return generate(s, a, t, &hp);
}

const tc_family tc_allgather_hierarchical = {
    .coll = TOPOCOLL_ALLGATHER, .name = "hierarchical",
    .summary = "multi-leader hierarchical allgather: aggregation in "
               "groups of a node, exchange among the leaders, distribution in the groups",
    .source = __FILE__, .nparams = 4, .params = params, .order = order,
    .invalid = invalid, .rule = "dist=new needs agg=ring or agg=rd",
    .describe = describe, .req = TC_REQ_NONE, .req_of = req_of, .generate = family_generate,
    .cost = family_cost,
};

/* The same family for allgatherv: positions take their ranks' receive
 * counts (tc_args.v), so bundles of unequal size move as they do between
 * unequal groups. */
const tc_family tc_allgatherv_hierarchical = {
    .coll = TOPOCOLL_ALLGATHERV, .name = "hierarchical",
    .summary = "multi-leader hierarchical allgatherv: aggregation in "
               "groups of a node, exchange among the leaders, distribution in the groups",
    .source = __FILE__, .nparams = 4, .params = params, .order = order,
    .invalid = invalid, .rule = "dist=new needs agg=ring or agg=rd",
    .describe = describe, .req = TC_REQ_NONE, .req_of = req_of, .generate = family_generate,
    .cost = family_cost,
};
