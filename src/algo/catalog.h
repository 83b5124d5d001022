/*
 * The catalog: every algorithm of every collective.  Selection, the public
 * API, the benchmark, the tests, the verifier, the simulator and the docs all
 * read it.
 *
 * Declared in one place, src/algo/catalog_tables.c: one table per
 * collective, whose rows are either one algorithm (a tc_algo defined in the
 * algorithm's file) or one family (a tc_family: named parameters with their
 * value sets, defined in the family's file).
 *
 * Two levels.  An ENTRY is one row: one flat algorithm, or one family with
 * its tunables (the family's parameters, their values, defaults and
 * validity rule).  A VARIANT is an entry with concrete parameter values: a
 * flat algorithm is its own single variant, a family has one variant per
 * valid combination.  A variant is a tc_algo (generator and parameter
 * values): what the executor, the verifier and the simulator run.
 *   - tc_catalog_entry_count / tc_catalog_entry_at: the entries, in table
 *     order (what users are shown: the public API's topocoll_algorithm_*,
 *     topocoll-info catalog, the benchmark's columns); an entry's `def` is
 *     the variant its bare name runs (a family's defaults).
 *   - tc_catalog_variant_count / tc_catalog_variant_at: every variant, entry
 *     by entry, a family's in its enumeration order (what behaviour sweeps,
 *     selection, the tuner and the consistency check enumerate);
 *     tc_catalog_entry_of(variant) goes back up.
 *
 * Names.  Every variant has a canonical name: the algorithm's name, or for a
 * family variant "family:key=value,..." with every parameter in declared
 * order (e.g. "hierarchical:leaders=1,agg=shm,x=rd,dist=shm",
 * "twotier:units=sockets").  A family variant may also have a short alias
 * ("h1_shm_rd_shm", "twotier_sockets"); tc_algo.name is the alias where one
 * exists (the name lists, bench columns, explain lines, tuning files and the
 * docs show), else the canonical name.  tc_catalog_find accepts either, and
 * also a family name with parameters in any order, missing ones taking their
 * defaults ("hierarchical:dist=shm,agg=shm"), a bare entry name
 * ("hierarchical": the family's defaults), and a family's old spellings of
 * values (tc_family.legacy); it always returns a variant.
 *
 * Domains.  An entry's requirement flags (TC_REQ_*) are its whole domain:
 * it serves exactly the cases that meet every flag, so a consumer predicts
 * from the declaration alone whether an entry serves a case, and a decline
 * always names the first unmet requirement (tc_req_reason).
 */
#ifndef TC_CATALOG_H
#define TC_CATALOG_H

#include <stddef.h>
#include <stdint.h>
#include "topocoll_types.h"
#include "coll/coll.h"
#include "sched/sched.h"
#include "topo/topo.h"

/* Requirement flags: the domain of an entry (and TC_REQ_NATIVE: no schedule,
 * the MPI library's own collective). */
