/*
 * The per-call fast path (see call.h): a call repeating the last one of its
 * collective on a communicator (same counts, datatypes, root, op, in
 * place; the choice by selection or by the same name) goes straight to the
 * executor with what the full path checked, normalised and chose then, kept
 * in the context's memo (tc_call_memo, context.h).  Whatever could make the
 * remembered checks wrong takes the full path instead: a buffer the checks
 * would refuse, a derived type freed since (its handle may come back as
 * another type), a user op whose commutativity differs, a schedule no longer
 * cached, another configuration.
 */
#include <stdlib.h>
#include <string.h>

#include "api/call.h"
#include "api/error.h"
#include "api/explain.h"
#include "api/learn_call.h"
#include "api/pass.h"
#include "select/select.h"

TC_THREAD_LOCAL unsigned long tc_pass_served;

/* Whether the pass-through (pass.h) may serve the calls this memo serves:
 * the MPI library's own entry by selection, nothing the full path does per
 * call (the run summary, explain lines, TOPOCOLL_CHECK), a predefined op,
 * no zero-size datatype, no significant buffer MPI_IN_PLACE; and what it
 * checks of the buffers. */
static void set_pass(tc_call_memo *m, const tc_call *c, const tc_algo *al, const tc_sched *s, int named)
{
    const tc_config *cfg = tc_config_get();
    m->pass = 0;
    if (!(al->req & TC_REQ_NATIVE) || al->generate || s || named || !m->predefined_op || cfg->stats_on ||
        cfg->explain || cfg->check_on || cfg->disable)
        return;
    for (int b = TC_BUF_SEND; b <= TC_BUF_RECV; b++) {
        const void *buf = tc_call_buf(c, b);
        int count = tc_call_count(c, b);
        if (c->use[b] && (buf == MPI_IN_PLACE || (c->tsize[b] == 0 && count > 0))) return;
        m->in_place_arg[b] = buf == MPI_IN_PLACE;
        m->nonnull[b] = c->use[b] && count > 0 && c->tsize[b] > 0;
    }
    m->apart = c->use[TC_BUF_SEND] && c->use[TC_BUF_RECV];
    m->pass = 1;
}

/* *m the call's memo (choice al, schedule s): 0, or -1 (m invalid) when a
 * derived type cannot be watched (a reused handle would go unseen). */
static int memo_fill(tc_call_memo *m, const tc_ctx *x, const tc_call *c, const tc_args *a, const tc_algo *al,
                     const tc_sched *s, int named)
{
    unsigned freed = tc_types_freed();   /* before the watch: a free in between counts */
    int watched = 0;
    for (int b = TC_BUF_SEND; b <= TC_BUF_RECV; b++) {
        if (!c->use[b] || tc_call_type_named(tc_call_type(c, b))) continue;
        watched = 1;
        if (tc_watch_type(tc_call_type(c, b)) != MPI_SUCCESS) {
            m->valid = 0;   /* cannot tell a reused handle: always the full path */
            return -1;
        }
    }
    *m = (tc_call_memo){ .valid = 1, .scount = c->scount, .rcount = c->rcount, .root = c->root,
                         .in_place = c->in_place, .stype = c->stype, .rtype = c->rtype, .op = c->op,
                         .commutative = a->commutative, .use = { c->use[0], c->use[1] },
                         .tsize = { c->tsize[0], c->tsize[1] }, .bytes = c->bytes, .watched = watched,
                         .types_freed = freed, .predefined_op = !c->d->reduction || tc_call_op_predefined(c->op),
                         .args = *a, .algo = al, .named = named, .sched = s, .epoch = x->cache_epoch,
                         .config_gen = tc_config_get()->generation, .learn_left = UINT64_MAX,
                         .learn_base = UINT64_MAX };
    /* the types' bindings once: the calls it serves have the same types */
    if (s && !c->d->vblock && !c->d->counts_bytes)
        m->typed = tc_run_bind_types(c, a, m->types, &m->alias_off) == MPI_SUCCESS;
    return 0;
}

void tc_memo_remember(tc_ctx *x, const tc_call *c, const tc_args *a, const tc_algo *al, const tc_sched *s,
                      int named)
{
    tc_call_memo *m = &x->memo[c->d->coll];
    tc_learn_memo_flush(m);   /* the calls it served, counted before it is replaced */
    if (memo_fill(m, x, c, a, al, s, named) != 0) {
        m->learn = NULL;
        return;
    }
    set_pass(m, c, al, s, named);
}

