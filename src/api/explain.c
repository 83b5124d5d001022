/* TOPOCOLL_EXPLAIN output (see explain.h). */
#include "api/explain.h"

#include <stdio.h>
#include <string.h>

#include "core/config.h"
#include "api/error.h"
#include "select/select.h"
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

int tc_choose(const tc_ctx *x, const tc_args *a, int64_t bytes, MPI_Comm comm, const tc_algo **out)
{
    const char *coll = tc_coll_name(a->coll);
    const char *forced = tc_config_get()->force[a->coll];
    char why[512] = "";
    const tc_algo *al = NULL;
    if (forced) {
        al = tc_catalog_find(a->coll, forced);
        if (!al) {
            char env[64];
            int n = snprintf(env, sizeof env, "TOPOCOLL_");
            for (const char *c = coll; *c && n < (int)sizeof env - 1; c++)
                env[n++] = (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
            env[n] = '\0';
            return tc_raise(comm, MPI_ERR_ARG, "%s=%s: no such %s algorithm", env, forced, coll);
        }
        const char *reason = "";
        if (tc_algo_accepts(al, a, x->topo, &reason)) {
            snprintf(why, sizeof why, "forced by the environment");
        } else {
            tc_warn_once(x, forced, reason);
            char rest[400];
            al = tc_select(a, x->topo, bytes, rest, sizeof rest);
            snprintf(why, sizeof why, "forced %s declined (%s); %s", forced, reason, rest);
        }
    } else {
        /* the reasons are text for TOPOCOLL_EXPLAIN only: not built per call otherwise */
        int level = tc_config_get()->explain;
        int shown = level == 2 || (level == 1 && x->rank == 0);
        al = tc_select(a, x->topo, bytes, shown ? why : NULL, sizeof why);
    }
    tc_explain(x, coll, bytes, al->name, why);
    *out = al;
    return MPI_SUCCESS;
}
