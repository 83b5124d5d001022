/*
 * topocoll-tune: from measured points to selection rules.  No MPI.
 *
 * The noise test.  Every entry of a point has batch times (median, q25,
 * q75 over batches).  The base is what the library would run there without
 * a tuning file (the point's "builtin": the built-in table's rule, else the
 * cost model's choice), measured among the entries, unless native beats it
 * beyond the noise; else native.  An entry may replace the base only when
 * its q75, raised by the margin, is below the base's q25: the win is larger
 * than both spreads together.  Among such entries the lowest median wins;
 * where none passes, the base stays.  So a tune confirms or refutes the
 * built-in choices instead of overriding them with native wherever a noisy
 * machine cannot tell them apart (the main job, 4 ranks on 2 cores: the
 * built-in `linear` at 8-128 B, whose launch-to-launch swing of +-15 % is
 * wider than any difference a single tune can resolve).  Adjacent sizes of one (collective, communicator) with the
 * same winner become one rule whose byte range reaches halfway (geometric
 * mean) to the neighbouring measured sizes, the first from 0 (or, where the
 * grid's smallest size was not measured, from its own size over its reach)
 * and the last
 * halfway to the size the grid would measure next (the last two sizes' step
 * again, at most x4, so a rule reaches at most twice the largest measured
 * size even where a budget left only every 4th size; x2 for a single size):
 * beyond that nothing was measured, so the built-in rules and the model
 * decide there, not a rule stretched from the largest size a time budget
 * let the tune reach.  Upwards towards a measured neighbour that selects
 * native, a switch that is not a clear win reaches only halfway to the next
 * grid size (reach_up_of).  Every rule keeps its evidence: per measured
 * size the winner's ratio to native's median and its spread (q25, q75 over
 * native's median).  A point that says whether it was measured oversubscribed
 * (topocoll_oversubscribed at tune time) gives its rule "oversubscribed":
 * true or false, so the rule serves that kind of machine only.  A switch
 * whose point was measured again ("confirm": native and the winner alone)
 * stands only if the win passes the same test there against the base
 * (measured again with it); otherwise the base stays and the rule's note
 * says so.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench/bench.h"
#include "tune.h"

static int stat_of(json_t *e, tune_stat *s)
{
    json_t *m = json_object_get(e, "median"), *lo = json_object_get(e, "q25"),
           *hi = json_object_get(e, "q75");
    if (!json_is_number(m) || !json_is_number(lo) || !json_is_number(hi)) return -1;
    s->med = json_number_value(m);
    s->lo = json_number_value(lo);
    s->hi = json_number_value(hi);
    s->n = (int)json_integer_value(json_object_get(e, "batches"));
    return s->med > 0 && s->lo > 0 && s->lo <= s->med && s->med <= s->hi ? 0 : -1;
}

/* Beats: x wins over y beyond both spreads and the margin. */
static int beats(const tune_stat *x, const tune_stat *y, double margin)
{
    return x->hi * (1.0 + margin) < y->lo;
}

static void set_ratio(tune_choice *c, const tune_stat *w, const tune_stat *nat)
{
    c->ratio = w->med / nat->med;
    c->lo = w->lo / nat->med;
    c->hi = w->hi / nat->med;
}

int tune_decide_point(json_t *entries, const char *builtin, double margin, tune_choice *c)
{
    tune_stat nat, st, base, best = { 0, 0, 0, 0 };
    if (stat_of(json_object_get(entries, "native"), &nat) != 0) return -1;
    base = nat;
    c->base = "native";
    /* the built-in choice stays the base unless native refutes it */
    if (builtin && strcmp(builtin, "native") != 0 && stat_of(json_object_get(entries, builtin), &st) == 0 &&
        !beats(&nat, &st, margin)) {
        base = st;
        c->base = json_object_iter_key(json_object_iter_at(entries, builtin));
    }
    c->winner = c->base;
    c->switched = 0;
    const char *name;
    json_t *e;
    json_object_foreach(entries, name, e) {
        if (strcmp(name, c->base) == 0 || stat_of(e, &st) != 0) continue;
        if (beats(&st, &base, margin) && (!c->switched || st.med < best.med)) {
            best = st;
            c->winner = name;
            c->switched = 1;
        }
    }
    set_ratio(c, c->switched ? &best : &base, &nat);
    return 0;
}

