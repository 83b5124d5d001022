/*
 * The MPI test matrix of every collective: allgather, bcast, scatter,
 * gather, reduce, reduce_scatter_block, alltoall, allreduce, scan and
 * exscan.  For each collective, every entry
 * of its catalog (read from topocoll_algorithm_count/name, never a list kept
 * here; chosen by family, never by name) plus the selected path
 * (topocoll_<coll>, reported as "auto") x roots {0, np-1, np/2} x counts
 * {0, 1, 3, 1000} (plus one large case per entry at np <= 8: 1 MiB per rank
 * for allgather, > 256 KiB for the others) x datatypes (MPI_INT, MPI_DOUBLE,
 * MPI_BYTE, a vector type with gaps, a send/receive pair with different
 * types of one signature) or, for the reductions, x (datatype, op) pairs
 * (built-in ops on the types MPI allows them on, a user-defined commutative
 * op also on a type with gaps, and a user-defined NON-commutative op: 2x2
 * matrix product on contiguous(4,MPI_INT) and on a gapped 4-int type) x
 * MPI_IN_PLACE where MPI allows it x rank mappings (virtual topologies given
 * with topocoll_set_topology: block, cyclic, random, unequal nodes).  How
 * one case is run and checked: matrix_case.c.
 *
 * Part 1 is that matrix on MPI_COMM_WORLD.  Part 2 runs a small one on two
 * halves of MPI_COMM_WORLD (MPI_Comm_split with a reversed key), with the
 * detected topology and a cyclic one.  Part 3 is bcast with a root whose
 * (count, datatype) differs from the other ranks' (same type signature, as
 * MPI allows), last because an algorithm that splits the data by its own
 * count makes the ranks disagree and hang.  Part 4 reduces with a
 * user-defined commutative op, frees it, and reduces with a new
 * non-commutative op (which often gets the freed op's handle): nothing
 * cached for the first op may serve the second.
 *
 * A watchdog (alarm) ends a rank that spends more than --case-timeout
 * seconds in one case, naming the case, so that a hang is a diagnosable
 * failure instead of a CTest timeout.
 *
 * Usage: test_matrix [--coll=LIST] [--algorithm=NAME] [--flat | --hierarchical
 *                    | --family=LIST] [--entry-sample=K] [--quick] [--sample=K]
 *                    [--max-cases=N] [--no-large] [--verbose] [--case-timeout=S]
 *   --coll=LIST     only these collectives (comma-separated names);
 *   --algorithm=NAME  only this catalog entry ("auto" for the selected path);
 *   --flat          every entry but the family "hierarchical" (and auto);
 *   --hierarchical  only the family "hierarchical";
 *   --family=LIST   only these families ("native", "flat", "twotier",
 *                   "hierarchical"; "auto" for the selected path);
 *   --entry-sample=K  of the chosen entries of the family "hierarchical" (the
 *                   large one), every K-th (offset by np, so runs at different
 *                   np cover different entries);
 *   --quick         fewer counts, datatypes, ops and roots, no large cases
 *                   (for MPICH, whose oversubscribed runs are slow);
 *   --sample=K      of the cases of each (collective, entry), about one in K
 *                   (a hash of the case, seeded with np); large cases and the
 *                   halves (part 2) always run;
 *   --max-cases=N   count the matrix first and sample (as --sample) so that
 *                   about N of its cases run;
 *   --no-large      leave out the large cases;
 *   --verbose       print every case on rank 0;
 *   --case-timeout=S  the watchdog (default 120 s; 0 turns it off);
 *   --one-node      mappings of one node with several sockets (block, cyclic,
 *                   random, unequal) instead of the multi-node ones.
 * Ends with "N passed, M failed[, K skipped]" from rank 0; exits 1 on any
 * failure.
 */
#define _POSIX_C_SOURCE 200809L
#include "matrix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/harness.h"

#define NTYPES 7
#define NREDS 15
/* alltoallv, allgatherv, gatherv and scatterv (per-peer counts) and
 * alltoallw (per-peer datatypes) have their own programs,
 * tests/mpi/test_alltoallv.c, test_allgatherv.c, test_rootedv.c and
 * test_alltoallw.c; so has the barrier (no data, no types or ops:
 * tests/mpi/test_barrier.c) */
#define OWN_PROGRAM_COLLS ((1u << TOPOCOLL_ALLTOALLV) | (1u << TOPOCOLL_ALLGATHERV) | (1u << TOPOCOLL_GATHERV) | \
                           (1u << TOPOCOLL_SCATTERV) | (1u << TOPOCOLL_BARRIER) | (1u << TOPOCOLL_ALLTOALLW))
#define ALL_COLLS (((1u << TOPOCOLL_NCOLL) - 1u) & ~OWN_PROGRAM_COLLS)

/* One matrix: its cases per collective. */
typedef struct matrix {
    const type_case *types;
    int ntypes;
    const red_case *reds;
    int nreds;
    const int *counts[TOPOCOLL_NCOLL];
    int ncounts[TOPOCOLL_NCOLL];
    int roots[3];                /* -1: last rank of the communicator; -2: size / 2 */
    int nroots;
    int all_roots;               /* keep duplicate roots (the halves must run alike) */
    int sample;                  /* --sample applies */
    int bcast_mixed;             /* bcast types whose (count, type) differ between ranks:
                                    0 left out, 1 only those */
} matrix;

