/*
 * Which catalog entry serves a call (see call.h): the entry named (the
 * *_algorithm functions, topocoll_run), else TOPOCOLL_<COLL> or the
 * selection (src/select/, through tc_choose); the MPI library's own where a
 * datatype's size is beyond what a schedule describes; then the
 * node-shared budget's plan (src/api/shm_budget.h): the entry whole, in
 * pieces, or another entry without node-shared memory.
 */
#include "api/call.h"
#include "api/error.h"
#include "api/explain.h"
#include "api/shm_budget.h"

/* The choice *al cannot serve the call: native instead, a forced algorithm
 * reported as for any other decline (TOPOCOLL_FALLBACK=error: the error).
 * The explain line's bytes are the true size (MPI_Type_size_x): the
 * record's cannot hold it. */
static int native_instead(const tc_ctx *x, const tc_call *c, const tc_algo **al)
{
    int rc;
    const tc_algo *native = tc_catalog_find(c->d->coll, "native");
    int b = c->use[TC_BUF_SEND] ? TC_BUF_SEND : TC_BUF_RECV;
    MPI_Count size = -1;   /* for the explain line only */
    if (PMPI_Type_size_x(tc_call_type(c, b), &size) != MPI_SUCCESS) size = -1;
    int64_t bytes = tc_call_count(c, b) * (int64_t)size;
    if (tc_config_get()->force[c->d->coll] &&
        (rc = tc_forced_declined(x, c->comm, c->d->coll, (*al)->name, tc_call_size_unknown)) != MPI_SUCCESS)
        return rc;
    tc_explain(x, c->d->name, bytes, native->name, tc_call_size_unknown);
    *al = native;
    return MPI_SUCCESS;
}

int tc_bind_named(const tc_ctx *x, const tc_call *c, const tc_args *a, const char *algorithm,
                  const tc_algo **al)
{
    const char *why = "", *name = c->d->name;
    *al = tc_catalog_find(c->d->coll, algorithm);
    if (!*al)
        return tc_raise(c->comm, MPI_ERR_ARG, "no %s algorithm named '%s'", name, algorithm ? algorithm : "(null)");
    if (!tc_algo_accepts(*al, a, x->topo, &why))
        return tc_raise(c->comm, MPI_ERR_ARG, "%s algorithm '%s' declines: %s", name, (*al)->name, why);
    if ((*al)->generate && !tc_call_sizes_fit(c))
        return tc_raise(c->comm, MPI_ERR_ARG, "%s algorithm '%s' declines: %s", name, (*al)->name,
                        tc_call_size_unknown);
    tc_explain(x, name, c->bytes, (*al)->name, "requested by name");
    return MPI_SUCCESS;
}

int tc_bind_selected(tc_ctx *x, const tc_call *c, const tc_args *a, const tc_algo **al)
{
    return tc_bind_selected_noted(x, c, a, NULL, al);
}

int tc_bind_selected_noted(tc_ctx *x, const tc_call *c, const tc_args *a, const char *note, const tc_algo **al)
{
    int rc = tc_choose_learned(x, a, c->bytes, c->comm, NULL, note, al);
    if (rc == MPI_SUCCESS && (*al)->generate && !tc_call_sizes_fit(c)) rc = native_instead(x, c, al);
    return rc;
}

int tc_bind_without_shm(tc_ctx *x, const tc_call *c, tc_args *a, const tc_algo **al, const char *why)
{
    const char *forced = tc_config_get()->force[c->d->coll];
    a->node_shm = 0;
    int rc;
    if (forced && (rc = tc_forced_declined(x, c->comm, c->d->coll, forced, why)) != MPI_SUCCESS)
        return rc;   /* TOPOCOLL_FALLBACK=error (agreed: the budget's plan is) */
    return tc_bind_selected(x, c, a, al);
}

/* The element sizes of SEND and RECV as bound (an insignificant buffer
 * takes the other's type; byte schedules count bytes). */
