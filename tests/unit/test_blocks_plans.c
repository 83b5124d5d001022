/* The plans of the building blocks (src/blocks/), checked against their
 * definitions on many layouts (block, cyclic and random mappings, unequal
 * nodes and sockets):
 *   groups.c          leader groups: node, socket and k groups, spread and
 *                     packed leaders;
 *   mirror.c          a schedule run backwards;
 *   twotier_plan.c    the two tiers' plan order, units, leaders, gateways,
 *                     copies between plan and rank order;
 *   twotier_reduce.c  which units own which pieces of which segments;
 *   hier_a2a.c        equal parts given as count rows make the schedule
 *                     of equal parts given as one size (its two paths).
 * Ends with "N passed, M failed". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocks/groups.h"
#include "blocks/hier_a2a.h"
#include "blocks/mirror.h"
#include "blocks/twotier_plan.h"
#include "blocks/twotier_reduce.h"
#include "../common/harness.h"

/* ---- layouts ------------------------------------------------------------------ */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

/* Layout number v for p ranks: block nodes, cyclic nodes with two sockets,
 * random nodes and sockets, one node, cyclic sockets in block nodes, one
 * rank per node. */
static tc_topo *layout(int p, int v)
{
    int *node = malloc((size_t)p * sizeof *node), *sock = malloc((size_t)p * sizeof *sock);
    int G = 1 + p / 3;
    for (int r = 0; r < p; r++) {
        switch (v) {
        case 0: node[r] = r / 4, sock[r] = (r % 4) / 2; break;               /* 4 per node, 2 sockets */
        case 1: node[r] = r % 3, sock[r] = (r / 3) % 2; break;               /* cyclic */
        case 2: node[r] = (int)(tc_test_rand(&rng) % (unsigned)G);
                sock[r] = (int)(tc_test_rand(&rng) % 3u); break;             /* any mapping */
        case 3: node[r] = 0, sock[r] = r * 3 / p; break;                     /* one node, 3 sockets */
        case 4: node[r] = r / 4, sock[r] = r % 2; break;                     /* block nodes, cyclic sockets */
        default: node[r] = r, sock[r] = 0; break;                            /* one rank per node */
        }
    }
    tc_topo *t = tc_topo_from_map(p, node, sock);
    free(node);
    free(sock);
    return t;
}
enum { LAYOUTS = 6 };

/* The node's ranks in socket-major order (sockets in order, each in rank
 * order); returns the count. */
static int socket_major(const tc_topo *t, int n, int *list)
{
    int c = 0;
    for (int s = t->node_sock_start[n]; s < t->node_sock_start[n + 1]; s++)
        for (int i = t->sock_start[s]; i < t->sock_start[s + 1]; i++) list[c++] = t->sock_ranks[i];
    return c;
}

/* ---- groups.c ------------------------------------------------------------------ */

/* Layout, membership and leader order of any groups. */
static void groups_shape(const tc_groups *g, const tc_topo *t, const char *what)
{
    int p = t->size, ok = g->p == p && g->start[0] == 0 && g->start[g->ngroups] == p;
    CHECK(ok, "%s: %d ranks in %d groups", what, p, g->ngroups);
    if (!ok) return;
    int perm = 1, inverse = 1, order = 1, member = 1, leader = 1;
    char *seen = calloc((size_t)p, 1);
    for (int x = 0; x < p; x++) {
        int r = g->members[x];
        perm &= r >= 0 && r < p && !seen[r];
        if (r >= 0 && r < p) seen[r] = 1;
        inverse &= r >= 0 && r < p && g->pos[r] == x;
    }
    for (int grp = 0; grp < g->ngroups; grp++) {
        int a = g->start[grp], b = g->start[grp + 1];
        leader &= b > a && g->members[a] == g->leaders[grp];
        for (int x = a; x < b; x++) {
            member &= g->group_of[g->members[x]] == grp;
            order &= x < a + 2 || g->members[x] > g->members[x - 1];
        }
    }
    free(seen);
    CHECK(perm, "%s: members is a permutation", what);
    CHECK(inverse, "%s: pos is the inverse of members", what);
    CHECK(member, "%s: group_of agrees with the layout", what);
    CHECK(leader, "%s: every group non-empty, its leader first", what);
    CHECK(order, "%s: the other members by increasing rank", what);
    int nodes = g->node_first[0] == 0 && g->node_first[t->nnodes] == g->ngroups;
    for (int n = 0; n < t->nnodes && nodes; n++) {
        int cnt = 0;
        for (int grp = g->node_first[n]; grp < g->node_first[n + 1]; grp++) {
            for (int x = g->start[grp]; x < g->start[grp + 1]; x++) nodes &= t->node_of[g->members[x]] == n;
            cnt += tc_groups_size(g, grp);
        }
        nodes &= cnt == tc_topo_node_size(t, n);
    }
    CHECK(nodes, "%s: the groups of a node hold exactly its ranks", what);
}

