/*
 * An ordinary MPI program (no topocoll.h, linked against MPI only) calling
 * MPI_Bcast, MPI_Scatter, MPI_Gather, MPI_Reduce, MPI_Reduce_scatter_block,
 * MPI_Allreduce, MPI_Allgatherv, MPI_Alltoallv, MPI_Reduce_scatter,
 * MPI_Alltoallw and MPI_Barrier (and one MPI_Allgather), each checked
 * against values computed here (the barrier: tokens every rank stores into
 * node-shared memory before it, all read after it).  CTest
 * runs it once as it is and once with the topocoll interposer preloaded
 * (LD_PRELOAD=libtopocoll_pmpi.so, TOPOCOLL_EXPLAIN=1), where topocoll must
 * serve these calls and give the same results.
 *
 * On MPI_COMM_WORLD every collective is called at least twice (so rank 0
 * explains at least two calls of each); then MPI_Bcast and MPI_Reduce on the
 * even and odd ranks, in reverse order.
 *
 * Rank 0 prints "OK" when nothing failed and "N passed, M failed" (the
 * counts of every rank); exits 1 on any failure.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/mpi_harness.h"

#define N_SMALL 5
#define N_BIG 3000      /* ints per rank in the larger calls */

static int rank, size;

/* One case of this rank (counted by the harness; summed over the ranks at
 * the end). */
static void check(int ok, const char *what, int rc)
{
    CHECK(ok, "rank %d: %s (rc %d)", rank, what, rc);
}

/* A failure outside a check (set-up, resources). */
static void fail(const char *what, int rc)
{
    check(0, what, rc);
}

static int ival(int r, int i) { return r * 1000 + i * 7 + 1; }

static int *ints(size_t n)
{
    int *p = malloc((n ? n : 1) * sizeof(int));
    if (!p) fail("out of memory", 0);
    return p;
}

static void check_bcast(int n, int root)
{
    int *b = ints((size_t)n), rc, bad = 0;
    if (!b) return;
    for (int i = 0; i < n; i++) b[i] = rank == root ? ival(root, i) : -1;
    rc = MPI_Bcast(b, n, MPI_INT, root, MPI_COMM_WORLD);
    check(rc == MPI_SUCCESS, "MPI_Bcast returned an error", rc);
    for (int i = 0; i < n; i++)
        if (b[i] != ival(root, i)) bad = 1;
    check(!bad, "MPI_Bcast: wrong result", rc);
    free(b);
}

static void check_bcast_double(int root)
{
    double b[N_SMALL];
    int rc, bad = 0;
    for (int i = 0; i < N_SMALL; i++) b[i] = rank == root ? root + i * 0.5 : -1.0;
    rc = MPI_Bcast(b, N_SMALL, MPI_DOUBLE, root, MPI_COMM_WORLD);
    check(rc == MPI_SUCCESS, "MPI_Bcast(MPI_DOUBLE) returned an error", rc);
    for (int i = 0; i < N_SMALL; i++)
        if (b[i] != root + i * 0.5) bad = 1;
    check(!bad, "MPI_Bcast(MPI_DOUBLE): wrong result", rc);
}

/* Block q of the root's send buffer holds ival(q, i). */
static void check_scatter(int n, int root, int in_place)
{
    int *s = NULL, *r = ints((size_t)n), rc, bad = 0;
    if (!r) return;
    if (rank == root) {
        if (!(s = ints((size_t)n * (size_t)size))) { free(r); return; }
        for (int q = 0; q < size; q++)
            for (int i = 0; i < n; i++) s[q * n + i] = ival(q, i);
    }
    for (int i = 0; i < n; i++) r[i] = -1;
    rc = MPI_Scatter(s, n, MPI_INT, (in_place && rank == root) ? MPI_IN_PLACE : (void *)r, n, MPI_INT,
                     root, MPI_COMM_WORLD);
    check(rc == MPI_SUCCESS, in_place ? "MPI_Scatter(MPI_IN_PLACE) returned an error"
                                      : "MPI_Scatter returned an error", rc);
    if (in_place && rank == root) {
        for (int q = 0; q < size; q++)
            for (int i = 0; i < n; i++)
                if (s[q * n + i] != ival(q, i)) bad = 1;
    } else {
        for (int i = 0; i < n; i++)
            if (r[i] != ival(rank, i)) bad = 1;
    }
    check(!bad, in_place ? "MPI_Scatter(MPI_IN_PLACE): wrong result" : "MPI_Scatter: wrong result", rc);
    free(s);
    free(r);
}

