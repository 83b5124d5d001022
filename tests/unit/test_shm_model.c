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
    "shm_tiled_naive_cma", "shm_tiled_cyclic_256_cma", "shm_tiled_cyclic_2k_cma", "shm_tiled_cyclic_16k_cma",
    "shm_tiled_cyclic_128k_cma", "shm_rb2_1s_cma", "shm_rb4_1s_cma", "shm_rb8_1s_cma", "shm_rb2_2s_cma",
    "shm_rb4_2s_cma", "shm_rb8_2s_cma", "shm_dissemination_cma", "shm_tiled_hier_256_cma", "shm_tiled_hier_2k_cma",
    "shm_tiled_hier_16k_cma", "shm_tiled_hier_128k_cma",
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
    CHECK(tc_shm_model_parse("cma=9,cma_x=2.5,cma_call=0", &m, err, sizeof err) == 0, "cma keys: %s", err);
    CHECK(m.cma_gbs[0] == 9 && m.cma_gbs[1] == 2.5 && m.cma_call_us == 0, "cma values set");
    CHECK(tc_shm_model_parse("cma=7", &m, err, sizeof err) == 0 && m.cma_gbs[0] == 7 && m.cma_gbs[1] == 7,
          "cma sets both levels");
    CHECK(tc_shm_model_parse("cma_call=2.5", &m, err, sizeof err) == 0 && m.cma_call_us == 2.5, "cma_call");
    expect_error("cma=0", "'cma' needs a positive number");
    expect_error("cma_call=-1", "'cma_call' needs a positive number, got '-1'");
    expect_error("cma_y=1", "unknown key 'cma_y' (keys: flag, copy, reduce, flag_x, copy_x, reduce_x, call, "
                            "native8, native2k, native16k, native256k, cma, cma_x, cma_call, op)");
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
    CHECK(strstr(line, "TOPOCOLL_SHM_MODEL") && strstr(line, "copy 12.00 / 3.00 GB/s") &&
          strstr(line, "cma 7.00 / 7.00 GB/s, 2.500 us per call (not measured)"), "format: %s", line);
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

/* The single-copy entries by hand: flag 1 us (h 0.5), read and reduce 1 GB/s
 * (1e3 B/us), 3 us per system call, op 0.02. */
static void test_cma_formulas(void)
{
    tc_shm_model m;
    char err[256];
    tc_shm_model_defaults(&m);
    CHECK(tc_shm_model_parse("flag=1,copy=1,reduce=1,cma=1,cma_call=3,op=0.02,call=0", &m, err, sizeof err) == 0,
          "%s", err);
    shape_case c = make(1, 2, 1);
    for (int64_t n = 64; n <= 8192; n *= 2) {
        set_count(&c.a, n);
        tc_shm_shape sh = tc_shm_shape_of(&c.a, c.t, n);
        double half = (double)n / 2e3;
        /* 3 barriers + step 2 (read and reduce half, one call + 2 ops) + step 3 (read half, one call + op) */
        CHECK(near(tc_shm_model_predict(&m, "shm_tiled_naive_cma", &sh), 1.5 + 3 * half + 3.04 + 3.02),
              "naive cma n=%lld: %g", (long long)n, tc_shm_model_predict(&m, "shm_tiled_naive_cma", &sh));
    }
    /* 8 KiB of doubles, tiles of 256 (2 KiB): 2 tiles per rank, two chunks in step 2,
     * one batched call in step 3 */
    set_count(&c.a, 8192);
    tc_shm_shape sh = tc_shm_shape_of(&c.a, c.t, 8192);
    CHECK(near(tc_shm_model_predict(&m, "shm_tiled_cyclic_256_cma", &sh), 1.5 + 3 * 4.096 + 2 * 3.04 + 3 + 2 * 0.02),
          "cyclic 256 cma: %g", tc_shm_model_predict(&m, "shm_tiled_cyclic_256_cma", &sh));
    /* 1 MiB: a tile of 65536 elements is two chunks of 32768 in step 2 */
    set_count(&c.a, 1 << 20);
    sh = tc_shm_shape_of(&c.a, c.t, 1 << 20);
    CHECK(near(tc_shm_model_predict(&m, "shm_tiled_naive_cma", &sh), 1.5 + 3 * 524.288 + 2 * 3.04 + 3.02),
          "naive cma 1 MiB: %g", tc_shm_model_predict(&m, "shm_tiled_naive_cma", &sh));
    /* 160 tiles of 128 (1 KiB doubles... here 256 elements of 2 KiB) per rank: step 3 in ceil(160/64) = 3 calls */
    set_count(&c.a, (int64_t)320 * 2048);
    sh = tc_shm_shape_of(&c.a, c.t, (int64_t)320 * 2048);
    double share = 160.0 * 2048 / 1e3;
    CHECK(near(tc_shm_model_predict(&m, "shm_tiled_cyclic_256_cma", &sh),
               1.5 + 3 * share + 160 * 3.04 + 3 * 3 + 160 * 0.02),
          "cyclic 256 cma, batched: %g", tc_shm_model_predict(&m, "shm_tiled_cyclic_256_cma", &sh));
    /* two sockets of 2, cross reads four times slower: reads from the other
     * socket's two ranks at cma_x, the reductions at R0 */
    CHECK(tc_shm_model_parse("cma_x=0.25,flag_x=4", &m, err, sizeof err) == 0, "%s", err);
    shape_case d = make(2, 2, 1);
    set_count(&d.a, 4000);
    sh = tc_shm_shape_of(&d.a, d.t, 4000);
    /* 3 cross signals (6) + step 2: 1000 B from 1 peer at 1e3 + 2 at 250 (9) + 3 reductions (3)
     * + 3 calls + 6 ops + step 3: the same reads (9) + 3 calls + 3 ops */
    CHECK(near(tc_shm_model_predict(&m, "shm_tiled_naive_cma", &sh), 6 + 9 + 3 + 9.12 + 9 + 9.06),
          "naive cma 2 sockets: %g", tc_shm_model_predict(&m, "shm_tiled_naive_cma", &sh));
    CHECK(tc_shm_model_predict(&m, "shm_tiled_cyclic_3k_cma", &sh) < 0 &&
          tc_shm_model_predict(&m, "shm_tiled_hier_3k_cma", &sh) < 0 &&
          tc_shm_model_predict(&m, "shm_tiled_hier__cma", &sh) < 0 &&
          tc_shm_model_predict(&m, "shm_tiled_naive_cmax", &sh) < 0, "unknown cma names are not predicted");
    tc_topo_free(c.t);
    tc_topo_free(d.t);
}

