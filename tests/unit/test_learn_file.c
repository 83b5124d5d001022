/* The learn file (TOPOCOLL_LEARN_FILE, src/select/learn_file.h): outcomes
 * written and read back are the same outcomes; the file is a tuning file
 * (tc_table_load reads it, its rules say "learned" and the winner); a second
 * write merges (same keys replaced, other keys, rules and sections kept);
 * the encoding between processes round-trips and keeps one outcome per key;
 * malformed files are refused with a message naming the file and the
 * problem, a missing file is no error, and a malformed file is replaced when
 * written.  No MPI.  Ends with "N passed, M failed". */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "select/learn_file.h"
#include "select/select.h"
#include "select/cost_model.h"
#include "../common/harness.h"

static char dir[] = "/tmp/topocoll_learn_file_XXXXXX";
static char path[sizeof dir + 32];
static const char *name0, *name1;   /* two allreduce entries of the catalog */

static void write_text(const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(2); }
    fputs(text, f);
    fclose(f);
}

static tc_learn_outcome outcome(int np, int64_t lo, int64_t hi, const char *winner, double w, double nat)
{
    tc_learn_outcome o;
    memset(&o, 0, sizeof o);
    o.coll = TOPOCOLL_ALLREDUCE;
    o.np = np, o.nnodes = 1, o.ppn = np, o.min_bytes = lo, o.max_bytes = hi, o.op_class = 1;
    o.winner = winner, o.winner_s = w, o.native_s = nat;
    o.ntried = 3;
    o.tried[0] = "native", o.tried_s[0] = nat;
    o.tried[1] = name0, o.tried_s[1] = w;
    o.tried[2] = name1, o.tried_s[2] = -1;   /* dropped early */
    o.explore_s = 1e-4, o.calls = 1000;
    return o;
}

static int same(const tc_learn_outcome *a, const tc_learn_outcome *b)
{
    if (!tc_learn_same_key(a, b) || strcmp(a->winner, b->winner) || a->ntried != b->ntried ||
        a->calls != b->calls || fabs(a->winner_s - b->winner_s) > 1e-12 || fabs(a->native_s - b->native_s) > 1e-12 ||
        fabs(a->explore_s - b->explore_s) > 1e-12)
        return 0;
    for (int k = 0; k < a->ntried; k++)
        if (strcmp(a->tried[k], b->tried[k]) || fabs(a->tried_s[k] - b->tried_s[k]) > 1e-12) return 0;
    return 1;
}

static void round_trip(void)
{
    tc_learn_outcome o[2] = { outcome(2, 1024, 2048, name0, 1e-5, 2e-5), outcome(4, 8, 16, "native", 3e-6, 3e-6) };
    char err[512] = "";
    int rc = tc_learn_file_write(path, o, 2, NULL, NULL, err, sizeof err);
    CHECK(rc == 0, "write: %s", err);
    tc_learn_outcome in[8];
    int missing = 1, n = tc_learn_file_read(path, in, 8, &missing, err, sizeof err);
    CHECK(n == 2 && !missing, "read back %d outcomes (%s)", n, err);
    for (int i = 0; i < n && i < 2; i++) {
        int k = in[i].np == 2 ? 0 : 1;
        CHECK(same(&in[i], &o[k]) && in[i].from_file, "outcome %d read back differs (winner %s)", i, in[i].winner);
    }
    /* the same file as a tuning table: a learned rule with its winner and ratio */
    tc_table *t = tc_table_load(path, err, sizeof err);
    CHECK(t && t->nrules == 2, "tuning reader: %s", t ? "wrong rule count" : err);
    for (int i = 0; t && i < t->nrules; i++) {
        const tc_rule *r = &t->rules[i];
        CHECK(r->origin && !strcmp(r->origin, "learned"), "rule %d origin %s", i, r->origin ? r->origin : "(none)");
        if (r->min_np == 2)
            CHECK(!strcmp(r->candidates[0], name0) && fabs(r->ratio - 0.5) < 1e-9 && r->min_bytes == 1024 &&
                  r->max_bytes == 2048, "rule for np 2: %s ratio %g", r->candidates[0], r->ratio);
    }
    tc_table_free(t);
}

/* A second write: the key written again is replaced, the other one, a
 * rule of another origin and the "_model" section are kept. */
static void merge(void)
{
    write_text("{\"_model\": {\"gamma\": 1e-10},\n"
               " \"bcast\": [{\"np\": [2, 2], \"bytes\": [0, 0], \"algorithms\": [\"native\"], \"origin\": \"measured\"}]}\n");
    tc_learn_outcome a[2] = { outcome(2, 1024, 2048, name0, 1e-5, 2e-5), outcome(4, 8, 16, "native", 3e-6, 3e-6) };
    char err[512] = "";
    CHECK(tc_learn_file_write(path, a, 2, NULL, NULL, err, sizeof err) == 0, "first write: %s", err);
    tc_learn_outcome b = outcome(2, 1024, 2048, name1, 5e-6, 2e-5);
    b.calls = 77;
    int replaced = 1;
    CHECK(tc_learn_file_write(path, &b, 1, NULL, &replaced, err, sizeof err) == 0 && !replaced, "merge: %s", err);
    tc_learn_outcome in[8];
    int n = tc_learn_file_read(path, in, 8, NULL, err, sizeof err);
    CHECK(n == 2, "after the merge %d learned outcomes (%s)", n, err);
    for (int i = 0; i < n; i++)
        CHECK(same(&in[i], in[i].np == 2 ? &b : &a[1]), "merged outcome np %d: winner %s calls %llu", in[i].np,
              in[i].winner, (unsigned long long)in[i].calls);
    /* an outcome read from the file leaves its rule as it is */
    tc_learn_outcome again = b;
    again.from_file = 1, again.calls = 3, again.winner = name0;
    CHECK(tc_learn_file_write(path, &again, 1, NULL, NULL, err, sizeof err) == 0, "write from_file: %s", err);
    n = tc_learn_file_read(path, in, 8, NULL, err, sizeof err);
    for (int i = 0; i < n; i++)
        if (in[i].np == 2) CHECK(same(&in[i], &b), "a warm-started outcome rewrote its rule: %s", in[i].winner);
    tc_table *t = tc_table_load(path, err, sizeof err);
    int measured = 0;
    for (int i = 0; t && i < t->nrules; i++) measured += t->rules[i].origin && !strcmp(t->rules[i].origin, "measured");
    CHECK(t && t->nrules == 3 && measured == 1 && t->model && t->model->gamma == 1e-10,
          "the file's other rule and _model kept: %s", t ? "no" : err);
    tc_table_free(t);
}

