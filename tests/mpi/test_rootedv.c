/*
 * MPI_Gatherv and MPI_Scatterv through topocoll: every entry of each
 * catalog and the selected path x roots (0, p-1, the middle) x count
 * patterns (fixed seeds, the same on every rank: equal, random with zeros,
 * all zero but one rank, one block 300 times the others) x displacements
 * (packed in rank order, or shuffled with gaps: the staged path; a
 * scatterv's also overlapping: every block from one region) x MPI_IN_PLACE
 * at the root x datatypes (MPI_INT everywhere; the root's vector in MPI_INT
 * and the other ranks' blocks in contiguous(2, MPI_INT): entries that read
 * the counts everywhere then run "linear"; the root's vector in an int of
 * extent two ints: gaps the staging must keep) x rank mappings (virtual
 * topologies: block, cyclic, unequal nodes).
 * Each case checks every block against the values its sender wrote, that
 * the gaps of the root's receive buffer are untouched, and that the send
 * buffers are unchanged.  Then bad input: an invalid root (MPI_ERR_ROOT) and
 * a negative sendcount / recvcount (MPI_ERR_COUNT) at every rank; at a
 * one-rank communicator (where the root is every rank) a negative count in
 * the vector (MPI_ERR_COUNT), NULL vectors and a negative displacement
 * (MPI_ERR_ARG).  Ends with "N passed, M failed" on rank 0.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topocoll.h"
#include "../common/mpi_harness.h"

#define SENT (-77777)

static int wrank, wsize;
static uint64_t rng;

static unsigned next(void) { return tc_test_rand(&rng); }

static int value(int r, int k, int casen) { return (casen * 7919 + r * 1009 + k) & 0x3fffffff; }

enum { K_EQUAL, K_ZEROS, K_ONE, K_HUGE, NKINDS };

/* Counts in ints (even: the two-int element case divides them). */
static void make_counts(int p, int kind, int *c)
{
    int big = (int)(next() % (unsigned)p);
    for (int j = 0; j < p; j++) {
        int n = 2;
        if (kind == K_ZEROS) n = next() % 3 == 0 ? 0 : 2 * (1 + (int)(next() % 4));
        if (kind == K_ONE) n = j == big ? 6 : 0;
        if (kind == K_HUGE) n = j == big ? 600 : 2 * (int)(next() % 2);
        c[j] = n;
    }
}

/* Displacements: packed, shuffled with gaps, or (overlap) all at 0. */
enum { D_PACKED, D_SHUFFLED, D_OVERLAP };

static int make_displs(int p, const int *c, int how, int *d)
{
    int *order = malloc((size_t)p * sizeof *order), at = 0;
    for (int j = 0; j < p; j++) order[j] = j;
    if (how == D_SHUFFLED)
        for (int j = p - 1; j > 0; j--) {
            int k = (int)(next() % (unsigned)(j + 1)), t = order[j];
            order[j] = order[k], order[k] = t;
        }
    for (int i = 0; i < p; i++) {
        int j = order[i];
        d[j] = how == D_OVERLAP ? 0 : at + (how == D_SHUFFLED ? 1 : 0);
        at = d[j] + c[j] > at ? d[j] + c[j] : at;
        if (how == D_SHUFFLED) at++;
    }
    free(order);
    return at + 1;
}

/* One gatherv case; two: the others' blocks in contiguous(2, MPI_INT). */
/* The root's vector type: MPI_INT, or (gap) an int with extent of two. */
static MPI_Datatype g_gap;

