/*
 * topocoll-tune: the state file, written after every measured point so that
 * an interrupted run continues where it stopped (--resume).  No MPI.
 *
 *   { "version": 1,
 *     "points": [ { "comm": "world", "np": 4, "nodes": 2, "coll": "allgather",
 *                   "bytes": 8, "entries": { "native": { "median": 12.5,
 *                   "q25": 12.1, "q75": 13.0, "batches": 5 }, ... } }, ... ],
 *     "shortlists": { "world/allgather": ["native", "linear", ...] },
 *     "screened": { "world/allgather": { "1048576": [["native", 184000.0],
 *                   ["ring", 77800.0], ...] } } }
 *
 * "screened" (optional) lists, per screened size, native and the entries
 * that beat it there, fastest first, with their screen times (per call):
 * what a point narrowed for the budget keeps, and its cost.
 *
 * Times are microseconds.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune.h"

json_t *tune_state_new(void)
{
    return json_pack("{s:i, s:[], s:{}}", "version", TUNE_STATE_VERSION, "points", "shortlists");
}

json_t *tune_state_load(const char *path, char *err, size_t len)
{
    json_error_t jerr;
    json_t *s = json_load_file(path, 0, &jerr);
    if (!s) {
        snprintf(err, len, "%s: %s", path, jerr.text);
        return NULL;
    }
    json_t *v = json_object_get(s, "version");
    if (!json_is_object(s) || !json_is_integer(v) || json_integer_value(v) != TUNE_STATE_VERSION ||
        !json_is_array(json_object_get(s, "points")) || !json_is_object(json_object_get(s, "shortlists"))) {
        snprintf(err, len, "%s: not a %s state file (version %d)", path, TUNE_PROG, TUNE_STATE_VERSION);
        json_decref(s);
        return NULL;
    }
    return s;
}

json_t *tune_state_load_json(const char *path, char *err, size_t len)
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

int tune_state_save(json_t *state, const char *path)
{
    return tune_write_json(state, path);
}

json_t *tune_state_point(json_t *state, const char *comm, const char *coll, size_t bytes)
{
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(state, "points"), i, p) {
        const char *c = json_string_value(json_object_get(p, "comm"));
        const char *k = json_string_value(json_object_get(p, "coll"));
        json_t *b = json_object_get(p, "bytes");
        if (c && k && json_is_integer(b) && strcmp(c, comm) == 0 && strcmp(k, coll) == 0 &&
            (size_t)json_integer_value(b) == bytes)
            return p;
    }
    return NULL;
}

static void key_of(char *buf, size_t len, const char *comm, const char *coll)
{
    snprintf(buf, len, "%s/%s", comm, coll);
}

json_t *tune_state_shortlist(json_t *state, const char *comm, const char *coll)
{
    char key[128];
    key_of(key, sizeof key, comm, coll);
    json_t *l = json_object_get(json_object_get(state, "shortlists"), key);
    return json_is_array(l) ? l : NULL;
}

void tune_state_set_shortlist(json_t *state, const char *comm, const char *coll, json_t *names)
{
    char key[128];
    key_of(key, sizeof key, comm, coll);
    json_object_set(json_object_get(state, "shortlists"), key, names);
}

void tune_state_set_screened(json_t *state, const char *comm, const char *coll, size_t bytes, json_t *names)
{
    char key[128], size[32];
    key_of(key, sizeof key, comm, coll);
    snprintf(size, sizeof size, "%zu", bytes);
    json_t *all = json_object_get(state, "screened");
    if (!json_is_object(all)) {
        all = json_object();
        json_object_set_new(state, "screened", all);
    }
    json_t *group = json_object_get(all, key);
    if (!json_is_object(group)) {
        group = json_object();
        json_object_set_new(all, key, group);
    }
    json_object_set(group, size, names);
}

/* How far apart two sizes are: the larger over the smaller (which orders
 * as |log(a / b)|), sizes taken as at least 1. */
static double size_distance(size_t a, size_t b)
{
    double r = (double)(a ? a : 1) / (double)(b ? b : 1);
    return r >= 1 ? r : 1 / r;
}

json_t *tune_state_screened_sizes(json_t *state, const char *comm, const char *coll)
{
    char key[128];
    key_of(key, sizeof key, comm, coll);
    json_t *group = json_object_get(json_object_get(state, "screened"), key);
    return json_is_object(group) ? group : NULL;
}

json_t *tune_state_screened(json_t *state, const char *comm, const char *coll, size_t bytes)
{
    json_t *group = tune_state_screened_sizes(state, comm, coll), *best = NULL, *v;
    double best_d = 0;
    const char *size;
    json_object_foreach(group, size, v) {
        char *end;
        unsigned long long b = strtoull(size, &end, 10);
        if (*end || !json_is_array(v)) continue;
        double d = size_distance((size_t)b, bytes);
        if (!best || d < best_d) best = v, best_d = d;
    }
    return best;
}
