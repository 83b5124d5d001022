/*
 * topocoll-bench --overlap: how much of a nonblocking collective hides behind
 * computation, topocoll's implementation beside the MPI library's own.
 *
 * Method (the overlap benchmarks of the OSU Micro-Benchmarks, Ohio State
 * University, osu_iallreduce and its siblings: pure communication time,
 * a dummy computation as long as it, overall time, overlap percentage; with
 * the per-iteration maximum over ranks, Tukey's fences and the median over
 * repetitions of the blocking mode, docs/bench.md):
 *
 *   calibrate a busy loop (dependent floating-point operations, no memory
 *     traffic, no MPI calls) on every rank: a chunk of about 0.25 us
 *   for each size:
 *     for rep in 1..reps:
 *       for each implementation (native, auto, or -a's):     interleaved
 *         blocking:    iters x { barrier; t0; call; t }             -> t_blocking
 *         pure:        iters x { barrier; t0; start; wait; t }      -> t_pure
 *         compute target = t_pure (rank 0's, broadcast): chunks of the busy
 *           loop until MPI_Wtime says the target has passed
 *         overlapped:  iters x { barrier; t0; start; c0; compute, with
 *                      --test-calls tests spread in it; c1; wait; t }
 *                                      -> t_total (t - t0), t_cpu (c1 - c0)
 *         persistent:  init once; iters x { barrier; t0; start; wait; t };
 *                      free                                         -> t_persistent
 *         each phase: warm-up first (errors agreed after each call), the
 *         buffers filled after it, checked after the timed calls
 *     rank 0: median over repetitions of each time; overlap % =
 *       max(0, min(100, 100 (1 - (t_total - t_cpu) / t_pure)))
 *
 * Costs: per (size, implementation, repetition) four timed loops of `iters`
 * calls, the overlapped one about twice as long as the pure one.  Memory: the
 * buffers of one size and two time arrays of `iters` doubles (four on rank 0).
 * The vector collectives run the regular problem (overlap_calls.c).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

enum { PH_BLOCKING, PH_PURE, PH_OVERLAP, PH_PERSISTENT, NPHASES };
static const char *const phase_name[NPHASES] = { "blocking", "nonblocking", "overlapped",
                                                 "persistent" };
/* Per-repetition figures kept on rank 0: the four phases and the compute. */
enum { FIG_BLOCKING, FIG_PURE, FIG_TOTAL, FIG_PERSISTENT, FIG_CPU, NFIGS };

/* One (size, implementation). */
typedef struct ov_cell {
    bench_status status;
    char msg[MPI_MAX_ERROR_STRING + 96];
    char pers_why[MPI_MAX_ERROR_STRING + 96];   /* why t_persistent is empty */
    char served[64];                            /* what served the pure phase: "A", or "A>B" where the
                                                   first repetition's choice A became B by the last */
    double fig[NFIGS];                          /* medians over repetitions, us (rank 0) */
    int has_pers;
    long long bad[2];                           /* first wrong data: bytes, ranks */
    int bad_phase, bad_rep;
} ov_cell;

typedef struct ov_ctx {
    const bench_overlap_args *a;
    const char **impls;
    int nimpl;
    ov_cell *cells;                    /* [size * nimpl + impl] */
    double rate;                       /* busy-loop units per second, this rank */
    long chunk;                        /* units of about BUSY_CHUNK_S seconds */
    int oversub;                       /* topocoll_oversubscribed: 1, 0, -1 */
    char oversub_desc[256];
    unsigned char *sbuf, *rbuf;
    double *t, *tc, *tmax, *tcmax;     /* per iteration; the max arrays on rank 0 */
    double *reps;                      /* [impl][fig][rep], rank 0 */
    int *order;                        /* the implementations' order in a repetition */
    int want_served;                   /* record topocoll_last_algorithm() at the next start */
    char served[64];
} ov_ctx;

/* ---- the computation ------------------------------------------------------------ */

static volatile double busy_sink = 1.0;

/* `units` dependent multiply-adds: no memory traffic, nothing to vectorise. */
static void busy(long units)
{
    double x = busy_sink;
    for (long i = 0; i < units; i++)
        x = x * 0.9999999 + 1e-7;
    busy_sink = x;
}

/* Units per second of busy() on this rank: the fastest of three runs of at
 * least 20 ms (the least disturbed). */
