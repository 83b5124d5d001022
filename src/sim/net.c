/*
 * Network specs: "kind:params" dispatch, the shared parameter parsers, the
 * per-node tables, and the generic link/vertex helpers of every model.
 * Errors are one line naming the problem: "network spec 'X': ...".
 * Cost: parsing O(length + nodes); the helpers are O(1) (tier lookup O(tiers)).
 */
#include "sim/net_impl.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QUOTE_MAX 60

/* ---- errors ------------------------------------------------------------------ */

static void quote(char *dst, size_t cap, const char *s)
{
    size_t i = 0;
    for (; s && s[i] && i < QUOTE_MAX && i + 4 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        dst[i] = (c < 0x20 || c >= 0x7f) ? '?' : (char)c;
    }
    dst[i] = '\0';
    if (s && s[i] && i + 4 <= cap) memcpy(dst + i, "...", 4);
}

void *net_fail(const net_errctx *e, const char *fmt, ...)
{
    char q[QUOTE_MAX + 8];
    va_list ap;
    int n;
    if (!e->err || e->errlen == 0) return NULL;
    quote(q, sizeof q, e->spec);
    n = snprintf(e->err, e->errlen, "network spec '%s': ", q);
    if (n < 0 || (size_t)n >= e->errlen) return NULL;
    va_start(ap, fmt);
    vsnprintf(e->err + n, e->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return NULL;
}

/* ---- numbers and parameter lists ----------------------------------------------- */

int net_mul(int64_t a, int64_t b, int64_t limit, int64_t *out)
{
    if (a < 0 || b < 0) return 0;
    if (a != 0 && b > limit / a) return 0;
    if (a * b > limit) return 0;
    *out = a * b;
    return 1;
}

/* Reads a positive decimal int at s (advancing *pos); what names it; in a
 * count list (in_list) an 'x' ends the token quoted in errors. */
static int read_count(const net_errctx *e, const char *s, size_t *pos, const char *what, int in_list, int *out)
{
    size_t i = *pos;
    long long v = 0;
    if (s[i] < '0' || s[i] > '9') {
        char tok[24];
        size_t k = 0;
        while (s[i + k] && s[i + k] != ',' && !(in_list && (s[i + k] == 'x' || s[i + k] == 'X')) &&
               k + 1 < sizeof tok) {
            tok[k] = s[i + k];
            k++;
        }
        tok[k] = '\0';
        net_fail(e, "%s needs a positive integer, found '%s'", what, tok);
        return -1;
    }
    while (s[i] >= '0' && s[i] <= '9') {
        v = v * 10 + (s[i] - '0');
        if (v > INT_MAX) {
            net_fail(e, "%s is too large (limit %d)", what, INT_MAX);
            return -1;
        }
        i++;
    }
    if (v < 1) {
        net_fail(e, "%s must be >= 1", what);
        return -1;
    }
    *pos = i;
    *out = (int)v;
    return 0;
}

int net_parse_counts(const net_errctx *e, const char *params, int n, int *out,
                     const char *const *names, const char *form)
{
    size_t pos = 0;
    int got = 0;
    if (!params[0]) {
        net_fail(e, "expected %s after ':'", form);
        return -1;
    }
    for (;;) {
        if (got == n) {
            net_fail(e, "expected %s (%d counts), found more", form, n);
            return -1;
        }
        char what[48];
        snprintf(what, sizeof what, "%s", names[got]);
        if (read_count(e, params, &pos, what, 1, &out[got]) != 0) return -1;
        got++;
        if (!params[pos]) break;
        if (params[pos] != 'x' && params[pos] != 'X') {
            net_fail(e, "unexpected '%c' after %s (expected %s)", params[pos], names[got - 1], form);
            return -1;
        }
        pos++;
    }
    if (got != n) {
        net_fail(e, "expected %s (%d counts), found %d", form, n, got);
        return -1;
    }
    return 0;
}

static net_key *find_key(net_key *keys, int nkeys, const char *name, size_t len)
{
    for (int i = 0; i < nkeys; i++)
        if (strlen(keys[i].name) == len && strncmp(keys[i].name, name, len) == 0) return &keys[i];
    return NULL;
}

static void key_list(const net_key *keys, int nkeys, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < nkeys && used < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", keys[i].name);
        if (w < 0) break;
        used += (size_t)w;
    }
}

