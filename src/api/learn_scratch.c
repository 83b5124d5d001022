/*
 * Learning on scratch buffers (see learn_scratch.h).
 *
 * The race of forms, steps (every rank alike):
 *   1. the persistent form: one request per candidate, made by name on the
 *      scratch record (collective, as an init is); the nonblocking form
 *      makes a call by name each time;
 *   2. TC_RACE_WARM untimed rounds over the candidates, then TC_RACE_BLOCKS
 *      rounds in which each candidate runs one untimed call (the memo of a
 *      call by name is made again there: the candidates alternate) and
 *      TC_RACE_BLOCK calls and waits, their times summed (with the
 *      application's computation between call and wait, nb_usage.h: the
 *      ranks start each call together, and only the time in MPI counts):
 *      other work on the machine only adds time, so a candidate's time is
 *      its least block;
 *      rounds in turn spread the machine's moods over all candidates
 *      alike; nothing is explained meanwhile (an explain line per call
 *      would slow topocoll's candidates, not the MPI library's);
 *   3. one reduction (MAX over the ranks: a collective is as slow as its
 *      slowest rank) of the times and of the candidates' schedule rounds;
 *      a candidate wins over the earlier ones (the learner's faster) only
 *      where its agreed time is more than a tenth below theirs, and among
 *      the candidates within a tenth of the winner the fewest rounds win
 *      (tc_learn_race_pick: a form with fewer rounds needs fewer progress
 *      calls, and overlaps better with computation).
 * A candidate's errors go to MPI_ERRORS_RETURN meanwhile (it then counts as
 * not timed); its calls are left out of the run summary (tc_nb_trial).
 * Cost: 38 calls per candidate (with computation, each after a barrier and
 * up to TC_NB_USAGE_GAP_MAX of busy time), in nanoseconds and integers only
 * (no floating-point flag raised in the caller's environment).
 */
#include "api/learn_scratch.h"

#include <stdio.h>
#include <stdlib.h>

#include "api/explain.h"
#include "api/learn_call.h"
#include "api/nb_requests.h"
#include "api/stats.h"

enum { TC_RACE_WARM = 2, TC_RACE_BLOCKS = 4, TC_RACE_BLOCK = 8 };

int tc_scratch_eligible(const tc_call *c)
{
    return tc_learn_on(tc_config_get(), c->d->coll) && !c->d->vcounts && !c->mismatch &&
           (!c->d->reduction || tc_call_op_predefined(c->op)) && c->size > 0 &&
           c->bytes <= TC_SCRATCH_MAX / c->size;
}

/* Bytes that n elements of type t span, and their true lower bound in *lb;
 * -1 where they cannot be had or exceed TC_SCRATCH_MAX. */
static int64_t span_of(MPI_Datatype t, int64_t n, MPI_Aint *lb)
{
    MPI_Aint tlb, text, l, ext;
    *lb = 0;
    if (n <= 0) return 0;
    if (PMPI_Type_get_true_extent(t, &tlb, &text) != MPI_SUCCESS || PMPI_Type_get_extent(t, &l, &ext) != MPI_SUCCESS ||
        ext < 0 || text < 0)
        return -1;
    if (ext > 0 && n - 1 > (TC_SCRATCH_MAX - (int64_t)text) / (int64_t)ext) return -1;
    *lb = tlb;
    return (n - 1) * (int64_t)ext + (int64_t)text;
}

static void release_mem(tc_scratch *s)
{
    free(s->mem[0]);
    free(s->mem[1]);
    s->mem[0] = s->mem[1] = NULL;
}

/* The scratch record (tc_scratch_begin's); 0 where the memory could not be
 * had (s then holds nothing to free). */
