/*
 * topocoll-bench: statistics over per-iteration times.  No MPI.
 *
 * A repetition's time is the mean of its iteration times after dropping the
 * values outside Tukey's fences [Q1 - 1.5 IQR, Q3 + 1.5 IQR] (quartiles by
 * linear interpolation between order statistics); the reported time is the
 * median over repetitions.
 */
#include <stdlib.h>

#include "bench.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_quantile_sorted(const double *x, int n, double q)
{
    double pos, frac;
    int lo;

    if (n <= 0)
        return 0.0;
    if (q <= 0.0)
        return x[0];
    if (q >= 1.0)
        return x[n - 1];
    pos = q * (double)(n - 1);
    lo = (int)pos;
    frac = pos - (double)lo;
    if (lo + 1 >= n)
        return x[n - 1];
    return x[lo] + frac * (x[lo + 1] - x[lo]);
}

double bench_tukey_mean(double *x, int n, int *dropped)
{
    double q1, q3, iqr, lo, hi, sum = 0.0;
    int kept = 0;

    *dropped = 0;
    if (n <= 0)
        return 0.0;
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    q1 = bench_quantile_sorted(x, n, 0.25);
    q3 = bench_quantile_sorted(x, n, 0.75);
    iqr = q3 - q1;
    lo = q1 - 1.5 * iqr;
    hi = q3 + 1.5 * iqr;
    for (int i = 0; i < n; i++) {
        if (x[i] < lo || x[i] > hi)
            continue;
        sum += x[i];
        kept++;
    }
    *dropped = n - kept;
    /* kept >= 1 always: the median lies inside the fences. */
    return kept > 0 ? sum / (double)kept : x[n / 2];
}

double bench_median(double *x, int n)
{
    if (n <= 0)
        return 0.0;
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    return bench_quantile_sorted(x, n, 0.5);
}

void bench_column_order(int n, int s, int rep, int *order)
{
    /* Williams' design: row 0 is 0, 1, n-1, 2, n-2, ...; row r adds r to
     * every entry (mod n); for odd n the rows n .. 2n-1 are rows 0 .. n-1
     * reversed.  Over n rows (2n for odd n) every column takes every place
     * and follows every other column equally often. */
    if (n <= 0)
        return;
    int rows = n % 2 ? 2 * n : n, row = (int)(((unsigned)rep + (unsigned)s) % (unsigned)rows);
    int reversed = row >= n, shift = row % n;
    for (int i = 0; i < n; i++) {
        int first = i == 0 ? 0 : i % 2 ? (i + 1) / 2 : n - i / 2;
        order[reversed ? n - 1 - i : i] = (first + shift) % n;
    }
}
