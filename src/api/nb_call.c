/*
 * One nonblocking or persistent collective call (see call.h): the record's
 * checks as for the blocking call, the entry chosen as for it (by name,
 * TOPOCOLL_<COLL>, the selection), then its schedule made for the call and
 * started on the context's nonblocking channel (nb_requests.h).
 *
 * What has no nonblocking form goes to the MPI library's own nonblocking
 * (or persistent) collective, with its reason in the explain line:
 *   - a communicator without a context yet (a nonblocking call never makes
 *     one: that is collective and would wait for the other ranks; a
 *     persistent init makes it, as a blocking call does);
 *   - a schedule that tc_sched_nonblocking_why refuses (node-shared memory,
 *     the inline lines, remote reads, member-set rounds): the selection is
 *     asked again among the entries without node-shared memory first;
 *   - entries with a protocol besides their schedule: the per-node counts'
 *     exchange (TC_REQ_NODE_COUNTS), gatherv and scatterv (the root's counts
 *     spread first, a staged vector buffer), alltoallw (its own path),
 *     allgatherv with displacements that are not the packed layout, bcast
 *     of a non-contiguous datatype (staged);
 *   - send and receive signatures that differ (the error is the MPI
 *     library's to report), and a program linked with libtopocoll alone
 *     (no interposer: MPI's wait calls would not advance the operation).
 * An entry named by the caller (topocoll_i<coll>_algorithm) that has no
 * nonblocking form is an error (MPI_ERR_ARG), as a declining entry is for
 * the blocking call.
 */
#include <stdlib.h>
#include <string.h>

#include "api/call.h"
#include "api/error.h"
#include "api/explain.h"
#include "api/learn_call.h"
#include "api/nb_areas.h"
#include "api/shm_budget.h"
#include "api/nb_race.h"
#include "api/nb_requests.h"
#include "core/config.h"
#include "select/cost_model.h"
#include "select/select.h"

/* Why the entry cannot serve the call nonblocking, before its schedule is
 * made (NULL: it may). */
static const char *entry_why(const tc_algo *al, const tc_call *c, int area)
{
    if (!al->generate || (al->req & TC_REQ_NATIVE)) return "the MPI library's own";
    if (al->req & TC_REQ_NODE_COUNTS) return "it exchanges the node's counts first (a blocking step)";
    if ((al->req & TC_REQ_INLINE) && !area) return "the inline lines: one call at a time per communicator";
    if (c->d->vroot) return "gatherv and scatterv spread the root's counts first (a blocking step)";
    if (c->staged) return "displacements that are not the packed layout are staged";
    if (c->d->counts_bytes) {
        tc_bind b;
        if (tc_bind_type(&b, NULL, c->rtype) != MPI_SUCCESS || !b.contiguous)
            return "a non-contiguous datatype is staged";
    }
    return NULL;
}

static const char *const no_memory = "its schedule could not be made (memory)";

/* The entry's schedule for the call into s (initialised by the caller, its
 * arrays reused): a copy of the context's cached one (per-peer collectives:
 * made for the call); NULL, or why it has no nonblocking form.  area: a
 * persistent request's, which may run on node-shared memory of its own
 * (nb_areas.h). */
static const char *make_schedule(const tc_algo *al, const tc_call *c, const tc_args *a, tc_ctx *x,
                                 tc_sched *s, const tc_sched **cached, int area)
{
    const char *why = entry_why(al, c, area);
    *cached = NULL;
    if (why) return why;
    if (!c->d->vcounts) {
        int rc = MPI_SUCCESS;
        tc_sched_key key = tc_run_key(al, c, a);
        const tc_sched *from = tc_ctx_schedule(x, &key, a, &rc);
        if (!from) return no_memory;
        if ((why = tc_nb_exec_why(from, area)) != NULL) return why;
        *cached = from;
        return tc_sched_duplicate(s, from) == 0 ? NULL : no_memory;
    }
    tc_sched_free(s);
    tc_sched_init(s);
    if (tc_algo_generate(al, s, a, x->topo) != 0 || tc_sched_finish(s) != 0) return no_memory;
    return tc_nb_exec_why(s, area);
}

/* SEND and RECV bound to the call's buffers as the blocking run binds them
 * (run.c). */
