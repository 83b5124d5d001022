/*
 * Learning on scratch buffers (docs/learning.md, "Persistent requests" and
 * "Nonblocking calls"), run on fresh duplicates of MPI_COMM_WORLD (no key
 * learned before), with the default patience and payback.
 *
 * Persistent part: an init by selection on a key whose learner has not
 * settled runs blocking calls of the request's shape on scratch buffers
 * until it settles, then times the persistent forms of its fastest entries.
 *   - the init leaves the user's buffers untouched (send data and a
 *     sentinel in the receive buffer are the same after it);
 *   - rank 0's explain line says the key settled at the init (stderr is
 *     captured around the init: TOPOCOLL_EXPLAIN=1 is set by the program),
 *     or, for a user-defined op, that nothing ran on scratch data;
 *   - five starts give the right results, each served by the same entry on
 *     every rank (topocoll_last_algorithm()), not the MPI library's own;
 *     where the init timed the persistent forms of several entries, the
 *     one its explain line names.
 * Nonblocking part: RACE_CALLS nonblocking calls of a key (more than the
 * patience), each checked; then an MPI_Iallreduce is started, and a
 * blocking MPI_Barrier runs the key's race (rank 0's explain line, captured
 * around the barrier, names the winner); the MPI_Iallreduce then completes
 * with the right sum; AFTER_CALLS more nonblocking calls are right, served
 * by the same entry on every rank, and by the race's winner.  A user-defined
 * op is not raced (no race line).
 * Cases: alltoall and allgather of ints, bcast from the last rank, allreduce
 * of doubles in place, reduce of doubles (MAX) to rank 0, and allreduce
 * with a user-defined op.
 *
 * Rank 0 prints "N passed, M failed".
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "topocoll.h"
#include "common/mpi_harness.h"

static int rank, size;

/* ---- rank 0's stderr captured around the init ------------------------------ */

static int saved_fd = -1;
static char capture_path[64];

static void capture_begin(void)
{
    if (rank != 0) return;
    fflush(stderr);
    snprintf(capture_path, sizeof capture_path, "/tmp/tc_ls_XXXXXX");
    int fd = mkstemp(capture_path);
    if (fd < 0) return;
    saved_fd = dup(2);
    dup2(fd, 2);
    close(fd);
}

/* What rank 0's captured lines said (the same on every rank): bit 0 a line
 * holding a, bit 1 one holding b; raced: the entry named by a line holding
 * c ("-> NAME (..."), "" where none did; bit 2: that line lists the forms
 * timed after c (": NAME TIME ...") with raced among them. */
static int capture_end(const char *a, const char *b, const char *c, char raced[64])
{
    int found = 0;
    raced[0] = 0;
    if (rank == 0 && saved_fd >= 0) {
        fflush(stderr);
        dup2(saved_fd, 2);
        close(saved_fd);
        saved_fd = -1;
        FILE *f = fopen(capture_path, "r");
        char line[1024];
        while (f && fgets(line, sizeof line, f)) {
            if (strstr(line, a)) found |= 1;
            if (strstr(line, b)) found |= 2;
            const char *arrow = strstr(line, "-> ");
            const char *timed = strstr(line, c);
            if (!timed || !arrow) continue;
            sscanf(arrow + 3, "%63[^ (]", raced);
            /* the race's candidates, each with its time: the winner among them */
            if (strncmp(timed + strlen(c), ": ", 2) == 0 && strstr(timed, raced)) found |= 4;
        }
        if (f) fclose(f);
        unlink(capture_path);
    }
    PMPI_Bcast(&found, 1, MPI_INT, 0, MPI_COMM_WORLD);
    PMPI_Bcast(raced, 64, MPI_CHAR, 0, MPI_COMM_WORLD);
    return found;
}

/* ---- the cases ------------------------------------------------------------------- */

enum { STARTS = 5 };

typedef struct pl_case {
    const char *name;
    topocoll_coll coll;
    int count;        /* per rank (alltoall, allgather: per block) */
    int user_op;      /* allreduce with a user-defined op: not learned at the init */
} pl_case;

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *len; i++) ((double *)inout)[i] += ((double *)in)[i];
}

/* Send data of start s at rank r, element i. */
static double value(int r, int i, int s) { return (double)(r * 1000 + i * 7 + s + 1); }

