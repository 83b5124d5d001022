/*
 * Every rank gets a bitwise-identical allreduce result, floating point
 * included, from every allreduce entry of the catalog (and the selected
 * path), under several rank mappings.
 *
 * The data make the result depend on the order and grouping of the
 * combination: doubles mixing 1e16, 1, -1e16, pi and 1e-3 (a sum of
 * them rounds differently in different groupings), floats alike, products
 * of values near 1 with different exponents.  The program first shows on
 * rank 0 that the data are order-sensitive (a left fold and a right fold of
 * the ranks' values differ for some element; a check that can fail), then
 * for each case broadcasts rank 0's result with PMPI_Bcast and compares it
 * byte for byte at every rank; the verdicts are agreed over
 * MPI_COMM_WORLD.  The MPI library's own MPI_Allreduce is run too and only
 * reported (topocoll does not promise anything about it).
 *
 * Usage: test_allreduce_identical (any np).  Ends with "N passed, M failed".
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topocoll.h"
#include "../common/mpi_harness.h"

static int wrank, wsize;

static uint32_t mix(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

/* Value of element i of rank r, as a double (kind 0: sums, 1: products). */
static double value(int kind, int r, int i)
{
    static const double sums[] = { 1e16, 1.0, -1e16, 3.141592653589793, 1e-3, -2.5e15, 7.0 };
    static const double prods[] = { 1.0000001, 0.9999997, 1.0000003, 0.99999991, 1.00000007 };
    uint32_t h = mix((uint32_t)r * 0x9E3779B1u ^ mix((uint32_t)i + 0x1234u));
    if (kind == 0) return sums[h % 7] * (1.0 + (double)(h >> 20) * 1e-9);
    return prods[h % 5];
}

typedef struct tcase {
    const char *name;
    MPI_Datatype type;
    MPI_Op op;
    int kind;       /* value() kind */
    int is_float;
} tcase;

static const tcase tcases[] = {
    { "MPI_DOUBLE MPI_SUM", MPI_DOUBLE, MPI_SUM, 0, 0 },
    { "MPI_FLOAT MPI_SUM", MPI_FLOAT, MPI_SUM, 0, 1 },
    { "MPI_DOUBLE MPI_PROD", MPI_DOUBLE, MPI_PROD, 1, 0 },
};
#define NT ((int)(sizeof tcases / sizeof tcases[0]))

static void fill(const tcase *c, int r, int n, void *buf)
{
    for (int i = 0; i < n; i++) {
        double v = value(c->kind, r, i);
        if (c->is_float) ((float *)buf)[i] = (float)v;
        else ((double *)buf)[i] = v;
    }
}

/* Rank 0: do a left and a right fold over the ranks' values differ somewhere? */
static int order_sensitive(const tcase *c, int n)
{
    int differ = 0;
    for (int i = 0; i < n && !differ; i++) {
        if (c->is_float) {
            float l = (float)value(c->kind, 0, i), rr = (float)value(c->kind, wsize - 1, i);
            for (int r = 1; r < wsize; r++) l = c->kind ? l * (float)value(c->kind, r, i) : l + (float)value(c->kind, r, i);
            for (int r = wsize - 2; r >= 0; r--) rr = c->kind ? (float)value(c->kind, r, i) * rr : (float)value(c->kind, r, i) + rr;
            differ = memcmp(&l, &rr, sizeof l) != 0;
        } else {
            double l = value(c->kind, 0, i), rr = value(c->kind, wsize - 1, i);
            for (int r = 1; r < wsize; r++) l = c->kind ? l * value(c->kind, r, i) : l + value(c->kind, r, i);
            for (int r = wsize - 2; r >= 0; r--) rr = c->kind ? value(c->kind, r, i) * rr : value(c->kind, r, i) + rr;
            differ = memcmp(&l, &rr, sizeof l) != 0;
        }
    }
    return differ;
}

/* One call: algo NULL is the selected path, "" the MPI library's own.
 * Returns 1 identical everywhere, 0 not, -1 declined / error (agreed). */
