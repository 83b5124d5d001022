/*
 * topocoll-tune self-test of the parts without MPI: the noise test, merging
 * into rules, options, the state file and both exports.  Prints
 * "N passed, M failed"; exit status 1 on any failure.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tune.h"

static int passed, failed;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (cond) passed++;                                                    \
        else { failed++; printf("FAIL line %d: ", __LINE__); printf(__VA_ARGS__); printf("\n"); } \
    } while (0)

static json_t *stat_json(double med, double q25, double q75)
{
    return json_pack("{s:f, s:f, s:f, s:i}", "median", med, "q25", q25, "q75", q75, "batches", 5);
}

static void test_decide(void)
{
    tune_choice c;
    json_t *e = json_object();
    json_object_set_new(e, "native", stat_json(100, 95, 105));
    json_object_set_new(e, "close", stat_json(90, 80, 99));      /* 99 x 1.03 > 95: within the noise */
    CHECK(tune_decide_point(e, NULL, 0.03, &c) == 0 && !c.switched && strcmp(c.winner, "native") == 0,
          "a win inside the noise must keep native (got %s)", c.winner);
    CHECK(fabs(c.ratio - 1.0) < 1e-12 && fabs(c.lo - 0.95) < 1e-12 && fabs(c.hi - 1.05) < 1e-12,
          "native's ratio 1 and spread 0.95..1.05 (got %g %g %g)", c.ratio, c.lo, c.hi);
    json_object_set_new(e, "clear", stat_json(80, 78, 85));
    json_object_set_new(e, "clearer", stat_json(70, 60, 90));
    CHECK(tune_decide_point(e, NULL, 0.03, &c) == 0 && c.switched && strcmp(c.winner, "clearer") == 0,
          "the lowest median among the clear wins (got %s)", c.winner);
    CHECK(fabs(c.ratio - 0.7) < 1e-12 && fabs(c.hi - 0.9) < 1e-12, "ratio 0.7, hi 0.9 (got %g %g)", c.ratio, c.hi);
    CHECK(tune_decide_point(e, NULL, 0.10, &c) == 0 && strcmp(c.winner, "clear") == 0,
          "a larger margin rules out the wider spread (got %s)", c.winner);
    json_object_set_new(e, "broken", stat_json(10, 20, 30));       /* q25 > median: ignored */
    CHECK(tune_decide_point(e, NULL, 0.10, &c) == 0 && strcmp(c.winner, "clear") == 0, "malformed entries are ignored");
    json_object_del(e, "native");
    CHECK(tune_decide_point(e, NULL, 0.03, &c) != 0, "no native: no decision");
    json_decref(e);
}

/* The built-in choice is the base: it stays unless native or another entry
 * beats it beyond the noise. */
static void test_decide_builtin(void)
{
    tune_choice c;
    json_t *e = json_object();
    json_object_set_new(e, "native", stat_json(100, 95, 105));
    json_object_set_new(e, "linear", stat_json(103, 96, 110));     /* inside native's noise */
    json_object_set_new(e, "ring", stat_json(99, 97, 101));        /* not beyond linear's lower quartile */
    CHECK(tune_decide_point(e, "linear", 0.03, &c) == 0 && !c.switched && strcmp(c.winner, "linear") == 0 &&
              strcmp(c.base, "linear") == 0 && fabs(c.ratio - 1.03) < 1e-12,
          "the built-in choice inside the noise stays (got %s, base %s, ratio %g)", c.winner, c.base, c.ratio);
    CHECK(tune_decide_point(e, NULL, 0.03, &c) == 0 && strcmp(c.winner, "native") == 0 &&
              strcmp(c.base, "native") == 0,
          "without a built-in choice native is the base (got %s)", c.winner);
    json_object_set_new(e, "bruck", stat_json(80, 78, 85));
    CHECK(tune_decide_point(e, "linear", 0.03, &c) == 0 && c.switched && strcmp(c.winner, "bruck") == 0 &&
              strcmp(c.base, "linear") == 0 && fabs(c.ratio - 0.8) < 1e-12,
          "an entry beating the built-in choice beyond the noise wins (got %s)", c.winner);
    json_object_del(e, "bruck");
    json_object_set_new(e, "linear", stat_json(130, 125, 135));
    CHECK(tune_decide_point(e, "linear", 0.03, &c) == 0 && !c.switched && strcmp(c.winner, "native") == 0 &&
              strcmp(c.base, "native") == 0,
          "native beating the built-in choice beyond the noise replaces it (got %s)", c.winner);
    CHECK(tune_decide_point(e, "unmeasured", 0.03, &c) == 0 && strcmp(c.base, "native") == 0,
          "a built-in choice without measurements: native is the base (got %s)", c.base);
    json_decref(e);
    /* measured again: the switch must beat the built-in choice there too */
    json_t *p = json_pack("{s:s, s:s, s:{s:o, s:o, s:o}, s:{s:o, s:o, s:o}}", "coll", "allgather", "builtin",
                          "linear", "entries", "native", stat_json(100, 98, 102), "linear", stat_json(90, 88, 92),
                          "bruck", stat_json(70, 68, 72), "confirm", "native", stat_json(100, 98, 102), "linear",
                          stat_json(70, 68, 72), "bruck", stat_json(69, 67, 71));
    CHECK(tune_decide_confirmed(p, 0.03, &c) == 0 && !c.switched && c.refuted && strcmp(c.winner, "linear") == 0 &&
              fabs(c.ratio - 0.9) < 1e-12,
          "a switch that does not beat the built-in choice again: the built-in choice stays (got %s, %g)",
          c.winner, c.ratio);
    json_decref(p);
}

