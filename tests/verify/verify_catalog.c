/* The catalog's names and declarations, for every collective: every
 * instance resolves by its listed and its canonical name (and nothing else
 * shares them); a family instance resolves with its parameters in any order
 * and with defaults left out; malformed names are not found and say why;
 * the legacy short names still resolve; every entry declares a source file
 * and requirement text consistent with its flags.  No MPI.  Ends with
 * "N passed, M failed". */
#include <stdio.h>
#include <string.h>

#include "algo/catalog.h"
#include "common/harness.h"

static void check_instance(const tc_algo *al)
{
    const char *cn = tc_coll_name(al->coll);
    char req[128];
    CHECK(tc_catalog_find(al->coll, al->name) == al, "%s: '%s' does not resolve to itself", cn, al->name);
    CHECK(al->canonical && tc_catalog_find(al->coll, al->canonical) == al, "%s/%s: canonical '%s'", cn,
          al->name, al->canonical ? al->canonical : "(none)");
    CHECK(al->source && strncmp(al->source, "src/algo/", 9) == 0 && strstr(al->source, ".c"),
          "%s/%s: source '%s'", cn, al->name, al->source ? al->source : "(none)");
    CHECK(strcmp(al->requires, tc_req_text(al->req, req, sizeof req)) == 0, "%s/%s: requires '%s' vs '%s'",
          cn, al->name, al->requires, req);
    if (al->family) {
        size_t n = strlen(al->family);
        CHECK(strncmp(al->canonical, al->family, n) == 0 && al->canonical[n] == ':',
              "%s/%s: canonical '%s' not in family %s", cn, al->name, al->canonical, al->family);
        CHECK(strcmp(tc_algo_family(al), al->family) == 0, "%s/%s: family", cn, al->name);
    }
}

/* The canonical name's parameters in reverse order, and without those at
 * their default value, must name the same instance. */
static void check_orders(const tc_family *f, const tc_algo *al)
{
    const int *v = al->param;
    char rev[160], dropped[160];
    size_t at = (size_t)snprintf(rev, sizeof rev, "%s:", f->name);
    size_t dt = (size_t)snprintf(dropped, sizeof dropped, "%s", f->name);
    int ndrop = 0;
    for (int k = f->nparams - 1; k >= 0; k--) {
        at += (size_t)snprintf(rev + at, sizeof rev - at, "%s%s=%s", k == f->nparams - 1 ? "" : ",",
                               f->params[k].key, f->params[k].values[v[k]]);
        if (v[k] != f->params[k].def)
            dt += (size_t)snprintf(dropped + dt, sizeof dropped - dt, "%s%s=%s", ndrop++ ? "," : ":",
                                   f->params[k].key, f->params[k].values[v[k]]);
    }
    CHECK(tc_catalog_find(al->coll, rev) == al, "%s: '%s' is not %s", tc_coll_name(al->coll), rev, al->name);
    CHECK(tc_catalog_find(al->coll, dropped) == al, "%s: '%s' is not %s", tc_coll_name(al->coll), dropped,
          al->name);
}

static void expect_not_found(topocoll_coll coll, const char *name, const char *why_part)
{
    char why[256];
    const tc_algo *al = tc_catalog_resolve(coll, name, why, sizeof why);
    CHECK(!al && strstr(why, why_part), "%s: '%s' resolved to %s or said '%s' (expected '%s')",
          tc_coll_name(coll), name, al ? al->name : "nothing", why, why_part);
}

/* One invalid combination of f, if it has any, must be refused. */
static void check_invalid(const tc_family *f)
{
    if (!f->invalid) return;
    int v[TC_FAMILY_MAXPARAMS] = { 0 };
    for (int k = 0; k < f->nparams; k++) v[k] = f->params[k].def;
    for (int k = 0; k < f->nparams; k++)
        for (int x = 0; f->params[k].values[x]; x++) {
            int w[TC_FAMILY_MAXPARAMS];
            memcpy(w, v, sizeof w);
            w[k] = x;
            if (!f->invalid(w)) continue;
            char name[160];
            size_t at = (size_t)snprintf(name, sizeof name, "%s:", f->name);
            for (int j = 0; j < f->nparams; j++)
                at += (size_t)snprintf(name + at, sizeof name - at, "%s%s=%s", j ? "," : "", f->params[j].key,
                                       f->params[j].values[w[j]]);
            expect_not_found(f->coll, name, "invalid combination");
            return;
        }
}

static void check_family(const tc_family *f)
{
    char name[160];
    int n = 0;
    for (int i = 0; i < tc_catalog_variant_count(f->coll); i++) {
        const tc_algo *al = tc_catalog_variant_at(f->coll, i);
        if (!al->family || strcmp(al->family, f->name)) continue;
        check_orders(f, al);
        n++;
    }
    CHECK(n > 0, "%s family %s has no instance", tc_coll_name(f->coll), f->name);
    CHECK(tc_catalog_find(f->coll, f->name) != NULL, "%s: family name '%s' (all defaults)", tc_coll_name(f->coll),
          f->name);
    snprintf(name, sizeof name, "%s:nosuchparam=1", f->name);
    expect_not_found(f->coll, name, "unknown parameter");
    snprintf(name, sizeof name, "%s:%s=nosuchvalue", f->name, f->params[0].key);
    expect_not_found(f->coll, name, "bad value");
    snprintf(name, sizeof name, "%s:%s=%s,%s=%s", f->name, f->params[0].key, f->params[0].values[0],
             f->params[0].key, f->params[0].values[0]);
    expect_not_found(f->coll, name, "given twice");
    check_invalid(f);
}

