/* Rank arithmetic, checked exhaustively for small p against definitions
 * written out the slow way.  Ends with "N passed, M failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pattern/pattern.h"
#include "../common/harness.h"

static void ring_and_pow2(int p)
{
    int q = 1, lg = 0;
    while (q * 2 <= p) q *= 2;
    while ((1 << lg) < p) lg++;
    CHECK(tc_pow2_floor(p) == q, "pow2_floor(%d)", p);
    CHECK(tc_log2_ceil(p) == lg, "log2_ceil(%d)", p);
    CHECK(tc_is_pow2(p) == (q == p), "is_pow2(%d)", p);
    for (int r = 0; r < p; r++) {
        CHECK(tc_ring_right(r, p) == (r + 1) % p, "right %d %d", r, p);
        CHECK(tc_ring_left(tc_ring_right(r, p), p) == r, "left(right) %d %d", r, p);
        for (int d = -2 * p; d <= 2 * p; d += 1 + p / 64) {
            int m = tc_mod(r + d, p);
            CHECK(m >= 0 && m < p && (m - r - d) % p == 0, "mod %d %d", r + d, p);
        }
    }
    tc_fold f = tc_fold_of(p);
    CHECK(f.q == q && f.extras == p - q, "fold %d", p);
}

static void bitrev(int bits)
{
    int n = 1 << bits;
    char *seen = calloc((size_t)n, 1);
    for (int x = 0; x < n; x++) {
        int y = tc_bitrev(x, bits), z = 0;
        for (int i = 0; i < bits; i++) z |= ((x >> i) & 1) << (bits - 1 - i);
        CHECK(y == z, "bitrev(%d,%d)", x, bits);
        CHECK(tc_bitrev(y, bits) == x, "bitrev involution %d", x);
        if (y >= 0 && y < n) seen[y]++;
    }
    for (int y = 0; y < n; y++) CHECK(seen[y] == 1, "bitrev permutation %d bits %d", y, bits);
    free(seen);
}

/* Binomial tree: every rank but 0 has a parent below it; the subtree of v
 * is the contiguous range [v, v + size); children partition the subtree. */
static void binomial(int p)
{
    int *count = calloc((size_t)p, sizeof *count);
    CHECK(tc_binom_subtree(0, p) == p, "subtree(0) = p for p=%d", p);
    for (int v = 0; v < p; v++) {
        int kids[32];
        int nk = tc_binom_children(v, p, kids, 32), sum = 1;
        for (int i = nk - 1; i >= 0; i--) {   /* nearest child first */
            CHECK(tc_binom_parent(kids[i]) == v, "parent(child) p=%d v=%d", p, v);
            CHECK(kids[i] == v + sum, "children tile the subtree p=%d v=%d", p, v);
            if (i > 0) CHECK(kids[i] < kids[i - 1], "children by decreasing distance");
            sum += tc_binom_subtree(kids[i], p);
            count[kids[i]]++;
        }
        CHECK(sum == tc_binom_subtree(v, p), "subtree size p=%d v=%d (%d vs %d)", p, v, sum,
              tc_binom_subtree(v, p));
        if (v) CHECK(tc_binom_parent(v) < v, "parent below p=%d v=%d", p, v);
    }
    for (int v = 1; v < p; v++) CHECK(count[v] == 1, "rank %d has one parent (p=%d)", v, p);
    free(count);
}

/* tc_wrap(a, p) == tc_mod(a, p) on its domain -p <= a < 2p. */
static void wrap(int p)
{
    for (int a = -p; a < 2 * p; a++) CHECK(tc_wrap(a, p) == tc_mod(a, p), "wrap(%d, %d)", a, p);
}

int main(void)
{
    for (int p = 1; p <= 300; p++) {
        ring_and_pow2(p);
        binomial(p);
        wrap(p);
    }
    for (int bits = 0; bits <= 16; bits++) bitrev(bits);
    return tc_test_summary();
}
