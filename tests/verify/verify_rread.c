/* Cross-memory reads (RREAD, the single-copy allreduce): every copy=cma
 * instance of the catalog proven on one-node topologies of 1..24 ranks
 * (flat and several sockets, cyclic and random mappings, in place or not,
 * commutative or not, counts around the tiles and chunks), the entries that
 * serve several nodes (the hierarchical copy=cma) also on multi-node
 * topologies (block, cyclic, random, unequal nodes), and broken single-copy
 * schedules that the verifier must reject: a read before the owner
 * published, an owner overwriting what a peer reads, an owner that returns
 * while a peer may still read, a read of a message's landing place ordered
 * only by a signal of the round it lands in, a read from another node, and
 * real schedules with a step's flags taken out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/catalog.h"
#include "common/harness.h"
#include "topo/topo.h"
#include "verify/verify.h"
#include "verify/heap.h"
#include "verify/stride.h"

/* One case; an entry that needs a commutative operation must decline a
 * non-commutative one, saying so. */
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
    if (!commutative && (al->req & TC_REQ_COMMUTATIVE)) {
        CHECK(st == TC_VERIFY_DECLINED && strstr(rep.msg, "commutative"),
              "%s p=%d topo=%s n=%lld in_place=%d: a non-commutative operation not declined: %s", al->name,
              t->size, spec, (long long)n, in_place, rep.msg);
        return;
    }
    CHECK(st == TC_VERIFY_OK, "%s p=%d topo=%s n=%lld in_place=%d commutative=%d: %s", al->name, t->size,
          spec, (long long)n, in_place, commutative, rep.msg);
}

/* Unequal nodes for p ranks: ceil(p/2), 1, the rest ("3,1,2" for 6). */
static const char *unequal(int p, char *buf, size_t len)
{
    int a = (p + 1) / 2, rest = p - a - 1;
    if (p < 3) snprintf(buf, len, "%s", p == 2 ? "1,1" : "1");
    else if (rest > 0) snprintf(buf, len, "%d,1,%d", a, rest);
    else snprintf(buf, len, "%d,1", a);
    return buf;
}

static void sweep(void)
{
    /* one node; then, for the entries that serve several nodes, several
     * ("unequal" is made for each p) */
    static const char *specs[] = { "flat", "1x2x*", "1x3x*/cyclic", "1x4x*/random:3",
                                   "2x*", "2x2x*/cyclic", "3x*/random:5", "unequal" };
    static const int64_t counts[] = { 0, 1, 3, 255, 257, 2049, 16385, 70000 };
    int found = 0, several = 0;
    for (int i = 0; i < tc_catalog_variant_count(TOPOCOLL_ALLREDUCE); i++) {
        const tc_algo *al = tc_catalog_variant_at(TOPOCOLL_ALLREDUCE, i);
        if (!(al->req & TC_REQ_CMA)) continue;
        found++;
        int nodes = !(al->req & TC_REQ_ONE_NODE);
        several += nodes;
        for (int p = 1; p <= 24; p++)
            for (int k = 0; k < (nodes ? 8 : 4); k++) {
                char err[256], buf[32];
                const char *spec = strcmp(specs[k], "unequal") ? specs[k] : unequal(p, buf, sizeof buf);
                tc_topo *t = k == 0 ? tc_topo_flat(p) : tc_topo_from_spec(spec, p, err, sizeof err);
                if (!t) continue;
                for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
                    if ((p > 8 && counts[c] > 2049) || (p > 3 && counts[c] > 16385)) continue;   /* large counts on small p */
                    run(al, t, spec, counts[c], 0, 1);
                    run(al, t, spec, counts[c], 1, 1);
                    if (c % 3 == 1) run(al, t, spec, counts[c], 0, 0);
                }
                tc_topo_free(t);
            }
    }
    CHECK(found >= 2 && several >= 1, "the catalog lists %d single-copy allreduce entries, %d for several nodes",
          found, several);
    printf("%d single-copy allreduce entries, %d of them for several nodes\n", found, several);
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

/* ---- the catalog's single-copy schedules, broken on purpose ----
 * The real schedule of an entry, rank by rank, with one rank's waits moved
 * or dropped (early return: with the flags they match), or (no_sync) the
 * flags of one step taken out of every rank's schedule (the sync_round-th
 * round that raises or waits for a flag, on every rank): the verifier must
 * reject each (the unbroken one passes). */

enum { M_NONE, M_UNPUBLISHED, M_OVERWRITE, M_EARLY_RETURN, M_NO_SYNC };
static const tc_algo *victim;
static int victim_rank, mutation, sync_round;

/* Does round r of src raise or wait for a flag? */
static int has_flags(const tc_sched *src, int r)
{
    for (int i = tc_sched_round_begin(src, r); i < tc_sched_round_end(src, r); i++)
        if (src->ops[i].kind == TC_OP_SIGNAL || src->ops[i].kind == TC_OP_WAIT) return 1;
    return 0;
}

