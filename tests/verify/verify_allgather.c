/* Verifier sweep: every allgather algorithm of the catalog (native aside)
 * over p = 1..256 and several larger p up to 1024, on several virtual
 * topologies, in place and not, with equal and different send/receive
 * types.  No MPI.  Ends with "N passed, M failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/catalog.h"
#include "verify/verify.h"
#include "topo/topo.h"

typedef struct counts { long pass, fail, declined; } counts;

static void run_case(const tc_algo *al, const tc_topo *t, int in_place, int64_t scount,
                     int u_send, int64_t rcount, int u_recv, const char *tname, counts *c)
{
    tc_args a;
    memset(&a, 0, sizeof a);
    a.coll = TOPOCOLL_ALLGATHER;
    a.size = t->size;
    a.scount = scount;
    a.rcount = rcount;
    a.in_place = in_place;
    tc_verify_report rep;
    tc_verify_status st = tc_verify(al, t, &a, u_send, u_recv, &rep);
    if (st == TC_VERIFY_OK) c->pass++;
    else if (st == TC_VERIFY_DECLINED) c->declined++;
    else {
        c->fail++;
        if (c->fail <= 20)
            printf("FAIL %s p=%d topo=%s in_place=%d scount=%lld rcount=%lld: %s\n", al->name,
                   t->size, tname, in_place, (long long)scount, (long long)rcount, rep.msg);
    }
}

static void sweep_topo(const tc_topo *t, const char *tname, counts *c)
{
    int n = tc_catalog_count(TOPOCOLL_ALLGATHER);
    for (int i = 0; i < n; i++) {
        const tc_algo *al = tc_catalog_at(TOPOCOLL_ALLGATHER, i);
        if (!al->generate || al->param) continue;   /* families: verify_hierarchical */
        for (int ip = 0; ip < 2; ip++) {
            run_case(al, t, ip, 1, 1, 1, 1, tname, c);
            if (t->size <= 64) {
                run_case(al, t, ip, 3, 1, 3, 1, tname, c);
                if (!ip) run_case(al, t, ip, 1, 3, 3, 1, tname, c); /* 1 x (3 ints) -> 3 ints */
            }
        }
    }
}

/* ---- broken schedules the verifier must reject ---------------------------- */

static tc_region blk(const tc_args *a, int b, int n)
{ return tc_reg(TC_BUF_RECV, (int64_t)b * a->rcount, (int64_t)n * a->rcount); }
static tc_region own(const tc_args *a) { return tc_reg(TC_BUF_SEND, 0, a->scount); }

/* ring forwarding the wrong block in its last step */
static int gen_wrong_block(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank, R = (r + 1) % p, L = (r + p - 1) % p;
    tc_sched_copy(s, own(a), blk(a, r, 1));
    tc_sched_round(s);
    for (int i = 1; i < p; i++) {
        int sb = (r - i + 1 + p) % p;
        if (i == p - 1) sb = r;
        tc_sched_send(s, R, blk(a, sb, 1));
        tc_sched_recv(s, L, blk(a, (r - i + p) % p, 1));
        tc_sched_round(s);
    }
    return 0;
}

/* everybody receives first, sends in the next round: deadlock */
static int gen_deadlock(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank;
    tc_sched_copy(s, own(a), blk(a, r, 1));
    for (int j = 0; j < p; j++) if (j != r) tc_sched_recv(s, j, blk(a, j, 1));
    tc_sched_round(s);
    for (int j = 0; j < p; j++) if (j != r) tc_sched_send(s, j, own(a));
    return 0;
}

/* sizes differ between send and receive */
static int gen_size_mismatch(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank;
    tc_sched_copy(s, own(a), blk(a, r, 1));
    for (int j = 0; j < p; j++) if (j != r) tc_sched_recv(s, j, tc_reg(TC_BUF_RECV, j * a->rcount, 1));
    for (int j = 0; j < p; j++) if (j != r) tc_sched_send(s, j, own(a));
    return 0;
}

