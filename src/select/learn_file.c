/*
 * The learn file: the learner's outcomes as tuning-file rules with
 * "origin": "learned" (format in learn_file.h).  Reading validates the whole
 * file with the tuning-file reader first (tc_table_load: the same messages,
 * and a file that reads here also serves as TOPOCOLL_TUNING_FILE), then
 * takes the learned rules' evidence.  Writing merges: the rules of the keys
 * written are replaced, every other rule and section is kept, the learned
 * rules go first (ordered by np, nodes and size), and the file is replaced
 * in one rename.
 */
#define _POSIX_C_SOURCE 200809L
#include "select/learn_file.h"

#include "algo/catalog.h"
#include "coll/coll.h"
#include "select/select.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LEARNED "learned"

int tc_learn_same_key(const tc_learn_outcome *a, const tc_learn_outcome *b)
{
    return a->coll == b->coll && a->np == b->np && a->nnodes == b->nnodes && a->ppn == b->ppn &&
           a->min_bytes == b->min_bytes && a->max_bytes == b->max_bytes && a->op_class == b->op_class;
}

int tc_learn_unique(tc_learn_outcome *o, int n)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        int k = 0;
        while (k < m && !tc_learn_same_key(&o[k], &o[i])) k++;
        if (k == m) o[m++] = o[i];
        else if (o[i].calls > o[k].calls) o[k] = o[i];
    }
    return m;
}

/* ---- one outcome <-> one rule ---------------------------------------------- */

static json_t *pair(json_int_t a, json_int_t b) { return json_pack("[II]", a, b); }

static json_t *rule_of(const tc_learn_outcome *o)
{
    json_t *tried = json_array();
    for (int k = 0; tried && k < o->ntried && k < 8; k++)
        if (o->tried[k])   /* a time that is not finite (a candidate that failed): dropped, time unknown */
            json_array_append_new(tried, json_pack("[sf]", o->tried[k], isfinite(o->tried_s[k]) ? o->tried_s[k] : -1.0));
    json_t *ev = json_pack("{si si sf sf sf sI so}", "ppn", o->ppn, "op_class", o->op_class, "winner_s",
                           o->winner_s, "native_s", o->native_s, "explore_s", o->explore_s, "calls",
                           (json_int_t)o->calls, "tried", tried ? tried : json_array());
    const char *w = o->winner ? o->winner : "native";
    json_t *algs = strcmp(w, "native") ? json_pack("[ss]", w, "native") : json_pack("[s]", w);
    char note[200];
    if (o->winner_s > 0 && o->native_s > 0)
        snprintf(note, sizeof note, "learned: %s %.2fx native's time over %d candidates, %llu calls", w,
                 o->winner_s / o->native_s, o->ntried, (unsigned long long)o->calls);
    else
        snprintf(note, sizeof note, "learned: %s over %d candidates, %llu calls", w, o->ntried,
                 (unsigned long long)o->calls);
    json_t *r = json_pack("{so so so so ss ss so}", "np", pair(o->np, o->np), "nodes",
                          pair(o->nnodes, o->nnodes), "bytes", pair(o->min_bytes, o->max_bytes),
                          "algorithms", algs, "origin", LEARNED, "note", note, "evidence", ev);
    if (r && o->winner_s > 0 && o->native_s > 0)
        json_object_set_new(r, "ratio", json_real(o->winner_s / o->native_s));
    if (ev && o->from_file) json_object_set_new(ev, "from_file", json_true());   /* encodings only */
    return r;
}

static int bad(char *err, size_t len, const char *where, const char *what)
{
    snprintf(err, len, "%s: %s", where, what);
    return -1;
}

static int int_field(json_t *o, const char *key, int64_t lo, int64_t *out)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v) || json_integer_value(v) < lo) return 0;
    *out = json_integer_value(v);
    return 1;
}

static int time_field(json_t *o, const char *key, double *out)
{
    json_t *v = json_object_get(o, key);
    if (!v) { *out = 0; return 1; }
    if (!json_is_number(v) || !(json_number_value(v) >= 0) || !(json_number_value(v) < 1e6)) return 0;
    *out = json_number_value(v);
    return 1;
}

