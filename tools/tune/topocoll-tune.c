/*
 * topocoll-tune: measures every catalog entry of every collective against
 * native on the machine it runs on and writes a TOPOCOLL_TUNING_FILE
 * (docs/selection.md, "Tuning").
 *
 *   for every communicator layout asked for (world, pernode, half):
 *     for every collective with a benchmark entry (TOPOCOLL_NCOLL, so a new
 *     collective joins without an edit here):
 *       screen: at the smallest, middle and largest size, a few short batches
 *         of every entry the catalog's domain check accepts; native, the
 *         fastest entry of each family and the --keep fastest entries that
 *         were faster than native go on
 *       measure: the grid's sizes coarse to fine (the largest size, then
 *         every 4th, then every 2nd, then the rest), each point with
 *         --reps interleaved batches of the shortlist and of the entry the
 *         library chooses there without a tuning file (more when noisy)
 *   decide (decide.c) and write the table; exports (export.c).
 *
 * Rank 0 decides everything (budget, skips, noisy repeats) and broadcasts,
 * so every rank takes the same path.  The state file is written after every
 * point; --resume continues from it.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

extern char **environ;

#include "tune.h"
#include "tune_mpi.h"

typedef struct group_est {   /* per (comm, coll): seconds per call at sizes seen */
    size_t bytes[64];
    double sec[64];
    int n;
} group_est;

typedef struct tuner {
    tune_opts o;
    int rank, np;
    tune_comm comms[TUNE_MAX_COMMS];
    json_t *state;               /* rank 0 */
    double t0, deadline;         /* MPI_Wtime; deadline 0: none */
    double group_deadline;       /* this (comm, coll) group's share in this pass; 0: none */
    int measured, skipped, total, done;
    double measured_wall;        /* seconds spent in measured points */
    int stop;
    group_est est[TUNE_MAX_COMMS][TOPOCOLL_NCOLL];
} tuner;

static void note(const tuner *t, const char *fmt, const char *a, const char *b)
{
    if (t->rank == 0 && !t->o.quiet) {
        fprintf(stderr, TUNE_PROG ": ");
        fprintf(stderr, fmt, a, b);
        fputc('\n', stderr);
    }
}

static void fmt_dur(double s, char *buf, size_t len)
{
    if (s < 0) s = 0;
    if (s >= 60) snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
    else snprintf(buf, len, "%.0fs", s);
}

/* ---- estimates for the budget ------------------------------------------------ */

static void est_add(group_est *g, size_t bytes, double sec_per_call)
{
    for (int i = 0; i < g->n; i++)
        if (g->bytes[i] == bytes) { g->sec[i] = sec_per_call; return; }
    if (g->n < 64) g->bytes[g->n] = bytes, g->sec[g->n++] = sec_per_call;
}

/* Seconds per call at `bytes`: the nearest size seen (log distance), scaled
 * up linearly when bytes is larger; -1 when nothing is known. */
static double est_call(const group_est *g, size_t bytes)
{
    int best = -1;
    double d = 0;
    for (int i = 0; i < g->n; i++) {
        double x = fabs(log((double)bytes) - log((double)g->bytes[i]));
        if (best < 0 || x < d) best = i, d = x;
    }
    if (best < 0) return -1;
    double scale = bytes > g->bytes[best] ? (double)bytes / (double)g->bytes[best] : 1.0;
    return g->sec[best] * scale;
}

/* ---- the screen ---------------------------------------------------------------- */

/* The catalog's names of coll (pointers into the library's catalog). */
static const char **catalog_names(topocoll_coll coll, int *n)
{
    int k = topocoll_variant_count(coll), m = 0;
    const char **names = calloc((size_t)(k > 0 ? k : 1), sizeof *names);
    for (int i = 0; names && i < k; i++)
        if (topocoll_variant_name(coll, i)) names[m++] = topocoll_variant_name(coll, i);
    *n = m;
    return names;
}

#define SCREEN_BATCHES 3
#define SCREEN_ITERS 4

/* Rank 0: the best (smallest) batch time of entry e, or -1. */
static double screen_time(const double *bt, const int *nb, int e)
{
    double m = -1;
    for (int b = 0; b < nb[e]; b++)
        if (m < 0 || bt[e * SCREEN_BATCHES + b] < m) m = bt[e * SCREEN_BATCHES + b];
    return m;
}

/* Rank 0: marks in keep[] the entries to keep from one screened size: the
 * fastest entry of each family (flat, hierarchical, ...) that beat native,
 * then the fastest others, up to --keep (at least one per family).  Entries
 * compare by their best batch: one short batch is too noisy to trust, and
 * the best of a few is what interference leaves alone. */
static void screen_pick(const tuner *t, topocoll_coll coll, const char **names, const int *bad,
                        const double *bt, const int *nb, int n, int *keep)
{
    int nat = -1, taken = 0;
    for (int e = 0; e < n; e++)
        if (strcmp(names[e], "native") == 0 && !bad[e] && nb[e]) nat = e;
    if (nat < 0) return;
    keep[nat] = 1;
    double tn = screen_time(bt, nb, nat);
    for (int pass = 0; pass < 2; pass++)
        for (;;) {
            int best = -1;
            for (int e = 0; e < n; e++) {
                double te = screen_time(bt, nb, e);
                if (bad[e] || e == nat || keep[e] || te < 0 || te >= tn) continue;
                const char *fam = topocoll_variant_family(coll, topocoll_variant_index(coll, names[e]));
                int fam_taken = 0;
                for (int k = 0; pass == 0 && k < n; k++)
                    if (keep[k] == 2 && k != nat && fam &&
                        strcmp(fam, topocoll_variant_family(coll, topocoll_variant_index(coll, names[k]))) == 0)
                        fam_taken = 1;
                if (!fam_taken && (best < 0 || te < screen_time(bt, nb, best))) best = e;
            }
            if (best < 0 || (pass == 1 && taken >= t->o.keep)) break;
            keep[best] = 2;   /* 2: taken at this size */
            taken++;
        }
    for (int e = 0; e < n; e++)
        if (keep[e] == 2) keep[e] = 3;   /* 3: kept from an earlier size */
}

/* Rank 0: native and the entries that beat it at one screened size, fastest
 * first, each with its screen time (microseconds per call, as every time in
 * the state): a new JSON array of [name, us] pairs, native's first. */
static json_t *screen_ranking(const char **names, const int *bad, const double *bt, const int *nb, int n)
{
    json_t *arr = json_array();
    int nat = -1;
    for (int e = 0; e < n; e++)
        if (strcmp(names[e], "native") == 0 && !bad[e] && nb[e]) nat = e;
    double tn = nat >= 0 ? screen_time(bt, nb, nat) : -1;
    if (tn > 0) json_array_append_new(arr, json_pack("[s, f]", "native", tn));
    char *taken = calloc((size_t)(n ? n : 1), 1);
    for (;;) {
        int best = -1;
        for (int e = 0; taken && tn > 0 && e < n; e++) {
            double te = screen_time(bt, nb, e);
            if (bad[e] || e == nat || taken[e] || te < 0 || te >= tn) continue;
            if (best < 0 || te < screen_time(bt, nb, best)) best = e;
        }
        if (best < 0) break;
        taken[best] = 1;
        json_array_append_new(arr, json_pack("[s, f]", names[best], screen_time(bt, nb, best)));
    }
    free(taken);
    return arr;
}

