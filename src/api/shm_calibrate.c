/* Calibration of the one-node allreduce memory model (see shm_calibrate.h). */
#define _POSIX_C_SOURCE 200809L
#include "api/shm_calibrate.h"
#include "detect/comm_make.h"

#include <math.h>   /* INFINITY: a macro */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/config.h"
#include "core/fp_env.h"
#include "api/call.h"
#include "api/shm_budget.h"
#include "exec/backoff.h"
#include "exec/cma.h"
#include "exec/membind.h"
#include "select/select.h"

#define CAL_BYTES (512 * 1024)     /* copied / reduced per rank and measure */
#define CAL_HEAD 4096              /* the flag's page before the data */
#define CAL_REPS 6                 /* per bandwidth measure: the fastest counts */
#define PINGPONG_MIN 10            /* round trips per pair at least, */
#define PINGPONG_MAX 1000          /* at most, */
#define PINGPONG_US 300.0          /* and beyond the least for at most this long */
#define SPINS_BEFORE_YIELD 2000
#define STOP UINT64_MAX
#define CMA_CALL_BYTES 64          /* one process_vm_readv of this size: its fixed cost */
#define CMA_CALL_REPS 10           /* the fastest of these */
#define CMA_REPS 4                 /* per process_vm_readv bandwidth: the fastest counts */
#define CALL_WARM 3                /* internal calls before the timed ones, */
#define CALL_BATCHES 5             /* batches of timed ones (the median counts), */
#define CALL_BATCH 32              /* calls per batch */

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

typedef struct cal {
    MPI_Comm comm;
    int rank, size;
    const tc_topo *t;
    MPI_Win win;
    char **base;           /* [size] each rank's segment: flag line, then data */
    double *local;         /* private buffer of CAL_BYTES */
    const tc_cma *cma;     /* the context's cross-memory attach (ok: measure it) */
    uint64_t *addr;        /* [size] every rank's `local` (cma only) */
} cal;

static _Atomic uint64_t *flag_of(const cal *c, int r) { return (_Atomic uint64_t *)c->base[r]; }
static double *data_of(const cal *c, int r) { return (double *)(c->base[r] + CAL_HEAD); }

static void cal_close(cal *c)
{
    if (c->win != MPI_WIN_NULL) (void)PMPI_Win_free(&c->win);
    free(c->base);
    free(c->local);
    free(c->addr);
}

static int cal_open(cal *c, const tc_ctx *x)
{
    *c = (cal){ x->comm, x->rank, x->size, x->topo, MPI_WIN_NULL, NULL, NULL, &x->shm.cma, NULL };
    MPI_Info info;
    char *mine = NULL;
    int rc = PMPI_Info_create(&info);
    if (rc != MPI_SUCCESS) return rc;
    (void)PMPI_Info_set(info, "alloc_shared_noncontig", "true");
    rc = tc_win_allocate_shared(CAL_HEAD + CAL_BYTES, 1, info, c->comm, &mine, &c->win);
    (void)PMPI_Info_free(&info);
    if (rc != MPI_SUCCESS) return rc;
    c->base = calloc((size_t)c->size, sizeof *c->base);
    c->local = calloc(CAL_BYTES / sizeof(double), sizeof(double));
    c->addr = calloc((size_t)c->size, sizeof *c->addr);
    if (!c->base || !c->local || !c->addr) return MPI_ERR_NO_MEM;
    for (int r = 0; r < c->size && rc == MPI_SUCCESS; r++) {
        MPI_Aint sz;
        int disp;
        rc = PMPI_Win_shared_query(c->win, r, &sz, &disp, &c->base[r]);
    }
    if (rc != MPI_SUCCESS) return rc;
    (void)tc_bind_memory_local(mine, CAL_HEAD + CAL_BYTES);   /* else first touch, below */
    atomic_store_explicit(flag_of(c, c->rank), 0, memory_order_relaxed);
    double *d = data_of(c, c->rank);
    for (size_t i = 0; i < CAL_BYTES / sizeof(double); i++) d[i] = 1.0;
    return PMPI_Barrier(c->comm);
}