static void add_point(json_t *state, const char *comm, int np, size_t bytes, const char *fast, double ratio)
{
    json_t *e = json_object();
    json_object_set_new(e, "native", stat_json(100, 98, 102));
    json_object_set_new(e, fast, stat_json(100 * ratio, 100 * ratio - 1, 100 * ratio + 1));
    json_array_append_new(json_object_get(state, "points"),
                          json_pack("{s:s, s:i, s:i, s:s, s:I, s:o}", "comm", comm, "np", np, "nodes", 1,
                                    "coll", "allgather", "bytes", (json_int_t)bytes, "entries", e));
}

/* Points measured on an oversubscribed machine (or not) give rules that say so. */
static void test_load(void)
{
    char err[256] = "";
    json_t *s = tune_state_new();
    add_point(s, "world", 4, 8, "ring", 0.5);
    add_point(s, "world", 4, 64, "ring", 0.5);
    add_point(s, "half", 2, 8, "linear", 0.5);
    add_point(s, "pernode", 2, 8, "bruck", 0.5);
    json_t *pts = json_object_get(s, "points");
    for (size_t k = 0; k < 2; k++) json_object_set_new(json_array_get(pts, k), "oversubscribed", json_true());
    json_object_set_new(json_array_get(pts, 2), "oversubscribed", json_false());
    json_t *t = tune_build_table(s, 0.03, err, sizeof err);
    json_t *r = t ? json_object_get(t, "allgather") : NULL;
    int seen = 0;
    for (size_t k = 0; k < json_array_size(r); k++) {
        json_t *rule = json_array_get(r, k), *ov = json_object_get(rule, "oversubscribed");
        const char *alg = json_string_value(json_array_get(json_object_get(rule, "algorithms"), 0));
        const char *note = json_string_value(json_object_get(rule, "note"));
        if (alg && strcmp(alg, "ring") == 0)
            seen += json_is_true(ov) && note && strstr(note, ", oversubscribed)") ? 1 : 100;
        if (alg && strcmp(alg, "linear") == 0)
            seen += json_is_false(ov) && note && strstr(note, ", dedicated)") ? 10 : 100;
        if (alg && strcmp(alg, "bruck") == 0) seen += ov == NULL ? 1000 : 100;
    }
    CHECK(json_array_size(r) == 3 && seen == 1011,
          "rules carry \"oversubscribed\" from their points (%zu rules, code %d) %s", json_array_size(r), seen, err);
    json_decref(t);
    json_decref(s);
}

/* A point whose fast entry wins the first measurement by ratio; "confirm"
 * holds native and the entry measured again, the entry at again x native. */
