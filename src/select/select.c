/* Rule matching and candidate fallback (see select.h). */
#include "select/select.h"

#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <pthread.h>
#include <string.h>

#include "core/config.h"
#include "pattern/pattern.h"
#include "select/cost_model.h"

/* The table in force and its candidates looked up in the catalog
 * (resolved[rule * MAX + k]), built completely and then published with one
 * atomic store, so that every thread sees either nothing (and builds it
 * under the lock) or the whole of it: a thread never sees a candidate as
 * "not in the catalog" because another is still filling the array. */
typedef struct selection {
    tc_table *loaded;            /* the tuning file's table, or NULL */
    const tc_table *table;       /* the table in force */
    const tc_algo **resolved;    /* NULL when memory ran out: names looked up per call */
} selection;

static selection *_Atomic current;
static pthread_mutex_t build_lock = PTHREAD_MUTEX_INITIALIZER;

static const tc_algo **resolve(const tc_table *tab)
{
    const tc_algo **r = calloc((size_t)tab->nrules * TC_RULE_MAX_CANDIDATES + 1, sizeof *r);
    if (!r) return NULL;
    for (int i = 0; i < tab->nrules; i++)
        for (int k = 0; k < TC_RULE_MAX_CANDIDATES && tab->rules[i].candidates[k]; k++)
            r[i * TC_RULE_MAX_CANDIDATES + k] =
                tc_catalog_find(tab->rules[i].coll, tab->rules[i].candidates[k]);
    return r;
}

static selection *build_selection(void)
{
    selection *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    const char *path = tc_config_get()->tuning_file;
    if (path) {
        char err[512];
        s->loaded = tc_table_load(path, err, sizeof err);
        if (!s->loaded)
            fprintf(stderr, "topocoll: tuning file ignored, using the built-in table: %s\n", err);
    }
    s->table = s->loaded ? s->loaded : tc_default_table();
    s->resolved = resolve(s->table);
    return s;
}

/* The selection in force, built exactly once (NULL only when memory ran out). */
static const selection *get_selection(void)
{
    selection *s = atomic_load_explicit(&current, memory_order_acquire);
    if (s) return s;
    if (pthread_mutex_lock(&build_lock) != 0) return NULL;
    s = atomic_load_explicit(&current, memory_order_acquire);
    if (!s && (s = build_selection()) != NULL) atomic_store_explicit(&current, s, memory_order_release);
    (void)pthread_mutex_unlock(&build_lock);
    return s;
}

static const tc_algo *candidate(const selection *sel, int rule, int k)
{
    if (sel && sel->resolved) return sel->resolved[rule * TC_RULE_MAX_CANDIDATES + k];
    const tc_table *tab = sel ? sel->table : tc_default_table();
    return tc_catalog_find(tab->rules[rule].coll, tab->rules[rule].candidates[k]);
}

const tc_table *tc_select_table(void)
{
    const selection *s = get_selection();
    return s ? s->table : tc_default_table();
}

void tc_select_finalize(void)
{
    selection *s = atomic_exchange(&current, NULL);
    if (!s) return;
    tc_model_memo_clear();   /* its keys name the parameters about to be freed */
    tc_table_free(s->loaded);
    free(s->resolved);
    free(s);
}

const char *tc_load_name(int load)
{
    return load == TC_LOAD_OVERSUBSCRIBED ? "oversubscribed" : load == TC_LOAD_DEDICATED ? "dedicated" : "any";
}

int tc_rule_load_ok(const tc_rule *r, int load)
{
    return r->load == TC_LOAD_ANY || load == TC_LOAD_ANY || r->load == load;
}

/* Everything but the load condition (checked apart, so that explain can
 * name the rules it set aside). */
static int matches(const tc_rule *r, const tc_args *a, const tc_topo *t, int64_t bytes)
{
    return r->coll == a->coll && a->size >= r->min_np && (!r->max_np || a->size <= r->max_np) &&
           t->nnodes >= r->min_nodes && (!r->max_nodes || t->nnodes <= r->max_nodes) &&
           (!r->pow2_only || tc_is_pow2(a->size)) && bytes >= r->min_bytes &&
           (!r->max_bytes || bytes < r->max_bytes);
}

