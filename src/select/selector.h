/*
 * The selector: how topocoll chooses the algorithm of one call.  MPI-free.
 *
 * A decision walks one ordered list of sources; the first source that
 * decides ends the walk, and the decision records which one it was:
 *
 *   1. forced      TOPOCOLL_<COLL> names an entry: it serves when it accepts
 *                  the call; a declining entry falls through (the reason is
 *                  kept for the explain line and TOPOCOLL_FALLBACK); a name
 *                  the catalog does not know decides with no algorithm (the
 *                  MPI layer raises the error).
 *   2. learned     the learner's settled choice for this call (an input slot,
 *                  NULL when there is none), when it accepts the call.
 *   3. tuning file the rules of TOPOCOLL_TUNING_FILE (select.h).
 *   4. built-in    the built-in rules (default_table.c), unless the file
 *                  replaces them.
 *   5. model       one-node allreduce with the built-in rules in force and a
 *                  memory model given: the memory model (shm_model.h), which
 *                  always decides (native among its choices); otherwise the
 *                  cost model (cost_model.h), which decides only where it
 *                  predicts a gain over native beyond its margin.
 *   6. native      the MPI library's own collective; ends every walk.
 *
 * Each source is one function of the same signature in a table
 * (selector.c); adding a source is one row.  The explain text (TOPOCOLL_EXPLAIN)
 * lists what each passed-over source said ("forced X declined (reason); ",
 * "no rule of the tuning file ... serves the call; ") and ends with the
 * deciding source: "forced by TOPOCOLL_BCAST", "learned: ...",
 * "tuning file PATH rule N (measured): ...", "built-in rule N: ...",
 * "model (...): ...", "no rule served: native fallback".
 *
 * Agreement.  Every rank of a communicator must take the same decision, so
 * every input of a decision must be identical on all of them:
 *   - tc_select_in.a: the collective, communicator size, commutativity,
 *     datatype and whatever tc_algo_accepts reads (the call's arguments,
 *     which MPI requires to match across ranks where they matter);
 *   - tc_select_in.t: the communicator's topology (one view on all ranks);
 *   - tc_select_in.bytes: the selection size; for a collective whose size
 *     differs between ranks (alltoallv, tc_select_size_per_rank) the caller
 *     agrees on one value first (the MPI layer takes the largest);
 *   - tc_select_in.forced: the configuration (the same environment on every
 *     rank);
 *   - tc_select_in.learned: the learner's agreed choice;
 *   - tc_select_in.shm (or shm_get): the memory model's values, agreed by
 *     its calibration;
 *   - the tuning file and the built-in table (the same file on every rank).
 * Nothing in the walk reads the clock, the rank, or per-rank counts.
 */
#ifndef TC_SELECT_SELECTOR_H
#define TC_SELECT_SELECTOR_H

#include <stddef.h>
#include <stdint.h>

#include "algo/catalog.h"
#include "select/select.h"

struct tc_shm_model;

/* The sources of a decision, in the order the selector consults them. */
typedef enum {
    TC_SOURCE_FORCED = 0,   /* TOPOCOLL_<COLL> */
    TC_SOURCE_LEARNED,      /* the learner's settled choice */
    TC_SOURCE_FILE,         /* a rule of the tuning file */
    TC_SOURCE_BUILTIN,      /* a built-in rule */
    TC_SOURCE_MODEL,        /* the cost model, or the one-node memory model */
    TC_SOURCE_NATIVE,       /* nothing else decided: native */
    TC_NSOURCES
} tc_source;

/* "forced", "learned", "tuning file", "built-in", "model", "native". */
const char *tc_source_name(tc_source s);

/* What the forced source found (tc_decision.forced_how). */
typedef enum {
    TC_FORCED_NONE = 0,     /* nothing forced for the collective */
    TC_FORCED_SERVED,       /* the forced entry serves the call */
    TC_FORCED_DECLINED,     /* it declined (forced_reason); a later source decided */
    TC_FORCED_UNKNOWN       /* the name is not in the catalog: algo is NULL */
} tc_forced_how;

