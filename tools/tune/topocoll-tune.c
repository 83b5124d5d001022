/*
 * topocoll-tune: the library's run-time learner (docs/learning.md) driven by
 * a benchmark loop, its outcomes written as a TOPOCOLL_TUNING_FILE
 * (docs/tuning.md).  No selection logic of its own: the
 * candidates, the timing, the racing, the agreement over the ranks and the
 * winner are the learner's, the file is the learner's writer
 * (TOPOCOLL_LEARN_FILE's format, src/select/learn_file.c).
 *
 *   the cost model's alpha and beta per level: ping-pong (pingpong.c)
 *   for every communicator layout asked for (world, pernode, half):
 *     for every collective with a benchmark entry (--colls):
 *       for every size (--sizes), on a fresh copy of the communicator (a
 *       new context, so new learners): calls of topocoll's selection until
 *       the learner has settled there (measure.c), within the group's share
 *       of the budget
 *   every process's outcomes, gathered to rank 0, merged into the output
 *   (tc_learn_file_save: the keys learned now replace theirs, the rest of the
 *   file is kept), then its "_tuned" and "_model" sections and the exports.
 *
 * With --resume the output's learned rules are handed to the learner first
 * (tc_learn_file_load): their keys settle without exploring, only the
 * missing ones are learned.  The budget and the stop are agreed at every
 * batch (measure.c), so every rank takes the same path.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune.h"
#include "tune_mpi.h"
#include "api/learn_file_mpi.h"

typedef struct tuner {
    tune_opts o;
    int rank, np;
    tune_comm comms[TUNE_MAX_COMMS];
    json_t *model;               /* rank 0: the fitted "_model" section */
    double t0, deadline;         /* MPI_Wtime; deadline 0: none */
    int total, done, learned, unsettled, skipped, from_file;
    int stop;                    /* --stop-after reached or the budget spent */
} tuner;

static void fmt_dur(double s, char *buf, size_t len)
{
    if (s < 0) s = 0;
    if (s >= 60) snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
    else snprintf(buf, len, "%.0fs", s);
}

static int bench_supported(topocoll_coll coll) { return bench_coll_get(coll) != NULL; }

static int tuned_coll(const tuner *t, int k)
{
    return bench_supported((topocoll_coll)k) && tune_coll_selected(&t->o, topocoll_coll_name((topocoll_coll)k));
}

/* Rank 0: one line per point. */
static void progress(const tuner *t, const tune_comm *c, const bench_coll *bc, size_t bytes, const tune_point *p)
{
    if (t->rank != 0 || t->o.quiet) return;
    char size[32], left[32], what[200];
    bench_format_size(bytes, size, sizeof size);
    double el = MPI_Wtime() - t->t0;
    fmt_dur(t->done ? el / t->done * (t->total - t->done) : 0, left, sizeof left);
    const tc_learn_outcome *o = &p->outcome;
    if (!p->settled)
        snprintf(what, sizeof what, "not settled after %d calls%s", p->calls, p->out_of_time ? " (budget)" : "");
    else if (o->winner && o->winner_s > 0 && o->native_s > 0)
        snprintf(what, sizeof what, "%s, %.2fx native (%d tried)%s, %d calls", o->winner, o->winner_s / o->native_s,
                 o->ntried, o->from_file ? ", from the file" : "", p->calls);
    else
        snprintf(what, sizeof what, "%s%s, %d calls", o->winner ? o->winner : "?",
                 o->from_file ? " (from the file)" : p->known_before ? " (size class learned before)" : "", p->calls);
    fprintf(stderr, TUNE_PROG ": [%d/%d] %s %s %s: %s (est. %s left)\n", t->done, t->total, c->name,
            topocoll_coll_name(bc->coll), size, what, left);
}

