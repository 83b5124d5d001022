/*
 * The names of the node-level allreduce entries with a single-copy form
 * (families shm_reduce_bcast, shm_tiled, shm_dissemination, hierarchical):
 * every name in the checked-in list tests/unit/copy_names.h (each entry's
 * listed name and canonical name as they were when single copy was a
 * separate name, "shm_dissemination_cma", or a node mode,
 * "hierarchical:leaders=1,node=cma,x=rd") still resolves, both names of a
 * row to one entry, listed under the same name, whose schedules are the
 * ones the list records: a fingerprint (FNV-1a) of every rank's schedule,
 * round by round and op by op, with its scratch and node-shared layout,
 * over one-node and multi-node topologies, counts around the tiles and
 * chunks, in place or not, commutative or not.  Also the old spelling
 * node=cma with parameters in any order or left to their defaults, and the
 * combinations it cannot join.
 *
 *   unit_copy_names            checks the list
 *   unit_copy_names --print    prints the rows for the catalog as it is now
 *                              (how the list was made)
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "algo/catalog.h"
#include "common/harness.h"
#include "sched/sched.h"
#include "topo/topo.h"
#include "unit/copy_names.h"

#define FNV_PRIME 1099511628211ull

static void mix(uint64_t *h, int64_t v)
{
    for (int i = 0; i < 8; i++) {
        *h ^= (uint64_t)(v >> (8 * i)) & 0xff;
        *h *= FNV_PRIME;
    }
}

static void mix_region(uint64_t *h, tc_region r)
{
    mix(h, r.off);
    mix(h, r.cnt);
    mix(h, r.buf);
}

/* Rank a->rank's schedule (or its decline, or its error) into h. */
static void mix_schedule(uint64_t *h, const tc_algo *al, const tc_args *a, const tc_topo *t)
{
    if (!tc_algo_accepts(al, a, t, NULL)) {
        mix(h, -1);
        return;
    }
    tc_sched s;
    tc_sched_init(&s);
    int rc = tc_algo_generate(al, &s, a, t);
    if (!rc) rc = tc_sched_finish(&s);
    mix(h, rc);
    mix(h, s.nrounds);
    for (int r = 0; r <= s.nrounds; r++) mix(h, s.round_start[r]);
    for (int i = 0; i < s.nops; i++) {
        const tc_op *o = &s.ops[i];
        mix(h, o->kind);
        mix(h, o->peer);
        mix_region(h, o->a);
        mix_region(h, o->b);
    }
    mix(h, s.tmp_count);
    mix(h, s.shm_count);
    mix(h, s.shm_home_off);
    mix(h, s.shm_home_cnt);
    mix(h, s.tmp_like);
    tc_sched_free(&s);
}

/* Every case, every rank. */
static uint64_t fingerprint(const tc_algo *al)
{
    static const struct { const char *spec; int p; } topos[] = {
        { NULL, 1 }, { NULL, 2 }, { NULL, 3 }, { NULL, 5 }, { NULL, 8 },
        { "1x2x*", 7 }, { "1x3x*/cyclic", 9 }, { "1x4x*/random:3", 12 },
        { "2x3", 6 }, { "4,1,2", 7 }, { "3x*/random:5", 9 }, { "2x2x*/cyclic", 8 },
    };
    static const int64_t counts[] = { 0, 1, 3, 255, 2049, 70000 };
    uint64_t h = 14695981039346656037ull;
    mix(&h, al->req);
    for (size_t k = 0; k < sizeof topos / sizeof topos[0]; k++) {
        char err[128];
        tc_topo *t = topos[k].spec ? tc_topo_from_spec(topos[k].spec, topos[k].p, err, sizeof err)
                                   : tc_topo_flat(topos[k].p);
        CHECK(t != NULL, "topology %s p=%d: %s", topos[k].spec, topos[k].p, t ? "" : err);
        if (!t) continue;
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
            for (int variant = 0; variant < 3; variant++) {   /* in place 0/1 commutative; not commutative */
                tc_args a;
                memset(&a, 0, sizeof a);
                a.coll = TOPOCOLL_ALLREDUCE;
                a.size = t->size;
                a.scount = a.rcount = counts[c];
                a.in_place = variant == 1;
                a.commutative = variant != 2;
                a.node_shm = a.cma = 1;
                a.relem_bytes = 8;
                for (a.rank = 0; a.rank < t->size; a.rank++) mix_schedule(&h, al, &a, t);
            }
        tc_topo_free(t);
    }
    return h;
}

