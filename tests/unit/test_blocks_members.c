/* Member maps and the generators over them (src/blocks/members.h,
 * allgather_members.h, allreduce_members.h, fold.h), checked by running the
 * schedules of every member through a small simulator of regions: each
 * element carries a label (which member's bundle, which element of it; or,
 * for reductions, the set of contributions combined so far), messages
 * match in order per pair of ranks, and every member must end with every
 * bundle / the full reduction.  A wrong peer deadlocks or delivers the
 * wrong labels; a wrong region delivers the wrong labels.  n = 1..17 over
 * maps in arbitrary order; folds for p = 1..33.  Ends with "N passed, M
 * failed". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocks/allgather_members.h"
#include "blocks/allreduce_members.h"
#include "blocks/fold.h"
#include "blocks/groups.h"
#include "blocks/members.h"
#include "pattern/pattern.h"
#include "topo/topo.h"
#include "../common/harness.h"

/* ---- the simulator ------------------------------------------------------- */

enum { SIM_ELEMS = 8192, SIM_RANKS = 40, SIM_MSGS = 4096 };

typedef struct sim_msg { int src, dst; int64_t cnt; uint32_t *data; } sim_msg;

typedef struct sim {
    int nranks;
    tc_sched sched[SIM_RANKS];
    uint32_t *buf[SIM_RANKS][TC_NBUF];
    int round[SIM_RANKS];
    sim_msg msgs[SIM_MSGS];   /* in flight, in posting order */
    int nmsgs;
    int ordered;              /* reductions must combine lower op higher */
    int bad;                  /* a region out of bounds, sizes that differ, ... */
} sim;

static void sim_init(sim *m, int nranks)
{
    memset(m, 0, sizeof *m);
    m->nranks = nranks;
    for (int r = 0; r < nranks; r++) {
        tc_sched_init(&m->sched[r]);
        for (int b = 0; b < TC_NBUF; b++) m->buf[r][b] = calloc(SIM_ELEMS, sizeof(uint32_t));
    }
}

static void sim_free(sim *m)
{
    for (int r = 0; r < m->nranks; r++) {
        tc_sched_free(&m->sched[r]);
        for (int b = 0; b < TC_NBUF; b++) free(m->buf[r][b]);
    }
    for (int i = 0; i < m->nmsgs; i++) free(m->msgs[i].data);
}

static uint32_t *at(sim *m, int r, tc_region g)
{
    if (g.off < 0 || g.cnt < 0 || g.off + g.cnt > SIM_ELEMS || g.buf < 0 || g.buf >= TC_NBUF) {
        m->bad = 1;
        return NULL;
    }
    return m->buf[r][g.buf] + g.off;
}

/* b = a op b on contribution sets: disjoint, and (ordered) all of a below b. */
static void combine(sim *m, uint32_t a, uint32_t *b)
{
    if (!a || !*b || (a & *b)) m->bad = 1;
    if (m->ordered && a && *b && (a >> __builtin_ctz(*b)) != 0) m->bad = 1;
    *b |= a;
}

static void local_ops(sim *m, int r, int lo, int hi)
{
    for (int i = lo; i < hi; i++) {
        const tc_op *o = &m->sched[r].ops[i];
        if (o->kind != TC_OP_COPY && o->kind != TC_OP_REDUCE) continue;
        uint32_t *a = at(m, r, o->a), *b = at(m, r, o->b);
        if (!a || !b || o->a.cnt != o->b.cnt) { m->bad = 1; continue; }
        if (o->kind == TC_OP_COPY) memmove(b, a, (size_t)o->a.cnt * sizeof *a);
        else for (int64_t k = 0; k < o->a.cnt; k++) combine(m, a[k], &b[k]);
    }
}

/* Receives of rank r's current round: all matched (in order per peer)? Then
 * deliver them and return 1. */