/* The inputs of one decision (all identical on every rank: see above). */
typedef struct tc_select_in {
    const tc_args *a;
    const tc_topo *t;
    int64_t bytes;                    /* the selection size (agreed) */
    const char *forced;               /* TOPOCOLL_<COLL>'s name, or NULL */
    const tc_algo *forced_algo;       /* that name in the catalog (NULL: unknown) */
    const tc_algo *learned;           /* the learner's settled choice, or NULL */
    const char *learned_note;         /* its explain text ("3 tried, 0.61x native"), or NULL */
    const struct tc_shm_model *shm;   /* the one-node allreduce memory model, or NULL */
    /* or, where shm is NULL, the model made on demand: called only when the
     * walk reaches the model's source (the same call on every rank, so it
     * may be collective); NULL when it cannot be made */
    const struct tc_shm_model *(*shm_get)(void *arg);
    void *shm_arg;
} tc_select_in;

/* The inputs with the configuration's forced entry of a->coll and nothing
 * learned, no memory model; the caller sets learned/shm where it has them. */
tc_select_in tc_select_in_make(const tc_args *a, const tc_topo *t, int64_t bytes);

/* The decision. */
typedef struct tc_decision {
    const tc_algo *algo;      /* NULL only with forced_how TC_FORCED_UNKNOWN */
    tc_source source;         /* the source that decided */
    const tc_table *table;    /* file and built-in sources: the rule's table, else NULL */
    int rule;                 /* its index there, else -1 */
    tc_forced_how forced_how;
    const char *forced;       /* the forced name, or NULL */
    const char *forced_reason;/* why the forced entry declined ("" otherwise) */
} tc_decision;

/* The explain text under construction: buf NULL when nobody reads it (no
 * text is formatted then). */
typedef struct tc_why {
    char *buf;
    size_t len;
} tc_why;

/* Append to the explain text (nothing when why or why->buf is NULL). */
void tc_why_add(tc_why *why, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* A source: 1 when it decided (*d filled: algo, source and what the source
 * knows), 0 when the walk goes on (its reason appended to why). */
typedef int (*tc_source_fn)(const tc_select_in *in, tc_decision *d, tc_why *why);

/* The decision for a call: the sources walked in order.  why (NULL or
 * why->buf NULL: no text) receives the explain text. */
tc_decision tc_selector_decide(const tc_select_in *in, tc_why *why);

/* The decision of the tables, the model and native alone (nothing forced,
 * nothing learned, no memory model): what topocoll-info shows.  why:
 * whylen bytes of explain text, or NULL. */
tc_decision tc_select_decide(const tc_args *a, const tc_topo *t, int64_t bytes, char *why,
                             size_t whylen);

/* The forced entry of coll (TOPOCOLL_<COLL>), resolved once per
 * configuration and cached: NULL when none is forced; *unknown set when a
 * name is given that the catalog does not know. */
const tc_algo *tc_forced_algo(topocoll_coll coll, int *unknown);

/* How many of the cost model's ranked entries tc_select_candidates takes. */
#define TC_SELECT_MODEL_FEW 3

/* The learner's candidates for a call, in this order: the rules' choice
 * (the first accepting candidate of the rule that serves the call in the
 * tuning file's layer, then in the built-in layer, each followed by its
 * rule's other accepting candidates), then the cost model's best
 * TC_SELECT_MODEL_FEW (tc_model_rank: variants, the families' parameters
 * included; not for a size that differs between ranks), then the one-node
 * memory model's pick where it applies (with the default values:
 * tc_select_candidates_in takes calibrated ones), native last and always
 * there (its slot is kept when max is reached).  Duplicates are dropped,
 * only entries that accept the call are listed.  Returns the count (<= max;
 * 0 when max < 1).  MPI-free, deterministic: the same inputs give the same
 * list on every rank (bytes agreed as for a decision). */
int tc_select_candidates(const tc_args *a, const tc_topo *t, int64_t bytes, const tc_algo **out,
                         int max);
/* The same from a decision's inputs (in->shm: the memory model's values;
 * forced and learned are not read). */
int tc_select_candidates_in(const tc_select_in *in, const tc_algo **out, int max);

#endif