static int nonempty_sockets(const tc_topo *t, int n)
{
    int c = 0;
    for (int s = t->node_sock_start[n]; s < t->node_sock_start[n + 1]; s++) c += tc_topo_sock_size(t, s) > 0;
    return c;
}

/* Which groups and which leaders each mode makes. */
static void groups_rules(const tc_groups *g, const tc_topo *t, int mode, int k, int packed, const char *what)
{
    int *list = malloc((size_t)t->size * sizeof *list);
    int count = 1, lead = 1, even = 1, chunk = 1;
    for (int n = 0; n < t->nnodes; n++) {
        int m = socket_major(t, n, list), first = g->node_first[n];
        int want = mode == TC_GROUPS_NODE ? 1 : mode == TC_GROUPS_K ? (k < m ? k : m) : nonempty_sockets(t, n);
        int have = g->node_first[n + 1] - first;
        count &= have == want;
        if (have != want) continue;
        for (int c = 0, at = 0; c < have; c++) {
            int grp = first + c, size = tc_groups_size(g, grp);
            if (packed) lead &= g->leaders[grp] == list[c];
            else lead &= g->leaders[grp] == list[at];
            if (mode == TC_GROUPS_K && !packed) even &= size == m / have || size == m / have + 1;
            /* spread: group c is the c-th run of the socket-major list */
            for (int i = at; !packed && i < at + size && i < m; i++) chunk &= g->group_of[list[i]] == grp;
            if (mode == TC_GROUPS_SOCKET && !packed) {
                int s = t->sock_of[g->leaders[grp]];
                chunk &= size == tc_topo_sock_size(t, s) && g->leaders[grp] == tc_topo_sock_members(t, s)[0];
            }
            at += size;
        }
    }
    free(list);
    CHECK(count, "%s: groups per node", what);
    CHECK(lead, "%s: leaders (%s)", what, packed ? "the first ranks of the node" : "the first of each group");
    CHECK(even, "%s: k groups of sizes as even as possible", what);
    CHECK(chunk, "%s: groups are runs of the socket-major order", what);
}

static void groups(const tc_topo *t, const char *lay)
{
    static const int modes[] = { TC_GROUPS_NODE, TC_GROUPS_SOCKET, TC_GROUPS_K };
    for (int mi = 0; mi < 3; mi++)
        for (int k = 1; k <= (modes[mi] == TC_GROUPS_K ? 5 : 1); k++)
            for (int packed = 0; packed < 2; packed++) {
                char what[96];
                snprintf(what, sizeof what, "%s mode %d k %d packed %d", lay, modes[mi], k, packed);
                tc_groups g;
                if (tc_groups_build(&g, t, modes[mi], k, packed) != 0) {
                    CHECK(0, "%s: build", what);
                    continue;
                }
                groups_shape(&g, t, what);
                groups_rules(&g, t, modes[mi], k, packed, what);
                const tc_groups *c = tc_groups_of(t, modes[mi], k, packed);
                CHECK(c && c == tc_groups_of(t, modes[mi], k, packed), "%s: cached once", what);
                CHECK(c && c->ngroups == g.ngroups && !memcmp(c->members, g.members, (size_t)t->size * sizeof(int)) &&
                          !memcmp(c->leaders, g.leaders, (size_t)g.ngroups * sizeof(int)),
                      "%s: the cached groups are the built ones", what);
                tc_groups_free(&g);
            }
}

/* ---- mirror.c ------------------------------------------------------------------ */

static int same_reg(tc_region x, tc_region y) { return x.buf == y.buf && x.off == y.off && x.cnt == y.cnt; }