void tc_call_bound_sizes(const tc_call *c, int64_t esz[2])
{
    for (int b = TC_BUF_SEND; b <= TC_BUF_RECV; b++)
        esz[b] = c->d->counts_bytes ? 1 : c->use[b] ? c->tsize[b] : c->tsize[1 - b];
}

/* Collectives whose data split into element ranges, each a call of its
 * own (tc_coll_elementwise), with buffers that can be offset (a NULL
 * buffer with absolute addresses in its type cannot). */
static int separable(const tc_call *c)
{
    if (!tc_coll_elementwise(c->d)) return 0;
    for (int b = TC_BUF_SEND; b <= TC_BUF_RECV; b++)
        if (c->use[b] && !tc_call_buf(c, b)) return 0;
    return 1;
}

/* Bytes per half of the data window that *al needs for the call. */
static int shm_need(tc_ctx *x, const tc_call *c, const tc_args *a, const tc_algo *al, const int64_t esz[2],
                    int64_t half, int64_t *need)
{
    int rc = MPI_SUCCESS;
    if (al->generate && !(al->req & TC_REQ_INLINE) && x->topo->nnodes == 1 && !c->d->vcounts &&
        c->bytes <= half) {
        /* one node, likely whole: the schedule the call runs (cached) has the need */
        tc_sched_key key = tc_run_key(al, c, a);
        const tc_sched *s = tc_ctx_schedule(x, &key, a, &rc);
        if (!s) return rc;
        *need = s->shm_count * esz[s->tmp_like == TC_BUF_RECV];
        return MPI_SUCCESS;
    }
    *need = tc_shm_need(al, a, x->topo, esz);
    return *need < 0 ? MPI_ERR_NO_MEM : MPI_SUCCESS;
}

/* A node-shared entry within the budget: the windows made before (every
 * rank of the communicator alike).  Neither whole nor in pieces it fits,
 * or the windows cannot be had: *al becomes an entry without node-shared
 * memory.  The inline entries (TC_REQ_INLINE) make their lines in the call. */
int tc_bind_shm_plan(tc_ctx *x, const tc_call *c, tc_args *a, const tc_algo **al, int64_t *piece)
{
    *piece = 0;
    if (!((*al)->req & TC_REQ_NODE_SHM) || !a->node_shm) return MPI_SUCCESS;
    int64_t esz[2], half = (int64_t)(tc_shm_budget() / 2), need;
    tc_call_bound_sizes(c, esz);
    int rc = shm_need(x, c, a, *al, esz, half, &need);
    if (rc != MPI_SUCCESS) return rc;
    if (need > half && (!separable(c) || (*piece = tc_pieces_size(x, *al, c, a, esz, half, &need)) == 0))
        return tc_bind_without_shm(x, c, a, al, "its node-shared window exceeds TOPOCOLL_SHM_BUDGET");
    if ((*al)->req & TC_REQ_INLINE) {   /* its lines: made and agreed on in the call (one node) */
        x->shm.failed_bytes = 0;
        return MPI_SUCCESS;
    }
    int ok;
    if ((rc = tc_shm_budget_prepare(x, need, c->d->coll, &ok)) != MPI_SUCCESS || ok) return rc;
    *piece = 0;
    return tc_bind_without_shm(x, c, a, al, "node-shared memory could not be had");
}

int tc_bind_applicable(tc_call *c, tc_ctx *x, const tc_algo *al, const char **why)
{
    if (tc_call_check(c) != MPI_SUCCESS || c->mismatch ||
        (c->d->vcounts && tc_call_make_vcounts(c) != MPI_SUCCESS)) {
        if (why) *why = "invalid arguments";
        return 0;
    }
    tc_args a;
    tc_call_make_ctx_args(c, x, &a);
    if (al->generate && !tc_call_sizes_fit(c)) {
        if (why) *why = tc_call_size_unknown;
        return 0;
    }
    return tc_algo_accepts(al, &a, x->topo, why);
}
