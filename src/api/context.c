/* Per-communicator context (see context.h). */
#include "api/context.h"
#include "detect/comm_make.h"
#include "api/nb_areas.h"
#include "api/shm_calibrate.h"
#include "api/learn_file_mpi.h"
#include "api/nb_requests.h"

#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <pthread.h>
#include <string.h>

#include "api/learn_call.h"
#include "api/stats.h"
#include "core/config.h"
#include "core/fp_env.h"
#include "select/select.h"
#include "detect/detect.h"

static int keyval = MPI_KEYVAL_INVALID;
/* pthread_once, not C11 call_once: ThreadSanitizer sees only the former */
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;
static int keyval_rc = MPI_SUCCESS;
/* tc_watch_type's attribute and the count of watched types freed. */
static int type_keyval = MPI_KEYVAL_INVALID;
static atomic_uint types_freed;
/* A communicator of this process alone with MPI_ERRORS_RETURN (tc_quiet_self),
 * and the lock that keeps two threads from reducing on it at once. */
static MPI_Comm quiet_self = MPI_COMM_NULL;
static pthread_mutex_t quiet_lock = PTHREAD_MUTEX_INITIALIZER;
/* Set once MPI_Finalize has started: MPI then releases windows and
 * communicators itself, and calling into it for them is unsafe. */
static atomic_int finalizing;

/* MPI_COMM_WORLD's detected topology (a copy: topocoll_set_topology may
 * replace the context's own), kept for the communicators made later, with
 * the TOPOCOLL_DOMAIN it was detected under. */
static pthread_mutex_t world_lock = PTHREAD_MUTEX_INITIALIZER;
static tc_topo *world_topo;
static char world_domain[32];
/* Every rank made MPI_COMM_WORLD's context in MPI_Init (tc_ctx_at_init). */
static atomic_int world_at_init;

/* The per-call lookup: each thread remembers the last TC_LAST_CTX
 * (communicator, context) pairs it used, replacing the oldest.  Freeing any
 * context bumps the generation, so a remembered pair can never outlive its
 * communicator (a new communicator may reuse a freed one's handle). */
atomic_uint tc_ctx_generation = 1;
TC_THREAD_LOCAL tc_last_ctx tc_ctx_last[TC_LAST_CTX];
static TC_THREAD_LOCAL unsigned last_ctx_next;   /* the slot the next new pair takes */

static int node_comms_free(tc_node_comms *n) { return tc_subcomms_free(n); }

int tc_ctx_node_comms(tc_ctx *c, const tc_node_comms **out)
{
    *out = &c->ncomms;
    return tc_subcomms_make(&c->ncomms, c->comm, c->rank, c->topo->node_of, c->topo->node_idx);
}

/* Contexts alive (markers included) and made, for tests (tc_ctx_alive). */
static atomic_int alive_count, made_count;

/* Releases what making c took (nothing for a marker), leaving a marker;
 * returns the first MPI error of freeing its communicators. */
static int ctx_unmake(tc_ctx *c)
{
    int rc = MPI_SUCCESS, rc2;
    tc_ctx_flush(c);
    tc_learn_ctx_free(c);   /* before its communicator: a reduction may be in flight on it */
    tc_vmemo_free(c);
    if (!finalizing) rc = node_comms_free(&c->ncomms);
    free(c->cache);
    c->cache = NULL;
    c->cache_cap = 0;
    tc_topo_free(c->topo);
    c->topo = NULL;
    tc_workspace_free(&c->ws);
    tc_shm_model_drop(c);
    if ((rc2 = tc_nb_areas_release(c, finalizing)) != MPI_SUCCESS && rc == MPI_SUCCESS) rc = rc2;
    tc_nb_channel_release(c->nb, finalizing);
    c->nb = NULL;
    if (!finalizing) {
        if ((rc2 = tc_shm_free(&c->shm)) != MPI_SUCCESS && rc == MPI_SUCCESS) rc = rc2;
        if (c->comm != MPI_COMM_NULL && (rc2 = PMPI_Comm_free(&c->comm)) != MPI_SUCCESS &&
            rc == MPI_SUCCESS)
            rc = rc2;
    } else {
        tc_shm_forget(&c->shm);
    }
    c->comm = MPI_COMM_NULL;
    if (c->built) atomic_fetch_sub(&made_count, 1);
    c->built = 0;
    return rc;
}