/* The single-copy hierarchical tiles by hand (the values of
 * test_cma_formulas, cross reads four times slower, cross flags 4 us). */
static void test_cma_hier_formulas(void)
{
    tc_shm_model m;
    char err[256];
    tc_shm_model_defaults(&m);
    CHECK(tc_shm_model_parse("flag=1,copy=1,reduce=1,cma=1,cma_call=3,op=0.02,call=0,cma_x=0.25,flag_x=4", &m, err,
                             sizeof err) == 0, "%s", err);
    shape_case d = make(2, 2, 1);
    set_count(&d.a, 4000);
    tc_shm_shape sh = tc_shm_shape_of(&d.a, d.t, 4000);
    /* 4000 B of doubles in tiles of 256 (2048 B): two tiles, one per socket
     * rank.  4 cross signals (3 barriers + 1 level: 8) + step 2: 2048 B read
     * from the socket's other rank and reduced (4.096) + one call and 2 ops
     * (3.04) + the level: 2048 B read across (8.192) and reduced (2.048) +
     * 3.04 + step 4: the whole 4000 B read across (16), one call per owner
     * (2 x 3) and one op per tile (2 x 0.02) */
    double want = 8 + 4.096 + 3.04 + 8.192 + 2.048 + 3.04 + 16 + 6 + 0.04;
    CHECK(near(tc_shm_model_predict(&m, "shm_tiled_hier_256_cma", &sh), want), "hier 256 cma 2 sockets: %g, want %g",
          tc_shm_model_predict(&m, "shm_tiled_hier_256_cma", &sh), want);
    /* four sockets of 2: two levels, one more barrier and one more level */
    shape_case e = make(4, 2, 1);
    set_count(&e.a, 4000);
    tc_shm_shape she = tc_shm_shape_of(&e.a, e.t, 4000);
    CHECK(near(tc_shm_model_predict(&m, "shm_tiled_hier_256_cma", &she), want + 2 + 8.192 + 2.048 + 3.04),
          "hier 256 cma 4 sockets: %g", tc_shm_model_predict(&m, "shm_tiled_hier_256_cma", &she));
    /* one group (a non-commutative operation): as the cyclic tiles */
    d.a.commutative = 0;
    sh = tc_shm_shape_of(&d.a, d.t, 4000);
    CHECK(sh.groups == 1 && near(tc_shm_model_predict(&m, "shm_tiled_hier_2k_cma", &sh),
                                 tc_shm_model_predict(&m, "shm_tiled_cyclic_2k_cma", &sh)),
          "non-commutative hier cma: %g", tc_shm_model_predict(&m, "shm_tiled_hier_2k_cma", &sh));
    tc_topo_free(d.t);
    tc_topo_free(e.t);
}