/* A scatter-like schedule: round 0 two copies, a send and a receive;
 * round 1 two sends. */
static void forward(tc_sched *s)
{
    tc_sched_copy(s, tc_reg(TC_BUF_SEND, 0, 2), tc_reg(TC_BUF_TMP, 0, 2));
    tc_sched_recv(s, 3, tc_reg(TC_BUF_RECV, 4, 2));
    tc_sched_copy(s, tc_reg(TC_BUF_SEND, 2, 2), tc_reg(TC_BUF_RECV, 0, 2));
    tc_sched_send(s, 1, tc_reg(TC_BUF_TMP, 0, 2));
    tc_sched_round(s);
    tc_sched_send(s, 2, tc_reg(TC_BUF_SEND, 6, 1));
    tc_sched_send(s, 4, tc_reg(TC_BUF_SEND, 7, 1));
    tc_sched_round(s);
    tc_sched_need_tmp(s, 5);
    s->tmp_like = TC_BUF_SEND;
}

static void mirror(void)
{
    tc_sched f, m, mm;
    tc_sched_init(&f);
    tc_sched_init(&m);
    tc_sched_init(&mm);
    forward(&f);
    CHECK(tc_sched_mirror(&m, &f) == 0, "mirror");
    CHECK(m.nrounds == 2 && m.tmp_count == 5 && m.tmp_like == TC_BUF_RECV, "rounds %d, tmp %lld, tmp_like %d",
          m.nrounds, (long long)m.tmp_count, m.tmp_like);
    if (m.nrounds == 2 && m.nops == 6) {
        const tc_op *o = m.ops;
        /* round 0 of the mirror is round 1 backwards: two receives, same order */
        CHECK(o[0].kind == TC_OP_RECV && o[0].peer == 2 && same_reg(o[0].a, tc_reg(TC_BUF_RECV, 6, 1)) &&
                  o[1].kind == TC_OP_RECV && o[1].peer == 4,
              "sends become receives into the other buffer, in order");
        CHECK(tc_sched_round_end(&m, 0) == 2, "round 0 holds them only");
        /* round 1: messages in order, then the copies reversed and backwards */
        CHECK(o[2].kind == TC_OP_SEND && o[2].peer == 3 && same_reg(o[2].a, tc_reg(TC_BUF_SEND, 4, 2)),
              "a receive becomes a send from the other buffer");
        CHECK(o[3].kind == TC_OP_RECV && o[3].peer == 1 && same_reg(o[3].a, tc_reg(TC_BUF_TMP, 0, 2)),
              "TMP stays TMP");
        CHECK(o[4].kind == TC_OP_COPY && same_reg(o[4].a, tc_reg(TC_BUF_SEND, 0, 2)) &&
                  same_reg(o[4].b, tc_reg(TC_BUF_RECV, 2, 2)),
              "the last copy first, reversed");
        CHECK(o[5].kind == TC_OP_COPY && same_reg(o[5].a, tc_reg(TC_BUF_TMP, 0, 2)) &&
                  same_reg(o[5].b, tc_reg(TC_BUF_RECV, 0, 2)),
              "the first copy last, reversed");
    } else {
        CHECK(0, "mirror shape: %d rounds, %d ops", m.nrounds, m.nops);
    }
    /* twice is the identity (op by op, messages first in every round) */
    CHECK(tc_sched_mirror(&mm, &m) == 0 && mm.nrounds == f.nrounds && mm.nops == f.nops, "mirror twice");
    int same = mm.nops == f.nops;
    for (int r = 0; same && r < f.nrounds; r++)
        for (int kind = 0; kind <= TC_OP_COPY; kind++) {
            int i = tc_sched_round_begin(&f, r), j = tc_sched_round_begin(&mm, r);
            for (;; i++, j++) {
                while (i < tc_sched_round_end(&f, r) && f.ops[i].kind != kind) i++;
                while (j < tc_sched_round_end(&mm, r) && mm.ops[j].kind != kind) j++;
                if (i == tc_sched_round_end(&f, r) || j == tc_sched_round_end(&mm, r)) {
                    same &= i == tc_sched_round_end(&f, r) && j == tc_sched_round_end(&mm, r);
                    break;
                }
                same &= f.ops[i].peer == mm.ops[j].peer && same_reg(f.ops[i].a, mm.ops[j].a) &&
                        (kind != TC_OP_COPY || same_reg(f.ops[i].b, mm.ops[j].b));
            }
        }
    CHECK(same && mm.tmp_like == f.tmp_like, "the mirror's mirror is the schedule");
    tc_sched_free(&f);
    tc_sched_free(&m);
    tc_sched_free(&mm);

    int kinds[3] = { TC_OP_REDUCE, TC_OP_SIGNAL, TC_OP_WAIT };
    for (int k = 0; k < 3; k++) {
        tc_sched_init(&f);
        tc_sched_init(&m);
        if (kinds[k] == TC_OP_REDUCE) tc_sched_reduce(&f, tc_reg(TC_BUF_TMP, 0, 1), tc_reg(TC_BUF_RECV, 0, 1));
        else if (kinds[k] == TC_OP_SIGNAL) tc_sched_signal(&f, 1);
        else tc_sched_wait(&f, 1);
        CHECK(tc_sched_mirror(&m, &f) == EINVAL, "kind %d has no mirror", kinds[k]);
        tc_sched_free(&f);
        tc_sched_free(&m);
    }
}

