/* The one-node allreduce memory model (src/select/shm_model.h), no MPI:
 * TOPOCOLL_SHM_MODEL values parse, malformed ones are refused with a message
 * naming the problem; every entry's prediction grows with n; the formulas
 * give the hand-computed values; the native interpolation passes through
 * its points; the choice and the crossover lie where the formulas say.
 * Ends with "N passed, M failed". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select/shm_model.h"
#include "../common/harness.h"

static const char *const names[] = {
    "shm_tiled_naive", "shm_rb2_1s", "shm_rb4_1s", "shm_rb8_1s", "shm_rb2_2s", "shm_rb4_2s", "shm_rb8_2s",
    "shm_tiled_cyclic_256", "shm_tiled_cyclic_2k", "shm_tiled_cyclic_16k", "shm_tiled_cyclic_128k",
    "shm_tiled_hier_256", "shm_tiled_hier_2k", "shm_tiled_hier_16k", "shm_tiled_hier_128k",
    "shm_dissemination", "shm_inline",
};
#define NNAMES ((int)(sizeof names / sizeof names[0]))

static int near(double a, double b) { return fabs(a - b) <= 1e-9 * (fabs(a) + fabs(b) + 1); }

static void expect_error(const char *text, const char *needle)
{
    tc_shm_model m;
    tc_shm_model_defaults(&m);
    tc_shm_model before = m;
    char err[512] = "";
    int rc = tc_shm_model_parse(text, &m, err, sizeof err);
    CHECK(rc != 0 && strstr(err, needle) && strstr(err, "TOPOCOLL_SHM_MODEL"), "'%s' -> rc %d '%s' (wanted '%s')",
          text ? text : "(null)", rc, err, needle);
    CHECK(memcmp(&m, &before, sizeof m) == 0, "'%s': a refused value changed the model", text ? text : "");
}

static void test_parse(void)
{
    tc_shm_model m;
    char err[512] = "";
    tc_shm_model_defaults(&m);
    CHECK(tc_shm_model_parse("flag=0.5,copy=12,reduce=6.5", &m, err, sizeof err) == 0, "valid: %s", err);
    CHECK(m.flag_us[0] == 0.5 && m.flag_us[1] == 0.5 && m.copy_gbs[0] == 12 && m.copy_gbs[1] == 12 &&
          m.reduce_gbs[0] == 6.5 && m.reduce_gbs[1] == 6.5, "both levels set");
    CHECK(strcmp(m.source, "TOPOCOLL_SHM_MODEL") == 0, "source %s", m.source);
    CHECK(tc_shm_model_parse("call=0", &m, err, sizeof err) == 0 && m.call_us == 0, "call=0: %s", err);
    CHECK(tc_shm_model_parse("copy=12,copy_x=3,flag_x=2,reduce_x=1,native8=0.1,native256k=40", &m, err,
                             sizeof err) == 0, "cross keys: %s", err);
    CHECK(m.copy_gbs[0] == 12 && m.copy_gbs[1] == 3 && m.flag_us[1] == 2 && m.reduce_gbs[1] == 1 &&
          m.native_us[0] == 0.1 && m.native_us[3] == 40 && !m.one_socket, "cross values set");
    expect_error("flag=0.5,bogus=1", "unknown key 'bogus'");
    expect_error("flag", "'flag' has no '='");
    expect_error("copy=fast", "'copy' needs a positive number, got 'fast'");
    expect_error("copy=-3", "'copy' needs a positive number, got '-3'");
    expect_error("copy=0", "'copy' needs a positive number");
    expect_error("call=-1", "'call' needs a positive number, got '-1'");
    expect_error("copy=", "'copy' needs a positive number");
    expect_error("reduce=inf", "'reduce' needs a positive number");
    expect_error("flag=1,,copy=2", "empty entry");
    expect_error("", "is empty");
    expect_error(NULL, "is empty");
    char line[600];
    tc_shm_model_format(&m, line, sizeof line);
    CHECK(strstr(line, "TOPOCOLL_SHM_MODEL") && strstr(line, "copy 12.00 / 3.00 GB/s"), "format: %s", line);
}

/* One node of s sockets x q ranks (spec "1xSxQ"), doubles. */
typedef struct shape_case {
    tc_topo *t;
    tc_args a;
} shape_case;

static shape_case make(int s, int q, int commutative)
{
    char spec[32], err[256];
    snprintf(spec, sizeof spec, "1x%dx%d", s, q);
    shape_case c = { tc_topo_from_spec(spec, s * q, err, sizeof err), { 0 } };
    if (!c.t) {
        printf("spec %s: %s\n", spec, err);
        exit(2);
    }
    c.a = (tc_args){ .coll = TOPOCOLL_ALLREDUCE, .rank = 0, .size = s * q, .commutative = commutative,
                     .node_shm = 1 };
    return c;
}

static void set_count(tc_args *a, int64_t bytes) { a->scount = a->rcount = bytes / 8 > 0 ? bytes / 8 : 1; }