static void check_gather(int n, int root, int in_place)
{
    int *s = ints((size_t)n), *r = NULL, rc, bad = 0;
    if (!s) return;
    for (int i = 0; i < n; i++) s[i] = ival(rank, i);
    if (rank == root) {
        if (!(r = ints((size_t)n * (size_t)size))) { free(s); return; }
        for (int i = 0; i < n * size; i++) r[i] = -1;
        if (in_place)
            for (int i = 0; i < n; i++) r[root * n + i] = ival(root, i);
    }
    rc = MPI_Gather((in_place && rank == root) ? MPI_IN_PLACE : (const void *)s, n, MPI_INT, r, n, MPI_INT,
                    root, MPI_COMM_WORLD);
    check(rc == MPI_SUCCESS, in_place ? "MPI_Gather(MPI_IN_PLACE) returned an error"
                                      : "MPI_Gather returned an error", rc);
    if (rank == root)
        for (int q = 0; q < size; q++)
            for (int i = 0; i < n; i++)
                if (r[q * n + i] != ival(q, i)) bad = 1;
    check(!bad, in_place ? "MPI_Gather(MPI_IN_PLACE): wrong result" : "MPI_Gather: wrong result", rc);
    free(s);
    free(r);
}

/* Sum over ranks of (q + i % 5): size * (i % 5) + size * (size - 1) / 2. */
static int sum_of(int i) { return size * (i % 5) + size * (size - 1) / 2; }

static void check_reduce_sum(int n, int root, int in_place)
{
    int *s = ints((size_t)n), *r = ints((size_t)n), rc, bad = 0;
    if (!s || !r) { free(s); free(r); return; }
    for (int i = 0; i < n; i++) {
        s[i] = rank + i % 5;
        r[i] = (in_place && rank == root) ? s[i] : -1;
    }
    rc = MPI_Reduce((in_place && rank == root) ? MPI_IN_PLACE : (const void *)s, r, n, MPI_INT, MPI_SUM,
                    root, MPI_COMM_WORLD);
    check(rc == MPI_SUCCESS, in_place ? "MPI_Reduce(MPI_IN_PLACE) returned an error"
                                      : "MPI_Reduce returned an error", rc);
    if (rank == root)
        for (int i = 0; i < n; i++)
            if (r[i] != sum_of(i)) bad = 1;
    check(!bad, in_place ? "MPI_Reduce(MPI_IN_PLACE, MPI_SUM): wrong result"
                         : "MPI_Reduce(MPI_SUM): wrong result", rc);
    free(s);
    free(r);
}

/* A non-commutative op: 2x2 matrix product, inout = in x inout (mod 2^32). */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const unsigned *a = in;
    unsigned *b = inout;
    (void)dt;
    for (int i = 0; i < *len; i++, a += 4, b += 4) {
        unsigned r0 = a[0] * b[0] + a[1] * b[2], r1 = a[0] * b[1] + a[1] * b[3];
        unsigned r2 = a[2] * b[0] + a[3] * b[2], r3 = a[2] * b[1] + a[3] * b[3];
        b[0] = r0; b[1] = r1; b[2] = r2; b[3] = r3;
    }
}

/* Rank q's matrix: [[1, q + 1], [0, 1]] x [[1, 0], [q, 1]] -- the product in
 * rank order is checked against a product computed here. */
static void mat_of(int q, unsigned m[4])
{
    m[0] = 1u + (unsigned)q * (unsigned)(q + 1);
    m[1] = (unsigned)q + 1u;
    m[2] = (unsigned)q;
    m[3] = 1u;
}

