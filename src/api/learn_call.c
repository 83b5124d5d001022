/*
 * Learning during the run, the MPI side (see learn_call.h).
 *
 * Steps of a call by selection with learning on:
 *   1. the key (collective, size class, op class: learn.h) finds or makes
 *      its learner on the context; the calls the fast path served since
 *      the learner last saw one are counted into it first;
 *   2. the learner's plan for this call index: wait for the reduction in
 *      flight and hand its agreed values to the learner (then plan again),
 *      start a reduction (MPI_Iallreduce, MAX, on the context's private
 *      communicator), and the candidate to run;
 *   3. the candidate runs when it accepts the call (else the default
 *      choice, and the call is not timed); only the run is timed;
 *   4. the call is counted; a settled learner lets the memo serve the next
 *      calls until its next re-check.
 * Every step happens at a call index every rank reaches alike, so all
 * ranks start and wait for each reduction at the same call and take the
 * same decision from the same agreed numbers.  Cost: one reduction of
 * TC_LEARN_NRED doubles per round or re-check; a clock read around the run
 * on the full path; nothing on the fast path but a counter.
 */
#define _POSIX_C_SOURCE 200809L   /* rand_r */
#include "api/learn_call.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/error.h"
#include "api/explain.h"
#include "core/fp_env.h"
#include "api/shm_calibrate.h"
#include "api/nb_race.h"
#include "select/select.h"
#include "select/selector.h"

int tc_learn_on(const tc_config *cfg, topocoll_coll coll)
{
    return cfg->learn && !cfg->force[coll];
}

/* ---- keys and learners ----------------------------------------------------- */

/* The patient keys, for the run summary: live ones (learner and memo, read
 * at the report: every thread is done then) and those of freed contexts
 * (the calls they saw).  Touched when a key is made, when its patience
 * ends and when its context goes; never per call. */
typedef struct waiting {
    const tc_learner *l;        /* NULL: its context is gone (calls final) */
    const tc_call_memo *m;      /* the memo whose fast-path calls it has not counted yet */
    tc_learn_wait w;
} waiting;

enum { TC_WAITING_MAX = 1024 };
static pthread_mutex_t waiting_lock = PTHREAD_MUTEX_INITIALIZER;
static waiting waits[TC_WAITING_MAX];
static int nwaits;

/* A key not learning yet: patient, or gauging whether learning is worth it. */
static int waiting_phase(const tc_learner *l)
{
    return l->phase == TC_LEARN_PATIENT || l->phase == TC_LEARN_GAUGE;
}

/* The learner's calls, with those the fast paths served since it last saw one. */
static uint64_t calls_so_far(const tc_learner *l, const tc_call_memo *m)
{
    return l->calls + (m && m->learn == l ? m->learn_base - m->learn_left : 0);
}

static int same_wait_key(const tc_learn_wait *a, const tc_learn_wait *b)
{
    return a->coll == b->coll && a->np == b->np && a->nnodes == b->nnodes && a->ppn == b->ppn &&
           a->size_class == b->size_class && a->op_class == b->op_class;
}

static void waiting_add(const tc_learn_slot *s, const tc_call_memo *m)
{
    pthread_mutex_lock(&waiting_lock);
    if (nwaits < TC_WAITING_MAX) {
        const tc_learner *l = &s->l;
        waits[nwaits++] = (waiting){ l, m, { l->coll, s->np, s->nnodes, s->ppn, l->size_class, l->op_class,
                                             l->prm.patience, 0 } };
    }
    pthread_mutex_unlock(&waiting_lock);
}

/* The learner waits no more: forgotten (learning), or kept with its final
 * count (its context goes: one entry per key shape, the most calls). */