/* The single-copy tree and dissemination by hand (the values of
 * test_cma_formulas: h 0.5, 1 GB/s, 3 us per system call, op 0.02). */
static void test_cma_tree_formulas(void)
{
    tc_shm_model m;
    char err[256];
    tc_shm_model_defaults(&m);
    CHECK(tc_shm_model_parse("flag=1,copy=1,reduce=1,cma=1,cma_call=3,op=0.02,call=0", &m, err, sizeof err) == 0,
          "%s", err);
    shape_case c = make(1, 2, 1);
    for (int64_t n = 64; n <= 8192; n *= 2) {
        set_count(&c.a, n);
        tc_shm_shape sh = tc_shm_shape_of(&c.a, c.t, n);
        double x = (double)n / 1e3;
        /* the root's copy (x + op) + one level (h + read + reduce + a call + 2 ops)
         * + the broadcast (2 h + read + a call) */
        CHECK(near(tc_shm_model_predict(&m, "shm_rb2_1s_cma", &sh), x + 0.02 + 0.5 + 2 * x + 3.04 + 1 + x + 3),
              "rb2 1s cma n=%lld: %g", (long long)n, tc_shm_model_predict(&m, "shm_rb2_1s_cma", &sh));
        /* one socket: two-stage is one-stage */
        CHECK(near(tc_shm_model_predict(&m, "shm_rb2_2s_cma", &sh), tc_shm_model_predict(&m, "shm_rb2_1s_cma", &sh)),
              "rb2 2s cma, one socket");
        /* one round (h + copy + read + reduce + op + a call + 2 ops) + h */
        CHECK(near(tc_shm_model_predict(&m, "shm_dissemination_cma", &sh), 0.5 + 3 * x + 0.02 + 3.04 + 0.5),
              "diss cma n=%lld: %g", (long long)n, tc_shm_model_predict(&m, "shm_dissemination_cma", &sh));
    }
    /* 1 MiB of doubles: four chunks of 32768 elements, a call each */
    set_count(&c.a, 1 << 20);
    tc_shm_shape sh = tc_shm_shape_of(&c.a, c.t, 1 << 20);
    double x = 1048.576;
    CHECK(near(tc_shm_model_predict(&m, "shm_dissemination_cma", &sh), 1 + 3 * x + 0.02 + 4 * 3.04),
          "diss cma 1 MiB: %g", tc_shm_model_predict(&m, "shm_dissemination_cma", &sh));
    /* two sockets of 2, cross reads four times slower, cross flags 4 us */
    CHECK(tc_shm_model_parse("cma_x=0.25,flag_x=4", &m, err, sizeof err) == 0, "%s", err);
    shape_case d = make(2, 2, 1);
    set_count(&d.a, 4000);
    sh = tc_shm_shape_of(&d.a, d.t, 4000);
    /* copy 4.02; in-socket level 0.5 + 4 + 4 + 3.04; cross level 2 + 16 + 4 + 3.04;
     * 1s: 2 cross halves + cross read + a call (23); 2s: 2 + 16 + 2 h0 + 4 + 2 calls (29) */
    double tree = 4.02 + 11.54 + 25.04;
    CHECK(near(tc_shm_model_predict(&m, "shm_rb2_1s_cma", &sh), tree + 23) &&
          near(tc_shm_model_predict(&m, "shm_rb2_2s_cma", &sh), tree + 29), "rb2 cma 2 sockets: %g %g",
          tc_shm_model_predict(&m, "shm_rb2_1s_cma", &sh), tc_shm_model_predict(&m, "shm_rb2_2s_cma", &sh));
    /* round 0 inside a socket (0.5 + 4 + 4 + 4 + 3.06), round 1 across (2 + 4 + 16 + 4 + 3.06), + h 2 */
    CHECK(near(tc_shm_model_predict(&m, "shm_dissemination_cma", &sh), 15.56 + 29.06 + 2),
          "diss cma 2 sockets: %g", tc_shm_model_predict(&m, "shm_dissemination_cma", &sh));
    CHECK(tc_shm_model_predict(&m, "shm_rb2_1s_cmax", &sh) < 0 && tc_shm_model_predict(&m, "shm_rb2_1sx", &sh) < 0 &&
          tc_shm_model_predict(&m, "shm_rb2_3s_cma", &sh) < 0 &&
          tc_shm_model_predict(&m, "shm_dissemination_cmax", &sh) < 0, "unknown tree names are not predicted");
    tc_topo_free(c.t);
    tc_topo_free(d.t);
}

