/* Verifier sweep of the nonblocking forms (tc_verify_nonblocking): for
 * every collective of the list, every catalog entry with a schedule (every
 * family instance) on p = 1..17, 32 and 64 ranks, flat, two nodes, unequal
 * nodes and a cyclic mapping, two small cases each (1 and 3 elements per
 * block, roots varying).  Per
 * point, the entries whose schedules can run nonblocking at every rank are
 * shuffled (fixed seed) and verified in sets of 2, 3 and 4 operations
 * outstanding at once (mixed collectives), each set under round-robin,
 * adversarial and random interleavings.  Prints per collective how many
 * entries have a nonblocking form, and which do not, with the reason.
 * First, broken cases must be rejected: two operations whose messages
 * cross-match on one shared tag (the wrong data shows; with different
 * sizes, the mismatched message); two operations sharing one scratch
 * buffer; a barrier that is not one; a schedule that deadlocks on its own;
 * an entry whose schedule cannot run nonblocking.
 * Then the same sweep (p = 2..9 and 16) with node-shared memory of each
 * operation's own (tc_verify_nbopts.areas), where the schedules with
 * node-shared buffers and signals run too.
 * TOPOCOLL_VERIFY_STRIDE=k verifies one set in k.  No MPI.
 * Ends with "N passed, M failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/catalog.h"
#include "coll/desc.h"
#include "common/harness.h"
#include "pattern/pattern.h"
#include "topo/topo.h"
#include "verify/verify.h"
#include "verify/heap.h"
#include "verify/stride.h"
#include "topo_specs.h"

#define MAXSET 4
#define VARIANTS 2     /* cases per entry and point: count 1 and 3, roots varying */

/* One operation's arguments and the storage of its counts. */
typedef struct ncase {
    tc_verify_nbop op;
    int64_t *mem;      /* counts and displacements */
    tc_vcounts *v;     /* [p] */
} ncase;

/* What the sweep saw of one entry. */
typedef struct estat {
    const tc_algo *al;
    long nb, no, declined;
    char why[160];     /* the first reason it had no nonblocking form */
} estat;

static estat *stats;
static int nstats;
static long nsets, nops_checked, ninterleavings;
/* The sweep with node-shared memory of each operation's own
 * (tc_verify_nbopts.areas): the persistent requests' and the ring's. */
static int areas;
static uint64_t rng = 0x2545F4914F6CDD1Dull;

static estat *stat_of(const tc_algo *al)
{
    for (int i = 0; i < nstats; i++)
        if (stats[i].al == al) return &stats[i];
    estat *n = realloc(stats, (size_t)(nstats + 1) * sizeof *n);
    if (!n) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    stats = n;
    memset(&stats[nstats], 0, sizeof stats[nstats]);
    stats[nstats].al = al;
    return &stats[nstats++];
}

/* Small arguments for al at p ranks; variant varies the count and root. */
static int make_case(ncase *c, const tc_algo *al, int p, int variant)
{
    const tc_coll_desc *d = tc_coll_desc_of(al->coll);
    int64_t n = variant % 2 ? 3 : 1;
    int roots[3] = { 0, p - 1, p / 2 };
    memset(c, 0, sizeof *c);
    c->op.al = al;
    c->op.u_send = c->op.u_recv = 1;
    tc_args *a = &c->op.proto;
    a->coll = al->coll;
    a->size = p;
    a->root = d->rooted ? roots[variant % 3] : 0;
    a->commutative = 1;
    a->scount = a->rcount = d->synchronizes ? 0 : n;
    if (!d->vcounts) return 0;
    if (al->coll == TOPOCOLL_ALLTOALLW) n = 1;   /* one block per peer */
    c->mem = malloc(2 * (size_t)p * sizeof *c->mem);
    c->v = malloc((size_t)p * sizeof *c->v);
    if (!c->mem || !c->v) return -1;
    int64_t *cnt = c->mem, *dis = c->mem + p;
    for (int j = 0; j < p; j++) {
        cnt[j] = n;
        dis[j] = (int64_t)j * n;
    }
    for (int r = 0; r < p; r++) {
        if (d->vblock || d->vsplit || d->vroot == TC_VROOT_GATHER) c->v[r] = (tc_vcounts){ NULL, NULL, cnt, dis };
        else if (d->vroot == TC_VROOT_SCATTER) c->v[r] = (tc_vcounts){ cnt, dis, NULL, NULL };
        else c->v[r] = (tc_vcounts){ cnt, dis, cnt, dis };
    }
    a->scount = a->rcount = n;
    if (d->vsplit) a->scount = (int64_t)p * n;
    c->op.vall = c->v;
    return 0;
}

