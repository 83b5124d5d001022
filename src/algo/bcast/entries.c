/* The bcast algorithms, in catalog order (native last). */
#include "algo/catalog.h"
#include "algo/entries_issue4.h"

const tc_algo *const tc_bcast_entries[] = {
    &tc_bcast_binomial,
    &tc_bcast_scatter_allgather,
    &tc_bcast_twotier,
    &tc_bcast_twotier_chunked,
    &tc_bcast_twotier_sockets,
    &tc_bcast_twotier_chunked_sockets,
    &tc_bcast_native,
    NULL,
};
