/* Node-shared memory within a budget, and its failure made collective (see shm_budget.h). */
#include "api/shm_budget.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/explain.h"
#include "coll/desc.h"
#include "core/config.h"

#define DEFAULT_BUDGET ((uint64_t)16 << 20)

static atomic_int budget_warned;

uint64_t tc_shm_budget(void)
{
    const char *v = tc_config_live("TOPOCOLL_SHM_BUDGET");
    long long b = (long long)DEFAULT_BUDGET;
    if (v && tc_parse_size(v, LLONG_MAX, &b) != 0) {
        b = (long long)DEFAULT_BUDGET;
        if (!atomic_exchange(&budget_warned, 1))
            fprintf(stderr, "topocoll: TOPOCOLL_SHM_BUDGET='%s' is not a size (accepted: a byte count, "
                            "optionally with K, M, G or T (x 1024^n), e.g. 65536, 64K, 16M); using 16M\n", v);
    }
    return (uint64_t)b;
}

/* The need of one rank's schedule, bytes per half. */
static int64_t need_of_rank(const tc_algo *al, const tc_args *a, const tc_topo *t, const int64_t esz[2])
{
    tc_sched s;
    tc_sched_init(&s);
    s.skip_kinds = (1u << TC_OP_RECV) | (1u << TC_OP_COPY);   /* only the SHM layout is read */
    int rc = tc_algo_generate(al, &s, a, t);
    int64_t need = rc == 0 && !s.err ? s.shm_count * esz[s.tmp_like == TC_BUF_RECV] : -1;
    tc_sched_free(&s);
    return need;
}

/* The inline slots (src/exec/shm_inline.c): 2 parities x n ranks x (the
 * payload's lines + a done line) of 64 bytes, at least 16 lines. */
static int64_t need_of_inline(const tc_args *a, const int64_t esz[2])
{
    int64_t elems = a->coll == TOPOCOLL_ALLGATHER ? a->scount
                  : a->coll == TOPOCOLL_ALLTOALL  ? (int64_t)a->size * a->rcount   /* its p blocks */
                                                  : a->rcount;
    int64_t bytes = elems * esz[1];
    int64_t lines = (bytes + 55) / 56 + 1;
    if (lines < 16) lines = 16;
    return (int64_t)a->size * lines * 64;   /* per half: one parity */
}

int64_t tc_shm_need(const tc_algo *al, const tc_args *a, const tc_topo *t, const int64_t esz[2])
{
    if (al->req & TC_REQ_INLINE) return need_of_inline(a, esz);
    if (!al->generate || (al->req & TC_REQ_NODE_COUNTS)) return 0;   /* grows in the executor */
    if (t->nnodes == 1) return need_of_rank(al, a, t, esz);
    /* one rank per kind of node (its size and socket count): the layouts
     * depend on the node's shape, not on which node it is */
    int64_t most = 0;
    int seen[16][2], nseen = 0;
    for (int k = 0; k < t->nnodes; k++) {
        int size = t->node_start[k + 1] - t->node_start[k];
        int socks = t->node_sock_start[k + 1] - t->node_sock_start[k], dup = 0;
        for (int i = 0; i < nseen && !dup; i++) dup = seen[i][0] == size && seen[i][1] == socks;
        if (dup) continue;
        if (nseen < 16) seen[nseen][0] = size, seen[nseen][1] = socks, nseen++;
        tc_args r = *a;
        r.rank = t->node_ranks[t->node_start[k]];
        if (r.rank != a->rank && tc_coll_desc_of(a->coll)->rooted) r.in_place = r.rank == a->root && a->in_place;
        int64_t n = need_of_rank(al, &r, t, esz);
        if (n < 0) return -1;
        if (n > most) most = n;
    }
    return most;
}

/* What failed, as the first rank that saw it tells (agreed by everyone). */
typedef struct failure {
    uint64_t bytes, avail;
    int rc;
    char dir[256];
} failure;

static atomic_int reported;

