/*
 * The nonblocking and persistent collectives, checked on data.
 *
 * Groups: each group starts four operations, three of different
 * collectives on one communicator and one on a duplicate, interleaved with
 * an MPI_Irecv from the left neighbour and an MPI_Isend to the right one;
 * the eight requests (two of them MPI_REQUEST_NULL) are completed together,
 * the completion call rotating from group to group: MPI_Wait on each,
 * MPI_Waitall, MPI_Waitany, MPI_Waitsome, MPI_Test loops, MPI_Testall,
 * MPI_Testany, MPI_Testsome.  Every receive buffer is compared with a
 * reference computed locally (tests/mpi/nb_ops.h: counts 0, 1, 7, 1000,
 * 70000; int, double, a derived type; in place; roots 0 and last), every
 * request must end as MPI_REQUEST_NULL, every collective's status reads
 * not cancelled, MPI_ERROR MPI_SUCCESS (or untouched where the call need
 * not set it) and, where topocoll served it, count 0; the point-to-point
 * data and statuses are checked too.  Who served each start: before it a
 * barrier through topocoll's "native" entry on a third communicator makes
 * topocoll_last_algorithm() read "native", so a start that leaves it so
 * was the MPI library's own.  Each communicator gets topocoll's context
 * first, from that same barrier by name (a nonblocking call never makes
 * one: without it every start would be the MPI library's own).
 *
 *   --mode=mpi   the groups through MPI_I<Coll> (the interposer's where it
 *                is linked or preloaded, else the MPI library's)
 *   --mode=api   every catalog entry of every collective (names from
 *                topocoll_algorithm_count / _name): three operations
 *                through topocoll_i<coll>_algorithm(entry) plus one
 *                through topocoll_i<coll> on the duplicate.  An entry may
 *                decline (MPI_ERR_ARG) or hand the call to the MPI
 *                library's own (topocoll_last_algorithm() "native"): both
 *                accepted, counted and printed per collective.
 *   --mode=all   both (the default where topocoll is linked)
 *
 * Then, in every mode: MPI_Request_free on an active operation (its
 * receive buffer checked once a later operation has completed; where the
 * MPI library's own serves, its refusal is accepted and said: Open MPI 4.1
 * and MPICH 4.0 refuse), MPI_Cancel on an active operation (must return an
 * error: MPI_ERRORS_RETURN is set), and the persistent collectives (allreduce, bcast, allgather,
 * alltoall, barrier, reduce): topocoll_<coll>_init, and MPI_<Coll>_init
 * where the MPI library is MPI-4, started five times with new data each
 * time (topocoll_start, MPI_Start, MPI_Startall) together with a persistent
 * point-to-point pair (MPI_Recv_init, MPI_Send_init) in the same arrays,
 * completed with MPI_Wait, MPI_Test, MPI_Waitall, the requests staying
 * allocated, then freed.  Where
 * neither kind of persistent request exists the part is skipped, and said.
 *
 *   --forced=COLL=ENTRY[,COLL=ENTRY...]   print how many MPI_I<Coll> starts
 *                topocoll_last_algorithm() named ENTRY (run with
 *                TOPOCOLL_<COLL>=ENTRY set); every start of COLL must name
 *                ENTRY or "native" (the entry declined); with
 *                --require-forced at least two must name ENTRY.
 *   --persistent=COLL[,COLL...]   the persistent part's collectives (of
 *                the six above).
 *   --rounds=N   groups through MPI_I<Coll> (85).
 *   --verbose    rank 0 prints each start and the entry that served it.
 *   --only=COLL[,COLL...], --exclude=COLL[,COLL...]   the collectives of
 *                the groups (all by default).
 *   --timeout=S  the watchdog's limit per group (default 60).
 *
 * Built three times: linked with the interposer library (topocoll_pmpi:
 * MPI_I<Coll>, the wait and test calls and the topocoll API); with
 * NB_MPI_ONLY linked with MPI only (run as it is, and with the interposer
 * preloaded); with NB_LIB_ONLY linked with libtopocoll alone (the API only;
 * the completion loops test and call topocoll_progress(), persistent
 * requests start through topocoll_start / topocoll_startall).
 * Ends with "N passed, M failed" on rank 0.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The MPI library's persistent collectives: MPI-4's MPI_<Coll>_init, or
 * Open MPI 4's extension MPIX_<Coll>_init (through the interposer, where it
 * is linked or preloaded, both are topocoll's). */
#include "api/mpi_persistent.h"

#include "nb_ops.h"
#include "../common/mpi_harness.h"
#include "../common/watchdog.h"

#define NB_NCOUNTS 5
static const int nb_counts[NB_NCOUNTS] = { 0, 1, 7, 1000, 70000 };
#define NB_SLOTS 8
#define NB_UNTOUCHED 123457   /* a status's MPI_ERROR before the call */
#define NB_TAG 77

static int wrank, wsize;
static unsigned watch_s = 60;

/* Which entry served the starts: per collective. */
typedef struct nb_tally {
    long started, as_entry, as_native, as_other, declined;
    char other[64];
} nb_tally;
static nb_tally api_tally[NB_NCOLL];

/* --forced */
static struct {
    int coll;
    char entry[64];
    long starts, as_entry, as_native, as_other;
    char other[64];
} forced[8];
static int nforced, require_forced, verbose;
static int coll_on[NB_NCOLL];   /* --only / --exclude: the collectives run in the groups */

/* ---- groups ------------------------------------------------------------------ */

enum { SLOT_NULL, SLOT_OP, SLOT_SEND, SLOT_RECV };

