/*
 * The per-call fast path of the per-rank-count collectives (alltoallv,
 * allgatherv, reduce_scatter) whose learned choice (or forced one: memo.c's
 * forced_keeps) is one of topocoll's schedules: the schedule is built for
 * the counts (run.c does not cache per-peer schedules), so the memo keeps
 * it, built once for the remembered call, with that call's completed
 * record, its normalised arguments and copies of the user's count and
 * displacement arrays.  A later call by selection on the same communicator
 * whose scalars (the single counts, datatypes, root, op,
 * MPI_IN_PLACE-ness) and whose arrays' contents (not their addresses: an
 * application may change the counts in the same array) are the remembered
 * call's goes straight to the executor with them: everything the full path
 * checked and computed from those arguments (counts not negative, buffers
 * large enough, the per-peer vectors, the choice) is what it was.  Only the
 * buffers are checked again (NULL where data are significant, send and
 * receive apart).
 *
 * Agreement.  The memo serves a settled learner's winner and counts down
 * its calls-left counter (as the memo of the regular collectives does), so
 * every rank's learner sees the same calls, or a forced entry whose choice
 * agrees on nothing.  The learner's key does not depend on the counts
 * where they differ between ranks (alltoallv: one key per communicator)
 * and, where it does (allgatherv's total), the counts are the same on every
 * rank.  No entry whose run agrees on anything per call is kept: none with
 * the per-node count rows, the one-node inline lines or single copy, and
 * node-shared windows only where the counts are the same on every rank
 * (allgatherv, reduce_scatter: their windows' size follows from those
 * counts, so every rank takes the memo or none).
 *
 * Cost: the scalars' compares, one pass over each array read (p ints), the
 * record copied; no allocation, no schedule built.
 */
#include <stdlib.h>
#include <string.h>

#include "api/alltoallw.h"
#include "api/call.h"
#include "api/error.h"
#include "api/explain.h"
#include "api/learn_call.h"
#include "api/pass.h"

TC_THREAD_LOCAL unsigned long tc_memo_vec_served;

/* The user's arrays a record reads: send counts, send displacements,
 * receive counts, receive displacements. */
enum { VS_ARRAYS = 4 };

struct tc_vsched {
    int valid;
    int scount, rcount;          /* the user's single counts (the record's before its checks) */
    int sbuf_in_place, rbuf_in_place;
    unsigned read;               /* bit k: array k read (its copy in user) */
    tc_call c;                   /* the record as the full path completed it; c.v into v64 */
    tc_args a;                   /* a.v = &c.v */
    tc_sched s;
    int sched_made;
    int64_t *v64;                /* [4 x size] */
    int *user;                   /* [4 x size] */
    unsigned long epoch;         /* the context's cache epoch (node-shared windows) */
};

tc_vmemo *tc_vmemo_get(tc_ctx *x)
{
    if (x->vmemo) return x->vmemo;
    tc_vmemo *v = calloc(1, sizeof *v);
    size_t n = (size_t)(x->size > 0 ? x->size : 1);
    if (!v) return NULL;
    v->ag_counts = malloc(n * sizeof *v->ag_counts);
    v->aw_counts = malloc(2 * n * sizeof *v->aw_counts);
    v->aw_types = malloc(2 * n * sizeof *v->aw_types);
    if (!v->ag_counts || !v->aw_counts || !v->aw_types) {
        free(v->ag_counts), free(v->aw_counts), free(v->aw_types), free(v);
        return NULL;
    }
    return x->vmemo = v;
}

static void vsched_free(tc_vsched *vs)
{
    if (!vs) return;
    if (vs->sched_made) tc_sched_free(&vs->s);
    free(vs->v64), free(vs->user), free(vs);
}

void tc_vmemo_free(tc_ctx *x)
{
    tc_vmemo *v = x->vmemo;
    if (!v) return;
    for (int k = 0; k < TOPOCOLL_NCOLL; k++) vsched_free(v->vs[k]);
    free(v->ag_counts), free(v->aw_counts), free(v->aw_types), free(v);
    x->vmemo = NULL;
}

void tc_vmemo_forget(tc_ctx *x)
{
    if (!x->vmemo) return;
    x->vmemo->aw_valid = 0;
    for (int k = 0; k < TOPOCOLL_NCOLL; k++)
        if (x->vmemo->vs[k]) x->vmemo->vs[k]->valid = 0;
}