static double calibrate(void)
{
    long n = 1024;
    double best = 0.0;
    for (;;) {
        double t0 = MPI_Wtime();
        busy(n);
        double dt = MPI_Wtime() - t0;
        if (dt >= 0.02 || n >= (1L << 40))
            break;
        n *= 2;
    }
    for (int k = 0; k < 3; k++) {
        double t0 = MPI_Wtime();
        busy(n);
        double dt = MPI_Wtime() - t0;
        if (dt > 0 && n / dt > best)
            best = n / dt;
    }
    return best > 0 ? best : 1e9;
}

/* The time a chunk of the busy loop takes, roughly: the compute checks the
 * clock after each one. */
#define BUSY_CHUNK_S 0.25e-6

/* Busy work until `seconds` have passed (at least one chunk). */
static void spin(const ov_ctx *c, double seconds)
{
    double t0 = MPI_Wtime();
    do
        busy(c->chunk);
    while (MPI_Wtime() - t0 < seconds);
}

/* The compute of an overlapped iteration: `seconds` of busy work cut in
 * test_calls + 1 pieces with a test of the request between them (until
 * the request completes; *done then says so). */
static int compute(const ov_ctx *c, const char *algo, double seconds, MPI_Request *req, int *done)
{
    int n = c->a->opts->test_calls, rc = MPI_SUCCESS;
    double piece = seconds / (n + 1);
    for (int k = 0; k < n; k++) {
        spin(c, piece);
        if (!*done && rc == MPI_SUCCESS)
            rc = bench_nb_test(algo, req, done);
    }
    spin(c, piece);
    return rc;
}

/* ---- one iteration of a phase ----------------------------------------------------- */

static int start(ov_ctx *c, const char *algo, size_t bytes, MPI_Request *req)
{
    const bench_overlap_args *a = c->a;
    int rc = bench_nb_start(a->bc, algo, c->sbuf, c->rbuf, bytes, a->comm, req);
    if (c->want_served) {
        const char *s = strcmp(algo, "native") == 0 ? "native" : topocoll_last_algorithm();
        snprintf(c->served, sizeof c->served, "%s", s ? s : "");
        c->want_served = 0;
    }
    return rc;
}

/* One call of phase ph: *tt its time, *tc the compute's (overlapped only). */
static int iteration(ov_ctx *c, int ph, const char *algo, size_t bytes, double compute_s,
                     MPI_Request *preq, double *tt, double *tc)
{
    const bench_overlap_args *a = c->a;
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = MPI_SUCCESS, done = 0;
    double t0 = MPI_Wtime(), c0 = 0.0, c1 = 0.0;
    switch (ph) {
    case PH_BLOCKING:
        rc = bench_coll_call(a->bc, algo, c->sbuf, c->rbuf, bytes, a->comm);
        break;
    case PH_PURE:
        if ((rc = start(c, algo, bytes, &req)) == MPI_SUCCESS)
            rc = bench_nb_wait(algo, &req);
        break;
    case PH_OVERLAP:
        if ((rc = start(c, algo, bytes, &req)) == MPI_SUCCESS) {
            c0 = MPI_Wtime();
            rc = compute(c, algo, compute_s, &req, &done);
            c1 = MPI_Wtime();
            if (!done) {
                int wrc = bench_nb_wait(algo, &req);
                if (rc == MPI_SUCCESS)
                    rc = wrc;
            }
        }
        break;
    default:
        if ((rc = bench_nb_pstart(algo, preq)) == MPI_SUCCESS)
            rc = bench_nb_wait(algo, preq);
        break;
    }
    *tt = MPI_Wtime() - t0;
    *tc = c1 - c0;
    return rc;
}

/* ---- one phase: warm-up, timed calls, check ---------------------------------------- */

static void sleep_us(long us)
{
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000 }, rem;
    while (nanosleep(&ts, &rem) != 0 && errno == EINTR)
        ts = rem;
}

/* The first MPI error of any rank over `err` (all ranks call it). */
static int agree(const ov_ctx *c, int err)
{
    int g = MPI_SUCCESS;
    if (MPI_Allreduce(&err, &g, 1, MPI_INT, MPI_MAX, c->a->comm) != MPI_SUCCESS)
        return MPI_ERR_OTHER;
    return g;
}

static int warm_up(ov_ctx *c, int s, int ph, const char *algo, double compute_s, MPI_Request *preq)
{
    double tt, tc;
    int gerr = MPI_SUCCESS;
    for (int w = 0; w < c->a->warmup[s] && gerr == MPI_SUCCESS; w++)
        gerr = agree(c, iteration(c, ph, algo, c->a->opts->sizes[s], compute_s, preq, &tt, &tc));
    return gerr;
}

