/*
 * TOPOCOLL_VERIFY_STRIDE=k (k > 1) verifies one case in k: the sanitizer
 * stage of scripts/test.sh runs the sweeps for memory safety on a sample
 * (every case is proven in the plain builds).
 */
#ifndef TC_TESTS_VERIFY_STRIDE_H
#define TC_TESTS_VERIFY_STRIDE_H

#include <stdlib.h>

/* Is the next case left out (TOPOCOLL_VERIFY_STRIDE)? */
static int sweep_skip(void)
{
    static long n;
    static int k;
    if (!k) {
        const char *e = getenv("TOPOCOLL_VERIFY_STRIDE");
        k = e && atoi(e) > 1 ? atoi(e) : 1;
    }
    return n++ % k != 0;
}

#endif