/* Releases c; returns the first MPI error of freeing its communicators. */
static int ctx_free(tc_ctx *c)
{
    int rc = ctx_unmake(c);
    free(c);
    atomic_fetch_sub(&alive_count, 1);
    return rc;
}

/* MPI_Comm_free of the user's communicator reports what this returns. */
static int delete_fn(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm; (void)key; (void)extra;
    atomic_fetch_add(&tc_ctx_generation, 1);
    return ctx_free(value);
}

/* Deletes comm's context, if it has one, now: its delete callback frees it
 * while MPI still works. */
static int drop_context(MPI_Comm comm)
{
    int found = 0;
    void *value = NULL;
    int rc = PMPI_Comm_get_attr(comm, keyval, &value, &found);
    if (rc == MPI_SUCCESS && found) rc = PMPI_Comm_delete_attr(comm, keyval);
    return rc;
}

/* MPI deletes MPI_COMM_SELF's attributes first thing in MPI_Finalize (the
 * last set first, so a context on MPI_COMM_SELF is gone by now): the place
 * to free the contexts still attached to the predefined communicators,
 * which the application cannot free, and then the process-wide state
 * (hwloc, tuning table, keyvals).  Contexts on other communicators the
 * application did not free stay with them.  MPI_Finalize reports the first
 * error this returns. */
static int finalize_fn(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm; (void)value; (void)extra;
    /* the run summary first, while every context and MPI still work; its
     * arithmetic not in the caller's floating-point environment */
    tc_fp_saved env;
    tc_fp_hold(&env);
    int rc = tc_stats_report(), rc2;
    tc_fp_restore(&env);
    if ((rc2 = tc_learn_file_finalize()) != MPI_SUCCESS && rc == MPI_SUCCESS) rc = rc2;
    if (keyval != MPI_KEYVAL_INVALID) {
        if ((rc2 = drop_context(MPI_COMM_WORLD)) != MPI_SUCCESS && rc == MPI_SUCCESS) rc = rc2;
        if ((rc2 = drop_context(MPI_COMM_SELF)) != MPI_SUCCESS && rc == MPI_SUCCESS) rc = rc2;
    }
    if (quiet_self != MPI_COMM_NULL && (rc2 = PMPI_Comm_free(&quiet_self)) != MPI_SUCCESS &&
        rc == MPI_SUCCESS)
        rc = rc2;
    finalizing = 1;   /* from here on MPI releases what is left itself */
    (void)pthread_mutex_lock(&world_lock);
    tc_topo_free(world_topo);
    world_topo = NULL;
    (void)pthread_mutex_unlock(&world_lock);
    tc_detect_finalize();
    tc_select_finalize();
    if ((rc2 = PMPI_Comm_free_keyval(&key)) != MPI_SUCCESS && rc == MPI_SUCCESS) rc = rc2;
    if (type_keyval != MPI_KEYVAL_INVALID && (rc2 = PMPI_Type_free_keyval(&type_keyval)) != MPI_SUCCESS &&
        rc == MPI_SUCCESS)
        rc = rc2;
    if (keyval != MPI_KEYVAL_INVALID && (rc2 = PMPI_Comm_free_keyval(&keyval)) != MPI_SUCCESS &&
        rc == MPI_SUCCESS)
        rc = rc2;
    return rc;
}

static int type_freed_fn(MPI_Datatype type, int key, void *value, void *extra)
{
    (void)type; (void)key; (void)value; (void)extra;
    atomic_fetch_add_explicit(&types_freed, 1, memory_order_release);
    return MPI_SUCCESS;
}