enum {
    TC_REQ_NONE = 0,
    TC_REQ_EVEN_P = 1u << 0,        /* even process count */
    TC_REQ_POW2_P = 1u << 1,        /* power-of-two process count */
    TC_REQ_NATIVE = 1u << 2,        /* calls the MPI library's own collective */
    TC_REQ_COMMUTATIVE = 1u << 3,   /* commutative reduction operation */
    TC_REQ_NODE_SHM = 1u << 4,      /* the ranks of a node share memory (tc_args.node_shm) */
    TC_REQ_EQUAL_NODES = 1u << 6,   /* every node of the topology has as many ranks
                                       (checked by tc_algo_accepts, which has the topology) */
    TC_REQ_ONE_NODE = 1u << 7,      /* every rank on one node (the topology's node count;
                                       checked by tc_algo_accepts) */
    TC_REQ_EQUAL_BLOCKS = 1u << 8,  /* per-peer receive counts (allgatherv) all equal:
                                       the generator addresses scratch by equal blocks */
    TC_REQ_NODE_COUNTS = 1u << 9,   /* not a domain flag: the generator reads the count rows
                                       of the whole node (tc_args.node_sc/node_rc), which
                                       the consumer gathers node-locally first (the MPI
                                       layer: src/api/node_counts.c, in bytes) */
    TC_REQ_CMA = 1u << 10,          /* single copy: ranks read node peers' buffers
                                       (tc_args.cma) */
    TC_REQ_INLINE = 1u << 11,       /* not a domain flag: the schedule's node-shared memory is
                                       the inline lines (sched.h's PUBLISH / COLLECT), which
                                       the executor makes, not the SHM window */
    TC_REQ_ROOT_COUNTS = 1u << 12,  /* not a domain flag: every rank's generator reads the
                                       root's vector of counts (gatherv, scatterv: tc_args.v),
                                       which the consumer spreads from the root first
                                       (src/algo/rootedv.h) */
    TC_REQ_BLOCK_NODES = 1u << 13   /* every node's ranks consecutive in rank order (a block
                                       mapping; checked by tc_algo_accepts, which has the
                                       topology): prefix reductions by node */
};
#define TC_REQ_DOMAIN (TC_REQ_EVEN_P | TC_REQ_POW2_P | TC_REQ_COMMUTATIVE | TC_REQ_NODE_SHM | \
                       TC_REQ_EQUAL_NODES | TC_REQ_ONE_NODE | TC_REQ_EQUAL_BLOCKS | TC_REQ_CMA | \
                       TC_REQ_BLOCK_NODES)

/* The domain flags of req that case a does not meet (0: inside the domain;
 * the flags that need the topology are tc_algo_accepts's). */
unsigned tc_req_unmet(unsigned req, const tc_args *a);
/* Why a case outside one requirement is declined ("needs an even process
 * count"); "" for a flag that is not a domain requirement. */
const char *tc_req_reason(unsigned flag);
/* Human text of the domain flags of req ("even p, commutative operation";
 * "" when none) into buf; returns buf. */
const char *tc_req_text(unsigned req, char *buf, size_t len);

typedef int (*tc_generate_fn)(tc_sched *s, const tc_args *a, const tc_topo *t);

/* Shift form: a schedule in which every rank does the same thing relative
 * to itself, told once instead of generated p times (the simulator's fast
 * path for the O(p^2)-message algorithms).  Round by round, in order: rank r
 * sends cnt[i] elements to rank (r + shift[i]) mod p for every i and every
 * r, and reduces `reduced` elements in `nreduce` reductions; the round
 * occurs `repeat` times in a row.  A round with more sends than one call
 * holds continues in the next call (cont = 1, repeat 1).  The description
 * must equal what the generator produces, send by send and reduction by
 * reduction, for every rank (tests/sim compares the simulator's results
 * both ways); copies, receives and the buffers' offsets are left out. */
typedef struct tc_shift_round {
    int nsend;                   /* entries of shift and cnt */
    const int *shift;            /* 0 < shift < p */
    const int64_t *cnt;          /* > 0 */
    int nreduce;
    int64_t reduced;             /* elements, summed over the round's reductions */
    int repeat;                  /* >= 1 */
    int cont;                    /* the next call adds sends to this round */
} tc_shift_round;
typedef int (*tc_shift_sink)(void *ctx, const tc_shift_round *rd);
/* Tells the rounds to sink (which returns 0 or an error to pass on) and
 * returns 0; or returns TC_SHIFT_NONE, before calling sink, when this case
 * has no shift form.  With a prefix (tc_algo.shift_prefix), every rank's
 * schedule is the prefix generator's rounds for that rank, followed by the
 * shift rounds: rank r's first shift round has the index of r's number of
 * prefix rounds. */
typedef int (*tc_shift_fn)(const tc_args *a, const tc_topo *t, tc_shift_sink sink, void *ctx);
#define TC_SHIFT_NONE (-1)

/* Cost.  Levels of distance between two ranks: the same socket, the same
 * node (another socket), another node. */
enum { TC_LVL_SOCKET = 0, TC_LVL_NODE = 1, TC_LVL_NET = 2, TC_NLEVELS = 3 };

