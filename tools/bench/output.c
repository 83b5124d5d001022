/*
 * topocoll-bench: what rank 0 writes — the header, the table (one row per
 * size, streamed as sizes complete), the notes, CSV and JSON (jansson).
 */
#include <math.h>
#include <string.h>

#include <jansson.h>

#include "bench.h"

#define CELL_MIN 16 /* "12345.67 (0.85x)" */

static const bench_result *cell(const bench_run *r, int s, int a)
{
    return &r->res[(size_t)s * (size_t)r->nalgos + (size_t)a];
}

static int col_width(const bench_run *r, int a)
{
    int w = (int)strlen(r->algos[a]);
    return w > CELL_MIN ? w : CELL_MIN;
}

/* ---- header ------------------------------------------------------------- */

static void print_iters_line(const bench_run *r)
{
    const bench_opts *o = r->opts;
    int n = o->nsizes;
    char a[32], b[32];

    if (!r->adaptive_iters) {
        printf("# iterations: %d timed", r->iters[0]);
    } else {
        bench_format_size(o->sizes[0], a, sizeof a);
        bench_format_size(o->sizes[n - 1], b, sizeof b);
        if (r->iters[0] == r->iters[n - 1])
            printf("# iterations: %d timed (adaptive)", r->iters[0]);
        else
            printf("# iterations: adaptive, %d timed at %s to %d at %s", r->iters[0], a,
                   r->iters[n - 1], b);
    }
    if (!r->adaptive_warmup || r->warmup[0] == r->warmup[n - 1])
        printf(", %d warm-up%s\n", r->warmup[0], r->adaptive_warmup ? " (adaptive)" : "");
    else
        printf(", warm-up %d to %d (adaptive)\n", r->warmup[0], r->warmup[n - 1]);
    for (int a = 0; a < r->nalgos; a++)
        if (strcmp(r->algos[a], BENCH_AUTO) == 0 && o->learn_warmup > 0)
            printf("# auto: %ld calls per size before its first repetition (the learner's patience, %d, "
                   "then %d: the run-time learner settles)\n",
                   bench_learn_warmup_calls(o), bench_learn_patience(), o->learn_warmup);
}

void bench_print_header(const bench_run *r)
{
    const bench_opts *o = r->opts;

    printf("# topocoll-bench %d.%d.%d: %s, %s, bytes per rank\n",
           TOPOCOLL_VERSION_MAJOR, TOPOCOLL_VERSION_MINOR, TOPOCOLL_VERSION_PATCH,
           r->coll_name, r->datatype);
    printf("# processes: %d, nodes: %d, sockets: %d\n", r->np, r->nnodes, r->nsockets);
    printf("# topology: %s\n", r->topo_desc);
    printf("# MPI: %s\n", r->mpi_version);
    print_iters_line(r);
    printf("# repetitions: %d, sleep between iterations: %ld us, validation: %s, "
           "MPI_Wtick: %.3g s\n",
           o->reps, o->sleep_us, o->validate ? "on" : "off", r->wtick);
    for (int i = 0; i < r->nskipped; i++)
        printf("# not run: %s declines every size: %s\n", r->skipped[i],
               r->skipped_why[i] ? r->skipped_why[i] : "(no reason given)");
    if (o->back_to_back)
        printf("# time: microseconds, median over repetitions of the loop of back-to-back\n"
               "#   iterations after one barrier divided by the iterations, maximum over ranks\n");
    else
        printf("# time: microseconds, median over repetitions of the mean (Tukey's fences) of\n"
               "#   the per-iteration maximum over ranks\n");
    if (r->native_col >= 0)
        printf("# (x): time / native time, below 1 is faster; *: fastest in the row\n");
    else
        printf("# *: fastest in the row (no ratios: native was not measured)\n");
    fflush(stdout);
}

/* ---- table ------------------------------------------------------------------ */

void bench_print_table_head(const bench_run *r)
{
    int total = 9;
    printf("%9s", "bytes");
    for (int a = 0; a < r->nalgos; a++) {
        int w = col_width(r, a);
        printf(" | %*s%s", w, r->algos[a], a + 1 < r->nalgos ? " " : "");
        total += w + 4;
    }
    printf("\n");
    for (int i = 0; i < total; i++)
        putchar('-');
    printf("\n");
    fflush(stdout);
}

