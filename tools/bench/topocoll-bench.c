/*
 * topocoll-bench: times topocoll's algorithms for one collective side by side.
 *
 * Method (docs/bench.md: the size / iterations / sleep / median of
 * repetitions of Pappalardo, Rossi, Parisi, Cosenza, Salimi Beni, "MPI_Allgather
 * Optimization with P2P Implementations", and the Tukey filter of Träff,
 * Rougier, "MPI Collectives and Datatypes for Hierarchical All-to-all
 * Communication", 2014):
 *
 *   for each size:
 *     for rep in 1..reps:
 *       for each algorithm:                      (interleaved: noise hits all)
 *         fill the buffers with the pattern of (rank, byte, rep)
 *         warm-up calls, each followed by an MPI_Allreduce of the error code
 *         iters times: MPI_Barrier; t0; call; t1; time[i] = t1 - t0; sleep
 *           (--back-to-back: MPI_Barrier; t0; iters calls; time[] = (t1 - t0) / iters)
 *         MPI_Reduce(time[], MPI_MAX) to rank 0: per-iteration max over ranks
 *         rank 0: repetition time = mean of time[] inside Tukey's fences
 *         check every byte of the receive buffer; MPI_Allreduce the verdict
 *     rank 0: median, min and max over repetitions; ratio to native; print row
 *
 * MPI_COMM_WORLD gets MPI_ERRORS_RETURN, so a failing call is reported as
 * "error: <MPI_Error_string>" in its cell instead of aborting the run.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

/* ---- failures of the benchmark's own MPI calls ----------------------------- */

static _Noreturn void fatal_mpi(const char *what, int code, int line)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(code, s, &len) != MPI_SUCCESS)
        snprintf(s, sizeof s, "MPI error %d", code);
    fprintf(stderr, BENCH_PROG ": %s failed (line %d): %s\n", what, line, s);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

