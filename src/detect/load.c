/*
 * Whether the machine is oversubscribed: does some physical machine run
 * more ranks than the processing units they may use, or does the MPI
 * library itself treat it so?
 *
 * The verdict is about the machine, not about the communicator: a 2-rank
 * communicator of a 4-rank job on 2 cores time-shares them as much as the
 * job does.  Three measures, any of which makes a rank's machine
 * oversubscribed:
 *
 *  1. The communicator's own ranks.  Per physical machine (the ranks whose
 *     kernel boot id is the same, src/topo/machine.h: the emulated hosts of
 *     one machine, network namespaces with a shared-memory node each, are
 *     one machine; where the boot id cannot be read, the real shared-memory
 *     node of MPI_Comm_split_type, whatever virtual topology
 *     TOPOCOLL_TOPOLOGY sets: time-sharing happens on the real machine) the
 *     ranks on it are counted against the union of their allowed cpusets
 *     (hwloc_get_cpubind of the process: its binding, which for an unbound
 *     process is what the OS, a container or a batch system's cgroup
 *     allows; restricted to the PUs the topology knows).  The union, not the
 *     machine's PU count: ranks bound to two cores of a 16-core machine
 *     share two cores, and a job confined to a cgroup cannot use the rest
 *     either.
 *
 *  2. The job's ranks on the machine, against the processing units the job
 *     may use there.  Exactly, from the first communicator congruent with
 *     MPI_COMM_WORLD whose context is made (measure 1 on it is the job's;
 *     kept for the process); until then, from the launcher's count of the
 *     job's ranks on this node (Open MPI's OMPI_COMM_WORLD_LOCAL_SIZE,
 *     MPICH Hydra's MPI_LOCALNRANKS) against the machine's allowed PUs
 *     (hwloc's allowed cpuset: what a container or cgroup leaves; a rank's
 *     own binding tells nothing of its peers').  Local: no communication
 *     beyond the context's own.
 *
 *  3. The MPI library's verdict: Open MPI's mpi_yield_when_idle (Open MPI
 *     sets it itself when a node runs more ranks than it has slots; the user
 *     sets it when other work shares the cores), its effective value as
 *     Open MPI exports it, or its OMPI_MCA_ variable (mpi_yields).  An MPI
 *     library that yields while it waits was told, or found, that the
 *     processors are shared.
 *
 * Processing units (hardware threads, hwloc PUs), not cores: a PU is what
 * the OS schedules.  With one rank per PU no rank waits for the CPU (SMT
 * siblings run at once, each slower), whereas with more ranks than PUs the
 * ranks take turns and Open MPI yields while polling: the regime the
 * built-in rules marked "oversubscribed" were measured in.
 *
 * Agreed over the communicator (the verdict feeds the selection, which
 * must be the same on every rank): any rank oversubscribed -> all say so; a
 * machine where hwloc could not tell makes the answer unknown (every rule
 * then applies, as before the rules had conditions), unless some rank is
 * oversubscribed.  TOPOCOLL_OVERSUBSCRIBED=0|1 replaces the measurement (the
 * ranks still agree: any 1 wins).  Once per communicator context.
 */
#define _GNU_SOURCE   /* RTLD_DEFAULT */
#include "detect/detect.h"
#include "detect/comm_make.h"

#include "coll/coll.h"
#include "core/config.h"
#include "topo/machine.h"

#include <ctype.h>
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Verdicts ordered so that MPI_MAX over ranks gives the agreed one. */
enum { V_DEDICATED = 0, V_UNKNOWN = 1, V_OVERSUB = 2 };

/* This process's allowed PUs (NULL when hwloc cannot tell); call with the
 * hwloc topology locked. */
static hwloc_bitmap_t allowed_pus(hwloc_topology_t topo)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (!set) return NULL;
    if (hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) != 0) {
        hwloc_bitmap_free(set);
        return NULL;
    }
    hwloc_const_cpuset_t known = hwloc_topology_get_topology_cpuset(topo);
    if (known) (void)hwloc_bitmap_and(set, set, known);
    if (hwloc_bitmap_iszero(set)) {   /* a binding hwloc does not see: cannot tell */
        hwloc_bitmap_free(set);
        return NULL;
    }
    return set;
}

/* Cpusets travel as words; up to 16384 PUs per node (more: unknown). */
#define MAX_WORDS (16384 / (int)(sizeof(unsigned long) * CHAR_BIT))

