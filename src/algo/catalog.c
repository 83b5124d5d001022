/*
 * The catalog's machinery (the declaration is catalog_tables.c): expands
 * the tables into their concrete instances once, on first use, and resolves
 * names (listed, canonical, or family with parameters; see catalog.h).
 */
#include "algo/catalog.h"
#include "pattern/pattern.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- domains ------------------------------------------------------------------ */

static const struct { unsigned flag; const char *text, *reason; } reqs[] = {
    { TC_REQ_EVEN_P, "even p", "needs an even process count" },
    { TC_REQ_POW2_P, "power-of-two p", "needs a power-of-two process count" },
    { TC_REQ_COMMUTATIVE, "commutative operation", "needs a commutative operation" },
    { TC_REQ_NODE_SHM, "node-shared memory", "the ranks of a node cannot share memory" },
    { TC_REQ_EQUAL_NODES, "equal nodes", "needs nodes with equal numbers of ranks" },
    { TC_REQ_ONE_NODE, "one node", "needs every rank on one node" },
    { TC_REQ_EQUAL_BLOCKS, "equal blocks", "needs equal receive counts (it addresses scratch by block)" },
    { TC_REQ_CMA, "cross-memory attach", "the ranks of a node cannot read each other's buffers "
                                         "(process_vm_readv)" },
};
#define NREQS ((int)(sizeof reqs / sizeof reqs[0]))

/* Per-peer receive counts (allgatherv) that are all a->rcount, packed in
 * rank order; no vectors (the simulator): equal by construction. */
static int equal_blocks(const tc_args *a)
{
    for (int j = 0; a->v && j < a->size; j++)
        if (a->v->rcounts[j] != a->rcount || a->v->rdispls[j] != (int64_t)j * a->rcount) return 0;
    return 1;
}

unsigned tc_req_unmet(unsigned req, const tc_args *a)
{
    unsigned un = 0;
    if ((req & TC_REQ_EVEN_P) && a->size % 2) un |= TC_REQ_EVEN_P;
    if ((req & TC_REQ_POW2_P) && !tc_is_pow2(a->size)) un |= TC_REQ_POW2_P;
    if ((req & TC_REQ_COMMUTATIVE) && !a->commutative) un |= TC_REQ_COMMUTATIVE;
    if ((req & TC_REQ_NODE_SHM) && !a->node_shm) un |= TC_REQ_NODE_SHM;
    if ((req & TC_REQ_EQUAL_BLOCKS) && !equal_blocks(a)) un |= TC_REQ_EQUAL_BLOCKS;
    if ((req & TC_REQ_CMA) && !a->cma) un |= TC_REQ_CMA;
    return un;
}

const char *tc_req_reason(unsigned flag)
{
    for (int i = 0; i < NREQS; i++)
        if (reqs[i].flag == flag) return reqs[i].reason;
    return "";
}

const char *tc_req_text(unsigned req, char *buf, size_t len)
{
    size_t at = 0;
    if (len) buf[0] = 0;
    for (int i = 0; i < NREQS && len; i++)
        if (req & reqs[i].flag) {
            int n = snprintf(buf + at, len - at, "%s%s", at ? ", " : "", reqs[i].text);
            if (n < 0 || (size_t)n >= len - at) break;
            at += (size_t)n;
        }
    return buf;
}

/* ---- instances ---------------------------------------------------------------- */

typedef struct tc_inst {
    tc_algo algo;
    const tc_family *fam;        /* NULL for a flat algorithm */
    int v[TC_FAMILY_MAXPARAMS];
    char alias[40], canonical[128], desc[200], requires[96];
} tc_inst;

static struct { tc_inst *inst; int n; } cat[TOPOCOLL_NCOLL];
static pthread_once_t built = PTHREAD_ONCE_INIT;

static int nvalues(const tc_param_def *d)
{
    int n = 0;
    while (d->values[n]) n++;
    return n;
}

const char *tc_catalog_source(const char *file)
{
    if (!file) return "";
    for (const char *hit = strstr(file, "/src/"); hit; hit = strstr(hit + 1, "/src/")) file = hit + 1;
    return file;
}

static void canonical_name(const tc_family *f, const int *v, char *out, size_t len)
{
    size_t at = (size_t)snprintf(out, len, "%s:", f->name);
    for (int k = 0; k < f->nparams && at < len; k++)
        at += (size_t)snprintf(out + at, len - at, "%s%s=%s", k ? "," : "", f->params[k].key,
                               f->params[k].values[v[k]]);
}

static void fill_common(tc_inst *e)
{
    tc_req_text(e->algo.req, e->requires, sizeof e->requires);
    e->algo.requires = e->requires;
    e->algo.source = tc_catalog_source(e->algo.source);
}

