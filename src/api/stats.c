/*
 * The run summary (see stats.h).
 *
 * Recording: one table of TC_STATS_SLOTS entries, keyed by (collective,
 * communicator size, kind, name), open addressing.  A key is published
 * with a release store of its name after its other fields, so lookups
 * take no lock; a new key is inserted under a mutex (a handful per run).
 * The counters are atomic adds (relaxed: they are read only at the end,
 * after MPI_Finalize's synchronisation of the threads with the caller).
 *
 * Reporting: every rank sends its entries to rank 0 of MPI_COMM_WORLD,
 * which merges them.  A call on a communicator of p ranks is recorded by
 * each of them, so the sums over ranks divided by p give the calls of the
 * communicator (an inter-communicator counts both groups); the time is
 * per rank, summed over its calls, then min / median / max over the ranks
 * that made such calls.
 */
#define _POSIX_C_SOURCE 200809L   /* clock_gettime */
#include "api/stats.h"

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/context.h"
#include "api/learn_call.h"
#include "coll/coll.h"
#include "core/config.h"
#include "select/learn.h"

#define TC_STATS_SLOTS 1024
#define TC_STATS_NAME 48
#define TC_STATS_ALGOS 256   /* algorithm names per collective and size in the summary */

enum { KIND_SERVED = 0, KIND_HANDED = 1 };

static const char *const handed_name[TC_HANDED_NREASONS] = {
    [TC_HANDED_INTER] = "inter-communicator",
    [TC_HANDED_DISABLED] = "TOPOCOLL_DISABLE",
};

typedef struct slot {
    _Atomic(const char *) name;   /* NULL: free; stored last */
    int coll, size, kind;
    atomic_uint_least64_t calls, bytes, ns;
} slot;

static slot table[TC_STATS_SLOTS];
static pthread_mutex_t insert_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_uint_least64_t dropped;   /* calls that found the table full */
static atomic_int reported;

uint64_t tc_stats_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static unsigned hash(int coll, int size, int kind, const char *name)
{
    uintptr_t h = (uintptr_t)name * 0x9E3779B97F4A7C15u;
    h ^= (uintptr_t)(unsigned)coll * 0x85EBCA6Bu + (uintptr_t)(unsigned)size * 0xC2B2AE35u + (unsigned)kind;
    return (unsigned)(h ^ (h >> 29)) % TC_STATS_SLOTS;
}

static int same(const slot *s, const char *n, int coll, int size, int kind, const char *name)
{
    return n == name && s->coll == coll && s->size == size && s->kind == kind;
}

/* The entry of the key, made if new; NULL when the table is full. */
static slot *entry(int coll, int size, int kind, const char *name)
{
    unsigned h = hash(coll, size, kind, name);
    for (unsigned i = 0; i < TC_STATS_SLOTS; i++) {
        slot *s = &table[(h + i) % TC_STATS_SLOTS];
        const char *n = atomic_load_explicit(&s->name, memory_order_acquire);
        if (!n) break;
        if (same(s, n, coll, size, kind, name)) return s;
    }
    slot *found = NULL;
    if (pthread_mutex_lock(&insert_lock) != 0) return NULL;
    for (unsigned i = 0; i < TC_STATS_SLOTS && !found; i++) {
        slot *s = &table[(h + i) % TC_STATS_SLOTS];
        const char *n = atomic_load_explicit(&s->name, memory_order_acquire);
        if (n && same(s, n, coll, size, kind, name)) {
            found = s;
        } else if (!n) {
            s->coll = coll, s->size = size, s->kind = kind;
            atomic_store_explicit(&s->name, name, memory_order_release);
            found = s;
        }
    }
    (void)pthread_mutex_unlock(&insert_lock);
    return found;
}

static void add(int coll, int size, int kind, const char *name, int64_t bytes, uint64_t ns)
{
    /* the MPI_Finalize callback that reports must exist on this rank */
    (void)tc_quiet_self();
    slot *s = entry(coll, size, kind, name ? name : "");
    if (!s) {
        atomic_fetch_add_explicit(&dropped, 1, memory_order_relaxed);
        return;
    }
    atomic_fetch_add_explicit(&s->calls, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->bytes, (uint64_t)(bytes > 0 ? bytes : 0), memory_order_relaxed);
    atomic_fetch_add_explicit(&s->ns, ns, memory_order_relaxed);
}