static int read_word(const net_errctx *e, const char *s, size_t *pos, net_key *k)
{
    size_t i = *pos, len = 0;
    while (s[i + len] && s[i + len] != ',') len++;
    for (int w = 0; k->words[w]; w++)
        if (strlen(k->words[w]) == len && strncmp(k->words[w], s + i, len) == 0) {
            k->val = w;
            *pos = i + len;
            return 0;
        }
    char tok[32], allowed[96];
    size_t used = 0;
    snprintf(tok, sizeof tok, "%.*s", (int)(len < 24 ? len : 24), s + i);
    allowed[0] = '\0';
    for (int w = 0; k->words[w] && used < sizeof allowed; w++) {
        int n = snprintf(allowed + used, sizeof allowed - used, "%s%s", w ? " or " : "", k->words[w]);
        if (n < 0) break;
        used += (size_t)n;
    }
    net_fail(e, "unknown value '%s' for '%s' (expected %s)", tok, k->name, allowed);
    return -1;
}

/* One "key=value" at *pos. */
static int parse_one_key(const net_errctx *e, const char *params, size_t *pos, net_key *keys, int nkeys)
{
    size_t i = *pos, len = 0;
    char names[96];
    while (params[i + len] && params[i + len] != '=' && params[i + len] != ',') len++;
    if (len == 0) {
        net_fail(e, "empty parameter at position %zu of '%s'", i, params);
        return -1;
    }
    net_key *k = find_key(keys, nkeys, params + i, len);
    if (!k) {
        key_list(keys, nkeys, names, sizeof names);
        net_fail(e, "unknown parameter '%.*s' (expected %s)", (int)(len < 24 ? len : 24), params + i, names);
        return -1;
    }
    if (params[i + len] != '=') {
        net_fail(e, "parameter '%s' needs a value ('%s=...')", k->name, k->name);
        return -1;
    }
    if (k->seen) {
        net_fail(e, "parameter '%s' given twice", k->name);
        return -1;
    }
    k->seen = 1;
    *pos = i + len + 1;
    char what[48];
    snprintf(what, sizeof what, "'%s'", k->name);
    return k->words ? read_word(e, params, pos, k) : read_count(e, params, pos, what, 0, &k->val);
}

int net_parse_keys(const net_errctx *e, const char *params, net_key *keys, int nkeys)
{
    size_t pos = 0;
    for (int i = 0; i < nkeys; i++) {
        keys[i].seen = 0;
        keys[i].val = keys[i].def;
    }
    while (params[pos]) {
        if (parse_one_key(e, params, &pos, keys, nkeys) != 0) return -1;
        if (params[pos] == ',') {
            pos++;
            if (!params[pos]) {
                net_fail(e, "trailing ',' at the end");
                return -1;
            }
        } else if (params[pos]) {
            net_fail(e, "unexpected '%c' at position %zu of '%s' (expected ',')", params[pos], pos, params);
            return -1;
        }
    }
    for (int i = 0; i < nkeys; i++)
        if (keys[i].required && !keys[i].seen) {
            net_fail(e, "missing parameter '%s='", keys[i].name);
            return -1;
        }
    return 0;
}

/* ---- tables ---------------------------------------------------------------------- */

void net_add_tier(tc_net *n, const char *name, int64_t first, int64_t count)
{
    tc_net_tier *t = &n->tier[n->ntiers++];
    snprintf(t->name, sizeof t->name, "%s", name);
    t->first = (int)first;
    t->count = (int)count;
}

