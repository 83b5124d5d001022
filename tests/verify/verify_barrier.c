/* Verifier sweep of the barrier's catalog: every entry with a schedule at
 * p = 1..64 and 96, 128, 200, 512 on flat, unequal-node, cyclic, random
 * and one-node (several sockets) mappings must be proven a barrier (no rank
 * leaves before every rank has entered) or decline as its domain says; the
 * zero-byte messages are counted as messages of no bytes.  Broken barriers
 * (a one-way ring, arrival without release, a flag release before the
 * arrivals, a dissemination a round short, a 3-way dissemination a message
 * short) must be rejected as "not a barrier", so the proof can fail.  No
 * MPI.  Ends with "N passed, M failed". */
#include <stdio.h>
#include <string.h>

#include "verify/sweep.h"
#include "pattern/pattern.h"
#include "topo_specs.h"

static void run(const tc_algo *al, const tc_topo *t, const char *spec)
{
    tc_args a;
    memset(&a, 0, sizeof a);
    a.commutative = 1;
    sweep_case(al, t, spec, a, 1, 1);
    domain_case(al, t, a);   /* without node-shared memory */
}

static int ceil_log2(int p)
{
    int k = 0;
    while ((1 << k) < p) k++;
    return k;
}

/* Messages and bytes the verifier counts for dissemination: p per round, no bytes. */
static void check_counts(const tc_topo *t, const char *spec)
{
    const tc_algo *al = tc_catalog_find(TOPOCOLL_BARRIER, "dissemination");
    tc_args a;
    memset(&a, 0, sizeof a);
    a.coll = TOPOCOLL_BARRIER;
    a.size = t->size;
    tc_verify_report rep;
    CHECK(al && tc_verify(al, t, &a, 1, 1, &rep) == TC_VERIFY_OK, "dissemination %s p=%d", spec, t->size);
    if (!al) return;
    CHECK(rep.messages == (int64_t)t->size * ceil_log2(t->size) && rep.bytes == 0,
          "dissemination %s p=%d: %lld messages, %lld bytes", spec, t->size, (long long)rep.messages,
          (long long)rep.bytes);
}

static long point;

static void sweep_topo(const tc_topo *t, const char *spec)
{
    point++;
    for (int i = 0; i < tc_catalog_variant_count(TOPOCOLL_BARRIER); i++) {
        const tc_algo *al = tc_catalog_variant_at(TOPOCOLL_BARRIER, i);
        if (al->generate && sweep_runs(al, point)) run(al, t, spec);
    }
}

static void sweep_spec(const char *spec, int p) { visit_spec(spec, p, sweep_topo); }

static void sweep_p(int p)
{
    static const char *specs[] = { "4x*", "4x*/cyclic", "3x2x*/cyclic", "5x*/random:3", "2x3x*/random:7",
                                   "1x2x*", "1x3x*/cyclic", "1x4x*/random:3", "16x*", "32x*/random:5",
                                   NULL };
    char spec[64];
    tc_topo *flat = tc_topo_flat(p);
    if (flat) {
        sweep_topo(flat, "flat");
        check_counts(flat, "flat");
        tc_topo_free(flat);
    }
    for (const char **s = specs; *s; s++) sweep_spec(*s, p);
    if (p >= 3) {   /* two unequal nodes */
        snprintf(spec, sizeof spec, "%d+%d/cyclic", p - p / 3, p / 3);
        sweep_spec(spec, p);
    }
}

/* ---- broken barriers: the proof must fail ---------------------------------- */

static int gen_ring(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    tc_sched_send_sync(s, tc_wrap(a->rank + 1, a->size));
    tc_sched_recv_sync(s, tc_wrap(a->rank - 1, a->size));
    tc_sched_round(s);
    return 0;
}

static int gen_arrival_only(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    if (a->rank == 0)
        for (int j = 1; j < a->size; j++) tc_sched_recv_sync(s, j);
    else
        tc_sched_send_sync(s, 0);
    tc_sched_round(s);
    return 0;
}

