/*
 * topocoll-learn-cost: what learning during the run costs (docs/learning.md).
 *
 * For each collective and message size: a loop of CALLS calls by topocoll's
 * selection with learning on, from a fresh key (a new communicator, so its
 * learner starts from nothing: exploring, racing, agreeing, then the
 * winner), against the same loop with each of the learner's candidates
 * fixed (called by name) and with the MPI library's own collective
 * (PMPI_).  Every loop is timed on every rank between barriers; the
 * slowest rank's total counts.  Repetitions alternate the loops so that
 * the machine's noise hits them alike; the medians over repetitions are
 * reported, the ratios as the median of each repetition's ratio (its
 * loops ran back to back):
 *
 *   coll bytes  learning  best fixed (name)  native  learning/best  learning/native  explored
 *
 * The learning loop's excess over the best fixed loop is the cost of
 * learning (exploring calls, the full path's re-checks); target: at most
 * 1.02 at 10^4 calls.
 *
 *   topocoll-learn-cost [-c coll,coll,...] [-s bytes,bytes,...] [-n CALLS] [-r REPS] [-v]
 *
 * -v: every candidate's fixed loop too.
 *
 * Defaults: bcast,allreduce,allgather,reduce,alltoall; 64,16384,262144;
 * 10000 calls; 3 repetitions.  TOPOCOLL_LEARN must not be 0.  The learner
 * explores from each key's first call (TOPOCOLL_LEARN_PATIENCE 0) unless
 * the environment sets a patience.
 */
#define _POSIX_C_SOURCE 200809L   /* setenv */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topocoll.h"
#include "select/learn.h"

enum { MAXC = 8, MAXS = 8, MAXREP = 15 };

typedef struct opts {
    topocoll_coll colls[MAXC];
    int ncolls;
    long long sizes[MAXS];
    int nsizes, calls, reps, verbose;
} opts;

static int rank, size;

static int parse(int argc, char **argv, opts *o)
{
    const char *colls = "bcast,allreduce,allgather,reduce,alltoall", *sizes = "64,16384,262144";
    o->calls = 10000, o->reps = 3, o->verbose = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v")) {
            o->verbose = 1;
            continue;
        }
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) return -1;
        if (!strcmp(argv[i], "-c")) colls = v;
        else if (!strcmp(argv[i], "-s")) sizes = v;
        else if (!strcmp(argv[i], "-n")) o->calls = atoi(v);
        else if (!strcmp(argv[i], "-r")) o->reps = atoi(v);
        else return -1;
        i++;
    }
    if (o->calls < 1 || o->reps < 1 || o->reps > MAXREP) return -1;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", colls);
    o->ncolls = 0;
    for (char *t = strtok(buf, ","); t && o->ncolls < MAXC; t = strtok(NULL, ",")) {
        int c = topocoll_coll_from_name(t);
        if (c < 0) return -1;
        o->colls[o->ncolls++] = (topocoll_coll)c;
    }
    snprintf(buf, sizeof buf, "%s", sizes);
    o->nsizes = 0;
    for (char *t = strtok(buf, ","); t && o->nsizes < MAXS; t = strtok(NULL, ",")) {
        o->sizes[o->nsizes] = atoll(t);
        if (o->sizes[o->nsizes++] < 4) return -1;
    }
    return o->ncolls && o->nsizes ? 0 : -1;
}

/* Buffers for every collective at `bytes` per rank (ints). */
typedef struct bufs {
    int *s, *r;
    int count;
} bufs;

static int one_call(topocoll_coll coll, const char *algo, int native, bufs *b, MPI_Comm comm)
{
    int n = b->count;
    if (native) {
        switch (coll) {
        case TOPOCOLL_BCAST: return PMPI_Bcast(b->r, n, MPI_INT, 0, comm);
        case TOPOCOLL_ALLREDUCE: return PMPI_Allreduce(b->s, b->r, n, MPI_INT, MPI_SUM, comm);
        case TOPOCOLL_REDUCE: return PMPI_Reduce(b->s, b->r, n, MPI_INT, MPI_SUM, 0, comm);
        case TOPOCOLL_ALLGATHER: return PMPI_Allgather(b->s, n, MPI_INT, b->r, n, MPI_INT, comm);
        case TOPOCOLL_ALLTOALL: return PMPI_Alltoall(b->s, n / size ? n / size : 1, MPI_INT, b->r,
                                                    n / size ? n / size : 1, MPI_INT, comm);
        default: break;
        }
    }
    int per = coll == TOPOCOLL_ALLTOALL ? (n / size ? n / size : 1) : n;
    if (!algo) {   /* by selection: topocoll_<coll>, the path an application's MPI_<Coll> takes */
        switch (coll) {
        case TOPOCOLL_BCAST: return topocoll_bcast(b->r, n, MPI_INT, 0, comm);
        case TOPOCOLL_ALLREDUCE: return topocoll_allreduce(b->s, b->r, n, MPI_INT, MPI_SUM, comm);
        case TOPOCOLL_REDUCE: return topocoll_reduce(b->s, b->r, n, MPI_INT, MPI_SUM, 0, comm);
        case TOPOCOLL_ALLGATHER: return topocoll_allgather(b->s, n, MPI_INT, b->r, n, MPI_INT, comm);
        case TOPOCOLL_ALLTOALL: return topocoll_alltoall(b->s, per, MPI_INT, b->r, per, MPI_INT, comm);
        default: break;
        }
    }
    return topocoll_run(coll, algo, b->s, per, MPI_INT, b->r, per, MPI_INT, MPI_SUM, 0, comm);
}