static int bind_user(const tc_call *c, const tc_args *a, tc_bind b[2])
{
    int rc;
    if (c->d->counts_bytes) {   /* contiguous here (entry_why) */
        if ((rc = tc_bind_type(&b[TC_BUF_RECV], c->rbuf, MPI_BYTE)) != MPI_SUCCESS) return rc;
        b[TC_BUF_SEND] = b[TC_BUF_RECV];
        b[TC_BUF_SEND].base = NULL;
        return MPI_SUCCESS;
    }
    if (c->d->vblock) {
        if ((rc = tc_bind_type(&b[TC_BUF_RECV], c->rbuf, c->rtype)) != MPI_SUCCESS) return rc;
        if (!c->in_place) return tc_bind_type(&b[TC_BUF_SEND], (void *)c->sbuf, c->stype);
        b[TC_BUF_SEND] = b[TC_BUF_RECV];
        b[TC_BUF_SEND].base += (MPI_Aint)c->v.rdispls[c->rank] * b[TC_BUF_RECV].extent;
        return MPI_SUCCESS;
    }
    return tc_run_bind_buffers(c, a, b);
}

/* A start of a persistent request the MPI library serves: its nonblocking
 * collective with the record kept at init (the user's buffers and vectors,
 * which MPI requires to stay valid while the request lives). */
static int native_start(tc_nb_op *op, MPI_Request *inner)
{
    return tc_run_native_nb(op->owned, 0, MPI_INFO_NULL, inner);
}

/* A persistent request of the MPI library's nonblocking collective, where
 * the library has no persistent one (MPI-3). */
static int native_persistent(tc_call *c, MPI_Request *req)
{
    tc_nb_op *op = tc_nb_op_new();
    tc_call *kept = op ? malloc(sizeof *kept) : NULL;
    if (!kept) {
        free(op);
        return MPI_ERR_NO_MEM;
    }
    *kept = *c;
    kept->v64 = NULL;   /* the caller frees the record's own copies */
    op->owned = kept;
    op->native_start = native_start;
    op->user_comm = c->comm;
    op->me = c->rank;
    int rc = tc_nb_persistent(op, req);
    if (rc != MPI_SUCCESS) tc_nb_op_free(op);
    return rc;
}

/* The MPI library's own nonblocking or persistent collective; where it has
 * no persistent one (MPI-3), a persistent request through the interposer is
 * topocoll's, starting the library's nonblocking collective each time (its
 * starts must then come in the order of the inits at every rank). */
static int native_quiet(tc_call *c, int persistent, MPI_Info info, MPI_Request *req)
{
    int rc = tc_run_native_nb(c, persistent, info, req);
    if (rc == MPI_ERR_UNSUPPORTED_OPERATION && persistent && tc_nb_interposed) rc = native_persistent(c, req);
    return rc == MPI_SUCCESS ? rc : tc_raise_mpi(c->comm, rc, c->fn);
}

/* The MPI library's own, with the reason in the explain line. */
static int native(tc_ctx *x, tc_call *c, int persistent, MPI_Info info, MPI_Request *req, const char *why)
{
    if (x) tc_explain(x, c->d->name, c->bytes, "native", why);
    else tc_explain_native(c->d->name, c->size, c->rank, c->bytes, why);
    return native_quiet(c, persistent, info, req);
}

/* The first of list[0..n) besides the MPI library's own that accepts the
 * call and has a nonblocking form (area: as in make_schedule; without one,
 * node-shared memory is left out), its schedule in s and its arguments in
 * *a; NULL where none does. */
static const tc_algo *first_nonblocking(const tc_algo *const *list, int n, tc_ctx *x, const tc_call *c,
                                        tc_args *a, tc_sched *s, const tc_sched **cached, int area)
{
    tc_args b = *a;
    if (!area) b.node_shm = 0;
    for (int i = 0; i < n; i++) {
        const char *why = NULL;
        if ((list[i]->req & TC_REQ_NATIVE) || !tc_algo_accepts(list[i], &b, x->topo, &why)) continue;
        if (make_schedule(list[i], c, &b, x, s, cached, area)) continue;
        *a = b;
        return list[i];
    }
    return NULL;
}

/* Where the selection's choice is the MPI library's own or has no
 * nonblocking form: the cost model's fastest entry that has one (node-shared
 * memory left out), since the MPI library's nonblocking collectives are not
 * its blocking ones (Open MPI's libnbc, MPICH's schedules: 1.4 to 2.8 times
 * topocoll's at np 2 in docs/performance.md) and the selection's native
 * stands for the blocking ones.  NULL where the model prices none. */
