/* The selector (src/select/selector.h), no MPI: the sources of a decision
 * in their order (forced over learned over the tuning file over the
 * built-in rules over the model over native), a declining forced or learned
 * entry falling through with its reason, an unknown forced name, the
 * explain text naming the source that decided, the one-node memory model;
 * and the learner's candidates (tc_select_candidates): the rules' choice
 * first, native always there, only accepting entries, no duplicates, at
 * most max, the same list for the same inputs.
 * Ends with "N passed, M failed". */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/config.h"
#include "select/cost_model.h"
#include "select/select.h"
#include "select/selector.h"
#include "select/shm_model.h"
#include "topo/topo.h"
#include "../common/harness.h"
#include "../common/topo_spec.h"

static char path[] = "/tmp/topocoll_selector_XXXXXX";

/* The configuration reloaded with `file` as TOPOCOLL_TUNING_FILE (NULL:
 * none) and `forced` as TOPOCOLL_ALLGATHER (NULL: none). */
static void configure(const char *file, const char *forced)
{
    if (file) {
        FILE *f = fopen(path, "w");
        if (!f) { perror(path); exit(2); }
        fputs(file, f);
        fclose(f);
        setenv("TOPOCOLL_TUNING_FILE", path, 1);
    } else {
        unsetenv("TOPOCOLL_TUNING_FILE");
    }
    if (forced) setenv("TOPOCOLL_ALLGATHER", forced, 1);
    else unsetenv("TOPOCOLL_ALLGATHER");
    tc_config_reload();
    tc_select_finalize();
}

static tc_args args_of(topocoll_coll coll, const tc_topo *t, int64_t bytes, int load)
{
    tc_args a;
    memset(&a, 0, sizeof a);
    a.coll = coll;
    a.size = t->size;
    a.scount = a.rcount = coll == TOPOCOLL_ALLREDUCE ? (bytes / 8 > 0 ? bytes / 8 : 1) : bytes;
    a.commutative = 1;
    a.node_shm = 1;
    a.load = load;
    return a;
}

static const char *name_of(const tc_decision *d) { return d->algo ? d->algo->name : "(none)"; }

static const tc_algo *entry(topocoll_coll coll, const char *name)
{
    const tc_algo *al = tc_catalog_find(coll, name);
    if (!al) { fprintf(stderr, "no %s %s in the catalog\n", tc_coll_name(coll), name); exit(2); }
    return al;
}

/* The decision with the configuration's forced entry, `learned`, `shm`. */
static tc_decision decide(const tc_args *a, const tc_topo *t, int64_t bytes, const tc_algo *learned,
                          const tc_shm_model *shm, char *why, size_t len)
{
    tc_select_in in = tc_select_in_make(a, t, bytes);
    in.learned = learned;
    in.learned_note = learned ? "won 3 of 3 rounds" : NULL;
    in.shm = shm;
    tc_why w = { why, len };
    return tc_selector_decide(&in, &w);
}

/* np 128 on 8 nodes of 16, allgather of 2 KiB: no built-in rule; the file
 * below has one; the cost model names an entry there (its choice is
 * checked against tc_model_choose, not assumed). */
static const char *const file_np128 =
    "{ \"allgather\": [ {\"np\": [128, 128], \"algorithms\": [\"ring\"], \"origin\": \"measured\"} ] }";

