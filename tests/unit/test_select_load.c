/* Selection rules with a load condition (tc_rule.load, tc_args.load): a
 * rule measured on an oversubscribed machine serves only oversubscribed
 * calls (and calls whose load is unknown), a rule measured without
 * oversubscription only the others; the explain text names the condition of
 * the rule that served and every rule set aside for its condition.  Checked
 * on the built-in table (its rules are all classified) and on a tuning file
 * whose rules differ only in "oversubscribed".  No MPI.
 * Ends with "N passed, M failed". */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/config.h"
#include "select/select.h"
#include "topo/topo.h"
#include "../common/harness.h"
#include "../common/topo_spec.h"

static const int loads[3] = { TC_LOAD_ANY, TC_LOAD_OVERSUBSCRIBED, TC_LOAD_DEDICATED };

static tc_args args_of(topocoll_coll coll, int size, int64_t bytes, int load)
{
    tc_args a;
    memset(&a, 0, sizeof a);
    a.coll = coll;
    a.size = size;
    a.scount = a.rcount = bytes;
    a.commutative = 1;
    a.node_shm = 1;
    a.cma = 1;
    a.load = load;
    return a;
}

static tc_topo *spec(const char *s, int size) { return tc_test_topo(s, size); }

/* The name chosen for (coll, layout, bytes, load), the rule, the text. */
static const char *choose(topocoll_coll coll, const tc_topo *t, int64_t bytes, int load, int *rule, char *why,
                          size_t len)
{
    tc_args a = args_of(coll, t->size, bytes, load);
    const tc_algo *al = tc_select_rule(&a, t, bytes, why, len, rule);
    return al ? al->name : "(none)";
}

/* The condition itself: 3 x 3 combinations and the names. */
static void condition(void)
{
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            tc_rule rule;
            memset(&rule, 0, sizeof rule);
            rule.load = loads[r];
            int want = r == 0 || c == 0 || r == c;
            CHECK(tc_rule_load_ok(&rule, loads[c]) == want, "rule %s, call %s: %d", tc_load_name(loads[r]),
                  tc_load_name(loads[c]), !want);
        }
    CHECK(strcmp(tc_load_name(TC_LOAD_OVERSUBSCRIBED), "oversubscribed") == 0 &&
              strcmp(tc_load_name(TC_LOAD_DEDICATED), "dedicated") == 0 && strcmp(tc_load_name(TC_LOAD_ANY), "any") == 0,
          "load names");
}

/* Every built-in rule is classified: one rank (a local copy) and the
 * link-bound sizes across nodes (at least 1 MiB on at least 2 nodes, and
 * from 32 KiB across detected nodes, where the leaders' fewer messages over
 * the links decide, not the cores) and the alltoall, scan, exscan and
 * reduce_scatter across nodes (measured on the emulated cluster's hosts,
 * which each see every core, for any machine; the shared-memory one for oversubscribed machines,
 * as the emulated cluster is when its hosts are counted as the one machine
 * they are; the large blocks, where the links decide, for any machine),
 * every other measured rule for the machines it was measured on. */
static int cluster_measured(topocoll_coll c)
{
    return c == TOPOCOLL_ALLTOALL || c == TOPOCOLL_SCAN || c == TOPOCOLL_EXSCAN || c == TOPOCOLL_REDUCE_SCATTER;
}

static void builtin_classified(void)
{
    const tc_table *tab = tc_default_table();
    int any = 0, over = 0, ded = 0;
    for (int i = 0; i < tab->nrules; i++) {
        const tc_rule *r = &tab->rules[i];
        int local = r->max_np == 1 || (r->min_nodes >= 2 && r->min_bytes >= 1024 * 1024) ||
                    (r->min_nodes >= 2 && r->real_nodes && r->min_bytes >= 32 * 1024) ||
                    (r->min_nodes >= 2 && cluster_measured(r->coll) && r->load != TC_LOAD_OVERSUBSCRIBED);
        CHECK(local ? r->load == TC_LOAD_ANY : r->load == TC_LOAD_OVERSUBSCRIBED || r->load == TC_LOAD_DEDICATED,
              "built-in rule %d (%s, np %d..%d): load %d", i, tc_coll_name(r->coll), r->min_np, r->max_np, r->load);
        any += r->load == TC_LOAD_ANY;
        over += r->load == TC_LOAD_OVERSUBSCRIBED;
        ded += r->load == TC_LOAD_DEDICATED;
    }
    CHECK(any == 12 && over >= 7 && ded >= 7, "built-in classes: %d any, %d oversubscribed, %d dedicated", any, over,
          ded);
}

