/*
 * The catalog: one entry per algorithm.  Selection, the public API, the
 * benchmark, the tests, the verifier and the docs all read this table.
 */
#ifndef TC_CATALOG_H
#define TC_CATALOG_H

#include <stdint.h>
#include "topocoll_types.h"
#include "coll/coll.h"
#include "sched/sched.h"
#include "topo/topo.h"


/* Requirement flags (documentation + cheap checks before `accepts`). */
enum {
    TC_REQ_NONE = 0,
    TC_REQ_EVEN_P = 1u << 0,     /* even process count */
    TC_REQ_POW2_P = 1u << 1,     /* power-of-two process count */
    TC_REQ_NATIVE = 1u << 2      /* calls the MPI library's own collective */
};

typedef struct tc_algo {
    topocoll_coll coll;
    const char *name;
    const char *desc;            /* one line */
    const char *requires;        /* human text, "" when none */
    unsigned req;                /* TC_REQ_* */
    /* May decline: returns 1 to serve, 0 with *why set to decline.
     * NULL means it serves everything its req flags allow. */
    int (*accepts)(const tc_args *a, const tc_topo *t, const char **why);
    /* Builds rank a->rank's schedule into s (initialised, empty).  Returns 0
     * or an error; s->err covers allocation failures.  NULL for native. */
    int (*generate)(tc_sched *s, const tc_args *a, const tc_topo *t);
    /* Parameters shared by a family of entries (e.g. the hierarchical
     * allgathers); reach the generator as tc_args.param. */
    const void *param;
    /* "hierarchical", ...; NULL for the flat algorithms (see tc_algo_family). */
    const char *family;
} tc_algo;

/* Entries of a collective, in catalog order: count, and entry i (NULL when
 * out of range). */
int tc_catalog_count(topocoll_coll coll);
const tc_algo *tc_catalog_at(topocoll_coll coll, int i);
const tc_algo *tc_catalog_find(topocoll_coll coll, const char *name);
/* Full check: req flags, then accepts() (with a->param set from al). */
int tc_algo_accepts(const tc_algo *al, const tc_args *a, const tc_topo *t,
                    const char **why);
/* "native", "flat" or the entry's family name. */
const char *tc_algo_family(const tc_algo *al);
/* Run al's generator for a->rank into s (initialised): every consumer
 * (executor cache, verifier, simulator) goes through this. */
int tc_algo_generate(const tc_algo *al, tc_sched *s, const tc_args *a, const tc_topo *t);

/* Each algorithm file defines its entry (declared here, listed in catalog.c). */
extern const tc_algo tc_allgather_linear;
extern const tc_algo tc_allgather_gather_bcast;
extern const tc_algo tc_allgather_ring;
extern const tc_algo tc_allgather_recursive_doubling;
extern const tc_algo tc_allgather_recursive_halving;
extern const tc_algo tc_allgather_bruck;
extern const tc_algo tc_allgather_neighbor_exchange;
extern const tc_algo tc_allgather_native;
/* The other collectives: NULL-terminated lists in src/algo/<coll>/entries.c. */
extern const tc_algo tc_bcast_native, tc_scatter_native, tc_gather_native, tc_reduce_native,
    tc_reduce_scatter_block_native;
extern const tc_algo *const tc_bcast_entries[];
extern const tc_algo *const tc_scatter_entries[];
extern const tc_algo *const tc_gather_entries[];
extern const tc_algo *const tc_reduce_entries[];
extern const tc_algo *const tc_reduce_scatter_block_entries[];

#include "algo/entries_issue4.h"

/* The hierarchical family (src/algo/allgather/hierarchical.c). */
int tc_allgather_hier_count(void);
const tc_algo *tc_allgather_hier_at(int i);

#endif
