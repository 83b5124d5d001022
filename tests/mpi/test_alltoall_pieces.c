/*
 * Alltoall entries that cut blocks into pieces by their bytes (the "linear"
 * family with pieces=32k), against the MPI library's own alltoall with the
 * same arguments, at blocks above the piece size and not a multiple of it:
 *   - MPI_INT on both sides;
 *   - send and receive types of different sizes (2 ints against a
 *     contiguous pair; a contiguous triple against 3 ints);
 *   - a send type with holes (a vector of 2 ints out of 3) against ints;
 *   - MPI_IN_PLACE with a contiguous pair.
 * Every entry whose name has "_pieces" is run, and auto.  Every rank
 * compares its whole receive buffer byte for byte with the reference; rank 0
 * prints "N passed, M failed".
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topocoll.h"
#include "common/mpi_harness.h"

#define K 10007   /* elements of the larger type per block: 40-120 KB blocks */

static int rank, size;

typedef struct a2a_case {
    const char *what;
    MPI_Datatype stype, rtype;
    int scount, rcount;
    int sext_ints, rext_ints;   /* ints of extent per element */
    int in_place;
} a2a_case;

static int *filled(size_t n, int seed)
{
    int *b = malloc(n * sizeof(int) + 1);
    for (size_t i = 0; b && i < n; i++) b[i] = seed ? (int)((size_t)seed * 1000003u + i) : -1;
    return b;
}

/* One entry (NULL: auto) on one case, checked against PMPI_Alltoall. */
static void run_case(const a2a_case *c, const char *algo)
{
    size_t sn = (size_t)size * (size_t)c->scount * (size_t)c->sext_ints;
    size_t rn = (size_t)size * (size_t)c->rcount * (size_t)c->rext_ints;
    int *s = filled(sn, rank + 1), *ref = filled(rn, 0), *out = filled(rn, 0);
    if (!s || !ref || !out) {
        CHECK(0, "%s: out of memory", c->what);
        free(s), free(ref), free(out);
        return;
    }
    if (c->in_place) {
        for (size_t i = 0; i < rn; i++) ref[i] = out[i] = (int)((size_t)(rank + 1) * 7919u + i);
    }
    const void *sb = c->in_place ? MPI_IN_PLACE : s;
    int rc_ref = PMPI_Alltoall(sb, c->scount, c->stype, ref, c->rcount, c->rtype, MPI_COMM_WORLD);
    int rc = algo ? topocoll_alltoall_algorithm(algo, sb, c->scount, c->stype, out, c->rcount, c->rtype,
                                                MPI_COMM_WORLD)
                  : topocoll_alltoall(sb, c->scount, c->stype, out, c->rcount, c->rtype, MPI_COMM_WORLD);
    size_t first = rn;
    for (size_t i = 0; i < rn && first == rn; i++)
        if (out[i] != ref[i]) first = i;
    CHECK(rc_ref == MPI_SUCCESS && rc == MPI_SUCCESS && first == rn,
          "%s, %s, np %d: rc %d (reference %d), first difference at int %zu of %zu", c->what,
          algo ? algo : "auto", size, rc, rc_ref, first, rn);
    free(s);
    free(ref);
    free(out);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype pair, triple, holes;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_contiguous(3, MPI_INT, &triple);
    MPI_Type_vector(2, 1, 2, MPI_INT, &holes);   /* ints 0 and 2, extent 3 ints */
    MPI_Type_commit(&pair);
    MPI_Type_commit(&triple);
    MPI_Type_commit(&holes);
    const a2a_case cases[] = {
        { "MPI_INT", MPI_INT, MPI_INT, K, K, 1, 1, 0 },
        { "2 ints to a pair", MPI_INT, pair, 2 * K, K, 1, 2, 0 },
        { "a triple to 3 ints", triple, MPI_INT, K, 3 * K, 3, 1, 0 },
        { "a vector with holes to 2 ints", holes, MPI_INT, K, 2 * K, 3, 1, 0 },
        { "in place, pairs", pair, pair, K, K, 2, 2, 1 },
    };
    int n = topocoll_variant_count(TOPOCOLL_ALLTOALL), entries = 0;
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        run_case(&cases[ci], NULL);
        for (int i = 0; i < n; i++) {
            const char *name = topocoll_variant_name(TOPOCOLL_ALLTOALL, i);
            if (!name || !strstr(name, "_pieces")) continue;
            entries += ci == 0;
            run_case(&cases[ci], name);
        }
    }
    CHECK(entries > 0, "no alltoall entry with pieces in the catalog");
    MPI_Type_free(&pair);
    MPI_Type_free(&triple);
    MPI_Type_free(&holes);
    int status = tc_test_mpi_summary(0);
    MPI_Finalize();
    return status;
}
