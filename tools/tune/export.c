/*
 * topocoll-tune: the tuned table for the MPI libraries' own selection.  No MPI.
 *
 * Each topocoll winner maps to the library's nearest algorithm (ring ->
 * ring, recursive_doubling -> recursive doubling, bruck -> Bruck, binomial
 * -> binomial, ...); native, and winners the library has no counterpart of
 * (the hierarchical and two-tier schedules), leave the choice to the
 * library: Open MPI's algorithm 0 (its fixed decision), MPICH's own
 * selection tree (from --mpich-base).
 *
 * Open MPI 4.1 coll_tuned dynamic rules (coll_tuned_dynamic_rules_filename):
 *   number of collectives; per collective: its id (coll_base_functions.h),
 *   number of communicator sizes; per size: the size, the number of message
 *   rules; per rule: message size (from which it holds), algorithm id,
 *   fan-in/out (0: default), segment size (0); above the largest size
 *   tuned (the last rule's bound), algorithm 0 again.  A communicator-size rule holds
 *   from its size up to the next one, so every tuned size is followed by one
 *   of size + 1 that hands back to the fixed decision.  Message sizes are
 *   Open MPI's: bytes per rank x p for allgather, gather, scatter, alltoall
 *   and reduce_scatter_block, bytes per rank for the others.
 *
 * MPICH 4.0 (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE): the file replaces
 * MPICH's whole selection, and a collective missing from it is an internal
 * error at its first call, so the export is MPICH's own selection (the base)
 * in which the "comm_type=intra" tree of every tuned collective becomes
 *   "comm_size<N": base tree, "comm_size<=N": { "<size key><hi": leaf, ...,
 *   "<size key>=any": base tree }, ..., "comm_size=any": base tree
 * with leaves "algorithm=MPIR_...", or the base tree where topocoll says
 * native.  Size keys are MPICH's (avg_msg_size: bytes per rank;
 * total_msg_size: bytes per rank x p).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune.h"

typedef struct lib_coll {
    const char *coll;        /* topocoll's name */
    int ompi_id;             /* coll_base_functions.h COLLTYPE, -1: none */
    const char *mpich;       /* "collective=..." key, NULL: none */
    const char *mpich_key;   /* avg_msg_size or total_msg_size */
    int times_p;             /* the library's size is bytes per rank x p */
} lib_coll;

static const lib_coll lib_colls[] = {
    { "allgather", 0, "collective=allgather", "total_msg_size", 1 },
    { "allreduce", 2, "collective=allreduce", "avg_msg_size", 0 },
    { "alltoall", 3, "collective=alltoall", "avg_msg_size", 1 },
    { "bcast", 7, "collective=bcast", "avg_msg_size", 0 },
    { "gather", 9, "collective=gather", "total_msg_size", 1 },
    { "reduce", 11, "collective=reduce", "avg_msg_size", 0 },
    { "reduce_scatter_block", 13, "collective=reduce_scatter_block", "total_msg_size", 1 },
    { "scatter", 15, "collective=scatter", "total_msg_size", 1 },
};

typedef struct lib_algo {
    const char *coll, *algo;
    int ompi;                /* Open MPI 4.1 algorithm id, 0: none */
    const char *mpich;       /* MPICH 4.0 MPIR algorithm, NULL: none */
} lib_algo;

/* Ids from `ompi_info --param coll tuned --level 9 --all` (Open MPI 4.1). */
static const lib_algo lib_algos[] = {
    { "allgather", "gather_bcast", 1, NULL },      /* Open MPI's "linear": gather, then bcast */
    { "allgather", "bruck", 2, "MPIR_Allgather_intra_brucks" },
    { "allgather", "recursive_doubling", 3, "MPIR_Allgather_intra_recursive_doubling" },
    { "allgather", "ring", 4, "MPIR_Allgather_intra_ring" },
    { "allgather", "neighbor_exchange", 5, NULL },
    { "allreduce", "linear", 1, NULL },
    { "allreduce", "recursive_doubling", 3, "MPIR_Allreduce_intra_recursive_doubling" },
    { "allreduce", "ring", 4, "MPIR_Allreduce_intra_ring" },
    { "allreduce", "reduce_scatter_allgather", 6, "MPIR_Allreduce_intra_reduce_scatter_allgather" },
    { "allreduce", "reduce_bcast", 2, NULL },       /* Open MPI's "nonoverlapping": reduce, then bcast */
    { "alltoall", "linear", 1, "MPIR_Alltoall_intra_scattered" },
    { "alltoall", "pairwise", 2, "MPIR_Alltoall_intra_pairwise" },
    { "alltoall", "bruck", 3, "MPIR_Alltoall_intra_brucks" },
    { "bcast", "linear", 1, NULL },
    { "bcast", "binomial", 6, "MPIR_Bcast_intra_binomial" },
    { "bcast", "scatter_allgather", 9, "MPIR_Bcast_intra_scatter_ring_allgather" },
    { "gather", "linear", 1, NULL },
    { "gather", "binomial", 2, "MPIR_Gather_intra_binomial" },
    { "reduce", "linear", 1, NULL },
    { "reduce", "binomial", 5, "MPIR_Reduce_intra_binomial" },
    { "reduce", "rabenseifner", 7, "MPIR_Reduce_intra_reduce_scatter_gather" },
    { "reduce_scatter_block", "linear", 1, NULL },
    { "reduce_scatter_block", "recursive_doubling", 2, NULL },
    { "reduce_scatter_block", "recursive_halving", 3, "MPIR_Reduce_scatter_block_intra_recursive_halving" },
    { "reduce_scatter_block", "pairwise", 0, "MPIR_Reduce_scatter_block_intra_pairwise" },
    { "scatter", "linear", 1, NULL },
    { "scatter", "binomial", 2, "MPIR_Scatter_intra_binomial" },
};

