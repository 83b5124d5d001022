/* The configuration table (see config.h). */
#include "core/config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <strings.h>
#include <pthread.h>

/* T_INT: a decimal in [min, max]; T_BOOL: a switch (tc_parse_bool);
 * T_CHOICE: one of choices, stored as its index. */
typedef enum { T_STR, T_INT, T_BOOL, T_CHOICE } ctype;

typedef struct centry {
    const char *env;
    ctype type;
    const char *dflt;
    size_t offset;
    const char *doc;
    long long min, max;          /* T_INT */
    const char *const *choices;  /* T_CHOICE, NULL-terminated */
    const char *dflt_means;      /* what the default does, for the malformed-value message */
} centry;

static const char *const fallback_names[] = { "print", "silent", "error", NULL };

/* TOPOCOLL_<UPPER> for every row of the list (include/topocoll_colls.h). */
#define FORCE_ROW(UPPER, lower, Mpi, SHAPE)                                                          \
    { "TOPOCOLL_" #UPPER, T_STR, NULL, offsetof(tc_config, force[TOPOCOLL_##UPPER]),                  \
      "force the " #lower " algorithm by catalog name (unknown name: calls fail with MPI_ERR_ARG)", 0, 0, \
      NULL, NULL },

static const centry table[] = {
    TOPOCOLL_COLLS(FORCE_ROW)
    { "TOPOCOLL_EXPLAIN", T_INT, "0", offsetof(tc_config, explain),
      "1: rank 0 of each communicator prints which algorithm served each call and why; 2: every rank",
      0, 2, NULL, "nothing explained" },
    { "TOPOCOLL_TUNING_FILE", T_STR, NULL, offsetof(tc_config, tuning_file),
      "JSON selection table layered over the built-in one: its rules first, the built-in rules where it has none; \"replace_builtin\": true makes it the whole table (docs/tuning.md)", 0, 0, NULL, NULL },
    { "TOPOCOLL_LEARN_FILE", T_STR, NULL, (size_t)-1,
      "the learner's memory across runs (docs/learning.md): read at the first collective (its outcomes are "
      "not explored again), merged with this run's and written at MPI_Finalize (rank 0), in the tuning-file "
      "format", 0, 0, NULL, NULL },
    { "TOPOCOLL_SCHED_CACHE", T_INT, "64", offsetof(tc_config, sched_cache),
      "schedules kept per communicator (least recently used dropped first; 0 disables caching)",
      0, 1000000, NULL, NULL },
    { "TOPOCOLL_CONTEXT_AFTER", T_INT, "16", offsetof(tc_config, context_after),
      "calls by selection on a new communicator (not MPI_COMM_WORLD) that the MPI library serves before "
      "topocoll makes its context (0: at the first call); one-rank communicators get none; calls by name "
      "and forced collectives make it at once", 0, 1000000, NULL, NULL },
    { "TOPOCOLL_DISABLE", T_BOOL, "0", offsetof(tc_config, disable),
      "1 (or true, yes, on): the LD_PRELOAD interposer hands every call to the MPI library",
      0, 0, NULL, "topocoll stays active" },
    { "TOPOCOLL_STATS", T_STR, NULL, offsetof(tc_config, stats),
      "1: a summary of every collective call on stderr at MPI_Finalize (rank 0); a path: as JSON to that file",
      0, 0, NULL, NULL },
    { "TOPOCOLL_TOPOLOGY", T_STR, NULL, (size_t)-1,
      "virtual topology spec for MPI_COMM_WORLD (docs/topology.md); read at topology creation", 0, 0, NULL, NULL },
    { "TOPOCOLL_DOMAIN", T_STR, "package", (size_t)-1,
      "socket level for detection: package or numa; read at topology creation", 0, 0, NULL, NULL },
    { "TOPOCOLL_SHM_MODEL", T_STR, NULL, (size_t)-1,
      "one-node allreduce memory model values instead of the calibration: flag=us,copy=GB/s,reduce=GB/s,... "
      "(docs/allreduce.md); read once per process, when the model is first needed", 0, 0, NULL, NULL },
    { "TOPOCOLL_SHM_BUDGET", T_STR, "16M", (size_t)-1,
      "bytes of node-shared memory per communicator for the data window (digits, optionally K, M or G): "
      "larger calls run in pieces or without node-shared memory (docs/design.md)", 0, 0, NULL, NULL },
    { "TOPOCOLL_CMA", T_BOOL, "1", offsetof(tc_config, cma),
      "0 (or false, no, off): the single-copy allreduce entries (process_vm_readv of the node peers' "
      "buffers) decline", 0, 0, NULL, "single copy stays available" },
    { "TOPOCOLL_CHECK", T_STR, NULL, offsetof(tc_config, check),
      "1: every call first verifies, with one small reduction, that all ranks chose the same algorithm and "
      "passed matching arguments; a disagreement is an MPI error on every rank naming it (0 or 1)",
      0, 0, NULL, NULL },
    { "TOPOCOLL_FALLBACK", T_CHOICE, "print", offsetof(tc_config, fallback),
      "a forced algorithm (TOPOCOLL_<COLL>) declines a call: print (another serves it; one line on "
      "stderr per process and collective), silent (the same, nothing printed) or error (the call "
      "fails with MPI_ERR_ARG)", 0, 0, fallback_names, NULL },
    { "TOPOCOLL_LEARN", T_BOOL, "1", offsetof(tc_config, learn),
      "0 (or false, no, off): no learning during the run; the selection table alone decides "
      "(docs/learning.md)", 0, 0, NULL, "learning stays on" },
    { "TOPOCOLL_LEARN_PATIENCE", T_INT, "64", offsetof(tc_config, learn_patience),
      "calls of each learning key (collective, communicator, size class) that the selection table serves, on "
      "the fast path and without exploring, before learning starts (0: from the first call); a key called "
      "fewer times is never explored (docs/learning.md)", 0, 1000000000, NULL, NULL },
    { "TOPOCOLL_LEARN_PAYBACK", T_INT, "4", offsetof(tc_config, learn_payback),
      "after its patience a key times the table's choice and learns only where the time its calls took so far "
      "is at least this many times what exploring would cost (about 1 ms plus 90 calls); else it waits and "
      "looks again later; 0: learn at the patience's end, whatever the calls cost (docs/learning.md)",
      0, 1000000, NULL, NULL },
    { "TOPOCOLL_LEARN_INIT", T_INT, "400", offsetof(tc_config, learn_init),
      "the most calls a persistent collective's init (MPI_<Coll>_init, topocoll_<coll>_init), or a nonblocking "
      "key's race at the next blocking collective, runs on scratch buffers of the call's shape so that the "
      "learner settles its key before the forms are timed; 0: no learning on scratch buffers (persistent "
      "inits take the learner's choice where the key has settled, else the table's; nonblocking calls no "
      "race) (docs/learning.md)", 0, 100000, NULL, NULL },
    { "TOPOCOLL_LEARN_NOISE", T_STR, NULL, offsetof(tc_config, learn_noise),
      "testing aid: a fraction f in [0, 10]; every timing the learner takes is multiplied by a random "
      "factor in [1 - f, 1 + f], drawn per rank (agreement tests)", 0, 0, NULL, NULL },
    { "TOPOCOLL_OVERSUBSCRIBED", T_STR, NULL, (size_t)-1,
      "1 or 0: treat the machine as oversubscribed (more ranks than processing units on a node) or not, "
      "instead of detecting it; selects the rules measured so (docs/selection.md); read at communicator "
      "context creation", 0, 0, NULL, NULL },
    { "TOPOCOLL_TEST_BOOT_ID", T_STR, NULL, (size_t)-1,
      "for tests: this process's machine, instead of the kernel's boot id (ranks with equal ids are counted "
      "as one machine by the load detection, docs/selection.md)", 0, 0, NULL, NULL },
};

