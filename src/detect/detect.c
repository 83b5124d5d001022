/*
 * Topology detection, collective over a communicator, PMPI_ calls only.
 * TOPOCOLL_TOPOLOGY (a spec, docs/topology.md) places MPI_COMM_WORLD's ranks
 * and the communicator inherits its ranks' places; otherwise nodes come from
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) and sockets (packages, or NUMA
 * nodes with TOPOCOLL_DOMAIN=numa) from hwloc and the process's CPU binding.
 */
#define _POSIX_C_SOURCE 200809L
#include "detect/detect.h"
#include "detect/comm_make.h"

#include "core/config.h"

#include <hwloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { DOMAIN_PACKAGE = 0, DOMAIN_NUMA = 1 } domain_kind;
static const char *const domain_names[] = { "package", "numa" };

/* The hwloc topology, loaded once per process. */
static pthread_mutex_t hw_lock = PTHREAD_MUTEX_INITIALIZER;
static hwloc_topology_t hw_topo;
static int hw_state;                 /* 0: not tried, 1: loaded, -1: failed */

/* An MPI error code as its class. */
static int err_class(int code)
{
    int cls;
    if (PMPI_Error_class(code, &cls) != MPI_SUCCESS) return MPI_ERR_OTHER;
    return cls;
}

/* ---- hwloc --------------------------------------------------------------- */

/* Loads the topology on first use; call with hw_lock held.  Returns 1 when
 * loaded, 0 when hwloc failed (then and forever after). */
