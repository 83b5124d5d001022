/* The reduce algorithms, in catalog order (native last). */
#include "algo/catalog.h"

const tc_algo *const tc_reduce_entries[] = {
    &tc_reduce_native,
    NULL,
};
