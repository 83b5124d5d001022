/*
 * topocoll-tune: the library's run-time learner (docs/learning.md) driven by
 * a benchmark loop, its outcomes written as a TOPOCOLL_TUNING_FILE
 * (docs/tuning.md).
 *
 *   options.c         command line (no MPI)
 *   export.c          Open MPI coll_tuned rules and MPICH selection JSON (no MPI)
 *   measure.c         one point: calls of topocoll's selection until the
 *                     learner has settled there
 *   comms.c           the communicators to tune (world, pernode, half)
 *   pingpong.c        the cost model's alpha and beta per level
 *   topocoll-tune.c   the driver: plan, budget, progress, the file
 *
 * The calls reuse topocoll-bench's collectives (tools/bench/colls.c:
 * buffers, data pattern, check).  The choice is the learner's (no selection
 * logic here); the file is the learner's writer (src/select/learn_file.c).
 */
#ifndef TOPOCOLL_TUNE_H
#define TOPOCOLL_TUNE_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#define TUNE_PROG "topocoll-tune"
#define TUNE_MAX_COMMS 8

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
    int resume;               /* --resume: warm start from the output's learned rules */
    int stop_after;           /* --stop-after N learned points (0: no limit) */
    int max_calls;            /* --max-calls: calls per point at most (default 4000) */
    const char *export_ompi;  /* --export-ompi FILE */
    const char *export_mpich; /* --export-mpich FILE */
    const char *mpich_base;   /* --mpich-base FILE: the MPICH default selection */
    const char *from;         /* --from TABLE: export an existing table, measure nothing */
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

/* ---- JSON files (export.c) ------------------------------------------------ */

/* Loads any JSON file; NULL with err set. */
json_t *tune_load_json(const char *path, char *err, size_t errlen);
/* Writes a JSON document to a file (a temporary file renamed); 0 or -1. */
int tune_write_json(json_t *doc, const char *path);

/* ---- exports (export.c) ---------------------------------------------------- */

/* Open MPI 4.1 coll_tuned dynamic rules from a tuning table; 0 or -1 (err). */
int tune_export_ompi(json_t *table, const char *path, char *err, size_t errlen);
/* MPICH 4.0 MPIR-level selection JSON: base (MPICH's own selection, may be
 * NULL) with the tuned collectives' intra-communicator trees replaced. */
int tune_export_mpich(json_t *table, json_t *base, const char *path, char *err, size_t errlen);

#endif