/* The leader releases before it has heard from every member. */
static int gen_early_release(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    if (a->rank == 0) {
        for (int j = 1; j < a->size; j++) tc_sched_signal(s, j);
        tc_sched_round(s);
        for (int j = 1; j < a->size; j++) tc_sched_wait(s, j);
    } else {
        tc_sched_signal(s, 0);
        tc_sched_round(s);
        tc_sched_wait(s, 0);
    }
    tc_sched_round(s);
    return 0;
}

static int gen_short(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank;
    for (int d = 1; 2 * d < p; d <<= 1) {
        tc_sched_send_sync(s, tc_wrap(r + d, p));
        tc_sched_recv_sync(s, tc_wrap(r - d, p));
        tc_sched_round(s);
    }
    return 0;
}

/* 3-way dissemination (the leaders' rounds of hierarchical:ways=3, on every
 * rank) whose last round sends one message fewer than it must. */
static int gen_nway_short(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank, w = 3;
    for (int D = 1; D < p; D *= w + 1) {
        int J = (p + D - 1) / D - 1;
        if (J > w) J = w;
        if (D * (w + 1) >= p) J--;   /* the last round */
        for (int j = 1; j <= J; j++) {
            tc_sched_send_sync(s, tc_wrap(r + j * D, p));
            tc_sched_recv_sync(s, tc_wrap(r - j * D, p));
        }
        tc_sched_round(s);
    }
    return 0;
}

static void check_broken(const char *name, tc_generate_fn gen, unsigned req, const char *spec, int p)
{
    tc_algo al;
    memset(&al, 0, sizeof al);
    al.coll = TOPOCOLL_BARRIER;
    al.name = name;
    al.requires = "";
    al.req = req;
    al.generate = gen;
    al.source = __FILE__;
    char err[256];
    tc_topo *t = tc_topo_from_spec(spec, p, err, sizeof err);
    CHECK(t != NULL, "topology %s p=%d: %s", spec, p, err);
    if (!t) return;
    tc_args a;
    memset(&a, 0, sizeof a);
    a.coll = TOPOCOLL_BARRIER;
    a.size = p;
    tc_verify_report rep;
    tc_verify_status st = tc_verify(&al, t, &a, 1, 1, &rep);
    CHECK(st == TC_VERIFY_FAIL && strstr(rep.msg, "not a barrier"), "broken barrier %s p=%d %s: %s (%s)",
          name, p, spec, st == TC_VERIFY_OK ? "proven" : "not rejected as not a barrier", rep.msg);
    tc_topo_free(t);
}

int main(void)
{
    static const int large_p[] = { 96, 128, 200, 512 };
    for (int p = 1; p <= 64; p++) sweep_p(p);
    for (int i = 0; i < (int)(sizeof large_p / sizeof large_p[0]); i++) sweep_p(large_p[i]);
    for (int p = 3; p <= 9; p++) {
        check_broken("ring", gen_ring, TC_REQ_NONE, "2x*", p);
        check_broken("arrival_only", gen_arrival_only, TC_REQ_NONE, "3x*/cyclic", p);
        check_broken("short", gen_short, TC_REQ_NONE, "2x*/random:3", p);
        check_broken("nway_short", gen_nway_short, TC_REQ_NONE, "3x*/cyclic", p);
    }
    for (int p = 3; p <= 6; p++) check_broken("early_release", gen_early_release, TC_REQ_NODE_SHM, "1x*", p);
    int n = 0;
    for (int i = 0; i < tc_catalog_variant_count(TOPOCOLL_BARRIER); i++)
        n += tc_catalog_variant_at(TOPOCOLL_BARRIER, i)->generate != NULL;
    printf("barrier: %d instances with a schedule\n", n);
    printf("%ld cases declined as their domains say\n", sweep_stat.declined);
    return tc_test_summary();
}
