/*
 * Allgather test matrix: every algorithm of the catalog (plus the selected
 * path, reported as "auto") x counts x datatypes x MPI_IN_PLACE x rank
 * mappings, each compared element by element with PMPI_Allgather on the same
 * inputs, and the reference itself checked against the values the test put in.
 *
 * Mappings are virtual topologies given with topocoll_set_topology on
 * MPI_COMM_WORLD, computed from the process count: block, cyclic, random and
 * unequal node sizes.  An algorithm that declines a case is counted as
 * skipped, after checking that forcing it returns MPI_ERR_ARG without touching
 * the receive buffer.  A second part runs on two halves of MPI_COMM_WORLD
 * (MPI_Comm_split with a reversed key).
 *
 * Receive buffers start filled with a sentinel byte and end with a guard
 * zone: the gaps of a derived type and the guard must come back untouched.
 *
 * Usage: test_allgather_matrix [--quick] [--no-large] [--verbose]
 *                              [--flat | --hierarchical] [--sample=K]
 *   --flat / --hierarchical  only the flat entries (and auto) / only the
 *               hierarchical family h<leaders>_<agg>_<exchange>_<dist>;
 *   --sample=K  of the hierarchical entries, every K-th (offset by np, so
 *               runs at different np cover different entries);
 *   --quick     fewer counts and datatypes, no large cases (for MPICH, whose
 *               oversubscribed runs are slow);
 *   --no-large  leave out the >= 1 MiB per rank cases;
 *   --verbose   print every case on rank 0.
 * Ends with "N passed, M failed[, K skipped]"; exits 1 on any failure.
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topocoll.h"
#include "matrix_common.h"

/* One line of detail on stderr from the rank that saw it (capped per rank). */
#define detail(c, desc, ...) tm_detail((c)->wrank, &(c)->detail_lines, desc, __VA_ARGS__)

#define SENTINEL 0xA5           /* receive buffers start as this byte */
#define GUARD_BYTES 64          /* checked bytes past the receive span */
#define LARGE_COUNT (1 << 20)   /* MPI_BYTE elements per rank: 1 MiB */
#define LARGE_MAX_NP 8
#define DESC_LEN 512

enum base_kind { BASE_INT, BASE_DOUBLE, BASE_BYTE };

/* One element of a datatype, counted in elements of its base type. */
typedef struct layout {
    int nper;        /* data base elements per element */
    int offs[3];     /* their positions inside the element */
    int ext;         /* extent of the element */
} layout;

typedef struct type_case {
    const char *name;
    int base;                    /* BASE_* */
    MPI_Datatype stype, rtype;
    layout sl, rl;
    int rmul;                    /* recvcount = count * rmul (sendcount = count) */
    int quick;                   /* part of the --quick matrix */
} type_case;

/* Failure keys, agreed over MPI_COMM_WORLD with MIN: INT64_MAX means fine,
 * otherwise detail * world_size + world_rank. */
enum {
    K_RC,          /* the call returned an error (detail: error class) */
    K_DIFF,        /* result differs from PMPI_Allgather (detail: byte offset) */
    K_REF,         /* PMPI_Allgather differs from the expected values (byte offset) */
    K_APPLY,       /* applicability differs across ranks or is negative */
    K_DECL_RC,     /* a declined algorithm, forced, did not return MPI_ERR_ARG (class) */
    K_DECL_BUF,    /* ... or touched the receive buffer (byte offset) */
    K_SERVED,      /* topocoll_last_algorithm() is not the forced algorithm */
    K_TOPO,        /* the topology's node/socket counts are not the spec's */
    K_DECLINED,    /* 0 when declined on this rank's communicator (not a failure) */
    NKEYS
};

static const char *const key_text[NKEYS] = {
    "returned an error", "result differs from PMPI_Allgather",
    "PMPI_Allgather reference differs from the expected values",
    "applicability differs across ranks or is negative",
    "declined, but forcing it did not return MPI_ERR_ARG",
    "declined, but forcing it modified the receive buffer",
    "topocoll_last_algorithm() does not name the forced algorithm",
    "node/socket counts differ from the spec", "declined"
};

typedef struct ctx {
    int wrank, wsize;
    int verbose, quick, large;
    int family;                  /* 0 all, 1 flat only, 2 hierarchical only */
    int sample;                  /* hierarchical entries: every sample-th (rotating) */
    int npassed, nfailed, nskipped;
    int casen;                   /* running case number, feeds the data */
    int detail_lines;
    int nalgo;
    int *auto_served;            /* [nalgo + 1] how often auto picked each */
} ctx;