/* Spin until *f satisfies want (eq: equals v; else: differs from v). */
static uint64_t spin(_Atomic uint64_t *f, uint64_t v, int eq)
{
    tc_backoff b;
    tc_backoff_init(&b, SPINS_BEFORE_YIELD, 1);
    for (;;) {
        uint64_t got = atomic_load_explicit(f, memory_order_acquire);
        if ((got == v) == eq) return got;
        tc_backoff_poll(&b);
    }
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The median of v[0..n) (sorts v): a descheduled rank (oversubscribed or
 * loaded machines) makes single samples 1000 times slower. */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The initiator's side: the fastest round trip, the hardware's (on a loaded
 * or oversubscribed machine most samples wait for a descheduled peer; the
 * median time of a real call, in `call`, carries that). */
static double ping(const cal *c, int a, int b)
{
    double t[PINGPONG_MAX];
    double t0 = now_us(), prev = t0, best;
    int i = 0;
    while (i < PINGPONG_MAX && (i < PINGPONG_MIN || prev - t0 < PINGPONG_US)) {
        atomic_store_explicit(flag_of(c, b), (uint64_t)i + 1, memory_order_release);
        (void)spin(flag_of(c, a), (uint64_t)i + 1, 1);
        double now = now_us();
        t[i++] = now - prev;
        prev = now;
    }
    atomic_store_explicit(flag_of(c, b), STOP, memory_order_release);
    best = t[0];
    for (int k = 1; k < i; k++)
        if (t[k] < best) best = t[k];
    return best;
}

/* Round trip between ranks a and b (microseconds, valid at a; 0 elsewhere). */
static int pingpong(const cal *c, int a, int b, double *rt)
{
    *rt = 0;
    if (c->rank == a) {
        *rt = ping(c, a, b);
    } else if (c->rank == b) {
        for (uint64_t last = 0;;) {
            last = spin(flag_of(c, b), last, 0);
            if (last == STOP) break;
            atomic_store_explicit(flag_of(c, a), last, memory_order_release);
        }
    }
    int rc = PMPI_Barrier(c->comm);
    atomic_store_explicit(flag_of(c, c->rank), 0, memory_order_relaxed);
    return rc == MPI_SUCCESS ? PMPI_Barrier(c->comm) : rc;
}

/* The first pair inside one socket (*a = -1: every socket has one rank) and
 * the first pair across two (*xa = -1: one socket). */
static void flag_pairs(const tc_topo *t, int *a, int *b, int *xa, int *xb)
{
    *a = *b = *xa = *xb = -1;
    for (int s = 0; s < t->nsockets && *a < 0; s++)
        if (tc_topo_sock_size(t, s) >= 2) {
            *a = tc_topo_sock_members(t, s)[0];
            *b = tc_topo_sock_members(t, s)[1];
        }
    if (t->nsockets >= 2) {
        *xa = tc_topo_sock_members(t, 0)[0];
        *xb = tc_topo_sock_members(t, 1)[0];
    }
}

/* The peer whose data rank r reads: the next rank of its socket (itself when
 * alone), or (cross) the same index of the next socket. */
static int peer_of(const tc_topo *t, int r, int cross)
{
    int s = t->sock_of[r], i = t->sock_idx[r];
    if (cross) s = (s + 1) % t->nsockets;
    else i++;
    return tc_topo_sock_members(t, s)[i % tc_topo_sock_size(t, s)];
}

/* Every rank at once: copy (reduce = 0) or reduce CAL_BYTES from peer's data;
 * the fastest of CAL_REPS, in GB/s. */
static int bandwidth(const cal *c, int peer, int reduce, double *gbs)
{
    double best = INFINITY;
    int rc = MPI_SUCCESS;
    for (int k = 0; k < CAL_REPS && rc == MPI_SUCCESS; k++) {
        if ((rc = PMPI_Barrier(c->comm)) != MPI_SUCCESS) break;
        double t0 = now_us();
        if (reduce)
            rc = PMPI_Reduce_local(data_of(c, peer), c->local, CAL_BYTES / (int)sizeof(double), MPI_DOUBLE, MPI_SUM);
        else
            memcpy(c->local, data_of(c, peer), CAL_BYTES);
        double t = now_us() - t0;
        if (t < best) best = t;
    }
    *gbs = CAL_BYTES / (best > 1e-3 ? best : 1e-3) / 1e3;
    return rc;
}

/* ---- cross-memory attach: every rank reads a peer's private buffer ------- */

/* The fastest of CMA_CALL_REPS reads of 64 bytes from peer, every rank at
 * once: the fixed cost of one process_vm_readv.  *bad: a read failed. */
static int cma_call_cost(const cal *c, int peer, double *us, int *bad)
{
    char buf[CMA_CALL_BYTES];
    double best = INFINITY;
    int rc = PMPI_Barrier(c->comm);
    for (int k = 0; k < CMA_CALL_REPS && rc == MPI_SUCCESS; k++) {
        double t0 = now_us();
        if (tc_cma_read_raw(c->cma->pids[peer], c->addr[peer], buf, sizeof buf) != 0) *bad = 1;
        double t = now_us() - t0;
        if (t < best) best = t;
    }
    *us = best;
    return rc;
}

/* Every rank at once reads CAL_BYTES of peer's private buffer into its own
 * part of the window; the fastest of CMA_REPS, the call's fixed cost taken
 * out (at most half the time), in GB/s. */
static int cma_bandwidth(const cal *c, int peer, double call_us, double *gbs, int *bad)
{
    double best = INFINITY;
    int rc = MPI_SUCCESS;
    for (int k = 0; k < CMA_REPS && rc == MPI_SUCCESS; k++) {
        if ((rc = PMPI_Barrier(c->comm)) != MPI_SUCCESS) break;
        double t0 = now_us();
        if (tc_cma_read_raw(c->cma->pids[peer], c->addr[peer], data_of(c, c->rank), CAL_BYTES) != 0) *bad = 1;
        double t = now_us() - t0;
        if (t < best) best = t;
    }
    double t = best - call_us > best / 2 ? best - call_us : best / 2;
    *gbs = CAL_BYTES / (t > 1e-3 ? t : 1e-3) / 1e3;
    return rc;
}

/* The cma values, where the context's cross-memory attach works (agreed by
 * every rank, so all measure or none). */
static int measure_cma(const cal *c, tc_shm_model *m)
{
    if (!c->cma->ok || !c->cma->pids) return MPI_SUCCESS;
    double t0 = now_us();
    uint64_t mine = (uint64_t)(uintptr_t)c->local;
    int bad = 0, rc = PMPI_Allgather(&mine, 1, MPI_UINT64_T, c->addr, 1, MPI_UINT64_T, c->comm);
    if (rc == MPI_SUCCESS) rc = cma_call_cost(c, peer_of(c->t, c->rank, 0), &m->cma_call_us, &bad);
    for (int l = 0; l < 2 && rc == MPI_SUCCESS; l++) {
        if (l == 1 && m->one_socket) break;
        rc = cma_bandwidth(c, peer_of(c->t, c->rank, l), m->cma_call_us, &m->cma_gbs[l], &bad);
    }
    if (m->one_socket) m->cma_gbs[1] = m->cma_gbs[0];
    m->cma_calibrated = !bad;   /* agree() puts the defaults back where a rank failed */
    m->cma_cost_ms = (now_us() - t0) / 1e3;
    return rc;
}

/* The MPI library's allreduce at tc_shm_model_native_bytes[]: the median of
 * a few single calls after one warm-up call. */
static int native_times(const cal *c, double *us)
{
    static const int reps[TC_SHM_MODEL_NNATIVE] = { 9, 9, 5, 3 };
    double *in = c->local, *out = data_of(c, c->rank), t[9] = { 0 };   /* both hold >= 256 KiB */
    int rc = MPI_SUCCESS;
    for (int i = 0; i < TC_SHM_MODEL_NNATIVE && rc == MPI_SUCCESS; i++) {
        int n = (int)(tc_shm_model_native_bytes[i] / (int64_t)sizeof(double));
        rc = PMPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, c->comm);
        if (rc == MPI_SUCCESS) rc = PMPI_Barrier(c->comm);
        for (int k = 0; k < reps[i] && rc == MPI_SUCCESS; k++) {
            double t0 = now_us();
            rc = PMPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, c->comm);
            t[k] = now_us() - t0;
        }
        us[i] = median(t, reps[i]);
    }
    return rc;
}