/* Everything the parts share. */
typedef struct world {
    type_case types[NTYPES], large_type;
    red_case reds[NREDS], large_red;
    mapping maps[TM_NMAPPINGS];
    int nmaps;
    MPI_Datatype con3;
} world;

static const int counts_full[] = { 0, 1, 3, 1000 };
static const int counts_quick[] = { 0, 1, 1000 };
static const int counts_quick_allgather[] = { 0, 3, 1000 };
static const int counts_halves[] = { 3, 1000 };

/* --one-node: the mappings put every rank on one node of several sockets
 * (for the single-node shared-memory entries, which decline several nodes). */
static int g_one_node;

/* One node: sockets in blocks, dealt cyclically, shuffled, and unequal. */
static int one_node_mappings(mapping *maps, int np)
{
    int s2 = np >= 2 ? 2 : 1, s3 = np >= 3 ? 3 : np;
    memset(maps, 0, TM_NMAPPINGS * sizeof *maps);
    maps[0].name = "one node, block sockets";
    snprintf(maps[0].spec, sizeof maps[0].spec, "1x2x*");
    maps[1].name = "one node, cyclic sockets";
    snprintf(maps[1].spec, sizeof maps[1].spec, "1x2x*/cyclic");
    maps[2].name = "one node, random sockets";
    snprintf(maps[2].spec, sizeof maps[2].spec, "1x3x*/random:7");
    maps[3].name = "one node, unequal sockets";
    if (np >= 3) snprintf(maps[3].spec, sizeof maps[3].spec, "%d+%d/cyclic", np - np / 3, np / 3);
    else snprintf(maps[3].spec, sizeof maps[3].spec, "1x1x*");
    for (int m = 0; m < TM_NMAPPINGS; m++) maps[m].nnodes = 1;
    maps[0].nsockets = maps[1].nsockets = s2;
    maps[2].nsockets = s3;
    maps[3].nsockets = np >= 3 ? 2 : 1;
    return TM_NMAPPINGS;
}

/* ---- options ------------------------------------------------------------------ */

static int parse_colls(ctx *c, const char *list)
{
    char buf[256], *save = NULL;
    snprintf(buf, sizeof buf, "%s", list);
    c->coll_mask = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int coll = topocoll_coll_from_name(t);
        if (coll < 0 || coll >= TOPOCOLL_NCOLL || (OWN_PROGRAM_COLLS & (1u << coll))) return -1;
        c->coll_mask |= 1u << coll;
    }
    return c->coll_mask ? 0 : -1;
}

/* The value of "--name=V" or "--name V" (advancing *i), or NULL. */
static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0) return NULL;
    if (argv[*i][n] == '=') return argv[*i] + n + 1;
    if (argv[*i][n] == '\0' && *i + 1 < argc) return argv[++*i];
    return NULL;
}

/* One option; 0 when it is not one (or its value is bad). */
static int parse_option(ctx *c, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v;
    if (strcmp(a, "--quick") == 0) c->quick = 1;
    else if (strcmp(a, "--no-large") == 0) c->large = 0;
    else if (strcmp(a, "--verbose") == 0) c->verbose = 1;
    else if (strcmp(a, "--one-node") == 0) g_one_node = 1;
    else if (strcmp(a, "--flat") == 0) c->family_mode = 1;
    else if (strcmp(a, "--hierarchical") == 0) {
        c->family_mode = 2;
        snprintf(c->families, sizeof c->families, "hierarchical");
    } else if ((v = opt_value(argc, argv, i, "--family")) != NULL) {
        c->family_mode = 2;
        snprintf(c->families, sizeof c->families, "%s", v);
    } else if ((v = opt_value(argc, argv, i, "--entry-sample")) != NULL) c->entry_sample = atoi(v);
    else if ((v = opt_value(argc, argv, i, "--sample")) != NULL) c->sample = atoi(v);
    else if ((v = opt_value(argc, argv, i, "--max-cases")) != NULL) c->max_cases = atoi(v);
    else if ((v = opt_value(argc, argv, i, "--case-timeout")) != NULL) {
        if (atoi(v) < 0) return 0;
        watchdog_init((unsigned)atoi(v));
    } else if ((v = opt_value(argc, argv, i, "--coll")) != NULL) return parse_colls(c, v) == 0;
    else if ((v = opt_value(argc, argv, i, "--algorithm")) != NULL) c->only_algo = v;
    else return 0;
    return c->entry_sample >= 0 && c->sample >= 0 && c->max_cases >= 0;
}

/* Returns 0, or 2 for a usage error. */
static int parse_options(ctx *c, int argc, char **argv)
{
    memset(c, 0, sizeof *c);
    c->large = 1;
    c->coll_mask = ALL_COLLS;
    watchdog_init(120);
    for (int i = 1; i < argc; i++) {
        if (parse_option(c, argc, argv, &i)) continue;
        fprintf(stderr, "usage: %s [--coll=LIST] [--algorithm=NAME] [--flat | --hierarchical | --family=LIST]"
                        " [--entry-sample=K] [--quick] [--sample=K] [--max-cases=N] [--no-large] [--verbose]"
                        " [--case-timeout=S] [--one-node]\n", argv[0]);
        return 2;
    }
    if (c->quick) c->large = 0;
    return 0;
}