static void encoding(void)
{
    tc_learn_outcome o[3] = { outcome(2, 64, 128, name0, 1e-6, 2e-6), outcome(2, 64, 128, name1, 1e-6, 2e-6),
                              outcome(2, 128, 256, "native", 1e-6, 1e-6) };
    o[1].calls = 5000;   /* same key as o[0], more calls: kept */
    o[2].from_file = 1;  /* the flag travels: the writer keeps the file's rule for it */
    char *s = tc_learn_encode(o, 3), err[256] = "";
    tc_learn_outcome in[8];
    int n = s ? tc_learn_decode(s, in, 8, err, sizeof err) : -1;
    CHECK(n == 3, "decode: %d (%s)", n, err);
    int keep = n == 3 ? tc_learn_unique(in, n) : 0;
    CHECK(keep == 2 && same(&in[0], &o[1]) && same(&in[1], &o[2]) && !in[0].from_file && in[1].from_file,
          "unique kept %d", keep);
    free(s);
    CHECK(tc_learn_decode("{\"allreduce\": 3}", in, 8, err, sizeof err) < 0 && strstr(err, "allreduce"),
          "a malformed encoding refused: %s", err);
}

static void expect_bad(const char *text, const char *needle)
{
    write_text(text);
    tc_learn_outcome in[8];
    char err[512] = "";
    int n = tc_learn_file_read(path, in, 8, NULL, err, sizeof err);
    CHECK(n < 0 && strstr(err, path) && strstr(err, needle), "%s -> %d '%s' (wanted '%s')", text, n, err, needle);
}

static void malformed(void)
{
    char err[512] = "", gone[sizeof path + 8];
    snprintf(gone, sizeof gone, "%s.none", path);
    tc_learn_outcome in[8];
    int missing = 0;
    CHECK(tc_learn_file_read(gone, in, 8, &missing, err, sizeof err) == 0 && missing, "a missing file: %s", err);
    expect_bad("{\"allreduce\": [", "");
    expect_bad("[1, 2]", "top level");
    expect_bad("{\"allreduce\": [{\"algorithms\": [\"no_such_algorithm\"], \"origin\": \"learned\"}]}",
               "no_such_algorithm");
    char text[600];
    snprintf(text, sizeof text, "{\"allreduce\": [{\"np\": [2, 4], \"nodes\": [1, 1], \"bytes\": [0, 8], "
             "\"algorithms\": [\"%s\"], \"origin\": \"learned\", \"evidence\": {\"ppn\": 2, \"op_class\": 0}}]}", name0);
    expect_bad(text, "one shape");
    snprintf(text, sizeof text, "{\"allreduce\": [{\"np\": [2, 2], \"nodes\": [1, 1], \"bytes\": [0, 8], "
             "\"algorithms\": [\"%s\"], \"origin\": \"learned\", \"evidence\": {\"op_class\": 0}}]}", name0);
    expect_bad(text, "ppn");
    snprintf(text, sizeof text, "{\"allreduce\": [{\"np\": [2, 2], \"nodes\": [1, 1], \"bytes\": [0, 8], "
             "\"algorithms\": [\"%s\"], \"origin\": \"learned\", \"evidence\": {\"ppn\": 2, \"op_class\": 0, "
             "\"tried\": [[\"no_such_algorithm\", 1e-6]]}}]}", name0);
    expect_bad(text, "not in the catalog");
    /* writing over a malformed file replaces it and says so */
    write_text("{ not json");
    tc_learn_outcome o = outcome(2, 8, 16, name0, 1e-6, 2e-6);
    int replaced = 0;
    CHECK(tc_learn_file_write(path, &o, 1, NULL, &replaced, err, sizeof err) == 0 && replaced, "replace: %s", err);
    CHECK(tc_learn_file_read(path, in, 8, NULL, err, sizeof err) == 1 && same(&in[0], &o), "the replacement reads: %s",
          err);
}

int main(void)
{
    if (!mkdtemp(dir)) { perror("mkdtemp"); return 2; }
    snprintf(path, sizeof path, "%s/learned.json", dir);
    for (int i = 0; i < tc_catalog_variant_count(TOPOCOLL_ALLREDUCE) && !name1; i++) {
        const tc_algo *al = tc_catalog_variant_at(TOPOCOLL_ALLREDUCE, i);
        if (al && al->generate && strcmp(al->name, "native")) {
            if (!name0) name0 = al->name;
            else name1 = al->name;
        }
    }
    CHECK(name0 && name1 && tc_catalog_find(TOPOCOLL_ALLREDUCE, "native"), "two allreduce entries and native");
    if (!name1) return tc_test_summary();
    round_trip();
    merge();
    encoding();
    malformed();
    unlink(path);
    rmdir(dir);
    return tc_test_summary();
}
