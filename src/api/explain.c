/* TOPOCOLL_EXPLAIN output (see explain.h). */
#include "api/explain.h"

#include <stdio.h>
#include <string.h>

#include "core/config.h"
#include "topocoll.h"

static char last[64];
static char warned[16][64];
static int nwarned;

const char *topocoll_last_algorithm(void)
{
    return last;
}

void tc_explain(const tc_ctx *x, const char *coll, int64_t bytes, const char *algo, const char *why)
{
    snprintf(last, sizeof last, "%s", algo);
    int level = tc_config_get()->explain;
    if (level == 0 || (level == 1 && x->rank != 0)) return;
    fprintf(stderr, "topocoll explain: %s np=%d nodes=%d bytes=%lld rank=%d -> %s (%s)\n", coll,
            x->size, x->topo->nnodes, (long long)bytes, x->rank, algo, why);
}

void tc_warn_once(const tc_ctx *x, const char *algo, const char *reason)
{
    for (int i = 0; i < nwarned; i++)
        if (strcmp(warned[i], algo) == 0) return;
    if (nwarned < 16) snprintf(warned[nwarned++], sizeof warned[0], "%s", algo);
    if (x->rank == 0)
        fprintf(stderr, "topocoll: forced algorithm '%s' declines these arguments (%s); "
                        "selecting another (TOPOCOLL_EXPLAIN=1 shows which)\n", algo, reason);
}
