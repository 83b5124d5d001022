/* Node-shared memory (see shm.h). */
#define _POSIX_C_SOURCE 200809L
#include "exec/shm.h"
#include "detect/comm_make.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/fp_env.h"
#include "exec/backoff.h"
#include "exec/membind.h"

#define LINE TC_SHM_LINE
/* Waiting: with a core per rank, spin (as the MPI libraries do: a yield is
 * a system call, and the peer's signal usually comes within a microsecond),
 * but briefly: past the budget, yield every SPINS_BETWEEN_YIELDS polls;
 * with more ranks than processing units (or an MPI library that yields),
 * yield soon, so that the rank being waited for runs.  Either way a wait
 * that lasts sleeps in the end (backoff.h): no wait holds a core for long. */
#define SPINS_DEDICATED (1 << 16)      /* some tens of microseconds */
#define SPINS_OVERSUBSCRIBED 64
#define SPINS_BETWEEN_YIELDS 1024      /* after the budget, dedicated */

static _Atomic uint64_t *flag_at(const tc_shm *sh, int dst, int src)
{
    return (_Atomic uint64_t *)(void *)(sh->flags + ((size_t)dst * (size_t)sh->node_size + (size_t)src) * LINE);
}

/* The second word of the flag's line: the call (sh->calls) in which src
 * raised a signal to dst after a truncation (see tc_shm_signal_error). */
static _Atomic uint64_t *error_at(const tc_shm *sh, int dst, int src) { return flag_at(sh, dst, src) + 1; }

/* Allocate a shared window of `bytes` on node rank 0; everyone gets its
 * base.  Agreed over the node before and after (see shm.h): node rank 0,
 * which makes the segment, asks its backing store for room first, because
 * a failure there leaves the other ranks waiting inside the MPI library's
 * allocation; and a failure the library returns on some ranks only is
 * made everyone's.  A window made on some ranks only cannot be freed (the
 * free is collective over the window): it is left to MPI_Finalize. */
static int alloc_shared(tc_shm *sh, size_t bytes, MPI_Win *win, char **base)
{
    MPI_Comm node = sh->node_comm;
    MPI_Aint size = sh->node_rank == 0 ? (MPI_Aint)bytes : 0, qsize;
    int disp, rc, ok = 1, all_ok = 0, failed, any_failed = 1;
    void *mine;
    if (sh->node_rank == 0) ok = tc_shm_room_check(bytes, &sh->room);
    if ((rc = PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, node)) != MPI_SUCCESS) return rc;
    if ((rc = PMPI_Bcast(&sh->room, (int)sizeof sh->room, MPI_BYTE, 0, node)) != MPI_SUCCESS) return rc;
    if (!all_ok) {
        sh->failed_bytes = bytes;
        sh->failed_rc = MPI_SUCCESS;
        return MPI_ERR_NO_MEM;
    }
    *win = MPI_WIN_NULL;
    tc_fp_saved env;   /* Open MPI 4.1's allocation raises inexact (core/fp_env.h) */
    tc_fp_hold(&env);
    rc = tc_win_allocate_shared(size, 1, MPI_INFO_NULL, node, &mine, win);
    tc_fp_restore(&env);
    if (rc == MPI_SUCCESS) rc = PMPI_Win_shared_query(*win, 0, &qsize, &disp, base);
    failed = rc != MPI_SUCCESS;
    int rc2 = PMPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, node);
    if (rc2 == MPI_SUCCESS && !any_failed) return MPI_SUCCESS;
    *win = MPI_WIN_NULL;   /* made here perhaps, not everywhere: not freed (above) */
    sh->failed_bytes = bytes;
    sh->failed_rc = rc != MPI_SUCCESS ? rc : MPI_ERR_NO_MEM;
    return rc2 != MPI_SUCCESS ? rc2 : sh->failed_rc;
}

/* Whether the node communicator's ranks really share memory (*local_ok).
 * An MPI that cannot split a shared-memory communicator here means no
 * shared memory, not an error; a failure on the communicator it gave back
 * is returned. */