#define SCREEN_CHUNK 8

/* Runs the screen's batches of names[0..n) in chunks of SCREEN_CHUNK entries,
 * native first, until `limit` seconds have passed (0: no limit; rank 0
 * decides, so every rank stops after the same chunk).  Entries left out keep
 * nb 0 and are not kept. */
static void screen_batches(tune_size *z, const char **names, int n, double *bt, int *nb, int *bad, double limit)
{
    int nat = -1;
    for (int e = 0; e < n; e++)
        if (strcmp(names[e], "native") == 0) nat = e;
    int nat_bad = 0;
    if (nat >= 0) {
        tune_run_batches(z, names + nat, 1, SCREEN_BATCHES, 1000, bt + nat * SCREEN_BATCHES, SCREEN_BATCHES,
                         nb + nat, bad + nat);
        nat_bad = bad[nat];
        bad[nat] = 1;   /* done: the chunks below pass it by */
    }
    double w0 = MPI_Wtime();
    for (int off = 0; off < n; off += SCREEN_CHUNK) {
        int stop = z->rank == 0 && limit > 0 && MPI_Wtime() - w0 > limit;
        MPI_Bcast(&stop, 1, MPI_INT, 0, z->comm);
        if (stop) break;
        int k = n - off < SCREEN_CHUNK ? n - off : SCREEN_CHUNK;
        tune_run_batches(z, names + off, k, SCREEN_BATCHES, 1000, bt + off * SCREEN_BATCHES, SCREEN_BATCHES,
                         nb + off, bad + off);
    }
    if (nat >= 0) bad[nat] = nat_bad;
}

/* One screened size: every applicable entry (within `limit` seconds, 0: no
 * limit), a few short batches.  Updates the estimates and keep[] (rank 0).
 * 0, or -1 when the buffers failed. */
static int screen_size(tuner *t, tune_comm *c, const bench_coll *bc, const char **names, int n,
                       size_t bytes, int *keep, double limit)
{
    tune_size z;
    int *ok = calloc((size_t)n, sizeof *ok), *bad = calloc((size_t)n, sizeof *bad),
        *nb = calloc((size_t)n, sizeof *nb);
    double *bt = calloc((size_t)n * SCREEN_BATCHES, sizeof *bt);
    int rc = -1;
    MPI_Comm comm = tune_comm_fresh(c);
    if (ok && bad && nb && bt && comm != MPI_COMM_NULL && tune_size_open(&z, comm, bc, bytes, SCREEN_ITERS) == 0) {
        tune_applicable(comm, bc, bytes, names, n, ok);
        for (int e = 0; e < n; e++) bad[e] = !ok[e];
        double w0 = MPI_Wtime();
        screen_batches(&z, names, n, bt, nb, bad, limit);
        double wall = MPI_Wtime() - w0;
        int calls = 0;
        for (int e = 0; e < n; e++) calls += ok[e] ? (z.iters + z.warmup) * nb[e] : 0;
        if (calls) est_add(&t->est[c - t->comms][bc->coll], bytes, wall / calls);
        if (t->rank == 0) {
            screen_pick(t, bc->coll, names, bad, bt, nb, n, keep);
            json_t *ranking = screen_ranking(names, bad, bt, nb, n);
            tune_state_set_screened(t->state, c->name, topocoll_coll_name(bc->coll), bytes, ranking);
            json_decref(ranking);
        }
        tune_size_close(&z);
        rc = 0;
    }
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
    free(ok);
    free(bad);
    free(nb);
    free(bt);
    return rc;
}

/* Broadcasts a comma list from rank 0 of comm; returns a malloc'ed copy. */
static char *bcast_string(MPI_Comm comm, const char *s, int rank)
{
    int len = rank == 0 ? (int)strlen(s) + 1 : 0;
    if (MPI_Bcast(&len, 1, MPI_INT, 0, comm) != MPI_SUCCESS) return NULL;
    char *buf = malloc((size_t)len);
    if (!buf) return NULL;
    if (rank == 0) memcpy(buf, s, (size_t)len);
    if (MPI_Bcast(buf, len, MPI_CHAR, 0, comm) != MPI_SUCCESS) { free(buf); return NULL; }
    return buf;
}

/* Seconds that screening one size of a group may take (0: no limit): under a
 * budget, a third of this group's share of the time left (run_all), so that
 * the measurement keeps at least 4/9 of the share and one
 * collective's screen on a slow network cannot spend the budget of all (on
 * the emulated cluster, allgather's 150 entries at 1 MiB took 12 minutes).
 * The smallest size is screened whole: it is cheap and gives the estimates.
 * Rank 0's value is the one used. */
static double screen_limit(const tuner *t, int first)
{
    if (!t->group_deadline || first) return 0;
    double share = t->group_deadline - MPI_Wtime();
    return share > 0.003 ? share / 3 : 0.001;
}

/* Rank 0's shortlist (from the state, or screened now) as a comma list. */
static char *shortlist(tuner *t, tune_comm *c, const bench_coll *bc)
{
    const char *coll = topocoll_coll_name(bc->coll);
    int n = 0, have = 0;
    char buf[8192] = "";
    if (t->rank == 0) {
        json_t *l = tune_state_shortlist(t->state, c->name, coll), *v;
        size_t i;
        have = l != NULL;
        json_array_foreach(l, i, v)
            snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", i ? "," : "", json_string_value(v));
    }
    MPI_Bcast(&have, 1, MPI_INT, 0, c->comm);
    if (have) return bcast_string(c->comm, buf, t->rank);
    const char **names = catalog_names(bc->coll, &n);
    int *keep = calloc((size_t)(n ? n : 1), sizeof *keep);
    size_t sample[3] = { t->o.sizes[0], t->o.sizes[t->o.nsizes / 2], t->o.sizes[t->o.nsizes - 1] };
    note(t, "screening %s on %s (every applicable entry, a few short batches per size)", coll, c->name);
    for (int s = 0; names && keep && s < 3; s++) {
        if (s > 0 && sample[s] == sample[s - 1]) continue;
        int over = t->rank == 0 && t->deadline && MPI_Wtime() > t->deadline;
        MPI_Bcast(&over, 1, MPI_INT, 0, c->comm);
        if (over) break;
        screen_size(t, c, bc, names, n, sample[s], keep, screen_limit(t, s == 0));
    }
    json_t *arr = json_array();
    for (int e = 0; t->rank == 0 && names && keep && e < n; e++)
        if (keep[e]) {
            json_array_append_new(arr, json_string(names[e]));
            snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", buf[0] ? "," : "", names[e]);
        }
    if (t->rank == 0) {
        tune_state_set_shortlist(t->state, c->name, coll, arr);
        if (!t->o.quiet) fprintf(stderr, TUNE_PROG ": %s on %s: shortlist %s\n", coll, c->name, buf);
    }
    json_decref(arr);
    free(names);
    free(keep);
    return bcast_string(c->comm, buf, t->rank);
}

/* ---- one point ------------------------------------------------------------------- */

/* Splits a comma list in place into names[] (at most max); returns the count. */
static int split_list(char *list, const char **names, int max)
{
    int n = 0;
    for (char *p = list; p && *p && n < max;) {
        names[n++] = p;
        p = strchr(p, ',');
        if (p) *p++ = '\0';
    }
    return n;
}

