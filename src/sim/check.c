/*
 * Conservation and routing checks of the engine (--check):
 *   - every byte sent is received: per rank, bytes sent to it = bytes it
 *     receives, bytes it sends = bytes others receive from it; and the
 *     multiset of (source, destination, bytes) over sends equals the one
 *     over receives (sum of a 64-bit mix, and the counts);
 *   - every route is a path: its first link leaves the source node, each link
 *     starts where the previous one ended, the last ends at the destination,
 *     no link repeats;
 *   - routed bytes = sum over flows of hops x bytes = sum of all link loads
 *     = sum of the tier totals; bytes sent = inside-node bytes + routed flows;
 *   - the per-step loads of every link add up to its total load.
 * Cost: O(p) memory, O(hops) per flow, O(links) at the end.
 */
#include "sim/engine_impl.h"

#include <stdlib.h>
#include <string.h>

static uint64_t mix64(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int check_init(sim_eng *e)
{
    size_t p = (size_t)e->pl->p;
    sim_check *c = &e->ck;
    memset(c, 0, sizeof *c);
    c->sent_to = calloc(p, sizeof *c->sent_to);
    c->recv_from = calloc(p, sizeof *c->recv_from);
    c->sent_own = calloc(p, sizeof *c->sent_own);
    c->recv_own = calloc(p, sizeof *c->recv_own);
    return c->sent_to && c->recv_from && c->sent_own && c->recv_own ? 0 : -1;
}

void check_free(sim_eng *e)
{
    free(e->ck.sent_to);
    free(e->ck.recv_from);
    free(e->ck.sent_own);
    free(e->ck.recv_own);
    memset(&e->ck, 0, sizeof e->ck);
}

void check_pair(sim_eng *e, int from, int to, uint64_t bytes, int is_send)
{
    sim_check *c = &e->ck;
    uint64_t h = mix64(((uint64_t)(uint32_t)from << 32 | (uint32_t)to) ^ mix64(bytes));
    if (is_send) {
        c->sent_to[to] += bytes;
        c->sent_own[from] += bytes;
        c->hash_send += h;
        c->nsend++;
    } else {
        c->recv_from[from] += bytes;
        c->recv_own[to] += bytes;
        c->hash_recv += h;
        c->nrecv++;
    }
}

static void check_fail_path(sim_eng *e, int src, int dst, const int32_t *links, int nh, const char *why)
{
    char a[48], b[48], l[96];
    e->ck.failed = 1;
    eng_fail(e, "check failed: route %s -> %s (%d hops, first %s): %s",
             tc_net_vertex_name(e->net, src, a, sizeof a), tc_net_vertex_name(e->net, dst, b, sizeof b), nh,
             nh > 0 ? tc_net_link_name(e->net, links[0], l, sizeof l) : "none", why);
}

void check_path(sim_eng *e, int src, int dst, const int32_t *links, int nh, uint64_t bytes)
{
    int at = src;
    e->res->check_items++;
    e->ck.hops_bytes += (tc_u128)nh * bytes;
    e->ck.flow_bytes += bytes;
    if (nh < 1 || nh > TC_NET_MAX_HOPS) {
        check_fail_path(e, src, dst, links, nh, "hop count out of range");
        return;
    }
    for (int h = 0; h < nh; h++) {
        int from, to;
        if (links[h] < 0 || links[h] >= e->net->nlinks) {
            check_fail_path(e, src, dst, links, nh, "link id out of range");
            return;
        }
        for (int k = 0; k < h; k++)
            if (links[k] == links[h]) {
                check_fail_path(e, src, dst, links, nh, "a link repeats");
                return;
            }
        tc_net_link_ends(e->net, links[h], &from, &to);
        if (from != at) {
            check_fail_path(e, src, dst, links, nh, "a link does not start where the previous ended");
            return;
        }
        at = to;
    }
    if (at != dst) check_fail_path(e, src, dst, links, nh, "the path does not end at the destination");
}

static int check_ranks(sim_eng *e)
{
    const sim_check *c = &e->ck;
    for (int r = 0; r < e->pl->p; r++) {
        e->res->check_items += 2;
        if (c->sent_to[r] != c->recv_own[r])
            return eng_fail(e, "check failed: rank %d is sent %llu bytes but receives %llu", r,
                            (unsigned long long)c->sent_to[r], (unsigned long long)c->recv_own[r]);
        if (c->sent_own[r] != c->recv_from[r])
            return eng_fail(e, "check failed: rank %d sends %llu bytes but the others receive %llu from it",
                            r, (unsigned long long)c->sent_own[r], (unsigned long long)c->recv_from[r]);
    }
    return 0;
}

static int check_totals(sim_eng *e)
{
    const sim_check *c = &e->ck;
    const tc_sim_result *res = e->res;
    tc_u128 sum = 0, tiers = 0;
    char a[48], b[48], d[48];
    for (int l = 0; l < e->net->nlinks; l++) sum += e->load[l];
    for (int t = 0; t < e->net->ntiers; t++) tiers += res->tier[t].total;
    e->res->check_items += 5;
    if (c->nsend != c->nrecv || c->hash_send != c->hash_recv)
        return eng_fail(e, "check failed: %lld sends and %lld receives do not pair up (source, destination, "
                        "bytes)", (long long)c->nsend, (long long)c->nrecv);
    if (sum != c->hops_bytes)
        return eng_fail(e, "check failed: link loads add up to %s bytes, hops x bytes to %s",
                        tc_sim_u128_str(sum, a, sizeof a), tc_sim_u128_str(c->hops_bytes, b, sizeof b));
    if (tiers != sum || res->routed != sum)
        return eng_fail(e, "check failed: tier totals %s, routed %s, link loads %s",
                        tc_sim_u128_str(tiers, a, sizeof a), tc_sim_u128_str(res->routed, b, sizeof b),
                        tc_sim_u128_str(sum, d, sizeof d));
    if ((tc_u128)res->bytes != (tc_u128)res->intra_bytes + c->flow_bytes)
        return eng_fail(e, "check failed: %llu bytes sent but %llu inside nodes + %llu routed",
                        (unsigned long long)res->bytes, (unsigned long long)res->intra_bytes,
                        (unsigned long long)c->flow_bytes);
    return 0;
}

void check_finish(sim_eng *e)
{
    e->res->checked = 1;
    if (e->ck.failed || e->res->status == TC_SIM_ERROR) return;
    if (check_ranks(e) == 0) check_totals(e);
}

void check_step_sums(sim_eng *e, const uint64_t *colsum)
{
    for (int c = 0; c < e->sl.ncid; c++) {
        int l = e->sl.cid_link[c];
        e->res->check_items++;
        if (colsum[c] != e->load[l]) {
            char name[96];
            eng_fail(e, "check failed: link %s carries %llu bytes, its steps add up to %llu",
                     tc_net_link_name(e->net, l, name, sizeof name), (unsigned long long)e->load[l],
                     (unsigned long long)colsum[c]);
            e->ck.failed = 1;
            return;
        }
    }
}
