/*
 * Self-test of topocoll-bench's MPI-free parts: size specs, options and the
 * statistics.  Exit status 0 when everything holds.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "../../tests/common/harness.h"

#define EXPECT(cond) CHECK(cond, "%s", #cond)

static int sizes_are(const char *spec, const size_t *want, int n)
{
    size_t *got = NULL;
    int ng = 0, ok;
    char err[256];
    if (bench_parse_sizes(spec, &got, &ng, err, sizeof err) != 0) {
        fprintf(stderr, "selftest: '%s' rejected: %s\n", spec, err);
        return 0;
    }
    ok = ng == n && memcmp(got, want, (size_t)n * sizeof *want) == 0;
    if (!ok) {
        fprintf(stderr, "selftest: '%s' gave", spec);
        for (int i = 0; i < ng; i++)
            fprintf(stderr, " %zu", got[i]);
        fprintf(stderr, "\n");
    }
    free(got);
    return ok;
}

static int size_rejected(const char *spec)
{
    size_t *got = NULL;
    int ng = 0;
    char err[256] = "";
    int rc = bench_parse_sizes(spec, &got, &ng, err, sizeof err);
    free(got);
    if (rc == 0) {
        fprintf(stderr, "selftest: '%s' accepted\n", spec);
        return 0;
    }
    return err[0] != '\0';
}

static int parse(const char *const *args, int n, bench_opts *o)
{
    char *argv[16];
    char err[512];
    int rc;
    argv[0] = "topocoll-bench";
    for (int i = 0; i < n; i++)
        argv[i + 1] = (char *)args[i];
    rc = bench_parse_options(n + 1, argv, o, err, sizeof err);
    if (rc == BENCH_PARSE_ERROR && err[0] == '\0')
        rc = -1; /* an error must come with a message */
    return rc;
}

static void test_sizes(void)
{
    static const size_t a[] = { 8, 16, 32, 64 };
    static const size_t b[] = { 8, 64, 1024, 1048576 };
    static const size_t c[] = { 8, 32, 128, 512 };
    static const size_t d[] = { 3, 8, 16, 1000, 2048 };
    static const size_t e[] = { 1073741824 };
    static const size_t f[] = { 10, 20, 40, 80 };
    char buf[32];

    EXPECT(sizes_are("8:64", a, 4));
    EXPECT(sizes_are("8,64,1K,1M", b, 4));
    EXPECT(sizes_are("1M,1k,64,8,64", b, 4));
    EXPECT(sizes_are("8:512:x4", c, 4));
    EXPECT(sizes_are("8:600:X4", c, 4));
    EXPECT(sizes_are("1000,3,8:16,2K", d, 5));
    EXPECT(sizes_are("1G", e, 1));
    EXPECT(sizes_are("10:100", f, 4));
    EXPECT(sizes_are("8:8", a, 1));
    EXPECT(size_rejected("0"));
    EXPECT(size_rejected("8:abc"));
    EXPECT(size_rejected(""));
    EXPECT(size_rejected("8,"));
    EXPECT(size_rejected(",8"));
    EXPECT(size_rejected("8:"));
    EXPECT(size_rejected(":8"));
    EXPECT(size_rejected("64:8"));
    EXPECT(size_rejected("8:64:x1"));
    EXPECT(size_rejected("8:64:x"));
    EXPECT(size_rejected("8:64:4"));
    EXPECT(size_rejected("8:64:x4:1"));
    EXPECT(size_rejected("8:64:x-2"));
    EXPECT(size_rejected("2G"));
    EXPECT(size_rejected("1KB"));
    EXPECT(size_rejected("-8"));
    EXPECT(size_rejected("99999999999999999999999"));
    EXPECT(size_rejected("17179869184G"));

    bench_format_size(8, buf, sizeof buf);
    EXPECT(strcmp(buf, "8") == 0);
    bench_format_size(1024, buf, sizeof buf);
    EXPECT(strcmp(buf, "1K") == 0);
    bench_format_size(3 << 20, buf, sizeof buf);
    EXPECT(strcmp(buf, "3M") == 0);
    bench_format_size(1000, buf, sizeof buf);
    EXPECT(strcmp(buf, "1000") == 0);
    bench_format_size(1536, buf, sizeof buf);
    EXPECT(strcmp(buf, "1536") == 0);
}