static void waiting_end(const tc_learner *l, int keep)
{
    pthread_mutex_lock(&waiting_lock);
    int i = 0;
    while (i < nwaits && waits[i].l != l) i++;
    if (i < nwaits) {
        waiting w = waits[i];
        waits[i] = waits[--nwaits];
        if (keep) {
            w.w.calls = calls_so_far(l, w.m);
            w.l = NULL, w.m = NULL;
            int j = 0;
            while (j < nwaits && !(waits[j].l == NULL && same_wait_key(&waits[j].w, &w.w))) j++;
            if (j < nwaits) {
                if (w.w.calls > waits[j].w.calls) waits[j].w.calls = w.w.calls;
            } else {
                waits[nwaits++] = w;
            }
        }
    }
    pthread_mutex_unlock(&waiting_lock);
}

int tc_learn_waiting(tc_learn_wait *out, int max)
{
    pthread_mutex_lock(&waiting_lock);
    int n = 0;
    for (int i = 0; i < nwaits; i++) {
        tc_learn_wait w = waits[i].w;
        if (waits[i].l) {
            if (!waiting_phase(waits[i].l)) continue;
            w.calls = calls_so_far(waits[i].l, waits[i].m);
        }
        int j = 0;   /* one per key shape: the most calls */
        while (j < n && out && j < max && !same_wait_key(&out[j], &w)) j++;
        if (out && j < n && j < max) {
            if (w.calls > out[j].calls) out[j].calls = w.calls;
            continue;
        }
        if (out && n < max) out[n] = w;
        n++;
    }
    pthread_mutex_unlock(&waiting_lock);
    return out && n > max ? max : n;
}

static int largest_node(const tc_topo *t)
{
    int ppn = 0;
    for (int n = 0; n < t->nnodes; n++)
        if (t->node_start[n + 1] - t->node_start[n] > ppn) ppn = t->node_start[n + 1] - t->node_start[n];
    return ppn;
}

static int op_class_of(const tc_call *c, const tc_args *a)
{
    if (!c->d->reduction) return 0;
    int b = c->use[TC_BUF_SEND] ? TC_BUF_SEND : TC_BUF_RECV;
    return tc_learn_op_class(1, tc_call_op_predefined(c->op), a->commutative, c->tsize[b]);
}

/* The preloaded winner's index among cand, or -1. */
static int preload_index(const tc_ctx *x, const tc_call *c, int cls, int opc, const tc_algo **cand, int n,
                         int ppn)
{
    int64_t lo, hi;
    tc_learn_class_bounds(cls, &lo, &hi);
    const tc_learn_outcome *o = tc_learn_preloaded(c->d->coll, x->size, x->topo->nnodes, ppn, lo, opc);
    for (int k = 0; o && o->winner && k < n; k++)
        if (strcmp(cand[k]->name, o->winner) == 0) return k;
    return -1;
}

/* The learn file's winner for this key when every rank's file names the
 * same one and it accepts the call, else NULL.  One reduction, only with
 * TOPOCOLL_LEARN_FILE set (a setting of the whole job: every rank takes
 * part); the answer is the same on every rank. */
static const tc_algo *agreed_preload(const tc_ctx *x, const tc_call *c, const tc_args *a, int cls, int opc, int ppn)
{
    const char *file = getenv("TOPOCOLL_LEARN_FILE");
    if (!file || !*file) return NULL;
    int64_t lo, hi;
    tc_learn_class_bounds(cls, &lo, &hi);
    const tc_learn_outcome *o = tc_learn_preloaded(c->d->coll, x->size, x->topo->nnodes, ppn, lo, opc);
    const tc_algo *al = o && o->winner ? tc_catalog_find(c->d->coll, o->winner) : NULL;
    if (al && !tc_algo_accepts(al, a, x->topo, NULL)) al = NULL;
    long long id[2];
    id[0] = al ? tc_catalog_variant_index(al) + 1 : 0;
    id[1] = -id[0];
    if (PMPI_Allreduce(MPI_IN_PLACE, id, 2, MPI_LONG_LONG, MPI_MAX, x->comm) != MPI_SUCCESS ||
        id[0] != -id[1] || id[0] <= 0 || !al)
        return NULL;   /* no winner in the file, or not the same on every rank */
    return al;
}

