/*
 * One case of the test matrix (see matrix.h): the collective through
 * topocoll and through the MPI library's own PMPI_<Coll> on identical
 * inputs, the outputs compared element by element where MPI defines them
 * (the root of gather and reduce; block 0 of an in-place
 * reduce_scatter_block), the reference itself checked against the values
 * the test expects (reductions: the inputs folded in rank order with
 * PMPI_Reduce_local).  Receive buffers start filled with a sentinel byte and
 * end with a guard zone: gaps of derived types and the guard must come back
 * untouched.  Send buffers must come back unchanged.
 *
 * An algorithm that declines a case (MPI_ERRORS_RETURN; the call returns an
 * error of class MPI_ERR_ARG whose message says "declines"; where the MPI
 * library cannot return added error strings (MPICH 4.0) the class alone) is
 * counted as skipped, after checking that it left the buffers alone and that
 * every rank of the communicator declined; for allgather, also that
 * topocoll_allgather_applicable predicted it on every rank.
 *
 * Every case is agreed over MPI_COMM_WORLD (failure keys, MIN) before it is
 * counted, so the counts are the same on every rank; rank 0 reports.
 */
#define _POSIX_C_SOURCE 200809L
#include "matrix.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/harness.h"

/* One line of detail on stderr from the rank that saw it (capped per rank). */
#define detail(c, desc, ...) tm_detail((c)->wrank, &(c)->detail_lines, desc, __VA_ARGS__)

static const char *const key_text[NKEYS] = {
    "returned an error", "result differs from the PMPI reference",
    "PMPI reference differs from the expected values",
    "the send buffer was modified",
    "some ranks of the communicator declined, others did not",
    "declined, but modified a buffer",
    "topocoll_last_algorithm() does not name the forced algorithm",
    "node/socket counts differ from the spec",
    "topocoll_allgather_applicable disagrees across ranks or with the call",
    "declined", "ran", "declined (no message)"
};

tc_test_counts *matrix_counts(void)
{
    return &tc_test_counts_global;
}

static int is_note_key(int k)
{
    return k == K_DECLINED || k == K_SERVING || k == K_BARE;
}

static void init_keys(int64_t *keys)
{
    for (int i = 0; i < NKEYS; i++) keys[i] = INT64_MAX;
}

/* ---- the watchdog ------------------------------------------------------------ */

static char g_watch[DESC_LEN + 128];
static size_t g_watch_len;
static unsigned g_case_timeout = 120;

static void on_alarm(int sig)
{
    (void)sig;
    if (write(STDERR_FILENO, g_watch, g_watch_len) < 0) { /* nothing to do */ }
    _exit(3);
}

static void watch(const ctx *c, const char *desc)
{
    int n;
    if (!g_case_timeout) return;
    n = snprintf(g_watch, sizeof g_watch, "rank %d: TIMEOUT after %u s (hang?) in %s\n", c->wrank,
                 g_case_timeout, desc);
    g_watch_len = n < 0 ? 0 : (size_t)n >= sizeof g_watch ? sizeof g_watch - 1 : (size_t)n;
    alarm(g_case_timeout);
}

static void unwatch(void)
{
    if (g_case_timeout) alarm(0);
}

void watchdog_init(unsigned seconds)
{
    struct sigaction sa;
    g_case_timeout = seconds;
    if (!seconds) return;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
}

/* ---- agreement and counting --------------------------------------------------- */

/* Rank 0: the failed keys of a case. */
static void print_failure(const ctx *c, const int64_t *all, const char *desc, size_t unit)
{
    printf("FAIL %s\n", desc);
    for (int k = 0; k < NKEYS; k++) {
        long long d, r;
        if (is_note_key(k) || all[k] == INT64_MAX) continue;
        d = (long long)(all[k] / c->wsize);
        r = (long long)(all[k] % c->wsize);
        if ((k == K_DIFF || k == K_REF || k == K_SEND || k == K_DECL_BUF) && unit > 0)
            printf("     %s: first at world rank %lld, byte %lld (element %lld, byte %lld of it)\n",
                   key_text[k], r, d, d / (long long)unit, d % (long long)unit);
        else if (k == K_DIFF || k == K_REF || k == K_SEND || k == K_DECL_BUF)
            printf("     %s: first at world rank %lld, byte %lld\n", key_text[k], r, d);
        else if (k == K_RC)
            printf("     %s: first at world rank %lld (error class %lld)\n", key_text[k], r, d);
        else if (k == K_SPLIT)
            printf("     %s (a declining rank: world rank %lld)\n", key_text[k], r);
        else
            printf("     %s: first at world rank %lld\n", key_text[k], r);
    }
    fflush(stdout);
}