static int try_receive(sim *m, int r, int lo, int hi)
{
    int used[SIM_MSGS] = { 0 };
    int match[64], nm = 0;
    for (int i = lo; i < hi; i++) {
        const tc_op *o = &m->sched[r].ops[i];
        if (o->kind != TC_OP_RECV) continue;
        int k = 0;
        while (k < m->nmsgs && (used[k] || m->msgs[k].src != o->peer || m->msgs[k].dst != r)) k++;
        if (k == m->nmsgs) return 0;
        used[k] = 1;
        match[nm++] = k;
    }
    nm = 0;
    for (int i = lo; i < hi; i++) {
        const tc_op *o = &m->sched[r].ops[i];
        if (o->kind != TC_OP_RECV) continue;
        sim_msg *g = &m->msgs[match[nm++]];
        uint32_t *d = at(m, r, o->a);
        if (!d || g->cnt != o->a.cnt) m->bad = 1;
        else memcpy(d, g->data, (size_t)g->cnt * sizeof *d);
        g->cnt = -1;   /* delivered */
    }
    int w = 0;
    for (int k = 0; k < m->nmsgs; k++) {
        if (m->msgs[k].cnt >= 0) m->msgs[w++] = m->msgs[k];
        else free(m->msgs[k].data);
    }
    m->nmsgs = w;
    return 1;
}

static void post_sends(sim *m, int r, int lo, int hi)
{
    for (int i = lo; i < hi; i++) {
        const tc_op *o = &m->sched[r].ops[i];
        if (o->kind != TC_OP_SEND) continue;
        uint32_t *s = at(m, r, o->a);
        if (!s || m->nmsgs == SIM_MSGS || o->peer < 0 || o->peer >= m->nranks) { m->bad = 1; continue; }
        sim_msg *g = &m->msgs[m->nmsgs++];
        g->src = r;
        g->dst = o->peer;
        g->cnt = o->a.cnt;
        g->data = malloc((size_t)(o->a.cnt ? o->a.cnt : 1) * sizeof *g->data);
        memcpy(g->data, s, (size_t)o->a.cnt * sizeof *s);
    }
}

/* Runs every rank's schedule; returns 0 when all finished, no message left
 * over and nothing was out of bounds. */
static int sim_run(sim *m)
{
    int posted[SIM_RANKS] = { 0 };
    for (int r = 0; r < m->nranks; r++)
        if (tc_sched_finish(&m->sched[r])) return -1;
    for (int progress = 1; progress;) {
        progress = 0;
        for (int r = 0; r < m->nranks; r++) {
            tc_sched *s = &m->sched[r];
            if (m->round[r] >= s->nrounds) continue;
            int lo = tc_sched_round_begin(s, m->round[r]), hi = tc_sched_round_end(s, m->round[r]);
            if (!posted[r]) {
                post_sends(m, r, lo, hi);
                local_ops(m, r, lo, hi);
                posted[r] = 1;
                progress = 1;
            }
            if (try_receive(m, r, lo, hi)) {
                m->round[r]++;
                posted[r] = 0;
                progress = 1;
            }
        }
    }
    for (int r = 0; r < m->nranks; r++)
        if (m->round[r] < m->sched[r].nrounds) return -1;   /* deadlock */
    return m->nmsgs || m->bad ? -1 : 0;
}

/* ---- member maps ----------------------------------------------------------- */

/* A map of n members over ranks of a communicator of n + 3: a shuffled
 * list (seeded), so member order is neither rank order nor contiguous. */
static void shuffled(int *ranks, int n, unsigned seed)
{
    int all[SIM_RANKS];
    for (int i = 0; i < n + 3; i++) all[i] = i;
    for (int i = n + 2; i > 0; i--) {
        seed = seed * 1103515245u + 12345u;
        int j = (int)((seed >> 8) % (unsigned)(i + 1)), t = all[i];
        all[i] = all[j];
        all[j] = t;
    }
    memcpy(ranks, all, (size_t)n * sizeof *ranks);
}