/* ---- the fixed cost of a shared-memory schedule's call ---------------------
 * 8 B allreduces by shm_dissemination on the context, run as a call runs
 * them once its choice is made: the context's cached schedule, bound to the
 * record of the call, on the executor (tc_run_schedule).  Internal calls:
 * no public entry point, no selection, nothing explained or counted in the
 * run summary. */

typedef struct cal_call {
    tc_call c;
    tc_args a;
    const tc_sched *s;
} cal_call;

/* The record and schedule of one 8 B allreduce of in into out; *ok 0 when
 * the entry declines or its node-shared memory cannot be had (every rank
 * alike: the budget's outcome is agreed on). */
static int cal_call_open(tc_ctx *x, double *in, double *out, cal_call *k, int *ok)
{
    const tc_algo *al = tc_catalog_find(TOPOCOLL_ALLREDUCE, "shm_dissemination");
    const char *why = NULL;
    int rc = MPI_SUCCESS;
    *ok = 0;
    k->c = (tc_call){ .d = tc_coll_desc_of(TOPOCOLL_ALLREDUCE), .fn = "calibration", .sbuf = in, .scount = 1,
                      .stype = MPI_DOUBLE, .rbuf = out, .rcount = 1, .rtype = MPI_DOUBLE, .op = MPI_SUM,
                      .comm = x->comm, .rank = x->rank, .size = x->size, .use = { 1, 1 },
                      .tsize = { (int)sizeof(double), (int)sizeof(double) }, .bytes = (int64_t)sizeof(double) };
    tc_call_make_ctx_args(&k->c, x, &k->a);
    if (!al || !tc_algo_accepts(al, &k->a, x->topo, &why)) return MPI_SUCCESS;
    tc_sched_key key = tc_run_key(al, &k->c, &k->a);
    if (!(k->s = tc_ctx_schedule(x, &key, &k->a, &rc))) return rc;
    int64_t need = k->s->shm_count * (int64_t)sizeof(double);
    if ((rc = tc_shm_budget_prepare(x, need, TOPOCOLL_ALLREDUCE, ok)) != MPI_SUCCESS || !*ok) return rc;
    k->s = tc_ctx_schedule(x, &key, &k->a, &rc);   /* cached: the same unless the windows flushed it */
    *ok = k->s != NULL;
    return rc;
}

