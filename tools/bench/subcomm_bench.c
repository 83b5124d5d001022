/*
 * topocoll-subcomm-bench: MPI_Allreduce (or MPI_Allgather) on communicators
 * split from MPI_COMM_WORLD, timed per call, as an application sees them:
 * a plain MPI program, run as it is (the MPI library) or with
 * libtopocoll_pmpi.so preloaded (topocoll's selection).  No topocoll call.
 *
 *   mpirun -np 4 topocoll-subcomm-bench [--group G] [--bytes B] [--iters N]
 *                                      [--runs R] [--coll allreduce|allgather]
 *                                      [--nonblocking] [--back-to-back]
 *
 * The world is split into communicators of G consecutive ranks (default 2;
 * the last may be smaller).  Per run: N calls (default 2000) after N / 10
 * untimed ones, each preceded by a barrier on the sub-communicator; a
 * call's time is its maximum over the world's ranks.  B bytes per rank
 * (default 64) of MPI_INT, MPI_SUM for allreduce; results are checked (a
 * wrong one exits 1).
 *   --nonblocking   each call is MPI_Iallreduce (MPI_Iallgather) and
 *                   MPI_Wait at once (the first half of the untimed calls
 *                   are blocking ones, as in a program that makes both:
 *                   topocoll makes a communicator's context and node-shared
 *                   memory in blocking calls only);
 *   --back-to-back  one barrier after the untimed calls, none between the
 *                   timed ones (as a loop of collectives runs: a rank that
 *                   falls behind makes the others wait in their calls).
 * Rank 0 prints one line per run with the median, the 90th percentile, the
 * mean and the maximum in microseconds (a wait that hands its core away
 * shows in the mean and the tail first), then the median of the runs'
 * medians, the median of their means and the largest maximum.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static long arg_long(const char *opt, const char *v, long lo, long hi)
{
    char *end = NULL;
    long n = strtol(v ? v : "", &end, 10);
    if (!v || !*v || *end || n < lo || n > hi) {
        fprintf(stderr, "topocoll-subcomm-bench: %s needs a whole number from %ld to %ld\n", opt, lo, hi);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long group = 2, bytes = 64, iters = 2000, runs = 7;
    int gather = 0, nonblocking = 0, back_to_back = 0;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--group") == 0) group = arg_long(argv[i], v, 1, size), i++;
        else if (strcmp(argv[i], "--bytes") == 0) bytes = arg_long(argv[i], v, 4, 1 << 20), i++;
        else if (strcmp(argv[i], "--iters") == 0) iters = arg_long(argv[i], v, 10, 10000000), i++;
        else if (strcmp(argv[i], "--runs") == 0) runs = arg_long(argv[i], v, 1, 1000), i++;
        else if (strcmp(argv[i], "--nonblocking") == 0) nonblocking = 1;
        else if (strcmp(argv[i], "--back-to-back") == 0) back_to_back = 1;
        else if (strcmp(argv[i], "--coll") == 0 && v && (strcmp(v, "allreduce") == 0 || strcmp(v, "allgather") == 0))
            gather = strcmp(v, "allgather") == 0, i++;
        else {
            if (rank == 0)
                fprintf(stderr, "topocoll-subcomm-bench: unknown option '%s' (--group G --bytes B --iters N "
                                "--runs R --coll allreduce|allgather --nonblocking --back-to-back)\n", argv[i]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, (int)(rank / group), rank, &sub);
    int me, n, count = (int)(bytes / 4), wrong = 0;
    MPI_Comm_rank(sub, &me);
    MPI_Comm_size(sub, &n);
    int *in = malloc((size_t)count * sizeof *in), *out = malloc((size_t)count * (size_t)n * sizeof *out);
    double *t = malloc((size_t)iters * sizeof *t), *meds = malloc((size_t)runs * sizeof *meds), worst = 0;
    double *means = malloc((size_t)runs * sizeof *means);
    if (!in || !out || !t || !meds || !means) MPI_Abort(MPI_COMM_WORLD, 1);
    if (rank == 0)
        printf("# MPI_%s%s of %ld B per rank on communicators of %ld of %d ranks, %ld calls per run%s\n",
               gather ? (nonblocking ? "Iallgather" : "Allgather") : (nonblocking ? "Iallreduce" : "Allreduce"),
               nonblocking ? " + MPI_Wait" : "", bytes, group, size, iters, back_to_back ? ", back to back" : "");
    for (long r = 0; r < runs; r++) {
        for (long k = -iters / 10; k < iters; k++) {
            for (int i = 0; i < count; i++) in[i] = (int)(k + me * 7 + i);
            if (!back_to_back || k == 0) MPI_Barrier(sub);   /* back to back: once, after the untimed calls */
            double t0 = MPI_Wtime();
            if (nonblocking && k >= -iters / 20) {   /* (the first half of the untimed calls blocking) */
                MPI_Request q;
                if (gather) MPI_Iallgather(in, count, MPI_INT, out, count, MPI_INT, sub, &q);
                else MPI_Iallreduce(in, out, count, MPI_INT, MPI_SUM, sub, &q);
                MPI_Wait(&q, MPI_STATUS_IGNORE);
            } else if (gather) {
                MPI_Allgather(in, count, MPI_INT, out, count, MPI_INT, sub);
            } else {
                MPI_Allreduce(in, out, count, MPI_INT, MPI_SUM, sub);
            }
            double dt = MPI_Wtime() - t0;
            if (k >= 0) t[k] = dt * 1e6;
            for (int i = 0; i < count; i++)
                for (int q = 0; q < (gather ? n : 1); q++)
                    wrong |= gather ? out[q * count + i] != (int)(k + q * 7 + i)
                                    : out[i] != (int)(n * (k + i) + 7 * n * (n - 1) / 2);
        }
        MPI_Allreduce(MPI_IN_PLACE, t, (int)iters, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        double sum = 0;
        for (long k = 0; k < iters; k++) sum += t[k];
        means[r] = sum / (double)iters;
        qsort(t, (size_t)iters, sizeof *t, cmp_double);
        meds[r] = t[iters / 2];
        if (t[iters - 1] > worst) worst = t[iters - 1];
        if (rank == 0)
            printf("run %ld: median %.2f us, p90 %.2f us, mean %.2f us, max %.1f us\n", r + 1, t[iters / 2],
                   t[iters * 9 / 10], means[r], t[iters - 1]);
    }
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    qsort(meds, (size_t)runs, sizeof *meds, cmp_double);
    qsort(means, (size_t)runs, sizeof *means, cmp_double);
    if (rank == 0)
        printf("summary: median of medians %.2f us, median of means %.2f us, max %.1f us%s\n", meds[runs / 2],
               means[runs / 2], worst, wrong ? ", WRONG RESULTS" : "");
    free(in);
    free(out);
    free(t);
    free(meds);
    free(means);
    MPI_Comm_free(&sub);
    MPI_Finalize();
    return wrong ? 1 : 0;
}
