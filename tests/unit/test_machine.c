/* Which ranks share one physical machine (src/topo/machine.h): the boot id
 * (and its test hook), the machine key (the boot id, else the shared-memory
 * node), and the groups of equal keys.  No MPI.
 * Ends with "N passed, M failed". */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "topo/machine.h"
#include "../common/harness.h"

/* Emulated hosts of one machine (one boot id, a node each), a second
 * machine, and two nodes whose boot id is unknown. */
static void groups(void)
{
    enum { N = 7 };
    static const char *const boot[N] = { "1111", "2222", "1111", "", "1111", "2222", "" };
    static const int node[N] = { 0, 1, 2, 3, 4, 5, 6 };
    char keys[N * TC_MACHINE_KEY];
    for (int i = 0; i < N; i++) tc_machine_key(keys + i * TC_MACHINE_KEY, boot[i], node[i]);
    int color[N];
    CHECK(tc_machine_groups(keys, N, color) == 0, "groups: out of memory");
    static const int want[N] = { 0, 1, 0, 3, 0, 1, 6 };
    for (int i = 0; i < N; i++) CHECK(color[i] == want[i], "rank %d: color %d, want %d", i, color[i], want[i]);
    /* the same node without a boot id: one group */
    tc_machine_key(keys, "", 5);
    tc_machine_key(keys + TC_MACHINE_KEY, "", 5);
    CHECK(tc_machine_groups(keys, 2, color) == 0 && color[0] == 0 && color[1] == 0, "node 5 twice: %d %d", color[0],
          color[1]);
    CHECK(strcmp(keys, "node 5") == 0, "key without boot id: '%s'", keys);
    tc_machine_key(keys, "abc", 5);
    CHECK(strcmp(keys, "boot abc") == 0 && keys[TC_MACHINE_KEY - 1] == '\0', "key with boot id: '%s'", keys);
}

static void boot_id(void)
{
    char id[TC_MACHINE_KEY];
    unsetenv("TOPOCOLL_TEST_BOOT_ID");
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        char line[128] = "";
        CHECK(fgets(line, sizeof line, f) != NULL, "boot_id unreadable");
        fclose(f);
        line[strcspn(line, "\n")] = '\0';
        CHECK(tc_machine_boot_id(id, sizeof id) == 1 && strcmp(id, line) == 0 && strlen(id) == 36,
              "boot id '%s', the file says '%s'", id, line);
    }
    setenv("TOPOCOLL_TEST_BOOT_ID", "host-a\n", 1);
    CHECK(tc_machine_boot_id(id, sizeof id) == 1 && strcmp(id, "host-a") == 0, "hook: '%s'", id);
    unsetenv("TOPOCOLL_TEST_BOOT_ID");
}

int main(void)
{
    groups();
    boot_id();
    return tc_test_summary();
}
