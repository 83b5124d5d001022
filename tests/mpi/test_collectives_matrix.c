/*
 * Collectives test matrix: bcast, scatter, gather, reduce and
 * reduce_scatter_block.  For each collective, every algorithm of its catalog
 * (read from topocoll_algorithm_count/name, never a list kept here) plus the
 * selected path (topocoll_<coll>, reported as "auto") x roots {0, np-1, np/2}
 * x counts {0, 1, 3, 1000} (plus one >= 256 KiB case per algorithm at
 * np <= 8) x datatypes (MPI_INT, MPI_DOUBLE, MPI_BYTE, a vector type with
 * gaps, a send/receive pair with different types of one signature) or, for
 * the reductions, x (datatype, op) pairs (built-in ops on the types MPI allows
 * them on, a user-defined commutative op also on a type with gaps, and a
 * user-defined NON-commutative op: 2x2 matrix product on contiguous(4,MPI_INT)
 * and on a gapped 4-int type) x MPI_IN_PLACE where MPI allows it x rank
 * mappings (virtual topologies given with topocoll_set_topology: block,
 * cyclic, random, unequal nodes).
 *
 * Part 1 is that matrix on MPI_COMM_WORLD.  Part 2 runs a small one on two
 * halves of MPI_COMM_WORLD (MPI_Comm_split with a reversed key).  Part 3 is
 * bcast with a root whose (count, datatype) differs from the other ranks'
 * (same type signature, as MPI allows), last because an algorithm that
 * splits the data by its own count makes the ranks disagree and hang.
 * Part 4 reduces with a user-defined commutative op, frees it, and reduces
 * with a new non-commutative op (which often gets the freed op's handle):
 * nothing cached for the first op may serve the second.
 *
 * Every case runs the collective through topocoll and through the MPI
 * library's own PMPI_<Coll> on identical inputs and compares the outputs
 * element by element where MPI defines them (the root of gather and reduce;
 * block 0 of an in-place reduce_scatter_block); the reference itself is
 * checked against the values the test expects (reductions: the inputs folded
 * in rank order with PMPI_Reduce_local).  Receive buffers start filled with a
 * sentinel byte and end with a guard zone: gaps of derived types and the
 * guard must come back untouched.  Send buffers must come back unchanged.
 *
 * Integer sums use values that cannot overflow, doubles are integer-valued
 * (sums exact in any order), products multiply +-1 and +-2, and the matrix
 * product works modulo 2^32 (exact and associative, never commutative).
 *
 * An algorithm that declines a case (MPI_ERRORS_RETURN; the call returns an
 * error of class MPI_ERR_ARG whose message says "declines"; where the MPI
 * library cannot return added error strings (MPICH 4.0) the class alone) is
 * counted as skipped, after checking that it left the buffers alone and that every rank
 * of the communicator declined.  Declining a non-commutative op is fine.
 *
 * MPICH before 4.2 crashes in MPI_Reduce with MPI_IN_PLACE at a root other
 * than 0 for large counts (pmodels/mpich#6540): there the reference is
 * computed without MPI_IN_PLACE and the cases that would call PMPI_Reduce in
 * place ("native", auto) are skipped.
 *
 * A watchdog (alarm) ends a rank that spends more than --case-timeout
 * seconds in one case, naming the case, so that a hang is a diagnosable
 * failure instead of a CTest timeout.
 *
 * Usage: test_collectives_matrix [--quick] [--coll NAME] [--algorithm NAME]
 *                                [--sample=K] [--max-cases=N] [--no-large]
 *                                [--verbose] [--case-timeout=S]
 *   --quick       fewer counts ({0, 1, 1000}), datatypes, ops and roots
 *                 ({0, np-1}), no large cases (for MPICH, whose
 *                 oversubscribed runs are slow);
 *   --coll NAME   only this collective ("bcast", "reduce", ...);
 *   --algorithm NAME  only this catalog entry ("auto" for the selected path);
 *   --sample=K    of the cases of each (collective, algorithm), about one in
 *                 K (a hash of the case, seeded with np: runs at different np
 *                 cover different cases); large cases and the halves
 *                 (part 2) are always run;
 *   --max-cases=N  count the matrix first and sample (as --sample) so that
 *                 about N of its cases run: the run time stays bounded as
 *                 the catalogs grow;
 *   --no-large    leave out the >= 256 KiB cases;
 *   --verbose     print every case on rank 0;
 *   --case-timeout=S  the watchdog (default 120 s; 0 turns it off).
 * Ends with "N passed, M failed, K skipped"; exits 1 on any failure.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "topocoll.h"
#include "matrix_common.h"

/* One line of detail on stderr from the rank that saw it (capped per rank). */
#define detail(c, desc, ...) tm_detail((c)->wrank, &(c)->detail_lines, desc, __VA_ARGS__)

#define SENTINEL 0xA5           /* receive buffers start as this byte */
#define SEND_GAP 0x3C           /* gaps of send buffers */
#define GUARD_BYTES 64          /* checked bytes past the receive span */
#define LARGE_BYTES 270001      /* MPI_BYTE elements per block: > 256 KiB, odd */
#define LARGE_INTS 65537        /* MPI_INT elements for reductions: > 256 KiB */
#define LARGE_MAX_NP 8
#define MAX_FAIL_LINES 40       /* FAIL reports in full (all with --verbose) */
#define MAX_SLOTS 64            /* catalog entries per collective (+ auto) */
#define DESC_LEN 512

enum base_kind { BASE_INT, BASE_DOUBLE, BASE_BYTE, BASE_UCHAR };

/* How a reduction's input values are drawn (plain: anything, never the
 * sentinel; for the other collectives). */
enum val_kind {
    V_PLAIN,   /* any value but the sentinel */
    V_SMALL,   /* sums: |v| <= 1000 (unsigned char: 0..15) */
    V_PROD,    /* products: -2, -1, 1, 2 */
    V_DENSE,   /* bitwise and: mostly one bits */
    V_SPARSE,  /* bitwise or: mostly zero bits */
    V_WIDE     /* any 32-bit pattern (matrix product modulo 2^32), signed range for max */
};

/* One element of a datatype, counted in elements of its base type. */
typedef struct layout {
    int nper;        /* data base elements per element */
    int offs[4];     /* their positions inside the element */
    int ext;         /* extent of the element */
} layout;

/* bcast, scatter, gather: the send side uses stype x count*smul, the receive
 * side rtype x count*rmul (bcast: the root the send side, the others the
 * receive side); both sides have the same type signature. */
typedef struct type_case {
    const char *name;
    int base;
    MPI_Datatype stype, rtype;
    layout sl, rl;
    int smul, rmul;
    int quick;
} type_case;

/* reduce, reduce_scatter_block: one datatype and op. */
typedef struct red_case {
    const char *type_name, *op_name;
    int base;
    MPI_Datatype type;
    layout l;
    MPI_Op op;
    int vk;                      /* V_* */
    int quick;
} red_case;

/* Failure keys, agreed over MPI_COMM_WORLD with MIN: INT64_MAX means fine,
 * otherwise detail * world_size + world_rank. */
enum {
    K_RC,          /* the call returned an error (detail: error class) */
    K_DIFF,        /* result differs from PMPI_<Coll> (detail: byte offset) */
    K_REF,         /* PMPI_<Coll> differs from the expected values (byte offset) */
    K_SEND,        /* the send buffer was modified (byte offset) */
    K_SPLIT,       /* some ranks of the communicator declined, others did not */
    K_DECL_BUF,    /* a declined call modified a buffer (byte offset) */
    K_SERVED,      /* topocoll_last_algorithm() is not the forced algorithm */
    K_TOPO,        /* the topology's node/socket counts are not the spec's */
    K_DECLINED,    /* 0 where this rank's call declined (not a failure) */
    K_SERVING,     /* 0 where this rank's call ran (not a failure) */
    K_BARE,        /* 0 where a decline was recognised by its class alone (no message) */
    NKEYS
};

static const char *const key_text[NKEYS] = {
    "returned an error", "result differs from the PMPI reference",
    "PMPI reference differs from the expected values",
    "the send buffer was modified",
    "some ranks of the communicator declined, others did not",
    "declined, but modified a buffer",
    "topocoll_last_algorithm() does not name the forced algorithm",
    "node/socket counts differ from the spec", "declined", "ran", "declined (no message)"
};

/* One case of the matrix. */
typedef struct ccase {
    topocoll_coll coll;
    const char *algo;            /* NULL: auto */
    int algo_index;              /* -1: auto */
    int root;                    /* rooted collectives */
    int count;
    int in_place;
    const type_case *tc;         /* bcast, scatter, gather */
    const red_case *rc;          /* reductions */
} ccase;

