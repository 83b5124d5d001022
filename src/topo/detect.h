/* Topology detection on a real machine: nodes from
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), sockets / NUMA domains from hwloc
 * and the calling process's CPU binding (one domain when unbound or when hwloc
 * cannot tell).  Collective over comm; uses PMPI_ calls only. */
#ifndef TC_DETECT_H
#define TC_DETECT_H
#include <mpi.h>
#include "topo/topo.h"

/* Returns MPI_SUCCESS and *out, or an MPI error class. */
int tc_topo_detect(MPI_Comm comm, tc_topo **out);

/* Frees the hwloc topology that detection loads once per process and keeps
 * (call at MPI_Finalize time; detection reloads it if used again). */
void tc_detect_finalize(void);

/* Bind the pages of [addr, addr+len) to the memory of the calling process's
 * NUMA domain (from its CPU binding; nothing for an unbound process).
 * Returns 0, or -1 when hwloc cannot (placement then stays first-touch). */
int tc_bind_memory_local(void *addr, size_t len);

#endif
