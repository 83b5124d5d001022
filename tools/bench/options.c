/*
 * topocoll-bench: command line.  Plain C, no MPI: main() parses on every rank
 * (all ranks see the same argv) and only rank 0 prints.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

void bench_usage(FILE *f)
{
    fprintf(f,
"Usage: mpirun [...] " BENCH_PROG " [options]\n"
"Times topocoll's algorithms for one collective side by side, interleaved per size.\n"
"\n"
"  -c, --coll NAME       collective (default allgather)\n"
"  -s, --sizes SPEC      bytes per rank: a list \"8,64,1K,1M\" and/or ranges \"8:1M\"\n"
"                        (powers of two) or \"8:1M:x4\" (factor 4); suffixes K, M, G\n"
"                        are binary (default 8:1M)\n"
"  -i, --iters N         timed iterations per (size, algorithm, repetition)\n"
"                        (default adaptive: %d, fewer for large messages, at least %d)\n"
"  -w, --warmup N        untimed iterations first (default adaptive, at most %d)\n"
"      --learn-warmup N  calls of auto at each size before its first repetition, so\n"
"                        that topocoll's run-time learner has settled there and its\n"
"                        exploration is not timed, after the learner's patience\n"
"                        (TOPOCOLL_LEARN_PATIENCE calls, default %d) (default %d;\n"
"                        0: no warm-up at all); every key learns after its patience\n"
"                        (TOPOCOLL_LEARN_PAYBACK 0 unless set)\n"
"      --sleep-us N      sleep between iterations, microseconds (default 0)\n"
"      --back-to-back    the iterations run back to back after one MPI_Barrier and\n"
"                        are timed as one loop (OSU's osu_barrier, IMB): a call's\n"
"                        time is the loop's over the iterations, the maximum over\n"
"                        ranks; for latency-bound calls, whose single timing would\n"
"                        hold the barrier's own skew between ranks\n"
"  -r, --reps N          repetitions; the median over them is reported (default 5)\n"
"  -a, --algos LIST      comma-separated algorithm names (default: native and every\n"
"                        algorithm that serves at least one of the sizes); \"all\":\n"
"                        every algorithm (a family at its defaults), \"variants\":\n"
"                        every variant; shell patterns match variant names (h1_*);\n"
"                        \"native\" calls PMPI_<Coll>, \"auto\" topocoll_<coll>,\n"
"                        \"interposed\" MPI_<Coll> (whatever LD_PRELOAD puts in front\n"
"                        of the MPI library: the interposer, or the null shim,\n"
"                        libtopocoll_null_shim.so, whose cost is any PMPI layer's)\n"
"  -t, --topology SPEC   virtual topology for MPI_COMM_WORLD (topocoll_set_topology)\n"
"      --csv FILE        write the results as CSV\n"
"      --json FILE       write the results as JSON\n"
"      --no-validate     do not check the receive buffers\n"
"  -q, --quiet           no header, no progress: the table and its notes only\n"
"      --progress        show progress on stderr even when it is not a terminal\n"
"                        (mpirun passes stderr through a pipe)\n"
"  -h, --help            this text, and the algorithms of the collectives\n"
"      --overlap         nonblocking overlap mode: per size and implementation (default\n"
"                        native and auto; -a names others) the pure time of start +\n"
"                        wait, the blocking time, the time with a calibrated compute\n"
"                        as long as the pure time between start and wait, the overlap\n"
"                        in percent and the persistent form's start + wait\n"
"      --test-calls N    with --overlap: N MPI_Test calls spread in the compute\n"
"                        (default 0)\n"
"      --no-persistent   with --overlap: leave the persistent form out\n"
"\n"
"Each timed iteration is MPI_Barrier; t = MPI_Wtime(); call; t = MPI_Wtime() - t.\n"
"The time of an iteration is the maximum over ranks; a repetition's time is the mean\n"
"after Tukey's fences; the reported time is the median over repetitions, in\n"
"microseconds, with its ratio to native (below 1 is faster; * marks the fastest).\n"
"Exit status: 0 success, 1 a wrong result or a failed call, 2 bad options.\n",
            BENCH_ITERS_MAX, BENCH_ITERS_MIN, BENCH_WARMUP_MAX, BENCH_LEARN_PATIENCE, BENCH_LEARN_WARMUP);
}

static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    if (err == NULL || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* ---- sizes ---------------------------------------------------------------- */