static atomic_uint calibrations, internal_calls;

static int cal_call_run(tc_ctx *x, const cal_call *k)
{
    atomic_fetch_add_explicit(&internal_calls, 1, memory_order_relaxed);
    return tc_run_schedule(x, k->s, &k->c, &k->a);
}

/* The call's time less what the formula says without it (0 where the
 * entry cannot run: no call to measure). */
static int call_cost(const cal *c, tc_ctx *x, tc_shm_model *m)
{
    double in = 1.0, out = 0, t[CALL_BATCHES] = { 0 };
    cal_call k;
    int ok, rc = cal_call_open(x, &in, &out, &k, &ok);
    m->call_us = 0;
    if (rc != MPI_SUCCESS || !ok) return rc;
    for (int i = 0; i < CALL_WARM && rc == MPI_SUCCESS; i++) rc = cal_call_run(x, &k);
    /* batches of back-to-back calls: a call's own cost, not the ranks'
     * skew after a barrier (which single timed calls mostly measure) */
    for (int b = 0; b < CALL_BATCHES && rc == MPI_SUCCESS; b++) {
        if ((rc = PMPI_Barrier(c->comm)) != MPI_SUCCESS) break;
        double t0 = now_us();
        for (int i = 0; i < CALL_BATCH && rc == MPI_SUCCESS; i++) rc = cal_call_run(x, &k);
        t[b] = (now_us() - t0) / CALL_BATCH;
    }
    double us = median(t, CALL_BATCHES);
    tc_args a = { .coll = TOPOCOLL_ALLREDUCE, .size = c->size, .scount = 1, .rcount = 1, .commutative = 1,
                  .node_shm = 1 };
    tc_shm_shape sh = tc_shm_shape_of(&a, c->t, 8);
    double f = tc_shm_model_predict(m, "shm_dissemination", &sh);
    m->call_us = us > f ? us - f : 0;
    return rc;
}