/* The keyvals, made exactly once per process whatever the threads do. */
static void create_keyvals(void)
{
    int fin_key, rc = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_fn, &fin_key, NULL);
    if (rc == MPI_SUCCESS) rc = PMPI_Comm_set_attr(MPI_COMM_SELF, fin_key, NULL);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_fn, &keyval, NULL);
    if (rc == MPI_SUCCESS &&
        PMPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, type_freed_fn, &type_keyval, NULL) != MPI_SUCCESS)
        type_keyval = MPI_KEYVAL_INVALID;   /* then derived types take the full path */
    /* without it the checks that need it pass (the MPI library reports);
     * a split, not a dup: no attribute of the application's is copied */
    if (rc == MPI_SUCCESS && PMPI_Comm_split(MPI_COMM_SELF, 0, 0, &quiet_self) != MPI_SUCCESS)
        quiet_self = MPI_COMM_NULL;
    else if (rc == MPI_SUCCESS && PMPI_Comm_set_errhandler(quiet_self, MPI_ERRORS_RETURN) != MPI_SUCCESS)
        (void)PMPI_Comm_free(&quiet_self);
    keyval_rc = rc;
}

static int ensure_keyval(void)
{
    (void)pthread_once(&keyval_once, create_keyvals);
    return keyval_rc;
}

int tc_watch_type(MPI_Datatype t)
{
    int ni, na, nd, combiner;
    int rc = PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner);
    if (rc != MPI_SUCCESS || combiner == MPI_COMBINER_NAMED) return rc;
    if ((rc = ensure_keyval()) != MPI_SUCCESS) return rc;
    return type_keyval == MPI_KEYVAL_INVALID ? MPI_ERR_OTHER : PMPI_Type_set_attr(t, type_keyval, NULL);
}

unsigned tc_types_freed(void)
{
    return atomic_load_explicit(&types_freed, memory_order_acquire);
}

MPI_Comm tc_quiet_self(void)
{
    return ensure_keyval() == MPI_SUCCESS ? quiet_self : MPI_COMM_NULL;
}

int tc_quiet_reduce(const void *in, void *out, MPI_Datatype type, MPI_Op op)
{
    MPI_Comm q = tc_quiet_self();
    if (q == MPI_COMM_NULL) return MPI_SUCCESS;
    if (pthread_mutex_lock(&quiet_lock) != 0) return MPI_SUCCESS;
    int rc = PMPI_Reduce(in, out, 1, type, op, 0, q);
    (void)pthread_mutex_unlock(&quiet_lock);
    return rc;
}

/* Shared-memory waits spin only where every rank has a processing unit. */
static int shm_spins(const tc_ctx *c)
{
    return c->load.load == TC_LOAD_DEDICATED;
}

static void keep_world_topology(const tc_topo *t)
{
    const char *domain = tc_config_live("TOPOCOLL_DOMAIN");
    tc_topo *copy = tc_topo_dup(t);
    (void)pthread_mutex_lock(&world_lock);
    tc_topo_free(world_topo);
    world_topo = copy;
    snprintf(world_domain, sizeof world_domain, "%s", domain ? domain : "");
    (void)pthread_mutex_unlock(&world_lock);
}

/* comm's topology from MPI_COMM_WORLD's, if this process has it and
 * detection would look at the same things (no virtual topology, the same
 * domain kind); NULL otherwise. */
static tc_topo *from_world(MPI_Comm comm)
{
    tc_topo *t = NULL;
    const char *domain = tc_config_live("TOPOCOLL_DOMAIN");
    (void)pthread_mutex_lock(&world_lock);
    if (world_topo && strcmp(world_domain, domain ? domain : "") == 0 &&
        tc_topo_restrict(world_topo, MPI_COMM_WORLD, comm, &t) != MPI_SUCCESS)
        t = NULL;
    (void)pthread_mutex_unlock(&world_lock);
    return t;
}

/* c's topology (collective over c->comm, comm's duplicate).  A
 * communicator other than MPI_COMM_WORLD takes its ranks' nodes and sockets
 * from MPI_COMM_WORLD's detected topology where every rank has it (one
 * allreduce, so that all derive or all detect: every input of a choice the
 * same on every rank) instead of detecting them again (a shared-memory
 * split and two collectives); MPI_COMM_WORLD's is kept for that. */