static void free_case(ncase *c)
{
    free(c->mem);
    free(c->v);
}

/* One set of operations at once; must be proven. */
static void check_set(const ncase *const *set, int k, const tc_topo *t, const char *spec)
{
    if (sweep_skip()) return;
    tc_verify_nbop ops[MAXSET];
    char names[512];
    size_t at = 0;
    names[0] = 0;
    for (int j = 0; j < k; j++) {
        ops[j] = set[j]->op;
        at += (size_t)snprintf(names + at, sizeof names - at, "%s%s/%s", j ? " + " : "",
                               tc_coll_name(ops[j].al->coll), ops[j].al->name);
        if (at >= sizeof names) at = sizeof names - 1;
    }
    tc_verify_nbopts o = { .seed = tc_test_rand(&rng), .nrandom = 2, .shared_tag = 0, .areas = areas };
    tc_verify_report rep;
    tc_verify_status st = tc_verify_nonblocking(ops, k, t, &o, &rep);
    CHECK(st == TC_VERIFY_OK, "p=%d topo=%s {%s}: %s", t->size, spec, names, rep.msg);
    nsets++;
    nops_checked += k;
    ninterleavings += rep.interleavings;
}

static long point;

/* Case `variant` of al into *k; 1 when its schedules can run nonblocking
 * (k is kept), else 0 (k freed, the reason counted). */
static int collect(const tc_algo *al, const tc_topo *t, const char *spec, int variant, ncase *k)
{
    if (make_case(k, al, t->size, variant)) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    tc_verify_report rep;
    const char *why = tc_verify_nonblocking_why(al, t, &k->op.proto, k->op.vall, 1, 1, areas, &rep);
    estat *s = stat_of(al);
    if (!why) {
        s->nb++;
        return 1;
    }
    CHECK(strncmp(why, "fails on its own", 16) != 0, "%s/%s p=%d topo=%s: %s", tc_coll_name(al->coll), al->name,
          t->size, spec, why);
    if (strncmp(why, "declined", 8) == 0) s->declined++;
    else if (s->no++ == 0) snprintf(s->why, sizeof s->why, "%s", why);
    free_case(k);
    return 0;
}

static void sweep_topo(const tc_topo *t, const char *spec)
{
    int n = 0, cap = 0;
    ncase *pool = NULL;
    point++;
    for (int c = 0; c < TOPOCOLL_NCOLL; c++)
        for (int i = 0; i < tc_catalog_variant_count((topocoll_coll)c); i++) {
            const tc_algo *al = tc_catalog_variant_at((topocoll_coll)c, i);
            for (int var = 0; var < VARIANTS && al->generate; var++) {
                if (n == cap) {
                    cap = cap ? 2 * cap : 64;
                    ncase *np = realloc(pool, (size_t)cap * sizeof *np);
                    if (!np) {
                        fprintf(stderr, "out of memory\n");
                        exit(2);
                    }
                    pool = np;
                }
                n += collect(al, t, spec, (int)(point + i + var), &pool[n]);
            }
        }
    /* shuffle, then sets of 2, 3, 4, 2, ... (the last set takes what is left) */
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(tc_test_rand(&rng) % (unsigned)(i + 1));
        ncase x = pool[i];
        pool[i] = pool[j];
        pool[j] = x;
    }
    const ncase *set[MAXSET];
    for (int i = 0, size = 2; i < n; size = size == MAXSET ? 2 : size + 1) {
        int k = n - i < size ? n - i : size;
        for (int j = 0; j < k; j++) set[j] = &pool[i + j];
        if (k == 1 && i >= 2) {   /* one left over: with the first two */
            set[1] = &pool[0];
            set[2] = &pool[1];
            k = 3;
        }
        check_set(set, k, t, spec);
        i += size;
    }
    for (int i = 0; i < n; i++) free_case(&pool[i]);
    free(pool);
}