static void check_reduce_noncommutative(int root)
{
    MPI_Datatype mat;
    MPI_Op op;
    unsigned s[4], r[4] = { 0, 0, 0, 0 }, want[4] = { 1, 0, 0, 1 };
    int rc, bad = 0;
    if (MPI_Type_contiguous(4, MPI_UNSIGNED, &mat) != MPI_SUCCESS || MPI_Type_commit(&mat) != MPI_SUCCESS ||
        MPI_Op_create(matmul, 0, &op) != MPI_SUCCESS) {
        fail("MPI_Type_contiguous / MPI_Op_create", 0);
        return;
    }
    mat_of(rank, s);
    rc = MPI_Reduce(s, r, 1, mat, op, root, MPI_COMM_WORLD);
    check(rc == MPI_SUCCESS, "MPI_Reduce(non-commutative op) returned an error", rc);
    for (int q = size - 1; q >= 0; q--) {   /* want = m0 x m1 x ... x m_{size-1} */
        unsigned m[4];
        int one = 1;
        mat_of(q, m);
        matmul(m, want, &one, &mat);
    }
    if (rank == root && memcmp(r, want, sizeof r) != 0) bad = 1;
    check(!bad, "MPI_Reduce(non-commutative op): wrong result", rc);
    check(MPI_Op_free(&op) == MPI_SUCCESS && MPI_Type_free(&mat) == MPI_SUCCESS, "MPI_Op_free / MPI_Type_free", 0);
}

static void check_reduce_max_double(int root)
{
    double s[N_SMALL], r[N_SMALL];
    int rc, bad = 0;
    for (int i = 0; i < N_SMALL; i++) {
        s[i] = (double)((rank * 7 + i * 3) % (size + 2));
        r[i] = -1.0;
    }
    rc = MPI_Reduce(s, r, N_SMALL, MPI_DOUBLE, MPI_MAX, root, MPI_COMM_WORLD);
    check(rc == MPI_SUCCESS, "MPI_Reduce(MPI_DOUBLE, MPI_MAX) returned an error", rc);
    if (rank == root)
        for (int i = 0; i < N_SMALL; i++) {
            double m = -1.0;
            for (int q = 0; q < size; q++)
                if ((double)((q * 7 + i * 3) % (size + 2)) > m) m = (double)((q * 7 + i * 3) % (size + 2));
            if (r[i] != m) bad = 1;
        }
    check(!bad, "MPI_Reduce(MPI_DOUBLE, MPI_MAX): wrong result", rc);
}

/* Input element j (of size * n) on rank q: q + j % 5; block `rank` of the sum. */
static void check_reduce_scatter_block(int n, int in_place)
{
    size_t total = (size_t)n * (size_t)size;
    int *s = ints(total), *r = ints(in_place ? total : (size_t)n), rc, bad = 0;
    if (!s || !r) { free(s); free(r); return; }
    for (size_t j = 0; j < total; j++) s[j] = rank + (int)(j % 5);
    if (in_place) memcpy(r, s, total * sizeof(int));
    else for (int i = 0; i < n; i++) r[i] = -1;
    rc = MPI_Reduce_scatter_block(in_place ? MPI_IN_PLACE : (const void *)s, r, n, MPI_INT, MPI_SUM,
                                  MPI_COMM_WORLD);
    check(rc == MPI_SUCCESS, in_place ? "MPI_Reduce_scatter_block(MPI_IN_PLACE) returned an error"
                                      : "MPI_Reduce_scatter_block returned an error", rc);
    for (int i = 0; i < n; i++)
        if (r[i] != sum_of(rank * n + i)) bad = 1;
    check(!bad, in_place ? "MPI_Reduce_scatter_block(MPI_IN_PLACE): wrong result"
                         : "MPI_Reduce_scatter_block: wrong result", rc);
    free(s);
    free(r);
}

/* MPI_Reduce_scatter: rank q receives n + q % 3 ints (rank 1: none) of the
 * vector whose element g on rank q is q + g % 5; in place or not. */
