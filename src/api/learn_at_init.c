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
 * ran message rounds at 1.1 to 2.9 times the blocking call, which had
 * learned shm_inline).  MPI-4 makes the init a nonlocal collective
 * operation, planned once for many starts, so the init may spend some
 * blocking calls to learn the key first.
 *
 * Steps, at every rank that reaches the init's choice:
 *   1. the key's learner, made where it had none (tc_learn_prepare);
 *   2. scratch buffers of the request's shape (learn_scratch.h);
 *   3. one reduction agrees that every rank may go on (a key not settled,
 *      its scratch had, a predefined op, equal signatures): otherwise no
 *      rank does, and the init chooses as before;
 *   4. where the key has not settled: the learner skips its patience and
 *      its gauge, and blocking calls of the request's shape run on the
 *      scratch buffers, by selection, until the key settles or
 *      TOPOCOLL_LEARN_INIT calls ran (tc_scratch_settle).  The learner
 *      explores and agrees as for the application's own calls (its
 *      decisions fall at call indices, the same at every rank, so every
 *      rank leaves the loop at the same call); the run summary does not
 *      count these calls;
 *   5. the race of persistent forms: the blocking call's times need not
 *      hold for a persistent request (its schedule runs on the nonblocking
 *      executor, on windows of its own; a blocking call may run a direct
 *      protocol), so the settled key's fastest entries with a persistent
 *      form (up to three) each get a request on the scratch record, run in
 *      turn and timed, then freed (tc_scratch_race); the fastest serves
 *      the user's request.
 *
 * Cost: about 90 to 150 calls of the key and the candidates' set-up (about
 * a millisecond per node), once per key: another request of the key, and
 * the blocking calls after, find it settled; then 38 starts of up to three
 * requests per init.  Memory: the scratch buffers for the init's time.
 *
 * Restrictions: not for the per-peer collectives (one learner per
 * communicator, vectors of their own), user-defined ops (their function
 * would run on scratch data), forced or named entries, learning off
 * (TOPOCOLL_LEARN=0), or scratch above 16 MiB per buffer.
 */
#include "api/learn_call.h"
#include "api/learn_scratch.h"

const tc_algo *tc_learn_at_init(tc_ctx *x, const tc_call *c, const tc_args *a)
{
    const tc_config *cfg = tc_config_get();
    if (cfg->learn_init <= 0 || !tc_learn_on(cfg, c->d->coll) || c->d->vcounts) return NULL;
    tc_scratch s;
    if (!tc_scratch_begin(x, c, a, &s)) return NULL;   /* every key stays as it was, at every rank */
    int calls = tc_scratch_settle(x, c, a, &s, cfg->learn_init);
    const tc_algo *cand[TC_SCRATCH_RACE_MAX];
    tc_race_result r = { .n = 0, .winner = NULL };
    int settled = tc_learn_settled(x, c, a);
    int n = settled ? tc_nb_ranked(x, c, a, 1, cand, 3) : 0;
    if (n >= 2) tc_scratch_race(x, c, a, &s, cand, n, 1, NULL, &r);
    tc_scratch_explain(x, c, "persistent init", "persistent", calls, settled, NULL, &r);
    tc_scratch_free(&s);
    return r.winner;
}
