/* The reduce algorithms, in catalog order (native last). */
#include "algo/catalog.h"
#include "algo/entries_issue4.h"

const tc_algo *const tc_reduce_entries[] = {
    &tc_reduce_binomial,
    &tc_reduce_rabenseifner,
    &tc_reduce_twotier,
    &tc_reduce_twotier_sockets,
    &tc_reduce_native,
    NULL,
};