typedef struct ctx {
    int wrank, wsize;
    int verbose, quick, large, sample;
    int max_cases;               /* --max-cases: raises sample to fit */
    int counting;                /* only count the sampled part's cases */
    long ncounted;
    int only_coll;               /* -1: all */
    const char *only_algo;       /* NULL: all; "auto": the selected path */
    int npassed, nfailed, nskipped, nbare, nsampled_out;
    int nknown;                  /* skipped for a known bug of the MPI library */
    int casen;                   /* running case number, feeds the data */
    int detail_lines;
    int nalgo[TOPOCOLL_NCOLL];
    int *auto_served[TOPOCOLL_NCOLL];   /* [nalgo + 1] how often auto picked each */
    unsigned ordinal[TOPOCOLL_NCOLL][MAX_SLOTS];  /* per (coll, algorithm + 1), for sampling */
    int fails[TOPOCOLL_NCOLL][MAX_SLOTS];         /* failed cases per (coll, algorithm + 1) */
} ctx;

/* ---- the watchdog ---------------------------------------------------------- */

static char g_watch[DESC_LEN + 128];
static size_t g_watch_len;
static unsigned g_case_timeout = 120;

static void on_alarm(int sig)
{
    (void)sig;
    if (write(STDERR_FILENO, g_watch, g_watch_len) < 0) { /* nothing to do */ }
    _exit(3);
}

static void watch(const ctx *c, const char *desc)
{
    int n;
    if (!g_case_timeout) return;
    n = snprintf(g_watch, sizeof g_watch, "rank %d: TIMEOUT after %u s (hang?) in %s\n", c->wrank,
                 g_case_timeout, desc);
    g_watch_len = n < 0 ? 0 : (size_t)n >= sizeof g_watch ? sizeof g_watch - 1 : (size_t)n;
    alarm(g_case_timeout);
}

static void unwatch(void)
{
    if (g_case_timeout) alarm(0);
}

/* ---- data ---------------------------------------------------------------- */

static size_t base_size(int base)
{
    return base == BASE_INT ? sizeof(int) : base == BASE_DOUBLE ? sizeof(double) : 1;
}

/* The value of logical element k of `owner` in case `casen`, as bytes. */
static void make_value(int base, int vk, int owner, size_t k, int casen, unsigned char *out)
{
    uint32_t h = tm_fmix32(tm_fmix32((uint32_t)casen * 0x9E3779B1u + (uint32_t)owner) ^ (uint32_t)k);
    uint32_t h2 = tm_fmix32(h ^ 0x5BD1E995u);
    h = tm_fmix32(h ^ (uint32_t)(k >> 32));
    if (base == BASE_INT) {
        int v;
        uint32_t u;
        switch (vk) {
        case V_SMALL: v = (int)(h % 2001u) - 1000; break;
        case V_PROD: { static const int pv[4] = { -2, -1, 1, 2 }; v = pv[h & 3u]; break; }
        case V_DENSE: u = h | h2; memcpy(&v, &u, sizeof v); break;
        case V_SPARSE: u = h & h2; memcpy(&v, &u, sizeof v); break;
        case V_WIDE: memcpy(&v, &h, sizeof v); break;
        default:
            if (h == 0xA5A5A5A5u) h ^= 1u;
            v = (int)(h & 0x7FFFFFFFu);
        }
        memcpy(out, &v, sizeof v);
    } else if (base == BASE_DOUBLE) {
        double v;
        switch (vk) {
        case V_SMALL: v = (double)((int)(h % 2001u) - 1000); break;
        case V_PROD: { static const double pv[4] = { -2.0, -1.0, 1.0, 2.0 }; v = pv[h & 3u]; break; }
        case V_WIDE: v = (double)((int64_t)(h >> 8) - 8388608); break;   /* integer-valued, signed */
        default: v = (double)(h >> 8) + 0.25;                                /* exact, never the sentinel */
        }
        memcpy(out, &v, sizeof v);
    } else {
        unsigned char v;
        switch (vk) {
        case V_SMALL: v = (unsigned char)(h % 16u); break;
        case V_DENSE: v = (unsigned char)((h | h2) >> 24); break;
        case V_SPARSE: v = (unsigned char)((h & h2) >> 24); break;
        case V_WIDE: v = (unsigned char)(h >> 24); break;
        default:
            v = (unsigned char)(h >> 24);
            if (v == SENTINEL) v = 0x5A;
        }
        out[0] = v;
    }
}

/* Writes `count` elements of layout l for `owner` into buf (data positions
 * only); logical element numbers start at kbase. */
static void fill_data(unsigned char *buf, int base, int vk, const layout *l, size_t count,
                      int owner, size_t kbase, int casen)
{
    size_t bs = base_size(base);
    for (size_t e = 0; e < count; e++)
        for (int j = 0; j < l->nper; j++)
            make_value(base, vk, owner, kbase + e * (size_t)l->nper + (size_t)j, casen,
                       buf + (e * (size_t)l->ext + (size_t)l->offs[j]) * bs);
}

/* Copies the data positions of count elements of layout l. */
static void copy_data(unsigned char *dst, const unsigned char *src, int base, const layout *l,
                      size_t count)
{
    size_t bs = base_size(base);
    for (size_t e = 0; e < count; e++)
        for (int j = 0; j < l->nper; j++) {
            size_t at = (e * (size_t)l->ext + (size_t)l->offs[j]) * bs;
            memcpy(dst + at, src + at, bs);
        }
}

static size_t elem_bytes(int base, const layout *l)
{
    return (size_t)l->ext * base_size(base);
}

/* First differing byte of [0, def) and [span, span + GUARD_BYTES), or -1. */
static long long diff_defined(const unsigned char *a, const unsigned char *b, size_t def, size_t span)
{
    long long d = tm_first_diff(a, b, def);
    if (d >= 0) return d;
    d = tm_first_diff(a + span, b + span, GUARD_BYTES);
    return d >= 0 ? (long long)span + d : -1;
}

/* ---- user-defined ops ----------------------------------------------------- */

static MPI_Datatype g_vec = MPI_DATATYPE_NULL;      /* vector(2,1,3,MPI_INT): ints at 0, 3; extent 4 */
static MPI_Datatype g_mat = MPI_DATATYPE_NULL;      /* contiguous(4,MPI_INT): a 2x2 matrix */
static MPI_Datatype g_matgap = MPI_DATATYPE_NULL;   /* vector(2,2,3,MPI_INT): ints at 0,1,3,4; extent 5 */
static const layout L_ONE = { 1, { 0, 0, 0, 0 }, 1 };
static const layout L_VEC = { 2, { 0, 3, 0, 0 }, 4 };
static const layout L_THREE = { 3, { 0, 1, 2, 0 }, 3 };
static const layout L_MAT = { 4, { 0, 1, 2, 3 }, 4 };
static const layout L_MATGAP = { 4, { 0, 1, 3, 4 }, 5 };
static MPI_Op g_usum = MPI_OP_NULL, g_matmul = MPI_OP_NULL;   /* the user-defined ops */
static int g_bad_type_calls;   /* user op called with a datatype it does not know */

static const layout *layout_of(MPI_Datatype t)
{
    if (t == MPI_INT) return &L_ONE;
    if (t == g_vec) return &L_VEC;
    if (t == g_mat) return &L_MAT;
    if (t == g_matgap) return &L_MATGAP;
    return NULL;
}

/* Commutative: inout = in + inout on the ints of any of the types above. */
static void op_usum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const layout *l = layout_of(*dt);
    const int *a = in;
    int *b = inout;
    if (!l) { g_bad_type_calls++; return; }
    for (int i = 0; i < *len; i++)
        for (int j = 0; j < l->nper; j++) {
            int at = i * l->ext + l->offs[j];
            b[at] = a[at] + b[at];
        }
}

/* Non-commutative: inout = in x inout, 2x2 matrices (row major) modulo 2^32. */
static void op_matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const layout *l = layout_of(*dt);
    const unsigned char *a = in;
    unsigned char *b = inout;
    if (!l || l->nper != 4) { g_bad_type_calls++; return; }
    for (int i = 0; i < *len; i++) {
        uint32_t x[4], y[4], r[4];
        for (int j = 0; j < 4; j++) {
            memcpy(&x[j], a + (size_t)(i * l->ext + l->offs[j]) * sizeof(int), sizeof(int));
            memcpy(&y[j], b + (size_t)(i * l->ext + l->offs[j]) * sizeof(int), sizeof(int));
        }
        r[0] = x[0] * y[0] + x[1] * y[2];
        r[1] = x[0] * y[1] + x[1] * y[3];
        r[2] = x[2] * y[0] + x[3] * y[2];
        r[3] = x[2] * y[1] + x[3] * y[3];
        for (int j = 0; j < 4; j++)
            memcpy(b + (size_t)(i * l->ext + l->offs[j]) * sizeof(int), &r[j], sizeof(int));
    }
}

/* ---- reporting ----------------------------------------------------------- */


/* Agrees on the keys over MPI_COMM_WORLD, counts the case, prints failures on
 * rank 0.  split_check: the case ran on MPI_COMM_WORLD, so a mix of declining
 * and running ranks is a disagreement.  Returns 1 when the case passed (or
 * was declined), 0 when it failed, -1 when the agreement itself failed. */