/* Unequal nodes: 3,1,4,1,5,9,... cut to p. */
static void node_list(int p, char *out, size_t len) { unequal_nodes_spec(p, 0, out, len); }

static void sweep_spec(const char *spec, int p) { visit_spec(spec, p, sweep_topo); }

static void sweep_p(int p)
{
    char spec[512];
    tc_topo *flat = tc_topo_flat(p);
    if (flat) {
        sweep_topo(flat, "flat");
        tc_topo_free(flat);
    }
    if (p >= 2) sweep_spec("2x*", p);
    node_list(p, spec, sizeof spec);
    if (p >= 3) sweep_spec(spec, p);
    if (p >= 3) sweep_spec("3x*/cyclic", p);
}

static void print_stats(void)
{
    for (int c = 0; c < TOPOCOLL_NCOLL; c++) {
        int total = 0, all = 0, some = 0;
        for (int i = 0; i < nstats; i++) {
            const estat *s = &stats[i];
            if (s->al->coll != (topocoll_coll)c) continue;
            total++;
            all += s->nb && !s->no;
            some += s->nb && s->no;
        }
        printf("%s: %d entries swept, %d with a nonblocking form%s wherever they accept, %d in some cases, %d never\n",
               tc_coll_name((topocoll_coll)c), total, all, areas ? " on node-shared memory of their own" : "", some,
               total - all - some);
        for (int i = 0; i < nstats; i++) {
            const estat *s = &stats[i];
            if (s->al->coll != (topocoll_coll)c || !s->no) continue;
            printf("  %s: no nonblocking form in %ld of %ld cases: %s\n", s->al->name, s->no, s->no + s->nb, s->why);
        }
    }
}

/* ---- broken cases -------------------------------------------------------- */

/* Allgather around the ring: every round sends the block received last. */
static int ring(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank;
    int64_t c = a->rcount;
    tc_sched_copy(s, tc_reg(TC_BUF_SEND, 0, c), tc_reg(TC_BUF_RECV, (int64_t)r * c, c));
    tc_sched_round(s);
    for (int k = 0; k < p - 1; k++) {
        int sb = tc_wrap(r - k, p), rb = tc_wrap(r - k - 1, p);
        tc_sched_send(s, tc_wrap(r + 1, p), tc_reg(TC_BUF_RECV, (int64_t)sb * c, c));
        tc_sched_recv(s, tc_wrap(r - 1, p), tc_reg(TC_BUF_RECV, (int64_t)rb * c, c));
        tc_sched_round(s);
    }
    return 0;
}

/* Every rank receives from its left before it sends to its right: a cycle
 * of waits, on its own. */
static int cycle(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank;
    int64_t c = a->rcount;
    tc_sched_copy(s, tc_reg(TC_BUF_SEND, 0, c), tc_reg(TC_BUF_RECV, (int64_t)r * c, c));
    tc_sched_round(s);
    for (int k = 0; k < p - 1; k++) {
        tc_sched_recv(s, tc_wrap(r - 1, p), tc_reg(TC_BUF_RECV, (int64_t)tc_wrap(r - k - 1, p) * c, c));
        tc_sched_round(s);
        tc_sched_send(s, tc_wrap(r + 1, p), tc_reg(TC_BUF_RECV, (int64_t)tc_wrap(r - k, p) * c, c));
        tc_sched_round(s);
    }
    return 0;
}

/* The ring, each block received into scratch first and copied to its
 * place in the next round. */
static int staged(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank;
    int64_t c = a->rcount;
    tc_sched_need_tmp(s, c);
    tc_sched_copy(s, tc_reg(TC_BUF_SEND, 0, c), tc_reg(TC_BUF_RECV, (int64_t)r * c, c));
    tc_sched_round(s);
    for (int k = 0; k < p - 1; k++) {
        tc_sched_send(s, tc_wrap(r + 1, p), tc_reg(TC_BUF_RECV, (int64_t)tc_wrap(r - k, p) * c, c));
        tc_sched_recv(s, tc_wrap(r - 1, p), tc_reg(TC_BUF_TMP, 0, c));
        tc_sched_round(s);
        tc_sched_copy(s, tc_reg(TC_BUF_TMP, 0, c), tc_reg(TC_BUF_RECV, (int64_t)tc_wrap(r - k - 1, p) * c, c));
        tc_sched_round(s);
    }
    return 0;
}