/* Rank 0: statistics of entry e's batches into the point's "entries". */
static void add_stats(json_t *entries, const char *name, double *bt, int nb)
{
    if (nb <= 0) return;
    double med = bench_median(bt, nb);   /* sorts bt */
    json_object_set_new(entries, name, json_pack("{s:f, s:f, s:f, s:i}", "median", med, "q25",
                                                 bench_quantile_sorted(bt, nb, 0.25), "q75",
                                                 bench_quantile_sorted(bt, nb, 0.75), "batches", nb));
}

/* Rank 0: is the point noisy (native or the fastest entry spread wider than --noise)? */
static int noisy(const tuner *t, const char **names, int n, const double *bt, const int *nb, int stride)
{
    int worst = 0;
    double best = 0;
    for (int e = 0; e < n; e++) {
        if (nb[e] < 2) continue;
        double *x = malloc((size_t)nb[e] * sizeof *x);
        if (!x) return 0;
        memcpy(x, bt + (size_t)e * (size_t)stride, (size_t)nb[e] * sizeof *x);
        double med = bench_median(x, nb[e]);
        double iqr = bench_quantile_sorted(x, nb[e], 0.75) - bench_quantile_sorted(x, nb[e], 0.25);
        free(x);
        int is_native = strcmp(names[e], "native") == 0;
        if ((is_native || best == 0 || med < best) && iqr > t->o.noise * med) worst = 1;
        if (!is_native && (best == 0 || med < best)) best = med;
    }
    return worst;
}

/* Racing: after RACE_AFTER interleaved batches, and after every one
 * after that, an entry whose fastest batch is slower than the leader's
 * (the lowest median) slowest batch by RACE_GAP stops being measured.  It
 * cannot be the point's winner: the winner must beat the base by both
 * spreads and has the lowest median of those that do, and an entry behind
 * the leader in every batch leaves the leader beating the base whenever it
 * does.  Native and the built-in choice (the bases) are always measured
 * in full.  At 1 MiB on the emulated cluster most of a 13-entry shortlist
 * is 1.5-3x behind the leader, and one point took a collective's whole
 * share of a 10-minute tune. */
#define RACE_AFTER 2
#define RACE_GAP 0.10

/* Rank 0: the fastest (lo) and slowest (hi) of entry e's nb batches. */
static void batch_range(const double *bt, int stride, int e, int nb, double *lo, double *hi)
{
    *lo = 1e300;
    *hi = 0;
    for (int b = 0; b < nb; b++) {
        double x = bt[(size_t)e * (size_t)stride + (size_t)b];
        if (x < *lo) *lo = x;
        if (x > *hi) *hi = x;
    }
}

/* Rank 0: the live entry with the lowest median, or -1. */
static int race_leader(const double *bt, int stride, const int *nb, const int *bad, int n)
{
    int lead = -1;
    double best = 0;
    for (int e = 0; e < n; e++) {
        if (bad[e] || nb[e] < 1) continue;
        double *x = malloc((size_t)nb[e] * sizeof *x);
        if (!x) return -1;
        memcpy(x, bt + (size_t)e * (size_t)stride, (size_t)nb[e] * sizeof *x);
        double med = bench_median(x, nb[e]);
        free(x);
        if (lead < 0 || med < best) {
            lead = e;
            best = med;
        }
    }
    return lead;
}

/* Drops the entries out of the race (on every rank: rank 0 decides; out:
 * n ints of scratch); their batches so far stay in the statistics. */
static void race_drop(tune_size *z, const char **names, int n, const char *keep, const double *bt, int stride,
                     const int *nb, int *bad, int *dropped, int *out)
{
    memset(out, 0, (size_t)n * sizeof *out);
    int lead = z->rank == 0 ? race_leader(bt, stride, nb, bad, n) : -1;
    if (lead >= 0) {
        double llo, lhi;
        batch_range(bt, stride, lead, nb[lead], &llo, &lhi);
        for (int e = 0; e < n; e++) {
            double lo, hi;
            if (bad[e] || e == lead || nb[e] < 1 || strcmp(names[e], "native") == 0 || (keep && !strcmp(names[e], keep)))
                continue;
            batch_range(bt, stride, e, nb[e], &lo, &hi);
            out[e] = lo > lhi * (1 + RACE_GAP);
        }
    }
    if (MPI_Bcast(out, n, MPI_INT, 0, z->comm) == MPI_SUCCESS)
        for (int e = 0; e < n; e++)
            if (out[e] && !bad[e]) bad[e] = dropped[e] = 1;
}

/* Batches b0..b1-1 of the live entries, one round at a time, racing after
 * each round from RACE_AFTER on (scratch: n ints). */
static void race_batches(tune_size *z, const char **names, int n, const char *keep, int b0, int b1, double *bt,
                         int stride, int *nb, int *bad, int *dropped, int *scratch)
{
    for (int b = b0; b < b1; b++) {
        tune_run_batches(z, names, n, 1, b, bt, stride, nb, bad);
        if (b + 1 >= RACE_AFTER) race_drop(z, names, n, keep, bt, stride, nb, bad, dropped, scratch);
    }
}

/* Measures entries names[0..n) at one size on the members of c, interleaved,
 * racing (above; `keep`, the built-in choice, is never dropped, nor native);
 * on rank 0 *entries gets their statistics (an entry dropped from the race
 * with the batches it had, and "raced": true); *iters the timed calls per
 * batch, *wall the seconds it took.  0, or -1 when the size could not be
 * measured. */
static int measure_entries(tuner *t, tune_comm *c, const bench_coll *bc, const char **names, int n,
                           const char *keep, size_t bytes, json_t **entries, int *iters, double *wall_s)
{
    int rc = -1;
    *entries = NULL;
    int *ok = calloc((size_t)n, sizeof *ok), *bad = calloc((size_t)n, sizeof *bad),
        *nb = calloc((size_t)n, sizeof *nb), *dropped = calloc((size_t)n, sizeof *dropped),
        *scratch = calloc((size_t)n, sizeof *scratch), stride = t->o.max_reps;
    double *bt = calloc((size_t)n * (size_t)stride, sizeof *bt), w0 = MPI_Wtime();
    tune_size z;
    MPI_Comm comm = tune_comm_fresh(c);
    if (!ok || !bad || !nb || !dropped || !scratch || !bt || comm == MPI_COMM_NULL ||
        tune_size_open(&z, comm, bc, bytes, 0) != 0) {
        note(t, "%s: no communicator or buffers for this size on some rank, skipped%s",
             topocoll_coll_name(bc->coll), "");
        goto done;
    }
    tune_applicable(comm, bc, bytes, names, n, ok);
    for (int e = 0; e < n; e++) bad[e] = !ok[e];
    race_batches(&z, names, n, keep, 0, t->o.reps, bt, stride, nb, bad, dropped, scratch);
    int more = t->rank == 0 && t->o.max_reps > t->o.reps && noisy(t, names, n, bt, nb, stride) &&
               (!t->group_deadline || MPI_Wtime() + (MPI_Wtime() - w0) < t->group_deadline);
    MPI_Bcast(&more, 1, MPI_INT, 0, comm);
    if (more)
        race_batches(&z, names, n, keep, t->o.reps, t->o.max_reps, bt, stride, nb, bad, dropped, scratch);
    int calls = 0;   /* rank 0's count, the one whose estimates are used (as the screen's) */
    for (int e = 0; e < n; e++) calls += ok[e] ? (z.iters + z.warmup) * nb[e] : 0;
    double wall = MPI_Wtime() - w0;
    if (calls) est_add(&t->est[c - t->comms][bc->coll], bytes, wall / calls);
    if (t->rank == 0) {
        *entries = json_object();
        for (int e = 0; e < n; e++) {
            add_stats(*entries, names[e], bt + (size_t)e * (size_t)stride, nb[e]);
            json_t *st = json_object_get(*entries, names[e]);
            if (st && dropped[e]) json_object_set_new(st, "raced", json_true());
        }
    }
    *iters = z.iters;
    *wall_s = wall;
    tune_size_close(&z);
    rc = 0;
done:
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
    free(ok);
    free(bad);
    free(nb);
    free(dropped);
    free(scratch);
    free(bt);
    return rc;
}

