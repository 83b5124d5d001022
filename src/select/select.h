/*
 * The rule tables of the selection (the tuning file's and the built-in one;
 * the selector that consults them is selector.h).  A rule maps (collective, process count range,
 * power-of-two only, node count range, bytes-per-rank range) to an ordered list of candidate
 * algorithms; the first rule that matches gives the candidates, the first
 * candidate that accepts the arguments serves the call.  Candidates that
 * decline are logged; when all decline, the next matching rule is tried,
 * and "native" ends every search.  The built-in table is default_table.c;
 * TOPOCOLL_TUNING_FILE (a JSON file, tuning.c) is a layer over it: the
 * file's rules first, then, where no rule of the file serves the call, the
 * built-in rules (selector.h gives the whole order of sources).  A file with
 * "replace_builtin": true replaces the built-in table instead.
 */
#ifndef TC_SELECT_H
#define TC_SELECT_H

#include <stdint.h>
#include "algo/catalog.h"

#define TC_RULE_MAX_CANDIDATES 8

typedef struct tc_rule {
    topocoll_coll coll;
    int min_np, max_np;          /* inclusive; max_np 0 = no bound */
    int pow2_only;
    int min_nodes, max_nodes;    /* inclusive; 0 = no bound */
    int64_t min_bytes, max_bytes;/* per-rank bytes, [min, max); max 0 = no bound */
    const char *candidates[TC_RULE_MAX_CANDIDATES]; /* NULL-terminated */
    const char *note;            /* why (measurement behind it) */
    /* Where the rule comes from: "built-in", "measured" (topocoll-tune),
     * "model"; NULL: the table's kind.  Measured rules keep the winner's
     * ratio to native's median (the worst over the sizes the rule covers)
     * and its spread (q25 and q75 over native's median); ratio 0: unknown. */
    const char *origin;
    double ratio, spread_lo, spread_hi;
    /* The machines the rule was measured for (tc_load in coll/coll.h):
     * TC_LOAD_ANY (0), TC_LOAD_OVERSUBSCRIBED or TC_LOAD_DEDICATED; a rule
     * with a condition serves only calls whose tc_args.load is the same
     * or unknown. */
    int load;
    /* 1: the rule serves only where the topology's nodes are the machines the
     * job runs on (detected), not virtual nodes of a spec on one machine:
     * for rules measured where network links were the bottleneck, which a
     * virtual topology does not have. */
    int real_nodes;
} tc_rule;

typedef struct tc_table {
    const tc_rule *rules;
    int nrules;
    const char *source;          /* "built-in" or the file name */
    /* The cost model's parameters (cost_model.h): the tuning file's
     * "_model" section; NULL: the built-in ones.  The model serves the calls
     * that no rule matches, before native. */
    const struct tc_model_params *model;
    /* A tuning file's "replace_builtin": true: its rules alone (no built-in
     * layer beneath them). */
    int replace_builtin;
} tc_table;

const tc_table *tc_default_table(void);
/* Load a JSON table; on error returns NULL and a message in err. */
tc_table *tc_table_load(const char *path, char *err, size_t errlen);
void tc_table_free(tc_table *t);

/* The first layer in force: the tuning file when set and valid, else the
 * built-in table. */
const tc_table *tc_select_table(void);
/* The tuning file's table, or NULL when none is loaded. */
const tc_table *tc_select_file(void);
/* Whether the built-in rules are consulted (no file, or a file that does
 * not replace them). */
int tc_select_builtin_in_force(void);

/* The model parameters of a table (its "_model" section or the built-in ones). */
const struct tc_model_params *tc_select_model(const tc_table *tab);

/* Release the loaded tuning table (at MPI_Finalize). */
void tc_select_finalize(void);

/* The rules of a table: whether rule r matches a call (everything but its
 * load condition, tc_rule_load_ok), and its candidate k in the catalog
 * (NULL: not in it; looked up once per table in force). */
int tc_rule_matches(const tc_rule *r, const tc_args *a, const tc_topo *t, int64_t bytes);
const tc_algo *tc_rule_candidate(const tc_table *tab, int rule, int k);

/* The decision of the tables, the model and native (selector.h: nothing
 * forced, nothing learned); `why` (NULL when nobody reads it) receives the
 * explain text; *rule (when not NULL) the index of the rule that served in
 * its table, -1 when the model or native decided. */
const tc_algo *tc_select(const tc_args *a, const tc_topo *t, int64_t bytes,
                         char *why, size_t whylen);
const tc_algo *tc_select_rule(const tc_args *a, const tc_topo *t, int64_t bytes,
                              char *why, size_t whylen, int *rule);

/* Agreement (docs/design.md): every input of a choice is the same on all
 * ranks of the communicator.  The selection size of a collective with
 * per-peer counts on both sides (alltoallv: each rank's own mean part) is
 * not: tc_select_size_per_rank says so, the cost model is not asked for
 * it, and where a rule in force bounds its bytes (tc_select_reads_size)
 * the caller agrees on one size first (the largest over the ranks). */
int tc_select_size_per_rank(topocoll_coll coll);
int tc_select_reads_size(topocoll_coll coll);

/* "oversubscribed", "dedicated", or "any" for TC_LOAD_ANY (an unknown call load). */
const char *tc_load_name(int load);
/* Whether rule r may serve a call of load `load` (its condition holds). */
int tc_rule_load_ok(const tc_rule *r, int load);

#endif