/* ---- which cases run -------------------------------------------------------------- */

static int coll_selected(const ctx *c, int coll)
{
    return (c->coll_mask >> coll) & 1u;
}

/* Is `name` one of the comma-separated words of list? */
static int in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0')) return 1;
    return 0;
}

/* Is entry a (-1: auto) of coll part of this run (--algorithm, --flat,
 * --hierarchical, --family, --entry-sample)? */
static int algo_selected(const ctx *c, topocoll_coll coll, int a)
{
    const char *fam = a < 0 ? "auto" : topocoll_variant_family(coll, a);
    if (!fam) return 0;
    if (c->only_algo && strcmp(c->only_algo, a < 0 ? "auto" : topocoll_variant_name(coll, a)) != 0) return 0;
    if (c->family_mode == 1 && strcmp(fam, "hierarchical") == 0) return 0;
    if (c->family_mode == 2 && !in_list(c->families, fam)) return 0;
    if (a < 0 || c->entry_sample <= 1 || strcmp(fam, "hierarchical") != 0) return 1;
    return (a + c->wsize) % c->entry_sample == 0;
}

/* Is this case part of the run (--sample)?  Counts the ordinal either way. */
static int sampled(ctx *c, const ccase *k, int use_sample)
{
    int slot = k->algo_index + 1;
    unsigned ord = c->ordinal[k->coll][slot]++;
    if (!use_sample || c->sample <= 1) return 1;
    if (tm_fmix32(ord * 0x9E3779B1u + (uint32_t)c->wsize * 0x85EBCA6Bu + (uint32_t)k->coll * 0x27D4EB2Fu +
                  (uint32_t)slot) % (uint32_t)c->sample == 0)
        return 1;
    c->nsampled_out++;
    return 0;
}

/* ---- the matrix ---------------------------------------------------------------- */

static int resolve_root(int code, int size)
{
    return code == -1 ? size - 1 : code == -2 ? size / 2 : code;
}

/* Does type t belong to k's collective in this matrix? */
static int type_used(const ctx *c, const matrix *mx, const ccase *k, int t)
{
    if (is_reduction(k->coll)) return !c->quick || mx->reds[t].quick;
    const type_case *tc = &mx->types[t];
    if (c->quick && !tc->quick) return 0;
    if (tc->stype == g_holes) return k->coll == TOPOCOLL_ALLTOALL;   /* alltoall's own type */
    if (k->coll == TOPOCOLL_ALLGATHER) return tc->allgather;
    if (k->coll == TOPOCOLL_BCAST)
        return (tc->smul != tc->rmul || tc->stype != tc->rtype) == (mx->bcast_mixed == 1);
    return 1;
}

/* Every count and MPI_IN_PLACE choice of one (root, type). */
static int run_counts(ctx *c, MPI_Comm comm, const char *where, const mapping *m, const matrix *mx, ccase *k)
{
    for (int n = 0; n < mx->ncounts[k->coll]; n++)
        for (int ip = 0; ip < (has_in_place(k->coll) ? 2 : 1); ip++) {
            k->count = mx->counts[k->coll][n];
            k->in_place = ip;
            if (c->counting) {
                if (mx->sample) c->ncounted++;
                continue;
            }
            if (!sampled(c, k, mx->sample)) continue;
            if (run_case(c, comm, where, m, k) < 0) return -1;
        }
    return 0;
}

/* The roots of k's collective on comm (duplicates dropped unless all_roots). */
static int roots_of(const matrix *mx, topocoll_coll coll, int size, int *rootv)
{
    int nr = 0;
    for (int i = 0; i < (is_rooted(coll) ? mx->nroots : 1); i++) {
        int r = is_rooted(coll) ? resolve_root(mx->roots[i], size) : 0, dup = 0;
        for (int j = 0; j < nr && !mx->all_roots; j++) dup |= rootv[j] == r;
        if (!dup) rootv[nr++] = r;
    }
    return nr;
}

static int run_algorithm(ctx *c, MPI_Comm comm, const char *where, const mapping *m,
                         const matrix *mx, ccase *k)
{
    int size, rootv[3], nr;
    if (MPI_Comm_size(comm, &size) != MPI_SUCCESS) return -1;
    nr = roots_of(mx, k->coll, size, rootv);
    for (int ri = 0; ri < nr; ri++) {
        int nt = is_reduction(k->coll) ? mx->nreds : mx->ntypes;
        k->root = rootv[ri];
        for (int t = 0; t < nt; t++) {
            if (!type_used(c, mx, k, t)) continue;
            k->rc = is_reduction(k->coll) ? &mx->reds[t] : NULL;
            k->tc = is_reduction(k->coll) ? NULL : &mx->types[t];
            if (run_counts(c, comm, where, m, mx, k) < 0) return -1;
        }
    }
    return 0;
}

/* The one large case of entry k (root: the last rank). */
static int run_large(ctx *c, MPI_Comm comm, const char *where, const mapping *m, const world *w, ccase *k)
{
    int size;
    if (MPI_Comm_size(comm, &size) != MPI_SUCCESS) return -1;
    k->root = size - 1;
    k->in_place = 0;
    k->rc = is_reduction(k->coll) ? &w->large_red : NULL;
    k->tc = is_reduction(k->coll) ? NULL : &w->large_type;
    k->count = is_reduction(k->coll) ? LARGE_INTS : k->coll == TOPOCOLL_ALLGATHER ? LARGE_ALLGATHER : LARGE_BYTES;
    return run_case(c, comm, where, m, k);
}

