/*
 * Unit tests of the topology object and the spec language: the invariants
 * of tc_topo_from_map on random label sets, exact placements of the block,
 * cyclic and random mappings, '*' spreading, determinism, and one-line
 * errors for malformed specs.  No MPI.  Ends with "N passed, M failed".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo.h"
#include "../common/harness.h"

/* ---- helpers ---------------------------------------------------------------- */

static uint64_t rng_state = 0x1234567u;

static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int cmp_pair(const void *a, const void *b)
{
    const int *x = a, *y = b;
    if (x[0] != y[0]) return (x[0] > y[0]) - (x[0] < y[0]);
    return (x[1] > y[1]) - (x[1] < y[1]);
}

/* CSR offsets: start[0] = 0, start[n] = total, every group non-empty;
 * members increasing inside groups, idx consistent with the member list. */
static const char *check_csr(int size, int ngroups, const int *start, const int *members,
                             const int *group_of, const int *idx)
{
    int g, i, r;
    if (start[0] != 0 || start[ngroups] != size) return "CSR ends";
    for (g = 0; g < ngroups; g++) {
        if (start[g + 1] <= start[g]) return "empty group";
        for (i = start[g]; i < start[g + 1]; i++) {
            if (members[i] < 0 || members[i] >= size) return "member out of range";
            if (group_of[members[i]] != g) return "member of wrong group";
            if (i > start[g] && members[i] <= members[i - 1]) return "members not increasing";
        }
        /* groups numbered by lowest rank is checked by the caller */
    }
    for (r = 0; r < size; r++)
        if (members[start[group_of[r]] + idx[r]] != r) return "idx inconsistent";
    return NULL;
}

/* Same labels <=> same node; same (node label, socket label) <=> same socket. */
static const char *check_partition(const tc_topo *t, const int *nl, const int *sl)
{
    int *keys = malloc(2 * (size_t)(t->nsockets + 1) * sizeof(int));
    const char *why = NULL;
    int n, s, r;

    if (!keys) return "test out of memory";
    for (r = 0; r < t->size && !why; r++) {
        int first = tc_topo_node_members(t, t->node_of[r])[0];
        int sfirst = tc_topo_sock_members(t, t->sock_of[r])[0];
        if (nl[r] != nl[first]) why = "node holds two labels";
        else if (sl[r] != sl[sfirst] || nl[r] != nl[sfirst]) why = "socket holds two labels";
    }
    for (n = 0; n < t->nnodes && !why; n++) keys[n] = nl[tc_topo_node_members(t, n)[0]];
    if (!why) {
        qsort(keys, (size_t)t->nnodes, sizeof(int), cmp_int);
        for (n = 1; n < t->nnodes && !why; n++)
            if (keys[n] == keys[n - 1]) why = "one label split over two nodes";
    }
    for (s = 0; s < t->nsockets && !why; s++) {
        int m = tc_topo_sock_members(t, s)[0];
        keys[2 * s] = nl[m];
        keys[2 * s + 1] = sl[m];
    }
    if (!why) {
        qsort(keys, (size_t)t->nsockets, 2 * sizeof(int), cmp_pair);
        for (s = 1; s < t->nsockets && !why; s++)
            if (keys[2 * s] == keys[2 * s - 2] && keys[2 * s + 1] == keys[2 * s - 1])
                why = "one (node, socket) label split over two sockets";
    }
    free(keys);
    return why;
}

