/*
 * The process-wide state of the MPI-free core used by many threads at once,
 * from its very first use: configuration (loaded lazily), forced names
 * (resolved once per configuration), the catalog (built once), the
 * selection table with its resolved candidates (published whole), and the
 * views cached on one shared topology (leader groups, published by CAS).
 * Eight threads start together on a barrier, with nothing initialised yet;
 * each records what it got, and after they are joined every answer is
 * compared with the one the main thread gets alone.  Under
 * -DTOPOCOLL_SANITIZE=thread (scripts/test.sh) ThreadSanitizer checks the
 * same run for data races without MPI's own locks in between.
 */
#define _POSIX_C_SOURCE 200809L   /* pthread_barrier_t, setenv */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/harness.h"
#include "algo/catalog.h"
#include "blocks/groups.h"
#include "core/config.h"
#include "select/selector.h"
#include "select/select.h"
#include "sched/sched.h"
#include "topo/topo.h"

#define NTHREADS 8
#define NP 16
#define NBYTES 5
#define NGROUPS 6

static const int64_t bytes_list[NBYTES] = { 0, 8, 1024, 65536, 1 << 20 };
static const int group_modes[NGROUPS][3] = { { TC_GROUPS_NODE, 0, 0 }, { TC_GROUPS_SOCKET, 0, 0 },
                                             { TC_GROUPS_SOCKET, 0, 1 }, { TC_GROUPS_K, 2, 0 },
                                             { TC_GROUPS_K, 3, 1 }, { TC_GROUPS_K, 4, 0 } };

static tc_topo *topo;
static pthread_barrier_t start;

typedef struct answers {
    const tc_config *cfg;
    unsigned generation;
    const tc_algo *forced[TOPOCOLL_NCOLL];
    int unknown[TOPOCOLL_NCOLL];
    const tc_algo *chosen[TOPOCOLL_NCOLL][NBYTES];
    const tc_table *table;
    const tc_groups *groups[NGROUPS];
    int catalog_n[TOPOCOLL_NCOLL];
    int found_mismatch;      /* catalog names that did not find their own entry */
    int generated, gen_failed;
} answers;

static tc_args args_for(topocoll_coll coll, int rank, int64_t bytes)
{
    tc_args a;
    memset(&a, 0, sizeof a);
    a.coll = coll;
    a.rank = rank;
    a.size = NP;
    a.scount = a.rcount = bytes / 8 > 0 ? bytes / 8 : 1;
    a.root = rank % 3;
    a.commutative = 1;
    a.node_shm = 1;
    return a;
}

/* Everything one thread asks; the main thread asks the same afterwards. */
static void ask(answers *r, int rank, int generate)
{
    r->cfg = tc_config_get();
    r->generation = r->cfg->generation;
    for (int c = 0; c < TOPOCOLL_NCOLL; c++) {
        r->forced[c] = tc_forced_algo((topocoll_coll)c, &r->unknown[c]);
        for (int b = 0; b < NBYTES; b++) {
            tc_args a = args_for((topocoll_coll)c, rank, bytes_list[b]);
            r->chosen[c][b] = tc_select(&a, topo, bytes_list[b], NULL, 0);
        }
        r->catalog_n[c] = tc_catalog_variant_count((topocoll_coll)c);
        for (int i = 0; i < r->catalog_n[c]; i++) {
            const tc_algo *al = tc_catalog_variant_at((topocoll_coll)c, i);
            if (tc_catalog_find((topocoll_coll)c, al->name) != al) r->found_mismatch++;
        }
    }
    r->table = tc_select_table();
    for (int g = 0; g < NGROUPS; g++)
        r->groups[g] = tc_groups_of(topo, group_modes[g][0], group_modes[g][1], group_modes[g][2]);
    /* schedules of every algorithm that serves the call: generators read
     * the shared topology and its views */
    for (int c = 0; generate && c < TOPOCOLL_NCOLL; c++)
        for (int i = 0; i < r->catalog_n[c]; i++) {
            const tc_algo *al = tc_catalog_variant_at((topocoll_coll)c, i);
            tc_args a = args_for((topocoll_coll)c, rank, 24);
            const char *why = NULL;
            if (!al->generate || !tc_algo_accepts(al, &a, topo, &why)) continue;   /* native: none */
            tc_sched s;
            tc_sched_init(&s);
            int rc = tc_algo_generate(al, &s, &a, topo);
            if (rc == 0) rc = tc_sched_finish(&s);
            if (rc == 0) r->generated++;
            else r->gen_failed++;
            tc_sched_free(&s);
        }
}

