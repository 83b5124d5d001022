/* A tuning file is a layer over the built-in table: a call that a rule of
 * the file serves gets the file's choice (native included: a region the
 * tune measured and found native stays native), a call that no rule of the
 * file serves gets the built-in rules, then the cost model, then native,
 * as without a file; "replace_builtin": true makes the file the whole
 * table.  The decision names its layer, and so does the explain text.
 * No MPI.  Ends with "N passed, M failed". */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/config.h"
#include "select/select.h"
#include "select/selector.h"
#include "topo/topo.h"
#include "../common/harness.h"
#include "../common/topo_spec.h"

static char path[] = "/tmp/topocoll_tuning_layers_XXXXXX";

/* The selection reloaded with `text` as TOPOCOLL_TUNING_FILE (NULL: none). */
static void use_file(const char *text)
{
    if (text) {
        FILE *f = fopen(path, "w");
        if (!f) { perror(path); exit(2); }
        fputs(text, f);
        fclose(f);
        setenv("TOPOCOLL_TUNING_FILE", path, 1);
    } else {
        unsetenv("TOPOCOLL_TUNING_FILE");
    }
    tc_config_reload();
    tc_select_finalize();
}

static tc_decision decide(topocoll_coll coll, const tc_topo *t, int64_t bytes, int load, char *why, size_t len)
{
    tc_args a;
    memset(&a, 0, sizeof a);
    a.coll = coll;
    a.size = t->size;
    a.scount = a.rcount = bytes;
    a.commutative = 1;
    a.node_shm = 1;
    a.load = load;
    return tc_select_decide(&a, t, bytes, why, len);
}

static const char *name_of(tc_decision d) { return d.algo ? d.algo->name : "(none)"; }

/* The file measured allgather on 2x2 (np 4, 2 nodes) up to 1 KiB: ring
 * below 64 B, native from 64 B; it measured no alltoall. */
static const char *const measured =
    "{ \"allgather\": ["
    "  {\"np\": [4, 4], \"nodes\": [2, 2], \"bytes\": [0, 64], \"algorithms\": [\"ring\"], \"origin\": \"measured\"},"
    "  {\"np\": [4, 4], \"nodes\": [2, 2], \"bytes\": [64, 1024], \"algorithms\": [\"native\"], \"origin\": \"measured\"}"
    "  ], \"bcast\": [ {\"np\": [4, 4], \"algorithms\": [\"native\"], \"origin\": \"measured\"} ] }";

