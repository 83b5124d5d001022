/* The configuration table (see config.h). */
#include "core/config.h"

#include <stddef.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <pthread.h>

typedef enum { T_STR, T_INT } ctype;

typedef struct centry {
    const char *env;
    ctype type;
    const char *dflt;
    size_t offset;
    const char *doc;
} centry;

static const centry table[] = {
    { "TOPOCOLL_ALLGATHER", T_STR, NULL, offsetof(tc_config, force[TOPOCOLL_ALLGATHER]),
      "force an allgather algorithm by catalog name (unknown name: calls fail with MPI_ERR_ARG)" },
    { "TOPOCOLL_BCAST", T_STR, NULL, offsetof(tc_config, force[TOPOCOLL_BCAST]),
      "force a bcast algorithm by catalog name" },
    { "TOPOCOLL_SCATTER", T_STR, NULL, offsetof(tc_config, force[TOPOCOLL_SCATTER]),
      "force a scatter algorithm by catalog name" },
    { "TOPOCOLL_GATHER", T_STR, NULL, offsetof(tc_config, force[TOPOCOLL_GATHER]),
      "force a gather algorithm by catalog name" },
    { "TOPOCOLL_REDUCE", T_STR, NULL, offsetof(tc_config, force[TOPOCOLL_REDUCE]),
      "force a reduce algorithm by catalog name" },
    { "TOPOCOLL_REDUCE_SCATTER_BLOCK", T_STR, NULL,
      offsetof(tc_config, force[TOPOCOLL_REDUCE_SCATTER_BLOCK]),
      "force a reduce_scatter_block algorithm by catalog name" },
    { "TOPOCOLL_ALLTOALL", T_STR, NULL, offsetof(tc_config, force[TOPOCOLL_ALLTOALL]),
      "force an alltoall algorithm by catalog name" },
    { "TOPOCOLL_ALLTOALLV", T_STR, NULL, offsetof(tc_config, force[TOPOCOLL_ALLTOALLV]),
      "force an alltoallv algorithm by catalog name" },
    { "TOPOCOLL_ALLREDUCE", T_STR, NULL, offsetof(tc_config, force[TOPOCOLL_ALLREDUCE]),
      "force an allreduce algorithm by catalog name" },
    { "TOPOCOLL_ALLGATHERV", T_STR, NULL, offsetof(tc_config, force[TOPOCOLL_ALLGATHERV]),
      "force an allgatherv algorithm by catalog name" },
    { "TOPOCOLL_EXPLAIN", T_INT, "0", offsetof(tc_config, explain),
      "1: rank 0 of each communicator prints which algorithm served each call and why; 2: every rank" },
    { "TOPOCOLL_TUNING_FILE", T_STR, NULL, offsetof(tc_config, tuning_file),
      "JSON selection table replacing the built-in one (docs/selection.md)" },
    { "TOPOCOLL_SCHED_CACHE", T_INT, "64", offsetof(tc_config, sched_cache),
      "schedules kept per communicator (least recently used dropped first; 0 disables caching)" },
    { "TOPOCOLL_CONTEXT_AFTER", T_INT, "16", offsetof(tc_config, context_after),
      "calls by selection on a new communicator (not MPI_COMM_WORLD) that the MPI library serves before "
      "topocoll makes its context (0: at the first call); one-rank communicators get none; calls by name "
      "and forced collectives make it at once" },
    { "TOPOCOLL_DISABLE", T_INT, "0", offsetof(tc_config, disable),
      "1: the LD_PRELOAD interposer hands every call to the MPI library" },
    { "TOPOCOLL_STATS", T_STR, NULL, offsetof(tc_config, stats),
      "1: a summary of every collective call on stderr at MPI_Finalize (rank 0); a path: as JSON to that file" },
    { "TOPOCOLL_TOPOLOGY", T_STR, NULL, (size_t)-1,
      "virtual topology spec for MPI_COMM_WORLD (docs/topology.md); read at topology creation" },
    { "TOPOCOLL_DOMAIN", T_STR, "package", (size_t)-1,
      "socket level for detection: package or numa; read at topology creation" },
    { "TOPOCOLL_SHM_MODEL", T_STR, NULL, (size_t)-1,
      "one-node allreduce memory model values instead of the calibration: flag=us,copy=GB/s,reduce=GB/s,... "
      "(docs/allreduce.md); read once per process, when the model is first needed" },
    { "TOPOCOLL_SHM_BUDGET", T_STR, "16M", (size_t)-1,
      "bytes of node-shared memory per communicator for the data window (digits, optionally K, M or G): "
      "larger calls run in pieces or without node-shared memory (docs/design.md)" },
    { "TOPOCOLL_CMA", T_INT, "1", offsetof(tc_config, cma),
      "0: the single-copy allreduce entries (process_vm_readv of the node peers' buffers) decline" },
    { "TOPOCOLL_CHECK", T_STR, NULL, offsetof(tc_config, check),
      "1: every call first verifies, with one small reduction, that all ranks chose the same algorithm and "
      "passed matching arguments; a disagreement is an MPI error on every rank naming it (0 or 1)" },
    { "TOPOCOLL_OVERSUBSCRIBED", T_STR, NULL, (size_t)-1,
      "1 or 0: treat the machine as oversubscribed (more ranks than processing units on a node) or not, "
      "instead of detecting it; selects the rules measured so (docs/selection.md); read at communicator "
      "context creation" },
    { "TOPOCOLL_TEST_BOOT_ID", T_STR, NULL, (size_t)-1,
      "for tests: this process's machine, instead of the kernel's boot id (ranks with equal ids are counted "
      "as one machine by the load detection, docs/selection.md)" },
};

