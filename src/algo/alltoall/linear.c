/*
 * alltoall family "linear:window=all|1|2|4|8|16|32,pieces=whole|32k"
 * (aliases "linear" for window=all, "linear_w<W>" otherwise, with
 * "_pieces32k" appended for pieces=32k): every rank posts its receives and
 * sends at once (window=all: one round of p-1 receives and p-1 sends, as
 * MPICH's and Open MPI's basic linear alltoall), or at most W partners'
 * worth outstanding at a time (rounds of W partners: r+k and r-k for k in
 * the round's range; a rank's round q matches its partners' round q).
 *
 * pieces=32k sends a block of more than 32 KiB as messages of at most 32
 * KiB, all posted in the block's round.  Over TCP an MPI library sends a
 * message above its eager limit (64 KiB for Open MPI's TCP transport) only
 * after the receiver has answered its first fragment, and in an alltoall
 * that answer waits behind the data queued on the loaded link the other
 * way: one round trip of a full queue per round.  Pieces under the eager
 * limit go without the answer, and the link stays busy.  Pieces are whole
 * runs of elements that match in both types (scount/g send elements for
 * rcount/g receive elements, g = gcd(scount, rcount)), so any pair of
 * types with matching signatures is cut consistently.
 *
 * Steps: the own block is copied in the first round; with MPI_IN_PLACE the
 *   input is copied to scratch first (blocks are overwritten before all of
 *   them are sent).
 * Cost: window=all: alpha + (p-1) n beta with all messages in flight (the
 *   network's congestion decides); window W: ceil((p-1)/W) rounds of W
 *   messages each way (pieces: ceil(n / 32 KiB) messages per block, one
 *   alpha each, no rendezvous).
 * Memory: none; p blocks of scratch in place.  Pieces that arrive before
 *   their receive is posted are buffered by the MPI library (eager).
 * Restrictions: none.
 * Source: Träff, Rougier, "MPI Collectives and Datatypes for Hierarchical
 *   All-to-all Communication" (2014), section 3 (the baselines); Thakur,
 *   Rabenseifner, Gropp 2005 (MPICH's alltoall for medium messages).  The
 *   pieces are this library's, from the emulated cluster's measurements
 *   (docs/alltoall.md, "Pieces under the eager limit").
 */
#include "algo/cost_walk.h"
#include <math.h>
#include <string.h>
#include <stdio.h>

#include "algo/alltoall/common.h"

static const char *const window_values[] = { "all", "1", "2", "4", "8", "16", "32", NULL };
static const int window_of[] = { 0, 1, 2, 4, 8, 16, 32 };
static const char *const pieces_values[] = { "whole", "32k", NULL };

/* How a block is cut: pieces of `recv` receive elements and `send` elements
 * of the input block (send-type elements, or receive-type elements of the
 * scratch copy in place), `n` of them; one piece when the block is not
 * larger than a piece of TC_PIECE_BYTES (or pieces=whole). */
typedef struct pieces {
    int64_t recv, send;
    int n;
} pieces;

static int64_t gcd64(int64_t x, int64_t y)
{
    while (y) {
        int64_t t = x % y;
        x = y;
        y = t;
    }
    return x;
}

static pieces cut_block(const tc_args *a, int cut)
{
    int64_t rc = a->rcount, sc = a->in_place ? a->rcount : a->scount;
    int64_t elems = tc_args_piece_elems(a);
    pieces pc = { rc, sc, 1 };
    if (!cut || rc <= 0 || sc <= 0 || rc <= elems) return pc;
    int64_t g = gcd64(rc, sc), unit_r = rc / g, unit_s = sc / g;   /* matching runs */
    int64_t units = elems / unit_r;
    if (units < 1) units = 1;
    if (units >= g) return pc;
    pc.recv = units * unit_r;
    pc.send = units * unit_s;
    pc.n = (int)((g + units - 1) / units);
    return pc;
}

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    (void)t;
    const int *v = a->param;
    int p = a->size, r = a->rank, w = v ? window_of[v[0]] : 0;
    pieces pc = cut_block(a, v && v[1]);
    if (a->in_place && p == 1) return 0;
    if (w <= 0) w = p;
    if (a->in_place) tc_sched_need_tmp(s, (int64_t)p * a->rcount);
    a2a_save_input(s, a, 0);
    tc_sched_copy(s, a2a_in(a, 0, r), a2a_recv(a, r, 1));
    for (int k0 = 1; k0 < p; k0 += w) {
        int k1 = k0 + w < p ? k0 + w : p;
        for (int i = 0; i < pc.n; i++)
            for (int k = k0; k < k1; k++) {
                int src = tc_wrap(r - k, p);
                tc_sched_recv(s, src, tc_reg_chunk(a2a_recv(a, src, 1), pc.recv, i));
            }
        for (int i = 0; i < pc.n; i++)
            for (int k = k0; k < k1; k++) {
                int dst = tc_wrap(r + k, p);
                tc_sched_send(s, dst, tc_reg_chunk(a2a_in(a, 0, dst), pc.send, i));
            }
        tc_sched_round(s);
    }
    tc_sched_round(s);
    return 0;
}

static const tc_param_def params[] = { { "window", window_values, 0 }, { "pieces", pieces_values, 0 } };

static void describe(const tc_family *f, const int *v, tc_instance_text *out)
{
    (void)f;
    const char *suffix = v[1] ? "_pieces32k" : "";
    const char *how = v[1] ? ", blocks sent in pieces of at most 32 KiB" : "";
    if (v[0] == 0) {
        snprintf(out->alias, sizeof out->alias, "linear%s", suffix);
        snprintf(out->desc, sizeof out->desc,
                 "linear: all p-1 receives and sends posted at once%s", how);
    } else {
        snprintf(out->alias, sizeof out->alias, "linear_w%s%s", window_values[v[0]], suffix);
        snprintf(out->desc, sizeof out->desc,
                 "linear with at most %s partners' receives and sends outstanding%s",
                 window_values[v[0]], how);
    }
}

/* Cost function: one block to every other rank, priced as p-1 steps
 * whatever the window (the network's queues serialise them); with pieces,
 * a message per piece of at most TC_PIECE_BYTES. */
static int cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)a;
    if (t->size > 2048) return -1;   /* O(p^2) to price */
    for (int d = 1; d < t->size; d++) tc_cw_step(c, t, tc_cw_shift, NULL, d, n);
    if (!strcmp(tc_cw_param(al, "pieces"), "32k") && n > TC_PIECE_BYTES) {
        double pieces = ceil(n / TC_PIECE_BYTES);
        for (int l = 0; l < TC_NLEVELS; l++) c->msgs[l] *= pieces;
    }
    return 0;
}

const tc_family tc_alltoall_linear = {
    .cost = cost,
    .coll = TOPOCOLL_ALLTOALL, .name = "linear",
    .summary = "linear: every receive and send posted at once, or a bounded window of partners; "
               "blocks whole or in pieces under the eager limit",
    .source = __FILE__, .nparams = 2, .params = params, .rule = "",
    .describe = describe, .req = TC_REQ_NONE, .generate = generate,
};