/* Where cross-socket flags are dear and copies slow (across sockets: very), the single-copy
 * two-stage tree (two cross flags, one cross read, no copy-in) is the
 * model's choice; without cross-memory attach its copy-in form. */
static void test_cma_tree_choice(void)
{
    tc_shm_model m;
    char err[256], why[512];
    tc_shm_model_defaults(&m);
    CHECK(tc_shm_model_parse("flag=1,flag_x=50,copy=5,copy_x=1,reduce=100,cma=100,cma_call=0.5,op=0.02,call=0,native8=500,"
                             "native2k=600,native16k=700,native256k=3000", &m, err, sizeof err) == 0, "%s", err);
    shape_case c = make(4, 4, 1);
    c.a.cma = 1;
    int64_t n = 65536;
    set_count(&c.a, n);
    const tc_algo *al = tc_shm_model_select(&m, &c.a, c.t, n, why, sizeof why);
    printf("64 KiB, 4 sockets of 4, cma: %s\n", why);
    CHECK(al && strncmp(al->name, "shm_rb", 6) == 0 && strstr(al->name, "_2s_cma"), "64 KiB with cma: %s (%s)",
          al ? al->name : "-", why);
    c.a.cma = 0;
    al = tc_shm_model_select(&m, &c.a, c.t, n, why, sizeof why);
    CHECK(al && !strstr(al->name, "_cma"), "64 KiB without cma: %s (%s)", al ? al->name : "-", why);
    tc_topo_free(c.t);
}

/* Single copy wins at large n (it moves half the bytes of copy-in) and loses
 * at small n (a system call per peer costs more than the copy it saves);
 * without cross-memory attach the entries decline and are never chosen. */
static void test_cma_choice(void)
{
    tc_shm_model m;
    char err[256], why[512];
    tc_shm_model_defaults(&m);
    CHECK(tc_shm_model_parse("flag=1,copy=10,reduce=5,cma=10,cma_call=3,op=0.02,call=0,native8=5,native2k=6,"
                             "native16k=20,native256k=300", &m, err, sizeof err) == 0, "%s", err);
    shape_case c = make(1, 2, 1);
    c.a.cma = 1;
    int64_t big = (int64_t)16 << 20;
    set_count(&c.a, big);
    const tc_algo *al = tc_shm_model_select(&m, &c.a, c.t, big, why, sizeof why);
    CHECK(al && strcmp(al->name, "shm_tiled_naive_cma") == 0, "16 MiB with cma: %s (%s)", al ? al->name : "-", why);
    tc_shm_shape sh = tc_shm_shape_of(&c.a, c.t, big);
    CHECK(tc_shm_model_predict(&m, "shm_tiled_naive_cma", &sh) < 0.7 * tc_shm_model_predict(&m, "shm_tiled_naive", &sh),
          "16 MiB: single copy well below copy-in");
    set_count(&c.a, 64);
    al = tc_shm_model_select(&m, &c.a, c.t, 64, why, sizeof why);
    CHECK(al && !strstr(al->name, "_cma"), "64 B with cma: %s (%s)", al ? al->name : "-", why);
    set_count(&c.a, 4096);
    al = tc_shm_model_select(&m, &c.a, c.t, 4096, why, sizeof why);
    CHECK(al && !strstr(al->name, "_cma"), "4 KiB with cma: %s (%s)", al ? al->name : "-", why);
    /* no cross-memory attach: copy-in at 16 MiB */
    c.a.cma = 0;
    set_count(&c.a, big);
    al = tc_shm_model_select(&m, &c.a, c.t, big, why, sizeof why);
    CHECK(al && strcmp(al->name, "shm_tiled_naive") == 0, "16 MiB without cma: %s (%s)", al ? al->name : "-", why);
    /* a slow process_vm_readv (1 GB/s): copy-in again, even with cma */
    CHECK(tc_shm_model_parse("cma=1", &m, err, sizeof err) == 0, "%s", err);
    c.a.cma = 1;
    al = tc_shm_model_select(&m, &c.a, c.t, big, why, sizeof why);
    CHECK(al && strcmp(al->name, "shm_tiled_naive") == 0, "16 MiB, slow cma: %s (%s)", al ? al->name : "-", why);
    tc_topo_free(c.t);
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
    test_cma_formulas();
    test_cma_choice();
    test_cma_tree_formulas();
    test_cma_tree_choice();
    test_cma_hier_formulas();
    return tc_test_summary();
}
