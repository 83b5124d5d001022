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
    int disable;             /* TOPOCOLL_DISABLE: the interposer passes everything to PMPI */
} tc_config;

/* The process's configuration (loaded on first use). */
const tc_config *tc_config_get(void);
/* Re-read the environment (tests). */
void tc_config_reload(void);
/* The table as text: name, type, default, description. */
void tc_config_print(FILE *f);

#endif
