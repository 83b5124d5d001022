/*
 * Communicator churn: many short-lived communicators of odd shapes, each
 * made, used by every collective (results checked) and freed, and what
 * topocoll's per-communicator contexts cost and leave behind.
 *
 * Shapes, by cycle: one rank each (MPI_Comm_split by rank); pairs;
 * two irregular groups whose sizes change from cycle to cycle; the even
 * and the odd ranks through MPI_Comm_create_group; a duplicate of a
 * duplicate of MPI_COMM_WORLD; an inter-communicator (not served: the
 * call fails with MPI_ERR_COMM and makes nothing).  Most communicators see
 * one round of the ten collectives, some three rounds (past
 * TOPOCOLL_CONTEXT_AFTER, which this program sets to 16), some start with
 * a call by algorithm name.
 *
 Per communicator: a one-rank communicator gets no context; a
 * communicator whose calls by selection stay within TOPOCOLL_CONTEXT_AFTER
 * does not either; one used longer, or called by algorithm name, gets
 * exactly one.  What the context makes is also seen through the MPI
 * standard's attribute callbacks: every communicator carries an attribute
 * whose copy callback counts the copies made of it and travels onto them,
 * and whose delete callback counts those freed.  topocoll's private
 * duplicate (MPI_Comm_create_group: Open MPI 4.1 copies attributes there,
 * MPICH does not, which the program asks first) is the only copy; after
 * MPI_Comm_free none is left.  A context's topology (derived from MPI_COMM_WORLD's)
 * is the one detection on the communicator finds.  At the end the count of
 * contexts alive in the process is what it was before the churn.
 *
 * Arguments: [cycles] (default 1200).
 */
#define _POSIX_C_SOURCE 200809L   /* setenv */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topocoll.h"
#include "api/context.h"
#include "detect/detect.h"
#include "common/mpi_harness.h"

#define CONTEXT_AFTER 16
#define COLLS 10   /* calls in one round */

static int wrank, wsize;
static int copies;        /* duplicates of the test's communicators made */
static int live_copies;   /* ... and not freed yet */
static int keyval = MPI_KEYVAL_INVALID;
static int group_copies;  /* MPI_Comm_create_group copies attributes here (Open MPI 4.1 does, MPICH not) */
static char original, copied;   /* attribute values: the test's communicator, a duplicate */

/* The duplicate of a test communicator carries the attribute; a duplicate
 * of that (MPI's own, inside a shared-memory window) does not. */
static int copy_fn(MPI_Comm comm, int key, void *extra, void *in, void *out, int *flag)
{
    (void)comm, (void)key, (void)extra;
    *flag = in == &original;
    if (*flag) {
        copies++;
        live_copies++;
        *(void **)out = &copied;
    }
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm, (void)key, (void)extra;
    if (value == &copied) live_copies--;
    return MPI_SUCCESS;
}

/* ---- one round of every collective, results checked ----------------------- */

typedef struct use {
    MPI_Comm comm;
    int rank, size, cycle, k;   /* k: calls so far (data and roots vary with it) */
} use;

static void ok(use *u, int rc, int good, const char *what)
{
    CHECK(rc == MPI_SUCCESS && good, "rank %d cycle %d: %s on %d ranks, call %d: rc %d, %s", wrank, u->cycle,
          what, u->size, u->k, rc, good ? "result right" : "wrong result");
    u->k++;
}

static void allgather(use *u)
{
    int p = u->size, s = u->rank * 100 + u->k, *r = malloc((size_t)p * sizeof *r), good = 1;
    int rc = topocoll_allgather(&s, 1, MPI_INT, r, 1, MPI_INT, u->comm);
    for (int j = 0; j < p; j++) good &= r[j] == j * 100 + u->k;
    free(r);
    ok(u, rc, good, "allgather");
}

static void bcast(use *u)
{
    int root = u->k % u->size, v[3] = { -1, -1, -1 };
    if (u->rank == root) v[0] = root, v[1] = u->k, v[2] = 7;
    int rc = topocoll_bcast(v, 3, MPI_INT, root, u->comm);
    ok(u, rc, v[0] == root && v[1] == u->k && v[2] == 7, "bcast");
}

static void scatter(use *u)
{
    int p = u->size, root = (u->k + 1) % p, *s = malloc((size_t)p * 2 * sizeof *s), r[2] = { -1, -1 };
    for (int j = 0; j < p; j++) s[2 * j] = j * 7 + u->k, s[2 * j + 1] = -j;
    int rc = topocoll_scatter(s, 2, MPI_INT, r, 2, MPI_INT, root, u->comm);
    free(s);
    ok(u, rc, r[0] == u->rank * 7 + u->k && r[1] == -u->rank, "scatter");
}