static int scratch_make(const tc_call *c, tc_scratch *s)
{
    tc_call *r = &s->call;
    s->mem[0] = s->mem[1] = NULL;
    *r = *c;   /* the record's completed fields again from the checks */
    r->rank = r->size = r->in_place = r->staged = r->mismatch = 0;
    r->use[0] = r->use[1] = r->tsize[0] = r->tsize[1] = 0;
    r->bytes = 0;
    r->v64 = NULL;
    int64_t n = (int64_t)c->size * (c->scount > c->rcount ? c->scount : c->rcount);
    const void *user[2] = { c->sbuf, c->rbuf };
    void *to[2] = { (void *)c->sbuf, c->rbuf };
    for (int b = 0; b < 2; b++) {
        if (!c->use[b] || user[b] == MPI_IN_PLACE) continue;
        if (b == TC_BUF_RECV && c->use[TC_BUF_SEND] && user[1] == user[0]) {
            to[1] = to[0];
            continue;
        }
        MPI_Aint lb;
        int64_t bytes = span_of(tc_call_type(c, b), n, &lb);
        if (bytes < 0 || !(s->mem[b] = calloc(1, bytes > 0 ? (size_t)bytes : 1))) {
            release_mem(s);
            return 0;
        }
        to[b] = (char *)s->mem[b] - lb;
    }
    r->sbuf = to[TC_BUF_SEND];
    r->rbuf = to[TC_BUF_RECV];
    return 1;
}

void tc_scratch_free(tc_scratch *s)
{
    release_mem(s);
    tc_fp_restore(&s->fp);
}

int tc_scratch_begin(tc_ctx *x, const tc_call *c, const tc_args *a, tc_scratch *s)
{
    tc_fp_hold(&s->fp);
    int mine = tc_learn_prepare(x, c, a) >= 0 && tc_scratch_eligible(c) && scratch_make(c, s), all = mine;
    if (PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, x->comm) == MPI_SUCCESS && all) return 1;
    if (mine) release_mem(s);
    tc_fp_restore(&s->fp);
    return 0;
}

int tc_scratch_settle(tc_ctx *x, const tc_call *c, const tc_args *a, const tc_scratch *s, int max)
{
    int calls = 0;
    if (tc_learn_settled(x, c, a)) return 0;
    tc_learn_hurry(x, c, a);
    while (calls < max && !tc_learn_settled(x, c, a)) {
        tc_call once = s->call;
        if (tc_call_collective_unrecorded(&once) != MPI_SUCCESS) break;
        calls++;
    }
    return calls;
}

/* ---- the race of forms ------------------------------------------------------ */

typedef struct trial {
    const tc_algo *al;
    MPI_Request req;   /* the persistent form's request */
    uint64_t best;     /* least block so far (TC_RACE_UNTIMED: none yet; UINT64_MAX: failed) */
} trial;

/* How the race runs each call: back to back, or as the application did
 * (nb_usage.h): computation between the call and its wait, test calls in
 * it, and only the time in MPI counted (what the application's
 * computation does not hide). */
typedef struct race_form {
    int persistent;
    uint64_t gap_ns;   /* 0: back to back */
    unsigned tests;
    MPI_Comm sync;     /* as the application ran them (on every rank alike): a barrier on it,
                          not timed, before each call; MPI_COMM_NULL: none */
} race_form;

/* Busy until t (ns, tc_stats_now's clock): the application's computation. */
static void compute_until(uint64_t t)
{
    while (tc_stats_now() < t) {
    }
}

/* The computation and test calls between a trial's start and its wait;
 * returns the time spent in the test calls. */
static uint64_t between(MPI_Request *r, const race_form *f)
{
    uint64_t in_mpi = 0, piece = f->gap_ns / (f->tests + 1), t = tc_stats_now();
    for (unsigned i = 0; i < f->tests; i++) {
        compute_until(t += piece);
        uint64_t t0 = tc_stats_now();
        int flag = 0;
        (void)tc_nb_test(r, &flag, MPI_STATUS_IGNORE);
        uint64_t t1 = tc_stats_now();
        in_mpi += t1 - t0;
        t += t1 - t0;
    }
    compute_until(t + piece);
    return in_mpi;
}

