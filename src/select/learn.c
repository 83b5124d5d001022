/*
 * The learner's state machine and its record of outcomes (see learn.h for
 * the schedule, the agreement and the cost).  MPI-free.
 */
#include "select/learn.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "select/select.h"

/* ---- the record of outcomes ----------------------------------------------- */

enum { TC_LEARN_RECORD_MAX = 512 };

static pthread_mutex_t record_lock = PTHREAD_MUTEX_INITIALIZER;
static tc_learn_outcome learned[TC_LEARN_RECORD_MAX], preloaded[TC_LEARN_RECORD_MAX];
static int nlearned, npreloaded;

static int same_key(const tc_learn_outcome *a, const tc_learn_outcome *b)
{
    return a->coll == b->coll && a->np == b->np && a->nnodes == b->nnodes && a->ppn == b->ppn &&
           a->min_bytes == b->min_bytes && a->op_class == b->op_class;
}

int tc_learn_outcomes(tc_learn_outcome *out, int max)
{
    pthread_mutex_lock(&record_lock);
    int n = nlearned;
    if (out)
        for (int i = 0; i < n && i < max; i++) out[i] = learned[i];
    pthread_mutex_unlock(&record_lock);
    return out && n > max ? max : n;
}

void tc_learn_publish(const tc_learn_outcome *o)
{
    pthread_mutex_lock(&record_lock);
    int i = 0;
    while (i < nlearned && !same_key(&learned[i], o)) i++;
    if (i < TC_LEARN_RECORD_MAX) {
        learned[i] = *o;
        if (i == nlearned) nlearned++;
    }
    pthread_mutex_unlock(&record_lock);
}

/* A name of coll's catalog in static storage, or NULL. */
static const char *catalog_name(topocoll_coll coll, const char *name)
{
    const tc_algo *al = name ? tc_catalog_find(coll, name) : NULL;
    return al ? al->name : NULL;
}

void tc_learn_preload(const tc_learn_outcome *in, int n)
{
    pthread_mutex_lock(&record_lock);
    for (int i = 0; i < n; i++) {
        tc_learn_outcome o = in[i];
        if (!(o.winner = catalog_name(o.coll, o.winner))) continue;
        int kept = 0;
        for (int k = 0; k < o.ntried && k < 8; k++) {
            const char *t = catalog_name(o.coll, o.tried[k]);
            if (!t) continue;
            o.tried[kept] = t;
            o.tried_s[kept++] = o.tried_s[k];
        }
        o.ntried = kept;
        o.from_file = 1;
        int j = 0;
        while (j < npreloaded && !same_key(&preloaded[j], &o)) j++;
        if (j == TC_LEARN_RECORD_MAX) break;
        preloaded[j] = o;
        if (j == npreloaded) npreloaded++;
    }
    pthread_mutex_unlock(&record_lock);
}

const tc_learn_outcome *tc_learn_preloaded(topocoll_coll coll, int np, int nnodes, int ppn, int64_t bytes,
                                           int op_class)
{
    const tc_learn_outcome *found = NULL;
    pthread_mutex_lock(&record_lock);
    for (int i = 0; i < npreloaded && !found; i++) {
        const tc_learn_outcome *o = &preloaded[i];
        if (o->coll == coll && o->np == np && o->nnodes == nnodes && o->ppn == ppn && bytes >= o->min_bytes &&
            bytes < o->max_bytes && (o->op_class == 0 || o->op_class == op_class))
            found = o;   /* entries are never moved once written */
    }
    pthread_mutex_unlock(&record_lock);
    return found;
}

void tc_learn_reset(void)
{
    pthread_mutex_lock(&record_lock);
    nlearned = npreloaded = 0;
    pthread_mutex_unlock(&record_lock);
}

/* ---- keys ----------------------------------------------------------------- */

int tc_learn_size_class(topocoll_coll coll, int64_t bytes)
{
    if (tc_select_size_per_rank(coll)) return -1;
    int k = 0;
    while (k < 63 && bytes > 0) {
        bytes >>= 1;
        k++;
    }
    return k;
}