static void layered(const tc_topo *two)
{
    char why[1024];
    use_file(measured);
    CHECK(tc_select_file() && tc_select_builtin_in_force() && tc_select_table() == tc_select_file(),
          "the file is the first layer, the built-in one under it");
    /* the file's rule */
    tc_decision d = decide(TOPOCOLL_ALLGATHER, two, 8, TC_LOAD_OVERSUBSCRIBED, why, sizeof why);
    char want[200];
    snprintf(want, sizeof want, "tuning file %s rule 0 (measured)", path);
    CHECK(strcmp(name_of(d), "ring") == 0 && d.source == TC_SOURCE_FILE && d.rule == 0 && d.table == tc_select_file() &&
              strncmp(why, want, strlen(want)) == 0,
          "allgather 8 B: %s, layer %s, rule %d (%s)", name_of(d), tc_source_name(d.source), d.rule, why);
    /* measured native stays native, over the built-in rule (linear below 4 KiB) */
    d = decide(TOPOCOLL_ALLGATHER, two, 256, TC_LOAD_OVERSUBSCRIBED, why, sizeof why);
    CHECK(strcmp(name_of(d), "native") == 0 && d.source == TC_SOURCE_FILE && d.rule == 1,
          "allgather 256 B: %s, layer %s (%s)", name_of(d), tc_source_name(d.source), why);
    /* not measured: the built-in rules, as without a file */
    d = decide(TOPOCOLL_ALLGATHER, two, 16384, TC_LOAD_OVERSUBSCRIBED, why, sizeof why);
    CHECK(strcmp(name_of(d), "h1_shm_rd_shm") == 0 && d.source == TC_SOURCE_BUILTIN && d.table == tc_default_table() &&
              strstr(why, "no rule of the tuning file") && strstr(why, "built-in rule"),
          "allgather 16 KiB: %s, layer %s (%s)", name_of(d), tc_source_name(d.source), why);
    d = decide(TOPOCOLL_ALLTOALL, two, 64, TC_LOAD_DEDICATED, why, sizeof why);
    CHECK(strcmp(name_of(d), "h2_p2p") == 0 && d.source == TC_SOURCE_BUILTIN && d.rule >= 0,
          "alltoall 64 B: %s, layer %s (%s)", name_of(d), tc_source_name(d.source), why);
    /* the file's native bcast rule covers every size at np 4 */
    d = decide(TOPOCOLL_BCAST, two, 1 << 20, TC_LOAD_DEDICATED, why, sizeof why);
    CHECK(strcmp(name_of(d), "native") == 0 && d.source == TC_SOURCE_FILE, "bcast 1 MiB: %s, layer %s (%s)",
          name_of(d), tc_source_name(d.source), why);
    /* nothing serves: model or native, named */
    d = decide(TOPOCOLL_GATHER, two, 64, TC_LOAD_ANY, why, sizeof why);
    CHECK((d.source == TC_SOURCE_MODEL || d.source == TC_SOURCE_NATIVE) && d.rule < 0 && !d.table,
          "gather 64 B: %s, layer %s (%s)", name_of(d), tc_source_name(d.source), why);
}

static void replaced(const tc_topo *two)
{
    char why[1024], text[2048];
    snprintf(text, sizeof text, "{ \"replace_builtin\": true, %s", measured + 1);
    use_file(text);
    CHECK(tc_select_file() && !tc_select_builtin_in_force(), "replace_builtin: no built-in layer");
    tc_decision d = decide(TOPOCOLL_ALLTOALL, two, 64, TC_LOAD_ANY, why, sizeof why);
    CHECK(strcmp(name_of(d), "h2_p2p") != 0 && d.source != TC_SOURCE_BUILTIN && !strstr(why, "built-in rule"),
          "replaced, alltoall 64 B: %s, layer %s (%s)", name_of(d), tc_source_name(d.source), why);
    d = decide(TOPOCOLL_ALLGATHER, two, 16384, TC_LOAD_OVERSUBSCRIBED, why, sizeof why);
    CHECK(strcmp(name_of(d), "h1_shm_rd_shm") != 0 && d.source != TC_SOURCE_BUILTIN,
          "replaced, allgather 16 KiB: %s, layer %s (%s)", name_of(d), tc_source_name(d.source), why);
}

static void without_file(const tc_topo *two)
{
    char why[1024];
    use_file(NULL);
    CHECK(!tc_select_file() && tc_select_builtin_in_force() && tc_select_table() == tc_default_table(),
          "no file: the built-in layer alone");
    tc_decision d = decide(TOPOCOLL_ALLGATHER, two, 256, TC_LOAD_OVERSUBSCRIBED, why, sizeof why);
    CHECK(strcmp(name_of(d), "linear") == 0 && d.source == TC_SOURCE_BUILTIN && strncmp(why, "built-in rule", 13) == 0,
          "no file, allgather 256 B: %s, layer %s (%s)", name_of(d), tc_source_name(d.source), why);
    CHECK(strcmp(tc_source_name(TC_SOURCE_FILE), "tuning file") == 0 && strcmp(tc_source_name(TC_SOURCE_NATIVE), "native") == 0,
          "layer names");
}

int main(void)
{
    int fd = mkstemp(path);
    if (fd < 0) { perror("mkstemp"); return 2; }
    close(fd);
    tc_topo *two = tc_test_topo("2x2", 4);
    layered(two);
    replaced(two);
    without_file(two);
    tc_topo_free(two);
    unlink(path);
    return tc_test_summary();
}