/* Every prediction positive, finite and non-decreasing in n. */
static void test_monotone(const tc_shm_model *m, int s, int q, int commutative)
{
    shape_case c = make(s, q, commutative);
    for (int i = 0; i < NNAMES; i++) {
        double prev = 0;
        int ok = 1;
        for (int64_t n = 8; n <= ((int64_t)16 << 20); n *= 2) {
            set_count(&c.a, n);
            tc_shm_shape sh = tc_shm_shape_of(&c.a, c.t, n);
            double us = tc_shm_model_predict(m, names[i], &sh);
            if (!(us > 0) || !isfinite(us) || us < prev) {
                CHECK(0, "%s at 1x%dx%d n=%lld: %g after %g", names[i], s, q, (long long)n, us, prev);
                ok = 0;
                break;
            }
            prev = us;
        }
        if (ok) CHECK(1, "monotone");
    }
    double prev = 0;
    for (int64_t n = 1; n <= ((int64_t)64 << 20); n *= 4) {
        double us = tc_shm_model_native(m, n);
        CHECK(us >= prev && isfinite(us), "native at %lld: %g after %g", (long long)n, us, prev);
        prev = us;
    }
    tc_shm_shape sh = tc_shm_shape_of(&c.a, c.t, 64);
    CHECK(tc_shm_model_predict(m, "ring", &sh) < 0 && tc_shm_model_predict(m, "shm_tiled_cyclic_3k", &sh) < 0,
          "unknown names are not predicted");
    tc_topo_free(c.t);
}

/* The formulas by hand: p = 2 on one socket, flag 1 us, 1 GB/s (1e3 B/us), op 0.02. */
static void test_formulas(void)
{
    tc_shm_model m;
    char err[256];
    tc_shm_model_defaults(&m);
    CHECK(tc_shm_model_parse("flag=1,copy=1,reduce=1,op=0.02,call=0", &m, err, sizeof err) == 0, "%s", err);
    shape_case c = make(1, 2, 1);
    for (int64_t n = 8; n <= 8192; n *= 4) {
        set_count(&c.a, n);
        tc_shm_shape sh = tc_shm_shape_of(&c.a, c.t, n);
        double x = (double)n / 1e3;
        /* copy-in + 2 barriers (one signal each) + half the vector reduced + op + copy-out */
        CHECK(near(tc_shm_model_predict(&m, "shm_tiled_naive", &sh), 1 + 2.5 * x + 0.02), "naive n=%lld",
              (long long)n);
        /* copy-in + op + one level (signal + reduce + op) + bcast (signal + copy + op) */
        CHECK(near(tc_shm_model_predict(&m, "shm_rb2_1s", &sh), 1 + 3 * x + 0.06), "rb2 n=%lld", (long long)n);
        /* copy-in + op + one round (signal + copy + reduce + 2 ops) */
        CHECK(near(tc_shm_model_predict(&m, "shm_dissemination", &sh), 0.5 + 3 * x + 0.06), "diss n=%lld",
              (long long)n);
        /* copy-in + half a round trip + op + the peer's lines (copy + reduce + 0.004 each + op) */
        double lines = (double)((n + 55) / 56);
        CHECK(near(tc_shm_model_predict(&m, "shm_inline", &sh), 0.5 + 3 * x + 0.04 + 0.004 * lines),
              "inline n=%lld: %g", (long long)n, tc_shm_model_predict(&m, "shm_inline", &sh));
    }
    /* two sockets of 2, the cross values four times slower: the tiled reduce's
     * copy-out and barriers cross, the in-socket tree does not */
    CHECK(tc_shm_model_parse("flag=1,copy=1,reduce=1,flag_x=4,copy_x=0.25,reduce_x=0.25", &m, err,
                             sizeof err) == 0, "%s", err);
    shape_case d = make(2, 2, 1);
    set_count(&d.a, 4000);
    tc_shm_shape sh = tc_shm_shape_of(&d.a, d.t, 4000);
    CHECK(sh.p == 4 && sh.s == 2 && sh.q == 2 && sh.groups == 2, "shape %d %d %d %d", sh.p, sh.s, sh.q, sh.groups);
    /* 4 + 2 cross signals (4) + 1000 (1/1e3 + 2/250) + 3 op + 16 */
    CHECK(near(tc_shm_model_predict(&m, "shm_tiled_naive", &sh), 4 + 4 + 9 + 0.06 + 16),
          "naive 2 sockets: %g", tc_shm_model_predict(&m, "shm_tiled_naive", &sh));
    double one = tc_shm_model_predict(&m, "shm_rb2_1s", &sh), two = tc_shm_model_predict(&m, "shm_rb2_2s", &sh);
    /* 1s: 4 + op + [0.5 + 4 + op] + [2 + 16 + op] + 2 (bcast: 2 + 16 + op); 2s: bcast 2 + 16 + 0.5 + 4 + 2 op */
    CHECK(near(one, 4 + 0.02 + 4.52 + 18.02 + 18.02) && near(two, 4 + 0.02 + 4.52 + 18.02 + 22.54),
          "rb2 2 sockets: %g %g", one, two);
    double before = tc_shm_model_predict(&m, "shm_tiled_hier_2k", &sh);
    m.call_us = 0.5;
    CHECK(near(tc_shm_model_predict(&m, "shm_tiled_hier_2k", &sh), before + 0.5), "call cost added");
    m.call_us = 0;
    d.a.commutative = 0;   /* one group: hier is cyclic */
    sh = tc_shm_shape_of(&d.a, d.t, 4000);
    CHECK(sh.groups == 1 && near(tc_shm_model_predict(&m, "shm_tiled_hier_256", &sh),
                                 tc_shm_model_predict(&m, "shm_tiled_cyclic_256", &sh)), "non-commutative hier");
    tc_topo_free(c.t);
    tc_topo_free(d.t);
}