static const tc_algo *model_nonblocking(tc_ctx *x, const tc_call *c, tc_args *a, tc_sched *s,
                                        const tc_sched **cached)
{
    enum { MAX_RANKED = 24 };
    const tc_algo *ranked[MAX_RANKED];
    double pred[MAX_RANKED];
    tc_args b = *a;
    b.node_shm = 0;
    int n = tc_model_rank(tc_select_model(tc_select_table()), &b, x->topo, c->bytes, ranked, pred, MAX_RANKED);
    return first_nonblocking(ranked, n, x, c, a, s, cached, 0);
}

/* A nonblocking call (not persistent, no area) chose al: an entry on
 * node-shared memory asks for the ring (the next blocking call makes it). */
static void ask_ring_for(tc_ctx *x, const tc_algo *al)
{
    if ((al->req & TC_REQ_NODE_SHM) && !(al->req & TC_REQ_CMA)) tc_nb_ring_ask(x);
}

/* The fastest entry with a nonblocking form (area: as in make_schedule)
 * among those the key's settled learner timed for the blocking call (the
 * same schedules run either way; its times are agreed, so every rank takes
 * the same); NULL where it timed none or has not settled.  may_ask: without
 * an area, a fastest entry on node-shared memory asks for the ring. */
static const tc_algo *learned_nonblocking(tc_ctx *x, const tc_call *c, tc_args *a, int area, int may_ask,
                                          tc_sched *s, const tc_sched **cached)
{
    const tc_algo *ranked[TC_LEARN_MAX_CAND];
    int n = tc_learn_ranked(x, c, a, ranked, TC_LEARN_MAX_CAND);
    if (n > 0 && !area && may_ask) ask_ring_for(x, ranked[0]);
    return first_nonblocking(ranked, n, x, c, a, s, cached, area);
}

/* Where the entry chosen (selected) has no nonblocking form (*why): the
 * fastest the learner timed that has one, else the selection again
 * without node-shared memory, else the model's fastest; *al NULL: the MPI
 * library's own (forced, or none priced). */
static int choose_instead(tc_ctx *x, tc_call *c, tc_args *a, int by_name, const tc_algo *selected,
                          const tc_algo **al, tc_sched *s, const tc_sched **cached, const char **why)
{
    int rc;
    if (by_name)
        return tc_raise(c->comm, MPI_ERR_ARG, "%s algorithm '%s' has no nonblocking form: %s", c->d->name,
                        selected->name, *why);
    int forced = tc_config_get()->force[c->d->coll] != NULL;
    if (!forced && (*al = learned_nonblocking(x, c, a, 0, 0, s, cached)) != NULL) {
        tc_explain(x, c->d->name, c->bytes, (*al)->name,
                   "nonblocking: the fastest with a nonblocking form that the learner timed");
        *why = NULL;
        return MPI_SUCCESS;
    }
    if (selected->generate && !(selected->req & TC_REQ_NATIVE)) {
        if ((rc = tc_bind_without_shm(x, c, a, al, *why)) != MPI_SUCCESS) return rc;
        if (!(*why = make_schedule(*al, c, a, x, s, cached, 0))) return MPI_SUCCESS;
    }
    *al = forced ? NULL : model_nonblocking(x, c, a, s, cached);
    if (*al) tc_explain(x, c->d->name, c->bytes, (*al)->name, "nonblocking: the model's fastest with a nonblocking form");
    return MPI_SUCCESS;
}

/* The entry chosen (by name or selection) with its schedule in s (the
 * operation's); *why: why native serves instead (al NULL).  area: the
 * schedule may use node-shared memory (a persistent request's own, or the
 * nonblocking calls' ring, nb_areas.h); where it may not, a choice on
 * node-shared memory asks for the ring (persistent 0).  raced: a persistent
 * init's fastest timed entry (learn_at_init.c), first where it serves. */