void tc_stats_record(topocoll_coll coll, int comm_size, const char *algo, int64_t bytes, uint64_t ns)
{
    add((int)coll, comm_size, KIND_SERVED, algo, bytes, ns);
}

void tc_stats_handed(topocoll_coll coll, MPI_Comm comm, tc_handed why)
{
    if (!tc_config_get()->stats_on || why < 0 || why >= TC_HANDED_NREASONS) return;
    int size = 0, remote = 0, inter = 0;
    if (comm != MPI_COMM_NULL && PMPI_Comm_size(comm, &size) == MPI_SUCCESS &&
        PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && inter &&
        PMPI_Comm_remote_size(comm, &remote) == MPI_SUCCESS)
        size += remote;   /* every rank of both groups records the call */
    add((int)coll, size, KIND_HANDED, handed_name[why], 0, 0);
}

/* ---- gathering ---------------------------------------------------------- */

/* One entry as it travels to rank 0. */
typedef struct rec {
    int32_t coll, size, kind, rank;
    char name[TC_STATS_NAME];
    int64_t calls, bytes, ns;
} rec;

/* This rank's entries (malloc'd, *n of them; the calls that did not fit
 * the table as one entry named "(table full)"). */
static rec *local_records(int rank, int *n)
{
    rec *r = calloc(TC_STATS_SLOTS + 1, sizeof *r);
    *n = 0;
    if (!r) return NULL;
    for (int i = 0; i < TC_STATS_SLOTS; i++) {
        const slot *s = &table[i];
        const char *name = atomic_load_explicit(&s->name, memory_order_acquire);
        if (!name) continue;
        rec *e = &r[(*n)++];
        *e = (rec){ s->coll, s->size, s->kind, rank, "", (int64_t)atomic_load(&s->calls),
                    (int64_t)atomic_load(&s->bytes), (int64_t)atomic_load(&s->ns) };
        snprintf(e->name, sizeof e->name, "%s", name);
    }
    uint64_t lost = atomic_load(&dropped);
    if (lost) r[(*n)++] = (rec){ -1, 1, KIND_HANDED, rank, "(table full)", (int64_t)lost, 0, 0 };
    return r;
}

/* Every rank's entries at rank 0 (*all, *nall there); collective. */
static int gather_records(MPI_Comm comm, int rank, int nranks, rec **all, int *nall)
{
    int n = 0, rc, *counts = NULL, *displs = NULL;
    rec *mine = local_records(rank, &n);
    *all = NULL;
    *nall = 0;
    int bytes = mine ? n * (int)sizeof(rec) : 0;
    if (rank == 0) {
        counts = calloc((size_t)nranks, sizeof *counts);
        displs = calloc((size_t)nranks, sizeof *displs);
    }
    rc = PMPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
    if (rc == MPI_SUCCESS && rank == 0 && counts && displs) {
        long long total = 0;
        for (int i = 0; i < nranks; i++) displs[i] = (int)total, total += counts[i];
        *nall = (int)(total / (long long)sizeof(rec));
        *all = malloc(total > 0 ? (size_t)total : 1);
    }
    /* rank 0 without memory still takes part, receiving nothing */
    if (rank == 0 && (!*all || !counts || !displs)) {
        if (counts) memset(counts, 0, (size_t)nranks * sizeof *counts);
        *nall = 0;
    }
    if (rc == MPI_SUCCESS)
        rc = PMPI_Gatherv(mine, bytes, MPI_BYTE, *all, counts, displs, MPI_BYTE, 0, comm);
    free(mine);
    free(counts);
    free(displs);
    return rc;
}

/* ---- merging at rank 0 --------------------------------------------------- */

typedef struct named { char name[TC_STATS_NAME]; int64_t count; } named;

typedef struct group {
    int coll, size;
    int64_t calls, bytes, handed;
    named algos[TC_STATS_ALGOS], reasons[TC_HANDED_NREASONS + 2];
    int nalgos, nreasons;
    double *rank_ns;        /* [nranks]: time of each rank, < 0 when none */
} group;

static void count_name(named *list, int *n, int cap, const char *name, int64_t count)
{
    for (int i = 0; i < *n; i++)
        if (strcmp(list[i].name, name) == 0) {
            list[i].count += count;
            return;
        }
    if (*n >= cap) {   /* the last entry gathers the rest */
        snprintf(list[cap - 1].name, sizeof list[cap - 1].name, "(other)");
        list[cap - 1].count += count;
        return;
    }
    snprintf(list[*n].name, sizeof list[*n].name, "%s", name);
    list[(*n)++].count = count;
}

