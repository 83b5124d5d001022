/*
 * topocoll-model-error: the cost model's prediction error on this machine
 * (docs/selection.md, "How good the model is").
 *
 * The parameters: with --fit pingpong, fitted here by ping-pong between
 * rank 0 and the first rank at each level of distance (topocoll-tune's fit:
 * 8 B and 256 KiB round trips, a local sum for gamma); with --fit calls,
 * fitted to the entries' measured calls at the training sizes (-T, default
 * 1 KiB, 8 KiB, 64 KiB, 1 MiB): the model is linear in its parameters
 * (tc_model_price), so a non-negative least-squares fit of the relative
 * error over every (entry, training size); else the tuning file's "_model"
 * section (TOPOCOLL_TUNING_FILE) or the built-in values.  The sizes
 * evaluated (-s, default 2 KiB, 32 KiB, 512 KiB per rank) are none of the
 * fits', so every figure is held out from the fit; a layout is held out by
 * fitting on one run (topocoll-tune writes the "_model" section of a tuning
 * file) and evaluating on another (TOPOCOLL_TUNING_FILE, -t SPEC).
 *
 * For every collective (or -c LIST) and every entry with a cost function
 * (a family: its default variant) that accepts the call, plus native
 * (predicted as the best flat algorithm of the MPI libraries): the predicted
 * time against the measured one: the median over -r repetitions (default
 * 5) of the slowest rank's mean time over a batch of calls.  The error is
 * (predicted - measured) / measured.  Reductions: MPI_INT32_T, MPI_SUM;
 * others MPI_BYTE; root 0; sizes in bytes per rank's block or vector.
 *
 * Usage: mpiexec -np P topocoll-model-error [--fit pingpong|calls]
 *          [-T SIZE,...] [-t SPEC] [-c COLL,...] [-s SIZE,...] [-r REPS]
 *          [--csv FILE] [--write-model FILE]
 * --write-model writes the parameters used as a tuning file holding only a
 * "_model" section (TOPOCOLL_TUNING_FILE takes it: the held-out layout's
 * run).
 * Prints one line per (collective, entry, size) and a summary per
 * collective: the median absolute error and how many are within 20 %.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api/context.h"
#include "coll/desc.h"
#include "select/cost_model.h"
#include "select/select.h"
#include "topocoll.h"

json_t *tune_fit_model(MPI_Comm comm);   /* tools/tune/pingpong.c */

enum { FIT_NONE, FIT_PINGPONG, FIT_CALLS };

typedef struct opts {
    int fit, reps, nsizes, ntrain;
    const char *spec, *colls, *csv, *write;
    long sizes[16], train[16];
} opts;

static int parse_sizes(const char *s, long *sizes, int *n)
{
    *n = 0;
    while (*s && *n < 16) {
        char *end = NULL;
        long v = strtol(s, &end, 10);
        if (end == s || v <= 0) return -1;
        if (*end == 'K' || *end == 'k') v <<= 10, end++;
        else if (*end == 'M' || *end == 'm') v <<= 20, end++;
        sizes[(*n)++] = v;
        if (*end == ',') end++;
        else if (*end) return -1;
        s = end;
    }
    return *n > 0 ? 0 : -1;
}

static int quiet;   /* not rank 0: option errors are rank 0's to print */

static int parse_opts(int argc, char **argv, opts *o)
{
    *o = (opts){ .reps = 5, .nsizes = 3, .sizes = { 2048, 32768, 524288 },
                 .ntrain = 4, .train = { 1024, 8192, 65536, 1048576 } };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--fit") && v && !strcmp(v, "pingpong")) o->fit = FIT_PINGPONG, i++;
        else if (!strcmp(a, "--fit") && v && !strcmp(v, "calls")) o->fit = FIT_CALLS, i++;
        else if (!strcmp(a, "-T") && v) {
            if (parse_sizes(argv[++i], o->train, &o->ntrain)) {
                if (!quiet) fprintf(stderr, "topocoll-model-error: bad size list '%s' (e.g. 1K,8K,64K,1M)\n", argv[i]);
                return -1;
            }
        }
        else if (!strcmp(a, "-t") && v) o->spec = argv[++i];
        else if (!strcmp(a, "-c") && v) o->colls = argv[++i];
        else if (!strcmp(a, "--csv") && v) o->csv = argv[++i];
        else if (!strcmp(a, "--write-model") && v) o->write = argv[++i];
        else if (!strcmp(a, "-r") && v && (o->reps = atoi(argv[++i])) >= 1) continue;
        else if (!strcmp(a, "-s") && v) {
            if (parse_sizes(argv[++i], o->sizes, &o->nsizes)) {
                if (!quiet) fprintf(stderr, "topocoll-model-error: bad size list '%s' (e.g. 2K,32K,512K)\n", argv[i]);
                return -1;
            }
        } else {
            if (!quiet) fprintf(stderr, "topocoll-model-error: unknown or incomplete option '%s'\n"
                            "usage: topocoll-model-error [--fit pingpong|calls] [-T SIZES] [-t SPEC] [-c COLLS] "
                            "[-s SIZES] [-r REPS] [--csv FILE] [--write-model FILE]\n", a);
            return -1;
        }
    }
    return 0;
}

