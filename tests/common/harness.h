/*
 * The test harness every test program shares: CHECK counts a passed or a
 * failed case (printing the first failures with file and line), and
 * tc_test_summary prints the closing line the test scripts read,
 * "N passed, M failed" (", K skipped" when some were), and returns the
 * exit status (1 when anything failed or nothing was checked).
 *
 * Header-only: each test program is one translation unit (plus, for MPI
 * tests, rank-local counters summed by the program itself).
 */
#ifndef TC_TEST_HARNESS_H
#define TC_TEST_HARNESS_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

typedef struct tc_test_counts {
    long passed, failed, skipped;
    long shown;          /* failures printed so far */
    long show_max;       /* print at most this many (0: 20) */
} tc_test_counts;

/* One counter set per program (static: one per translation unit). */
static tc_test_counts tc_test_counts_global;

static inline void tc_test_fail_msg(const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static inline void tc_test_fail_msg(const char *file, int line, const char *fmt, ...)
{
    tc_test_counts *c = &tc_test_counts_global;
    long max = c->show_max ? c->show_max : 20;
    if (c->shown++ >= max) return;
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL %s:%d: ", file, line);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
}

/* CHECK(condition, printf-style message): one case. */
#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (cond) tc_test_counts_global.passed++;                          \
        else {                                                             \
            tc_test_counts_global.failed++;                                \
            tc_test_fail_msg(__FILE__, __LINE__, __VA_ARGS__);             \
        }                                                                  \
    } while (0)

/* A case that could not run here (counted, never as a pass). */
#define SKIP() (tc_test_counts_global.skipped++)

/* Print the closing line; the exit status for main. */
static inline int tc_test_summary_of(const tc_test_counts *c)
{
    if (c->skipped) printf("%ld passed, %ld failed, %ld skipped\n", c->passed, c->failed, c->skipped);
    else printf("%ld passed, %ld failed\n", c->passed, c->failed);
    fflush(stdout);
    return c->failed || c->passed == 0;
}

static inline int tc_test_summary(void) { return tc_test_summary_of(&tc_test_counts_global); }

/* xorshift64: a small deterministic generator for test data; *state must
 * start nonzero.  Returns 32 well-mixed bits. */
static inline unsigned tc_test_rand(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    return (unsigned)(x >> 11);
}

#endif