/* receives into the region it sends from in the same round */
static int gen_hazard(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank, R = (r + 1) % p, L = (r + p - 1) % p;
    tc_sched_copy(s, own(a), blk(a, r, 1));
    tc_sched_round(s);
    tc_sched_send(s, R, blk(a, 0, p));
    tc_sched_recv(s, L, blk(a, L, 1));
    return 0;
}

/* never sends anything: blocks stay unwritten */
static int gen_incomplete(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    tc_sched_copy(s, own(a), blk(a, a->rank, 1));
    return 0;
}

/* rank 1 writes node-shared memory, rank 0 reads it after a message from
 * rank 2 that says nothing about rank 1: a race the data alone would hide */
static int gen_shm_race(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    tc_sched_need_shm(s, a->rcount);
    if (a->rank == 1) tc_sched_copy(s, own(a), tc_reg(TC_BUF_SHM, 0, a->rcount));
    if (a->rank == 2) tc_sched_send(s, 0, own(a));
    if (a->rank == 0) {
        tc_sched_recv(s, 2, blk(a, 2, 1));
        tc_sched_round(s);
        tc_sched_copy(s, tc_reg(TC_BUF_SHM, 0, a->rcount), blk(a, 1, 1));
    }
    return 0;
}

static int check_rejects(void)
{
    static const struct { const char *name; int (*gen)(tc_sched *, const tc_args *, const tc_topo *); } bad[] = {
        { "wrong_block", gen_wrong_block }, { "deadlock", gen_deadlock },
        { "size_mismatch", gen_size_mismatch }, { "hazard", gen_hazard },
        { "incomplete", gen_incomplete }, { "shm_race", gen_shm_race },
    };
    int failures = 0;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tc_algo al;
        memset(&al, 0, sizeof al);
        al.coll = TOPOCOLL_ALLGATHER;
        al.name = bad[i].name;
        al.generate = bad[i].gen;
        int p = bad[i].gen == gen_shm_race ? 3 : 4;
        tc_topo *t = tc_topo_flat(p);
        tc_args a;
        memset(&a, 0, sizeof a);
        a.coll = TOPOCOLL_ALLGATHER;
        a.size = p;
        a.scount = a.rcount = 2;
        tc_verify_report rep;
        tc_verify_status st = tc_verify(&al, t, &a, 1, 1, &rep);
        tc_topo_free(t);
        printf("broken schedule %-14s -> %s: %s\n", bad[i].name,
               st == TC_VERIFY_FAIL ? "rejected" : "ACCEPTED (verifier bug)", rep.msg);
        failures += st != TC_VERIFY_FAIL ||
                    (bad[i].gen == gen_shm_race && !strstr(rep.msg, "race"));
    }
    return failures;
}

static const char *specs[] = { "2x*", "3x2x*/cyclic", "4x*/random:11", NULL };

int main(void)
{
    counts c = { 0, 0, 0 };
    int rejected_wrongly = check_rejects();
    c.fail += rejected_wrongly;
    int big[] = { 300, 333, 511, 512, 513, 640, 777, 1000, 1023, 1024 };
    int nbig = (int)(sizeof big / sizeof big[0]);
    for (int idx = 0; idx < 256 + nbig; idx++) {
        int p = idx < 256 ? idx + 1 : big[idx - 256];
        tc_topo *flat = tc_topo_flat(p);
        if (!flat) { printf("out of memory\n"); return 1; }
        sweep_topo(flat, "flat", &c);
        tc_topo_free(flat);
        if (p > 64 && p % 7) continue;     /* the mapped topologies on a subset */
        for (int s = 0; specs[s]; s++) {
            char err[256];
            tc_topo *t = tc_topo_from_spec(specs[s], p, err, sizeof err);
            if (!t) continue;               /* e.g. 3x2x* needs >= 6 ranks */
            sweep_topo(t, specs[s], &c);
            tc_topo_free(t);
        }
    }
    printf("verifier: %ld declined (expected: neighbor_exchange at odd p)\n", c.declined);
    printf("%ld passed, %ld failed\n", c.pass, c.fail);
    return c.fail ? 1 : 0;
}