/* CALLS calls; the slowest rank's seconds. */
static double loop(topocoll_coll coll, const char *algo, int native, bufs *b, MPI_Comm comm, int calls)
{
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    for (int i = 0; i < calls; i++)
        if (one_call(coll, algo, native, b, comm) != MPI_SUCCESS) return -1;
    double t = MPI_Wtime() - t0, worst = 0;
    MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, comm);
    return worst;
}

/* The learner's outcome for (coll, bytes) on a communicator of this size. */
static int outcome_of(topocoll_coll coll, long long bytes, tc_learn_outcome *out)
{
    tc_learn_outcome all[256];
    int n = tc_learn_outcomes(all, 256);
    for (int i = n - 1; i >= 0; i--)
        if (all[i].coll == coll && all[i].np == size && bytes >= all[i].min_bytes && bytes < all[i].max_bytes) {
            *out = all[i];
            return 1;
        }
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void run_case(const opts *o, topocoll_coll coll, long long bytes)
{
    bufs b;
    b.count = (int)(bytes / 4);
    size_t n = (size_t)b.count * (size_t)size + 16;
    b.s = calloc(n, sizeof(int));
    b.r = calloc(n, sizeof(int));
    double learn[MAXREP], best[MAXREP], nat[MAXREP];
    char best_name[64] = "-";
    uint64_t explored = 0;
    for (int rep = 0; rep < o->reps; rep++) {
        MPI_Comm comm;
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        /* the context first (a call that does not learn: zero bytes) */
        topocoll_run(TOPOCOLL_BCAST, NULL, NULL, 0, MPI_INT, b.r, 0, MPI_INT, MPI_SUM, 0, comm);
        learn[rep] = loop(coll, NULL, 0, &b, comm, o->calls);
        tc_learn_outcome oc;
        /* (alltoall: the selection's bytes are one peer's block) */
        long long sel = coll == TOPOCOLL_ALLTOALL ? (long long)(b.count / size ? b.count / size : 1) * 4 : bytes;
        int have = outcome_of(coll, sel, &oc);
        best[rep] = -1;
        for (int k = 0; have && k < oc.ntried; k++) {
            loop(coll, oc.tried[k], 0, &b, comm, o->calls / 100 + 1);   /* its schedule made */
            double t = loop(coll, oc.tried[k], 0, &b, comm, o->calls);
            if (o->verbose && rank == 0)
                printf("  rep %d: %s %.4f s%s\n", rep, oc.tried[k], t, strcmp(oc.tried[k], oc.winner) ? "" : " (learned)");
            if (t > 0 && (best[rep] < 0 || t < best[rep])) {
                best[rep] = t;
                snprintf(best_name, sizeof best_name, "%s", oc.tried[k]);
            }
        }
        if (have) explored = oc.explore_s > 0 ? (uint64_t)(oc.explore_s * 1e9) : 0;
        nat[rep] = loop(coll, NULL, 1, &b, comm, o->calls);
        MPI_Comm_free(&comm);
    }
    /* the ratios per repetition (its loops ran back to back), then their median */
    double rb[MAXREP], rn[MAXREP];
    int nb = 0;
    for (int rep = 0; rep < o->reps; rep++) {
        if (best[rep] > 0) rb[nb++] = learn[rep] / best[rep];
        rn[rep] = nat[rep] > 0 ? learn[rep] / nat[rep] : 0;
    }
    double rbest = nb ? median(rb, nb) : 0, rnat = median(rn, o->reps);
    double l = median(learn, o->reps), f = median(best, o->reps), nv = median(nat, o->reps);
    if (rank == 0)
        printf("%-10s %9lld  %9.4f s  %9.4f s (%s)  %9.4f s  %6.3f  %6.3f  %8.3f ms\n", topocoll_coll_name(coll), bytes,
               l, f, best_name, nv, rbest, rnat, (double)explored * 1e-6);
    free(b.s);
    free(b.r);
}

int main(int argc, char **argv)
{
    setenv("TOPOCOLL_CONTEXT_AFTER", "0", 1);   /* every new communicator learns from its first call */
    setenv("TOPOCOLL_LEARN_PATIENCE", "0", 0);  /* exploring's cost, unless a patience is asked for */
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    opts o;
    if (parse(argc, argv, &o) != 0) {
        if (rank == 0)
            fprintf(stderr, "usage: topocoll-learn-cost [-c coll,...] [-s bytes,...] [-n CALLS] [-r REPS]\n");
        MPI_Finalize();
        return 2;
    }
    if (rank == 0)
        printf("np %d, %d calls per loop, median of %d repetitions; the slowest rank's total\n"
               "%-10s %9s  %11s  %11s %s  %11s  %6s  %6s  %11s\n",
               size, o.calls, o.reps, "coll", "bytes", "learning", "best fixed", "(name)", "native", "l/best",
               "l/native", "exploring");
    for (int c = 0; c < o.ncolls; c++)
        for (int s = 0; s < o.nsizes; s++) run_case(&o, o.colls[c], o.sizes[s]);
    MPI_Finalize();
    return 0;
}
