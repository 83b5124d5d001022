/* Topology detection on a real machine: nodes from
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), sockets / NUMA domains from hwloc
 * and the calling process's CPU binding (one domain when unbound or when hwloc
 * cannot tell).  Collective over comm; uses PMPI_ calls only. */
#ifndef TC_DETECT_H
#define TC_DETECT_H
#include <hwloc.h>
#include <mpi.h>
#include "topo/topo.h"

/* Returns MPI_SUCCESS and *out, or an MPI error class. */
int tc_topo_detect(MPI_Comm comm, tc_topo **out);

/* comm's topology from parent's (detected on pcomm): each rank of comm
 * keeps its pcomm rank's node and socket, as detection on comm would find
 * them; local (group rank translation, no communication).  MPI_ERR_COMM
 * when a rank of comm is not in pcomm. */
int tc_topo_restrict(const tc_topo *parent, MPI_Comm pcomm, MPI_Comm comm, tc_topo **out);

/* A topology for comm itself from a spec (topocoll_set_topology): the
 * spec's problem is printed on comm's rank 0; MPI_ERR_ARG for a malformed
 * spec, MPI_ERR_NO_MEM when memory ran out.  Local (no communication). */
int tc_topo_spec_for_comm(MPI_Comm comm, const char *spec, tc_topo **out);

/* Frees the hwloc topology that detection loads once per process and keeps
 * (call at MPI_Finalize time; detection reloads it if used again). */
void tc_detect_finalize(void);

/* Starts loading the hwloc topology in a thread of its own (signals
 * blocked), so that the first collective finds it loaded: the interposer
 * calls it as MPI_Init begins, whose start-up it overlaps (hwloc's
 * discovery takes milliseconds, a sub-second run's percent).  Nothing
 * happens when it was started before or the thread cannot be made (the
 * first use loads it then).  tc_detect_finalize waits for the thread. */
void tc_detect_prefetch(void);

/* The process's hwloc topology, loaded on first use, with its lock held
 * (NULL, and no lock held, when hwloc cannot load it); release it with
 * tc_hw_topology_unlock. */
hwloc_topology_t tc_hw_topology_lock(void);
void tc_hw_topology_unlock(void);

/* Whether comm's ranks time-share processors (src/detect/load.c): load is
 * TC_LOAD_OVERSUBSCRIBED when some rank's machine runs more ranks than the
 * processing units (hwloc PUs) they may use (comm's ranks against the union
 * of their allowed cpusets, or the job's ranks on the machine against the
 * job's PUs), or its MPI library yields while idle (Open MPI's
 * mpi_yield_when_idle); TC_LOAD_DEDICATED when none does, TC_LOAD_ANY when
 * hwloc cannot tell; the same on every rank.  TOPOCOLL_OVERSUBSCRIBED=0|1
 * decides instead.  ranks and pus: the decisive count on this rank's
 * machine (0 when not measured). */
typedef struct tc_load_info {
    int load;
    int ranks, pus;
    char desc[128];
} tc_load_info;

/* Collective over comm; MPI_SUCCESS or an MPI error code. */
int tc_detect_load(MPI_Comm comm, tc_load_info *out);

#endif