static void save_state(const tuner *t)
{
    if (tune_state_save(t->state, t->o.state) != 0)
        fprintf(stderr, TUNE_PROG ": warning: cannot write the state file %s\n", t->o.state);
}

static int listed(const char **names, int n, const char *name)
{
    for (int e = 0; e < n; e++)
        if (strcmp(names[e], name) == 0) return 1;
    return 0;
}

/* The entry the library chooses at this point without a tuning file (the
 * built-in table, then the cost model, then native): one "auto" call on the
 * members of c, named by topocoll_last_algorithm on rank 0 and broadcast.
 * "" when it cannot be told (the call failed). */
static char *builtin_choice(tuner *t, tune_comm *c, const bench_coll *bc, size_t bytes)
{
    char name[128] = "";
    tune_size z;
    MPI_Comm comm = tune_comm_fresh(c);
    if (comm != MPI_COMM_NULL && tune_size_open(&z, comm, bc, bytes, 1) == 0) {
        int err = bench_coll_call(bc, "auto", z.sbuf, z.rbuf, bytes, comm), gerr = MPI_ERR_OTHER;
        if (MPI_Allreduce(&err, &gerr, 1, MPI_INT, MPI_MAX, comm) == MPI_SUCCESS && gerr == MPI_SUCCESS &&
            t->rank == 0)
            snprintf(name, sizeof name, "%s", topocoll_last_algorithm());
        tune_size_close(&z);
    }
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
    return bcast_string(c->comm, name, t->rank);
}

/* Measures one point on the members of c, the built-in choice among the
 * entries (added where the shortlist lacks it): it is what the decision
 * weighs the others against (decide.c); rank 0 records it in the state. */
static void measure_point(tuner *t, tune_comm *c, const bench_coll *bc, const char **names, int n,
                          size_t bytes)
{
    json_t *entries = NULL;
    int iters = 0;
    double wall = 0;
    char *builtin = builtin_choice(t, c, bc, bytes);
    const char **all = calloc((size_t)n + 1, sizeof *all);
    int m = n;
    if (all) {
        memcpy(all, names, (size_t)n * sizeof *all);
        if (builtin && builtin[0] && !listed(names, n, builtin)) all[m++] = builtin;
    }
    int rc = measure_entries(t, c, bc, all ? all : names, all ? m : n, builtin, bytes, &entries, &iters, &wall);
    free(all);
    if (rc == 0) {
        t->measured++;
        t->measured_wall += wall;
    }
    if (rc == 0 && t->rank == 0) {
        json_t *pt = json_pack("{s:s, s:i, s:i, s:s, s:I, s:i, s:o}", "comm", c->name, "np", c->np, "nodes",
                               c->nnodes, "coll", topocoll_coll_name(bc->coll), "bytes", (json_int_t)bytes,
                               "iters", iters, "entries", entries);
        if (pt && c->oversub >= 0) json_object_set_new(pt, "oversubscribed", json_boolean(c->oversub));
        if (pt && builtin && builtin[0]) json_object_set_new(pt, "builtin", json_string(builtin));
        json_array_append_new(json_object_get(t->state, "points"), pt);
        save_state(t);
    }
    free(builtin);
}

/* ---- the plan ---------------------------------------------------------------------- */

/* Level of size index i: 0 for every 4th and the last, 1 for every 2nd, else 2. */
static int level_of(int i, int n)
{
    return i % 4 == 0 || i == n - 1 ? 0 : i % 2 == 0 ? 1 : 2;
}

/* The k-th size index a level visits.  Level 0 takes the largest size
 * first, then the others smallest first: the largest is where links and
 * memory decide and the wins are largest, and under a budget the share of
 * a group otherwise ran out on the cheap small sizes before reaching it
 * (bcast and allreduce on the emulated cluster).  Smaller sizes still fit
 * after it, since a point that would overrun the share is left out and the
 * next, cheaper one is tried.  Levels 1 and 2 go smallest first. */
static int level_size_index(int k, int n, int level)
{
    if (level != 0) return k;
    return k == 0 ? n - 1 : k - 1;
}

static void progress(tuner *t, const tune_comm *c, const char *coll, size_t bytes, int nent)
{
    char sz[32], eta[32], left[32] = "";
    if (t->rank != 0 || t->o.quiet) return;
    bench_format_size(bytes, sz, sizeof sz);
    int remaining = t->total - t->done;
    double per = t->measured ? t->measured_wall / t->measured : 0;
    fmt_dur(per * remaining, eta, sizeof eta);
    if (t->deadline) {
        fmt_dur(t->deadline - MPI_Wtime(), left, sizeof left);
    }
    fprintf(stderr, TUNE_PROG ": [%d/%d] %s %s %s: %d entries x %d batches; est. %s left%s%s%s\n",
            t->done + 1, t->total, c->name, coll, sz, nent, t->o.reps, t->measured ? eta : "?",
            left[0] ? " (budget " : "", left, left[0] ? ")" : "");
}

/* Rank 0: would measuring nent entries at bytes overrun the group's share
 * of the budget (estimated seconds per call times calls)? */
static int over_share(tuner *t, tune_comm *c, const bench_coll *bc, size_t bytes, int nent)
{
    if (!t->group_deadline) return 0;
    double call = est_call(&t->est[c - t->comms][bc->coll], bytes);
    double cost = call < 0 ? 0 : call * nent * t->o.reps * tune_calls_per_batch(bc, bytes, c->np);
    return MPI_Wtime() + cost > t->group_deadline;
}

/* At most this many entries besides native in a point narrowed for the
 * budget, and the fewest batches it may take (quartiles need 3). */
#define NARROW_MAX 3
#define NARROW_MIN_REPS 3

/* Rank 0: an entry's screen time at the screened size nearest the point
 * (seconds per call), or `fallback` where the screen did not rank it. */
static double screen_secs(json_t *ranked, const char *name, double fallback)
{
    size_t i;
    json_t *v;
    json_array_foreach(ranked, i, v) {
        const char *r = json_string_value(json_array_get(v, 0));
        if (r && strcmp(r, name) == 0) return json_number_value(json_array_get(v, 1)) * 1e-6;   /* stored in us */
    }
    return fallback;
}

/* Rank 0: appends name to order[] unless it is native, not in names[] or there already. */
static void add_candidate(const char **order, int *no, const char *name, const char **names, int n)
{
    if (!name || strcmp(name, "native") == 0 || !listed(names, n, name) || listed(order, *no, name)) return;
    order[(*no)++] = name;
}