typedef struct nb_group {
    MPI_Request reqs[NB_SLOTS];
    MPI_Status st[NB_SLOTS];
    int kind[NB_SLOTS], done[NB_SLOTS];
    nb_op *op[NB_SLOTS];
    int sendv[4], recvv[4], from, to, n;
    char what[160];
} nb_group;

static const char *const method_names[8] = { "MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome",
                                             "MPI_Test", "MPI_Testall", "MPI_Testany", "MPI_Testsome" };

/* Linked with libtopocoll alone (NB_LIB_ONLY): MPI's wait and test calls
 * are the MPI library's, so every completion loop calls topocoll_progress()
 * and tests (no blocking wait), and persistent requests start through
 * topocoll_start / topocoll_startall. */
#ifdef NB_LIB_ONLY
#define NB_PROGRESS() topocoll_progress()
#define NB_METHOD(x) (4 + (x) % 4)
#else
#define NB_PROGRESS() ((void)0)
#define NB_METHOD(x) ((x) % 8)
#endif

static int nb_wait(MPI_Request *req, MPI_Status *st)
{
#ifdef NB_LIB_ONLY
    int flag = 0, rc;
    do {
        topocoll_progress();
        rc = MPI_Test(req, &flag, st);
    } while (rc == MPI_SUCCESS && !flag);
    return rc;
#else
    return MPI_Wait(req, st);
#endif
}

static void record_forced(const nb_op *o)
{
    for (int f = 0; f < nforced; f++)
        if (forced[f].coll == o->coll) {
            const char *name = nb_last_algorithm();
            forced[f].starts++;
            if (name && !strcmp(name, forced[f].entry)) forced[f].as_entry++;
            else if (!name || !strcmp(name, "native")) forced[f].as_native++;
            else {
                forced[f].as_other++;
                snprintf(forced[f].other, sizeof forced[f].other, "%s", name);
            }
        }
}

/* Start o (see nb_op_start) and put its request into slot k.  An entry that
 * declines leaves the slot MPI_REQUEST_NULL. */
static MPI_Comm mark_comm = MPI_COMM_NULL;   /* for nb_mark_native: neither comm nor dup */


static void group_start_op(nb_group *g, int k, nb_op *o, int via, const char *algo)
{
    nb_mark_native(mark_comm);
    int rc = nb_op_start(o, via, algo), cls = MPI_SUCCESS;
    o->native = nb_served_natively();
    if (verbose && wrank == 0) {
        char buf[160];
        printf("%s: start %s%s%s: %s\n", g->what, nb_op_str(o, buf, sizeof buf), algo ? " via " : "",
               algo ? algo : "", o->native ? "native" : nb_last_algorithm());
        fflush(stdout);
    }
    char buf[160];
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    g->reqs[k] = o->req;
    g->op[k] = o;
    g->kind[k] = SLOT_OP;
    if (via == NB_VIA_ALGO) {
        nb_tally *t = &api_tally[o->coll];
        const char *name = nb_last_algorithm();
        if (cls == MPI_ERR_ARG) {
            t->declined++;
            g->kind[k] = SLOT_NULL;
            CHECK(o->req == MPI_REQUEST_NULL, "%s via %s: declined but the request is not MPI_REQUEST_NULL",
                  nb_op_str(o, buf, sizeof buf), algo);
            return;
        }
        t->started++;
        if (name && !strcmp(name, algo)) t->as_entry++;
        else if (name && !strcmp(name, "native")) t->as_native++;
        else {
            t->as_other++;
            snprintf(t->other, sizeof t->other, "%s", name ? name : "(none)");
        }
    } else if (via == NB_VIA_MPI) {
        record_forced(o);
    }
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (rc != MPI_SUCCESS) MPI_Error_string(rc, msg, &len);
    CHECK(rc == MPI_SUCCESS, "%s%s%s: start returned %d (class %d: %s)", nb_op_str(o, buf, sizeof buf),
          algo ? " via " : "", algo ? algo : "", rc, cls, msg);
    CHECK(rc != MPI_SUCCESS || o->req != MPI_REQUEST_NULL, "%s: started, but the request is MPI_REQUEST_NULL",
          nb_op_str(o, buf, sizeof buf));
    if (rc != MPI_SUCCESS) g->kind[k] = SLOT_NULL;
}

static void group_init(nb_group *g, MPI_Comm comm, int seed)
{
    memset(g, 0, sizeof *g);
    g->n = NB_SLOTS;
    for (int k = 0; k < NB_SLOTS; k++) {
        g->reqs[k] = MPI_REQUEST_NULL;
        g->kind[k] = SLOT_NULL;
        g->st[k].MPI_ERROR = NB_UNTOUCHED;
    }
    int p, r;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &r);
    g->to = (r + 1) % p;
    g->from = (r + p - 1) % p;
    for (int i = 0; i < 4; i++) {
        g->sendv[i] = r * 1000 + seed * 10 + i;
        g->recvv[i] = -1;
    }
}

static void group_recv(nb_group *g, int k, MPI_Comm comm)
{
    g->kind[k] = SLOT_RECV;
    CHECK(MPI_Irecv(g->recvv, 4, MPI_INT, g->from, NB_TAG, comm, &g->reqs[k]) == MPI_SUCCESS, "MPI_Irecv");
}

static void group_send(nb_group *g, int k, MPI_Comm comm)
{
    g->kind[k] = SLOT_SEND;
    CHECK(MPI_Isend(g->sendv, 4, MPI_INT, g->to, NB_TAG, comm, &g->reqs[k]) == MPI_SUCCESS, "MPI_Isend");
}

static void mark(nb_group *g, int k, const MPI_Status *st)
{
    if (k < 0 || k >= g->n) {
        CHECK(0, "%s: index %d out of range", g->what, k);
        return;
    }
    g->done[k]++;
    g->st[k] = *st;
}