static void check_reduce_scatter(int n, int in_place)
{
    int *cnt = ints((size_t)size), total = 0, at = 0, rc, bad = 0;
    if (!cnt) return;
    for (int q = 0; q < size; q++) {
        cnt[q] = q == 1 ? 0 : n + q % 3;
        if (q < rank) at += cnt[q];
        total += cnt[q];
    }
    int *s = ints((size_t)total + 1), *r = ints((size_t)(in_place ? total : cnt[rank]) + 1);
    if (!s || !r) { free(cnt); free(s); free(r); return; }
    for (int g = 0; g < total; g++) s[g] = rank + g % 5;
    if (in_place) memcpy(r, s, (size_t)total * sizeof(int));
    else for (int i = 0; i < cnt[rank]; i++) r[i] = -1;
    rc = MPI_Reduce_scatter(in_place ? MPI_IN_PLACE : (const void *)s, r, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check(rc == MPI_SUCCESS, in_place ? "MPI_Reduce_scatter(MPI_IN_PLACE) returned an error"
                                      : "MPI_Reduce_scatter returned an error", rc);
    for (int i = 0; i < cnt[rank]; i++)
        if (r[i] != sum_of(at + i)) bad = 1;
    check(!bad, in_place ? "MPI_Reduce_scatter(MPI_IN_PLACE): wrong result" : "MPI_Reduce_scatter: wrong result",
          rc);
    free(cnt), free(s), free(r);
}

/* MPI_Allreduce: MPI_SUM of ints (in place or not), and the non-commutative
 * matrix product in rank order at every rank. */
static void check_allreduce_sum(int n, int in_place)
{
    int *s = ints((size_t)n), *r = ints((size_t)n), rc, bad = 0;
    if (!s || !r) { free(s); free(r); return; }
    for (int i = 0; i < n; i++) {
        s[i] = rank + i % 5;
        r[i] = in_place ? s[i] : -1;
    }
    rc = MPI_Allreduce(in_place ? MPI_IN_PLACE : (const void *)s, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check(rc == MPI_SUCCESS, in_place ? "MPI_Allreduce(MPI_IN_PLACE) returned an error"
                                      : "MPI_Allreduce returned an error", rc);
    for (int i = 0; i < n; i++)
        if (r[i] != sum_of(i)) bad = 1;
    check(!bad, in_place ? "MPI_Allreduce(MPI_IN_PLACE, MPI_SUM): wrong result"
                         : "MPI_Allreduce(MPI_SUM): wrong result", rc);
    free(s);
    free(r);
}

static void check_allreduce_noncommutative(void)
{
    MPI_Datatype mat;
    MPI_Op op;
    unsigned s[4], r[4] = { 0, 0, 0, 0 }, want[4] = { 1, 0, 0, 1 };
    int rc;
    if (MPI_Type_contiguous(4, MPI_UNSIGNED, &mat) != MPI_SUCCESS || MPI_Type_commit(&mat) != MPI_SUCCESS ||
        MPI_Op_create(matmul, 0, &op) != MPI_SUCCESS) {
        fail("MPI_Type_contiguous / MPI_Op_create", 0);
        return;
    }
    mat_of(rank, s);
    rc = MPI_Allreduce(s, r, 1, mat, op, MPI_COMM_WORLD);
    check(rc == MPI_SUCCESS, "MPI_Allreduce(non-commutative op) returned an error", rc);
    for (int q = size - 1; q >= 0; q--) {   /* want = m0 x m1 x ... x m_{size-1} */
        unsigned m[4];
        int one = 1;
        mat_of(q, m);
        matmul(m, want, &one, &mat);
    }
    check(memcmp(r, want, sizeof r) == 0, "MPI_Allreduce(non-commutative op): wrong result", rc);
    check(MPI_Op_free(&op) == MPI_SUCCESS && MPI_Type_free(&mat) == MPI_SUCCESS, "MPI_Op_free / MPI_Type_free", 0);
}

static void check_allgather(void)
{
    int v = ival(rank, 0), *r = ints((size_t)size), rc, bad = 0;
    if (!r) return;
    rc = MPI_Allgather(&v, 1, MPI_INT, r, 1, MPI_INT, MPI_COMM_WORLD);
    check(rc == MPI_SUCCESS, "MPI_Allgather returned an error", rc);
    for (int q = 0; q < size; q++)
        if (r[q] != ival(q, 0)) bad = 1;
    check(!bad, "MPI_Allgather: wrong result", rc);
    free(r);
}

/* MPI_Allgatherv: rank q contributes n + q % 3 ints (rank 1: none), the
 * blocks in reverse rank order in the receive buffer; in place or not. */
static void check_allgatherv(int n, int in_place)
{
    int *cnt = ints((size_t)size), *dsp = ints((size_t)size), total = 0, rc, bad = 0;
    for (int q = size - 1; q >= 0; q--) {
        cnt[q] = q == 1 ? 0 : n + q % 3;
        dsp[q] = total;
        total += cnt[q];
    }
    int *s = ints((size_t)cnt[rank]), *r = ints((size_t)total);
    for (int i = 0; i < total; i++) r[i] = -1;
    for (int i = 0; i < cnt[rank]; i++) s[i] = r[dsp[rank] + i] = ival(rank, i);
    rc = MPI_Allgatherv(in_place ? MPI_IN_PLACE : (const void *)s, cnt[rank], MPI_INT, r, cnt, dsp, MPI_INT,
                        MPI_COMM_WORLD);
    check(rc == MPI_SUCCESS, in_place ? "MPI_Allgatherv(MPI_IN_PLACE) returned an error"
                                      : "MPI_Allgatherv returned an error", rc);
    for (int q = 0; q < size; q++)
        for (int i = 0; i < cnt[q]; i++)
            if (r[dsp[q] + i] != ival(q, i)) bad = 1;
    check(!bad, in_place ? "MPI_Allgatherv(MPI_IN_PLACE): wrong result" : "MPI_Allgatherv: wrong result", rc);
    free(cnt), free(dsp), free(s), free(r);
}

/* MPI_Alltoallv: rank q sends rank j n + (q + j) % 3 ints, none where
 * (q + j) % 4 == 1, the parts in reverse rank order in both buffers; in
 * place (symmetric counts) or not. */
static int a2av_count(int q, int j, int n) { return (q + j) % 4 == 1 ? 0 : n + (q + j) % 3; }

static void check_alltoallv(int n, int in_place)
{
    int *sc = ints((size_t)size), *sd = ints((size_t)size), *rc_ = ints((size_t)size), *rd = ints((size_t)size);
    int st = 0, rt = 0, rc, bad = 0;
    for (int j = size - 1; j >= 0; j--) {
        sc[j] = a2av_count(rank, j, n), rc_[j] = a2av_count(j, rank, n);
        sd[j] = st, rd[j] = rt;
        st += sc[j], rt += rc_[j];
    }
    int *s = ints((size_t)st), *r = ints((size_t)rt);
    for (int j = 0; j < size; j++)
        for (int i = 0; i < sc[j]; i++) s[sd[j] + i] = ival(rank * size + j, i);
    if (in_place) memcpy(r, s, (size_t)rt * sizeof *r);   /* symmetric: the same layout */
    rc = MPI_Alltoallv(in_place ? MPI_IN_PLACE : (const void *)s, sc, sd, MPI_INT, r, rc_, rd, MPI_INT,
                       MPI_COMM_WORLD);
    check(rc == MPI_SUCCESS, in_place ? "MPI_Alltoallv(MPI_IN_PLACE) returned an error"
                                      : "MPI_Alltoallv returned an error", rc);
    for (int q = 0; q < size; q++)
        for (int i = 0; i < rc_[q]; i++)
            if (r[rd[q] + i] != ival(q * size + rank, i)) bad = 1;
    check(!bad, in_place ? "MPI_Alltoallv(MPI_IN_PLACE): wrong result" : "MPI_Alltoallv: wrong result", rc);
    free(sc), free(sd), free(rc_), free(rd), free(s), free(r);
}

/* MPI_Alltoallw: the counts of check_alltoallv; to odd ranks the part goes
 * as one vector(count, 1, 2, MPI_INT) (every other int of the send slot),
 * to even ones as MPI_INT; received as MPI_INT, the parts in reverse rank
 * order, byte displacements; in place or not. */
static void check_alltoallw(int n, int in_place)
{
    int slot = 2 * (n + 3), *sc = ints((size_t)size), *sd = ints((size_t)size), *rc_ = ints((size_t)size);
    int *rd = ints((size_t)size), rc, bad = 0;
    MPI_Datatype *st = malloc(2 * (size_t)size * sizeof *st), *rt = st + size;
    int *s = ints((size_t)size * (size_t)slot), *r = ints((size_t)size * (size_t)slot);
    for (int j = 0; j < size; j++) {
        int c = a2av_count(rank, j, n);
        sd[j] = j * slot * (int)sizeof(int), rd[j] = (size - 1 - j) * slot * (int)sizeof(int);
        rc_[j] = a2av_count(j, rank, n), rt[j] = MPI_INT;
        sc[j] = j % 2 == 1 && c > 0 ? 1 : c, st[j] = MPI_INT;
        if (j % 2 == 1 && c > 0) {
            MPI_Type_vector(c, 1, 2, MPI_INT, &st[j]);
            MPI_Type_commit(&st[j]);
        }
        for (int i = 0; i < c; i++) s[j * slot + (j % 2 == 1 ? 2 * i : i)] = ival(rank * size + j, i);
        for (int i = 0; in_place && i < c; i++) r[(size - 1 - j) * slot + i] = ival(rank * size + j, i);
    }
    rc = MPI_Alltoallw(in_place ? MPI_IN_PLACE : (const void *)s, sc, sd, st, r, rc_, rd, rt, MPI_COMM_WORLD);
    check(rc == MPI_SUCCESS, in_place ? "MPI_Alltoallw(MPI_IN_PLACE) returned an error"
                                      : "MPI_Alltoallw returned an error", rc);
    for (int q = 0; q < size; q++)
        for (int i = 0; i < rc_[q]; i++)
            if (r[(size - 1 - q) * slot + i] != ival(q * size + rank, i)) bad = 1;
    check(!bad, in_place ? "MPI_Alltoallw(MPI_IN_PLACE): wrong result" : "MPI_Alltoallw: wrong result", rc);
    for (int j = 0; j < size; j++)
        if (st[j] != MPI_INT) MPI_Type_free(&st[j]);
    free(sc), free(sd), free(rc_), free(rd), free(st), free(s), free(r);
}

/* Even and odd ranks, in reverse order inside each: MPI_Bcast from sub rank 0
 * (the largest world rank of the parity) and MPI_Reduce to the last sub rank. */
static void check_subcomm(void)
{
    MPI_Comm sub;
    int srank, ssize, rc, v[2], sum[2] = { -1, -1 };
    int top = (size - 1) - ((size - 1 - rank % 2) % 2);   /* largest world rank of this parity */
    rc = MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &sub);
    if (rc != MPI_SUCCESS) { fail("MPI_Comm_split", rc); return; }
    if (MPI_Comm_rank(sub, &srank) != MPI_SUCCESS || MPI_Comm_size(sub, &ssize) != MPI_SUCCESS) {
        fail("MPI_Comm_rank/size of the sub-communicator", 0);
        check(MPI_Comm_free(&sub) == MPI_SUCCESS, "MPI_Comm_free", 0);
        return;
    }
    v[0] = v[1] = srank == 0 ? rank : -1;
    rc = MPI_Bcast(v, 2, MPI_INT, 0, sub);
    check(rc == MPI_SUCCESS, "MPI_Bcast on a sub-communicator returned an error", rc);
    check(v[0] == top && v[1] == top, "MPI_Bcast on a sub-communicator: wrong result", rc);
    v[0] = rank;
    v[1] = 1;
    rc = MPI_Reduce(v, sum, 2, MPI_INT, MPI_SUM, ssize - 1, sub);
    check(rc == MPI_SUCCESS, "MPI_Reduce on a sub-communicator returned an error", rc);
    if (srank == ssize - 1) {
        int want = 0;
        for (int q = rank % 2; q < size; q += 2) want += q;
        check(sum[0] == want && sum[1] == ssize, "MPI_Reduce on a sub-communicator: wrong result", rc);
    }
    check(MPI_Comm_free(&sub) == MPI_SUCCESS, "MPI_Comm_free", 0);
}

/* The closing lines (tests/common/mpi_harness.h), then MPI_Finalize. */
static int finish(void)
{
    int status = tc_test_mpi_summary(1);
    if (MPI_Finalize() != MPI_SUCCESS) return 1;
    return status;
}

/* Three rounds: every rank stores the round's token into its slot of a
 * node-shared window (MPI_Win_sync around the barrier), calls MPI_Barrier,
 * reads every slot (all must hold the round's token: no rank left before
 * every rank had stored it), and calls MPI_Barrier again before the next
 * round's stores.  Shared memory, not passive-target RMA: a put to a rank
 * that waits on node-shared flags (no MPI call) would wait for its MPI
 * progress under MPICH.  Ranks on several machines: the slots are not read. */
static void check_barrier(void)
{
    MPI_Comm node;
    MPI_Win win;
    int nsize = 0, nrank = 0, du = 0, rc, *mem = NULL;
    MPI_Aint sz = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nsize);
    MPI_Comm_rank(node, &nrank);
    rc = MPI_Win_allocate_shared((MPI_Aint)(nrank == 0 ? size : 0) * (MPI_Aint)sizeof(int), sizeof(int),
                                 MPI_INFO_NULL, node, &mem, &win);
    if (rc != MPI_SUCCESS) {
        fail("MPI_Win_allocate_shared for MPI_Barrier", rc);
        MPI_Comm_free(&node);
        return;
    }
    MPI_Win_shared_query(win, 0, &sz, &du, &mem);
    volatile int *slots = nsize == size ? mem : NULL;
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    for (int round = 1; round <= 3; round++) {
        if (slots) slots[rank] = round;
        if (slots) MPI_Win_sync(win);
        rc = MPI_Barrier(MPI_COMM_WORLD);
        check(rc == MPI_SUCCESS, "MPI_Barrier returned an error", rc);
        if (slots) MPI_Win_sync(win);
        int ok = 1;
        for (int j = 0; slots && j < size; j++) ok = ok && slots[j] == round;
        check(ok, "MPI_Barrier: a rank's token missing after the barrier", rc);
        rc = MPI_Barrier(MPI_COMM_WORLD);
        check(rc == MPI_SUCCESS, "MPI_Barrier returned an error", rc);
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
}

int main(int argc, char **argv)
{
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "FAIL: MPI_Init\n");
        return 1;
    }
    if (MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) != MPI_SUCCESS ||
        MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS ||
        MPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS) {
        fprintf(stderr, "FAIL: MPI set-up\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    check_bcast(N_SMALL, 0);
    check_bcast(N_BIG, size - 1);
    check_bcast_double(size / 2);
    check_scatter(N_SMALL, 0, 0);
    check_scatter(N_BIG, size - 1, 1);
    check_gather(N_SMALL, 0, 0);
    check_gather(N_BIG, size - 1, 1);
    /* MPI_IN_PLACE at a root other than 0 only with a small count: MPICH
     * before 4.2 crashes there with large counts (pmodels/mpich#6540). */
    check_reduce_sum(N_SMALL, size - 1, 1);
    check_reduce_sum(N_BIG, 0, 1);
    check_reduce_sum(N_BIG, size - 1, 0);
    check_reduce_max_double(size / 2);
    check_reduce_noncommutative(0);
    check_reduce_scatter_block(N_SMALL, 0);
    check_reduce_scatter_block(N_BIG, 1);
    check_reduce_scatter(N_SMALL, 0);
    check_reduce_scatter(N_BIG, 1);
    check_allgather();
    check_allreduce_sum(N_SMALL, 0);
    check_allreduce_sum(N_BIG, 1);
    check_allreduce_noncommutative();
    check_allgatherv(N_SMALL, 0);
    check_allgatherv(N_BIG, 1);
    check_alltoallv(N_SMALL, 0);
    check_alltoallv(N_BIG, 1);
    check_barrier();
    check_alltoallw(N_SMALL, 0);
    check_alltoallw(N_BIG, 1);
    check_subcomm();
    return finish();
}