/* Rank 0: a point that does not fit in the group's share with the whole
 * shortlist, narrowed to native and at most NARROW_MAX others, as many as
 * fit with reps batches: first the selections of the measured neighbours
 * where they differ (the refining pass bisects the boundary between them,
 * and they are the two that decide it), then the entries the screen found
 * fastest at the nearest screened size; each costed by its own screen time
 * (native's where the screen did not rank it; the group's mean per call,
 * which the slowest entries inflate, would leave out the very points
 * narrowing is for).  Writes the comma list to buf; returns the number of
 * entries, 0 when not even one besides native fits (the point is left
 * out).  On the emulated cluster the shortlists hold 9-13 entries and the
 * 1 MiB points of allgather, bcast and alltoall did not fit whole, yet the
 * large sizes are where the links decide. */
static int narrow_point(tuner *t, tune_comm *c, const bench_coll *bc, size_t bytes, const char **names, int n,
                        int reps, char *buf, size_t len)
{
    const char *coll = topocoll_coll_name(bc->coll);
    json_t *ranked = tune_state_screened(t->state, c->name, coll, bytes), *v;
    size_t i;
    int k = 0, no = 0;
    double calls = (double)reps * tune_calls_per_batch(bc, bytes, c->np);
    if (!listed(names, n, "native") || !t->group_deadline) return 0;
    double nat = screen_secs(ranked, "native", 0), cost = nat * calls;
    const char **order = calloc(json_array_size(ranked) + 3, sizeof *order), *below = NULL, *above = NULL;
    if (!order || nat <= 0 || MPI_Wtime() + cost > t->group_deadline) {   /* no screen: no estimate */
        free(order);
        return 0;
    }
    if (tune_refine_gap(t->state, c->name, coll, bytes, t->o.margin, &below, &above) < 2) {
        add_candidate(order, &no, below, names, n);
        add_candidate(order, &no, above, names, n);
    }
    json_array_foreach(ranked, i, v) add_candidate(order, &no, json_string_value(json_array_get(v, 0)), names, n);
    snprintf(buf, len, "native");
    for (int j = 0; j < no && k < NARROW_MAX; j++) {
        double sec = screen_secs(ranked, order[j], nat);
        size_t at = strlen(buf);
        if (at + strlen(order[j]) + 2 > len) break;
        if (MPI_Wtime() + cost + sec * calls > t->group_deadline) continue;   /* a cheaper one may fit */
        cost += sec * calls;
        snprintf(buf + at, len - at, ",%s", order[j]);
        k++;
    }
    free(order);
    return k > 0 ? k + 1 : 0;
}

/* Rank 0: 0 measure, 1 already in the state, 2 over the group's share of
 * the budget, 3 narrowed to fit (the list in buf), 4 narrowed and with
 * NARROW_MIN_REPS batches only (an allgather of 1 MiB per rank takes 0.18 s
 * per call on the emulated cluster: 10 s for native and one entry). */
static int point_verdict(tuner *t, tune_comm *c, const bench_coll *bc, size_t bytes, const char **names, int nent,
                         char *buf, size_t len)
{
    if (tune_state_point(t->state, c->name, topocoll_coll_name(bc->coll), bytes)) return 1;
    if (!over_share(t, c, bc, bytes, nent)) return 0;
    if (nent > 2 && narrow_point(t, c, bc, bytes, names, nent, t->o.reps, buf, len)) return 3;
    if (t->o.reps > NARROW_MIN_REPS && narrow_point(t, c, bc, bytes, names, nent, NARROW_MIN_REPS, buf, len))
        return 4;
    return 2;
}

/* A point narrowed for the budget: the list rank 0 chose, on every rank;
 * reps batches. */
static void measure_narrowed(tuner *t, tune_comm *c, const bench_coll *bc, size_t bytes, const char *list0, int reps)
{
    char *list = bcast_string(c->comm, list0, t->rank);
    const char *few[NARROW_MAX + 1];
    int k = list ? split_list(list, few, NARROW_MAX + 1) : 0, full = t->o.reps;
    t->o.reps = reps;
    if (k > 1) {
        if (t->rank == 0 && !t->o.quiet)
            fprintf(stderr, TUNE_PROG ": next point narrowed for the budget to %s (%d batches)\n",
                    list0, reps);
        progress(t, c, topocoll_coll_name(bc->coll), bytes, k);
        measure_point(t, c, bc, few, k, bytes);
    }
    t->o.reps = full;
    free(list);
}

/* One size of a pass: measured whole, narrowed, or left out (already in
 * the state, or over the group's share of the budget). */
static void visit_size(tuner *t, tune_comm *c, const bench_coll *bc, const char **names, int n, size_t bytes)
{
    char few[1024] = "";
    int v = t->rank == 0 ? point_verdict(t, c, bc, bytes, names, n, few, sizeof few) : 0;
    MPI_Bcast(&v, 1, MPI_INT, 0, c->comm);
    if (v == 0) {
        progress(t, c, topocoll_coll_name(bc->coll), bytes, n);
        measure_point(t, c, bc, names, n, bytes);
    } else if (v >= 3) {
        measure_narrowed(t, c, bc, bytes, few, v == 4 ? NARROW_MIN_REPS : t->o.reps);
    }
    if (v != 1 && v != 2) t->stop = t->o.stop_after && t->measured >= t->o.stop_after;
    t->skipped += v == 2;
    t->done++;
}

/* The next of the refining pass's sizes left (their grid indices, in
 * todo[0..left)): rank 0 picks (tune_refine_pick), every rank gets it. */
static int refine_next(tuner *t, tune_comm *c, const bench_coll *bc, const int *todo, int left)
{
    int k = 0;
    if (t->rank == 0) {
        size_t *sizes = malloc((size_t)left * sizeof *sizes);
        for (int j = 0; sizes && j < left; j++) sizes[j] = t->o.sizes[todo[j]];
        k = sizes ? tune_refine_pick(t->state, c->name, topocoll_coll_name(bc->coll), sizes, left, t->o.margin) : 0;
        free(sizes);
        if (k < 0) k = 0;
    }
    MPI_Bcast(&k, 1, MPI_INT, 0, c->comm);
    return k;
}

/* The grid indices a pass visits, in its order, into todo; returns how
 * many.  Pass 0: level 0 in level_size_index's order; pass 1 (refining):
 * level 1 then level 2, each smallest first (refine_next reorders). */
static int pass_sizes(const tuner *t, int pass, int *todo)
{
    int left = 0, first = pass == 0 ? 0 : 1, last = pass == 0 ? 0 : 2;
    for (int level = first; level <= last; level++)
        for (int k = 0; k < t->o.nsizes; k++) {
            int i = level_size_index(k, t->o.nsizes, level);
            if (level_of(i, t->o.nsizes) == level) todo[left++] = i;
        }
    return left;
}

/* One pass over the grid for one (comm, coll) on the members of c: pass 0
 * the coarse level 0, pass 1 the rest, where the selection changes first. */