static void gatherv_case(MPI_Comm comm, const char *alg, int root, const int *c, const int *d, int span,
                         int in_place, MPI_Datatype two, int gap, int casen, const char *what)
{
    int r, p, st = gap ? 2 : 1;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    int mine = c[r], *sbuf = malloc(((size_t)mine + 1) * sizeof *sbuf);
    int *rbuf = malloc((size_t)span * st * sizeof *rbuf);
    for (int k = 0; k < mine; k++) sbuf[k] = value(r, k, casen);
    for (int k = 0; k < span * st; k++) rbuf[k] = SENT;
    if (r == root && in_place)
        for (int k = 0; k < mine; k++) rbuf[(d[r] + k) * st] = value(r, k, casen);
    int use_two = two != MPI_DATATYPE_NULL && r != root;
    int rc = topocoll_gatherv_algorithm(alg, r == root && in_place ? MPI_IN_PLACE : sbuf,
                                        use_two ? mine / 2 : mine, use_two ? two : MPI_INT, rbuf, c, d,
                                        gap ? g_gap : MPI_INT, root, comm);
    CHECK(rc == MPI_SUCCESS, "gatherv %s %s: rc %d", alg ? alg : "(selected)", what, rc);
    int bad = 0;
    for (int k = 0; k < mine; k++) bad += sbuf[k] != value(r, k, casen);
    if (r == root) {
        char *mark = calloc((size_t)span * st, 1);
        for (int j = 0; j < p; j++)
            for (int k = 0; k < c[j]; k++) {
                mark[(d[j] + k) * st] = 1;
                bad += rbuf[(d[j] + k) * st] != value(j, k, casen);
            }
        for (int k = 0; k < span * st; k++) bad += !mark[k] && rbuf[k] != SENT;
        free(mark);
    }
    CHECK(!bad, "gatherv %s %s: %d wrong ints at rank %d", alg ? alg : "(selected)", what, bad, r);
    free(sbuf);
    free(rbuf);
}

static void scatterv_case(MPI_Comm comm, const char *alg, int root, const int *c, const int *d, int span,
                          int in_place, MPI_Datatype two, int gap, int casen, const char *what)
{
    int r, p, st = gap ? 2 : 1;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    int mine = c[r], *sbuf = malloc((size_t)span * st * sizeof *sbuf), *rbuf = malloc(((size_t)mine + 1) * sizeof *rbuf);
    int *ref = malloc((size_t)span * st * sizeof *ref);
    for (int k = 0; k < span * st; k++) sbuf[k] = ref[k] = value(root, k, casen);
    for (int k = 0; k <= mine; k++) rbuf[k] = SENT;
    int use_two = two != MPI_DATATYPE_NULL && r != root;
    int rc = topocoll_scatterv_algorithm(alg, sbuf, c, d, gap ? g_gap : MPI_INT,
                                         r == root && in_place ? MPI_IN_PLACE : rbuf,
                                         use_two ? mine / 2 : mine, use_two ? two : MPI_INT, root, comm);
    CHECK(rc == MPI_SUCCESS, "scatterv %s %s: rc %d", alg ? alg : "(selected)", what, rc);
    int bad = 0;
    if (r == root)
        for (int k = 0; k < span * st; k++) bad += sbuf[k] != ref[k];
    if (!(r == root && in_place)) {
        for (int k = 0; k < mine; k++) bad += rbuf[k] != ref[(d[r] + k) * st];
        bad += rbuf[mine] != SENT;
    }
    CHECK(!bad, "scatterv %s %s: %d wrong ints at rank %d", alg ? alg : "(selected)", what, bad, r);
    free(sbuf);
    free(rbuf);
    free(ref);
}

static void sweep(MPI_Comm comm, const char *spec)
{
    static const char *const algs[] = { "linear", "binomial", "hierarchical", "native", NULL };
    int p, casen = 0;
    MPI_Comm_size(comm, &p);
    int *c = malloc(2 * (size_t)p * sizeof *c), *d = c + p;
    MPI_Datatype two;
    MPI_Type_contiguous(2, MPI_INT, &two);
    MPI_Type_commit(&two);
    int roots[3] = { 0, p - 1, p / 2 };
    for (int a = 0; a < 5; a++)
        for (int ri = 0; ri < 3; ri++) {
            if (ri && (roots[ri] == roots[0] || roots[ri] == roots[ri - 1])) continue;
            for (int kind = 0; kind < NKINDS; kind++)
                for (int how = 0; how < 3; how++)
                    for (int ip = 0; ip < 2; ip++)
                        for (int t = 0; t < 3; t++) {   /* 1: two-int blocks; 2: the root's gaps */
                            make_counts(p, kind, c);
                            int span = make_displs(p, c, how, d);
                            char what[160];
                            snprintf(what, sizeof what, "p=%d topo=%s root=%d kind=%d displs=%d in_place=%d two=%d",
                                     p, spec, roots[ri], kind, how, ip, t);
                            MPI_Datatype ty = t == 1 ? two : MPI_DATATYPE_NULL;
                            casen++;
                            if (how != D_OVERLAP)
                                gatherv_case(comm, algs[a], roots[ri], c, d, span, ip, ty, t == 2, casen, what);
                            scatterv_case(comm, algs[a], roots[ri], c, d, span, ip, ty, t == 2, casen, what);
                        }
        }
    MPI_Type_free(&two);
    free(c);
}

