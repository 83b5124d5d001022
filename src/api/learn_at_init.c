/*
 * A persistent request's key learned at its init.
 *
 * Why.  A persistent collective chooses its algorithm once, at its init
 * (MPI_<Coll>_init, topocoll_<coll>_init), and keeps it for every start.
 * Where the key's learner has settled (blocking calls of that shape ran
 * long enough), the request takes what the learner timed fastest; where it
 * has not, the request would take the selection table's or the cost model's
 * choice, and neither prices node-shared memory for every collective (MPICH
 * 4, np 2: 8-byte alltoall and bcast requests made before any blocking call
 * ran message rounds at 1.2 to 3.1 times the blocking call, which had
 * learned shm_inline).  MPI-4 makes the init a nonlocal collective
 * operation, planned once for many starts, so the init may spend some
 * blocking calls to learn the key first.
 *
 * Steps, at every rank that reaches the init's choice:
 *   1. the key's learner, made where it had none (tc_learn_prepare);
 *   2. scratch buffers of the request's shape: for each significant user
 *      buffer, p times the larger count of its datatype, zeroed (every
 *      predefined reduction of zeros is exact and raises no floating-point
 *      flag);
 *   3. one reduction agrees that every rank may go on (a key not settled,
 *      its scratch had, a predefined op, equal signatures): otherwise no
 *      rank does, and the init chooses as before;
 *   4. where the key has not settled: the learner skips its patience and
 *      its gauge (tc_learn_hurry), and blocking calls of the request's
 *      shape run on the scratch buffers, by selection, until the key
 *      settles or TOPOCOLL_LEARN_INIT calls ran.  The learner explores and
 *      agrees as for the application's own calls (its decisions fall at
 *      call indices, the same at every rank, so every rank leaves the loop
 *      at the same call); the run summary does not count these calls;
 *   5. the race of persistent forms: the blocking call's times need not
 *      hold for a persistent request (its schedule runs on the nonblocking
 *      executor, on windows of its own; a blocking call may run a direct
 *      protocol), so the settled key's fastest entries with a persistent
 *      form (up to TC_RACE_MAX) each get a request on the scratch call,
 *      run in turn in blocks of starts and waits (race_persistent), then
 *      freed; one reduction (MAX over the ranks) agrees on their times, and
 *      the fastest serves the user's request.
 *
 * Cost: about 90 to 150 calls of the key and the candidates' set-up (about
 * a millisecond per node), once per key: another request of the key, and
 * the blocking calls after, find it settled; then 34 starts of up to three
 * requests per init.  Memory: the scratch buffers for the init's time.
 *
 * Restrictions: not for the per-peer collectives (one learner per
 * communicator, vectors of their own), user-defined ops (their function
 * would run on scratch data), forced or named entries, learning off
 * (TOPOCOLL_LEARN=0), or scratch above 16 MiB per buffer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/call.h"
#include "api/explain.h"
#include "api/learn_call.h"
#include "api/nb_requests.h"
#include "api/stats.h"

enum { TC_INIT_SCRATCH_MAX = 16 << 20 };
/* The race of persistent forms: the learner's fastest few, each timed over
 * a few starts after warm ones. */
enum { TC_RACE_MAX = 3, TC_RACE_WARM = 2, TC_RACE_BLOCKS = 4, TC_RACE_BLOCK = 8 };

/* Bytes that n elements of type t span, and their true lower bound in *lb;
 * -1 where they cannot be had. */
static int64_t span_of(MPI_Datatype t, int64_t n, MPI_Aint *lb)
{
    MPI_Aint tlb, text, l, ext;
    *lb = 0;
    if (n <= 0) return 0;
    if (PMPI_Type_get_true_extent(t, &tlb, &text) != MPI_SUCCESS || PMPI_Type_get_extent(t, &l, &ext) != MPI_SUCCESS ||
        ext < 0 || text < 0)
        return -1;
    if (ext > 0 && n - 1 > (TC_INIT_SCRATCH_MAX - (int64_t)text) / (int64_t)ext) return -1;
    *lb = tlb;
    return (n - 1) * (int64_t)ext + (int64_t)text;
}

/* The scratch call s: the request's record with its significant buffers
 * replaced by zeroed memory (mem[], freed by the caller); MPI_IN_PLACE and
 * insignificant arguments kept.  0 where the memory cannot be had. */
static int scratch_call(const tc_call *c, tc_call *s, void *mem[2])
{
    *s = *c;   /* the record's completed fields again from the checks */
    s->rank = s->size = s->in_place = s->staged = s->mismatch = 0;
    s->use[0] = s->use[1] = s->tsize[0] = s->tsize[1] = 0;
    s->bytes = 0;
    int64_t n = (int64_t)c->size * (c->scount > c->rcount ? c->scount : c->rcount);
    const void *user[2] = { c->sbuf, c->rbuf };
    void *to[2] = { (void *)c->sbuf, c->rbuf };
    for (int b = 0; b < 2; b++) {
        if (!c->use[b] || user[b] == MPI_IN_PLACE) continue;
        if (b == TC_BUF_RECV && c->use[TC_BUF_SEND] && user[1] == user[0]) {
            to[1] = to[0];
            continue;
        }
        MPI_Aint lb;
        int64_t bytes = span_of(tc_call_type(c, b), n, &lb);
        if (bytes < 0 || bytes > TC_INIT_SCRATCH_MAX || !(mem[b] = calloc(1, bytes > 0 ? (size_t)bytes : 1)))
            return 0;
        to[b] = (char *)mem[b] - lb;
    }
    s->sbuf = to[TC_BUF_SEND];
    s->rbuf = to[TC_BUF_RECV];
    return 1;
}