/* Wrong bytes after phase ph of repetition rep: recorded in the cell the
 * first time; 0, or -1 on a failed reduction. */
static int check(ov_ctx *c, ov_cell *x, int s, int ph, int rep)
{
    const bench_overlap_args *a = c->a;
    long long mine[2], all[2] = { 0, 0 };
    size_t bad = bench_coll_check(a->bc, c->rbuf, a->opts->sizes[s], a->rank, a->np, rep);
    mine[0] = (long long)bad;
    mine[1] = bad > 0;
    if (MPI_Allreduce(mine, all, 2, MPI_LONG_LONG, MPI_SUM, a->comm) != MPI_SUCCESS)
        return -1;
    if (all[0] > 0 && x->bad[0] == 0) {
        x->bad[0] = all[0], x->bad[1] = all[1];
        x->bad_phase = ph, x->bad_rep = rep;
    }
    return 0;
}

/* Phase ph of (size s, algo, rep): its time and the compute's (rank 0: the
 * means inside Tukey's fences of the per-iteration maxima, seconds).  An MPI
 * error code, the same on every rank. */
static int phase(ov_ctx *c, ov_cell *x, int s, int ph, const char *algo, int rep, double compute_s,
                 MPI_Request *preq, double *tt, double *tc)
{
    const bench_overlap_args *a = c->a;
    int iters = a->iters[s], err = MPI_SUCCESS, gerr, dropped;
    int gerr0 = warm_up(c, s, ph, algo, compute_s, preq);
    if (gerr0 != MPI_SUCCESS)
        return gerr0;
    if (a->opts->validate)
        bench_coll_fill(a->bc, c->sbuf, c->rbuf, a->opts->sizes[s], a->rank, a->np, rep);
    for (int it = 0; it < iters; it++) {
        if (MPI_Barrier(a->comm) != MPI_SUCCESS)
            return MPI_ERR_OTHER;
        int e = iteration(c, ph, algo, a->opts->sizes[s], compute_s, preq, &c->t[it], &c->tc[it]);
        if (e != MPI_SUCCESS && err == MPI_SUCCESS)
            err = e;
        if (a->opts->sleep_us > 0)
            sleep_us(a->opts->sleep_us);
    }
    if ((gerr = agree(c, err)) != MPI_SUCCESS)
        return gerr;
    if (MPI_Reduce(c->t, c->tmax, iters, MPI_DOUBLE, MPI_MAX, 0, a->comm) != MPI_SUCCESS ||
        MPI_Reduce(c->tc, c->tcmax, iters, MPI_DOUBLE, MPI_MAX, 0, a->comm) != MPI_SUCCESS)
        return MPI_ERR_OTHER;
    if (a->rank == 0) {
        *tt = bench_tukey_mean(c->tmax, iters, &dropped);
        *tc = bench_tukey_mean(c->tcmax, iters, &dropped);
    }
    if (a->opts->validate && check(c, x, s, ph, rep) != 0)
        return MPI_ERR_OTHER;
    return MPI_SUCCESS;
}

/* ---- the persistent phase ------------------------------------------------------------ */

/* Makes the persistent request on every rank, or none: 0 made, 1 not
 * measured (x->pers_why says why), 2 an error (x->msg). */
static int persistent_init(ov_ctx *c, ov_cell *x, int s, const char *algo, MPI_Request *req)
{
    const bench_overlap_args *a = c->a;
    const char *why = NULL;
    char es[MPI_MAX_ERROR_STRING];
    int rc = bench_nb_init(a->bc, algo, c->sbuf, c->rbuf, a->opts->sizes[s], a->comm, req, &why);
    int cls = MPI_SUCCESS, len = 0, mine, all = 2;
    if (rc != MPI_SUCCESS && rc != BENCH_NB_NOT_MEASURED && MPI_Error_class(rc, &cls) != MPI_SUCCESS)
        cls = MPI_ERR_OTHER;
    /* a named entry without a persistent form declines (MPI_ERR_ARG, its reason) */
    mine = rc == MPI_SUCCESS ? 0
         : (rc == BENCH_NB_NOT_MEASURED || cls == MPI_ERR_UNSUPPORTED_OPERATION || cls == MPI_ERR_ARG) ? 1 : 2;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MAX, a->comm);
    if (all == 0)
        return 0;
    if (rc == MPI_SUCCESS)
        bench_nb_free(algo, req);
    if (rc != MPI_SUCCESS && rc != BENCH_NB_NOT_MEASURED && MPI_Error_string(rc, es, &len) != MPI_SUCCESS)
        snprintf(es, sizeof es, "MPI error %d", rc);
    if (all == 1) {
        snprintf(x->pers_why, sizeof x->pers_why, "persistent not measured: %s",
                 why ? why : mine == 1 ? es : "not supported on another rank");
    } else if (x->status == BENCH_OK) {
        x->status = BENCH_ERROR;
        snprintf(x->msg, sizeof x->msg, "error: persistent init: %s",
                 mine == 2 ? es : "failed on another rank");
    }
    return all;
}