/* A catalog name's static string (the catalog's listed name). */
static const char *static_name(topocoll_coll coll, const char *name)
{
    const tc_algo *al = name ? tc_catalog_find(coll, name) : NULL;
    return al ? al->name : NULL;
}

static int tried_of(json_t *tried, topocoll_coll coll, tc_learn_outcome *o, const char *where, char *err,
                    size_t len)
{
    if (!tried) return 0;
    if (!json_is_array(tried)) return bad(err, len, where, "\"evidence\".\"tried\" must be a list of [name, seconds]");
    size_t i;
    json_t *t;
    json_array_foreach(tried, i, t) {
        const char *name = json_is_array(t) && json_array_size(t) == 2 ? json_string_value(json_array_get(t, 0)) : NULL;
        json_t *s = json_array_get(t, 1);
        if (!name || !json_is_number(s)) return bad(err, len, where, "\"evidence\".\"tried\" must be a list of [name, seconds]");
        const char *st = static_name(coll, name);
        if (!st) return bad(err, len, where, "\"evidence\".\"tried\" names an algorithm not in the catalog");
        if (o->ntried < 8) {
            o->tried[o->ntried] = st;
            o->tried_s[o->ntried++] = json_number_value(s);
        }
    }
    return 0;
}

/* One rule into *o: 1 (a learned rule), 0 (another origin: skipped) or -1. */
static int outcome_of(json_t *r, topocoll_coll coll, size_t idx, tc_learn_outcome *o, const char *path,
                      char *err, size_t len)
{
    json_t *origin = json_object_get(r, "origin");
    if (!json_is_string(origin) || strcmp(json_string_value(origin), LEARNED)) return 0;
    char where[256];
    snprintf(where, sizeof where, "%s: %s rule %zu", path, tc_coll_name(coll), idx);
    memset(o, 0, sizeof *o);
    o->coll = coll;
    json_t *np = json_object_get(r, "np"), *nodes = json_object_get(r, "nodes"), *bytes = json_object_get(r, "bytes");
    json_int_t a = 0, b = 0, c = 0, d = 0, e = 0, f = 0;
    if (json_unpack(np, "[II]", &a, &b) || json_unpack(nodes, "[II]", &c, &d) ||
        json_unpack(bytes, "[II]", &e, &f) || a != b || c != d || a < 1 || c < 1 || a > 1 << 30 || c > a ||
        e < 0 || (f != 0 && f <= e))
        return bad(err, len, where, "a learned rule needs \"np\": [n, n] and \"nodes\": [k, k] (one shape) "
                   "and \"bytes\": [min, max] with min < max");
    o->np = (int)a, o->nnodes = (int)c, o->min_bytes = e, o->max_bytes = f;
    json_t *algs = json_object_get(r, "algorithms");
    o->winner = static_name(coll, json_string_value(json_array_get(algs, 0)));
    if (!o->winner) return bad(err, len, where, "\"algorithms\" must start with a catalog name");
    json_t *ev = json_object_get(r, "evidence");
    int64_t ppn = 0, opc = 0, calls = 0;
    if (!json_is_object(ev) || !int_field(ev, "ppn", 1, &ppn) || ppn > a || !int_field(ev, "op_class", 0, &opc) ||
        opc > 1 << 20)
        return bad(err, len, where, "a learned rule's \"evidence\" needs \"ppn\" (1 to np) and \"op_class\" "
                   "(a non-negative integer)");
    o->ppn = (int)ppn, o->op_class = (int)opc;
    if (json_object_get(ev, "calls") && !int_field(ev, "calls", 0, &calls))
        return bad(err, len, where, "\"evidence\".\"calls\" must be a non-negative integer");
    o->calls = (uint64_t)calls;
    if (!time_field(ev, "winner_s", &o->winner_s) || !time_field(ev, "native_s", &o->native_s) ||
        !time_field(ev, "explore_s", &o->explore_s))
        return bad(err, len, where, "\"evidence\" times (winner_s, native_s, explore_s) must be seconds >= 0");
    if (tried_of(json_object_get(ev, "tried"), coll, o, where, err, len) < 0) return -1;
    o->from_file = json_is_true(json_object_get(ev, "from_file"));
    return 1;
}