static int probe_shared(const tc_shm *sh, int *local_ok)
{
    MPI_Comm real = MPI_COMM_NULL;
    int real_size = 0, rc, rc2;
    *local_ok = 0;
    if (tc_comm_split_type(sh->node_comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &real) !=
        MPI_SUCCESS)
        return MPI_SUCCESS;
    rc = PMPI_Comm_size(real, &real_size);
    rc2 = PMPI_Comm_free(&real);
    if (rc == MPI_SUCCESS) rc = rc2;
    *local_ok = rc == MPI_SUCCESS && real_size == sh->node_size;
    return rc;
}

int tc_shm_init(tc_shm *sh, MPI_Comm comm, int rank, const tc_topo *t, int spin, int *node_shm)
{
    memset(sh, 0, sizeof *sh);
    sh->node_comm = MPI_COMM_NULL;
    sh->data_win = sh->flag_win = sh->line_win = MPI_WIN_NULL;
    int rc = tc_comm_split(comm, t->node_of[rank], rank, &sh->node_comm);
    if (rc != MPI_SUCCESS) return rc;
    /* the windows' errors come back as codes (alloc_shared agrees on them),
     * whatever handler the application's communicator has */
    if ((rc = PMPI_Comm_set_errhandler(sh->node_comm, MPI_ERRORS_RETURN)) != MPI_SUCCESS) return rc;
    /* A local failure is returned after the collective calls below, which
     * every rank must make (an early return would hang the others). */
    int local_rc = PMPI_Comm_rank(sh->node_comm, &sh->node_rank);
    if (local_rc == MPI_SUCCESS) local_rc = PMPI_Comm_size(sh->node_comm, &sh->node_size);
    int local_ok = 1, ok = 0;
    /* detected nodes are the MPI library's shared-memory nodes already:
     * only a virtual topology's need asking */
    rc = t->virtual_nodes ? probe_shared(sh, &local_ok) : MPI_SUCCESS;
    if (local_rc == MPI_SUCCESS) local_rc = rc;
    else local_ok = 0;
    if ((rc = PMPI_Allreduce(&local_ok, &ok, 1, MPI_INT, MPI_MIN, comm)) != MPI_SUCCESS) return rc;
    *node_shm = ok;
    sh->spins = spin ? SPINS_DEDICATED : SPINS_OVERSUBSCRIBED;
    if ((rc = tc_cma_init(&sh->cma, comm, sh->node_comm, ok)) != MPI_SUCCESS) return rc;
    return local_rc;
}

static int create_flags(tc_shm *sh)
{
    size_t flags = (size_t)sh->node_size * (size_t)sh->node_size * LINE;
    size_t bytes = flags + (size_t)sh->node_size * TC_CMA_PUB_LINE;
    int rc = alloc_shared(sh, bytes, &sh->flag_win, (char **)&sh->flags);
    if (rc != MPI_SUCCESS) return rc;
    sh->pub = sh->flags + flags;
    sh->waits_seen = calloc((size_t)sh->node_size, sizeof *sh->waits_seen);
    sh->signals_sent = calloc((size_t)sh->node_size, sizeof *sh->signals_sent);
    if (!sh->waits_seen || !sh->signals_sent) return MPI_ERR_NO_MEM;
    /* row dst is written by this rank only at creation: zero our own row */
    for (int src = 0; src < sh->node_size; src++) {
        atomic_store_explicit(flag_at(sh, sh->node_rank, src), 0, memory_order_relaxed);
        atomic_store_explicit(error_at(sh, sh->node_rank, src), 0, memory_order_relaxed);
    }
    return PMPI_Barrier(sh->node_comm);
}