static void run_pass(tuner *t, tune_comm *c, const bench_coll *bc, int pass)
{
    int *todo = calloc((size_t)t->o.nsizes + 1, sizeof *todo);
    int left = todo ? pass_sizes(t, pass, todo) : 0;
    int over = t->deadline && MPI_Wtime() > t->deadline;
    MPI_Bcast(&over, 1, MPI_INT, 0, c->comm);
    if (over || t->stop) {
        t->done += left;
        free(todo);
        return;
    }
    char *list = shortlist(t, c, bc);
    const char **names = calloc(strlen(list ? list : "") / 2 + 2, sizeof *names);
    int n = names && list ? split_list(list, names, (int)strlen(list) / 2 + 1) : 0;
    while (left > 0 && !t->stop) {
        int k = pass == 0 ? 0 : refine_next(t, c, bc, todo, left);
        int i = todo[k];
        memmove(todo + k, todo + k + 1, (size_t)(left - k - 1) * sizeof *todo);
        left--;
        visit_size(t, c, bc, names, n, t->o.sizes[i]);
    }
    free(todo);
    free(names);
    free(list);
}

static int bench_supported(topocoll_coll coll)
{
    return bench_coll_get(coll) != NULL && topocoll_coll_name(coll) != NULL;
}

static int tuned_group(const tuner *t, int ci, int k)
{
    return t->comms[ci].member && bench_supported((topocoll_coll)k) &&
           tune_coll_selected(&t->o, topocoll_coll_name((topocoll_coll)k));
}

static int tuned_groups(const tuner *t)
{
    int groups = 0;
    for (int ci = 0; ci < t->o.ncomms; ci++)
        for (int k = 0; k < TOPOCOLL_NCOLL; k++) groups += tuned_group(t, ci, k);
    return groups;
}

/* The next group's deadline: an equal share of the time left over the
 * `left` groups still to run in this pass (0: no budget). */
static double share_deadline(const tuner *t, int left)
{
    return t->deadline ? MPI_Wtime() + (t->deadline - MPI_Wtime()) / left : 0;
}

/* ---- the confirmation pass ------------------------------------------------------- */

typedef struct switch_point { long long bytes; const char *winner, *base; double hi; } switch_point;

/* The most doubtful first: the higher the winner's upper quartile (relative
 * to native's median), the closer the win is to the noise. */
static int more_doubtful(const void *a, const void *b)
{
    double x = ((const switch_point *)a)->hi, y = ((const switch_point *)b)->hi;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Rank 0: "bytes:winner:base,..." of the points of (comm, coll) whose
 * decision switches away from its base (native or the built-in choice) and that were not measured again yet, the most
 * doubtful first, so that a budget that runs out leaves the clearest
 * wins unconfirmed (on the emulated cluster bcast's 1 MiB switch, 0.31x with
 * quartiles 0.31-0.32, came first in size order and took the share that the
 * 2 KiB one, 0.80x with 0.77-0.83, needed; that one then lost 1.14-1.35x in
 * the benchmark). */
static void switched_points(const tuner *t, const char *comm, const char *coll, char *buf, size_t len)
{
    size_t i, used = 0, n = 0, cap = json_array_size(json_object_get(t->state, "points"));
    switch_point *sw = calloc(cap ? cap : 1, sizeof *sw);
    json_t *p;
    buf[0] = '\0';
    json_array_foreach(json_object_get(t->state, "points"), i, p) {
        const char *pc = json_string_value(json_object_get(p, "comm"));
        const char *pl = json_string_value(json_object_get(p, "coll"));
        tune_choice ch;
        if (!sw || !pc || !pl || strcmp(pc, comm) != 0 || strcmp(pl, coll) != 0 || json_object_get(p, "confirm") ||
            tune_decide_confirmed(p, t->o.margin, &ch) != 0 || !ch.switched)
            continue;
        sw[n++] = (switch_point){ (long long)json_integer_value(json_object_get(p, "bytes")), ch.winner, ch.base,
                                  ch.hi };
    }
    if (sw) qsort(sw, n, sizeof *sw, more_doubtful);
    for (i = 0; sw && i < n; i++) {
        int k = snprintf(buf + used, len - used, "%s%lld:%s:%s", used ? "," : "", sw[i].bytes, sw[i].winner,
                         sw[i].base);
        if (k < 0 || (size_t)k >= len - used) {   /* does not fit: the rest stays unconfirmed */
            buf[used] = '\0';
            break;
        }
        used += (size_t)k;
    }
    free(sw);
}

/* The base (native, or the built-in choice) and the winner of one switched
 * point measured again, by themselves (native too, for the ratio); rank 0
 * stores their statistics as the point's "confirm". */
static int confirm_names(const char *winner, const char *base, const char *names[3])
{
    names[0] = "native";
    names[1] = winner;
    names[2] = base;
    return strcmp(base, "native") == 0 ? 2 : 3;
}

static void confirm_point(tuner *t, tune_comm *c, const bench_coll *bc, size_t bytes, const char *winner,
                          const char *base)
{
    const char *names[3];
    int n = confirm_names(winner, base, names);
    json_t *entries = NULL;
    int iters = 0;
    double wall = 0;
    if (t->rank == 0 && !t->o.quiet) {
        char sz[32];
        bench_format_size(bytes, sz, sizeof sz);
        fprintf(stderr, TUNE_PROG ": confirming %s %s %s: %s against %s\n", c->name,
                topocoll_coll_name(bc->coll), sz, winner, base);
    }
    if (measure_entries(t, c, bc, names, n, base, bytes, &entries, &iters, &wall) != 0) return;
    if (t->rank != 0) return;
    json_t *p = tune_state_point(t->state, c->name, topocoll_coll_name(bc->coll), bytes);
    if (p) json_object_set_new(p, "confirm", entries);
    else json_decref(entries);
    save_state(t);
}

static void confirm_group(tuner *t, tune_comm *c, const bench_coll *bc)
{
    char buf[8192] = "";
    if (t->rank == 0) switched_points(t, c->name, topocoll_coll_name(bc->coll), buf, sizeof buf);
    char *list = bcast_string(c->comm, buf, t->rank);
    for (char *p = list; p && *p;) {
        char *next = strchr(p, ',');
        if (next) *next++ = '\0';
        char *colon = strchr(p, ':'), *base = colon ? strchr(colon + 1, ':') : NULL;
        if (base) {
            *colon = *base++ = '\0';
            size_t bytes = (size_t)strtoull(p, NULL, 10);
            const char *names[3];
            int over = t->rank == 0 && over_share(t, c, bc, bytes, confirm_names(colon + 1, base, names));
            MPI_Bcast(&over, 1, MPI_INT, 0, c->comm);
            if (!over) confirm_point(t, c, bc, bytes, colon + 1, base);
        }
        p = next;
    }
    free(list);
}

/* Every switch the levels found is measured again (native and the winner
 * alone, fresh batches) and stands only if the win passes the noise test a
 * second time (decide.c): one lucky measurement on a noisy machine (the
 * emulated cluster's bcast at 512 B - 4 KiB: `twotier` 0.71x in the tune,
 * 1.25-1.37x in the benchmark after) does not become a rule.  Under a
 * budget it has the time the levels left (at least CONFIRM_SHARE of it),
 * split evenly over the groups; a switch left unconfirmed stands as
 * measured. */
#define CONFIRM_SHARE 0.15

static void run_confirm(tuner *t)
{
    int left = tuned_groups(t);
    for (int ci = 0; ci < t->o.ncomms; ci++) {
        tune_comm *c = &t->comms[ci];
        for (int k = 0; c->member && k < TOPOCOLL_NCOLL; k++) {
            if (!tuned_group(t, ci, k)) continue;
            t->group_deadline = share_deadline(t, left--);
            confirm_group(t, c, bench_coll_get((topocoll_coll)k));
        }
    }
}

/* Both passes, every comm and collective; non-members of a comm wait for the
 * stop flag that rank 0 broadcasts after it.  Under a budget every group
 * (comm, collective) of a pass gets an equal share of the time left when
 * its turn comes (what a group leaves unused passes to the next): before,
 * the groups first in the list spent the budget and the last collectives
 * (allreduce, alltoall) were not measured at all on the emulated cluster.
 * Level 0 may use the whole budget; what it leaves goes to the refining
 * pass (levels 1 and 2 together). */
static void run_all(tuner *t)
{
    for (int k = 0; k < TOPOCOLL_NCOLL; k++)
        if (tune_coll_selected(&t->o, topocoll_coll_name((topocoll_coll)k)) && !bench_supported((topocoll_coll)k))
            note(t, "%s has no benchmark entry yet: not tuned%s", topocoll_coll_name((topocoll_coll)k), "");
    int groups = tuned_groups(t);
    t->total = groups * t->o.nsizes;
    MPI_Bcast(&t->total, 1, MPI_INT, 0, MPI_COMM_WORLD);
    double end = t->deadline;   /* the passes leave the confirmation its share */
    if (end && !t->o.no_confirm) t->deadline = t->t0 + (end - t->t0) * (1 - CONFIRM_SHARE);
    for (int pass = 0; pass < 2; pass++) {
        int left = groups;
        for (int ci = 0; ci < t->o.ncomms; ci++) {
            tune_comm *c = &t->comms[ci];
            for (int k = 0; c->member && k < TOPOCOLL_NCOLL; k++) {
                if (!tuned_group(t, ci, k)) continue;
                t->group_deadline = share_deadline(t, left--);
                run_pass(t, c, bench_coll_get((topocoll_coll)k), pass);
            }
            MPI_Bcast(&t->stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
            MPI_Bcast(&t->done, 1, MPI_INT, 0, MPI_COMM_WORLD);
        }
    }
    t->deadline = end;
    if (!t->o.no_confirm && !t->stop) run_confirm(t);
}

/* ---- setup and output ------------------------------------------------------------- */

static int finish(tuner *t, int code)
{
    for (int i = 0; i < t->o.ncomms; i++) tune_comm_free(&t->comms[i]);
    json_decref(t->state);
    tune_opts_free(&t->o);
    if (MPI_Finalize() != MPI_SUCCESS && code == 0) code = 1;
    return code;
}

/* Options, checked on every rank alike; -1 to go on, else the exit status. */
static int setup_options(tuner *t, int argc, char **argv)
{
    char err[512] = "";
    int rc = tune_parse_options(argc, argv, &t->o, err, sizeof err);
    if (rc == TUNE_PARSE_HELP) {
        if (t->rank == 0) tune_usage(stdout);
        return 0;
    }
    for (const char *p = t->o.colls; rc == TUNE_PARSE_OK && p && *p;) {
        size_t k = strcspn(p, ",");
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)k, p);
        if (topocoll_coll_from_name(name) < 0) {
            snprintf(err, sizeof err, "--colls: unknown collective '%s'", name);
            rc = TUNE_PARSE_ERROR;
        }
        p += k + (p[k] == ',');
    }
    if (rc == TUNE_PARSE_OK && t->o.from && !t->o.export_ompi && !t->o.export_mpich && !t->o.report) {
        snprintf(err, sizeof err, "--from needs --export-ompi, --export-mpich or --report");
        rc = TUNE_PARSE_ERROR;
    }
    if (rc == TUNE_PARSE_OK && t->o.mpich_base && !t->o.export_mpich) {
        snprintf(err, sizeof err, "--mpich-base needs --export-mpich");
        rc = TUNE_PARSE_ERROR;
    }
    if (rc == TUNE_PARSE_OK) return -1;
    if (t->rank == 0) fprintf(stderr, TUNE_PROG ": %s (see " TUNE_PROG " --help)\n", err);
    return 2;
}

