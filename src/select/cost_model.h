/*
 * The cost model of the selection (docs/selection.md, "The cost model").
 *
 * Three levels of distance between two ranks: the same socket, the same
 * node (another socket), another node.  Per level a latency alpha (seconds
 * per message) and an inverse bandwidth beta (seconds per byte); one gamma
 * (seconds per reduced byte: a core's reduction rate does not depend on
 * where the operands came from).  The structure follows the hierarchical
 * designs of Kandalla, Subramoni, Santhanaraman, Koop, Panda, "Designing
 * Multi-Leader-Based Allgather Algorithms for Multi-Core Clusters" (2009,
 * Table 1: intra-node aggregation, inter-leader exchange, distribution) and
 * the flat costs of Jain, Lau, Kale, "Collectives on Two-tier Direct
 * Networks" (2012, Table 2: (p-1)/p n beta for allgather, 2 (p-1)/p n beta
 * for broadcast, (p-1)/p (2 n beta + n gamma) for reduce; and the two-tier
 * costs of the same table for the two-tier entries).
 *
 * A prediction walks the algorithm's steps on the call's topology: a step
 * costs alpha + bytes x beta of the farthest level any of its pairs crosses,
 * and the inter-node term is multiplied by the number of ranks of one node
 * that leave the node in that step (they share the node's link).  Native is
 * predicted as the best of the flat algorithms the MPI libraries implement
 * (their own selection is assumed to be good); the model names an entry only
 * where its predicted time is below native's divided by the margin (1.3 by
 * default): where it is unsure, native stays.  Every collective has
 * formulas (allgatherv and alltoallv at regular counts); entries without
 * one (on one node: the shared-memory and hierarchical ones; composed
 * entries) are never the model's choice.
 *
 * MPI-free; the parameters come from the built-in values or from a tuning
 * file's "_model" section (topocoll-tune fits them).
 */
#ifndef TC_SELECT_COST_MODEL_H
#define TC_SELECT_COST_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "algo/catalog.h"

enum { TC_LVL_SOCKET = 0, TC_LVL_NODE = 1, TC_LVL_NET = 2, TC_NLEVELS = 3 };

typedef struct tc_model_params {
    double alpha[TC_NLEVELS];   /* seconds per message */
    double beta[TC_NLEVELS];    /* seconds per byte */
    double gamma;               /* seconds per reduced byte */
    double margin;              /* predicted native / entry must exceed this (> 1) */
    const char *source;         /* "built-in" or the tuning file's name */
} tc_model_params;

/* The level names as in the tuning file: "socket", "node", "network". */
extern const char *const tc_level_names[TC_NLEVELS];

/* The built-in parameters (conservative; docs/selection.md says where they
 * come from). */
const tc_model_params *tc_model_builtin(void);

/* Predicted seconds of al for the call (a: rank 0's arguments; bytes as
 * the selection counts them); negative when al has no formula. */
double tc_model_predict(const tc_model_params *m, const tc_algo *al, const tc_args *a,
                        const tc_topo *t, int64_t bytes);
/* Predicted seconds of native: the best flat algorithm the MPI libraries
 * have for the collective; negative when the collective has no formula. */
double tc_model_native(const tc_model_params *m, const tc_args *a, const tc_topo *t, int64_t bytes);

typedef struct tc_model_pick {
    const tc_algo *algo;        /* NULL: native (no entry beats it by the margin) */
    double native_s, algo_s;    /* predictions (algo_s: the best entry's, even when not taken) */
    const char *best;           /* the best predicted entry's name ("" when none) */
} tc_model_pick;

/* The model's choice for the call, without memo. */
tc_model_pick tc_model_choose(const tc_model_params *m, const tc_args *a, const tc_topo *t,
                              int64_t bytes);

/* Entries/variants of a->coll that accept the call (tc_algo_accepts) and
 * have a prediction, ranked by predicted time, fastest first; ties keep the
 * catalog's variant order (tc_catalog_variant_at), so the list is the same on
 * every rank given the same inputs.  Every variant is considered, the
 * families' parameter combinations included; native (no schedule) is not
 * among them.  Writes at most max to out[] and pred_s[] (pred_s may be NULL)
 * and returns how many.  MPI-free; the formulas run under tc_fp_hold. */
int tc_model_rank(const tc_model_params *m, const tc_args *a, const tc_topo *t, int64_t bytes,
                  const tc_algo **out, double *pred_s, int max);

/* The same, memoised with the topology t (a view of it: t describes one
 * communicator, the same on all of its ranks) per (parameters, collective,
 * communicator size, node_shm, commutative, cma, size class: bytes rounded
 * up to a power of two, at which the model is evaluated).  The entry is
 * re-checked with tc_algo_accepts on every call (declines give native).
 * Thread-safe. */
tc_model_pick tc_model_choose_memo(const tc_model_params *m, const tc_args *a, const tc_topo *t,
                                   int64_t bytes);

/* Forget every memo (the parameters changed: tuning file reloaded, tests). */
void tc_model_memo_clear(void);

#endif