int tc_shm_reserve(tc_shm *sh, size_t bytes, int *created)
{
    int rc;
    *created = 0;
    if (sh->flag_win == MPI_WIN_NULL && (rc = create_flags(sh)) != MPI_SUCCESS) return rc;
    if (bytes <= sh->half) {
        *created = sh->fresh;   /* made ahead of its first schedule (tc_shm_budget_prepare) */
        sh->fresh = 0;
        return MPI_SUCCESS;
    }
    /* Grow: everyone of the node is here (same schedule).  Nobody can still
     * read the old window: every rank has finished its previous call, and
     * the maximum below (a barrier too) orders the free against later use.
     * The node's largest size, not our own: ranks whose counts do not match
     * (the user's error) must not index past the window. */
    uint64_t need = bytes;
    if ((rc = PMPI_Allreduce(MPI_IN_PLACE, &need, 1, MPI_UINT64_T, MPI_MAX, sh->node_comm)) != MPI_SUCCESS)
        return rc;
    if (sh->data_win != MPI_WIN_NULL && (rc = PMPI_Win_free(&sh->data_win)) != MPI_SUCCESS) return rc;
    sh->half = 0;
    sh->data = NULL;
    size_t half = ((size_t)need + 4095) / 4096 * 4096;
    if ((rc = alloc_shared(sh, 2 * half, &sh->data_win, &sh->data)) != MPI_SUCCESS) return rc;
    sh->half = half;
    *created = 1;
    sh->fresh = 0;
    return PMPI_Barrier(sh->node_comm);
}

char *tc_shm_next_half(tc_shm *sh)
{
    return sh->data + (sh->calls++ % 2) * sh->half;
}

/* flag[dst][me] has one writer, this rank: a release store of its own
 * count (no locked read-modify-write on a line the reader is polling). */
void tc_shm_signal(tc_shm *sh, int dst)
{
    atomic_store_explicit(flag_at(sh, dst, sh->node_rank), ++sh->signals_sent[dst], memory_order_release);
}

void tc_shm_signal_error(tc_shm *sh, int dst)
{
    atomic_store_explicit(error_at(sh, dst, sh->node_rank), (uint64_t)sh->calls, memory_order_relaxed);
    tc_shm_signal(sh, dst);
}

int tc_shm_wait(tc_shm *sh, int src)
{
    tc_shm_wait_for(sh, flag_at(sh, sh->node_rank, src), ++sh->waits_seen[src]);
    return atomic_load_explicit(error_at(sh, sh->node_rank, src), memory_order_relaxed) == (uint64_t)sh->calls;
}

int tc_shm_try_wait(tc_shm *sh, int src, int *error)
{
    uint64_t want = sh->waits_seen[src] + 1;
    if (atomic_load_explicit(flag_at(sh, sh->node_rank, src), memory_order_acquire) < want) return 0;
    sh->waits_seen[src] = want;
    *error = atomic_load_explicit(error_at(sh, sh->node_rank, src), memory_order_relaxed) == (uint64_t)sh->calls;
    return 1;
}

void tc_shm_init_area(tc_shm *area, const tc_shm *node)
{
    memset(area, 0, sizeof *area);
    area->node_comm = node->node_comm;
    area->comm_borrowed = 1;
    area->node_rank = node->node_rank;
    area->node_size = node->node_size;
    area->spins = node->spins;
    area->data_win = area->flag_win = area->line_win = MPI_WIN_NULL;
}

/* Node rank r's done words in the home area: its publication line (an
 * area publishes no buffers), one word per area of the ring. */
static _Atomic uint64_t *done_words(const tc_shm *home, int r)
{
    return (_Atomic uint64_t *)(void *)(home->pub + (size_t)r * TC_CMA_PUB_LINE);
}

void tc_shm_gate_reset(tc_shm *home, int slots)
{
    for (int k = 0; k < slots; k++) atomic_store_explicit(&done_words(home, home->node_rank)[k], 0, memory_order_relaxed);
}

void tc_shm_gate_done(const tc_shm_gate *g)
{
    atomic_store_explicit(&done_words(g->home, g->home->node_rank)[g->slot], g->seq, memory_order_release);
}

