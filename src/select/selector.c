/*
 * The selector (see selector.h): the sources of a decision as one table of
 * functions walked in order, and the learner's candidates.
 */
#include "select/selector.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "coll/desc.h"
#include "core/config.h"
#include "core/fp_env.h"
#include "select/cost_model.h"
#include "select/shm_model.h"

/* ---- explain text ------------------------------------------------------------- */

void tc_why_add(tc_why *why, const char *fmt, ...)
{
    if (!why || !why->buf || why->len == 0) return;
    size_t used = strlen(why->buf);
    if (used + 1 >= why->len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why->buf + used, why->len - used, fmt, ap);
    va_end(ap);
}

static int explaining(const tc_why *why)
{
    return why && why->buf && why->len > 0;
}

const char *tc_source_name(tc_source s)
{
    static const char *const names[TC_NSOURCES] = { "forced", "learned", "tuning file", "built-in", "model",
                                                    "native" };
    return s >= TC_SOURCE_FORCED && s < TC_NSOURCES ? names[s] : "?";
}

/* ---- the forced entry, resolved once per configuration ------------------------- */

/* A catalog search per call was a third of topocoll's per-call cost.  The
 * entry is published before the generation that validates it, so a reader
 * that sees the current generation sees its entry; two threads resolving at
 * once store the same. */
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

tc_select_in tc_select_in_make(const tc_args *a, const tc_topo *t, int64_t bytes)
{
    tc_select_in in = { a, t, bytes, NULL, NULL, NULL, NULL, NULL, NULL, NULL };
    int unknown = 0;
    in.forced_algo = tc_forced_algo(a->coll, &unknown);
    if (in.forced_algo || unknown) in.forced = tc_config_get()->force[a->coll];
    return in;
}

/* ---- the sources ------------------------------------------------------------- */

/* 1. TOPOCOLL_<COLL>. */
static int src_forced(const tc_select_in *in, tc_decision *d, tc_why *why)
{
    if (!in->forced) return 0;
    d->forced = in->forced;
    if (!in->forced_algo) {
        d->forced_how = TC_FORCED_UNKNOWN;
        return 1;
    }
    const char *reason = "";
    if (tc_algo_accepts(in->forced_algo, in->a, in->t, &reason)) {
        d->forced_how = TC_FORCED_SERVED;
        d->algo = in->forced_algo;
        tc_why_add(why, "forced by %s", tc_coll_desc_of(in->a->coll)->env);
        return 1;
    }
    d->forced_how = TC_FORCED_DECLINED;
    d->forced_reason = reason ? reason : "";
    tc_why_add(why, "forced %s declined (%s); ", in->forced, d->forced_reason);
    return 0;
}

/* 2. The learner's settled choice. */
static int src_learned(const tc_select_in *in, tc_decision *d, tc_why *why)
{
    if (!in->learned) return 0;
    const char *reason = "";
    if (!tc_algo_accepts(in->learned, in->a, in->t, &reason)) {
        tc_why_add(why, "learned %s declined (%s); ", in->learned->name, reason ? reason : "");
        return 0;
    }
    d->algo = in->learned;
    if (in->learned_note && in->learned_note[0]) tc_why_add(why, "learned: %s", in->learned_note);
    else tc_why_add(why, "learned");
    return 1;
}

/* How the explain text names a table: "built-in", "tuning file PATH". */
static void table_label(const tc_table *tab, int file, char *buf, size_t len)
{
    if (file) snprintf(buf, len, "tuning file %s", tab->source);
    else snprintf(buf, len, "%s", tab->source);
}

/* A rule that matches but for its load condition ("... rule 3 is for
 * oversubscribed machines, set aside (this one is dedicated); "). */
static void note_load_skip(const tc_table *tab, int file, int i, int load, tc_why *why)
{
    if (!explaining(why)) return;
    char label[300];
    table_label(tab, file, label, sizeof label);
    tc_why_add(why, "%s rule %d is for %s machines, set aside (this one is %s); ", label, i,
               tc_load_name(tab->rules[i].load), tc_load_name(load));
}