/* Every selected collective x (auto + every chosen catalog entry) x the
 * matrix; then the large cases (when large is given). */
static int run_matrix(ctx *c, MPI_Comm comm, const char *where, const mapping *m, const matrix *mx,
                      const world *large)
{
    for (int coll = 0; coll < TOPOCOLL_NCOLL; coll++) {
        if (!coll_selected(c, coll)) continue;
        if (mx->bcast_mixed == 1 && coll != TOPOCOLL_BCAST) continue;
        for (int a = -1; a < c->nalgo[coll]; a++) {
            ccase k;
            if (!algo_selected(c, (topocoll_coll)coll, a)) continue;
            memset(&k, 0, sizeof k);
            k.coll = (topocoll_coll)coll;
            k.algo_index = a;
            k.algo = a < 0 ? NULL : topocoll_variant_name(k.coll, a);
            if (run_algorithm(c, comm, where, m, mx, &k) < 0) return -1;
            if (large && !c->counting && run_large(c, comm, where, m, large, &k) < 0) return -1;
        }
    }
    return 0;
}

/* ---- the catalog ---------------------------------------------------------------- */

/* One collective's algorithms (entries): names, indices (the bare name and
 * every variant's name map to their algorithm), descriptions, parameters,
 * out-of-range queries.  0 when fine. */
static int entry_problems(ctx *c, topocoll_coll cl, const char *cname)
{
    int n = topocoll_algorithm_count(cl), bad = n < 1 || n > topocoll_variant_count(cl) ||
        topocoll_algorithm_name(cl, n) || topocoll_algorithm_parameters(cl, -1);
    for (int i = 0; i < n; i++) {
        const char *name = topocoll_algorithm_name(cl, i);
        if (!name || topocoll_algorithm_index(cl, name) != i || !topocoll_algorithm_description(cl, i) ||
            !topocoll_algorithm_requirements(cl, i) || !topocoll_algorithm_family(cl, i) ||
            !topocoll_algorithm_parameters(cl, i) || topocoll_variant_index(cl, name) < 0)
            bad = 1;
    }
    for (int v = 0; v < topocoll_variant_count(cl); v++) {
        int i = topocoll_algorithm_index(cl, topocoll_variant_name(cl, v));
        if (i < 0 || strcmp(topocoll_algorithm_family(cl, i), topocoll_variant_family(cl, v)) != 0) bad = 1;
    }
    if (bad && c->wrank == 0) fprintf(stderr, "%s: the algorithms (entries) do not match the variants\n", cname);
    return bad;
}

/* One collective's catalog: names, indices, descriptions, families, the
 * native entry, out-of-range queries, the collective's name.  0 when fine. */
static int catalog_problems(ctx *c, topocoll_coll cl)
{
    const char *cname = topocoll_coll_name(cl);
    int n = topocoll_variant_count(cl), native = 0, bad = 0;
    if (!cname || topocoll_coll_from_name(cname) != (int)cl) {
        bad = 1;
        if (c->wrank == 0) fprintf(stderr, "collective %d: name \"%s\" does not map back\n", (int)cl,
                                   cname ? cname : "(null)");
    }
    if (n < 1 || topocoll_variant_name(cl, n) != NULL || topocoll_variant_name(cl, -1) != NULL ||
        topocoll_variant_family(cl, n) != NULL) {
        bad = 1;
        if (c->wrank == 0) fprintf(stderr, "%s: %d algorithms, or out-of-range queries answer\n",
                                   cname ? cname : "?", n);
    }
    for (int i = 0; i < n; i++) {
        const char *name = topocoll_variant_name(cl, i), *fam = topocoll_variant_family(cl, i);
        if (!name || topocoll_variant_index(cl, name) != i || !topocoll_variant_description(cl, i) ||
            !topocoll_variant_requirements(cl, i) || !fam || !fam[0]) {
            bad = 1;
            if (c->wrank == 0) fprintf(stderr, "%s: entry %d (%s) is incomplete\n", cname ? cname : "?", i,
                                       name ? name : "(null)");
        }
        if (fam && strcmp(fam, "native") == 0) native++;
    }
    if (native != 1) {
        bad = 1;
        if (c->wrank == 0) fprintf(stderr, "%s: %d entries of the family \"native\"\n", cname ? cname : "?", native);
    }
    c->nalgo[cl] = n < 0 ? 0 : n;
    return bad | entry_problems(c, cl, cname ? cname : "?");
}

/* The catalog of every tested collective (one case), and the per-entry
 * tables sized by it. */
static int check_catalog(ctx *c)
{
    int64_t keys[NKEYS];
    for (int k = 0; k < NKEYS; k++) keys[k] = INT64_MAX;
    for (int coll = 0; coll < TOPOCOLL_NCOLL; coll++) {
        if (!coll_selected(c, coll)) continue;
        if (catalog_problems(c, (topocoll_coll)coll)) tm_set_key(keys, K_RC, 0, c->wrank, c->wsize);
        c->auto_served[coll] = calloc((size_t)c->nalgo[coll] + 1, sizeof(int));
        c->fails[coll] = calloc((size_t)c->nalgo[coll] + 1, sizeof(int));
        c->ordinal[coll] = calloc((size_t)c->nalgo[coll] + 1, sizeof(unsigned));
        if (!c->auto_served[coll] || !c->fails[coll] || !c->ordinal[coll]) return -1;
    }
    tm_set_key(keys, K_SERVING, 0, c->wrank, c->wsize);
    return settle(c, keys, "[catalog] names, indices, descriptions and families of every tested collective",
                  0, 1, NULL);
}

