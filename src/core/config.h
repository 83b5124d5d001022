/*
 * Configuration: one table of tunables (name, type, default, doc), read from
 * the environment once, at the first topocoll call of the process.  The
 * table also documents the environment variables: `topocoll-info config`
 * prints it (tc_config_print).
 */
#ifndef TC_CONFIG_H
#define TC_CONFIG_H

#include <stdio.h>

#include "topocoll_types.h"

typedef struct tc_config {
    const char *force[TOPOCOLL_NCOLL]; /* TOPOCOLL_<COLL>: forced algorithm, NULL if unset */
    int explain;             /* TOPOCOLL_EXPLAIN: 0 off, 1 rank 0 of each comm, 2 every rank */
    const char *tuning_file; /* TOPOCOLL_TUNING_FILE */
    int sched_cache;         /* TOPOCOLL_SCHED_CACHE: schedules cached per communicator */
    int context_after;       /* TOPOCOLL_CONTEXT_AFTER: calls served natively before a context */
    int disable;             /* TOPOCOLL_DISABLE: the interposer passes everything to PMPI */
    const char *stats;       /* TOPOCOLL_STATS: "1" stderr, else a JSON file path; NULL if unset */
    int stats_on;            /* TOPOCOLL_STATS is set and not "0": the run summary is kept */
    unsigned generation;     /* 1 at the first load, +1 at every reload (caches compare it) */
    int cma;                 /* TOPOCOLL_CMA: 0 turns cross-memory attach (single copy) off */
    const char *check;       /* TOPOCOLL_CHECK as given (NULL if unset) */
    int check_on;            /* 1: "1", 0: unset, empty or "0", -1: malformed (calls fail) */
    int fallback;            /* TOPOCOLL_FALLBACK: what a forced algorithm that declines does */
    int learn;               /* TOPOCOLL_LEARN: learning during the run (docs/learning.md) */
    int learn_patience;      /* TOPOCOLL_LEARN_PATIENCE: table-served calls of a key before it learns */
    int learn_init;          /* TOPOCOLL_LEARN_INIT: calls a persistent init may run to settle its key (0: none) */
    int learn_payback;       /* TOPOCOLL_LEARN_PAYBACK: how many times a key's calls must pay for exploring (0: always explore) */
    const char *learn_noise; /* TOPOCOLL_LEARN_NOISE as given (testing aid) */
    double noise;            /* its fraction (0: none) */
} tc_config;

/* TOPOCOLL_FALLBACK: a forced algorithm (TOPOCOLL_<COLL>) declines a call. */
enum {
    TC_FALLBACK_PRINT = 0,   /* another serves it; one line per process and collective */
    TC_FALLBACK_SILENT,      /* another serves it, nothing printed */
    TC_FALLBACK_ERROR        /* the call fails (MPI_ERR_ARG) */
};

/* The process's configuration, loaded exactly once on first use (safe from
 * any number of threads; no lock once loaded). */
const tc_config *tc_config_get(void);
/* The same configuration without the test for its first load: for a reader
 * that holds something taken under a loaded one (its generation is 0 before
 * the first load). */
extern const tc_config *const tc_config_as_loaded;
/* Re-read the environment (tests; not while other threads use topocoll). */
void tc_config_reload(void);
/* A variable of the table that is read whenever it is used, not once
 * (TOPOCOLL_TOPOLOGY, TOPOCOLL_DOMAIN: read at each topology creation):
 * its value now, or the table's default (NULL when none, or when env is not
 * such a variable of the table). */
const char *tc_config_live(const char *env);

/* The table as text: name, type, default, description. */
void tc_config_print(FILE *f);

/* ---- strict parsing of environment values --------------------------------
 * Every number or switch topocoll reads from the environment goes through
 * these.  Unset or empty: the default, silently.  Malformed: one line on
 * stderr naming the variable, its value, the accepted values and what is
 * done instead (the default), then the default.  The tc_parse_* forms parse
 * a value (no message): 0 when valid, with *out set, else -1. */

/* Switches: 1, 0, true, false, yes, no, on, off (any case). */
int tc_parse_bool(const char *v, int *out);
int tc_env_bool(const char *name, int dflt);
/* Decimal integers in [min, max] (a leading + or -, no other character). */
int tc_parse_int(const char *v, long long min, long long max, long long *out);
long long tc_env_int(const char *name, long long min, long long max, long long dflt);
/* Byte counts: a decimal integer with an optional K, M, G or T (binary
 * multiples, any case, optionally followed by B or iB): 65536, 64K, 2MiB,
 * 1g.  At most max (and at most what 63 bits hold). */
int tc_parse_size(const char *v, long long max, long long *out);
long long tc_env_size(const char *name, long long max, long long dflt);
/* One of the names of choices (NULL-terminated, exact, any case): its index. */
int tc_parse_choice(const char *v, const char *const *choices, int *out);
int tc_env_choice(const char *name, const char *const *choices, int dflt);

#endif