/* The rule that served: table, index, origin, condition, note. */
static void note_served(const tc_table *tab, int file, int i, tc_why *why)
{
    if (!explaining(why)) return;
    const tc_rule *r = &tab->rules[i];
    char label[300], cond[64] = "";
    table_label(tab, file, label, sizeof label);
    if (r->load != TC_LOAD_ANY) snprintf(cond, sizeof cond, "%s machines", tc_load_name(r->load));
    const char *origin = file && r->origin ? r->origin : "";
    if (origin[0] || cond[0])
        tc_why_add(why, "%s rule %d (%s%s%s): %s", label, i, origin, origin[0] && cond[0] ? ", " : "", cond,
                   r->note ? r->note : "");
    else
        tc_why_add(why, "%s rule %d: %s", label, i, r->note ? r->note : "");
}

/* The rules of one table, in order: the first matching rule (load
 * condition met) with a candidate that accepts the call decides. */
static int by_rules(const tc_table *tab, tc_source source, const tc_select_in *in, tc_decision *d, tc_why *why)
{
    int file = source == TC_SOURCE_FILE;
    for (int i = 0; i < tab->nrules; i++) {
        const tc_rule *r = &tab->rules[i];
        if (!tc_rule_matches(r, in->a, in->t, in->bytes)) continue;
        if (!tc_rule_load_ok(r, in->a->load)) {
            note_load_skip(tab, file, i, in->a->load, why);
            continue;
        }
        for (int k = 0; k < TC_RULE_MAX_CANDIDATES && r->candidates[k]; k++) {
            const tc_algo *c = tc_rule_candidate(tab, i, k);
            const char *reason = "not in the catalog";
            if (c && tc_algo_accepts(c, in->a, in->t, &reason)) {
                note_served(tab, file, i, why);
                d->algo = c;
                d->table = tab;
                d->rule = i;
                return 1;
            }
            tc_why_add(why, "%s declined (%s); ", r->candidates[k], reason);
        }
    }
    if (file && explaining(why)) {
        char label[300];
        table_label(tab, file, label, sizeof label);
        tc_why_add(why, "no rule of the %s serves the call; ", label);
    }
    return 0;
}

/* 3. The tuning file's rules. */
static int src_file(const tc_select_in *in, tc_decision *d, tc_why *why)
{
    const tc_table *tab = tc_select_file();
    return tab ? by_rules(tab, TC_SOURCE_FILE, in, d, why) : 0;
}

/* 4. The built-in rules, unless the file replaces them. */
static int src_builtin(const tc_select_in *in, tc_decision *d, tc_why *why)
{
    return tc_select_builtin_in_force() ? by_rules(tc_default_table(), TC_SOURCE_BUILTIN, in, d, why) : 0;
}

/* The one-node memory model's domain: a one-node allreduce (its model
 * given, or made now by shm_get) with the built-in rules in force, which
 * cover what it cannot see (vectors beyond the caches, whose bandwidths it
 * calibrates in cache).  The model that serves the call, or NULL. */
static const struct tc_shm_model *shm_model_serving(const tc_select_in *in)
{
    if (!tc_shm_model_applies(in->a, in->t) || !tc_select_builtin_in_force()) return NULL;
    return in->shm || !in->shm_get ? in->shm : in->shm_get(in->shm_arg);
}

/* The cost model's explain text. */
static void note_model(const tc_model_params *mp, const tc_model_pick *pk, tc_why *why)
{
    if (!explaining(why)) return;
    tc_fp_saved env;   /* the ratios: explain text only */
    tc_fp_hold(&env);
    if (pk->algo)
        tc_why_add(why, "model (%s parameters): predicted %.3gx faster than native", mp->source,
                   pk->native_s / pk->algo_s);
    else if (pk->algo_s > 0)
        tc_why_add(why, "model (%s parameters): best %s predicted %.3gx of native, margin %.2g not reached; ",
                   mp->source, pk->best, pk->algo_s / pk->native_s, mp->margin);
    else
        tc_why_add(why, "model: no formula; ");
    tc_fp_restore(&env);
}