/* The local cpuset into words[MAX_WORDS]: the number of words used, 0 when
 * unknown. */
static int local_words(unsigned long *words)
{
    int used = 0;
    memset(words, 0, MAX_WORDS * sizeof *words);
    hwloc_topology_t topo = tc_hw_topology_lock();
    if (!topo) return 0;
    hwloc_bitmap_t set = allowed_pus(topo);
    int n = set ? hwloc_bitmap_nr_ulongs(set) : -1;
    if (n > 0 && n <= MAX_WORDS && hwloc_bitmap_to_ulongs(set, (unsigned)n, words) == 0) used = n;
    hwloc_bitmap_free(set);
    tc_hw_topology_unlock();
    return used;
}

static int popcount_words(const unsigned long *w, int n)
{
    int c = 0;
    for (int i = 0; i < n; i++) c += __builtin_popcountl(w[i]);
    return c;
}

/* ---- the node's facts, once per process ------------------------------------ */

/* What this process knows of its machine without asking the other ranks. */
typedef struct node_facts {
    int job_ranks;    /* the launcher's count of the job's ranks here, 0: none */
    int job_pus;      /* the PUs to count them against, 0: hwloc cannot tell */
    int mpi_yields;   /* the MPI library yields while it waits */
} node_facts;

static pthread_once_t facts_once = PTHREAD_ONCE_INIT;
static node_facts facts;
/* The job's measure on this machine (measure 1 on a communicator congruent
 * with MPI_COMM_WORLD): ranks << 32 | PUs, 0 until made. */
static _Atomic uint64_t world_measure;

/* A positive count from the launcher's variable, else 0 (they are not the
 * user's settings: a malformed one is only ignored). */
static int env_count(const char *name)
{
    const char *v = getenv(name);
    if (!v || !*v) return 0;
    char *end = NULL;
    long n = strtol(v, &end, 10);
    return *end == '\0' && n > 0 && n <= INT_MAX ? (int)n : 0;
}

/* The PUs the job may use on this machine as this process sees them: the
 * machine's allowed PUs (what the OS, a container or a cgroup lets its
 * processes use), whatever this process is bound to (its peers' bindings
 * are unknown here). */
static int job_pus_seen(void)
{
    hwloc_topology_t topo = tc_hw_topology_lock();
    if (!topo) return 0;
    hwloc_const_cpuset_t all = hwloc_topology_get_allowed_cpuset(topo);
    int n = all ? hwloc_bitmap_weight(all) : 0;
    tc_hw_topology_unlock();
    return n > 0 ? n : 0;
}

/* Open MPI's boolean spellings: 1 / 0, or -1 for anything else. */
static int ompi_bool(const char *v)
{
    static const char *const yes[] = { "1", "t", "true", "y", "yes", "enabled" };
    static const char *const no[] = { "0", "f", "false", "n", "no", "disabled" };
    char low[16];
    size_t i = 0;
    for (; v[i] && i + 1 < sizeof low; i++) low[i] = (char)tolower((unsigned char)v[i]);
    if (v[i]) return -1;
    low[i] = '\0';
    for (size_t k = 0; k < sizeof yes / sizeof *yes; k++) {
        if (strcmp(low, yes[k]) == 0) return 1;
        if (strcmp(low, no[k]) == 0) return 0;
    }
    return -1;
}

/* Whether the MPI library yields while idle: Open MPI's mpi_yield_when_idle,
 * which it turns on itself for more ranks than slots.  The effective value
 * is Open MPI's exported flag (ompi_mpi_yield_when_idle, set in MPI_Init);
 * the MPI tool interface would give the same, but its first
 * MPI_T_init_thread registers every framework of Open MPI 4.1 (0.2 s on a
 * loaded 2-core machine).  Where the flag is not found, the MCA variable
 * the launcher passes (OMPI_MCA_mpi_yield_when_idle).  MPICH has no such
 * verdict. */
static int mpi_yields(void)
{
#ifdef OPEN_MPI
    const volatile bool *flag = (const volatile bool *)dlsym(RTLD_DEFAULT, "ompi_mpi_yield_when_idle");
    if (flag) return *flag ? 1 : 0;
#endif
    const char *e = getenv("OMPI_MCA_mpi_yield_when_idle");
    return e && ompi_bool(e) == 1;
}