/* Complete every request of g with the completion call `method`. */
static void group_complete(nb_group *g, int method)
{
    int rc = MPI_SUCCESS, n = g->n, idx, flag, outc, idxs[NB_SLOTS];
    MPI_Status s, ss[NB_SLOTS];
    switch (method) {
    case 0:
        for (int k = 0; k < n && rc == MPI_SUCCESS; k++) {
            int kk = (k + 3) % n;   /* not in start order */
            rc = MPI_Wait(&g->reqs[kk], &g->st[kk]);
            g->done[kk]++;
        }
        break;
    case 1:
        rc = MPI_Waitall(n, g->reqs, g->st);
        for (int k = 0; k < n; k++) g->done[k]++;
        break;
    case 2:
        for (;;) {
            s.MPI_ERROR = NB_UNTOUCHED;
            if ((rc = MPI_Waitany(n, g->reqs, &idx, &s)) != MPI_SUCCESS || idx == MPI_UNDEFINED) break;
            mark(g, idx, &s);
        }
        break;
    case 3:
        for (;;) {
            for (int k = 0; k < n; k++) ss[k].MPI_ERROR = NB_UNTOUCHED;
            if ((rc = MPI_Waitsome(n, g->reqs, &outc, idxs, ss)) != MPI_SUCCESS || outc == MPI_UNDEFINED) break;
            CHECK(outc > 0, "%s: MPI_Waitsome completed %d", g->what, outc);
            for (int i = 0; i < outc; i++) mark(g, idxs[i], &ss[i]);
        }
        break;
    case 4:
        for (int k = n - 1; k >= 0 && rc == MPI_SUCCESS; k--) {
            do {
                NB_PROGRESS();
                rc = MPI_Test(&g->reqs[k], &flag, &g->st[k]);
            } while (rc == MPI_SUCCESS && !flag);
            g->done[k]++;
        }
        break;
    case 5:
        do {
            NB_PROGRESS();
            rc = MPI_Testall(n, g->reqs, &flag, g->st);
        } while (rc == MPI_SUCCESS && !flag);
        for (int k = 0; k < n; k++) g->done[k]++;
        break;
    case 6:
        for (;;) {
            s.MPI_ERROR = NB_UNTOUCHED;
            NB_PROGRESS();
            if ((rc = MPI_Testany(n, g->reqs, &idx, &flag, &s)) != MPI_SUCCESS) break;
            if (flag && idx == MPI_UNDEFINED) break;
            if (flag) mark(g, idx, &s);
        }
        break;
    default:
        for (;;) {
            for (int k = 0; k < n; k++) ss[k].MPI_ERROR = NB_UNTOUCHED;
            NB_PROGRESS();
            if ((rc = MPI_Testsome(n, g->reqs, &outc, idxs, ss)) != MPI_SUCCESS || outc == MPI_UNDEFINED) break;
            for (int i = 0; i < outc; i++) mark(g, idxs[i], &ss[i]);
        }
        break;
    }
    CHECK(rc == MPI_SUCCESS, "%s: %s returned %d", g->what, method_names[method], rc);
}

/* A completed collective's status: not cancelled, MPI_ERROR MPI_SUCCESS (or
 * untouched), and count 0 where topocoll served it (the MPI library's own
 * may leave any count: MPICH 4 does). */
static void check_coll_status(const char *what, const char *op, const MPI_Status *st, int native)
{
    int cancelled = 1, count = -1;
    MPI_Test_cancelled(st, &cancelled);
    MPI_Get_count(st, MPI_BYTE, &count);
    CHECK(!cancelled, "%s: %s: status says cancelled", what, op);
    CHECK(native || count == 0, "%s: %s: status count %d, expected 0", what, op, count);
    CHECK(st->MPI_ERROR == MPI_SUCCESS || st->MPI_ERROR == NB_UNTOUCHED, "%s: %s: status MPI_ERROR %d", what, op,
          st->MPI_ERROR);
}

/* Every result of g against its reference, every request null, statuses. */
static void group_check(nb_group *g, int method)
{
    char buf[160];
    int any = method == 2 || method == 3 || method == 6 || method == 7;
    for (int k = 0; k < g->n; k++) {
        CHECK(g->reqs[k] == MPI_REQUEST_NULL, "%s: request %d not MPI_REQUEST_NULL after %s", g->what, k,
              method_names[method]);
        if (any) {
            int want = g->kind[k] == SLOT_NULL ? 0 : 1;
            CHECK(g->done[k] == want, "%s: request %d returned %d times by %s, expected %d", g->what, k, g->done[k],
                  method_names[method], want);
        }
        if (g->kind[k] == SLOT_OP) {
            nb_op *o = g->op[k];
            size_t at = 0;
            nb_op_str(o, buf, sizeof buf);
            CHECK(nb_op_matches(o, &at), "%s: %s, %s: wrong result at byte %zu of %zu", g->what, buf,
                  method_names[method], at, o->rbytes);
            check_coll_status(g->what, buf, &g->st[k], o->native);
        } else if (g->kind[k] == SLOT_RECV) {
            int count = -1, ok = 1;
            for (int i = 0; i < 4; i++) ok &= g->recvv[i] == g->from * 1000 + (g->sendv[i] - wrank * 1000);
            MPI_Get_count(&g->st[k], MPI_INT, &count);
            CHECK(ok, "%s: point-to-point data from %d wrong (%d %d ...)", g->what, g->from, g->recvv[0], g->recvv[1]);
            CHECK(count == 4 && g->st[k].MPI_SOURCE == g->from && g->st[k].MPI_TAG == NB_TAG,
                  "%s: receive status count %d source %d tag %d", g->what, count, g->st[k].MPI_SOURCE,
                  g->st[k].MPI_TAG);
        }
    }
}