static tc_args scatter_seen;

static int record_scatter(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    scatter_seen = *a;
    tc_sched_send(s, 1, tc_reg(TC_BUF_SEND, 0, a->scount));
    return 0;
}

static void gather_by_mirror(void)
{
    tc_args a;
    memset(&a, 0, sizeof a);
    a.coll = TOPOCOLL_GATHER;
    a.size = 4, a.rank = 0, a.root = 2, a.scount = 3, a.rcount = 5;
    tc_sched s;
    tc_sched_init(&s);
    tc_topo *t = tc_topo_flat(4);
    CHECK(tc_gather_by_mirror(&s, &a, t, record_scatter) == 0, "gather by mirror");
    CHECK(scatter_seen.coll == TOPOCOLL_SCATTER && scatter_seen.scount == 5 && scatter_seen.rcount == 3 &&
              scatter_seen.root == 2,
          "the scatter is asked with the counts swapped");
    CHECK(s.nops == 1 && s.ops[0].kind == TC_OP_RECV && same_reg(s.ops[0].a, tc_reg(TC_BUF_RECV, 0, 5)),
          "its send mirrored into a receive");
    tc_topo_free(t);
    tc_sched_free(&s);
}

/* ---- twotier_plan.c ------------------------------------------------------------ */

static void plan(const tc_topo *t, int sockets, int root, const char *lay)
{
    tt_plan pl;
    tt_plan_init(&pl, t, sockets, root);
    int p = t->size, ok = pl.p == p && pl.S == t->nnodes;
    CHECK(ok, "%s sockets %d: sizes", lay, sockets);
    if (!ok) return;
    int units = pl.unit_first[pl.S];
    CHECK(tt_upos(&pl, 0) == 0 && tt_upos(&pl, units) == p, "%s sockets %d: units cover the positions", lay, sockets);
    int bij = 1, unit = 1, sn = 1, inc = 1, ident = 1;
    char *seen = calloc((size_t)p, 1);
    for (int r = 0; r < p; r++) {
        int x = tt_pos(&pl, r), u = tt_unit_of(&pl, r);
        bij &= x >= 0 && x < p && !seen[x] && pl.rank_at[x] == r;
        if (x >= 0 && x < p) seen[x] = 1;
        unit &= tt_upos(&pl, u) <= x && x < tt_upos(&pl, u + 1);
        sn &= tt_sn_of_unit(&pl, u) == t->node_of[r] && tt_snpos(&pl, t->node_of[r]) <= x &&
              x < tt_snpos(&pl, t->node_of[r] + 1);
        sn &= tt_uidx(&pl, u) == u - pl.unit_first[t->node_of[r]];
        ident &= x == r;
    }
    for (int u = 0; u < units; u++)
        for (int x = tt_upos(&pl, u) + 1; x < tt_upos(&pl, u + 1); x++) inc &= pl.rank_at[x] > pl.rank_at[x - 1];
    free(seen);
    CHECK(bij, "%s sockets %d: positions and ranks are inverse", lay, sockets);
    CHECK(unit, "%s sockets %d: a unit's positions are contiguous", lay, sockets);
    CHECK(sn, "%s sockets %d: units inside their supernode", lay, sockets);
    CHECK(inc, "%s sockets %d: a unit's ranks in increasing order", lay, sockets);
    CHECK(!tt_identity(&pl) == !ident, "%s sockets %d: identity %d", lay, sockets, tt_identity(&pl));
    int lead = 1, gate = 1;
    for (int u = 0; u < units; u++) {
        int l = tt_leader(&pl, u);
        lead &= root >= 0 && tt_unit_of(&pl, root) == u ? l == root : l == pl.rank_at[tt_upos(&pl, u)];
        lead &= tt_unit_of(&pl, l) == u;
    }
    for (int s = 0; s < pl.S; s++)
        for (int d = 0; d < pl.S; d++) {
            int g = tt_gateway(&pl, s, d);
            gate &= g >= pl.unit_first[s] && g < pl.unit_first[s + 1] && tt_uidx(&pl, g) == d % tt_nunits(&pl, s);
        }
    CHECK(lead, "%s sockets %d root %d: leaders", lay, sockets, root);
    CHECK(gate, "%s sockets %d: gateways inside their supernode, round robin", lay, sockets);
    CHECK(root < 0 ? pl.s0 == -1 && pl.ur == -1 : pl.s0 == t->node_of[root] && pl.ur == tt_unit_of(&pl, root),
          "%s sockets %d root %d: the root's supernode and unit", lay, sockets, root);

    /* positions [first, first + n) to rank order and back: every block once,
     * one copy per run of consecutive ranks */
    for (int to_user = 0; to_user < 2; to_user++) {
        int first = p / 3, n = p - p / 3 - p / 4;
        tc_sched s;
        tc_sched_init(&s);
        tt_copy_runs(&s, &pl, first, n, to_user, TC_BUF_TMP, 10, 2, TC_BUF_RECV, 3);
        int runs = n > 0, cover = 1;
        for (int x = first + 1; x < first + n; x++) runs += pl.rank_at[x] != pl.rank_at[x - 1] + 1;
        int64_t pos_seen = 0;
        for (int i = 0; i < s.nops; i++) {
            tc_region pr = to_user ? s.ops[i].a : s.ops[i].b, ur = to_user ? s.ops[i].b : s.ops[i].a;
            int x = (int)pos_seen, len = (int)(pr.cnt / 2);   /* copies in position order */
            if (len < 1 || x + len > n) {
                cover = 0;
                break;
            }
            cover &= pr.buf == TC_BUF_TMP && ur.buf == TC_BUF_RECV && pr.off == 10 + 2 * pos_seen &&
                     ur.off == 3 * (int64_t)pl.rank_at[first + x] && ur.cnt == 3 * (int64_t)len;
            for (int y = 1; y < len; y++) cover &= pl.rank_at[first + x + y] == pl.rank_at[first + x] + y;
            pos_seen += len;
        }
        CHECK(s.nops == runs, "%s sockets %d: %d copies for %d runs", lay, sockets, s.nops, runs);
        CHECK(cover && pos_seen == n, "%s sockets %d to_user %d: each position to its rank's block", lay, sockets,
              to_user);
        tc_sched_free(&s);
    }
}

