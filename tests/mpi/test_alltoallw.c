/*
 * MPI_Alltoallw through topocoll: every alltoallw catalog entry (read from
 * the catalog) and the selection x part sizes 0, 1 and 2 (zero parts
 * included, a pattern that differs per pair) x per-peer datatypes (sent:
 * vector(2,1,3,MPI_INT) to even peers, MPI_INT x 2 to odd ones; received:
 * the vector type from every third peer, else contiguous(2,MPI_INT) from
 * odd peers, MPI_INT x 2 from even ones) x byte
 * displacements in reverse order with gaps x MPI_IN_PLACE.  Each case
 * checks every received part against its sender's values and the whole
 * receive buffer (gaps included) against PMPI_Alltoallw on the same input.
 * Then the same entries with odd datatypes: a zero-size datatype with a
 * nonzero count, a type with a negative lower bound whose data lie before
 * the displacement, strided sent as contiguous received, in and out of
 * place; the hierarchical family's other variants (h2, h4, and h1_shm,
 * h2_shm where node-shared memory exists) on both cases.  Run with
 * TOPOCOLL_TOPOLOGY (tests/CMakeLists.txt) for several virtual nodes.
 * Then topocoll_run's regular problem for every entry, and bad arguments:
 * a negative count (MPI_ERR_COUNT), MPI_DATATYPE_NULL with a count
 * (MPI_ERR_TYPE), NULL vectors (MPI_ERR_ARG), MPI_COMM_NULL (MPI_ERR_COMM), an
 * unknown name (MPI_ERR_ARG), at every rank; in place, NULL send vectors
 * are not read.
 * Ends with "N passed, M failed" on rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topocoll.h"
#include "../common/mpi_harness.h"

#define SENT (-77777)
#define SLOT 16              /* ints per part's slot */

static int rank, size;
static MPI_Datatype vec, con;

static int part(int from, int to) { return (from + to) % 3; }   /* symmetric: in place */
static int value(int from, int to, int k) { return from * 1000 + to * 10 + k; }
/* Slot of peer j (reverse order, one int of gap first). */
static int displ(int j) { return ((size - 1 - j) * SLOT + 1) * (int)sizeof(int); }

/* Receive type of peer j: the vector type (gaps) from every third peer,
 * but in place, where the receive layout holds the contiguous input. */
static int gapped(int j, int in_place) { return !in_place && j % 3 == 2; }

typedef struct wcase {
    int *sc, *sd, *rc, *rd;
    MPI_Datatype *st, *rt;
    int *sbuf, *rbuf, *want;
} wcase;

static void make(wcase *w, int in_place)
{
    int n = size * SLOT + 1;
    w->sc = malloc(4 * (size_t)size * sizeof(int));
    w->sd = w->sc + size, w->rc = w->sc + 2 * size, w->rd = w->sc + 3 * size;
    w->st = malloc(2 * (size_t)size * sizeof(MPI_Datatype));
    w->rt = w->st + size;
    w->sbuf = malloc((size_t)n * sizeof(int));
    w->rbuf = malloc((size_t)n * sizeof(int));
    w->want = malloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++) w->sbuf[i] = -1, w->rbuf[i] = w->want[i] = SENT;
    for (int j = 0; j < size; j++) {
        int c = part(rank, j), *s = w->sbuf + displ(j) / (int)sizeof(int);
        w->sd[j] = w->rd[j] = displ(j);
        w->sc[j] = j % 2 == 0 ? c : 2 * c;
        w->st[j] = j % 2 == 0 ? vec : MPI_INT;
        w->rc[j] = j % 2 == 1 || gapped(j, in_place) ? c : 2 * c;
        w->rt[j] = gapped(j, in_place) ? vec : j % 2 == 1 ? con : MPI_INT;
        for (int k = 0; k < 2 * c; k++) s[j % 2 == 0 ? k / 2 * 4 + k % 2 * 3 : k] = value(rank, j, k);
    }
    if (in_place) {   /* the receive layout holds the parts to send (contiguous ints) */
        for (int j = 0; j < size; j++)
            for (int k = 0; k < 2 * part(rank, j); k++) w->rbuf[displ(j) / (int)sizeof(int) + k] = value(rank, j, k);
        memcpy(w->want, w->rbuf, (size_t)n * sizeof(int));
    }
}

