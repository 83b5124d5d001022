/*
 * topocoll-a2a-paper: the calls, their verification, the timing loops and
 * the CSV rows (see a2a_paper.h).
 *
 * The problem is regular: every rank sends m bytes (MPI_BYTE) to every rank;
 * the total problem size of the paper is p*m.  Native calls go to the MPI
 * library directly (PMPI_Alltoall, PMPI_Alltoallv with every count m,
 * PMPI_Alltoallw with every type MPI_BYTE); "auto" is topocoll_alltoall
 * (topocoll's selection), any other name topocoll_alltoall_algorithm.
 *
 * Before an (algorithm, size) is timed its result is verified once: byte i
 * of the block for rank j of rank r is pat(r, j, i), the receive buffer is
 * filled with values that differ from the expected ones first, and every
 * rank counts the bytes that are wrong.  A wrong result is reported, that
 * (algorithm, size) is not timed, and the program exits 1 at the end.
 *
 * Timing, as the paper's: per iteration MPI_Barrier; t = MPI_Wtime(); call;
 * t = MPI_Wtime() - t; the iteration's time is the maximum over the ranks;
 * the reported value is the mean after Tukey's filter (the values outside
 * [Q1 - 1.5 IQR, Q3 + 1.5 IQR] dropped), beside the median and quartiles.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "a2a_paper.h"
#include "topocoll.h"

/* Buffers and argument vectors of one (communicator, m). */
typedef struct a2ap_bufs {
    unsigned char *s, *r;
    int *cnt, *dsp;         /* alltoallv: m, j m */
    int *wcnt, *wdsp;       /* alltoallw: m, j m bytes */
    MPI_Datatype *wtype;    /* alltoallw: MPI_BYTE */
    int p, m;
} a2ap_bufs;

static unsigned char pat(int r, int j, size_t i)
{
    return (unsigned char)(r * 37 + j * 11 + (int)(i % 251) * 3 + 5);
}

static void bufs_free(a2ap_bufs *b)
{
    free(b->s);
    free(b->r);
    free(b->cnt);
    free(b->dsp);
    free(b->wcnt);
    free(b->wdsp);
    free(b->wtype);
    memset(b, 0, sizeof *b);
}

static int bufs_make(a2ap_bufs *b, int p, int m)
{
    size_t bytes = (size_t)p * (size_t)m;
    memset(b, 0, sizeof *b);
    b->p = p;
    b->m = m;
    b->s = malloc(bytes ? bytes : 1);
    b->r = malloc(bytes ? bytes : 1);
    b->cnt = malloc((size_t)p * sizeof *b->cnt);
    b->dsp = malloc((size_t)p * sizeof *b->dsp);
    b->wcnt = malloc((size_t)p * sizeof *b->wcnt);
    b->wdsp = malloc((size_t)p * sizeof *b->wdsp);
    b->wtype = malloc((size_t)p * sizeof *b->wtype);
    if (!b->s || !b->r || !b->cnt || !b->dsp || !b->wcnt || !b->wdsp || !b->wtype) {
        bufs_free(b);
        return MPI_ERR_NO_MEM;
    }
    for (int j = 0; j < p; j++) {
        b->cnt[j] = b->wcnt[j] = m;
        b->dsp[j] = b->wdsp[j] = j * m;
        b->wtype[j] = MPI_BYTE;
    }
    return MPI_SUCCESS;
}

static int call(const char *algo, a2ap_bufs *b, MPI_Comm comm)
{
    if (strcmp(algo, "MPI_Alltoall") == 0)
        return PMPI_Alltoall(b->s, b->m, MPI_BYTE, b->r, b->m, MPI_BYTE, comm);
    if (strcmp(algo, "MPI_Alltoallv") == 0)
        return PMPI_Alltoallv(b->s, b->cnt, b->dsp, MPI_BYTE, b->r, b->cnt, b->dsp, MPI_BYTE, comm);
    if (strcmp(algo, "MPI_Alltoallw") == 0)
        return PMPI_Alltoallw(b->s, b->wcnt, b->wdsp, b->wtype, b->r, b->wcnt, b->wdsp, b->wtype,
                              comm);
    if (strcmp(algo, "auto") == 0)
        return topocoll_alltoall(b->s, b->m, MPI_BYTE, b->r, b->m, MPI_BYTE, comm);
    return topocoll_alltoall_algorithm(algo, b->s, b->m, MPI_BYTE, b->r, b->m, MPI_BYTE, comm);
}

/* 1: algo serves m bytes per block on comm (same answer on every rank);
 * 0: it declines (*why); -1: unknown name. */