static group *find_group(group **gs, int *ng, int *cap, int coll, int size, int nranks)
{
    for (int i = 0; i < *ng; i++)
        if ((*gs)[i].coll == coll && (*gs)[i].size == size) return &(*gs)[i];
    if (*ng == *cap) {
        int ncap = *cap ? 2 * *cap : 16;
        group *n = realloc(*gs, (size_t)ncap * sizeof *n);
        if (!n) return NULL;
        *gs = n;
        *cap = ncap;
    }
    group *g = &(*gs)[*ng];
    memset(g, 0, sizeof *g);
    g->coll = coll, g->size = size;
    if (!(g->rank_ns = malloc((size_t)nranks * sizeof *g->rank_ns))) return NULL;
    for (int r = 0; r < nranks; r++) g->rank_ns[r] = -1;
    (*ng)++;
    return g;
}

static void merge_record(group *g, const rec *e)
{
    if (e->kind == KIND_SERVED) {
        count_name(g->algos, &g->nalgos, TC_STATS_ALGOS, e->name, e->calls);
        if (strcmp(e->name, "native") == 0) {
            g->handed += e->calls;
            count_name(g->reasons, &g->nreasons, TC_HANDED_NREASONS + 2, "native", e->calls);
        }
        g->bytes += e->bytes;
        g->rank_ns[e->rank] = (g->rank_ns[e->rank] < 0 ? 0 : g->rank_ns[e->rank]) + (double)e->ns;
    } else {
        g->handed += e->calls;
        count_name(g->reasons, &g->nreasons, TC_HANDED_NREASONS + 2, e->name, e->calls);
    }
    g->calls += e->calls;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmp_group(const void *a, const void *b)
{
    const group *x = a, *y = b;
    return x->coll != y->coll ? (x->coll > y->coll) - (x->coll < y->coll)
                              : (x->size > y->size) - (x->size < y->size);
}

static int cmp_named(const void *a, const void *b)
{
    const named *x = a, *y = b;
    return x->count != y->count ? (x->count < y->count) - (x->count > y->count) : strcmp(x->name, y->name);
}

/* Per communicator call: sums over ranks / communicator size; the most
 * used algorithms first. */
static void per_call(group *g)
{
    int64_t p = g->size > 0 ? g->size : 1;
    g->calls /= p;
    g->bytes /= p;
    g->handed /= p;
    for (int i = 0; i < g->nalgos; i++) g->algos[i].count /= p;
    for (int i = 0; i < g->nreasons; i++) g->reasons[i].count /= p;
    qsort(g->algos, (size_t)g->nalgos, sizeof g->algos[0], cmp_named);
}

/* min, median, max of the ranks' times in seconds; the number of ranks. */
static int times(const group *g, int nranks, double t[3])
{
    double *v = malloc((size_t)nranks * sizeof *v);
    int n = 0;
    t[0] = t[1] = t[2] = 0;
    if (!v) return 0;
    for (int r = 0; r < nranks; r++)
        if (g->rank_ns[r] >= 0) v[n++] = g->rank_ns[r] * 1e-9;
    if (n > 0) {
        qsort(v, (size_t)n, sizeof *v, cmp_double);
        t[0] = v[0];
        t[1] = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
        t[2] = v[n - 1];
    }
    free(v);
    return n;
}

static const char *coll_label(int coll)
{
    return coll < 0 ? "(all)" : tc_coll_name((topocoll_coll)coll);
}

/* ---- output ---------------------------------------------------------------- */

static void fmt_time(char *buf, size_t n, double s)
{
    if (s >= 1) snprintf(buf, n, "%.3g s", s);
    else if (s >= 1e-3) snprintf(buf, n, "%.3g ms", s * 1e3);
    else snprintf(buf, n, "%.3g us", s * 1e6);
}

static void fmt_bytes(char *buf, size_t n, int64_t b)
{
    if (b >= (int64_t)1 << 30) snprintf(buf, n, "%.1f GiB", (double)b / (1 << 30));
    else if (b >= 1 << 20) snprintf(buf, n, "%.1f MiB", (double)b / (1 << 20));
    else if (b >= 1 << 10) snprintf(buf, n, "%.1f KiB", (double)b / (1 << 10));
    else snprintf(buf, n, "%lld B", (long long)b);
}

static void print_group(FILE *f, const group *g, int nranks)
{
    double t[3];
    char bytes[32], tmin[32], tmed[32], tmax[32];
    int nt = times(g, nranks, t);
    fmt_bytes(bytes, sizeof bytes, g->bytes);
    fmt_time(tmin, sizeof tmin, t[0]), fmt_time(tmed, sizeof tmed, t[1]), fmt_time(tmax, sizeof tmax, t[2]);
    fprintf(f, "  %-22s %6d %10lld %11s  ", coll_label(g->coll), g->size, (long long)g->calls, bytes);
    if (nt) fprintf(f, "%9s %9s %9s  ", tmin, tmed, tmax);
    else fprintf(f, "%9s %9s %9s  ", "-", "-", "-");
    for (int i = 0; i < g->nalgos; i++)
        fprintf(f, "%s%s %lld", i ? ", " : "", g->algos[i].name, (long long)g->algos[i].count);
    if (g->handed) {
        fprintf(f, "%sMPI library %lld (", g->nalgos ? "; " : "", (long long)g->handed);
        for (int i = 0; i < g->nreasons; i++)
            fprintf(f, "%s%s %lld", i ? ", " : "", g->reasons[i].name, (long long)g->reasons[i].count);
        fprintf(f, ")");
    }
    fprintf(f, "\n");
}

static void print_table(FILE *f, const group *gs, int ng, int nranks)
{
    fprintf(f, "topocoll stats: %d ranks; per collective and communicator size: calls, their bytes "
               "(per rank and call, summed), time inside topocoll per rank (min / median / max over "
               "ranks), algorithms and calls handed to the MPI library\n", nranks);
    fprintf(f, "  %-22s %6s %10s %11s  %9s %9s %9s  %s\n", "collective", "np", "calls", "bytes",
            "time min", "median", "max", "algorithms (calls); MPI library (calls: why)");
    for (int i = 0; i < ng; i++) print_group(f, &gs[i], nranks);
    if (ng == 0) fprintf(f, "  (no collective calls)\n");
}

static json_t *names_json(json_t *o, const named *list, int n)
{
    for (int i = 0; i < n && o; i++) json_object_set_new(o, list[i].name, json_integer(list[i].count));
    return o;
}

static json_t *group_json(const group *g, int nranks)
{
    double t[3];
    int nt = times(g, nranks, t);
    json_t *o = json_object();
    json_object_set_new(o, "collective", json_string(coll_label(g->coll)));
    json_object_set_new(o, "comm_size", json_integer(g->size));
    json_object_set_new(o, "calls", json_integer(g->calls));
    json_object_set_new(o, "bytes", json_integer(g->bytes));
    json_object_set_new(o, "algorithms", names_json(json_object(), g->algos, g->nalgos));
    json_t *h = json_object();
    json_object_set_new(h, "calls", json_integer(g->handed));
    json_object_set_new(o, "mpi_library", names_json(h, g->reasons, g->nreasons));
    json_t *tj = json_object();
    json_object_set_new(tj, "ranks", json_integer(nt));
    json_object_set_new(tj, "min", json_real(t[0]));
    json_object_set_new(tj, "median", json_real(t[1]));
    json_object_set_new(tj, "max", json_real(t[2]));
    json_object_set_new(o, "time_s", tj);
    return o;
}

struct lrec;   /* what was learned: below */
static json_t *learned_json(const struct lrec *ls, int n);
static json_t *patient_json(const struct lrec *ls, int n);

static int write_json(const char *path, const group *gs, int ng, int nranks, const struct lrec *ls, int nl)
{
    json_t *root = json_object(), *list = json_array();
    json_object_set_new(root, "ranks", json_integer(nranks));
    for (int i = 0; i < ng; i++) json_array_append_new(list, group_json(&gs[i], nranks));
    json_object_set_new(root, "collectives", list);
    json_object_set_new(root, "learned", learned_json(ls, nl));
    json_object_set_new(root, "patient", patient_json(ls, nl));
    int rc = json_dump_file(root, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (rc != 0) fprintf(stderr, "topocoll: TOPOCOLL_STATS: cannot write '%s'\n", path);
    return rc;
}

/* ---- what was learned (select/learn.h) ------------------------------------ */

enum { TC_STATS_LEARNED = 256 };

/* One outcome as it travels to rank 0 (names copied). */
typedef struct lrec {
    int32_t coll, np, nnodes, ppn, op_class, ntried, from_file;
    int32_t patience;   /* > 0: a key still patient (calls: its calls so far), not an outcome */
    int64_t min_bytes, max_bytes;
    uint64_t calls;
    double winner_s, native_s, explore_s, tried_s[8];
    char winner[TC_STATS_NAME], tried[8][TC_STATS_NAME];
} lrec;

/* A patient key as it travels to rank 0. */
static void wait_to_lrec(const tc_learn_wait *w, lrec *r)
{
    memset(r, 0, sizeof *r);
    r->coll = (int32_t)w->coll;
    r->np = w->np, r->nnodes = w->nnodes, r->ppn = w->ppn, r->op_class = w->op_class;
    r->patience = w->patience > 0 ? w->patience : 1;
    tc_learn_class_bounds(w->size_class, &r->min_bytes, &r->max_bytes);
    r->calls = w->calls;
}

static void to_lrec(const tc_learn_outcome *o, lrec *r)
{
    memset(r, 0, sizeof *r);
    *r = (lrec){ (int32_t)o->coll, o->np, o->nnodes, o->ppn, o->op_class, o->ntried, o->from_file, 0,
                 o->min_bytes, o->max_bytes, o->calls, o->winner_s, o->native_s, o->explore_s,
                 { 0 }, "", { "" } };
    snprintf(r->winner, sizeof r->winner, "%s", o->winner ? o->winner : "");
    for (int k = 0; k < o->ntried && k < 8; k++) {
        r->tried_s[k] = o->tried_s[k];
        snprintf(r->tried[k], sizeof r->tried[k], "%s", o->tried[k] ? o->tried[k] : "");
    }
}

/* Every rank's outcomes at rank 0, one per key (the first rank's: the
 * ranks of a communicator agree on them); collective. */
static int gather_learned(MPI_Comm comm, int rank, int nranks, lrec **out, int *nout)
{
    tc_learn_outcome *o = malloc(TC_STATS_LEARNED * sizeof *o);
    lrec *mine = malloc(TC_STATS_LEARNED * sizeof *mine);
    int n = o && mine ? tc_learn_outcomes(o, TC_STATS_LEARNED) : 0, rc, *counts = NULL, *displs = NULL;
    for (int i = 0; i < n; i++) to_lrec(&o[i], &mine[i]);
    free(o);
    tc_learn_wait *w = mine && n < TC_STATS_LEARNED ? malloc((TC_STATS_LEARNED - (size_t)n) * sizeof *w) : NULL;
    int nw = w ? tc_learn_waiting(w, TC_STATS_LEARNED - n) : 0;
    for (int i = 0; i < nw; i++) wait_to_lrec(&w[i], &mine[n++]);
    free(w);
    int bytes = n * (int)sizeof(lrec);
    lrec *all = NULL;
    *out = NULL;
    *nout = 0;
    if (rank == 0) {
        counts = calloc((size_t)nranks, sizeof *counts);
        displs = calloc((size_t)nranks, sizeof *displs);
    }
    rc = PMPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
    long long total = 0;
    if (rc == MPI_SUCCESS && rank == 0 && counts && displs) {
        for (int i = 0; i < nranks; i++) displs[i] = (int)total, total += counts[i];
        all = malloc(total > 0 ? (size_t)total : 1);
    }
    if (rank == 0 && (!all || !counts || !displs)) {
        if (counts) memset(counts, 0, (size_t)nranks * sizeof *counts);
        total = 0;
    }
    if (rc == MPI_SUCCESS) rc = PMPI_Gatherv(mine, bytes, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, comm);
    free(mine);
    free(counts);
    free(displs);
    if (rank != 0 || rc != MPI_SUCCESS) {
        free(all);
        return rc;
    }
    int nall = (int)(total / (long long)sizeof(lrec)), kept = 0;
    for (int i = 0; i < nall; i++) {   /* one per key: the first */
        int dup = 0;
        for (int j = 0; j < kept && !dup; j++)
            dup = all[j].coll == all[i].coll && all[j].np == all[i].np && all[j].nnodes == all[i].nnodes &&
                  all[j].ppn == all[i].ppn && all[j].min_bytes == all[i].min_bytes &&
                  all[j].op_class == all[i].op_class && (all[j].patience > 0) == (all[i].patience > 0);
        if (!dup) all[kept++] = all[i];
    }
    *out = all;
    *nout = kept;
    return rc;
}

/* The runner-up's agreed time (the best candidate but the winner; 0: none). */
static double runner_up(const lrec *r)
{
    double best = 0;
    for (int k = 0; k < r->ntried; k++) {
        double t = r->tried_s[k] < 0 ? -r->tried_s[k] : r->tried_s[k];
        if (strcmp(r->tried[k], r->winner) == 0 || !(t > 0) || t > 1e300) continue;
        if (best == 0 || t < best) best = t;
    }
    return best;
}

/* The keys still patient: the table's choice served them, nothing explored. */
static void print_patient(FILE *f, const lrec *ls, int n)
{
    int any = 0;
    for (int i = 0; i < n; i++) {
        const lrec *r = &ls[i];
        if (r->patience <= 0) continue;
        if (!any++)
            fprintf(f, "topocoll patient: keys called fewer times than TOPOCOLL_LEARN_PATIENCE, served by the "
                       "selection table's choice and never explored (docs/learning.md)\n");
        char lo[32], hi[32];
        fmt_bytes(lo, sizeof lo, r->min_bytes);
        if (r->max_bytes == INT64_MAX) snprintf(hi, sizeof hi, "any");
        else fmt_bytes(hi, sizeof hi, r->max_bytes);
        fprintf(f, "  %-22s np=%d nodes=%d ppn=%d bytes=%s-%s%s -> patient, %llu of %d calls\n", coll_label(r->coll),
                r->np, r->nnodes, r->ppn, lo, hi, r->op_class ? " (op class)" : "", (unsigned long long)r->calls,
                r->patience);
    }
}

static void print_learned(FILE *f, const lrec *ls, int n)
{
    int outcomes = 0;
    for (int i = 0; i < n; i++) outcomes += ls[i].patience <= 0;
    print_patient(f, ls, n);
    if (outcomes == 0) return;
    fprintf(f, "topocoll learned: per collective, communicator shape and size class: the winner, its time "
               "against native's and the runner-up's (agreed medians over ranks), the time spent exploring "
               "beyond the winner's, the calls, every candidate's agreed time (dropped early: '>')\n");
    for (int i = 0; i < n; i++) {
        const lrec *r = &ls[i];
        if (r->patience > 0) continue;
        char lo[32], hi[32], w[32], ex[32], ratio[48] = "-", next[48] = "-";
        fmt_bytes(lo, sizeof lo, r->min_bytes);
        if (r->max_bytes == INT64_MAX) snprintf(hi, sizeof hi, "any");
        else fmt_bytes(hi, sizeof hi, r->max_bytes);
        fmt_time(w, sizeof w, r->winner_s);
        fmt_time(ex, sizeof ex, r->explore_s);
        double up = runner_up(r);
        if (r->native_s > 0 && r->winner_s > 0) snprintf(ratio, sizeof ratio, "%.2fx", r->winner_s / r->native_s);
        if (up > 0 && r->winner_s > 0) snprintf(next, sizeof next, "%.2fx", r->winner_s / up);
        fprintf(f, "  %-22s np=%d nodes=%d ppn=%d bytes=%s-%s%s -> %s %s (vs native %s, vs runner-up %s) "
                   "exploring %s, %llu calls%s; tried",
                coll_label(r->coll), r->np, r->nnodes, r->ppn, lo, hi, r->op_class ? " (op class)" : "",
                r->winner, w, ratio, next, ex, (unsigned long long)r->calls, r->from_file ? ", from file" : "");
        for (int k = 0; k < r->ntried; k++) {
            char t[32];
            double s = r->tried_s[k] < 0 ? -r->tried_s[k] : r->tried_s[k];
            if (s > 1e300) snprintf(t, sizeof t, "declined");
            else fmt_time(t, sizeof t, s);
            fprintf(f, "%s %s %s%s", k ? "," : "", r->tried[k], r->tried_s[k] < 0 ? ">" : "", t);
        }
        fprintf(f, "\n");
    }
}

/* The keys still patient (JSON "patient"). */
static json_t *patient_json(const lrec *ls, int n)
{
    json_t *list = json_array();
    for (int i = 0; i < n && list; i++) {
        const lrec *r = &ls[i];
        if (r->patience <= 0) continue;
        json_t *o = json_object();
        json_object_set_new(o, "collective", json_string(coll_label(r->coll)));
        json_object_set_new(o, "comm_size", json_integer(r->np));
        json_object_set_new(o, "nodes", json_integer(r->nnodes));
        json_object_set_new(o, "ppn", json_integer(r->ppn));
        json_object_set_new(o, "min_bytes", json_integer(r->min_bytes));
        json_object_set_new(o, "max_bytes", r->max_bytes == INT64_MAX ? json_null() : json_integer(r->max_bytes));
        json_object_set_new(o, "op_class", json_integer(r->op_class));
        json_object_set_new(o, "calls", json_integer((json_int_t)r->calls));
        json_object_set_new(o, "patience", json_integer(r->patience));
        json_array_append_new(list, o);
    }
    return list;
}

static json_t *learned_json(const lrec *ls, int n)
{
    json_t *list = json_array();
    for (int i = 0; i < n && list; i++) {
        const lrec *r = &ls[i];
        if (r->patience > 0) continue;
        json_t *o = json_object(), *tried = json_object(), *dropped = json_object();
        json_object_set_new(o, "collective", json_string(coll_label(r->coll)));
        json_object_set_new(o, "comm_size", json_integer(r->np));
        json_object_set_new(o, "nodes", json_integer(r->nnodes));
        json_object_set_new(o, "ppn", json_integer(r->ppn));
        json_object_set_new(o, "min_bytes", json_integer(r->min_bytes));
        json_object_set_new(o, "max_bytes", r->max_bytes == INT64_MAX ? json_null() : json_integer(r->max_bytes));
        json_object_set_new(o, "op_class", json_integer(r->op_class));
        json_object_set_new(o, "winner", json_string(r->winner));
        json_object_set_new(o, "winner_s", json_real(r->winner_s));
        json_object_set_new(o, "native_s", json_real(r->native_s));
        json_object_set_new(o, "runner_up_s", json_real(runner_up(r)));
        json_object_set_new(o, "explore_s", json_real(r->explore_s));
        json_object_set_new(o, "calls", json_integer((json_int_t)r->calls));
        json_object_set_new(o, "from_file", json_boolean(r->from_file));
        for (int k = 0; k < r->ntried; k++) {
            double s = r->tried_s[k] < 0 ? -r->tried_s[k] : r->tried_s[k];
            json_object_set_new(r->tried_s[k] < 0 ? dropped : tried, r->tried[k],
                                s > 1e300 ? json_null() : json_real(s));
        }
        json_object_set_new(o, "tried_s", tried);
        json_object_set_new(o, "dropped_s", dropped);
        json_array_append_new(list, o);
    }
    return list;
}

/* Rank 0: merge every rank's entries and print or write the summary. */
static void summarize(const rec *all, int nall, int nranks, const lrec *ls, int nl)
{
    group *gs = NULL;
    int ng = 0, cap = 0;
    for (int i = 0; i < nall; i++) {
        if (all[i].rank < 0 || all[i].rank >= nranks) continue;
        group *g = find_group(&gs, &ng, &cap, all[i].coll, all[i].size, nranks);
        if (g) merge_record(g, &all[i]);
    }
    for (int i = 0; i < ng; i++) per_call(&gs[i]);
    if (ng > 1) qsort(gs, (size_t)ng, sizeof *gs, cmp_group);
    const char *dest = tc_config_get()->stats;
    if (strcmp(dest, "1") == 0) {
        print_table(stderr, gs, ng, nranks);
        print_learned(stderr, ls, nl);
    } else {
        (void)write_json(dest, gs, ng, nranks, ls, nl);
    }
    for (int i = 0; i < ng; i++) free(gs[i].rank_ns);
    free(gs);
}

int tc_stats_report(void)
{
    if (!tc_config_get()->stats_on || atomic_exchange(&reported, 1)) return MPI_SUCCESS;
    int rank = 0, nranks = 1, nall = 0, rc;
    rec *all = NULL;
    if ((rc = PMPI_Comm_rank(MPI_COMM_WORLD, &rank)) != MPI_SUCCESS ||
        (rc = PMPI_Comm_size(MPI_COMM_WORLD, &nranks)) != MPI_SUCCESS)
        return rc;
    rc = gather_records(MPI_COMM_WORLD, rank, nranks, &all, &nall);
    lrec *ls = NULL;
    int nl = 0;
    if (rc == MPI_SUCCESS) rc = gather_learned(MPI_COMM_WORLD, rank, nranks, &ls, &nl);
    if (rc == MPI_SUCCESS && rank == 0) summarize(all, nall, nranks, ls, nl);
    free(all);
    free(ls);
    return rc;
}
