/*
 * MPI_Allgatherv through topocoll: every allgatherv catalog entry (read from
 * the catalog) and the selected path x count patterns (fixed seeds, the same
 * on every rank: equal, random with zeros, all zero but one rank, one block
 * 300 times the others) x displacements (packed in rank order, or shuffled
 * with gaps: the staged path) x MPI_IN_PLACE x datatypes (MPI_INT;
 * vector(2,1,3,MPI_INT) with gaps; contiguous(3,MPI_INT) sent, MPI_INT x 3
 * received; an int at -4 bytes with extent 8: a negative lower bound), the
 * type cycling with the case number x rank mappings (virtual
 * topologies: block, cyclic, random, unequal nodes; each instance of the
 * hierarchical family on one of them, in turn).
 * Each case checks every received block against the values its sender
 * wrote, that the gaps of the receive buffer are untouched, that the send
 * buffer is unchanged, and agrees with PMPI_Allgatherv on the same input
 * (on more than one rank: MPICH 4.0's ignores displs[0] on one rank, which
 * topocoll's "native" entry works around).
 * An entry outside its domain (equal blocks, power-of-two or even p) must
 * decline with MPI_ERR_ARG and leave the buffers alone; inside, it must
 * serve.  Then bad input: a negative count (MPI_ERR_COUNT), a negative
 * displacement, NULL recvcounts or displs (MPI_ERR_ARG), a sendcount that
 * differs from recvcounts[rank] (MPI_ERR_TRUNCATE), a NULL sendbuf with a
 * count (MPI_ERR_BUFFER), at every rank.
 * Ends with "N passed, M failed" on rank 0.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topocoll.h"
#include "../common/mpi_harness.h"

#define SENT (-77777)                /* receive buffers start as this */

static int wrank, wsize;
static uint64_t rng;

static unsigned next(void) { return tc_test_rand(&rng); }

typedef struct tcase {
    const char *name;
    MPI_Datatype stype, rtype;
    int sper, rper;                  /* data ints per element */
    int sext, rext;                  /* extent in ints */
    int soff[2], roff[2];            /* data positions (per <= 2, or contiguous when per == 3) */
    int shift;                       /* MPI sees the buffers this many ints on (a negative lower bound) */
} tcase;

static int pos_of(int per, const int *off, int k) { return per == 3 ? k : off[k]; }

/* The value of int number k of rank r's block. */
static int value(int r, int k, int casen) { return (casen * 7919 + r * 1009 + k) & 0x3fffffff; }

enum { K_EQUAL, K_ZEROS, K_ONE, K_HUGE, NKINDS };
static const char *const kind_name[] = { "equal", "random with zeros", "one rank only", "one huge" };

/* Receive counts (in receive elements of one send element's worth: scaled
 * by the caller). */
static void make_counts(int p, int kind, int *c)
{
    int big = (int)(next() % (unsigned)p);
    for (int j = 0; j < p; j++) {
        unsigned x = next() % 8;
        c[j] = kind == K_EQUAL ? 3 : kind == K_ZEROS ? (x < 3 ? 0 : (int)(1 + next() % 5))
             : kind == K_ONE ? (j == big ? 4 : 0) : (j == big ? 900 + (int)(next() % 50) : (int)(next() % 3));
    }
}

/* Packed in rank order, or shuffled with gaps; the span in elements. */
static size_t make_displs(int p, const int *counts, int shuffled, int *displs)
{
    int order[64];
    for (int j = 0; j < p; j++) order[j] = j;
    for (int j = p - 1; shuffled && j > 0; j--) {
        int k = (int)(next() % (unsigned)(j + 1)), t = order[j];
        order[j] = order[k], order[k] = t;
    }
    int at = shuffled ? (int)(next() % 3) : 0;
    for (int i = 0; i < p; i++) {
        displs[order[i]] = at;
        at += counts[order[i]] + (shuffled ? (int)(next() % 3) : 0);
    }
    return (size_t)at;
}

static void fill(int *buf, int per, int ext, const int *off, int disp, int count, int r, int casen)
{
    for (int e = 0; e < count; e++)
        for (int q = 0; q < per; q++)
            buf[(size_t)(disp + e) * (size_t)ext + (size_t)pos_of(per, off, q)] = value(r, e * per + q, casen);
}

static int is_pow2(int p) { return p > 0 && (p & (p - 1)) == 0; }

/* Is the entry outside its domain for this case (it must decline)?  The
 * hierarchical instances have the domain of their allgather namesakes
 * (node-shared memory where they use it), asked of topocoll_applicable. */
