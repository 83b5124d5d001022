/*
 * topocoll-a2a-paper: the alltoall experiments of Träff, Rougier, "MPI
 * Collectives and Datatypes for Hierarchical All-to-all Communication"
 * (2014), section 3 (Figures 4-8).  docs/alltoall.md, section "Measurements
 * (Träff and Rougier's experiments)", says what is measured and how.
 *
 *   a2a_paper.c       options, the communicators, the figures, main
 *   a2a_paper_run.c   the calls, the verification, the timing loops, the CSV
 *   stats.c           quantiles (shared with topocoll-bench)
 */
#ifndef TOPOCOLL_A2A_PAPER_H
#define TOPOCOLL_A2A_PAPER_H

#include <stddef.h>
#include <stdio.h>
#include <mpi.h>

#define A2AP_PROG "topocoll-a2a-paper"
#define A2AP_MAX_ALGOS 32

typedef struct a2ap_opts {
    size_t *sizes;          /* --sizes: total problem sizes p*m in bytes, ascending */
    int nsizes;
    int iters;              /* --iters: timed iterations (default 100, as the paper) */
    int warmup;             /* --warmup: untimed calls first (default 5) */
    int reps;               /* --reps: fresh creations per p for Figure 4 (default 50) */
    int fig[9];             /* --figures: fig[4] .. fig[8] */
    const char *algos[A2AP_MAX_ALGOS]; /* --algos (NULL: the figures' lists) */
    int nalgos;
    char *algos_buf;
    const char *csv_path;   /* --csv (default stdout) */
    char label[64];         /* --label: the setup column */
    unsigned long long seed;/* --seed: the random permutation (default 1) */
    const char *inject;     /* --inject-wrong ALGO: corrupt its verified result (tests) */
    int verbose;            /* -v: progress on stderr */
} a2ap_opts;

/* Summary of one timed series (world rank 0): Tukey's filter over n values. */
typedef struct a2ap_stats {
    int n, kept;
    double mean, median, q1, q3, min;
} a2ap_stats;

/* One communicator as the figures use it. */
typedef struct a2ap_comm {
    const char *name;       /* world, permuted, irregular, irregular_permuted */
    MPI_Comm comm;          /* MPI_COMM_NULL on ranks outside it */
    int p, rank, nnodes;
    int root;               /* the rank of MPI_COMM_WORLD's rank 0 (it writes the CSV) */
} a2ap_comm;

/* Run-wide state. */
typedef struct a2ap_ctx {
    a2ap_opts o;
    int wrank, wsize;
    FILE *csv;              /* rank 0 */
    long verified, wrong, failed, rows;
} a2ap_ctx;

/* a2a_paper_run.c */
void a2ap_stats_of(double *x, int n, a2ap_stats *s);
void a2ap_csv_head(a2ap_ctx *c);
void a2ap_csv_row(a2ap_ctx *c, int fig, const a2ap_comm *k, const char *algo, size_t m,
                  const a2ap_stats *s, const char *status);
/* Every size of the run on communicator k for the algorithms algos:
 * verified once, then timed; rows for figure fig (and figure fig7 for the
 * algorithms in fig7_algos, when fig7 != 0).  Collective over k. */
int a2ap_measure(a2ap_ctx *c, const a2ap_comm *k, int fig, const char *const *algos, int nalgos,
                 int fig7, const char *const *fig7_algos, int nfig7);
/* Figure 4 on the sub-communicator sub (p ranks of the first nodes);
 * node: this rank's node id (used when virtual).  Collective over sub. */
int a2ap_creation(a2ap_ctx *c, const a2ap_comm *sub, int virtual_topo, int node);

/* stats.c (topocoll-bench's) */
double bench_quantile_sorted(const double *x, int n, double q);

#endif
