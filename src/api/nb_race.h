/*
 * The nonblocking calls' race (nb_race.c): the nonblocking forms of a key's
 * fastest entries timed at the communicator's next blocking collective.
 */
#ifndef TC_API_NB_RACE_H
#define TC_API_NB_RACE_H

#include "api/call.h"

/* A nonblocking call on the full path (by selection, not persistent):
 * counted for its key where it may race; at the patience its record is
 * kept for the next blocking call (local). */
void tc_nb_race_ask(tc_ctx *x, const tc_call *c, const tc_args *a);
/* The calls a key counts before its race (TOPOCOLL_LEARN_PATIENCE, at least 1). */
static inline unsigned tc_nb_race_patience(const tc_config *cfg)
{
    return cfg->learn_patience > 1 ? (unsigned)cfg->learn_patience : 1u;
}
/* A nonblocking call of coll served by the memo: 1 where it should take
 * the full path instead (its key's count reached the patience). */
static inline int tc_nb_race_due(tc_ctx *x, int coll, const tc_config *cfg)
{
    if (x->nb_looked[coll]) return 0;
    if (x->nb_count[coll] + 1 >= tc_nb_race_patience(cfg) && !x->race_want) return 1;   /* (counted there) */
    x->nb_count[coll]++;
    return 0;
}
/* The race asked for, run at the start of a blocking call (collective:
 * every rank's same blocking call). */
void tc_nb_race_run(tc_ctx *x);
/* The key's race winner, or NULL (no race, or none timed). */
const tc_algo *tc_nb_race_winner(tc_ctx *x, const tc_call *c, const tc_args *a);
/* The context's race state dropped (its learners go). */
void tc_nb_race_forget(tc_ctx *x);

#endif
