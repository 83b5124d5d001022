/* Node-shared memory of the persistent requests (see nb_areas.h). */
#include "api/nb_areas.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "algo/cost_walk.h"
#include "api/context.h"
#include "api/shm_budget.h"
#include "exec/shm_inline.h"

/* An init that finds this many areas of its context held makes no more:
 * the request runs without node-shared memory (the same on every rank: the
 * node's ranks hold the same list). */
#define TC_NB_AREAS_MAX 64

/* orphan, and held where it may reach 0: a request may be freed in one
 * thread while another releases its communicator's areas.  A holder that
 * is not the last lets go without the lock (the ring's calls: the context
 * holds the ring's areas too). */
static pthread_mutex_t areas_lock = PTHREAD_MUTEX_INITIALIZER;

static int count_areas(const tc_ctx *x)
{
    int n = 0;
    for (const tc_nb_area *a = x->areas; a; a = a->next) n++;
    return n;
}

/* One reduction over the node: v[0] the node's largest data half, v[1] its
 * most lines, v[2] whether some rank lacks the memory of a new area,
 * v[3 + i] whether some rank holds area i. */
static int node_view(tc_ctx *x, int n, uint64_t *v, size_t bytes, size_t lines, int no_memory)
{
    v[0] = bytes;
    v[1] = lines;
    v[2] = (uint64_t)no_memory;
    pthread_mutex_lock(&areas_lock);
    int i = 0;
    for (const tc_nb_area *a = x->areas; a && i < n; a = a->next) v[3 + i++] = atomic_load(&a->held) != 0;
    pthread_mutex_unlock(&areas_lock);
    return PMPI_Allreduce(MPI_IN_PLACE, v, 3 + n, MPI_UINT64_T, MPI_MAX, x->shm.node_comm);
}

/* A new area, no window yet; NULL: no memory. */
static tc_nb_area *new_area(tc_ctx *x)
{
    tc_nb_area *a = calloc(1, sizeof *a);
    int *idx = a ? malloc((size_t)x->size * sizeof *idx) : NULL;
    if (!idx) {
        free(a);
        return NULL;
    }
    memcpy(idx, x->topo->node_idx, (size_t)x->size * sizeof *idx);
    a->node_idx = idx;
    tc_shm_init_area(&a->shm, &x->shm);
    return a;
}

static void area_free_memory(tc_nb_area *a)
{
    free(a->node_idx);
    free(a->seen);
    free(a);
}

static void area_drop(tc_nb_area *a)
{
    tc_shm_forget(&a->shm);   /* the windows go with MPI_Finalize */
    area_free_memory(a);
}

static void append(tc_ctx *x, tc_nb_area *a)
{
    tc_nb_area **tail = &x->areas;
    while (*tail) tail = &(*tail)->next;
    *tail = a;
}

/* The node's first area that nobody holds, else a new one, grown to the
 * node's need: collective over the node, every rank picks the same (the
 * new area's memory is had before, and its lack agreed, so that no rank
 * leaves the others waiting in the windows' collective calls). */
static int node_area(tc_ctx *x, size_t bytes, size_t lines, tc_nb_area **out)
{
    uint64_t v[3 + TC_NB_AREAS_MAX];
    int n = count_areas(x), i = 0, rc, created;
    tc_nb_area *fresh = n < TC_NB_AREAS_MAX ? new_area(x) : NULL;
    if ((rc = node_view(x, n, v, bytes, lines, !fresh && n < TC_NB_AREAS_MAX)) != MPI_SUCCESS) goto out;
    tc_nb_area *a = x->areas;
    for (; a && v[3 + i]; a = a->next) i++;
    if (!a && (n == TC_NB_AREAS_MAX || v[2])) {   /* alike on the node */
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    if (!a) {
        append(x, a = fresh);
        fresh = NULL;
    }
    if ((rc = tc_shm_reserve(&a->shm, (size_t)v[0], &created)) != MPI_SUCCESS) goto out;
    if (v[1] > 0 && (rc = tc_inline_reserve(&a->shm, (size_t)v[1])) != MPI_SUCCESS) goto out;
    *out = a;
out:
    if (fresh) area_drop(fresh);
    return rc;
}

int tc_nb_area_get(tc_ctx *x, int want, size_t shm_bytes, size_t lines, tc_nb_area **out)
{
    int any = want != 0, rc;
    *out = NULL;
    if ((rc = PMPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, x->comm)) != MPI_SUCCESS) return rc;
    if (!any) return MPI_SUCCESS;
    tc_nb_area *a = NULL;
    int ok = x->node_shm && x->shm.node_comm != MPI_COMM_NULL &&
             node_area(x, want ? shm_bytes : 0, want ? lines : 0, &a) == MPI_SUCCESS;
    if ((rc = PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, x->comm)) != MPI_SUCCESS) return rc;
    if (!ok) return MPI_ERR_NO_MEM;
    atomic_fetch_add(&a->held, 1);
    *out = a;
    return MPI_SUCCESS;
}

void tc_nb_area_put(tc_nb_area *a)
{
    if (!a) return;
    for (int n = atomic_load(&a->held); n > 1;)
        if (atomic_compare_exchange_weak(&a->held, &n, n - 1)) return;   /* not the last */
    pthread_mutex_lock(&areas_lock);
    int gone = atomic_fetch_sub(&a->held, 1) == 1 && a->orphan;
    pthread_mutex_unlock(&areas_lock);
    if (gone) area_drop(a);
}

/* ---- the nonblocking calls' ring ---------------------------------------------------- */

/* The context lets its ring go (its areas stay in the list, freed with it
 * or by the last call that runs on one). */
