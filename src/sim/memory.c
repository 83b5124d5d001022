/*
 * Memory estimates of the simulator (see memory.h for the table).
 */
#include "sim/memory.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

uint64_t tc_sim_mem_net(const tc_net *net)
{
    uint64_t per_node = net->kind == TC_NET_DRAGONFLY ? 12 : 8;
    return (uint64_t)net->nnodes * per_node + (uint64_t)net->ngroups * 4;
}

uint64_t tc_sim_mem_place(const tc_net *net, int64_t p)
{
    return (uint64_t)p * 72 + (uint64_t)net->nnodes + 4096;
}

uint64_t tc_sim_mem_engine(const tc_net *net, int64_t p, int steps, int check)
{
    uint64_t links = (uint64_t)net->nlinks, nodes = (uint64_t)net->nnodes;
    uint64_t b = links * (8 + 4) + nodes * 12 + ((uint64_t)32 << 20);   /* + the program */
    if (steps) b += links * 20;
    if (check) b += (uint64_t)p * 32;
    return b;
}

int tc_sim_mem_over(const tc_net *net, int64_t p, int steps, int check, uint64_t limit, uint64_t *need,
                    char *msg, size_t len)
{
    uint64_t n = tc_sim_mem_net(net), pl = tc_sim_mem_place(net, p), e = tc_sim_mem_engine(net, p, steps, check);
    *need = n + pl + e;
    if (!limit || *need <= limit) return 0;
    char a[32], b[32], c[32], d[32], l[32], s[32];
    uint64_t save = steps ? (uint64_t)net->nlinks * 20 : 0;
    snprintf(msg, len, "needs about %s (network tables %s, placement of %lld ranks %s, link and node loads%s %s), "
             "above the memory limit of %s (--mem-limit); --ranks places fewer%s%s%s",
             tc_sim_mem_str(*need, a, sizeof a), tc_sim_mem_str(n, b, sizeof b), (long long)p,
             tc_sim_mem_str(pl, c, sizeof c), check ? " and checks" : "", tc_sim_mem_str(e, d, sizeof d),
             tc_sim_mem_str(limit, l, sizeof l), save ? ", --total-only needs " : "",
             save ? tc_sim_mem_str(save, s, sizeof s) : "", save ? " less" : "");
    if (check) snprintf(msg + strlen(msg), len - strlen(msg), ", without --check %s less",
                        tc_sim_mem_str((uint64_t)p * 32, s, sizeof s));
    return 1;
}

static uint64_t meminfo_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[128];
    unsigned long long kib = 0;
    if (!f) return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1) break;
    fclose(f);
    return (uint64_t)kib * 1024;
}

uint64_t tc_sim_mem_default_limit(void)
{
    uint64_t avail = meminfo_available();
    if (!avail) {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        if (pages > 0 && page > 0) avail = (uint64_t)pages * (uint64_t)page;
    }
    return avail / 10 * 9;
}

const char *tc_sim_mem_str(uint64_t bytes, char *buf, size_t len)
{
    static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 6) {
        v /= 1024;
        u++;
    }
    if (u == 0) snprintf(buf, len, "%llu B", (unsigned long long)bytes);
    else snprintf(buf, len, "%.1f %s", v, unit[u]);
    return buf;
}