/* Is op i of src a WAIT that the mutation takes out of its place? */
static int moved(const tc_sched *src, int i, int first_read, int last_round_begin, const int *reads_from)
{
    const tc_op *op = &src->ops[i];
    if (op->kind != TC_OP_WAIT) return 0;
    if (mutation == M_UNPUBLISHED) return i < first_read;                 /* reads before the flags */
    if (mutation == M_OVERWRITE) return i < last_round_begin && !reads_from[op->peer];   /* no acks */
    return mutation == M_EARLY_RETURN && i >= last_round_begin;         /* returns at once */
}

/* The real schedule of rank a->rank (finished), or an error. */
static int real_schedule(tc_sched *src, const tc_args *a, const tc_topo *t)
{
    tc_sched_init(src);
    int rc = victim->generate(src, a, t);
    return rc ? rc : tc_sched_finish(src);
}

/* Early return: does the victim's last round wait on rank r (whose last
 * signal to the victim, the flag after its last read, is then dropped)? */
static int victim_waits_last(const tc_args *a, const tc_topo *t, int r)
{
    tc_args b = *a;
    b.rank = victim_rank;
    tc_sched v;
    int found = 0;
    if (real_schedule(&v, &b, t) == 0)
        for (int i = tc_sched_round_begin(&v, v.nrounds - 1); i < v.nops; i++)
            found |= v.ops[i].kind == TC_OP_WAIT && v.ops[i].peer == r;
    tc_sched_free(&v);
    return found;
}

static int gen_mutated(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    tc_sched src;
    int rc = real_schedule(&src, a, t);
    int *reads_from = calloc((size_t)a->size, sizeof *reads_from);
    if (rc || !reads_from) {
        tc_sched_free(&src);
        free(reads_from);
        return rc ? rc : 12;
    }
    s->tmp_like = src.tmp_like;
    tc_sched_need_tmp(s, src.tmp_count);
    tc_sched_need_shm(s, src.shm_count);
    int first_read = src.nops, last_begin = tc_sched_round_begin(&src, src.nrounds - 1);
    for (int i = src.nops - 1; i >= 0; i--)
        if (src.ops[i].kind == TC_OP_RREAD) {
            first_read = i;
            reads_from[src.ops[i].peer] = 1;
        }
    int mine = a->rank == victim_rank && mutation != M_NONE && mutation != M_NO_SYNC, drop = -1;
    if (mutation == M_EARLY_RETURN && !mine && victim_waits_last(a, t, a->rank))
        for (int i = 0; i < src.nops; i++)
            if (src.ops[i].kind == TC_OP_SIGNAL && src.ops[i].peer == victim_rank) drop = i;
    for (int r = 0, synced = 0; r < src.nrounds; r++) {
        int strip = mutation == M_NO_SYNC && has_flags(&src, r) && synced++ == sync_round;
        for (int i = tc_sched_round_begin(&src, r); i < tc_sched_round_end(&src, r); i++) {
            int flag = src.ops[i].kind == TC_OP_SIGNAL || src.ops[i].kind == TC_OP_WAIT;
            if ((!mine || !moved(&src, i, first_read, last_begin, reads_from)) && i != drop && !(strip && flag))
                tc_sched_push(s, src.ops[i].kind, src.ops[i].peer, src.ops[i].a, src.ops[i].b);
        }
        tc_sched_round(s);
    }
    for (int i = 0; mine && mutation != M_EARLY_RETURN && i < src.nops; i++)   /* the moved waits, last */
        if (moved(&src, i, first_read, last_begin, reads_from))
            tc_sched_push(s, TC_OP_WAIT, src.ops[i].peer, src.ops[i].a, src.ops[i].b);
    tc_sched_round(s);
    tc_sched_free(&src);
    free(reads_from);
    return 0;
}

static void check_mutated(const char *entry, int p, const char *spec, int rank, int mut, int in_place,
                          const char *want)
{
    victim = tc_catalog_find(TOPOCOLL_ALLREDUCE, entry);
    CHECK(victim != NULL, "entry %s", entry);
    if (!victim) return;
    victim_rank = rank;
    mutation = mut;
    tc_algo al = *victim;
    al.generate = gen_mutated;
    char err[256];
    tc_topo *t = spec ? tc_topo_from_spec(spec, p, err, sizeof err) : tc_topo_flat(p);
    CHECK(t != NULL, "topology %s", spec ? spec : "flat");
    if (!t) return;
    tc_args a;
    memset(&a, 0, sizeof a);
    a.coll = TOPOCOLL_ALLREDUCE;
    a.size = p;
    a.scount = a.rcount = 40;
    a.in_place = in_place;
    a.commutative = 1;
    a.node_shm = 1;
    a.cma = 1;
    tc_verify_report rep;
    tc_verify_status st = tc_verify(&al, t, &a, 1, 1, &rep);
    tc_topo_free(t);
    if (!want) {
        CHECK(st == TC_VERIFY_OK, "%s p=%d, rewritten unchanged: %s", entry, p, rep.msg);
        return;
    }
    printf("%s p=%d rank %d %-12s -> %s: %s\n", entry, p, rank,
           mut == M_UNPUBLISHED ? "unpublished" : mut == M_OVERWRITE ? "overwrite"
           : mut == M_EARLY_RETURN ? "early_return" : "no_sync",
           st == TC_VERIFY_FAIL ? "rejected" : "ACCEPTED (verifier bug)", rep.msg);
    CHECK(st == TC_VERIFY_FAIL && strstr(rep.msg, want), "%s p=%d rank %d mutation %d not rejected as expected (%s)",
          entry, p, rank, mut, rep.msg);
}

