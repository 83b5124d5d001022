/* The scatter algorithms, in catalog order (native last). */
#include "algo/catalog.h"

const tc_algo *const tc_scatter_entries[] = {
    &tc_scatter_native,
    NULL,
};