/* Array k of the record (the user's pointer). */
static const int *user_array(const tc_call *c, int k)
{
    return k & 1 ? c->vdispl[k >> 1] : c->vcnt[k >> 1];
}

int tc_memo_vec_keeps(const tc_call *c, const tc_algo *al)
{
    unsigned never = TC_REQ_NATIVE | TC_REQ_NODE_COUNTS | TC_REQ_ROOT_COUNTS | TC_REQ_INLINE | TC_REQ_CMA;
    if (!al->generate || (al->req & never) || c->d->vroot || c->mismatch) return 0;
    /* node-shared windows: only where every rank has the same counts */
    return !(al->req & TC_REQ_NODE_SHM) || c->d->vblock || c->d->vsplit;
}

/* The slot of c's collective, made on first need (NULL: no memory). */
static tc_vsched *slot_of(tc_ctx *x, const tc_call *c)
{
    tc_vmemo *v = tc_vmemo_get(x);
    if (!v) return NULL;
    tc_vsched **at = &v->vs[c->d->coll];
    if (*at) return *at;
    tc_vsched *vs = calloc(1, sizeof *vs);
    size_t p = (size_t)c->size;
    if (!vs || !(vs->v64 = malloc(4 * p * sizeof *vs->v64)) || !(vs->user = malloc(4 * p * sizeof *vs->user))) {
        vsched_free(vs);
        return NULL;
    }
    return *at = vs;
}

/* The vectors' pointer into the copy of the record's 64-bit vectors. */
static const int64_t *moved(const int64_t *ptr, const int64_t *from, int64_t *to)
{
    return ptr ? to + (ptr - from) : NULL;
}

/* The length of the record's 64-bit vectors (call_args.c makes 2 or 4 x
 * size of them): the furthest vector's end. */
static size_t v64_len(const tc_call *c, size_t p)
{
    const int64_t *ptr[4] = { c->v.scounts, c->v.sdispls, c->v.rcounts, c->v.rdispls };
    size_t n = 0;
    for (int k = 0; k < 4; k++)
        if (ptr[k] && (size_t)(ptr[k] - c->v64) + p > n) n = (size_t)(ptr[k] - c->v64) + p;
    return n;
}

int tc_memo_vec_remember(tc_ctx *x, const tc_call *c, const tc_args *a, const tc_algo *al, int scount,
                         int rcount)
{
    tc_vsched *vs = c->v64 ? slot_of(x, c) : NULL;
    if (!vs) return -1;
    vs->valid = 0;
    if (vs->sched_made) tc_sched_free(&vs->s);
    vs->sched_made = 0;
    size_t p = (size_t)c->size;
    /* the arrays the record read: the receive side's, the send side's but in place */
    vs->read = 0;
    for (int k = 0; k < VS_ARRAYS; k++) {
        const int *u = user_array(c, k);
        if (!u || ((k >> 1) == TC_BUF_SEND && c->in_place)) continue;
        memcpy(vs->user + (size_t)k * p, u, p * sizeof *u);
        vs->read |= 1u << k;
    }
    /* the record and its vectors, every pointer into the copies */
    vs->c = *c;
    vs->c.v64 = NULL;
    memcpy(vs->v64, c->v64, v64_len(c, p) * sizeof *vs->v64);
    vs->c.v = (tc_vcounts){ moved(c->v.scounts, c->v64, vs->v64), moved(c->v.sdispls, c->v64, vs->v64),
                            moved(c->v.rcounts, c->v64, vs->v64), moved(c->v.rdispls, c->v64, vs->v64) };
    vs->a = *a;
    vs->a.v = &vs->c.v;
    tc_sched_init(&vs->s);
    vs->sched_made = 1;
    if (tc_algo_generate(al, &vs->s, &vs->a, x->topo) != 0 || tc_sched_finish(&vs->s) != 0 || vs->s.err) return -1;
    vs->scount = scount, vs->rcount = rcount;
    vs->sbuf_in_place = c->sbuf == MPI_IN_PLACE;
    vs->rbuf_in_place = c->rbuf == MPI_IN_PLACE;
    vs->epoch = x->cache_epoch;
    vs->valid = 1;
    return 0;
}