static int applicable(const char *algo, int m, MPI_Comm comm, const char **why)
{
    *why = "";
    if (strncmp(algo, "MPI_", 4) == 0 || strcmp(algo, "auto") == 0) {
        int known = strcmp(algo, "MPI_Alltoall") == 0 || strcmp(algo, "MPI_Alltoallv") == 0 ||
                    strcmp(algo, "MPI_Alltoallw") == 0 || strcmp(algo, "auto") == 0;
        return known ? 1 : -1;
    }
    int ok = topocoll_applicable(TOPOCOLL_ALLTOALL, algo, m, MPI_BYTE, m, MPI_BYTE, MPI_OP_NULL, 0,
                                 comm, why);
    if (ok < 0) return -1;
    int all = ok, rc = MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    return rc == MPI_SUCCESS ? all : 0;
}

/* One verified call: 0 right on every rank, 1 wrong somewhere, -1 a failed
 * call.  inject: corrupt this rank's result first (the test that a wrong
 * result is caught). */
static int verify(const char *algo, a2ap_bufs *b, const a2ap_comm *k, int inject)
{
    size_t m = (size_t)b->m;
    for (int j = 0; j < b->p; j++)
        for (size_t i = 0; i < m; i++) {
            b->s[(size_t)j * m + i] = pat(k->rank, j, i);
            b->r[(size_t)j * m + i] = (unsigned char)~pat(j, k->rank, i);
        }
    int rc = call(algo, b, k->comm);
    if (inject && rc == MPI_SUCCESS && m > 0) b->r[0] ^= 0x5a;
    long long bad = 0, allbad = 0;
    for (int j = 0; j < b->p && rc == MPI_SUCCESS; j++)
        for (size_t i = 0; i < m; i++) bad += b->r[(size_t)j * m + i] != pat(j, k->rank, i);
    if (rc != MPI_SUCCESS) bad = -1;
    if (MPI_Allreduce(&bad, &allbad, 1, MPI_LONG_LONG, MPI_SUM, k->comm) != MPI_SUCCESS) return -1;
    long long fail = bad < 0, anyfail = 0;
    if (MPI_Allreduce(&fail, &anyfail, 1, MPI_LONG_LONG, MPI_MAX, k->comm) != MPI_SUCCESS) return -1;
    if (anyfail) return -1;
    return allbad > 0;
}

/* iters timed calls; tmax (rank 0) gets each iteration's maximum over the
 * ranks.  Returns MPI_SUCCESS or the first failing call's code. */
