/*
 * The list of collectives (include/topocoll_colls.h) against what is made
 * from it, row by row: the enum value is the row's index; the descriptor
 * has the row's collective, name and override variable; the name finds the
 * collective again; the catalog has a table for it with its "native"
 * entry; the configuration reads TOPOCOLL_<UPPER> as the collective's
 * forced algorithm; the shape is one of the list's.  No MPI.  Ends with
 * "N passed, M failed".
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "algo/catalog.h"
#include "coll/coll.h"
#include "coll/desc.h"
#include "core/config.h"
#include "common/harness.h"

typedef struct row {
    topocoll_coll coll;
    const char *upper, *lower, *mpi, *shape;
} row;

#define ROW(UPPER, lower, Mpi, SHAPE) { TOPOCOLL_##UPPER, #UPPER, #lower, #Mpi, #SHAPE },
static const row rows[] = { TOPOCOLL_COLLS(ROW) };
#define NROWS ((int)(sizeof rows / sizeof rows[0]))

static const char *const shapes[] = { "TWO_BUFFERS",      "TWO_BUFFERS_ROOT",  "ONE_BUFFER",
                                      "REDUCTION",        "REDUCTION_ROOT",    "VECTORS",
                                      "RECV_VECTORS",     "RECV_VECTORS_ROOT", "SEND_VECTORS_ROOT",
                                      "REDUCTION_COUNTS", "TYPE_VECTORS",      "NO_BUFFERS" };

static int known_shape(const char *s)
{
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        if (strcmp(s, shapes[i]) == 0) return 1;
    return 0;
}

static void identity(void)
{
    CHECK(NROWS == TOPOCOLL_NCOLL, "one row per collective (%d rows, %d collectives)", NROWS, (int)TOPOCOLL_NCOLL);
    for (int i = 0; i < NROWS; i++) {
        const row *r = &rows[i];
        const tc_coll_desc *d = tc_coll_desc_of(r->coll);
        char env[64];
        snprintf(env, sizeof env, "TOPOCOLL_%s", r->upper);
        CHECK((int)r->coll == i, "%s: enum value %d is its row %d", r->lower, (int)r->coll, i);
        CHECK(d && d->coll == r->coll, "%s: its descriptor", r->lower);
        if (!d) continue;
        CHECK(strcmp(d->name, r->lower) == 0, "%s: descriptor name %s", r->lower, d->name);
        CHECK(strcmp(d->env, env) == 0, "%s: descriptor variable %s", r->lower, d->env);
        CHECK(tc_coll_from_name(r->lower) == (int)r->coll, "%s: found by its name", r->lower);
        CHECK(strcmp(tc_coll_name(r->coll), r->lower) == 0, "%s: tc_coll_name", r->lower);
        CHECK(strncasecmp(r->mpi, r->lower, strlen(r->lower)) == 0 && strlen(r->mpi) == strlen(r->lower),
              "%s: MPI name MPI_%s is the same word", r->lower, r->mpi);
        CHECK(known_shape(r->shape), "%s: shape %s is one of the list's", r->lower, r->shape);
    }
}

static void catalog(void)
{
    for (int i = 0; i < NROWS; i++) {
        const row *r = &rows[i];
        const tc_catalog_row *t = tc_catalog_table(r->coll);
        CHECK(t && (t->algo || t->family), "%s: a catalog table with entries", r->lower);
        const tc_algo *n = tc_catalog_find(r->coll, "native");
        CHECK(n && n->coll == r->coll, "%s: its \"native\" entry", r->lower);
    }
}

/* TOPOCOLL_<UPPER>=<name> is the collective's forced algorithm, no other's. */
static void overrides(void)
{
    for (int i = 0; i < NROWS; i++) {
        char env[64], val[64];
        snprintf(env, sizeof env, "TOPOCOLL_%s", rows[i].upper);
        snprintf(val, sizeof val, "forced_%s", rows[i].lower);
        setenv(env, val, 1);
    }
    tc_config_reload();
    const tc_config *c = tc_config_get();
    for (int i = 0; i < NROWS; i++) {
        char val[64];
        snprintf(val, sizeof val, "forced_%s", rows[i].lower);
        const char *f = c->force[rows[i].coll];
        CHECK(f && strcmp(f, val) == 0, "%s: TOPOCOLL_%s read as its forced algorithm (%s)", rows[i].lower,
              rows[i].upper, f ? f : "NULL");
    }
}

int main(void)
{
    identity();
    catalog();
    overrides();
    return tc_test_summary();
}