static int ctx_topology(tc_ctx *c, MPI_Comm comm)
{
    int rc;
    if (tc_config_live("TOPOCOLL_TOPOLOGY")) return tc_topo_detect(c->comm, &c->topo);   /* local */
    if (comm == MPI_COMM_WORLD) {
        if ((rc = tc_topo_detect(c->comm, &c->topo)) == MPI_SUCCESS) keep_world_topology(c->topo);
        return rc;
    }
    tc_topo *t = from_world(comm);
    int mine = t != NULL, all = 0;
    if ((rc = PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, c->comm)) != MPI_SUCCESS || !all) {
        tc_topo_free(t);
        return rc != MPI_SUCCESS ? rc : tc_topo_detect(c->comm, &c->topo);
    }
    c->topo = t;
    return MPI_SUCCESS;
}

/* Whether any rank of c explains: a rank whose environment alone sets
 * TOPOCOLL_EXPLAIN delays its calls by its lines, and the barrier that
 * keeps that out of the learner's timings (call.c) must be every rank's. */
static int ctx_explaining(tc_ctx *c)
{
    int mine = tc_config_get()->explain != 0;
    return PMPI_Allreduce(&mine, &c->explaining, 1, MPI_INT, MPI_MAX, c->comm);
}

/* A marker: nothing made yet, no MPI call. */
static tc_ctx *ctx_alloc(void)
{
    tc_ctx *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->comm = MPI_COMM_NULL;
    c->shm.node_comm = MPI_COMM_NULL;
    c->shm.data_win = c->shm.flag_win = c->shm.line_win = MPI_WIN_NULL;
    atomic_fetch_add(&alive_count, 1);
    return c;
}

/* Makes marker c comm's context (collective over comm); on failure c is a
 * marker again. */
static int ctx_make(tc_ctx *c, MPI_Comm comm)
{
    tc_learn_file_start();   /* the learner's warm start, once per process */
    int rc = tc_comm_dup(comm, &c->comm);
    if (rc == MPI_SUCCESS) rc = PMPI_Comm_rank(comm, &c->rank);
    if (rc == MPI_SUCCESS) rc = PMPI_Comm_size(comm, &c->size);
    if (rc == MPI_SUCCESS) rc = ctx_topology(c, comm);
    if (rc == MPI_SUCCESS) rc = tc_detect_load(c->comm, &c->load);
    if (rc == MPI_SUCCESS) rc = ctx_explaining(c);
    if (rc == MPI_SUCCESS) rc = tc_shm_init(&c->shm, c->comm, c->rank, c->topo, shm_spins(c), &c->node_shm);
    if (rc == MPI_SUCCESS) c->nb = tc_nb_channel_open(c->comm, shm_spins(c));   /* NULL: the MPI library's nonblocking calls */
    if (rc != MPI_SUCCESS) {
        (void)ctx_unmake(c);   /* rc is the error reported */
        c->shm.node_comm = MPI_COMM_NULL;
        c->shm.data_win = c->shm.flag_win = c->shm.line_win = MPI_WIN_NULL;
        return rc;
    }
    c->built = 1;
    atomic_fetch_add(&made_count, 1);
    return MPI_SUCCESS;
}

/* Attaches c to comm; frees c when that fails. */
static int ctx_attach(MPI_Comm comm, tc_ctx *c)
{
    int rc = PMPI_Comm_set_attr(comm, keyval, c);
    if (rc != MPI_SUCCESS) (void)ctx_free(c);   /* rc is the error reported */
    return rc;
}

int tc_ctx_alive(int *made)
{
    if (made) *made = atomic_load(&made_count);
    return atomic_load(&alive_count);
}