static int choose(tc_ctx *x, tc_call *c, tc_args *a, int by_name, const char *algorithm, int area,
                  int persistent, const tc_algo *raced, const tc_algo **al, tc_sched *s, const tc_sched **cached,
                  const char **why)
{
    /* a persistent init that timed its candidates' persistent forms */
    if (raced && (*al = first_nonblocking(&raced, 1, x, c, a, s, cached, area)) != NULL) {
        tc_explain(x, c->d->name, c->bytes, (*al)->name,
                   "persistent: the fastest of the persistent forms its init timed");
        *why = NULL;
        return MPI_SUCCESS;
    }
    int selected = !by_name && !persistent && !tc_config_get()->force[c->d->coll];
    if (selected && !x->synced) {   /* MPI_COMM_WORLD's context made in MPI_Init */
        *al = NULL;
        *why = "nonblocking: nothing timed on this communicator yet (no blocking collective): the MPI library's own";
        return MPI_SUCCESS;
    }
    /* the key's nonblocking forms timed by its race (nb_race.c) */
    const tc_algo *won = selected ? tc_nb_race_winner(x, c, a) : NULL;
    if (won && (won->req & TC_REQ_NATIVE)) {   /* the MPI library's own nonblocking collective */
        *al = NULL;
        *why = "nonblocking: the MPI library's own was the fastest in its race";
        return MPI_SUCCESS;
    }
    if (won && (*al = first_nonblocking(&won, 1, x, c, a, s, cached, area)) != NULL) {
        tc_explain(x, c->d->name, c->bytes, (*al)->name, "nonblocking: the fastest nonblocking form its race timed");
        *why = NULL;
        return MPI_SUCCESS;
    }
    /* where the blocking call's learner has settled the key, what it timed
     * fastest on this machine serves, rather than the table's prediction */
    if (!by_name && !tc_config_get()->force[c->d->coll] &&
        (*al = learned_nonblocking(x, c, a, area, !persistent, s, cached)) != NULL) {
        tc_explain(x, c->d->name, c->bytes, (*al)->name,
                   "nonblocking: the fastest with a nonblocking form that the learner timed");
        *why = NULL;
        return MPI_SUCCESS;
    }
    int rc = by_name ? tc_bind_named(x, c, a, algorithm, al) : tc_bind_selected(x, c, a, al);
    if (rc != MPI_SUCCESS) return rc;
    if (!area && !persistent) ask_ring_for(x, *al);
    if (!(*why = make_schedule(*al, c, a, x, s, cached, area))) return MPI_SUCCESS;
    return choose_instead(x, c, a, by_name, *al, al, s, cached, why);
}

/* Does the operation's schedule need node-shared memory?  Its bytes per
 * data half and lines per slot (the user's buffers bound: op->user). */
static int area_need(const tc_nb_op *op, size_t *bytes, size_t *lines)
{
    const tc_sched *s = &op->sched;
    int64_t elem = op->user[s->tmp_like].size;
    *bytes = (size_t)(s->shm_count * elem);
    *lines = s->uses_inline ? tc_inline_lines(s->inline_count * elem) : 0;
    return s->uses_shm || s->uses_inline;
}

/* The ring's next area for op (held), where this rank's need fits it; 0:
 * none (no ring, or larger: the executor starts nothing larger than the
 * areas).  op->user bound. */
static int take_ring_area(tc_ctx *x, tc_nb_op *op)
{
    size_t bytes, lines;
    (void)area_need(op, &bytes, &lines);
    if (bytes > x->ring_half || lines > TC_NB_RING_LINES) return 0;
    return (op->area = tc_nb_ring_take(x, &op->gate, &op->home)) != NULL;
}

/* Does the entry's node-shared memory fit the ring's areas on every node?
 * (Decided from what every rank computes alike: the largest need over the
 * nodes, tc_shm_need, so that every rank takes the ring or none.) */
static int fits_ring(const tc_algo *al, const tc_call *c, const tc_args *a, const tc_ctx *x)
{
    int64_t esz[2];
    tc_call_bound_sizes(c, esz);
    int64_t need = tc_shm_need(al, a, x->topo, esz);
    if (need < 0) return 0;
    if (al->req & TC_REQ_INLINE)   /* one parity's slots of every rank */
        return (uint64_t)need <= (uint64_t)a->size * TC_NB_RING_LINES * TC_SHM_LINE;
    return (uint64_t)need <= (uint64_t)x->ring_half;
}

/* A nonblocking call whose schedule runs on node-shared memory takes the
 * ring's next area.  Where the entry's node-shared memory does not fit
 * (decided alike at every rank, whether or not its own schedule has any),
 * it chooses again as for a schedule without a nonblocking form. */
