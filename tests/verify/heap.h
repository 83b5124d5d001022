/*
 * The verifier sweeps allocate and free every case's label arrays (tens of
 * kilobytes to megabytes per rank) hundreds of thousands of times.  With
 * glibc's default thresholds the heap top is trimmed and large blocks are
 * mapped afresh, so most of that memory comes back from the kernel as new
 * zeroed pages each case.  Keeping freed memory in the heap (no trimming, no
 * separate mappings below 32 MiB) makes the sweeps markedly faster; what
 * they check does not change.  Other allocators (the sanitizers') ignore
 * this.
 */
#ifndef TC_TESTS_VERIFY_HEAP_H
#define TC_TESTS_VERIFY_HEAP_H

#include <stdlib.h>   /* defines __GLIBC__ under glibc */

#if defined(__GLIBC__)
#include <malloc.h>

__attribute__((constructor)) static void verify_heap_setup(void)
{
    /* return values ignored on purpose: a refused setting only costs time */
    (void)mallopt(M_MMAP_THRESHOLD, 32 << 20);
    (void)mallopt(M_TRIM_THRESHOLD, 1 << 30);
    (void)mallopt(M_TOP_PAD, 64 << 20);
}
#endif

#endif
