/*
 * The catalog's machinery (the declaration is catalog_tables.c): on first
 * use, makes one entry per table row and expands each entry into its
 * variants (a family: one per valid combination of its parameters); resolves
 * names to variants (listed, canonical, family with parameters, or bare
 * entry name; see catalog.h).
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
    { TC_REQ_BLOCK_NODES, "block mapping", "needs every node's ranks consecutive in rank order" },
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

/* ---- entries and variants ------------------------------------------------------- */

typedef struct tc_inst {
    tc_algo algo;
    const tc_family *fam;        /* NULL for a flat algorithm */
    int v[TC_FAMILY_MAXPARAMS];
    int entry;                   /* index of its entry */
    char alias[40], canonical[128], desc[200], requires[96];
} tc_inst;

typedef struct tc_entry_slot {
    tc_entry e;
    char tunables[320];
} tc_entry_slot;

/* Per collective: the variants (inst, n) and the entries (ent, nent). */
static struct { tc_inst *inst; int n; tc_entry_slot *ent; int nent; } cat[TOPOCOLL_NCOLL];
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
                         .cost = f->cost, .param = e->v, .family = f->name, .canonical = e->canonical,
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

/* "key=v1|v2 (default v1), ..." of family f into out. */
static void tunables_text(const tc_family *f, char *out, size_t len)
{
    size_t at = 0;
    out[0] = 0;
    for (int k = 0; k < f->nparams && at < len; k++) {
        const tc_param_def *d = &f->params[k];
        at += (size_t)snprintf(out + at, len - at, "%s%s=", k ? ", " : "", d->key);
        for (int x = 0; d->values[x] && at < len; x++)
            at += (size_t)snprintf(out + at, len - at, "%s%s", x ? "|" : "", d->values[x]);
        if (at < len) at += (size_t)snprintf(out + at, len - at, " (default %s)", d->values[d->def]);
    }
}

/* The variant of entry slot's family with the default of every parameter,
 * or its first variant when the defaults are not a valid combination. */
static const tc_algo *default_variant(const tc_inst *first, int n, const tc_family *f)
{
    int v[TC_FAMILY_MAXPARAMS] = { 0 };
    for (int k = 0; k < f->nparams; k++) v[k] = f->params[k].def;
    for (int j = 0; j < n; j++)
        if (!memcmp(first[j].v, v, sizeof v)) return &first[j].algo;
    return &first[0].algo;
}

/* Entry slot for the row (its variants written at inst[first..]). */
static void add_entry(tc_entry_slot *slot, const tc_catalog_row *row, tc_inst *inst, int first, int n, int index)
{
    for (int j = 0; j < n; j++) inst[first + j].entry = index;
    slot->e = (tc_entry){ .family = row->family, .first = first, .nvariants = n, .tunables = slot->tunables };
    if (row->family) {
        slot->e.name = row->family->name;
        slot->e.desc = row->family->summary;
        slot->e.def = default_variant(inst + first, n, row->family);
        tunables_text(row->family, slot->tunables, sizeof slot->tunables);
    } else {
        slot->e.def = &inst[first].algo;
        slot->e.name = slot->e.def->name;
        slot->e.desc = slot->e.def->desc;
        slot->tunables[0] = 0;
    }
}

/* Fills the variants (out) and entries (ent) of c when not NULL; returns
 * the number of variants and sets *nent. */
static int build_coll(topocoll_coll c, tc_inst *out, tc_entry_slot *ent, int *nent)
{
    const tc_catalog_row *row = tc_catalog_table(c);
    int n = 0, e = 0;
    for (; row && (row->algo || row->family); row++, e++) {
        int first = n;
        if (row->algo) {
            if (out) add_flat(&out[n], row->algo);
            n++;
        } else {
            n += expand(row->family, out ? out + n : NULL);
        }
        if (out && ent && n > first) add_entry(&ent[e], row, out, first, n - first, e);
        if (n == first) e--;                   /* a family without a valid combination lists nothing */
    }
    *nent = e;
    return n;
}

static void build(void)
{
    for (int c = 0; c < TOPOCOLL_NCOLL; c++) {
        int nent = 0, n = build_coll((topocoll_coll)c, NULL, NULL, &nent);
        cat[c].inst = calloc((size_t)n, sizeof *cat[c].inst);
        cat[c].ent = calloc((size_t)nent, sizeof *cat[c].ent);
        if (!cat[c].inst || !cat[c].ent) {    /* the collective lists nothing */
            free(cat[c].inst);
            free(cat[c].ent);
            cat[c].inst = NULL;
            cat[c].ent = NULL;
            continue;
        }
        cat[c].n = build_coll((topocoll_coll)c, cat[c].inst, cat[c].ent, &cat[c].nent);
    }
}

static int coll_ok(topocoll_coll coll) { return (int)coll >= 0 && coll < TOPOCOLL_NCOLL; }

int tc_catalog_variant_count(topocoll_coll coll)
{
    if (!coll_ok(coll)) return 0;
    pthread_once(&built, build);
    return cat[coll].n;
}