static json_t *confirmed_point(double ratio, double again)
{
    json_t *p = json_pack("{s:s, s:i, s:i, s:s, s:I, s:{s:{s:f, s:f, s:f, s:i}, s:{s:f, s:f, s:f, s:i}}}",
                          "comm", "world", "np", 4, "nodes", 1, "coll", "allgather", "bytes", (json_int_t)64,
                          "entries", "native", "median", 10.0, "q25", 9.9, "q75", 10.1, "batches", 5, "ring",
                          "median", 10.0 * ratio, "q25", 9.9 * ratio, "q75", 10.1 * ratio, "batches", 5);
    json_object_set_new(p, "confirm", json_pack("{s:{s:f, s:f, s:f, s:i}, s:{s:f, s:f, s:f, s:i}}", "native",
                                                "median", 10.0, "q25", 9.9, "q75", 10.1, "batches", 5, "ring",
                                                "median", 10.0 * again, "q25", 9.9 * again, "q75",
                                                10.1 * again, "batches", 5));
    return p;
}

static void test_confirm(void)
{
    tune_choice c;
    json_t *held = confirmed_point(0.5, 0.6), *gone = confirmed_point(0.5, 1.0);
    CHECK(tune_decide_confirmed(held, 0.03, &c) == 0 && c.switched && c.confirmed && !c.refuted &&
              strcmp(c.winner, "ring") == 0 && fabs(c.ratio - 0.5) < 1e-9,
          "a switch that wins again stands, with its first ratio");
    CHECK(tune_decide_confirmed(gone, 0.03, &c) == 0 && !c.switched && !c.confirmed && c.refuted &&
              strcmp(c.refuted, "ring") == 0 && strcmp(c.winner, "native") == 0,
          "a switch inside the noise when measured again: native stays");
    json_object_del(gone, "confirm");
    CHECK(tune_decide_confirmed(gone, 0.03, &c) == 0 && c.switched && !c.confirmed && !c.refuted,
          "without a second measurement the switch stands as measured");
    char err[256] = "";
    json_t *s = tune_state_new();
    json_array_append_new(json_object_get(s, "points"), confirmed_point(0.5, 1.0));
    int h = -1, r = -1;
    tune_confirm_counts(s, 0.03, &h, &r);
    json_t *t = tune_build_table(s, 0.03, err, sizeof err);
    json_t *r0 = json_array_get(json_object_get(t, "allgather"), 0);
    CHECK(h == 0 && r == 1 && r0 &&
              strcmp(json_string_value(json_array_get(json_object_get(r0, "algorithms"), 0)), "native") == 0 &&
              strstr(json_string_value(json_object_get(r0, "note")), "did not hold"),
          "the table keeps native where the switch did not hold, and says so (%s)", err);
    json_decref(t);
    json_decref(s);
    json_decref(held);
    json_decref(gone);
}

static json_int_t at(json_t *rule, const char *key, int i)
{
    return json_integer_value(json_array_get(json_object_get(rule, key), (size_t)i));
}

