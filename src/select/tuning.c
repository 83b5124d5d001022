/*
 * JSON tuning files (jansson).  Format:
 *   { "allgather": [
 *       { "np": [2, 64], "nodes": [2, 0], "pow2": true, "bytes": [0, 4096],
 *         "algorithms": ["recursive_doubling", "bruck"], "note": "..." },
 *       ... ] }
 * "np", "nodes" and "bytes" are [min, max] with max inclusive for np and
 * nodes and exclusive for bytes; 0 as max means unbounded; all optional.
 * "oversubscribed" (optional): true, the rule serves oversubscribed machines
 * only (more ranks than processing units on some node), false: the others;
 * absent: any (tc_rule.load).  Every algorithm name must
 * be in the catalog.  Any error names the file, the rule and the field.
 *
 * Evidence (written by topocoll-tune, optional): "origin" (a string:
 * "measured", "model", "built-in"), "ratio" (the winner's time over
 * native's, a positive number), "spread" ([q25, q75] over native's median),
 * "evidence" (the measurements behind the rule, any JSON: shown, not read).
 * "replace_builtin" (top level, optional): true makes the file's rules the
 * whole table; false or absent layers them over the built-in rules
 * (select.c).
 * Top-level keys starting with "_" describe the file ("_tuned": how it was
 * measured) and are skipped, except "_model": the cost model's parameters
 * (cost_model.h), every field optional, missing ones built-in:
 *   "_model": { "socket": {"alpha": s, "beta": s/B}, "node": {...},
 *               "network": {...}, "gamma": s/B, "margin": >= 1,
 *               "fitted": any JSON (how they were obtained: shown, not read) }
 */
#define _POSIX_C_SOURCE 200809L
#include "select/select.h"
#include "select/cost_model.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct owned_table {
    tc_table table;
    tc_rule *rules;
    json_t *root;   /* keeps the strings alive */
    tc_model_params model;
} owned_table;

static int range(json_t *v, int64_t *lo, int64_t *hi)
{
    if (!v) return 1;
    if (!json_is_array(v) || json_array_size(v) != 2 || !json_is_integer(json_array_get(v, 0)) ||
        !json_is_integer(json_array_get(v, 1)))
        return 0;
    *lo = json_integer_value(json_array_get(v, 0));
    *hi = json_integer_value(json_array_get(v, 1));
    return *lo >= 0 && *hi >= 0 && (*hi == 0 || *hi >= *lo);
}

/* The optional evidence fields; 0 when one is malformed. */
static int parse_evidence(json_t *o, tc_rule *r)
{
    json_t *origin = json_object_get(o, "origin"), *ratio = json_object_get(o, "ratio"),
           *spread = json_object_get(o, "spread");
    if (origin && !json_is_string(origin)) return 0;
    r->origin = origin ? json_string_value(origin) : "tuning file";
    if (ratio && (!json_is_number(ratio) || !(json_number_value(ratio) > 0))) return 0;
    r->ratio = ratio ? json_number_value(ratio) : 0;
    if (!spread) return 1;
    if (!json_is_array(spread) || json_array_size(spread) != 2) return 0;
    json_t *lo = json_array_get(spread, 0), *hi = json_array_get(spread, 1);
    if (!json_is_number(lo) || !json_is_number(hi) || !(json_number_value(lo) > 0) ||
        json_number_value(hi) < json_number_value(lo))
        return 0;
    r->spread_lo = json_number_value(lo);
    r->spread_hi = json_number_value(hi);
    return 1;
}

