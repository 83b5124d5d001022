/* The catalog's two levels (src/algo/catalog.h): entries (one per flat
 * algorithm, one per family with its tunables) and variants (an entry with
 * concrete parameter values).
 *   - the entries per collective, against the tables' rows and the expected
 *     counts below;
 *   - the entries partition the variants: each entry's variants are
 *     contiguous, are every valid combination of its family, and go back to
 *     it (tc_catalog_entry_of); its bare name runs its default variant;
 *   - every variant is reached by its listed name, its canonical name and
 *     its parameters in reverse order; a family's former name names it;
 *   - every name of tests/unit/catalog_names.tsv (the listed and canonical
 *     names of every variant before families became entries) resolves, both
 *     names to the same variant, with the recorded listed name and canonical
 *     name (the family and every parameter value), one line per variant and
 *     one variant per line.
 * Ends with "N passed, M failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/catalog.h"
#include "coll/desc.h"
#include "common/harness.h"

/* Entries expected per collective: the rows of catalog_tables.c. */
static const int expected_entries[TOPOCOLL_NCOLL] = {
    [TOPOCOLL_ALLGATHER] = 11, [TOPOCOLL_BCAST] = 8, [TOPOCOLL_SCATTER] = 3, [TOPOCOLL_GATHER] = 3,
    [TOPOCOLL_REDUCE] = 8, [TOPOCOLL_REDUCE_SCATTER_BLOCK] = 3, [TOPOCOLL_ALLTOALL] = 10,
    [TOPOCOLL_ALLTOALLV] = 6, [TOPOCOLL_ALLREDUCE] = 10, [TOPOCOLL_ALLGATHERV] = 9,
    [TOPOCOLL_BARRIER] = 5,
    [TOPOCOLL_REDUCE_SCATTER] = 5,
    [TOPOCOLL_SCAN] = 5, [TOPOCOLL_EXSCAN] = 5,
    [TOPOCOLL_GATHERV] = 4, [TOPOCOLL_SCATTERV] = 4,
    [TOPOCOLL_ALLTOALLW] = 4,
};
#define EXPECTED_ENTRIES_TOTAL 103

static int table_rows(topocoll_coll c)
{
    int n = 0;
    for (const tc_catalog_row *r = tc_catalog_table(c); r && (r->algo || r->family); r++) n++;
    return n;
}

/* Valid combinations of family f (an odometer over its values). */
static int combinations(const tc_family *f)
{
    int v[TC_FAMILY_MAXPARAMS] = { 0 }, n = 0;
    for (;;) {
        n += !f->invalid || !f->invalid(v);
        int k = f->nparams - 1;
        for (; k >= 0; k--) {
            if (f->params[k].values[++v[k]]) break;
            v[k] = 0;
        }
        if (k < 0) return n;
    }
}

/* "family:" then the parameters of canonical in reverse order into out. */
static void reversed(const char *canonical, char *out, size_t len)
{
    const char *colon = strchr(canonical, ':');
    char items[TC_FAMILY_MAXPARAMS][64];
    int n = 0;
    for (const char *p = colon + 1; *p && n < TC_FAMILY_MAXPARAMS; n++) {
        size_t l = strcspn(p, ",");
        snprintf(items[n], sizeof items[n], "%.*s", (int)l, p);
        p += l + (p[l] == ',');
    }
    size_t at = (size_t)snprintf(out, len, "%.*s:", (int)(colon - canonical), canonical);
    for (int k = n - 1; k >= 0 && at < len; k--)
        at += (size_t)snprintf(out + at, len - at, "%s%s", items[k], k ? "," : "");
}

static void check_entries(topocoll_coll c, int *total)
{
    const char *cn = tc_coll_name(c);
    int ne = tc_catalog_entry_count(c), nv = tc_catalog_variant_count(c), next = 0;
    CHECK(ne == table_rows(c), "%s: %d entries, %d table rows", cn, ne, table_rows(c));
    CHECK(ne == expected_entries[c], "%s: %d entries, expected %d", cn, ne, expected_entries[c]);
    CHECK(tc_catalog_entry_at(c, ne) == NULL && tc_catalog_entry_at(c, -1) == NULL, "%s: out of range", cn);
    *total += ne;
    for (int i = 0; i < ne; i++) {
        const tc_entry *e = tc_catalog_entry_at(c, i);
        CHECK(e->first == next && e->nvariants >= 1, "%s %s: variants from %d (expected %d), %d", cn, e->name,
              e->first, next, e->nvariants);
        next = e->first + e->nvariants;
        CHECK(e->nvariants == (e->family ? combinations(e->family) : 1), "%s %s: %d variants", cn, e->name,
              e->nvariants);
        CHECK(tc_catalog_find(c, e->name) == e->def, "%s: bare name %s does not run its default", cn, e->name);
        CHECK(tc_catalog_entry_of(e->def) == e, "%s %s: default variant outside", cn, e->name);
        CHECK(e->family ? e->tunables[0] != 0 : e->tunables[0] == 0, "%s %s: tunables '%s'", cn, e->name,
              e->tunables);
        if (e->family && e->family->former) {   /* the former family name: its parameters fixed */
            char twice[256];
            snprintf(twice, sizeof twice, "%s:%s", e->family->former, e->family->former_params);
            CHECK(tc_catalog_entry_of(tc_catalog_find(c, e->family->former)) == e,
                  "%s: former name %s is not %s", cn, e->family->former, e->name);
            CHECK(tc_catalog_find(c, twice) == NULL, "%s: %s names a parameter twice, yet resolves", cn, twice);
        }
        for (int k = 0; k < e->nvariants; k++) {
            const tc_algo *v = tc_catalog_variant_at(c, e->first + k);
            CHECK(tc_catalog_entry_of(v) == e && tc_catalog_variant_index(v) == e->first + k,
                  "%s %s: variant %d does not go back to its entry", cn, e->name, k);
            CHECK(e->family ? v->family && strcmp(v->family, e->family->name) == 0 : v == e->def,
                  "%s %s: variant %s of another family", cn, e->name, v->name);
        }
    }
    CHECK(next == nv, "%s: the entries hold %d of %d variants", cn, next, nv);
    for (int i = 0; i < nv; i++) {
        const tc_algo *v = tc_catalog_variant_at(c, i);
        char rev[256];
        CHECK(tc_catalog_find(c, v->name) == v, "%s: %s does not resolve to itself", cn, v->name);
        CHECK(tc_catalog_find(c, v->canonical) == v, "%s: %s does not resolve to itself", cn, v->canonical);
        if (!v->family) continue;
        reversed(v->canonical, rev, sizeof rev);
        CHECK(tc_catalog_find(c, rev) == v, "%s: %s (%s) does not resolve to %s", cn, rev, v->canonical, v->name);
    }
}

