/*
 * The calibration of the one-node allreduce memory model
 * (src/api/shm_calibrate.h): on MPI_COMM_WORLD (one node, shared memory) a
 * context is made without it (no calibration until a choice needs the
 * model); it returns positive finite values, the same on every rank, and
 * runs a fixed number of internal calls (the same in every calibration and
 * on every rank); the context's first request makes its model with exactly
 * one calibration, and keeps it (a second request returns the same values
 * without measuring); a second communicator's context agrees on this
 * process's values without measuring; the user's allreduces after it
 * calibrate nothing; the selected allreduce then gives correct sums
 * at sizes on both sides of the model's crossover, and its explain line
 * names the model.  With TOPOCOLL_SHM_MODEL set, the context's values are
 * that variable's (source "TOPOCOLL_SHM_MODEL"), and nothing is measured.  Where cross-memory attach
 * works, the calibration measures its bandwidth and system-call cost
 * (positive, agreed) and, with values under which single copy wins, the
 * model chooses a single-copy entry at 16 MiB; where it does not
 * (TOPOCOLL_CMA=0), they are not measured and no single-copy entry is ever
 * chosen.
 *
 * Usage: test_shm_calibrate (np >= 2, one node).  Ends with "N passed, M failed".
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/context.h"
#include "api/shm_calibrate.h"
#include "topocoll.h"
#include "../common/mpi_harness.h"

static int rank, size;

static int positive(double v) { return v > 0 && isfinite(v); }

static void check_values(const tc_shm_model *m, const char *what)
{
    int ok = positive(m->flag_us[0]) && positive(m->flag_us[1]) && positive(m->copy_gbs[0]) &&
             positive(m->copy_gbs[1]) && positive(m->reduce_gbs[0]) && positive(m->reduce_gbs[1]);
    for (int i = 0; i < TC_SHM_MODEL_NNATIVE; i++) ok = ok && positive(m->native_us[i]);
    ok = ok && m->call_us >= 0 && isfinite(m->call_us);
    ok = ok && positive(m->cma_gbs[0]) && positive(m->cma_gbs[1]) && m->cma_call_us >= 0 && isfinite(m->cma_call_us);
    char line[600];
    tc_shm_model_format(m, line, sizeof line);
    CHECK(ok, "%s: values not all positive and finite: %s", what, line);
    if (rank == 0) printf("%s: %s\n", what, line);
    /* every rank holds the same values (they choose alike) */
    double v[10] = { m->flag_us[0], m->flag_us[1], m->copy_gbs[0], m->copy_gbs[1], m->reduce_gbs[0],
                     m->reduce_gbs[1], m->cma_gbs[0], m->cma_gbs[1], m->cma_call_us, m->cma_calibrated },
           lo[10], hi[10];
    MPI_Allreduce(v, lo, 10, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(v, hi, 10, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    CHECK(memcmp(lo, hi, sizeof lo) == 0, "%s: ranks hold different values", what);
}

/* The cma values: measured (positive) exactly where cross-memory attach
 * works; and the choice at 16 MiB under values where single copy wins (a
 * copy-in ten times slower, native slower still): a single-copy entry there,
 * never where the context has no cross-memory attach. */
static void check_cma(const tc_ctx *x, const tc_shm_model *m, const char *what, int measured)
{
    int ok = x->shm.cma.ok;
    if (measured)
        CHECK(m->cma_calibrated == ok && (!ok || (positive(m->cma_gbs[0]) && m->cma_call_us > 0)),
              "%s: cma ok %d, calibrated %d, %g GB/s, %g us per call", what, ok, m->cma_calibrated, m->cma_gbs[0],
              m->cma_call_us);
    tc_shm_model w = *m;
    w.copy_gbs[0] = w.copy_gbs[1] = 1;
    w.reduce_gbs[0] = w.reduce_gbs[1] = 20;
    w.cma_gbs[0] = w.cma_gbs[1] = 20;
    for (int i = 0; i < TC_SHM_MODEL_NNATIVE; i++) w.native_us[i] = 1e3 * (double)(i + 1);
    int64_t n = (int64_t)16 << 20;
    tc_args a = { .coll = TOPOCOLL_ALLREDUCE, .rank = rank, .size = size, .scount = n / 8, .rcount = n / 8,
                  .commutative = 1, .node_shm = x->node_shm, .cma = ok };
    char why[512] = "";
    const tc_algo *al = tc_shm_model_select(&w, &a, x->topo, n, why, sizeof why);
    int single = al && strstr(al->name, "_cma") != NULL;
    CHECK(al && single == ok, "%s: 16 MiB with cma %d -> %s (%s)", what, ok, al ? al->name : "-", why);
    if (rank == 0) printf("%s: 16 MiB, cma %d: %s\n", what, ok, why);
}

/* This process's calibrations and internal calls so far. */
static unsigned calibrations(unsigned *calls)
{
    unsigned n, k;
    tc_shm_calibration_counts(&n, &k);
    if (calls) *calls = k;
    return n;
}

/* The context was made without its model: nothing measured yet. */
static void check_made_without_model(const tc_ctx *x)
{
    unsigned calls, n = calibrations(&calls);
    CHECK(x->model == NULL && n == 0 && calls == 0, "the context's making calibrated: model %p, %u calibrations, "
          "%u internal calls", (void *)x->model, n, calls);
}

/* The internal calls since `calls0`: as many on every rank. */
static unsigned calls_since(unsigned calls0, const char *what)
{
    unsigned calls, lo, hi;
    (void)calibrations(&calls);
    calls -= calls0;
    MPI_Allreduce(&calls, &lo, 1, MPI_UNSIGNED, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&calls, &hi, 1, MPI_UNSIGNED, MPI_MAX, MPI_COMM_WORLD);
    CHECK(lo == hi, "%s: internal calls differ between ranks: %u .. %u", what, lo, hi);
    return calls;
}

/* A second communicator's context: this process's values agreed on, no
 * measurement. */
static void check_second_context(const tc_args *a, const tc_shm_model *first)
{
    MPI_Comm dup;
    tc_ctx *y = NULL;
    const tc_shm_model *m = NULL;
    unsigned before = calibrations(NULL);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int rc = tc_ctx_get(dup, &y);
    if (rc == MPI_SUCCESS && y) m = tc_shm_model_for(y, a, &rc);
    CHECK(rc == MPI_SUCCESS && m && m == y->model, "second context: rc %d, model %p", rc, (const void *)m);
    CHECK(calibrations(NULL) == before, "the second context measured again (%u calibrations, %u before)",
          calibrations(NULL), before);
    if (m && first)
        CHECK(m->flag_us[0] == first->flag_us[0] && m->copy_gbs[0] == first->copy_gbs[0],
              "the second context's values differ from the first's");
    MPI_Comm_free(&dup);
}

/* The selected allreduce of n doubles: every element the sum over the ranks. */
static void check_sums(int64_t n)
{
    double *in = malloc((size_t)n * sizeof *in), *out = malloc((size_t)n * sizeof *out);
    if (!in || !out) MPI_Abort(MPI_COMM_WORLD, 2);
    for (int64_t i = 0; i < n; i++) in[i] = (double)(rank + 1) * (double)(i % 7 + 1);
    int rc = topocoll_allreduce(in, out, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double want = (double)size * (size + 1) / 2;
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) bad += out[i] != want * (double)(i % 7 + 1);
    CHECK(rc == MPI_SUCCESS && bad == 0, "allreduce of %lld doubles by %s: rc %d, %lld wrong", (long long)n,
          topocoll_last_algorithm(), rc, (long long)bad);
    if (rank == 0) printf("allreduce %lld B: %s\n", (long long)(n * 8), topocoll_last_algorithm());
    free(in);
    free(out);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    tc_ctx *x = NULL;
    int rc = tc_ctx_get(MPI_COMM_WORLD, &x);
    CHECK(rc == MPI_SUCCESS && x, "context: rc %d", rc);
    const char *env = getenv("TOPOCOLL_SHM_MODEL");
    if (x && x->node_shm && x->topo->nnodes == 1 && size > 1) {
        tc_args a = { .coll = TOPOCOLL_ALLREDUCE, .rank = rank, .size = size, .scount = 1024, .rcount = 1024,
                      .commutative = 1, .node_shm = x->node_shm };
        unsigned per_calibration = 0, calls0 = 0;
        check_made_without_model(x);
        if (!env) {
            tc_shm_model m;
            rc = tc_shm_model_calibrate(x, &m);
            CHECK(rc == MPI_SUCCESS, "calibration: rc %d", rc);
            per_calibration = calls_since(0, "calibration");
            CHECK(calibrations(NULL) == 1 && per_calibration > 0, "calibration: %u calibrations, %u internal calls",
                  calibrations(NULL), per_calibration);
            check_values(&m, "calibration");
            check_cma(x, &m, "calibration", 1);
            CHECK(strcmp(m.source, "calibrated") == 0 && positive(m.cost_ms), "source %s, cost %g ms", m.source,
                  m.cost_ms);
            CHECK(m.one_socket == (x->topo->nsockets == 1), "one_socket %d with %d sockets", m.one_socket,
                  x->topo->nsockets);
        }
        unsigned n0 = calibrations(&calls0);
        const tc_shm_model *p1 = tc_shm_model_for(x, &a, &rc);
        /* bounded: one calibration, with as many internal calls as the
         * first (a fixed number, whatever the machine's load); none with
         * the variable */
        unsigned n1 = calibrations(NULL), made = calls_since(calls0, "the context's model");
        CHECK(n1 == n0 + (env ? 0u : 1u) && made == per_calibration,
              "the context's model: %u calibrations (%u before), %u internal calls (a calibration's: %u)", n1, n0,
              made, per_calibration);
        CHECK(rc == MPI_SUCCESS && p1, "model for the context: rc %d", rc);
        if (p1) check_values(p1, "context");
        if (p1) check_cma(x, p1, "context", !env);
        const char *cma_env = getenv("TOPOCOLL_CMA");
        if (cma_env && strcmp(cma_env, "0") == 0)
            CHECK(!x->shm.cma.ok && p1 && !p1->cma_calibrated, "TOPOCOLL_CMA=0: cma off and not measured");
        const tc_shm_model *p2 = tc_shm_model_for(x, &a, &rc);
        CHECK(p2 == p1 && p1 == x->model, "the context keeps its model");
        if (p1 && env) CHECK(strcmp(p1->source, "TOPOCOLL_SHM_MODEL") == 0, "source %s", p1->source);
        if (p1 && !env) CHECK(strcmp(p1->source, "calibrated") == 0, "source %s", p1->source);
        check_second_context(&a, p1);
        for (int64_t n = 1; n <= (1 << 18); n *= 8) check_sums(n);
        CHECK(calibrations(NULL) == n1, "the calls calibrated: %u calibrations, %u before", calibrations(NULL), n1);
    } else {
        CHECK(0, "needs np >= 2 on one node with shared memory (np %d, nodes %d)", size,
              x ? x->topo->nnodes : -1);
    }
    int status = tc_test_mpi_summary(0);
    MPI_Finalize();
    return status;
}