static int must_decline(const char *algo, int p, const int *c, MPI_Comm comm)
{
    int equal = 1;
    for (int j = 1; j < p; j++) equal &= c[j] == c[0];
    if (!algo) return 0;
    int i = topocoll_variant_index(TOPOCOLL_ALLGATHERV, algo);
    const char *fam = topocoll_variant_family(TOPOCOLL_ALLGATHERV, i);
    if (fam && !strcmp(fam, "hierarchical"))
        return topocoll_applicable(TOPOCOLL_ALLGATHER, algo, 1, MPI_INT, 1, MPI_INT, MPI_OP_NULL, 0, comm,
                                   NULL) != 1;
    if (!strcmp(algo, "recursive_halving")) return !equal;
    if (!strcmp(algo, "recursive_doubling")) return !is_pow2(p);
    if (!strcmp(algo, "neighbor_exchange")) return p % 2 != 0;
    return 0;
}

typedef struct bufs { int *s, *r, *ref, *exp, *s0; size_t sints, rints; } bufs;

static int compare(const bufs *b, int code, int code2, int declined)
{
    if (declined) {
        int cls = MPI_SUCCESS;
        if (code != MPI_SUCCESS) MPI_Error_class(code, &cls);
        return cls != MPI_ERR_ARG ? 5 : 0;
    }
    if (code != MPI_SUCCESS || code2 != MPI_SUCCESS) return 1;
    if (memcmp(b->r, b->exp, b->rints * sizeof *b->r) != 0) return 2;
    if (memcmp(b->ref, b->exp, b->rints * sizeof *b->r) != 0) return 3;
    if (memcmp(b->s, b->s0, b->sints * sizeof *b->s) != 0) return 4;
    return 0;
}

static const char *const why_bad[] = { "", "error returned", "wrong result (or gaps written)",
                                       "PMPI reference differs from the expected values",
                                       "send buffer modified", "outside its domain but not declined" };

static int run_case(const char *algo, const tcase *t, int kind, int shuffled, int in_place, int casen,
                    MPI_Comm comm, const char *where)
{
    int p, me, rc[64], rd[64];
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    int scale = t->sper / t->rper;   /* receive elements per send element */
    make_counts(p, kind, rc);
    for (int j = 0; j < p; j++) rc[j] *= scale;
    size_t rn = make_displs(p, rc, shuffled, rd);
    int sc = rc[me] / scale;
    bufs b;
    b.sints = ((size_t)sc + 1) * (size_t)t->sext, b.rints = (rn + 1) * (size_t)t->rext;
    b.s = malloc(b.sints * sizeof *b.s), b.r = malloc(b.rints * sizeof *b.r);
    b.ref = malloc(b.rints * sizeof *b.r), b.exp = malloc(b.rints * sizeof *b.r);
    b.s0 = malloc(b.sints * sizeof *b.s);
    for (size_t i = 0; i < b.sints; i++) b.s[i] = -1;
    for (size_t i = 0; i < b.rints; i++) b.r[i] = b.exp[i] = SENT;
    if (in_place) fill(b.r, t->rper, t->rext, t->roff, rd[me], rc[me], me, casen);
    else fill(b.s, t->sper, t->sext, t->soff, 0, sc, me, casen);
    for (int j = 0; j < p; j++) fill(b.exp, t->rper, t->rext, t->roff, rd[j], rc[j], j, casen);
    memcpy(b.s0, b.s, b.sints * sizeof *b.s);
    memcpy(b.ref, b.r, b.rints * sizeof *b.r);
    int declined = must_decline(algo, p, rc, comm);
    const void *sb = in_place ? MPI_IN_PLACE : (const void *)(b.s + t->shift);
    int code = topocoll_allgatherv_algorithm(algo, sb, sc, t->stype, b.r + t->shift, rc, rd, t->rtype, comm);
    /* the reference (checks the expected values) only on more than one
     * rank: MPICH 4.0's MPI_Allgatherv on one rank ignores displs[0] */
    int code2 = p == 1 ? MPI_SUCCESS
              : PMPI_Allgatherv(in_place ? MPI_IN_PLACE : (const void *)(b.s + t->shift), sc, t->stype,
                                b.ref + t->shift, rc, rd, t->rtype, comm);
    if (p == 1) memcpy(b.ref, b.exp, b.rints * sizeof *b.r);
    int bad = compare(&b, code, code2, declined), all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_MAX, comm);
    CHECK(all == 0, "%s %s type=%s counts=%s displs=%s in_place=%d case=%d np=%d: %s", where,
          algo ? algo : "auto", t->name, kind_name[kind], shuffled ? "shuffled" : "packed", in_place, casen,
          p, why_bad[all]);
    free(b.s), free(b.r), free(b.ref), free(b.exp), free(b.s0);
    return all;
}

