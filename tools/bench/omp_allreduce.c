/*
 * topocoll-omp-allreduce: the OpenMP side of the comparison in Li, Hoefler,
 * Snir, "NUMA-Aware Shared-Memory Collective Communication for MPI" (2013,
 * "Comparison with OpenMP"): p threads, each owning one vector of n
 * elements (allocated and first touched by its thread), reduce them so that
 * the result vector is visible to every thread.  No MPI.
 *
 * What is timed (one call = the time from a barrier that all threads pass
 * with their inputs ready to the barrier after which every thread can read
 * the result; thread 0's clock, the median over iterations of every
 * repetition, then the median over repetitions):
 *   omp_reduction  `#pragma omp for reduction(+:res[:n])` over the p vectors
 *                  (each thread adds its own vector into the runtime's private
 *                  copy; the runtime combines the copies into res), then the
 *                  implied barrier;
 *   omp_tiled      a hand-written tiled reduce: thread t sums elements
 *                  [t n/p, (t+1) n/p) over all p vectors straight into the
 *                  shared res (what the paper's tiled reduce does with
 *                  threads, no copy-in), then a barrier.
 * The result is checked against the expected sums once per size.
 *
 * Output: CSV rows with topocoll-bench's columns (coll, algorithm, bytes,
 * np, ...) so that tools/report/plot_allreduce.py reads both; np is the
 * thread count.  Elements are int32 (topocoll-bench's reductions use
 * MPI_INT32_T with MPI_SUM) or, with --type double, doubles.
 *
 * Usage: topocoll-omp-allreduce [-p THREADS] [-s LO:HI] [-r REPS] [--type int32|double] [--csv FILE]
 * (threads default to OMP_NUM_THREADS / the runtime's; sizes 8:16M doubling,
 * bytes per thread; bind threads with OMP_PROC_BIND=close OMP_PLACES=cores).
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct opts {
    int threads, reps, is_double;
    long lo, hi;
    const char *csv;
} opts;

static long parse_size(const char *s)
{
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (end && (*end == 'K' || *end == 'k')) v <<= 10, end++;
    else if (end && (*end == 'M' || *end == 'm')) v <<= 20, end++;
    return end && *end == '\0' && v > 0 ? v : -1;
}

static int parse(int argc, char **argv, opts *o)
{
    *o = (opts){ omp_get_max_threads(), 5, 0, 8, 16L << 20, NULL };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) return -1;
        if (!strcmp(a, "-p")) o->threads = atoi(v);
        else if (!strcmp(a, "-r")) o->reps = atoi(v);
        else if (!strcmp(a, "--csv")) o->csv = v;
        else if (!strcmp(a, "--type")) o->is_double = !strcmp(v, "double");
        else if (!strcmp(a, "-s")) {
            char buf[64];
            snprintf(buf, sizeof buf, "%s", v);
            char *colon = strchr(buf, ':');
            if (!colon) return -1;
            *colon = '\0';
            o->lo = parse_size(buf);
            o->hi = parse_size(colon + 1);
        } else return -1;
        i++;
    }
    return o->threads >= 1 && o->reps >= 1 && o->lo > 0 && o->hi >= o->lo ? 0 : -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define DEFINE_KERNELS(T, SUFFIX)                                                                   \
    static void reduce_clause_##SUFFIX(T **vec, T *res, long n, int p)                              \
    {                                                                                               \
        _Pragma("omp for schedule(static)")                                                         \
        for (long i = 0; i < n; i++) res[i] = 0;                                                    \
        _Pragma("omp for schedule(static) reduction(+:res[:n])")                                    \
        for (int t = 0; t < p; t++)                                                                 \
            for (long i = 0; i < n; i++) res[i] += vec[t][i];                                       \
    }                                                                                               \
    static void reduce_tiled_##SUFFIX(T **vec, T *res, long n, int p)                               \
    {                                                                                               \
        int me = omp_get_thread_num();                                                              \
        long lo = n * me / p, hi = n * (me + 1) / p;                                                \
        for (long i = lo; i < hi; i++) {                                                            \
            T s = vec[0][i];                                                                        \
            for (int t = 1; t < p; t++) s += vec[t][i];                                             \
            res[i] = s;                                                                             \
        }                                                                                           \
        _Pragma("omp barrier")                                                                      \
    }

DEFINE_KERNELS(int32_t, i32)
DEFINE_KERNELS(double, f64)

typedef void (*kernel_fn)(void **vec, void *res, long n, int p);

/* One (mode, size): iters timed calls per repetition, inside one parallel
 * region; the median per repetition into per_rep. Returns the number of
 * wrong result elements. */