/* Everyone takes the slowest rank's values: times up, bandwidths down. */
static int agree(MPI_Comm comm, tc_shm_model *m)
{
    enum { NV = 13 + TC_SHM_MODEL_NNATIVE };
    double v[NV] = { m->flag_us[0], m->flag_us[1], 1 / m->copy_gbs[0], 1 / m->copy_gbs[1],
                     1 / m->reduce_gbs[0], 1 / m->reduce_gbs[1], m->cost_ms, m->call_us,
                     1 / m->cma_gbs[0], 1 / m->cma_gbs[1], m->cma_call_us, -(double)m->cma_calibrated,
                     m->cma_cost_ms };
    for (int i = 0; i < TC_SHM_MODEL_NNATIVE; i++) v[13 + i] = m->native_us[i];
    int rc = PMPI_Allreduce(MPI_IN_PLACE, v, NV, MPI_DOUBLE, MPI_MAX, comm);
    if (rc != MPI_SUCCESS) return rc;
    m->flag_us[0] = v[0];
    m->flag_us[1] = v[1];
    m->copy_gbs[0] = 1 / v[2];
    m->copy_gbs[1] = 1 / v[3];
    m->reduce_gbs[0] = 1 / v[4];
    m->reduce_gbs[1] = 1 / v[5];
    m->cost_ms = v[6];
    m->call_us = v[7];
    m->cma_gbs[0] = 1 / v[8];
    m->cma_gbs[1] = 1 / v[9];
    m->cma_call_us = v[10];
    m->cma_calibrated = v[11] < 0;   /* every rank measured them */
    m->cma_cost_ms = v[12];
    if (!m->cma_calibrated) {        /* else the defaults, alike everywhere */
        tc_shm_model d;
        tc_shm_model_defaults(&d);
        m->cma_gbs[0] = d.cma_gbs[0];
        m->cma_gbs[1] = d.cma_gbs[1];
        m->cma_call_us = d.cma_call_us;
    }
    for (int i = 0; i < TC_SHM_MODEL_NNATIVE; i++) m->native_us[i] = v[13 + i];
    return MPI_SUCCESS;
}

/* The measures of one calibration into m (local values, not yet agreed). */
static int measure(const cal *c, tc_ctx *x, tc_shm_model *m)
{
    int a, b, xa, xb, rc = MPI_SUCCESS;
    flag_pairs(c->t, &a, &b, &xa, &xb);
    m->one_socket = xa < 0;
    if (a >= 0) rc = pingpong(c, a, b, &m->flag_us[0]);
    if (rc == MPI_SUCCESS && xa >= 0) rc = pingpong(c, xa, xb, &m->flag_us[1]);
    if (a < 0) m->flag_us[0] = m->flag_us[1];
    if (xa < 0) m->flag_us[1] = m->flag_us[0];
    for (int l = 0; l < 2 && rc == MPI_SUCCESS; l++) {
        if (l == 1 && m->one_socket) break;
        int peer = peer_of(c->t, c->rank, l);
        rc = bandwidth(c, peer, 0, &m->copy_gbs[l]);
        if (rc == MPI_SUCCESS) rc = bandwidth(c, peer, 1, &m->reduce_gbs[l]);
    }
    if (m->one_socket) {
        m->copy_gbs[1] = m->copy_gbs[0];
        m->reduce_gbs[1] = m->reduce_gbs[0];
    }
    if (rc == MPI_SUCCESS) rc = measure_cma(c, m);
    if (rc == MPI_SUCCESS) rc = native_times(c, m->native_us);
    return rc == MPI_SUCCESS ? call_cost(c, x, m) : rc;
}

/* Ranks that did not take part in a ping-pong hold 0: the agreement's
 * maximum gives the measuring rank's value. */
int tc_shm_model_calibrate(tc_ctx *x, tc_shm_model *out)
{
    atomic_fetch_add_explicit(&calibrations, 1, memory_order_relaxed);
    double t0 = now_us();
    tc_shm_model m;
    tc_shm_model_defaults(&m);
    m.flag_us[0] = m.flag_us[1] = 0;
    cal c;
    int rc = cal_open(&c, x);
    if (rc == MPI_SUCCESS) rc = measure(&c, x, &m);
    cal_close(&c);
    if (rc != MPI_SUCCESS) return rc;
    m.cost_ms = (now_us() - t0) / 1e3;
    m.source = "calibrated";
    if ((rc = agree(x->comm, &m)) != MPI_SUCCESS) return rc;
    *out = m;
    return MPI_SUCCESS;
}

/* ---- per process: TOPOCOLL_SHM_MODEL and the last calibration -------------- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int env_done, env_ok;
static tc_shm_model env_model;
static int have_cached;
static tc_shm_model cached;

/* TOPOCOLL_SHM_MODEL, parsed once: 1 when it gives the model. */
static int from_environment(const tc_ctx *x, tc_shm_model *m)
{
    (void)pthread_mutex_lock(&lock);
    if (!env_done) {
        const char *s = getenv("TOPOCOLL_SHM_MODEL");
        char err[256];
        tc_shm_model_defaults(&env_model);
        if (s) {
            env_ok = tc_shm_model_parse(s, &env_model, err, sizeof err) == 0;
            if (!env_ok && x->rank == 0) fprintf(stderr, "topocoll: %s; calibrating instead\n", err);
        }
        env_done = 1;
    }
    int ok = env_ok;
    if (ok) *m = env_model;
    (void)pthread_mutex_unlock(&lock);
    return ok;
}

