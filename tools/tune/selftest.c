/*
 * topocoll-tune self-test of the parts without MPI: options, both exports
 * (of a tune's table and of a learned file), JSON files.  Prints
 * "N passed, M failed"; exit status 1 on any failure.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tune.h"

static int passed, failed;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (cond) passed++;                                                    \
        else { failed++; printf("FAIL line %d: ", __LINE__); printf(__VA_ARGS__); printf("\n"); } \
    } while (0)

static void test_options(void)
{
    char err[256] = "";
    tune_opts o;
    CHECK(tune_parse_duration("10m") == 600 && tune_parse_duration("90s") == 90 && tune_parse_duration("1h") == 3600 &&
          tune_parse_duration("42") == 42, "durations");
    CHECK(tune_parse_duration("abc") < 0 && tune_parse_duration("0") < 0 && tune_parse_duration("5x") < 0 &&
          tune_parse_duration("-1m") < 0, "bad durations");
    char *a1[] = { "tune", "--min", "8", "--max", "1K", "--factor", "4", "-o", "x.json", NULL };
    int rc = tune_parse_options(9, a1, &o, err, sizeof err);
    CHECK(rc == TUNE_PARSE_OK && o.nsizes == 4 && o.sizes[0] == 8 && o.sizes[3] == 512, "grid 8..1K x4 (%s)", err);
    CHECK(rc == TUNE_PARSE_OK && strcmp(o.output, "x.json") == 0 && o.max_calls == 4000 && !o.resume,
          "output, default --max-calls");
    tune_opts_free(&o);
    char *a2[] = { "tune", "--comms", "world,pernode,half", "--colls", "bcast,reduce", NULL };
    rc = tune_parse_options(5, a2, &o, err, sizeof err);
    CHECK(rc == TUNE_PARSE_OK && o.ncomms == 3 && tune_coll_selected(&o, "reduce") && !tune_coll_selected(&o, "red"),
          "comms and colls");
    tune_opts_free(&o);
    char *a4[] = { "tune", "--resume", "--max-calls", "200", "--stop-after", "3", NULL };
    rc = tune_parse_options(6, a4, &o, err, sizeof err);
    CHECK(rc == TUNE_PARSE_OK && o.resume && o.max_calls == 200 && o.stop_after == 3,
          "--resume, --max-calls, --stop-after (%s)", err);
    tune_opts_free(&o);
    char *a5[] = { "tune", "--max-calls", "3", NULL };
    CHECK(tune_parse_options(3, a5, &o, err, sizeof err) == TUNE_PARSE_ERROR && strstr(err, "--max-calls"),
          "--max-calls below one batch refused");
    tune_opts_free(&o);
    char *a6[] = { "tune", "--keep", "2", NULL };
    CHECK(tune_parse_options(3, a6, &o, err, sizeof err) == TUNE_PARSE_ERROR && strstr(err, "--keep"),
          "the racing's options are gone (the learner races)");
    tune_opts_free(&o);
    char *a3[] = { "tune", "--factor", "1", NULL };
    CHECK(tune_parse_options(3, a3, &o, err, sizeof err) == TUNE_PARSE_ERROR && strstr(err, "--factor"), "factor 1");
    tune_opts_free(&o);
}

static json_t *fixture(void)
{
    return json_pack("{s:[{s:[i,i], s:[i,i], s:[i,i], s:[s]}, {s:[i,i], s:[i,i], s:[i,i], s:[s]}], s:{s:s}}",
                     "allgather", "np", 4, 4, "nodes", 1, 1, "bytes", 0, 1024, "algorithms", "ring",
                     "np", 4, 4, "nodes", 1, 1, "bytes", 1024, 0, "algorithms", "h1_shm_rd_shm",
                     "_tuned", "tool", "selftest");
}

static void test_exports(void)
{
    char path[] = "/tmp/tune-selftest-XXXXXX", err[256] = "", text[2048] = "";
    int fd = mkstemp(path);
    if (fd >= 0) close(fd);
    json_t *t = fixture();
    CHECK(fd >= 0 && tune_export_ompi(t, path, err, sizeof err) == 0, "ompi export (%s)", err);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = '\0';
    if (f) fclose(f);
    CHECK(strstr(text, "\n0  # allgather\n2  # communicator sizes\n4  # communicator size\n2  # message sizes\n"
                       "0 4 0 0") != NULL, "ompi: ring (4) from 0 bytes:\n%s", text);
    CHECK(strstr(text, "\n4096 0 0 0") && strstr(text, "\n5  # communicator size (untuned"),
          "ompi: 1 KiB x 4 ranks hands back to the fixed decision, np 5 untuned:\n%s", text);
    CHECK(tune_export_mpich(t, NULL, path, err, sizeof err) != 0 && strstr(err, "--mpich-base"), "mpich needs a base");
    json_t *base = json_pack("{s:{s:{s:{}}, s:{}}}", "collective=allgather", "comm_type=intra",
                             "algorithm=MPIR_Allgather_intra_brucks", "comm_type=inter");
    CHECK(tune_export_mpich(t, base, path, err, sizeof err) == 0, "mpich export (%s)", err);
    json_t *m = tune_load_json(path, err, sizeof err);
    json_t *four = json_object_get(json_object_get(json_object_get(json_object_get(m, "collective=allgather"),
                                                                   "comm_type=intra"), "comm_size<=4"),
                                   "total_msg_size<4096");
    CHECK(json_object_get(four, "algorithm=MPIR_Allgather_intra_ring") != NULL, "mpich: ring below 4096 total bytes");
    json_t *rest = json_object_get(json_object_get(json_object_get(json_object_get(m, "collective=allgather"),
                                                                   "comm_type=intra"), "comm_size<=4"),
                                   "total_msg_size=any");
    CHECK(json_object_get(rest, "algorithm=MPIR_Allgather_intra_brucks") != NULL,
          "mpich: no MPICH counterpart: the base's own tree");
    json_decref(m);
    /* a grid that ended at 1 KiB with ring winning: above it both libraries decide again */
    json_t *bounded = json_pack("{s:[{s:[i,i], s:[i,i], s:[i,i], s:[s]}]}", "allgather", "np", 4, 4, "nodes", 1, 1,
                                "bytes", 0, 1024, "algorithms", "ring");
    CHECK(tune_export_ompi(bounded, path, err, sizeof err) == 0, "ompi export, bounded (%s)", err);
    f = fopen(path, "r");
    n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = '\0';
    if (f) fclose(f);
    CHECK(strstr(text, "2  # message sizes\n0 4 0 0") && strstr(text, "\n4096 0 0 0"),
          "ompi: ring up to the grid's end (1 KiB x 4), then the fixed decision:\n%s", text);
    CHECK(tune_export_mpich(bounded, base, path, err, sizeof err) == 0, "mpich export, bounded (%s)", err);
    m = tune_load_json(path, err, sizeof err);
    json_t *np4 = json_object_get(json_object_get(json_object_get(m, "collective=allgather"), "comm_type=intra"),
                                  "comm_size<=4");
    CHECK(json_object_get(json_object_get(np4, "total_msg_size<4096"), "algorithm=MPIR_Allgather_intra_ring") &&
              json_object_get(json_object_get(np4, "total_msg_size=any"), "algorithm=MPIR_Allgather_intra_brucks"),
          "mpich: ring below 4096 total bytes, the base's tree above");
    json_decref(m);
    json_decref(bounded);
    json_decref(base);
    json_decref(t);
    remove(path);
}