/* ---- data ---------------------------------------------------------------- */

static size_t base_size(int base)
{
    return base == BASE_INT ? sizeof(int) : base == BASE_DOUBLE ? sizeof(double) : 1;
}

/* The value of logical element k of `rank` in case `casen`, as bytes. */
static void make_value(int base, int rank, size_t k, int casen, unsigned char *out)
{
    uint32_t h = tm_fmix32(tm_fmix32((uint32_t)casen * 0x9E3779B1u + (uint32_t)rank) ^ (uint32_t)k);
    h = tm_fmix32(h ^ (uint32_t)(k >> 32));
    if (base == BASE_INT) {
        int v;
        if (h == 0xA5A5A5A5u) h ^= 1u;
        v = (int)(h & 0x7FFFFFFFu);
        memcpy(out, &v, sizeof v);
    } else if (base == BASE_DOUBLE) {
        double v = (double)(h >> 8) + 0.25;   /* exact, never the sentinel */
        memcpy(out, &v, sizeof v);
    } else {
        unsigned char v = (unsigned char)(h >> 24);
        out[0] = v == SENTINEL ? (unsigned char)0x5A : v;
    }
}

/* Writes `count` elements of layout l for `rank` into buf (data positions only). */
static void fill_data(unsigned char *buf, int base, const layout *l, size_t count,
                      int rank, int casen)
{
    size_t bs = base_size(base);
    for (size_t e = 0; e < count; e++)
        for (int j = 0; j < l->nper; j++)
            make_value(base, rank, e * (size_t)l->nper + (size_t)j, casen,
                       buf + (e * (size_t)l->ext + (size_t)l->offs[j]) * bs);
}

/* First byte of buf (span bytes of size blocks, then GUARD_BYTES) that differs
 * from what a correct allgather leaves: every block's data positions hold its
 * rank's values, gaps and guard the sentinel.  -1 when all is right. */
static long long check_expected(const unsigned char *buf, const type_case *tc,
                                size_t rcount, int size, int casen)
{
    size_t bs = base_size(tc->base), pos = 0;
    unsigned char v[sizeof(double)];
    for (int b = 0; b < size; b++) {
        for (size_t e = 0; e < rcount; e++) {
            for (int i = 0; i < tc->rl.ext; i++) {
                int j;
                for (j = 0; j < tc->rl.nper && tc->rl.offs[j] != i; j++) {}
                if (j < tc->rl.nper) {
                    make_value(tc->base, b, e * (size_t)tc->rl.nper + (size_t)j, casen, v);
                    for (size_t x = 0; x < bs; x++)
                        if (buf[pos + x] != v[x]) return (long long)(pos + x);
                } else {
                    for (size_t x = 0; x < bs; x++)
                        if (buf[pos + x] != SENTINEL) return (long long)(pos + x);
                }
                pos += bs;
            }
        }
    }
    for (size_t x = 0; x < GUARD_BYTES; x++)
        if (buf[pos + x] != SENTINEL) return (long long)(pos + x);
    return -1;
}

/* ---- reporting ----------------------------------------------------------- */


/* Agrees on the keys over MPI_COMM_WORLD, counts the case, prints failures on
 * rank 0.  Returns 1 when the case passed (or was declined), 0 when it failed,
 * -1 when the agreement itself failed. */
static int settle(ctx *c, int64_t *keys, const char *desc, size_t block_bytes)
{
    int64_t all[NKEYS];
    int failed = 0, rc;

    rc = PMPI_Allreduce(keys, all, NKEYS, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: PMPI_Allreduce failed (%d)\n", c->wrank, rc);
        return -1;
    }
    for (int k = 0; k < NKEYS; k++)
        if (k != K_DECLINED && all[k] != INT64_MAX) failed = 1;
    if (failed) {
        c->nfailed++;
        if (c->wrank == 0) {
            printf("FAIL %s\n", desc);
            for (int k = 0; k < NKEYS; k++) {
                long long d, r;
                if (k == K_DECLINED || all[k] == INT64_MAX) continue;
                d = (long long)(all[k] / c->wsize);
                r = (long long)(all[k] % c->wsize);
                if (k == K_DIFF || k == K_REF || k == K_DECL_BUF) {
                    if (block_bytes > 0)
                        printf("     %s: first at world rank %lld, byte %lld (block %lld, byte %lld of it)\n",
                               key_text[k], r, d, d / (long long)block_bytes,
                               d % (long long)block_bytes);
                    else
                        printf("     %s: first at world rank %lld, byte %lld (guard zone)\n",
                               key_text[k], r, d);
                } else if (k == K_RC || k == K_DECL_RC) {
                    printf("     %s: first at world rank %lld (error class %lld)\n", key_text[k], r, d);
                } else {
                    printf("     %s: first at world rank %lld\n", key_text[k], r);
                }
            }
            fflush(stdout);
        }
        return 0;
    }
    if (all[K_DECLINED] != INT64_MAX) {
        c->nskipped++;
        if (c->verbose && c->wrank == 0) printf("declined %s\n", desc);
    } else {
        c->npassed++;
        if (c->verbose && c->wrank == 0) printf("ok %s\n", desc);
    }
    return 1;
}