static void test_table(void)
{
    char err[256] = "";
    json_t *s = tune_state_new();
    add_point(s, "world", 4, 4096, "bruck", 0.5);   /* out of order on purpose */
    add_point(s, "world", 4, 8, "ring", 0.5);
    add_point(s, "world", 4, 64, "ring", 0.6);
    add_point(s, "world", 4, 512, "ring", 0.995);   /* inside the noise: native */
    add_point(s, "half", 2, 8, "linear", 0.5);
    json_t *t = tune_build_table(s, 0.03, err, sizeof err);
    json_t *r = t ? json_object_get(t, "allgather") : NULL;
    CHECK(json_array_size(r) == 4, "4 rules (got %zu) %s", json_array_size(r), err);
    if (json_array_size(r) == 4) {
        json_t *r0 = json_array_get(r, 0), *r1 = json_array_get(r, 1), *r2 = json_array_get(r, 2),
               *r3 = json_array_get(r, 3);
        /* 64 and 512 are x8 apart, and 512 selects native: the win under 2x
         * reaches halfway to the next grid size (x sqrt 2: 91), not the
         * x2 (128) it reaches where no native neighbour lies beyond; the
         * sizes between get no rule */
        CHECK(at(r0, "bytes", 0) == 0 && at(r0, "bytes", 1) == 92 && json_array_size(json_object_get(r0, "evidence")) == 2,
              "8 and 64 merge into [0, 91] (got %lld)", (long long)at(r0, "bytes", 1));
        CHECK(strcmp(json_string_value(json_array_get(json_object_get(r0, "algorithms"), 0)), "ring") == 0 &&
              fabs(json_real_value(json_object_get(r0, "ratio")) - 0.6) < 1e-9, "ring, worst ratio 0.6");
        CHECK(at(r1, "bytes", 0) == 256 && at(r1, "bytes", 1) == 1025 &&
              strcmp(json_string_value(json_array_get(json_object_get(r1, "algorithms"), 0)), "native") == 0,
              "512 stays native over [256, 1024]");
        /* native below (512), but downwards the reach stays x2: from 2048;
         * the grid's step (x8) again past 4096, capped at x4: halfway to 16384 */
        CHECK(at(r2, "bytes", 0) == 2048 && at(r2, "bytes", 1) == 8192,
              "the last rule ends halfway to the next grid size (got %lld - %lld)", (long long)at(r2, "bytes", 0),
              (long long)at(r2, "bytes", 1));
        CHECK(at(r3, "np", 0) == 2 && at(r3, "np", 1) == 2 && at(r3, "bytes", 1) == 11,
              "the half layout: np 2, one size: up to x sqrt 2");
        CHECK(strcmp(json_string_value(json_object_get(r0, "origin")), "measured") == 0, "origin measured");
    }
    json_decref(t);
    json_decref(s);
}

/* Where allgather rule `idx` of the table built from s begins (end 0) or
 * ends (end 1); -1 unless the table has exactly `rules` of them. */
static long long rule_bound(json_t *s, size_t rules, int idx, int end)
{
    char err[256] = "";
    json_t *t = tune_build_table(s, 0.03, err, sizeof err);
    json_t *r = t ? json_object_get(t, "allgather") : NULL;
    long long b = json_array_size(r) == rules ? (long long)at(json_array_get(r, (size_t)idx), "bytes", end) : -1;
    json_decref(t);
    return b;
}

static long long first_rule_start(json_t *s, size_t rules) { return rule_bound(s, rules, 0, 0); }

/* Between two switches (no native neighbour) a win under 2x keeps its x2 reach. */
static void test_reach_between_switches(void)
{
    json_t *s = tune_state_new();
    add_point(s, "world", 4, 8, "ring", 0.6);
    add_point(s, "world", 4, 512, "bruck", 0.6);
    long long up = rule_bound(s, 2, 0, 1), down = rule_bound(s, 2, 1, 0);
    CHECK(up == 17 && down == 256, "two switches x64 apart reach x2 towards each other (got %lld, %lld)", up, down);
    json_decref(s);
}

/* A win of 2x or more reaches 4x beyond its measured size, a smaller one 2x. */
static void test_reach(void)
{
    char err[256] = "";
    json_t *s = tune_state_new();
    add_point(s, "world", 8, 32768, "h2_cma_rd", 0.65);
    add_point(s, "world", 8, 1048576, "twotier", 0.3);
    json_t *t = tune_build_table(s, 0.03, err, sizeof err);
    json_t *r = t ? json_object_get(t, "allgather") : NULL;
    CHECK(json_array_size(r) == 2, "2 rules (got %zu) %s", json_array_size(r), err);
    if (json_array_size(r) == 2) {
        json_t *r0 = json_array_get(r, 0), *r1 = json_array_get(r, 1);
        CHECK(at(r0, "bytes", 1) == 65537, "0.65x at 32 KiB reaches 64 KiB, included (got %lld)",
              (long long)at(r0, "bytes", 1));
        CHECK(at(r1, "bytes", 0) == 262144 && at(r1, "bytes", 1) == 2097152,
              "0.3x at 1 MiB reaches down to 256 KiB (got %lld - %lld)", (long long)at(r1, "bytes", 0),
              (long long)at(r1, "bytes", 1));
    }
    json_decref(t);
    json_decref(s);
    /* the grid's smallest size not measured: the first rule begins `reach` below its size */
    s = tune_state_new();
    add_point(s, "world", 8, 1048576, "linear_w1", 0.73);
    long long lo = first_rule_start(s, 1);
    CHECK(lo == 0, "no grid recorded (an older state): the first rule from 0 (got %lld)", lo);
    json_object_set_new(s, "grid_min", json_integer(8));
    lo = first_rule_start(s, 1);
    CHECK(lo == 524288, "only 1 MiB measured of a grid from 8 B: 0.73x reaches down to 512 KiB (got %lld)", lo);
    add_point(s, "world", 8, 8, "native", 1.0);
    lo = first_rule_start(s, 2);
    CHECK(lo == 0, "the grid's smallest size measured: its rule from 0 (got %lld)", lo);
    json_decref(s);
}

