/*
 * What the verifier sweeps share: the catalog drives them.
 *
 *   - Entries: every variant of the collective's catalog (tc_catalog_variant_count /
 *     tc_catalog_variant_at) that has a schedule; no name or family is singled out.
 *   - Cost: a catalog row (a flat algorithm, or a family) with at most
 *     SWEEP_FULL_ROW instances runs every instance at every point of a
 *     sweep; a larger row runs one instance per point, rotating, so the row
 *     costs about one algorithm per point (each instance still runs every
 *     point of the small-topology sweeps, which call sweep_every).
 *   - Domains: the case's expected verdict comes from the entry's declared
 *     requirement flags alone (domain_unmet below, written here again, not
 *     taken from the library): inside the domain the verifier must prove the
 *     schedule correct; outside it the entry must decline, and the reason
 *     must be the first unmet requirement's.  An in-domain decline or an
 *     out-of-domain accept fails.
 */
#ifndef TC_VERIFY_SWEEP_H
#define TC_VERIFY_SWEEP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/catalog.h"
#include "common/harness.h"
#include "topo/topo.h"
#include "verify/verify.h"
#include "verify/heap.h"
#include "verify/stride.h"

#define SWEEP_FULL_ROW 4

typedef struct sweep_stats { long declined; } sweep_stats;
static sweep_stats sweep_stat;

/* Set while a sweep walks cases without checking them, so that the cases it
 * does check (and the TOPOCOLL_VERIFY_STRIDE sample) are the ones a whole
 * run checks there: verify_collectives run in parts. */
static int sweep_dry;

/* The requirements case a does not meet, from the flags' documented meaning. */
static unsigned domain_unmet(unsigned req, const tc_args *a, const tc_topo *t)
{
    unsigned un = 0;
    int p = a->size;
    if ((req & TC_REQ_ONE_NODE) && t->nnodes > 1) un |= TC_REQ_ONE_NODE;
    if ((req & TC_REQ_EVEN_P) && p % 2 != 0) un |= TC_REQ_EVEN_P;
    if ((req & TC_REQ_POW2_P) && (p & (p - 1)) != 0) un |= TC_REQ_POW2_P;
    if ((req & TC_REQ_COMMUTATIVE) && !a->commutative) un |= TC_REQ_COMMUTATIVE;
    if ((req & TC_REQ_NODE_SHM) && !a->node_shm) un |= TC_REQ_NODE_SHM;
    if (req & TC_REQ_BLOCK_NODES)
        for (int r = 0; r < p; r++)
            if (t->node_ranks[r] != r) { un |= TC_REQ_BLOCK_NODES; break; }
    return un;
}

/* Instances in al's catalog row (same family; 1 for a flat algorithm) and
 * al's index among them. */
static int row_size_scan(const tc_algo *al, int *index)
{
    int n = 0, me = 0;
    for (int i = 0; i < tc_catalog_variant_count(al->coll); i++) {
        const tc_algo *b = tc_catalog_variant_at(al->coll, i);
        if (b == al) me = n;
        if (b == al || (al->family && b->family && strcmp(al->family, b->family) == 0)) n++;
    }
    if (index) *index = me;
    return n;
}

/* row_size_scan, remembered per entry (the catalog is constant data; the
 * sweeps ask for every entry at every point). */
#define ROW_CACHE 4096
static int row_size(const tc_algo *al, int *index)
{
    static struct { const tc_algo *al; int n, idx; } cache[ROW_CACHE];
    size_t h = ((size_t)(uintptr_t)al >> 4) % ROW_CACHE;
    for (size_t probe = 0; probe < ROW_CACHE; probe++, h = (h + 1) % ROW_CACHE) {
        if (cache[h].al == al) break;
        if (!cache[h].al) {
            cache[h].n = row_size_scan(al, &cache[h].idx);
            cache[h].al = al;
            break;
        }
    }
    if (cache[h].al != al) return row_size_scan(al, index);   /* full: not remembered */
    if (index) *index = cache[h].idx;
    return cache[h].n;
}

/* Does al run at point `point` when a large row runs one in k of its
 * instances there (small rows run all)? */
static int sweep_sample(const tc_algo *al, long point, int k)
{
    int idx, n = row_size(al, &idx);
    return n <= SWEEP_FULL_ROW || idx % k == point % k;
}

/* Does al run at sweep point `point` (a counter that advances per point):
 * a large row runs one instance per point, rotating. */
static int sweep_runs(const tc_algo *al, long point)
{
    int n = row_size(al, NULL);
    return sweep_sample(al, point, n);
}

/* One case: verifies al on t with the arguments in a (size, counts, root,
 * in_place, commutative) and checks the verdict against al's domain.  The
 * verifier models node-shared memory (node_shm = 1). */

static void sweep_case(const tc_algo *al, const tc_topo *t, const char *spec, tc_args a,
                       int u_send, int u_recv)
{
    if (sweep_skip() || sweep_dry) return;
    a.coll = al->coll;
    a.size = t->size;
    a.node_shm = 1;
    a.cma = 1;
    tc_verify_report rep;
    tc_verify_status st = tc_verify(al, t, &a, u_send, u_recv, &rep);
    unsigned un = domain_unmet(al->req, &a, t);
    if (!un) {
        CHECK(st == TC_VERIFY_OK, "%s/%s p=%d topo=%s root=%d scount=%lld rcount=%lld in_place=%d "
              "commutative=%d: %s", tc_coll_name(al->coll), al->name, t->size, spec, a.root,
              (long long)a.scount, (long long)a.rcount, a.in_place, a.commutative,
              st == TC_VERIFY_DECLINED ? "declined inside its declared domain" : rep.msg);
        return;
    }
    const char *reason = tc_req_reason(un & -un);
    sweep_stat.declined += st == TC_VERIFY_DECLINED;
    CHECK(st == TC_VERIFY_DECLINED && reason[0] && strstr(rep.msg, reason),
          "%s/%s p=%d topo=%s commutative=%d: outside its domain (%s) but %s: %s",
          tc_coll_name(al->coll), al->name, t->size, spec, a.commutative, reason,
          st == TC_VERIFY_OK ? "accepted" : st == TC_VERIFY_DECLINED ? "declined for another reason"
                                                                     : "failed", rep.msg);
}

/* The domain check without the verifier, for what it cannot vary (it always
 * gives node-shared memory): tc_algo_accepts with a->node_shm as given. */
static void domain_case(const tc_algo *al, const tc_topo *t, tc_args a)
{
    if (sweep_dry) return;
    a.coll = al->coll;
    a.size = t->size;
    const char *why = "";
    int ok = tc_algo_accepts(al, &a, t, &why);
    unsigned un = domain_unmet(al->req, &a, t);
    if (!un) CHECK(ok, "%s/%s p=%d node_shm=%d: declined inside its domain: %s", tc_coll_name(al->coll),
                   al->name, t->size, a.node_shm, why);
    else CHECK(!ok && strcmp(why, tc_req_reason(un & -un)) == 0,
               "%s/%s p=%d node_shm=%d: expected decline '%s', got %s '%s'", tc_coll_name(al->coll),
               al->name, t->size, a.node_shm, tc_req_reason(un & -un), ok ? "accept" : "decline", why);
}

#endif