/* Every invariant of topo.h; nl/sl (may be NULL) are the labels it came from. */
static const char *check_invariants(const tc_topo *t, int size, const int *nl, const int *sl)
{
    const char *why;
    int n, s, r;

    if (!t) return "NULL topology";
    if (t->size != size) return "size";
    if (t->nnodes < 1 || t->nsockets < t->nnodes || t->nsockets > size) return "counts";
    for (r = 0; r < size; r++) {
        if (t->node_of[r] < 0 || t->node_of[r] >= t->nnodes) return "node_of range";
        if (t->sock_of[r] < 0 || t->sock_of[r] >= t->nsockets) return "sock_of range";
        if (t->sock_node[t->sock_of[r]] != t->node_of[r]) return "sock_node";
    }
    if ((why = check_csr(size, t->nnodes, t->node_start, t->node_ranks, t->node_of, t->node_idx)))
        return why;
    if ((why = check_csr(size, t->nsockets, t->sock_start, t->sock_ranks, t->sock_of, t->sock_idx)))
        return why;
    for (n = 1; n < t->nnodes; n++)
        if (tc_topo_node_members(t, n)[0] <= tc_topo_node_members(t, n - 1)[0])
            return "nodes not numbered by lowest rank";
    if (t->node_sock_start[0] != 0 || t->node_sock_start[t->nnodes] != t->nsockets)
        return "node_sock_start ends";
    for (n = 0; n < t->nnodes; n++) {
        if (t->node_sock_start[n + 1] <= t->node_sock_start[n]) return "node without socket";
        for (s = t->node_sock_start[n]; s < t->node_sock_start[n + 1]; s++) {
            if (t->sock_node[s] != n) return "socket outside its node's range";
            if (s > t->node_sock_start[n] &&
                tc_topo_sock_members(t, s)[0] <= tc_topo_sock_members(t, s - 1)[0])
                return "sockets not numbered by lowest rank";
        }
    }
    if (nl && sl) return check_partition(t, nl, sl);
    return NULL;
}

static int same_ints(const int *a, const int *b, int n)
{
    return memcmp(a, b, (size_t)n * sizeof(int)) == 0;
}

/* ---- tc_topo_from_map --------------------------------------------------------- */

static void random_labels(int size, int nlabels, int slabels, int *nl, int *sl)
{
    int r;
    for (r = 0; r < size; r++) {
        nl[r] = (int)(rng() % (uint32_t)nlabels) * 7919;   /* sparse, large labels */
        sl[r] = (int)(rng() % (uint32_t)slabels) * 31 + 1000;
    }
}

static void test_map_random(void)
{
    static const int sizes[] = { 1, 2, 3, 5, 8, 17, 64, 100, 257, 1000 };
    int i, iter;
    for (i = 0; i < (int)(sizeof sizes / sizeof sizes[0]); i++) {
        for (iter = 0; iter < 20; iter++) {
            int size = sizes[i];
            int nlab = 1 + (int)(rng() % (uint32_t)size);
            int slab = 1 + (int)(rng() % 5u);
            int *nl = malloc((size_t)size * sizeof(int));
            int *sl = malloc((size_t)size * sizeof(int));
            tc_topo *t, *d;
            const char *why;
            if (!nl || !sl) { CHECK(0, "test out of memory"); free(nl); free(sl); return; }
            random_labels(size, nlab, slab, nl, sl);
            t = tc_topo_from_map(size, nl, sl);
            why = check_invariants(t, size, nl, sl);
            CHECK(why == NULL, "from_map size %d iter %d: %s", size, iter, why);
            d = tc_topo_dup(t);
            why = check_invariants(d, size, nl, sl);
            CHECK(why == NULL && d != t, "dup size %d: %s", size, why ? why : "same pointer");
            if (t && d)
                CHECK(d->nnodes == t->nnodes && d->nsockets == t->nsockets &&
                      same_ints(d->node_of, t->node_of, size) &&
                      same_ints(d->sock_of, t->sock_of, size) &&
                      strcmp(d->desc, t->desc) == 0 && d->node_of != t->node_of,
                      "dup differs from original (size %d)", size);
            tc_topo_free(t);
            tc_topo_free(d);
            free(nl);
            free(sl);
        }
    }
}

