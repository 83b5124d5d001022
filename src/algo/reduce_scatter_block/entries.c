/* The reduce_scatter_block algorithms, in catalog order (native last). */
#include "algo/catalog.h"
#include "algo/entries_issue4.h"

const tc_algo *const tc_reduce_scatter_block_entries[] = {
    &tc_reduce_scatter_block_pairwise,
    &tc_reduce_scatter_block_twotier,
    &tc_reduce_scatter_block_twotier_sockets,
    &tc_reduce_scatter_block_native,
    NULL,
};