/* The main job's layout (np 4 as 2x2): the measured rules serve an
 * oversubscribed or unknown load and are set aside, by name, otherwise. */
static void builtin_main_job(void)
{
    tc_topo *two = spec("2x2", 4);
    char why[512];
    int rule;
    const int64_t sizes[2] = { 64, 16384 };
    const char *const want[2] = { "linear", "h1_shm_rd_shm" };
    for (int s = 0; s < 2; s++) {
        for (int l = 0; l < 2; l++) {
            const char *name = choose(TOPOCOLL_ALLGATHER, two, sizes[s], loads[l], &rule, why, sizeof why);
            CHECK(strcmp(name, want[s]) == 0 && rule >= 0 && tc_default_table()->rules[rule].load ==
                      TC_LOAD_OVERSUBSCRIBED && strstr(why, "(oversubscribed machines)"),
                  "2x2, %lld B, load %s: %s (%s)", (long long)sizes[s], tc_load_name(loads[l]), name, why);
        }
        const char *name = choose(TOPOCOLL_ALLGATHER, two, sizes[s], TC_LOAD_DEDICATED, &rule, why, sizeof why);
        CHECK(strcmp(name, want[s]) != 0 && (rule < 0 || tc_default_table()->rules[rule].load != TC_LOAD_OVERSUBSCRIBED) &&
                  strstr(why, "is for oversubscribed machines, set aside (this one is dedicated)"),
              "2x2, %lld B, dedicated: %s (%s)", (long long)sizes[s], name, why);
    }
    tc_topo_free(two);
}

/* One node: the bcast rule measured on 16 cores without oversubscription
 * serves dedicated calls only; allgather at np 2 has a rule for each. */