static void test_options(void)
{
    bench_opts o;

    {
        EXPECT(parse(NULL, 0, &o) == BENCH_PARSE_OK);
        EXPECT(strcmp(o.coll_name, "allgather") == 0);
        EXPECT(o.nsizes == 18 && o.sizes[0] == 8 && o.sizes[17] == 1048576);
        EXPECT(o.iters == 0 && o.warmup == -1 && o.reps == 5 && o.sleep_us == 0);
        EXPECT(o.validate == 1 && o.quiet == 0 && o.algos == NULL && o.back_to_back == 0);
        bench_opts_free(&o);
    }
    {
        const char *args[] = { "-s", "8:64K", "-r3", "--iters=7", "-w", "0", "--sleep-us",
                               "100", "-a", "ring,native,ring", "-t", "2x2/cyclic",
                               "--no-validate", "-q", "--back-to-back" };
        EXPECT(parse(args, 15, &o) == BENCH_PARSE_OK);
        EXPECT(o.nsizes == 14 && o.reps == 3 && o.iters == 7 && o.warmup == 0);
        EXPECT(o.sleep_us == 100 && o.validate == 0 && o.quiet == 1 && o.back_to_back == 1);
        EXPECT(o.nalgos == 2 && strcmp(o.algos[0], "ring") == 0 &&
               strcmp(o.algos[1], "native") == 0);
        EXPECT(o.topology && strcmp(o.topology, "2x2/cyclic") == 0);
        bench_opts_free(&o);
    }
    {
        const char *args[] = { "--csv", "a.csv", "--json=b.json", "-c", "allgather",
                               "--progress" };
        EXPECT(parse(args, 6, &o) == BENCH_PARSE_OK);
        EXPECT(strcmp(o.csv_path, "a.csv") == 0 && strcmp(o.json_path, "b.json") == 0);
        EXPECT(o.progress == 1);
        bench_opts_free(&o);
    }
    {
        const char *args[] = { "-s", "8", "-h" };
        EXPECT(parse(args, 3, &o) == BENCH_PARSE_HELP);
        bench_opts_free(&o);
    }
    {
        static const char *const bad[][2] = {
            { "-s", "0" }, { "-s", "8:abc" }, { "-r", "0" }, { "-i", "-1" },
            { "-i", "0" }, { "-i", "1x" }, { "-w", "-1" }, { "--sleep-us", "-5" },
            { "-r", "99999999999999999999" }, { "-a", "" }, { "-a", "ring,,bruck" },
            { "--bogus", "1" }, { "-x", "1" }, { "extra", "1" }, { "--quiet=1", "x" },
            { "-qv", "x" }, { "--csv=", "x" }, { "-t", "" },
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            int rc = parse(bad[i], 2, &o);
            if (rc != BENCH_PARSE_ERROR)
                fprintf(stderr, "selftest: '%s %s' gave %d\n", bad[i][0], bad[i][1], rc);
            EXPECT(rc == BENCH_PARSE_ERROR);
            bench_opts_free(&o);
        }
        const char *missing[] = { "-s" };
        EXPECT(parse(missing, 1, &o) == BENCH_PARSE_ERROR);
        bench_opts_free(&o);
    }
    {
        const char *args[] = { "--overlap", "--test-calls", "8", "-c", "allreduce", "--csv", "o.csv" };
        EXPECT(parse(args, 7, &o) == BENCH_PARSE_OK);
        EXPECT(o.overlap == 1 && o.test_calls == 8 && strcmp(o.coll_name, "allreduce") == 0);
        bench_opts_free(&o);
        EXPECT(parse(args, 1, &o) == BENCH_PARSE_OK && o.overlap == 1 && o.test_calls == 0);
        EXPECT(o.no_persistent == 0);
        bench_opts_free(&o);
        const char *np[] = { "--overlap", "--no-persistent" };
        EXPECT(parse(np, 2, &o) == BENCH_PARSE_OK && o.no_persistent == 1);
        bench_opts_free(&o);
    }
    {
        /* --test-calls alone, a bad count, --json with --overlap */
        static const char *const bad[][3] = {
            { "--test-calls", "4", "-q" }, { "--overlap", "--test-calls", "-1" },
            { "--overlap", "--test-calls", "x" }, { "--overlap", "--json", "o.json" },
            { "--overlap=1", "-q", "-q" }, { "--no-persistent", "-q", "-q" },
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            int rc = parse(bad[i], 3, &o);
            if (rc != BENCH_PARSE_ERROR)
                fprintf(stderr, "selftest: '%s %s %s' gave %d\n", bad[i][0], bad[i][1], bad[i][2], rc);
            EXPECT(rc == BENCH_PARSE_ERROR);
            bench_opts_free(&o);
        }
    }
}

