/*
 * The MPI test matrix (test_matrix.c): what its parts share.
 *
 *   matrix_common.c  rank mappings, failure keys, error text, the data hash
 *   matrix_data.c    test values, user-defined ops, each rank's buffers and
 *                    expected results per collective
 *   matrix_case.c    one case: the topocoll call, the PMPI reference, the
 *                    checks, the agreement over MPI_COMM_WORLD, the watchdog
 *   test_matrix.c    the cases (collectives x catalog entries x types x
 *                    counts x roots x MPI_IN_PLACE x mappings), options, main
 */
#ifndef TC_TEST_MATRIX_H
#define TC_TEST_MATRIX_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "topocoll.h"
#include "matrix_common.h"

#define SENTINEL 0xA5           /* receive buffers start as this byte */
#define SEND_GAP 0x3C           /* gaps of send buffers */
#define GUARD_BYTES 64          /* checked bytes past the receive span */
#define LARGE_BYTES 270001      /* MPI_BYTE elements per block: > 256 KiB, odd */
#define LARGE_ALLGATHER (1 << 20)   /* MPI_BYTE elements per rank for allgather: 1 MiB */
#define LARGE_INTS 65537        /* MPI_INT elements for reductions: > 256 KiB */
#define LARGE_MAX_NP 8
#define MAX_FAIL_LINES 40       /* FAIL reports in full (all with --verbose) */
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

/* allgather, bcast, scatter, gather: the send side uses stype x count*smul,
 * the receive side rtype x count*rmul (bcast: the root the send side, the
 * others the receive side); both sides have the same type signature. */
typedef struct type_case {
    const char *name;
    int base;
    MPI_Datatype stype, rtype;
    layout sl, rl;
    int smul, rmul;
    int quick;                   /* part of the --quick matrix */
    int allgather;               /* part of allgather's matrix */
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
    K_APPLY,       /* topocoll_allgather_applicable disagrees (ranks, or with the call) */
    K_DECLINED,    /* 0 where this rank's call declined (not a failure) */
    K_SERVING,     /* 0 where this rank's call ran (not a failure) */
    K_BARE,        /* 0 where a decline was recognised by its class alone (no message) */
    NKEYS
};

/* One case of the matrix. */
typedef struct ccase {
    topocoll_coll coll;
    const char *algo;            /* NULL: auto */
    int algo_index;              /* -1: auto */
    int root;                    /* rooted collectives */
    int count;
    int in_place;
    const type_case *tc;         /* allgather, bcast, scatter, gather */
    const red_case *rc;          /* reductions */
} ccase;

/* The run: options, counters, statistics (the pass/fail/skip counts are the
 * harness's, identical on every rank: every case is agreed over
 * MPI_COMM_WORLD before it is counted). */
typedef struct ctx {
    int wrank, wsize;
    int verbose, quick, large, sample;
    int max_cases;               /* --max-cases: raises sample to fit */
    int counting;                /* only count the sampled part's cases */
    long ncounted;
    unsigned coll_mask;          /* bit per collective; --coll */
    int family_mode;             /* 0 all, 1 all but "hierarchical" (--flat), 2 the --family list */
    char families[128];          /* --family: comma-separated ("auto" for the selected path) */
    int entry_sample;            /* --entry-sample: every K-th catalog entry, rotating with np */
    const char *only_algo;       /* NULL: all; "auto": the selected path */
    int nbare, nsampled_out;
    int nknown;                  /* skipped for a known bug of the MPI library */
    int casen;                   /* running case number, feeds the data */
    int detail_lines;
    int nalgo[TOPOCOLL_NCOLL];
    int *auto_served[TOPOCOLL_NCOLL];   /* [nalgo + 1] how often auto picked each */
    unsigned *ordinal[TOPOCOLL_NCOLL];  /* [nalgo + 1] per (coll, algorithm + 1), for sampling */
    int *fails[TOPOCOLL_NCOLL];         /* [nalgo + 1] failed cases per (coll, algorithm + 1) */
} ctx;