void bench_rank_row(bench_run *r, int s)
{
    double native = -1.0, best = -1.0;
    int besta = -1;

    if (r->native_col >= 0) {
        const bench_result *n = cell(r, s, r->native_col);
        if (n->status == BENCH_OK && n->median_us > 0.0)
            native = n->median_us;
    }
    for (int a = 0; a < r->nalgos; a++) {
        bench_result *c = &r->res[(size_t)s * (size_t)r->nalgos + (size_t)a];
        c->ratio = -1.0;
        c->fastest = 0;
        if (c->status != BENCH_OK)
            continue;
        if (native > 0.0)
            c->ratio = c->median_us / native;
        if (besta < 0 || c->median_us < best) {
            best = c->median_us;
            besta = a;
        }
    }
    if (besta >= 0)
        r->res[(size_t)s * (size_t)r->nalgos + (size_t)besta].fastest = 1;
}

static void format_cell(const bench_result *c, char *buf, size_t len)
{
    /* about five significant digits: 7.47, 123.45, 4567.8, 293657 */
    int prec = c->median_us >= 10000.0 ? 0 : c->median_us >= 1000.0 ? 1 : 2;
    switch (c->status) {
    case BENCH_OK:
        if (c->ratio >= 0.0)
            snprintf(buf, len, "%.*f (%.2fx)", prec, c->median_us, c->ratio);
        else
            snprintf(buf, len, "%.*f", prec, c->median_us);
        return;
    case BENCH_DECLINED:
        snprintf(buf, len, "declined");
        return;
    case BENCH_ERROR:
        snprintf(buf, len, "error");
        return;
    case BENCH_INVALID:
        snprintf(buf, len, "INVALID");
        return;
    }
    snprintf(buf, len, "?");
}

void bench_print_row(const bench_run *r, int s)
{
    char sz[32], text[64];

    bench_format_size(r->opts->sizes[s], sz, sizeof sz);
    printf("%9s", sz);
    for (int a = 0; a < r->nalgos; a++) {
        const bench_result *c = cell(r, s, a);
        format_cell(c, text, sizeof text);
        printf(" | %*s", col_width(r, a), text);
        if (c->fastest || a + 1 < r->nalgos)
            putchar(c->fastest ? '*' : ' ');
    }
    printf("\n");
    fflush(stdout);
}

/* After the table: each cell that is not a time, grouped into runs of
 * consecutive sizes with the same message, e.g.
 *   recursive_doubling, 8 to 1M: declined: needs a power-of-two process count */
void bench_print_notes(const bench_run *r)
{
    int any = 0;
    for (int a = 0; a < r->nalgos; a++) {
        int s = 0;
        while (s < r->opts->nsizes) {
            const bench_result *c = cell(r, s, a);
            int e = s;
            char lo[32], hi[32];
            if (c->status == BENCH_OK) {
                s++;
                continue;
            }
            while (e + 1 < r->opts->nsizes && cell(r, e + 1, a)->status == c->status &&
                   strcmp(cell(r, e + 1, a)->msg, c->msg) == 0)
                e++;
            if (!any)
                printf("\n");
            any = 1;
            bench_format_size(r->opts->sizes[s], lo, sizeof lo);
            bench_format_size(r->opts->sizes[e], hi, sizeof hi);
            if (s == e)
                printf("  %s, %s: %s\n", r->algos[a], lo, c->msg);
            else
                printf("  %s, %s to %s: %s\n", r->algos[a], lo, hi, c->msg);
            s = e + 1;
        }
    }
    fflush(stdout);
}

/* ---- CSV ------------------------------------------------------------------- */

static int csv_field(FILE *f, const char *s)
{
    if (strpbrk(s, ",\"\n\r") == NULL)
        return fputs(s, f) < 0 ? -1 : 0;
    if (fputc('"', f) == EOF)
        return -1;
    for (; *s; s++) {
        if (*s == '"' && fputc('"', f) == EOF)
            return -1;
        if (fputc(*s, f) == EOF)
            return -1;
    }
    return fputc('"', f) == EOF ? -1 : 0;
}

