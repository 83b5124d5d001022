/* The inline lines (PUBLISH / COLLECT, sched.h): the "shm_inline" entries of
 * allreduce, allgather, bcast and reduce proven on one-node topologies of
 * 1..12 ranks (flat, sockets, cyclic mapping), in place or not, every root,
 * commutative or not, counts around a line (56 bytes) and unit sizes 1 and
 * 4; their schedules checked to be inline ones (a publication, collects, no
 * other node-shared memory).  Then broken inline schedules that the verifier
 * must reject: a collect from a rank that never publishes (a deadlock), a
 * collect of more than the peer published, two collects from one peer (the
 * executor's count of the peers read, on which the slots' reuse rests),
 * two publications, a publication and a collect in one round, slots of
 * different sizes, a fold out of rank order (non-commutative), and a
 * collect from another node. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/catalog.h"
#include "common/harness.h"
#include "topo/topo.h"
#include "verify/verify.h"

static const topocoll_coll colls[] = { TOPOCOLL_ALLREDUCE, TOPOCOLL_ALLGATHER, TOPOCOLL_BCAST, TOPOCOLL_REDUCE };

static tc_args args_of(topocoll_coll coll, int p, int64_t n, int root, int in_place, int commutative)
{
    tc_args a;
    memset(&a, 0, sizeof a);
    a.coll = coll;
    a.size = p;
    a.scount = a.rcount = n;
    a.root = root;
    a.in_place = in_place;
    a.commutative = commutative;
    a.node_shm = 1;
    return a;
}

/* Rank r's schedule has a publication or collects, and no SHM window or flags. */
static int inline_only(const tc_algo *al, const tc_topo *t, const tc_args *a0, int r)
{
    tc_sched s;
    tc_args a = *a0;
    a.rank = r;
    tc_sched_init(&s);
    int ok = tc_algo_generate(al, &s, &a, t) == 0 && tc_sched_finish(&s) == 0 && s.uses_inline && !s.uses_shm &&
             s.inline_count == (a.coll == TOPOCOLL_ALLGATHER ? a.rcount : a.coll == TOPOCOLL_BCAST ? a.rcount : a.scount);
    tc_sched_free(&s);
    return ok;
}

static void run(const tc_algo *al, const tc_topo *t, const char *spec, int64_t n, int unit, int root, int in_place,
                int commutative)
{
    tc_args a = args_of(al->coll, t->size, n, root, in_place, commutative);
    tc_verify_report rep;
    tc_verify_status st = tc_verify(al, t, &a, unit, unit, &rep);
    CHECK(st == TC_VERIFY_OK, "%s/%s p=%d topo=%s n=%lld unit=%d root=%d in_place=%d commutative=%d: %s",
          tc_coll_name(al->coll), al->name, t->size, spec, (long long)n, unit, root, in_place, commutative,
          rep.msg);
    if (t->size > 1 && n > 0)
        CHECK(inline_only(al, t, &a, t->size - 1), "%s/%s p=%d n=%lld: not an inline schedule",
              tc_coll_name(al->coll), al->name, t->size, (long long)n);
}

static void sweep(void)
{
    static const char *specs[] = { "flat", "1x2x*", "1x3x*/cyclic" };
    static const int64_t counts[] = { 0, 1, 13, 14, 15, 56, 57, 300 };
    for (int c = 0; c < 4; c++) {
        const tc_algo *al = tc_catalog_find(colls[c], "shm_inline");
        CHECK(al && al->generate, "%s shm_inline has a schedule", tc_coll_name(colls[c]));
        if (!al || !al->generate) continue;
        int rooted = colls[c] == TOPOCOLL_BCAST || colls[c] == TOPOCOLL_REDUCE;
        int reduction = colls[c] == TOPOCOLL_ALLREDUCE || colls[c] == TOPOCOLL_REDUCE;
        for (int p = 1; p <= 12; p++)
            for (int k = 0; k < 3; k++) {
                char err[256];
                tc_topo *t = k == 0 ? tc_topo_flat(p) : tc_topo_from_spec(specs[k], p, err, sizeof err);
                if (!t) continue;
                for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
                    for (int root = 0; root < (rooted ? p : 1); root++)
                        for (int unit = 1; unit <= 4; unit += 3)
                            for (int ip = 0; ip < (colls[c] == TOPOCOLL_BCAST ? 1 : 2); ip++) {
                                run(al, t, specs[k], counts[i], unit, root, ip, 1);
                                if (reduction) run(al, t, specs[k], counts[i], unit, root, ip, 0);
                            }
                tc_topo_free(t);
            }
    }
}

