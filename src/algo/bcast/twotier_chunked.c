/*
 * bcast "twotier:chunked=yes" (aliases "twotier_chunked",
 * "twotier_chunked_sockets"; the family's row: src/algo/bcast/twotier.c):
 * the chunked two-tier broadcast of Jain, Lau, Kale, "Collectives on
 * Two-tier Direct Networks" (2012), section 5.2, the six-step scheme.  Tiers (supernode =
 * topology node; unit = the paper's "node": a rank, or a socket for
 * _sockets) and the round-robin wiring (the link from s to t leaves from
 * unit t mod n_s of s, lands on unit s mod n_t of t): twotier_plan.h.
 * s0 = the root's supernode, K = its number of units.
 *
 * Steps: the buffer is cut into K even chunks; chunk i belongs to unit i of
 *   s0 and has a relay supernode: the lowest t != s0 that unit i's L2 links
 *   reach (t mod K = i), "exactly one ... to avoid duplication".
 *   1. The root sends chunk i to the leader of unit i of s0.
 *   2. Every unit leader of s0 sends its chunk to the landing leader of its
 *      relay.
 *   3. Every landing leader passes the chunks it got to every other unit
 *      leader of its supernode.
 *   4. Every unit leader of a relay supernode sends the relay's chunks over
 *      each of its L2 links, to the landing leader of every supernode other
 *      than s0 it is linked to.
 *   5. "All nodes, which have received a chunk so far, share these chunks
 *      with other nodes in their supernode": the leaders that received
 *      chunks in step 4 pass them on inside their supernode, and in s0 every
 *      leader passes its step-1 chunk to the others.
 *   6. Every leader sends the buffer to each core of its unit.
 * Cost (nps units per supernode, sn supernodes): n beta 3/nps on the busiest
 *   links (the paper's Table 2); 5 hops of chunks.
 * Memory: none (every chunk moves inside the user buffer).
 * Restrictions: none: any p, root, mapping, unequal supernodes and units.
 * Readings of the paper:
 *   - Step 4 skips s0: the paper's "all other nodes outside their supernode
 *     that they are connected to" would send s0 chunks it already holds
 *     (its summary says the chunks go "to other supernodes" that need
 *     them); s0's units share their step-1 chunks in step 5, as the
 *     summary's "received a chunk so far" reads.
 *   - Fewer other supernodes than chunks (S - 1 < K; the paper's machine
 *     has 63 for 16 chunks): some units of s0 have no L2 link, yet every
 *     chunk needs a relay.  Then each other supernode relays a run of
 *     consecutive chunks, about 1/(S-1) of the buffer (one message per run
 *     from step 3 on); a unit of s0 sends its chunk to its relay directly
 *     (routed through s0's gateway).  When S - 1 = K and unit i's only link
 *     leads back to s0, chunk i's relay is the (i mod (S-1))-th other
 *     supernode.
 *   - Unequal supernodes: a relay's chunks may land on units of a
 *     supernode in any combination; step 5 passes on whatever arrived.
 * Source: Jain, Lau, Kale 2012, section 5.2.
 */
#include <errno.h>
#include <stdlib.h>

#include "algo/twotier_family.h"
#include "blocks/twotier_plan.h"

typedef struct bctx {
    tt_plan pl;
    int me, K;
    int64_t n;
    int *cfirst;   /* [S+1] chunks relayed by supernode t: clist[cfirst[t] .. cfirst[t+1]) */
    int *clist;    /* [K] */
} bctx;

static tc_region chunk(const bctx *c, int i)
{
    int64_t x = tt_split(c->n, c->K, i);
    return tc_reg(TC_BUF_RECV, x, tt_split(c->n, c->K, i + 1) - x);
}

/* Chunk i's relay (S > 1): the paper's when unit i has an L2 link; with
 * fewer other supernodes than chunks, runs of consecutive chunks per relay
 * (one message each). */
static int relay_of(const bctx *c, int i)
{
    int S = c->pl.S, s0 = c->pl.s0, j;
    if (S - 1 >= c->K) {
        for (int t = i; t < S; t += c->K)
            if (t != s0) return t;
        j = i % (S - 1);
    } else {
        j = (int)((int64_t)i * (S - 1) / c->K);
    }
    return j < s0 ? j : j + 1;
}

static int build_relays(bctx *c)
{
    int S = c->pl.S;
    c->cfirst = calloc((size_t)S + 2, sizeof *c->cfirst);
    c->clist = malloc((size_t)c->K * sizeof *c->clist);
    int *rel = malloc((size_t)c->K * sizeof *rel);
    if (!c->cfirst || !c->clist || !rel) {
        free(rel);
        return ENOMEM;
    }
    for (int i = 0; i < c->K; i++) c->cfirst[(rel[i] = S > 1 ? relay_of(c, i) : 0) + 2]++;
    for (int t = 0; t < S; t++) c->cfirst[t + 2] += c->cfirst[t + 1];
    for (int i = 0; i < c->K; i++) c->clist[c->cfirst[rel[i] + 1]++] = i;
    free(rel);
    return 0;
}

static int nrelayed(const bctx *c, int t) { return c->pl.S > 1 ? c->cfirst[t + 1] - c->cfirst[t] : 0; }

/* All chunks relayed by supernode t, to or from peer: one message per run
 * of consecutive chunks. */