int bench_csv_field(FILE *f, const char *s)
{
    return csv_field(f, s);
}

static const char *status_text(const bench_result *c)
{
    return c->status == BENCH_OK ? "ok" : c->msg;
}

int bench_csv_begin(FILE *f)
{
    return fputs("coll,algorithm,bytes,np,nnodes,nsockets,topology,iters,reps,median_us,"
                 "min_us,max_us,outliers,ratio_to_native,status\n", f) < 0 ? -1 : 0;
}

int bench_csv_row(FILE *f, const bench_run *r, int s)
{
    for (int a = 0; a < r->nalgos; a++) {
        const bench_result *c = cell(r, s, a);
        int rc = 0;
        rc |= csv_field(f, r->coll_name);
        rc |= fputc(',', f) == EOF;
        rc |= csv_field(f, r->algos[a]);
        rc |= fprintf(f, ",%zu,%d,%d,%d,", r->opts->sizes[s], r->np, r->nnodes,
                      r->nsockets) < 0;
        rc |= csv_field(f, r->topo_desc);
        rc |= fprintf(f, ",%d,%d,", r->iters[s], r->opts->reps) < 0;
        if (c->status == BENCH_OK || c->status == BENCH_INVALID)
            rc |= fprintf(f, "%.3f,%.3f,%.3f,%d,", c->median_us, c->min_us, c->max_us,
                          c->outliers) < 0;
        else
            rc |= fputs(",,,,", f) < 0;
        if (c->ratio >= 0.0)
            rc |= fprintf(f, "%.4f", c->ratio) < 0;
        rc |= fputc(',', f) == EOF;
        rc |= csv_field(f, status_text(c));
        rc |= fputc('\n', f) == EOF;
        if (rc != 0)
            return -1;
    }
    return fflush(f) == 0 ? 0 : -1;
}

/* ---- JSON ---------------------------------------------------------------- */

/* json_object_set_new that tolerates a NULL value (allocation failure) and
 * reports it; it also turns non-finite numbers into null. */
static int jset(json_t *obj, const char *key, json_t *val)
{
    if (val == NULL)
        return -1;
    return json_object_set_new(obj, key, val);
}

static json_t *jnum(double v, int have)
{
    return have && isfinite(v) ? json_real(v) : json_null();
}

