/*
 * The local reduction kernels (src/exec/reduce_kernels.c) against the MPI
 * library's PMPI_Reduce_local, byte for byte.
 *
 *  - every (op, type) pair of the kernel table: a kernel is found, and on
 *    random data (integers: any bit pattern, so sums and products wrap;
 *    floating point: mixed magnitudes, signed zeros, infinities, NaNs, with
 *    NaNs on both sides for MIN/MAX and on one side at a time for SUM/PROD)
 *    of several lengths (the vector loops' tails) and at several aligned
 *    offsets, the kernel and tc_reduce_local give exactly what
 *    PMPI_Reduce_local gives (where the library's own probe at start-up
 *    found it computes otherwise, tc_reduce_local leaves the pair to the
 *    library: noted, and compared all the same);
 *  - pairs without a kernel (MINLOC/MAXLOC, logical and bitwise ops, complex,
 *    long double, MPI_C_BOOL, a user-defined op, a derived type)
 *    find none, and tc_reduce_local gives what PMPI_Reduce_local gives;
 *  - tc_reduce_local with overlapping regions or unaligned addresses leaves
 *    the work to the MPI library (same result, or the same error class, as
 *    PMPI_Reduce_local).
 *
 * Open MPI runs with "--mca op ^avx" (the CMake test definition): its AVX
 * component's 8-bit MPI_SUM is wrong on some CPUs, the base one is the
 * reference.  Run at np 1 (every rank repeats the same checks otherwise).
 * Ends with "N passed, M failed".
 */
#include <mpi.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/reduce_kernels.h"
#include "common/mpi_harness.h"

#define MAXN 4099
#define PAD 64        /* bytes before each region, for the offsets */

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static int notes;   /* pairs the probe left to the library */

static uint64_t next64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int is_op(MPI_Op a, MPI_Op b) { return a == b; }

/* An error code's class (MPICH's codes carry more than the class). */
static int cls(int rc)
{
    int c = rc;
    if (rc != MPI_SUCCESS && MPI_Error_class(rc, &c) != MPI_SUCCESS) c = -1;
    return c;
}

/* A float or double value: finite of mixed magnitude mostly, sometimes a
 * signed zero or infinity, and a NaN where nan_ok. */
static double fp_value(int nan_ok)
{
    uint64_t r = next64();
    switch (r % 16) {
    case 0: return 0.0;
    case 1: return -0.0;
    case 2: return (r & 16) ? INFINITY : -INFINITY;
    case 3: return nan_ok ? ((r & 16) ? NAN : -NAN) : 1.0;
    default: {
        double m = (double)(int64_t)(r >> 11) / 9007199254740992.0;   /* [-1, 1) */
        return ldexp(m, (int)((r >> 4) % 80) - 40);
    }
    }
}

/* Fills n elements of type (size bytes) at buf; side 0 is in, 1 inout. */
static void fill(void *buf, MPI_Datatype type, int size, MPI_Op op, int side, int n)
{
    int minmax = is_op(op, MPI_MIN) || is_op(op, MPI_MAX);
    for (int i = 0; i < n; i++) {
        int nan_ok = minmax || (i % 2) == side;   /* SUM/PROD: NaN on one side only */
        if (type == MPI_DOUBLE) {
            double v = fp_value(nan_ok);
            memcpy((char *)buf + (size_t)i * 8, &v, 8);
        } else if (type == MPI_FLOAT) {
            float v = (float)fp_value(nan_ok);
            memcpy((char *)buf + (size_t)i * 4, &v, 4);
        } else {
            uint64_t v = next64();
            if (i % 7 == 3) v = 0;                      /* a few equal values for MIN/MAX */
            memcpy((char *)buf + (size_t)i * (size_t)size, &v, (size_t)size);
        }
    }
}

static const char *op_name(MPI_Op op)
{
    return is_op(op, MPI_SUM) ? "MPI_SUM" : is_op(op, MPI_PROD) ? "MPI_PROD" : is_op(op, MPI_MIN) ? "MPI_MIN"
           : is_op(op, MPI_MAX) ? "MPI_MAX" : "another op";
}

static const char *type_name(MPI_Datatype t, char *buf)
{
    int len = 0;
    if (MPI_Type_get_name(t, buf, &len) != MPI_SUCCESS || len == 0) strcpy(buf, "(unnamed)");
    return buf;
}

/* The C semantics of (op, type), element by element, independent of the
 * kernels and of the MPI library: for the pairs the library computes
 * otherwise (the probe left them to it), the kernel must still be right. */