/* Loaded once with pthread_once (not C11 call_once: ThreadSanitizer, which
 * CI runs the thread test under, intercepts pthread_once but not glibc's
 * call_once, and would see every reader of the table racing its load). */
static tc_config config;
static pthread_once_t loaded = PTHREAD_ONCE_INIT;
static unsigned generation;

static void load(void)
{
    memset(&config, 0, sizeof config);
    config.generation = ++generation;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        const centry *e = &table[i];
        if (e->offset == (size_t)-1) continue;
        const char *v = getenv(e->env);
        if (!v || !*v) v = e->dflt;
        char *field = (char *)&config + e->offset;
        if (e->type == T_STR) {
            *(const char **)field = v;
        } else {
            char *end = NULL;
            long n = v ? strtol(v, &end, 10) : 0;
            if (!v || *end || n < 0 || n > 1000000) n = e->dflt ? atoi(e->dflt) : 0;
            *(int *)field = (int)n;
        }
    }
    config.stats_on = config.stats && strcmp(config.stats, "0") != 0;
    config.check_on = !config.check || !strcmp(config.check, "0") ? 0 : !strcmp(config.check, "1") ? 1 : -1;
}

static atomic_int ready;   /* the fast path: one load once loaded */

static void load_first(void)
{
    load();
    atomic_store_explicit(&ready, 1, memory_order_release);
}

const tc_config *tc_config_get(void)
{
    if (!atomic_load_explicit(&ready, memory_order_acquire)) (void)pthread_once(&loaded, load_first);
    return &config;
}

void tc_config_reload(void)
{
    (void)pthread_once(&loaded, load_first);
    load();
}

const char *tc_config_live(const char *env)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (table[i].offset != (size_t)-1 || strcmp(table[i].env, env) != 0) continue;
        const char *v = getenv(env);
        return v && v[0] ? v : table[i].dflt;
    }
    return NULL;
}

void tc_config_print(FILE *f)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        fprintf(f, "%-30s %-6s default %-8s %s\n", table[i].env,
                table[i].type == T_STR ? "string" : "int",
                table[i].dflt ? table[i].dflt : "(unset)", table[i].doc);
}
