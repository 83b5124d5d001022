/* The bcast algorithms, in catalog order (native last). */
#include "algo/catalog.h"

const tc_algo *const tc_bcast_entries[] = {
    &tc_bcast_native,
    NULL,
};