static int settle(ctx *c, int64_t *keys, const char *desc, size_t unit, int split_check,
                  const ccase *k)
{
    int64_t all[NKEYS];
    int failed = 0, rc;

    unwatch();
    rc = PMPI_Allreduce(keys, all, NKEYS, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: PMPI_Allreduce failed (%d)\n", c->wrank, rc);
        return -1;
    }
    if (split_check && all[K_DECLINED] != INT64_MAX && all[K_SERVING] != INT64_MAX &&
        all[K_SPLIT] == INT64_MAX)
        all[K_SPLIT] = all[K_DECLINED];
    for (int k = 0; k < NKEYS; k++)
        if (k != K_DECLINED && k != K_SERVING && k != K_BARE && all[k] != INT64_MAX) failed = 1;
    if (failed) {
        c->nfailed++;
        if (k) c->fails[k->coll][k->algo_index + 1 < MAX_SLOTS ? k->algo_index + 1 : MAX_SLOTS - 1]++;
        if (c->wrank == 0 && c->nfailed == MAX_FAIL_LINES + 1 && !c->verbose)
            printf("(further failures are only counted; --verbose prints them all)\n");
        if (c->wrank == 0 && (c->nfailed <= MAX_FAIL_LINES || c->verbose)) {
            printf("FAIL %s\n", desc);
            for (int k = 0; k < NKEYS; k++) {
                long long d, r;
                if (k == K_DECLINED || k == K_SERVING || k == K_BARE || all[k] == INT64_MAX) continue;
                d = (long long)(all[k] / c->wsize);
                r = (long long)(all[k] % c->wsize);
                if (k == K_DIFF || k == K_REF || k == K_SEND || k == K_DECL_BUF) {
                    if (unit > 0)
                        printf("     %s: first at world rank %lld, byte %lld (element %lld, byte %lld of it)\n",
                               key_text[k], r, d, d / (long long)unit, d % (long long)unit);
                    else
                        printf("     %s: first at world rank %lld, byte %lld\n", key_text[k], r, d);
                } else if (k == K_RC) {
                    printf("     %s: first at world rank %lld (error class %lld)\n", key_text[k], r, d);
                } else if (k == K_SPLIT) {
                    printf("     %s (a declining rank: world rank %lld)\n", key_text[k], r);
                } else {
                    printf("     %s: first at world rank %lld\n", key_text[k], r);
                }
            }
            fflush(stdout);
        }
        return 0;
    }
    if (all[K_SERVING] == INT64_MAX && all[K_DECLINED] != INT64_MAX) {
        c->nskipped++;
        if (all[K_BARE] != INT64_MAX) c->nbare++;
        if (c->verbose && c->wrank == 0) printf("declined %s\n", desc);
    } else {
        c->npassed++;
        if (c->verbose && c->wrank == 0) printf("ok %s\n", desc);
    }
    if (c->verbose && c->wrank == 0) fflush(stdout);
    return 1;
}

/* ---- the calls ------------------------------------------------------------ */

typedef struct cargs {
    const void *sbuf;
    int scount;
    MPI_Datatype stype;
    void *rbuf;
    int rcount;
    MPI_Datatype rtype;
    MPI_Op op;
    int root;
} cargs;

/* topocoll: algo == NULL is the selected path. */
static int call_topocoll(topocoll_coll coll, const char *algo, const cargs *a, MPI_Comm comm)
{
    switch (coll) {
    case TOPOCOLL_BCAST:
        return algo ? topocoll_bcast_algorithm(algo, a->rbuf, a->rcount, a->rtype, a->root, comm)
                    : topocoll_bcast(a->rbuf, a->rcount, a->rtype, a->root, comm);
    case TOPOCOLL_SCATTER:
        return algo ? topocoll_scatter_algorithm(algo, a->sbuf, a->scount, a->stype, a->rbuf,
                                                 a->rcount, a->rtype, a->root, comm)
                    : topocoll_scatter(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount,
                                       a->rtype, a->root, comm);
    case TOPOCOLL_GATHER:
        return algo ? topocoll_gather_algorithm(algo, a->sbuf, a->scount, a->stype, a->rbuf,
                                                a->rcount, a->rtype, a->root, comm)
                    : topocoll_gather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount,
                                      a->rtype, a->root, comm);
    case TOPOCOLL_REDUCE:
        return algo ? topocoll_reduce_algorithm(algo, a->sbuf, a->rbuf, a->rcount, a->rtype,
                                                a->op, a->root, comm)
                    : topocoll_reduce(a->sbuf, a->rbuf, a->rcount, a->rtype, a->op, a->root, comm);
    case TOPOCOLL_REDUCE_SCATTER_BLOCK:
        return algo ? topocoll_reduce_scatter_block_algorithm(algo, a->sbuf, a->rbuf, a->rcount,
                                                              a->rtype, a->op, comm)
                    : topocoll_reduce_scatter_block(a->sbuf, a->rbuf, a->rcount, a->rtype, a->op, comm);
    default:
        return MPI_ERR_INTERN;
    }
}

static int call_pmpi(topocoll_coll coll, const cargs *a, MPI_Comm comm)
{
    switch (coll) {
    case TOPOCOLL_BCAST: return PMPI_Bcast(a->rbuf, a->rcount, a->rtype, a->root, comm);
    case TOPOCOLL_SCATTER:
        return PMPI_Scatter(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->root, comm);
    case TOPOCOLL_GATHER:
        return PMPI_Gather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->root, comm);
    case TOPOCOLL_REDUCE:
        return PMPI_Reduce(a->sbuf, a->rbuf, a->rcount, a->rtype, a->op, a->root, comm);
    case TOPOCOLL_REDUCE_SCATTER_BLOCK:
        return PMPI_Reduce_scatter_block(a->sbuf, a->rbuf, a->rcount, a->rtype, a->op, comm);
    default:
        return MPI_ERR_INTERN;
    }
}

static const char *pmpi_name(topocoll_coll coll)
{
    switch (coll) {
    case TOPOCOLL_BCAST: return "PMPI_Bcast";
    case TOPOCOLL_SCATTER: return "PMPI_Scatter";
    case TOPOCOLL_GATHER: return "PMPI_Gather";
    case TOPOCOLL_REDUCE: return "PMPI_Reduce";
    case TOPOCOLL_REDUCE_SCATTER_BLOCK: return "PMPI_Reduce_scatter_block";
    default: return "?";
    }
}

static int is_reduction(topocoll_coll coll)
{
    return coll == TOPOCOLL_REDUCE || coll == TOPOCOLL_REDUCE_SCATTER_BLOCK;
}

static int is_rooted(topocoll_coll coll)
{
    return coll != TOPOCOLL_REDUCE_SCATTER_BLOCK;
}

/* MPI allows MPI_IN_PLACE for this collective (bcast: no). */
static int has_in_place(topocoll_coll coll)
{
    return coll != TOPOCOLL_BCAST;
}

/* ---- one case ------------------------------------------------------------ */

/* The buffers of one rank for one case. */
typedef struct bufs {
    unsigned char *s, *s_orig;   /* send buffer (NULL when not significant or in place) */
    size_t sbytes;
    unsigned char *r, *r_ref, *r_init, *r_exp;   /* receive: topocoll, PMPI, initial, expected */
    size_t rspan, rdef, rtotal;  /* receive span; defined output [0, rdef); + guard */
    size_t unit;                 /* bytes of one receive element, for reports */
    cargs a;                     /* the call (rbuf = r) */
} bufs;

static void free_bufs(bufs *b)
{
    free(b->s);
    free(b->s_orig);
    free(b->r);
    free(b->r_ref);
    free(b->r_init);
    free(b->r_exp);
    memset(b, 0, sizeof *b);
}

static unsigned char *alloc_fill(size_t n, int byte)
{
    unsigned char *p = malloc(n ? n : 1);
    if (p) memset(p, byte, n ? n : 1);
    return p;
}

/* exp[0, n elements) := the fold of the ranks' inputs (logical elements from
 * kbase) in rank order, a0 op (a1 op (... op a_{p-1})), with
 * PMPI_Reduce_local; data positions only (gaps keep what exp has). */
static int expected_reduction(const red_case *rc, int p, size_t n, size_t kbase, int casen,
                              unsigned char *exp)
{
    size_t bytes = n * elem_bytes(rc->base, &rc->l);
    unsigned char *acc, *tmp;
    int rcode = MPI_SUCCESS;
    if (n == 0) return MPI_SUCCESS;
    acc = alloc_fill(bytes, SEND_GAP);
    tmp = alloc_fill(bytes, SEND_GAP);
    if (!acc || !tmp) { free(acc); free(tmp); return MPI_ERR_NO_MEM; }
    fill_data(acc, rc->base, rc->vk, &rc->l, n, p - 1, kbase, casen);
    for (int r = p - 2; r >= 0 && rcode == MPI_SUCCESS; r--) {
        fill_data(tmp, rc->base, rc->vk, &rc->l, n, r, kbase, casen);
        rcode = PMPI_Reduce_local(tmp, acc, (int)n, rc->type, rc->op);
    }
    if (rcode == MPI_SUCCESS) copy_data(exp, acc, rc->base, &rc->l, n);
    free(acc);
    free(tmp);
    return rcode;
}

/* Sets up this rank's buffers for case k on a communicator of `size` ranks
 * where this rank is `rank`.  Returns MPI_SUCCESS or MPI_ERR_NO_MEM / an
 * error of PMPI_Reduce_local. */
