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
 * ran message rounds at 1.5 to 2.3 times the blocking call, which had
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
 *   4. the learner skips its patience and its gauge (tc_learn_hurry);
 *   5. blocking calls of the request's shape on the scratch buffers, by
 *      selection, until the key's learner settles or TOPOCOLL_LEARN_INIT
 *      calls ran.  The learner explores and agrees as for the application's
 *      own calls (its decisions fall at call indices, the same at every
 *      rank, so every rank leaves the loop at the same call); the run
 *      summary does not count these calls.
 *
 * Cost: about 90 to 150 calls of the key and the candidates' set-up (about
 * a millisecond per node), once per key: another request of the key, and
 * the blocking calls after, find it settled.  Memory: the scratch buffers
 * for the loop's time.
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

enum { TC_INIT_SCRATCH_MAX = 16 << 20 };

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

void tc_learn_at_init(tc_ctx *x, const tc_call *c, const tc_args *a)
{
    const tc_config *cfg = tc_config_get();
    if (cfg->learn_init <= 0 || !tc_learn_on(cfg, c->d->coll) || c->d->vcounts) return;
    int mine = tc_learn_prepare(x, c, a) && !c->mismatch && (!c->d->reduction || tc_call_op_predefined(c->op)) &&
               c->bytes <= TC_INIT_SCRATCH_MAX / (c->size > 0 ? c->size : 1);
    tc_call s;
    void *mem[2] = { NULL, NULL };
    mine = mine && scratch_call(c, &s, mem);
    if (all_may(x, mine)) {   /* (else every key stays as it was, at every rank) */
        tc_learn_hurry(x, c, a);
        int calls = 0;
        while (calls < cfg->learn_init && !tc_learn_settled(x, c, a)) {
            tc_call once = s;
            if (tc_call_collective_unrecorded(&once) != MPI_SUCCESS) break;
            calls++;
        }
        if (cfg->explain) {
            char why[128];
            snprintf(why, sizeof why, "persistent init: %d calls on scratch buffers, the key %s", calls,
                     tc_learn_settled(x, c, a) ? "settled" : "not settled (TOPOCOLL_LEARN_INIT)");
            tc_explain(x, c->d->name, c->bytes, "learning", why);
        }
    }
    free(mem[0]);
    free(mem[1]);
}