static void count_failure(ctx *c, const int64_t *all, const char *desc, size_t unit, const ccase *k)
{
    long nfailed = ++tc_test_counts_global.failed;
    if (k && c->fails[k->coll]) c->fails[k->coll][k->algo_index + 1]++;
    if (c->wrank != 0) return;
    if (nfailed == MAX_FAIL_LINES + 1 && !c->verbose)
        printf("(further failures are only counted; --verbose prints them all)\n");
    if (nfailed <= MAX_FAIL_LINES || c->verbose) print_failure(c, all, desc, unit);
}

/* split_check: the case ran on MPI_COMM_WORLD, so a mix of declining and
 * running ranks is a disagreement. */
int settle(ctx *c, int64_t *keys, const char *desc, size_t unit, int split_check, const ccase *k)
{
    int64_t all[NKEYS];
    int failed = 0;

    unwatch();
    if (PMPI_Allreduce(keys, all, NKEYS, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: PMPI_Allreduce failed\n", c->wrank);
        return -1;
    }
    if (split_check && all[K_DECLINED] != INT64_MAX && all[K_SERVING] != INT64_MAX &&
        all[K_SPLIT] == INT64_MAX)
        all[K_SPLIT] = all[K_DECLINED];
    for (int i = 0; i < NKEYS; i++)
        if (!is_note_key(i) && all[i] != INT64_MAX) failed = 1;
    if (failed) {
        count_failure(c, all, desc, unit, k);
        return 0;
    }
    if (all[K_SERVING] == INT64_MAX && all[K_DECLINED] != INT64_MAX) {
        SKIP();
        if (all[K_BARE] != INT64_MAX) c->nbare++;
        if (c->verbose && c->wrank == 0) printf("declined %s\n", desc);
    } else {
        tc_test_counts_global.passed++;
        if (c->verbose && c->wrank == 0) printf("ok %s\n", desc);
    }
    if (c->verbose && c->wrank == 0) fflush(stdout);
    return 1;
}

/* ---- the calls ------------------------------------------------------------------ */

/* The arguments of each shape of the list (include/topocoll_colls.h) from the
 * case's cargs: per-peer shapes read the vectors (vcnt, vdispl, vtype). */
#define MX_TWO_BUFFERS a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, comm
#define MX_TWO_BUFFERS_ROOT a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->root, comm
#define MX_ONE_BUFFER a->rbuf, a->rcount, a->rtype, a->root, comm
#define MX_REDUCTION a->sbuf, a->rbuf, a->rcount, a->rtype, a->op, comm
#define MX_REDUCTION_ROOT a->sbuf, a->rbuf, a->rcount, a->rtype, a->op, a->root, comm
#define MX_VECTORS \
    a->sbuf, a->vcnt[0], a->vdispl[0], a->stype, a->rbuf, a->vcnt[1], a->vdispl[1], a->rtype, comm
#define MX_RECV_VECTORS a->sbuf, a->scount, a->stype, a->rbuf, a->vcnt[1], a->vdispl[1], a->rtype, comm
#define MX_RECV_VECTORS_ROOT \
    a->sbuf, a->scount, a->stype, a->rbuf, a->vcnt[1], a->vdispl[1], a->rtype, a->root, comm
#define MX_SEND_VECTORS_ROOT \
    a->sbuf, a->vcnt[0], a->vdispl[0], a->stype, a->rbuf, a->rcount, a->rtype, a->root, comm
#define MX_REDUCTION_COUNTS a->sbuf, a->rbuf, a->vcnt[1], a->rtype, a->op, comm
#define MX_TYPE_VECTORS \
    a->sbuf, a->vcnt[0], a->vdispl[0], a->vtype[0], a->rbuf, a->vcnt[1], a->vdispl[1], a->vtype[1], comm
#define MX_NO_BUFFERS comm

#define MX_TOPOCOLL(UPPER, lower, Mpi, SHAPE) \
    case TOPOCOLL_##UPPER: return algo ? topocoll_##lower##_algorithm(algo, MX_##SHAPE) : topocoll_##lower(MX_##SHAPE);
#define MX_PMPI(UPPER, lower, Mpi, SHAPE) \
    case TOPOCOLL_##UPPER: return PMPI_##Mpi(MX_##SHAPE);
#define MX_NAME(UPPER, lower, Mpi, SHAPE) \
    case TOPOCOLL_##UPPER: return "PMPI_" #Mpi;

/* topocoll: algo == NULL is the selected path. */
static int call_topocoll(topocoll_coll coll, const char *algo, const cargs *a, MPI_Comm comm)
{
    switch (coll) {
        TOPOCOLL_COLLS(MX_TOPOCOLL)
    default:
        return MPI_ERR_INTERN;
    }
}

static int call_pmpi(topocoll_coll coll, const cargs *a, MPI_Comm comm)
{
    switch (coll) {
        TOPOCOLL_COLLS(MX_PMPI)
    default:
        return MPI_ERR_INTERN;
    }
}

static const char *pmpi_name(topocoll_coll coll)
{
    switch (coll) {
        TOPOCOLL_COLLS(MX_NAME)
    default: return "?";
    }
}

/* Does MPI_Error_string return the strings of MPI_Add_error_string?  MPICH
 * 4.0 does not (it prints a stale error stack instead), so topocoll's
 * messages cannot be read there. */
int g_messages_readable = 1;

void probe_error_strings(void)
{
    static const char text[] = "topocoll test: probe declines";
    char s[MPI_MAX_ERROR_STRING];
    int code, len = 0;
    if (MPI_Add_error_code(MPI_ERR_ARG, &code) != MPI_SUCCESS ||
        MPI_Add_error_string(code, text) != MPI_SUCCESS ||
        MPI_Error_string(code, s, &len) != MPI_SUCCESS || len <= 0 || strcmp(s, text) != 0)
        g_messages_readable = 0;
}

/* Is this error the algorithm declining the arguments?  1: yes, with the
 * message; 2: the class MPI_ERR_ARG without a readable message (topocoll ran
 * out of error codes for messages, or the MPI library does not return added
 * error strings); 0: no. */
static int is_decline(int rc)
{
    char s[MPI_MAX_ERROR_STRING];
    if (rc == MPI_SUCCESS || tm_err_class(rc) != MPI_ERR_ARG) return 0;
    if (rc == MPI_ERR_ARG || !g_messages_readable) return 2;
    tm_errstr(rc, s, (int)sizeof s);
    return strstr(s, "declines") != NULL;
}

static void describe(char *desc, const ctx *c, int casen, const char *where, int size,
                     const mapping *m, const ccase *k)
{
    char root[32] = "", what[160];
    if (is_rooted(k->coll)) snprintf(root, sizeof root, " root=%d", k->root);
    if (is_reduction(k->coll))
        snprintf(what, sizeof what, "type=%s op=%s", k->rc->type_name, k->rc->op_name);
    else
        snprintf(what, sizeof what, "type=%s", k->tc->name);
    snprintf(desc, DESC_LEN,
             "[case %d] np=%d comm=%s(size %d) mapping=%s%s%s%s coll=%s algorithm=%s%s count=%d %s in_place=%s",
             casen, c->wsize, where, size, m->name, m->spec[0] ? "(" : "", m->spec,
             m->spec[0] ? ")" : "", topocoll_coll_name(k->coll), k->algo ? k->algo : "auto", root,
             k->count, what, has_in_place(k->coll) ? (k->in_place ? "yes" : "no") : "n/a");
}

/* ---- one case ----------------------------------------------------------------- */

/* allgather by name: topocoll_allgather_applicable, the same on every rank of
 * comm (1 or 0, into *app).  Returns 0, or 1 when it already failed the case
 * (keys set), -1 on an infrastructure failure. */
static int allgather_applicable(ctx *c, const ccase *k, const bufs *b, MPI_Comm comm, const char *desc,
                                int64_t *keys, int *app)
{
    const char *why = NULL;
    int mm[2], agreed[2];
    int ip = k->in_place;
    /* In place, the send arguments are ignored: pass the receive ones. */
    *app = topocoll_allgather_applicable(k->algo, ip ? b->a.rcount : b->a.scount, ip ? b->a.rtype : b->a.stype,
                                         b->a.rcount, b->a.rtype, comm, &why);
    mm[0] = *app;
    mm[1] = -*app;
    if (PMPI_Allreduce(mm, agreed, 2, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: PMPI_Allreduce failed\n", c->wrank);
        return -1;
    }
    if (agreed[0] != -agreed[1] || agreed[0] < 0) {
        tm_set_key(keys, K_APPLY, 0, c->wrank, c->wsize);
        detail(c, desc, "topocoll_allgather_applicable returned %d here, %d..%d over the communicator", *app,
               agreed[0], -agreed[1]);
        return 1;
    }
    if (*app == 0 && c->verbose && c->wrank == 0)
        printf("     %s declines: %s\n", k->algo, why ? why : "(no reason)");
    return 0;
}

/* A declined call: it must have left both buffers alone. */
static void check_declined(ctx *c, const bufs *b, const char *desc, int declined, int64_t *keys)
{
    tm_set_key(keys, K_DECLINED, 0, c->wrank, c->wsize);
    if (declined == 2) tm_set_key(keys, K_BARE, 0, c->wrank, c->wsize);
    if (b->r) {
        long long d = tm_first_diff(b->r, b->r_ref, b->rtotal);   /* the initial image */
        if (d >= 0) {
            tm_set_key(keys, K_DECL_BUF, d, c->wrank, c->wsize);
            detail(c, desc, "declined, but changed receive byte %lld", d);
        }
    }
    if (b->s) {
        long long d = tm_first_diff(b->s, b->s_orig, b->sbytes);
        if (d >= 0) {
            tm_set_key(keys, K_DECL_BUF, d, c->wrank, c->wsize);
            detail(c, desc, "declined, but changed send byte %lld", d);
        }
    }
}

/* A call that ran: its status, the algorithm that served it, the send buffer. */
static void check_served(ctx *c, const ccase *k, bufs *b, int rc, const char *desc, int64_t *keys)
{
    if (rc != MPI_SUCCESS) {
        char s[MPI_MAX_ERROR_STRING];
        tm_errstr(rc, s, (int)sizeof s);
        tm_set_key(keys, K_RC, tm_err_class(rc), c->wrank, c->wsize);
        detail(c, desc, "returned %d: %s", rc, s);
    } else {
        const char *served = topocoll_last_algorithm();
        if (k->algo && (!served || strcmp(served, k->algo) != 0)) {
            tm_set_key(keys, K_SERVED, 0, c->wrank, c->wsize);
            detail(c, desc, "topocoll_last_algorithm() = \"%s\"", served ? served : "(null)");
        } else if (!k->algo && c->auto_served[k->coll]) {
            int i = served ? topocoll_variant_index(k->coll, served) : -1;
            int n = c->nalgo[k->coll];
            c->auto_served[k->coll][i >= 0 && i < n ? i : n]++;
        }
    }
    if (b->s) {
        long long d = tm_first_diff(b->s, b->s_orig, b->sbytes);
        if (d >= 0) {
            tm_set_key(keys, K_SEND, d, c->wrank, c->wsize);
            detail(c, desc, "send buffer changed at byte %lld: 0x%02x, was 0x%02x", d, b->s[d], b->s_orig[d]);
            memcpy(b->s, b->s_orig, b->sbytes);   /* the reference gets the right input */
        }
    }
}

/* The reference: the same call by the MPI library, into r_ref; compared
 * with topocoll's result and with the expected values.  -1 when out of
 * memory. */
static int check_reference(ctx *c, const ccase *k, bufs *b, MPI_Comm comm, const char *desc, int64_t *keys)
{
    cargs ra = b->a;
    unsigned char *init = NULL;
    int rc;
    if (ra.rbuf != MPI_IN_PLACE && ra.rbuf) ra.rbuf = b->r_ref;
    if (ra.sbuf == MPI_IN_PLACE && mpich_reduce_in_place_bug(k)) {
        /* not in place: the root's input from a copy of its initial buffer */
        if (!(init = malloc(b->rtotal))) return -1;
        memcpy(init, b->r_ref, b->rtotal);
        ra.sbuf = init;
    }
    rc = call_pmpi(k->coll, &ra, comm);
    free(init);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: %s: %s returned %d\n", c->wrank, desc, pmpi_name(k->coll), rc);
        tm_set_key(keys, K_REF, 0, c->wrank, c->wsize);
    } else if (b->r) {
        long long d = diff_defined(b->r, b->r_ref, b->rdef, b->rspan);
        long long e = diff_defined(b->r_ref, b->r_exp, b->rdef, b->rspan);
        if (d >= 0) {
            tm_set_key(keys, K_DIFF, d, c->wrank, c->wsize);
            detail(c, desc, "first difference at receive byte %lld (element %lld): got 0x%02x, %s 0x%02x",
                   d, b->unit ? d / (long long)b->unit : d, b->r[d], pmpi_name(k->coll), b->r_ref[d]);
        }
        if (e >= 0) {
            tm_set_key(keys, K_REF, e, c->wrank, c->wsize);
            detail(c, desc, "%s differs from the expected values at receive byte %lld: 0x%02x, expected 0x%02x",
                   pmpi_name(k->coll), e, b->r_ref[e], b->r_exp[e]);
        }
    }
    return 0;
}

/* The topocoll call and what it must have done.  Returns 1 when the case
 * goes on to the reference, 0 when it ends here, -1 on an infrastructure
 * failure. */
static int call_and_check(ctx *c, MPI_Comm comm, const ccase *k, bufs *b, const char *desc, int64_t *keys)
{
    int app = 1, rc, declined = 0;
    if (k->coll == TOPOCOLL_ALLGATHER && k->algo) {
        int r = allgather_applicable(c, k, b, comm, desc, keys, &app);
        if (r != 0) return r < 0 ? -1 : 0;
    }
    watch(c, desc);
    rc = call_topocoll(k->coll, k->algo, &b->a, comm);
    if (rc != MPI_SUCCESS && k->algo && (declined = is_decline(rc)) != 0) {
        if (c->verbose && c->wrank == 0) {
            char s[MPI_MAX_ERROR_STRING];
            tm_errstr(rc, s, (int)sizeof s);
            fprintf(stderr, "     %s: %s\n", desc, s);
        }
        check_declined(c, b, desc, declined, keys);
    } else {
        tm_set_key(keys, K_SERVING, 0, c->wrank, c->wsize);
    }
    if (k->coll == TOPOCOLL_ALLGATHER && k->algo && (declined != 0) != (app == 0)) {
        tm_set_key(keys, K_APPLY, 0, c->wrank, c->wsize);
        detail(c, desc, "topocoll_allgather_applicable returned %d, but the call %s", app,
               declined ? "declined" : "did not decline");
    }
    if (comm != MPI_COMM_WORLD) {
        /* agreement inside the communicator (the halves may differ) */
        int mm[2] = { declined ? 1 : 0, declined ? -1 : 0 }, agreed[2];
        if (PMPI_Allreduce(mm, agreed, 2, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) {
            fprintf(stderr, "rank %d: PMPI_Allreduce failed\n", c->wrank);
            return -1;
        }
        if (agreed[0] != -agreed[1]) tm_set_key(keys, K_SPLIT, 0, c->wrank, c->wsize);
    }
    if (declined) return 0;
    check_served(c, k, b, rc, desc, keys);
    return 1;
}

/* MPICH before 4.2 and PMPI_Reduce in place (see mpich_reduce_in_place_bug):
 * the cases that would call it themselves ("native", and auto, which may
 * choose it). */
static int known_bug(ctx *c, const ccase *k, const char *desc)
{
    const char *fam;
    if (!mpich_reduce_in_place_bug(k)) return 0;
    fam = k->algo ? topocoll_variant_family(k->coll, k->algo_index) : NULL;
    if (k->algo && fam && strcmp(fam, "native") != 0) return 0;
    SKIP();
    c->nknown++;
    if (c->verbose && c->wrank == 0) printf("skipped (MPICH bug pmodels/mpich#6540) %s\n", desc);
    return 1;
}

int run_case(ctx *c, MPI_Comm comm, const char *where, const mapping *m, const ccase *k)
{
    int64_t keys[NKEYS];
    char desc[DESC_LEN];
    int rank, size, rc, casen = ++c->casen;
    size_t unit;
    bufs b;

    init_keys(keys);
    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: MPI_Comm_rank/size failed\n", c->wrank);
        return -1;
    }
    describe(desc, c, casen, where, size, m, k);
    if (known_bug(c, k, desc)) return 1;
    if (c->verbose && c->wrank == 0) {
        printf("run %s\n", desc);
        fflush(stdout);
    }
    rc = setup_bufs(k, rank, size, casen, &b);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: setting up %s failed (%d)\n", c->wrank, desc, rc);
        free_bufs(&b);
        return -1;
    }
    rc = call_and_check(c, comm, k, &b, desc, keys);
    if (rc > 0 && check_reference(c, k, &b, comm, desc, keys) < 0) rc = -1;
    unit = b.unit;
    free_bufs(&b);
    if (rc < 0) return -1;
    return settle(c, keys, desc, unit, comm == MPI_COMM_WORLD, k);
}

/* ---- mappings ------------------------------------------------------------------- */

int apply_mapping(ctx *c, MPI_Comm comm, const char *where, const mapping *m)
{
    int64_t keys[NKEYS];
    char desc[DESC_LEN];

    init_keys(keys);
    snprintf(desc, sizeof desc, "[topology] np=%d comm=%s mapping=%s spec=\"%s\"",
             c->wsize, where, m->name, m->spec);
    tm_set_mapping(comm, m, desc, c->verbose, c->wrank, c->wsize, keys, K_RC, K_TOPO);
    tm_set_key(keys, K_SERVING, 0, c->wrank, c->wsize);
    return settle(c, keys, desc, 0, 1, NULL);
}