static int ring_area(tc_ctx *x, tc_call *c, tc_args *a, int by_name, const tc_algo **al, tc_nb_op *op,
                     const tc_sched **cached, const char **why)
{
    if (!*al || x->ring_made != 1) return MPI_SUCCESS;
    int local = op->sched.uses_shm || op->sched.uses_inline;
    if (!local && !((*al)->req & (TC_REQ_NODE_SHM | TC_REQ_INLINE))) return MPI_SUCCESS;
    if (fits_ring(*al, c, a, x)) {
        /* this rank's own need too (the largest need over the nodes should bound it) */
        if (!local || (bind_user(c, a, op->user) == MPI_SUCCESS && take_ring_area(x, op))) return MPI_SUCCESS;
    }
    *why = "node-shared memory: larger than the nonblocking calls' areas";
    a->node_shm = 0;
    return choose_instead(x, c, a, by_name, *al, al, &op->sched, cached, why);
}

/* A persistent request whose schedule runs on node-shared memory gets an
 * area of its own (collective: every rank asks, whatever its schedule).
 * Where one cannot be had on some node, every rank whose schedule needs it
 * chooses again as for a schedule without a nonblocking form. */
static int persistent_area(tc_ctx *x, tc_call *c, tc_args *a, int by_name, const tc_algo **al, tc_nb_op *op,
                           const tc_sched **cached, const char **why)
{
    const tc_sched *s = &op->sched;
    int want = *al && (s->uses_shm || s->uses_inline);
    size_t bytes = 0, lines = 0;
    /* a binding that fails is reported when the user's buffers are bound again */
    if (want && bind_user(c, a, op->user) == MPI_SUCCESS) (void)area_need(op, &bytes, &lines);
    int rc = tc_nb_area_get(x, want, bytes, lines, &op->area);
    if (rc != MPI_ERR_NO_MEM) return rc == MPI_SUCCESS ? rc : tc_raise_mpi(c->comm, rc, c->fn);
    if (!want) return MPI_SUCCESS;
    *why = "node-shared memory: no room for the persistent request's own";
    if (by_name) return tc_raise(c->comm, MPI_ERR_NO_MEM, "%s algorithm '%s': %s", c->d->name, (*al)->name, *why);
    a->node_shm = 0;
    return choose_instead(x, c, a, by_name, *al, al, &op->sched, cached, why);
}

TC_THREAD_LOCAL int tc_nb_trial;

/* The operation's fields besides its schedule and bindings. */
static int finish_op(tc_ctx *x, const tc_call *c, const tc_algo *al, tc_nb_op *op)
{
    op->op = c->d->reduction ? c->op : MPI_OP_NULL;
    op->me = c->rank;
    op->user_comm = c->comm;
    if (tc_config_get()->stats_on && !tc_nb_trial) {   /* an init's trial requests: not counted */
        op->stats_algo = al->name;
        op->stats_coll = (int)c->d->coll;
        op->stats_size = c->size;
        op->stats_bytes = c->bytes;
    }
    op->ch = x->nb;   /* held from the launch (tc_nb_launch, tc_nb_persistent) */
    return MPI_SUCCESS;
}