/* Refining levels measure first where the selection changes between
 * measured neighbours (a gap with native on one side before a gap between
 * two switches), the widest gap, the size nearest its middle; else the
 * smallest. */
static void test_refine(void)
{
    json_t *s = tune_state_new();
    size_t none[] = { 128, 2048 };
    CHECK(tune_refine_pick(s, "world", "allgather", none, 2, 0.03) == 0, "no points: the smallest first");
    CHECK(tune_refine_pick(s, "world", "allgather", none, 0, 0.03) == -1, "no sizes: none");
    add_point(s, "world", 8, 8, "native", 1.0);
    add_point(s, "world", 8, 32768, "native", 1.0);
    add_point(s, "world", 8, 1048576, "chain", 0.5);
    size_t level[] = { 128, 2048, 65536, 131072, 524288 };
    int k = tune_refine_pick(s, "world", "allgather", level, 5, 0.03);
    CHECK(k == 3, "native at 32 KiB, a switch at 1 MiB: 128 KiB first, nearest the gap's middle (got %d)", k);
    CHECK(tune_refine_pick(s, "other", "allgather", level, 5, 0.03) == 0 &&
              tune_refine_pick(s, "world", "bcast", level, 5, 0.03) == 0,
          "another communicator's or collective's points do not count");
    const char *below = NULL, *above = NULL;
    CHECK(tune_refine_gap(s, "world", "allgather", 65536, 0.03, &below, &above) == 0 && below && above &&
              strcmp(below, "native") == 0 && strcmp(above, "chain") == 0,
          "64 KiB lies between native and chain (the narrowed point measures those two)");
    CHECK(tune_refine_gap(s, "world", "allgather", 4096, 0.03, &below, &above) == 2 &&
              tune_refine_gap(s, "world", "allgather", 4 << 20, 0.03, &below, &above) == 2 && above == NULL,
          "agreeing neighbours, or none above: tier 2");
    add_point(s, "world", 8, 131072, "chain", 0.6);
    size_t next[] = { 128, 2048, 65536, 524288 };
    k = tune_refine_pick(s, "world", "allgather", next, 4, 0.03);
    CHECK(k == 2, "the boundary narrowed to 32-128 KiB: 64 KiB next (got %d)", k);
    add_point(s, "world", 8, 65536, "native", 1.0);
    add_point(s, "world", 8, 2097152, "ring", 0.4);
    size_t two[] = { 128, 2048, 1500000 };
    k = tune_refine_pick(s, "world", "allgather", two, 3, 0.03);
    CHECK(k == 2, "between two switches before the agreeing gaps (got %d)", k);
    add_point(s, "world", 8, 512, "ring", 0.5);
    k = tune_refine_pick(s, "world", "allgather", two, 3, 0.03);
    CHECK(k == 0, "a gap with native on one side before one between two switches (got %d)", k);
    json_decref(s);
}