static void test_maps(void)
{
    for (int p = 1; p <= 9; p++)
        for (int r = 0; r < p; r++) {
            tc_members m = tc_members_all(p, r);
            CHECK(m.n == p && m.me == r && tc_member_rank(&m, r) == r && tc_member_rank(&m, p - 1) == p - 1,
                  "identity map p=%d r=%d", p, r);
        }
    int list[] = { 7, 2, 9, 0 };
    tc_members l = tc_members_list(list, 4, 2);
    CHECK(l.n == 4 && l.me == 2 && tc_member_rank(&l, 0) == 7 && tc_member_rank(&l, 2) == 9 &&
          tc_member_rank(&l, 3) == 0, "list map keeps its order");

    const char *specs[] = { "3,1,4", "2x2x3/cyclic", "4x*", "2x2x*" };
    int sizes[] = { 8, 12, 10, 9 };
    for (int si = 0; si < 4; si++) {
        char err[128];
        tc_topo *t = tc_topo_from_spec(specs[si], sizes[si], err, sizeof err);
        CHECK(t != NULL, "spec %s: %s", specs[si], t ? "" : err);
        if (!t) continue;
        for (int mode = TC_GROUPS_NODE; mode <= TC_GROUPS_SOCKET; mode++) {
            tc_groups g;
            if (tc_groups_build(&g, t, mode, 0, 0)) { CHECK(0, "groups"); continue; }
            for (int r = 0; r < t->size; r++) {
                int grp = g.group_of[r];
                tc_members node = tc_members_group(&g, grp, r);
                int count = 0;
                for (int x = 0; x < t->size; x++) count += g.group_of[x] == grp;
                CHECK(node.n == count && node.me >= 0 && tc_member_rank(&node, node.me) == r,
                      "%s mode %d: rank %d in its group's map", specs[si], mode, r);
                CHECK(tc_member_rank(&node, 0) == g.leaders[grp], "%s: the group's leader first", specs[si]);
                for (int i = 0; i < node.n; i++)
                    CHECK(g.group_of[tc_member_rank(&node, i)] == grp, "%s: member %d of group %d", specs[si], i, grp);
                tc_members other = tc_members_group(&g, (grp + 1) % g.ngroups, r);
                CHECK(g.ngroups == 1 || other.me == -1, "%s: rank %d is no member of another group", specs[si], r);
                tc_members lead = tc_members_leaders(&g, r);
                CHECK(lead.n == g.ngroups, "%s: one leader per group", specs[si]);
                CHECK(lead.me == (g.leaders[grp] == r ? grp : -1), "%s: leader index of rank %d", specs[si], r);
                for (int i = 0; i < lead.n; i++)
                    CHECK(g.group_of[tc_member_rank(&lead, i)] == i, "%s: leader %d leads group %d", specs[si], i, i);
            }
            tc_groups_free(&g);
        }
        tc_topo_free(t);
    }
}

/* ---- allgather over a member map ------------------------------------------- */

typedef void (*ag_gen)(tc_sched *, const tc_members *, const tc_bundles *, const tc_region *);

static uint32_t label(int member, int64_t elem) { return (uint32_t)(member + 1) << 16 | (uint32_t)elem; }

/* Members of a shuffled map, unequal bundles (some empty) in TMP from an
 * offset; own: the data start in SEND (else in the slot).  Returns how many
 * elements ended wrong, -1 when the schedules did not run to the end. */
static int allgather_run(ag_gen gen, int n, int own_apart, unsigned seed)
{
    int ranks[SIM_RANKS];
    int64_t off[SIM_RANKS + 1];
    shuffled(ranks, n, seed);
    off[0] = 0;
    for (int i = 0; i < n; i++) off[i + 1] = off[i] + (int64_t)((i * 7 + seed) % 4);   /* 0..3 elements */
    int64_t base = 5;
    sim m;
    sim_init(&m, n + 3);
    tc_bundles b = tc_bundles_at(TC_BUF_TMP, base, off);
    for (int i = 0; i < n; i++) {
        int r = ranks[i];
        tc_members map = tc_members_list(ranks, n, i);
        int64_t cnt = off[i + 1] - off[i];
        uint32_t *home = m.buf[r][own_apart ? TC_BUF_SEND : TC_BUF_TMP] + (own_apart ? 0 : base + off[i]);
        for (int64_t k = 0; k < cnt; k++) home[k] = label(i, k);
        tc_region own = tc_reg(TC_BUF_SEND, 0, cnt);
        gen(&m.sched[r], &map, &b, own_apart ? &own : NULL);
    }
    int wrong = sim_run(&m) ? -1 : 0;
    for (int i = 0; wrong == 0 && i < n; i++)
        for (int j = 0; j < n; j++)
            for (int64_t k = off[j]; k < off[j + 1]; k++)
                wrong += m.buf[ranks[i]][TC_BUF_TMP][base + k] != label(j, k - off[j]);
    sim_free(&m);
    return wrong;
}