static void test_stats(void)
{
    double x[] = { 5, 1, 4, 2, 3 };
    double y[] = { 1, 1, 1, 1, 1, 1, 1, 100 };
    double z[] = { 7 };
    double m[] = { 4, 1, 3, 2 };
    double q[] = { 1, 2, 3, 4 };
    int dropped = -1;

    EXPECT(bench_tukey_mean(x, 5, &dropped) == 3.0 && dropped == 0);
    EXPECT(x[0] == 1 && x[4] == 5);
    EXPECT(bench_tukey_mean(y, 8, &dropped) == 1.0 && dropped == 1);
    EXPECT(bench_tukey_mean(z, 1, &dropped) == 7.0 && dropped == 0);
    EXPECT(bench_median(m, 4) == 2.5);
    EXPECT(bench_median(z, 1) == 7.0);
    EXPECT(fabs(bench_quantile_sorted(q, 4, 0.25) - 1.75) < 1e-12);
    EXPECT(fabs(bench_quantile_sorted(q, 4, 0.75) - 3.25) < 1e-12);
    EXPECT(bench_quantile_sorted(q, 4, 0.0) == 1.0 && bench_quantile_sorted(q, 4, 1.0) == 4.0);
    {
        /* 100 values around 10 and 3 far ones: the far ones go */
        double v[103];
        for (int i = 0; i < 100; i++)
            v[i] = 10.0 + (double)(i % 10) * 0.01;
        v[100] = 50;
        v[101] = 60;
        v[102] = 0.001;
        double mean = bench_tukey_mean(v, 103, &dropped);
        EXPECT(dropped == 3);
        EXPECT(fabs(mean - 10.045) < 1e-9);
    }
}

/* The columns' orders: each a permutation; over a full design (n rows, 2n
 * for odd n) every column takes every place and follows every other
 * column equally often. */
static void test_column_order(void)
{
    enum { MAXN = 9 };
    for (int n = 1; n <= MAXN; n++) {
        int rows = n % 2 ? 2 * n : n, place[MAXN][MAXN] = { { 0 } }, follows[MAXN][MAXN] = { { 0 } }, bad = 0;
        for (int rep = 0; rep < rows; rep++) {
            int o[MAXN], seen[MAXN] = { 0 };
            bench_column_order(n, 3, rep, o);
            for (int i = 0; i < n; i++) {
                if (o[i] < 0 || o[i] >= n || seen[o[i]]++) bad = 1;
                else place[o[i]][i]++;
                if (i > 0 && !bad) follows[o[i - 1]][o[i]]++;
            }
        }
        for (int a = 0; a < n && !bad; a++)
            for (int b = 0; b < n; b++) {
                if (place[a][b] != rows / n) bad = 1;
                if (a != b && follows[a][b] != (n % 2 ? 2 : 1) * (n > 1)) bad = 1;
            }
        EXPECT(!bad);
    }
}

int main(void)
{
    test_sizes();
    test_options();
    test_stats();
    test_column_order();
    return tc_test_summary();
}
