/*
 * Agreement: every rank of a communicator must choose the same algorithm
 * for a call, and an erroneous call must fail on every rank instead of
 * hanging.  A plain MPI program (MPI only), run with the interposer
 * preloaded; one mode per run:
 *
 *   split   5 ranks under TOPOCOLL_TOPOLOGY=2x2x*: the overlapping
 *           communicators {0,2,4} and {2,3,4} (same size, node, socket and
 *           per-node counts, different members), default selection; reduce,
 *           bcast, gather and scatter at 4 B - 1 MiB per rank on the first
 *           and then on the second, every result checked.  A choice carried
 *           from the first communicator to the second made ranks 2 and 4
 *           choose otherwise than rank 3 there, and the call hung.
 *   root    TOPOCOLL_CHECK=1: an MPI_Bcast whose root differs between ranks
 *           (rank 0 says 0, the others 1): every rank must get an error whose
 *           string says "root differs".
 *   badroot TOPOCOLL_CHECK=1: an MPI_Bcast whose root is out of range at
 *           rank 1 only (an error only rank 1 can see): every rank must get
 *           MPI_ERR_ROOT, the others' naming rank 1, instead of waiting.
 *   counts  TOPOCOLL_CHECK=1: an MPI_Alltoall whose counts differ between
 *           ranks (rank 0 sends and receives 2 ints per peer, the others 1),
 *           and an MPI_Alltoallv whose rank 0 sends one int more to rank 1
 *           than rank 1 expects: every rank must get an error naming the
 *           counts.
 *   match   TOPOCOLL_CHECK=1, correct calls: the split sweep plus an
 *           alltoall and alltoallv, all must pass.
 *   vsize   an MPI_Alltoallv whose ranks' selection sizes (each rank's own
 *           mean part) lie on both sides of a tuning file's rule (rank 0
 *           sends 32 ints to each peer, the others 1; the rule: h1 from 64
 *           bytes): every rank must choose alike and the result be right.
 *   malformed  TOPOCOLL_CHECK set to something else than 0 or 1: a correct
 *           MPI_Bcast fails on every rank with an error naming the variable.
 *
 * A watchdog (alarm) turns a hang into a failure that names the case.
 * Prints "agree: OK" on rank 0 when the mode passed.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char current[160] = "start";
static int world_rank;

static void on_alarm(int sig)
{
    (void)sig;
    char line[256];
    int n = snprintf(line, sizeof line, "agree: rank %d: timed out in %s (a hang)\n", world_rank, current);
    if (n > 0) (void)!write(2, line, (size_t)n);
    _exit(3);
}

static int fail(const char *what)
{
    fprintf(stderr, "agree: rank %d: FAILED: %s (%s)\n", world_rank, what, current);
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
}

/* The communicator of the listed world ranks (MPI_COMM_NULL elsewhere). */
static MPI_Comm group_comm(const int *ranks, int n)
{
    MPI_Group world, g;
    MPI_Comm c;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, n, ranks, &g);
    MPI_Comm_create(MPI_COMM_WORLD, g, &c);
    MPI_Group_free(&g);
    MPI_Group_free(&world);
    return c;
}

static int value(int origin, int i, int salt) { return origin * 1000003 + i * 7 + salt; }

static void run_reduce(MPI_Comm c, int n, int root)
{
    int r, p;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &p);
    int *in = malloc((size_t)n * sizeof *in), *out = malloc((size_t)n * sizeof *out);
    for (int i = 0; i < n; i++) in[i] = (r + 1) * (i % 97 + 1), out[i] = -1;
    if (MPI_Reduce(in, out, n, MPI_INT, MPI_SUM, root, c) != MPI_SUCCESS) fail("MPI_Reduce returned an error");
    if (r == root)
        for (int i = 0; i < n; i++)
            if (out[i] != p * (p + 1) / 2 * (i % 97 + 1)) fail("wrong reduce result");
    free(in);
    free(out);
}

static void run_bcast(MPI_Comm c, int n, int root)
{
    int r;
    MPI_Comm_rank(c, &r);
    int *buf = malloc((size_t)n * sizeof *buf);
    for (int i = 0; i < n; i++) buf[i] = r == root ? value(root, i, n) : -1;
    if (MPI_Bcast(buf, n, MPI_INT, root, c) != MPI_SUCCESS) fail("MPI_Bcast returned an error");
    for (int i = 0; i < n; i++)
        if (buf[i] != value(root, i, n)) fail("wrong bcast result");
    free(buf);
}

