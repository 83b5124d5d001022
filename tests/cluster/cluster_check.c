/*
 * cluster_check: topocoll on real (emulated) nodes, run by
 * tests/cluster/run_cluster_tests.sh under tools/cluster/topocoll-cluster.
 *
 * 1. Detection: the topology topocoll detects on MPI_COMM_WORLD (no virtual
 *    topology) must group the ranks exactly as their host names do: same node
 *    <=> same hostname, as many nodes as distinct host names, node_index the
 *    rank's position among its node's ranks.  The same holds on a split
 *    communicator (even/odd world ranks, reversed order), whose topology is
 *    inherited from its members' places.
 * 2. The allgather of every algorithm of the catalog (whatever it holds when
 *    this runs: no names are assumed) and of topocoll's own selection ("auto"),
 *    against PMPI_Allgather: on MPI_COMM_WORLD counts 0, 1, 1000 and 65536
 *    ints, and 1000 in place; on the split communicator 1000.  An algorithm
 *    that declines is counted skipped.
 *
 *   cluster_check [--quick] [--sample=K] [--expect-nodes N] [--expect-hosts h0,h1,...]
 *                 [--loop SECONDS]
 *
 *   --quick            world: counts 1 and 1000 only (MPICH: oversubscribed ranks spin)
 *   --sample=K         every K-th algorithm of the catalog, plus native and auto
 *   --expect-nodes N   world must have N nodes (a failure otherwise)
 *   --expect-hosts L   rank r must run on the r-th host name of the list
 *   --loop S           after the checks, call topocoll_allgather in a loop for S
 *                      seconds (for the fault test); rank 0 prints "looping"
 *
 * Rank 0 prints "topocoll: nodes=N sockets=S ..." and ends with
 * "N passed, M failed, K skipped"; the exit status is 1 on any failure.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "topocoll.h"
#include "../common/harness.h"

#define HOSTLEN 64

static int wrank, wsize, quick, sample = 1;

/* Every rank's verdict: a case passes only when it passed everywhere. */
static int agree(int ok_local, MPI_Comm comm)
{
    int ok = 0;
    MPI_Allreduce(&ok_local, &ok, 1, MPI_INT, MPI_MIN, comm);
    return ok;
}

/* One case; ok is agreed over MPI_COMM_WORLD by the caller, so every rank
 * counts the same; rank 0 prints a failure. */
static void count(int ok, const char *what)
{
    if (wrank == 0) CHECK(ok, "%s", what);
    else if (ok) tc_test_counts_global.passed++;
    else tc_test_counts_global.failed++;
}

/* Hostnames of every rank of comm, hostlen bytes each. */
static char *gather_hosts(MPI_Comm comm, int size)
{
    char me[HOSTLEN];
    char *all = malloc((size_t)size * HOSTLEN);
    memset(me, 0, sizeof me);
    gethostname(me, sizeof me - 1);
    if (!all) MPI_Abort(MPI_COMM_WORLD, 1);
    PMPI_Allgather(me, HOSTLEN, MPI_CHAR, all, HOSTLEN, MPI_CHAR, comm);
    return all;
}

/* Detected topology of comm vs the ranks' hostnames. */
static int check_detection(MPI_Comm comm, const char *what, int expect_nodes)
{
    int size, rank, nnodes = -1, nsockets = -1, ok = 1, distinct = 0;
    char *hosts;
    char text[512];
    topocoll_rank_place *pl;

    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    hosts = gather_hosts(comm, size);
    pl = calloc((size_t)size, sizeof *pl);
    if (!pl) MPI_Abort(MPI_COMM_WORLD, 1);
    if (topocoll_topology_counts(comm, &nnodes, &nsockets) != MPI_SUCCESS) ok = 0;
    for (int r = 0; r < size && ok; r++)
        if (topocoll_topology_place(comm, r, &pl[r]) != MPI_SUCCESS) ok = 0;
    for (int r = 0; r < size; r++) {
        int first = 1;
        for (int q = 0; q < r; q++)
            if (strcmp(hosts + (size_t)q * HOSTLEN, hosts + (size_t)r * HOSTLEN) == 0) first = 0;
        distinct += first;
    }
    if (ok) {
        if (nnodes != distinct) ok = 0;
        if (expect_nodes > 0 && nnodes != expect_nodes) ok = 0;
        for (int r = 0; r < size && ok; r++) {
            int idx = 0;
            for (int q = 0; q < size; q++) {
                int same_host = strcmp(hosts + (size_t)q * HOSTLEN, hosts + (size_t)r * HOSTLEN) == 0;
                if (same_host != (pl[q].node == pl[r].node)) ok = 0;
                if (same_host && q < r) idx++;
            }
            if (pl[r].node < 0 || pl[r].node >= nnodes || pl[r].node_index != idx) ok = 0;
        }
    }
    if (topocoll_topology_describe(comm, text, (int)sizeof text) != MPI_SUCCESS)
        snprintf(text, sizeof text, "(no description)");
    if (rank == 0) {
        printf("topocoll: %s: nodes=%d sockets=%d distinct_hosts=%d: %s\n", what, nnodes, nsockets,
               distinct, text);
        printf("  hosts by rank:");
        for (int r = 0; r < size; r++) printf(" %s", hosts + (size_t)r * HOSTLEN);
        printf("\n");
        fflush(stdout);
    }
    free(pl);
    free(hosts);
    return ok;
}