static void test_options(void)
{
    char err[256] = "";
    tune_opts o;
    CHECK(tune_parse_duration("10m") == 600 && tune_parse_duration("90s") == 90 && tune_parse_duration("1h") == 3600 &&
          tune_parse_duration("42") == 42, "durations");
    CHECK(tune_parse_duration("abc") < 0 && tune_parse_duration("0") < 0 && tune_parse_duration("5x") < 0 &&
          tune_parse_duration("-1m") < 0, "bad durations");
    char *a1[] = { "tune", "--min", "8", "--max", "1K", "--factor", "4", "-o", "x.json", NULL };
    int rc = tune_parse_options(9, a1, &o, err, sizeof err);
    CHECK(rc == TUNE_PARSE_OK && o.nsizes == 4 && o.sizes[0] == 8 && o.sizes[3] == 512, "grid 8..1K x4 (%s)", err);
    CHECK(rc == TUNE_PARSE_OK && strcmp(o.state, "x.json.state") == 0 && o.max_reps == 10, "state name, max reps");
    tune_opts_free(&o);
    char *a2[] = { "tune", "--comms", "world,pernode,half", "--colls", "bcast,reduce", NULL };
    rc = tune_parse_options(5, a2, &o, err, sizeof err);
    CHECK(rc == TUNE_PARSE_OK && o.ncomms == 3 && tune_coll_selected(&o, "reduce") && !tune_coll_selected(&o, "red"),
          "comms and colls");
    tune_opts_free(&o);
    char *a4[] = { "tune", "--rebuild", "-o", "t.json", NULL };
    rc = tune_parse_options(4, a4, &o, err, sizeof err);
    CHECK(rc == TUNE_PARSE_OK && o.rebuild && o.resume && strcmp(o.state, "t.json.state") == 0,
          "--rebuild: from the state file, nothing measured (%s)", err);
    tune_opts_free(&o);
    char *a3[] = { "tune", "--factor", "1", NULL };
    CHECK(tune_parse_options(3, a3, &o, err, sizeof err) == TUNE_PARSE_ERROR && strstr(err, "--factor"), "factor 1");
    tune_opts_free(&o);
}

static void test_state(void)
{
    char path[] = "/tmp/tune-selftest-XXXXXX", err[256] = "";
    int fd = mkstemp(path);
    if (fd >= 0) close(fd);
    json_t *s = tune_state_new();
    add_point(s, "world", 4, 8, "ring", 0.5);
    json_t *names = json_pack("[s, s]", "native", "ring");
    tune_state_set_shortlist(s, "world", "allgather", names);   /* (takes its own reference) */
    json_decref(names);
    CHECK(fd >= 0 && tune_state_save(s, path) == 0, "save");
    json_t *l = tune_state_load(path, err, sizeof err);
    CHECK(l && tune_state_point(l, "world", "allgather", 8) && !tune_state_point(l, "world", "allgather", 64) &&
          json_array_size(tune_state_shortlist(l, "world", "allgather")) == 2, "load round trip (%s)", err);
    json_decref(l);
    FILE *f = fopen(path, "w");
    if (f) { fputs("{\"version\": 99, \"points\": [], \"shortlists\": {}}", f); fclose(f); }
    CHECK(tune_state_load(path, err, sizeof err) == NULL && strstr(err, "state file"), "wrong version refused");
    remove(path);
    json_decref(s);
}

/* The screen's rankings: the one of the screened size nearest (by ratio) is
 * what a narrowed point uses; a state without any gives none. */
static void test_screened(void)
{
    json_t *s = tune_state_new();
    CHECK(tune_state_screened(s, "world", "bcast", 1024) == NULL, "no ranking in a fresh state");
    json_t *small = json_pack("[[s, f], [s, f]]", "native", 10.0, "binomial", 5.0);
    json_t *large = json_pack("[[s, f], [s, f], [s, f]]", "native", 2e5, "ring", 7e4, "twotier", 1e5);
    tune_state_set_screened(s, "world", "bcast", 8, small);
    tune_state_set_screened(s, "world", "bcast", 1 << 20, large);
    json_decref(small);
    json_decref(large);
    json_t *r = tune_state_screened(s, "world", "bcast", 512 << 10);
    CHECK(json_array_size(r) == 3 && strcmp(json_string_value(json_array_get(json_array_get(r, 1), 0)), "ring") == 0,
          "512 KiB takes the 1 MiB ranking");
    r = tune_state_screened(s, "world", "bcast", 64);
    CHECK(json_array_size(r) == 2, "64 B takes the 8 B ranking");
    CHECK(tune_state_screened(s, "world", "reduce", 64) == NULL, "another collective has none");
    json_decref(s);
}

static json_t *fixture(void)
{
    return json_pack("{s:[{s:[i,i], s:[i,i], s:[i,i], s:[s]}, {s:[i,i], s:[i,i], s:[i,i], s:[s]}], s:{s:s}}",
                     "allgather", "np", 4, 4, "nodes", 1, 1, "bytes", 0, 1024, "algorithms", "ring",
                     "np", 4, 4, "nodes", 1, 1, "bytes", 1024, 0, "algorithms", "h1_shm_rd_shm",
                     "_tuned", "tool", "selftest");
}

