/* TOPOCOLL_EXPLAIN output and one-time warnings. */
#ifndef TC_EXPLAIN_H
#define TC_EXPLAIN_H

#include <stdint.h>
#include "api/context.h"

/* Record the algorithm that served a call; print the explain line when
 * TOPOCOLL_EXPLAIN asks for it. */
void tc_explain(const tc_ctx *x, const char *coll, int64_t bytes, const char *algo, const char *why);
/* A forced algorithm declined: say so once per process and name. */
void tc_warn_once(const tc_ctx *x, const char *algo, const char *reason);

#endif