static void order(void)
{
    char why[1024];
    tc_topo *big = tc_test_topo("8x16", 128);
    tc_args a = args_of(TOPOCOLL_ALLGATHER, big, 2048, TC_LOAD_ANY);
    const tc_algo *learned = entry(TOPOCOLL_ALLGATHER, "recursive_doubling");

    /* every source present: forced decides */
    configure(file_np128, "neighbor_exchange");
    tc_decision d = decide(&a, big, 2048, learned, NULL, why, sizeof why);
    CHECK(d.source == TC_SOURCE_FORCED && d.forced_how == TC_FORCED_SERVED &&
              strcmp(name_of(&d), "neighbor_exchange") == 0 && strcmp(why, "forced by TOPOCOLL_ALLGATHER") == 0 &&
              d.rule == -1 && !d.table,
          "forced over learned: %s from %s (%s)", name_of(&d), tc_source_name(d.source), why);
    /* nothing forced: the learned choice, over the file */
    configure(file_np128, NULL);
    d = decide(&a, big, 2048, learned, NULL, why, sizeof why);
    CHECK(d.source == TC_SOURCE_LEARNED && d.algo == learned && d.forced_how == TC_FORCED_NONE &&
              strcmp(why, "learned: won 3 of 3 rounds") == 0,
          "learned over the file: %s from %s (%s)", name_of(&d), tc_source_name(d.source), why);
    /* nothing learned: the file's rule, over the model */
    d = decide(&a, big, 2048, NULL, NULL, why, sizeof why);
    char want[300];
    snprintf(want, sizeof want, "tuning file %s rule 0 (measured): ", path);
    CHECK(d.source == TC_SOURCE_FILE && strcmp(name_of(&d), "ring") == 0 && d.rule == 0 && d.table == tc_select_file() &&
              strncmp(why, want, strlen(want)) == 0,
          "the file over the model: %s from %s (%s)", name_of(&d), tc_source_name(d.source), why);
    /* no file: no built-in rule for np 128, the cost model */
    configure(NULL, NULL);
    tc_model_pick pk = tc_model_choose(tc_model_builtin(), &a, big, 2048);
    d = decide(&a, big, 2048, NULL, NULL, why, sizeof why);
    CHECK(pk.algo && d.source == TC_SOURCE_MODEL && d.algo == pk.algo && strncmp(why, "model (built-in parameters): ", 29) == 0,
          "the model: %s from %s (%s; the model's pick %s)", name_of(&d), tc_source_name(d.source), why,
          pk.algo ? pk.algo->name : "native");
    /* a model that never sees a gain: native ends the walk, and says what the model said */
    configure("{ \"replace_builtin\": true, \"_model\": {\"margin\": 100}, \"bcast\": [] }", NULL);
    d = decide(&a, big, 2048, NULL, NULL, why, sizeof why);
    CHECK(d.source == TC_SOURCE_NATIVE && strcmp(name_of(&d), "native") == 0 && strstr(why, "margin 1e+02 not reached; ") &&
              strstr(why, "no rule served: native fallback"),
          "native: %s from %s (%s)", name_of(&d), tc_source_name(d.source), why);
    tc_topo_free(big);

    /* 2x2, allgather of 16 KiB: a built-in rule serves; the same call with a
     * file replacing the built-in rules goes to the model or native */
    tc_topo *two = tc_test_topo("2x2", 4);
    a = args_of(TOPOCOLL_ALLGATHER, two, 16384, TC_LOAD_OVERSUBSCRIBED);
    configure(NULL, NULL);
    d = decide(&a, two, 16384, NULL, NULL, why, sizeof why);
    CHECK(d.source == TC_SOURCE_BUILTIN && d.table == tc_default_table() && d.rule >= 0 &&
              strncmp(why, "built-in rule ", 14) == 0,
          "built-in: %s from %s (%s)", name_of(&d), tc_source_name(d.source), why);
    configure("{ \"replace_builtin\": true, \"bcast\": [] }", NULL);
    d = decide(&a, two, 16384, NULL, NULL, why, sizeof why);
    CHECK((d.source == TC_SOURCE_MODEL || d.source == TC_SOURCE_NATIVE) && !strstr(why, "built-in rule") &&
              strstr(why, "no rule of the tuning file"),
          "built-in replaced: %s from %s (%s)", name_of(&d), tc_source_name(d.source), why);
    tc_topo_free(two);
    configure(NULL, NULL);
}

/* A forced or learned entry that declines falls through, with its reason;
 * an unknown forced name decides with no algorithm. */
static void declines(void)
{
    char why[1024];
    tc_topo *three = tc_test_topo("3", 3);
    tc_args a = args_of(TOPOCOLL_ALLGATHER, three, 64, TC_LOAD_ANY);
    const tc_algo *ne = entry(TOPOCOLL_ALLGATHER, "neighbor_exchange");   /* even np only */
    const char *reason = "";
    CHECK(!tc_algo_accepts(ne, &a, three, &reason), "neighbor_exchange accepts np 3");

    configure(NULL, "neighbor_exchange");
    tc_decision plain = tc_select_decide(&a, three, 64, NULL, 0);
    tc_decision d = decide(&a, three, 64, NULL, NULL, why, sizeof why);
    char want[300];
    snprintf(want, sizeof want, "forced neighbor_exchange declined (%s); ", reason);
    CHECK(d.forced_how == TC_FORCED_DECLINED && d.source != TC_SOURCE_FORCED && d.algo == plain.algo &&
              d.source == plain.source && strcmp(d.forced_reason, reason) == 0 && strcmp(d.forced, "neighbor_exchange") == 0 &&
              strncmp(why, want, strlen(want)) == 0,
          "forced declining: %s from %s (%s)", name_of(&d), tc_source_name(d.source), why);
    /* the learned entry under a declining forced one */
    const tc_algo *ring = entry(TOPOCOLL_ALLGATHER, "ring");
    d = decide(&a, three, 64, ring, NULL, why, sizeof why);
    CHECK(d.forced_how == TC_FORCED_DECLINED && d.source == TC_SOURCE_LEARNED && d.algo == ring &&
              strstr(why, "; learned: won 3 of 3 rounds"),
          "forced declining, learned: %s from %s (%s)", name_of(&d), tc_source_name(d.source), why);
    /* a learned entry that declines falls through too */
    configure(NULL, NULL);
    d = decide(&a, three, 64, ne, NULL, why, sizeof why);
    snprintf(want, sizeof want, "learned neighbor_exchange declined (%s); ", reason);
    CHECK(d.source == plain.source && d.algo == plain.algo && strncmp(why, want, strlen(want)) == 0,
          "learned declining: %s from %s (%s)", name_of(&d), tc_source_name(d.source), why);
    /* an unknown forced name */
    configure(NULL, "no_such_algorithm");
    d = decide(&a, three, 64, ring, NULL, why, sizeof why);
    CHECK(d.forced_how == TC_FORCED_UNKNOWN && d.source == TC_SOURCE_FORCED && !d.algo &&
              strcmp(d.forced, "no_such_algorithm") == 0,
          "unknown forced: %s from %s", name_of(&d), tc_source_name(d.source));
    /* without explain text the decision is the same */
    configure(NULL, "neighbor_exchange");
    tc_decision quiet = decide(&a, three, 64, NULL, NULL, NULL, 0);
    tc_decision loud = decide(&a, three, 64, NULL, NULL, why, sizeof why);
    CHECK(quiet.algo == loud.algo && quiet.source == loud.source && quiet.forced_how == loud.forced_how,
          "explain text changes the decision");
    configure(NULL, NULL);
    tc_topo_free(three);
}