static void free_tables(ctx *c)
{
    for (int coll = 0; coll < TOPOCOLL_NCOLL; coll++) {
        free(c->auto_served[coll]);
        free(c->fails[coll]);
        free(c->ordinal[coll]);
    }
}

/* ---- the cases' tables ------------------------------------------------------------ */

static void make_types(world *w)
{
    /* name, base, stype, rtype, send layout, receive layout, smul, rmul, quick, allgather */
    const type_case t[NTYPES] = {
        { "MPI_INT", BASE_INT, MPI_INT, MPI_INT, L_ONE, L_ONE, 1, 1, 1, 1 },
        { "MPI_DOUBLE", BASE_DOUBLE, MPI_DOUBLE, MPI_DOUBLE, L_ONE, L_ONE, 1, 1, 0, 1 },
        { "MPI_BYTE", BASE_BYTE, MPI_BYTE, MPI_BYTE, L_ONE, L_ONE, 1, 1, 0, 1 },
        { "vector(2,1,3,MPI_INT)", BASE_INT, g_vec, g_vec, L_VEC, L_VEC, 1, 1, 1, 1 },
        /* one signature, different types: root / send side contiguous(3,MPI_INT) x n,
         * the receive side MPI_INT x 3n */
        { "contiguous(3,MPI_INT) x n against MPI_INT x 3n", BASE_INT, w->con3, MPI_INT, L_THREE,
          L_ONE, 1, 3, 1, 1 },
        /* ... and the other way round: MPI_INT x 3n against contiguous(3,MPI_INT) x n */
        { "MPI_INT x 3n against contiguous(3,MPI_INT) x n", BASE_INT, MPI_INT, w->con3, L_ONE,
          L_THREE, 3, 1, 0, 0 },
        /* alltoall only (type_used): a struct with holes before and after its ints */
        { "struct{hole,int,int,hole}", BASE_INT, g_holes, g_holes, L_HOLES, L_HOLES, 1, 1, 1, 0 },
    };
    memcpy(w->types, t, sizeof t);
    w->large_type = w->types[2];     /* MPI_BYTE x LARGE_BYTES (allgather: LARGE_ALLGATHER) */
    w->large_type.name = "MPI_BYTE (large)";
}

static void make_reds(world *w)
{
    const red_case r[NREDS] = {
        { "MPI_INT", "MPI_SUM", BASE_INT, MPI_INT, L_ONE, MPI_SUM, V_SMALL, 1 },
        { "MPI_INT", "MPI_MAX", BASE_INT, MPI_INT, L_ONE, MPI_MAX, V_WIDE, 0 },
        { "MPI_INT", "MPI_PROD", BASE_INT, MPI_INT, L_ONE, MPI_PROD, V_PROD, 0 },
        { "MPI_INT", "MPI_BAND", BASE_INT, MPI_INT, L_ONE, MPI_BAND, V_DENSE, 0 },
        { "MPI_INT", "MPI_BOR", BASE_INT, MPI_INT, L_ONE, MPI_BOR, V_SPARSE, 0 },
        { "MPI_DOUBLE", "MPI_SUM", BASE_DOUBLE, MPI_DOUBLE, L_ONE, MPI_SUM, V_SMALL, 1 },
        { "MPI_DOUBLE", "MPI_MAX", BASE_DOUBLE, MPI_DOUBLE, L_ONE, MPI_MAX, V_WIDE, 0 },
        { "MPI_DOUBLE", "MPI_PROD", BASE_DOUBLE, MPI_DOUBLE, L_ONE, MPI_PROD, V_PROD, 0 },
        { "MPI_UNSIGNED_CHAR", "MPI_SUM", BASE_UCHAR, MPI_UNSIGNED_CHAR, L_ONE, MPI_SUM, V_SMALL, 0 },
        { "MPI_UNSIGNED_CHAR", "MPI_MAX", BASE_UCHAR, MPI_UNSIGNED_CHAR, L_ONE, MPI_MAX, V_WIDE, 0 },
        { "MPI_BYTE", "MPI_BAND", BASE_BYTE, MPI_BYTE, L_ONE, MPI_BAND, V_DENSE, 1 },
        { "MPI_INT", "user commutative sum", BASE_INT, MPI_INT, L_ONE, g_usum, V_SMALL, 0 },
        { "vector(2,1,3,MPI_INT)", "user commutative sum", BASE_INT, g_vec, L_VEC, g_usum, V_SMALL, 1 },
        { "contiguous(4,MPI_INT)", "user non-commutative 2x2 matrix product", BASE_INT, g_mat, L_MAT,
          g_matmul, V_WIDE, 1 },
        { "vector(2,2,3,MPI_INT)", "user non-commutative 2x2 matrix product", BASE_INT, g_matgap,
          L_MATGAP, g_matmul, V_WIDE, 0 },
    };
    memcpy(w->reds, r, sizeof r);
    w->large_red = w->reds[0];       /* MPI_INT x LARGE_INTS, MPI_SUM */
    w->large_red.type_name = "MPI_INT (large)";
}