static int call_on_context(tc_ctx *x, tc_call *c, int by_name, const char *algorithm, int persistent,
                           MPI_Info info, MPI_Request *req)
{
    int rc;
    if ((rc = tc_call_check(c)) != MPI_SUCCESS) return rc;
    if (c->d->vcounts && (rc = tc_call_make_vcounts(c)) != MPI_SUCCESS)
        return tc_raise_mpi(c->comm, rc, c->fn);
    const tc_algo *raced = NULL;
    if (persistent && !by_name) {   /* before any rank may leave for the MPI library's own */
        tc_args la;
        tc_call_make_ctx_args(c, x, &la);
        raced = tc_learn_at_init(x, c, &la);
    }
    if (c->mismatch) return native(x, c, persistent, info, req, "send and receive signatures differ");
    if (c->d->vroot)
        return native(x, c, persistent, info, req, "gatherv and scatterv spread the root's counts first (a blocking step)");
    tc_args a;
    tc_call_make_ctx_args(c, x, &a);
    if (!persistent && !by_name) tc_nb_race_ask(x, c, &a);
    const tc_algo *al = NULL;
    const tc_sched *cached = NULL;
    const char *why = NULL;
    tc_nb_op *op = tc_nb_op_new();
    if (!op) return tc_raise_mpi(c->comm, MPI_ERR_NO_MEM, c->fn);
    rc = choose(x, c, &a, by_name, algorithm, persistent || x->ring_made == 1, persistent, raced, &al, &op->sched,
                &cached, &why);
    if (rc == MPI_SUCCESS && persistent) rc = persistent_area(x, c, &a, by_name, &al, op, &cached, &why);
    else if (rc == MPI_SUCCESS) rc = ring_area(x, c, &a, by_name, &al, op, &cached, &why);
    if (rc == MPI_SUCCESS && !al) {
        tc_nb_op_free(op);
        if (!persistent) tc_memo_remember_nb(x, c, &a, tc_catalog_find(c->d->coll, "native"), NULL, by_name);
        return native(x, c, persistent, info, req, why);
    }
    if (rc == MPI_SUCCESS && c->d->reduction && (rc = tc_call_check_op(c)) != MPI_SUCCESS)
        rc = tc_raise_mpi(c->comm, rc, c->fn);
    if (rc != MPI_SUCCESS) {
        tc_nb_op_free(op);
        return rc;
    }
    tc_explain(x, c->d->name, c->bytes, al->name,
               persistent ? (op->area ? "persistent, on node-shared memory of its own" : "persistent")
                          : op->area ? "nonblocking, on the ring's node-shared memory" : "nonblocking");
    /* the memo serves the nonblocking calls that follow: a persistent init's
     * choice (its own race's, learn_at_init.c) is not theirs (their race's,
     * nb_race.c), and its area may be larger than the ring's */
    int remember = cached != NULL && !persistent;
    if ((rc = bind_user(c, &a, op->user)) == MPI_SUCCESS) rc = finish_op(x, c, al, op);
    if (rc != MPI_SUCCESS) {
        tc_nb_op_free(op);
        return tc_raise_mpi(c->comm, rc, c->fn);
    }
    if (!persistent && !by_name && tc_nb_race_samples(x, c->d->coll)) tc_nb_op_sample(op, c->d->coll);
    rc = persistent ? tc_nb_persistent(op, req) : tc_nb_launch(op, req);
    if (rc != MPI_SUCCESS) {
        tc_nb_op_free(op);
        return tc_raise_mpi(c->comm, rc, c->fn);
    }
    if (remember) tc_memo_remember_nb(x, c, &a, al, cached, by_name);
    if (op->usage_coll) tc_nb_op_sample_begin(op);
    return MPI_SUCCESS;
}

/* A nonblocking call like the last one of its collective on the
 * communicator: the memo's entry and schedule, no selection (memo.c); 0:
 * the full path.  (A persistent init takes the full path: it is collective.) */
static int from_memo(tc_call *c, const tc_config *cfg, int by_name, const char *algorithm, MPI_Info info,
                     MPI_Request *req, int *rc)
{
    tc_ctx *x = NULL;
    const tc_call_memo *m = tc_memo_nb(c, cfg, by_name ? (algorithm ? algorithm : "") : NULL, &x);
    if (!m || !x->built || !x->nb) return 0;
    if (!by_name && tc_nb_race_due(x, c->d->coll, cfg)) return 0;   /* the full path asks for the race */
    if (!m->sched) {
        *rc = native_quiet(c, 0, info, req);
        return 1;
    }
    tc_nb_op *op = tc_nb_op_new();
    if (!op) return 0;
    int err = tc_sched_duplicate(&op->sched, m->sched) == 0 ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    if (err == MPI_SUCCESS && m->typed) {
        op->user[TC_BUF_SEND] = m->types[TC_BUF_SEND];
        op->user[TC_BUF_RECV] = m->types[TC_BUF_RECV];
        tc_run_bind_bases(c, &m->args, op->user, m->alias_off);
    } else if (err == MPI_SUCCESS) {
        err = bind_user(c, &m->args, op->user);
    }
    /* a memo on node-shared memory was found to fit the ring when it was made */
    if (err == MPI_SUCCESS && (op->sched.uses_shm || op->sched.uses_inline) && !take_ring_area(x, op)) {
        tc_nb_op_free(op);   /* no ring any more: the full path chooses */
        return 0;
    }
    if (err == MPI_SUCCESS) err = finish_op(x, c, m->algo, op);
    if (err == MPI_SUCCESS && !by_name && tc_nb_race_samples(x, c->d->coll)) tc_nb_op_sample(op, c->d->coll);
    if (err == MPI_SUCCESS) err = tc_nb_launch(op, req);
    if (err != MPI_SUCCESS) {
        tc_nb_op_free(op);
        *rc = tc_raise_mpi(c->comm, err, c->fn);
    } else {
        if (op->usage_coll) tc_nb_op_sample_begin(op);
        *rc = MPI_SUCCESS;
    }
    return 1;
}

