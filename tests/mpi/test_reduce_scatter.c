/*
 * MPI_Reduce_scatter through topocoll: every reduce_scatter catalog entry
 * (read from the catalog) and the selected path x count patterns (fixed
 * seeds, the same on every rank: equal, random with zeros, all zero but one
 * rank, one block 100 times the others, all zero, growing) x MPI_IN_PLACE x
 * operations (MPI_SUM on MPI_INT; a non-commutative user operation on pairs
 * of unsigned ints, the composition of affine maps, which must be combined
 * in rank order) x rank mappings (virtual topologies: detected, two and
 * three nodes, cyclic and random).
 * Each case checks the received block against the reduction computed here,
 * that the receive buffer past the block is untouched and the send buffer
 * unchanged, and agrees with PMPI_Reduce_scatter on the same input.  An
 * entry that needs a commutative operation must decline the other one with
 * MPI_ERR_ARG and leave the buffers alone.  Then bad input: a negative
 * count (MPI_ERR_COUNT), NULL recvcounts (MPI_ERR_ARG), MPI_OP_NULL
 * (MPI_ERR_OP), at every rank.  Ends with "N passed, M failed" on rank 0.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topocoll.h"
#include "../common/mpi_harness.h"

#define GUARD 0xdeadbeefu
#define SLACK 4                      /* guard elements past every receive block */

static uint64_t rng;
static MPI_Datatype pair;            /* two unsigned ints: an affine map x -> a x + b */
static MPI_Op compose;               /* non-commutative: in first, then inout */

static unsigned next(void) { return tc_test_rand(&rng); }

/* inout = in then inout: (a1, b1) then (a2, b2) is (a1 a2, b1 a2 + b2). */
static void compose_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const unsigned *x = in;
    unsigned *y = inout;
    for (int i = 0; i < *len; i++) {
        unsigned a = x[2 * i] * y[2 * i], b = x[2 * i + 1] * y[2 * i] + y[2 * i + 1];
        y[2 * i] = a;
        y[2 * i + 1] = b;
    }
}

enum { K_EQUAL, K_RANDOM, K_ONE, K_HUGE, K_ZERO, K_GROWING, NKINDS };
static const char *const kind_name[] = { "equal", "random with zeros", "one rank only", "one huge", "all zero",
                                         "growing" };

static void make_counts(int p, int kind, int *c)
{
    int big = (int)(next() % (unsigned)p);
    for (int j = 0; j < p; j++) {
        unsigned x = next() % 8;
        c[j] = 3;
        if (kind == K_RANDOM) c[j] = x < 2 ? 0 : 1 + (int)(next() % 6);
        if (kind == K_ONE) c[j] = j == big ? 5 : 0;
        if (kind == K_HUGE) c[j] = j == big ? 300 : (int)(next() % 3);
        if (kind == K_ZERO) c[j] = 0;
        if (kind == K_GROWING) c[j] = 1 + 2 * j;
    }
}

/* Rank r's element g of the vector (ints per element: 1 for MPI_INT, 2 for pairs). */
static void element(int r, int g, int casen, int noncomm, unsigned *out)
{
    if (!noncomm) {
        out[0] = (unsigned)((casen * 131 + r * 1009 + g * 7) & 0xffff);
        return;
    }
    out[0] = 2u * (unsigned)(r * 17 + g * 5 + casen) + 1u;
    out[1] = (unsigned)(r * 31 + g * 3 + casen);
}

static int declines(const char *algo, int noncomm)
{
    if (!algo || !noncomm) return 0;
    return strcmp(algo, "recursive_halving") != 0 && strcmp(algo, "native") != 0;
}