void tc_memo_note_counts(tc_ctx *x, const tc_call *c, const tc_learn_ticket *lt)
{
    const tc_coll_desc *d = c->d;   /* one count and type for both buffers, not per peer */
    topocoll_coll k = d->coll;
    tc_call_memo *m = &x->memo[k];
    const tc_config *cfg = tc_config_get();
    m->any_count = m->any_root = 0;
    if (!m->valid || !m->pass || !d->one_count || d->vcounts || m->scount <= 0 || m->bytes <= 0 ||
        m->bytes % m->scount != 0)
        return;
    int forced = cfg->force[k] && tc_catalog_find(k, cfg->force[k]) == m->algo;
    int settled = m->learn && m->learn->phase == TC_LEARN_SETTLED && lt->algo == m->algo;   /* m->learn: lt's */
    if (!forced && !settled) return;
    m->unit = m->bytes / m->scount;
    m->size_class = forced ? -1 : tc_learn_size_class(k, m->bytes);
    m->any_count = 1;
    m->any_root = d->rooted && !d->reduction;   /* bcast: the root's buffer is every rank's */
}

/* Whether a per-rank-count call's learned choice, the MPI library's own,
 * may be served by the pass-through whatever the call's counts: its
 * learner has one key for every count (the size differs between ranks:
 * alltoallv, reduce_scatter, gatherv, scatterv), or the counts are
 * compared with a copy (allgatherv: its key is the size class of the
 * total, the same at every rank; the copy in tc_vmemo). */
static int per_peer_keeps_counts(tc_ctx *x, const tc_call *c, tc_call_memo *m)
{
    if (tc_select_size_per_rank(c->d->coll)) return 1;
    if (!c->d->vblock || !c->vcnt[TC_BUF_RECV]) return 0;
    tc_vmemo *v = tc_vmemo_get(x);
    if (!v) return 0;
    memcpy(v->ag_counts, c->vcnt[TC_BUF_RECV], (size_t)c->size * sizeof *v->ag_counts);
    m->vcopy = 1;
    m->scount = c->scount;   /* the own block's count: part of the total */
    return 1;
}

/* A choice without a learner that the fast paths may repeat: the entry
 * TOPOCOLL_<COLL> forces (the MPI library's own: whatever the counts; a
 * schedule: for the same counts, memo_vec.c), where choosing it involves no
 * agreement between ranks (a size that differs between ranks is agreed on
 * by a reduction on every call where a rule reads it). */
static int forced_keeps(const tc_call *c, const tc_algo *al, const tc_config *cfg)
{
    topocoll_coll k = c->d->coll;
    if (!cfg->force[k] || tc_catalog_find(k, cfg->force[k]) != al) return 0;
    return !(tc_select_size_per_rank(k) && tc_select_reads_size(k));
}

void tc_memo_remember_per_peer(tc_ctx *x, const tc_call *c, const tc_args *a, const tc_algo *al,
                               const tc_learn_ticket *lt, int scount, int rcount)
{
    tc_call_memo *m = &x->memo[c->d->coll];
    tc_learn_memo_flush(m);   /* the calls it served, counted before it is replaced */
    const tc_config *cfg = tc_config_get();
    *m = (tc_call_memo){ 0 };
    m->learn_left = m->learn_base = UINT64_MAX;
    int native = (al->req & TC_REQ_NATIVE) && !al->generate;
    int learned = lt->slot != NULL;
    if ((!native && !tc_memo_vec_keeps(c, al)) || (!learned && !forced_keeps(c, al, cfg)) || cfg->stats_on ||
        cfg->explain || cfg->check_on || cfg->disable || (c->d->reduction && !tc_call_op_predefined(c->op)))
        return;
    unsigned freed = tc_types_freed();   /* before the watch: a free in between counts */
    for (int b = TC_BUF_SEND; b <= TC_BUF_RECV; b++) {
        MPI_Datatype t = tc_call_type(c, b);
        if (native && tc_call_buf(c, b) == MPI_IN_PLACE) return;   /* native.c rewrites those */
        if (!c->use[b]) continue;                                   /* not significant here: not used */
        if (c->tsize[b] == 0) return;                               /* native.c rewrites those */
        if (tc_call_type_named(t)) continue;
        if (tc_watch_type(t) != MPI_SUCCESS) return;
        m->watched = 1;
    }
    if (native ? !per_peer_keeps_counts(x, c, m) : tc_memo_vec_remember(x, c, a, al, scount, rcount) != 0) return;
    m->types_freed = freed;
    m->stype = c->stype, m->rtype = c->rtype;
    m->root = c->root, m->op = c->op;
    m->algo = al;
    m->config_gen = cfg->generation;
    if (learned) tc_learn_memo(x, c->d->coll, lt);   /* the learner's count of calls the fast paths may serve */
    m->valid = 0;                                     /* never the regular fast path: per-peer counts */
    int fast = !learned || m->learn != NULL;
    m->pass = native && fast;
    m->vsched = !native && fast;
}

/* The memo serves this call: same scalars, buffers that the full checks
 * would pass, no watched derived type freed since (a freed type's handle
 * may come back as another type: its size, whether it is committed and
 * which ops take it were checked on the full path), the same commutativity
 * of a user op, and a schedule still in the cache. */