int tune_decide_confirmed(json_t *point, double margin, tune_choice *c)
{
    json_t *entries = json_object_get(point, "entries");
    if (tune_decide_point(entries, json_string_value(json_object_get(point, "builtin")), margin, c) != 0)
        return -1;
    c->confirmed = 0;
    c->refuted = NULL;
    json_t *again = json_object_get(point, "confirm");
    if (!c->switched || !json_is_object(again)) return 0;
    /* measured again against the base (native where an older state has only it) */
    tune_stat base, win;
    int ok = stat_of(json_object_get(again, c->base), &base) == 0 ||
             stat_of(json_object_get(again, "native"), &base) == 0;
    if (ok && stat_of(json_object_get(again, c->winner), &win) == 0 && beats(&win, &base, margin)) {
        c->confirmed = 1;
        return 0;
    }
    /* measured again, the win was inside the noise: the base stays */
    tune_stat nat, first;
    if (stat_of(json_object_get(entries, "native"), &nat) != 0 ||
        stat_of(json_object_get(entries, c->base), &first) != 0)
        return -1;
    c->refuted = c->winner;
    c->winner = c->base;
    c->switched = 0;
    set_ratio(c, &first, &nat);
    return 0;
}

void tune_confirm_counts(json_t *state, double margin, int *held, int *refuted)
{
    size_t i;
    json_t *p;
    *held = *refuted = 0;
    json_array_foreach(json_object_get(state, "points"), i, p) {
        tune_choice ch;
        if (!json_object_get(p, "confirm") || tune_decide_confirmed(p, margin, &ch) != 0) continue;
        *held += ch.confirmed;
        *refuted += ch.refuted != NULL;
    }
}

/* The boundary between measured sizes a < b: their geometric mean, in (a, b]. */
static size_t boundary(size_t a, size_t b)
{
    double g = sqrt((double)a * (double)b);
    size_t m = (size_t)llround(g);
    if (m <= a) m = a + 1;
    if (m > b) m = b;
    return m;
}

/* Where the rule of the largest measured size ends: halfway to the size the
 * grid would have measured next. */
static size_t grid_end(json_t **pts, int n)
{
    size_t last = (size_t)json_integer_value(json_object_get(pts[n - 1], "bytes"));
    size_t prev = n > 1 ? (size_t)json_integer_value(json_object_get(pts[n - 2], "bytes")) : 0;
    double step = prev > 0 && prev < last ? (double)last / (double)prev : 2.0;
    if (step > 4.0) step = 4.0;
    if ((double)last * step >= (double)SIZE_MAX / 2) return 0;   /* no bound */
    return boundary(last, (size_t)llround((double)last * step));
}

/* How far a rule reaches beyond the sizes measured for it: halfway to the
 * neighbouring measured size, but at most `reach` times (or 1/reach of) its
 * own, where reach is REACH_CLEAR for a switch whose every measured point
 * won by 2x or more (upper quartile at most half of native's median: on
 * links that win is the bandwidth's and holds over the neighbouring sizes)
 * and REACH otherwise.  Where a budget left a coarse grid (32 KiB and 1 MiB
 * measured, nothing between), the sizes between get no measured rule and
 * the built-in table decides there: on the emulated cluster a 1 MiB win of
 * 0.76x (`h1_shm_ring`) stretched down to 181 KiB cost 1.41x at 256 KiB,
 * while 0.29-0.36x wins of bcast and allgather held 4x below. */
#define REACH 2.0
#define REACH_CLEAR 4.0
#define CLEAR_WIN 0.5

static double reach_of(const tune_choice *ch, int i, int j)
{
    double worst = 0;
    for (int k = i; k <= j; k++) worst = fmax(worst, ch[k].hi);
    return ch[i].switched && worst <= CLEAR_WIN ? REACH_CLEAR : REACH;
}