/* The learned rules of a document (an object keyed by collective). */
static int outcomes_of(json_t *root, tc_learn_outcome *out, int max, const char *path, char *err, size_t len)
{
    if (!json_is_object(root)) return bad(err, len, path, "top level must be an object keyed by collective");
    int n = 0;
    const char *key;
    json_t *val;
    json_object_foreach(root, key, val) {
        if (key[0] == '_' || !strcmp(key, "replace_builtin")) continue;
        int coll = tc_coll_from_name(key);
        if (coll < 0 || !json_is_array(val)) {
            snprintf(err, len, "%s: \"%s\" is not a collective with a list of rules", path, key);
            return -1;
        }
        for (size_t i = 0; i < json_array_size(val); i++) {
            tc_learn_outcome o;
            int rc = outcome_of(json_array_get(val, i), (topocoll_coll)coll, i, &o, path, err, len);
            if (rc < 0) return -1;
            if (rc == 1 && n < max) out[n++] = o;
        }
    }
    return n;
}

int tc_learn_file_read(const char *path, tc_learn_outcome *out, int max, int *missing, char *err, size_t len)
{
    struct stat st;
    if (missing) *missing = 0;
    if (stat(path, &st) != 0 && errno == ENOENT) {
        if (missing) *missing = 1;
        return 0;
    }
    tc_table *t = tc_table_load(path, err, len);   /* the tuning reader's checks and messages */
    if (!t) return -1;
    tc_table_free(t);
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    if (!root) {
        snprintf(err, len, "%s:%d:%d: %s", path, jerr.line, jerr.column, jerr.text);
        return -1;
    }
    int n = outcomes_of(root, out, max, path, err, len);
    json_decref(root);
    for (int i = 0; i < n; i++) out[i].from_file = 1;
    return n;
}

/* ---- encoding for the gathering -------------------------------------------- */

static json_t *document_of(const tc_learn_outcome *o, int n)
{
    json_t *root = json_object();
    for (int i = 0; root && i < n; i++) {
        const char *cn = tc_coll_name(o[i].coll);
        json_t *arr = json_object_get(root, cn);
        if (!arr) json_object_set_new(root, cn, arr = json_array());
        json_t *r = rule_of(&o[i]);
        if (!arr || !r || json_array_append_new(arr, r)) {
            json_decref(root);
            return NULL;
        }
    }
    return root;
}

char *tc_learn_encode(const tc_learn_outcome *o, int n)
{
    json_t *root = document_of(o, n);
    char *s = root ? json_dumps(root, JSON_COMPACT) : NULL;
    json_decref(root);
    return s;
}

int tc_learn_decode(const char *text, tc_learn_outcome *out, int max, char *err, size_t len)
{
    json_error_t jerr;
    json_t *root = json_loads(text, 0, &jerr);
    if (!root) {
        snprintf(err, len, "outcomes: %d:%d: %s", jerr.line, jerr.column, jerr.text);
        return -1;
    }
    int n = outcomes_of(root, out, max, "outcomes", err, len);
    json_decref(root);
    return n;
}

/* ---- writing ------------------------------------------------------------- */

/* A rule's key as an outcome (0: not a learned rule). */
static int rule_key(json_t *r, topocoll_coll coll, tc_learn_outcome *k)
{
    char err[8];
    return outcome_of(r, coll, 0, k, "", err, sizeof err) == 1;
}

static int cmp_rules(json_t *a, json_t *b, topocoll_coll coll)
{
    tc_learn_outcome ka, kb;
    int la = rule_key(a, coll, &ka), lb = rule_key(b, coll, &kb);
    if (la != lb) return lb - la;   /* learned rules first */
    if (!la) return 0;
    if (ka.np != kb.np) return ka.np < kb.np ? -1 : 1;
    if (ka.nnodes != kb.nnodes) return ka.nnodes < kb.nnodes ? -1 : 1;
    if (ka.ppn != kb.ppn) return ka.ppn < kb.ppn ? -1 : 1;
    if (ka.op_class != kb.op_class) return ka.op_class < kb.op_class ? -1 : 1;
    return ka.min_bytes < kb.min_bytes ? -1 : ka.min_bytes > kb.min_bytes;
}