static void test_map_exact(void)
{
    /* nodes labelled 9, 4, 9, 2, 4; node 9 has sockets 5, 1, 5 */
    static const int nl[] = { 9, 4, 9, 2, 4, 9 };
    static const int sl[] = { 5, 0, 1, 3, 0, 5 };
    static const int node_of[] = { 0, 1, 0, 2, 1, 0 };
    static const int sock_of[] = { 0, 2, 1, 3, 2, 0 };
    static const int node_idx[] = { 0, 0, 1, 0, 1, 2 };
    static const int sock_idx[] = { 0, 0, 0, 0, 1, 1 };
    tc_topo *t = tc_topo_from_map(6, nl, sl);
    CHECK(check_invariants(t, 6, nl, sl) == NULL, "exact map invariants");
    if (!t) return;
    CHECK(t->nnodes == 3 && t->nsockets == 4, "exact map counts %d %d", t->nnodes, t->nsockets);
    CHECK(same_ints(t->node_of, node_of, 6), "exact map node_of");
    CHECK(same_ints(t->sock_of, sock_of, 6), "exact map sock_of");
    CHECK(same_ints(t->node_idx, node_idx, 6), "exact map node_idx");
    CHECK(same_ints(t->sock_idx, sock_idx, 6), "exact map sock_idx");
    CHECK(t->desc[0] != '\0', "exact map desc empty");
    tc_topo_free(t);
}

static void test_map_bad(void)
{
    static const int ok[] = { 0, 0, 1 };
    static const int neg[] = { 0, -1, 1 };
    tc_topo *t;
    CHECK(tc_topo_from_map(0, ok, ok) == NULL, "size 0 accepted");
    CHECK(tc_topo_from_map(-3, ok, ok) == NULL, "negative size accepted");
    CHECK(tc_topo_from_map(3, NULL, ok) == NULL, "NULL node labels accepted");
    CHECK(tc_topo_from_map(3, ok, NULL) == NULL, "NULL socket labels accepted");
    CHECK(tc_topo_from_map(3, neg, ok) == NULL, "negative node label accepted");
    CHECK(tc_topo_from_map(3, ok, neg) == NULL, "negative socket label accepted");
    CHECK(tc_topo_dup(NULL) == NULL, "dup(NULL)");
    tc_topo_free(NULL);
    t = tc_topo_flat(5);
    CHECK(check_invariants(t, 5, NULL, NULL) == NULL && t && t->nnodes == 1 && t->nsockets == 1,
          "flat(5)");
    CHECK(t && strlen(t->desc) > 0, "flat desc");
    tc_topo_free(t);
    CHECK(tc_topo_flat(0) == NULL, "flat(0)");
}

static void test_map_large(void)
{
    int size = 1 << 18, r;
    int *nl = malloc((size_t)size * sizeof(int));
    int *sl = malloc((size_t)size * sizeof(int));
    tc_topo *t;
    if (!nl || !sl) { CHECK(0, "test out of memory"); free(nl); free(sl); return; }
    for (r = 0; r < size; r++) {           /* 1024 nodes, 4 sockets, scattered */
        nl[r] = (int)(((unsigned)r * 2654435761u) % 1024u) + 5;
        sl[r] = (r / 1024) % 4;
    }
    t = tc_topo_from_map(size, nl, sl);
    CHECK(check_invariants(t, size, nl, sl) == NULL, "large map invariants");
    CHECK(t && t->nnodes == 1024 && t->nsockets == 4096, "large map counts");
    tc_topo_free(t);
    free(nl);
    free(sl);
}

/* ---- specs ------------------------------------------------------------------ */

typedef struct placement {
    const char *spec;
    int size, nnodes, nsockets;
    const char *desc;
    int node_of[16];
    int sock_of[16];
} placement;