/* ---- --mode=mpi: MPI_I<Coll> ------------------------------------------------- */

/* Group `round` through MPI_I<Coll>: collectives round, round + 6 and
 * round + 12 on comm, round + 3 on dup; counts, types, in place and roots
 * rotating so that 85 rounds give every collective every count in each
 * position. */
static void run_mpi_rounds(MPI_Comm comm, MPI_Comm dup, int rounds)
{
    for (int rd = 0; rd < rounds; rd++) {
        nb_group g;
        nb_op ops[4];
        int method = NB_METHOD(rd);
        group_init(&g, comm, rd);
        snprintf(g.what, sizeof g.what, "MPI_I<Coll> group %d", rd);
        tc_watch(wrank, watch_s, g.what);
        for (int j = 0; j < 3; j++)
            nb_op_setup(&ops[j], (rd + 6 * j) % NB_NCOLL, nb_counts[(rd / NB_NCOLL + j) % NB_NCOUNTS], (rd + j) % 3,
                        (rd / 2 + j) % 2 ? -1 : 0, (rd / 3 + j) % 2, rd * 4 + j, comm);
        nb_op_setup(&ops[3], (rd + 3) % NB_NCOLL, nb_counts[(rd / NB_NCOLL + 3) % NB_NCOUNTS], (rd + 2) % 3,
                    rd % 2 ? 0 : -1, (rd / 5) % 2, rd * 4 + 3, dup);
        /* slots: op0, null, recv, op1, op3 (dup), null, send, op2 (a
         * collective left out by --only / --exclude: a null slot) */
        if (coll_on[ops[0].coll]) group_start_op(&g, 0, &ops[0], NB_VIA_MPI, NULL);
        group_recv(&g, 2, comm);
        if (coll_on[ops[1].coll]) group_start_op(&g, 3, &ops[1], NB_VIA_MPI, NULL);
        if (coll_on[ops[3].coll]) group_start_op(&g, 4, &ops[3], NB_VIA_MPI, NULL);
        group_send(&g, 6, comm);
        if (coll_on[ops[2].coll]) group_start_op(&g, 7, &ops[2], NB_VIA_MPI, NULL);
        group_complete(&g, method);
        group_check(&g, method);
        for (int j = 0; j < 4; j++) nb_op_free(&ops[j]);
    }
}

/* ---- --mode=api: every catalog entry ------------------------------------------ */

#ifndef NB_MPI_ONLY
static void run_api_entries(MPI_Comm comm, MPI_Comm dup)
{
    int gi = 0;
    for (int c = 0; c < NB_NCOLL; c++) {
        int na = coll_on[c] ? topocoll_algorithm_count((topocoll_coll)c) : 0;
        for (int a = 0; a < na; a++, gi++) {
            const char *name = topocoll_algorithm_name((topocoll_coll)c, a);
            nb_group g;
            nb_op ops[4];
            int method = NB_METHOD(gi);
            group_init(&g, comm, gi);
            snprintf(g.what, sizeof g.what, "topocoll_i%s_algorithm(\"%s\")", nb_coll_names[c], name);
            tc_watch(wrank, watch_s, g.what);
            for (int j = 0; j < 3; j++)
                nb_op_setup(&ops[j], c, nb_counts[(a + j + c) % NB_NCOUNTS], (a + j) % 3, (a + j) % 2 ? -1 : 0,
                            (a / 2 + j) % 2, gi * 4 + j, comm);
            nb_op_setup(&ops[3], (c + 5) % NB_NCOLL, nb_counts[(a + c) % 4], (a + 1) % 3, a % 2 ? 0 : -1, a % 2,
                        gi * 4 + 3, dup);
            group_start_op(&g, 0, &ops[0], NB_VIA_ALGO, name);
            group_recv(&g, 2, comm);
            group_start_op(&g, 3, &ops[1], NB_VIA_ALGO, name);
            if (coll_on[ops[3].coll]) group_start_op(&g, 4, &ops[3], NB_VIA_API, NULL);
            group_send(&g, 6, comm);
            group_start_op(&g, 7, &ops[2], NB_VIA_ALGO, name);
            group_complete(&g, method);
            group_check(&g, method);
            for (int j = 0; j < 4; j++) nb_op_free(&ops[j]);
        }
    }
    for (int c = 0; c < NB_NCOLL && wrank == 0; c++) {
        const nb_tally *t = &api_tally[c];
        if (!coll_on[c]) continue;
        printf("api %s: %d entries, %ld starts: %ld served by the entry named, %ld by native, %ld by another (%s), "
               "%ld declined\n",
               nb_coll_names[c], topocoll_algorithm_count((topocoll_coll)c), t->started, t->as_entry, t->as_native,
               t->as_other, t->as_other ? t->other : "-", t->declined);
    }
    CHECK(1, "api entries ran");
}
#endif

/* ---- MPI_Request_free and MPI_Cancel on active operations --------------------- */

static nb_op freed_ops[2];   /* their buffers stay allocated until the end */
static int nfreed;

/* MPI_Request_free on an active allreduce started through `via` (algo: the
 * entry named, for NB_VIA_ALGO). */
