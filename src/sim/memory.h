/*
 * Memory the simulator needs, estimated before it allocates, and the limit
 * it is held to (docs/simulator.md, "Memory").  Every figure is an upper
 * estimate in bytes from the sizes alone (ranks, nodes, links, rounds), so a
 * run that would not fit is refused with the estimate and the option that
 * lowers it, instead of growing until the machine swaps.
 *
 *   network tables     4-12 bytes per node (allocated by tc_net_parse)
 *   placement          ~72 bytes per rank at its peak (rank -> node, the
 *                      topology object and the temporaries that build it)
 *   engine             32 MiB (the program) + 8 bytes per link (loads) + 12 per node (per-node
 *                      aggregates) + 4 per link (step ids) + 20 per link
 *                      (columns, with the step estimate) + 32 per rank
 *                      (--check)
 *   per step           88 bytes per round index (messages, bytes, reduced
 *                      bytes, two aggregate slots, tier maxima), only with
 *                      the step estimate: --total-only needs none
 *   per-step loads     at most the --step-mem budget, lowered to what the
 *                      limit leaves (more re-runs over windows, same result)
 */
#ifndef TC_SIM_MEMORY_H
#define TC_SIM_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "sim/net.h"

#define TC_SIM_MEM_PER_STEP 88u   /* bytes per round index with the step estimate */

uint64_t tc_sim_mem_net(const tc_net *net);
uint64_t tc_sim_mem_place(const tc_net *net, int64_t p);
/* steps: the step estimate is on; check: --check. */
uint64_t tc_sim_mem_engine(const tc_net *net, int64_t p, int steps, int check);

/* What a run of p ranks on net needs before per-step data (network tables,
 * placement, engine); when it passes limit (nonzero), one line in msg names
 * the parts, the limit and the options that lower it, and 1 is returned. */
int tc_sim_mem_over(const tc_net *net, int64_t p, int steps, int check, uint64_t limit, uint64_t *need,
                    char *msg, size_t len);

/* 90 % of the memory the system says is available now (MemAvailable of
 * /proc/meminfo, else the physical memory); 0 when unknown (no limit). */
uint64_t tc_sim_mem_default_limit(void);

/* "1.5 GiB" into buf; returns buf. */
const char *tc_sim_mem_str(uint64_t bytes, char *buf, size_t len);

#endif