static const placement placements[] = {
    { "2x2x2", 8, 2, 4, "spec 2x2x2/block",
      { 0, 0, 0, 0, 1, 1, 1, 1 }, { 0, 0, 1, 1, 2, 2, 3, 3 } },
    { "2x2x2/cyclic", 8, 2, 4, "spec 2x2x2/cyclic",
      { 0, 1, 0, 1, 0, 1, 0, 1 }, { 0, 2, 1, 3, 0, 2, 1, 3 } },
    { " 2 X 2 x 2 / cyclic ", 8, 2, 4, "spec 2X2x2/cyclic",
      { 0, 1, 0, 1, 0, 1, 0, 1 }, { 0, 2, 1, 3, 0, 2, 1, 3 } },
    { "2x2x2/random", 8, 2, 4, "spec 2x2x2/random:1",
      { 0, 1, 1, 0, 0, 0, 1, 1 }, { 0, 2, 2, 1, 0, 1, 3, 3 } },
    { "4x2", 8, 4, 4, "spec 4x2/block",
      { 0, 0, 1, 1, 2, 2, 3, 3 }, { 0, 0, 1, 1, 2, 2, 3, 3 } },
    { "2x3/cyclic", 6, 2, 2, "spec 2x3/cyclic",
      { 0, 1, 0, 1, 0, 1 }, { 0, 1, 0, 1, 0, 1 } },
    { "3,1,4", 8, 3, 3, "spec 3,1,4/block",
      { 0, 0, 0, 1, 2, 2, 2, 2 }, { 0, 0, 0, 1, 2, 2, 2, 2 } },
    { "3,1,4/cyclic", 8, 3, 3, "spec 3,1,4/cyclic",
      { 0, 1, 2, 0, 2, 0, 2, 2 }, { 0, 1, 2, 0, 2, 0, 2, 2 } },
    { "3,1,4/random:7", 8, 3, 3, "spec 3,1,4/random:7",
      { 0, 1, 1, 0, 1, 0, 2, 1 }, { 0, 1, 1, 0, 1, 0, 2, 1 } },
    { "2+1,1", 4, 2, 3, "spec 2+1,1/block",
      { 0, 0, 0, 1 }, { 0, 0, 1, 2 } },
    { "2+1,1/cyclic", 4, 2, 3, "spec 2+1,1/cyclic",
      { 0, 1, 0, 0 }, { 0, 2, 1, 0 } },
    { "2+1,1/random:3", 4, 2, 3, "spec 2+1,1/random:3",
      { 0, 1, 0, 0 }, { 0, 2, 1, 1 } },
    { "2+1,1,3+1/cyclic", 8, 3, 5, "spec 2+1,1,3+1/cyclic",
      { 0, 1, 2, 0, 2, 0, 2, 2 }, { 0, 2, 3, 1, 4, 0, 3, 3 } },
    { "2x2x*", 6, 2, 4, "spec 2x2x*/block",          /* sockets of 2, 2, 1, 1 */
      { 0, 0, 0, 0, 1, 1 }, { 0, 0, 1, 1, 2, 3 } },
    { "2x2x*", 3, 2, 3, "spec 2x2x*/block",          /* last socket dropped */
      { 0, 0, 1 }, { 0, 1, 2 } },
    { "2x2x*/cyclic", 3, 2, 3, "spec 2x2x*/cyclic",
      { 0, 1, 0 }, { 0, 2, 1 } },
    { "2x2x*", 1, 1, 1, "spec 2x2x*/block", { 0 }, { 0 } },   /* node 1 dropped */
    { "3x*", 7, 3, 3, "spec 3x*/block",
      { 0, 0, 0, 1, 1, 2, 2 }, { 0, 0, 0, 1, 1, 2, 2 } },
    { "4x*/cyclic", 2, 2, 2, "spec 4x*/cyclic", { 0, 1 }, { 0, 1 } },
    { "2x3x*/random:11", 10, 2, 6, "spec 2x3x*/random:11",
      { 0, 1, 1, 1, 1, 0, 0, 0, 0, 0 }, { 0, 3, 4, 5, 5, 1, 0, 2, 2, 1 } },
    { "1", 1, 1, 1, "spec 1/block", { 0 }, { 0 } },
};