/* A learn file's winner for this key that the candidates left out (the
 * calibrated memory model's pick, one of them, may differ from the run that
 * wrote the file): put among them when every rank names the same one (al,
 * agreed_preload's), so that the warm start can take it; the list stays the
 * same on every rank.  Returns the new count. */
static int add_preloaded(const tc_algo *al, const tc_algo **cand, int n)
{
    if (!al) return n;
    for (int k = 0; k < n; k++)
        if (cand[k] == al) return n;
    int last = n > 0 && (cand[n - 1]->req & TC_REQ_NATIVE) ? n - 1 : n;   /* native stays last */
    if (n == TC_LEARN_MAX_CAND) {   /* full: in the place of the last candidate but native */
        if (last > 0) cand[last - 1] = al;
        return n;
    }
    for (int k = n; k > last; k--) cand[k] = cand[k - 1];
    cand[last] = al;
    return n + 1;
}

/* The key's candidates (the selector's, the one-node memory model's pick
 * by its calibrated values where the context has them, by its defaults
 * otherwise: a candidate is timed anyway) and the learner's start on
 * them.  Alltoallv, whose bytes differ between ranks: one size agreed for
 * the class. */
static void begin_learning(tc_ctx *x, const tc_call *c, const tc_args *a, tc_learn_slot *s, int agreed,
                           const tc_algo *file_winner)
{
    const tc_algo *cand[TC_LEARN_MAX_CAND];
    int cls = s->l.size_class, opc = s->l.op_class;
    int64_t bytes = c->bytes;
    if (tc_select_size_per_rank(c->d->coll) &&   /* the largest over the ranks, as the selection's */
        PMPI_Allreduce(MPI_IN_PLACE, &bytes, 1, MPI_INT64_T, MPI_MAX, x->comm) != MPI_SUCCESS)
        bytes = 0;   /* (the error is the same on every rank) */
    tc_select_in in = tc_select_in_make(a, x->topo, bytes);
    in.shm = x->model;   /* the calibrated values where made, else the defaults' pick */
    int n = tc_select_candidates_in(&in, cand, TC_LEARN_MAX_CAND);
    if (!agreed) file_winner = agreed_preload(x, c, a, cls, opc, s->ppn);
    n = add_preloaded(file_winner, cand, n);
    waiting_end(&s->l, 0);
    tc_learn_begin(&s->l, cand, n, preload_index(x, c, cls, opc, cand, n, s->ppn));
}

/* A new key's learner: patient (TOPOCOLL_LEARN_PATIENCE calls of the
 * table's choice first, no candidates made, nothing collective), or
 * learning from this call: without patience, or where every rank's learn
 * file names the key's winner (a warm start costs no exploring; the
 * agreement is one reduction per key, only with TOPOCOLL_LEARN_FILE). */
static tc_learn_slot *make_slot(tc_ctx *x, const tc_call *c, const tc_args *a, int cls, int opc)
{
    if (x->nlearn == x->learn_cap) {
        int cap = x->learn_cap ? 2 * x->learn_cap : 8;
        tc_learn_slot **grown = realloc(x->learn, (size_t)cap * sizeof *grown);
        if (!grown) return NULL;
        x->learn = grown;
        x->learn_cap = cap;
    }
    tc_learn_slot *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->np = x->size, s->nnodes = x->topo->nnodes, s->ppn = largest_node(x->topo);
    tc_learn_params prm = tc_learn_default_params();
    prm.patience = tc_config_get()->learn_patience;
    prm.payback = tc_config_get()->learn_payback;
    tc_learn_init_patient(&s->l, c->d->coll, cls, opc, &prm);
    const tc_algo *file_winner = agreed_preload(x, c, a, cls, opc, s->ppn);
    if (prm.patience <= 0 || file_winner) begin_learning(x, c, a, s, 1, file_winner);
    else waiting_add(s, &x->memo[c->d->coll]);
    x->learn[x->nlearn++] = s;
    return s;
}

