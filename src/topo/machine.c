/* Which ranks share one physical machine (see machine.h). */
#define _POSIX_C_SOURCE 200809L
#include "topo/machine.h"

#include "core/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BOOT_ID_FILE "/proc/sys/kernel/random/boot_id"

/* The first line of s without its newline, into buf. */
static int first_line(const char *s, char *buf, size_t len)
{
    size_t n = strcspn(s, "\r\n");
    if (n >= len) n = len - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return n > 0;
}

int tc_machine_boot_id(char *buf, size_t len)
{
    if (!buf || len == 0) return 0;
    buf[0] = '\0';
    const char *hook = tc_config_live("TOPOCOLL_TEST_BOOT_ID");
    if (hook && hook[0]) return first_line(hook, buf, len);
    FILE *f = fopen(BOOT_ID_FILE, "r");
    if (!f) return 0;
    char line[128];
    int ok = fgets(line, sizeof line, f) != NULL && first_line(line, buf, len);
    fclose(f);
    if (!ok) buf[0] = '\0';
    return ok;
}

void tc_machine_key(char key[TC_MACHINE_KEY], const char *boot_id, int node)
{
    memset(key, 0, TC_MACHINE_KEY);
    if (boot_id && boot_id[0]) snprintf(key, TC_MACHINE_KEY, "boot %s", boot_id);
    else snprintf(key, TC_MACHINE_KEY, "node %d", node);
}

typedef struct keyed {
    const char *key;
    int index;
} keyed;

/* By key, then by index (so that every group starts with its smallest index). */
static int by_key(const void *x, const void *y)
{
    const keyed *a = x, *b = y;
    int c = memcmp(a->key, b->key, TC_MACHINE_KEY);
    return c ? c : (a->index > b->index) - (a->index < b->index);
}

int tc_machine_groups(const char *keys, int n, int *color)
{
    keyed *order = malloc((size_t)(n > 0 ? n : 1) * sizeof *order);
    if (!order) return -1;
    for (int i = 0; i < n; i++) order[i] = (keyed){ keys + (size_t)i * TC_MACHINE_KEY, i };
    qsort(order, (size_t)n, sizeof *order, by_key);
    for (int k = 0; k < n; k++) {
        int same = k > 0 && memcmp(order[k].key, order[k - 1].key, TC_MACHINE_KEY) == 0;
        color[order[k].index] = same ? color[order[k - 1].index] : order[k].index;
    }
    free(order);
    return 0;
}