static void fill_send(const pl_case *k, void *send, int n, int s)
{
    for (int i = 0; i < n; i++) {
        if (k->coll == TOPOCOLL_ALLTOALL || k->coll == TOPOCOLL_ALLGATHER || k->coll == TOPOCOLL_BCAST)
            ((int *)send)[i] = (int)value(rank, i, s);
        else
            ((double *)send)[i] = value(rank, i, s);
    }
}

static int init_request(const pl_case *k, void *send, void *recv, MPI_Comm comm, MPI_Op uop, MPI_Request *req)
{
    int c = k->count;
    switch (k->coll) {
    case TOPOCOLL_ALLTOALL:
        return topocoll_alltoall_init(send, c, MPI_INT, recv, c, MPI_INT, comm, MPI_INFO_NULL, req);
    case TOPOCOLL_ALLGATHER:
        return topocoll_allgather_init(send, c, MPI_INT, recv, c, MPI_INT, comm, MPI_INFO_NULL, req);
    case TOPOCOLL_BCAST:
        return topocoll_bcast_init(send, c, MPI_INT, size - 1, comm, MPI_INFO_NULL, req);
    case TOPOCOLL_ALLREDUCE:
        return topocoll_allreduce_init(MPI_IN_PLACE, send, c, MPI_DOUBLE, k->user_op ? uop : MPI_SUM, comm,
                                       MPI_INFO_NULL, req);
    case TOPOCOLL_REDUCE:
        return topocoll_reduce_init(send, recv, c, MPI_DOUBLE, MPI_MAX, 0, comm, MPI_INFO_NULL, req);
    default:
        return MPI_ERR_ARG;
    }
}

/* The case's nonblocking call (MPI_I<coll>: topocoll's, linked). */
static int nb_start(const pl_case *k, void *send, void *recv, MPI_Comm comm, MPI_Op uop, MPI_Request *req)
{
    int c = k->count;
    switch (k->coll) {
    case TOPOCOLL_ALLTOALL: return MPI_Ialltoall(send, c, MPI_INT, recv, c, MPI_INT, comm, req);
    case TOPOCOLL_ALLGATHER: return MPI_Iallgather(send, c, MPI_INT, recv, c, MPI_INT, comm, req);
    case TOPOCOLL_BCAST: return MPI_Ibcast(send, c, MPI_INT, size - 1, comm, req);
    case TOPOCOLL_ALLREDUCE:
        return MPI_Iallreduce(MPI_IN_PLACE, send, c, MPI_DOUBLE, k->user_op ? uop : MPI_SUM, comm, req);
    case TOPOCOLL_REDUCE: return MPI_Ireduce(send, recv, c, MPI_DOUBLE, MPI_MAX, 0, comm, req);
    default: return MPI_ERR_ARG;
    }
}

/* Wrong elements of start s's result. */
static int wrong_result(const pl_case *k, const void *send, const void *recv, int s)
{
    int c = k->count, bad = 0;
    switch (k->coll) {
    case TOPOCOLL_ALLTOALL:   /* block j from rank j: its block `rank` */
        for (int j = 0; j < size; j++)
            for (int e = 0; e < c; e++) bad += ((const int *)recv)[j * c + e] != (int)value(j, rank * c + e, s);
        break;
    case TOPOCOLL_ALLGATHER:
        for (int j = 0; j < size; j++)
            for (int e = 0; e < c; e++) bad += ((const int *)recv)[j * c + e] != (int)value(j, e, s);
        break;
    case TOPOCOLL_BCAST:   /* the buffer: the root's */
        for (int e = 0; e < c; e++) bad += ((const int *)send)[e] != (int)value(size - 1, e, s);
        break;
    case TOPOCOLL_ALLREDUCE:   /* in place: the sum over the ranks */
        for (int e = 0; e < c; e++) {
            double want = 0;
            for (int j = 0; j < size; j++) want += value(j, e, s);
            bad += ((const double *)send)[e] != want;
        }
        break;
    case TOPOCOLL_REDUCE:
        for (int e = 0; rank == 0 && e < c; e++) bad += ((const double *)recv)[e] != value(size - 1, e, s);
        break;
    default:
        bad = 1;
    }
    return bad;
}

