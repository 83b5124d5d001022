/* Parameters and instance names shared by the two-tier families (see
 * twotier_family.h). */
#include "algo/twotier_family.h"
#include "algo/cost_walk.h"

#include <stdio.h>
#include <string.h>

static const char *const units_values[] = { "ranks", "sockets", NULL };
static const char *const chunked_values[] = { "no", "yes", NULL };
static const char *const landing_values[] = { "no", "yes", NULL };

const tc_param_def tt_units_params[1] = { { "units", units_values, 0 } };
const tc_param_def tt_bcast_params[2] = { { "units", units_values, 0 }, { "chunked", chunked_values, 0 } };
const tc_param_def tt_reduce_params[2] = { { "units", units_values, 0 }, { "landing", landing_values, 0 } };
const int tt_reduce_order[2] = { TT_P_LANDING, TT_P_UNITS };

void tt_family_describe(const tc_family *f, const int *v, tc_instance_text *out)
{
    int sockets = v[TT_P_UNITS];
    snprintf(out->alias, sizeof out->alias, "twotier%s", sockets ? "_sockets" : "");
    snprintf(out->desc, sizeof out->desc, "%s, units = %s of a node", f->summary,
             sockets ? "sockets" : "ranks");
}

void tt_reduce_describe(const int *v, tc_instance_text *out, const char *owner, const char *landing,
                        const char *landing_source)
{
    int sockets = v[TT_P_UNITS], land = v[TT_P_LANDING];
    snprintf(out->alias, sizeof out->alias, "twotier%s%s", land ? "_landing" : "", sockets ? "_sockets" : "");
    snprintf(out->desc, sizeof out->desc, "%s, units = %s of a node", land ? landing : owner,
             sockets ? "sockets" : "ranks");
    if (land) out->source = landing_source;
}

/* ---- cost (see twotier_family.h) ---- */

int tt_cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)a;
    if (t->nnodes < 2 || t->size < 2) return -1;   /* one supernode: none of the paper's network */
    int mm = tc_cw_max_ppn(t), sockets = tc_cw_sockets_per_node(t), l1 = tc_cw_intra_level(t);
    int sock = !strcmp(tc_cw_param(al, "units"), "sockets");
    int landing = !strcmp(tc_cw_param(al, "landing"), "yes"), chunked = !strcmp(tc_cw_param(al, "chunked"), "yes");
    int ui = sock ? (sockets < mm ? sockets : mm) : mm;
    if (sock) l1 = TC_LVL_NODE;
    if (ui < 2) l1 = TC_LVL_SOCKET;
    double u = ui, g = t->nnodes, k1 = (mm + ui - 1) / ui - 1, big = (double)t->size * n;
    double hop1 = u - 1, hop2 = (double)((t->nnodes - 2) / ui + 1);
    /* hops: L1 messages (u - 1 per hop) and L2 messages; loads per link */
    double h1 = 2, h2 = 1, load1 = 0, load2 = 0, unit_msgs = k1, unit_bytes = k1 * n, red = 0;
    switch (al->coll) {
    case TOPOCOLL_ALLGATHER:
        load1 = big / u + big / (g * u);
        load2 = big / g;
        unit_msgs = 2 * k1;
        unit_bytes = k1 * (n + big);
        c->total[TC_LVL_NET] = (g - 1) * big;
        break;
    case TOPOCOLL_SCATTER:
    case TOPOCOLL_GATHER:
        load1 = big / u;
        load2 = big / g;
        c->total[TC_LVL_NET] = big * (g - 1) / g;
        break;
    case TOPOCOLL_BCAST:
        if (chunked) {
            h1 = 3;
            h2 = 2;
            load1 = 3 * n / u;
            load2 = n / u;
            c->bytes[TC_LVL_NET] += n;   /* out of the root's node */
        } else {
            load1 = 2 * n;
            load2 = n;
        }
        c->total[TC_LVL_NET] = (g - 1) * n;
        break;
    case TOPOCOLL_REDUCE:
        h1 = landing ? 3 : 2;
        h2 = 2;
        load1 = landing ? 2 * n / u + 2 * n / (g * u) : n / u;
        load2 = 2 * n / g;
        red = 2 * n;
        unit_bytes = k1 * n;
        c->reduced += k1 * n;
        c->total[TC_LVL_NET] = (g - 1) * n;
        break;
    case TOPOCOLL_REDUCE_SCATTER_BLOCK:
        h1 = landing ? 3 : 2;
        load1 = big / u + big / (g * u);
        load2 = big / g;
        red = 2 * big;
        unit_msgs = 2 * k1;
        unit_bytes = k1 * (big + n);
        c->reduced += k1 * big;
        c->total[TC_LVL_NET] = (g - 1) * big;
        break;
    default: return -1;
    }
    c->msgs[l1] += h1 * hop1;
    c->bytes[l1] += load1 * (u - 1);
    c->msgs[TC_LVL_NET] += h2 * hop2;
    c->bytes[TC_LVL_NET] += load2 * (g - 1);
    c->msgs[TC_LVL_SOCKET] += unit_msgs;
    c->bytes[TC_LVL_SOCKET] += unit_bytes;
    c->reduced += red;
    if (al->coll == TOPOCOLL_ALLGATHER || al->coll == TOPOCOLL_REDUCE_SCATTER_BLOCK) {
        c->total[l1] += load1 * u * (u - 1) * g;   /* every L1 link of every node */
        c->total[TC_LVL_SOCKET] += unit_bytes * u * g;
    } else {   /* every rank but its node's entry point gets (or gives) its n inside the node */
        for (int i = 0; i < t->nnodes; i++) c->total[l1] += (t->node_start[i + 1] - t->node_start[i] - 1) * n;
    }
    c->total_approx = 1;
    return 0;
}