static int memo_serves(const tc_call_memo *m, const tc_ctx *x, const tc_call *c)
{
    if (!m->valid || m->scount != c->scount || m->rcount != c->rcount || m->stype != c->stype ||
        m->rtype != c->rtype || m->root != c->root || m->op != c->op)
        return 0;
    const tc_coll_desc *d = c->d;
    int ip_arg = d->in_place.arg;
    if ((tc_call_buf(c, ip_arg) == MPI_IN_PLACE && tc_coll_in_place_allowed(d, x->rank, c->root)) !=
        m->in_place)
        return 0;
    if (m->watched && m->types_freed != tc_types_freed()) return 0;
    if (m->use[TC_BUF_SEND] && m->use[TC_BUF_RECV] && c->sbuf == c->rbuf) return 0;   /* aliased: checked */
    for (int b = TC_BUF_SEND; b <= TC_BUF_RECV; b++) {
        if (!m->use[b]) continue;
        const void *buf = tc_call_buf(c, b);
        if (buf == MPI_IN_PLACE || (!buf && tc_call_count(c, b) > 0 && m->tsize[b] > 0)) return 0;
    }
    int commutative = 1;
    if (!m->predefined_op && (PMPI_Op_commutative(c->op, &commutative) != MPI_SUCCESS ||
                              commutative != m->commutative))
        return 0;
    return !m->sched || m->epoch == x->cache_epoch;
}

/* Whether the memo's choice is the one the call asks for: the selection's
 * (algorithm NULL) or the entry named (its catalog name; an alias or a
 * parameter spelled otherwise takes the full path). */
static inline int memo_choice(const tc_call_memo *m, const char *algorithm)
{
    if (!algorithm) return !m->named;
    return m->named && strcmp(m->algo->name, algorithm) == 0;
}

/* The record completed from the memo, as the full path's checks would. */
static inline void fill_from_memo(tc_call *c, const tc_ctx *x, const tc_call_memo *m)
{
    c->rank = x->rank;
    c->size = x->size;
    c->in_place = m->in_place;
    c->use[0] = m->use[0], c->use[1] = m->use[1];
    c->tsize[0] = m->tsize[0], c->tsize[1] = m->tsize[1];
    c->bytes = m->bytes;
}

/* With TOPOCOLL_EXPLAIN every call explains itself on the full path; so
 * does every call under TOPOCOLL_CHECK. */
int tc_memo_call(tc_call *c, const tc_config *cfg, const char *algorithm, int *rc)
{
    if (c->comm == MPI_COMM_NULL || cfg->explain || cfg->check_on) return 0;
    tc_ctx *x = tc_ctx_last_of(c->comm);   /* inline: the usual case, no call */
    if (!x && !(x = tc_ctx_lookup(c->comm))) return 0;
    tc_call_memo *m = &x->memo[c->d->coll];
    if (m->config_gen != cfg->generation || !m->valid || !memo_choice(m, algorithm) ||
        !memo_serves(m, x, c) || m->learn_left == 0)   /* 0: the learner's re-check is due */
        return 0;
    m->learn_left--;
    fill_from_memo(c, x, m);
    tc_record_algorithm(m->algo->name);
    if (m->typed) *rc = tc_run_schedule_typed(x, m->sched, c, &m->args, m->types, m->alias_off);
    else *rc = m->sched ? tc_run_schedule(x, m->sched, c, &m->args) : tc_run_unscheduled(x, m->algo, c);
    if (*rc != MPI_SUCCESS) *rc = tc_raise_mpi(c->comm, *rc, c->fn);
    return 1;
}

void tc_memo_drop_blocking(tc_ctx *x)
{
    for (int k = 0; k < TOPOCOLL_NCOLL; k++) tc_learn_memo_flush(&x->memo[k]);
    memset(x->memo, 0, sizeof x->memo);
    tc_vmemo_forget(x);
}

/* ---- the nonblocking calls' memo (nb_call.c) -------------------------------- */

void tc_memo_remember_nb(tc_ctx *x, const tc_call *c, const tc_args *a, const tc_algo *al, const tc_sched *s,
                         int named)
{
    tc_call_memo *m = &x->nb_memo[c->d->coll];
    m->valid = 0;
    if (al) (void)memo_fill(m, x, c, a, al, s, named);
}

const tc_call_memo *tc_memo_nb(tc_call *c, const tc_config *cfg, const char *algorithm, tc_ctx **out)
{
    /* (a race's trials take the memo as the calls they stand for would
     * without TOPOCOLL_EXPLAIN) */
    if (c->comm == MPI_COMM_NULL || (cfg->explain && !tc_nb_trial) || cfg->check_on || c->d->vcounts) return NULL;
    tc_ctx *x = tc_ctx_last_of(c->comm);
    if (!x && !(x = tc_ctx_lookup(c->comm))) return NULL;
    tc_call_memo *m = &x->nb_memo[c->d->coll];
    if (m->config_gen != cfg->generation || !m->valid || !memo_choice(m, algorithm) || !memo_serves(m, x, c))
        return NULL;
    fill_from_memo(c, x, m);
    tc_record_algorithm(m->algo->name);
    *out = x;
    return m;
}