static void gather_facts(void)
{
    facts.job_ranks = env_count("OMPI_COMM_WORLD_LOCAL_SIZE");
    if (facts.job_ranks == 0) facts.job_ranks = env_count("MPI_LOCALNRANKS");
    facts.job_pus = job_pus_seen();
    facts.mpi_yields = mpi_yields();
}

/* The verdict of this rank's machine: ranks on it against the union of
 * their PUs (collective over node, the machine's ranks); *ranks and *pus
 * for the description. */
static int node_verdict(MPI_Comm node, int *verdict, int *ranks, int *pus)
{
    unsigned long words[MAX_WORDS];
    int n = local_words(words), span[2] = { n, n == 0 }, agreed[2] = { 0, 1 };
    int rc = PMPI_Comm_size(node, ranks);
    *pus = 0;
    /* the same calls on every rank of the node, whatever went wrong locally */
    int rc2 = PMPI_Allreduce(span, agreed, 2, MPI_INT, MPI_MAX, node);
    if (rc == MPI_SUCCESS) rc = rc2;
    if (rc2 == MPI_SUCCESS && !agreed[1]) {
        rc2 = PMPI_Allreduce(MPI_IN_PLACE, words, agreed[0], MPI_UNSIGNED_LONG, MPI_BOR, node);
        if (rc == MPI_SUCCESS) rc = rc2;
        if (rc == MPI_SUCCESS) *pus = popcount_words(words, agreed[0]);
    }
    if (rc != MPI_SUCCESS) return rc;
    *verdict = *pus == 0 ? V_UNKNOWN : *ranks > *pus ? V_OVERSUB : V_DEDICATED;
    return MPI_SUCCESS;
}

/* TOPOCOLL_OVERSUBSCRIBED: 1 / 0, or -1 when unset (or invalid: said once). */
static int override_from_env(MPI_Comm comm)
{
    const char *v = tc_config_live("TOPOCOLL_OVERSUBSCRIBED");
    if (!v) return -1;
    if (strcmp(v, "0") == 0) return 0;
    if (strcmp(v, "1") == 0) return 1;
    int rank = 0;
    if (PMPI_Comm_rank(comm, &rank) == MPI_SUCCESS && rank == 0)
        fprintf(stderr, "topocoll: TOPOCOLL_OVERSUBSCRIBED='%.64s' is not valid (expected 0 or 1); "
                        "detecting instead\n", v);
    return -1;
}

/* Why a rank holds its verdict (the description's words). */
enum { WHY_COMM, WHY_JOB, WHY_MPI };

static void describe(tc_load_info *out, int mine, int agreed, int why, int from_env)
{
    const char *word = agreed == V_OVERSUB ? "oversubscribed" : "dedicated";
    out->load = agreed == V_OVERSUB ? TC_LOAD_OVERSUBSCRIBED
              : agreed == V_DEDICATED ? TC_LOAD_DEDICATED : TC_LOAD_ANY;
    if (from_env)
        snprintf(out->desc, sizeof out->desc, "%s (TOPOCOLL_OVERSUBSCRIBED)", word);
    else if (agreed == V_OVERSUB && mine != V_OVERSUB)
        snprintf(out->desc, sizeof out->desc, "oversubscribed (as another rank judged its machine)");
    else if (agreed == V_UNKNOWN)
        snprintf(out->desc, sizeof out->desc, "unknown (hwloc cannot tell the allowed processing units)");
    else if (why == WHY_MPI)
        snprintf(out->desc, sizeof out->desc, "oversubscribed (the MPI library yields when idle)");
    else
        snprintf(out->desc, sizeof out->desc, "%s (this machine: %d rank%s%s on %d processing unit%s)", word,
                 out->ranks, out->ranks == 1 ? "" : "s", why == WHY_JOB ? " of the job" : "", out->pus,
                 out->pus == 1 ? "" : "s");
}

/* The first rank (in comm) of this rank's shared-memory node: the node's
 * name where the boot id cannot be read. */
static int node_leader(MPI_Comm comm, int *leader)
{
    MPI_Comm node = MPI_COMM_NULL;
    int rank = 0, rc = PMPI_Comm_rank(comm, &rank);
    if (rc == MPI_SUCCESS) rc = tc_comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    if (rc != MPI_SUCCESS) return rc;
    *leader = rank;
    rc = PMPI_Allreduce(&rank, leader, 1, MPI_INT, MPI_MIN, node);
    int rc2 = PMPI_Comm_free(&node);
    return rc != MPI_SUCCESS ? rc : rc2;
}