static long run(const opts *o, int mode, long bytes, int iters, double *per_rep)
{
    int p = o->threads;
    size_t es = o->is_double ? sizeof(double) : sizeof(int32_t);
    long n = bytes / (long)es > 0 ? bytes / (long)es : 1;
    void **vec = calloc((size_t)p, sizeof *vec);
    void *res = malloc((size_t)n * es);
    double *t = malloc((size_t)iters * sizeof *t);
    long wrong = 0;
    if (!vec || !res || !t) { fprintf(stderr, "out of memory\n"); exit(2); }
#pragma omp parallel num_threads(p)
    {
        int me = omp_get_thread_num();
        vec[me] = malloc((size_t)n * es);   /* first touch by its thread */
        for (long i = 0; i < n; i++) {
            if (o->is_double) ((double *)vec[me])[i] = (double)(me + 1) * (double)(i % 7 + 1);
            else ((int32_t *)vec[me])[i] = (int32_t)((me + 1) * (i % 7 + 1));
        }
        for (int r = 0; r < o->reps; r++) {
            for (int k = 0; k < iters; k++) {
#pragma omp barrier
                double t0 = omp_get_wtime();
                if (o->is_double)
                    (mode ? reduce_tiled_f64 : reduce_clause_f64)((double **)vec, res, n, p);
                else
                    (mode ? reduce_tiled_i32 : reduce_clause_i32)((int32_t **)vec, res, n, p);
                if (me == 0) t[k] = (omp_get_wtime() - t0) * 1e6;
            }
#pragma omp barrier
            if (me == 0) per_rep[r] = median(t, iters);
        }
#pragma omp barrier
        free(vec[me]);
    }
    double want = (double)p * (p + 1) / 2;
    for (long i = 0; i < n; i++) {
        double got = o->is_double ? ((double *)res)[i] : ((int32_t *)res)[i];
        wrong += got != want * (double)(i % 7 + 1);
    }
    free(vec);
    free(res);
    free(t);
    return wrong;
}

int main(int argc, char **argv)
{
    opts o;
    if (parse(argc, argv, &o) != 0) {
        fprintf(stderr, "usage: %s [-p THREADS] [-s LO:HI] [-r REPS] [--type int32|double] [--csv FILE]\n",
                argv[0]);
        return 2;
    }
    FILE *csv = o.csv ? fopen(o.csv, "w") : NULL;
    if (o.csv && !csv) { perror(o.csv); return 1; }
    const char *header = "coll,algorithm,bytes,np,nnodes,nsockets,topology,iters,reps,median_us,min_us,max_us,"
                         "outliers,ratio_to_native,status\n";
    if (csv) fputs(header, csv);
    printf("# OpenMP allreduce, %d threads, %s, median over %d repetitions (us)\n# bytes omp_reduction omp_tiled\n",
           o.threads, o.is_double ? "double" : "int32", o.reps);
    static const char *const modes[] = { "omp_reduction", "omp_tiled" };
    double *per_rep = malloc((size_t)o.reps * sizeof *per_rep);
    int bad = 0;
    for (long b = o.lo; b <= o.hi && per_rep; b *= 2) {
        int iters = (int)(64L * 1024 * 1024 / (b * o.threads) > 200 ? 200 : 64L * 1024 * 1024 / (b * o.threads));
        if (iters < 10) iters = 10;
        printf("%ld", b);
        for (int m = 0; m < 2; m++) {
            long wrong = run(&o, m, b, iters, per_rep);
            bad |= wrong != 0;
            double lo = per_rep[0], hi = per_rep[0];
            for (int r = 0; r < o.reps; r++) {
                if (per_rep[r] < lo) lo = per_rep[r];
                if (per_rep[r] > hi) hi = per_rep[r];
            }
            double med = median(per_rep, o.reps);
            printf(" %.3f%s", med, wrong ? " (WRONG)" : "");
            if (csv)
                fprintf(csv, "allreduce,%s,%ld,%d,1,1,\"OpenMP threads\",%d,%d,%.3f,%.3f,%.3f,0,,%s\n", modes[m], b,
                        o.threads, iters, o.reps, med, lo, hi, wrong ? "INVALID" : "ok");
        }
        printf("\n");
    }
    free(per_rep);
    if (csv && fclose(csv) != 0) bad = 1;
    return bad;
}