/* What one call of a variant costs, before pricing (the cost model,
 * src/select/cost_model.h, prices it with alpha, beta and gamma per level):
 * the critical path's messages and bytes per level, its reduced bytes and
 * its node-memory bytes, and the traffic the schedule sends across each
 * level summed over all ranks (tests/unit/test_cost_check.c compares it
 * with the generated schedules). */
typedef struct tc_cost {
    double msgs[TC_NLEVELS];     /* messages on the critical path, per level */
    double bytes[TC_NLEVELS];    /* their bytes; a network step's bytes times the ranks of
                                    one node that send out of it in that step (they share
                                    the node's link) */
    double reduced;              /* bytes reduced on the critical path (gamma) */
    double mem;                  /* node-memory bytes on the critical path: local copies,
                                    shared-segment traffic (priced at the socket's beta) */
    double total[TC_NLEVELS];    /* bytes sent across each level, all ranks together */
    int total_approx;            /* total[] is an estimate, not the schedule's exact count
                                    (the check allows a stated tolerance) */
} tc_cost;

struct tc_algo;
/* Fills c (zeroed by the caller) for variant al on the call (a: rank 0's
 * arguments, t: its topology, n: the selection's bytes); returns 0, or -1
 * where the formula does not cover the case (the model then has no
 * prediction). */
typedef int (*tc_cost_fn)(const struct tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c);

typedef struct tc_algo {
    topocoll_coll coll;
    const char *name;            /* listed name: the short alias where one exists */
    const char *desc;            /* one line */
    const char *requires;        /* text of req's domain flags; "" when none (the catalog fills it) */
    unsigned req;                /* TC_REQ_*: the whole domain */
    /* Builds rank a->rank's schedule into s (initialised, empty).  Returns 0
     * or an error; s->err covers allocation failures.  NULL for native. */
    tc_generate_fn generate;
    /* A family instance's parameter values (const int[], one value index per
     * parameter in declared order); reach the generator as tc_args.param. */
    const void *param;
    /* "hierarchical", "twotier"; NULL for the flat algorithms (see tc_algo_family). */
    const char *family;
    const char *canonical;       /* canonical name (the catalog fills it) */
    const char *source;          /* source file, "src/algo/..." (__FILE__ is trimmed) */
    tc_shift_fn shift;           /* optional: the schedule in shift form (NULL: none) */
    tc_generate_fn shift_prefix; /* optional: the rounds before the shift form (NULL: none) */
    /* The cost of a call (NULL: none; the model never predicts such an
     * entry, and the cost check lists it).  A family's variants take the
     * family's. */
    tc_cost_fn cost;
} tc_algo;

/* One named parameter of a family: its values, and the default. */
#define TC_FAMILY_MAXPARAMS 4
typedef struct tc_param_def {
    const char *key;             /* "leaders" */
    const char *const *values;   /* NULL-terminated value names */
    int def;                     /* index of the default value */
} tc_param_def;

/* An old spelling of a parameter value that names keep using: "key=value"
 * in a name reads as the parameter list `means` (node=cma as
 * "node=shm,copy=cma"). */
typedef struct tc_legacy_value {
    const char *key, *value, *means;
} tc_legacy_value;

/* What a family says about one instance (filled by tc_family.describe). */
typedef struct tc_instance_text {
    char alias[40];              /* short alias; "" for none */
    char desc[200];
    const char *source;          /* preset to the family's source; may be changed */
} tc_instance_text;

