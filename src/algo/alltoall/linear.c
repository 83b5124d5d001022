/*
 * alltoall family "linear:window=all|1|2|4|8|16|32" (aliases "linear" for
 * window=all, "linear_w<W>" otherwise): every rank posts its receives and
 * sends at once (window=all: one round of p-1 receives and p-1 sends, as
 * MPICH's and Open MPI's basic linear alltoall), or at most W of each
 * outstanding at a time (rounds of W partners: r+k and r-k for k in the
 * round's range; a rank's round q matches its partners' round q).
 *
 * Steps: the own block is copied in the first round; with MPI_IN_PLACE the
 *   input is copied to scratch first (blocks are overwritten before all of
 *   them are sent).
 * Cost: window=all: alpha + (p-1) n beta with all messages in flight (the
 *   network's congestion decides); window W: ceil((p-1)/W) rounds of W
 *   messages each way.
 * Memory: none; p blocks of scratch in place.
 * Restrictions: none.
 * Source: Träff, Rougier, "MPI Collectives and Datatypes for Hierarchical
 *   All-to-all Communication" (2014), section 3 (the baselines); Thakur,
 *   Rabenseifner, Gropp 2005 (MPICH's alltoall for medium messages).
 */
#include <stdio.h>

#include "algo/alltoall/common.h"

static const char *const window_values[] = { "all", "1", "2", "4", "8", "16", "32", NULL };
static const int window_of[] = { 0, 1, 2, 4, 8, 16, 32 };

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    const int *v = a->param;
    int p = a->size, r = a->rank, w = v ? window_of[v[0]] : 0;
    if (a->in_place && p == 1) return 0;
    if (w <= 0) w = p;
    if (a->in_place) tc_sched_need_tmp(s, (int64_t)p * a->rcount);
    a2a_save_input(s, a, 0);
    tc_sched_copy(s, a2a_in(a, 0, r), a2a_recv(a, r, 1));
    for (int k0 = 1; k0 < p; k0 += w) {
        int k1 = k0 + w < p ? k0 + w : p;
        for (int k = k0; k < k1; k++) {
            int src = tc_wrap(r - k, p);
            tc_sched_recv(s, src, a2a_recv(a, src, 1));
        }
        for (int k = k0; k < k1; k++) {
            int dst = tc_wrap(r + k, p);
            tc_sched_send(s, dst, a2a_in(a, 0, dst));
        }
        tc_sched_round(s);
    }
    tc_sched_round(s);
    return 0;
}

static const tc_param_def params[] = { { "window", window_values, 0 } };

static void describe(const tc_family *f, const int *v, tc_instance_text *out)
{
    (void)f;
    if (v[0] == 0) {
        snprintf(out->alias, sizeof out->alias, "linear");
        snprintf(out->desc, sizeof out->desc,
                 "linear: all p-1 receives and sends posted at once");
    } else {
        snprintf(out->alias, sizeof out->alias, "linear_w%s", window_values[v[0]]);
        snprintf(out->desc, sizeof out->desc,
                 "linear with at most %s receives and %s sends outstanding", window_values[v[0]],
                 window_values[v[0]]);
    }
}

const tc_family tc_alltoall_linear = {
    .coll = TOPOCOLL_ALLTOALL, .name = "linear",
    .summary = "linear: every receive and send posted at once, or a bounded window of them",
    .source = __FILE__, .nparams = 1, .params = params, .rule = "",
    .describe = describe, .req = TC_REQ_NONE, .generate = generate,
};