/* ---- one (size, implementation, repetition) ------------------------------------------- */

static void fail(ov_cell *x, int ph, int code)
{
    char es[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(code, es, &len) != MPI_SUCCESS)
        snprintf(es, sizeof es, "MPI error %d", code);
    x->status = BENCH_ERROR;
    snprintf(x->msg, sizeof x->msg, "error: %s: %s", phase_name[ph], es);
}

/* An entry named with -a that serves the blocking call (its phase ran
 * first) and has no nonblocking form: topocoll_i<coll>_algorithm says
 * MPI_ERR_ARG (docs/nonblocking.md). */
static int declines_nonblocking(const char *algo, int code)
{
    int cls = MPI_ERR_OTHER;
    if (strcmp(algo, "native") == 0 || strcmp(algo, BENCH_AUTO) == 0)
        return 0;
    return MPI_Error_class(code, &cls) == MPI_SUCCESS && cls == MPI_ERR_ARG;
}

static void decline(ov_cell *x, int code)
{
    char es[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(code, es, &len) != MPI_SUCCESS)
        snprintf(es, sizeof es, "MPI error %d", code);
    x->status = BENCH_DECLINED;
    snprintf(x->msg, sizeof x->msg, "declined: no nonblocking form (%s)", es);
}

/* The cell's served_by: the first repetition's choice, and where the last
 * repetition's differs (a learner or a race settled in between), "first>last". */
static void note_served(ov_cell *x, const char *now, int rep, int reps)
{
    if (rep == 0) {
        snprintf(x->served, sizeof x->served, "%s", now);
        return;
    }
    if (rep != reps - 1 || strcmp(x->served, now) == 0) return;
    char first[sizeof x->served];
    snprintf(first, sizeof first, "%s", x->served);
    snprintf(x->served, sizeof x->served, "%.31s>%.31s", first, now);
}

/* The blocking phase of one repetition into r (the implementation's
 * figures); its error code, the cell failed where not MPI_SUCCESS. */
static int blocking_phase(ov_ctx *c, ov_cell *x, int s, const char *algo, int rep, double *r)
{
    double tt = 0, tc = 0;
    int e = phase(c, x, s, PH_BLOCKING, algo, rep, 0, NULL, &tt, &tc);
    if (e != MPI_SUCCESS) {
        fail(x, PH_BLOCKING, e);
        return e;
    }
    r[FIG_BLOCKING * c->a->opts->reps + rep] = tt * 1e6;
    return MPI_SUCCESS;
}

/* Rank 0's figures of this repetition go to reps[impl][fig][rep]. */
static void run_rep(ov_ctx *c, int s, int k, int rep)
{
    const bench_overlap_args *a = c->a;
    ov_cell *x = &c->cells[(size_t)s * (size_t)c->nimpl + (size_t)k];
    const char *algo = c->impls[k];
    double *r = c->reps + (size_t)k * NFIGS * (size_t)a->opts->reps, tt = 0, tc = 0, pure = 0;
    MPI_Request preq = MPI_REQUEST_NULL;
    int e;

    /* the blocking phase before the pure one in even repetitions, after it
     * in odd ones: at small sizes the phase that comes first after the
     * other implementation's reads faster */
    int blocking_first = rep % 2 == 0;
    if (blocking_first && (e = blocking_phase(c, x, s, algo, rep, r)) != MPI_SUCCESS) return;
    c->want_served = 1;
    if ((e = phase(c, x, s, PH_PURE, algo, rep, 0, NULL, &tt, &tc)) != MPI_SUCCESS) {
        if (declines_nonblocking(algo, e))
            decline(x, e);
        else
            fail(x, PH_PURE, e);
        return;
    }
    c->want_served = 0;
    note_served(x, c->served, rep, a->opts->reps);
    r[FIG_PURE * a->opts->reps + rep] = tt * 1e6;
    pure = tt;
    if (!blocking_first && (e = blocking_phase(c, x, s, algo, rep, r)) != MPI_SUCCESS) return;
    MPI_Bcast(&pure, 1, MPI_DOUBLE, 0, a->comm);
    if ((e = phase(c, x, s, PH_OVERLAP, algo, rep, pure, NULL, &tt, &tc)) != MPI_SUCCESS)
        { fail(x, PH_OVERLAP, e); return; }
    r[FIG_TOTAL * a->opts->reps + rep] = tt * 1e6;
    r[FIG_CPU * a->opts->reps + rep] = tc * 1e6;
    if (a->opts->no_persistent) {
        snprintf(x->pers_why, sizeof x->pers_why, "persistent not measured: --no-persistent");
        return;
    }
    if (!x->has_pers && rep > 0)
        return;   /* not measured: decided at the first repetition */
    int pi = persistent_init(c, x, s, algo, &preq);
    x->has_pers = pi == 0;
    if (pi != 0)
        return;
    e = phase(c, x, s, PH_PERSISTENT, algo, rep, 0, &preq, &tt, &tc);
    bench_nb_free(algo, &preq);
    if (e != MPI_SUCCESS)
        { fail(x, PH_PERSISTENT, e); return; }
    r[FIG_PERSISTENT * a->opts->reps + rep] = tt * 1e6;
}