static int listed_family(const tc_algo *al)
{
    static const char *const fams[] = { "shm_reduce_bcast", "shm_tiled", "shm_dissemination", "hierarchical" };
    const char *f = al->family ? al->family : al->name;
    for (size_t i = 0; i < sizeof fams / sizeof fams[0]; i++)
        if (strncmp(f, fams[i], strlen(fams[i])) == 0) return 1;
    return 0;
}

static int print_rows(void)
{
    for (int i = 0; i < tc_catalog_variant_count(TOPOCOLL_ALLREDUCE); i++) {
        const tc_algo *al = tc_catalog_variant_at(TOPOCOLL_ALLREDUCE, i);
        if (!listed_family(al)) continue;
        printf("    { \"%s\", \"%s\", 0x%016llxull },\n", al->name, al->canonical,
               (unsigned long long)fingerprint(al));
    }
    return 0;
}

/* Old spellings with parameters in another order or left to their
 * defaults, and the combinations the old spelling cannot join. */
static void check_spellings(void)
{
    static const struct { const char *name, *listed, *why; } cases[] = {
        { "hierarchical:node=cma", "h1_cma_rd", NULL },
        { "hierarchical:x=ring,node=cma,leaders=4", "h4_cma_ring", NULL },
        { "hierarchical:leaders=2,node=shm,x=rsa,copy=cma", "h2_cma_rsa", NULL },
        { "hierarchical:node=shm,copy=in", "h1_shm_rd", NULL },
        { "hierarchical:node=cma,copy=in", NULL, "given twice" },
        { "hierarchical:node=p2p,copy=cma", NULL, "invalid combination" },
        { "hierarchical:node=cma,node=shm", NULL, "given twice" },
        { "shm_dissemination:copy=cma", "shm_dissemination_cma", NULL },
        { "shm_dissemination", "shm_dissemination", NULL },
        { "shm_dissemination:copy=shm", NULL, "bad value" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char why[160];
        const tc_algo *al = tc_catalog_resolve(TOPOCOLL_ALLREDUCE, cases[i].name, why, sizeof why);
        if (cases[i].listed)
            CHECK(al && strcmp(al->name, cases[i].listed) == 0, "'%s' resolves to %s, not %s", cases[i].name,
                  al ? al->name : why, cases[i].listed);
        else
            CHECK(!al && strstr(why, cases[i].why), "'%s' resolves (%s) or says '%s', not '%s'", cases[i].name,
                  al ? al->name : "-", why, cases[i].why);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--print") == 0) return print_rows();
    int n = (int)(sizeof copy_names / sizeof copy_names[0]), single = 0;
    for (int i = 0; i < n; i++) {
        const copy_name_row *row = &copy_names[i];
        char why[160];
        const tc_algo *by_name = tc_catalog_resolve(TOPOCOLL_ALLREDUCE, row->name, why, sizeof why);
        const tc_algo *by_canonical = tc_catalog_resolve(TOPOCOLL_ALLREDUCE, row->canonical, why, sizeof why);
        CHECK(by_name != NULL, "'%s' does not resolve", row->name);
        CHECK(by_canonical != NULL, "'%s' does not resolve: %s", row->canonical, why);
        if (!by_name || !by_canonical) continue;
        CHECK(by_name == by_canonical, "'%s' and '%s' name different entries (%s, %s)", row->name,
              row->canonical, by_name->canonical, by_canonical->canonical);
        CHECK(strcmp(by_name->name, row->name) == 0, "'%s' is listed as '%s'", row->name, by_name->name);
        single += (by_name->req & TC_REQ_CMA) != 0;
        uint64_t fp = fingerprint(by_name);
        CHECK(fp == row->fingerprint, "'%s' (%s): schedules differ from the list's (%016llx, listed %016llx)",
              row->name, by_name->canonical, (unsigned long long)fp, (unsigned long long)row->fingerprint);
    }
    check_spellings();
    CHECK(single == 28, "%d single-copy entries in the list (28 expected)", single);
    printf("%d names checked, %d of them single copy\n", n, single);
    return tc_test_summary();
}
