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
    /* Reverse all 32 bits by swapping halves, bytes, nibbles, pairs and
     * bits, then keep the top `bits` (constant time: recursive halving calls
     * it p times per rank). */
    if (bits <= 0) return 0;
    uint32_t v = (uint32_t)x;
    v = (v >> 16) | (v << 16);
    v = ((v >> 8) & 0x00FF00FFu) | ((v & 0x00FF00FFu) << 8);
    v = ((v >> 4) & 0x0F0F0F0Fu) | ((v & 0x0F0F0F0Fu) << 4);
    v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
    v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
    return (int)(v >> (32 - bits));
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
