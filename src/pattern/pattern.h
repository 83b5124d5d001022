/*
 * Pure rank arithmetic shared by algorithms: ring neighbours, powers of two,
 * bit reversal, binomial trees, Bruck distances.  No MPI, no allocation;
 * unit-tested exhaustively for small p (tests/unit/test_pattern.c).
 */
#ifndef TC_PATTERN_H
#define TC_PATTERN_H

#include <stdint.h>

static inline int tc_mod(int a, int p) { int m = a % p; return m < 0 ? m + p : m; }
/* a mod p for -p <= a < 2p, without a division (per-step peers in loops
 * that the simulator runs hundreds of millions of times). */
static inline int tc_wrap(int a, int p) { return a < 0 ? a + p : a >= p ? a - p : a; }
static inline int tc_ring_right(int r, int p) { return r + 1 == p ? 0 : r + 1; }
static inline int tc_ring_left(int r, int p) { return r == 0 ? p - 1 : r - 1; }
static inline int tc_is_pow2(int p) { return p > 0 && (p & (p - 1)) == 0; }

/* Largest power of two <= p (p >= 1). */
int tc_pow2_floor(int p);
/* ceil(log2(p)) for p >= 1. */
int tc_log2_ceil(int p);
/* Reverse the low `bits` bits of x. */
int tc_bitrev(int x, int bits);

/* Binomial tree rooted at 0 over p ranks (MPICH's numbering: the parent of
 * v > 0 is v with its lowest set bit cleared; children are v + 2^k for
 * 2^k below v's lowest set bit while v + 2^k < p). */
int tc_binom_parent(int v);
/* Number of ranks in v's subtree: [v, v + size) are its members. */
int tc_binom_subtree(int v, int p);
/* Children of v by decreasing distance (v + 2^k, largest k first); returns
 * the count. */
int tc_binom_children(int v, int p, int *children, int max);

/* Fold of a non-power-of-two count onto the largest power of two q:
 * ranks r >= q are "extras" paired with r - q. */
typedef struct tc_fold { int q; int extras; } tc_fold;
static inline tc_fold tc_fold_of(int p)
{ tc_fold f; f.q = tc_pow2_floor(p); f.extras = p - f.q; return f; }

#endif