/* Upwards, towards a measured neighbour that selects native, a switch that
 * is not a clear win reaches only halfway to the next grid size
 * (NATIVE_SIDE_REACH, a factor sqrt 2): somewhere in that gap the
 * selection returns to native, typically where the MPI library moves to
 * its bandwidth algorithms, so the sizes left between go to the built-in
 * table and the model (native where they are unsure).  On the emulated
 * cluster a 32 KiB allreduce win of 0.58-0.67x (`h1_shm_rd`, 512 KiB
 * native) had reached 64 KiB, where Open MPI's tuned allreduce is much
 * faster: 1.13-1.18x native in two runs.  Downwards the reach stays: a
 * reduce chain's 0.57x at 512 KiB (32 KiB native) held at 256 KiB,
 * 0.46-0.50x, and a tune that stopped it at 370 KiB left 256 KiB native. */
#define NATIVE_SIDE_REACH 1.4142135623730951

static double reach_up_of(const tune_choice *ch, int i, int j, int n, double reach)
{
    if (j + 1 >= n || reach > REACH || !ch[i].switched) return reach;
    return strcmp(ch[j + 1].winner, "native") == 0 ? NATIVE_SIDE_REACH : reach;
}

/* The size `reach` times the last one is included: [.., cap + 1). A tune
 * whose budget measured 32 KiB and 1 MiB had left 64 KiB itself, the size
 * the grid measures next, to the built-in table. */
static size_t reach_up(size_t last, size_t next, double reach)
{
    size_t b = boundary(last, next), cap = (size_t)llround((double)last * reach) + 1;
    return b < cap ? b : cap;
}

static size_t reach_down(size_t prev, size_t first, double reach)
{
    size_t b = boundary(prev, first), cap = (size_t)llround((double)first / reach);
    return b > cap ? b : cap;
}

static int cmp_bytes(const void *x, const void *y)
{
    json_int_t a = json_integer_value(json_object_get(*(json_t *const *)x, "bytes"));
    json_int_t b = json_integer_value(json_object_get(*(json_t *const *)y, "bytes"));
    return (a > b) - (a < b);
}

/* Why a rule's entry stands where it did not switch ("" where it did). */
static const char *kept_why(const tune_choice *c)
{
    if (c->switched) return "";
    if (strcmp(c->winner, "native") == 0) return " (nothing beat it beyond the noise)";
    return " (the built-in choice: neither native nor another entry beat it beyond the noise)";
}

/* Where the rule of the smallest measured size begins: at 0 when that size
 * is the grid's smallest (grid_min; 0: not recorded, as in older states),
 * else `reach` below it.  A budget that measured only a collective's 1 MiB
 * point had stretched that rule down to 0 bytes (the emulated cluster:
 * alltoall's `linear_w1`, 0.73x at 1 MiB, over the hierarchical entries the
 * built-in table runs below 8 KiB). */
static size_t first_floor(size_t first, size_t grid_min, double reach)
{
    if (grid_min == 0 || first <= grid_min) return 0;
    size_t cap = (size_t)llround((double)first / reach);
    return cap > grid_min ? cap : grid_min;
}

