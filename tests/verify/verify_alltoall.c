/* Verifier sweep of the alltoall catalog (every instance with a schedule;
 * see sweep.h): p = 1..24 and 32, 48; counts 0, 1, 3 and 2p+1 elements per
 * block; in place and not; send and receive types of different sizes (one
 * send element = two receive units, scount = 2 x rcount); flat, unequal
 * nodes (and sockets), block, cyclic and random mappings; elements of 8192
 * and 10000 bytes (blocks cut into pieces by their bytes).  Every schedule
 * must leave block r of rank j in block j of rank r (the descriptor's
 * transposed result).  Then deliberately broken alltoall schedules (no
 * exchange, in place without saving the input, a block to the wrong rank)
 * must be rejected.  No MPI.  Ends with "N passed, M failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verify/sweep.h"
#include "pattern/pattern.h"
#include "algo/alltoall/bridge_steps.h"
#include "topo_specs.h"

/* count elements per block, receive elements of elem_bytes (0: unset): in
 * place and not, and (a nonzero count, not in place) a send type of two
 * receive units */
static void count_cases(const tc_algo *al, const tc_topo *t, const char *spec, int64_t count,
                        int64_t elem_bytes)
{
    for (int ip = 0; ip < 2; ip++) {
        tc_args a;
        memset(&a, 0, sizeof a);
        a.scount = a.rcount = count;
        a.in_place = ip;
        a.commutative = 1;
        a.relem_bytes = elem_bytes;
        sweep_case(al, t, spec, a, 1, 1);
        if (ip || count == 0) continue;
        a.rcount = 2 * count;   /* send type of two receive units */
        sweep_case(al, t, spec, a, 2, 1);
    }
}

static void sweep_algo(const tc_algo *al, const tc_topo *t, const char *spec)
{
    int p = t->size;
    int64_t cnt[4] = { 0, 1, 3, 2 * (int64_t)p + 1 };
    for (int ci = 0; ci < 4; ci++) count_cases(al, t, spec, cnt[ci], 0);
    /* wide elements (8192 and 10000 bytes): entries that size messages in
     * bytes cut blocks of 2p+1 elements into pieces of 4 and 3 elements */
    count_cases(al, t, spec, cnt[3], 8192);
    count_cases(al, t, spec, cnt[3], 10000);
    tc_args a;
    memset(&a, 0, sizeof a);
    a.commutative = 1;
    domain_case(al, t, a);   /* without node-shared memory */
}

static long point;

static void sweep_topo(const tc_topo *t, const char *spec)
{
    point++;
    for (int i = 0; i < tc_catalog_variant_count(TOPOCOLL_ALLTOALL); i++) {
        const tc_algo *al = tc_catalog_variant_at(TOPOCOLL_ALLTOALL, i);
        if (al->generate && (t->size <= 16 || sweep_runs(al, point))) sweep_algo(al, t, spec);
    }
}

static void sweep_spec(const char *spec, int p) { visit_spec(spec, p, sweep_topo); }

/* Unequal nodes "3,1,4,1,5,..." (sockets "2+1" inside nodes of 3 or more). */
static void node_list(int p, int sockets, char *out, size_t len) { unequal_nodes_spec(p, sockets, out, len); }

static void sweep_p(int p)
{
    static const char *fixed[] = { "4x*", "4x*/cyclic", "3x2x*/cyclic", "5x*/random:3",
                                   "2x3x*/random:7", "2x*", NULL };
    char spec[1024];
    tc_topo *flat = tc_topo_flat(p);
    if (flat) {
        sweep_topo(flat, "flat");
        tc_topo_free(flat);
    }
    node_list(p, 0, spec, sizeof spec);
    sweep_spec(spec, p);
    node_list(p, 1, spec, sizeof spec);
    strncat(spec, "/random:11", sizeof spec - strlen(spec) - 1);
    sweep_spec(spec, p);
    for (const char **s = fixed; *s; s++) sweep_spec(*s, p);
}

/* ---- broken schedules: each must be rejected ------------------------------- */

/* Every rank copies its input to its output: no exchange at all. */
static int broken_local(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    tc_sched_copy(s, tc_reg(TC_BUF_SEND, 0, a->size * a->scount), tc_reg(TC_BUF_RECV, 0, a->size * a->rcount));
    return 0;
}

/* Pairwise reading SEND even in place (blocks overwritten before they are sent). */
static int broken_in_place(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank;
    for (int k = 1; k < p; k++) {
        int dst = tc_wrap(r + k, p), src = tc_wrap(r - k, p);
        tc_sched_recv(s, src, tc_reg(TC_BUF_RECV, src * a->rcount, a->rcount));
        tc_sched_send(s, dst, tc_reg(TC_BUF_SEND, dst * a->scount, a->scount));
        tc_sched_round(s);
    }
    return 0;
}

/* Pairwise sending the block for r+k to r-k's counterpart (the block for r-k). */
static int broken_block(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank;
    tc_sched_copy(s, tc_reg(TC_BUF_SEND, r * a->scount, a->scount), tc_reg(TC_BUF_RECV, r * a->rcount, a->rcount));
    for (int k = 1; k < p; k++) {
        int dst = tc_wrap(r + k, p), src = tc_wrap(r - k, p);
        tc_sched_recv(s, src, tc_reg(TC_BUF_RECV, src * a->rcount, a->rcount));
        tc_sched_send(s, dst, tc_reg(TC_BUF_SEND, src * a->scount, a->scount));
        tc_sched_round(s);
    }
    return 0;
}

