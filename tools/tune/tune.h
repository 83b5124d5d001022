/*
 * topocoll-tune: measured selection tables (docs/selection.md, "Tuning").
 *
 *   options.c         command line (no MPI)
 *   decide.c          from measured points to rules: the noise test, merging
 *                     of adjacent sizes, the TOPOCOLL_TUNING_FILE JSON (no MPI)
 *   state.c           the state file a run writes as it goes (--resume) (no MPI)
 *   export.c          Open MPI coll_tuned rules and MPICH selection JSON (no MPI)
 *   measure.c         the screen and the interleaved measurement of one point
 *   comms.c           the communicators to tune (world, pernode, half)
 *   topocoll-tune.c   the driver: plan, budget, progress
 *
 * The measurement reuses topocoll-bench's collectives (tools/bench/colls.c:
 * buffers, data pattern, check) and statistics (tools/bench/stats.c: Tukey's
 * fences per batch, medians and quantiles over batches).
 */
#ifndef TOPOCOLL_TUNE_H
#define TOPOCOLL_TUNE_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#define TUNE_PROG "topocoll-tune"
#define TUNE_MAX_COMMS 8
#define TUNE_STATE_VERSION 1

/* ---- options (options.c) ------------------------------------------------- */

typedef struct tune_opts {
    size_t *sizes;            /* bytes per rank, ascending, unique */
    int nsizes;
    double budget_s;          /* --time; 0: no budget */
    char *colls;              /* --colls: comma list, NULL = every collective */
    const char *comms[TUNE_MAX_COMMS]; /* --comms: world, pernode, half */
    int ncomms;
    const char *topology;     /* -t: virtual topology of MPI_COMM_WORLD */
    const char *output;       /* -o (default topocoll-tuning.json) */
    char *state;              /* --state (default <output>.state) */
    int resume;               /* --resume: continue from the state file */
    int rebuild;              /* --rebuild: the table from the state, nothing measured */
    int stop_after;           /* --stop-after N measured points (0: no limit) */
    int reps;                 /* batches per entry (default 5) */
    int max_reps;             /* batches a noisy point may grow to (default 2 x reps) */
    double margin;            /* --margin: the win must exceed the noise by this (0.03) */
    double noise;             /* --noise: relative spread that makes a point noisy (0.10) */
    int keep;                 /* --keep: entries besides native kept by the screen (4) */
    int no_confirm;           /* --no-confirm: no second measurement of the switches */
    const char *export_ompi;  /* --export-ompi FILE */
    const char *export_mpich; /* --export-mpich FILE */
    const char *mpich_base;   /* --mpich-base FILE: the MPICH default selection */
    const char *from;         /* --from TABLE: export an existing table, measure nothing */
    const char *report;       /* --report DIR: markdown and PNG (tools/report/plot_tune.py) */
    int quiet;
    int help;
} tune_opts;

enum { TUNE_PARSE_OK = 0, TUNE_PARSE_HELP = 1, TUNE_PARSE_ERROR = 2 };

int tune_parse_options(int argc, char **argv, tune_opts *o, char *err, size_t errlen);
void tune_opts_free(tune_opts *o);
void tune_usage(FILE *f);
/* "10m", "90s", "1h", "600": seconds, or -1. */
double tune_parse_duration(const char *s);
/* Is collective `name` selected by --colls? */
int tune_coll_selected(const tune_opts *o, const char *name);

/* ---- one measured entry and one point (decide.c) -------------------------- */

/* Batch times of one entry at one point, microseconds: the median and the
 * quartiles over batches (each batch: the mean inside Tukey's fences of the
 * per-iteration maxima over ranks). */
typedef struct tune_stat {
    double med, lo, hi;
    int n;
} tune_stat;

/* The decision at one point.  The base is what the winner has to beat: the
 * library's own choice at the point without a tuning file ("builtin": the
 * built-in table, then the cost model), measured there, unless native beats
 * it beyond the noise; otherwise native.  The winner is the base unless an
 * entry beats the base's lower quartile with its upper quartile, by the
 * margin; its ratio to native and spread (lo, hi over native's median). */
typedef struct tune_choice {
    const char *winner;
    const char *base;         /* "native" or the built-in choice */
    double ratio, lo, hi;
    int switched;             /* 1 when the winner is not the base */
    int confirmed;            /* 1: the switch passed the noise test again ("confirm") */
    const char *refuted;      /* the entry whose switch did not pass it again, or NULL */
} tune_choice;