/* The rules of arr with o's rule in place of the one of the same key. */
static int merge_one(json_t *arr, const tc_learn_outcome *o)
{
    for (size_t i = json_array_size(arr); i-- > 0;) {
        tc_learn_outcome k;
        if (rule_key(json_array_get(arr, i), o->coll, &k) && tc_learn_same_key(&k, o))
            json_array_remove(arr, i);
    }
    json_t *r = rule_of(o);
    return r && json_array_append_new(arr, r) == 0;
}

/* Orders each collective's rules (stable: insertion sort, the lists are short). */
static void order_rules(json_t *root)
{
    const char *key;
    json_t *arr;
    json_object_foreach(root, key, arr) {
        int coll = tc_coll_from_name(key);
        if (coll < 0 || !json_is_array(arr)) continue;
        size_t n = json_array_size(arr);
        json_t **v = malloc((n ? n : 1) * sizeof *v);
        if (!v) return;
        for (size_t i = 0; i < n; i++) v[i] = json_incref(json_array_get(arr, i));
        for (size_t i = 1; i < n; i++)
            for (size_t j = i; j > 0 && cmp_rules(v[j - 1], v[j], (topocoll_coll)coll) > 0; j--) {
                json_t *x = v[j];
                v[j] = v[j - 1], v[j - 1] = x;
            }
        json_array_clear(arr);
        for (size_t i = 0; i < n; i++) json_array_append_new(arr, v[i]);
        free(v);
    }
}

/* The file's document to merge into: it, or a new one (*replaced: the file
 * existed and was not a valid table). */
static json_t *base_document(const char *path, int *replaced)
{
    struct stat st;
    char err[256];
    *replaced = 0;
    if (stat(path, &st) != 0) return json_object();
    tc_table *t = tc_table_load(path, err, sizeof err);
    json_t *root = t ? json_load_file(path, 0, NULL) : NULL;
    tc_table_free(t);
    tc_learn_outcome probe;
    if (root && outcomes_of(root, &probe, 0, path, err, sizeof err) >= 0) return root;
    json_decref(root);
    *replaced = 1;
    return json_object();
}

static int write_atomic(json_t *root, const char *path, char *err, size_t len)
{
    size_t n = strlen(path) + 32;
    char *tmp = malloc(n);
    if (!tmp) return bad(err, len, path, "out of memory");
    snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
    int rc = json_dump_file(root, tmp, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    if (rc != 0 || rename(tmp, path) != 0) {
        snprintf(err, len, "%s: cannot write (%s)", path, strerror(errno));
        (void)remove(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}

int tc_learn_file_write(const char *path, const tc_learn_outcome *o, int n, const char *about, int *replaced,
                        char *err, size_t len)
{
    int rep = 0;
    json_t *root = base_document(path, &rep);
    if (replaced) *replaced = rep;
    if (!root) return bad(err, len, path, "out of memory");
    int written = 0;
    for (int i = 0; i < n; i++) {
        if (o[i].from_file) continue;   /* read from a file: its rule, with its evidence, stays */
        written++;
        const char *cn = tc_coll_name(o[i].coll);
        json_t *arr = json_object_get(root, cn);
        if (!json_is_array(arr)) json_object_set_new(root, cn, arr = json_array());
        if (!arr || !merge_one(arr, &o[i])) {
            json_decref(root);
            return bad(err, len, path, "out of memory");
        }
    }
    order_rules(root);
    json_t *desc = json_pack("{ss si}", "by", about ? about : "the run-time learner (TOPOCOLL_LEARN_FILE)",
                             "outcomes_written", written);
    if (desc) json_object_set_new(root, "_learned", desc);
    int rc = write_atomic(root, path, err, len);
    json_decref(root);
    return rc;
}
