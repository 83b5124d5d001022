/* The gather algorithms, in catalog order (native last). */
#include "algo/catalog.h"

const tc_algo *const tc_gather_entries[] = {
    &tc_gather_native,
    NULL,
};
