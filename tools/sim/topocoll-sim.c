/*
 * topocoll-sim: simulates topocoll's own schedules on a network model and
 * prints link usage per tier and the bandwidth-model time estimates of
 * Jain, Lau, Kale, "Collectives on Two-tier Direct Networks" (2012), per
 * algorithm or side by side (--compare).
 * No MPI process: the generators run for every rank in this process, one
 * rank at a time (src/sim).  docs/simulator.md has the options and the model.
 *
 * Exit status: 0 ok; 1 a simulation failed (generator error, failed check)
 * or an output file could not be written; 2 bad usage or input.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "report.h"
#include "sim/memory.h"
#include "sim/sim.h"

static void list_algos(topocoll_coll coll)
{
    for (int i = 0; i < tc_catalog_variant_count(coll); i++) {
        const tc_algo *al = tc_catalog_variant_at(coll, i);
        printf("%-28s %s%s\n", al->name, al->desc, al->generate ? "" : " [no schedule: not simulated]");
    }
}

static int has(const tc_algo *const *v, int n, const tc_algo *al)
{
    for (int i = 0; i < n; i++)
        if (v[i] == al) return 1;
    return 0;
}

/* Adds the algorithms one token names: "all" (every one with a schedule), a
 * shell pattern (those with a schedule), or a name.  0, or -1 with err. */
static int add_token(topocoll_coll coll, const char *tok, const tc_algo **v, int *k, char *err, size_t len)
{
    int n = tc_catalog_variant_count(coll), all = !strcmp(tok, "all"), pattern = strpbrk(tok, "*?[") != NULL, hits = 0;
    if (!all && !pattern) {
        const tc_algo *al = tc_catalog_find(coll, tok);
        if (!al) {
            snprintf(err, len, "unknown %s algorithm '%s' (topocoll-sim --coll %s --list shows them)",
                     tc_coll_name(coll), tok, tc_coll_name(coll));
            return -1;
        }
        if (!has(v, *k, al)) v[(*k)++] = al;
        return 0;
    }
    for (int i = 0; i < n; i++) {
        const tc_algo *al = tc_catalog_variant_at(coll, i);
        if (!al->generate || (pattern && fnmatch(tok, al->name, 0) != 0)) continue;
        hits++;
        if (!has(v, *k, al)) v[(*k)++] = al;
    }
    if (!hits) {
        snprintf(err, len, "no %s algorithm with a schedule matches '%s'", tc_coll_name(coll), tok);
        return -1;
    }
    return 0;
}

/* Algorithms from a comma list of names and patterns, or by default every
 * flat algorithm with a schedule (families: name them or use a pattern). */
static int pick_algos(const sim_opts *o, topocoll_coll coll, const tc_algo ***out, int *n, char *err, size_t len)
{
    int total = tc_catalog_variant_count(coll), k = 0;
    const tc_algo **v = calloc((size_t)total + 1, sizeof *v);
    if (!v) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    if (!o->algos) {
        for (int i = 0; i < total; i++) {
            const tc_algo *al = tc_catalog_variant_at(coll, i);
            if (al->generate && !strcmp(tc_algo_family(al), "flat")) v[k++] = al;
        }
    }
    for (const char *p = o->algos; p;) {
        size_t l = tc_catalog_list_item(p);
        const char *c = p[l] ? p + l : NULL;
        char tok[128];
        snprintf(tok, sizeof tok, "%.*s", (int)(l < 127 ? l : 127), p);
        if (add_token(coll, tok, v, &k, err, len) != 0) {
            free(v);
            return -1;
        }
        p = c ? c + 1 : NULL;
    }
    *out = v;
    *n = k;
    return 0;
}

static int simulate_all(sim_run *run, const tc_args *proto)
{
    int failed = 0;
    for (int i = 0; i < run->nalg; i++) {
        tc_sim_run(run->algs[i], proto, run->net, run->pl, run->prm, &run->res[i]);
        failed |= run->res[i].status == TC_SIM_ERROR;
        if (!run->o->compare) {
            report_algo(stdout, run, i);
            if (run->o->steps) report_steps(stdout, run, i);
            fflush(stdout);
        }
    }
    if (run->o->compare) {
        report_compare(stdout, run);
        for (int i = 0; run->o->steps && i < run->nalg; i++) report_steps(stdout, run, i);
    }
    return failed;
}

static int write_files(const sim_run *run)
{
    char err[512];
    int rc = 0;
    if (run->o->csv && export_csv(run, run->o->csv, err, sizeof err) != 0) {
        fprintf(stderr, "topocoll-sim: %s\n", err);
        rc = 1;
    }
    if (run->o->json && export_json(run, run->o->json, err, sizeof err) != 0) {
        fprintf(stderr, "topocoll-sim: %s\n", err);
        rc = 1;
    }
    if (run->o->links && export_links(run, run->o->links, err, sizeof err) != 0) {
        fprintf(stderr, "topocoll-sim: %s\n", err);
        rc = 1;
    }
    return rc;
}

/* One line: the unknown name, a collective it is the start of (reduce_scatter
 * -> reduce_scatter_block), and the list. */
