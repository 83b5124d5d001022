/*
 * topocoll-sim command line: options, sizes with binary suffixes, per-tier
 * bandwidths.  See docs/simulator.md for the option table.
 */
#ifndef TC_SIM_OPTIONS_H
#define TC_SIM_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/sim.h"

#define SIM_MAX_BW 8

typedef struct sim_opts {
    const char *network;
    const char *coll;
    const char *algos;           /* comma list, NULL = every algorithm with a schedule */
    int64_t bytes;               /* per core: the MPI count x element size */
    int esize;
    int root;
    int ranks;                   /* 0 = every core */
    const char *map;
    int levels;                  /* tc_sim_levels */
    int compare, steps, check, total_only, list, generic;
    const char *csv, *json;
    const char *links;           /* per-link loads CSV */
    double bw_all;               /* GB/s for every tier (0 = default) */
    int nbw;                     /* per-tier overrides */
    char bw_name[SIM_MAX_BW][16];
    double bw_gbs[SIM_MAX_BW];
    double gamma_ns;             /* < 0: default */
    int64_t step_mem_mib;
    int64_t mem_limit;           /* bytes; -1: the default (sim/memory.h); 0: none */
} sim_opts;

/* 0: run; 1: help printed; -1: error (one line in err). */
int sim_opts_parse(int argc, char **argv, sim_opts *o, char *err, size_t errlen);
void sim_usage(FILE *f);

/* "64K", "1M", "1G", "65536": binary suffixes K M G T (optional "B" / "iB").
 * Returns 0 or -1. */
int sim_parse_bytes(const char *s, int64_t *out);

/* Model parameters from the options for this network (checks tier names). */
int sim_opts_params(const sim_opts *o, const tc_net *net, tc_sim_params *prm, char *err, size_t errlen);

#endif