/* The fitted "_model" object (rank 0) into m; the levels it lacks keep m's. */
static void params_from_json(const json_t *j, tc_model_params *m)
{
    for (int l = 0; l < TC_NLEVELS; l++) {
        json_t *o = json_object_get(j, tc_level_names[l]);
        if (!o) continue;
        m->alpha[l] = json_real_value(json_object_get(o, "alpha"));
        m->beta[l] = json_real_value(json_object_get(o, "beta"));
    }
    json_t *g = json_object_get(j, "gamma");
    if (g) m->gamma = json_real_value(g);
}

static void bcast_params(tc_model_params *m)
{
    double v[2 * TC_NLEVELS + 1];
    for (int l = 0; l < TC_NLEVELS; l++) {
        v[l] = m->alpha[l];
        v[TC_NLEVELS + l] = m->beta[l];
    }
    v[2 * TC_NLEVELS] = m->gamma;
    MPI_Bcast(v, 2 * TC_NLEVELS + 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int l = 0; l < TC_NLEVELS; l++) {
        m->alpha[l] = v[l];
        m->beta[l] = v[TC_NLEVELS + l];
    }
    m->gamma = v[2 * TC_NLEVELS];
}

static int is_reduction(topocoll_coll c)
{
    const tc_coll_desc *d = tc_coll_desc_of(c);
    return d && d->reduction;
}

static int call(topocoll_coll c, const char *algo, void *sb, void *rb, long bytes)
{
    int red = is_reduction(c);
    int cnt = (int)(red ? bytes / 4 : bytes);
    MPI_Datatype ty = red ? MPI_INT32_T : MPI_BYTE;
    return topocoll_run(c, algo, sb, cnt, ty, rb, cnt, ty, MPI_SUM, 0, MPI_COMM_WORLD);
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* Median over reps of the slowest rank's mean seconds per call (every rank
 * returns it); negative when a call failed. */
