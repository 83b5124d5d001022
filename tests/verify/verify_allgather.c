/* Verifier sweep of every allgather in the catalog (every instance of
 * every family, see sweep.h for the sampling of large families): p = 1..256
 * and several larger p up to 1024 on flat and mapped topologies; many small
 * topologies with unequal nodes and sockets and block / cyclic / random
 * mappings; three large mapped topologies up to 1024 ranks; in place and
 * not, with equal and different send/receive types.  Each case's verdict is
 * checked against the entry's declared domain (sweep.h).  Also: broken
 * schedules the verifier must reject.  No MPI.  Ends with "N passed, M failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verify/sweep.h"

static tc_args ag_args(int64_t scount, int64_t rcount, int in_place)
{
    tc_args a;
    memset(&a, 0, sizeof a);
    a.scount = scount;
    a.rcount = rcount;
    a.in_place = in_place;
    return a;
}

/* The cases of one point of the p sweep. */
static void cases_p(const tc_algo *al, const tc_topo *t, const char *tname)
{
    for (int ip = 0; ip < 2; ip++) {
        sweep_case(al, t, tname, ag_args(1, 1, ip), 1, 1);
        if (t->size <= 64) {
            sweep_case(al, t, tname, ag_args(3, 3, ip), 1, 1);
            if (!ip) sweep_case(al, t, tname, ag_args(1, 3, 0), 3, 1);   /* 1 x (3 ints) -> 3 ints */
        }
    }
}

static long point;