/* ---- one case ------------------------------------------------------------ */

/* Runs one case on comm (every rank of MPI_COMM_WORLD calls this for every
 * case, each with its own communicator).  algo == NULL is topocoll_allgather. */
static int run_case(ctx *c, MPI_Comm comm, const char *where, const mapping *m,
                    const char *algo, const type_case *tc, int count, int in_place)
{
    int64_t keys[NKEYS];
    char desc[DESC_LEN];
    int rank, size, rc, casen = ++c->casen;
    size_t bs = base_size(tc->base);
    size_t scount = (size_t)count, rcount = (size_t)count * (size_t)tc->rmul;
    size_t sbytes = scount * (size_t)tc->sl.ext * bs;
    size_t bbytes = rcount * (size_t)tc->rl.ext * bs;
    size_t span, total;
    unsigned char *sbuf = NULL, *rbuf = NULL, *ref = NULL;
    const void *sarg;

    for (int k = 0; k < NKEYS; k++) keys[k] = INT64_MAX;
    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: MPI_Comm_rank/size failed\n", c->wrank);
        return -1;
    }
    span = bbytes * (size_t)size;
    total = span + GUARD_BYTES;
    snprintf(desc, sizeof desc,
             "[case %d] np=%d comm=%s(size %d) mapping=%s%s%s%s algorithm=%s type=%s count=%d in_place=%s",
             casen, c->wsize, where, size, m->name, m->spec[0] ? "(" : "", m->spec,
             m->spec[0] ? ")" : "", algo ? algo : "auto", tc->name, count,
             in_place ? "yes" : "no");

    sbuf = malloc(sbytes ? sbytes : 1);
    rbuf = malloc(total);
    ref = malloc(total);
    if (!sbuf || !rbuf || !ref) {
        fprintf(stderr, "rank %d: out of memory for %s\n", c->wrank, desc);
        free(sbuf); free(rbuf); free(ref);
        return -1;
    }
    memset(sbuf, 0x3C, sbytes ? sbytes : 1);      /* send gaps: anything but data */
    memset(rbuf, SENTINEL, total);
    fill_data(sbuf, tc->base, &tc->sl, scount, rank, casen);
    if (in_place)
        fill_data(rbuf + (size_t)rank * bbytes, tc->base, &tc->rl, rcount, rank, casen);
    memcpy(ref, rbuf, total);
    sarg = in_place ? MPI_IN_PLACE : (const void *)sbuf;

    if (algo) {
        const char *why = NULL;
        int app, mm[2], agreed[2];
        /* In place, the send arguments are ignored: pass the receive ones. */
        app = topocoll_allgather_applicable(algo, in_place ? (int)rcount : count,
                                            in_place ? tc->rtype : tc->stype,
                                            (int)rcount, tc->rtype, comm, &why);
        mm[0] = app;
        mm[1] = -app;
        rc = PMPI_Allreduce(mm, agreed, 2, MPI_INT, MPI_MIN, comm);
        if (rc != MPI_SUCCESS) {
            fprintf(stderr, "rank %d: PMPI_Allreduce failed\n", c->wrank);
            free(sbuf); free(rbuf); free(ref);
            return -1;
        }
        if (agreed[0] != -agreed[1] || agreed[0] < 0) {
            tm_set_key(keys, K_APPLY, 0, c->wrank, c->wsize);
            detail(c, desc, "topocoll_allgather_applicable returned %d here, %d..%d over the communicator",
                   app, agreed[0], -agreed[1]);
            goto settle;
        }
        if (app == 0) {
            tm_set_key(keys, K_DECLINED, 0, c->wrank, c->wsize);
            if (c->verbose && c->wrank == 0)
                printf("     %s declines: %s\n", algo, why ? why : "(no reason)");
            rc = topocoll_allgather_algorithm(algo, sarg, count, tc->stype, rbuf,
                                              (int)rcount, tc->rtype, comm);
            if (rc == MPI_SUCCESS || tm_err_class(rc) != MPI_ERR_ARG) {
                tm_set_key(keys, K_DECL_RC, rc == MPI_SUCCESS ? 0 : tm_err_class(rc), c->wrank, c->wsize);
                detail(c, desc, "forced declined algorithm returned %d (class %d)", rc, tm_err_class(rc));
            }
            {
                long long d = tm_first_diff(rbuf, ref, total);
                if (d >= 0) tm_set_key(keys, K_DECL_BUF, d, c->wrank, c->wsize);
            }
            goto settle;
        }
        rc = topocoll_allgather_algorithm(algo, sarg, count, tc->stype, rbuf,
                                          (int)rcount, tc->rtype, comm);
    } else {
        rc = topocoll_allgather(sarg, count, tc->stype, rbuf, (int)rcount, tc->rtype, comm);
    }
    if (rc != MPI_SUCCESS) {
        char s[MPI_MAX_ERROR_STRING];
        tm_errstr(rc, s, (int)sizeof s);
        tm_set_key(keys, K_RC, tm_err_class(rc), c->wrank, c->wsize);
        detail(c, desc, "returned %d: %s", rc, s);
    } else {
        const char *served = topocoll_last_algorithm();
        if (algo && (!served || strcmp(served, algo) != 0)) {
            tm_set_key(keys, K_SERVED, 0, c->wrank, c->wsize);
            detail(c, desc, "topocoll_last_algorithm() = \"%s\"", served ? served : "(null)");
        } else if (!algo && c->auto_served) {
            int i = served ? topocoll_algorithm_index(TOPOCOLL_ALLGATHER, served) : -1;
            c->auto_served[i >= 0 && i < c->nalgo ? i : c->nalgo]++;
        }
    }
    rc = PMPI_Allgather(in_place ? MPI_IN_PLACE : (const void *)sbuf, count, tc->stype,
                        ref, (int)rcount, tc->rtype, comm);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: %s: PMPI_Allgather returned %d\n", c->wrank, desc, rc);
        tm_set_key(keys, K_REF, 0, c->wrank, c->wsize);
    } else {
        long long d = tm_first_diff(rbuf, ref, total);
        long long e = check_expected(ref, tc, rcount, size, casen);
        if (d >= 0) {
            tm_set_key(keys, K_DIFF, d, c->wrank, c->wsize);
            detail(c, desc, "first difference at byte %lld: got 0x%02x, PMPI_Allgather 0x%02x",
                   d, rbuf[d], ref[d]);
        }
        if (e >= 0) tm_set_key(keys, K_REF, e, c->wrank, c->wsize);
    }