static void run_case(const char *algo, int kind, int in_place, int noncomm, int casen, MPI_Comm comm,
                     const char *where)
{
    int p, me, *c;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    c = malloc((size_t)p * sizeof *c);
    make_counts(p, kind, c);
    int n = 0, at = 0, w = noncomm ? 2 : 1;
    for (int j = 0; j < p; j++) n += c[j];
    for (int j = 0; j < me; j++) at += c[j];
    size_t vints = (size_t)n * w, rints = (size_t)(in_place ? n : c[me]) * w + SLACK * w;
    unsigned *s = malloc(vints * sizeof *s + 8), *s0 = malloc(vints * sizeof *s + 8);
    unsigned *r = malloc(rints * sizeof *r), *ref = malloc(rints * sizeof *r), *exp = malloc((size_t)(c[me] * w + 1) * sizeof *exp);
    for (int g = 0; g < n; g++) element(me, g, casen, noncomm, s + (size_t)g * w);
    memcpy(s0, s, vints * sizeof *s);
    for (size_t i = 0; i < rints; i++) r[i] = ref[i] = GUARD;
    if (in_place) memcpy(r, s, vints * sizeof *s), memcpy(ref, s, vints * sizeof *s);
    for (int i = 0; i < c[me]; i++) {   /* the reduction in rank order */
        unsigned acc[2], x[2];
        element(0, at + i, casen, noncomm, acc);
        for (int q = 1; q < p; q++) {
            element(q, at + i, casen, noncomm, x);
            if (noncomm) {
                unsigned a = acc[0] * x[0], b = acc[1] * x[0] + x[1];
                acc[0] = a, acc[1] = b;
            } else {
                acc[0] += x[0];
            }
        }
        memcpy(exp + (size_t)i * w, acc, (size_t)w * sizeof *acc);
    }
    MPI_Datatype type = noncomm ? pair : MPI_UNSIGNED;
    MPI_Op op = noncomm ? compose : MPI_SUM;
    int code = topocoll_reduce_scatter_algorithm(algo, in_place ? MPI_IN_PLACE : s, r, c, type, op, comm);
    int code2 = PMPI_Reduce_scatter(in_place ? MPI_IN_PLACE : s0, ref, c, type, op, comm);
    int bad = 0, cls = MPI_SUCCESS, dec = declines(algo, noncomm);
    if (code != MPI_SUCCESS) MPI_Error_class(code, &cls);
    if (dec) {
        bad = cls != MPI_ERR_ARG ? 5 : 0;
        if (!bad && in_place && memcmp(r, s, vints * sizeof *s) != 0) bad = 6;
    } else if (code != MPI_SUCCESS || code2 != MPI_SUCCESS) {
        bad = 1;
    } else if (memcmp(r, exp, (size_t)c[me] * w * sizeof *r) != 0) {
        bad = 2;
    } else if (memcmp(ref, exp, (size_t)c[me] * w * sizeof *r) != 0) {
        bad = 3;
    } else if (!in_place && memcmp(s, s0, vints * sizeof *s) != 0) {
        bad = 4;
    } else {
        for (size_t i = (size_t)(in_place ? n : c[me]) * w; i < rints; i++) bad |= r[i] != GUARD ? 7 : 0;
    }
    static const char *const why[] = { "", "error returned", "wrong result", "PMPI reference differs",
                                       "send buffer modified", "not declined", "declined but wrote",
                                       "wrote past its block" };
    CHECK(!bad, "%s: %s, %s, %s, in_place=%d, %s: %s", where, algo ? algo : "(selected)", kind_name[kind],
          noncomm ? "non-commutative" : "MPI_SUM", in_place, "rank", why[bad]);
    free(c), free(s), free(s0), free(r), free(ref), free(exp);
}

static void expect_class(int code, int cls_want, const char *what)
{
    int cls = MPI_SUCCESS;
    if (code != MPI_SUCCESS) MPI_Error_class(code, &cls);
    CHECK(cls == cls_want, "bad input, %s: class %d, expected %d", what, cls, cls_want);
}

static void bad_input(MPI_Comm comm)
{
    int p, c[64];
    unsigned s[64] = { 0 }, r[64];
    MPI_Comm_size(comm, &p);
    if (p > 64) return;
    for (int j = 0; j < p; j++) c[j] = 0;
    c[p - 1] = -1;
    expect_class(topocoll_reduce_scatter(s, r, c, MPI_UNSIGNED, MPI_SUM, comm), MPI_ERR_COUNT, "negative count");
    expect_class(topocoll_reduce_scatter(s, r, NULL, MPI_UNSIGNED, MPI_SUM, comm), MPI_ERR_ARG, "NULL recvcounts");
    c[p - 1] = 0;
    expect_class(topocoll_reduce_scatter(s, r, c, MPI_UNSIGNED, MPI_OP_NULL, comm), MPI_ERR_OP, "MPI_OP_NULL");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Type_contiguous(2, MPI_UNSIGNED, &pair);
    MPI_Type_commit(&pair);
    MPI_Op_create(compose_fn, 0, &compose);
    const char *specs[] = { NULL, "2x*", "2x*/cyclic", "3x*/random:7" };
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);   /* declines are answers here */
    int n = topocoll_variant_count(TOPOCOLL_REDUCE_SCATTER), casen = 0;
    for (size_t sp = 0; sp < sizeof specs / sizeof specs[0]; sp++) {
        char where[96];
        if (specs[sp] && topocoll_set_topology(comm, specs[sp]) != MPI_SUCCESS) continue;
        snprintf(where, sizeof where, "topology %s", specs[sp] ? specs[sp] : "detected");
        for (int a = -1; a < n; a++)
            for (int kind = 0; kind < NKINDS; kind++)
                for (int ip = 0; ip < 2; ip++)
                    for (int nc = 0; nc < 2; nc++) {
                        ++casen;
                        rng = 0x9E3779B97F4A7C15ull + (uint64_t)casen * 0x2545F4914F6CDD1Dull;
                        run_case(a < 0 ? NULL : topocoll_variant_name(TOPOCOLL_REDUCE_SCATTER, a), kind, ip, nc,
                                 casen, comm, where);
                    }
    }
    bad_input(comm);
    MPI_Comm_free(&comm);
    MPI_Op_free(&compose);
    MPI_Type_free(&pair);
    int status = tc_test_mpi_summary(0);
    MPI_Finalize();
    return status;
}