/* 5. The memory model where it serves (it always decides: native is among
 * its choices), else the cost model where it predicts a gain over native
 * beyond its margin.  The cost model is not asked for a size that differs
 * between ranks (alltoallv): its formulas there price every entry as
 * native anyway. */
static int src_model(const tc_select_in *in, tc_decision *d, tc_why *why)
{
    const struct tc_shm_model *m = shm_model_serving(in);
    if (m) {
        char text[400] = "";
        d->algo = tc_shm_model_select(m, in->a, in->t, in->bytes, explaining(why) ? text : NULL, sizeof text);
        tc_why_add(why, "%s", text);
        return 1;
    }
    if (tc_select_size_per_rank(in->a->coll)) {
        tc_why_add(why, "model: not for a size that differs between ranks; ");
        return 0;
    }
    const tc_model_params *mp = tc_select_model(tc_select_table());
    tc_model_pick pk = tc_model_choose_memo(mp, in->a, in->t, in->bytes);
    note_model(mp, &pk, why);
    d->algo = pk.algo;
    return pk.algo != NULL;
}

/* 6. Native ends every walk. */
static int src_native(const tc_select_in *in, tc_decision *d, tc_why *why)
{
    d->algo = tc_catalog_find(in->a->coll, "native");
    tc_why_add(why, "no rule served: native fallback");
    return 1;
}

/* The sources in the order they are consulted (indexed by tc_source). */
static const tc_source_fn sources[TC_NSOURCES] = {
    [TC_SOURCE_FORCED] = src_forced,   [TC_SOURCE_LEARNED] = src_learned, [TC_SOURCE_FILE] = src_file,
    [TC_SOURCE_BUILTIN] = src_builtin, [TC_SOURCE_MODEL] = src_model,     [TC_SOURCE_NATIVE] = src_native,
};

tc_decision tc_selector_decide(const tc_select_in *in, tc_why *why)
{
    tc_decision d = { NULL, TC_SOURCE_NATIVE, NULL, -1, TC_FORCED_NONE, NULL, "" };
    if (explaining(why)) why->buf[0] = '\0';
    for (int s = 0; s < TC_NSOURCES; s++) {
        if (sources[s](in, &d, why)) {
            d.source = (tc_source)s;
            return d;
        }
    }
    return d;   /* not reached: native decides */
}

tc_decision tc_select_decide(const tc_args *a, const tc_topo *t, int64_t bytes, char *why, size_t whylen)
{
    tc_select_in in = { a, t, bytes, NULL, NULL, NULL, NULL, NULL, NULL, NULL };
    tc_why w = { why, why ? whylen : 0 };
    return tc_selector_decide(&in, &w);
}

const tc_algo *tc_select_rule(const tc_args *a, const tc_topo *t, int64_t bytes, char *why, size_t whylen,
                              int *rule)
{
    tc_decision d = tc_select_decide(a, t, bytes, why, whylen);
    if (rule) *rule = d.rule;
    return d.algo;
}

const tc_algo *tc_select(const tc_args *a, const tc_topo *t, int64_t bytes, char *why, size_t whylen)
{
    return tc_select_rule(a, t, bytes, why, whylen, NULL);
}

/* ---- the learner's candidates --------------------------------------------------- */

typedef struct cand_list {
    const tc_algo **out;
    int n, max;
    const tc_algo *native;
    const tc_select_in *in;
} cand_list;

static int listed(const cand_list *l, const tc_algo *al)
{
    for (int i = 0; i < l->n; i++)
        if (l->out[i] == al || strcmp(l->out[i]->name, al->name) == 0) return 1;
    return 0;
}

/* Add al when it accepts the call and is not listed; the last slot is kept
 * for native until native is listed. */