settle:
    free(sbuf);
    free(rbuf);
    free(ref);
    return settle(c, keys, desc, bbytes);
}

/* ---- mappings ------------------------------------------------------------ */

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
    return settle(c, keys, desc, 0);
}

/* ---- the matrix ---------------------------------------------------------- */

/* Is algorithm a (-1: auto) part of this run (--family, --sample)? */
static int selected(const ctx *c, int a)
{
    const char *family = a < 0 ? "" : topocoll_algorithm_family(TOPOCOLL_ALLGATHER, a);
    int hier = family && strcmp(family, "hierarchical") == 0;
    if ((c->family == 1 && hier) || (c->family == 2 && (!hier || a < 0))) return 0;
    return !hier || c->sample <= 1 || (a + c->wsize) % c->sample == 0;
}

static int run_matrix(ctx *c, MPI_Comm comm, const char *where, const mapping *m,
                      const type_case *types, int ntypes, const int *counts, int ncounts,
                      const type_case *large)
{
    for (int a = -1; a < c->nalgo; a++) {
        if (!selected(c, a)) continue;
        const char *algo = a < 0 ? NULL : topocoll_algorithm_name(TOPOCOLL_ALLGATHER, a);
        for (int t = 0; t < ntypes; t++) {
            if (c->quick && !types[t].quick) continue;
            for (int n = 0; n < ncounts; n++)
                for (int ip = 0; ip < 2; ip++)
                    if (run_case(c, comm, where, m, algo, &types[t], counts[n], ip) < 0)
                        return -1;
        }
        if (large && run_case(c, comm, where, m, algo, large, LARGE_COUNT, 0) < 0)
            return -1;
    }
    return 0;
}