static void run_gather(MPI_Comm c, int n, int root)
{
    int r, p;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &p);
    int *in = malloc((size_t)n * sizeof *in), *out = malloc((size_t)n * (size_t)p * sizeof *out);
    for (int i = 0; i < n; i++) in[i] = value(r, i, n);
    for (int i = 0; i < n * p; i++) out[i] = -1;
    if (MPI_Gather(in, n, MPI_INT, out, n, MPI_INT, root, c) != MPI_SUCCESS) fail("MPI_Gather returned an error");
    if (r == root)
        for (int j = 0; j < p; j++)
            for (int i = 0; i < n; i++)
                if (out[j * n + i] != value(j, i, n)) fail("wrong gather result");
    free(in);
    free(out);
}

static void run_scatter(MPI_Comm c, int n, int root)
{
    int r, p;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &p);
    int *in = malloc((size_t)n * (size_t)p * sizeof *in), *out = malloc((size_t)n * sizeof *out);
    for (int j = 0; j < p; j++)
        for (int i = 0; i < n; i++) in[j * n + i] = value(j, i, n + 1);
    for (int i = 0; i < n; i++) out[i] = -1;
    if (MPI_Scatter(in, n, MPI_INT, out, n, MPI_INT, root, c) != MPI_SUCCESS)
        fail("MPI_Scatter returned an error");
    for (int i = 0; i < n; i++)
        if (out[i] != value(r, i, n + 1)) fail("wrong scatter result");
    free(in);
    free(out);
}

typedef void (*coll_fn)(MPI_Comm, int, int);

/* Each collective at 4 B - 1 MiB per rank, root 0 and the last rank, on
 * a and then on b (one of them MPI_COMM_NULL at ranks outside it). */
static void split_sweep(MPI_Comm a, MPI_Comm b)
{
    static const struct { const char *name; coll_fn fn; } colls[] = {
        { "reduce", run_reduce }, { "bcast", run_bcast }, { "gather", run_gather }, { "scatter", run_scatter },
    };
    static const int bytes[] = { 4, 64, 1024, 8192, 32768, 65536, 262144, 1048576 };
    for (size_t k = 0; k < sizeof colls / sizeof colls[0]; k++)
        for (size_t s = 0; s < sizeof bytes / sizeof bytes[0]; s++)
            for (int root = 0; root < 3; root += 2)
                for (int side = 0; side < 2; side++) {
                    MPI_Comm c = side ? b : a;
                    snprintf(current, sizeof current, "%s of %d bytes, root %d, on %s", colls[k].name,
                             bytes[s], root, side ? "{2,3,4}" : "{0,2,4}");
                    if (c != MPI_COMM_NULL) colls[k].fn(c, bytes[s] / 4, root);
                }
}

static void mode_split(void)
{
    static const int ra[] = { 0, 2, 4 }, rb[] = { 2, 3, 4 };
    MPI_Comm a = group_comm(ra, 3), b = group_comm(rb, 3);
    split_sweep(a, b);
    if (a != MPI_COMM_NULL) MPI_Comm_free(&a);
    if (b != MPI_COMM_NULL) MPI_Comm_free(&b);
}

/* Does MPI_Error_string return the strings of MPI_Add_error_string?  MPICH
 * 4.0's does not (it prints a stale error stack): there only the class is
 * checked. */
static int messages_readable(void)
{
    static const char text[] = "agree probe";
    char s[MPI_MAX_ERROR_STRING];
    int code, len = 0;
    return MPI_Add_error_code(MPI_ERR_ARG, &code) == MPI_SUCCESS && MPI_Add_error_string(code, text) == MPI_SUCCESS &&
           MPI_Error_string(code, s, &len) == MPI_SUCCESS && strcmp(s, text) == 0;
}

/* An erroneous call's return code: an error of class want_class, whose
 * string holds want where the MPI library returns added strings. */