static int check_hosts(const char *list)
{
    char me[HOSTLEN], buf[4096], *save = NULL, *tok;
    int r = 0, ok = 0;
    memset(me, 0, sizeof me);
    gethostname(me, sizeof me - 1);
    snprintf(buf, sizeof buf, "%s", list);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save), r++)
        if (r == wrank) ok = strcmp(tok, me) == 0;
    if (r != wsize) ok = 0;
    if (!ok) fprintf(stderr, "rank %d: runs on %s, expected the %d-th of %s\n", wrank, me, wrank, list);
    return ok;
}

/* One allgather of algo (NULL: topocoll's selection) on comm; 1 ok, 0 wrong,
 * -1 declined (the same on every rank of comm, or it is wrong). */
static int one_case(MPI_Comm comm, const char *algo, int count, int in_place)
{
    int size, rank, ok = 1, appl = 1, rc;
    size_t n;
    int *send, *recv, *ref;

    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    if (algo) {
        appl = topocoll_allgather_applicable(algo, count, MPI_INT, count, MPI_INT, comm, NULL);
        int mm[2] = { appl, -appl };          /* min and -max in one reduction */
        MPI_Allreduce(MPI_IN_PLACE, mm, 2, MPI_INT, MPI_MIN, comm);
        if (mm[0] != -mm[1] || mm[0] < 0) return 0;
        if (mm[0] == 0) return -1;
    }
    n = (size_t)count * (size_t)size;
    send = malloc((size_t)count * sizeof(int) + 1);
    recv = malloc(n * sizeof(int) + 1);
    ref = malloc(n * sizeof(int) + 1);
    if (!send || !recv || !ref) MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < count; i++) send[i] = rank * 1000003 + i * 7 + 1;
    PMPI_Allgather(send, count, MPI_INT, ref, count, MPI_INT, comm);
    memset(recv, 0xA5, n * sizeof(int));
    if (in_place) memcpy(recv + (size_t)rank * count, send, (size_t)count * sizeof(int));
    const void *sb = in_place ? MPI_IN_PLACE : send;
    rc = algo ? topocoll_allgather_algorithm(algo, sb, count, MPI_INT, recv, count, MPI_INT, comm)
              : topocoll_allgather(sb, count, MPI_INT, recv, count, MPI_INT, comm);
    if (rc != MPI_SUCCESS || memcmp(recv, ref, n * sizeof(int)) != 0) ok = 0;
    for (size_t i = 0; ok && i < n; i++)
        if (ref[i] != (int)(i / (size_t)count) * 1000003 + (int)(i % (size_t)count) * 7 + 1) ok = 0;
    free(send);
    free(recv);
    free(ref);
    return ok;
}

typedef struct mcase { int count, in_place; } mcase;

/* Every algorithm (or every sample-th, with native and auto) on world and on
 * sub (MPI_COMM_NULL: none); one line per algorithm on rank 0. */