static void builtin_one_node(void)
{
    tc_topo *one = tc_topo_flat(8), *two = tc_topo_flat(2);
    char why[512];
    int rule;
    const char *name = choose(TOPOCOLL_BCAST, one, 65536, TC_LOAD_DEDICATED, &rule, why, sizeof why);
    CHECK(strcmp(name, "shm_2stage_64k") == 0 && strstr(why, "(dedicated machines)"), "bcast np 8 dedicated: %s (%s)",
          name, why);
    name = choose(TOPOCOLL_BCAST, one, 65536, TC_LOAD_OVERSUBSCRIBED, &rule, why, sizeof why);
    CHECK(strcmp(name, "shm_2stage_64k") != 0 && rule < 0 && strstr(why, "is for dedicated machines, set aside"),
          "bcast np 8 oversubscribed: %s (%s)", name, why);
    name = choose(TOPOCOLL_ALLGATHER, one, 64, TC_LOAD_OVERSUBSCRIBED, &rule, why, sizeof why);
    CHECK(strcmp(name, "linear") == 0, "allgather np 8 oversubscribed, 64 B: %s (%s)", name, why);
    /* np 2, 64 KiB: the oversubscribed rules' recursive doubling, or the dedicated np 2 rule's */
    int r_over, r_ded;
    name = choose(TOPOCOLL_ALLGATHER, two, 65536, TC_LOAD_OVERSUBSCRIBED, &r_over, why, sizeof why);
    CHECK(strcmp(name, "recursive_doubling") == 0 && r_over >= 0 &&
              tc_default_table()->rules[r_over].load == TC_LOAD_OVERSUBSCRIBED,
          "allgather np 2 oversubscribed, 64 KiB: %s (%s)", name, why);
    name = choose(TOPOCOLL_ALLGATHER, two, 65536, TC_LOAD_DEDICATED, &r_ded, why, sizeof why);
    CHECK(strcmp(name, "recursive_doubling") == 0 && r_ded >= 0 && r_ded != r_over &&
              tc_default_table()->rules[r_ded].load == TC_LOAD_DEDICATED && strstr(why, "set aside"),
          "allgather np 2 dedicated, 64 KiB: %s (%s)", name, why);
    /* np 2 dedicated below 2 KiB: the inline shared-memory rule, after the
     * oversubscribed rules set aside; from 2 to 8 KiB no rule */
    name = choose(TOPOCOLL_ALLGATHER, two, 64, TC_LOAD_DEDICATED, &rule, why, sizeof why);
    CHECK(strcmp(name, "shm_inline") == 0 && rule >= 0 && tc_default_table()->rules[rule].load == TC_LOAD_DEDICATED &&
              strstr(why, "set aside"),
          "allgather np 2 dedicated, 64 B: rule %d, %s (%s)", rule, name, why);
    name = choose(TOPOCOLL_ALLGATHER, two, 4096, TC_LOAD_DEDICATED, &rule, why, sizeof why);
    CHECK(rule < 0, "allgather np 2 dedicated, 4 KiB: rule %d, %s (%s)", rule, name, why);
    /* allreduce np 2 dedicated: below 1 KiB the inline rules, to 4 KiB dissemination;
     * from 4 KiB to 2 MiB no rule (the memory model chooses); oversubscribed: no rule */
    name = choose(TOPOCOLL_ALLREDUCE, two, 8, TC_LOAD_DEDICATED, &rule, why, sizeof why);
    CHECK(strcmp(name, "shm_inline") == 0 && rule >= 0 && tc_default_table()->rules[rule].load == TC_LOAD_DEDICATED,
          "allreduce np 2 dedicated, 8 B: rule %d, %s (%s)", rule, name, why);
    name = choose(TOPOCOLL_ALLREDUCE, two, 512, TC_LOAD_DEDICATED, &rule, why, sizeof why);
    CHECK(strcmp(name, "shm_inline") == 0 && rule >= 0, "allreduce np 2 dedicated, 512 B: rule %d, %s (%s)", rule,
          name, why);
    name = choose(TOPOCOLL_ALLREDUCE, two, 2048, TC_LOAD_DEDICATED, &rule, why, sizeof why);
    CHECK(strcmp(name, "shm_dissemination") == 0 && rule >= 0, "allreduce np 2 dedicated, 2 KiB: rule %d, %s (%s)",
          rule, name, why);
    name = choose(TOPOCOLL_ALLREDUCE, two, 4096, TC_LOAD_DEDICATED, &rule, why, sizeof why);
    CHECK(rule < 0, "allreduce np 2 dedicated, 4 KiB: rule %d, %s (%s)", rule, name, why);
    name = choose(TOPOCOLL_ALLREDUCE, two, 8, TC_LOAD_OVERSUBSCRIBED, &rule, why, sizeof why);
    CHECK(rule < 0, "allreduce np 2 oversubscribed, 8 B: rule %d, %s (%s)", rule, name, why);
    /* alltoall over 4 nodes of 2: on an oversubscribed machine the shared-memory
     * leaders below 8 KiB blocks; on a dedicated one the two point-to-point
     * leaders below 4 KiB, then no rule */
    tc_topo *four = spec("4x2", 8);
    name = choose(TOPOCOLL_ALLTOALL, four, 4096, TC_LOAD_OVERSUBSCRIBED, &rule, why, sizeof why);
    CHECK(strcmp(name, "h2_shm") == 0, "alltoall 4x2 oversubscribed, 4 KiB: rule %d, %s (%s)", rule, name, why);
    name = choose(TOPOCOLL_ALLTOALL, four, 8191, TC_LOAD_OVERSUBSCRIBED, &rule, why, sizeof why);
    CHECK(strcmp(name, "h2_shm") == 0, "alltoall 4x2 oversubscribed, 8191 B: rule %d, %s (%s)", rule, name, why);
    name = choose(TOPOCOLL_ALLTOALL, four, 8192, TC_LOAD_OVERSUBSCRIBED, &rule, why, sizeof why);
    CHECK(rule < 0, "alltoall 4x2 oversubscribed, 8 KiB: rule %d, %s (%s)", rule, name, why);
    name = choose(TOPOCOLL_ALLTOALL, four, 10922, TC_LOAD_OVERSUBSCRIBED, &rule, why, sizeof why);
    CHECK(rule < 0, "alltoall 4x2 oversubscribed, 10922 B: rule %d, %s (%s)", rule, name, why);
    name = choose(TOPOCOLL_ALLTOALL, four, 1024, TC_LOAD_DEDICATED, &rule, why, sizeof why);
    CHECK(strcmp(name, "h2_p2p") == 0, "alltoall 4x2 dedicated, 1 KiB: rule %d, %s (%s)", rule, name, why);
    name = choose(TOPOCOLL_ALLTOALL, four, 8192, TC_LOAD_DEDICATED, &rule, why, sizeof why);
    CHECK(rule < 0, "alltoall 4x2 dedicated, 8 KiB: rule %d, %s (%s)", rule, name, why);
    /* from blocks of 32 KiB, whatever the load: two partners in flight, pieces of 32 KiB */
    for (int l = 0; l < 3; l++) {
        name = choose(TOPOCOLL_ALLTOALL, four, 16 * 1024, loads[l], &rule, why, sizeof why);
        CHECK(rule < 0, "alltoall 4x2, 16 KiB, load %s: rule %d, %s (%s)",
              tc_load_name(loads[l]), rule, name, why);
        name = choose(TOPOCOLL_ALLTOALL, four, 32 * 1024, loads[l], &rule, why, sizeof why);
        CHECK(strcmp(name, "linear_w2_pieces32k") == 0, "alltoall 4x2, 32 KiB, load %s: rule %d, %s (%s)",
              tc_load_name(loads[l]), rule, name, why);
        name = choose(TOPOCOLL_ALLTOALL, four, (int64_t)1 << 20, loads[l], &rule, why, sizeof why);
        CHECK(strcmp(name, "linear_w2_pieces32k") == 0, "alltoall 4x2, 1 MiB, load %s: rule %d, %s (%s)",
              tc_load_name(loads[l]), rule, name, why);
    }
    tc_topo_free(four);
    /* np 8 dedicated: inline below 256 B, the tree at 512 B; oversubscribed: no rule */
    name = choose(TOPOCOLL_ALLREDUCE, one, 64, TC_LOAD_DEDICATED, &rule, why, sizeof why);
    CHECK(strcmp(name, "shm_inline") == 0, "allreduce np 8 dedicated, 64 B: rule %d, %s (%s)", rule, name, why);
    name = choose(TOPOCOLL_ALLREDUCE, one, 512, TC_LOAD_DEDICATED, &rule, why, sizeof why);
    CHECK(strcmp(name, "shm_rb4_2s") == 0, "allreduce np 8 dedicated, 512 B: rule %d, %s (%s)", rule, name, why);
    name = choose(TOPOCOLL_ALLREDUCE, one, 64, TC_LOAD_OVERSUBSCRIBED, &rule, why, sizeof why);
    CHECK(rule < 0, "allreduce np 8 oversubscribed, 64 B: rule %d, %s (%s)", rule, name, why);
    tc_topo_free(one);
    tc_topo_free(two);
}