/* One size: digits with an optional K/M/G suffix (binary).  The token is
 * [s, e); err names the token. */
static int parse_one_size(const char *s, const char *e, size_t *out,
                          char *err, size_t errlen)
{
    size_t v = 0;
    const char *p = s;
    int len = (int)(e - s);

    if (p == e) {
        seterr(err, errlen, "empty size");
        return -1;
    }
    if (*p < '0' || *p > '9') {
        seterr(err, errlen, "'%.*s' is not a size (a number with an optional K, M or G)",
               len, s);
        return -1;
    }
    while (p < e && *p >= '0' && *p <= '9') {
        size_t d = (size_t)(*p - '0');
        if (v > (SIZE_MAX - d) / 10) {
            seterr(err, errlen, "size '%.*s' is too large", len, s);
            return -1;
        }
        v = v * 10 + d;
        p++;
    }
    if (p < e) {
        unsigned shift;
        switch (*p) {
        case 'k': case 'K': shift = 10; break;
        case 'm': case 'M': shift = 20; break;
        case 'g': case 'G': shift = 30; break;
        default:
            seterr(err, errlen, "'%.*s' is not a size (a number with an optional K, M or G)",
                   len, s);
            return -1;
        }
        p++;
        if (p < e) {
            seterr(err, errlen, "'%.*s' is not a size (a number with an optional K, M or G)",
                   len, s);
            return -1;
        }
        if (v > (SIZE_MAX >> shift)) {
            seterr(err, errlen, "size '%.*s' is too large", len, s);
            return -1;
        }
        v <<= shift;
    }
    if (v == 0) {
        seterr(err, errlen, "sizes must be at least 1 byte (got '%.*s')", len, s);
        return -1;
    }
    if (v > (size_t)INT_MAX) {
        seterr(err, errlen, "size '%.*s' is too large (at most %d bytes per rank)",
               len, s, INT_MAX);
        return -1;
    }
    *out = v;
    return 0;
}