static int one(MPI_Comm comm, const char *algo, const tcase *c, int n, int in_place, char *why, size_t len)
{
    size_t es = c->is_float ? sizeof(float) : sizeof(double), bytes = (size_t)n * es;
    unsigned char *s = malloc(bytes + 1), *r = malloc(bytes + 1), *mine = malloc(bytes + 1);
    int rc, same = 1, all_same = 0, err = 0, any_err = 0;
    if (!s || !r || !mine) { free(s); free(r); free(mine); return -1; }
    fill(c, wrank, n, in_place ? r : s);
    const void *sb = in_place ? MPI_IN_PLACE : s;
    if (algo && !*algo) rc = PMPI_Allreduce(sb, r, n, c->type, c->op, comm);
    else if (algo) rc = topocoll_allreduce_algorithm(algo, sb, r, n, c->type, c->op, comm);
    else rc = topocoll_allreduce(sb, r, n, c->type, c->op, comm);
    err = rc != MPI_SUCCESS;
    PMPI_Allreduce(&err, &any_err, 1, MPI_INT, MPI_MAX, comm);
    if (any_err) {
        snprintf(why, len, "returned an error at some rank");
        free(s); free(r); free(mine);
        return -1;
    }
    memcpy(mine, r, bytes);
    PMPI_Bcast(r, (int)bytes, MPI_BYTE, 0, comm);
    for (size_t i = 0; i < bytes && same; i++)
        if (r[i] != mine[i]) {
            same = 0;
            snprintf(why, len, "rank %d differs from rank 0 at element %zu", wrank, i / es);
        }
    PMPI_Allreduce(&same, &all_same, 1, MPI_INT, MPI_MIN, comm);
    free(s); free(r); free(mine);
    return all_same;
}

static void run_mapping(const char *spec)
{
    static const int counts[] = { 1, 7, 1000, 65537 };
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    if (spec && topocoll_set_topology(comm, spec) != MPI_SUCCESS) {
        MPI_Comm_free(&comm);
        return;
    }
    int na = topocoll_variant_count(TOPOCOLL_ALLREDUCE);
    for (int a = -1; a < na; a++) {
        const char *name = a < 0 ? NULL : topocoll_variant_name(TOPOCOLL_ALLREDUCE, a);
        const char *fam = a < 0 ? "auto" : topocoll_variant_family(TOPOCOLL_ALLREDUCE, a);
        for (int t = 0; t < NT; t++)
            for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
                for (int ip = 0; ip < 2; ip++) {
                    const char *why0 = NULL;
                    char why[160] = "";
                    const tcase *c = &tcases[t];
                    int native = fam && strcmp(fam, "native") == 0;
                    if (name && !native &&
                        topocoll_applicable(TOPOCOLL_ALLREDUCE, name, counts[k], c->type, counts[k], c->type,
                                            c->op, 0, comm, &why0) != 1) {
                        SKIP();
                        continue;
                    }
                    int ok = one(comm, native ? "" : name, c, counts[k], ip, why, sizeof why);
                    if (native) {
                        if (wrank == 0 && ok == 0 && k == 3 && ip == 0)
                            printf("note: the MPI library's MPI_Allreduce gives ranks different results "
                                   "(%s, %s, n=%d)\n", spec ? spec : "detected", c->name, counts[k]);
                        continue;
                    }
                    CHECK(ok == 1, "%s %s %s n=%d in_place=%d: %s", spec ? spec : "detected",
                          name ? name : "auto", c->name, counts[k], ip, ok < 0 ? why : why[0] ? why : "results differ");
                }
    }
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    (void)argc, (void)argv;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wrank == 0 && wsize >= 3)
        for (int t = 0; t < NT; t++)
            CHECK(order_sensitive(&tcases[t], 1000), "%s: the data do not depend on the order (test cannot fail)",
                  tcases[t].name);
    run_mapping(NULL);
    if (wsize >= 2) run_mapping("2x*/cyclic");
    if (wsize >= 4) run_mapping("2x2x*/random:5");
    if (wsize >= 2) run_mapping("1x2x*/cyclic");
    int status = tc_test_mpi_summary(0);
    MPI_Finalize();
    return status;
}