int tc_shm_gate_open(const tc_shm_gate *g)
{
    const tc_shm *h = g->home;
    for (int q = 0; q < h->node_size; q++) {
        uint64_t *seen = g->seen + (size_t)q * (size_t)g->slots;
        if (seen[g->slot] >= g->after) continue;
        const _Atomic uint64_t *w = done_words(h, q);   /* one line: every area's word at once */
        for (int k = 0; k < g->slots; k++) seen[k] = atomic_load_explicit(&w[k], memory_order_acquire);
        if (seen[g->slot] < g->after) return 0;
    }
    return 1;
}

uint64_t tc_shm_wait_for(const tc_shm *sh, const _Atomic uint64_t *f, uint64_t want)
{
    uint64_t seen;
    /* no pause instruction: it adds ~40 ns to every wake-up */
    for (long spins = 0; spins < sh->spins; spins++)
        if ((seen = atomic_load_explicit(f, memory_order_acquire)) >= want) return seen;
    tc_backoff b;
    tc_backoff_init(&b, 0, sh->spins > SPINS_OVERSUBSCRIBED ? SPINS_BETWEEN_YIELDS : 1);
    while ((seen = atomic_load_explicit(f, memory_order_acquire)) < want) tc_backoff_poll(&b);
    return seen;
}

int tc_shm_lines_reserve(tc_shm *sh, size_t lines)
{
    if (lines <= sh->line_cap) return MPI_SUCCESS;
    /* as tc_shm_reserve: everyone of the node grows at the same call, to the
     * node's largest need (a barrier too), so that ranks whose counts do
     * not match (the user's error) still agree on the slots' layout */
    uint64_t need = lines;
    int rc = PMPI_Allreduce(MPI_IN_PLACE, &need, 1, MPI_UINT64_T, MPI_MAX, sh->node_comm);
    if (rc != MPI_SUCCESS) return rc;
    lines = (size_t)need;
    if (sh->line_win != MPI_WIN_NULL && (rc = PMPI_Win_free(&sh->line_win)) != MPI_SUCCESS) return rc;
    sh->line_cap = 0;
    size_t cap = lines < 16 ? 16 : lines;
    size_t bytes = 2 * (size_t)sh->node_size * cap * LINE;
    if ((rc = alloc_shared(sh, bytes, &sh->line_win, (char **)&sh->lines)) != MPI_SUCCESS) return rc;
    sh->line_cap = cap;
    for (int parity = 0; parity < 2; parity++)   /* our own slots: sequence 0, never a call's */
        memset(tc_shm_lines_slot(sh, parity, sh->node_rank), 0, cap * LINE);
    return PMPI_Barrier(sh->node_comm);
}

static void keep_first(int *first, int rc)
{
    if (*first == MPI_SUCCESS) *first = rc;
}

int tc_shm_free(tc_shm *sh)
{
    int rc = MPI_SUCCESS;   /* the first error; everything is released either way */
    if (sh->data_win != MPI_WIN_NULL) keep_first(&rc, PMPI_Win_free(&sh->data_win));
    if (sh->flag_win != MPI_WIN_NULL) keep_first(&rc, PMPI_Win_free(&sh->flag_win));
    if (sh->line_win != MPI_WIN_NULL) keep_first(&rc, PMPI_Win_free(&sh->line_win));
    if (sh->node_comm != MPI_COMM_NULL && !sh->comm_borrowed) keep_first(&rc, PMPI_Comm_free(&sh->node_comm));
    free(sh->waits_seen);
    free(sh->signals_sent);
    tc_cma_free(&sh->cma);
    memset(sh, 0, sizeof *sh);
    sh->node_comm = MPI_COMM_NULL;
    sh->data_win = sh->flag_win = sh->line_win = MPI_WIN_NULL;
    return rc;
}

void tc_shm_forget(tc_shm *sh)
{
    free(sh->waits_seen);
    free(sh->signals_sent);
    tc_cma_free(&sh->cma);
    memset(sh, 0, sizeof *sh);
    sh->node_comm = MPI_COMM_NULL;
    sh->data_win = sh->flag_win = sh->line_win = MPI_WIN_NULL;
}