/* Loaded once with pthread_once (not C11 call_once: ThreadSanitizer, which
 * CI runs the thread test under, intercepts pthread_once but not glibc's
 * call_once, and would see every reader of the table racing its load). */
static tc_config config;
const tc_config *const tc_config_as_loaded = &config;
static pthread_once_t loaded = PTHREAD_ONCE_INIT;
static unsigned generation;

/* ---- strict parsing ------------------------------------------------------ */

int tc_parse_int(const char *v, long long min, long long max, long long *out)
{
    if (!v) return -1;
    const char *p = v;
    if (*p == '+' || *p == '-') p++;
    if (!isdigit((unsigned char)*p)) return -1;   /* no spaces, no empty number */
    char *end = NULL;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (errno || *end || n < min || n > max) return -1;
    *out = n;
    return 0;
}

int tc_parse_bool(const char *v, int *out)
{
    static const char *const yes[] = { "1", "true", "yes", "on" }, *const no[] = { "0", "false", "no", "off" };
    if (!v) return -1;
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (strcasecmp(v, yes[i]) == 0) return *out = 1, 0;
        if (strcasecmp(v, no[i]) == 0) return *out = 0, 0;
    }
    return -1;
}

int tc_parse_size(const char *v, long long max, long long *out)
{
    if (!v || !isdigit((unsigned char)*v)) return -1;
    char *end = NULL;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (errno) return -1;
    int shift = 0;
    const char *units = "KMGT";
    const char *u = *end ? strchr(units, toupper((unsigned char)*end)) : NULL;
    if (u) {
        shift = 10 * (int)(u - units + 1);
        end++;
        if (*end == 'i' || *end == 'I') end++;
        if (*end == 'b' || *end == 'B') end++;
        else if (end[-1] == 'i' || end[-1] == 'I') return -1;   /* "Ki" without B */
    } else if (*end == 'b' || *end == 'B') {
        end++;
    }
    if (*end || n > ((unsigned long long)LLONG_MAX >> shift)) return -1;
    long long bytes = (long long)(n << shift);
    if (bytes > max) return -1;
    *out = bytes;
    return 0;
}

