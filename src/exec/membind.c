/* Memory placement (see membind.h). */
#include "exec/membind.h"

#include "detect/detect.h"

int tc_bind_memory_local(void *addr, size_t len)
{
    if (!addr || len == 0) return -1;
    hwloc_topology_t hw = tc_hw_topology_lock();
    if (!hw) return -1;
    int rc = -1;
    hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
    if (cpus && hwloc_get_cpubind(hw, cpus, HWLOC_CPUBIND_PROCESS) == 0 &&
        !hwloc_bitmap_isincluded(hwloc_topology_get_topology_cpuset(hw), cpus))
        rc = hwloc_set_area_membind(hw, addr, len, cpus, HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_MIGRATE);
    else if (cpus)
        rc = 0;   /* unbound process: leave placement to the kernel */
    hwloc_bitmap_free(cpus);
    tc_hw_topology_unlock();
    return rc;
}