/* ---- matrix_data.c ---------------------------------------------------------- */

extern MPI_Datatype g_vec, g_mat, g_matgap, g_holes;
extern const layout L_ONE, L_VEC, L_THREE, L_MAT, L_MATGAP, L_HOLES;
extern MPI_Op g_usum, g_matmul;
extern int g_bad_type_calls;

void op_usum(void *in, void *inout, int *len, MPI_Datatype *dt);
void op_matmul(void *in, void *inout, int *len, MPI_Datatype *dt);

size_t base_size(int base);
int is_reduction(topocoll_coll coll);
int is_rooted(topocoll_coll coll);
int has_in_place(topocoll_coll coll);

/* The call's arguments. */
typedef struct cargs {
    const void *sbuf;
    int scount;
    MPI_Datatype stype;
    void *rbuf;
    int rcount;
    MPI_Datatype rtype;
    MPI_Op op;
    int root;
    /* per-peer shapes (include/topocoll_colls.h): counts, displacements and
     * (alltoallw) datatypes of SEND [0] and RECV [1]; NULL otherwise */
    const int *vcnt[2], *vdispl[2];
    const MPI_Datatype *vtype[2];
} cargs;

/* The buffers of one rank for one case. */
typedef struct bufs {
    unsigned char *s, *s_orig;   /* send buffer (NULL when not significant or in place) */
    size_t sbytes;
    unsigned char *r, *r_ref, *r_exp;   /* receive: topocoll, PMPI (the initial image until
                                           the reference runs), expected */
    size_t rspan, rdef, rtotal;  /* receive span; defined output [0, rdef); + guard */
    size_t unit;                 /* bytes of one receive element, for reports */
    cargs a;                     /* the call (rbuf = r) */
} bufs;

/* Sets up this rank's buffers for case k on a communicator of `size` ranks
 * where this rank is `rank`.  Returns MPI_SUCCESS, MPI_ERR_NO_MEM or an
 * error of PMPI_Reduce_local. */
int setup_bufs(const ccase *k, int rank, int size, int casen, bufs *b);
/* Done with a case's buffers (their memory is reused by the next case). */
void free_bufs(bufs *b);
/* At the end: frees what the cases' buffers kept. */
void release_buffers(void);

/* First differing byte of [0, def) and [span, span + GUARD_BYTES), or -1. */
long long diff_defined(const unsigned char *a, const unsigned char *b, size_t def, size_t span);

/* MPICH before 4.2: PMPI_Reduce in place at a root other than 0 crashes. */
int mpich_reduce_in_place_bug(const ccase *k);

/* ---- matrix_case.c ------------------------------------------------------------ */

/* The run's pass/fail/skip counts (tests/common/harness.h, kept in
 * matrix_case.c: the harness's counters are per translation unit). */
struct tc_test_counts;
struct tc_test_counts *matrix_counts(void);

/* The watchdog: --case-timeout seconds (0: off). */
void watchdog_init(unsigned seconds);

/* Does MPI_Error_string return added error strings? (MPICH 4.0 does not.) */
void probe_error_strings(void);
extern int g_messages_readable;

/* Agrees on the keys over MPI_COMM_WORLD, counts the case, prints failures on
 * rank 0.  Returns 1 when the case passed (or was declined), 0 when it
 * failed, -1 when the agreement itself failed. */
int settle(ctx *c, int64_t *keys, const char *desc, size_t unit, int split_check, const ccase *k);

/* Runs one case on comm (every rank of MPI_COMM_WORLD calls this for every
 * case, each with its own communicator).  -1: infrastructure failure. */
int run_case(ctx *c, MPI_Comm comm, const char *where, const mapping *m, const ccase *k);

/* Sets comm's topology and checks the counts (one case).  1 when usable. */
int apply_mapping(ctx *c, MPI_Comm comm, const char *where, const mapping *m);

#endif