/* The rules measured across real links (allreduce from 2 KiB, alltoall, bcast
 * from 64 KiB, reduce and allgather from 256 KiB, across nodes) serve detected
 * nodes, not the virtual nodes of a spec given to the job; the rules measured
 * on virtual layouts (allgather, main job) serve both. */
static void builtin_real_nodes(void)
{
    tc_topo *four = spec("4x2", 8), *two = spec("2x2", 4);
    char why[512];
    int rule;
    const int64_t big = 4 << 20;
    const char *name = choose(TOPOCOLL_ALLREDUCE, four, big, TC_LOAD_DEDICATED, &rule, why, sizeof why);
    CHECK(strcmp(name, "h2_shm_ring32k") == 0, "allreduce 4x2 detected, 4 MiB: rule %d, %s (%s)", rule, name, why);
    name = choose(TOPOCOLL_ALLREDUCE, four, 1 << 20, TC_LOAD_OVERSUBSCRIBED, &rule, why, sizeof why);
    CHECK(strcmp(name, "h2_shm_ring32k") == 0, "allreduce 4x2 detected, 1 MiB: rule %d, %s (%s)", rule, name, why);
    name = choose(TOPOCOLL_ALLREDUCE, four, 256 << 10, TC_LOAD_DEDICATED, &rule, why, sizeof why);
    CHECK(strcmp(name, "h2_shm_ring32k") == 0, "allreduce 4x2 detected, 256 KiB: rule %d, %s (%s)", rule, name,
          why);
    name = choose(TOPOCOLL_ALLREDUCE, four, (256 << 10) - 1, TC_LOAD_DEDICATED, &rule, why, sizeof why);
    CHECK(strcmp(name, "h2_shm_rsa") == 0, "allreduce 4x2 detected, 256 KiB - 1: rule %d, %s (%s)", rule, name,
          why);
    name = choose(TOPOCOLL_ALLREDUCE, four, 64 << 10, TC_LOAD_DEDICATED, &rule, why, sizeof why);
    CHECK(strcmp(name, "h2_shm_rsa") == 0, "allreduce 4x2 detected, 64 KiB: rule %d, %s (%s)", rule, name, why);
    name = choose(TOPOCOLL_ALLREDUCE, four, 16 << 10, TC_LOAD_DEDICATED, &rule, why, sizeof why);
    CHECK(rule < 0, "allreduce 4x2 detected, 16 KiB: rule %d, %s (%s)", rule, name, why);
    name = choose(TOPOCOLL_ALLREDUCE, four, 16 << 10, TC_LOAD_OVERSUBSCRIBED, &rule, why, sizeof why);
    CHECK(strcmp(name, "h1_shm_rd") == 0, "allreduce 4x2 detected oversubscribed, 16 KiB: rule %d, %s (%s)", rule,
          name, why);
    name = choose(TOPOCOLL_ALLREDUCE, four, 256, TC_LOAD_OVERSUBSCRIBED, &rule, why, sizeof why);
    CHECK(rule < 0, "allreduce 4x2 detected oversubscribed, 256 B: rule %d, %s (%s)", rule, name, why);
    name = choose(TOPOCOLL_ALLREDUCE, four, 32 << 10, TC_LOAD_DEDICATED, &rule, why, sizeof why);
    CHECK(strcmp(name, "h2_shm_rd") == 0, "allreduce 4x2 detected, 32 KiB: rule %d, %s (%s)", rule, name, why);
    name = choose(TOPOCOLL_ALLTOALL, four, 1024, TC_LOAD_DEDICATED, &rule, why, sizeof why);
    CHECK(strcmp(name, "h2_p2p") == 0, "alltoall 4x2 detected, 1 KiB: rule %d, %s (%s)", rule, name, why);
    name = choose(TOPOCOLL_BCAST, four, 64 << 10, TC_LOAD_DEDICATED, &rule, why, sizeof why);
    CHECK(strcmp(name, "h_chain16k_shm2") == 0, "bcast 4x2 detected, 64 KiB: rule %d, %s (%s)", rule, name, why);
    name = choose(TOPOCOLL_BCAST, four, 32 << 10, TC_LOAD_DEDICATED, &rule, why, sizeof why);
    CHECK(rule < 0, "bcast 4x2 detected, 32 KiB: rule %d, %s (%s)", rule, name, why);
    name = choose(TOPOCOLL_REDUCE, four, 256 << 10, TC_LOAD_OVERSUBSCRIBED, &rule, why, sizeof why);
    CHECK(strcmp(name, "h1_shm_chain4k") == 0, "reduce 4x2 detected, 256 KiB: rule %d, %s (%s)", rule, name, why);
    name = choose(TOPOCOLL_ALLGATHER, four, 1 << 20, TC_LOAD_DEDICATED, &rule, why, sizeof why);
    CHECK(strcmp(name, "twotier") == 0, "allgather 4x2 detected, 1 MiB: rule %d, %s (%s)", rule, name, why);
    four->virtual_nodes = 1;
    name = choose(TOPOCOLL_BCAST, four, 1 << 20, TC_LOAD_DEDICATED, &rule, why, sizeof why);
    CHECK(rule < 0, "bcast 4x2 virtual, 1 MiB: rule %d, %s (%s)", rule, name, why);
    name = choose(TOPOCOLL_ALLREDUCE, four, big, TC_LOAD_DEDICATED, &rule, why, sizeof why);
    CHECK(rule < 0, "allreduce 4x2 virtual, 4 MiB: rule %d, %s (%s)", rule, name, why);
    name = choose(TOPOCOLL_ALLREDUCE, four, 64 << 10, TC_LOAD_DEDICATED, &rule, why, sizeof why);
    CHECK(rule < 0, "allreduce 4x2 virtual, 64 KiB: rule %d, %s (%s)", rule, name, why);
    for (int l = 0; l < 3; l++) {
        name = choose(TOPOCOLL_ALLTOALL, four, 1024, loads[l], &rule, why, sizeof why);
        CHECK(rule < 0, "alltoall 4x2 virtual, 1 KiB, load %s: rule %d, %s (%s)", tc_load_name(loads[l]), rule,
              name, why);
        name = choose(TOPOCOLL_ALLTOALL, four, (int64_t)1 << 20, loads[l], &rule, why, sizeof why);
        CHECK(rule < 0, "alltoall 4x2 virtual, 1 MiB, load %s: rule %d, %s (%s)", tc_load_name(loads[l]), rule,
              name, why);
    }
    two->virtual_nodes = 1;
    name = choose(TOPOCOLL_ALLGATHER, two, 64, TC_LOAD_OVERSUBSCRIBED, &rule, why, sizeof why);
    CHECK(strcmp(name, "linear") == 0, "allgather 2x2 virtual, 64 B: rule %d, %s (%s)", rule, name, why);
    tc_topo *copy = tc_topo_dup(four);
    CHECK(copy && copy->virtual_nodes == 1, "a copy keeps the virtual nodes");
    tc_topo_free(copy);
    tc_topo_free(four);
    tc_topo_free(two);
}