int net_finish(const net_errctx *e, tc_net *n, int64_t nodes, int64_t links, int want_router)
{
    int64_t ranks;
    if (nodes > TC_NET_MAX_RANKS || !net_mul(nodes, n->cpn, TC_NET_MAX_RANKS, &ranks)) {
        net_fail(e, "too many ranks (limit %d)", TC_NET_MAX_RANKS);
        return -1;
    }
    if (links > TC_NET_MAX_LINKS) {
        net_fail(e, "too many links (%lld, limit %d)", (long long)links, TC_NET_MAX_LINKS);
        return -1;
    }
    n->nnodes = (int)nodes;
    n->nlinks = (int)links;
    size_t sz = (size_t)(nodes ? nodes : 1) * sizeof(int);
    n->group_of = malloc(sz);
    n->index_of = malloc(sz);
    n->router_of = want_router ? malloc(sz) : NULL;
    if (!n->group_of || !n->index_of || (want_router && !n->router_of)) {
        net_fail(e, "out of memory for %lld nodes", (long long)nodes);
        return -1;
    }
    return 0;
}

void tc_net_free(tc_net *n)
{
    if (!n) return;
    free(n->group_of);
    free(n->index_of);
    free(n->router_of);
    free(n->gmod);
    free(n);
}

/* ---- dispatch ---------------------------------------------------------------------- */

static const struct {
    const char *name;
    tc_net *(*build)(const net_errctx *, const char *);
} kinds[] = {
    { "twotier", net_build_twotier },
    { "dragonfly", net_build_dragonfly },
    { "switch", net_build_switch },
    { "fattree", net_build_fattree },
};
#define NKINDS ((int)(sizeof kinds / sizeof kinds[0]))

tc_net *tc_net_parse(const char *spec, char *err, size_t errlen)
{
    net_errctx e = { spec ? spec : "", err, errlen };
    if (err && errlen) err[0] = '\0';
    if (!spec || !spec[0]) return net_fail(&e, "empty (expected twotier:SNxNPSxCPN, dragonfly:g=..,a=..,h=.., "
                                               "switch:nodes=.. or fattree:leaves=..,nodes=..,spines=..)");
    const char *colon = strchr(spec, ':');
    size_t klen = colon ? (size_t)(colon - spec) : strlen(spec);
    for (int i = 0; i < NKINDS; i++)
        if (strlen(kinds[i].name) == klen && strncmp(kinds[i].name, spec, klen) == 0) {
            if (!colon) return net_fail(&e, "expected '%s:' followed by its parameters", kinds[i].name);
            return kinds[i].build(&e, colon + 1);
        }
    return net_fail(&e, "unknown network kind '%.*s' (expected twotier, dragonfly, switch or fattree)",
                    (int)(klen < 24 ? klen : 24), spec);
}

/* ---- generic helpers ----------------------------------------------------------------- */

void tc_net_link_ends(const tc_net *n, int link, int *from, int *to)
{
    n->ends(n, link, from, to);
}

const char *tc_net_vertex_name(const tc_net *n, int v, char *buf, size_t len)
{
    if (v < 0 || v >= n->nvertices) snprintf(buf, len, "?%d", v);
    else n->vname(n, v, buf, len);
    return buf;
}

const char *tc_net_link_name(const tc_net *n, int link, char *buf, size_t len)
{
    char a[40], b[40];
    int from, to;
    if (link < 0 || link >= n->nlinks) {
        snprintf(buf, len, "?link%d", link);
        return buf;
    }
    tc_net_link_ends(n, link, &from, &to);
    snprintf(buf, len, "%s %s->%s", n->tier[tc_net_link_tier(n, link)].name,
             tc_net_vertex_name(n, from, a, sizeof a), tc_net_vertex_name(n, to, b, sizeof b));
    return buf;
}

int tc_net_tier_find(const tc_net *n, const char *name)
{
    for (int t = 0; t < n->ntiers; t++)
        if (strcmp(n->tier[t].name, name) == 0) return t;
    return -1;
}