/* One-node allreduce with a memory model: where no rule serves, the memory
 * model decides (native among its choices); without one, the cost model
 * or native. */
static void memory_model(void)
{
    char why[1024];
    tc_shm_model m;
    tc_shm_model_defaults(&m);
    tc_topo *one = tc_topo_flat(4);
    configure(NULL, NULL);
    int unserved = 0;
    for (int64_t n = 8; n <= ((int64_t)1 << 22); n *= 4) {
        tc_args a = args_of(TOPOCOLL_ALLREDUCE, one, n, TC_LOAD_ANY);
        tc_decision rules = tc_select_decide(&a, one, n, NULL, 0);
        tc_decision d = decide(&a, one, n, NULL, &m, why, sizeof why);
        if (rules.source == TC_SOURCE_FILE || rules.source == TC_SOURCE_BUILTIN) {
            CHECK(d.source == rules.source && d.algo == rules.algo, "allreduce %lld B: a rule serves, yet %s from %s",
                  (long long)n, name_of(&d), tc_source_name(d.source));
            continue;
        }
        unserved++;
        const tc_algo *pick = tc_shm_model_select(&m, &a, one, n, NULL, 0);
        CHECK(d.source == TC_SOURCE_MODEL && d.algo == pick && strncmp(why, "model (defaults): ", 18) == 0,
              "allreduce %lld B: %s from %s (%s), the memory model's pick %s", (long long)n, name_of(&d),
              tc_source_name(d.source), why, pick->name);
    }
    CHECK(unserved > 0, "no one-node allreduce size left to the memory model");
    tc_topo_free(one);
}

/* The sources' names, in order. */
static void names(void)
{
    static const char *const want[TC_NSOURCES] = { "forced", "learned", "tuning file", "built-in", "model", "native" };
    for (int s = 0; s < TC_NSOURCES; s++)
        CHECK(strcmp(tc_source_name((tc_source)s), want[s]) == 0, "source %d: %s", s, tc_source_name((tc_source)s));
    CHECK(strcmp(tc_source_name(TC_NSOURCES), "?") == 0, "out of range");
}

/* ---- the learner's candidates -------------------------------------------------- */

#define CMAX 16

static void check_list(const char *what, const tc_args *a, const tc_topo *t, int64_t bytes, int max)
{
    const tc_algo *l1[CMAX], *l2[CMAX];
    int n1 = tc_select_candidates(a, t, bytes, l1, max);
    int n2 = tc_select_candidates(a, t, bytes, l2, max);
    CHECK(n1 == n2 && memcmp(l1, l2, (size_t)n1 * sizeof l1[0]) == 0, "%s: two calls, two lists", what);
    CHECK(n1 >= 1 && n1 <= max, "%s: %d candidates, max %d", what, n1, max);
    int natives = 0, dups = 0, declined = 0;
    for (int i = 0; i < n1; i++) {
        natives += strcmp(l1[i]->name, "native") == 0;
        const char *reason = NULL;
        declined += !tc_algo_accepts(l1[i], a, t, &reason);
        for (int j = 0; j < i; j++) dups += l1[j] == l1[i] || strcmp(l1[j]->name, l1[i]->name) == 0;
    }
    CHECK(natives == 1, "%s: native %d times", what, natives);
    CHECK(dups == 0, "%s: %d duplicates", what, dups);
    CHECK(declined == 0, "%s: %d entries that decline the call", what, declined);
    /* the rules' choice first (where a rule serves and there is room beside native) */
    tc_decision d = tc_select_decide(a, t, bytes, NULL, 0);
    if ((d.source == TC_SOURCE_FILE || d.source == TC_SOURCE_BUILTIN) && (max >= 2 || d.algo == l1[n1 - 1]))
        CHECK(l1[0] == d.algo, "%s: first %s, the rules' choice %s", what, l1[0]->name, d.algo->name);
    /* a shorter list is the longer one's head, native kept */
    if (max > 1) {
        const tc_algo *s[CMAX];
        int ns = tc_select_candidates(a, t, bytes, s, max - 1);
        int head = ns >= 1, native = 0;
        for (int i = 0; i < ns; i++) {
            native += strcmp(s[i]->name, "native") == 0;
            head = head && (s[i] == l1[i] || strcmp(s[i]->name, "native") == 0);
        }
        head = head && native == 1;
        CHECK(head, "%s: max %d is not the head of max %d", what, max - 1, max);
    }
}