/* One point on a fresh copy of c's communicator; -1 when a call failed. */
static int learn_point(tuner *t, tune_comm *c, const bench_coll *bc, size_t bytes, double deadline)
{
    MPI_Comm comm = tune_comm_fresh(c);
    tune_size z;
    tune_point p;
    int rc = -1;
    if (comm != MPI_COMM_NULL && tune_size_open(&z, comm, bc, bytes) == 0) {
        rc = tune_learn_point(&z, t->o.max_calls, deadline, &p);
        tune_size_close(&z);
    }
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
    t->done++;
    if (rc != 0) {
        if (t->rank == 0)
            fprintf(stderr, TUNE_PROG ": %s %s %zu B: a call failed or left wrong data: not learned\n", c->name,
                    topocoll_coll_name(bc->coll), bytes);
        t->skipped++;
        return -1;
    }
    progress(t, c, bc, bytes, &p);
    if (p.settled) t->learned++, t->from_file += p.outcome.from_file;
    else t->unsettled++;
    if (p.out_of_time) t->stop = 1;
    return 0;
}

/* The deadline of one (comm, coll) group: an equal share of what is left. */
static double share_deadline(const tuner *t, int groups_left)
{
    if (!t->deadline) return 0;
    double now = MPI_Wtime();
    return now + (t->deadline - now) / (groups_left > 0 ? groups_left : 1);
}

static void run_group(tuner *t, tune_comm *c, const bench_coll *bc, double deadline)
{
    for (int i = 0; i < t->o.nsizes; i++) {
        int over = deadline > 0 && MPI_Wtime() > deadline, any = 0;
        if (t->o.stop_after && t->learned >= t->o.stop_after) over = 1;
        MPI_Allreduce(&over, &any, 1, MPI_INT, MPI_MAX, c->comm);
        if (any) {
            t->skipped += t->o.nsizes - i;
            t->done += t->o.nsizes - i;
            return;
        }
        (void)learn_point(t, c, bc, t->o.sizes[i], deadline);
    }
}

static void run_all(tuner *t)
{
    int groups = 0;
    for (int k = 0; k < TOPOCOLL_NCOLL; k++) {
        if (tune_coll_selected(&t->o, topocoll_coll_name((topocoll_coll)k)) && !bench_supported((topocoll_coll)k) &&
            t->rank == 0 && !t->o.quiet)
            fprintf(stderr, TUNE_PROG ": %s has no benchmark entry yet: not tuned\n",
                    topocoll_coll_name((topocoll_coll)k));
        groups += tuned_coll(t, k);
    }
    groups *= t->o.ncomms;
    t->total = groups * t->o.nsizes;
    int left = groups;
    for (int ci = 0; ci < t->o.ncomms; ci++) {
        tune_comm *c = &t->comms[ci];
        for (int k = 0; k < TOPOCOLL_NCOLL; k++) {
            if (!tuned_coll(t, k)) continue;
            double d = share_deadline(t, left--);
            if (c->member) run_group(t, c, bench_coll_get((topocoll_coll)k), d);
        }
        /* ranks outside c skipped its groups: every rank's counts from rank 0's */
        int counts[6] = { t->done, t->learned, t->unsettled, t->skipped, t->from_file, t->stop };
        MPI_Bcast(counts, 6, MPI_INT, 0, MPI_COMM_WORLD);
        t->done = counts[0], t->learned = counts[1], t->unsettled = counts[2], t->skipped = counts[3];
        t->from_file = counts[4], t->stop = counts[5];
    }
}

/* ---- setup and output ------------------------------------------------------------- */

