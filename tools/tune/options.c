/*
 * topocoll-tune: command line.  No MPI: every rank parses the same argv and
 * only rank 0 prints.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../bench/bench.h"
#include "tune.h"

void tune_usage(FILE *f)
{
    fprintf(f,
"Usage: mpiexec [...] " TUNE_PROG " [options]\n"
"Runs every collective at every size in a loop under topocoll's run-time learner\n"
"(docs/learning.md) until it has settled on a choice there (native always among its\n"
"candidates), and writes what it learned as a TOPOCOLL_TUNING_FILE (the format of\n"
"TOPOCOLL_LEARN_FILE), merged into the output's rules: the keys learned now replace\n"
"theirs, every other rule and section is kept.\n"
"\n"
"  -o, --output FILE     the tuning table (default topocoll-tuning.json)\n"
"  -s, --sizes SPEC      bytes per rank, as topocoll-bench -s (default: the grid below)\n"
"      --min BYTES       smallest size of the geometric grid (default 8)\n"
"      --max BYTES       largest size (default 1M)\n"
"      --factor F        grid factor, an integer >= 2 (default 2: the sizes of\n"
"                        topocoll-bench's default)\n"
"      --colls LIST      collectives to tune (default: every collective)\n"
"      --comms LIST      communicators: world, pernode (one rank per node), half\n"
"                        (the first half of the ranks) (default world)\n"
"  -t, --topology SPEC   virtual topology of MPI_COMM_WORLD (as topocoll-bench -t)\n"
"      --time DURATION   budget (\"10m\", \"90s\", \"1h\"), shared equally by the\n"
"                        (communicator, collective) groups; sizes left when a\n"
"                        group's share is spent are not learned (default: none)\n"
"      --max-calls N     calls per size at most while the learner settles (default\n"
"                        4000; a size that does not settle is reported)\n"
"      --resume          warm start from the output's learned rules: their keys are\n"
"                        not explored again, only the missing ones are learned\n"
"      --stop-after N    stop after N sizes learned (the table is still written)\n"
"      --export-ompi FILE   also write an Open MPI coll_tuned dynamic rules file\n"
"      --export-mpich FILE  also write an MPICH selection JSON\n"
"                        (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE)\n"
"      --mpich-base FILE MPICH's own selection JSON, kept where native stays\n"
"                        (MPICH 4.0 needs every collective in the file;\n"
"                        tools/tune/mpich-base.sh prints the library's own)\n"
"      --from TABLE      measure nothing: write the exports of an existing table\n"
"                        (a tune's, or a TOPOCOLL_LEARN_FILE)\n"
"  -q, --quiet           no progress on stderr\n"
"  -h, --help            this text\n"
"Exit status: 0 success, 1 a failure, 2 bad options.\n");
}

static void seterr(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
}

double tune_parse_duration(const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !isfinite(v) || v <= 0) return -1;
    if (*end == 'h') v *= 3600, end++;
    else if (*end == 'm') v *= 60, end++;
    else if (*end == 's') end++;
    return *end ? -1 : v;
}

static int parse_int(const char *name, const char *arg, long lo, long hi, int *out, char *err,
                     size_t len)
{
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (end == arg || *end || errno || v < lo || v > hi) {
        seterr(err, len, "%s '%s': expected an integer from %ld to %ld", name, arg, lo, hi);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int parse_bytes(const char *name, const char *arg, size_t *out, char *err, size_t len)
{
    size_t *one = NULL;
    int n = 0;
    char sub[200];
    if (strpbrk(arg, ",:") || bench_parse_sizes(arg, &one, &n, sub, sizeof sub) != 0 || n != 1) {
        seterr(err, len, "%s '%s': expected one size (e.g. 8, 64K, 1M)", name, arg);
        free(one);
        return -1;
    }
    *out = one[0];
    free(one);
    return 0;
}

static int parse_comms(const char *arg, tune_opts *o, char *err, size_t len)
{
    static const char *known[] = { "world", "pernode", "half" };
    o->ncomms = 0;
    for (const char *p = arg; *p;) {
        size_t n = strcspn(p, ",");
        int k = -1;
        for (int i = 0; i < 3; i++)
            if (strlen(known[i]) == n && strncmp(p, known[i], n) == 0) k = i;
        if (k < 0 || o->ncomms == TUNE_MAX_COMMS) {
            seterr(err, len, "--comms: unknown communicator '%.*s' (known: world, pernode, half)",
                   (int)n, p);
            return -1;
        }
        o->comms[o->ncomms++] = known[k];
        p += n + (p[n] == ',');
    }
    if (o->ncomms == 0) {
        seterr(err, len, "--comms needs at least one communicator");
        return -1;
    }
    return 0;
}

/* The geometric grid min, min x f, ... up to max. */
static int make_grid(tune_opts *o, size_t min, size_t max, int factor, char *err, size_t len)
{
    if (min == 0 || max < min) {
        seterr(err, len, "--min/--max: need 0 < min <= max");
        return -1;
    }
    int n = 0;
    for (size_t s = min; s <= max && n < 64; s *= (size_t)factor) n++;
    o->sizes = calloc((size_t)n, sizeof *o->sizes);
    if (!o->sizes) {
        seterr(err, len, "out of memory");
        return -1;
    }
    o->nsizes = 0;
    for (size_t s = min; o->nsizes < n; s *= (size_t)factor) o->sizes[o->nsizes++] = s;
    return 0;
}