/* Not a barrier: a chain of zero-byte messages from rank 0 to rank p-1;
 * rank 0 leaves before the others enter. */
static int chain(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank;
    if (r > 0) tc_sched_recv_sync(s, r - 1);
    tc_sched_round(s);
    if (r < p - 1) tc_sched_send_sync(s, r + 1);
    tc_sched_round(s);
    return 0;
}

static tc_verify_nbop ag_op(const tc_algo *al, int p, int64_t count)
{
    tc_verify_nbop o;
    memset(&o, 0, sizeof o);
    o.al = al;
    o.proto.coll = TOPOCOLL_ALLGATHER;
    o.proto.size = p;
    o.proto.scount = o.proto.rcount = count;
    o.proto.commutative = 1;
    o.u_send = o.u_recv = 1;
    return o;
}

static void check_broken(void)
{
    static const tc_algo ring_al = { .coll = TOPOCOLL_ALLGATHER, .name = "ring_test", .generate = ring };
    static const tc_algo cycle_al = { .coll = TOPOCOLL_ALLGATHER, .name = "cycle_test", .generate = cycle };
    static const tc_algo staged_al = { .coll = TOPOCOLL_ALLGATHER, .name = "staged_test", .generate = staged };
    static const tc_algo chain_al = { .coll = TOPOCOLL_BARRIER, .name = "chain_test", .generate = chain };
    tc_topo *t = tc_topo_flat(6);
    char err[128];
    tc_topo *t2 = tc_topo_from_spec("2x*", 8, err, sizeof err);
    if (!t || !t2) {
        CHECK(0, "topologies for the broken cases");
        tc_topo_free(t);
        tc_topo_free(t2);
        return;
    }
    tc_verify_report rep;
    tc_verify_nbopts o = { .seed = 7, .nrandom = 4, .shared_tag = 0 };

    /* two rings on their own tags: proven */
    tc_verify_nbop two[3] = { ag_op(&ring_al, 6, 2), ag_op(&ring_al, 6, 2), ag_op(&ring_al, 6, 1) };
    tc_verify_status st = tc_verify_nonblocking(two, 2, t, &o, &rep);
    CHECK(st == TC_VERIFY_OK, "two rings on their own tags: %s", rep.msg);

    /* the same on one shared tag: messages of the two cross-match, the data
     * of one operation lands in the other's buffers */
    o.shared_tag = 1;
    st = tc_verify_nonblocking(two, 2, t, &o, &rep);
    CHECK(st == TC_VERIFY_FAIL && strstr(rep.msg, "another operation"),
          "two rings on one shared tag were not rejected for wrong data: %s", rep.msg);
    if (st == TC_VERIFY_FAIL) printf("rejected as expected (one tag for two operations): %s\n", rep.msg);
    /* rings of different block sizes on one tag: the cross-matched sizes differ */
    two[1] = two[2];
    st = tc_verify_nonblocking(two, 2, t, &o, &rep);
    CHECK(st == TC_VERIFY_FAIL, "rings of different sizes on one shared tag were not rejected");
    if (st == TC_VERIFY_FAIL) printf("rejected as expected (one tag, different sizes): %s\n", rep.msg);
    o.shared_tag = 0;

    /* two staged rings: proven with a scratch buffer each, rejected when
     * they share one (one operation's scratch data overwritten) */
    tc_verify_nbop st2[2] = { ag_op(&staged_al, 6, 2), ag_op(&staged_al, 6, 2) };
    st = tc_verify_nonblocking(st2, 2, t, &o, &rep);
    CHECK(st == TC_VERIFY_OK, "two staged rings, a scratch buffer each: %s", rep.msg);
    o.shared_tmp = 1;
    st = tc_verify_nonblocking(st2, 2, t, &o, &rep);
    CHECK(st == TC_VERIFY_FAIL, "two staged rings sharing one scratch buffer were not rejected");
    if (st == TC_VERIFY_FAIL) printf("rejected as expected (one scratch buffer for two operations): %s\n", rep.msg);
    o.shared_tmp = 0;

    /* a barrier that is not one, beside a good operation */
    tc_verify_nbop bar[2] = { ag_op(&ring_al, 6, 1), ag_op(&chain_al, 6, 0) };
    bar[1].proto.coll = TOPOCOLL_BARRIER;
    st = tc_verify_nonblocking(bar, 2, t, &o, &rep);
    CHECK(st == TC_VERIFY_FAIL && strstr(rep.msg, "not a barrier"), "a chain passed for a barrier: %s", rep.msg);
    if (st == TC_VERIFY_FAIL) printf("rejected as expected (not a barrier): %s\n", rep.msg);

    /* a schedule that deadlocks on its own, with a good one beside it */
    tc_verify_nbop dl[2] = { ag_op(&ring_al, 6, 1), ag_op(&cycle_al, 6, 1) };
    st = tc_verify_nonblocking(dl, 2, t, &o, &rep);
    CHECK(st == TC_VERIFY_FAIL && strstr(rep.msg, "deadlock"), "a deadlocking schedule was not rejected: %s",
          rep.msg);
    if (st == TC_VERIFY_FAIL) printf("rejected as expected (deadlock on its own): %s\n", rep.msg);
    tc_args a = dl[1].proto;
    st = tc_verify(&cycle_al, t, &a, 1, 1, &rep);
    CHECK(st == TC_VERIFY_FAIL && strstr(rep.msg, "deadlock"), "the blocking verifier agrees: %s", rep.msg);

    /* an entry whose schedule cannot run nonblocking (node-shared memory,
     * inline lines, remote reads or member-set rounds): the first such
     * allgather entry on two nodes of four */
    const tc_algo *no = NULL;
    char why[512] = "";
    for (int i = 0; i < tc_catalog_variant_count(TOPOCOLL_ALLGATHER) && !no; i++) {
        const tc_algo *al = tc_catalog_variant_at(TOPOCOLL_ALLGATHER, i);
        tc_verify_nbop x = ag_op(al, 8, 3);
        const char *w = al->generate ? tc_verify_nonblocking_why(al, t2, &x.proto, NULL, 1, 1, 0, &rep) : NULL;
        if (w && strncmp(w, "declined", 8) != 0 && strncmp(w, "fails", 5) != 0) {
            no = al;
            snprintf(why, sizeof why, "%s", w);
        }
    }
    CHECK(no != NULL, "no allgather entry without a nonblocking form on 2x4");
    if (no) {
        tc_verify_nbop mix[2] = { ag_op(&ring_al, 8, 3), ag_op(no, 8, 3) };
        st = tc_verify_nonblocking(mix, 2, t2, &o, &rep);
        CHECK(st == TC_VERIFY_DECLINED && strstr(rep.msg, why) && strstr(rep.msg, "no nonblocking form"),
              "%s without a nonblocking form was accepted: %s", no->name, rep.msg);
        printf("rejected as expected (no nonblocking form): %s\n", rep.msg);
    }
    tc_topo_free(t);
    tc_topo_free(t2);
}