typedef struct worker { int id; answers got; pthread_t thread; } worker;

static void *work(void *arg)
{
    worker *w = arg;
    (void)pthread_barrier_wait(&start);
    ask(&w->got, w->id % NP, 1);
    return NULL;
}

static void compare(const worker *w, const answers *ref)
{
    const answers *g = &w->got;
    CHECK(g->cfg == ref->cfg && g->generation == ref->generation && g->generation == 1,
          "thread %d: configuration %p generation %u (main: %p, %u)", w->id, (const void *)g->cfg,
          g->generation, (const void *)ref->cfg, ref->generation);
    CHECK(g->table == ref->table, "thread %d: another selection table", w->id);
    for (int c = 0; c < TOPOCOLL_NCOLL; c++) {
        CHECK(g->forced[c] == ref->forced[c] && g->unknown[c] == ref->unknown[c],
              "thread %d: %s forced %s (main: %s)", w->id, tc_coll_name((topocoll_coll)c),
              g->forced[c] ? g->forced[c]->name : "none", ref->forced[c] ? ref->forced[c]->name : "none");
        CHECK(g->catalog_n[c] == ref->catalog_n[c] && g->catalog_n[c] > 0,
              "thread %d: %s catalog of %d (main: %d)", w->id, tc_coll_name((topocoll_coll)c),
              g->catalog_n[c], ref->catalog_n[c]);
    }
    answers alone;
    memset(&alone, 0, sizeof alone);
    ask(&alone, w->id % NP, 0);   /* the same rank's choices, asked now */
    for (int c = 0; c < TOPOCOLL_NCOLL; c++) {
        for (int b = 0; b < NBYTES; b++)
            CHECK(g->chosen[c][b] == alone.chosen[c][b] && g->chosen[c][b] != NULL,
                  "thread %d: %s at %lld bytes chose %s, alone %s", w->id,
                  tc_coll_name((topocoll_coll)c), (long long)bytes_list[b],
                  g->chosen[c][b] ? g->chosen[c][b]->name : "(none)",
                  alone.chosen[c][b] ? alone.chosen[c][b]->name : "(none)");
    }
    for (int k = 0; k < NGROUPS; k++)
        CHECK(g->groups[k] == ref->groups[k] && g->groups[k] != NULL,
              "thread %d: groups view %d is %p, main thread's %p (one view per topology)", w->id, k,
              (const void *)g->groups[k], (const void *)ref->groups[k]);
    CHECK(g->found_mismatch == 0, "thread %d: %d catalog names did not find their entry", w->id,
          g->found_mismatch);
    CHECK(g->generated > 0 && g->gen_failed == 0, "thread %d: %d schedules built, %d failed", w->id,
          g->generated, g->gen_failed);
}

int main(void)
{
    /* a forced algorithm for one collective and an unknown name for another,
     * set before the configuration is first read (by the threads) */
    setenv("TOPOCOLL_BCAST", "binomial", 1);
    setenv("TOPOCOLL_GATHER", "no-such-algorithm", 1);
    char err[256];
    topo = tc_topo_from_spec("2x2x4/cyclic", NP, err, sizeof err);
    CHECK(topo != NULL, "topology: %s", err);
    if (!topo) return tc_test_summary();
    if (pthread_barrier_init(&start, NULL, NTHREADS) != 0) {
        CHECK(0, "pthread_barrier_init");
        return tc_test_summary();
    }
    static worker w[NTHREADS];
    int started = 0;
    for (int t = 0; t < NTHREADS; t++) {
        w[t].id = t;
        if (pthread_create(&w[t].thread, NULL, work, &w[t]) != 0) break;
        started++;
    }
    CHECK(started == NTHREADS, "%d of %d threads started", started, NTHREADS);
    if (started < NTHREADS) return tc_test_summary();   /* the rest wait on the barrier */
    for (int t = 0; t < started; t++) pthread_join(w[t].thread, NULL);
    answers ref;
    memset(&ref, 0, sizeof ref);
    ask(&ref, 0, 0);
    CHECK(ref.forced[TOPOCOLL_BCAST] != NULL && ref.unknown[TOPOCOLL_GATHER] == 1,
          "forced bcast %s, unknown gather %d", ref.forced[TOPOCOLL_BCAST] ? "found" : "missing",
          ref.unknown[TOPOCOLL_GATHER]);
    for (int t = 0; t < started; t++) compare(&w[t], &ref);
    pthread_barrier_destroy(&start);
    tc_select_finalize();
    tc_topo_free(topo);
    return tc_test_summary();
}