/* One rule for points pts[i..j] (sorted by bytes), all with winner ch[i]. */
static json_t *make_rule(json_t **pts, const tune_choice *ch, int i, int j, int n, size_t grid_min)
{
    double reach = reach_of(ch, i, j);
    size_t lo = i == 0 ? first_floor((size_t)json_integer_value(json_object_get(pts[0], "bytes")), grid_min, reach)
                       : reach_down((size_t)json_integer_value(json_object_get(pts[i - 1], "bytes")),
                                    (size_t)json_integer_value(json_object_get(pts[i], "bytes")), reach);
    size_t hi = j == n - 1 ? grid_end(pts, n) : reach_up((size_t)json_integer_value(json_object_get(pts[j], "bytes")),
                                                         (size_t)json_integer_value(json_object_get(pts[j + 1], "bytes")),
                                                         reach_up_of(ch, i, j, n, reach));
    json_int_t np = json_integer_value(json_object_get(pts[i], "np"));
    json_int_t nodes = json_integer_value(json_object_get(pts[i], "nodes"));
    double worst = 0, slo = 1e300, shi = 0;
    int held = 0, refuted = 0;
    json_t *ev = json_array();
    for (int k = i; k <= j; k++) {
        held += ch[k].confirmed;
        refuted += ch[k].refuted != NULL;
        worst = fmax(worst, ch[k].ratio);
        slo = fmin(slo, ch[k].lo);
        shi = fmax(shi, ch[k].hi);
        json_array_append_new(ev, json_pack("[I, f, f, f]", json_integer_value(json_object_get(pts[k], "bytes")),
                                            ch[k].ratio, ch[k].lo, ch[k].hi));
    }
    char a[32], b[32], note[400], again[96] = "";
    if (held) snprintf(again, sizeof again, "; measured again at %d size%s: held", held, held == 1 ? "" : "s");
    if (refuted)
        snprintf(again, sizeof again, "; a switch at %d size%s did not hold when measured again", refuted,
                 refuted == 1 ? "" : "s");
    bench_format_size((size_t)json_integer_value(json_object_get(pts[i], "bytes")), a, sizeof a);
    bench_format_size((size_t)json_integer_value(json_object_get(pts[j], "bytes")), b, sizeof b);
    json_t *over = json_object_get(pts[i], "oversubscribed");
    snprintf(note, sizeof note, "measured (%s, np %lld, %lld node%s%s), %s%s%s: %s %.2fx native at worst%s%s",
             json_string_value(json_object_get(pts[i], "comm")), (long long)np, (long long)nodes,
             nodes == 1 ? "" : "s", !json_is_boolean(over) ? "" : json_is_true(over) ? ", oversubscribed" : ", dedicated",
             a, i == j ? "" : " - ", i == j ? "" : b, ch[i].winner, worst,
             kept_why(&ch[i]), again);
    json_t *rule = json_pack("{s:[I,I], s:[I,I], s:[I,I], s:[s], s:s, s:f, s:[f,f], s:o, s:s}", "np", np, np,
                             "nodes", nodes, nodes, "bytes", (json_int_t)lo, (json_int_t)hi, "algorithms",
                             ch[i].winner, "origin", "measured", "ratio", worst, "spread", slo, shi,
                             "evidence", ev, "note", note);
    /* measured on an oversubscribed machine or not: the rule serves that kind only */
    if (rule && json_is_boolean(over)) json_object_set_new(rule, "oversubscribed", json_boolean(json_is_true(over)));
    return rule;
}

/* Rules of one group (points of one collective and communicator). */
static int group_rules(json_t *group, json_t *out, double margin, size_t grid_min, char *err, size_t len)
{
    int n = (int)json_array_size(group), rc = 0;
    json_t **pts = calloc((size_t)n + 1, sizeof *pts);
    tune_choice *ch = calloc((size_t)n + 1, sizeof *ch);
    if (!pts || !ch) {
        snprintf(err, len, "out of memory");
        rc = -1;
        goto done;
    }
    for (int k = 0; k < n; k++) pts[k] = json_array_get(group, (size_t)k);
    qsort(pts, (size_t)n, sizeof *pts, cmp_bytes);
    int m = 0;   /* points with a decision (native measured) */
    for (int k = 0; k < n; k++)
        if (tune_decide_confirmed(pts[k], margin, &ch[m]) == 0) pts[m++] = pts[k];
    for (int i = 0, j; i < m; i = j + 1) {
        for (j = i; j + 1 < m && strcmp(ch[j + 1].winner, ch[i].winner) == 0;) j++;
        json_t *r = make_rule(pts, ch, i, j, m, grid_min);
        if (!r || json_array_append_new(out, r) != 0) {
            snprintf(err, len, "out of memory");
            rc = -1;
            break;
        }
    }
done:
    free(pts);
    free(ch);
    return rc;
}

json_t *tune_build_table(json_t *state, double margin, char *err, size_t len)
{
    json_t *groups = json_object(), *table = json_object(), *p;
    size_t i, grid_min = (size_t)json_integer_value(json_object_get(state, "grid_min"));
    char key[160];
    json_array_foreach(json_object_get(state, "points"), i, p) {
        const char *comm = json_string_value(json_object_get(p, "comm"));
        const char *coll = json_string_value(json_object_get(p, "coll"));
        if (!comm || !coll) continue;
        /* points measured under another load (a resumed run elsewhere) make their own rules */
        json_t *over = json_object_get(p, "oversubscribed");
        snprintf(key, sizeof key, "%s\n%s\n%s", coll, comm, !over ? "any" : json_is_true(over) ? "over" : "dedicated");
        json_t *g = json_object_get(groups, key);
        if (!g) json_object_set_new(groups, key, g = json_array());
        json_array_append(g, p);
    }
    const char *k;
    json_t *g;
    json_object_foreach(groups, k, g) {
        char coll[128];
        snprintf(coll, sizeof coll, "%.*s", (int)strcspn(k, "\n"), k);
        json_t *rules = json_object_get(table, coll);
        if (!rules) json_object_set_new(table, coll, rules = json_array());
        if (group_rules(g, rules, margin, grid_min, err, len) != 0) {
            json_decref(table);
            table = NULL;
            break;
        }
    }
    json_decref(groups);
    return table;
}