static int setup(const ccase *k, int rank, int size, int casen, bufs *b)
{
    int root = k->root, n = k->count, ip = k->in_place;
    memset(b, 0, sizeof *b);
    b->a.root = root;
    b->a.op = MPI_OP_NULL;

    if (!is_reduction(k->coll)) {
        const type_case *tc = k->tc;
        size_t bs = base_size(tc->base);
        int sc = n * tc->smul, rcnt = n * tc->rmul;
        size_t sblock = (size_t)sc * (size_t)tc->sl.ext * bs;
        size_t rblock = (size_t)rcnt * (size_t)tc->rl.ext * bs;
        b->a.scount = sc;
        b->a.stype = tc->stype;
        b->a.rcount = rcnt;
        b->a.rtype = tc->rtype;
        b->unit = elem_bytes(tc->base, &tc->rl);
        switch (k->coll) {
        case TOPOCOLL_BCAST: {
            /* the root holds stype x sc, the others receive rtype x rcnt */
            const layout *l = rank == root ? &tc->sl : &tc->rl;
            size_t cnt = rank == root ? (size_t)sc : (size_t)rcnt;
            b->rspan = rank == root ? sblock : rblock;
            b->rtotal = b->rspan + GUARD_BYTES;
            b->rdef = b->rspan;
            b->unit = elem_bytes(tc->base, l);
            if (!(b->r = alloc_fill(b->rtotal, SENTINEL)) || !(b->r_exp = alloc_fill(b->rtotal, SENTINEL)))
                return MPI_ERR_NO_MEM;
            if (rank == root) fill_data(b->r, tc->base, V_PLAIN, l, cnt, root, 0, casen);
            fill_data(b->r_exp, tc->base, V_PLAIN, l, cnt, root, 0, casen);
            b->a.rcount = (int)cnt;
            b->a.rtype = rank == root ? tc->stype : tc->rtype;
            break;
        }
        case TOPOCOLL_SCATTER:
            if (rank == root) {
                b->sbytes = sblock * (size_t)size;
                if (!(b->s = alloc_fill(b->sbytes, SEND_GAP))) return MPI_ERR_NO_MEM;
                for (int q = 0; q < size; q++)
                    fill_data(b->s + (size_t)q * sblock, tc->base, V_PLAIN, &tc->sl, (size_t)sc, q, 0, casen);
            }
            if (!(rank == root && ip)) {
                b->rspan = b->rdef = rblock;
                b->rtotal = rblock + GUARD_BYTES;
                if (!(b->r = alloc_fill(b->rtotal, SENTINEL)) ||
                    !(b->r_exp = alloc_fill(b->rtotal, SENTINEL)))
                    return MPI_ERR_NO_MEM;
                fill_data(b->r_exp, tc->base, V_PLAIN, &tc->rl, (size_t)rcnt, rank, 0, casen);
            }
            break;
        case TOPOCOLL_GATHER:
            if (!(rank == root && ip)) {
                b->sbytes = sblock;
                if (!(b->s = alloc_fill(b->sbytes, SEND_GAP))) return MPI_ERR_NO_MEM;
                fill_data(b->s, tc->base, V_PLAIN, &tc->sl, (size_t)sc, rank, 0, casen);
            }
            if (rank == root) {
                b->rspan = b->rdef = rblock * (size_t)size;
                b->rtotal = b->rspan + GUARD_BYTES;
                if (!(b->r = alloc_fill(b->rtotal, SENTINEL)) ||
                    !(b->r_exp = alloc_fill(b->rtotal, SENTINEL)))
                    return MPI_ERR_NO_MEM;
                if (ip) fill_data(b->r + (size_t)root * rblock, tc->base, V_PLAIN, &tc->rl, (size_t)rcnt, root, 0, casen);
                for (int q = 0; q < size; q++)
                    fill_data(b->r_exp + (size_t)q * rblock, tc->base, V_PLAIN, &tc->rl, (size_t)rcnt, q, 0, casen);
            }
            break;
        default:
            return MPI_ERR_INTERN;
        }
    } else {
        const red_case *rc = k->rc;
        size_t eb = elem_bytes(rc->base, &rc->l), nb = (size_t)n * eb;
        b->a.scount = n;
        b->a.stype = rc->type;
        b->a.rcount = n;
        b->a.rtype = rc->type;
        b->a.op = rc->op;
        b->unit = eb;
        if (k->coll == TOPOCOLL_REDUCE) {
            if (!(rank == root && ip)) {
                b->sbytes = nb;
                if (!(b->s = alloc_fill(nb, SEND_GAP))) return MPI_ERR_NO_MEM;
                fill_data(b->s, rc->base, rc->vk, &rc->l, (size_t)n, rank, 0, casen);
            }
            if (rank == root) {
                int e;
                b->rspan = b->rdef = nb;
                b->rtotal = nb + GUARD_BYTES;
                if (!(b->r = alloc_fill(b->rtotal, SENTINEL)) ||
                    !(b->r_exp = alloc_fill(b->rtotal, SENTINEL)))
                    return MPI_ERR_NO_MEM;
                if (ip) fill_data(b->r, rc->base, rc->vk, &rc->l, (size_t)n, rank, 0, casen);
                if ((e = expected_reduction(rc, size, (size_t)n, 0, casen, b->r_exp)) != MPI_SUCCESS)
                    return e;
            }
        } else {   /* reduce_scatter_block: p blocks of n in, block `rank` out */
            int e;
            if (!ip) {
                b->sbytes = nb * (size_t)size;
                if (!(b->s = alloc_fill(b->sbytes, SEND_GAP))) return MPI_ERR_NO_MEM;
                fill_data(b->s, rc->base, rc->vk, &rc->l, (size_t)n * (size_t)size, rank, 0, casen);
                b->rspan = nb;
            } else {
                b->rspan = nb * (size_t)size;
            }
            b->rdef = nb;
            b->rtotal = b->rspan + GUARD_BYTES;
            if (!(b->r = alloc_fill(b->rtotal, SENTINEL)) || !(b->r_exp = alloc_fill(b->rtotal, SENTINEL)))
                return MPI_ERR_NO_MEM;
            if (ip) fill_data(b->r, rc->base, rc->vk, &rc->l, (size_t)n * (size_t)size, rank, 0, casen);
            if ((e = expected_reduction(rc, size, (size_t)n,
                                        (size_t)rank * (size_t)n * (size_t)rc->l.nper, casen,
                                        b->r_exp)) != MPI_SUCCESS)
                return e;
        }
    }

    if (b->s && !(b->s_orig = malloc(b->sbytes ? b->sbytes : 1))) return MPI_ERR_NO_MEM;
    if (b->s) memcpy(b->s_orig, b->s, b->sbytes ? b->sbytes : 1);
    if (b->r) {
        if (!(b->r_ref = malloc(b->rtotal)) || !(b->r_init = malloc(b->rtotal))) return MPI_ERR_NO_MEM;
        memcpy(b->r_ref, b->r, b->rtotal);
        memcpy(b->r_init, b->r, b->rtotal);
    }
    /* The arguments MPI_IN_PLACE stands for. */
    b->a.sbuf = b->s;
    b->a.rbuf = b->r;
    if (ip) {
        switch (k->coll) {
        case TOPOCOLL_SCATTER: if (rank == root) b->a.rbuf = MPI_IN_PLACE; break;
        case TOPOCOLL_GATHER: case TOPOCOLL_REDUCE: if (rank == root) b->a.sbuf = MPI_IN_PLACE; break;
        case TOPOCOLL_REDUCE_SCATTER_BLOCK: b->a.sbuf = MPI_IN_PLACE; break;
        default: break;
        }
    }
    return MPI_SUCCESS;
}

/* MPICH before 4.2 crashes in MPI_Reduce with MPI_IN_PLACE at a root other
 * than 0 once its reduce_scatter_gather algorithm is used (commutative op,
 * more than 2048 bytes): pmodels/mpich#6540, fixed by pmodels/mpich#6543.  There
 * the reference is computed from a copy of the root's input (not in place),
 * and the cases that would call PMPI_Reduce in place themselves ("native",
 * and auto, which may choose it) are skipped. */
static int mpich_reduce_in_place_bug(const ccase *k)
{
#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40200000
    return k->coll == TOPOCOLL_REDUCE && k->in_place && k->root != 0 &&
           k->rc->op != g_matmul &&
           (size_t)k->count * (size_t)k->rc->l.nper * base_size(k->rc->base) > 2048;
#else
    (void)k;
    return 0;
#endif
}

/* Does MPI_Error_string return the strings of MPI_Add_error_string?  MPICH
 * 4.0 does not (it prints a stale error stack instead), so topocoll's
 * messages cannot be read there. */
static int g_messages_readable = 1;

static void probe_error_strings(void)
{
    static const char text[] = "topocoll test: probe declines";
    char s[MPI_MAX_ERROR_STRING];
    int code, len = 0;
    if (MPI_Add_error_code(MPI_ERR_ARG, &code) != MPI_SUCCESS ||
        MPI_Add_error_string(code, text) != MPI_SUCCESS ||
        MPI_Error_string(code, s, &len) != MPI_SUCCESS || len <= 0 || strcmp(s, text) != 0)
        g_messages_readable = 0;
}

