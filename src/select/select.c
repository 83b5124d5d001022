/* Rule matching and candidate fallback (see select.h). */
#include "select/select.h"

#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <pthread.h>
#include <string.h>

#include "coll/desc.h"
#include "core/config.h"
#include "core/fp_env.h"
#include "pattern/pattern.h"
#include "select/cost_model.h"

/* The layers in force (the tuning file's table, then the built-in one;
 * either alone) and their candidates looked up in the catalog
 * (resolved[layer][rule * MAX + k]), built completely and then published
 * with one atomic store, so that every thread sees either nothing (and
 * builds it under the lock) or the whole of it: a thread never sees a
 * candidate as "not in the catalog" because another is still filling the
 * array. */
#define NLAYERS 2
typedef struct selection {
    tc_table *loaded;                    /* the tuning file's table, or NULL */
    const tc_table *layer[NLAYERS];      /* consulted in order */
    tc_layer kind[NLAYERS];
    int nlayers;
    const tc_algo **resolved[NLAYERS];   /* NULL when memory ran out: names looked up per call */
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

static void add_layer(selection *s, const tc_table *tab, tc_layer kind)
{
    s->layer[s->nlayers] = tab;
    s->kind[s->nlayers] = kind;
    s->resolved[s->nlayers] = resolve(tab);
    s->nlayers++;
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
    if (s->loaded) add_layer(s, s->loaded, TC_LAYER_FILE);
    if (!s->loaded || !s->loaded->replace_builtin) add_layer(s, tc_default_table(), TC_LAYER_BUILTIN);
    return s;
}

/* The selection in force, built exactly once (NULL only when memory ran out);
 * in a caller's call, so the tuning file's numbers are read under
 * tc_fp_hold (core/fp_env.h). */
static const selection *get_selection(void)
{
    selection *s = atomic_load_explicit(&current, memory_order_acquire);
    if (s) return s;
    if (pthread_mutex_lock(&build_lock) != 0) return NULL;
    s = atomic_load_explicit(&current, memory_order_acquire);
    if (!s) {
        tc_fp_saved env;
        tc_fp_hold(&env);
        s = build_selection();
        tc_fp_restore(&env);
        if (s) atomic_store_explicit(&current, s, memory_order_release);
    }
    (void)pthread_mutex_unlock(&build_lock);
    return s;
}

/* The built-in layer alone: what serves when memory ran out. */
static const selection fallback = { NULL, { NULL, NULL }, { TC_LAYER_BUILTIN, TC_LAYER_BUILTIN }, 0, { NULL, NULL } };

static const tc_table *layer_table(const selection *sel, int l)
{
    return sel->nlayers ? sel->layer[l] : tc_default_table();
}

static const tc_algo *candidate(const selection *sel, int l, int rule, int k)
{
    if (sel->nlayers && sel->resolved[l]) return sel->resolved[l][rule * TC_RULE_MAX_CANDIDATES + k];
    const tc_table *tab = layer_table(sel, l);
    return tc_catalog_find(tab->rules[rule].coll, tab->rules[rule].candidates[k]);
}

static const selection *selection_or_fallback(void)
{
    const selection *s = get_selection();
    return s ? s : &fallback;
}

const tc_table *tc_select_table(void)
{
    return layer_table(selection_or_fallback(), 0);
}

const tc_table *tc_select_file(void)
{
    return selection_or_fallback()->loaded;
}

int tc_select_builtin_in_force(void)
{
    const tc_table *f = tc_select_file();
    return !f || !f->replace_builtin;
}

const char *tc_layer_name(tc_layer layer)
{
    static const char *const names[] = { "tuning file", "built-in", "model", "native" };
    return layer >= TC_LAYER_FILE && layer <= TC_LAYER_NATIVE ? names[layer] : "?";
}

void tc_select_finalize(void)
{
    selection *s = atomic_exchange(&current, NULL);
    if (!s) return;
    tc_model_memo_clear();   /* its keys name the parameters about to be freed */
    tc_table_free(s->loaded);
    for (int l = 0; l < s->nlayers; l++) free(s->resolved[l]);
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
           (!r->max_bytes || bytes < r->max_bytes) && (!r->real_nodes || !t->virtual_nodes);
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

int tc_select_size_per_rank(topocoll_coll coll)
{
    const tc_coll_desc *d = tc_coll_desc_of(coll);
    return d && d->vcounts && !d->vblock;
}

int tc_select_reads_size(topocoll_coll coll)
{
    const selection *sel = selection_or_fallback();
    int n = sel->nlayers ? sel->nlayers : 1;
    for (int l = 0; l < n; l++) {
        const tc_table *tab = layer_table(sel, l);
        for (int i = 0; i < tab->nrules; i++)
            if (tab->rules[i].coll == coll && (tab->rules[i].min_bytes > 0 || tab->rules[i].max_bytes > 0))
                return 1;
    }
    return 0;
}

/* The cost model's choice where no rule served (NULL: native).  Not for
 * a size that differs between ranks (alltoallv): its formulas there price
 * every entry as native anyway. */
static const tc_algo *model_choice(const tc_table *tab, const tc_args *a, const tc_topo *t,
                                   int64_t bytes, char *why, size_t whylen)
{
    if (tc_select_size_per_rank(a->coll)) {
        append(why, whylen, "%s%s", "model: not for a size that differs between ranks; ", "");
        return NULL;
    }
    const tc_model_params *mp = tc_select_model(tab);
    tc_model_pick pk = tc_model_choose_memo(mp, a, t, bytes);
    if (!why) return pk.algo;
    char text[200];
    tc_fp_saved env;   /* the ratios below: explain text only */
    tc_fp_hold(&env);
    if (pk.algo)
        snprintf(text, sizeof text, "model (%s parameters): predicted %.3gx faster than native; ",
                 mp->source, pk.native_s / pk.algo_s);
    else if (pk.algo_s > 0)
        snprintf(text, sizeof text, "model (%s parameters): best %s predicted %.3gx of native, "
                 "margin %.2g not reached; ", mp->source, pk.best, pk.algo_s / pk.native_s, mp->margin);
    else
        snprintf(text, sizeof text, "model: no formula; ");
    tc_fp_restore(&env);
    append(why, whylen, "%s%s", text, "");
    return pk.algo;
}

/* How the explain text names a layer's table: "built-in", "tuning file PATH". */
static void table_label(const tc_table *tab, tc_layer kind, char *buf, size_t len)
{
    if (kind == TC_LAYER_FILE) snprintf(buf, len, "tuning file %s", tab->source);
    else snprintf(buf, len, "%s", tab->source);
}

/* A rule that matches but for its load condition: named in the explain
 * text ("measured oversubscribed, set aside: this machine is dedicated"). */
static void note_load_skip(const tc_table *tab, tc_layer kind, int i, int load, char *why, size_t whylen)
{
    if (!why) return;
    char label[300], text[400];
    table_label(tab, kind, label, sizeof label);
    snprintf(text, sizeof text, "%s rule %d is for %s machines, set aside (this one is %s); ", label, i,
             tc_load_name(tab->rules[i].load), tc_load_name(load));
    append(why, whylen, "%s%s", text, "");
}

/* The explain text of the rule that served: layer, index, origin,
 * condition, note. */
static void note_served(const tc_table *tab, tc_layer kind, int i, char *why, size_t whylen)
{
    if (!why) return;
    const tc_rule *r = &tab->rules[i];
    char label[300], rule[400], cond[64] = "";
    table_label(tab, kind, label, sizeof label);
    if (r->load != TC_LOAD_ANY) snprintf(cond, sizeof cond, "%s machines", tc_load_name(r->load));
    const char *origin = kind == TC_LAYER_FILE && r->origin ? r->origin : "";
    if (origin[0] || cond[0])
        snprintf(rule, sizeof rule, "%s rule %d (%s%s%s)", label, i, origin, origin[0] && cond[0] ? ", " : "",
                 cond);
    else
        snprintf(rule, sizeof rule, "%s rule %d", label, i);
    append(why, whylen, "%s: %s", rule, r->note ? r->note : "");
}

/* The rules of one layer: the index of the rule that served (*al set), or -1. */
static int by_layer(const selection *sel, int l, const tc_args *a, const tc_topo *t, int64_t bytes,
                    const tc_algo **al, char *why, size_t whylen)
{
    const tc_table *tab = layer_table(sel, l);
    tc_layer kind = sel->nlayers ? sel->kind[l] : TC_LAYER_BUILTIN;
    for (int i = 0; i < tab->nrules; i++) {
        const tc_rule *r = &tab->rules[i];
        if (!matches(r, a, t, bytes)) continue;
        if (!tc_rule_load_ok(r, a->load)) {
            note_load_skip(tab, kind, i, a->load, why, whylen);
            continue;
        }
        for (int k = 0; k < TC_RULE_MAX_CANDIDATES && r->candidates[k]; k++) {
            const tc_algo *c = candidate(sel, l, i, k);
            const char *reason = "not in the catalog";
            if (c && tc_algo_accepts(c, a, t, &reason)) {
                note_served(tab, kind, i, why, whylen);
                *al = c;
                return i;
            }
            append(why, whylen, "%s declined (%s); ", r->candidates[k], reason);
        }
    }
    if (kind == TC_LAYER_FILE) {
        char label[300];
        table_label(tab, kind, label, sizeof label);
        append(why, whylen, "no rule of the %s serves the call%s", label, "; ");
    }
    return -1;
}

int tc_select_by_rules(const tc_args *a, const tc_topo *t, int64_t bytes, char *why, size_t whylen,
                       tc_decision *d)
{
    const selection *sel = selection_or_fallback();
    if (why) why[0] = '\0';
    int n = sel->nlayers ? sel->nlayers : 1;
    for (int l = 0; l < n; l++) {
        const tc_algo *al = NULL;
        int i = by_layer(sel, l, a, t, bytes, &al, why, whylen);
        if (i >= 0) {
            d->algo = al;
            d->layer = sel->nlayers ? sel->kind[l] : TC_LAYER_BUILTIN;
            d->table = layer_table(sel, l);
            d->rule = i;
            return 1;
        }
    }
    return 0;
}

tc_decision tc_select_decide(const tc_args *a, const tc_topo *t, int64_t bytes, char *why, size_t whylen)
{
    tc_decision d = { NULL, TC_LAYER_NATIVE, NULL, -1 };
    if (tc_select_by_rules(a, t, bytes, why, whylen, &d)) return d;
    d.algo = model_choice(tc_select_table(), a, t, bytes, why, whylen);
    if (d.algo) {
        d.layer = TC_LAYER_MODEL;
        return d;
    }
    append(why, whylen, "%s%s", "no rule served: native fallback", "");
    d.algo = tc_catalog_find(a->coll, "native");
    return d;
}

const tc_algo *tc_select_rule(const tc_args *a, const tc_topo *t, int64_t bytes, char *why,
                              size_t whylen, int *rule)
{
    tc_decision d = tc_select_decide(a, t, bytes, why, whylen);
    if (rule) *rule = d.rule;
    return d.algo;
}

const tc_algo *tc_select(const tc_args *a, const tc_topo *t, int64_t bytes, char *why,
                         size_t whylen)
{
    return tc_select_rule(a, t, bytes, why, whylen, NULL);
}