static int check_catalog(ctx *c)
{
    int64_t keys[NKEYS];
    int n = topocoll_algorithm_count(TOPOCOLL_ALLGATHER);
    for (int k = 0; k < NKEYS; k++) keys[k] = INT64_MAX;
    if (n < 1 || topocoll_algorithm_name(TOPOCOLL_ALLGATHER, n) != NULL ||
        topocoll_algorithm_name(TOPOCOLL_ALLGATHER, -1) != NULL)
        tm_set_key(keys, K_RC, 0, c->wrank, c->wsize);
    for (int i = 0; i < n; i++) {
        const char *name = topocoll_algorithm_name(TOPOCOLL_ALLGATHER, i);
        if (!name || topocoll_algorithm_index(TOPOCOLL_ALLGATHER, name) != i ||
            !topocoll_algorithm_description(TOPOCOLL_ALLGATHER, i) ||
            !topocoll_algorithm_requirements(TOPOCOLL_ALLGATHER, i))
            tm_set_key(keys, K_RC, 0, c->wrank, c->wsize);
    }
    c->nalgo = n > 0 ? n : 0;
    return settle(c, keys, "[catalog] names, indices and descriptions of the allgather algorithms", 0);
}

int main(int argc, char **argv)
{
    static const int counts_full[] = { 0, 1, 3, 1000 };
    static const int counts_quick[] = { 0, 3, 1000 };
    static const int counts_sub[] = { 3, 1000 };
    MPI_Datatype vec = MPI_DATATYPE_NULL, con3 = MPI_DATATYPE_NULL;
    type_case types[5];
    mapping maps[TM_NMAPPINGS];
    ctx c;
    int rc, nmaps, ntypes;
    const type_case *byte_type;
    MPI_Comm half = MPI_COMM_NULL;

    memset(&c, 0, sizeof c);
    c.large = 1;
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "MPI_Init failed\n");
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) c.quick = 1;
        else if (strcmp(argv[i], "--no-large") == 0) c.large = 0;
        else if (strcmp(argv[i], "--verbose") == 0) c.verbose = 1;
        else if (strcmp(argv[i], "--flat") == 0) c.family = 1;
        else if (strcmp(argv[i], "--hierarchical") == 0) c.family = 2;
        else if (strncmp(argv[i], "--sample=", 9) == 0 && atoi(argv[i] + 9) > 0) c.sample = atoi(argv[i] + 9);
        else {
            fprintf(stderr, "usage: %s [--quick] [--no-large] [--verbose] [--flat | --hierarchical]"
                            " [--sample=K]\n", argv[0]);
            MPI_Finalize();
            return 2;
        }
    }
    if (c.quick) c.large = 0;
    if (MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) != MPI_SUCCESS ||
        MPI_Comm_rank(MPI_COMM_WORLD, &c.wrank) != MPI_SUCCESS ||
        MPI_Comm_size(MPI_COMM_WORLD, &c.wsize) != MPI_SUCCESS ||
        MPI_Type_vector(2, 1, 3, MPI_INT, &vec) != MPI_SUCCESS ||
        MPI_Type_commit(&vec) != MPI_SUCCESS ||
        MPI_Type_contiguous(3, MPI_INT, &con3) != MPI_SUCCESS ||
        MPI_Type_commit(&con3) != MPI_SUCCESS) {
        fprintf(stderr, "MPI set-up failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
        return 1;
    }
    if (c.large && c.wsize > LARGE_MAX_NP) c.large = 0;

    {
        const layout one = { 1, { 0, 0, 0 }, 1 };
        const layout gap = { 2, { 0, 3, 0 }, 4 };     /* vector(2,1,3): data at 0 and 3 */
        const layout three = { 3, { 0, 1, 2 }, 3 };
        type_case t[5] = {
            { "MPI_INT", BASE_INT, MPI_INT, MPI_INT, one, one, 1, 1 },
            { "MPI_DOUBLE", BASE_DOUBLE, MPI_DOUBLE, MPI_DOUBLE, one, one, 1, 0 },
            { "vector(2,1,3,MPI_INT)", BASE_INT, vec, vec, gap, gap, 1, 1 },
            { "send contiguous(3,MPI_INT) x n, recv MPI_INT x 3n", BASE_INT, con3, MPI_INT,
              three, one, 3, 1 },
            { "MPI_BYTE", BASE_BYTE, MPI_BYTE, MPI_BYTE, one, one, 1, 0 },
        };
        memcpy(types, t, sizeof t);
        ntypes = 5;
        byte_type = &types[4];
    }

    if (check_catalog(&c) < 0) goto abort;
    c.auto_served = calloc((size_t)c.nalgo + 1, sizeof(int));
    if (!c.auto_served) goto abort;
    if (c.wrank == 0) {
        printf("allgather matrix: np=%d, %d algorithms + auto%s%s\n", c.wsize, c.nalgo,
               c.quick ? ", quick" : "", c.large ? ", with 1 MiB cases" : "");
        fflush(stdout);
    }

    /* Part 1: MPI_COMM_WORLD under every mapping. */
    nmaps = tm_make_mappings(maps, c.wsize);
    for (int m = 0; m < nmaps; m++) {
        int ok = apply_mapping(&c, MPI_COMM_WORLD, "world", &maps[m]);
        if (ok < 0) goto abort;
        if (ok == 0) continue;
        if (c.quick)
            rc = run_matrix(&c, MPI_COMM_WORLD, "world", &maps[m], types, ntypes, counts_quick,
                            (int)(sizeof counts_quick / sizeof counts_quick[0]), NULL);
        else
            rc = run_matrix(&c, MPI_COMM_WORLD, "world", &maps[m], types, ntypes, counts_full,
                            (int)(sizeof counts_full / sizeof counts_full[0]),
                            (m == 0 && c.large) ? byte_type : NULL);
        if (rc < 0) goto abort;
    }

    /* Part 2: two halves of MPI_COMM_WORLD, ranks in reverse order; first with
     * the detected topology, then with a cyclic virtual one. */
    {
        int color = c.wrank < c.wsize / 2 ? 0 : 1;
        mapping sub[2];
        type_case st[2];
        memset(sub, 0, sizeof sub);
        sub[0].name = "detected";
        sub[1].name = "cyclic";
        snprintf(sub[1].spec, sizeof sub[1].spec, "2x*/cyclic");
        st[0] = types[0];
        st[1] = types[2];
        st[0].quick = st[1].quick = 1;
        if (MPI_Comm_split(MPI_COMM_WORLD, color, c.wsize - c.wrank, &half) != MPI_SUCCESS ||
            MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN) != MPI_SUCCESS) {
            fprintf(stderr, "rank %d: MPI_Comm_split failed\n", c.wrank);
            goto abort;
        }
        for (int m = 0; m < 2; m++) {
            int hsize = 0, ok;
            if (MPI_Comm_size(half, &hsize) != MPI_SUCCESS) goto abort;
            if (m == 1) {
                /* "2x*" at size 1 is one node: fine, but check the counts. */
                sub[1].nnodes = sub[1].nsockets = hsize >= 2 ? 2 : 1;
            }
            ok = apply_mapping(&c, half, color ? "upper half" : "lower half", &sub[m]);
            if (ok < 0) goto abort;
            if (ok == 0) continue;
            rc = run_matrix(&c, half, color ? "upper half" : "lower half", &sub[m], st, 2,
                            counts_sub, c.quick ? 1 : 2, NULL);
            if (rc < 0) goto abort;
        }
        if (MPI_Comm_free(&half) != MPI_SUCCESS) goto abort;
    }

    if (c.wrank == 0) {
        printf("auto selected:");
        for (int i = 0; i <= c.nalgo; i++)
            if (c.auto_served[i])
                printf(" %s x%d", i < c.nalgo ? topocoll_algorithm_name(TOPOCOLL_ALLGATHER, i) : "(unknown)",
                       c.auto_served[i]);
        printf("\n");
        if (c.nskipped)
            printf("%d passed, %d failed, %d skipped\n", c.npassed, c.nfailed, c.nskipped);
        else
            printf("%d passed, %d failed\n", c.npassed, c.nfailed);
        fflush(stdout);
    }
    free(c.auto_served);
    if (MPI_Type_free(&vec) != MPI_SUCCESS || MPI_Type_free(&con3) != MPI_SUCCESS) {
        fprintf(stderr, "MPI_Type_free failed\n");
        c.nfailed++;
    }
    if (MPI_Finalize() != MPI_SUCCESS) return 1;
    return c.nfailed ? 1 : 0;

abort:
    fprintf(stderr, "rank %d: test infrastructure failure, aborting\n", c.wrank);
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
}
