/* The rule tables in force and their candidates in the catalog (see select.h;
 * the selector that walks them is selector.c). */
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

static void add_layer(selection *s, const tc_table *tab)
{
    s->layer[s->nlayers] = tab;
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
    if (s->loaded) add_layer(s, s->loaded);
    if (!s->loaded || !s->loaded->replace_builtin) add_layer(s, tc_default_table());
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
static const selection fallback = { NULL, { NULL, NULL }, 0, { NULL, NULL } };

static const tc_table *layer_table(const selection *sel, int l)
{
    return sel->nlayers ? sel->layer[l] : tc_default_table();
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

const tc_algo *tc_rule_candidate(const tc_table *tab, int rule, int k)
{
    const selection *sel = selection_or_fallback();
    for (int l = 0; l < sel->nlayers; l++)
        if (sel->layer[l] == tab && sel->resolved[l]) return sel->resolved[l][rule * TC_RULE_MAX_CANDIDATES + k];
    return tc_catalog_find(tab->rules[rule].coll, tab->rules[rule].candidates[k]);
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
int tc_rule_matches(const tc_rule *r, const tc_args *a, const tc_topo *t, int64_t bytes)
{
    return r->coll == a->coll && a->size >= r->min_np && (!r->max_np || a->size <= r->max_np) &&
           t->nnodes >= r->min_nodes && (!r->max_nodes || t->nnodes <= r->max_nodes) &&
           (!r->pow2_only || tc_is_pow2(a->size)) && bytes >= r->min_bytes &&
           (!r->max_bytes || bytes < r->max_bytes) && (!r->real_nodes || !t->virtual_nodes);
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