static const lib_coll *lib_coll_of(const char *coll)
{
    for (size_t i = 0; i < sizeof lib_colls / sizeof lib_colls[0]; i++)
        if (strcmp(lib_colls[i].coll, coll) == 0) return &lib_colls[i];
    return NULL;
}

static const lib_algo *lib_algo_of(const char *coll, const char *algo)
{
    for (size_t i = 0; algo && i < sizeof lib_algos / sizeof lib_algos[0]; i++)
        if (strcmp(lib_algos[i].coll, coll) == 0 && strcmp(lib_algos[i].algo, algo) == 0) return &lib_algos[i];
    return NULL;
}

static json_int_t range_at(json_t *rule, const char *key, int i)
{
    return json_integer_value(json_array_get(json_object_get(rule, key), (size_t)i));
}

static const char *winner(json_t *rule)
{
    return json_string_value(json_array_get(json_object_get(rule, "algorithms"), 0));
}

/* The distinct process counts of a collective's rules (first layout per
 * count: the libraries cannot tell node counts apart), ascending. */
static int rule_nps(json_t *rules, int *nps, int max)
{
    int n = 0;
    size_t i;
    json_t *r;
    json_array_foreach(rules, i, r) {
        int np = (int)range_at(r, "np", 0), dup = 0;
        for (int k = 0; k < n; k++) dup |= nps[k] == np;
        if (!dup && np > 0 && np == (int)range_at(r, "np", 1) && n < max) nps[n++] = np;
    }
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (nps[b] < nps[a]) { int x = nps[a]; nps[a] = nps[b]; nps[b] = x; }
    return n;
}

/* The rules of (coll, np) of the first layout measured at np, in byte order. */
static int rules_at(json_t *rules, int np, json_t **out, int max)
{
    int n = 0;
    json_int_t nodes = -1;
    size_t i;
    json_t *r;
    json_array_foreach(rules, i, r) {
        if (range_at(r, "np", 0) != np) continue;
        if (nodes < 0) nodes = range_at(r, "nodes", 0);
        if (range_at(r, "nodes", 0) == nodes && n < max) out[n++] = r;
    }
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (range_at(out[b], "bytes", 0) < range_at(out[a], "bytes", 0)) {
                json_t *x = out[a];
                out[a] = out[b];
                out[b] = x;
            }
    return n;
}

/* ---- Open MPI ---------------------------------------------------------------------- */

static void ompi_comm_rules(FILE *f, const lib_coll *lc, json_t *rules, int np, int close)
{
    json_t *at[256];
    int n = rules_at(rules, np, at, 256), ids[256], m = 0;
    long long from[256];
    for (int k = 0; k < n; k++) {
        const lib_algo *la = lib_algo_of(lc->coll, winner(at[k]));
        int id = la ? la->ompi : 0;
        if (m && ids[m - 1] == id) continue;
        ids[m] = id;
        from[m] = m == 0 ? 0 : (long long)range_at(at[k], "bytes", 0) * (lc->times_p ? np : 1);
        m++;
    }
    /* above the measured grid (the last rule's bound): back to the fixed decision */
    long long end = n ? (long long)range_at(at[n - 1], "bytes", 1) * (lc->times_p ? np : 1) : 0;
    if (end > 0 && m > 0 && ids[m - 1] != 0 && m < 256) {
        ids[m] = 0;
        from[m++] = end;
    }
    fprintf(f, "%d  # communicator size\n%d  # message sizes\n", np, m);
    for (int k = 0; k < m; k++)
        fprintf(f, "%lld %d 0 0  # from %lld bytes: %s\n", from[k], ids[k], from[k],
                ids[k] ? "tuned algorithm" : "Open MPI's fixed decision");
    /* from np + 1 on: back to the fixed decision */
    if (close) fprintf(f, "%d  # communicator size (untuned from here)\n1\n0 0 0 0\n", np + 1);
}

