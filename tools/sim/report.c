/*
 * Text reports of topocoll-sim: a header (network, placement, collective,
 * model), one block per algorithm, the side-by-side table of --compare (the
 * shape of Tables 3-5 of Jain, Lau, Kale, "Collectives on Two-tier Direct
 * Networks", 2012: rows = tiers and metrics, columns = algorithms) and the
 * per-step table of --steps.  Bytes print with binary
 * units (KiB = 2^10 B), exact values go to CSV/JSON.
 */
#include "report.h"

#include <string.h>

const char *sim_fmt_bytes(tc_u128 b, char *buf, size_t len)
{
    static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB" };
    if (b < 1024) {
        snprintf(buf, len, "%llu B", (unsigned long long)b);
        return buf;
    }
    double v = (double)b / 1024;
    int u = 0;
    while (v >= 999.5 && u < 7) {   /* 1023.9 MiB prints as 1.00 GiB */
        v /= 1024;
        u++;
    }
    snprintf(buf, len, v < 9.995 ? "%.2f %s" : v < 99.95 ? "%.1f %s" : "%.0f %s", v, unit[u]);
    return buf;
}

const char *sim_fmt_time(double s, char *buf, size_t len)
{
    const char *u = "s";
    if (s < 0) {
        snprintf(buf, len, "-");
        return buf;
    }
    if (s > 0 && s < 1e-3) {
        s *= 1e6;
        u = "us";
    } else if (s > 0 && s < 1) {
        s *= 1e3;
        u = "ms";
    }
    if (s >= 1e9) snprintf(buf, len, "%.3g %s", s, u);   /* absurd bandwidths: 3e+22 s, unit kept */
    else snprintf(buf, len, s < 9.995 ? "%.2f %s" : s < 99.95 ? "%.1f %s" : "%.0f %s", s, u);
    return buf;
}

void report_header(FILE *f, const sim_run *run)
{
    const tc_net *n = run->net;
    char b[32];
    fprintf(f, "network:    %s -- %s\n", n->spec, n->desc);
    fprintf(f, "placement:  %d ranks on %d nodes, %s; generators see a topology node per network %s\n",
            run->pl->p, run->pl->nodes_used, run->pl->desc,
            run->pl->levels == TC_SIM_LEVELS_GROUP ? "group (--levels group)" : "node (--levels node)");
    fprintf(f, "collective: %s, %s per core (%lld B, %d-byte elements), root %d\n", run->coll,
            sim_fmt_bytes((uint64_t)run->o->bytes, b, sizeof b), (long long)run->o->bytes, run->prm->esize,
            run->o->root);
    fprintf(f, "model:      bandwidth");
    for (int t = 0; t < n->ntiers; t++)
        fprintf(f, "%s %s %g GB/s", t ? "," : "", n->tier[t].name, run->prm->bw[t] / 1e9);
    fprintf(f, "; gamma %g ns/B\n\n", run->prm->gamma * 1e9);
}

static void report_tiers(FILE *f, const sim_run *run, const tc_sim_result *r)
{
    char mn[24], mx[24], tot[24], t[24];
    fprintf(f, "  %-8s %10s %10s %11s %11s %11s %12s\n", "tier", "links", "used", "min", "max", "total",
            "max x beta");
    for (int k = 0; k < r->ntiers; k++) {
        const tc_sim_tier *ts = &r->tier[k];
        fprintf(f, "  %-8s %10lld %10lld %11s %11s %11s %12s\n", run->net->tier[k].name, (long long)ts->links,
                (long long)ts->used, sim_fmt_bytes(ts->min, mn, sizeof mn), sim_fmt_bytes(ts->max, mx, sizeof mx),
                sim_fmt_bytes(ts->total, tot, sizeof tot), sim_fmt_time(ts->t_load, t, sizeof t));
    }
}

void report_algo(FILE *f, const sim_run *run, int i)
{
    const tc_sim_result *r = &run->res[i];
    char a[24], b[24], c[24], d[24];
    if (r->status == TC_SIM_DECLINED || (r->status == TC_SIM_ERROR && !r->checked)) {
        fprintf(f, "%s: %s%s\n\n", run->algs[i]->name, r->status == TC_SIM_ERROR ? "error: " : "", r->msg);
        return;
    }
    fprintf(f, "%s: %d steps, %lld messages (%lld between nodes), %s sent, %s inside nodes\n",
            run->algs[i]->name, r->rounds, (long long)r->messages, (long long)r->net_messages,
            sim_fmt_bytes(r->bytes, a, sizeof a), sim_fmt_bytes(r->intra_bytes, b, sizeof b));
    report_tiers(f, run, r);
    if (r->reduced_rank >= 0)
        fprintf(f, "  busiest rank reduces %s (rank %d)\n", sim_fmt_bytes(r->reduced_max, a, sizeof a),
                r->reduced_rank);
    fprintf(f, "  estimate: total-load %s (%s)  step-by-step %s  [%d pass%s, simulated in %s CPU]\n",
            sim_fmt_time(r->t_load, c, sizeof c), run->net->tier[r->t_load_tier].name,
            sim_fmt_time(r->t_steps, d, sizeof d), r->step_passes, r->step_passes == 1 ? "" : "es",
            sim_fmt_time(r->cpu_s, a, sizeof a));
    if (r->checked)
        fprintf(f, "  check: %s (%lld conditions)\n", r->status == TC_SIM_OK ? "ok" : r->msg,
                (long long)r->check_items);
    fprintf(f, "\n");
}