static void run_matrix(MPI_Comm sub)
{
    static const mcase world_full[] = { { 0, 0 }, { 1, 0 }, { 1000, 0 }, { 65536, 0 }, { 1000, 1 } };
    static const mcase world_quick[] = { { 1, 0 }, { 1000, 1 } };
    static const mcase sub_cases[] = { { 1000, 0 } };
    const mcase *wc = quick ? world_quick : world_full;
    const int nwc = quick ? 2 : 5, nsc = sub != MPI_COMM_NULL ? 1 : 0;
    int nalgo = topocoll_variant_count(TOPOCOLL_ALLGATHER), tested = 0;
    for (int a = -1; a < nalgo; a++) {
        const char *algo = a < 0 ? NULL : topocoll_variant_name(TOPOCOLL_ALLGATHER, a);
        const char *label = algo ? algo : "auto";
        int passed = 0, failed = 0, skipped = 0;
        if (algo && sample > 1 && a % sample != 0 && strcmp(algo, "native") != 0) continue;
        tested++;
        for (int c = 0; c < nwc + nsc; c++) {
            const mcase *mc = c < nwc ? &wc[c] : &sub_cases[c - nwc];
            MPI_Comm comm = c < nwc ? MPI_COMM_WORLD : sub;
            int r = one_case(comm, algo, mc->count, mc->in_place);
            /* agreed over the world: min and -max of r in one reduction */
            int mm[2] = { r, -r };
            MPI_Allreduce(MPI_IN_PLACE, mm, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
            if (mm[0] == 0) {
                failed++;
                if (wrank == 0)
                    printf("FAILED: %s on %s count=%d in_place=%d\n", label,
                           c < nwc ? "world" : "even/odd", mc->count, mc->in_place);
            } else if (mm[0] < 0) {
                skipped++;
            } else {
                passed++;
            }
        }
        tc_test_counts_global.passed += passed;
        tc_test_counts_global.failed += failed;
        tc_test_counts_global.skipped += skipped;
        if (wrank == 0 && (failed || skipped || a < 0 || tested <= 12 || sample > 1)) {
            printf("  %-28s %d passed, %d failed, %d declined\n", label, passed, failed, skipped);
            fflush(stdout);
        }
    }
    if (wrank == 0) {
        printf("  (%d of %d algorithms + auto; lines only for the first ones, declines and failures)\n",
               tested - 1, nalgo);
        fflush(stdout);
    }
}

typedef struct options {
    int expect_nodes;
    double loop;
    const char *expect_hosts;
} options;

/* 0, or 2 for a usage error. */
static int parse_args(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) quick = 1;
        else if (strncmp(argv[i], "--sample=", 9) == 0 && atoi(argv[i] + 9) >= 1) sample = atoi(argv[i] + 9);
        else if (strcmp(argv[i], "--expect-nodes") == 0 && i + 1 < argc) o->expect_nodes = atoi(argv[++i]);
        else if (strcmp(argv[i], "--expect-hosts") == 0 && i + 1 < argc) o->expect_hosts = argv[++i];
        else if (strcmp(argv[i], "--loop") == 0 && i + 1 < argc) o->loop = atof(argv[++i]);
        else {
            if (wrank == 0)
                fprintf(stderr, "usage: %s [--quick] [--sample=K] [--expect-nodes N] [--expect-hosts h0,h1,...] [--loop S]\n",
                        argv[0]);
            return 2;
        }
    }
    return 0;
}

/* Part 1: placement and detection on MPI_COMM_WORLD and on the even and odd
 * world ranks, reversed (each half inherits its members' places; *sub). */
static void check_topologies(const options *o, MPI_Comm *sub)
{
    if (o->expect_hosts) {
        char what[512];
        snprintf(what, sizeof what, "rank placement differs from %s", o->expect_hosts);
        count(agree(check_hosts(o->expect_hosts), MPI_COMM_WORLD), what);
    }
    count(agree(check_detection(MPI_COMM_WORLD, "world", o->expect_nodes), MPI_COMM_WORLD),
          "detected topology of MPI_COMM_WORLD does not match the host names");
    if (wsize >= 2) {
        MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wsize - wrank, sub);
        MPI_Comm_set_errhandler(*sub, MPI_ERRORS_RETURN);
        count(agree(check_detection(*sub, wrank % 2 ? "odd ranks" : "even ranks", 0), MPI_COMM_WORLD),
              "topology of a split communicator does not match the host names");
    }
}

/* --loop: topocoll_allgather for `seconds` (for the fault test). */
static void loop_allgather(double seconds)
{
    int buf[1024], *all = malloc((size_t)wsize * sizeof buf);
    double t0 = MPI_Wtime();
    long iters = 0;
    int stop = 0;
    if (!all) MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < 1024; i++) buf[i] = wrank + i;
    if (wrank == 0) {
        printf("looping for %g s\n", seconds);
        fflush(stdout);
    }
    while (!stop) {
        if (topocoll_allgather(buf, 1024, MPI_INT, all, 1024, MPI_INT, MPI_COMM_WORLD) != MPI_SUCCESS) {
            fprintf(stderr, "rank %d: allgather failed in the loop\n", wrank);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        iters++;
        stop = MPI_Wtime() - t0 > seconds;
        MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    if (wrank == 0) printf("loop done: %ld allgathers\n", iters);
    free(all);
}

int main(int argc, char **argv)
{
    options o;
    MPI_Comm sub = MPI_COMM_NULL;
    int status = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (parse_args(argc, argv, &o) != 0) {
        MPI_Finalize();
        return 2;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    check_topologies(&o, &sub);
    if (wrank == 0) {
        printf("allgather on the detected topology against PMPI_Allgather "
               "(world: %s; even/odd ranks: 1000):\n", quick ? "1, 1000 in place" :
               "0, 1, 1000, 65536, 1000 in place");
        fflush(stdout);
    }
    run_matrix(sub);
    if (o.loop > 0) loop_allgather(o.loop);

    if (sub != MPI_COMM_NULL) MPI_Comm_free(&sub);
    if (wrank == 0) status = tc_test_summary();
    else status = tc_test_counts_global.failed || tc_test_counts_global.passed == 0;
    MPI_Finalize();
    return status;
}