const tc_algo *tc_catalog_variant_at(topocoll_coll coll, int i)
{
    if (i < 0 || i >= tc_catalog_variant_count(coll)) return NULL;
    return &cat[coll].inst[i].algo;
}

int tc_catalog_entry_count(topocoll_coll coll)
{
    if (!coll_ok(coll)) return 0;
    pthread_once(&built, build);
    return cat[coll].nent;
}

const tc_entry *tc_catalog_entry_at(topocoll_coll coll, int i)
{
    if (i < 0 || i >= tc_catalog_entry_count(coll)) return NULL;
    return &cat[coll].ent[i].e;
}

int tc_catalog_variant_index(const tc_algo *variant)
{
    int n = variant ? tc_catalog_variant_count(variant->coll) : 0;
    for (int i = 0; i < n; i++)
        if (&cat[variant->coll].inst[i].algo == variant) return i;
    return -1;
}

const tc_entry *tc_catalog_entry_of(const tc_algo *variant)
{
    int i = tc_catalog_variant_index(variant);
    return i < 0 ? NULL : &cat[variant->coll].ent[cat[variant->coll].inst[i].entry].e;
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

/* The parameter list that an old spelling key=value stands for; NULL when
 * it is none of f's (tc_family.legacy). */
static const char *legacy_means(const tc_family *f, const char *key, size_t klen, const char *val, size_t vlen)
{
    for (const tc_legacy_value *l = f->legacy; l && l->key; l++)
        if (strlen(l->key) == klen && !strncmp(l->key, key, klen) && strlen(l->value) == vlen &&
            !strncmp(l->value, val, vlen))
            return l->means;
    return NULL;
}

/* The items of "key=value,key=value" into v; an old spelling expands once
 * (nested: 1 inside one).  0, or -1 with why. */
static int parse_items(const tc_family *f, const char *s, int *v, int *seen, int nested, char *why, size_t len)
{
    while (*s) {
        size_t item = strcspn(s, ","), klen = strcspn(s, "=,");
        if (klen == item) { say(why, len, "'%.*s' is not key=value", (int)item, s); return -1; }
        const char *val = s + klen + 1;
        size_t vlen = item - klen - 1;
        const char *means = nested ? NULL : legacy_means(f, s, klen, val, vlen);
        if (means) {
            if (parse_items(f, means, v, seen, 1, why, len)) return -1;
        } else {
            int k = param_index(f, s, klen);
            if (k < 0) { say(why, len, "unknown parameter '%.*s' of family %s", (int)klen, s, f->name); return -1; }
            if (seen[k]++) { say(why, len, "parameter '%.*s' given twice", (int)klen, s); return -1; }
            v[k] = value_index(&f->params[k], val, vlen);
            if (v[k] < 0) { bad_value(&f->params[k], val, (int)vlen, why, len); return -1; }
        }
        s += item;
        if (*s == ',' && *++s == 0) { say(why, len, "trailing comma"); return -1; }
    }
    return 0;
}

/* "key=value,key=value" into v (defaults first); 0, or -1 with why. */
static int parse_params(const tc_family *f, const char *s, int *v, char *why, size_t len)
{
    int seen[TC_FAMILY_MAXPARAMS] = { 0 };
    for (int k = 0; k < f->nparams; k++) v[k] = f->params[k].def;
    if (parse_items(f, s, v, seen, 0, why, len)) return -1;
    const char *inv = f->invalid ? f->invalid(v) : NULL;
    if (inv) { say(why, len, "invalid combination: %s", inv); return -1; }
    return 0;
}

/* Is the family part of a name (its first flen characters) f's name or
 * f's former name?  The parameters to parse (former_params first) into
 * params. */
static int family_named(const tc_family *f, const char *name, size_t flen, char *params, size_t plen)
{
    const char *rest = name[flen] ? name + flen + 1 : "";
    if (strlen(f->name) == flen && !strncmp(f->name, name, flen)) {
        snprintf(params, plen, "%s", rest);
        return 1;
    }
    if (!f->former || strlen(f->former) != flen || strncmp(f->former, name, flen)) return 0;
    snprintf(params, plen, "%s%s%s", f->former_params, *rest ? "," : "", rest);
    return 1;
}

static const tc_algo *by_family(topocoll_coll coll, const char *name, char *why, size_t len)
{
    size_t flen = strcspn(name, ":");
    char params[256];
    for (int i = 0; i < cat[coll].n; i++) {
        const tc_family *f = cat[coll].inst[i].fam;
        if (!f || !family_named(f, name, flen, params, sizeof params)) continue;
        int v[TC_FAMILY_MAXPARAMS] = { 0 };
        if (parse_params(f, params, v, why, len)) return NULL;
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
    if (!name || !tc_catalog_variant_count(coll)) {
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
    if ((al->req & TC_REQ_BLOCK_NODES) && t && !t->node_order_ident) un |= TC_REQ_BLOCK_NODES;
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