/* The schedules on node-shared memory with an area of their own each: the
 * sweep on p = 2..9 and 16 (flat, two nodes, unequal nodes) must prove
 * every set. */
static void sweep_areas(void)
{
    areas = 1;
    free(stats);
    stats = NULL;
    nstats = 0;
    nsets = nops_checked = ninterleavings = 0;
    for (int p = 2; p <= 9; p++) {
        char spec[512];
        tc_topo *flat = tc_topo_flat(p);
        if (flat) {
            sweep_topo(flat, "flat");
            tc_topo_free(flat);
        }
        sweep_spec("2x*", p);
        node_list(p, spec, sizeof spec);
        if (p >= 3) sweep_spec(spec, p);
    }
    tc_topo *t = tc_topo_flat(16);
    if (t) {
        sweep_topo(t, "flat");
        tc_topo_free(t);
    }
    print_stats();
    printf("with areas: %ld sets of operations proven (%ld operations, %ld interleavings)\n", nsets,
           nops_checked, ninterleavings);
}

int main(void)
{
    check_broken();
    for (int p = 1; p <= 17; p++) sweep_p(p);
    sweep_p(32);
    sweep_p(64);
    print_stats();
    printf("%ld sets of operations proven (%ld operations, %ld interleavings)\n", nsets, nops_checked,
           ninterleavings);
    sweep_areas();
    free(stats);
    return tc_test_summary();
}