static void gather(use *u)
{
    int p = u->size, root = (u->k + 2) % p, s = u->rank * 3 + u->k, *r = malloc((size_t)p * sizeof *r), good = 1;
    int rc = topocoll_gather(&s, 1, MPI_INT, r, 1, MPI_INT, root, u->comm);
    if (u->rank == root)
        for (int j = 0; j < p; j++) good &= r[j] == j * 3 + u->k;
    free(r);
    ok(u, rc, good, "gather");
}

static void reduce(use *u)
{
    int p = u->size, root = u->k % p, s[2] = { u->rank + u->k, 1 }, r[2] = { -1, -1 };
    int rc = topocoll_reduce(s, r, 2, MPI_INT, MPI_SUM, root, u->comm);
    int good = u->rank != root || (r[0] == p * (p - 1) / 2 + p * u->k && r[1] == p);
    ok(u, rc, good, "reduce");
}

static void reduce_scatter_block(use *u)
{
    int p = u->size, *s = malloc((size_t)p * sizeof *s), r = -1;
    for (int j = 0; j < p; j++) s[j] = u->rank + j + u->k;
    int rc = topocoll_reduce_scatter_block(s, &r, 1, MPI_INT, MPI_SUM, u->comm);
    free(s);
    ok(u, rc, r == p * (p - 1) / 2 + p * (u->rank + u->k), "reduce_scatter_block");
}

static void alltoall(use *u)
{
    int p = u->size, *s = malloc((size_t)p * sizeof *s), *r = malloc((size_t)p * sizeof *r), good = 1;
    for (int j = 0; j < p; j++) s[j] = u->rank * 1000 + j + u->k;
    int rc = topocoll_alltoall(s, 1, MPI_INT, r, 1, MPI_INT, u->comm);
    for (int j = 0; j < p; j++) good &= r[j] == j * 1000 + u->rank + u->k;
    free(s);
    free(r);
    ok(u, rc, good, "alltoall");
}

/* Rank j sends j % 2 + 1 ints to each peer, packed. */
static void alltoallv(use *u)
{
    int p = u->size, mine = u->rank % 2 + 1, good = 1;
    int *sc = malloc(4 * (size_t)p * sizeof *sc), *sd = sc + p, *rcn = sc + 2 * p, *rd = sc + 3 * p;
    int *s = malloc((size_t)p * 2 * sizeof *s), *r = malloc((size_t)p * 2 * sizeof *r);
    for (int j = 0, at = 0; j < p; j++) {
        sc[j] = mine, sd[j] = j * 2, rcn[j] = j % 2 + 1, rd[j] = at;
        at += rcn[j];
        for (int e = 0; e < mine; e++) s[j * 2 + e] = u->rank * 1000 + j * 10 + e + u->k;
    }
    int rc = topocoll_alltoallv(s, sc, sd, MPI_INT, r, rcn, rd, MPI_INT, u->comm);
    for (int j = 0; j < p; j++)
        for (int e = 0; e < rcn[j]; e++) good &= r[rd[j] + e] == j * 1000 + u->rank * 10 + e + u->k;
    free(sc);
    free(s);
    free(r);
    ok(u, rc, good, "alltoallv");
}

static void allreduce(use *u)
{
    int p = u->size, s[8], r[8], good = 1;
    for (int i = 0; i < 8; i++) s[i] = u->rank + i + u->k;
    int rc = topocoll_allreduce(s, r, 8, MPI_INT, MPI_SUM, u->comm);
    for (int i = 0; i < 8; i++) good &= r[i] == p * (p - 1) / 2 + p * (i + u->k);
    ok(u, rc, good, "allreduce");
}

/* Rank j contributes j % 3 + 1 ints, at displacements with a gap of one. */
static void allgatherv(use *u)
{
    int p = u->size, mine = u->rank % 3 + 1, s[3], good = 1, at = 0;
    int *cnt = malloc(2 * (size_t)p * sizeof *cnt), *dsp = cnt + p;
    for (int j = 0; j < p; j++) cnt[j] = j % 3 + 1, dsp[j] = at, at += cnt[j] + 1;
    int *r = malloc((size_t)at * sizeof *r);
    for (int i = 0; i < at; i++) r[i] = -1;
    for (int e = 0; e < mine; e++) s[e] = u->rank * 10 + e + u->k;
    int rc = topocoll_allgatherv(s, mine, MPI_INT, r, cnt, dsp, MPI_INT, u->comm);
    for (int j = 0; j < p; j++) {
        for (int e = 0; e < cnt[j]; e++) good &= r[dsp[j] + e] == j * 10 + e + u->k;
        good &= r[dsp[j] + cnt[j]] == -1;
    }
    free(cnt);
    free(r);
    ok(u, rc, good, "allgatherv");
}

