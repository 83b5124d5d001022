/*
 * The simulator's fast path for schedules in shift form (tc_algo.shift,
 * algo/catalog.h): when every rank sends to (r + shift) mod p in every
 * round, the engine needs neither p generated schedules nor per-step link
 * columns.  It walks the rounds once, all ranks of a round together:
 *
 *   1. the placement is cut once into runs of consecutive ranks on one node
 *      (a node of an in-order placement is one run; a cyclic placement has
 *      runs of one rank);
 *   2. for a send of b bytes at shift s, the ranks of run [x, y) on node n
 *      reach ranks [x+s, y+s) mod p: at most two ranges, cut by the runs
 *      they cross into (destination node, ranks) pieces; bytes to n itself
 *      stay inside the node, the rest are summed per destination node and
 *      routed once per (run, destination node);
 *   3. a round's link loads live in a dense array with a list of the links
 *      touched: at the round's end they give the per-tier maxima of its step
 *      and join the totals, `repeat` times (a ring's p-1 equal steps cost
 *      one).
 *
 * The results equal the generator passes' (tests/sim compares them for
 * every algorithm with a shift form, on several networks and placements),
 * except `flows`, the number of routes computed, which counts the routes of
 * this path.  Not used with --check (the checks match every send with its
 * receive, which only the generated schedules have).
 * Cost: O(rounds x sends per round x (runs + ranges' runs + routes x hops));
 * at 16,384 in-order ranks on twotier:64x16x16 pairwise exchange routes
 * 2 x 1,024 aggregates per step.  Memory: O(p / run length + nodes + links)
 * plus the per-step statistics (88 bytes per step).
 */
#include "sim/engine_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct shift_state {
    sim_eng *e;
    int p, nruns;
    int *run_start;          /* [nruns + 1] */
    int *run_node;           /* [nruns] */
    uint64_t *rl;            /* [nlinks] this round's loads */
    int32_t *touched;        /* [nlinks] links with rl != 0 */
    int nt;
    int round;               /* index of the round being told */
    /* the round so far */
    int64_t msgs, netm, nops;
    tc_u128 bytes, intra;
    uint64_t rank_bytes;     /* bytes one rank sends in it */
    /* totals over rounds, one rank */
    tc_u128 rank_sent, rank_red;
} shift_state;

static int build_runs(shift_state *S)
{
    const int *node_of = S->e->pl->node_of;
    int p = S->p, n = 1;
    for (int r = 1; r < p; r++) n += node_of[r] != node_of[r - 1];
    S->run_start = malloc((size_t)(n + 1) * sizeof *S->run_start);
    S->run_node = malloc((size_t)n * sizeof *S->run_node);
    if (!S->run_start || !S->run_node) return eng_fail(S->e, "out of memory (%d runs of ranks)", n);
    S->nruns = 0;
    for (int r = 0; r < p; r++)
        if (r == 0 || node_of[r] != node_of[r - 1]) {
            S->run_start[S->nruns] = r;
            S->run_node[S->nruns++] = node_of[r];
        }
    S->run_start[S->nruns] = p;
    return 0;
}