static void split(void)
{
    int ok = 1;
    for (int64_t n = 0; n <= 40; n++)
        for (int k = 1; k <= 9; k++) {
            ok &= tt_split(n, k, 0) == 0 && tt_split(n, k, k) == n;
            for (int i = 0; i < k; i++) {
                int64_t len = tt_split(n, k, i + 1) - tt_split(n, k, i);
                ok &= len == n / k + (i < n % k);
            }
        }
    CHECK(ok, "tt_split: pieces tile, the first n %% k one larger");
}

/* ---- twotier_reduce.c: ownership --------------------------------------------- */

static void ownership(const tc_topo *t, int sockets, const char *lay)
{
    tt_plan pl;
    tt_plan_init(&pl, t, sockets, -1);
    tc_sched s;
    tc_sched_init(&s);
    tt_red R;
    int64_t N = 7 * (int64_t)t->size + 3;
    if (tt_red_begin(&s, &R, &pl, 0, N, 0) != 0) {
        CHECK(0, "tt_red_begin");
        tc_sched_free(&s);
        return;
    }
    int seg = R.seg[0] == 0 && R.seg[pl.S] == N && s.nops == 0, tile = 1, inside = 1, gate = 1, index = 1,
        owned = 1, busy = 1;
    for (int sg = 0; sg < pl.S; sg++) seg &= R.seg[sg + 1] >= R.seg[sg];
    for (int tn = 0; tn < pl.S; tn++) {
        int n = tt_nunits(&pl, tn);
        int *pairs = calloc((size_t)n, sizeof *pairs);
        for (int sg = 0; sg < pl.S; sg++) {
            int c = tt_red_owners(&R, tn, sg);
            int64_t at = R.seg[sg], x, y;
            tile &= c >= 1;
            for (int k = 0; k < c; k++) {
                tt_red_owner_range(&R, tn, sg, k, &x, &y);
                tile &= x == at && y >= x;
                at = y;
                int u = tt_red_owner_unit(&R, tn, sg, k);
                inside &= u >= pl.unit_first[tn] && u < pl.unit_first[tn + 1];
                for (int k2 = 0; k2 < k; k2++) inside &= tt_red_owner_unit(&R, tn, sg, k2) != u;
                if (u >= pl.unit_first[tn] && u < pl.unit_first[tn + 1]) pairs[u - pl.unit_first[tn]]++;
            }
            tile &= at == R.seg[sg + 1];
            gate &= tt_red_owner_unit(&R, tn, sg, 0) == tt_gateway(&pl, tn, sg);
            for (int i = 0; i < n; i++) {
                int k = tt_red_owner_index(&R, tn, sg, i);
                index &= k == -1 ? 1 : k >= 0 && k < c && tt_red_owner_unit(&R, tn, sg, k) == pl.unit_first[tn] + i;
                for (int k2 = 0; k2 < c && k == -1; k2++)
                    index &= tt_red_owner_unit(&R, tn, sg, k2) != pl.unit_first[tn] + i;
            }
        }
        for (int i = 0; i < n; i++) {   /* tt_red_owned lists unit i's pairs, in segment order */
            int sg0, k0, step, m = tt_red_owned(&R, tn, i, &sg0, &k0, &step);
            owned &= m == pairs[i];
            for (int j = 0, prev = -1; j < m; j++) {
                int sg = sg0 + j * step;
                owned &= sg > prev && sg < pl.S && tt_red_owner_index(&R, tn, sg, i) == k0;
                prev = sg;
            }
            busy &= pairs[i] >= 1 || pl.S == 0;
        }
        free(pairs);
    }
    int homes = 1;
    for (int sg = 0; sg < pl.S; sg++) {
        homes &= tt_red_homes(&R, sg) == tt_red_owners(&R, sg, sg);
        for (int k = 0; k < tt_red_homes(&R, sg); k++) {
            int64_t x, y, x2, y2;
            tt_red_home_range(&R, sg, k, &x, &y);
            tt_red_owner_range(&R, sg, sg, k, &x2, &y2);
            homes &= tt_red_home_unit(&R, sg, k) == tt_red_owner_unit(&R, sg, sg, k) && x == x2 && y == y2;
        }
    }
    CHECK(seg, "%s sockets %d: segments tile the data, no copy for a reduce", lay, sockets);
    CHECK(tile, "%s sockets %d: owners' ranges tile each segment", lay, sockets);
    CHECK(inside, "%s sockets %d: distinct owners inside the supernode", lay, sockets);
    CHECK(gate, "%s sockets %d: the first owner is the gateway", lay, sockets);
    CHECK(index, "%s sockets %d: owner_index inverts owner_unit", lay, sockets);
    CHECK(owned, "%s sockets %d: tt_red_owned lists each unit's pairs", lay, sockets);
    CHECK(busy, "%s sockets %d: every unit owns something", lay, sockets);
    CHECK(homes, "%s sockets %d: homes are the owners in the segment's own supernode", lay, sockets);
    tt_red_end(&R);

    /* reduce-scatter blocks: segment s is supernode s's blocks; input in
     * plan order (copied there unless the plan is rank order) */
    tc_sched_reset(&s);
    if (tt_red_begin(&s, &R, &pl, 0, 2 * (int64_t)t->size, 2) == 0) {
        int blocks = 1;
        for (int sg = 0; sg <= pl.S; sg++) blocks &= R.seg[sg] == 2 * (int64_t)tt_snpos(&pl, sg);
        CHECK(blocks, "%s sockets %d: block segments", lay, sockets);
        CHECK(tt_identity(&pl) ? R.in.buf == TC_BUF_SEND && s.nops == 0
                               : R.in.buf == TC_BUF_TMP && R.tmp_top == R.N && s.nops > 0 && s.nrounds == 1,
              "%s sockets %d: the input in plan order", lay, sockets);
        tt_red_end(&R);
    } else {
        CHECK(0, "tt_red_begin with blocks");
    }
    tc_sched_free(&s);
}