/* The hierarchical tiles and the hierarchical allreduce in single copy. */
static void check_new_rejects(void)
{
    /* tiles=hier on one node of two sockets (p = 7: ranks 0-3 and 4-6; 40
     * elements, one tile of 256: rank 0 holds socket 0's partial, rank 4
     * the result) */
    for (int ip = 0; ip < 2; ip++) {
        check_mutated("shm_tiled_hier_256_cma", 7, "1x2x*", 0, M_NONE, ip, NULL);
        check_mutated("shm_tiled_hier_256_cma", 7, "1x2x*", 0, M_UNPUBLISHED, ip, "without ordering after its");
        /* the result holder returns while the others read its tile */
        check_mutated("shm_tiled_hier_256_cma", 7, "1x2x*", 4, M_EARLY_RETURN, ip, "returns while");
        /* no barrier after the tree's level: rank 0 reads the result while
         * rank 4 still combines socket 0's partial into it (and overwrites
         * that partial, which rank 4 reads) */
        sync_round = 2;
        check_mutated("shm_tiled_hier_256_cma", 7, "1x2x*", 0, M_NO_SYNC, ip, "race on a cross-memory read");
    }
    check_mutated("shm_tiled_hier_2k_cma", 9, "1x3x*/cyclic", 0, M_NONE, 1, NULL);
    check_mutated("shm_tiled_hier_2k_cma", 9, "1x3x*/cyclic", 0, M_UNPUBLISHED, 1, "without ordering after its");
    /* the hierarchical allreduce on two nodes of 3 (leaders 0 and 3), on
     * unequal nodes (4, 1, 2) with two and four leaders */
    static const struct { const char *entry, *spec; int p; } h[] = {
        { "h1_cma_rd", "2x3", 6 }, { "h2_cma_rsa", "4,1,2", 7 }, { "h4_cma_ring", "4,1,2", 7 } };
    for (size_t e = 0; e < sizeof h / sizeof h[0]; e++)
        for (int ip = 0; ip < 2; ip++) {
            check_mutated(h[e].entry, h[e].p, h[e].spec, 0, M_NONE, ip, NULL);
            /* rank 0 leads segment 0 and reads its node's inputs */
            check_mutated(h[e].entry, h[e].p, h[e].spec, 0, M_UNPUBLISHED, ip, "without ordering after its");
            check_mutated(h[e].entry, h[e].p, h[e].spec, 0, M_EARLY_RETURN, ip, "returns while");
            /* no "segment final" flags: the node's ranks read their leaders'
             * receive buffers during the leaders' exchange */
            sync_round = 1;
            check_mutated(h[e].entry, h[e].p, h[e].spec, 0, M_NO_SYNC, ip, "race on a cross-memory read");
        }
}

static void check_family_rejects(void)
{
    static const char *const entries[] = { "shm_rb2_1s_cma", "shm_rb4_2s_cma", "shm_dissemination_cma" };
    for (int e = 0; e < 3; e++)
        for (int ip = 0; ip < 2; ip++) {
            const char *spec = e == 1 ? "1x2x*" : NULL;
            check_mutated(entries[e], 7, spec, 0, M_NONE, ip, NULL);
            /* rank 0 is a leaf of the trees and the dissemination's first reader */
            check_mutated(entries[e], 7, spec, 0, M_UNPUBLISHED, ip, "without ordering after its");
        }
    /* the trees' result holder (rank 6) and the dissemination's rank 0 (read
     * in the last round) return before their readers are done */
    check_mutated("shm_rb2_1s_cma", 7, NULL, 6, M_EARLY_RETURN, 0, "returns while");
    check_mutated("shm_rb4_2s_cma", 7, "1x2x*", 6, M_EARLY_RETURN, 1, "returns while");
    check_mutated("shm_dissemination_cma", 7, NULL, 0, M_EARLY_RETURN, 0, "returns while");
    /* the dissemination's rank 0 reuses a scratch half (p = 16: its third
     * partial overwrites its first) without the flags of that half's readers */
    check_mutated("shm_dissemination_cma", 16, NULL, 0, M_NONE, 0, NULL);
    check_mutated("shm_dissemination_cma", 16, NULL, 0, M_OVERWRITE, 0, "overwrites its tmp");
    check_new_rejects();
}

int main(void)
{
    check_rejects();
    check_family_rejects();
    sweep();
    return tc_test_summary();
}
