/* The gather algorithms, in catalog order (native last). */
#include "algo/catalog.h"
#include "algo/entries_issue4.h"

const tc_algo *const tc_gather_entries[] = {
    &tc_gather_binomial,
    &tc_gather_twotier,
    &tc_gather_twotier_sockets,
    &tc_gather_native,
    NULL,
};