int tune_export_ompi(json_t *table, const char *path, char *err, size_t len)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, len, "cannot write %s", path);
        return -1;
    }
    int ncoll = 0, nps[64];
    const char *coll;
    json_t *rules;
    json_object_foreach(table, coll, rules)
        if (coll[0] != '_' && lib_coll_of(coll) && lib_coll_of(coll)->ompi_id >= 0 && rule_nps(rules, nps, 64) > 0)
            ncoll++;
    fprintf(f, "%d  # collectives (Open MPI coll_tuned dynamic rules, written by %s)\n", ncoll, TUNE_PROG);
    json_object_foreach(table, coll, rules) {
        const lib_coll *lc = coll[0] == '_' ? NULL : lib_coll_of(coll);
        int n = lc ? rule_nps(rules, nps, 64) : 0;
        if (!lc || lc->ompi_id < 0 || n == 0) continue;
        /* np + 1 closes each size unless the next tuned size is np + 1 */
        int sizes = 0;
        for (int k = 0; k < n; k++) sizes += 1 + (k + 1 == n || nps[k + 1] != nps[k] + 1);
        fprintf(f, "%d  # %s\n%d  # communicator sizes\n", lc->ompi_id, coll, sizes);
        for (int k = 0; k < n; k++) ompi_comm_rules(f, lc, rules, nps[k], k + 1 == n || nps[k + 1] != nps[k] + 1);
    }
    if (fclose(f) != 0) {
        snprintf(err, len, "writing %s failed", path);
        return -1;
    }
    return 0;
}

/* ---- MPICH ------------------------------------------------------------------------- */

/* A leaf: MPICH's algorithm for the winner, or a copy of the base tree. */
static json_t *mpich_leaf(const lib_coll *lc, json_t *rule, json_t *base_intra)
{
    const lib_algo *la = lib_algo_of(lc->coll, winner(rule));
    if (!la || !la->mpich) return json_deep_copy(base_intra);
    char key[160];
    snprintf(key, sizeof key, "algorithm=%s", la->mpich);
    return json_pack("{s:{}}", key);
}

/* The tree of one process count: one key per rule, "<key><hi" or "<key>=any". */
static json_t *mpich_np_tree(const lib_coll *lc, json_t *rules, int np, json_t *base_intra)
{
    json_t *at[256], *tree = json_object();
    int n = rules_at(rules, np, at, 256);
    for (int k = 0; k < n; k++) {
        char key[96];
        long long hi = (long long)range_at(at[k], "bytes", 1) * (lc->times_p ? np : 1);
        if (hi == 0) snprintf(key, sizeof key, "%s=any", lc->mpich_key);
        else snprintf(key, sizeof key, "%s<%lld", lc->mpich_key, hi);
        json_object_set_new(tree, key, mpich_leaf(lc, at[k], base_intra));
        if (hi == 0) return tree;
    }
    /* above the measured grid: MPICH's own selection */
    char any[96];
    snprintf(any, sizeof any, "%s=any", lc->mpich_key);
    json_object_set_new(tree, any, json_deep_copy(base_intra));
    return tree;
}

/* The new "comm_type=intra" tree of a tuned collective. */
static json_t *mpich_intra(const lib_coll *lc, json_t *rules, json_t *base_intra)
{
    int nps[64], n = rule_nps(rules, nps, 64);
    json_t *tree = json_object();
    char key[64];
    for (int k = 0; k < n; k++) {
        snprintf(key, sizeof key, "comm_size<%d", nps[k]);
        if (k == 0 || nps[k - 1] + 1 != nps[k]) json_object_set_new(tree, key, json_deep_copy(base_intra));
        snprintf(key, sizeof key, "comm_size<=%d", nps[k]);
        json_object_set_new(tree, key, mpich_np_tree(lc, rules, nps[k], base_intra));
    }
    json_object_set_new(tree, "comm_size=any", json_deep_copy(base_intra));
    return tree;
}

int tune_export_mpich(json_t *table, json_t *base, const char *path, char *err, size_t len)
{
    if (!base) {
        snprintf(err, len, "--export-mpich needs --mpich-base (MPICH 4.0 needs every collective in the file: "
                 "tools/tune/mpich-base.sh extracts the library's own selection)");
        return -1;
    }
    json_t *out = json_deep_copy(base);
    const char *coll;
    json_t *rules;
    json_object_foreach(table, coll, rules) {
        const lib_coll *lc = coll[0] == '_' ? NULL : lib_coll_of(coll);
        json_t *c = lc && lc->mpich ? json_object_get(out, lc->mpich) : NULL;
        json_t *intra = c ? json_object_get(c, "comm_type=intra") : NULL;
        if (!intra) continue;
        json_object_set_new(c, "comm_type=intra", mpich_intra(lc, rules, intra));
    }
    int rc = json_dump_file(out, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(out);
    if (rc != 0) snprintf(err, len, "cannot write %s", path);
    return rc ? -1 : 0;
}

/* ---- JSON files ------------------------------------------------------------ */

json_t *tune_load_json(const char *path, char *err, size_t len)
{
    json_error_t jerr;
    json_t *s = json_load_file(path, 0, &jerr);
    if (!s) snprintf(err, len, "%s:%d: %s", path, jerr.line, jerr.text);
    return s;
}

int tune_write_json(json_t *doc, const char *path)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) return -1;
    if (json_dump_file(doc, tmp, JSON_INDENT(1) | JSON_PRESERVE_ORDER) != 0) return -1;
    if (rename(tmp, path) != 0) {
        remove(tmp);
        return -1;
    }
    return 0;
}