static void cand_add(cand_list *l, const tc_algo *al)
{
    if (!al || listed(l, al)) return;
    int native_kept = al == l->native || !l->native || listed(l, l->native);
    int room = l->max - (native_kept ? 0 : 1);
    if (l->n >= room) return;
    const char *reason = NULL;
    if (!tc_algo_accepts(al, l->in->a, l->in->t, &reason)) return;
    l->out[l->n++] = al;
}

/* The accepting candidates of the rule of tab that serves the call (the
 * first matching one, load condition met, with an accepting candidate). */
static void cand_rules(cand_list *l, const tc_table *tab)
{
    const tc_select_in *in = l->in;
    for (int i = 0; i < tab->nrules; i++) {
        const tc_rule *r = &tab->rules[i];
        if (!tc_rule_matches(r, in->a, in->t, in->bytes) || !tc_rule_load_ok(r, in->a->load)) continue;
        int served = 0;
        for (int k = 0; k < TC_RULE_MAX_CANDIDATES && r->candidates[k]; k++) {
            const tc_algo *c = tc_rule_candidate(tab, i, k);
            const char *reason = NULL;
            if (!c || !tc_algo_accepts(c, in->a, in->t, &reason)) continue;
            served = 1;
            cand_add(l, c);
        }
        if (served) return;
    }
}

int tc_select_candidates_in(const tc_select_in *in, const tc_algo **out, int max)
{
    if (!in || !in->a || !in->t || !out || max < 1) return 0;
    cand_list l = { out, 0, max, tc_catalog_find(in->a->coll, "native"), in };
    /* the rules' choice and the other accepting candidates of its rule */
    const tc_table *file = tc_select_file();
    if (file) cand_rules(&l, file);
    if (tc_select_builtin_in_force()) cand_rules(&l, tc_default_table());
    /* the cost model's best few; where the size differs between ranks
     * (the model prices none of them), every entry that accepts the call,
     * in catalog order: only their timings can tell */
    if (!tc_select_size_per_rank(in->a->coll)) {
        const tc_algo *ranked[TC_SELECT_MODEL_FEW];
        int n = tc_model_rank(tc_select_model(tc_select_table()), in->a, in->t, in->bytes, ranked, NULL,
                              TC_SELECT_MODEL_FEW);
        for (int i = 0; i < n; i++) cand_add(&l, ranked[i]);
    } else {
        for (int i = 0; i < tc_catalog_entry_count(in->a->coll); i++) {
            const tc_entry *e = tc_catalog_entry_at(in->a->coll, i);
            const char *why;
            if (e && e->def && e->def->generate && !(e->def->req & TC_REQ_NATIVE) &&
                tc_algo_accepts(e->def, in->a, in->t, &why))
                cand_add(&l, e->def);
        }
    }
    /* the one-node memory model's pick */
    if (tc_shm_model_applies(in->a, in->t)) {
        tc_shm_model defaults;
        const tc_shm_model *m = in->shm;
        if (!m) {
            tc_shm_model_defaults(&defaults);
            m = &defaults;
        }
        cand_add(&l, tc_shm_model_select(m, in->a, in->t, in->bytes, NULL, 0));
    }
    /* the entries the cost model cannot price (the node-shared ones on one
     * node, the member-set rounds), at their defaults, in catalog order:
     * only their timings can tell */
    for (int i = 0; i < tc_catalog_entry_count(in->a->coll); i++) {
        const tc_entry *e = tc_catalog_entry_at(in->a->coll, i);
        if (e && e->def && !e->def->cost && !(e->def->req & TC_REQ_NATIVE)) cand_add(&l, e->def);
    }
    cand_add(&l, l.native);
    return l.n;
}

int tc_select_candidates(const tc_args *a, const tc_topo *t, int64_t bytes, const tc_algo **out, int max)
{
    if (!a || !t) return 0;
    tc_select_in in = { a, t, bytes, NULL, NULL, NULL, NULL, NULL, NULL, NULL };
    return tc_select_candidates_in(&in, out, max);
}
