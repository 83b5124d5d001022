/*
 * Allreduce over the whole op/type matrix: every allreduce entry of the
 * catalog (and the selected path) x every predefined op on every type MPI
 * allows for it, against the MPI library's own PMPI_Allreduce, byte for
 * byte on the data bytes of every element (padding inside pair types is not
 * data), with the bytes past the receive buffer untouched.
 *
 *   SUM, PROD, MIN, MAX   on every C integer type (signed/unsigned char ..
 *                         long long, int8..uint64), MPI_FLOAT, MPI_DOUBLE
 *                         (the types with local kernels, src/exec/reduce_kernels.c)
 *   MINLOC, MAXLOC        MPI_2INT, MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT,
 *                         MPI_SHORT_INT, MPI_LONG_DOUBLE_INT, MPI_2DOUBLE_PRECISION
 *   SUM, PROD             MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX
 *   LAND, LOR, LXOR       MPI_INT, MPI_C_BOOL
 *   BAND, BOR, BXOR       MPI_UNSIGNED_CHAR, MPI_UNSIGNED_SHORT, MPI_UNSIGNED,
 *                         MPI_UNSIGNED_LONG, MPI_UINT64_T, MPI_BYTE
 *
 * The data make every result independent of the combination order, so any
 * correct algorithm gives the reference's bytes: integer sums and products
 * wrap (exact modulo 2^bits), floating-point sums add small integers,
 * products multiply +-1 and +-2, complex sums add small integers, complex
 * products multiply (1+2i) times units (no partial product has a zero part,
 * so no signed zero depends on the grouping), MIN/MAX
 * take arbitrary values (integers: any bit pattern, the sign bit included)
 * and MINLOC/MAXLOC tie often (the smallest index wins).  Open MPI runs
 * with "--mca op ^avx" (the CMake test definition: its AVX component's
 * 8-bit MPI_SUM is wrong on some CPUs).
 *
 * Every (entry, case) pair runs once per mapping, its count (1, 13, 1500)
 * and MPI_IN_PLACE rotating with the pair and np; entries that do not apply
 * (topocoll_applicable) are skipped, not counted as passed.  Mappings: the
 * detected one (one node here: the shared-memory entries), 2 virtual nodes
 * (cyclic), and at np >= 4 2 nodes x 2 sockets (random).
 *
 * Usage: test_allreduce_ops [--sample=K] [--entries=PATTERNS] [--topology=SPEC]...
 *   --sample=K        K > 1: every K-th pair, rotating with np;
 *   --entries=PATTERNS  only the catalog entries whose name matches one of
 *                     the comma-separated shell patterns (fnmatch), and not
 *                     the selected path; at least one of them must apply to
 *                     some case of every mapping;
 *   --topology=SPEC   (repeatable) these mappings instead of the three above
 *                     ("detected": the detected topology), e.g. one node of
 *                     two sockets (1x2x*) for the socket-aware one-node
 *                     entries.
 * Ends with "N passed, M failed".
 */
#define _POSIX_C_SOURCE 200809L
#include <fnmatch.h>
#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topocoll.h"
#include "../common/mpi_harness.h"

#define GUARD 32
#define SENT 0xA5
#define MAXCOUNT 1500

static int wrank, wsize, sample = 1;
static const char *entries;   /* --entries: comma-separated patterns, or NULL (every entry and auto) */

/* Does entry name (NULL: the selected path) run under --entries? */
static int chosen(const char *name)
{
    if (!entries) return 1;
    if (!name) return 0;
    char buf[512], *save = NULL;
    snprintf(buf, sizeof buf, "%s", entries);
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if (fnmatch(t, name, 0) == 0) return 1;
    return 0;
}

/* Scalar kinds of the data fields. */
enum { S_I8, S_U8, S_I16, S_U16, S_I32, S_U32, S_I64, S_U64, S_F32, S_F64, S_LD, S_BOOL };
/* How the values are drawn. */
enum { G_SUM, G_PROD, G_ANY, G_LOC, G_CSUM, G_CPROD, G_LAND, G_LOR, G_LXOR, G_BAND, G_BOR, G_BXOR };

typedef struct field {
    int off, kind;
} field;

typedef struct tcase {
    char name[64];
    MPI_Datatype type;
    MPI_Op op;
    int gen;
    int ext;           /* bytes per element */
    int nf;            /* data fields per element */
    field f[2];
} tcase;