static void expect_error(int rc, const char *want, int want_class)
{
    char s[MPI_MAX_ERROR_STRING] = "";
    int len = 0, cls = -1;
    if (rc == MPI_SUCCESS) fail("an erroneous call succeeded");
    MPI_Error_string(rc, s, &len);
    MPI_Error_class(rc, &cls);
    if (cls != want_class) {
        fprintf(stderr, "agree: rank %d: error class %d ('%s'), want %d\n", world_rank, cls, s, want_class);
        fail("the error's class is not the disagreement's");
    }
    if (messages_readable() && !strstr(s, want)) {
        fprintf(stderr, "agree: rank %d: error string '%s' lacks '%s'\n", world_rank, s, want);
        fail("the error does not name the disagreement");
    }
    if (world_rank == 0) printf("agree: %s: rank 0 got: %s\n", current, s);
}

static void mode_root(void)
{
    int buf[64] = { 0 };
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    snprintf(current, sizeof current, "MPI_Bcast with differing roots");
    expect_error(MPI_Bcast(buf, 64, MPI_INT, world_rank == 0 ? 0 : 1, MPI_COMM_WORLD), "root differs", MPI_ERR_ROOT);
}

static void mode_badroot(void)
{
    int buf[64] = { 0 }, p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    snprintf(current, sizeof current, "MPI_Bcast with a root out of range at rank 1");
    expect_error(MPI_Bcast(buf, 64, MPI_INT, world_rank == 1 ? p : 0, MPI_COMM_WORLD),
                 world_rank == 1 ? "outside" : "rank 1 found its arguments invalid", MPI_ERR_ROOT);
}

static void mode_counts(void)
{
    int p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int *sbuf = calloc(2 * (size_t)p + 2, sizeof *sbuf), *rbuf = calloc(2 * (size_t)p + 2, sizeof *rbuf);
    int *sc = calloc((size_t)p, sizeof *sc), *sd = calloc((size_t)p, sizeof *sd);
    int *rc = calloc((size_t)p, sizeof *rc), *rd = calloc((size_t)p, sizeof *rd);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int n = world_rank == 0 ? 2 : 1;
    snprintf(current, sizeof current, "MPI_Alltoall with counts differing between ranks");
    expect_error(MPI_Alltoall(sbuf, n, MPI_INT, rbuf, n, MPI_INT, MPI_COMM_WORLD), "count", MPI_ERR_COUNT);
    for (int j = 0; j < p; j++) sc[j] = rc[j] = 1, sd[j] = rd[j] = 2 * j;
    if (world_rank == 0) sc[1] = 2;   /* rank 1 expects one int from rank 0 */
    snprintf(current, sizeof current, "MPI_Alltoallv with a send count that its receiver does not expect");
    expect_error(MPI_Alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, MPI_COMM_WORLD), "count", MPI_ERR_COUNT);
    free(sbuf), free(rbuf), free(sc), free(sd), free(rc), free(rd);
}

static void mode_malformed(void)
{
    int buf[4] = { 0 };
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    snprintf(current, sizeof current, "MPI_Bcast under a malformed TOPOCOLL_CHECK");
    expect_error(MPI_Bcast(buf, 4, MPI_INT, 0, MPI_COMM_WORLD), "TOPOCOLL_CHECK=", MPI_ERR_ARG);
}

/* Each rank writes the same tuning file (before MPI_Init: the configuration
 * is read at the first topocoll call). */
static char tuning[64];

static void write_tuning(void)
{
    snprintf(tuning, sizeof tuning, "/tmp/topocoll_agree_%ld.json", (long)getpid());
    FILE *f = fopen(tuning, "w");
    if (!f) return;
    fputs("{ \"alltoallv\": [ { \"bytes\": [64, 0], \"algorithms\": [\"h1\"] } ] }\n", f);
    fclose(f);
    setenv("TOPOCOLL_TUNING_FILE", tuning, 1);
}

