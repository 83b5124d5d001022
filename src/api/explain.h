/* TOPOCOLL_EXPLAIN output and one-time warnings. */
#ifndef TC_EXPLAIN_H
#define TC_EXPLAIN_H

#include <stdint.h>
#include "api/context.h"

/* Record the algorithm that served a call; print the explain line when
 * TOPOCOLL_EXPLAIN asks for it. */
void tc_explain(const tc_ctx *x, const char *coll, int64_t bytes, const char *algo, const char *why);
/* Record "native" for a call served without a context (no topology to
 * show) and explain it so, why saying which case. */
void tc_explain_native(const char *coll, int size, int rank, int64_t bytes, const char *why);
/* Record the algorithm that served a call (topocoll_last_algorithm). */
void tc_record_algorithm(const char *algo);
/* A forced algorithm (TOPOCOLL_<COLL>) declined the call, as
 * TOPOCOLL_FALLBACK says: print (default; one line per process and
 * collective, naming both, at rank 0 of comm) or silent, MPI_SUCCESS and
 * another algorithm serves the call; error: the error raised on comm
 * (MPI_ERR_ARG, as a declining algorithm named through the API). */
int tc_forced_declined(const tc_ctx *x, MPI_Comm comm, topocoll_coll coll, const char *algo, const char *reason);

/* Choose the algorithm for a call (src/select/selector.h: forced, the
 * tables, the models, native), explain it, and return MPI_SUCCESS or a
 * raised error (unknown forced name; a declining forced entry under
 * TOPOCOLL_FALLBACK=error). */
int tc_choose(tc_ctx *x, const tc_args *a, int64_t bytes, MPI_Comm comm, const tc_algo **out);
/* The same with the learner's settled choice for the call (NULL: none; it
 * must be agreed by all ranks) and its explain text ("learned: NOTE"; NULL:
 * none): the selector's source "learned", after a forced entry and before
 * the tuning file.  Without a learned choice, a note is added to the
 * selection's explain text ("...; NOTE"). */
int tc_choose_learned(tc_ctx *x, const tc_args *a, int64_t bytes, MPI_Comm comm, const tc_algo *learned,
                      const char *learned_note, const tc_algo **out);

#endif
