/*
 * Which ranks share one physical machine (no MPI): the load detection
 * (src/detect/load.c) counts the ranks of one machine against the union of
 * their processing units.  A machine is named by the kernel's boot id
 * (/proc/sys/kernel/random/boot_id), which is the same in every network,
 * UTS, IPC and mount namespace of one kernel: the emulated hosts of one
 * machine (docs/cluster.md) share it, the nodes of a real cluster do not.
 * Where it cannot be read, the shared-memory node stands for the machine.
 */
#ifndef TC_TOPO_MACHINE_H
#define TC_TOPO_MACHINE_H

#include <stddef.h>

/* Bytes of one machine key, its terminating NUL included. */
#define TC_MACHINE_KEY 64

/* The kernel's boot id into buf (NUL-terminated, trailing newline removed):
 * TOPOCOLL_TEST_BOOT_ID when set (a hook for tests: ranks of one machine
 * posing as several), else the /proc file.  1, or 0 when there is none. */
int tc_machine_boot_id(char *buf, size_t len);

/* This rank's machine key (TC_MACHINE_KEY bytes, zero-padded): "boot
 * <boot id>" when boot_id is not empty, else "node <node>" (node: a number
 * the ranks of one shared-memory node agree on, e.g. its first rank). */
void tc_machine_key(char key[TC_MACHINE_KEY], const char *boot_id, int node);

/* Groups of equal keys: color[i] is the index of the first key equal to
 * key i (keys: n keys of TC_MACHINE_KEY bytes each).  O(n log n).  0, or
 * -1 when memory ran out. */
int tc_machine_groups(const char *keys, int n, int *color);

#endif