static void test_placements(void)
{
    char err[256];
    int i;
    for (i = 0; i < (int)(sizeof placements / sizeof placements[0]); i++) {
        const placement *p = &placements[i];
        tc_topo *t = tc_topo_from_spec(p->spec, p->size, err, sizeof err);
        const char *why = check_invariants(t, p->size, NULL, NULL);
        CHECK(why == NULL, "'%s' size %d: %s (%s)", p->spec, p->size, why, t ? "" : err);
        if (!t) continue;
        CHECK(t->nnodes == p->nnodes && t->nsockets == p->nsockets,
              "'%s' size %d: %d nodes %d sockets, expected %d and %d", p->spec, p->size,
              t->nnodes, t->nsockets, p->nnodes, p->nsockets);
        CHECK(same_ints(t->node_of, p->node_of, p->size), "'%s' size %d: node placement", p->spec, p->size);
        CHECK(same_ints(t->sock_of, p->sock_of, p->size), "'%s' size %d: socket placement", p->spec, p->size);
        CHECK(strcmp(t->desc, p->desc) == 0, "'%s': desc '%s', expected '%s'", p->spec, t->desc, p->desc);
        tc_topo_free(t);
    }
}

/* Sorted node sizes of a topology into out (nnodes entries). */
static void node_sizes(const tc_topo *t, int *out)
{
    int n;
    for (n = 0; n < t->nnodes; n++) out[n] = tc_topo_node_size(t, n);
    qsort(out, (size_t)t->nnodes, sizeof(int), cmp_int);
}

static void test_random(void)
{
    char err[256];
    int sa[8], sb[8];
    tc_topo *a = tc_topo_from_spec("8x2x4/random:42", 64, err, sizeof err);
    tc_topo *b = tc_topo_from_spec("8 x 2 x 4 / random : 42", 64, err, sizeof err);
    tc_topo *c = tc_topo_from_spec("8x2x4/random:43", 64, err, sizeof err);
    tc_topo *blk = tc_topo_from_spec("8x2x4", 64, err, sizeof err);
    tc_topo *d1 = tc_topo_from_spec("8x2x4/random", 64, err, sizeof err);
    tc_topo *d2 = tc_topo_from_spec("8x2x4/random:1", 64, err, sizeof err);
    tc_topo *z = tc_topo_from_spec("8x2x4/random:0", 64, err, sizeof err);
    tc_topo *big = tc_topo_from_spec("8x2x4/random:18446744073709551615", 64, err, sizeof err);

    CHECK(a && b && c && blk && d1 && d2 && z && big, "random specs failed: %s", err);
    if (a && b && c && blk && d1 && d2 && z && big) {
        CHECK(same_ints(a->node_of, b->node_of, 64) && same_ints(a->sock_of, b->sock_of, 64),
              "same seed, different placement");
        CHECK(!same_ints(a->sock_of, c->sock_of, 64), "seeds 42 and 43 give the same placement");
        CHECK(!same_ints(a->sock_of, blk->sock_of, 64), "random:42 equals block");
        CHECK(same_ints(d1->sock_of, d2->sock_of, 64), "random != random:1");
        CHECK(check_invariants(a, 64, NULL, NULL) == NULL && a->nnodes == 8 && a->nsockets == 16,
              "random invariants / counts");
        node_sizes(a, sa);
        node_sizes(blk, sb);
        CHECK(same_ints(sa, sb, 8), "random changed the node sizes");
        CHECK(strcmp(big->desc, "spec 8x2x4/random:18446744073709551615") == 0, "desc '%s'", big->desc);
    }
    tc_topo_free(a);
    tc_topo_free(b);
    tc_topo_free(c);
    tc_topo_free(blk);
    tc_topo_free(d1);
    tc_topo_free(d2);
    tc_topo_free(z);
    tc_topo_free(big);
}