static void test_exports(void)
{
    char path[] = "/tmp/tune-selftest-XXXXXX", err[256] = "", text[2048] = "";
    int fd = mkstemp(path);
    if (fd >= 0) close(fd);
    json_t *t = fixture();
    CHECK(fd >= 0 && tune_export_ompi(t, path, err, sizeof err) == 0, "ompi export (%s)", err);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = '\0';
    if (f) fclose(f);
    CHECK(strstr(text, "\n0  # allgather\n2  # communicator sizes\n4  # communicator size\n2  # message sizes\n"
                       "0 4 0 0") != NULL, "ompi: ring (4) from 0 bytes:\n%s", text);
    CHECK(strstr(text, "\n4096 0 0 0") && strstr(text, "\n5  # communicator size (untuned"),
          "ompi: 1 KiB x 4 ranks hands back to the fixed decision, np 5 untuned:\n%s", text);
    CHECK(tune_export_mpich(t, NULL, path, err, sizeof err) != 0 && strstr(err, "--mpich-base"), "mpich needs a base");
    json_t *base = json_pack("{s:{s:{s:{}}, s:{}}}", "collective=allgather", "comm_type=intra",
                             "algorithm=MPIR_Allgather_intra_brucks", "comm_type=inter");
    CHECK(tune_export_mpich(t, base, path, err, sizeof err) == 0, "mpich export (%s)", err);
    json_t *m = tune_state_load_json(path, err, sizeof err);
    json_t *four = json_object_get(json_object_get(json_object_get(json_object_get(m, "collective=allgather"),
                                                                   "comm_type=intra"), "comm_size<=4"),
                                   "total_msg_size<4096");
    CHECK(json_object_get(four, "algorithm=MPIR_Allgather_intra_ring") != NULL, "mpich: ring below 4096 total bytes");
    json_t *rest = json_object_get(json_object_get(json_object_get(json_object_get(m, "collective=allgather"),
                                                                   "comm_type=intra"), "comm_size<=4"),
                                   "total_msg_size=any");
    CHECK(json_object_get(rest, "algorithm=MPIR_Allgather_intra_brucks") != NULL,
          "mpich: no MPICH counterpart: the base's own tree");
    json_decref(m);
    /* a grid that ended at 1 KiB with ring winning: above it both libraries decide again */
    json_t *bounded = json_pack("{s:[{s:[i,i], s:[i,i], s:[i,i], s:[s]}]}", "allgather", "np", 4, 4, "nodes", 1, 1,
                                "bytes", 0, 1024, "algorithms", "ring");
    CHECK(tune_export_ompi(bounded, path, err, sizeof err) == 0, "ompi export, bounded (%s)", err);
    f = fopen(path, "r");
    n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = '\0';
    if (f) fclose(f);
    CHECK(strstr(text, "2  # message sizes\n0 4 0 0") && strstr(text, "\n4096 0 0 0"),
          "ompi: ring up to the grid's end (1 KiB x 4), then the fixed decision:\n%s", text);
    CHECK(tune_export_mpich(bounded, base, path, err, sizeof err) == 0, "mpich export, bounded (%s)", err);
    m = tune_state_load_json(path, err, sizeof err);
    json_t *np4 = json_object_get(json_object_get(json_object_get(m, "collective=allgather"), "comm_type=intra"),
                                  "comm_size<=4");
    CHECK(json_object_get(json_object_get(np4, "total_msg_size<4096"), "algorithm=MPIR_Allgather_intra_ring") &&
              json_object_get(json_object_get(np4, "total_msg_size=any"), "algorithm=MPIR_Allgather_intra_brucks"),
          "mpich: ring below 4096 total bytes, the base's tree above");
    json_decref(m);
    json_decref(bounded);
    json_decref(base);
    json_decref(t);
    remove(path);
}

int main(void)
{
    test_decide();
    test_decide_builtin();
    test_table();
    test_reach_between_switches();
    test_reach();
    test_refine();
    test_confirm();
    test_load();
    test_options();
    test_state();
    test_screened();
    test_exports();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