/* The struct with holes (alltoall's matrix): two ints at bytes 4 and 8 of
 * a 16-byte extent.  0, or -1. */
static int make_holes(void)
{
    int lens[2] = { 1, 1 };
    MPI_Aint disp[2] = { (MPI_Aint)sizeof(int), 2 * (MPI_Aint)sizeof(int) };
    MPI_Datatype types[2] = { MPI_INT, MPI_INT }, s;
    if (MPI_Type_create_struct(2, lens, disp, types, &s) != MPI_SUCCESS ||
        MPI_Type_create_resized(s, 0, 4 * (MPI_Aint)sizeof(int), &g_holes) != MPI_SUCCESS ||
        MPI_Type_free(&s) != MPI_SUCCESS || MPI_Type_commit(&g_holes) != MPI_SUCCESS)
        return -1;
    return 0;
}

/* The datatypes and ops of the tables.  0, or -1. */
static int make_mpi_objects(world *w)
{
    if (MPI_Type_vector(2, 1, 3, MPI_INT, &g_vec) != MPI_SUCCESS || MPI_Type_commit(&g_vec) != MPI_SUCCESS ||
        MPI_Type_contiguous(4, MPI_INT, &g_mat) != MPI_SUCCESS || MPI_Type_commit(&g_mat) != MPI_SUCCESS ||
        MPI_Type_vector(2, 2, 3, MPI_INT, &g_matgap) != MPI_SUCCESS ||
        MPI_Type_commit(&g_matgap) != MPI_SUCCESS ||
        MPI_Type_contiguous(3, MPI_INT, &w->con3) != MPI_SUCCESS || MPI_Type_commit(&w->con3) != MPI_SUCCESS ||
        MPI_Op_create(op_usum, 1, &g_usum) != MPI_SUCCESS || MPI_Op_create(op_matmul, 0, &g_matmul) != MPI_SUCCESS)
        return -1;
    return make_holes();
}

static int free_mpi_objects(world *w)
{
    if (MPI_Type_free(&g_vec) != MPI_SUCCESS || MPI_Type_free(&g_mat) != MPI_SUCCESS ||
        MPI_Type_free(&g_matgap) != MPI_SUCCESS || MPI_Type_free(&w->con3) != MPI_SUCCESS ||
        MPI_Op_free(&g_usum) != MPI_SUCCESS || MPI_Op_free(&g_matmul) != MPI_SUCCESS ||
        MPI_Type_free(&g_holes) != MPI_SUCCESS)
        return -1;
    return 0;
}

/* The world matrix (part 1; part 3 with bcast_mixed). */
static void world_matrix(const ctx *c, const world *w, matrix *mx)
{
    memset(mx, 0, sizeof *mx);
    mx->types = w->types;
    mx->ntypes = NTYPES;
    mx->reds = w->reds;
    mx->nreds = NREDS;
    for (int coll = 0; coll < TOPOCOLL_NCOLL; coll++) {
        int ag = coll == TOPOCOLL_ALLGATHER;
        mx->counts[coll] = !c->quick ? counts_full : ag ? counts_quick_allgather : counts_quick;
        mx->ncounts[coll] = !c->quick ? 4 : 3;
    }
    mx->roots[0] = 0;
    mx->roots[1] = -1;
    mx->roots[2] = -2;
    mx->nroots = c->quick ? 2 : 3;
    mx->sample = 1;
}

/* ---- the parts -------------------------------------------------------------------- */

/* Part 1 (and part 3 with mixed): MPI_COMM_WORLD under every mapping; the
 * large cases under the first. */
static int part_world(ctx *c, const world *w, const matrix *mx)
{
    for (int m = 0; m < w->nmaps; m++) {
        int ok;
        if (mx->bcast_mixed && !coll_selected(c, TOPOCOLL_BCAST)) break;
        ok = apply_mapping(c, MPI_COMM_WORLD, "world", &w->maps[m]);
        if (ok < 0) return -1;
        if (ok == 0) continue;
        if (run_matrix(c, MPI_COMM_WORLD, "world", &w->maps[m], mx,
                       (m == 0 && c->large && !mx->bcast_mixed) ? w : NULL) < 0)
            return -1;
    }
    return 0;
}

/* The halves' matrix: MPI_INT and the vector type (sum and the matrix
 * product), count 3 (allgather also 1000 unless quick), roots 0 and last
 * (duplicates kept: every rank runs the same cases). */
static void halves_matrix(const ctx *c, const world *w, matrix *hx, type_case *st, red_case *sr)
{
    st[0] = w->types[0];
    st[1] = w->types[3];
    sr[0] = w->reds[0];
    sr[1] = w->reds[13];
    st[0].quick = st[1].quick = sr[0].quick = sr[1].quick = 1;
    memset(hx, 0, sizeof *hx);
    hx->types = st;
    hx->ntypes = 2;
    hx->reds = sr;
    hx->nreds = 2;
    for (int coll = 0; coll < TOPOCOLL_NCOLL; coll++) {
        hx->counts[coll] = counts_halves;
        hx->ncounts[coll] = coll == TOPOCOLL_ALLGATHER && !c->quick ? 2 : 1;
    }
    hx->roots[0] = 0;
    hx->roots[1] = -1;
    hx->nroots = 2;
    hx->all_roots = 1;
}