/* One call of the trial's form and its wait; *ns its time (in MPI only,
 * where f has computation between them). */
static int trial_once(trial *t, const tc_scratch *s, const race_form *f, uint64_t *ns)
{
    int rc;
    /* the ranks start together, as the overlapped calls of an application
     * in step do: a rank that starts late would find its peers' messages
     * there and show a form's later rounds as free */
    if (f->sync != MPI_COMM_NULL && (rc = PMPI_Barrier(f->sync)) != MPI_SUCCESS) return rc;
    uint64_t t0 = tc_stats_now(), hidden = 0;
    MPI_Request once_req = MPI_REQUEST_NULL, *r = &once_req;
    if (f->persistent) {
        r = &t->req;
        rc = tc_nb_start(r);
    } else {
        tc_call once = s->call;
        if (t->al->req & TC_REQ_NATIVE) rc = tc_run_native_nb(&once, 0, MPI_INFO_NULL, r);
        else rc = tc_nb_call(&once, 1, t->al->name, 0, MPI_INFO_NULL, r);
    }
    if (rc != MPI_SUCCESS) return rc;
    if (f->gap_ns) {
        uint64_t t1 = tc_stats_now(), tests = between(r, f);
        hidden = tc_stats_now() - t1 - tests;   /* the computation's time */
    }
    rc = tc_nb_wait(r, MPI_STATUS_IGNORE);
    *ns = tc_stats_now() - t0 - hidden;
    return rc;
}

/* n calls of the trial after an untimed one (its memo of the call made
 * again: the candidates alternate); UINT64_MAX: an error. */
static uint64_t trial_block(trial *t, const tc_scratch *s, const race_form *f, int n)
{
    uint64_t ns, sum = 0;
    if (trial_once(t, s, f, &ns) != MPI_SUCCESS) return UINT64_MAX;
    for (int i = 0; i < n; i++) {
        if (trial_once(t, s, f, &ns) != MPI_SUCCESS) return UINT64_MAX;
        sum += ns;
    }
    return sum;
}

static void race_rounds(trial *t, int n, const tc_scratch *s, const race_form *f)
{
    for (int w = 0; w < TC_RACE_WARM; w++)
        for (int k = 0; k < n; k++)
            if (t[k].best != UINT64_MAX && trial_block(&t[k], s, f, 0) == UINT64_MAX) t[k].best = UINT64_MAX;
    for (int b = 0; b < TC_RACE_BLOCKS; b++)
        for (int k = 0; k < n; k++) {
            if (t[k].best == UINT64_MAX) continue;   /* (the same at every rank but for a local error) */
            uint64_t ns = trial_block(&t[k], s, f, TC_RACE_BLOCK);
            if (ns < t[k].best || ns == UINT64_MAX) t[k].best = ns;
        }
}

/* The race's form for usage u (NULL: back to back). */
static race_form form_of(int persistent, const tc_nb_usage *u, MPI_Comm sync)
{
    race_form f = { persistent, 0, 0, MPI_COMM_NULL };
    if (!u) return f;
    f.sync = sync;
    f.gap_ns = u->gap_ns < TC_NB_USAGE_GAP_MAX ? u->gap_ns : TC_NB_USAGE_GAP_MAX;
    f.tests = u->tests < TC_NB_USAGE_TESTS_MAX ? u->tests : TC_NB_USAGE_TESTS_MAX;
    return f;
}