/* Rank 0, resuming: the seconds per call of native at the sizes already
 * screened or measured, so that the budget costs the points left before a
 * screen runs again (a resumed run does not screen what its state has);
 * without them every point looked free, and a resumed run with one second
 * left measured a 1 MiB allgather. */
static void seed_estimates(tuner *t)
{
    for (int ci = 0; ci < t->o.ncomms; ci++)
        for (int k = 0; k < TOPOCOLL_NCOLL; k++) {
            const char *comm = t->comms[ci].name, *coll = topocoll_coll_name((topocoll_coll)k), *size;
            group_est *g = &t->est[ci][k];
            json_t *ranked, *p;
            size_t i;
            json_object_foreach(tune_state_screened_sizes(t->state, comm, coll), size, ranked) {
                json_t *first = json_array_get(ranked, 0);   /* native's, when it was screened */
                const char *name = json_string_value(json_array_get(first, 0));
                double us = json_number_value(json_array_get(first, 1));
                if (name && strcmp(name, "native") == 0 && us > 0)
                    est_add(g, (size_t)strtoull(size, NULL, 10), us * 1e-6);
            }
            json_array_foreach(json_object_get(t->state, "points"), i, p) {
                const char *pc = json_string_value(json_object_get(p, "comm"));
                const char *pl = json_string_value(json_object_get(p, "coll"));
                double us = json_number_value(json_object_get(json_object_get(json_object_get(p, "entries"), "native"),
                                                              "median"));
                if (pc && pl && strcmp(pc, comm) == 0 && strcmp(pl, coll) == 0 && us > 0)
                    est_add(g, (size_t)json_integer_value(json_object_get(p, "bytes")), us * 1e-6);
            }
        }
}

