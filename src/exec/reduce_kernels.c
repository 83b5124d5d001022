/*
 * Local reduction kernels (see reduce_kernels.h).
 *
 * Steps: tc_reduce_kernel_find maps the op to one of four rows (SUM, PROD,
 * MIN, MAX) and the datatype, by a scan of the predefined types below, to a
 * column (the element's C representation: 8/16/32/64-bit signed or
 * unsigned integer, float, double); the function pointer is table[row][col].
 * tc_reduce_local runs it over the whole region in one call (no int pieces).
 * Cost: one pass over 3n bytes (read in, read and write inout); the loops
 * are compiled with -O3 (CMakeLists.txt sets it for this file alone) so
 * that gcc vectorises them (clang does at -O2 already), on x86-64 also for
 * AVX2 and AVX-512, chosen at load time.  Memory: none.
 * Restrictions: both addresses aligned for the element type, regions not
 * overlapping, elements dense; otherwise the MPI library serves.
 */
#include "exec/reduce_kernels.h"
#include "core/fp_env.h"
#include "core/thread_local.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <string.h>

_Static_assert(sizeof(long long) == 8 && sizeof(long) <= 8 && sizeof(int) == 4 && sizeof(short) == 2,
               "reduce kernels: unexpected C integer sizes");

enum { OP_SUM, OP_PROD, OP_MIN, OP_MAX, NOPS };
enum { K_I8, K_U8, K_I16, K_U16, K_I32, K_U32, K_I64, K_U64, K_F32, K_F64, NKINDS };

/* x86-64 with gcc: each loop is also compiled for AVX2 and AVX-512 and the
 * widest the CPU runs is chosen when the library is loaded (function
 * multi-versioning, an ifunc); element-wise, so every version computes the
 * same bytes.  Elsewhere one version: under ThreadSanitizer, which does not
 * take ifuncs, and under clang, whose resolvers of static multi-versioned
 * functions are global symbols (they would be exported from the library). */
#if defined(__x86_64__) && defined(__ELF__) && !defined(__SANITIZE_THREAD__) && \
    !defined(__clang__) && defined(__GNUC__) && __GNUC__ >= 8
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TC_NO_CLONES 1
#endif
#endif
#ifndef TC_NO_CLONES
#define TC_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
#endif
#ifndef TC_CLONES
#define TC_CLONES
#endif

/* One element-wise loop: io[i] = EXPR(a = io[i], b = in[i]). */
#define TC_LOOP(name, T, EXPR)                                                     \
    TC_CLONES static void name(const void *restrict vin, void *restrict vio, size_t n) \
    {                                                                              \
        const T *restrict in = vin;                                                \
        T *restrict io = vio;                                                      \
        for (size_t i = 0; i < n; i++) {                                           \
            const T a = io[i], b = in[i];                                          \
            io[i] = (EXPR);                                                        \
        }                                                                          \
    }

/* Integers: sums and products in the unsigned type U (wrapping, defined),
 * converted back to T (modulo 2^bits: gcc and clang define it so). */