static int push_size(size_t **a, int *n, int *cap, size_t v, char *err, size_t errlen)
{
    if (*n >= BENCH_MAX_SIZES) {
        seterr(err, errlen, "too many sizes (at most %d)", BENCH_MAX_SIZES);
        return -1;
    }
    if (*n == *cap) {
        int ncap = *cap ? 2 * *cap : 16;
        size_t *b = realloc(*a, (size_t)ncap * sizeof **a);
        if (b == NULL) {
            seterr(err, errlen, "out of memory");
            return -1;
        }
        *a = b;
        *cap = ncap;
    }
    (*a)[(*n)++] = v;
    return 0;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* One comma-separated item: "N" or "A:B" or "A:B:xF". */
static int parse_size_item(const char *s, const char *e, size_t **a, int *n, int *cap,
                           char *err, size_t errlen)
{
    const char *c1 = memchr(s, ':', (size_t)(e - s));
    size_t lo, hi, factor = 2;

    if (c1 == NULL) {
        if (parse_one_size(s, e, &lo, err, errlen) != 0)
            return -1;
        return push_size(a, n, cap, lo, err, errlen);
    }
    const char *c2 = memchr(c1 + 1, ':', (size_t)(e - c1 - 1));
    const char *hend = c2 ? c2 : e;
    if (parse_one_size(s, c1, &lo, err, errlen) != 0)
        return -1;
    if (parse_one_size(c1 + 1, hend, &hi, err, errlen) != 0)
        return -1;
    if (c2 != NULL) {
        const char *f = c2 + 1;
        char *end;
        long fv;
        char buf[32];
        size_t flen = (size_t)(e - f);
        if (flen < 2 || flen >= sizeof buf || (f[0] != 'x' && f[0] != 'X')) {
            seterr(err, errlen, "range step '%.*s' must be a factor like x2 or x4",
                   (int)flen, f);
            return -1;
        }
        memcpy(buf, f + 1, flen - 1);
        buf[flen - 1] = '\0';
        errno = 0;
        fv = strtol(buf, &end, 10);
        if (errno != 0 || *end != '\0' || end == buf || buf[0] < '0' || buf[0] > '9' ||
            fv < 2 || fv > 1024) {
            seterr(err, errlen, "range step '%.*s' must be a factor from x2 to x1024",
                   (int)flen, f);
            return -1;
        }
        factor = (size_t)fv;
    }
    if (lo > hi) {
        seterr(err, errlen, "range '%.*s' runs backwards", (int)(e - s), s);
        return -1;
    }
    for (size_t v = lo;; v *= factor) {
        if (push_size(a, n, cap, v, err, errlen) != 0)
            return -1;
        if (v > hi / factor)
            break;
    }
    return 0;
}

int bench_parse_sizes(const char *spec, size_t **sizes, int *nsizes, char *err,
                      size_t errlen)
{
    size_t *a = NULL;
    int n = 0, cap = 0, m = 0;
    const char *s = spec;

    *sizes = NULL;
    *nsizes = 0;
    if (spec == NULL || *spec == '\0') {
        seterr(err, errlen, "empty size list");
        return -1;
    }
    for (;;) {
        const char *e = strchr(s, ',');
        if (e == NULL)
            e = s + strlen(s);
        if (parse_size_item(s, e, &a, &n, &cap, err, errlen) != 0) {
            free(a);
            return -1;
        }
        if (*e == '\0')
            break;
        s = e + 1;
    }
    qsort(a, (size_t)n, sizeof *a, cmp_size);
    for (int i = 0; i < n; i++)
        if (m == 0 || a[m - 1] != a[i])
            a[m++] = a[i];
    *sizes = a;
    *nsizes = m;
    return 0;
}

void bench_format_size(size_t bytes, char *buf, size_t len)
{
    static const char suffix[] = "GMK";
    for (int i = 0; i < 3; i++) {
        unsigned shift = (unsigned)(30 - 10 * i);
        size_t unit = (size_t)1 << shift;
        if (bytes >= unit && bytes % unit == 0) {
            snprintf(buf, len, "%zu%c", bytes >> shift, suffix[i]);
            return;
        }
    }
    snprintf(buf, len, "%zu", bytes);
}

/* ---- integers and lists ------------------------------------------------- */

static int parse_long(const char *opt, const char *s, long lo, long hi, long *out,
                      char *err, size_t errlen)
{
    char *end;
    long v;
    errno = 0;
    v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || errno != 0 || v < lo || v > hi) {
        seterr(err, errlen, "%s needs a whole number from %ld to %ld, not '%s'",
               opt, lo, hi, s);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_algos(const char *s, bench_opts *o, char *err, size_t errlen)
{
    const char *p = s;
    int cap = 0;

    if (*s == '\0') {
        seterr(err, errlen, "--algos needs at least one algorithm name");
        return -1;
    }
    for (;;) {
        size_t len = topocoll_algorithm_list_item(p);
        const char *e = p[len] ? p + len : NULL;
        int dup = 0;
        if (len == 0) {
            seterr(err, errlen, "--algos '%s' has an empty name", s);
            return -1;
        }
        for (int i = 0; i < o->nalgos; i++)
            if (strlen(o->algos[i]) == len && memcmp(o->algos[i], p, len) == 0)
                dup = 1;
        if (!dup) {
            char *name;
            if (o->nalgos == cap) {
                int ncap = cap ? 2 * cap : 8;
                char **b = realloc(o->algos, (size_t)ncap * sizeof *b);
                if (b == NULL) {
                    seterr(err, errlen, "out of memory");
                    return -1;
                }
                o->algos = b;
                cap = ncap;
            }
            name = malloc(len + 1);
            if (name == NULL) {
                seterr(err, errlen, "out of memory");
                return -1;
            }
            memcpy(name, p, len);
            name[len] = '\0';
            o->algos[o->nalgos++] = name;
        }
        if (e == NULL)
            break;
        p = e + 1;
    }
    return 0;
}

/* ---- the option table ------------------------------------------------------ */

enum opt_id {
    OPT_COLL, OPT_SIZES, OPT_ITERS, OPT_WARMUP, OPT_LEARN_WARMUP, OPT_SLEEP, OPT_REPS, OPT_ALGOS,
    OPT_TOPO, OPT_CSV, OPT_JSON, OPT_NOVALIDATE, OPT_QUIET, OPT_PROGRESS, OPT_HELP, OPT_OVERLAP,
    OPT_TEST_CALLS, OPT_NO_PERSISTENT, OPT_BACK_TO_BACK
};

static const struct opt_def {
    char shortname;        /* 0: long only */
    const char *longname;
    int has_arg;
    enum opt_id id;
} opt_defs[] = {
    { 'c', "coll", 1, OPT_COLL },
    { 's', "sizes", 1, OPT_SIZES },
    { 'i', "iters", 1, OPT_ITERS },
    { 'w', "warmup", 1, OPT_WARMUP },
    { 0, "learn-warmup", 1, OPT_LEARN_WARMUP },
    { 0, "sleep-us", 1, OPT_SLEEP },
    { 'r', "reps", 1, OPT_REPS },
    { 'a', "algos", 1, OPT_ALGOS },
    { 't', "topology", 1, OPT_TOPO },
    { 0, "csv", 1, OPT_CSV },
    { 0, "json", 1, OPT_JSON },
    { 0, "no-validate", 0, OPT_NOVALIDATE },
    { 'q', "quiet", 0, OPT_QUIET },
    { 0, "progress", 0, OPT_PROGRESS },
    { 'h', "help", 0, OPT_HELP },
    { 0, "overlap", 0, OPT_OVERLAP },
    { 0, "test-calls", 1, OPT_TEST_CALLS },
    { 0, "no-persistent", 0, OPT_NO_PERSISTENT },
    { 0, "back-to-back", 0, OPT_BACK_TO_BACK },
};
#define NOPTS ((int)(sizeof opt_defs / sizeof opt_defs[0]))

static int apply(const struct opt_def *d, const char *arg, bench_opts *o, char *err,
                 size_t errlen)
{
    long v;
    char sub[256];

    switch (d->id) {
    case OPT_COLL:
        o->coll_name = arg;
        return 0;
    case OPT_SIZES:
        free(o->sizes);
        o->sizes = NULL;
        o->nsizes = 0;
        if (bench_parse_sizes(arg, &o->sizes, &o->nsizes, sub, sizeof sub) != 0) {
            seterr(err, errlen, "--sizes '%s': %s", arg, sub);
            return -1;
        }
        return 0;
    case OPT_ITERS:
        if (parse_long("--iters", arg, 1, BENCH_MAX_ITERS, &v, err, errlen) != 0)
            return -1;
        o->iters = (int)v;
        return 0;
    case OPT_WARMUP:
        if (parse_long("--warmup", arg, 0, BENCH_MAX_WARMUP, &v, err, errlen) != 0)
            return -1;
        o->warmup = (int)v;
        return 0;
    case OPT_LEARN_WARMUP:
        if (parse_long("--learn-warmup", arg, 0, BENCH_MAX_WARMUP, &v, err, errlen) != 0)
            return -1;
        o->learn_warmup = (int)v;
        return 0;
    case OPT_SLEEP:
        if (parse_long("--sleep-us", arg, 0, BENCH_MAX_SLEEP_US, &v, err, errlen) != 0)
            return -1;
        o->sleep_us = v;
        return 0;
    case OPT_REPS:
        if (parse_long("--reps", arg, 1, BENCH_MAX_REPS, &v, err, errlen) != 0)
            return -1;
        o->reps = (int)v;
        return 0;
    case OPT_ALGOS:
        for (int i = 0; i < o->nalgos; i++)
            free(o->algos[i]);
        free(o->algos);
        o->algos = NULL;
        o->nalgos = 0;
        return parse_algos(arg, o, err, errlen);
    case OPT_TOPO:
        if (*arg == '\0') {
            seterr(err, errlen, "--topology needs a spec");
            return -1;
        }
        o->topology = arg;
        return 0;
    case OPT_CSV:
    case OPT_JSON:
        if (*arg == '\0') {
            seterr(err, errlen, "--%s needs a file name", d->longname);
            return -1;
        }
        if (d->id == OPT_CSV)
            o->csv_path = arg;
        else
            o->json_path = arg;
        return 0;
    case OPT_NOVALIDATE:
        o->validate = 0;
        return 0;
    case OPT_BACK_TO_BACK:
        o->back_to_back = 1;
        return 0;
    case OPT_QUIET:
        o->quiet = 1;
        return 0;
    case OPT_PROGRESS:
        o->progress = 1;
        return 0;
    case OPT_HELP:
        o->help = 1;
        return 0;
    case OPT_OVERLAP:
        o->overlap = 1;
        return 0;
    case OPT_TEST_CALLS:
        if (parse_long("--test-calls", arg, 0, BENCH_MAX_TEST_CALLS, &v, err, errlen) != 0)
            return -1;
        o->test_calls = (int)v;
        return 0;
    case OPT_NO_PERSISTENT:
        o->no_persistent = 1;
        return 0;
    }
    seterr(err, errlen, "internal error: unhandled option");
    return -1;
}

int bench_learn_patience(void)
{
    const char *v = getenv("TOPOCOLL_LEARN_PATIENCE");
    char *end = NULL;
    if (v == NULL || *v == '\0')
        return BENCH_LEARN_PATIENCE;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || *end != '\0' || n < 0 || n > 1000000000L)
        return BENCH_LEARN_PATIENCE;   /* the library takes its default too */
    return (int)n;
}

long bench_learn_warmup_calls(const bench_opts *o)
{
    return o->learn_warmup > 0 ? (long)bench_learn_patience() + o->learn_warmup : 0;
}

int bench_parse_options(int argc, char **argv, bench_opts *o, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->coll_name = "allgather";
    o->iters = 0;
    o->warmup = -1;
    o->learn_warmup = BENCH_LEARN_WARMUP;
    o->reps = 5;
    o->validate = 1;
    if (err != NULL && errlen > 0)
        err[0] = '\0';

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const struct opt_def *d = NULL;
        const char *arg = NULL;
        char shown[64];

        if (a[0] != '-' || a[1] == '\0') {
            seterr(err, errlen, "unexpected argument '%s'", a);
            return BENCH_PARSE_ERROR;
        }
        if (a[1] == '-') {
            const char *name = a + 2;
            const char *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            for (int k = 0; k < NOPTS; k++)
                if (strlen(opt_defs[k].longname) == len &&
                    memcmp(opt_defs[k].longname, name, len) == 0)
                    d = &opt_defs[k];
            if (d == NULL) {
                seterr(err, errlen, "unknown option '%.*s'", (int)(len + 2), a);
                return BENCH_PARSE_ERROR;
            }
            snprintf(shown, sizeof shown, "--%s", d->longname);
            if (eq != NULL) {
                if (!d->has_arg) {
                    seterr(err, errlen, "option %s takes no value", shown);
                    return BENCH_PARSE_ERROR;
                }
                arg = eq + 1;
            }
        } else {
            for (int k = 0; k < NOPTS; k++)
                if (opt_defs[k].shortname == a[1])
                    d = &opt_defs[k];
            if (d == NULL) {
                seterr(err, errlen, "unknown option '-%c'", a[1]);
                return BENCH_PARSE_ERROR;
            }
            snprintf(shown, sizeof shown, "-%c", a[1]);
            if (a[2] != '\0') {
                if (!d->has_arg) {
                    seterr(err, errlen, "option %s takes no value (in '%s')", shown, a);
                    return BENCH_PARSE_ERROR;
                }
                arg = a + 2;
            }
        }
        if (d->has_arg && arg == NULL) {
            if (i + 1 >= argc) {
                seterr(err, errlen, "option %s needs a value", shown);
                return BENCH_PARSE_ERROR;
            }
            arg = argv[++i];
        }
        if (apply(d, arg, o, err, errlen) != 0)
            return BENCH_PARSE_ERROR;
    }
    if (o->help)
        return BENCH_PARSE_HELP;
    if ((o->test_calls > 0 || o->no_persistent) && !o->overlap) {
        seterr(err, errlen, "%s needs --overlap", o->no_persistent ? "--no-persistent" : "--test-calls");
        return BENCH_PARSE_ERROR;
    }
    if (o->overlap && o->json_path != NULL) {
        seterr(err, errlen, "--json is not available with --overlap (use --csv)");
        return BENCH_PARSE_ERROR;
    }
    if (o->sizes == NULL) {
        char sub[256];
        if (bench_parse_sizes("8:1M", &o->sizes, &o->nsizes, sub, sizeof sub) != 0) {
            seterr(err, errlen, "default sizes: %s", sub);
            return BENCH_PARSE_ERROR;
        }
    }
    return BENCH_PARSE_OK;
}

void bench_opts_free(bench_opts *o)
{
    free(o->sizes);
    o->sizes = NULL;
    o->nsizes = 0;
    for (int i = 0; i < o->nalgos; i++)
        free(o->algos[i]);
    free(o->algos);
    o->algos = NULL;
    o->nalgos = 0;
}