/* The key's learner, or NULL when it has none yet. */
static tc_learn_slot *slot_of(tc_ctx *x, const tc_call *c, const tc_args *a)
{
    int cls = tc_learn_size_class(c->d->coll, c->bytes), opc = op_class_of(c, a);
    for (int i = 0; i < x->nlearn; i++) {
        tc_learner *l = &x->learn[i]->l;
        if (l->coll == c->d->coll && l->size_class == cls && l->op_class == opc) return x->learn[i];
    }
    return NULL;
}

int tc_learn_ranked(tc_ctx *x, const tc_call *c, const tc_args *a, const tc_algo **out, int max)
{
    if (!tc_learn_on(tc_config_get(), c->d->coll)) return 0;
    tc_learn_slot *s = slot_of(x, c, a);
    if (!s || s->l.phase != TC_LEARN_SETTLED || s->l.pending) return 0;
    const tc_learner *l = &s->l;
    double t[TC_LEARN_MAX_CAND];
    int n = 0;
    for (int k = 0; k < l->ncand && n < max; k++) {
        double v = fabs(l->agreed[k]);   /* (dropped ones: negated) */
        if (k == l->native || !(v > 0) || !isfinite(v)) continue;
        int at = n++;   /* insertion, stable: ties keep the candidates' order */
        while (at > 0 && t[at - 1] > v) {
            t[at] = t[at - 1];
            out[at] = out[at - 1];
            at--;
        }
        t[at] = v;
        out[at] = l->cand[k];
    }
    return n;
}

int tc_learn_prepare(tc_ctx *x, const tc_call *c, const tc_args *a)
{
    if (!tc_learn_on(tc_config_get(), c->d->coll)) return -1;
    tc_fp_saved env;   /* the learn file's agreement and the candidates' pricing */
    tc_fp_hold(&env);
    tc_learn_slot *s = slot_of(x, c, a);
    if (!s) s = make_slot(x, c, a, tc_learn_size_class(c->d->coll, c->bytes), op_class_of(c, a));
    tc_fp_restore(&env);
    if (!s) return -1;
    return !tc_learn_settled(x, c, a);
}

void tc_learn_hurry(tc_ctx *x, const tc_call *c, const tc_args *a)
{
    tc_learn_slot *s = slot_of(x, c, a);
    if (!s) return;
    tc_call_memo *m = &x->memo[c->d->coll];
    if (m->learn == &s->l) {   /* the fast path's patient calls end here */
        tc_learn_memo_flush(m);
        m->valid = 0;
    }
    s->l.prm.payback = 0;
    if (s->l.phase == TC_LEARN_PATIENT && s->l.calls < (uint64_t)s->l.prm.patience)
        s->l.prm.patience = (int)s->l.calls;
}

tc_learn_slot *tc_learn_find(tc_ctx *x, const tc_call *c, const tc_args *a)
{
    return slot_of(x, c, a);
}

int tc_learn_settled(tc_ctx *x, const tc_call *c, const tc_args *a)
{
    const tc_learn_slot *s = slot_of(x, c, a);
    return s && s->l.phase == TC_LEARN_SETTLED && !s->l.pending;
}

void tc_learn_ctx_free(tc_ctx *x)
{
    tc_nb_race_forget(x);
    for (int i = 0; i < x->nlearn; i++) {
        if (waiting_phase(&x->learn[i]->l)) waiting_end(&x->learn[i]->l, 1);
        free(x->learn[i]);
    }
    for (int k = 0; k < TOPOCOLL_NCOLL; k++)
        if (x->memo[k].learn) {
            x->memo[k].valid = 0;
            x->memo[k].learn = NULL;
        }
    free(x->learn);
    x->learn = NULL;
    x->nlearn = x->learn_cap = 0;
}

