/* Cross-memory reads (RREAD, the single-copy allreduce): every copy=cma
 * instance of the catalog proven on one-node topologies of 1..24 ranks
 * (flat and several sockets, cyclic and random mappings, in place or not,
 * commutative or not, counts around the tiles and chunks), and broken
 * single-copy schedules that the verifier must reject: a read before the
 * owner published, an owner overwriting what a peer reads, an owner that
 * returns while a peer may still read, a read of a message's landing place
 * ordered only by a signal of the round it lands in, a read from another
 * node. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/catalog.h"
#include "common/harness.h"
#include "topo/topo.h"
#include "verify/verify.h"
#include "verify/heap.h"
#include "verify/stride.h"

static void run(const tc_algo *al, const tc_topo *t, const char *spec, int64_t n, int in_place, int commutative)
{
    if (sweep_skip()) return;   /* TOPOCOLL_VERIFY_STRIDE (the sanitizer stage) */
    tc_args a;
    memset(&a, 0, sizeof a);
    a.coll = TOPOCOLL_ALLREDUCE;
    a.size = t->size;
    a.scount = a.rcount = n;
    a.in_place = in_place;
    a.commutative = commutative;
    a.node_shm = 1;
    a.cma = 1;
    tc_verify_report rep;
    tc_verify_status st = tc_verify(al, t, &a, 1, 1, &rep);
    CHECK(st == TC_VERIFY_OK, "%s p=%d topo=%s n=%lld in_place=%d commutative=%d: %s", al->name, t->size,
          spec, (long long)n, in_place, commutative, rep.msg);
}

static void sweep(void)
{
    static const char *specs[] = { "flat", "1x2x*", "1x3x*/cyclic", "1x4x*/random:3", NULL };
    static const int64_t counts[] = { 0, 1, 3, 255, 257, 2049, 16385, 70000 };
    int found = 0;
    for (int i = 0; i < tc_catalog_count(TOPOCOLL_ALLREDUCE); i++) {
        const tc_algo *al = tc_catalog_at(TOPOCOLL_ALLREDUCE, i);
        if (!(al->req & TC_REQ_CMA)) continue;
        found++;
        for (int p = 1; p <= 24; p++)
            for (int k = 0; specs[k]; k++) {
                char err[256];
                tc_topo *t = k == 0 ? tc_topo_flat(p) : tc_topo_from_spec(specs[k], p, err, sizeof err);
                if (!t) continue;
                for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
                    if ((p > 8 && counts[c] > 2049) || (p > 3 && counts[c] > 16385)) continue;   /* large counts on small p */
                    run(al, t, specs[k], counts[c], 0, 1);
                    run(al, t, specs[k], counts[c], 1, 1);
                    if (c % 3 == 1) run(al, t, specs[k], counts[c], 0, 0);
                }
                tc_topo_free(t);
            }
    }
    CHECK(found >= 2, "the catalog lists %d single-copy allreduce entries", found);
    printf("%d single-copy allreduce entries\n", found);
}

/* ---- broken schedules (p = 3, n = 4: rank r's result = the sum, the
 * verifier's labels decide) -------------------------------------------------- */

/* Every rank reads every peer's whole input (at "round"), reduces in rank
 * order into RECV; the barriers are what the variants get wrong. */
static void read_all(tc_sched *s, const tc_args *a)
{
    int64_t n = a->scount;
    int last = a->size - 1;
    tc_sched_need_tmp(s, n);
    if (last == a->rank) tc_sched_copy(s, tc_reg(TC_BUF_SEND, 0, n), tc_reg(TC_BUF_RECV, 0, n));
    else tc_sched_rread(s, last, tc_reg(TC_BUF_SEND, 0, n), tc_reg(TC_BUF_RECV, 0, n));
    for (int r = last - 1; r >= 0; r--) {
        if (r == a->rank) {
            tc_sched_reduce(s, tc_reg(TC_BUF_SEND, 0, n), tc_reg(TC_BUF_RECV, 0, n));
            continue;
        }
        tc_sched_rread(s, r, tc_reg(TC_BUF_SEND, 0, n), tc_reg(TC_BUF_TMP, 0, n));
        tc_sched_reduce(s, tc_reg(TC_BUF_TMP, 0, n), tc_reg(TC_BUF_RECV, 0, n));
    }
    tc_sched_round(s);
}

static void barrier(tc_sched *s, const tc_args *a)
{
    for (int q = 0; q < a->size; q++)
        if (q != a->rank) tc_sched_signal(s, q);
    for (int q = 0; q < a->size; q++)
        if (q != a->rank) tc_sched_wait(s, q);
    tc_sched_round(s);
}