tc_ctx *tc_ctx_lookup(MPI_Comm comm)
{
    tc_ctx *c = tc_ctx_last_of(comm);
    if (c) return c;
    unsigned gen = atomic_load_explicit(&tc_ctx_generation, memory_order_acquire);
    int found = 0;
    if (ensure_keyval() != MPI_SUCCESS || PMPI_Comm_get_attr(comm, keyval, &c, &found) != MPI_SUCCESS ||
        !found || !c)
        return NULL;
    tc_ctx_last[last_ctx_next++ % TC_LAST_CTX] = (tc_last_ctx){ comm, c, gen };
    return c;
}

/* Makes c's full context: detection (hwloc), the MPI library's
 * communicators and windows, in the caller's call on comm; under
 * tc_fp_hold, so that neither takes the caller's traps nor leaves a flag
 * (core/fp_env.h). */
static int ctx_make_held(tc_ctx *c, MPI_Comm comm)
{
    tc_fp_saved env;
    tc_fp_hold(&env);
    int rc = ctx_make(c, comm);
    tc_fp_restore(&env);
    return rc;
}

/* comm's context or marker (*out NULL when it has neither). */
static int find(MPI_Comm comm, tc_ctx **out)
{
    if ((*out = tc_ctx_lookup(comm)) != NULL) return MPI_SUCCESS;
    int rc = ensure_keyval(), found = 0;
    if (rc != MPI_SUCCESS) return rc;
    if ((rc = PMPI_Comm_get_attr(comm, keyval, out, &found)) != MPI_SUCCESS) return rc;
    if (!found) *out = NULL;
    return MPI_SUCCESS;
}

/* Every caller of tc_ctx_get is a call that may synchronise the ranks
 * (tc_ctx_at_init takes the mark back). */
int tc_ctx_get(MPI_Comm comm, tc_ctx **out)
{
    tc_ctx *c;
    int rc = find(comm, &c);
    *out = NULL;
    if (rc != MPI_SUCCESS) return rc;
    if (!c || !c->built) {
        int fresh = !c;
        if (fresh && !(c = ctx_alloc())) return MPI_ERR_NO_MEM;
        if ((rc = ctx_make_held(c, comm)) != MPI_SUCCESS) {
            if (fresh) (void)ctx_free(c);
            return rc;
        }
        if (fresh && (rc = ctx_attach(comm, c)) != MPI_SUCCESS) return rc;
    }
    c->synced = 1;
    *out = c;
    return MPI_SUCCESS;
}

int tc_ctx_for_call(MPI_Comm comm, topocoll_coll coll, int size, tc_ctx **out)
{
    const tc_config *cfg = tc_config_get();
    *out = NULL;
    if (cfg->force[coll] || comm == MPI_COMM_WORLD) return tc_ctx_get(comm, out);
    if (size == 1) return MPI_SUCCESS;
    tc_ctx *c;
    int rc = find(comm, &c);
    if (rc != MPI_SUCCESS) return rc;
    if (c && c->built) {
        c->synced = 1;
        *out = c;
        return MPI_SUCCESS;
    }
    unsigned after = cfg->context_after > 0 ? (unsigned)cfg->context_after : 0;
    if (c ? c->calls >= after : after == 0) return tc_ctx_get(comm, out);
    if (!c) {
        if (!(c = ctx_alloc())) return MPI_ERR_NO_MEM;
        if ((rc = ctx_attach(comm, c)) != MPI_SUCCESS) return rc;
    }
    c->calls++;
    return MPI_SUCCESS;
}

int tc_ctx_made_at_init_everywhere(void)
{
    return atomic_load_explicit(&world_at_init, memory_order_relaxed);
}

void tc_ctx_at_init(void)
{
    tc_ctx *c = NULL;
    int made = tc_ctx_get(MPI_COMM_WORLD, &c) == MPI_SUCCESS && c, all = 0;
    if (made) c->synced = 0;   /* nothing timed on it yet */
    if (PMPI_Allreduce(&made, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) == MPI_SUCCESS)
        atomic_store(&world_at_init, all);
}