/* ---- sizes ---------------------------------------------------------------------- */

/* The buffers of size s on every rank; 0, or -1 when some rank has none. */
static int size_buffers(ov_ctx *c, int s)
{
    const bench_overlap_args *a = c->a;
    size_t sb = 0, rb = 0;
    int ok = 1, gok = 0;
    free(c->sbuf);
    free(c->rbuf);
    c->sbuf = c->rbuf = NULL;
    if (bench_coll_buffers(a->bc, a->opts->sizes[s], a->np, a->rank, &sb, &rb) != 0)
        ok = 0;
    else if (!(c->sbuf = calloc(sb ? sb : 1, 1)) || !(c->rbuf = calloc(rb ? rb : 1, 1)))
        ok = 0;
    MPI_Allreduce(&ok, &gok, 1, MPI_INT, MPI_MIN, a->comm);
    return gok ? 0 : -1;
}

/* Applicability of every implementation at size s, agreed by all ranks. */
static void applicability(ov_ctx *c, int s)
{
    const bench_overlap_args *a = c->a;
    for (int k = 0; k < c->nimpl; k++) {
        ov_cell *x = &c->cells[(size_t)s * (size_t)c->nimpl + (size_t)k];
        const char *why = NULL;
        int ap = bench_coll_applicable(a->bc, c->impls[k], a->opts->sizes[s], a->comm, &why) > 0, g = 0;
        MPI_Allreduce(&ap, &g, 1, MPI_INT, MPI_MIN, a->comm);
        if (!g) {
            x->status = BENCH_DECLINED;
            snprintf(x->msg, sizeof x->msg, "declined: %s",
                     ap ? "declined on some ranks" : why ? why : "(no reason given)");
        }
    }
}

/* Before auto's first repetition: the learner's patience and --learn-warmup
 * blocking calls of auto (as the blocking mode does). */
static void learn_warmup(ov_ctx *c, int s)
{
    const bench_overlap_args *a = c->a;
    long calls = bench_learn_warmup_calls(a->opts);
    int err = MPI_SUCCESS;
    for (long w = 0; w < calls; w++) {
        if (MPI_Barrier(a->comm) != MPI_SUCCESS)   /* the timed loops' pattern */
            return;
        int e = bench_coll_call(a->bc, BENCH_AUTO, c->sbuf, c->rbuf, a->opts->sizes[s], a->comm);
        if (e != MPI_SUCCESS && err == MPI_SUCCESS)
            err = e;
        if ((w % 16 == 15 || w + 1 == calls) && agree(c, err) != MPI_SUCCESS)
            return;
    }
}

static void summarise(ov_ctx *c, int s)
{
    int reps = c->a->opts->reps;
    for (int k = 0; k < c->nimpl; k++) {
        ov_cell *x = &c->cells[(size_t)s * (size_t)c->nimpl + (size_t)k];
        if (x->status != BENCH_OK)
            continue;
        if (x->bad[0] > 0) {
            x->status = BENCH_INVALID;
            snprintf(x->msg, sizeof x->msg,
                     "INVALID: %lld wrong byte%s on %lld rank%s (%s calls, repetition %d)",
                     x->bad[0], x->bad[0] == 1 ? "" : "s", x->bad[1], x->bad[1] == 1 ? "" : "s",
                     phase_name[x->bad_phase], x->bad_rep + 1);
        }
        if (c->a->rank != 0)
            continue;
        for (int f = 0; f < NFIGS; f++)
            x->fig[f] = bench_median(c->reps + ((size_t)k * NFIGS + (size_t)f) * (size_t)reps, reps);
    }
}