static void unknown_coll(const char *name)
{
    const char *near = NULL;
    size_t n = strlen(name);
    for (int c = 0; c < TOPOCOLL_NCOLL && !near; c++) {
        const char *cn = tc_coll_name((topocoll_coll)c);
        if (n >= 3 && !strncmp(cn, name, n)) near = cn;
    }
    fprintf(stderr, "topocoll-sim: unknown collective '%s'", name);
    if (near) fprintf(stderr, " (did you mean %s?)", near);
    fprintf(stderr, "; collectives:");
    for (int c = 0; c < TOPOCOLL_NCOLL; c++) fprintf(stderr, " %s", tc_coll_name((topocoll_coll)c));
    fprintf(stderr, "\n");
}

/* The run's memory, estimated before the placement is built: 0, or -1 with
 * err (the engine checks again, for every caller of tc_sim_run). */
static int run_fits(const sim_opts *o, const tc_net *net, const tc_sim_params *prm, char *err, size_t len)
{
    int64_t p = o->ranks > 0 ? o->ranks : (int64_t)net->nnodes * net->cpn;
    uint64_t need;
    return tc_sim_mem_over(net, p, prm->steps, prm->check, prm->mem_limit, &need, err, len) ? -1 : 0;
}

/* "42 s", "17 min", "3.2 h", "41 days". */
static const char *duration(double s, char *buf, size_t len)
{
    if (s < 120) snprintf(buf, len, "%.0f s", s);
    else if (s < 7200) snprintf(buf, len, "%.0f min", s / 60);
    else if (s < 172800) snprintf(buf, len, "%.1f h", s / 3600);
    else snprintf(buf, len, "%.0f days", s / 86400);
    return buf;
}

/* Progress of long runs on stderr (the engine calls at most once a second). */
static void show_progress(void *ctx, const tc_sim_progress *pg)
{
    char a[32], b[32];
    (void)ctx;
    fprintf(stderr, "topocoll-sim: %s: pass %d of %d%s, rank %d of %d, %s", pg->algo, pg->pass, pg->npass,
            pg->pass == 1 && pg->npass == 1 ? "" : " (re-runs over windows of steps)", pg->rank, pg->p,
            duration(pg->elapsed_s, a, sizeof a));
    if (pg->left_s >= 0) fprintf(stderr, ", about %s left", duration(pg->left_s, b, sizeof b));
    fprintf(stderr, "\n");
}

/* Network, placement, parameters, prototype: 0 or 2 with a message. */
static int setup(const sim_opts *o, topocoll_coll coll, tc_net **net, tc_sim_place **pl, tc_sim_params *prm,
                 tc_args *proto)
{
    char err[512];
    if (!(*net = tc_net_parse(o->network, err, sizeof err)) ||
        sim_opts_params(o, *net, prm, err, sizeof err) != 0 ||
        run_fits(o, *net, prm, err, sizeof err) != 0 ||
        !(*pl = tc_sim_place_new(*net, o->ranks, o->map, o->levels, err, sizeof err)) ||
        tc_sim_proto(proto, coll, (*pl)->p, o->bytes, o->esize, o->root, err, sizeof err) != 0) {
        fprintf(stderr, "topocoll-sim: %s\n", err);
        return 2;
    }
    prm->progress = show_progress;
    return 0;
}

int main(int argc, char **argv)
{
    sim_opts o;
    char err[512];
    int rc = sim_opts_parse(argc, argv, &o, err, sizeof err);
    if (rc == 1) {
        sim_usage(stdout);
        return 0;
    }
    if (rc != 0) {
        fprintf(stderr, "topocoll-sim: %s\n", err);
        return 2;
    }
    int coll = tc_coll_from_name(o.coll);
    if (coll < 0) {
        unknown_coll(o.coll);
        return 2;
    }
    if (o.list) {
        list_algos((topocoll_coll)coll);
        return 0;
    }
    tc_net *net = NULL;
    tc_sim_place *pl = NULL;
    tc_sim_params prm;
    tc_args proto;
    sim_run run = { &o, NULL, NULL, &prm, o.coll, 0, NULL, NULL };
    rc = setup(&o, (topocoll_coll)coll, &net, &pl, &prm, &proto);
    if (rc == 0 && pick_algos(&o, (topocoll_coll)coll, &run.algs, &run.nalg, err, sizeof err) != 0) {
        fprintf(stderr, "topocoll-sim: %s\n", err);
        rc = 2;
    }
    if (rc == 0 && !(run.res = calloc((size_t)run.nalg + 1, sizeof *run.res))) {
        fprintf(stderr, "topocoll-sim: out of memory\n");
        rc = 1;
    }
    if (rc == 0) {
        run.net = net;
        run.pl = pl;
        report_header(stdout, &run);
        fflush(stdout);
        rc = simulate_all(&run, &proto);
        rc |= write_files(&run);
    }
    for (int i = 0; run.res && i < run.nalg; i++) tc_sim_result_free(&run.res[i]);
    free(run.res);
    free(run.algs);
    tc_sim_place_free(pl);
    tc_net_free(net);
    return rc;
}