static void round_of_all(use *u)
{
    allgather(u);
    bcast(u);
    scatter(u);
    gather(u);
    reduce(u);
    reduce_scatter_block(u);
    alltoall(u);
    alltoallv(u);
    allreduce(u);
    allgatherv(u);
}

/* ---- the shapes --------------------------------------------------------------- */

enum { SELF, PAIRS, IRREGULAR, CREATE_GROUP, DUP_OF_DUP, INTER, NSHAPES };

/* The cycle's communicator (MPI_COMM_NULL: this rank is in none). */
static MPI_Comm make(int shape, int cycle, MPI_Comm *extra)
{
    MPI_Comm c = MPI_COMM_NULL;
    *extra = MPI_COMM_NULL;
    switch (shape) {
    case SELF: MPI_Comm_split(MPI_COMM_WORLD, wrank, 0, &c); break;
    case PAIRS: MPI_Comm_split(MPI_COMM_WORLD, wrank / 2, wrank, &c); break;
    case IRREGULAR: {   /* the first cycle % wsize + 1 ranks, the rest reversed, one rank left out at times */
        int first = cycle % wsize + 1, color = wrank < first ? 0 : 1;
        if (cycle % 3 == 0 && wsize > 2 && wrank == wsize - 1) color = MPI_UNDEFINED;
        MPI_Comm_split(MPI_COMM_WORLD, color, color == 1 ? wsize - wrank : wrank, &c);
        break;
    }
    case CREATE_GROUP: {
        MPI_Group world, mine;
        int n = (wsize - wrank % 2 + 1) / 2, *ranks = malloc((size_t)n * sizeof *ranks);
        for (int i = 0; i < n; i++) ranks[i] = wrank % 2 + 2 * i;
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        MPI_Group_incl(world, n, ranks, &mine);
        MPI_Comm_create_group(MPI_COMM_WORLD, mine, 5, &c);
        MPI_Group_free(&mine);
        MPI_Group_free(&world);
        free(ranks);
        break;
    }
    case DUP_OF_DUP:
        MPI_Comm_dup(MPI_COMM_WORLD, extra);
        MPI_Comm_dup(*extra, &c);
        break;
    default: {   /* INTER: the lower and the upper half */
        MPI_Comm half;
        int low = wrank < wsize / 2;
        MPI_Comm_split(MPI_COMM_WORLD, low, wrank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? wsize / 2 : 0, 9, &c);
        *extra = half;
        break;
    }
    }
    return c;
}

/* An inter-communicator: refused, nothing made. */
static void inter(int cycle, MPI_Comm c)
{
    int s = wrank, r = -1, cls = MPI_SUCCESS;
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    int rc = topocoll_allreduce(&s, &r, 1, MPI_INT, MPI_SUM, c);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COMM, "rank %d cycle %d: allreduce on an inter-communicator: error class %d, "
          "expected MPI_ERR_COMM", wrank, cycle, cls);
}

/* A context's topology (taken from MPI_COMM_WORLD's where every rank has
 * it) is what detection on the communicator finds. */
static void same_topology(use *u)
{
    tc_topo *t = NULL;
    int rc = tc_topo_detect(u->comm, &t), nnodes = -1, nsockets = -1, same = rc == MPI_SUCCESS;
    char mine[300] = "", fresh[300] = "";
    topocoll_topology_counts(u->comm, &nnodes, &nsockets);
    topocoll_topology_describe(u->comm, mine, (int)sizeof mine);
    if (same) {
        snprintf(fresh, sizeof fresh, "%s: %d ranks, %d nodes, %d sockets", t->desc, u->size, t->nnodes, t->nsockets);
        same = nnodes == t->nnodes && nsockets == t->nsockets && strcmp(mine, fresh) == 0;
        for (int r = 0; r < u->size && same; r++) {
            topocoll_rank_place pl;
            same = topocoll_topology_place(u->comm, r, &pl) == MPI_SUCCESS && pl.node == t->node_of[r] &&
                   pl.socket == t->sock_of[r] && pl.node_index == t->node_idx[r] && pl.socket_index == t->sock_idx[r];
        }
    }
    CHECK(same, "rank %d cycle %d: the context's topology '%s' is not the detected '%s' (rc %d)", wrank, u->cycle,
          mine, fresh, rc);
    tc_topo_free(t);
}

