/*
 * Choosing the algorithm of one call: a forced name (TOPOCOLL_<COLL>) when it
 * serves the arguments, else the selection table.  MPI-free: the API layer
 * turns an unknown forced name into an MPI error and prints explain lines.
 */
#ifndef TC_SELECT_CHOOSE_H
#define TC_SELECT_CHOOSE_H

#include <stddef.h>
#include <stdint.h>

#include "algo/catalog.h"

typedef enum {
    TC_CHOSEN_BY_TABLE = 0,       /* nothing forced: the selection table chose */
    TC_CHOSEN_FORCED,             /* the forced algorithm serves the call */
    TC_CHOSEN_FORCED_DECLINED,    /* it declined (reason in forced_reason); the table chose */
    TC_CHOSEN_UNKNOWN_FORCED      /* the forced name is not in the catalog; algo is NULL */
} tc_chosen_how;

typedef struct tc_choice {
    const tc_algo *algo;
    tc_chosen_how how;
    const char *forced;           /* the forced name, or NULL */
    const char *forced_reason;    /* why the forced algorithm declined */
} tc_choice;

/* The forced algorithm of coll (the configuration's TOPOCOLL_<COLL>),
 * resolved once per configuration and cached: NULL when none is forced;
 * *unknown set when a name is given that the catalog does not know. */
const tc_algo *tc_forced_algo(topocoll_coll coll, int *unknown);

/* Choose for a call.  why (NULL when nobody reads it) receives the
 * explain text: the rule and the candidates that declined. */
tc_choice tc_select_choose(const tc_args *a, const tc_topo *t, int64_t bytes, char *why,
                           size_t whylen);

/* The same, with the one-node allreduce memory model (src/select/shm_model.h;
 * NULL: none): where it applies and the built-in table is in force, the
 * model chooses instead of the table. */
struct tc_shm_model;
tc_choice tc_select_choose_model(const tc_args *a, const tc_topo *t, int64_t bytes,
                                 const struct tc_shm_model *m, char *why, size_t whylen);

#endif