static void unmake(wcase *w)
{
    free(w->sc), free(w->st), free(w->sbuf), free(w->rbuf), free(w->want);
}

static void one(const char *name, int in_place)
{
    wcase w;
    make(&w, in_place);
    const void *sb = in_place ? MPI_IN_PLACE : (const void *)w.sbuf;
    int rc = PMPI_Alltoallw(sb, w.sc, w.sd, w.st, w.want, w.rc, w.rd, w.rt, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "PMPI_Alltoallw rc %d", rc);
    rc = name ? topocoll_alltoallw_algorithm(name, sb, w.sc, w.sd, w.st, w.rbuf, w.rc, w.rd, w.rt, MPI_COMM_WORLD)
              : topocoll_alltoallw(sb, w.sc, w.sd, w.st, w.rbuf, w.rc, w.rd, w.rt, MPI_COMM_WORLD);
    const char *n = name ? name : "(selection)";
    CHECK(rc == MPI_SUCCESS, "%s np=%d in_place=%d: rc %d", n, size, in_place, rc);
    int bad = 0;
    for (int j = 0; j < size && !bad; j++)
        for (int k = 0; k < 2 * part(j, rank) && !gapped(j, in_place); k++)
            if (w.rbuf[displ(j) / (int)sizeof(int) + k] != value(j, rank, k)) bad = 1;
    CHECK(!bad, "%s np=%d rank=%d in_place=%d: a part holds the wrong values", n, size, rank, in_place);
    CHECK(memcmp(w.rbuf, w.want, (size_t)(size * SLOT + 1) * sizeof(int)) == 0,
          "%s np=%d rank=%d in_place=%d: differs from PMPI_Alltoallw", n, size, rank, in_place);
    unmake(&w);
}

/* ---- odd datatypes: zero-size, negative lower bound, mixed per pair -------
 * The pair (r, j) has class (r + j) % 3 on both sides (symmetric, so in
 * place works): 0: two elements of a zero-size datatype (no bytes);
 * 1: part(r, j) elements of `neg` (two ints at byte -8 from the element,
 * lower bound -8: one run of bytes that starts before the displacement);
 * 2: sent as part(r, j) of the strided `vec`, received as `neg` (in place:
 * `neg` both ways). */
static MPI_Datatype zero, neg;

static int cls(int r, int j) { return (r + j) % 3; }
static int odd_displ(int j) { return displ(j) + 4 * (int)sizeof(int); }   /* neg's data from 2 ints in */

static void odd_make(wcase *w, int in_place)
{
    int n = size * SLOT + 1;
    w->sc = malloc(4 * (size_t)size * sizeof(int));
    w->sd = w->sc + size, w->rc = w->sc + 2 * size, w->rd = w->sc + 3 * size;
    w->st = malloc(2 * (size_t)size * sizeof(MPI_Datatype));
    w->rt = w->st + size;
    w->sbuf = malloc((size_t)n * sizeof(int));
    w->rbuf = malloc((size_t)n * sizeof(int));
    w->want = malloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++) w->sbuf[i] = -1, w->rbuf[i] = w->want[i] = SENT;
    for (int j = 0; j < size; j++) {
        int k = cls(rank, j), c = part(rank, j);
        int strided = k == 2 && !in_place;
        w->sc[j] = w->rc[j] = k == 0 ? 2 : c;
        w->st[j] = k == 0 ? zero : strided ? vec : neg;
        w->rt[j] = k == 0 ? zero : neg;
        w->sd[j] = strided ? displ(j) : odd_displ(j);
        w->rd[j] = odd_displ(j);
        int *in = in_place ? w->rbuf : w->sbuf, at = (strided ? displ(j) : odd_displ(j) - 8) / (int)sizeof(int);
        for (int m = 0; k != 0 && m < 2 * c; m++) in[at + (strided ? m / 2 * 4 + m % 2 * 3 : m)] = value(rank, j, m);
    }
    if (in_place) memcpy(w->want, w->rbuf, (size_t)n * sizeof(int));
}