int tc_nb_ranked(tc_ctx *x, const tc_call *c, const tc_args *a, int area, const tc_algo **out, int max)
{
    const tc_algo *ranked[TC_LEARN_MAX_CAND];
    int n = tc_learn_ranked(x, c, a, ranked, TC_LEARN_MAX_CAND), kept = 0;
    tc_args b = *a;
    if (!area) b.node_shm = 0;
    for (int i = 0; i < n && kept < max; i++)
        if (tc_algo_accepts(ranked[i], &b, x->topo, NULL) && !entry_why(ranked[i], c, area)) out[kept++] = ranked[i];
    return kept;
}

uint64_t tc_nb_form_rounds(tc_ctx *x, const tc_call *c, const tc_args *a, const tc_algo *al, int area)
{
    if (al->req & TC_REQ_NATIVE) return TC_RACE_ROUNDS_UNKNOWN;
    tc_args b = *a;
    if (!area) b.node_shm = 0;
    if (!tc_algo_accepts(al, &b, x->topo, NULL)) return TC_RACE_ROUNDS_UNKNOWN;
    tc_sched s;
    tc_sched_init(&s);
    const tc_sched *cached;
    uint64_t rounds = make_schedule(al, c, &b, x, &s, &cached, area) ? TC_RACE_ROUNDS_UNKNOWN : (uint64_t)s.nrounds;
    tc_sched_free(&s);
    return rounds;
}

/* May al's trial in a race run on the ring (area: the ring is made)?  An
 * entry on node-shared memory whose need does not fit the ring's areas
 * would decline its trial. */
static int raceable_on_ring(const tc_algo *al, const tc_call *c, const tc_args *a, const tc_ctx *x, int area)
{
    return !area || !(al->req & (TC_REQ_NODE_SHM | TC_REQ_INLINE)) || fits_ring(al, c, a, x);
}

/* The learner's fastest entries with a nonblocking form, at most max into
 * out: on the ring's node-shared memory where it is made and the entry's
 * need fits its areas. */
static int race_ranked(tc_ctx *x, const tc_call *c, const tc_args *a, const tc_algo **out, int max)
{
    const tc_algo *ranked[TC_LEARN_MAX_CAND];
    int area = x->ring_made == 1, n = tc_nb_ranked(x, c, a, area, ranked, TC_LEARN_MAX_CAND), kept = 0;
    for (int i = 0; i < n && kept < max; i++)
        if (raceable_on_ring(ranked[i], c, a, x, area)) out[kept++] = ranked[i];
    return kept;
}

/* The catalog's entry (at its defaults) with a nonblocking form for the
 * call in the fewest rounds (the most any rank has: one reduction over the
 * communicator, so that every rank names the same; the first of the
 * fewest in catalog order), on the ring as race_ranked asks; NULL: none.
 * A round advances only in a progress call: an application that tests
 * seldom overlaps a form of one round (a bcast's root sends everything at
 * the start) and waits for the rest of a form of several, which a call and
 * its wait alone do not show. */