/* Decides one point of the state file from its "entries" object and the
 * built-in choice (NULL or "native": none). */
int tune_decide_point(json_t *entries, const char *builtin, double margin, tune_choice *c);
/* Decides one point (a state file's point object, its "builtin" read): its
 * entries, then, where they switch and the point has a "confirm" (the base
 * and the winner measured again), the switch stands only if it passes the
 * noise test there too. */
int tune_decide_confirmed(json_t *point, double margin, tune_choice *c);
/* Where `bytes` lies among the measured points of (comm, coll): 0 when the
 * nearest measured sizes below and above select different entries and one
 * of them is native, 1 when they select two different entries, 2 otherwise
 * (a side without points, or the same selection); *below and *above: the
 * neighbours' selections (NULL where a side has none). */
int tune_refine_gap(json_t *state, const char *comm, const char *coll, size_t bytes, double margin,
                    const char **below, const char **above);
/* The next size the refining pass (after the coarse level 0) measures for
 * (comm, coll), as an index into sizes[0..n) (the sizes not visited yet, in
 * the pass's order), or -1 when n is 0.  First a size of tier 0
 * (tune_refine_gap: a switch begins or ends in its gap; the widest gap
 * first, in it the size nearest the geometric middle, so the boundary is
 * found by bisection), then one of tier 1, then the first of the others.
 * Before, the finer sizes went smallest first, and under a budget the size
 * next to a boundary was the one left out (reduce on the emulated cluster:
 * native at 32 KiB, a pipelined chain at 1 MiB, 64 KiB never measured). */
int tune_refine_pick(json_t *state, const char *comm, const char *coll, const size_t *sizes, int n,
                     double margin);
/* Switches in the state that were measured again: *held stood, *refuted did not. */
void tune_confirm_counts(json_t *state, double margin, int *held, int *refuted);

/* The TOPOCOLL_TUNING_FILE table from the state's points: rules per
 * (collective, comm layout), adjacent sizes with the same winner merged.
 * Returns a new JSON object, or NULL with err set. */
json_t *tune_build_table(json_t *state, double margin, char *err, size_t errlen);

/* ---- the state file (state.c) ---------------------------------------------- */

json_t *tune_state_new(void);
/* Loads a state file; NULL with err set when it is missing or malformed. */
json_t *tune_state_load(const char *path, char *err, size_t errlen);
/* Writes atomically (a temporary file renamed); 0 or -1. */
int tune_state_save(json_t *state, const char *path);
/* The point (comm, coll, bytes) in state, or NULL. */
json_t *tune_state_point(json_t *state, const char *comm, const char *coll, size_t bytes);
/* The shortlist of (comm, coll) (a JSON array of names), or NULL. */
json_t *tune_state_shortlist(json_t *state, const char *comm, const char *coll);
void tune_state_set_shortlist(json_t *state, const char *comm, const char *coll, json_t *names);
/* Native and the entries that beat it at the screened size nearest to bytes
 * (a JSON array of [name, microseconds per call], native first, then fastest
 * first), or NULL; and setting one size's list. */
json_t *tune_state_screened(json_t *state, const char *comm, const char *coll, size_t bytes);
/* Every screened size's list of (comm, coll): an object keyed by the size in
 * decimal, or NULL. */
json_t *tune_state_screened_sizes(json_t *state, const char *comm, const char *coll);
void tune_state_set_screened(json_t *state, const char *comm, const char *coll, size_t bytes, json_t *names);
/* Loads any JSON file; NULL with err set. */
json_t *tune_state_load_json(const char *path, char *err, size_t errlen);
/* Writes a JSON document to a file; 0 or -1. */
int tune_write_json(json_t *doc, const char *path);

/* ---- exports (export.c) ---------------------------------------------------- */

/* Open MPI 4.1 coll_tuned dynamic rules from a tuning table; 0 or -1 (err). */
int tune_export_ompi(json_t *table, const char *path, char *err, size_t errlen);
/* MPICH 4.0 MPIR-level selection JSON: base (MPICH's own selection, may be
 * NULL) with the tuned collectives' intra-communicator trees replaced. */
int tune_export_mpich(json_t *table, json_t *base, const char *path, char *err, size_t errlen);

#endif
