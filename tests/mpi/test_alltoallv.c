/*
 * MPI_Alltoallv through topocoll: every alltoallv catalog entry (read from
 * the catalog) and the selected path x random count matrices (fixed seeds,
 * the same on every rank: zeros, small parts, parts 200 times larger, an
 * all-zero row and column) x displacements in a shuffled order with gaps x
 * datatypes (MPI_INT; vector(2,1,3,MPI_INT) with gaps; contiguous(3,MPI_INT)
 * sent, MPI_INT x 3 received) x MPI_IN_PLACE (symmetric matrices) x rank
 * mappings (virtual topologies: block, cyclic, random, unequal nodes).
 * Each case checks every received part against the values its sender
 * wrote, that the gaps of the receive buffer are untouched, that the send
 * buffer is unchanged, and agrees with PMPI_Alltoallv on the same input.
 * Then topocoll_run on alltoallv and allgatherv (the regular problem, every
 * entry that serves it and the selection, as is and in place; the others
 * must decline with MPI_ERR_ARG).  Then bad vectors: a negative count (MPI_ERR_COUNT), a negative
 * displacement (MPI_ERR_ARG), NULL vectors (MPI_ERR_ARG), a NULL buffer with
 * a count (MPI_ERR_BUFFER), at every rank.
 * Ends with "N passed, M failed" on rank 0.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topocoll.h"
#include "../common/mpi_harness.h"

#define SENT (-77777)                /* receive buffers start as this */

static int wrank, wsize;
static uint64_t rng;

static unsigned next(void) { return tc_test_rand(&rng); }

/* One type case: ints per send / receive element, and the int positions of
 * an element inside its extent (in ints). */
typedef struct tcase {
    const char *name;
    MPI_Datatype stype, rtype;
    int sper, rper;                  /* data ints per element */
    int sext, rext;                  /* extent in ints */
    int soff[2], roff[2];            /* data positions (per <= 2, or contiguous when per == 3) */
} tcase;

static int pos_of(int per, const int *off, int k) { return per == 3 ? k : off[k]; }

/* The value of int number k of the part rank r sends to rank j. */
static int value(int r, int j, int k, int casen) { return (casen * 7919 + r * 1009 + j * 101 + k) & 0x3fffffff; }

typedef struct layout_v {
    int *sc, *sd, *rc, *rd;          /* this rank's vectors, [p] each */
    size_t sints, rints;             /* buffer sizes in ints */
} layout_v;

/* counts[r][j] in send elements; a fresh matrix per case (same on all ranks). */
static void make_matrix(int p, int sym, int *m)
{
    for (int r = 0; r < p; r++)
        for (int j = 0; j < p; j++) {
            unsigned x = next() % 8;
            m[r * p + j] = x < 2 ? 0 : x < 6 ? (int)(1 + next() % 4) : (int)(200 + next() % 40);
            if (r == p / 2 || j == (p - 1) / 2) m[r * p + j] = p > 2 ? 0 : m[r * p + j];
        }
    for (int r = 0; sym && r < p; r++)
        for (int j = 0; j < r; j++) m[r * p + j] = m[j * p + r];
}

static size_t shuffle_displs(int p, const int *counts, int *displs)
{
    int order[64];
    for (int j = 0; j < p; j++) order[j] = j;
    for (int j = p - 1; j > 0; j--) {
        int k = (int)(next() % (unsigned)(j + 1)), t = order[j];
        order[j] = order[k], order[k] = t;
    }
    int at = (int)(next() % 3);
    for (int i = 0; i < p; i++) {
        displs[order[i]] = at;
        at += counts[order[i]] + (int)(next() % 3);
    }
    return (size_t)at;
}

/* Fills buf's data positions of `count` elements from element `disp` with
 * the values of part (r -> j). */
static void fill(int *buf, int per, int ext, const int *off, int disp, int count, int r, int j, int casen)
{
    for (int e = 0; e < count; e++)
        for (int q = 0; q < per; q++)
            buf[(size_t)(disp + e) * (size_t)ext + (size_t)pos_of(per, off, q)] = value(r, j, e * per + q, casen);
}