static void bad_input(MPI_Comm comm)
{
    int p, me, c[64], d[64], buf[64 * 4];
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    for (int j = 0; j < p; j++) c[j] = 1, d[j] = j;
    struct { int which; int cls; const char *what; } cases[] = {
        { 0, MPI_ERR_COUNT, "negative count" }, { 1, MPI_ERR_ARG, "negative displacement" },
        { 2, MPI_ERR_ARG, "NULL recvcounts" }, { 3, MPI_ERR_ARG, "NULL displs" },
        { 4, MPI_ERR_TRUNCATE, "sendcount != recvcounts[rank]" }, { 5, MPI_ERR_BUFFER, "NULL sendbuf" },
        { 6, MPI_ERR_COUNT, "negative sendcount" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int cc[64], dd[64], cls = MPI_SUCCESS, w = cases[i].which;
        memcpy(cc, c, sizeof c), memcpy(dd, d, sizeof d);
        if (w == 0) cc[p - 1] = -1;
        if (w == 1) dd[0] = -3;
        int rc = topocoll_allgatherv(w == 5 ? NULL : buf, w == 4 ? 2 : w == 6 ? -1 : 1, MPI_INT, buf + 64 * 2,
                                     w == 2 ? NULL : cc, w == 3 ? NULL : dd, MPI_INT, comm);
        if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
        CHECK(cls == cases[i].cls, "bad input %s: class %d, want %d", cases[i].what, cls, cases[i].cls);
    }
    (void)me;
}

/* "3,1,2,1,4,..." nodes, randomly placed. */
static void unequal_spec(char *buf, size_t len)
{
    static const int sizes[] = { 3, 1, 2, 1, 4 };
    buf[0] = 0;
    for (int left = wsize, i = 0; left > 0; i++) {
        int k = sizes[i % 5] < left ? sizes[i % 5] : left;
        left -= k;
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%d", i ? "," : "", k);
    }
    strncat(buf, "/random:3", len - strlen(buf) - 1);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Datatype vec, con3, neg, neg0;
    MPI_Type_vector(2, 1, 3, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Type_contiguous(3, MPI_INT, &con3);
    MPI_Type_commit(&con3);
    /* one int 4 bytes before the element's address, extent 8: a negative
     * (true) lower bound, as staging must allocate for */
    int one = 1;
    MPI_Aint minus4 = -4;
    MPI_Datatype tint = MPI_INT;
    MPI_Type_create_struct(1, &one, &minus4, &tint, &neg0);
    MPI_Type_create_resized(neg0, -4, 8, &neg);
    MPI_Type_commit(&neg);
    const tcase types[] = {
        { "MPI_INT", MPI_INT, MPI_INT, 1, 1, 1, 1, { 0, 0 }, { 0, 0 }, 0 },
        { "vector(2,1,3,MPI_INT)", vec, vec, 2, 2, 4, 4, { 0, 3 }, { 0, 3 }, 0 },
        { "contiguous(3,MPI_INT) against MPI_INT x 3", con3, MPI_INT, 3, 1, 3, 1, { 0, 0 }, { 0, 0 }, 0 },
        { "struct(int at -4 bytes), extent 8", neg, neg, 1, 1, 2, 2, { 0, 0 }, { 0, 0 }, 1 },
    };
    char unequal[256];
    unequal_spec(unequal, sizeof unequal);
    const char *specs[] = { NULL, "2x*", "2x*/cyclic", "3x*/random:7", unequal };
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);   /* declines are answers here */
    int n = topocoll_variant_count(TOPOCOLL_ALLGATHERV), casen = 0;
    for (size_t sp = 0; sp < sizeof specs / sizeof specs[0]; sp++) {
        char where[96];
        if (specs[sp] && topocoll_set_topology(comm, specs[sp]) != MPI_SUCCESS) continue;
        snprintf(where, sizeof where, "topology %s", specs[sp] ? specs[sp] : "detected");
        for (int a = -1; a < n; a++) {
            const char *fam = a < 0 ? "" : topocoll_variant_family(TOPOCOLL_ALLGATHERV, a);
            /* the hierarchical instances (many): each on one of the mappings */
            if (!strcmp(fam, "hierarchical") && a % (int)(sizeof specs / sizeof specs[0]) != (int)sp) continue;
            for (int kind = 0; kind < NKINDS; kind++)
                for (int ip = 0; ip < 2; ip++)
                    for (int sh = 0; sh < 2; sh++) {
                        ++casen;
                        rng = 0x9E3779B97F4A7C15ull + (uint64_t)casen * 0x2545F4914F6CDD1Dull;
                        int t = (casen + casen / 4) % 4;   /* every type at every (in place, displs) */
                        if (ip && t == 2) t = 1;   /* in place: one type for both */
                        run_case(a < 0 ? NULL : topocoll_variant_name(TOPOCOLL_ALLGATHERV, a), &types[t],
                                 kind, sh, ip, casen, comm, where);
                    }
        }
    }
    bad_input(comm);
    MPI_Comm_free(&comm);
    MPI_Type_free(&vec);
    MPI_Type_free(&con3);
    MPI_Type_free(&neg);
    MPI_Type_free(&neg0);
    int status = tc_test_mpi_summary(0);
    MPI_Finalize();
    return status;
}