/* ---- where a refining level measures first ---------------------------------------- */

/* What the table would select at the measured point of (comm, coll) nearest
 * below (dir < 0) or above (dir > 0) `bytes`; its size in *at.  NULL where
 * no point with a decision lies on that side. */
static const char *neighbour_choice(json_t *state, const char *comm, const char *coll, size_t bytes, int dir,
                                    double margin, size_t *at)
{
    const char *name = NULL;
    size_t i;
    json_t *p;
    *at = 0;
    json_array_foreach(json_object_get(state, "points"), i, p) {
        const char *pc = json_string_value(json_object_get(p, "comm"));
        const char *pl = json_string_value(json_object_get(p, "coll"));
        size_t b = (size_t)json_integer_value(json_object_get(p, "bytes"));
        tune_choice ch;
        if (!pc || !pl || strcmp(pc, comm) != 0 || strcmp(pl, coll) != 0) continue;
        int this_side = dir < 0 ? b < bytes : b > bytes;
        int nearer = !name || (dir < 0 ? b > *at : b < *at);
        if (!this_side || !nearer || tune_decide_confirmed(p, margin, &ch) != 0) continue;
        name = ch.winner;
        *at = b;
    }
    return name;
}

/* How urgent measuring `bytes` is (tune.h); *width: the gap's ratio (log),
 * *off: how far bytes lies from the gap's geometric middle (log scale). */
static int refine_tier(json_t *state, const char *comm, const char *coll, size_t bytes, double margin,
                       const char **below, const char **above, double *width, double *off)
{
    size_t lo = 0, hi = 0;
    *below = neighbour_choice(state, comm, coll, bytes, -1, margin, &lo);
    *above = neighbour_choice(state, comm, coll, bytes, +1, margin, &hi);
    *width = *off = 0;
    if (!*below || !*above || strcmp(*below, *above) == 0) return 2;
    *width = log((double)hi / (double)lo);
    *off = fabs(log((double)bytes) - 0.5 * (log((double)lo) + log((double)hi)));
    return strcmp(*below, "native") == 0 || strcmp(*above, "native") == 0 ? 0 : 1;
}

int tune_refine_gap(json_t *state, const char *comm, const char *coll, size_t bytes, double margin,
                    const char **below, const char **above)
{
    double width, off;
    return refine_tier(state, comm, coll, bytes, margin, below, above, &width, &off);
}

/* Is a size of gap (tier, width, off) to be measured before the best so
 * far?  A lower tier first; in tiers 0 and 1 the wider gap (bisection),
 * then the size nearer its middle; otherwise the given order stands (ties
 * within rounding keep the earlier size). */
static int refine_before(int tier, double width, double off, int best_tier, double best_width, double best_off)
{
    const double eps = 1e-9;
    if (tier != best_tier) return tier < best_tier;
    if (tier == 2) return 0;
    if (fabs(width - best_width) > eps * best_width) return width > best_width;
    return off < best_off - eps;
}

int tune_refine_pick(json_t *state, const char *comm, const char *coll, const size_t *sizes, int n,
                     double margin)
{
    int best = -1, best_tier = 3;
    double best_width = 0, best_off = 0;
    for (int k = 0; k < n; k++) {
        double width, off;
        const char *below, *above;
        int tier = refine_tier(state, comm, coll, sizes[k], margin, &below, &above, &width, &off);
        if (best < 0 || refine_before(tier, width, off, best_tier, best_width, best_off)) {
            best = k;
            best_tier = tier;
            best_width = width;
            best_off = off;
        }
    }
    return best;
}
