/* The scatter algorithms, in catalog order (native last). */
#include "algo/catalog.h"
#include "algo/entries_issue4.h"

const tc_algo *const tc_scatter_entries[] = {
    &tc_scatter_binomial,
    &tc_scatter_twotier,
    &tc_scatter_twotier_sockets,
    &tc_scatter_native,
    NULL,
};
