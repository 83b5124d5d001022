/* TOPOCOLL_EXPLAIN output and the call's choice (see explain.h). */
#include "api/explain.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "coll/desc.h"
#include "core/config.h"
#include "api/call.h"
#include "api/error.h"
#include "api/shm_calibrate.h"
#include "select/select.h"
#include "select/selector.h"
#include "topocoll.h"

/* The algorithm of this thread's last call: a catalog name (static storage),
 * so recording it is one store, not a string copy. */
static TC_THREAD_LOCAL const char *last_algo;

const char *topocoll_last_algorithm(void)
{
    return last_algo ? last_algo : "";
}

void tc_record_algorithm(const char *algo)
{
    last_algo = algo;
}

void tc_explain(const tc_ctx *x, const char *coll, int64_t bytes, const char *algo, const char *why)
{
    last_algo = algo;
    int level = tc_config_get()->explain;
    if (level == 0 || tc_nb_trial || (level == 1 && x->rank != 0)) return;   /* (a race's trials: quiet) */
    fprintf(stderr, "topocoll explain: %s np=%d nodes=%d bytes=%lld rank=%d -> %s (%s)\n", coll,
            x->size, x->topo->nnodes, (long long)bytes, x->rank, algo, why);
}

void tc_explain_native(const char *coll, int size, int rank, int64_t bytes, const char *why)
{
    last_algo = "native";
    int level = tc_config_get()->explain;
    if (level == 0 || tc_nb_trial || (level == 1 && rank != 0)) return;
    fprintf(stderr, "topocoll explain: %s np=%d bytes=%lld rank=%d -> native (%s)\n", coll, size,
            (long long)bytes, rank, why);
}

/* Forced algorithms that declined and were reported: one line per
 * collective and process (the forced name is fixed per configuration),
 * printed by a process that is rank 0 of the call's communicator. */
static atomic_uint warned_colls;

int tc_forced_declined(const tc_ctx *x, MPI_Comm comm, topocoll_coll coll, const char *algo, const char *reason)
{
    const tc_coll_desc *d = tc_coll_desc_of(coll);
    int mode = tc_config_get()->fallback;
    if (mode == TC_FALLBACK_ERROR)
        return tc_raise(comm, MPI_ERR_ARG, "%s: %s=%s declines these arguments (%s); TOPOCOLL_FALLBACK=error",
                        d->name, d->env, algo, reason);
    if (mode == TC_FALLBACK_SILENT || x->rank != 0) return MPI_SUCCESS;
    unsigned bit = 1u << coll;
    if (atomic_fetch_or(&warned_colls, bit) & bit) return MPI_SUCCESS;
    fprintf(stderr, "topocoll: %s: %s=%s declines these arguments (%s); another algorithm serves them "
                    "(TOPOCOLL_EXPLAIN=1 shows which; TOPOCOLL_FALLBACK=silent or error instead of this line)\n",
            d->name, d->env, algo, reason);
    return MPI_SUCCESS;
}

int tc_choose(tc_ctx *x, const tc_args *a, int64_t bytes, MPI_Comm comm, const tc_algo **out)
{
    return tc_choose_learned(x, a, bytes, comm, NULL, NULL, out);
}

/* The memory model on the selector's demand (collective when it calibrates:
 * every rank's walk reaches the model's source at the same call), after
 * its patience (shm_calibrate.h). */
typedef struct lazy_model {
    tc_ctx *x;
    const tc_args *a;
    int rc;
} lazy_model;

static const struct tc_shm_model *lazy_model_get(void *arg)
{
    lazy_model *lm = arg;
    return lm->rc == MPI_SUCCESS ? tc_shm_model_patient(lm->x, lm->a, &lm->rc) : NULL;
}

/* The MPI part of a decision: the memory model (calibrated on first need),
 * one agreed size where it differs between ranks, the selector
 * (src/select/selector.h), the errors it reports and the explain line. */
int tc_choose_learned(tc_ctx *x, const tc_args *a, int64_t bytes, MPI_Comm comm, const tc_algo *learned,
                      const char *learned_note, const tc_algo **out)
{
    const char *coll = tc_coll_name(a->coll);
    /* the reasons are text for TOPOCOLL_EXPLAIN only: not built per call otherwise */
    int level = tc_config_get()->explain;
    int shown = level == 2 || (level == 1 && x->rank == 0);
    char text[512];
    text[0] = '\0';
    int mrc = MPI_SUCCESS;
    /* a size that differs between ranks (alltoallv), where a rule reads it:
     * the largest (not where the learned choice decides: no rule is read) */
    if (!learned && tc_select_size_per_rank(a->coll) && tc_select_reads_size(a->coll) &&
        (mrc = PMPI_Allreduce(MPI_IN_PLACE, &bytes, 1, MPI_INT64_T, MPI_MAX, x->comm)) != MPI_SUCCESS)
        return tc_raise_mpi(comm, mrc, coll);
    tc_select_in in = tc_select_in_make(a, x->topo, bytes);
    lazy_model lm = { x, a, MPI_SUCCESS };
    in.shm_get = lazy_model_get;   /* calibrated only where the walk reaches the model */
    in.shm_arg = &lm;
    in.learned = learned;
    in.learned_note = learned ? learned_note : NULL;
    tc_why why = { shown ? text : NULL, sizeof text };
    tc_decision d = tc_selector_decide(&in, &why);
    if (lm.rc != MPI_SUCCESS) return tc_raise(comm, lm.rc, "%s: calibrating the memory model failed", coll);
    if (d.forced_how == TC_FORCED_UNKNOWN)
        return tc_raise(comm, MPI_ERR_ARG, "%s=%s: no such %s algorithm", tc_coll_desc_of(a->coll)->env, d.forced,
                        coll);
    if (d.forced_how == TC_FORCED_DECLINED &&
        (mrc = tc_forced_declined(x, comm, a->coll, d.forced, d.forced_reason)) != MPI_SUCCESS)
        return mrc;
    if (shown && !learned && learned_note && learned_note[0]) {
        size_t used = strlen(text);
        if (used + 3 < sizeof text) snprintf(text + used, sizeof text - used, "; %s", learned_note);
    }
    tc_explain(x, coll, bytes, d.algo->name, text);
    *out = d.algo;
    return MPI_SUCCESS;
}