/* Every rank may learn (one reduction, MIN of this rank's answer). */
static int all_may(const tc_ctx *x, int mine)
{
    int all = mine;
    return PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, x->comm) == MPI_SUCCESS && all;
}

/* A persistent request of entry al on the scratch call, or
 * MPI_REQUEST_NULL where it could not be made. */
static MPI_Request trial_request(const tc_call *scratch, const tc_algo *al)
{
    tc_call s = *scratch;
    MPI_Request r = MPI_REQUEST_NULL;
    if (tc_nb_call(&s, 1, al->name, 1, MPI_INFO_NULL, &r) != MPI_SUCCESS) return MPI_REQUEST_NULL;
    return r;
}

/* Nanoseconds of n starts and waits of r (UINT64_MAX: no request, or an
 * error). */
static uint64_t time_starts(MPI_Request *r, int n)
{
    if (*r == MPI_REQUEST_NULL) return UINT64_MAX;
    int rc = MPI_SUCCESS;
    uint64_t t0 = tc_stats_now();
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++)
        if ((rc = tc_nb_start(r)) == MPI_SUCCESS) rc = tc_nb_wait(r, MPI_STATUS_IGNORE);
    return rc == MPI_SUCCESS ? tc_stats_now() - t0 : UINT64_MAX;
}

/* The fastest persistent form among the settled key's fastest entries
 * (NULL: fewer than two to compare).  Each candidate gets a request on the
 * scratch call; the requests run in turn, TC_RACE_BLOCKS blocks of
 * TC_RACE_BLOCK starts each after TC_RACE_WARM untimed ones, and a
 * candidate's time is its least block (other work on the machine only adds
 * time).  One reduction (MAX over the ranks) agrees on the times, so every
 * rank takes the same.  A candidate's errors go to MPI_ERRORS_RETURN
 * meanwhile (it then counts as not timed). */
static const tc_algo *race_persistent(tc_ctx *x, const tc_call *c, const tc_args *a, const tc_call *scratch)
{
    const tc_algo *cand[TC_RACE_MAX];
    int n = tc_nb_persistent_ranked(x, c, a, cand, TC_RACE_MAX);
    if (n < 2) return NULL;
    MPI_Errhandler user;
    if (PMPI_Comm_get_errhandler(c->comm, &user) != MPI_SUCCESS) return NULL;
    (void)PMPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN);
    MPI_Request req[TC_RACE_MAX];
    uint64_t ns[TC_RACE_MAX], all[TC_RACE_MAX];
    tc_nb_trial = 1;
    for (int k = 0; k < n; k++) {
        req[k] = trial_request(scratch, cand[k]);
        ns[k] = time_starts(&req[k], TC_RACE_WARM) == UINT64_MAX ? UINT64_MAX : UINT64_MAX - 1;
    }
    for (int b = 0; b < TC_RACE_BLOCKS; b++)
        for (int k = 0; k < n; k++) {
            if (ns[k] == UINT64_MAX) continue;   /* (the same at every rank but for a local error) */
            uint64_t t = time_starts(&req[k], TC_RACE_BLOCK);
            if (t < ns[k] || t == UINT64_MAX) ns[k] = t;
        }
    for (int k = 0; k < n; k++)
        if (req[k] != MPI_REQUEST_NULL) (void)tc_nb_request_free(&req[k]);
    tc_nb_trial = 0;
    (void)PMPI_Comm_set_errhandler(c->comm, user);
    (void)PMPI_Errhandler_free(&user);
    if (PMPI_Allreduce(ns, all, n, MPI_UINT64_T, MPI_MAX, x->comm) != MPI_SUCCESS) return NULL;
    int best = -1;
    for (int k = 0; k < n; k++)
        if (all[k] < UINT64_MAX - 1 && (best < 0 || all[k] < all[best])) best = k;
    return best < 0 ? NULL : cand[best];
}

const tc_algo *tc_learn_at_init(tc_ctx *x, const tc_call *c, const tc_args *a)
{
    const tc_config *cfg = tc_config_get();
    if (cfg->learn_init <= 0 || !tc_learn_on(cfg, c->d->coll) || c->d->vcounts) return NULL;
    int mine = tc_learn_prepare(x, c, a) >= 0 && !c->mismatch && (!c->d->reduction || tc_call_op_predefined(c->op)) &&
               c->bytes <= TC_INIT_SCRATCH_MAX / (c->size > 0 ? c->size : 1);
    tc_call s;
    void *mem[2] = { NULL, NULL };
    mine = mine && scratch_call(c, &s, mem);
    const tc_algo *raced = NULL;
    if (all_may(x, mine)) {   /* (else every key stays as it was, at every rank) */
        int calls = 0;
        if (!tc_learn_settled(x, c, a)) {
            tc_learn_hurry(x, c, a);
            while (calls < cfg->learn_init && !tc_learn_settled(x, c, a)) {
                tc_call once = s;
                if (tc_call_collective_unrecorded(&once) != MPI_SUCCESS) break;
                calls++;
            }
        }
        if (tc_learn_settled(x, c, a)) raced = race_persistent(x, c, a, &s);
        if (cfg->explain) {
            char why[160];
            snprintf(why, sizeof why, "persistent init: %d calls on scratch buffers, the key %s; %s", calls,
                     tc_learn_settled(x, c, a) ? "settled" : "not settled (TOPOCOLL_LEARN_INIT)",
                     raced ? "persistent forms timed" : "no persistent forms timed");
            tc_explain(x, c->d->name, c->bytes, raced ? raced->name : "learning", why);
        }
    }
    free(mem[0]);
    free(mem[1]);
    return raced;
}
