/* Rank arithmetic (see pattern.h). */
#include "pattern/pattern.h"

int tc_pow2_floor(int p)
{
    int q = 1;
    while (q <= p / 2) q *= 2;
    return q;
}

int tc_log2_ceil(int p)
{
    int k = 0;
    while ((1L << k) < p) k++;
    return k;
}

int tc_bitrev(int x, int bits)
{
    int y = 0;
    for (int i = 0; i < bits; i++)
        if (x & (1 << i)) y |= 1 << (bits - 1 - i);
    return y;
}

int tc_binom_parent(int v)
{
    return v & (v - 1);
}

int tc_binom_subtree(int v, int p)
{
    int low = v ? (v & -v) : tc_pow2_floor(p) * 2;
    int end = v + low;
    return (end > p ? p : end) - v;
}

int tc_binom_children(int v, int p, int *children, int max)
{
    int low = v ? (v & -v) : tc_pow2_floor(p) * 2;
    int n = 0;
    for (int d = low / 2; d >= 1; d /= 2)
        if (v + d < p && n < max) children[n++] = v + d;
    return n;
}