static const int ksize[] = { 1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 10, (int)sizeof(bool) };

static uint32_t mix(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

static int is_signed(int kind) { return kind == S_I8 || kind == S_I16 || kind == S_I32 || kind == S_I64; }

static void put_int(unsigned char *p, int kind, int64_t v)
{
    switch (kind) {
    case S_I8: case S_U8: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
    case S_I16: case S_U16: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case S_I32: case S_U32: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    case S_BOOL: { bool x = v != 0; memcpy(p, &x, sizeof x); break; }
    default: { uint64_t x = (uint64_t)v; memcpy(p, &x, 8); break; }
    }
}

static void put_fp(unsigned char *p, int kind, double v)
{
    if (kind == S_F32) { float x = (float)v; memcpy(p, &x, 4); }
    else if (kind == S_F64) memcpy(p, &v, 8);
    else if (kind == S_LD) { long double x = v; memcpy(p, &x, 10); }
    else put_int(p, kind, (int64_t)v);
}

static int is_fp(int kind) { return kind == S_F32 || kind == S_F64 || kind == S_LD; }

/* Field j of element e of rank r for case t. */
static void put_value(const tcase *c, int t, int r, int e, int j, unsigned char *p)
{
    uint32_t h = mix(mix((uint32_t)t * 0x9E3779B1u + (uint32_t)r) ^ mix((uint32_t)e * 2u + (uint32_t)j));
    uint32_t h2 = mix(h ^ 0x5BD1E995u), h3 = mix(h2 ^ 0x1B873593u);
    int kind = c->f[j].kind;
    uint64_t wide = (uint64_t)h << 32 | h2;
    switch (c->gen) {
    case G_SUM: put_fp(p, kind, is_signed(kind) || is_fp(kind) ? (double)((int)(h % 201u) - 100) : (double)(h % 200u)); break;
    case G_PROD: {
        static const int sv[4] = { -2, -1, 1, 2 };
        put_fp(p, kind, is_signed(kind) || is_fp(kind) ? (double)sv[h & 3u] : (double)(1u + h % 3u));
        break;
    }
    case G_ANY:
        if (is_fp(kind)) put_fp(p, kind, (double)(int32_t)h * (h2 % 2 ? 1e-3 : 1e5) + 0.5);   /* never 0 */
        else put_int(p, kind, (int64_t)wide);
        break;
    case G_LOC: put_fp(p, kind, j == 0 ? (double)(h % 5u) - 2.0 : (double)(h2 % 50u)); break;
    case G_CSUM: put_fp(p, kind, (double)((int)(h % 201u) - 100)); break;
    case G_CPROD: {
        /* (1+2i) times a unit: every partial product is (1+2i)^k times a unit,
         * never with a zero part (no signed zeros, whatever the grouping) */
        static const double re[4] = { 1, -1, -2, 2 }, im[4] = { 2, -2, 1, -1 };
        uint32_t u = mix((uint32_t)t * 0x9E3779B1u + (uint32_t)r * 7919u + (uint32_t)e) & 3u;
        put_fp(p, kind, j == 0 ? re[u] : im[u]);
        break;
    }
    case G_LAND: put_int(p, kind, h % 10u ? (kind == S_BOOL ? 1 : h2 % 2u ? 3 : -4) : 0); break;
    case G_LOR: put_int(p, kind, h % 10u ? 0 : (kind == S_BOOL ? 1 : 5)); break;
    case G_LXOR: put_int(p, kind, h % 2u ? (kind == S_BOOL ? 1 : -7) : 0); break;
    case G_BAND: put_int(p, kind, (int64_t)(wide | ((uint64_t)h3 << 32 | h3))); break;
    case G_BOR: put_int(p, kind, (int64_t)(wide & ((uint64_t)h3 << 32 | h3))); break;
    default: put_int(p, kind, (int64_t)wide); break;
    }
}

/* ---- the cases ------------------------------------------------------------ */

static tcase cases[200];
static int ncases;

static void add(const char *tname, MPI_Datatype type, const char *oname, MPI_Op op, int gen, int ext, int nf,
                int off0, int k0, int off1, int k1)
{
    tcase *c = &cases[ncases++];
    snprintf(c->name, sizeof c->name, "%s %s", oname, tname);
    c->type = type, c->op = op, c->gen = gen, c->ext = ext, c->nf = nf;
    c->f[0].off = off0, c->f[0].kind = k0, c->f[1].off = off1, c->f[1].kind = k1;
}

#define ONE(tname, type, kind, ctype) add(tname, type, oname, op, gen, (int)sizeof(ctype), 1, 0, kind, 0, 0)
#define PAIR(tname, type, T1, k1, T2, k2)                                                          \
    do {                                                                                           \
        typedef struct { T1 v; T2 k; } pair_t;                                                     \
        add(tname, type, oname, op, G_LOC, (int)sizeof(pair_t), 2, (int)offsetof(pair_t, v), k1,  \
            (int)offsetof(pair_t, k), k2);                                                         \
    } while (0)

static void kernel_cases(const char *oname, MPI_Op op, int gen)
{
    ONE("MPI_SIGNED_CHAR", MPI_SIGNED_CHAR, S_I8, signed char);
    ONE("MPI_UNSIGNED_CHAR", MPI_UNSIGNED_CHAR, S_U8, unsigned char);
    ONE("MPI_SHORT", MPI_SHORT, S_I16, short);
    ONE("MPI_UNSIGNED_SHORT", MPI_UNSIGNED_SHORT, S_U16, unsigned short);
    ONE("MPI_INT", MPI_INT, S_I32, int);
    ONE("MPI_UNSIGNED", MPI_UNSIGNED, S_U32, unsigned);
    ONE("MPI_LONG", MPI_LONG, sizeof(long) == 8 ? S_I64 : S_I32, long);
    ONE("MPI_UNSIGNED_LONG", MPI_UNSIGNED_LONG, sizeof(long) == 8 ? S_U64 : S_U32, unsigned long);
    ONE("MPI_LONG_LONG", MPI_LONG_LONG, S_I64, long long);
    ONE("MPI_UNSIGNED_LONG_LONG", MPI_UNSIGNED_LONG_LONG, S_U64, unsigned long long);
    ONE("MPI_INT8_T", MPI_INT8_T, S_I8, int8_t);
    ONE("MPI_UINT8_T", MPI_UINT8_T, S_U8, uint8_t);
    ONE("MPI_INT16_T", MPI_INT16_T, S_I16, int16_t);
    ONE("MPI_UINT16_T", MPI_UINT16_T, S_U16, uint16_t);
    ONE("MPI_INT32_T", MPI_INT32_T, S_I32, int32_t);
    ONE("MPI_UINT32_T", MPI_UINT32_T, S_U32, uint32_t);
    ONE("MPI_INT64_T", MPI_INT64_T, S_I64, int64_t);
    ONE("MPI_UINT64_T", MPI_UINT64_T, S_U64, uint64_t);
    ONE("MPI_FLOAT", MPI_FLOAT, S_F32, float);
    ONE("MPI_DOUBLE", MPI_DOUBLE, S_F64, double);
}

static void loc_cases(const char *oname, MPI_Op op)
{
    PAIR("MPI_2INT", MPI_2INT, int, S_I32, int, S_I32);
    PAIR("MPI_FLOAT_INT", MPI_FLOAT_INT, float, S_F32, int, S_I32);
    PAIR("MPI_DOUBLE_INT", MPI_DOUBLE_INT, double, S_F64, int, S_I32);
    PAIR("MPI_LONG_INT", MPI_LONG_INT, long, sizeof(long) == 8 ? S_I64 : S_I32, int, S_I32);
    PAIR("MPI_SHORT_INT", MPI_SHORT_INT, short, S_I16, int, S_I32);
    PAIR("MPI_LONG_DOUBLE_INT", MPI_LONG_DOUBLE_INT, long double, S_LD, int, S_I32);
    int size = 0;
    if (MPI_2DOUBLE_PRECISION != MPI_DATATYPE_NULL && MPI_Type_size(MPI_2DOUBLE_PRECISION, &size) == MPI_SUCCESS &&
        size == 16)
        PAIR("MPI_2DOUBLE_PRECISION", MPI_2DOUBLE_PRECISION, double, S_F64, double, S_F64);
    else if (wrank == 0)
        printf("note: MPI_2DOUBLE_PRECISION is not usable here (size %d): not tested\n", size);
}

static void build_cases(void)
{
    kernel_cases("MPI_SUM", MPI_SUM, G_SUM);
    kernel_cases("MPI_PROD", MPI_PROD, G_PROD);
    kernel_cases("MPI_MIN", MPI_MIN, G_ANY);
    kernel_cases("MPI_MAX", MPI_MAX, G_ANY);
    loc_cases("MPI_MINLOC", MPI_MINLOC);
    loc_cases("MPI_MAXLOC", MPI_MAXLOC);
    const char *oname;
    MPI_Op op;
    int gen;
    oname = "MPI_SUM", op = MPI_SUM, gen = G_CSUM;
    add("MPI_C_FLOAT_COMPLEX", MPI_C_FLOAT_COMPLEX, oname, op, gen, 8, 2, 0, S_F32, 4, S_F32);
    add("MPI_C_DOUBLE_COMPLEX", MPI_C_DOUBLE_COMPLEX, oname, op, gen, 16, 2, 0, S_F64, 8, S_F64);
    oname = "MPI_PROD", op = MPI_PROD, gen = G_CPROD;
    add("MPI_C_FLOAT_COMPLEX", MPI_C_FLOAT_COMPLEX, oname, op, gen, 8, 2, 0, S_F32, 4, S_F32);
    add("MPI_C_DOUBLE_COMPLEX", MPI_C_DOUBLE_COMPLEX, oname, op, gen, 16, 2, 0, S_F64, 8, S_F64);
    const struct { const char *n; MPI_Op op; int gen; } logical[] = {
        { "MPI_LAND", MPI_LAND, G_LAND }, { "MPI_LOR", MPI_LOR, G_LOR }, { "MPI_LXOR", MPI_LXOR, G_LXOR } };
    for (int i = 0; i < 3; i++) {
        oname = logical[i].n, op = logical[i].op, gen = logical[i].gen;
        ONE("MPI_INT", MPI_INT, S_I32, int);
        ONE("MPI_C_BOOL", MPI_C_BOOL, S_BOOL, bool);
    }
    const struct { const char *n; MPI_Op op; int gen; } bitwise[] = {
        { "MPI_BAND", MPI_BAND, G_BAND }, { "MPI_BOR", MPI_BOR, G_BOR }, { "MPI_BXOR", MPI_BXOR, G_BXOR } };
    for (int i = 0; i < 3; i++) {
        oname = bitwise[i].n, op = bitwise[i].op, gen = bitwise[i].gen;
        ONE("MPI_UNSIGNED_CHAR", MPI_UNSIGNED_CHAR, S_U8, unsigned char);
        ONE("MPI_UNSIGNED_SHORT", MPI_UNSIGNED_SHORT, S_U16, unsigned short);
        ONE("MPI_UNSIGNED", MPI_UNSIGNED, S_U32, unsigned);
        ONE("MPI_UNSIGNED_LONG", MPI_UNSIGNED_LONG, sizeof(long) == 8 ? S_U64 : S_U32, unsigned long);
        ONE("MPI_UINT64_T", MPI_UINT64_T, S_U64, uint64_t);
        ONE("MPI_BYTE", MPI_BYTE, S_U8, unsigned char);
    }
}

/* ---- one call --------------------------------------------------------------- */

static void fill(const tcase *c, int t, int count, unsigned char *buf)
{
    memset(buf, 0, (size_t)count * (size_t)c->ext);
    for (int e = 0; e < count; e++)
        for (int j = 0; j < c->nf; j++) put_value(c, t, wrank, e, j, buf + (size_t)e * (size_t)c->ext + c->f[j].off);
}

/* First data byte where a and b differ (-1: none), guards included. */
static long first_diff(const tcase *c, int count, const unsigned char *a, const unsigned char *b)
{
    for (int e = 0; e < count; e++)
        for (int j = 0; j < c->nf; j++) {
            size_t at = (size_t)e * (size_t)c->ext + (size_t)c->f[j].off;
            if (memcmp(a + at, b + at, (size_t)ksize[c->f[j].kind]) != 0) return (long)at;
        }
    size_t end = (size_t)count * (size_t)c->ext;
    for (size_t i = end; i < end + GUARD; i++)
        if (a[i] != SENT) return (long)i;
    return -1;
}

static unsigned char *sbuf, *rbuf, *ref;

/* One case: 1 passed, 0 failed (agreed over comm), -1 skipped. */
static int one(MPI_Comm comm, const char *spec, const char *algo, const tcase *c, int t, int count, int in_place)
{
    size_t bytes = (size_t)count * (size_t)c->ext;
    const char *why = NULL;
    if (algo && topocoll_applicable(TOPOCOLL_ALLREDUCE, algo, count, c->type, count, c->type, c->op, 0, comm, &why) != 1)
        return -1;
    memset(rbuf, SENT, bytes + GUARD);
    memset(ref, SENT, bytes + GUARD);
    fill(c, t, count, in_place ? rbuf : sbuf);
    if (in_place) memcpy(ref, rbuf, bytes);
    const void *sb = in_place ? MPI_IN_PLACE : sbuf;
    int rc = algo ? topocoll_allreduce_algorithm(algo, sb, rbuf, count, c->type, c->op, comm)
                  : topocoll_allreduce(sb, rbuf, count, c->type, c->op, comm);
    int rc2 = PMPI_Allreduce(in_place ? MPI_IN_PLACE : sbuf, ref, count, c->type, c->op, comm);
    long d = rc == MPI_SUCCESS && rc2 == MPI_SUCCESS ? first_diff(c, count, rbuf, ref) : -1;
    int ok = rc == MPI_SUCCESS && rc2 == MPI_SUCCESS && d < 0, all = 0;
    if (!ok)
        printf("rank %d: %s %s %s count %d%s: rc %d, reference rc %d, first difference at byte %ld\n", wrank,
               spec ? spec : "detected", algo ? algo : "auto", c->name, count, in_place ? " in place" : "", rc, rc2, d);
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    return all;
}

static void run_mapping(const char *spec)
{
    static const int counts[] = { 1, 13, MAXCOUNT };
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    if (spec && topocoll_set_topology(comm, spec) != MPI_SUCCESS) {
        CHECK(0, "topocoll_set_topology(%s) failed", spec);
        MPI_Comm_free(&comm);
        return;
    }
    int na = topocoll_variant_count(TOPOCOLL_ALLREDUCE);
    long served = 0;
    for (int a = -1; a < na; a++) {
        const char *name = a < 0 ? NULL : topocoll_variant_name(TOPOCOLL_ALLREDUCE, a);
        if (!chosen(name)) continue;
        for (int t = 0; t < ncases; t++) {
            unsigned pair = (unsigned)(a + 1) * 131u + (unsigned)t;
            if (sample > 1 && (pair + (unsigned)wsize) % (unsigned)sample != 0) continue;
            int count = counts[(pair + (unsigned)wsize) % 3], in_place = (int)((pair / 3 + (unsigned)wsize) % 2);
            int r = one(comm, spec, name, &cases[t], t, count, in_place);
            if (r < 0) {
                SKIP();
                continue;
            }
            served++;
            CHECK(r == 1, "%s %s %s count %d%s: differs from PMPI_Allreduce (or an error; see the rank lines)",
                  spec ? spec : "detected", name ? name : "auto", cases[t].name, count, in_place ? " in place" : "");
        }
    }
    CHECK(served > 0, "%s: no entry applied to any case", spec ? spec : "detected");
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    const char *specs[8];
    int nspecs = 0;
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--sample=", 9) == 0) sample = atoi(argv[i] + 9) > 1 ? atoi(argv[i] + 9) : 1;
        else if (strncmp(argv[i], "--entries=", 10) == 0) entries = argv[i] + 10;
        else if (strncmp(argv[i], "--topology=", 11) == 0 && nspecs < 8) specs[nspecs++] = argv[i] + 11;
        else {
            if (wrank == 0) fprintf(stderr, "unknown argument %s\n", argv[i]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    build_cases();
    size_t most = (size_t)MAXCOUNT * 32 + GUARD;
    sbuf = malloc(most), rbuf = malloc(most), ref = malloc(most);
    if (!sbuf || !rbuf || !ref) MPI_Abort(MPI_COMM_WORLD, 2);
    if (wrank == 0) printf("%d op/type cases x %d allreduce entries (and auto)\n", ncases,
                           topocoll_variant_count(TOPOCOLL_ALLREDUCE));
    if (wrank == 0 && entries) printf("entries: %s\n", entries);
    for (int i = 0; i < nspecs; i++) run_mapping(strcmp(specs[i], "detected") ? specs[i] : NULL);
    if (nspecs == 0) {
        run_mapping(NULL);
        if (wsize >= 2) run_mapping("2x*/cyclic");
        if (wsize >= 4) run_mapping("2x2x*/random:5");
    }
    free(sbuf), free(rbuf), free(ref);
    int status = tc_test_mpi_summary(0);
    MPI_Finalize();
    return status;
}