static void odd(const char *name, int in_place)
{
    wcase w;
    odd_make(&w, in_place);
    const void *sb = in_place ? MPI_IN_PLACE : (const void *)w.sbuf;
    int rc = PMPI_Alltoallw(sb, w.sc, w.sd, w.st, w.want, w.rc, w.rd, w.rt, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "odd types: PMPI_Alltoallw rc %d", rc);
    rc = name ? topocoll_alltoallw_algorithm(name, sb, w.sc, w.sd, w.st, w.rbuf, w.rc, w.rd, w.rt, MPI_COMM_WORLD)
              : topocoll_alltoallw(sb, w.sc, w.sd, w.st, w.rbuf, w.rc, w.rd, w.rt, MPI_COMM_WORLD);
    const char *n = name ? name : "(selection)";
    CHECK(rc == MPI_SUCCESS, "odd types: %s np=%d in_place=%d: rc %d", n, size, in_place, rc);
    int bad = 0;
    for (int j = 0; j < size && !bad; j++)
        for (int m = 0; cls(j, rank) != 0 && m < 2 * part(j, rank); m++)
            if (w.rbuf[(odd_displ(j) - 8) / (int)sizeof(int) + m] != value(j, rank, m)) bad = 1;
    CHECK(!bad, "odd types: %s np=%d rank=%d in_place=%d: a part holds the wrong values", n, size, rank, in_place);
    CHECK(memcmp(w.rbuf, w.want, (size_t)(size * SLOT + 1) * sizeof(int)) == 0,
          "odd types: %s np=%d rank=%d in_place=%d: differs from PMPI_Alltoallw", n, size, rank, in_place);
    unmake(&w);
}

/* Variants beyond the entries' defaults (the hierarchical family): more
 * leaders, node-shared memory (declined with MPI_ERR_ARG where the ranks of
 * a node cannot share it: every rank alike). */
static const char *const more[] = { "h2", "h4", "h1_shm", "h2_shm", NULL };

static void variant(const char *name, int in_place)
{
    wcase w;
    make(&w, in_place);
    int rc = topocoll_alltoallw_algorithm(name, in_place ? MPI_IN_PLACE : (const void *)w.sbuf, w.sc, w.sd, w.st,
                                          w.rbuf, w.rc, w.rd, w.rt, MPI_COMM_WORLD);
    unmake(&w);
    int c = MPI_SUCCESS;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &c);
    if (c == MPI_ERR_ARG && strstr(name, "shm")) {   /* declined: no node-shared memory */
        if (rank == 0 && !in_place) printf("%s declined (no node-shared memory)\n", name);
        return;
    }
    one(name, in_place);
    odd(name, in_place);
}

static void regular(const char *name)
{
    int *s = malloc(2 * (size_t)size * sizeof(int)), *r = malloc(2 * (size_t)size * sizeof(int)), bad = 0;
    for (int i = 0; i < 2 * size; i++) s[i] = rank * 100 + i, r[i] = SENT;
    int rc = topocoll_run(TOPOCOLL_ALLTOALLW, name, s, 2, MPI_INT, r, 2, MPI_INT, MPI_OP_NULL, 0, MPI_COMM_WORLD);
    for (int j = 0; j < size; j++)
        for (int k = 0; k < 2; k++) bad |= r[2 * j + k] != j * 100 + 2 * rank + k;
    CHECK(rc == MPI_SUCCESS && !bad, "topocoll_run %s np=%d rank=%d: rc %d, data %s", name ? name : "(selection)",
          size, rank, rc, bad ? "wrong" : "right");
    free(s), free(r);
}