/* Part 2: two halves of MPI_COMM_WORLD, ranks in reverse order; first with
 * the detected topology, then with a cyclic virtual one. */
static int part_halves(ctx *c, const world *w)
{
    int color = c->wrank < c->wsize / 2 ? 0 : 1, hsize = 0;
    const char *where = color ? "upper half" : "lower half";
    mapping sub[2];
    type_case st[2];
    red_case sr[2];
    matrix hx;
    MPI_Comm half = MPI_COMM_NULL;

    halves_matrix(c, w, &hx, st, sr);
    memset(sub, 0, sizeof sub);
    sub[0].name = "detected";
    sub[1].name = "cyclic";
    snprintf(sub[1].spec, sizeof sub[1].spec, "2x*/cyclic");
    if (MPI_Comm_split(MPI_COMM_WORLD, color, c->wsize - c->wrank, &half) != MPI_SUCCESS ||
        MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN) != MPI_SUCCESS ||
        MPI_Comm_size(half, &hsize) != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: MPI_Comm_split failed\n", c->wrank);
        return -1;
    }
    /* "2x*" at size 1 is one node: fine, but check the counts. */
    sub[1].nnodes = sub[1].nsockets = hsize >= 2 ? 2 : 1;
    for (int m = 0; m < 2; m++) {
        int ok = apply_mapping(c, half, where, &sub[m]);
        if (ok < 0) return -1;
        if (ok > 0 && run_matrix(c, half, where, &sub[m], &hx, NULL) < 0) return -1;
    }
    return MPI_Comm_free(&half) == MPI_SUCCESS ? 0 : -1;
}

/* Part 4: a reduction with a user-defined commutative op, the op freed, and
 * one with a new NON-commutative op, which the MPI library may give the
 * freed op's handle.  Root np-1, 3 elements of contiguous(4,MPI_INT). */
static int op_reuse(ctx *c, const world *w, topocoll_coll coll, int a)
{
    red_case r = w->reds[13];
    ccase k;
    memset(&k, 0, sizeof k);
    k.coll = coll;
    k.algo_index = a;
    k.algo = a < 0 ? NULL : topocoll_variant_name(coll, a);
    k.root = c->wsize - 1;
    k.count = 3;
    k.rc = &r;
    for (int step = 0; step < 2; step++) {
        MPI_Op op = MPI_OP_NULL;
        if (MPI_Op_create(step == 0 ? op_usum : op_matmul, step == 0, &op) != MPI_SUCCESS) return -1;
        r.op = op;
        r.vk = step == 0 ? V_SMALL : V_WIDE;
        r.op_name = step == 0 ? "user commutative sum (created, then freed)"
                              : "user non-commutative 2x2 matrix product (created after freeing a commutative op)";
        if (run_case(c, MPI_COMM_WORLD, "world", &w->maps[0], &k) < 0) return -1;
        if (MPI_Op_free(&op) != MPI_SUCCESS) return -1;
    }
    return 0;
}

static int part_op_reuse(ctx *c, const world *w)
{
    static const int reductions[] = { TOPOCOLL_REDUCE, TOPOCOLL_REDUCE_SCATTER_BLOCK, TOPOCOLL_ALLREDUCE,
                                      TOPOCOLL_SCAN, TOPOCOLL_EXSCAN };
    int any = 0;
    for (size_t i = 0; i < sizeof reductions / sizeof reductions[0]; i++) any |= coll_selected(c, reductions[i]);
    if (!any) return 0;
    if (apply_mapping(c, MPI_COMM_WORLD, "world", &w->maps[0]) < 0) return -1;
    for (size_t i = 0; i < sizeof reductions / sizeof reductions[0]; i++) {
        int coll = reductions[i];
        if (!coll_selected(c, coll)) continue;
        for (int a = -1; a < c->nalgo[coll]; a++)
            if (algo_selected(c, (topocoll_coll)coll, a) && op_reuse(c, w, (topocoll_coll)coll, a) < 0)
                return -1;
    }
    return 0;
}

/* User ops called with a datatype they were not given (one case). */
static int check_user_ops(ctx *c)
{
    int mine = g_bad_type_calls, all = 0;
    if (mine) fprintf(stderr, "rank %d: a user op was called %d times with a datatype it was not given\n",
                      c->wrank, mine);
    if (PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS) return -1;
    if (all) {
        matrix_counts()->failed++;
        if (c->wrank == 0) printf("FAIL user ops were called with a datatype they were not given (%d calls)\n", all);
    }
    return 0;
}

/* ---- reporting --------------------------------------------------------------------- */

/* --max-cases: count the sampled matrix (it grows with the catalogs), then
 * sample to fit. */
static int fit_max_cases(ctx *c, const world *w, const matrix *mx, const matrix *mixed)
{
    if (c->max_cases <= 0) return 0;
    c->counting = 1;
    for (int m = 0; m < w->nmaps; m++)
        if (run_matrix(c, MPI_COMM_WORLD, "world", &w->maps[m], mx, NULL) < 0 ||
            run_matrix(c, MPI_COMM_WORLD, "world", &w->maps[m], mixed, NULL) < 0)
            return -1;
    c->counting = 0;
    if ((c->ncounted + c->max_cases - 1) / c->max_cases > (c->sample > 1 ? c->sample : 1))
        c->sample = (int)((c->ncounted + c->max_cases - 1) / c->max_cases);
    return 0;
}