/* Is this error the algorithm declining the arguments?  1: yes, with the
 * message; 2: the class MPI_ERR_ARG without a readable message (topocoll ran
 * out of error codes for messages, or the MPI library does not return added
 * error strings); 0: no. */
static int is_decline(int rc)
{
    char s[MPI_MAX_ERROR_STRING];
    if (rc == MPI_SUCCESS || tm_err_class(rc) != MPI_ERR_ARG) return 0;
    if (rc == MPI_ERR_ARG || !g_messages_readable) return 2;
    tm_errstr(rc, s, (int)sizeof s);
    return strstr(s, "declines") != NULL;
}

static void describe(char *desc, const ctx *c, int casen, const char *where, int size,
                     const mapping *m, const ccase *k)
{
    char root[32] = "", what[160];
    if (is_rooted(k->coll)) snprintf(root, sizeof root, " root=%d", k->root);
    if (is_reduction(k->coll))
        snprintf(what, sizeof what, "type=%s op=%s", k->rc->type_name, k->rc->op_name);
    else
        snprintf(what, sizeof what, "type=%s", k->tc->name);
    snprintf(desc, DESC_LEN,
             "[case %d] np=%d comm=%s(size %d) mapping=%s%s%s%s coll=%s algorithm=%s%s count=%d %s in_place=%s",
             casen, c->wsize, where, size, m->name, m->spec[0] ? "(" : "", m->spec,
             m->spec[0] ? ")" : "", topocoll_coll_name(k->coll), k->algo ? k->algo : "auto", root,
             k->count, what, has_in_place(k->coll) ? (k->in_place ? "yes" : "no") : "n/a");
}

/* Runs one case on comm (every rank of MPI_COMM_WORLD calls this for every
 * case, each with its own communicator). */
static int run_case(ctx *c, MPI_Comm comm, const char *where, const mapping *m, const ccase *k)
{
    int64_t keys[NKEYS];
    char desc[DESC_LEN];
    int rank, size, rc, casen = ++c->casen, declined = 0;
    bufs b;

    for (int i = 0; i < NKEYS; i++) keys[i] = INT64_MAX;
    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: MPI_Comm_rank/size failed\n", c->wrank);
        return -1;
    }
    describe(desc, c, casen, where, size, m, k);
    if (mpich_reduce_in_place_bug(k) &&
        (!k->algo || !topocoll_algorithm_family(k->coll, k->algo_index) ||
         strcmp(topocoll_algorithm_family(k->coll, k->algo_index), "native") == 0)) {
        c->nskipped++;
        c->nknown++;
        if (c->verbose && c->wrank == 0) printf("skipped (MPICH bug pmodels/mpich#6540) %s\n", desc);
        return 1;
    }
    if (c->verbose && c->wrank == 0) {
        printf("run %s\n", desc);
        fflush(stdout);
    }
    rc = setup(k, rank, size, casen, &b);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: setting up %s failed (%d)\n", c->wrank, desc, rc);
        free_bufs(&b);
        return -1;
    }

    watch(c, desc);
    rc = call_topocoll(k->coll, k->algo, &b.a, comm);
    if (rc != MPI_SUCCESS && k->algo && (declined = is_decline(rc)) != 0) {
        tm_set_key(keys, K_DECLINED, 0, c->wrank, c->wsize);
        if (declined == 2) tm_set_key(keys, K_BARE, 0, c->wrank, c->wsize);
        if (c->verbose && rank == 0) {
            char s[MPI_MAX_ERROR_STRING];
            tm_errstr(rc, s, (int)sizeof s);
            fprintf(stderr, "     %s: %s\n", desc, s);
        }
        if (b.r) {
            long long d = tm_first_diff(b.r, b.r_init, b.rtotal);
            if (d >= 0) {
                tm_set_key(keys, K_DECL_BUF, d, c->wrank, c->wsize);
                detail(c, desc, "declined, but changed receive byte %lld", d);
            }
        }
        if (b.s) {
            long long d = tm_first_diff(b.s, b.s_orig, b.sbytes);
            if (d >= 0) {
                tm_set_key(keys, K_DECL_BUF, d, c->wrank, c->wsize);
                detail(c, desc, "declined, but changed send byte %lld", d);
            }
        }
    } else {
        tm_set_key(keys, K_SERVING, 0, c->wrank, c->wsize);
    }
    if (comm != MPI_COMM_WORLD) {
        /* agreement inside the communicator (the halves may differ) */
        int mm[2] = { declined ? 1 : 0, declined ? -1 : 0 }, agreed[2];
        if (PMPI_Allreduce(mm, agreed, 2, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) {
            fprintf(stderr, "rank %d: PMPI_Allreduce failed\n", c->wrank);
            free_bufs(&b);
            return -1;
        }
        if (agreed[0] != -agreed[1]) tm_set_key(keys, K_SPLIT, 0, c->wrank, c->wsize);
    }
    if (declined) goto settle;

    if (rc != MPI_SUCCESS) {
        char s[MPI_MAX_ERROR_STRING];
        tm_errstr(rc, s, (int)sizeof s);
        tm_set_key(keys, K_RC, tm_err_class(rc), c->wrank, c->wsize);
        detail(c, desc, "returned %d: %s", rc, s);
    } else {
        const char *served = topocoll_last_algorithm();
        if (k->algo && (!served || strcmp(served, k->algo) != 0)) {
            tm_set_key(keys, K_SERVED, 0, c->wrank, c->wsize);
            detail(c, desc, "topocoll_last_algorithm() = \"%s\"", served ? served : "(null)");
        } else if (!k->algo && c->auto_served[k->coll]) {
            int i = served ? topocoll_algorithm_index(k->coll, served) : -1;
            int n = c->nalgo[k->coll];
            c->auto_served[k->coll][i >= 0 && i < n ? i : n]++;
        }
    }
    if (b.s) {
        long long d = tm_first_diff(b.s, b.s_orig, b.sbytes);
        if (d >= 0) {
            tm_set_key(keys, K_SEND, d, c->wrank, c->wsize);
            detail(c, desc, "send buffer changed at byte %lld: 0x%02x, was 0x%02x", d, b.s[d], b.s_orig[d]);
            memcpy(b.s, b.s_orig, b.sbytes);   /* the reference gets the right input */
        }
    }

    /* The reference: the same call by the MPI library, into r_ref. */
    {
        cargs ra = b.a;
        if (ra.rbuf != MPI_IN_PLACE && ra.rbuf) ra.rbuf = b.r_ref;
        if (ra.sbuf == MPI_IN_PLACE && mpich_reduce_in_place_bug(k)) ra.sbuf = b.r_init;
        rc = call_pmpi(k->coll, &ra, comm);
    }
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: %s: %s returned %d\n", c->wrank, desc, pmpi_name(k->coll), rc);
        tm_set_key(keys, K_REF, 0, c->wrank, c->wsize);
    } else if (b.r) {
        long long d = diff_defined(b.r, b.r_ref, b.rdef, b.rspan);
        long long e = diff_defined(b.r_ref, b.r_exp, b.rdef, b.rspan);
        if (d >= 0) {
            tm_set_key(keys, K_DIFF, d, c->wrank, c->wsize);
            detail(c, desc, "first difference at receive byte %lld (element %lld): got 0x%02x, %s 0x%02x",
                   d, b.unit ? d / (long long)b.unit : d, b.r[d], pmpi_name(k->coll), b.r_ref[d]);
        }
        if (e >= 0) {
            tm_set_key(keys, K_REF, e, c->wrank, c->wsize);
            detail(c, desc, "%s differs from the expected values at receive byte %lld: 0x%02x, expected 0x%02x",
                   pmpi_name(k->coll), e, b.r_ref[e], b.r_exp[e]);
        }
    }

settle:
    {
        size_t unit = b.unit;
        free_bufs(&b);
        return settle(c, keys, desc, unit, comm == MPI_COMM_WORLD, k);
    }
}

/* ---- mappings (matrix_common.c) ---------------------------------------------- */

/* Sets comm's topology (NULL spec: back to detection) and checks the counts.
 * Returns 1 when usable; counts a failure otherwise. */
static int apply_mapping(ctx *c, MPI_Comm comm, const char *where, const mapping *m)
{
    int64_t keys[NKEYS];
    char desc[DESC_LEN];

    for (int k = 0; k < NKEYS; k++) keys[k] = INT64_MAX;
    snprintf(desc, sizeof desc, "[topology] np=%d comm=%s mapping=%s spec=\"%s\"",
             c->wsize, where, m->name, m->spec);
    tm_set_mapping(comm, m, desc, c->verbose, c->wrank, c->wsize, keys, K_RC, K_TOPO);
    tm_set_key(keys, K_SERVING, 0, c->wrank, c->wsize);
    return settle(c, keys, desc, 0, 1, NULL);
}

/* ---- the matrix ---------------------------------------------------------- */