static int parse_rule(json_t *o, topocoll_coll coll, tc_rule *r, char *err, size_t len,
                      const char *path, const char *cname, size_t idx)
{
    memset(r, 0, sizeof *r);
    r->coll = coll;
    if (!json_is_object(o)) {
        snprintf(err, len, "%s: %s rule %zu is not an object", path, cname, idx);
        return 0;
    }
    const char *key;
    json_t *val;
    json_object_foreach(o, key, val) {
        if (strcmp(key, "np") && strcmp(key, "nodes") && strcmp(key, "bytes") && strcmp(key, "pow2") &&
            strcmp(key, "algorithms") && strcmp(key, "note") && strcmp(key, "origin") &&
            strcmp(key, "ratio") && strcmp(key, "spread") && strcmp(key, "evidence") &&
            strcmp(key, "oversubscribed")) {
            snprintf(err, len, "%s: %s rule %zu: unknown field \"%s\"", path, cname, idx, key);
            return 0;
        }
    }
    int64_t lo = 1, hi = 0;
    if (!range(json_object_get(o, "np"), &lo, &hi) || lo > 1 << 30 || hi > 1 << 30) {
        snprintf(err, len, "%s: %s rule %zu: \"np\" must be [min, max] of non-negative integers", path, cname, idx);
        return 0;
    }
    r->min_np = (int)lo;
    r->max_np = (int)hi;
    lo = 0, hi = 0;
    if (!range(json_object_get(o, "nodes"), &lo, &hi) || lo > 1 << 30 || hi > 1 << 30) {
        snprintf(err, len, "%s: %s rule %zu: \"nodes\" must be [min, max] of non-negative integers", path, cname, idx);
        return 0;
    }
    r->min_nodes = (int)lo;
    r->max_nodes = (int)hi;
    lo = 0, hi = 0;
    if (!range(json_object_get(o, "bytes"), &lo, &hi)) {
        snprintf(err, len, "%s: %s rule %zu: \"bytes\" must be [min, max] of non-negative integers", path, cname, idx);
        return 0;
    }
    r->min_bytes = lo;
    r->max_bytes = hi;
    json_t *p2 = json_object_get(o, "pow2");
    if (p2 && !json_is_boolean(p2)) {
        snprintf(err, len, "%s: %s rule %zu: \"pow2\" must be true or false", path, cname, idx);
        return 0;
    }
    r->pow2_only = p2 && json_is_true(p2);
    json_t *ov = json_object_get(o, "oversubscribed");
    if (ov && !json_is_boolean(ov)) {
        snprintf(err, len, "%s: %s rule %zu: \"oversubscribed\" must be true or false (or absent: any "
                 "machine)", path, cname, idx);
        return 0;
    }
    r->load = !ov ? TC_LOAD_ANY : json_is_true(ov) ? TC_LOAD_OVERSUBSCRIBED : TC_LOAD_DEDICATED;
    json_t *note = json_object_get(o, "note");
    r->note = json_is_string(note) ? json_string_value(note) : "tuning file";
    if (!parse_evidence(o, r)) {
        snprintf(err, len, "%s: %s rule %zu: \"origin\" must be a string, \"ratio\" a positive number, "
                 "\"spread\" [low, high] of positive numbers", path, cname, idx);
        return 0;
    }
    json_t *algs = json_object_get(o, "algorithms");
    size_t n = json_is_array(algs) ? json_array_size(algs) : 0;
    if (n == 0 || n >= TC_RULE_MAX_CANDIDATES) {
        snprintf(err, len, "%s: %s rule %zu: \"algorithms\" must be a list of 1 to %d names", path,
                 cname, idx, TC_RULE_MAX_CANDIDATES - 1);
        return 0;
    }
    for (size_t k = 0; k < n; k++) {
        json_t *s = json_array_get(algs, k);
        char why[160] = "";
        if (!json_is_string(s) || !tc_catalog_resolve(coll, json_string_value(s), why, sizeof why)) {
            snprintf(err, len, "%s: %s rule %zu: unknown algorithm %s%s%s%s%s", path, cname, idx,
                     json_is_string(s) ? "\"" : "", json_is_string(s) ? json_string_value(s) : "(not a string)",
                     json_is_string(s) ? "\"" : "", why[0] ? ": " : "", why);
            return 0;
        }
        r->candidates[k] = json_string_value(s);
    }
    return 1;
}

/* The file's JSON, refusing anything but a regular file: a FIFO or a
 * device would block the first collective forever (opened non-blocking, so
 * not even the open can wait). */
static json_t *load_regular(const char *path, char *err, size_t len, json_error_t *jerr)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        snprintf(err, len, "%s: %s", path, strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, len, "%s: not a regular file", path);
        close(fd);
        return NULL;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0) (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    json_t *root = json_loadfd(fd, 0, jerr);
    close(fd);
    if (!root) snprintf(err, len, "%s:%d:%d: %s", path, jerr->line, jerr->column, jerr->text);
    return root;
}

/* A positive number field of a "_model" object into *out (absent: kept). */
static int model_number(json_t *o, const char *key, double *out, const char *path, const char *where,
                        char *err, size_t len)
{
    json_t *v = json_object_get(o, key);
    if (!v) return 1;
    if (!json_is_number(v) || !(json_number_value(v) > 0) || !(json_number_value(v) < 1e3)) {
        snprintf(err, len, "%s: \"_model\"%s: \"%s\" must be a positive number (seconds%s)", path, where,
                 key, strcmp(key, "alpha") ? " per byte" : "");
        return 0;
    }
    *out = json_number_value(v);
    return 1;
}