/* ---- the reduction ---------------------------------------------------------- */

static void publish(const tc_learn_slot *s)
{
    if (s->l.phase != TC_LEARN_SETTLED || s->l.winner < 0) return;
    tc_learn_outcome o;
    tc_learn_outcome_of(&s->l, s->np, s->nnodes, s->ppn, &o);
    tc_learn_publish(&o);
}

/* The plan's reductions: finish (then plan again), start.  A start keeps
 * this rank's times; the finish, a few calls later at every rank alike,
 * reduces them with one blocking allreduce.  Not MPI_Iallreduce: Open MPI
 * 4.1's nonblocking collectives leave a progress function registered for
 * as long as the communicator lives, which every later MPI_Test and
 * MPI_Wait of the application would run (detect/comm_make.h). */
static int reduce(tc_ctx *x, tc_learn_slot *s, tc_learn_plan *p)
{
    int rc;
    if (p->finish) {
        if ((rc = PMPI_Allreduce(s->send, s->recv, TC_LEARN_NRED, MPI_DOUBLE, MPI_MAX, x->comm)) != MPI_SUCCESS)
            return rc;
        tc_learn_agreed(&s->l, s->recv);
        publish(s);
        *p = tc_learn_next(&s->l);
    }
    if (p->start) memcpy(s->send, s->l.send, sizeof s->send);
    return MPI_SUCCESS;
}

/* ---- the choice ----------------------------------------------------------- */

/* Candidate k serves this call: it accepts it (roots, in place, sizes). */
static int serves(const tc_ctx *x, const tc_call *c, const tc_args *a, const tc_algo *al)
{
    const char *why = NULL;
    return tc_algo_accepts(al, a, x->topo, &why) && (!al->generate || tc_call_sizes_fit(c));
}

/* "a,b,c" of the candidates (explain lines). */
static void tried_list(const tc_learner *l, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < l->ncand && used < n; k++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", k ? "," : "", l->cand[k]->name);
}

static int bind_learned(tc_ctx *x, const tc_call *c, const tc_args *a, const tc_algo **al, tc_learn_ticket *t);

/* Whether this rank prints explain lines. */
static int explaining(const tc_ctx *x)
{
    int level = tc_config_get()->explain;
    return level == 2 || (level == 1 && x->rank == 0);
}

/* The learned choice's explain text (the selector prefixes "learned: "):
 * "1.40x faster than native over N calls; tried a,b,c"; empty when nobody
 * reads it. */
static void learned_note(const tc_ctx *x, const tc_learner *l, char *note, size_t n)
{
    note[0] = '\0';
    if (!explaining(x)) return;
    char tried[200];
    tried_list(l, tried, sizeof tried);
    double nat = l->native >= 0 ? fabs(l->agreed[l->native]) : 0;
    if (l->from_file)
        snprintf(note, n, "from the learn file; candidates %s", tried);
    else if (l->ncand == 1)
        snprintf(note, n, "the only candidate for the communicator");
    else if (l->winner == l->native)
        snprintf(note, n, "native, the fastest over %llu calls; tried %s", (unsigned long long)l->explore_calls,
                 tried);
    else if (nat > 0 && isfinite(nat) && l->winner_s > 0)
        snprintf(note, n, "%.2fx faster than native over %llu calls; tried %s", nat / l->winner_s,
                 (unsigned long long)l->explore_calls, tried);
    else
        snprintf(note, n, "the fastest over %llu calls; tried %s", (unsigned long long)l->explore_calls, tried);
}