typedef struct matrix {
    const type_case *types;
    int ntypes;
    const red_case *reds;
    int nreds;
    const int *counts;
    int ncounts;
    int roots[3];                /* -1: last rank of the communicator; -2: size / 2 */
    int nroots;
    int all_roots;               /* keep duplicate roots (the halves must run alike) */
    int sample;                  /* --sample applies */
    int bcast_mixed;             /* bcast types whose (count, type) differ between ranks:
                                    0 left out, 1 only those, 2 all types */
} matrix;

static int resolve_root(int code, int size)
{
    return code == -1 ? size - 1 : code == -2 ? size / 2 : code;
}

/* Is this case part of the run (--sample)?  Counts the ordinal either way. */
static int sampled(ctx *c, const ccase *k, int use_sample)
{
    int slot = k->algo_index + 1;
    unsigned ord = c->ordinal[k->coll][slot < MAX_SLOTS ? slot : MAX_SLOTS - 1]++;
    if (!use_sample || c->sample <= 1) return 1;
    if (tm_fmix32(ord * 0x9E3779B1u + (uint32_t)c->wsize * 0x85EBCA6Bu + (uint32_t)k->coll * 0x27D4EB2Fu +
               (uint32_t)slot) % (uint32_t)c->sample == 0)
        return 1;
    c->nsampled_out++;
    return 0;
}

static int run_algorithm(ctx *c, MPI_Comm comm, const char *where, const mapping *m,
                         const matrix *mx, ccase *k)
{
    int size, rootv[3], nr = 0;
    if (MPI_Comm_size(comm, &size) != MPI_SUCCESS) return -1;
    for (int i = 0; i < (is_rooted(k->coll) ? mx->nroots : 1); i++) {
        int r = is_rooted(k->coll) ? resolve_root(mx->roots[i], size) : 0, dup = 0;
        for (int j = 0; j < nr && !mx->all_roots; j++) dup |= rootv[j] == r;
        if (!dup) rootv[nr++] = r;
    }
    for (int ri = 0; ri < nr; ri++) {
        int nt = is_reduction(k->coll) ? mx->nreds : mx->ntypes;
        k->root = rootv[ri];
        for (int t = 0; t < nt; t++) {
            if (is_reduction(k->coll)) {
                if (c->quick && !mx->reds[t].quick) continue;
                k->rc = &mx->reds[t];
                k->tc = NULL;
            } else {
                if (c->quick && !mx->types[t].quick) continue;
                if (k->coll == TOPOCOLL_BCAST && mx->bcast_mixed != 2 &&
                    (mx->types[t].smul != mx->types[t].rmul ||
                     mx->types[t].stype != mx->types[t].rtype) != (mx->bcast_mixed == 1))
                    continue;
                k->tc = &mx->types[t];
                k->rc = NULL;
            }
            for (int n = 0; n < mx->ncounts; n++)
                for (int ip = 0; ip < (has_in_place(k->coll) ? 2 : 1); ip++) {
                    k->count = mx->counts[n];
                    k->in_place = ip;
                    if (c->counting) {
                        if (mx->sample) c->ncounted++;
                        continue;
                    }
                    if (!sampled(c, k, mx->sample)) continue;
                    if (run_case(c, comm, where, m, k) < 0) return -1;
                }
        }
    }
    return 0;
}

static int algo_selected(const ctx *c, topocoll_coll coll, int a)
{
    if (!c->only_algo) return 1;
    if (a < 0) return strcmp(c->only_algo, "auto") == 0;
    return strcmp(c->only_algo, topocoll_algorithm_name(coll, a)) == 0;
}

/* Every selected collective x (auto + every catalog entry) x the matrix; then
 * the large cases (when large_type / large_red are given). */
static int run_matrix(ctx *c, MPI_Comm comm, const char *where, const mapping *m,
                      const matrix *mx, const type_case *large_type, const red_case *large_red)
{
    for (int coll = TOPOCOLL_BCAST; coll <= TOPOCOLL_REDUCE_SCATTER_BLOCK; coll++) {
        if (c->only_coll >= 0 && coll != c->only_coll) continue;
        if (mx->bcast_mixed == 1 && coll != TOPOCOLL_BCAST) continue;
        for (int a = -1; a < c->nalgo[coll]; a++) {
            ccase k;
            if (!algo_selected(c, (topocoll_coll)coll, a)) continue;
            memset(&k, 0, sizeof k);
            k.coll = (topocoll_coll)coll;
            k.algo_index = a;
            k.algo = a < 0 ? NULL : topocoll_algorithm_name(k.coll, a);
            if (run_algorithm(c, comm, where, m, mx, &k) < 0) return -1;
            if (large_type && large_red && !c->counting) {
                int size;
                if (MPI_Comm_size(comm, &size) != MPI_SUCCESS) return -1;
                k.root = size - 1;
                k.in_place = 0;
                if (is_reduction(k.coll)) {
                    k.rc = large_red;
                    k.tc = NULL;
                    k.count = LARGE_INTS;
                } else {
                    k.tc = large_type;
                    k.rc = NULL;
                    k.count = LARGE_BYTES;
                }
                if (run_case(c, comm, where, m, &k) < 0) return -1;
            }
        }
    }
    return 0;
}

/* The catalog of every tested collective: names, indices, descriptions,
 * families, the native entry, out-of-range queries; collective names. */
static int check_catalog(ctx *c)
{
    int64_t keys[NKEYS];
    for (int k = 0; k < NKEYS; k++) keys[k] = INT64_MAX;
    for (int coll = TOPOCOLL_BCAST; coll <= TOPOCOLL_REDUCE_SCATTER_BLOCK; coll++) {
        topocoll_coll cl = (topocoll_coll)coll;
        const char *cname = topocoll_coll_name(cl);
        int n = topocoll_algorithm_count(cl), native = 0;
        if (!cname || topocoll_coll_from_name(cname) != coll) {
            tm_set_key(keys, K_RC, 0, c->wrank, c->wsize);
            if (c->wrank == 0) fprintf(stderr, "collective %d: name \"%s\" does not map back\n", coll,
                                       cname ? cname : "(null)");
        }
        if (n < 1 || n >= MAX_SLOTS - 1 || topocoll_algorithm_name(cl, n) != NULL ||
            topocoll_algorithm_name(cl, -1) != NULL || topocoll_algorithm_family(cl, n) != NULL) {
            tm_set_key(keys, K_RC, 0, c->wrank, c->wsize);
            if (c->wrank == 0) fprintf(stderr, "%s: %d algorithms, or out-of-range queries answer\n",
                                       cname ? cname : "?", n);
        }
        for (int i = 0; i < n; i++) {
            const char *name = topocoll_algorithm_name(cl, i);
            const char *fam = topocoll_algorithm_family(cl, i);
            if (!name || topocoll_algorithm_index(cl, name) != i ||
                !topocoll_algorithm_description(cl, i) || !topocoll_algorithm_requirements(cl, i) ||
                !fam || !fam[0]) {
                tm_set_key(keys, K_RC, 0, c->wrank, c->wsize);
                if (c->wrank == 0) fprintf(stderr, "%s: entry %d (%s) is incomplete\n", cname ? cname : "?",
                                           i, name ? name : "(null)");
            }
            if (name && strcmp(name, "native") == 0) {
                native = 1;
                if (!fam || strcmp(fam, "native") != 0) tm_set_key(keys, K_RC, 0, c->wrank, c->wsize);
            }
        }
        if (!native) {
            tm_set_key(keys, K_RC, 0, c->wrank, c->wsize);
            if (c->wrank == 0) fprintf(stderr, "%s: no \"native\" entry\n", cname ? cname : "?");
        }
        c->nalgo[coll] = n < 0 ? 0 : n >= MAX_SLOTS - 1 ? MAX_SLOTS - 2 : n;
    }
    tm_set_key(keys, K_SERVING, 0, c->wrank, c->wsize);
    return settle(c, keys, "[catalog] names, indices, descriptions and families of every tested collective",
                  0, 1, NULL);
}

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s [--quick] [--coll NAME] [--algorithm NAME] [--sample=K] [--max-cases=N]"
                    " [--no-large] [--verbose] [--case-timeout=S]\n", prog);
}