static double measure(topocoll_coll c, const char *algo, void *sb, void *rb, long bytes, int reps)
{
    int batch = bytes <= 65536 ? 20 : 4, ok = 1;
    double t[64];
    if (reps > 64) reps = 64;
    for (int w = 0; w < 2; w++) ok &= call(c, algo, sb, rb, bytes) == MPI_SUCCESS;
    for (int r = 0; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int k = 0; k < batch; k++) ok &= call(c, algo, sb, rb, bytes) == MPI_SUCCESS;
        double mine = (MPI_Wtime() - t0) / batch;
        MPI_Allreduce(&mine, &t[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) return -1;
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    return t[reps / 2];
}

typedef struct summary {
    double err[4096];
    int n;
} summary;

static void report(const summary *s, const char *what)
{
    if (!s->n) return;
    double a[4096];
    int within = 0;
    for (int i = 0; i < s->n; i++) {
        a[i] = fabs(s->err[i]);
        within += a[i] <= 0.2;
    }
    qsort(a, (size_t)s->n, sizeof *a, cmp_double);
    printf("# %-22s %3d points: median |error| %5.1f %%, within 20 %%: %d (%.0f %%), worst %5.0f %%\n", what, s->n,
           100 * a[s->n / 2], within, 100.0 * within / s->n, 100 * a[s->n - 1]);
}

/* ---- fitting the parameters to measured calls ---------------------------------- */

/* Features of a cost (the model is linear in its parameters): alpha per
 * level, beta per level (node memory with the socket's), gamma. */
enum { NF = 2 * TC_NLEVELS + 1 };

typedef struct fitset {
    double x[2048][NF], t[2048];
    int n;
} fitset;

static void features(const tc_cost *c, double *x)
{
    for (int l = 0; l < TC_NLEVELS; l++) {
        x[l] = c->msgs[l];
        x[TC_NLEVELS + l] = c->bytes[l];
    }
    x[TC_NLEVELS] += c->mem;
    x[2 * TC_NLEVELS] = c->reduced;
}

static void params_to(const tc_model_params *m, double *v)
{
    for (int l = 0; l < TC_NLEVELS; l++) {
        v[l] = m->alpha[l];
        v[TC_NLEVELS + l] = m->beta[l];
    }
    v[2 * TC_NLEVELS] = m->gamma;
}

static void params_from(const double *v, tc_model_params *m)
{
    for (int l = 0; l < TC_NLEVELS; l++) {
        m->alpha[l] = v[l];
        m->beta[l] = v[TC_NLEVELS + l];
    }
    m->gamma = v[2 * TC_NLEVELS];
}

/* Non-negative least squares of the relative error (each row divided by its
 * measured time) by projected coordinate descent on the normal equations;
 * a parameter no row uses keeps its value in m. */
static void fit_calls(const fitset *f, tc_model_params *m)
{
    double g[NF][NF] = { { 0 } }, h[NF] = { 0 }, v[NF];
    for (int i = 0; i < f->n; i++) {
        double w = 1 / (f->t[i] * f->t[i]);
        for (int j = 0; j < NF; j++) {
            h[j] += w * f->x[i][j] * f->t[i];
            for (int k = 0; k < NF; k++) g[j][k] += w * f->x[i][j] * f->x[i][k];
        }
    }
    params_to(m, v);
    for (int it = 0; it < 20000; it++)
        for (int j = 0; j < NF; j++) {
            if (g[j][j] <= 0) continue;
            double r = h[j];
            for (int k = 0; k < NF; k++) r -= g[j][k] * v[k];
            v[j] += r / g[j][j];
            if (v[j] < 1e-15) v[j] = 1e-15;
        }
    params_from(v, m);
}

/* ---- the points ------------------------------------------------------------------ */

static int coll_listed(const char *list, const char *name)
{
    if (!list) return 1;
    size_t n = strlen(name);
    for (const char *s = list; (s = strstr(s, name)) != NULL; s += n)
        if ((s == list || s[-1] == ',') && (s[n] == '\0' || s[n] == ',')) return 1;
    return 0;
}

/* Every (collective, entry, size): measured; with fs, the cost and time go
 * to fs (rank 0); without, the prediction and error are printed. */
static void run_points(const opts *o, const tc_model_params *m, tc_ctx *ctx, const long *sizes, int nsizes,
                       unsigned char *sb, unsigned char *rb, fitset *fs, FILE *csv)
{
    static summary all, per;
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    all.n = 0;
    for (int c = 0; c < TOPOCOLL_NCOLL; c++) {
        const char *cn = topocoll_coll_name((topocoll_coll)c);
        if (!coll_listed(o->colls, cn)) continue;
        per.n = 0;
        for (int e = -1; e < tc_catalog_entry_count((topocoll_coll)c); e++) {
            const tc_entry *en = e >= 0 ? tc_catalog_entry_at((topocoll_coll)c, e) : NULL;
            const tc_algo *al = en ? en->def : NULL;
            if (en && (!al->cost || !al->generate)) continue;
            if (fs && !al) continue;   /* native: no cost of its own to fit */
            for (int s = 0; s < nsizes; s++) {
                long bytes = sizes[s];
                tc_args a;
                memset(&a, 0, sizeof a);
                a.coll = (topocoll_coll)c;
                a.size = np;
                a.scount = a.rcount = bytes;
                a.commutative = 1;
                a.node_shm = ctx->node_shm;
                tc_cost cost;
                double pred = al ? tc_model_predict(m, al, &a, ctx->topo, bytes)
                                 : tc_model_native(m, &a, ctx->topo, bytes);
                const char *why = NULL, *name = al ? al->name : "native";
                int red = is_reduction((topocoll_coll)c), cnt = (int)(red ? bytes / 4 : bytes);
                MPI_Datatype ty = red ? MPI_INT32_T : MPI_BYTE;
                if (!(pred > 0) || topocoll_applicable((topocoll_coll)c, name, cnt, ty, cnt, ty, MPI_SUM, 0,
                                                       MPI_COMM_WORLD, &why) != 1)
                    continue;
                double meas = measure((topocoll_coll)c, name, sb, rb, bytes, o->reps);
                if (meas <= 0 || rank != 0) continue;
                if (fs) {
                    if (fs->n < 2048 && tc_model_cost(al, &a, ctx->topo, bytes, &cost) == 0) {
                        features(&cost, fs->x[fs->n]);
                        fs->t[fs->n++] = meas;
                    }
                    continue;
                }
                double err = (pred - meas) / meas;
                printf("%-22s %-28s %9ld %12.2f %12.2f %8.1f\n", cn, name, bytes, pred * 1e6, meas * 1e6, 100 * err);
                if (csv) fprintf(csv, "%s,%s,%ld,%d,%.3f,%.3f,%.4f\n", cn, name, bytes, np, pred * 1e6, meas * 1e6, err);
                if (per.n < 4096) per.err[per.n++] = err;
                if (all.n < 4096) all.err[all.n++] = err;
            }
        }
        if (rank == 0 && !fs) report(&per, cn);
    }
    if (rank == 0 && !fs) report(&all, "all");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    opts o;
    quiet = rank != 0;
    if (parse_opts(argc, argv, &o)) {
        MPI_Finalize();
        return 2;
    }
    if (o.spec && topocoll_set_topology(MPI_COMM_WORLD, o.spec) != MPI_SUCCESS) {
        MPI_Finalize();
        return 2;
    }
    tc_model_params m = *tc_select_model(tc_select_table());
    const char *source = m.source;
    tc_ctx *ctx = NULL;
    if (tc_ctx_get(MPI_COMM_WORLD, &ctx) != MPI_SUCCESS || !ctx || !ctx->topo) {
        if (rank == 0) fprintf(stderr, "topocoll-model-error: no topology for MPI_COMM_WORLD\n");
        MPI_Finalize();
        return 1;
    }
    long most = 0;
    for (int i = 0; i < o.nsizes; i++) most = o.sizes[i] > most ? o.sizes[i] : most;
    for (int i = 0; o.fit == FIT_CALLS && i < o.ntrain; i++) most = o.train[i] > most ? o.train[i] : most;
    size_t len = (size_t)most * (size_t)np + 64;
    unsigned char *sb = calloc(len, 1), *rb = calloc(len, 1);
    int ok = sb && rb, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        if (rank == 0) fprintf(stderr, "topocoll-model-error: no memory for buffers of %zu bytes\n", len);
        MPI_Finalize();
        return 1;
    }
    if (o.fit == FIT_PINGPONG) {
        json_t *j = tune_fit_model(MPI_COMM_WORLD);
        if (rank == 0 && j) params_from_json(j, &m);
        json_decref(j);
        bcast_params(&m);
        source = "ping-pong fit (topocoll-tune's)";
    } else if (o.fit == FIT_CALLS) {
        static fitset fs;
        run_points(&o, &m, ctx, o.train, o.ntrain, sb, rb, &fs, NULL);
        if (rank == 0) fit_calls(&fs, &m);
        bcast_params(&m);
        source = "fitted to the calls at the training sizes (-T)";
    }
    if (rank == 0 && o.write) {
        json_t *j = json_object(), *mo = json_object();
        for (int l = 0; l < TC_NLEVELS; l++)
            json_object_set_new(mo, tc_level_names[l], json_pack("{s:f, s:f}", "alpha", m.alpha[l], "beta", m.beta[l]));
        json_object_set_new(mo, "gamma", json_real(m.gamma));
        json_object_set_new(j, "_model", mo);
        if (json_dump_file(j, o.write, JSON_INDENT(2)) != 0)
            fprintf(stderr, "topocoll-model-error: cannot write %s\n", o.write);
        json_decref(j);
    }
    char desc[256] = "";
    topocoll_topology_describe(MPI_COMM_WORLD, desc, sizeof desc);
    FILE *csv = rank == 0 && o.csv ? fopen(o.csv, "w") : NULL;
    if (rank == 0 && o.csv && !csv) fprintf(stderr, "topocoll-model-error: cannot write %s (no CSV)\n", o.csv);
    if (rank == 0) {
        printf("# np %d, %s; parameters: %s\n", np, desc, source);
        for (int l = 0; l < TC_NLEVELS; l++)
            printf("#   %-8s alpha %.3g us, beta %.3g ns/B (%.2f GB/s)\n", tc_level_names[l], m.alpha[l] * 1e6,
                   m.beta[l] * 1e9, 1e-9 / m.beta[l]);
        printf("#   gamma %.3g ns/B\n", m.gamma * 1e9);
        printf("%-22s %-28s %9s %12s %12s %8s\n", "collective", "entry", "bytes", "predicted_us", "measured_us",
               "error_%");
        if (csv) fprintf(csv, "collective,entry,bytes,np,predicted_us,measured_us,error\n");
    }
    run_points(&o, &m, ctx, o.sizes, o.nsizes, sb, rb, NULL, csv);
    if (csv) fclose(csv);
    free(sb);
    free(rb);
    MPI_Finalize();
    return 0;
}
