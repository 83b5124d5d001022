/* Parameters and instance names shared by the two-tier families (see
 * twotier_family.h). */
#include "algo/twotier_family.h"

#include <stdio.h>

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
