/*
 * The run summary (TOPOCOLL_STATS): per collective and communicator size,
 * the calls, their bytes, the algorithms that served them, the time spent
 * inside topocoll's calls, and the calls handed to the MPI library.
 *
 * Kept only when TOPOCOLL_STATS is set (tc_config.stats_on): the per-call
 * path tests that flag once and makes no timing call otherwise.  Counters
 * live in one process-wide table updated with atomics (any thread may
 * record); the summary is gathered to rank 0 of MPI_COMM_WORLD once, at
 * MPI_Finalize (the interposer's MPI_Finalize, else the MPI_COMM_SELF
 * attribute callback that frees topocoll's state, before anything is freed).
 */
#ifndef TC_STATS_H
#define TC_STATS_H

#include <mpi.h>
#include <stdint.h>

#include "topocoll_types.h"

/* Why the interposer handed a call to the MPI library untouched. */
typedef enum tc_handed {
    TC_HANDED_INTER = 0,     /* an inter-communicator */
    TC_HANDED_DISABLED,      /* TOPOCOLL_DISABLE=1 */
    TC_HANDED_NREASONS
} tc_handed;

/* A call topocoll served: algo is the catalog name (static storage; "native"
 * when topocoll chose the MPI library's own collective), bytes the call's
 * per-rank size (the explain line's bytes=), ns the time inside topocoll. */
void tc_stats_record(topocoll_coll coll, int comm_size, const char *algo, int64_t bytes, uint64_t ns);
/* A call the interposer handed to the MPI library (nothing when the summary
 * is off). */
void tc_stats_handed(topocoll_coll coll, MPI_Comm comm, tc_handed why);
/* Monotonic clock in nanoseconds (for the timing around a call). */
uint64_t tc_stats_now(void);
/* Gather and print or write the summary: collective over MPI_COMM_WORLD,
 * once per process (later calls return at once); MPI_SUCCESS when off. */
int tc_stats_report(void);

#endif
