/* Agreement of the cost model's memo (src/select/cost_model.c): under a
 * 2x2x* layout of 5 ranks, the communicators {0,2,4} and {2,3,4} have the
 * same size, node and socket counts and largest node, but their ranks sit
 * elsewhere, and the model chooses differently for some of their calls.
 * Asking for {0,2,4} first must not change the choice for {2,3,4}: ranks
 * 2 and 4 ask for both, rank 3 only for the second, and one communicator's
 * ranks must choose alike.  No MPI.  Ends with "N passed, M failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select/cost_model.h"
#include "topo/topo.h"
#include "../common/harness.h"

static tc_args args_of(topocoll_coll coll, int size)
{
    tc_args a;
    memset(&a, 0, sizeof a);
    a.coll = coll;
    a.size = size;
    a.commutative = 1;
    a.node_shm = 1;
    return a;
}

static const char *name_of(const tc_model_pick *pk) { return pk->algo ? pk->algo->name : "native"; }

int main(void)
{
    /* world ranks 0..4 of 2x2x*: node 0 sockets {0,1} {2}, node 1 sockets {3} {4} */
    const int an[] = { 0, 0, 1 }, as[] = { 0, 1, 1 };   /* {0,2,4} */
    const int bn[] = { 0, 1, 1 }, bs[] = { 1, 0, 1 };   /* {2,3,4} */
    tc_topo *ta = tc_topo_from_map(3, an, as), *tb = tc_topo_from_map(3, bn, bs);
    const topocoll_coll colls[] = { TOPOCOLL_REDUCE, TOPOCOLL_BCAST, TOPOCOLL_GATHER, TOPOCOLL_SCATTER };
    const tc_model_params *m = tc_model_builtin();
    int differ = 0;
    CHECK(ta && tb, "topologies");
    if (!ta || !tb) return tc_test_summary();
    CHECK(ta->nnodes == tb->nnodes && ta->nsockets == tb->nsockets, "the two shapes look alike");
    for (size_t c = 0; c < sizeof colls / sizeof colls[0]; c++)
        for (int64_t bytes = 4; bytes <= 1 << 20; bytes *= 2) {
            tc_args a = args_of(colls[c], 3);
            tc_model_pick fa = tc_model_choose(m, &a, ta, bytes), fb = tc_model_choose(m, &a, tb, bytes);
            differ += fa.algo != fb.algo;
            tc_model_memo_clear();
            tc_model_pick ma = tc_model_choose_memo(m, &a, ta, bytes), mb = tc_model_choose_memo(m, &a, tb, bytes);
            tc_model_pick fresh = tc_model_choose(m, &a, tb, bytes);
            CHECK(mb.algo == fresh.algo, "%s %lld B: {2,3,4} after {0,2,4} chose %s, alone %s",
                  tc_coll_name(colls[c]), (long long)bytes, name_of(&mb), name_of(&fresh));
            CHECK(ma.algo == tc_model_choose(m, &a, ta, bytes).algo, "%s %lld B: {0,2,4}", tc_coll_name(colls[c]),
                  (long long)bytes);
        }
    /* the case is a real one: the model tells the two apart somewhere */
    CHECK(differ > 0, "no call where {0,2,4} and {2,3,4} differ");
    printf("calls whose choice differs between the two communicators: %d\n", differ);
    tc_topo_free(ta);
    tc_topo_free(tb);
    return tc_test_summary();
}