/* Bruck with the rotated layout: member i's slot j holds bundle i + j. */
static void bruck_rotated_case(int n)
{
    sim m;
    sim_init(&m, n);
    for (int i = 0; i < n; i++) {
        tc_members all = tc_members_all(n, i);
        tc_bundles b = tc_bundles_at(TC_BUF_TMP, 0, NULL);
        b.unit = 2;
        b.rot = i;
        m.buf[i][TC_BUF_SEND][0] = label(i, 0);
        m.buf[i][TC_BUF_SEND][1] = label(i, 1);
        tc_region own = tc_reg(TC_BUF_SEND, 0, 2);
        tc_allgather_bruck_over(&m.sched[i], &all, &b, &own);
    }
    int rc = sim_run(&m), wrong = 0;
    for (int i = 0; rc == 0 && i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < 2; k++) wrong += m.buf[i][TC_BUF_TMP][2 * j + k] != label((i + j) % n, k);
    CHECK(rc == 0 && wrong == 0, "bruck rotated n=%d: slot j holds bundle me+j (%d wrong)", n, wrong);
    sim_free(&m);
}

static void test_allgather(void)
{
    const struct { const char *name; ag_gen gen; } gens[] = {
        { "ring", tc_allgather_ring_over }, { "rd", tc_allgather_rd_over }, { "bruck", tc_allgather_bruck_over },
    };
    for (int g = 0; g < 3; g++)
        for (int n = 1; n <= 17; n++)
            for (int own = 0; own < 2; own++) {
                int wrong = allgather_run(gens[g].gen, n, own, (unsigned)(n * 31 + g));
                CHECK(wrong == 0, "%s n=%d own=%d: every member holds every bundle (%d wrong, -1: did not "
                      "run to the end)", gens[g].name, n, own, wrong);
            }
    for (int n = 1; n <= 17; n++) bruck_rotated_case(n);
}

/* ---- allreduce over a member map ------------------------------------------- */

typedef void (*ar_gen)(tc_sched *, const tc_members *, const tc_ar_regions *);

static void allreduce_case(const char *name, ar_gen gen, int ordered, int n, int64_t cnt, int in_place,
                           int64_t piece)
{
    int ranks[SIM_RANKS];
    shuffled(ranks, n, (unsigned)(n * 17 + cnt));
    sim m;
    sim_init(&m, n + 3);
    m.ordered = ordered;
    uint32_t full = n >= 32 ? 0xffffffffu : (1u << n) - 1;
    for (int i = 0; i < n; i++) {
        int r = ranks[i];
        tc_members map = tc_members_list(ranks, n, i);
        tc_ar_regions x;
        x.data = tc_reg(TC_BUF_RECV, 3, cnt);
        x.input = in_place ? x.data : tc_reg(TC_BUF_SEND, 1, cnt);
        x.scratch = tc_reg(TC_BUF_TMP, 2, cnt);
        x.piece = piece;
        for (int64_t k = 0; k < cnt; k++) m.buf[r][x.input.buf][x.input.off + k] = 1u << i;
        gen(&m.sched[r], &map, &x);
    }
    int rc = sim_run(&m), wrong = 0;
    for (int i = 0; rc == 0 && i < n; i++)
        for (int64_t k = 0; k < cnt; k++) wrong += m.buf[ranks[i]][TC_BUF_RECV][3 + k] != full;
    CHECK(rc == 0, "%s n=%d cnt=%lld in_place=%d: runs to the end%s", name, n, (long long)cnt, in_place,
          m.bad ? " (bad region, size or reduction order)" : "");
    CHECK(rc || wrong == 0, "%s n=%d cnt=%lld in_place=%d: every member holds the full reduction (%d wrong)",
          name, n, (long long)cnt, in_place, wrong);
    sim_free(&m);
}