/* This process's last values for a context of this socket shape, agreed on
 * by every rank, or a new calibration. */
static int obtain(tc_ctx *x, tc_shm_model *m)
{
    int one_socket = x->topo->nsockets <= 1;
    (void)pthread_mutex_lock(&lock);
    /* a context that can use cross-memory attach needs measured cma values */
    int have = have_cached && cached.one_socket == one_socket && (cached.cma_calibrated || !x->shm.cma.ok);
    if (have) *m = cached;
    (void)pthread_mutex_unlock(&lock);
    int all = have, rc = PMPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, x->comm);
    if (rc != MPI_SUCCESS) return rc;
    if (all) return agree(x->comm, m);
    if ((rc = tc_shm_model_calibrate(x, m)) != MPI_SUCCESS) return rc;
    (void)pthread_mutex_lock(&lock);
    cached = *m;
    have_cached = 1;
    (void)pthread_mutex_unlock(&lock);
    return MPI_SUCCESS;
}

/* The model of a context: TOPOCOLL_SHM_MODEL, else obtain().  This runs in
 * the caller's first one-node allreduce on a communicator, which may trap
 * floating-point exceptions or test their flags afterwards: the parsing,
 * the timings, the reductions timed and the agreement's divisions run under
 * tc_fp_hold, the caller's environment put back after (core/fp_env.h).  The
 * reduced data are trap-proof in any environment besides: ones and zeros
 * (cal_open, calloc), whose sums are small integers. */
static int model_held(tc_ctx *x, tc_shm_model *m)
{
    tc_fp_saved env;
    tc_fp_hold(&env);
    int rc = from_environment(x, m) ? MPI_SUCCESS : obtain(x, m);
    tc_fp_restore(&env);
    return rc;
}

/* ---- per context: made by it on first need ------------------------------- */

static void explain_model(const tc_ctx *x, const tc_shm_model *m)
{
    int level = tc_config_get()->explain;
    if (level == 0 || (level == 1 && x->rank != 0)) return;
    char line[512];
    tc_shm_model_format(m, line, sizeof line);
    fprintf(stderr, "topocoll explain: allreduce np=%d rank=%d: %s\n", x->size, x->rank, line);
}

/* Does the model choose this allreduce of x? */
static int model_applies(const tc_ctx *x, const tc_args *a)
{
    return tc_shm_model_applies(a, x->topo) && !tc_config_get()->force[TOPOCOLL_ALLREDUCE] &&
           tc_select_builtin_in_force();
}

/* The context's model made now (collective over x->comm). */
static int make_model(tc_ctx *x)
{
    tc_shm_model *m = malloc(sizeof *m);
    if (!m) return MPI_ERR_NO_MEM;
    int rc = model_held(x, m);
    if (rc != MPI_SUCCESS) {
        free(m);
        return rc;
    }
    x->model = m;
    explain_model(x, m);
    return MPI_SUCCESS;
}

void tc_shm_model_drop(tc_ctx *x)
{
    free(x->model);
    x->model = NULL;
}

const tc_shm_model *tc_shm_model_for(tc_ctx *x, const tc_args *a, int *rc)
{
    *rc = MPI_SUCCESS;
    if (!model_applies(x, a)) return NULL;
    if (!x->model) *rc = make_model(x);   /* the first need: collective */
    return x->model;
}

const tc_shm_model *tc_shm_model_patient(tc_ctx *x, const tc_args *a, int *rc)
{
    *rc = MPI_SUCCESS;
    if (!x->model && model_applies(x, a) && ++x->model_asked < TC_SHM_MODEL_PATIENCE) {
        tc_shm_model given;
        if (!from_environment(x, &given)) return NULL;
    }
    return tc_shm_model_for(x, a, rc);
}

void tc_shm_calibration_counts(unsigned *calibrations_made, unsigned *calls_made)
{
    *calibrations_made = atomic_load_explicit(&calibrations, memory_order_relaxed);
    *calls_made = atomic_load_explicit(&internal_calls, memory_order_relaxed);
}