static int gen_good(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    barrier(s, a);
    read_all(s, a);
    barrier(s, a);
    return 0;
}

/* reads before anyone published (no first barrier) */
static int gen_unpublished(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    read_all(s, a);
    barrier(s, a);
    return 0;
}

/* returns while the others may still read (no last barrier) */
static int gen_early_return(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    barrier(s, a);
    read_all(s, a);
    return 0;
}

/* rank 0 overwrites its input (scribbles on SEND) while the others read it */
static int gen_overwrite(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    barrier(s, a);
    if (a->rank == 0) {
        tc_sched_need_tmp(s, a->scount);
        tc_sched_copy(s, tc_reg(TC_BUF_SEND, 0, a->scount), tc_reg(TC_BUF_TMP, 0, a->scount));
        tc_sched_copy(s, tc_reg(TC_BUF_TMP, 0, a->scount), tc_reg(TC_BUF_SEND, 0, a->scount));
        tc_sched_round(s);
    }
    read_all(s, a);
    barrier(s, a);
    return 0;
}

/* rank 1 sends its input to rank 0's RECV in the round where rank 0 signals
 * rank 2; rank 2 then reads that RECV: the message lands after the signal */
static int gen_landing(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int64_t n = a->scount;
    barrier(s, a);
    if (a->rank == 1) tc_sched_send(s, 0, tc_reg(TC_BUF_SEND, 0, n));
    if (a->rank == 0) {
        tc_sched_recv(s, 1, tc_reg(TC_BUF_RECV, 0, n));
        tc_sched_signal(s, 2);
    }
    if (a->rank == 2) tc_sched_wait(s, 0);
    tc_sched_round(s);
    if (a->rank == 2) tc_sched_rread(s, 0, tc_reg(TC_BUF_RECV, 0, n), tc_reg(TC_BUF_RECV, 0, n));
    tc_sched_round(s);
    barrier(s, a);
    return 0;
}

/* rank 0 reads rank 2, on another node (no signals: the read is the fault) */
static int gen_other_node(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    if (a->rank == 0) tc_sched_rread(s, 2, tc_reg(TC_BUF_SEND, 0, a->scount), tc_reg(TC_BUF_RECV, 0, a->scount));
    return 0;
}

static void check_rejects(void)
{
    static const struct {
        const char *name;
        int (*gen)(tc_sched *, const tc_args *, const tc_topo *);
        const char *spec;   /* NULL: flat (one node) */
        const char *want;   /* in the failure message; NULL: must pass */
    } cases[] = {
        { "good", gen_good, NULL, NULL },
        { "unpublished", gen_unpublished, NULL, "race on a cross-memory read" },
        { "early_return", gen_early_return, NULL, "returns while" },
        { "overwrite", gen_overwrite, NULL, "race on a cross-memory read" },
        { "landing", gen_landing, NULL, "race on a cross-memory read" },
        { "other_node", gen_other_node, "2,1", "from rank 2 on another node" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tc_algo al;
        memset(&al, 0, sizeof al);
        al.coll = TOPOCOLL_ALLREDUCE;
        al.name = cases[i].name;
        al.generate = cases[i].gen;
        char err[256];
        tc_topo *t = cases[i].spec ? tc_topo_from_spec(cases[i].spec, 3, err, sizeof err) : tc_topo_flat(3);
        CHECK(t != NULL, "topology %s", cases[i].spec ? cases[i].spec : "flat");
        if (!t) continue;
        tc_args a;
        memset(&a, 0, sizeof a);
        a.coll = TOPOCOLL_ALLREDUCE;
        a.size = 3;
        a.scount = a.rcount = 4;
        a.commutative = 1;
        tc_verify_report rep;
        tc_verify_status st = tc_verify(&al, t, &a, 1, 1, &rep);
        tc_topo_free(t);
        if (!cases[i].want) {
            CHECK(st == TC_VERIFY_OK, "single-copy schedule %s: %s", cases[i].name, rep.msg);
            continue;
        }
        printf("broken schedule %-13s -> %s: %s\n", cases[i].name,
               st == TC_VERIFY_FAIL ? "rejected" : "ACCEPTED (verifier bug)", rep.msg);
        CHECK(st == TC_VERIFY_FAIL && strstr(rep.msg, cases[i].want),
              "broken schedule %s not rejected as expected (%s)", cases[i].name, rep.msg);
    }
}

int main(void)
{
    check_rejects();
    sweep();
    return tc_test_summary();
}
