/* Rule matching and candidate fallback (see select.h). */
#include "select/select.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "pattern/pattern.h"

static tc_table *loaded;
static int load_tried;
/* The candidates of the table in force, looked up in the catalog once
 * rather than by name on every call: resolved[rule * MAX + k]. */
static const tc_table *resolved_for;
static const tc_algo **resolved;

static void resolve(const tc_table *tab)
{
    free(resolved);
    resolved_for = tab;
    resolved = calloc((size_t)tab->nrules * TC_RULE_MAX_CANDIDATES + 1, sizeof *resolved);
    if (!resolved) return;   /* candidate() then looks names up per call */
    for (int i = 0; i < tab->nrules; i++)
        for (int k = 0; k < TC_RULE_MAX_CANDIDATES && tab->rules[i].candidates[k]; k++)
            resolved[i * TC_RULE_MAX_CANDIDATES + k] =
                tc_catalog_find(tab->rules[i].coll, tab->rules[i].candidates[k]);
}

static const tc_algo *candidate(const tc_table *tab, int rule, int k)
{
    if (resolved_for != tab) resolve(tab);
    if (resolved) return resolved[rule * TC_RULE_MAX_CANDIDATES + k];
    return tc_catalog_find(tab->rules[rule].coll, tab->rules[rule].candidates[k]);
}

const tc_table *tc_select_table(void)
{
    if (!load_tried) {
        load_tried = 1;
        const char *path = tc_config_get()->tuning_file;
        if (path) {
            char err[512];
            loaded = tc_table_load(path, err, sizeof err);
            if (!loaded)
                fprintf(stderr, "topocoll: tuning file ignored, using the built-in table: %s\n", err);
        }
    }
    return loaded ? loaded : tc_default_table();
}

void tc_select_finalize(void)
{
    tc_table_free(loaded);
    loaded = NULL;
    free(resolved);
    resolved = NULL;
    resolved_for = NULL;
    load_tried = 0;
}

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

const tc_algo *tc_select(const tc_args *a, const tc_topo *t, int64_t bytes, char *why,
                         size_t whylen)
{
    const tc_table *tab = tc_select_table();
    if (why) why[0] = '\0';
    for (int i = 0; i < tab->nrules; i++) {
        const tc_rule *r = &tab->rules[i];
        if (!matches(r, a, t, bytes)) continue;
        for (int k = 0; k < TC_RULE_MAX_CANDIDATES && r->candidates[k]; k++) {
            const tc_algo *al = candidate(tab, i, k);
            const char *reason = "not in the catalog";
            if (al && tc_algo_accepts(al, a, t, &reason)) {
                if (why) {
                    char rule[96];
                    snprintf(rule, sizeof rule, "%s rule %d", tab->source, i);
                    append(why, whylen, "%s: %s", rule, r->note ? r->note : "");
                }
                return al;
            }
            append(why, whylen, "%s declined (%s); ", r->candidates[k], reason);
        }
    }
    append(why, whylen, "%s%s", "no rule served: native fallback", "");
    return tc_catalog_find(a->coll, "native");
}
