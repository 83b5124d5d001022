/* JSON tuning files: a valid file loads into the rules it describes; every
 * malformed file is refused with a message naming the problem, and so is
 * anything but a regular file (a FIFO without a writer, a directory)
 * without blocking.  No MPI.
 * Ends with "N passed, M failed". */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "select/select.h"
#include "../common/harness.h"

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(2); }
    fputs(text, f);
    fclose(f);
}

static void expect_error(const char *text, const char *needle)
{
    char path[] = "/tmp/topocoll_tuning_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) { perror("mkstemp"); exit(2); }
    close(fd);
    write_file(path, text);
    char err[512] = "";
    tc_table *t = tc_table_load(path, err, sizeof err);
    CHECK(!t && strstr(err, needle) && strstr(err, path), "%s -> %s (wanted '%s')", text, t ? "loaded" : err,
          needle);
    tc_table_free(t);
    unlink(path);
}

/* A FIFO nobody writes to (reading it would block forever) and a directory:
 * refused at once, "not a regular file". */
static void not_regular(void)
{
    char dir[] = "/tmp/topocoll_tuning_dir_XXXXXX", fifo[sizeof dir + 16], err[512];
    if (!mkdtemp(dir)) { perror("mkdtemp"); exit(2); }
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    if (mkfifo(fifo, 0600) != 0) { perror("mkfifo"); exit(2); }
    const char *const paths[] = { fifo, dir };
    for (int i = 0; i < 2; i++) {
        err[0] = '\0';
        tc_table *t = tc_table_load(paths[i], err, sizeof err);
        CHECK(!t && strstr(err, "not a regular file") && strstr(err, paths[i]), "%s %s: %s",
              i ? "directory" : "FIFO", paths[i], t ? "loaded" : err);
        tc_table_free(t);
    }
    unlink(fifo);
    rmdir(dir);
}