static int class_of(MPI_Datatype t, int *sgn)
{
    const MPI_Datatype s[] = { MPI_SIGNED_CHAR, MPI_SHORT, MPI_INT, MPI_LONG, MPI_LONG_LONG, MPI_LONG_LONG_INT,
                               MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T };
    *sgn = 0;
    if (t == MPI_FLOAT) return 'f';
    if (t == MPI_DOUBLE) return 'd';
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
        if (s[i] == t) *sgn = 1;
    return 'i';
}

static int64_t load_int(const unsigned char *p, int size, int sgn)
{
    uint64_t u = 0;
    memcpy(&u, p, (size_t)size);   /* little-endian hosts */
    if (sgn && size < 8 && (u >> (size * 8 - 1)) & 1) u |= ~(uint64_t)0 << (size * 8);
    return (int64_t)u;
}

static void reference(MPI_Op op, MPI_Datatype type, int size, const unsigned char *in, unsigned char *io, int n)
{
    int sgn, cls = class_of(type, &sgn);
    for (int i = 0; i < n; i++, in += size, io += size) {
        if (cls == 'f') {
            float a, b, r;
            memcpy(&a, io, 4), memcpy(&b, in, 4);
            r = is_op(op, MPI_SUM) ? a + b : is_op(op, MPI_PROD) ? a * b : is_op(op, MPI_MIN) ? (a < b ? a : b)
                                                                                            : (a > b ? a : b);
            memcpy(io, &r, 4);
            continue;
        }
        if (cls == 'd') {
            double a, b, r;
            memcpy(&a, io, 8), memcpy(&b, in, 8);
            r = is_op(op, MPI_SUM) ? a + b : is_op(op, MPI_PROD) ? a * b : is_op(op, MPI_MIN) ? (a < b ? a : b)
                                                                                            : (a > b ? a : b);
            memcpy(io, &r, 8);
            continue;
        }
        int64_t a = load_int(io, size, sgn), b = load_int(in, size, sgn);
        uint64_t ua = (uint64_t)a, ub = (uint64_t)b, r;
        if (is_op(op, MPI_SUM)) r = ua + ub;
        else if (is_op(op, MPI_PROD)) r = ua * ub;
        else if (sgn) r = (uint64_t)(is_op(op, MPI_MIN) ? (a < b ? a : b) : (a > b ? a : b));
        else {
            uint64_t ma = size < 8 ? ua & ((1ull << (size * 8)) - 1) : ua, mb = size < 8 ? ub & ((1ull << (size * 8)) - 1) : ub;
            r = is_op(op, MPI_MIN) ? (ma < mb ? ma : mb) : (ma > mb ? ma : mb);
        }
        memcpy(io, &r, (size_t)size);
    }
}

/* The kernel of pair (op, type) against PMPI_Reduce_local: n elements, the
 * regions offset by off elements from their aligned starts. */
static void one_pair(MPI_Op op, MPI_Datatype type, int n, int off, unsigned char *mem)
{
    char tn[MPI_MAX_OBJECT_NAME];
    int size = 0;
    MPI_Type_size(type, &size);
    size_t bytes = (size_t)n * (size_t)size, span = PAD + (size_t)MAXN * 8;
    unsigned char *in = mem + PAD + (size_t)off * (size_t)size, *ref = in + span, *k1 = ref + span,
                  *k2 = k1 + span;
    fill(in, type, size, op, 0, n);
    fill(ref, type, size, op, 1, n);
    memcpy(k1, ref, bytes);
    memcpy(k2, ref, bytes);
    tc_reduce_kernel k;
    tc_reduce_kernel_find(op, type, &k);
    CHECK(k.table_fn != NULL && k.elem == (size_t)size, "%s %s: no kernel in the table (or element size %zu)",
          op_name(op), type_name(type, tn), k.elem);
    CHECK((k.fn != NULL) != k.library_differs, "%s %s: kernel %p but library_differs %d", op_name(op),
          type_name(type, tn), (void *)(uintptr_t)k.fn, k.library_differs);
    if (!k.table_fn) return;
    if (k.library_differs) {
        /* left to the library by the probe: the kernel must agree with the C
         * semantics all the same (then the library is the one that differs) */
        unsigned char *want = k2 + span;
        memcpy(want, ref, bytes);
        reference(op, type, size, in, want, n);
        k.table_fn(in, k1, (size_t)n);
        CHECK(memcmp(k1, want, bytes) == 0, "%s %s n=%d: the kernel differs from the C semantics", op_name(op),
              type_name(type, tn), n);
        if (n == MAXN) {
            printf("note: %s %s: the MPI library computes otherwise (the kernel follows C), it serves this pair\n",
                   op_name(op), type_name(type, tn));
            notes++;
        }
    }
    int rc = PMPI_Reduce_local(in, ref, n, type, op);
    CHECK(rc == MPI_SUCCESS, "%s %s n=%d: PMPI_Reduce_local rc %d", op_name(op), type_name(type, tn), n, rc);
    if (k.library_differs) memcpy(k1, ref, bytes);   /* only tc_reduce_local (the library) is compared */
    else k.fn(in, k1, (size_t)n);
    int rc2 = tc_reduce_local(&k, in, k2, n, size, size);
    CHECK(rc2 == MPI_SUCCESS, "%s %s n=%d: tc_reduce_local rc %d", op_name(op), type_name(type, tn), n, rc2);
    for (int which = 0; which < 2; which++) {
        const unsigned char *got = which ? k2 : k1;
        size_t d = 0;
        while (d < bytes && got[d] == ref[d]) d++;
        CHECK(d == bytes, "%s %s n=%d offset %d: %s differs from PMPI_Reduce_local at element %zu",
              op_name(op), type_name(type, tn), n, off, which ? "tc_reduce_local" : "the kernel",
              d / (size_t)size);
    }
}