static int finish(tuner *t, int code)
{
    for (int i = 0; i < t->o.ncomms; i++) tune_comm_free(&t->comms[i]);
    json_decref(t->model);
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
    if (rc == TUNE_PARSE_OK && t->o.from && !t->o.export_ompi && !t->o.export_mpich) {
        snprintf(err, sizeof err, "--from needs --export-ompi or --export-mpich");
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

/* Topology, communicators and the warm start; -1 to go on, else the exit status. */
static int setup_run(tuner *t)
{
    int ok = 1, gok = 0;
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
    if (t->o.resume) {
        int n = tc_learn_file_load(t->o.output), lo = 0;
        MPI_Allreduce(&n, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (lo < 0) return 1;   /* rank 0 said why */
        if (t->rank == 0 && !t->o.quiet)
            fprintf(stderr, TUNE_PROG ": resuming from %s (%d learned rules)\n", t->o.output, n);
    }
    return -1;
}

static json_int_t nth(json_t *rule, const char *key, size_t i)
{
    return json_integer_value(json_array_get(json_object_get(rule, key), i));
}

/* Rank 0: whether rule is one this run learned (rank 0 takes part in every
 * layout, so its record holds every key learned). */
static int learned_here(json_t *rule, const tc_learn_outcome *o, int n, const char *coll)
{
    json_t *ev = json_object_get(rule, "evidence");
    const char *origin = json_string_value(json_object_get(rule, "origin"));
    if (!json_is_object(ev) || !origin || strcmp(origin, "learned")) return 0;
    for (int i = 0; i < n; i++)
        if (!o[i].from_file && !strcmp(topocoll_coll_name(o[i].coll), coll) && nth(rule, "np", 0) == o[i].np &&
            nth(rule, "nodes", 0) == o[i].nnodes && nth(rule, "bytes", 0) == o[i].min_bytes &&
            json_integer_value(json_object_get(ev, "ppn")) == o[i].ppn &&
            json_integer_value(json_object_get(ev, "op_class")) == o[i].op_class)
            return 1;
    return 0;
}

/* Rank 0: the machine's load on the rules learned now (tc_rule.load), so
 * the table serves machines like this one. */
static void mark_load(json_t *table, int over)
{
    int n = tc_learn_outcomes(NULL, 0);
    tc_learn_outcome *o = n > 0 ? malloc((size_t)n * sizeof *o) : NULL;
    n = o ? tc_learn_outcomes(o, n) : 0;
    const char *coll;
    json_t *rules, *r;
    size_t i;
    json_object_foreach(table, coll, rules) {
        if (coll[0] == '_' || !json_is_array(rules)) continue;
        json_array_foreach(rules, i, r)
            if (learned_here(r, o, n, coll)) json_object_set_new(r, "oversubscribed", json_boolean(over));
    }
    free(o);
}

/* Rank 0: the "_tuned" and "_model" sections (and the load) on the file the
 * learner's writer produced; 0 or -1. */
static int complete_table(tuner *t, json_t *table)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "", topo[512] = "", load[128] = "";
    int n = 0, over = -1;
    MPI_Get_library_version(lib, &n);
    lib[strcspn(lib, "\r\n")] = '\0';
    topocoll_topology_describe(MPI_COMM_WORLD, topo, (int)sizeof topo);
    json_t *meta = json_pack("{s:s, s:s, s:s, s:i, s:s, s:i, s:i, s:i, s:b}", "tool", TUNE_PROG, "by",
                             "the run-time learner driven by a benchmark loop", "mpi", lib, "np", t->np,
                             "topology", topo, "learned", t->learned, "unsettled", t->unsettled, "skipped",
                             t->skipped, "complete", !t->stop && !t->skipped && !t->unsettled);
    if (!meta) return -1;
    if (topocoll_oversubscribed(MPI_COMM_WORLD, &over, load, (int)sizeof load) == MPI_SUCCESS) {
        if (over >= 0) json_object_set_new(meta, "oversubscribed", json_boolean(over));
        json_object_set_new(meta, "load", json_string(load));
        if (over >= 0) mark_load(table, over);
    }
    json_object_set_new(table, "_tuned", meta);
    if (t->model) json_object_set(table, "_model", t->model);
    return 0;
}

/* Rank 0: the exports of table; the exit status. */
static int write_exports(const tuner *t, json_t *table)
{
    char err[512] = "";
    json_t *base = NULL;
    int code = 0;
    if (t->o.export_ompi && tune_export_ompi(table, t->o.export_ompi, err, sizeof err) != 0) {
        fprintf(stderr, TUNE_PROG ": %s\n", err);
        code = 1;
    }
    if (t->o.mpich_base && !(base = tune_load_json(t->o.mpich_base, err, sizeof err))) {
        fprintf(stderr, TUNE_PROG ": --mpich-base: %s\n", err);
        code = 1;
    } else if (t->o.export_mpich && tune_export_mpich(table, base, t->o.export_mpich, err, sizeof err) != 0) {
        fprintf(stderr, TUNE_PROG ": %s\n", err);
        code = 1;
    }
    json_decref(base);
    return code;
}

/* Rank 0: the table (--from's, or the output the learner's writer merged
 * into, completed here) and its exports; the exit status. */
static int write_outputs(tuner *t)
{
    char err[512] = "";
    const char *path = t->o.from ? t->o.from : t->o.output;
    json_t *table = tune_load_json(path, err, sizeof err);
    if (!json_is_object(table)) {
        fprintf(stderr, TUNE_PROG ": %s%s\n", t->o.from ? "--from: " : "nothing learned: ",
                err[0] ? err : "not a tuning table");
        json_decref(table);
        return 1;
    }
    if (!t->o.from && (complete_table(t, table) != 0 || tune_write_json(table, t->o.output) != 0)) {
        fprintf(stderr, TUNE_PROG ": cannot write %s\n", t->o.output);
        json_decref(table);
        return 1;
    }
    int code = write_exports(t, table);
    json_decref(table);
    return code;
}

static void summary(const tuner *t)
{
    char el[32];
    if (t->rank != 0 || t->o.quiet) return;
    fmt_dur(MPI_Wtime() - t->t0, el, sizeof el);
    fprintf(stderr, TUNE_PROG ": %d of %d points learned in %s (%d from the file), %d not settled within "
            "--max-calls, %d skipped (budget, --stop-after or a failed call); table %s\n",
            t->learned, t->total, el, t->from_file, t->unsettled, t->skipped, t->o.output);
    if (t->stop || t->skipped)
        fprintf(stderr, TUNE_PROG ": continue with --resume: the learned keys are kept, the rest is learned\n");
}

int main(int argc, char **argv)
{
    static tuner t;
    int rc;
    /* the learner on, from each key's first call (no patience: the tuner
     * learns on purpose), its file the tuner's to write (tc_learn_file_save);
     * the candidates those of the library without a tuning file */
    const char *loaded = getenv("TOPOCOLL_TUNING_FILE");
    int had_file = loaded && loaded[0];
    if (had_file) unsetenv("TOPOCOLL_TUNING_FILE");
    unsetenv("TOPOCOLL_LEARN_FILE");
    setenv("TOPOCOLL_LEARN", "1", 1);
    setenv("TOPOCOLL_LEARN_PATIENCE", "0", 1);
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, TUNE_PROG ": MPI_Init failed\n");
        return 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &t.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t.np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if ((rc = setup_options(&t, argc, argv)) >= 0) return finish(&t, rc);
    if (had_file && t.rank == 0 && !t.o.quiet)
        fprintf(stderr, TUNE_PROG ": TOPOCOLL_TUNING_FILE set aside while tuning: the learner starts from "
                        "the built-in choices\n");
    if (t.o.from) {
        rc = t.rank == 0 ? write_outputs(&t) : 0;
        MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
        return finish(&t, rc);
    }
    if ((rc = setup_run(&t)) >= 0) return finish(&t, rc);
    t.t0 = MPI_Wtime();
    if (t.rank == 0 && !t.o.quiet) fprintf(stderr, TUNE_PROG ": fitting the cost model: ping-pong per level\n");
    t.model = tune_fit_model(MPI_COMM_WORLD);
    t.deadline = t.o.budget_s > 0 ? t.t0 + t.o.budget_s : 0;
    MPI_Bcast(&t.deadline, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    run_all(&t);
    if (tc_learn_file_save(t.o.output, "topocoll-tune: the run-time learner driven by a benchmark loop") !=
        MPI_SUCCESS)
        return finish(&t, 1);
    summary(&t);
    rc = t.rank == 0 ? write_outputs(&t) : 0;
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return finish(&t, rc);
}