static void request_free_case(MPI_Comm comm, int via, const char *algo)
{
    nb_op bar, *fo = &freed_ops[nfreed++];
    char buf[160];
    tc_watch(wrank, watch_s, "MPI_Request_free on an active operation");
    nb_op_setup(fo, TOPOCOLL_ALLREDUCE, 1000, NB_INT, 0, 0, 4242 + nfreed, comm);
    nb_op_setup(&bar, TOPOCOLL_BARRIER, 0, NB_INT, 0, 0, 0, comm);
    nb_mark_native(bar.comm);
    int rc = nb_op_start(fo, via, algo);
    CHECK(rc == MPI_SUCCESS, "request free case: start returned %d", rc);
    int native = nb_served_natively(), cls = MPI_SUCCESS;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Request_free(&fo->req);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    if (rc != MPI_SUCCESS && native) {
        /* the MPI library's own operation: Open MPI 4.1 refuses to free an
         * active nonblocking collective */
        if (wrank == 0)
            printf("MPI_Request_free on an active operation%s%s: refused by the MPI library's own (class %d), "
                   "completed with MPI_Wait instead\n", algo ? " via " : "", algo ? algo : "", cls);
        SKIP();
        CHECK(nb_wait(&fo->req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "MPI_Wait after a refused free");
    } else {
        CHECK(rc == MPI_SUCCESS, "MPI_Request_free of an active operation served by topocoll returned %d", rc);
        CHECK(fo->req == MPI_REQUEST_NULL, "MPI_Request_free left the request non-null");
    }
    rc = nb_op_start(&bar, via == NB_VIA_ALGO ? NB_VIA_API : via, NULL);
    CHECK(rc == MPI_SUCCESS, "barrier after the freed operation: start returned %d", rc);
    CHECK(nb_wait(&bar.req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "MPI_Wait on the barrier after the free");
    /* the freed operation completes in the background: its buffer must
     * reach the result while this rank makes MPI calls */
    double t0 = MPI_Wtime();
    int ok = 0, flag;
    while (!(ok = nb_op_matches(fo, NULL)) && MPI_Wtime() - t0 < 30) {
        MPI_Request none = MPI_REQUEST_NULL;
        nb_progress();
        MPI_Test(&none, &flag, MPI_STATUS_IGNORE);
        MPI_Iprobe(MPI_ANY_SOURCE, 999, comm, &flag, MPI_STATUS_IGNORE);
        sched_yield();
    }
    CHECK(ok, "freed %s: its receive buffer never held the result", nb_op_str(fo, buf, sizeof buf));
    MPI_Barrier(comm);
    nb_op_free(&bar);
}

/* MPI_Cancel on a running operation must fail.  Ranks other than 0 start
 * an allgather and cancel it before rank 0 starts its own (a barrier on
 * another communicator between), so theirs is running for sure; rank 0's
 * may have ended by the time it cancels (MPI calls the cancel of any
 * collective erroneous: either answer is taken there). */
static void cancel_case(MPI_Comm comm, int via)
{
    nb_op o;
    char buf[160];
    MPI_Status st;
    int rc = MPI_SUCCESS, native = 1, crc = MPI_SUCCESS;
    tc_watch(wrank, watch_s, "MPI_Cancel on an active operation");
    nb_op_setup(&o, TOPOCOLL_ALLGATHER, 70000, NB_DOUBLE, 0, 0, 31, comm);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    nb_mark_native(comm);
    for (int turn = 0; turn < 2; turn++) {
        if ((wrank == 0) == (turn == 1)) {
            rc = nb_op_start(&o, via, NULL);
            native = nb_served_natively();
            CHECK(rc == MPI_SUCCESS, "cancel case: start returned %d", rc);
            crc = MPI_Cancel(&o.req);
        }
        if (turn == 0) MPI_Barrier(mark_comm);
    }
    nb_op_str(&o, buf, sizeof buf);
    CHECK(crc != MPI_SUCCESS || wrank == 0, "MPI_Cancel on a running %s%s returned MPI_SUCCESS, expected an error",
          buf, native ? " (the MPI library's own)" : "");
    CHECK(o.req != MPI_REQUEST_NULL, "MPI_Cancel made the request null");
    st.MPI_ERROR = NB_UNTOUCHED;
    rc = nb_wait(&o.req, &st);
    CHECK(rc == MPI_SUCCESS, "MPI_Wait after MPI_Cancel returned %d", rc);
    CHECK(nb_op_matches(&o, NULL), "%s: wrong result after MPI_Cancel", buf);
    /* the MPI library's own (Open MPI 4.1) leaves the refused cancel's
     * error in the status */
    if (!native) check_coll_status("after MPI_Cancel", buf, &st, 0);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    nb_op_free(&o);
}

/* ---- persistent ---------------------------------------------------------------- */

/* The persistent operations: these six, or those of --persistent. */
#define NB_NPERS 6
static int pers_colls[NB_NPERS] = { TOPOCOLL_ALLREDUCE, TOPOCOLL_BCAST, TOPOCOLL_ALLGATHER, TOPOCOLL_ALLTOALL,
                                    TOPOCOLL_BARRIER, TOPOCOLL_REDUCE };
static int npers = NB_NPERS;

#if !defined(NB_MPI_ONLY) || TC_HAVE_MPI_PERSISTENT

enum { PERS_TOPOCOLL, PERS_MPI };
#ifdef MPICH_VERSION
/* Whether persistent requests are the MPI library's own (MPI_<Coll>_init
 * of MPI-4): where topocoll is not loaded, or linked without the
 * interposer.  Through the interposer they are topocoll's (its operation,
 * or the MPI library's nonblocking collective started each time). */
static int pers_library_own(void)
{
#ifdef NB_LIB_ONLY
    return 1;
#else
    return nb_last_algorithm() == NULL;
#endif
}
#endif

/* MPICH 4.0's own persistent collectives: a derived type loses a reference
 * at each start (wrong results from the second start on, then an abort in
 * MPI_Request_free), and MPI_Allgather_init sends from the wrong place
 * from its second start on.  Where they serve, int and double only and no
 * allgather. */
#ifdef MPICH_VERSION
#define PERS_MPICH_OWN() pers_library_own()
#else
#define PERS_MPICH_OWN() 0
#endif

static int pers_init(nb_op *o, int kind, MPI_Request *req)
{
    switch (o->coll) {
#if !defined(NB_MPI_ONLY) && TC_HAVE_MPI_PERSISTENT
#define NB_INIT(UPPER, lower, Mpi, SHAPE)                                                        \
    case TOPOCOLL_##UPPER:                                                                       \
        return kind == PERS_TOPOCOLL ? topocoll_##lower##_init(NB_ARGS_##UPPER(o), MPI_INFO_NULL, req) \
                                     : TC_MPI_INIT(Mpi)(NB_ARGS_##UPPER(o), MPI_INFO_NULL, req);
#elif !defined(NB_MPI_ONLY)
#define NB_INIT(UPPER, lower, Mpi, SHAPE)                                                        \
    case TOPOCOLL_##UPPER:                                                                       \
        (void)kind;                                                                              \
        return topocoll_##lower##_init(NB_ARGS_##UPPER(o), MPI_INFO_NULL, req);
#elif TC_HAVE_MPI_PERSISTENT
#define NB_INIT(UPPER, lower, Mpi, SHAPE)                                                        \
    case TOPOCOLL_##UPPER:                                                                       \
        (void)kind;                                                                              \
        return TC_MPI_INIT(Mpi)(NB_ARGS_##UPPER(o), MPI_INFO_NULL, req);
#endif
        TOPOCOLL_COLLS(NB_INIT)
#undef NB_INIT
    default: return MPI_ERR_UNSUPPORTED_OPERATION;
    }
}

static int pers_start(int how, int n, MPI_Request *reqs, int kind)
{
    int rc = MPI_SUCCESS;
#ifdef NB_LIB_ONLY
    if (kind == PERS_TOPOCOLL) {   /* MPI_Start is the MPI library's here */
        if (how == 2) return topocoll_startall(n, reqs);
        for (int k = 0; k < n && rc == MPI_SUCCESS; k++) rc = topocoll_start(&reqs[k]);
        return rc;
    }
#else
    (void)kind;
#endif
    if (how == 2) return MPI_Startall(n, reqs);
    for (int k = 0; k < n && rc == MPI_SUCCESS; k++) {
#ifndef NB_MPI_ONLY
        if (how == 0) {
            rc = topocoll_start(&reqs[k]);
            continue;
        }
#endif
        rc = MPI_Start(&reqs[k]);
    }
    return rc;
}

static int nb_waitall(int n, MPI_Request *reqs, MPI_Status *st)
{
#ifdef NB_LIB_ONLY
    /* one MPI_Test loop per request: MPICH 4.0's MPI_Testall on its own
     * persistent collectives returns MPI_ERR_IN_STATUS with every status
     * MPI_SUCCESS */
    int rc = MPI_SUCCESS;
    for (int k = 0; k < n && rc == MPI_SUCCESS; k++) rc = nb_wait(&reqs[k], &st[k]);
    return rc;
#else
    return MPI_Waitall(n, reqs, st);
#endif
}

static void run_persistent(MPI_Comm comm, int kind)
{
    const int *colls = pers_colls;
    int npc = npers;
    static const char *const start_names[3] = { "topocoll_start", "MPI_Start", "MPI_Startall" };
    const char *kname = kind == PERS_TOPOCOLL ? "topocoll_<coll>_init" : TC_MPI_INIT_NAME;
    nb_op ops[NB_NPERS];
    MPI_Request reqs[NB_NPERS + 2];
    int psend[4], precv[4], p, r;
    int unsupported = 0;
    char buf[160], what[200];
    tc_watch(wrank, watch_s, kname);
    for (int k = 0; k < npc; k++) {
        nb_op_setup(&ops[k], colls[k], nb_counts[(k + 1) % NB_NCOUNTS], k % (PERS_MPICH_OWN() ? 2 : 3),
                    k % 2 ? -1 : 0, k % 2, 0, comm);
        reqs[k] = MPI_REQUEST_NULL;
        nb_mark_native(mark_comm);
        int rc = pers_init(&ops[k], kind, &reqs[k]), cls = MPI_SUCCESS;
        ops[k].native = nb_served_natively();
        if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
        if (cls == MPI_ERR_UNSUPPORTED_OPERATION) unsupported++;
        else CHECK(rc == MPI_SUCCESS && reqs[k] != MPI_REQUEST_NULL, "%s %s: returned %d", kname,
                   nb_op_str(&ops[k], buf, sizeof buf), rc);
    }
    if (unsupported) {
        if (wrank == 0)
            printf("persistent %s: skipped, not supported here (%d of %d calls: MPI_ERR_UNSUPPORTED_OPERATION)\n",
                   kname, unsupported, npc);
        SKIP();
        for (int k = 0; k < npc; k++) {
            if (reqs[k] != MPI_REQUEST_NULL) MPI_Request_free(&reqs[k]);
            nb_op_free(&ops[k]);
        }
        MPI_Barrier(comm);
        return;
    }
#ifdef MPICH_VERSION
    /* MPICH 4.0's own persistent allgather: left out where it serves */
    for (int k = 0; k < npc; k++)
        if (ops[k].coll == TOPOCOLL_ALLGATHER && PERS_MPICH_OWN()) {
            if (wrank == 0) printf("persistent %s allgather: the MPI library's own, left out\n", kname);
            MPI_Request_free(&reqs[k]);
            nb_op_free(&ops[k]);
            for (int m = k + 1; m < npc; m++) ops[m - 1] = ops[m], reqs[m - 1] = reqs[m];
            npc--, k--;
        }
#endif
    /* and a persistent point-to-point pair, started and completed with them */
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &r);
    MPI_Recv_init(precv, 4, MPI_INT, (r + p - 1) % p, NB_TAG + 1, comm, &reqs[npc]);
    MPI_Send_init(psend, 4, MPI_INT, (r + 1) % p, NB_TAG + 1, comm, &reqs[npc + 1]);
    const int n = npc + 2;
    for (int s = 0; s < 5; s++) {
        int how = s % 3, done = (s + 1) % 3, rc = MPI_SUCCESS, flag;
        MPI_Status st[NB_NPERS + 2];
        if (kind == PERS_MPI && how == 0) how = 1;   /* topocoll_start is topocoll's */
        snprintf(what, sizeof what, "%s, start %d (%s)", kname, s + 1, start_names[how]);
#ifdef NB_LIB_ONLY
        if (kind == PERS_TOPOCOLL)
            snprintf(what, sizeof what, "%s, start %d (%s)", kname, s + 1,
                     how == 2 ? "topocoll_startall" : "topocoll_start");
#endif
        for (int k = 0; k < npc; k++) nb_op_fill(&ops[k], 100 + s * 10 + k);
        for (int k = 0; k < n; k++) st[k].MPI_ERROR = NB_UNTOUCHED;
        for (int i = 0; i < 4; i++) psend[i] = r * 1000 + s * 10 + i, precv[i] = -1;
        rc = pers_start(how, n, reqs, kind);
        CHECK(rc == MPI_SUCCESS, "%s: returned %d", what, rc);
        if (done == 0)
            for (int k = 0; k < n && rc == MPI_SUCCESS; k++) rc = nb_wait(&reqs[k], &st[k]);
        else if (done == 1)
            for (int k = n - 1; k >= 0 && rc == MPI_SUCCESS; k--) {
                do {
                    NB_PROGRESS();
                    rc = MPI_Test(&reqs[k], &flag, &st[k]);
                } while (rc == MPI_SUCCESS && !flag);
            }
        else rc = nb_waitall(n, reqs, st);
        CHECK(rc == MPI_SUCCESS, "%s: completion returned %d", what, rc);
        for (int k = 0; k < npc; k++) {
            size_t at = 0;
            nb_op_str(&ops[k], buf, sizeof buf);
            CHECK(reqs[k] != MPI_REQUEST_NULL, "%s: %s: the persistent request became MPI_REQUEST_NULL", what, buf);
            CHECK(nb_op_matches(&ops[k], &at), "%s: %s: wrong result at byte %zu", what, buf, at);
            check_coll_status(what, buf, &st[k], ops[k].native);
        }
        int ok = 1, count = -1, from = (r + p - 1) % p;
        for (int i = 0; i < 4; i++) ok &= precv[i] == from * 1000 + s * 10 + i;
        MPI_Get_count(&st[npc], MPI_INT, &count);
        CHECK(ok && reqs[npc] != MPI_REQUEST_NULL && reqs[npc + 1] != MPI_REQUEST_NULL,
              "%s: persistent point-to-point: data from %d wrong (%d ...) or a request null", what, from, precv[0]);
        CHECK(count == 4 && st[npc].MPI_SOURCE == from && st[npc].MPI_TAG == NB_TAG + 1,
              "%s: persistent receive's status: count %d source %d tag %d", what, count, st[npc].MPI_SOURCE,
              st[npc].MPI_TAG);
    }
    MPI_Request_free(&reqs[npc]);
    MPI_Request_free(&reqs[npc + 1]);
    for (int k = 0; k < npc; k++) {
        CHECK(MPI_Request_free(&reqs[k]) == MPI_SUCCESS && reqs[k] == MPI_REQUEST_NULL,
              "%s: MPI_Request_free of an inactive persistent request", kname);
        nb_op_free(&ops[k]);
    }
    if (wrank == 0)
        printf("persistent %s: %d collectives and a point-to-point pair x 5 starts checked\n", kname, npc);
}
#endif

/* ---- main ------------------------------------------------------------------------ */

static int coll_by_name(const char *name, size_t len)
{
    for (int c = 0; c < NB_NCOLL; c++)
        if (strlen(nb_coll_names[c]) == len && !strncmp(nb_coll_names[c], name, len)) return c;
    return -1;
}

/* --only=COLL[,COLL...] / --exclude=COLL[,COLL...]: coll_on */
static int parse_colls(const char *list, int on)
{
    for (int c = 0; c < NB_NCOLL; c++) coll_on[c] = !on;
    while (*list) {
        const char *end = strchr(list, ',');
        if (!end) end = list + strlen(list);
        int c = coll_by_name(list, (size_t)(end - list));
        if (c < 0) return -1;
        coll_on[c] = on;
        list = *end ? end + 1 : end;
    }
    return 0;
}

/* --persistent=COLL[,COLL...]: the persistent operations (of the six) */
static int parse_persistent(const char *list)
{
    npers = 0;
    while (*list && npers < NB_NPERS) {
        const char *end = strchr(list, ',');
        if (!end) end = list + strlen(list);
        int c = coll_by_name(list, (size_t)(end - list));
        if (c != TOPOCOLL_ALLREDUCE && c != TOPOCOLL_BCAST && c != TOPOCOLL_ALLGATHER && c != TOPOCOLL_ALLTOALL &&
            c != TOPOCOLL_BARRIER && c != TOPOCOLL_REDUCE)
            return -1;
        pers_colls[npers++] = c;
        list = *end ? end + 1 : end;
    }
    return npers ? 0 : -1;
}

static int parse_forced(const char *list)
{
    while (*list && nforced < 8) {
        const char *eq = strchr(list, '='), *end = strchr(list, ',');
        if (!end) end = list + strlen(list);
        if (!eq || eq > end) return -1;
        int c = coll_by_name(list, (size_t)(eq - list));
        if (c < 0 || end - eq - 1 >= 64) return -1;
        forced[nforced].coll = c;
        snprintf(forced[nforced].entry, sizeof forced[nforced].entry, "%.*s", (int)(end - eq - 1), eq + 1);
        nforced++;
        list = *end ? end + 1 : end;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int do_mpi = 1, do_api = 1, rounds = 85;
#ifdef NB_MPI_ONLY
    do_api = 0;
#endif
#ifdef NB_LIB_ONLY
    do_mpi = 0;   /* MPI_I<Coll> is the MPI library's own here */
#endif
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    for (int c = 0; c < NB_NCOLL; c++) coll_on[c] = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mode=mpi")) do_mpi = 1, do_api = 0;
        else if (!strcmp(argv[i], "--mode=api")) do_mpi = 0, do_api = 1;
        else if (!strcmp(argv[i], "--mode=all")) do_mpi = do_api = 1;
        else if (!strncmp(argv[i], "--forced=", 9) && !parse_forced(argv[i] + 9)) continue;
        else if (!strcmp(argv[i], "--require-forced")) require_forced = 1;
        else if (!strncmp(argv[i], "--persistent=", 13) && !parse_persistent(argv[i] + 13)) continue;
        else if (!strcmp(argv[i], "--verbose")) verbose = 1;
        else if (!strncmp(argv[i], "--only=", 7) && !parse_colls(argv[i] + 7, 1)) continue;
        else if (!strncmp(argv[i], "--exclude=", 10) && !parse_colls(argv[i] + 10, 0)) continue;
        else if (!strncmp(argv[i], "--timeout=", 10)) watch_s = (unsigned)atoi(argv[i] + 10);
        else if (!strncmp(argv[i], "--rounds=", 9)) rounds = atoi(argv[i] + 9);
        else {
            if (wrank == 0) fprintf(stderr, "unknown argument %s\n", argv[i]);
            MPI_Finalize();
            return 2;
        }
    }
#ifdef NB_MPI_ONLY
    if (do_api) {
        if (wrank == 0) fprintf(stderr, "--mode=api needs topocoll linked\n");
        MPI_Finalize();
        return 2;
    }
#endif
    tc_watchdog_init();
    nb_types_init();
    MPI_Comm comm, dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_dup(comm, &dup);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    MPI_Comm_dup(MPI_COMM_WORLD, &mark_comm);
    /* a blocking collective by name on each: topocoll makes the
     * communicator's context there (a nonblocking call never does, and goes
     * to the MPI library's own without one; calls by selection make it only
     * after TOPOCOLL_CONTEXT_AFTER of them) */
    nb_mark_native(comm);
    nb_mark_native(dup);
    nb_mark_native(mark_comm);
    int via = do_mpi ? NB_VIA_MPI : NB_VIA_API;
    if (wrank == 0)
        printf("np %d, %s, topocoll %s\n", wsize, do_mpi && do_api ? "MPI_I<Coll> and the API" : do_mpi ? "MPI_I<Coll>" : "the API",
               nb_last_algorithm() ? "loaded" : "not loaded");
    if (do_mpi) run_mpi_rounds(comm, dup, rounds);
#ifndef NB_MPI_ONLY
    if (do_api) run_api_entries(comm, dup);
#endif
    request_free_case(comm, via, NULL);
#ifndef NB_MPI_ONLY
    request_free_case(comm, NB_VIA_ALGO, "recursive_doubling");
#endif
    cancel_case(comm, via);
#ifndef NB_MPI_ONLY
    run_persistent(comm, PERS_TOPOCOLL);
#endif
#if TC_HAVE_MPI_PERSISTENT
    run_persistent(comm, PERS_MPI);
#else
    if (wrank == 0) printf("persistent MPI_<Coll>_init: not in this MPI library (MPI %d.%d)\n", MPI_VERSION,
                           MPI_SUBVERSION);
#endif
    tc_watch(wrank, watch_s, "the summary");
    for (int f = 0; f < nforced; f++) {
        if (wrank == 0)
            printf("forced %s=%s: %ld MPI_I%s starts, %ld served by %s, %ld by native, %ld by another (%s)\n",
                   nb_coll_names[forced[f].coll], forced[f].entry, forced[f].starts, nb_coll_names[forced[f].coll],
                   forced[f].as_entry, forced[f].entry, forced[f].as_native, forced[f].as_other,
                   forced[f].as_other ? forced[f].other : "-");
        CHECK(forced[f].starts > 0, "forced %s: no start of it", nb_coll_names[forced[f].coll]);
        /* the forced entry serves, or declines to the MPI library's own:
         * never another entry */
        CHECK(forced[f].as_other == 0, "forced %s=%s: %ld starts served by another entry (%s)",
              nb_coll_names[forced[f].coll], forced[f].entry, forced[f].as_other, forced[f].other);
        if (require_forced)
            CHECK(forced[f].as_entry >= 2, "forced %s=%s: %ld of %ld starts served by it, expected at least 2",
                  nb_coll_names[forced[f].coll], forced[f].entry, forced[f].as_entry, forced[f].starts);
    }
    MPI_Comm_free(&dup);
    MPI_Comm_free(&comm);
    MPI_Comm_free(&mark_comm);
    nb_types_free();
    int status = tc_test_mpi_summary(0);
    for (int k = 0; k < nfreed; k++) nb_op_free(&freed_ops[k]);
    alarm(0);
    MPI_Finalize();
    return status;
}