static void test_allreduce(void)
{
    for (int n = 1; n <= 17; n++)
        for (int64_t cnt = 1; cnt <= 37; cnt += 12)
            for (int ip = 0; ip < 2; ip++) {
                allreduce_case("rd", tc_allreduce_rd_over, 1, n, cnt, ip, 0);
                allreduce_case("rsa", tc_allreduce_rsa_over, 1, n, cnt, ip, 0);
                allreduce_case("ring", tc_allreduce_ring_over, 0, n, cnt, ip, 0);
                allreduce_case("ring pieces", tc_allreduce_ring_over, 0, n, cnt, ip, 2);
            }
    /* the part rsa's first round leaves alone: neither sent nor received into */
    for (int n = 2; n <= 17; n++)
        for (int me = 0; me < n; me++) {
            int64_t lo, kept, cnt = 29;
            tc_allreduce_rsa_first_kept(n, me, cnt, &lo, &kept);
            tc_sched s;
            tc_sched_init(&s);
            int ranks[SIM_RANKS];
            for (int i = 0; i < n; i++) ranks[i] = i;
            tc_members map = tc_members_list(ranks, n, me);
            tc_ar_regions x = { tc_reg(TC_BUF_RECV, 0, cnt), tc_reg(TC_BUF_RECV, 0, cnt), tc_reg(TC_BUF_TMP, 0, cnt), 0 };
            tc_allreduce_rsa_over(&s, &map, &x);
            tc_sched_finish(&s);
            int clash = 0;
            for (int i = tc_sched_round_begin(&s, 0); i < tc_sched_round_end(&s, 0); i++) {
                const tc_op *o = &s.ops[i];
                if ((o->kind == TC_OP_SEND || o->kind == TC_OP_RECV) && o->a.buf == TC_BUF_RECV &&
                    o->a.off < lo + kept && lo < o->a.off + o->a.cnt) clash++;
            }
            CHECK(clash == 0 && lo >= 0 && lo + kept <= cnt, "rsa first kept n=%d me=%d", n, me);
            tc_sched_free(&s);
        }
}

/* ---- folds --------------------------------------------------------------- */

static void test_fold_layout(void)
{
    for (int p = 1; p <= 33; p++)
        for (int br = 0; br < 2; br++) {
            ag_fold f;
            if (ag_fold_init(&f, p, br)) { CHECK(0, "fold init"); continue; }
            int seen[64] = { 0 }, ok = f.q * 2 > p && f.q <= p && (f.q & (f.q - 1)) == 0 && f.extras == p - f.q;
            for (int j = 0; j < f.q; j++) {
                int u = f.rank_at[j];
                if (u < 0 || u >= f.q || seen[u]++) ok = 0;
                if (f.slot_off[j + 1] - f.slot_off[j] != 1 + (u < f.extras)) ok = 0;
                if (!br && u != j) ok = 0;
                if (br && tc_bitrev(j, f.bits) != u) ok = 0;
            }
            CHECK(ok && f.slot_off[0] == 0 && f.slot_off[f.q] == p, "fold layout p=%d bitrev=%d", p, br);
            ag_fold_free(&f);
        }
}

/* The whole folded allgather on p ranks: every rank ends with every block. */
static void test_fold_allgather(void)
{
    for (int p = 1; p <= 33; p++)
        for (int br = 0; br < 2; br++) {
            sim m;
            sim_init(&m, p);
            int64_t rcount = 2;
            for (int r = 0; r < p; r++) {
                tc_args a;
                memset(&a, 0, sizeof a);
                a.rank = r;
                a.size = p;
                a.scount = a.rcount = rcount;
                m.buf[r][TC_BUF_SEND][0] = label(r, 0);
                m.buf[r][TC_BUF_SEND][1] = label(r, 1);
                CHECK(ag_fold_allgather(&m.sched[r], &a, br) == 0, "fold generates");
            }
            int rc = sim_run(&m), wrong = 0;
            for (int r = 0; rc == 0 && r < p; r++)
                for (int j = 0; j < p; j++)
                    for (int k = 0; k < rcount; k++) wrong += m.buf[r][TC_BUF_RECV][j * rcount + k] != label(j, k);
            CHECK(rc == 0 && wrong == 0, "folded allgather p=%d bitrev=%d (%d wrong)", p, br, wrong);
            sim_free(&m);
        }
}

/* The simulator itself must catch a peer off by one. */
static void gen_off_by_one(tc_sched *s, const tc_members *m, const tc_bundles *b, const tc_region *own)
{
    int n = m->n, me = m->me;
    (void)own;
    for (int i = 1; i < n; i++) {
        tc_sched_send(s, tc_member_rank(m, (me + 2) % n), tc_bundles_slots(b, tc_mod(me - i + 1, n), 1));
        tc_sched_recv(s, tc_member_rank(m, (me + n - 1) % n), tc_bundles_slots(b, tc_mod(me - i, n), 1));
        tc_sched_round(s);
    }
}

static void test_simulator_rejects(void)
{
    for (int n = 3; n <= 9; n++)
        CHECK(allgather_run(gen_off_by_one, n, 0, 1) != 0,
              "n=%d: the simulation rejects a ring whose right neighbour is off by one", n);
}

int main(void)
{
    test_maps();
    test_allgather();
    test_allreduce();
    test_fold_layout();
    test_fold_allgather();
    test_simulator_rejects();
    return tc_test_summary();
}