static int hw_load_locked(void)
{
    if (hw_state != 0) return hw_state > 0;
    hw_state = -1;
    if (hwloc_topology_init(&hw_topo) != 0) return 0;
    /* only packages, NUMA nodes and their cpusets are read: caches, I/O
     * devices and groups are left out (half of hwloc's discovery time) */
    (void)hwloc_topology_set_cache_types_filter(hw_topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    (void)hwloc_topology_set_icache_types_filter(hw_topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    (void)hwloc_topology_set_io_types_filter(hw_topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    (void)hwloc_topology_set_type_filter(hw_topo, HWLOC_OBJ_GROUP, HWLOC_TYPE_FILTER_KEEP_NONE);
    (void)hwloc_topology_set_type_filter(hw_topo, HWLOC_OBJ_MISC, HWLOC_TYPE_FILTER_KEEP_NONE);
#if defined(__linux__) && HWLOC_API_VERSION >= 0x00020100
    /* Linux gives packages and NUMA nodes in sysfs: the x86 CPUID backend,
     * slow in virtual machines (each CPUID leaves the guest), adds nothing */
    (void)hwloc_topology_set_components(hw_topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "x86");
#endif
    if (hwloc_topology_load(hw_topo) != 0) {
        hwloc_topology_destroy(hw_topo);
        return 0;
    }
    hw_state = 1;
    return 1;
}

/* ---- loading ahead ---------------------------------------------------------- */

static pthread_t prefetch_thread;
static atomic_int prefetch_state;   /* 0 none, 1 started (to be joined) */

static void *prefetch_main(void *arg)
{
    (void)arg;
    if (pthread_mutex_lock(&hw_lock) == 0) {
        (void)hw_load_locked();
        (void)pthread_mutex_unlock(&hw_lock);
    }
    return NULL;
}

void tc_detect_prefetch(void)
{
    int none = 0;
    if (!atomic_compare_exchange_strong(&prefetch_state, &none, 1)) return;
    sigset_t all, old;
    (void)sigfillset(&all);
    int masked = pthread_sigmask(SIG_SETMASK, &all, &old) == 0;   /* the thread inherits it */
    if (pthread_create(&prefetch_thread, NULL, prefetch_main, NULL) != 0) atomic_store(&prefetch_state, 0);
    if (masked) (void)pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void prefetch_join(void)
{
    if (atomic_exchange(&prefetch_state, 0) == 1) (void)pthread_join(prefetch_thread, NULL);
}

/* A process that exits before MPI_Finalize (or without MPI) waits for the
 * thread here, before hwloc's own library is unloaded. */
__attribute__((destructor)) static void prefetch_join_at_exit(void)
{
    prefetch_join();
}

void tc_detect_finalize(void)
{
    prefetch_join();
    if (pthread_mutex_lock(&hw_lock) != 0) return;
    if (hw_state == 1) hwloc_topology_destroy(hw_topo);
    hw_state = 0;
    (void)pthread_mutex_unlock(&hw_lock);
}

/* Logical index of the only object of `type` whose cpuset contains set, or
 * 0 when none or several do. */
static int hw_domain_containing(hwloc_const_cpuset_t set, hwloc_obj_type_t type)
{
    int i, n = hwloc_get_nbobjs_by_type(hw_topo, type), hits = 0, found = 0;
    for (i = 0; i < n; i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(hw_topo, type, (unsigned)i);
        if (o && o->cpuset && hwloc_bitmap_isincluded(set, o->cpuset)) {
            hits++;
            found = (int)o->logical_index;
        }
    }
    return hits == 1 ? found : 0;
}

/* This process's domain label (0 when unbound or hwloc cannot tell);
 * *hw_ok says whether hwloc answered. */
static int hw_domain_label(domain_kind kind, int *hw_ok)
{
    hwloc_obj_type_t type = kind == DOMAIN_NUMA ? HWLOC_OBJ_NUMANODE : HWLOC_OBJ_PACKAGE;
    hwloc_bitmap_t set;
    int label = 0;

    *hw_ok = 0;
    if (pthread_mutex_lock(&hw_lock) != 0) return 0;
    if (hw_load_locked()) {
        set = hwloc_bitmap_alloc();
        if (set && hwloc_get_cpubind(hw_topo, set, HWLOC_CPUBIND_PROCESS) == 0) {
            *hw_ok = 1;
            if (!hwloc_bitmap_iszero(set)) label = hw_domain_containing(set, type);
        }
        hwloc_bitmap_free(set);
    }
    (void)pthread_mutex_unlock(&hw_lock);
    return label;
}

/* ---- environment --------------------------------------------------------- */

static int domain_from_env(int crank, domain_kind *kind)
{
    const char *v = tc_config_live("TOPOCOLL_DOMAIN");
    *kind = DOMAIN_PACKAGE;
    if (!v || strcmp(v, "package") == 0) return 0;
    if (strcmp(v, "numa") == 0) {
        *kind = DOMAIN_NUMA;
        return 0;
    }
    if (crank == 0)
        fprintf(stderr, "topocoll: TOPOCOLL_DOMAIN='%.64s' is not valid (expected package or numa)\n", v);
    return -1;
}

/* ---- TOPOCOLL_TOPOLOGY ------------------------------------------------------ */

/* Rank in parent of each of comm's n ranks; MPI_ERR_COMM if one is not in
 * parent (MPI_COMM_WORLD: spawned processes). */
static int parent_ranks(MPI_Comm comm, MPI_Comm parent, int n, int *wranks)
{
    MPI_Group g = MPI_GROUP_NULL, wg = MPI_GROUP_NULL;
    int *ranks = malloc((size_t)n * sizeof(int));
    int i, rc;

    if (!ranks) return MPI_ERR_NO_MEM;
    for (i = 0; i < n; i++) ranks[i] = i;
    rc = PMPI_Comm_group(comm, &g);
    if (rc == MPI_SUCCESS) rc = PMPI_Comm_group(parent, &wg);
    if (rc == MPI_SUCCESS) rc = PMPI_Group_translate_ranks(g, n, ranks, wg, wranks);
    if (rc == MPI_SUCCESS) {
        for (i = 0; i < n; i++)
            if (wranks[i] == MPI_UNDEFINED || wranks[i] < 0) rc = MPI_ERR_COMM;
    }
    if (wg != MPI_GROUP_NULL && PMPI_Group_free(&wg) != MPI_SUCCESS && rc == MPI_SUCCESS)
        rc = MPI_ERR_GROUP;
    if (g != MPI_GROUP_NULL && PMPI_Group_free(&g) != MPI_SUCCESS && rc == MPI_SUCCESS)
        rc = MPI_ERR_GROUP;
    free(ranks);
    return rc;
}

/* comm's topology from parent's topology: each rank keeps its parent
 * rank's node and socket. */
static int restrict_parent(const tc_topo *world, MPI_Comm parent, MPI_Comm comm, int csize, tc_topo **out)
{
    int *wr = malloc((size_t)csize * sizeof(int));
    int *nl = malloc((size_t)csize * sizeof(int));
    int *sl = malloc((size_t)csize * sizeof(int));
    int i, rc = MPI_ERR_NO_MEM;

    if (wr && nl && sl) rc = parent_ranks(comm, parent, csize, wr);
    if (rc == MPI_SUCCESS) {
        for (i = 0; i < csize; i++) {
            nl[i] = world->node_of[wr[i]];
            sl[i] = world->sock_of[wr[i]];
        }
        *out = tc_topo_from_map(csize, nl, sl);
        if (!*out) rc = MPI_ERR_NO_MEM;
    }
    free(wr);
    free(nl);
    free(sl);
    return rc;
}

static int detect_from_spec(MPI_Comm comm, const char *spec, tc_topo **out)
{
    char err[256];
    tc_topo *world;
    int wsize, csize, crank, rc;

    rc = PMPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (rc == MPI_SUCCESS) rc = PMPI_Comm_size(comm, &csize);
    if (rc == MPI_SUCCESS) rc = PMPI_Comm_rank(comm, &crank);
    if (rc != MPI_SUCCESS) return err_class(rc);
    int oom = 0;
    world = tc_topo_from_spec_oom(spec, wsize, err, sizeof err, &oom);
    if (!world) {
        if (crank == 0) fprintf(stderr, "topocoll: TOPOCOLL_TOPOLOGY: %s\n", err);
        return oom ? MPI_ERR_NO_MEM : MPI_ERR_ARG;
    }
    rc = restrict_parent(world, MPI_COMM_WORLD, comm, csize, out);
    if (rc == MPI_ERR_COMM && crank == 0)
        fprintf(stderr, "topocoll: TOPOCOLL_TOPOLOGY describes MPI_COMM_WORLD, but the "
                        "communicator holds processes outside it\n");
    if (rc == MPI_SUCCESS) {
        (*out)->virtual_nodes = 1;
        if (csize == wsize)
            snprintf((*out)->desc, sizeof (*out)->desc, "%.250s", world->desc);
        else
            snprintf((*out)->desc, sizeof (*out)->desc, "%.200s (%d of %d world ranks)",
                     world->desc, csize, wsize);
    }
    tc_topo_free(world);
    return rc == MPI_SUCCESS ? rc : err_class(rc);
}

/* ---- detection on the machine ------------------------------------------------ */

/* The comm rank of rank 0 of this process's shared-memory node. */
static int node_label(MPI_Comm comm, int crank, int *label)
{
    MPI_Comm node_comm = MPI_COMM_NULL;
    int rc, rc2;

    rc = tc_comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node_comm);
    if (rc != MPI_SUCCESS) return rc;
    *label = crank;
    rc = PMPI_Bcast(label, 1, MPI_INT, 0, node_comm);
    rc2 = PMPI_Comm_free(&node_comm);
    return rc != MPI_SUCCESS ? rc : rc2;
}

/* Splits gathered (node, socket) pairs and builds the topology. */
static int build_from_pairs(const int *pairs, int n, tc_topo **out)
{
    int *labels = malloc(2 * (size_t)n * sizeof(int));
    int i;

    if (!labels) return MPI_ERR_NO_MEM;
    for (i = 0; i < n; i++) {
        labels[i] = pairs[2 * i];
        labels[n + i] = pairs[2 * i + 1];
    }
    *out = tc_topo_from_map(n, labels, labels + n);
    free(labels);
    return *out ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

static void describe_detected(tc_topo *t, domain_kind kind, int hw_ok)
{
    snprintf(t->desc, sizeof t->desc, "detected: %d node%s, %d socket%s (%s%s)",
             t->nnodes, t->nnodes == 1 ? "" : "s", t->nsockets, t->nsockets == 1 ? "" : "s",
             domain_names[kind], hw_ok ? "" : "; hwloc unavailable, one per node");
}

static int detect_from_machine(MPI_Comm comm, tc_topo **out)
{
    domain_kind kind;
    int csize, crank, rc, hw_ok, mine[2];
    int *pairs;

    rc = PMPI_Comm_size(comm, &csize);
    if (rc == MPI_SUCCESS) rc = PMPI_Comm_rank(comm, &crank);
    if (rc != MPI_SUCCESS) return err_class(rc);
    if (domain_from_env(crank, &kind) != 0) return MPI_ERR_ARG;
    mine[1] = hw_domain_label(kind, &hw_ok);
    pairs = malloc(2 * (size_t)csize * sizeof(int));
    if (!pairs) return MPI_ERR_NO_MEM;
    rc = node_label(comm, crank, &mine[0]);
    if (rc == MPI_SUCCESS) rc = PMPI_Allgather(mine, 2, MPI_INT, pairs, 2, MPI_INT, comm);
    if (rc == MPI_SUCCESS) rc = build_from_pairs(pairs, csize, out);
    free(pairs);
    if (rc != MPI_SUCCESS) return err_class(rc);
    describe_detected(*out, kind, hw_ok);
    return MPI_SUCCESS;
}

int tc_topo_detect(MPI_Comm comm, tc_topo **out)
{
    const char *spec;
    int inter = 0, rc;

    if (!out) return MPI_ERR_ARG;
    *out = NULL;
    if (comm == MPI_COMM_NULL) return MPI_ERR_COMM;
    rc = PMPI_Comm_test_inter(comm, &inter);
    if (rc != MPI_SUCCESS) return err_class(rc);
    if (inter) return MPI_ERR_COMM;
    spec = tc_config_live("TOPOCOLL_TOPOLOGY");
    if (spec) return detect_from_spec(comm, spec, out);
    return detect_from_machine(comm, out);
}

int tc_topo_restrict(const tc_topo *parent, MPI_Comm pcomm, MPI_Comm comm, tc_topo **out)
{
    int csize, rc = PMPI_Comm_size(comm, &csize);
    *out = NULL;
    if (rc == MPI_SUCCESS) rc = restrict_parent(parent, pcomm, comm, csize, out);
    if (rc != MPI_SUCCESS) return err_class(rc);
    const char *how = strchr(parent->desc, '(');   /* the parent's domain kind and hwloc note */
    snprintf((*out)->desc, sizeof (*out)->desc, "detected: %d node%s, %d socket%s%s%.200s",
             (*out)->nnodes, (*out)->nnodes == 1 ? "" : "s", (*out)->nsockets,
             (*out)->nsockets == 1 ? "" : "s", how ? " " : "", how ? how : "");
    (*out)->virtual_nodes = parent->virtual_nodes;
    return MPI_SUCCESS;
}

int tc_topo_spec_for_comm(MPI_Comm comm, const char *spec, tc_topo **out)
{
    char err[256];
    int size, rank, oom = 0, rc = PMPI_Comm_size(comm, &size);
    if (rc == MPI_SUCCESS) rc = PMPI_Comm_rank(comm, &rank);
    if (rc != MPI_SUCCESS) return err_class(rc);
    *out = tc_topo_from_spec_oom(spec, size, err, sizeof err, &oom);
    if (*out) {
        (*out)->virtual_nodes = 1;
        return MPI_SUCCESS;
    }
    if (rank == 0) fprintf(stderr, "topocoll: %s\n", err);
    return oom ? MPI_ERR_NO_MEM : MPI_ERR_ARG;
}

/* ---- the machine's hwloc topology, for other MPI-side users ------------- */

hwloc_topology_t tc_hw_topology_lock(void)
{
    if (pthread_mutex_lock(&hw_lock) != 0) return NULL;
    if (hw_load_locked()) return hw_topo;
    (void)pthread_mutex_unlock(&hw_lock);
    return NULL;
}

void tc_hw_topology_unlock(void)
{
    (void)pthread_mutex_unlock(&hw_lock);
}