#define CHECK_MPI(call)                                                        \
    do {                                                                       \
        int rc_ = (call);                                                      \
        if (rc_ != MPI_SUCCESS)                                                \
            fatal_mpi(#call, rc_, __LINE__);                                   \
    } while (0)

static void error_string(int code, char *buf, size_t len)
{
    char s[MPI_MAX_ERROR_STRING];
    int n = 0;
    if (MPI_Error_string(code, s, &n) != MPI_SUCCESS)
        snprintf(s, sizeof s, "MPI error %d", code);
    snprintf(buf, len, "%s", s);
}

/* ---- the state of one run --------------------------------------------------- */

typedef struct bench_ctx {
    MPI_Comm comm;
    int rank, np;
    bench_opts opts;
    const bench_coll *bc;
    topocoll_coll coll;
    bench_run run;
    FILE *csv, *json;
    int progress;            /* rank 0 writes progress to a terminal */
    /* per size */
    unsigned char *sbuf, *rbuf;
    size_t sbytes, rbytes;
    double *times, *tmax;    /* per iteration; tmax on rank 0 only */
    double *reptimes;        /* [algo * reps + rep], rank 0 */
    int *repbad;             /* per algo: first repetition with wrong data, or -1 */
    long long *badbytes;     /* per algo: wrong bytes, all ranks */
    long long *badranks;     /* per algo: ranks with wrong bytes */
    int *order;              /* the columns' order in the current repetition */
} bench_ctx;

/* Everything allocated here is freed by ctx_free; run.* arrays are owned too. */
static void ctx_free(bench_ctx *c)
{
    free(c->sbuf);
    free(c->rbuf);
    free(c->times);
    free(c->tmax);
    free(c->reptimes);
    free(c->repbad);
    free(c->badbytes);
    free(c->badranks);
    free(c->order);
    free((void *)c->run.iters);
    free((void *)c->run.warmup);
    free(c->run.algos);
    free(c->run.skipped);
    free(c->run.skipped_why);
    free(c->run.res);
    if (c->csv != NULL && fclose(c->csv) != 0 && c->rank == 0)
        fprintf(stderr, BENCH_PROG ": closing the CSV file failed\n");
    if (c->json != NULL && fclose(c->json) != 0 && c->rank == 0)
        fprintf(stderr, BENCH_PROG ": closing the JSON file failed\n");
    bench_opts_free(&c->opts);
    memset(c, 0, sizeof *c);
}

/* Ends the program with `code` on every rank (the caller made sure all ranks
 * agree on it). */
static int finish(bench_ctx *c, int code)
{
    ctx_free(c);
    if (MPI_Finalize() != MPI_SUCCESS && code == 0)
        code = 1;
    return code;
}

/* A bad option: one message on rank 0, exit status 2 everywhere. */
static int usage_error(bench_ctx *c, const char *fmt, ...)
{
    if (c->rank == 0) {
        va_list ap;
        fprintf(stderr, BENCH_PROG ": ");
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fprintf(stderr, " (see " BENCH_PROG " --help)\n");
    }
    return finish(c, 2);
}

static void sleep_us(long us)
{
    struct timespec ts, rem;
    ts.tv_sec = us / 1000000;
    ts.tv_nsec = (us % 1000000) * 1000;
    while (nanosleep(&ts, &rem) != 0) {
        if (errno != EINTR)
            return; /* nothing sensible to do: the sleep is only a pause */
        ts = rem;
    }
}

/* ---- setup ---------------------------------------------------------------------- */

static void list_algorithms(FILE *f, topocoll_coll coll)
{
    int n = topocoll_algorithm_count(coll);
    for (int i = 0; i < n; i++) {
        const char *name = topocoll_algorithm_name(coll, i);
        const char *desc = topocoll_algorithm_description(coll, i);
        const char *req = topocoll_algorithm_requirements(coll, i);
        const char *par = topocoll_algorithm_parameters(coll, i);
        if (name == NULL)
            continue;
        fprintf(f, "  %-24s %s%s%s%s\n", name, desc ? desc : "",
                req && *req ? " [requires: " : "", req && *req ? req : "",
                req && *req ? "]" : "");
        if (par && *par)
            fprintf(f, "  %-24s parameters: %s\n", "", par);
    }
}

static void print_help(void)
{
    bench_usage(stdout);
    for (int k = 0; k < (int)TOPOCOLL_NCOLL; k++) {
        const char *name = topocoll_coll_name((topocoll_coll)k);
        if (name == NULL)
            continue;
        printf("\nAlgorithms of %s%s:\n", name,
               bench_coll_get((topocoll_coll)k) ? "" : " (not supported by the benchmark yet)");
        list_algorithms(stdout, (topocoll_coll)k);
    }
}

static void known_colls(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < (int)TOPOCOLL_NCOLL && used < len; k++) {
        const char *name = topocoll_coll_name((topocoll_coll)k);
        if (name == NULL)
            continue;
        int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", name);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

static void known_algos(topocoll_coll coll, char *buf, size_t len)
{
    size_t used = 0;
    int n = topocoll_algorithm_count(coll);
    buf[0] = '\0';
    for (int i = 0; i < n && used < len; i++) {
        const char *name = topocoll_algorithm_name(coll, i);
        if (name == NULL)
            continue;
        int k = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", name);
        if (k < 0)
            break;
        used += (size_t)k;
    }
}

static int adaptive_iters(size_t bytes_moved)
{
    size_t per = bytes_moved > 0 ? bytes_moved : 1;
    size_t it = BENCH_ADAPT_BYTES / per;
    if (it > BENCH_ITERS_MAX)
        it = BENCH_ITERS_MAX;
    if (it < BENCH_ITERS_MIN)
        it = BENCH_ITERS_MIN;
    return (int)it;
}

static int adaptive_warmup(int iters)
{
    int w = iters / 20;
    if (w > BENCH_WARMUP_MAX)
        w = BENCH_WARMUP_MAX;
    if (w < BENCH_WARMUP_MIN)
        w = BENCH_WARMUP_MIN;
    return w;
}

/* The names one -a entry stands for: "all" every algorithm (entry), "variants"
 * every variant, a shell pattern ('*', '?', '[') the variants whose listed
 * name it matches; anything else itself.  Catalog order, no duplicates. */
static int add_expanded(bench_ctx *c, const char *a, char **out, int *n, int cap)
{
    int all = strcmp(a, "all") == 0, variants = strcmp(a, "variants") == 0, matched = 0;
    int ncat = all ? topocoll_algorithm_count(c->coll) : topocoll_variant_count(c->coll);
    for (int k = 0; (all || variants || strpbrk(a, "*?[")) && k < ncat; k++) {
        const char *name = all ? topocoll_algorithm_name(c->coll, k) : topocoll_variant_name(c->coll, k);
        int dup = 0;
        if (!name || (!all && !variants && fnmatch(a, name, 0) != 0)) continue;
        matched = 1;
        for (int j = 0; j < *n && !dup; j++) dup = strcmp(out[j], name) == 0;
        if (!dup && (*n >= cap || !(out[(*n)++] = strdup(name)))) return -1;
    }
    if (!matched && (*n >= cap || !(out[(*n)++] = strdup(a)))) return -1;
    return 0;
}

/* Replaces every -a entry by the names it stands for (add_expanded); a
 * pattern that matches nothing stays, so that it is reported as unknown. */
static int expand_patterns(bench_ctx *c)
{
    bench_opts *o = &c->opts;
    int cap = o->nalgos * (topocoll_variant_count(c->coll) + 1), n = 0;
    if (!o->algos) return 0;
    char **out = calloc((size_t)cap + 1, sizeof *out);
    if (!out) return -1;
    for (int i = 0; i < o->nalgos; i++)
        if (add_expanded(c, o->algos[i], out, &n, cap) != 0) {
            for (int j = 0; j < n; j++) free(out[j]);
            free(out);
            return -1;
        }
    for (int i = 0; i < o->nalgos; i++) free(o->algos[i]);
    free(o->algos);
    o->algos = out;
    o->nalgos = n;
    return 0;
}

/* The candidate columns: -a's list, or native first (the reference of every
 * ratio), then topocoll's own selection and the flat algorithms (families:
 * name them, e.g. -a 'h1_*').  Returns the count, or -1. */
static int default_candidates(bench_ctx *c, const char **cand, int ncat)
{
    const bench_opts *o = &c->opts;
    if (o->algos) {
        for (int k = 0; k < o->nalgos; k++)
            cand[k] = o->algos[k];
        return o->nalgos;
    }
    int k = 0, ni = topocoll_algorithm_index(c->coll, "native");
    if (ni >= 0)
        cand[k++] = topocoll_algorithm_name(c->coll, ni);
    cand[k++] = BENCH_AUTO;
    for (int i = 0; i < ncat; i++) {
        const char *fam = topocoll_algorithm_family(c->coll, i);
        if (i != ni && fam && strcmp(fam, "flat") == 0)
            cand[k++] = topocoll_algorithm_name(c->coll, i);
    }
    for (int i = 0; i < k; i++)
        if (cand[i] == NULL) {
            if (c->rank == 0)
                fprintf(stderr, BENCH_PROG ": catalog entry %d of %s has no name\n", i,
                        c->run.coll_name);
            return -1;
        }
    return k;
}

/* gapp[size][candidate]: does the candidate serve the size on every rank
 * (the same decision everywhere, or the calls would not match); why: the
 * reason where not. */
static void applicability(bench_ctx *c, const char **cand, int ncand, int *app, int *gapp,
                          const char **why)
{
    const bench_opts *o = &c->opts;
    size_t cells = (size_t)o->nsizes * (size_t)ncand;
    for (int s = 0; s < o->nsizes; s++)
        for (int k = 0; k < ncand; k++) {
            size_t i = (size_t)s * (size_t)ncand + (size_t)k;
            const char *w = NULL;
            int a = bench_coll_applicable(c->bc, cand[k], o->sizes[s], c->comm, &w);
            app[i] = a > 0;
            why[i] = a > 0 ? NULL : a == 0 ? w : "unknown to the applicability check";
        }
    CHECK_MPI(MPI_Allreduce(app, gapp, (int)cells, MPI_INT, MPI_MIN, c->comm));
    for (size_t i = 0; i < cells; i++)
        if (!gapp[i] && app[i])
            why[i] = "declined on some ranks";
}

/* Is candidate k a column: named with -a, or serving at least one size? */
static int is_column(const bench_ctx *c, const int *gapp, int ncand, int k)
{
    int any = 0;
    for (int s = 0; s < c->opts.nsizes; s++)
        any |= gapp[(size_t)s * (size_t)ncand + (size_t)k];
    return any || c->opts.algos;
}

/* The columns, the skipped candidates, and the result cells with the
 * declined ones marked (the timing loop skips them).  0 or -1. */
static int make_columns(bench_ctx *c, const char **cand, int ncand, const int *gapp,
                        const char **why)
{
    const bench_opts *o = &c->opts;
    c->run.nalgos = 0;
    c->run.native_col = -1;
    for (int k = 0; k < ncand; k++) {
        if (!is_column(c, gapp, ncand, k)) {
            c->run.skipped_why[c->run.nskipped] = why[k];
            c->run.skipped[c->run.nskipped++] = cand[k];
            continue;
        }
        if (strcmp(cand[k], "native") == 0)
            c->run.native_col = c->run.nalgos;
        c->run.algos[c->run.nalgos++] = cand[k];
    }
    if (c->run.nalgos == 0) {
        if (c->rank == 0)
            fprintf(stderr, BENCH_PROG ": no algorithm serves these sizes\n");
        return -1;
    }
    c->run.res = calloc((size_t)o->nsizes * (size_t)c->run.nalgos, sizeof *c->run.res);
    if (c->run.res == NULL) {
        fprintf(stderr, BENCH_PROG ": out of memory\n");
        MPI_Abort(c->comm, 1);
        return -1;
    }
    for (int s = 0; s < o->nsizes; s++)
        for (int k = 0, col = 0; k < ncand; k++) {
            if (!is_column(c, gapp, ncand, k))
                continue;
            size_t i = (size_t)s * (size_t)ncand + (size_t)k;
            bench_result *r = &c->run.res[(size_t)s * (size_t)c->run.nalgos + (size_t)col++];
            r->ratio = -1.0;
            if (!gapp[i]) {
                r->status = BENCH_DECLINED;
                snprintf(r->msg, sizeof r->msg, "declined: %s", why[i] ? why[i] : "(no reason given)");
            }
        }
    return 0;
}

/* Decides the columns: the named algorithms, or native followed by every
 * catalog algorithm that serves at least one size (agreed by all ranks). */
static int choose_columns(bench_ctx *c)
{
    const bench_opts *o = &c->opts;
    int ncat = topocoll_algorithm_count(c->coll);
    int ncand = o->algos ? o->nalgos : ncat + 1, rc = -1;
    if (ncand <= 0) {
        if (c->rank == 0)
            fprintf(stderr, BENCH_PROG ": the catalog of %s has no algorithms\n", c->run.coll_name);
        return -1;
    }
    size_t cells = (size_t)o->nsizes * (size_t)ncand;
    const char **cand = calloc((size_t)ncand, sizeof *cand), **why = calloc(cells, sizeof *why);
    int *app = calloc(cells, sizeof *app), *gapp = calloc(cells, sizeof *gapp);
    c->run.algos = calloc((size_t)ncand, sizeof *c->run.algos);
    c->run.skipped = calloc((size_t)ncand, sizeof *c->run.skipped);
    c->run.skipped_why = calloc((size_t)ncand, sizeof *c->run.skipped_why);
    if (!cand || !why || !app || !gapp || !c->run.algos || !c->run.skipped || !c->run.skipped_why) {
        fprintf(stderr, BENCH_PROG ": out of memory\n");
        MPI_Abort(c->comm, 1);
    } else if ((ncand = default_candidates(c, cand, ncat)) > 0) {
        applicability(c, cand, ncand, app, gapp, why);
        rc = make_columns(c, cand, ncand, gapp, why);
    }
    free(cand);
    free(why);
    free(app);
    free(gapp);
    return rc;
}

/* ---- one (size, algorithm, repetition) ----------------------------------------- */

typedef struct one_result {
    int err;            /* first MPI error code on any rank, 0 if none */
    long long bad[2];   /* wrong bytes, ranks with wrong bytes */
} one_result;

/* The timed iterations, each after a barrier: time[i] is the call's own.
 * Returns the first failed call's code. */
static int timed_each(bench_ctx *c, const char *algo, size_t bytes, int iters)
{
    int err = MPI_SUCCESS;
    for (int it = 0; it < iters; it++) {
        CHECK_MPI(MPI_Barrier(c->comm));
        double t0 = MPI_Wtime();
        int e = bench_coll_call(c->bc, algo, c->sbuf, c->rbuf, bytes, c->comm);
        c->times[it] = MPI_Wtime() - t0;
        if (e != MPI_SUCCESS && err == MPI_SUCCESS)
            err = e;
        if (c->opts.sleep_us > 0)
            sleep_us(c->opts.sleep_us);
    }
    return err;
}

/* --back-to-back: one barrier, then the iterations as one timed loop; every
 * iteration gets the loop's mean, so the repetition's statistics see one value.
 * Returns the first failed call's code. */
static int timed_loop(bench_ctx *c, const char *algo, size_t bytes, int iters)
{
    int err = MPI_SUCCESS;
    CHECK_MPI(MPI_Barrier(c->comm));
    double t0 = MPI_Wtime();
    for (int it = 0; it < iters; it++) {
        int e = bench_coll_call(c->bc, algo, c->sbuf, c->rbuf, bytes, c->comm);
        if (e != MPI_SUCCESS && err == MPI_SUCCESS)
            err = e;
        if (c->opts.sleep_us > 0)
            sleep_us(c->opts.sleep_us);
    }
    double per_call = (MPI_Wtime() - t0) / iters;
    for (int it = 0; it < iters; it++)
        c->times[it] = per_call;
    return err;
}

static void run_one(bench_ctx *c, int s, const char *algo, int rep, one_result *out)
{
    size_t bytes = c->opts.sizes[s];
    int iters = c->run.iters[s], warmup = c->run.warmup[s];
    int err = MPI_SUCCESS, gerr = MPI_SUCCESS;

    memset(out, 0, sizeof *out);
    if (c->opts.validate)
        bench_coll_fill(c->bc, c->sbuf, c->rbuf, bytes, c->rank, c->np, rep);

    for (int w = 0; w < warmup; w++) {
        int e = bench_coll_call(c->bc, algo, c->sbuf, c->rbuf, bytes, c->comm);
        if (e != MPI_SUCCESS && err == MPI_SUCCESS)
            err = e;
        /* a call that fails on some ranks only must not leave the others
         * waiting in the next one */
        CHECK_MPI(MPI_Allreduce(&err, &gerr, 1, MPI_INT, MPI_MAX, c->comm));
        if (gerr != MPI_SUCCESS)
            break;
    }
    if (gerr == MPI_SUCCESS) {
        err = c->opts.back_to_back ? timed_loop(c, algo, bytes, iters) : timed_each(c, algo, bytes, iters);
        CHECK_MPI(MPI_Allreduce(&err, &gerr, 1, MPI_INT, MPI_MAX, c->comm));
    }
    out->err = gerr;
    if (gerr != MPI_SUCCESS)
        return;
    CHECK_MPI(MPI_Reduce(c->times, c->tmax, iters, MPI_DOUBLE, MPI_MAX, 0, c->comm));
    if (c->opts.validate) {
        long long mine[2];
        size_t bad = bench_coll_check(c->bc, c->rbuf, bytes, c->rank, c->np, rep);
        mine[0] = (long long)bad;
        mine[1] = bad > 0;
        CHECK_MPI(MPI_Allreduce(mine, out->bad, 2, MPI_LONG_LONG, MPI_SUM, c->comm));
    }
}

/* ---- one size ---------------------------------------------------------------------- */

/* Before auto's first repetition at size s: the learner's patience and then
 * --learn-warmup calls of it, so that topocoll's run-time learner
 * (docs/learning.md) has waited, explored the size class and settled (on every rank at the same call) before anything is
 * timed; the buffers refilled afterwards by run_one.  Each call follows a
 * barrier, as in the timed loop: the learner times the calls in the pattern
 * that is measured (back to back, a chain such as a linear scan pipelines
 * its calls and looks far faster than after a barrier).  A failure on some rank
 * ends the warm-up on all of them (agreed every 16 calls); the timed
 * repetitions then report it. */
static void learn_warmup(bench_ctx *c, int s)
{
    int err = MPI_SUCCESS, gerr = MPI_SUCCESS;
    long calls = bench_learn_warmup_calls(&c->opts);
    if (c->opts.validate)
        bench_coll_fill(c->bc, c->sbuf, c->rbuf, c->opts.sizes[s], c->rank, c->np, 0);
    for (long w = 0; w < calls && gerr == MPI_SUCCESS; w++) {
        CHECK_MPI(MPI_Barrier(c->comm));
        int e = bench_coll_call(c->bc, BENCH_AUTO, c->sbuf, c->rbuf, c->opts.sizes[s], c->comm);
        if (e != MPI_SUCCESS && err == MPI_SUCCESS)
            err = e;
        if (w % 16 == 15 || w + 1 == calls)
            CHECK_MPI(MPI_Allreduce(&err, &gerr, 1, MPI_INT, MPI_MAX, c->comm));
    }
}

static void progress(bench_ctx *c, int s, const char *algo, int rep)
{
    char sz[32];
    if (!c->progress)
        return;
    bench_format_size(c->opts.sizes[s], sz, sizeof sz);
    fprintf(stderr, "\r  size %d/%d (%s): %s, repetition %d/%d\033[K", s + 1,
            c->opts.nsizes, sz, algo, rep + 1, c->opts.reps);
    fflush(stderr);
}

/* Allocates the buffers of size s on every rank; 0 when all ranks have them. */
static int size_buffers(bench_ctx *c, int s)
{
    int ok = 1, gok = 0;
    free(c->sbuf);
    free(c->rbuf);
    c->sbuf = c->rbuf = NULL;
    if (bench_coll_buffers(c->bc, c->opts.sizes[s], c->np, c->rank, &c->sbytes, &c->rbytes) != 0) {
        ok = 0;
    } else {
        c->sbuf = malloc(c->sbytes > 0 ? c->sbytes : 1);
        c->rbuf = malloc(c->rbytes > 0 ? c->rbytes : 1);
        if (c->sbuf == NULL || c->rbuf == NULL)
            ok = 0;
        else if (!c->opts.validate) {
            /* defined contents, even when nobody checks them */
            memset(c->sbuf, c->rank & 0xff, c->sbytes);
            memset(c->rbuf, 0, c->rbytes);
        }
    }
    CHECK_MPI(MPI_Allreduce(&ok, &gok, 1, MPI_INT, MPI_MIN, c->comm));
    return gok ? 0 : -1;
}

static void run_size(bench_ctx *c, int s)
{
    bench_run *r = &c->run;
    int na = r->nalgos, reps = c->opts.reps;

    if (size_buffers(c, s) != 0) {
        for (int a = 0; a < na; a++) {
            bench_result *x = &r->res[(size_t)s * (size_t)na + (size_t)a];
            if (x->status == BENCH_DECLINED)
                continue;
            x->status = BENCH_ERROR;
            snprintf(x->msg, sizeof x->msg,
                     "error: cannot allocate %zu + %zu bytes of buffers on some rank",
                     c->sbytes, c->rbytes);
        }
        return;
    }
    for (int a = 0; a < na; a++) {
        c->repbad[a] = -1;
        c->badbytes[a] = 0;
        c->badranks[a] = 0;
    }
    for (int a = 0; a < na; a++)
        r->res[(size_t)s * (size_t)na + (size_t)a].outliers = 0;

    /* Each repetition runs the columns in an order of its own
     * (bench_column_order): at small sizes a column's time depends on its
     * place and on the column before it (a rotation kept the predecessors:
     * at 8 B on 2 cores whichever column came first in -a read 0.6-0.9x of
     * the others), and the median over the repetitions should not hand
     * that to one column. */
    for (int rep = 0; rep < reps; rep++) {
        bench_column_order(na, s, rep, c->order);
        for (int k = 0; k < na; k++) {
            int a = c->order[k];
            bench_result *x = &r->res[(size_t)s * (size_t)na + (size_t)a];
            one_result o;
            if (x->status == BENCH_DECLINED || x->status == BENCH_ERROR)
                continue;
            if (c->rank == 0)
                progress(c, s, r->algos[a], rep);
            if (rep == 0 && strcmp(r->algos[a], BENCH_AUTO) == 0)
                learn_warmup(c, s);
            run_one(c, s, r->algos[a], rep, &o);
            if (o.err != MPI_SUCCESS) {
                char es[MPI_MAX_ERROR_STRING];
                error_string(o.err, es, sizeof es);
                x->status = BENCH_ERROR;
                snprintf(x->msg, sizeof x->msg, "error: %s", es);
                continue;
            }
            if (o.bad[0] > 0 && c->repbad[a] < 0) {
                c->repbad[a] = rep;
                c->badbytes[a] = o.bad[0];
                c->badranks[a] = o.bad[1];
            }
            if (c->rank == 0) {
                int dropped = 0;
                double t = bench_tukey_mean(c->tmax, r->iters[s], &dropped);
                c->reptimes[(size_t)a * (size_t)reps + (size_t)rep] = t * 1e6;
                x->outliers += dropped;
            }
        }
    }
    for (int a = 0; a < na; a++) {
        bench_result *x = &r->res[(size_t)s * (size_t)na + (size_t)a];
        if (x->status == BENCH_DECLINED || x->status == BENCH_ERROR)
            continue;
        if (c->rank == 0) {
            double *rt = &c->reptimes[(size_t)a * (size_t)reps];
            x->median_us = bench_median(rt, reps); /* sorts rt */
            x->min_us = rt[0];
            x->max_us = rt[reps - 1];
        }
        if (c->repbad[a] >= 0) {
            x->status = BENCH_INVALID;
            snprintf(x->msg, sizeof x->msg,
                     "INVALID: %lld wrong byte%s on %lld rank%s (first in repetition %d)",
                     c->badbytes[a], c->badbytes[a] == 1 ? "" : "s", c->badranks[a],
                     c->badranks[a] == 1 ? "" : "s",
                     c->repbad[a] + 1);
        }
    }
}

/* ---- setup steps of main: each returns -1 to go on, else the exit status
 * (every rank agrees on it) -------------------------------------------------------- */

/* Options: every rank parses the same argv. */
static int setup_options(bench_ctx *c, int argc, char **argv)
{
    char err[512], list[1024];
    int prc = bench_parse_options(argc, argv, &c->opts, err, sizeof err);
    if (prc == BENCH_PARSE_ERROR)
        return usage_error(c, "%s", err);
    if (prc == BENCH_PARSE_HELP) {
        if (c->rank == 0)
            print_help();
        return finish(c, 0);
    }
    int k = topocoll_coll_from_name(c->opts.coll_name);
    if (k < 0) {
        known_colls(list, sizeof list);
        return usage_error(c, "unknown collective '%s' (known: %s)", c->opts.coll_name, list);
    }
    c->coll = (topocoll_coll)k;
    c->run.coll_name = topocoll_coll_name(c->coll);
    c->bc = bench_coll_get(c->coll);
    if (c->bc == NULL || c->run.coll_name == NULL)
        return usage_error(c, "collective '%s' is not supported by the benchmark", c->opts.coll_name);
    c->run.datatype = c->bc->esize == 1 ? "MPI_BYTE" : "MPI_INT32_T";
    if (expand_patterns(c) != 0)
        return usage_error(c, "out of memory");
    for (int i = 0; i < c->opts.nalgos; i++)
        if (strcmp(c->opts.algos[i], BENCH_INTERPOSED) == 0 && c->opts.overlap)
            return usage_error(c, "--overlap: the column '%s' has no nonblocking form", BENCH_INTERPOSED);
        else if (strcmp(c->opts.algos[i], BENCH_AUTO) != 0 && strcmp(c->opts.algos[i], BENCH_INTERPOSED) != 0 &&
                 topocoll_algorithm_index(c->coll, c->opts.algos[i]) < 0) {
            known_algos(c->coll, list, sizeof list);
            return usage_error(c, "unknown algorithm '%s' for %s (known: %s)", c->opts.algos[i],
                               c->run.coll_name, list);
        }
    if (c->opts.overlap && !bench_nb_supported(c->bc))
        return usage_error(c, "--overlap: %s has no nonblocking call in the benchmark",
                           c->run.coll_name);
    for (int s = 0; s < c->opts.nsizes; s++) {
        size_t sb, rb;
        int brc = bench_coll_buffers(c->bc, c->opts.sizes[s], c->np, 0, &sb, &rb);
        bench_format_size(c->opts.sizes[s], list, sizeof list);
        if (brc == BENCH_SIZE_UNALIGNED)
            return usage_error(c, "size %s is not a multiple of %s's %d-byte element", list,
                               c->run.coll_name, c->bc->esize);
        if (brc != 0)
            return usage_error(c, "size %s is too large for %d processes", list, c->np);
    }
    return -1;
}

/* -t, then the topology's counts and description. */
static int setup_topology(bench_ctx *c)
{
    int ok, gok, trc;
    if (c->opts.topology != NULL) {
        trc = topocoll_set_topology(c->comm, c->opts.topology);
        ok = trc == MPI_SUCCESS;
        CHECK_MPI(MPI_Allreduce(&ok, &gok, 1, MPI_INT, MPI_MIN, c->comm));
        if (!gok) {
            char es[MPI_MAX_ERROR_STRING];
            error_string(trc, es, sizeof es);
            return usage_error(c, "--topology '%s' rejected: %s", c->opts.topology,
                               trc == MPI_SUCCESS ? "on another rank" : es);
        }
    }
    trc = topocoll_topology_counts(c->comm, &c->run.nnodes, &c->run.nsockets);
    if (trc == MPI_SUCCESS)
        trc = topocoll_topology_describe(c->comm, c->run.topo_desc, (int)sizeof c->run.topo_desc);
    ok = trc == MPI_SUCCESS;
    CHECK_MPI(MPI_Allreduce(&ok, &gok, 1, MPI_INT, MPI_MIN, c->comm));
    if (gok)
        return -1;
    if (c->rank == 0) {
        char es[MPI_MAX_ERROR_STRING];
        error_string(trc, es, sizeof es);
        fprintf(stderr, BENCH_PROG ": cannot build the topology: %s\n",
                ok ? "failed on another rank" : es);
    }
    return finish(c, 1);
}

/* Output files: open them now, so that a bad path costs no run. */
static int setup_files(bench_ctx *c)
{
    char err[512];
    int ok = 1;
    if (c->rank == 0) {
        const char *paths[2] = { c->opts.csv_path, c->opts.json_path };
        FILE **fps[2] = { &c->csv, &c->json };
        for (int i = 0; i < 2 && ok; i++) {
            if (paths[i] == NULL)
                continue;
            *fps[i] = fopen(paths[i], "w");
            if (*fps[i] == NULL) {
                snprintf(err, sizeof err, "cannot write '%s': %s", paths[i], strerror(errno));
                ok = 0;
            }
        }
        if (ok && c->csv != NULL &&
            (c->opts.overlap ? bench_overlap_csv_begin(c->csv) : bench_csv_begin(c->csv)) != 0) {
            snprintf(err, sizeof err, "cannot write '%s'", c->opts.csv_path);
            ok = 0;
        }
    }
    CHECK_MPI(MPI_Bcast(&ok, 1, MPI_INT, 0, c->comm));
    return ok ? -1 : usage_error(c, "%s", err);
}

/* What the header prints about MPI. */
static void setup_run_info(bench_ctx *c)
{
    int len = 0;
    CHECK_MPI(MPI_Get_library_version(c->run.mpi_version, &len));
    c->run.mpi_version[strcspn(c->run.mpi_version, "\r\n")] = '\0';
    for (char *p = c->run.mpi_version; *p; p++)
        if (*p == '\t')
            *p = ' ';
    c->run.wtick = MPI_Wtick();
    c->run.np = c->np;
    c->run.opts = &c->opts;
}

static _Noreturn void out_of_memory(bench_ctx *c)
{
    fprintf(stderr, BENCH_PROG ": out of memory\n");
    MPI_Abort(c->comm, 1);
    exit(1);
}

/* Iterations per size: from the root's (largest) buffers, the same on every rank. */
static void setup_iterations(bench_ctx *c)
{
    int *it = malloc((size_t)c->opts.nsizes * sizeof *it);
    int *wu = malloc((size_t)c->opts.nsizes * sizeof *wu);
    int maxit = 1;
    c->run.iters = it;
    c->run.warmup = wu;
    if (it == NULL || wu == NULL)
        out_of_memory(c);
    c->run.adaptive_iters = c->opts.iters == 0;
    c->run.adaptive_warmup = c->opts.warmup < 0;
    for (int s = 0; s < c->opts.nsizes; s++) {
        size_t sb = 0, rb = 0;
        if (bench_coll_buffers(c->bc, c->opts.sizes[s], c->np, 0, &sb, &rb) != 0)
            sb = rb = SIZE_MAX; /* checked with the options; keeps the compiler calm */
        it[s] = c->opts.iters > 0 ? c->opts.iters : adaptive_iters(sb > rb ? sb : rb);
        wu[s] = c->opts.warmup >= 0 ? c->opts.warmup : adaptive_warmup(it[s]);
        if (it[s] > maxit)
            maxit = it[s];
    }
    c->times = malloc((size_t)maxit * sizeof *c->times);
    if (c->rank == 0)
        c->tmax = malloc((size_t)maxit * sizeof *c->tmax);
    if (c->times == NULL || (c->rank == 0 && c->tmax == NULL))
        out_of_memory(c);
}

/* The columns and the per-algorithm bookkeeping. */
static int setup_columns(bench_ctx *c)
{
    int ok = choose_columns(c) == 0, gok;
    CHECK_MPI(MPI_Allreduce(&ok, &gok, 1, MPI_INT, MPI_MIN, c->comm));
    if (!gok)
        return finish(c, 1);
    c->repbad = malloc((size_t)c->run.nalgos * sizeof *c->repbad);
    c->badbytes = malloc((size_t)c->run.nalgos * sizeof *c->badbytes);
    c->badranks = malloc((size_t)c->run.nalgos * sizeof *c->badranks);
    c->order = malloc((size_t)c->run.nalgos * sizeof *c->order);
    if (c->rank == 0)
        c->reptimes = malloc((size_t)c->run.nalgos * (size_t)c->opts.reps * sizeof *c->reptimes);
    if (!c->repbad || !c->badbytes || !c->badranks || !c->order || (c->rank == 0 && !c->reptimes))
        out_of_memory(c);
    return -1;
}

/* Every size, row by row; 0, or 1 when the CSV file could not be written. */
static int run_sizes(bench_ctx *c)
{
    int ok = 1;
    c->progress = c->rank == 0 && !c->opts.quiet && (c->opts.progress || isatty(STDERR_FILENO));
    if (c->rank == 0) {
        if (!c->opts.quiet)
            bench_print_header(&c->run);
        bench_print_table_head(&c->run);
    }
    for (int s = 0; s < c->opts.nsizes; s++) {
        run_size(c, s);
        int frc = topocoll_flush_cache(c->comm);
        if (frc != MPI_SUCCESS && c->rank == 0 && s == 0) {
            char es[MPI_MAX_ERROR_STRING];
            error_string(frc, es, sizeof es);
            fprintf(stderr, BENCH_PROG ": warning: topocoll_flush_cache: %s\n", es);
        }
        if (c->rank != 0)
            continue;
        bench_rank_row(&c->run, s);
        if (c->progress) {
            fprintf(stderr, "\r\033[K");
            fflush(stderr);
        }
        bench_print_row(&c->run, s);
        if (c->csv != NULL && ok && bench_csv_row(c->csv, &c->run, s) != 0) {
            fprintf(stderr, BENCH_PROG ": writing '%s' failed\n", c->opts.csv_path);
            ok = 0;
        }
    }
    return ok ? 0 : 1;
}

/* Closes an output file; 0, or 1 when writing it failed. */
static int close_file(FILE **f, const char *path, int ok)
{
    if (*f == NULL)
        return 0;
    int rc = fclose(*f) != 0 && ok;
    *f = NULL;
    if (rc)
        fprintf(stderr, BENCH_PROG ": writing '%s' failed\n", path);
    return rc;
}

/* Verdict and files: the exit status (rank 0 decides, every rank returns it). */
static int verdict(bench_ctx *c, int write_failed)
{
    int code = 0, ok = !write_failed;
    for (size_t i = 0; i < (size_t)c->opts.nsizes * (size_t)c->run.nalgos; i++)
        if (c->run.res[i].status == BENCH_INVALID || c->run.res[i].status == BENCH_ERROR)
            code = 1;
    if (c->rank == 0) {
        bench_print_notes(&c->run);
        if (c->json != NULL && bench_write_json(c->json, &c->run) != 0) {
            fprintf(stderr, BENCH_PROG ": writing '%s' failed\n", c->opts.json_path);
            ok = 0;
        }
        if (close_file(&c->csv, c->opts.csv_path, ok))
            ok = 0;
        if (close_file(&c->json, c->opts.json_path, ok))
            ok = 0;
        if (!ok)
            code = 1;
        if (code == 1 && ok && !c->opts.quiet)
            printf("# some results are INVALID or failed: exit status 1\n");
    }
    CHECK_MPI(MPI_Bcast(&code, 1, MPI_INT, 0, c->comm));
    return code;
}

/* --overlap: the overlap mode (overlap.c) instead of the columns; its exit
 * status, the CSV file closed. */
static int run_overlap(bench_ctx *c)
{
    bench_overlap_args a = {
        .comm = c->comm, .rank = c->rank, .np = c->np, .opts = &c->opts, .bc = c->bc,
        .coll_name = c->run.coll_name, .datatype = c->run.datatype, .topo_desc = c->run.topo_desc,
        .mpi_version = c->run.mpi_version, .wtick = c->run.wtick, .iters = c->run.iters,
        .warmup = c->run.warmup, .csv = c->csv,
    };
    int code = bench_overlap_run(&a);
    if (c->rank == 0 && close_file(&c->csv, c->opts.csv_path, code == 0))
        code = 1;
    CHECK_MPI(MPI_Bcast(&code, 1, MPI_INT, 0, c->comm));
    return code;
}

/* ---- main ------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    bench_ctx c;
    int rc;

    memset(&c, 0, sizeof c);
    /* auto is measured as a long run meets it: every key learns after its
     * patience, however short its calls (unless the environment says) */
    setenv("TOPOCOLL_LEARN_PAYBACK", "0", 0);
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, BENCH_PROG ": MPI_Init failed\n");
        return 1;
    }
    c.comm = MPI_COMM_WORLD;
    CHECK_MPI(MPI_Comm_set_errhandler(c.comm, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_rank(c.comm, &c.rank));
    CHECK_MPI(MPI_Comm_size(c.comm, &c.np));

    if ((rc = setup_options(&c, argc, argv)) >= 0)
        return rc;
    if ((rc = setup_topology(&c)) >= 0)
        return rc;
    if ((rc = setup_files(&c)) >= 0)
        return rc;
    setup_run_info(&c);
    setup_iterations(&c);
    if (c.opts.overlap)
        return finish(&c, run_overlap(&c));
    if ((rc = setup_columns(&c)) >= 0)
        return rc;
    rc = run_sizes(&c);
    return finish(&c, verdict(&c, rc));
}
