/*
 * Statistics and the bandwidth model (Jain, Lau, Kale, "Collectives on
 * Two-tier Direct Networks", 2012, section 3): per-tier link statistics from
 * the load array, per-step maxima from the per-step rows,
 * and the two time estimates:
 *   total-load   = max_tier(max load x beta_tier) + gamma x busiest rank's
 *                  reduced bytes;
 *   step-by-step = sum over steps of [max_tier(step max load x beta_tier)
 *                  + gamma x busiest rank's reduced bytes in the step].
 * beta_tier = 1 / bandwidth_tier (seconds per byte).
 * Cost: O(links) + O(steps x links used).
 */
#include "sim/engine_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *tc_sim_u128_str(tc_u128 v, char *buf, size_t len)
{
    char tmp[48];
    int i = (int)sizeof tmp - 1;
    tmp[i] = 0;
    do {
        tmp[--i] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v);
    snprintf(buf, len, "%s", tmp + i);
    return buf;
}

void model_tiers(sim_eng *e)
{
    const tc_net *n = e->net;
    tc_sim_result *res = e->res;
    res->routed = 0;
    for (int t = 0; t < n->ntiers; t++) {
        tc_sim_tier *ts = &res->tier[t];
        const uint64_t *l = e->load + n->tier[t].first;
        memset(ts, 0, sizeof *ts);
        ts->links = n->tier[t].count;
        uint64_t mn = UINT64_MAX;
        for (int i = 0; i < n->tier[t].count; i++) {
            uint64_t v = l[i];
            if (!v) continue;
            ts->used++;
            ts->total += v;
            if (v > ts->max) ts->max = v;
            if (v < mn) mn = v;
        }
        ts->min = ts->used ? mn : 0;
        res->routed += ts->total;
    }
}

/* Maxima of steps lo .. hi-1 from the columns; colsum (may be NULL)
 * gathers every compact link's per-step loads for the check. */
void model_step_max(sim_eng *e, int lo, int hi, uint64_t *colsum)
{
    const sim_steps *st = &e->sl;
    if (!e->st_max) {
        e->st_max = calloc((size_t)(e->st_cap ? e->st_cap : 1) * TC_NET_MAX_TIERS, sizeof *e->st_max);
        if (!e->st_max) {
            eng_fail(e, "out of memory (per-step maxima)");
            return;
        }
    }
    for (int c = 0; c < st->ncid; c++) {
        const int have = st->col[c] != NULL;
        int t = tc_net_link_tier(e->net, st->cid_link[c]), first = lo + st->base[c];
        int n = st->cap[c] < hi - first ? st->cap[c] : hi - first;
        uint64_t *mx = e->st_max + (size_t)first * TC_NET_MAX_TIERS + t;
        for (int i = 0; have && i < n; i++) {
            uint64_t x = steps_get(st, c, i);
            if (x > mx[(size_t)i * TC_NET_MAX_TIERS]) mx[(size_t)i * TC_NET_MAX_TIERS] = x;
            if (colsum) colsum[c] += x;
        }
    }
}

static double beta(const sim_eng *e, int t)
{
    return 1.0 / e->prm->bw[t];
}

/* Time of step s: the slowest tier's busiest link, plus the reduction. */
static double step_time(const sim_eng *e, int s)
{
    double worst = 0;
    const uint64_t *mx = e->st_max + (size_t)s * TC_NET_MAX_TIERS;
    for (int t = 0; t < e->net->ntiers; t++) {
        double x = (double)mx[t] * beta(e, t);
        if (x > worst) worst = x;
    }
    return worst + e->prm->gamma * (double)e->st_red[s];
}

void model_estimates(sim_eng *e)
{
    tc_sim_result *res = e->res;
    double worst = 0;
    res->t_load_tier = 0;
    for (int t = 0; t < e->net->ntiers; t++) {
        res->tier[t].t_load = (double)res->tier[t].max * beta(e, t);
        if (res->tier[t].t_load > worst) {
            worst = res->tier[t].t_load;
            res->t_load_tier = t;
        }
    }
    res->t_load = worst + e->prm->gamma * (double)res->reduced_max;
    if (!e->prm->steps || !e->st_max) return;
    res->t_steps = 0;
    for (int s = 0; s < res->rounds; s++) {
        res->t_steps += step_time(e, s);
        for (int t = 0; t < e->net->ntiers; t++)
            res->tier[t].t_steps += (double)e->st_max[(size_t)s * TC_NET_MAX_TIERS + t] * beta(e, t);
    }
}

void model_fill_steps(sim_eng *e)
{
    tc_sim_result *res = e->res;
    for (int s = 0; s < res->nsteps; s++) {
        tc_sim_step *st = &res->steps[s];
        st->messages = e->st_msgs[s];
        st->bytes = e->st_bytes[s];
        st->reduced = e->st_red[s];
        if (e->st_max)
            memcpy(st->max, e->st_max + (size_t)s * TC_NET_MAX_TIERS, sizeof st->max);
        st->t = e->st_max ? step_time(e, s) : 0;
    }
}