int main(void)
{
    char path[] = "/tmp/topocoll_tuning_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return 2;
    close(fd);
    write_file(path, "{ \"allgather\": [ {\"np\": [2, 8], \"bytes\": [0, 4096], \"pow2\": true,"
                     " \"algorithms\": [\"bruck\", \"ring\"], \"note\": \"mine\"},"
                     " {\"algorithms\": [\"ring\"]} ] }");
    char err[512] = "";
    tc_table *t = tc_table_load(path, err, sizeof err);
    unlink(path);
    CHECK(t && t->nrules == 2 && t->rules[0].min_np == 2 && t->rules[0].max_np == 8 &&
              t->rules[0].pow2_only && t->rules[0].max_bytes == 4096 &&
              strcmp(t->rules[0].candidates[0], "bruck") == 0 && strcmp(t->rules[0].candidates[1], "ring") == 0 &&
              !t->rules[0].candidates[2] && strcmp(t->rules[0].note, "mine") == 0 && t->rules[1].min_np == 1 &&
              t->rules[1].max_np == 0 && !t->rules[1].pow2_only,
          "valid file: %s", t ? "wrong rules" : err);
    tc_table_free(t);

    expect_error("{ \"allgather\": [ ", "");
    expect_error("[1, 2]", "top level must be an object");
    expect_error("{ \"neighbor_alltoallw\": [] }", "unknown collective \"neighbor_alltoallw\"");
    expect_error("{ \"allgather\": {} }", "must be a list of rules");
    expect_error("{ \"allgather\": [ 3 ] }", "rule 0 is not an object");
    expect_error("{ \"allgather\": [ {\"algorithms\": [\"nosuch\"]} ] }", "unknown algorithm \"nosuch\"");
    expect_error("{ \"allgather\": [ {\"algorithms\": [7]} ] }", "unknown algorithm (not a string)");
    expect_error("{ \"allgather\": [ {\"algorithms\": []} ] }", "\"algorithms\" must be a list");
    expect_error("{ \"allgather\": [ {\"np\": [8, 2], \"algorithms\": [\"ring\"]} ] }", "\"np\" must be");
    expect_error("{ \"allgather\": [ {\"np\": [-1, 2], \"algorithms\": [\"ring\"]} ] }", "\"np\" must be");
    expect_error("{ \"allgather\": [ {\"bytes\": \"big\", \"algorithms\": [\"ring\"]} ] }", "\"bytes\" must be");
    expect_error("{ \"allgather\": [ {\"pow2\": 1, \"algorithms\": [\"ring\"]} ] }", "\"pow2\" must be");
    expect_error("{ \"allgather\": [ {\"algorithm\": [\"ring\"]} ] }", "unknown field \"algorithm\"");
    expect_error("{ \"allgather\": [ {\"algorithms\": [\"ring\"]}, {\"np\": [1]} ] }", "rule 1");

    /* evidence fields (topocoll-tune) and the file's description */
    fd = -1;
    char path2[] = "/tmp/topocoll_tuning_XXXXXX";
    if ((fd = mkstemp(path2)) >= 0) close(fd);
    write_file(path2, "{ \"_tuned\": {\"tool\": \"x\"}, \"bcast\": [ {\"np\": [4, 4], \"algorithms\": [\"binomial\"],"
                      " \"origin\": \"measured\", \"ratio\": 0.8, \"spread\": [0.75, 0.85], \"evidence\": [[8, 0.8]]} ] }");
    t = tc_table_load(path2, err, sizeof err);
    unlink(path2);
    CHECK(t && t->nrules == 1 && t->rules[0].coll == TOPOCOLL_BCAST && strcmp(t->rules[0].origin, "measured") == 0 &&
              t->rules[0].ratio == 0.8 && t->rules[0].spread_lo == 0.75 && t->rules[0].spread_hi == 0.85,
          "evidence fields: %s", t ? "wrong rule" : err);
    tc_table_free(t);
    expect_error("{ \"allgather\": [ {\"algorithms\": [\"ring\"], \"ratio\": 0} ] }", "\"ratio\" a positive number");
    expect_error("{ \"allgather\": [ {\"algorithms\": [\"ring\"], \"ratio\": \"x\"} ] }", "\"ratio\" a positive");
    expect_error("{ \"allgather\": [ {\"algorithms\": [\"ring\"], \"spread\": [0.9, 0.8]} ] }", "\"spread\" [low, high]");
    expect_error("{ \"allgather\": [ {\"algorithms\": [\"ring\"], \"spread\": [0.9]} ] }", "\"spread\" [low, high]");
    expect_error("{ \"allgather\": [ {\"algorithms\": [\"ring\"], \"origin\": 3} ] }", "\"origin\" must be a string");
    expect_error("{ \"tuned\": {} }", "unknown collective \"tuned\"");

    /* the load condition: "oversubscribed" true / false / absent */
    char path3[] = "/tmp/topocoll_tuning_XXXXXX";
    if ((fd = mkstemp(path3)) >= 0) close(fd);
    write_file(path3, "{ \"allgather\": [ {\"algorithms\": [\"linear\"], \"oversubscribed\": true},"
                      " {\"algorithms\": [\"ring\"], \"oversubscribed\": false}, {\"algorithms\": [\"bruck\"]} ] }");
    t = tc_table_load(path3, err, sizeof err);
    unlink(path3);
    CHECK(t && t->nrules == 3 && t->rules[0].load == TC_LOAD_OVERSUBSCRIBED &&
              t->rules[1].load == TC_LOAD_DEDICATED && t->rules[2].load == TC_LOAD_ANY,
          "\"oversubscribed\": %s", t ? "wrong load conditions" : err);
    tc_table_free(t);
    expect_error("{ \"allgather\": [ {\"algorithms\": [\"ring\"], \"oversubscribed\": 1} ] }",
                 "rule 0: \"oversubscribed\" must be true or false");
    expect_error("{ \"allgather\": [ {\"algorithms\": [\"ring\"]}, {\"algorithms\": [\"ring\"], "
                 "\"oversubscribed\": \"yes\"} ] }", "rule 1: \"oversubscribed\" must be true or false");
    expect_error("{ \"allgather\": [ {\"algorithms\": [\"ring\"], \"oversubscribed\": null} ] }",
                 "\"oversubscribed\" must be true or false");
    expect_error("{ \"allgather\": [ {\"algorithms\": [\"ring\"], \"oversubscription\": true} ] }",
                 "unknown field \"oversubscription\"");

    /* "replace_builtin": the file alone (true) or over the built-in rules (false, absent) */
    char path4[] = "/tmp/topocoll_tuning_XXXXXX";
    if ((fd = mkstemp(path4)) >= 0) close(fd);
    const char *const repl[3] = { "", "\"replace_builtin\": false, ", "\"replace_builtin\": true, " };
    for (int k = 0; k < 3; k++) {
        char text[256];
        snprintf(text, sizeof text, "{ %s\"allgather\": [ {\"algorithms\": [\"ring\"]} ] }", repl[k]);
        write_file(path4, text);
        t = tc_table_load(path4, err, sizeof err);
        CHECK(t && t->nrules == 1 && t->replace_builtin == (k == 2), "%s: %s", text, t ? "replace_builtin" : err);
        tc_table_free(t);
    }
    unlink(path4);
    expect_error("{ \"replace_builtin\": 1, \"allgather\": [] }", "\"replace_builtin\" must be true");
    expect_error("{ \"replace_builtin\": \"yes\" }", "\"replace_builtin\" must be true");

    char missing[] = "/nonexistent/topocoll.json";
    t = tc_table_load(missing, err, sizeof err);
    CHECK(!t && strstr(err, missing), "missing file accepted");
    tc_table_free(t);

    not_regular();
    return tc_test_summary();
}