/* A tuning file with the same range twice, once per condition. */
static void tuning_file(void)
{
    char path[] = "/tmp/topocoll_select_load_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) { perror("mkstemp"); exit(2); }
    FILE *f = fdopen(fd, "w");
    if (!f) { perror("fdopen"); exit(2); }
    fputs("{ \"allgather\": [ {\"np\": [4, 4], \"algorithms\": [\"bruck\"], \"oversubscribed\": true},"
          " {\"np\": [4, 4], \"algorithms\": [\"ring\"], \"oversubscribed\": false} ] }", f);
    fclose(f);
    setenv("TOPOCOLL_TUNING_FILE", path, 1);
    tc_config_reload();
    tc_select_finalize();
    tc_topo *flat = tc_topo_flat(4);
    const char *const want[3] = { "bruck", "bruck", "ring" };
    const int want_rule[3] = { 0, 0, 1 };
    for (int l = 0; l < 3; l++) {
        char why[512];
        int rule;
        const char *name = choose(TOPOCOLL_ALLGATHER, flat, 1024, loads[l], &rule, why, sizeof why);
        CHECK(strcmp(name, want[l]) == 0 && rule == want_rule[l] && strstr(why, path) &&
                  (l != 2 || strstr(why, "rule 0 is for oversubscribed machines, set aside")),
              "tuning file, load %s: %s, rule %d (%s)", tc_load_name(loads[l]), name, rule, why);
    }
    tc_topo_free(flat);
    unlink(path);
    unsetenv("TOPOCOLL_TUNING_FILE");
    tc_config_reload();
    tc_select_finalize();
}

int main(void)
{
    unsetenv("TOPOCOLL_TUNING_FILE");   /* the built-in table first */
    tc_config_reload();
    condition();
    builtin_classified();
    builtin_main_job();
    builtin_one_node();
    builtin_real_nodes();
    tuning_file();
    return tc_test_summary();
}