/* Native through its points; the choice and the crossover follow the formulas. */
static void test_choice(void)
{
    tc_shm_model m;
    char err[256], why[512];
    tc_shm_model_defaults(&m);
    CHECK(tc_shm_model_parse("flag=1,copy=1,reduce=1,op=0.02,call=0,native8=0.58,native2k=20.98,native16k=164.34,"
                             "native256k=2621.94", &m, err, sizeof err) == 0, "%s", err);
    for (int i = 0; i < TC_SHM_MODEL_NNATIVE; i++)
        CHECK(near(tc_shm_model_native(&m, tc_shm_model_native_bytes[i]), m.native_us[i]), "native point %d", i);
    /* native = 0.5 + 0.01 n; dissemination = 0.56 + 0.003 n: equal at n = 8.6 */
    CHECK(near(tc_shm_model_native(&m, 1000), 10.5) && near(tc_shm_model_native(&m, 1 << 20), 0.5 + 0.01 * (1 << 20)),
          "native interpolation and extrapolation");
    shape_case c = make(1, 2, 1);
    set_count(&c.a, 8);
    /* inline at 8 B: 0.5 + 0.024 + 0.04 + 0.004 = 0.568 < native's 0.58 */
    const tc_algo *al = tc_shm_model_select(&m, &c.a, c.t, 8, why, sizeof why);
    CHECK(al && strcmp(al->name, "shm_inline") == 0 &&
          strstr(why, "model (TOPOCOLL_SHM_MODEL): shm_inline predicted 0.57 us"),
          "8 B: %s (%s)", al ? al->name : "-", why);
    /* 512 B: dissemination 0.56 + 1.536 below inline's 0.54 + 1.536 + 10 lines (tiled 2.30) */
    set_count(&c.a, 512);
    al = tc_shm_model_select(&m, &c.a, c.t, 512, why, sizeof why);
    CHECK(al && strcmp(al->name, "shm_dissemination") == 0 && strstr(why, "tree shm_rb"), "512 B: %s (%s)",
          al ? al->name : "-", why);
    CHECK(tc_shm_model_crossover(&m, &c.a, c.t, 8, 1 << 24) == 8, "crossover %lld",
          (long long)tc_shm_model_crossover(&m, &c.a, c.t, 8, 1 << 24));
    /* a native at 0.5 us from 8 B: inline loses there, dissemination wins from 16 B */
    CHECK(tc_shm_model_parse("native8=0.50", &m, err, sizeof err) == 0, "%s", err);
    set_count(&c.a, 8);
    al = tc_shm_model_select(&m, &c.a, c.t, 8, why, sizeof why);
    CHECK(al && strcmp(al->name, "native") == 0, "8 B, faster native: %s (%s)", al ? al->name : "-", why);
    /* a native ten times faster everywhere: never crossed */
    CHECK(tc_shm_model_parse("native8=0.01,native2k=0.02,native16k=0.03,native256k=0.04", &m, err, sizeof err) == 0,
          "%s", err);
    CHECK(tc_shm_model_crossover(&m, &c.a, c.t, 8, 1 << 24) == -1, "no crossover");
    /* not applicable: several nodes, no shared memory, one rank, another collective */
    tc_args b = c.a;
    CHECK(tc_shm_model_applies(&b, c.t), "applies");
    b.node_shm = 0;
    CHECK(!tc_shm_model_applies(&b, c.t), "no shared memory");
    b = c.a;
    b.coll = TOPOCOLL_ALLGATHER;
    CHECK(!tc_shm_model_applies(&b, c.t), "allgather");
    char e2[256];
    tc_topo *two = tc_topo_from_spec("2x1x1", 2, e2, sizeof e2);
    CHECK(two && !tc_shm_model_applies(&c.a, two), "two nodes");
    tc_topo_free(two);
    tc_topo_free(c.t);
}

int main(void)
{
    test_parse();
    tc_shm_model m;
    tc_shm_model_defaults(&m);
    int shapes[][3] = { { 1, 2, 1 }, { 1, 4, 1 }, { 2, 2, 1 }, { 2, 4, 1 }, { 2, 2, 0 }, { 4, 3, 1 }, { 1, 3, 0 } };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        test_monotone(&m, shapes[i][0], shapes[i][1], shapes[i][2]);
    test_formulas();
    test_choice();
    return tc_test_summary();
}