#define FEWEST_MAX_ENTRIES 32
static const tc_algo *fewest_rounds(tc_ctx *x, const tc_call *c, const tc_args *a)
{
    int area = x->ring_made == 1, n = tc_catalog_entry_count(c->d->coll);
    if (n > FEWEST_MAX_ENTRIES) n = FEWEST_MAX_ENTRIES;
    const tc_algo *al[FEWEST_MAX_ENTRIES];
    uint64_t mine[FEWEST_MAX_ENTRIES], all[FEWEST_MAX_ENTRIES];
    for (int i = 0; i < n; i++) {
        const tc_entry *e = tc_catalog_entry_at(c->d->coll, i);
        al[i] = e ? e->def : NULL;
        mine[i] = TC_RACE_ROUNDS_UNKNOWN;
        if (al[i] && !entry_why(al[i], c, area) && raceable_on_ring(al[i], c, a, x, area))
            mine[i] = tc_nb_form_rounds(x, c, a, al[i], area);
    }
    if (n < 1 || PMPI_Allreduce(mine, all, n, MPI_UINT64_T, MPI_MAX, x->comm) != MPI_SUCCESS) return NULL;
    int best = -1;
    for (int i = 0; i < n; i++)
        if (all[i] != TC_RACE_ROUNDS_UNKNOWN && (best < 0 || all[i] < all[best])) best = i;
    return best < 0 ? NULL : al[best];
}

/* Whether al is among out[0..n). */
static int listed_in(const tc_algo *const *out, int n, const tc_algo *al)
{
    for (int i = 0; i < n; i++)
        if (out[i] == al) return 1;
    return 0;
}

int tc_nb_race_candidates(tc_ctx *x, const tc_call *c, const tc_args *a, const tc_algo **out, int max)
{
    int n = race_ranked(x, c, a, out, max > 3 ? max - 3 : max);
    tc_sched s;
    tc_sched_init(&s);
    const tc_sched *cached;
    tc_args b = *a;
    const tc_algo *model = model_nonblocking(x, c, &b, &s, &cached);
    tc_sched_free(&s);
    if (model && !listed_in(out, n, model) && n < max) out[n++] = model;
    const tc_algo *few = fewest_rounds(x, c, a);
    if (few && !listed_in(out, n, few) && n < max) out[n++] = few;
    const tc_algo *own = tc_catalog_find(c->d->coll, "native");
    if (own && n < max) out[n++] = own;
    return n;
}

/* Why a nonblocking call on a communicator without a context (or with one
 * made in MPI_Init on some ranks alone: tc_ctx_made_at_init_everywhere) is
 * the MPI library's. */
static const char *no_context_why(const tc_call *c)
{
    if (c->size == 1) return "one rank: no context";
    if (c->comm == MPI_COMM_WORLD)
        return "no context yet: made in MPI_Init or by the first blocking collective";
    return "no context yet: made by a blocking collective (a nonblocking call may not wait for the other ranks)";
}

int tc_nb_call(tc_call *c, int by_name, const char *algorithm, int persistent, MPI_Info info, MPI_Request *req)
{
    int rc;
    if (!req) return tc_raise(c->comm, MPI_ERR_REQUEST, "%s: request is NULL", c->fn);
    *req = MPI_REQUEST_NULL;
    /* the memo first, as for the blocking call: it serves only a
     * communicator with a context (a valid intra-communicator) */
    const tc_config *cfg = tc_config_get();
    if (tc_nb_interposed && !cfg->disable && !persistent &&   /* an init asks everything again: collective */
        from_memo(c, cfg, by_name, algorithm, info, req, &rc))
        return rc;
    if ((rc = tc_call_check_comm(c)) != MPI_SUCCESS) return rc;
    if (c->d->coll == TOPOCOLL_ALLTOALLW)   /* per-peer datatypes: checked by the MPI library's own call */
        return native(NULL, c, persistent, info, req, "alltoallw: per-peer datatypes");
    if (!tc_nb_interposed || cfg->disable) {
        if ((rc = tc_call_check(c)) != MPI_SUCCESS) return rc;
        return native(NULL, c, persistent, info, req, "no interposer: MPI's wait calls cannot advance topocoll");
    }
    /* a persistent init may synchronise the ranks (it learns, it races):
     * the context made, or marked as reached by such a call */
    tc_ctx *x = NULL;
    if (persistent && (rc = tc_ctx_get(c->comm, &x)) != MPI_SUCCESS) return tc_raise_mpi(c->comm, rc, c->fn);
    if (!persistent) x = tc_ctx_lookup(c->comm);
    if (!x || !x->built || !x->nb || (!x->synced && !tc_ctx_made_at_init_everywhere())) {
        if ((rc = tc_call_check(c)) != MPI_SUCCESS) return rc;
        return native(NULL, c, persistent, info, req, no_context_why(c));
    }
    return call_on_context(x, c, by_name, algorithm, persistent, info, req);
}