/* A learned file (TOPOCOLL_LEARN_FILE's format: the winner, then native as
 * the fallback; origin, ratio, evidence) exports like a tune's table, and
 * survives a write and a load. */
static void test_export_learned(void)
{
    char path[] = "/tmp/tune-selftest-XXXXXX", err[256] = "", text[2048] = "";
    int fd = mkstemp(path);
    if (fd >= 0) close(fd);
    json_t *t = json_pack("{s:[{s:[i,i], s:[i,i], s:[i,i], s:[s,s], s:s, s:f, s:s, s:{s:i, s:i}}], s:{s:s}}",
                          "bcast", "np", 4, 4, "nodes", 2, 2, "bytes", 64, 128, "algorithms", "binomial", "native",
                          "origin", "learned", "ratio", 0.8, "note", "learned", "evidence", "ppn", 2, "op_class", 0,
                          "_learned", "by", "selftest");
    CHECK(fd >= 0 && tune_write_json(t, path) == 0, "write");
    json_t *back = tune_load_json(path, err, sizeof err);
    CHECK(back && json_equal(back, t), "load round trip (%s)", err);
    CHECK(back && tune_export_ompi(back, path, err, sizeof err) == 0, "ompi export of a learned file (%s)", err);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = '\0';
    if (f) fclose(f);
    CHECK(strstr(text, "# bcast") && strstr(text, "4  # communicator size\n") && strstr(text, "\n0 6 0 0") &&
              strstr(text, "\n128 0 0 0"),
          "ompi: binomial (6) for the learned class of np 4 (from the first rule's start), the fixed decision "
          "from its end:\n%s", text);
    json_decref(back);
    json_decref(t);
    remove(path);
}

int main(void)
{
    test_options();
    test_exports();
    test_export_learned();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