typedef struct tc_family tc_family;
struct tc_family {
    topocoll_coll coll;
    const char *name;            /* the family name, prefix of canonical names */
    const char *summary;         /* one line for the docs */
    const char *source;
    int nparams;
    const tc_param_def *params;
    /* Enumeration order (parameter indices, outermost first); NULL: declared order. */
    const int *order;
    /* NULL when every combination is valid; else NULL or why v is not. */
    const char *(*invalid)(const int *v);
    /* The validity rule in words for the docs ("" when every combination is valid). */
    const char *rule;
    /* Old spellings of values still accepted in names: NULL, or rows ending
     * in a row of NULLs. */
    const tc_legacy_value *legacy;
    void (*describe)(const tc_family *f, const int *v, tc_instance_text *out);
    unsigned req;                            /* TC_REQ_* of every instance, */
    unsigned (*req_of)(const int *v);        /* plus these (NULL: none) */
    tc_generate_fn generate;
    tc_cost_fn cost;                         /* every instance's cost (NULL: none) */
    /* A former family name kept as an alias (NULL: none): "former:k=v,..."
     * names this family with former_params ("key=value,...") and k=v. */
    const char *former, *former_params;
};

/* One entry: a flat algorithm or a family (see the header). */
typedef struct tc_entry {
    const char *name;            /* the algorithm's listed name, or the family's name */
    const char *desc;            /* the algorithm's description, or the family's summary */
    const tc_family *family;     /* NULL for a flat algorithm */
    const tc_algo *def;          /* the variant the bare name runs (a family's defaults) */
    const char *tunables;        /* "key=v1|v2 (default v1), ..."; "" for a flat algorithm */
    int first, nvariants;        /* its variants: tc_catalog_variant_at(coll, first + k) */
} tc_entry;

/* Entries of a collective, in table order: count, and entry i (NULL when
 * out of range). */
int tc_catalog_entry_count(topocoll_coll coll);
const tc_entry *tc_catalog_entry_at(topocoll_coll coll, int i);
/* Variants of a collective, entry by entry: count, and variant i (NULL when
 * out of range). */
int tc_catalog_variant_count(topocoll_coll coll);
const tc_algo *tc_catalog_variant_at(topocoll_coll coll, int i);
/* Index of a variant among its collective's variants, and the entry it
 * belongs to (-1 / NULL for a tc_algo that is no variant of the catalog). */
int tc_catalog_variant_index(const tc_algo *variant);
const tc_entry *tc_catalog_entry_of(const tc_algo *variant);
/* The variant named by a listed name (alias), canonical name, family name
 * with parameters (any order, defaults) or bare entry name; NULL when not
 * found. */
const tc_algo *tc_catalog_find(topocoll_coll coll, const char *name);
/* tc_catalog_find, saying why a name is not found into why (may be NULL). */
const tc_algo *tc_catalog_resolve(topocoll_coll coll, const char *name, char *why, size_t len);

/* Length of the first name of a comma-separated list of algorithm names,
 * where a family name's parameters ("hierarchical:leaders=1,agg=shm") also
 * use commas: a comma followed by "key=" inside a name with ':' continues it. */
size_t tc_catalog_list_item(const char *list);
/* The families of a collective (for the docs): count and family i. */
int tc_catalog_family_count(topocoll_coll coll);
const tc_family *tc_catalog_family_at(topocoll_coll coll, int i);

/* A source path as listed: __FILE__ (absolute in a CMake build) from its
 * last "/src/" on ("src/algo/..."); a pointer into file. */
const char *tc_catalog_source(const char *file);

/* Domain check: 1 when a meets al's requirements, else 0 with *why set to
 * the first unmet requirement's reason. */
int tc_algo_accepts(const tc_algo *al, const tc_args *a, const tc_topo *t,
                    const char **why);
/* "native", "flat" or the entry's family name. */
const char *tc_algo_family(const tc_algo *al);
/* Run al's generator for a->rank into s (initialised): every consumer
 * (executor cache, verifier, simulator) goes through this. */
int tc_algo_generate(const tc_algo *al, tc_sched *s, const tc_args *a, const tc_topo *t);

/* The rows of the per-collective tables (src/algo/catalog_tables.c). */
typedef struct tc_catalog_row {
    const tc_algo *algo;         /* one algorithm, or */
    const tc_family *family;     /* one family */
} tc_catalog_row;

/* Table of collective coll, terminated by a row of two NULLs. */
const tc_catalog_row *tc_catalog_table(topocoll_coll coll);

#endif