static void add_flat(tc_inst *e, const tc_algo *al)
{
    e->algo = *al;
    e->fam = NULL;
    e->algo.canonical = al->name;
    fill_common(e);
}

static void add_instance(tc_inst *e, const tc_family *f, const int *v)
{
    tc_instance_text txt;
    memset(&txt, 0, sizeof txt);
    txt.source = f->source;
    f->describe(f, v, &txt);
    e->fam = f;
    memcpy(e->v, v, sizeof e->v);
    canonical_name(f, v, e->canonical, sizeof e->canonical);
    snprintf(e->alias, sizeof e->alias, "%s", txt.alias);
    snprintf(e->desc, sizeof e->desc, "%s", txt.desc);
    e->algo = (tc_algo){ .coll = f->coll, .name = e->alias[0] ? e->alias : e->canonical,
                         .desc = e->desc, .req = f->req | (f->req_of ? f->req_of(v) : 0), .generate = f->generate,
                         .param = e->v, .family = f->name, .canonical = e->canonical,
                         .source = txt.source };
    fill_common(e);
}

/* Every valid combination of f, in f's enumeration order; writes them to
 * out (when not NULL) and returns how many. */
static int expand(const tc_family *f, tc_inst *out)
{
    int v[TC_FAMILY_MAXPARAMS] = { 0 }, n = 0, np = f->nparams;
    for (;;) {
        if (!f->invalid || !f->invalid(v)) {
            if (out) add_instance(&out[n], f, v);
            n++;
        }
        int d = np - 1;                        /* odometer, innermost last in order */
        for (; d >= 0; d--) {
            int k = f->order ? f->order[d] : d;
            if (++v[k] < nvalues(&f->params[k])) break;
            v[k] = 0;
        }
        if (d < 0) return n;
    }
}

static int build_coll(topocoll_coll c, tc_inst *out)
{
    const tc_catalog_row *row = tc_catalog_table(c);
    int n = 0;
    for (; row && (row->algo || row->family); row++) {
        if (row->algo) {
            if (out) add_flat(&out[n], row->algo);
            n++;
        } else {
            n += expand(row->family, out ? out + n : NULL);
        }
    }
    return n;
}

static void build(void)
{
    for (int c = 0; c < TOPOCOLL_NCOLL; c++) {
        int n = build_coll((topocoll_coll)c, NULL);
        cat[c].inst = calloc((size_t)n, sizeof *cat[c].inst);
        if (!cat[c].inst) continue;           /* the collective lists nothing */
        cat[c].n = build_coll((topocoll_coll)c, cat[c].inst);
    }
}

static int coll_ok(topocoll_coll coll) { return (int)coll >= 0 && coll < TOPOCOLL_NCOLL; }

int tc_catalog_count(topocoll_coll coll)
{
    if (!coll_ok(coll)) return 0;
    pthread_once(&built, build);
    return cat[coll].n;
}

const tc_algo *tc_catalog_at(topocoll_coll coll, int i)
{
    if (i < 0 || i >= tc_catalog_count(coll)) return NULL;
    return &cat[coll].inst[i].algo;
}

int tc_catalog_family_count(topocoll_coll coll)
{
    int n = 0;
    for (const tc_catalog_row *r = coll_ok(coll) ? tc_catalog_table(coll) : NULL; r && (r->algo || r->family); r++)
        n += r->family != NULL;
    return n;
}

const tc_family *tc_catalog_family_at(topocoll_coll coll, int i)
{
    for (const tc_catalog_row *r = coll_ok(coll) ? tc_catalog_table(coll) : NULL; r && (r->algo || r->family); r++)
        if (r->family && i-- == 0) return r->family;
    return NULL;
}

/* ---- names -------------------------------------------------------------------- */

static int value_index(const tc_param_def *d, const char *val, size_t len)
{
    for (int i = 0; d->values[i]; i++)
        if (strlen(d->values[i]) == len && strncmp(d->values[i], val, len) == 0) return i;
    return -1;
}

static int param_index(const tc_family *f, const char *key, size_t len)
{
    for (int k = 0; k < f->nparams; k++)
        if (strlen(f->params[k].key) == len && strncmp(f->params[k].key, key, len) == 0) return k;
    return -1;
}