/* Topology, communicators and the state; -1 to go on, else the exit status. */
static int setup_run(tuner *t)
{
    int ok = 1, gok = 0;
    char err[512] = "";
    if (t->o.topology && topocoll_set_topology(MPI_COMM_WORLD, t->o.topology) != MPI_SUCCESS) ok = 0;
    MPI_Allreduce(&ok, &gok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!gok) {
        if (t->rank == 0) fprintf(stderr, TUNE_PROG ": --topology '%s' rejected\n", t->o.topology);
        return 2;
    }
    for (int i = 0; i < t->o.ncomms; i++)
        if (tune_comm_make(t->o.comms[i], t->o.topology != NULL, &t->comms[i]) != 0) {
            if (t->rank == 0) fprintf(stderr, TUNE_PROG ": cannot build the communicator '%s'\n", t->o.comms[i]);
            return 1;
        }
    if (t->rank == 0) {
        t->state = t->o.resume ? tune_state_load(t->o.state, err, sizeof err) : tune_state_new();
        ok = t->state != NULL;
        if (!ok) fprintf(stderr, TUNE_PROG ": cannot resume: %s\n", err);
        else if (t->o.resume && !t->o.quiet)
            fprintf(stderr, TUNE_PROG ": resuming from %s (%zu points measured)\n", t->o.state,
                    json_array_size(json_object_get(t->state, "points")));
        if (ok) seed_estimates(t);
        /* the grid's smallest size: where the table's first rule may begin (decide.c) */
        json_int_t gmin = json_integer_value(json_object_get(t->state, "grid_min"));
        if (ok && (gmin <= 0 || (json_int_t)t->o.sizes[0] < gmin))
            json_object_set_new(t->state, "grid_min", json_integer((json_int_t)t->o.sizes[0]));
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return ok ? -1 : 1;
}

/* The cost model's parameters (pingpong.c), once per tune: kept in the
 * state, so a resumed run does not measure them again. */
static void fit_model(tuner *t)
{
    int have = t->rank == 0 && json_object_get(t->state, "model") != NULL;
    MPI_Bcast(&have, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (have) return;
    note(t, "fitting the cost model: ping-pong per level%s%s", "", "");
    json_t *m = tune_fit_model(MPI_COMM_WORLD);
    if (t->rank == 0 && m) json_object_set_new(t->state, "model", m);
}

/* Rank 0: the table with its "_tuned" description. */
static json_t *table_of(tuner *t, char *err, size_t len)
{
    json_t *table = tune_build_table(t->state, t->o.margin, err, len);
    if (!table) return NULL;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "", topo[512] = "";
    int n = 0;
    MPI_Get_library_version(lib, &n);
    lib[strcspn(lib, "\r\n")] = '\0';
    topocoll_topology_describe(MPI_COMM_WORLD, topo, (int)sizeof topo);
    json_t *meta = json_pack("{s:s, s:s, s:i, s:s, s:f, s:i, s:b}", "tool", TUNE_PROG, "mpi", lib, "np",
                             t->np, "topology", topo, "margin", t->o.margin, "points",
                             (int)json_array_size(json_object_get(t->state, "points")), "complete",
                             !t->stop && !t->skipped && !t->o.rebuild);
    if (meta && t->o.rebuild) json_object_set_new(meta, "rebuilt", json_true());   /* from the state alone */
    int over = -1;
    char load[128] = "";
    if (topocoll_oversubscribed(MPI_COMM_WORLD, &over, load, (int)sizeof load) == MPI_SUCCESS && meta) {
        if (over >= 0) json_object_set_new(meta, "oversubscribed", json_boolean(over));
        json_object_set_new(meta, "load", json_string(load));
    }
    json_object_set_new(table, "_tuned", meta);
    json_t *model = json_object_get(t->state, "model");
    if (model) json_object_set(table, "_model", model);
    return table;
}

/* Rank 0: the report (tools/report/plot_tune.py) of the state and the table
 * just written (or --from's); 0 or -1 with a message. */
static int write_report(const tuner *t)
{
    const char *script = getenv("TOPOCOLL_PLOT_TUNE");
    if (!script || !*script) script = TUNE_REPORT_SCRIPT;
    const char *table = t->o.from ? t->o.from : t->o.output;
    char *argv[] = { (char *)script, "--state", t->o.state, "--table", (char *)table, "--out",
                     (char *)t->o.report, NULL };
    pid_t pid;
    int st = 0;
    int e = posix_spawn(&pid, script, NULL, NULL, argv, environ);
    if (e != 0) {
        fprintf(stderr, TUNE_PROG ": --report: cannot run %s: %s\n", script, strerror(e));
        return -1;
    }
    if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, TUNE_PROG ": --report: %s failed (status %d)%s\n", script,
                WIFEXITED(st) ? WEXITSTATUS(st) : -1,
                WIFEXITED(st) && WEXITSTATUS(st) == 3 ? ": no PNG without python3-matplotlib" : "");
        return -1;
    }
    if (!t->o.quiet) fprintf(stderr, TUNE_PROG ": report %s/report.md\n", t->o.report);
    return 0;
}

/* Rank 0: writes the table (unless it comes from --from) and the exports;
 * the exit status. */
static int write_outputs(tuner *t)
{
    char err[512] = "";
    json_t *table = t->o.from ? tune_state_load_json(t->o.from, err, sizeof err) : table_of(t, err, sizeof err);
    json_t *base = NULL;
    int code = 0;
    if (t->o.from && !json_is_object(table)) {
        fprintf(stderr, TUNE_PROG ": --from: %s\n", err[0] ? err : "not a tuning table");
        json_decref(table);
        return 1;
    }
    if (!t->o.from && (!table || tune_write_json(table, t->o.output) != 0)) {
        fprintf(stderr, TUNE_PROG ": cannot write %s%s%s\n", t->o.output, err[0] ? ": " : "", err);
        json_decref(table);
        return 1;
    }
    if (t->o.export_ompi && tune_export_ompi(table, t->o.export_ompi, err, sizeof err) != 0) {
        fprintf(stderr, TUNE_PROG ": %s\n", err);
        code = 1;
    }
    if (t->o.mpich_base && !(base = tune_state_load_json(t->o.mpich_base, err, sizeof err))) {
        fprintf(stderr, TUNE_PROG ": --mpich-base: %s\n", err);
        code = 1;
    } else if (t->o.export_mpich && tune_export_mpich(table, base, t->o.export_mpich, err, sizeof err) != 0) {
        fprintf(stderr, TUNE_PROG ": %s\n", err);
        code = 1;
    }
    json_decref(base);
    json_decref(table);
    if (t->o.report && write_report(t) != 0) code = 1;
    return code;
}

static void summary(const tuner *t)
{
    char el[32];
    if (t->rank != 0 || t->o.quiet) return;
    fmt_dur(MPI_Wtime() - t->t0, el, sizeof el);
    int held = 0, refuted = 0;
    tune_confirm_counts(t->state, t->o.margin, &held, &refuted);
    fprintf(stderr, TUNE_PROG ": %d points measured in %s, %d skipped for the budget; switches measured "
            "again: %d held, %d did not (their base stays there); table %s\n",
            t->measured, el, t->skipped, held, refuted, t->o.output);
    if (t->stop)
        fprintf(stderr, TUNE_PROG ": stopped after %d points: continue with --resume (state %s)\n",
                t->measured, t->o.state);
}

int main(int argc, char **argv)
{
    static tuner t;
    int rc;
    /* the built-in choices the tune weighs are those of the library without a
     * tuning file: a table loaded now would answer for the built-in one */
    const char *loaded = getenv("TOPOCOLL_TUNING_FILE");
    int had_file = loaded && loaded[0];
    if (had_file) unsetenv("TOPOCOLL_TUNING_FILE");
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, TUNE_PROG ": MPI_Init failed\n");
        return 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &t.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t.np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if ((rc = setup_options(&t, argc, argv)) >= 0) return finish(&t, rc);
    if (had_file && t.rank == 0 && !t.o.quiet)
        fprintf(stderr, TUNE_PROG ": TOPOCOLL_TUNING_FILE set aside while tuning: the tune weighs every "
                        "entry against the built-in choices\n");
    if (t.o.from) {
        rc = t.rank == 0 ? write_outputs(&t) : 0;
        MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
        return finish(&t, rc);
    }
    if ((rc = setup_run(&t)) >= 0) return finish(&t, rc);
    t.t0 = MPI_Wtime();
    if (!t.o.rebuild) fit_model(&t);
    t.deadline = t.o.budget_s > 0 ? t.t0 + t.o.budget_s : 0;
    MPI_Bcast(&t.deadline, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (!t.o.rebuild) run_all(&t);
    summary(&t);
    rc = t.rank == 0 ? write_outputs(&t) : 0;
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return finish(&t, rc);
}