static json_t *jstr(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *json_meta(const bench_run *r)
{
    const bench_opts *o = r->opts;
    json_t *m = json_object(), *algos = json_array(), *sizes = json_array(),
           *skipped = json_array();
    char version[32];
    int rc = 0;

    if (m == NULL || algos == NULL || sizes == NULL || skipped == NULL) {
        json_decref(m);
        json_decref(algos);
        json_decref(sizes);
        json_decref(skipped);
        return NULL;
    }
    for (int a = 0; a < r->nalgos; a++)
        rc |= json_array_append_new(algos, json_string(r->algos[a]));
    for (int s = 0; s < o->nsizes; s++)
        rc |= json_array_append_new(sizes, json_integer((json_int_t)o->sizes[s]));
    for (int i = 0; i < r->nskipped; i++) {
        json_t *k = json_object();
        if (k == NULL) {
            rc = -1;
            continue;
        }
        rc |= jset(k, "algorithm", json_string(r->skipped[i]));
        rc |= jset(k, "why", jstr(r->skipped_why[i]));
        rc |= json_array_append_new(skipped, k);
    }
    rc |= jset(m, "tool", json_string(BENCH_PROG));
    snprintf(version, sizeof version, "%d.%d.%d", TOPOCOLL_VERSION_MAJOR,
             TOPOCOLL_VERSION_MINOR, TOPOCOLL_VERSION_PATCH);
    rc |= jset(m, "topocoll_version", json_string(version));
    rc |= jset(m, "coll", json_string(r->coll_name));
    rc |= jset(m, "datatype", json_string(r->datatype));
    rc |= jset(m, "np", json_integer(r->np));
    rc |= jset(m, "nnodes", json_integer(r->nnodes));
    rc |= jset(m, "nsockets", json_integer(r->nsockets));
    rc |= jset(m, "topology", json_string(r->topo_desc));
    rc |= jset(m, "topology_spec", jstr(o->topology));
    rc |= jset(m, "mpi_library", json_string(r->mpi_version));
    rc |= jset(m, "iters", r->adaptive_iters ? json_string("adaptive") : json_integer(o->iters));
    rc |= jset(m, "warmup", r->adaptive_warmup ? json_string("adaptive")
                                               : json_integer(o->warmup));
    rc |= jset(m, "learn_warmup", json_integer(o->learn_warmup));
    rc |= jset(m, "learn_patience", json_integer(bench_learn_patience()));
    rc |= jset(m, "reps", json_integer(o->reps));
    rc |= jset(m, "sleep_us", json_integer(o->sleep_us));
    rc |= jset(m, "back_to_back", json_boolean(o->back_to_back));
    rc |= jset(m, "validate", json_boolean(o->validate));
    rc |= jset(m, "wtick", json_real(r->wtick));
    rc |= jset(m, "time", json_string("median over repetitions of the Tukey-filtered mean "
                                      "of the per-iteration maximum over ranks"));
    rc |= jset(m, "algorithms", algos);
    rc |= jset(m, "sizes", sizes);
    rc |= jset(m, "not_run", skipped);
    if (rc != 0) {
        json_decref(m);
        return NULL;
    }
    return m;
}

static json_t *json_result(const bench_run *r, int s, int a)
{
    const bench_result *c = cell(r, s, a);
    int timed = c->status == BENCH_OK || c->status == BENCH_INVALID;
    json_t *o = json_object();
    int rc = 0;

    if (o == NULL)
        return NULL;
    rc |= jset(o, "coll", json_string(r->coll_name));
    rc |= jset(o, "algorithm", json_string(r->algos[a]));
    rc |= jset(o, "bytes", json_integer((json_int_t)r->opts->sizes[s]));
    rc |= jset(o, "np", json_integer(r->np));
    rc |= jset(o, "nnodes", json_integer(r->nnodes));
    rc |= jset(o, "nsockets", json_integer(r->nsockets));
    rc |= jset(o, "topology", json_string(r->topo_desc));
    rc |= jset(o, "iters", json_integer(r->iters[s]));
    rc |= jset(o, "warmup", json_integer(r->warmup[s]));
    rc |= jset(o, "reps", json_integer(r->opts->reps));
    rc |= jset(o, "median_us", jnum(c->median_us, timed));
    rc |= jset(o, "min_us", jnum(c->min_us, timed));
    rc |= jset(o, "max_us", jnum(c->max_us, timed));
    rc |= jset(o, "outliers", timed ? json_integer(c->outliers) : json_null());
    rc |= jset(o, "ratio_to_native", jnum(c->ratio, c->ratio >= 0.0));
    rc |= jset(o, "fastest", json_boolean(c->fastest));
    rc |= jset(o, "status", json_string(status_text(c)));
    if (rc != 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

int bench_write_json(FILE *f, const bench_run *r)
{
    json_t *root = json_object(), *results = json_array(), *meta = json_meta(r);
    int rc = 0;

    if (root == NULL || results == NULL || meta == NULL) {
        json_decref(root);
        json_decref(results);
        json_decref(meta);
        return -1;
    }
    for (int s = 0; s < r->opts->nsizes && rc == 0; s++)
        for (int a = 0; a < r->nalgos && rc == 0; a++) {
            json_t *o = json_result(r, s, a);
            rc = o ? json_array_append_new(results, o) : -1;
        }
    rc |= json_object_set_new(root, "meta", meta);
    rc |= json_object_set_new(root, "results", results);
    if (rc == 0)
        rc = json_dumpf(root, f, JSON_INDENT(2) | JSON_ENSURE_ASCII);
    if (rc == 0 && fputc('\n', f) == EOF)
        rc = -1;
    json_decref(root);
    return rc == 0 ? 0 : -1;
}