static void run_size(ov_ctx *c, int s)
{
    const bench_overlap_args *a = c->a;
    if (size_buffers(c, s) != 0) {
        for (int k = 0; k < c->nimpl; k++) {
            ov_cell *x = &c->cells[(size_t)s * (size_t)c->nimpl + (size_t)k];
            x->status = BENCH_ERROR;
            snprintf(x->msg, sizeof x->msg, "error: cannot allocate the buffers on some rank");
        }
        return;
    }
    applicability(c, s);
    for (int rep = 0; rep < a->opts->reps; rep++) {
        bench_column_order(c->nimpl, s, rep, c->order);   /* as the timing mode's columns */
        for (int j = 0; j < c->nimpl; j++) {
            int k = c->order[j];
            ov_cell *x = &c->cells[(size_t)s * (size_t)c->nimpl + (size_t)k];
            if (x->status != BENCH_OK)
                continue;
            if (rep == 0 && strcmp(c->impls[k], BENCH_AUTO) == 0)
                learn_warmup(c, s);
            run_rep(c, s, k, rep);
        }
    }
    summarise(c, s);
}

/* ---- output (rank 0) -------------------------------------------------------------- */

static double overlap_pct(const ov_cell *x)
{
    double total = x->fig[FIG_TOTAL], cpu = x->fig[FIG_CPU], pure = x->fig[FIG_PURE];
    double o = pure > 0 ? 100.0 * (1.0 - (total - cpu) / pure) : 0.0;
    return o < 0 ? 0 : o > 100 ? 100 : o;
}

static const char *oversub_text(int o) { return o > 0 ? "1" : o == 0 ? "0" : ""; }

int bench_overlap_csv_begin(FILE *f)
{
    return fputs("coll,algorithm,bytes,np,t_pure_us,t_blocking_us,t_cpu_us,t_total_us,overlap_pct,"
                 "t_persistent_us,oversubscribed,iters,reps,test_calls,served_by,status\n", f) < 0
               ? -1 : 0;
}

static int csv_row(const ov_ctx *c, int s, int k)
{
    const bench_overlap_args *a = c->a;
    const ov_cell *x = &c->cells[(size_t)s * (size_t)c->nimpl + (size_t)k];
    FILE *f = a->csv;
    int rc = 0;
    rc |= bench_csv_field(f, a->coll_name);
    rc |= fputc(',', f) == EOF;
    rc |= bench_csv_field(f, c->impls[k]);
    rc |= fprintf(f, ",%zu,%d,", a->opts->sizes[s], a->np) < 0;
    if (x->status == BENCH_OK || x->status == BENCH_INVALID) {
        rc |= fprintf(f, "%.3f,%.3f,%.3f,%.3f,%.1f,", x->fig[FIG_PURE], x->fig[FIG_BLOCKING],
                      x->fig[FIG_CPU], x->fig[FIG_TOTAL], overlap_pct(x)) < 0;
        rc |= (x->has_pers ? fprintf(f, "%.3f,", x->fig[FIG_PERSISTENT]) : fprintf(f, ",")) < 0;
    } else {
        rc |= fputs(",,,,,,", f) < 0;
    }
    rc |= fprintf(f, "%s,%d,%d,%d,", oversub_text(c->oversub), a->iters[s], a->opts->reps,
                  a->opts->test_calls) < 0;
    rc |= bench_csv_field(f, x->served);
    rc |= fputc(',', f) == EOF;
    rc |= bench_csv_field(f, x->status == BENCH_OK ? "ok" : x->msg);
    rc |= fputc('\n', f) == EOF;
    return rc ? -1 : 0;
}

static int impl_width(const ov_ctx *c)
{
    int w = 9;
    for (int k = 0; k < c->nimpl; k++)
        if ((int)strlen(c->impls[k]) > w)
            w = (int)strlen(c->impls[k]);
    return w;
}