enum { O_MIN = 256, O_MAX, O_FACTOR, O_COLLS, O_COMMS, O_TIME, O_MAXCALLS, O_RESUME, O_STOP, O_OMPI,
       O_MPICH, O_MBASE, O_FROM };

static const struct option longopts[] = {
    { "output", 1, NULL, 'o' }, { "sizes", 1, NULL, 's' }, { "min", 1, NULL, O_MIN },
    { "max", 1, NULL, O_MAX }, { "factor", 1, NULL, O_FACTOR }, { "colls", 1, NULL, O_COLLS },
    { "comms", 1, NULL, O_COMMS }, { "topology", 1, NULL, 't' }, { "time", 1, NULL, O_TIME },
    { "max-calls", 1, NULL, O_MAXCALLS }, { "resume", 0, NULL, O_RESUME },
    { "stop-after", 1, NULL, O_STOP }, { "export-ompi", 1, NULL, O_OMPI },
    { "export-mpich", 1, NULL, O_MPICH }, { "mpich-base", 1, NULL, O_MBASE }, { "from", 1, NULL, O_FROM },
    { "quiet", 0, NULL, 'q' }, { "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 },
};

typedef struct grid_args { size_t min, max; int factor; int explicit_sizes; } grid_args;

static int nonempty(const char *name, const char *arg, char *err, size_t len)
{
    if (*arg) return 0;
    seterr(err, len, "%s needs a value", name);
    return -1;
}

/* One option; 0 or -1 (err set). */
static int apply(int c, const char *arg, tune_opts *o, grid_args *g, char *err, size_t len)
{
    char sub[200];
    switch (c) {
    case 'o': o->output = arg; return nonempty("--output", arg, err, len);
    case 's':
        free(o->sizes);
        o->sizes = NULL;
        g->explicit_sizes = 1;
        if (bench_parse_sizes(arg, &o->sizes, &o->nsizes, sub, sizeof sub) == 0) return 0;
        seterr(err, len, "--sizes '%s': %s", arg, sub);
        return -1;
    case O_MIN: return parse_bytes("--min", arg, &g->min, err, len);
    case O_MAX: return parse_bytes("--max", arg, &g->max, err, len);
    case O_FACTOR: return parse_int("--factor", arg, 2, 1024, &g->factor, err, len);
    case O_COLLS:
        free(o->colls);
        o->colls = strdup(arg);
        return o->colls ? nonempty("--colls", arg, err, len) : -1;
    case O_COMMS: return parse_comms(arg, o, err, len);
    case 't': o->topology = arg; return nonempty("--topology", arg, err, len);
    case O_TIME:
        if ((o->budget_s = tune_parse_duration(arg)) > 0) return 0;
        seterr(err, len, "--time '%s': expected a duration such as 10m, 90s, 1h", arg);
        return -1;
    case O_MAXCALLS: return parse_int("--max-calls", arg, 16, 100000000, &o->max_calls, err, len);
    case O_RESUME: o->resume = 1; return 0;
    case O_STOP: return parse_int("--stop-after", arg, 1, 1000000, &o->stop_after, err, len);
    case O_OMPI: o->export_ompi = arg; return nonempty("--export-ompi", arg, err, len);
    case O_MPICH: o->export_mpich = arg; return nonempty("--export-mpich", arg, err, len);
    case O_MBASE: o->mpich_base = arg; return nonempty("--mpich-base", arg, err, len);
    case O_FROM: o->from = arg; return nonempty("--from", arg, err, len);
    case 'q': o->quiet = 1; return 0;
    case 'h': o->help = 1; return 0;
    default: return -1;
    }
}

static void defaults(tune_opts *o)
{
    memset(o, 0, sizeof *o);
    o->output = "topocoll-tuning.json";
    o->comms[0] = "world";
    o->ncomms = 1;
    o->max_calls = 4000;
}

int tune_parse_options(int argc, char **argv, tune_opts *o, char *err, size_t len)
{
    grid_args g = { 8, 1 << 20, 2, 0 };
    defaults(o);
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":o:s:t:qh", longopts, NULL)) != -1) {
        if (c == '?' || c == ':') {
            const char *name = argv[optind - 1];
            seterr(err, len, c == ':' ? "option '%s' needs a value" : "unknown option '%s'", name);
            return TUNE_PARSE_ERROR;
        }
        if (apply(c, optarg, o, &g, err, len) != 0) {
            if (!err[0]) seterr(err, len, "out of memory");
            return TUNE_PARSE_ERROR;
        }
    }
    if (optind < argc) {
        seterr(err, len, "unexpected argument '%s'", argv[optind]);
        return TUNE_PARSE_ERROR;
    }
    if (o->help) return TUNE_PARSE_HELP;
    if (!g.explicit_sizes && make_grid(o, g.min, g.max, g.factor, err, len) != 0)
        return TUNE_PARSE_ERROR;
    return TUNE_PARSE_OK;
}

void tune_opts_free(tune_opts *o)
{
    free(o->sizes);
    free(o->colls);
    memset(o, 0, sizeof *o);
}

int tune_coll_selected(const tune_opts *o, const char *name)
{
    if (!o->colls) return 1;
    size_t n = strlen(name);
    for (const char *p = o->colls; *p;) {
        size_t k = strcspn(p, ",");
        if (k == n && strncmp(p, name, n) == 0) return 1;
        p += k + (p[k] == ',');
    }
    return 0;
}
