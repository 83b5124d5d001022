/*
 * topocoll-sim output: the text reports (per algorithm, side by side, per
 * step) and the CSV/JSON exports of one run.
 */
#ifndef TC_SIM_REPORT_H
#define TC_SIM_REPORT_H

#include <stdio.h>

#include "options.h"
#include "sim/sim.h"

/* Everything one invocation simulated. */
typedef struct sim_run {
    const sim_opts *o;
    const tc_net *net;
    const tc_sim_place *pl;
    const tc_sim_params *prm;
    const char *coll;
    int nalg;
    const tc_algo **algs;
    tc_sim_result *res;
} sim_run;

/* "64.0 MiB", "1.00 GiB", "512 B". */
const char *sim_fmt_bytes(tc_u128 b, char *buf, size_t len);
/* "107 ms", "1.72 s", "850 us". */
const char *sim_fmt_time(double s, char *buf, size_t len);

void report_header(FILE *f, const sim_run *run);
void report_algo(FILE *f, const sim_run *run, int i);
void report_compare(FILE *f, const sim_run *run);
void report_steps(FILE *f, const sim_run *run, int i);

/* Return 0 or -1 with one line in err. */
int export_csv(const sim_run *run, const char *path, char *err, size_t errlen);
int export_json(const sim_run *run, const char *path, char *err, size_t errlen);
/* Every used link's load: algorithm,link,tier,from,to,bytes (the paper's
 * linkUsage output). */
int export_links(const sim_run *run, const char *path, char *err, size_t errlen);

#endif