/* The run holding rank r (binary search over the run starts). */
static int run_of(const shift_state *S, int r)
{
    int lo = 0, hi = S->nruns - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (S->run_start[mid] <= r) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

static void add_route(shift_state *S, int src, int dst, uint64_t b)
{
    int32_t links[TC_NET_MAX_HOPS];
    int nh = tc_net_route(S->e->net, src, dst, links);
    for (int h = 0; h < nh; h++) {
        if (!S->rl[links[h]]) S->touched[S->nt++] = links[h];
        S->rl[links[h]] += b;
    }
    S->e->res->flows++;
}

/* Ranks [x, y) (inside 0 .. p-1) receive b bytes each from node src. */
static void add_range(shift_state *S, int src, int x, int y, uint64_t b)
{
    sim_eng *e = S->e;
    for (int j = run_of(S, x); x < y; j++) {
        int end = S->run_start[j + 1] < y ? S->run_start[j + 1] : y, dn = S->run_node[j];
        uint64_t k = (uint64_t)(end - x);
        if (dn == src) {
            S->intra += (tc_u128)k * b;
        } else {
            S->netm += (int64_t)k;
            if (!e->agg[dn]) e->touched[e->ntouched++] = dn;
            e->agg[dn] += k * b;
        }
        x = end;
    }
}

/* One send of every rank: shift s, b bytes. */
static void add_send(shift_state *S, int s, uint64_t b)
{
    sim_eng *e = S->e;
    int p = S->p;
    for (int j = 0; j < S->nruns; j++) {
        int src = S->run_node[j], x = S->run_start[j] + s, y = S->run_start[j + 1] + s;
        if (x >= p) {
            x -= p;
            y -= p;
        }
        if (y <= p) {
            add_range(S, src, x, y, b);
        } else {
            add_range(S, src, x, p, b);
            add_range(S, src, 0, y - p, b);
        }
        for (int i = 0; i < e->ntouched; i++) {
            int dn = e->touched[i];
            add_route(S, src, dn, e->agg[dn]);
            e->agg[dn] = 0;
        }
        e->ntouched = 0;
    }
    S->msgs += p;
    S->bytes += (tc_u128)p * b;
    S->rank_bytes += b;
}

/* Room for the per-round arrays and maxima of rounds 0 .. n-1. */
static int grow_steps(sim_eng *e, int n)
{
    int old = e->st_cap;
    if (eng_grow_rounds(e, n) != 0) return -1;
    if (e->st_max && old == e->st_cap) return 0;
    uint64_t *mx = realloc(e->st_max, (size_t)e->st_cap * TC_NET_MAX_TIERS * sizeof *mx);
    if (!mx) return eng_fail(e, "out of memory (per-step maxima, %d steps)", n);
    int from = e->st_max ? old : 0;
    memset(mx + (size_t)from * TC_NET_MAX_TIERS, 0, (size_t)(e->st_cap - from) * TC_NET_MAX_TIERS * sizeof *mx);
    e->st_max = mx;
    return 0;
}

/* The round is complete: its loads join the totals `repeat` times. */
static int close_round(shift_state *S, const tc_shift_round *rd)
{
    sim_eng *e = S->e;
    tc_sim_result *res = e->res;
    int R = rd->repeat, k = S->round;
    uint64_t mx[TC_NET_MAX_TIERS] = { 0 };
    for (int i = 0; i < S->nt; i++) {
        int l = S->touched[i], t = tc_net_link_tier(e->net, l);
        if (S->rl[l] > mx[t]) mx[t] = S->rl[l];
        e->load[l] += S->rl[l] * (uint64_t)R;
        S->rl[l] = 0;
    }
    S->nt = 0;
    uint64_t red = (uint64_t)rd->reduced * (uint64_t)e->prm->esize;
    if (e->prm->steps) {
        if (grow_steps(e, k + R) != 0) return -1;
        for (int s = k; s < k + R; s++) {
            e->st_msgs[s] = S->msgs;
            e->st_bytes[s] = (uint64_t)S->bytes;
            e->st_red[s] = red;
            memcpy(e->st_max + (size_t)s * TC_NET_MAX_TIERS, mx, sizeof mx);
        }
    }
    res->messages += S->msgs * R;
    res->net_messages += S->netm * R;
    e->sent_all += S->bytes * (tc_u128)R;
    res->intra_bytes += (uint64_t)(S->intra * (tc_u128)R);
    res->ops += (S->nops + (int64_t)rd->nreduce * S->p) * R;
    S->rank_sent += (tc_u128)S->rank_bytes * (tc_u128)R;
    S->rank_red += (tc_u128)red * (tc_u128)R;
    S->round = k + R;
    S->msgs = S->netm = S->nops = 0;
    S->bytes = S->intra = 0;
    S->rank_bytes = 0;
    return 0;
}

static int bad_round(sim_eng *e, int k, const char *what)
{
    return eng_fail(e, "%s: the shift form of round %d %s", e->al->name, k, what);
}

static int sink(void *ctx, const tc_shift_round *rd)
{
    shift_state *S = ctx;
    sim_eng *e = S->e;
    if (rd->repeat < 1 || (rd->cont && rd->repeat != 1)) return bad_round(e, S->round, "has a bad repeat count");
    if ((int64_t)S->round + rd->repeat > INT_MAX / 2) return bad_round(e, S->round, "passes the step limit");
    for (int i = 0; i < rd->nsend; i++) {
        if (rd->shift[i] <= 0 || rd->shift[i] >= S->p || rd->cnt[i] <= 0)
            return bad_round(e, S->round, "sends to a bad shift or an empty block");
        tc_u128 b = (tc_u128)(uint64_t)rd->cnt[i] * (uint64_t)e->prm->esize;
        if (b > TC_SIM_BYTES_MAX) return bad_round(e, S->round, "sends more than 2^64-1 bytes in one message");
        add_send(S, rd->shift[i], (uint64_t)b);
        S->nops += S->p;
    }
    if (rd->cont) return 0;
    return close_round(S, rd);
}

static void finish(shift_state *S)
{
    sim_eng *e = S->e;
    tc_sim_result *res = e->res;
    res->rounds = S->round;
    res->bytes = (uint64_t)e->sent_all;
    res->sent_max = (uint64_t)S->rank_sent;
    res->reduced_max = (uint64_t)S->rank_red;
    res->reduced_total = (uint64_t)(S->rank_red * (tc_u128)S->p);
    res->reduced_rank = S->rank_red ? 0 : -1;   /* every rank alike: the first */
    res->step_passes = 1;
}

int shift_run(sim_eng *e)
{
    if (!e->al->shift || e->prm->check || e->prm->generic) return 0;
    shift_state S;
    memset(&S, 0, sizeof S);
    S.e = e;
    S.p = e->pl->p;
    tc_args a = e->args;
    a.rank = 0;
    int rc = build_runs(&S);
    S.rl = calloc((size_t)(e->net->nlinks ? e->net->nlinks : 1), sizeof *S.rl);
    S.touched = malloc((size_t)(e->net->nlinks ? e->net->nlinks : 1) * sizeof *S.touched);
    if (rc == 0 && (!S.rl || !S.touched)) rc = eng_fail(e, "out of memory (%d links)", e->net->nlinks);
    int told = rc == 0 ? e->al->shift(&a, e->pl->topo, sink, &S) : -1;
    if (rc == 0 && told == 0) finish(&S);
    free(S.run_start);
    free(S.run_node);
    free(S.rl);
    free(S.touched);
    if (rc != 0 || (told != 0 && e->res->status == TC_SIM_ERROR)) return -1;
    if (told == TC_SHIFT_NONE) return 0;
    if (told != 0) return eng_fail(e, "%s: the shift form failed (%d)", e->al->name, told);
    return 1;
}
