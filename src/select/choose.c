/* Choosing the algorithm of one call (see choose.h). */
#include "select/choose.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "core/config.h"
#include "select/select.h"
#include "select/shm_model.h"

/* Forced names resolve once per configuration (a catalog search per call
 * was a third of topocoll's per-call cost).  The entry is published before
 * the generation that validates it, so a reader that sees the current
 * generation sees its entry; two threads resolving at once store the same. */
static const tc_algo *_Atomic forced_cache[TOPOCOLL_NCOLL];
static _Atomic int forced_unknown[TOPOCOLL_NCOLL];
static _Atomic unsigned forced_gen[TOPOCOLL_NCOLL];   /* 0: never resolved */

const tc_algo *tc_forced_algo(topocoll_coll coll, int *unknown)
{
    const tc_config *cfg = tc_config_get();
    unsigned gen = cfg->generation;
    *unknown = 0;
    if (!cfg->force[coll]) return NULL;
    if (atomic_load_explicit(&forced_gen[coll], memory_order_acquire) == gen) {
        *unknown = atomic_load_explicit(&forced_unknown[coll], memory_order_relaxed);
        return atomic_load_explicit(&forced_cache[coll], memory_order_relaxed);
    }
    const tc_algo *al = tc_catalog_find(coll, cfg->force[coll]);
    *unknown = al == NULL;
    atomic_store_explicit(&forced_cache[coll], al, memory_order_relaxed);
    atomic_store_explicit(&forced_unknown[coll], *unknown, memory_order_relaxed);
    atomic_store_explicit(&forced_gen[coll], gen, memory_order_release);
    return al;
}

/* The table's choice, or the memory model's where it applies: one-node
 * allreduce with the built-in rules in force (no tuning file, or one
 * layered over them; nothing forced) where no rule of either layer serves
 * the call: the built-in allreduce rules cover what the model cannot see
 * (vectors beyond the caches, whose bandwidths it calibrates in cache). */
static const tc_algo *by_table_or_model(const tc_args *a, const tc_topo *t, int64_t bytes,
                                        const tc_shm_model *m, char *why, size_t whylen)
{
    if (m && tc_shm_model_applies(a, t) && tc_select_builtin_in_force()) {
        tc_decision d;
        if (tc_select_by_rules(a, t, bytes, why, whylen, &d)) return d.algo;
        size_t used = why ? strlen(why) : 0;
        return tc_shm_model_select(m, a, t, bytes, why ? why + used : NULL, why ? whylen - used : 0);
    }
    return tc_select(a, t, bytes, why, whylen);
}

tc_choice tc_select_choose(const tc_args *a, const tc_topo *t, int64_t bytes, char *why,
                           size_t whylen)
{
    return tc_select_choose_model(a, t, bytes, NULL, why, whylen);
}

tc_choice tc_select_choose_model(const tc_args *a, const tc_topo *t, int64_t bytes,
                                 const tc_shm_model *m, char *why, size_t whylen)
{
    tc_choice c = { NULL, TC_CHOSEN_BY_TABLE, tc_config_get()->force[a->coll], "" };
    int unknown = 0;
    const tc_algo *forced = tc_forced_algo(a->coll, &unknown);
    if (unknown) {
        c.how = TC_CHOSEN_UNKNOWN_FORCED;
        return c;
    }
    if (forced && tc_algo_accepts(forced, a, t, &c.forced_reason)) {
        c.algo = forced;
        c.how = TC_CHOSEN_FORCED;
        if (why) snprintf(why, whylen, "forced by the environment");
        return c;
    }
    if (!forced) {
        c.algo = by_table_or_model(a, t, bytes, m, why, whylen);
        return c;
    }
    c.how = TC_CHOSEN_FORCED_DECLINED;
    char rest[400];
    c.algo = by_table_or_model(a, t, bytes, m, why ? rest : NULL, sizeof rest);
    if (why) snprintf(why, whylen, "forced %s declined (%s); %s", c.forced, c.forced_reason, rest);
    return c;
}