static void say(const tc_ctx *x, topocoll_coll coll, const failure *f)
{
    char what[MPI_MAX_ERROR_STRING + 64], reason[1024];
    int len = 0;
    if (f->rc == MPI_SUCCESS) {
        snprintf(what, sizeof what, "not enough room");
    } else {
        what[0] = '\0';
        if (PMPI_Error_string(f->rc, what, &len) != MPI_SUCCESS) snprintf(what, sizeof what, "MPI error %d", f->rc);
    }
    if (f->dir[0])
        snprintf(reason, sizeof reason, "a node-shared window of %llu bytes could not be had (%s; %llu bytes "
                 "free in %s)", (unsigned long long)f->bytes, what, (unsigned long long)f->avail, f->dir);
    else
        snprintf(reason, sizeof reason, "a node-shared window of %llu bytes could not be had (%s)",
                 (unsigned long long)f->bytes, what);
    /* a forced algorithm: its decline is this line (TOPOCOLL_FALLBACK=print;
     * silent says nothing, error fails the call where it is chosen again) */
    const char *forced = tc_config_get()->force[coll];
    int first = !atomic_exchange(&reported, 1);
    if (forced) {
        if (tc_config_get()->fallback == TC_FALLBACK_PRINT)
            (void)tc_forced_declined(x, x->comm, coll, forced,
                                     first ? reason : "node-shared memory is off: a window could not be had");
        return;
    }
    if (!first) return;
    if (x->rank == 0)
        fprintf(stderr, "topocoll: %s; falling back to algorithms without node-shared memory "
                        "(TOPOCOLL_SHM_BUDGET bounds the window)\n", reason);
}

static void turn_off(tc_ctx *x, topocoll_coll coll, const failure *f)
{
    x->node_shm = 0;
    for (int i = 0; i < TOPOCOLL_NCOLL; i++) x->memo[i].valid = 0;
    say(x, coll, f);
    x->shm.failed_bytes = 0;
}

static void local_failure(const tc_shm *sh, failure *f)
{
    memset(f, 0, sizeof *f);
    f->bytes = sh->failed_bytes;
    f->rc = sh->failed_rc;
    f->avail = sh->room.avail;
    memcpy(f->dir, sh->room.dir, sizeof f->dir);
    f->dir[sizeof f->dir - 1] = '\0';
}

int tc_shm_budget_prepare(tc_ctx *x, int64_t need, topocoll_coll coll, int *ok)
{
    tc_shm *sh = &x->shm;
    int created = 0, all_ok, rc;
    *ok = 1;
    /* Nothing new: no message.  A rank whose call the per-call memo serves
     * (its own arguments matched its last call; the root's MPI_IN_PLACE may
     * not) skips this function, so only a need that no earlier call made
     * ready may talk to the others; such a need is everyone's (planned is
     * the same on every rank, and a remembered call's need was made ready). */
    if ((uint64_t)need < sh->planned) return MPI_SUCCESS;
    sh->failed_bytes = 0;
    rc = tc_shm_reserve(sh, (size_t)need, &created);
    if (created) sh->fresh = 1;   /* the first schedule places its part (exec_mpi.c) */
    if (rc != MPI_SUCCESS && !sh->failed_bytes) return rc;   /* not a window: an MPI error */
    int mine = rc == MPI_SUCCESS;
    failure f;
    local_failure(sh, &f);
    if (x->topo->nnodes > 1) {   /* the nodes' outcomes: everyone's */
        if ((rc = PMPI_Allreduce(&mine, &all_ok, 1, MPI_INT, MPI_MIN, x->comm)) != MPI_SUCCESS) return rc;
        if (all_ok) {
            sh->planned = (uint64_t)need + 1;
            return MPI_SUCCESS;
        }
        int first, me = mine ? x->size : x->rank;
        if ((rc = PMPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, x->comm)) != MPI_SUCCESS) return rc;
        if ((rc = PMPI_Bcast(&f, (int)sizeof f, MPI_BYTE, first, x->comm)) != MPI_SUCCESS) return rc;
    } else if (mine) {
        sh->planned = (uint64_t)need + 1;
        return MPI_SUCCESS;
    }
    *ok = 0;
    turn_off(x, coll, &f);
    return MPI_SUCCESS;
}

int tc_shm_budget_failed(tc_ctx *x, topocoll_coll coll)
{
    if (!x->shm.failed_bytes) return 0;
    failure f;
    local_failure(&x->shm, &f);
    turn_off(x, coll, &f);
    return 1;
}