int tc_parse_choice(const char *v, const char *const *choices, int *out)
{
    for (int i = 0; v && choices[i]; i++)
        if (strcasecmp(v, choices[i]) == 0) return *out = i, 0;
    return -1;
}

/* The value of name, NULL when unset or empty. */
static const char *env_value(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* The malformed-value message: variable, value, accepted values, and the
 * default taken instead (what it means, when given). */
static void complain(const char *name, const char *v, const char *accepted, const char *dflt, const char *means)
{
    fprintf(stderr, "topocoll: %s='%.64s' is not valid (accepted: %s); using the default, %s%s%s%s\n", name, v,
            accepted, dflt, means ? " (" : "", means ? means : "", means ? ")" : "");
}

static int env_bool_means(const char *name, int dflt, const char *means)
{
    const char *v = env_value(name);
    int b;
    if (!v) return dflt;
    if (tc_parse_bool(v, &b) == 0) return b;
    complain(name, v, "1, 0, true, false, yes, no, on, off", dflt ? "1" : "0", means);
    return dflt;
}

int tc_env_bool(const char *name, int dflt)
{
    return env_bool_means(name, dflt, NULL);
}

static long long env_int_means(const char *name, long long min, long long max, long long dflt, const char *means)
{
    const char *v = env_value(name);
    long long n;
    if (!v) return dflt;
    if (tc_parse_int(v, min, max, &n) == 0) return n;
    char accepted[96], d[32];
    snprintf(accepted, sizeof accepted, "an integer from %lld to %lld", min, max);
    snprintf(d, sizeof d, "%lld", dflt);
    complain(name, v, accepted, d, means);
    return dflt;
}

long long tc_env_int(const char *name, long long min, long long max, long long dflt)
{
    return env_int_means(name, min, max, dflt, NULL);
}

long long tc_env_size(const char *name, long long max, long long dflt)
{
    const char *v = env_value(name);
    long long n;
    if (!v) return dflt;
    if (tc_parse_size(v, max, &n) == 0) return n;
    char accepted[128], d[32];
    snprintf(accepted, sizeof accepted, "a byte count up to %lld, optionally with K, M, G or T (x 1024^n), "
             "e.g. 65536, 64K, 2MiB", max);
    snprintf(d, sizeof d, "%lld", dflt);
    complain(name, v, accepted, d, NULL);
    return dflt;
}

static int env_choice_means(const char *name, const char *const *choices, int dflt, const char *means)
{
    const char *v = env_value(name);
    int i;
    if (!v) return dflt;
    if (tc_parse_choice(v, choices, &i) == 0) return i;
    char accepted[128] = "";
    for (int k = 0; choices[k]; k++) {
        size_t len = strlen(accepted);
        snprintf(accepted + len, sizeof accepted - len, "%s%s", k ? ", " : "", choices[k]);
    }
    complain(name, v, accepted, choices[dflt], means);
    return dflt;
}

int tc_env_choice(const char *name, const char *const *choices, int dflt)
{
    return env_choice_means(name, choices, dflt, NULL);
}

/* ---- the table ------------------------------------------------------------ */

static int choice_index(const centry *e)
{
    int i = 0;
    return tc_parse_choice(e->dflt, e->choices, &i) == 0 ? i : 0;
}

static void load_entry(const centry *e)
{
    char *field = (char *)&config + e->offset;
    switch (e->type) {
    case T_STR:
        *(const char **)field = env_value(e->env) ? env_value(e->env) : e->dflt;
        break;
    case T_INT:
        *(int *)field = (int)env_int_means(e->env, e->min, e->max, atoll(e->dflt), e->dflt_means);
        break;
    case T_BOOL:
        *(int *)field = env_bool_means(e->env, atoi(e->dflt), e->dflt_means);
        break;
    case T_CHOICE:
        *(int *)field = env_choice_means(e->env, e->choices, choice_index(e), e->dflt_means);
        break;
    }
}

/* TOPOCOLL_LEARN_NOISE: a fraction in [0, 10]; else a message and 0. */
static double parse_noise(const char *v)
{
    if (!v || !*v) return 0;
    char *end = NULL;
    errno = 0;
    double f = strtod(v, &end);
    if (errno || *end || !(f >= 0 && f <= 10)) {
        fprintf(stderr, "topocoll: TOPOCOLL_LEARN_NOISE='%.64s' is not valid (accepted: a number from 0 to 10); "
                        "using the default, no noise\n", v);
        return 0;
    }
    return f;
}

static void load(void)
{
    memset(&config, 0, sizeof config);
    config.generation = ++generation;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].offset != (size_t)-1) load_entry(&table[i]);
    config.stats_on = config.stats && strcmp(config.stats, "0") != 0;
    config.noise = parse_noise(config.learn_noise);
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
                table[i].type == T_STR ? "string" : table[i].type == T_INT ? "int"
                : table[i].type == T_BOOL ? "switch" : "choice",
                table[i].dflt ? table[i].dflt : "(unset)", table[i].doc);
}