/* "*" spreading: socket sizes differ by at most one, earlier sockets bigger. */
static void test_spread(void)
{
    static const char *const specs[] = { "3x4x*", "5x*", "1x7x*", "16x2x*" };
    char err[256];
    int i, size, s;
    for (i = 0; i < 4; i++) {
        for (size = 1; size <= 40; size += 3) {
            tc_topo *t = tc_topo_from_spec(specs[i], size, err, sizeof err);
            int ok = t && check_invariants(t, size, NULL, NULL) == NULL;
            for (s = 1; ok && s < t->nsockets; s++)
                ok = tc_topo_sock_size(t, s) <= tc_topo_sock_size(t, s - 1) &&
                     tc_topo_sock_size(t, 0) - tc_topo_sock_size(t, s) <= 1;
            CHECK(ok, "'%s' size %d spread badly (%s)", specs[i], size, t ? "" : err);
            tc_topo_free(t);
        }
    }
}

static void test_spec_large(void)
{
    char err[256];
    int size = 1 << 18;
    tc_topo *t = tc_topo_from_spec("1000x3x*/cyclic", size, err, sizeof err);
    CHECK(check_invariants(t, size, NULL, NULL) == NULL && t && t->nnodes == 1000 &&
          t->nsockets == 3000, "large cyclic spec: %s", t ? "bad" : err);
    tc_topo_free(t);
    t = tc_topo_from_spec("4x*/random:5", size, err, sizeof err);
    CHECK(check_invariants(t, size, NULL, NULL) == NULL, "large random spec: %s", t ? "bad" : err);
    tc_topo_free(t);
}

/* A long node list: 20000 nodes "1,2,1,2,...". */
static void test_long_nodelist(void)
{
    int nodes = 20000, i, size = 0;
    char *s = malloc((size_t)nodes * 2 + 1), err[256];
    tc_topo *t;
    if (!s) { CHECK(0, "test out of memory"); return; }
    for (i = 0; i < nodes; i++) {
        s[2 * i] = (char)('1' + i % 2);
        s[2 * i + 1] = ',';
        size += 1 + i % 2;
    }
    s[2 * nodes - 1] = '\0';
    t = tc_topo_from_spec(s, size, err, sizeof err);
    CHECK(check_invariants(t, size, NULL, NULL) == NULL && t && t->nnodes == nodes,
          "long node list: %s", t ? "bad" : err);
    CHECK(t && strlen(t->desc) < sizeof t->desc && strncmp(t->desc, "spec 1,2,1,2", 12) == 0,
          "long desc '%s'", t ? t->desc : "");
    tc_topo_free(t);
    t = tc_topo_from_spec(s, size + 1, err, sizeof err);
    CHECK(t == NULL && strchr(err, '\n') == NULL && strstr(err, "describes"),
          "long node list, wrong size: '%s'", err);
    tc_topo_free(t);
    free(s);
}

/* ---- malformed specs ------------------------------------------------------------ */

typedef struct bad_spec {
    const char *spec;
    int size;
    const char *want;     /* substring the message must contain, or NULL */
} bad_spec;

