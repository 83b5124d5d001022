/*
 * Nonblocking collectives from several threads at once: MPI_THREAD_MULTIPLE,
 * two threads per rank, each on a duplicate of MPI_COMM_WORLD of its own,
 * each running groups of three operations (MPI_I<Coll> and topocoll_i<coll>
 * in turn; collectives, counts, types, in place and roots from a sequence
 * that is the same on every rank and differs by thread) completed with
 * MPI_Waitall, MPI_Testall, MPI_Waitany or MPI_Wait on each, every result
 * checked against a reference computed locally (tests/mpi/nb_ops.h).
 * ctest runs it with and without TOPOCOLL_PROGRESS=thread (the progress
 * thread).  Where the MPI library does not provide MPI_THREAD_MULTIPLE the
 * program says so and exits with status 77 (ctest: skipped).  A watchdog
 * ends a hang with a message.
 *
 *   --groups=N (40 per thread)  --timeout=S (90, the whole run)
 *   --exclude=COLL  a collective left out
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nb_ops.h"
#include "../common/mpi_harness.h"
#include "../common/watchdog.h"

#define NTHREADS 2

static int wrank, wsize, ngroups = 40;
static int excluded = -1;   /* --exclude=COLL: a collective left out */

typedef struct worker {
    int id;
    MPI_Comm comm;
    long passed, failed;
    pthread_t th;
} worker;

static void wcheck(worker *w, int ok, const char *what)
{
    if (ok) {
        w->passed++;
        return;
    }
    if (w->failed++ < 10) printf("FAIL rank %d thread %d: %s\n", wrank, w->id, what);
    fflush(stdout);
}

static const int counts[4] = { 0, 1, 7, 1000 };

static void *work(void *arg)
{
    worker *w = arg;
    char buf[160], line[256];
    for (int g = 0; g < ngroups; g++) {
        nb_op ops[3];
        MPI_Request reqs[3];
        MPI_Status st[3];
        int rc = MPI_SUCCESS, method = (g + w->id) % 4;
        for (int j = 0; j < 3; j++) {
            int coll = (g * 5 + j * 7 + w->id * 3) % NB_NCOLL;
            nb_op_setup(&ops[j], coll, counts[(g + j) % 4], (g + j + w->id) % 3, (g + j) % 2 ? -1 : 0,
                        (g / 2 + j) % 2, w->id * 1000 + g * 3 + j, w->comm);
            if (coll == excluded) {
                reqs[j] = MPI_REQUEST_NULL;
                continue;
            }
            int src = nb_op_start(&ops[j], (g + j) % 2 ? NB_VIA_API : NB_VIA_MPI, NULL);
            snprintf(line, sizeof line, "group %d: start of %s returned %d", g, nb_op_str(&ops[j], buf, sizeof buf),
                     src);
            wcheck(w, src == MPI_SUCCESS, line);
            reqs[j] = ops[j].req;
        }
        if (method == 0) rc = MPI_Waitall(3, reqs, st);
        else if (method == 1) {
            int flag = 0;
            do rc = MPI_Testall(3, reqs, &flag, st);
            while (rc == MPI_SUCCESS && !flag);
        } else if (method == 2) {
            int idx = 0;
            do rc = MPI_Waitany(3, reqs, &idx, st);
            while (rc == MPI_SUCCESS && idx != MPI_UNDEFINED);
        } else
            for (int j = 2; j >= 0 && rc == MPI_SUCCESS; j--) rc = MPI_Wait(&reqs[j], &st[j]);
        snprintf(line, sizeof line, "group %d: completion (%d) returned %d", g, method, rc);
        wcheck(w, rc == MPI_SUCCESS, line);
        for (int j = 0; j < 3; j++) {
            size_t at = 0;
            snprintf(line, sizeof line, "group %d: %s: request not null", g, nb_op_str(&ops[j], buf, sizeof buf));
            wcheck(w, reqs[j] == MPI_REQUEST_NULL, line);
            int ok = ops[j].coll == excluded || nb_op_matches(&ops[j], &at);
            snprintf(line, sizeof line, "group %d: %s: wrong result at byte %zu", g, buf, at);
            wcheck(w, ok, line);
            nb_op_free(&ops[j]);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = MPI_THREAD_SINGLE;
    unsigned timeout = 90;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--groups=", 9)) ngroups = atoi(argv[i] + 9);
        else if (!strncmp(argv[i], "--timeout=", 10)) timeout = (unsigned)atoi(argv[i] + 10);
        else if (!strncmp(argv[i], "--exclude=", 10))
            for (int c = 0; c < NB_NCOLL; c++)
                if (!strcmp(nb_coll_names[c], argv[i] + 10)) excluded = c;
    }
    if (provided < MPI_THREAD_MULTIPLE) {
        if (wrank == 0)
            printf("skipped: the MPI library provides thread level %d, not MPI_THREAD_MULTIPLE (%d)\n", provided,
                   MPI_THREAD_MULTIPLE);
        fflush(stdout);
        MPI_Finalize();
        return 77;
    }
    tc_watchdog_init();
    tc_watch(wrank, timeout, "the threads' nonblocking collectives");
    nb_types_init();
    const char *progress = getenv("TOPOCOLL_PROGRESS");
    if (wrank == 0)
        printf("np %d, %d threads x %d groups, TOPOCOLL_PROGRESS=%s\n", wsize, NTHREADS, ngroups,
               progress ? progress : "(unset)");
    worker w[NTHREADS];
    for (int t = 0; t < NTHREADS; t++) {
        memset(&w[t], 0, sizeof w[t]);
        w[t].id = t;
        MPI_Comm_dup(MPI_COMM_WORLD, &w[t].comm);
        MPI_Comm_set_errhandler(w[t].comm, MPI_ERRORS_RETURN);
        nb_mark_native(w[t].comm);   /* a call by name: topocoll's context (nonblocking calls never make one) */
    }
    for (int t = 0; t < NTHREADS; t++)
        if (pthread_create(&w[t].th, NULL, work, &w[t]) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    for (int t = 0; t < NTHREADS; t++) {
        pthread_join(w[t].th, NULL);
        tc_test_counts_global.passed += w[t].passed;
        tc_test_counts_global.failed += w[t].failed;
        MPI_Comm_free(&w[t].comm);
    }
    nb_types_free();
    int status = tc_test_mpi_summary(0);
    alarm(0);
    MPI_Finalize();
    return status;
}