static void ring_forget(tc_ctx *x)
{
    pthread_mutex_lock(&areas_lock);
    for (int k = 0; k < TC_NB_RING; k++)
        if (x->ring[k]) atomic_fetch_sub(&x->ring[k]->held, 1);
    pthread_mutex_unlock(&areas_lock);
    memset(x->ring, 0, sizeof x->ring);
    x->ring_made = 0;
    x->ring_want = 0;
    x->ring_seq = 0;
}

size_t tc_nb_ring_half(const tc_topo *t)
{
    size_t half = (size_t)tc_cw_max_ppn(t) * TC_NB_RING_PER_RANK, cap = TC_NB_RING_HALF_MAX;
    uint64_t budget_half = tc_shm_budget() / 2;   /* a blocking call's data half at most */
    if (budget_half < cap) cap = (size_t)budget_half;
    if (cap < TC_NB_RING_PER_RANK) cap = TC_NB_RING_PER_RANK;   /* one rank's share whatever the budget */
    return half < cap ? half : cap;
}

/* Every rank of the node makes TC_NB_RING new areas of the ring's size, or
 * none (their memory had first, and its lack agreed). */
static int ring_on_node(tc_ctx *x, tc_nb_area *made[TC_NB_RING])
{
    int rc = MPI_SUCCESS, created, lack = 0;
    for (int k = 0; k < TC_NB_RING; k++) lack |= !(made[k] = new_area(x));
    if (made[0] && !(made[0]->seen = calloc((size_t)x->shm.node_size * TC_NB_RING, sizeof *made[0]->seen)))
        lack = 1;
    if ((rc = PMPI_Allreduce(MPI_IN_PLACE, &lack, 1, MPI_INT, MPI_MAX, x->shm.node_comm)) != MPI_SUCCESS) return rc;
    if (lack) return MPI_ERR_NO_MEM;
    for (int k = 0; k < TC_NB_RING && rc == MPI_SUCCESS; k++) {
        tc_shm *sh = &made[k]->shm;
        if ((rc = tc_shm_reserve(sh, x->ring_half, &created)) == MPI_SUCCESS &&
            (rc = tc_inline_reserve(sh, TC_NB_RING_LINES)) == MPI_SUCCESS && k == 0)
            tc_shm_gate_reset(sh, TC_NB_RING);
    }
    return rc == MPI_SUCCESS ? PMPI_Barrier(x->shm.node_comm) : rc;
}

int tc_nb_ring_make(tc_ctx *x)
{
    tc_nb_area *made[TC_NB_RING] = { NULL };
    x->ring_want = 0;
    x->ring_half = tc_nb_ring_half(x->topo);
    int ok = x->node_shm && x->shm.node_comm != MPI_COMM_NULL && x->ring_made == 0, rc;
    int node_rc = ok ? ring_on_node(x, made) : MPI_ERR_NO_MEM;
    ok = node_rc == MPI_SUCCESS;
    if ((rc = PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, x->comm)) != MPI_SUCCESS) ok = 0;
    for (int k = 0; k < TC_NB_RING; k++) {
        if (!made[k]) continue;
        if (ok) {   /* the context holds them */
            atomic_store(&made[k]->held, 1);
            append(x, made[k]);
            x->ring[k] = made[k];
        } else {    /* windows made alike on the node (agreed): freed together */
            if (node_rc == MPI_SUCCESS || made[k]->shm.flag_win != MPI_WIN_NULL) (void)tc_shm_free(&made[k]->shm);
            else tc_shm_forget(&made[k]->shm);
            area_free_memory(made[k]);
        }
    }
    x->ring_made = ok ? 1 : -1;
    x->ring_seq = 0;
    memset(x->nb_memo, 0, sizeof x->nb_memo);   /* the nonblocking calls choose again */
    return rc;
}

tc_nb_area *tc_nb_ring_take(tc_ctx *x, tc_shm_gate *gate, tc_nb_area **home)
{
    if (x->ring_made != 1) return NULL;
    uint64_t q = ++x->ring_seq;
    int slot = (int)(q % TC_NB_RING);
    tc_nb_area *a = x->ring[slot];
    *home = x->ring[0];
    atomic_fetch_add(&a->held, 1);   /* the context holds them too: no release meanwhile */
    atomic_fetch_add(&(*home)->held, 1);
    *gate = (tc_shm_gate){ &(*home)->shm, (*home)->seen, slot, TC_NB_RING, q, q > TC_NB_RING ? q - TC_NB_RING : 0 };
    return a;
}

void tc_nb_ring_ask(tc_ctx *x)
{
    if (x->ring_made != 0 || x->ring_want) return;
    x->ring_want = 1;
    tc_memo_drop_blocking(x);   /* the next blocking call takes the full path */
}

int tc_nb_areas_release(tc_ctx *x, int finalizing)
{
    uint64_t v[3 + TC_NB_AREAS_MAX];
    int n = count_areas(x), rc = MPI_SUCCESS, i = 0;
    ring_forget(x);
    if (n == 0) return MPI_SUCCESS;
    int agreed = !finalizing && node_view(x, n, v, 0, 0, 0) == MPI_SUCCESS;
    tc_nb_area *a = x->areas;
    x->areas = NULL;
    for (; a; i++) {
        tc_nb_area *next = a->next;
        pthread_mutex_lock(&areas_lock);
        int held = atomic_load(&a->held);
        if (held) a->orphan = 1;
        pthread_mutex_unlock(&areas_lock);
        if (!held && agreed && !v[3 + i]) {   /* nobody holds it: freed together */
            int rc2 = tc_shm_free(&a->shm);
            if (rc == MPI_SUCCESS) rc = rc2;
            area_free_memory(a);
        } else if (!held) {
            area_drop(a);
        }
        a = next;
    }
    return rc;
}