static const bad_spec bad_specs[] = {
    { "", 4, "empty" },
    { "   ", 4, "empty" },
    { "x", 4, "expected" },
    { "2x", 4, "expected" },
    { "2x2x", 4, "expected" },
    { "2xx2", 4, "expected" },
    { "0x2", 4, "node count must be >= 1" },
    { "2x0", 4, "ranks per node must be >= 1" },
    { "2x0x2", 4, "socket count must be >= 1" },
    { "2x2x0", 4, "ranks per socket must be >= 1" },
    { "-2x2", 4, "negative" },
    { "2x-2", 4, "negative" },
    { "2x2x2x2", 16, "too many 'x'" },
    { "2x*x2", 4, "'*'" },
    { "*", 4, "'*'" },
    { "*x2", 4, "'*'" },
    { "3,*", 4, "'*'" },
    { "3,,1", 4, "position 2" },
    { "3,", 3, "at end" },
    { ",3", 3, "position 0" },
    { "3+", 3, "at end" },
    { "3+0", 3, "rank count must be >= 1" },
    { "3,0,4", 7, "rank count must be >= 1" },
    { "2x2x2/", 8, "missing mapping" },
    { "2x2x2/cyc", 8, "unknown mapping 'cyc' (expected block, cyclic or random[:seed])" },
    { "2x2x2/Block", 8, "unknown mapping" },
    { "2x2x2/block:3", 8, "takes no seed" },
    { "2x2x2/random:", 8, "at end" },
    { "2x2x2/random:-1", 8, "negative" },
    { "2x2x2/random:x", 8, "expected a seed" },
    { "2x2x2/random:99999999999999999999999", 8, "too large" },
    { "2x2x2/random:1:2", 8, "trailing characters ':2'" },
    { "2x2x2 zz", 8, "trailing characters 'zz'" },
    { "2x2x2/cyclic extra", 8, "trailing characters 'extra'" },
    { "2x2x2", 6, "describes 8 ranks but the communicator has 6" },
    { "3,1,4", 9, "describes 8 ranks but the communicator has 9" },
    { "2x*", 0, "must be >= 1" },
    { "99999999999x1", 4, "too large" },
    { "4294967296", 4, "too large" },
    { "16777217x1x*", 4, "node count 16777217 is too large" },
    { "1x16777217x*", 4, "socket count 16777217 is too large" },
    { "1x1x2147483648", 4, "too large" },
    { "65536x65536x1", 4, "describes" },
    { "16777216x16777216x2147483647", 4, "describes" },
    { "2x2,2", 4, "node list cannot be combined" },
    { "2x3+1", 4, "node list cannot be combined" },
    { "3.5", 3, "trailing characters '.5'" },
    { "abc", 3, "expected" },
    { "2 2", 4, "trailing" },
    { "/cyclic", 4, "expected" },
    { "\x01\n", 4, NULL },
    { "2x2\n/cyc\x7f", 4, "unknown mapping" },
    { "2x2x2/random:7 /cyclic", 8, "trailing" },
};

static void test_bad_specs(void)
{
    char err[256];
    int i;
    for (i = 0; i < (int)(sizeof bad_specs / sizeof bad_specs[0]); i++) {
        const bad_spec *b = &bad_specs[i];
        tc_topo *t;
        memset(err, 'Z', sizeof err);
        t = tc_topo_from_spec(b->spec, b->size, err, sizeof err);
        CHECK(t == NULL, "bad spec #%d accepted", i);
        tc_topo_free(t);
        CHECK(memchr(err, '\0', sizeof err) != NULL && err[0] != '\0' &&
              strchr(err, '\n') == NULL && strncmp(err, "topology spec '", 15) == 0,
              "bad spec #%d: message '%.256s' is not one line", i, err);
        if (b->want)
            CHECK(strstr(err, b->want) != NULL, "bad spec #%d: '%s' lacks '%s'", i, err, b->want);
    }
}

static void test_err_buffers(void)
{
    char small[12];
    tc_topo *t;
    CHECK(tc_topo_from_spec(NULL, 4, small, sizeof small) == NULL && strlen(small) < sizeof small,
          "NULL spec");
    t = tc_topo_from_spec("2x2x0", 8, small, sizeof small);
    CHECK(t == NULL && strlen(small) == sizeof small - 1, "small buffer: '%s'", small);
    CHECK(tc_topo_from_spec("2x2x0", 8, NULL, 0) == NULL, "NULL err buffer");
    CHECK(tc_topo_from_spec("2x2x0", 8, small, 0) == NULL, "zero-length err buffer");
    t = tc_topo_from_spec("2x2", 4, NULL, 0);
    CHECK(t != NULL, "good spec with NULL err buffer");
    tc_topo_free(t);
    {
        char err[256];
        static const char long_spec[] =
            "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,zz";
        t = tc_topo_from_spec(long_spec, 41, err, sizeof err);
        CHECK(t == NULL && strstr(err, "...") && strstr(err, "'zz'"), "long spec message '%s'", err);
    }
}

int main(void)
{
    test_map_exact();
    test_map_bad();
    test_map_random();
    test_map_large();
    test_placements();
    test_random();
    test_spread();
    test_spec_large();
    test_long_nodelist();
    test_bad_specs();
    test_err_buffers();
    return tc_test_summary();
}