static int run_case(const char *algo, const tcase *t, int in_place, int casen, MPI_Comm comm, const char *where)
{
    int p, me, m[64 * 64], sc[64], sd[64], rc[64], rd[64], bad = 0;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    make_matrix(p, in_place || t->sper != t->rper ? 1 : 0, m);
    int scale = t->sper / t->rper;   /* receive elements per send element */
    for (int j = 0; j < p; j++) sc[j] = m[me * p + j], rc[j] = m[j * p + me] * scale;
    size_t sn = shuffle_displs(p, sc, sd), rn = shuffle_displs(p, rc, rd);
    if (in_place) { memcpy(sc, rc, sizeof rc); memcpy(sd, rd, sizeof rd); sn = rn; }
    size_t sints = (sn + 1) * (size_t)t->sext, rints = (rn + 1) * (size_t)t->rext;
    int *s = malloc(sints * sizeof *s), *r = malloc(rints * sizeof *r), *ref = malloc(rints * sizeof *r),
        *exp = malloc(rints * sizeof *r), *s0 = malloc(sints * sizeof *s);
    for (size_t i = 0; i < sints; i++) s[i] = -1;
    for (size_t i = 0; i < rints; i++) r[i] = exp[i] = SENT;
    for (int j = 0; j < p; j++) {
        if (in_place) fill(r, t->rper, t->rext, t->roff, rd[j], rc[j], me, j, casen);
        else fill(s, t->sper, t->sext, t->soff, sd[j], sc[j], me, j, casen);
        fill(exp, t->rper, t->rext, t->roff, rd[j], rc[j], j, me, casen);
    }
    memcpy(s0, s, sints * sizeof *s);
    memcpy(ref, r, rints * sizeof *r);
    const void *sb = in_place ? MPI_IN_PLACE : (const void *)s;
    int code = topocoll_alltoallv_algorithm(algo, sb, sc, sd, t->stype, r, rc, rd, t->rtype, comm);
    int code2 = PMPI_Alltoallv(in_place ? MPI_IN_PLACE : (const void *)s, sc, sd, t->stype, ref, rc, rd, t->rtype, comm);
    if (code != MPI_SUCCESS || code2 != MPI_SUCCESS) bad = 1;
    else if (memcmp(r, exp, rints * sizeof *r) != 0) bad = 2;
    else if (memcmp(ref, exp, rints * sizeof *r) != 0) bad = 3;
    else if (memcmp(s, s0, sints * sizeof *s) != 0) bad = 4;
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_MAX, comm);
    CHECK(all == 0, "%s %s type=%s in_place=%d case=%d np=%d: %s", where, algo ? algo : "auto", t->name,
          in_place, casen, p, all == 1 ? "error returned" : all == 2 ? "wrong result (or gaps written)"
                                  : all == 3 ? "PMPI reference differs from the expected values"
                                             : "send buffer modified");
    free(s), free(r), free(ref), free(exp), free(s0);
    return all;
}

/* topocoll_run on the per-peer collectives: the regular problem (every
 * count n, displacements j n), by every entry's name and by selection, as
 * is and in place; rank r's block j holds value(r, j, k) (alltoallv) or
 * value(r, 0, k) (allgatherv). */
static void generic_run(topocoll_coll coll, MPI_Comm comm)
{
    int p, me;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    int nalg = topocoll_variant_count(coll), a2a = coll == TOPOCOLL_ALLTOALLV;
    for (int a = -1; a < nalg; a++)
        for (int ip = 0; ip < 2; ip++) {
            const char *algo = a < 0 ? NULL : topocoll_variant_name(coll, a);
            int n = 1 + (a + 2) % 3, bad = 0, all = 0;
            int *s = malloc((size_t)(p * n) * sizeof *s), *r = malloc((size_t)(p * n) * sizeof *r);
            for (int j = 0; j < p; j++)
                for (int k = 0; k < n; k++) {
                    s[j * n + k] = value(me, a2a ? j : 0, k, 1);
                    r[j * n + k] = ip && (a2a || j == me) ? s[j * n + k] : SENT;
                }
            int rc = topocoll_run(coll, algo, ip ? MPI_IN_PLACE : (const void *)s, n, MPI_INT, r, n, MPI_INT,
                                  MPI_OP_NULL, 0, comm);
            int serves = !algo || topocoll_applicable(coll, algo, n, MPI_INT, n, MPI_INT, MPI_OP_NULL, 0, comm,
                                                      NULL) == 1, cls = MPI_SUCCESS;
            for (int j = 0; j < p && rc == MPI_SUCCESS; j++)
                for (int k = 0; k < n; k++)
                    if (r[j * n + k] != value(j, a2a ? me : 0, k, 1)) bad = 1;
            if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
            if (serves ? rc != MPI_SUCCESS : cls != MPI_ERR_ARG) bad = 2;   /* a decline is MPI_ERR_ARG */
            MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_MAX, comm);
            CHECK(all == 0, "topocoll_run %s %s in_place=%d np=%d: %s", a2a ? "alltoallv" : "allgatherv",
                  algo ? algo : "auto", ip, p, all == 2 ? "error returned (or no decline)" : "wrong result");
            free(s), free(r);
        }
}