static void mode_vsize(void)
{
    int p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int *sbuf = malloc(32 * (size_t)p * sizeof *sbuf), *rbuf = malloc(32 * (size_t)p * sizeof *rbuf);
    int *sc = malloc((size_t)p * sizeof *sc), *sd = malloc((size_t)p * sizeof *sd);
    int *rc = malloc((size_t)p * sizeof *rc), *rd = malloc((size_t)p * sizeof *rd);
    for (int j = 0; j < p; j++) {
        for (int i = 0; i < 32; i++) sbuf[32 * j + i] = value(world_rank, j * 32 + i, 1), rbuf[32 * j + i] = -1;
        sc[j] = world_rank == 0 ? 32 : 1, sd[j] = 32 * j;
        rc[j] = j == 0 ? 32 : 1, rd[j] = 32 * j;
    }
    snprintf(current, sizeof current, "MPI_Alltoallv, selection sizes on both sides of a rule");
    if (MPI_Alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, MPI_COMM_WORLD) != MPI_SUCCESS)
        fail("alltoallv failed");
    for (int j = 0; j < p; j++)
        for (int i = 0; i < rc[j]; i++)
            if (rbuf[32 * j + i] != value(j, world_rank * 32 + i, 1)) fail("wrong alltoallv result");
    free(sbuf), free(rbuf), free(sc), free(sd), free(rc), free(rd);
}

static void mode_match(void)
{
    int p;
    mode_split();
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int *sbuf = malloc(4 * (size_t)p * sizeof *sbuf), *rbuf = malloc(4 * (size_t)p * sizeof *rbuf);
    int *sc = malloc((size_t)p * sizeof *sc), *sd = malloc((size_t)p * sizeof *sd);
    int *rc = malloc((size_t)p * sizeof *rc), *rd = malloc((size_t)p * sizeof *rd);
    for (int j = 0; j < p; j++) {
        for (int i = 0; i < 4; i++) sbuf[4 * j + i] = value(world_rank, j * 4 + i, 0);
        sc[j] = 1 + (world_rank + j) % 3, sd[j] = 4 * j;   /* i to j: 1 + (i + j) % 3 */
        rc[j] = 1 + (j + world_rank) % 3, rd[j] = 4 * j;
    }
    snprintf(current, sizeof current, "MPI_Alltoall, matching");
    if (MPI_Alltoall(sbuf, 4, MPI_INT, rbuf, 4, MPI_INT, MPI_COMM_WORLD) != MPI_SUCCESS) fail("alltoall failed");
    for (int j = 0; j < p; j++)
        for (int i = 0; i < 4; i++)
            if (rbuf[4 * j + i] != value(j, world_rank * 4 + i, 0)) fail("wrong alltoall result");
    snprintf(current, sizeof current, "MPI_Alltoallv, matching");
    if (MPI_Alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, MPI_COMM_WORLD) != MPI_SUCCESS)
        fail("alltoallv failed");
    for (int j = 0; j < p; j++)
        for (int i = 0; i < rc[j]; i++)
            if (rbuf[4 * j + i] != value(j, world_rank * 4 + i, 0)) fail("wrong alltoallv result");
    free(sbuf), free(rbuf), free(sc), free(sd), free(rc), free(rd);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "split";
    int timeout = argc > 2 ? atoi(argv[2]) : 60, size;
    if (!strcmp(mode, "vsize")) write_tuning();
    signal(SIGALRM, on_alarm);
    alarm((unsigned)timeout);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!strcmp(mode, "split") || !strcmp(mode, "match")) {
        if (size != 5) return fail("split and match need 5 ranks");
        if (!strcmp(mode, "split")) mode_split();
        else mode_match();
    } else if (!strcmp(mode, "root")) {
        if (size < 2) return fail("root needs 2 ranks or more");
        mode_root();
    } else if (!strcmp(mode, "badroot")) {
        if (size < 2) return fail("badroot needs 2 ranks or more");
        mode_badroot();
    } else if (!strcmp(mode, "counts")) {
        if (size < 2) return fail("counts needs 2 ranks or more");
        mode_counts();
    } else if (!strcmp(mode, "vsize")) {
        mode_vsize();
    } else if (!strcmp(mode, "malformed")) {
        mode_malformed();
    } else {
        return fail("unknown mode (split, root, badroot, counts, vsize, match, malformed)");
    }
    /* every rank got here: the calls above did not hang */
    snprintf(current, sizeof current, "the final barrier");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    PMPI_Barrier(MPI_COMM_WORLD);   /* the test's own synchronisation, not under test */
    if (world_rank == 0) printf("agree: OK (%s)\n", mode);
    if (tuning[0]) remove(tuning);
    MPI_Finalize();
    return 0;
}