/* The ranks of comm on this rank's physical machine, as a new communicator
 * (collective over comm). */
static int machine_comm(MPI_Comm comm, MPI_Comm *machine)
{
    int size = 0, rank = 0, leader = 0;
    int rc = PMPI_Comm_size(comm, &size);
    if (rc == MPI_SUCCESS) rc = PMPI_Comm_rank(comm, &rank);
    if (rc == MPI_SUCCESS) rc = node_leader(comm, &leader);
    if (rc != MPI_SUCCESS) return rc;
    char boot[TC_MACHINE_KEY], key[TC_MACHINE_KEY];
    (void)tc_machine_boot_id(boot, sizeof boot);
    tc_machine_key(key, boot, leader);
    char *keys = malloc((size_t)size * TC_MACHINE_KEY);
    int *color = malloc((size_t)size * sizeof *color);
    /* the same calls on every rank: a rank out of memory still takes part, as its own machine */
    int ok = keys && color;
    rc = PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
    int mine = rank;
    if (rc == MPI_SUCCESS && ok) {
        rc = PMPI_Allgather(key, TC_MACHINE_KEY, MPI_CHAR, keys, TC_MACHINE_KEY, MPI_CHAR, comm);
        if (rc == MPI_SUCCESS && tc_machine_groups(keys, size, color) == 0) mine = color[rank];
    }
    free(keys);
    free(color);
    if (rc != MPI_SUCCESS) return rc;
    if (!ok) return MPI_ERR_NO_MEM;
    return tc_comm_split(comm, mine, rank, machine);
}

/* Whether comm has every rank of MPI_COMM_WORLD (then its measure is the job's). */
static int is_world(MPI_Comm comm)
{
    int same = MPI_UNEQUAL;
    return PMPI_Comm_compare(comm, MPI_COMM_WORLD, &same) == MPI_SUCCESS &&
           (same == MPI_IDENT || same == MPI_CONGRUENT);
}

/* Measures 2 and 3 on top of measure 1 (*verdict, out->ranks and pus). */
static void judge_node(int world, tc_load_info *out, int *verdict, int *why)
{
    (void)pthread_once(&facts_once, gather_facts);
    if (world && out->pus > 0) {
        uint64_t none = 0, m = (uint64_t)out->ranks << 32 | (uint64_t)out->pus;
        (void)atomic_compare_exchange_strong(&world_measure, &none, m);
    }
    *why = WHY_COMM;
    if (*verdict == V_OVERSUB) return;
    uint64_t m = atomic_load(&world_measure);
    int ranks = m ? (int)(m >> 32) : facts.job_ranks, pus = m ? (int)(m & 0xffffffffu) : facts.job_pus;
    if (ranks > 0 && pus > 0 && ranks > pus) {
        *verdict = V_OVERSUB;
        *why = WHY_JOB;
        out->ranks = ranks;
        out->pus = pus;
    } else if (facts.mpi_yields) {
        *verdict = V_OVERSUB;
        *why = WHY_MPI;
    }
}

int tc_detect_load(MPI_Comm comm, tc_load_info *out)
{
    int forced = override_from_env(comm), mine = V_UNKNOWN, agreed = V_UNKNOWN, why = WHY_COMM;
    int rc = MPI_SUCCESS;
    memset(out, 0, sizeof *out);
    if (forced >= 0) {
        mine = forced ? V_OVERSUB : V_DEDICATED;
    } else {
        MPI_Comm machine = MPI_COMM_NULL;
        rc = machine_comm(comm, &machine);
        if (rc != MPI_SUCCESS) return rc;
        rc = node_verdict(machine, &mine, &out->ranks, &out->pus);
        int rc2 = PMPI_Comm_free(&machine);
        if (rc == MPI_SUCCESS) rc = rc2;
        if (rc != MPI_SUCCESS) return rc;
        judge_node(is_world(comm), out, &mine, &why);
    }
    rc = PMPI_Allreduce(&mine, &agreed, 1, MPI_INT, MPI_MAX, comm);
    if (rc != MPI_SUCCESS) return rc;
    describe(out, mine, agreed, why, forced >= 0);
    return MPI_SUCCESS;
}