static void say(char *why, size_t len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void say(char *why, size_t len, const char *fmt, ...)
{
    if (!why || !len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
}

static void bad_value(const tc_param_def *d, const char *val, int vlen, char *why, size_t len)
{
    char list[128];
    size_t at = 0;
    list[0] = 0;
    for (int i = 0; d->values[i] && at < sizeof list; i++)
        at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", i ? "|" : "", d->values[i]);
    say(why, len, "bad value '%.*s' for %s (%s)", vlen, val, d->key, list);
}

/* "key=value,key=value" into v (defaults first); 0, or -1 with why. */
static int parse_params(const tc_family *f, const char *s, int *v, char *why, size_t len)
{
    int seen[TC_FAMILY_MAXPARAMS] = { 0 };
    for (int k = 0; k < f->nparams; k++) v[k] = f->params[k].def;
    while (*s) {
        size_t item = strcspn(s, ","), klen = strcspn(s, "=,");
        if (klen == item) { say(why, len, "'%.*s' is not key=value", (int)item, s); return -1; }
        int k = param_index(f, s, klen);
        if (k < 0) { say(why, len, "unknown parameter '%.*s' of family %s", (int)klen, s, f->name); return -1; }
        if (seen[k]++) { say(why, len, "parameter '%.*s' given twice", (int)klen, s); return -1; }
        v[k] = value_index(&f->params[k], s + klen + 1, item - klen - 1);
        if (v[k] < 0) { bad_value(&f->params[k], s + klen + 1, (int)(item - klen - 1), why, len); return -1; }
        s += item;
        if (*s == ',' && *++s == 0) { say(why, len, "trailing comma"); return -1; }
    }
    const char *inv = f->invalid ? f->invalid(v) : NULL;
    if (inv) { say(why, len, "invalid combination: %s", inv); return -1; }
    return 0;
}

static const tc_algo *by_family(topocoll_coll coll, const char *name, char *why, size_t len)
{
    size_t flen = strcspn(name, ":");
    for (int i = 0; i < cat[coll].n; i++) {
        const tc_family *f = cat[coll].inst[i].fam;
        if (!f || strlen(f->name) != flen || strncmp(f->name, name, flen)) continue;
        int v[TC_FAMILY_MAXPARAMS] = { 0 };
        if (parse_params(f, name[flen] ? name + flen + 1 : "", v, why, len)) return NULL;
        for (int j = i; j < cat[coll].n; j++)
            if (cat[coll].inst[j].fam == f && !memcmp(cat[coll].inst[j].v, v, sizeof v))
                return &cat[coll].inst[j].algo;
        say(why, len, "no instance");
        return NULL;
    }
    say(why, len, "no algorithm or family '%.*s'", (int)flen, name);
    return NULL;
}

const tc_algo *tc_catalog_resolve(topocoll_coll coll, const char *name, char *why, size_t len)
{
    if (why && len) why[0] = 0;
    if (!name || !tc_catalog_count(coll)) {
        say(why, len, "no name or no such collective");
        return NULL;
    }
    for (int i = 0; i < cat[coll].n; i++) {
        const tc_algo *al = &cat[coll].inst[i].algo;
        if (strcmp(al->name, name) == 0 || strcmp(al->canonical, name) == 0) return al;
    }
    return by_family(coll, name, why, len);
}

const tc_algo *tc_catalog_find(topocoll_coll coll, const char *name)
{
    return tc_catalog_resolve(coll, name, NULL, 0);
}

/* ---- use ---------------------------------------------------------------------- */

const char *tc_algo_family(const tc_algo *al)
{
    if (al->req & TC_REQ_NATIVE) return "native";
    if (al->req & TC_REQ_COMPOSED) return "composed";
    return al->family ? al->family : "flat";
}

int tc_algo_generate(const tc_algo *al, tc_sched *s, const tc_args *a, const tc_topo *t)
{
    tc_args own = *a;
    own.param = al->param;
    return al->generate(s, &own, t);
}

int tc_algo_accepts(const tc_algo *al, const tc_args *a, const tc_topo *t,
                    const char **why)
{
    const char *dummy;
    if (!why) why = &dummy;
    *why = "";
    unsigned un = tc_req_unmet(al->req, a);
    if ((al->req & TC_REQ_EQUAL_NODES) && t)   /* needs the topology: not in tc_req_unmet */
        for (int n = 1; n < t->nnodes; n++)
            if (tc_topo_node_size(t, n) != tc_topo_node_size(t, 0)) un |= TC_REQ_EQUAL_NODES;
    if ((al->req & TC_REQ_ONE_NODE) && t && t->nnodes > 1) un |= TC_REQ_ONE_NODE;
    if (!un) return 1;
    *why = tc_req_reason(un & -un);        /* the first unmet requirement */
    if ((un & -un) == TC_REQ_CMA && a->cma_why) *why = a->cma_why;
    return 0;
}

/* Does p start with a parameter ("key=")? */
static int starts_with_param(const char *p)
{
    size_t n = 0;
    while ((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= '0' && p[n] <= '9') || p[n] == '_') n++;
    return n > 0 && p[n] == '=';
}

size_t tc_catalog_list_item(const char *list)
{
    size_t n = 0;
    int family = 0;
    for (; list[n]; n++) {
        if (list[n] == ':') family = 1;
        if (list[n] == ',' && !(family && starts_with_param(list + n + 1))) break;
    }
    return n;
}
