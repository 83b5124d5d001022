/* Memory placement for the executor: node-shared data near the ranks that
 * use it (hwloc; the machine's topology from src/detect). */
#ifndef TC_EXEC_MEMBIND_H
#define TC_EXEC_MEMBIND_H

#include <stddef.h>

/* Bind the pages of [addr, addr+len) to the memory of the calling process's
 * NUMA domain (from its CPU binding; nothing for an unbound process).
 * Returns 0, or -1 when hwloc cannot (placement then stays first-touch). */
int tc_bind_memory_local(void *addr, size_t len);

#endif