int main(int argc, char **argv)
{
    static const int counts_full[] = { 0, 1, 3, 1000 };
    static const int counts_quick[] = { 0, 1, 1000 };
    static const int counts_sub[] = { 3 };
    MPI_Datatype con3 = MPI_DATATYPE_NULL;
    MPI_Op usum = MPI_OP_NULL, matmul = MPI_OP_NULL;
    type_case types[6], large_type;
    red_case reds[15], large_red;
    int ntypes = 0, nreds = 0;
    mapping maps[TM_NMAPPINGS];
    matrix mx, mixed;
    ctx c;
    int rc, nmaps, bad = 0;
    MPI_Comm half = MPI_COMM_NULL;

    memset(&c, 0, sizeof c);
    c.large = 1;
    c.only_coll = -1;
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "MPI_Init failed\n");
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) c.quick = 1;
        else if (strcmp(argv[i], "--no-large") == 0) c.large = 0;
        else if (strcmp(argv[i], "--verbose") == 0) c.verbose = 1;
        else if (strncmp(argv[i], "--sample=", 9) == 0 && atoi(argv[i] + 9) > 0) c.sample = atoi(argv[i] + 9);
        else if (strncmp(argv[i], "--max-cases=", 12) == 0 && atoi(argv[i] + 12) > 0)
            c.max_cases = atoi(argv[i] + 12);
        else if (strncmp(argv[i], "--case-timeout=", 15) == 0 && atoi(argv[i] + 15) >= 0)
            g_case_timeout = (unsigned)atoi(argv[i] + 15);
        else if ((strcmp(argv[i], "--coll") == 0 && i + 1 < argc) || strncmp(argv[i], "--coll=", 7) == 0) {
            const char *name = argv[i][6] == '=' ? argv[i] + 7 : argv[++i];
            c.only_coll = topocoll_coll_from_name(name);
            if (c.only_coll < TOPOCOLL_BCAST || c.only_coll > TOPOCOLL_REDUCE_SCATTER_BLOCK) bad = 1;
        } else if ((strcmp(argv[i], "--algorithm") == 0 && i + 1 < argc) ||
                   strncmp(argv[i], "--algorithm=", 12) == 0) {
            c.only_algo = argv[i][11] == '=' ? argv[i] + 12 : argv[++i];
        } else bad = 1;
        if (bad) {
            usage(argv[0]);
            MPI_Finalize();
            return 2;
        }
    }
    if (c.quick) c.large = 0;
    if (MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) != MPI_SUCCESS ||
        MPI_Comm_rank(MPI_COMM_WORLD, &c.wrank) != MPI_SUCCESS ||
        MPI_Comm_size(MPI_COMM_WORLD, &c.wsize) != MPI_SUCCESS ||
        MPI_Type_vector(2, 1, 3, MPI_INT, &g_vec) != MPI_SUCCESS || MPI_Type_commit(&g_vec) != MPI_SUCCESS ||
        MPI_Type_contiguous(4, MPI_INT, &g_mat) != MPI_SUCCESS || MPI_Type_commit(&g_mat) != MPI_SUCCESS ||
        MPI_Type_vector(2, 2, 3, MPI_INT, &g_matgap) != MPI_SUCCESS ||
        MPI_Type_commit(&g_matgap) != MPI_SUCCESS ||
        MPI_Type_contiguous(3, MPI_INT, &con3) != MPI_SUCCESS || MPI_Type_commit(&con3) != MPI_SUCCESS ||
        MPI_Op_create(op_usum, 1, &usum) != MPI_SUCCESS ||
        MPI_Op_create(op_matmul, 0, &matmul) != MPI_SUCCESS) {
        fprintf(stderr, "MPI set-up failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
        return 1;
    }
    g_usum = usum;
    g_matmul = matmul;
    probe_error_strings();
    if (c.large && c.wsize > LARGE_MAX_NP) c.large = 0;
    if (g_case_timeout) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_alarm;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGALRM, &sa, NULL);
    }

    {
        /* bcast, scatter, gather */
        const type_case t[6] = {
            { "MPI_INT", BASE_INT, MPI_INT, MPI_INT, L_ONE, L_ONE, 1, 1, 1 },
            { "MPI_DOUBLE", BASE_DOUBLE, MPI_DOUBLE, MPI_DOUBLE, L_ONE, L_ONE, 1, 1, 0 },
            { "MPI_BYTE", BASE_BYTE, MPI_BYTE, MPI_BYTE, L_ONE, L_ONE, 1, 1, 0 },
            { "vector(2,1,3,MPI_INT)", BASE_INT, g_vec, g_vec, L_VEC, L_VEC, 1, 1, 1 },
            /* one signature, different types: root / send side contiguous(3,MPI_INT) x n,
             * the receive side MPI_INT x 3n */
            { "contiguous(3,MPI_INT) x n against MPI_INT x 3n", BASE_INT, con3, MPI_INT, L_THREE,
              L_ONE, 1, 3, 1 },
            /* ... and the other way round: MPI_INT x 3n against contiguous(3,MPI_INT) x n */
            { "MPI_INT x 3n against contiguous(3,MPI_INT) x n", BASE_INT, MPI_INT, con3, L_ONE,
              L_THREE, 3, 1, 0 },
        };
        const red_case r[15] = {
            { "MPI_INT", "MPI_SUM", BASE_INT, MPI_INT, L_ONE, MPI_SUM, V_SMALL, 1 },
            { "MPI_INT", "MPI_MAX", BASE_INT, MPI_INT, L_ONE, MPI_MAX, V_WIDE, 0 },
            { "MPI_INT", "MPI_PROD", BASE_INT, MPI_INT, L_ONE, MPI_PROD, V_PROD, 0 },
            { "MPI_INT", "MPI_BAND", BASE_INT, MPI_INT, L_ONE, MPI_BAND, V_DENSE, 0 },
            { "MPI_INT", "MPI_BOR", BASE_INT, MPI_INT, L_ONE, MPI_BOR, V_SPARSE, 0 },
            { "MPI_DOUBLE", "MPI_SUM", BASE_DOUBLE, MPI_DOUBLE, L_ONE, MPI_SUM, V_SMALL, 1 },
            { "MPI_DOUBLE", "MPI_MAX", BASE_DOUBLE, MPI_DOUBLE, L_ONE, MPI_MAX, V_WIDE, 0 },
            { "MPI_DOUBLE", "MPI_PROD", BASE_DOUBLE, MPI_DOUBLE, L_ONE, MPI_PROD, V_PROD, 0 },
            { "MPI_UNSIGNED_CHAR", "MPI_SUM", BASE_UCHAR, MPI_UNSIGNED_CHAR, L_ONE, MPI_SUM, V_SMALL, 0 },
            { "MPI_UNSIGNED_CHAR", "MPI_MAX", BASE_UCHAR, MPI_UNSIGNED_CHAR, L_ONE, MPI_MAX, V_WIDE, 0 },
            { "MPI_BYTE", "MPI_BAND", BASE_BYTE, MPI_BYTE, L_ONE, MPI_BAND, V_DENSE, 1 },
            { "MPI_INT", "user commutative sum", BASE_INT, MPI_INT, L_ONE, usum, V_SMALL, 0 },
            { "vector(2,1,3,MPI_INT)", "user commutative sum", BASE_INT, g_vec, L_VEC, usum, V_SMALL, 1 },
            { "contiguous(4,MPI_INT)", "user non-commutative 2x2 matrix product", BASE_INT, g_mat, L_MAT,
              matmul, V_WIDE, 1 },
            { "vector(2,2,3,MPI_INT)", "user non-commutative 2x2 matrix product", BASE_INT, g_matgap,
              L_MATGAP, matmul, V_WIDE, 0 },
        };
        memcpy(types, t, sizeof t);
        ntypes = 6;
        memcpy(reds, r, sizeof r);
        nreds = 15;
        large_type = types[2];     /* MPI_BYTE x LARGE_BYTES */
        large_type.name = "MPI_BYTE (large)";
        large_red = reds[0];       /* MPI_INT x LARGE_INTS, MPI_SUM */
        large_red.type_name = "MPI_INT (large)";
    }

    if (check_catalog(&c) < 0) goto abort;

    memset(&mx, 0, sizeof mx);
    mx.types = types;
    mx.ntypes = ntypes;
    mx.reds = reds;
    mx.nreds = nreds;
    mx.counts = c.quick ? counts_quick : counts_full;
    mx.ncounts = c.quick ? (int)(sizeof counts_quick / sizeof counts_quick[0])
                         : (int)(sizeof counts_full / sizeof counts_full[0]);
    mx.roots[0] = 0;
    mx.roots[1] = -1;
    mx.roots[2] = -2;
    mx.nroots = c.quick ? 2 : 3;
    mx.sample = 1;
    mx.bcast_mixed = 0;
    mixed = mx;
    mixed.bcast_mixed = 1;
    nmaps = tm_make_mappings(maps, c.wsize);
    if (c.max_cases > 0) {
        /* count the matrix (it grows with the catalogs), then sample to fit */
        c.counting = 1;
        for (int m = 0; m < nmaps; m++)
            if (run_matrix(&c, MPI_COMM_WORLD, "world", &maps[m], &mx, NULL, NULL) < 0 ||
                run_matrix(&c, MPI_COMM_WORLD, "world", &maps[m], &mixed, NULL, NULL) < 0)
                goto abort;
        c.counting = 0;
        if ((c.ncounted + c.max_cases - 1) / c.max_cases > (c.sample > 1 ? c.sample : 1))
            c.sample = (int)((c.ncounted + c.max_cases - 1) / c.max_cases);
    }
    for (int coll = TOPOCOLL_BCAST; coll <= TOPOCOLL_REDUCE_SCATTER_BLOCK; coll++) {
        c.auto_served[coll] = calloc((size_t)c.nalgo[coll] + 1, sizeof(int));
        if (!c.auto_served[coll]) goto abort;
    }
    if (c.wrank == 0) {
        printf("collectives matrix: np=%d,", c.wsize);
        for (int coll = TOPOCOLL_BCAST; coll <= TOPOCOLL_REDUCE_SCATTER_BLOCK; coll++)
            if (c.only_coll < 0 || coll == c.only_coll)
                printf(" %s %d", topocoll_coll_name((topocoll_coll)coll), c.nalgo[coll]);
        printf(" algorithms (+ auto)%s%s", c.quick ? ", quick" : "", c.large ? ", with >= 256 KiB cases" : "");
        if (c.max_cases > 0) printf(", %ld matrix cases", c.ncounted);
        if (c.sample > 1) printf(", about 1 in %d of them run", c.sample);
        printf("\n");
        fflush(stdout);
    }

    /* Part 1: MPI_COMM_WORLD under every mapping. */
    for (int m = 0; m < nmaps; m++) {
        int ok = apply_mapping(&c, MPI_COMM_WORLD, "world", &maps[m]);
        if (ok < 0) goto abort;
        if (ok == 0) continue;
        rc = run_matrix(&c, MPI_COMM_WORLD, "world", &maps[m], &mx,
                        (m == 0 && c.large) ? &large_type : NULL, (m == 0 && c.large) ? &large_red : NULL);
        if (rc < 0) goto abort;
    }

    /* Part 2: two halves of MPI_COMM_WORLD, ranks in reverse order; first with
     * the detected topology, then with a cyclic virtual one.  Every rank runs
     * the same cases (roots 0 and last, duplicates kept). */
    {
        int color = c.wrank < c.wsize / 2 ? 0 : 1;
        mapping sub[2];
        type_case st[2];
        red_case sr[2];
        matrix hx;
        memset(sub, 0, sizeof sub);
        sub[0].name = "detected";
        sub[1].name = "cyclic";
        snprintf(sub[1].spec, sizeof sub[1].spec, "2x*/cyclic");
        st[0] = types[0];
        st[1] = types[3];
        sr[0] = reds[0];
        sr[1] = reds[13];
        st[0].quick = st[1].quick = sr[0].quick = sr[1].quick = 1;
        memset(&hx, 0, sizeof hx);
        hx.types = st;
        hx.ntypes = 2;
        hx.reds = sr;
        hx.nreds = 2;
        hx.counts = counts_sub;
        hx.ncounts = 1;
        hx.roots[0] = 0;
        hx.roots[1] = -1;
        hx.nroots = 2;
        hx.all_roots = 1;
        hx.sample = 0;
        if (MPI_Comm_split(MPI_COMM_WORLD, color, c.wsize - c.wrank, &half) != MPI_SUCCESS ||
            MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN) != MPI_SUCCESS) {
            fprintf(stderr, "rank %d: MPI_Comm_split failed\n", c.wrank);
            goto abort;
        }
        for (int m = 0; m < 2; m++) {
            int hsize = 0, ok;
            if (MPI_Comm_size(half, &hsize) != MPI_SUCCESS) goto abort;
            if (m == 1) sub[1].nnodes = sub[1].nsockets = hsize >= 2 ? 2 : 1;
            ok = apply_mapping(&c, half, color ? "upper half" : "lower half", &sub[m]);
            if (ok < 0) goto abort;
            if (ok == 0) continue;
            rc = run_matrix(&c, half, color ? "upper half" : "lower half", &sub[m], &hx, NULL, NULL);
            if (rc < 0) goto abort;
        }
        if (MPI_Comm_free(&half) != MPI_SUCCESS) goto abort;
    }

    /* Part 3: bcast with a (count, datatype) at the root that differs from the
     * other ranks' (same type signature), every mapping.  Last of the
     * matrix, since an algorithm that splits the data by its own count makes
     * the ranks disagree and hang (the watchdog then ends the run). */
    for (int m = 0; m < nmaps; m++) {
        int ok;
        if (c.only_coll >= 0 && c.only_coll != TOPOCOLL_BCAST) break;
        ok = apply_mapping(&c, MPI_COMM_WORLD, "world", &maps[m]);
        if (ok < 0) goto abort;
        if (ok == 0) continue;
        if (run_matrix(&c, MPI_COMM_WORLD, "world", &maps[m], &mixed, NULL, NULL) < 0) goto abort;
    }

    /* Part 4: a reduction with a user-defined commutative op, the op freed,
     * and one with a new NON-commutative op, which the MPI library may give
     * the freed op's handle: nothing cached for the first op may serve the
     * second.  Root np-1, 3 elements of contiguous(4,MPI_INT). */
    if (apply_mapping(&c, MPI_COMM_WORLD, "world", &maps[0]) < 0) goto abort;
    for (int coll = TOPOCOLL_REDUCE; coll <= TOPOCOLL_REDUCE_SCATTER_BLOCK; coll++) {
        if (c.only_coll >= 0 && coll != c.only_coll) continue;
        for (int a = -1; a < c.nalgo[coll]; a++) {
            red_case r = reds[13];
            ccase k;
            MPI_Op op = MPI_OP_NULL;
            if (!algo_selected(&c, (topocoll_coll)coll, a)) continue;
            memset(&k, 0, sizeof k);
            k.coll = (topocoll_coll)coll;
            k.algo_index = a;
            k.algo = a < 0 ? NULL : topocoll_algorithm_name(k.coll, a);
            k.root = c.wsize - 1;
            k.count = 3;
            k.rc = &r;
            for (int step = 0; step < 2; step++) {
                if (MPI_Op_create(step == 0 ? op_usum : op_matmul, step == 0, &op) != MPI_SUCCESS) goto abort;
                r.op = op;
                r.vk = step == 0 ? V_SMALL : V_WIDE;
                r.op_name = step == 0 ? "user commutative sum (created, then freed)"
                                      : "user non-commutative 2x2 matrix product (created after freeing a commutative op)";
                if (run_case(&c, MPI_COMM_WORLD, "world", &maps[0], &k) < 0) goto abort;
                if (MPI_Op_free(&op) != MPI_SUCCESS) goto abort;
            }
        }
    }

    if (g_bad_type_calls) {
        fprintf(stderr, "rank %d: a user op was called %d times with a datatype it was not given\n",
                c.wrank, g_bad_type_calls);
    }
    {
        int mine = g_bad_type_calls, all = 0;
        if (PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS) goto abort;
        if (all) {
            c.nfailed++;
            if (c.wrank == 0) printf("FAIL user ops were called with a datatype they were not given (%d calls)\n", all);
        }
    }

    if (c.wrank == 0) {
        for (int coll = TOPOCOLL_BCAST; coll <= TOPOCOLL_REDUCE_SCATTER_BLOCK; coll++) {
            int any = 0;
            for (int i = 0; i <= c.nalgo[coll]; i++) any |= c.auto_served[coll][i];
            if (!any) continue;
            printf("auto selected (%s):", topocoll_coll_name((topocoll_coll)coll));
            for (int i = 0; i <= c.nalgo[coll]; i++)
                if (c.auto_served[coll][i])
                    printf(" %s x%d", i < c.nalgo[coll] ? topocoll_algorithm_name((topocoll_coll)coll, i)
                                                        : "(unknown)", c.auto_served[coll][i]);
            printf("\n");
        }
        if (c.nfailed) {
            printf("failed cases by algorithm:");
            for (int coll = TOPOCOLL_BCAST; coll <= TOPOCOLL_REDUCE_SCATTER_BLOCK; coll++)
                for (int i = 0; i <= c.nalgo[coll] && i < MAX_SLOTS; i++)
                    if (c.fails[coll][i])
                        printf(" %s/%s %d", topocoll_coll_name((topocoll_coll)coll),
                               i == 0 ? "auto" : topocoll_algorithm_name((topocoll_coll)coll, i - 1),
                               c.fails[coll][i]);
            printf("\n");
        }
        if (c.nsampled_out) printf("%d cases sampled out (--sample=%d)\n", c.nsampled_out, c.sample);
        if (c.nknown)
            printf("note: %d cases skipped for a known bug of the MPI library (pmodels/mpich#6540)\n",
                   c.nknown);
        if (c.nbare)
            printf("note: %d declined cases were recognised by the class MPI_ERR_ARG alone (%s)\n", c.nbare,
                   g_messages_readable ? "topocoll returned the bare class, without a message"
                                       : "this MPI library's MPI_Error_string does not return added error strings");
        printf("%d passed, %d failed, %d skipped\n", c.npassed, c.nfailed, c.nskipped);
        fflush(stdout);
    }
    for (int coll = TOPOCOLL_BCAST; coll <= TOPOCOLL_REDUCE_SCATTER_BLOCK; coll++) free(c.auto_served[coll]);
    if (MPI_Type_free(&g_vec) != MPI_SUCCESS || MPI_Type_free(&g_mat) != MPI_SUCCESS ||
        MPI_Type_free(&g_matgap) != MPI_SUCCESS || MPI_Type_free(&con3) != MPI_SUCCESS ||
        MPI_Op_free(&usum) != MPI_SUCCESS || MPI_Op_free(&matmul) != MPI_SUCCESS) {
        fprintf(stderr, "MPI_Type_free / MPI_Op_free failed\n");
        c.nfailed++;
    }
    if (MPI_Finalize() != MPI_SUCCESS) return 1;
    return c.nfailed ? 1 : 0;

abort:
    fprintf(stderr, "rank %d: test infrastructure failure, aborting\n", c.wrank);
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
}