static int time_calls(const char *algo, a2ap_bufs *b, MPI_Comm comm, int root, int warmup,
                      int iters, double *t, double *tmax)
{
    int rc = MPI_SUCCESS, anyrc = 0;
    for (int i = 0; i < warmup && rc == MPI_SUCCESS; i++) rc = call(algo, b, comm);
    for (int i = 0; i < iters; i++) {
        t[i] = 0.0;
        if (MPI_Barrier(comm) != MPI_SUCCESS) return MPI_ERR_OTHER;
        double t0 = MPI_Wtime();
        if (rc == MPI_SUCCESS) rc = call(algo, b, comm);
        t[i] = MPI_Wtime() - t0;
    }
    int mine = rc != MPI_SUCCESS;
    if (MPI_Allreduce(&mine, &anyrc, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS) return MPI_ERR_OTHER;
    if (MPI_Reduce(t, tmax, iters, MPI_DOUBLE, MPI_MAX, root, comm) != MPI_SUCCESS) return MPI_ERR_OTHER;
    return anyrc ? (rc != MPI_SUCCESS ? rc : MPI_ERR_OTHER) : MPI_SUCCESS;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void a2ap_stats_of(double *x, int n, a2ap_stats *s)
{
    memset(s, 0, sizeof *s);
    s->n = n;
    if (n <= 0) return;
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    s->q1 = bench_quantile_sorted(x, n, 0.25);
    s->q3 = bench_quantile_sorted(x, n, 0.75);
    s->median = bench_quantile_sorted(x, n, 0.5);
    s->min = x[0];
    double iqr = s->q3 - s->q1, lo = s->q1 - 1.5 * iqr, hi = s->q3 + 1.5 * iqr, sum = 0.0;
    for (int i = 0; i < n; i++)
        if (x[i] >= lo && x[i] <= hi) {
            sum += x[i];
            s->kept++;
        }
    s->mean = s->kept > 0 ? sum / s->kept : s->median;   /* the median lies inside: kept >= 1 */
}

void a2ap_csv_head(a2ap_ctx *c)
{
    if (c->wrank != 0) return;
    fprintf(c->csv, "figure,setup,comm,p,nodes,algorithm,block_bytes,total_bytes,iters,kept,"
                    "mean_us,median_us,q1_us,q3_us,min_us,status\n");
}

void a2ap_csv_row(a2ap_ctx *c, int fig, const a2ap_comm *k, const char *algo, size_t m,
                  const a2ap_stats *s, const char *status)
{
    if (c->wrank != 0) return;
    a2ap_stats z;
    if (s == NULL) {
        memset(&z, 0, sizeof z);
        s = &z;
    }
    fprintf(c->csv, "%d,%s,%s,%d,%d,%s,%zu,%zu,%d,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%s\n", fig, c->o.label,
            k->name, k->p, k->nnodes, algo, m, m * (size_t)k->p, s->n, s->kept, s->mean * 1e6,
            s->median * 1e6, s->q1 * 1e6, s->q3 * 1e6, s->min * 1e6, status);
    c->rows++;
}

static int in_list(const char *a, const char *const *l, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(a, l[i]) == 0) return 1;
    return 0;
}

/* Verify, then time, one algorithm at m bytes per block; writes its rows.
 * Returns 0, or -1 when communication failed (the run cannot go on). */
static int measure_one(a2ap_ctx *c, const a2ap_comm *k, int fig, const char *algo, a2ap_bufs *b,
                       double *t, double *tmax, int fig7)
{
    const char *why;
    a2ap_stats s;
    int ok = applicable(algo, b->m, k->comm, &why);
    if (ok < 0) {
        if (c->wrank == 0) fprintf(stderr, A2AP_PROG ": unknown algorithm '%s'\n", algo);
        c->failed++;
        return 0;
    }
    if (ok == 0) {
        a2ap_csv_row(c, fig, k, algo, (size_t)b->m, NULL, "declined");
        return 0;
    }
    int inject = c->o.inject && strcmp(c->o.inject, algo) == 0 && c->wrank == 0;
    int v = verify(algo, b, k, inject);
    c->verified++;
    if (v != 0) {
        if (c->wrank == 0)
            fprintf(stderr, A2AP_PROG ": %s on %s, %d bytes per block: %s\n", algo, k->name, b->m,
                    v > 0 ? "WRONG RESULT" : "the call failed");
        if (v > 0) c->wrong++; else c->failed++;
        a2ap_csv_row(c, fig, k, algo, (size_t)b->m, NULL, v > 0 ? "wrong" : "error");
        return 0;
    }
    int rc = time_calls(algo, b, k->comm, k->root, c->o.warmup, c->o.iters, t, tmax);
    if (rc != MPI_SUCCESS) c->failed++;
    if (k->rank == k->root) a2ap_stats_of(tmax, c->o.iters, &s);
    a2ap_csv_row(c, fig, k, algo, (size_t)b->m, &s, rc == MPI_SUCCESS ? "ok" : "error");
    if (fig7) a2ap_csv_row(c, 7, k, algo, (size_t)b->m, &s, rc == MPI_SUCCESS ? "ok" : "error");
    return 0;
}

int a2ap_measure(a2ap_ctx *c, const a2ap_comm *k, int fig, const char *const *algos, int nalgos,
                 int fig7, const char *const *fig7_algos, int nfig7)
{
    double *t = malloc((size_t)c->o.iters * sizeof *t), *tmax = malloc((size_t)c->o.iters * sizeof *tmax);
    int last_m = -1, rc = 0;
    if (!t || !tmax) rc = -1;
    for (int si = 0; si < c->o.nsizes && rc == 0; si++) {
        size_t m = c->o.sizes[si] / (size_t)k->p;
        if (m == 0 || m > (size_t)INT32_MAX / (size_t)k->p || (int)m == last_m) continue;
        last_m = (int)m;
        a2ap_bufs b;
        if (bufs_make(&b, k->p, (int)m) != MPI_SUCCESS) {
            rc = -1;
            break;
        }
        if (c->o.verbose && c->wrank == 0)
            fprintf(stderr, A2AP_PROG ": figure %d, %s, %zu bytes per block\n", fig, k->name, m);
        for (int a = 0; a < nalgos && rc == 0; a++)
            rc = measure_one(c, k, fig, algos[a], &b, t, tmax,
                             fig7 && in_list(algos[a], fig7_algos, nfig7));
        bufs_free(&b);
    }
    free(t);
    free(tmax);
    return rc;
}

/* ---- Figure 4: communicator creation ------------------------------------- */

/* The paper's Figure 2 plus the node-sorted rank map: node-local
 * communicator (MPI_Comm_split_type, or MPI_Comm_split by the virtual node),
 * bridge of the local roots, node id to every member, and the ranks sorted
 * by node (counting sort of the allgathered node ids). */
static int paper_split(MPI_Comm comm, int virtual_topo, int node, int *ids, int *map, int p)
{
    MPI_Comm local = MPI_COMM_NULL, bridge = MPI_COMM_NULL;
    int rank, lrank, nid = 0, rc;
    if ((rc = MPI_Comm_rank(comm, &rank)) != MPI_SUCCESS) return rc;
    rc = virtual_topo ? MPI_Comm_split(comm, node, rank, &local)
                      : MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_rank(local, &lrank);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_split(comm, lrank == 0 ? 0 : MPI_UNDEFINED, rank, &bridge);
    if (rc == MPI_SUCCESS && bridge != MPI_COMM_NULL) rc = MPI_Comm_rank(bridge, &nid);
    if (rc == MPI_SUCCESS) rc = MPI_Bcast(&nid, 1, MPI_INT, 0, local);
    if (rc == MPI_SUCCESS) rc = MPI_Allgather(&nid, 1, MPI_INT, ids, 1, MPI_INT, comm);
    if (rc == MPI_SUCCESS) {
        int at = 0;
        for (int n = 0; at < p; n++)   /* nodes 0.. in order; every node has a rank */
            for (int r = 0; r < p; r++)
                if (ids[r] == n) map[at++] = r;
    }
    if (bridge != MPI_COMM_NULL) (void)MPI_Comm_free(&bridge);
    if (local != MPI_COMM_NULL) (void)MPI_Comm_free(&local);
    return rc;
}

/* Time of step `what` (0: the paper's split; 1: topocoll's first call of
 * the composition `algo` on a fresh duplicate; 2: its second call) for one
 * repetition. */
static int creation_rep(const a2ap_comm *sub, int what, const char *algo, int virtual_topo, int node,
                        int *ids, int *map, double *t)
{
    unsigned char sb[1024], rb[1024];
    MPI_Comm d = MPI_COMM_NULL;
    int rc = MPI_SUCCESS;
    memset(sb, 1, sizeof sb);
    if (what > 0 && (rc = MPI_Comm_dup(sub->comm, &d)) != MPI_SUCCESS) return rc;
    if (what == 2) rc = topocoll_alltoall_algorithm(algo, sb, 1, MPI_BYTE, rb, 1, MPI_BYTE, d);
    if (rc == MPI_SUCCESS) rc = MPI_Barrier(sub->comm);
    double t0 = MPI_Wtime();
    if (rc == MPI_SUCCESS)
        rc = what == 0 ? paper_split(sub->comm, virtual_topo, node, ids, map, sub->p)
                       : topocoll_alltoall_algorithm(algo, sb, 1, MPI_BYTE, rb, 1, MPI_BYTE, d);
    *t = MPI_Wtime() - t0;
    if (d != MPI_COMM_NULL) {
        int rc2 = MPI_Comm_free(&d);
        if (rc == MPI_SUCCESS) rc = rc2;
    }
    return rc;
}

int a2ap_creation(a2ap_ctx *c, const a2ap_comm *sub, int virtual_topo, int node)
{
    /* bridge needs nodes of equal size; bridge_w (same communicators) serves any */
    const char *why, *algo = applicable("bridge", 1, sub->comm, &why) == 1 ? "bridge" : "bridge_w";
    int eq = strcmp(algo, "bridge") == 0;
    const char *names[3] = {virtual_topo ? "split+bridge+map" : "split_type+bridge+map",
                            eq ? "topocoll_first_bridge" : "topocoll_first_bridge_w",
                            eq ? "topocoll_steady_bridge" : "topocoll_steady_bridge_w"};
    int n = c->o.reps, rc = MPI_SUCCESS;
    double *t = malloc((size_t)n * sizeof *t), *tmax = malloc((size_t)n * sizeof *tmax);
    int *ids = malloc((size_t)sub->p * sizeof *ids), *map = malloc((size_t)sub->p * sizeof *map);
    if (!t || !tmax || !ids || !map) rc = MPI_ERR_NO_MEM;
    if (sub->p > 1024) rc = MPI_ERR_ARG;   /* the 1-byte blocks' buffers */
    for (int what = 0; what < 3 && rc == MPI_SUCCESS; what++) {
        for (int i = 0; i < n && rc == MPI_SUCCESS; i++)
            rc = creation_rep(sub, what, algo, virtual_topo, node, ids, map, &t[i]);
        if (rc == MPI_SUCCESS) rc = MPI_Reduce(t, tmax, n, MPI_DOUBLE, MPI_MAX, sub->root, sub->comm);
        a2ap_stats s;
        if (rc == MPI_SUCCESS && sub->rank == sub->root) a2ap_stats_of(tmax, n, &s);
        if (rc == MPI_SUCCESS) a2ap_csv_row(c, 4, sub, names[what], 0, &s, "ok");
    }
    free(t);
    free(tmax);
    free(ids);
    free(map);
    if (rc != MPI_SUCCESS) c->failed++;
    return rc;
}