static void print_header(const ov_ctx *c)
{
    const bench_overlap_args *a = c->a;
    const bench_opts *o = a->opts;
    printf("# topocoll-bench %d.%d.%d: %s, overlap mode (nonblocking), %s, bytes per rank\n",
           TOPOCOLL_VERSION_MAJOR, TOPOCOLL_VERSION_MINOR, TOPOCOLL_VERSION_PATCH, a->coll_name,
           a->datatype);
    printf("# processes: %d, oversubscribed: %s%s%s\n", a->np,
           c->oversub > 0 ? "yes" : c->oversub == 0 ? "no" : "unknown",
           c->oversub_desc[0] ? ": " : "", c->oversub_desc);
    printf("# topology: %s\n# MPI: %s\n", a->topo_desc, a->mpi_version);
    printf("# iterations per phase: %d", a->iters[0]);
    if (o->nsizes > 1 && a->iters[o->nsizes - 1] != a->iters[0])
        printf(" .. %d", a->iters[o->nsizes - 1]);
    printf(" timed, %d", a->warmup[0]);
    if (o->nsizes > 1 && a->warmup[o->nsizes - 1] != a->warmup[0])
        printf(" .. %d", a->warmup[o->nsizes - 1]);
    printf(" warm-up; repetitions: %d, sleep: %ld us, validation: %s, MPI_Wtick: %.3g s\n", o->reps,
           o->sleep_us, o->validate ? "on" : "off", a->wtick);
    printf("# compute: busy loop in chunks of %ld units (%.0f units/us on rank 0) until the\n"
           "#   pure time has passed; MPI_Test calls in it: %d\n", c->chunk, c->rate * 1e-6,
           o->test_calls);
    printf("# times: microseconds, median over repetitions of the mean (Tukey's fences) of\n"
           "#   the per-iteration maximum over ranks; pure: start + wait; blocking: the\n"
           "#   blocking call; cpu: the compute between start and wait; total: start +\n"
           "#   compute + wait; overlap %%: 100 (1 - (total - cpu) / pure), clamped to 0..100;\n"
           "#   persistent: start + wait of a request made once\n");
    fflush(stdout);
}

static void print_table_head(const ov_ctx *c)
{
    int w = impl_width(c);
    printf("%9s | %-*s | %9s | %9s | %8s | %9s | %9s | %8s | %10s | %s\n", "bytes", w, "algorithm",
           "pure", "blocking", "pure/blk", "cpu", "total", "overlap%", "persistent", "served by");
    for (int i = 0; i < 9 + 3 + w + 3 * 7 + 9 * 4 + 8 * 2 + 10 + 12; i++)
        putchar('-');
    putchar('\n');
}

static void print_row(const ov_ctx *c, int s)
{
    int w = impl_width(c);
    char sz[32], pers[32];
    bench_format_size(c->a->opts->sizes[s], sz, sizeof sz);
    for (int k = 0; k < c->nimpl; k++) {
        const ov_cell *x = &c->cells[(size_t)s * (size_t)c->nimpl + (size_t)k];
        if (x->status == BENCH_DECLINED || x->status == BENCH_ERROR) {
            printf("%9s | %-*s | %s\n", sz, w, c->impls[k],
                   x->status == BENCH_DECLINED ? "declined" : "error");
            continue;
        }
        if (x->has_pers)
            snprintf(pers, sizeof pers, "%.2f", x->fig[FIG_PERSISTENT]);
        else
            snprintf(pers, sizeof pers, "-");
        printf("%9s | %-*s | %9.2f | %9.2f | %8.2f | %9.2f | %9.2f | %8.1f | %10s | %s%s\n", sz, w,
               c->impls[k], x->fig[FIG_PURE], x->fig[FIG_BLOCKING],
               x->fig[FIG_BLOCKING] > 0 ? x->fig[FIG_PURE] / x->fig[FIG_BLOCKING] : 0.0,
               x->fig[FIG_CPU], x->fig[FIG_TOTAL], overlap_pct(x), pers, x->served,
               x->status == BENCH_INVALID ? "  INVALID" : "");
    }
    fflush(stdout);
}

/* The note of cell x: its status message, or why the persistent time is
 * missing; NULL when it has none. */
static const char *note_of(const ov_cell *x, int which)
{
    const char *m = which == 0 ? (x->status != BENCH_OK ? x->msg : NULL)
                               : (x->status == BENCH_OK && !x->has_pers ? x->pers_why : NULL);
    return m && m[0] ? m : NULL;
}

/* One note per (implementation, message), with the first and last size it
 * holds for: "auto, 8 to 1K: persistent not measured: ...". */