/* tests/unit/catalog_names.tsv, beside this file (__FILE__ is absolute in
 * the CMake build) or as the first argument. */
static FILE *open_names(int argc, char **argv)
{
    char path[4096];
    if (argc > 1) return fopen(argv[1], "r");
    const char *slash = strrchr(__FILE__, '/');
    snprintf(path, sizeof path, "%.*scatalog_names.tsv", slash ? (int)(slash - __FILE__ + 1) : 0, __FILE__);
    return fopen(path, "r");
}

/* One line: collective, listed name, canonical name[, canonical name now]. */
static void check_line(char *line, unsigned char *seen[TOPOCOLL_NCOLL], int lines[TOPOCOLL_NCOLL])
{
    char *f[4] = { 0 };
    int n = 0;
    for (char *tok = strtok(line, "\t\n"); tok && n < 4; tok = strtok(NULL, "\t\n")) f[n++] = tok;
    int c = n >= 3 ? tc_coll_from_name(f[0]) : -1;
    CHECK(c >= 0, "catalog_names.tsv: bad line '%s'", line);
    if (c < 0) return;
    const char *now = n == 4 ? f[3] : f[2];
    const tc_algo *by_name = tc_catalog_find((topocoll_coll)c, f[1]);
    const tc_algo *by_canonical = tc_catalog_find((topocoll_coll)c, f[2]);
    lines[c]++;
    CHECK(by_name && by_name == by_canonical, "%s: %s and %s do not resolve to one variant", f[0], f[1], f[2]);
    if (!by_name) return;
    CHECK(strcmp(by_name->name, f[1]) == 0, "%s: %s is listed as %s", f[0], f[1], by_name->name);
    CHECK(strcmp(by_name->canonical, now) == 0, "%s: %s is now %s, expected %s", f[0], f[1], by_name->canonical,
          now);
    int i = tc_catalog_variant_index(by_name);
    CHECK(i >= 0 && !seen[c][i]++, "%s: %s names a variant that another line names", f[0], f[1]);
}

int main(int argc, char **argv)
{
    int total = 0;
    for (int c = 0; c < TOPOCOLL_NCOLL; c++) check_entries((topocoll_coll)c, &total);
    CHECK(total == EXPECTED_ENTRIES_TOTAL, "%d entries in all, expected %d", total, EXPECTED_ENTRIES_TOTAL);

    FILE *in = open_names(argc, argv);
    CHECK(in != NULL, "cannot open catalog_names.tsv");
    if (!in) goto done;
    unsigned char *seen[TOPOCOLL_NCOLL];
    int lines[TOPOCOLL_NCOLL] = { 0 }, variants = 0, nlines = 0;
    for (int c = 0; c < TOPOCOLL_NCOLL; c++) {
        seen[c] = calloc((size_t)tc_catalog_variant_count((topocoll_coll)c) + 1, 1);
        variants += tc_catalog_variant_count((topocoll_coll)c);
    }
    char line[512];
    while (fgets(line, sizeof line, in))
        if (line[0] != '#' && line[0] != '\n') check_line(line, seen, lines);
    fclose(in);
    for (int c = 0; c < TOPOCOLL_NCOLL; c++) {
        CHECK(lines[c] == tc_catalog_variant_count((topocoll_coll)c), "%s: %d variants, %d recorded names",
              tc_coll_name((topocoll_coll)c), tc_catalog_variant_count((topocoll_coll)c), lines[c]);
        nlines += lines[c];
        free(seen[c]);
    }
    CHECK(variants == nlines, "%d variants, %d recorded", variants, nlines);
    printf("%d entries, %d variants\n", total, variants);
done:
    return tc_test_summary();
}