int tc_ctx_set_topology(MPI_Comm comm, const char *spec)
{
    tc_ctx *c;
    int rc = tc_ctx_get(comm, &c);
    if (rc != MPI_SUCCESS) return rc;
    tc_topo *t = NULL;
    if (spec) {
        if ((rc = tc_topo_spec_for_comm(comm, spec, &t)) != MPI_SUCCESS) return rc;
    } else if ((rc = tc_topo_detect(c->comm, &t)) != MPI_SUCCESS) {
        return rc;
    }
    tc_topo_free(c->topo);
    c->topo = t;
    tc_ctx_flush(c);   /* schedules depend on the topology */
    /* nodes may have changed: collective, as this call; the new node
     * communicator is made even when freeing the old one failed (the areas
     * on the old one first: the running requests keep theirs) */
    int area_rc = tc_nb_areas_release(c, 0);
    int free_rc = tc_shm_free(&c->shm), nc_rc = node_comms_free(&c->ncomms);
    if (free_rc == MPI_SUCCESS) free_rc = area_rc;
    if (free_rc == MPI_SUCCESS) free_rc = nc_rc;
    rc = tc_shm_init(&c->shm, c->comm, c->rank, c->topo, shm_spins(c), &c->node_shm);
    tc_shm_model_drop(c);   /* its sockets may have changed too: made again on need */
    tc_learn_ctx_free(c);   /* learned for the former topology: learned again */
    return free_rc != MPI_SUCCESS ? free_rc : rc;
}

tc_exec_env tc_ctx_env(tc_ctx *c, MPI_Op op)
{
    tc_exec_env env = { c->comm, &c->ws, &c->shm, c->topo->node_idx, c->topo->node_of, op, &c->ncomms };
    return env;
}

void tc_ctx_flush(tc_ctx *c)
{
    c->cache_epoch++;
    memset(c->memo, 0, sizeof c->memo);   /* choices depend on what was flushed */
    tc_vmemo_forget(c);
    for (int i = 0; i < c->ncache; i++) tc_sched_free(&c->cache[i].sched);
    c->ncache = 0;
}

static int same_key(const tc_sched_key *a, const tc_sched_key *b)
{
    return a->algo == b->algo && a->scount == b->scount && a->rcount == b->rcount &&
           a->stype == b->stype && a->rtype == b->rtype && a->root == b->root &&
           a->in_place == b->in_place && a->op == b->op && a->coll == b->coll &&
           a->commutative == b->commutative;
}

const tc_sched *tc_ctx_schedule(tc_ctx *c, const tc_sched_key *key, const tc_args *a, int *err)
{
    c->clock++;
    for (int i = 0; i < c->ncache; i++)
        if (same_key(&c->cache[i].key, key)) {
            c->cache[i].last_use = c->clock;
            return &c->cache[i].sched;
        }
    int cap = tc_config_get()->sched_cache;
    if (cap < 1) cap = 1;  /* 0 = rebuild every call: keep one slot, flushed below */
    if (tc_config_get()->sched_cache == 0) tc_ctx_flush(c);
    if (c->cache_cap < cap) {
        tc_cached *n = realloc(c->cache, (size_t)cap * sizeof *n);
        if (!n) { *err = MPI_ERR_NO_MEM; return NULL; }
        c->cache = n;
        c->cache_cap = cap;
    }
    int slot = c->ncache;
    if (slot >= cap) {   /* evict the least recently used */
        slot = 0;
        for (int i = 1; i < c->ncache; i++)
            if (c->cache[i].last_use < c->cache[slot].last_use) slot = i;
        tc_sched_free(&c->cache[slot].sched);
        c->cache_epoch++;
    } else {
        c->ncache++;
    }
    tc_cached *e = &c->cache[slot];
    e->key = *key;
    e->last_use = c->clock;
    tc_sched_init(&e->sched);
    int rc = tc_algo_generate(key->algo, &e->sched, a, c->topo);
    if (rc == 0) rc = tc_sched_finish(&e->sched);
    if (rc) {
        tc_sched_free(&e->sched);
        c->cache_epoch++;   /* the last slot moved */
        c->cache[slot] = c->cache[--c->ncache];
        *err = MPI_ERR_NO_MEM;
        return NULL;
    }
    return &e->sched;
}