static void cycle_of(int cycle)
{
    int shape = cycle % NSHAPES;
    if (shape == INTER && wsize < 2) shape = PAIRS;
    MPI_Comm extra, c = make(shape, cycle, &extra);
    int before = copies;
    if (c != MPI_COMM_NULL) {
        MPI_Comm_set_attr(c, keyval, &original);
        if (shape == INTER) {
            inter(cycle, c);
        } else {
            use u = { c, 0, 0, cycle, 0 };
            MPI_Comm_rank(c, &u.rank);
            MPI_Comm_size(c, &u.size);
            int by_name = cycle % 40 == 13, rounds = cycle % 25 == 7 ? 3 : 1;
            if (by_name) {   /* makes the context at once, whatever the size */
                int s = 1, r = 0;
                int rc = topocoll_allreduce_algorithm("native", &s, &r, 1, MPI_INT, MPI_SUM, c);
                ok(&u, rc, r == u.size, "allreduce by name");
            }
            for (int i = 0; i < rounds; i++) round_of_all(&u);
            int want = by_name || (u.size > 1 && rounds * COLLS > CONTEXT_AFTER);
            const tc_ctx *x = tc_ctx_lookup(c);
            int made = x != NULL && x->built, copied = copies - before;
            CHECK(made == want, "rank %d cycle %d: %d rank%s, %d calls%s: %s context, expected %s", wrank, cycle,
                  u.size, u.size == 1 ? "" : "s", u.k, by_name ? " (the first by name)" : "", made ? "a" : "no",
                  want ? "one" : "none");
            int dups = want && group_copies;   /* the context's own duplicate, as the MPI library shows it */
            CHECK(copied == dups, "rank %d cycle %d: %d rank%s, %d calls%s: %d duplicate%s made "
                  "of the communicator, expected %d", wrank, cycle, u.size, u.size == 1 ? "" : "s", u.k,
                  by_name ? " (the first by name)" : "", copied, copied == 1 ? "" : "s", dups);
            if (made) same_topology(&u);   /* detects again: its own copies, freed at once */
        }
        MPI_Comm_free(&c);
    }
    if (extra != MPI_COMM_NULL) MPI_Comm_free(&extra);
    CHECK(live_copies == 0, "rank %d cycle %d: %d duplicate%s left after MPI_Comm_free", wrank, cycle,
          live_copies, live_copies == 1 ? "" : "s");
    live_copies = 0;   /* one report per leak */
}

/* Does MPI_Comm_create_group copy attributes, as a duplicate does?  (topocoll
 * makes its contexts' duplicates with it; Open MPI 4.1 copies, MPICH not.) */
static int create_group_copies(void)
{
    MPI_Comm probe, made;
    MPI_Group group;
    MPI_Comm_split(MPI_COMM_WORLD, 0, wrank, &probe);
    MPI_Comm_set_attr(probe, keyval, &original);
    MPI_Comm_group(probe, &group);
    MPI_Comm_create_group(probe, group, 3, &made);
    int copied = copies > 0;
    MPI_Group_free(&group);
    MPI_Comm_free(&made);
    MPI_Comm_free(&probe);
    copies = live_copies = 0;
    return copied;
}

int main(int argc, char **argv)
{
    setenv("TOPOCOLL_CONTEXT_AFTER", "16", 1);   /* before topocoll reads its configuration */
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    int cycles = argc > 1 ? atoi(argv[1]) : 1200;
    MPI_Comm_create_keyval(copy_fn, delete_fn, &keyval, NULL);
    group_copies = create_group_copies();
    int v = 1, sum = 0;   /* MPI_COMM_WORLD's context first: it stays */
    topocoll_allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int made0 = 0, alive0 = tc_ctx_alive(&made0);
    for (int i = 0; i < cycles; i++) cycle_of(i);
    int made = 0, alive = tc_ctx_alive(&made);
    CHECK(alive == alive0 && made == made0, "rank %d: %d contexts alive (%d made) after the churn, %d (%d) before",
          wrank, alive, made, alive0, made0);
    MPI_Comm_free_keyval(&keyval);
    int status = tc_test_mpi_summary(1);
    MPI_Finalize();
    return status;
}
