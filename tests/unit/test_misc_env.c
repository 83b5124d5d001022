/*
 * The strict parsers of environment values (src/core/config.h): switches,
 * bounded integers, byte counts with K/M/G/T, choices; what each accepts
 * and refuses, and that the tc_env_* forms give the default for a malformed
 * value (and the value for a good one), and that the configuration table
 * takes TOPOCOLL_DISABLE=true, TOPOCOLL_CMA=off and TOPOCOLL_FALLBACK.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "core/config.h"
#include "common/harness.h"

static void bools(void)
{
    static const char *const yes[] = { "1", "true", "TRUE", "yes", "Yes", "on", "ON" };
    static const char *const no[] = { "0", "false", "False", "no", "NO", "off", "Off" };
    static const char *const bad[] = { "", "2", "-1", "maybe", "y", "n", "tru", "1 ", " 1", "01", "yes!" };
    int b;
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        CHECK(tc_parse_bool(yes[i], &b) == 0 && b == 1, "bool '%s' is 1", yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        CHECK(tc_parse_bool(no[i], &b) == 0 && b == 0, "bool '%s' is 0", no[i]);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(tc_parse_bool(bad[i], &b) == -1, "bool '%s' refused", bad[i]);
    CHECK(tc_parse_bool(NULL, &b) == -1, "bool NULL refused");
}

static void ints(void)
{
    long long n = 0;
    CHECK(tc_parse_int("0", 0, 2, &n) == 0 && n == 0, "int 0");
    CHECK(tc_parse_int("2", 0, 2, &n) == 0 && n == 2, "int 2");
    CHECK(tc_parse_int("+1", 0, 2, &n) == 0 && n == 1, "int +1");
    CHECK(tc_parse_int("-5", -10, 10, &n) == 0 && n == -5, "int -5");
    static const char *const bad[] = { "", "3", "-1", "abc", "1x", "1.0", " 1", "1 ", "+", "-",
                                       "99999999999999999999", "0x1" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(tc_parse_int(bad[i], 0, 2, &n) == -1, "int '%s' refused in 0..2", bad[i]);
}

static void sizes(void)
{
    const long long max = 1LL << 62;
    static const struct { const char *v; long long bytes; } good[] = {
        { "0", 0 }, { "65536", 65536 }, { "64K", 65536 }, { "64k", 65536 }, { "64KB", 65536 }, { "64KiB", 65536 },
        { "2M", 2LL << 20 }, { "2MiB", 2LL << 20 }, { "1g", 1LL << 30 }, { "3T", 3LL << 40 }, { "100B", 100 },
    };
    static const char *const bad[] = { "", "K", "-1", "1.5M", "1X", "1 M", "1Ki", "1KBB", "1MB2", "abc",
                                       "99999999999999999999", "16777216T" };
    long long n;
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        CHECK(tc_parse_size(good[i].v, max, &n) == 0 && n == good[i].bytes, "size '%s' is %lld (got %lld)",
              good[i].v, good[i].bytes, n);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(tc_parse_size(bad[i], max, &n) == -1, "size '%s' refused", bad[i]);
    CHECK(tc_parse_size("2K", 2047, &n) == -1, "size above its maximum refused");
}

static void choices(void)
{
    static const char *const c[] = { "print", "silent", "error", NULL };
    int i;
    CHECK(tc_parse_choice("print", c, &i) == 0 && i == 0, "choice print");
    CHECK(tc_parse_choice("ERROR", c, &i) == 0 && i == 2, "choice ERROR");
    CHECK(tc_parse_choice("loud", c, &i) == -1, "choice loud refused");
    CHECK(tc_parse_choice("", c, &i) == -1, "choice '' refused");
    CHECK(tc_parse_choice("prin", c, &i) == -1, "choice prefix refused");
}

/* The tc_env_* forms (their messages go to stderr; the values are checked). */
static void env_forms(void)
{
    static const char *const c[] = { "a", "b", NULL };
    setenv("TC_TEST_VAR", "on", 1);
    CHECK(tc_env_bool("TC_TEST_VAR", 0) == 1, "tc_env_bool on");
    setenv("TC_TEST_VAR", "bogus", 1);
    CHECK(tc_env_bool("TC_TEST_VAR", 1) == 1 && tc_env_bool("TC_TEST_VAR", 0) == 0, "tc_env_bool bogus: default");
    CHECK(tc_env_int("TC_TEST_VAR", 0, 9, 7) == 7, "tc_env_int bogus: default");
    CHECK(tc_env_size("TC_TEST_VAR", 1LL << 40, 123) == 123, "tc_env_size bogus: default");
    CHECK(tc_env_choice("TC_TEST_VAR", c, 1) == 1, "tc_env_choice bogus: default");
    setenv("TC_TEST_VAR", "8M", 1);
    CHECK(tc_env_size("TC_TEST_VAR", 1LL << 40, 123) == 8LL << 20, "tc_env_size 8M");
    setenv("TC_TEST_VAR", "b", 1);
    CHECK(tc_env_choice("TC_TEST_VAR", c, 0) == 1, "tc_env_choice b");
    setenv("TC_TEST_VAR", "", 1);
    CHECK(tc_env_int("TC_TEST_VAR", 0, 9, 4) == 4, "tc_env_int empty: default");
    unsetenv("TC_TEST_VAR");
    CHECK(tc_env_int("TC_TEST_VAR", 0, 9, 5) == 5, "tc_env_int unset: default");
}

static void table(void)
{
    setenv("TOPOCOLL_DISABLE", "true", 1);
    setenv("TOPOCOLL_CMA", "off", 1);
    setenv("TOPOCOLL_FALLBACK", "error", 1);
    setenv("TOPOCOLL_EXPLAIN", "yes", 1);        /* malformed: the default */
    setenv("TOPOCOLL_SCHED_CACHE", "12", 1);
    tc_config_reload();
    const tc_config *c = tc_config_get();
    CHECK(c->disable == 1, "TOPOCOLL_DISABLE=true disables");
    CHECK(c->cma == 0, "TOPOCOLL_CMA=off turns single copy off");
    CHECK(c->fallback == TC_FALLBACK_ERROR, "TOPOCOLL_FALLBACK=error");
    CHECK(c->explain == 0, "TOPOCOLL_EXPLAIN=yes: the default 0");
    CHECK(c->sched_cache == 12, "TOPOCOLL_SCHED_CACHE=12");
    setenv("TOPOCOLL_DISABLE", "maybe", 1);
    setenv("TOPOCOLL_FALLBACK", "loud", 1);
    setenv("TOPOCOLL_SCHED_CACHE", "-3", 1);
    tc_config_reload();
    CHECK(c->disable == 0, "TOPOCOLL_DISABLE=maybe: the default 0");
    CHECK(c->fallback == TC_FALLBACK_PRINT, "TOPOCOLL_FALLBACK=loud: the default print");
    CHECK(c->sched_cache == 64, "TOPOCOLL_SCHED_CACHE=-3: the default 64");
}

int main(void)
{
    bools();
    ints();
    sizes();
    choices();
    env_forms();
    table();
    return tc_test_summary();
}