static void run_case(const pl_case *k, MPI_Op uop)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    /* elements: p blocks where the collective takes them, else count */
    int n = (k->coll == TOPOCOLL_ALLTOALL) ? size * k->count : k->count;
    int m = (k->coll == TOPOCOLL_ALLTOALL || k->coll == TOPOCOLL_ALLGATHER) ? size * k->count : k->count;
    size_t esz = (k->coll == TOPOCOLL_ALLREDUCE || k->coll == TOPOCOLL_REDUCE) ? sizeof(double) : sizeof(int);
    unsigned char *send = malloc((size_t)n * esz), *recv = malloc((size_t)m * esz + 1);
    unsigned char *send_copy = malloc((size_t)n * esz);
    if (!send || !recv || !send_copy) MPI_Abort(MPI_COMM_WORLD, 2);
    fill_send(k, send, n, 0);
    memcpy(send_copy, send, (size_t)n * esz);
    memset(recv, 0xA5, (size_t)m * esz + 1);

    MPI_Request req = MPI_REQUEST_NULL;
    capture_begin();
    int rc = init_request(k, send, recv, comm, uop, &req);
    char raced[64];
    int seen = capture_end("persistent init: ", "calls on scratch buffers, the key settled", "; persistent forms timed",
                           raced);
    int learned = seen & 1, settled = (seen & 2) != 0;
    CHECK(rc == MPI_SUCCESS && req != MPI_REQUEST_NULL, "%s: the init failed (%d)", k->name, rc);
    int untouched = memcmp(send, send_copy, (size_t)n * esz) == 0;
    for (size_t i = 0; i < (size_t)m * esz + 1; i++) untouched &= recv[i] == 0xA5;
    CHECK(untouched, "%s: the init wrote the user's buffers", k->name);
    if (k->user_op)
        CHECK(!learned, "%s: a user-defined op ran on scratch data at the init", k->name);
    else
        CHECK(settled, "%s: the key did not settle at the init (rank 0's explain line: %s)", k->name,
              learned ? "not settled" : "missing");

    int wrong = 0, disagree = 0, native = 0;
    char algo[64] = "";
    for (int s = 0; s < STARTS && rc == MPI_SUCCESS; s++) {
        fill_send(k, send, n, s);
        topocoll_start(&req);
        const char *name = topocoll_last_algorithm();
        if (s == 0) snprintf(algo, sizeof algo, "%s", name);
        disagree += !tc_test_same_name_everywhere(name);
        native += strcmp(name, "native") == 0;
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        wrong += wrong_result(k, send, recv, s);
    }
    CHECK(wrong == 0, "%s: %d wrong elements over %d starts", k->name, wrong, STARTS);
    CHECK(disagree == 0, "%s: %d starts ran different entries on different ranks", k->name, disagree);
    if (!k->user_op) CHECK(native == 0, "%s: the MPI library's own served (%s)", k->name, algo);
    if (raced[0]) CHECK(strcmp(raced, algo) == 0, "%s: the init timed %s fastest, the starts ran %s", k->name, raced, algo);
    if (raced[0]) CHECK(seen & 4, "%s: the init's explain line does not list the forms it timed", k->name);
    if (rank == 0)
        printf("%s: persistent request served by %s%s%s\n", k->name, algo, learned ? ", learned at the init" : "",
               raced[0] ? ", the fastest of the persistent forms timed" : "");
    if (req != MPI_REQUEST_NULL) MPI_Request_free(&req);
    free(send);
    free(recv);
    free(send_copy);
    MPI_Comm_free(&comm);
}

/* ---- the nonblocking calls' race ----------------------------------------------- */

enum { RACE_CALLS = 70, AFTER_CALLS = 10 };

/* n nonblocking calls of the case from call `from` on, each checked; the
 * entries that served them: the first in algo, disagreements and the
 * calls not served by want (NULL: any) counted. */
static void nb_calls(const pl_case *k, MPI_Comm comm, MPI_Op uop, unsigned char *send, unsigned char *recv, int n,
                     int from, const char *want, char algo[64], int *wrong, int *disagree, int *other)
{
    int cnt = (k->coll == TOPOCOLL_ALLTOALL) ? size * k->count : k->count;
    for (int s = from; s < from + n; s++) {
        fill_send(k, send, cnt, s);
        MPI_Request req;
        if (nb_start(k, send, recv, comm, uop, &req) != MPI_SUCCESS) {
            (*wrong)++;
            continue;
        }
        const char *name = topocoll_last_algorithm();
        if (s == from) snprintf(algo, 64, "%s", name);
        *disagree += !tc_test_same_name_everywhere(name);
        if (want && strcmp(name, want) != 0) (*other)++;
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        *wrong += wrong_result(k, send, recv, s);
    }
}