/* ---- side by side ---------------------------------------------------------------- */

enum { ROW_USED, ROW_MIN, ROW_MAX, ROW_TOTAL };

static void cell_tier(const tc_sim_result *r, int t, int what, char *buf, size_t len)
{
    const tc_sim_tier *ts = &r->tier[t];
    switch (what) {
    case ROW_USED: snprintf(buf, len, "%lld", (long long)ts->used); break;
    case ROW_MIN: sim_fmt_bytes(ts->min, buf, len); break;
    case ROW_MAX: sim_fmt_bytes(ts->max, buf, len); break;
    default: sim_fmt_bytes(ts->total, buf, len); break;
    }
}

enum { G_STEPS, G_MSGS, G_NETMSGS, G_BYTES, G_INTRA, G_RED, G_TLOAD, G_TSTEPS, G_WALL, G_N };
static const char *const g_label[G_N] = { "steps", "messages", "messages between nodes", "bytes sent",
                                           "bytes inside nodes", "busiest rank reduces",
                                           "time, total-load", "time, step-by-step", "simulated in (CPU)" };

static void cell_general(const tc_sim_result *r, int what, char *buf, size_t len)
{
    switch (what) {
    case G_STEPS: snprintf(buf, len, "%d", r->rounds); break;
    case G_MSGS: snprintf(buf, len, "%lld", (long long)r->messages); break;
    case G_NETMSGS: snprintf(buf, len, "%lld", (long long)r->net_messages); break;
    case G_BYTES: sim_fmt_bytes(r->bytes, buf, len); break;
    case G_INTRA: sim_fmt_bytes(r->intra_bytes, buf, len); break;
    case G_RED: sim_fmt_bytes(r->reduced_max, buf, len); break;
    case G_TLOAD: sim_fmt_time(r->t_load, buf, len); break;
    case G_TSTEPS: sim_fmt_time(r->t_steps, buf, len); break;
    default: sim_fmt_time(r->cpu_s, buf, len); break;
    }
}

static int col_width(const sim_run *run, int i)
{
    int w = (int)strlen(run->algs[i]->name);
    return (w < 11 ? 11 : w) + 2;
}

static int has_numbers(const tc_sim_result *r)
{
    return r->status == TC_SIM_OK;
}

/* One row: label, then a cell per algorithm (tier >= 0: tier row). */
static void compare_row(FILE *f, const sim_run *run, const char *label, int tier, int what, int first_row)
{
    char cell[32];
    fprintf(f, "%-28s", label);
    for (int i = 0; i < run->nalg; i++) {
        const tc_sim_result *r = &run->res[i];
        if (!has_numbers(r)) snprintf(cell, sizeof cell, "%s", first_row ? (r->status == TC_SIM_DECLINED ?
                                      "declined" : "error") : "-");
        else if (tier >= 0) cell_tier(r, tier, what, cell, sizeof cell);
        else cell_general(r, what, cell, sizeof cell);
        fprintf(f, "%*s", col_width(run, i), cell);
    }
    fprintf(f, "\n");
}

void report_compare(FILE *f, const sim_run *run)
{
    static const char *const what[] = { "links used", "min traffic", "max traffic", "total traffic" };
    char label[48];
    fprintf(f, "%-28s", "");
    for (int i = 0; i < run->nalg; i++) fprintf(f, "%*s", col_width(run, i), run->algs[i]->name);
    fprintf(f, "\n");
    int first = 1;
    for (int t = 0; t < run->net->ntiers; t++)
        for (int w = 0; w < 4; w++) {
            snprintf(label, sizeof label, "%s %s (of %d)", run->net->tier[t].name, what[w], run->net->tier[t].count);
            if (w) snprintf(label, sizeof label, "%s %s", run->net->tier[t].name, what[w]);
            compare_row(f, run, label, t, w, first);
            first = 0;
        }
    for (int g = 0; g < G_N; g++) compare_row(f, run, g_label[g], -1, g, 0);
    for (int i = 0; i < run->nalg; i++) {
        const tc_sim_result *r = &run->res[i];
        if (r->status != TC_SIM_OK) fprintf(f, "%s: %s\n", run->algs[i]->name, r->msg);
        else if (r->checked) fprintf(f, "%s: check ok (%lld conditions)\n", run->algs[i]->name,
                                     (long long)r->check_items);
    }
    fprintf(f, "\n");
}

void report_steps(FILE *f, const sim_run *run, int i)
{
    const tc_sim_result *r = &run->res[i];
    char a[24], b[24], c[24];
    if (r->status != TC_SIM_OK || !r->steps) return;
    fprintf(f, "%s, step by step:\n%8s %12s %11s", run->algs[i]->name, "step", "messages", "bytes");
    for (int t = 0; t < run->net->ntiers; t++) fprintf(f, " %7s max", run->net->tier[t].name);
    fprintf(f, " %11s %10s\n", "reduced", "time");
    for (int s = 0; s < r->nsteps; s++) {
        const tc_sim_step *st = &r->steps[s];
        fprintf(f, "%8d %12lld %11s", s, (long long)st->messages, sim_fmt_bytes(st->bytes, a, sizeof a));
        for (int t = 0; t < run->net->ntiers; t++) fprintf(f, " %11s", sim_fmt_bytes(st->max[t], b, sizeof b));
        fprintf(f, " %11s %10s\n", sim_fmt_bytes(st->reduced, c, sizeof c), sim_fmt_time(st->t, a, sizeof a));
    }
    fprintf(f, "\n");
}