static void sweep_topo(const tc_topo *t, const char *tname)
{
    point++;
    for (int i = 0; i < tc_catalog_variant_count(TOPOCOLL_ALLGATHER); i++) {
        const tc_algo *al = tc_catalog_variant_at(TOPOCOLL_ALLGATHER, i);
        if (al->generate && sweep_runs(al, point)) cases_p(al, t, tname);
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

/* like gen_hazard, but the send that conflicts with the receive is not the
 * span just before it in buffer order (a wide send, then a narrow one) */
static int gen_hazard_far(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank, R = (r + 1) % p, L = (r + p - 1) % p;
    tc_sched_copy(s, own(a), blk(a, r, 1));
    tc_sched_round(s);
    tc_sched_send(s, R, blk(a, 0, p));
    tc_sched_send(s, L, blk(a, 0, 1));
    tc_sched_recv(s, L, blk(a, p - 1, 1));
    return 0;
}

/* rank 0 writes node-shared memory and signals ranks 1..p-1, which read it;
 * rank 1 then tells rank 0 (ordering its read), and rank 0 overwrites the
 * memory: rank 2's read is not ordered before that (a write-after-read race).
 * At p 3 the reads fit the verifier's inline record, from p 4 on they spill. */
static int gen_shm_overwrite(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank;
    tc_sched_need_shm(s, a->rcount);
    if (r == 0) {
        tc_sched_copy(s, own(a), tc_reg(TC_BUF_SHM, 0, a->rcount));
        for (int j = 1; j < p; j++) tc_sched_signal(s, j);
        tc_sched_round(s);
        tc_sched_recv(s, 1, blk(a, 1, 1));
        tc_sched_round(s);
        tc_sched_copy(s, own(a), tc_reg(TC_BUF_SHM, 0, a->rcount));
        return 0;
    }
    tc_sched_wait(s, 0);
    tc_sched_round(s);
    tc_sched_copy(s, tc_reg(TC_BUF_SHM, 0, a->rcount), blk(a, 0, 1));
    if (r == 1) {
        tc_sched_round(s);
        tc_sched_send(s, 0, own(a));
    }
    return 0;
}

static void check_rejects(void)
{
    static const struct { const char *name; int (*gen)(tc_sched *, const tc_args *, const tc_topo *); } bad[] = {
        { "wrong_block", gen_wrong_block }, { "deadlock", gen_deadlock },
        { "size_mismatch", gen_size_mismatch }, { "hazard", gen_hazard },
        { "incomplete", gen_incomplete }, { "shm_race", gen_shm_race },
        { "hazard_far", gen_hazard_far }, { "shm_overwrite", gen_shm_overwrite },
        { "shm_overwrite", gen_shm_overwrite },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tc_algo al;
        memset(&al, 0, sizeof al);
        al.coll = TOPOCOLL_ALLGATHER;
        al.name = bad[i].name;
        al.generate = bad[i].gen;
        int p = bad[i].gen == gen_shm_race || (bad[i].gen == gen_shm_overwrite && i % 2) ? 3 : 4;
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
        CHECK(st == TC_VERIFY_FAIL && (bad[i].gen != gen_shm_race || strstr(rep.msg, "race")) &&
              (bad[i].gen != gen_shm_overwrite || strstr(rep.msg, "overwrites shm unit 0 that rank 2 reads")) &&
              (bad[i].gen != gen_hazard_far || strstr(rep.msg, "hazard")),
              "broken schedule %s not rejected", bad[i].name);
    }
}

/* ---- the streamed distribution of the shared-memory hierarchical entries ----
 * h1_shm_rd_shm on 4 nodes of 2: the leader copies blocks out inside the
 * rounds of its exchange (which post its messages), the member waits once
 * per step (its group, then each of the 2 exchange rounds) and copies the
 * first blocks before the exchange has ended.  The verifier above proves the
 * schedule right; this checks that it streams. */
static void count_ops(const tc_sched *s, int *rounds_with_comm_and_copy, int *waits, int *copy_rounds)
{
    *rounds_with_comm_and_copy = *waits = *copy_rounds = 0;
    for (int r = 0; r < s->nrounds; r++) {
        int comm = 0, copy = 0;
        for (int o = tc_sched_round_begin(s, r); o < tc_sched_round_end(s, r); o++) {
            int k = s->ops[o].kind;
            comm |= k == TC_OP_SEND || k == TC_OP_RECV;
            copy |= k == TC_OP_COPY && s->ops[o].b.buf == TC_BUF_RECV;
            *waits += k == TC_OP_WAIT;
        }
        *rounds_with_comm_and_copy += comm && copy;
        *copy_rounds += copy;
    }
}

static void check_streaming(void)
{
    char err[256];
    tc_topo *t = tc_topo_from_spec("4x2", 8, err, sizeof err);
    const tc_algo *al = tc_catalog_find(TOPOCOLL_ALLGATHER, "h1_shm_rd_shm");
    CHECK(t && al, "4x2 topology and h1_shm_rd_shm (%s)", t ? "" : err);
    if (!t || !al) {
        tc_topo_free(t);
        return;
    }
    int overlap[2], waits[2], copies[2];
    for (int r = 0; r < 2; r++) {   /* rank 0 leads node 0, rank 1 is its member */
        tc_args a = ag_args(4, 4, 0);
        a.coll = TOPOCOLL_ALLGATHER;
        a.size = 8;
        a.rank = r;
        a.node_shm = 1;
        tc_sched s;
        tc_sched_init(&s);
        int rc = tc_algo_generate(al, &s, &a, t);
        if (rc == 0) rc = tc_sched_finish(&s);
        CHECK(rc == 0, "rank %d's schedule", r);
        count_ops(&s, &overlap[r], &waits[r], &copies[r]);
        tc_sched_free(&s);
    }
    CHECK(overlap[0] == 2, "the leader copies out in both rounds of its exchange (%d)", overlap[0]);
    CHECK(waits[1] == 3 && copies[1] == 3,
          "the member waits for 3 steps and copies in 3 rounds (%d waits, %d rounds)", waits[1], copies[1]);
    tc_topo_free(t);
}

static const char *specs[] = { "2x*", "3x2x*/cyclic", "4x*/random:11", NULL };

static void sweep_p(void)
{
    int big[] = { 300, 333, 511, 512, 513, 640, 777, 1000, 1023, 1024 };
    int nbig = (int)(sizeof big / sizeof big[0]);
    for (int idx = 0; idx < 256 + nbig; idx++) {
        int p = idx < 256 ? idx + 1 : big[idx - 256];
        tc_topo *flat = tc_topo_flat(p);
        CHECK(flat != NULL, "flat topology of %d ranks", p);
        if (!flat) continue;
        sweep_topo(flat, "flat");
        tc_topo_free(flat);
        if (p > 64 && p % 7) continue;     /* the mapped topologies on a subset */
        for (int s = 0; specs[s]; s++) {
            char err[256];
            tc_topo *t = tc_topo_from_spec(specs[s], p, err, sizeof err);
            if (!t) continue;               /* e.g. 3x2x* needs >= 6 ranks */
            sweep_topo(t, specs[s]);
            tc_topo_free(t);
        }
    }
}

/* Small topologies (unequal nodes and sockets, mappings): every instance. */
static const char *small_specs[] = {
    "1", "1,1", "3,1,4", "3,1,4/cyclic", "2+1,1", "2+1,1,3+1/random:5", "1+3,2+2/cyclic",
    "2x2x2", "2x2x2/cyclic", "2x2x2/random:9", "3x2x3/cyclic", "4x2x*/random:1",
    "5,1,2,7,3/random:4", "2x4x3", "3x1x5/cyclic", "7+1,2,1+1+1/random:2", NULL
};

/* The smallest size a fixed spec describes (13 for a spec with '*'). */
static int spec_size(const char *spec)
{
    char err[256];
    if (strchr(spec, '*')) return 13;
    for (int p = 1; p <= 64; p++) {
        tc_topo *t = tc_topo_from_spec(spec, p, err, sizeof err);
        if (t) { tc_topo_free(t); return p; }
    }
    return 0;
}

static void sweep_small(void)
{
    for (int s = 0; small_specs[s]; s++) {
        char err[256];
        tc_topo *t = tc_topo_from_spec(small_specs[s], spec_size(small_specs[s]), err, sizeof err);
        CHECK(t != NULL, "spec %s: %s", small_specs[s], t ? "" : err);
        if (!t) continue;
        for (int i = 0; i < tc_catalog_variant_count(TOPOCOLL_ALLGATHER); i++) {
            const tc_algo *al = tc_catalog_variant_at(TOPOCOLL_ALLGATHER, i);
            if (!al->generate) continue;
            for (int ip = 0; ip < 2; ip++) sweep_case(al, t, small_specs[s], ag_args(2, 2, ip), 1, 1);
            sweep_case(al, t, small_specs[s], ag_args(1, 3, 0), 3, 1);
            tc_args a = ag_args(2, 2, 0);    /* without node-shared memory: the domain alone */
            domain_case(al, t, a);
            a.node_shm = 1;
            domain_case(al, t, a);
        }
        tc_topo_free(t);
    }
}

/* Large mapped topologies: a seventh of a large family's instances each. */
static void sweep_large(void)
{
    static const char *large_specs[] = { "16x2x*/cyclic", "33x2x*/random:3", "64x2x8", NULL };
    static const int large_p[] = { 256, 512, 1024 };
    for (int s = 0; large_specs[s]; s++) {
        char err[256];
        tc_topo *t = tc_topo_from_spec(large_specs[s], large_p[s], err, sizeof err);
        CHECK(t != NULL, "spec %s: %s", large_specs[s], t ? "" : err);
        if (!t) continue;
        for (int i = 0; i < tc_catalog_variant_count(TOPOCOLL_ALLGATHER); i++) {
            const tc_algo *al = tc_catalog_variant_at(TOPOCOLL_ALLGATHER, i);
            if (al->generate && sweep_sample(al, s, 7))
                sweep_case(al, t, large_specs[s], ag_args(1, 1, s == 1), 1, 1);
        }
        tc_topo_free(t);
    }
}

int main(void)
{
    check_rejects();
    check_streaming();
    sweep_p();
    sweep_small();
    sweep_large();
    int n = 0;
    for (int i = 0; i < tc_catalog_variant_count(TOPOCOLL_ALLGATHER); i++) n += tc_catalog_variant_at(TOPOCOLL_ALLGATHER, i)->generate != NULL;
    printf("allgather: %d instances with a schedule; %ld cases declined as their domains say\n", n,
           sweep_stat.declined);
    return tc_test_summary();
}