/* Member-set rounds (TC_OP_SUBCOLL): a direct exchange marked as one
 * collective over the node, whose messages leave the node. */
static int broken_set_outside(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    int p = a->size, r = a->rank;
    tc_sched_subcoll(s, TC_SUB_NODE);
    tc_sched_copy(s, tc_reg(TC_BUF_SEND, r * a->scount, a->scount), tc_reg(TC_BUF_RECV, r * a->rcount, a->rcount));
    for (int k = 1; k < p; k++) {
        int dst = tc_wrap(r + k, p), src = tc_wrap(r - k, p);
        tc_sched_recv(s, src, tc_reg(TC_BUF_RECV, src * a->rcount, a->rcount));
        tc_sched_send(s, dst, tc_reg(TC_BUF_SEND, dst * a->scount, a->scount));
    }
    tc_sched_round(s);
    return 0;
}

/* The "bridge" schedule where rank 1 (not a root) runs its gather as a
 * plain round: its node's collective call would wait for it forever. */
static int broken_set_missing(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    int rc = tc_bridge_alltoall(s, a, t, TC_BRIDGE_BUNDLES);
    for (int i = 0; rc == 0 && a->rank == 1 && i < s->nops; i++)
        if (s->ops[i].kind == TC_OP_SUBCOLL) {
            s->ops[i].kind = TC_OP_COPY;   /* an empty copy in its place */
            s->ops[i].a = s->ops[i].b = tc_reg(TC_BUF_RECV, 0, 0);
            break;
        }
    return rc;
}

/* The "bridge_a2a" schedule where rank 1 claims a round among the roots. */
static int broken_set_foreign(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    int rc = tc_bridge_alltoall(s, a, t, TC_BRIDGE_ROWS);
    for (int i = 0; rc == 0 && a->rank == 1 && i < s->nops; i++)
        if (s->ops[i].kind == TC_OP_SUBCOLL) s->ops[i].peer = TC_SUB_ROOTS;
    return rc;
}

/* Two collective calls on the node where a member's second message goes
 * to the root's first call: merged per call, the messages would not match. */
static int broken_set_calls(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    const int *m = tc_topo_node_members(t, t->node_of[a->rank]);
    int n = tc_topo_node_size(t, t->node_of[a->rank]);
    tc_sched_need_tmp(s, 2 * (int64_t)n * a->rcount);
    for (int call = 0; call < 2; call++) {
        tc_sched_subcoll(s, TC_SUB_NODE);
        for (int i = 1; call == 0 && a->rank == m[0] && i < n; i++)
            for (int k = 0; k < 2; k++) tc_sched_recv(s, m[i], tc_reg(TC_BUF_TMP, (2 * i + k) * a->rcount, a->rcount));
        if (a->rank != m[0]) tc_sched_send(s, m[0], tc_reg(TC_BUF_SEND, call * a->scount, a->scount));
        tc_sched_round(s);
    }
    return 0;
}

static void expect_rejected(tc_generate_fn g, const char *what, int in_place)
{
    tc_algo al = { .coll = TOPOCOLL_ALLTOALL, .name = what, .generate = g };
    tc_topo *t = tc_topo_from_spec("2x*", 6, NULL, 0);
    tc_args a;
    memset(&a, 0, sizeof a);
    a.coll = TOPOCOLL_ALLTOALL;
    a.size = 6;
    a.scount = a.rcount = 2;
    a.in_place = in_place;
    a.node_shm = 1;
    tc_verify_report rep;
    tc_verify_status st = t ? tc_verify(&al, t, &a, 1, 1, &rep) : TC_VERIFY_OK;
    CHECK(t && st == TC_VERIFY_FAIL, "broken schedule '%s' (in_place=%d) not rejected", what, in_place);
    if (st == TC_VERIFY_FAIL) printf("rejected as expected: %s: %s\n", what, rep.msg);
    tc_topo_free(t);
}

int main(void)
{
    for (int p = 1; p <= 24; p++) sweep_p(p);
    sweep_p(32);
    sweep_p(48);
    int n = 0;
    for (int i = 0; i < tc_catalog_variant_count(TOPOCOLL_ALLTOALL); i++)
        n += tc_catalog_variant_at(TOPOCOLL_ALLTOALL, i)->generate != NULL;
    printf("alltoall: %d instances with a schedule\n", n);
    printf("%ld cases declined as their domains say\n", sweep_stat.declined);
    expect_rejected(broken_local, "no exchange", 0);
    expect_rejected(broken_in_place, "in place without saving the input", 1);
    expect_rejected(broken_block, "wrong block", 0);
    expect_rejected(broken_set_outside, "a node's collective with messages off the node", 0);
    expect_rejected(broken_set_missing, "a node's collective without one member", 0);
    expect_rejected(broken_set_foreign, "a roots' collective at a rank that is none", 1);
    expect_rejected(broken_set_calls, "a message across two collective calls", 0);
    return tc_test_summary();
}