static void candidates(void)
{
    static const char *const specs[] = { "2x2", "8x16", "3", "4", "2x3" };
    static const int sizes[] = { 4, 128, 3, 4, 6 };
    const tc_algo *out[CMAX];
    configure(NULL, NULL);
    for (int f = 0; f < 2; f++) {
        if (f) configure(file_np128, NULL);
        for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
            tc_topo *t = tc_test_topo(specs[s], sizes[s]);
            for (int c = 0; c < TOPOCOLL_NCOLL; c++)
                for (int64_t n = 8; n <= ((int64_t)1 << 22); n *= 32)
                    for (int max = 1; max <= 8; max += 3) {
                        char what[160];
                        tc_args a = args_of((topocoll_coll)c, t, n, s == 0 ? TC_LOAD_OVERSUBSCRIBED : TC_LOAD_ANY);
                        snprintf(what, sizeof what, "%s %s %lld B max %d%s", specs[s], tc_coll_name((topocoll_coll)c),
                                 (long long)n, max, f ? " (file)" : "");
                        check_list(what, &a, t, n, max);
                    }
            tc_topo_free(t);
        }
    }
    /* max 1: native alone; max 0: nothing */
    tc_topo *two = tc_test_topo("2x2", 4);
    tc_args a = args_of(TOPOCOLL_ALLGATHER, two, 16384, TC_LOAD_OVERSUBSCRIBED);
    CHECK(tc_select_candidates(&a, two, 16384, out, 1) == 1 && strcmp(out[0]->name, "native") == 0, "max 1");
    CHECK(tc_select_candidates(&a, two, 16384, out, 0) == 0, "max 0");
    /* the file's rule first, then the built-in rule's choice */
    configure(file_np128, NULL);
    tc_topo *big = tc_test_topo("8x16", 128);
    a = args_of(TOPOCOLL_ALLGATHER, big, 2048, TC_LOAD_ANY);
    int n = tc_select_candidates(&a, big, 2048, out, 8);
    tc_model_pick pk = tc_model_choose(tc_model_builtin(), &a, big, 2048);
    int has_model = 0;
    for (int i = 0; i < n; i++) has_model += out[i] == pk.algo;
    CHECK(n >= 3 && strcmp(out[0]->name, "ring") == 0 && strcmp(out[n - 1]->name, "native") == 0 && pk.algo && has_model,
          "np 128 with the file: %d candidates, first %s, last %s, model's %s %s", n, n ? out[0]->name : "-",
          n ? out[n - 1]->name : "-", pk.algo ? pk.algo->name : "native", has_model ? "in" : "missing");
    /* one-node allreduce: the memory model's pick is among them */
    configure(NULL, NULL);
    tc_topo *one = tc_topo_flat(4);
    tc_shm_model m;
    tc_shm_model_defaults(&m);
    for (int64_t b = 8; b <= ((int64_t)1 << 22); b *= 8) {
        a = args_of(TOPOCOLL_ALLREDUCE, one, b, TC_LOAD_ANY);
        n = tc_select_candidates(&a, one, b, out, 8);
        const tc_algo *pick = tc_shm_model_select(&m, &a, one, b, NULL, 0);
        int in = 0;
        for (int i = 0; i < n; i++) in += out[i] == pick;
        CHECK(in == 1, "one-node allreduce %lld B: the memory model's %s not among %d", (long long)b, pick->name, n);
    }
    tc_topo_free(one);
    tc_topo_free(big);
    tc_topo_free(two);
    configure(NULL, NULL);
}

int main(void)
{
    int fd = mkstemp(path);
    if (fd < 0) { perror("mkstemp"); return 2; }
    close(fd);
    names();
    order();
    declines();
    memory_model();
    candidates();
    unlink(path);
    return tc_test_summary();
}