/* ---- hier_a2a.c: the two ways of giving equal parts ---------------------- */

static int same_sched(const tc_sched *x, const tc_sched *y)
{
    if (x->nrounds != y->nrounds || x->nops != y->nops || x->tmp_count != y->tmp_count ||
        x->shm_count != y->shm_count || x->shm_home_off != y->shm_home_off || x->shm_home_cnt != y->shm_home_cnt)
        return 0;
    for (int r = 0; r <= x->nrounds; r++)
        if (x->round_start[r] != y->round_start[r]) return 0;
    for (int i = 0; i < x->nops; i++) {
        const tc_op *a = &x->ops[i], *b = &y->ops[i];
        if (a->kind != b->kind || a->peer != b->peer || !same_reg(a->a, b->a) ||
            ((a->kind == TC_OP_COPY) && !same_reg(a->b, b->b)))
            return 0;
    }
    return 1;
}

/* Parts of u units: as one size, and as count rows and per-peer counts and
 * displacements that say the same; the schedules must be equal op by op. */
static void hier_a2a(const tc_topo *t, const char *lay)
{
    int p = t->size, bad = 0, cases = 0;
    int64_t u = 3, *rows = malloc((size_t)p * (size_t)p * sizeof *rows), *cnt = malloc(2 * (size_t)p * sizeof *cnt);
    for (int64_t i = 0; i < (int64_t)p * p; i++) rows[i] = u;
    for (int j = 0; j < p; j++) cnt[j] = u, cnt[p + j] = j * u;
    tc_a2a_side equal = { TC_BUF_SEND, NULL, NULL, u }, listed = { TC_BUF_SEND, cnt, cnt + p, u };
    for (int leaders = 1; leaders <= TC_A2A_HIER_MAX_LEADERS; leaders *= 2)
        for (int shm = 0; shm < 2; shm++)
            for (int r = 0; r < p; r++) {
                tc_args a;
                memset(&a, 0, sizeof a);
                a.coll = TOPOCOLL_ALLTOALL, a.rank = r, a.size = p, a.scount = a.rcount = u;
                tc_a2a_parts one = { NULL, NULL, u, equal, equal }, per = { rows, rows, u, listed, listed };
                one.out.buf = per.out.buf = TC_BUF_RECV;
                tc_sched x, y;
                tc_sched_init(&x);
                tc_sched_init(&y);
                int rx = tc_a2a_hier_generate(&x, &a, t, &one, leaders, shm);
                int ry = tc_a2a_hier_generate(&y, &a, t, &per, leaders, shm);
                cases++;
                bad += rx || ry || tc_sched_finish(&x) || tc_sched_finish(&y) || !same_sched(&x, &y) || x.nops == 0;
                tc_sched_free(&x);
                tc_sched_free(&y);
            }
    free(rows);
    free(cnt);
    CHECK(bad == 0, "%s: %d of %d hierarchical all-to-all schedules differ between the two ways", lay, bad, cases);
}

int main(void)
{
    for (int p = 1; p <= 26; p++)
        for (int v = 0; v < LAYOUTS; v++) {
            tc_topo *t = layout(p, v);
            char lay[48];
            snprintf(lay, sizeof lay, "p %d layout %d", p, v);
            if (!t) {
                CHECK(0, "%s: topology", lay);
                continue;
            }
            groups(t, lay);
            hier_a2a(t, lay);
            for (int sockets = 0; sockets < 2; sockets++) {
                plan(t, sockets, -1, lay);
                plan(t, sockets, (p * 2) / 3, lay);
                ownership(t, sockets, lay);
            }
            tc_topo_free(t);
        }
    mirror();
    gather_by_mirror();
    split();
    return tc_test_summary();
}