static void print_header(const ctx *c)
{
    if (c->wrank != 0) return;
    printf("test matrix: np=%d,", c->wsize);
    for (int coll = 0; coll < TOPOCOLL_NCOLL; coll++)
        if (coll_selected(c, coll)) printf(" %s %d", topocoll_coll_name((topocoll_coll)coll), c->nalgo[coll]);
    printf(" algorithms (+ auto)");
    if (c->family_mode == 1) printf(", all but the family hierarchical");
    if (c->family_mode == 2) printf(", families %s", c->families);
    if (c->entry_sample > 1) printf(", every %d-th hierarchical entry", c->entry_sample);
    printf("%s%s", c->quick ? ", quick" : "", c->large ? ", with large cases" : "");
    if (c->max_cases > 0) printf(", %ld matrix cases", c->ncounted);
    if (c->sample > 1) printf(", about 1 in %d of them run", c->sample);
    printf("\n");
    fflush(stdout);
}

/* Rank 0: what auto chose, failures by entry, notes. */
static void print_statistics(const ctx *c)
{
    for (int coll = 0; coll < TOPOCOLL_NCOLL; coll++) {
        int any = 0;
        if (!c->auto_served[coll]) continue;
        for (int i = 0; i <= c->nalgo[coll]; i++) any |= c->auto_served[coll][i];
        if (!any) continue;
        printf("auto selected (%s):", topocoll_coll_name((topocoll_coll)coll));
        for (int i = 0; i <= c->nalgo[coll]; i++)
            if (c->auto_served[coll][i])
                printf(" %s x%d", i < c->nalgo[coll] ? topocoll_variant_name((topocoll_coll)coll, i) : "(unknown)",
                       c->auto_served[coll][i]);
        printf("\n");
    }
    if (matrix_counts()->failed) {
        printf("failed cases by algorithm:");
        for (int coll = 0; coll < TOPOCOLL_NCOLL; coll++)
            for (int i = 0; c->fails[coll] && i <= c->nalgo[coll]; i++)
                if (c->fails[coll][i])
                    printf(" %s/%s %d", topocoll_coll_name((topocoll_coll)coll),
                           i == 0 ? "auto" : topocoll_variant_name((topocoll_coll)coll, i - 1), c->fails[coll][i]);
        printf("\n");
    }
    if (c->nsampled_out) printf("%d cases sampled out (--sample=%d)\n", c->nsampled_out, c->sample);
    if (c->nknown)
        printf("note: %d cases skipped for a known bug of the MPI library (pmodels/mpich#6540)\n", c->nknown);
    if (c->nbare)
        printf("note: %d declined cases were recognised by the class MPI_ERR_ARG alone (%s)\n", c->nbare,
               g_messages_readable ? "topocoll returned the bare class, without a message"
                                   : "this MPI library's MPI_Error_string does not return added error strings");
}

/* ---- main ---------------------------------------------------------------------------- */

/* Parts 1 to 4 and the user-op check.  0, or -1 on an infrastructure failure. */
static int run_parts(ctx *c, world *w)
{
    matrix mx, mixed;
    world_matrix(c, w, &mx);
    mixed = mx;
    mixed.bcast_mixed = 1;
    w->nmaps = g_one_node ? one_node_mappings(w->maps, c->wsize) : tm_make_mappings(w->maps, c->wsize);
    if (check_catalog(c) < 0 || fit_max_cases(c, w, &mx, &mixed) < 0) return -1;
    print_header(c);
    if (part_world(c, w, &mx) < 0 || part_halves(c, w) < 0 || part_world(c, w, &mixed) < 0 ||
        part_op_reuse(c, w) < 0 || check_user_ops(c) < 0)
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    static ctx c;
    static world w;
    int status = 0;

    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "MPI_Init failed\n");
        return 1;
    }
    if (parse_options(&c, argc, argv) != 0) {
        MPI_Finalize();
        return 2;
    }
    if (MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) != MPI_SUCCESS ||
        MPI_Comm_rank(MPI_COMM_WORLD, &c.wrank) != MPI_SUCCESS ||
        MPI_Comm_size(MPI_COMM_WORLD, &c.wsize) != MPI_SUCCESS || make_mpi_objects(&w) != 0) {
        fprintf(stderr, "MPI set-up failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
        return 1;
    }
    if (c.wsize > LARGE_MAX_NP) c.large = 0;
    probe_error_strings();
    make_types(&w);
    make_reds(&w);
    if (run_parts(&c, &w) < 0) {
        fprintf(stderr, "rank %d: test infrastructure failure, aborting\n", c.wrank);
        MPI_Abort(MPI_COMM_WORLD, 1);
        return 1;
    }
    if (free_mpi_objects(&w) != 0) {
        fprintf(stderr, "MPI_Type_free / MPI_Op_free failed\n");
        matrix_counts()->failed++;
    }
    if (c.wrank == 0) {
        print_statistics(&c);
        status = tc_test_summary_of(matrix_counts());
    }
    free_tables(&c);
    release_buffers();
    if (PMPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS) status = 1;
    if (MPI_Finalize() != MPI_SUCCESS) return 1;
    return status;
}