static void race_case(const pl_case *k, MPI_Op uop)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    int n = (k->coll == TOPOCOLL_ALLTOALL) ? size * k->count : k->count;
    int m = (k->coll == TOPOCOLL_ALLTOALL || k->coll == TOPOCOLL_ALLGATHER) ? size * k->count : k->count;
    size_t esz = (k->coll == TOPOCOLL_ALLREDUCE || k->coll == TOPOCOLL_REDUCE) ? sizeof(double) : sizeof(int);
    unsigned char *send = malloc((size_t)n * esz), *recv = malloc((size_t)m * esz);
    if (!send || !recv) MPI_Abort(MPI_COMM_WORLD, 2);
    int wrong = 0, disagree = 0, other = 0;
    char first[64] = "", after[64] = "";
    /* a nonblocking call never makes a communicator's context: a blocking
     * call by name does at once */
    CHECK(topocoll_barrier_algorithm("dissemination", comm) == MPI_SUCCESS, "%s: the barrier by name", k->name);
    nb_calls(k, comm, uop, send, recv, RACE_CALLS, 0, NULL, first, &wrong, &disagree, &other);

    /* an operation in flight across the race */
    int in[3] = { rank, 1, 2 * rank }, out[3] = { 0, 0, 0 };
    MPI_Request pending;
    MPI_Iallreduce(in, out, 3, MPI_INT, MPI_SUM, comm, &pending);
    capture_begin();
    MPI_Barrier(comm);
    char won[64];
    int seen = capture_end("nonblocking race: ", "the key settled; nonblocking forms timed",
                           "; nonblocking forms timed", won);
    MPI_Wait(&pending, MPI_STATUS_IGNORE);
    CHECK(out[0] == size * (size - 1) / 2 && out[1] == size && out[2] == size * (size - 1),
          "%s: an MPI_Iallreduce in flight across the race: %d %d %d", k->name, out[0], out[1], out[2]);
    if (k->user_op) {
        CHECK(!(seen & 1), "%s: a user-defined op raced on scratch data", k->name);
    } else {
        CHECK(seen & 2, "%s: no race at the blocking call after %d nonblocking calls (explain line: %s)", k->name,
              RACE_CALLS, seen & 1 ? "no forms timed" : "missing");
    }
    nb_calls(k, comm, uop, send, recv, AFTER_CALLS, RACE_CALLS, won[0] ? won : NULL, after, &wrong, &disagree,
             &other);
    CHECK(wrong == 0, "%s: %d wrong elements in the nonblocking results", k->name, wrong);
    CHECK(disagree == 0, "%s: %d nonblocking calls ran different entries on different ranks", k->name, disagree);
    CHECK(other == 0, "%s: %d of %d calls after the race not served by its winner %s (first: %s)", k->name, other,
          AFTER_CALLS, won, after);
    if (won[0]) CHECK(seen & 4, "%s: the race's explain line does not list the forms it timed", k->name);
    if (rank == 0)
        printf("%s: nonblocking calls served by %s, after the race by %s%s\n", k->name, first, after,
               won[0] ? " (its winner)" : "");
    free(send);
    free(recv);
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    setenv("TOPOCOLL_EXPLAIN", "1", 1);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Op uop;
    MPI_Op_create(user_sum, 1, &uop);
    static const pl_case cases[] = {
        { "alltoall 2 ints", TOPOCOLL_ALLTOALL, 2, 0 },
        { "allgather 1000 ints", TOPOCOLL_ALLGATHER, 1000, 0 },
        { "bcast 3 ints", TOPOCOLL_BCAST, 3, 0 },
        { "allreduce 5 doubles in place", TOPOCOLL_ALLREDUCE, 5, 0 },
        { "reduce 4 doubles max", TOPOCOLL_REDUCE, 4, 0 },
        { "allreduce 5 doubles, user op", TOPOCOLL_ALLREDUCE, 5, 1 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) run_case(&cases[k], uop);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) race_case(&cases[k], uop);
    MPI_Op_free(&uop);
    int status = tc_test_mpi_summary(0);
    MPI_Finalize();
    return status;
}
