/*
 * Virtual-topology specs: parse "2x2x2/cyclic", "4x*", "3,1,4/random:7",
 * "2+1,1" (grammar in docs/topology.md), place every rank on a slot with the
 * block, cyclic or random mapping, and build the topology with
 * tc_topo_from_map.  Errors come back as one line naming the problem.
 */
#include "topo/topo.h"

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPEC_MAX_NODES (1 << 24)         /* nodes in a spec */
#define SPEC_MAX_SOCKETS (1 << 24)       /* sockets per node */
#define SPEC_QUOTE_MAX 48                /* characters of input quoted back */
#define SPEC_QUOTE_BUF (SPEC_QUOTE_MAX + 4)

enum { MAP_BLOCK = 0, MAP_CYCLIC = 1, MAP_RANDOM = 2 };
static const char *const map_names[] = { "block", "cyclic", "random" };

#if defined(__GNUC__) || defined(__clang__)
#define SPEC_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define SPEC_PRINTF(a, b)
#endif

typedef struct spec_parser {
    const char *s;      /* the whole spec */
    size_t pos;         /* current byte offset */
    char *err;
    size_t errlen;
    int failed;
    int oom;          /* the failure was an allocation */
} spec_parser;

/* The layout: parsed as NxSxC (product) or a node list, then expanded into
 * its non-empty sockets in slot order (node by node). */
typedef struct spec_layout {
    int product;        /* NxSxC / NxC form: the four fields below */
    uint64_t N, S, C;
    int star;           /* C was '*' */
    uint64_t total;     /* node list: ranks described */
    int nsock;
    int nnodes;
    int cap;
    int *sock_cnt;      /* [nsock] ranks of each socket, >= 1 */
    int *sock_node;     /* [nsock] spec node of each socket, non-decreasing */
} spec_layout;

/* ---- error reporting ------------------------------------------------------ */

/* Copies up to n bytes of s into dst (SPEC_QUOTE_BUF bytes) so the result is
 * printable and short: control and non-ASCII bytes become '?', long input
 * ends in "...". */
static void quote(char *dst, const char *s, size_t n)
{
    size_t i, m = n < SPEC_QUOTE_MAX ? n : SPEC_QUOTE_MAX;
    for (i = 0; i < m && s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        dst[i] = (c < 0x20 || c >= 0x7f) ? '?' : (char)c;
    }
    dst[i] = '\0';
    if (i < n && s[i]) memcpy(dst + i, "...", 4);
}

static void put_msg(char *err, size_t errlen, const char *spec, int colon,
                    const char *fmt, va_list ap)
{
    char q[SPEC_QUOTE_BUF];
    int n;
    if (!err || errlen == 0) return;
    quote(q, spec, (size_t)-1);
    n = snprintf(err, errlen, "topology spec '%s'%s", q, colon ? ": " : " ");
    if (n < 0 || (size_t)n >= errlen) return;
    vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
}

/* Records the first error: "topology spec '<spec>': <message>". */
static SPEC_PRINTF(2, 3) int fail(spec_parser *p, const char *fmt, ...)
{
    va_list ap;
    if (p->failed) return -1;
    p->failed = 1;
    va_start(ap, fmt);
    put_msg(p->err, p->errlen, p->s, 1, fmt, ap);
    va_end(ap);
    return -1;
}

/* An allocation failed (callers tell it apart from a malformed spec). */
static int fail_oom(spec_parser *p)
{
    if (!p->failed) p->oom = 1;
    return fail(p, "out of memory");
}