/* The call's scalars and buffers are the remembered call's, as its checks
 * would see them. */
static int same_scalars(const tc_vsched *vs, const tc_call *c)
{
    const tc_call *r = &vs->c;
    if (c->scount != vs->scount || c->rcount != vs->rcount || c->stype != r->stype || c->rtype != r->rtype ||
        c->root != r->root || c->op != r->op || (c->sbuf == MPI_IN_PLACE) != vs->sbuf_in_place ||
        (c->rbuf == MPI_IN_PLACE) != vs->rbuf_in_place)
        return 0;
    if (r->use[TC_BUF_SEND] && r->use[TC_BUF_RECV] && c->sbuf == c->rbuf) return 0;   /* aliased: checked */
    for (int b = TC_BUF_SEND; b <= TC_BUF_RECV; b++)
        if (r->use[b] && !tc_call_buf(c, b) && tc_call_count(r, b) > 0 && r->tsize[b] > 0) return 0;
    return 1;
}

/* The arrays the remembered call read hold the same counts and
 * displacements now (whatever their addresses). */
static int same_arrays(const tc_vsched *vs, const tc_call *c)
{
    size_t p = (size_t)vs->c.size;
    for (int k = 0; k < VS_ARRAYS; k++) {
        if (!(vs->read & (1u << k))) continue;
        const int *u = user_array(c, k), *kept = vs->user + (size_t)k * p;
        if (!u) return 0;
        for (size_t j = 0; j < p; j++)
            if (u[j] != kept[j]) return 0;
    }
    return 1;
}

/* The pass-through's test (pass.h, alltoallw.c) on a record: a call that
 * came by topocoll_run's regular problem, or by an entry point whose own
 * test it failed only for want of its context's lookup. */
static int record_passes(const tc_call *c)
{
    if (c->d->coll == TOPOCOLL_ALLTOALLW)
        return tc_alltoallw_pass(c->comm, c->sbuf, c->vcnt[TC_BUF_SEND], c->vtype[TC_BUF_SEND], c->rbuf,
                                 c->vcnt[TC_BUF_RECV], c->vtype[TC_BUF_RECV]);
    return tc_pass_per_peer(c->d->coll, c->comm, c->sbuf, c->stype, c->rbuf, c->rtype, c->op, c->root, c->scount,
                            c->vcnt[TC_BUF_RECV]);
}

int tc_memo_vec_call(tc_call *c, const tc_config *cfg, int *rc)
{
    if (c->comm == MPI_COMM_NULL || cfg->explain || cfg->check_on) return 0;
    if (record_passes(c)) {   /* the MPI library's own, which checks the arguments */
        *rc = tc_run_native(c);
        if (*rc != MPI_SUCCESS) *rc = tc_raise_mpi(c->comm, *rc, c->fn);
        return 1;
    }
    tc_ctx *x = tc_ctx_last_of(c->comm);
    if (!x && !(x = tc_ctx_lookup(c->comm))) return 0;
    tc_call_memo *m = &x->memo[c->d->coll];
    if (!m->vsched || m->learn_left == 0 || m->config_gen != cfg->generation || !x->vmemo) return 0;
    tc_vsched *vs = x->vmemo->vs[c->d->coll];
    if (!vs || !vs->valid || vs->epoch != x->cache_epoch || !same_scalars(vs, c) ||
        (m->watched && m->types_freed != tc_types_freed()) || !same_arrays(vs, c))
        return 0;
    m->learn_left--;
    tc_memo_vec_served++;
    /* the remembered record with this call's buffers and arrays */
    tc_call call = vs->c;
    call.fn = c->fn;
    call.sbuf = c->sbuf, call.rbuf = c->rbuf;
    for (int b = TC_BUF_SEND; b <= TC_BUF_RECV; b++) call.vcnt[b] = c->vcnt[b], call.vdispl[b] = c->vdispl[b];
    *c = call;   /* c->v64 NULL: the copies stay the memo's */
    tc_record_algorithm(m->algo->name);
    *rc = tc_run_schedule(x, &vs->s, c, &vs->a);
    if (*rc != MPI_SUCCESS) *rc = tc_raise_mpi(c->comm, *rc, c->fn);
    return 1;
}