static int model_level(json_t *o, int lvl, tc_model_params *m, const char *path, char *err, size_t len)
{
    char where[40];
    snprintf(where, sizeof where, ".%s", tc_level_names[lvl]);
    if (!json_is_object(o)) {
        snprintf(err, len, "%s: \"_model\"%s must be an object {\"alpha\": s, \"beta\": s/B}", path, where);
        return 0;
    }
    const char *key;
    json_t *val;
    json_object_foreach(o, key, val) {
        if (strcmp(key, "alpha") && strcmp(key, "beta")) {
            snprintf(err, len, "%s: \"_model\"%s: unknown field \"%s\"", path, where, key);
            return 0;
        }
    }
    return model_number(o, "alpha", &m->alpha[lvl], path, where, err, len) &&
           model_number(o, "beta", &m->beta[lvl], path, where, err, len);
}

/* The "_model" section into m (which holds the built-in values). */
static int parse_model(json_t *o, tc_model_params *m, const char *path, char *err, size_t len)
{
    if (!json_is_object(o)) {
        snprintf(err, len, "%s: \"_model\" must be an object", path);
        return 0;
    }
    const char *key;
    json_t *val;
    json_object_foreach(o, key, val) {
        int lvl = -1;
        for (int l = 0; l < TC_NLEVELS; l++)
            if (!strcmp(key, tc_level_names[l])) lvl = l;
        if (lvl >= 0) {
            if (!model_level(val, lvl, m, path, err, len)) return 0;
        } else if (strcmp(key, "gamma") && strcmp(key, "margin") && strcmp(key, "fitted")) {
            snprintf(err, len, "%s: \"_model\": unknown field \"%s\" (socket, node, network, gamma, "
                     "margin, fitted)", path, key);
            return 0;
        }
    }
    if (!model_number(o, "gamma", &m->gamma, path, "", err, len)) return 0;
    json_t *mg = json_object_get(o, "margin");
    if (mg && (!json_is_number(mg) || !(json_number_value(mg) >= 1) || !(json_number_value(mg) <= 100))) {
        snprintf(err, len, "%s: \"_model\": \"margin\" must be a number from 1 to 100", path);
        return 0;
    }
    if (mg) m->margin = json_number_value(mg);
    m->source = path;
    return 1;
}

tc_table *tc_table_load(const char *path, char *err, size_t len)
{
    json_error_t jerr;
    json_t *root = load_regular(path, err, len, &jerr);
    if (!root) {
        return NULL;
    }
    owned_table *t = calloc(1, sizeof *t);
    if (!t || !json_is_object(root)) {
        snprintf(err, len, "%s: %s", path, t ? "top level must be an object keyed by collective" : "out of memory");
        goto fail;
    }
    t->root = root;
    json_t *model = json_object_get(root, "_model");
    if (model) {
        t->model = *tc_model_builtin();
        if (!parse_model(model, &t->model, path, err, len)) goto fail;
        t->table.model = &t->model;
    }
    json_t *repl = json_object_get(root, "replace_builtin");
    if (repl && !json_is_boolean(repl)) {
        snprintf(err, len, "%s: \"replace_builtin\" must be true (the file's rules alone) or false (layered "
                 "over the built-in rules, the default)", path);
        goto fail;
    }
    t->table.replace_builtin = repl && json_is_true(repl);
    size_t total = 0;
    const char *key;
    json_t *val;
    json_object_foreach(root, key, val) {
        if (key[0] == '_' || !strcmp(key, "replace_builtin")) continue;   /* the file's description */
        if (tc_coll_from_name(key) < 0) {
            snprintf(err, len, "%s: unknown collective \"%s\"", path, key);
            goto fail;
        }
        if (!json_is_array(val)) {
            snprintf(err, len, "%s: \"%s\" must be a list of rules", path, key);
            goto fail;
        }
        total += json_array_size(val);
    }
    t->rules = calloc(total ? total : 1, sizeof *t->rules);
    if (!t->rules) { snprintf(err, len, "out of memory"); goto fail; }
    json_object_foreach(root, key, val) {
        if (key[0] == '_' || !strcmp(key, "replace_builtin")) continue;
        topocoll_coll coll = (topocoll_coll)tc_coll_from_name(key);
        for (size_t i = 0; i < json_array_size(val); i++)
            if (!parse_rule(json_array_get(val, i), coll, &t->rules[t->table.nrules++], err, len, path, key, i))
                goto fail;
    }
    t->table.rules = t->rules;
    t->table.source = path;
    return &t->table;
fail:
    if (t) free(t->rules);
    free(t);
    json_decref(root);
    return NULL;
}

void tc_table_free(tc_table *table)
{
    owned_table *t = (owned_table *)table;
    if (!t) return;
    free(t->rules);
    json_decref(t->root);
    free(t);
}