/* Same, without the colon: "topology spec '<spec>' describes ...". */
static SPEC_PRINTF(2, 3) int fail_raw(spec_parser *p, const char *fmt, ...)
{
    va_list ap;
    if (p->failed) return -1;
    p->failed = 1;
    va_start(ap, fmt);
    put_msg(p->err, p->errlen, p->s, 0, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- lexing ---------------------------------------------------------------- */

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_sep(char c) { return c == 'x' || c == 'X' || c == ',' || c == '+' || c == '/' || c == ':' || c == '*'; }

static void skip_ws(spec_parser *p)
{
    while (is_space(p->s[p->pos])) p->pos++;
}

static char peek(spec_parser *p)
{
    skip_ws(p);
    return p->s[p->pos];
}

/* Length of the token at offset at: one separator, or a run of characters
 * up to whitespace or a separator. */
static size_t token_len(const char *s, size_t at)
{
    size_t n = 0;
    if (is_sep(s[at])) return 1;
    while (s[at + n] && !is_space(s[at + n]) && !is_sep(s[at + n])) n++;
    return n;
}

static int fail_expected(spec_parser *p, const char *what)
{
    char q[SPEC_QUOTE_BUF];
    if (p->s[p->pos] == '\0') return fail(p, "expected a %s at end of spec", what);
    quote(q, p->s + p->pos, token_len(p->s, p->pos));
    return fail(p, "expected a %s at position %zu, found '%s'", what, p->pos, q);
}

/* Parses a decimal number (after optional whitespace) no larger than max. */
static int parse_uint(spec_parser *p, const char *what, uint64_t max, uint64_t *out)
{
    char q[SPEC_QUOTE_BUF];
    size_t start;
    uint64_t v = 0;
    int big = 0;

    skip_ws(p);
    start = p->pos;
    if (p->s[start] == '-' && is_digit(p->s[start + 1])) {
        size_t n = 1;
        while (is_digit(p->s[start + n])) n++;
        quote(q, p->s + start, n);
        return fail(p, "negative %s '%s' at position %zu", what, q, start);
    }
    if (!is_digit(p->s[start])) return fail_expected(p, what);
    for (; is_digit(p->s[p->pos]); p->pos++) {
        uint64_t d = (uint64_t)(p->s[p->pos] - '0');
        if (v > (max - d) / 10) big = 1;
        else v = v * 10 + d;
    }
    if (big) {
        quote(q, p->s + start, p->pos - start);
        return fail(p, "%s '%s' at position %zu is too large (limit %llu)",
                    what, q, start, (unsigned long long)max);
    }
    *out = v;
    return 0;
}

/* A count that may be '*': returns 1 for '*', 0 for a number, -1 on error. */
static int parse_count_or_star(spec_parser *p, const char *what, uint64_t *out)
{
    if (peek(p) == '*') {
        p->pos++;
        *out = 0;
        return 1;
    }
    return parse_uint(p, what, INT_MAX, out);
}

/* ---- layouts --------------------------------------------------------------- */

static void layout_free(spec_layout *L)
{
    free(L->sock_cnt);
    free(L->sock_node);
    L->sock_cnt = L->sock_node = NULL;
    L->nsock = L->nnodes = L->cap = 0;
}

static int layout_reserve(spec_layout *L, size_t want)
{
    size_t cap = L->cap ? (size_t)L->cap : 16;
    int *a, *b;
    if (want <= (size_t)L->cap) return 0;
    if (want > (size_t)INT_MAX) return -1;
    while (cap < want) cap = cap > (size_t)INT_MAX / 2 ? (size_t)INT_MAX : cap * 2;
    a = realloc(L->sock_cnt, cap * sizeof(int));
    if (a) L->sock_cnt = a;
    b = realloc(L->sock_node, cap * sizeof(int));
    if (b) L->sock_node = b;
    if (!a || !b) return -1;
    L->cap = (int)cap;
    return 0;
}

static int layout_push(spec_parser *p, spec_layout *L, int cnt, int node)
{
    if (layout_reserve(L, (size_t)L->nsock + 1) != 0) return fail_oom(p);
    L->sock_cnt[L->nsock] = cnt;
    L->sock_node[L->nsock] = node;
    L->nsock++;
    if (node + 1 > L->nnodes) L->nnodes = node + 1;
    return 0;
}

static int check_total(spec_parser *p, uint64_t total, int size)
{
    if (total == (uint64_t)size) return 0;
    return fail_raw(p, "describes %llu ranks but the communicator has %d",
                    (unsigned long long)total, size);
}

/* N nodes x S sockets x C ranks, or C == '*' spread over the N*S sockets. */
static int build_product(spec_parser *p, spec_layout *L, int size)
{
    uint64_t N = L->N, S = L->S, C = L->C, k, nsock, q = 0, r = 0;
    uint64_t ns = N * S;                   /* N, S <= 2^24: no overflow */
    int star = L->star;

    if (!star) {
        if (C > UINT64_MAX / ns)
            return fail_raw(p, "describes more than 2^64 ranks but the communicator has %d", size);
        if (check_total(p, ns * C, size) != 0) return -1;
        nsock = ns;
    } else {
        q = (uint64_t)size / ns;
        r = (uint64_t)size % ns;
        nsock = q ? ns : r;            /* empty sockets are dropped */
    }
    if (layout_reserve(L, (size_t)nsock) != 0) return fail_oom(p);
    for (k = 0; k < nsock; k++) {
        int cnt = star ? (int)(q + (k < r ? 1 : 0)) : (int)C;
        if (layout_push(p, L, cnt, (int)(k / S)) != 0) return -1;
    }
    return 0;
}

/* After "N x": the rest of the NxSxC or NxC form. */
static int parse_product(spec_parser *p, spec_layout *L, uint64_t N)
{
    uint64_t a = 0, b = 0;
    size_t a_pos;
    int a_star, b_star;

    if (N == 0) return fail(p, "node count must be >= 1");
    if (N > SPEC_MAX_NODES)
        return fail(p, "node count %llu is too large (limit %d)", (unsigned long long)N, SPEC_MAX_NODES);
    p->pos++;                                      /* the 'x' */
    skip_ws(p);
    a_pos = p->pos;
    a_star = parse_count_or_star(p, "socket or rank count", &a);
    if (a_star < 0) return -1;
    if (peek(p) != 'x' && peek(p) != 'X') {        /* N x C */
        if (!a_star && a == 0) return fail(p, "ranks per node must be >= 1");
        b = a;
        b_star = a_star;
        a = 1;
    } else {                                       /* N x S x C */
        if (a_star)
            return fail(p, "'*' is only allowed as the last count (position %zu)", a_pos);
        p->pos++;
        b_star = parse_count_or_star(p, "rank count", &b);
        if (b_star < 0) return -1;
        if (a == 0) return fail(p, "socket count must be >= 1");
        if (a > SPEC_MAX_SOCKETS)
            return fail(p, "socket count %llu is too large (limit %d)", (unsigned long long)a, SPEC_MAX_SOCKETS);
        if (!b_star && b == 0) return fail(p, "ranks per socket must be >= 1");
        if (peek(p) == 'x' || peek(p) == 'X')
            return fail(p, "too many 'x' factors at position %zu (expected NxSxC or NxC)", p->pos);
    }
    if (peek(p) == ',' || peek(p) == '+')
        return fail(p, "'%c' at position %zu: a node list cannot be combined with NxSxC or NxC",
                    p->s[p->pos], p->pos);
    L->product = 1;
    L->N = N;
    L->S = a;
    L->C = b;
    L->star = b_star;
    return 0;
}

/* One rank count of a node list (the first may already be parsed). */
static int nodelist_count(spec_parser *p, size_t at, uint64_t v)
{
    if (v == 0) return fail(p, "rank count must be >= 1 (position %zu)", at);
    return 0;
}

static int parse_nodelist_count(spec_parser *p, uint64_t *v)
{
    size_t at;
    if (peek(p) == '*')
        return fail(p, "'*' at position %zu: only allowed as the last count of NxSxC or NxC", p->pos);
    at = p->pos;
    if (parse_uint(p, "rank count", INT_MAX, v) != 0) return -1;
    return nodelist_count(p, at, *v);
}

/* "3,1,4" or "2+1,1,3+1": nodes separated by ',', sockets by '+'.  The first
 * count (at first_pos) is already parsed. */
static int parse_nodelist(spec_parser *p, spec_layout *L, int size,
                          uint64_t first, size_t first_pos)
{
    uint64_t v = first, total = 0;
    int node = 0, nsock_here = 0;

    if (nodelist_count(p, first_pos, v) != 0) return -1;
    for (;;) {
        total += v;
        if (total > (uint64_t)INT_MAX)
            return fail_raw(p, "describes more than %d ranks but the communicator has %d", INT_MAX, size);
        if (++nsock_here > SPEC_MAX_SOCKETS)
            return fail(p, "node %d has more than %d sockets", node, SPEC_MAX_SOCKETS);
        if (layout_push(p, L, (int)v, node) != 0) return -1;
        if (peek(p) == '+') {
            p->pos++;
        } else if (peek(p) == ',') {
            p->pos++;
            if (++node >= SPEC_MAX_NODES)
                return fail(p, "more than %d nodes", SPEC_MAX_NODES);
            nsock_here = 0;
        } else {
            break;
        }
        if (parse_nodelist_count(p, &v) != 0) return -1;
    }
    L->total = total;
    return 0;
}

static int parse_layout(spec_parser *p, spec_layout *L, int size)
{
    uint64_t first;
    size_t first_pos;

    if (peek(p) == '*')
        return fail(p, "'*' at position %zu: only allowed as the last count of NxSxC or NxC", p->pos);
    first_pos = p->pos;
    if (parse_uint(p, "node or rank count", INT_MAX, &first) != 0) return -1;
    if (peek(p) == 'x' || peek(p) == 'X') return parse_product(p, L, first);
    return parse_nodelist(p, L, size, first, first_pos);
}

/* After the whole spec parsed: check the rank count, expand NxSxC. */
static int finish_layout(spec_parser *p, spec_layout *L, int size)
{
    if (L->product) return build_product(p, L, size);
    return check_total(p, L->total, size);
}

/* ---- mappings ---------------------------------------------------------------- */

static int parse_mapping(spec_parser *p, int *map, uint64_t *seed)
{
    char q[SPEC_QUOTE_BUF];
    size_t at, n = 0;
    int i;

    *map = MAP_BLOCK;
    *seed = 1;
    if (peek(p) != '/') return 0;
    p->pos++;
    skip_ws(p);
    at = p->pos;
    while (p->s[at + n] && !is_space(p->s[at + n]) && p->s[at + n] != ':' && p->s[at + n] != '/') n++;
    if (n == 0) {
        if (p->s[at] == '\0') return fail(p, "missing mapping after '/' (expected block, cyclic or random[:seed])");
        quote(q, p->s + at, 1);
        return fail(p, "missing mapping at position %zu, found '%s' (expected block, cyclic or random[:seed])", at, q);
    }
    for (i = 0; i < 3; i++)
        if (strlen(map_names[i]) == n && strncmp(p->s + at, map_names[i], n) == 0) break;
    quote(q, p->s + at, n);
    if (i == 3)
        return fail(p, "unknown mapping '%s' (expected block, cyclic or random[:seed])", q);
    *map = i;
    p->pos = at + n;
    if (peek(p) != ':') return 0;
    if (*map != MAP_RANDOM)
        return fail(p, "mapping '%s' takes no seed (position %zu)", q, p->pos);
    p->pos++;
    return parse_uint(p, "seed", UINT64_MAX, seed);
}

static int parse_end(spec_parser *p)
{
    char q[SPEC_QUOTE_BUF];
    size_t at;
    if (peek(p) == '\0') return 0;
    at = p->pos;
    quote(q, p->s + at, strlen(p->s + at));
    return fail(p, "trailing characters '%s' at position %zu", q, at);
}

/* Item j of sum(cap) items goes to bin seq[j]: bins in circular order,
 * full ones skipped.  Every cap >= 1; left and next are k ints of scratch. */
static void deal_round_robin(const int *cap, int k, int *left, int *next, int *seq)
{
    int b, j = 0, cur = 0, prev = k - 1, remaining = k;
    for (b = 0; b < k; b++) {
        left[b] = cap[b];
        next[b] = b + 1 < k ? b + 1 : 0;
    }
    while (remaining > 0) {
        seq[j++] = cur;
        if (--left[cur] == 0) {
            remaining--;
            next[prev] = next[cur];
        } else {
            prev = cur;
        }
        cur = next[cur];
    }
}

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Unbiased integer in [0, bound), bound >= 1 (rejects the top 2^64 mod bound). */
static uint64_t uniform_below(uint64_t *state, uint64_t bound)
{
    uint64_t threshold = (0 - bound) % bound;
    for (;;) {
        uint64_t x = splitmix64(state);
        if (x >= threshold) return x % bound;
    }
}

/* block order: slot i holds socket slot_sock[i]. */
static void fill_block(const spec_layout *L, int *slot_sock)
{
    int k, j, i = 0;
    for (k = 0; k < L->nsock; k++)
        for (j = 0; j < L->sock_cnt[k]; j++) slot_sock[i++] = k;
}

static void shuffle(int *a, int n, uint64_t seed)
{
    uint64_t state = seed;
    int i;
    for (i = n - 1; i > 0; i--) {
        int j = (int)uniform_below(&state, (uint64_t)i + 1);
        int tmp = a[i];
        a[i] = a[j];
        a[j] = tmp;
    }
}

/* Per-node summaries of a layout, for the cyclic mapping. */
typedef struct node_info {
    int *cap;        /* [nnodes] ranks of each node */
    int *first;      /* [nnodes + 1] first socket of each node */
    int *off;        /* [nnodes] offset of each node's ranks in sock_seq */
} node_info;

static int node_info_build(const spec_layout *L, node_info *ni)
{
    int k, n, acc = 0;
    ni->cap = calloc((size_t)L->nnodes, sizeof(int));
    ni->first = calloc((size_t)L->nnodes + 1, sizeof(int));
    ni->off = calloc((size_t)L->nnodes, sizeof(int));
    if (!ni->cap || !ni->first || !ni->off) return -1;
    for (k = L->nsock - 1; k >= 0; k--) {
        ni->cap[L->sock_node[k]] += L->sock_cnt[k];
        ni->first[L->sock_node[k]] = k;
    }
    ni->first[L->nnodes] = L->nsock;
    for (n = 0; n < L->nnodes; n++) {
        ni->off[n] = acc;
        acc += ni->cap[n];
    }
    return 0;
}

static void node_info_free(node_info *ni)
{
    free(ni->cap);
    free(ni->first);
    free(ni->off);
}

/* cyclic: ranks round-robin over nodes, then each node's ranks round-robin
 * over its sockets.  rank_sock[i] = socket of rank i. */
static int fill_cyclic(const spec_layout *L, int size, int *rank_sock)
{
    int scratch_n = L->nnodes > L->nsock ? L->nnodes : L->nsock;
    int *left = malloc((size_t)scratch_n * sizeof(int));
    int *next = malloc((size_t)scratch_n * sizeof(int));
    int *node_seq = malloc((size_t)size * sizeof(int));
    int *sock_seq = malloc((size_t)size * sizeof(int));
    node_info ni = { NULL, NULL, NULL };
    int n, i, rc = -1;

    if (!left || !next || !node_seq || !sock_seq || node_info_build(L, &ni) != 0)
        goto out;
    deal_round_robin(ni.cap, L->nnodes, left, next, node_seq);
    for (n = 0; n < L->nnodes; n++)
        deal_round_robin(L->sock_cnt + ni.first[n], ni.first[n + 1] - ni.first[n],
                         left, next, sock_seq + ni.off[n]);
    for (i = 0; i < size; i++) {
        n = node_seq[i];
        rank_sock[i] = ni.first[n] + sock_seq[ni.off[n]++];
    }
    rc = 0;
out:
    node_info_free(&ni);
    free(left);
    free(next);
    free(node_seq);
    free(sock_seq);
    return rc;
}

/* Builds the topology of a parsed layout under a mapping. */
static tc_topo *place(spec_parser *p, const spec_layout *L, int size, int map, uint64_t seed)
{
    int *sock_label = malloc((size_t)size * sizeof(int));
    int *node_label = malloc((size_t)size * sizeof(int));
    tc_topo *t = NULL;
    int i, rc = 0;

    if (sock_label && node_label) {
        if (map == MAP_CYCLIC) {
            rc = fill_cyclic(L, size, sock_label);
        } else {
            fill_block(L, sock_label);
            if (map == MAP_RANDOM) shuffle(sock_label, size, seed);
        }
        if (rc == 0) {
            for (i = 0; i < size; i++) node_label[i] = L->sock_node[sock_label[i]];
            t = tc_topo_from_map(size, node_label, sock_label);
        }
    }
    if (!t) fail_oom(p);
    free(sock_label);
    free(node_label);
    return t;
}

/* "spec <layout without whitespace>/<mapping>[:seed]" */
static void describe(tc_topo *t, const char *spec, size_t layout_end, int map, uint64_t seed)
{
    char layout[192], tail[40];
    size_t i, n = 0;
    int trunc = 0;
    for (i = 0; i < layout_end; i++) {
        if (is_space(spec[i])) continue;
        if (n + 4 >= sizeof layout) { trunc = 1; break; }
        layout[n++] = spec[i];
    }
    layout[n] = '\0';
    if (trunc) memcpy(layout + n, "...", 4);
    if (map == MAP_RANDOM)
        snprintf(tail, sizeof tail, "random:%llu", (unsigned long long)seed);
    else
        snprintf(tail, sizeof tail, "%s", map_names[map]);
    snprintf(t->desc, sizeof t->desc, "spec %s/%s", layout, tail);
}

tc_topo *tc_topo_from_spec(const char *spec, int size, char *err, size_t errlen)
{
    return tc_topo_from_spec_oom(spec, size, err, errlen, NULL);
}

tc_topo *tc_topo_from_spec_oom(const char *spec, int size, char *err, size_t errlen, int *oom)
{
    spec_parser p;
    spec_layout L;
    tc_topo *t = NULL;
    size_t layout_end;
    uint64_t seed;
    int map;

    memset(&L, 0, sizeof L);
    p.s = spec ? spec : "";
    p.pos = 0;
    p.err = err;
    p.errlen = errlen;
    p.failed = 0;
    p.oom = 0;
    if (oom) *oom = 0;
    if (err && errlen) err[0] = '\0';
    if (!spec) { fail(&p, "no spec given"); return NULL; }
    if (peek(&p) == '\0') { fail(&p, "empty spec"); return NULL; }
    if (size < 1) { fail(&p, "communicator size %d must be >= 1", size); return NULL; }
    if (parse_layout(&p, &L, size) == 0) {
        skip_ws(&p);
        layout_end = p.pos;
        if (parse_mapping(&p, &map, &seed) == 0 && parse_end(&p) == 0 &&
            finish_layout(&p, &L, size) == 0) {
            t = place(&p, &L, size, map, seed);
            if (t) describe(t, spec, layout_end, map, seed);
        }
    }
    layout_free(&L);
    if (oom) *oom = p.oom;
    return t;
}