void tc_learn_class_bounds(int cls, int64_t *min_bytes, int64_t *max_bytes)
{
    if (cls < 0) {
        *min_bytes = 0, *max_bytes = INT64_MAX;
    } else if (cls == 0) {
        *min_bytes = 0, *max_bytes = 1;
    } else {
        *min_bytes = (int64_t)1 << (cls - 1);
        *max_bytes = cls >= 63 ? INT64_MAX : (int64_t)1 << cls;
    }
}

int tc_learn_op_class(int reduction, int predefined_op, int commutative, int elem_size)
{
    if (!reduction) return 0;
    int lg = 0;
    while (lg < 15 && elem_size > 1) {
        elem_size >>= 1;
        lg++;
    }
    return 1 + (predefined_op ? 2 : 0) + (commutative ? 1 : 0) + 4 * lg;
}

/* ---- the state machine ---------------------------------------------------- */

tc_learn_params tc_learn_default_params(void)
{
    return (tc_learn_params){ .warmup = 1, .block = 4, .round1 = 2, .round2 = 2, .lag = 4, .race = 1.25,
                              .check = 128, .check_max = 1024, .check_block = 2, .check_samples = 5,
                              .drift = 1.5, .native_margin = 1.03, .native_path_s = 0.02e-6, .patience = 0, .payback = 0,
                              .explore_setup_s = 1e-3, .explore_calls = 90 };
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double tc_learn_median(double *v, int n)
{
    if (n <= 0) return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Start a round of the candidates alive (their samples cleared). */
static void start_round(tc_learner *l, tc_learn_phase phase)
{
    l->phase = phase;
    l->phase_start = l->calls;
    l->nalive = 0;
    memset(l->samp, 0, sizeof l->samp);
    memset(l->scnt, 0, sizeof l->scnt);
    for (int k = 0; k < l->ncand; k++)
        if (l->alive[k]) l->order[l->nalive++] = k;
}

static void explore(tc_learner *l)
{
    for (int k = 0; k < l->ncand; k++) l->alive[k] = 1;
    l->winner = -1;
    l->explorations++;
    l->explore_time = 0;
    l->explore_calls = 0;
    start_round(l, TC_LEARN_ROUND1);
}

static void settle(tc_learner *l, int winner)
{
    l->phase = TC_LEARN_SETTLED;
    l->winner = winner;
    l->best = winner;
    if (winner >= 0 && l->agreed[winner] > 0) l->winner_s = l->agreed[winner];
    double excess = l->explore_time - (double)l->explore_calls * l->winner_s;
    l->explore_s = excess > 0 ? excess : 0;
    l->check_every = l->prm.check;
    l->next_check = l->calls + (uint64_t)l->check_every;
    l->ncheck = 0;
    l->check_sum = 0;
    l->check_cnt = 0;
}

/* The parameters, clamped. */
static void set_params(tc_learner *l, const tc_learn_params *prm)
{
    l->prm = prm ? *prm : tc_learn_default_params();
    if (l->prm.round1 > TC_LEARN_MAX_SAMPLES) l->prm.round1 = TC_LEARN_MAX_SAMPLES;
    if (l->prm.round2 > TC_LEARN_MAX_SAMPLES) l->prm.round2 = TC_LEARN_MAX_SAMPLES;
    if (l->prm.check_samples > TC_LEARN_MAX_SAMPLES) l->prm.check_samples = TC_LEARN_MAX_SAMPLES;
    if (l->prm.check_samples < 1) l->prm.check_samples = 1;
    if (l->prm.lag < 0) l->prm.lag = 0;
    if (l->prm.warmup < 0) l->prm.warmup = 0;
    if (l->prm.block < 1) l->prm.block = 1;
    if (l->prm.round1 < 1) l->prm.round1 = 1;
    if (l->prm.round2 < 1) l->prm.round2 = 1;
    if (l->prm.check_block < 1) l->prm.check_block = 1;
    if (l->prm.patience < 0) l->prm.patience = 0;
    if (!(l->prm.payback > 0)) l->prm.payback = 0;
    if (!(l->prm.explore_setup_s > 0)) l->prm.explore_setup_s = 0;
    if (!(l->prm.explore_calls > 0)) l->prm.explore_calls = 0;
}

double tc_learn_worth_calls(const tc_learn_params *prm, double t)
{
    if (!(t > 0)) return 0;
    return prm->payback * (prm->explore_setup_s / t + prm->explore_calls);
}

void tc_learn_init_patient(tc_learner *l, topocoll_coll coll, int size_class, int op_class,
                           const tc_learn_params *prm)
{
    memset(l, 0, sizeof *l);
    l->coll = coll;
    l->size_class = size_class;
    l->op_class = op_class;
    set_params(l, prm);
    l->native = -1;
    l->best = -1;
    l->winner = -1;
    l->preload = -1;
    l->phase = TC_LEARN_PATIENT;
}

void tc_learn_begin(tc_learner *l, const tc_algo *const *cand, int n, int preload)
{
    l->ncand = 0;
    l->native = -1;
    l->best = -1;
    l->winner = -1;
    l->preload = -1;
    for (int i = 0; i < n && l->ncand < TC_LEARN_MAX_CAND; i++) {
        int dup = 0;
        for (int k = 0; k < l->ncand; k++) dup |= l->cand[k] == cand[i];
        if (dup || !cand[i]) continue;
        if (i == preload) l->preload = l->ncand;
        if (cand[i]->req & TC_REQ_NATIVE) l->native = l->ncand;
        l->cand[l->ncand++] = cand[i];
    }
    if (l->ncand <= 1) {   /* nothing to choose */
        settle(l, l->ncand - 1);
        return;
    }
    if (l->preload >= 0) {
        l->phase = TC_LEARN_PRELOAD;
        l->phase_start = l->calls;
        l->from_file = 1;
        return;
    }
    explore(l);
}

void tc_learn_init(tc_learner *l, topocoll_coll coll, int size_class, int op_class, const tc_algo *const *cand,
                   int n, int preload, const tc_learn_params *prm)
{
    tc_learn_init_patient(l, coll, size_class, op_class, prm);
    tc_learn_begin(l, cand, n, preload);
}

/* The calls of one block, and the round's length in calls. */
static uint64_t block_calls(const tc_learner *l)
{
    return (uint64_t)(l->prm.warmup + l->prm.block);
}

static uint64_t round_calls(const tc_learner *l)
{
    int blocks = l->phase == TC_LEARN_ROUND1 ? l->prm.round1 : l->prm.round2;
    return (uint64_t)l->nalive * (uint64_t)blocks * block_calls(l);
}

/* The least over candidate k's blocks of their mean times (HUGE_VAL when
 * no block has a timing: it declined here).  The least: what else runs on
 * the machine only ever adds time to a block. */
static double blocks_min(const tc_learner *l, int k)
{
    double best = HUGE_VAL;
    for (int b = 0; b < TC_LEARN_MAX_SAMPLES; b++)
        if (l->scnt[k][b] > 0 && l->samp[k][b] / l->scnt[k][b] < best) best = l->samp[k][b] / l->scnt[k][b];
    return best;
}

/* This rank's values for the reduction at the end of a round: each alive
 * candidate's median (HUGE_VAL when it has no timing: it declined here). */
static void fill_round(tc_learner *l)
{
    for (int k = 0; k < TC_LEARN_NRED; k++) l->send[k] = 0;
    for (int k = 0; k < l->ncand; k++)
        if (l->alive[k]) l->send[k] = blocks_min(l, k);
}

static tc_learn_plan start_reduction(tc_learner *l, tc_learn_plan p)
{
    p.start = 1;
    l->pending = 1;
    l->wait_at = l->calls + (uint64_t)l->prm.lag;
    return p;
}

static tc_learn_plan plan_exploring(tc_learner *l)
{
    tc_learn_plan p = { 0, 0, l->best, 0, 1, 0, 0 };
    if (l->phase == TC_LEARN_PRELOAD) {
        if (l->calls != l->phase_start) return p;
        p.cand = -1;
        for (int k = 0; k < TC_LEARN_NRED; k++) l->send[k] = 0;
        l->send[0] = l->preload, l->send[1] = -l->preload;
        return start_reduction(l, p);
    }
    uint64_t i = l->calls - l->phase_start, len = round_calls(l), bc = block_calls(l);
    if (i < len) {
        uint64_t blk = i / bc;   /* blocks in order: round b, candidate c */
        p.cand = l->order[blk % (uint64_t)l->nalive];
        p.timed = i % bc >= (uint64_t)l->prm.warmup;
        l->cur_block = (int)(blk / (uint64_t)l->nalive);
        return p;
    }
    if (i == len) {
        fill_round(l);
        return start_reduction(l, p);
    }
    return p;   /* (not reached: the reduction is pending) */
}

/* Settled: a re-check block of the winner starts at next_check (the
 * calls [next_check, next_check + check_block) go to the full path; done()
 * closes it), or, after check_samples blocks, the reduction. */
static tc_learn_plan plan_settled(tc_learner *l)
{
    tc_learn_plan p = { 0, 0, l->winner, 0, 0, 0, 0 };
    if (l->calls < l->next_check) {
        p.fast = 1;
        return p;
    }
    if (l->ncheck < l->prm.check_samples && l->winner >= 0) {
        p.timed = 1;
        return p;
    }
    for (int k = 0; k < TC_LEARN_NRED; k++) l->send[k] = 0;
    l->send[0] = l->ncheck ? tc_learn_median(l->check, l->ncheck) : 0;
    l->ncheck = 0;
    return start_reduction(l, p);
}

/* Gauging: block timed calls of the table's choice, then the reduction of
 * their mean (the calls in between and after: the table's, untimed). */
static tc_learn_plan plan_gauge(tc_learner *l)
{
    tc_learn_plan p = { 0, 0, -1, 0, 0, 0, 0 };
    uint64_t i = l->calls - l->phase_start;
    if (i < (uint64_t)l->prm.block) {
        p.timed = 1;
        return p;
    }
    for (int k = 0; k < TC_LEARN_NRED; k++) l->send[k] = 0;
    l->send[0] = l->gauge_cnt > 0 ? l->gauge_sum / l->gauge_cnt : 0;
    return start_reduction(l, p);
}

/* Patient: the table's choice, on the fast path, until the call of index
 * patience, which begins learning, or gauges first whether it is worth it
 * (payback set: a gauge found worth it clears it). */
static tc_learn_plan plan_patient(tc_learner *l)
{
    tc_learn_plan p = { 0, 0, -1, 0, 0, 0, 0 };
    if (l->calls < (uint64_t)l->prm.patience) {
        p.fast = 1;
        return p;
    }
    if (l->prm.payback > 0) {
        l->phase = TC_LEARN_GAUGE;
        l->phase_start = l->calls;
        l->gauge_sum = 0;
        l->gauge_cnt = 0;
        return plan_gauge(l);
    }
    p.begin = 1;
    return p;
}

/* The agreed time per call of the table's choice: learning begins at the
 * next call where the calls so far are worth it (or nothing was timed),
 * else the key is patient up to where they would be. */
static void after_gauge(tc_learner *l, const double *a)
{
    double t = a[0], need = tc_learn_worth_calls(&l->prm, t);
    l->phase = TC_LEARN_PATIENT;
    l->gauged_s = t > 0 && isfinite(t) ? t : 0;
    if (!(l->gauged_s > 0) || (double)l->calls >= need) {
        l->prm.payback = 0;   /* (the next plan begins) */
        return;
    }
    double next = 2.0 * (double)l->calls;
    if (need > next) next = ceil(need);
    l->prm.patience = next < 1e9 ? (int)next : 1000000000;
}

tc_learn_plan tc_learn_next(tc_learner *l)
{
    if (l->phase == TC_LEARN_PATIENT) return plan_patient(l);
    if (l->pending) {
        int settled = l->phase == TC_LEARN_SETTLED, gauging = l->phase == TC_LEARN_GAUGE;
        tc_learn_plan p = { l->calls >= l->wait_at, 0, settled ? l->winner : gauging ? -1 : l->best, 0,
                            !settled && !gauging, 0, 0 };
        return p;
    }
    if (l->phase == TC_LEARN_GAUGE) return plan_gauge(l);
    return l->phase == TC_LEARN_SETTLED ? plan_settled(l) : plan_exploring(l);
}

void tc_learn_record(tc_learner *l, int k, double seconds)
{
    if (l->phase == TC_LEARN_GAUGE) {   /* the table's choice (k: -1) */
        l->gauge_sum += seconds;
        l->gauge_cnt++;
        return;
    }
    if (l->phase == TC_LEARN_SETTLED) {
        if (k == l->winner) l->check_sum += seconds, l->check_cnt++;
        return;
    }
    if (k < 0 || k >= l->ncand || l->cur_block < 0 || l->cur_block >= TC_LEARN_MAX_SAMPLES) return;
    l->samp[k][l->cur_block] += seconds;
    l->scnt[k][l->cur_block]++;
}

/* The winner among the agreed times a (alive candidates): the fastest,
 * unless native is alive and that one does not beat it by the margin. */
static int pick(const tc_learner *l, const double *a)
{
    int best = -1;
    for (int k = 0; k < l->ncand; k++)
        if (l->alive[k] && isfinite(a[k]) && (best < 0 || a[k] < a[best])) best = k;
    int nat = l->native;
    if (best < 0 || nat < 0 || best == nat || !l->alive[nat] || !isfinite(a[nat])) return best;
    return a[best] * l->prm.native_margin + l->prm.native_path_s < a[nat] ? best : nat;
}

/* After round 1: drop the candidates slower than race x the best; the
 * survivors run round 2, or the only one settles. */
static void after_round1(tc_learner *l, const double *a)
{
    int best = -1;
    for (int k = 0; k < l->ncand; k++)
        if (l->alive[k] && isfinite(a[k]) && (best < 0 || a[k] < a[best])) best = k;
    int survivors = 0;
    for (int k = 0; k < l->ncand; k++) {
        if (!l->alive[k]) continue;
        l->agreed[k] = a[k];
        if (best < 0 || !isfinite(a[k]) || a[k] > l->prm.race * a[best]) {
            l->alive[k] = 0;
            l->agreed[k] = isfinite(a[k]) ? -a[k] : -HUGE_VAL;
        } else {
            survivors++;
        }
    }
    l->best = best;
    if (survivors <= 1) settle(l, best);
    else start_round(l, TC_LEARN_ROUND2);
}

static void after_round2(tc_learner *l, const double *a)
{
    int best = -1;
    for (int k = 0; k < l->ncand; k++) {
        if (!l->alive[k]) continue;
        l->agreed[k] = isfinite(a[k]) ? a[k] : -HUGE_VAL;
        if (isfinite(a[k]) && (best < 0 || a[k] < a[best])) best = k;
    }
    int chosen = pick(l, a);
    settle(l, chosen >= 0 ? chosen : best >= 0 ? best : l->best);
}

static void after_check(tc_learner *l, const double *a)
{
    if (l->winner_s <= 0) {
        l->winner_s = a[0];   /* a preloaded winner: its first agreed time is the reference */
    } else if (a[0] > 0 && a[0] > l->prm.drift * l->winner_s) {
        explore(l);
        return;
    }
    l->check_every = l->check_every * 2 > l->prm.check_max ? l->prm.check_max : l->check_every * 2;
    l->next_check = l->calls + (uint64_t)l->check_every;
}

void tc_learn_agreed(tc_learner *l, const double *a)
{
    l->pending = 0;
    switch (l->phase) {
    case TC_LEARN_PRELOAD:
        /* MAX of the index and of its negation: equal when every rank named it */
        if (a[0] == -a[1] && a[0] >= 0 && a[0] < l->ncand) {
            l->explore_time = 0, l->explore_calls = 0;
            settle(l, (int)a[0]);
        } else {
            explore(l);
        }
        break;
    case TC_LEARN_ROUND1: after_round1(l, a); break;
    case TC_LEARN_ROUND2: after_round2(l, a); break;
    case TC_LEARN_SETTLED: after_check(l, a); break;
    case TC_LEARN_GAUGE: after_gauge(l, a); break;
    case TC_LEARN_PATIENT: break;   /* (no reduction while patient) */
    }
}

void tc_learn_done(tc_learner *l, int exploring, double seconds)
{
    if (exploring) {
        l->explore_time += seconds;
        l->explore_calls++;
    }
    /* a re-check block ends: its mean is a sample (none when it had no
     * timing: the winner declined those calls) */
    if (l->phase == TC_LEARN_SETTLED && !l->pending && l->calls >= l->next_check &&
        l->calls + 1 >= l->next_check + (uint64_t)l->prm.check_block) {
        if (l->check_cnt > 0 && l->ncheck < TC_LEARN_MAX_SAMPLES) l->check[l->ncheck++] = l->check_sum / l->check_cnt;
        l->check_sum = 0;
        l->check_cnt = 0;
        l->next_check += (uint64_t)l->check_every;
    }
    l->calls++;
}

int tc_learn_quiet(const tc_learner *l)
{
    if (l->phase == TC_LEARN_PATIENT) return l->calls < (uint64_t)l->prm.patience;
    return l->phase == TC_LEARN_SETTLED && !l->pending && l->calls < l->next_check;
}

uint64_t tc_learn_fast_calls(const tc_learner *l)
{
    if (l->phase == TC_LEARN_PATIENT)
        return l->calls < (uint64_t)l->prm.patience ? (uint64_t)l->prm.patience - l->calls : 0;
    if (l->phase != TC_LEARN_SETTLED) return 0;
    uint64_t until = l->pending ? l->wait_at : l->next_check;
    return until > l->calls ? until - l->calls : 0;
}

void tc_learn_outcome_of(const tc_learner *l, int np, int nnodes, int ppn, tc_learn_outcome *o)
{
    memset(o, 0, sizeof *o);
    o->coll = l->coll;
    o->np = np, o->nnodes = nnodes, o->ppn = ppn;
    tc_learn_class_bounds(l->size_class, &o->min_bytes, &o->max_bytes);
    o->op_class = l->op_class;
    o->winner = l->winner >= 0 ? l->cand[l->winner]->name : NULL;
    o->winner_s = l->winner_s;
    o->native_s = l->native >= 0 ? fabs(l->agreed[l->native]) : 0;
    if (!isfinite(o->native_s)) o->native_s = 0;
    for (int k = 0; k < l->ncand && k < 8; k++) {
        o->tried[k] = l->cand[k]->name;
        o->tried_s[k] = l->agreed[k];
    }
    o->ntried = l->ncand < 8 ? l->ncand : 8;
    o->explore_s = l->explore_s;
    o->calls = l->calls;
    o->from_file = l->from_file;
}

int tc_learn_race_pick(const uint64_t *ns, const uint64_t *rounds, int n)
{
    int best = -1;
    for (int k = 0; k < n; k++)
        if (ns[k] < TC_RACE_UNTIMED && (best < 0 || ns[k] + ns[k] / 10 < ns[best])) best = k;
    if (best < 0 || rounds[best] == TC_RACE_ROUNDS_UNKNOWN) return best;
    uint64_t within = ns[best] + ns[best] / 10;
    int fewest = best;
    for (int k = 0; k < n; k++)
        if (ns[k] <= within && rounds[k] < rounds[fewest]) fewest = k;
    return fewest;
}