static void explain_choice(const tc_ctx *x, const tc_call *c, const tc_learner *l, const tc_learn_plan *p,
                           const tc_algo *al)
{
    if (!explaining(x)) {
        tc_record_algorithm(al->name);
        return;
    }
    char why[320], tried[200];
    tried_list(l, tried, sizeof tried);
    if (l->phase == TC_LEARN_SETTLED) {   /* (the winner goes through the selector) */
        snprintf(why, sizeof why, "learned; tried %s", tried);
    } else {
        int pos = 0;
        for (int i = 0; i < l->nalive; i++)
            if (l->order[i] == p->cand) pos = i + 1;
        snprintf(why, sizeof why, "exploring: candidate %d of %d, round %d; tried %s", pos, l->nalive,
                 l->phase == TC_LEARN_ROUND2 ? 2 : 1, tried);
    }
    tc_explain(x, c->d->name, c->bytes, al->name, why);
}

int tc_learn_bind(tc_ctx *x, const tc_call *c, const tc_args *a, const tc_algo **al, tc_learn_ticket *t)
{
    memset(t, 0, sizeof *t);
    t->k = -1;
    /* (no learning for empty calls, where every rank's size is the same;
     * alltoallv's differs per rank: one class, whatever this rank's bytes;
     * a barrier is always empty: one class) */
    if (!tc_learn_on(tc_config_get(), c->d->coll) ||
        (c->bytes <= 0 && !tc_select_size_per_rank(c->d->coll) && !c->d->synchronizes))
        return tc_bind_selected(x, c, a, al);
    /* the learner's arithmetic (and the cost model's, for the candidates)
     * in the caller's floating-point environment neither traps nor leaves
     * a flag (core/fp_env.h); a settled call without a re-check does none */
    tc_fp_saved env;
    tc_learn_slot *s = slot_of(x, c, a);
    int held = !s || !tc_learn_quiet(&s->l) || tc_config_get()->explain;
    if (held) tc_fp_hold(&env);
    if (!s) s = make_slot(x, c, a, tc_learn_size_class(c->d->coll, c->bytes), op_class_of(c, a));
    int rc;
    if (!s) {
        rc = tc_bind_selected(x, c, a, al);   /* no memory: not learning */
    } else {
        tc_learn_memo_flush(&x->memo[c->d->coll]);
        t->slot = s;
        rc = bind_learned(x, c, a, al, t);
    }
    if (held) tc_fp_restore(&env);
    return rc;
}

/* A patient key's call: the table's choice; the explain line says so. */
static int bind_patient(tc_ctx *x, const tc_call *c, const tc_args *a, const tc_algo **al, tc_learn_ticket *t)
{
    char note[96] = "";
    if (explaining(x))
        snprintf(note, sizeof note, "learning: patient, %llu of %d calls", (unsigned long long)t->slot->l.calls + 1,
                 t->slot->l.prm.patience);
    int rc = tc_bind_selected_noted(x, c, a, note, al);
    if (rc != MPI_SUCCESS) {
        tc_learn_done(&t->slot->l, 0, 0);
        t->slot = NULL;
        return rc;
    }
    t->algo = *al;
    return MPI_SUCCESS;
}

/* The table's choice where the learner runs none of its candidates (a
 * gauging key's explain line says so). */
static int bind_default(tc_ctx *x, const tc_call *c, const tc_args *a, const tc_learner *l, const tc_algo **al)
{
    if (l->phase != TC_LEARN_GAUGE || !explaining(x)) return tc_bind_selected(x, c, a, al);
    char note[96];
    snprintf(note, sizeof note, "learning: timing the table's choice at call %llu (is learning worth it?)",
             (unsigned long long)l->calls + 1);
    return tc_bind_selected_noted(x, c, a, note, al);
}