static void bad_input(void)
{
    wcase w;
    make(&w, 0);
    int err, cls;
    w.sc[0] = -1;
    err = topocoll_alltoallw(w.sbuf, w.sc, w.sd, w.st, w.rbuf, w.rc, w.rd, w.rt, MPI_COMM_WORLD);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_COUNT, "negative count: class %d", cls);
    w.sc[0] = 1, w.st[0] = MPI_DATATYPE_NULL;
    err = topocoll_alltoallw(w.sbuf, w.sc, w.sd, w.st, w.rbuf, w.rc, w.rd, w.rt, MPI_COMM_WORLD);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_TYPE, "MPI_DATATYPE_NULL with a count: class %d", cls);
    w.st[0] = vec;
    err = topocoll_alltoallw(w.sbuf, w.sc, w.sd, w.st, w.rbuf, NULL, w.rd, w.rt, MPI_COMM_WORLD);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_ARG, "NULL recvcounts: class %d", cls);
    err = topocoll_alltoallw(w.sbuf, w.sc, w.sd, w.st, w.rbuf, w.rc, w.rd, NULL, MPI_COMM_WORLD);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_ARG, "NULL recvtypes: class %d", cls);
    err = topocoll_alltoallw(w.sbuf, w.sc, w.sd, NULL, w.rbuf, w.rc, w.rd, w.rt, MPI_COMM_WORLD);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_ARG, "NULL sendtypes: class %d", cls);
    err = topocoll_alltoallw(w.sbuf, w.sc, w.sd, w.st, w.rbuf, w.rc, w.rd, w.rt, MPI_COMM_NULL);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_COMM, "MPI_COMM_NULL: class %d", cls);
    int keep = w.rc[size - 1];
    MPI_Datatype keep_type = w.rt[size - 1];
    w.rt[size - 1] = MPI_DATATYPE_NULL, w.rc[size - 1] = 1;
    err = topocoll_alltoallw(w.sbuf, w.sc, w.sd, w.st, w.rbuf, w.rc, w.rd, w.rt, MPI_COMM_WORLD);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_TYPE, "recvtypes MPI_DATATYPE_NULL with a count: class %d", cls);
    w.rt[size - 1] = keep_type, w.rc[size - 1] = keep;
    err = topocoll_alltoallw_algorithm("nonesuch", w.sbuf, w.sc, w.sd, w.st, w.rbuf, w.rc, w.rd, w.rt,
                                       MPI_COMM_WORLD);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_ARG, "unknown algorithm: class %d", cls);
    unmake(&w);
    /* in place: the send vectors are not read (NULL here) */
    make(&w, 1);
    err = topocoll_alltoallw_algorithm("pairwise", MPI_IN_PLACE, NULL, NULL, NULL, w.rbuf, w.rc, w.rd, w.rt,
                                       MPI_COMM_WORLD);
    int wrong = 0;
    for (int j = 0; j < size; j++)
        for (int k = 0; k < 2 * part(j, rank); k++)
            wrong |= w.rbuf[displ(j) / (int)sizeof(int) + k] != value(j, rank, k);
    CHECK(err == MPI_SUCCESS && !wrong, "in place with NULL send vectors: rc %d, data %s", err,
          wrong ? "wrong" : "right");
    unmake(&w);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Type_vector(2, 1, 3, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Type_contiguous(2, MPI_INT, &con);
    MPI_Type_commit(&con);
    MPI_Type_contiguous(0, MPI_INT, &zero);
    MPI_Type_commit(&zero);
    {
        int bl = 2;
        MPI_Aint at = -8;
        MPI_Datatype h;
        MPI_Type_create_hindexed(1, &bl, &at, MPI_INT, &h);
        MPI_Type_create_resized(h, -8, 8, &neg);
        MPI_Type_commit(&neg);
        MPI_Type_free(&h);
    }
    int n = topocoll_algorithm_count(TOPOCOLL_ALLTOALLW);
    CHECK(n >= 3, "alltoallw entries: %d", n);
    for (int in_place = 0; in_place <= 1; in_place++) {
        for (int i = 0; i < n; i++) one(topocoll_algorithm_name(TOPOCOLL_ALLTOALLW, i), in_place);
        one(NULL, in_place);
        for (int i = 0; i < n; i++) odd(topocoll_algorithm_name(TOPOCOLL_ALLTOALLW, i), in_place);
        odd(NULL, in_place);
        for (int i = 0; more[i]; i++) variant(more[i], in_place);
    }
    for (int i = 0; i < n; i++) regular(topocoll_algorithm_name(TOPOCOLL_ALLTOALLW, i));
    regular(NULL);
    bad_input();
    MPI_Type_free(&vec);
    MPI_Type_free(&con);
    MPI_Type_free(&zero);
    MPI_Type_free(&neg);
    int st = tc_test_mpi_summary(0);
    MPI_Finalize();
    return st;
}