static void every_pair(unsigned char *mem)
{
    static const int lens[] = { 0, 1, 2, 3, 7, 8, 15, 16, 17, 31, 33, 1000, MAXN };
    int npairs = tc_reduce_kernel_count();
    CHECK(npairs >= 4 * 20, "only %d (op, type) pairs have kernels", npairs);
    for (int p = 0; p < npairs; p++) {
        MPI_Op op;
        MPI_Datatype type;
        tc_reduce_kernel_pair(p, &op, &type);
        for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++)
            one_pair(op, type, lens[l], (int)(l % 3), mem);
    }
}

/* The types every MPI knows, each pair checked (the table must cover them). */
static void expected_pairs(void)
{
    const MPI_Datatype types[] = { MPI_DOUBLE, MPI_FLOAT, MPI_INT, MPI_UNSIGNED, MPI_LONG, MPI_UNSIGNED_LONG,
                                   MPI_LONG_LONG, MPI_UNSIGNED_LONG_LONG, MPI_SHORT, MPI_UNSIGNED_SHORT,
                                   MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_INT8_T, MPI_UINT8_T, MPI_INT16_T,
                                   MPI_UINT16_T, MPI_INT32_T, MPI_UINT32_T, MPI_INT64_T, MPI_UINT64_T };
    const MPI_Op ops[] = { MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX };
    char tn[MPI_MAX_OBJECT_NAME];
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
        for (int o = 0; o < 4; o++) {
            tc_reduce_kernel k;
            tc_reduce_kernel_find(ops[o], types[t], &k);
            CHECK(k.table_fn != NULL && (k.fn != NULL || k.library_differs), "%s %s: no kernel", op_name(ops[o]),
                  type_name(types[t], tn));
        }
}

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++) ((int *)inout)[i] += ((int *)in)[i];
}

/* Pairs the MPI library serves: no kernel, and tc_reduce_local's result is
 * PMPI_Reduce_local's. */