static int bind_learned(tc_ctx *x, const tc_call *c, const tc_args *a, const tc_algo **al, tc_learn_ticket *t)
{
    tc_learn_slot *s = t->slot;
    t->plan = tc_learn_next(&s->l);
    if (t->plan.begin) {   /* the patience is over: this call, the same on every rank */
        begin_learning(x, c, a, s, 0, NULL);
        t->plan = tc_learn_next(&s->l);
    }
    if (s->l.phase == TC_LEARN_PATIENT) return bind_patient(x, c, a, al, t);
    int rc = reduce(x, s, &t->plan);
    if (rc != MPI_SUCCESS) {
        tc_learn_done(&s->l, 0, 0);
        t->slot = NULL;
        return tc_raise_mpi(c->comm, rc, c->fn);
    }
    /* One candidate: the table's choice serves, not learned; but where the
     * selection size differs between ranks (alltoallv, one key per
     * communicator) the table would agree on a size with a reduction in
     * every call, so the key's only candidate serves as learned. */
    int k = s->l.ncand > 1 || tc_select_size_per_rank(c->d->coll) ? t->plan.cand : -1;
    if (k >= 0 && s->l.phase == TC_LEARN_SETTLED && k == s->l.winner && serves(x, c, a, s->l.cand[k])) {
        /* the selector's source "learned" (select/selector.h) */
        char note[320];
        learned_note(x, &s->l, note, sizeof note);
        t->k = k;
        if ((rc = tc_choose_learned(x, a, c->bytes, c->comm, s->l.cand[k], note, al)) != MPI_SUCCESS) {
            tc_learn_done(&s->l, 0, 0);
            t->slot = NULL;
            return rc;
        }
    } else if (k >= 0 && serves(x, c, a, s->l.cand[k])) {
        t->k = k;
        *al = s->l.cand[k];
        explain_choice(x, c, &s->l, &t->plan, *al);
    } else if ((rc = bind_default(x, c, a, &s->l, al)) != MPI_SUCCESS) {
        tc_learn_done(&s->l, 0, 0);
        t->slot = NULL;
        return rc;
    }
    t->algo = *al;
    return MPI_SUCCESS;
}

/* ---- the end of the call ------------------------------------------------------ */

/* TOPOCOLL_LEARN_NOISE: a random factor in [1 - f, 1 + f], per rank. */
static double noisy(double seconds)
{
    double f = tc_config_get()->noise;
    if (f <= 0) return seconds;
    static TC_THREAD_LOCAL unsigned seed;
    if (!seed) {
        int rank = 0;
        (void)PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
        seed = 2654435761u * (unsigned)(rank + 1) ^ (unsigned)getpid();
        if (!seed) seed = 1;
    }
    double u = (double)rand_r(&seed) / RAND_MAX;
    double v = seconds * (1 + f * (2 * u - 1));
    return v > 0 ? v : seconds * 1e-3;
}

void tc_learn_end(tc_ctx *x, tc_learn_ticket *t, const tc_algo *al, int rc)
{
    (void)x;
    if (!t->slot) return;
    tc_learner *l = &t->slot->l;
    if (!t->plan.timed && !t->plan.exploring) {   /* integers only */
        tc_learn_done(l, 0, 0);
        return;
    }
    tc_fp_saved env;
    tc_fp_hold(&env);
    double seconds = 1e-9 * (double)t->ns;
    /* timed only when the candidate ran whole as chosen */
    if (t->plan.timed && (t->k >= 0 || l->phase == TC_LEARN_GAUGE) && al == t->algo && rc == MPI_SUCCESS &&
        t->ns > 0)
        tc_learn_record(l, t->k, noisy(seconds));
    tc_learn_done(l, t->plan.exploring, seconds);
    tc_fp_restore(&env);
}

void tc_learn_memo(tc_ctx *x, topocoll_coll coll, const tc_learn_ticket *t)
{
    tc_call_memo *m = &x->memo[coll];
    if (!t->slot) return;   /* tc_memo_remember left learn NULL, learn_left UINT64_MAX */
    uint64_t fast = t->plan.fast ? tc_learn_fast_calls(&t->slot->l) : 0;
    if (!fast) {
        m->valid = 0;   /* the learner sees the next call of this collective */
        return;
    }
    m->learn = &t->slot->l;
    m->learn_left = m->learn_base = fast;
}