/* ---- broken schedules (allreduce, p = 3, n = 4 unless said) ------------------ */

/* The fold of algo/inline_fold.h with its faults: every rank publishes,
 * then reads every slot (in rank order from p-1 down, or up with `up`). */
enum { F_NONE, F_NO_PUBLISH_1, F_TWICE, F_SAME_ROUND, F_SHORT_PUBLISH_2, F_TWO_PUBLISH, F_SLOT_SIZE, F_UP,
       F_OTHER_NODE };
static int fault;

static int gen_fold(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int64_t n = a->scount;
    int me = a->rank, p = a->size;
    tc_sched_need_inline(s, fault == F_SLOT_SIZE && me == 1 ? n + 1 : n);
    tc_sched_need_tmp(s, n);
    if (!(fault == F_NO_PUBLISH_1 && me == 1)) {
        int64_t m = fault == F_SHORT_PUBLISH_2 && me == 2 ? n - 1 : n;
        tc_sched_publish(s, tc_reg(TC_BUF_SEND, 0, m), m);
        if (fault == F_TWO_PUBLISH) tc_sched_publish(s, tc_reg(TC_BUF_SEND, 0, m), m);
    }
    if (fault != F_SAME_ROUND) tc_sched_round(s);
    for (int i = 0; i < p; i++) {
        int r = fault == F_UP ? i : p - 1 - i, first = i == 0;
        tc_region dst = first ? tc_reg(TC_BUF_RECV, 0, n) : tc_reg(TC_BUF_TMP, 0, n);
        if (r == me) tc_sched_copy(s, tc_reg(TC_BUF_SEND, 0, n), dst);
        else tc_sched_collect(s, fault == F_TWICE && r == 0 && me != 1 ? 1 : r, n, dst);
        if (!first) tc_sched_reduce(s, dst, tc_reg(TC_BUF_RECV, 0, n));
    }
    tc_sched_round(s);
    return 0;
}

static void reject(const char *what, int f, const char *spec, int commutative, const char *expect)
{
    char err[256];
    tc_algo al;
    memset(&al, 0, sizeof al);
    al.coll = TOPOCOLL_ALLREDUCE;
    al.name = what;
    al.generate = gen_fold;
    fault = f;
    tc_topo *t = spec ? tc_topo_from_spec(spec, 3, err, sizeof err) : tc_topo_flat(3);
    CHECK(t != NULL, "topology %s", spec ? spec : "flat");
    if (!t) return;
    tc_args a = args_of(TOPOCOLL_ALLREDUCE, 3, 4, 0, 0, commutative);
    tc_verify_report rep;
    tc_verify_status st = tc_verify(&al, t, &a, 1, 1, &rep);
    tc_topo_free(t);
    if (!expect) {
        CHECK(st == TC_VERIFY_OK, "inline schedule %s: %s", what, rep.msg);
        return;
    }
    printf("broken inline schedule %-14s -> %s: %s\n", what, st == TC_VERIFY_FAIL ? "rejected" : "ACCEPTED", rep.msg);
    CHECK(st == TC_VERIFY_FAIL && strstr(rep.msg, expect), "broken inline schedule %s not rejected as \"%s\" (%s)",
          what, expect, rep.msg);
}

static void check_rejects(void)
{
    reject("good", F_NONE, NULL, 0, NULL);
    reject("good_commut", F_UP, NULL, 1, NULL);   /* any order for a commutative operation */
    reject("no_publish", F_NO_PUBLISH_1, NULL, 1, "never publishes");
    reject("short_publish", F_SHORT_PUBLISH_2, NULL, 1, "did not publish in this call");
    reject("collect_twice", F_TWICE, NULL, 1, "collects from a rank twice");
    reject("publish_twice", F_TWO_PUBLISH, NULL, 1, "publishes twice");
    reject("same_round", F_SAME_ROUND, NULL, 1, "publishes and collects in one round");
    reject("slot_sizes", F_SLOT_SIZE, NULL, 1, "inline slots of");
    reject("out_of_order", F_UP, NULL, 0, "not in rank order");
    reject("other_node", F_NONE, "3x*", 1, "not on its node");
}

int main(void)
{
    check_rejects();
    sweep();
    return tc_test_summary();
}