#define TC_INT_KERNELS(tag, T, U)                  \
    TC_LOOP(sum_##tag, T, (T)((U)a + (U)b))        \
    TC_LOOP(prod_##tag, T, (T)((U)a * (U)b))       \
    TC_LOOP(min_##tag, T, a < b ? a : b)           \
    TC_LOOP(max_##tag, T, a > b ? a : b)

#define TC_FLOAT_KERNELS(tag, T)                   \
    TC_LOOP(sum_##tag, T, a + b)                   \
    TC_LOOP(prod_##tag, T, a * b)                  \
    TC_LOOP(min_##tag, T, a < b ? a : b)           \
    TC_LOOP(max_##tag, T, a > b ? a : b)

TC_INT_KERNELS(i8, int8_t, unsigned)
TC_INT_KERNELS(u8, uint8_t, unsigned)
TC_INT_KERNELS(i16, int16_t, unsigned)
TC_INT_KERNELS(u16, uint16_t, unsigned)
TC_INT_KERNELS(i32, int32_t, uint32_t)
TC_INT_KERNELS(u32, uint32_t, uint32_t)
TC_INT_KERNELS(i64, int64_t, uint64_t)
TC_INT_KERNELS(u64, uint64_t, uint64_t)
TC_FLOAT_KERNELS(f32, float)
TC_FLOAT_KERNELS(f64, double)

#define TC_ROW(op) { op##_i8, op##_u8, op##_i16, op##_u16, op##_i32, op##_u32, op##_i64, op##_u64, \
                     op##_f32, op##_f64 }
static const tc_reduce_fn table[NOPS][NKINDS] = { TC_ROW(sum), TC_ROW(prod), TC_ROW(min), TC_ROW(max) };
static const unsigned char kind_size[NKINDS] = { 1, 1, 2, 2, 4, 4, 8, 8, sizeof(float), sizeof(double) };

/* The column of a C integer type of `size` bytes. */
#define TC_SKIND(T) (sizeof(T) == 1 ? K_I8 : sizeof(T) == 2 ? K_I16 : sizeof(T) == 4 ? K_I32 : K_I64)
#define TC_UKIND(T) (sizeof(T) == 1 ? K_U8 : sizeof(T) == 2 ? K_U16 : sizeof(T) == 4 ? K_U32 : K_U64)

typedef struct type_kind {
    MPI_Datatype type;
    int kind;
} type_kind;

/* The predefined types with kernels, the most used first (the scan's
 * order): the C integer and floating-point types every MPI library must
 * reduce with these ops.  MPI_CHAR, MPI_WCHAR and MPI_C_BOOL are left to the
 * MPI library (no arithmetic op is defined on them), as are long double, the
 * complex and Fortran types and MPI_AINT, MPI_OFFSET, MPI_COUNT. */
static const type_kind types[] = {
    { MPI_DOUBLE, K_F64 },
    { MPI_FLOAT, K_F32 },
    { MPI_INT, TC_SKIND(int) },
    { MPI_LONG, TC_SKIND(long) },
    { MPI_UNSIGNED, TC_UKIND(unsigned) },
    { MPI_UNSIGNED_LONG, TC_UKIND(unsigned long) },
    { MPI_LONG_LONG, TC_SKIND(long long) },   /* also MPI_LONG_LONG_INT: the same handle */
    { MPI_UNSIGNED_LONG_LONG, TC_UKIND(unsigned long long) },
    { MPI_SHORT, TC_SKIND(short) },
    { MPI_UNSIGNED_SHORT, TC_UKIND(unsigned short) },
    { MPI_SIGNED_CHAR, K_I8 },
    { MPI_UNSIGNED_CHAR, K_U8 },
    { MPI_INT8_T, K_I8 },
    { MPI_UINT8_T, K_U8 },
    { MPI_INT16_T, K_I16 },
    { MPI_UINT16_T, K_U16 },
    { MPI_INT32_T, K_I32 },
    { MPI_UINT32_T, K_U32 },
    { MPI_INT64_T, K_I64 },
    { MPI_UINT64_T, K_U64 },
};
#define NTYPES ((int)(sizeof types / sizeof types[0]))

static const MPI_Op row_op[NOPS] = { MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX };

static int op_row(MPI_Op op)
{
    for (int r = 0; r < NOPS; r++)
        if (op == row_op[r]) return r;
    return -1;
}

/* ---- agreement with the MPI library ---------------------------------------
 * Once per process, each kernel is run beside PMPI_Reduce_local on a probe
 * vector (integers: any bit pattern, high bits and wrapping included;
 * floating point: mixed magnitudes, signed zeros, infinities, NaNs, never a
 * NaN on both sides of a sum or product, whose payload the hardware picks);
 * a pair where the two differ, or the library refuses, is left to the
 * library, so that a topocoll entry and the MPI library's own collective
 * give the same bytes whichever serves a call.  (Open MPI 4.1's base
 * component takes MIN/MAX of MPI_UNSIGNED_LONG as signed and of MPI_OFFSET
 * as unsigned; its AVX component's 8-bit MPI_SUM is wrong on some CPUs.) */
#define PROBE_N 257
static unsigned char differs[NOPS][NTYPES];
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;

static uint64_t probe_next(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* A floating-point probe value; a NaN only where nan_ok. */
static double probe_fp(uint64_t r, int nan_ok)
{
    switch (r % 16) {
    case 0: return 0.0;
    case 1: return -0.0;
    case 2: return (r & 16) ? HUGE_VAL : -HUGE_VAL;
    case 3: return nan_ok ? ((r & 16) ? NAN : -NAN) : 3.0;
    default: return ldexp((double)(int64_t)(r >> 11) / 9007199254740992.0, (int)((r >> 4) % 60) - 30);
    }
}

/* side 0 is in, 1 inout: sums and products get NaNs on alternate sides. */
static void probe_fill(int kind, int minmax, int side, unsigned char *buf, uint64_t *x)
{
    size_t es = kind_size[kind];
    for (int i = 0; i < PROBE_N; i++) {
        uint64_t r = probe_next(x);
        int nan_ok = minmax || i % 2 == side;
        if (kind == K_F64) {
            double v = probe_fp(r, nan_ok);
            memcpy(buf + (size_t)i * es, &v, es);
        } else if (kind == K_F32) {
            float v = (float)probe_fp(r, nan_ok);
            memcpy(buf + (size_t)i * es, &v, es);
        } else {
            if (i % 5 == 2) r = 0;   /* equal elements on both sides */
            memcpy(buf + (size_t)i * es, &r, es);
        }
    }
}

/* Under tc_fp_hold: the probe's infinities and NaNs raise invalid and
 * overflow, and it may run inside a call of a program that traps them
 * (core/fp_env.h). */
static void probe(void)
{
    _Alignas(16) unsigned char in[PROBE_N * 8], ref[PROBE_N * 8], got[PROBE_N * 8];
    tc_fp_saved env;
    tc_fp_hold(&env);
    for (int row = 0; row < NOPS; row++)
        for (int t = 0; t < NTYPES; t++) {
            int kind = types[t].kind;
            uint64_t x = 0x9E3779B97F4A7C15ull ^ (uint64_t)(row * NTYPES + t);
            probe_fill(kind, row >= OP_MIN, 0, in, &x);
            probe_fill(kind, row >= OP_MIN, 1, ref, &x);
            memcpy(got, ref, sizeof got);
            int rc = PMPI_Reduce_local(in, ref, PROBE_N, types[t].type, row_op[row]);
            table[row][kind](in, got, PROBE_N);
            differs[row][t] = rc != MPI_SUCCESS || memcmp(ref, got, (size_t)PROBE_N * kind_size[kind]) != 0;
        }
    tc_fp_restore(&env);
}

static void kernel_lookup(MPI_Op op, MPI_Datatype type, tc_reduce_kernel *k)
{
    int row = op_row(op);
    k->op = op;
    k->type = type;
    k->fn = k->table_fn = NULL;
    k->elem = k->align = 0;
    k->library_differs = 0;
    if (row < 0 || type == MPI_DATATYPE_NULL) return;
    for (int i = 0; i < NTYPES; i++)
        if (types[i].type == type) {
            (void)pthread_once(&probe_once, probe);
            k->table_fn = table[row][types[i].kind];
            k->library_differs = differs[row][i];
            k->fn = k->library_differs ? NULL : k->table_fn;
            k->elem = kind_size[types[i].kind];
            k->align = k->elem;   /* natural alignment of 1..8-byte scalars on the supported ABIs */
            return;
        }
}

/* The look-up above scans the predefined types on every call; a one-entry
 * cache per thread keeps a run of calls on one (op, type) (every call of an
 * application's loop, a visible part of an 8-byte allreduce) to a compare.
 * The answer depends only on which predefined handles op and type are, and
 * those never change: a user op or derived type whose freed handle comes
 * back as another finds "no kernel" again, as a fresh look-up would. */
void tc_reduce_kernel_find(MPI_Op op, MPI_Datatype type, tc_reduce_kernel *k)
{
    static TC_THREAD_LOCAL tc_reduce_kernel last;
    static TC_THREAD_LOCAL int have;
    if (!have || last.op != op || last.type != type) {
        kernel_lookup(op, type, &last);
        have = 1;
    }
    *k = last;
}

/* Can the kernel take these regions (aligned, dense, apart)? */
static int kernel_fits(const tc_reduce_kernel *k, const char *in, const char *io, int64_t n,
                       MPI_Aint in_extent, MPI_Aint io_extent)
{
    if (!k->fn || n <= 0) return 0;
    if ((size_t)in_extent != k->elem || (size_t)io_extent != k->elem) return 0;
    if ((((uintptr_t)in | (uintptr_t)io) & (uintptr_t)(k->align - 1)) != 0) return 0;
    if ((uint64_t)n > SIZE_MAX / k->elem) return 0;
    size_t bytes = (size_t)n * k->elem;
    uintptr_t a = (uintptr_t)in, b = (uintptr_t)io;
    return a + bytes <= b || b + bytes <= a;
}

int tc_reduce_local(const tc_reduce_kernel *k, const void *in, void *inout, int64_t n, MPI_Aint in_extent,
                    MPI_Aint io_extent)
{
    const char *src = in;
    char *dst = inout;
    if (kernel_fits(k, src, dst, n, in_extent, io_extent)) {
        k->fn(src, dst, (size_t)n);
        return MPI_SUCCESS;
    }
    if (n <= INT_MAX) return PMPI_Reduce_local(src, dst, (int)n, k->type, k->op);
    while (n > 0) {
        int m = (int)(n < INT_MAX ? n : INT_MAX);
        int rc = PMPI_Reduce_local(src, dst, m, k->type, k->op);
        if (rc != MPI_SUCCESS) return rc;
        src += (int64_t)m * in_extent;
        dst += (int64_t)m * io_extent;
        n -= m;
    }
    return MPI_SUCCESS;
}

int tc_reduce_kernel_count(void)
{
    return NOPS * NTYPES;
}

void tc_reduce_kernel_pair(int i, MPI_Op *op, MPI_Datatype *type)
{
    *op = row_op[i / NTYPES];
    *type = types[i % NTYPES].type;
}
