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
/* After a key's race, its nonblocking calls are counted again where its
 * race may run again (x->nb_watch): at TC_NB_CHECK_FIRST calls, then at
 * twice as many each time, one call takes the full path and asks the next
 * blocking call to compare how the application used the calls since the
 * race with how the race timed them (nb_usage.h; agreed over the
 * communicator), and to race again where any rank's differs. */
#define TC_NB_CHECK_FIRST 128u
#define TC_NB_CHECK_LAST (1u << 20)
/* Every TC_NB_USAGE_EVERY-th nonblocking call of a watched key is sampled
 * (a power of two). */
#define TC_NB_USAGE_EVERY 16u
/* Races again per key, at most. */
#define TC_NB_RERACES_MAX 2

/* A nonblocking call of coll served by the memo: 1 where it should take
 * the full path instead (its key's count reached the patience, or its
 * usage's next comparison). */
static inline int tc_nb_race_due(tc_ctx *x, int coll, const tc_config *cfg)
{
    if (x->nb_looked[coll]) {
        if (!x->nb_watch[coll]) return 0;
        if (x->nb_since[coll] + 1 >= x->nb_check_at[coll] && !x->race_want) return 1;   /* (counted there) */
        x->nb_since[coll]++;
        return 0;
    }
    if (x->nb_count[coll] + 1 >= tc_nb_race_patience(cfg) && !x->race_want) return 1;   /* (counted there) */
    x->nb_count[coll]++;
    return 0;
}
/* Is this nonblocking call of coll (by selection) sampled for how the
 * application uses it (nb_usage.h)?  Every call towards the key's race,
 * every TC_NB_USAGE_EVERY-th of a watched key after it.  Local. */
static inline int tc_nb_race_samples(tc_ctx *x, int coll)
{
    if (!x->nb_looked[coll]) return 1;
    return x->nb_watch[coll] && (++x->nb_tick[coll] & (TC_NB_USAGE_EVERY - 1)) == 0;
}
/* The race asked for, run at the start of a blocking call (collective:
 * every rank's same blocking call). */
void tc_nb_race_run(tc_ctx *x);
/* The key's race winner, or NULL (no race, or none timed). */
const tc_algo *tc_nb_race_winner(tc_ctx *x, const tc_call *c, const tc_args *a);
/* The context's race state dropped (its learners go). */
void tc_nb_race_forget(tc_ctx *x);

#endif
