/* The reduce_scatter_block algorithms, in catalog order (native last). */
#include "algo/catalog.h"

const tc_algo *const tc_reduce_scatter_block_entries[] = {
    &tc_reduce_scatter_block_native,
    NULL,
};