static void check_legacy(void)
{
    static const struct { topocoll_coll coll; const char *alias, *canonical; } names[] = {
        { TOPOCOLL_ALLGATHER, "h1_shm_rd_shm", "hierarchical:leaders=1,agg=shm,x=rd,dist=shm" },
        { TOPOCOLL_ALLGATHER, "h1_gather_rd_bcast", "hierarchical" },
        { TOPOCOLL_ALLGATHER, "hsp_ring_bruck_new", "hierarchical:dist=new,x=bruck,agg=ring,leaders=sp" },
        { TOPOCOLL_ALLGATHER, "twotier", "twotier:units=ranks" },
        { TOPOCOLL_ALLGATHER, "twotier_sockets", "twotier:units=sockets" },
        { TOPOCOLL_BCAST, "twotier_chunked", "twotier:chunked=yes" },
        { TOPOCOLL_BCAST, "twotier_chunked_sockets", "twotier:units=sockets,chunked=yes" },
        { TOPOCOLL_BCAST, "twotier_sockets", "twotier:units=sockets,chunked=no" },
        { TOPOCOLL_SCATTER, "twotier_sockets", "twotier:units=sockets" },
        { TOPOCOLL_GATHER, "twotier_sockets", "twotier:units=sockets" },
        { TOPOCOLL_REDUCE, "twotier_sockets", "twotier:units=sockets" },
        { TOPOCOLL_REDUCE_SCATTER_BLOCK, "twotier_sockets", "twotier:units=sockets" },
        { TOPOCOLL_REDUCE, "rabenseifner", "rabenseifner" },
        /* the former family twotier_landing: twotier with landing=yes */
        { TOPOCOLL_REDUCE, "twotier_landing", "twotier:landing=yes" },
        { TOPOCOLL_REDUCE, "twotier_landing_sockets", "twotier_landing:units=sockets" },
        { TOPOCOLL_REDUCE_SCATTER_BLOCK, "twotier_landing", "twotier_landing:units=ranks" },
        { TOPOCOLL_REDUCE_SCATTER_BLOCK, "twotier_landing_sockets", "twotier:landing=yes,units=sockets" },
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const tc_algo *a = tc_catalog_find(names[i].coll, names[i].alias);
        const tc_algo *b = tc_catalog_find(names[i].coll, names[i].canonical);
        CHECK(a && a == b && strcmp(a->name, names[i].alias) == 0, "%s: '%s' and '%s'",
              tc_coll_name(names[i].coll), names[i].alias, names[i].canonical);
    }
    expect_not_found(TOPOCOLL_ALLGATHER, "hierarchical:agg=gather,dist=new", "invalid combination");
    expect_not_found(TOPOCOLL_ALLGATHER, "nosuchfamily:x=1", "no algorithm or family");
    expect_not_found(TOPOCOLL_ALLGATHER, "hierarchical:agg", "not key=value");
    expect_not_found(TOPOCOLL_ALLGATHER, "hierarchical:agg=shm,", "trailing comma");
    expect_not_found(TOPOCOLL_SCATTER, "twotier:chunked=yes", "unknown parameter");
    expect_not_found(TOPOCOLL_REDUCE, "twotier_landing:landing=no", "given twice");
    expect_not_found(TOPOCOLL_SCATTER, "twotier_landing", "no algorithm or family");
}

/* Lists of names: a family name keeps its comma-separated parameters. */
static void check_lists(void)
{
    static const struct { const char *list; size_t first; } cases[] = {
        { "ring", 4 }, { "ring,bruck", 4 }, { "", 0 }, { ",ring", 0 },
        { "hierarchical:leaders=s,agg=shm,x=ring,dist=shm,h1_shm_rd_shm", 46 },
        { "hierarchical:leaders=s,agg=shm", 30 }, { "twotier:units=sockets,ring", 21 },
        { "h1_*,hierarchical", 4 }, { "hierarchical,leaders=1", 12 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = tc_catalog_list_item(cases[i].list);
        CHECK(n == cases[i].first, "list '%s': first name %zu bytes long, expected %zu", cases[i].list, n,
              cases[i].first);
    }
}

int main(void)
{
    check_lists();
    for (int c = 0; c < TOPOCOLL_NCOLL; c++) {
        int n = tc_catalog_variant_count((topocoll_coll)c);
        CHECK(n > 0, "%s: empty catalog", tc_coll_name((topocoll_coll)c));
        for (int i = 0; i < n; i++) check_instance(tc_catalog_variant_at((topocoll_coll)c, i));
        for (int i = 0; i < tc_catalog_family_count((topocoll_coll)c); i++)
            check_family(tc_catalog_family_at((topocoll_coll)c, i));
        printf("%s: %d instances, %d families\n", tc_coll_name((topocoll_coll)c), n,
               tc_catalog_family_count((topocoll_coll)c));
    }
    check_legacy();
    return tc_test_summary();
}