static void print_notes(const ov_ctx *c)
{
    int first = 1, ns = c->a->opts->nsizes;
    for (int k = 0; k < c->nimpl; k++)
        for (int s = 0; s < ns; s++)
            for (int j = 0; j < 2; j++) {
                const char *m = note_of(&c->cells[(size_t)s * (size_t)c->nimpl + (size_t)k], j);
                int seen = 0, last = s;
                char lo[32], hi[32];
                if (m == NULL)
                    continue;
                for (int p = 0; p < ns; p++) {
                    const char *o = note_of(&c->cells[(size_t)p * (size_t)c->nimpl + (size_t)k], j);
                    if (o && strcmp(o, m) == 0) {
                        seen |= p < s;
                        last = p;
                    }
                }
                if (seen)
                    continue;
                bench_format_size(c->a->opts->sizes[s], lo, sizeof lo);
                bench_format_size(c->a->opts->sizes[last], hi, sizeof hi);
                printf("%s  %s, %s%s%s: %s\n", first ? "\n" : "", c->impls[k], lo,
                       last > s ? " to " : "", last > s ? hi : "", m);
                first = 0;
            }
}

/* ---- the run -------------------------------------------------------------------- */

static int setup(ov_ctx *c)
{
    const bench_overlap_args *a = c->a;
    const bench_opts *o = a->opts;
    static const char *const defaults[] = { "native", BENCH_AUTO };
    int maxit = 1, ok = 1, gok = 0;
    c->impls = o->algos ? (const char **)o->algos : (const char **)defaults;
    c->nimpl = o->algos ? o->nalgos : 2;
    for (int s = 0; s < o->nsizes; s++)
        if (a->iters[s] > maxit)
            maxit = a->iters[s];
    c->cells = calloc((size_t)o->nsizes * (size_t)c->nimpl, sizeof *c->cells);
    c->t = malloc((size_t)maxit * sizeof *c->t);
    c->tc = malloc((size_t)maxit * sizeof *c->tc);
    c->tmax = malloc((size_t)maxit * sizeof *c->tmax);
    c->tcmax = malloc((size_t)maxit * sizeof *c->tcmax);
    c->reps = calloc((size_t)c->nimpl * NFIGS * (size_t)o->reps, sizeof *c->reps);
    c->order = malloc((size_t)c->nimpl * sizeof *c->order);
    if (!c->cells || !c->t || !c->tc || !c->tmax || !c->tcmax || !c->reps || !c->order)
        ok = 0;
    MPI_Allreduce(&ok, &gok, 1, MPI_INT, MPI_MIN, a->comm);
    if (!gok)
        return -1;
    c->rate = calibrate();
    c->chunk = (long)(c->rate * BUSY_CHUNK_S);
    if (c->chunk < 1)
        c->chunk = 1;
    if (topocoll_oversubscribed(a->comm, &c->oversub, c->oversub_desc, (int)sizeof c->oversub_desc) !=
        MPI_SUCCESS)
        c->oversub = -1, c->oversub_desc[0] = '\0';
    return 0;
}

static void teardown(ov_ctx *c)
{
    free(c->cells);
    free(c->t);
    free(c->tc);
    free(c->tmax);
    free(c->tcmax);
    free(c->reps);
    free(c->order);
    free(c->sbuf);
    free(c->rbuf);
}

int bench_overlap_run(const bench_overlap_args *a)
{
    ov_ctx c;
    int code = 0, csv_ok = 1;
    memset(&c, 0, sizeof c);
    c.a = a;
    if (setup(&c) != 0) {
        if (a->rank == 0)
            fprintf(stderr, BENCH_PROG ": out of memory\n");
        teardown(&c);
        return 1;
    }
    if (a->rank == 0) {
        if (!a->opts->quiet)
            print_header(&c);
        print_table_head(&c);
    }
    for (int s = 0; s < a->opts->nsizes; s++) {
        run_size(&c, s);
        topocoll_flush_cache(a->comm);
        for (int k = 0; k < c.nimpl; k++) {
            bench_status st = c.cells[(size_t)s * (size_t)c.nimpl + (size_t)k].status;
            if (st == BENCH_ERROR || st == BENCH_INVALID)
                code = 1;
            if (a->rank == 0 && a->csv && csv_ok && csv_row(&c, s, k) != 0) {
                fprintf(stderr, BENCH_PROG ": writing '%s' failed\n", a->opts->csv_path);
                csv_ok = 0;
            }
        }
        if (a->rank == 0)
            print_row(&c, s);
    }
    if (a->rank == 0) {
        print_notes(&c);
        if (code && !a->opts->quiet)
            printf("# some results are INVALID or failed: exit status 1\n");
    }
    if (!csv_ok)
        code = 1;
    MPI_Bcast(&code, 1, MPI_INT, 0, a->comm);
    teardown(&c);
    return code;
}