static void append(char *buf, size_t len, const char *fmt, const char *s1, const char *s2)
{
    if (!buf) return;
    size_t used = strlen(buf);
    if (used < len) snprintf(buf + used, len - used, fmt, s1, s2);
}

const tc_model_params *tc_select_model(const tc_table *tab)
{
    return tab && tab->model ? tab->model : tc_model_builtin();
}

/* The cost model's choice where no rule served (NULL: native). */
static const tc_algo *model_choice(const tc_table *tab, const tc_args *a, const tc_topo *t,
                                   int64_t bytes, char *why, size_t whylen)
{
    const tc_model_params *mp = tc_select_model(tab);
    tc_model_pick pk = tc_model_choose_memo(mp, a, t, bytes);
    if (!why) return pk.algo;
    char text[200];
    if (pk.algo)
        snprintf(text, sizeof text, "model (%s parameters): predicted %.3gx faster than native; ",
                 mp->source, pk.native_s / pk.algo_s);
    else if (pk.algo_s > 0)
        snprintf(text, sizeof text, "model (%s parameters): best %s predicted %.3gx of native, "
                 "margin %.2g not reached; ", mp->source, pk.best, pk.algo_s / pk.native_s, mp->margin);
    else
        snprintf(text, sizeof text, "model: no formula; ");
    append(why, whylen, "%s%s", text, "");
    return pk.algo;
}

/* A rule that matches but for its load condition: named in the explain
 * text ("measured oversubscribed, set aside: this machine is dedicated"). */
static void note_load_skip(const tc_table *tab, int i, int load, char *why, size_t whylen)
{
    if (!why) return;
    char text[160];
    snprintf(text, sizeof text, "%s rule %d is for %s machines, set aside (this one is %s); ",
             tab->source, i, tc_load_name(tab->rules[i].load), tc_load_name(load));
    append(why, whylen, "%s%s", text, "");
}

/* The explain text of the rule that served: source, index, condition, note. */
static void note_served(const tc_table *tab, int i, char *why, size_t whylen)
{
    if (!why) return;
    const tc_rule *r = &tab->rules[i];
    char rule[160];
    if (r->load != TC_LOAD_ANY)
        snprintf(rule, sizeof rule, "%s rule %d (%s machines)", tab->source, i, tc_load_name(r->load));
    else
        snprintf(rule, sizeof rule, "%s rule %d", tab->source, i);
    append(why, whylen, "%s: %s", rule, r->note ? r->note : "");
}

const tc_algo *tc_select_rule(const tc_args *a, const tc_topo *t, int64_t bytes, char *why,
                              size_t whylen, int *rule)
{
    const selection *sel = get_selection();
    const tc_table *tab = sel ? sel->table : tc_default_table();
    if (why) why[0] = '\0';
    if (rule) *rule = -1;
    for (int i = 0; i < tab->nrules; i++) {
        const tc_rule *r = &tab->rules[i];
        if (!matches(r, a, t, bytes)) continue;
        if (!tc_rule_load_ok(r, a->load)) {
            note_load_skip(tab, i, a->load, why, whylen);
            continue;
        }
        for (int k = 0; k < TC_RULE_MAX_CANDIDATES && r->candidates[k]; k++) {
            const tc_algo *al = candidate(sel, i, k);
            const char *reason = "not in the catalog";
            if (al && tc_algo_accepts(al, a, t, &reason)) {
                note_served(tab, i, why, whylen);
                if (rule) *rule = i;
                return al;
            }
            append(why, whylen, "%s declined (%s); ", r->candidates[k], reason);
        }
    }
    const tc_algo *m = model_choice(tab, a, t, bytes, why, whylen);
    if (m) return m;
    append(why, whylen, "%s%s", "no rule served: native fallback", "");
    return tc_catalog_find(a->coll, "native");
}

const tc_algo *tc_select(const tc_args *a, const tc_topo *t, int64_t bytes, char *why,
                         size_t whylen)
{
    return tc_select_rule(a, t, bytes, why, whylen, NULL);
}