static int cls(int rc)
{
    int c = rc;
    MPI_Error_class(rc, &c);
    return c;
}

static void bad_input(void)
{
    int x[4] = { 0 }, cnt[1] = { 1 }, neg[1] = { -1 }, dsp[1] = { 0 }, negd[1] = { -1 };
    MPI_Comm self = MPI_COMM_SELF;
    int rc = topocoll_gatherv(x, 1, MPI_INT, x + 1, cnt, dsp, MPI_INT, wsize, MPI_COMM_WORLD);
    CHECK(cls(rc) == MPI_ERR_ROOT, "gatherv root %d: rc %d", wsize, rc);
    rc = topocoll_scatterv(x, cnt, dsp, MPI_INT, x + 1, 1, MPI_INT, -1, MPI_COMM_WORLD);
    CHECK(cls(rc) == MPI_ERR_ROOT, "scatterv root -1: rc %d", rc);
    rc = topocoll_gatherv(x, -1, MPI_INT, x + 1, cnt, dsp, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK(cls(rc) == MPI_ERR_COUNT, "gatherv sendcount -1: rc %d", rc);
    rc = topocoll_scatterv(x, cnt, dsp, MPI_INT, x + 1, -1, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK(cls(rc) == MPI_ERR_COUNT, "scatterv recvcount -1: rc %d", rc);
    rc = topocoll_gatherv(x, 1, MPI_INT, x + 1, neg, dsp, MPI_INT, 0, self);
    CHECK(cls(rc) == MPI_ERR_COUNT, "gatherv recvcounts[0] -1: rc %d", rc);
    rc = topocoll_scatterv(x, neg, dsp, MPI_INT, x + 1, 1, MPI_INT, 0, self);
    CHECK(cls(rc) == MPI_ERR_COUNT, "scatterv sendcounts[0] -1: rc %d", rc);
    rc = topocoll_gatherv(x, 1, MPI_INT, x + 1, NULL, dsp, MPI_INT, 0, self);
    CHECK(cls(rc) == MPI_ERR_ARG, "gatherv NULL recvcounts: rc %d", rc);
    rc = topocoll_scatterv(x, cnt, NULL, MPI_INT, x + 1, 1, MPI_INT, 0, self);
    CHECK(cls(rc) == MPI_ERR_ARG, "scatterv NULL displs: rc %d", rc);
    rc = topocoll_gatherv(x, 1, MPI_INT, x + 1, cnt, negd, MPI_INT, 0, self);
    CHECK(cls(rc) == MPI_ERR_ARG, "gatherv displs[0] -1: rc %d", rc);
    CHECK(x[0] == 0 && x[1] == 0, "bad input moved data");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    rng = 0x9E3779B97F4A7C15ull;
    MPI_Type_create_resized(MPI_INT, 0, 2 * (MPI_Aint)sizeof(int), &g_gap);
    MPI_Type_commit(&g_gap);
    sweep(MPI_COMM_WORLD, "detected");
    static const char *const specs[] = { "2x*", "2x*/cyclic", "3,1,4,1,5,9,2,6", NULL };
    for (int s = 0; specs[s]; s++) {
        MPI_Comm comm;
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        if (topocoll_set_topology(comm, specs[s]) == MPI_SUCCESS) sweep(comm, specs[s]);
        MPI_Comm_free(&comm);
    }
    bad_input();
    MPI_Type_free(&g_gap);
    int status = tc_test_mpi_summary(0);
    MPI_Finalize();
    return status;
}
