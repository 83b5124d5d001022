/*
 * Whether the machine is oversubscribed: does some physical machine run
 * more of the communicator's ranks than the processing units they may use?
 *
 * Per physical machine (the ranks whose kernel boot id is the same,
 * src/topo/machine.h: the emulated hosts of one machine, network namespaces
 * with a shared-memory node each, are one machine; where the boot id cannot
 * be read, the real shared-memory node of MPI_Comm_split_type, whatever
 * virtual topology TOPOCOLL_TOPOLOGY sets: time-sharing happens on the real
 * machine) the ranks on it are counted against the union of their allowed cpusets
 * (hwloc_get_cpubind of the process: its binding, which for an unbound
 * process is what the OS, a container or a batch system's cgroup allows;
 * restricted to the PUs the topology knows).  The union, not the machine's
 * PU count: ranks bound to two cores of a 16-core machine share two cores,
 * and a job confined to a cgroup cannot use the rest either.
 *
 * Processing units (hardware threads, hwloc PUs), not cores: a PU is what
 * the OS schedules.  With one rank per PU no rank waits for the CPU (SMT
 * siblings run at once, each slower), whereas with more ranks than PUs the
 * ranks take turns and Open MPI yields while polling: the regime the
 * built-in rules marked "oversubscribed" were measured in.
 *
 * Agreed over the communicator: any node oversubscribed -> all say so; a
 * node where hwloc could not tell makes the answer unknown (every rule then
 * applies, as before the rules had conditions), unless another node is
 * oversubscribed.  TOPOCOLL_OVERSUBSCRIBED=0|1 replaces the measurement (the
 * ranks still agree: any 1 wins).  Once per communicator context.
 */
#include "detect/detect.h"

#include "coll/coll.h"
#include "core/config.h"
#include "topo/machine.h"

#include <limits.h>
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

static void describe(tc_load_info *out, int verdict, int from_env)
{
    out->load = verdict == V_OVERSUB ? TC_LOAD_OVERSUBSCRIBED
              : verdict == V_DEDICATED ? TC_LOAD_DEDICATED : TC_LOAD_ANY;
    if (from_env)
        snprintf(out->desc, sizeof out->desc, "%s (TOPOCOLL_OVERSUBSCRIBED)",
                 out->load == TC_LOAD_OVERSUBSCRIBED ? "oversubscribed" : "dedicated");
    else if (verdict == V_UNKNOWN)
        snprintf(out->desc, sizeof out->desc, "unknown (hwloc cannot tell the allowed processing units)");
    else
        snprintf(out->desc, sizeof out->desc, "%s (this machine: %d rank%s on %d processing unit%s)",
                 verdict == V_OVERSUB ? "oversubscribed" : "dedicated", out->ranks,
                 out->ranks == 1 ? "" : "s", out->pus, out->pus == 1 ? "" : "s");
}

/* The first rank (in comm) of this rank's shared-memory node: the node's
 * name where the boot id cannot be read. */
static int node_leader(MPI_Comm comm, int *leader)
{
    MPI_Comm node = MPI_COMM_NULL;
    int rank = 0, rc = PMPI_Comm_rank(comm, &rank);
    if (rc == MPI_SUCCESS) rc = PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
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
    return PMPI_Comm_split(comm, mine, rank, machine);
}

int tc_detect_load(MPI_Comm comm, tc_load_info *out)
{
    int forced = override_from_env(comm), mine = V_UNKNOWN, agreed = V_UNKNOWN, rc = MPI_SUCCESS;
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
    }
    rc = PMPI_Allreduce(&mine, &agreed, 1, MPI_INT, MPI_MAX, comm);
    if (rc != MPI_SUCCESS) return rc;
    describe(out, agreed, forced >= 0);
    return MPI_SUCCESS;
}