void tc_scratch_race(tc_ctx *x, const tc_call *c, const tc_args *a, const tc_scratch *s, const tc_algo *const *cand,
                     int n, int persistent, const tc_nb_usage *u, tc_race_result *out)
{
    race_form f = form_of(persistent, u, x->comm);
    out->n = 0;
    out->winner = NULL;
    trial t[TC_SCRATCH_RACE_MAX];
    uint64_t mine[2 * TC_SCRATCH_RACE_MAX], all[2 * TC_SCRATCH_RACE_MAX];   /* times, then rounds */
    MPI_Errhandler user;
    if (n > TC_SCRATCH_RACE_MAX) n = TC_SCRATCH_RACE_MAX;
    if (n < 1 || PMPI_Comm_get_errhandler(c->comm, &user) != MPI_SUCCESS) return;
    (void)PMPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN);
    tc_nb_trial = 1;
    for (int k = 0; k < n; k++) {
        t[k] = (trial){ cand[k], MPI_REQUEST_NULL, TC_RACE_UNTIMED };
        if (!persistent) continue;
        tc_call once = s->call;
        if (tc_nb_call(&once, 1, cand[k]->name, 1, MPI_INFO_NULL, &t[k].req) != MPI_SUCCESS ||
            t[k].req == MPI_REQUEST_NULL)
            t[k].best = UINT64_MAX;
    }
    race_rounds(t, n, s, &f);
    for (int k = 0; k < n; k++) {
        if (t[k].req != MPI_REQUEST_NULL) (void)tc_nb_request_free(&t[k].req);
        mine[k] = t[k].best;
        mine[n + k] = tc_nb_form_rounds(x, c, a, cand[k], persistent || x->ring_made == 1);
    }
    tc_nb_trial = 0;
    (void)PMPI_Comm_set_errhandler(c->comm, user);
    (void)PMPI_Errhandler_free(&user);
    if (PMPI_Allreduce(mine, all, 2 * n, MPI_UINT64_T, MPI_MAX, x->comm) != MPI_SUCCESS) return;
    int best = tc_learn_race_pick(all, all + n, n);
    out->n = n;
    for (int k = 0; k < n; k++) {
        out->cand[k] = cand[k];
        out->ns[k] = all[k];
        out->rounds[k] = all[n + k];
    }
    out->winner = best < 0 ? NULL : cand[best];
}

/* Appends ", ring 17.6 ms 7 rounds" for candidate k of r (the time per
 * call of its least block) to why, of size bytes, *len of them used. */
static void race_entry(char *why, size_t size, size_t *len, const tc_race_result *r, int k)
{
    char t[32] = "not timed", n[32] = "";
    double us = (double)r->ns[k] / 1e3 / TC_RACE_BLOCK;
    if (r->ns[k] < TC_RACE_UNTIMED)
        snprintf(t, sizeof t, us >= 1e3 ? "%.3g ms" : "%.3g us", us >= 1e3 ? us / 1e3 : us);
    if (r->rounds[k] != TC_RACE_ROUNDS_UNKNOWN) snprintf(n, sizeof n, " %llu rounds", (unsigned long long)r->rounds[k]);
    int w = snprintf(why + *len, size - *len, "%s%s %s%s", k ? ", " : ": ", r->cand[k]->name, t, n);
    *len = w < 0 || (size_t)w >= size - *len ? size - 1 : *len + (size_t)w;
}

void tc_scratch_explain(tc_ctx *x, const tc_call *c, const char *what, const char *form, int calls, int settled,
                        const tc_nb_usage *u, const tc_race_result *r)
{
    if (!tc_config_get()->explain) return;
    const tc_algo *winner = r->winner;
    char why[640];
    int w = snprintf(why, sizeof why, "%s: %d calls on scratch buffers, the key %s; %s%s forms timed", what,
                     calls, settled ? "settled" : "not settled (TOPOCOLL_LEARN_INIT)", winner ? "" : "no ", form);
    size_t len = w < 0 ? 0 : (size_t)w < sizeof why ? (size_t)w : sizeof why - 1;
    for (int k = 0; k < r->n; k++) race_entry(why, sizeof why, &len, r, k);
    if (u && len < sizeof why - 1) {
        race_form f = form_of(0, u, MPI_COMM_NULL);
        snprintf(why + len, sizeof why - len, "; as the application ran them: %.3g us of computation and %u test "
                 "calls between a call and its wait, the time in MPI", (double)f.gap_ns / 1e3, f.tests);
    }
    tc_explain(x, c->d->name, c->bytes, winner ? winner->name : "learning", why);
}