static void bad_vectors(MPI_Comm comm)
{
    int p, c[64], d[64], buf[64 * 4];
    MPI_Comm_size(comm, &p);
    for (int j = 0; j < p; j++) c[j] = 1, d[j] = j;
    struct { int which; int cls; const char *what; } cases[] = {
        { 0, MPI_ERR_COUNT, "negative count" }, { 1, MPI_ERR_ARG, "negative displacement" },
        { 2, MPI_ERR_ARG, "NULL recvcounts" }, { 3, MPI_ERR_BUFFER, "NULL sendbuf with counts" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int cc[64], dd[64], cls = MPI_SUCCESS;
        memcpy(cc, c, sizeof c), memcpy(dd, d, sizeof d);
        if (cases[i].which == 0) cc[p - 1] = -1;
        if (cases[i].which == 1) dd[0] = -3;
        int rc = topocoll_alltoallv(cases[i].which == 3 ? NULL : buf, cc, dd, MPI_INT, buf + 64 * 2,
                                    cases[i].which == 2 ? NULL : c, d, MPI_INT, comm);
        if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
        CHECK(cls == cases[i].cls, "bad input %s: class %d, want %d", cases[i].what, cls, cases[i].cls);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Datatype vec, con3;
    MPI_Type_vector(2, 1, 3, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Type_contiguous(3, MPI_INT, &con3);
    MPI_Type_commit(&con3);
    const tcase types[] = {
        { "MPI_INT", MPI_INT, MPI_INT, 1, 1, 1, 1, { 0, 0 }, { 0, 0 } },
        { "vector(2,1,3,MPI_INT)", vec, vec, 2, 2, 4, 4, { 0, 3 }, { 0, 3 } },
        { "contiguous(3,MPI_INT) against MPI_INT x 3", con3, MPI_INT, 3, 1, 3, 1, { 0, 0 }, { 0, 0 } },
    };
    char unequal[256] = "";   /* nodes of 3,1,2,1,4,... ranks, randomly placed */
    static const int sizes[] = { 3, 1, 2, 1, 4 };
    for (int left = wsize, i = 0; left > 0; i++) {
        int k = sizes[i % 5] < left ? sizes[i % 5] : left;
        left -= k;
        snprintf(unequal + strlen(unequal), sizeof unequal - strlen(unequal), "%s%d", i ? "," : "", k);
    }
    strncat(unequal, "/random:3", sizeof unequal - strlen(unequal) - 1);
    const char *specs[] = { NULL, "2x*", "2x*/cyclic", "3x*/random:7", unequal };
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    int n = topocoll_variant_count(TOPOCOLL_ALLTOALLV), casen = 0;
    for (size_t sp = 0; sp < sizeof specs / sizeof specs[0]; sp++) {
        char where[96];
        if (specs[sp] && topocoll_set_topology(comm, specs[sp]) != MPI_SUCCESS) continue;
        snprintf(where, sizeof where, "topology %s", specs[sp] ? specs[sp] : "detected");
        for (int a = -1; a < n; a++)
            for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
                for (int ip = 0; ip < 2; ip++)
                    for (int rep = 0; rep < 3; rep++) {
                        rng = 0x9E3779B97F4A7C15ull + (uint64_t)(++casen) * 0x2545F4914F6CDD1Dull;
                        if (ip && t == 2) continue;   /* in place: one type for both */
                        run_case(a < 0 ? NULL : topocoll_variant_name(TOPOCOLL_ALLTOALLV, a), &types[t], ip,
                                 casen, comm, where);
                    }
    }
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    generic_run(TOPOCOLL_ALLTOALLV, comm);
    generic_run(TOPOCOLL_ALLGATHERV, comm);
    bad_vectors(comm);
    MPI_Comm_free(&comm);
    MPI_Type_free(&vec);
    MPI_Type_free(&con3);
    int status = tc_test_mpi_summary(0);
    MPI_Finalize();
    return status;
}