static void xfer_relayed(tc_sched *s, const bctx *c, int t, int peer, int send)
{
    for (int k = c->cfirst[t]; k < c->cfirst[t + 1];) {
        int e = k + 1;
        while (e < c->cfirst[t + 1] && c->clist[e] == c->clist[e - 1] + 1) e++;
        tc_region first = chunk(c, c->clist[k]), last = chunk(c, c->clist[e - 1]);
        tc_region run = tc_reg(TC_BUF_RECV, first.off, last.off + last.cnt - first.off);
        if (send) tc_sched_send(s, peer, run);
        else tc_sched_recv(s, peer, run);
        k = e;
    }
}

/* Chunks unit (local index i) of supernode t receives in step 4: those of
 * the relays t2 != t whose L2 link to t lands on it (t2 = i mod n_t). */
static void xfer_landed(tc_sched *s, const bctx *c, int t, int i, int peer, int send)
{
    for (int t2 = i; t2 < c->pl.S; t2 += tt_nunits(&c->pl, t))
        if (t2 != t && t2 != c->pl.s0) xfer_relayed(s, c, t2, peer, send);
}

static void s0_leader(tc_sched *s, const bctx *c, int u, int root)
{
    const tt_plan *pl = &c->pl;
    int s0 = pl->s0, i = u - pl->unit_first[s0];
    if (c->me == root) {                                                    /* step 1 */
        for (int j = 0; j < c->K; j++)
            if (j != i) tc_sched_send(s, tt_leader(pl, pl->unit_first[s0] + j), chunk(c, j));
    } else {
        tc_sched_recv(s, root, chunk(c, i));
    }
    tc_sched_round(s);
    if (pl->S > 1) {                                                        /* step 2 */
        int t = relay_of(c, i);
        tc_sched_send(s, tt_leader(pl, tt_gateway(pl, t, s0)), chunk(c, i));
        tc_sched_round(s);
    }
    for (int j = 0; j < c->K; j++) {                                        /* step 5 */
        int peer = tt_leader(pl, pl->unit_first[s0] + j);
        if (j == i) continue;
        if (peer != root) tc_sched_send(s, peer, chunk(c, i));
        if (c->me != root) tc_sched_recv(s, peer, chunk(c, j));
    }
    tc_sched_round(s);
}

static void other_leader(tc_sched *s, const bctx *c, int u, int t)
{
    const tt_plan *pl = &c->pl;
    int i = u - pl->unit_first[t], land = tt_gateway(pl, t, pl->s0);
    if (nrelayed(c, t)) {
        if (u == land) {
            for (int k = c->cfirst[t]; k < c->cfirst[t + 1]; k++) {         /* step 2 */
                int j = c->clist[k];
                tc_sched_recv(s, tt_leader(pl, pl->unit_first[pl->s0] + j), chunk(c, j));
            }
            tc_sched_round(s);
            for (int v = pl->unit_first[t]; v < pl->unit_first[t + 1]; v++) /* step 3 */
                if (v != u) xfer_relayed(s, c, t, tt_leader(pl, v), 1);
        } else {
            xfer_relayed(s, c, t, tt_leader(pl, land), 0);
        }
        tc_sched_round(s);
        for (int t2 = i; t2 < pl->S; t2 += tt_nunits(pl, t))                /* step 4 */
            if (t2 != t && t2 != pl->s0) xfer_relayed(s, c, t, tt_leader(pl, tt_gateway(pl, t2, t)), 1);
    }
    for (int t2 = i; t2 < pl->S; t2 += tt_nunits(pl, t))
        if (t2 != t && t2 != pl->s0) xfer_relayed(s, c, t2, tt_leader(pl, tt_gateway(pl, t2, t)), 0);
    tc_sched_round(s);
    for (int j = 0; j < tt_nunits(pl, t); j++) {                            /* step 5 */
        int peer = tt_leader(pl, pl->unit_first[t] + j);
        if (j == i) continue;
        xfer_landed(s, c, t, i, peer, 1);
        xfer_landed(s, c, t, j, peer, 0);
    }
    tc_sched_round(s);
}

int tt_bcast_chunked_generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    bctx c;
    tt_plan_init(&c.pl, t, tt_units_sockets(a), a->root);
    c.me = a->rank;
    c.n = a->rcount;
    c.K = tt_nunits(&c.pl, c.pl.s0);
    int rc = build_relays(&c);
    if (!rc) {
        int u = tt_unit_of(&c.pl, c.me), sn = t->node_of[c.me];
        tc_region all = tc_reg(TC_BUF_RECV, 0, c.n);
        if (c.me != tt_leader(&c.pl, u)) {
            tc_sched_recv(s, tt_leader(&c.pl, u), all);                     /* step 6 */
        } else {
            if (sn == c.pl.s0) s0_leader(s, &c, u, a->root);
            else other_leader(s, &c, u, sn);
            for (int j = tt_upos(&c.pl, u); j < tt_upos(&c.pl, u + 1); j++)  /* step 6 */
                if (c.pl.rank_at[j] != c.me) tc_sched_send(s, c.pl.rank_at[j], all);
        }
        tc_sched_round(s);
    }
    free(c.cfirst);
    free(c.clist);
    return rc;
}

const char tc_bcast_twotier_chunked_source[] = __FILE__;