static void fallback_pairs(unsigned char *mem)
{
    MPI_Op user;
    MPI_Datatype con;
    MPI_Op_create(user_sum, 1, &user);
    MPI_Type_contiguous(2, MPI_INT, &con);
    MPI_Type_commit(&con);
    const struct { MPI_Op op; MPI_Datatype type; const char *name; } pairs[] = {
        { MPI_MINLOC, MPI_2INT, "MPI_MINLOC MPI_2INT" },
        { MPI_MAXLOC, MPI_DOUBLE_INT, "MPI_MAXLOC MPI_DOUBLE_INT" },
        { MPI_BAND, MPI_INT, "MPI_BAND MPI_INT" },
        { MPI_BXOR, MPI_BYTE, "MPI_BXOR MPI_BYTE" },
        { MPI_LOR, MPI_INT, "MPI_LOR MPI_INT" },
        { MPI_LAND, MPI_C_BOOL, "MPI_LAND MPI_C_BOOL" },
        { MPI_SUM, MPI_C_DOUBLE_COMPLEX, "MPI_SUM MPI_C_DOUBLE_COMPLEX" },
        { MPI_SUM, MPI_LONG_DOUBLE, "MPI_SUM MPI_LONG_DOUBLE" },
        { user, MPI_INT, "user sum MPI_INT" },
        { MPI_SUM, con, "MPI_SUM contiguous(2, MPI_INT)" },
    };
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        tc_reduce_kernel k;
        tc_reduce_kernel_find(pairs[p].op, pairs[p].type, &k);
        CHECK(k.fn == NULL, "%s: a kernel was found (the MPI library must serve it)", pairs[p].name);
        MPI_Aint lb, ext;
        MPI_Type_get_extent(pairs[p].type, &lb, &ext);
        int n = 100;
        size_t bytes = (size_t)n * (size_t)ext;
        unsigned char *in = mem, *ref = mem + bytes, *got = mem + 2 * bytes;
        for (size_t i = 0; i < bytes; i++) in[i] = (unsigned char)(next64() & 1);   /* valid bools */
        for (size_t i = 0; i < bytes; i++) ref[i] = (unsigned char)(next64() & 1);
        memcpy(got, ref, bytes);
        int rc = PMPI_Reduce_local(in, ref, n, pairs[p].type, pairs[p].op);
        int rc2 = tc_reduce_local(&k, in, got, n, ext, ext);
        CHECK(cls(rc2) == cls(rc), "%s: tc_reduce_local error class %d, PMPI_Reduce_local %d", pairs[p].name,
              cls(rc2), cls(rc));
        CHECK(memcmp(got, ref, bytes) == 0, "%s: tc_reduce_local differs from PMPI_Reduce_local", pairs[p].name);
    }
    MPI_Type_free(&con);
    MPI_Op_free(&user);
}

/* Overlapping regions (the same region: x = x + x) and unaligned addresses
 * go to the MPI library: results (or the error class: MPICH refuses the
 * same buffer twice) as PMPI_Reduce_local's. */
static void declined_regions(unsigned char *mem)
{
    tc_reduce_kernel k;
    tc_reduce_kernel_find(MPI_SUM, MPI_INT, &k);
    int n = 1000, *x = (int *)(void *)(mem + PAD), *ref = x + n;
    for (int i = 0; i < n; i++) x[i] = ref[i] = (int)(next64() % 100000) - 50000;
    int rc = tc_reduce_local(&k, x, x, n, sizeof(int), sizeof(int));
    int rc2 = PMPI_Reduce_local(ref, ref, n, MPI_INT, MPI_SUM);
    CHECK(cls(rc) == cls(rc2), "same region: error class %d, PMPI_Reduce_local's %d", cls(rc), cls(rc2));
    CHECK(memcmp(x, ref, (size_t)n * sizeof(int)) == 0, "same region: result differs from PMPI_Reduce_local");
    long bad = 0;
    for (int i = 0; i < n && rc2 == MPI_SUCCESS; i++) bad += x[i] % 2 != 0;
    CHECK(bad == 0, "same region: %ld elements are not doubled", bad);

    /* an int16 region at an odd address: the MPI library's loop */
    tc_reduce_kernel_find(MPI_MAX, MPI_SHORT, &k);
    unsigned char *in = mem + PAD + 1, *a = in + 2 * 2000 + 2, *b = a + 2 * 2000 + 2;
    for (int i = 0; i < 2 * 1000; i++) in[i] = (unsigned char)next64(), a[i] = b[i] = (unsigned char)next64();
    rc = tc_reduce_local(&k, in, a, 1000, 2, 2);
    rc2 = PMPI_Reduce_local(in, b, 1000, MPI_SHORT, MPI_MAX);
    CHECK(rc == MPI_SUCCESS && rc2 == MPI_SUCCESS, "unaligned: rc %d, PMPI_Reduce_local rc %d", rc, rc2);
    CHECK(memcmp(a, b, 2000) == 0, "unaligned: result differs from PMPI_Reduce_local");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    /* errors return (MPICH refuses aliased buffers); MPI-4 reports errors
     * without a communicator on MPI_COMM_SELF */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    size_t span = PAD + (size_t)MAXN * 8;
    unsigned char *mem = aligned_alloc(64, (5 * span + 64 * 1024 + 63) / 64 * 64);   /* a multiple of 64 (C11) */
    if (!mem) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    tc_test_counts_global.show_max = 200;
    every_pair(mem);
    expected_pairs();
    fallback_pairs(mem);
    declined_regions(mem);
    free(mem);
    int status = tc_test_mpi_summary(0);
    MPI_Finalize();
    return status;
}
